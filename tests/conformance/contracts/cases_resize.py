"""Contracts of DepthToSpace, SpaceToDepth, Resize and Upsample (src/shape/ops/shape_ops/resize.rs).

Measured against onnxruntime 1.31 (CPU): onnx's inference refuses a rank other than 4 and a blocksize below 1
at load, the kernels the sizes the block does not divide at run (an empty batch included). Resize counts an
empty scales or sizes as not given (at run for opsets 11-12, at load from 13); the roi is read only with
tf_crop_and_resize, where an absent one (opset 13) is the whole input and a given one, empty included, must
hold 2 * rank values (from opset 18 with axes, 2 * len(axes) too). A sizes of 0 is refused on a non-empty axis
in stretch mode (the derived scale is 0), accepted by not_smaller (one scale for every axis). Linear and cubic
modes are refused by rank whatever the scales or sizes (linear: rank 2 to 5; cubic: 2 or 4); their further
limits on the outer scales depend on the values and are not contracts here. Upsample-1 has no kernel."""

import numpy as np

from nodecase import Case, In

I64 = "int64"
F32 = "float32"
D2S, S2D, R, U = "DepthToSpace", "SpaceToDepth", "Resize", "Upsample"
TF = {"coordinate_transformation_mode": "tf_crop_and_resize"}


def case(name, op, inputs, contract, **kw):
    return Case(name, op, inputs, domain="", opset=kw.pop("opset", 17), contract=contract, **kw)


def ints(values, const=True):
    return In([len(values)], I64, value=values, const=const)


def floats(values, const=True):
    return In([len(values)], F32, value=values, const=const)


def empty(dtype=F32):
    return In([0], dtype, value=np.zeros(0, dtype=dtype), const=True)


X = In([1, 2, 4, 4])

CASES = []

# depth-to-space-rank, space-to-depth-rank: rank 4 (onnx at load; the kernel at run when the rank is not
# declared).
for op, rank in [(D2S, "depth-to-space-rank"), (S2D, "space-to-depth-rank")]:
    for opset in [1, 13]:
        CASES += [
            case(f"{op}-{opset}/rank", op, [In([1, 8, 4, 6])], rank, attrs={"blocksize": 2}, opset=opset),
            case(f"{op}-{opset}/rank-3", op, [In([8, 4, 6])], rank, attrs={"blocksize": 2}, opset=opset, fault=True),
            case(f"{op}-{opset}/rank-5", op, [In([1, 8, 4, 6, 2])], rank, attrs={"blocksize": 2}, opset=opset,
                 fault=True),
        ]
    CASES += [
        case(f"{op}/blocksize-one", op, [In([1, 3, 4, 5])], "space-depth-blocksize", attrs={"blocksize": 1}),
        case(f"{op}/blocksize-zero", op, [In([1, 8, 4, 6])], "space-depth-blocksize", attrs={"blocksize": 0},
             fault=True),
        case(f"{op}/blocksize-negative", op, [In([1, 8, 4, 6])], "space-depth-blocksize",
             attrs={"blocksize": -2}, fault=True),
    ]

