"""Cases of onnxruntime's attention contrib operators: Attention, QAttention, MultiHeadAttention,
GroupQueryAttention, RotaryEmbedding, GemmaRotaryEmbedding, and of the packed and decoder variants that
have a CPU kernel (src/shape/ops/contrib_attention.rs, contrib_attention_decoding.rs).

Left out, as onnxruntime's CPU provider cannot run them:
- Attention without its optional bias: the CPU kernel crashes (a segmentation fault in 1.31.1);
- MultiHeadAttention's packed QKV (5-D query) and packed KV (5-D key): "not implemented for CPU";
  its qk output: onnxruntime fails to infer its type at load;
- Attention's 4-D (Megatron) mask: "4D mask in attention cpu kernel is not supported";
- Attention with past_present_share_buffer and a past: every such node tried was refused
  ("past_sequence_length tensor must be of one element"); its present is left unknown;
- DecoderMaskedMultiHeadAttention without past_present_share_buffer: the CPU kernel requires it;
- PackedAttention, PackedMultiHeadAttention, DecoderMaskedSelfAttention, LongformerAttention,
  RelativePositionBias, GatedRelativePositionBias: no CPU kernel; GemmaRotaryEmbedding: float16 only,
  which the CPU provider does not run; SparseAttention: its CPU kernel needs the past and present
  caches bound to one buffer, which a plain session cannot do (its shapes were checked by hand through
  an I/O binding). Unit tests in the Rust files cover these.
"""

import numpy as np

from nodecase import Case, In


def i32(v, shape=None):
    """An int32 constant."""
    a = np.asarray(v, dtype=np.int32)
    return In(list(a.shape) if shape is None else shape, "int32", value=a, const=True)


def i64(v):
    a = np.asarray(v, dtype=np.int64)
    return In(list(a.shape), "int64", value=a, const=True)


H2 = {"num_heads": 2}

