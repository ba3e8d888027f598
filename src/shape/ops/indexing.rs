//! Indexing operators: Gather (with data propagation: the transformer pattern `Gather(Shape(x), 0)`),
//! GatherElements, GatherND, Scatter, ScatterElements, ScatterND, Compress, NonZero and OneHot.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#Gather>, `#GatherElements`,
//! `#GatherND`, `#ScatterND`, `#ScatterElements`, `#Scatter`, `#Compress`, `#NonZero`, `#OneHot`.
//! Opset history:
//! - Gather: 1, 11 (negative indices and axes), 13. GatherElements, ScatterElements, ScatterND: 11
//!   on; 16 and 18 add `reduction` to the scatters (the shape is the data's either way).
//! - GatherND: 11; 12 adds `batch_dims`. Scatter: 9, deprecated in 11 for ScatterElements.
//! - Compress: 9; 11 allows a negative axis. NonZero: 9. OneHot: 9; 11 allows a negative axis.

use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::{Data, ValueInfo};
use super::common::{axis, like, size_of_value, values_if_small};
use crate::proto::tensor_proto::DataType;

pub fn register(r: &mut Registry) {
    r.add("", "Gather", 1, gather);
    r.add("", "GatherElements", 11, gather_elements);
    r.add("", "GatherND", 11, gather_nd);
    r.add("", "Scatter", 9, scatter);
    r.add("", "ScatterElements", 11, scatter);
    r.add("", "ScatterND", 11, scatter);
    r.add("", "Compress", 9, compress);
    r.add("", "NonZero", 9, non_zero);
    r.add("", "OneHot", 9, one_hot);
}

/// Gather: `data.shape[..axis] + indices.shape + data.shape[axis + 1..]`; the values of a 1-D data
/// tensor picked by known indices.
pub(super) fn gather(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let a = ctx.attr_i("axis").unwrap_or(0);
    let (data, indices) = (ctx.shape(0), ctx.shape(1));
    let shape: Shape = match (&data, &indices) {
        (Some(d), Some(q)) => axis(a, d.len()).map(|k| {
            let mut out = d[..k].to_vec();
            out.extend(q.iter().cloned());
            out.extend(d[k + 1..].iter().cloned());
            out
        }),
        _ => None,
    };
    let values = match data.as_deref() {
        Some([_]) => gathered(ctx.values(0), ctx.data_i64(1).as_deref()),
        _ => None,
    };
    let values = values_if_small(&shape, values);
    vec![like(ctx, 0, shape).with_values(values)]
}

/// `values[i]` for each index (negative ones count from the end); `None` if one is out of range.
fn gathered(values: Option<&Data>, indices: Option<&[i64]>) -> Option<Data> {
    let (values, indices) = (values?, indices?);
    let n = i64::try_from(values.len()).ok()?;
    let at: Vec<usize> = indices
        .iter()
        .map(|&i| {
            let i = if i < 0 { i.checked_add(n)? } else { i };
            usize::try_from(i).ok()
        })
        .collect::<Option<_>>()?;
    values.pick(at)
}

/// GatherElements: the shape of the indices, the element type of the data.
fn gather_elements(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![like(ctx, 0, ctx.shape(1))]
}

/// GatherND: `indices.shape[..q - 1] + data.shape[batch_dims + m..]` where `m` is the last dim of
/// the indices (how many leading data axes each index tuple addresses).
pub(super) fn gather_nd(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let b = ctx.attr_i("batch_dims").unwrap_or(0);
    let shape = match (ctx.shape(0), ctx.shape(1)) {
        (Some(data), Some(indices)) => (|| {
            let (last, outer) = indices.split_last()?;
            let m = usize::try_from(last.known()?).ok()?;
            let b = usize::try_from(b).ok()?;
            let from = b.checked_add(m).filter(|&f| f <= data.len())?;
            let mut out = outer.to_vec();
            out.extend(data[from..].iter().cloned());
            Some(out)
        })(),
        _ => None,
    };
    vec![like(ctx, 0, shape)]
}

/// The scatters write into a copy of the data: its shape and type.
fn scatter(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![like(ctx, 0, ctx.shape(0))]
}

/// Compress: with `axis`, that axis shrinks to an unknown count; without, a 1-D result.
fn compress(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = match ctx.attr_i("axis") {
        None => Some(vec![Dim::Unknown]),
        Some(a) => ctx.shape(0).and_then(|mut dims| {
            let k = axis(a, dims.len())?;
            dims[k] = Dim::Unknown;
            Some(dims)
        }),
    };
    vec![like(ctx, 0, shape)]
}

/// NonZero: `[rank, number of non-zeros]`, int64.
fn non_zero(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let rank = ctx
        .shape(0)
        .map_or(Dim::Unknown, |s| Dim::Known(s.len() as u64));
    vec![ValueInfo::tensor(
        Some(DataType::Int64 as i32),
        Some(vec![rank, Dim::Unknown]),
    )]
}

