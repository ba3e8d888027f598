"""Contracts of Einsum (src/shape/ops/einsum.rs)."""

from nodecase import Case, In

E = "Einsum"


def case(name, eq, inputs, contract, **kw):
    return Case(
        name, E, inputs, attrs={"equation": eq}, domain="", opset=kw.pop("opset", 13), contract=contract, **kw
    )


MM = "ij,jk->ik"
BMM = "...ij,...jk->...ik"

CASES = [
    # einsum-terms: one term per input (onnx's inference at load when every shape is known, else the kernel).
    case("Einsum/terms", MM, [In([2, 3]), In([3, 4])], "einsum-terms"),
    case("Einsum/terms-scalar", "ij,->ij", [In([2, 3]), In([])], "einsum-terms"),
    case("Einsum/terms-too-few-inputs", MM, [In([2, 3])], "einsum-terms", fault=True),
    case("Einsum/terms-too-many-inputs", MM, [In([2, 3]), In([3, 4]), In([4])], "einsum-terms", fault=True),
    case("Einsum/terms-symbolic-opset12", MM, [In(["m", "k"])], "einsum-terms", bind={"m": 2, "k": 3}, fault=True, opset=12),
    # einsum-equation: letters, at most one ellipsis a term; the output's letters from the inputs, once each.
    case("Einsum/equation-spaces", " ij , jk -> ik ", [In([2, 3]), In([3, 4])], "einsum-equation"),
    case("Einsum/equation-upper-case", "iJ->Ji", [In([2, 3])], "einsum-equation"),
    case("Einsum/equation-implicit", "ij,kj", [In([2, 3]), In([4, 3])], "einsum-equation"),
    case("Einsum/equation-dropped-empty-ellipsis", "...ij->ij", [In([2, 3])], "einsum-equation"),
    case("Einsum/equation-output-ellipsis", "ij->...ij", [In([2, 3])], "einsum-equation"),
    case("Einsum/equation-digit", "i1->i", [In([2, 3])], "einsum-equation", fault=True),
    case("Einsum/equation-stray-dot", "ij..k->ik", [In([2, 3, 4])], "einsum-equation", fault=True),
    case("Einsum/equation-two-ellipses", "...i...->i", [In([2, 3, 4])], "einsum-equation", fault=True),
    case("Einsum/equation-two-arrows", "ij->ij->ij", [In([2, 3])], "einsum-equation", fault=True),
    case("Einsum/equation-unseen-output", "ij->ik", [In([2, 3])], "einsum-equation", fault=True),
    case("Einsum/equation-repeated-output", "ij->ii", [In([2, 3])], "einsum-equation", fault=True),
    case("Einsum/equation-dropped-ellipsis", "...ij->ij", [In([1, 2, 3])], "einsum-equation", fault=True),
    # einsum-rank: letters against the rank.
    case("Einsum/rank", "bij->bji", [In(["b", 2, 3])], "einsum-rank", bind={"b": 2}),
    case("Einsum/rank-ellipsis", "...j->...", [In(["b", 2, 3])], "einsum-rank", bind={"b": 2}),
    case("Einsum/rank-too-high", "ij->i", [In([2, 3, 4])], "einsum-rank", fault=True),
    case("Einsum/rank-too-low", "ijk->i", [In([2, 3])], "einsum-rank", fault=True),
    case("Einsum/rank-ellipsis-too-low", "...ijk->...", [In([2, 3])], "einsum-rank", fault=True),
    case("Einsum/rank-symbolic", "ij,jk->ik", [In(["m", 3]), In([3, 4, "k"])], "einsum-rank", bind={"m": 2, "k": 1}, fault=True),
    # einsum-ellipsis: as wide in every input, broadcasting.
    case("Einsum/ellipsis", BMM, [In([1, 2, 3]), In([5, 3, 4])], "einsum-ellipsis"),
    case("Einsum/ellipsis-symbolic", BMM, [In(["b", 2, 3]), In(["b", 3, 4])], "einsum-ellipsis", bind={"b": 3}),
    case("Einsum/ellipsis-empty-and-none", "...ij,jk->...ik", [In([2, 3]), In([3, 4])], "einsum-ellipsis"),
    case("Einsum/ellipsis-widths", BMM, [In([2, 2, 3]), In([3, 4])], "einsum-ellipsis", fault=True),
    case("Einsum/ellipsis-widths-symbolic", BMM, [In(["b", 2, 3]), In([2, 6, 3, 4])], "einsum-ellipsis", bind={"b": 2}, fault=True),
    case("Einsum/ellipsis-broadcast", BMM, [In([5, 2, 3]), In([2, 3, 4])], "einsum-ellipsis", fault=True),
    case(
        "Einsum/ellipsis-broadcast-symbolic",
        BMM,
        [In(["n", 2, 3]), In(["m", 3, 4])],
        "einsum-ellipsis",
        bind={"n": 2, "m": 3},
        fault=True,
        symbolic_fault=True,
    ),
    # einsum-labels: one size across the inputs, a 1 broadcasting.
    case("Einsum/labels", MM, [In([2, 3]), In([3, 4])], "einsum-labels"),
    case("Einsum/labels-one-broadcasts", MM, [In([2, 1]), In([3, 4])], "einsum-labels"),
    case("Einsum/labels-one-broadcasts-kept", "ij,ij->ij", [In([2, 3]), In([2, 1])], "einsum-labels"),
    case("Einsum/labels-attention", "bhid,bhjd->bhij", [In(["b", 2, "s", 8]), In(["b", 2, "t", 8])], "einsum-labels", bind={"b": 2, "s": 3, "t": 5}),
    case("Einsum/labels-bound", MM, [In(["m", "k"]), In([4, 5])], "einsum-labels", bind={"m": 2, "k": 4}),
    case("Einsum/labels-three", "ij,jk,kl->il", [In([2, 3]), In([3, 4]), In([4, 5])], "einsum-labels"),
    case("Einsum/labels-mismatch", MM, [In([2, 3]), In([5, 4])], "einsum-labels", fault=True),
    case("Einsum/labels-mismatch-implicit", "ij,kj", [In([2, 3]), In([4, 5])], "einsum-labels", fault=True),
    case("Einsum/labels-mismatch-kept", "ij,ij->ij", [In([2, 3]), In([2, 4])], "einsum-labels", fault=True),
    case("Einsum/labels-mismatch-third", "ij,jk,kl->il", [In([2, 3]), In([3, 4]), In([5, 6])], "einsum-labels", fault=True),
    case(
        "Einsum/labels-symbolic",
        "ij,ij->ij",
        [In(["n", 3]), In(["m", 3])],
        "einsum-labels",
        bind={"n": 2, "m": 3},
        fault=True,
        symbolic_fault=True,
    ),
    case(
        "Einsum/labels-symbolic-summed",
        MM,
        [In([2, "k"]), In(["j", 4])],
        "einsum-labels",
        bind={"k": 2, "j": 3},
        fault=True,
        symbolic_fault=True,
    ),
    # einsum-diagonal: a repeated label's axes equal, no broadcast.
    case("Einsum/diagonal", "ii->i", [In([3, 3])], "einsum-diagonal"),
    case("Einsum/diagonal-trace", "ii", [In([3, 3])], "einsum-diagonal"),
    case("Einsum/diagonal-around-ellipsis", "i...i->i...", [In([2, 3, 2])], "einsum-diagonal"),
    case("Einsum/diagonal-mismatch", "ii->i", [In([2, 3])], "einsum-diagonal", fault=True),
    case("Einsum/diagonal-one", "ii->i", [In([1, 3])], "einsum-diagonal", fault=True),
    case(
        "Einsum/diagonal-symbolic",
        "ii->i",
        [In(["a", "b"])],
        "einsum-diagonal",
        bind={"a": 2, "b": 3},
        fault=True,
        symbolic_fault=True,
    ),
]
