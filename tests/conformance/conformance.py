"""Runs the `onnx-lint` binary over the conformance corpus and reports, per check, passes and failures.

Usage: conformance.py --bin target/release/onnx-lint --cache tests/conformance/cache
       [--only CHECK] [--filter SUBSTR] [--limit N] [--jobs N] [--timeout S] [--show N] [--notes]
       [--models DIR]

Every model of the corpus (each `model.onnx` under the cache, as written by `generate.py`) goes through
every selected check (`expand-models` goes through the repository's `models/*.onnx` instead); the
(check, model) pairs run on a thread pool, each one calling the binary as a subprocess. For each check
the first failures (model path and reason) are listed, then the check's own informational totals (if it
has a `summarize`), then one line exactly `<check>: N passed, M failed`; the last line is
`conformance: N passed, M failed` over all checks. The exit status is 1 if anything failed, 2 on a usage
error or an empty selection.

To add a check, write a function `(Context, Model) -> Outcome` and append it to `CHECKS`, optionally with
a `summarize` function totalling the `data` its outcomes carry. An exception raised inside a check is not
hidden: it counts as a failure of that model and is totalled separately as a harness error.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PASS, FAIL, SKIP, ERROR = "pass", "fail", "skip", "error"
MAX_REASON_CHARS = 300


@dataclass(frozen=True)
class Model:
    """One model of the corpus: `path` is its `model.onnx`, `rel` that path relative to the cache."""

    path: Path
    rel: str
    # The real corpus only: the model's entry of real/corpus.json.
    spec: Any = field(default=None, compare=False)

    @property
    def dir(self) -> Path:
        """The model's folder (with its `test_data_set_*`, if any)."""
        return self.path.parent


@dataclass(frozen=True)
class Outcome:
    """The result of one check on one model. `note` is optional detail on a pass worth listing; `data` is
    whatever the check's `summarize` needs to total over the models (None for checks without one)."""

    status: str
    reason: str = ""
    note: str = ""
    data: Any = field(default=None, compare=False)


@dataclass(frozen=True)
class Context:
    """What every check gets besides the model."""

    binary: Path
    timeout: float


@dataclass(frozen=True)
class Run:
    """One finished (or timed out) call of the binary."""

    args: list[str]
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool


Results = list[tuple[Model, Outcome]]


@dataclass(frozen=True)
class Check:
    """A named check run on every model. `summarize(results, show)`, if given, returns informational lines
    (totals over the models, from each outcome's `data`) printed just above the check's summary line."""

    name: str
    description: str
    run: Callable[[Context, Model], Outcome]
    summarize: Callable[[Results, int], list[str]] | None = None
    # "corpus": the models under the cache; "examples": the repository's `models/*.onnx`; "real": the
    # real-model corpus of real/corpus.json; "bindings": the real corpus and real_bindings.py's generated models.
    source: str = "corpus"


def passed(note: str = "", data: Any = None) -> Outcome:
    return Outcome(PASS, note=note, data=data)


def failed(reason: str, data: Any = None) -> Outcome:
    return Outcome(FAIL, reason=shorten(reason), data=data)


def skipped(reason: str, data: Any = None) -> Outcome:
    return Outcome(SKIP, reason=shorten(reason), data=data)


def shorten(text: str) -> str:
    """One line of at most MAX_REASON_CHARS characters."""
    text = " ".join(text.split())
    if len(text) <= MAX_REASON_CHARS:
        return text
    return text[: MAX_REASON_CHARS - 3] + "..."


def first_line(text: str, prefix: str = "") -> str:
    """The first non-empty line of `text` starting with `prefix` (else the first non-empty line)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(prefix):
            return line
    return lines[0] if lines else ""


def run_binary(ctx: Context, *args: str | Path) -> Run:
    """Calls the binary with `args`, capturing its output; past the timeout its process group is killed."""
    argv = [str(ctx.binary), *map(str, args)]
    with subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    ) as p:
        try:
            out, err = p.communicate(timeout=ctx.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            return Run(argv, None, decode(out), decode(err), timed_out=True)
    return Run(argv, p.returncode, decode(out), decode(err), timed_out=False)


def decode(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")


def crash_reason(ctx: Context, run: Run) -> str | None:
    """Why a call counts as a crash (timeout, signal, panic), or None if it ended normally."""
    if run.timed_out:
        return f"timed out after {ctx.timeout:g} s"
    if run.returncode is not None and run.returncode < 0:
        try:
            name = signal.Signals(-run.returncode).name
        except ValueError:
            name = f"signal {-run.returncode}"
        return f"killed by {name}"
    if "panicked" in run.stderr:
        return f"panic: {first_line(run.stderr, 'thread')}"
    return None


def tool_message(run: Run) -> str:
    """The binary's own account of an unexpected exit: its first error line."""
    return first_line(run.stderr, "error") or first_line(run.stdout, "error") or "(no output)"


# ---------------------------------------------------------------------------------------------------------
# Checks


def check_load(ctx: Context, model: Model) -> Outcome:
    """`onnx-lint check MODEL` loads the model: exit 0 or 1, never 2, never a crash."""
    run = run_binary(ctx, "check", model.path)
    crash = crash_reason(ctx, run)
    if crash:
        return failed(crash)
    if run.returncode == 0:
        return passed()
    if run.returncode == 1:
        return passed(note=f"error findings: {first_line(run.stdout, 'error')}")
    if run.returncode == 2:
        return failed(f"could not load: {tool_message(run)}")
    return failed(f"exit {run.returncode}: {tool_message(run)}")


def first_difference(a: Path, b: Path, chunk: int = 1 << 20) -> int | None:
    """Offset of the first byte where the files differ (a shorter file differs at its end), or None."""
    offset = 0
    with a.open("rb") as fa, b.open("rb") as fb:
        while True:
            ca, cb = fa.read(chunk), fb.read(chunk)
            if ca != cb:
                n = min(len(ca), len(cb))
                return offset + next((i for i in range(n) if ca[i] != cb[i]), n)
            if not ca:
                return None
            offset += len(ca)


def check_roundtrip(ctx: Context, model: Model) -> Outcome:
    """`onnx-lint roundtrip MODEL -o OUT` exits 0 and writes OUT byte-identical to MODEL."""
    with tempfile.TemporaryDirectory(prefix="onnx-lint-conformance-") as tmp:
        out = Path(tmp) / "model.onnx"
        run = run_binary(ctx, "roundtrip", model.path, "-o", out)
        crash = crash_reason(ctx, run)
        if crash:
            return failed(crash)
        if run.returncode != 0:
            return failed(f"exit {run.returncode}: {tool_message(run)}")
        if not out.is_file():
            return failed("exit 0 but no output file written")
        diff = first_difference(model.path, out)
        if diff is not None:
            return failed(
                f"output differs from the input at byte {diff} "
                f"(input {model.path.stat().st_size} bytes, output {out.stat().st_size} bytes)"
            )
        return passed()


def run_json(ctx: Context, model: Model, *args: str) -> tuple[Any, str | None]:
    """Calls `onnx-lint ARGS... --format json MODEL`; returns (the parsed JSON, None), or (None, why not)
    on a crash, an exit status other than 0 or 1 (exit 2: the model could not be loaded), or bad JSON."""
    run = run_binary(ctx, *args, "--format", "json", model.path)
    crash = crash_reason(ctx, run)
    if crash:
        return None, crash
    if run.returncode not in (0, 1):
        what = "could not load" if run.returncode == 2 else f"exit {run.returncode}"
        try:
            message = json.loads(run.stdout)["errors"][0]["message"]
        except (ValueError, LookupError, TypeError):
            message = tool_message(run)
        return None, f"{what}: {message}"
    try:
        return json.loads(run.stdout), None
    except ValueError as e:
        return None, f"output is not JSON ({e}): {shorten(run.stdout)[:100]}"


# The shape findings a valid model must never get: the broadcast error, the broken contract, the constant
# out of range.
SHAPE_ERRORS = ("E1", "E2", "E3")
# Their conditional forms: counted, never failed (a condition on the symbols may be real).
SHAPE_WARNINGS = ("W1", "W2")


def check_no_false_error(ctx: Context, model: Model) -> Outcome:
    """`onnx-lint check --format json MODEL` reports no E1, E2 or E3 (every model of the corpus is valid). W1,
    W2 and the other diagnostics are totalled for `summarize_no_false_error` and noted on the passes."""
    doc, why = run_json(ctx, model, "check")
    if why:
        return failed(why)
    if doc.get("errors"):
        return failed(f"could not load: {doc['errors'][0].get('message')}")
    diags = doc.get("diagnostics", [])
    wrong = [d for d in diags if d.get("code") in SHAPE_ERRORS]
    shape_codes = SHAPE_ERRORS + SHAPE_WARNINGS
    others = [d for d in diags if d.get("code") not in shape_codes and d.get("severity") in ("error", "warning")]
    no_rule = [d.get("message", "") for d in diags if d.get("code") == "I001"]
    data = {
        "no_rule": [
            op.strip()
            for m in no_rule
            for op in m.removeprefix("no shape rule for ").split(": their outputs")[0].split("), ")
        ],
        "w": Counter(d["code"] for d in diags if d.get("code") in SHAPE_WARNINGS),
        "errors": Counter(d["code"] for d in others if d["severity"] == "error"),
        "warnings": Counter(d["code"] for d in others if d["severity"] == "warning"),
    }
    if wrong:
        d = wrong[0]
        where = f" (node {d.get('node')}, {d.get('op_type')})" if d.get("node") else ""
        more = f" [{len(wrong)} in all]" if len(wrong) > 1 else ""
        return failed(f"{d.get('code')}{where}: {d.get('message')}{more}", data=data)
    noted = [d for d in diags if d.get("code") in SHAPE_WARNINGS] + others
    note = "; ".join(f"{d['code']} {d.get('severity')}: {d.get('message')}" for d in noted[:2])
    return passed(note=shorten(note) if noted else "", data=data)


def summarize_no_false_error(results: Results, show: int) -> list[str]:
    data = [o.data for _, o in results if o.data is not None]
    lines = []
    for code in SHAPE_WARNINGS:
        n_models = sum(1 for d in data if d["w"][code])
        lines.append(f"no-false-error: {code} warnings on {n_models} models ({sum(d['w'][code] for d in data)} warnings)")
    for sev in ("errors", "warnings"):
        per_code = Counter(code for d in data for code in d[sev])  # models per code
        n_models = sum(1 for d in data if d[sev])
        codes = ", ".join(f"{c} on {n}" for c, n in sorted(per_code.items(), key=lambda kv: (-kv[1], kv[0])))
        lines.append(
            f"no-false-error: other {sev[:-1]} diagnostics (not E1-E3, W1-W2) on {n_models} models"
            + (f": {codes}" if codes else "")
        )
    ops = Counter(op.rstrip(")") + ")" for d in data for op in d.get("no_rule", []))
    listed = ", ".join(f"{op} on {n}" for op, n in sorted(ops.items(), key=lambda kv: (-kv[1], kv[0])))
    lines.append(f"no-false-error: ops without a shape rule (I001): {listed or 'none'}")
    return lines


SHAPE_CLASSES = ("agree", "unknown", "contradict")


def format_dims(shape: Any) -> str:
    """A shape of ours (list of int / str / None, or None) or onnx's (list of int) as `[1,?,N]`."""
    if shape is None:
        return "unknown rank"
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def classify_shape(ours: Any, onnx_dims: list[int]) -> str:
    """`ours` (a list of int / str / None, None for an unknown rank) against onnx's fully static shape:
    `contradict` on another rank or a known size that differs, else `unknown` if any size is not a known
    int (null or symbolic), else `agree`."""
    if ours is None:
        return "unknown"
    if len(ours) != len(onnx_dims):
        return "contradict"
    if any(isinstance(d, int) and not isinstance(d, bool) and d != o for d, o in zip(ours, onnx_dims)):
        return "contradict"
    if all(isinstance(d, int) and not isinstance(d, bool) for d in ours):
        return "agree"
    return "unknown"


def onnx_static_values(model_path: Path) -> tuple[list[tuple[str, str, list[int], str]], Any]:
    """Runs onnx's shape inference (non-strict, with data propagation) on the model; returns the values of
    its main graph (inputs, value_info, outputs) whose tensor shape is fully static, as (name, producing
    op, dims, element type), and the inferred model. The producing op is the op_type of the main-graph node
    with that output, `<initializer>` or `<input>`. Raises what onnx raises."""
    import onnx  # here, not at the top: the other checks do not need it
    import onnx.shape_inference

    model = onnx.load(str(model_path))
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    g = inferred.graph
    producer = {i.name: "<input>" for i in g.input}
    producer.update({t.name: "<initializer>" for t in g.initializer})
    producer.update({t.values.name: "<initializer>" for t in g.sparse_initializer})
    for node in g.node:
        for out in node.output:
            if out:
                producer[out] = node.op_type
    values, seen = [], set()
    for vi in [*g.input, *g.value_info, *g.output]:
        if vi.name in seen or not vi.name or vi.type.WhichOneof("value") != "tensor_type":
            continue
        seen.add(vi.name)
        tt = vi.type.tensor_type
        if not tt.HasField("shape") or not all(d.HasField("dim_value") for d in tt.shape.dim):
            continue
        elem = onnx.TensorProto.DataType.Name(tt.elem_type) if tt.elem_type else None
        values.append((vi.name, producer.get(vi.name, "<unknown>"), [d.dim_value for d in tt.shape.dim], elem))
    return values, inferred


def check_shapes(ctx: Context, model: Model) -> Outcome:
    """`onnx-lint shapes --format json MODEL` against `onnx.shape_inference.infer_shapes`, on every value of
    the main graph to which onnx gives a fully static shape: fails on a contradiction (another rank, or a
    known size that differs); unknown and missing values are only totalled (`summarize_shapes`). Skips the
    model if onnx's inference raises."""
    try:
        reference, _ = onnx_static_values(model.path)
    except Exception as e:  # noqa: BLE001 - onnx's checker/inference errors have several types
        return skipped(f"onnx shape inference raised {type(e).__name__}: {e}")
    doc, why = run_json(ctx, model, "shapes")
    if why:
        return failed(why)
    ours = {}
    for v in doc.get("values", []):
        if v.get("graph") == "main":
            ours.setdefault(v["name"], v)
    counts: Counter[str] = Counter()
    unknown_ops: Counter[str] = Counter()
    contradictions, elem_differs = [], []
    for name, op, dims, elem in reference:
        mine = ours.get(name)
        if mine is None:
            counts["unknown"] += 1
            counts["missing"] += 1
            unknown_ops[op] += 1
            continue
        cls = classify_shape(mine.get("shape"), dims)
        counts[cls] += 1
        if cls == "unknown":
            unknown_ops[op] += 1
        elif cls == "contradict":
            contradictions.append((name, op, format_dims(mine.get("shape")), format_dims(dims)))
        if elem and mine.get("elem_type") and mine["elem_type"] != elem:
            elem_differs.append((name, op, mine["elem_type"], elem))
    counts["values"] = len(reference)
    data = {"counts": counts, "unknown_ops": unknown_ops, "contradictions": contradictions, "elem": elem_differs}
    if contradictions:
        name, op, mine, theirs = contradictions[0]
        more = f" [{len(contradictions)} contradictions in all]" if len(contradictions) > 1 else ""
        return failed(f"value '{name}' ({op}): ours {mine}, onnx {theirs}{more}", data=data)
    return passed(data=data)


def summarize_shapes(results: Results, show: int) -> list[str]:
    data = [(m, o.data) for m, o in results if o.data is not None]
    total: Counter[str] = Counter()
    ops: Counter[str] = Counter()
    for _, d in data:
        total.update(d["counts"])
        ops.update(d["unknown_ops"])
    v, a, u, c = total["values"], total["agree"], total["unknown"], total["contradict"]
    pct = 100.0 * a / v if v else 0.0
    skipped_n = sum(1 for _, o in results if o.status == SKIP)
    lines = [
        f"shapes: models compared {len(data)}, skipped {skipped_n} (onnx inference raised)",
        f"shapes: onnx static values {v}; ours agree {a} ({pct:.1f}%), unknown {u}, contradict {c}",
        f"shapes: of the unknown, {total['missing']} are not listed by ours at all",
    ]
    top = ", ".join(f"{op} {n}" for op, n in ops.most_common(15))
    lines.append(f"shapes: unknown by producing op: {top or '-'}")
    listed = [(m, x) for m, d in data for x in d["contradictions"]]
    for m, (name, op, mine, theirs) in listed[:show]:
        lines.append(f"  contradiction {m.rel}: value '{name}' ({op}): ours {mine}, onnx {theirs}")
    if len(listed) > show:
        lines.append(f"  ... and {len(listed) - show} more contradictions")
    elems = [(m, x) for m, d in data for x in d["elem"]]
    if elems:
        m, (name, op, mine, theirs) = elems[0]
        lines.append(
            f"shapes: element type differs on {len(elems)} values (not a failure), e.g. {m.rel}: "
            f"'{name}' ({op}): ours {mine}, onnx {theirs}"
        )
    return lines


# ---------------------------------------------------------------------------------------------------------
# expand: the explicit-broadcast rewrite, against onnxruntime and onnx's shape inference

