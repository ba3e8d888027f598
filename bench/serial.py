"""serial: how much of a `check --jobs N FOLDER` run is left on the main thread, from a profile.

The main thread walks the folder's top, plans every model's settings and writes the report; the
workers check the models. Under `perf record` (cpu-clock samples at 10 kHz, every thread), this
prints per round the CPU time of the whole `--jobs 1` run and of the main thread of the `--jobs N`
run (its time outside waiting for the workers: a waiting thread takes no samples), then the medians
and their ratio. CPU time, not wall time: the figure holds on a machine that others load.

Usage: bench/serial.py [--bin PATH] [--folder tests/conformance/cache/node] [--jobs 2] [--rounds 7]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HZ = 10_000


def threads_ms(binary: str, jobs: int, folder: str, data: str) -> dict[str, float]:
    """CPU milliseconds of each thread (by name) of one run, from perf's samples."""
    subprocess.run(["perf", "record", "-q", "-F", str(HZ), "-o", data, binary, "check", "--jobs", str(jobs), folder],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    report = subprocess.run(["perf", "report", "-i", data, "--sort", "comm", "--stdio", "-n"],
                            capture_output=True, text=True, check=True).stdout
    out: dict[str, float] = {}
    for line in report.splitlines():
        parts = line.split()
        if len(parts) >= 3 and not line.startswith("#"):
            out[parts[2]] = out.get(parts[2], 0.0) + int(parts[1]) * 1000 / HZ
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(ROOT / "target" / "release" / "onnx-lint"))
    ap.add_argument("--folder", default=str(ROOT / "tests" / "conformance" / "cache" / "node"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    if not Path(args.folder).is_dir():
        sys.exit(f"no folder {args.folder}")
    # The main thread is named after the program (perf keeps its first 15 characters).
    main_name = Path(args.bin).name[:15]
    data = os.path.join(tempfile.mkdtemp(), "perf.data")
    one, main_n = [], []
    for r in range(args.rounds):
        for jobs in ([1, args.jobs] if r % 2 == 0 else [args.jobs, 1]):
            t = threads_ms(args.bin, jobs, args.folder, data)
            if jobs == 1:
                one.append(sum(t.values()))
            else:
                main_n.append(t.get(main_name, 0.0))
        print(f"round {r + 1}: --jobs 1 {one[-1]:.1f} ms CPU, --jobs {args.jobs} main thread {main_n[-1]:.1f} ms CPU")
    a, b = statistics.median(one), statistics.median(main_n)
    print(f"median: --jobs 1 {a:.1f} ms CPU (all threads); --jobs {args.jobs} main thread {b:.1f} ms CPU: {100 * b / a:.1f}%")


if __name__ == "__main__":
    main()
