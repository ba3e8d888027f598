"""Contracts of Reshape, Flatten, Transpose, Squeeze and Unsqueeze (src/shape/ops/shape_ops/layout.rs)."""

from nodecase import Case, In

I64 = "int64"


def case(name, op, inputs, contract, **kw):
    return Case(name, op, inputs, domain="", opset=kw.pop("opset", 17), contract=contract, **kw)


def ints(values):
    return In([len(values)], I64, value=values, const=True)


R, T, S, U, F = "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten"

CASES = [
    # reshape-count: the element count is kept.
    case("Reshape/count", R, [In([2, 3, 4]), ints([6, 4])], "reshape-count"),
    case("Reshape/count-minus-one", R, [In([2, 3, 4]), ints([-1, 8])], "reshape-count"),
    case("Reshape/count-copy-zero", R, [In([2, 3, 4]), ints([0, -1])], "reshape-count"),
    case("Reshape/count-symbolic", R, [In(["n", 6]), ints([0, 2, 3])], "reshape-count", bind={"n": 4}),
    case("Reshape/count-symbolic-minus-one", R, [In(["n", 6]), ints([-1, 3])], "reshape-count", bind={"n": 5}),
    case("Reshape/count-mismatch", R, [In(["n", 64]), ints([0, 8, 7])], "reshape-count", bind={"n": 2}, fault=True),
    case("Reshape/count-known-mismatch", R, [In([2, 3, 4]), ints([5, 5])], "reshape-count", fault=True),
    case("Reshape/count-minus-one-not-dividing", R, [In([2, 3, 4]), ints([-1, 5])], "reshape-count", fault=True),
    case("Reshape/count-minus-one-beside-zero", R, [In([2, 3]), ints([-1, 0])], "reshape-count",
         attrs={"allowzero": 1}, opset=14, fault=True),
    case("Reshape/count-symbolic-fault", R, [In(["n", 5]), ints([-1, 3])], "reshape-count", bind={"n": 2},
         fault=True, symbolic_fault=True),
    # reshape-target: no size below -1, one -1 at most.
    case("Reshape/target-two-minus-ones", R, [In([2, 3, 4]), ints([-1, -1])], "reshape-target", fault=True),
    case("Reshape/target-below-minus-one", R, [In([2, 3, 4]), ints([-2, 12])], "reshape-target", fault=True),
    case("Reshape/target-attribute", R, [In([2, 3, 4])], "reshape-target", attrs={"shape": [4, -1]}, opset=4),
    # reshape-zero: a copying 0 within the input's rank; allowzero's 0 is a size.
    case("Reshape/zero-beyond-rank", R, [In([6]), ints([1, 0, 6])], "reshape-zero", fault=True),
    case("Reshape/zero-allowzero-empty", R, [In([0, 3]), ints([3, 0])], "reshape-zero", attrs={"allowzero": 1},
         opset=14),
    case("Reshape/count-allowzero-with-minus-one", R, [In([0, 3]), ints([-1, 0])], "reshape-count",
         attrs={"allowzero": 1}, opset=14, fault=True),
    # flatten-axis: [-rank, rank].
    case("Flatten/axis-rank", F, [In([2, 3, 4])], "flatten-axis", attrs={"axis": 3}),
    case("Flatten/axis-negative", F, [In([2, 3, 4])], "flatten-axis", attrs={"axis": -3}),
    case("Flatten/axis-out-of-range", F, [In([2, 3, 4])], "flatten-axis", attrs={"axis": 4}, fault=True),
    case("Flatten/axis-negative-out-of-range", F, [In([2, 3, 4])], "flatten-axis", attrs={"axis": -4}, fault=True),
    # transpose-perm: a permutation of the input's axes.
    case("Transpose/perm", T, [In([2, 3, 4])], "transpose-perm", attrs={"perm": [2, 0, 1]}),
    case("Transpose/perm-default", T, [In([2, 3, 4])], "transpose-perm"),
    case("Transpose/perm-repeated", T, [In([2, 3, 4])], "transpose-perm", attrs={"perm": [0, 0, 1]}, fault=True),
    case("Transpose/perm-too-large", T, [In([2, 3, 4])], "transpose-perm", attrs={"perm": [0, 1, 3]}, fault=True),
    case("Transpose/perm-negative", T, [In([2, 3, 4])], "transpose-perm", attrs={"perm": [0, -1, 1]}, fault=True),
    case("Transpose/perm-short", T, [In([2, 3, 4])], "transpose-perm", attrs={"perm": [1, 0]}, fault=True),
    case("Transpose/perm-long", T, [In([2, 3])], "transpose-perm", attrs={"perm": [2, 1, 0]}, fault=True),
    # squeeze-one, squeeze-axes.
    case("Squeeze/one", S, [In([2, 1, 3]), ints([1])], "squeeze-one"),
    case("Squeeze/one-repeated", S, [In([2, 1, 3]), ints([1, -2])], "squeeze-one"),
    case("Squeeze/one-attribute", S, [In([1, 3])], "squeeze-one", attrs={"axes": [0]}, opset=11),
    case("Squeeze/one-not-one", S, [In([2, 3]), ints([1])], "squeeze-one", fault=True),
    case("Squeeze/one-not-one-attribute", S, [In([2, 3])], "squeeze-one", attrs={"axes": [0]}, opset=11, fault=True),
    case("Squeeze/one-symbolic-fault", S, [In(["n", 3]), ints([0])], "squeeze-one", bind={"n": 2}, fault=True,
         symbolic_fault=True),
    case("Squeeze/one-symbolic", S, [In(["n", 3]), ints([0])], "squeeze-one", bind={"n": 1}),
    case("Squeeze/axes-negative", S, [In([3, 1]), ints([-1])], "squeeze-axes"),
    case("Squeeze/axes-out-of-range", S, [In([1, 3]), ints([2])], "squeeze-axes", fault=True),
    # unsqueeze-axes: inside the output's rank, none twice.
    case("Unsqueeze/axes", U, [In([2, 3]), ints([0, 3])], "unsqueeze-axes"),
    case("Unsqueeze/axes-negative", U, [In([2, 3]), ints([-1])], "unsqueeze-axes"),
    case("Unsqueeze/axes-out-of-range", U, [In([2, 3]), ints([3])], "unsqueeze-axes", fault=True),
    # Negative axes count from the end of the output (rank + number of axes): -3 of 4 is 1, -4 is 0.
    case("Unsqueeze/axes-negative-two", U, [In([2, 3]), ints([0, -3])], "unsqueeze-axes"),
    case("Unsqueeze/axes-twice", U, [In([2, 3]), ints([0, -4])], "unsqueeze-axes", fault=True),
    case("Unsqueeze/axes-attribute-out-of-range", U, [In([2, 3])], "unsqueeze-axes", attrs={"axes": [4]}, opset=11,
         fault=True),
]
