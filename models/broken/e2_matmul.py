"""e2_matmul: a broken operator contract (E2) that is no broadcast — MatMul of [N, 64] by [63, 8].

`project` multiplies the input `x` [N, 64] by the weight `w` [63, 8]: A's columns (64) and B's rows (63)
must be equal. onnxruntime refuses the model when it loads it ("Incompatible dimensions for matrix
multiplication"). Expected: E2 `matmul-inner` at node `project` (MatMul), graph main, sizes [64, 63].

Check: the structural check passes; onnx's `full_check` (strict shape inference) rejects the model too.
Writes e2_matmul.onnx next to this script; deterministic.
"""

import os

import numpy as np
import onnx
from _write import check_and_write
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
FULL_CHECK_REJECTS = True  # does onnx's own full_check (strict shape inference) find the planted fault?


def build() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    w = numpy_helper.from_array(np.random.default_rng(3).standard_normal([63, 8]).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="project")],
        "e2_matmul",
        [helper.make_tensor_value_info("x", f, ["N", 64])],
        [helper.make_tensor_value_info("y", f, ["N", 8])],
        initializer=[w],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Broken on purpose: a MatMul whose inner sizes differ (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
