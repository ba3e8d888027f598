//! Tensors cut, repeated and padded: Slice, Tile, Pad and CenterCropPad. Slice lengths follow
//! NumPy's clamping, symbolically where the result is exact (a Slice `[:seq]` of 512 is
//! `min(seq, 512)`).
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#Slice> and the pages of each op.
//! Opset history that matters here:
//! - Slice: `starts`/`ends`/`axes` attributes before 10; inputs with `steps` from 10.
//! - Tile: opset 1 takes scalar `tiles` and `axis` inputs; `repeats` (one per axis) from 6.
//! - Pad: attribute `paddings` in 1, `pads` in 2, input from 11; 18 adds the `axes` input.
//! - CenterCropPad (18): the axes in `axes` (all by default) take the sizes of input `shape`.
//!
//! Contracts, each measured against onnxruntime 1.31 (`tests/conformance/contracts/cases_slice_pad.py`;
//! onnx's inference refuses the constant ones at load, the kernels the others at run):
//! - Slice: [`SLICE_LENGTHS`], [`SLICE_AXES`] (inside the rank, none twice; without axes no more
//!   starts than axes), [`SLICE_STEPS`] (no 0, an empty axis included). Starts and ends are clamped:
//!   never a finding.
//! - Tile (6 on): [`TILE_REPEATS`] (one per axis), [`TILE_REPEATS_VALUE`] (none negative; the kernel).
//! - Pad (2 on; onnxruntime has no Pad-1): [`PAD_PADS`], [`PAD_AXES`] (inside the rank: repeated axes
//!   run when computed, the last pads winning, so they are not reported), [`PAD_CROP`] (a padded size
//!   below 0), [`PAD_SOURCE`] and [`PAD_REFLECT`]. The last two were measured case by case: reflect
//!   refuses a pad as wide as the axis after cropping (the size-1 axis padded included), edge and wrap
//!   take any width; edge, reflect and wrap refuse to crop an axis to nothing, edge and reflect to pad
//!   an empty axis (where no pad is negative: with a crop elsewhere an empty input may run), wrap any
//!   input with an empty axis. With an empty or unknown axis anywhere the kernel's early exits make
//!   the width and crop rules input-dependent, so they are only checked where every axis is known
//!   non-empty (a symbol counts as 1 or more).
//! - CenterCropPad (no kernel: its function body runs): [`CENTER_CROP_PAD_AXES`],
//!   [`CENTER_CROP_PAD_SHAPE`] (a single size broadcasts over the axes when `shape` is computed, so a
//!   length of 1 is not reported).

use super::sizes_of;
use crate::shape::contract::Contract;
use crate::shape::ctx::NodeCtx;
use crate::shape::dim::{Dim, Poly};
use crate::shape::ops::common::{
    Param, axes, axis, ints_attr_or_input, len_1d, like, mul, shift, size_of_value, values_if_small,
};
use crate::shape::value::{Data, MAX_DATA_ELEMENTS, ValueInfo, as_i64, from_i64};

/// Exporters spell "to the end" as INT_MAX or INT64_MAX (and "from the very end" as their negatives).
/// A symbolic size is taken to be below 2^31 - 1: no axis of a real tensor reaches it.
pub(super) const HUGE: i64 = i32::MAX as i64;

/// The values of a Slice parameter: attribute before opset 10, input from 10.
fn slice_param(ctx: &NodeCtx<'_>, name: &str, slot: usize) -> Param<Dim> {
    if ctx.opset < 10 {
        return ctx
            .attr_ints(name)
            .map(|v| v.iter().map(|&x| from_i64(x)).collect())
            .into();
    }
    if !ctx.has_input(slot) {
        return Param::Absent;
    }
    ctx.data(slot)
        .map_or(Param::Unknown, |d| Param::Known(d.to_vec()))
}

/// The positions a slice of a known-length axis visits, numpy style: bounds clamped, negative ones
/// counted from the end. `None` when the step is 0 (invalid).
fn slice_range(n: u64, start: i64, end: i64, step: i64) -> Option<(i128, i128, i128)> {
    if step == 0 {
        return None;
    }
    let (n, mut s, mut e, st) = (
        i128::from(n),
        i128::from(start),
        i128::from(end),
        i128::from(step),
    );
    if s < 0 {
        s += n;
    }
    if e < 0 {
        e += n;
    }
    if step > 0 {
        s = s.clamp(0, n);
        e = e.clamp(0, n);
    } else {
        // n >= 1 here: an empty axis was handled by the caller.
        s = s.clamp(0, n - 1);
        e = e.clamp(-1, n - 1);
    }
    Some((s, e, st))
}

/// How many positions `slice_range` visits.
fn slice_count(s: i128, e: i128, st: i128) -> u64 {
    let n = if st > 0 {
        (e - s + st - 1) / st
    } else {
        (s - e + (-st) - 1) / (-st)
    };
    u64::try_from(n.max(0)).unwrap_or(0)
}

/// Where a slice bound of a forward (step 1) slice lands on an axis of symbolic size `dim`, when that
/// is an exact expression: a bound is clamped to `[0, dim]` after a negative one is counted from the
/// end, so it is exact only where the clamping surely does nothing (or surely clamps to an end).
fn forward_position(dim: &Poly, bound: &Dim) -> Option<Poly> {
    let at = match as_i64(bound) {
        Some(v) if v >= HUGE => return Some(dim.clone()),
        Some(v) if v <= -HUGE => return Some(Poly::constant(0)),
        Some(v) if v < 0 => dim.add(&Poly::constant(v))?,
        Some(v) => Poly::constant(v),
        // A symbolic bound is a position from the start, unless it may be negative.
        None => {
            let p = Poly::of_value(bound)?;
            (p.lower_bound()? >= 0).then_some(p)?
        }
    };
    // 0 <= at <= dim for every value of the symbols.
    let room = dim.sub(&at)?;
    (at.lower_bound()? >= 0 && room.lower_bound()? >= 0).then_some(at)
}

/// The length of a forward slice of an axis of symbolic size, when exact: `seq+1` sliced from 1 is
/// `seq`; `seq` sliced from 1 is unknown (`max(seq - 1, 0)`).
fn forward_slice_len(dim: &Dim, start: &Dim, end: &Dim) -> Option<Dim> {
    let n = Poly::of_size(dim)?;
    let len = forward_position(&n, end)?.sub(&forward_position(&n, start)?)?;
    match len.as_constant() {
        Some(c) => Some(Dim::Known(u64::try_from(c).unwrap_or(0))),
        // A span surely not positive is an empty slice.
        None if len.never_positive() => Some(Dim::Known(0)),
        None if len.lower_bound()? >= 0 => Some(len.into_size()),
        None => None,
    }
}

