"""many_types: valid broadcasts over many element types (no E1 expected).

Opset 20 (StringConcat). One broadcasting node per type:
- float16 `add_f16`: Add [2,3] + [3];             double `mul_f64`: Mul [2,1] * [1,3]
- int8 `sub_i8`: Sub [4,1] - [3];                 uint16 `add_u16`: Add [2,3] + [1]
- int32 `max_i32`: Max [2,3], [3];                int64 `mul_i64`: Mul [3,1] * [1,4]
- bool `and_bool`: And [2,3], [3]; `or_bool`: Or [2,1], [1,3]; `xor_bool`: Xor [3], [2,3]
- `equal_i64`: Equal int64 [2,3], [3] -> bool;  `equal_str`: Equal string [2,1], [3] -> bool [2,3]
- string `concat_str`: StringConcat [2,1], [3] -> [2,3]; `where_str`: Where bool [2,3], string [2,3], [1]
Shape rules do not depend on the element type, but a checker that only registers float ops, or that
mishandles string/bool tensors, breaks here. onnx-lint should report nothing.

Writes many_types.onnx next to this script; deterministic.
"""

import os

import onnx
from onnx import TensorProto as T
from onnx import helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"

# (node name, op, input element type, shape A, shape B, output element type, output shape)
CASES = [
    ("add_f16", "Add", T.FLOAT16, [2, 3], [3], T.FLOAT16, [2, 3]),
    ("mul_f64", "Mul", T.DOUBLE, [2, 1], [1, 3], T.DOUBLE, [2, 3]),
    ("sub_i8", "Sub", T.INT8, [4, 1], [3], T.INT8, [4, 3]),
    ("add_u16", "Add", T.UINT16, [2, 3], [1], T.UINT16, [2, 3]),
    ("max_i32", "Max", T.INT32, [2, 3], [3], T.INT32, [2, 3]),
    ("mul_i64", "Mul", T.INT64, [3, 1], [1, 4], T.INT64, [3, 4]),
    ("and_bool", "And", T.BOOL, [2, 3], [3], T.BOOL, [2, 3]),
    ("or_bool", "Or", T.BOOL, [2, 1], [1, 3], T.BOOL, [2, 3]),
    ("xor_bool", "Xor", T.BOOL, [3], [2, 3], T.BOOL, [2, 3]),
    ("equal_i64", "Equal", T.INT64, [2, 3], [3], T.BOOL, [2, 3]),
    ("equal_str", "Equal", T.STRING, [2, 1], [3], T.BOOL, [2, 3]),
    ("concat_str", "StringConcat", T.STRING, [2, 1], [3], T.STRING, [2, 3]),
]


def build() -> onnx.ModelProto:
    nodes, inputs, outputs = [], [], []
    for name, op, elem, sa, sb, out_elem, out_shape in CASES:
        a, b, y = f"{name}_a", f"{name}_b", f"{name}_out"
        inputs += [helper.make_tensor_value_info(a, elem, sa), helper.make_tensor_value_info(b, elem, sb)]
        nodes.append(helper.make_node(op, [a, b], [y], name=name))
        outputs.append(helper.make_tensor_value_info(y, out_elem, out_shape))
    # Where over strings, its condition the bool output of and_bool.
    inputs += [
        helper.make_tensor_value_info("where_str_x", T.STRING, [2, 3]),
        helper.make_tensor_value_info("where_str_y", T.STRING, [1]),
    ]
    nodes.append(helper.make_node("Where", ["and_bool_out", "where_str_x", "where_str_y"], ["where_str_out"], name="where_str"))
    outputs.append(helper.make_tensor_value_info("where_str_out", T.STRING, [2, 3]))
    graph = helper.make_graph(nodes, "many_types", inputs, outputs)
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=9,
        opset_imports=[helper.make_opsetid("", 20)],
        doc_string="Valid broadcasts over float16/double/int8/uint16/int32/int64/bool/string (onnx-lint example model).",
    )


def main() -> None:
    model = build()
    onnx.checker.check_model(model, full_check=True)
    onnx.save_model(model, OUT)
    print(f"wrote {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
