"""The `real-bindings` check of conformance.py: `check --dim` (issue 41) against onnxruntime and against a
brute-force evaluation of each condition, on the real corpus and on generated models.

Per model with symbolic input sizes:

1. at each binding the harness runs the model at (`real_bindings`, in ours' symbol names: the dim_param,
   or `x[3]` for an axis declared `?`, `-1` or without a value), `check --dim S=V ...` (every symbol
   fixed) reports no error, and onnxruntime runs the model there;
2. for every W1 and W2 of `check` without bindings: at its smallest failing value (as printed; the others
   at run 0's sizes) `check --dim` gives E1 (W1) or E2 (W2) at its node and onnxruntime refuses the model;
   at a value outside the failing set of every condition of the model (the nearest to that one) `check
   --dim` reports no error and nothing at the node, and onnxruntime runs the model;
3. brute force: `check --dim S=1..N` for the condition's symbols only (one symbol 1..4096; two 1..64 each,
   three 1..16, more 1..8), the failing set printed (`fails for H in 33..=4096 where H mod 32 is 1..=16`,
   `fails unless H is a multiple of 32`, an E1 `fails for every ...`, no finding: proven) read back, and
   compared value by value with the condition the warning prints (`needs A = B or one of them 1`, `E
   must be a multiple of 32`, ...) evaluated by `size_function` at every value. A form of set or of
   condition this module cannot read is a failure, not a skip.

Counted and listed apart, not failed: at a failing value, an error at another node than the warning's (the
node comes after one the binding breaks first; on Silero the fixed size settles the If whose branch held the
W2, and the other branch gives the LSTM an input of rank 5: E2 there); at a passing value, onnxruntime
refusing at a node ours warns (T004) is declared with a shape it does not get (the dynamo exporter's declarations); a failing value whose inputs the harness
cannot allocate (magika's 10^9 rows). The condition's failing values are those where each of its sizes is
one (1 or more) and the rule fails: a size below 1 (a kernel larger than its input) is no failure, as in
ours' enumeration.

The generated models (`generated_models`: a clamp, a multiple from a Reshape, a residue, strides of Conv
and MaxPool, an irregular set, two and three symbols) go through the same steps, with extra ranges that
give the other forms of set (one value, every value, none).
"""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import conformance as c

# Values of each symbol the brute force enumerates, by the number of symbols of the condition: at most 4,096
# assignments, each within the values ranges.rs enumerates in full (65,536 for one, 512 for two, 64 for three).
SPAN = {1: 4096, 2: 64, 3: 16}
SPAN_MORE = 8
GENERATED_SEED = 20261128

# Where a W1 or W2 message ends its condition: the search's clause (`; fails for h = 33 (3 vs 4)`, `; no
# failure with ...`) or, under ranges, the verdict's (`; within the bound sizes, ...`, `; fails for every`).
CLAUSE = re.compile(r"; (?:fails for |no failure|within the bound sizes, )")


# ---------------------------------------------------------------------------------------------------------
# The model's symbols, in ours' names


def is_generated(model: c.Model) -> bool:
    return "layout" in (model.spec or {})


def layout(model: c.Model) -> dict[str, list[int | str]]:
    """For each graph input, its dims: an int, or the symbol ours names that axis by (the dim_param, or
    `name[k]` for an axis declared `?`, `-1` or without a value)."""
    if is_generated(model):
        return model.spec["layout"]

    def compute() -> dict[str, list[int | str]]:
        proto = c.real_proto(model)
        declared = {vi.name: list(vi.type.tensor_type.shape.dim) for vi in proto.graph.input}
        out: dict[str, list[int | str]] = {}
        for name, dims in c.real_template(model).items():
            decl = declared.get(name, [])
            if len(decl) != len(dims):  # no declared shape: no symbol of ours; the template's sizes
                out[name] = [d if isinstance(d, int) else f"\x00{d}" for d in dims]
                continue
            row: list[int | str] = []
            for k, d in enumerate(decl):
                if d.HasField("dim_value") and d.dim_value > 0:
                    row.append(d.dim_value)
                elif d.HasField("dim_param") and d.dim_param and d.dim_param != "?":
                    row.append(d.dim_param)
                else:
                    row.append(f"{name}[{k}]")
            out[name] = row
        return out

    return c.memo(("bindings layout", model.rel), compute)


def runs(model: c.Model) -> list[dict[str, int]]:
    """The sizes of ours' symbols in each run of the harness (a template name's size for the symbols of its
    axes). Raises if one symbol would take two sizes in a run."""
    if is_generated(model):
        return [dict(b) for b in model.spec["runs"]]
    template = c.real_template(model)
    out = []
    for b in c.real_bindings(model):
        sizes: dict[str, int] = {}
        for name, dims in layout(model).items():
            for k, d in enumerate(dims):
                if isinstance(d, int) or d.startswith("\x00"):
                    continue
                t = template[name][k]
                v = t if isinstance(t, int) else b[t]
                if sizes.setdefault(d, v) != v:
                    raise ValueError(f"symbol {d} takes two sizes in one run: {sizes[d]} and {v}")
        out.append(sizes)
    return out


def symbols(model: c.Model) -> list[str]:
    return sorted({d for dims in layout(model).values() for d in dims if isinstance(d, str) and d[:1] != "\x00"})


def shapes_at(model: c.Model, binding: dict[str, int]) -> dict[str, list[int]]:
    """The input shapes at `binding` (run 0's sizes for the symbols it does not name)."""
    sizes = {**runs(model)[0], **binding}
    template = {} if is_generated(model) else c.real_template(model)
    b0 = {} if is_generated(model) else c.real_bindings(model)[0]
    out = {}
    for name, dims in layout(model).items():
        row = []
        for k, d in enumerate(dims):
            if isinstance(d, int):
                row.append(d)
            elif d.startswith("\x00"):
                t = template[name][k]
                row.append(t if isinstance(t, int) else b0[t])
            else:
                row.append(sizes[d])
        out[name] = row
    return out


