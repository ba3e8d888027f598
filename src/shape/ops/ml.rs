//! The `ai.onnx.ml` operators every scikit-learn export uses: transforms (Scaler, Normalizer,
//! Binarizer, Imputer, OneHotEncoder, LabelEncoder, CategoryMapper, ArrayFeatureExtractor,
//! FeatureVectorizer, DictVectorizer, CastMap), models (LinearClassifier, LinearRegressor,
//! SVMClassifier, SVMRegressor, TreeEnsembleClassifier, TreeEnsembleRegressor, TreeEnsemble) and
//! ZipMap.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators-ml.md>. Opset history of the domain:
//! every op here is version 1, except LabelEncoder (2 replaces `classes_strings` by `keys_*` and
//! `values_*`; 4 adds `keys_tensor`, `values_tensor`), TreeEnsembleClassifier and
//! TreeEnsembleRegressor (3 adds the `*_as_tensor` attributes; 5 deprecates both for TreeEnsemble).
//!
//! Models take X as `[N, C]` (or `[C]`, one example): classifiers give the labels `[N]` (int64 or
//! string, by which `classlabels_*` is set) and scores `[N, E]`; regressors `[N, targets]`. Where the
//! width E depends on runtime conventions (SVMClassifier's scores), it is left unknown. A 1-D X is one
//! example (N = 1) for the linear models, SVMRegressor and the version 1-3 tree ensembles, as onnx
//! (LinearClassifier) and onnxruntime treat it; for the others N is then left unknown.
//! Element-wise transforms keep X's shape. Maps have no shape here: ZipMap's result is a sequence of
//! maps, and DictVectorizer's and CastMap's sizes are the number of map entries (data).

use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::{like, product};
use super::support::{elem, sequence};
use crate::proto::tensor_proto::DataType;

const ML: &str = "ai.onnx.ml";

pub fn register(r: &mut Registry) {
    r.add(ML, "Scaler", 1, to_float);
    r.add(ML, "Normalizer", 1, to_float);
    r.add(ML, "Binarizer", 1, same);
    r.add(ML, "Imputer", 1, same);
    r.add(ML, "OneHotEncoder", 1, one_hot_encoder);
    r.add(ML, "LabelEncoder", 1, label_encoder);
    r.add(ML, "CategoryMapper", 1, category_mapper);
    r.add(ML, "ArrayFeatureExtractor", 1, array_feature_extractor);
    r.add(ML, "FeatureVectorizer", 1, feature_vectorizer);
    r.add(ML, "DictVectorizer", 1, dict_vectorizer);
    r.add(ML, "CastMap", 1, cast_map);
    r.add(ML, "ZipMap", 1, zip_map);
    r.add(ML, "LinearClassifier", 1, linear_classifier);
    r.add(ML, "LinearRegressor", 1, linear_regressor);
    r.add(ML, "SVMClassifier", 1, svm_classifier);
    r.add(ML, "SVMRegressor", 1, svm_regressor);
    r.add(ML, "TreeEnsembleClassifier", 1, tree_ensemble_classifier);
    r.add(ML, "TreeEnsembleRegressor", 1, tree_ensemble_regressor);
    r.add(ML, "TreeEnsemble", 5, tree_ensemble);
}

/// N of an `[N, C]` input; for a 1-D input 1 when `one_d` says it counts as `[1, C]`.
fn batch(ctx: &NodeCtx<'_>, one_d: bool) -> Dim {
    match ctx.shape(0).as_deref() {
        Some([n, _]) => n.clone(),
        Some([_]) if one_d => Dim::Known(1),
        _ => Dim::Unknown,
    }
}

/// A count attribute (`targets`, `n_targets`), positive, with its default.
fn count_attr(ctx: &NodeCtx<'_>, name: &str, default: Option<u64>) -> Dim {
    match ctx.attr_i(name) {
        None => default.map_or(Dim::Unknown, Dim::Known),
        Some(v) if v > 0 => Dim::Known(v as u64),
        Some(_) => Dim::Unknown,
    }
}

