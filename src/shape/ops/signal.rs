//! Signal processing: DFT, STFT, the window generators HannWindow, HammingWindow and
//! BlackmanWindow, and MelWeightMatrix.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#DFT>, `#STFT`, `#HannWindow`,
//! `#HammingWindow`, `#BlackmanWindow`, `#MelWeightMatrix`. Opset history:
//! - DFT: 17 (`axis` attribute, default 1); 20 makes `axis` an input (default -2). Both accept axes in
//!   `[-r, -2]` or `[0, r - 2]`: the last axis holds the real and imaginary parts.
//! - STFT, the windows, MelWeightMatrix: 17.
//!
//! DFT keeps the input's rank and changes the axis it transforms to `dft_length` (the input's size
//! there by default), or to `floor(dft_length / 2) + 1` for a one-sided forward transform (RFFT). The
//! last axis is 2 (complex), except for the one-sided inverse (IRFFT), which is real (1) and whose
//! default length is `2 * (n - 1)`. STFT gives `[batch, frames, bins, 2]` with
//! `frames = floor((signal_length - frame_length) / frame_step) + 1` and `bins = frame_length / 2 + 1`
//! (one-sided, the default) or `frame_length`. A window is `[size]`; MelWeightMatrix is
//! `[floor(dft_length / 2) + 1, num_mel_bins]`.
//!
//! Every one of these sizes is exact for symbolic lengths too (`floor(T/2)+1`, `F*2-2`), lengths
//! given as scalar inputs included when data propagation knows them (a length read from a shape).
//! The STFT's frame count assumes a symbolic signal holds one frame at least, as it must for the op
//! to run; a known signal shorter than the frame gives no size.

use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Poly};
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::{like, size_of_value};
use super::support::{dim_of, elem, elem_attr, scalar_i64};
use crate::proto::tensor_proto::DataType;

pub fn register(r: &mut Registry) {
    r.add("", "DFT", 17, dft);
    r.add("", "STFT", 17, stft);
    r.add_all(
        &["HannWindow", "HammingWindow", "BlackmanWindow"],
        17,
        window,
    );
    r.add("", "MelWeightMatrix", 17, mel_weight_matrix);
}

/// A size given as a scalar input (or a one-element tensor): its value when data propagation knows
/// it, a symbolic one included (a length read from a shape); a negative value is no size.
fn scalar_size(ctx: &NodeCtx<'_>, slot: usize) -> Dim {
    match ctx.data(slot) {
        Some([v]) => size_of_value(v),
        _ => Dim::Unknown,
    }
}

/// A positive length given as a scalar input.
fn length_input(ctx: &NodeCtx<'_>, slot: usize) -> Dim {
    match scalar_size(ctx, slot) {
        Dim::Known(0) => Dim::Unknown,
        d => d,
    }
}

/// A size computed in the polynomial algebra from one size, or unknown.
fn from_size(n: &Dim, f: impl FnOnce(Poly) -> Option<Poly>) -> Dim {
    Poly::of_size(n)
        .and_then(f)
        .map_or(Dim::Unknown, Poly::into_size)
}

/// `floor(n / 2) + 1`, the number of bins of a one-sided spectrum of length `n`.
fn one_sided(n: &Dim) -> Dim {
    from_size(n, |n| n.floor_div(2)?.add(&Poly::constant(1)))
}

/// The DFT's axis as an index: an attribute before 20, an input (default -2) from 20.
fn dft_axis(ctx: &NodeCtx<'_>, rank: usize) -> Option<usize> {
    let a = if ctx.opset < 20 {
        ctx.attr_i("axis").unwrap_or(1)
    } else if ctx.has_input(2) {
        scalar_i64(ctx, 2)?
    } else {
        -2
    };
    let r = i64::try_from(rank).ok()?;
    let a = if a < 0 { a.checked_add(r)? } else { a };
    // The last axis holds the complex parts: it is never transformed.
    (0..r - 1).contains(&a).then_some(a as usize)
}

fn dft(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let Some(mut dims) = ctx.shape(0).filter(|s| s.len() >= 2) else {
        return vec![like(ctx, 0, None)];
    };
    let inverse = ctx.attr_i("inverse").unwrap_or(0) != 0;
    let onesided = ctx.attr_i("onesided").unwrap_or(0) != 0;
    let irfft = onesided && inverse;
    let last = dims.len() - 1;
    dims[last] = Dim::Known(if irfft { 1 } else { 2 });
    match dft_axis(ctx, dims.len()) {
        Some(a) => {
            let n = &dims[a];
            let length = if ctx.has_input(1) {
                length_input(ctx, 1)
            } else if irfft {
                from_size(n, |n| n.mul(&Poly::constant(2))?.sub(&Poly::constant(2)))
            } else {
                n.clone()
            };
            dims[a] = if onesided && !inverse {
                one_sided(&length)
            } else {
                length
            };
        }
        // A full transform of the default length keeps the size of whichever axis it runs on.
        None if !onesided && !ctx.has_input(1) => {}
        // Which axis changes is unknown: every other size may.
        None => {
            for d in &mut dims[..last] {
                *d = Dim::Unknown;
            }
        }
    }
    vec![like(ctx, 0, Some(dims))]
}

