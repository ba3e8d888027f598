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
//!
//! Contracts, where onnxruntime enforces them (load: onnx's inference at session creation; run: the
//! CPU kernel):
//! - Reduce*: [`REDUCE_AXES`], every axis inside the rank: at load from opset 11 (12 for ReduceMax
//!   and ReduceMin), at run before. Not for a scalar input nor for one with a known 0 size: the
//!   kernel ignores the axes there (onnx's inference still refuses them where it knows the rank at
//!   load, which a model need not let it). Repeated axes are accepted, reduced once.
//! - ArgMax, ArgMin: [`ARG_REDUCE_AXIS`] (load from opset 11, run before); not for a scalar input,
//!   whose axis the kernel ignores. [`ARG_REDUCE_EMPTY`], the reduced axis not empty (run), unless
//!   the output is empty too (the kernel then has nothing to do) or the axis is negative (the
//!   kernel then passes the empty input through and runs).
//! - TopK: [`TOP_K_AXIS`] (load); [`TOP_K_K`], `k` at most the axis's size (`k == d` is fine), 1 or
//!   more as TopK-1's attribute (load) and 0 or more as the input from opset 10 (run; `k == 0`
//!   gives empty outputs); [`TOP_K_K_SHAPE`], the K input of shape `[1]`, a scalar refused (at load
//!   for a constant, at run otherwise). An empty input is no exception to any of them.

use super::super::contract::{Contract, Operand};
use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Shape, SymExpr, format_shape};
use super::super::registry::Registry;
use super::super::value::{ValueInfo, as_i64, from_i64};
use super::common::{
    Param, axis, data_if_small, ints_attr_or_input, len_1d, like, size_of_value, unknown_dims,
};
use crate::proto::tensor_proto::DataType;

