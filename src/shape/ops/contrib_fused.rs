//! onnxruntime's fused matrix products and convolutions (domain `com.microsoft`, version 1 each):
//! FusedMatMul, TransposeMatMul, FusedMatMulActivation, GemmFastGelu, FusedGemm, FusedConv and
//! NhwcConv.
//!
//! Spec: <https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md>
//! (`#com.microsoft.FusedMatMul` and so on); shape inference in onnxruntime's
//! `core/graph/contrib_ops/contrib_defs.cc` (`FusedMatMulShapeInference`) and `nhwc_schema_defs.cc`.
//!
//! - FusedMatMul (and its old name TransposeMatMul, and FusedMatMulActivation) is numpy's matmul after
//!   optional transposes: `transA`/`transB` swap the last two axes; `transBatchA`/`transBatchB` move the
//!   first axis behind the batch axes (`[d0, d1, .., dn-2, dn-1]` is read as `[d1, .., dn-2, d0,
//!   dn-1]`), which onnxruntime allows only when both operands have the same rank, 3 or more. The
//!   batch axes broadcast multidirectionally and are checked as MatMul's are (onnxruntime refuses a
//!   conflict when it loads the model: "Incompatible dimensions").
//! - FusedGemm is Gemm with an activation: C broadcasts unidirectionally to `[M, N]`.
//! - FusedConv is Conv with an activation and an optional Z added to the result; onnxruntime's kernel
//!   adds Z element by element, so Z must have the output's shape.
//! - NhwcConv is Conv on channels-last data: `[N, H, W, C]` by `[M, C/group, kH, kW]` gives
//!   `[N, H', W', M]`. It has no CPU kernel (CUDA only), so the CPU harness cannot run it.
//! - GemmFastGelu (ROCm only): MatMul of X by W, plus a bias of the last axis, then FastGelu.

use super::super::contract::Contract;
use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::sites::{Declared, Kind};
use super::super::value::ValueInfo;
use super::contract;
use super::conv_pool::{conv, conv_of};
use super::matmul::matmul_of;
use super::unidirectional::gemm;

const MS: &str = "com.microsoft";

pub fn register(r: &mut Registry) {
    for op in ["FusedMatMul", "TransposeMatMul", "FusedMatMulActivation"] {
        r.add(MS, op, 1, fused_matmul);
    }
    r.add(MS, "GemmFastGelu", 1, gemm_fast_gelu);
    // Gemm with an activation: C broadcasts as Gemm's.
    r.add_site(
        MS,
        "FusedGemm",
        1,
        fused_gemm,
        Declared::Always(Kind::GemmC),
    );
    r.add(MS, "FusedConv", 1, fused_conv);
    r.add(MS, "NhwcConv", 1, nhwc_conv);
}

fn flag(ctx: &NodeCtx<'_>, name: &str) -> bool {
    ctx.attr_i(name).unwrap_or(0) != 0
}

/// The operand at `slot` as the product sees it after its transposes; `None` when the transposes
/// cannot apply (a batch transpose of a rank below 3).
fn operand(ctx: &NodeCtx<'_>, slot: usize, trans: bool, trans_batch: bool) -> Shape {
    let mut s = ctx.shape(slot)?;
    if trans_batch {
        if s.len() < 3 {
            return None;
        }
        let first = s.remove(0);
        let at = s.len() - 1;
        s.insert(at, first);
    }
    if trans && s.len() >= 2 {
        let n = s.len();
        s.swap(n - 2, n - 1);
    }
    Some(s)
}

fn fused_matmul(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let elem = ctx.elem(0).or(ctx.elem(1));
    let (tba, tbb) = (flag(ctx, "transBatchA"), flag(ctx, "transBatchB"));
    if (tba || tbb)
        && ctx.input(0).and_then(ValueInfo::rank) != ctx.input(1).and_then(ValueInfo::rank)
    {
        // onnxruntime refuses batch transposes of operands of different ranks; nothing to infer.
        return vec![ValueInfo::tensor(elem, None)];
    }
    let a = operand(ctx, 0, flag(ctx, "transA"), tba);
    let b = operand(ctx, 1, flag(ctx, "transB"), tbb);
    let shape = matmul_of(ctx, a, b);
    vec![ValueInfo::tensor(elem, shape)]
}

/// FusedGemm: Gemm as of opset 7 and later (C unidirectional), whatever the domain's version, which
/// Gemm's rule would read as a default-domain opset.
fn fused_gemm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let version = std::mem::replace(&mut ctx.opset, 13);
    let out = gemm(ctx);
    ctx.opset = version;
    out
}