ATTENTION = [
    Case("Attention/basic", "Attention", [In([2, 3, 8]), In([8, 24]), In([24])], attrs=H2, outputs=2),
    Case(
        "Attention/symbolic",
        "Attention",
        [In(["b", "s", 8]), In([8, 24]), In([24])],
        attrs=H2,
        outputs=2,
        bind={"b": 2, "s": 5},
    ),
    Case(
        "Attention/input-hidden-differs",
        "Attention",
        [In([2, 3, 6]), In([6, 24]), In([24])],
        attrs=H2,
        outputs=2,
    ),
    Case(
        "Attention/qkv-hidden-sizes",
        "Attention",
        [In([2, 3, 8]), In([8, 20]), In([20])],
        attrs={"num_heads": 2, "qkv_hidden_sizes": [6, 6, 8]},
        outputs=2,
    ),
    Case(
        "Attention/qkv-hidden-sizes-v-wider",
        "Attention",
        [In([2, 3, 8]), In([8, 16]), In([16])],
        attrs={"num_heads": 2, "qkv_hidden_sizes": [4, 4, 8]},
        outputs=2,
    ),
    Case(
        "Attention/past",
        "Attention",
        [In([2, 3, 8]), In([8, 24]), In([24]), None, In([2, 2, 2, 5, 4])],
        attrs=H2,
        outputs=2,
    ),
    Case(
        "Attention/past-symbolic",
        "Attention",
        [In(["b", "s", 8]), In([8, 24]), In([24]), None, In([2, "b", 2, "p", 4])],
        attrs=H2,
        outputs=2,
        bind={"b": 2, "s": 3, "p": 4},
    ),
    Case(
        "Attention/mask-1d",
        "Attention",
        [In([2, 3, 8]), In([8, 24]), In([24]), In([2], "int32", low=1, high=3)],
        attrs=H2,
    ),
    Case(
        "Attention/mask-1d-3b2",
        "Attention",
        [In([2, 3, 8]), In([8, 24]), In([24]), In([8], "int32", low=0, high=3)],
        attrs=H2,
    ),
    Case(
        "Attention/mask-2d-past",
        "Attention",
        [In([2, 3, 8]), In([8, 24]), In([24]), In([2, 8], "int32"), In([2, 2, 2, 5, 4])],
        attrs=H2,
        outputs=2,
    ),
    Case(
        "Attention/mask-3d",
        "Attention",
        [In([2, 3, 8]), In([8, 24]), In([24]), In([2, 3, 3], "int32")],
        attrs=H2,
    ),
    Case(
        "Attention/attention-bias-broadcast",
        "Attention",
        [In([2, 3, 8]), In([8, 24]), In([24]), None, None, In([1, 2, 3, 3])],
        attrs=H2,
    ),
    Case(
        "Attention/attention-bias-symbolic",
        "Attention",
        [In(["b", "s", 8]), In([8, 24]), In([24]), None, None, In(["b", 1, "s", "s"])],
        attrs=H2,
        bind={"b": 2, "s": 4},
    ),
    # Faults.
    Case(
        "Attention/mask-2d-wrong-length",
        "Attention",
        [In([2, 3, 8]), In([8, 24]), In([24]), In([2, 4], "int32")],
        attrs=H2,
        fault=True,
    ),
    Case(
        "Attention/mask-2d-past-wrong-length",
        "Attention",
        [In([2, 3, 8]), In([8, 24]), In([24]), In([2, 3], "int32"), In([2, 2, 2, 5, 4])],
        attrs=H2,
        outputs=2,
        fault=True,
    ),
    Case(
        "Attention/mask-1d-wrong-length",
        "Attention",
        [In([2, 3, 8]), In([8, 24]), In([24]), In([5], "int32")],
        attrs=H2,
        fault=True,
    ),
    Case(
        "Attention/mask-3d-wrong",
        "Attention",
        [In([2, 3, 8]), In([8, 24]), In([24]), In([2, 1, 3], "int32")],
        attrs=H2,
        fault=True,
    ),
    Case(
        "Attention/mask-symbolic-wrong",
        "Attention",
        [In(["b", "s", 8]), In([8, 24]), In([24]), In(["b", "t"], "int32")],
        attrs=H2,
        bind={"b": 2, "s": 3, "t": 4},
        fault=True,
        symbolic_fault=True,
    ),
    Case("Attention/short-bias", "Attention", [In([2, 3, 8]), In([8, 24]), In([23])], attrs=H2, fault=True),
    Case(
        "Attention/bias-vs-qkv-sizes",
        "Attention",
        [In([2, 3, 8]), In([8, 24]), In([24])],
        attrs={"num_heads": 2, "qkv_hidden_sizes": [6, 6, 6]},
        fault=True,
    ),
    Case(
        "Attention/bias-vs-weights-with-qkv-sizes",
        "Attention",
        [In([2, 3, 8]), In([8, 24]), In([20])],
        attrs={"num_heads": 2, "qkv_hidden_sizes": [6, 6, 8]},
        fault=True,
    ),
    Case(
        "Attention/share-buffer-without-past",
        "Attention",
        [In([2, 3, 8]), In([8, 20]), In([20])],
        attrs={"num_heads": 2, "qkv_hidden_sizes": [6, 6, 8], "past_present_share_buffer": 1},
        outputs=2,
    ),
    Case("Attention/weights-rows", "Attention", [In([2, 3, 8]), In([7, 24]), In([24])], attrs=H2, fault=True),
    Case(
        "Attention/past-heads",
        "Attention",
        [In([2, 3, 8]), In([8, 24]), In([24]), None, In([2, 2, 1, 5, 4])],
        attrs=H2,
        outputs=2,
        fault=True,
    ),
    Case(
        "Attention/past-head-size",
        "Attention",
        [In([2, 3, 8]), In([8, 24]), In([24]), None, In([2, 2, 2, 5, 3])],
        attrs=H2,
        outputs=2,
        fault=True,
    ),
    Case(
        "Attention/attention-bias-kv-length",
        "Attention",
        [In([2, 3, 8]), In([8, 24]), In([24]), None, None, In([2, 2, 3, 4])],
        attrs=H2,
        fault=True,
    ),
    Case(
        "Attention/attention-bias-q-broadcast",
        "Attention",
        [In([2, 3, 8]), In([8, 24]), In([24]), None, None, In([2, 2, 1, 3])],
        attrs=H2,
        fault=True,
    ),
    Case(
        "Attention/attention-bias-heads",
        "Attention",
        [In([2, 3, 8]), In([8, 24]), In([24]), None, None, In([2, 3, 3, 3])],
        attrs=H2,
        fault=True,
    ),
]

Q, K, V = [2, 3, 8], [2, 5, 8], [2, 5, 6]

