"""bench/corpus.py: onnx-lint against onnx's and onnxruntime's shape inference on the real corpus.

The models of tests/conformance/real/corpus.json (the conformance harness's real corpus: PyPI wheels,
torch exports, onnxruntime's optimizer and quantizer, onnxruntime-genai), each run by five tools over
interleaved rounds (the model order and the tool order rotated by one each round), under
`/usr/bin/time -v` as bench.py runs them (its `timed`: wall time around the process, peak RSS, CPU time):

  check     onnx-lint check MODEL
  shapes    onnx-lint shapes MODEL
  annotate  onnx-lint annotate MODEL -o bench/out/tmp/annotated.onnx (the types written into value_info,
            flushed to disk before the rename; deleted after each run, untimed)
  onnx    python: onnx.load + onnx.shape_inference.infer_shapes(m, strict_mode=True, data_prop=True)
          (bench.py's anchor)
  ort     python: onnx.load + onnxruntime's SymbolicShapeInference with auto_merge=True,
          guess_output_rank=True, as the harness runs it (tests/conformance/conformance.py: the loop of
          `infer_shapes` without its last step, which on an incomplete result writes the model into the
          current folder and raises; the partial result counts)

Both Python tools include starting Python and importing onnx (and onnxruntime), as a user's run does; the
header prints that overhead. A run under 0.1 s is repeated --fast-repeat times in its slot (decided by
the slot's fastest run), and onnx-lint's slots start with an untimed run of the same command; a figure is
the median over the rounds of each round's median, as in bench.py. Prints one
row per model (median wall time / peak RSS, and the speed ratios onnx/check, onnx/shapes, ort/shapes,
ort/annotate: symbolic_shape_infer's inference, without writing its model, against annotate's inference
and write),
then the totals (sum of the medians) and the geometric means of the ratios; writes bench/out/corpus.md
and every sample to bench/out/corpus.json.

Usage: bench/corpus.py [--rounds N] [--bin PATH] [--python PATH] [--cache DIR] [--only NAMES] [--tools LIST]
  --python   the venv's python, with onnx and onnxruntime (default: tools/venv.sh's)
  --cache    the harness's cache, where the PyPI models are (default tests/conformance/cache;
             tests/conformance/real/fetch_pypi.py or tests/conformance/run.sh fills it)
  --only     comma-separated model names or globs
  --tools    comma-separated subset of check,shapes,annotate,onnx,ort (default: all)
Normally started as `bench/run.sh --corpus real [--rounds N] [--no-build] [--bin PATH]`.
"""

import argparse
import datetime
import fnmatch
import json
import math
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bench  # noqa: E402 -- the runner, formats and machine readings of bench.py

REAL = os.path.join(ROOT, "tests", "conformance", "real")
TOOLS = ["check", "shapes", "annotate", "onnx", "ort"]
OURS = ("check", "shapes", "annotate")
# Each ratio: (name, numerator tool, denominator tool).
RATIOS = [("onnx/check", "onnx", "check"), ("onnx/shapes", "onnx", "shapes"), ("ort/shapes", "ort", "shapes"),
          ("ort/annotate", "ort", "annotate")]
ONNX = ("import onnx,sys; m=onnx.load(sys.argv[1]); "
        "onnx.shape_inference.infer_shapes(m, strict_mode=True, data_prop=True)")
ORT = """import logging, sys
import onnx
from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference
logging.getLogger("onnxruntime.tools.symbolic_shape_infer").setLevel(logging.CRITICAL)
m = onnx.load(sys.argv[1])
ssi = SymbolicShapeInference(2**31 - 1, True, True, 0)  # int_max, auto_merge, guess_output_rank, verbose
ssi._preprocess(m)
while ssi.run_:
    ssi._infer_impl()
ssi._update_output_from_vi()
"""


