"""What every builder of `models/broken/` does with its model: check it as onnx would, then write it.

onnx's structural check must pass (the planted fault is a shape fault, nothing else); its `full_check`
(strict shape inference) must reject the model exactly when the builder says it does, so the
list in docs/conformance.md of what onnx's own checker misses stays true.
"""

import os

import onnx


def check_and_write(model: onnx.ModelProto, out: str, full_check_rejects: bool) -> None:
    onnx.checker.check_model(model)  # structural checks, no shape inference: must pass
    try:
        onnx.checker.check_model(model, full_check=True)
    except onnx.shape_inference.InferenceError:
        if not full_check_rejects:
            raise
    else:
        assert not full_check_rejects, "onnx's full_check was expected to reject the planted fault"
    onnx.save_model(model, out)
    print(f"wrote {os.path.relpath(out)}")
