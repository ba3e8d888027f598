"""bench: onnx-lint speed and memory, side by side with the onnx anchor and the physical floor (issue 6).

For every input model and every tool, runs the tool under `/usr/bin/time -v` over several INTERLEAVED rounds
(each round runs every tool once on every input, the tool order rotated by one each round, the input order
too), and prints one table of median wall time and peak RSS ("Maximum resident set size"), then the ratios
and the targets with PASS/FAIL.

Tools:
  check    onnx-lint check MODEL
  shapes   onnx-lint shapes MODEL
  expand   onnx-lint expand MODEL -o bench/out/tmp/... (the output is deleted after each run); it flushes
           its output to disk before the rename (temporary file, fsync, rename)
  expand-nofsync  the same with --no-fsync: the output is left to the kernel's writeback, as cp leaves its copy
  fold     onnx-lint fold MODEL -o bench/out/tmp/... (deleted after each run; flushed as expand's is)
  annotate onnx-lint annotate MODEL -o bench/out/tmp/... (the inferred types written into value_info;
           deleted after each run; flushed as expand's is)
  onnx     python -c "import onnx,sys; m=onnx.load(sys.argv[1]);
           onnx.shape_inference.infer_shapes(m, strict_mode=True, data_prop=True)" MODEL
           (the anchor; onnx.load also loads the external data of an external-data model)
  cat      cat FILES > /dev/null        (FILES: the model, and its .data file if it has one)
  cp       cp FILES bench/out/tmp/      (deleted after each run)
  cp+sync  cp FILES bench/out/tmp/ and `sync` (fsync) the copies: the floor of a durable write, as
           expand writes its output (temporary file, fsync, rename)

Usually started through bench/run.sh, which builds the binary and generates the missing inputs.

Options:
  --rounds N        interleaved rounds (default 5)
  --only PATTERNS   comma-separated input names or globs (bert_base, bert_base_ext, bert_base_x4,
                    synthetic_10k, synthetic_100k, synthetic_1M, synthetic_100k_expanded,
                    synthetic_1M_expanded; e.g. 'synthetic_*')
  --tools LIST      comma-separated subset of check,shapes,expand,expand-nofsync,fold,annotate,onnx,cat,cp,cp+sync
  --bin PATH        the onnx-lint binary (default target/release/onnx-lint)
  --python PATH     the python with onnx for the anchor (default: this interpreter)
  --fast-repeat K   a command that ran in under 0.1 s (its warm-up or its first timed run) is repeated K times
                    in its slot (default 5), every repetition a sample
  --warmup W        untimed runs of the same command at the start of every slot (default 1; see below)
  --anchor-timeout S  give up an anchor run after S seconds (default 120) and skip it in the later rounds
  --wait-load L     before starting, wait (at most --wait-max seconds, default 1800) until the 1-minute load
                    average is below L
  --json PATH       also write every sample as JSON (default bench/out/results.json)
  --markdown PATH   also write the report as Markdown (default bench/out/results.md)

Wall time is measured around the `/usr/bin/time -v` process (perf_counter), so it includes the start of
/usr/bin/time and of the tool; the header prints that overhead (`/usr/bin/time -v true`). Files are read
once before the first round (page cache warm: every run reads from memory, not from disk). Each sample
also keeps the run's user and system CPU time (the kernel's accounting of the reaped process, in
microseconds); the scaling targets are reported in user CPU time too, for information: on a VM the cost
of a fresh page (system time) is the host's to decide and grows with the memory a run touches.

Every slot starts with --warmup runs of its command that are not counted, as hyperfine's --warmup does.
Without them the slots were measured unlike each other: a run under 0.1 s is repeated, so its slot's
median is of runs that each follow an identical one and reuse the memory it freed, while a longer run
had one sample, which found the host's memory warm or cold depending on what ran before it (on this VM,
`check` of 1M nodes 0.41-0.43 s right after another run, 0.65-0.69 s after 2.5 s idle). The warm-ups
are kept in the JSON (`"warmup": true`), and the report gives the 1M/100k ratios of the first runs too,
for information. Whether a slot repeats its command is decided by its fastest run so far, the warm-up's
or the first timed one's: decided by the first timed run alone, a spike of this host (a run of `expand`
of 100k nodes that usually takes 80 ms taking 0.15 s, 0.1 s of it system time) left its slot that one
sample, and three such slots in five rounds made the median.
"""

