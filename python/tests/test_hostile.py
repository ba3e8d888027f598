"""Hostile input through the API (the categories of docs/hostile-input.md, as tests/bad_inputs*.rs hold
them for the command): every call on every case either returns or raises one of the documented
exceptions -- never a RuntimeError (a caught panic), never a crash of the interpreter, never a hang.

The cases are made here in Python: raw protobuf bytes for what onnx's own classes cannot express
(truncations, bad varints, deep nesting), onnx.helper for the rest."""

from __future__ import annotations

import os
import random
import resource
import struct
import threading
from pathlib import Path
from typing import Any, Callable, List, Tuple

import pytest
from onnx import TensorProto, helper

import onnx_lint
from conftest import BROKEN, MODELS

# What a call may raise on bad input; anything else (RuntimeError from a caught panic above all) fails.
EXPECTED = (onnx_lint.LoadError, onnx_lint.ModelHasErrors, ValueError, OSError)

# How long one call on a small hostile model may take ("promptly", with a loaded machine's margin).
DEADLINE = 60.0


def call(f: Callable[[], Any]) -> Tuple[str, Any]:
    """Runs `f` on a thread with a deadline; returns ("ok", result) or ("raised", exception)."""
    box: List[Tuple[str, Any]] = []

    def run() -> None:
        try:
            box.append(("ok", f()))
        except BaseException as e:  # noqa: BLE001 -- judged by the caller
            box.append(("raised", e))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(DEADLINE)
    assert box, f"no answer within {DEADLINE} s (a hang)"
    return box[0]


def survive(data: bytes, tmp_path: Path | None = None) -> onnx_lint.Report | None:
    """Runs check, shapes, expand and fold on `data` (as bytes, and as a file when `tmp_path` is given);
    returns check's report when the bytes load."""
    report = None
    args: List[Any] = [data]
    if tmp_path is not None:
        p = tmp_path / "case.onnx"
        p.write_bytes(data)
        args.append(p)
    for arg in args:
        kw = {"output": tmp_path / "out.onnx"} if isinstance(arg, Path) else {}
        for name, f in [
            ("check", lambda: onnx_lint.check(arg)),
            ("check ALL", lambda: onnx_lint.check(arg, select="ALL")),
            ("shapes", lambda: onnx_lint.shapes(arg)),
            ("expand", lambda: onnx_lint.expand(arg, **kw)),
            ("fold", lambda: onnx_lint.fold(arg, **kw)),
        ]:
            how, what = call(f)
            if how == "raised":
                assert isinstance(what, EXPECTED) and not isinstance(what, RuntimeError), (
                    f"{name} raised {type(what).__name__}: {what}"
                )
            elif name == "check" and not isinstance(arg, Path):
                report = what
    return report


def codes(report: onnx_lint.Report | None) -> set:
    assert report is not None, "the case should load"
    return {d.code for d in report.diagnostics}


# ---------------------------------------------------------------------------------------------------
# Protobuf bytes
# ---------------------------------------------------------------------------------------------------


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def record(field: int, payload: bytes) -> bytes:
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def valid_model() -> bytes:
    return (MODELS / "tiny_cnn.onnx").read_bytes()


def test_empty_bytes():
    with pytest.raises(onnx_lint.LoadError):
        onnx_lint.check(b"")
    survive(b"")


def test_random_bytes():
    rng = random.Random(1)
    for n in list(range(1, 40)) + [100, 1000, 10000]:
        survive(bytes(rng.randrange(256) for _ in range(n)))


def test_random_bytes_after_a_valid_prefix():
    rng = random.Random(2)
    head = valid_model()[:200]
    for _ in range(30):
        survive(head + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))))


def test_every_truncation_of_a_model():
    data = (BROKEN / "e1_add.onnx").read_bytes()
    for n in range(len(data)):
        how, what = call(lambda: onnx_lint.check(data[:n]))
        assert how == "ok" or isinstance(what, onnx_lint.LoadError), (n, what)