/// STFT(signal, frame_step, window?, frame_length?) on a `[batch, length, 1 or 2]` signal.
fn stft(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let signal_length = dim_of(ctx, 0, 3, 1);
    let frame_length = if ctx.has_input(3) {
        length_input(ctx, 3)
    } else if ctx.has_input(2) {
        match ctx.shape(2).as_deref() {
            Some([w]) => w.clone(),
            _ => Dim::Unknown,
        }
    } else {
        signal_length.clone()
    };
    let step = scalar_i64(ctx, 1).filter(|&s| s > 0);
    let frames = if frame_length == signal_length && !matches!(frame_length, Dim::Unknown) {
        Dim::Known(1) // one frame spans the whole signal, whatever the step
    } else {
        // A frame that does not fit a known signal gives no frames (the runtime refuses it); a
        // symbolic length is taken to hold one frame at least, as it does in any model that runs.
        let span = Poly::of_size(&signal_length)
            .zip(Poly::of_size(&frame_length))
            .and_then(|(l, f)| l.sub(&f))
            .filter(|span| span.as_constant().is_none_or(|c| c >= 0));
        match (span, step) {
            (Some(span), Some(s)) => span
                .floor_div(s)
                .and_then(|q| q.add(&Poly::constant(1)))
                .map_or(Dim::Unknown, Poly::into_size),
            _ => Dim::Unknown,
        }
    };
    let bins = if ctx.attr_i("onesided").unwrap_or(1) != 0 {
        one_sided(&frame_length)
    } else {
        frame_length
    };
    let out = vec![dim_of(ctx, 0, 3, 0), frames, bins, Dim::Known(2)];
    vec![like(ctx, 0, Some(out))]
}

/// The element type of a generator's `output_datatype` (float by default).
fn output_datatype(ctx: &NodeCtx<'_>) -> Option<i32> {
    match ctx.attr("output_datatype") {
        None => elem(DataType::Float),
        Some(_) => elem_attr(ctx, "output_datatype"),
    }
}

/// A window of `size` samples.
fn window(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let n = scalar_size(ctx, 0);
    vec![ValueInfo::tensor(output_datatype(ctx), Some(vec![n]))]
}

