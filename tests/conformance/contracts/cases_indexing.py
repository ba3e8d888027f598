"""Contracts of the indexing operators (src/shape/ops/indexing.rs): Gather, GatherElements, GatherND
(and com.microsoft's), Scatter, ScatterElements, ScatterND, Compress, OneHot."""

from nodecase import Case, In

I64 = "int64"
BOOL = "bool"
G, GE, GND = "Gather", "GatherElements", "GatherND"
SE, SND = "ScatterElements", "ScatterND"


def case(name, op, inputs, contract, **kw):
    return Case(name, op, inputs, domain=kw.pop("domain", ""), opset=kw.pop("opset", 17), contract=contract, **kw)


def idx(values, const=True):
    """Indices whose values the case fixes (an initializer unless `const=False`)."""
    import numpy as np

    a = np.asarray(values, dtype=I64)
    return In(list(a.shape), I64, value=a, const=const)


ON_OFF = In([2], value=[0.0, 1.0], const=True)


CASES = [
    # gather-axis: inside the data's rank (load).
    case("Gather/axis-last", G, [In([3, 4]), idx([0, 2])], "gather-axis", attrs={"axis": 1}),
    case("Gather/axis-negative", G, [In([3, 4]), idx([1])], "gather-axis", attrs={"axis": -2}),
    case("Gather/axis-past-rank", G, [In([3, 4]), idx([0])], "gather-axis", attrs={"axis": 2}, fault=True),
    case("Gather/axis-below-rank", G, [In([3, 4]), idx([0])], "gather-axis", attrs={"axis": -3}, fault=True),
    case("Gather/axis-scalar-data", G, [In([]), idx([0])], "gather-axis", fault=True),
    case("Gather-1/axis-past-rank", G, [In([3, 4]), idx([0])], "gather-axis", attrs={"axis": 2}, opset=1, fault=True),
    # gather-indices: in [-d, d-1] (run); negative ones count from the end, at every opset.
    case("Gather/indices-negative", G, [In([3, 4]), idx([-3, 2])], "gather-indices"),
    case("Gather-1/indices-negative", G, [In([3, 4]), idx([-3, 2])], "gather-indices", opset=1),
    case("Gather-11/indices-negative", G, [In([3, 4]), idx([[-1, 0]])], "gather-indices", opset=11, attrs={"axis": 1}),
    case("Gather/indices-scalar", G, [In(["n", 4]), idx(3)], "gather-indices", attrs={"axis": 1}, bind={"n": 2}),
    case("Gather/indices-empty", G, [In([3, 4]), idx([])], "gather-indices"),
    case("Gather/indices-past", G, [In([3, 4]), idx([0, 3])], "gather-indices", fault=True),
    case("Gather/indices-below", G, [In([3, 4]), idx([-4])], "gather-indices", fault=True),
    case("Gather-1/indices-past", G, [In([3, 4]), idx([5])], "gather-indices", opset=1, fault=True),
    case("Gather/indices-past-symbolic-data", G, [In(["n", 4]), idx([4])], "gather-indices",
         attrs={"axis": 1}, bind={"n": 2}, fault=True),
    case("Gather/indices-empty-axis", G, [In([0, 4]), idx([0])], "gather-indices", fault=True),
    case("Gather/indices-other-axis-empty", G, [In([3, 0]), idx([3])], "gather-indices", fault=True),
    # gather-elements-axis (run).
    case("GatherElements/axis", GE, [In([3, 4]), In([3, 2], I64, high=4)], "gather-elements-axis", attrs={"axis": -1}),
    case("GatherElements/axis-past", GE, [In([3, 4]), In([3, 4], I64)], "gather-elements-axis", attrs={"axis": 2},
         fault=True),
    case("GatherElements/axis-scalar", GE, [In([]), In([], I64)], "gather-elements-axis", fault=True),
    # gather-elements-rank (run).
    case("GatherElements/rank", GE, [In([3, 4]), In([2, 4], I64, high=3)], "gather-elements-rank"),
    case("GatherElements/rank-lower", GE, [In([3, 4]), In([3], I64)], "gather-elements-rank", fault=True),
    case("GatherElements/rank-higher", GE, [In([3]), In([3, 1], I64)], "gather-elements-rank", fault=True),
    # gather-elements-shape: no longer than the data on the other axes; the axis itself may be longer.
    case("GatherElements/shape-longer-on-axis", GE, [In([3, 4]), In([7, 4], I64, high=3)], "gather-elements-shape"),
    case("GatherElements/shape-shorter", GE, [In(["n", 4]), In([2, 1], I64, high=3)], "gather-elements-shape",
         bind={"n": 3}),
    case("GatherElements/shape-longer", GE, [In([3, 4]), In([2, 5], I64)], "gather-elements-shape", fault=True),
    case("GatherElements/shape-longer-axis1", GE, [In([3, 4]), In([4, 2], I64)], "gather-elements-shape",
         attrs={"axis": 1}, fault=True),
    case("GatherElements/shape-empty-data", GE, [In([3, 0]), In([2, 1], I64)], "gather-elements-shape", fault=True),
    # gather-elements-indices (run).
    case("GatherElements/indices-negative", GE, [In([3]), idx([0, -3, 2, 1])], "gather-elements-indices"),
    case("GatherElements/indices-past", GE, [In([3]), idx([0, 3])], "gather-elements-indices", fault=True),
    case("GatherElements/indices-below", GE, [In([3]), idx([-4])], "gather-elements-indices", fault=True),
    # gather-nd-rank (load).
    case("GatherND/rank", GND, [In([3, 4]), idx([[1], [2]])], "gather-nd-rank"),
    case("GatherND/rank-scalar-indices", GND, [In([3, 4]), In([], I64, value=0)], "gather-nd-rank", fault=True),
    case("GatherND/rank-scalar-data", GND, [In([]), In([1], I64, value=[0])], "gather-nd-rank", fault=True),
    # gather-nd-depth: batch_dims + indices.shape[-1] <= rank(data) (load).
    case("GatherND/depth-full", GND, [In([3, 4]), In([5, 2], I64, high=3)], "gather-nd-depth"),
    case("GatherND/depth-zero", GND, [In([3, 4]), In([2, 0], I64)], "gather-nd-depth"),
    case("GatherND/depth-batch", GND, [In([3, 4, 5]), In([3, 2, 2], I64, high=4)], "gather-nd-depth",
         attrs={"batch_dims": 1}),
    case("GatherND/depth-past", GND, [In([3, 4]), In([1, 3], I64)], "gather-nd-depth", fault=True),
    case("GatherND/depth-past-batch", GND, [In([3, 4]), In([3, 2], I64)], "gather-nd-depth",
         attrs={"batch_dims": 1}, fault=True),
    case("GatherND/depth-ms", GND, [In([3, 4]), In([1, 3], I64)], "gather-nd-depth", domain="com.microsoft",
         opset=17, fault=True),
    # gather-nd-batch: onnxruntime takes the indices' batch size in blocks of the data's (run); the spec's
    # equal batch axes are not required.
    case("GatherND/batch-equal", GND, [In(["b", 4]), In(["b", 1], I64, high=4)], "gather-nd-batch",
         attrs={"batch_dims": 1}, bind={"b": 3}),
    case("GatherND/batch-multiple", GND, [In([3, 4]), In([6, 1], I64, high=4)], "gather-nd-batch",
         attrs={"batch_dims": 1}),
    case("GatherND/batch-two-axes", GND, [In([2, 3, 4]), In([3, 2, 1], I64, high=4)], "gather-nd-batch",
         attrs={"batch_dims": 2}),
    case("GatherND/batch-indices-empty", GND, [In([3, 4]), In([0, 1], I64)], "gather-nd-batch",
         attrs={"batch_dims": 1}),
    case("GatherND/batch-data-one", GND, [In([1, 4]), In(["b", 1], I64, high=4)], "gather-nd-batch",
         attrs={"batch_dims": 1}, bind={"b": 3}),
    case("GatherND/batch-not-multiple", GND, [In([3, 4]), In([2, 1], I64)], "gather-nd-batch",
         attrs={"batch_dims": 1}, fault=True),
    case("GatherND/batch-fewer", GND, [In([3, 4]), In([1, 1], I64)], "gather-nd-batch",
         attrs={"batch_dims": 1}, fault=True),
    case("GatherND/batch-data-empty", GND, [In([0, 4]), In([3, 1], I64)], "gather-nd-batch",
         attrs={"batch_dims": 1}, fault=True),
    # Nothing is checked when the output is empty.
    case("GatherND/batch-both-empty", GND, [In([0, 4]), In([0, 1], I64)], "gather-nd-batch",
         attrs={"batch_dims": 1}),
    case("GatherND/batch-output-empty", GND, [In([2, 4, 0]), In([1, 1], I64)], "gather-nd-batch",
         attrs={"batch_dims": 1}),
    case("GatherND/batch-data-empty-output-empty", GND, [In([0, 4]), In([3, 0, 1], I64)], "gather-nd-batch",
         attrs={"batch_dims": 1}),
    case("GatherND/batch-symbolic", GND, [In([2, 4]), In(["b", 1], I64)], "gather-nd-batch",
         attrs={"batch_dims": 1}, bind={"b": 3}, fault=True, symbolic_fault=True),
]