def ort_at(model: c.Model, binding: dict[str, int]) -> str | None:
    """onnxruntime's refusal of the model with its inputs at `binding`, or None when it runs it."""
    shapes = shapes_at(model, binding)
    if not is_generated(model):
        return c.shapes_run(model, shapes)

    def run() -> str | None:
        import numpy as np
        import onnx

        proto = onnx.load(str(model.path))
        rng = np.random.default_rng(GENERATED_SEED)
        types = {vi.name: vi.type.tensor_type.elem_type for vi in proto.graph.input}
        feed = {name: c.random_array(types[name], dims, rng) for name, dims in shapes.items()}
        try:
            c.ort_session(model.path).run(None, feed)
        except Exception as e:  # noqa: BLE001 - any refusal is the observation
            return c.exception_text(e)
        return None

    key = tuple(sorted((name, tuple(dims)) for name, dims in shapes.items()))
    return c.memo(("generated run", model.rel, key), run)


def runs_in_ort(model: c.Model, k: int) -> str | None:
    """onnxruntime's refusal at run `k`, or None: the harness's own run (every value exposed) for a real
    model."""
    if is_generated(model):
        return ort_at(model, runs(model)[k])
    try:
        c.real_runtime(model, k)
    except Exception as e:  # noqa: BLE001
        return c.exception_text(e)
    return None


def check_at(ctx: c.Context, model: c.Model, dims: dict[str, str]) -> tuple[list[dict[str, Any]], str | None]:
    """The diagnostics of `check --dim S=V ... --format json MODEL`, or why there are none."""
    args = [a for s in sorted(dims) for a in ("--dim", f"{s}={dims[s]}")]
    doc, why = c.run_json(ctx, model, "check", *args)
    if why:
        return [], f"check {' '.join(args)}: {why}"
    if doc.get("errors"):
        return [], f"check {' '.join(args)}: {doc['errors'][0].get('message')}"
    return doc.get("diagnostics", []), None


# ---------------------------------------------------------------------------------------------------------
# A condition, read from the message


