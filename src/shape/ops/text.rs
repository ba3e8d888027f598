//! Text: StringNormalizer, StringSplit, RegexFullMatch and TfIdfVectorizer.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#StringNormalizer>, `#StringSplit`,
//! `#RegexFullMatch`, `#TfIdfVectorizer`. Opset history: StringNormalizer 10, TfIdfVectorizer 9,
//! StringSplit and RegexFullMatch 20.
//!
//! - StringNormalizer takes `[C]` or `[1, C]`. Removing `stopwords` shortens the last axis by a
//!   number only the data tells (and a fully removed input leaves one empty string), so with
//!   stopwords that axis is unknown; without any, nothing is removed and the shape is kept.
//! - StringSplit: the substrings Y are X's shape plus one axis as long as the longest split (data);
//!   the counts Z are int64 of X's shape.
//! - RegexFullMatch: a boolean of X's shape.
//! - TfIdfVectorizer: `[max(ngram_indexes) + 1]` for a 1-D input, `[N, max(ngram_indexes) + 1]` for
//!   `[N, C]`, float.

use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::support::elem;
use crate::proto::tensor_proto::DataType;

pub fn register(r: &mut Registry) {
    r.add("", "StringNormalizer", 10, string_normalizer);
    r.add("", "StringSplit", 20, string_split);
    r.add("", "RegexFullMatch", 20, regex_full_match);
    r.add("", "TfIdfVectorizer", 9, tf_idf_vectorizer);
}

fn string_normalizer(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let filters = ctx.attr("stopwords").is_some_and(|a| !a.strings.is_empty());
    let shape: Shape = match ctx.shape(0) {
        Some(s) if !filters => Some(s),
        Some(s) if s.len() == 2 => Some(vec![s[0].clone(), Dim::Unknown]),
        Some(s) if s.len() == 1 => Some(vec![Dim::Unknown]),
        _ => None,
    };
    vec![ValueInfo::tensor(elem(DataType::String), shape)]
}

fn string_split(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let x = ctx.shape(0);
    let y = x.clone().map(|mut s| {
        s.push(Dim::Unknown);
        s
    });
    vec![
        ValueInfo::tensor(elem(DataType::String), y),
        ValueInfo::tensor(elem(DataType::Int64), x),
    ]
}

fn regex_full_match(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![ValueInfo::tensor(elem(DataType::Bool), ctx.shape(0))]
}

fn tf_idf_vectorizer(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let width = ctx
        .attr_ints("ngram_indexes")
        .and_then(|ix| ix.iter().max().copied())
        .and_then(|m| m.checked_add(1))
        .and_then(|w| u64::try_from(w).ok())
        .map_or(Dim::Unknown, Dim::Known);
    let shape: Shape = match ctx.shape(0).as_deref() {
        Some([_]) => Some(vec![width]),
        Some([n, _]) => Some(vec![n.clone(), width]),
        _ => None,
    };
    vec![ValueInfo::tensor(elem(DataType::Float), shape)]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;
    use crate::proto::AttributeProto;
    use crate::proto::attribute_proto::AttributeType;

    const STR: Option<i32> = Some(DataType::String as i32);

    #[test]
    fn normalizer_keeps_the_shape_without_stopwords() {
        let n = node(
            "StringNormalizer",
            1,
            1,
            vec![attr_s("case_change_action", "LOWER")],
        );
        assert_eq!(
            out_shape(string_normalizer, &n, 10, &[t(STR, &["1", "4"])]),
            shape(&["1", "4"])
        );
        let stop = AttributeProto {
            name: Some("stopwords".into()),
            r#type: Some(AttributeType::Strings as i32),
            strings: vec![b"the".to_vec().into()],
            ..Default::default()
        };
        let n = node("StringNormalizer", 1, 1, vec![stop]);
        assert_eq!(
            out_shape(string_normalizer, &n, 10, &[t(STR, &["1", "4"])]),
            shape(&["1", "?"])
        );
        assert_eq!(
            out_shape(string_normalizer, &n, 10, &[t(STR, &["4"])]),
            shape(&["?"])
        );
    }

    #[test]
    fn split_match_and_tf_idf() {
        let n = node("StringSplit", 1, 2, vec![]);
        let out = run(string_split, &n, 20, &[t(STR, &["2", "3"])]);
        assert_eq!(out[0].shape, shape(&["2", "3", "?"]));
        assert_eq!(
            (out[1].elem, out[1].shape.clone()),
            (I64, shape(&["2", "3"]))
        );
        let n = node("RegexFullMatch", 1, 1, vec![]);
        assert_eq!(
            out_shape(regex_full_match, &n, 20, &[t(STR, &["5"])]),
            shape(&["5"])
        );
        let n = node(
            "TfIdfVectorizer",
            1,
            1,
            vec![attr_ints("ngram_indexes", &[0, 1, 2, 3, 4, 5, 6])],
        );
        assert_eq!(
            out_shape(tf_idf_vectorizer, &n, 9, &[t(I64, &["2", "6"])]),
            shape(&["2", "7"])
        );
        assert_eq!(
            out_shape(tf_idf_vectorizer, &n, 9, &[t(I64, &["12"])]),
            shape(&["7"])
        );
        let n = node(
            "TfIdfVectorizer",
            1,
            1,
            vec![attr_ints("ngram_indexes", &[i64::MAX])],
        );
        assert_eq!(
            out_shape(tf_idf_vectorizer, &n, 9, &[t(I64, &["12"])]),
            shape(&["?"])
        );
    }
}