import argparse
import datetime
import fnmatch
import json
import os
import platform
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "out")
TMP = os.path.join(OUT, "tmp")
MiB = 1024 * 1024
GiB = 1024 * MiB
PROTOBUF_LIMIT = 2**31

# name, model file, has external data. The names are the file stems (bench/run.sh uses the same table).
INPUTS = [
    ("bert_base", "bert_base.onnx", False, "BERT-base, weights inline"),
    ("bert_base_ext", "bert_base_ext.onnx", True, "BERT-base, external data"),
    ("bert_base_x4", "bert_base_x4.onnx", False, "BERT, 4x weights inline"),
    ("synthetic_10k", "synthetic_10k.onnx", False, "10k nodes"),
    ("synthetic_100k", "synthetic_100k.onnx", False, "100k nodes"),
    ("synthetic_1M", "synthetic_1M.onnx", False, "1M nodes"),
    # `expand` of the synthetic models (bench/run.sh makes them with the binary): an Expand and a Shape
    # node before 9 of every 10 nodes, which `fold` removes again (fold's real work).
    ("synthetic_100k_expanded", "synthetic_100k_expanded.onnx", False, "expand of 100k nodes (280k nodes)"),
    ("synthetic_1M_expanded", "synthetic_1M_expanded.onnx", False, "expand of 1M nodes (2.8M nodes)"),
]
# Inputs the onnx anchor is not run on: they are not anchor inputs (a 2.8M-node model takes it a minute
# a round, for a figure no target reads).
NO_ANCHOR = ("synthetic_100k_expanded", "synthetic_1M_expanded")
TOOLS = ["check", "shapes", "expand", "expand-nofsync", "fold", "annotate", "onnx", "cat", "cp", "cp+sync"]
WRITERS = ("expand", "expand-nofsync", "fold", "annotate", "cp", "cp+sync")
ANCHOR = "import onnx,sys; m=onnx.load(sys.argv[1]); onnx.shape_inference.infer_shapes(m, strict_mode=True, data_prop=True)"

# Targets (issue 6).
CHECK_SPEEDUP = 20.0
CHECK_RSS = 64 * MiB
X4_RATIO = 1.2
EXPAND_CP = 1.5
EXPAND_RSS_EXTRA = 64 * MiB
CHECK_1M = 2.0
SCALING = 12.0
# Issue 20: the rewrites and the listing at the speed of the check.
PASS_TIME = 2.0  # expand, fold, shapes and annotate within 2x check's time on the same model
PASS_RSS = 1.5  # and within 1.5x its peak RSS
SCALING_1M = 10.0  # 1M/100k nodes for every command


def meminfo() -> dict:
    out = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":", 1)
            out[k] = int(v.split()[0]) * 1024
    return out


def loadavg() -> tuple:
    with open("/proc/loadavg") as f:
        return tuple(float(x) for x in f.read().split()[:3])


