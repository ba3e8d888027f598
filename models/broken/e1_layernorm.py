"""e1_layernorm: E1 of a unidirectional broadcast — LayerNormalization scale [7] on X [2,3,8].

`layernorm` normalizes `x` [2,3,8] over axis -1 (the default) with `ln_scale` [7] and `ln_bias` [8]:
the scale must broadcast unidirectionally to the normalized shape [8]. On axis -1, 8 vs 7 -> E1, sizes
[8, 7] (X's size first, then the scale's). The bias [8] is valid and must not be reported. Opset 17.

Check: `onnx.checker.check_model(model, full_check=True)` passes: onnx 1.23.2's shape inference
does not check the broadcast of LayerNormalization's scale, so this E1 is invisible to onnx
(FULL_CHECK_REJECTS = False; the script asserts that).
Output declared with rank 3, unknown dims.
Writes e1_layernorm.onnx next to this script; deterministic.
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
        numpy_helper.from_array(np.ones([7], dtype=np.float32), "ln_scale"),
        numpy_helper.from_array(np.zeros([8], dtype=np.float32), "ln_bias"),
    ]
    graph = helper.make_graph(
        [helper.make_node("LayerNormalization", ["x", "ln_scale", "ln_bias"], ["y"], name="layernorm", axis=-1)],
        "e1_layernorm",
        [helper.make_tensor_value_info("x", f, [2, 3, 8])],
        [helper.make_tensor_value_info("y", f, [None, None, None])],
        initializer=inits,
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Broken on purpose: LayerNormalization scale does not fit X (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
