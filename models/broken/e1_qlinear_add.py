"""e1_qlinear_add: E1 of a multidirectional broadcast at onnxruntime's quantized Add (QLinearAdd).

As onnxruntime's quantizer writes a squeeze-and-excitation gate in QOperator format: `a` [1, 16, 8, 8]
(uint8) plus `gate` [1, 15, 1, 1] (uint8), each with its scale and zero point (scalars), into `y`. On
axis -3, 16 vs 15 -> E1 at `qadd`, sizes [16, 15] (a's first). The scales and zero points are not
broadcast operands and must not be reported. onnxruntime refuses the model when it loads it, with
"Node (qadd) Op (QLinearAdd) [ShapeInferenceError] Incompatible dimensions": no axis, no sizes.

Domains: ai.onnx 17 and com.microsoft 1. Writes e1_qlinear_add.onnx next to this script; deterministic.
"""

import os

import numpy as np
import onnx
from _write import check_and_write
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
FULL_CHECK_REJECTS = False  # onnx's strict inference skips the com.microsoft nodes: it cannot see the E1
MS = "com.microsoft"


def build() -> onnx.ModelProto:
    u8 = TensorProto.UINT8

    def scalar(name: str, value: float | int, dtype: type) -> onnx.TensorProto:
        return numpy_helper.from_array(np.array(value, dtype=dtype), name)

    inits = [
        scalar("a_scale", 0.05, np.float32),
        scalar("a_zero", 128, np.uint8),
        scalar("gate_scale", 0.01, np.float32),
        scalar("gate_zero", 0, np.uint8),
        scalar("y_scale", 0.06, np.float32),
        scalar("y_zero", 128, np.uint8),
    ]
    node = helper.make_node(
        "QLinearAdd",
        ["a", "a_scale", "a_zero", "gate", "gate_scale", "gate_zero", "y_scale", "y_zero"],
        ["y"],
        name="qadd",
        domain=MS,
    )
    graph = helper.make_graph(
        [node],
        "e1_qlinear_add",
        [helper.make_tensor_value_info("a", u8, [1, 16, 8, 8]), helper.make_tensor_value_info("gate", u8, [1, 15, 1, 1])],
        [helper.make_tensor_value_info("y", u8, [None, None, None, None])],
        initializer=inits,
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)],
        doc_string="Broken on purpose: a quantized gate of 15 channels added to 16 (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
