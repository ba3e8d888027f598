//! Sequences and optionals: SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt,
//! SequenceErase, SequenceLength, SplitToSequence, ConcatFromSequence, SequenceMap, Optional,
//! OptionalHasElement, OptionalGetElement.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#SequenceEmpty> (and `#SequenceAt`,
//! `#SplitToSequence`, `#SequenceMap`, `#Optional`, ...). Opset history:
//! - The Sequence* ops and ConcatFromSequence: 11. SplitToSequence: 11, 24 (more element types).
//! - SequenceMap: 17 (a `body` graph run once per element).
//! - Optional: 15, 28. OptionalHasElement, OptionalGetElement: 15; 18 lets them take a tensor or a
//!   sequence as well as an optional (GetElement then passes it through, HasElement says true); 28.
//!
//! A sequence's [`ValueInfo`] describes what its element tensors share: a dimension that differs
//! between elements is unknown, and elements of different ranks give an unknown rank (as onnx's
//! union of element shapes). The number of elements is not tracked, so SequenceLength is a scalar of
//! unknown value. An optional holding a sequence is described by the sequence's element tensors (the
//! nesting is not kept), so OptionalGetElement on it yields a value of the right element shape but
//! labelled a tensor.

use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::{Kind, ValueInfo, from_type_proto};
use super::common::axis;
use super::support::{elem, elem_attr, scalar, sequence, union_shape, unknown_like};
use crate::proto::tensor_proto::DataType;

pub fn register(r: &mut Registry) {
    r.add("", "SequenceEmpty", 11, sequence_empty);
    r.add("", "SequenceConstruct", 11, sequence_construct);
    r.add("", "SequenceInsert", 11, sequence_insert);
    r.add("", "SequenceAt", 11, sequence_at);
    r.add("", "SequenceErase", 11, sequence_erase);
    r.add("", "SequenceLength", 11, sequence_length);
    r.add("", "SplitToSequence", 11, split_to_sequence);
    r.add("", "ConcatFromSequence", 11, concat_from_sequence);
    r.add("", "SequenceMap", 17, sequence_map);
    r.add("", "Optional", 15, optional);
    r.add("", "OptionalHasElement", 15, optional_has_element);
    r.add("", "OptionalGetElement", 15, optional_get_element);
}

/// An empty sequence of `dtype` (float by default); its elements have no shape to speak of.
fn sequence_empty(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let t = match ctx.attr("dtype") {
        None => elem(DataType::Float),
        Some(_) => elem_attr(ctx, "dtype"),
    };
    vec![sequence(t, None)]
}

/// The union of the inputs' shapes; the element type is the inputs' (the spec makes them equal).
fn sequence_construct(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let n = ctx.num_inputs();
    let t = (0..n).find_map(|k| ctx.elem(k));
    // With no input at all, input 0's shape is unknown, and so is the result's.
    let mut shape = ctx.shape(0);
    for k in 1..n {
        shape = union_shape(&shape, &ctx.shape(k));
    }
    vec![sequence(t, shape)]
}

/// The sequence's element shape joined with the inserted tensor's.
fn sequence_insert(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let t = ctx.elem(0).or(ctx.elem(1));
    vec![sequence(t, union_shape(&ctx.shape(0), &ctx.shape(1)))]
}

/// One element: a tensor with what the elements share.
fn sequence_at(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![ValueInfo::tensor(ctx.elem(0), ctx.shape(0))]
}

/// The sequence less one element: its elements are still described by the input's description.
fn sequence_erase(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![sequence(ctx.elem(0), ctx.shape(0))]
}

fn sequence_length(_: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![scalar(DataType::Int64)]
}

/// SplitToSequence(input, split?): the pieces along `axis` (default 0). Without `split` every piece
/// has size 1 there, and `keepdims=0` drops the axis; a scalar `split` cuts pieces of that size (the
/// last one smaller when it does not divide); a 1-D `split` lists the sizes.
fn split_to_sequence(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let t = ctx.elem(0);
    let Some(dims) = ctx.shape(0) else {
        return vec![sequence(t, None)];
    };
    let Some(a) = axis(ctx.attr_i("axis").unwrap_or(0), dims.len()) else {
        return vec![sequence(t, unknown_like(&Some(dims)))];
    };
    let mut out = dims.clone();
    if !ctx.has_input(1) {
        if ctx.attr_i("keepdims").unwrap_or(1) == 0 {
            out.remove(a);
        } else {
            out[a] = Dim::Known(1);
        }
        return vec![sequence(t, Some(out))];
    }
    out[a] = piece_size(ctx, &dims[a]);
    vec![sequence(t, Some(out))]
}

