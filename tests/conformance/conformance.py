"""Runs the `onnx-lint` binary over the conformance corpus and reports, per check, passes and failures.

Usage: conformance.py --bin target/release/onnx-lint --cache tests/conformance/cache
       [--only CHECK] [--filter SUBSTR] [--limit N] [--jobs N] [--timeout S] [--show N] [--notes]

Every model of the corpus (each `model.onnx` under the cache, as written by `generate.py`) goes through
every selected check; the (check, model) pairs run on a thread pool, each one calling the binary as a
subprocess. For each check the first failures (model path and reason) are listed, then the check's own
informational totals (if it has a `summarize`), then one line exactly `<check>: N passed, M failed`; the
last line is `conformance: N passed, M failed` over all checks. The exit status is 1 if anything failed, 2
on a usage error or an empty selection.

To add a check, write a function `(Context, Model) -> Outcome` and append it to `CHECKS`, optionally with
a `summarize` function totalling the `data` its outcomes carry. An exception raised inside a check is not
hidden: it counts as a failure of that model and is totalled separately as a harness error.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
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


def check_no_false_e1(ctx: Context, model: Model) -> Outcome:
    """`onnx-lint check --format json MODEL` reports no E1 (every model of the corpus is valid). W1 and the
    other diagnostics are totalled for `summarize_no_false_e1` and noted on the passes."""
    doc, why = run_json(ctx, model, "check")
    if why:
        return failed(why)
    if doc.get("errors"):
        return failed(f"could not load: {doc['errors'][0].get('message')}")
    diags = doc.get("diagnostics", [])
    e1 = [d for d in diags if d.get("code") == "E1"]
    others = [d for d in diags if d.get("code") not in ("E1", "W1") and d.get("severity") in ("error", "warning")]
    data = {
        "w1": sum(1 for d in diags if d.get("code") == "W1"),
        "errors": Counter(d["code"] for d in others if d["severity"] == "error"),
        "warnings": Counter(d["code"] for d in others if d["severity"] == "warning"),
    }
    if e1:
        d = e1[0]
        where = f" (node {d.get('node')}, {d.get('op_type')})" if d.get("node") else ""
        more = f" [{len(e1)} E1 in all]" if len(e1) > 1 else ""
        return failed(f"E1{where}: {d.get('message')}{more}", data=data)
    noted = [d for d in diags if d.get("code") == "W1"] + others
    note = "; ".join(f"{d['code']} {d.get('severity')}: {d.get('message')}" for d in noted[:2])
    return passed(note=shorten(note) if noted else "", data=data)


def summarize_no_false_e1(results: Results, show: int) -> list[str]:
    data = [o.data for _, o in results if o.data is not None]
    w1_models = sum(1 for d in data if d["w1"])
    lines = [f"no-false-e1: W1 warnings on {w1_models} models ({sum(d['w1'] for d in data)} warnings)"]
    for sev in ("errors", "warnings"):
        per_code = Counter(code for d in data for code in d[sev])  # models per code
        n_models = sum(1 for d in data if d[sev])
        codes = ", ".join(f"{c} on {n}" for c, n in sorted(per_code.items(), key=lambda kv: (-kv[1], kv[0])))
        lines.append(
            f"no-false-e1: other {sev[:-1]} diagnostics (not E1/W1) on {n_models} models"
            + (f": {codes}" if codes else "")
        )
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


CHECKS: list[Check] = [
    Check("load", "check MODEL exits 0 or 1 (never 2, never a crash or timeout)", check_load),
    Check("roundtrip", "roundtrip MODEL -o OUT exits 0 and OUT is byte-identical to MODEL", check_roundtrip),
    Check(
        "no-false-e1",
        "check --format json MODEL reports no E1 (every corpus model is valid); W1 and other findings totalled",
        check_no_false_e1,
        summarize_no_false_e1,
    ),
    Check(
        "shapes",
        "shapes --format json MODEL never contradicts onnx.shape_inference on a fully static main-graph value",
        check_shapes,
        summarize_shapes,
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


def run_all(
    checks: list[Check], ctx: Context, models: list[Model], jobs: int
) -> dict[str, Results]:
    """Runs every check on every model in parallel; results per check, in model order."""
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {c.name: [(m, pool.submit(run_one, c, ctx, m)) for m in models] for c in checks}
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
    models = find_models(args.cache.resolve(), args.filter, args.limit)
    if not models:
        print("conformance: no models selected", file=sys.stderr)
        return 2
    print(
        f"conformance: {len(checks)} check(s) ({', '.join(c.name for c in checks)}) over {len(models)} models, "
        f"{args.jobs} jobs, binary {binary}"
    )
    start = time.monotonic()
    results = run_all(checks, Context(binary, args.timeout), models, args.jobs)
    total_pass = total_fail = total_errors = 0
    for check in checks:
        n_pass, n_fail, n_errors = report(check, results[check.name], args.show, args.notes)
        total_pass, total_fail, total_errors = total_pass + n_pass, total_fail + n_fail, total_errors + n_errors
    if total_errors:
        print(f"harness errors: {total_errors}")
    print(f"time: {time.monotonic() - start:.1f} s")
    print(f"conformance: {total_pass} passed, {total_fail} failed")
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main())