/// The number of entries of a list attribute (ints, floats or strings), when it is set.
fn list_len(ctx: &NodeCtx<'_>, name: &str) -> Option<u64> {
    let a = ctx.attr(name)?;
    let n = a.ints.len().max(a.floats.len()).max(a.strings.len());
    (n > 0).then_some(n as u64)
}

/// The class labels: their element type (string when `classlabels_strings` is set, else int64) and
/// their number. `ints` names the integer list (`classlabels_ints` or `classlabels_int64s`).
fn labels(ctx: &NodeCtx<'_>, ints: &str) -> (Option<i32>, Option<u64>) {
    match list_len(ctx, "classlabels_strings") {
        Some(n) => (elem(DataType::String), Some(n)),
        None => (elem(DataType::Int64), list_len(ctx, ints)),
    }
}

fn to_float(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![ValueInfo::tensor(elem(DataType::Float), ctx.shape(0))]
}

fn same(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![like(ctx, 0, ctx.shape(0))]
}

/// One-hot over the categories: X's shape plus an axis as long as the category list.
fn one_hot_encoder(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let cats = list_len(ctx, "cats_int64s")
        .or_else(|| list_len(ctx, "cats_strings"))
        .map_or(Dim::Unknown, Dim::Known);
    let shape = ctx.shape(0).map(|mut s| {
        s.push(cats);
        s
    });
    vec![ValueInfo::tensor(elem(DataType::Float), shape)]
}

/// A one-to-one mapping: X's shape, with the type of the values it maps to.
fn label_encoder(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let t = if ctx.opset < 2 {
        swapped(ctx.elem(0))
    } else if let Some(values) = ctx.attr_t("values_tensor").filter(|_| ctx.opset >= 4) {
        Some(values.data_type()).filter(|&t| t != 0)
    } else if list_len(ctx, "values_strings").is_some() {
        elem(DataType::String)
    } else if list_len(ctx, "values_int64s").is_some() {
        elem(DataType::Int64)
    } else if list_len(ctx, "values_floats").is_some() {
        elem(DataType::Float)
    } else {
        None
    };
    vec![ValueInfo::tensor(t, ctx.shape(0))]
}

/// Strings map to int64 and int64 to strings (CategoryMapper, LabelEncoder 1).
fn swapped(t: Option<i32>) -> Option<i32> {
    match t {
        Some(t) if t == DataType::String as i32 => elem(DataType::Int64),
        Some(t) if t == DataType::Int64 as i32 => elem(DataType::String),
        _ => None,
    }
}

fn category_mapper(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![ValueInfo::tensor(swapped(ctx.elem(0)), ctx.shape(0))]
}

/// ArrayFeatureExtractor(X, Y): the indices Y (of any shape, their element count `k`) select along X's
/// last axis, so that axis becomes `k`; a 1-D X gives `[1, k]`, as onnxruntime's kernel
/// (`ml/array_feature_extractor.cc`) shapes it "for backwards compatibility". A scalar X is refused
/// there: no shape.
fn array_feature_extractor(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let count = ctx.shape(1).map_or(Dim::Unknown, |s| product(s.iter()));
    let shape: Shape = ctx.shape(0).and_then(|mut s| match s.len() {
        0 => None,
        1 => Some(vec![Dim::Known(1), count]),
        _ => {
            if let Some(last) = s.last_mut() {
                *last = count;
            }
            Some(s)
        }
    });
    vec![like(ctx, 0, shape)]
}

/// FeatureVectorizer(X...): the inputs side by side, `[N, sum(inputdimensions)]`, float.
fn feature_vectorizer(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let width = ctx
        .attr_ints("inputdimensions")
        .filter(|d| !d.is_empty() && d.iter().all(|&v| v >= 0))
        .and_then(|d| d.iter().try_fold(0u64, |acc, &v| acc.checked_add(v as u64)))
        .map_or(Dim::Unknown, Dim::Known);
    let shape = vec![batch(ctx, false), width];
    vec![ValueInfo::tensor(elem(DataType::Float), Some(shape))]
}