def test_truncations_through_every_call(tmp_path):
    data = valid_model()
    for n in range(0, len(data), max(1, len(data) // 40)):
        survive(data[:n], tmp_path)


def test_bad_varints_and_lengths():
    cases = [
        b"\x08",  # ir_version, truncated inside its varint
        b"\x08\x80",
        b"\x3a\x05ab",  # graph, truncated inside the length-delimited payload
        b"\x3a" + varint(1 << 63) + b"x",  # length prefix of 2^63
        b"\x08" + b"\xff" * 11 + b"\x01",  # overlong varint
        b"\x08" + b"\xff" * 9 + b"\x7f",  # ten-byte varint overflowing 64 bits
        b"\x0b\x0c",  # start and end group
        b"\x0f",  # wire type 7
        b"\x3d\x00\x00\x00\x00",  # graph (a message) as fixed32: wire-type mismatch
    ]
    for data in cases:
        with pytest.raises(onnx_lint.LoadError):
            onnx_lint.check(data)
        survive(data)


def test_invalid_utf8_in_a_node_name():
    node = record(3, b"\xff\xfe") + record(4, b"Relu")
    graph = record(1, node)
    data = b"\x08\x08" + record(7, graph)
    with pytest.raises(onnx_lint.LoadError):
        onnx_lint.check(data)
    survive(data)


def test_unknown_fields_load():
    data = valid_model() + record(999, b"hello") + varint(1000 << 3) + varint(5)
    assert onnx_lint.check(data).ok
    survive(data)


def nested_graphs(depth: int) -> bytes:
    """A graph whose If node holds a graph whose If node holds... `depth` deep, as raw bytes."""
    g = record(1, record(4, b"Identity") + record(1, b"x") + record(2, b"y"))
    for _ in range(depth):
        attr = record(1, b"then_branch") + varint(20 << 3) + varint(5) + record(6, g)
        g = record(1, record(4, b"If") + record(1, b"c") + record(2, b"y") + record(5, attr))
    return b"\x08\x08" + record(7, g) + record(8, record(1, b"") + varint(2 << 3) + varint(17))


@pytest.mark.parametrize("depth", [10, 30, 60, 200, 5000])
def test_deep_nesting(depth):
    survive(nested_graphs(depth))


def test_deeply_nested_unknown_groups():
    data = b"\x08\x08" + (varint(900 << 3 | 3)) * 100000
    with pytest.raises(onnx_lint.LoadError):
        onnx_lint.check(data)


def test_deep_nesting_from_a_small_thread_stack():
    # Python threads may have small stacks; the work runs on a thread of its own, so this holds.
    old = threading.stack_size(256 * 1024)
    try:
        how, what = call(lambda: onnx_lint.check(nested_graphs(60)))
    finally:
        threading.stack_size(old)
    assert how == "ok" or isinstance(what, EXPECTED), what


# ---------------------------------------------------------------------------------------------------
# Models, graphs, tensors
# ---------------------------------------------------------------------------------------------------


def model_bytes(nodes, inputs=("x",), outputs=("y",), inits=(), opsets=(("", 17),), ir=8, **kw) -> bytes:
    vi = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3])  # noqa: E731
    g = helper.make_graph(list(nodes), "g", [vi(i) for i in inputs], [vi(o) for o in outputs], list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets], ir_version=ir, **kw)
    return m.SerializeToString()


RELU = [helper.make_node("Relu", ["x"], ["y"], name="relu")]


def tensor(name: str, dtype: int, dims: List[int], raw: bytes = b"") -> TensorProto:
    """A tensor as the bytes say, unchecked (onnx.helper refuses what these tests need)."""
    t = TensorProto(name=name, data_type=dtype, dims=dims)
    if raw:
        t.raw_data = raw
    return t


