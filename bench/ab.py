"""ab.py: a command of onnx-lint on benchmark inputs by several binaries, interleaved, to compare builds.

Usage: python3 bench/ab.py [--rounds N] [--models LIST] [--args TEMPLATE] [--warm] NAME=BINARY [NAME=BINARY ...]

Each round runs every binary on each input (bench/out/<model>.onnx, made by bench/run.sh; default
bert_base and synthetic_1M), in an order that alternates round by round so that drift in the machine's
speed falls on all alike. The command is TEMPLATE (default `check --format json {model}`), with `{model}`
the input and `{out}` an output path of the binary's own under bench/out/tmp (for `expand` and `fold`).
BERT-base is timed as the fastest of 20 runs per round (one run is a few milliseconds), other inputs
once per round. With --warm, every timed run follows an untimed run of the same command: on a VM whose
host takes freed memory back within about a second, a run after a different one meets cold memory by
chance (bench/HISTORY.md, "Issue 20, ninth session"). Prints the median over the rounds of the wall
time, the user and system CPU time and the peak RSS (wait4's rusage) per input and binary.
"""

import argparse
import os
import shlex
import statistics
import subprocess
import time

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out")
# Runs per round, the fastest kept, for inputs whose run takes a few milliseconds.
REPEAT = {"bert_base": 20}


def run(argv: list[str]) -> tuple[float, float, float, float]:
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(p.pid, 0)
    return time.perf_counter() - start, usage.ru_utime, usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--models", default="bert_base,synthetic_1M")
    ap.add_argument("--args", default="check --format json {model}")
    ap.add_argument("--warm", action="store_true")
    ap.add_argument("binaries", nargs="+", help="NAME=BINARY")
    args = ap.parse_args()
    bins = dict(b.split("=", 1) for b in args.binaries)
    models = args.models.split(",")
    os.makedirs(os.path.join(OUT, "tmp"), exist_ok=True)

    def argv(b: str, m: str) -> list[str]:
        out = os.path.join(OUT, "tmp", f"ab_{b}.onnx")
        return [bins[b], *(a.format(model=os.path.join(OUT, f"{m}.onnx"), out=out) for a in shlex.split(args.args))]

    samples: dict[tuple[str, str], list[tuple[float, float, float, float]]] = {(b, m): [] for b in bins for m in models}
    for r in range(args.rounds):
        order = list(bins) if r % 2 == 0 else list(reversed(bins))
        for m in models:
            for b in order:
                if args.warm:
                    run(argv(b, m))
                runs = [run(argv(b, m)) for _ in range(REPEAT.get(m, 1))]
                samples[(b, m)].append(min(runs))
    for m in models:
        for b in bins:
            s = samples[(b, m)]
            med = [statistics.median(x[k] for x in s) for k in range(4)]
            print(
                f"{m:24s} {b:12s} median {med[0] * 1000:8.1f} ms  user {med[1] * 1000:7.1f} ms  "
                f"sys {med[2] * 1000:6.1f} ms  peak RSS {med[3]:7.1f} MiB"
            )


if __name__ == "__main__":
    main()