EXPAND_TOTAL = re.compile(r"^expand: (\d+) implicit broadcasts made explicit \((\d+) nodes inserted\)$", re.M)
EXPAND_LEFT = re.compile(r"^warning: left implicit: graph (.*?), node '(.*?)' \((.*?)\), input (\d+)", re.M)
# An input left implicit on purpose (a kernel exception of src/passes/explicit_broadcast/exceptions.rs).
EXPAND_KEPT = re.compile(r"^expand: left implicit: graph (.*?), node '(.*?)' \((.*?)\), input (\d+) \(", re.M)
# Operands a contrib operator requires smaller than its output (a 1-D bias): never made explicit.
EXPAND_REQUIRED = re.compile(
    r"^expand: left implicit as the operator requires: graph (.*?), node '(.*?)' \((.*?)\), input (\d+) \(", re.M
)
EXPAND_REFUSED = "error: cannot make the broadcasts explicit:"

# Ops whose inputs all broadcast to the output (multidirectional), and the unidirectional ones with the
# input slots they broadcast (to input 0's shape, or for Gemm to [M, N]), as `onnx-lint expand` treats them.
MULTIDIRECTIONAL = frozenset(
    "Add Sub Mul Div Pow Mod And Or Xor Equal Greater Less GreaterOrEqual LessOrEqual BitShift BitwiseAnd "
    "BitwiseOr BitwiseXor Max Min Sum Mean Where StringConcat".split()
)
UNIDIRECTIONAL = {"PRelu": (1,), "LayerNormalization": (1, 2), "RMSNormalization": (1,), "Gemm": (2,)}
# The inputs `expand` may leave implicit on purpose, by op (its KERNEL_EXCEPTIONS; None: any input):
# onnxruntime computes them with other code once explicit (docs/expand-exactness.md). Anything else
# left implicit is a violation.
KERNEL_EXCEPTION_SLOTS: dict[str, tuple[int, ...] | None] = {
    "Pow": (1,), "Max": None, "Min": None, "LayerNormalization": (1, 2), "RMSNormalization": (1,),
}
# Symbolic dims of the example models are bound to each of these sizes (every combination).
EXAMPLE_SIZES = (1, 2, 3)
EXAMPLE_SEED = 20240501


@dataclass
class ExpandRun:
    """One `onnx-lint expand SRC -o OUT`: `problem` says why it failed (None if it did not), `refused` is
    the tool's refusal message (a legacy model: not a failure)."""

    insertions: int = 0
    nodes: int = 0
    left: list[tuple[str, str, str, int]] = field(default_factory=list)  # graph, node label, op, slot
    kept: list[tuple[str, str, str, int]] = field(default_factory=list)  # kernel exceptions, likewise
    required: list[tuple[str, str, str, int]] = field(default_factory=list)  # operands required smaller
    problem: str | None = None
    refused: str | None = None


def run_expand(ctx: Context, src: Path, out: Path, *extra: str) -> ExpandRun:
    run = run_binary(ctx, "expand", src, "-o", out, *extra)
    crash = crash_reason(ctx, run)
    if crash:
        return ExpandRun(problem=crash)
    if run.returncode == 1 and EXPAND_REFUSED in run.stderr and "opset" in run.stderr:
        return ExpandRun(refused=first_line(run.stderr, EXPAND_REFUSED)[len(EXPAND_REFUSED) :].strip())
    if run.returncode != 0:
        return ExpandRun(problem=f"exit {run.returncode}: {tool_message(run)}")
    total = EXPAND_TOTAL.search(run.stderr)
    if not total:
        return ExpandRun(problem=f"exit 0 but no 'expand: N implicit broadcasts' line: {first_line(run.stderr)}")
    if not out.is_file():
        return ExpandRun(problem="exit 0 but no output file written")
    listed = sum(1 for line in run.stderr.splitlines() if line.startswith("expand: graph "))
    n = int(total.group(1))
    if listed != n:
        return ExpandRun(problem=f"stderr lists {listed} insertions but its total says {n}")
    left = [(g, node, op, int(slot)) for g, node, op, slot in EXPAND_LEFT.findall(run.stderr)]
    kept = [(g, node, op, int(slot)) for g, node, op, slot in EXPAND_KEPT.findall(run.stderr)]
    required = [(g, node, op, int(slot)) for g, node, op, slot in EXPAND_REQUIRED.findall(run.stderr)]
    if kept and "--force-explicit" in extra:
        return ExpandRun(problem="--force-explicit still leaves inputs implicit")
    return ExpandRun(insertions=n, nodes=int(total.group(2)), left=left, kept=kept, required=required)


# --- inputs


def load_value(path: Path, type_proto: Any) -> Any:
    """A test-data file as onnx's backend runner reads it: the protobuf kind follows the input's type."""
    import onnx
    from onnx import numpy_helper

    data = path.read_bytes()
    kind = type_proto.WhichOneof("value")
    if kind == "sequence_type":
        proto = onnx.SequenceProto()
        proto.ParseFromString(data)
        return numpy_helper.to_list(proto)
    if kind == "optional_type":
        proto = onnx.OptionalProto()
        proto.ParseFromString(data)
        return numpy_helper.to_optional(proto)
    if kind == "map_type":
        proto = onnx.MapProto()
        proto.ParseFromString(data)
        return numpy_helper.to_dict(proto)
    proto = onnx.TensorProto()
    proto.ParseFromString(data)
    return numpy_helper.to_array(proto)


def set_number(path: Path) -> int:
    tail = path.name.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def load_test_data(model_proto: Any, folder: Path) -> list[dict[str, Any]]:
    """The inputs of each `test_data_set_N` (in N order), as {graph input name: value}. As onnx's backend
    runner does, `input_K.pb` feeds the K-th graph input."""
    sets = []
    for d in sorted(folder.glob("test_data_set_*"), key=set_number):
        n = len(list(d.glob("input_*.pb")))
        feed = {}
        for k in range(n):
            vi = model_proto.graph.input[k]
            feed[vi.name] = load_value(d / f"input_{k}.pb", vi.type)
        sets.append(feed)
    return sets


def random_array(elem_type: int, dims: list[int], rng: Any) -> Any:
    """Seeded random values of an ONNX element type (None for types numpy cannot make: bfloat16, float8...).
    Integers are small (0..2) so they are valid indices and masks; strings come from a small set."""
    import numpy as np
    import onnx

    if elem_type == onnx.TensorProto.STRING:
        words = np.array(["", "a", "bc", "x y"], dtype=object)
        return words[rng.integers(0, len(words), size=dims)].astype(object)
    try:
        dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem_type))
    except (KeyError, TypeError, ValueError):
        return None
    if dtype == np.bool_:
        return np.asarray(rng.random(dims) < 0.5)
    if dtype.kind == "f":
        return np.asarray(rng.standard_normal(dims), dtype=dtype)
    if dtype.kind in "iu":
        return np.asarray(rng.integers(0, 3, size=dims), dtype=dtype)
    return None


def graph_symbols(model_proto: Any) -> list[str]:
    """The symbolic dims (dim_param) of the graph inputs that are not initializers, in order of appearance."""
    inits = {t.name for t in model_proto.graph.initializer}
    seen: list[str] = []
    for vi in model_proto.graph.input:
        if vi.name in inits or vi.type.WhichOneof("value") != "tensor_type":
            continue
        for d in vi.type.tensor_type.shape.dim:
            if not d.HasField("dim_value") and d.dim_param and d.dim_param not in seen:
                seen.append(d.dim_param)
    return seen


def random_feed(model_proto: Any, binding: dict[str, int], seed: int) -> dict[str, Any] | None:
    """Random inputs for the graph inputs that are not initializers: static dims as declared, symbolic ones
    from `binding`, unnamed ones 1. None if an input is not a tensor of a known rank and numpy type."""
    import numpy as np

    rng = np.random.default_rng(seed)
    inits = {t.name for t in model_proto.graph.initializer}
    feed = {}
    for vi in model_proto.graph.input:
        if vi.name in inits:
            continue
        if vi.type.WhichOneof("value") != "tensor_type" or not vi.type.tensor_type.HasField("shape"):
            return None
        tt = vi.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else binding.get(d.dim_param, 1) for d in tt.shape.dim]
        value = random_array(tt.elem_type, dims, rng)
        if value is None:
            return None
        feed[vi.name] = value
    return feed


def value_shape(value: Any) -> list[int] | None:
    import numpy as np

    return list(value.shape) if isinstance(value, np.ndarray) else None


# --- onnxruntime


def ort_session(model: Path | bytes) -> Any:
    """An onnxruntime CPU session (of a file or serialized bytes) with every graph optimization off
    (ORT_DISABLE_ALL): with optimizations on, ORT fuses or rewrites nodes (and may do so differently once
    Expands are present), so the two models would not be computed by the same kernels. One intra-op
    thread: the harness already runs models in parallel, and one thread keeps every kernel's work split
    the same way in both sessions."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 4
    source = model if isinstance(model, bytes) else str(model)
    return ort.InferenceSession(source, sess_options=so, providers=["CPUExecutionProvider"])


ORT_MAX_IR = re.compile(r"Unsupported model IR version: \d+, max supported IR version: (\d+)")


def with_ir_version(path: Path, ir_version: int | None) -> Path | bytes:
    """The model as given, or (when onnxruntime knows an older IR version than the model declares) its
    bytes with `ir_version` lowered. The two models of a comparison are lowered alike."""
    if ir_version is None:
        return path
    import onnx

    m = onnx.load(str(path))
    m.ir_version = ir_version
    return m.SerializeToString()


def inserted_expands_as_identity(src: Path, out: Path, ir_version: int | None) -> bytes:
    """The control model: the rewritten model with every Expand the rewrite inserted (a node whose name
    the original does not have) turned into an Identity of its first input. Its nodes are those of the
    rewrite, but every consumer broadcasts implicitly again, as in the original."""
    import onnx

    def node_lists(container: Any) -> list[Any]:
        lists, stack = [], [container]
        while stack:
            nodes = stack.pop()
            lists.append(nodes)
            for n in nodes:
                for a in n.attribute:
                    if a.HasField("g"):
                        stack.append(a.g.node)
                    stack.extend(g.node for g in a.graphs)
        return lists

    original = onnx.load(str(src))
    known = {n.name for nodes in node_lists(original.graph.node) for n in nodes}
    known.update(n.name for f in original.functions for nodes in node_lists(f.node) for n in nodes)
    m = onnx.load(str(out))
    lists = node_lists(m.graph.node) + [x for f in m.functions for x in node_lists(f.node)]
    for nodes in lists:
        for n in nodes:
            if n.op_type == "Expand" and n.domain in ("", "ai.onnx") and n.name and n.name not in known:
                n.op_type = "Identity"
                del n.input[1:]
    if ir_version is not None:
        m.ir_version = ir_version
    return m.SerializeToString()


def first_divergence(src: Path, out: Path, feed: dict[str, Any], ir_version: int | None) -> str:
    """Where the two models' values first differ: every main-graph node output of the original is made a
    graph output of both, and they are compared in the original's node order. '' if that cannot be run."""
    import onnx

    original = onnx.load(str(src))
    wanted = [o for n in original.graph.node for o in n.output if o]

    def exposed(path: Path) -> bytes:
        m = onnx.load(str(path))
        have = {o.name for o in m.graph.output}
        for name in wanted:
            if name not in have:
                m.graph.output.add().name = name
                have.add(name)
        if ir_version is not None:
            m.ir_version = ir_version
        return m.SerializeToString()

    try:
        runs = []
        for path in (src, out):
            session = ort_session(exposed(path))
            runs.append(dict(zip([o.name for o in session.get_outputs()], session.run(None, feed))))
    except Exception:  # noqa: BLE001 - a diagnosis only
        return ""
    for index, node in enumerate(original.graph.node):
        for name in node.output:
            if name in runs[0] and name in runs[1] and value_difference(runs[0][name], runs[1][name]):
                label = node.name or f"#{index}"
                return f"first differing value '{name}', output of node '{label}' ({node.op_type})"
    return ""


def value_difference(a: Any, b: Any) -> str | None:
    """None if `a` and `b` (onnxruntime outputs: arrays, lists of them for sequences, None for an empty
    optional, dicts for maps) are identical bit for bit, else how they differ. Numeric arrays compare their
    raw bytes (so NaNs must have the same bit pattern, and -0.0 differs from 0.0); string (object) arrays
    compare equal element by element."""
    import numpy as np

    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return f"{type(a).__name__} vs {type(b).__name__}"
        if a.dtype != b.dtype or a.shape != b.shape:
            return f"{a.dtype}{list(a.shape)} vs {b.dtype}{list(b.shape)}"
        if a.dtype.kind in "OUS":
            differs = [i for i, (x, y) in enumerate(zip(a.ravel().tolist(), b.ravel().tolist())) if x != y]
        else:
            if np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes():
                return None
            av = np.ascontiguousarray(a).reshape(-1).view(np.uint8).reshape(a.size, -1)
            bv = np.ascontiguousarray(b).reshape(-1).view(np.uint8).reshape(b.size, -1)
            differs = np.nonzero((av != bv).any(axis=1))[0].tolist()
        if not differs:
            return None
        i = differs[0]
        return (
            f"{len(differs)} of {a.size} elements differ, first at flat index {i}: "
            f"{a.ravel()[i]!r} vs {b.ravel()[i]!r}"
        )
    if isinstance(a, list) or isinstance(b, list):
        if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
            return f"sequence {len(a) if isinstance(a, list) else a!r} vs {len(b) if isinstance(b, list) else b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = value_difference(x, y)
            if d:
                return f"sequence element {i}: {d}"
        return None
    if isinstance(a, dict) or isinstance(b, dict):
        if not (isinstance(a, dict) and isinstance(b, dict)) or a.keys() != b.keys():
            return "map keys differ"
        for k in a:
            d = value_difference(a[k], b[k])
            if d:
                return f"map value {k!r}: {d}"
        return None
    if a is None or b is None:
        return None if a is b else f"{a!r} vs {b!r}"
    return None if a == b else f"{a!r} vs {b!r}"


def outputs_difference(names: list[str], a: list[Any], b: list[Any]) -> str | None:
    if len(a) != len(b):
        return f"{len(a)} outputs vs {len(b)}"
    for name, x, y in zip(names, a, b):
        d = value_difference(x, y)
        if d:
            return f"output '{name}': {d}"
    return None


def exception_text(e: Exception) -> str:
    return f"{type(e).__name__}: {first_line(str(e)) or '(no message)'}"


def ort_compare(
    src: Path, out: Path, feeds: list[dict[str, Any]], control: bool = True
) -> tuple[str, str, bool]:
    """Runs the original and the rewritten model in onnxruntime on every feed. Returns (status, why, whether
    the IR version was lowered for onnxruntime), the status being "verified"; "unsupported" if the
    original fails to load or run; "nondeterministic" if a second session of the original does not
    reproduce the first; "structure" if the outputs differ but the control model (each inserted Expand
    made an Identity: same nodes, implicit broadcasts) gives exactly the rewrite's outputs, so that
    onnxruntime computes differently around any added node, whatever it does (its float16 handling
    inserts Casts and removes Cast pairs even under ORT_DISABLE_ALL); or "mismatch". Without `control`
    (a rewrite that inserts no Expand, such as `fold`, has no control model) any difference is a
    "mismatch"."""
    lowered: int | None = None
    try:
        try:
            original = ort_session(src)
        except Exception as e:  # noqa: BLE001 - onnxruntime raises several types
            too_new = ORT_MAX_IR.search(str(e))
            if not too_new:
                raise
            lowered = int(too_new.group(1))
            original = ort_session(with_ir_version(src, lowered))
        names = [o.name for o in original.get_outputs()]
        expected = [original.run(None, f) for f in feeds]
    except Exception as e:  # noqa: BLE001
        return "unsupported", exception_text(e), lowered is not None
    status, why = ort_compare_rewritten(src, out, feeds, names, expected, lowered, control)
    return status, why, lowered is not None


def ort_compare_rewritten(
    src: Path,
    out: Path,
    feeds: list[dict[str, Any]],
    names: list[str],
    expected: list[Any],
    lowered: int | None,
    control: bool = True,
) -> tuple[str, str]:
    try:
        rewritten = ort_session(with_ir_version(out, lowered))
    except Exception as e:  # noqa: BLE001
        return "mismatch", f"the rewritten model does not load in onnxruntime: {exception_text(e)}"
    got_names = [o.name for o in rewritten.get_outputs()]
    if got_names != names:
        return "mismatch", f"outputs {got_names} vs the original's {names}"
    for k, (feed, want) in enumerate(zip(feeds, expected)):
        try:
            got = rewritten.run(None, feed)
        except Exception as e:  # noqa: BLE001
            why = exception_text(e)
            return "mismatch", f"the rewritten model does not run in onnxruntime (data set {k}): {why}"
        diff = outputs_difference(names, want, got)
        if diff is None:
            continue
        again = ort_session(with_ir_version(src, lowered)).run(None, feed)  # fresh: seeded random ops restart
        if outputs_difference(names, want, again) is not None:
            return "nondeterministic", f"the original does not reproduce its own outputs (data set {k})"
        try:
            controlled = (
                ort_session(inserted_expands_as_identity(src, out, lowered)).run(None, feed) if control else None
            )
        except Exception:  # noqa: BLE001 - no control, no excuse
            controlled = None
        if controlled is not None and outputs_difference(names, got, controlled) is None:
            return "structure", f"data set {k}: {diff}; the control (inserted Expands made Identity) gives the same"
        where = first_divergence(src, out, feed, lowered)
        return "mismatch", f"data set {k}: {diff}" + (f" ({where})" if where else "")
    return "verified", ""


# --- shapes after the rewrite