/// Where a slice bound lands on an axis of size `n`: a negative number counts from the end, then the
/// position is clamped below by `lo` and above by `hi` where given (`min(max(v, lo), hi)`); a number
/// at or beyond [`HUGE`] is `past` ("to the end"), one at or below `-HUGE` is `before`. A symbolic
/// bound must be surely non-negative (a size): whether one that may be negative counts from the end
/// is not an expression.
fn clamped_position(
    n: &Poly,
    bound: &Dim,
    (lo, hi): (Option<&Poly>, Option<&Poly>),
    (before, past): (&Poly, &Poly),
) -> Option<Poly> {
    let v = match bound {
        Dim::Known(_) => match as_i64(bound)? {
            v if v >= HUGE => return Some(past.clone()),
            v if v <= -HUGE => return Some(before.clone()),
            v if v < 0 => n.add(&Poly::constant(v))?,
            v => Poly::constant(v),
        },
        Dim::Sym(_) => {
            Some(Poly::of_value(bound)?).filter(|p| p.lower_bound().is_some_and(|b| b >= 0))?
        }
        Dim::Unknown => return None,
    };
    let v = match lo {
        Some(lo) => Poly::max(&[v, lo.clone()])?,
        None => v,
    };
    match hi {
        Some(hi) => Poly::min(&[v, hi.clone()]),
        None => Some(v),
    }
}

/// The length of a sliced axis of symbolic size or with symbolic bounds, exactly, with the clamping
/// written as min and max (a `[1, 512]` tensor sliced `[:, :seq]` is `[1, min(seq, 512)]`).
///
/// ONNX clamps a forward (step `k > 0`) start and end to `[0, n]` and the length is
/// `max(ceil((end' - start') / k), 0)`. A start beyond `n` or an end below 0 gives a span `<= 0`
/// whether clamped or not, so only `start' = max(start, 0)` and `end' = min(end, n)` are written,
/// which keeps the expressions short (`max(seq - 1, 0)` for `[1:]` of `seq`). Backward (`k < 0`)
/// the start is clamped to `[0, n-1]` and the end to `[-1, n-1]`, length
/// `max(ceil((start' - end') / -k), 0)`: there `start' = min(max(start, 0), n - 1)` (on an empty
/// axis that is -1, so the length is 0 as onnxruntime's) and `end' = max(end, -1)` (an end beyond
/// `n - 1` gives a span `<= 0` either way). `None` where the algebra has no expression for it.
fn clamped_slice_len(dim: &Dim, start: &Dim, end: &Dim, step: i64) -> Option<Dim> {
    let n = Poly::of_size(dim)?;
    let zero = Poly::constant(0);
    let (span, k) = if step > 0 {
        let s = clamped_position(&n, start, (Some(&zero), None), (&zero, &n))?;
        let e = clamped_position(&n, end, (None, Some(&n)), (&zero, &n))?;
        (e.sub(&s)?, step)
    } else if step < 0 {
        let (minus_one, last) = (Poly::constant(-1), n.sub(&Poly::constant(1))?);
        let first = Poly::min(&[zero.clone(), last.clone()])?;
        let s = clamped_position(&n, start, (Some(&zero), Some(&last)), (&first, &last))?;
        let e = clamped_position(&n, end, (Some(&minus_one), None), (&minus_one, &last))?;
        (s.sub(&e)?, step.checked_neg()?)
    } else {
        return None;
    };
    let len = Poly::max(&[span.ceil_div(k)?, zero])?;
    Some(len.into_size())
}

/// The length of one sliced axis.
fn slice_len(dim: &Dim, start: &Dim, end: &Dim, step: i64) -> Dim {
    if let (Dim::Known(n), Some(s), Some(e)) = (dim, as_i64(start), as_i64(end)) {
        if *n == 0 {
            return if step == 0 {
                Dim::Unknown
            } else {
                Dim::Known(0)
            };
        }
        return match slice_range(*n, s, e, step) {
            Some((s, e, st)) => Dim::Known(slice_count(s, e, st)),
            None => Dim::Unknown,
        };
    }
    if step == 1
        && let Some(len) = forward_slice_len(dim, start, end)
    {
        return len;
    }
    // Otherwise only a whole-axis slice is known.
    let whole = match step {
        1 => {
            let from_start = as_i64(start).is_some_and(|s| s == 0 || s <= -HUGE);
            let to_end =
                as_i64(end).is_some_and(|e| e >= HUGE) || (end == dim && dim != &Dim::Unknown);
            from_start && to_end
        }
        -1 => {
            let from_end = as_i64(start).is_some_and(|s| s == -1 || s >= HUGE);
            let to_start = as_i64(end).is_some_and(|e| e <= -HUGE);
            from_end && to_start
        }
        _ => false,
    };
    if whole {
        return dim.clone();
    }
    clamped_slice_len(dim, start, end, step).unwrap_or(Dim::Unknown)
}

pub const SLICE_LENGTHS: Contract = Contract::new(
    "slice-lengths",
    "starts, ends, axes and steps (those given) have one length",
);
pub const SLICE_AXES: Contract = Contract::new(
    "slice-axes",
    "each sliced axis (those of axes; without axes, 0 to len(starts)-1) is an axis of the input, in \
     [-rank, rank-1], none twice",
);
pub const SLICE_STEPS: Contract = Contract::new("slice-steps", "no step is 0");

/// The lengths of Slice's lists that are known, with their names: attributes before opset 10,
/// inputs from 10 (their values, or their 1-D shape: onnxruntime's kernel compares the shapes).
fn slice_lengths(ctx: &NodeCtx<'_>) -> Vec<(&'static str, u64)> {
    const NAMES: [&str; 4] = ["starts", "ends", "axes", "steps"];
    if ctx.opset < 10 {
        return NAMES[..3]
            .iter()
            .filter_map(|&n| Some((n, ctx.attr_ints(n)?.len() as u64)))
            .collect();
    }
    NAMES
        .iter()
        .enumerate()
        .filter(|&(i, _)| ctx.has_input(i + 1))
        .filter_map(|(i, &n)| Some((n, len_1d(ctx, i + 1)?)))
        .collect()
}

/// Checks Slice's contracts on an input of rank `rank` (the axes only where it is known); false
/// when one is broken. The starts and ends themselves are never out of range: onnxruntime clamps
/// them.
fn slice_contracts(
    ctx: &mut NodeCtx<'_>,
    rank: Option<usize>,
    axes_list: &Param<i64>,
    steps: &Param<i64>,
) -> bool {
    let slots: Vec<usize> = if ctx.opset < 10 {
        vec![0]
    } else {
        (0..5).filter(|&s| ctx.has_input(s)).collect()
    };
    let lens = slice_lengths(ctx);
    if let Some(&(first, n)) = lens.first()
        && let Some(&(name, len)) = lens.iter().find(|&&(_, l)| l != n)
    {
        let detail = format!("{first} has {n} values, {name} {len}");
        ctx.broken(SLICE_LENGTHS, &slots, detail);
        return false;
    }
    match (axes_list, rank) {
        (Param::Known(list), Some(rank)) => {
            let mut seen = Vec::with_capacity(list.len());
            for &a in list {
                let Some(k) = ctx.require_axis(SLICE_AXES, &slots, a, rank) else {
                    return false;
                };
                if seen.contains(&k) {
                    let detail = format!("axis {a} names input axis {k} twice");
                    ctx.out_of_range(SLICE_AXES, &slots, detail);
                    return false;
                }
                seen.push(k);
            }
        }
        // Without axes, the i-th start slices axis i.
        (Param::Absent, Some(rank)) => {
            if let Some(&(first, n)) = lens.first()
                && n > rank as u64
            {
                let detail =
                    format!("{n} values in {first} without axes, for an input of rank {rank}");
                ctx.out_of_range(SLICE_AXES, &slots, detail);
                return false;
            }
        }
        _ => {}
    }
    if let Param::Known(s) = steps
        && let Some(j) = s.iter().position(|&v| v == 0)
    {
        ctx.out_of_range(SLICE_STEPS, &slots, format_args!("step {j} is 0"));
        return false;
    }
    true
}

