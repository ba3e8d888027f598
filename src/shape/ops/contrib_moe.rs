//! onnxruntime's mixtures of experts and fused quantized products (domain `com.microsoft`, version 1
//! each): MoE, QMoE, MatMulFpQ4, MatMulNBitsMlp and MatMulNBitsQkv.
//!
//! Spec: <https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md>
//! (`#com.microsoft.MoE` and so on); schemas in onnxruntime's `core/graph/contrib_ops/contrib_defs.cc`
//! and `bert_defs.cc`.
//!
//! - MoE, QMoE: the output has the input's shape, `(total_tokens, hidden)` or `(batch, seq, hidden)`.
//!   onnxruntime's `moe_helper.h` requires `router_probs` to be `(total_tokens, num_experts)`, with
//!   `total_tokens` the input's flattened token count and `num_experts` the experts' count of
//!   `fc1_experts_weights` (its first axis): both are checked here. For MoE (float weights) also the
//!   weights `(E, fusion * inter, hidden)` and `(E, hidden, inter)` and the biases `(E, fusion * inter)`
//!   and `(E, hidden)` ("Input 'fc2_experts_bias' is expected to have shape ...").
//! - MatMulFpQ4: A `[.., K]` times B, whose shape `[K, N]` is given by the values of `B_shape`.
//! - MatMulNBitsMlp: A `[.., K]` gives Y `[.., N]` (attribute N) and the optional residual sum of A's
//!   shape.
//! - MatMulNBitsQkv: A `[.., K]` gives Q `[.., Nq]`, K and V `[.., Nkv]`, and the optional residual
//!   sum of A's shape.
//!
//! MoE and QMoE run on the CPU (tests/conformance/contrib/cases_more.py, with a refused fault for each
//! router contract). MatMulNBitsMlp and MatMulNBitsQkv have only WebGPU kernels, and MatMulFpQ4 needs
//! B packed by MLAS's Q4 packing, which no harness case builds: their rules are covered by the unit
//! tests below; onnxruntime's own shape inference at load time (the sizes it reports when they clash
//! with a declared output) agrees with them on MatMulNBitsQkv.

use super::super::contract::Contract;
use super::super::ctx::NodeCtx;
use super::super::dim::Dim;
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::{like, product};
use super::contract;
use super::matmul::matmul_of;
use super::support::dim_of;

const MS: &str = "com.microsoft";

pub fn register(r: &mut Registry) {
    r.add(MS, "MoE", 1, moe);
    r.add(MS, "QMoE", 1, moe);
    r.add(MS, "MatMulFpQ4", 1, matmul_fp_q4);
    r.add(MS, "MatMulNBitsMlp", 1, matmul_nbits_mlp);
    r.add(MS, "MatMulNBitsQkv", 1, matmul_nbits_qkv);
}

/// MoE(input, router_probs, fc1_experts_weights, ..) and QMoE: the input's shape.
fn moe(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let x = ctx.shape(0);
    if let Some(s) = x.as_ref().filter(|s| matches!(s.len(), 2 | 3)) {
        let tokens = product(s[..s.len() - 1].iter());
        let experts = dim_of(ctx, 2, 3, 0);
        contract::exact(
            ctx,
            0,
            1,
            &[tokens, experts.clone()],
            Contract::new(
                "moe-router-probs",
                "MoE's router_probs: (total_tokens, num_experts), the input's token count by the experts' count",
            ),
        );
        // MoE's float weights (QMoE's are packed: their widths depend on the bits).
        if ctx.op_type() == "MoE" {
            let hidden = s[s.len() - 1].clone();
            let fc1 = dim_of(ctx, 2, 3, 1);
            contract::exact(
                ctx,
                0,
                2,
                &[experts.clone(), Dim::Unknown, hidden.clone()],
                Contract::new(
                    "moe-fc1-experts-weights",
                    "MoE's fc1_experts_weights: (num_experts, fusion * inter_size, hidden_size)",
                ),
            );
            contract::exact(
                ctx,
                0,
                4,
                &[experts.clone(), hidden.clone(), Dim::Unknown],
                Contract::new(
                    "moe-fc2-experts-weights",
                    "MoE's fc2_experts_weights: (num_experts, hidden_size, inter_size)",
                ),
            );
            if ctx.has_input(3) {
                contract::exact(
                    ctx,
                    2,
                    3,
                    &[experts.clone(), fc1],
                    Contract::new(
                        "moe-fc1-experts-bias",
                        "MoE's fc1_experts_bias: (num_experts, fusion * inter_size) of fc1's weights",
                    ),
                );
            }
            if ctx.has_input(5) {
                contract::exact(
                    ctx,
                    0,
                    5,
                    &[experts, hidden],
                    Contract::new(
                        "moe-fc2-experts-bias",
                        "MoE's fc2_experts_bias: (num_experts, hidden_size)",
                    ),
                );
            }
        }
    }
    vec![like(ctx, 0, x)]
}