@pytest.mark.parametrize(
    "data, code",
    [
        (b"\x08\x08", "M001"),
        (model_bytes(RELU, ir=0), "M002"),
        (model_bytes(RELU, ir=-1), "M002"),
        (model_bytes(RELU, opsets=()), "M003"),
        (model_bytes(RELU, opsets=(("", 1 << 40),)), "M004"),
        (model_bytes(RELU, opsets=(("", -1),)), "M004"),
        (model_bytes(RELU, opsets=(("", 17), ("", 13))), "M005"),
        (model_bytes([helper.make_node("Relu", ["x"], ["y"], domain="nowhere")]), "M006"),
        (model_bytes([helper.make_node("Relu", ["z"], ["y"])]), "G001"),
        (
            model_bytes([helper.make_node("Add", ["x", "b"], ["a"]), helper.make_node("Relu", ["a"], ["b"])], outputs=("a",)),
            "G002",
        ),
        (model_bytes([helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Relu", ["x"], ["y"])]), "G003"),
        (model_bytes(RELU, outputs=("nothing",)), "G004"),
        (model_bytes([helper.make_node("", ["x"], ["y"])]), "G005"),
        (model_bytes(RELU, inits=[tensor("w", 0, [1], b"\0" * 4)]), "T002"),
        (model_bytes(RELU, inits=[tensor("w", 999, [1], b"\0" * 4)]), "T002"),
        (model_bytes(RELU, inits=[tensor("w", TensorProto.FLOAT, [-1])]), "T001"),
        (model_bytes(RELU, inits=[tensor("w", TensorProto.FLOAT, [1 << 40, 1 << 40])]), "T001"),
        (
            model_bytes(RELU, inits=[tensor("w", TensorProto.FLOAT, [4], b"\0" * 4)]),
            "T003",
        ),
    ],
)
def test_model_graph_and_tensor_faults(data, code, tmp_path):
    report = survive(data, tmp_path)
    if code is not None:
        assert code in codes(report), report.diagnostics


def test_duplicate_attribute_and_attribute_type_mismatch(tmp_path):
    n = helper.make_node("LeakyRelu", ["x"], ["y"], name="lr", alpha=0.1)
    n.attribute.append(helper.make_attribute("alpha", 0.2))
    assert "G006" in codes(survive(model_bytes([n]), tmp_path))
    n = helper.make_node("LeakyRelu", ["x"], ["y"], name="lr", alpha=0.1)
    n.attribute[0].type = helper.AttributeProto.INTS
    assert "G007" in codes(survive(model_bytes([n]), tmp_path))


def test_huge_dims_with_four_bytes_of_data_do_not_allocate():
    w = tensor("w", TensorProto.FLOAT, [1 << 20, 1 << 20], b"\0" * 4)
    const = helper.make_node("Constant", [], ["c"], value=w)
    data = model_bytes([const, helper.make_node("Add", ["x", "c"], ["y"])], inits=[w])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    report = survive(data)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert {"T003"} <= codes(report) or {"T001"} <= codes(report)
    assert grown_mib < 512, f"peak memory grew by {grown_mib:.0f} MiB"


def test_recursive_functions(tmp_path):
    f = helper.make_function("local", "F", ["a"], ["b"], [helper.make_node("F", ["a"], ["b"], domain="local")], [helper.make_opsetid("", 17)])
    data = model_bytes(
        [helper.make_node("F", ["x"], ["y"], domain="local")],
        opsets=(("", 17), ("local", 1)),
        functions=[f],
    )
    assert "G009" in codes(survive(data, tmp_path))


def test_a_million_empty_nodes():
    data = b"\x08\x08" + record(7, b"\x0a\x00" * 1_000_000) + record(8, varint(2 << 3) + varint(17))
    report = survive(data)
    assert report is not None


def test_names_with_terminal_escapes(tmp_path):
    data = model_bytes([helper.make_node("Relu", ["x\x1b[31m"], ["y"], name="n\nline\u202e")])
    report = survive(data, tmp_path)
    # The API returns names as they are; escaping is for terminals (the CLI does it).
    assert any(d.node == "n\nline\u202e" for d in report.diagnostics)


# ---------------------------------------------------------------------------------------------------
# External data
# ---------------------------------------------------------------------------------------------------


def external(location: str | None, **extra: str) -> bytes:
    t = tensor("w", TensorProto.FLOAT, [2, 3])
    t.data_location = TensorProto.EXTERNAL
    entries = ({"location": location} if location is not None else {}) | extra
    for k, v in entries.items():
        e = t.external_data.add()
        e.key, e.value = k, v
    add = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    return model_bytes([add], inits=[t])


@pytest.mark.parametrize(
    "location, extra",
    [
        ("/etc/passwd", {}),
        ("../outside.bin", {}),
        ("a/../../outside.bin", {}),
        ("missing.bin", {}),
        ("data.bin", {"offset": "-1"}),
        ("data.bin", {"length": "ten"}),
        ("data.bin", {"offset": "1000000"}),
        ("data.bin", {"offset": str((1 << 64) - 8), "length": "24"}),
        ("*/_ORT_MEM_ADDR_/*", {}),
        (None, {}),
        ("link_out.bin", {}),
        ("fifo.bin", {}),
    ],
)
def test_external_data_faults_are_x001(location, extra, tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "data.bin").write_bytes(b"\0" * 24)
    (tmp_path / "outside.bin").write_bytes(b"\0" * 24)
    os.symlink(tmp_path / "outside.bin", folder / "link_out.bin")
    os.mkfifo(folder / "fifo.bin")  # opening it would block: it must never be opened
    model = folder / "model.onnx"
    model.write_bytes(external(location, **extra))
    report = onnx_lint.check(model)
    assert "X001" in codes(report)
    for run in (onnx_lint.expand, onnx_lint.fold):
        with pytest.raises(onnx_lint.ModelHasErrors):
            run(model, output=tmp_path / "out" / "o.onnx")
    assert not (tmp_path / "out").exists()
    survive(model.read_bytes())


def test_valid_external_data_by_path(tmp_path):
    (tmp_path / "data.bin").write_bytes(struct.pack("<6f", *range(6)))
    model = tmp_path / "model.onnx"
    model.write_bytes(external("data.bin"))
    assert onnx_lint.check(model).ok


# ---------------------------------------------------------------------------------------------------
# Every shipped model through every call and kind of argument
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", sorted(MODELS.rglob("*.onnx")), ids=lambda p: str(p.relative_to(MODELS)))
def test_shipped_models_through_every_call(model, kind, tmp_path):
    arg = kind(model)
    report = onnx_lint.check(arg)
    onnx_lint.shapes(arg)
    for run in (onnx_lint.expand, onnx_lint.fold):
        kw = {"output": tmp_path / "out.onnx"} if isinstance(arg, (str, Path)) else {}
        try:
            out = run(arg, **kw)
        except onnx_lint.ModelHasErrors as e:
            assert not report.ok and e.report.errors == report.errors
        except ValueError as e:
            assert "cannot make the broadcasts explicit" in str(e)
        else:
            assert report.ok
            if not kw:
                assert type(out) is (bytes if isinstance(arg, (bytes, bytearray, memoryview)) else type(arg))