/// MelWeightMatrix(num_mel_bins, dft_length, ...): `[floor(dft_length / 2) + 1, num_mel_bins]`.
fn mel_weight_matrix(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let bins = scalar_size(ctx, 0);
    let spectrum = one_sided(&length_input(ctx, 1));
    vec![ValueInfo::tensor(
        output_datatype(ctx),
        Some(vec![spectrum, bins]),
    )]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;
    use crate::shape::dim::format_shape;

    #[test]
    fn dft_forward_one_sided_and_inverse() {
        let x = t(F32, &["B", "16", "1"]);
        let n = node("DFT", 1, 1, vec![]);
        assert_eq!(
            out_shape(dft, &n, 17, std::slice::from_ref(&x)),
            shape(&["B", "16", "2"])
        );
        let n = node("DFT", 2, 1, vec![attr_i("onesided", 1)]);
        assert_eq!(
            out_shape(dft, &n, 17, &[x.clone(), int(10)]),
            shape(&["B", "6", "2"])
        );
        let n = node(
            "DFT",
            1,
            1,
            vec![attr_i("onesided", 1), attr_i("inverse", 1)],
        );
        let c = t(F32, &["B", "9", "2"]);
        assert_eq!(
            out_shape(dft, &n, 20, std::slice::from_ref(&c)),
            shape(&["B", "16", "1"])
        );
        // Opset 20: axis is an input; the last axis is not a valid one.
        let n = node("DFT", 3, 1, vec![]);
        let y = t(F32, &["4", "8", "2"]);
        assert_eq!(
            out_shape(dft, &n, 20, &[y.clone(), None, int(0)]),
            shape(&["4", "8", "2"])
        );
        assert_eq!(
            out_shape(dft, &n, 20, &[y.clone(), int(5), int(-3)]),
            shape(&["5", "8", "2"])
        );
        assert_eq!(
            out_shape(dft, &n, 20, &[y.clone(), int(4), int(-1)]),
            shape(&["?", "?", "2"])
        );
        // An unknown axis: only a transform that changes no length says the shape.
        let unknown_axis = t(I64, &[]);
        assert_eq!(
            out_shape(dft, &n, 20, &[y.clone(), None, unknown_axis.clone()]),
            shape(&["4", "8", "2"])
        );
        let n = node("DFT", 3, 1, vec![attr_i("onesided", 1)]);
        assert_eq!(
            out_shape(dft, &n, 20, &[y, None, unknown_axis]),
            shape(&["?", "?", "2"])
        );
    }

    #[test]
    fn stft_frames_and_bins() {
        let n = node("STFT", 4, 1, vec![]);
        let s = t(F32, &["1", "128", "1"]);
        assert_eq!(
            out_shape(stft, &n, 17, &[s.clone(), int(8), None, int(16)]),
            shape(&["1", "15", "9", "2"])
        );
        let n = node("STFT", 3, 1, vec![attr_i("onesided", 0)]);
        assert_eq!(
            out_shape(stft, &n, 17, &[s.clone(), int(8), t(F32, &["16"])]),
            shape(&["1", "15", "16", "2"])
        );
        let n = node("STFT", 2, 1, vec![]);
        let s = out_shape(stft, &n, 17, &[t(F32, &["1", "L", "1"]), None]);
        assert_eq!(format_shape(&s), "[1, 1, floor(L/2)+1, 2]");
        // A symbolic signal: frames = floor((L - 400) / 160) + 1, checked at every L that holds a
        // frame; a known signal shorter than the frame has none.
        let n = node("STFT", 4, 1, vec![]);
        let long = t(F32, &["B", "L", "1"]);
        let s = out_shape(stft, &n, 17, &[long, int(160), None, int(400)]);
        let frames = match s.as_deref() {
            Some([b, Dim::Sym(frames), bins, two]) => {
                assert_eq!((b, bins, two), (&d("B"), &d("201"), &d("2")));
                frames.clone()
            }
            other => panic!("{other:?}"),
        };
        for l in 400..2000 {
            let want = (l - 400) / 160 + 1;
            assert_eq!(frames.eval(&|_| Some(l)), Some(want), "L = {l}");
        }
        let short = t(F32, &["1", "399", "1"]);
        let s = out_shape(stft, &n, 17, &[short, int(160), None, int(400)]);
        assert_eq!(s, shape(&["1", "?", "201", "2"]));
    }

    #[test]
    fn symbolic_lengths_stay_exact() {
        let x = t(F32, &["B", "T", "1"]);
        let n = node("DFT", 1, 1, vec![attr_i("onesided", 1)]);
        let s = out_shape(dft, &n, 17, std::slice::from_ref(&x));
        assert_eq!(format_shape(&s), "[B, floor(T/2)+1, 2]");
        let n = node(
            "DFT",
            1,
            1,
            vec![attr_i("onesided", 1), attr_i("inverse", 1)],
        );
        let c = t(F32, &["B", "F", "2"]);
        let s = out_shape(dft, &n, 17, std::slice::from_ref(&c));
        assert_eq!(format_shape(&s), "[B, F*2-2, 1]");
        // A length read from a shape (data propagation gives the symbol).
        let n = node("DFT", 2, 1, vec![attr_i("onesided", 1)]);
        let len = Some(ValueInfo::int64_data(vec![d("n")], true));
        let s = out_shape(dft, &n, 17, &[x, len.clone()]);
        assert_eq!(format_shape(&s), "[B, floor(n/2)+1, 2]");
        let n = node("MelWeightMatrix", 5, 1, vec![]);
        let s = out_shape(
            mel_weight_matrix,
            &n,
            17,
            &[int(80), len.clone(), int(16000), None, None],
        );
        assert_eq!(format_shape(&s), "[floor(n/2)+1, 80]");
        let n = node("HannWindow", 1, 1, vec![]);
        assert_eq!(out_shape(window, &n, 17, &[len]), shape(&["n"]));
        assert_eq!(out_shape(window, &n, 17, &[int(-1)]), shape(&["?"]));
    }

    #[test]
    fn windows_and_mel_matrix() {
        let n = node("HannWindow", 1, 1, vec![attr_i("output_datatype", 11)]);
        let out = run(window, &n, 17, &[int(10)]);
        assert_eq!(out[0].shape, shape(&["10"]));
        assert_eq!(out[0].elem, Some(DataType::Double as i32));
        let n = node("MelWeightMatrix", 5, 1, vec![]);
        let out = run(
            mel_weight_matrix,
            &n,
            17,
            &[int(8), int(16), int(8192), None, None],
        );
        assert_eq!(out[0].shape, shape(&["9", "8"]));
    }
}