/// OneHot(indices, depth, values): the indices' shape with `depth` inserted at `axis`; the element
/// type of `values`.
fn one_hot(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    // Depth may be of any numeric type; onnxruntime converts a float one with static_cast (toward
    // zero), kept only where that is defined.
    let depth = match (ctx.data(1), ctx.floats(1)) {
        (Some([d]), _) => size_of_value(d),
        (_, Some([f])) if f.is_finite() && (0.0..9.2e18).contains(&f.trunc()) => {
            Dim::Known(f.trunc() as u64)
        }
        _ => Dim::Unknown,
    };
    let a = ctx.attr_i("axis").unwrap_or(-1);
    let shape = ctx.shape(0).and_then(|mut dims| {
        // The axis counts in the output, one rank more than the indices.
        let k = axis(a, dims.len().checked_add(1)?)?;
        dims.insert(k, depth);
        Some(dims)
    });
    vec![ValueInfo::tensor(ctx.elem(2), shape)]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    #[test]
    fn gather_shapes_and_values() {
        let n = node("Gather", 2, 1, vec![attr_i("axis", 1)]);
        let s = out_shape(
            gather,
            &n,
            13,
            &[t(F32, &["N", "5", "7"]), t(I64, &["B", "S"])],
        );
        assert_eq!(s, shape(&["N", "B", "S", "7"]));
        let s = out_shape(gather, &n, 13, &[t(F32, &["N", "5", "7"]), int(2)]);
        assert_eq!(s, shape(&["N", "7"]));
        assert_eq!(out_shape(gather, &n, 13, &[t(F32, &["N"]), int(0)]), None);
        let n = node("Gather", 2, 1, vec![]);
        let v = Some(ValueInfo::int64_data(vec![d("B"), d("S"), d("768")], false));
        let out = run(gather, &n, 13, &[v.clone(), ints(&[-1, 0])]);
        assert_eq!(out[0].int_vec(), Some(vec![d("768"), d("B")]));
        let out = run(gather, &n, 13, &[v.clone(), int(1)]);
        assert_eq!(
            (out[0].shape.clone(), out[0].int_vec()),
            (shape(&[]), Some(vec![d("S")]))
        );
        assert_eq!(run(gather, &n, 13, &[v.clone(), int(3)])[0].int_vec(), None);
        assert_eq!(run(gather, &n, 13, &[v, int(i64::MIN)])[0].int_vec(), None);
    }

    #[test]
    fn gather_nd_elements_and_scatter() {
        let n = node("GatherND", 2, 1, vec![]);
        let s = out_shape(
            gather_nd,
            &n,
            13,
            &[t(F32, &["2", "3", "4"]), t(I64, &["5", "2"])],
        );
        assert_eq!(s, shape(&["5", "4"]));
        let n = node("GatherND", 2, 1, vec![attr_i("batch_dims", 1)]);
        let s = out_shape(
            gather_nd,
            &n,
            13,
            &[t(F32, &["2", "3", "4"]), t(I64, &["2", "1"])],
        );
        assert_eq!(s, shape(&["2", "4"]));
        let s = out_shape(
            gather_nd,
            &n,
            13,
            &[t(F32, &["2", "3"]), t(I64, &["2", "3"])],
        );
        assert_eq!(s, None);
        let n = node("GatherElements", 2, 1, vec![]);
        let out = run(
            gather_elements,
            &n,
            13,
            &[t(F32, &["2", "3"]), t(I64, &["2", "1"])],
        );
        assert_eq!(
            (out[0].elem, out[0].shape.clone()),
            (F32, shape(&["2", "1"]))
        );
        let n = node("ScatterND", 3, 1, vec![]);
        assert_eq!(
            out_shape(scatter, &n, 13, &[t(F32, &["N", "3"]), None, None]),
            shape(&["N", "3"])
        );
    }

    #[test]
    fn compress_nonzero_one_hot() {
        let n = node("Compress", 2, 1, vec![attr_i("axis", -1)]);
        assert_eq!(
            out_shape(compress, &n, 11, &[t(F32, &["N", "3"]), None]),
            shape(&["N", "?"])
        );
        let n = node("Compress", 2, 1, vec![]);
        assert_eq!(
            out_shape(compress, &n, 11, &[t(F32, &["N", "3"]), None]),
            shape(&["?"])
        );
        let n = node("NonZero", 1, 1, vec![]);
        assert_eq!(
            out_shape(non_zero, &n, 13, &[t(F32, &["N", "3"])]),
            shape(&["2", "?"])
        );
        let n = node("OneHot", 3, 1, vec![]);
        let out = run(
            one_hot,
            &n,
            11,
            &[t(I64, &["N", "S"]), int(10), t(F32, &["2"])],
        );
        assert_eq!(
            (out[0].elem, out[0].shape.clone()),
            (F32, shape(&["N", "S", "10"]))
        );
        let n = node("OneHot", 3, 1, vec![attr_i("axis", 0)]);
        assert_eq!(
            out_shape(one_hot, &n, 11, &[t(I64, &["N"]), None, None]),
            shape(&["?", "N"])
        );
        let n = node("OneHot", 3, 1, vec![attr_i("axis", i64::MAX)]);
        assert_eq!(
            out_shape(one_hot, &n, 11, &[t(I64, &["N"]), int(-3), None]),
            None
        );
    }
}
