"""tiny_transformer: a valid one-layer transformer encoder with symbolic `batch` and `seq` (no E1 expected).

input_ids int64 [batch, seq] and attention_mask int64 [batch, seq] -> Gather embedding -> LayerNormalization
-> one self-attention block (Q/K/V MatMul + bias Add, Reshape to heads with a shape built by
Shape -> Gather -> Concat, Transpose, batched MatMul, scale Div, mask Add, Softmax, MatMul, Transpose,
Reshape back, output projection, residual Add, LayerNormalization) -> FFN (MatMul + bias Add, Gelu written
with Erf, MatMul + bias Add, residual Add, LayerNormalization). The mask bias [batch,1,1,seq] is made by
Unsqueeze -> Cast(bool) -> Where(mask, 0, -10000) and broadcast onto the scores [batch,heads,seq,seq].
Opset 17 (LayerNormalization), hidden 16, 2 heads, vocabulary 100.

Every broadcast is valid for all values of `batch` and `seq`: onnx-lint should report no E1 and no W1 (it
can only prove this if it tracks symbolic dims through Shape/Gather/Concat/Reshape).

Writes tiny_transformer.onnx next to this script; deterministic (fixed seed).
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
VOCAB, HIDDEN, HEADS, FFN = 100, 16, 2, 32
HEAD_DIM = HIDDEN // HEADS


def build() -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    inits = []

    def weight(name, shape, scale=0.1):
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def const(name, value, dtype):
        inits.append(numpy_helper.from_array(np.array(value, dtype=dtype), name))
        return name

    nodes = []

    def node(op, inputs, outputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
        return outputs[0]

    def layernorm(x, prefix):
        scale = weight(f"{prefix}_scale", [HIDDEN])
        bias = weight(f"{prefix}_bias", [HIDDEN])
        return node("LayerNormalization", [x, scale, bias], [f"{prefix}_out"], prefix, axis=-1, epsilon=1e-5)

    def linear(x, prefix, d_in, d_out):
        w = weight(f"{prefix}_w", [d_in, d_out])
        b = weight(f"{prefix}_b", [d_out])
        y = node("MatMul", [x, w], [f"{prefix}_mm"], f"{prefix}_matmul")
        return node("Add", [y, b], [f"{prefix}_out"], f"{prefix}_add_bias")

    # Constants.
    const("idx_batch_seq", [0, 1], np.int64)
    const("heads_shape_tail", [HEADS, HEAD_DIM], np.int64)
    const("hidden_shape_tail", [HIDDEN], np.int64)
    const("unsqueeze_axes", [1, 2], np.int64)
    const("mask_keep", 0.0, np.float32)
    const("mask_drop", -10000.0, np.float32)
    const("attn_scale", float(np.sqrt(HEAD_DIM)), np.float32)
    const("half", 0.5, np.float32)
    const("one", 1.0, np.float32)
    const("sqrt2", float(np.sqrt(2.0)), np.float32)

    # Embedding + LayerNormalization.
    word_emb = weight("word_embeddings", [VOCAB, HIDDEN])
    emb = node("Gather", [word_emb, "input_ids"], ["embedded"], "embedding_gather", axis=0)
    x = layernorm(emb, "emb_layernorm")

    # Attention mask [batch, seq] -> [batch, 1, 1, seq] additive bias.
    m = node("Unsqueeze", ["attention_mask", "unsqueeze_axes"], ["mask_4d"], "mask_unsqueeze")
    m = node("Cast", [m], ["mask_bool"], "mask_cast", to=TensorProto.BOOL)
    mask_bias = node("Where", [m, "mask_keep", "mask_drop"], ["mask_bias"], "mask_where")

    # Shapes [batch, seq, HEADS, HEAD_DIM] and [batch, seq, HIDDEN] from Shape -> Gather -> Concat.
    shp = node("Shape", [x], ["x_shape"], "x_shape")
    bs = node("Gather", [shp, "idx_batch_seq"], ["batch_seq"], "gather_batch_seq", axis=0)
    heads_shape = node("Concat", [bs, "heads_shape_tail"], ["heads_shape"], "concat_heads_shape", axis=0)
    hidden_shape = node("Concat", [bs, "hidden_shape_tail"], ["hidden_shape"], "concat_hidden_shape", axis=0)

    # Q, K, V: [batch, seq, HIDDEN] -> [batch, HEADS, seq, HEAD_DIM] (K: [batch, HEADS, HEAD_DIM, seq]).
    heads = {}
    for p, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
        y = linear(x, p, HIDDEN, HIDDEN)
        y = node("Reshape", [y, heads_shape], [f"{p}_heads"], f"{p}_reshape")
        heads[p] = node("Transpose", [y], [f"{p}_t"], f"{p}_transpose", perm=perm)

    scores = node("MatMul", [heads["q"], heads["k"]], ["scores"], "qk_matmul")
    scores = node("Div", [scores, "attn_scale"], ["scores_scaled"], "scores_div")
    scores = node("Add", [scores, mask_bias], ["scores_masked"], "scores_add_mask")
    probs = node("Softmax", [scores], ["attn_probs"], "attn_softmax", axis=-1)
    ctx = node("MatMul", [probs, heads["v"]], ["context"], "pv_matmul")
    ctx = node("Transpose", [ctx], ["context_t"], "context_transpose", perm=[0, 2, 1, 3])
    ctx = node("Reshape", [ctx, hidden_shape], ["context_merged"], "context_reshape")
    attn = linear(ctx, "attn_out", HIDDEN, HIDDEN)
    x = node("Add", [x, attn], ["attn_residual"], "attn_residual_add")
    x = layernorm(x, "attn_layernorm")

    # FFN with Gelu(h) = 0.5 * h * (1 + erf(h / sqrt(2))).
    h = linear(x, "ffn_in", HIDDEN, FFN)
    g = node("Div", [h, "sqrt2"], ["gelu_div"], "gelu_div")
    g = node("Erf", [g], ["gelu_erf"], "gelu_erf")
    g = node("Add", [g, "one"], ["gelu_add"], "gelu_add_one")
    g = node("Mul", [h, g], ["gelu_mul"], "gelu_mul")
    g = node("Mul", [g, "half"], ["gelu_out"], "gelu_mul_half")
    f = linear(g, "ffn_out", FFN, HIDDEN)
    x = node("Add", [x, f], ["ffn_residual"], "ffn_residual_add")
    x = layernorm(x, "ffn_layernorm")
    node("Identity", [x], ["last_hidden_state"], "output_identity")

    graph = helper.make_graph(
        nodes,
        "tiny_transformer",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", HIDDEN])],
        initializer=inits,
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Valid one-layer transformer encoder with symbolic batch and seq (onnx-lint example model).",
    )


def main() -> None:
    model = build()
    onnx.checker.check_model(model, full_check=True)
    onnx.save_model(model, OUT)
    print(f"wrote {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
