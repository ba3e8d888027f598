"""Cases of the remaining contrib operators: the tensor operators of src/shape/ops/contrib_misc.rs, the signal
operators of contrib_signal.rs, the mixtures of experts and fused N-bit products of contrib_moe.rs, and the
generation loops of contrib_generation.rs.

Not runnable on onnxruntime's CPU provider (no CPU kernel), so covered by unit tests only: BitmaskDropout,
IsAllFinite, RemovePadding, RestorePadding, NhwcFusedConv (fp16 vector intrinsics only, not x86-64), Rfft,
Irfft, ComplexMul, ComplexMulConj, the QOrdered family, QuantizeWithOrder, DequantizeWithOrder, DecoderAttention
(CUDA), MatMulNBitsMlp, MatMulNBitsQkv (WebGPU), MatMulFpQ4 (needs MLAS-packed weights), WhisperBeamSearch (needs
Whisper's encoder and decoder), GatedDeltaNet, VarlenCausalConvWithState (no CPU kernel in 1.31.1), and the
others listed in each rule file's header."""

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from nodecase import Case, In

I32, I64 = "int32", "int64"
VOCAB = 7


def gpt_decoder():
    """A GPT-2-style decoder subgraph of one layer for the generation loops: logits (B, S, VOCAB) from the
    ids, and a present state that appends to the past."""
    nodes = [
        helper.make_node("Cast", ["input_ids"], ["xf"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["xf", "ax2"], ["x3"]),
        helper.make_node("Mul", ["x3", "w"], ["logits"]),
        helper.make_node("Unsqueeze", ["xf", "ax024"], ["x5"]),
        helper.make_node("Expand", ["x5", "kvshape"], ["kv"]),
        helper.make_node("Concat", ["past_0", "kv"], ["present_0"], axis=3),
    ]
    inits = [
        numpy_helper.from_array(np.array([2], np.int64), "ax2"),
        numpy_helper.from_array(np.array([0, 2, 4], np.int64), "ax024"),
        numpy_helper.from_array(np.array([2, 1, 1, 1, 2], np.int64), "kvshape"),
        numpy_helper.from_array(np.arange(VOCAB, dtype=np.float32).reshape(1, 1, VOCAB) * 0.1, "w"),
    ]
    ins = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT32, ["B", "S"]),
        helper.make_tensor_value_info("position_ids", TensorProto.INT32, ["B", "S"]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT32, ["B", "T"]),
        helper.make_tensor_value_info("past_0", TensorProto.FLOAT, [2, "B", 1, "P", 2]),
    ]
    outs = [
        helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["B", "S", VOCAB]),
        helper.make_tensor_value_info("present_0", TensorProto.FLOAT, [2, "B", 1, "T", 2]),
    ]
    return helper.make_graph(nodes, "decoder", ins, outs, inits)


GEN = {"decoder": gpt_decoder(), "eos_token_id": VOCAB - 1, "pad_token_id": 0, "model_type": 0}


def c32(v):
    return In([1], I32, value=[v], const=True)


def cf(v):
    return In([1], value=[v], const=True)