MHA = [
    Case("MultiHeadAttention/qkv", "MultiHeadAttention", [In(Q), In(K), In(V)], attrs=H2, outputs=3),
    Case(
        "MultiHeadAttention/symbolic",
        "MultiHeadAttention",
        [In(["b", "s", 8]), In(["b", "l", 8]), In(["b", "l", 6])],
        attrs=H2,
        outputs=3,
        bind={"b": 2, "s": 3, "l": 4},
    ),
    Case("MultiHeadAttention/bias", "MultiHeadAttention", [In(Q), In(K), In(V), In([22])], attrs=H2, outputs=3),
    Case(
        "MultiHeadAttention/past",
        "MultiHeadAttention",
        [In(Q), In(K), In(V), None, None, None, In([2, 2, 4, 4]), In([2, 2, 4, 4])],
        attrs=H2,
        outputs=3,
    ),
    Case(
        "MultiHeadAttention/past-symbolic",
        "MultiHeadAttention",
        [In(["b", "s", 8]), In(["b", "l", 8]), In(["b", "l", 8]), None, None, None,
         In(["b", 2, "p", 4]), In(["b", 2, "p", 4])],
        attrs=H2,
        outputs=3,
        bind={"b": 2, "s": 3, "l": 5, "p": 4},
    ),
    Case(
        "MultiHeadAttention/cross-bnsh",
        "MultiHeadAttention",
        [In(Q), In([2, 2, 5, 4]), In([2, 2, 5, 4])],
        attrs=H2,
        outputs=3,
    ),
    Case(
        "MultiHeadAttention/cross-bnsh-attention-bias",
        "MultiHeadAttention",
        [In(Q), In([2, 2, 5, 4]), In([2, 2, 5, 4]), None, None, In([2, 2, 3, 5])],
        attrs=H2,
        outputs=3,
    ),
    Case(
        "MultiHeadAttention/cross-bnsh-attention-bias-length",
        "MultiHeadAttention",
        [In(Q), In([2, 2, 5, 4]), In([2, 2, 5, 4]), None, None, In([2, 2, 3, 6])],
        attrs=H2,
        outputs=3,
        fault=True,
    ),
    Case(
        "MultiHeadAttention/cross-bnsh-heads",
        "MultiHeadAttention",
        [In(Q), In([2, 1, 5, 8]), In([2, 1, 5, 8])],
        attrs=H2,
        outputs=3,
        fault=True,
    ),
    Case(
        "MultiHeadAttention/mask-1d",
        "MultiHeadAttention",
        [In(Q), In(K), In(V), None, In([2], "int32", low=1, high=5)],
        attrs=H2,
    ),
    Case(
        "MultiHeadAttention/mask-3b2",
        "MultiHeadAttention",
        [In(Q), In(K), In(V), None, In([8], "int32", low=0, high=3)],
        attrs=H2,
    ),
    Case("MultiHeadAttention/mask-2d", "MultiHeadAttention", [In(Q), In(K), In(V), None, In([2, 5], "int32")], attrs=H2),
    Case(
        "MultiHeadAttention/mask-2d-past",
        "MultiHeadAttention",
        [In(Q), In(K), In([2, 5, 8]), None, In([2, 9], "int32"), None, In([2, 2, 4, 4]), In([2, 2, 4, 4])],
        attrs=H2,
        outputs=3,
    ),
    Case("MultiHeadAttention/mask-3d", "MultiHeadAttention", [In(Q), In(K), In(V), None, In([2, 3, 5], "int32")], attrs=H2),
    Case(
        "MultiHeadAttention/attention-bias",
        "MultiHeadAttention",
        [In(Q), In(K), In(V), None, None, In([1, 1, 3, 5])],
        attrs=H2,
    ),
    Case(
        "MultiHeadAttention/attention-bias-past",
        "MultiHeadAttention",
        [In(Q), In(K), In([2, 5, 8]), None, None, In([2, 2, 3, 9]), In([2, 2, 4, 4]), In([2, 2, 4, 4])],
        attrs=H2,
        outputs=3,
    ),
    Case(
        "MultiHeadAttention/attention-bias-symbolic",
        "MultiHeadAttention",
        [In(["b", "s", 8]), In(["b", "l", 8]), In(["b", "l", 6]), None, None, In([1, 2, "s", "l"])],
        attrs=H2,
        bind={"b": 2, "s": 3, "l": 4},
    ),
    Case(
        "MultiHeadAttention/shared-buffer",
        "MultiHeadAttention",
        [In([2, 1, 8]), In([2, 1, 8]), In([2, 1, 8]), None, In([2, 3], "int32", low=1, high=2), In([2, 2, 1, 3]),
         In([2, 2, 8, 4]), In([2, 2, 8, 4]), i32(2)],
        attrs=H2,
        outputs=3,
    ),
    Case(
        "MultiHeadAttention/past-sequence-length-without-past",
        "MultiHeadAttention",
        [In([2, 1, 8]), In([2, 1, 8]), In([2, 1, 8]), None, None, None, None, None, i32(2)],
        attrs=H2,
        outputs=3,
    ),
    # Faults.
    Case(
        "MultiHeadAttention/shared-buffer-attention-bias-length",
        "MultiHeadAttention",
        [In([2, 1, 8]), In([2, 1, 8]), In([2, 1, 8]), None, None, In([2, 2, 1, 8]),
         In([2, 2, 8, 4]), In([2, 2, 8, 4]), i32(2)],
        attrs=H2,
        outputs=3,
        fault=True,
    ),
    Case(
        "MultiHeadAttention/shared-buffer-mask-length",
        "MultiHeadAttention",
        [In([2, 1, 8]), In([2, 1, 8]), In([2, 1, 8]), None, In([2, 9], "int32"), None,
         In([2, 2, 8, 4]), In([2, 2, 8, 4]), i32(2)],
        attrs=H2,
        outputs=3,
        fault=True,
    ),
    Case(
        "MultiHeadAttention/attention-bias-kv-length",
        "MultiHeadAttention",
        [In(Q), In(K), In(V), None, None, In([2, 2, 3, 4])],
        attrs=H2,
        fault=True,
    ),
    Case(
        "MultiHeadAttention/attention-bias-past-kv-length",
        "MultiHeadAttention",
        [In(Q), In(K), In([2, 5, 8]), None, None, In([2, 2, 3, 5]), In([2, 2, 4, 4]), In([2, 2, 4, 4])],
        attrs=H2,
        outputs=3,
        fault=True,
    ),
    Case(
        "MultiHeadAttention/attention-bias-symbolic-kv",
        "MultiHeadAttention",
        [In(["b", "s", 8]), In(["b", "l", 8]), In(["b", "l", 6]), None, None, In([1, 2, "s", "t"])],
        attrs=H2,
        bind={"b": 2, "s": 3, "l": 4, "t": 5},
        fault=True,
        symbolic_fault=True,
    ),
    Case(
        "MultiHeadAttention/attention-bias-batch",
        "MultiHeadAttention",
        [In(Q), In(K), In(V), None, None, In([3, 2, 3, 5])],
        attrs=H2,
        fault=True,
    ),
    Case("MultiHeadAttention/bias-size", "MultiHeadAttention", [In(Q), In(K), In(V), In([24])], attrs=H2, fault=True),
    Case("MultiHeadAttention/bias-2d", "MultiHeadAttention", [In(Q), In(K), In(V), In([22, 1])], attrs=H2, fault=True),
    Case("MultiHeadAttention/mask-1d-wrong", "MultiHeadAttention", [In(Q), In(K), In(V), None, In([5], "int32")], attrs=H2, fault=True),
    Case("MultiHeadAttention/mask-2d-wrong", "MultiHeadAttention", [In(Q), In(K), In(V), None, In([2, 3], "int32")], attrs=H2, fault=True),
    Case(
        "MultiHeadAttention/mask-2d-past-kv-only",
        "MultiHeadAttention",
        [In(Q), In(K), In([2, 5, 8]), None, In([2, 5], "int32"), None, In([2, 2, 4, 4]), In([2, 2, 4, 4])],
        attrs=H2,
        outputs=3,
        fault=True,
    ),
    Case("MultiHeadAttention/key-hidden", "MultiHeadAttention", [In(Q), In([2, 5, 6]), In([2, 5, 6])], attrs=H2, fault=True),
    Case("MultiHeadAttention/value-length", "MultiHeadAttention", [In(Q), In([2, 4, 8]), In([2, 5, 8])], attrs=H2, fault=True),
    Case("MultiHeadAttention/batch", "MultiHeadAttention", [In(Q), In([3, 5, 8]), In([3, 5, 8])], attrs=H2, fault=True),
    Case(
        "MultiHeadAttention/cross-value-shape",
        "MultiHeadAttention",
        [In(Q), In([2, 2, 5, 4]), In([2, 2, 5, 3])],
        attrs=H2,
        outputs=3,
        fault=True,
    ),
    Case(
        "MultiHeadAttention/past-value-head-size",
        "MultiHeadAttention",
        [In(Q), In(K), In(V), None, None, None, In([2, 2, 4, 4]), In([2, 2, 4, 3])],
        attrs=H2,
        outputs=3,
        fault=True,
    ),
    Case(
        "MultiHeadAttention/past-lengths",
        "MultiHeadAttention",
        [In(Q), In(K), In([2, 5, 8]), None, None, None, In([2, 2, 4, 4]), In([2, 2, 3, 4])],
        attrs=H2,
        outputs=3,
        fault=True,
    ),
]

