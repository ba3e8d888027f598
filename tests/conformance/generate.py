"""Generates the conformance corpus from the installed `onnx` pip package.

Writes, under the cache folder given with `--out`:

- `node/<case>/model.onnx` and `node/<case>/test_data_set_N/{input,output}_K.pb`: the official ONNX node
  test cases, built from the package with `onnx.backend.test.case.node.collect_testcases()` and
  serialized the way `onnx.backend.test.cmd_tools generate-data` does (TensorProto, or
  SequenceProto / MapProto / OptionalProto for non-tensor values). A case that cannot be serialized is
  skipped, counted and named.
- `real/<group>/<name>/model.onnx` (+ the `test_data_set_*` folders shipped with it): the models shipped
  as files in `onnx/backend/test/data/` (groups `light`, `pytorch-converted`, `pytorch-operator`,
  `simple`). A `light` model ships only its expected output, copied as `output_0.pb` next to it.
- `stamp.json`: the onnx version, a hash of this script and the counts per group. When the stamp matches,
  nothing is regenerated (use `--force` to regenerate anyway).

Everything is written into a staging folder first and moved into place when complete, so an interrupted
run leaves no half corpus behind a valid stamp.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

STAMP = "stamp.json"
REAL_GROUPS = ("light", "pytorch-converted", "pytorch-operator", "simple")
# Top-level entries of the cache that this script owns (replaced as a whole on regeneration).
OUTPUTS = ("node", "real")


@dataclass
class GroupResult:
    """What was written for one group of the corpus."""

    written: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)


def script_hash() -> str:
    """Hash of this file, so that a changed generator invalidates the cache."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def wanted_stamp() -> dict[str, str]:
    """The stamp identity of a corpus this script would generate now."""
    return {"onnx": onnx.__version__, "generator": script_hash()}


def read_stamp(out: Path) -> dict[str, Any] | None:
    """The stamp of an existing corpus, or None if there is none (or it is unreadable)."""
    path = out / STAMP
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        print(f"generate: ignoring unreadable stamp {path}: {e}", file=sys.stderr)
        return None


def serialize_value(value: Any, value_info: onnx.ValueInfoProto) -> bytes:
    """Serializes one input/output value like `onnx.backend.test.cmd_tools` does."""
    t = value_info.type
    if t.HasField("map_type"):
        return numpy_helper.from_dict(value, value_info.name).SerializeToString()
    if t.HasField("sequence_type"):
        return numpy_helper.from_list(value, value_info.name).SerializeToString()
    if t.HasField("optional_type"):
        return numpy_helper.from_optional(value, value_info.name).SerializeToString()
    if not t.HasField("tensor_type"):
        raise ValueError(f"value {value_info.name!r} has an unsupported type {t.WhichOneof('value')}")
    if isinstance(value, TensorProto):
        return value.SerializeToString()
    return numpy_helper.from_array(np.asarray(value), value_info.name).SerializeToString()


def write_node_case(case: Any, case_dir: Path) -> None:
    """Writes one node test case: model.onnx and its data sets."""
    model = case.model
    if model is None or not case.data_sets:
        raise ValueError("test case has no model or no data sets")
    case_dir.mkdir(parents=True)
    (case_dir / "model.onnx").write_bytes(model.SerializeToString())
    graph = model.graph
    for i, (inputs, outputs) in enumerate(case.data_sets):
        data_dir = case_dir / f"test_data_set_{i}"
        data_dir.mkdir()
        for kind, values, infos in (("input", inputs, graph.input), ("output", outputs, graph.output)):
            if len(values) > len(infos):
                raise ValueError(f"data set {i} has {len(values)} {kind}s, the graph {len(infos)}")
            for k, value in enumerate(values):
                (data_dir / f"{kind}_{k}.pb").write_bytes(serialize_value(value, infos[k]))


def collect_node_cases() -> list[Any]:
    """The node test cases of the installed onnx package (their numpy warnings silenced)."""
    import onnx.backend.test.case.node as node_cases

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return node_cases.collect_testcases()


def generate_node(staging: Path) -> GroupResult:
    """Writes every node test case into `staging/node/`; a case that fails is skipped and recorded."""
    result = GroupResult()
    root = staging / "node"
    root.mkdir(parents=True)
    seen: set[str] = set()
    for case in collect_node_cases():
        if case.name in seen:
            result.skipped.append((case.name, "duplicate test case name"))
            continue
        seen.add(case.name)
        case_dir = root / case.name
        try:
            write_node_case(case, case_dir)
        except Exception as e:  # noqa: BLE001 - any failure skips this one case; it is counted and named
            shutil.rmtree(case_dir, ignore_errors=True)
            result.skipped.append((case.name, f"{type(e).__name__}: {e}"))
            continue
        result.written += 1
    return result


