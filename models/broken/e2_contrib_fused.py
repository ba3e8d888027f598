"""e2_contrib_fused: broken contracts (E2) at onnxruntime's fused operators, as its transformer optimizer writes them.

A BERT-like feed-forward block after `onnxruntime.transformers.optimizer`: `x` [batch, seq, 8] goes
through MatMul by `w1` [8, 16], then BiasGelu with `b1`, MatMul by `w2` [16, 8], and
SkipLayerNormalization of that with the skip `x` (gamma `ln_gamma`, beta `ln_beta`). Two planted faults,
both along the last axis, both the kind onnxruntime finds only when it runs the model ("Input 1 dimension
0 should have same length as the last dimension of input 0", "gamma is expected to have ..."):

- `bias_gelu`: the bias `b1` has 15 values for a hidden size of 16 -> E2 `bias-gelu-bias`, axis -1,
  sizes [16, 15];
- `skip_ln`: gamma has 7 values for a hidden size of 8 -> E2 `skip-layernorm-gamma`, axis -1, sizes
  [8, 7]. beta [8] is valid.

Domains: ai.onnx 17 and com.microsoft 1. onnx's checker does not know com.microsoft (it skips those
nodes), so it passes the model; onnxruntime loads it and fails at run time at `bias_gelu`.
Writes e2_contrib_fused.onnx next to this script; deterministic.
"""

import os

import numpy as np
import onnx
from _write import check_and_write
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
FULL_CHECK_REJECTS = False  # onnx's strict inference skips the com.microsoft nodes: it cannot see them
MS = "com.microsoft"


def build() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    rng = np.random.default_rng(7)

    def weight(name: str, shape: list[int]) -> onnx.TensorProto:
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    inits = [
        weight("w1", [8, 16]),
        weight("b1", [15]),
        weight("w2", [16, 8]),
        weight("ln_gamma", [7]),
        weight("ln_beta", [8]),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h1"], name="fc1"),
        helper.make_node("BiasGelu", ["h1", "b1"], ["g1"], name="bias_gelu", domain=MS),
        helper.make_node("MatMul", ["g1", "w2"], ["h2"], name="fc2"),
        helper.make_node(
            "SkipLayerNormalization", ["h2", "x", "ln_gamma", "ln_beta"], ["y"], name="skip_ln", domain=MS,
            epsilon=1e-5,
        ),
    ]
    graph = helper.make_graph(
        nodes,
        "e2_contrib_fused",
        [helper.make_tensor_value_info("x", f, ["batch", "seq", 8])],
        [helper.make_tensor_value_info("y", f, ["batch", "seq", 8])],
        initializer=inits,
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)],
        doc_string="Broken on purpose: a fused bias and a LayerNorm gamma of the wrong length (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
