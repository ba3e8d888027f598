"""Contracts of the matrix products: MatMul (src/shape/ops/matmul.rs), Gemm (unidirectional.rs),
MatMulInteger and QLinearMatMul (quantize.rs, through MatMul's rule)."""

from nodecase import Case, In

MM, GEMM = "MatMul", "Gemm"
U8 = "uint8"


def case(name, op, inputs, contract, **kw):
    return Case(name, op, inputs, domain="", opset=kw.pop("opset", 17), contract=contract, **kw)


CASES = [
    # matmul-inner: A's columns against B's rows.
    case("MatMul/inner-2d", MM, [In([4, 64]), In([64, 8])], "matmul-inner"),
    case("MatMul/inner-batched", MM, [In([2, 3, 4, 5]), In([2, 1, 5, 6])], "matmul-inner"),
    case("MatMul/inner-vector-a", MM, [In([5]), In([3, 5, 2])], "matmul-inner"),
    case("MatMul/inner-vector-b", MM, [In([3, 4, 5]), In([5])], "matmul-inner"),
    case("MatMul/inner-symbolic", MM, [In(["n", "k"]), In(["k", 8])], "matmul-inner", bind={"n": 3, "k": 6}),
    case("MatMul/inner-mismatch", MM, [In(["n", 64]), In([63, 8])], "matmul-inner", bind={"n": 2}, fault=True),
    case("MatMul/inner-mismatch-batched", MM, [In([2, 3, 4]), In([2, 5, 6])], "matmul-inner", fault=True),
    case("MatMul/inner-mismatch-vector-a", MM, [In([4]), In([5, 2])], "matmul-inner", fault=True),
    case("MatMul/inner-mismatch-vector-b", MM, [In([3, 4]), In([5])], "matmul-inner", fault=True),
    # Two symbols that must agree: a condition (W2). A symbol against a number is a binding (I002).
    case(
        "MatMul/inner-symbolic-fault",
        MM,
        [In(["n", "k"]), In(["j", 8])],
        "matmul-inner",
        bind={"n": 2, "k": 63, "j": 64},
        fault=True,
        symbolic_fault=True,
    ),
    case("MatMul/inner-constant-weight", MM, [In(["b", 16]), In([16, 4], const=True)], "matmul-inner", bind={"b": 3}),
    case(
        "MatMul/inner-constant-weight-fault",
        MM,
        [In(["b", 16]), In([15, 4], const=True)],
        "matmul-inner",
        bind={"b": 3},
        fault=True,
    ),
    # matmul-rank: no scalar operand.
    case("MatMul/rank-vectors", MM, [In([4]), In([4])], "matmul-rank"),
    case("MatMul/rank-scalar-a", MM, [In([]), In([4, 2])], "matmul-rank", fault=True),
    case("MatMul/rank-scalar-b", MM, [In([3, 4]), In([])], "matmul-rank", fault=True),
    # The integer products run MatMul's rule.
    case(
        "MatMulInteger/inner",
        "MatMulInteger",
        [In([2, 4], U8, high=255), In([4, 3], U8, high=255)],
        "matmul-inner",
    ),
    case(
        "MatMulInteger/inner-mismatch",
        "MatMulInteger",
        [In([2, 4], U8, high=255), In([5, 3], U8, high=255)],
        "matmul-inner",
        fault=True,
    ),
    # gemm-inner: after the transposes.
    case("Gemm/inner", GEMM, [In([4, 5]), In([5, 6])], "gemm-inner"),
    case("Gemm/inner-transA", GEMM, [In([5, 4]), In([5, 6])], "gemm-inner", attrs={"transA": 1}),
    case("Gemm/inner-transB", GEMM, [In([4, 5]), In([6, 5]), In([6])], "gemm-inner", attrs={"transB": 1}),
    case("Gemm/inner-symbolic", GEMM, [In(["m", "k"]), In(["k", 3])], "gemm-inner", bind={"m": 2, "k": 7}),
    case("Gemm/inner-mismatch", GEMM, [In([4, 5]), In([6, 7])], "gemm-inner", fault=True),
    case("Gemm/inner-mismatch-transB", GEMM, [In([4, 5]), In([5, 6])], "gemm-inner", attrs={"transB": 1}, fault=True),
    case(
        "Gemm/inner-mismatch-constant",
        GEMM,
        [In(["m", 5]), In([4, 3], const=True), In([3], const=True)],
        "gemm-inner",
        bind={"m": 2},
        fault=True,
    ),
    case(
        "Gemm/inner-symbolic-fault",
        GEMM,
        [In(["m", "k"]), In(["j", 3])],
        "gemm-inner",
        bind={"m": 2, "k": 7, "j": 8},
        fault=True,
        symbolic_fault=True,
    ),
    # gemm-rank: B is 2-D; A 2-D (a 1-D A runs in onnxruntime's kernel when onnx cannot see its rank).
    case("Gemm/rank", GEMM, [In([2, 3]), In([3, 4])], "gemm-rank"),
    case("Gemm/rank-b-3d", GEMM, [In([2, 3]), In([1, 3, 4])], "gemm-rank", fault=True),
    case("Gemm/rank-a-3d", GEMM, [In([1, 2, 3]), In([3, 4])], "gemm-rank", fault=True),
]