pub(super) fn slice(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let elem = ctx.elem(0);
    let starts = slice_param(ctx, "starts", 1);
    let ends = slice_param(ctx, "ends", 2);
    let axes_list = if ctx.opset < 10 {
        ctx.attr_ints("axes").map(<[i64]>::to_vec).into()
    } else {
        ints_attr_or_input(ctx, "axes", 3, 10)
    };
    let steps = if ctx.opset < 10 {
        Param::Absent
    } else {
        ints_attr_or_input(ctx, "steps", 4, 10)
    };
    let dims = ctx.shape(0);
    if !slice_contracts(ctx, dims.as_ref().map(Vec::len), &axes_list, &steps) {
        return vec![ValueInfo::tensor(elem, None)];
    }
    let Some(dims) = dims else {
        return vec![ValueInfo::tensor(elem, None)];
    };
    let r = dims.len();
    let (Param::Known(starts), Param::Known(ends)) = (starts, ends) else {
        // Parameters not known: which axes shrink may be, so only the rank is.
        return vec![ValueInfo::tensor(elem, Some(vec![Dim::Unknown; r]))];
    };
    let n = starts.len();
    let (axes_list, steps) = match (axes_list, steps) {
        (Param::Unknown, _) | (_, Param::Unknown) => {
            return vec![ValueInfo::tensor(elem, Some(vec![Dim::Unknown; r]))];
        }
        (a, s) => (
            known_or(a, || (0..n as i64).collect()),
            known_or(s, || vec![1; n]),
        ),
    };
    let valid = ends.len() == n && axes_list.len() == n && steps.len() == n;
    let Some(which) = axes(&axes_list, r).filter(|_| valid) else {
        return vec![ValueInfo::tensor(elem, Some(vec![Dim::Unknown; r]))];
    };
    let mut out = dims.clone();
    for (j, &a) in which.iter().enumerate() {
        out[a] = slice_len(&dims[a], &starts[j], &ends[j], steps[j]);
    }
    let data = slice_data(&dims, ctx.values(0), &which, &starts, &ends, &steps);
    let shape = Some(out);
    let data = values_if_small(&shape, data);
    vec![ValueInfo::tensor(elem, shape).with_values(data)]
}

/// The values of a sliced tensor of known sizes (row-major): on each axis the positions
/// [`slice_range`] visits, every other axis whole.
pub(super) fn slice_data(
    dims: &[Dim],
    values: Option<&Data>,
    which: &[usize],
    starts: &[Dim],
    ends: &[Dim],
    steps: &[i64],
) -> Option<Data> {
    let values = values?;
    let sizes: Vec<u64> = dims.iter().map(Dim::known).collect::<Option<_>>()?;
    // The values must be those of the whole tensor, which also bounds every size by their number.
    if sizes.iter().try_fold(1u64, |a, &n| a.checked_mul(n)) != Some(values.len() as u64) {
        return None;
    }
    // An empty tensor sliced is empty (an empty axis stays empty).
    if values.is_empty() {
        return Some(values.clone());
    }
    let mut picks: Vec<Vec<usize>> = sizes.iter().map(|&n| (0..n as usize).collect()).collect();
    for (j, &a) in which.iter().enumerate() {
        let n = sizes[a];
        if n == 0 {
            continue;
        }
        let (s, e, st) = slice_range(n, as_i64(&starts[j])?, as_i64(&ends[j])?, steps[j])?;
        let count = slice_count(s, e, st);
        picks[a] = (0..count)
            .map(|i| usize::try_from(s + i128::from(i) * st).ok())
            .collect::<Option<_>>()?;
    }
    // Row-major: the flat position of each picked element, last axis fastest.
    let mut order: Vec<usize> = vec![0];
    for (a, p) in picks.iter().enumerate() {
        let n = usize::try_from(sizes[a]).ok()?;
        let mut next = Vec::with_capacity(order.len().checked_mul(p.len())?);
        for &base in &order {
            for &i in p {
                next.push(base.checked_mul(n)?.checked_add(i)?);
            }
        }
        if next.len() as u64 > MAX_DATA_ELEMENTS {
            return None;
        }
        order = next;
    }
    values.pick(order)
}

pub const TILE_REPEATS: Contract =
    Contract::new("tile-repeats", "repeats holds one value per input axis");
pub const TILE_REPEATS_VALUE: Contract =
    Contract::new("tile-repeats-value", "every repeat is 0 or more");

/// Checks Tile's (opset 6) repeats against an input of rank `rank`, where known; false when broken.
/// Both are onnxruntime's kernel's checks at run (onnx's inference also checks the length at load).
fn tile_contracts(ctx: &mut NodeCtx<'_>, rank: Option<usize>) -> bool {
    if let (Some(n), Some(rank)) = (len_1d(ctx, 1), rank)
        && n != rank as u64
    {
        let detail = format!("{n} repeats for an input of rank {rank}");
        ctx.broken(TILE_REPEATS, &[0, 1], detail);
        return false;
    }
    let negative = ctx.data(1).and_then(|reps| {
        reps.iter()
            .enumerate()
            .find_map(|(a, t)| as_i64(t).filter(|&v| v < 0).map(|v| (a, v)))
    });
    if let Some((a, v)) = negative {
        let detail = format!("a repeat of {v} for axis {a}");
        ctx.out_of_range(TILE_REPEATS_VALUE, &[1], detail);
        return false;
    }
    true
}

pub(super) fn tile(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let rank = ctx.shape(0).map(|s| s.len());
    if ctx.opset >= 6 && !tile_contracts(ctx, rank) {
        return vec![like(ctx, 0, None)];
    }
    let Some(dims) = ctx.shape(0) else {
        return vec![like(ctx, 0, None)];
    };
    let shape = if ctx.opset < 6 {
        // Opset 1: `tiles` copies along the single axis `axis`, both scalar inputs.
        let (tiles, at) = (ctx.data_i64(1), ctx.data_i64(2));
        match (tiles.as_deref(), at.as_deref()) {
            (Some([t]), Some([a])) => axis(*a, dims.len()).map(|k| {
                let mut out = dims.clone();
                out[k] = times(&dims[k], *t);
                out
            }),
            _ => Some(vec![Dim::Unknown; dims.len()]),
        }
    } else {
        // Repeats may be computed, symbols included (`Tile(x, Concat(batch, 1))`).
        match ctx.data(1) {
            Some(reps) if reps.len() == dims.len() => Some(
                dims.iter()
                    .zip(reps)
                    .map(|(d, t)| mul(d, &size_of_value(t)))
                    .collect(),
            ),
            _ => Some(vec![Dim::Unknown; dims.len()]),
        }
    };
    vec![like(ctx, 0, shape)]
}

/// The values of a parameter, or its default when absent (the caller has ruled out unknown ones).
fn known_or<T>(p: Param<T>, default: impl FnOnce() -> Vec<T>) -> Vec<T> {
    match p {
        Param::Known(v) => v,
        _ => default(),
    }
}

/// `d` repeated `t` times (a negative count is invalid).
fn times(d: &Dim, t: i64) -> Dim {
    u64::try_from(t).map_or(Dim::Unknown, |t| mul(d, &Dim::Known(t)))
}

