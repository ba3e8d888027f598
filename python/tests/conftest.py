"""Shared fixtures of the Python package's tests: the repository's folders, the installed command, and
the four kinds of model argument the API takes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, List

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"
BROKEN = MODELS / "broken"


def onnx_lint_command() -> str:
    """The `onnx-lint` console script the wheel installed, beside this interpreter."""
    found = shutil.which("onnx-lint", path=str(Path(sys.executable).parent))
    assert found, "the wheel's onnx-lint script is not beside the interpreter"
    return found


def run_cli(*args: Any, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """Runs the installed `onnx-lint` with `args` in `cwd`."""
    return subprocess.run(
        [onnx_lint_command(), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1"},
    )


def as_path_str(p: Path) -> Any:
    return str(p)


def as_pathlike(p: Path) -> Any:
    return p


def as_bytes(p: Path) -> Any:
    return p.read_bytes()


def as_bytearray(p: Path) -> Any:
    return bytearray(p.read_bytes())


def as_memoryview(p: Path) -> Any:
    return memoryview(p.read_bytes())


def as_modelproto(p: Path) -> Any:
    import onnx

    return onnx.load(str(p))


KINDS: List[Callable[[Path], Any]] = [as_path_str, as_pathlike, as_bytes, as_bytearray, as_memoryview, as_modelproto]


@pytest.fixture(params=KINDS, ids=lambda f: f.__name__[3:])
def kind(request: pytest.FixtureRequest) -> Callable[[Path], Any]:
    """Turns a model's path into one kind of argument: str, PathLike, bytes, bytearray, memoryview,
    ModelProto."""
    return request.param
