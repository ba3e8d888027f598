"""Contracts of LayerNormalization and RMSNormalization's axis (src/shape/ops/unidirectional.rs; Gemm's are in
cases_matmul.py)."""

from nodecase import Case, In

LN, RMS = "LayerNormalization", "RMSNormalization"


def case(name, op, inputs, contract, **kw):
    return Case(name, op, inputs, domain="", opset=kw.pop("opset", 17), contract=contract, **kw)


CASES = []
for op, opset in [(LN, 17), (LN, 23), (RMS, 23)]:
    p = f"{op}-{opset}"
    n_out = 3 if op == LN else 1
    CASES += [
        case(f"{p}/axis", op, [In([2, 3, 8]), In([8])], "layer-norm-axis", opset=opset, outputs=n_out),
        case(f"{p}/axis-0", op, [In([2, 8]), In([2, 8])], "layer-norm-axis", opset=opset, attrs={"axis": 0}, outputs=n_out),
        case(f"{p}/axis-first", op, [In([2, 3, 8]), In([3, 8])], "layer-norm-axis", opset=opset, attrs={"axis": -2}, outputs=n_out),
        case(f"{p}/axis-symbolic", op, [In(["n", "s", 8]), In([8])], "layer-norm-axis", opset=opset, bind={"n": 2, "s": 3}, outputs=n_out),
        case(f"{p}/axis-past-rank", op, [In([2, 8]), In([8])], "layer-norm-axis", opset=opset, attrs={"axis": 2}, fault=True),
        case(f"{p}/axis-below-rank", op, [In([2, 8]), In([8])], "layer-norm-axis", opset=opset, attrs={"axis": -3}, fault=True),
        case(
            f"{p}/axis-past-symbolic-rank",
            op,
            [In(["n", "d"]), In(["d"])],
            "layer-norm-axis",
            opset=opset,
            attrs={"axis": 5},
            bind={"n": 2, "d": 4},
            fault=True,
        ),
    ]