def static_dims(type_proto: Any) -> tuple[int, ...] | None:
    if type_proto.WhichOneof("value") != "tensor_type" or not type_proto.tensor_type.HasField("shape"):
        return None
    dims = type_proto.tensor_type.shape.dim
    if not all(d.HasField("dim_value") for d in dims):
        return None
    return tuple(d.dim_value for d in dims)


def broadcast_targets(
    node: Any, shapes: dict[str, tuple[int, ...]], opset: int
) -> list[tuple[int, str, tuple[int, ...] | None]] | None:
    """For a broadcasting node: (slot, input, the shape that input must have once explicit) for each input
    that broadcasts (the target None if not known); None if the node does not broadcast the numpy way
    (PRelu before opset 7 applies a [C] slope per channel, which no Expand expresses)."""
    op = node.op_type
    inputs = list(node.input)
    if op == "PRelu" and opset < 7:
        return None
    if op in MULTIDIRECTIONAL:
        present = [(k, n) for k, n in enumerate(inputs) if n]
        known = [shapes.get(n) for _, n in present]
        target = None
        if known and all(s is not None for s in known):
            rank = max(len(s) for s in known)
            padded = [(1,) * (rank - len(s)) + s for s in known]
            target = tuple(max(col) if 0 not in col else 0 for col in zip(*padded))
        return [(k, n, target) for k, n in present]
    if op not in UNIDIRECTIONAL:
        return None
    slots = [k for k in UNIDIRECTIONAL[op] if k < len(inputs) and inputs[k]]
    if op == "Gemm":
        a, b = (shapes.get(inputs[0]), shapes.get(inputs[1])) if len(inputs) > 1 else (None, None)
        attrs = {a_.name: a_.i for a_ in node.attribute}
        target = None
        if a is not None and b is not None and len(a) == 2 and len(b) == 2:
            target = (a[1] if attrs.get("transA") else a[0], b[0] if attrs.get("transB") else b[1])
    elif op in ("LayerNormalization", "RMSNormalization"):
        # Scale and bias are defined on the normalized part X.shape[axis:]; that is their explicit form.
        x = shapes.get(inputs[0]) if inputs else None
        axis = next((a_.i for a_ in node.attribute if a_.name == "axis"), -1)
        target = None
        if x is not None:
            start = axis + len(x) if axis < 0 else axis
            if 0 <= start <= len(x):
                target = x[start:]
    else:
        target = shapes.get(inputs[0]) if inputs else None
    return [(k, inputs[k], target) for k in slots]


def judge_broadcasts(
    nodes: Any,
    shapes: dict[str, tuple[int, ...]],
    opset: int,
    only: set[int] | None = None,
    kept: set[tuple[str, int]] | None = None,
) -> tuple[list[int], list[int], list[tuple[str, str]]]:
    """Checks the broadcasting nodes among `nodes` (those at the indices `only`, if given) against
    `shapes`: each broadcast input must have the shape it broadcasts to, except the inputs `kept`
    ((node label, slot) that `expand` said it left implicit on purpose). Returns (indices verified,
    indices unverified because some shape is not in `shapes`, violations as (node label, message))."""
    verified, unverified, violations = [], [], []
    for index, node in enumerate(nodes):
        if (only is not None and index not in only) or node.domain not in ("", "ai.onnx"):
            continue
        targets = broadcast_targets(node, shapes, opset)
        label = node.name or f"#{index}"
        if targets and kept:
            targets = [t for t in targets if (label, t[0]) not in kept]
        if not targets:
            continue
        if any(t is None or shapes.get(n) is None for _, n, t in targets):
            unverified.append(index)
            continue
        verified.append(index)
        wrong = [(k, n, shapes[n], t) for k, n, t in targets if shapes[n] != t]
        if wrong:
            detail = ", ".join(
                f"input {k} '{n}' {format_dims(list(s))} -> {format_dims(list(t))}" for k, n, s, t in wrong
            )
            violations.append((label, f"node '{label}' ({node.op_type}): still implicit: {detail}"))
    return verified, unverified, violations


def main_opset(model_proto: Any) -> int:
    return next((o.version for o in model_proto.opset_import if o.domain in ("", "ai.onnx")), 0)


def inferred_shapes(model_proto: Any, input_shapes: dict[str, list[int]]) -> dict[str, tuple[int, ...]]:
    """The fully static shapes onnx's shape inference (with data propagation) gives the main graph's values
    once the graph inputs of a copy of the model are fixed to `input_shapes`. Raises what onnx raises."""
    import onnx
    import onnx.shape_inference

    m = onnx.ModelProto()
    m.CopyFrom(model_proto)
    # An initializer also listed as a graph input (required before IR 4) that the data does not feed is
    # a constant in the run: make it one for the inference too, so that its value propagates.
    constants = {t.name for t in m.graph.initializer} - set(input_shapes)
    kept = [vi for vi in m.graph.input if vi.name not in constants]
    if len(kept) != len(m.graph.input):
        del m.graph.input[:]
        m.graph.input.extend(kept)
        m.ir_version = max(m.ir_version, 4)
    for vi in m.graph.input:
        dims = input_shapes.get(vi.name)
        if dims is None or vi.type.WhichOneof("value") != "tensor_type":
            continue
        shape = vi.type.tensor_type.shape
        del shape.dim[:]
        for d in dims:
            shape.dim.add().dim_value = d
    g = onnx.shape_inference.infer_shapes(m, strict_mode=False, data_prop=True).graph
    shapes: dict[str, tuple[int, ...]] = {}
    for vi in [*g.input, *g.value_info, *g.output]:
        dims = static_dims(vi.type)
        if dims is not None:
            shapes.setdefault(vi.name, dims)
    for t in g.initializer:
        shapes[t.name] = tuple(t.dims)
    return shapes


def runtime_shapes(model_proto: Any, feed: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """The shapes the main graph's values actually take when onnxruntime runs the model on `feed` (every
    node output made a graph output), with the feed's and the initializers' shapes. Raises what
    onnxruntime raises (IR versions too new for it are lowered, as for the comparison)."""
    import numpy as np
    import onnx

    m = onnx.ModelProto()
    m.CopyFrom(model_proto)
    have = {o.name for o in m.graph.output}
    for node in model_proto.graph.node:
        for name in node.output:
            if name and name not in have:
                m.graph.output.add().name = name
                have.add(name)
    try:
        session = ort_session(m.SerializeToString())
    except Exception as e:  # noqa: BLE001
        too_new = ORT_MAX_IR.search(str(e))
        if not too_new:
            raise
        m.ir_version = int(too_new.group(1))
        session = ort_session(m.SerializeToString())
    values = dict(zip([o.name for o in session.get_outputs()], session.run(None, feed)))
    shapes = {t.name: tuple(t.dims) for t in model_proto.graph.initializer}
    shapes.update({n: tuple(v.shape) for n, v in feed.items() if isinstance(v, np.ndarray)})
    shapes.update({n: tuple(v.shape) for n, v in values.items() if isinstance(v, np.ndarray)})
    return shapes


def check_broadcast_shapes(
    model_proto: Any, feed: dict[str, Any], kept: set[tuple[str, int]]
) -> tuple[int, int, int, list[tuple[str, str]], str | None]:
    """Step 6: every broadcasting node of the main graph must see each broadcast input in the shape it
    broadcasts to. Shapes come from onnx's shape inference with the graph inputs fixed to the shapes of
    `feed`; the nodes it leaves unknown are judged on the shapes onnxruntime's run gives them (when it
    can run the model). The inputs `kept` (kernel exceptions) are not judged. Returns (nodes verified by onnx, nodes verified at run time, nodes unverified,
    violations, why onnx's inference raised or None)."""
    opset = main_opset(model_proto)
    sig = {n: list(v.shape) for n, v in feed.items() if value_shape(v) is not None}
    raised = None
    try:
        shapes = inferred_shapes(model_proto, sig)
        by_onnx, unknown, violations = judge_broadcasts(model_proto.graph.node, shapes, opset, kept=kept)
    except Exception as e:  # noqa: BLE001 - onnx's inference errors have several types
        raised = exception_text(e)
        by_onnx, unknown, violations = judge_broadcasts(model_proto.graph.node, {}, opset, kept=kept)
    by_run: list[int] = []
    if unknown and feed:
        try:
            shapes = runtime_shapes(model_proto, feed)
        except Exception:  # noqa: BLE001 - onnxruntime cannot run it: those nodes stay unverified
            shapes = None
        if shapes is not None:
            by_run, unknown, more = judge_broadcasts(
                model_proto.graph.node, shapes, opset, only=set(unknown), kept=kept
            )
            violations += [(label, v + " (shapes at run time)") for label, v in more]
    return len(by_onnx), len(by_run), len(unknown), violations, raised


# --- the checks


def expand_verify(
    ctx: Context, src: Path, feeds: list[dict[str, Any]], random_inputs: bool, explicit: bool
) -> Outcome:
    """Steps 1-7 of the `expand` check on one model (see `check_expand`), `feeds` being its input sets
    (possibly none). With `explicit`, also `check --explicit --format json OUT` must report no B001
    warning, and one B001 info per input `expand` kept implicit (a kernel exception)."""
    import onnx
    import onnx.checker

    data: dict[str, Any] = {
        "insertions": 0, "nodes": 0, "left": 0, "refused": None,
        "ort": None, "ort_why": "", "ort_sets": 0, "ort_random": random_inputs, "ort_ir_lowered": False,
        "checker_skipped": False, "verified": 0, "verified_run": 0, "unverified": 0, "violations": [],
        "inference_raised": None, "kept": [], "forced": None, "forced_why": "",
    }
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="onnx-lint-conformance-") as tmp:
        out, out2 = Path(tmp) / "model.onnx", Path(tmp) / "again.onnx"
        # 1. the rewrite
        first = run_expand(ctx, src, out)
        if first.refused:
            data["refused"] = first.refused
            return skipped(f"refused (legacy opset): {first.refused}", data=data)
        if first.problem:
            return failed(first.problem, data=data)
        data.update(insertions=first.insertions, nodes=first.nodes, left=len(first.left))
        data["kept"] = [op for _, _, op, _ in first.kept]
        # Kernel exceptions only: an input left implicit on purpose must be one the table names.
        for g, label, op, slot in first.kept:
            slots = KERNEL_EXCEPTION_SLOTS.get(op, ())
            if slots is not None and slot not in slots:
                problems.append(f"left implicit without a kernel exception: node '{label}' ({op}) input {slot}")
        # 2. nothing to do: nothing changed
        if first.insertions == 0:
            diff = first_difference(src, out)
            if diff is not None:
                problems.append(f"0 insertions but the output differs from the input at byte {diff}")
        # 3. onnx's checker
        rewritten = onnx.load(str(out))
        try:
            onnx.checker.check_model(rewritten, full_check=True)
        except Exception as e:  # noqa: BLE001 - ValidationError, InferenceError...
            try:
                onnx.checker.check_model(onnx.load(str(src)), full_check=True)
                problems.append(f"onnx checker rejects the rewritten model (not the original): {exception_text(e)}")
            except Exception:  # noqa: BLE001
                data["checker_skipped"] = True
        # 4. onnxruntime, on the models that changed
        if first.insertions and feeds:
            status, why, lowered = ort_compare(src, out, feeds)
            data.update(ort=status, ort_why=why, ort_sets=len(feeds), ort_ir_lowered=lowered)
            if status == "mismatch":
                problems.append(f"onnxruntime: {why}")
        # 4b. what the kernel exceptions spare: the same model with them made explicit (a figure, not a
        # check: the exceptions exist because this may differ)
        if first.kept and feeds:
            forced_out = Path(tmp) / "forced.onnx"
            forced = run_expand(ctx, src, forced_out, "--force-explicit")
            if forced.problem:
                problems.append(f"expand --force-explicit: {forced.problem}")
            else:
                status, why, _ = ort_compare(src, forced_out, feeds)
                data.update(forced=status, forced_why=why)
        # 5. idempotence
        second = run_expand(ctx, out, out2)
        if second.problem or second.refused:
            problems.append(f"expand of the output: {second.problem or second.refused}")
        else:
            if second.insertions:
                problems.append(f"expand of the output makes {second.insertions} more insertions")
            diff = first_difference(out, out2)
            if diff is not None:
                problems.append(f"expand of the output is not byte-identical to it (byte {diff})")
        # 6. every broadcasting node of the main graph sees inputs of one shape (once per distinct set of
        # input shapes)
        signatures, distinct = [], []
        for feed in feeds or [{}]:
            sig = {n: value_shape(v) for n, v in feed.items()}
            if sig not in signatures:
                signatures.append(sig)
                distinct.append(feed)
        warned = {node for g, node, _, _ in second.left if g == "main"}
        kept = {(node, slot) for g, node, _, slot in first.kept if g == "main"}
        for feed in distinct:
            by_onnx, by_run, unknown, violations, raised = check_broadcast_shapes(rewritten, feed, kept)
            data["verified"] += by_onnx
            data["verified_run"] += by_run
            data["unverified"] += unknown
            if raised:
                data["inference_raised"] = raised
            for label, v in violations:
                note = " (expand warned: left implicit)" if label in warned else ""
                at = ""
                if len(distinct) > 1:
                    at = " with inputs " + ", ".join(f"{n}{format_dims(value_shape(x))}" for n, x in feed.items())
                data["violations"].append(v + note + at)
        if data["violations"]:
            more = f" [{len(data['violations'])} in all]" if len(data["violations"]) > 1 else ""
            problems.append(f"shape check: {data['violations'][0]}{more}")
        # models/ only: check --explicit finds nothing left but the kernel exceptions, as infos
        if explicit:
            run = run_binary(ctx, "check", "--explicit", "--format", "json", out)
            crash = crash_reason(ctx, run)
            try:
                b001 = [d for d in json.loads(run.stdout).get("diagnostics", []) if d.get("code") == "B001"]
            except ValueError:
                b001 = None
            if crash or b001 is None:
                problems.append(f"check --explicit of the output: {crash or 'output is not JSON'}")
            else:
                warnings = [d for d in b001 if d.get("severity") != "info"]
                infos = len(b001) - len(warnings)
                if warnings:
                    message = warnings[0].get("message")
                    problems.append(
                        f"check --explicit of the output reports {len(warnings)} B001 warnings, first: {message}"
                    )
                if infos != len(first.kept) + len(first.required):
                    problems.append(
                        f"check --explicit of the output reports {infos} B001 infos, expand kept "
                        f"{len(first.kept)} (kernel exceptions) + {len(first.required)} (required by the operator)"
                    )
    if problems:
        head = f"{len(problems)} problems: " if len(problems) > 1 else ""
        return failed(head + "; ".join(problems), data=data)
    return passed(data=data)


def check_expand(ctx: Context, model: Model) -> Outcome:
    """`expand MODEL -o OUT`: exit 0 (a legacy model's opset refusal is a skip), OUT byte-identical when
    nothing was inserted, accepted by onnx's full checker, bit-identical outputs in onnxruntime on the
    model's test data sets (random seeded inputs when it has none), idempotent, and every broadcasting
    node of the main graph sees its inputs in the shape they broadcast to (onnx's shape inference, else
    onnxruntime's run-time shapes), except the inputs `expand` kept implicit by a kernel exception, which
    must be of an op and slot of KERNEL_EXCEPTION_SLOTS; for those, `--force-explicit` is run too and
    its onnxruntime outcome counted."""
    import onnx

    proto = onnx.load(str(model.path), load_external_data=False)
    feeds = load_test_data(proto, model.dir)
    random_inputs = False
    if not feeds and not list(model.dir.glob("test_data_set_*")):
        feed = random_feed(proto, {}, EXAMPLE_SEED)
        if feed is not None:
            feeds, random_inputs = [feed], True
    return expand_verify(ctx, model.path, feeds, random_inputs, explicit=False)


def check_expand_models(ctx: Context, model: Model) -> Outcome:
    """The `expand` check on an example model (`models/*.onnx`): seeded random inputs, every symbolic dim
    bound to each size of EXAMPLE_SIZES (all combinations), and `check --explicit` of OUT reports no B001."""
    import itertools

    import onnx

    proto = onnx.load(str(model.path), load_external_data=False)
    symbols = graph_symbols(proto)
    feeds = []
    for k, sizes in enumerate(itertools.product(EXAMPLE_SIZES, repeat=len(symbols))):
        feed = random_feed(proto, dict(zip(symbols, sizes)), EXAMPLE_SEED + k)
        if feed is not None:
            feeds.append(feed)
    return expand_verify(ctx, model.path, feeds, random_inputs=True, explicit=True)


def ort_error_kind(why: str) -> str:
    """onnxruntime's error message reduced to its kind (no path, node name or source location), to group by."""
    for pattern, kind in (
        (r"Opset (\d+) is under development", "opset {} is newer than onnxruntime's released ones"),
        (r"Unsupported model IR version: (\d+)", "IR version {} is newer than onnxruntime knows"),
        (r"Could not find an implementation for (\w+\(\d+\))", "no CPU kernel for {} and these types"),
    ):
        found = re.search(pattern, why)
        if found:
            return kind.format(found.group(1))
    return shorten(why.split(" : ")[-1])[:90]


