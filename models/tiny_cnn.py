"""tiny_cnn: a small, valid image classifier with static shapes (no E1 expected).

Conv -> Add(bias [1,C,1,1], broadcast over N,H,W) -> Relu -> MaxPool -> Flatten -> Gemm (C [10] broadcast
over the batch rows) -> Softmax, on an input [1,3,32,32]. onnx-lint should report nothing on it: the two
broadcasts ([1,4,32,32] + [1,4,1,1] and Gemm's C [10] onto [1,10]) are valid.

Writes tiny_cnn.onnx next to this script; deterministic (fixed seed), so re-running gives identical bytes.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
C = 4  # conv channels
CLASSES = 10


def build() -> onnx.ModelProto:
    rng = np.random.default_rng(0)

    def init(name, shape):
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.1).astype(np.float32), name)

    inits = [
        init("conv_w", [C, 3, 3, 3]),
        init("conv_bias", [1, C, 1, 1]),
        init("fc_w", [C * 16 * 16, CLASSES]),
        init("fc_b", [CLASSES]),
    ]
    nodes = [
        helper.make_node("Conv", ["image", "conv_w"], ["conv_out"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["conv_out", "conv_bias"], ["biased"], name="add_conv_bias"),
        helper.make_node("Relu", ["biased"], ["relu_out"], name="relu"),
        helper.make_node("MaxPool", ["relu_out"], ["pooled"], name="maxpool", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["pooled"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], name="fc"),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, CLASSES])],
        initializer=inits,
        value_info=[
            helper.make_tensor_value_info("conv_out", TensorProto.FLOAT, [1, C, 32, 32]),
            helper.make_tensor_value_info("biased", TensorProto.FLOAT, [1, C, 32, 32]),
            helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [1, C, 16, 16]),
            helper.make_tensor_value_info("flat", TensorProto.FLOAT, [1, C * 16 * 16]),
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, CLASSES]),
        ],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Valid small CNN (onnx-lint example model).",
    )


def main() -> None:
    model = build()
    onnx.checker.check_model(model, full_check=True)
    onnx.save_model(model, OUT)
    print(f"wrote {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
