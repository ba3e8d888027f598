//! Shapes computed and rearranged: Shape, Size, Reshape, Flatten, Transpose, Squeeze and Unsqueeze,
//! with their values carried (a Shape's dims are its values; a Transpose of a small matrix moves them).
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#Reshape> and the pages of each op.
//! Opset history that matters here:
//! - Shape: 15 adds `start`/`end` (clamped to `[0, rank]`, negative counts from the end).
//! - Reshape: the target is attribute `shape` before 5, an input from 5; 14 adds `allowzero` (a 0 is
//!   then a 0, not a copy of the input's dim).
//! - Squeeze, Unsqueeze: `axes` attribute before 13, input from 13; 11 allows negative axes.

use super::int64;
use crate::shape::ctx::NodeCtx;
use crate::shape::dim::{Dim, Shape};
use crate::shape::ops::common::{
    Param, axes, axis_inclusive, div_exact_dim, ints_attr_or_input, len_1d, like, product,
    size_of_value, unknown_dims, values_if_small,
};
use crate::shape::value::{Data, ValueInfo, as_i64, from_i64};

/// Shape: the input's dims from `start` to `end` (opset 15), as values.
pub(super) fn shape_op(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let Some(dims) = ctx.shape(0) else {
        return vec![ValueInfo::tensor(int64(), Some(vec![Dim::Unknown]))];
    };
    let r = dims.len() as i64;
    let clamp = |v: i64| -> usize {
        let v = if v < 0 { v.saturating_add(r) } else { v };
        v.clamp(0, r) as usize
    };
    let (start, end) = if ctx.opset >= 15 {
        (
            clamp(ctx.attr_i("start").unwrap_or(0)),
            clamp(ctx.attr_i("end").unwrap_or(r)),
        )
    } else {
        (0, dims.len())
    };
    let part = if start < end {
        dims[start..end].to_vec()
    } else {
        Vec::new()
    };
    vec![ValueInfo::int64_data(part, false)]
}

/// Size: the number of elements, as a scalar value.
pub(super) fn size(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    // A count is carried as an i64 value, so one beyond i64::MAX is not carried.
    let data = ctx.shape(0).and_then(|dims| match product(&dims) {
        Dim::Known(n) if i64::try_from(n).is_err() => None,
        Dim::Unknown => None,
        n => Some(vec![n]),
    });
    vec![ValueInfo::tensor(int64(), Some(vec![])).with_data(data)]
}

/// The requested shape of a Reshape as values: the `shape` attribute before opset 5, else input 1.
fn reshape_target(ctx: &NodeCtx<'_>) -> Option<Vec<Dim>> {
    if ctx.opset < 5 {
        return Some(
            ctx.attr_ints("shape")?
                .iter()
                .map(|&v| from_i64(v))
                .collect(),
        );
    }
    ctx.data(1).map(<[Dim]>::to_vec)
}

pub(super) fn reshape(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let input = ctx.shape(0);
    let allowzero = ctx.opset >= 14 && ctx.attr_i("allowzero").unwrap_or(0) != 0;
    let shape = match reshape_target(ctx) {
        Some(target) => Some(reshape_dims(&input, &target, allowzero)),
        None if ctx.opset >= 5 => len_1d(ctx, 1).and_then(unknown_dims),
        None => None,
    };
    // A symbolic element count reshaped to known sizes only is bound to their product.
    if let (Some(dims), Some(out)) = (&input, &shape) {
        let total = product(dims);
        if let Dim::Known(n) = product(out)
            && matches!(total, Dim::Sym(_))
        {
            ctx.bind(&total, n, "the reshape");
        }
    }
    let data = values_if_small(&shape, ctx.values(0).cloned());
    vec![like(ctx, 0, shape).with_values(data)]
}

