"""The command from the wheel: the `onnx-lint` console script and `python -m onnx_lint` run the same
command line as the binary, with its output and exit statuses."""

from __future__ import annotations

import subprocess
import sys

import onnx_lint
from conftest import BROKEN, MODELS, ROOT, run_cli


def test_version():
    r = run_cli("--version")
    assert r.returncode == 0
    assert r.stdout.strip() == f"onnx-lint {onnx_lint.__version__}"


def test_check_exit_statuses(tmp_path):
    r = run_cli("check", "models/broken/e1_add.onnx")
    assert r.returncode == 1
    assert "error[E1] broadcast-error" in r.stdout and "'add_lhs_rhs'" in r.stdout
    assert run_cli("check", "models/tiny_cnn.onnx").returncode == 0
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\xff\xff")
    r = run_cli("check", bad)
    assert r.returncode == 2 and "cannot load" in r.stderr + r.stdout


def test_help_and_usage_errors():
    r = run_cli("--help")
    assert r.returncode == 0 and "Usage: onnx-lint" in r.stdout and r.stderr == ""
    r = run_cli("check")
    assert r.returncode == 2 and "Usage: onnx-lint check" in r.stderr and r.stdout == ""
    r = run_cli("chec", "x")
    assert r.returncode == 2 and "unrecognized subcommand" in r.stderr


def test_expand_and_json_through_the_script(tmp_path):
    out = tmp_path / "out.onnx"
    r = run_cli("expand", "models/tiny_transformer.onnx", "-o", out)
    assert r.returncode == 0 and "implicit broadcasts made explicit" in r.stderr
    assert out.read_bytes() == onnx_lint.expand((MODELS / "tiny_transformer.onnx").read_bytes())
    r = run_cli("check", "--format", "json", "models/broken/e1_add.onnx")
    assert '"code": "E1"' in r.stdout


def test_python_dash_m():
    r = subprocess.run(
        [sys.executable, "-m", "onnx_lint", "check", str(BROKEN / "e1_add.onnx")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert r.returncode == 1 and "error[E1]" in r.stdout
    r = subprocess.run([sys.executable, "-m", "onnx_lint", "--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("onnx-lint ")
    r = subprocess.run([sys.executable, "-m", "onnx_lint", "--help"], capture_output=True, text=True, timeout=60)
    assert "Usage: onnx-lint" in r.stdout, "the program name is the command's, not __main__.py"


def test_main_in_process_returns_through_system_exit(capfd):
    import signal

    import pytest

    from onnx_lint.__main__ import main

    # main() gives Ctrl-C back its default action (as the binary has); keep pytest's afterwards.
    saved = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGPIPE)
    try:
        _main_runs(main, capfd, pytest)
    finally:
        signal.signal(signal.SIGINT, saved[0])
        signal.signal(signal.SIGPIPE, saved[1])


def _main_runs(main, capfd, pytest):
    with pytest.raises(SystemExit) as e:
        main(["check", str(MODELS / "tiny_cnn.onnx")])
    assert e.value.code == 0
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert onnx_lint.__version__ in capfd.readouterr().out
