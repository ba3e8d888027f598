//! Reductions: the Reduce* family, ArgMax/ArgMin and TopK.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#ReduceSum> (and `#ReduceMean`,
//! `#ReduceMax`, ...), `#ArgMax`, `#ArgMin`, `#TopK`. Opset history:
//! - ReduceSum: `axes` attribute before 13, input from 13 (with `noop_with_empty_axes`).
//! - ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceMax, ReduceMean, ReduceMin, ReduceProd,
//!   ReduceSumSquare: `axes` attribute before 18, input from 18 (with `noop_with_empty_axes`).
//!   11 allows negative axes everywhere. Without axes every axis is reduced (unless noop).
//! - ArgMax, ArgMin: `axis` (default 0), `keepdims` (default 1); 12 adds `select_last_index`.
//! - TopK: `k` attribute in 1, input `K` from 10; 11 adds `largest`/`sorted`.
//!
//! Values of a reduced 1-D integer tensor are computed for ReduceSum, ReduceProd, ReduceMax and
//! ReduceMin (`ReduceProd(Shape(x))` is an element count).

use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::{ValueInfo, as_i64, from_i64};
use super::common::{
    Param, axes, axis, data_if_small, ints_attr_or_input, len_1d, like, size_of_value, unknown_dims,
};
use crate::proto::tensor_proto::DataType;

/// Reductions whose `axes` became an input in opset 18.
const REDUCE_18: &[&str] = &[
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceMax",
    "ReduceMean",
    "ReduceMin",
    "ReduceProd",
    "ReduceSumSquare",
];

pub fn register(r: &mut Registry) {
    r.add_all(REDUCE_18, 1, reduce);
    r.add("", "ReduceSum", 1, reduce);
    r.add_all(&["ArgMax", "ArgMin"], 1, arg_reduce);
    r.add("", "TopK", 1, top_k);
}

fn reduce(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let since = if ctx.op_type() == "ReduceSum" { 13 } else { 18 };
    let keep = ctx.attr_i("keepdims").unwrap_or(1) != 0;
    let noop = ctx.opset >= since && ctx.attr_i("noop_with_empty_axes").unwrap_or(0) != 0;
    // An empty list is the same as none.
    let list = match ints_attr_or_input(ctx, "axes", 1, since) {
        Param::Known(l) if l.is_empty() => Param::Absent,
        other => other,
    };
    let input = ctx.shape(0);
    let shape: Shape = input.as_ref().and_then(|dims| match &list {
        Param::Known(list) => reduced(dims, &axes(list, dims.len())?, keep),
        Param::Absent if noop => Some(dims.clone()),
        Param::Absent => reduced(dims, &(0..dims.len()).collect::<Vec<_>>(), keep),
        // Which axes go is not known: with keepdims each is either itself or 1.
        Param::Unknown if keep => Some(
            dims.iter()
                .map(|d| if d.is_one() { d.clone() } else { Dim::Unknown })
                .collect(),
        ),
        Param::Unknown => unknown_dims((dims.len() as u64).checked_sub(len_1d(ctx, 1)?)?),
    });
    // Values: a 1-D integer tensor reduced over its one axis.
    let whole = match (input.as_deref(), &list) {
        (Some([_]), Param::Known(l)) => axes(l, 1).is_some(),
        (Some([_]), Param::Absent) => !noop,
        _ => false,
    };
    let data = ctx
        .data(0)
        .filter(|_| whole)
        .and_then(|v| fold(ctx.op_type(), v))
        .map(|v| vec![v]);
    let data = data_if_small(&shape, data);
    vec![like(ctx, 0, shape).with_data(data)]
}

/// `dims` with the axes `gone` set to 1 (`keep`) or removed.
fn reduced(dims: &[Dim], gone: &[usize], keep: bool) -> Option<Vec<Dim>> {
    Some(
        dims.iter()
            .enumerate()
            .filter_map(|(i, d)| match (gone.contains(&i), keep) {
                (false, _) => Some(d.clone()),
                (true, true) => Some(Dim::Known(1)),
                (true, false) => None,
            })
            .collect(),
    )
}

/// The reduction of integer values: exact, with a symbol kept where the others are the identity.
fn fold(op: &str, values: &[Dim]) -> Option<Dim> {
    let ints: Option<Vec<i64>> = values.iter().map(as_i64).collect();
    if let Some(ints) = ints {
        let v = match op {
            "ReduceSum" => ints.iter().try_fold(0i64, |a, &b| a.checked_add(b))?,
            "ReduceProd" => ints.iter().try_fold(1i64, |a, &b| a.checked_mul(b))?,
            "ReduceMax" => *ints.iter().max()?,
            "ReduceMin" => *ints.iter().min()?,
            _ => return None,
        };
        return Some(from_i64(v));
    }
    let identity = match op {
        "ReduceSum" => 0,
        "ReduceProd" => 1,
        _ => return None,
    };
    let mut symbol = None;
    for v in values {
        match v {
            Dim::Sym(_) if symbol.is_none() => symbol = Some(v),
            Dim::Known(_) if as_i64(v) == Some(identity) => {}
            _ => return None,
        }
    }
    symbol.cloned()
}

