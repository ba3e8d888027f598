"""e1_expand: E1 of a bidirectional broadcast — Expand of [3,4] to the shape [2,1,5].

`expand_to_target` expands `x` [3,4] with the constant shape `target_shape` = [2,1,5] (an initializer).
Expand is bidirectional: the result is the multidirectional broadcast of the input shape and the shape
value, so the target's 1 on axis -2 is fine (3 wins) and the target adds axis -3. On axis -1, 4 vs 5 -> E1,
sizes [4, 5] (the input's size first, then the target's). The only E1 is on axis -1: the brief's target
[2,5] would also conflict on axis -2 (3 vs 2), a second E1, so [2,1,5] is used to keep one finding.

Check: `onnx.checker.check_model(model)` (structural) must pass; `full_check=True` is run and the script
requires the outcome recorded in FULL_CHECK_REJECTS (an InferenceError from onnx's strict shape inference on
the planted E1 is the one case caught). Output declared with rank 3, unknown dims.
Writes e1_expand.onnx next to this script; deterministic.
"""

import os

import numpy as np
import onnx
from _write import check_and_write
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
FULL_CHECK_REJECTS = True  # does onnx's own full_check (strict shape inference) find the planted E1?


def build() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    target = numpy_helper.from_array(np.array([2, 1, 5], dtype=np.int64), "target_shape")
    graph = helper.make_graph(
        [helper.make_node("Expand", ["x", "target_shape"], ["y"], name="expand_to_target")],
        "e1_expand",
        [helper.make_tensor_value_info("x", f, [3, 4])],
        [helper.make_tensor_value_info("y", f, [None, None, None])],
        initializer=[target],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Broken on purpose: Expand input and target shape do not broadcast (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
