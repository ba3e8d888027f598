"""legacy_axis: valid legacy broadcasts of opset 6 (`broadcast=1`, optional `axis`) (no E1 expected).

Before opset 7, Add/Mul/... broadcast only with the attribute broadcast=1, and B is laid onto A's dims from
`axis` (default: aligned to the end):
- `legacy_add_axis1`: Add, broadcast=1, axis=1, A [2,3,4,5], B [3,4] -> B covers A's axes 1..2 (3=3, 4=4).
- `legacy_mul_no_axis`: Mul, broadcast=1, no axis, A [2,3,4,5], B [5] -> B covers A's last axis.
Note that B [3,4] onto [2,3,4,5] is an E1 under the opset >= 7 numpy rule (4 vs 5, 3 vs 4): a checker that
ignores the opset and the legacy attributes reports false errors here. ir_version 3 (ONNX 1.0/1.1 era);
there are no initializers (in IR 3 they would also have to be graph inputs).

Writes legacy_axis.onnx next to this script; deterministic.
"""

import os

import onnx
from onnx import TensorProto, helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"


def build() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    graph = helper.make_graph(
        [
            helper.make_node("Add", ["A", "B_axis1"], ["add_out"], name="legacy_add_axis1", broadcast=1, axis=1),
            helper.make_node("Mul", ["A", "B_last"], ["mul_out"], name="legacy_mul_no_axis", broadcast=1),
        ],
        "legacy_axis",
        [
            helper.make_tensor_value_info("A", f, [2, 3, 4, 5]),
            helper.make_tensor_value_info("B_axis1", f, [3, 4]),
            helper.make_tensor_value_info("B_last", f, [5]),
        ],
        [
            helper.make_tensor_value_info("add_out", f, [2, 3, 4, 5]),
            helper.make_tensor_value_info("mul_out", f, [2, 3, 4, 5]),
        ],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=3,
        opset_imports=[helper.make_opsetid("", 6)],
        doc_string="Valid legacy (opset 6) broadcast=1/axis broadcasts (onnx-lint example model).",
    )


def main() -> None:
    model = build()
    onnx.checker.check_model(model, full_check=True)
    onnx.save_model(model, OUT)
    print(f"wrote {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