G = {"num_heads": 4, "kv_num_heads": 2}
GQ, GK = [2, 3, 32], [2, 3, 16]

GQA = [
    Case(
        "GroupQueryAttention/prompt",
        "GroupQueryAttention",
        [In(GQ), In(GK), In(GK), None, None, i32([2, 2]), i32(3)],
        attrs=G,
        outputs=3,
    ),
    Case(
        "GroupQueryAttention/prompt-symbolic",
        "GroupQueryAttention",
        [In(["b", "s", 32]), In(["b", "s", 16]), In(["b", "s", 16]), None, None,
         In(["b"], "int32", value=np.array([2, 2], np.int32)), In([], "int32", value=np.array(3, np.int32))],
        attrs=G,
        outputs=3,
        bind={"b": 2, "s": 3},
    ),
    Case(
        "GroupQueryAttention/packed",
        "GroupQueryAttention",
        [In([2, 3, 64]), None, None, None, None, i32([2, 2]), i32(3)],
        attrs=G,
        outputs=3,
    ),
    Case(
        "GroupQueryAttention/decode",
        "GroupQueryAttention",
        [In([2, 1, 32]), In([2, 1, 16]), In([2, 1, 16]), In([2, 2, 6, 8]), In([2, 2, 6, 8]), i32([6, 6]), i32(7)],
        attrs=G,
        outputs=3,
    ),
    Case(
        "GroupQueryAttention/static-cache",
        "GroupQueryAttention",
        [In([2, 1, 32]), In([2, 1, 16]), In([2, 1, 16]), In([2, 2, 8, 8]), In([2, 2, 8, 8]), i32([5, 5]), i32(6)],
        attrs=G,
        outputs=3,
    ),
    Case(
        "GroupQueryAttention/sliding-window-cache",
        "GroupQueryAttention",
        [In([2, 1, 32]), In([2, 1, 16]), In([2, 1, 16]), In([2, 2, 4, 8]), In([2, 2, 4, 8]), i32([6, 6]), i32(7),
         None, None, None, In([2, 4, 1, 7])],
        attrs={**G, "local_window_size": 4, "sliding_window_cache": 1},
        outputs=3,
    ),
    Case(
        "GroupQueryAttention/sliding-window-attention-bias-capacity",
        "GroupQueryAttention",
        [In([2, 1, 32]), In([2, 1, 16]), In([2, 1, 16]), In([2, 2, 4, 8]), In([2, 2, 4, 8]), i32([6, 6]), i32(7),
         None, None, None, In([2, 4, 1, 4])],
        attrs={**G, "local_window_size": 4, "sliding_window_cache": 1},
        outputs=3,
        fault=True,
    ),
    Case(
        "GroupQueryAttention/prompt-into-cache",
        "GroupQueryAttention",
        [In(GQ), In(GK), In(GK), In([2, 2, 6, 8]), In([2, 2, 6, 8]), i32([2, 2]), i32(3)],
        attrs=G,
        outputs=3,
    ),
    Case(
        "GroupQueryAttention/decode-symbolic-past",
        "GroupQueryAttention",
        [In(["b", 1, 32]), In(["b", 1, 16]), In(["b", 1, 16]), In(["b", 2, "p", 8]), In(["b", 2, "p", 8]),
         i32([6, 6]), i32(7)],
        attrs=G,
        outputs=3,
        bind={"b": 2, "p": 6},
        unknown_ok={1: "max(p, 7) of a symbolic past", 2: "max(p, 7) of a symbolic past"},
    ),
    Case(
        "GroupQueryAttention/seqlens-2d",
        "GroupQueryAttention",
        [In(GQ), In(GK), In(GK), None, None, i32([[2, 2]]), i32(3)],
        attrs=G,
        outputs=3,
    ),
    Case(
        "GroupQueryAttention/attention-bias",
        "GroupQueryAttention",
        [In(GQ), In(GK), In(GK), None, None, i32([2, 2]), i32(3), None, None, None, In([1, 4, 3, 3])],
        attrs=G,
        outputs=3,
    ),
    Case(
        "GroupQueryAttention/attention-bias-static-cache",
        "GroupQueryAttention",
        [In([2, 1, 32]), In([2, 1, 16]), In([2, 1, 16]), In([2, 2, 8, 8]), In([2, 2, 8, 8]), i32([5, 5]), i32(6),
         None, None, None, In([2, 1, 1, 6])],
        attrs=G,
        outputs=3,
    ),
    Case(
        "GroupQueryAttention/head-sink",
        "GroupQueryAttention",
        [In(GQ), In(GK), In(GK), None, None, i32([2, 2]), i32(3), None, None, None, None, In([4])],
        attrs={**G, "smooth_softmax": 1},
        outputs=3,
    ),
    Case(
        "GroupQueryAttention/qk-output",
        "GroupQueryAttention",
        [In([2, 1, 32]), In([2, 1, 16]), In([2, 1, 16]), In([2, 2, 8, 8]), In([2, 2, 8, 8]), i32([5, 5]), i32(6)],
        attrs={**G, "qk_output": 1},
        outputs=4,
    ),
    Case(
        "GroupQueryAttention/rotary-positions",
        "GroupQueryAttention",
        [In([2, 3, 64]), In([2, 3, 32]), In([2, 3, 32]), None, None, i32([2, 2]), i32(3), In([10, 8]), In([10, 8]),
         i64([[0, 1, 2, 3], [0, 1, 2, 3]])],
        attrs={**G, "do_rotary": 1},
        outputs=3,
    ),
    Case(
        "GroupQueryAttention/rotary",
        "GroupQueryAttention",
        [In([2, 3, 64]), In([2, 3, 32]), In([2, 3, 32]), None, None, i32([2, 2]), i32(3), In([10, 8]), In([10, 8])],
        attrs={**G, "do_rotary": 1},
        outputs=3,
    ),
    # Faults.
    Case(
        "GroupQueryAttention/attention-bias-total",
        "GroupQueryAttention",
        [In(GQ), In(GK), In(GK), None, None, i32([2, 2]), i32(3), None, None, None, In([2, 4, 3, 4])],
        attrs=G,
        outputs=3,
        fault=True,
    ),
    Case(
        "GroupQueryAttention/attention-bias-cache-length",
        "GroupQueryAttention",
        [In([2, 1, 32]), In([2, 1, 16]), In([2, 1, 16]), In([2, 2, 8, 8]), In([2, 2, 8, 8]), i32([5, 5]), i32(6),
         None, None, None, In([2, 4, 1, 8])],
        attrs=G,
        outputs=3,
        fault=True,
    ),
    Case(
        "GroupQueryAttention/attention-bias-heads",
        "GroupQueryAttention",
        [In(GQ), In(GK), In(GK), None, None, i32([2, 2]), i32(3), None, None, None, In([2, 2, 3, 3])],
        attrs=G,
        outputs=3,
        fault=True,
    ),
    Case(
        "GroupQueryAttention/head-sink-length",
        "GroupQueryAttention",
        [In(GQ), In(GK), In(GK), None, None, i32([2, 2]), i32(3), None, None, None, None, In([3])],
        attrs={**G, "smooth_softmax": 1},
        outputs=3,
        fault=True,
    ),
    Case(
        "GroupQueryAttention/sin-cache-shape",
        "GroupQueryAttention",
        [In([2, 3, 64]), In([2, 3, 32]), In([2, 3, 32]), None, None, i32([2, 2]), i32(3), In([10, 8]), In([10, 4])],
        attrs={**G, "do_rotary": 1},
        outputs=3,
        fault=True,
    ),
    Case(
        "GroupQueryAttention/key-length-without-past",
        "GroupQueryAttention",
        [In(GQ), In([2, 4, 16]), In([2, 4, 16]), None, None, i32([2, 2]), i32(3)],
        attrs=G,
        outputs=3,
        fault=True,
    ),
    Case(
        "GroupQueryAttention/position-ids-batch",
        "GroupQueryAttention",
        [In([2, 3, 64]), In([2, 3, 32]), In([2, 3, 32]), None, None, i32([2, 2]), i32(3), In([10, 8]), In([10, 8]),
         i64([[0, 1, 2]])],
        attrs={**G, "do_rotary": 1},
        outputs=3,
        fault=True,
    ),
    Case(
        "GroupQueryAttention/position-ids-batch-no-rotary",
        "GroupQueryAttention",
        [In(GQ), In(GK), In(GK), None, None, i32([2, 2]), i32(3), None, None, i64([[0, 1, 2]])],
        attrs=G,
        outputs=3,
        fault=True,
    ),
    Case(
        "GroupQueryAttention/sin-cache-shape-no-rotary",
        "GroupQueryAttention",
        [In(GQ), In(GK), In(GK), None, None, i32([2, 2]), i32(3), In([10, 4]), In([10, 3])],
        attrs=G,
        outputs=3,
        fault=True,
    ),
    Case(
        "GroupQueryAttention/head-sink-no-smooth-softmax",
        "GroupQueryAttention",
        [In(GQ), In(GK), In(GK), None, None, i32([2, 2]), i32(3), None, None, None, None, In([3])],
        attrs=G,
        outputs=3,
        fault=True,
    ),
    Case(
        "GroupQueryAttention/key-head-size",
        "GroupQueryAttention",
        [In(GQ), In([2, 3, 24]), In([2, 3, 24]), None, None, i32([2, 2]), i32(3)],
        attrs=G,
        outputs=3,
        fault=True,
    ),
    Case(
        "GroupQueryAttention/value-hidden",
        "GroupQueryAttention",
        [In(GQ), In(GK), In([2, 3, 8]), None, None, i32([2, 2]), i32(3)],
        attrs=G,
        outputs=3,
        fault=True,
    ),
    Case(
        "GroupQueryAttention/past-head-size",
        "GroupQueryAttention",
        [In(GQ), In(GK), In(GK), In([2, 2, 6, 16]), In([2, 2, 6, 16]), i32([2, 2]), i32(3)],
        attrs=G,
        outputs=3,
        fault=True,
    ),
    Case(
        "GroupQueryAttention/past-kv-heads",
        "GroupQueryAttention",
        [In(GQ), In(GK), In(GK), In([2, 1, 6, 8]), In([2, 1, 6, 8]), i32([2, 2]), i32(3)],
        attrs=G,
        outputs=3,
        fault=True,
    ),
    Case(
        "GroupQueryAttention/past-lengths",
        "GroupQueryAttention",
        [In(GQ), In(GK), In(GK), In([2, 2, 6, 8]), In([2, 2, 5, 8]), i32([2, 2]), i32(3)],
        attrs=G,
        outputs=3,
        fault=True,
    ),
    Case(
        "GroupQueryAttention/seqlens-batch",
        "GroupQueryAttention",
        [In(GQ), In(GK), In(GK), None, None, i32([2, 2, 2]), i32(3)],
        attrs=G,
        outputs=3,
        fault=True,
    ),
    Case(
        "GroupQueryAttention/key-batch",
        "GroupQueryAttention",
        [In(GQ), In([1, 3, 16]), In([1, 3, 16]), None, None, i32([2, 2]), i32(3)],
        attrs=G,
        outputs=3,
        fault=True,
    ),
]

