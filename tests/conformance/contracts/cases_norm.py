"""Contracts of the normalizations (src/shape/ops/normalization.rs: BatchNormalization,
InstanceNormalization, GroupNormalization, LpNormalization, LRN) and of the axis-taking ops of
src/shape/ops/elementwise_unary.rs (Softmax, LogSoftmax, Hardmax, CumSum, Trilu, ReverseSequence)."""

import numpy as np
from nodecase import Case, In

BN, IN, GN = "BatchNormalization", "InstanceNormalization", "GroupNormalization"
I64 = "int64"
# A [0, 3] input, fed to an input declared [?, 3].
EMPTY = np.zeros((0, 3), "float32")
UNDECLARED = {0: "the input's first size is declared unknown"}


def case(name, op, inputs, contract, **kw):
    return Case(name, op, inputs, domain="", opset=kw.pop("opset", 17), contract=contract, **kw)


def p(shape, fill=1.0):
    """A constant parameter (positive: a variance)."""
    n = 1
    for d in shape:
        n *= d
    values = [fill + 0.25 * k for k in range(n)]
    return In(shape, value=_reshape(values, shape), const=True)


def _reshape(values, shape):
    if not shape:
        return values[0]
    if len(shape) == 1:
        return values
    step = len(values) // shape[0]
    return [_reshape(values[k * step : (k + 1) * step], shape[1:]) for k in range(shape[0])]


def bn(x, shapes, opset, **kw):
    return [In(x)] + [p(s) for s in shapes]


def axis(v, shape=None):
    return In([] if shape is None else shape, I64, value=v, const=True)


CASES = []

# batch-norm-stats: 1-D of C (1 for a 1-D X); per activation with spatial=0 before 9. onnxruntime's
# kernel checks at run from 7 (it has none before); onnx's inference at load from 14.
for opset in [7, 9, 14, 15]:
    CASES += [
        case(f"BatchNormalization-{opset}/stats", BN, bn([2, 3, 4, 4], [[3]] * 4, opset), "batch-norm-stats", opset=opset),
        case(f"BatchNormalization-{opset}/stats-2d", BN, bn([2, 3], [[3]] * 4, opset), "batch-norm-stats", opset=opset),
        case(f"BatchNormalization-{opset}/stats-1d", BN, bn([3], [[1]] * 4, opset), "batch-norm-stats", opset=opset),
        case(
            f"BatchNormalization-{opset}/stats-symbolic",
            BN,
            [In(["n", 3, "h"])] + [p([3])] * 4,
            "batch-norm-stats",
            opset=opset,
            bind={"n": 2, "h": 5},
        ),
        case(
            f"BatchNormalization-{opset}/stats-scale-length",
            BN,
            bn([2, 3, 4, 4], [[4], [3], [3], [3]], opset),
            "batch-norm-stats",
            opset=opset,
            fault=True,
        ),
        case(
            f"BatchNormalization-{opset}/stats-var-length",
            BN,
            bn([2, 3, 4, 4], [[3], [3], [3], [2]], opset),
            "batch-norm-stats",
            opset=opset,
            fault=True,
        ),
        case(
            f"BatchNormalization-{opset}/stats-bias-rank",
            BN,
            bn([2, 3, 4, 4], [[3], [3, 1], [3], [3]], opset),
            "batch-norm-stats",
            opset=opset,
            fault=True,
        ),
        case(
            f"BatchNormalization-{opset}/stats-1d-x",
            BN,
            bn([3], [[3]] * 4, opset),
            "batch-norm-stats",
            opset=opset,
            fault=True,
        ),
        case(
            f"BatchNormalization-{opset}/stats-empty-batch",
            BN,
            bn([0, 3, 4, 4], [[4], [3], [3], [3]], opset),
            "batch-norm-stats",
            opset=opset,
            fault=True,
        ),
    ]