def summarize_expand(results: Results, show: int) -> list[str]:
    name = "expand-models" if results and results[0][0].rel.startswith("models/") else "expand"
    data = [(m, o.data) for m, o in results if o.data is not None]
    done = [(m, d) for m, d in data if d["refused"] is None]
    rewritten = [(m, d) for m, d in done if d["insertions"]]
    refused = [(m, d) for m, d in data if d["refused"] is not None]
    ort = Counter(d["ort"] for _, d in rewritten)
    verified = [d for _, d in rewritten if d["ort"] == "verified"]
    lines = [
        f"{name}: models rewritten {len(rewritten)} ({sum(d['insertions'] for _, d in rewritten)} insertions, "
        f"{sum(d['nodes'] for _, d in rewritten)} nodes inserted), unchanged (byte-identical) "
        f"{sum(1 for _, d in done if not d['insertions'])}, refused (legacy opset < 8) {len(refused)}",
        f"{name}: onnxruntime (ORT_DISABLE_ALL, 1 thread) on the rewritten models: bit-identical {len(verified)} "
        f"({sum(d['ort_sets'] for d in verified)} data sets; {sum(1 for d in verified if d['ort_random'])} models "
        f"on seeded random inputs, {sum(1 for d in verified if d['ort_ir_lowered'])} with the IR version lowered "
        f"for onnxruntime), ort-unsupported {ort['unsupported']} (the original does not load or run), "
        f"ort-structure {ort['structure']} (differs, but exactly as the Identity control does), "
        f"nondeterministic {ort['nondeterministic']}, mismatch {ort['mismatch']}, no input data {ort[None]}",
        f"{name}: onnx checker (full_check) skipped on {sum(1 for _, d in done if d['checker_skipped'])} models "
        f"(it rejects the original too)",
        f"{name}: broadcasting nodes of the main graph: shape-verified "
        f"{sum(d['verified'] + d['verified_run'] for _, d in done)} "
        f"({sum(d['verified'] for _, d in done)} by onnx's "
        f"inference, {sum(d['verified_run'] for _, d in done)} more on onnxruntime's run-time shapes), "
        f"violations {sum(len(d['violations']) for _, d in done)}, "
        f"unverified {sum(d['unverified'] for _, d in done)} "
        f"(some shape unknown to onnx, and onnxruntime cannot run the model); onnx inference raised on "
        f"{sum(1 for _, d in done if d['inference_raised'])} models",
        f"{name}: 'left implicit' warnings {sum(d['left'] for _, d in done)} on "
        f"{sum(1 for _, d in done if d['left'])} models",
    ]
    kept = [(m, d) for m, d in done if d["kept"]]
    by_op = Counter(op for _, d in kept for op in d["kept"])
    forced = Counter(d["forced"] for _, d in kept)
    lines.append(
        f"{name}: inputs kept implicit by kernel exceptions {sum(by_op.values())} on {len(kept)} models"
        + (" (" + ", ".join(f"{op} {n}" for op, n in by_op.most_common()) + ")" if by_op else "")
        + (
            f"; made explicit anyway (--force-explicit), onnxruntime gives other bits on {forced['mismatch']}, "
            f"the same on {forced['verified']}, cannot run {forced['unsupported']}, no input data {forced[None]}"
            if kept
            else ""
        )
    )
    for m, d in [(m, d) for m, d in kept if d["forced"] == "mismatch"][:show]:
        lines.append(f"  forced-explicit differs {m.rel}: {shorten(d['forced_why'])[:200]}")
    unsupported = Counter(ort_error_kind(d["ort_why"]) for _, d in rewritten if d["ort"] == "unsupported")
    if unsupported:
        lines.append(
            f"{name}: ort-unsupported by error: "
            + "; ".join(f"{n} x {why}" for why, n in unsupported.most_common())
        )
    for kind in ("structure", "nondeterministic"):
        listed = [(m, d) for m, d in rewritten if d["ort"] == kind]
        for m, d in listed[:show]:
            lines.append(f"  ort-{kind} {m.rel}: {shorten(d['ort_why'])[:200]}")
        if len(listed) > show:
            lines.append(f"  ... and {len(listed) - show} more ort-{kind}")
    listed = [(m, v) for m, d in done for v in d["violations"]]
    for m, v in listed[:show]:
        lines.append(f"  violation {m.rel}: {v}")
    if len(listed) > show:
        lines.append(f"  ... and {len(listed) - show} more violations")
    return lines


# ---------------------------------------------------------------------------------------------------------
# fold: the inverse of expand, against onnxruntime

FOLD_TOTAL = re.compile(
    r"^fold: (\d+) redundant broadcasts removed \((\d+) nodes, (\d+) initializers removed\), (\d+) left$", re.M
)
FOLD_REMOVED = re.compile(r"^fold: graph .*\((Expand|Tile|Reshape)\): removed, .* directly \(broadcast to ", re.M)


@dataclass
class FoldRun:
    """One `onnx-lint fold SRC -o OUT`: `problem` says why it failed (None if it did not)."""

    removed: int = 0
    nodes: int = 0
    initializers: int = 0
    left: int = 0
    problem: str | None = None


def run_fold(ctx: Context, src: Path, out: Path) -> FoldRun:
    run = run_binary(ctx, "fold", src, "-o", out)
    crash = crash_reason(ctx, run)
    if crash:
        return FoldRun(problem=crash)
    if run.returncode != 0:
        return FoldRun(problem=f"exit {run.returncode}: {tool_message(run)}")
    total = FOLD_TOTAL.search(run.stderr)
    if not total:
        return FoldRun(problem=f"exit 0 but no 'fold: N redundant broadcasts removed' line: {first_line(run.stderr)}")
    if not out.is_file():
        return FoldRun(problem="exit 0 but no output file written")
    removed, nodes, initializers, left = (int(g) for g in total.groups())
    listed = len(FOLD_REMOVED.findall(run.stderr))
    if listed != removed:
        return FoldRun(problem=f"stderr lists {listed} removals but its total says {removed}")
    return FoldRun(removed=removed, nodes=nodes, initializers=initializers, left=left)


def node_count(proto: Any) -> int:
    """Nodes of every graph of the model (subgraphs and function bodies included)."""
    total, stack = 0, [proto.graph.node, *(f.node for f in proto.functions)]
    while stack:
        nodes = stack.pop()
        total += len(nodes)
        for n in nodes:
            for a in n.attribute:
                if a.HasField("g"):
                    stack.append(a.g.node)
                stack.extend(g.node for g in a.graphs)
    return total


def checker_problem(src: Path, out: Path) -> tuple[str | None, bool]:
    """(why onnx's full checker rejects OUT but not SRC, or None; whether it rejects SRC too)."""
    import onnx
    import onnx.checker

    try:
        onnx.checker.check_model(onnx.load(str(out)), full_check=True)
        return None, False
    except Exception as e:  # noqa: BLE001 - ValidationError, InferenceError...
        try:
            onnx.checker.check_model(onnx.load(str(src)), full_check=True)
        except Exception:  # noqa: BLE001
            return None, True
        return f"onnx checker rejects the folded model (not the original): {exception_text(e)}", False


def check_fold(ctx: Context, model: Model) -> Outcome:
    """`fold MODEL -o OUT` and `fold(expand(MODEL))`: see `summarize_fold` and the README."""
    import onnx

    proto = onnx.load(str(model.path), load_external_data=False)
    feeds = load_test_data(proto, model.dir)
    if not feeds and not list(model.dir.glob("test_data_set_*")):
        feed = random_feed(proto, {}, EXAMPLE_SEED)
        if feed is not None:
            feeds = [feed]
    data: dict[str, Any] = {
        "removed": 0, "nodes": 0, "initializers": 0, "left": 0, "ort": None, "ort_why": "",
        "checker_skipped": False, "expanded": False, "refolded": 0, "same_nodes": False, "same_bytes": False,
        "round_ort": None, "round_why": "",
    }
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="onnx-lint-conformance-") as tmp:
        out, again = Path(tmp) / "fold.onnx", Path(tmp) / "again.onnx"
        expanded, round_trip = Path(tmp) / "expand.onnx", Path(tmp) / "round.onnx"
        # 1. fold of the model itself
        first = run_fold(ctx, model.path, out)
        if first.problem:
            return failed(first.problem, data=data)
        data.update(removed=first.removed, nodes=first.nodes, initializers=first.initializers, left=first.left)
        if first.nodes == 0 and first.initializers == 0:
            diff = first_difference(model.path, out)
            if diff is not None:
                problems.append(f"nothing removed but the output differs from the input at byte {diff}")
        else:
            why, skipped_checker = checker_problem(model.path, out)
            data["checker_skipped"] = skipped_checker
            if why:
                problems.append(why)
            if feeds:
                status, why, _ = ort_compare(model.path, out, feeds, control=False)
                data.update(ort=status, ort_why=why)
                if status == "mismatch":
                    problems.append(f"onnxruntime, fold: {why}")
            # idempotence: what one run leaves, a second leaves too
            second = run_fold(ctx, out, again)
            if second.problem or second.nodes:
                problems.append(f"fold of the output: {second.problem or f'removes {second.nodes} more nodes'}")
        # 2. fold(expand(m)) runs like m
        ex = run_expand(ctx, model.path, expanded)
        if ex.problem is None and ex.refused is None and ex.insertions:
            data["expanded"] = True
            back = run_fold(ctx, expanded, round_trip)
            if back.problem:
                problems.append(f"fold of expand's output: {back.problem}")
            else:
                data["refolded"] = back.removed
                folded = onnx.load(str(round_trip), load_external_data=False)
                data["same_nodes"] = node_count(folded) == node_count(proto)
                data["same_bytes"] = first_difference(model.path, round_trip) is None
                if not data["same_bytes"]:
                    why, _ = checker_problem(model.path, round_trip)
                    if why:
                        problems.append(f"fold(expand(m)): {why}")
                    if feeds:
                        status, why, _ = ort_compare(model.path, round_trip, feeds, control=False)
                        data.update(round_ort=status, round_why=why)
                        if status == "mismatch":
                            problems.append(f"onnxruntime, fold(expand(m)) vs m: {why}")
                else:
                    data["round_ort"] = "identical"
    if problems:
        head = f"{len(problems)} problems: " if len(problems) > 1 else ""
        return failed(head + "; ".join(problems), data=data)
    return passed(data=data)


def summarize_fold(results: Results, show: int) -> list[str]:
    data = [(m, o.data) for m, o in results if o.data is not None]
    folded = [(m, d) for m, d in data if d["nodes"] or d["initializers"]]
    ort = Counter(d["ort"] for _, d in folded)
    expanded = [(m, d) for m, d in data if d["expanded"]]
    rt = Counter(d["round_ort"] for _, d in expanded)
    lines = [
        f"fold: models folded {len(folded)} ({sum(d['removed'] for _, d in folded)} broadcasts removed, "
        f"{sum(d['nodes'] for _, d in folded)} nodes and {sum(d['initializers'] for _, d in folded)} initializers "
        f"removed), unchanged (byte-identical) {len(data) - len(folded)}; 'left' lines "
        f"{sum(d['left'] for _, d in data)} on {sum(1 for _, d in data if d['left'])} models",
        f"fold: onnxruntime on the folded models: bit-identical {ort['verified']}, ort-unsupported "
        f"{ort['unsupported']}, nondeterministic {ort['nondeterministic']}, mismatch {ort['mismatch']}, "
        f"no input data {ort[None]}; checker skipped (rejects the original too) "
        f"{sum(1 for _, d in folded if d['checker_skipped'])}",
        f"fold: fold(expand(m)) on the {len(expanded)} models expand rewrites: "
        f"{sum(d['refolded'] for _, d in expanded)} broadcasts removed; same node count as m "
        f"{sum(1 for _, d in expanded if d['same_nodes'])}, byte-identical to m "
        f"{sum(1 for _, d in expanded if d['same_bytes'])}; onnxruntime on the others: bit-identical "
        f"{rt['verified']}, ort-unsupported {rt['unsupported']}, nondeterministic {rt['nondeterministic']}, "
        f"mismatch {rt['mismatch']}, no input data {rt[None]}",
    ]
    others = [(m, d) for m, d in expanded if not d["same_nodes"]]
    for m, d in others[:show]:
        lines.append(f"  not the original's node count after fold(expand(m)): {m.rel}")
    if len(others) > show:
        lines.append(f"  ... and {len(others) - show} more")
    return lines


REAL_FULL_GROUPS = ("real/light/", "real/pytorch-converted/", "real/pytorch-operator/")


def check_outputs_full(ctx: Context, model: Model) -> Outcome:
    """The real models shipped in the package (light, pytorch-*): with every declared output shape and
    value_info removed (so nothing is filled in from declarations), `shapes` still gives every graph
    output a fully known shape."""
    if not model.rel.startswith(REAL_FULL_GROUPS):
        return skipped("not a light or pytorch-* model")
    import onnx

    m = onnx.load(str(model.path), load_external_data=False)
    del m.graph.value_info[:]
    for o in m.graph.output:
        o.type.tensor_type.ClearField("shape")
    with tempfile.TemporaryDirectory() as tmp:
        stripped = Path(tmp) / "model.onnx"
        stripped.write_bytes(m.SerializeToString())
        doc, why = run_json(ctx, Model(stripped, model.rel), "shapes")
    if why:
        return failed(why)
    ours = {v["name"]: v["shape"] for v in doc.get("values", []) if v.get("graph") == "main"}
    partial = [
        f"{o.name}: {format_dims(ours.get(o.name))}"
        for o in m.graph.output
        if not (isinstance(ours.get(o.name), list) and all(isinstance(d, int) for d in ours[o.name]))
    ]
    if partial:
        return failed("outputs not fully inferred: " + "; ".join(partial))
    return passed()


# ---------------------------------------------------------------------------------------------------------
# The real-model corpus (real/corpus.json): models shipped in PyPI wheels, torch exports (TorchScript and
# dynamo exporters), onnxruntime-quantized variants. Each is run by onnxruntime at two input sizes.

REAL_DIR = Path(__file__).resolve().parent / "real"
REAL_MANIFEST = REAL_DIR / "corpus.json"
REAL_SEED = 20251124
INCOMPLETE = "\x00incomplete"  # a key no value name has: symbolic_shape_infer left some shape unknown
# Function names allowed in a symbolic size: ours (floor, ceil, min, max, broadcast) and symbolic_shape_
# infer's sympy spellings (Min, Max, ceiling, Mod).
SIZE_FUNCS = frozenset({"floor", "ceil", "min", "max", "broadcast", "Min", "Max", "ceiling", "Mod"})
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MEMO: dict[Any, Any] = {}
_MEMO_LOCK = threading.Lock()


def memo(key: Any, compute: Callable[[], Any]) -> Any:
    """`compute()` once per key across the checks and threads (its exception, if any, is raised again)."""
    with _MEMO_LOCK:
        lock = _MEMO.setdefault(("lock", key), threading.Lock())
    with lock:
        if key not in _MEMO:
            try:
                _MEMO[key] = (True, compute())
            except Exception as e:  # noqa: BLE001 - kept and raised to every caller
                _MEMO[key] = (False, e)
    ok, value = _MEMO[key]
    if not ok:
        raise value
    return value


def find_real_models(cache: Path, substr: str | None, limit: int | None) -> list[Model]:
    """The models of real/corpus.json: a PyPI one at `cache/real-corpus/pypi/<name>/model.onnx` (written
    by real/fetch_pypi.py), a checked-in one under real/. Named `real-corpus/<name>`."""
    if not REAL_MANIFEST.is_file():
        return []
    manifest = json.loads(REAL_MANIFEST.read_text())
    models = []
    for spec in manifest["models"]:
        spec = {"default_bindings": manifest.get("default_bindings", {}), **spec}
        if "wheel" in spec:
            path = cache / "real-corpus" / "pypi" / spec["name"] / "model.onnx"
        else:
            path = REAL_DIR / spec["file"]
        models.append(Model(path, f"real-corpus/{spec['name']}", spec))
    if substr:
        models = [m for m in models if substr in m.rel]
    return models[:limit] if limit is not None else models


def real_proto(model: Model) -> Any:
    import onnx

    return memo(("proto", model.rel), lambda: onnx.load(str(model.path)))


def real_template(model: Model) -> dict[str, list[int | str]]:
    """For each graph input (not an initializer), its dims: an int, or a name bound by the bindings (the
    dim_param, or the manifest's template for an unnamed or -1 dim)."""
    proto = real_proto(model)
    inits = {t.name for t in proto.graph.initializer}
    given = model.spec.get("inputs", {})
    template = {}
    for vi in proto.graph.input:
        if vi.name in inits:
            continue
        if vi.name in given:
            template[vi.name] = list(given[vi.name])
            continue
        dims: list[int | str] = []
        for k, d in enumerate(vi.type.tensor_type.shape.dim):
            if d.HasField("dim_value") and d.dim_value > 0:
                dims.append(d.dim_value)
            elif d.HasField("dim_param") and d.dim_param:
                dims.append(d.dim_param)
            else:
                raise ValueError(f"input '{vi.name}' axis {k} is unnamed: give a template in corpus.json")
        template[vi.name] = dims
    return template


def real_symbols(model: Model) -> list[str]:
    """The dim_params of the graph inputs: the only symbols a size may be expressed in to count as known."""
    proto = real_proto(model)
    inits = {t.name for t in proto.graph.initializer}
    named = {d.dim_param for vi in proto.graph.input if vi.name not in inits
             for d in vi.type.tensor_type.shape.dim if d.HasField("dim_param") and d.dim_param}
    # ours gives each axis declared `?` a symbol of its own (`x[2]`); the anchors carry `?` itself.
    named |= {f"{name}[{k}]" for name, axes in anonymous_axes(model).items() for k in axes}
    return sorted(named)