CH = "depth-to-space-channels"
BL = "space-to-depth-blocks"
CASES += [
    # depth-to-space-channels: C a multiple of blocksize² (the kernel, at run).
    case("DepthToSpace/channels", D2S, [In([1, 18, 2, 3])], CH, attrs={"blocksize": 3}),
    case("DepthToSpace/channels-crd", D2S, [In([2, 8, 2, 3])], CH, attrs={"blocksize": 2, "mode": "CRD"}),
    case("DepthToSpace/channels-empty", D2S, [In([1, 0, 2, 3])], CH, attrs={"blocksize": 2}),
    case("DepthToSpace/channels-uneven-hw", D2S, [In([1, 8, 5, 3])], CH, attrs={"blocksize": 2}),
    case("DepthToSpace/channels-6", D2S, [In([1, 6, 4, 6])], CH, attrs={"blocksize": 2}, fault=True),
    case("DepthToSpace-11/channels-6", D2S, [In([1, 6, 4, 6])], CH, attrs={"blocksize": 2}, opset=11, fault=True),
    case("DepthToSpace/channels-crd-9", D2S, [In([1, 9, 4, 6])], CH, attrs={"blocksize": 2, "mode": "CRD"},
         fault=True),
    case("DepthToSpace/channels-empty-batch", D2S, [In([0, 6, 4, 6])], CH, attrs={"blocksize": 2}, fault=True),
    case("DepthToSpace/channels-symbolic", D2S, [In([1, "c", 4, 6])], CH, attrs={"blocksize": 2}, bind={"c": 6},
         fault=True, symbolic_fault=True),
    # space-to-depth-blocks: H and W multiples of blocksize (the kernel, at run).
    case("SpaceToDepth/blocks", S2D, [In([1, 3, 6, 9])], BL, attrs={"blocksize": 3}),
    case("SpaceToDepth/blocks-empty", S2D, [In([1, 3, 0, 4])], BL, attrs={"blocksize": 2}),
    case("SpaceToDepth/blocks-height", S2D, [In([1, 8, 5, 6])], BL, attrs={"blocksize": 2}, fault=True),
    case("SpaceToDepth/blocks-width", S2D, [In([1, 8, 4, 5])], BL, attrs={"blocksize": 2}, fault=True),
    case("SpaceToDepth/blocks-empty-batch", S2D, [In([0, 8, 5, 6])], BL, attrs={"blocksize": 2}, fault=True),
    case("SpaceToDepth/blocks-empty-height", S2D, [In([1, 8, 0, 5])], BL, attrs={"blocksize": 2}, fault=True),
    case("SpaceToDepth/blocks-symbolic", S2D, [In([1, 3, "h", 4])], BL, attrs={"blocksize": 2}, bind={"h": 5},
         fault=True, symbolic_fault=True),
]

