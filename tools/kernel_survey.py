"""Which onnxruntime CPU kernels compute differently once a broadcast input is made explicit.

`onnx-lint expand` replaces an implicitly broadcast input `s` of a node by `Expand(s, shape)`. The values the
node sees are the same, so the result should be too; but a kernel may pick another code path for a
broadcast operand than for a full-size one (onnxruntime's Pow computes `x*x*x` for a broadcast exponent of
3 and `pow(x, y)` element by element otherwise). This script finds such kernels systematically.

For every operator `expand` rewrites (those whose shape rule declares a broadcast site: `add_site` in
src/shape/ops/), every element type its schema allows that onnxruntime's CPU provider implements and
numpy can feed, every input slot it
broadcasts, and each operand shape below, it builds two tiny models, the implicit `Op(X, s)` and the
explicit `Op(X, Expand(s, target))` (the form `expand` writes: an int64 initializer as target), and runs
both in onnxruntime (ORT_DISABLE_ALL, one thread, as the conformance harness does) on the same seeded
random data with special values (zeros of both signs, denormals, infinities, NaNs with several payloads,
negative bases, the largest finite values, integers at their limits). The outputs are compared bit for bit.

Operand shapes, against X [2, 3, 4, 17]:
  scalar []        one [1]         last [17] (per last axis)        channel [3, 1, 1] (per channel)
  leading [3, 4, 17] (only leading axes broadcast)
  crossed [4, 1] against the others' [2, 3, 1, 17] (both broadcast: both get an Expand)
For Gemm (A [5, 7], B [7, 9]) C is [], [1], [9], [5, 1] or [1, 9]; for the normalizations the target is
X.shape[axis:] (axis -1: [17]; axis 1: [3, 4, 17]).

A scalar or one-element operand takes each value of a list in turn (for Pow: the exponents 2, 3, 0.5, -1
...), as a graph input (one session, several runs) and as an initializer (a session per value, since a
kernel may treat a constant input apart); a larger operand takes seeded random draws mixed with special
values (for Pow's exponent, drawn from the exponent list).

A difference is one of: `values` (some element differs and is not NaN in both), `signed-zero` (every
such element is +0 in one output and -0 in the other), `nan-payload` (every differing element is a NaN in
both outputs, with other bits); a model onnxruntime cannot load or run in
the implicit form is counted as `no-kernel`, one whose explicit form fails as `explicit-fails`.

Usage (the project's venv, pinned onnx and onnxruntime):
  $(tools/venv.sh) tools/kernel_survey.py [--only OP,OP] [--opset N] [--json FILE] [--markdown FILE]
Prints the summary tables (markdown) to standard output; exit 0 whatever it finds.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
import zlib
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"
assert ort.__version__ == "1.31.1", f"pinned onnxruntime==1.31.1 expected (tools/venv.sh), got {ort.__version__}"

X_SHAPE = (2, 3, 4, 17)
CROSS_OTHER = (2, 3, 1, 17)
OPERAND_SHAPES = {
    "scalar": (),
    "one": (1,),
    "last": (17,),
    "channel": (3, 1, 1),
    "leading": (3, 4, 17),
    "crossed": (4, 1),
}
GEMM_A, GEMM_B = (5, 7), (7, 9)
GEMM_C_SHAPES = {"scalar": (), "one": (1,), "last": (9,), "column": (5, 1), "row": (1, 9)}
SEED = 20261124
DRAWS = 2  # random draws of an operand of more than one element, per density
# Fractions of special values in the random data: none (values a model sees), some, most (so that
# special values meet each other: +0 against -0, NaN against NaN).
DENSITIES = (0.0, 0.2, 0.6)

# The element types numpy (hence onnxruntime's Python API) can feed. bfloat16, float8, int4 and complex
# have no numpy type here and are not surveyed.
NP_TYPES = {
    "tensor(bool)": (TensorProto.BOOL, np.bool_),
    "tensor(uint8)": (TensorProto.UINT8, np.uint8),
    "tensor(uint16)": (TensorProto.UINT16, np.uint16),
    "tensor(uint32)": (TensorProto.UINT32, np.uint32),
    "tensor(uint64)": (TensorProto.UINT64, np.uint64),
    "tensor(int8)": (TensorProto.INT8, np.int8),
    "tensor(int16)": (TensorProto.INT16, np.int16),
    "tensor(int32)": (TensorProto.INT32, np.int32),
    "tensor(int64)": (TensorProto.INT64, np.int64),
    "tensor(float16)": (TensorProto.FLOAT16, np.float16),
    "tensor(float)": (TensorProto.FLOAT, np.float32),
    "tensor(double)": (TensorProto.DOUBLE, np.float64),
    "tensor(string)": (TensorProto.STRING, np.object_),
}
SHORT = {v[1]: k[len("tensor(") : -1] for k, v in NP_TYPES.items()}

COMPARISONS = {"Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual"}
# (op, opset, attribute variants). Multidirectional: every input broadcasts; the variadic ones are tried
# with 2 and 3 inputs.
MULTI = [
    ("Add", 21, [{}]),
    ("Sub", 21, [{}]),
    ("Mul", 21, [{}]),
    ("Div", 21, [{}]),
    ("Pow", 21, [{}]),
    ("Mod", 21, [{"fmod": 0}, {"fmod": 1}]),
    ("And", 21, [{}]),
    ("Or", 21, [{}]),
    ("Xor", 21, [{}]),
    ("Equal", 21, [{}]),
    ("Greater", 21, [{}]),
    ("Less", 21, [{}]),
    ("GreaterOrEqual", 21, [{}]),
    ("LessOrEqual", 21, [{}]),
    ("BitShift", 21, [{"direction": "LEFT"}, {"direction": "RIGHT"}]),
    ("BitwiseAnd", 21, [{}]),
    ("BitwiseOr", 21, [{}]),
    ("BitwiseXor", 21, [{}]),
    ("Where", 21, [{}]),
    ("StringConcat", 21, [{}]),
    ("Max", 21, [{}]),
    ("Min", 21, [{}]),
    ("Sum", 21, [{}]),
    ("Mean", 21, [{}]),
]
VARIADIC = {"Max", "Min", "Sum", "Mean"}
ALL_OPS = [m[0] for m in MULTI] + ["PRelu", "Gemm", "LayerNormalization", "RMSNormalization"]


# --- values


def float_bits(dtype: Any, bits: int) -> Any:
    """The float of `dtype` with the raw bit pattern `bits` (a NaN payload, a denormal)."""
    uint = {np.float16: np.uint16, np.float32: np.uint32, np.float64: np.uint64}[dtype]
    return np.array([bits], dtype=uint).view(dtype)[0]


def float_specials(dtype: Any) -> list[Any]:
    """Special values of a float type: signed zeros, denormals, the largest finite values, infinities and
    NaNs (the default quiet NaN, a negative one, one with a payload)."""
    f = np.finfo(dtype)
    payload = {np.float16: 0x7E01, np.float32: 0x7FC00001, np.float64: 0x7FF8000000000001}[dtype]
    negative_nan = {np.float16: 0xFE00, np.float32: 0xFFC00000, np.float64: 0xFFF8000000000000}[dtype]
    values = [0.0, -0.0, f.smallest_subnormal, -f.smallest_subnormal * 3, f.smallest_normal / 3, f.max, -f.max,
              np.inf, -np.inf, np.nan]
    out = [dtype(v) for v in values]
    return out + [float_bits(dtype, payload), float_bits(dtype, negative_nan)]


def scalar_values(dtype: Any, op: str, slot: int) -> list[tuple[str, Any]]:
    """(label, value) for a scalar or one-element operand of `op` in `slot`."""
    if dtype == np.bool_:
        return [("true", True), ("false", False)]
    if dtype == np.object_:
        return [("''", ""), ("'a'", "a"), ("'é x'", "é x")]
    if np.issubdtype(dtype, np.floating):
        # The exponents a model uses (Pow), then the special values.
        plain = [2.0, 3.0, 0.5, -1.0, 0.0, 1.0, -2.0, 4.0, 1.5, -0.5, 1.0 / 3.0, 0.1, 1e4]
        values = [(repr(float(dtype(v))), dtype(v)) for v in plain]
        for v in float_specials(dtype):
            bits = np.array([v]).view({np.float16: np.uint16, np.float32: np.uint32, np.float64: np.uint64}[dtype])[0]
            label = f"{float(v)!r}" if not np.isnan(v) else f"nan(0x{int(bits):x})"
            values.append((label, v))
        return values
    info = np.iinfo(dtype)
    ints = [0, 1, 2, 3, 7, 100, -1, -2, info.max, info.min]
    if op == "BitShift" and slot == 1:
        width = info.bits
        ints = [0, 1, 3, width - 1, width, width + 1]
    if op in ("Div", "Mod") and slot == 1:
        # Integer division by 0 (and MIN / -1) traps: not a broadcast question.
        ints = [v for v in ints if v not in (0, -1)]
    return [(str(v), dtype(v)) for v in ints if info.min <= v <= info.max]


def array_values(
    dtype: Any, shape: tuple[int, ...], rng: Any, op: str, slot: int, operand: bool, density: float
) -> Any:
    """Seeded random values of `dtype` and `shape`, a fraction `density` of them special values (floats:
    signed zeros, denormals, infinities, NaNs...; integers: the full range instead of small values).
    `operand` marks the broadcast operand (for Pow's exponent: values from the exponent list)."""
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == np.bool_:
        return np.asarray(rng.random(shape) < 0.5)
    if dtype == np.object_:
        words = np.array(["", "a", "bc", "é x"], dtype=object)
        return words[rng.integers(0, len(words), size=shape)].astype(object)
    if np.issubdtype(dtype, np.floating):
        if op == "Pow" and slot == 1 and operand:
            pool = [v for _, v in scalar_values(dtype, op, slot)]
            return np.asarray(rng.choice(np.array(pool, dtype=dtype), size=shape), dtype=dtype)
        magnitude = 10.0 ** rng.uniform(-3, 3, size=n)
        x = (rng.standard_normal(n) * magnitude).astype(dtype)
        special = np.array(float_specials(dtype) + [dtype(v) for v in (1, -1, 2, 3, -3)], dtype=dtype)
        mask = rng.random(n) < density
        x[mask] = rng.choice(special, size=int(mask.sum()))
        return x.reshape(shape)
    info = np.iinfo(dtype)
    small = rng.integers(max(info.min, -9), min(info.max, 9) + 1, size=n)
    full = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=dtype)
    x = np.where(rng.random(n) < density, full, small.astype(dtype)).astype(dtype)
    if op == "BitShift" and slot == 1:
        x = rng.integers(0, info.bits + 2, size=n).astype(dtype)
    if op in ("Div", "Mod") and slot == 1:
        bad = x == 0
        if info.min < 0:
            bad |= x == dtype(-1)
        x[bad] = dtype(3)
    return x.reshape(shape)


