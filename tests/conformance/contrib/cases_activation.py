"""Cases of the Gelu family and the bias-fused activations: BiasGelu, FastGelu, Gelu, QuickGelu, BiasAdd,
BiasSplitGelu, BiasSoftmax, BiasDropout (src/shape/ops/contrib_activation.rs)."""

from ops import Case, In

CASES = [
    Case("BiasGelu/3d", "BiasGelu", [In([2, 3, 8]), In([8])]),
    Case("BiasGelu/symbolic", "BiasGelu", [In(["b", "s", 8]), In([8])], bind={"b": 2, "s": 5}),
    Case("BiasGelu/short-bias", "BiasGelu", [In([2, 3, 8]), In([7])], fault=True),
]
