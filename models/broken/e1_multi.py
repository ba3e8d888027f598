"""e1_multi: three independent E1s in one graph (Mul, Sub, Where), so a tool that stops at the first fails.

- `mul_gate`: Mul of `features` [2,3] and `gate` [2,4] -> E1 on axis -1 (3 vs 4)
- `sub_offset`: Sub of `rows` [5,2] and `offset` [3,2] -> E1 on axis -2 (5 vs 3)
- `where_select`: Where(`mask` bool [2,6], `on_true` [2,6], `on_false` [7]) -> E1 on axis -1 (6 vs 7)
Between them, `add_valid` (Add [2,3] + [3]) is valid and must not be reported.

Check: `onnx.checker.check_model(model)` (structural) must pass; `full_check=True` is not required to,
since its strict shape inference raises InferenceError "Incompatible dimensions" (onnx 1.23.2 lists all
three nodes in one error). The script catches exactly that (FULL_CHECK_REJECTS).
Outputs are declared with their rank and unknown dims. Writes e1_multi.onnx next to this script.
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
        [
            helper.make_node("Mul", ["features", "gate"], ["gated"], name="mul_gate"),
            helper.make_node("Add", ["features", "bias"], ["biased"], name="add_valid"),
            helper.make_node("Sub", ["rows", "offset"], ["shifted"], name="sub_offset"),
            helper.make_node("Where", ["mask", "on_true", "on_false"], ["selected"], name="where_select"),
        ],
        "e1_multi",
        [
            helper.make_tensor_value_info("features", f, [2, 3]),
            helper.make_tensor_value_info("gate", f, [2, 4]),
            helper.make_tensor_value_info("bias", f, [3]),
            helper.make_tensor_value_info("rows", f, [5, 2]),
            helper.make_tensor_value_info("offset", f, [3, 2]),
            helper.make_tensor_value_info("mask", TensorProto.BOOL, [2, 6]),
            helper.make_tensor_value_info("on_true", f, [2, 6]),
            helper.make_tensor_value_info("on_false", f, [7]),
        ],
        [
            helper.make_tensor_value_info("gated", f, [None, None]),
            helper.make_tensor_value_info("biased", f, [2, 3]),
            helper.make_tensor_value_info("shifted", f, [None, None]),
            helper.make_tensor_value_info("selected", f, [None, None]),
        ],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Broken on purpose: three E1s (Mul, Sub, Where) in one graph (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
