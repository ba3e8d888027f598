#!/usr/bin/env python3
"""How far `onnx-lint expand` keeps onnxruntime's outputs, under each graph optimization level.

For every model of models/ (not models/broken/) that `expand` rewrites, runs the original and the
expanded model in onnxruntime (CPU, one thread) on the same seeded random inputs, once with every graph
optimization off (ORT_DISABLE_ALL) and once with onnxruntime's default (ORT_ENABLE_ALL; `--levels` for
others), and prints per model and level how many output elements differ (bit for bit) and the largest
absolute difference.

    $(tools/venv.sh) tools/expand_ort_levels.py [--bin target/release/onnx-lint] [--seeds 5] [--levels ...]

Symbolic sizes are bound as `--sizes` says (default batch=2,seq=7; any other symbol 3). Integer inputs
take 0..2 (valid ids and masks), floats a standard normal, booleans a fair coin.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

ROOT = Path(__file__).resolve().parent.parent


def feed(model: onnx.ModelProto, sizes: dict[str, int], seed: int) -> dict[str, np.ndarray] | None:
    rng = np.random.default_rng(seed)
    inits = {t.name for t in model.graph.initializer}
    out = {}
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else sizes.get(d.dim_param, 3) for d in tt.shape.dim]
        if tt.elem_type == onnx.TensorProto.STRING:
            words = np.array(["", "a", "bc"], dtype=object)
            out[vi.name] = words[rng.integers(0, 3, size=dims)]
            continue
        dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type))
        if dtype == np.bool_:
            out[vi.name] = np.asarray(rng.random(dims) < 0.5)
        elif dtype.kind == "f":
            out[vi.name] = np.asarray(rng.standard_normal(dims), dtype=dtype)
        elif dtype.kind in "iu":
            out[vi.name] = np.asarray(rng.integers(0, 3, size=dims), dtype=dtype)
        else:
            return None
    return out


def session(path: Path, level: ort.GraphOptimizationLevel) -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.graph_optimization_level = level
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 4
    return ort.InferenceSession(str(path), sess_options=so, providers=["CPUExecutionProvider"])


def compare(a: list, b: list) -> tuple[int, int, float]:
    """(elements compared, elements whose bits differ, largest absolute difference)."""
    total = differ = 0
    worst = 0.0
    for x, y in zip(a, b):
        x, y = np.asarray(x), np.asarray(y)
        total += x.size
        if x.dtype.kind == "f":
            bits = f"u{x.dtype.itemsize}"
            differ += int((x.view(bits) != y.view(bits)).sum())
            both = np.isfinite(x) & np.isfinite(y)
            if both.any():
                worst = max(worst, float(np.abs(x[both].astype(np.float64) - y[both].astype(np.float64)).max()))
        else:
            differ += int((x != y).sum())
    return total, differ, worst


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", default=str(ROOT / "target/release/onnx-lint"))
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--sizes", default="batch=2,seq=7")
    p.add_argument("--levels", default="ORT_DISABLE_ALL,ORT_ENABLE_ALL",
                   help="comma-separated: ORT_DISABLE_ALL, ORT_ENABLE_BASIC, ORT_ENABLE_EXTENDED, ORT_ENABLE_ALL")
    args = p.parse_args()
    sizes = {k: int(v) for k, v in (kv.split("=") for kv in args.sizes.split(",") if kv)}
    levels = [(n, getattr(ort.GraphOptimizationLevel, n)) for n in args.levels.split(",")]
    print(f"onnxruntime {ort.__version__}, onnx {onnx.__version__}, CPU, 1 thread, seeds 0..{args.seeds - 1}, "
          f"sizes {args.sizes} (other symbols 3)\n")
    print("| model | Expands inserted | " + " | ".join(f"{n}: differing / elements, max abs diff" for n, _ in levels) + " |")
    print("|---|---|" + "---|" * len(levels))
    with tempfile.TemporaryDirectory() as tmp:
        for src in sorted((ROOT / "models").glob("*.onnx")):
            out = Path(tmp) / src.name
            run = subprocess.run([args.bin, "expand", str(src), "-o", str(out)], capture_output=True, text=True)
            lines = run.stderr.strip().splitlines() or [""]
            if run.returncode != 0 or not out.exists():
                print(f"| {src.stem} | not rewritten: {lines[-1]} |" + " |" * len(levels))
                continue
            said = [ln for ln in lines if "nodes inserted" in ln]
            inserted = said[-1].split("(")[-1].split()[0] if said else "0"
            model = onnx.load(str(src))
            cells = []
            for _, level in levels:
                try:
                    a, b = session(src, level), session(out, level)
                except Exception as e:  # noqa: BLE001 - a model onnxruntime cannot load is reported, not fatal
                    cells.append("onnxruntime cannot load it: " + str(e).splitlines()[0].split(" : ")[-1][:70])
                    continue
                total = differ = 0
                worst = 0.0
                for seed in range(args.seeds):
                    f = feed(model, sizes, seed)
                    if f is None:
                        break
                    t, d, w = compare(a.run(None, f), b.run(None, f))
                    total, differ, worst = total + t, differ + d, max(worst, w)
                cells.append("bit-identical" if differ == 0 else f"{differ} / {total}, {worst:.2g}")
            print(f"| {src.stem} | {inserted} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