/// ArgMax, ArgMin: the axis set to 1 or removed; int64.
fn arg_reduce(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let keep = ctx.attr_i("keepdims").unwrap_or(1) != 0;
    let a = ctx.attr_i("axis").unwrap_or(0);
    let shape = ctx
        .shape(0)
        .and_then(|dims| reduced(&dims, &[axis(a, dims.len())?], keep));
    vec![ValueInfo::tensor(Some(DataType::Int64 as i32), shape)]
}

/// TopK: values and indices with the axis cut to `k`.
fn top_k(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    // K may be computed (`Min(k, Gather(Shape(x), axis))` in exported top-k), symbols included.
    let k = if ctx.opset < 10 {
        ctx.attr_i("k")
            .and_then(|k| u64::try_from(k).ok())
            .map_or(Dim::Unknown, Dim::Known)
    } else {
        match ctx.data(1) {
            Some([k]) => size_of_value(k),
            _ => Dim::Unknown,
        }
    };
    let a = ctx.attr_i("axis").unwrap_or(-1);
    let shape = ctx.shape(0).and_then(|mut dims| {
        let i = axis(a, dims.len())?;
        dims[i] = k;
        Some(dims)
    });
    vec![
        like(ctx, 0, shape.clone()),
        ValueInfo::tensor(Some(DataType::Int64 as i32), shape),
    ]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    #[test]
    fn reduce_axes_from_attribute_or_input() {
        let n = node("ReduceMean", 1, 1, vec![attr_ints("axes", &[-1])]);
        assert_eq!(
            out_shape(reduce, &n, 13, &[t(F32, &["N", "S", "768"])]),
            shape(&["N", "S", "1"])
        );
        let n = node("ReduceMean", 2, 1, vec![attr_i("keepdims", 0)]);
        assert_eq!(
            out_shape(reduce, &n, 18, &[t(F32, &["N", "S", "768"]), ints(&[1])]),
            shape(&["N", "768"])
        );
        // Before 18 the input is not there: the attribute (absent) reduces everything.
        assert_eq!(
            out_shape(reduce, &n, 13, &[t(F32, &["N", "S"]), ints(&[1])]),
            shape(&[])
        );
        let n = node("ReduceSum", 2, 1, vec![attr_i("noop_with_empty_axes", 1)]);
        assert_eq!(
            out_shape(reduce, &n, 13, &[t(F32, &["N", "S"]), None]),
            shape(&["N", "S"])
        );
        assert_eq!(
            out_shape(reduce, &n, 13, &[t(F32, &["N", "S"]), ints(&[])]),
            shape(&["N", "S"])
        );
        let n = node("ReduceSum", 2, 1, vec![]);
        let unknown = Some(ValueInfo::tensor(I64, shape(&["1"])));
        assert_eq!(
            out_shape(reduce, &n, 13, &[t(F32, &["N", "1"]), unknown.clone()]),
            shape(&["?", "1"])
        );
        let n = node("ReduceSum", 2, 1, vec![attr_i("keepdims", 0)]);
        assert_eq!(
            out_shape(reduce, &n, 13, &[t(F32, &["N", "1"]), unknown]),
            shape(&["?"])
        );
        assert_eq!(
            out_shape(reduce, &n, 13, &[t(F32, &["N", "1"]), ints(&[0, -2])]),
            None
        );
    }

    #[test]
    fn reduce_values() {
        let n = node("ReduceProd", 1, 1, vec![attr_i("keepdims", 0)]);
        let v = Some(ValueInfo::int64_data(vec![d("B"), d("1")], false));
        let out = run(reduce, &n, 13, &[v]);
        assert_eq!(
            (out[0].shape.clone(), out[0].int_vec()),
            (shape(&[]), Some(vec![d("B")]))
        );
        let out = run(reduce, &n, 13, &[ints(&[2, 3, 4])]);
        assert_eq!(out[0].data_i64(), Some(vec![24]));
        let out = run(reduce, &n, 13, &[ints(&[i64::MAX, 2])]);
        assert_eq!(out[0].int_vec(), None);
        let n = node("ReduceMax", 1, 1, vec![]);
        let out = run(reduce, &n, 13, &[ints(&[2, 7, 4])]);
        assert_eq!(
            (out[0].shape.clone(), out[0].data_i64()),
            (shape(&["1"]), Some(vec![7]))
        );
    }

    #[test]
    fn arg_and_top_k() {
        let n = node(
            "ArgMax",
            1,
            1,
            vec![attr_i("axis", -1), attr_i("keepdims", 0)],
        );
        let out = run(arg_reduce, &n, 13, &[t(F32, &["N", "10"])]);
        assert_eq!((out[0].elem, out[0].shape.clone()), (I64, shape(&["N"])));
        let n = node("TopK", 2, 2, vec![]);
        let out = run(top_k, &n, 11, &[t(F32, &["N", "10"]), ints(&[3])]);
        assert_eq!(out[0].shape, shape(&["N", "3"]));
        assert_eq!(out[1].elem, I64);
        let n = node("TopK", 1, 2, vec![attr_i("k", 2), attr_i("axis", 0)]);
        assert_eq!(
            out_shape(top_k, &n, 1, &[t(F32, &["N", "10"])]),
            shape(&["2", "10"])
        );
    }
}
