//! Spatial resampling: DepthToSpace, SpaceToDepth, Resize and Upsample.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#Resize> and the pages of each op.
//! Opset history that matters here:
//! - Resize: 10 (X, scales); 11 adds `roi` and `sizes`; 18 adds `axes` and `keep_aspect_ratio_policy`.
//! - Resize 13 makes `roi` and `scales` optional; 19 adds `half_pixel_symmetric` (no effect on sizes).
//!   Opsets 11-12 require `scales` even with `sizes`: an empty tensor there means "not given".
//! - Upsample: `height_scale`/`width_scale` in 1, `scales` attribute in 7, input from 9.
//!
//! Resize and Upsample sizes are what onnxruntime computes (`upsamplebase.h`:
//! `static_cast<int64_t>(scale * in)` with the product in f32, `round` of one f32 scale under
//! `keep_aspect_ratio_policy`), which onnx's own inference computes too. A Resize of a symbol by 0.5
//! is `floor(h/2)`; by a scale that is no exact expression (0.1) it is unknown. For
//! `tf_crop_and_resize` the spec scales the roi's span (`floor(in * (roi_end - roi_start) * scale)`)
//! but both ignore the roi: only where the two agree (a roi of the whole axis, or no roi) is a size
//! given.
//!
//! Contracts, each measured against onnxruntime 1.31 (`tests/conformance/contracts/cases_resize.py`):
//! - DepthToSpace, SpaceToDepth: [`SPACE_DEPTH_BLOCKSIZE`] and the ranks [`DEPTH_TO_SPACE_RANK`],
//!   [`SPACE_TO_DEPTH_RANK`] (onnx's inference, at load); [`DEPTH_TO_SPACE_CHANNELS`] and
//!   [`SPACE_TO_DEPTH_BLOCKS`] (the kernels, at run; onnx floors them), E2 or W2 on a symbol.
//! - Resize: [`RESIZE_AXES`] (18), [`RESIZE_SCALES_OR_SIZES`] (the kernel counts an empty scales as not
//!   given but any sizes input beside a non-empty scales as given), [`RESIZE_SCALES`], [`RESIZE_SIZES`],
//!   [`RESIZE_SCALE_VALUE`] (above 0, NaN refused), [`RESIZE_SIZE_VALUE`] (a size of 0 gives a scale of
//!   0 under stretch and not_larger; not_smaller takes the greatest ratio and runs),
//!   [`RESIZE_ROI`] (only with tf_crop_and_resize; a given empty roi is refused, an absent one is the
//!   whole input) and [`RESIZE_MODE_RANK`]: onnxruntime's linear kernel takes ranks 2 to 5, its cubic
//!   kernel 2 and 4, whatever the scales (its limits on the outer scales of rank 4 and 5 depend on the
//!   values and are left out). A scale that empties an axis (0.1 of 4) runs.
//! - Upsample (7, 9; onnxruntime has no Upsample-1): [`UPSAMPLE_SCALES`], [`UPSAMPLE_SCALE_VALUE`]
//!   (1 or more), [`RESIZE_MODE_RANK`].

use crate::shape::contract::Contract;
use crate::shape::ctx::NodeCtx;
use crate::shape::dim::{Dim, Poly};
use crate::shape::ops::common::{Param, axes, div_exact, len_1d, like, mul, size_of_value};
use crate::shape::value::{ValueInfo, as_i64};

pub const SPACE_DEPTH_BLOCKSIZE: Contract =
    Contract::new("space-depth-blocksize", "blocksize is 1 or more");
pub const DEPTH_TO_SPACE_RANK: Contract =
    Contract::new("depth-to-space-rank", "the input has rank 4 (N, C, H, W)");
pub const DEPTH_TO_SPACE_CHANNELS: Contract = Contract::new(
    "depth-to-space-channels",
    "the channels (axis 1) are a multiple of blocksize²",
);
pub const SPACE_TO_DEPTH_RANK: Contract =
    Contract::new("space-to-depth-rank", "the input has rank 4 (N, C, H, W)");
