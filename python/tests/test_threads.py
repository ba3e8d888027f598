"""Threads: the interpreter lock is released while Rust works, so a thread pool checks models in
parallel, with the results of a serial run."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import onnx_lint
from conftest import MODELS, ROOT


def test_thread_pool_results_equal_serial_results():
    models = sorted(MODELS.rglob("*.onnx")) * 3
    serial = [onnx_lint.check(m).to_json() for m in models]
    with ThreadPoolExecutor(max_workers=8) as pool:
        parallel = list(pool.map(lambda m: onnx_lint.check(m).to_json(), models))
    assert parallel == serial
    with ThreadPoolExecutor(max_workers=8) as pool:
        data = [m.read_bytes() for m in models]
        by_bytes = list(pool.map(lambda d: [x.code for x in onnx_lint.check(d).diagnostics], data))
    assert by_bytes == [[x.code for x in onnx_lint.check(m).diagnostics] for m in models]


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> Path:
    """A 100,000-node model of the benchmark's kind (bench/make_synthetic.py): a check long enough
    (0.1 s and more) that a held lock would show."""
    out = tmp_path_factory.mktemp("synthetic") / "synthetic_100k.onnx"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "make_synthetic.py"), "--nodes", "100k", "-o", str(out)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return out


def test_the_lock_is_released_during_a_check(synthetic):
    # While checks run on another thread, this thread keeps getting turns: the longest pause between
    # two of its turns stays far below one check's duration, which it would reach if a check held the
    # lock.
    start = time.perf_counter()
    onnx_lint.check(synthetic)
    one_check = time.perf_counter() - start
    done = threading.Event()

    def work() -> None:
        for _ in range(3):
            onnx_lint.check(synthetic)
        done.set()

    t = threading.Thread(target=work)
    t.start()
    last, longest = time.perf_counter(), 0.0
    while not done.is_set():
        time.sleep(0.001)
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    t.join()
    assert longest < one_check / 2, f"a pause of {longest * 1000:.0f} ms; one check takes {one_check * 1000:.0f} ms"


def test_parallel_speed_up(synthetic, capsys):
    jobs = 4
    serial_start = time.perf_counter()
    serial = [onnx_lint.check(synthetic).to_json() for _ in range(jobs)]
    serial_s = time.perf_counter() - serial_start
    workers = os.cpu_count() or 1
    par_start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        parallel = list(pool.map(lambda _: onnx_lint.check(synthetic).to_json(), range(jobs)))
    par_s = time.perf_counter() - par_start
    assert parallel == serial
    with capsys.disabled():
        print(
            f"\nthreads: {jobs} checks of a 100k-node model: serial {serial_s:.2f} s, "
            f"{workers} threads {par_s:.2f} s, speed-up {serial_s / par_s:.2f}x"
        )
    # No bound on the speed-up: the machine is shared; the lock test above is the proof of release.
