"""Contracts of QuantizeLinear and DequantizeLinear's scale and zero point (src/shape/ops/quantize.rs), at the
opsets that change them: 10 (no axis attribute: onnxruntime's kernel reads axis 1), 13 (axis), 19 (float8, a
scale of any float type), 21 (block_size)."""

import numpy as np
from nodecase import Case, In

Q, D = "QuantizeLinear", "DequantizeLinear"
U8 = "uint8"


def case(name, op, inputs, contract, **kw):
    return Case(name, op, inputs, domain="", opset=kw.pop("opset", 13), contract=contract, **kw)


def scale(shape):
    return In(shape, value=np.full(shape, 0.5, "float32"), const=True)


def zp(shape):
    return In(shape, U8, value=np.full(shape, 3, U8), const=True)


def x(shape, op):
    return In(shape) if op == Q else In(shape, U8, high=255)


CASES = []

for op in [Q, D]:
    for opset in [10, 13, 19, 21]:
        p = f"{op}-{opset}"
        CASES += [
            # quantize-per-tensor: one value of scale, one of zero point.
            case(f"{p}/per-tensor", op, [x([2, 3, 4], op), scale([]), zp([])], "quantize-per-tensor", opset=opset),
            case(f"{p}/per-tensor-1d", op, [x([2, 3, 4], op), scale([1]), zp([1])], "quantize-per-tensor", opset=opset),
            case(f"{p}/per-tensor-no-zero-point", op, [x(["n", 3], op), scale([])], "quantize-per-tensor", opset=opset, bind={"n": 2}),
            case(
                f"{p}/per-tensor-zero-point-2",
                op,
                [x([2, 3, 4], op), scale([1]), zp([2])],
                "quantize-per-tensor",
                opset=opset,
                fault=True,
            ),
            case(
                f"{p}/per-tensor-zero-point-2d",
                op,
                [x([2, 3, 4], op), scale([]), zp([1, 1])],
                "quantize-per-tensor",
                opset=opset,
                fault=True,
            ),
            # quantize-per-axis: axis 1 by default, at opset 10 too.
            case(f"{p}/per-axis", op, [x([2, 3, 4], op), scale([3]), zp([3])], "quantize-per-axis", opset=opset),
            case(
                f"{p}/per-axis-symbolic",
                op,
                [x(["n", 3, "w"], op), scale([3])],
                "quantize-per-axis",
                opset=opset,
                bind={"n": 2, "w": 5},
            ),
            case(f"{p}/per-axis-length", op, [x([2, 3, 4], op), scale([4])], "quantize-per-axis", opset=opset, fault=True),
            case(
                f"{p}/per-axis-zero-point-length",
                op,
                [x([2, 3, 4], op), scale([3]), zp([2])],
                "quantize-per-axis",
                opset=opset,
                fault=True,
            ),
            case(
                f"{p}/per-axis-zero-point-scalar",
                op,
                [x([2, 3, 4], op), scale([3]), zp([])],
                "quantize-per-axis",
                opset=opset,
                fault=True,
            ),
            case(f"{p}/per-axis-2d-scale", op, [x([2, 3, 4], op), scale([1, 3])], "quantize-per-axis", opset=opset, fault=True),
            case(
                f"{p}/per-axis-symbolic-fault",
                op,
                [x([2, "c", 4], op), scale([3])],
                "quantize-per-axis",
                opset=opset,
                bind={"c": 2},
                fault=True,
                symbolic_fault=True,
            ),
            # quantize-axis: the default axis 1 outside a 1-D x.
            case(f"{p}/axis-default-1d", op, [x([3], op), scale([3])], "quantize-axis", opset=opset, fault=True),
        ]
    for opset in [13, 19, 21]:
        p = f"{op}-{opset}"
        CASES += [
            case(f"{p}/per-axis-axis-0", op, [x([2, 3, 4], op), scale([2]), zp([2])], "quantize-per-axis", opset=opset, attrs={"axis": 0}),
            case(f"{p}/per-axis-axis-last", op, [x([2, 3, 4], op), scale([4])], "quantize-per-axis", opset=opset, attrs={"axis": -1}),
            case(f"{p}/axis", op, [x([2, 3, 4], op), scale([4])], "quantize-axis", opset=opset, attrs={"axis": 2}),
            case(f"{p}/axis-past-rank", op, [x([2, 3, 4], op), scale([4])], "quantize-axis", opset=opset, attrs={"axis": 3}, fault=True),
            case(f"{p}/axis-below-rank", op, [x([2, 3, 4], op), scale([2])], "quantize-axis", opset=opset, attrs={"axis": -4}, fault=True),
            # Per tensor, the axis is not read.
            case(f"{p}/per-tensor-any-axis", op, [x([2, 3, 4], op), scale([])], "quantize-axis", opset=opset, attrs={"axis": 7}),
        ]
    # quantize-blocked: opset 21.
    blk = {"axis": 1, "block_size": 2}
    p = f"{op}-21"
    CASES += [
        case(f"{p}/blocked", op, [x([2, 6, 4], op), scale([2, 3, 4]), zp([2, 3, 4])], "quantize-blocked", opset=21, attrs=blk),
        case(f"{p}/blocked-ceil", op, [x([2, 5, 4], op), scale([2, 3, 4])], "quantize-blocked", opset=21, attrs=blk),
        case(f"{p}/blocked-axis-0", op, [x([3, 4], op), scale([1, 4])], "quantize-blocked", opset=21, attrs={"axis": 0, "block_size": 4}),
        case(
            f"{p}/blocked-symbolic",
            op,
            [x(["n", 6, 4], op), In(["n", 3, 4], value=np.full((2, 3, 4), 0.5, "float32"))],
            "quantize-blocked",
            opset=21,
            attrs=blk,
            bind={"n": 2},
        ),
        case(f"{p}/blocked-axis-count", op, [x([2, 6, 4], op), scale([2, 2, 4])], "quantize-blocked", opset=21, attrs=blk, fault=True),
        case(f"{p}/blocked-other-axis", op, [x([2, 6, 4], op), scale([2, 3, 1])], "quantize-blocked", opset=21, attrs=blk, fault=True),
        case(f"{p}/blocked-rank", op, [x([2, 6, 4], op), scale([3])], "quantize-blocked", opset=21, attrs=blk, fault=True),
        case(
            f"{p}/blocked-zero-point",
            op,
            [x([2, 6, 4], op), scale([2, 3, 4]), zp([2, 3, 1])],
            "quantize-blocked",
            opset=21,
            attrs=blk,
            fault=True,
        ),
        case(
            f"{p}/blocked-symbolic-fault",
            op,
            [x([2, "t", 4], op), scale([2, 3, 4])],
            "quantize-blocked",
            opset=21,
            attrs=blk,
            bind={"t": 8},
            fault=True,
            symbolic_fault=True,
        ),
        case(f"{p}/blocked-axis-past-rank", op, [x([2, 6, 4], op), scale([2, 6, 2])], "quantize-axis", opset=21, attrs={"axis": 3, "block_size": 2}, fault=True),
        # A block size with a scale of one value: refused.
        case(f"{p}/per-tensor-block-size", op, [x([4], op), scale([1])], "quantize-per-tensor", opset=21, attrs={"axis": 0, "block_size": 4}, fault=True),
    ]
