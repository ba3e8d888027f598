"""e1_in_loop: an E1 inside a Loop body.

`loop_node` (Loop with trip count input `trip_count`, no condition input) carries `acc` [2,3] (initial
value: the input `x`). Its body makes a Constant `step` [2] (node `body_step_const`) and adds it to the
loop-carried `acc_in` [2,3] in node `body_add_step`: axis -1, 3 vs 2 -> E1, sizes [3, 2], graph
main/loop_node/body. A checker that skips subgraphs, or does not give loop-carried values the shape of the
Loop's initial values, misses it.

Check: `onnx.checker.check_model(model)` (structural) must pass; `full_check=True` is run and the script
requires the outcome recorded in FULL_CHECK_REJECTS (an InferenceError from onnx's strict shape inference on
the planted E1 is the one case caught). The body's acc_in is declared [2,3]; its acc_out and the graph
output have rank 2, unknown dims.
Writes e1_in_loop.onnx next to this script; deterministic.
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
    step = numpy_helper.from_array(np.array([0.5, 1.5], dtype=np.float32), "step_value")
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond_identity"),
            helper.make_node("Constant", [], ["step"], name="body_step_const", value=step),
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
            helper.make_tensor_value_info("acc_out", F, [None, None]),
        ],
    )
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trip_count", "", "x"], ["y"], name="loop_node", body=body)],
        "e1_in_loop",
        [helper.make_tensor_value_info("x", F, [2, 3]), helper.make_tensor_value_info("trip_count", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("y", F, [None, None])],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Broken on purpose: E1 inside a Loop body (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