fn dict_vectorizer(_: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![ValueInfo::unknown()]
}

fn cast_map(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let t = match ctx.attr_s("cast_to").unwrap_or("TO_FLOAT") {
        "TO_FLOAT" => elem(DataType::Float),
        "TO_INT64" => elem(DataType::Int64),
        "TO_STRING" => elem(DataType::String),
        _ => None,
    };
    vec![ValueInfo::tensor(t, None)]
}

/// A sequence of maps, one per example; a map has no tensor shape to describe.
fn zip_map(_: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![sequence(None, None)]
}

/// Labels `[N]` and scores `[N, width]`.
fn classifier(label_elem: Option<i32>, n: Dim, width: Dim) -> Vec<ValueInfo> {
    vec![
        ValueInfo::tensor(label_elem, Some(vec![n.clone()])),
        ValueInfo::tensor(elem(DataType::Float), Some(vec![n, width])),
    ]
}

/// The scores have one column per intercept; a single intercept of a two-label (binary) model gives
/// both columns.
fn linear_classifier(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (t, count) = labels(ctx, "classlabels_ints");
    let width = match list_len(ctx, "intercepts") {
        Some(1) if count == Some(2) => Dim::Known(2),
        Some(n) => Dim::Known(n),
        None => Dim::Unknown,
    };
    let n = batch(ctx, true);
    classifier(t, n, width)
}

fn linear_regressor(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = vec![batch(ctx, true), count_attr(ctx, "targets", Some(1))];
    vec![ValueInfo::tensor(elem(DataType::Float), Some(shape))]
}

fn svm_classifier(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (t, _) = labels(ctx, "classlabels_ints");
    let n = batch(ctx, false);
    classifier(t, n, Dim::Unknown)
}

/// One score per example.
fn svm_regressor(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = vec![batch(ctx, true), Dim::Known(1)];
    vec![ValueInfo::tensor(elem(DataType::Float), Some(shape))]
}

fn tree_ensemble_classifier(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (t, count) = labels(ctx, "classlabels_int64s");
    let n = batch(ctx, true);
    classifier(t, n, count.map_or(Dim::Unknown, Dim::Known))
}

fn tree_ensemble_regressor(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = vec![batch(ctx, true), count_attr(ctx, "n_targets", None)];
    vec![ValueInfo::tensor(elem(DataType::Float), Some(shape))]
}

/// TreeEnsemble (5): `[N, n_targets]` of X's type.
fn tree_ensemble(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = vec![batch(ctx, false), count_attr(ctx, "n_targets", None)];
    vec![like(ctx, 0, Some(shape))]
}

#[cfg(test)]
mod tests {
    use super::super::super::value::Kind;
    use super::super::common::test_util::*;
    use super::*;
    use crate::proto::AttributeProto;
    use crate::proto::attribute_proto::AttributeType;

    const STR: Option<i32> = Some(DataType::String as i32);

