"""Single-node cases run by onnxruntime and judged against onnx-lint: the machinery shared by the per-operator
suites (`contrib/ops.py` for onnxruntime's contrib operators, `contracts/ops.py` for the shape contracts of the
standard operators).

Each case (the CASES lists of a suite's `cases_*.py` files) is one node in a model of its own. The harness
writes the model, asks `onnx-lint check` and `onnx-lint shapes` about it, runs it in onnxruntime (CPU,
`ORT_DISABLE_ALL`: the node as written) with seeded random inputs of the case's sizes, and judges:

- a case onnxruntime runs: onnx-lint reports no error at the node, and every output's element type and shape
  is known and equal to what onnxruntime produced (symbolic sizes evaluated at the case's binding; an output
  may be allowed to stay unknown, with the reason); then `onnx-lint expand` of the model must run to
  bit-identical outputs (inputs it leaves implicit are counted, with `expand`'s reason);
- a planted fault (`fault=True`): onnxruntime must refuse it, at load or at run (if it runs it, the case is
  wrong and fails), and onnx-lint must report an error at the node: E1 or E2 for a contrib case without a
  `contract`, else a finding whose `contract` field names the case's contract (E2 or E3; W1/W2 also count
  when the case says the fault is in a symbolic size, `symbolic_fault=True`). Where onnxruntime refused it
  (`load` or `run`) is recorded.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort

ort.set_default_logger_severity(4)
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from conformance import EXPAND_KEPT, EXPAND_TOTAL, NotEvaluable, evaluate_size  # noqa: E402

Dim = int | str


@dataclass
class In:
    """One input of a case's node. `shape` may hold symbols (bound by the case's `bind` for the run);
    `value` fixes the data (else random: floats normal, integers in `[low, high)`); `const` makes it an
    initializer (which needs `value` or a fully known shape)."""

    shape: list[Dim] | None
    dtype: str = "float32"
    value: Any = None
    const: bool = False
    low: int = 0
    high: int = 2
    name: str | None = None


@dataclass
class Case:
    """One node. `inputs` in slot order, None for an omitted optional input; `outputs` the number of
    outputs (trailing ones may be omitted by giving fewer); `opset` the default domain's version,
    `domain` the node's domain (com.microsoft, version `ms_opset`)."""

    name: str
    op: str
    inputs: list[In | None]
    attrs: dict[str, Any] = field(default_factory=dict)
    outputs: int = 1
    bind: dict[str, int] = field(default_factory=dict)
    domain: str = "com.microsoft"
    opset: int = 17
    ms_opset: int = 1
    fault: bool = False
    # A fault on a symbolic size: onnx-lint's W1 (a condition) counts as found.
    symbolic_fault: bool = False
    # Outputs whose shape onnx-lint may leave unknown (with the reason, listed in the report).
    unknown_ok: dict[int, str] = field(default_factory=dict)
    seed: int = 0
    # The operator contract the case is about (`matmul-inner`): a planted fault must be reported at the node
    # with a finding naming it (E2, E3; W2 when `symbolic_fault`), and a valid case is its valid twin.
    contract: str | None = None


def input_names(case: Case) -> list[str]:
    return ["" if i is None else (i.name or f"in{k}") for k, i in enumerate(case.inputs)]


def concrete(shape: list[Dim], bind: dict[str, int]) -> list[int]:
    return [d if isinstance(d, int) else bind[d] for d in shape]