def real_bindings(model: Model) -> list[dict[str, int]]:
    """The sizes the template's names take in each run (the manifest's, else the defaults by name), plus
    the symbol ours gives each graph-input axis declared `?` (`x[2]`: one symbol per axis, since `?` is
    no shared name) bound to that axis's size in the run."""
    if "bindings" in model.spec:
        runs = [dict(b) for b in model.spec["bindings"]]
    else:
        names = sorted({d for dims in real_template(model).values() for d in dims if isinstance(d, str)})
        table = model.spec["default_bindings"]
        missing = [n for n in names if n not in table]
        if missing:
            raise ValueError(f"no default binding for {missing}: give bindings in corpus.json")
        runs = [{n: table[n][k] for n in names} for k in range(2)]
    template = real_template(model)
    for name, axes in anonymous_axes(model).items():
        for b in runs:
            for k in axes:
                d = template[name][k]
                b[f"{name}[{k}]"] = d if isinstance(d, int) else b[d]
    return runs


def anonymous_axes(model: Model) -> dict[str, list[int]]:
    """The axes of each graph input declared with the dim_param `?`."""
    proto = real_proto(model)
    inits = {t.name for t in proto.graph.initializer}
    out: dict[str, list[int]] = {}
    for vi in proto.graph.input:
        if vi.name in inits:
            continue
        axes = [k for k, d in enumerate(vi.type.tensor_type.shape.dim) if d.dim_param == "?"]
        if axes:
            out[vi.name] = axes
    return out


def real_feed(model: Model, k: int, shapes: dict[str, list[int]] | None = None) -> dict[str, Any]:
    """Seeded random inputs for run `k` (the inputs named in `shapes` with those shapes instead), fixed values
    where the manifest says (silero's sample rate)."""
    import numpy as np
    import onnx

    proto = real_proto(model)
    binding = real_bindings(model)[k]
    rng = np.random.default_rng(REAL_SEED + k)
    types = {vi.name: vi.type.tensor_type.elem_type for vi in proto.graph.input}
    feed = {}
    for name, dims in real_template(model).items():
        concrete = [binding[d] if isinstance(d, str) else d for d in dims]
        if shapes is not None and name in shapes:
            concrete = shapes[name]
        if name in model.spec.get("values", {}):
            dtype = onnx.helper.tensor_dtype_to_np_dtype(types[name])
            feed[name] = np.full(concrete, model.spec["values"][name], dtype=dtype)
        else:
            feed[name] = random_array(types[name], concrete, rng)
    return feed


def real_runtime(model: Model, k: int) -> dict[str, tuple[int, ...]]:
    """The shapes onnxruntime gives every main-graph value when it runs the model on run `k`'s inputs
    (every node output exposed as a graph output; CPU, ORT_DISABLE_ALL)."""
    return memo(("runtime", model.rel, k), lambda: runtime_shapes(real_proto(model), real_feed(model, k)))


def real_ours(ctx: Context, model: Model, stripped: bool = False) -> dict[str, Any]:
    """Our `shapes --format json` of the main graph: name -> shape (list, or None for an unknown rank).
    `stripped`: of a copy of the model without its value_info and declared output shapes, i.e. what ours
    infers by itself (the dynamo exporter declares a shape for every value: torch's own expressions)."""

    def compute() -> dict[str, Any]:
        if stripped:
            m = strip_declared(real_proto(model))
            with tempfile.TemporaryDirectory(prefix="onnx-lint-conformance-") as tmp:
                path = Path(tmp) / "model.onnx"
                path.write_bytes(m.SerializeToString())
                doc, why = run_json(ctx, Model(path, model.rel), "shapes")
        else:
            doc, why = run_json(ctx, model, "shapes")
        if why:
            raise RuntimeError(f"onnx-lint shapes: {why}")
        ours: dict[str, Any] = {}
        for v in doc.get("values", []):
            if v.get("graph") == "main":
                ours.setdefault(v["name"], v.get("shape"))
        return ours

    return memo(("ours", model.rel, stripped), compute)


def strip_declared(proto: Any) -> Any:
    """A copy of the model without value_info and without the shapes of its graph outputs."""
    import onnx

    m = onnx.ModelProto()
    m.CopyFrom(proto)
    del m.graph.value_info[:]
    for o in m.graph.output:
        if o.type.WhichOneof("value") == "tensor_type":
            o.type.tensor_type.ClearField("shape")
    return m


def node_outputs(proto: Any) -> list[tuple[str, str, str]]:
    """(value, producing node's name, op type) of every main-graph node output."""
    return [(o, n.name, n.op_type) for n in proto.graph.node for o in n.output if o]


class NotEvaluable(Exception):
    """A symbolic size that cannot be evaluated; the argument says why (the category counted)."""


def evaluate_size(expr: str, binding: dict[str, int]) -> int:
    """The integer value of a symbolic size at `binding` (symbol -> int), with exact arithmetic (Fraction):
    integers, symbols, + - * / // %, parentheses, floor(), ceil()/ceiling(), min()/max() (Min, Max),
    Mod(), broadcast() (numpy: all equal or 1 -> the max). Bound symbols that are not Python identifiers
    (`p2o.DynamicDimension.0`) are replaced by placeholders first. Raises NotEvaluable('unbound symbol'),
    ('odd symbol name': not parsable, e.g. an unbound name that is not an identifier), ('syntax': another
    construct), ('broadcast': sizes that do not broadcast), ('not an integer')."""
    return size_function(expr, binding)(binding)


def size_function(expr: str, symbols: Iterable[str]) -> Callable[[dict[str, int]], int]:
    """`evaluate_size` with the text parsed once: the function that evaluates `expr` at a binding of
    `symbols` (the names that are not Python identifiers are found in the text by these), for one size
    evaluated at many bindings. A text that does not parse raises NotEvaluable here, the rest when called."""
    import ast
    import math
    from fractions import Fraction

    alias: dict[str, str] = {}  # a name in the parsed text -> its symbol
    text = expr
    for i, sym in enumerate(sorted(symbols, key=len, reverse=True)):
        if sym.isidentifier():
            alias[sym] = sym
        elif sym in text:
            placeholder = f"__sym{i}__"
            text = text.replace(sym, placeholder)
            alias[placeholder] = sym
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError):
        # not an expression: a symbol whose name is not a Python identifier and is not bound (an output's
        # declared `p2o.DynamicDimension.3`, a `?`)
        raise NotEvaluable("odd symbol name") from None

    def ev(node: Any, binding: dict[str, int]) -> Fraction:
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return Fraction(node.value)
        if isinstance(node, ast.Attribute):  # `a.b`: a dotted symbol name that is not bound
            raise NotEvaluable("odd symbol name")
        if isinstance(node, ast.Name):
            if alias.get(node.id) not in binding:
                raise NotEvaluable("unbound symbol")
            return Fraction(binding[alias[node.id]])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand, binding)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left, binding), ev(node.right, binding)
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Sub):
                return a - b
            if isinstance(node.op, ast.Mult):
                return a * b
            if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)):
                if b == 0:
                    raise NotEvaluable("division by zero")
                if isinstance(node.op, ast.Div):
                    return a / b
                return Fraction(math.floor(a / b)) if isinstance(node.op, ast.FloorDiv) else a - b * math.floor(a / b)
            raise NotEvaluable("syntax")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            f, args = node.func.id, [ev(a, binding) for a in node.args]
            if f == "floor" and len(args) == 1:
                return Fraction(math.floor(args[0]))
            if f in ("ceil", "ceiling") and len(args) == 1:
                return Fraction(math.ceil(args[0]))
            if f in ("min", "Min") and args:
                return min(args)
            if f in ("max", "Max") and args:
                return max(args)
            if f == "Mod" and len(args) == 2 and args[1] != 0:
                return args[0] - args[1] * math.floor(args[0] / args[1])
            if f == "broadcast" and args:
                big = max(args)
                if any(a not in (1, big) for a in args):
                    raise NotEvaluable("broadcast")
                return big
        raise NotEvaluable("syntax")

    def evaluate(binding: dict[str, int]) -> int:
        value = ev(tree.body, binding)
        if value.denominator != 1:
            raise NotEvaluable("not an integer")
        return int(value)

    return evaluate


def size_known(dim: Any, symbols: list[str]) -> bool:
    """A size counts as known if it is an integer, or an expression in the model's input dim_params only:
    a placeholder symbol a tool invents (onnx's `unk__N`, symbolic_shape_infer's `unk__`, `Slice_..._o0__d0`,
    an output's declared dim_param) does not count."""
    if isinstance(dim, bool) or dim is None:
        return False
    if isinstance(dim, int):
        return dim >= 0
    text = str(dim)
    for sym in sorted(symbols, key=len, reverse=True):
        text = text.replace(sym, " ")
    return all(name in SIZE_FUNCS for name in IDENTIFIER.findall(text))


def proto_shapes(graph: Any) -> dict[str, list[Any] | None]:
    """name -> dims (int, dim_param string, None) of the tensor values a tool's output model lists."""
    shapes: dict[str, list[Any] | None] = {}
    for vi in [*graph.input, *graph.value_info, *graph.output]:
        if vi.name in shapes or vi.type.WhichOneof("value") != "tensor_type":
            continue
        tt = vi.type.tensor_type
        if not tt.HasField("shape"):
            shapes[vi.name] = None
            continue
        shapes[vi.name] = [
            d.dim_value if d.HasField("dim_value") else (d.dim_param if d.dim_param else None) for d in tt.shape.dim
        ]
    return shapes


ANCHORS = ("onnx", "ssi", "osi")
ANCHOR_NAMES = {"onnx": "onnx", "ssi": "symbolic_shape_infer", "osi": "onnx-shape-inference"}


def anchor_shapes(model: Model, which: str) -> dict[str, list[Any] | None]:
    """The shapes onnx's inference (`onnx`: strict_mode=False, data_prop=True), onnxruntime's
    symbolic_shape_infer (`ssi`: auto_merge=True, guess_output_rank=True) or the onnx-shape-inference
    package (`osi`: infer_symbolic_shapes on onnx_ir, policy refine) gives the model's values."""

    def compute() -> dict[str, list[Any] | None]:
        import logging

        import onnx
        import onnx.shape_inference

        if which == "osi":
            import onnx_ir as ir
            from onnx_shape_inference import infer_symbolic_shapes

            logging.getLogger("onnx_shape_inference").setLevel(logging.CRITICAL)
            g = ir.load(str(model.path))
            infer_symbolic_shapes(g, warn_on_missing=False)
            return proto_shapes(ir.serde.serialize_model(g).graph)
        m = onnx.load(str(model.path))
        if which == "onnx":
            return proto_shapes(onnx.shape_inference.infer_shapes(m, strict_mode=False, data_prop=True).graph)
        from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference

        logging.getLogger("onnxruntime.tools.symbolic_shape_infer").setLevel(logging.CRITICAL)
        # SymbolicShapeInference.infer_shapes(m, auto_merge=True, guess_output_rank=True) without its last
        # step: when some shape stays unknown it saves the partial model as `sym_shape_infer_temp.onnx` plus
        # a uuid-named .data file into the current folder and raises; here the partial result is kept (what
        # it did infer counts) and nothing is written.
        ssi = SymbolicShapeInference(2**31 - 1, True, True, 0)
        ssi._preprocess(m)
        complete = False
        while ssi.run_:
            complete = ssi._infer_impl()
        ssi._update_output_from_vi()
        shapes = proto_shapes(ssi.out_mp_.graph)
        shapes[INCOMPLETE] = None if complete else []
        return shapes

    return memo((which, model.rel), compute)


def real_missing(model: Model) -> Outcome | None:
    if model.path.is_file():
        return None
    if "wheel" in model.spec:
        return failed(f"model file missing: {model.path} (real/fetch_pypi.py could not fetch {model.spec['wheel']}?)")
    return failed(f"model file missing: {model.path} (run real/export_torch.py)")


def check_real_load(ctx: Context, model: Model) -> Outcome:
    """`check --format json MODEL` reports no error-severity finding (each model loads and runs in
    onnxruntime, checked here at both sizes: any error is a false one)."""
    missing = real_missing(model)
    if missing:
        return missing
    data: dict[str, Any] = {"errors": [], "warnings": 0, "infos": Counter(), "ort": None}
    for k in range(len(real_bindings(model))):
        try:
            real_runtime(model, k)
        except Exception as e:  # noqa: BLE001
            data["ort"] = exception_text(e)
            return failed(f"onnxruntime cannot run the model (run {k}): {exception_text(e)}", data=data)
    doc, why = run_json(ctx, model, "check")
    if why:
        return failed(why, data=data)
    if doc.get("errors"):
        return failed(f"could not load: {doc['errors'][0].get('message')}", data=data)
    diags = doc.get("diagnostics", [])
    data["errors"] = [
        f"{d.get('code')} at node '{d.get('node')}' ({d.get('op_type')}): {d.get('message')}"
        if d.get("node") else f"{d.get('code')}: {d.get('message')}"
        for d in diags if d.get("severity") == "error"
    ]
    data["warnings"] = sum(1 for d in diags if d.get("severity") == "warning")
    data["w"] = [f"{d['code']} '{d.get('node')}': {d.get('message')}" for d in diags if d.get("code") in SHAPE_WARNINGS]
    data["infos"] = Counter(d.get("code") for d in diags if d.get("severity") == "info")
    if data["errors"]:
        more = f" [{len(data['errors'])} errors in all]" if len(data["errors"]) > 1 else ""
        return failed(f"false error: {data['errors'][0]}{more}", data=data)
    return passed(data=data)


def summarize_real_load(results: Results, show: int) -> list[str]:
    data = [(m, o.data) for m, o in results if o.data is not None]
    lines = [
        f"real-load: models {len(results)}; with false errors {sum(1 for _, d in data if d['errors'])} "
        f"({sum(len(d['errors']) for _, d in data)} errors); warnings {sum(d['warnings'] for _, d in data)}; "
        f"infos by code: {dict(sum((d['infos'] for _, d in data), Counter())) or '-'}"
    ]
    listed = [(m, e) for m, d in data for e in d["errors"]]
    for m, e in listed[:show]:
        lines.append(f"  false error {m.rel}: {e}")
    if len(listed) > show:
        lines.append(f"  ... and {len(listed) - show} more")
    warned = [(m, d["w"]) for m, d in data if d.get("w")]
    lines.append(
        f"real-load: W1/W2 (a broadcast or contract only under a condition on the symbols) on {len(warned)} models "
        f"({sum(len(w) for _, w in warned)} warnings)" + ("; the first of each:" if warned else "")
    )
    for m, w in warned[:show]:
        lines.append(f"  {m.rel} ({len(w)}): {shorten(w[0])[:220]}")
    return lines


# The failing values a W1 or W2 ends with: `; fails for height = 33 (3 vs 4)`.
FAILS_FOR = re.compile(r"; fails for ((?:[^,()]+ = \d+)(?:, [^,()]+ = \d+)*) \(")


def condition_run(model: Model, binding: dict[str, int]) -> str | None:
    """What onnxruntime says when it runs `model` with its inputs at `binding` (run 0's sizes for the
    symbols `binding` does not name): the first line of its refusal, or None when it runs."""
    sizes = {**real_bindings(model)[0], **binding}
    shapes = {
        name: [sizes[d] if isinstance(d, str) else d for d in dims]
        for name, dims in real_template(model).items()
    }
    # An axis declared `?` is its own symbol in ours (`x[2]`), whatever size the template gives it.
    for name, axes in anonymous_axes(model).items():
        for k in axes:
            if f"{name}[{k}]" in binding:
                shapes[name][k] = binding[f"{name}[{k}]"]
    return shapes_run(model, shapes)


def shapes_run(model: Model, shapes: dict[str, list[int]]) -> str | None:
    """What onnxruntime says when it runs `model` on run 0's inputs made of these shapes (`real_feed`):
    the first line of its refusal, or None when it runs. Once per model and shapes."""
    def run() -> str | None:
        try:
            session = ort_session(real_proto(model).SerializeToString())
            session.run(None, real_feed(model, 0, shapes))
        except Exception as e:  # noqa: BLE001 - any refusal is the observation
            return exception_text(e)
        return None

    key = tuple(sorted((name, tuple(dims)) for name, dims in shapes.items()))
    return memo(("shapes run", model.rel, key), run)


def check_real_conditions(ctx: Context, model: Model) -> Outcome:
    """Every W1 and W2 `check` reports on the model is a true condition: onnxruntime, run with the input sizes
    the warning says fail (`fails for height = 33`; the other sizes as in run 0), refuses the model. A
    warning that names no failing values, or values of symbols that are no input size of the model (a
    name an exporter declared on an inner value), cannot be run, and is counted apart."""
    missing = real_missing(model)
    if missing:
        return missing
    doc, why = run_json(ctx, model, "check")
    if why:
        return failed(why)
    inputs = set(real_bindings(model)[0])
    data: dict[str, Any] = {"confirmed": 0, "unnamed": [], "not_inputs": [], "wrong": [], "too_large": []}
    for d in doc.get("diagnostics", []):
        if d.get("code") not in SHAPE_WARNINGS:
            continue
        said = f"{d['code']} '{d.get('node')}': {d.get('message')}"
        m = FAILS_FOR.search(d.get("message", ""))
        if not m:
            data["unnamed"].append(said)
            continue
        binding = {k.strip(): int(v) for k, v in (a.split(" = ") for a in m.group(1).split(", "))}
        if not set(binding) <= inputs:
            data["not_inputs"].append(said)
            continue
        refusal = condition_run(model, binding)
        if refusal is None:
            data["wrong"].append(f"{said} (onnxruntime runs it at {binding})")
        elif refusal.startswith("MemoryError"):
            # the harness cannot allocate the inputs (magika's 10^9-row clamp): onnxruntime never ran
            data["too_large"].append(said)
        else:
            data["confirmed"] += 1
    if data["wrong"]:
        return failed(f"a warning onnxruntime disproves: {data['wrong'][0]}", data=data)
    return passed(data=data)