/// The size every piece of a SplitToSequence has along the axis, when they all have the same one.
fn piece_size(ctx: &NodeCtx<'_>, whole: &Dim) -> Dim {
    // A scalar and a one-element list mean different things: the rank must be known to tell them.
    let (scalar_split, list_split) = match ctx.shape(1).as_deref() {
        Some([]) => (true, false),
        Some([_]) => (false, true),
        _ => return Dim::Unknown,
    };
    let Some(values) = ctx.data_i64(1) else {
        return Dim::Unknown;
    };
    match values.as_slice() {
        [s] if scalar_split && *s > 0 => {
            let s = *s as u64;
            match whole {
                // Pieces of 1 are 1 whatever the length.
                _ if s == 1 => Dim::Known(1),
                Dim::Known(n) if *n > 0 && (n % s == 0 || *n <= s) => Dim::Known(s.min(*n)),
                _ => Dim::Unknown,
            }
        }
        [first, rest @ ..] if list_split && *first >= 0 && rest.iter().all(|v| v == first) => {
            Dim::Known(*first as u64)
        }
        _ => Dim::Unknown,
    }
}

/// ConcatFromSequence: the elements joined along `axis`, or stacked on a new axis there with
/// `new_axis=1`. The number of elements is unknown, so that axis is unknown.
fn concat_from_sequence(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let t = ctx.elem(0);
    let Some(dims) = ctx.shape(0) else {
        return vec![ValueInfo::tensor(t, None)];
    };
    let new_axis = ctx.attr_i("new_axis").unwrap_or(0) == 1;
    let a = ctx.attr_i("axis");
    let shape: Shape = if new_axis {
        // The axis is one of the result's, which has one more: -1 stacks last (as numpy.stack).
        match a.and_then(|a| axis(a, dims.len() + 1)) {
            Some(a) => {
                let mut out = dims;
                out.insert(a, Dim::Unknown);
                Some(out)
            }
            None => Some(vec![Dim::Unknown; dims.len() + 1]),
        }
    } else {
        let mut out = dims;
        match a.and_then(|a| axis(a, out.len())) {
            Some(a) => out[a] = Dim::Unknown,
            None => out = vec![Dim::Unknown; out.len()],
        }
        Some(out)
    };
    vec![ValueInfo::tensor(t, shape)]
}

/// The element a sequence input gives the body, or a tensor input itself.
fn element_of(v: Option<&ValueInfo>) -> ValueInfo {
    match v {
        Some(v) if v.kind == Kind::Sequence => ValueInfo::tensor(v.elem, v.shape.clone()),
        Some(v) => v.clone(),
        None => ValueInfo::unknown(),
    }
}

/// SequenceMap(input_sequence, additional_inputs...): the body runs on one element of each sequence
/// input (a tensor input as it is); each body output, gathered over the elements, is a sequence.
fn sequence_map(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let formal: Vec<ValueInfo> = (0..ctx.num_inputs())
        .map(|k| element_of(ctx.input(k)))
        .collect();
    let body = ctx.infer_subgraph("body", &formal).unwrap_or_default();
    (0..ctx.num_outputs())
        .map(|k| match body.get(k) {
            Some(v) => sequence(v.elem, v.shape.clone()),
            None => sequence(None, None),
        })
        .collect()
}

/// Optional(input?): the input wrapped, or an empty optional of the `type` attribute.
fn optional(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let inner = match ctx.input(0) {
        Some(v) => v.clone(),
        None => ctx
            .attr("type")
            .and_then(|a| a.tp.as_ref())
            .map(from_type_proto)
            .unwrap_or_else(ValueInfo::unknown),
    };
    vec![ValueInfo {
        kind: Kind::Optional,
        data: None,
        ..inner
    }]
}

fn optional_has_element(_: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![scalar(DataType::Bool)]
}

