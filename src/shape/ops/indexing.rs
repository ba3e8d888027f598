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
//!
//! Contracts, where onnxruntime enforces them (load: onnx's inference at session creation; run: the
//! CPU kernel):
//! - Gather: [`GATHER_AXIS`] (load), [`GATHER_INDICES`] for indices whose values inference knows
//!   (run). Negative indices down to `-d` are accepted at every opset, Gather-1 included.
//! - GatherElements (all at run): [`GATHER_ELEMENTS_AXIS`], [`GATHER_ELEMENTS_RANK`],
//!   [`GATHER_ELEMENTS_SHAPE`] (the indices may be longer than the data on the axis itself),
//!   [`GATHER_ELEMENTS_INDICES`].
//! - GatherND (also com.microsoft's): [`GATHER_ND_RANK`], [`GATHER_ND_DEPTH`] (load);
//!   [`GATHER_ND_BATCH`] (run): onnxruntime does not compare the batch axes one by one as the spec
//!   says, only the indices' batch size (the product of its batch axes) against a multiple of the
//!   data's, which must not be 0.
//! - Scatter, ScatterElements (all at run): [`SCATTER_AXIS`], [`SCATTER_UPDATES`], [`SCATTER_RANK`],
//!   [`SCATTER_SHAPE`], [`SCATTER_INDICES`]; an empty indices tensor is checked all the same.
//! - ScatterND (all at run): [`SCATTER_ND_RANK`], [`SCATTER_ND_DEPTH`], [`SCATTER_ND_UPDATES`].
//! - Compress: [`COMPRESS_AXIS`] (load). A condition longer than the axis is truncated, not refused.
//! - OneHot: [`ONE_HOT_AXIS`] (load), [`ONE_HOT_DEPTH`] (run; 0 is refused too, though onnx's
//!   inference accepts it, and a float depth counts truncated: 0.5 is 0). Indices outside
//!   `[-depth, depth-1]` are no error: their row is all `off_value`.
//!
//! Sizes only a symbol decides against a number by an inequality (an index of 5 into a `seq` axis,
//! indices longer than a symbolic data axis) are not reported: the contract API states equalities.

use super::super::contract::{Contract, Operand};
use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::{Data, ValueInfo};
use super::common::{axis, like, product, size_of_value, values_if_small};
use crate::proto::tensor_proto::DataType;

pub fn register(r: &mut Registry) {
    r.add("", "Gather", 1, gather);
    r.add("", "GatherElements", 11, gather_elements);
    r.add("", "GatherND", 11, gather_nd);
    r.add("", "Scatter", 9, scatter_elements);
    r.add("", "ScatterElements", 11, scatter_elements);
    r.add("", "ScatterND", 11, scatter_nd);
    r.add("", "Compress", 9, compress);
    r.add("", "NonZero", 9, non_zero);
    r.add("", "OneHot", 9, one_hot);
}

pub const GATHER_AXIS: Contract = Contract::new(
    "gather-axis",
    "axis is inside the data's rank r, in [-r, r-1]",
);
pub const GATHER_INDICES: Contract = Contract::new(
    "gather-indices",
    "every index is inside the gathered axis, in [-d, d-1] for its size d",
);
pub const GATHER_ELEMENTS_AXIS: Contract = Contract::new(
    "gather-elements-axis",
    "axis is inside the data's rank r, in [-r, r-1]",
);
pub const GATHER_ELEMENTS_RANK: Contract =
    Contract::new("gather-elements-rank", "indices have the data's rank");
pub const GATHER_ELEMENTS_SHAPE: Contract = Contract::new(
    "gather-elements-shape",
    "on every axis but `axis`, the indices are no longer than the data",
);
pub const GATHER_ELEMENTS_INDICES: Contract = Contract::new(
    "gather-elements-indices",
    "every index is inside the axis, in [-d, d-1] for its size d",
);
pub const GATHER_ND_RANK: Contract =
    Contract::new("gather-nd-rank", "data and indices have rank 1 or more");
pub const GATHER_ND_DEPTH: Contract = Contract::new(
    "gather-nd-depth",
    "batch_dims plus the index depth (the indices' last axis) is at most the data's rank",
);
pub const GATHER_ND_BATCH: Contract = Contract::new(
    "gather-nd-batch",
    "the indices' batch size (the product of their first batch_dims axes) is a multiple of the \
     data's, which is not 0",
);
pub const SCATTER_AXIS: Contract = Contract::new(
    "scatter-elements-axis",
    "axis is inside the data's rank r, in [-r, r-1]",
);
pub const SCATTER_UPDATES: Contract = Contract::new(
    "scatter-elements-updates",
    "updates have the shape of the indices",
);
pub const SCATTER_RANK: Contract =
    Contract::new("scatter-elements-rank", "indices have the data's rank");
