"""examples/pipeline.py runs (check -> expand -> onnxruntime, outputs bit-identical), so it cannot rot."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import BROKEN, MODELS, ROOT

EXAMPLE = ROOT / "examples" / "pipeline.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(EXAMPLE), *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("model", ["tiny_transformer.onnx", "gelu_tanh.onnx", "ort_contrib.onnx", "tiny_cnn.onnx"])
def test_pipeline_on_a_valid_model_is_bit_identical(model):
    r = run(str(MODELS / model))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "bit-identical" in r.stdout and "nodes inserted" in r.stdout


def test_pipeline_default_model_and_w1_conditions():
    r = run()
    assert r.returncode == 0, r.stderr
    r = run(str(BROKEN / "w1_fpn_detector.onnx"))
    assert r.returncode == 0, r.stderr
    assert "W1 at 'add_p4'" in r.stdout and "fails for H = 33" in r.stdout


def test_pipeline_stops_on_errors():
    r = run(str(BROKEN / "e1_add.onnx"))
    assert r.returncode == 1
    assert "E1" in r.stdout and "input 'rhs': [2, 63]" in r.stdout
