"""e1_matmul_batch: E1 in MatMul's batch dims — [2,3,4,5] x [3,3,5,6].

`batched_matmul` multiplies `a` [2,3,4,5] by `b` [3,3,5,6]: the matrix dims are fine (5 = 5, result
[4,6]) but the batch dims [2,3] and [3,3] broadcast multidirectionally, and 2 vs 3 on the first batch axis
is E1. The axis is given relative to the full output rank 4: axis -4, sizes [2, 3] (a's size first).

Check: `onnx.checker.check_model(model)` (structural) must pass; `full_check=True` is run and the script
requires the outcome recorded in FULL_CHECK_REJECTS (an InferenceError from onnx's strict shape inference on
the planted E1 is the one case caught). Output declared with rank 4, unknown dims.
Writes e1_matmul_batch.onnx next to this script; deterministic.
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
        [helper.make_node("MatMul", ["a", "b"], ["y"], name="batched_matmul")],
        "e1_matmul_batch",
        [helper.make_tensor_value_info("a", f, [2, 3, 4, 5]), helper.make_tensor_value_info("b", f, [3, 3, 5, 6])],
        [helper.make_tensor_value_info("y", f, [None, None, None, None])],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Broken on purpose: MatMul batch dims do not broadcast (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