/// The optional's element; a tensor or sequence input (opset 18 on) is passed through.
fn optional_get_element(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    match ctx.input(0) {
        Some(v) if v.kind == Kind::Optional => vec![ValueInfo::tensor(v.elem, v.shape.clone())],
        Some(v) => vec![v.clone()],
        None => vec![ValueInfo::unknown()],
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    fn seq(dims: &[&str]) -> Option<ValueInfo> {
        Some(sequence(F32, shape(dims)))
    }

    #[test]
    fn construct_insert_and_at_keep_the_shared_shape() {
        let n = node("SequenceConstruct", 3, 1, vec![]);
        let out = run(
            sequence_construct,
            &n,
            11,
            &[
                t(F32, &["N", "3"]),
                t(F32, &["N", "4"]),
                t(F32, &["N", "5"]),
            ],
        );
        assert_eq!(out[0].kind, Kind::Sequence);
        assert_eq!(out[0].shape, shape(&["N", "?"]));
        let out = run(
            sequence_construct,
            &n,
            11,
            &[t(F32, &["2"]), t(F32, &["2", "3"])],
        );
        assert_eq!(out[0].shape, None);
        let n = node("SequenceInsert", 2, 1, vec![]);
        let out = run(
            sequence_insert,
            &n,
            11,
            &[seq(&["2", "3"]), t(F32, &["2", "3"])],
        );
        assert_eq!(out[0].shape, shape(&["2", "3"]));
        let n = node("SequenceAt", 2, 1, vec![]);
        let out = run(sequence_at, &n, 11, &[seq(&["2", "3"]), int(0)]);
        assert_eq!(
            (out[0].kind, out[0].shape.clone()),
            (Kind::Tensor, shape(&["2", "3"]))
        );
        let n = node("SequenceLength", 1, 1, vec![]);
        let out = run(sequence_length, &n, 11, &[seq(&["2"])]);
        assert_eq!((out[0].elem, out[0].shape.clone()), (I64, Some(vec![])));
        let n = node("SequenceEmpty", 0, 1, vec![attr_i("dtype", 7)]);
        assert_eq!(run(sequence_empty, &n, 11, &[])[0].elem, I64);
    }

    #[test]
    fn split_to_sequence_pieces() {
        let x = t(F32, &["6", "N"]);
        let n = node("SplitToSequence", 1, 1, vec![]);
        assert_eq!(
            out_shape(split_to_sequence, &n, 11, std::slice::from_ref(&x)),
            shape(&["1", "N"])
        );
        let n = node(
            "SplitToSequence",
            1,
            1,
            vec![attr_i("keepdims", 0), attr_i("axis", -2)],
        );
        assert_eq!(
            out_shape(split_to_sequence, &n, 11, std::slice::from_ref(&x)),
            shape(&["N"])
        );
        let n = node("SplitToSequence", 2, 1, vec![]);
        assert_eq!(
            out_shape(split_to_sequence, &n, 11, &[x.clone(), int(3)]),
            shape(&["3", "N"])
        );
        // 6 in pieces of 4: 4 and 2.
        assert_eq!(
            out_shape(split_to_sequence, &n, 11, &[x.clone(), int(4)]),
            shape(&["?", "N"])
        );
        assert_eq!(
            out_shape(split_to_sequence, &n, 11, &[x.clone(), int(9)]),
            shape(&["6", "N"])
        );
        assert_eq!(
            out_shape(split_to_sequence, &n, 11, &[x.clone(), ints(&[2, 2, 2])]),
            shape(&["2", "N"])
        );
        assert_eq!(
            out_shape(split_to_sequence, &n, 11, &[x.clone(), ints(&[2, 4])]),
            shape(&["?", "N"])
        );
        assert_eq!(
            out_shape(split_to_sequence, &n, 11, &[x, int(-2)]),
            shape(&["?", "N"])
        );
    }

    #[test]
    fn concat_from_sequence_axis_and_new_axis() {
        let n = node("ConcatFromSequence", 1, 1, vec![attr_i("axis", 1)]);
        assert_eq!(
            out_shape(concat_from_sequence, &n, 11, &[seq(&["2", "3"])]),
            shape(&["2", "?"])
        );
        let n = node(
            "ConcatFromSequence",
            1,
            1,
            vec![attr_i("axis", -1), attr_i("new_axis", 1)],
        );
        assert_eq!(
            out_shape(concat_from_sequence, &n, 11, &[seq(&["2", "3"])]),
            shape(&["2", "3", "?"])
        );
        let n = node("ConcatFromSequence", 1, 1, vec![attr_i("axis", 5)]);
        assert_eq!(
            out_shape(concat_from_sequence, &n, 11, &[seq(&["2", "3"])]),
            shape(&["?", "?"])
        );
    }

    #[test]
    fn optionals_wrap_and_unwrap() {
        let n = node("Optional", 1, 1, vec![]);
        let out = run(optional, &n, 15, &[t(F32, &["2"])]);
        assert_eq!(
            (out[0].kind, out[0].shape.clone()),
            (Kind::Optional, shape(&["2"]))
        );
        let n = node("OptionalGetElement", 1, 1, vec![]);
        let back = run(optional_get_element, &n, 18, &[Some(out[0].clone())]);
        assert_eq!(
            (back[0].kind, back[0].shape.clone()),
            (Kind::Tensor, shape(&["2"]))
        );
        let s = run(optional_get_element, &n, 18, &[seq(&["4"])]);
        assert_eq!(s[0].kind, Kind::Sequence);
        let n = node("OptionalHasElement", 1, 1, vec![]);
        let b = run(optional_has_element, &n, 18, &[None]);
        assert_eq!(b[0].shape, Some(vec![]));
    }
}
