"""The in-process API: check, shapes, expand and fold on every kind of argument, rule selection, the
exceptions, and agreement with what the command prints and writes."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

import onnx_lint
from conftest import BROKEN, MODELS, ROOT, as_modelproto, as_path_str, as_pathlike, run_cli


def test_definition_of_done():
    r = onnx_lint.check(onnx.load(str(BROKEN / "e1_add.onnx")))
    assert [d.code for d in r.errors] == ["E1"]


def test_version_is_the_commands():
    cargo = (ROOT / "Cargo.toml").read_text()
    want = re.search(r'^version = "([^"]+)"', cargo, re.M).group(1)
    assert onnx_lint.__version__ == want
    ext = (ROOT / "python" / "Cargo.toml").read_text()
    assert re.search(r'^version = "([^"]+)"', ext, re.M).group(1) == want, "python/Cargo.toml's version is the wheel's"


def test_check_e1_on_every_kind(kind):
    r = onnx_lint.check(kind(BROKEN / "e1_add.onnx"))
    assert not r.ok
    assert [d.code for d in r.errors] == ["E1"]
    d = r.errors[0]
    assert (d.name, d.severity, d.graph, d.node, d.op_type) == ("broadcast-error", "error", "main", "add_lhs_rhs", "Add")
    assert d.axis == -1 and d.sizes == [64, 63]
    assert d.inputs == [("lhs", [2, 64]), ("rhs", [2, 63])]
    assert "64 vs 63" in d.message
    assert any("'lhs'" in n for n in d.notes)
    assert "E1" in repr(d) and "add_lhs_rhs" in repr(d)
    assert "1 error," in repr(r)


def test_broken_contracts_are_named():
    r = onnx_lint.check(BROKEN / "e2_matmul.onnx")
    (d,) = r.errors
    assert (d.code, d.name, d.contract, d.node) == ("E2", "shape-contract", "matmul-inner", "project")
    assert d.sizes == [64, 63]
    assert onnx_lint.check(BROKEN / "e1_add.onnx").errors[0].contract is None
    found = {(d.code, d.contract) for d in onnx_lint.check(BROKEN / "e3_values.onnx").errors}
    assert found == {("E3", "gather-indices"), ("E3", "transpose-perm")}


def test_check_clean_model(kind):
    r = onnx_lint.check(kind(MODELS / "tiny_transformer.onnx"))
    assert r.ok and r.errors == []


def test_symbolic_inputs_and_w1():
    r = onnx_lint.check(BROKEN / "w1_fpn_detector.onnx")
    w1 = [d for d in r.diagnostics if d.code == "W1"]
    assert w1 and r.ok, "warnings are not errors"
    (_, s0), (_, s1) = w1[0].inputs
    assert any(isinstance(x, str) for x in s0 + s1), "symbolic sizes are strings"


def test_finding_in_a_subgraph_names_the_inner_node_and_its_inputs():
    (d,) = onnx_lint.check(BROKEN / "e1_in_loop.onnx").errors
    assert d.graph.startswith("main/") and d.inputs and all(name for name, _ in d.inputs)


def test_every_shipped_model_checks_alike_by_path_bytes_and_modelproto():
    for p in sorted(MODELS.rglob("*.onnx")):
        by_path = onnx_lint.check(p)
        by_bytes = onnx_lint.check(p.read_bytes())
        assert by_path.diagnostics == by_bytes.diagnostics, p
        # onnx's re-serialization may reorder nothing that matters to the findings' codes.
        by_proto = onnx_lint.check(onnx.load(str(p)))
        assert [d.code for d in by_proto.diagnostics] == [d.code for d in by_path.diagnostics], p


def test_select_and_ignore():
    model = MODELS / "tiny_transformer.onnx"
    assert onnx_lint.check(model).diagnostics == []
    b001 = onnx_lint.check(model, select="B001").diagnostics
    assert b001 and {d.code for d in b001} == {"B001"}
    assert onnx_lint.check(model, select=["ALL"], ignore=["implicit-broadcast"]).diagnostics == []
    assert onnx_lint.check(model, select=("B",)).diagnostics == b001
    e1 = BROKEN / "e1_add.onnx"
    assert onnx_lint.check(e1, ignore="E1").ok
    assert onnx_lint.check(e1, ignore=["broadcast-error"]).ok
    assert not onnx_lint.check(e1, select=["E"]).ok
    assert onnx_lint.check(e1, select=["W1"]).diagnostics == []


@pytest.mark.parametrize("bad", ["E99", "nonsense-rule", ""])
def test_unknown_selector_is_a_value_error_naming_it(bad):
    with pytest.raises(ValueError, match=re.escape(f"`{bad}`")):
        onnx_lint.check(MODELS / "tiny_cnn.onnx", select=[bad])
    with pytest.raises(ValueError, match="unknown rule selector"):
        onnx_lint.check(MODELS / "tiny_cnn.onnx", ignore=["E1", bad])


def test_selector_of_the_wrong_type():
    with pytest.raises(TypeError):
        onnx_lint.check(MODELS / "tiny_cnn.onnx", select=[1])


def test_model_of_the_wrong_type():
    with pytest.raises(TypeError, match="not int"):
        onnx_lint.check(42)


@pytest.mark.parametrize("call", [onnx_lint.check, onnx_lint.shapes, onnx_lint.expand, onnx_lint.fold])
def test_a_message_other_than_a_model_is_named(call):
    graph = onnx.load(MODELS / "tiny_cnn.onnx").graph
    with pytest.raises(TypeError, match="^expected a ModelProto, got a GraphProto$"):
        call(graph)
    with pytest.raises(TypeError, match="got a TensorProto"):
        call(onnx.TensorProto())


def test_to_json_and_sarif_are_the_commands():
    model = str(BROKEN / "e1_multi.onnx")
    r = onnx_lint.check(model)
    assert r.file == model
    cli = run_cli("check", "--format", "json", model)
    assert cli.returncode == 1
    assert json.loads(r.to_json()) == json.loads(cli.stdout)
    cli = run_cli("check", "--format", "sarif", model)
    assert json.loads(r.to_sarif()) == json.loads(cli.stdout)
    by_bytes = json.loads(onnx_lint.check(Path(model).read_bytes()).to_json())
    assert {d["file"] for d in by_bytes["diagnostics"]} == {"<bytes>"}


def test_shapes_match_the_commands_json(kind):
    model = MODELS / "control_flow.onnx"
    s = onnx_lint.shapes(kind(model))
    listed = json.loads(run_cli("shapes", "--format", "json", model).stdout)["values"]
    want = {}
    for v in listed:
        want.setdefault(v["graph"], {}).setdefault(v["name"], (v["elem_type"], v["shape"]))
    got = {g: {n: tuple(vs) for n, vs in values.items()} for g, values in s.graphs.items()}
    assert got == want
    assert dict(s) == s.graphs["main"]
    assert s["x"] == onnx_lint.ValueShape("FLOAT", [2, 3])
    assert any(g.startswith("main/") for g in s.graphs)


def test_shapes_of_a_symbolic_model():
    s = onnx_lint.shapes(MODELS / "fpn_detector.onnx")
    assert all(isinstance(v, onnx_lint.ValueShape) for v in s.values())
    s = onnx_lint.shapes(BROKEN / "w1_fpn_detector.onnx")
    dims = [d for v in s.values() if v.shape for d in v.shape]
    assert any(isinstance(d, str) for d in dims) and any(isinstance(d, int) for d in dims)


def test_expand_by_path_writes_what_the_command_writes(tmp_path, kind):
    src = MODELS / "tiny_transformer.onnx"
    want = tmp_path / "cli.onnx"
    assert run_cli("expand", src, "-o", want).returncode == 0
    arg = kind(src)
    if kind in (as_path_str, as_pathlike):
        out = tmp_path / "api.onnx"
        assert onnx_lint.expand(arg, output=kind(out)) is None
        assert out.read_bytes() == want.read_bytes()
    elif kind is as_modelproto:
        got = onnx_lint.expand(arg)
        assert type(got) is type(arg) and got is not arg
        assert got == onnx.load(str(want))
        assert len(got.graph.node) > len(arg.graph.node)
    else:
        got = onnx_lint.expand(arg)
        assert isinstance(got, bytes) and got == want.read_bytes()


def _scalar_add() -> onnx.ModelProto:
    g = helper.make_graph(
        [helper.make_node("Add", ["x", "s"], ["y"], name="add")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor("s", TensorProto.FLOAT, [], [1.5])],
    )
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def test_expand_options():
    m = _scalar_add()
    assert [n.op_type for n in onnx_lint.expand(m).graph.node] == ["Expand", "Add"]
    assert onnx_lint.expand(m, keep_scalars=True) == m
    src = (MODELS / "gelu_tanh.onnx").read_bytes()
    plain = onnx.load_from_string(onnx_lint.expand(src))
    forced = onnx.load_from_string(onnx_lint.expand(src, force_explicit=True))
    assert len(forced.graph.node) > len(plain.graph.node)


def test_fold_undoes_expand(kind, tmp_path):
    src = MODELS / "tiny_transformer.onnx"
    arg = kind(src)
    if kind in (as_path_str, as_pathlike):
        mid, back = tmp_path / "mid.onnx", tmp_path / "back.onnx"
        onnx_lint.expand(arg, output=mid)
        onnx_lint.fold(kind(mid), output=kind(back))
        assert back.read_bytes() == src.read_bytes()
    elif kind is as_modelproto:
        back = onnx_lint.fold(onnx_lint.expand(arg))
        assert back == arg
    else:
        assert onnx_lint.fold(onnx_lint.expand(arg)) == src.read_bytes()


def test_expand_and_fold_refuse_a_model_with_errors(kind, tmp_path):
    for run in (onnx_lint.expand, onnx_lint.fold):
        arg = kind(BROKEN / "e1_add.onnx")
        out = tmp_path / "out.onnx"
        kw = {"output": out} if kind in (as_path_str, as_pathlike) else {}
        with pytest.raises(onnx_lint.ModelHasErrors) as e:
            run(arg, **kw)
        assert isinstance(e.value, ValueError)
        assert [d.code for d in e.value.report.errors] == ["E1"]
        assert e.value.report.errors[0].inputs == [("lhs", [2, 64]), ("rhs", [2, 63])]
        assert "E1" in str(e.value)
        assert not out.exists()


def test_output_argument_rules(tmp_path):
    src = MODELS / "tiny_cnn.onnx"
    with pytest.raises(ValueError, match="output= is required"):
        onnx_lint.expand(src)
    with pytest.raises(ValueError, match="only for a model given as a path"):
        onnx_lint.fold(src.read_bytes(), output=tmp_path / "x.onnx")


def test_expand_refuses_to_overwrite_its_input_unless_in_place(tmp_path):
    model = tmp_path / "m.onnx"
    model.write_bytes((MODELS / "tiny_transformer.onnx").read_bytes())
    before = model.read_bytes()
    with pytest.raises(OSError, match="refusing to overwrite the input"):
        onnx_lint.expand(model, output=model)
    assert model.read_bytes() == before
    onnx_lint.expand(model, output=model, in_place=True)
    assert model.read_bytes() != before


def test_expand_of_a_legacy_symbolic_broadcast_is_a_value_error():
    g = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["c"], name="add")],
        "g",
        [
            helper.make_tensor_value_info("a", TensorProto.FLOAT, ["N", 3]),
            helper.make_tensor_value_info("b", TensorProto.FLOAT, [3]),
        ],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, None)],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 7)], ir_version=3)
    try:
        out = onnx_lint.expand(m)
    except ValueError as e:
        assert not isinstance(e, onnx_lint.ModelHasErrors)
        assert "cannot make the broadcasts explicit" in str(e)
    else:
        # opset 7 has Tile and Reshape: a static-rank rewrite is allowed; it must then be a model.
        assert len(out.graph.node) >= 1


def test_load_errors():
    with pytest.raises(onnx_lint.LoadError) as e:
        onnx_lint.check(b"\xff\xff\xff not a model")
    assert isinstance(e.value, ValueError)
    with pytest.raises(onnx_lint.LoadError):
        onnx_lint.check(b"")
    with pytest.raises(FileNotFoundError) as e:
        onnx_lint.check(ROOT / "no" / "such.onnx")
    assert e.value.filename == str(ROOT / "no" / "such.onnx")
    with pytest.raises(IsADirectoryError):
        onnx_lint.check(MODELS)
    for run in (onnx_lint.shapes, onnx_lint.fold):
        with pytest.raises(onnx_lint.LoadError):
            run(b"\x08")


def _external_model(folder: Path) -> Path:
    import numpy as np
    from onnx import numpy_helper

    w = numpy_helper.from_array(np.arange(4096, dtype=np.float32).reshape(1, 4096), "w")
    g = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4096])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4096])],
        [w],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "ext.onnx"
    onnx.save(m, str(path), save_as_external_data=True, location="weights.bin", size_threshold=0)
    return path


def test_external_data_is_resolved_against_the_models_folder(tmp_path, monkeypatch):
    path = _external_model(tmp_path / "a")
    monkeypatch.chdir(tmp_path)
    assert onnx_lint.check(path).ok
    assert onnx_lint.check(Path("a") / "ext.onnx").ok
    # As bytes there is no folder: the reference cannot be resolved, which is an X001 error.
    by_bytes = onnx_lint.check(path.read_bytes())
    assert [d.code for d in by_bytes.errors] == ["X001"]
    # onnx.load reads the data into the message: nothing external is left.
    assert onnx_lint.check(onnx.load(str(path))).ok
    out = tmp_path / "b" / "explicit.onnx"
    out.parent.mkdir()
    onnx_lint.expand(path, output=out)
    assert (tmp_path / "b" / "weights.bin").read_bytes() == (tmp_path / "a" / "weights.bin").read_bytes()
    assert onnx_lint.check(out).ok


def test_help_explains_the_api():
    for f in (onnx_lint.check, onnx_lint.shapes, onnx_lint.expand, onnx_lint.fold):
        assert f.__doc__ and len(f.__doc__) > 200, f.__name__
    assert "select" in onnx_lint.check.__doc__ and "LoadError" in onnx_lint.check.__doc__
    assert onnx_lint.Report.__doc__ and onnx_lint.Diagnostic.__doc__
    assert onnx_lint.__doc__ and "ModelProto" in onnx_lint.__doc__


def test_typing_files_ship():
    pkg = Path(onnx_lint.__file__).parent
    assert (pkg / "py.typed").exists()
    assert (pkg / "_onnx_lint.pyi").exists()


def test_onnx_is_not_imported_for_paths_and_bytes():
    import subprocess
    import sys

    code = (
        "import sys, onnx_lint; "
        f"onnx_lint.check({str(MODELS / 'tiny_cnn.onnx')!r}); "
        f"onnx_lint.expand(open({str(MODELS / 'tiny_cnn.onnx')!r}, 'rb').read()); "
        "assert 'onnx' not in sys.modules and 'google.protobuf' not in sys.modules, sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_inputs_of_an_unnamed_node_and_of_an_undefined_value():
    g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Add", ["a", "q"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    (d,) = onnx_lint.check(m).errors
    # Unnamed nodes are named by position, as in the command's output.
    assert (d.code, d.node) == ("G001", "#1")
    assert d.inputs == [("a", [2, 3]), ("q", None)]


def test_readme_python_example_runs_and_says_what_it_prints(tmp_path, monkeypatch):
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Python") :]
    block = section[section.index("```python\n") + 10 :]
    block = block[: block.index("```")]
    code = block.replace("/tmp/explicit.onnx", str(tmp_path / "explicit.onnx"))
    monkeypatch.chdir(ROOT)
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    assert (tmp_path / "explicit.onnx").exists()
    # Each `expression  # shown` line whose comment is a repr: the repr is what Python shows.
    checked = 0
    for line in code.splitlines():
        m = re.match(r"^([A-Za-z_][^#=]*?)\s+#\s+(.*)$", line)
        if m and not m.group(1).startswith(("import", "assert", "onnx_lint.")):
            expr, shown = m.groups()
            if shown.startswith(("<", "(", "[", "ValueShape", "False", "True")):
                assert repr(eval(expr, scope)) == shown, line
                checked += 1
    assert checked >= 5


def test_check_with_dims():
    # x [N, 3] + table [4, 3]: W1 "N must be 1 or 4"; the values a deployment gives N decide it.
    m = BROKEN / "e1_symbolic_warning.onnx"
    assert [d.code for d in onnx_lint.check(m).diagnostics] == ["W1"]
    fixed = onnx_lint.check(m, dims={"N": 2})
    assert [d.code for d in fixed.errors] == ["E1"] and "2 vs 4" in fixed.errors[0].message
    assert onnx_lint.check(m, dims={"N": 4}).diagnostics == []
    every = onnx_lint.check(m, dims={"N": "5..9"})
    assert [d.code for d in every.errors] == ["E1"]
    assert every.errors[0].message.endswith("fails for every N in 5..=9 (the bound sizes)")
    part = onnx_lint.check(m, dims={"N": range(2, 9)})
    assert [d.code for d in part.diagnostics] == ["W1"]
    assert part.diagnostics[0].message.endswith("fails for N in 2..=3 and 5..=8 (smallest 2)")


@pytest.mark.parametrize("bad", [{"N": "x"}, {"N": "9..3"}, {"N": range(1, 9, 2)}])
def test_bad_dims_are_value_errors(bad):
    with pytest.raises(ValueError):
        onnx_lint.check(BROKEN / "e1_symbolic_warning.onnx", dims=bad)


def test_a_dims_name_the_model_lacks_names_those_it_has():
    with pytest.raises(onnx_lint.LoadError, match="no input dim of the model is named batch .* it has N"):
        onnx_lint.check(BROKEN / "e1_symbolic_warning.onnx", dims={"batch": 1})
    with pytest.raises(TypeError):
        onnx_lint.check(BROKEN / "e1_symbolic_warning.onnx", dims={"N": 1.5})
