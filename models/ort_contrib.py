"""ort_contrib: onnxruntime's contrib operators as its transformer optimizer and quantizer write them (no E1
expected).

Two branches over symbolic sizes, domains ai.onnx 17 and com.microsoft 1:

- a transformer layer: `x` [batch, seq, 8] -> MultiHeadAttention (2 heads; q = k = v = x) with an additive
  `attn_bias` [1, 1, seq, seq] that broadcasts over batch and heads -> MatMul [8, 16] -> BiasGelu (bias
  [16]) -> MatMul [16, 8] -> SkipLayerNormalization with the skip `x`, gamma and beta [8] -> `y`;
- a quantized squeeze-and-excitation gate: `q` [batch, 4, 6, 6] (uint8) times `gate` [batch, 4, 1, 1]
  (uint8) by QLinearMul -> `z`.

`onnx-lint expand` makes the two broadcasts onnxruntime also runs in full explicit (the attention bias to
[batch, 2, seq, seq], the gate to [batch, 4, 6, 6], computed at run time from the inputs' shapes) and
leaves BiasGelu's bias and SkipLayerNormalization's gamma and beta implicit, as the operators require
them 1-D. Writes ort_contrib.onnx next to this script; deterministic (seeded weights).
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
MS = "com.microsoft"


def build() -> onnx.ModelProto:
    f, u8 = TensorProto.FLOAT, TensorProto.UINT8
    rng = np.random.default_rng(11)

    def weight(name: str, shape: list[int]) -> onnx.TensorProto:
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    def scalar(name: str, value: float | int, dtype: type) -> onnx.TensorProto:
        return numpy_helper.from_array(np.array(value, dtype=dtype), name)

    inits = [
        weight("w1", [8, 16]),
        weight("b1", [16]),
        weight("w2", [16, 8]),
        weight("ln_gamma", [8]),
        weight("ln_beta", [8]),
        scalar("q_scale", 0.05, np.float32),
        scalar("q_zero", 128, np.uint8),
        scalar("gate_scale", 0.004, np.float32),
        scalar("gate_zero", 0, np.uint8),
        scalar("z_scale", 0.05, np.float32),
        scalar("z_zero", 128, np.uint8),
    ]
    nodes = [
        helper.make_node(
            "MultiHeadAttention", ["x", "x", "x", "", "", "attn_bias"], ["attn"], name="mha", domain=MS, num_heads=2
        ),
        helper.make_node("MatMul", ["attn", "w1"], ["h1"], name="fc1"),
        helper.make_node("BiasGelu", ["h1", "b1"], ["g1"], name="bias_gelu", domain=MS),
        helper.make_node("MatMul", ["g1", "w2"], ["h2"], name="fc2"),
        helper.make_node(
            "SkipLayerNormalization", ["h2", "x", "ln_gamma", "ln_beta"], ["y"], name="skip_ln", domain=MS,
            epsilon=1e-5,
        ),
        helper.make_node(
            "QLinearMul",
            ["q", "q_scale", "q_zero", "gate", "gate_scale", "gate_zero", "z_scale", "z_zero"],
            ["z"],
            name="se_gate",
            domain=MS,
        ),
    ]
    graph = helper.make_graph(
        nodes,
        "ort_contrib",
        [
            helper.make_tensor_value_info("x", f, ["batch", "seq", 8]),
            helper.make_tensor_value_info("attn_bias", f, [1, 1, "seq", "seq"]),
            helper.make_tensor_value_info("q", u8, ["batch", 4, 6, 6]),
            helper.make_tensor_value_info("gate", u8, ["batch", 4, 1, 1]),
        ],
        [
            helper.make_tensor_value_info("y", f, ["batch", "seq", 8]),
            helper.make_tensor_value_info("z", u8, ["batch", 4, 6, 6]),
        ],
        initializer=inits,
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)],
        doc_string="onnxruntime's contrib operators, valid (onnx-lint example model).",
    )


def main() -> None:
    model = build()
    onnx.checker.check_model(model, full_check=True)
    onnx.save_model(model, OUT)
    print(f"wrote {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
