"""e1_zero_size: an E1 involving an empty (0-size) dim — Add of [0,3] with [2,3].

`add_empty_rows` adds `empty` [0,3] and `rows` [2,3]. A 0 broadcasts only with 1 or 0, so 0 vs 2 on
axis -2 is E1, sizes [0, 2] (a checker that takes the maximum would silently say [2,3]). Compare the valid
models/zero_size ([0,3] with [1,3]).

Check: `onnx.checker.check_model(model)` (structural) must pass; `full_check=True` is run and the script
requires the outcome recorded in FULL_CHECK_REJECTS (an InferenceError from onnx's strict shape inference on
the planted E1 is the one case caught). Output declared with rank 2, unknown dims.
Writes e1_zero_size.onnx next to this script; deterministic.
"""

import os

import onnx
from _write import check_and_write
from onnx import TensorProto, helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
FULL_CHECK_REJECTS = True  # does onnx's own full_check (strict shape inference) find the planted E1?


def build() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    graph = helper.make_graph(
        [helper.make_node("Add", ["empty", "rows"], ["y"], name="add_empty_rows")],
        "e1_zero_size",
        [helper.make_tensor_value_info("empty", f, [0, 3]), helper.make_tensor_value_info("rows", f, [2, 3])],
        [helper.make_tensor_value_info("y", f, [None, None])],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Broken on purpose: E1 of a 0-size dim against 2 (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