CASES += [
    case(
        "BatchNormalization-7/stats-per-activation",
        BN,
        bn([2, 3, 4, 4], [[3, 4, 4]] * 4, 7),
        "batch-norm-stats",
        attrs={"spatial": 0},
        opset=7,
    ),
    case(
        "BatchNormalization-7/stats-per-activation-size",
        BN,
        bn([2, 3, 4, 4], [[3, 4, 5]] * 4, 7),
        "batch-norm-stats",
        attrs={"spatial": 0},
        opset=7,
        fault=True,
    ),
    case(
        "BatchNormalization-7/stats-per-activation-rank",
        BN,
        bn([2, 3, 4, 4], [[3]] * 4, 7),
        "batch-norm-stats",
        attrs={"spatial": 0},
        opset=7,
        fault=True,
    ),
    case(
        "BatchNormalization-7/stats-spatial-rank",
        BN,
        bn([2, 3, 4, 4], [[3, 4, 4]] * 4, 7),
        "batch-norm-stats",
        attrs={"spatial": 1},
        opset=7,
        fault=True,
    ),
    case(
        "BatchNormalization-15/stats-symbolic-fault",
        BN,
        [In([2, "c", 4]), In(["k"]), In(["k"]), In(["k"]), In(["k"], value=[1.0, 2.0, 3.0])],
        "batch-norm-stats",
        opset=15,
        bind={"c": 4, "k": 3},
        fault=True,
        symbolic_fault=True,
    ),
]

# instance-norm-rank, instance-norm-scale-bias: the kernel, at run.
CASES += [
    case("InstanceNormalization/rank", IN, [In([2, 3, 4]), p([3]), p([3])], "instance-norm-rank"),
    case("InstanceNormalization/rank-5", IN, [In([1, 3, 2, 2, 2]), p([3]), p([3])], "instance-norm-rank", opset=22),
    case("InstanceNormalization/rank-2", IN, [In([2, 3]), p([3]), p([3])], "instance-norm-rank", fault=True),
    case("InstanceNormalization/rank-1", IN, [In([3]), p([3]), p([3])], "instance-norm-rank", fault=True),
    case("InstanceNormalization/scale-bias", IN, [In(["n", 3, 4]), p([3]), p([3])], "instance-norm-scale-bias", bind={"n": 2}),
    case("InstanceNormalization/scale-length", IN, [In([2, 3, 4]), p([4]), p([3])], "instance-norm-scale-bias", fault=True),
    case("InstanceNormalization/bias-length", IN, [In([2, 3, 4]), p([3]), p([2])], "instance-norm-scale-bias", fault=True),
    case("InstanceNormalization/scale-rank", IN, [In([2, 3, 4]), p([1, 3]), p([3])], "instance-norm-scale-bias", fault=True),
    case(
        "InstanceNormalization/scale-length-empty-batch",
        IN,
        [In([0, 3, 4]), p([4]), p([3])],
        "instance-norm-scale-bias",
        fault=True,
    ),
    case(
        "InstanceNormalization/scale-bias-symbolic-fault",
        IN,
        [In([2, "c", 4]), In(["k"]), In(["k"])],
        "instance-norm-scale-bias",
        bind={"c": 3, "k": 4},
        fault=True,
        symbolic_fault=True,
    ),
]

