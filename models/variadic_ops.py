"""variadic_ops: valid multidirectional broadcasts over more than two inputs (no E1 expected).

Sum, Max, Min and Mean (opset 13) each take three inputs a [2,3,4], b [3,1], c [1] -> [2,3,4]; Where takes
three broadcasting inputs cond bool [1,3,1], x [2,1,4], y [3,1] -> [2,3,4]. A checker that only compares
inputs pairwise with the first, or only handles two inputs, gets these wrong; onnx-lint should report nothing.

Writes variadic_ops.onnx next to this script; deterministic (no random data).
"""

import os

import onnx
from onnx import TensorProto, helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"


def build() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    inputs = [
        helper.make_tensor_value_info("a", f, [2, 3, 4]),
        helper.make_tensor_value_info("b", f, [3, 1]),
        helper.make_tensor_value_info("c", f, [1]),
        helper.make_tensor_value_info("cond", TensorProto.BOOL, [1, 3, 1]),
        helper.make_tensor_value_info("x", f, [2, 1, 4]),
        helper.make_tensor_value_info("y", f, [3, 1]),
    ]
    nodes = []
    outputs = []
    for op in ("Sum", "Max", "Min", "Mean"):
        name = op.lower()
        nodes.append(helper.make_node(op, ["a", "b", "c"], [f"{name}_out"], name=f"{name}_abc"))
        outputs.append(helper.make_tensor_value_info(f"{name}_out", f, [2, 3, 4]))
    nodes.append(helper.make_node("Where", ["cond", "x", "y"], ["where_out"], name="where_cond_x_y"))
    outputs.append(helper.make_tensor_value_info("where_out", f, [2, 3, 4]))
    graph = helper.make_graph(nodes, "variadic_ops", inputs, outputs)
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=7,
        opset_imports=[helper.make_opsetid("", 13)],
        doc_string="Valid variadic broadcasts: Sum/Max/Min/Mean of 3 inputs, Where (onnx-lint example model).",
    )


def main() -> None:
    model = build()
    onnx.checker.check_model(model, full_check=True)
    onnx.save_model(model, OUT)
    print(f"wrote {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