def data_of(inp: In, shape: list[int], rng: np.random.Generator) -> np.ndarray:
    if inp.value is not None:
        return np.asarray(inp.value, dtype=inp.dtype)
    dt = np.dtype(inp.dtype)
    if dt.kind == "f":
        return rng.standard_normal(shape).astype(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    return rng.integers(inp.low, inp.high, shape).astype(dt)


def build(case: Case) -> tuple[bytes, dict[str, np.ndarray]]:
    """The case's model and the feed of its run."""
    rng = np.random.default_rng(case.seed)
    names = input_names(case)
    graph_inputs, inits, feed = [], [], {}
    for name, inp in zip(names, case.inputs):
        if inp is None:
            continue
        elem = helper.np_dtype_to_tensor_dtype(np.dtype(inp.dtype))
        shape = None if inp.shape is None else concrete(inp.shape, case.bind) if inp.const else inp.shape
        if inp.const:
            data = data_of(inp, shape if shape is not None else [], rng)
            inits.append(numpy_helper.from_array(data, name))
        else:
            graph_inputs.append(helper.make_tensor_value_info(name, elem, inp.shape))
            if inp.value is not None:
                feed[name] = np.asarray(inp.value, dtype=inp.dtype)
            else:
                assert inp.shape is not None, f"{case.name}: a fed input needs a shape"
                feed[name] = data_of(inp, concrete(inp.shape, case.bind), rng)
    outs = [f"out{k}" for k in range(case.outputs)]
    node = helper.make_node(case.op, names, outs, name="node", domain=case.domain, **case.attrs)
    graph = helper.make_graph(
        [node], "case", graph_inputs, [helper.make_value_info(o, onnx.TypeProto()) for o in outs], inits
    )
    opsets = [helper.make_opsetid("", case.opset)]
    if case.domain:
        opsets.append(helper.make_opsetid(case.domain, case.ms_opset))
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 9
    return model.SerializeToString(), feed


def run_ort(model: bytes, feed: dict[str, np.ndarray], n_out: int) -> tuple[list[Any] | None, str]:
    """onnxruntime's outputs, or None and the error (prefixed by the stage that failed)."""
    opts = ort.SessionOptions()
    opts.log_severity_level = 4
    # The node as written: no fusion or constant folding in between.
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        sess = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001 - any refusal is the observation
        return None, f"load: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
    try:
        return sess.run([f"out{k}" for k in range(n_out)], feed), ""
    except Exception as e:  # noqa: BLE001
        return None, f"run: {str(e).splitlines()[0] if str(e) else type(e).__name__}"


def lint(binary: str, model: bytes) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """onnx-lint's diagnostics and its inferred values (by name)."""
    with tempfile.NamedTemporaryFile(suffix=".onnx") as f:
        f.write(model)
        f.flush()
        check = subprocess.run([binary, "check", "--format", "json", f.name], capture_output=True, text=True)
        if check.returncode not in (0, 1):
            raise RuntimeError(f"check exited {check.returncode}: {check.stderr.strip()[:300]}")
        shapes = subprocess.run([binary, "shapes", "--format", "json", f.name], capture_output=True, text=True)
        if shapes.returncode not in (0, 1):
            raise RuntimeError(f"shapes exited {shapes.returncode}: {shapes.stderr.strip()[:300]}")
    diags = json.loads(check.stdout)["diagnostics"]
    values = {v["name"]: v for v in json.loads(shapes.stdout)["values"] if v.get("graph") == "main"}
    return diags, values


def our_dims(value: dict[str, Any] | None, bind: dict[str, int]) -> list[int | None] | None:
    """Our shape of one output at the binding: None when the rank is unknown, None entries for unknown
    sizes."""
    if value is None or value.get("shape") is None:
        return None
    dims: list[int | None] = []
    for d in value["shape"]:
        if isinstance(d, int):
            dims.append(d)
            continue
        try:
            dims.append(evaluate_size(str(d), bind))
        except NotEvaluable:
            dims.append(None)
    return dims


ELEM_NAMES = {v: k for k, v in TensorProto.DataType.items()}

# Totals of the expand runs, printed at the end.
EXPANDED = {"cases": 0, "insertions": 0, "kept": 0, "required": 0}
REQUIRED = re.compile(r"^expand: left implicit as the operator requires: ", re.M)


def expand_check(binary: str, model: bytes, feed: dict[str, np.ndarray], outputs: list[Any]) -> str:
    """'' when `expand` of the model runs bit-identically in onnxruntime (or inserts nothing), else why
    not."""
    with tempfile.TemporaryDirectory(prefix="contrib-ops-") as tmp:
        src, out = Path(tmp) / "in.onnx", Path(tmp) / "out.onnx"
        src.write_bytes(model)
        run = subprocess.run([binary, "expand", str(src), "-o", str(out)], capture_output=True, text=True)
        if run.returncode != 0:
            return f"expand exited {run.returncode}: {run.stderr.strip()[:300]}"
        total = EXPAND_TOTAL.search(run.stderr)
        n = int(total.group(1)) if total else 0
        EXPANDED["kept"] += len(EXPAND_KEPT.findall(run.stderr))
        EXPANDED["required"] += len(REQUIRED.findall(run.stderr))
        if n == 0:
            return ""
        EXPANDED["cases"] += 1
        EXPANDED["insertions"] += n
        again, why = run_ort(out.read_bytes(), feed, len(outputs))
    if again is None:
        return f"expand's output does not run: {why}"
    for k, (a, b) in enumerate(zip(outputs, again)):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype or a.tobytes() != b.tobytes():
            return f"expand's output differs at out{k} ({n} inputs made explicit)"
    return ""


@dataclass
class Verdict:
    ok: bool
    why: str
    # For a planted fault onnxruntime refused: "load" or "run".
    stage: str | None = None


def judge(binary: str, case: Case) -> Verdict:
    model, feed = build(case)
    diags, values = lint(binary, model)
    at_node = [d for d in diags if d.get("node") == "node"]
    errors = [d for d in at_node if d["severity"] == "error"]
    outputs, why = run_ort(model, feed, case.outputs)
    if outputs is None:
        stage = why.split(":", 1)[0]
        if not case.fault:
            return Verdict(False, f"onnxruntime refused a case not marked as a fault: {why}")
        if case.contract:
            hits = [
                d for d in at_node
                if d.get("contract") == case.contract
                and (d["severity"] == "error" or (case.symbolic_fault and d["code"] == "W2"))
            ]
        else:
            hits = [d for d in errors if d["code"] in ("E1", "E2")]
            hits = hits or [d for d in at_node if case.symbolic_fault and d["code"] in ("W1", "W2")]
        if hits:
            return Verdict(True, f"found ({hits[0]['code']}); onnxruntime: {why}", stage)
        said = [f"{d['code']} {d.get('contract') or ''}: {d['message']}" for d in at_node]
        return Verdict(False, f"missed fault (onnxruntime: {why}); onnx-lint said: {said}", stage)
    if case.fault:
        return Verdict(False, "the planted fault runs in onnxruntime: the case is wrong")
    if errors:
        return Verdict(False, f"false error where onnxruntime runs: {errors[0]['message']}")
    problems = []
    for k, got in enumerate(outputs):
        ours = values.get(f"out{k}")
        dims = our_dims(ours, case.bind)
        actual = list(np.asarray(got).shape)
        if dims is None or any(d is None for d in dims):
            if k in case.unknown_ok:
                continue
            problems.append(f"out{k}: ours {None if ours is None else ours.get('shape')} unknown, ort {actual}")
        elif dims != actual:
            problems.append(f"out{k}: ours {ours['shape']} = {dims}, ort {actual}")
        elem = ELEM_NAMES.get(helper.np_dtype_to_tensor_dtype(np.asarray(got).dtype))
        if ours is not None and ours.get("elem_type") not in (None, elem):
            problems.append(f"out{k}: element type ours {ours.get('elem_type')}, ort {elem}")
    expanded = expand_check(binary, model, feed, outputs)
    if expanded:
        problems.append(expanded)
    return Verdict(not problems, "; ".join(problems))


def load_cases(case_dir: Path) -> list[Case]:
    """The CASES of every `cases_*.py` of `case_dir`, in file order."""
    sys.path.insert(0, str(case_dir))
    cases: list[Case] = []
    for p in sorted(case_dir.glob("cases_*.py")):
        cases.extend(importlib.import_module(p.stem).CASES)
    return cases


def contract_table(results: list[tuple[Case, Verdict]]) -> list[str]:
    """Per contract: planted faults found / refused by onnxruntime (where), valid twins clean."""
    rows: dict[str, dict[str, Any]] = {}
    for case, v in results:
        if not case.contract:
            continue
        r = rows.setdefault(
            case.contract,
            {"ops": set(), "faults": 0, "found": 0, "refused": 0, "load": 0, "run": 0, "twins": 0, "clean": 0},
        )
        r["ops"].add(case.op)
        if case.fault:
            r["faults"] += 1
            if v.stage:
                r["refused"] += 1
                r[v.stage] += 1
            r["found"] += v.ok
        else:
            r["twins"] += 1
            r["clean"] += v.ok
    lines = ["contract | op | planted faults: found / refused by onnxruntime (at load, at run) | valid twins: clean"]
    for name in sorted(rows):
        r = rows[name]
        lines.append(
            f"{name} | {', '.join(sorted(r['ops']))} | {r['found']}/{r['refused']} of {r['faults']} "
            f"(load {r['load']}, run {r['run']}) | {r['clean']}/{r['twins']}"
        )
    return lines


# A contract as a rule file states it: `Contract::new("name", "what it requires")`, the text possibly
# continued over lines with a trailing backslash.
CONTRACT_NEW = re.compile(r'Contract::new\(\s*"([a-z0-9-]+)",\s*"((?:[^"\\]|\\.)*)"', re.S)


def source_contracts(files: list[Path]) -> dict[str, str]:
    """The contracts the rule files `files` state, by name: what each requires."""
    found: dict[str, str] = {}
    for f in files:
        text = f.read_text()
        # Leave the unit tests' made-up contracts out.
        text = text.split("#[cfg(test)]")[0]
        for name, requires in CONTRACT_NEW.findall(text):
            found[name] = re.sub(r"\\\n\s*", "", requires).replace('\\"', '"')
    return found


def coverage(results: list[tuple[Case, Verdict]], stated: dict[str, str]) -> list[str]:
    """The contracts the rule files state that the cases do not cover with a planted fault and a valid
    twin each: every contract is checked against onnxruntime both ways."""
    faults = {c.contract for c, _ in results if c.fault}
    twins = {c.contract for c, _ in results if not c.fault}
    return [
        f"{name}: no {' and no '.join(w for w, have in (('planted fault', faults), ('valid twin', twins)) if name not in have)}"
        for name in sorted(stated)
        if name not in faults or name not in twins
    ]


def markdown_table(results: list[tuple[Case, Verdict]], stated: dict[str, str]) -> str:
    """The per-contract table of docs/contracts.md: what each requires, where onnxruntime refuses a
    break of it, and what the harness found."""
    rows: dict[str, dict[str, Any]] = {}
    for case, v in results:
        if not case.contract:
            continue
        r = rows.setdefault(case.contract, {"ops": set(), "faults": 0, "found": 0, "load": 0, "run": 0,
                                            "twins": 0, "clean": 0})
        r["ops"].add(case.op)
        if case.fault:
            r["faults"] += 1
            r["found"] += v.ok
            if v.stage:
                r[v.stage] += 1
        else:
            r["twins"] += 1
            r["clean"] += v.ok
    lines = [
        "| contract | operators | requires | onnxruntime refuses a break | faults found / planted | valid twins clean |",
        "|---|---|---|---|---|---|",
    ]
    for name in sorted(rows):
        r = rows[name]
        where = " and ".join(w for w in ("load", "run") if r[w]) or "-"
        if r["load"] and r["run"]:
            where = f"load ({r['load']}), run ({r['run']})"
        requires = stated.get(name, "").replace("|", "\\|")
        lines.append(
            f"| `{name}` | {', '.join(sorted(r['ops']))} | {requires} | at {where} | "
            f"{r['found']} / {r['faults']} | {r['clean']} / {r['twins']} |"
        )
    return "\n".join(lines) + "\n"


def stated_table(rule_files: list[Path], stated: dict[str, str]) -> str:
    """The contracts `rule_files` state, each with its file and what it requires (for a suite whose cases
    test the operators as a whole rather than one contract each)."""
    lines = ["| contract | rule file | requires |", "|---|---|---|"]
    for f in rule_files:
        for name in sorted(source_contracts([f])):
            requires = stated[name].replace("|", "\\|")
            lines.append(f"| `{name}` | `{f.name}` | {requires} |")
    return "\n".join(lines) + "\n"


def main(
    suite: str, case_dir: Path, doc: str, rule_files: list[Path] | None = None, per_contract: bool = True
) -> int:
    """Runs the suite of `case_dir`. With `rule_files` and `per_contract`, the contracts they state must each
    have a planted fault and a valid twin among the cases (a failure otherwise); --markdown writes the
    per-contract table, or without `per_contract` the list of the contracts `rule_files` state."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--filter", default="")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--markdown", type=Path, help="write the per-contract table, as docs/contracts.md shows it")
    args = ap.parse_args()
    cases = load_cases(case_dir)
    seen = set()
    for c in cases:
        if c.name in seen:
            print(f"duplicate case name {c.name}", file=sys.stderr)
            return 2
        seen.add(c.name)
    cases = [c for c in cases if args.filter in c.name or args.filter == c.op]
    per_op: dict[str, list[bool]] = defaultdict(list)
    failures = []
    results: list[tuple[Case, Verdict]] = []
    for c in cases:
        try:
            v = judge(args.bin, c)
        except Exception as e:  # noqa: BLE001 - a harness error is a failure of that case
            v = Verdict(False, f"harness error: {type(e).__name__}: {e}")
        results.append((c, v))
        per_op[f"{c.domain or 'ai.onnx'}:{c.op}"].append(v.ok)
        if not v.ok:
            failures.append((c.name, v.why))
        elif args.verbose:
            print(f"  ok {c.name}: {v.why}")
    for op in sorted(per_op):
        r = per_op[op]
        print(f"{op}: {sum(r)}/{len(r)}")
    table = contract_table(results)
    if len(table) > 1:
        print(f"{suite}: per contract")
        for line in table:
            print(f"  {line}")
    stated = source_contracts(rule_files or [])
    uncovered = coverage(results, stated) if rule_files and per_contract and not args.filter else []
    for line in uncovered:
        failures.append(("coverage", line))
    if args.markdown:
        table = markdown_table(results, stated) if per_contract else stated_table(rule_files or [], stated)
        args.markdown.write_text(table)
        print(f"{suite}: wrote {args.markdown}")
    for name, why in failures:
        print(f"FAIL {name}: {why}")
    passed = sum(sum(r) for r in per_op.values())
    print(f"{suite}: expand made {EXPANDED['insertions']} inputs explicit in {EXPANDED['cases']} cases, "
          f"all bit-identical in onnxruntime; left implicit: {EXPANDED['required']} as the operator requires (a 1-D "
          f"bias or scale), {EXPANDED['kept']} by a kernel exception")
    print(f"{suite}: {passed} passed, {len(failures)} failed ({len(per_op)} operators)")
    return 1 if failures or not cases else 0
