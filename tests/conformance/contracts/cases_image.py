"""Contracts of GridSample, AffineGrid, Col2Im, RoiAlign and NonMaxSuppression (src/shape/ops/image.rs)."""

import numpy as np
from nodecase import Case, In

I64 = "int64"
GS, AG, C2, RA, NMS = "GridSample", "AffineGrid", "Col2Im", "RoiAlign", "NonMaxSuppression"


def case(name, op, inputs, contract, **kw):
    return Case(name, op, inputs, domain="", opset=kw.pop("opset", 20), contract=contract, **kw)


def ints(v, const=True):
    return In([len(v)], I64, value=v, const=const)


CASES = []

# GridSample: X [N, C, spatial...], grid [N, spatial out..., r].
for opset in [16, 20]:
    p = f"{GS}-{opset}"
    cubic = "bicubic" if opset == 16 else "cubic"
    CASES += [
        case(f"{p}/rank", GS, [In([2, 3, 4, 4]), In([2, 5, 6, 2])], "grid-sample-rank", opset=opset),
        case(f"{p}/rank-5d", GS, [In([2, 3, 4, 4, 4]), In([2, 5, 6, 7, 3])], "grid-sample-rank", opset=opset),
        case(f"{p}/rank-cubic", GS, [In([1, 2, 4, 4]), In([1, 3, 3, 2])], "grid-sample-rank", opset=opset, attrs={"mode": cubic}),
        case(f"{p}/rank-differ", GS, [In([2, 3, 4, 4]), In([2, 5, 6, 6, 3])], "grid-sample-rank", opset=opset, fault=True),
        case(f"{p}/rank-3", GS, [In([2, 3, 4]), In([2, 5, 1])], "grid-sample-rank", opset=opset, fault=True),
        case(f"{p}/rank-6", GS, [In([1, 1, 2, 2, 2, 2]), In([1, 2, 2, 2, 2, 4])], "grid-sample-rank", opset=opset, fault=True),
        case(
            f"{p}/rank-cubic-5d",
            GS,
            [In([2, 3, 4, 4, 4]), In([2, 5, 6, 7, 3])],
            "grid-sample-rank",
            opset=opset,
            attrs={"mode": cubic},
            fault=True,
        ),
        case(f"{p}/coordinates", GS, [In(["n", 3, "h", "w"]), In(["n", 5, 6, 2])], "grid-sample-coordinates", opset=opset, bind={"n": 2, "h": 4, "w": 5}),
        case(f"{p}/coordinates-3", GS, [In([2, 3, 4, 4]), In([2, 5, 6, 3])], "grid-sample-coordinates", opset=opset, fault=True),
        case(
            f"{p}/coordinates-symbolic",
            GS,
            [In([2, 3, 4, 4]), In([2, 5, 6, "k"])],
            "grid-sample-coordinates",
            opset=opset,
            bind={"k": 3},
            fault=True,
            symbolic_fault=True,
        ),
        case(f"{p}/batch", GS, [In(["n", 3, 4, 4]), In(["n", 5, 6, 2])], "grid-sample-batch", opset=opset, bind={"n": 2}),
        case(f"{p}/batch-mismatch", GS, [In([2, 3, 4, 4]), In([3, 5, 6, 2])], "grid-sample-batch", opset=opset, fault=True),
        case(f"{p}/batch-one", GS, [In([2, 3, 4, 4]), In([1, 5, 6, 2])], "grid-sample-batch", opset=opset, fault=True),
        case(
            f"{p}/batch-symbolic",
            GS,
            [In(["n", 3, 4, 4]), In(["m", 5, 6, 2])],
            "grid-sample-batch",
            opset=opset,
            bind={"n": 2, "m": 3},
            fault=True,
            symbolic_fault=True,
        ),
    ]

