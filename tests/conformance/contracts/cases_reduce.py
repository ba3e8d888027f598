"""Contracts of the reductions (src/shape/ops/reduce.rs): the Reduce* family (attribute axes before opset 18,
ReduceSum before 13; input axes after), ArgMax/ArgMin and TopK."""

from nodecase import Case, In

I64 = "int64"
REDUCE = [
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceMax",
    "ReduceMean",
    "ReduceMin",
    "ReduceProd",
    "ReduceSum",
    "ReduceSumSquare",
]


def case(name, op, inputs, contract, **kw):
    return Case(name, op, inputs, domain="", opset=kw.pop("opset", 17), contract=contract, **kw)


def reduction(name, op, opset, shape, axes, **kw):
    """A reduction of an input shaped `shape` over `axes`: an attribute before the opset that made it an
    input (13 for ReduceSum, 18 for the others), a constant input from it."""
    since = 13 if op == "ReduceSum" else 18
    attrs = dict(kw.pop("attrs", {}))
    inputs = [In(shape)]
    if opset < since:
        attrs["axes"] = axes
    else:
        inputs.append(In([len(axes)], I64, value=axes, const=True))
    return case(f"{op}-{opset}/{name}", op, inputs, "reduce-axes", opset=opset, attrs=attrs, **kw)


CASES = []

# reduce-axes: every axis inside the rank. At load from opset 11 (ReduceMax and ReduceMin from 12), at run
# before; the kernel ignores the axes of a scalar or an empty input (opset 1 and ReduceMax/ReduceMin-11,
# where onnx's inference does not check them at load, show it).
for op in REDUCE:
    for opset in [1, 11, 13, 18]:
        CASES += [
            reduction("axes", op, opset, ["n", 3, 4], [0, -1], bind={"n": 2}),
            reduction("axes-past", op, opset, [3, 4], [2], fault=True),
            reduction("axes-below", op, opset, [3, 4], [1, -3], fault=True),
        ]
    CASES += [
        reduction("axes-repeated", op, 18, [3, 4], [1, -1], attrs={"keepdims": 0}),
        reduction("axes-scalar-ignored", op, 1, [], [2]),
        reduction("axes-empty-ignored", op, 1, [0, 4], [2], unknown_ok={0: "onnxruntime keeps the axes unnormalized"}),
    ]
for op in ["ReduceMax", "ReduceMin"]:
    CASES += [
        reduction("axes-past", op, 12, [3, 4], [2], fault=True),
        reduction("axes-past", op, 20, [3, 4], [2], fault=True),
        reduction("axes-scalar-ignored", op, 11, [], [5]),
        reduction("axes-empty-ignored", op, 11, [2, 0], [-3], unknown_ok={0: "onnxruntime keeps the axes unnormalized"}),
    ]
CASES += [
    reduction("axes-noop-empty", "ReduceSum", 13, [3, 4], [], attrs={"noop_with_empty_axes": 1}),
    reduction("axes-keepdims", "ReduceMean", 18, ["b", "s", 8], [-1], bind={"b": 2, "s": 5}),
]

# arg-reduce-axis: inside the rank (load from opset 11, run at 1); the kernel ignores a scalar's axis.
for op in ["ArgMax", "ArgMin"]:
    for opset in [1, 11, 12, 13]:
        CASES += [
            case(f"{op}-{opset}/axis", op, [In(["n", 4])], "arg-reduce-axis", opset=opset, attrs={"axis": -2},
                 bind={"n": 3}),
            case(f"{op}-{opset}/axis-past", op, [In([3, 4])], "arg-reduce-axis", opset=opset, attrs={"axis": 2},
                 fault=True),
            case(f"{op}-{opset}/axis-below", op, [In([3, 4])], "arg-reduce-axis", opset=opset,
                 attrs={"axis": -3, "keepdims": 0}, fault=True),
        ]
    CASES += [
        case(f"{op}-1/axis-scalar-ignored", op, [In([])], "arg-reduce-axis", opset=1, attrs={"axis": 1}),
        case(f"{op}-1/axis-scalar-default", op, [In([])], "arg-reduce-axis", opset=1),
        # arg-reduce-empty: no index in an empty axis (run), unless the output is empty too.
        case(f"{op}-13/empty-axis", op, [In(["n", 0])], "arg-reduce-empty", opset=13, attrs={"axis": 1}, bind={"n": 2},
             fault=True),
        case(f"{op}-11/empty-axis", op, [In([2, 0])], "arg-reduce-empty", opset=11, attrs={"axis": 1, "keepdims": 0},
             fault=True),
        # A negative axis on an empty input: the kernel passes the input's shape through and runs (its own
        # quirk: the output is [2, 0], not the reduced shape), so it is left out.
        case(f"{op}-13/empty-other-axis", op, [In([2, 0])], "arg-reduce-empty", opset=13, attrs={"axis": 0}),
        case(f"{op}-13/empty-axis-empty-output", op, [In([0, 0])], "arg-reduce-empty", opset=13, attrs={"axis": 1}),
    ]

