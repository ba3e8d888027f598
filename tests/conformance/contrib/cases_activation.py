"""Cases of the Gelu family and the bias-fused activations (src/shape/ops/contrib_activation.rs) and of the
fused products and convolutions (src/shape/ops/contrib_fused.rs).

Not runnable on onnxruntime's CPU provider (no CPU kernel), so covered by unit tests only: BiasAdd,
BiasSplitGelu, BiasSoftmax, BiasDropout, BitmaskBiasDropout (CUDA), GemmFastGelu (ROCm), NhwcConv (CUDA),
FusedMatMulActivation (no CPU kernel: an internal op of other execution providers)."""

from nodecase import Case, In

S = {"b": 2, "s": 5}

CASES = [
    # BiasGelu: the bias is 1-D, of the last axis; not numpy broadcasting (size 1 is refused).
    Case("BiasGelu/3d", "BiasGelu", [In([2, 3, 8]), In([8])]),
    Case("BiasGelu/symbolic", "BiasGelu", [In(["b", "s", 8]), In([8])], bind=S),
    Case("BiasGelu/1d", "BiasGelu", [In([8]), In([8])]),
    Case("BiasGelu/fp16", "BiasGelu", [In([2, 8], "float16"), In([8], "float16")]),
    Case("BiasGelu/short-bias", "BiasGelu", [In([2, 3, 8]), In([7])], fault=True),
    Case("BiasGelu/bias-of-1", "BiasGelu", [In([2, 3, 8]), In([1])], fault=True),
    Case("BiasGelu/bias-2d", "BiasGelu", [In([2, 3, 8]), In([1, 8])], fault=True),
    Case("BiasGelu/symbolic-hidden", "BiasGelu", [In(["b", "h"]), In([8])], bind={"b": 2, "h": 7},
         fault=True, symbolic_fault=True),
    # FastGelu: the optional bias, as BiasGelu's.
    Case("FastGelu/no-bias", "FastGelu", [In([2, 3, 8])]),
    Case("FastGelu/bias", "FastGelu", [In(["b", "s", 8]), In([8])], bind=S),
    Case("FastGelu/short-bias", "FastGelu", [In([2, 3, 8]), In([7])], fault=True),
    Case("FastGelu/bias-of-input-shape", "FastGelu", [In([2, 3, 8]), In([2, 3, 8])], fault=True),
    Case("FastGelu/bias-of-1", "FastGelu", [In([2, 3, 8]), In([1])], fault=True),
    # Gelu, QuickGelu, Inverse: the input's shape.
    Case("Gelu/3d", "Gelu", [In(["b", "s", 8])], bind=S),
    Case("Gelu/fp16", "Gelu", [In([4, 8], "float16")]),
    Case("QuickGelu/3d", "QuickGelu", [In(["b", "s", 8])], attrs={"alpha": 1.702}, bind=S),
    Case("Inverse/batch", "Inverse", [In(["b", 3, 3])], bind=S),
    # FusedMatMul and TransposeMatMul: transposes, then numpy matmul with the batch axes broadcast.
    Case("FusedMatMul/plain", "FusedMatMul", [In(["b", "s", 8]), In([8, 4])], attrs={"alpha": 0.5}, bind=S),
    Case("FusedMatMul/transA", "FusedMatMul", [In([2, 8, 3]), In([8, 4])], attrs={"transA": 1}),
    Case("FusedMatMul/transB-batch", "FusedMatMul", [In([2, 3, 8]), In([5, 1, 4, 8])], attrs={"transB": 1}),
    Case("FusedMatMul/transBatchA", "FusedMatMul", [In([3, 2, 8]), In([2, 8, 4])], attrs={"transBatchA": 1}),
    Case("FusedMatMul/transBatchB", "FusedMatMul", [In([2, 3, 8]), In([8, 2, 4])], attrs={"transBatchB": 1}),
    Case("FusedMatMul/transBatchA-transA", "FusedMatMul", [In([8, 2, 3]), In([2, 8, 4])],
         attrs={"transBatchA": 1, "transA": 1}),
    Case("FusedMatMul/vector", "FusedMatMul", [In([8]), In([2, 8, 4])]),
    Case("FusedMatMul/batch-conflict", "FusedMatMul", [In([2, 3, 8]), In([3, 8, 4])], fault=True),
    Case("TransposeMatMul/transA", "TransposeMatMul", [In(["b", 8, 3]), In([8, 4])], attrs={"transA": 1}, bind=S),
    # FusedGemm: Gemm's shapes; C broadcasts unidirectionally to [M, N].
    Case("FusedGemm/relu", "FusedGemm", [In([3, 8]), In([8, 4]), In([4])], attrs={"activation": "Relu"}),
    Case("FusedGemm/transB", "FusedGemm", [In(["b", 8]), In([4, 8]), In([1, 4])],
         attrs={"activation": "LeakyRelu", "activation_alpha": 0.1, "transB": 1}, bind=S),
    Case("FusedGemm/short-C", "FusedGemm", [In([3, 8]), In([8, 4]), In([3])], attrs={"activation": "Relu"},
         fault=True),
    # FusedConv: Conv's sizes; Z of the output's shape.
    Case("FusedConv/relu-pads", "FusedConv", [In([1, 2, 8, 8]), In([4, 2, 3, 3]), In([4])],
         attrs={"activation": "Relu", "pads": [1, 1, 1, 1]}),
    Case("FusedConv/strided-symbolic", "FusedConv", [In(["b", 2, "h", "w"]), In([4, 2, 3, 3])],
         attrs={"activation": "Relu", "strides": [2, 2]}, bind={"b": 2, "h": 9, "w": 12}),
    Case("FusedConv/z", "FusedConv", [In([1, 2, 8, 8]), In([4, 2, 3, 3]), In([4]), In([1, 4, 6, 6])],
         attrs={"activation": "Relu"}),
    Case("FusedConv/z-short", "FusedConv", [In([1, 2, 8, 8]), In([4, 2, 3, 3]), In([4]), In([1, 4, 6, 5])],
         attrs={"activation": "Relu"}, fault=True),
]
