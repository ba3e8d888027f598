"""The machine-readable outputs against their published schemas: `check --format sarif` against SARIF
2.1.0 (tests/data/sarif-schema-2.1.0.json, formats checked too) and `dims --format json` against
docs/sizes-report.schema.json, on every model the repository ships.

These live here, not in the Rust tests, because a JSON Schema validator in Rust (the `jsonschema` crate
and its 41 dependencies) made `cargo test --release` compile a second tree of crates; the Python suite
already has a venv, where `jsonschema` is one pinned package."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

import onnx_lint
from conftest import BROKEN, MODELS, ROOT, run_cli

SARIF_SCHEMA = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
SIZES_SCHEMA = ROOT / "docs" / "sizes-report.schema.json"
REAL = ROOT / "tests" / "conformance" / "real" / "models"


def validator(path: Path) -> jsonschema.protocols.Validator:
    """A validator of the schema's own draft, with its formats enforced (`uri`, `uri-reference`,
    `date-time`: the pinned rfc3986-validator and rfc3339-validator make them checkable)."""
    schema = json.loads(path.read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def errors(v: jsonschema.protocols.Validator, doc: object) -> str:
    return "\n".join(f"{e.message} at {list(e.absolute_path)}" for e in v.iter_errors(doc))


@pytest.fixture(scope="module")
def sarif() -> jsonschema.protocols.Validator:
    schema = json.loads(SARIF_SCHEMA.read_text())
    assert schema["$id"] == (
        "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"
    )
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    return validator(SARIF_SCHEMA)


@pytest.fixture(scope="module")
def sizes() -> jsonschema.protocols.Validator:
    return validator(SIZES_SCHEMA)


def valid_sarif(v, *args, cwd: Path = ROOT) -> dict:
    r = run_cli("check", "--format", "sarif", *args, cwd=cwd)
    assert r.returncode in (0, 1, 2), r.stderr
    doc = json.loads(r.stdout)
    problems = errors(v, doc)
    assert not problems, f"{args}:\n{problems}"
    assert doc["version"] == "2.1.0"
    return doc


# --- SARIF -----------------------------------------------------------------------------------------


def test_the_sarif_schema_rejects_a_broken_log(sarif):
    assert not sarif.is_valid({"version": "2.1.0"})
    assert not sarif.is_valid({"version": "2.1.0", "runs": [{"tool": {}}]})
    bad_level = {"message": {"text": "m"}, "level": "fatal"}
    assert not sarif.is_valid({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [bad_level]}]})

    # Formats are enforced: a URI reference cannot hold a space or a raw newline.
    def with_uri(uri: str) -> dict:
        location = {"physicalLocation": {"artifactLocation": {"uri": uri}}}
        result = {"message": {"text": "m"}, "locations": [location]}
        return {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [result]}]}

    assert sarif.is_valid(with_uri("dir/a%20b.onnx"))
    assert not sarif.is_valid(with_uri("dir/a b.onnx"))
    assert not sarif.is_valid(with_uri("a\nb.onnx"))


def test_sarif_of_a_clean_model_is_valid(sarif):
    doc = valid_sarif(sarif, "models/tiny_cnn.onnx")
    assert doc["runs"][0]["results"] == []


def test_sarif_of_every_broken_model_is_valid(sarif):
    levels = set()
    for p in sorted(BROKEN.glob("*.onnx")):
        doc = valid_sarif(sarif, p)
        levels.update(r["level"] for r in doc["runs"][0]["results"])
    # E1 and W1 both went through the schema.
    assert {"error", "warning"} <= levels, levels
    # B001 and the info codes too, the whole folder in one log.
    valid_sarif(sarif, "--explicit", "models")


def test_sarif_of_load_failures_and_odd_names_is_valid(sarif, tmp_path):
    (tmp_path / "garbage.onnx").write_bytes(b"\x3a\xff")
    (tmp_path / "empty.onnx").write_bytes(b"")
    for name in ["comma, colon: percent% #hash?q.onnx", "new\nline.onnx", "ünï cödé.onnx"]:
        shutil.copyfile(BROKEN / "e1_add.onnx", tmp_path / name)
    doc = valid_sarif(sarif, "garbage.onnx", cwd=tmp_path)
    assert doc["runs"][0]["invocations"][0]["executionSuccessful"] is False
    doc = valid_sarif(sarif, ".", BROKEN, MODELS / "tiny_cnn.onnx", "missing.onnx", cwd=tmp_path)
    notes = doc["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert len(notes) == 3, notes  # garbage.onnx, empty.onnx, missing.onnx
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"] for loc in r["locations"]}
    assert any("%0A" in u for u in uris) and any("%20" in u for u in uris), uris


def test_sarif_of_an_unused_suppression_is_valid(sarif):
    doc = valid_sarif(sarif, "--config", "docs/examples/s001.toml", "models/broken/e1_add.onnx")
    assert any(r["ruleId"] == "S001" for r in doc["runs"][0]["results"])


# --- The sizes report ------------------------------------------------------------------------------


def shipped_models() -> list[Path]:
    """Every model of models/, docs/examples/ and the real corpus's checked-in exports."""
    found = [*MODELS.glob("*.onnx"), *BROKEN.glob("*.onnx"), *(ROOT / "docs" / "examples").glob("*.onnx")]
    found += REAL.glob("*.onnx")
    return sorted(found)


def test_the_sizes_schema_refuses_a_report_of_another_shape(sizes):
    assert not sizes.is_valid({"symbols": []})
    report = onnx_lint.dims(BROKEN / "e1_symbolic_warning.onnx")
    assert sizes.is_valid(report), errors(sizes, report)
    report["symbols"][0]["no_finding"]["intervals"] = [[1]]
    assert not sizes.is_valid(report)


@pytest.mark.parametrize("model", shipped_models(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_sizes_report_of_every_shipped_model_is_valid(sizes, model):
    r = run_cli("dims", model, "--format", "json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert not (problems := errors(sizes, report)), problems
    # Each symbol narrowed to a range and to one value: the report's other forms (bound, fixed).
    for s in report["symbols"][:3]:
        for dim in (f"{s['name']}=2..64", f"{s['name']}=7"):
            r = run_cli("dims", model, "--format", "json", "--dim", dim)
            assert r.returncode == 0, r.stderr
            assert not (problems := errors(sizes, json.loads(r.stdout))), f"{dim}: {problems}"


def test_the_sizes_report_covers_the_models_symbols():
    """The parametrized test above is not vacuous: the shipped models have symbols with conditions."""
    with_conditions = [m for m in shipped_models() if onnx_lint.dims(m)["conditions"]]
    assert len(with_conditions) >= 10, with_conditions