    fn strings(name: &str, v: &[&str]) -> AttributeProto {
        AttributeProto {
            name: Some(name.to_owned()),
            r#type: Some(AttributeType::Strings as i32),
            strings: v.iter().map(|s| s.as_bytes().to_vec().into()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn classifiers_and_regressors() {
        let x = [t(F32, &["N", "4"])];
        let n = node(
            "LinearClassifier",
            1,
            2,
            vec![
                attr_ints("classlabels_ints", &[0, 1]),
                attr_floats("intercepts", &[0.5]),
            ],
        );
        let out = run(linear_classifier, &n, 1, &x);
        assert_eq!((out[0].elem, out[0].shape.clone()), (I64, shape(&["N"])));
        assert_eq!(out[1].shape, shape(&["N", "2"]));
        let out = run(linear_classifier, &n, 1, &[t(F32, &["4"])]);
        assert_eq!(out[0].shape, shape(&["1"]));
        let n = node(
            "TreeEnsembleClassifier",
            1,
            2,
            vec![strings("classlabels_strings", &["a", "b", "c"])],
        );
        let out = run(tree_ensemble_classifier, &n, 3, &x);
        assert_eq!(
            (out[0].elem, out[1].shape.clone()),
            (STR, shape(&["N", "3"]))
        );
        let n = node("TreeEnsembleRegressor", 1, 1, vec![attr_i("n_targets", 2)]);
        assert_eq!(
            out_shape(tree_ensemble_regressor, &n, 3, &x),
            shape(&["N", "2"])
        );
        let n = node("TreeEnsemble", 1, 1, vec![]);
        assert_eq!(out_shape(tree_ensemble, &n, 5, &x), shape(&["N", "?"]));
        let n = node("LinearRegressor", 1, 1, vec![]);
        assert_eq!(out_shape(linear_regressor, &n, 1, &x), shape(&["N", "1"]));
        let n = node(
            "SVMClassifier",
            1,
            2,
            vec![attr_ints("classlabels_ints", &[1, 2])],
        );
        let out = run(svm_classifier, &n, 1, &x);
        assert_eq!(out[1].shape, shape(&["N", "?"]));
        let n = node("SVMRegressor", 1, 1, vec![]);
        assert_eq!(out_shape(svm_regressor, &n, 1, &x), shape(&["N", "1"]));
    }

    #[test]
    fn transforms() {
        let n = node(
            "OneHotEncoder",
            1,
            1,
            vec![attr_ints("cats_int64s", &[1, 2, 3])],
        );
        assert_eq!(
            out_shape(one_hot_encoder, &n, 1, &[t(I64, &["N", "2"])]),
            shape(&["N", "2", "3"])
        );
        let n = node("LabelEncoder", 1, 1, vec![]);
        let out = run(label_encoder, &n, 1, &[t(STR, &["N"])]);
        assert_eq!((out[0].elem, out[0].shape.clone()), (I64, shape(&["N"])));
        let n = node(
            "LabelEncoder",
            1,
            1,
            vec![strings("values_strings", &["x"])],
        );
        assert_eq!(run(label_encoder, &n, 2, &[t(I64, &["N"])])[0].elem, STR);
        let n = node("ArrayFeatureExtractor", 2, 1, vec![]);
        assert_eq!(
            out_shape(
                array_feature_extractor,
                &n,
                1,
                &[t(F32, &["N", "5"]), t(I64, &["2", "3"])]
            ),
            shape(&["N", "6"])
        );
        assert_eq!(
            out_shape(
                array_feature_extractor,
                &n,
                1,
                &[t(F32, &["5"]), t(I64, &["2"])]
            ),
            shape(&["1", "2"]),
            "a 1-D X is one row"
        );
        assert_eq!(
            out_shape(
                array_feature_extractor,
                &n,
                1,
                &[t(STR, &["N", "C", "7"]), t(I64, &["k"])]
            ),
            shape(&["N", "C", "k"])
        );
        assert_eq!(
            out_shape(
                array_feature_extractor,
                &n,
                1,
                &[t(F32, &[]), t(I64, &["2"])]
            ),
            None,
            "a scalar X is refused"
        );
        let n = node(
            "FeatureVectorizer",
            2,
            1,
            vec![attr_ints("inputdimensions", &[3, 2])],
        );
        assert_eq!(
            out_shape(
                feature_vectorizer,
                &n,
                1,
                &[t(F32, &["N", "3"]), t(F32, &["N", "2"])]
            ),
            shape(&["N", "5"])
        );
        let n = node("Scaler", 1, 1, vec![]);
        let out = run(to_float, &n, 1, &[t(I64, &["N", "3"])]);
        assert_eq!(
            (out[0].elem, out[0].shape.clone()),
            (F32, shape(&["N", "3"]))
        );
        let n = node("ZipMap", 1, 1, vec![]);
        assert_eq!(run(zip_map, &n, 1, &x_any())[0].kind, Kind::Sequence);
    }

    fn x_any() -> Vec<Option<ValueInfo>> {
        vec![t(F32, &["N", "3"])]
    }
}