pub const PAD_PADS: Contract = Contract::new(
    "pad-pads",
    "pads holds a begin and an end for each padded axis: 2 * rank values, or 2 * len(axes)",
);
pub const PAD_AXES: Contract = Contract::new(
    "pad-axes",
    "each axis is an axis of the input, in [-rank, rank-1]",
);
pub const PAD_CROP: Contract = Contract::new(
    "pad-crop",
    "negative pads remove at most the axis: each padded size is 0 or more",
);
pub const PAD_SOURCE: Contract = Contract::new(
    "pad-source",
    "edge, reflect and wrap copy from the input: no axis is cropped to nothing, no empty axis is \
     padded (with no negative pads), and wrap takes no input with an empty axis",
);
pub const PAD_REFLECT: Contract = Contract::new(
    "pad-reflect",
    "in reflect mode each pad is smaller than its axis's size after cropping",
);

/// Checks Pad's contracts (opset 2 on: onnxruntime has no Pad-1 kernel) on an input shaped `dims`;
/// false when one is broken. Which of onnxruntime's checks hold for every input was measured: its
/// kernel leaves an input with an empty axis alone in more ways than one, so the extent rules of
/// [`PAD_SOURCE`] and [`PAD_REFLECT`] are only applied where no axis is empty or unknown, and the
/// empty axis padded only where no pad is negative.
fn pad_contracts(
    ctx: &mut NodeCtx<'_>,
    dims: &[Dim],
    pads: &Param<Dim>,
    pad_axes: &Param<i64>,
) -> bool {
    let r = dims.len();
    let slots: Vec<usize> = if ctx.opset < 11 {
        vec![0]
    } else {
        [0, 1, 3]
            .into_iter()
            .filter(|&s| ctx.has_input(s))
            .collect()
    };
    let which: Option<Vec<usize>> = match pad_axes {
        Param::Known(list) => {
            let mut which = Vec::with_capacity(list.len());
            for &a in list {
                let Some(k) = ctx.require_axis(PAD_AXES, &slots, a, r) else {
                    return false;
                };
                which.push(k);
            }
            Some(which)
        }
        Param::Absent => Some((0..r).collect()),
        Param::Unknown => None,
    };
    let n_axes = match (&which, pad_axes) {
        (Some(w), _) => Some(w.len() as u64),
        _ => len_1d(ctx, 3),
    };
    let n_pads = match pads {
        Param::Known(p) => Some(p.len() as u64),
        Param::Unknown if ctx.opset >= 11 => len_1d(ctx, 1),
        _ => None,
    };
    if let (Some(np), Some(na)) = (n_pads, n_axes)
        && Some(np) != na.checked_mul(2)
    {
        let detail = match pad_axes {
            Param::Absent => format!("{np} pads for an input of rank {r}"),
            _ => format!("{np} pads for {na} axes"),
        };
        ctx.broken(PAD_PADS, &slots, detail);
        return false;
    }
    let (Param::Known(p), Some(which)) = (pads, which) else {
        return true;
    };
    let Some(p) = p.iter().map(as_i64).collect::<Option<Vec<i64>>>() else {
        return true;
    };
    // Per input axis; an axis named twice takes its last pads, as in onnxruntime.
    let n = which.len();
    let (mut pre, mut post) = (vec![0i64; r], vec![0i64; r]);
    for (j, &a) in which.iter().enumerate() {
        pre[a] = p[j];
        post[a] = p[j + n];
    }
    for a in 0..r {
        if let Dim::Known(d) = dims[a] {
            let size = i128::from(d) + i128::from(pre[a]) + i128::from(post[a]);
            if size < 0 {
                let detail = format!(
                    "axis {a} of size {d} padded by {} and {}: {size}",
                    pre[a], post[a]
                );
                ctx.broken(PAD_CROP, &slots, detail);
                return false;
            }
        }
    }
    let mode = ctx.attr_s("mode").unwrap_or("constant");
    if !matches!(mode, "edge" | "reflect" | "wrap") {
        return true;
    }
    let empty = |a: &usize| dims[*a] == Dim::Known(0);
    if mode == "wrap"
        && let Some(a) = (0..r).find(empty)
    {
        let detail = format!("axis {a} is empty, in wrap mode");
        ctx.broken(PAD_SOURCE, &slots, detail);
        return false;
    }
    if pre.iter().chain(&post).all(|&v| v >= 0)
        && let Some(a) = (0..r).filter(empty).find(|&a| pre[a] > 0 || post[a] > 0)
    {
        let detail = format!(
            "axis {a} is empty and padded by {} and {}, in {mode} mode",
            pre[a], post[a]
        );
        ctx.broken(PAD_SOURCE, &slots, detail);
        return false;
    }
    if dims
        .iter()
        .any(|d| matches!(d, Dim::Unknown | Dim::Known(0)))
    {
        return true;
    }
    for a in 0..r {
        let Dim::Known(d) = dims[a] else {
            continue;
        };
        let (b, e) = (i128::from(pre[a]), i128::from(post[a]));
        let extent = i128::from(d) + b.min(0) + e.min(0);
        if extent <= 0 {
            let detail =
                format!("axis {a} of size {d} cropped to nothing by {b} and {e}, in {mode} mode");
            ctx.broken(PAD_SOURCE, &slots, detail);
            return false;
        }
        if mode == "reflect" && b.max(e) >= extent {
            let kept = if extent == i128::from(d) {
                String::new()
            } else {
                format!(", {extent} after cropping,")
            };
            let detail = format!("axis {a} of size {d}{kept} padded by {b} and {e}");
            ctx.out_of_range(PAD_REFLECT, &slots, detail);
            return false;
        }
    }
    true
}

pub(super) fn pad(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let from_attr = |name: &str| -> Param<Dim> {
        ctx.attr_ints(name)
            .map(|p| p.iter().map(|&v| from_i64(v)).collect())
            .into()
    };
    // Pads as values: from opset 11 they may be computed (symbols included: a pad to a multiple of
    // the sequence length, a reflection pad of a speech model's frames).
    let pads: Param<Dim> = match ctx.opset {
        ..2 => from_attr("paddings"),
        2..11 => from_attr("pads"),
        _ if !ctx.has_input(1) => Param::Absent,
        _ => ctx
            .data(1)
            .map_or(Param::Unknown, |d| Param::Known(d.to_vec())),
    };
    let pad_axes: Param<i64> = if ctx.opset >= 18 {
        ints_attr_or_input(ctx, "axes", 3, 18)
    } else {
        Param::Absent
    };
    let rank = match (ctx.shape(0), &pads, &pad_axes) {
        (Some(s), _, _) => Some(s.len()),
        (None, Param::Known(p), Param::Absent) => Some(p.len() / 2),
        _ => None,
    };
    let Some(r) = rank else {
        return vec![like(ctx, 0, None)];
    };
    if ctx.opset >= 2
        && let Some(input) = ctx.shape(0)
        && !pad_contracts(ctx, &input, &pads, &pad_axes)
    {
        return vec![like(ctx, 0, None)];
    }
    let dims = ctx.shape(0).unwrap_or_else(|| vec![Dim::Unknown; r]);
    let shape = match (pads, pad_axes) {
        (Param::Known(p), list @ (Param::Known(_) | Param::Absent)) => {
            let which = match list {
                Param::Known(l) => axes(&l, r),
                _ => Some((0..r).collect()),
            };
            match which.filter(|w| p.len() == 2 * w.len()) {
                Some(which) => {
                    let mut out = dims.clone();
                    for (j, &a) in which.iter().enumerate() {
                        out[a] = padded(&dims[a], &p[j], &p[j + which.len()]);
                    }
                    out
                }
                None => vec![Dim::Unknown; r],
            }
        }
        // Pads absent: nothing is padded (the attribute was required; be lenient).
        (Param::Absent, Param::Known(_) | Param::Absent) => dims,
        _ => vec![Dim::Unknown; r],
    };
    vec![like(ctx, 0, Some(shape))]
}

