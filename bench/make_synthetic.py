"""make_synthetic: a synthetic graph of N cheap broadcasting nodes, for onnx-lint's speed/memory benchmarks.

One input `x` float [batch, 16] (`batch` symbolic) and N nodes: a chain alternating Add and Mul with small
constants (32 initializers, shapes [1,16] and [16], shared by all nodes), and every 10th node a fan-in Add
of the chain with an earlier value of the chain (up to 1000 nodes back, fixed seed). Every value is
[batch, 16] and every broadcast is valid: onnx-lint should report no E1 and no W1. The output is the last
value. Weights are tiny (2 KB); the file is about 42 bytes per node (1M nodes: 42 MB).

Usage: make_synthetic.py --nodes N [-o PATH] [--check]
  --nodes N   number of nodes; a k/M suffix is accepted (10k, 100k, 1M)
  -o PATH     output (default bench/out/synthetic_<N>.onnx)
  --check     also run onnx.checker.check_model(full_check=True) on the model (slow for 1M nodes)

Deterministic: the same N gives byte-identical files.
"""

import argparse
import os
import random
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

HERE = os.path.dirname(os.path.abspath(__file__))
C = 16
CONSTS = 32
FAN_IN_EVERY = 10
FAN_IN_WINDOW = 1000


def count(text: str) -> int:
    mult = {"k": 1_000, "K": 1_000, "m": 1_000_000, "M": 1_000_000}.get(text[-1:], 1)
    return int(text[:-1] if mult > 1 else text) * mult


def build(n: int) -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    pick = random.Random(0)
    inits = []
    for j in range(CONSTS):
        shape = [1, C] if j % 2 == 0 else [C]
        inits.append(numpy_helper.from_array((1.0 + 0.01 * rng.standard_normal(shape)).astype(np.float32), f"c{j}"))

    graph = helper.make_graph(
        [],
        f"synthetic_{n}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", C])],
        [helper.make_tensor_value_info(f"v{n}", TensorProto.FLOAT, ["batch", C])],
        initializer=inits,
    )
    # Nodes are appended through the protobuf API directly (about twice as fast as helper.make_node).
    add = graph.node.add
    prev = "x"
    for i in range(1, n + 1):
        node = add()
        out = f"v{i}"
        if i % FAN_IN_EVERY == 0 and i > 2:
            earlier = pick.randrange(max(1, i - FAN_IN_WINDOW), i - 1)
            node.op_type, node.name = "Add", f"fanin_{i}"
            node.input.extend((prev, f"v{earlier}"))
        elif i % 2:
            node.op_type, node.name = "Add", f"add_{i}"
            node.input.extend((prev, f"c{i % CONSTS}"))
        else:
            node.op_type, node.name = "Mul", f"mul_{i}"
            node.input.extend((prev, f"c{i % CONSTS}"))
        node.output.append(out)
        prev = out
    return helper.make_model(
        graph,
        producer_name="onnx-lint-bench",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string=f"Synthetic benchmark graph: {n} broadcasting element-wise nodes.",
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", required=True, help="number of nodes (10k, 100k, 1M, or a plain number)")
    ap.add_argument("-o", "--output", help="output path (default bench/out/synthetic_<N>.onnx)")
    ap.add_argument("--check", action="store_true", help="run onnx.checker.check_model(full_check=True)")
    args = ap.parse_args()
    n = count(args.nodes)
    if n < 1:
        raise SystemExit("--nodes must be at least 1")
    out = args.output or os.path.join(HERE, "out", f"synthetic_{args.nodes}.onnx")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    t0 = time.perf_counter()
    model = build(n)
    t1 = time.perf_counter()
    onnx.save_model(model, out)
    t2 = time.perf_counter()
    if args.check:
        onnx.checker.check_model(model, full_check=True)
    t3 = time.perf_counter()
    print(f"wrote {out}: {n} nodes, {os.path.getsize(out) / 1e6:.1f} MB")
    print(f"  build {t1 - t0:.1f} s, save {t2 - t1:.1f} s" + (f", check {t3 - t2:.1f} s" if args.check else ""))


if __name__ == "__main__":
    main()