/// The output dims of a Reshape of `input` to the values `target`: 0 copies the input's dim (unless
/// `allowzero`), one -1 takes what is left.
fn reshape_dims(input: &Shape, target: &[Dim], allowzero: bool) -> Vec<Dim> {
    let mut out = Vec::with_capacity(target.len());
    let mut inferred = None;
    for (i, t) in target.iter().enumerate() {
        let d = match t {
            Dim::Known(_) => match as_i64(t) {
                Some(0) if !allowzero => input
                    .as_ref()
                    .and_then(|s| s.get(i))
                    .cloned()
                    .unwrap_or(Dim::Unknown),
                Some(-1) if inferred.is_none() => {
                    inferred = Some(i);
                    Dim::Unknown
                }
                Some(-1) => return vec![Dim::Unknown; target.len()], // two -1: invalid
                _ => size_of_value(t),
            },
            other => size_of_value(other),
        };
        out.push(d);
    }
    if let Some(k) = inferred {
        let others: Vec<&Dim> = out
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != k)
            .map(|(_, d)| d)
            .collect();
        out[k] = match input {
            Some(input) => inferred_dim(input, &others),
            None => Dim::Unknown,
        };
    }
    out
}

/// The size a -1 stands for: the input's element count over the product of the other target dims,
/// divided exactly in the polynomial algebra (`batch*seq*768 / (batch*64)` is `seq*12`); unknown when it
/// does not divide.
fn inferred_dim(input: &[Dim], others: &[&Dim]) -> Dim {
    let total = product(input);
    let rest = product(others.iter().copied());
    match (&total, &rest) {
        (Dim::Unknown, _) | (_, Dim::Unknown) | (_, Dim::Known(0)) => Dim::Unknown,
        // No elements: the -1 is 0 when the other target dims are known not to be.
        (Dim::Known(0), Dim::Known(_)) => Dim::Known(0),
        (Dim::Known(0), _) => Dim::Unknown,
        _ => div_exact_dim(&total, &rest),
    }
}

/// Flatten: `[prod(dims[..axis]), prod(dims[axis..])]`.
pub(super) fn flatten(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let a = ctx.attr_i("axis").unwrap_or(1);
    let shape = match ctx.shape(0) {
        Some(dims) => {
            axis_inclusive(a, dims.len()).map(|k| vec![product(&dims[..k]), product(&dims[k..])])
        }
        None => Some(vec![Dim::Unknown, Dim::Unknown]),
    };
    vec![like(ctx, 0, shape)]
}

/// Transpose: dims permuted by `perm` (reversed by default). A malformed `perm` keeps the rank only.
pub(super) fn transpose(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let perm = ctx.attr_ints("perm").map(<[i64]>::to_vec);
    let shape = match (ctx.shape(0), perm) {
        (Some(dims), None) => Some(dims.into_iter().rev().collect()),
        (Some(dims), Some(p)) => Some(match axes(&p, dims.len()) {
            Some(p) if p.len() == dims.len() => p.iter().map(|&i| dims[i].clone()).collect(),
            _ => vec![Dim::Unknown; dims.len()],
        }),
        (None, Some(p)) => unknown_dims(p.len() as u64),
        (None, None) => None,
    };
    // Values move with their elements (torch's pads computation transposes a [k, 2] matrix).
    let data = match (ctx.shape(0), ctx.values(0)) {
        (Some(dims), Some(values)) => {
            let p: Option<Vec<usize>> = match ctx.attr_ints("perm") {
                Some(p) => axes(p, dims.len()),
                None => Some((0..dims.len()).rev().collect()),
            };
            p.and_then(|p| transposed(&dims, &p, values))
        }
        _ => None,
    };
    let data = values_if_small(&shape, data);
    vec![like(ctx, 0, shape).with_values(data)]
}

