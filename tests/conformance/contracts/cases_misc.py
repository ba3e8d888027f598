"""Contracts of Det and Unique (src/shape/ops/misc.rs)."""

from nodecase import Case, In


def case(name, op, inputs, contract, **kw):
    return Case(name, op, inputs, domain="", opset=kw.pop("opset", 17), contract=contract, **kw)


CASES = []
for opset in [11, 22]:
    CASES += [
        # det-rank, det-square: [*, M, M].
        case(f"Det-{opset}/rank", "Det", [In([3, 3])], "det-rank", opset=opset),
        case(f"Det-{opset}/rank-batched", "Det", [In([2, 4, 3, 3])], "det-rank", opset=opset),
        case(f"Det-{opset}/rank-1", "Det", [In([3])], "det-rank", opset=opset, fault=True),
        case(f"Det-{opset}/rank-0", "Det", [In([])], "det-rank", opset=opset, fault=True),
        case(f"Det-{opset}/square", "Det", [In(["b", 4, 4])], "det-square", opset=opset, bind={"b": 2}),
        case(f"Det-{opset}/square-symbolic", "Det", [In(["b", "m", "m"])], "det-square", opset=opset, bind={"b": 2, "m": 3}),
        case(f"Det-{opset}/square-mismatch", "Det", [In([2, 3])], "det-square", opset=opset, fault=True),
        case(f"Det-{opset}/square-mismatch-batched", "Det", [In(["b", 3, 4])], "det-square", opset=opset, bind={"b": 2}, fault=True),
        case(
            f"Det-{opset}/square-symbolic-fault",
            "Det",
            [In(["b", "m", "n"])],
            "det-square",
            opset=opset,
            bind={"b": 2, "m": 3, "n": 4},
            fault=True,
            symbolic_fault=True,
        ),
    ]

U = "Unique"
UNKNOWN = {0: "the number of distinct values is data", 1: "data", 3: "data"}
CASES += [
    # unique-axis: inside the rank, when given.
    case("Unique/axis", U, [In([2, 3])], "unique-axis", opset=11, attrs={"axis": 1}, outputs=4, unknown_ok=UNKNOWN),
    case("Unique/axis-negative", U, [In([2, 3])], "unique-axis", opset=11, attrs={"axis": -2}, outputs=4, unknown_ok=UNKNOWN),
    case("Unique/axis-none-scalar", U, [In([])], "unique-axis", opset=11, outputs=4),
    case("Unique/axis-past-rank", U, [In([2, 3])], "unique-axis", opset=11, attrs={"axis": 2}, outputs=4, fault=True),
    case("Unique/axis-below-rank", U, [In([2, 3])], "unique-axis", opset=11, attrs={"axis": -3}, outputs=4, fault=True),
    case("Unique/axis-scalar", U, [In([])], "unique-axis", opset=11, attrs={"axis": 0}, outputs=4, fault=True),
    case("Unique/axis-symbolic", U, [In(["n", "m"])], "unique-axis", opset=11, attrs={"axis": 2}, bind={"n": 2, "m": 3}, outputs=4, fault=True),
]