def busy_seconds() -> float:
    """CPU seconds spent busy by the whole machine since boot (/proc/stat: all but idle and iowait)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (sum(v[:8]) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def own_seconds() -> float:
    """CPU seconds of this process and its finished children."""
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def cpu_model() -> str:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "?"


def git_state() -> str:
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "src"], capture_output=True, text=True).stdout.strip()
        return head + (" + uncommitted changes in src/" if dirty else "")
    except OSError:
        return "?"


def clear_tmp() -> None:
    for name in os.listdir(TMP):
        p = os.path.join(TMP, name)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        else:
            os.unlink(p)


def real_corpus(cache: str) -> list:
    """(name, path) of every model of the conformance harness's real corpus
    (tests/conformance/real/corpus.json), in its order: a checked-in one under real/, a PyPI one at
    `<cache>/real-corpus/pypi/<name>/model.onnx` (written by real/fetch_pypi.py; may be absent)."""
    real = os.path.join(ROOT, "tests", "conformance", "real")
    with open(os.path.join(real, "corpus.json")) as f:
        spec = json.load(f)
    out = []
    for m in spec["models"]:
        if "file" in m:
            path = os.path.join(real, m["file"])
        else:
            path = os.path.join(cache, "real-corpus", "pypi", m["name"], "model.onnx")
        out.append((m["name"], path))
    return out


class Sample:
    def __init__(self, wall: float, rss: int, rc: int, err: str = "", user: float = 0.0, sys_: float = 0.0):
        self.wall, self.rss, self.rc, self.err = wall, rss, rc, err
        # CPU seconds in the program (user) and in the kernel on its behalf (sys: mostly page faults).
        self.user, self.sys = user, sys_
        self.round = 0  # the round the sample was taken in (see `by_round`)
        self.warmup = False  # an untimed run at the start of its slot (see --warmup): in no median


def timed(argv: list, timeout: float = None) -> Sample:
    """Runs argv under /usr/bin/time -v; stdout to /dev/null, stderr to a file in bench/out/tmp (kept on error)."""
    report = os.path.join(TMP, ".time")
    errfile = os.path.join(TMP, ".stderr")
    # CPU time from the kernel's accounting of reaped children (microseconds; /usr/bin/time prints
    # hundredths, too coarse for a 50 ms run): only this run is reaped between the two readings.
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(errfile, "wb") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(["/usr/bin/time", "-v", "-o", report] + argv, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        # A blocking wait, the timeout kept by a timer that kills the run's process group (time + the
        # tool). `Popen.wait(timeout=...)` polls instead, sleeping 1, 2, 4, 8 ... ms (up to 50 ms)
        # between looks: a 2 ms run was measured as 3 or 7 ms, a 40 ms one as 63 ms.
        expired = threading.Event()

        def kill() -> None:
            expired.set()
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill) if timeout else None
        if timer:
            timer.start()
        p.wait()
        wall = time.perf_counter() - t0
        if timer:
            timer.cancel()
        if expired.is_set():
            return Sample(wall, 0, -1, f"timeout > {timeout:g} s")
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime)
    with open(report, errors="replace") as f:
        text = f.read()
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    rss = int(m.group(1)) * 1024 if m else 0
    m = re.search(r"Exit status: (\d+)", text)
    rc = int(m.group(1)) if m else p.returncode
    msg = ""
    if rc != 0:
        with open(errfile, "rb") as f:
            f.seek(max(0, os.path.getsize(errfile) - 4000))
            lines = [l for l in f.read().decode(errors="replace").splitlines() if l.strip()]
        msg = lines[-1].strip() if lines else f"exit status {rc}"
        if m is None:
            msg = (text.strip().splitlines() or [msg])[-1]
    return Sample(wall, rss, rc, msg, cpu[0], cpu[1])


def by_round(samples: list, value) -> float | None:
    """The median over the rounds of each round's median of `value(sample)` (None without samples)."""
    # Each round counts once. A plain median over all samples weighted the rounds where a run took
    # under 0.1 s (and was repeated) five times as much as the others, so a near-threshold figure
    # followed the host's fast minutes.
    rounds = {}
    for s in samples:
        rounds.setdefault(s.round, []).append(value(s))
    return statistics.median(statistics.median(xs) for xs in rounds.values()) if rounds else None


def note(s: str) -> None:
    """Progress, on stderr: not part of the report."""
    print(s, file=sys.stderr, flush=True)


def short(msg: str, n: int = 70) -> str:
    msg = re.sub(r"^[\w.]+(Error|Exception): ", "", msg)
    return msg if len(msg) <= n else msg[: n - 1] + "…"


def fmt_time(t) -> str:
    if t is None:
        return "-"
    if t < 0.1:
        return f"{t * 1000:.1f} ms"
    if t < 10:
        return f"{t:.2f} s"
    return f"{t:.1f} s"