/// The values of a tensor of known sizes `dims` (row-major) with its axes permuted by `perm`.
pub(super) fn transposed(dims: &[Dim], perm: &[usize], values: &Data) -> Option<Data> {
    let sizes: Vec<usize> = dims
        .iter()
        .map(|d| usize::try_from(d.known()?).ok())
        .collect::<Option<_>>()?;
    if perm.len() != sizes.len()
        || sizes.iter().try_fold(1usize, |a, &n| a.checked_mul(n)) != Some(values.len())
    {
        return None;
    }
    // An empty tensor has no values to move (and its other sizes, which may be anything, must not
    // be multiplied into strides).
    if values.is_empty() {
        return Some(values.clone());
    }
    // Row-major strides of the input, read in the output's axis order.
    let mut strides = vec![1usize; sizes.len()];
    for i in (0..sizes.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * sizes[i + 1];
    }
    let out_sizes: Vec<usize> = perm.iter().map(|&a| sizes[a]).collect();
    let out_strides: Vec<usize> = perm.iter().map(|&a| strides[a]).collect();
    let mut index = vec![0usize; sizes.len()];
    let mut order = Vec::with_capacity(values.len());
    for _ in 0..values.len() {
        order.push(index.iter().zip(&out_strides).map(|(i, s)| i * s).sum());
        // The next output position, last axis fastest.
        for k in (0..index.len()).rev() {
            index[k] += 1;
            if index[k] < out_sizes[k] {
                break;
            }
            index[k] = 0;
        }
    }
    values.pick(order)
}

pub(super) fn squeeze(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let list = ints_attr_or_input(ctx, "axes", 1, 13);
    let shape = ctx.shape(0).and_then(|dims| match list {
        // An empty attribute is no attribute. An empty input squeezes nothing in the reference
        // implementation but every 1 in onnxruntime: known only where the two agree.
        Param::Known(list) if list.is_empty() && ctx.opset >= 13 => dims
            .iter()
            .all(|d| matches!(d, Dim::Known(n) if *n != 1))
            .then_some(dims),
        Param::Known(list) if !list.is_empty() => {
            let gone = axes(&list, dims.len())?;
            Some(
                dims.iter()
                    .enumerate()
                    .filter(|(i, _)| !gone.contains(i))
                    .map(|(_, d)| d.clone())
                    .collect(),
            )
        }
        // Without axes every 1 goes: only known when every dim is known.
        Param::Absent | Param::Known(_) => dims
            .iter()
            .all(|d| matches!(d, Dim::Known(_)))
            .then(|| dims.iter().filter(|d| !d.is_one()).cloned().collect()),
        Param::Unknown => {
            let n = len_1d(ctx, 1)?;
            unknown_dims((dims.len() as u64).checked_sub(n)?)
        }
    });
    let data = values_if_small(&shape, ctx.values(0).cloned());
    vec![like(ctx, 0, shape).with_values(data)]
}

pub(super) fn unsqueeze(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let list = ints_attr_or_input(ctx, "axes", 1, 13);
    let shape = ctx.shape(0).and_then(|dims| match list {
        Param::Known(list) => {
            let rank = dims.len().checked_add(list.len())?;
            let new = axes(&list, rank)?;
            let mut rest = dims.into_iter();
            (0..rank)
                .map(|i| {
                    if new.contains(&i) {
                        Some(Dim::Known(1))
                    } else {
                        rest.next()
                    }
                })
                .collect()
        }
        Param::Absent => None,
        Param::Unknown => unknown_dims((dims.len() as u64).checked_add(len_1d(ctx, 1)?)?),
    });
    let data = values_if_small(&shape, ctx.values(0).cloned());
    vec![like(ctx, 0, shape).with_values(data)]
}

#[cfg(test)]
mod tests {
    use super::super::{text, vals};
    use super::*;

    use crate::shape::ops::common::test_util::*;
    use crate::shape::ops::common::{mul, shift};

    fn reshape_to(input: &[&str], target: &[Dim], opset: i64) -> Shape {
        let n = node("Reshape", 2, 1, vec![]);
        let t_info = ValueInfo::int64_data(target.to_vec(), false);
        out_shape(reshape, &n, opset, &[t(F32, input), Some(t_info)])
    }

