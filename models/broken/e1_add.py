"""e1_add: the simplest planted E1 — Add of [2,64] and [2,63].

`add_lhs_rhs` adds the inputs `lhs` [2,64] and `rhs` [2,63]: on axis -1 the sizes 64 and 63 are unequal and
neither is 1, so the broadcast is impossible (E1). Expected: E1 at node `add_lhs_rhs` (Add), graph main,
axis -1, sizes [64, 63] (see expected.json).

Check: the model is deliberately broken, so `onnx.checker.check_model(model)` (structural checks) must pass
but `full_check=True` is not required to: its strict shape inference raises InferenceError "Incompatible
dimensions" on the planted E1. The script catches exactly that (FULL_CHECK_REJECTS) and saves the model.
The output is declared with rank 2 and unknown dims. Writes e1_add.onnx next to this script; deterministic.
"""

import os

import onnx
from _write import check_and_write
from onnx import TensorProto, helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
FULL_CHECK_REJECTS = True  # does onnx's own full_check (strict shape inference) find the planted E1?


def build() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    graph = helper.make_graph(
        [helper.make_node("Add", ["lhs", "rhs"], ["sum"], name="add_lhs_rhs")],
        "e1_add",
        [helper.make_tensor_value_info("lhs", f, [2, 64]), helper.make_tensor_value_info("rhs", f, [2, 63])],
        [helper.make_tensor_value_info("sum", f, [None, None])],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Broken on purpose: E1 in Add (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