PID = i64([[0, 1, 2], [0, 1, 2]])

ROPE = [
    Case("RotaryEmbedding/3d-heads", "RotaryEmbedding", [In([2, 3, 16]), PID, In([10, 4]), In([10, 4])], attrs=H2),
    Case("RotaryEmbedding/3d-cache-head", "RotaryEmbedding", [In([2, 3, 16]), PID, In([10, 8]), In([10, 8])]),
    Case("RotaryEmbedding/4d", "RotaryEmbedding", [In([2, 2, 3, 8]), PID, In([10, 4]), In([10, 4])]),
    Case(
        "RotaryEmbedding/rotary-dim",
        "RotaryEmbedding",
        [In([2, 3, 16]), PID, In([10, 2]), In([10, 2])],
        attrs={"num_heads": 2, "rotary_embedding_dim": 4},
    ),
    Case(
        "RotaryEmbedding/rotary-dim-head-cache",
        "RotaryEmbedding",
        [In([2, 3, 16]), PID, In([10, 4]), In([10, 4])],
        attrs={"num_heads": 2, "rotary_embedding_dim": 4},
    ),
    Case(
        "RotaryEmbedding/scalar-offset",
        "RotaryEmbedding",
        [In([2, 3, 16]), In([], "int64", value=np.array(1, np.int64), const=True), In([10, 4]), In([10, 4])],
        attrs=H2,
    ),
    Case(
        "RotaryEmbedding/offset-of-two",
        "RotaryEmbedding",
        [In([2, 3, 16]), i64([0, 0]), In([10, 4]), In([10, 4])],
        attrs=H2,
        fault=True,
    ),
    Case("RotaryEmbedding/offset", "RotaryEmbedding", [In([2, 3, 16]), i64([0]), In([10, 4]), In([10, 4])], attrs=H2),
    Case(
        "RotaryEmbedding/symbolic",
        "RotaryEmbedding",
        [In(["b", "s", 16]), In(["b", "s"], "int64", low=0, high=3), In(["m", 4]), In(["m", 4])],
        attrs=H2,
        bind={"b": 2, "s": 3, "m": 10},
    ),
    # Faults.
    Case("RotaryEmbedding/cache-rotary-dim", "RotaryEmbedding", [In([2, 2, 3, 8]), PID, In([10, 3]), In([10, 3])], fault=True),
    Case(
        "RotaryEmbedding/cache-of-hidden",
        "RotaryEmbedding",
        [In([2, 3, 16]), PID, In([10, 8]), In([10, 8])],
        attrs=H2,
        fault=True,
    ),
    Case(
        "RotaryEmbedding/cache-neither-dim",
        "RotaryEmbedding",
        [In([2, 3, 16]), PID, In([10, 3]), In([10, 3])],
        attrs={"num_heads": 2, "rotary_embedding_dim": 4},
        fault=True,
    ),
    Case(
        "RotaryEmbedding/cache-symbolic-dim",
        "RotaryEmbedding",
        [In([2, 2, 3, 8]), PID, In([10, "r"]), In([10, "r"])],
        bind={"r": 3},
        fault=True,
        symbolic_fault=True,
    ),
    Case("RotaryEmbedding/sin-shape", "RotaryEmbedding", [In([2, 3, 16]), PID, In([10, 4]), In([9, 4])], attrs=H2, fault=True),
    Case("RotaryEmbedding/cache-3d", "RotaryEmbedding", [In([2, 3, 16]), PID, In([10, 4, 1]), In([10, 4, 1])], attrs=H2, fault=True),
    Case(
        "RotaryEmbedding/position-batch",
        "RotaryEmbedding",
        [In([2, 3, 16]), i64([[0, 1, 2]]), In([10, 4]), In([10, 4])],
        attrs=H2,
        fault=True,
    ),
    Case("RotaryEmbedding/input-2d", "RotaryEmbedding", [In([3, 16]), PID, In([10, 4]), In([10, 4])], attrs=H2, fault=True),
]