    #[test]
    fn reshape_copies_zeros_and_infers_minus_one() {
        assert_eq!(
            reshape_to(&["2", "3", "4"], &vals(&[0, -1]), 14),
            shape(&["2", "12"])
        );
        assert_eq!(
            reshape_to(&["B", "S", "768"], &vals(&[0, 0, 12, 64]), 14),
            shape(&["B", "S", "12", "64"])
        );
        // -1 with symbols that cancel.
        let target = vec![d("B"), from_i64(-1), from_i64(768)];
        assert_eq!(
            reshape_to(&["B", "S", "768"], &target, 14),
            shape(&["B", "S", "768"])
        );
        // -1 divided exactly in the symbolic algebra: B*S*768 / (B*64) = S*12.
        let target = vec![d("B"), from_i64(-1), from_i64(64)];
        assert_eq!(
            text(&reshape_to(&["B", "S", "768"], &target, 14)),
            "[B, S*12, 64]"
        );
        // [0, -1, 64] (0 copies batch), the case.
        assert_eq!(
            text(&reshape_to(
                &["batch", "seq", "768"],
                &vals(&[0, -1, 64]),
                14
            )),
            "[batch, seq*12, 64]"
        );
        // ... and back: [batch, seq*12, 64] to [0, -1, 768] is [batch, seq, 768].
        let x = ValueInfo::tensor(
            F32,
            Some(vec![d("batch"), mul(&d("seq"), &d("12")), d("64")]),
        );
        let back = ValueInfo::int64_data(vals(&[0, -1, 768]), false);
        let n = node("Reshape", 2, 1, vec![]);
        assert_eq!(
            out_shape(reshape, &n, 14, &[Some(x), Some(back)]),
            shape(&["batch", "seq", "768"])
        );
        // Not exact: S*768 / 7 and S / B are no sizes.
        assert_eq!(
            reshape_to(&["B", "S", "768"], &vals(&[0, -1, 7]), 14),
            shape(&["B", "?", "7"])
        );
        assert_eq!(
            reshape_to(&["S"], &[from_i64(-1), d("B")], 14),
            shape(&["?", "B"])
        );
        // A sum divides too: [2, seq+1, 64] to [-1, 64] is [seq*2+2, 64].
        let x = ValueInfo::tensor(F32, Some(vec![d("2"), shift(&d("seq"), 1), d("64")]));
        let target = ValueInfo::int64_data(vals(&[-1, 64]), false);
        assert_eq!(
            text(&out_shape(reshape, &n, 14, &[Some(x), Some(target)])),
            "[seq*2+2, 64]"
        );
        assert_eq!(
            reshape_to(&["B", "S", "?"], &vals(&[-1]), 14),
            shape(&["?"])
        );
        assert_eq!(
            reshape_to(&["6", "4"], &vals(&[-1, 5]), 14),
            shape(&["?", "5"])
        );
        assert_eq!(
            reshape_to(&["6", "4"], &vals(&[-1, -1]), 14),
            shape(&["?", "?"])
        );
        assert_eq!(
            reshape_to(&["0", "4"], &vals(&[-1, 2]), 14),
            shape(&["0", "2"])
        );
        assert_eq!(
            reshape_to(&["3", "0"], &vals(&[-1, 0]), 14),
            shape(&["?", "0"])
        );
        assert_eq!(reshape_to(&["4"], &vals(&[-7, 2]), 14), shape(&["?", "2"]));
        assert_eq!(reshape_to(&[], &vals(&[-1]), 14), shape(&["1"]));
        // allowzero: a 0 is a 0.
        let n = node("Reshape", 2, 1, vec![attr_i("allowzero", 1)]);
        let s = out_shape(reshape, &n, 14, &[t(F32, &["0", "4"]), ints(&[0, 4])]);
        assert_eq!(s, shape(&["0", "4"]));
        let s = out_shape(reshape, &n, 14, &[t(F32, &["3", "4"]), ints(&[0, -1])]);
        assert_eq!(s, shape(&["0", "?"]));
        // Unknown values: rank from the target's length.
        let target = ValueInfo::tensor(I64, shape(&["3"]));
        let s = out_shape(
            reshape,
            &node("Reshape", 2, 1, vec![]),
            14,
            &[t(F32, &["6"]), Some(target)],
        );
        assert_eq!(s, shape(&["?", "?", "?"]));
        let huge = ValueInfo::tensor(I64, Some(vec![Dim::Known(u64::MAX)]));
        let s = out_shape(
            reshape,
            &node("Reshape", 2, 1, vec![]),
            14,
            &[t(F32, &["6"]), Some(huge)],
        );
        assert_eq!(s, None);
        let legacy = node("Reshape", 1, 1, vec![attr_ints("shape", &[-1, 2])]);
        assert_eq!(
            out_shape(reshape, &legacy, 1, &[t(F32, &["2", "3"])]),
            shape(&["3", "2"])
        );
    }

