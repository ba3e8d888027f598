"""e1_legacy_axis: an E1 under the legacy (opset 6) broadcast rule with an explicit axis.

`legacy_add_axis1`: Add with broadcast=1, axis=1 of A [2,3,4,5] and B [3,5]. The legacy rule lays B onto
A's dims from `axis`: B[0]=3 on A's axis 1 (3, fine) and B[1]=5 on A's axis 2 (4) -> E1 on A's axis 2,
i.e. axis -2 of the rank-4 result, sizes [4, 5] (A's size first, then B's). Under the numpy rule of
opset >= 7 the same shapes also conflict on axis -2, but as 4 vs 3 (B right-aligned): the expected sizes
[4, 5] show the legacy rule was applied. ir_version 3, opset 6, no initializers.

Check: `onnx.checker.check_model(model, full_check=True)` is run and the script requires the outcome recorded
in FULL_CHECK_REJECTS (onnx's shape inference for the opset-6 Add copies the first input's shape and does
not check broadcasts, so onnx does not see this E1). Output declared with rank 4, unknown dims.
Writes e1_legacy_axis.onnx next to this script; deterministic.
"""

import os

import onnx
from _write import check_and_write
from onnx import TensorProto, helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
FULL_CHECK_REJECTS = False  # does onnx's own full_check (strict shape inference) find the planted E1?


def build() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    graph = helper.make_graph(
        [helper.make_node("Add", ["A", "B"], ["y"], name="legacy_add_axis1", broadcast=1, axis=1)],
        "e1_legacy_axis",
        [helper.make_tensor_value_info("A", f, [2, 3, 4, 5]), helper.make_tensor_value_info("B", f, [3, 5])],
        [helper.make_tensor_value_info("y", f, [None, None, None, None])],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=3,
        opset_imports=[helper.make_opsetid("", 6)],
        doc_string="Broken on purpose: legacy broadcast=1/axis E1 (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