SC, SZ, ONE = "resize-scales", "resize-sizes", "resize-scales-or-sizes"
CASES += [
    # resize-scales: one per axis (per entry of axes from 18); at load for a constant, at run when fed.
    case("Resize-10/scales", R, [X, floats([1, 1, 2, 2])], SC, opset=10),
    case("Resize-11/scales", R, [X, empty(), floats([1, 1, 2, 0.5])], SC, opset=11),
    case("Resize-13/scales", R, [X, None, floats([1, 1, 2, 2])], SC, opset=13),
    case("Resize-18/scales-axes", R, [X, None, floats([2, 2])], SC, attrs={"axes": [2, 3]}, opset=18),
    case("Resize-10/scales-short", R, [X, floats([2, 2])], SC, opset=10, fault=True),
    case("Resize-10/scales-empty", R, [X, empty()], SC, opset=10, fault=True),
    case("Resize-11/scales-long", R, [X, empty(), floats([1, 1, 1, 2, 2])], SC, opset=11, fault=True),
    case("Resize-13/scales-fed-short", R, [X, None, floats([2, 2], const=False)], SC, opset=13, fault=True),
    case("Resize-18/scales-axes-long", R, [X, None, floats([1, 2, 2])], SC, attrs={"axes": [2, 3]}, opset=18,
         fault=True),
    case("Resize-19/scales-axes-full", R, [X, None, floats([1, 1, 2, 2])], SC, attrs={"axes": [2, 3]}, opset=19,
         fault=True),
    # resize-sizes: likewise (onnx's inference reads a fed sizes' length at load).
    case("Resize-11/sizes", R, [X, empty(), empty(), ints([1, 2, 8, 3])], SZ, opset=11),
    case("Resize-13/sizes", R, [X, None, None, ints([1, 2, 8, 3])], SZ, opset=13),
    case("Resize-18/sizes-axes", R, [X, None, None, ints([8, 3])], SZ, attrs={"axes": [2, 3]}, opset=18),
    case("Resize-11/sizes-short", R, [X, empty(), empty(), ints([8, 8])], SZ, opset=11, fault=True),
    case("Resize-13/sizes-long", R, [X, None, None, ints([1, 1, 2, 8, 8])], SZ, opset=13, fault=True),
    case("Resize-13/sizes-fed-short", R, [X, None, None, ints([8, 8], const=False)], SZ, opset=13, fault=True),
    case("Resize-18/sizes-axes-short", R, [X, None, None, ints([8])], SZ, attrs={"axes": [2, 3]}, opset=18,
         fault=True),
    # resize-scales-or-sizes: exactly one given, an empty tensor not given.
    case("Resize-11/one-sizes-empty-scales", R, [X, empty(), empty(), ints([1, 2, 8, 8])], ONE, opset=11),
    case("Resize-11/one-scales", R, [X, empty(), floats([1, 1, 2, 2])], ONE, opset=11),
    case("Resize-18/one-sizes-empty-scales", R, [X, None, empty(), ints([1, 2, 8, 8])], ONE, opset=18),
    # The kernel takes any sizes input beside a non-empty scales for a second list.
    case("Resize-11/one-scales-empty-sizes", R, [X, empty(), floats([1, 1, 2, 2]), empty(I64)], ONE, opset=11,
         fault=True),
    case("Resize-13/one-scales-fed-empty-sizes", R, [X, None, floats([1, 1, 2, 2]), ints([], const=False)], ONE,
         opset=13, fault=True),
    case("Resize-11/one-both", R, [X, empty(), floats([1, 1, 2, 2]), ints([1, 2, 8, 8])], ONE, opset=11,
         fault=True),
    case("Resize-11/one-neither", R, [X, empty(), empty(), empty(I64)], ONE, opset=11, fault=True),
    case("Resize-13/one-both-fed", R, [X, None, floats([1, 1, 2, 2], const=False), ints([1, 2, 8, 8], const=False)],
         ONE, opset=13, fault=True),
    case("Resize-13/one-neither", R, [X, None, None], ONE, opset=13, fault=True),
    case("Resize-18/one-neither-empty", R, [X, None, empty(), empty(I64)], ONE, opset=18, fault=True),
    case("Resize-19/one-both", R, [X, None, floats([1, 1, 2, 2]), ints([1, 2, 8, 8])], ONE, opset=19, fault=True),
    # resize-scale-value: every scale above 0 (NaN refused too); a small one may empty the axis.
    case("Resize-13/scale-small", R, [X, None, floats([1, 1, 0.1, 2])], "resize-scale-value", opset=13),
    case("Resize-10/scale-zero", R, [X, floats([1, 1, 0, 2])], "resize-scale-value", opset=10, fault=True),
    case("Resize-13/scale-negative", R, [X, None, floats([1, 1, -1, 2])], "resize-scale-value", opset=13,
         fault=True),
    case("Resize-13/scale-nan", R, [X, None, floats([1, 1, float("nan"), 2])], "resize-scale-value", opset=13,
         fault=True),
    case("Resize-18/scale-axes-zero", R, [X, None, floats([0, 2])], "resize-scale-value", attrs={"axes": [2, 3]},
         opset=18, fault=True),
    case("Resize-13/scale-zero-empty", R, [In([1, 2, 0, 4]), None, floats([1, 1, 0, 2])], "resize-scale-value",
         opset=13, fault=True),
    # resize-size-value (stretch): 1 or more, 0 where the axis is empty.
    case("Resize-13/size-empty-axis", R, [In([1, 2, 0, 4]), None, None, ints([1, 2, 0, 8])], "resize-size-value",
         opset=13),
    case("Resize-18/size-zero-not-smaller", R, [X, None, None, ints([1, 2, 0, 8])], "resize-size-value",
         attrs={"keep_aspect_ratio_policy": "not_smaller"}, opset=18),
    case("Resize-13/size-zero", R, [X, None, None, ints([1, 2, 0, 8])], "resize-size-value", opset=13, fault=True),
    case("Resize-11/size-negative", R, [X, empty(), empty(), ints([1, 2, -1, 8])], "resize-size-value", opset=11,
         fault=True),
    case("Resize-18/size-axes-zero", R, [X, None, None, ints([0, 8])], "resize-size-value", attrs={"axes": [2, 3]},
         opset=18, fault=True),
    case("Resize-18/size-zero-not-larger", R, [X, None, None, ints([1, 2, 0, 8])], "resize-size-value",
         attrs={"keep_aspect_ratio_policy": "not_larger"}, opset=18, fault=True),
    case("Resize-18/size-negative-not-larger", R, [X, None, None, ints([-1, 8])], "resize-size-value",
         attrs={"keep_aspect_ratio_policy": "not_larger", "axes": [2, 3]}, opset=18, fault=True),
    case("Resize-13/size-nonzero-empty-axis", R, [In([1, 2, 0, 4]), None, None, ints([1, 2, 3, 8])],
         "resize-size-value", opset=13, fault=True),
    # resize-roi: with tf_crop_and_resize only.
    case("Resize-11/roi", R, [X, floats([0, 0, 0, 0, 1, 1, 1, 1]), floats([1, 1, 2, 2])], "resize-roi",
         attrs=TF, opset=11),
    case("Resize-13/roi-absent", R, [X, None, floats([1, 1, 2, 2])], "resize-roi", attrs=TF, opset=13),
    case("Resize-13/roi-ignored", R, [X, floats([0, 0, 1, 1]), floats([1, 1, 2, 2])], "resize-roi", opset=13),
    case("Resize-18/roi-axes", R, [X, floats([0, 0, 1, 1]), floats([2, 2])], "resize-roi",
         attrs={"axes": [2, 3], **TF}, opset=18),
    case("Resize-18/roi-axes-full", R, [X, floats([0, 0, 0, 0, 1, 1, 1, 1]), floats([2, 2])], "resize-roi",
         attrs={"axes": [2, 3], **TF}, opset=18, unknown_ok={0: "a roi of every axis with axes: not read here"}),
    case("Resize-11/roi-short", R, [X, floats([0, 0, 1, 1]), floats([1, 1, 2, 2])], "resize-roi", attrs=TF,
         opset=11, fault=True),
    case("Resize-11/roi-empty", R, [X, empty(), floats([1, 1, 2, 2])], "resize-roi", attrs=TF, opset=11,
         fault=True),
    case("Resize-13/roi-empty-sizes", R, [X, empty(), None, ints([1, 2, 8, 8])], "resize-roi", attrs=TF, opset=13,
         fault=True),
    case("Resize-13/roi-fed-short", R, [X, floats([0, 0, 1, 1], const=False), floats([1, 1, 2, 2])], "resize-roi",
         attrs=TF, opset=13, fault=True),
    case("Resize-19/roi-axes-odd", R, [X, floats([0, 0, 0, 1, 1, 1]), floats([2, 2])], "resize-roi",
         attrs={"axes": [2, 3], **TF}, opset=19, fault=True),
    # resize-axes (18): inside the rank, none twice.
    case("Resize-18/axes-negative", R, [X, None, floats([2])], "resize-axes", attrs={"axes": [-1]}, opset=18),
    case("Resize-18/axes-out-of-range", R, [X, None, floats([2])], "resize-axes", attrs={"axes": [4]}, opset=18,
         fault=True),
    case("Resize-19/axes-twice", R, [X, None, floats([2, 2])], "resize-axes", attrs={"axes": [3, -1]}, opset=19,
         fault=True),
]

