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
//! but both ignore the roi: only where the two agree (a roi of the whole axis) is a size given.

use crate::shape::ctx::NodeCtx;
use crate::shape::dim::{Dim, Poly};
use crate::shape::ops::common::{Param, axes, div_exact, like, mul, size_of_value};
use crate::shape::value::{ValueInfo, as_i64};

/// The `blocksize` attribute, when positive.
fn blocksize(ctx: &NodeCtx<'_>) -> Option<u64> {
    ctx.attr_i("blocksize")
        .and_then(|b| u64::try_from(b).ok())
        .filter(|&b| b > 0)
}

/// DepthToSpace: `[N, C / b^2, H * b, W * b]`.
pub(super) fn depth_to_space(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
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
pub(super) fn resize(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
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
pub(super) fn upsample(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
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
}
