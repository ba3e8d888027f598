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
//!
//! Contracts, as onnxruntime enforces them (onnx's inference at load where it says so, else the
//! kernels of `dft.cc` at run):
//! - [`DFT_RANK`]: the input has rank 2 or more (load).
//! - [`DFT_SIGNAL`]: its last axis is 1 (real) or 2 (complex) (run); 1 for a one-sided forward
//!   transform and 2 for a one-sided inverse (load).
//! - [`DFT_AXIS`]: the axis (attribute before 20, input from 20) is a signal axis, in `[-r, r-2]`
//!   and not -1 (load when known there, else run).
//! - [`DFT_LENGTH`]: dft_length one value (a scalar or `[1]`) and positive (run; onnx's inference
//!   refuses a constant `[1]` at load, which is not reported: whether onnxruntime sees a constant
//!   is not known here).
//! - [`STFT_SIGNAL`]: the signal `[batch, length]` or `[batch, length, 1 or 2]` (rank below 2 at load,
//!   the rest at run).
//! - [`STFT_FRAME`]: frame_step and frame_length one value each, frame_step positive and
//!   frame_length positive (a negative one is refused at run; 0 crashes onnxruntime 1.31 with a
//!   division by zero); a window or a frame_length is given (without either the kernel makes a
//!   frame of no valid length).
//! - [`STFT_WINDOW`]: the window as long as frame_length when both are given (load when
//!   frame_length is a constant, else run), and the frame no longer than the signal (run).
//!   onnxruntime takes a window of any rank from 1, reading its first axis (a scalar window aborts
//!   the process): its rank is not checked.

use super::super::contract::{Contract, Operand};
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

/// DFT's input rank.
pub const DFT_RANK: Contract = Contract::new(
    "dft-rank",
    "the input has rank 2 or more ([batch, signal..., 1 or 2])",
);

/// DFT's real or complex last axis.
pub const DFT_SIGNAL: Contract = Contract::new(
    "dft-signal",
    "the input's last axis is 1 (real) or 2 (complex): 1 for a one-sided forward transform, 2 for \
     a one-sided inverse",
);

/// DFT's axis.
pub const DFT_AXIS: Contract = Contract::new(
    "dft-axis",
    "axis is a signal axis, in [-r, r-2], not the last (real and imaginary parts)",
);

/// DFT's length.
pub const DFT_LENGTH: Contract = Contract::new(
    "dft-length",
    "dft_length is one value (a scalar or [1]) and positive",
);

/// STFT's signal.
pub const STFT_SIGNAL: Contract = Contract::new(
    "stft-signal",
    "the signal is [batch, length] or [batch, length, 1 or 2]",
);

/// STFT's frame.
pub const STFT_FRAME: Contract = Contract::new(
    "stft-frame",
    "frame_step and frame_length hold one value each and are positive; a window or a frame_length \
     is given",
);

/// STFT's window against the frame and the signal.
pub const STFT_WINDOW: Contract = Contract::new(
    "stft-window",
    "the window is as long as frame_length when both are given, and the frame no longer than the \
     signal",
);

/// Input `slot` holds one value (a scalar or a 1-D tensor of one value) under contract `c`, where
/// its shape is known; false after a break. `name` names it in the finding.
fn require_one_value(ctx: &mut NodeCtx<'_>, c: Contract, slot: usize, name: &str) -> bool {
    match ctx.shape(slot).as_deref() {
        None | Some([] | [Dim::Known(1)] | [Dim::Unknown]) => true,
        Some([d @ Dim::Sym(_)]) => {
            let ops = [
                Operand::new(format!("{name}'s length"), d.clone()).from_input(slot),
                Operand::new("one value", Dim::Known(1)),
            ];
            ctx.require_equal(c, &ops)
        }
        Some(s) => {
            let shape = super::super::dim::format_shape(&Some(s.to_vec()));
            ctx.broken(c, &[slot], format_args!("{name} has shape {shape}"));
            false
        }
    }
}

