"""Contracts of ConstantOfShape and Range (src/shape/ops/shape_ops/generators.rs) and EyeLike
(src/shape/ops/elementwise_unary.rs)."""

from nodecase import Case, In

I64 = "int64"
COS, R, EYE = "ConstantOfShape", "Range", "EyeLike"
FED = {0: "the values are fed"}


def case(name, op, inputs, contract, **kw):
    return Case(name, op, inputs, domain="", opset=kw.pop("opset", 17), contract=contract, **kw)


def i64(value, shape, const=False):
    return In(shape, I64, value=value, const=const)


CASES = [
    # constant-of-shape-rank: 1-D; a 2-D constant read flattened; a scalar never.
    case("ConstantOfShape/rank", COS, [i64([2, 3], [2], const=True)], "constant-of-shape-rank", opset=9),
    case("ConstantOfShape/rank-fed", COS, [i64([2, 3], [2])], "constant-of-shape-rank", unknown_ok=FED),
    case("ConstantOfShape/rank-empty", COS, [i64([], [0])], "constant-of-shape-rank"),
    case(
        "ConstantOfShape/rank-2d-constant",
        COS,
        [i64([[2, 3]], [1, 2], const=True)],
        "constant-of-shape-rank",
        unknown_ok={0: "a 2-D constant's values are not read"},
    ),
    case("ConstantOfShape/rank-scalar-fed", COS, [i64(3, [])], "constant-of-shape-rank", fault=True),
    case("ConstantOfShape/rank-scalar-constant", COS, [i64(3, [], const=True)], "constant-of-shape-rank", fault=True),
    # range-scalars: rank 0 or [1]; range-delta: not 0.
    case("Range/scalars", R, [i64(0, [], True), i64(5, [], True), i64(1, [], True)], "range-scalars", opset=11),
    case("Range/scalars-fed", R, [i64(0, []), i64(5, []), i64(2, [])], "range-scalars", unknown_ok=FED),
    case("Range/scalars-1d-fed", R, [i64([0], [1]), i64([5], [1]), i64([1], [1])], "range-scalars", unknown_ok=FED),
    case("Range/scalars-mixed", R, [i64([0], [1]), i64(5, [], True), i64(1, [], True)], "range-scalars", unknown_ok=FED),
    case("Range/scalars-2-values", R, [i64([0, 1], [2]), i64(5, []), i64(1, [])], "range-scalars", fault=True),
    case("Range/scalars-2d", R, [i64(0, []), i64([[5]], [1, 1]), i64(1, [])], "range-scalars", fault=True),
    case("Range/scalars-delta-2-values", R, [i64(0, [], True), i64(5, [], True), i64([1, 1], [2], True)], "range-scalars", fault=True),
    case("Range/delta", R, [i64(5, [], True), i64(0, [], True), i64(-2, [], True)], "range-delta"),
    case("Range/delta-float", R, [In([], value=0.0, const=True), In([], value=1.0, const=True), In([], value=0.25, const=True)], "range-delta"),
    case("Range/delta-zero", R, [i64(0, [], True), i64(5, [], True), i64(0, [], True)], "range-delta", fault=True),
    case("Range/delta-zero-float", R, [In([], value=0.0), In([], value=1.0), In([], value=0.0, const=True)], "range-delta", fault=True),
    # eye-like-rank: 2-D.
    case("EyeLike/rank", EYE, [In([3, 4])], "eye-like-rank", opset=9),
    case("EyeLike/rank-symbolic", EYE, [In(["n", 4])], "eye-like-rank", bind={"n": 2}, opset=22),
    case("EyeLike/rank-1", EYE, [In([3])], "eye-like-rank", opset=9, fault=True),
    case("EyeLike/rank-3", EYE, [In([2, 3, 4])], "eye-like-rank", opset=22, fault=True),
]
