"""make_bert: a BERT-base-sized encoder for onnx-lint's speed and memory benchmarks.

12 layers, hidden 768, FFN 3072, 12 heads, vocabulary 30522, 512 positions, 2 token types; inputs
`input_ids`, `attention_mask`, `token_type_ids` (int64 [batch, sequence], both dims symbolic); output
`last_hidden_state` [batch, sequence, 768]. Random float32 weights (fixed seed), about 438 MB at scale 1.
Ops (opset 17): Gather, CumSum, Sub, Add, LayerNormalization, Unsqueeze, Cast, Mul, MatMul, Reshape,
Transpose, Div, Softmax, Erf (Gelu written as 0.5*x*(1+erf(x/sqrt 2))). Position ids are
CumSum(attention_mask) - 1 (RoBERTa style), so every shape is exact in terms of `batch` and `sequence` and
every broadcast is valid: onnx-lint should report no E1 and no W1.

Options:
  --scale K     multiply the weight bytes by K (K >= 1) by enlarging the vocabulary (word-embedding table);
                the graph is unchanged. K=4 gives about 1.75 GB. An inline model must stay under protobuf's
                2 GiB limit (about K < 4.8); --external has no such limit.
  --external    write the weights to one external-data file next to the model (<model file name>.data).
  --no-check    skip onnx.checker.check_model (it is run on the saved path, without full_check).
  -o PATH       output model (default bench/out/bert_base[_xK][_ext].onnx).

Deterministic: the same options give byte-identical files.
"""

import argparse
import os
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

HERE = os.path.dirname(os.path.abspath(__file__))
LAYERS, HIDDEN, FFN, HEADS, VOCAB, POSITIONS, TYPES = 12, 768, 3072, 12, 30522, 512, 2
HEAD_DIM = HIDDEN // HEADS
PROTOBUF_LIMIT = 2**31  # protobuf refuses to serialize a message of 2 GiB or more


def params_without_vocab() -> int:
    per_layer = 4 * (HIDDEN * HIDDEN + HIDDEN) + (HIDDEN * FFN + FFN) + (FFN * HIDDEN + HIDDEN) + 4 * HIDDEN
    return (POSITIONS + TYPES) * HIDDEN + 2 * HIDDEN + LAYERS * per_layer


def vocab_for_scale(scale: float) -> int:
    base = VOCAB * HIDDEN + params_without_vocab()
    return max(VOCAB, round((scale * base - params_without_vocab()) / HIDDEN))