def u8(shape, value=None):
    return In(shape, "uint8", value=value, const=value is not None)


SC = In([], "float32", value=np.array(0.1, np.float32), const=True)
ZP = u8([], np.array(0, np.uint8))

QATTENTION = [
    Case("QAttention/basic", "QAttention", [u8([2, 3, 8]), u8([8, 24]), In([24]), SC, SC], attrs=H2, outputs=2),
    Case(
        "QAttention/symbolic",
        "QAttention",
        [u8(["b", "s", 8]), u8([8, 24]), In([24]), SC, SC],
        attrs=H2,
        outputs=2,
        bind={"b": 2, "s": 4},
    ),
    Case(
        "QAttention/past",
        "QAttention",
        [u8([2, 3, 8]), u8([8, 24]), In([24]), SC, SC, None, ZP, ZP, In([2, 2, 2, 5, 4])],
        attrs=H2,
        outputs=2,
    ),
    Case(
        "QAttention/mask-2d",
        "QAttention",
        [u8([2, 3, 8]), u8([8, 24]), In([24]), SC, SC, In([2, 3], "int32")],
        attrs=H2,
        outputs=2,
    ),
    Case("QAttention/short-bias", "QAttention", [u8([2, 3, 8]), u8([8, 24]), In([23]), SC, SC], attrs=H2, fault=True),
    Case("QAttention/weight-rows", "QAttention", [u8([2, 3, 8]), u8([7, 24]), In([24]), SC, SC], attrs=H2, fault=True),
    Case(
        "QAttention/mask-wrong-length",
        "QAttention",
        [u8([2, 3, 8]), u8([8, 24]), In([24]), SC, SC, In([2, 4], "int32")],
        attrs=H2,
        fault=True,
    ),
    Case(
        "QAttention/mask-1d-wrong",
        "QAttention",
        [u8([2, 3, 8]), u8([8, 24]), In([24]), SC, SC, In([5], "int32")],
        attrs=H2,
        fault=True,
    ),
    Case(
        "QAttention/past-heads",
        "QAttention",
        [u8([2, 3, 8]), u8([8, 24]), In([24]), SC, SC, None, ZP, ZP, In([2, 2, 1, 5, 4])],
        attrs=H2,
        outputs=2,
        fault=True,
    ),
]

