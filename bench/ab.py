"""ab.py: `check` of the benchmark inputs by several onnx-lint binaries, interleaved, to compare builds.

Usage: python3 bench/ab.py [--rounds N] NAME=BINARY [NAME=BINARY ...]

Each round runs every binary on each input (bench/out/bert_base.onnx and bench/out/synthetic_1M.onnx, made
by bench/run.sh), in an order that alternates round by round so that drift in the machine's speed falls on
all alike. BERT-base is timed as the fastest of 20 runs per round (one run is a few milliseconds), 1M
nodes once per round. Prints the median over the rounds of the wall time and of the peak RSS (wait4's
ru_maxrss) per input and binary.
"""

import argparse
import os
import statistics
import subprocess
import time

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out")
MODELS = {"bert_base": (os.path.join(OUT, "bert_base.onnx"), 20), "synthetic_1M": (os.path.join(OUT, "synthetic_1M.onnx"), 1)}


def run(binary: str, model: str) -> tuple[float, float]:
    start = time.perf_counter()
    p = subprocess.Popen([binary, "check", "--format", "json", model], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(p.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("binaries", nargs="+", help="NAME=BINARY")
    args = ap.parse_args()
    bins = dict(b.split("=", 1) for b in args.binaries)
    samples: dict[tuple[str, str], list[tuple[float, float]]] = {(b, m): [] for b in bins for m in MODELS}
    for r in range(args.rounds):
        order = list(bins) if r % 2 == 0 else list(reversed(bins))
        for m, (path, repeat) in MODELS.items():
            for b in order:
                runs = [run(bins[b], path) for _ in range(repeat)]
                samples[(b, m)].append((min(t for t, _ in runs), max(rss for _, rss in runs)))
    for m in MODELS:
        for b in bins:
            times = [t for t, _ in samples[(b, m)]]
            rss = [x for _, x in samples[(b, m)]]
            print(f"{m:14s} {b:12s} median {statistics.median(times) * 1000:8.1f} ms  peak RSS {statistics.median(rss):7.1f} MiB")


if __name__ == "__main__":
    main()