# The scatters: Scatter-9 and ScatterElements at 11 (no reduction), 16 and 18 (reduction).
for op, opset in [("Scatter", 9), (SE, 11), (SE, 18)]:
    n = f"{op}-{opset}"

    def sc(name, inputs, contract, **kw):
        return case(f"{n}/{name}", op, inputs, contract, opset=opset, **kw)

    CASES += [
        # scatter-elements-axis (run).
        sc("axis", [In([3, 4]), In([3, 2], I64, high=4), In([3, 2])], "scatter-elements-axis", attrs={"axis": -1}),
        sc("axis-past", [In([3, 4]), In([2, 4], I64), In([2, 4])], "scatter-elements-axis", attrs={"axis": 2},
           fault=True),
        sc("axis-below", [In([3, 4]), In([2, 4], I64), In([2, 4])], "scatter-elements-axis", attrs={"axis": -3},
           fault=True),
        # scatter-elements-updates: the indices' shape (run), an empty one too.
        sc("updates", [In([3, 4]), In(["n", 4], I64, high=3), In(["n", 4])], "scatter-elements-updates",
           bind={"n": 2}),
        sc("updates-axis", [In([3, 4]), In([2, 4], I64, high=3), In([2, 3])], "scatter-elements-updates", fault=True),
        sc("updates-rank", [In([3, 4]), In([2, 4], I64, high=3), In([8])], "scatter-elements-updates", fault=True),
        sc("updates-empty", [In([3, 4]), In([0, 4], I64), In([0, 3])], "scatter-elements-updates", fault=True),
        sc("updates-symbolic", [In([3, 4]), In(["n", 4], I64), In(["m", 4])], "scatter-elements-updates",
           bind={"n": 2, "m": 1}, fault=True, symbolic_fault=True),
        # scatter-elements-rank (run).
        sc("rank", [In([3]), In([2], I64, high=3), In([2])], "scatter-elements-rank"),
        sc("rank-lower", [In([3, 4]), In([4], I64), In([4])], "scatter-elements-rank", fault=True),
        # scatter-elements-shape: no longer than the data on the other axes (run); the axis may be longer.
        sc("shape-longer-on-axis", [In([3, 4]), In([5, 4], I64, high=3), In([5, 4])], "scatter-elements-shape"),
        sc("shape-longer", [In([3, 4]), In([2, 5], I64), In([2, 5])], "scatter-elements-shape", fault=True),
        # scatter-elements-indices (run).
        sc("indices-negative", [In([3]), idx([0, -3]), In([2])], "scatter-elements-indices"),
        sc("indices-past", [In([3]), idx([0, 3]), In([2])], "scatter-elements-indices", fault=True),
        sc("indices-below", [In([3]), idx([-4]), In([1])], "scatter-elements-indices", fault=True),
    ]