/// `in + begin + end` for a padded axis (a negative pad crops): exact in the polynomial algebra; a
/// known result below 0 is invalid, so unknown.
pub(in crate::shape::ops) fn padded(dim: &Dim, begin: &Dim, end: &Dim) -> Dim {
    if let (Some(b), Some(e)) = (as_i64(begin), as_i64(end))
        && matches!((begin, end), (Dim::Known(_), Dim::Known(_)))
    {
        return b.checked_add(e).map_or(Dim::Unknown, |t| shift(dim, t));
    }
    let total =
        Poly::of_size(dim).and_then(|d| d.add(&Poly::of_value(begin)?)?.add(&Poly::of_value(end)?));
    total.map_or(Dim::Unknown, Poly::into_size)
}

pub const CENTER_CROP_PAD_AXES: Contract = Contract::new(
    "center-crop-pad-axes",
    "each axis is an axis of the input, in [-rank, rank-1], none twice",
);
pub const CENTER_CROP_PAD_SHAPE: Contract = Contract::new(
    "center-crop-pad-shape",
    "shape holds one size per axis of axes (per input axis without axes)",
);

/// Checks CenterCropPad's contracts on an input of rank `r`; false when one is broken. onnxruntime
/// has no kernel for it and runs its function body, whose Slice, Pad and Max meet the same axes
/// and lengths (at load: onnx's inference of the body sees the static shapes).
fn center_crop_pad_contracts(ctx: &mut NodeCtx<'_>, r: usize) -> bool {
    let n_axes = match ctx.attr_ints("axes").map(<[i64]>::to_vec) {
        Some(list) => {
            let mut seen = Vec::with_capacity(list.len());
            for &a in &list {
                let Some(k) = ctx.require_axis(CENTER_CROP_PAD_AXES, &[0], a, r) else {
                    return false;
                };
                if seen.contains(&k) {
                    let detail = format!("axis {a} names input axis {k} twice");
                    ctx.out_of_range(CENTER_CROP_PAD_AXES, &[0], detail);
                    return false;
                }
                seen.push(k);
            }
            list.len() as u64
        }
        None => r as u64,
    };
    // A single size broadcasts in the body's Max over the axes' sizes: onnxruntime runs it unless
    // onnx's inference sees a constant `shape` (a computed one reaches the body), so it is left out.
    if let Some(n) = len_1d(ctx, 1)
        && n != n_axes
        && n != 1
    {
        let detail = format!("{n} sizes for {n_axes} axes");
        ctx.broken(CENTER_CROP_PAD_SHAPE, &[0, 1], detail);
        return false;
    }
    true
}

pub(super) fn center_crop_pad(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let Some(dims) = ctx.shape(0) else {
        return vec![like(ctx, 0, None)];
    };
    let r = dims.len();
    if !center_crop_pad_contracts(ctx, r) {
        return vec![like(ctx, 0, None)];
    }
    let which = match ctx.attr_ints("axes") {
        Some(list) => axes(list, r),
        None => Some((0..r).collect()),
    };
    let shape = match (which, sizes_of(ctx, 1)) {
        (Some(which), Some(sizes)) if which.len() == sizes.len() => {
            let mut out = dims;
            for (a, size) in which.into_iter().zip(sizes) {
                out[a] = size;
            }
            out
        }
        (Some(which), _) => {
            let mut out = dims;
            for a in which {
                out[a] = Dim::Unknown;
            }
            out
        }
        (None, _) => vec![Dim::Unknown; r],
    };
    vec![like(ctx, 0, Some(shape))]
}

#[cfg(test)]
mod tests {
    // Tile, Pad, Split and Slice read sizes that Constant and Range make.
    use super::super::{constant, range, split, text};
    use super::*;
    use crate::shape::ops::common::add;
    use crate::shape::ops::common::test_util::*;

    fn slice_of(
        input: Option<ValueInfo>,
        starts: &[i64],
        ends: &[i64],
        axes_: Option<&[i64]>,
        steps: Option<&[i64]>,
    ) -> Vec<ValueInfo> {
        let n = node("Slice", 5, 1, vec![]);
        run(
            slice,
            &n,
            13,
            &[
                input,
                ints(starts),
                ints(ends),
                axes_.and_then(ints),
                steps.and_then(ints),
            ],
        )
    }

    #[test]
    fn slice_clamps_like_numpy() {
        let x = t(F32, &["10", "S", "8"]);
        let out = slice_of(x.clone(), &[2, 0], &[-1, i64::MAX], Some(&[0, 1]), None);
        assert_eq!(out[0].shape, shape(&["7", "S", "8"]));
        let out = slice_of(x.clone(), &[-100], &[100], Some(&[2]), Some(&[3]));
        assert_eq!(out[0].shape, shape(&["10", "S", "3"]));
        let out = slice_of(
            x.clone(),
            &[i64::MAX, -1],
            &[i64::MIN, i64::MIN],
            Some(&[0, 1]),
            Some(&[-1, -1]),
        );
        assert_eq!(out[0].shape, shape(&["10", "S", "8"]));
        // [0:4] of S is min(S, 4): S is not assumed to be at least 4.
        let out = slice_of(x.clone(), &[0], &[4], Some(&[1]), None);
        assert_eq!(text(&out[0].shape), "[10, min(S, 4), 8]");
        // A step of 0 or an axis past the rank breaks a contract: no shape.
        let out = slice_of(x.clone(), &[0], &[4], Some(&[0]), Some(&[0]));
        assert_eq!(out[0].shape, None);
        let out = slice_of(x.clone(), &[5], &[2], Some(&[0]), None);
        assert_eq!(out[0].shape, shape(&["0", "S", "8"]));
        let out = slice_of(x.clone(), &[0], &[4], Some(&[3]), None);
        assert_eq!(out[0].shape, None);
        let out = slice_of(t(F32, &["0"]), &[-1], &[0], None, Some(&[-1]));
        assert_eq!(out[0].shape, shape(&["0"]));
        // The end given by the symbol of the axis itself.
        let n = node("Slice", 4, 1, vec![]);
        let end = Some(ValueInfo::int64_data(vec![d("S")], false));
        let out = run(
            slice,
            &n,
            13,
            &[x.clone(), ints(&[0]), end.clone(), ints(&[1])],
        );
        assert_eq!(out[0].shape, shape(&["10", "S", "8"]));
        // ... and of another axis, min(S, 10): S is not assumed to be at most 10.
        let out = run(slice, &n, 13, &[x.clone(), ints(&[0]), end, ints(&[0])]);
        assert_eq!(text(&out[0].shape), "[min(S, 10), S, 8]");
        let legacy = node(
            "Slice",
            1,
            1,
            vec![attr_ints("starts", &[1]), attr_ints("ends", &[3])],
        );
        assert_eq!(
            out_shape(slice, &legacy, 9, std::slice::from_ref(&x)),
            shape(&["2", "S", "8"])
        );
        // Unknown starts: only the rank.
        let out = run(
            slice,
            &n,
            13,
            &[x, Some(ValueInfo::tensor(I64, shape(&["1"]))), ints(&[1])],
        );
        assert_eq!(out[0].shape, shape(&["?", "?", "?"]));
    }