pub const REDUCE_AXES: Contract = Contract::new(
    "reduce-axes",
    "every axis is inside the input's rank r, in [-r, r-1] (unless the input is a scalar or empty)",
);
pub const ARG_REDUCE_AXIS: Contract = Contract::new(
    "arg-reduce-axis",
    "axis is inside the input's rank r, in [-r, r-1] (unless the input is a scalar)",
);
/// ArgMax's and ArgMin's reduced axis.
pub const ARG_REDUCE_EMPTY: Contract = Contract::new(
    "arg-reduce-empty",
    "the reduced axis is not empty, unless the output is empty too",
);
pub const TOP_K_AXIS: Contract = Contract::new(
    "top-k-axis",
    "axis is inside the input's rank r, in [-r, r-1]",
);
pub const TOP_K_K: Contract = Contract::new(
    "top-k-k",
    "k is at most the size of the axis, and not negative (TopK-1's attribute: 1 or more)",
);
pub const TOP_K_K_SHAPE: Contract =
    Contract::new("top-k-k-shape", "K is a 1-D tensor of one value, shape [1]");

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
    if let (Some(dims), Param::Known(list)) = (&input, &list) {
        // The kernel ignores the axes of a scalar or an empty input.
        let ignored = dims.is_empty() || dims.iter().any(|d| d.known() == Some(0));
        if let Some(bad) = list
            .iter()
            .find(|&&a| !ignored && axis(a, dims.len()).is_none())
        {
            let detail = format_args!("axis {bad} of a tensor of rank {}", dims.len());
            ctx.out_of_range(REDUCE_AXES, &[0], detail);
            return vec![like(ctx, 0, None)];
        }
    }
    let shape: Shape = input.as_ref().and_then(|dims| match &list {
        // A scalar stays one, whatever the axes.
        _ if dims.is_empty() => Some(Vec::new()),
        Param::Known(list) => reduced(dims, &distinct_axes(list, dims.len())?, keep),
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
        (Some([_]), Param::Known(l)) => distinct_axes(l, 1).is_some(),
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

/// The axes of `list` normalized, each once (a repeated axis is reduced once); `None` if one is
/// outside the rank.
fn distinct_axes(list: &[i64], rank: usize) -> Option<Vec<usize>> {
    let mut out: Vec<usize> = Vec::with_capacity(list.len());
    for &a in list {
        let a = axis(a, rank)?;
        if !out.contains(&a) {
            out.push(a);
        }
    }
    Some(out)
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
    let shape = ctx.shape(0).and_then(|dims| {
        // The kernel ignores the axis of a scalar: the result is a scalar.
        if dims.is_empty() {
            return Some(dims);
        }
        let k = ctx.require_axis(ARG_REDUCE_AXIS, &[0], a, dims.len())?;
        // The kernel has no index to give for an empty axis, unless the output is empty too: only
        // reported where every other axis is a number of 1 or more or a plain symbol (1 or more).
        let others_nonempty = dims
            .iter()
            .enumerate()
            .all(|(i, d)| i == k || matches!(d, Dim::Known(1..) | Dim::Sym(SymExpr::Var(_))));
        // A negative axis on an empty input is passed through by the kernel, which runs.
        if a >= 0 && dims[k] == Dim::Known(0) && others_nonempty {
            let shape = format_shape(&Some(dims.clone()));
            ctx.broken(
                ARG_REDUCE_EMPTY,
                &[0],
                format_args!("axis {k} of {shape} is empty"),
            );
            return None;
        }
        reduced(&dims, &[k], keep)
    });
    vec![ValueInfo::tensor(Some(DataType::Int64 as i32), shape)]
}

/// TopK: values and indices with the axis cut to `k`.
fn top_k(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let unknown = |ctx: &NodeCtx<'_>| {
        vec![
            like(ctx, 0, None),
            ValueInfo::tensor(Some(DataType::Int64 as i32), None),
        ]
    };
    // K may be computed (`Min(k, Gather(Shape(x), axis))` in exported top-k), symbols included.
    let (k, least) = if ctx.opset < 10 {
        (ctx.attr_i("k").map(from_i64), 1)
    } else {
        match ctx.shape(1) {
            Some(s) if s.len() != 1 => {
                let detail = format_args!("K has shape {}", format_shape(&Some(s)));
                ctx.broken(TOP_K_K_SHAPE, &[1], detail);
                return unknown(ctx);
            }
            _ => {}
        }
        let one = Operand::new("one value", Dim::Known(1));
        if let Some(len) = ctx.operand(1, 0)
            && !ctx.require_equal(TOP_K_K_SHAPE, &[len, one])
        {
            return unknown(ctx);
        }
        match ctx.data(1) {
            Some([k]) => (Some(k.clone()), 0),
            _ => (None, 0),
        }
    };
    if let Some(v) = k.as_ref().and_then(as_i64).filter(|&v| v < least) {
        ctx.out_of_range(TOP_K_K, &[0], format_args!("k is {v}"));
        return unknown(ctx);
    }
    let k = k.as_ref().map_or(Dim::Unknown, size_of_value);
    let a = ctx.attr_i("axis").unwrap_or(-1);
    let Some(mut dims) = ctx.shape(0) else {
        return unknown(ctx);
    };
    let Some(i) = ctx.require_axis(TOP_K_AXIS, &[0], a, dims.len()) else {
        return unknown(ctx);
    };
    if let (Dim::Known(k), Dim::Known(d)) = (&k, &dims[i])
        && k > d
    {
        ctx.out_of_range(TOP_K_K, &[0], format_args!("k is {k}, axis {i} has {d}"));
        return unknown(ctx);
    }
    dims[i] = k;
    let shape = Some(dims);
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
        // An axis named twice is reduced once, as onnxruntime does.
        assert_eq!(
            out_shape(reduce, &n, 13, &[t(F32, &["N", "1"]), ints(&[0, -2])]),
            shape(&["1"])
        );
    }

    #[test]
    fn reduce_axes_inside_the_rank_unless_scalar_or_empty() {
        let attr = |axes: &[i64]| node("ReduceMean", 1, 1, vec![attr_ints("axes", axes)]);
        assert!(codes_at(reduce, &attr(&[-2, 1]), 13, &[t(F32, &["N", "4"])]).is_empty());
        let c = codes_at(reduce, &attr(&[0, 2]), 13, &[t(F32, &["N", "4"])]);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(
            c[0].starts_with("E3 'n' (ReduceMean) breaks the contract reduce-axes: ")
                && c[0].ends_with("here axis 2 of a tensor of rank 2"),
            "{c:?}"
        );
        let c = codes_at(reduce, &attr(&[-3]), 1, &[t(F32, &["N", "4"])]);
        assert!(c[0].starts_with("E3 "), "{c:?}");
        // From 18 the axes are an input.
        let n = node("ReduceMean", 2, 1, vec![]);
        let c = codes_at(reduce, &n, 18, &[t(F32, &["N", "4"]), ints(&[5])]);
        assert!(c[0].starts_with("E3 ") && c[0].contains("axis 5"), "{c:?}");
        assert_eq!(
            out_shape(reduce, &n, 18, &[t(F32, &["N", "4"]), ints(&[5])]),
            None
        );
        // A scalar or an empty input: the kernel ignores the axes. A scalar stays a scalar.
        assert!(codes_at(reduce, &attr(&[2]), 11, &[t(F32, &[])]).is_empty());
        assert_eq!(
            out_shape(reduce, &attr(&[2]), 11, &[t(F32, &[])]),
            shape(&[])
        );
        assert!(codes_at(reduce, &attr(&[2]), 11, &[t(F32, &["0", "4"])]).is_empty());
        assert!(codes_at(reduce, &n, 18, &[t(F32, &["N", "0"]), ints(&[-3])]).is_empty());
        // Axes whose values are not known say nothing.
        let unknown = Some(ValueInfo::tensor(I64, shape(&["1"])));
        assert!(codes_at(reduce, &n, 18, &[t(F32, &["N", "4"]), unknown]).is_empty());
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

    #[test]
    fn arg_reduce_axis() {
        let n = |a: i64| node("ArgMin", 1, 1, vec![attr_i("axis", a)]);
        assert!(codes_at(arg_reduce, &n(-2), 13, &[t(F32, &["N", "4"])]).is_empty());
        let c = codes_at(arg_reduce, &n(2), 13, &[t(F32, &["N", "4"])]);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(
            c[0].starts_with("E3 'n' (ArgMin) breaks the contract arg-reduce-axis: ")
                && c[0].ends_with("here axis 2 of a tensor of rank 2"),
            "{c:?}"
        );
        let c = codes_at(arg_reduce, &n(-3), 1, &[t(F32, &["N", "4"])]);
        assert!(c[0].starts_with("E3 "), "{c:?}");
        // A scalar's axis is ignored: a scalar result.
        assert!(codes_at(arg_reduce, &n(1), 1, &[t(F32, &[])]).is_empty());
        assert_eq!(out_shape(arg_reduce, &n(1), 1, &[t(F32, &[])]), shape(&[]));
        // An empty reduced axis: refused unless the output is empty too.
        let c = codes_at(arg_reduce, &n(1), 13, &[t(F32, &["N", "0"])]);
        assert!(c.len() == 1 && c[0].contains("arg-reduce-empty"), "{c:?}");
        for x in [&["0", "0"], &["?", "0"], &["N", "4"]] {
            assert!(
                codes_at(arg_reduce, &n(1), 13, &[t(F32, x)]).is_empty(),
                "{x:?}"
            );
        }
        assert!(codes_at(arg_reduce, &n(-1), 13, &[t(F32, &["N", "0"])]).is_empty());
    }

    #[test]
    fn top_k_axis_k_and_its_shape() {
        let n = |attrs| node("TopK", 2, 2, attrs);
        let x = || t(F32, &["N", "4"]);
        // k == d and k == 0 are fine.
        assert!(codes_at(top_k, &n(vec![]), 11, &[x(), ints(&[4])]).is_empty());
        assert!(codes_at(top_k, &n(vec![]), 11, &[x(), ints(&[0])]).is_empty());
        assert_eq!(
            out_shape(top_k, &n(vec![]), 11, &[x(), ints(&[0])]),
            shape(&["N", "0"])
        );
        let c = codes_at(top_k, &n(vec![]), 11, &[x(), ints(&[5])]);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(
            c[0].starts_with("E3 'n' (TopK) breaks the contract top-k-k: ")
                && c[0].ends_with("here k is 5, axis 1 has 4"),
            "{c:?}"
        );
        let c = codes_at(top_k, &n(vec![]), 11, &[x(), ints(&[-1])]);
        assert!(
            c[0].starts_with("E3 ") && c[0].ends_with("here k is -1"),
            "{c:?}"
        );
        // A symbolic axis says nothing of k.
        assert!(codes_at(top_k, &n(vec![attr_i("axis", 0)]), 11, &[x(), ints(&[5])]).is_empty());
        // TopK-1's attribute k: 1 or more.
        let one = |k: i64| node("TopK", 1, 2, vec![attr_i("k", k)]);
        assert!(codes_at(top_k, &one(4), 1, &[x()]).is_empty());
        let c = codes_at(top_k, &one(0), 1, &[x()]);
        assert!(c[0].starts_with("E3 ") && c[0].contains("top-k-k"), "{c:?}");
        let c = codes_at(top_k, &one(5), 1, &[x()]);
        assert!(c[0].starts_with("E3 ") && c[0].contains("top-k-k"), "{c:?}");
        // top-k-axis.
        let c = codes_at(top_k, &n(vec![attr_i("axis", 2)]), 11, &[x(), ints(&[1])]);
        assert!(
            c[0].starts_with("E3 ")
                && c[0].contains("top-k-axis")
                && c[0].ends_with("axis 2 of a tensor of rank 2"),
            "{c:?}"
        );
        let c = codes_at(top_k, &n(vec![]), 11, &[t(F32, &[]), ints(&[1])]);
        assert!(
            c[0].starts_with("E3 ") && c[0].contains("top-k-axis"),
            "{c:?}"
        );
        // top-k-k-shape: [1]; a scalar, a longer vector or a matrix is E2, a symbolic length W2.
        let c = codes_at(top_k, &n(vec![]), 11, &[x(), int(2)]);
        assert!(
            c[0].starts_with("E2 ")
                && c[0].contains("top-k-k-shape")
                && c[0].ends_with("here K has shape []"),
            "{c:?}"
        );
        let c = codes_at(top_k, &n(vec![]), 11, &[x(), ints(&[2, 2])]);
        assert!(
            c[0].starts_with("E2 ") && c[0].contains("top-k-k-shape"),
            "{c:?}"
        );
        let c = codes_at(top_k, &n(vec![]), 11, &[x(), t(I64, &["1", "1"])]);
        assert!(
            c[0].starts_with("E2 ") && c[0].contains("top-k-k-shape"),
            "{c:?}"
        );
        let c = codes_at(top_k, &n(vec![]), 11, &[x(), t(I64, &["j"])]);
        assert!(
            c[0].starts_with("W2 ") && c[0].contains("j must be 1"),
            "{c:?}"
        );
        assert!(codes_at(top_k, &n(vec![]), 11, &[x(), t(I64, &["1"])]).is_empty());
    }
}
