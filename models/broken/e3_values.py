"""e3_values: constant values out of range (E3).

- `pick_row`: Gather on axis 0 of `table` [10, 4] with the constant indices [2, 10]: index 10 is past the
  axis (valid indices are -10 to 9) -> E3 `gather-indices`. onnxruntime fails when it runs the node.
- `swap`: Transpose of `x` [2, 3] with perm [0, 0], which is no permutation -> E3 `transpose-perm`.
  onnxruntime refuses it when it builds the kernel.

Check: the structural check passes; onnx's `full_check` rejects the model (the perm). Writes e3_values.onnx
next to this script; deterministic.
"""

import os

import numpy as np
import onnx
from _write import check_and_write
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
FULL_CHECK_REJECTS = True  # does onnx's own full_check (strict shape inference) find a planted fault?


def build() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    graph = helper.make_graph(
        [
            helper.make_node("Gather", ["table", "rows"], ["picked"], name="pick_row", axis=0),
            helper.make_node("Transpose", ["x"], ["xt"], name="swap", perm=[0, 0]),
        ],
        "e3_values",
        [helper.make_tensor_value_info("table", f, [10, 4]), helper.make_tensor_value_info("x", f, [2, 3])],
        [helper.make_tensor_value_info("picked", f, [2, 4]), helper.make_tensor_value_info("xt", f, [None, None])],
        initializer=[numpy_helper.from_array(np.array([2, 10], np.int64), "rows")],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Broken on purpose: an index and a perm out of range (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