# AffineGrid (20): theta [N, 2, 3] with size [N, C, H, W], [N, 3, 4] with [N, C, D, H, W].
CASES += [
    case("AffineGrid/size", AG, [In([2, 2, 3]), ints([2, 3, 5, 6])], "affine-grid-size"),
    case("AffineGrid/size-3d", AG, [In([2, 3, 4]), ints([2, 3, 5, 6, 7])], "affine-grid-size"),
    case("AffineGrid/size-fed", AG, [In([2, 2, 3]), ints([2, 3, 5, 6], const=False)], "affine-grid-size", unknown_ok={0: "size is fed"}),
    case("AffineGrid/size-3", AG, [In([2, 2, 3]), ints([2, 5, 6])], "affine-grid-size", fault=True),
    case("AffineGrid/size-3-fed", AG, [In([2, 2, 3]), ints([2, 5, 6], const=False)], "affine-grid-size", fault=True),
    case("AffineGrid/size-2d", AG, [In([2, 2, 3]), In([1, 4], I64, value=[[2, 3, 5, 6]])], "affine-grid-size", fault=True),
    case("AffineGrid/theta", AG, [In(["n", 2, 3]), ints([2, 3, 5, 6], const=False)], "affine-grid-theta", bind={"n": 2}, unknown_ok={0: "size is fed"}),
    case("AffineGrid/theta-rank", AG, [In([2, 3]), ints([2, 3, 5, 6])], "affine-grid-theta", fault=True),
    case("AffineGrid/theta-3d-for-2d", AG, [In([2, 3, 4]), ints([2, 3, 5, 6])], "affine-grid-theta", fault=True),
    case("AffineGrid/theta-2d-for-3d", AG, [In([2, 2, 3]), ints([2, 3, 5, 6, 7])], "affine-grid-theta", fault=True),
    case("AffineGrid/theta-batch", AG, [In([3, 2, 3]), ints([2, 3, 5, 6])], "affine-grid-theta", fault=True),
    case(
        "AffineGrid/theta-batch-symbolic",
        AG,
        [In(["n", 2, 3]), ints([2, 3, 5, 6])],
        "affine-grid-theta",
        bind={"n": 3},
        fault=True,
        symbolic_fault=True,
    ),
]


def c2(name, x, image, block, contract, **kw):
    return case(f"Col2Im/{name}", C2, [In(x), ints(image), ints(block)], contract, opset=18, **kw)


CASES += [
    c2("rank", [1, 10, 5], [5, 5], [1, 5], "col2im-rank"),
    c2("rank-2", [10, 5], [5, 5], [1, 5], "col2im-rank", fault=True),
    case("Col2Im/rank-image-2d", C2, [In([1, 10, 5]), In([1, 2], I64, value=[[5, 5]], const=True), ints([1, 5])], "col2im-rank", opset=18, fault=True),
    c2("lengths", [1, 10, 21], [5, 5], [1, 5], "col2im-lengths", attrs={"pads": [1, 1, 1, 1], "strides": [1, 1], "dilations": [1, 1]}),
    c2("lengths-block", [1, 10, 5], [5, 5], [1, 5, 1], "col2im-lengths", fault=True),
    c2("lengths-pads", [1, 10, 5], [5, 5], [1, 5], "col2im-lengths", attrs={"pads": [0, 0]}, fault=True),
    c2("lengths-strides", [1, 10, 5], [5, 5], [1, 5], "col2im-lengths", attrs={"strides": [1]}, fault=True),
    c2("lengths-dilations", [1, 10, 5], [5, 5], [1, 5], "col2im-lengths", attrs={"dilations": [1, 1, 1]}, fault=True),
    c2("values", [1, 10, 5], [5, 5], [1, 5], "col2im-values"),
    c2("values-block-0", [1, 10, 5], [5, 5], [0, 5], "col2im-values", fault=True),
    c2("values-image-0", [1, 5, 0], [0, 5], [1, 5], "col2im-values", fault=True),
    c2("channels", [1, 10, 5], [5, 5], [1, 5], "col2im-channels"),
    c2("channels-symbolic", ["n", "c", 5], [5, 5], [1, 5], "col2im-channels", bind={"n": 1, "c": 15}, unknown_ok={0: "c / 5 is no expression of c"}),
    c2("channels-not-multiple", [1, 11, 5], [5, 5], [1, 5], "col2im-channels", fault=True),
    c2("channels-zero", [1, 0, 5], [5, 5], [1, 5], "col2im-channels", fault=True),
    c2("channels-symbolic-fault", [1, "c", 5], [5, 5], [1, 5], "col2im-channels", bind={"c": 11}, fault=True, symbolic_fault=True),
    c2("blocks-pads", [1, 10, 21], [5, 5], [1, 5], "col2im-blocks", attrs={"pads": [1, 1, 1, 1]}),
    c2("blocks-dilations", [1, 4, 9], [5, 5], [2, 2], "col2im-blocks", attrs={"dilations": [2, 2]}),
    c2("blocks-strides", [1, 4, 9], [6, 6], [2, 2], "col2im-blocks", attrs={"strides": [2, 2]}),
    c2("blocks-count", [1, 10, 12], [5, 5], [1, 5], "col2im-blocks", fault=True),
    c2("blocks-strides-count", [1, 8, 6], [6, 6], [2, 2], "col2im-blocks", attrs={"strides": [2, 2]}, fault=True),
    c2("blocks-too-big", [1, 6, 1], [2, 2], [3, 2], "col2im-blocks", fault=True),
    c2("blocks-symbolic-fault", [1, 10, "l"], [5, 5], [1, 5], "col2im-blocks", bind={"l": 6}, fault=True, symbolic_fault=True),
]