    /// Every symbolic slice length against the numeric slice at each size of the axis and value of a
    /// symbolic bound: bounds known (negative, past either end), a symbol, the axis's own symbol, a
    /// symbol plus 2; steps of both signs.
    #[test]
    fn symbolic_slice_lengths_match_the_numbers() {
        let (n, b) = (d("n"), d("b"));
        let b2 = shift(&b, 2);
        let mut bounds: Vec<Dim> = [0, 1, 3, 7, -1, -3, -20, HUGE, -HUGE, i64::MAX, i64::MIN]
            .iter()
            .map(|&v| from_i64(v))
            .collect();
        bounds.extend([b.clone(), n.clone(), b2.clone()]);
        let value = |bound: &Dim, nv: i64, bv: i64| -> i64 {
            match bound {
                Dim::Sym(e) => e
                    .eval(&|s| match s {
                        "n" => Some(nv),
                        "b" => Some(bv),
                        _ => None,
                    })
                    .unwrap(),
                other => as_i64(other).unwrap(),
            }
        };
        let mut exact = 0;
        for start in &bounds {
            for end in &bounds {
                for step in [1, 2, 3, -1, -2, -3] {
                    for dim in [&n, &Dim::Known(5)] {
                        let Dim::Sym(len) = slice_len(dim, start, end, step) else {
                            continue;
                        };
                        exact += 1;
                        for nv in 0..12 {
                            for bv in 0..15 {
                                let size = match dim {
                                    Dim::Known(k) => *k,
                                    _ => nv as u64,
                                };
                                let want = slice_len(
                                    &Dim::Known(size),
                                    &from_i64(value(start, nv, bv)),
                                    &from_i64(value(end, nv, bv)),
                                    step,
                                );
                                let got = len.eval(&|s| match s {
                                    "n" => Some(nv),
                                    "b" => Some(bv),
                                    _ => None,
                                });
                                assert_eq!(
                                    got.map(|v| Dim::Known(v as u64)),
                                    Some(want),
                                    "[{start}:{end}:{step}] of {dim} = {len} at n={nv} b={bv}"
                                );
                            }
                        }
                    }
                }
            }
        }
        assert!(exact > 500, "only {exact} symbolic lengths");
    }

    #[test]
    fn slice_of_values() {
        let v = Some(ValueInfo::int64_data(vec![d("B"), d("S"), d("768")], false));
        let out = slice_of(v.clone(), &[1], &[i64::MAX], None, None);
        assert_eq!(out[0].int_vec(), Some(vec![d("S"), d("768")]));
        let out = slice_of(v.clone(), &[-1], &[i64::MIN], None, Some(&[-2]));
        assert_eq!(out[0].int_vec(), Some(vec![d("768"), d("B")]));
        let out = slice_of(v, &[0], &[-1], None, None);
        assert_eq!(out[0].int_vec(), Some(vec![d("B"), d("S")]));
    }

    #[test]
    fn tile_pad_constant_range() {
        let n = node("Tile", 2, 1, vec![]);
        let s = out_shape(tile, &n, 13, &[t(F32, &["N", "3"]), ints(&[1, 2])]);
        assert_eq!(s, shape(&["N", "6"]));
        let s = out_shape(tile, &n, 13, &[t(F32, &["N", "3"]), ints(&[2, -2])]);
        assert_eq!(s, None, "a negative repeat breaks tile-repeats-value");
        let n = node("Tile", 3, 1, vec![]);
        let s = out_shape(tile, &n, 1, &[t(F32, &["N", "3"]), int(4), int(1)]);
        assert_eq!(s, shape(&["N", "12"]));

        let n = node("Pad", 2, 1, vec![]);
        let s = out_shape(
            pad,
            &n,
            13,
            &[t(F32, &["N", "3", "5"]), ints(&[0, 1, 2, 0, -1, 2])],
        );
        assert_eq!(s, shape(&["N", "3", "9"]));
        let s = out_shape(pad, &n, 13, &[t(F32, &["N", "3"]), ints(&[0, 1, 2])]);
        assert_eq!(s, None, "3 pads for rank 2 break pad-pads");
        let n = node("Pad", 4, 1, vec![]);
        let s = out_shape(
            pad,
            &n,
            18,
            &[t(F32, &["N", "3", "5"]), ints(&[1, 1]), None, ints(&[-1])],
        );
        assert_eq!(s, shape(&["N", "3", "7"]));
        let n = node("Pad", 1, 1, vec![attr_ints("pads", &[1, i64::MAX])]);
        assert_eq!(out_shape(pad, &n, 2, &[t(F32, &["3"])]), shape(&["?"]));

        let n = node(
            "Constant",
            0,
            1,
            vec![attr_t("value", int64_tensor(&[2], &[3, -1]))],
        );
        assert_eq!(run(constant, &n, 13, &[])[0].data_i64(), Some(vec![3, -1]));
        let n = node("Constant", 0, 1, vec![attr_ints("value_ints", &[1, 2])]);
        let out = run(constant, &n, 13, &[]);
        assert_eq!(
            (out[0].shape.clone(), out[0].data_i64()),
            (shape(&["2"]), Some(vec![1, 2]))
        );
        let n = node("CenterCropPad", 2, 1, vec![attr_ints("axes", &[-2, -1])]);
        let x = t(F32, &["N", "3", "H", "W"]);
        let s = out_shape(center_crop_pad, &n, 18, &[x.clone(), ints(&[5, 7])]);
        assert_eq!(s, shape(&["N", "3", "5", "7"]));
        let s = out_shape(center_crop_pad, &n, 18, &[x, None]);
        assert_eq!(s, shape(&["N", "3", "?", "?"]));
        let n = node("Constant", 0, 1, vec![attr_f("value_float", 1.5)]);
        assert_eq!(run(constant, &n, 13, &[])[0].shape, shape(&[]));

        let n = node("Range", 3, 1, vec![]);
        let out = run(range, &n, 11, &[int(0), int(10), int(3)]);
        assert_eq!(out[0].data_i64(), Some(vec![0, 3, 6, 9]));
        let out = run(range, &n, 11, &[int(10), int(0), int(-4)]);
        assert_eq!(out[0].data_i64(), Some(vec![10, 6, 2]));
        let out = run(range, &n, 11, &[int(5), int(0), int(1)]);
        assert_eq!(out[0].shape, shape(&["0"]));
        let out = run(range, &n, 11, &[int(i64::MIN), int(i64::MAX), int(1)]);
        assert_eq!(
            (out[0].shape.clone(), out[0].int_vec()),
            (Some(vec![Dim::Known(u64::MAX)]), None)
        );
        let seq = Some(ValueInfo::int64_data(vec![d("S")], true));
        assert_eq!(
            run(range, &n, 11, &[int(0), seq, int(1)])[0].shape,
            shape(&["S"])
        );
        // A delta of 0 breaks range-delta: no shape.
        assert_eq!(run(range, &n, 11, &[int(0), int(1), int(0)])[0].shape, None);
    }

