"""e1_behind_reshape: an E1 downstream of a Reshape whose target shape is computed in the graph.

`x` [2,3,8] -> `x_shape` (Shape) -> `gather_leading_dims` (Gather indices [0,1]: [2,3]) ->
`concat_target_shape` (Concat with the constant [2,4]: [2,3,2,4]) -> `reshape_split_last` (Reshape:
[2,3,2,4]) -> `matmul_proj` (MatMul with `proj_w` [4,5]: [2,3,2,5]) -> `add_bias` (Add with `bias` [6]):
axis -1, 5 vs 6 -> E1, sizes [5, 6]. Without a shape for the Reshape output, the MatMul output is unknown
and the E1 is missed. (Knowing the Reshape output's rank is enough here, since the 5 comes from `proj_w`;
broken/e1_behind_shape_value needs the values that flow through Shape -> Gather -> Concat.)

Check: `onnx.checker.check_model(model)` (structural) must pass; `full_check=True` is run and the script
requires the outcome recorded in FULL_CHECK_REJECTS (an InferenceError from onnx's strict shape inference on
the planted E1 is the one case caught). Output declared with rank 4, unknown dims.
Writes e1_behind_reshape.onnx next to this script; deterministic.
"""

import os

import numpy as np
import onnx
from _write import check_and_write
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
FULL_CHECK_REJECTS = True  # does onnx's own full_check (strict shape inference) find the planted E1?
F = TensorProto.FLOAT


def build() -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array(np.array([0, 1], dtype=np.int64), "leading_idx"),
        numpy_helper.from_array(np.array([2, 4], dtype=np.int64), "split_tail"),
        numpy_helper.from_array(rng.standard_normal([4, 5]).astype(np.float32), "proj_w"),
        numpy_helper.from_array(rng.standard_normal([6]).astype(np.float32), "bias"),
    ]
    nodes = [
        helper.make_node("Shape", ["x"], ["x_dims"], name="x_shape"),
        helper.make_node("Gather", ["x_dims", "leading_idx"], ["leading_dims"], name="gather_leading_dims", axis=0),
        helper.make_node("Concat", ["leading_dims", "split_tail"], ["target_shape"], name="concat_target_shape", axis=0),
        helper.make_node("Reshape", ["x", "target_shape"], ["x_split"], name="reshape_split_last"),
        helper.make_node("MatMul", ["x_split", "proj_w"], ["projected"], name="matmul_proj"),
        helper.make_node("Add", ["projected", "bias"], ["y"], name="add_bias"),
    ]
    graph = helper.make_graph(
        nodes,
        "e1_behind_reshape",
        [helper.make_tensor_value_info("x", F, [2, 3, 8])],
        [helper.make_tensor_value_info("y", F, [None, None, None, None])],
        initializer=inits,
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Broken on purpose: E1 behind a Shape/Gather/Concat/Reshape chain (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
