#!/usr/bin/env bash
# Regenerates every example model: runs each models/*.py and models/broken/*.py (each writes the .onnx of
# the same name next to itself) with the project's pinned venv python (tools/venv.sh), then checks that
# models/broken/expected.json names exactly the broken models and nodes that exist in them.
# The output is deterministic: re-running gives byte-identical files (`git diff --exit-code models/`).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=$("$here/../tools/venv.sh")
cd "$here"
for script in *.py broken/*.py; do
  "$python" "$script"
done
"$python" - <<'PY'
import glob, json, os
import onnx

expected = json.load(open("broken/expected.json"))
models = sorted(os.path.basename(p) for p in glob.glob("broken/*.onnx"))
assert sorted(expected) == models, f"expected.json lists {sorted(expected)}, broken/ has {models}"


def nodes_by_graph(model):
    """{graph path: {node name: op_type}}; subgraph paths are <graph>/<node>/<attribute>."""
    out = {}

    def walk(graph, path):
        out[path] = {}
        for n in graph.node:
            out[path][n.name] = n.op_type
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    walk(a.g, f"{path}/{n.name}/{a.name}")
    walk(model.graph, "main")
    return out


for name, findings in expected.items():
    model = onnx.load(os.path.join("broken", name))
    graphs = nodes_by_graph(model)
    for f in findings:
        assert f["model"] == name, f
        assert graphs.get(f["graph"], {}).get(f["node"]) == f["op_type"], f"{name}: no node {f['node']} ({f['op_type']}) in {f['graph']}"
        if "inner_node" in f:
            fn = next(fn for fn in model.functions if f"{fn.domain}.{fn.name}" == f["function"])
            assert {n.name: n.op_type for n in fn.node}.get(f["inner_node"]) == f["inner_op_type"], f
print(f"expected.json: {sum(map(len, expected.values()))} findings in {len(expected)} models, all nodes found")
PY