def build(vocab: int) -> onnx.ModelProto:
    rng = np.random.default_rng(20240101)
    inits, nodes = [], []

    def weight(name, shape, std=0.02):
        a = rng.standard_normal(shape, dtype=np.float32)
        a *= std
        inits.append(numpy_helper.from_array(a, name))
        return name

    def filled(name, shape, value):
        inits.append(numpy_helper.from_array(np.full(shape, value, dtype=np.float32), name))
        return name

    def const(name, value, dtype):
        inits.append(numpy_helper.from_array(np.array(value, dtype=dtype), name))
        return name

    def node(op, inputs, output, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [output], name=name, **attrs))
        return output

    def layernorm(x, prefix):
        s = filled(f"{prefix}.weight", [HIDDEN], 1.0)
        b = filled(f"{prefix}.bias", [HIDDEN], 0.0)
        return node("LayerNormalization", [x, s, b], f"{prefix}.out", prefix, axis=-1, epsilon=1e-12)

    def linear(x, prefix, d_in, d_out):
        w = weight(f"{prefix}.weight", [d_in, d_out])
        b = filled(f"{prefix}.bias", [d_out], 0.0)
        y = node("MatMul", [x, w], f"{prefix}.matmul", f"{prefix}.matmul")
        return node("Add", [y, b], f"{prefix}.out", f"{prefix}.add_bias")

    const("one_i64", 1, np.int64)
    const("axis1_i64", 1, np.int64)
    const("mask_axes", [1, 2], np.int64)
    const("one_f", 1.0, np.float32)
    const("mask_min", -10000.0, np.float32)
    const("attn_scale", float(np.sqrt(HEAD_DIM)), np.float32)
    const("sqrt2", float(np.sqrt(2.0)), np.float32)
    const("half", 0.5, np.float32)
    const("heads_shape", [0, 0, HEADS, HEAD_DIM], np.int64)
    const("hidden_shape", [0, 0, HIDDEN], np.int64)

    # Embeddings.
    words = node("Gather", [weight("embeddings.word_embeddings", [vocab, HIDDEN]), "input_ids"], "emb.words", "emb.word_gather")
    pos_ids = node("CumSum", ["attention_mask", "axis1_i64"], "emb.pos_cumsum", "emb.pos_cumsum")
    pos_ids = node("Sub", [pos_ids, "one_i64"], "emb.position_ids", "emb.pos_sub_one")
    pos = node("Gather", [weight("embeddings.position_embeddings", [POSITIONS, HIDDEN]), pos_ids], "emb.positions", "emb.pos_gather")
    types = node("Gather", [weight("embeddings.token_type_embeddings", [TYPES, HIDDEN]), "token_type_ids"], "emb.types", "emb.type_gather")
    x = node("Add", [words, pos], "emb.add_pos", "emb.add_pos")
    x = node("Add", [x, types], "emb.add_types", "emb.add_types")
    x = layernorm(x, "embeddings.LayerNorm")

    # Additive attention mask [batch, 1, 1, sequence]: (1 - mask) * -10000.
    m = node("Unsqueeze", ["attention_mask", "mask_axes"], "mask.unsqueeze", "mask.unsqueeze")
    m = node("Cast", [m], "mask.cast", "mask.cast", to=TensorProto.FLOAT)
    m = node("Sub", ["one_f", m], "mask.invert", "mask.invert")
    mask = node("Mul", [m, "mask_min"], "mask.bias", "mask.scale")

    for i in range(LAYERS):
        p = f"encoder.layer.{i}"
        heads = {}
        for name, perm in (("query", [0, 2, 1, 3]), ("key", [0, 2, 3, 1]), ("value", [0, 2, 1, 3])):
            y = linear(x, f"{p}.attention.self.{name}", HIDDEN, HIDDEN)
            y = node("Reshape", [y, "heads_shape"], f"{p}.attention.self.{name}.heads", f"{p}.attention.self.{name}.reshape")
            heads[name] = node("Transpose", [y], f"{p}.attention.self.{name}.t", f"{p}.attention.self.{name}.transpose", perm=perm)
        s = node("MatMul", [heads["query"], heads["key"]], f"{p}.attention.scores", f"{p}.attention.qk_matmul")
        s = node("Div", [s, "attn_scale"], f"{p}.attention.scaled", f"{p}.attention.scale_div")
        s = node("Add", [s, mask], f"{p}.attention.masked", f"{p}.attention.add_mask")
        s = node("Softmax", [s], f"{p}.attention.probs", f"{p}.attention.softmax", axis=-1)
        c = node("MatMul", [s, heads["value"]], f"{p}.attention.context", f"{p}.attention.pv_matmul")
        c = node("Transpose", [c], f"{p}.attention.context.t", f"{p}.attention.context_transpose", perm=[0, 2, 1, 3])
        c = node("Reshape", [c, "hidden_shape"], f"{p}.attention.context.merged", f"{p}.attention.context_reshape")
        a = linear(c, f"{p}.attention.output.dense", HIDDEN, HIDDEN)
        a = node("Add", [a, x], f"{p}.attention.residual", f"{p}.attention.residual_add")
        x = layernorm(a, f"{p}.attention.output.LayerNorm")
        h = linear(x, f"{p}.intermediate.dense", HIDDEN, FFN)
        g = node("Div", [h, "sqrt2"], f"{p}.gelu.div", f"{p}.gelu.div")
        g = node("Erf", [g], f"{p}.gelu.erf", f"{p}.gelu.erf")
        g = node("Add", [g, "one_f"], f"{p}.gelu.add", f"{p}.gelu.add_one")
        g = node("Mul", [h, g], f"{p}.gelu.mul", f"{p}.gelu.mul")
        g = node("Mul", [g, "half"], f"{p}.gelu.out", f"{p}.gelu.mul_half")
        o = linear(g, f"{p}.output.dense", FFN, HIDDEN)
        o = node("Add", [o, x], f"{p}.output.residual", f"{p}.output.residual_add")
        x = layernorm(o, f"{p}.output.LayerNorm")
    node("Identity", [x], "last_hidden_state", "output_identity")

    ids = lambda name: helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])  # noqa: E731
    graph = helper.make_graph(
        nodes,
        "bert_base",
        [ids("input_ids"), ids("attention_mask"), ids("token_type_ids")],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", HIDDEN])],
        initializer=inits,
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-bench",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string=f"BERT-base-sized benchmark model (vocabulary {vocab}), random weights.",
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the weight bytes by K (>= 1)")
    ap.add_argument("--external", action="store_true", help="weights in an external-data file next to the model")
    ap.add_argument("--no-check", action="store_true", help="skip onnx.checker.check_model on the saved file")
    ap.add_argument("-o", "--output", help="output path (default bench/out/bert_base[_xK][_ext].onnx)")
    args = ap.parse_args()
    if args.scale < 1:
        sys.exit("--scale must be >= 1")
    vocab = vocab_for_scale(args.scale)
    weight_bytes = 4 * (vocab * HIDDEN + params_without_vocab())
    if not args.external and weight_bytes > PROTOBUF_LIMIT - 64 * 2**20:
        sys.exit(f"--scale {args.scale:g}: {weight_bytes / 1e9:.2f} GB of weights do not fit in one protobuf (< 2 GiB); use --external")
    out = args.output
    if out is None:
        suffix = ("" if args.scale == 1 else f"_x{args.scale:g}") + ("_ext" if args.external else "")
        out = os.path.join(HERE, "out", f"bert_base{suffix}.onnx")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)

    t0 = time.perf_counter()
    model = build(vocab)
    t1 = time.perf_counter()
    if args.external:
        location = os.path.basename(out) + ".data"
        data_path = os.path.join(os.path.dirname(os.path.abspath(out)), location)
        if os.path.exists(data_path):
            os.remove(data_path)  # onnx appends to an existing data file
        onnx.save_model(model, out, save_as_external_data=True, all_tensors_to_one_file=True, location=location, size_threshold=1024)
        os.chmod(data_path, 0o644)  # onnx creates it 0600
    else:
        onnx.save_model(model, out)
    t2 = time.perf_counter()
    del model
    if not args.no_check:
        onnx.checker.check_model(out)  # by path: works for external data and large files
    t3 = time.perf_counter()
    size = os.path.getsize(out)
    line = f"wrote {out}: {size / 1e6:.1f} MB"
    if args.external:
        line += f" + {location}: {os.path.getsize(data_path) / 1e6:.1f} MB"
    print(line)
    print(
        f"  vocabulary {vocab}, {weight_bytes / 1e6:.1f} MB of weights, {LAYERS} layers; "
        f"build {t1 - t0:.1f} s, save {t2 - t1:.1f} s, check {t3 - t2:.1f} s, total {t3 - t0:.1f} s"
    )


if __name__ == "__main__":
    main()
