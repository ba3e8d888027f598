"""Contracts of the convolutions and pools (src/shape/ops/conv_pool.rs): Conv, ConvInteger, QLinearConv,
ConvTranspose, MaxPool, AveragePool, LpPool and the global pools."""

from nodecase import Case, In

U8 = "uint8"


def case(name, op, inputs, contract, **kw):
    return Case(name, op, inputs, domain="", opset=kw.pop("opset", 17), contract=contract, **kw)


def w(shape, dtype="float32"):
    """A constant weight."""
    return In(shape, dtype, const=True, high=255 if dtype == U8 else 2)


def qx(shape):
    return In(shape, U8, high=255)


def qlinear(x, weight, bias=None):
    """QLinearConv's inputs: x, its scale and zero point, w, its, y's, and the bias."""
    scale = In([], value=0.05, const=True)
    zero = In([], U8, value=128, const=True)
    return [x, scale, zero, weight, scale, zero, scale, zero] + ([bias] if bias else [])


CONV, CT = "Conv", "ConvTranspose"
POOLS = ["MaxPool", "AveragePool", "LpPool"]

CASES = [
    # conv-rank: X and W of one rank, 3 or more (onnx's inference, when it knows both ranks).
    case("Conv/rank", CONV, [In([1, 4, 8]), w([6, 4, 3])], "conv-rank"),
    case("Conv/rank-mismatch", CONV, [In([1, 4, 8, 8]), w([6, 4, 3])], "conv-rank", fault=True),
    case("Conv/rank-mismatch-symbolic", CONV, [In(["n", 4, 8, 8]), w([6, 4, 3])], "conv-rank", bind={"n": 1}, fault=True),
    case("Conv/rank-2", CONV, [In([1, 4]), w([6, 4])], "conv-rank", fault=True),
    case("ConvInteger/rank-mismatch", "ConvInteger", [qx([1, 4, 8, 8]), w([6, 4, 3], U8)], "conv-rank", fault=True),
    case("QLinearConv/rank-mismatch", "QLinearConv", qlinear(qx([1, 4, 8, 8]), w([6, 4, 3], U8)), "conv-rank", fault=True),
    case("ConvTranspose/rank", CT, [In([1, 4, 5]), w([4, 3, 3])], "conv-rank"),
    case("ConvTranspose/rank-mismatch", CT, [In([1, 4, 5, 5]), w([4, 3, 3])], "conv-rank", fault=True),
    case("ConvTranspose/rank-2", CT, [In([1, 4]), w([4, 3])], "conv-rank", fault=True),
    # conv-channels: C == W.shape[1] * group; a symbol against the weight's number is a binding (I002).
    case("Conv/channels", CONV, [In([1, 4, 8, 8]), w([6, 4, 3, 3])], "conv-channels"),
    case("Conv/channels-group", CONV, [In([1, 4, 8, 8]), w([6, 2, 3, 3])], "conv-channels", attrs={"group": 2}),
    case("Conv/channels-depthwise", CONV, [In([1, 6, 8, 8]), w([6, 1, 3, 3])], "conv-channels", attrs={"group": 6}),
    case("Conv/channels-symbolic", CONV, [In(["n", "c", 8, 8]), w([6, 4, 3, 3])], "conv-channels", bind={"n": 2, "c": 4}),
    case("Conv/channels-mismatch", CONV, [In([1, 5, 8, 8]), w([6, 4, 3, 3])], "conv-channels", fault=True),
    case(
        "Conv/channels-mismatch-group",
        CONV,
        [In([1, 5, 8, 8]), w([6, 2, 3, 3])],
        "conv-channels",
        attrs={"group": 2},
        fault=True,
    ),
    case("Conv/channels-mismatch-fed-weight", CONV, [In([1, 5, 8, 8]), In([6, 4, 3, 3])], "conv-channels", fault=True),
    case(
        "Conv/channels-symbolic-fault",
        CONV,
        [In([1, "c", 8, 8]), In([6, "k", 3, 3])],
        "conv-channels",
        bind={"c": 5, "k": 4},
        fault=True,
        symbolic_fault=True,
    ),
    case(
        "ConvInteger/channels-mismatch",
        "ConvInteger",
        [qx([1, 5, 8, 8]), w([6, 2, 3, 3], U8)],
        "conv-channels",
        attrs={"group": 2},
        fault=True,
    ),
    case(
        "QLinearConv/channels-mismatch",
        "QLinearConv",
        qlinear(qx([1, 5, 8, 8]), w([6, 2, 3, 3], U8)),
        "conv-channels",
        attrs={"group": 2},
        fault=True,
    ),
    # conv-group: group >= 1 dividing M = W.shape[0].
    case("Conv/group", CONV, [In([1, 4, 8, 8]), w([6, 2, 3, 3])], "conv-group", attrs={"group": 2}),
    case("Conv/group-indivisible", CONV, [In([1, 4, 8, 8]), w([5, 2, 3, 3])], "conv-group", attrs={"group": 2}, fault=True),
    case("Conv/group-zero", CONV, [In([1, 4, 8, 8]), w([6, 4, 3, 3])], "conv-group", attrs={"group": 0}, fault=True),
    case("Conv/group-negative", CONV, [In([1, 4, 8, 8]), w([6, 4, 3, 3])], "conv-group", attrs={"group": -1}, fault=True),
    case(
        "ConvInteger/group",
        "ConvInteger",
        [qx([1, 4, 8, 8]), w([6, 2, 3, 3], U8)],
        "conv-group",
        attrs={"group": 2},
    ),
    case(
        "ConvInteger/group-indivisible",
        "ConvInteger",
        [qx([1, 4, 8, 8]), w([5, 2, 3, 3], U8)],
        "conv-group",
        attrs={"group": 2},
        fault=True,
    ),
    case(
        "QLinearConv/group",
        "QLinearConv",
        qlinear(qx([1, 4, 8, 8]), w([6, 2, 3, 3], U8)),
        "conv-group",
        attrs={"group": 2},
    ),
    case(
        "QLinearConv/group-indivisible",
        "QLinearConv",
        qlinear(qx([1, 4, 8, 8]), w([5, 2, 3, 3], U8)),
        "conv-group",
        attrs={"group": 2},
        fault=True,
    ),
    # conv-kernel-shape: one size per spatial axis (at load), W's spatial sizes (at run).
    case("Conv/kernel-shape", CONV, [In([1, 4, 8, 8]), w([6, 4, 3, 2])], "conv-kernel-shape", attrs={"kernel_shape": [3, 2]}),
    case(
        "Conv/kernel-shape-mismatch",
        CONV,
        [In([1, 4, 8, 8]), w([6, 4, 3, 3])],
        "conv-kernel-shape",
        attrs={"kernel_shape": [3, 2]},
        fault=True,
    ),
    case(
        "Conv/kernel-shape-length",
        CONV,
        [In([1, 4, 8, 8]), w([6, 4, 3, 3])],
        "conv-kernel-shape",
        attrs={"kernel_shape": [3]},
        fault=True,
    ),
    case(
        "ConvInteger/kernel-shape-mismatch",
        "ConvInteger",
        [qx([1, 4, 8, 8]), w([6, 4, 3, 3], U8)],
        "conv-kernel-shape",
        attrs={"kernel_shape": [2, 3]},
        fault=True,
    ),
    case(
        "QLinearConv/kernel-shape-mismatch",
        "QLinearConv",
        qlinear(qx([1, 4, 8, 8]), w([6, 4, 3, 3], U8)),
        "conv-kernel-shape",
        attrs={"kernel_shape": [2, 3]},
        fault=True,
    ),
    case("ConvTranspose/kernel-shape", CT, [In([1, 4, 5, 5]), w([4, 3, 3, 3])], "conv-kernel-shape", attrs={"kernel_shape": [3, 3]}),
    case(
        "ConvTranspose/kernel-shape-mismatch",
        CT,
        [In([1, 4, 5, 5]), w([4, 3, 3, 3])],
        "conv-kernel-shape",
        attrs={"kernel_shape": [3, 2]},
        fault=True,
    ),
    # conv-output-size: the dilated kernel fits in the padded input.
    case("Conv/output-size-exact-fit", CONV, [In([1, 2, 3, 8]), w([3, 2, 3, 3])], "conv-output-size"),
    case("Conv/output-size-padded", CONV, [In([1, 2, 2, 8]), w([3, 2, 3, 3])], "conv-output-size", attrs={"pads": [1, 0, 0, 0]}),
    case("Conv/output-size-small", CONV, [In([1, 2, 2, 8]), w([3, 2, 3, 3])], "conv-output-size", fault=True),
    case(
        "Conv/output-size-overhang-below-stride",
        CONV,
        [In([1, 2, 2, 8]), w([3, 2, 3, 3])],
        "conv-output-size",
        attrs={"strides": [2, 1]},
        fault=True,
    ),
    case(
        "Conv/output-size-dilated",
        CONV,
        [In([1, 2, 4, 8]), w([3, 2, 3, 3])],
        "conv-output-size",
        attrs={"dilations": [2, 1]},
        fault=True,
    ),
    case(
        "Conv/output-size-valid",
        CONV,
        [In([1, 2, 2, 8]), w([3, 2, 3, 3])],
        "conv-output-size",
        attrs={"auto_pad": "VALID"},
        fault=True,
    ),
    case(
        "Conv/output-size-small-batch-0",
        CONV,
        [In([0, 2, 2, 8]), w([3, 2, 3, 3])],
        "conv-output-size",
        fault=True,
    ),
    case(
        "ConvInteger/output-size-small",
        "ConvInteger",
        [qx([1, 2, 2, 8]), w([3, 2, 3, 3], U8)],
        "conv-output-size",
        fault=True,
    ),
    case(
        "QLinearConv/output-size-small",
        "QLinearConv",
        qlinear(qx([1, 2, 2, 8]), w([3, 2, 3, 3], U8)),
        "conv-output-size",
        fault=True,
    ),
    # conv-same-dilation: onnxruntime pads SAME only for an undilated kernel.
    case("Conv/same", CONV, [In([1, 4, 8, 8]), w([6, 4, 3, 3])], "conv-same-dilation", attrs={"auto_pad": "SAME_LOWER"}),
    case(
        "Conv/same-dilations-1",
        CONV,
        [In([1, 4, 7, 8]), w([6, 4, 3, 3])],
        "conv-same-dilation",
        attrs={"auto_pad": "SAME_UPPER", "dilations": [1, 1], "strides": [2, 2]},
    ),
    case(
        "Conv/same-dilated",
        CONV,
        [In([1, 4, 8, 8]), w([6, 4, 3, 3])],
        "conv-same-dilation",
        attrs={"auto_pad": "SAME_UPPER", "dilations": [2, 1]},
        fault=True,
    ),
    case(
        "ConvInteger/same-dilated",
        "ConvInteger",
        [qx([1, 4, 8, 8]), w([6, 4, 3, 3], U8)],
        "conv-same-dilation",
        attrs={"auto_pad": "SAME_LOWER", "dilations": [2, 2]},
        fault=True,
    ),
    case(
        "QLinearConv/same-dilated",
        "QLinearConv",
        qlinear(qx([1, 4, 8, 8]), w([6, 4, 3, 3], U8)),
        "conv-same-dilation",
        attrs={"auto_pad": "SAME_UPPER", "dilations": [2, 2]},
        fault=True,
    ),
    # conv-auto-pad: explicit pads only with auto_pad NOTSET, zero pads and VALID included (at load).
    case("Conv/auto-pad-notset", CONV, [In([1, 4, 8, 8]), w([6, 4, 3, 3])], "conv-auto-pad", attrs={"auto_pad": "NOTSET", "pads": [1, 1, 1, 1]}),
    case("Conv/auto-pad-same", CONV, [In([1, 4, 8, 8]), w([6, 4, 3, 3])], "conv-auto-pad", attrs={"auto_pad": "SAME_UPPER"}),
    case("Conv/auto-pad-and-pads", CONV, [In([1, 4, 8, 8]), w([6, 4, 3, 3])], "conv-auto-pad", attrs={"auto_pad": "SAME_UPPER", "pads": [1, 1, 1, 1]}, fault=True),
    case("Conv/auto-pad-valid-zero-pads", CONV, [In([1, 4, 8, 8]), w([6, 4, 3, 3])], "conv-auto-pad", attrs={"auto_pad": "VALID", "pads": [0, 0, 0, 0]}, fault=True),
    case(
        "ConvInteger/auto-pad-and-pads",
        "ConvInteger",
        [qx([1, 4, 8, 8]), w([6, 4, 3, 3], U8)],
        "conv-auto-pad",
        attrs={"auto_pad": "SAME_LOWER", "pads": [1, 1, 1, 1]},
        fault=True,
    ),
    case(
        "QLinearConv/auto-pad-and-pads",
        "QLinearConv",
        qlinear(qx([1, 4, 8, 8]), w([6, 4, 3, 3], U8)),
        "conv-auto-pad",
        attrs={"auto_pad": "VALID", "pads": [0, 0, 0, 0]},
        fault=True,
    ),
    case("ConvTranspose/auto-pad", CT, [In([1, 4, 5, 5]), w([4, 3, 3, 3])], "conv-auto-pad", attrs={"auto_pad": "VALID"}),
    case("ConvTranspose/auto-pad-and-pads", CT, [In([1, 4, 5, 5]), w([4, 3, 3, 3])], "conv-auto-pad", attrs={"auto_pad": "SAME_UPPER", "pads": [0, 0, 0, 0]}, fault=True),
    # conv-bias: one value per output channel (the kernels check it).
    case("Conv/bias", CONV, [In([1, 4, 8, 8]), w([6, 4, 3, 3]), w([6])], "conv-bias"),
    case("Conv/bias-short", CONV, [In([1, 4, 8, 8]), w([6, 4, 3, 3]), w([5])], "conv-bias", fault=True),
    case("Conv/bias-long-fed", CONV, [In([1, 4, 8, 8]), In([6, 4, 3, 3]), In([7])], "conv-bias", fault=True),
    case("Conv/bias-2d", CONV, [In([1, 4, 8, 8]), w([6, 4, 3, 3]), w([1, 6])], "conv-bias", fault=True),
    case("Conv/bias-float16", CONV, [In([1, 4, 8, 8], "float16"), w([6, 4, 3, 3], "float16"), w([5], "float16")], "conv-bias", fault=True),
    case(
        "Conv/bias-symbolic-fault",
        CONV,
        [In([1, 4, 8, 8]), In(["m", 4, 3, 3]), In(["b"])],
        "conv-bias",
        bind={"m": 6, "b": 5},
        fault=True,
        symbolic_fault=True,
    ),
    case(
        "QLinearConv/bias",
        "QLinearConv",
        qlinear(qx([1, 4, 8, 8]), w([6, 4, 3, 3], U8), In([6], "int32", const=True)),
        "conv-bias",
    ),
    case(
        "QLinearConv/bias-long",
        "QLinearConv",
        qlinear(qx([1, 4, 8, 8]), w([6, 4, 3, 3], U8), In([7], "int32", const=True)),
        "conv-bias",
        fault=True,
    ),
    case("ConvTranspose/bias", CT, [In([1, 4, 5, 5]), w([4, 3, 3, 3]), w([6])], "conv-bias", attrs={"group": 2}),
    case("ConvTranspose/bias-short", CT, [In([1, 4, 5, 5]), w([4, 3, 3, 3]), w([2])], "conv-bias", fault=True),
    case("ConvTranspose/bias-2d", CT, [In([1, 4, 5, 5]), w([4, 3, 3, 3]), w([1, 3])], "conv-bias", fault=True),
    # conv-transpose-channels: W.shape[0] == C.
    case("ConvTranspose/channels", CT, [In([1, 4, 5, 5]), w([4, 3, 3, 3])], "conv-transpose-channels"),
    case(
        "ConvTranspose/channels-symbolic",
        CT,
        [In(["n", "c", 5, 5]), w([4, 3, 3, 3])],
        "conv-transpose-channels",
        bind={"n": 2, "c": 4},
    ),
    case("ConvTranspose/channels-mismatch", CT, [In([1, 4, 5, 5]), w([5, 3, 3, 3])], "conv-transpose-channels", fault=True),
    case(
        "ConvTranspose/channels-mismatch-group",
        CT,
        [In([1, 4, 5, 5]), w([6, 3, 3, 3])],
        "conv-transpose-channels",
        attrs={"group": 2},
        fault=True,
    ),
    case("ConvTranspose/channels-mismatch-fed", CT, [In([1, 4, 5, 5]), In([5, 3, 3, 3])], "conv-transpose-channels", fault=True),
    case(
        "ConvTranspose/channels-symbolic-fault",
        CT,
        [In([1, "c", 5, 5]), In(["k", 3, 3, 3])],
        "conv-transpose-channels",
        bind={"c": 4, "k": 5},
        fault=True,
        symbolic_fault=True,
    ),
    # conv-transpose-group: group >= 1 dividing C (group=0 kills the process in onnx's inference: no case).
    case("ConvTranspose/group", CT, [In([1, 4, 5, 5]), w([4, 3, 3, 3])], "conv-transpose-group", attrs={"group": 2}),
    case(
        "ConvTranspose/group-indivisible",
        CT,
        [In([1, 5, 5, 5]), w([5, 3, 3, 3])],
        "conv-transpose-group",
        attrs={"group": 2},
        fault=True,
    ),
    case(
        "ConvTranspose/group-indivisible-bound",
        CT,
        [In([1, "c", 5, 5]), w([5, 3, 3, 3])],
        "conv-transpose-group",
        attrs={"group": 2},
        bind={"c": 5},
        fault=True,
    ),
    case(
        "ConvTranspose/group-symbolic-fault",
        CT,
        [In([1, "c", 5, 5]), In(["k", 3, 3, 3])],
        "conv-transpose-group",
        attrs={"group": 2},
        bind={"c": 5, "k": 5},
        fault=True,
        symbolic_fault=True,
    ),
    case(
        "ConvTranspose/group-negative",
        CT,
        [In([1, 4, 5, 5]), w([4, 3, 3, 3])],
        "conv-transpose-group",
        attrs={"group": -1},
        fault=True,
    ),
    # conv-transpose-output-size: every size at least 1; a dilated SAME ConvTranspose runs.
    case("ConvTranspose/output-size", CT, [In([1, 4, 1, 1]), w([4, 3, 1, 1])], "conv-transpose-output-size", attrs={"pads": [0, 0, 0, 0]}),
    case(
        "ConvTranspose/output-size-same-dilated",
        CT,
        [In([1, 4, 5, 5]), w([4, 3, 3, 3])],
        "conv-transpose-output-size",
        attrs={"auto_pad": "SAME_UPPER", "dilations": [2, 2]},
    ),
    case(
        "ConvTranspose/output-size-cropped-away",
        CT,
        [In([1, 4, 1, 1]), w([4, 3, 1, 1])],
        "conv-transpose-output-size",
        attrs={"pads": [1, 0, 0, 0]},
        fault=True,
    ),
]

