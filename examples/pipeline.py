"""onnx-lint as a step of a Python deployment pipeline, in process on an ``onnx.ModelProto``.

An exported model (by default the shipped ``models/tiny_transformer.onnx``; give another path) is:

1. checked: the step fails (exit 1) on any error, and prints the condition of each W1 (a broadcast that
   holds only for some sizes of the symbolic inputs);
2. made explicit: every implicit broadcast becomes an Expand node (``onnx_lint.expand``);
3. run, original and explicit, in onnxruntime on the same random inputs (symbolic sizes set to small
   values), with graph optimisations off, and their outputs compared bit for bit: ``expand`` keeps
   the values onnxruntime computes (exit 2 if not).

    python examples/pipeline.py [MODEL] [--runs N] [--out EXPLICIT.onnx]

Needs onnx, onnxruntime and numpy (tools/requirements-python.txt); the Python test suite runs it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

import onnx_lint

ROOT = Path(__file__).resolve().parents[1]
# Sizes given to symbolic dimensions, by name (others get DEFAULT_SIZE).
SIZES = {"batch": 2, "seq": 7, "sequence": 7}
DEFAULT_SIZE = 3


def index_bounds(model: onnx.ModelProto) -> dict:
    """For each graph input used as Gather indices into an initializer, the initializer's first size:
    random token ids must stay inside the embedding table."""
    tables = {t.name: t.dims[0] for t in model.graph.initializer if t.dims}
    bounds = {}
    for n in model.graph.node:
        if n.op_type == "Gather" and len(n.input) == 2 and n.input[0] in tables:
            bounds[n.input[1]] = min(bounds.get(n.input[1], tables[n.input[0]]), tables[n.input[0]])
    return bounds


def random_inputs(model: onnx.ModelProto, rng: np.random.Generator) -> dict:
    initializers = {t.name for t in model.graph.initializer}
    bounds = index_bounds(model)
    feeds = {}
    for i in model.graph.input:
        if i.name in initializers:
            continue
        t = i.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else SIZES.get(d.dim_param, DEFAULT_SIZE) for d in t.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
        if np.issubdtype(dtype, np.integer):
            feeds[i.name] = rng.integers(0, bounds.get(i.name, 2), size=shape).astype(dtype)
        elif dtype == np.bool_:
            feeds[i.name] = rng.integers(0, 2, size=shape).astype(np.bool_)
        else:
            feeds[i.name] = rng.standard_normal(shape).astype(dtype)
    return feeds


def session(model: onnx.ModelProto) -> ort.InferenceSession:
    opts = ort.SessionOptions()
    # As the exactness claims of docs/usage.md are measured: no fusion may change the kernels.
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", nargs="?", default=str(ROOT / "models" / "tiny_transformer.onnx"))
    ap.add_argument("--runs", type=int, default=3, help="random input sets to compare on")
    ap.add_argument("--out", help="also save the explicit model here")
    args = ap.parse_args(argv)

    model = onnx.load(args.model)

    # 1. Check: errors stop the pipeline; W1 conditions are worth a look before deploying.
    report = onnx_lint.check(model)
    print(f"check: {report!r}")
    for d in report.errors:
        print(f"  error {d.code} at {d.node!r} ({d.op_type}): {d.message}")
        for name, shape in d.inputs or []:
            print(f"    input {name!r}: {shape}")
    if not report.ok:
        print("pipeline: the model has errors; stopping", file=sys.stderr)
        return 1
    for d in report.diagnostics:
        if d.code == "W1":
            print(f"  W1 at {d.node!r} ({d.op_type}): {d.message}")

    # 2. Expand: ModelProto in, ModelProto out.
    explicit = onnx_lint.expand(model)
    added = len(explicit.graph.node) - len(model.graph.node)
    print(f"expand: {added} nodes inserted ({len(model.graph.node)} -> {len(explicit.graph.node)})")
    # B001 warnings are implicit broadcasts left; B001 infos are those kept implicit on purpose (where
    # onnxruntime's kernels would compute other bits), which the report names.
    left = onnx_lint.check(explicit, select="B001").diagnostics
    assert not [d for d in left if d.severity != "info"], f"implicit broadcasts left: {left}"
    for d in left:
        print(f"  kept implicit at {d.node!r} ({d.op_type}): {d.message}")
    if args.out:
        onnx.save(explicit, args.out)

    # 3. Same inputs, same bits.
    a, b = session(model), session(explicit)
    names = [o.name for o in a.get_outputs()]
    rng = np.random.default_rng(0)
    for run in range(args.runs):
        feeds = random_inputs(model, rng)
        for name, x, y in zip(names, a.run(names, feeds), b.run(names, feeds)):
            if x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes():
                print(f"pipeline: output {name!r} differs on input set {run}", file=sys.stderr)
                return 2
    print(f"onnxruntime: {len(names)} outputs bit-identical on {args.runs} random input sets")
    return 0


if __name__ == "__main__":
    sys.exit(main())