# resize-mode-rank: onnxruntime's linear kernel takes ranks 2 to 5, its cubic kernel 2 and 4.
MR = "resize-mode-rank"
for mode, ok, bad in [("linear", [[3, 4], [2, 3, 4], [1, 2, 3, 4, 5]], [[5], [1, 1, 1, 2, 4, 4]]),
                      ("cubic", [[3, 4], [1, 2, 3, 4]], [[5], [2, 3, 4], [1, 2, 3, 4, 5]])]:
    for dims in ok:
        scales = [1.0] * (len(dims) - 2) + [2.0, 2.0]
        CASES.append(case(f"Resize-13/{mode}-rank-{len(dims)}", R, [In(dims), None, floats(scales)], MR,
                          attrs={"mode": mode}, opset=13))
    for dims in bad:
        scales = [1.0] * (len(dims) - 1) + [2.0]
        sizes = [d * int(s) for d, s in zip(dims, scales)]
        CASES += [
            case(f"Resize-13/{mode}-rank-{len(dims)}", R, [In(dims), None, floats(scales)], MR,
                 attrs={"mode": mode}, opset=13, fault=True),
            case(f"Resize-18/{mode}-rank-{len(dims)}-sizes", R, [In(dims), None, None, ints(sizes)], MR,
                 attrs={"mode": mode, "antialias": 1}, opset=18, fault=True),
        ]