CASES = [
    # Pad: pads as an input, [2 * rank] or [1, 2 * rank].
    Case("Pad/constant", "Pad", [In([2, 3]), In([4], I64, value=[0, 1, 1, 2], const=True)]),
    Case("Pad/symbolic", "Pad", [In(["b", 3]), In([4], I64, value=[0, 1, 0, 2], const=True)], bind={"b": 2}),
    Case("Pad/matrix", "Pad", [In([2, 3]), In([1, 4], I64, value=[[1, 0, 1, 0]], const=True)],
         unknown_ok={0: "the values of an initializer of rank 2 are not read"}),
    Case("Pad/matrix-too-long", "Pad", [In([2, 3]), In([1, 6], I64, value=[[1, 0, 1, 0, 0, 0]])], fault=True),
    Case("Pad/reflect", "Pad", [In([2, 4]), In([4], I64, value=[0, 2, 0, 1], const=True)], attrs={"mode": "reflect"}),
    Case("Pad/value", "Pad", [In([2, 3]), In([4], I64, value=[1, 1, 1, 1], const=True), In([1], value=[5.0])]),
    Case("Pad/crop", "Pad", [In([4, 5]), In([4], I64, value=[-1, 0, 0, -2], const=True)]),
    Case("Pad/fed-pads", "Pad", [In([2, 3]), In([4], I64, value=[0, 1, 1, 2])], unknown_ok={0: "pads fed at run"}),
    Case("Pad/pads-too-long", "Pad", [In([2, 3]), In([6], I64, value=[0, 1, 1, 2, 0, 0])], fault=True),
    # GatherND (contrib): indices[:-1] + data[m:].
    Case("GatherND/ms-pairs", "GatherND", [In([2, 2]), In([2, 2], I64, value=[[0, 0], [1, 1]])]),
    Case("GatherND/ms-rows", "GatherND", [In(["b", 3, 4]), In([5, 1], I64, low=0, high=2)], bind={"b": 2}),
    Case("GatherND/ms-int32", "GatherND", [In([2, 3, 4]), In([2, 2, 2], I32, low=0, high=2)]),
    # GridSample (contrib): (N, C, H_out, W_out).
    Case("GridSample/ms-bilinear", "GridSample", [In([2, 3, 8, 8]), In([2, 4, 5, 2])]),
    Case("GridSample/ms-symbolic", "GridSample", [In(["n", 3, "h", "w"]), In(["n", "ho", "wo", 2])],
         attrs={"mode": "nearest", "align_corners": 1}, bind={"n": 2, "h": 6, "w": 7, "ho": 3, "wo": 4}),
    Case("GridSample/ms-batch-mismatch", "GridSample", [In([2, 3, 8, 8]), In([3, 4, 5, 2])], fault=True),
    Case("GridSample/ms-grid-last-3", "GridSample", [In([2, 3, 8, 8]), In([2, 4, 5, 3])], fault=True),
    # CropAndResize: (num_rois, C, crop_h, crop_w).
    Case("CropAndResize/basic", "CropAndResize",
         [In([2, 3, 8, 8]), In([4, 4], value=[[0, 0, 1, 1], [0.1, 0.1, 0.5, 0.5], [0, 0, 0.5, 1], [0.2, 0.3, 0.9, 0.8]]),
          In([4], I32, value=[0, 1, 1, 0]), In([2], I32, value=[3, 5], const=True)]),
    Case("CropAndResize/nearest-symbolic", "CropAndResize",
         [In(["n", 3, "h", "w"]), In(["r", 4], value=[[0, 0, 1, 1], [0.1, 0.1, 0.5, 0.5]]),
          In(["r"], I32, value=[0, 0]), In([2], I32, value=[4, 4], const=True)],
         attrs={"mode": "nearest"}, bind={"n": 1, "h": 6, "w": 7, "r": 2}),
    Case("CropAndResize/rois-of-5", "CropAndResize",
         [In([2, 3, 8, 8]), In([2, 5]), In([2], I32, value=[0, 1]), In([2], I32, value=[3, 5], const=True)],
         fault=True),
    Case("CropAndResize/indices-short", "CropAndResize",
         [In([2, 3, 8, 8]), In([2, 4], value=[[0, 0, 1, 1], [0, 0, 1, 1]]), In([1], I32, value=[0]),
          In([2], I32, value=[3, 5], const=True)], fault=True),
    # Unique (contrib): y [u], idx [n], counts [u].
    Case("Unique/ms-floats", "Unique", [In([6], value=[2, 1, 1, 3, 4, 3])], outputs=3,
         unknown_ok={0: "data-dependent count", 2: "data-dependent count"}),
    Case("Unique/ms-one", "Unique", [In([1], value=[7])], outputs=3),
    Case("Unique/ms-symbolic", "Unique", [In(["n"], low=0, high=3)], outputs=3, bind={"n": 5},
         unknown_ok={0: "data-dependent count", 2: "data-dependent count"}),
    # CDist: (M, K), A and B share N.
    Case("CDist/euclidean", "CDist", [In([3, 4]), In([5, 4])], attrs={"metric": "euclidean"}),
    Case("CDist/sqeuclidean-double", "CDist", [In(["m", 4], "float64"), In(["k", 4], "float64")],
         attrs={"metric": "sqeuclidean"}, bind={"m": 2, "k": 3}),
    Case("CDist/n-mismatch", "CDist", [In([3, 4]), In([5, 3])], fault=True),
    # UnfoldTensor: (n - size) / step + 1 at dim, size appended.
    Case("UnfoldTensor/last", "UnfoldTensor", [In([2, 9])], attrs={"size": 3, "step": 2}),
    Case("UnfoldTensor/dim0", "UnfoldTensor", [In([7, 2, 3])], attrs={"dim": 0, "size": 2, "step": 3}),
    Case("UnfoldTensor/symbolic", "UnfoldTensor", [In([2, "s"])], attrs={"size": 3}, bind={"s": 8}),
    # MurmurHash3: X's shape, uint32 or int32.
    Case("MurmurHash3/uint", "MurmurHash3", [In([2, 3], I32)]),
    Case("MurmurHash3/int", "MurmurHash3", [In(["b", 3], I64)], attrs={"positive": 0, "seed": 3}, bind={"b": 2}),
    # ScaledSiLU and SampleOp: the input's shape.
    Case("ScaledSiLU/alpha", "ScaledSiLU", [In(["b", 8])], attrs={"alpha": 1.5}, bind={"b": 3}),
    Case("ScaledSiLU/scale", "ScaledSiLU", [In([2, 3, 8]), In([], value=0.5)]),
    Case("SampleOp/basic", "SampleOp", [In(["b", 4])], bind={"b": 2}),
    # GatedAdd: X + Y * gate; Y of X's shape, gate (..., 1).
    Case("GatedAdd/basic", "GatedAdd", [In([2, 3, 8]), In([2, 3, 8]), In([2, 3, 1])]),
    Case("GatedAdd/symbolic", "GatedAdd", [In(["b", 8]), In(["b", 8]), In(["b", 1])], bind={"b": 3}),
    Case("GatedAdd/gate-full", "GatedAdd", [In([2, 3, 8]), In([2, 3, 8]), In([2, 3, 8])], fault=True),
    Case("GatedAdd/y-short", "GatedAdd", [In([2, 3, 8]), In([2, 3, 7]), In([2, 3, 1])], fault=True),
    # MaxpoolWithMask and NhwcMaxPool: MaxPool's sizes.
    Case("MaxpoolWithMask/2x2", "MaxpoolWithMask", [In([1, 2, 8, 8]), In([1, 2, 8, 8], I32, low=0, high=2)],
         attrs={"kernel_shape": [2, 2], "strides": [2, 2]}),
    Case("MaxpoolWithMask/pads", "MaxpoolWithMask", [In([1, 2, 7, 7]), In([1, 2, 7, 7], I32, low=0, high=2)],
         attrs={"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),
    Case("NhwcMaxPool/uint8", "NhwcMaxPool", [In([1, 8, 8, 3], "uint8", high=255)],
         attrs={"kernel_shape": [2, 2], "strides": [2, 2]}),
    Case("NhwcMaxPool/int8-pads", "NhwcMaxPool", [In(["n", "h", 6, 4], "int8", low=-100, high=100)],
         attrs={"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}, bind={"n": 2, "h": 5}),
    # ConvTransposeWithDynamicPads: ConvTranspose with the pads as an input.
    Case("ConvTransposeWithDynamicPads/zero-pads", "ConvTransposeWithDynamicPads",
         [In([1, 2, 4, 5]), In([2, 3, 3, 2]), In([4], I64, value=[0, 0, 0, 0], const=True)]),
    Case("ConvTransposeWithDynamicPads/fed-pads", "ConvTransposeWithDynamicPads",
         [In(["n", 2, 4, 4]), In([2, 3, 3, 3]), In([4], I64, value=[1, 0, 1, 0])], attrs={"strides": [2, 2]},
         bind={"n": 2}, unknown_ok={0: "pads fed at run"}),
    Case("ConvTransposeWithDynamicPads/pads", "ConvTransposeWithDynamicPads",
         [In([1, 2, 4, 4]), In([2, 3, 3, 3]), In([4], I64, value=[1, 1, 1, 1], const=True), In([3])],
         attrs={"strides": [2, 2]}),
    # NGramRepeatBlock: scores' shape; input_ids and scores share the batch.
    Case("NGramRepeatBlock/basic", "NGramRepeatBlock", [In([2, 6], I64, high=5), In([2, 10])],
         attrs={"ngram_size": 2}),
    Case("NGramRepeatBlock/symbolic", "NGramRepeatBlock", [In(["b", "s"], I64, high=5), In(["b", 10])],
         attrs={"ngram_size": 3}, bind={"b": 2, "s": 7}),
    Case("NGramRepeatBlock/batch-mismatch", "NGramRepeatBlock", [In([2, 6], I64, high=5), In([3, 10])],
         attrs={"ngram_size": 2}, fault=True),
    # BifurcationDetector: tokens 1-D, suffix_match_idx scalar.
    Case("BifurcationDetector/no-pred", "BifurcationDetector",
         [In([8], I64, high=5), In([4], I64, high=5), In([], I64, value=0)], outputs=2,
         attrs={"min_ngram_size": 1, "max_ngram_size": 3}),
    Case("BifurcationDetector/pred", "BifurcationDetector",
         [In([8], I64, high=5), In([4], I64, high=5), In([], I64, value=0), In([9], I64, high=5)], outputs=2,
         attrs={"min_ngram_size": 1, "max_ngram_size": 3}, unknown_ok={0: "data-dependent length"}),
    # DynamicTimeWarping: int32 (2, x), x data-dependent.
    Case("DynamicTimeWarping/2d", "DynamicTimeWarping", [In([3, 4])], unknown_ok={0: "data-dependent path length"}),
    Case("DynamicTimeWarping/3d", "DynamicTimeWarping", [In([1, 5, 4])], unknown_ok={0: "data-dependent path length"}),
    # MoE: the input's shape; router_probs (total_tokens, num_experts).
    Case("MoE/packed", "MoE", [In([6, 8]), In([6, 4]), In([4, 16, 8]), None, In([4, 8, 16])],
         attrs={"k": 2, "activation_type": "relu"}),
    Case("MoE/padded", "MoE", [In([2, 3, 8]), In([6, 4]), In([4, 16, 8]), In([4, 16]), In([4, 8, 16]), In([4, 8])],
         attrs={"k": 1, "activation_type": "gelu"}),
    Case("MoE/router-tokens", "MoE", [In([6, 8]), In([5, 4]), In([4, 16, 8]), None, In([4, 8, 16])],
         attrs={"k": 2}, fault=True),
    Case("MoE/router-experts", "MoE", [In([6, 8]), In([6, 3]), In([4, 16, 8]), None, In([4, 8, 16])],
         attrs={"k": 2}, fault=True),
    Case("MRotaryEmbedding/3d", "MRotaryEmbedding",
         [In([2, 5, 32]), In([3, 2, 5], I64, low=0, high=8), In([8, 8]), In([8, 8])],
         attrs={"num_heads": 2, "mrope_section": [2, 3, 3]}),
    Case("MoE/symbolic-tokens", "MoE", [In(["t", 8]), In(["t", 4]), In([4, 16, 8]), None, In([4, 8, 16])],
         attrs={"k": 2}, bind={"t": 5}),
    # QMoE: 4-bit experts, the input's shape.
    Case("QMoE/int4", "QMoE",
         [In([6, 32]), In([6, 4]), In([4, 64, 16], "uint8", high=255), In([4, 64]), None,
          In([4, 32, 32], "uint8", high=255), In([4, 32])],
         attrs={"k": 2, "expert_weight_bits": 4, "activation_type": "relu"}),
    Case("QMoE/router-tokens", "QMoE",
         [In([6, 32]), In([5, 4]), In([4, 64, 16], "uint8", high=255), In([4, 64]), None,
          In([4, 32, 32], "uint8", high=255), In([4, 32])],
         attrs={"k": 2, "expert_weight_bits": 4, "activation_type": "relu"}, fault=True),
    Case("MRotaryEmbedding/4d", "MRotaryEmbedding",
         [In(["b", 2, "s", 16]), In([3, "b", "s"], I64, low=0, high=8), In([8, 8]), In([8, 8])],
         attrs={"mrope_section": [2, 3, 3]}, bind={"b": 2, "s": 5}),
    # The generation loops, with a one-layer GPT-2-style decoder: sequences padded to max_length.
    Case("GreedySearch/gpt", "GreedySearch", [In([2, 3], I32, high=5), c32(10), c32(1), cf(1.0)], attrs=GEN),
    Case("GreedySearch/symbolic", "GreedySearch", [In(["b", "s"], I32, high=5), c32(12)], attrs=GEN,
         bind={"b": 3, "s": 4}),
    Case("GreedySearch/fed-max-length", "GreedySearch", [In([2, 3], I32, high=5), In([1], I32, value=[9])],
         attrs=GEN, unknown_ok={0: "max_length fed at run"}),
    # Sampling draws at random: a fixed seed (input 8) keeps the expand check's second run identical, and
    # an end token it never draws makes it fill every position (onnxruntime 1.31.1 leaves the positions
    # after an early end uninitialized).
    Case("Sampling/gpt", "Sampling",
         [In(["b", 3], I32, high=5), c32(10), c32(1), cf(1.0), None, None, None, None, c32(7)],
         attrs={**GEN, "eos_token_id": VOCAB + 5, "top_p": 0.9, "vocab_size": VOCAB}, bind={"b": 2}),
    Case("BeamSearch/gpt", "BeamSearch",
         [In([2, 3], I32, high=5), c32(10), c32(1), c32(2), c32(1), cf(1.0), cf(1.0)],
         attrs={**GEN, "early_stopping": 0, "vocab_size": VOCAB}, outputs=3),
    Case("BeamSearch/symbolic-two-returned", "BeamSearch",
         [In(["b", "s"], I32, high=5), c32(8), c32(1), c32(3), c32(2), cf(1.0), cf(1.0)],
         attrs={**GEN, "early_stopping": 0}, outputs=2, bind={"b": 2, "s": 3}),
    # The linear-attention and hybrid models' recurrent operators.
    Case("LinearAttention/gqa", "LinearAttention", [In([2, 3, 16]), In([2, 3, 8]), In([2, 3, 12]), None, In([2, 3, 2]),
                                                    In([2, 3, 2])],
         attrs={"q_num_heads": 4, "kv_num_heads": 2}, outputs=2),
    Case("LinearAttention/linear-symbolic", "LinearAttention", [In(["b", "t", 16]), In(["b", "t", 16]), In(["b", "t", 16])],
         attrs={"q_num_heads": 2, "kv_num_heads": 2, "update_rule": "linear"}, outputs=2, bind={"b": 2, "t": 5}),
    Case("LinearAttention/past", "LinearAttention",
         [In([2, 1, 16]), In([2, 1, 16]), In([2, 1, 16]), In([2, 2, 8, 8])],
         attrs={"q_num_heads": 2, "kv_num_heads": 2, "update_rule": "linear"}, outputs=2),
    Case("LinearAttentionGate/both", "LinearAttentionGate", [In(["b", "t", 4]), In([4]), In([4]), In(["b", "t", 4])],
         outputs=2, bind={"b": 2, "t": 3}),
    Case("CausalConvWithState/1d", "CausalConvWithState", [In([2, 8, 5]), In([8, 1, 4])], outputs=2),
    Case("CausalConvWithState/dilated-past", "CausalConvWithState",
         [In(["b", 8, "s"]), In([8, 1, 3]), In([8]), In(["b", 8, 4])],
         attrs={"dilation": 2, "activation": "silu"}, outputs=2, bind={"b": 2, "s": 6}),
    Case("HyperConnectionPreMix/grouped", "HyperConnectionPreMix", [In(["b", 4, 16]), In(["b", 4])], bind={"b": 3}),
    Case("HyperConnectionPreMix/flat", "HyperConnectionPreMix", [In([3, 64]), In([3, 4])], attrs={"num_branches": 4}),
    Case("HyperConnectionPostMix/grouped", "HyperConnectionPostMix", [In([3, 4, 16]), In([3, 16]), In([3, 4]), In([3, 4, 4])]),
    Case("EngramGate/basic", "EngramGate",
         [In([2, 3, 4, 8]), In([2, 3, 4, 8]), In([2, 3, 8]), In([4, 8]), In([4, 8]), In([4, 8])], outputs=2),
    Case("NGramHashMapping/basic", "NGramHashMapping",
         [In(["b", "s"], I64, high=50), In([3], I64, value=[1, 3, 5]), In([4], I64, value=[7, 11, 13, 17])],
         attrs={"max_ngram_size": 3, "n_head_per_ngram": 2, "pad_id": 0}, outputs=2, bind={"b": 2, "s": 5}),
    Case("VarlenNGramHashMapping/basic", "VarlenNGramHashMapping",
         [In([7], I64, high=50), In([3], I64, value=[1, 3, 5]), In([4], I64, value=[7, 11, 13, 17]),
          In([3], I32, value=[0, 3, 7])],
         attrs={"max_ngram_size": 3, "n_head_per_ngram": 2, "pad_id": 0}, outputs=2),
    # Tokenizer: [N] or [N, C] strings give [N, T] or [N, C, T], T data-dependent.
    Case("Tokenizer/1d", "Tokenizer", [In([2], "object", value=["ab cd", "efg"])],
         attrs={"mark": 0, "mincharnum": 1, "pad_value": "#", "separators": [" "]},
         unknown_ok={0: "data-dependent token count"}),
    Case("Tokenizer/2d-marked", "Tokenizer", [In([1, 2], "object", value=[["a b", "c d e"]])],
         attrs={"mark": 1, "mincharnum": 1, "pad_value": "#", "separators": [" "]},
         unknown_ok={0: "data-dependent token count"}),
    # Contracts of the operators above, each refused by onnxruntime.
    Case("ScaledSiLU/scale-vector", "ScaledSiLU", [In([2, 3]), In([1], value=[2.0])], fault=True),
    Case("Unique/ms-2d", "Unique", [In([2, 3])], outputs=3, fault=True),
    Case("CDist/a-3d", "CDist", [In([2, 3, 4]), In([5, 4])], fault=True),
    Case("ConvTransposeWithDynamicPads/w-channels", "ConvTransposeWithDynamicPads",
         [In([1, 2, 4, 4]), In([3, 3, 3, 3]), In([4], I64, value=[1, 1, 1, 1], const=True)], fault=True),
    Case("ConvTransposeWithDynamicPads/pads-short", "ConvTransposeWithDynamicPads",
         [In([1, 2, 4, 4]), In([2, 3, 3, 3]), In([2], I64, value=[1, 1], const=True)], fault=True),
    Case("GatedAdd/gate-rank", "GatedAdd", [In([2, 3, 8]), In([2, 3, 8]), In([3, 1])], fault=True),
    Case("MoE/fc1-hidden", "MoE", [In([6, 8]), In([6, 4]), In([4, 16, 7]), None, In([4, 8, 16])], attrs={"k": 2},
         fault=True),
    Case("MoE/fc2-hidden", "MoE", [In([6, 8]), In([6, 4]), In([4, 16, 8]), None, In([4, 7, 16])], attrs={"k": 2},
         fault=True),
    Case("MoE/fc1-bias", "MoE", [In([6, 8]), In([6, 4]), In([4, 16, 8]), In([4, 15]), In([4, 8, 16])],
         attrs={"k": 2}, fault=True),
    Case("MoE/fc2-bias", "MoE", [In([6, 8]), In([6, 4]), In([4, 16, 8]), None, In([4, 8, 16]), In([4, 7])],
         attrs={"k": 2}, fault=True),
    Case("MoE/swiglu-fused", "MoE", [In([6, 8]), In([6, 4]), In([4, 32, 8]), In([4, 32]), In([4, 8, 16]), In([4, 8])],
         attrs={"k": 2, "activation_type": "swiglu", "swiglu_fusion": 1}),
    Case("MRotaryEmbedding/position-seq", "MRotaryEmbedding",
         [In([2, 5, 32]), In([3, 2, 6], I64, low=0, high=8), In([8, 8]), In([8, 8])],
         attrs={"num_heads": 2, "mrope_section": [2, 3, 3]}, fault=True),
    Case("MRotaryEmbedding/4d-position-seq", "MRotaryEmbedding",
         [In([2, 2, 5, 16]), In([3, 2, 4], I64, low=0, high=8), In([8, 8]), In([8, 8])],
         attrs={"mrope_section": [2, 3, 3]}, fault=True),
    Case("LinearAttention/key-length", "LinearAttention", [In([2, 3, 16]), In([2, 4, 16]), In([2, 3, 16])],
         attrs={"q_num_heads": 2, "kv_num_heads": 2, "update_rule": "linear"}, outputs=2, fault=True),
    Case("LinearAttention/value-batch", "LinearAttention", [In([2, 3, 16]), In([2, 3, 16]), In([3, 3, 16])],
         attrs={"q_num_heads": 2, "kv_num_heads": 2, "update_rule": "linear"}, outputs=2, fault=True),
    Case("LinearAttention/past-shape", "LinearAttention",
         [In([2, 1, 16]), In([2, 1, 16]), In([2, 1, 16]), In([2, 2, 8, 4])],
         attrs={"q_num_heads": 2, "kv_num_heads": 2, "update_rule": "linear"}, outputs=2, fault=True),
    Case("LinearAttentionGate/dt-bias", "LinearAttentionGate", [In([2, 3, 4]), In([3]), In([4])], fault=True),
    Case("LinearAttentionGate/decay-scale-1", "LinearAttentionGate", [In([2, 3, 4]), In([4]), In([1])], fault=True),
    Case("LinearAttentionGate/b-shape", "LinearAttentionGate", [In([2, 3, 4]), In([4]), In([4]), In([2, 3, 5])],
         outputs=2, fault=True),
    Case("CausalConvWithState/weight-channels", "CausalConvWithState", [In([2, 8, 5]), In([6, 1, 4])], outputs=2,
         fault=True),
    Case("CausalConvWithState/weight-not-depthwise", "CausalConvWithState", [In([2, 8, 5]), In([8, 2, 4])],
         outputs=2, fault=True),
    Case("CausalConvWithState/bias", "CausalConvWithState", [In([2, 8, 5]), In([8, 1, 4]), In([6])], outputs=2,
         fault=True),
    Case("CausalConvWithState/past-length", "CausalConvWithState", [In([2, 8, 5]), In([8, 1, 4]), None, In([2, 8, 2])],
         outputs=2, fault=True),
    Case("HyperConnectionPostMix/block-width", "HyperConnectionPostMix", [In([3, 4, 16]), In([3, 15]), In([3, 4])],
         fault=True),
    Case("HyperConnectionPostMix/flat", "HyperConnectionPostMix", [In([3, 64]), In([3, 16]), In([3, 4])],
         attrs={"num_branches": 4}),
    Case("EngramGate/query", "EngramGate",
         [In([2, 3, 4, 8]), In([2, 3, 4, 7]), In([2, 3, 8]), In([4, 8]), In([4, 8])], fault=True),
    Case("EngramGate/value", "EngramGate",
         [In([2, 3, 4, 8]), In([2, 3, 4, 8]), In([2, 3, 7]), In([4, 8]), In([4, 8])], fault=True),
    Case("EngramGate/key-norm", "EngramGate",
         [In([2, 3, 4, 8]), In([2, 3, 4, 8]), In([2, 3, 8]), In([3, 8]), In([4, 8])], fault=True),
    Case("EngramGate/conv-norm", "EngramGate",
         [In([2, 3, 4, 8]), In([2, 3, 4, 8]), In([2, 3, 8]), In([4, 8]), In([4, 8]), In([4, 7])], outputs=2,
         fault=True),
    Case("NGramHashMapping/past", "NGramHashMapping",
         [In([2, 5], I64, high=50), In([3], I64, value=[1, 3, 5]), In([4], I64, value=[7, 11, 13, 17]),
          In([2, 2], I64, high=5)],
         attrs={"max_ngram_size": 3, "n_head_per_ngram": 2, "pad_id": 0}, outputs=2),
    Case("NGramHashMapping/past-width", "NGramHashMapping",
         [In([2, 5], I64, high=50), In([3], I64, value=[1, 3, 5]), In([4], I64, value=[7, 11, 13, 17]),
          In([2, 3], I64, high=5)],
         attrs={"max_ngram_size": 3, "n_head_per_ngram": 2, "pad_id": 0}, fault=True),
    Case("NGramHashMapping/vocab-sizes", "NGramHashMapping",
         [In([2, 5], I64, high=50), In([3], I64, value=[1, 3, 5]), In([3], I64, value=[7, 11, 13])],
         attrs={"max_ngram_size": 3, "n_head_per_ngram": 2, "pad_id": 0}, fault=True),
    Case("NGramHashMapping/head-offsets", "NGramHashMapping",
         [In([2, 5], I64, high=50), In([3], I64, value=[1, 3, 5]), In([4], I64, value=[7, 11, 13, 17]), None,
          In([3], I64, value=[0, 0, 0])],
         attrs={"max_ngram_size": 3, "n_head_per_ngram": 2, "pad_id": 0}, fault=True),
    # Contracts on symbolic sizes: a condition (W1), refused by onnxruntime at the binding.
    Case("CDist/symbolic-n", "CDist", [In([3, "n"]), In([5, 4])], bind={"n": 3}, fault=True, symbolic_fault=True),
    Case("MoE/router-symbolic", "MoE", [In(["t", 8]), In(["u", 4]), In([4, 16, 8]), None, In([4, 8, 16])],
         attrs={"k": 2}, bind={"t": 6, "u": 5}, fault=True, symbolic_fault=True),
    Case("EngramGate/symbolic-value", "EngramGate",
         [In(["b", 3, 4, 8]), In(["b", 3, 4, 8]), In(["c", 3, 8]), In([4, 8]), In([4, 8])], bind={"b": 2, "c": 3},
         fault=True, symbolic_fault=True),
    # AttnLSTM: LSTM's outputs; W reads the input and the attention (AW's width, else the memory depth).
    Case("AttnLSTM/wrapper", "AttnLSTM",
         [In([4, 2, 3]), In([1, 20, 12]), In([1, 20, 5]), None, None, None, None, None, In([1, 5, 6]), In([1, 7, 6]),
          In([1, 6]), In([2, 8, 7]), In([2], I32, value=[8, 6]), In([1, 12, 9])],
         attrs={"hidden_size": 5}, outputs=3),
    Case("AttnLSTM/no-wrapper-symbolic", "AttnLSTM",
         [In(["s", "b", 3]), In([1, 20, 10]), In([1, 20, 5]), None, None, None, None, None, In([1, 5, 6]),
          In([1, 7, 6]), In([1, 6]), In(["b", 8, 7]), In(["b"], I32, value=[8, 6])],
         attrs={"hidden_size": 5}, outputs=3, bind={"s": 4, "b": 2}),
    Case("AttnLSTM/w-width", "AttnLSTM",
         [In([4, 2, 3]), In([1, 20, 3]), In([1, 20, 5]), None, None, None, None, None, In([1, 5, 6]), In([1, 7, 6]),
          In([1, 6]), In([2, 8, 7]), In([2], I32, value=[8, 6]), In([1, 12, 9])],
         attrs={"hidden_size": 5}, outputs=3, fault=True),
    # Ranks onnxruntime refuses.
    Case("MoE/router-3d", "MoE", [In([2, 3, 8]), In([2, 3, 4]), In([4, 16, 8]), None, In([4, 8, 16])], attrs={"k": 2},
         fault=True),
    Case("MoE/fc1-bias-flat", "MoE", [In([6, 8]), In([6, 4]), In([4, 16, 8]), In([64]), In([4, 8, 16])],
         attrs={"k": 2}, fault=True),
    Case("Pad/scalar-pads", "Pad", [In([2, 3]), In([], I64, value=1)], fault=True),
    Case("GridSample/ms-5d", "GridSample", [In([1, 2, 4, 4, 4]), In([1, 2, 2, 2, 3])], fault=True),
    Case("CropAndResize/rois-3d", "CropAndResize",
         [In([2, 3, 8, 8]), In([1, 2, 4]), In([2], I32, value=[0, 1]), In([2], I32, value=[3, 5], const=True)],
         fault=True),
    Case("CropAndResize/x-3d", "CropAndResize",
         [In([3, 8, 8]), In([2, 4], value=[[0, 0, 1, 1], [0, 0, 1, 1]]), In([2], I32, value=[0, 0]),
          In([2], I32, value=[3, 5], const=True)], fault=True),
]
