"""w2_concat: a contract that holds only under a condition on the symbols (W2).

`stack_rows` concatenates `x` [2, N] and `y` [3, M] on axis 0: their other axis must agree, which holds
only when N = M. onnxruntime loads the model and runs it for N = M; for N = 2 and M = 1 it fails ("Non
concat axis dimensions must match"). Expected: W2 `concat-axes` at node `stack_rows` (Concat), with the
condition `needs M = N` and the smallest failing sizes.

Check: the structural check and onnx's `full_check` pass (two different symbols are no error for onnx).
Writes w2_concat.onnx next to this script; deterministic.
"""

import os

import onnx
from _write import check_and_write
from onnx import TensorProto, helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"


def build() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    graph = helper.make_graph(
        [helper.make_node("Concat", ["x", "y"], ["rows"], name="stack_rows", axis=0)],
        "w2_concat",
        [helper.make_tensor_value_info("x", f, [2, "N"]), helper.make_tensor_value_info("y", f, [3, "M"])],
        [helper.make_tensor_value_info("rows", f, [5, None])],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Broken on purpose: a Concat valid only when two symbols agree (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, False)


if __name__ == "__main__":
    main()
