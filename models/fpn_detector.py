"""fpn_detector: a PP-OCR/DB-style text detector neck, the commonest run-time broadcast failure.

A backbone of five 3x3 stride-2 pad-1 convolutions takes the image [1, 3, H, W] to strides 2..32; 1x1
lateral convolutions bring strides 8, 16 and 32 to 8 channels; the top-down path upsamples by 2 (`Resize`,
nearest, scales [1, 1, 2, 2] from a `Constant` node, as paddle2onnx and torch.onnx.export write
`interpolate(scale_factor=2)`) and adds the next lateral map. Each conv makes a size ceil(x/2), so the
stride-32 map is ceil(H/32) and, doubled, meets ceil(H/16): equal only when H is a multiple of 32
(or small enough that a side is 1).

This script writes three models from one builder:

- `fpn_detector.onnx`: the image 1x3x64x192 (multiples of 32): valid, onnx-lint reports nothing.
- `broken/w1_fpn_detector.onnx`: the image [1, 3, H, W] with symbolic H and W: onnxruntime loads it and
  fails at run time for most sizes ("Attempting to broadcast an axis by a dimension other than 1").
  Expected: W1 at both top-down Adds on both axes, each with the smallest failing size.
- `broken/e1_fpn_detector.onnx`: the image fixed to 1x3x48x192: onnxruntime refuses to load it
  ("Incompatible dimensions"). Expected: E1 at `add_p4`, axis -2: 4 vs 3.

onnx's full checker (strict shape inference) rejects only the fixed 48x192 model. Deterministic
(fixed seed): re-running gives identical bytes.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

HERE = os.path.dirname(os.path.abspath(__file__))
CH = 4  # backbone channels
LAT = 8  # lateral channels


def build(name: str, h, w) -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    inits, nodes = [], []

    def weight(wname, shape):
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) * 0.1).astype(np.float32), wname))
        return wname

    x = "image"
    c_in = 3
    feats = {}
    for i in range(1, 6):
        out = f"c{i}"
        nodes.append(
            helper.make_node(
                "Conv",
                [x, weight(f"conv{i}_w", [CH, c_in, 3, 3]), weight(f"conv{i}_b", [CH])],
                [out + "_pre"],
                name=f"conv{i}",
                strides=[2, 2],
                pads=[1, 1, 1, 1],
            )
        )
        nodes.append(helper.make_node("Relu", [out + "_pre"], [out], name=f"relu{i}"))
        feats[i] = out
        x, c_in = out, CH
    for i in (3, 4, 5):
        nodes.append(
            helper.make_node(
                "Conv", [feats[i], weight(f"lat{i}_w", [LAT, CH, 1, 1])], [f"in{i}"], name=f"lateral{i}"
            )
        )
    nodes.append(
        helper.make_node(
            "Constant",
            [],
            ["up_scales"],
            name="up_scales",
            value=numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), "up_scales"),
        )
    )
    top = "in5"
    for i in (4, 3):
        nodes.append(
            helper.make_node("Resize", [top, "", "up_scales"], [f"up{i}"], name=f"up{i}", mode="nearest")
        )
        nodes.append(helper.make_node("Add", [f"in{i}", f"up{i}"], [f"p{i}"], name=f"add_p{i}"))
        top = f"p{i}"
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, h, w])],
        [helper.make_tensor_value_info("p3", TensorProto.FLOAT, [None] * 4)],
        initializer=inits,
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=8,
        opset_imports=[helper.make_opsetid("", 13)],
        doc_string="FPN top-down path of a text detector (onnx-lint example model).",
    )


def save(model: onnx.ModelProto, rel: str, full_check_rejects: bool) -> None:
    onnx.checker.check_model(model)
    try:
        onnx.checker.check_model(model, full_check=True)
    except onnx.shape_inference.InferenceError:
        assert full_check_rejects, f"{rel}: onnx's full_check rejected it"
    else:
        assert not full_check_rejects, f"{rel}: onnx's full_check was expected to reject it"
    out = os.path.join(HERE, rel)
    onnx.save_model(model, out)
    print(f"wrote {os.path.relpath(out)}")


def main() -> None:
    save(build("fpn_detector", 64, 192), "fpn_detector.onnx", False)
    save(build("w1_fpn_detector", "H", "W"), "broken/w1_fpn_detector.onnx", False)
    save(build("e1_fpn_detector", 48, 192), "broken/e1_fpn_detector.onnx", True)


if __name__ == "__main__":
    main()
