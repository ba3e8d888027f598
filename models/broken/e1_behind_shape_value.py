"""e1_behind_shape_value: an E1 found only by propagating VALUES through Shape -> Gather -> Concat -> Reshape.

Like e1_behind_reshape, `x` [2,3,8] is reshaped to [2,3,2,4] with a target shape computed by
`x_shape` (Shape) -> `gather_leading_dims` (Gather [0,1]) -> `concat_target_shape` (Concat with [2,4])
-> `reshape_split_last`. Then `add_channel_bias` adds `channel_bias` [5,1,4]: axis -1 4 = 4 and axis -2
2 vs 1 are fine, but on axis -3 the Reshape output's 3 (which comes from `x`'s shape through Shape and
Gather) meets 5 -> E1, sizes [3, 5]. Knowing only the Reshape output's rank is not enough: every size at
fault comes from the computed shape value. (Extra model, beyond the original list.)

Check: `onnx.checker.check_model(model, full_check=True)` passes: onnx 1.23.2's checker runs shape inference
without data propagation, so the Reshape output's dims stay unknown and this E1 is invisible to onnx
(FULL_CHECK_REJECTS = False; the script asserts that). Output declared with rank 4, unknown dims.
Writes e1_behind_shape_value.onnx next to this script; deterministic.
"""

import os

import numpy as np
import onnx
from _write import check_and_write
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
FULL_CHECK_REJECTS = False  # does onnx's own full_check (strict shape inference) find the planted E1?
F = TensorProto.FLOAT


def build() -> onnx.ModelProto:
    inits = [
        numpy_helper.from_array(np.array([0, 1], dtype=np.int64), "leading_idx"),
        numpy_helper.from_array(np.array([2, 4], dtype=np.int64), "split_tail"),
        numpy_helper.from_array(np.arange(20, dtype=np.float32).reshape(5, 1, 4), "channel_bias"),
    ]
    nodes = [
        helper.make_node("Shape", ["x"], ["x_dims"], name="x_shape"),
        helper.make_node("Gather", ["x_dims", "leading_idx"], ["leading_dims"], name="gather_leading_dims", axis=0),
        helper.make_node("Concat", ["leading_dims", "split_tail"], ["target_shape"], name="concat_target_shape", axis=0),
        helper.make_node("Reshape", ["x", "target_shape"], ["x_split"], name="reshape_split_last"),
        helper.make_node("Add", ["x_split", "channel_bias"], ["y"], name="add_channel_bias"),
    ]
    graph = helper.make_graph(
        nodes,
        "e1_behind_shape_value",
        [helper.make_tensor_value_info("x", F, [2, 3, 8])],
        [helper.make_tensor_value_info("y", F, [None, None, None, None])],
        initializer=inits,
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Broken on purpose: E1 needing shape-value propagation through Shape/Gather/Concat (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
