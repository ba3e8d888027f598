"""``annotate``: the inferred types written into value_info, returned as the kind given, the inverse
(``strip=True``), the refusal of a model with errors, and onnx's checker and onnxruntime on every
annotated example model: it loads, and computes the bits it computed before."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import onnx_lint
from conftest import BROKEN, MODELS, as_modelproto


def examples():
    return sorted(MODELS.glob("*.onnx")) + [BROKEN / "w1_fpn_detector.onnx"]


def test_annotate_returns_the_kind_it_was_given(tmp_path):
    src = MODELS / "tiny_transformer.onnx"
    got = onnx_lint.annotate(src.read_bytes())
    assert isinstance(got, bytes)
    proto = onnx_lint.annotate(as_modelproto(src))
    assert isinstance(proto, onnx.ModelProto)
    assert proto.SerializeToString() == got
    out = tmp_path / "out.onnx"
    assert onnx_lint.annotate(src, output=out) is None
    assert out.read_bytes() == got
    names = {v.name for v in proto.graph.value_info}
    assert "scores" in names and "input_ids" not in names and "last_hidden_state" not in names
    scores = next(v for v in proto.graph.value_info if v.name == "scores")
    dims = [d.dim_param or d.dim_value for d in scores.type.tensor_type.shape.dim]
    assert dims == ["batch", 2, "seq", "seq"]


def test_strip_is_the_inverse():
    src = (MODELS / "tiny_transformer.onnx").read_bytes()
    annotated = onnx_lint.annotate(src)
    assert onnx_lint.annotate(annotated, strip=True) == onnx_lint.annotate(src, strip=True)


def test_a_model_with_errors_is_refused_unless_forced():
    src = (BROKEN / "e1_add.onnx").read_bytes()
    with pytest.raises(onnx_lint.ModelHasErrors):
        onnx_lint.annotate(src)
    assert isinstance(onnx_lint.annotate(src, force=True), bytes)


def test_no_expressions_names_them_like_onnxruntime():
    m = onnx_lint.annotate(as_modelproto(BROKEN / "w1_fpn_detector.onnx"), expressions=False)
    params = {d.dim_param for v in m.graph.value_info for d in v.type.tensor_type.shape.dim if d.dim_param}
    assert params and all(p.startswith("unk__") or p in ("H", "W") for p in params), params


def _feeds(sess):
    rng = np.random.default_rng(0)
    feeds = {}
    for i in sess.get_inputs():
        shape = [d if isinstance(d, int) else 64 for d in i.shape]
        t = i.type[len("tensor(") : -1]
        if t == "string":
            feeds[i.name] = np.array(rng.integers(0, 3, shape).astype(str), dtype=object)
            continue
        dt = {"float": np.float32, "float16": np.float16, "double": np.float64}.get(t) or np.dtype(t).type
        if np.issubdtype(dt, np.floating):
            feeds[i.name] = rng.standard_normal(shape).astype(dt)
        else:
            feeds[i.name] = rng.integers(0, 2, shape).astype(dt)
    return feeds


def _run(model: bytes, feeds, level):
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.graph_optimization_level = level
    return ort.InferenceSession(model, so, providers=["CPUExecutionProvider"]).run(None, feeds)


def _same(a, b):
    """Bit for bit (strings, held as objects, by value)."""

    def bits(x):
        return x.tolist() if x.dtype == object else x.tobytes()

    return all(x.dtype == y.dtype and x.shape == y.shape and bits(x) == bits(y) for x, y in zip(a, b))


@pytest.mark.parametrize("path", examples(), ids=lambda p: p.name)
def test_onnx_checker_and_onnxruntime_take_the_annotated_model(path):
    src = path.read_bytes()
    annotated = onnx_lint.annotate(src)
    onnx.checker.check_model(onnx.load_from_string(annotated), full_check=True)
    try:
        so = ort.SessionOptions()
        so.log_severity_level = 3
        feeds = _feeds(ort.InferenceSession(src, so, providers=["CPUExecutionProvider"]))
    except Exception as e:  # noqa: BLE001 - a model onnxruntime cannot run (legacy opsets): nothing to compare
        pytest.skip(f"onnxruntime does not run the original: {e}")
    # Without the optimizations that read shapes, the same bits.
    basic = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    assert _same(_run(src, feeds, basic), _run(annotated, feeds, basic))
    # With them, shapes in the file enable fusions (SkipLayerNormalization) that round differently:
    # the bits onnx's own inference gives the model, which writes the same facts.
    every = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    by_onnx = onnx.shape_inference.infer_shapes(onnx.load_from_string(src), data_prop=True).SerializeToString()
    assert _same(_run(by_onnx, feeds, every), _run(annotated, feeds, every))


@pytest.mark.parametrize("name", ["tiny_cnn.onnx", "tiny_transformer.onnx"])
def test_annotated_model_quantizes_without_onnxruntime_shape_inference(name, tmp_path):
    """The pipeline annotate stands in for: quant_pre_process with symbolic_shape_infer skipped, then
    quantize_static; the quantized model runs, close to the float one."""
    from onnxruntime.quantization import CalibrationDataReader, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    annotated = tmp_path / "annotated.onnx"
    onnx_lint.annotate(MODELS / name, output=annotated)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    session = ort.InferenceSession(str(annotated), so, providers=["CPUExecutionProvider"])
    feeds = [_feeds(session) for _ in range(2)]

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.left = iter(feeds)

        def get_next(self):
            return next(self.left, None)

    pre, quantized = tmp_path / "pre.onnx", tmp_path / "quantized.onnx"
    quant_pre_process(str(annotated), str(pre), skip_symbolic_shape=True)
    quantize_static(str(pre), str(quantized), Reader())
    got = ort.InferenceSession(str(quantized), so, providers=["CPUExecutionProvider"]).run(None, feeds[0])
    want = session.run(None, feeds[0])
    assert any(n.op_type == "QuantizeLinear" for n in onnx.load(str(quantized)).graph.node)
    assert np.allclose(got[0], want[0], atol=0.1)