CASES += [
    case("Resize-10/cubic-rank-3", R, [In([2, 3, 4]), floats([1, 2, 2])], MR, attrs={"mode": "cubic"}, opset=10,
         fault=True),
    case("Resize-13/linear-rank-1-empty", R, [In([0]), None, None, ints([0])], MR, attrs={"mode": "linear"},
         opset=13, fault=True),
    case("Upsample-9/linear-rank-1", U, [In([4]), floats([2])], MR, attrs={"mode": "linear"}, opset=9, fault=True),
    case("Upsample-9/cubic-rank-3", U, [In([2, 4, 4]), floats([1, 2, 2])], MR, attrs={"mode": "cubic"}, opset=9,
         fault=True),
    case("Upsample-9/linear-rank-5", U, [In([1, 1, 1, 4, 4]), floats([1, 1, 1, 2, 2])], MR,
         attrs={"mode": "linear"}, opset=9),
    case("Upsample-7/linear-rank-1", U, [In([4])], MR, attrs={"mode": "linear", "scales": [2.0]}, opset=7,
         fault=True),
    case("Upsample-7/linear-rank-3", U, [In([2, 4, 4])], MR, attrs={"mode": "linear", "scales": [1.0, 2.0, 2.0]},
         opset=7),
    # upsample-scales: one per input axis.
    case("Upsample-7/scales", U, [X], "upsample-scales", attrs={"scales": [1.0, 1.0, 2.0, 1.5]}, opset=7),
    case("Upsample-9/scales", U, [X, floats([1, 1, 2, 3])], "upsample-scales", opset=9),
    case("Upsample-7/scales-short", U, [X], "upsample-scales", attrs={"scales": [2.0, 2.0]}, opset=7, fault=True),
    case("Upsample-9/scales-long", U, [X, floats([1, 1, 1, 2, 2])], "upsample-scales", opset=9, fault=True),
    case("Upsample-9/scales-fed-short", U, [X, floats([2, 2], const=False)], "upsample-scales", opset=9,
         fault=True),
    case("Upsample-9/scales-empty", U, [X, empty()], "upsample-scales", opset=9, fault=True),
    # upsample-scale-value: every scale 1 or more.
    case("Upsample-7/scale-one-and-a-half", U, [X], "upsample-scale-value",
         attrs={"scales": [1.0, 1.0, 1.5, 1.0]}, opset=7),
    case("Upsample-9/scale-one", U, [X, floats([1, 1, 1, 1])], "upsample-scale-value", opset=9),
    case("Upsample-7/scale-below-one", U, [X], "upsample-scale-value", attrs={"scales": [1.0, 1.0, 0.5, 2.0]},
         opset=7, fault=True),
    case("Upsample-9/scale-below-one", U, [X, floats([1, 1, 0.5, 2])], "upsample-scale-value", opset=9,
         fault=True),
    case("Upsample-9/scale-zero", U, [X, floats([1, 1, 0, 2])], "upsample-scale-value", opset=9, fault=True),
]