# The pools: each contract on each of the three.
for op in POOLS:
    k3 = {"kernel_shape": [3, 3]}
    CASES += [
        # pool-rank: one to three spatial axes (fewer refused at load, more at run).
        case(f"{op}/rank-1d", op, [In([1, 2, 8])], "pool-rank", attrs={"kernel_shape": [3]}),
        case(f"{op}/rank-3d", op, [In([1, 2, 4, 4, 4])], "pool-rank", attrs={"kernel_shape": [2, 2, 2]}),
        case(f"{op}/rank-2", op, [In([1, 2])], "pool-rank", attrs={"kernel_shape": [1]}, fault=True),
        case(f"{op}/rank-4-spatial", op, [In([1, 1, 3, 3, 3, 3])], "pool-rank", attrs={"kernel_shape": [2, 2, 2, 2]}, fault=True),
        # pool-kernel-shape: one size per spatial axis.
        case(f"{op}/kernel-shape", op, [In(["n", 2, 8, 8])], "pool-kernel-shape", attrs=k3, bind={"n": 2}),
        case(f"{op}/kernel-shape-length", op, [In([1, 2, 8, 8])], "pool-kernel-shape", attrs={"kernel_shape": [3]}, fault=True),
        case(
            f"{op}/kernel-shape-length-symbolic",
            op,
            [In(["n", 2, 8, 8])],
            "pool-kernel-shape",
            attrs={"kernel_shape": [3, 3, 3]},
            bind={"n": 1},
            fault=True,
        ),
        # pool-pads: every pad below the kernel (onnxruntime's constructor, whatever auto_pad says).
        case(f"{op}/pads", op, [In([1, 2, 8, 8])], "pool-pads", attrs={**k3, "pads": [2, 2, 2, 2]}),
        case(f"{op}/pads-begin", op, [In([1, 2, 8, 8])], "pool-pads", attrs={**k3, "pads": [3, 0, 0, 0]}, fault=True),
        case(f"{op}/pads-end", op, [In([1, 2, 8, 8])], "pool-pads", attrs={**k3, "pads": [0, 0, 0, 4]}, fault=True),
        case(
            f"{op}/pads-with-auto-pad",
            op,
            [In([1, 2, 8, 8])],
            "pool-pads",
            attrs={**k3, "pads": [0, 3, 0, 0], "auto_pad": "VALID"},
            fault=True,
        ),
        # Pads below the kernel beside an auto_pad: ignored and run (a convolution refuses both).
        case(f"{op}/pads-small-with-auto-pad", op, [In([1, 2, 8, 8])], "pool-pads", attrs={**k3, "pads": [1, 1, 1, 1], "auto_pad": "SAME_UPPER"}),
        # pool-output-size: negative sizes are refused; 0 (an empty output) runs.
        case(f"{op}/output-size-exact-fit", op, [In([1, 2, 3, 8])], "pool-output-size", attrs=k3),
        case(
            f"{op}/output-size-zero",
            op,
            [In([1, 2, 2, 8])],
            "pool-output-size",
            attrs=k3,
            unknown_ok={0: "a window that overhangs the input gives no size here (0 in onnxruntime)"},
        ),
        case(
            f"{op}/output-size-overhang-below-stride",
            op,
            [In([1, 2, 1, 8])],
            "pool-output-size",
            attrs={**k3, "strides": [2, 1]},
            unknown_ok={0: "a window that overhangs the input gives no size here (0 in onnxruntime)"},
        ),
        case(f"{op}/output-size-negative", op, [In([1, 2, 1, 8])], "pool-output-size", attrs=k3, fault=True),
        case(
            f"{op}/output-size-negative-valid",
            op,
            [In([1, 2, 1, 8])],
            "pool-output-size",
            attrs={**k3, "auto_pad": "VALID"},
            fault=True,
        ),
        case(
            f"{op}/output-size-negative-ceil",
            op,
            [In([1, 2, 1, 8])],
            "pool-output-size",
            attrs={"kernel_shape": [5, 3], "ceil_mode": 1},
            opset=19,
            fault=True,
        ),
        case(
            f"{op}/output-size-negative-dilated",
            op,
            [In([1, 2, 3, 8])],
            "pool-output-size",
            attrs={**k3, "dilations": [3, 1]},
            opset=19,
            fault=True,
        ),
    ]

for op in ["GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool"]:
    CASES += [
        case(f"{op}/rank", op, [In([1, 2, 3, 3])], "pool-rank"),
        case(f"{op}/rank-1d", op, [In([1, 2, 3])], "pool-rank"),
        case(f"{op}/rank-2", op, [In([1, 2])], "pool-rank", fault=True),
        case(f"{op}/rank-4-spatial", op, [In([1, 2, 2, 2, 2, 2])], "pool-rank", fault=True),
    ]
