"""e1_in_function: an E1 inside the body of a model-local function, visible only at the call site.

The model-local function `onnx_lint.local.ScaleShift` (a FunctionProto in model.functions, ir_version 10)
computes Y = X * S + B with nodes `fn_mul_scale` (Mul) and `fn_add_shift` (Add). The body itself is fine;
the main graph calls it in node `call_scale_shift` with X = `x` [2,3], S = `scale` [4], B = `shift` [3],
so `fn_mul_scale` multiplies [2,3] by [4]: axis -1, 3 vs 4 -> E1, sizes [3, 4]. Expected: the diagnostic
names the CALLING node `call_scale_shift` (op ScaleShift) in graph main, with inner_node `fn_mul_scale`.

Check: `onnx.checker.check_model(model)` (structural) must pass; `full_check=True` is run and the script
requires the outcome recorded in FULL_CHECK_REJECTS (an InferenceError from onnx's strict shape inference on
the planted E1 is the one case caught). Output declared with rank 2, unknown dims.
Writes e1_in_function.onnx next to this script; deterministic.
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
LOCAL = "onnx_lint.local"


def build() -> onnx.ModelProto:
    scale_shift = helper.make_function(
        LOCAL,
        "ScaleShift",
        ["X", "S", "B"],
        ["Y"],
        [
            helper.make_node("Mul", ["X", "S"], ["XS"], name="fn_mul_scale"),
            helper.make_node("Add", ["XS", "B"], ["Y"], name="fn_add_shift"),
        ],
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Y = X * S + B (broadcasting).",
    )
    inits = [
        numpy_helper.from_array(np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32), "scale"),
        numpy_helper.from_array(np.array([0.0, 0.5, 1.0], dtype=np.float32), "shift"),
    ]
    graph = helper.make_graph(
        [helper.make_node("ScaleShift", ["x", "scale", "shift"], ["y"], name="call_scale_shift", domain=LOCAL)],
        "e1_in_function",
        [helper.make_tensor_value_info("x", F, [2, 3])],
        [helper.make_tensor_value_info("y", F, [None, None])],
        initializer=inits,
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(LOCAL, 1)],
        functions=[scale_shift],
        doc_string="Broken on purpose: E1 inside a model-local function body (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