def split_list(text: str) -> list[str]:
    """`a, b and c` (the way messages list sizes) split at the top level: `min(s, 64)` stays whole."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0:
            for sep in (", ", " and "):
                if text.startswith(sep, i):
                    parts.append(text[start:i])
                    i += len(sep)
                    start = i
                    break
            else:
                i += 1
                continue
            continue
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


# (pattern of the condition, rule, whether the first group is a list); tried in order.
CONDITION_FORMS: list[tuple[re.Pattern[str], str, bool]] = [
    (re.compile(r"needs those of (.+) that are not 1 to be equal"), "multi", True),
    (re.compile(r"needs (.+) to be equal"), "equal", True),
    (re.compile(r"needs (.+) = (.+) or one of them 1"), "multi", False),
    (re.compile(r"needs (.+) = (.+)"), "equal", False),
    (re.compile(r"(.+) must each be 1 or (.+)"), "one or", True),
    (re.compile(r"(.+) must be 1 or equal to (.+)"), "onto", False),
    (re.compile(r"(.+) must be 1 or (.+)"), "one or", False),
    (re.compile(r"(.+) must be a multiple of (.+)"), "multiple", False),
    (re.compile(r"(.+) must be 1 \(the other factors are common\)"), "one", False),
    (re.compile(r"(.+) must each be (.+)"), "be", True),
    (re.compile(r"(.+) must be (.+)"), "be", False),
]


@dataclass
class Condition:
    """What a W1 or W2 requires of its sizes: `rule` over `sizes` (and `k`), as the message says it."""

    text: str
    rule: str
    sizes: list[str]
    k: str | None
    functions: list[Callable[[dict[str, int]], int]] = field(default_factory=list)

    def defined(self, binding: dict[str, int]) -> bool:
        """Whether every size of the condition is one at `binding` (evaluable, 1 or more)."""
        try:
            return all(f(binding) >= 1 for f in self.functions)
        except c.NotEvaluable:
            return False

    def fails(self, binding: dict[str, int]) -> bool:
        """Whether the condition fails at `binding`. As in ours' enumeration (counterexample.rs), an
        assignment where a size is no size (below 1: a kernel that does not fit its input; or sizes that do
        not broadcast) is not a failure. An unbound symbol raises."""
        values = []
        for f in self.functions:
            try:
                values.append(f(binding))
            except c.NotEvaluable as e:
                if str(e) == "unbound symbol":
                    raise ValueError(f"condition '{self.text}' has a symbol the binding lacks") from None
                return False
        if any(v < 1 for v in values):
            return False
        if self.rule == "multi":
            return len({v for v in values if v != 1}) > 1
        if self.rule == "equal":
            return len(set(values)) > 1
        if self.rule == "onto":
            t, s = values
            return t not in (1, s)
        if self.rule == "one":
            return values[0] != 1
        *xs, k = values
        if self.rule == "one or":
            return any(x not in (1, k) for x in xs)
        if self.rule == "multiple":
            return xs[0] % k != 0
        return any(x != k for x in xs)  # "be"


def read_condition(text: str, names: list[str]) -> Condition | None:
    """The condition a message states (the text between its last `: ` or `; ` and the search's clause)."""
    for pattern, rule, listed in CONDITION_FORMS:
        m = pattern.fullmatch(text)
        if not m:
            continue
        if listed:
            sizes, k = split_list(m.group(1)), (m.group(2) if m.re.groups > 1 else None)
        elif rule == "one":
            sizes, k = [m.group(1)], None
        elif rule in ("multi", "equal", "onto"):
            sizes, k = [m.group(1), m.group(2)], None
        else:
            sizes, k = [m.group(1)], m.group(2)
        try:
            functions = [c.size_function(e, names) for e in [*sizes, *([k] if k is not None else [])]]
        except c.NotEvaluable:
            return None
        return Condition(text, rule, sizes, k, functions)
    return None


@dataclass
class Warning_:
    """A W1 or W2 of `check` without bindings."""

    code: str
    node: str
    graph: str
    message: str
    head: str  # the message up to the search's clause
    condition: Condition | None
    symbols: list[str]  # ours' symbols the condition names, sorted
    smallest: dict[str, int] | None  # the failing values the search printed

    @property
    def body(self) -> str:
        """The head past its first `: `: the sizes and the condition, which the finding under ranges repeats
        after its own first words (`cannot be broadcast:`, `breaks the contract reshape-count:` for an
        error)."""
        return body_of(self.head)

    @property
    def said(self) -> str:
        return f"{self.code} '{self.node}': {c.shorten(self.message)[:160]}"


def body_of(message: str) -> str:
    return message.split(": ", 1)[-1]


def symbols_in(text: str, names: list[str]) -> list[str]:
    found = []
    for name in names:
        if re.search(rf"(?<![\w.\[]){re.escape(name)}(?![\w.\[])", text):
            found.append(name)
    return sorted(found)


def read_warning(d: dict[str, Any], names: list[str]) -> Warning_:
    message = d.get("message", "")
    m = CLAUSE.search(message)
    head = message[: m.start()] if m else message
    cut = max(head.rfind(": "), head.rfind("; "))
    condition = read_condition(head[cut + 2 :], names) if cut >= 0 else None
    fails = c.FAILS_FOR.search(message)
    smallest = None
    if fails:
        smallest = {k.strip(): int(v) for k, v in (a.split(" = ") for a in fails.group(1).split(", "))}
    syms = symbols_in(condition.text if condition else head, names)
    return Warning_(d.get("code", ""), d.get("node") or "", d.get("graph") or "", message, head, condition, syms,
                    smallest)


# ---------------------------------------------------------------------------------------------------------
# The failing set, read from a ranged message


@dataclass
class Claim:
    """What a ranged finding says of the failing set: `form`; `member(v)` for the exact forms (one symbol);
    else the totals (`count`, `total`, `intervals`, `first` intervals); `smallest` failing assignment."""

    form: str
    member: Callable[[int], bool] | None = None
    count: int | None = None
    total: int | None = None
    intervals: int | None = None
    first: list[tuple[int, int]] | None = None
    smallest: tuple[int, ...] | None = None
    names: list[str] | None = None
    ranges: list[tuple[int, int]] | None = None


def interval(text: str) -> tuple[int, int | None]:
    """`a..=b`, `a..` (open) or `a`."""
    if text.endswith(".."):
        return int(text[:-2]), None
    a, _, b = text.partition("..=")
    return int(a), int(b) if b else int(a)


def within(v: int, iv: tuple[int, int | None]) -> bool:
    return iv[0] <= v and (iv[1] is None or v <= iv[1])


def read_ranges(text: str) -> tuple[list[str], list[tuple[int, int]]] | None:
    """`a in 1..=64, b in 1..=64`."""
    names, ranges = [], []
    for part in text.split(", "):
        m = re.fullmatch(r"(.+) in (\d+)\.\.=(\d+)", part)
        if not m:
            return None
        names.append(m.group(1))
        ranges.append((int(m.group(2)), int(m.group(3))))
    return names, ranges


VERDICT = re.compile(r"; (?=within the bound sizes, |fails for every )")


def read_claim(message: str, body: str | None) -> Claim | None:
    """The failing set a ranged finding states after `body` (its sizes and condition; None: after its last
    `; within the bound sizes, ` or `; fails for every `), or None when its form is not one of those ranges.rs
    writes (`one_symbol`, `clamped`, `verdict_of_several`, ctx.rs's and contract.rs's `fails for every`)."""
    text = body_of(message)
    if body is None:
        starts = [m.end() for m in VERDICT.finditer(text)]
        if not starts:
            return None
        rest = text[starts[-1] :]
    elif text.startswith(body + "; "):
        rest = text[len(body) + 2 :]
    else:
        return None
    m = re.fullmatch(r"fails for every (.+) \(the bound sizes\)", rest)
    if m:
        read = read_ranges(m.group(1))
        return Claim("every", names=read[0], ranges=read[1]) if read else None
    prefix = "within the bound sizes, "
    if not rest.startswith(prefix):
        return None
    clause = rest[len(prefix) :]
    if "; only " in clause:  # what was tried of a range too large: not asked for here
        return None
    m = re.fullmatch(r"fails for (\d+) of the (\d+) assignments of (.+) \(smallest (.+)\)", clause)
    if m:
        read = read_ranges(m.group(3))
        at = dict(a.split(" = ") for a in m.group(4).split(", "))
        if not read or sorted(at) != sorted(read[0]):
            return None
        return Claim("several", count=int(m.group(1)), total=int(m.group(2)), names=read[0], ranges=read[1],
                     smallest=tuple(int(at[n]) for n in read[0]))
    m = re.fullmatch(r"fails for (\d+) of the (\d+) values of (.+) in (\d+)\.\.=(\d+), in (\d+) intervals, the "
                     r"first (.+) \(smallest (\d+)\)", clause)
    if m:
        first = [interval(t) for t in m.group(7).split(", ")]
        return Claim("count", count=int(m.group(1)), total=int(m.group(2)), intervals=int(m.group(6)),
                     first=first, smallest=(int(m.group(8)),), names=[m.group(3)],
                     ranges=[(int(m.group(4)), int(m.group(5)))])
    m = re.fullmatch(r"fails unless (.+) is a multiple of (\d+) \(smallest (\d+)\)", clause)
    if m:
        k = int(m.group(2))
        return Claim("multiple", member=lambda v: v % k != 0, smallest=(int(m.group(3)),), names=[m.group(1)])
    m = re.fullmatch(r"fails unless (.+) mod (\d+) is (\d+) \(smallest (\d+)\)", clause)
    if m:
        k, r = int(m.group(2)), int(m.group(3))
        return Claim("residue", member=lambda v: v % k != r, smallest=(int(m.group(4)),), names=[m.group(1)])
    m = re.fullmatch(r"fails for (.+?) = (\d+)", clause)
    if m:
        one = int(m.group(2))
        return Claim("one value", member=lambda v: v == one, smallest=(one,), names=[m.group(1)])
    m = re.fullmatch(r"fails for (.+?) in (.+) \(smallest (\d+)\)", clause)
    if not m:
        return None
    name = m.group(1)
    plain: list[tuple[int, int | None]] = []
    periodic: list[tuple[tuple[int, int | None], int, list[tuple[int, int | None]]]] = []
    try:
        for item in split_list(m.group(2)):
            p = re.fullmatch(rf"(\S+) where {re.escape(name)} mod (\d+) is (.+)", item)
            if p:
                residues = [interval(r) for r in p.group(3).split(" or ")]
                periodic.append((interval(p.group(1)), int(p.group(2)), residues))
            else:
                plain.append(interval(item))
    except ValueError:
        return None

    def member(v: int) -> bool:
        if any(within(v, iv) for iv in plain):
            return True
        return any(within(v, iv) and any(within(v % k, r) for r in rs) for iv, k, rs in periodic)

    return Claim("periodic" if periodic else "intervals", member=member, smallest=(int(m.group(3)),), names=[name])


# ---------------------------------------------------------------------------------------------------------
# Brute force


def grid(bounds: list[tuple[int, int]]) -> list[tuple[int, ...]]:
    """Every assignment, the last symbol fastest (as ranges.rs enumerates)."""
    out: list[tuple[int, ...]] = [()]
    for lo, hi in bounds:
        out = [t + (v,) for t in out for v in range(lo, hi + 1)]
    return out


def runs_of(values: list[int]) -> list[tuple[int, int]]:
    """Sorted values as maximal intervals."""
    out: list[list[int]] = []
    for v in values:
        if out and out[-1][1] + 1 == v:
            out[-1][1] = v
        else:
            out.append([v, v])
    return [(a, b) for a, b in out]


def compare(claim: Claim | None, names: list[str], bounds: list[tuple[int, int]], truth: dict[tuple[int, ...], bool],
            node: str) -> str | None:
    """Where the printed set (`claim`; None: no finding, the condition proven) and the brute force
    (`truth`: each assignment of `names` over `bounds` -> fails) disagree, or None."""
    failing = [t for t, f in truth.items() if f]
    where = ", ".join(f"{n} in {lo}..={hi}" for n, (lo, hi) in zip(names, bounds))
    if claim is None:
        if failing:
            return (f"'{node}' over {where}: no finding (proven), but the condition fails at "
                    f"{dict(zip(names, failing[0]))} ({len(failing)} assignments)")
        return None
    if claim.names is not None and sorted(claim.names) != sorted(names):
        return f"'{node}' over {where}: the set names {claim.names}"
    if claim.form == "every":
        if claim.ranges != [dict(zip(names, bounds))[n] for n in claim.names]:
            return f"'{node}': fails for every value of {claim.ranges}, asked {where}"
        passing = [t for t, f in truth.items() if not f]
        if passing:
            at = dict(zip(names, passing[0]))
            return f"'{node}' over {where}: said to fail for every value, but it holds at {at}"
        return None
    if not failing:
        return f"'{node}' over {where}: a finding ({claim.form}), but the condition holds at every value"
    order = [names.index(n) for n in claim.names] if claim.names else list(range(len(names)))
    # The smallest failing assignment as ranges.rs orders them: by the largest value, then in order.
    smallest = min((max(t), tuple(t[i] for i in order)) for t in failing)[1]
    if claim.smallest != smallest:
        return f"'{node}' over {where}: smallest failing said {claim.smallest}, brute force {smallest}"
    if claim.member is not None:
        for t, f in truth.items():
            if claim.member(t[0]) != f:
                return (f"'{node}' over {where}: at {names[0]} = {t[0]} the printed set says "
                        f"{'fails' if not f else 'holds'}, the condition {'fails' if f else 'holds'}")
        return None
    if claim.count != len(failing) or claim.total != len(truth):
        return (f"'{node}' over {where}: {claim.count} of {claim.total} fail said, brute force {len(failing)} of "
                f"{len(truth)}")
    if claim.form == "count":
        got = runs_of(sorted(t[0] for t in failing))
        if claim.intervals != len(got) or claim.first != got[: len(claim.first or [])]:
            return (f"'{node}' over {where}: {claim.intervals} intervals, the first {claim.first} said; "
                    f"brute force {len(got)}, the first {got[:4]}")
    if claim.form == "several" and claim.ranges != [dict(zip(names, bounds))[n] for n in claim.names]:
        return f"'{node}': ranges said {claim.ranges}, asked {where}"
    return None


def brute_force(ctx: c.Context, model: c.Model, ws: list[Warning_], names: list[str], bounds: list[tuple[int, int]],
                data: dict[str, Any]) -> dict[int, dict[tuple[int, ...], bool]]:
    """Runs `check --dim` with `names` over `bounds`, reads the set each of `ws` (conditions in exactly those
    symbols) is said to fail for and compares it with the brute force. Twice: the other symbols free (the
    message is the warning's, its sizes and condition unchanged), then fixed at run 0's sizes, as a
    deployment fixes its batch (they are substituted into the sizes, so the finding is the one at the node
    that states a verdict over the bound sizes). Returns each warning's failing assignments (by its index)."""
    points = grid(bounds)
    truths: dict[int, dict[tuple[int, ...], bool]] = {}
    fixed = {s: v for s, v in runs(model)[0].items() if s not in names}
    for i, w in enumerate(ws):
        if w.condition is None:
            data["problems"].append(f"{w.said}: its condition is in no form this check reads")
            continue
        truths[i] = {t: w.condition.fails({**fixed, **dict(zip(names, t))}) for t in points}
    ranged = {n: f"{lo}..{hi}" for n, (lo, hi) in zip(names, bounds)}
    passes = [("free", ranged)]
    if fixed:
        passes.append(("fixed", {**{s: str(v) for s, v in fixed.items()}, **ranged}))
    for others, dims in passes:
        diags, why = check_at(ctx, model, dims)
        where = ", ".join(f"{n}={lo}..{hi}" for n, (lo, hi) in zip(names, bounds)) + (
            ", the others at run 0's sizes" if others == "fixed" else "")
        if why:
            data["problems"].append(why)
            continue
        for i, truth in truths.items():
            w = ws[i]
            at_node = [d for d in diags if d.get("node") == w.node and (d.get("graph") or "") == w.graph]
            if others == "free":
                found = [d for d in at_node if body_of(d.get("message", "")).startswith(w.body + "; ")]
            else:
                # The sizes are not the warning's any more: the node's verdicts over the bound sizes, when
                # the node has one warning of these symbols (else the text must still match).
                found = [d for d in at_node if VERDICT.search(body_of(d.get("message", "")))]
                if sum(1 for v in ws if (v.node, v.graph) == (w.node, w.graph)) > 1:
                    found = [d for d in found if body_of(d.get("message", "")).startswith(w.body + "; ")]
            if len(found) > 1:
                data["problems"].append(f"{w.said}: {len(found)} findings under --dim {where}")
                continue
            claim = None
            if found:
                d = found[0]
                claim = read_claim(d["message"], w.body if others == "free" else None)
                if claim is None:
                    data["problems"].append(
                        f"{w.said}: under --dim {where} a set this check cannot read: {c.shorten(d['message'])}"
                    )
                    continue
                expected = ("E1" if w.code == "W1" else "E2") if claim.form == "every" else w.code
                if d.get("code") != expected:
                    data["problems"].append(
                        f"{w.said}: under --dim {where} a {d.get('code')} ({claim.form}), not {expected}"
                    )
                    continue
            why = compare(claim, names, bounds, truth, w.node)
            if others == "free":
                data["forms"][claim.form if claim else "proven"] += 1
                data["compared"] += len(points)
                data["conditions"] += 1
            else:
                data["compared_fixed"] += len(points)
                data["conditions_fixed"] += 1
            if why:
                data["problems"].append(f"brute force ({others} other symbols): {why}")
    return truths


def span(n: int) -> int:
    return SPAN.get(n, SPAN_MORE)


# ---------------------------------------------------------------------------------------------------------
# The check


SHAPE_CODES = (*c.SHAPE_ERRORS, *c.SHAPE_WARNINGS)


def findings_at(diags: list[dict[str, Any]], w: Warning_) -> list[dict[str, Any]]:
    """The shape findings (E1-E3, W1, W2) at the warning's node."""
    return [d for d in diags if d.get("node") == w.node and (d.get("graph") or "") == w.graph
            and d.get("code") in SHAPE_CODES]


def too_large(refusal: str) -> bool:
    """A refusal that is the harness failing to allocate the inputs (magika's clamp at 10^9 rows), not
    onnxruntime's."""
    return refusal.startswith("MemoryError")


def check_real_bindings(ctx: c.Context, model: c.Model) -> c.Outcome:
    """Steps 1-3 of the module's docstring on one model (real or generated)."""
    if not is_generated(model):
        missing = c.real_missing(model)
        if missing:
            return missing
    names = symbols(model)
    if not names:
        return c.skipped("no symbolic input size", data={"skipped": True})
    data: dict[str, Any] = {
        "bindings": 0, "warnings": 0, "inside": 0, "inside_at_node": 0, "inside_elsewhere": [], "outside": 0,
        "error_elsewhere": [], "declared": [], "too_large": [], "unfailing": 0, "conditions": 0,
        "compared": 0, "conditions_fixed": 0, "compared_fixed": 0, "forms": Counter(), "problems": [],
    }
    problems = data["problems"]
    # 1. The bindings the harness runs the model at.
    for k, b in enumerate(runs(model)):
        refusal = runs_in_ort(model, k)
        if refusal:
            problems.append(f"onnxruntime cannot run the model at run {k} {b}: {refusal}")
            continue
        diags, why = check_at(ctx, model, {s: str(v) for s, v in b.items()})
        if why:
            problems.append(why)
            continue
        errors = [f"{d.get('code')} '{d.get('node')}': {d.get('message')}" for d in diags
                  if d.get("severity") == "error"]
        if errors:
            problems.append(f"error at run {k}'s sizes {b}, where onnxruntime runs: {errors[0]}")
        data["bindings"] += 1
    # 2-3. The W1 and W2 without bindings.
    doc, why = c.run_json(ctx, model, "check")
    if why:
        problems.append(why)
        return c.failed(problems[0], data=data)
    ws = [read_warning(d, names) for d in doc.get("diagnostics", []) if d.get("code") in c.SHAPE_WARNINGS]
    data["warnings"] = len(ws)
    truths: dict[int, dict[tuple[int, ...], bool]] = {}
    bounds_of: dict[int, tuple[list[str], list[tuple[int, int]]]] = {}
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, w in enumerate(ws):
        if not w.symbols:
            problems.append(f"{w.said}: names no input symbol of the model")
            continue
        groups.setdefault(tuple(w.symbols), []).append(i)
    extra = (model.spec or {}).get("ranges", [])
    for syms, idx in groups.items():
        bounds = [(1, span(len(syms)))] * len(syms)
        found = brute_force(ctx, model, [ws[i] for i in idx], list(syms), bounds, data)
        for j, truth in found.items():
            truths[idx[j]] = truth
            bounds_of[idx[j]] = (list(syms), bounds)
        for r in extra:
            if tuple(sorted(r)) == syms:
                brute_force(ctx, model, [ws[i] for i in idx], list(syms), [tuple(r[s]) for s in syms], data)
    base = runs(model)[0]
    for i, w in enumerate(ws):
        if i not in truths or w.condition is None:
            continue
        syms, bounds = bounds_of[i]
        failing = [t for t, f in truths[i].items() if f]
        inside = w.smallest if w.smallest and set(w.smallest) == set(syms) else None
        if inside is None and failing:
            inside = dict(zip(syms, min(failing, key=lambda t: (max(t), t))))
        if inside is None:
            data["unfailing"] += 1
        else:
            verify_inside(ctx, model, w, {**base, **inside}, data)
        verify_outside(ctx, model, w, ws, syms, bounds, inside, data)
    if problems:
        more = f" [{len(problems)} problems in all]" if len(problems) > 1 else ""
        return c.failed(problems[0] + more, data=data)
    return c.passed(data=data)


def verify_inside(ctx: c.Context, model: c.Model, w: Warning_, binding: dict[str, int], data: dict[str, Any]) -> None:
    """At a failing value: E1 (for a W1) or E2 (W2) at the node, and onnxruntime refuses the model. An error
    at another node instead (the node comes after one the binding breaks first: its sizes are then unknown)
    is counted and listed; no error (warnings alone, a T004 among them) is a failure."""
    problems = data["problems"]
    if w.condition is not None and not w.condition.fails(binding):
        problems.append(f"{w.said}: the condition holds at its failing value {binding}")
        return
    diags, why = check_at(ctx, model, {s: str(v) for s, v in binding.items()})
    if why:
        problems.append(why)
        return
    want = "E1" if w.code == "W1" else "E2"
    # Error severity: an E1 or E2 in a branch of an If whose condition ours does not know is a warning
    # where only the bound sizes break it (it fails only when that branch runs).
    errors = [f"{d.get('code')} '{d.get('node')}'" for d in diags
              if d.get("code") in c.SHAPE_ERRORS and d.get("severity") == "error"]
    at_node = any(d.get("code") == want and d.get("severity") == "error" for d in findings_at(diags, w))
    if not at_node and not errors:
        got = [f"{d.get('code')} '{d.get('node')}'" for d in diags if d.get("severity") in ("error", "warning")]
        problems.append(f"{w.said}: at {binding} no error (reported: {', '.join(got[:3]) or 'nothing'})")
        return
    refusal = ort_at(model, binding)
    if refusal is None:
        problems.append(f"{w.said}: onnxruntime runs the model at {binding}, where check --dim gives an error")
        return
    if too_large(refusal):
        data["too_large"].append(f"{w.node} at {binding}")
        return
    data["inside"] += 1
    if not at_node:
        data["error_elsewhere"].append(f"{w.node} at {binding}: {', '.join(errors[:2])}")
    if w.node in refusal:
        data["inside_at_node"] += 1
    else:
        data["inside_elsewhere"].append(f"{w.node} at {binding}: {c.shorten(refusal)[:160]}")


def verify_outside(ctx: c.Context, model: c.Model, w: Warning_, ws: list[Warning_], syms: list[str],
                   bounds: list[tuple[int, int]], inside: dict[str, int] | None, data: dict[str, Any]) -> None:
    """At a value outside the failing set of every condition of the model, where each of their sizes is one
    (1 or more: the model's kernels fit), the nearest in the brute-force grid to `inside` (to run 0's sizes
    when `inside` lies beyond the grid; run 0's sizes themselves when no value of the grid passes): no
    error, no shape finding at the node, and onnxruntime runs the model. Where onnxruntime refuses it at a
    node ours warns (T004) is declared with a shape it does not have (the dynamo export's declarations hold
    only for some sizes), that is counted apart."""
    problems = data["problems"]
    base = runs(model)[0]
    conditions = [v.condition for v in ws if v.condition is not None]

    def passes(b: dict[str, int]) -> bool:
        return all(cond.defined(b) and not cond.fails(b) for cond in conditions)

    # From the failing value when it lies in the grid (the boundary: 64 beside 65), else from run 0's sizes
    # (magika fails above 10^9 rows; a batch of 4096 of it takes minutes to run).
    inside_in_grid = inside and all(lo <= inside[s] <= hi for s, (lo, hi) in zip(syms, bounds))
    origin = tuple((inside if inside_in_grid else base)[s] for s in syms)
    candidates = sorted(grid(bounds), key=lambda t: (sum(abs(a - b) for a, b in zip(t, origin)), t))
    binding = next((b for b in ({**base, **dict(zip(syms, t))} for t in candidates) if passes(b)), None)
    if binding is None:
        binding = dict(base)
        if any(cond.fails(binding) for cond in conditions):
            problems.append(f"{w.said}: a condition fails at run 0's sizes {base}, where onnxruntime runs")
            return
    diags, why = check_at(ctx, model, {s: str(v) for s, v in binding.items()})
    if why:
        problems.append(why)
        return
    errors = [f"{d.get('code')} '{d.get('node')}'" for d in diags if d.get("severity") == "error"]
    here = [d.get("code") for d in findings_at(diags, w)]
    if errors or here:
        problems.append(f"{w.said}: at {binding}, outside every failing set, check --dim reports "
                        f"{', '.join(errors + here)}")
        return
    refusal = ort_at(model, binding)
    if refusal is not None:
        if too_large(refusal):
            data["too_large"].append(f"{w.node} outside, at {binding}")
            return
        named = c.innermost_node(refusal)
        if named and any(d.get("code") == "T004" and d.get("node") == named for d in diags):
            data["declared"].append(f"{w.node} at {binding}: onnxruntime refuses at '{named}', declared "
                                    f"shapes T004")
            return
        problems.append(f"{w.said}: onnxruntime refuses the model at {binding}, outside every failing set: "
                        f"{c.shorten(refusal)[:200]}")
        return
    data["outside"] += 1


def summarize_real_bindings(results: c.Results, show: int) -> list[str]:
    data = [(m, o.data) for m, o in results if o.data is not None and not o.data.get("skipped")]
    real = [d for m, d in data if not is_generated(m)]
    gen = [d for m, d in data if is_generated(m)]

    def total(key: str, ds: list[dict[str, Any]]) -> int:
        return sum(d[key] if isinstance(d[key], int) else len(d[key]) for d in ds)

    lines = []
    for label, ds in (("real corpus", real), ("generated", gen)):
        forms = sum((d["forms"] for d in ds), Counter())
        lines.append(
            f"real-bindings: {label}: models with symbolic inputs {len(ds)}; bindings where onnxruntime runs "
            f"checked {total('bindings', ds)}; W1/W2 {total('warnings', ds)}: at a failing value an error and "
            f"onnxruntime refuses {total('inside', ds)} (E1/E2 at the node "
            f"{total('inside', ds) - total('error_elsewhere', ds)}, "
            f"onnxruntime names the node {total('inside_at_node', ds)}), no failing value {total('unfailing', ds)}; "
            f"outside every failing set no "
            f"finding and onnxruntime runs {total('outside', ds)} (onnxruntime refuses where ours warns T004 "
            f"{total('declared', ds)}); inputs too large to allocate {total('too_large', ds)}"
        )
        lines.append(
            f"real-bindings: {label}: brute force: {total('conditions', ds)} conditions over ranges, "
            f"{total('compared', ds)} values compared; printed sets by form: {dict(sorted(forms.items())) or '-'}; "
            f"again with the other symbols fixed at run 0's sizes: {total('conditions_fixed', ds)} conditions, "
            f"{total('compared_fixed', ds)} values; problems {total('problems', ds)}"
        )
    for key, what in (("error_elsewhere", "the error at another node"), ("inside_elsewhere",
                      "onnxruntime refuses at another node"), ("declared", "declared shapes wrong"),
                      ("too_large", "not run, too large")):
        listed = [(m, e) for m, d in data for e in d[key]]
        for m, e in listed[:show]:
            lines.append(f"  {what} {m.rel}: {e}")
    problems = [(m, p) for m, d in data for p in d["problems"]]
    for m, p in problems[:show]:
        lines.append(f"  problem {m.rel}: {c.shorten(p)[:260]}")
    if len(problems) > show:
        lines.append(f"  ... and {len(problems) - show} more")
    return lines


def table_cell(o: c.Outcome) -> str:
    d = o.data
    if d.get("skipped"):
        return "no symbolic input"
    return (f"{d['bindings']} runs, W {d['inside']}/{d['outside']} of {d['warnings']}, {d['compared']} bf"
            + (f", {len(d['problems'])} bad" if d["problems"] else ""))


# ---------------------------------------------------------------------------------------------------------
# Generated models


def generated_specs() -> list[tuple[str, Callable[[], Any], dict[str, Any]]]:
    """(name, builder of the ModelProto, spec: layout, runs, extra ranges) of each generated case."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    def model(name: str, nodes: list[Any], inputs: dict[str, list[int | str]], inits: dict[str, Any]) -> Any:
        for k, n in enumerate(nodes):
            n.name = f"{n.op_type.lower()}_{k}"
        outputs = [nodes[-1].output[0]]
        g = helper.make_graph(
            nodes, name, [helper.make_tensor_value_info(n, TensorProto.FLOAT, d) for n, d in inputs.items()],
            [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
            [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()],
        )
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        return m

    def i64(*v: int) -> Any:
        return np.array(v, dtype=np.int64)

    n = helper.make_node
    ones1 = np.ones((1, 1, 1), np.float32)
    return [
        # BERT's position table: x + table[:seq], `seq vs min(seq, 512)`
        ("clamp", lambda: model("clamp", [
            n("Shape", ["x"], ["s"], start=0, end=1), n("Slice", ["table", "zero", "s", "zero"], ["pos"]),
            n("Add", ["x", "pos"], ["y"])], {"x": ["seq", 8]},
            {"table": np.zeros((512, 8), np.float32), "zero": i64(0)}),
         {"layout": {"x": ["seq", 8]}, "runs": [{"seq": 7}, {"seq": 512}],
          "ranges": [{"seq": (1, 512)}, {"seq": (600, 700)}, {"seq": (1, 513)}, {"seq": (500, 9000)}]}),
        # Reshape to [-1, 32]: `H must be a multiple of 32`
        ("reshape_multiple", lambda: model("reshape_multiple", [n("Reshape", ["x", "t"], ["y"])], {"x": [1, "H"]},
                                           {"t": i64(-1, 32)}),
         {"layout": {"x": [1, "H"]}, "runs": [{"H": 64}, {"H": 96}], "ranges": [{"H": (40, 4000)}]}),
        # Pad by one, then Reshape to [-1, 4]: passes exactly when L mod 4 is 3
        ("pad_residue", lambda: model("pad_residue", [n("Pad", ["x", "p"], ["xp"]), n("Reshape", ["xp", "t"], ["y"])],
                                      {"x": ["L"]}, {"p": i64(0, 1), "t": i64(-1, 4)}),
         {"layout": {"x": ["L"]}, "runs": [{"L": 3}, {"L": 11}], "ranges": []}),
        # A stride-2 map against a stride-4 map upsampled by 2 (the FPN): `ceil(H/2) vs ceil(H/4)*2`
        ("strides", lambda: model("strides", [
            n("Conv", ["x", "w"], ["a"], strides=[2, 2]), n("Conv", ["x", "w"], ["b"], strides=[4, 4]),
            n("Resize", ["b", "", "sc"], ["u"], mode="nearest"), n("Add", ["a", "u"], ["y"])],
            {"x": [1, 1, "H", "W"]},
            {"w": np.ones((1, 1, 1, 1), np.float32), "sc": np.array([1, 1, 2, 2], np.float32)}),
         {"layout": {"x": [1, 1, "H", "W"]}, "runs": [{"H": 32, "W": 64}, {"H": 4, "W": 8}],
          "ranges": [{"H": (3, 300)}, {"W": (64, 64 + 3)}]}),
        # MaxPool 3/2 against Conv 1/2: `ceil(H/2)-1 vs ceil(H/2)`, below 1 for the smallest H
        ("pool", lambda: model("pool", [
            n("MaxPool", ["x"], ["p"], kernel_shape=[3], strides=[2]), n("Conv", ["x", "w"], ["c"], strides=[2]),
            n("Add", ["p", "c"], ["y"])], {"x": [1, 1, "H"]}, {"w": ones1}),
         {"layout": {"x": [1, 1, "H"]}, "runs": [{"H": 3}, {"H": 4}], "ranges": [{"H": (1, 5)}]}),
        # A clamp against an even size: odd H up to 100, every H above: no period, said by its count
        ("irregular", lambda: model("irregular", [
            n("Shape", ["x"], ["s"], start=2, end=3), n("Slice", ["table", "zero", "s", "two"], ["pos"]),
            n("Conv", ["x", "w"], ["c"], strides=[2]), n("Resize", ["c", "", "sc"], ["u"], mode="nearest"),
            n("Add", ["pos", "u"], ["y"])], {"x": [1, 1, "H"]},
            {"table": np.zeros((1, 1, 100), np.float32), "zero": i64(0), "two": i64(2), "w": ones1,
             "sc": np.array([1, 1, 2], np.float32)}),
         {"layout": {"x": [1, 1, "H"]}, "runs": [{"H": 2}, {"H": 100}], "ranges": [{"H": (90, 110)}]}),
        # Two symbols: `needs A = B or one of them 1`
        ("two_symbols", lambda: model("two_symbols", [n("Add", ["x", "y"], ["z"])], {"x": ["A", 8], "y": ["B", 8]}, {}),
         {"layout": {"x": ["A", 8], "y": ["B", 8]}, "runs": [{"A": 5, "B": 5}, {"A": 1, "B": 9}], "ranges": []}),
        # Two symbols in a product: `A*B must be a multiple of 6`
        ("two_reshape", lambda: model("two_reshape", [n("Reshape", ["x", "t"], ["y"])], {"x": ["A", "B"]},
                                      {"t": i64(-1, 6)}),
         {"layout": {"x": ["A", "B"]}, "runs": [{"A": 2, "B": 3}, {"A": 4, "B": 9}],
          "ranges": [{"A": (1, 12), "B": (5, 7)}]}),
        # Three symbols: `needs A*B = C or one of them 1`
        ("three_symbols", lambda: model("three_symbols", [n("Reshape", ["x", "t"], ["f"]), n("Add", ["f", "y"], ["z"])],
                                        {"x": ["A", "B"], "y": ["C"]}, {"t": i64(-1)}),
         {"layout": {"x": ["A", "B"], "y": ["C"]}, "runs": [{"A": 2, "B": 3, "C": 6}, {"A": 1, "B": 4, "C": 1}],
          "ranges": []}),
    ]


def generated_models(substr: str | None, limit: int | None) -> list[c.Model]:
    """The generated cases, written once into a temporary folder (removed at exit), named
    `generated/<name>`, filtered and cut like the corpus."""
    import onnx

    specs = [s for s in generated_specs() if not substr or substr in f"generated/{s[0]}"]
    if limit is not None:
        specs = specs[:limit]
    if not specs:
        return []
    folder = Path(tempfile.mkdtemp(prefix="onnx-lint-bindings-"))
    atexit.register(shutil.rmtree, folder, True)
    models = []
    for name, build, spec in specs:
        path = folder / name / "model.onnx"
        path.parent.mkdir()
        onnx.save(build(), str(path))
        models.append(c.Model(path, f"generated/{name}", {"origin": "generated", **spec}))
    return models