# GroupNormalization: no CPU kernel; what its function body refuses.
for opset, per in [(18, 3), (21, 6)]:
    g3 = {"num_groups": 3}
    CASES += [
        case(f"GroupNormalization-{opset}/rank", GN, [In([2, 6, 4]), p([per]), p([per])], "group-norm-rank", attrs=g3, opset=opset),
        case(f"GroupNormalization-{opset}/rank-2", GN, [In([2, 6]), p([per]), p([per])], "group-norm-rank", attrs=g3, opset=opset),
        case(f"GroupNormalization-{opset}/rank-1", GN, [In([6]), p([per]), p([per])], "group-norm-rank", attrs=g3, opset=opset, fault=True),
        case(f"GroupNormalization-{opset}/groups", GN, [In([2, 6, 2, 2]), p([per]), p([per])], "group-norm-groups", attrs=g3, opset=opset),
        case(
            f"GroupNormalization-{opset}/groups-equal-channels",
            GN,
            [In([2, 6, 4]), p([6]), p([6])],
            "group-norm-groups",
            attrs={"num_groups": 6},
            opset=opset,
        ),
        case(
            f"GroupNormalization-{opset}/groups-indivisible",
            GN,
            [In([2, 7, 4]), p([7 if opset == 21 else 3]), p([7 if opset == 21 else 3])],
            "group-norm-groups",
            attrs=g3,
            opset=opset,
            fault=True,
        ),
        case(
            f"GroupNormalization-{opset}/groups-more-than-channels",
            GN,
            [In([2, 2, 4]), p([2 if opset == 21 else 4]), p([2 if opset == 21 else 4])],
            "group-norm-groups",
            attrs={"num_groups": 4},
            opset=opset,
            fault=True,
        ),
        case(
            f"GroupNormalization-{opset}/groups-symbolic-fault",
            GN,
            [In([2, "c", 4]), p([1]), p([1])],
            "group-norm-groups",
            attrs=g3,
            opset=opset,
            bind={"c": 7},
            fault=True,
            symbolic_fault=True,
        ),
        case(f"GroupNormalization-{opset}/scale-bias", GN, [In(["n", 6, 4]), p([per]), p([per])], "group-norm-scale-bias", attrs=g3, opset=opset, bind={"n": 3}),
        # One value broadcasts, a scalar too, and the count is what counts, not the rank.
        case(f"GroupNormalization-{opset}/scale-bias-one", GN, [In([2, 6, 4]), p([1]), p([])], "group-norm-scale-bias", attrs=g3, opset=opset),
        case(f"GroupNormalization-{opset}/scale-bias-2d", GN, [In([2, 6, 4]), p([1, per]), p([per])], "group-norm-scale-bias", attrs=g3, opset=opset),
        case(
            f"GroupNormalization-{opset}/scale-bias-mixed",
            GN,
            [In([2, 6, 4]), p([per]), p([1])],
            "group-norm-scale-bias",
            attrs=g3,
            opset=opset,
        ),
        case(
            f"GroupNormalization-{opset}/scale-bias-other-version",
            GN,
            [In([2, 6, 4]), p([9 - per]), p([9 - per])],
            "group-norm-scale-bias",
            attrs=g3,
            opset=opset,
            fault=True,
        ),
        case(
            f"GroupNormalization-{opset}/scale-bias-length",
            GN,
            [In([2, 6, 4]), p([4]), p([4])],
            "group-norm-scale-bias",
            attrs=g3,
            opset=opset,
            fault=True,
        ),
        case(
            f"GroupNormalization-{opset}/bias-length",
            GN,
            [In([2, 6, 4]), p([per]), In([2])],
            "group-norm-scale-bias",
            attrs=g3,
            opset=opset,
            fault=True,
        ),
        case(
            f"GroupNormalization-{opset}/scale-one-group-channels",
            GN,
            [In([2, 6, 4]), p([6]), p([6])],
            "group-norm-scale-bias",
            attrs={"num_groups": 1},
            opset=opset,
            fault=opset == 18,
        ),
    ]
CASES += [
    case(
        "GroupNormalization-21/scale-bias-symbolic-fault",
        GN,
        [In([2, "c", 4]), p([6]), p([6])],
        "group-norm-scale-bias",
        attrs={"num_groups": 1},
        opset=21,
        bind={"c": 5},
        fault=True,
        symbolic_fault=True,
    ),
]

# lp-norm-axis: the kernel, at run, even on an empty input.
LP = "LpNormalization"
CASES += [
    case("LpNormalization/axis", LP, [In([2, 3])], "lp-norm-axis", attrs={"axis": -2}),
    case("LpNormalization/axis-default", LP, [In(["n", 3])], "lp-norm-axis", bind={"n": 2}),
    case("LpNormalization/axis-past", LP, [In([2, 3])], "lp-norm-axis", attrs={"axis": 2}, fault=True),
    case("LpNormalization/axis-before", LP, [In([2, 3])], "lp-norm-axis", attrs={"axis": -3}, fault=True),
    case("LpNormalization/axis-empty", LP, [In([0, 3])], "lp-norm-axis", attrs={"axis": 2}, fault=True),
    case("LpNormalization/axis-scalar", LP, [In([])], "lp-norm-axis", fault=True),
]

