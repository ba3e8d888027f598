"""Cases of the normalization and embedding contrib operators: SkipLayerNormalization,
SkipSimplifiedLayerNormalization, LayerNormalization and SimplifiedLayerNormalization of the default domain
(onnxruntime's own, before opset 17), EmbedLayerNormalization, QEmbedLayerNormalization, and Trilu, Range,
ExpandDims of com.microsoft (src/shape/ops/contrib_norm.rs).

GroupNorm and SkipGroupNorm have no CPU kernel in onnxruntime: they are covered by unit tests only."""

from nodecase import Case, In

SL = "SkipLayerNormalization"
SS = "SkipSimplifiedLayerNormalization"
LN = "LayerNormalization"
SN = "SimplifiedLayerNormalization"
EL = "EmbedLayerNormalization"
QE = "QEmbedLayerNormalization"
F16 = "float16"
I32 = "int32"


def ids(shape, high=2):
    return In(shape, I32, low=0, high=high)


CASES = [
    # SkipLayerNormalization: every output, optional inputs present and absent.
    Case(f"{SL}/all", SL, [In([2, 3, 8]), In([2, 3, 8]), In([8]), In([8]), In([8])], outputs=4),
    Case(f"{SL}/no-beta-bias", SL, [In([2, 3, 8]), In([2, 3, 8]), In([8])], outputs=4),
    Case(f"{SL}/bias-no-beta", SL, [In([2, 3, 8]), In([2, 3, 8]), In([8]), None, In([8])], outputs=4),
    Case(f"{SL}/skip-1SH", SL, [In([2, 3, 8]), In([1, 3, 8]), In([8]), In([8])], outputs=2),
    Case(f"{SL}/skip-SH", SL, [In([2, 3, 8]), In([3, 8]), In([8])], outputs=3),
    Case(f"{SL}/skip-other-batch", SL, [In([2, 3, 8]), In([3, 3, 8]), In([8])]),
    Case(f"{SL}/2d", SL, [In([6, 8]), In([6, 8]), In([8]), In([8]), In([8])], outputs=4),
    Case(f"{SL}/f16", SL, [In([2, 3, 8], F16), In([2, 3, 8], F16), In([8], F16), In([8], F16)], outputs=4),
    Case(
        f"{SL}/symbolic",
        SL,
        [In(["b", "s", 8]), In(["b", "s", 8]), In([8]), In([8]), In([8])],
        outputs=4,
        bind={"b": 2, "s": 5},
    ),
    Case(f"{SL}/symbolic-skip-SH", SL, [In(["b", "s", 8]), In(["s", 8]), In([8])], outputs=4, bind={"b": 3, "s": 4}),
    Case(f"{SL}/symbolic-hidden", SL, [In(["b", "s", "h"]), In(["b", "s", "h"]), In(["h"]), In(["h"])], outputs=4, bind={"b": 2, "s": 3, "h": 8}),
    Case(f"{SL}/gamma-short", SL, [In([2, 3, 8]), In([2, 3, 8]), In([7])], fault=True),
    Case(f"{SL}/gamma-2d", SL, [In([2, 3, 8]), In([2, 3, 8]), In([1, 8])], fault=True),
    Case(f"{SL}/beta-short", SL, [In([2, 3, 8]), In([2, 3, 8]), In([8]), In([7])], fault=True),
    Case(f"{SL}/bias-short", SL, [In([2, 3, 8]), In([2, 3, 8]), In([8]), None, In([7])], fault=True),
    Case(f"{SL}/skip-seq", SL, [In([2, 3, 8]), In([2, 4, 8]), In([8])], fault=True),
    Case(f"{SL}/skip-hidden", SL, [In([2, 3, 8]), In([2, 3, 4]), In([8])], fault=True),
    Case(f"{SL}/skip-SH-seq", SL, [In([2, 3, 8]), In([4, 8]), In([8])], fault=True),
    Case(f"{SL}/skip-1d", SL, [In([2, 3, 8]), In([8]), In([8])], fault=True),
    Case(f"{SL}/2d-skip-1H", SL, [In([6, 8]), In([1, 8]), In([8])], fault=True),
    Case(
        f"{SL}/symbolic-skip-seq",
        SL,
        [In(["b", "s", 8]), In(["b", "t", 8]), In([8])],
        bind={"b": 2, "s": 3, "t": 4},
        fault=True,
        symbolic_fault=True,
    ),
    # SkipSimplifiedLayerNormalization.
    Case(f"{SS}/all", SS, [In([2, 3, 8]), In([2, 3, 8]), In([8]), In([8])], outputs=4),
    Case(f"{SS}/no-bias", SS, [In([2, 3, 8]), In([3, 8]), In([8])], outputs=4),
    Case(f"{SS}/2d", SS, [In([6, 8]), In([6, 8]), In([8])], outputs=4),
    Case(f"{SS}/f16", SS, [In([2, 3, 8], F16), In([1, 3, 8], F16), In([8], F16), In([8], F16)], outputs=4),
    Case(f"{SS}/symbolic", SS, [In(["t", 16]), In(["t", 16]), In([16])], outputs=4, bind={"t": 7}),
    Case(f"{SS}/gamma-short", SS, [In([2, 3, 8]), In([2, 3, 8]), In([7])], fault=True),
    Case(f"{SS}/bias-short", SS, [In([2, 3, 8]), In([2, 3, 8]), In([8]), In([9])], fault=True),
    Case(f"{SS}/skip-seq", SS, [In([2, 3, 8]), In([5, 8]), In([8])], fault=True),
    # LayerNormalization of the default domain before opset 17 (onnxruntime's), and at 17 for contrast.
    Case(f"{LN}/13", LN, [In([2, 3, 8]), In([8]), In([8])], outputs=3, domain="", opset=13),
    Case(f"{LN}/13-no-bias", LN, [In([2, 3, 8]), In([8])], outputs=3, domain="", opset=13),
    Case(f"{LN}/1-two-outputs", LN, [In([2, 3, 8]), In([8])], outputs=2, domain="", opset=1),
    Case(f"{LN}/13-axis1", LN, [In([2, 3, 8]), In([3, 8]), In([3, 8])], attrs={"axis": 1}, outputs=3, domain="", opset=13),
    Case(f"{LN}/13-axis0", LN, [In([2, 3, 8]), In([3, 8]), In([8])], attrs={"axis": 0}, outputs=3, domain="", opset=13),
    Case(f"{LN}/13-scale-B1H", LN, [In([2, 3, 8]), In([2, 1, 8]), In([2, 1, 8])], outputs=3, domain="", opset=13),
    Case(f"{LN}/13-scale-1", LN, [In([2, 3, 8]), In([1]), In([1])], outputs=3, domain="", opset=13),
    Case(f"{LN}/13-f16-scale", LN, [In([2, 3, 8]), In([8], F16), In([8], F16)], outputs=3, domain="", opset=13),
    Case(f"{LN}/13-stash-double", LN, [In([2, 3, 8]), In([8])], attrs={"stash_type": 11}, outputs=3, domain="", opset=13),
    Case(f"{LN}/13-scale-S1", LN, [In([2, 3, 8]), In([3, 1])], outputs=3, domain="", opset=13),
    Case(f"{LN}/13-scale-BS1", LN, [In([2, 3, 8]), In([2, 3, 1]), In([8])], outputs=3, domain="", opset=13),
    Case(f"{LN}/13-symbolic-hidden", LN, [In(["b", "s", "h"]), In(["h"]), In(["h"])], outputs=3, domain="", opset=13, bind={"b": 2, "s": 3, "h": 8}),
    Case(f"{LN}/13-symbolic", LN, [In(["b", "s", 8]), In([8]), In([8])], outputs=3, domain="", opset=13, bind={"b": 2, "s": 3}),
    Case(f"{LN}/13-scale-short", LN, [In([2, 3, 8]), In([7]), In([8])], domain="", opset=13, fault=True),
    Case(f"{LN}/13-bias-short", LN, [In([2, 3, 8]), In([8]), In([7])], domain="", opset=13, fault=True),
    Case(f"{LN}/13-scale-rank", LN, [In([2, 3, 8]), In([1, 2, 3, 8])], domain="", opset=13, fault=True),
    # SimplifiedLayerNormalization.
    Case(f"{SN}/13", SN, [In([2, 3, 8]), In([8])], outputs=2, domain="", opset=13),
    Case(f"{SN}/17", SN, [In([2, 3, 8]), In([8])], outputs=2, domain="", opset=17),
    Case(f"{SN}/axis1", SN, [In([2, 3, 8]), In([3, 8])], attrs={"axis": 1}, outputs=2, domain="", opset=17),
    Case(f"{SN}/f16-scale", SN, [In([2, 3, 8]), In([8], F16)], outputs=2, domain="", opset=17),
    Case(f"{SN}/scale-1S1", SN, [In([2, 3, 8]), In([1, 3, 8])], outputs=2, domain="", opset=17),
    Case(f"{SN}/symbolic", SN, [In(["b", "s", 8]), In([8])], outputs=2, domain="", opset=17, bind={"b": 2, "s": 3}),
    Case(f"{SN}/scale-short", SN, [In([2, 3, 8]), In([7])], domain="", opset=17, fault=True),
    Case(f"{SN}/scale-short-13", SN, [In([2, 3, 8]), In([6])], domain="", opset=13, fault=True),
    Case(f"{SN}/scale-seq", SN, [In([2, 3, 8]), In([4, 8])], domain="", opset=17, fault=True),
    # EmbedLayerNormalization.
    Case(
        f"{EL}/full",
        EL,
        [ids([2, 3], 10), ids([2, 3]), In([10, 8]), In([16, 8]), In([2, 8]), In([8]), In([8]), ids([2, 3])],
        attrs={"epsilon": 1e-5},
        outputs=3,
    ),
    Case(
        f"{EL}/no-mask",
        EL,
        [ids([2, 3], 10), ids([2, 3]), In([10, 8]), In([16, 8]), In([2, 8]), In([8]), In([8])],
        outputs=3,
    ),
    Case(
        f"{EL}/no-segment",
        EL,
        [ids([2, 3], 10), None, In([10, 8]), In([16, 8]), None, In([8]), In([8])],
        outputs=2,
    ),
    Case(
        f"{EL}/position-ids",
        EL,
        [ids([2, 3], 10), ids([2, 3]), In([10, 8]), In([16, 8]), In([2, 8]), In([8]), In([8]), None, ids([1, 3], 16)],
        outputs=3,
    ),
    Case(
        f"{EL}/position-ids-B",
        EL,
        [ids([2, 3], 10), ids([2, 3]), In([10, 8]), In([16, 8]), In([2, 8]), In([8]), In([8]), None, ids([2, 3], 16)],
        outputs=3,
    ),
    Case(
        f"{EL}/symbolic",
        EL,
        [ids(["b", "s"], 10), ids(["b", "s"]), In([10, 8]), In([16, 8]), In([2, 8]), In([8]), In([8]), ids(["b", "s"])],
        outputs=3,
        bind={"b": 3, "s": 5},
    ),
    Case(
        f"{EL}/f16",
        EL,
        [ids([2, 3], 10), ids([2, 3]), In([10, 8], F16), In([16, 8], F16), In([2, 8], F16), In([8], F16), In([8], F16)],
        outputs=3,
    ),
    Case(
        f"{EL}/gamma-short",
        EL,
        [ids([2, 3], 10), ids([2, 3]), In([10, 8]), In([16, 8]), In([2, 8]), In([7]), In([8])],
        outputs=3,
        fault=True,
    ),
    Case(
        f"{EL}/beta-short",
        EL,
        [ids([2, 3], 10), ids([2, 3]), In([10, 8]), In([16, 8]), In([2, 8]), In([8]), In([9])],
        outputs=3,
        fault=True,
    ),
    Case(
        f"{EL}/position-hidden",
        EL,
        [ids([2, 3], 10), ids([2, 3]), In([10, 8]), In([16, 4]), In([2, 8]), In([8]), In([8])],
        outputs=3,
        fault=True,
    ),
    Case(
        f"{EL}/segment-hidden",
        EL,
        [ids([2, 3], 10), ids([2, 3]), In([10, 8]), In([16, 8]), In([2, 4]), In([8]), In([8])],
        outputs=3,
        fault=True,
    ),
    Case(
        f"{EL}/segment-ids-seq",
        EL,
        [ids([2, 3], 10), ids([2, 4]), In([10, 8]), In([16, 8]), In([2, 8]), In([8]), In([8])],
        outputs=3,
        fault=True,
    ),
    Case(
        f"{EL}/mask-seq",
        EL,
        [ids([2, 3], 10), ids([2, 3]), In([10, 8]), In([16, 8]), In([2, 8]), In([8]), In([8]), ids([2, 4])],
        outputs=3,
        fault=True,
    ),
    Case(
        f"{EL}/position-ids-seq",
        EL,
        [ids([2, 3], 10), ids([2, 3]), In([10, 8]), In([16, 8]), In([2, 8]), In([8]), In([8]), None, ids([1, 4], 16)],
        outputs=3,
        fault=True,
    ),
    Case(
        f"{EL}/position-ids-batch",
        EL,
        [ids([2, 3], 10), ids([2, 3]), In([10, 8]), In([16, 8]), In([2, 8]), In([8]), In([8]), None, ids([3, 3], 16)],
        outputs=3,
        fault=True,
    ),
    Case(
        f"{EL}/symbolic-segment-ids",
        EL,
        [ids(["b", "s"], 10), ids(["b", "t"]), In([10, 8]), In([16, 8]), In([2, 8]), In([8]), In([8])],
        outputs=3,
        bind={"b": 2, "s": 3, "t": 4},
        fault=True,
        symbolic_fault=True,
    ),
    # QEmbedLayerNormalization: uint8 tables, float scales, uint8 zero points.
    Case(
        f"{QE}/full",
        QE,
        [ids([2, 3], 10), ids([2, 3]), In([10, 8], "uint8", high=255), In([16, 8], "uint8", high=255),
         In([2, 8], "uint8", high=255), In([8], "uint8", high=255), In([8], "uint8", high=255), ids([2, 3])]
        + [In([]) for _ in range(5)]
        + [In([], "uint8", high=255) for _ in range(5)],
        outputs=2,
    ),
    Case(
        f"{QE}/symbolic",
        QE,
        [ids(["b", "s"], 10), ids(["b", "s"]), In([10, 8], "uint8", high=255), In([16, 8], "uint8", high=255),
         In([2, 8], "uint8", high=255), In([8], "uint8", high=255), In([8], "uint8", high=255), None]
        + [In([]) for _ in range(5)]
        + [In([], "uint8", high=255) for _ in range(5)],
        outputs=2,
        bind={"b": 2, "s": 4},
    ),
    Case(
        f"{QE}/gamma-short",
        QE,
        [ids([2, 3], 10), ids([2, 3]), In([10, 8], "uint8", high=255), In([16, 8], "uint8", high=255),
         In([2, 8], "uint8", high=255), In([7], "uint8", high=255), In([8], "uint8", high=255), ids([2, 3])]
        + [In([]) for _ in range(5)]
        + [In([], "uint8", high=255) for _ in range(5)],
        outputs=2,
        fault=True,
    ),
    Case(
        f"{QE}/mask-seq",
        QE,
        [ids([2, 3], 10), ids([2, 3]), In([10, 8], "uint8", high=255), In([16, 8], "uint8", high=255),
         In([2, 8], "uint8", high=255), In([8], "uint8", high=255), In([8], "uint8", high=255), ids([2, 5])]
        + [In([]) for _ in range(5)]
        + [In([], "uint8", high=255) for _ in range(5)],
        outputs=2,
        fault=True,
    ),
    # GatedRMSNorm and BranchwiseRMSNorm.
    Case("GatedRMSNorm/heads", "GatedRMSNorm", [In([2, 3, 16]), In([4]), In([2, 3, 16])]),
    Case("GatedRMSNorm/whole", "GatedRMSNorm", [In([2, 16], F16), In([16], F16), In([2, 16], F16)], attrs={"activation": "sigmoid"}),
    Case("GatedRMSNorm/scale-2d", "GatedRMSNorm", [In([2, 3, 16]), In([1, 4]), In([2, 3, 16])]),
    Case("GatedRMSNorm/symbolic", "GatedRMSNorm", [In(["b", "t", 16]), In([8]), In(["b", "t", 16])], bind={"b": 2, "t": 3}),
    Case("GatedRMSNorm/scale-not-dividing", "GatedRMSNorm", [In([2, 3, 16]), In([5]), In([2, 3, 16])], fault=True),
    Case("GatedRMSNorm/gate-broadcast", "GatedRMSNorm", [In([2, 3, 16]), In([4]), In([1, 3, 16])], fault=True),
    Case("GatedRMSNorm/gate-short", "GatedRMSNorm", [In([2, 3, 16]), In([4]), In([2, 3, 8])], fault=True),
    Case("BranchwiseRMSNorm/grouped-CH", "BranchwiseRMSNorm", [In([2, 3, 4, 8]), In([4, 8])]),
    Case("BranchwiseRMSNorm/grouped-H", "BranchwiseRMSNorm", [In([2, 3, 4, 8]), In([8])]),
    Case("BranchwiseRMSNorm/grouped-C*H", "BranchwiseRMSNorm", [In([2, 3, 4, 8]), In([32])]),
    Case("BranchwiseRMSNorm/no-scale", "BranchwiseRMSNorm", [In(["b", 4, 8])], bind={"b": 3}),
    Case("BranchwiseRMSNorm/flat", "BranchwiseRMSNorm", [In([2, 3, 32]), In([8])], attrs={"num_branches": 4}),
    Case("BranchwiseRMSNorm/flat-CH", "BranchwiseRMSNorm", [In([2, 3, 32]), In([4, 8])], attrs={"num_branches": 4}),
    Case("BranchwiseRMSNorm/f16", "BranchwiseRMSNorm", [In([2, 4, 8], F16), In([8])]),
    Case("BranchwiseRMSNorm/scale-5", "BranchwiseRMSNorm", [In([2, 3, 4, 8]), In([5])], fault=True),
    Case("BranchwiseRMSNorm/scale-HC", "BranchwiseRMSNorm", [In([2, 3, 4, 8]), In([8, 4])], fault=True),
    Case("BranchwiseRMSNorm/scale-3d", "BranchwiseRMSNorm", [In([2, 3, 4, 8]), In([1, 4, 8])], fault=True),
    Case("BranchwiseRMSNorm/flat-not-divisible", "BranchwiseRMSNorm", [In([2, 3, 30]), In([8])], attrs={"num_branches": 4}, fault=True),
    # WordConvEmbedding (TorchEmbedding has no CPU kernel).
    Case("WordConvEmbedding/2d", "WordConvEmbedding", [ids([5, 7], 30), In([4, 1, 2, 6]), In([4]), In([30, 6])]),
    Case(
        "WordConvEmbedding/symbolic",
        "WordConvEmbedding",
        [ids(["w", 7], 30), In([8, 1, 3, 6]), In([8]), In([30, 6])],
        attrs={"conv_window_size": 3, "embedding_size": 8},
        bind={"w": 4},
    ),
    Case("WordConvEmbedding/chars-3d", "WordConvEmbedding", [ids([5, 7], 30), In([4, 1, 2, 6]), In([4]), In([30, 6, 1])]),
    Case("WordConvEmbedding/char-size", "WordConvEmbedding", [ids([5, 7], 30), In([4, 1, 2, 6]), In([4]), In([30, 5])], fault=True),
    # Trilu, Range, ExpandDims of com.microsoft.
    Case("ms.Trilu/3d", "Trilu", [In([2, 3, 4])]),
    Case("ms.Trilu/k", "Trilu", [In(["b", 3, 4]), In([], "int64", value=1, const=True)], attrs={"upper": 0}, bind={"b": 2}),
    Case("ms.Range/int", "Range", [In([], "int64", value=0, const=True), In([], "int64", value=5, const=True)]),
    Case(
        "ms.Range/step",
        "Range",
        [In([], "int64", value=1, const=True), In([], "int64", value=10, const=True), In([], "int64", value=3, const=True)],
    ),
    Case(
        "ms.Range/float",
        "Range",
        [In([], value=0.5, const=True), In([], value=5.0, const=True), In([], value=0.7, const=True)],
    ),
    Case("ms.Range/float-no-delta", "Range", [In([], value=0.5, const=True), In([], value=4.0, const=True)]),
    Case("ms.Range/int32-1d", "Range", [In([1], I32, value=[2], const=True), In([1], I32, value=[9], const=True)]),
    Case(
        "ms.Range/runtime",
        "Range",
        [In([], "int64", value=0), In([], "int64", value=5)],
        unknown_ok={0: "the bounds are graph inputs: the length is their values'"},
    ),
    Case("ms.ExpandDims/1", "ExpandDims", [In([2, 3]), In([], I32, value=1, const=True)]),
    Case("ms.ExpandDims/-1", "ExpandDims", [In([2, 3]), In([], I32, value=-1, const=True)]),
    Case("ms.ExpandDims/2", "ExpandDims", [In([2, 3]), In([], I32, value=2, const=True)]),
    Case("ms.ExpandDims/-3", "ExpandDims", [In(["n", 3]), In([], I32, value=-3, const=True)], bind={"n": 4}),
    Case(
        "ms.ExpandDims/runtime-axis",
        "ExpandDims",
        [In([2, 3]), In([], I32, value=0)],
        unknown_ok={0: "the axis is a graph input"},
    ),
]