    #[test]
    fn symbolic_slice_pad_split_range_where_exact() {
        let s1 = shift(&d("S"), 1);
        let x = Some(ValueInfo::tensor(F32, Some(vec![s1.clone(), d("S")])));
        // [S+1, S]: from 1 to the end is S on the first axis, max(S - 1, 0) on the second.
        let out = slice_of(
            x.clone(),
            &[1, 1],
            &[i64::MAX, i64::MAX],
            Some(&[0, 1]),
            None,
        );
        assert_eq!(text(&out[0].shape), "[S, max(S-1, 0)]");
        // Up to -1 (all but the last) of S+1 is S; 0 to 1 of S+1 is 1; 0 to 1 of S is min(S, 1).
        let out = slice_of(x.clone(), &[0, 0], &[-1, 1], Some(&[0, 1]), None);
        assert_eq!(text(&out[0].shape), "[S, min(S, 1)]");
        let out = slice_of(x.clone(), &[0], &[1], Some(&[0]), None);
        assert_eq!(text(&out[0].shape), "[1, S]");
        // An end of S on the axis of size S+1 (from a computed shape value): S.
        let n = node("Slice", 4, 1, vec![]);
        let end = Some(ValueInfo::int64_data(vec![d("S")], false));
        let out = run(slice, &n, 13, &[x.clone(), ints(&[0]), end, ints(&[0])]);
        assert_eq!(text(&out[0].shape), "[S, S]");
        // From the end surely past the start: empty.
        let out = slice_of(x, &[-1], &[0], Some(&[0]), None);
        assert_eq!(text(&out[0].shape), "[0, S]");

        let n = node("Pad", 2, 1, vec![]);
        let s = out_shape(pad, &n, 13, &[t(F32, &["N", "S"]), ints(&[0, 1, 0, 2])]);
        assert_eq!(text(&s), "[N, S+3]");
        let s = out_shape(pad, &n, 13, &[t(F32, &["N", "S"]), ints(&[0, -1, 0, 0])]);
        assert_eq!(text(&s), "[N, S-1]");

        let n = node("Split", 1, 3, vec![attr_i("axis", 0)]);
        let x = ValueInfo::tensor(F32, Some(vec![mul(&d("S"), &d("12")), d("S")]));
        let out = run(split, &n, 13, &[Some(x.clone())]);
        assert_eq!(text(&out[2].shape), "[S*4, S]");
        let n = node("Split", 1, 3, vec![attr_i("axis", 1)]);
        let out = run(split, &n, 13, &[Some(x)]);
        assert_eq!(text(&out[0].shape), "[S*12, ?]");

        let n = node("Range", 3, 1, vec![]);
        let past = Some(ValueInfo::int64_data(vec![d("P")], true));
        let end = Some(ValueInfo::int64_data(vec![add(&d("P"), &d("S"))], true));
        let out = run(range, &n, 11, &[past.clone(), end.clone(), int(1)]);
        assert_eq!(text(&out[0].shape), "[S]");
        // Range(P + S, P, 1) runs backwards: empty whatever S; a step of 2 takes ceil(S/2); a step
        // of -3 from P + S down to P, ceil(S/3).
        let out = run(range, &n, 11, &[end.clone(), past.clone(), int(1)]);
        assert_eq!(out[0].shape, shape(&["0"]));
        let out = run(range, &n, 11, &[past.clone(), end.clone(), int(2)]);
        assert_eq!(text(&out[0].shape), "[ceil(S/2)]");
        let out = run(range, &n, 11, &[end.clone(), past.clone(), int(-3)]);
        assert_eq!(text(&out[0].shape), "[ceil(S/3)]");
        // From a size to a constant: max(ceil((10 - S)/2), 0), checked against the numbers.
        let seq = Some(ValueInfo::int64_data(vec![d("S")], true));
        for (lo, hi, k) in [
            (seq.clone(), int(10), 2),
            (int(10), seq.clone(), -3),
            (int(-4), seq, 5),
        ] {
            let (a, b) = (
                lo.as_ref().unwrap().ints().unwrap()[0].clone(),
                hi.as_ref().unwrap().ints().unwrap()[0].clone(),
            );
            let Some(Dim::Sym(len)) = run(range, &n, 11, &[lo, hi, int(k)])[0]
                .shape
                .as_ref()
                .map(|s| s[0].clone())
            else {
                panic!("Range({a}, {b}, {k}) is not symbolic");
            };
            for sv in 0..40 {
                let val = |x: &Dim| match x {
                    Dim::Sym(_) => sv,
                    other => as_i64(other).unwrap(),
                };
                let (s0, l0) = (val(&a), val(&b));
                let want = run(range, &n, 11, &[int(s0), int(l0), int(k)])[0]
                    .shape
                    .clone();
                let got = len.eval(&|_| Some(sv)).map(|v| Dim::Known(v as u64));
                assert_eq!(
                    got.map(|g| vec![g]),
                    want,
                    "Range({a}, {b}, {k}) = {len} at S={sv}"
                );
            }
        }
        // Known floats, as onnxruntime counts them: ceil((limit - start) / delta).
        let f = |v: f32| {
            Some(
                ValueInfo::tensor(F32, Some(vec![]))
                    .with_values(Some(Data::Floats(Box::new([f64::from(v)])))),
            )
        };
        let out = run(range, &n, 11, &[f(0.0), f(1.0), f(0.1)]);
        assert_eq!(out[0].shape, shape(&["10"]));
        let out = run(range, &n, 11, &[f(1.0), f(0.0), f(0.25)]);
        assert_eq!(out[0].shape, shape(&["0"]));
        let out = run(range, &n, 11, &[f(1.0), f(0.0), f(0.0)]);
        assert_eq!(out[0].shape, None, "range-delta");
    }

    #[test]
    fn slice_contracts() {
        let n = node("Slice", 5, 1, vec![]);
        let x = t(F32, &["4", "5", "6"]);
        let of = |s: &[i64], e: &[i64], a: Option<&[i64]>, st: Option<&[i64]>| {
            let inputs = [
                x.clone(),
                ints(s),
                ints(e),
                a.and_then(ints),
                st.and_then(ints),
            ];
            contracts(slice, &n, 13, &inputs)
        };
        assert!(of(&[0, 1], &[2, 3], Some(&[0, -1]), Some(&[1, -1])).is_empty());
        // Starts and ends are clamped, never out of range.
        assert!(of(&[100], &[-100], Some(&[1]), None).is_empty());
        assert!(of(&[0, 0, 0], &[1, 1, 1], None, None).is_empty());
        assert_eq!(of(&[0, 0], &[2], Some(&[1]), None), ["E2 slice-lengths"]);
        assert_eq!(
            of(&[0], &[2], Some(&[1]), Some(&[1, 1])),
            ["E2 slice-lengths"]
        );
        assert_eq!(of(&[0], &[2], Some(&[3]), None), ["E3 slice-axes"]);
        assert_eq!(of(&[0], &[2], Some(&[-4]), None), ["E3 slice-axes"]);
        assert_eq!(
            of(&[0, 0], &[2, 2], Some(&[1, -2]), None),
            ["E3 slice-axes"]
        );
        assert_eq!(of(&[0; 4], &[2; 4], None, None), ["E3 slice-axes"]);
        assert_eq!(of(&[0], &[2], Some(&[1]), Some(&[0])), ["E3 slice-steps"]);
        // A broken node has no output shape.
        let out = slice_of(x.clone(), &[0], &[2], Some(&[1]), Some(&[0]));
        assert_eq!(out[0].shape, None);
        // A list whose values are unknown still has its length.
        let fed = Some(ValueInfo::tensor(I64, shape(&["2"])));
        let c = contracts(slice, &n, 13, &[x.clone(), fed, ints(&[1])]);
        assert_eq!(c, ["E2 slice-lengths"]);
        // Opsets 1-9: attributes.
        let legacy = |attrs| {
            contracts(
                slice,
                &node("Slice", 1, 1, attrs),
                9,
                std::slice::from_ref(&x),
            )
        };
        let ok = vec![
            attr_ints("starts", &[0]),
            attr_ints("ends", &[2]),
            attr_ints("axes", &[-1]),
        ];
        assert!(legacy(ok).is_empty());
        let short = vec![attr_ints("starts", &[0, 0]), attr_ints("ends", &[2])];
        assert_eq!(legacy(short), ["E2 slice-lengths"]);
        let twice = vec![
            attr_ints("starts", &[0, 0]),
            attr_ints("ends", &[2, 2]),
            attr_ints("axes", &[1, 1]),
        ];
        assert_eq!(legacy(twice), ["E3 slice-axes"]);
    }