    #[test]
    fn shape_with_start_and_end() {
        let x = t(F32, &["B", "S", "768"]);
        let out = run(
            shape_op,
            &node("Shape", 1, 1, vec![]),
            13,
            std::slice::from_ref(&x),
        );
        assert_eq!(out[0].int_vec(), Some(vec![d("B"), d("S"), d("768")]));
        assert_eq!(out[0].shape, shape(&["3"]));
        let n = node(
            "Shape",
            1,
            1,
            vec![attr_i("start", -2), attr_i("end", i64::MAX)],
        );
        assert_eq!(
            run(shape_op, &n, 15, std::slice::from_ref(&x))[0].int_vec(),
            Some(vec![d("S"), d("768")])
        );
        let n = node("Shape", 1, 1, vec![attr_i("start", 2), attr_i("end", 1)]);
        assert_eq!(
            run(shape_op, &n, 15, std::slice::from_ref(&x))[0].shape,
            shape(&["0"])
        );
        let n = node("Shape", 1, 1, vec![attr_i("start", i64::MIN)]);
        assert_eq!(run(shape_op, &n, 15, &[x])[0].shape, shape(&["3"]));
        let out = run(
            size,
            &node("Size", 1, 1, vec![]),
            13,
            &[t(F32, &["2", "N", "1"])],
        );
        assert_eq!(out[0].int_vec(), Some(vec![mul(&d("N"), &d("2"))]));
        let out = run(
            size,
            &node("Size", 1, 1, vec![]),
            13,
            &[t(F32, &["2", "N", "?"])],
        );
        assert_eq!(out[0].int_vec(), None);
        let out = run(
            size,
            &node("Size", 1, 1, vec![]),
            13,
            &[t(F32, &["2", "3"])],
        );
        assert_eq!(out[0].data_i64(), Some(vec![6]));
    }