# --- models


@dataclass
class Case:
    """One model pair: `op` over `inputs` (name, numpy dtype, shape), `slot` the surveyed operand."""

    op: str
    opset: int
    attrs: dict[str, Any]
    inputs: list[tuple[str, Any, tuple[int, ...]]]
    slot: int
    shape_label: str
    targets: dict[int, tuple[int, ...]]  # input slot -> shape of its Expand in the explicit model
    out_dtype: Any
    variant: str = ""  # attributes or arity, for the report

    def types_label(self) -> str:
        return ",".join(SHORT[d] for _, d, _ in self.inputs)


def make_model(case: Case, explicit: bool, constant: dict[str, Any]) -> bytes:
    """The implicit (or, with `explicit`, the Expanded) model of `case`; inputs named in `constant` are
    initializers with those values instead of graph inputs."""
    nodes, inits, graph_inputs, names = [], [], [], []
    for k, (name, dtype, shape) in enumerate(case.inputs):
        elem = next(v[0] for v in NP_TYPES.values() if v[1] == dtype)
        if name in constant:
            inits.append(numpy_helper.from_array(np.asarray(constant[name], dtype=dtype).reshape(shape), name))
        else:
            graph_inputs.append(helper.make_tensor_value_info(name, elem, list(shape)))
        if explicit and k in case.targets:
            target = case.targets[k]
            shape_name = f"{name}_target"
            inits.append(numpy_helper.from_array(np.array(target, dtype=np.int64), shape_name))
            nodes.append(helper.make_node("Expand", [name, shape_name], [f"{name}_x"], name=f"op/expand_in{k}"))
            names.append(f"{name}_x")
        else:
            names.append(name)
    nodes.append(helper.make_node(case.op, names, ["y"], name="op", **case.attrs))
    out_elem = next(v[0] for v in NP_TYPES.values() if v[1] == case.out_dtype)
    graph = helper.make_graph(nodes, "survey", graph_inputs, [helper.make_tensor_value_info("y", out_elem, None)],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", case.opset)], ir_version=10)
    return model.SerializeToString()


def session(model: bytes) -> Any:
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 4
    return ort.InferenceSession(model, sess_options=so, providers=["CPUExecutionProvider"])


# --- comparison


def compare(a: Any, b: Any) -> tuple[str, int, int, int | None]:
    """(class, differing elements, of which NaN in both, first differing flat index) of two outputs:
    class `same`, `nan-payload` (every difference is NaN vs NaN) or `values`."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return "values", a.size, 0, None
    if a.dtype == np.object_:
        diff = np.array([x != y for x, y in zip(a.ravel(), b.ravel())], dtype=bool)
        nan_both = np.zeros_like(diff)
    else:
        ua = np.ascontiguousarray(a).reshape(-1).view(np.uint8).reshape(a.size, -1)
        ub = np.ascontiguousarray(b).reshape(-1).view(np.uint8).reshape(b.size, -1)
        diff = (ua != ub).any(axis=1)
        nan_both = (np.isnan(a) & np.isnan(b)).reshape(-1) if a.dtype.kind == "f" else np.zeros_like(diff)
    n = int(diff.sum())
    if n == 0:
        return "same", 0, 0, None
    nans = int((diff & nan_both).sum())
    if nans == n:
        return "nan-payload", n, nans, int(np.nonzero(diff)[0][0])
    # The example of a `values` difference is one that is not NaN vs NaN.
    real = diff & ~nan_both
    first = int(np.nonzero(real)[0][0])
    if a.dtype.kind == "f" and bool((a.reshape(-1)[real] == b.reshape(-1)[real]).all()):
        # Equal as numbers, different bits: +0 against -0.
        return "signed-zero", n, nans, first
    return "values", n, nans, first


def ulps(a: Any, b: Any) -> int:
    """The largest distance in units in the last place between elements of two float arrays that are
    not NaN in either (0 if none)."""
    if a.dtype.kind != "f":
        return 0
    ok = ~(np.isnan(a) | np.isnan(b))
    if not ok.any():
        return 0
    sint = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]

    def ordered(x: Any) -> Any:
        # Float bit patterns as integers ordered like the floats (negatives mirrored), in Python ints.
        i = np.ascontiguousarray(x[ok]).view(sint).astype(object)
        top = 1 << (8 * a.dtype.itemsize - 1)
        return np.where(i < 0, -top - i, i)

    return int(max(abs(p - q) for p, q in zip(ordered(a), ordered(b))))


@dataclass
class Finding:
    op: str
    variant: str
    types: str
    slot: int
    shape: str
    source: str
    kind: str
    values: list[str] = field(default_factory=list)  # operand values that give it (or "random draws")
    at: set[str] = field(default_factory=set)  # the operand's values at the differing elements
    elements: int = 0
    of: int = 0
    max_ulps: int = 0
    example: str = ""


@dataclass
class Tally:
    combos: int = 0  # (variant, types, slot, shape, source) tried with a kernel
    runs: int = 0  # model pairs run on one feed
    no_kernel: set[str] = field(default_factory=set)
    explicit_fails: int = 0
    findings: list[Finding] = field(default_factory=list)


def describe(case: Case, feed: dict[str, Any], index: int, a: Any, b: Any) -> str:
    """The inputs and both outputs at flat output index `index`."""
    pos = np.unravel_index(index, a.shape)
    ins = []
    for name, _, shape in case.inputs:
        v = np.broadcast_to(np.asarray(feed[name]).reshape(shape), a.shape)[pos]
        ins.append(repr(v.item() if hasattr(v, "item") else v))
    return f"{case.op}({', '.join(ins)}): implicit {a.reshape(-1)[index]!r}, explicit {b.reshape(-1)[index]!r}"


def operand_values_at(case: Case, feed: dict[str, Any], a: Any, b: Any, kind: str) -> set[str]:
    """The surveyed operand's values (broadcast to the output) at the elements where `a` and `b` differ
    (for a `values` difference, those not NaN in both)."""
    name, _, shape = case.inputs[case.slot]
    operand = np.broadcast_to(np.asarray(feed[name]).reshape(shape), a.shape).reshape(-1)
    if a.dtype == np.object_:
        diff = np.array([x != y for x, y in zip(a.ravel(), b.ravel())], dtype=bool)
    else:
        ua = np.ascontiguousarray(a).reshape(-1).view(np.uint8).reshape(a.size, -1)
        ub = np.ascontiguousarray(b).reshape(-1).view(np.uint8).reshape(b.size, -1)
        diff = (ua != ub).any(axis=1)
        if kind in ("values", "signed-zero") and a.dtype.kind == "f":
            diff &= ~(np.isnan(a) & np.isnan(b)).reshape(-1)
    return {repr(v.item() if hasattr(v, "item") else v) for v in operand[diff][:1000]}


def run_case(case: Case, tally: Tally) -> None:
    """Runs `case` with its operand as a graph input and as an initializer, every value, on random data of
    each density; records findings. The seed depends on the case only, so `--only` reproduces a full run."""
    op_name, op_dtype, op_shape = case.inputs[case.slot]
    key = f"{case.op}|{case.variant}|{case.types_label()}|{case.slot}|{case.shape_label}"
    rng = np.random.default_rng([SEED, zlib.crc32(key.encode())])
    one = int(np.prod(op_shape, dtype=np.int64)) == 1
    # (base feed of the other inputs, operand values) per density; a one-element operand takes every
    # listed value, a larger one random draws.
    plans = []
    for density in DENSITIES:
        base = {
            name: array_values(d, s, rng, case.op, k, False, density)
            for k, (name, d, s) in enumerate(case.inputs)
            if k != case.slot
        }
        if one:
            values = [(label, np.full(op_shape, v, dtype=op_dtype)) for label, v in
                      scalar_values(op_dtype, case.op, case.slot)]
        else:
            values = [(f"draw {density}/{i}", array_values(op_dtype, op_shape, rng, case.op, case.slot, True, density))
                      for i in range(DRAWS)]
        plans.append((base, values))
    for source in ("input", "initializer"):
        by_kind: dict[str, Finding] = {}
        tried = False
        # A graph input: one session pair for all values; an initializer: a pair per value.
        pairs = []
        for base, values in plans:
            if source == "input":
                pairs.append(({}, base, values))
            else:
                pairs += [({op_name: v}, base, [(label, v)]) for label, v in values]
        for constant, base, vals in pairs:
            try:
                s_imp = session(make_model(case, False, constant))
            except Exception as e:  # noqa: BLE001 - no kernel for these types: not a finding
                tally.no_kernel.add(f"{case.types_label()}: {str(e).splitlines()[0][:120]}")
                break
            try:
                s_exp = session(make_model(case, True, constant))
            except Exception as e:  # noqa: BLE001
                tally.explicit_fails += 1
                tally.findings.append(Finding(case.op, case.variant, case.types_label(), case.slot, case.shape_label,
                                              source, "explicit-fails", example=str(e).splitlines()[0][:200]))
                break
            for label, v in vals:
                feed = dict(base)
                if op_name not in constant:
                    feed[op_name] = v
                try:
                    a = s_imp.run(None, feed)[0]
                except Exception as e:  # noqa: BLE001 - e.g. Mod's fmod=0 on floats fails at run time
                    tally.no_kernel.add(f"{case.types_label()} {case.variant}: {str(e).splitlines()[0][:120]}")
                    break
                tried = True
                b = s_exp.run(None, feed)[0]
                tally.runs += 1
                kind, n, _, first = compare(a, b)
                if kind == "same":
                    continue
                f = by_kind.get(kind)
                full = dict(feed, **{op_name: v})
                if f is None:
                    f = Finding(case.op, case.variant, case.types_label(), case.slot, case.shape_label, source, kind,
                                example=describe(case, full, first, a, b) if first is not None else "")
                    by_kind[kind] = f
                    tally.findings.append(f)
                f.values.append(label)
                f.at |= operand_values_at(case, full, a, b, kind)
                f.elements += n
                f.of += a.size
                f.max_ulps = max(f.max_ulps, ulps(a, b))
        if tried:
            tally.combos += 1


# --- the cases


def schema_types(op: str, opset: int) -> list[dict[str, str]]:
    """Every assignment of feedable types to the schema's type variables of `op` at `opset`."""
    schema = onnx.defs.get_schema(op, opset)
    params = [(c.type_param_str, [t for t in c.allowed_type_strs if t in NP_TYPES]) for c in schema.type_constraints]
    used = {i.type_str for i in schema.inputs}
    params = [(p, ts) for p, ts in params if p in used]
    return [dict(zip([p for p, _ in params], combo)) for combo in itertools.product(*[ts for _, ts in params])]


def input_params(op: str, opset: int, arity: int) -> list[str]:
    schema = onnx.defs.get_schema(op, opset)
    formal = [i.type_str for i in schema.inputs]
    return [formal[min(k, len(formal) - 1)] for k in range(arity)]


def multi_cases(op: str, opset: int, variants: list[dict[str, Any]]) -> list[Case]:
    cases = []
    arities = (2, 3) if op in VARIADIC else (len(onnx.defs.get_schema(op, opset).inputs),)
    for attrs, arity, types in itertools.product(variants, arities, schema_types(op, opset)):
        params = input_params(op, opset, arity)
        dtypes = [NP_TYPES[types[p]][1] for p in params]
        out = np.bool_ if op in COMPARISONS else dtypes[1 if op == "Where" else 0]
        variant = ",".join(f"{k}={v}" for k, v in attrs.items())
        if op in VARIADIC:
            variant = f"{arity} inputs"
        for slot, (label, shape) in itertools.product(range(arity), OPERAND_SHAPES.items()):
            other = CROSS_OTHER if label == "crossed" else X_SHAPE
            shapes = [shape if k == slot else other for k in range(arity)]
            out_shape = np.broadcast_shapes(*shapes)
            targets = {k: out_shape for k, s in enumerate(shapes) if tuple(s) != tuple(out_shape)}
            inputs = [(f"in{k}", dtypes[k], tuple(shapes[k])) for k in range(arity)]
            cases.append(Case(op, opset, attrs, inputs, slot, label, targets, out, variant))
    return cases


def prelu_cases(opset: int) -> list[Case]:
    cases = []
    for types in schema_types("PRelu", opset):
        d = NP_TYPES[types["T"]][1]
        for label, shape in OPERAND_SHAPES.items():
            if label == "crossed":
                continue
            inputs = [("x", d, X_SHAPE), ("slope", d, shape)]
            cases.append(Case("PRelu", opset, {}, inputs, 1, label, {1: X_SHAPE}, d))
    return cases


def gemm_cases(opset: int) -> list[Case]:
    cases = []
    variants = [({}, GEMM_A, GEMM_B), ({"alpha": 0.7, "beta": -1.3, "transB": 1}, GEMM_A, GEMM_B[::-1])]
    for types, (attrs, a, b) in itertools.product(schema_types("Gemm", opset), variants):
        d = NP_TYPES[types["T"]][1]
        variant = ",".join(f"{k}={v}" for k, v in attrs.items())
        for label, shape in GEMM_C_SHAPES.items():
            inputs = [("a", d, a), ("b", d, b), ("c", d, shape)]
            cases.append(Case("Gemm", opset, attrs, inputs, 2, label, {2: (GEMM_A[0], GEMM_B[1])}, d, variant))
    return cases


def norm_cases(op: str, opset: int) -> list[Case]:
    """Scale (slot 1, no bias) and bias (slot 2, full scale) of LayerNormalization, scale of
    RMSNormalization, expanded to X.shape[axis:] as `expand` does, and (variant `to X`) to X's whole
    shape, which `expand` avoids."""
    cases = []
    scale_param = "T" if op == "LayerNormalization" else "V"
    for types, axis in itertools.product(schema_types(op, opset), (-1, 1)):
        dx, ds = NP_TYPES[types["T"]][1], NP_TYPES[types[scale_param]][1]
        normalized = X_SHAPE[axis:]
        for label, shape in OPERAND_SHAPES.items():
            if label == "crossed" or len(shape) > len(normalized):
                continue
            if np.broadcast_shapes(shape, normalized) != normalized or shape == normalized:
                continue
            for slot in (1, 2) if op == "LayerNormalization" else (1,):
                for to_x in (False, True):
                    inputs = [("x", dx, X_SHAPE), ("scale", ds, shape if slot == 1 else normalized)]
                    if slot == 2:
                        inputs.append(("bias", ds, shape))
                    target = X_SHAPE if to_x else normalized
                    variant = f"axis={axis}" + (", to X" if to_x else "")
                    # LayerNormalization's Y has X's type, RMSNormalization's the scale's.
                    out = dx if op == "LayerNormalization" else ds
                    cases.append(Case(op, opset, {"axis": axis}, inputs, slot, label, {slot: target}, out, variant))
    return cases


def all_cases(only: set[str] | None, opset: int | None) -> list[Case]:
    cases = []
    for op, default, variants in MULTI:
        if only is None or op in only:
            cases += multi_cases(op, opset or default, variants)
    if only is None or "PRelu" in only:
        cases += prelu_cases(opset or 21)
    if only is None or "Gemm" in only:
        cases += gemm_cases(opset or 21)
    if only is None or "LayerNormalization" in only:
        cases += norm_cases("LayerNormalization", max(opset or 21, 17))
    if only is None or "RMSNormalization" in only:
        cases += norm_cases("RMSNormalization", max(opset or 23, 23))
    return cases


# --- report


def markdown(
    tallies: dict[str, Tally], types_run: dict[str, set[str]], seconds: float, opset: int | None, detail: bool
) -> str:
    lines = [
        f"onnxruntime {ort.__version__}, onnx {onnx.__version__}, opset {opset or 'per op (21; 23 for RMSNormalization)'}, "
        f"ORT_DISABLE_ALL, 1 thread, seed {SEED}; {sum(t.runs for t in tallies.values())} model pairs run "
        f"in {seconds:.0f} s.",
        "",
        "| op | combinations run | types with a kernel | differences |",
        "|---|---|---|---|",
    ]
    for op, t in tallies.items():
        kinds = defaultdict(int)
        for f in t.findings:
            kinds[f.kind] += 1
        diff = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "none"
        types = sorted({ts.split(",")[0] for ts in types_run[op]})
        lines.append(f"| {op} | {t.combos} | {', '.join(types) or 'none'} | {diff} |")
    lines += [
        "",
        "Differences by operator, kind and input type (the first input's type; `slot: operand shapes`; the",
        "operand's values at the differing elements; the largest distance in units in the last place):",
        "",
        "| op | kind | type | where (slot: operand shapes) | operand at the differences | max ulps | example |",
        "|---|---|---|---|---|---|---|",
    ]
    for op, t in tallies.items():
        groups: dict[tuple[str, str], list[Finding]] = defaultdict(list)
        for f in t.findings:
            groups[(f.kind, f.types.split(",")[0])].append(f)
        for (kind, ty), fs in sorted(groups.items()):
            where = defaultdict(set)
            for f in fs:
                where[f.slot].add(f.shape)
            at = sorted(set().union(*(f.at for f in fs)))
            where_text = "; ".join(f"{k}: {', '.join(sorted(v))}" for k, v in sorted(where.items()))
            variants = sorted({f.variant for f in fs if f.variant})
            if variants:
                where_text += f" ({'; '.join(variants)})"
            lines.append(
                f"| {op} | {kind} | {ty} | {where_text} | {', '.join(at[:6])}{' ...' if len(at) > 6 else ''} | "
                f"{max(f.max_ulps for f in fs)} | `{fs[0].example[:120]}` |"
            )
    if not detail:
        return "\n".join(lines) + "\n"
    lines += [
        "",
        "Every finding:",
        "",
        "| op | variant | input types | slot | operand | source | kind | runs that differ | operand at the differences | elements | max ulps | example |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for op, t in tallies.items():
        for f in t.findings:
            vals = ", ".join(f.values[:8]) + (f" (+{len(f.values) - 8})" if len(f.values) > 8 else "")
            lines.append(
                f"| {f.op} | {f.variant} | {f.types} | {f.slot} | {f.shape} | {f.source} | {f.kind} | {vals} | "
                f"{', '.join(sorted(f.at)[:6])}{' ...' if len(f.at) > 6 else ''} | "
                f"{f.elements}/{f.of} | {f.max_ulps} | `{f.example}` |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", help="comma-separated operators (default: all)")
    p.add_argument("--opset", type=int, help="one opset for every operator (default: 21; 23 for RMSNormalization)")
    p.add_argument("--json", help="write every finding and tally as JSON to this file")
    p.add_argument("--markdown", help="write the report, with every finding listed, to this file")
    args = p.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    if only and only - set(ALL_OPS):
        p.error(f"unknown operators {sorted(only - set(ALL_OPS))}; known: {', '.join(ALL_OPS)}")
    start = time.monotonic()
    tallies: dict[str, Tally] = {}
    types_run: dict[str, set[str]] = defaultdict(set)
    for case in all_cases(only, args.opset):
        t = tallies.setdefault(case.op, Tally())
        before = t.combos
        run_case(case, t)
        if t.combos > before:
            types_run[case.op].add(case.types_label())
        print(f"\r{case.op:20} {t.combos:6} combinations", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    seconds = time.monotonic() - start
    print(markdown(tallies, types_run, seconds, args.opset, detail=False))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(tallies, types_run, seconds, args.opset, detail=True))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({op: {"combos": t.combos, "runs": t.runs, "types_run": sorted(types_run[op]),
                            "no_kernel": sorted(t.no_kernel),
                            "findings": [dict(f.__dict__, at=sorted(f.at)) for f in t.findings]}
                       for op, t in tallies.items()}, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