/// DFT's contracts; false after a break.
fn dft_contracts(ctx: &mut NodeCtx<'_>) -> bool {
    let Some(x) = ctx.shape(0) else {
        return true;
    };
    let r = x.len();
    if r < 2 {
        ctx.broken(DFT_RANK, &[0], format_args!("the input has rank {r}"));
        return false;
    }
    let inverse = ctx.attr_i("inverse").unwrap_or(0) != 0;
    let onesided = ctx.attr_i("onesided").unwrap_or(0) != 0;
    let allowed: &[u64] = match (onesided, inverse) {
        (true, false) => &[1],
        (true, true) => &[2],
        _ => &[1, 2],
    };
    if let Dim::Known(n) = x[r - 1]
        && !allowed.contains(&n)
    {
        let which = match (onesided, inverse) {
            (true, false) => " in a one-sided forward transform",
            (true, true) => " in a one-sided inverse transform",
            _ => "",
        };
        ctx.broken(
            DFT_SIGNAL,
            &[0],
            format_args!("the last axis is {n}{which}"),
        );
        return false;
    }
    let axis = if ctx.opset < 20 {
        Some(ctx.attr_i("axis").unwrap_or(1))
    } else if ctx.has_input(2) {
        scalar_i64(ctx, 2)
    } else {
        None
    };
    if let Some(a) = axis {
        let ri = r as i64;
        if !(-ri..ri - 1).contains(&a) || a == -1 {
            ctx.out_of_range(
                DFT_AXIS,
                &[0],
                format_args!("axis {a} of an input of rank {r}"),
            );
            return false;
        }
    }
    if ctx.has_input(1) {
        if !require_one_value(ctx, DFT_LENGTH, 1, "dft_length") {
            return false;
        }
        if let Some(n) = scalar_i64(ctx, 1).filter(|&n| n <= 0) {
            ctx.out_of_range(DFT_LENGTH, &[1], format_args!("dft_length is {n}"));
            return false;
        }
    }
    true
}

