"""e1_symbolic_warning: no definite E1, but a POSSIBLE one — Add of [N,3] with [4,3].

`add_symbolic` adds `x` [N,3] (N a symbolic dim) and `table` [4,3]. On axis -2 the broadcast is valid
only if N is 1 or 4; for any other N it is E1. Expected: no E1 but a W1 warning at `add_symbolic`, axis -2,
condition "N must be 1 or 4" (sizes ["N", 4]).

Check: `onnx.checker.check_model(model, full_check=True)` passes (FULL_CHECK_REJECTS = False; onnx's shape
inference does not reject symbolic dims). The script asserts that. Output declared with rank 2, unknown dims.
Writes e1_symbolic_warning.onnx next to this script; deterministic.
"""

import os

import onnx
from _write import check_and_write
from onnx import TensorProto, helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
FULL_CHECK_REJECTS = False  # does onnx's own full_check (strict shape inference) find the planted E1?


def build() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "table"], ["y"], name="add_symbolic")],
        "e1_symbolic_warning",
        [helper.make_tensor_value_info("x", f, ["N", 3]), helper.make_tensor_value_info("table", f, [4, 3])],
        [helper.make_tensor_value_info("y", f, [None, None])],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Possible E1 (W1): Add of [N,3] and [4,3] (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