pub const SCATTER_SHAPE: Contract = Contract::new(
    "scatter-elements-shape",
    "on every axis but `axis`, the indices are no longer than the data",
);
pub const SCATTER_INDICES: Contract = Contract::new(
    "scatter-elements-indices",
    "every index is inside the axis, in [-d, d-1] for its size d",
);
pub const SCATTER_ND_RANK: Contract =
    Contract::new("scatter-nd-rank", "data and indices have rank 1 or more");
pub const SCATTER_ND_DEPTH: Contract = Contract::new(
    "scatter-nd-depth",
    "the index depth (the indices' last axis) is at most the data's rank",
);
pub const SCATTER_ND_UPDATES: Contract = Contract::new(
    "scatter-nd-updates",
    "updates have the shape indices.shape[:-1] + data.shape[m:], m the index depth",
);
pub const COMPRESS_AXIS: Contract = Contract::new(
    "compress-axis",
    "axis is inside the input's rank r, in [-r, r-1]",
);
pub const ONE_HOT_AXIS: Contract = Contract::new(
    "one-hot-axis",
    "axis is inside the output's rank r+1, in [-(r+1), r] for indices of rank r",
);
pub const ONE_HOT_DEPTH: Contract = Contract::new(
    "one-hot-depth",
    "depth is 1 or more (a float depth truncated toward zero)",
);

/// Whether the known values of input `slot` (indices, of any rank) all lie in `[-d, d-1]` for the
/// size `d` of axis `k` of input `data`; an E3 of contract `c` naming the first that does not.
/// Unknown values or an unknown size pass.
fn indices_in_range(
    ctx: &mut NodeCtx<'_>,
    c: Contract,
    slot: usize,
    data: usize,
    k: usize,
) -> bool {
    let Some(Dim::Known(d)) = ctx.shape(data).and_then(|s| s.get(k).cloned()) else {
        return true;
    };
    let Some(values) = ctx.input(slot).and_then(ValueInfo::data_i64) else {
        return true;
    };
    let d = i64::try_from(d).unwrap_or(i64::MAX);
    let outside = |&i: &i64| i < -d || i >= d;
    let Some(first) = values.iter().find(|i| outside(i)) else {
        return true;
    };
    let n = values.iter().filter(|i| outside(i)).count();
    let more = if n > 1 {
        format!(
            " ({n} of the {} indices are outside [{}, {}])",
            values.len(),
            -d,
            d - 1
        )
    } else {
        String::new()
    };
    ctx.out_of_range(
        c,
        &[data, slot],
        format_args!("index {first} into axis {k} of size {d}{more}"),
    );
    false
}