def summarize_real_conditions(results: Results, show: int) -> list[str]:
    data = [(m, o.data) for m, o in results if o.data is not None]
    lines = [
        f"real-conditions: W1/W2 confirmed by onnxruntime failing at the sizes they name: "
        f"{sum(d['confirmed'] for _, d in data)}; naming no failing sizes: "
        f"{sum(len(d['unnamed']) for _, d in data)}; failing sizes of symbols that are no input size: "
        f"{sum(len(d['not_inputs']) for _, d in data)}; inputs too large to allocate: "
        f"{sum(len(d['too_large']) for _, d in data)}"
    ]
    for key in ("unnamed", "not_inputs", "too_large"):
        for m, d in data:
            for w in d[key][:2]:
                lines.append(f"  {key} {m.rel}: {shorten(w)[:200]}")
    return lines


SIZE_CLASSES = ("agree", "contradict", "unknown", "unbound symbol", "odd symbol name", "syntax", "broadcast",
                "not an integer", "division by zero")


def compare_sizes(mine: Any, actual: tuple[int, ...], binding: dict[str, int]) -> list[str]:
    """Each size of `actual` classified against ours: `agree`, `contradict` (another rank counts as a
    contradiction of every size), `unknown` (null, or the rank unknown), or why ours is not evaluable."""
    if mine is None:
        return ["unknown"] * len(actual)
    if len(mine) != len(actual):
        return ["contradict"] * max(1, len(actual))
    classes = []
    for d, a in zip(mine, actual):
        if d is None:
            classes.append("unknown")
            continue
        try:
            v = d if isinstance(d, int) else evaluate_size(str(d), binding)
        except NotEvaluable as e:
            classes.append(str(e))
            continue
        classes.append("agree" if v == a else "contradict")
    return classes


def check_real_shapes(ctx: Context, model: Model) -> Outcome:
    """Every size ours infers for a main-graph node output (its symbolic expressions evaluated at the bound
    sizes) equals the size onnxruntime produces, at both input sizes."""
    missing = real_missing(model)
    if missing:
        return missing
    proto = real_proto(model)
    counts: Counter[str] = Counter()
    contradictions: list[str] = []
    bindings = real_bindings(model)
    # As shipped, and stripped of the declared shapes (value_info, outputs): what ours infers by itself.
    for stripped in (False, True):
        ours = real_ours(ctx, model, stripped)
        for k, binding in enumerate(bindings):
            actual = real_runtime(model, k)
            for name, _node, op in node_outputs(proto):
                if name not in actual:
                    continue
                classes = compare_sizes(ours.get(name), actual[name], binding)
                counts.update(classes)
                if "contradict" in classes and len(contradictions) < 50:
                    contradictions.append(
                        f"run {k} {binding}{' (declared shapes stripped)' if stripped else ''}: '{name}' ({op}): "
                        f"ours {format_dims(ours.get(name))}, onnxruntime {format_dims(list(actual[name]))}"
                    )
    data = {"counts": counts, "contradictions": contradictions, "runs": len(bindings)}
    if counts["contradict"]:
        return failed(f"{counts['contradict']} sizes contradict onnxruntime, first: {contradictions[0]}", data=data)
    return passed(data=data)


def summarize_real_shapes(results: Results, show: int) -> list[str]:
    data = [(m, o.data) for m, o in results if o.data is not None]
    total: Counter[str] = Counter()
    for _, d in data:
        total.update(d["counts"])
    n = sum(total.values())
    not_eval = {c: total[c] for c in SIZE_CLASSES[3:] if total[c]}
    lines = [
        f"real-shapes: sizes compared with onnxruntime's (every main-graph node output, both runs, the model as "
        f"shipped and stripped of its declared shapes): {n}; "
        f"agree {total['agree']}, contradict {total['contradict']}, unknown (null) {total['unknown']}, "
        f"not evaluable {sum(not_eval.values())} {not_eval or ''}".rstrip()
    ]
    listed = [(m, c) for m, d in data for c in d["contradictions"]]
    for m, c in listed[:show]:
        lines.append(f"  contradiction {m.rel}: {c}")
    if len(listed) > show:
        lines.append(f"  ... and {len(listed) - show} more contradictions")
    return lines


def check_real_dims(ctx: Context, model: Model) -> Outcome:
    """Counts, over every main-graph node output (sizes as onnxruntime runs it), the sizes each tool knows:
    ours, onnx's inference (data_prop), onnxruntime's symbolic_shape_infer and onnx-shape-inference; fails
    if ours knows fewer than the best of the three. A known size of an anchor that onnxruntime contradicts is counted too."""
    missing = real_missing(model)
    if missing:
        return missing
    proto = real_proto(model)
    symbols = real_symbols(model)
    bindings = real_bindings(model)
    runs = [real_runtime(model, k) for k in range(len(bindings))]
    values = [(name, runs[0][name]) for name, _, _ in node_outputs(proto) if name in runs[0]]
    tools: dict[str, dict[str, Any] | None] = {"ours": real_ours(ctx, model), "stripped": real_ours(ctx, model, True)}
    raised: dict[str, str] = {}
    incomplete = False
    for which in ANCHORS:
        try:
            tools[which] = anchor_shapes(model, which)
            incomplete = incomplete or (which == "ssi" and tools[which].get(INCOMPLETE) is not None)
        except Exception as e:  # noqa: BLE001 - an anchor that raises knows nothing
            tools[which] = None
            raised[which] = exception_text(e)
    known: dict[str, int] = {}
    wrong: dict[str, int] = {}
    per_value: dict[str, dict[str, int]] = {}
    for which, shapes in tools.items():
        known[which] = wrong[which] = 0
        per_value[which] = {}
        if shapes is None:
            continue
        for name, actual in values:
            dims = shapes.get(name)
            if dims is None or len(dims) != len(actual):
                continue
            for axis, d in enumerate(dims):
                if not size_known(d, symbols):
                    continue
                known[which] += 1
                per_value[which][name] = per_value[which].get(name, 0) + 1
                for binding, run in zip(bindings, runs):
                    try:
                        v = d if isinstance(d, int) else evaluate_size(str(d), binding)
                    except NotEvaluable:
                        continue
                    if name in run and v != run[name][axis]:
                        wrong[which] += 1
                        break
    total = sum(len(a) for _, a in values)
    best = max(known[a] for a in ANCHORS)
    # Where ours knows fewer sizes of a value than an anchor: by the op producing it (what to work on).
    # `starts`: only where the loss starts (ours knows, on every input of the node, what the anchors know).
    gap = {
        name: max(per_value[a].get(name, 0) for a in ANCHORS) - per_value["ours"].get(name, 0)
        for name, _ in values
    }
    gaps: Counter[str] = Counter()
    starts: Counter[str] = Counter()
    for node in proto.graph.node:
        for name in node.output:
            if gap.get(name, 0) > 0:
                gaps[node.op_type] += gap[name]
                if all(gap.get(i, 0) <= 0 for i in node.input):
                    starts[node.op_type] += gap[name]
    data = {"total": total, "values": len(values), "known": known, "wrong": wrong, "raised": raised, "best": best,
            "gaps": gaps, "starts": starts, "ssi_incomplete": incomplete}
    if known["ours"] < best:
        who = ANCHOR_NAMES[max(ANCHORS, key=lambda a: known[a])]
        return failed(f"ours knows {known['ours']} of {total} sizes, {who} {best}", data=data)
    return passed(data=data)


def summarize_real_dims(results: Results, show: int) -> list[str]:
    data = [(m, o.data) for m, o in results if o.data is not None]
    lines = [
        f"real-dims: sizes of main-graph node outputs {sum(d['total'] for _, d in data)}; known: ours "
        f"{sum(d['known']['ours'] for _, d in data)} (without the declared shapes: "
        f"{sum(d['known']['stripped'] for _, d in data)}), onnx {sum(d['known']['onnx'] for _, d in data)}, "
        f"symbolic_shape_infer {sum(d['known']['ssi'] for _, d in data)}, onnx-shape-inference "
        f"{sum(d['known']['osi'] for _, d in data)}; known but contradicted by onnxruntime: ours "
        f"{sum(d['wrong']['ours'] for _, d in data)}, "
        + ", ".join(f"{ANCHOR_NAMES[a]} {sum(d['wrong'][a] for _, d in data)}" for a in ANCHORS)
    ]
    partial = [m.rel.split("/")[-1] for m, d in data if d["ssi_incomplete"]]
    if partial:
        lines.append(
            f"real-dims: symbolic_shape_infer left some shape unknown (its infer_shapes raises 'Incomplete "
            f"symbolic shape inference'; what it inferred is counted) on {len(partial)} models: {', '.join(partial)}"
        )
    for which in ANCHORS:
        hit = [(m, d["raised"][which]) for m, d in data if which in d["raised"]]
        if hit:
            lines.append(
                f"real-dims: {ANCHOR_NAMES[which]} raised on {len(hit)} models: "
                + "; ".join(f"{m.rel.split('/')[-1]}: {shorten(w)[:80]}" for m, w in hit[:show])
            )
    contradicted = [(m, d["wrong"]) for m, d in data if any(d["wrong"].values())]
    if contradicted:
        lines.append(
            "real-dims: known sizes onnxruntime contradicts, by model: "
            + "; ".join(f"{m.rel.split('/')[-1]}: " + ", ".join(f"{ANCHOR_NAMES.get(t, t)} {n}" for t, n in w.items() if n)
                        for m, w in contradicted[:show])
        )
    for key, what in (("gaps", "by producing op"), ("starts", "where the loss starts (inputs as known as the anchors')")):
        gaps = sum((d[key] for _, d in data), Counter())
        lines.append(
            f"real-dims: sizes an anchor knows and ours does not, {what}: "
            + (", ".join(f"{op} {n}" for op, n in gaps.most_common(15)) or "none")
        )
    lines.append(
        f"  {'model':30} {'values':>6} {'sizes':>6} {'ours':>6} {'onnx':>6} {'ssi':>6} {'osi':>6} {'best':>6} "
        f"{'ours, declared shapes stripped':>30}"
    )
    for m, d in data:
        k = d["known"]
        lines.append(
            f"  {m.rel.split('/')[-1]:30} {d['values']:>6} {d['total']:>6} {k['ours']:>6} {k['onnx']:>6} "
            f"{k['ssi']:>6} {k['osi']:>6} {d['best']:>6} {k['stripped']:>30}{'  <' if k['ours'] < d['best'] else ''}"
        )
    return lines


# --- planted faults

BROADCAST_PREFERENCE = ("Add", "Mul", "Sub", "Div")


def constant_values(proto: Any) -> dict[str, Any]:
    """name -> numpy array of the main graph's initializers (not graph inputs) and Constant node values."""
    from onnx import numpy_helper

    inputs = {vi.name for vi in proto.graph.input}
    values = {t.name: numpy_helper.to_array(t) for t in proto.graph.initializer if t.name not in inputs}
    for n in proto.graph.node:
        if n.op_type == "Constant" and n.domain in ("", "ai.onnx"):
            for a in n.attribute:
                if a.name == "value":
                    values[n.output[0]] = numpy_helper.to_array(a.t)
    return values


def plant_candidate(proto: Any, shapes: dict[str, tuple[int, ...]]) -> tuple[int, int, str, int] | None:
    """A broadcasting node (Add, Mul, Sub, Div first, then the other multidirectional ops) of the main graph
    with a constant input (an initializer or a Constant, possibly through a DequantizeLinear) that has, on
    some axis, a size n >= 3 that another input also has there at run time: (node index, input slot, name
    of that input, axis of the constant). Shortened to n - 1 (>= 2) it no longer broadcasts."""
    consts = constant_values(proto)
    producer = {o: i for i, n in enumerate(proto.graph.node) for o in n.output}
    for i in broadcast_order(proto):
        node = proto.graph.node[i]
        for slot, name in enumerate(node.input):
            value = constant_behind(proto, name, consts, producer)
            if value is None or value.ndim == 0 or value.dtype.kind not in "fiu":
                continue
            others = [shapes.get(x) for j, x in enumerate(node.input) if j != slot and x]
            for axis in reversed(range(value.ndim)):
                n = value.shape[axis]
                back = value.ndim - axis
                if n >= 3 and any(o is not None and len(o) >= back and o[len(o) - back] == n for o in others):
                    return i, slot, name, axis
    return None


def broadcast_order(proto: Any) -> list[int]:
    """Indices of the main graph's multidirectional broadcasting nodes, Add, Mul, Sub, Div first."""
    return sorted(
        (i for i, n in enumerate(proto.graph.node) if n.op_type in MULTIDIRECTIONAL and n.domain in ("", "ai.onnx")),
        key=lambda i: (BROADCAST_PREFERENCE.index(proto.graph.node[i].op_type)
                       if proto.graph.node[i].op_type in BROADCAST_PREFERENCE else 9, i),
    )


def constant_behind(proto: Any, name: str, consts: dict[str, Any], producer: dict[str, int]) -> Any:
    """The constant value `name` is, or the constant a DequantizeLinear of it reads (its x), else None."""
    if name in consts:
        return consts[name]
    if name in producer:
        p = proto.graph.node[producer[name]]
        if p.op_type == "DequantizeLinear" and p.input[0] in consts:
            return consts[p.input[0]]
    return None


# Ops that keep their input's shape (and read no other tensor input of that shape): a Conv's channels
# pass through them unchanged.
SHAPE_KEEPING = frozenset(
    "Relu Sigmoid HardSigmoid HardSwish Tanh LeakyRelu Clip Identity Erf Elu Selu Softplus Gelu "
    "QuantizeLinear DequantizeLinear BatchNormalization".split()
)


def channel_candidate(proto: Any, shapes: dict[str, tuple[int, ...]]) -> tuple[int, int, int] | None:
    """A broadcasting node one of whose inputs comes (through shape-keeping ops) from a Conv (group 1,
    constant weights, possibly quantized) with M >= 3 output channels, where another input has M channels
    too, not from the same Conv (SiLU's `x * Sigmoid(x)` would shrink with it): (node index, input slot, the
    Conv's index). Fewer output channels then meet M at that node."""
    consts = constant_values(proto)
    producer = {o: i for i, n in enumerate(proto.graph.node) for o in n.output}

    def source(name: str) -> str:
        while name in producer and proto.graph.node[producer[name]].op_type in SHAPE_KEEPING:
            name = proto.graph.node[producer[name]].input[0]
        return name

    for i in broadcast_order(proto):
        node = proto.graph.node[i]
        for slot, name in enumerate(node.input):
            mine = shapes.get(name)
            if mine is None or len(mine) < 3:
                continue
            current = source(name)
            if current not in producer:
                continue
            conv = proto.graph.node[producer[current]]
            group = next((a.i for a in conv.attribute if a.name == "group"), 1)
            if conv.op_type != "Conv" or conv.domain not in ("", "ai.onnx") or group != 1:
                continue
            weight = constant_behind(proto, conv.input[1], consts, producer)
            m_out = mine[1]
            if weight is None or weight.shape[0] != m_out or m_out < 3:
                continue
            others = [shapes.get(x) for j, x in enumerate(node.input) if j != slot and x and source(x) != current]
            if any(o is not None and len(o) == len(mine) and o[1] == m_out for o in others):
                return i, slot, producer[current]
    return None