/// GemmFastGelu(X, W, bias?): X times W, the bias 1-D of the product's last axis.
fn gemm_fast_gelu(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let elem = ctx.elem(0);
    let (a, b) = (ctx.shape(0), ctx.shape(1));
    let shape = matmul_of(ctx, a, b);
    if ctx.has_input(2) {
        let n = ctx
            .shape(1)
            .and_then(|w| w.last().cloned())
            .unwrap_or(Dim::Unknown);
        contract::exact(
            ctx,
            1,
            2,
            &[n],
            Contract::new(
                "gemm-fast-gelu-bias",
                "GemmFastGelu's bias: 1-D, as long as the product's last axis",
            ),
        );
    }
    vec![ValueInfo::tensor(elem, shape)]
}

/// FusedConv(X, W, B?, Z?): Conv's output; Z, when given, of that shape.
fn fused_conv(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let out = conv(ctx);
    if ctx.has_input(3)
        && let Some(y) = out.first().and_then(|v| v.shape.clone())
    {
        contract::exact(
            ctx,
            0,
            3,
            &y,
            Contract::new(
                "fused-conv-z",
                "FusedConv's Z: the convolution's output shape",
            ),
        );
    }
    out
}

/// NhwcConv(X [N, spatial.., C], W [M, C/group, k..], B?) -> [N, spatial'.., M].
fn nhwc_conv(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let elem = ctx.elem(0);
    let x = ctx.shape(0).filter(|s| s.len() >= 3).map(|mut s| {
        let c = s.remove(s.len() - 1);
        s.insert(1, c);
        s
    });
    let w = ctx.shape(1);
    let y = conv_of(ctx, &x, &w).map(|mut s| {
        let m = s.remove(1);
        s.push(m);
        s
    });
    vec![ValueInfo::tensor(elem, y)]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    #[test]
    fn fused_matmul_transposes_then_multiplies() {
        let n = node("FusedMatMul", 2, 1, vec![attr_i("transA", 1)]);
        let s = out_shape(
            fused_matmul,
            &n,
            1,
            &[t(F32, &["2", "8", "3"]), t(F32, &["8", "4"])],
        );
        assert_eq!(s, shape(&["2", "3", "4"]));
        let n = node("FusedMatMul", 2, 1, vec![attr_i("transB", 1)]);
        let s = out_shape(
            fused_matmul,
            &n,
            1,
            &[t(F32, &["b", "3", "8"]), t(F32, &["5", "1", "4", "8"])],
        );
        assert_eq!(s, shape(&["5", "b", "3", "4"]));
    }

    #[test]
    fn a_batch_transpose_moves_the_first_axis_behind_the_batch() {
        let n = node("FusedMatMul", 2, 1, vec![attr_i("transBatchA", 1)]);
        // A [3, 2, 8] is read as [2, 3, 8].
        let s = out_shape(
            fused_matmul,
            &n,
            1,
            &[t(F32, &["3", "2", "8"]), t(F32, &["2", "8", "4"])],
        );
        assert_eq!(s, shape(&["2", "3", "4"]));
        let s = out_shape(
            fused_matmul,
            &n,
            1,
            &[t(F32, &["3", "2", "8"]), t(F32, &["8", "4"])],
        );
        assert_eq!(s, None);
    }

    #[test]
    fn fused_matmul_batch_conflicts_are_e1() {
        let n = node("FusedMatMul", 2, 1, vec![]);
        let f = findings(
            fused_matmul,
            &n,
            1,
            &[t(F32, &["2", "3", "8"]), t(F32, &["3", "8", "4"])],
        );
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].code.as_str(), "E1");
    }

    #[test]
    fn nhwc_conv_keeps_channels_last() {
        let n = node(
            "NhwcConv",
            2,
            1,
            vec![
                attr_ints("strides", &[2, 2]),
                attr_ints("pads", &[1, 1, 1, 1]),
            ],
        );
        let s = out_shape(
            nhwc_conv,
            &n,
            1,
            &[t(F32, &["1", "8", "8", "2"]), t(F32, &["4", "2", "3", "3"])],
        );
        assert_eq!(s, shape(&["1", "4", "4", "4"]));
    }

    #[test]
    fn fused_conv_checks_z_against_the_output() {
        let n = node("FusedConv", 4, 1, vec![]);
        let ok = [
            t(F32, &["1", "2", "8", "8"]),
            t(F32, &["4", "2", "3", "3"]),
            None,
            t(F32, &["1", "4", "6", "6"]),
        ];
        assert!(findings(fused_conv, &n, 1, &ok).is_empty());
        let bad = [
            t(F32, &["1", "2", "8", "8"]),
            t(F32, &["4", "2", "3", "3"]),
            None,
            t(F32, &["1", "4", "6", "5"]),
        ];
        let f = findings(fused_conv, &n, 1, &bad);
        assert!(
            f.len() == 1 && f[0].code.as_str() == "E2" && f[0].contract == Some("fused-conv-z"),
            "{f:?}"
        );
    }
}
