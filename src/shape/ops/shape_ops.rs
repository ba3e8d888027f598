//! Operators that compute, carry or rearrange shapes: Shape, Size, Reshape, Flatten, Transpose,
//! Squeeze, Unsqueeze, Concat, Split, Slice, Tile, Pad, CenterCropPad, Constant, ConstantOfShape, Range,
//! DepthToSpace, SpaceToDepth, Resize and Upsample — with data propagation, so that the values of
//! shape tensors (symbols included) flow from `Shape` through `Gather`, `Unsqueeze`, `Concat` and the
//! like into `Reshape`, `Expand` and `ConstantOfShape`.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#Reshape> and the pages of each op.
//! Opset history that matters here:
//! - Shape: 15 adds `start`/`end` (clamped to `[0, rank]`, negative counts from the end).
//! - Reshape: the target is attribute `shape` before 5, an input from 5; 14 adds `allowzero` (a 0 is
//!   then a 0, not a copy of the input's dim).
//! - Squeeze, Unsqueeze: `axes` attribute before 13, input from 13; 11 allows negative axes.
//! - Concat: `axis` defaults to 1 in opset 1, is required from 4.
//! - Split: sizes in attribute `split` (opset 1 also as a second input) before 13, input from 13; 18
//!   adds `num_outputs` (chunks of `ceil(dim / n)`, the last one smaller).
//! - Slice: `starts`/`ends`/`axes` attributes before 10; inputs with `steps` from 10.
//! - Tile: opset 1 takes scalar `tiles` and `axis` inputs; `repeats` (one per axis) from 6.
//! - Pad: attribute `paddings` in 1, `pads` in 2, input from 11; 18 adds the `axes` input.
//! - CenterCropPad (18): the axes in `axes` (all by default) take the sizes of input `shape`.
//! - Constant: `sparse_value` from 11; `value_int(s)`, `value_float(s)`, `value_string(s)` from 12.
//! - ConstantOfShape (9): element type of the `value` attribute, FLOAT by default.
//! - Resize: 10 (X, scales); 11 adds `roi` and `sizes`; 18 adds `axes` and `keep_aspect_ratio_policy`.
//! - Upsample: `height_scale`/`width_scale` in 1, `scales` attribute in 7, input from 9.
//!
//! - Resize 13 makes `roi` and `scales` optional; 19 adds `half_pixel_symmetric` (no effect on sizes).
//!   Opsets 11-12 require `scales` even with `sizes`: an empty tensor there means "not given".
//!
//! Sizes stay exact: symbolic sizes are computed in the polynomial algebra of [`Poly`] (a Reshape's -1
//! of `[batch, seq, 768]` to `[0, -1, 64]` is `seq*12`, a Concat of `seq` and 1 is `seq+1`, a Slice
//! `[:seq]` of 512 is `min(seq, 512)`, a Resize by 0.5 `floor(h/2)`), and a size that is not exactly
//! an expression (`seq / 5`, a Resize of a symbol by 0.1) is unknown.
//!
//! Resize and Upsample sizes are what onnxruntime computes (`upsamplebase.h`:
//! `static_cast<int64_t>(scale * in)` with the product in f32, `round` of one f32 scale under
//! `keep_aspect_ratio_policy`), which onnx's own inference computes too. For `tf_crop_and_resize` the
//! spec scales the roi's span (`floor(in * (roi_end - roi_start) * scale)`) but both ignore the roi:
//! only where the two agree (a roi of the whole axis) is a size given.

use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Poly, Shape};
use super::super::registry::Registry;
use super::super::value::{
    Data, MAX_DATA_ELEMENTS, MAX_FLOAT_ELEMENTS, ValueInfo, as_i64, from_i64, from_tensor,
    round_to_elem,
};
use super::common::{
    Param, axes, axis, axis_inclusive, div_exact, div_exact_dim, ints_attr_or_input, len_1d, like,
    mul, product, shift, size_of_value, sum, unknown_dims, values_if_small,
};
use crate::proto::tensor_proto::DataType;

pub fn register(r: &mut Registry) {
    r.add("", "Shape", 1, shape_op);
    r.add("", "Size", 1, size);
    r.add("", "Reshape", 1, reshape);
    r.add("", "Flatten", 1, flatten);
    r.add("", "Transpose", 1, transpose);
    r.add("", "Squeeze", 1, squeeze);
    r.add("", "Unsqueeze", 1, unsqueeze);
    r.add("", "Concat", 1, concat);
    r.add("", "Split", 1, split);
    r.add("", "Slice", 1, slice);
    r.add("", "Tile", 1, tile);
    r.add("", "Pad", 1, pad);
    r.add("", "CenterCropPad", 18, center_crop_pad);
    r.add("", "Constant", 1, constant);
    r.add("", "ConstantOfShape", 9, constant_of_shape);
    r.add("", "Range", 11, range);
    r.add("", "DepthToSpace", 1, depth_to_space);
    r.add("", "SpaceToDepth", 1, space_to_depth);
    r.add("", "Resize", 10, resize);
    r.add("", "Upsample", 1, upsample);
}

fn int64() -> Option<i32> {
    Some(DataType::Int64 as i32)
}

