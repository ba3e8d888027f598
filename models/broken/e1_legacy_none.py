"""e1_legacy_none: an E1 of the legacy "no broadcast" rule — opset 6 Add of [2,3] and [3] without broadcast=1.

`legacy_add_no_broadcast`: before opset 7, Add broadcasts only with the attribute broadcast=1; without it
both inputs must have the same shape. A [2,3] and B [3] differ in rank, so this is an error although the
numpy rule of opset >= 7 would accept it. expected.json gives it code E1 with no single axis ("axis": null,
"sizes": null, "ranks": [2, 1]): the fault is the ranks, not one axis. ir_version 3, opset 6.

Check: `onnx.checker.check_model(model, full_check=True)` is run and the script requires the outcome recorded
in FULL_CHECK_REJECTS (onnx's shape inference for the opset-6 Add copies the first input's shape and does
not compare the inputs, so onnx does not see this error). Output declared with rank 2, unknown dims.
Writes e1_legacy_none.onnx next to this script; deterministic.
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
        [helper.make_node("Add", ["A", "B"], ["y"], name="legacy_add_no_broadcast")],
        "e1_legacy_none",
        [helper.make_tensor_value_info("A", f, [2, 3]), helper.make_tensor_value_info("B", f, [3])],
        [helper.make_tensor_value_info("y", f, [None, None])],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=3,
        opset_imports=[helper.make_opsetid("", 6)],
        doc_string="Broken on purpose: legacy Add without broadcast=1 on unequal shapes (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