    #[test]
    fn flatten_transpose_squeeze_unsqueeze() {
        let n = node("Flatten", 1, 1, vec![attr_i("axis", 1)]);
        assert_eq!(
            out_shape(flatten, &n, 13, &[t(F32, &["N", "2", "3"])]),
            shape(&["N", "6"])
        );
        let n = node("Flatten", 1, 1, vec![attr_i("axis", 0)]);
        assert_eq!(
            out_shape(flatten, &n, 13, &[t(F32, &["2", "3"])]),
            shape(&["1", "6"])
        );
        let n = node("Flatten", 1, 1, vec![attr_i("axis", 9)]);
        assert_eq!(out_shape(flatten, &n, 13, &[t(F32, &["2", "3"])]), None);

        let n = node("Transpose", 1, 1, vec![attr_ints("perm", &[0, 2, 1, 3])]);
        assert_eq!(
            out_shape(transpose, &n, 13, &[t(F32, &["B", "S", "12", "64"])]),
            shape(&["B", "12", "S", "64"])
        );
        let n = node("Transpose", 1, 1, vec![attr_ints("perm", &[0, 0])]);
        assert_eq!(
            out_shape(transpose, &n, 13, &[t(F32, &["2", "3"])]),
            shape(&["?", "?"])
        );
        let n = node("Transpose", 1, 1, vec![]);
        assert_eq!(
            out_shape(transpose, &n, 13, &[t(F32, &["2", "3"])]),
            shape(&["3", "2"])
        );

        let sq = node("Squeeze", 2, 1, vec![]);
        assert_eq!(
            out_shape(
                squeeze,
                &sq,
                13,
                &[t(F32, &["1", "N", "1"]), ints(&[0, -1])]
            ),
            shape(&["N"])
        );
        assert_eq!(
            out_shape(squeeze, &sq, 13, &[t(F32, &["1", "3", "1"]), None]),
            shape(&["3"])
        );
        assert_eq!(
            out_shape(squeeze, &sq, 13, &[t(F32, &["1", "N"]), None]),
            None
        );
        assert_eq!(
            out_shape(squeeze, &sq, 13, &[t(F32, &["1", "N"]), ints(&[2])]),
            None
        );
        assert_eq!(
            out_shape(squeeze, &sq, 13, &[t(F32, &["1", "3"]), ints(&[])]),
            None
        );
        assert_eq!(
            out_shape(squeeze, &sq, 13, &[t(F32, &["2", "3"]), ints(&[])]),
            shape(&["2", "3"])
        );
        let legacy = node("Squeeze", 1, 1, vec![attr_ints("axes", &[1])]);
        assert_eq!(
            out_shape(squeeze, &legacy, 11, &[t(F32, &["3", "1"])]),
            shape(&["3"])
        );

        let un = node("Unsqueeze", 2, 1, vec![]);
        assert_eq!(
            out_shape(unsqueeze, &un, 13, &[t(F32, &["3", "4"]), ints(&[0, -1])]),
            shape(&["1", "3", "4", "1"])
        );
        assert_eq!(
            out_shape(unsqueeze, &un, 13, &[t(F32, &["3"]), ints(&[3])]),
            None
        );
        let legacy = node("Unsqueeze", 1, 1, vec![attr_ints("axes", &[1])]);
        assert_eq!(
            out_shape(unsqueeze, &legacy, 11, &[t(F32, &["3"])]),
            shape(&["3", "1"])
        );
        let unknown_axes = Some(ValueInfo::tensor(I64, shape(&["2"])));
        assert_eq!(
            out_shape(unsqueeze, &un, 13, &[t(F32, &["3"]), unknown_axes]),
            shape(&["?", "?", "?"])
        );
    }

    #[test]
    fn flatten_of_symbols_is_their_product() {
        let n = node("Flatten", 1, 1, vec![attr_i("axis", 2)]);
        let s = out_shape(flatten, &n, 13, &[t(F32, &["batch", "seq", "768"])]);
        assert_eq!(text(&s), "[batch*seq, 768]");
        let n = node("Flatten", 1, 1, vec![attr_i("axis", 1)]);
        let s = out_shape(flatten, &n, 13, &[t(F32, &["batch", "seq", "768"])]);
        assert_eq!(text(&s), "[batch, seq*768]");
        let s = out_shape(flatten, &n, 13, &[t(F32, &["batch", "seq", "?"])]);
        assert_eq!(text(&s), "[batch, ?]");
        // Flatten then Reshape back: [batch*seq, 768] to [batch, -1, 768] is [batch, seq, 768].
        let flat = ValueInfo::tensor(
            F32,
            Some(vec![mul(&d("batch"), &d("seq")), Dim::Known(768)]),
        );
        let target = ValueInfo::int64_data(vec![d("batch"), from_i64(-1), from_i64(768)], false);
        let r = node("Reshape", 2, 1, vec![]);
        assert_eq!(
            out_shape(reshape, &r, 14, &[Some(flat), Some(target)]),
            shape(&["batch", "seq", "768"])
        );
    }
}