pub const SPACE_TO_DEPTH_BLOCKS: Contract = Contract::new(
    "space-to-depth-blocks",
    "the height and width (axes 2 and 3) are multiples of blocksize",
);

/// The `blocksize` attribute, when positive.
fn blocksize(ctx: &NodeCtx<'_>) -> Option<u64> {
    ctx.attr_i("blocksize")
        .and_then(|b| u64::try_from(b).ok())
        .filter(|&b| b > 0)
}

/// Checks the contracts DepthToSpace (`to_space`) and SpaceToDepth share, the blocksize and the
/// rank, then the sizes the block divides; false when one is broken. onnx's inference refuses a
/// blocksize below 1 and a rank other than 4 at load, onnxruntime's kernel the sizes at run.
fn space_depth_contracts(ctx: &mut NodeCtx<'_>, to_space: bool) -> bool {
    if let Some(b) = ctx.attr_i("blocksize").filter(|&b| b < 1) {
        let detail = format!("a blocksize of {b}");
        ctx.out_of_range(SPACE_DEPTH_BLOCKSIZE, &[0], detail);
        return false;
    }
    let Some(dims) = ctx.shape(0) else {
        return true;
    };
    let rank = if to_space {
        DEPTH_TO_SPACE_RANK
    } else {
        SPACE_TO_DEPTH_RANK
    };
    if dims.len() != 4 {
        ctx.broken(
            rank,
            &[0],
            format_args!("the input has rank {}", dims.len()),
        );
        return false;
    }
    let Some(b) = blocksize(ctx) else {
        return true;
    };
    if to_space {
        let Some(bb) = b.checked_mul(b) else {
            return true;
        };
        return ctx
            .operand(0, 1)
            .is_none_or(|c| ctx.require_multiple(DEPTH_TO_SPACE_CHANNELS, &c, bb));
    }
    [2, 3].into_iter().all(|a| {
        ctx.operand(0, a)
            .is_none_or(|o| ctx.require_multiple(SPACE_TO_DEPTH_BLOCKS, &o, b))
    })
}