def shorten_input(m: Any, index: int, slot: int, axis: int) -> tuple[list[int], list[int], int]:
    """In model `m`, makes input `slot` of node `index` read its constant (or the constant behind its
    DequantizeLinear) shortened by one along `axis`: a new initializer, and for a DequantizeLinear a copy of
    it (per-channel scale and zero point shortened alike) inserted just before the node, so other readers
    are unchanged. Returns (old shape, new shape, how many nodes were inserted before `index`)."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    consts = constant_values(m)
    producer = {o: i for i, n in enumerate(m.graph.node) for o in n.output}
    node = m.graph.node[index]
    name = node.input[slot]

    def short(source: str) -> tuple[str, list[int], list[int]]:
        value = consts[source]
        cut = np.take(value, range(value.shape[axis] - 1), axis=axis)
        new = f"{source}__planted_short"
        if new not in {t.name for t in m.graph.initializer}:
            m.graph.initializer.append(numpy_helper.from_array(cut, new))
        return new, list(value.shape), list(cut.shape)

    if name in consts:
        new, old_shape, new_shape = short(name)
        node.input[slot] = new
        return old_shape, new_shape, 0
    dq = m.graph.node[producer[name]]
    n = consts[dq.input[0]].shape[axis]
    copy = onnx.NodeProto()
    copy.CopyFrom(dq)
    copy.name = (dq.name or "dequantize") + "__planted"
    copy.output[0] = dq.output[0] + "__planted"
    copy.input[0], old_shape, new_shape = short(dq.input[0])
    for k in (1, 2):
        if len(copy.input) > k and copy.input[k] in consts and consts[copy.input[k]].size == n and n > 1:
            copy.input[k] = short(copy.input[k])[0] if consts[copy.input[k]].ndim == 1 and axis == 0 else copy.input[k]
    node.input[slot] = copy.output[0]
    m.graph.node.insert(index, copy)
    return old_shape, new_shape, 1


def plant_short(proto: Any, shapes: dict[str, tuple[int, ...]]) -> tuple[Any, str, int, str] | None:
    """A copy of the model with a planted broadcast fault: a constant read by a broadcasting node shortened
    by one along a broadcast axis or, when no broadcasting node reads a constant (the CNNs: residual Adds
    of activations), the output channels of a Conv feeding one (its weight and bias shortened by one).
    Returns (model, the broadcasting node's name, n, description), n being the size that meets n - 1."""
    import onnx

    m = onnx.ModelProto()
    m.CopyFrom(proto)
    found = plant_candidate(proto, shapes)
    if found is not None:
        i, slot, name, axis = found
        node = m.graph.node[i]
        if not node.name:
            node.name = f"planted_{node.op_type}_{i}"
        label = f"'{node.name}' ({node.op_type})"
        old, new, _ = shorten_input(m, i, slot, axis)
        return m, node.name, old[axis], f"input {slot} '{name}' {old} -> {new} of {label}"
    found = channel_candidate(proto, shapes)
    if found is None:
        return None
    i, slot, c = found
    node = m.graph.node[i]
    if not node.name:
        node.name = f"planted_{node.op_type}_{i}"
    target = node.name
    conv = m.graph.node[c]
    conv_label = f"'{conv.name}'" if conv.name else f"#{c}"
    old, new, inserted = shorten_input(m, c, 1, 0)
    if len(m.graph.node[c + inserted].input) > 2 and m.graph.node[c + inserted].input[2]:
        shorten_input(m, c + inserted, 2, 0)
    return m, target, old[0], (
        f"Conv {conv_label} weight {old} -> {new} (and bias), so {old[0] - 1} channels meet {old[0]} at "
        f"input {slot} of '{target}' ({node.op_type})"
    )


# The contrib operators whose operand contract the planted contrib faults break: op_type -> (slot, axis)
# of a constant operand shortened by one (a 1-D bias or gamma of the last axis).
CONTRIB_OPERANDS = {
    "BiasGelu": (1, 0),
    "FastGelu": (1, 0),
    "SkipLayerNormalization": (2, 0),
    "SkipSimplifiedLayerNormalization": (2, 0),
}
# onnxruntime's quantized element-wise operators: their A (slot 0) and B (slot 3) broadcast.
QLINEAR_BINARY = ("QLinearAdd", "QLinearMul")


def plant_contrib(proto: Any, shapes: dict[str, tuple[int, ...]]) -> list[tuple[Any, str, int, str]]:
    """Copies of the model with a planted fault at a contrib operator, one per kind present: the first
    node of each op of CONTRIB_OPERANDS reading a constant operand gets it shortened by one; the first
    QLinearAdd/QLinearMul one of whose operands comes (through shape-keeping ops) from a QLinearConv of
    group 1 and constant weights gets that convolution's output channels shortened by one (weight, bias
    and per-channel weight scale and zero point), so M - 1 channels meet M. Each as plant_short's result."""
    import onnx

    consts = constant_values(proto)
    producer = {o: i for i, n in enumerate(proto.graph.node) for o in n.output}
    planted = []
    done: set[str] = set()

    def copy_naming(i: int, op: str) -> tuple[Any, str]:
        """A copy of the model, and the name of its node `i` (named if it has none)."""
        m = onnx.ModelProto()
        m.CopyFrom(proto)
        target = m.graph.node[i]
        if not target.name:
            target.name = f"planted_{op}_{i}"
        return m, target.name

    def origin(name: str) -> str:
        """The value `name` is made from through shape-keeping ops."""
        while name in producer and proto.graph.node[producer[name]].op_type in SHAPE_KEEPING:
            name = proto.graph.node[producer[name]].input[0]
        return name

    for i, node in enumerate(proto.graph.node):
        op = node.op_type
        if node.domain != "com.microsoft" or op in done:
            continue
        if op in CONTRIB_OPERANDS:
            slot, axis = CONTRIB_OPERANDS[op]
            if len(node.input) <= slot or node.input[slot] not in consts or consts[node.input[slot]].shape[axis] < 2:
                continue
            m, target = copy_naming(i, op)
            old, new, _ = shorten_input(m, i, slot, axis)
            planted.append((m, target, old[axis], f"{op} '{target}' input {slot} '{node.input[slot]}' {old} -> {new}"))
            done.add(op)
        elif op in QLINEAR_BINARY:
            for slot in (0, 3):
                mine = shapes.get(node.input[slot]) if len(node.input) > slot else None
                if mine is None or len(mine) < 3:
                    continue
                current = origin(node.input[slot])
                if origin(node.input[3 - slot]) == current:
                    continue  # both operands from the one convolution (hardswish's x * hardsigmoid(x))
                conv_index = producer.get(current)
                if conv_index is None:
                    continue
                conv = proto.graph.node[conv_index]
                group = next((a.i for a in conv.attribute if a.name == "group"), 1)
                if conv.op_type != "QLinearConv" or group != 1 or conv.input[3] not in consts:
                    continue
                m_out = consts[conv.input[3]].shape[0]
                other = shapes.get(node.input[3 - slot])
                if m_out < 3 or mine[1] != m_out or other is None or len(other) != len(mine) or other[1] != m_out:
                    continue
                m, target = copy_naming(i, op)
                old, new, _ = shorten_input(m, conv_index, 3, 0)
                for k in (4, 5, 8):  # per-channel weight scale and zero point, bias
                    name = conv.input[k] if len(conv.input) > k else ""
                    if name in consts and consts[name].ndim == 1 and consts[name].shape[0] == m_out:
                        shorten_input(m, conv_index, k, 0)
                planted.append((m, target, m_out, (
                    f"QLinearConv '{conv.name or conv_index}' weight {old} -> {new} (and bias), so {m_out - 1} "
                    f"channels meet {m_out} at input {slot} of {op} '{target}'")))
                done.add(op)
                break
    return planted


def fixed_inputs(proto: Any, shapes: dict[str, list[int]]) -> Any:
    """A copy of the model with the given graph inputs' dims fixed to integers."""
    import onnx

    m = onnx.ModelProto()
    m.CopyFrom(proto)
    for vi in m.graph.input:
        if vi.name in shapes:
            dims = vi.type.tensor_type.shape.dim
            del dims[:]
            for d in shapes[vi.name]:
                dims.add().dim_value = d
    return m


ORT_NODE = re.compile(r"(?:Name:\s*'([^']*)'|Node \(([^)]*)\))")
ORT_SIZES = re.compile(r"(\d+) by (\d+)")


def ort_refusal(model_bytes: bytes, feed: dict[str, Any]) -> str | None:
    """onnxruntime's error loading or running the model on `feed`, or None if it runs."""
    try:
        ort_session(model_bytes).run(None, feed)
    except Exception as e:  # noqa: BLE001
        return " ".join(str(e).split())
    return None


def innermost_node(message: str) -> str | None:
    """The last node onnxruntime's error names (nested If/Loop errors name the outer node first)."""
    names = [a or b for a, b in ORT_NODE.findall(message)]
    return names[-1] if names else None


def find_error(
    ctx: Context, proto: Any, node: str | None, sizes: tuple[int, int] | None, codes: tuple[str, ...] = ("E1",)
) -> tuple[bool, str]:
    """Whether `check --format json` of `proto` reports an error of one of `codes` (at `node` of the main
    graph, with both `sizes` in the message, when given), and what it reported."""
    with tempfile.TemporaryDirectory(prefix="onnx-lint-conformance-") as tmp:
        path = Path(tmp) / "model.onnx"
        path.write_bytes(proto.SerializeToString())
        doc, why = run_json(ctx, Model(path, "planted"), "check")
    if why:
        return False, why
    e1 = [d for d in doc.get("diagnostics", []) if d.get("code") in codes]
    errors = [f"{d.get('code')} '{d.get('node')}': {d.get('message')}" for d in doc.get("diagnostics", [])
              if d.get("severity") in ("error", "warning")]
    for d in e1:
        if node is not None and (d.get("node") != node or d.get("graph") != "main"):
            continue
        message = d.get("message", "")
        if sizes and not any(f"{a} vs {b}" in message for a, b in (sizes, sizes[::-1])):
            continue
        return True, f"{d.get('code')} '{d.get('node')}': {message}"
    return False, "reported: " + ("; ".join(errors[:3]) if errors else "no error or warning")


def check_real_faults(ctx: Context, model: Model) -> Outcome:
    """Planted faults: (1) a constant read by a broadcasting node, shortened by one element along a
    broadcast axis; (2) for the models with a `size_fault`, the inputs fixed to a size onnxruntime refuses;
    (3) at onnxruntime's contrib operators, one per op present (plant_contrib): BiasGelu's and FastGelu's
    bias, SkipLayerNormalization's gamma shortened by one, QLinearAdd/QLinearMul fed M - 1 channels.
    onnxruntime must refuse each planted model (at load or run), and ours must report E1 at the planted node
    (for (2): the node onnxruntime's error names; for (3): E1 or E2, the contrib operands being contracts but
    for the QLinear broadcasts) with both sizes."""
    missing = real_missing(model)
    if missing:
        return missing
    proto = real_proto(model)
    faults: list[dict[str, Any]] = []
    planted = plant_short(proto, real_runtime(model, 0))
    if planted is None:
        faults.append({"kind": "short", "status": "no candidate", "detail": "no constant input of a broadcasting node"})
    else:
        m, node, n, what = planted
        refusal = ort_refusal(m.SerializeToString(), real_feed(model, 0))
        found, said = find_error(ctx, m, node, (n, n - 1))
        status = "found" if found and refusal else ("not refused by onnxruntime" if not refusal else "missed")
        faults.append({"kind": "short", "status": status, "detail": f"{what}; ours: {said}",
                       "ort": (refusal or "")[:200]})
    for m, node, n, what in plant_contrib(proto, real_runtime(model, 0)):
        refusal = ort_refusal(m.SerializeToString(), real_feed(model, 0))
        # A contrib operator's bias or gamma is a contract (E2); QLinearAdd's and QLinearMul's operands
        # broadcast (E1).
        found, said = find_error(ctx, m, node, (n, n - 1), codes=("E1", "E2"))
        status = "found" if found and refusal else ("not refused by onnxruntime" if not refusal else "missed")
        faults.append({"kind": "contrib", "status": status, "detail": f"{what}; ours: {said}",
                       "ort": (refusal or "")[:200]})
    if model.spec.get("size_fault"):
        shapes = model.spec["size_fault"]
        m = fixed_inputs(proto, shapes)
        refusal = ort_refusal(m.SerializeToString(), real_feed(model, 0, shapes))
        node = innermost_node(refusal) if refusal else None
        got = ORT_SIZES.findall(refusal or "")
        sizes = (int(got[-1][0]), int(got[-1][1])) if got else None
        found, said = find_error(ctx, m, node, sizes)
        status = "found" if found and refusal else ("not refused by onnxruntime" if not refusal else "missed")
        where = f"onnxruntime refuses at node '{node}'" + (f" ({sizes[0]} by {sizes[1]})" if sizes else "")
        faults.append({"kind": "size", "status": status,
                       "detail": f"inputs {shapes}: {where if refusal else 'onnxruntime runs it'}; ours: {said}",
                       "ort": (refusal or "")[:200]})
    data = {"faults": faults}
    bad = [f for f in faults if f["status"] not in ("found", "no candidate")]
    if bad:
        return failed("; ".join(f"{f['kind']} fault {f['status']}: {f['detail']}" for f in bad), data=data)
    return passed(data=data)


def summarize_real_faults(results: Results, show: int) -> list[str]:
    faults = [(m, f) for m, o in results if o.data for f in o.data["faults"]]
    lines = []
    for kind, label in (("short", "constant shortened by one"), ("size", "input size onnxruntime refuses"),
                        ("contrib", "contrib operator's operand shortened by one")):
        mine = [(m, f) for m, f in faults if f["kind"] == kind]
        if kind == "contrib":
            for op in (*CONTRIB_OPERANDS, *QLINEAR_BINARY):
                at = [f for _, f in mine if f["detail"].startswith(f"{op} ") or f" of {op} " in f["detail"]]
                if at:
                    lines.append(f"real-faults: contrib {op}: planted {len(at)}, found "
                                 f"{sum(f['status'] == 'found' for f in at)}")
        c = Counter(f["status"] for _, f in mine)
        lines.append(
            f"real-faults: {label}: planted {len(mine) - c['no candidate']}, found ({'E1 or E2' if kind == 'contrib' else 'E1'} at the node, both sizes) "
            f"{c['found']}, missed {c['missed']}, not refused by onnxruntime {c['not refused by onnxruntime']}, "
            f"no candidate {c['no candidate']}"
        )
    listed = [(m, f) for m, f in faults if f["status"] not in ("found",)]
    for m, f in listed[:show]:
        lines.append(f"  {f['status']} {m.rel} ({f['kind']}): {shorten(f['detail'])[:260]}")
    return lines


# --- expand


def check_real_expand(ctx: Context, model: Model) -> Outcome:
    """`expand MODEL -o OUT` exits 0; OUT runs bit-identically to MODEL in onnxruntime (ORT_DISABLE_ALL) on
    the seeded inputs of both sizes; `expand OUT` inserts nothing more; no broadcasting node of OUT's main graph still broadcasts (onnx's
    inference with the inputs fixed, else onnxruntime's run-time shapes) and `check --explicit` of OUT
    reports no B001, except where expand's stderr says `left implicit`. A mismatch first seen at a Pow is
    counted apart (a scalar exponent made explicit changes onnxruntime's kernel)."""
    import onnx

    missing = real_missing(model)
    if missing:
        return missing
    feeds = [real_feed(model, k) for k in range(len(real_bindings(model)))]
    data: dict[str, Any] = {
        "insertions": 0, "left": 0, "ort": None, "pow": False, "violations": [], "b001": [], "again": None,
    }
    problems = []
    with tempfile.TemporaryDirectory(prefix="onnx-lint-conformance-") as tmp:
        out = Path(tmp) / "model.onnx"
        ex = run_expand(ctx, model.path, out)
        if ex.problem or ex.refused:
            data["ort"] = "not written"
            return failed(f"expand: {ex.problem or ex.refused}", data=data)
        data.update(insertions=ex.insertions, left=len(ex.left), kept=len(ex.kept), required=len(ex.required))
        warned = {node for _, node, _, _ in ex.left}
        # Inputs expand keeps implicit on purpose (kernel exceptions, docs/expand-exactness.md).
        kept = {(node, slot) for g, node, _, slot in ex.kept if g == "main"}
        if ex.insertions:
            status, why, _ = ort_compare(model.path, out, feeds)
            data["ort"] = status
            if status == "mismatch":
                data["pow"] = bool(re.search(r"output of node '[^']*' \(Pow\)", why))
                problems.append(("Pow exponent: " if data["pow"] else "") + f"onnxruntime: {why}")
            elif status == "unsupported":
                problems.append(f"onnxruntime cannot run the original: {why}")
        else:
            data["ort"] = "unchanged"
        rewritten = onnx.load(str(out))
        for feed in feeds:
            _, _, _, violations, _ = check_broadcast_shapes(rewritten, feed, kept)
            data["violations"] += [v for label, v in violations if label not in warned]
        again = run_expand(ctx, out, Path(tmp) / "again.onnx")
        if again.problem or again.insertions:
            data["again"] = again.problem or f"{again.insertions} more insertions"
            problems.append(f"expand of OUT: {data['again']}")
        run = run_binary(ctx, "check", "--explicit", "--format", "json", out)
        try:
            diags = json.loads(run.stdout).get("diagnostics", [])
            data["b001"] = [f"'{d.get('node')}': {d.get('message')}" for d in diags
                            if d.get("code") == "B001" and d.get("severity") == "warning"
                            and d.get("node") not in warned]
        except ValueError:
            problems.append(f"check --explicit of OUT: output is not JSON ({crash_reason(ctx, run) or run.returncode})")
    if data["violations"]:
        problems.append(f"still broadcasting, not listed as left implicit: {data['violations'][0]} "
                        f"[{len(data['violations'])} in all]")
    if data["b001"]:
        problems.append(f"check --explicit reports B001 not listed as left implicit: {data['b001'][0]} "
                        f"[{len(data['b001'])} in all]")
    if problems:
        return failed("; ".join(problems), data=data)
    return passed(data=data)


def summarize_real_expand(results: Results, show: int) -> list[str]:
    data = [o.data for _, o in results if o.data is not None]
    c = Counter(d["ort"] for d in data)
    return [
        f"real-expand: insertions {sum(d['insertions'] for d in data)} on {sum(1 for d in data if d['insertions'])} "
        f"models; onnxruntime: bit-identical {c['verified']}, ort-structure {c['structure']}, mismatch "
        f"{c['mismatch']} (of which first at a Pow: {sum(1 for d in data if d['pow'])}), unchanged "
        f"{c['unchanged']}, not written {c['not written']}; 'left implicit' {sum(d['left'] for d in data)}, "
        f"kept implicit by a kernel exception {sum(d.get('kept', 0) for d in data)}, as the operator requires "
        f"{sum(d.get('required', 0) for d in data)}; "
        f"unlisted still-broadcasting nodes {sum(len(d['violations']) for d in data)}, unlisted B001 "
        f"{sum(len(d['b001']) for d in data)}; expand of OUT not a no-op on {sum(1 for d in data if d['again'])}"
    ]


def check_real_annotate(ctx: Context, model: Model) -> Outcome:
    """`annotate MODEL -o OUT --outputs-too` exits 0 (or 1, refusing a model with errors); OUT runs bit-identically to
    MODEL in onnxruntime (ORT_DISABLE_ALL) on the seeded inputs of both sizes; onnx.checker's full check
    passes on OUT wherever it passes on MODEL. Counts the main-graph node outputs whose every size is
    stated (a number or a dim_param) in OUT, in onnx's infer_shapes(data_prop=True) output and in
    symbolic_shape_infer's (auto_merge): the coverage of the written file against both."""
    import onnx

    missing = real_missing(model)
    if missing:
        return missing
    feeds = [real_feed(model, k) for k in range(len(real_bindings(model)))]
    proto = real_proto(model)
    outputs = [name for name, _, _ in node_outputs(proto)]

    def covered(shapes: dict[str, list[Any] | None] | None) -> int:
        if shapes is None:
            return 0
        return sum(1 for n in outputs if shapes.get(n) is not None and all(d is not None for d in shapes[n]))

    data: dict[str, Any] = {"ort": None, "checker": None, "coverage": {}, "values": len(outputs)}
    problems = []
    with tempfile.TemporaryDirectory(prefix="onnx-lint-conformance-") as tmp:
        out = Path(tmp) / "model.onnx"
        # --outputs-too: onnx's and symbolic_shape_infer's files state the graph outputs' shapes too.
        run = run_binary(ctx, "annotate", model.path, "-o", out, "--outputs-too")
        crash = crash_reason(ctx, run)
        if crash:
            return failed(f"annotate: {crash}", data=None)
        if run.returncode == 1:
            data["ort"] = "refused"
            return passed(data=data)
        if run.returncode != 0 or not out.is_file():
            return failed(f"annotate: exit {run.returncode}: {tool_message(run)}", data=None)
        status, why, _ = ort_compare(model.path, out, feeds, control=False)
        data["ort"] = status
        if status == "mismatch":
            problems.append(f"onnxruntime: {why}")
        try:
            onnx.checker.check_model(onnx.load(str(model.path)), full_check=True)
            before = True
        except Exception:  # noqa: BLE001 - onnx raises several types
            before = False
        try:
            onnx.checker.check_model(onnx.load(str(out)), full_check=True)
            data["checker"] = "pass"
        except Exception as e:  # noqa: BLE001
            data["checker"] = "fail" if before else "fails on MODEL too"
            if before:
                problems.append(f"onnx.checker passes on MODEL, not on OUT: {exception_text(e)}")
        data["coverage"]["ours"] = covered(proto_shapes(onnx.load(str(out)).graph))
    for which in ("onnx", "ssi"):
        try:
            data["coverage"][which] = covered(anchor_shapes(model, which))
        except Exception:  # noqa: BLE001 - an anchor that raises covers nothing
            data["coverage"][which] = 0
    if problems:
        return failed("; ".join(problems), data=data)
    return passed(data=data)


def summarize_real_annotate(results: Results, show: int) -> list[str]:
    data = [o.data for _, o in results if o.data is not None]
    c = Counter(d["ort"] for d in data)
    k = Counter(d["checker"] for d in data)
    cov = {w: sum(d["coverage"].get(w, 0) for d in data) for w in ("ours", "onnx", "ssi")}
    below = sum(
        1 for d in data if d["coverage"] and d["coverage"].get("ours", 0) < max(d["coverage"].get("onnx", 0), d["coverage"].get("ssi", 0))
    )
    return [
        f"real-annotate: onnxruntime bit-identical {c['verified']}, mismatch {c['mismatch']}, unsupported "
        f"{c['unsupported']}, refused (errors) {c['refused']}; onnx.checker full_check pass {k['pass']}, fail "
        f"{k['fail']}, fails on MODEL too {k['fails on MODEL too']}; node outputs with every size stated: ours "
        f"{cov['ours']}, onnx {cov['onnx']}, symbolic_shape_infer {cov['ssi']} of "
        f"{sum(d['values'] for d in data)}; models where ours covers fewer than an anchor: {below}"
    ]


# real_bindings.py imports this module by name; run as a script it is `__main__`: the same module, one memo.
sys.modules.setdefault("conformance", sys.modules[__name__])
import real_bindings as bindings_check  # noqa: E402 - the module, not the function real_bindings above

REAL_CHECKS = (
    "real-load", "real-conditions", "real-shapes", "real-dims", "real-faults", "real-expand", "real-bindings"
)


def print_real_table(results: dict[str, Results]) -> None:
    """The real corpus, one line per model, from the outcomes of the real-* checks that ran."""
    models: list[Model] = []
    for name in REAL_CHECKS:
        for m, _ in results.get(name, []):
            if m not in models:
                models.append(m)
    if not models:
        return
    by = {name: {m.rel: o for m, o in results.get(name, [])} for name in REAL_CHECKS}

    def cell(name: str, m: Model, fmt: Callable[[Outcome], str]) -> str:
        o = by[name].get(m.rel)
        if o is None:
            return "-"
        if o.data is None:
            return "FAIL" if o.status != PASS else "ok"
        return fmt(o)

    def load(o: Outcome) -> str:
        return f"{len(o.data['errors'])} err" if o.data["errors"] else ("ok" if o.status == PASS else "FAIL")

    def dims(o: Outcome) -> str:
        k = o.data["known"]
        return (f"{k['ours']} ({k['stripped']})/{k['onnx']}/{k['ssi']}/{k['osi']}/{o.data['total']}"
                + (" <" if k["ours"] < o.data["best"] else ""))

    def contradictions(o: Outcome) -> str:
        c = o.data["counts"]
        return f"{c['contradict']} ({c['agree']} agree)"

    def faults(o: Outcome) -> str:
        return " ".join(f"{f['kind']}:{'ok' if f['status'] == 'found' else f['status'].split()[0]}"
                        for f in o.data["faults"])

    def bindings(o: Outcome) -> str:
        return bindings_check.table_cell(o)

    def expand(o: Outcome) -> str:
        d = o.data
        text = {"verified": "bit-identical", "structure": "ort-structure"}.get(d["ort"], d["ort"])
        if d["pow"]:
            text += " (Pow)"
        if d["violations"] or d["b001"]:
            text += f" +{len(d['violations']) + len(d['b001'])} unlisted"
        if d["again"]:
            text += ", not idempotent"
        return f"{d['insertions']} ins, {text}"

    print("real corpus:")
    print("  dims: sizes of main-graph node outputs known by ours (ours without the model's declared shapes) / "
          "onnx / symbolic_shape_infer / onnx-shape-inference / all, '<' when ours < the best anchor")
    header = (f"  {'model':30} {'origin':17} {'load':7} {'dims ours (strip)/onnx/ssi/osi/all':36} {'contradictions':16} "
              f"{'planted faults':26} {'expand':28} bindings (runs, W1/W2 verified in/out of all, brute-force values)")
    print(header)
    for m in models:
        print(
            f"  {m.rel.split('/')[-1]:30} {m.spec.get('origin', ''):17} {cell('real-load', m, load):7} "
            f"{cell('real-dims', m, dims):36} {cell('real-shapes', m, contradictions):16} "
            f"{cell('real-faults', m, faults):26} {cell('real-expand', m, expand):28} "
            f"{cell('real-bindings', m, bindings)}"
        )


CHECKS: list[Check] = [
    Check("load", "check MODEL exits 0 or 1 (never 2, never a crash or timeout)", check_load),
    Check("roundtrip", "roundtrip MODEL -o OUT exits 0 and OUT is byte-identical to MODEL", check_roundtrip),
    Check(
        "no-false-error",
        "check --format json MODEL reports no E1, E2 or E3 (every corpus model is valid); W1, W2 and other "
        "findings totalled",
        check_no_false_error,
        summarize_no_false_error,
    ),
    Check(
        "shapes",
        "shapes --format json MODEL never contradicts onnx.shape_inference on a fully static main-graph value",
        check_shapes,
        summarize_shapes,
    ),
    Check(
        "outputs-full",
        "light and pytorch-* models with their declared output shapes and value_info removed: shapes MODEL "
        "gives every graph output a fully known shape",
        check_outputs_full,
    ),
    Check(
        "expand",
        "expand MODEL -o OUT exits 0 (legacy opset refusals counted apart), OUT byte-identical if nothing was "
        "inserted, passes onnx's full checker, gives bit-identical onnxruntime outputs, is idempotent, and "
        "leaves no broadcasting node with inputs of different shapes",
        check_expand,
        summarize_expand,
    ),
    Check(
        "fold",
        "fold MODEL -o OUT exits 0, OUT byte-identical if nothing was removed, else passes onnx's full checker, "
        "gives bit-identical onnxruntime outputs and is idempotent; fold(expand(MODEL)) runs bit-identically "
        "to MODEL",
        check_fold,
        summarize_fold,
    ),
    Check(
        "expand-models",
        "the expand check on models/*.onnx with seeded random inputs, symbolic dims bound to 1, 2, 3; "
        "check --explicit of OUT reports no B001",
        check_expand_models,
        summarize_expand,
        source="examples",
    ),
    Check(
        "real-load",
        "real corpus: onnxruntime runs the model at both sizes, and check --format json MODEL reports no error",
        check_real_load,
        summarize_real_load,
        source="real",
    ),
    Check(
        "real-conditions",
        "real corpus: every W1 and W2 is a true condition: onnxruntime fails at the input sizes it says fail",
        check_real_conditions,
        summarize_real_conditions,
        source="real",
    ),
    Check(
        "real-shapes",
        "real corpus: every size shapes MODEL infers (symbolic ones evaluated) equals onnxruntime's at both sizes",
        check_real_shapes,
        summarize_real_shapes,
        source="real",
    ),
    Check(
        "real-dims",
        "real corpus: ours knows at least as many sizes as the best of onnx's inference, symbolic_shape_infer and "
        "onnx-shape-inference",
        check_real_dims,
        summarize_real_dims,
        source="real",
    ),
    Check(
        "real-faults",
        "real corpus: planted faults (a constant shortened by one, an input size onnxruntime refuses) are E1 "
        "at the node onnxruntime refuses, with both sizes",
        check_real_faults,
        summarize_real_faults,
        source="real",
    ),
    Check(
        "real-expand",
        "real corpus: expand MODEL -o OUT runs bit-identically in onnxruntime at both sizes, nothing left "
        "implicit but what expand lists",
        check_real_expand,
        summarize_real_expand,
        source="real",
    ),
    Check(
        "real-bindings",
        "real corpus and generated models: check --dim gives no error where onnxruntime runs, E1/E2 at each "
        "W1/W2's failing value (onnxruntime refuses), nothing outside every failing set (onnxruntime runs), and "
        "failing sets over ranges equal to a brute-force evaluation of each condition",
        bindings_check.check_real_bindings,
        bindings_check.summarize_real_bindings,
        source="bindings",
    ),
    Check(
        "real-annotate",
        "real corpus: annotate MODEL -o OUT runs bit-identically in onnxruntime, passes onnx.checker where MODEL "
        "does, and states at least as many node outputs' shapes as onnx's inference and symbolic_shape_infer",
        check_real_annotate,
        summarize_real_annotate,
        source="real",
    ),
]


# ---------------------------------------------------------------------------------------------------------
# Driver


def find_models(cache: Path, substr: str | None, limit: int | None) -> list[Model]:
    """Every `model.onnx` of the corpus, sorted by path, filtered by substring, cut to `limit`."""
    models = []
    for group in ("node", "real"):
        root = cache / group
        if root.is_dir():
            models += [Model(p, p.relative_to(cache).as_posix()) for p in root.rglob("model.onnx")]
    models.sort(key=lambda m: m.rel)
    if substr:
        models = [m for m in models if substr in m.rel]
    if limit is not None:
        models = models[:limit]
    return models


def run_one(check: Check, ctx: Context, model: Model) -> Outcome:
    """Runs one check on one model; an exception is turned into a counted harness error, not hidden."""
    try:
        return check.run(ctx, model)
    except Exception as e:  # noqa: BLE001 - reported as a failure and totalled as a harness error
        return Outcome(ERROR, reason=shorten(f"harness error: {type(e).__name__}: {e}"))


def find_examples(folder: Path, substr: str | None, limit: int | None) -> list[Model]:
    """The example models `folder/*.onnx` (not `broken/`), named `models/<file>`, filtered and cut like the
    corpus."""
    models = [Model(p, f"models/{p.name}") for p in folder.glob("*.onnx")] if folder.is_dir() else []
    models.sort(key=lambda m: m.rel)
    if substr:
        models = [m for m in models if substr in m.rel]
    if limit is not None:
        models = models[:limit]
    return models


def run_all(
    checks: list[Check], ctx: Context, models: dict[str, list[Model]], jobs: int
) -> dict[str, Results]:
    """Runs every check on every model of its source in parallel; results per check, in model order."""
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {c.name: [(m, pool.submit(run_one, c, ctx, m)) for m in models[c.source]] for c in checks}
        return {name: [(m, f.result()) for m, f in pairs] for name, pairs in futures.items()}


def report(check: Check, results: Results, show: int, notes: bool) -> tuple[int, int, int]:
    """Prints the failures, the check's own totals (its `summarize`) and its summary line; returns
    (passed, failed, harness errors)."""
    name = check.name
    fails = [(m, o) for m, o in results if o.status in (FAIL, ERROR)]
    skips = [(m, o) for m, o in results if o.status == SKIP]
    noted = [(m, o) for m, o in results if o.status == PASS and o.note]
    n_pass = sum(1 for _, o in results if o.status == PASS)
    n_errors = sum(1 for _, o in fails if o.status == ERROR)
    for m, o in fails[:show]:
        print(f"  FAIL {name} {m.rel}: {o.reason}")
    if len(fails) > show:
        print(f"  ... and {len(fails) - show} more {name} failures")
    if skips:
        print(f"  ({name}: {len(skips)} models skipped, e.g. {skips[0][0].rel}: {skips[0][1].reason})")
    if noted:
        if notes:
            for m, o in noted:
                print(f"  note {name} {m.rel}: {o.note}")
        else:
            print(f"  ({name}: {len(noted)} passed models have notes; --notes lists them)")
    if n_errors:
        print(f"  ({name}: {n_errors} of the failures are harness errors, not the binary's)")
    if check.summarize:
        for line in check.summarize(results, show):
            print(line)
    print(f"{name}: {n_pass} passed, {len(fails)} failed")
    return n_pass, len(fails), n_errors


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    names = [c.name for c in CHECKS]
    parser = argparse.ArgumentParser(
        description="Runs onnx-lint over the conformance corpus.",
        epilog="checks: " + "; ".join(f"{c.name}: {c.description}" for c in CHECKS),
    )
    parser.add_argument("--bin", type=Path, required=True, help="the onnx-lint binary")
    parser.add_argument("--cache", type=Path, required=True, help="the corpus written by generate.py")
    parser.add_argument(
        "--only",
        action="append",
        metavar="CHECK",
        help=f"run only this check (repeatable, or comma-separated): {', '.join(names)}",
    )
    parser.add_argument(
        "--models",
        type=Path,
        default=Path(__file__).resolve().parents[2] / "models",
        help="the example models for the checks on them (default: the repository's models/)",
    )
    parser.add_argument("--filter", metavar="SUBSTR", help="only models whose path (under the cache) contains this")
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N models (after --filter)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel calls (default: CPUs)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per call (default: 60)")
    parser.add_argument("--show", type=int, default=20, help="failures listed per check (default: 20)")
    parser.add_argument("--notes", action="store_true", help="list passed models with notes (e.g. findings)")
    args = parser.parse_args(argv)
    if args.only:
        wanted = [n for item in args.only for n in item.split(",") if n]
        unknown = sorted(set(wanted) - set(names))
        if unknown:
            parser.error(f"unknown check(s) {', '.join(unknown)}; known: {', '.join(names)}")
        args.only = wanted
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    binary = args.bin.resolve()
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        print(f"conformance: {binary} is not an executable file", file=sys.stderr)
        return 2
    if not (args.cache / "stamp.json").is_file():
        print(f"conformance: no corpus in {args.cache} (run generate.py first)", file=sys.stderr)
        return 2
    checks = [c for c in CHECKS if not args.only or c.name in args.only]
    models = {
        "corpus": find_models(args.cache.resolve(), args.filter, args.limit),
        "examples": find_examples(args.models.resolve(), args.filter, args.limit),
        "real": find_real_models(args.cache.resolve(), args.filter, args.limit),
    }
    if any(c.source == "bindings" for c in checks):
        models["bindings"] = models["real"] + bindings_check.generated_models(args.filter, args.limit)
    if not any(models[c.source] for c in checks):
        print("conformance: no models selected", file=sys.stderr)
        return 2
    sources = [s for s in ("corpus", "examples", "real", "bindings") if any(c.source == s for c in checks)]
    counts = " + ".join(f"{len(models[s])} {s}" for s in sources)
    print(
        f"conformance: {len(checks)} check(s) ({', '.join(c.name for c in checks)}) over {counts} models, "
        f"{args.jobs} jobs, binary {binary}"
    )
    start = time.monotonic()
    results = run_all(checks, Context(binary, args.timeout), models, args.jobs)
    total_pass = total_fail = total_errors = 0
    for check in checks:
        n_pass, n_fail, n_errors = report(check, results[check.name], args.show, args.notes)
        total_pass, total_fail, total_errors = total_pass + n_pass, total_fail + n_fail, total_errors + n_errors
    print_real_table(results)
    if total_errors:
        print(f"harness errors: {total_errors}")
    print(f"time: {time.monotonic() - start:.1f} s")
    print(f"conformance: {total_pass} passed, {total_fail} failed")
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main())
