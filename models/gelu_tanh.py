"""gelu_tanh: a GPT-2 MLP block with the tanh approximation of GELU, as exported from PyTorch (no E1 expected).

x [batch, seq, 16] -> MatMul [16, 32] + bias [32] -> gelu_new -> MatMul [32, 16] + bias [16], opset 13, where
gelu_new(h) = 0.5 * h * (1 + tanh(sqrt(2 / pi) * (h + 0.044715 * h^3))) is written node by node as the
export writes it: `Pow(h, 3.0)` with a scalar exponent from a `Constant` node, and Mul/Add with scalar
initializers. onnxruntime computes `Pow` with a broadcast exponent of 3 as `h * h * h` but a full-size one
with `pow()`, which differ in the last bit, so `onnx-lint expand` must leave that exponent implicit for
the rewritten model to compute bit-identical outputs (docs/expand-exactness.md); every other broadcast
(the scalars of Mul/Add, the biases) it makes explicit.

Writes gelu_tanh.onnx next to this script; deterministic (seeded weights).
"""

import math
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
HIDDEN, INNER = 16, 32


def scalar(name: str, value: float) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(value, dtype=np.float32), name)


def build() -> onnx.ModelProto:
    rng = np.random.default_rng(2)
    f = TensorProto.FLOAT
    inits = [
        numpy_helper.from_array((rng.standard_normal((HIDDEN, INNER)) * 0.5).astype(np.float32), "fc_weight"),
        numpy_helper.from_array((rng.standard_normal(INNER) * 0.1).astype(np.float32), "fc_bias"),
        numpy_helper.from_array((rng.standard_normal((INNER, HIDDEN)) * 0.5).astype(np.float32), "proj_weight"),
        numpy_helper.from_array((rng.standard_normal(HIDDEN) * 0.1).astype(np.float32), "proj_bias"),
        scalar("half", 0.5),
        scalar("one", 1.0),
        scalar("coeff", 0.044715),
        scalar("sqrt_2_over_pi", math.sqrt(2.0 / math.pi)),
    ]
    three = helper.make_tensor("three_value", f, [], [3.0])
    nodes = [
        helper.make_node("MatMul", ["x", "fc_weight"], ["fc_mm"], name="fc_matmul"),
        helper.make_node("Add", ["fc_bias", "fc_mm"], ["h"], name="fc_add_bias"),
        helper.make_node("Constant", [], ["three"], name="act_constant_three", value=three),
        helper.make_node("Pow", ["h", "three"], ["h_cubed"], name="act_pow"),
        helper.make_node("Mul", ["h_cubed", "coeff"], ["h_cubed_scaled"], name="act_mul_coeff"),
        helper.make_node("Add", ["h", "h_cubed_scaled"], ["inner"], name="act_add_inner"),
        helper.make_node("Mul", ["inner", "sqrt_2_over_pi"], ["inner_scaled"], name="act_mul_sqrt"),
        helper.make_node("Tanh", ["inner_scaled"], ["t"], name="act_tanh"),
        helper.make_node("Add", ["t", "one"], ["t_plus_one"], name="act_add_one"),
        helper.make_node("Mul", ["h", "half"], ["h_half"], name="act_mul_half"),
        helper.make_node("Mul", ["h_half", "t_plus_one"], ["gelu"], name="act_mul_gate"),
        helper.make_node("MatMul", ["gelu", "proj_weight"], ["proj_mm"], name="proj_matmul"),
        helper.make_node("Add", ["proj_bias", "proj_mm"], ["y"], name="proj_add_bias"),
    ]
    graph = helper.make_graph(
        nodes,
        "gelu_tanh",
        [helper.make_tensor_value_info("x", f, ["batch", "seq", HIDDEN])],
        [helper.make_tensor_value_info("y", f, ["batch", "seq", HIDDEN])],
        initializer=inits,
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=7,
        opset_imports=[helper.make_opsetid("", 13)],
        doc_string="GPT-2 MLP with tanh-approximated GELU, Pow(h, 3.0) (onnx-lint example model).",
    )


def main() -> None:
    model = build()
    onnx.checker.check_model(model, full_check=True)
    onnx.save_model(model, OUT)
    print(f"wrote {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