def geomean(xs: list):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "onnx-lint"))
    ap.add_argument("--python", default=None)
    ap.add_argument("--cache", default=os.path.join(ROOT, "tests", "conformance", "cache"))
    ap.add_argument("--only", default="")
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--fast-repeat", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--json", default=os.path.join(bench.OUT, "corpus.json"))
    ap.add_argument("--markdown", default=os.path.join(bench.OUT, "corpus.md"))
    args = ap.parse_args()
    py = args.python or subprocess.run([os.path.join(ROOT, "tools", "venv.sh")], check=True,
                                       capture_output=True, text=True).stdout.strip()
    if not os.access(args.bin, os.X_OK):
        sys.exit(f"corpus: {args.bin} not found; build it (cargo build --release)")
    pats = [p.strip() for p in args.only.split(",") if p.strip()]
    tools = [t for t in TOOLS if t in args.tools.split(",")]
    unknown = set(args.tools.split(",")) - set(TOOLS)
    if unknown or not tools:
        sys.exit(f"corpus: --tools: unknown {sorted(unknown)}; known: {','.join(TOOLS)}")
    ratios_run = [(k, a, b) for k, a, b in RATIOS if a in tools and b in tools]
    models = []
    for name, path in bench.real_corpus(args.cache):
        if pats and not any(fnmatch.fnmatchcase(name, p) for p in pats):
            continue
        models.append({"name": name, "path": path, "samples": {t: [] for t in TOOLS}, "skip": {}})
    missing = [m["name"] for m in models if not os.path.exists(m["path"])]
    models = [m for m in models if os.path.exists(m["path"])]
    if not models:
        sys.exit("corpus: no model found")

    os.makedirs(bench.TMP, exist_ok=True)
    bench.clear_tmp()
    lines = []

    def out(s=""):
        print(s, flush=True)
        lines.append(s)

    def command(tool, m):
        if tool in ("check", "shapes"):
            return [args.bin, tool, m["path"]]
        if tool == "annotate":
            return [args.bin, "annotate", m["path"], "-o", os.path.join(bench.TMP, "annotated.onnx")]
        return [py, "-c", ONNX if tool == "onnx" else ORT, m["path"]]

    load0 = bench.loadavg()
    mem = bench.meminfo()
    out("## Real corpus: onnx-lint against onnx and onnxruntime shape inference")
    out()
    out(f"- date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}; onnx-lint {bench.git_state()}")
    out(f"- machine: {os.cpu_count()} CPUs, {bench.cpu_model()}, {mem['MemTotal'] / bench.GiB:.1f} GiB RAM")
    imp_onnx = [bench.timed([py, "-c", "import onnx"]) for _ in range(3)]
    imp_ort = [bench.timed([py, "-c", "import onnx, onnxruntime.tools.symbolic_shape_infer"]) for _ in range(3)]
    out(f"- {len(models)} models, {args.rounds} interleaved rounds, median wall time (each round's median, then the median over the rounds), "
        f"peak RSS the max over the runs; runs under 0.1 s repeated {args.fast_repeat}x per slot, onnx-lint's after an untimed one"
        + (f"; missing (not in the cache): {', '.join(missing)}" if missing else ""))
    out(f"- in every Python figure: `import onnx` {bench.fmt_time(statistics.median(s.wall for s in imp_onnx))}; "
        f"`import onnx, onnxruntime...symbolic_shape_infer` {bench.fmt_time(statistics.median(s.wall for s in imp_ort))}")
    for m in models:  # page cache warm
        subprocess.run(["cat", m["path"]], stdout=subprocess.DEVNULL, check=True)

    others = []
    t0 = time.time()
    for r in range(args.rounds):
        w0, b0, o0 = time.perf_counter(), bench.busy_seconds(), bench.own_seconds()
        k = r % len(models)
        for m in models[k:] + models[:k]:
            j = r % len(tools)
            for tool in tools[j:] + tools[:j]:
                if tool in m["skip"]:
                    continue
                # onnx-lint's runs (a few ms) start their slot with an untimed run of the same command, as
                # bench.py's do; the Python tools (0.1-7 s) do not, which would double the benchmark.
                reps, i = 1, (-1 if tool in OURS else 0)
                fastest = float("inf")
                while i < reps:
                    s = bench.timed(command(tool, m), args.timeout)
                    s.round = r
                    bench.clear_tmp()
                    if i >= 0:
                        m["samples"][tool].append(s)
                    if s.rc != 0 and not (tool == "check" and s.rc == 1):
                        m["skip"][tool] = f"error: {bench.short(s.err)}"
                        break
                    # Repeated when a run took under 0.1 s, decided as bench.py decides, by the fastest
                    # run so far: one run slowed by the host must not leave its slot a single sample.
                    fastest = min(fastest, s.wall)
                    if i == 0 and fastest < 0.1:
                        reps = max(1, args.fast_repeat)
                    i += 1
            bench.note(f"round {r + 1}/{args.rounds} {m['name']}")
        others.append(max(0.0, (bench.busy_seconds() - b0) - (bench.own_seconds() - o0)) / (time.perf_counter() - w0))
    load1 = bench.loadavg()

    def good(m, tool):
        return [s for s in m["samples"][tool] if s.rc == 0 or (tool == "check" and s.rc == 1)]

    def med(m, tool):
        # Each round counts once, as in bench.py: a slot repeated five times must not outweigh one that
        # ran once.
        return None if tool in m["skip"] else bench.by_round(good(m, tool), lambda s: s.wall)

    def peak(m, tool):
        xs = [s.rss for s in good(m, tool)]
        return max(xs) if xs and tool not in m["skip"] else None

    def cell(m, tool):
        t = med(m, tool)
        return m["skip"].get(tool, "-") if t is None else f"{bench.fmt_time(t)} / {bench.fmt_bytes(peak(m, tool))}"

    def ratio(a, b):
        return None if a is None or b is None or b == 0 else a / b

    out(f"- load average (1 min): {load0[0]:.2f} at the start, {load1[0]:.2f} at the end; "
        f"{(time.time() - t0) / 60:.1f} min of runs")
    out("- other work on the machine during each round (CPUs of "
        f"{os.cpu_count()}): " + ", ".join(f"{x:.2f}" for x in others)
        + (" -- measured while other work was running" if max(others) >= 0.25 else " -- quiet machine"))
    out()
    out("| model | size | " + " | ".join(tools) + " | " + " | ".join(k.replace("/", " / ") for k, _, _ in ratios_run)
        + " |")
    out("|---|---:|" + "---|" * len(tools) + "---:|" * len(ratios_run))
    ratios = {k: [] for k, _, _ in ratios_run}
    for m in models:
        rs = {k: ratio(med(m, a), med(m, b)) for k, a, b in ratios_run}
        for k, v in rs.items():
            if v is not None:
                ratios[k].append(v)
        # Ratios of a few x get a decimal: annotate against symbolic_shape_infer is one.
        out(f"| {m['name']} | {bench.fmt_bytes(os.path.getsize(m['path']))} | "
            + " | ".join(cell(m, t) for t in tools) + " | "
            + " | ".join("-" if v is None else (f"{v:.1f}x" if v < 10 else f"{v:.0f}x") for v in rs.values()) + " |")
    totals = {t: sum(med(m, t) or 0 for m in models) for t in tools}
    ran = {t: sum(1 for m in models if med(m, t) is not None) for t in tools}
    out()
    out("| | " + " | ".join(tools) + " |")
    out("|---|" + "---|" * len(tools))
    out("| total of the medians (models run) | " + " | ".join(f"{bench.fmt_time(totals[t])} ({ran[t]})" for t in tools) + " |")
    out("| largest peak RSS | " + " | ".join(bench.fmt_bytes(max((peak(m, t) or 0) for m in models)) for t in tools) + " |")
    out()
    for k, xs in ratios.items():
        g = geomean(xs)
        out(f"- {k}: geometric mean {'-' if g is None else (f'{g:.1f}x' if g < 10 else f'{g:.0f}x')} over {len(xs)} models"
            + (f" (min {min(xs):.1f}x, max {max(xs):.0f}x)" if xs else ""))
    failed = [(m["name"], t, m["skip"][t]) for m in models for t in tools if t in m["skip"]]
    for name, t, why in failed:
        out(f"- {name}: {t} {why}")

    with open(args.markdown, "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(args.json, "w") as f:
        json.dump({"rounds": args.rounds, "other_cpus": others,
                   "models": [{"name": m["name"], "path": m["path"], "skip": m["skip"],
                               "samples": {t: [vars(s) for s in ss] for t, ss in m["samples"].items()}}
                              for m in models]}, f, indent=1)
    bench.note(f"wrote {os.path.relpath(args.markdown, ROOT)} and {os.path.relpath(args.json, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