/// DepthToSpace: `[N, C / b^2, H * b, W * b]`.
pub(super) fn depth_to_space(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if !space_depth_contracts(ctx, true) {
        return vec![like(ctx, 0, None)];
    }
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
pub(super) fn space_to_depth(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if !space_depth_contracts(ctx, false) {
        return vec![like(ctx, 0, None)];
    }
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

pub const RESIZE_AXES: Contract = Contract::new(
    "resize-axes",
    "each axis (opset 18) is an axis of the input, in [-rank, rank-1], none twice",
);
pub const RESIZE_SCALES_OR_SIZES: Contract = Contract::new(
    "resize-scales-or-sizes",
    "exactly one of scales and sizes is given: a non-empty scales and no sizes input, or a non-empty \
     sizes and scales absent or empty",
);
pub const RESIZE_SCALES: Contract = Contract::new(
    "resize-scales",
    "scales holds one value per resized axis: rank values, or len(axes) from opset 18",
);
pub const RESIZE_SIZES: Contract = Contract::new(
    "resize-sizes",
    "sizes holds one value per resized axis: rank values, or len(axes) from opset 18",
);
pub const RESIZE_SCALE_VALUE: Contract =
    Contract::new("resize-scale-value", "every scale is above 0");
pub const RESIZE_SIZE_VALUE: Contract = Contract::new(
    "resize-size-value",
    "each size is 1 or more, and 0 where the input's axis is empty (stretch); with not_larger, every \
     size is 1 or more (for non-empty axes)",
);
pub const RESIZE_ROI: Contract = Contract::new(
    "resize-roi",
    "with tf_crop_and_resize, a given roi holds a start and an end per input axis (2 * rank \
     values; from opset 18 also 2 * len(axes))",
);
pub const RESIZE_MODE_RANK: Contract = Contract::new(
    "resize-mode-rank",
    "linear mode resizes inputs of rank 2 to 5, cubic mode inputs of rank 2 or 4 (onnxruntime's \
     kernel; the spec allows any rank)",
);

/// The length of the 1-D list input at `slot` (integers or floats): from its values, else its shape.
fn list_len(ctx: &NodeCtx<'_>, slot: usize) -> Option<u64> {
    match ctx.floats(slot) {
        Some(v) => Some(v.len() as u64),
        None => len_1d(ctx, slot),
    }
}

/// Whether the list input at `slot` is given as onnxruntime counts it (absent or empty is not
/// given); `None` when its length is unknown.
fn given(ctx: &NodeCtx<'_>, slot: usize) -> Option<bool> {
    if !ctx.has_input(slot) {
        return Some(false);
    }
    list_len(ctx, slot).map(|n| n > 0)
}

/// Checks [`RESIZE_MODE_RANK`] for Resize and Upsample on an input of rank `r`.
fn mode_rank(ctx: &mut NodeCtx<'_>, r: usize) -> bool {
    let mode = ctx.attr_s("mode").unwrap_or("nearest");
    let fits = match mode {
        "linear" => (2..=5).contains(&r),
        "cubic" => r == 2 || r == 4,
        _ => true,
    };
    if !fits {
        let detail = format!("{mode} mode on an input of rank {r}");
        ctx.broken(RESIZE_MODE_RANK, &[0], detail);
    }
    fits
}

/// Checks Resize's contracts on an input of rank `rank` (those that need it only where known);
/// false when one is broken. Measured against onnxruntime: onnx's inference refuses most of them
/// at load when the lists are constants, the kernel at run otherwise; the roi is read only with
/// tf_crop_and_resize.
fn resize_contracts(ctx: &mut NodeCtx<'_>, rank: Option<usize>) -> bool {
    let scale_slot = if ctx.opset >= 11 { 2 } else { 1 };
    let slots: Vec<usize> = (0..4).filter(|&s| ctx.has_input(s)).collect();
    let list = ctx
        .attr_ints("axes")
        .filter(|_| ctx.opset >= 18)
        .map(<[i64]>::to_vec);
    if let (Some(list), Some(r)) = (&list, rank) {
        let mut seen = Vec::with_capacity(list.len());
        for &a in list {
            let Some(k) = ctx.require_axis(RESIZE_AXES, &[0], a, r) else {
                return false;
            };
            if seen.contains(&k) {
                let detail = format!("axis {a} names input axis {k} twice");
                ctx.out_of_range(RESIZE_AXES, &[0], detail);
                return false;
            }
            seen.push(k);
        }
    }
    if ctx.opset >= 11 {
        // The kernel counts an empty scales as not given, but any sizes input beside scales as a
        // second list, empty or not.
        let (scales, sizes) = (given(ctx, 2), given(ctx, 3));
        let detail = match (scales, sizes) {
            (Some(true), Some(true)) => Some("both are given"),
            (Some(true), Some(false)) if ctx.has_input(3) => {
                Some("scales is given, and an empty sizes beside it")
            }
            (Some(false), Some(false)) => Some("neither is given"),
            _ => None,
        };
        if let Some(detail) = detail {
            ctx.broken(RESIZE_SCALES_OR_SIZES, &slots, detail);
            return false;
        }
    }
    let resized = list.as_ref().map(|l| l.len()).or(rank);
    let sizes_slot = (ctx.opset >= 11).then_some(3);
    for (slot, c, what) in [
        (Some(scale_slot), RESIZE_SCALES, "scales"),
        (sizes_slot, RESIZE_SIZES, "sizes"),
    ] {
        let Some(slot) = slot.filter(|&s| ctx.has_input(s)) else {
            continue;
        };
        // An empty list is no list (opset 10's scales is never empty).
        if let (Some(n), Some(want)) = (list_len(ctx, slot), resized)
            && (n > 0 || ctx.opset < 11)
            && n != want as u64
        {
            let axes = if list.is_some() { "axes" } else { "input axes" };
            let detail = format!("{n} {what} for {want} {axes}");
            ctx.broken(c, &slots, detail);
            return false;
        }
    }
    if let Some((a, v)) = ctx
        .floats(scale_slot)
        .and_then(|v| v.iter().enumerate().find(|&(_, &v)| v.is_nan() || v <= 0.0))
    {
        let detail = format!("scale {a} is {}", *v as f32);
        ctx.out_of_range(RESIZE_SCALE_VALUE, &slots, detail);
        return false;
    }
    // Under stretch each axis's scale is its size / its input size; under not_larger one scale, the
    // least of those; under not_smaller the greatest, which a 0 or a negative size need not decide.
    let policy = if ctx.opset >= 18 {
        ctx.attr_s("keep_aspect_ratio_policy").unwrap_or("stretch")
    } else {
        "stretch"
    };
    if let (Some(slot), "stretch" | "not_larger") = (sizes_slot, policy)
        && let Some(sizes) = ctx.data(slot).map(<[Dim]>::to_vec)
    {
        let stretch = policy == "stretch";
        let dims = ctx.shape(0);
        let which: Option<Vec<usize>> = match (&list, &dims) {
            (Some(l), Some(d)) => axes(l, d.len()),
            (None, Some(d)) => Some((0..d.len()).collect()),
            _ => None,
        };
        let inputs: Vec<Dim> = match (&which, &dims) {
            (Some(w), Some(d)) if w.len() == sizes.len() => {
                w.iter().map(|&a| d[a].clone()).collect()
            }
            _ => vec![Dim::Unknown; sizes.len()],
        };
        // not_larger's ratios are all positive but for this size only where no axis is empty.
        let all_sized = inputs
            .iter()
            .all(|d| matches!(d, Dim::Sym(_)) || d.known().is_some_and(|n| n > 0));
        for (j, size) in sizes.iter().enumerate() {
            let Some(v) = as_i64(size) else {
                continue;
            };
            let input = inputs[j].clone();
            let wrong = match input {
                _ if !stretch => all_sized && v < 1,
                Dim::Known(0) => v != 0,
                Dim::Known(_) | Dim::Sym(_) => v < 1,
                Dim::Unknown => v < 0,
            };
            if wrong {
                let detail = format!("size {j} is {v} for an axis of size {input}");
                ctx.out_of_range(RESIZE_SIZE_VALUE, &slots, detail);
                return false;
            }
        }
    }
    let crop = ctx.opset >= 11
        && ctx.attr_s("coordinate_transformation_mode") == Some("tf_crop_and_resize");
    if let (true, Some(r), Some(n)) = (crop, rank, list_len(ctx, 1).filter(|_| ctx.has_input(1))) {
        let by_axes = list.as_ref().map(|l| 2 * l.len() as u64);
        if n != 2 * r as u64 && Some(n) != by_axes {
            let detail = format!("a roi of {n} values for an input of rank {r}");
            ctx.broken(RESIZE_ROI, &slots, detail);
            return false;
        }
    }
    rank.is_none_or(|r| mode_rank(ctx, r))
}

/// Resize (10: X, scales; 11: X, roi, scales, sizes; 18: `axes`, `keep_aspect_ratio_policy`): each
/// resized axis (all, or those of `axes`) from its scale ([`scaled`]) or its size; the others keep
/// the input's size.
pub(super) fn resize(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if !resize_contracts(ctx, ctx.shape(0).map(|s| s.len())) {
        return vec![like(ctx, 0, None)];
    }
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
    // An absent roi (opset 13 on) is the whole of each axis.
    if crop && ctx.has_input(1) {
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

pub const UPSAMPLE_SCALES: Contract =
    Contract::new("upsample-scales", "scales holds one value per input axis");
pub const UPSAMPLE_SCALE_VALUE: Contract =
    Contract::new("upsample-scale-value", "every scale is 1 or more");

/// Checks Upsample's contracts (opsets 7 and 9: onnxruntime has no Upsample-1 kernel); false when
/// one is broken.
fn upsample_contracts(ctx: &mut NodeCtx<'_>, rank: Option<usize>) -> bool {
    let (len, values): (Option<u64>, Option<Vec<f64>>) = if ctx.opset < 9 {
        let s = ctx.attr("scales").map(|a| a.floats.clone());
        (
            s.as_ref().map(|v| v.len() as u64),
            s.map(|v| v.iter().map(|&x| f64::from(x)).collect()),
        )
    } else {
        (list_len(ctx, 1), ctx.floats(1).map(<[f64]>::to_vec))
    };
    let slots: &[usize] = if ctx.opset < 9 { &[0] } else { &[0, 1] };
    if let (Some(n), Some(r)) = (len, rank)
        && n != r as u64
    {
        let detail = format!("{n} scales for an input of rank {r}");
        ctx.broken(UPSAMPLE_SCALES, slots, detail);
        return false;
    }
    if let Some((a, v)) = values
        .as_ref()
        .and_then(|v| v.iter().enumerate().find(|&(_, &v)| v.is_nan() || v < 1.0))
    {
        let detail = format!("scale {a} is {}", *v as f32);
        ctx.out_of_range(UPSAMPLE_SCALE_VALUE, slots, detail);
        return false;
    }
    rank.is_none_or(|r| mode_rank(ctx, r))
}

/// Upsample: scales from attributes `height_scale`/`width_scale` (opset 1, 4-D) and `scales` (7), from
/// input `scales` (9); each axis as [`scaled`].
pub(super) fn upsample(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if ctx.opset >= 7 && !upsample_contracts(ctx, ctx.shape(0).map(|s| s.len())) {
        return vec![like(ctx, 0, None)];
    }
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
    use super::super::text;
    use super::*;

    use crate::shape::ops::common::test_util::*;

    use crate::shape::value::{Data, from_i64};

    #[test]
    fn depth_space_resize_upsample() {
        let n = node("DepthToSpace", 1, 1, vec![attr_i("blocksize", 2)]);
        let s = out_shape(depth_to_space, &n, 13, &[t(F32, &["N", "16", "5", "W"])]);
        assert_eq!(text(&s), "[N, 4, 10, W*2]");
        let s = out_shape(depth_to_space, &n, 13, &[t(F32, &["N", "C", "5", "W"])]);
        assert_eq!(text(&s), "[N, ?, 10, W*2]");
        let n = node("SpaceToDepth", 1, 1, vec![attr_i("blocksize", 2)]);
        let s = out_shape(space_to_depth, &n, 13, &[t(F32, &["N", "4", "10", "W"])]);
        assert_eq!(s, shape(&["N", "16", "5", "?"]));
        // A width of 5 breaks space-to-depth-blocks: no shape.
        let s = out_shape(space_to_depth, &n, 13, &[t(F32, &["N", "4", "10", "5"])]);
        assert_eq!(s, None);
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
            &node("Resize", 3, 1, vec![]),
            11,
            &[
                t(F32, &["N", "3", "H", "5"]),
                floats(&[]),
                floats(&[1.0, 1.0, 0.5, 0.5]),
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
        // An absent roi (opset 13) is the whole input.
        let s = out_shape(resize, &n, 13, &[x, None, scales]);
        assert_eq!(text(&s), "[1, 1, H*2, 20]");
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
    fn depth_space_contracts() {
        let d2s = |b: i64, input: &[&str]| {
            let n = node("DepthToSpace", 1, 1, vec![attr_i("blocksize", b)]);
            contracts(depth_to_space, &n, 13, &[t(F32, input)])
        };
        assert!(d2s(2, &["N", "8", "H", "5"]).is_empty());
        assert!(d2s(2, &["N", "0", "3", "5"]).is_empty());
        assert_eq!(
            d2s(2, &["N", "6", "4", "4"]),
            ["E2 depth-to-space-channels"]
        );
        assert_eq!(
            d2s(2, &["N", "C", "4", "4"]),
            ["W2 depth-to-space-channels"]
        );
        assert_eq!(d2s(2, &["8", "4", "4"]), ["E2 depth-to-space-rank"]);
        assert_eq!(d2s(0, &["N", "8", "4", "4"]), ["E3 space-depth-blocksize"]);
        let s2d = |b: i64, input: &[&str]| {
            let n = node("SpaceToDepth", 1, 1, vec![attr_i("blocksize", b)]);
            contracts(space_to_depth, &n, 13, &[t(F32, input)])
        };
        assert!(s2d(3, &["N", "C", "6", "9"]).is_empty());
        assert_eq!(s2d(2, &["N", "C", "6", "5"]), ["E2 space-to-depth-blocks"]);
        assert_eq!(s2d(2, &["N", "C", "H", "4"]), ["W2 space-to-depth-blocks"]);
        assert_eq!(
            s2d(2, &["N", "C", "6", "4", "1"]),
            ["E2 space-to-depth-rank"]
        );
        let n = node("SpaceToDepth", 1, 1, vec![attr_i("blocksize", 2)]);
        assert_eq!(
            out_shape(space_to_depth, &n, 13, &[t(F32, &["1", "3", "5", "4"])]),
            None
        );
    }

    #[test]
    fn resize_contracts() {
        let x = t(F32, &["N", "2", "4", "4"]);
        let r13 = |attrs: Vec<crate::proto::AttributeProto>, inputs: &[Option<ValueInfo>]| {
            contracts(resize, &node("Resize", 4, 1, attrs), 13, inputs)
        };
        let scales = floats(&[1.0, 1.0, 2.0, 2.0]);
        assert!(r13(vec![], &[x.clone(), None, scales.clone()]).is_empty());
        assert!(r13(vec![], &[x.clone(), None, None, ints(&[1, 2, 8, 8])]).is_empty());
        assert_eq!(
            r13(vec![], &[x.clone(), None, floats(&[2.0, 2.0])]),
            ["E2 resize-scales"]
        );
        assert_eq!(
            r13(vec![], &[x.clone(), None, None, ints(&[8, 8])]),
            ["E2 resize-sizes"]
        );
        let both = [x.clone(), None, scales.clone(), ints(&[1, 2, 8, 8])];
        assert_eq!(r13(vec![], &both), ["E2 resize-scales-or-sizes"]);
        // An empty scales is not given; an empty sizes beside scales is a second list.
        let empty_scales = [x.clone(), None, floats(&[]), ints(&[1, 2, 8, 8])];
        assert!(r13(vec![], &empty_scales).is_empty());
        let empty_sizes = [x.clone(), None, scales.clone(), ints(&[])];
        assert_eq!(r13(vec![], &empty_sizes), ["E2 resize-scales-or-sizes"]);
        assert_eq!(
            r13(vec![], &[x.clone(), None, None]),
            ["E2 resize-scales-or-sizes"]
        );
        let zero = [x.clone(), None, floats(&[1.0, 1.0, 0.0, 2.0])];
        assert_eq!(r13(vec![], &zero), ["E3 resize-scale-value"]);
        let nan = [x.clone(), None, floats(&[1.0, 1.0, f32::NAN, 2.0])];
        assert_eq!(r13(vec![], &nan), ["E3 resize-scale-value"]);
        let size0 = [x.clone(), None, None, ints(&[1, 2, 0, 8])];
        assert_eq!(r13(vec![], &size0), ["E3 resize-size-value"]);
        // An empty axis keeps 0 (and only 0); a batch of unknown size may be 0.
        let e = t(F32, &["N", "2", "0", "4"]);
        assert!(r13(vec![], &[e.clone(), None, None, ints(&[1, 2, 0, 8])]).is_empty());
        let c = r13(vec![], &[e, None, None, ints(&[1, 2, 3, 8])]);
        assert_eq!(c, ["E3 resize-size-value"]);
        // The roi only matters with tf_crop_and_resize.
        let crop = || {
            vec![attr_s(
                "coordinate_transformation_mode",
                "tf_crop_and_resize",
            )]
        };
        let short_roi = [x.clone(), floats(&[0.0, 0.0, 1.0, 1.0]), scales.clone()];
        assert!(r13(vec![], &short_roi).is_empty());
        assert_eq!(r13(crop(), &short_roi), ["E2 resize-roi"]);
        assert!(r13(crop(), &[x.clone(), None, scales.clone()]).is_empty());
        // onnxruntime's linear and cubic kernels by rank.
        let mode = |m: &str| vec![attr_s("mode", m)];
        assert!(r13(mode("linear"), &[x.clone(), None, scales.clone()]).is_empty());
        let one = [t(F32, &["5"]), None, floats(&[2.0])];
        assert_eq!(r13(mode("linear"), &one), ["E2 resize-mode-rank"]);
        let three = [t(F32, &["2", "3", "4"]), None, floats(&[1.0, 2.0, 2.0])];
        assert!(r13(mode("linear"), &three).is_empty());
        assert_eq!(r13(mode("cubic"), &three), ["E2 resize-mode-rank"]);
        // Opset 18: axes.
        let r18 = |attrs: Vec<crate::proto::AttributeProto>, inputs: &[Option<ValueInfo>]| {
            contracts(resize, &node("Resize", 4, 1, attrs), 18, inputs)
        };
        let axes_ = |a: &[i64]| vec![attr_ints("axes", a)];
        assert!(r18(axes_(&[2, -1]), &[x.clone(), None, floats(&[2.0, 2.0])]).is_empty());
        assert_eq!(
            r18(axes_(&[2, 3]), &[x.clone(), None, scales.clone()]),
            ["E2 resize-scales"]
        );
        assert_eq!(
            r18(axes_(&[3, -1]), &[x.clone(), None, floats(&[2.0, 2.0])]),
            ["E3 resize-axes"]
        );
        assert_eq!(
            r18(axes_(&[4]), &[x.clone(), None, floats(&[2.0])]),
            ["E3 resize-axes"]
        );
        let policy = |p: &str| vec![attr_s("keep_aspect_ratio_policy", p)];
        let sizes0 = [x.clone(), None, None, ints(&[1, 2, 0, 8])];
        assert!(r18(policy("not_smaller"), &sizes0).is_empty());
        assert_eq!(r18(policy("not_larger"), &sizes0), ["E3 resize-size-value"]);
        // Opset 10: (X, scales), never empty.
        let n10 = node("Resize", 2, 1, vec![]);
        assert!(contracts(resize, &n10, 10, &[x.clone(), scales]).is_empty());
        let c = contracts(resize, &n10, 10, &[x, floats(&[])]);
        assert_eq!(c, ["E2 resize-scales"]);
    }

    #[test]
    fn upsample_contracts() {
        let x = t(F32, &["N", "2", "4", "4"]);
        let n7 = |scales: &[f32], mode: &str| {
            let attrs = vec![attr_floats("scales", scales), attr_s("mode", mode)];
            contracts(
                upsample,
                &node("Upsample", 1, 1, attrs),
                7,
                std::slice::from_ref(&x),
            )
        };
        assert!(n7(&[1.0, 1.0, 2.0, 1.5], "nearest").is_empty());
        assert_eq!(n7(&[2.0, 2.0], "nearest"), ["E2 upsample-scales"]);
        assert_eq!(
            n7(&[1.0, 1.0, 0.5, 2.0], "nearest"),
            ["E3 upsample-scale-value"]
        );
        let n9 = node("Upsample", 2, 1, vec![attr_s("mode", "linear")]);
        let c = contracts(upsample, &n9, 9, &[t(F32, &["4"]), floats(&[2.0])]);
        assert_eq!(c, ["E2 resize-mode-rank"]);
        let c = contracts(upsample, &n9, 9, &[x, floats(&[])]);
        assert_eq!(c, ["E2 upsample-scales"]);
    }
}