def fmt_bytes(b) -> str:
    if b is None:
        return "-"
    if b >= GiB:
        return f"{b / GiB:.2f} GiB"
    return f"{b / MiB:.1f} MiB" if b < 100 * MiB else f"{b / MiB:.0f} MiB"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "onnx-lint"))
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--fast-repeat", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--anchor-timeout", type=float, default=120.0)
    ap.add_argument("--wait-load", type=float, default=None)
    ap.add_argument("--wait-max", type=float, default=1800.0)
    ap.add_argument("--json", default=os.path.join(OUT, "results.json"))
    ap.add_argument("--markdown", default=os.path.join(OUT, "results.md"))
    args = ap.parse_args()

    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    bad = [t for t in tools if t not in TOOLS]
    if bad or not tools:
        ap.error(f"--tools: unknown {bad}; choose from {','.join(TOOLS)}")
    pats = [p.strip() for p in args.only.split(",") if p.strip()]
    inputs = [i for i in INPUTS if not pats or any(fnmatch.fnmatchcase(i[0], p) for p in pats)]
    if not inputs:
        ap.error(f"--only {args.only}: no input matches ({', '.join(i[0] for i in INPUTS)})")
    if args.rounds < 1:
        ap.error("--rounds must be >= 1")
    if args.warmup < 0:
        ap.error("--warmup must be >= 0")
    if any(t in tools for t in ("check", "shapes", "expand", "expand-nofsync", "fold", "annotate")) and not os.access(args.bin, os.X_OK):
        sys.exit(f"bench: {args.bin} not found; build it (cargo build --release) or use bench/run.sh")
    if args.wait_load is not None:
        start = time.time()
        while loadavg()[0] >= args.wait_load and time.time() - start < args.wait_max:
            note(f"waiting for the load average to drop below {args.wait_load} (now {loadavg()[0]:.2f})")
            time.sleep(30)

    os.makedirs(TMP, exist_ok=True)
    clear_tmp()
    built = datetime.datetime.fromtimestamp(os.path.getmtime(args.bin)).strftime("%Y-%m-%d %H:%M") if os.path.exists(args.bin) else "?"
    if os.path.exists(args.bin):
        # A private copy: a rebuild of target/release during the run (others build there) cannot change the binary.
        copy = os.path.join(OUT, "bin", "onnx-lint")
        os.makedirs(os.path.dirname(copy), exist_ok=True)
        shutil.copy2(args.bin, copy + ".new")
        os.replace(copy + ".new", copy)
        args.bin = copy

    lines = []  # the report (also written as Markdown)

    def out(s=""):
        print(s, flush=True)
        lines.append(s)

    # Inputs: files, sizes, what can run.
    models = []
    for name, fname, ext, desc in inputs:
        path = os.path.join(OUT, fname)
        files = [path] + ([path + ".data"] if ext else [])
        missing = [f for f in files if not os.path.exists(f)]
        if missing:
            out(f"note: {name}: {os.path.relpath(missing[0], ROOT)} is missing (bench/run.sh generates it); skipped")
            continue
        models.append({"name": name, "desc": desc, "path": path, "files": files, "ext": ext,
                       "size": sum(os.path.getsize(f) for f in files), "model_size": os.path.getsize(path),
                       "skip": {}, "samples": {t: [] for t in tools}})
    if not models:
        sys.exit("bench: no input model; run bench/run.sh")

    mem = meminfo()
    free_disk = shutil.disk_usage(OUT).free
    for m in models:
        if "onnx" in tools:
            if m["name"] in NO_ANCHOR:
                m["skip"]["onnx"] = "not run (not an anchor input)"
            elif m["model_size"] >= PROTOBUF_LIMIT:
                m["skip"]["onnx"] = "error: > 2 GiB protobuf limit"
            elif mem["MemAvailable"] < 5.5 * m["size"] + GiB:  # onnx.load + infer_shapes: ~4.9x the model
                m["skip"]["onnx"] = f"skipped: needs ~{5.5 * m['size'] / GiB:.0f} GiB of memory"
        for t in WRITERS:
            if t in tools and free_disk < 1.2 * m["size"] + GiB:
                m["skip"][t] = "skipped: disk space"

    # Header: the machine.
    uname = os.uname()
    load0 = loadavg()
    out("## onnx-lint benchmark")
    out()
    out(f"- date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}; onnx-lint {git_state()}, binary built {built}")
    out(f"- machine: {os.cpu_count()} CPUs (nproc {len(os.sched_getaffinity(0))}), {cpu_model()}, "
        f"{mem['MemTotal'] / GiB:.1f} GiB RAM ({mem['MemAvailable'] / GiB:.1f} GiB available), "
        f"kernel {uname.release}, {platform.python_implementation()} {platform.python_version()}")
    try:
        import onnx  # noqa: F401 -- only for the version line; the anchor runs in its own process
        onnx_version = onnx.__version__
    except ImportError:
        onnx_version = "?"
    out(f"- onnx {onnx_version}; {args.rounds} interleaved rounds, median wall time (the median over the rounds of "
        f"each round's median); peak RSS = max over the runs of /usr/bin/time -v 'Maximum resident set size'; "
        f"commands that ran in under 0.1 s repeated {args.fast_repeat}x per slot, after {args.warmup} untimed warm-up run(s) of the same command")

    # Overheads: /usr/bin/time + process start, and python + import onnx (part of every anchor run).
    base = [timed(["true"]).wall for _ in range(20)]
    imp = [timed([args.python, "-c", "import onnx"]) for _ in range(3)] if "onnx" in tools else []
    out(f"- overhead in every figure: `/usr/bin/time -v true` {fmt_time(statistics.median(base))}"
        + (f"; `python -c 'import onnx'` (in every anchor figure) {fmt_time(statistics.median(s.wall for s in imp))}, "
           f"{fmt_bytes(max(s.rss for s in imp))}" if imp else ""))

    # Warm the page cache (every file read once) so that no round reads from disk.
    for m in models:
        for f in m["files"]:
            subprocess.run(["cat", f], stdout=subprocess.DEVNULL, check=True)

    def command(tool, m):
        if tool == "check":
            return [args.bin, "check", m["path"]]
        if tool == "shapes":
            return [args.bin, "shapes", m["path"]]
        if tool in ("expand", "expand-nofsync"):
            flags = ["--no-fsync"] if tool == "expand-nofsync" else []
            return [args.bin, "expand", m["path"], "-o", os.path.join(TMP, "expanded_" + os.path.basename(m["path"]))] + flags
        if tool == "fold":
            return [args.bin, "fold", m["path"], "-o", os.path.join(TMP, "folded_" + os.path.basename(m["path"]))]
        if tool == "annotate":
            return [args.bin, "annotate", m["path"], "-o", os.path.join(TMP, "annotated_" + os.path.basename(m["path"]))]
        if tool == "onnx":
            return [args.python, "-c", ANCHOR, m["path"]]
        if tool == "cat":
            return ["cat"] + m["files"]
        if tool == "cp":
            return ["cp"] + m["files"] + [TMP + "/"]
        if tool == "cp+sync":
            return ["sh", "-c", 'cp -- "$@" "$0/" && cd "$0" && sync -- *', TMP] + m["files"]
        raise ValueError(tool)

    loads = [load0[0]]
    others = []  # per round: CPUs used by other work on the machine (busy CPU time not spent by this benchmark)
    t_start = time.time()
    for r in range(args.rounds):
        w0, b0, o0 = time.perf_counter(), busy_seconds(), own_seconds()
        order_m = models[r % len(models):] + models[: r % len(models)]
        for m in order_m:
            k = r % len(tools)
            for tool in tools[k:] + tools[:k]:
                if tool in m["skip"]:
                    continue
                timeout = args.anchor_timeout if tool == "onnx" else None
                reps = 1
                i = -args.warmup
                fastest = float("inf")
                while i < reps:
                    s = timed(command(tool, m), timeout)
                    s.round = r
                    s.warmup = i < 0
                    clear_tmp()
                    if tool in WRITERS:
                        os.sync()  # untimed: no writeback of this run spills into the next one
                    m["samples"][tool].append(s)
                    if s.rc == -1:  # timeout: do not try again
                        m["skip"][tool] = f"skipped: {s.err}"
                        break
                    if s.rc != 0 and not (tool == "check" and s.rc == 1):  # check exits 1 on findings
                        m["skip"][tool] = f"error: {short(s.err)}"
                        break
                    fastest = min(fastest, s.wall)
                    if i == 0 and fastest < 0.1:
                        reps = max(1, args.fast_repeat)
                    i += 1
                timed_here = [x.wall for x in m["samples"][tool] if x.round == r and not x.warmup]
                if timed_here:
                    note(f"round {r + 1}/{args.rounds} {m['name']:15} {tool:6} {fmt_time(statistics.median(timed_here))}")
        loads.append(loadavg()[0])
        others.append(max(0.0, (busy_seconds() - b0) - (own_seconds() - o0)) / (time.perf_counter() - w0))
    elapsed = time.time() - t_start
    load1 = loadavg()

    def ran(s, tool):
        return s.rc == 0 or (tool == "check" and s.rc == 1)  # check exits 1 on findings

    def good(m, tool):
        if m is None or tool not in m["samples"]:
            return []
        return [s for s in m["samples"][tool] if not s.warmup and ran(s, tool)]

    def first_runs(m, tool):
        # The first run of each slot (the warm-up, or the first timed run without one): the median
        # over the rounds, for the first-run ratios.
        if m is None or tool not in m["samples"]:
            return None
        firsts = {}
        for s in m["samples"][tool]:
            if ran(s, tool):
                firsts.setdefault(s.round, s.wall)
        return statistics.median(firsts.values()) if firsts else None

    def med(m, tool):
        return by_round(good(m, tool), lambda s: s.wall)

    def med_cpu(m, tool, which):
        return by_round(good(m, tool), lambda s: getattr(s, which))

    def peak(m, tool):
        xs = [s.rss for s in good(m, tool)]
        return max(xs) if xs else None

    def cell(m, tool):
        t, p = med(m, tool), peak(m, tool)
        if t is None:
            return m["skip"].get(tool, "-")
        extra = f" ({m['skip'][tool]} in a later round)" if tool in m["skip"] else ""
        return f"{fmt_time(t)} / {fmt_bytes(p)}{extra}"

    out(f"- load average (1 min): {load0[0]:.2f} at the start, {min(loads):.2f}..{max(loads):.2f} between rounds, "
        f"{load1[0]:.2f} at the end (5/15 min at the end: {load1[1]:.2f}/{load1[2]:.2f}); {elapsed / 60:.1f} min of runs")
    out("- other work on the machine during each round (busy CPU time not spent by the benchmark, in CPUs of "
        f"{os.cpu_count()}): " + ", ".join(f"{x:.2f}" for x in others)
        + (" -- measured while other work was running" if max(others) >= 0.25 else " -- quiet machine"))
    out()
    out("Median wall time / peak RSS")
    out()
    out("| input | size | " + " | ".join(tools) + " |")
    out("|---|---:|" + "---|" * len(tools))
    for m in models:
        out(f"| {m['name']} | {fmt_bytes(m['size'])} | " + " | ".join(cell(m, t) for t in tools) + " |")
    notes = []
    if any(m["ext"] for m in models):
        notes.append("external data: the size, cat and cp count the .onnx and the .data file; onnx.load reads "
                     "the external data too (what users run); onnx-lint does not need to read the weights")
    out()
    for n in notes:
        out(f"- {n}")

    # Ratios and targets.
    by = {m["name"]: m for m in models}
    rows = []  # (target, measured, verdict)

    def verdict(good):
        return "n/a" if good is None else ("PASS" if good else "FAIL")

    def ratio(a, b):
        return None if a is None or b is None or b == 0 else a / b

    for name in ("bert_base", "bert_base_ext"):
        m = by.get(name)
        if m is None:
            continue
        sp = ratio(med(m, "onnx"), med(m, "check"))
        primary = "" if name == "bert_base" else " (info)"
        rows.append((f"{name}: check >= {CHECK_SPEEDUP:g}x faster than onnx{primary}",
                     "-" if sp is None else f"{sp:.0f}x ({fmt_time(med(m, 'onnx'))} vs {fmt_time(med(m, 'check'))})",
                     verdict(None if sp is None else sp >= CHECK_SPEEDUP)))
        p = peak(m, "check") if "check" in tools else None
        rows.append((f"{name}: check peak RSS < 64 MiB{primary}", fmt_bytes(p), verdict(None if p is None else p < CHECK_RSS)))
    x4 = ratio(med(by.get("bert_base_x4"), "check"), med(by.get("bert_base"), "check"))
    rows.append((f"check bert_base_x4 / bert_base <= {X4_RATIO:g}",
                 "-" if x4 is None else f"{x4:.2f} ({fmt_time(med(by.get('bert_base_x4'), 'check'))} vs {fmt_time(med(by.get('bert_base'), 'check'))})",
                 verdict(None if x4 is None else x4 <= X4_RATIO)))
    for m in models:
        if "expand" not in tools:
            break
        # The target compares expand with cp. Like for like, a durable write (expand flushes its
        # output before the rename) compares with cp + sync, and expand --no-fsync with cp. On the
        # synthetic graphs expand rewrites a million nodes into an output 5x the input: not a copy.
        if m["ext"]:
            info = " (info: expand writes the .onnx only, cp copies the .data too)"
        elif m["name"].startswith("synthetic"):
            info = " (info: a rewrite of every node, not a copy)"
        else:
            info = ""
        for tool, floor, how in (("expand", "cp", "as worded; expand flushes to disk, cp does not"),
                                 ("expand", "cp+sync", "like for like: both flush"),
                                 ("expand-nofsync", "cp", "like for like: neither flushes")):
            er = ratio(med(m, tool), med(m, floor))
            if er is None and (tool not in tools or floor not in tools):
                continue
            name = "expand --no-fsync" if tool == "expand-nofsync" else "expand"
            rows.append((f"{m['name']}: {name} <= {EXPAND_CP:g}x {floor} ({how}){info}",
                         "-" if er is None else f"{er:.2f}x ({fmt_time(med(m, tool))} vs {fmt_time(med(m, floor))})",
                         verdict(None if er is None else er <= EXPAND_CP)))
        p = peak(m, "expand")
        rows.append((f"{m['name']}: expand peak RSS <= size + 64 MiB ({fmt_bytes(m['size'] + EXPAND_RSS_EXTRA)}){info}",
                     fmt_bytes(p), verdict(None if p is None else p <= m["size"] + EXPAND_RSS_EXTRA)))
    c1m = med(by.get("synthetic_1M"), "check")
    rows.append((f"synthetic_1M: check < {CHECK_1M:g} s", fmt_time(c1m), verdict(None if c1m is None else c1m < CHECK_1M)))
    for a, b in (("synthetic_100k", "synthetic_10k"), ("synthetic_1M", "synthetic_100k")):
        for tool in ("check", "shapes", "expand"):
            if tool not in tools:
                continue
            sr = ratio(med(by.get(a), tool), med(by.get(b), tool))
            info = "" if tool == "check" else " (info)"
            rows.append((f"{tool} {a} / {b} <= {SCALING:g}x{info}", "-" if sr is None else f"{sr:.1f}x",
                         verdict(None if sr is None else sr <= SCALING)))
            if tool == "check":
                # The program's own work, without the kernel's: on a VM the cost of a fresh page is the
                # host's to decide, and it grows with the memory a run touches.
                ua, ub = med_cpu(by.get(a), tool, "user"), med_cpu(by.get(b), tool, "user")
                ur = ratio(ua, ub)
                rows.append((f"check {a} / {b} in user CPU time (info: {fmt_time(ua)} vs {fmt_time(ub)}; "
                             f"system time {fmt_time(med_cpu(by.get(a), tool, 'sys'))} vs "
                             f"{fmt_time(med_cpu(by.get(b), tool, 'sys'))})",
                             "-" if ur is None else f"{ur:.1f}x", verdict(None if ur is None else ur <= SCALING)))
    # Issue 20: expand, fold and shapes against check of the same model, in time and peak RSS; every
    # command's 1M/100k ratio.
    for m in models:
        if not m["name"].startswith("synthetic_1") or "check" not in tools:
            continue
        for tool in ("expand", "fold", "shapes", "annotate"):
            if tool not in tools or (tool != "fold" and m["name"].endswith("_expanded")):
                continue
            tr = ratio(med(m, tool), med(m, "check"))
            rows.append((f"{m['name']}: {tool} <= {PASS_TIME:g}x check's time",
                         "-" if tr is None else f"{tr:.2f}x ({fmt_time(med(m, tool))} vs {fmt_time(med(m, 'check'))})",
                         verdict(None if tr is None else tr <= PASS_TIME)))
            mr = ratio(peak(m, tool), peak(m, "check"))
            rows.append((f"{m['name']}: {tool} peak RSS <= {PASS_RSS:g}x check's",
                         "-" if mr is None else f"{mr:.2f}x ({fmt_bytes(peak(m, tool))} vs {fmt_bytes(peak(m, 'check'))})",
                         verdict(None if mr is None else mr <= PASS_RSS)))
    for a, b in (("synthetic_1M", "synthetic_100k"), ("synthetic_1M_expanded", "synthetic_100k_expanded")):
        for tool in ("check", "shapes", "expand", "fold"):
            if tool not in tools or (a.endswith("_expanded") and tool != "fold"):
                continue
            sr = ratio(med(by.get(a), tool), med(by.get(b), tool))
            # The expanded models are beyond issue 20, whose ratios are of the synthetic models
            # themselves: their runs touch 925 MiB at 1M against 127 MiB at 100k, and the time they
            # wait for memory grows faster than the work (bench/HISTORY.md, "Issue 20, tenth session").
            info = (f" (info: {fmt_time(med(by.get(a), tool))} vs {fmt_time(med(by.get(b), tool))}; not a target, "
                    "see bench/README.md)") if a.endswith("_expanded") else ""
            rows.append((f"{tool} {a} / {b} <= {SCALING_1M:g}x{info}", "-" if sr is None else f"{sr:.1f}x",
                         verdict(None if sr is None else sr <= SCALING_1M)))
            fa, fb = first_runs(by.get(a), tool), first_runs(by.get(b), tool)
            fr = ratio(fa, fb)
            rows.append((f"{tool} {a} / {b}, the first run of each slot (info: {fmt_time(fa)} vs {fmt_time(fb)}; "
                         f"memory as the run before left it)", "-" if fr is None else f"{fr:.1f}x", ""))
    for m in models:  # the other ratios, for information
        sp = ratio(med(m, "onnx"), med(m, "check"))
        if sp is not None and m["name"] not in ("bert_base", "bert_base_ext"):
            rows.append((f"{m['name']}: check vs onnx (info)", f"{sp:.1f}x faster" if sp >= 1 else f"{1 / sp:.1f}x slower", ""))
    out()
    out("| target | measured | |")
    out("|---|---|---|")
    for t, v, p in rows:
        if p != "n/a":
            out(f"| {t} | {v} | {p} |")
    skipped = [t for t, v, p in rows if p == "n/a"]
    if skipped:
        out()
        out("- not evaluated (input or tool not run): " + "; ".join(skipped))

    with open(args.markdown, "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(args.json, "w") as f:
        json.dump({"tools": tools, "rounds": args.rounds, "load": {"start": load0, "between_rounds": loads, "end": load1}, "other_cpus": others,
                   "models": [{"name": m["name"], "size": m["size"], "files": m["files"], "skip": m["skip"],
                               "samples": {t: [vars(s) for s in ss] for t, ss in m["samples"].items()}} for m in models],
                   "targets": rows}, f, indent=1)
    note(f"wrote {os.path.relpath(args.markdown, ROOT)} and {os.path.relpath(args.json, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
