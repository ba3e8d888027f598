"""Contracts of Concat and Split (src/shape/ops/shape_ops/concat_split.rs)."""

from nodecase import Case, In

I64 = "int64"


def case(name, op, inputs, contract, **kw):
    return Case(name, op, inputs, domain="", opset=kw.pop("opset", 17), contract=contract, **kw)


def ints(values):
    return In([len(values)], I64, value=values, const=True)


CASES = [
    # concat-axes: every axis but the concatenation's agrees.
    case("Concat/axes", "Concat", [In([2, 3]), In([2, 5]), In([2, 1])], "concat-axes", attrs={"axis": 1}),
    case("Concat/axes-symbolic", "Concat", [In(["n", 3]), In(["n", 4])], "concat-axes", attrs={"axis": -1}, bind={"n": 5}),
    case("Concat/axes-empty-input", "Concat", [In([0, 3]), In([2, 3])], "concat-axes", attrs={"axis": 0}),
    # onnxruntime's kernel skips an input with no elements, its shape inference at load does not.
    case("Concat/axes-empty-input-mismatch", "Concat", [In([0, 7]), In([2, 3])], "concat-axes", attrs={"axis": 0},
         fault=True),
    case("Concat/axes-mismatch", "Concat", [In([2, 3]), In([4, 5])], "concat-axes", attrs={"axis": 1}, fault=True),
    case("Concat/axes-mismatch-3", "Concat", [In([2, 3, 4]), In([2, 3, 4]), In([2, 6, 4])], "concat-axes",
         attrs={"axis": 0}, fault=True),
    case("Concat/axes-symbolic-fault", "Concat", [In(["n", 3]), In(["m", 3])], "concat-axes", attrs={"axis": 1},
         bind={"n": 2, "m": 3}, fault=True, symbolic_fault=True),
    # concat-rank: one rank, no scalar.
    case("Concat/rank", "Concat", [In([3]), In([4])], "concat-rank", attrs={"axis": 0}),
    case("Concat/rank-empty-other-rank", "Concat", [In([0], const=True), In(["n", 3])], "concat-rank",
         attrs={"axis": 0}, bind={"n": 2}, fault=True),
    case("Concat/rank-mismatch", "Concat", [In([2, 3]), In([2, 3, 1])], "concat-rank", attrs={"axis": 0}, fault=True),
    case("Concat/rank-scalar", "Concat", [In([]), In([])], "concat-rank", attrs={"axis": 0}, fault=True),
    # concat-axis: inside the rank.
    case("Concat/axis-negative", "Concat", [In([2, 3]), In([2, 3])], "concat-axis", attrs={"axis": -2}),
    case("Concat/axis-out-of-range", "Concat", [In([2, 3]), In([2, 3])], "concat-axis", attrs={"axis": 2}, fault=True),
    case("Concat/axis-negative-out-of-range", "Concat", [In([2, 3]), In([2, 3])], "concat-axis", attrs={"axis": -3},
         fault=True),
    # split-sizes: as many as outputs, none negative, summing to the axis (attribute before 13, input from 13).
    case("Split/sizes-input", "Split", [In([2, 10]), ints([3, 7])], "split-sizes", attrs={"axis": 1}, outputs=2),
    case("Split/sizes-attribute", "Split", [In([2, 10])], "split-sizes", attrs={"axis": 1, "split": [4, 6]},
         outputs=2, opset=11),
    case("Split/sizes-zero", "Split", [In([6]), ints([0, 6])], "split-sizes", outputs=2),
    case("Split/sizes-symbolic", "Split", [In(["n", 10]), ints([5, 5])], "split-sizes", attrs={"axis": 1}, outputs=2,
         bind={"n": 3}),
    case("Split/sizes-sum", "Split", [In([2, 10]), ints([3, 6])], "split-sizes", attrs={"axis": 1}, outputs=2,
         fault=True),
    case("Split/sizes-sum-attribute", "Split", [In([2, 10])], "split-sizes", attrs={"axis": 1, "split": [4, 7]},
         outputs=2, opset=11, fault=True),
    case("Split/sizes-count", "Split", [In([9]), ints([3, 3, 3])], "split-sizes", outputs=2, fault=True),
    case("Split/sizes-negative", "Split", [In([4]), ints([-1, 5])], "split-sizes", outputs=2, fault=True),
    case("Split/sizes-symbolic-fault", "Split", [In(["n"]), ints([5, 5])], "split-sizes", outputs=2, bind={"n": 9},
         fault=True, symbolic_fault=True),
    # split-even: without sizes the outputs share the axis evenly.
    case("Split/even", "Split", [In([2, 9])], "split-even", attrs={"axis": -1}, outputs=3),
    case("Split/even-fault", "Split", [In([2, 10])], "split-even", attrs={"axis": 1}, outputs=3, fault=True),
    case("Split/even-symbolic-fault", "Split", [In(["n"])], "split-even", outputs=2, bind={"n": 5}, fault=True,
         symbolic_fault=True),
    # split-chunks: num_outputs (opset 18) cuts chunks of ceil(size/n).
    case("Split/chunks-uneven", "Split", [In([10])], "split-chunks", attrs={"num_outputs": 3}, outputs=3, opset=18),
    case("Split/chunks-rest-one", "Split", [In([7])], "split-chunks", attrs={"num_outputs": 4}, outputs=4, opset=18),
    case("Split/chunks-9-in-4", "Split", [In([9])], "split-chunks", attrs={"num_outputs": 4}, outputs=4, opset=18,
         fault=True),
    case("Split/chunks-6-in-4", "Split", [In([2, 6])], "split-chunks", attrs={"axis": 1, "num_outputs": 4},
         outputs=4, opset=18, fault=True),
    case("Split/chunks-5-in-4", "Split", [In([5])], "split-chunks", attrs={"num_outputs": 4}, outputs=4, opset=18,
         fault=True),
    case("Split/chunks-more-than-size", "Split", [In([3])], "split-chunks", attrs={"num_outputs": 4}, outputs=4,
         opset=18, fault=True),
    # split-axis.
    case("Split/axis-out-of-range", "Split", [In([2, 4])], "split-axis", attrs={"axis": 2}, outputs=2, fault=True),
    case("Split/axis-negative", "Split", [In([2, 4])], "split-axis", attrs={"axis": -2}, outputs=2),
]
