"""e1_unidirectional_gemm: E1 of a unidirectional broadcast — Gemm's C [3] onto the output [2,4].

`gemm_fc` computes A [2,5] x B [5,4] + C: the product is [2,4] and C must broadcast unidirectionally to it
(C's dims 1 or equal, C never widens the result). C is [3]: on axis -1, 4 vs 3 -> E1, sizes [4, 3]
(the target's size first, then C's). A, B and C are initializers.

Check: `onnx.checker.check_model(model, full_check=True)` passes: onnx 1.23.2's shape inference
does not check the broadcast of Gemm's C, so this E1 is invisible to onnx
(FULL_CHECK_REJECTS = False; the script asserts that).
Output declared with rank 2, unknown dims.
Writes e1_unidirectional_gemm.onnx next to this script; deterministic (fixed values, no random data).
"""

import os

import numpy as np
import onnx
from _write import check_and_write
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
FULL_CHECK_REJECTS = False  # does onnx's own full_check (strict shape inference) find the planted E1?


def build() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    inits = [
        numpy_helper.from_array(np.arange(20, dtype=np.float32).reshape(5, 4) / 20, "fc_b_matrix"),
        numpy_helper.from_array(np.array([0.1, 0.2, 0.3], dtype=np.float32), "fc_c_bias"),
    ]
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", "fc_b_matrix", "fc_c_bias"], ["y"], name="gemm_fc")],
        "e1_unidirectional_gemm",
        [helper.make_tensor_value_info("x", f, [2, 5])],
        [helper.make_tensor_value_info("y", f, [None, None])],
        initializer=inits,
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Broken on purpose: Gemm's C does not broadcast to the output (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