CASES += [
    # scatter-nd-rank (run).
    case("ScatterND/rank", SND, [In([3, 4]), idx([[1], [0]]), In([2, 4])], "scatter-nd-rank"),
    case("ScatterND/rank-scalar-indices", SND, [In([3, 4]), In([], I64, value=0), In([4])], "scatter-nd-rank",
         fault=True),
    # scatter-nd-depth: indices.shape[-1] <= rank(data) (run).
    case("ScatterND/depth-full", SND, [In([3, 4]), idx([[1, 2], [0, -1]]), In([2])], "scatter-nd-depth"),
    case("ScatterND/depth-past", SND, [In([3, 4]), In([2, 3], I64), In([2])], "scatter-nd-depth", fault=True),
    # scatter-nd-updates: indices.shape[:-1] + data.shape[m:] (run).
    case("ScatterND/updates", SND, [In(["n", 4, 5]), In([2, 1], I64, high=2), In([2, 4, 5])], "scatter-nd-updates",
         bind={"n": 2}),
    case("ScatterND/updates-batched", SND, [In([3, 4, 5]), In([2, 6, 2], I64, high=3), In([2, 6, 5])],
         "scatter-nd-updates"),
    case("ScatterND/updates-data-axis", SND, [In([3, 4]), In([2, 1], I64), In([2, 3])], "scatter-nd-updates",
         fault=True),
    case("ScatterND/updates-indices-axis", SND, [In([3, 4]), In([2, 1], I64), In([3, 4])], "scatter-nd-updates",
         fault=True),
    case("ScatterND/updates-rank", SND, [In([3, 4]), In([2, 1], I64), In([2])], "scatter-nd-updates", fault=True),
    case("ScatterND/updates-empty", SND, [In([3, 4]), In([0, 1], I64), In([0, 3])], "scatter-nd-updates",
         fault=True),
    case("ScatterND/updates-symbolic", SND, [In([3, 4]), In(["n", 1], I64), In(["m", 4])], "scatter-nd-updates",
         bind={"n": 2, "m": 1}, fault=True, symbolic_fault=True),
    # compress-axis (load).
    case("Compress/axis-negative", "Compress", [In([3, 4]), In([3], BOOL, value=[True, False, True], const=True)],
         "compress-axis", attrs={"axis": -2}, unknown_ok={0: "the kept count is the condition's number of trues"}),
    # A condition longer than the axis is truncated, not refused.
    case("Compress/condition-longer", "Compress", [In([3, 4]), In([5], BOOL, value=[True, False, True, True, True],
         const=True)], "compress-axis", attrs={"axis": 0},
         unknown_ok={0: "the kept count is the condition's number of trues"}),
    case("Compress/axis-past", "Compress", [In([3, 4]), In([3], BOOL)], "compress-axis", attrs={"axis": 2},
         fault=True),
    case("Compress/axis-below", "Compress", [In([3, 4]), In([3], BOOL)], "compress-axis", attrs={"axis": -3},
         fault=True),
    # one-hot-axis: [-(r+1), r] for indices of rank r (load).
    case("OneHot/axis-last", "OneHot", [In([3], I64, high=5), idx(5), ON_OFF], "one-hot-axis", attrs={"axis": 1}),
    case("OneHot/axis-first", "OneHot", [In([3], I64, high=5), idx(5), ON_OFF], "one-hot-axis", attrs={"axis": -2}),
    case("OneHot/axis-past", "OneHot", [In([3], I64), idx(5), ON_OFF], "one-hot-axis", attrs={"axis": 2},
         fault=True),
    case("OneHot/axis-below", "OneHot", [In([3], I64), idx(5), ON_OFF], "one-hot-axis", attrs={"axis": -3},
         fault=True),
    # one-hot-depth: 1 or more (run); 0 too is refused, and a float depth counts truncated.
    case("OneHot/depth-vector", "OneHot", [In([3], I64, high=4), idx([4]), ON_OFF], "one-hot-depth"),
    case("OneHot/depth-float", "OneHot", [In([3], I64, high=2), In([], value=2.7, const=True), ON_OFF],
         "one-hot-depth"),
    case("OneHot/depth-indices-outside", "OneHot", [In([3], I64, value=[-9, 1, 9]), idx(3), ON_OFF],
         "one-hot-depth"),
    case("OneHot/depth-zero", "OneHot", [In([3], I64), idx(0), ON_OFF], "one-hot-depth", fault=True),
    case("OneHot-9/depth-zero", "OneHot", [In([3], I64), idx(0), ON_OFF], "one-hot-depth", opset=9, fault=True),
    case("OneHot/depth-negative", "OneHot", [In([3], I64), idx(-1), ON_OFF], "one-hot-depth", fault=True),
    case("OneHot/depth-float-below-one", "OneHot", [In([3], I64), In([], value=0.5, const=True), ON_OFF],
         "one-hot-depth", fault=True),
    case("OneHot/depth-zero-empty-indices", "OneHot", [In([0], I64), idx(0), ON_OFF], "one-hot-depth", fault=True),
]