/// STFT's contracts; false after a break.
fn stft_contracts(ctx: &mut NodeCtx<'_>) -> bool {
    match ctx.shape(0).as_deref() {
        Some([_, _] | [_, _, Dim::Known(1 | 2) | Dim::Sym(_) | Dim::Unknown]) | None => {}
        Some(s) => {
            let shape = super::super::dim::format_shape(&Some(s.to_vec()));
            ctx.broken(
                STFT_SIGNAL,
                &[0],
                format_args!("the signal has shape {shape}"),
            );
            return false;
        }
    }
    if !require_one_value(ctx, STFT_FRAME, 1, "frame_step") {
        return false;
    }
    if ctx.has_input(3) && !require_one_value(ctx, STFT_FRAME, 3, "frame_length") {
        return false;
    }
    for (slot, name) in [(1, "frame_step"), (3, "frame_length")] {
        if let Some(v) = scalar_i64(ctx, slot).filter(|&v| v <= 0) {
            ctx.out_of_range(STFT_FRAME, &[slot], format_args!("{name} is {v}"));
            return false;
        }
    }
    if !ctx.has_input(2) && !ctx.has_input(3) {
        ctx.broken(
            STFT_FRAME,
            &[0],
            "neither a window nor a frame_length is given",
        );
        return false;
    }
    let window = match ctx.shape(2).as_deref() {
        Some([w, ..]) => Some(w.clone()),
        _ => None,
    };
    let length = if ctx.has_input(3) {
        scalar_size(ctx, 3)
    } else {
        Dim::Unknown
    };
    if let Some(w) = &window
        && ctx.has_input(3)
    {
        let ops = [
            Operand::new("the window's length", w.clone()).from_input(2),
            Operand::new("frame_length", length.clone()).from_input(3),
        ];
        if !ctx.require_equal(STFT_WINDOW, &ops) {
            return false;
        }
    }
    let frame = match (&length, window) {
        (Dim::Unknown, Some(w)) => w,
        (l, _) => l.clone(),
    };
    let signal = match ctx.shape(0).as_deref() {
        Some([_, n, ..]) => n.clone(),
        _ => Dim::Unknown,
    };
    if let (Some(f), Some(n)) = (frame.known(), signal.known())
        && f > n
    {
        ctx.broken(
            STFT_WINDOW,
            &[0],
            format_args!("the frame is {f} long, the signal {n}"),
        );
        return false;
    }
    true
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
    if !dft_contracts(ctx) {
        return vec![like(ctx, 0, None)];
    }
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
    if !stft_contracts(ctx) {
        return vec![like(ctx, 0, None)];
    }
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
        // The last axis is no signal axis (dft-axis).
        assert_eq!(out_shape(dft, &n, 20, &[y.clone(), int(4), int(-1)]), None);
        // An unknown axis: only a transform that changes no length says the shape.
        let unknown_axis = t(I64, &[]);
        assert_eq!(
            out_shape(dft, &n, 20, &[y.clone(), None, unknown_axis.clone()]),
            shape(&["4", "8", "2"])
        );
        let n = node("DFT", 3, 1, vec![attr_i("onesided", 1)]);
        let real = t(F32, &["4", "8", "1"]);
        assert_eq!(
            out_shape(dft, &n, 20, &[real, None, unknown_axis]),
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
        // Neither a window nor a frame_length (stft-frame).
        let n = node("STFT", 2, 1, vec![]);
        assert_eq!(
            out_shape(stft, &n, 17, &[t(F32, &["1", "L", "1"]), int(4)]),
            None
        );
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
        // A known signal shorter than the frame (stft-window).
        let short = t(F32, &["1", "399", "1"]);
        let s = out_shape(stft, &n, 17, &[short, int(160), None, int(400)]);
        assert_eq!(s, None);
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

    fn found(
        op: &str,
        attrs: Vec<crate::proto::AttributeProto>,
        opset: i64,
        inputs: &[Option<ValueInfo>],
    ) -> Vec<String> {
        let n = node(op, inputs.len(), 1, attrs);
        let rule = if op == "DFT" { dft } else { stft };
        contracts(rule, &n, opset, inputs)
    }

    #[test]
    fn dft_contracts() {
        let x = t(F32, &["B", "8", "1"]);
        let one = || vec![attr_i("onesided", 1)];
        let inv = || vec![attr_i("onesided", 1), attr_i("inverse", 1)];
        assert!(found("DFT", vec![], 17, std::slice::from_ref(&x)).is_empty());
        assert!(found("DFT", vec![], 20, &[x.clone(), ints(&[16])]).is_empty());
        assert!(
            found(
                "DFT",
                vec![attr_i("axis", -3)],
                17,
                std::slice::from_ref(&x)
            )
            .is_empty()
        );
        assert!(found("DFT", inv(), 17, &[t(F32, &["B", "5", "2"])]).is_empty());
        assert_eq!(found("DFT", vec![], 17, &[t(F32, &["8"])]), ["E2 dft-rank"]);
        assert_eq!(
            found("DFT", vec![], 17, &[t(F32, &["2", "8", "3"])]),
            ["E2 dft-signal"]
        );
        assert_eq!(
            found("DFT", one(), 17, &[t(F32, &["2", "8", "2"])]),
            ["E2 dft-signal"]
        );
        assert_eq!(
            found("DFT", inv(), 17, &[t(F32, &["2", "8", "1"])]),
            ["E2 dft-signal"]
        );
        assert_eq!(
            found("DFT", vec![], 17, &[t(F32, &["8", "1"])]),
            ["E3 dft-axis"]
        );
        assert_eq!(
            found("DFT", vec![attr_i("axis", 2)], 17, std::slice::from_ref(&x)),
            ["E3 dft-axis"]
        );
        assert_eq!(
            found("DFT", vec![], 20, &[x.clone(), None, int(-1)]),
            ["E3 dft-axis"]
        );
        assert_eq!(
            found("DFT", vec![], 20, &[x.clone(), None, int(-4)]),
            ["E3 dft-axis"]
        );
        assert_eq!(
            found("DFT", vec![], 20, &[x.clone(), int(0)]),
            ["E3 dft-length"]
        );
        assert_eq!(
            found("DFT", vec![], 20, &[x.clone(), ints(&[8, 8])]),
            ["E2 dft-length"]
        );
        assert_eq!(
            found("DFT", vec![], 20, &[x, t(I64, &["K"])]),
            ["W2 dft-length"]
        );
    }

    #[test]
    fn stft_contracts() {
        let s = t(F32, &["2", "16", "1"]);
        let st = |inputs: &[Option<ValueInfo>]| found("STFT", vec![], 17, inputs);
        assert!(st(&[s.clone(), int(4), None, int(8)]).is_empty());
        assert!(st(&[s.clone(), int(4), t(F32, &["8"])]).is_empty());
        assert!(st(&[t(F32, &["2", "16"]), int(4), None, int(8)]).is_empty());
        assert!(st(&[t(F32, &["2", "16", "2"]), ints(&[4]), None, int(8)]).is_empty());
        assert_eq!(
            st(&[t(F32, &["2", "16", "3"]), int(4), None, int(8)]),
            ["E2 stft-signal"]
        );
        assert_eq!(
            st(&[t(F32, &["2", "16", "1", "1"]), int(4), None, int(8)]),
            ["E2 stft-signal"]
        );
        assert_eq!(
            st(&[s.clone(), ints(&[4, 4]), None, int(8)]),
            ["E2 stft-frame"]
        );
        assert_eq!(
            st(&[s.clone(), int(4), None, ints(&[8, 8])]),
            ["E2 stft-frame"]
        );
        assert_eq!(st(&[s.clone(), int(0), None, int(8)]), ["E3 stft-frame"]);
        assert_eq!(st(&[s.clone(), int(4), None, int(-2)]), ["E3 stft-frame"]);
        assert_eq!(st(&[s.clone(), int(4), None, int(0)]), ["E3 stft-frame"]);
        assert_eq!(st(&[s.clone(), int(4)]), ["E2 stft-frame"]);
        assert_eq!(
            st(&[s.clone(), int(4), t(F32, &["8"]), int(6)]),
            ["E2 stft-window"]
        );
        assert_eq!(
            st(&[s.clone(), int(4), t(F32, &["W"]), int(6)]),
            ["W2 stft-window"]
        );
        assert_eq!(st(&[s.clone(), int(4), None, int(20)]), ["E2 stft-window"]);
        assert_eq!(st(&[s, int(4), t(F32, &["20"])]), ["E2 stft-window"]);
    }
}
