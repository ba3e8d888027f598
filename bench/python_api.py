"""python_api: times onnx-lint's Python API against the command on benchmark models, and prints a
markdown table.

For each model (default: bench/out/bert_base.onnx and bench/out/synthetic_1M.onnx, made by bench/run.sh
or bench/make_bert.py / make_synthetic.py), in a fresh process per measurement (so each peak RSS is
that run's own), median of --runs runs:

- `binary`: the Rust command `onnx-lint check MODEL` (target/release/onnx-lint, or --binary), as a
  subprocess; the time is the subprocess's wall time.
- `script`: the wheel's `onnx-lint` console script (the same command run in a Python process), as a
  subprocess: the command plus Python's start-up and the import.
- `path`: `onnx_lint.check(path)` in Python; the time is the call alone (the file is memory-mapped by
  the call: nothing read before).
- `bytes`: the file read into `bytes` first (timed apart, as `read`), then `onnx_lint.check(data)`
  (zero-copy over the bytes object).
- `ModelProto`: `onnx.load(path)` first (timed apart, as `load`), then `onnx_lint.check(model)`,
  whose time includes the one `SerializeToString` the call makes.

Peak RSS is the process's (ru_maxrss): for the Python modes it includes the interpreter, the modules,
and what was read or loaded before the call (the bytes, the ModelProto).

    .venv-py/bin/python bench/python_api.py [--runs N] [--binary PATH] [MODEL...]

Needs the package installed in the running interpreter (tools/python_tests.sh makes .venv-py with
it) and onnx for the ModelProto mode.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODES = ["binary", "script", "path", "bytes", "ModelProto"]


def one(mode: str, model: str, binary: str) -> dict:
    """One measurement, in this (fresh) process: {"call": s, "before": s, "rss": bytes, "ok": bool}."""
    if mode in ("binary", "script"):
        cmd = [binary if mode == "binary" else script()]
        t0 = time.perf_counter()
        r = subprocess.run([*cmd, "check", model], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        took = time.perf_counter() - t0
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        return {"call": took, "before": 0.0, "rss": rss, "ok": r.returncode == 0}
    import onnx_lint

    before = 0.0
    if mode == "path":
        arg: object = model
    elif mode == "bytes":
        t0 = time.perf_counter()
        arg = Path(model).read_bytes()
        before = time.perf_counter() - t0
    else:
        import onnx

        t0 = time.perf_counter()
        arg = onnx.load(model)
        before = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = onnx_lint.check(arg)
    took = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"call": took, "before": before, "rss": rss, "ok": report.ok}


def script() -> str:
    found = shutil.which("onnx-lint", path=str(Path(sys.executable).parent))
    if not found:
        sys.exit("the wheel's onnx-lint script is not beside this interpreter: install the package first")
    return found


def fmt_s(s: float) -> str:
    return f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s"


def fmt_b(b: float) -> str:
    return f"{b / 2**20:.1f} MiB" if b < 2**30 else f"{b / 2**30:.2f} GiB"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--binary", default=str(ROOT / "target" / "release" / "onnx-lint"))
    ap.add_argument("--one", nargs=2, metavar=("MODE", "MODEL"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], args.one[1], args.binary)))
        return 0
    models = args.models or [
        str(p) for p in (ROOT / "bench" / "out" / "bert_base.onnx", ROOT / "bench" / "out" / "synthetic_1M.onnx") if p.exists()
    ]
    if not models:
        sys.exit("no model: give paths, or make bench/out/bert_base.onnx (bench/make_bert.py)")
    modes = [m for m in MODES if m != "binary" or os.access(args.binary, os.X_OK)]
    if "binary" not in modes:
        print(f"note: no binary at {args.binary}: the `binary` column is left out", file=sys.stderr)
    import onnx_lint

    print(f"onnx_lint {onnx_lint.__version__}; CPython {sys.version.split()[0]}; {os.cpu_count()} CPUs; "
          f"median of {args.runs} runs, each in a fresh process (modes interleaved); load average "
          f"{os.getloadavg()[0]:.2f} at the start\n")
    results: dict = {}
    for model in models:
        for _ in range(args.runs):
            for mode in modes:
                out = subprocess.run(
                    [sys.executable, __file__, "--binary", args.binary, "--one", mode, model],
                    capture_output=True, text=True, check=True,
                )
                results.setdefault((model, mode), []).append(json.loads(out.stdout))
    print("| model | size | mode | before the call | check call | before + call | peak RSS |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for model in models:
        size = fmt_b(os.path.getsize(model))
        for mode in modes:
            rs = results[(model, mode)]
            call = statistics.median(r["call"] for r in rs)
            before = statistics.median(r["before"] for r in rs)
            total = statistics.median(r["call"] + r["before"] for r in rs)
            rss = max(r["rss"] for r in rs)
            what = {"bytes": "read", "ModelProto": "onnx.load"}.get(mode)
            shown_before = f"{what} {fmt_s(before)}" if what else "-"
            print(f"| {Path(model).name} | {size} | {mode} | {shown_before} | {fmt_s(call)} | {fmt_s(total)} | {fmt_b(rss)} |")
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
