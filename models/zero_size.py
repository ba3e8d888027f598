"""zero_size: valid broadcasts of empty (0-size) tensors (no E1 expected).

`add_empty_rows`: Add of a [0,3] with b [1,3] -> [0,3] (a 1 broadcasts to 0). `add_empty_vector`: Add of
c [0] with d [1] -> [0]. A 0 is a size like any other: 0 with 1 gives 0, so these are valid (0 with 2 would
be E1: see broken/e1_zero_size). onnx-lint should report nothing.

Writes zero_size.onnx next to this script; deterministic.
"""

import os

import onnx
from onnx import TensorProto, helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"


def build() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    graph = helper.make_graph(
        [
            helper.make_node("Add", ["a", "b"], ["rows_out"], name="add_empty_rows"),
            helper.make_node("Add", ["c", "d"], ["vector_out"], name="add_empty_vector"),
        ],
        "zero_size",
        [
            helper.make_tensor_value_info("a", f, [0, 3]),
            helper.make_tensor_value_info("b", f, [1, 3]),
            helper.make_tensor_value_info("c", f, [0]),
            helper.make_tensor_value_info("d", f, [1]),
        ],
        [
            helper.make_tensor_value_info("rows_out", f, [0, 3]),
            helper.make_tensor_value_info("vector_out", f, [0]),
        ],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Valid broadcasts of 0-size tensors (onnx-lint example model).",
    )


def main() -> None:
    model = build()
    onnx.checker.check_model(model, full_check=True)
    onnx.save_model(model, OUT)
    print(f"wrote {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
