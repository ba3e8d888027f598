"""control_flow: valid broadcasts inside subgraphs and a model-local function (no E1 expected).

- `if_node` (If on the bool scalar input `use_bias`): then_branch adds the outer-scope initializer
  `bias` [3] to the outer-scope input `x` [2,3]; else_branch multiplies `x` by a Constant [1,3] made inside
  the branch. Both broadcasts are valid ([2,3] + [3], [2,3] * [1,3]).
- `loop_node` (Loop, trip count input `trip_count`, no condition input): the body adds a Constant [3] to the
  loop-carried value [2,3] each iteration.
- `scale_shift` calls the model-local function `onnx_lint.local.ScaleShift` (a FunctionProto in
  model.functions, ir_version 10): Y = X * S + B, called with X [2,3], S [3], B [2,1] -> valid.

onnx-lint should report no E1 and no W1 here (it has to look into subgraphs and function bodies, and give
outer-scope values their shapes there). Writes control_flow.onnx next to this script; deterministic.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
LOCAL = "onnx_lint.local"
F = TensorProto.FLOAT


def tensor(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.float32), name)


def build() -> onnx.ModelProto:
    then_branch = helper.make_graph(
        [helper.make_node("Add", ["x", "bias"], ["then_out"], name="then_add_outer_bias")],
        "then_branch",
        [],
        [helper.make_tensor_value_info("then_out", F, [2, 3])],
    )
    else_branch = helper.make_graph(
        [
            helper.make_node(
                "Constant", [], ["else_scale"], name="else_scale_const", value=tensor("else_scale_value", [[-1.0, 0.0, 1.0]])
            ),
            helper.make_node("Mul", ["x", "else_scale"], ["else_out"], name="else_mul_scale"),
        ],
        "else_branch",
        [],
        [helper.make_tensor_value_info("else_out", F, [2, 3])],
    )
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond_identity"),
            helper.make_node("Constant", [], ["step"], name="body_step_const", value=tensor("step_value", [0.5, 1.0, 1.5])),
            helper.make_node("Add", ["acc_in", "step"], ["acc_out"], name="body_add_step"),
        ],
        "loop_body",
        [
            helper.make_tensor_value_info("iter", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_in", F, [2, 3]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_out", F, [2, 3]),
        ],
    )
    scale_shift = helper.make_function(
        LOCAL,
        "ScaleShift",
        ["X", "S", "B"],
        ["Y"],
        [
            helper.make_node("Mul", ["X", "S"], ["XS"], name="scaleshift_mul"),
            helper.make_node("Add", ["XS", "B"], ["Y"], name="scaleshift_add"),
        ],
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Y = X * S + B (broadcasting).",
    )
    nodes = [
        helper.make_node("If", ["use_bias"], ["if_out"], name="if_node", then_branch=then_branch, else_branch=else_branch),
        helper.make_node("Loop", ["trip_count", "", "if_out"], ["loop_out"], name="loop_node", body=body),
        helper.make_node("ScaleShift", ["loop_out", "fn_scale", "fn_shift"], ["result"], name="scale_shift", domain=LOCAL),
    ]
    graph = helper.make_graph(
        nodes,
        "control_flow",
        [
            helper.make_tensor_value_info("x", F, [2, 3]),
            helper.make_tensor_value_info("use_bias", TensorProto.BOOL, []),
            helper.make_tensor_value_info("trip_count", TensorProto.INT64, []),
        ],
        [helper.make_tensor_value_info("result", F, [2, 3])],
        initializer=[
            tensor("bias", [1.0, 2.0, 3.0]),
            tensor("fn_scale", [1.0, -1.0, 2.0]),
            tensor("fn_shift", [[10.0], [20.0]]),
        ],
        value_info=[
            helper.make_tensor_value_info("if_out", F, [2, 3]),
            helper.make_tensor_value_info("loop_out", F, [2, 3]),
        ],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(LOCAL, 1)],
        functions=[scale_shift],
        doc_string="Valid broadcasts in If/Loop subgraphs and a model-local function (onnx-lint example model).",
    )


def main() -> None:
    model = build()
    onnx.checker.check_model(model, full_check=True)
    onnx.save_model(model, OUT)
    print(f"wrote {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