def ra(name, x, rois, idx, contract, opset, **kw):
    n = idx[0] if isinstance(idx[0], int) else kw["bind"][idx[0]]
    return case(
        f"RoiAlign-{opset}/{name}",
        RA,
        [In(x), In(rois), In(idx, I64, value=np.zeros(([n] if len(idx) == 1 else [n] + idx[1:]), I64))],
        contract,
        opset=opset,
        **kw,
    )


for opset in [10, 16]:
    CASES += [
        ra("rank", [1, 2, 5, 5], [3, 4], [3], "roi-align-rank", opset),
        ra("rank-x-3d", [2, 5, 5], [3, 4], [3], "roi-align-rank", opset, fault=True),
        ra("rank-rois-3d", [1, 2, 5, 5], [3, 4, 1], [3], "roi-align-rank", opset, fault=True),
        ra("rank-indices-2d", [1, 2, 5, 5], [3, 4], [3, 1], "roi-align-rank", opset, fault=True),
        ra("rois", ["n", 2, 5, 5], ["r", 4], ["r"], "roi-align-rois", opset, bind={"n": 1, "r": 3}),
        ra("rois-count", [1, 2, 5, 5], [3, 4], [2], "roi-align-rois", opset, fault=True),
        ra("rois-coordinates", [1, 2, 5, 5], [3, 5], [3], "roi-align-rois", opset, fault=True),
        ra("rois-count-symbolic", [1, 2, 5, 5], ["r", 4], ["s"], "roi-align-rois", opset, bind={"r": 3, "s": 2}, fault=True, symbolic_fault=True),
    ]

NMS_OUT = {0: "how many boxes are selected is data"}
for opset in [10, 11]:
    p = f"{NMS}-{opset}"
    CASES += [
        case(f"{p}/rank", NMS, [In([1, 6, 4]), In([1, 2, 6])], "nms-rank", opset=opset, unknown_ok=NMS_OUT),
        case(f"{p}/rank-boxes-2d", NMS, [In([6, 4]), In([1, 2, 6])], "nms-rank", opset=opset, fault=True),
        case(f"{p}/rank-scores-2d", NMS, [In([1, 6, 4]), In([2, 6])], "nms-rank", opset=opset, fault=True),
        case(f"{p}/boxes", NMS, [In(["b", "n", 4]), In(["b", 2, "n"])], "nms-boxes", opset=opset, bind={"b": 2, "n": 5}, unknown_ok=NMS_OUT),
        case(f"{p}/boxes-batch", NMS, [In([2, 6, 4]), In([1, 2, 6])], "nms-boxes", opset=opset, fault=True),
        case(f"{p}/boxes-count", NMS, [In([1, 6, 4]), In([1, 2, 5])], "nms-boxes", opset=opset, fault=True),
        case(f"{p}/boxes-coordinates", NMS, [In([1, 6, 5]), In([1, 2, 6])], "nms-boxes", opset=opset, fault=True),
        case(
            f"{p}/boxes-symbolic",
            NMS,
            [In(["b", 6, 4]), In(["c", 2, 6])],
            "nms-boxes",
            opset=opset,
            bind={"b": 1, "c": 2},
            fault=True,
            symbolic_fault=True,
        ),
    ]