def package_data_dir() -> Path:
    """`onnx/backend/test/data` of the installed package."""
    return Path(onnx.__file__).parent / "backend" / "test" / "data"


def copy_light(src: Path, dest: Path) -> GroupResult:
    """Copies `light/*.onnx` (and each one's expected `_output_0.pb`) to `dest/<stem>/`."""
    result = GroupResult()
    for model in sorted(src.glob("*.onnx")):
        case_dir = dest / model.stem
        case_dir.mkdir(parents=True)
        shutil.copyfile(model, case_dir / "model.onnx")
        for out in sorted(src.glob(f"{model.stem}_output_*.pb")):
            shutil.copyfile(out, case_dir / out.name[len(model.stem) + 1 :])
        result.written += 1
    return result


def copy_model_dirs(src: Path, dest: Path) -> GroupResult:
    """Copies every `src/<name>/` holding a `model.onnx` (with its data sets) to `dest/<name>/`."""
    result = GroupResult()
    for case_dir in sorted(p for p in src.iterdir() if p.is_dir()):
        if not (case_dir / "model.onnx").is_file():
            result.skipped.append((case_dir.name, "no model.onnx"))
            continue
        shutil.copytree(case_dir, dest / case_dir.name)
        result.written += 1
    return result


def generate_real(staging: Path) -> dict[str, GroupResult]:
    """Copies the model files shipped in the package into `staging/real/<group>/`."""
    data = package_data_dir()
    results = {}
    for group in REAL_GROUPS:
        src = data / group
        dest = staging / "real" / group
        dest.mkdir(parents=True)
        if not src.is_dir():
            results[group] = GroupResult(skipped=[(str(src), "folder missing from the onnx package")])
        elif group == "light":
            results[group] = copy_light(src, dest)
        else:
            results[group] = copy_model_dirs(src, dest)
    return results


def print_counts(counts: dict[str, dict[str, int]]) -> None:
    """One line per group: written and skipped."""
    for group, c in counts.items():
        print(f"  {group}: {c['written']} models, {c['skipped']} skipped")
    total = sum(c["written"] for c in counts.values())
    print(f"  total: {total} models")


def print_skipped(results: dict[str, GroupResult], limit: int = 20) -> None:
    """Names the skipped cases (the first `limit` of each group)."""
    for group, r in results.items():
        for name, reason in r.skipped[:limit]:
            print(f"  skipped {group}/{name}: {reason}")
        if len(r.skipped) > limit:
            print(f"  ... and {len(r.skipped) - limit} more skipped in {group}")


def install(staging: Path, out: Path) -> None:
    """Replaces the corpus folders of `out` with those of `staging`."""
    for name in OUTPUTS:
        target = out / name
        if target.exists():
            shutil.rmtree(target)
        (staging / name).rename(target)


def generate(out: Path) -> dict[str, dict[str, int]]:
    """Generates the whole corpus into `out` and writes the stamp; returns the counts per group."""
    out.mkdir(parents=True, exist_ok=True)
    (out / STAMP).unlink(missing_ok=True)
    staging = out / ".staging"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir()
    results = {"node": generate_node(staging)}
    results.update({f"real/{g}": r for g, r in generate_real(staging).items()})
    install(staging, out)
    staging.rmdir()
    print_skipped(results)
    counts = {g: {"written": r.written, "skipped": len(r.skipped)} for g, r in results.items()}
    stamp = {**wanted_stamp(), "counts": counts}
    (out / STAMP).write_text(json.dumps(stamp, indent=2) + "\n")
    return counts


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="cache folder to write the corpus into")
    parser.add_argument("--force", action="store_true", help="regenerate even if the stamp matches")
    return parser.parse_args()


def main() -> int:
    args = parse_args()
    out: Path = args.out
    stamp = read_stamp(out)
    if not args.force and stamp is not None and all(stamp.get(k) == v for k, v in wanted_stamp().items()):
        print(f"generate: corpus in {out} is up to date (onnx {onnx.__version__}):")
        print_counts(stamp.get("counts", {}))
        return 0
    print(f"generate: generating the corpus from onnx {onnx.__version__} into {out} ...")
    start = time.monotonic()
    counts = generate(out)
    print(f"generate: done in {time.monotonic() - start:.1f} s:")
    print_counts(counts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