/// The values of input `slot` read as sizes (a negative value is no size).
fn sizes_of(ctx: &NodeCtx<'_>, slot: usize) -> Option<Vec<Dim>> {
    Some(ctx.data(slot)?.iter().map(size_of_value).collect())
}

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
fn size(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
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

fn reshape(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
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
fn flatten(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
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
fn transpose(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
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
fn transposed(dims: &[Dim], perm: &[usize], values: &Data) -> Option<Data> {
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

fn squeeze(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
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

fn unsqueeze(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
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

/// What several inputs say of one dimension that must be equal across them: a known size if any
/// gives one, else a symbol.
fn agree<'a>(dims: impl IntoIterator<Item = &'a Dim>) -> Dim {
    let mut best = Dim::Unknown;
    for d in dims {
        match (d, &best) {
            (Dim::Known(_), _) => return d.clone(),
            (Dim::Sym(_), Dim::Unknown) => best = d.clone(),
            _ => {}
        }
    }
    best
}

fn concat(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let a = ctx
        .attr_i("axis")
        .or((ctx.opset < 4).then_some(1))
        .unwrap_or(0);
    let shapes: Vec<Shape> = (0..ctx.num_inputs()).map(|k| ctx.shape(k)).collect();
    let elem = (0..ctx.num_inputs()).find_map(|k| ctx.elem(k));
    let rank = shapes.iter().flatten().map(Vec::len).next();
    let shape = rank.and_then(|r| {
        let k = axis(a, r)?;
        let column = |i: usize| -> Vec<Dim> {
            shapes
                .iter()
                .map(|s| match s {
                    Some(s) if s.len() == r => s[i].clone(),
                    _ => Dim::Unknown,
                })
                .collect()
        };
        Some(
            (0..r)
                .map(|i| {
                    if i == k {
                        sum(&column(i))
                    } else {
                        agree(&column(i))
                    }
                })
                .collect(),
        )
    });
    // Values of 1-D inputs concatenate (shape tensors assembled piece by piece, scales too).
    let data = if rank == Some(1) {
        (0..ctx.num_inputs())
            .map(|k| {
                ctx.values(k)
                    .filter(|_| ctx.input(k).and_then(ValueInfo::rank) == Some(1))
            })
            .collect::<Option<Vec<_>>>()
            .and_then(Data::concat)
    } else {
        None
    };
    let data = values_if_small(&shape, data);
    vec![ValueInfo::tensor(elem, shape).with_values(data)]
}

/// The split sizes.
/// The split sizes, as values: from the attribute, or from input 1 (opset 1, and from 13), where they
/// may be computed (symbols included).
fn split_sizes(ctx: &NodeCtx<'_>) -> Param<Dim> {
    let from_input = ctx.opset >= 13 || (ctx.opset < 2 && ctx.attr("split").is_none());
    if !from_input {
        return ctx
            .attr_ints("split")
            .map(|s| s.iter().map(|&v| from_i64(v)).collect())
            .into();
    }
    if !ctx.has_input(1) {
        return Param::Absent;
    }
    ctx.data(1)
        .map_or(Param::Unknown, |d| Param::Known(d.to_vec()))
}

/// The sizes of `n` equal parts of `dim`; from opset 18 with `num_outputs`, chunks of `ceil(dim / n)`
/// with a smaller last one.
fn equal_parts(dim: &Dim, n: usize, uneven: bool) -> Vec<Dim> {
    let Dim::Known(total) = dim else {
        // A symbolic size splits evenly only where it divides (`seq*12` in 3 parts of `seq*4`); in
        // chunks it is `ceil(dim / n)` each and the rest for the last, exact wherever the op runs.
        return if uneven {
            symbolic_chunks(dim, n)
        } else {
            vec![div_exact(dim, n as u64); n]
        };
    };
    let n64 = n as u64;
    if n64 == 0 {
        return Vec::new();
    }
    if total % n64 == 0 {
        return vec![Dim::Known(total / n64); n];
    }
    if !uneven {
        return vec![Dim::Unknown; n];
    }
    let chunk = total.div_ceil(n64);
    let last = chunk
        .checked_mul(n64 - 1)
        .and_then(|used| total.checked_sub(used));
    let mut out = vec![Dim::Known(chunk); n - 1];
    out.push(last.map_or(Dim::Unknown, Dim::Known));
    out
}

/// `n` chunks of a symbolic `dim`: `ceil(dim / n)` for all but the last, which has the rest.
fn symbolic_chunks(dim: &Dim, n: usize) -> Vec<Dim> {
    let sizes = || -> Option<(Poly, Poly)> {
        let total = Poly::of_size(dim)?;
        let k = i64::try_from(n).ok().filter(|&k| k > 0)?;
        let chunk = total.ceil_div(k)?;
        let last = total.sub(&chunk.mul(&Poly::constant(k - 1))?)?;
        Some((chunk, last))
    };
    match sizes() {
        Some((chunk, last)) => {
            let mut out = vec![chunk.into_size(); n - 1];
            out.push(last.into_size());
            out
        }
        None => vec![Dim::Unknown; n],
    }
}

fn split(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let n = ctx.num_outputs();
    let elem = ctx.elem(0);
    let Some(dims) = ctx.shape(0) else {
        return vec![ValueInfo::tensor(elem, None); n];
    };
    let Some(k) = axis(ctx.attr_i("axis").unwrap_or(0), dims.len()) else {
        return vec![ValueInfo::tensor(elem, None); n];
    };
    let sizes: Vec<Dim> = match split_sizes(ctx) {
        Param::Known(s) => (0..n)
            .map(|i| s.get(i).map_or(Dim::Unknown, size_of_value))
            .collect(),
        Param::Absent => {
            let uneven = ctx.opset >= 18 && ctx.attr_i("num_outputs").is_some();
            equal_parts(&dims[k], n, uneven)
        }
        Param::Unknown => vec![Dim::Unknown; n],
    };
    let data = ctx.values(0).filter(|_| dims.len() == 1);
    let mut offset: Option<usize> = Some(0);
    sizes
        .into_iter()
        .map(|len| {
            let mut s = dims.clone();
            s[k] = len.clone();
            // Values of a split 1-D tensor are the consecutive runs.
            let end = offset
                .zip(len.known())
                .and_then(|(at, len)| at.checked_add(usize::try_from(len).ok()?));
            let part = data
                .zip(offset)
                .zip(end)
                .and_then(|((values, at), end)| values.pick(at..end));
            offset = end;
            ValueInfo::tensor(elem, Some(s)).with_values(part)
        })
        .collect()
}

/// Exporters spell "to the end" as INT_MAX or INT64_MAX (and "from the very end" as their negatives).
/// A symbolic size is taken to be below 2^31 - 1: no axis of a real tensor reaches it.
const HUGE: i64 = i32::MAX as i64;

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

fn slice(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let elem = ctx.elem(0);
    let Some(dims) = ctx.shape(0) else {
        return vec![ValueInfo::tensor(elem, None)];
    };
    let r = dims.len();
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
fn slice_data(
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

fn tile(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
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

fn pad(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
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
pub(super) fn padded(dim: &Dim, begin: &Dim, end: &Dim) -> Dim {
    if let (Some(b), Some(e)) = (as_i64(begin), as_i64(end))
        && matches!((begin, end), (Dim::Known(_), Dim::Known(_)))
    {
        return b.checked_add(e).map_or(Dim::Unknown, |t| shift(dim, t));
    }
    let total =
        Poly::of_size(dim).and_then(|d| d.add(&Poly::of_value(begin)?)?.add(&Poly::of_value(end)?));
    total.map_or(Dim::Unknown, Poly::into_size)
}

fn center_crop_pad(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let Some(dims) = ctx.shape(0) else {
        return vec![like(ctx, 0, None)];
    };
    let r = dims.len();
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

fn constant(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let scalar = Some(Vec::new());
    let vector = |n: usize| Some(vec![Dim::Known(n as u64)]);
    let info = if let Some(t) = ctx.attr_t("value") {
        from_tensor(t)
    } else if let Some(s) = ctx
        .attr("sparse_value")
        .and_then(|a| a.sparse_tensor.as_ref())
    {
        let shape = s
            .dims
            .iter()
            .map(|&d| u64::try_from(d).ok().map(Dim::Known))
            .collect::<Option<Vec<_>>>();
        let elem = s.values.as_ref().map(|v| v.data_type()).filter(|&e| e != 0);
        ValueInfo::tensor(elem, shape)
    } else if let Some(v) = ctx.attr_i("value_int") {
        ValueInfo::int64_data(vec![from_i64(v)], true)
    } else if let Some(a) = ctx.attr("value_ints") {
        let values: Vec<Dim> = a.ints.iter().map(|&v| from_i64(v)).collect();
        let data = (values.len() as u64 <= MAX_DATA_ELEMENTS).then_some(values);
        ValueInfo::tensor(int64(), vector(a.ints.len())).with_data(data)
    } else if let Some(v) = ctx.attr_f("value_float") {
        ValueInfo::tensor(Some(DataType::Float as i32), scalar)
            .with_values(Some(Data::Floats(Box::new([f64::from(v)]))))
    } else if let Some(a) = ctx.attr("value_floats") {
        let data = (a.floats.len() as u64 <= MAX_FLOAT_ELEMENTS)
            .then(|| Data::Floats(a.floats.iter().map(|&x| f64::from(x)).collect()));
        ValueInfo::tensor(Some(DataType::Float as i32), vector(a.floats.len())).with_values(data)
    } else if ctx.attr("value_string").is_some() {
        ValueInfo::tensor(Some(DataType::String as i32), scalar)
    } else if let Some(a) = ctx.attr("value_strings") {
        ValueInfo::tensor(Some(DataType::String as i32), vector(a.strings.len()))
    } else {
        ValueInfo::unknown()
    };
    vec![info]
}

fn constant_of_shape(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let value = ctx.attr_t("value");
    let elem = value
        .map(|t| t.data_type())
        .filter(|&e| e != 0)
        .or(Some(DataType::Float as i32));
    let shape = match sizes_of(ctx, 0) {
        Some(dims) => Some(dims),
        None => len_1d(ctx, 0).and_then(unknown_dims),
    };
    // A fill of a small known shape has known values (0.0 when no value is given).
    let fill = match value {
        Some(t) => from_tensor(t).data.filter(|d| d.len() == 1),
        None => Some(Data::Floats(Box::new([0.0]))),
    };
    let count = match shape.as_deref() {
        Some([]) => Some(1),
        Some([Dim::Known(n)]) => Some(*n),
        _ => None,
    };
    let limit = match fill {
        Some(Data::Floats(_)) => MAX_FLOAT_ELEMENTS,
        _ => MAX_DATA_ELEMENTS,
    };
    let data = count
        .filter(|&n| n <= limit)
        .zip(fill)
        .and_then(|(n, x)| x.pick(std::iter::repeat_n(0, n as usize)));
    vec![ValueInfo::tensor(elem, shape).with_values(data)]
}

/// The value of a scalar (or one-element) input.
fn scalar_value<'c>(ctx: &'c NodeCtx<'_>, slot: usize) -> Option<&'c Dim> {
    match ctx.data(slot)? {
        [v] => Some(v),
        _ => None,
    }
}

/// Range(start, limit, delta): `max(ceil((limit - start) / delta), 0)` values.
fn range(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let elem = ctx.elem(0).or(ctx.elem(1)).or(ctx.elem(2));
    let (start, limit, delta) = (
        scalar_value(ctx, 0),
        scalar_value(ctx, 1),
        scalar_value(ctx, 2),
    );
    let ints = |d: Option<&Dim>| d.and_then(as_i64);
    let (len, data) = match (ints(start), ints(limit), ints(delta)) {
        (Some(s), Some(l), Some(st)) if st != 0 => {
            // ceil(span / step), or 0 when the range runs the other way.
            let (span, st) = (i128::from(l) - i128::from(s), i128::from(st));
            let (a, b) = if st > 0 { (span, st) } else { (-span, -st) };
            let n = if a <= 0 { 0 } else { (a + b - 1) / b };
            let n = u64::try_from(n).unwrap_or(u64::MAX);
            let data = (n <= MAX_DATA_ELEMENTS).then(|| {
                (0..n as i128)
                    .map(|i| from_i64((i128::from(s) + i * st) as i64))
                    .collect()
            });
            (Dim::Known(n), data)
        }
        // Symbolic bounds and a known step k: max(ceil((limit - start) / k), 0) (Range(0, n, 1) has n
        // elements, Range(past, past+seq, 1) has seq, Range(0, seq, 2) ceil(seq/2)).
        (_, _, Some(k)) if k != 0 => {
            let len = start.zip(limit).and_then(|(s, l)| {
                let (s, l) = (Poly::of_value(s)?, Poly::of_value(l)?);
                let (span, k) = if k > 0 {
                    (l.sub(&s)?, k)
                } else {
                    (s.sub(&l)?, k.checked_neg()?)
                };
                Poly::max(&[span.ceil_div(k)?, Poly::constant(0)])
            });
            (len.map_or(Dim::Unknown, Poly::into_size), None)
        }
        _ => (float_range_len(ctx, elem), None),
    };
    vec![ValueInfo::tensor(elem, Some(vec![len])).with_data(data)]
}

/// The length of a Range of known float values as onnxruntime computes it:
/// `ceil((double)(limit - start) / delta)` with the difference taken in the element type, 0 when
/// not positive.
fn float_range_len(ctx: &NodeCtx<'_>, elem: Option<i32>) -> Dim {
    let one = |slot: usize| match ctx.floats(slot) {
        Some([v]) => Some(*v),
        _ => None,
    };
    let (Some(s), Some(l), Some(d)) = (one(0), one(1), one(2)) else {
        return Dim::Unknown;
    };
    let Some(span) = round_to_elem(elem, l - s) else {
        return Dim::Unknown;
    };
    let n = (span / d).ceil();
    if d == 0.0 || n.is_nan() || n >= 9.2e18 {
        Dim::Unknown
    } else {
        Dim::Known(n.max(0.0) as u64)
    }
}

/// The `blocksize` attribute, when positive.
fn blocksize(ctx: &NodeCtx<'_>) -> Option<u64> {
    ctx.attr_i("blocksize")
        .and_then(|b| u64::try_from(b).ok())
        .filter(|&b| b > 0)
}

/// DepthToSpace: `[N, C / b^2, H * b, W * b]`.
fn depth_to_space(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let b = blocksize(ctx);
    let shape = ctx.shape(0).filter(|s| s.len() == 4).map(|s| match b {
        Some(b) => {
            let bb = b.checked_mul(b).unwrap_or(0);
            let c = if bb == 0 {
                Dim::Unknown
            } else {
                div_exact(&s[1], bb)
            };
            let k = Dim::Known(b);
            vec![s[0].clone(), c, mul(&s[2], &k), mul(&s[3], &k)]
        }
        None => vec![s[0].clone(), Dim::Unknown, Dim::Unknown, Dim::Unknown],
    });
    vec![like(ctx, 0, shape)]
}

/// SpaceToDepth: `[N, C * b^2, H / b, W / b]`.
fn space_to_depth(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let b = blocksize(ctx);
    let shape = ctx.shape(0).filter(|s| s.len() == 4).map(|s| match b {
        Some(b) => {
            let bb = b.checked_mul(b).map_or(Dim::Unknown, Dim::Known);
            vec![
                s[0].clone(),
                mul(&s[1], &bb),
                div_exact(&s[2], b),
                div_exact(&s[3], b),
            ]
        }
        None => vec![s[0].clone(), Dim::Unknown, Dim::Unknown, Dim::Unknown],
    });
    vec![like(ctx, 0, shape)]
}

/// The largest odd numerator `p` of a scale `p / 2^e` applied to a symbolic size. The size is exact
/// only while `in * p < 2^24` (the f32 product is then exact, see [`scaled`]); with `p` below 2^8 that
/// holds for every size below 2^16, which covers feature maps; longer numerators (`0.1` is
/// `13421773 / 2^27`) would need sizes of a few units, so such scales leave a symbol unknown.
const MAX_SCALE_NUMERATOR: u32 = 255;

/// An f32 as `m * 2^k` with `m` odd (or 0): every finite float is a dyadic rational.
fn dyadic(x: f32) -> Option<(u32, i32)> {
    if !x.is_finite() || x < 0.0 {
        return None;
    }
    let bits = x.to_bits();
    let (exp, frac) = ((bits >> 23) & 0xff, bits & 0x7f_ffff);
    let (mant, k) = if exp == 0 {
        (frac, -149)
    } else {
        (frac | 0x80_0000, exp as i32 - 150)
    };
    if mant == 0 {
        return Some((0, 0));
    }
    let tz = mant.trailing_zeros();
    Some((mant >> tz, k + tz as i32))
}

/// One axis of a Resize or Upsample by `scale`, as onnxruntime computes it
/// (`static_cast<int64_t>(scales[i] * input_dims[i])`, the product in f32; onnx's inference floors the
/// same product): for a known size, that computation itself. For a symbolic size `in` and a scale
/// `p / 2^e` (2.0, 0.5, 1.5...), `floor(in * p / 2^e)`, which is what the f32 product truncates to as
/// long as it is exact, i.e. `in * p < 2^24` ([`MAX_SCALE_NUMERATOR`] bounds `p`; a size of 2^24 is
/// beyond any axis a resize is applied to). Any other scale of a symbol is unknown, as is a scale that
/// is not a positive finite number.
fn scaled(d: &Dim, scale: f32) -> Dim {
    if !scale.is_finite() || scale <= 0.0 {
        return Dim::Unknown;
    }
    match d {
        Dim::Known(n) => {
            // static_cast<float>(int64_t): to the nearest float, as `as f32` rounds.
            let product = (*n as f32) * scale;
            if product.is_finite() && f64::from(product) < 9.2e18 {
                Dim::Known(product.trunc() as u64)
            } else {
                Dim::Unknown
            }
        }
        Dim::Sym(_) => {
            let Some((p, k)) = dyadic(scale).filter(|&(p, _)| p <= MAX_SCALE_NUMERATOR) else {
                return Dim::Unknown;
            };
            let Some(x) = Poly::of_size(d) else {
                return Dim::Unknown;
            };
            let out = if k >= 0 {
                1i64.checked_shl(k as u32)
                    .filter(|&f| f > 0)
                    .and_then(|f| x.mul(&Poly::constant(i64::from(p).checked_mul(f)?)))
            } else if k >= -62 {
                x.mul(&Poly::constant(i64::from(p)))
                    .and_then(|num| num.floor_div(1i64 << (-k)))
            } else {
                None
            };
            out.map_or(Dim::Unknown, Poly::into_size)
        }
        Dim::Unknown => Dim::Unknown,
    }
}

/// A list input of Resize: absent (not given, or given empty, which opsets 11-12 require for the
/// unused one of scales and sizes), known, or given with unknown values.
fn resize_param<T>(
    ctx: &NodeCtx<'_>,
    slot: usize,
    read: impl Fn(&NodeCtx<'_>) -> Option<Vec<T>>,
) -> Param<T> {
    if !ctx.has_input(slot) {
        return Param::Absent;
    }
    match read(ctx) {
        Some(v) if v.is_empty() => Param::Absent,
        Some(v) => Param::Known(v),
        None if matches!(ctx.shape(slot).as_deref(), Some([Dim::Known(0)])) => Param::Absent,
        None => Param::Unknown,
    }
}

/// Resize (10: X, scales; 11: X, roi, scales, sizes; 18: `axes`, `keep_aspect_ratio_policy`): each
/// resized axis (all, or those of `axes`) from its scale ([`scaled`]) or its size; the others keep
/// the input's size.
fn resize(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let Some(dims) = ctx.shape(0) else {
        return vec![like(ctx, 0, None)];
    };
    let r = dims.len();
    let unknown = || vec![ValueInfo::tensor(ctx.elem(0), Some(vec![Dim::Unknown; r]))];
    let which = match ctx.attr_ints("axes").filter(|_| ctx.opset >= 18) {
        Some(list) => axes(list, r),
        None => Some((0..r).collect()),
    };
    let Some(which) = which else {
        return unknown();
    };
    let scale_slot = if ctx.opset >= 11 { 2 } else { 1 };
    let scales = resize_param(ctx, scale_slot, |c| {
        c.floats(scale_slot).map(<[f64]>::to_vec)
    });
    let sizes = if ctx.opset >= 11 {
        resize_param(ctx, 3, |c| c.data(3).map(<[Dim]>::to_vec))
    } else {
        Param::Absent
    };
    let resized: Vec<Dim> = match (scales, sizes) {
        (Param::Known(s), Param::Absent) if s.len() == which.len() => {
            match resize_scales(ctx, &dims, &which, &s) {
                Some(v) => v,
                None => return unknown(),
            }
        }
        (Param::Absent, Param::Known(n)) if n.len() == which.len() => {
            let policy = if ctx.opset >= 18 {
                ctx.attr_s("keep_aspect_ratio_policy").unwrap_or("stretch")
            } else {
                "stretch"
            };
            match policy {
                "stretch" => n.iter().map(size_of_value).collect(),
                "not_larger" | "not_smaller" => {
                    match n.iter().map(as_i64).collect::<Option<Vec<_>>>() {
                        Some(n) => aspect_sizes(&dims, &which, &n, policy == "not_larger"),
                        None => vec![Dim::Unknown; which.len()],
                    }
                }
                _ => return unknown(),
            }
        }
        // Unknown values, both given, or lengths that do not match the axes (invalid).
        _ => vec![Dim::Unknown; which.len()],
    };
    let mut out = dims;
    for (&a, d) in which.iter().zip(resized) {
        out[a] = d;
    }
    vec![like(ctx, 0, Some(out))]
}

/// The resized axes from their scales. With `tf_crop_and_resize` the spec makes an axis
/// `floor(in * (roi_end - roi_start) * scale)` while onnxruntime (and onnx's inference) ignore the
/// roi: only a roi spanning each axis whole (end - start = 1) gives one answer; `None` otherwise.
fn resize_scales(
    ctx: &NodeCtx<'_>,
    dims: &[Dim],
    which: &[usize],
    scales: &[f64],
) -> Option<Vec<Dim>> {
    let crop = ctx.opset >= 11
        && ctx.attr_s("coordinate_transformation_mode") == Some("tf_crop_and_resize");
    if crop {
        let roi = ctx.floats(1)?;
        // The roi has a start and an end for each resized axis: all axes before opset 18.
        let n = which.len();
        if roi.len() != 2 * n || (0..n).any(|i| roi[n + i] - roi[i] != 1.0) {
            return None;
        }
    }
    Some(
        which
            .iter()
            .zip(scales)
            .map(|(&a, &s)| {
                // Scales are FLOAT: the values read are f32 values.
                scaled(&dims[a], s as f32)
            })
            .collect(),
    )
}

/// Sizes under `keep_aspect_ratio_policy` (opset 18), as onnxruntime and onnx compute them in f32:
/// one scale for every resized axis, the least (`not_larger`) or greatest (`not_smaller`) of
/// `size / in`, and each axis `round(scale * in)` (halves away from zero). Known input sizes only;
/// an empty axis or a negative size leaves the axes unknown.
fn aspect_sizes(dims: &[Dim], which: &[usize], sizes: &[i64], not_larger: bool) -> Vec<Dim> {
    let unknown = vec![Dim::Unknown; which.len()];
    let ins: Option<Vec<f32>> = which
        .iter()
        .map(|&a| dims[a].known().filter(|&n| n > 0).map(|n| n as f32))
        .collect();
    let Some(ins) = ins else {
        return unknown;
    };
    if sizes.iter().any(|&s| s < 0) {
        return unknown;
    }
    let ratios = sizes.iter().zip(&ins).map(|(&s, &n)| s as f32 / n);
    let scale = if not_larger {
        ratios.fold(f32::MAX, f32::min)
    } else {
        ratios.fold(f32::MIN_POSITIVE, f32::max)
    };
    ins.iter()
        .map(|&n| {
            let v = (scale * n).round();
            if v.is_finite() && v >= 0.0 && f64::from(v) < 9.2e18 {
                Dim::Known(v as u64)
            } else {
                Dim::Unknown
            }
        })
        .collect()
}

/// Upsample: scales from attributes `height_scale`/`width_scale` (opset 1, 4-D) and `scales` (7), from
/// input `scales` (9); each axis as [`scaled`].
fn upsample(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let Some(dims) = ctx.shape(0) else {
        return vec![like(ctx, 0, None)];
    };
    let r = dims.len();
    let scales: Option<Vec<f32>> = match ctx.opset {
        ..7 => match (ctx.attr_f("height_scale"), ctx.attr_f("width_scale")) {
            (Some(h), Some(w)) if r == 4 => Some(vec![1.0, 1.0, h, w]),
            _ => None,
        },
        7..9 => ctx.attr("scales").map(|a| a.floats.clone()),
        _ => ctx.floats(1).map(|v| v.iter().map(|&x| x as f32).collect()),
    };
    let shape = match scales.filter(|s| s.len() == r) {
        Some(s) => dims.iter().zip(&s).map(|(d, &k)| scaled(d, k)).collect(),
        None => vec![Dim::Unknown; r],
    };
    vec![like(ctx, 0, Some(shape))]
}

#[cfg(test)]
mod tests {
    use super::super::common::add;
    use super::super::common::test_util::*;
    use super::super::indexing::gather;
    use super::*;

    fn reshape_to(input: &[&str], target: &[Dim], opset: i64) -> Shape {
        let n = node("Reshape", 2, 1, vec![]);
        let t_info = ValueInfo::int64_data(target.to_vec(), false);
        out_shape(reshape, &n, opset, &[t(F32, input), Some(t_info)])
    }

    fn text(s: &Shape) -> String {
        super::super::super::dim::format_shape(s)
    }

    fn vals(v: &[i64]) -> Vec<Dim> {
        v.iter().map(|&x| from_i64(x)).collect()
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
    fn concat_sums_the_axis_and_joins_values() {
        let n = node("Concat", 3, 1, vec![attr_i("axis", 1)]);
        let s = out_shape(
            concat,
            &n,
            13,
            &[
                t(F32, &["N", "2"]),
                t(F32, &["?", "3"]),
                t(F32, &["N", "M"]),
            ],
        );
        assert_eq!(text(&s), "[N, M+5]");
        let s = out_shape(
            concat,
            &n,
            13,
            &[
                t(F32, &["N", "S"]),
                t(F32, &["?", "1"]),
                t(F32, &["N", "S"]),
            ],
        );
        assert_eq!(text(&s), "[N, S*2+1]");
        let s = out_shape(concat, &n, 13, &[t(F32, &["N", "S"]), t(F32, &["?", "?"])]);
        assert_eq!(s, shape(&["N", "?"]));
        let s = out_shape(
            concat,
            &n,
            13,
            &[t(F32, &["N", "2"]), t(F32, &["?", "3"]), None],
        );
        assert_eq!(s, shape(&["N", "?"]));
        let n2 = node("Concat", 2, 1, vec![attr_i("axis", -1)]);
        let s = out_shape(concat, &n2, 13, &[t(F32, &["N", "0"]), t(F32, &["4", "S"])]);
        assert_eq!(s, shape(&["4", "S"]));
        let n = node("Concat", 2, 1, vec![attr_i("axis", 0)]);
        let out = run(concat, &n, 13, &[ints(&[1, 2]), ints(&[3])]);
        assert_eq!(out[0].data_i64(), Some(vec![1, 2, 3]));
        let bad = node("Concat", 2, 1, vec![attr_i("axis", 5)]);
        assert_eq!(out_shape(concat, &bad, 13, &[ints(&[1]), ints(&[3])]), None);
    }

    #[test]
    fn split_sizes_from_attribute_input_or_equal_parts() {
        let n = node("Split", 2, 2, vec![attr_i("axis", 1)]);
        let out = run(split, &n, 13, &[t(F32, &["N", "10"]), ints(&[3, 7])]);
        assert_eq!(out[1].shape, shape(&["N", "7"]));
        let n = node("Split", 1, 3, vec![attr_i("axis", -1)]);
        let out = run(split, &n, 13, &[t(F32, &["N", "9"])]);
        assert_eq!(out[2].shape, shape(&["N", "3"]));
        let out = run(split, &n, 13, &[t(F32, &["N", "10"])]);
        assert_eq!(out[2].shape, shape(&["N", "?"]));
        let n = node("Split", 1, 3, vec![attr_i("num_outputs", 3)]);
        let out = run(split, &n, 18, &[t(F32, &["10"])]);
        let sizes: Vec<Shape> = out.iter().map(|v| v.shape.clone()).collect();
        assert_eq!(sizes, vec![shape(&["4"]), shape(&["4"]), shape(&["2"])]);
        let n = node("Split", 1, 4, vec![attr_i("num_outputs", 4)]);
        let out = run(split, &n, 18, &[t(F32, &["5"])]);
        assert_eq!(out[3].shape, shape(&["?"]));
        // Symbolic chunks: ceil(L/4) each, the rest last; at every L where the last is a size, the
        // sizes add up to L.
        let out = run(split, &n, 18, &[t(F32, &["L"])]);
        let sizes: Vec<String> = out.iter().map(|v| text(&v.shape)).collect();
        assert_eq!(sizes[..3], ["[ceil(L/4)]", "[ceil(L/4)]", "[ceil(L/4)]"]);
        let (Some([Dim::Sym(chunk)]), Some([Dim::Sym(last)])) =
            (out[0].shape.as_deref(), out[3].shape.as_deref())
        else {
            panic!("{sizes:?}");
        };
        for l in 0..200i64 {
            let (c, r) = (chunk.eval(&|_| Some(l)), last.eval(&|_| Some(l)));
            assert_eq!(c, Some((l + 3) / 4), "L = {l}");
            assert_eq!(r, Some(l - 3 * ((l + 3) / 4)), "L = {l}");
        }
        let x = ValueInfo::tensor(F32, Some(vec![mul(&d("seq"), &d("12"))]));
        let n = node("Split", 1, 3, vec![attr_i("num_outputs", 3)]);
        let out = run(split, &n, 18, &[Some(x)]);
        assert!(out.iter().all(|v| text(&v.shape) == "[seq*4]"), "{out:?}");
        let n = node("Split", 1, 2, vec![attr_ints("split", &[1, 2])]);
        let out = run(split, &n, 11, &[ints(&[7, 8, 9])]);
        assert_eq!(out[1].data_i64(), Some(vec![8, 9]));
        let n = node("Split", 1, 2, vec![attr_ints("split", &[2, 2])]);
        let out = run(split, &n, 11, &[ints(&[7, 8, 9])]);
        assert_eq!(out[1].int_vec(), None);
        let n = node("Split", 1, 2, vec![attr_ints("split", &[-5, i64::MAX])]);
        let out = run(split, &n, 11, &[ints(&[7, 8, 9])]);
        assert_eq!(out[0].shape, shape(&["?"]));
    }

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
        let out = slice_of(x.clone(), &[0], &[4], Some(&[0]), Some(&[0]));
        assert_eq!(out[0].shape, shape(&["?", "S", "8"]));
        let out = slice_of(x.clone(), &[5], &[2], Some(&[0]), None);
        assert_eq!(out[0].shape, shape(&["0", "S", "8"]));
        let out = slice_of(x.clone(), &[0], &[4], Some(&[3]), None);
        assert_eq!(out[0].shape, shape(&["?", "?", "?"]));
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
    fn values_of_small_matrices_move_with_their_elements() {
        let m = Data::Ints((1..=6).map(from_i64).collect());
        let dims = [Dim::Known(2), Dim::Known(3)];
        // [[1, 2, 3], [4, 5, 6]] transposed is [[1, 4], [2, 5], [3, 6]].
        let tr = transposed(&dims, &[1, 0], &m).unwrap();
        assert_eq!(tr, Data::Ints(vals(&[1, 4, 2, 5, 3, 6])));
        // Rows reversed (torch's flip) and every second column.
        let rows = slice_data(&dims, Some(&m), &[0], &vals(&[-1]), &vals(&[-HUGE]), &[-1]);
        assert_eq!(rows, Some(Data::Ints(vals(&[4, 5, 6, 1, 2, 3]))));
        let cols = slice_data(&dims, Some(&m), &[1], &vals(&[0]), &vals(&[3]), &[2]);
        assert_eq!(cols, Some(Data::Ints(vals(&[1, 3, 4, 6]))));
        // Values that are not those of the whole tensor, and an empty tensor with a huge axis.
        assert_eq!(
            transposed(&[Dim::Known(4), Dim::Known(3)], &[1, 0], &m),
            None
        );
        let huge = [Dim::Known(0), Dim::Known(1 << 62), Dim::Known(1 << 62)];
        let empty = Data::Ints(Vec::new());
        assert_eq!(transposed(&huge, &[2, 1, 0], &empty), Some(empty.clone()));
        assert_eq!(
            slice_data(&huge, Some(&empty), &[1], &vals(&[0]), &vals(&[5]), &[1]),
            Some(empty)
        );
        // A Reshape to [-1, 2] keeps them; one to an unknown size does not.
        let r = node("Reshape", 2, 1, vec![]);
        let x = Some(ValueInfo::int64_data(vals(&[2, 2, 0, 0]), false));
        let out = run(reshape, &r, 14, &[x.clone(), ints(&[-1, 2])]).remove(0);
        assert_eq!(text(&out.shape), "[2, 2]");
        assert_eq!(out.int_vec(), Some(vals(&[2, 2, 0, 0])));
        // ... but a matrix is no list: as a Reshape target it says nothing.
        let y = run(reshape, &r, 14, &[t(F32, &["4"]), Some(out)]).remove(0);
        assert_eq!(y.shape, None);
        let out = run(
            reshape,
            &r,
            14,
            &[x, Some(ValueInfo::tensor(I64, shape(&["2"])))],
        );
        assert_eq!(
            (text(&out[0].shape), out[0].data.clone()),
            ("[?, ?]".to_owned(), None)
        );
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
        assert_eq!(text(&s), "[N*2, ?]");
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
        assert_eq!(s, shape(&["?", "?"]));
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
        assert_eq!(
            run(range, &n, 11, &[int(0), int(1), int(0)])[0].shape,
            shape(&["?"])
        );
    }

    #[test]
    fn constant_of_shape_with_symbols_and_values() {
        let n = node(
            "ConstantOfShape",
            1,
            1,
            vec![attr_t("value", int64_tensor(&[1], &[1]))],
        );
        let out = run(constant_of_shape, &n, 9, &[ints(&[3])]);
        assert_eq!((out[0].elem, out[0].data_i64()), (I64, Some(vec![1, 1, 1])));
        let n = node("ConstantOfShape", 1, 1, vec![]);
        let dims = Some(ValueInfo::int64_data(vec![d("B"), from_i64(4)], false));
        let out = run(constant_of_shape, &n, 9, &[dims]);
        assert_eq!(
            (out[0].elem, out[0].shape.clone()),
            (F32, shape(&["B", "4"]))
        );
        let unknown = Some(ValueInfo::tensor(I64, shape(&["2"])));
        assert_eq!(
            run(constant_of_shape, &n, 9, &[unknown])[0].shape,
            shape(&["?", "?"])
        );
    }

    #[test]
    fn depth_space_resize_upsample() {
        let n = node("DepthToSpace", 1, 1, vec![attr_i("blocksize", 2)]);
        let s = out_shape(depth_to_space, &n, 13, &[t(F32, &["N", "16", "5", "W"])]);
        assert_eq!(text(&s), "[N, 4, 10, W*2]");
        let s = out_shape(depth_to_space, &n, 13, &[t(F32, &["N", "C", "5", "W"])]);
        assert_eq!(text(&s), "[N, ?, 10, W*2]");
        let n = node("SpaceToDepth", 1, 1, vec![attr_i("blocksize", 2)]);
        let s = out_shape(space_to_depth, &n, 13, &[t(F32, &["N", "4", "10", "5"])]);
        assert_eq!(s, shape(&["N", "16", "5", "?"]));
        let n = node("DepthToSpace", 1, 1, vec![attr_i("blocksize", i64::MAX)]);
        let s = out_shape(depth_to_space, &n, 13, &[t(F32, &["N", "16", "5", "W"])]);
        // Exact, if absurd, for the symbol; overflowing for the known sizes.
        assert_eq!(text(&s), "[N, ?, ?, W*9223372036854775807]");
        let n = node("SpaceToDepth", 1, 1, vec![attr_i("blocksize", 2)]);
        let x = ValueInfo::tensor(
            F32,
            Some(vec![d("N"), d("C"), mul(&d("H"), &d("2")), d("W")]),
        );
        let s = out_shape(space_to_depth, &n, 13, &[Some(x)]);
        assert_eq!(text(&s), "[N, C*4, H, ?]");

        let n = node("Resize", 4, 1, vec![]);
        let s = out_shape(
            resize,
            &n,
            13,
            &[
                t(F32, &["N", "3", "5", "5"]),
                None,
                None,
                ints(&[1, 3, 10, 12]),
            ],
        );
        assert_eq!(s, shape(&["1", "3", "10", "12"]));
        let n = node("Resize", 4, 1, vec![attr_ints("axes", &[2, 3])]);
        let s = out_shape(
            resize,
            &n,
            18,
            &[t(F32, &["N", "3", "5", "5"]), None, None, ints(&[10, 12])],
        );
        assert_eq!(s, shape(&["N", "3", "10", "12"]));
        let n = node("Resize", 3, 1, vec![]);
        let s = out_shape(
            resize,
            &n,
            13,
            &[t(F32, &["N", "3", "5", "5"]), None, t(F32, &["4"])],
        );
        assert_eq!(s, shape(&["?", "?", "?", "?"]));

        let n = node(
            "Upsample",
            1,
            1,
            vec![attr_floats("scales", &[1.0, 1.0, 2.0, 1.5])],
        );
        let s = out_shape(upsample, &n, 7, &[t(F32, &["N", "3", "5", "5"])]);
        assert_eq!(s, shape(&["N", "3", "10", "7"]));
        let n = node(
            "Upsample",
            1,
            1,
            vec![attr_f("height_scale", 2.0), attr_f("width_scale", f32::NAN)],
        );
        let s = out_shape(upsample, &n, 1, &[t(F32, &["N", "3", "5", "5"])]);
        assert_eq!(s, shape(&["N", "3", "10", "?"]));
    }

    /// A 1-D FLOAT constant.
    fn floats(v: &[f32]) -> Option<ValueInfo> {
        Some(
            ValueInfo::tensor(F32, Some(vec![Dim::Known(v.len() as u64)])).with_values(Some(
                Data::Floats(v.iter().map(|&x| f64::from(x)).collect()),
            )),
        )
    }

    fn ceil_of(name: &str, k: i64) -> Dim {
        Poly::of_size(&d(name))
            .unwrap()
            .ceil_div(k)
            .unwrap()
            .into_size()
    }

    /// `F.interpolate(scale_factor=2)` exported by torch: Resize(X, roi = "", scales = Constant).
    #[test]
    fn resize_by_constant_scales_keeps_symbols_exact() {
        let n = node("Resize", 3, 1, vec![]);
        let x = ValueInfo::tensor(
            F32,
            Some(vec![d("1"), d("64"), ceil_of("h", 32), ceil_of("w", 32)]),
        );
        let scales = floats(&[1.0, 1.0, 2.0, 2.0]);
        let s = out_shape(resize, &n, 13, &[Some(x), None, scales.clone()]);
        assert_eq!(text(&s), "[1, 64, ceil(h/32)*2, ceil(w/32)*2]");
        let s = out_shape(
            resize,
            &n,
            13,
            &[t(F32, &["2", "6"]), None, floats(&[2.0, 2.0])],
        );
        assert_eq!(s, shape(&["4", "12"]));
        // Opset 10: (X, scales).
        let n10 = node("Resize", 2, 1, vec![]);
        let s = out_shape(
            resize,
            &n10,
            10,
            &[t(F32, &["N", "3", "H", "5"]), scales.clone()],
        );
        assert_eq!(text(&s), "[N, 3, H*2, 10]");
        // Opset 11-12: an empty scales with sizes, or scales with an empty sizes.
        let n4 = node("Resize", 4, 1, vec![]);
        let s = out_shape(
            resize,
            &n4,
            11,
            &[
                t(F32, &["N", "3", "H", "5"]),
                floats(&[]),
                floats(&[]),
                ints(&[1, 3, 8, 9]),
            ],
        );
        assert_eq!(s, shape(&["1", "3", "8", "9"]));
        let s = out_shape(
            resize,
            &n4,
            11,
            &[
                t(F32, &["N", "3", "H", "5"]),
                floats(&[]),
                floats(&[1.0, 1.0, 0.5, 0.5]),
                ints(&[]),
            ],
        );
        assert_eq!(text(&s), "[N, 3, floor(H/2), 2]");
        // Unknown scales: the resized axes are unknown.
        let unknown = t(F32, &["4"]);
        let s = out_shape(
            resize,
            &n,
            13,
            &[t(F32, &["N", "3", "H", "5"]), None, unknown],
        );
        assert_eq!(s, shape(&["?", "?", "?", "?"]));
    }

    #[test]
    fn scales_of_symbols_only_where_the_f32_product_is_exact() {
        let h = d("h");
        assert_eq!(scaled(&h, 1.0), h);
        assert_eq!(scaled(&h, 2.0).to_string(), "h*2");
        assert_eq!(scaled(&h, 0.5).to_string(), "floor(h/2)");
        assert_eq!(scaled(&h, 1.5).to_string(), "h+floor(h/2)");
        assert_eq!(scaled(&h, 0.75).to_string(), "floor(h*3/4)");
        assert_eq!(scaled(&h, 0.1), Dim::Unknown, "0.1 is 13421773/2^27");
        assert_eq!(scaled(&h, 1.0 / 3.0), Dim::Unknown);
        assert_eq!(scaled(&h, 0.0), Dim::Unknown);
        assert_eq!(scaled(&h, -2.0), Dim::Unknown);
        assert_eq!(scaled(&h, f32::NAN), Dim::Unknown);
        assert_eq!(scaled(&h, f32::INFINITY), Dim::Unknown);
        assert_eq!(scaled(&Dim::Known(5), f32::MAX), Dim::Unknown);
        // Known sizes as onnxruntime computes them: f32 product, truncated.
        assert_eq!(scaled(&Dim::Known(3), 0.1), Dim::Known(0));
        assert_eq!(scaled(&Dim::Known(10), 0.3), Dim::Known(3));
        assert_eq!(scaled(&Dim::Known(7), 1.0 / 3.0), Dim::Known(2));
        // 2^24 + 1 is no f32: onnxruntime's product of it by 1 is 2^24.
        assert_eq!(scaled(&Dim::Known((1 << 24) + 1), 1.0), Dim::Known(1 << 24));
        // Each symbolic formula against the f32 computation at every size up to 5000.
        let scales = [
            0.5f32,
            1.5,
            2.0,
            0.25,
            0.75,
            1.25,
            3.0,
            4.0,
            0.125,
            2.5,
            255.0,
            1.0 / 128.0,
        ];
        for s in scales {
            let Dim::Sym(e) = scaled(&h, s) else {
                panic!("{s} is not symbolic")
            };
            for n in 0..5000i64 {
                let at = e.eval(&|name| (name == "h").then_some(n));
                let direct = ((n as f32) * s).trunc() as i64;
                assert_eq!(at, Some(direct), "scale {s} ({e}) at h = {n}");
            }
        }
    }

    #[test]
    fn resize_axes_aspect_policy_and_crop() {
        let n = node("Resize", 3, 1, vec![attr_ints("axes", &[-2, -1])]);
        let s = out_shape(
            resize,
            &n,
            18,
            &[t(F32, &["N", "3", "H", "5"]), None, floats(&[2.0, 0.5])],
        );
        assert_eq!(text(&s), "[N, 3, H*2, 2]");
        // not_larger: one scale min(100/200, 100/300) for both axes; each round(scale * in) in f32.
        let n = node(
            "Resize",
            4,
            1,
            vec![
                attr_ints("axes", &[2, 3]),
                attr_s("keep_aspect_ratio_policy", "not_larger"),
            ],
        );
        let x = t(F32, &["N", "3", "200", "300"]);
        let s = out_shape(resize, &n, 18, &[x.clone(), None, None, ints(&[100, 100])]);
        assert_eq!(s, shape(&["N", "3", "67", "100"]));
        let n = node(
            "Resize",
            4,
            1,
            vec![
                attr_ints("axes", &[2, 3]),
                attr_s("keep_aspect_ratio_policy", "not_smaller"),
            ],
        );
        let s = out_shape(resize, &n, 18, &[x, None, None, ints(&[100, 100])]);
        assert_eq!(s, shape(&["N", "3", "100", "150"]));
        // A symbolic input size decides the scale of every axis: unknown.
        let s = out_shape(
            resize,
            &n,
            18,
            &[
                t(F32, &["N", "3", "H", "300"]),
                None,
                None,
                ints(&[100, 100]),
            ],
        );
        assert_eq!(s, shape(&["N", "3", "?", "?"]));
        // Before opset 18 the policy does not exist: sizes are the sizes.
        let s = out_shape(
            resize,
            &n,
            13,
            &[
                t(F32, &["N", "3", "H", "W"]),
                None,
                None,
                ints(&[1, 3, 7, 9]),
            ],
        );
        assert_eq!(s, shape(&["1", "3", "7", "9"]));
        // Symbolic sizes (a shape computed in the graph) are taken as they are.
        let n = node("Resize", 4, 1, vec![]);
        let sizes = Some(ValueInfo::int64_data(
            vec![d("B"), from_i64(3), d("S"), from_i64(8)],
            false,
        ));
        let s = out_shape(
            resize,
            &n,
            13,
            &[t(F32, &["N", "3", "H", "W"]), None, None, sizes],
        );
        assert_eq!(s, shape(&["B", "3", "S", "8"]));
        // tf_crop_and_resize: the spec scales the roi's span, onnxruntime ignores the roi; only a whole
        // roi gives one answer.
        let n = node(
            "Resize",
            3,
            1,
            vec![attr_s(
                "coordinate_transformation_mode",
                "tf_crop_and_resize",
            )],
        );
        let x = t(F32, &["1", "1", "H", "10"]);
        let half = floats(&[0.0, 0.0, 0.25, 0.25, 1.0, 1.0, 0.75, 0.75]);
        let whole = floats(&[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
        let scales = floats(&[1.0, 1.0, 2.0, 2.0]);
        let s = out_shape(resize, &n, 13, &[x.clone(), half, scales.clone()]);
        assert_eq!(s, shape(&["?", "?", "?", "?"]));
        let s = out_shape(resize, &n, 13, &[x.clone(), whole, scales.clone()]);
        assert_eq!(text(&s), "[1, 1, H*2, 20]");
        let s = out_shape(resize, &n, 13, &[x, None, scales]);
        assert_eq!(s, shape(&["?", "?", "?", "?"]));
    }

    #[test]
    fn upsample_from_attributes_and_input() {
        let n = node("Upsample", 2, 1, vec![]);
        let s = out_shape(
            upsample,
            &n,
            9,
            &[t(F32, &["N", "3", "H", "5"]), floats(&[1.0, 1.0, 2.0, 3.0])],
        );
        assert_eq!(text(&s), "[N, 3, H*2, 15]");
        let s = out_shape(
            upsample,
            &n,
            9,
            &[t(F32, &["N", "3", "H", "5"]), t(F32, &["4"])],
        );
        assert_eq!(s, shape(&["?", "?", "?", "?"]));
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
        assert_eq!(out[0].shape, shape(&["?"]));
    }

    /// The transformer pattern: Shape -> Gather -> Unsqueeze -> Concat(with constants) -> Reshape.
    #[test]
    fn shape_arithmetic_chain_reaches_reshape() {
        let x = t(F32, &["batch", "seq", "768"]);
        let s = run(
            shape_op,
            &node("Shape", 1, 1, vec![]),
            13,
            std::slice::from_ref(&x),
        )
        .remove(0);
        let g = node("Gather", 2, 1, vec![attr_i("axis", 0)]);
        let b = run(gather, &g, 13, &[Some(s.clone()), int(0)]).remove(0);
        assert_eq!(
            (b.shape.clone(), b.int_vec()),
            (shape(&[]), Some(vec![d("batch")]))
        );
        let sq = run(gather, &g, 13, &[Some(s), int(-2)]).remove(0);
        let un = node("Unsqueeze", 2, 1, vec![]);
        let b1 = run(unsqueeze, &un, 13, &[Some(b), ints(&[0])]).remove(0);
        let s1 = run(unsqueeze, &un, 13, &[Some(sq), ints(&[0])]).remove(0);
        assert_eq!(b1.int_vec(), Some(vec![d("batch")]));
        let cat = node("Concat", 4, 1, vec![attr_i("axis", 0)]);
        let target = run(
            concat,
            &cat,
            13,
            &[Some(b1.clone()), Some(s1), ints(&[12]), ints(&[64])],
        )
        .remove(0);
        assert_eq!(target.shape, shape(&["4"]));
        let r = node("Reshape", 2, 1, vec![]);
        let out = run(reshape, &r, 14, &[x.clone(), Some(target)]).remove(0);
        assert_eq!(out.shape, shape(&["batch", "seq", "12", "64"]));
        // [batch, -1, 768] infers seq; [batch, -1, 64] cannot say seq * 12.
        let cat3 = node("Concat", 3, 1, vec![attr_i("axis", 0)]);
        let target = run(
            concat,
            &cat3,
            13,
            &[Some(b1.clone()), ints(&[-1]), ints(&[768])],
        )
        .remove(0);
        let out = run(reshape, &r, 14, &[x.clone(), Some(target)]).remove(0);
        assert_eq!(out.shape, shape(&["batch", "seq", "768"]));
        let target = run(
            concat,
            &cat3,
            13,
            &[Some(b1.clone()), ints(&[-1]), ints(&[64])],
        )
        .remove(0);
        let out = run(reshape, &r, 14, &[x, Some(target)]).remove(0);
        assert_eq!(text(&out.shape), "[batch, seq*12, 64]");
        // ConstantOfShape of a shape assembled from a symbol and a constant.
        let cat2 = node("Concat", 2, 1, vec![attr_i("axis", 0)]);
        let dims = run(concat, &cat2, 13, &[Some(b1), ints(&[1])]).remove(0);
        let c = node("ConstantOfShape", 1, 1, vec![]);
        assert_eq!(
            run(constant_of_shape, &c, 9, &[Some(dims)])[0].shape,
            shape(&["batch", "1"])
        );
    }
}