/// A's shape with its last axis replaced by `n` (unknown when the attribute is absent or negative).
fn with_last(ctx: &NodeCtx<'_>, n: Option<i64>) -> Option<Vec<Dim>> {
    let mut s = ctx.shape(0).filter(|s| !s.is_empty())?;
    let last = s.len() - 1;
    s[last] = n
        .and_then(|v| u64::try_from(v).ok())
        .map_or(Dim::Unknown, Dim::Known);
    Some(s)
}

/// MatMulFpQ4(A [.., K], B blob, B_shape [K, N]) -> [.., N].
fn matmul_fp_q4(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let b = ctx
        .data_i64(2)
        .filter(|v| v.len() == 2 && v.iter().all(|&d| d > 0))
        .map(|v| v.iter().map(|&d| Dim::Known(d as u64)).collect());
    let shape = match b {
        Some(b) => {
            let a = ctx.shape(0);
            matmul_of(ctx, a, Some(b))
        }
        None => with_last(ctx, None),
    };
    vec![like(ctx, 0, shape)]
}

/// MatMulNBitsMlp(A [.., K], ..) -> (Y [.., N], input_skip_bias_sum [.., K]).
fn matmul_nbits_mlp(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let y = with_last(ctx, ctx.attr_i("N"));
    vec![like(ctx, 0, y), like(ctx, 0, ctx.shape(0))]
}

/// MatMulNBitsQkv(A [.., K], ..) -> (Q [.., Nq], K [.., Nkv], V [.., Nkv], input_skip_bias_sum).
fn matmul_nbits_qkv(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let q = with_last(ctx, ctx.attr_i("Nq"));
    let kv = with_last(ctx, ctx.attr_i("Nkv"));
    vec![
        like(ctx, 0, q),
        like(ctx, 0, kv.clone()),
        like(ctx, 0, kv),
        like(ctx, 0, ctx.shape(0)),
    ]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    #[test]
    fn moe_keeps_the_input_shape_and_checks_the_router() {
        let n = node("MoE", 5, 1, vec![]);
        let ok = [
            t(F32, &["b", "s", "8"]),
            t(F32, &["b*s", "4"]),
            t(F32, &["4", "16", "8"]),
            None,
            t(F32, &["4", "8", "16"]),
        ];
        let mut ok = ok.to_vec();
        ok[1] = Some(ValueInfo::tensor(
            F32,
            Some(vec![product([d("b"), d("s")].iter()), d("4")]),
        ));
        assert_eq!(out_shape(moe, &n, 1, &ok), shape(&["b", "s", "8"]));
        assert!(findings(moe, &n, 1, &ok).is_empty());
        let bad = [
            t(F32, &["6", "8"]),
            t(F32, &["6", "3"]),
            t(F32, &["4", "16", "8"]),
            None,
            t(F32, &["4", "8", "16"]),
        ];
        let f = findings(moe, &n, 1, &bad);
        assert!(
            f.len() == 1 && f[0].code.as_str() == "E2" && f[0].contract == Some("moe-router-probs"),
            "{f:?}"
        );
    }

    #[test]
    fn fused_nbits_products_take_their_widths_from_attributes() {
        let n = node(
            "MatMulNBitsQkv",
            1,
            4,
            vec![attr_i("Nq", 64), attr_i("Nkv", 16)],
        );
        let outs = run(matmul_nbits_qkv, &n, 1, &[t(F32, &["b", "s", "32"])]);
        assert_eq!(outs[0].shape, shape(&["b", "s", "64"]));
        assert_eq!(outs[2].shape, shape(&["b", "s", "16"]));
        assert_eq!(outs[3].shape, shape(&["b", "s", "32"]));
        let n = node("MatMulNBitsMlp", 1, 2, vec![attr_i("N", 48)]);
        let s = out_shape(matmul_nbits_mlp, &n, 1, &[t(F32, &["t", "32"])]);
        assert_eq!(s, shape(&["t", "48"]));
    }

    #[test]
    fn matmul_fp_q4_reads_b_shape() {
        let n = node("MatMulFpQ4", 3, 1, vec![]);
        let s = out_shape(
            matmul_fp_q4,
            &n,
            1,
            &[t(F32, &["b", "3", "32"]), t(F32, &["100"]), ints(&[32, 8])],
        );
        assert_eq!(s, shape(&["b", "3", "8"]));
    }

    #[test]
    fn moe_checks_its_float_weights() {
        let n = node("MoE", 6, 1, vec![]);
        let bad = [
            t(F32, &["6", "8"]),
            t(F32, &["6", "4"]),
            t(F32, &["4", "16", "8"]),
            None,
            t(F32, &["4", "8", "16"]),
            t(F32, &["4", "7"]),
        ];
        let f = findings(moe, &n, 1, &bad);
        assert!(
            f.len() == 1 && f[0].message.contains("fc2_experts_bias"),
            "{f:?}"
        );
        // QMoE's packed weights are not checked against the hidden size.
        let n = node("QMoE", 6, 1, vec![]);
        let packed = [
            t(F32, &["6", "32"]),
            t(F32, &["6", "4"]),
            t(F32, &["4", "64", "16"]),
        ];
        assert!(findings(moe, &n, 1, &packed).is_empty());
    }
}
