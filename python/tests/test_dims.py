"""``onnx_lint.dims``: the sizes report as plain dicts and lists, the structure of
``onnx-lint dims --format json``, on every kind of argument."""

from __future__ import annotations

import json

import pytest

import onnx_lint
from conftest import BROKEN, as_path_str, run_cli


def test_dims_on_every_kind(kind):
    r = onnx_lint.dims(kind(BROKEN / "e1_symbolic_warning.onnx"))
    assert type(r) is dict
    (n,) = r["symbols"]
    assert n["name"] == "N" and n["appears"] == [{"input": "x", "axis": 0, "declared": "N"}]
    (c,) = [r["conditions"][i] for i in n["alone"]]
    assert (c["node"], c["op_type"], c["code"], c["kind"]) == ("add_symbolic", "Add", "W1", "broadcast")
    assert c["condition"] == "N must be 1 or 4"
    # The values with no finding, of 1..=65536: exactly 1 and 4.
    assert n["no_finding"]["intervals"] == [[1, 1], [4, 4]]
    assert n["no_finding"]["count"] == 2 and n["no_finding"]["complete"] is True
    assert r["errors"] == [] and r["other"] == []


def test_dims_is_the_commands_json():
    m = BROKEN / "w1_fpn_detector.onnx"
    out = run_cli("dims", m, "--format", "json", "--dim", "W=1..640", "--dim", "H=640")
    assert out.returncode == 0, out.stderr
    cli = json.loads(out.stdout)
    api = onnx_lint.dims(as_path_str(m), dims={"W": range(1, 641), "H": 640})
    assert api == cli


def test_dims_narrow_and_fix():
    m = BROKEN / "e1_symbolic_warning.onnx"
    (n,) = onnx_lint.dims(m, dims={"N": "2..8"})["symbols"]
    assert n["bound"] == "2..=8" and n["domain"] == {"from": 2, "to": 8}
    assert n["no_finding"]["intervals"] == [[4, 4]]
    (n,) = onnx_lint.dims(m, dims={"N": 4})["symbols"]
    assert n["no_finding"] is None and n["text"].startswith("fixed to 4")
    (n,) = onnx_lint.dims(m, dims={"N": "5.."})["symbols"]
    assert n["no_finding"]["count"] == 0 and n["no_finding"]["complete"] is False


def test_a_concat_is_said_jointly():
    r = onnx_lint.dims(BROKEN / "w2_concat.onnx")
    for s in r["symbols"]:
        assert s["alone"] == [] and len(s["joint"]) == 1
    (c,) = r["conditions"]
    assert c["symbols"] == ["M", "N"] and c["contract"] == "concat-axes" and c["code"] == "W2"


def test_dims_errors():
    m = BROKEN / "e1_symbolic_warning.onnx"
    with pytest.raises(onnx_lint.LoadError, match="no input dim of the model is named batch .* it has N"):
        onnx_lint.dims(m, dims={"batch": 1})
    with pytest.raises(ValueError):
        onnx_lint.dims(m, dims={"N": "9..3"})
    with pytest.raises(onnx_lint.LoadError):
        onnx_lint.dims(b"\xff\xff\xff")
    with pytest.raises(TypeError):
        onnx_lint.dims(1.5)