    #[test]
    fn tile_contracts() {
        let n = node("Tile", 2, 1, vec![]);
        let of =
            |input: &[&str], reps: &[i64]| contracts(tile, &n, 13, &[t(F32, input), ints(reps)]);
        assert!(of(&["N", "3"], &[2, 0]).is_empty());
        assert_eq!(of(&["N", "3"], &[2]), ["E2 tile-repeats"]);
        assert_eq!(of(&["N", "3"], &[2, 1, 1]), ["E2 tile-repeats"]);
        assert_eq!(of(&["N", "3"], &[-1, 1]), ["E3 tile-repeats-value"]);
        let fed = Some(ValueInfo::tensor(I64, shape(&["3"])));
        let c = contracts(tile, &n, 13, &[t(F32, &["N", "3"]), fed]);
        assert_eq!(c, ["E2 tile-repeats"]);
        // Opset 1 (tiles, axis) has no such lists.
        let n1 = node("Tile", 3, 1, vec![]);
        assert!(contracts(tile, &n1, 1, &[t(F32, &["N", "3"]), int(4), int(1)]).is_empty());
    }

    #[test]
    fn pad_contracts() {
        let pad_of = |input: &[&str], pads: &[i64], mode: &str| {
            let n = node("Pad", 2, 1, vec![attr_s("mode", mode)]);
            contracts(pad, &n, 13, &[t(F32, input), ints(pads)])
        };
        assert!(pad_of(&["N", "3"], &[0, 1, 0, 1], "constant").is_empty());
        assert_eq!(pad_of(&["N", "3"], &[0, 1, 0], "constant"), ["E2 pad-pads"]);
        assert!(pad_of(&["3"], &[-1, -2], "constant").is_empty());
        assert_eq!(pad_of(&["3"], &[-2, -2], "constant"), ["E2 pad-crop"]);
        // Edge and wrap take any width; reflect less than the axis (after cropping).
        assert!(pad_of(&["3"], &[10, 4], "edge").is_empty());
        assert!(pad_of(&["3"], &[4, 10], "wrap").is_empty());
        assert!(pad_of(&["3"], &[2, 2], "reflect").is_empty());
        assert!(pad_of(&["5"], &[-2, 2], "reflect").is_empty());
        assert_eq!(pad_of(&["3"], &[3, 0], "reflect"), ["E3 pad-reflect"]);
        assert_eq!(pad_of(&["5"], &[-2, 3], "reflect"), ["E3 pad-reflect"]);
        assert_eq!(
            pad_of(&["S", "1"], &[0, 1, 0, 0], "reflect"),
            ["E3 pad-reflect"]
        );
        assert!(pad_of(&["1", "3"], &[0, 1, 0, 1], "reflect").is_empty());
        // A symbolic size is not compared (no finding), an unknown one leaves the others alone.
        assert!(pad_of(&["S"], &[5, 5], "reflect").is_empty());
        assert!(pad_of(&["?", "3"], &[0, 3, 0, 0], "reflect").is_empty());
        // Nothing to copy.
        assert_eq!(pad_of(&["3"], &[-3, 1], "edge"), ["E2 pad-source"]);
        assert_eq!(pad_of(&["0"], &[1, 1], "edge"), ["E2 pad-source"]);
        assert_eq!(
            pad_of(&["2", "0"], &[1, 0, 1, 0], "wrap"),
            ["E2 pad-source"]
        );
        assert!(pad_of(&["2", "0"], &[1, 0, 1, 0], "edge").is_empty());
        assert!(pad_of(&["0"], &[1, 1], "constant").is_empty());
        // An empty axis padded beside a crop: onnxruntime may run it.
        assert!(pad_of(&["0", "1"], &[-1, 1, 1, 0], "edge").is_empty());
        // Opset 18 axes.
        let n = node("Pad", 4, 1, vec![attr_s("mode", "reflect")]);
        let with_axes = |pads: &[i64], list: &[i64]| {
            contracts(
                pad,
                &n,
                18,
                &[t(F32, &["2", "3"]), ints(pads), None, ints(list)],
            )
        };
        assert!(with_axes(&[2, 2], &[-1]).is_empty());
        assert_eq!(with_axes(&[1, 1, 0, 0], &[1]), ["E2 pad-pads"]);
        assert_eq!(with_axes(&[1, 1], &[2]), ["E3 pad-axes"]);
        assert_eq!(with_axes(&[3, 0], &[1]), ["E3 pad-reflect"]);
        // Opset 2: the attribute.
        let n = node("Pad", 1, 1, vec![attr_ints("pads", &[0, 1, 0])]);
        assert_eq!(
            contracts(pad, &n, 2, &[t(F32, &["2", "3"])]),
            ["E2 pad-pads"]
        );
    }

    #[test]
    fn center_crop_pad_contracts() {
        let of = |axes_: Option<&[i64]>, sizes: Option<ValueInfo>| {
            let attrs = axes_
                .map(|a| vec![attr_ints("axes", a)])
                .unwrap_or_default();
            let n = node("CenterCropPad", 2, 1, attrs);
            contracts(center_crop_pad, &n, 18, &[t(F32, &["4", "5", "6"]), sizes])
        };
        assert!(of(None, ints(&[2, 5, 8])).is_empty());
        assert!(of(Some(&[0, -1]), ints(&[2, 8])).is_empty());
        assert_eq!(of(None, ints(&[2, 5])), ["E2 center-crop-pad-shape"]);
        assert_eq!(
            of(Some(&[0, 2]), ints(&[2, 3, 4])),
            ["E2 center-crop-pad-shape"]
        );
        // One size broadcasts over the axes when the shape is computed: not reported.
        assert!(of(Some(&[0, 2]), ints(&[2])).is_empty());
        assert_eq!(of(Some(&[3]), ints(&[2])), ["E3 center-crop-pad-axes"]);
        assert_eq!(
            of(Some(&[1, -2]), ints(&[2, 2])),
            ["E3 center-crop-pad-axes"]
        );
    }
}