# lrn-rank: onnxruntime's kernel runs 4-D only.
CASES += [
    case("LRN/rank", "LRN", [In([1, 3, 4, 4])], "lrn-rank", attrs={"size": 3}),
    case("LRN/rank-3", "LRN", [In([1, 3, 4])], "lrn-rank", attrs={"size": 3}, fault=True),
    case("LRN/rank-5", "LRN", [In([1, 3, 2, 2, 2])], "lrn-rank", attrs={"size": 3}, opset=13, fault=True),
    case("LRN/rank-3-empty", "LRN", [In([0, 3, 4])], "lrn-rank", attrs={"size": 3}, fault=True),
]
# lrn-size: odd and at least 1 (the kernel's constructor, at load).
CASES += [
    case("LRN/size-1", "LRN", [In([1, 3, 4, 4])], "lrn-size", attrs={"size": 1}),
    case("LRN/size-5", "LRN", [In([1, 3, 4, 4])], "lrn-size", attrs={"size": 5}),
    case("LRN/size-even", "LRN", [In([1, 3, 4, 4])], "lrn-size", attrs={"size": 4}, fault=True),
    case("LRN/size-0", "LRN", [In([1, 3, 4, 4])], "lrn-size", attrs={"size": 0}, fault=True),
    case("LRN/size-negative", "LRN", [In([1, 3, 4, 4])], "lrn-size", attrs={"size": -3}, opset=13, fault=True),
]

# softmax-axis: onnx's inference from 11 (at load, whatever the sizes); the kernel before, which skips
# an empty input.
for op in ["Softmax", "LogSoftmax", "Hardmax"]:
    for opset in [1, 11, 13]:
        CASES += [
            case(f"{op}-{opset}/axis", op, [In([2, 3])], "softmax-axis", attrs={"axis": -2}, opset=opset),
            case(f"{op}-{opset}/axis-past", op, [In([2, 3])], "softmax-axis", attrs={"axis": 2}, opset=opset, fault=True),
            case(f"{op}-{opset}/axis-before", op, [In(["n", 3])], "softmax-axis", attrs={"axis": -3}, opset=opset, bind={"n": 2}, fault=True),
            case(f"{op}-{opset}/axis-scalar", op, [In([])], "softmax-axis", opset=opset, fault=True),
        ]
    CASES += [
        case(f"{op}-1/axis-empty", op, [In([0, 3])], "softmax-axis", attrs={"axis": 2}, opset=1),
        # An unknown size may be 0 (a symbol stands for 1 or more).
        case(f"{op}-1/axis-may-be-empty", op, [In([None, 3], value=EMPTY)], "softmax-axis", attrs={"axis": 2}, opset=1, unknown_ok=UNDECLARED),
        case(f"{op}-13/axis-empty", op, [In([0, 3])], "softmax-axis", attrs={"axis": 2}, opset=13, fault=True),
        case(f"{op}-11/axis-default", op, [In([2, 3, 4])], "softmax-axis", opset=11),
    ]

# cumsum-axis: the kernel, at run; no axis read on an empty input.
CS = "CumSum"
for opset in [11, 14]:
    CASES += [
        case(f"CumSum-{opset}/axis", CS, [In([2, 3]), axis(-2)], "cumsum-axis", opset=opset),
        case(f"CumSum-{opset}/axis-1d", CS, [In([2, 3]), axis([1], [1])], "cumsum-axis", opset=opset),
        case(f"CumSum-{opset}/axis-empty", CS, [In([0, 3]), axis(2)], "cumsum-axis", opset=opset),
        case(f"CumSum-{opset}/axis-may-be-empty", CS, [In([None, 3], value=EMPTY), axis([0, 1], [2])], "cumsum-axis", opset=opset, unknown_ok=UNDECLARED),
        case(f"CumSum-{opset}/axis-past", CS, [In([2, 3]), axis(2)], "cumsum-axis", opset=opset, fault=True),
        case(f"CumSum-{opset}/axis-before", CS, [In(["n", 3]), axis(-3)], "cumsum-axis", opset=opset, bind={"n": 2}, fault=True),
        case(f"CumSum-{opset}/axis-two-values", CS, [In([2, 3]), axis([0, 1], [2])], "cumsum-axis", opset=opset, fault=True),
        case(f"CumSum-{opset}/axis-matrix", CS, [In([2, 3]), axis([[0]], [1, 1])], "cumsum-axis", opset=opset, fault=True),
        case(f"CumSum-{opset}/axis-scalar-input", CS, [In([]), axis(0)], "cumsum-axis", opset=opset, fault=True),
    ]

