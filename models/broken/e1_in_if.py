"""e1_in_if: an E1 inside an If's then_branch.

`if_node` (If on the bool scalar input `flag`). Its then_branch makes a Constant `then_bias` [4]
(node `then_bias_const`) and adds it to the outer-scope input `x` [2,3] in node `then_add_bias`:
axis -1, 3 vs 4 -> E1, sizes [3, 4], graph main/if_node/then_branch. The else_branch (`else_identity`) is
valid. A checker that skips subgraphs, or cannot give the outer-scope `x` its shape inside, misses it.

Check: `onnx.checker.check_model(model)` (structural) must pass; `full_check=True` is run and the script
requires the outcome recorded in FULL_CHECK_REJECTS (an InferenceError from onnx's strict shape inference on
the planted E1 is the one case caught). Branch and graph outputs are declared with rank 2, unknown dims.
Writes e1_in_if.onnx next to this script; deterministic.
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
    then_bias = numpy_helper.from_array(np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32), "then_bias_value")
    then_branch = helper.make_graph(
        [
            helper.make_node("Constant", [], ["then_bias"], name="then_bias_const", value=then_bias),
            helper.make_node("Add", ["x", "then_bias"], ["then_out"], name="then_add_bias"),
        ],
        "then_branch",
        [],
        [helper.make_tensor_value_info("then_out", F, [None, None])],
    )
    else_branch = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["else_out"], name="else_identity")],
        "else_branch",
        [],
        [helper.make_tensor_value_info("else_out", F, [None, None])],
    )
    graph = helper.make_graph(
        [helper.make_node("If", ["flag"], ["y"], name="if_node", then_branch=then_branch, else_branch=else_branch)],
        "e1_in_if",
        [helper.make_tensor_value_info("x", F, [2, 3]), helper.make_tensor_value_info("flag", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", F, [None, None])],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Broken on purpose: E1 inside an If then_branch (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
