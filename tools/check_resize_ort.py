"""check_resize_ort: onnx-lint's Resize sizes against the sizes onnxruntime's kernel produces.

Resize output sizes are float computations (`static_cast<int64_t>(scale * in)` in f32, `round` of one
f32 scale under keep_aspect_ratio_policy); onnx's inference and onnxruntime's graph-level inference
sometimes disagree with the kernel (ORT warns "Expected shape from model ... does not match actual
shape"). This runs each model in onnxruntime and compares the actual output shape with `onnx-lint
shapes`. Known input sizes only (the symbolic formulas are checked against the f32 computation by the
unit tests in src/shape/ops/shape_ops/resize.rs).

Usage: tools/check_resize_ort.py BINARY      (run with the venv of tools/venv.sh; exit 1 on a mismatch)
"""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper


def resize(in_shape, scales=None, sizes=None, attrs=None, opset=18):
    inputs = ["x", "", "scales" if scales is not None else "", "sizes" if sizes is not None else ""]
    while inputs[-1] == "":
        inputs.pop()
    inits = []
    if scales is not None:
        inits.append(numpy_helper.from_array(np.array(scales, np.float32), "scales"))
    if sizes is not None:
        inits.append(numpy_helper.from_array(np.array(sizes, np.int64), "sizes"))
    node = helper.make_node("Resize", inputs, ["y"], **(attrs or {}))
    return graph(node, in_shape, inits, opset)


def upsample(in_shape, scales):
    node = helper.make_node("Upsample", ["x", "scales"], ["y"])
    inits = [numpy_helper.from_array(np.array(scales, np.float32), "scales")]
    return graph(node, in_shape, inits, 9)


def graph(node, in_shape, inits, opset):
    g = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        inits,
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 9  # the newest onnxruntime of tools/requirements.txt reads
    return m


def main():
    binary = sys.argv[1]
    cases = []
    for h, w in [(7, 10), (33, 100), (5, 3), (100, 37), (1, 1000)]:
        for s in [0.1, 0.3, 1 / 3, 0.6, 0.9, 1.5, 1.7, 2.5, 0.75]:
            cases.append(resize([1, 1, h, w], scales=[1, 1, s, s]))
            if s >= 1:
                cases.append(upsample([1, 1, h, w], [1, 1, s, s]))
        for policy in ["not_larger", "not_smaller"]:
            for size in [(10, 10), (3, 50), (64, 17)]:
                attrs = {"keep_aspect_ratio_policy": policy, "axes": [2, 3]}
                cases.append(resize([1, 1, h, w], sizes=list(size), attrs=attrs))
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, m in enumerate(cases):
            path = os.path.join(tmp, f"m{i}.onnx")
            onnx.save(m, path)
            dims = [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]
            options = ort.SessionOptions()
            options.log_severity_level = 3  # ORT's own inference warnings are what this looks past
            session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
            actual = list(session.run(None, {"x": np.zeros(dims, np.float32)})[0].shape)
            out = subprocess.run([binary, "shapes", "--format", "json", path], capture_output=True, text=True)
            ours = [v["shape"] for v in json.loads(out.stdout)["values"] if v["name"] == "y"][0]
            if actual != ours:
                bad += 1
                print(f"MISMATCH {m.graph.node[0].op_type} x={dims}: onnxruntime {actual}, onnx-lint {ours}")
    print(f"CHECK: {len(cases) - bad} passed, {bad} failed (Resize/Upsample sizes vs onnxruntime's kernel)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