TOPK = "TopK"


def k(v, **kw):
    return In([1], I64, value=[v], const=kw.pop("const", True), **kw)


CASES += [
    # top-k-axis (load).
    case("TopK-1/axis", TOPK, [In([3, 4])], "top-k-axis", opset=1, outputs=2, attrs={"k": 2, "axis": 0}),
    case("TopK-1/axis-past", TOPK, [In([3, 4])], "top-k-axis", opset=1, outputs=2, attrs={"k": 1, "axis": 2},
         fault=True),
    case("TopK/axis-negative", TOPK, [In([3, 4]), k(2)], "top-k-axis", outputs=2, attrs={"axis": -2}),
    case("TopK/axis-past", TOPK, [In([3, 4]), k(1)], "top-k-axis", outputs=2, attrs={"axis": 2}, fault=True),
    case("TopK/axis-below", TOPK, [In([3, 4]), k(1)], "top-k-axis", outputs=2, attrs={"axis": -3}, fault=True),
    case("TopK/axis-scalar", TOPK, [In([]), k(1)], "top-k-axis", outputs=2, fault=True),
    # top-k-k: k <= the axis's size; 1 or more as TopK-1's attribute (load), 0 or more as an input.
    case("TopK-1/k-equal", TOPK, [In([3, 4])], "top-k-k", opset=1, outputs=2, attrs={"k": 4}),
    case("TopK-1/k-past", TOPK, [In([3, 4])], "top-k-k", opset=1, outputs=2, attrs={"k": 5}, fault=True),
    case("TopK-1/k-zero", TOPK, [In([3, 4])], "top-k-k", opset=1, outputs=2, attrs={"k": 0}, fault=True),
    case("TopK-1/k-empty-axis", TOPK, [In([3, 0])], "top-k-k", opset=1, outputs=2, attrs={"k": 1}, fault=True),
    case("TopK-10/k-equal", TOPK, [In([3, 4]), k(4)], "top-k-k", opset=10, outputs=2),
    case("TopK-10/k-zero", TOPK, [In([3, 4]), k(0)], "top-k-k", opset=10, outputs=2),
    case("TopK/k-equal-symbolic-batch", TOPK, [In(["n", 4]), k(4)], "top-k-k", outputs=2, bind={"n": 2}),
    case("TopK/k-zero", TOPK, [In([3, 4]), k(0)], "top-k-k", outputs=2, attrs={"largest": 0}),
    case("TopK-10/k-past", TOPK, [In([3, 4]), k(5)], "top-k-k", opset=10, outputs=2, fault=True),
    case("TopK/k-past", TOPK, [In([3, 4]), k(5)], "top-k-k", outputs=2, fault=True),
    case("TopK/k-past-empty-input", TOPK, [In([0, 4]), k(5)], "top-k-k", outputs=2, fault=True),
    case("TopK/k-past-axis", TOPK, [In([3, 4]), k(4)], "top-k-k", outputs=2, attrs={"axis": 0}, fault=True),
    case("TopK/k-negative", TOPK, [In([3, 4]), k(-1)], "top-k-k", outputs=2, fault=True),
    # top-k-k-shape: K of shape [1]; a scalar is refused (at load when constant, at run when fed).
    case("TopK/k-shape", TOPK, [In([3, 4]), In([1], I64, value=[2])], "top-k-k-shape", outputs=2,
         unknown_ok={0: "K is fed: its value is not known", 1: "K is fed"}),
    case("TopK-10/k-shape-scalar", TOPK, [In([3, 4]), In([], I64, value=2, const=True)], "top-k-k-shape", opset=10,
         outputs=2, fault=True),
    case("TopK/k-shape-scalar", TOPK, [In([3, 4]), In([], I64, value=2, const=True)], "top-k-k-shape", outputs=2,
         fault=True),
    case("TopK/k-shape-scalar-fed", TOPK, [In([3, 4]), In([], I64, value=2)], "top-k-k-shape", outputs=2,
         fault=True),
    case("TopK/k-shape-two", TOPK, [In([3, 4]), In([2], I64, value=[2, 2])], "top-k-k-shape", outputs=2,
         fault=True),
    case("TopK/k-shape-matrix", TOPK, [In([3, 4]), In([1, 1], I64, value=[[2]])], "top-k-k-shape", outputs=2,
         fault=True),
    case("TopK/k-shape-symbolic", TOPK, [In([3, 4]), In(["j"], I64, value=[2, 2])], "top-k-k-shape", outputs=2,
         bind={"j": 2}, fault=True, symbolic_fault=True),
]
