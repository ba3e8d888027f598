"""Converts the scikit-learn and LightGBM models of the real-model corpus (ai.onnx.ml operators).

Run with the export venv (scikit-learn, skl2onnx, lightgbm, onnxmltools; never needed by CI):

    python=$(tools/venv-export.sh) && $python tests/conformance/real/export_ml.py

Writes `tests/conformance/real/models/<name>.onnx` (checked in), each fitted on seeded random data and
converted (the same bytes on every run: reproducible) with the batch dim dynamic (the converters' `None`), as the converters write it but for one
thing: the converters leave that dim unnamed (no dim_param), so the script names each graph input's
unnamed dims `batch` (name_batch), a symbol the tools can carry through:

- `skl_scaler_logreg`: a Pipeline of StandardScaler and a 3-class LogisticRegression over 4 float
  features (skl2onnx: Scaler, LinearClassifier, Normalizer, ZipMap off: label and probability tensors);
- `skl_scaler_logreg_zipmap`: the same with skl2onnx's default ZipMap (probabilities as a sequence of
  maps);
- `skl_onehot_forest`: a Pipeline of OneHotEncoder over 2 string columns and a RandomForestClassifier
  (skl2onnx: OneHotEncoder per column, Concat, TreeEnsembleClassifier), a string input;
- `skl_tfidf_logreg`: TfidfVectorizer (word unigrams and bigrams) and a LogisticRegression over a string
  input [N] (skl2onnx: StringNormalizer, Tokenizer, TfIdfVectorizer);
- `lgbm_classifier`: a 3-class LGBMClassifier over 6 float features (onnxmltools: TreeEnsembleClassifier).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import onnx

HERE = Path(__file__).resolve().parent
OUT = HERE / "models"
SEED = 20251124
OPSET = 17  # skl2onnx picks the ai.onnx.ml version that goes with it
OPSET_LGBM = 15  # the highest onnxmltools 1.16 converts LightGBM to
WORDS = np.array(["", "a", "bc", "x y"], dtype=object)  # the conformance harness's random strings


def float_data(rows: int, cols: int, classes: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(np.int64) + (x[:, 2] > 1.0).astype(np.int64) * (classes - 2)
    return x, y


def scaler_logreg(zipmap: bool) -> onnx.ModelProto:
    from skl2onnx import to_onnx
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    x, y = float_data(200, 4, 3)
    pipe = Pipeline([("scale", StandardScaler()), ("clf", LogisticRegression(max_iter=200))]).fit(x, y)
    options = None if zipmap else {id(pipe.steps[-1][1]): {"zipmap": False}}
    return to_onnx(pipe, x[:1], options=options, target_opset=OPSET)


def onehot_forest() -> onnx.ModelProto:
    from skl2onnx import to_onnx
    from skl2onnx.common.data_types import StringTensorType
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder

    rng = np.random.default_rng(SEED)
    x = WORDS[rng.integers(0, len(WORDS), size=(200, 2))]
    y = ((x[:, 0] == "a") | (x[:, 1] == "bc")).astype(np.int64)
    pipe = Pipeline([
        ("onehot", OneHotEncoder(handle_unknown="ignore")),
        ("clf", RandomForestClassifier(n_estimators=5, max_depth=4, random_state=SEED)),
    ]).fit(x, y)
    return to_onnx(pipe, initial_types=[("input", StringTensorType([None, 2]))],
                   options={id(pipe.steps[-1][1]): {"zipmap": False}}, target_opset=OPSET)


def tfidf_logreg() -> onnx.ModelProto:
    from skl2onnx import to_onnx
    from skl2onnx.common.data_types import StringTensorType
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline

    rng = np.random.default_rng(SEED)
    vocab = ["shape", "error", "broadcast", "model", "size", "onnx", "lint", "batch"]
    x = np.array([" ".join(rng.choice(vocab, size=rng.integers(2, 6))) for _ in range(120)], dtype=object)
    y = np.array(["error" in s for s in x], dtype=np.int64)
    pipe = Pipeline([("tfidf", TfidfVectorizer(ngram_range=(1, 2), lowercase=False)), ("clf", LogisticRegression())]).fit(x, y)
    return to_onnx(pipe, initial_types=[("input", StringTensorType([None]))],
                   options={id(pipe.steps[-1][1]): {"zipmap": False}}, target_opset=OPSET)


def lgbm_classifier() -> onnx.ModelProto:
    from lightgbm import LGBMClassifier
    from onnxmltools import convert_lightgbm
    from onnxmltools.convert.common.data_types import FloatTensorType

    x, y = float_data(300, 6, 3)
    clf = LGBMClassifier(n_estimators=10, num_leaves=8, random_state=SEED, verbose=-1).fit(x, y)
    return convert_lightgbm(clf, initial_types=[("input", FloatTensorType([None, 6]))], zipmap=False,
                            target_opset=OPSET_LGBM)


MODELS = {
    "skl_scaler_logreg": lambda: scaler_logreg(False),
    "skl_scaler_logreg_zipmap": lambda: scaler_logreg(True),
    "skl_onehot_forest": onehot_forest,
    "skl_tfidf_logreg": tfidf_logreg,
    "lgbm_classifier": lgbm_classifier,
}


def name_batch(m: onnx.ModelProto) -> None:
    """Names `batch` the unnamed dims (no dim_value, no dim_param) of the graph inputs."""
    for vi in m.graph.input:
        for d in vi.type.tensor_type.shape.dim:
            if not d.HasField("dim_value") and not d.dim_param:
                d.dim_param = "batch"


def reproducible(m: onnx.ModelProto, name: str) -> None:
    """The same bytes on every run: the opset imports sorted (skl2onnx lists them in set order, which
    varies with Python's string hashing) and onnxmltools' random uuid graph name replaced by the model's."""
    imports = sorted(m.opset_import, key=lambda o: (o.domain, o.version))
    del m.opset_import[:]
    m.opset_import.extend(imports)
    if len(m.graph.name) == 32 and all(c in "0123456789abcdef" for c in m.graph.name):
        m.graph.name = name


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated model names (default: all)")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    import onnxruntime

    for name in args.only.split(",") if args.only else list(MODELS):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = MODELS[name]()
        name_batch(m)
        reproducible(m, name)
        onnx.checker.check_model(m, full_check=True)
        path = OUT / f"{name}.onnx"
        onnx.save(m, str(path))
        onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        print(f"export_ml: {path.relative_to(HERE)} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