# trilu-rank: onnx's inference, at load.
CASES += [
    case("Trilu/rank", "Trilu", [In([2, 3])], "trilu-rank", opset=14),
    case("Trilu/rank-3", "Trilu", [In([2, 3, 3]), axis(1)], "trilu-rank", opset=14),
    case("Trilu/rank-1", "Trilu", [In([3])], "trilu-rank", opset=14, fault=True),
    case("Trilu/rank-1-symbolic", "Trilu", [In(["n"])], "trilu-rank", opset=14, bind={"n": 3}, fault=True),
    case("Trilu/rank-0", "Trilu", [In([])], "trilu-rank", opset=14, fault=True),
]

# ReverseSequence: ranks at load, the batch size and the values at run.
RS = "ReverseSequence"
TB = {"batch_axis": 1, "time_axis": 0}
BT = {"batch_axis": 0, "time_axis": 1}


def lens(v, fed=False):
    return In([len(v)], I64, value=v, const=not fed)


CASES += [
    case("ReverseSequence/rank", RS, [In([4, 2]), lens([1, 3])], "reverse-sequence-rank", attrs=TB),
    case("ReverseSequence/rank-1", RS, [In([4]), lens([1])], "reverse-sequence-rank", attrs=TB, fault=True),
    case("ReverseSequence/lens", RS, [In([4, 2, 3]), lens([1, 4])], "reverse-sequence-lens", attrs=TB),
    case("ReverseSequence/lens-batch-major", RS, [In([2, 4, 3]), lens([0, 4])], "reverse-sequence-lens", attrs=BT),
    case("ReverseSequence/lens-long", RS, [In([4, 2, 3]), lens([1, 4, 2])], "reverse-sequence-lens", attrs=TB, fault=True),
    case("ReverseSequence/lens-short-batch-major", RS, [In([2, 4, 3]), lens([1])], "reverse-sequence-lens", attrs=BT, fault=True),
    case("ReverseSequence/lens-fed", RS, [In([4, 2, 3]), lens([1, 1, 1], fed=True)], "reverse-sequence-lens", attrs=TB, fault=True),
    case(
        "ReverseSequence/lens-matrix",
        RS,
        [In([4, 2, 3]), In([1, 2], I64, value=[[1, 4]], const=True)],
        "reverse-sequence-lens",
        attrs=TB,
        fault=True,
    ),
    case(
        "ReverseSequence/lens-scalar",
        RS,
        [In([4, 1, 3]), In([], I64, value=1, const=True)],
        "reverse-sequence-lens",
        attrs=TB,
        fault=True,
    ),
    case(
        "ReverseSequence/lens-symbolic-fault",
        RS,
        [In([4, "b", 3]), In(["k"], I64, value=[1, 2, 3])],
        "reverse-sequence-lens",
        attrs=TB,
        bind={"b": 2, "k": 3},
        fault=True,
        symbolic_fault=True,
    ),
    # Negative axes pass onnxruntime's constructor and are read its own way: not checked.
    case(
        "ReverseSequence/lens-negative-axis",
        RS,
        [In([4, 2, 3]), lens([1, 4])],
        "reverse-sequence-lens",
        attrs={"batch_axis": -1, "time_axis": 0},
    ),
    case("ReverseSequence/lens-values", RS, [In([4, 2, 3]), lens([0, 4])], "reverse-sequence-lens-values", attrs=TB),
    case(
        "ReverseSequence/lens-values-past",
        RS,
        [In([4, 2, 3]), lens([1, 5])],
        "reverse-sequence-lens-values",
        attrs=TB,
        fault=True,
    ),
    case(
        "ReverseSequence/lens-values-negative",
        RS,
        [In([2, 4, 3]), lens([-1, 2])],
        "reverse-sequence-lens-values",
        attrs=BT,
        fault=True,
    ),
]