# DecoderMaskedMultiHeadAttention's CPU kernel needs past_present_share_buffer (and so past_key,
# past_value and past_sequence_length).
SHARE = {"num_heads": 2, "past_present_share_buffer": 1}
DQ, DK = [2, 1, 8], [2, 1, 8]
PAST = [In([2, 2, 5, 4]), In([2, 2, 5, 4]), i32(3)]

DMMHA = [
    Case(
        "DecoderMaskedMultiHeadAttention/shared",
        "DecoderMaskedMultiHeadAttention",
        [In(DQ), In(DK), In(DK), None, None, *PAST],
        attrs=SHARE,
        outputs=3,
    ),
    Case(
        "DecoderMaskedMultiHeadAttention/symbolic",
        "DecoderMaskedMultiHeadAttention",
        [In(["b", 1, 8]), In(["b", 1, 8]), In(["b", 1, 8]), None, None,
         In(["b", 2, "m", 4]), In(["b", 2, "m", 4]), i32(3)],
        attrs=SHARE,
        outputs=3,
        bind={"b": 2, "m": 6},
    ),
    Case(
        "DecoderMaskedMultiHeadAttention/mask",
        "DecoderMaskedMultiHeadAttention",
        [In(DQ), In(DK), In(DK), In([2, 4], "int32", low=1, high=2), None, *PAST],
        attrs=SHARE,
        outputs=3,
    ),
    Case(
        "DecoderMaskedMultiHeadAttention/attention-bias",
        "DecoderMaskedMultiHeadAttention",
        [In(DQ), In(DK), In(DK), None, In([1, 2, 1, 4]), *PAST],
        attrs=SHARE,
        outputs=3,
    ),
    Case(
        "DecoderMaskedMultiHeadAttention/bias",
        "DecoderMaskedMultiHeadAttention",
        [In(DQ), In(DK), In(DK), None, None, *PAST, None, None, In([24])],
        attrs=SHARE,
        outputs=3,
    ),
    # Faults.
    Case(
        "DecoderMaskedMultiHeadAttention/mask-length",
        "DecoderMaskedMultiHeadAttention",
        [In(DQ), In(DK), In(DK), In([2, 7], "int32"), None, *PAST],
        attrs=SHARE,
        outputs=3,
        fault=True,
    ),
    Case(
        "DecoderMaskedMultiHeadAttention/attention-bias-kv-length",
        "DecoderMaskedMultiHeadAttention",
        [In(DQ), In(DK), In(DK), None, In([2, 2, 1, 5]), *PAST],
        attrs=SHARE,
        outputs=3,
        fault=True,
    ),
    Case(
        "DecoderMaskedMultiHeadAttention/bias-size",
        "DecoderMaskedMultiHeadAttention",
        [In(DQ), In(DK), In(DK), None, None, *PAST, None, None, In([23])],
        attrs=SHARE,
        outputs=3,
        fault=True,
    ),
    Case(
        "DecoderMaskedMultiHeadAttention/key-hidden",
        "DecoderMaskedMultiHeadAttention",
        [In(DQ), In([2, 1, 6]), In([2, 1, 6]), None, None, In([2, 2, 5, 3]), In([2, 2, 5, 3]), i32(3)],
        attrs=SHARE,
        outputs=3,
        fault=True,
    ),
    Case(
        "DecoderMaskedMultiHeadAttention/past-heads",
        "DecoderMaskedMultiHeadAttention",
        [In(DQ), In(DK), In(DK), None, None, In([2, 1, 5, 4]), In([2, 1, 5, 4]), i32(3)],
        attrs=SHARE,
        outputs=3,
        fault=True,
    ),
]

CASES = ATTENTION + MHA + GQA + ROPE + QATTENTION + DMMHA
