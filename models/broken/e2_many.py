"""e2_many: six independent broken contracts in one model, and a node downstream of one of them.

Every shape error of a model is reported in one run, one finding per root cause:

- `concat_feat`: Concat on axis 0 of `a` [2, 3] and `b` [2, 4]: the other axis differs (3 vs 4) -> E2
  `concat-axes`;
- `flatten_rows`: Reshape of `c` [2, 3, 4] (24 elements) to [5, 5] -> E2 `reshape-count`;
- `stem`: Conv of `img` [1, 3, 8, 8] by a weight [4, 2, 3, 3]: 3 input channels where the weight takes 2
  (group 1) -> E2 `conv-channels`;
- `norm`: BatchNormalization of `feat` [1, 4, 8, 8] whose scale has 3 values for 4 channels -> E2
  `batch-norm-stats`;
- `heads`: Split of `d` [2, 10] on axis 1 into sizes [3, 6], which sum to 9 -> E2 `split-sizes`;
- `drop_batch`: Squeeze of axis 0 of `e` [2, 5], whose size is 2 -> E2 `squeeze-one`;
- `residual`: Add of the Reshape's output and `r` [4, 4]. Had the Reshape made its [5, 5], this would be
  an E1 (5 vs 4); after a broken contract the output is unknown, so nothing is reported there: one root
  cause, one finding.

onnxruntime refuses the model when it loads it (the first of these its shape inference meets). Writes
e2_many.onnx next to this script; deterministic.
"""

import os

import numpy as np
import onnx
from _write import check_and_write
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
FULL_CHECK_REJECTS = True  # does onnx's own full_check (strict shape inference) find a planted fault?


def build() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    rng = np.random.default_rng(5)

    def weight(name: str, shape: list[int]) -> onnx.TensorProto:
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    inits = [
        numpy_helper.from_array(np.array([5, 5], np.int64), "to_25"),
        weight("conv_w", [4, 2, 3, 3]),
        weight("bn_scale", [3]),
        weight("bn_bias", [4]),
        weight("bn_mean", [4]),
        numpy_helper.from_array(np.ones([4], np.float32), "bn_var"),
        numpy_helper.from_array(np.array([3, 6], np.int64), "head_sizes"),
        numpy_helper.from_array(np.array([0], np.int64), "axis0"),
    ]
    nodes = [
        helper.make_node("Concat", ["a", "b"], ["ab"], name="concat_feat", axis=0),
        helper.make_node("Reshape", ["c", "to_25"], ["c25"], name="flatten_rows"),
        helper.make_node("Add", ["c25", "r"], ["cr"], name="residual"),
        helper.make_node("Conv", ["img", "conv_w"], ["stem_out"], name="stem"),
        helper.make_node(
            "BatchNormalization", ["feat", "bn_scale", "bn_bias", "bn_mean", "bn_var"], ["normed"], name="norm"
        ),
        helper.make_node("Split", ["d", "head_sizes"], ["h0", "h1"], name="heads", axis=1),
        helper.make_node("Squeeze", ["e", "axis0"], ["e1"], name="drop_batch"),
    ]
    inputs = [
        helper.make_tensor_value_info("a", f, [2, 3]),
        helper.make_tensor_value_info("b", f, [2, 4]),
        helper.make_tensor_value_info("c", f, [2, 3, 4]),
        helper.make_tensor_value_info("r", f, [4, 4]),
        helper.make_tensor_value_info("img", f, [1, 3, 8, 8]),
        helper.make_tensor_value_info("feat", f, [1, 4, 8, 8]),
        helper.make_tensor_value_info("d", f, [2, 10]),
        helper.make_tensor_value_info("e", f, [2, 5]),
    ]
    ranks = {"ab": 2, "cr": 2, "stem_out": 4, "normed": 4, "h0": 2, "h1": 2, "e1": 1}
    outputs = [helper.make_tensor_value_info(name, f, [None] * r) for name, r in ranks.items()]
    graph = helper.make_graph(nodes, "e2_many", inputs, outputs, initializer=inits)
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Broken on purpose: six independent operator contracts broken (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