/// Gather: `data.shape[..axis] + indices.shape + data.shape[axis + 1..]`; the values of a 1-D data
/// tensor picked by known indices.
pub(super) fn gather(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let a = ctx.attr_i("axis").unwrap_or(0);
    let (data, indices) = (ctx.shape(0), ctx.shape(1));
    let k = match &data {
        Some(d) => match ctx.require_axis(GATHER_AXIS, &[0], a, d.len()) {
            Some(k) => Some(k),
            None => return vec![like(ctx, 0, None)],
        },
        None => None,
    };
    if let Some(k) = k
        && !indices_in_range(ctx, GATHER_INDICES, 1, 0, k)
    {
        return vec![like(ctx, 0, None)];
    }
    let shape: Shape = match (&data, &indices, k) {
        (Some(d), Some(q), Some(k)) => {
            let mut out = d[..k].to_vec();
            out.extend(q.iter().cloned());
            out.extend(d[k + 1..].iter().cloned());
            Some(out)
        }
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

/// GatherElements' and ScatterElements' indices (input `slot`, shaped `indices`) against the data
/// (input 0, shaped `data`, axis `k`): the same rank, and no longer on the other axes. False after
/// an E2 of `rank` or `fit`.
fn elements_fit(
    ctx: &mut NodeCtx<'_>,
    [rank, fit]: [Contract; 2],
    data: &[Dim],
    indices: &[Dim],
    k: usize,
    slot: usize,
) -> bool {
    if indices.len() != data.len() {
        ctx.broken(
            rank,
            &[0, slot],
            format_args!(
                "the indices have rank {}, the data rank {}",
                indices.len(),
                data.len()
            ),
        );
        return false;
    }
    for (i, (q, d)) in indices.iter().zip(data).enumerate() {
        if let (Dim::Known(q), Dim::Known(d)) = (q, d)
            && i != k
            && q > d
        {
            ctx.broken(
                fit,
                &[0, slot],
                format_args!("the indices' axis {i} has {q}, the data's {d}"),
            );
            return false;
        }
    }
    true
}

/// GatherElements: the shape of the indices, the element type of the data.
fn gather_elements(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (data, indices) = (ctx.shape(0), ctx.shape(1));
    if let Some(data) = &data {
        let a = ctx.attr_i("axis").unwrap_or(0);
        let Some(k) = ctx.require_axis(GATHER_ELEMENTS_AXIS, &[0], a, data.len()) else {
            return vec![like(ctx, 0, None)];
        };
        let contracts = [GATHER_ELEMENTS_RANK, GATHER_ELEMENTS_SHAPE];
        if indices
            .as_deref()
            .is_some_and(|q| !elements_fit(ctx, contracts, data, q, k, 1))
            || !indices_in_range(ctx, GATHER_ELEMENTS_INDICES, 1, 0, k)
        {
            return vec![like(ctx, 0, None)];
        }
    }
    vec![like(ctx, 0, indices)]
}

/// GatherND: `indices.shape[..q - 1] + data.shape[batch_dims + m..]` where `m` is the last dim of
/// the indices (how many leading data axes each index tuple addresses).
pub(super) fn gather_nd(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let b = ctx.attr_i("batch_dims").unwrap_or(0);
    let (data, indices) = (ctx.shape(0), ctx.shape(1));
    if !gather_nd_fits(ctx, b, data.as_deref(), indices.as_deref()) {
        return vec![like(ctx, 0, None)];
    }
    let shape = match (data, indices) {
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

/// GatherND's contracts on the shapes of its data and indices with `b` batch axes; false after a
/// break.
fn gather_nd_fits(
    ctx: &mut NodeCtx<'_>,
    b: i64,
    data: Option<&[Dim]>,
    indices: Option<&[Dim]>,
) -> bool {
    for (slot, s, name) in [(0, data, "data"), (1, indices, "indices")] {
        if s.is_some_and(<[Dim]>::is_empty) {
            ctx.broken(
                GATHER_ND_RANK,
                &[slot],
                format_args!("the {name} are a scalar"),
            );
            return false;
        }
    }
    let (Some(data), Some(indices), Ok(b)) = (data, indices, usize::try_from(b)) else {
        return true;
    };
    if let Some(Dim::Known(m)) = indices.last() {
        let depth = u64::try_from(b).unwrap_or(u64::MAX).saturating_add(*m);
        if depth > data.len() as u64 {
            ctx.broken(
                GATHER_ND_DEPTH,
                &[0, 1],
                format_args!(
                    "batch_dims {b} plus an index depth of {m} is {depth}, the data has rank {}",
                    data.len()
                ),
            );
            return false;
        }
    }
    // The batch axes: onnxruntime takes the indices' batch size in blocks of the data's, and checks
    // nothing when the output is empty (so only where it is known not to be).
    let Some(Dim::Known(m)) = indices.last() else {
        return true;
    };
    let from = usize::try_from(*m).map_or(usize::MAX, |m| m.saturating_add(b));
    let mut output = indices[..indices.len() - 1]
        .iter()
        .chain(data.iter().skip(from));
    let may_be_empty = output.any(|d| matches!(d, Dim::Unknown | Dim::Known(0)));
    if b == 0 || b >= indices.len() || may_be_empty {
        return true;
    }
    let ours = product(&data[..b]);
    let theirs = product(&indices[..b]);
    match ours {
        Dim::Known(0) => {
            ctx.broken(
                GATHER_ND_BATCH,
                &[0],
                format_args!("the data's batch size is 0"),
            );
            false
        }
        Dim::Known(n) => {
            let what = format!("the indices' batch size; the data's is {n}");
            ctx.require_multiple(
                GATHER_ND_BATCH,
                &Operand::new(what, theirs).from_input(1),
                n,
            )
        }
        // A symbolic batch size on the data's side: whether it divides is a condition the
        // contract API does not state (a size must be a multiple of a number); not reported.
        _ => true,
    }
}

/// Scatter and ScatterElements write into a copy of the data: its shape and type.
fn scatter_elements(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let data = ctx.shape(0);
    let k = match &data {
        Some(d) => {
            let a = ctx.attr_i("axis").unwrap_or(0);
            match ctx.require_axis(SCATTER_AXIS, &[0], a, d.len()) {
                Some(k) => Some(k),
                None => return vec![like(ctx, 0, None)],
            }
        }
        None => None,
    };
    let (indices, updates) = (ctx.shape(1), ctx.shape(2));
    if let (Some(q), Some(u)) = (&indices, &updates) {
        if q.len() != u.len() {
            let detail = format_args!(
                "the indices have rank {}, the updates rank {}",
                q.len(),
                u.len()
            );
            ctx.broken(SCATTER_UPDATES, &[1, 2], detail);
            return vec![like(ctx, 0, None)];
        }
        for i in 0..q.len() {
            let pair: Vec<Operand> = [ctx.operand(1, i), ctx.operand(2, i)]
                .into_iter()
                .flatten()
                .collect();
            if !ctx.require_equal(SCATTER_UPDATES, &pair) {
                return vec![like(ctx, 0, None)];
            }
        }
    }
    if let (Some(d), Some(q), Some(k)) = (&data, &indices, k)
        && !elements_fit(ctx, [SCATTER_RANK, SCATTER_SHAPE], d, q, k, 1)
    {
        return vec![like(ctx, 0, None)];
    }
    if k.is_some_and(|k| !indices_in_range(ctx, SCATTER_INDICES, 1, 0, k)) {
        return vec![like(ctx, 0, None)];
    }
    vec![like(ctx, 0, data)]
}

/// ScatterND writes into a copy of the data: its shape and type.
fn scatter_nd(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (data, indices, updates) = (ctx.shape(0), ctx.shape(1), ctx.shape(2));
    for (slot, s, name) in [(0, &data, "data"), (1, &indices, "indices")] {
        if s.as_ref().is_some_and(Vec::is_empty) {
            ctx.broken(
                SCATTER_ND_RANK,
                &[slot],
                format_args!("the {name} are a scalar"),
            );
            return vec![like(ctx, 0, None)];
        }
    }
    if let (Some(d), Some(q)) = (&data, &indices)
        && let Some(&Dim::Known(m)) = q.last()
    {
        let Some(m) = usize::try_from(m).ok().filter(|&m| m <= d.len()) else {
            let detail = format_args!("an index depth of {m}, the data has rank {}", d.len());
            ctx.broken(SCATTER_ND_DEPTH, &[0, 1], detail);
            return vec![like(ctx, 0, None)];
        };
        if let Some(u) = &updates {
            let n = q.len() - 1 + (d.len() - m);
            if u.len() != n {
                let detail = format_args!(
                    "the updates have rank {}, indices.shape[:-1] + data.shape[{m}:] rank {n}",
                    u.len()
                );
                ctx.broken(SCATTER_ND_UPDATES, &[0, 1, 2], detail);
                return vec![like(ctx, 0, None)];
            }
            // Axis i of the updates against the indices' (before the last) or the data's.
            for i in 0..n {
                let source = if i < q.len() - 1 {
                    ctx.operand(1, i)
                } else {
                    ctx.operand(0, m + i - (q.len() - 1))
                };
                let pair: Vec<Operand> =
                    [ctx.operand(2, i), source].into_iter().flatten().collect();
                if !ctx.require_equal(SCATTER_ND_UPDATES, &pair) {
                    return vec![like(ctx, 0, None)];
                }
            }
        }
    }
    vec![like(ctx, 0, data)]
}

/// Compress: with `axis`, that axis shrinks to an unknown count; without, a 1-D result.
fn compress(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = match ctx.attr_i("axis") {
        None => Some(vec![Dim::Unknown]),
        Some(a) => ctx.shape(0).and_then(|mut dims| {
            let k = ctx.require_axis(COMPRESS_AXIS, &[0], a, dims.len())?;
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
    let a = ctx.attr_i("axis").unwrap_or(-1);
    let k = match ctx.shape(0) {
        // The axis counts in the output, one rank more than the indices.
        Some(dims) => match axis(a, dims.len() + 1) {
            Some(k) => Some(k),
            None => {
                let detail = format_args!("axis {a} for indices of rank {}", dims.len());
                ctx.out_of_range(ONE_HOT_AXIS, &[0], detail);
                return vec![ValueInfo::tensor(ctx.elem(2), None)];
            }
        },
        None => None,
    };
    // Depth may be of any numeric type; onnxruntime converts a float one with static_cast (toward
    // zero), kept only where that is defined.
    let depth = match (ctx.data(1), ctx.floats(1)) {
        (Some([d]), _) => match super::super::value::as_i64(d) {
            Some(v) if v < 1 => Err(format!("depth {v}")),
            _ => Ok(size_of_value(d)),
        },
        (_, Some([f])) if f.is_finite() && f.trunc() < 1.0 => {
            Err(format!("depth {f}, {} truncated", f.trunc()))
        }
        (_, Some([f])) if f.is_finite() && f.trunc() < 9.2e18 => Ok(Dim::Known(f.trunc() as u64)),
        _ => Ok(Dim::Unknown),
    };
    let depth = match depth {
        Ok(d) => d,
        Err(detail) => {
            ctx.out_of_range(ONE_HOT_DEPTH, &[1], detail);
            return vec![ValueInfo::tensor(ctx.elem(2), None)];
        }
    };
    let shape = ctx.shape(0).zip(k).map(|(mut dims, k)| {
        dims.insert(k, depth);
        dims
    });
    vec![ValueInfo::tensor(ctx.elem(2), shape)]
}

#[cfg(test)]
mod tests {
    use super::super::super::registry::Rule;
    use super::super::common::test_util::*;
    use super::*;
    use crate::proto::NodeProto;

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
            out_shape(scatter_nd, &n, 13, &[t(F32, &["N", "3"]), None, None]),
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

    /// The findings of `rule`, each "CODE contract".
    fn short(rule: Rule, n: &NodeProto, opset: i64, inputs: &[Option<ValueInfo>]) -> Vec<String> {
        findings(rule, n, opset, inputs)
            .iter()
            .map(|d| format!("{} {}", d.code.as_str(), d.contract.unwrap_or("-")))
            .collect()
    }

    #[test]
    fn gather_axis_and_indices() {
        let n = |a: i64| node("Gather", 2, 1, vec![attr_i("axis", a)]);
        let x = || t(F32, &["N", "4"]);
        assert!(codes_at(gather, &n(-1), 13, &[x(), ints(&[-4, 3])]).is_empty());
        assert!(codes_at(gather, &n(1), 1, &[x(), ints(&[-4, 3])]).is_empty());
        let c = codes_at(gather, &n(2), 13, &[x(), ints(&[0])]);
        assert_eq!(
            c,
            [
                "E3 'n' (Gather) breaks the contract gather-axis: axis is inside the data's rank r, in \
              [-r, r-1]; here axis 2 of a tensor of rank 2"
            ]
        );
        assert_eq!(
            short(gather, &n(0), 13, &[t(F32, &[]), int(0)]),
            ["E3 gather-axis"]
        );
        let c = codes_at(gather, &n(1), 13, &[x(), ints(&[0, 4, -5])]);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(
            c[0].starts_with("E3 'n' (Gather) breaks the contract gather-indices: ")
                && c[0].ends_with(
                    "here index 4 into axis 1 of size 4 (2 of the 3 indices are outside [-4, 3])"
                ),
            "{c:?}"
        );
        assert_eq!(out_shape(gather, &n(1), 13, &[x(), ints(&[4])]), None);
        assert_eq!(
            short(gather, &n(0), 13, &[t(F32, &["0"]), int(0)]),
            ["E3 gather-indices"]
        );
        // A symbolic axis: nothing known of its size.
        assert!(codes_at(gather, &n(0), 13, &[x(), ints(&[7])]).is_empty());
    }

    #[test]
    fn gather_elements_contracts() {
        let n = |a: i64| node("GatherElements", 2, 1, vec![attr_i("axis", a)]);
        let x = || t(F32, &["3", "4"]);
        // The indices may be longer than the data on the axis itself.
        assert!(codes_at(gather_elements, &n(0), 13, &[x(), t(I64, &["7", "4"])]).is_empty());
        assert!(codes_at(gather_elements, &n(1), 13, &[x(), t(I64, &["K", "2"])]).is_empty());
        assert_eq!(
            short(gather_elements, &n(2), 13, &[x(), t(I64, &["3", "4"])]),
            ["E3 gather-elements-axis"]
        );
        let c = codes_at(gather_elements, &n(0), 13, &[x(), t(I64, &["3"])]);
        assert!(
            c[0].starts_with("E2 ")
                && c[0].contains("gather-elements-rank")
                && c[0].ends_with("here the indices have rank 1, the data rank 2"),
            "{c:?}"
        );
        let c = codes_at(gather_elements, &n(0), 13, &[x(), t(I64, &["2", "5"])]);
        assert!(
            c[0].starts_with("E2 ")
                && c[0].contains("gather-elements-shape")
                && c[0].ends_with("here the indices' axis 1 has 5, the data's 4"),
            "{c:?}"
        );
        let v = Some(ValueInfo::tensor(F32, shape(&["3"])));
        assert!(codes_at(gather_elements, &n(0), 13, &[v.clone(), ints(&[-3, 2])]).is_empty());
        assert_eq!(
            short(gather_elements, &n(0), 13, &[v, ints(&[3])]),
            ["E3 gather-elements-indices"]
        );
    }

    #[test]
    fn gather_nd_contracts() {
        let n = |b: i64| node("GatherND", 2, 1, vec![attr_i("batch_dims", b)]);
        assert!(
            codes_at(
                gather_nd,
                &n(0),
                13,
                &[t(F32, &["3", "4"]), t(I64, &["5", "2"])]
            )
            .is_empty()
        );
        assert_eq!(
            short(gather_nd, &n(0), 13, &[t(F32, &["3", "4"]), t(I64, &[])]),
            ["E2 gather-nd-rank"]
        );
        let c = codes_at(
            gather_nd,
            &n(1),
            13,
            &[t(F32, &["3", "4"]), t(I64, &["3", "2"])],
        );
        assert!(
            c[0].starts_with("E2 ")
                && c[0].contains("gather-nd-depth")
                && c[0].ends_with(
                    "here batch_dims 1 plus an index depth of 2 is 3, the data has rank 2"
                ),
            "{c:?}"
        );
        // The batch: the indices' size a multiple of the data's, unless the output is empty.
        let nd = |data: &[&str], indices: &[&str]| {
            codes_at(gather_nd, &n(1), 13, &[t(F32, data), t(I64, indices)])
        };
        assert!(nd(&["3", "4"], &["6", "1"]).is_empty());
        assert!(nd(&["B", "4"], &["B", "1"]).is_empty());
        assert!(nd(&["0", "4"], &["0", "1"]).is_empty());
        assert!(nd(&["2", "4", "0"], &["1", "1"]).is_empty());
        let c = nd(&["3", "4"], &["2", "1"]);
        assert!(
            c[0].starts_with("E2 ")
                && c[0].contains("gather-nd-batch")
                && c[0].ends_with(
                    "here 2 (the indices' batch size; the data's is 3) is not a multiple of 3"
                ),
            "{c:?}"
        );
        let c = nd(&["0", "4"], &["3", "1"]);
        assert!(
            c[0].starts_with("E2 ") && c[0].ends_with("the data's batch size is 0"),
            "{c:?}"
        );
        let c = nd(&["2", "4"], &["B", "1"]);
        assert!(
            c[0].starts_with("W2 ") && c[0].contains("gather-nd-batch"),
            "{c:?}"
        );
    }

    #[test]
    fn scatter_elements_contracts() {
        let n = |a: i64| node("ScatterElements", 3, 1, vec![attr_i("axis", a)]);
        let x = || t(F32, &["3", "4"]);
        let sc = |a: i64, q: &[&str], u: &[&str]| {
            short(scatter_elements, &n(a), 18, &[x(), t(I64, q), t(F32, u)])
        };
        assert!(sc(0, &["5", "4"], &["5", "4"]).is_empty());
        assert!(sc(-1, &["N", "2"], &["N", "2"]).is_empty());
        assert_eq!(
            sc(2, &["2", "4"], &["2", "4"]),
            ["E3 scatter-elements-axis"]
        );
        assert_eq!(
            sc(0, &["2", "4"], &["2", "3"]),
            ["E2 scatter-elements-updates"]
        );
        assert_eq!(sc(0, &["2", "4"], &["8"]), ["E2 scatter-elements-updates"]);
        assert_eq!(
            sc(0, &["N", "4"], &["M", "4"]),
            ["W2 scatter-elements-updates"]
        );
        assert_eq!(sc(0, &["4"], &["4"]), ["E2 scatter-elements-rank"]);
        assert_eq!(
            sc(0, &["2", "5"], &["2", "5"]),
            ["E2 scatter-elements-shape"]
        );
        let v = || Some(ValueInfo::tensor(F32, shape(&["3"])));
        let n9 = node("Scatter", 3, 1, vec![]);
        assert!(
            codes_at(
                scatter_elements,
                &n9,
                9,
                &[v(), ints(&[-3, 2]), t(F32, &["2"])]
            )
            .is_empty()
        );
        let c = codes_at(scatter_elements, &n9, 9, &[v(), ints(&[3]), t(F32, &["1"])]);
        assert!(
            c[0].starts_with("E3 ")
                && c[0].contains("scatter-elements-indices")
                && c[0].ends_with("here index 3 into axis 0 of size 3"),
            "{c:?}"
        );
    }

    #[test]
    fn scatter_nd_contracts() {
        let n = node("ScatterND", 3, 1, vec![]);
        let snd = |q: &[&str], u: &[&str]| {
            short(
                scatter_nd,
                &n,
                18,
                &[t(F32, &["3", "4"]), t(I64, q), t(F32, u)],
            )
        };
        assert!(snd(&["2", "1"], &["2", "4"]).is_empty());
        assert!(snd(&["N", "2"], &["N"]).is_empty());
        assert_eq!(snd(&[], &["4"]), ["E2 scatter-nd-rank"]);
        assert_eq!(snd(&["2", "3"], &["2"]), ["E2 scatter-nd-depth"]);
        assert_eq!(snd(&["2", "1"], &["2", "3"]), ["E2 scatter-nd-updates"]);
        assert_eq!(snd(&["2", "1"], &["3", "4"]), ["E2 scatter-nd-updates"]);
        assert_eq!(snd(&["2", "1"], &["2"]), ["E2 scatter-nd-updates"]);
        assert_eq!(snd(&["N", "1"], &["M", "4"]), ["W2 scatter-nd-updates"]);
        let c = codes_at(
            scatter_nd,
            &n,
            18,
            &[t(F32, &["3", "4"]), t(I64, &["2", "1"]), t(F32, &["2"])],
        );
        assert!(
            c[0].ends_with(
                "here the updates have rank 1, indices.shape[:-1] + data.shape[1:] rank 2"
            ),
            "{c:?}"
        );
    }

    #[test]
    fn compress_and_one_hot_contracts() {
        let n = |a: i64| node("Compress", 2, 1, vec![attr_i("axis", a)]);
        assert!(codes_at(compress, &n(-2), 11, &[t(F32, &["N", "3"]), None]).is_empty());
        assert_eq!(
            short(compress, &n(2), 11, &[t(F32, &["N", "3"]), None]),
            ["E3 compress-axis"]
        );
        let n = |a: i64| node("OneHot", 3, 1, vec![attr_i("axis", a)]);
        let q = || t(I64, &["N"]);
        assert!(codes_at(one_hot, &n(1), 11, &[q(), int(5), None]).is_empty());
        assert_eq!(
            out_shape(one_hot, &n(-2), 11, &[q(), int(5), None]),
            shape(&["5", "N"])
        );
        let c = codes_at(one_hot, &n(2), 11, &[q(), int(5), None]);
        assert!(
            c[0].starts_with("E3 ")
                && c[0].contains("one-hot-axis")
                && c[0].ends_with("here axis 2 for indices of rank 1"),
            "{c:?}"
        );
        assert_eq!(
            short(one_hot, &n(-3), 11, &[q(), int(5), None]),
            ["E3 one-hot-axis"]
        );
        assert_eq!(
            short(one_hot, &n(-1), 11, &[q(), int(0), None]),
            ["E3 one-hot-depth"]
        );
        assert_eq!(
            short(one_hot, &n(-1), 9, &[q(), ints(&[-2]), None]),
            ["E3 one-hot-depth"]
        );
        let half = Some(
            ValueInfo::tensor(F32, shape(&[])).with_values(Some(Data::Floats(Box::new([0.5])))),
        );
        let c = codes_at(one_hot, &n(-1), 11, &[q(), half, None]);
        assert!(
            c[0].starts_with("E3 ") && c[0].ends_with("here depth 0.5, 0 truncated"),
            "{c:?}"
        );
    }
}
