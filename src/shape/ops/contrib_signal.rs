//! onnxruntime's contrib signal operators (domain `com.microsoft`, version 1 each): Rfft, Irfft,
//! ComplexMul, ComplexMulConj and DynamicTimeWarping.
//!
//! Spec: <https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md>
//! (`#com.microsoft.Rfft` and so on); schemas in onnxruntime's `core/graph/contrib_ops/contrib_defs.cc`,
//! which give Rfft, Irfft and the complex products no shape inference: the sizes here are the CUDA
//! kernels' (`contrib_ops/cuda/math/fft_ops.cc`, `complex_mul.cc`).
//!
//! - Rfft: the last `signal_ndim` axes are the signal; the last of them, `n`, becomes `n / 2 + 1`
//!   (unchanged when `onesided` is 0), and an axis of 2 (real, imaginary) is appended.
//! - Irfft: the trailing axis of 2 is dropped and the last signal axis `m` becomes `2 * m - 1`
//!   (unchanged when `onesided` is 0). That is the kernel's size (`input_shape[i] * 2 - 1` in
//!   `FFTBase::DoFFT`), not the `2 * (m - 1)` that would invert an Rfft of an even length as the spec's
//!   words suggest: an Irfft of an Rfft of 16 samples gives 17 here, as it does in onnxruntime.
//! - ComplexMul, ComplexMulConj: element-wise complex products of tensors whose last axis is 2 (real,
//!   imaginary); the other axes broadcast as numpy's do (the kernel is a broadcasting binary op). The
//!   kernel also requires both last axes to be 2; that is not checked here, as no CPU run can confirm it.
//! - DynamicTimeWarping: a cost matrix `(M, N)` or `(1, M, N)` gives the path, int32 `(2, x)` with
//!   `max(M, N) <= x < M + N`, data-dependent.
//!
//! Rfft, Irfft, ComplexMul and ComplexMulConj have no CPU kernel (CUDA only): the CPU harness cannot run
//! them; their rules are covered by the unit tests below. DynamicTimeWarping runs on the CPU.

use super::super::broadcast::multidirectional_of;
use super::super::ctx::{NodeCtx, Rule};
use super::super::dim::Dim;
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::{add, div_exact, like, mul, shift};
use super::support::elem;
use crate::proto::tensor_proto::DataType;

const MS: &str = "com.microsoft";

pub fn register(r: &mut Registry) {
    r.add(MS, "Rfft", 1, rfft);
    r.add(MS, "Irfft", 1, irfft);
    r.add(MS, "ComplexMul", 1, complex_mul);
    r.add(MS, "ComplexMulConj", 1, complex_mul);
    r.add(MS, "DynamicTimeWarping", 1, dynamic_time_warping);
}

/// The number of signal axes, when it fits a rank of `rank` (`extra` trailing axes not counted).
fn signal_ndim(ctx: &NodeCtx<'_>, rank: usize, extra: usize) -> Option<usize> {
    let n = usize::try_from(ctx.attr_i("signal_ndim").unwrap_or(1)).ok()?;
    (1..=3)
        .contains(&n)
        .then_some(n)
        .filter(|&n| n + extra <= rank)
}

fn onesided(ctx: &NodeCtx<'_>) -> bool {
    ctx.attr_i("onesided").unwrap_or(1) != 0
}

/// Rfft(X [.., n]) -> [.., n / 2 + 1, 2].
fn rfft(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = ctx.shape(0).and_then(|mut s| {
        signal_ndim(ctx, s.len(), 0)?;
        let half = onesided(ctx);
        let last = s.last_mut()?;
        if half {
            *last = match &*last {
                Dim::Known(n) => Dim::Known(n / 2 + 1),
                n => add(&div_exact(n, 2), &Dim::Known(1)),
            };
        }
        s.push(Dim::Known(2));
        Some(s)
    });
    vec![like(ctx, 0, shape)]
}

/// Irfft(X [.., m, 2]) -> [.., 2 * m - 1].
fn irfft(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = ctx.shape(0).and_then(|mut s| {
        signal_ndim(ctx, s.len(), 1)?;
        s.pop();
        let full = onesided(ctx);
        let last = s.last_mut()?;
        if full {
            *last = shift(&mul(last, &Dim::Known(2)), -1);
        }
        Some(s)
    });
    vec![like(ctx, 0, shape)]
}

/// ComplexMul(A, B), ComplexMulConj(A, B): the broadcast of A and B.
fn complex_mul(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (a, b) = (ctx.shape(0), ctx.shape(1));
    let outcome = multidirectional_of(&[a.as_deref(), b.as_deref()]);
    ctx.report_broadcast(Rule::Multidirectional, &[0, 1], &outcome);
    let shape = outcome.shape.clone();
    vec![like(ctx, 0, shape)]
}

/// DynamicTimeWarping(cost (M, N) or (1, M, N)) -> int32 (2, x), x data-dependent.
fn dynamic_time_warping(_ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![ValueInfo::tensor(
        elem(DataType::Int32),
        Some(vec![Dim::Known(2), Dim::Unknown]),
    )]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    #[test]
    fn rfft_halves_the_signal_and_appends_the_complex_axis() {
        let n = node("Rfft", 1, 1, vec![]);
        let s = out_shape(rfft, &n, 1, &[t(F32, &["b", "16"])]);
        assert_eq!(s, shape(&["b", "9", "2"]));
        let n = node("Rfft", 1, 1, vec![attr_i("signal_ndim", 3)]);
        assert_eq!(out_shape(rfft, &n, 1, &[t(F32, &["16"])]), None);
    }

    #[test]
    fn irfft_gives_the_kernels_length() {
        let n = node("Irfft", 1, 1, vec![attr_i("signal_ndim", 1)]);
        // The kernel's 2 * m - 1, not 2 * (m - 1).
        let s = out_shape(irfft, &n, 1, &[t(F32, &["b", "9", "2"])]);
        assert_eq!(s, shape(&["b", "17"]));
        let s = out_shape(irfft, &n, 1, &[t(F32, &["b", "m", "2"])]);
        assert_eq!(s.map(|s| s[1].to_string()), Some("m*2-1".to_owned()));
        let n = node(
            "Irfft",
            1,
            1,
            vec![attr_i("signal_ndim", 1), attr_i("onesided", 0)],
        );
        let s = out_shape(irfft, &n, 1, &[t(F32, &["b", "9", "2"])]);
        assert_eq!(s, shape(&["b", "9"]));
    }

    #[test]
    fn complex_products_broadcast() {
        let n = node("ComplexMul", 2, 1, vec![]);
        let s = out_shape(
            complex_mul,
            &n,
            1,
            &[t(F32, &["4", "1", "8", "2"]), t(F32, &["3", "8", "2"])],
        );
        assert_eq!(s, shape(&["4", "3", "8", "2"]));
        let f = findings(
            complex_mul,
            &n,
            1,
            &[t(F32, &["4", "8", "2"]), t(F32, &["3", "8", "2"])],
        );
        assert!(f.len() == 1 && f[0].code.as_str() == "E1", "{f:?}");
    }

    #[test]
    fn dtw_gives_an_int32_path() {
        let n = node("DynamicTimeWarping", 1, 1, vec![]);
        let outs = run(dynamic_time_warping, &n, 1, &[t(F32, &["3", "4"])]);
        assert_eq!(outs[0].elem, elem(DataType::Int32));
        assert_eq!(outs[0].shape, shape(&["2", "?"]));
    }
}
