"""e1_prelu: E1 of a unidirectional broadcast — PRelu slope [5] onto X [2,3,4].

`prelu_act` applies PRelu to `x` [2,3,4] with `slope` [5]; the slope must broadcast unidirectionally to
X. On axis -1, 4 vs 5 -> E1, sizes [4, 5] (X's size first, then the slope's). `slope` is an initializer.

Check: `onnx.checker.check_model(model, full_check=True)` passes: onnx 1.23.2's shape inference
does not check the broadcast of PRelu's slope, so this E1 is invisible to onnx
(FULL_CHECK_REJECTS = False; the script asserts that).
Output declared with rank 3, unknown dims.
Writes e1_prelu.onnx next to this script; deterministic.
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
    slope = numpy_helper.from_array(np.full([5], 0.25, dtype=np.float32), "slope")
    graph = helper.make_graph(
        [helper.make_node("PRelu", ["x", "slope"], ["y"], name="prelu_act")],
        "e1_prelu",
        [helper.make_tensor_value_info("x", f, [2, 3, 4])],
        [helper.make_tensor_value_info("y", f, [None, None, None])],
        initializer=[slope],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Broken on purpose: PRelu slope does not broadcast to X (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
