//! onnxruntime's Gelu family and bias-fused activations (domain `com.microsoft`, version 1 each):
//! Gelu, QuickGelu, FastGelu, BiasGelu, BiasAdd, BiasSplitGelu, BiasSoftmax, BiasDropout,
//! BitmaskBiasDropout, and Inverse.
//!
//! Spec: <https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md> (`#com.microsoft.BiasGelu`
//! and so on); shape inference in onnxruntime's `core/graph/contrib_ops/contrib_defs.cc`,
//! `bert_defs.cc` and `diffusion_defs.cc`. Every one of them has one version (since 1) and its output
//! has the input's shape, except BiasSplitGelu's, whose last axis is halved.
//!
//! What onnxruntime's kernels enforce, and what is checked here (as a [`Rule::Contract`] finding):
//! - BiasGelu and FastGelu: the bias is 1-D and as long as the input's last axis (ORT: "Input 1 is
//!   expected to have 1 dimensions" and "Input 1 dimension 0 should have same length as the last
//!   dimension of input 0"); a bias of size 1 is refused too: this is not numpy broadcasting.
//! - BiasAdd (CUDA only): bias `[C]` of the last axis, skip of the input's shape `[N, S, C]`.
//! - BiasSplitGelu (CUDA only): bias `[D]` of the last axis, which must be even.
//! - BiasDropout (CUDA, training): bias of the last axis or of the data's whole shape, residual of the
//!   data's shape.
//!
//! The CUDA-only operators cannot be run by the CPU harness (tests/conformance/contrib); their rules are
//! checked by the unit tests below against the schema text.
//!
//! [`Rule::Contract`]: super::super::ctx::Rule::Contract

use super::super::contract::Contract;
use super::super::ctx::NodeCtx;
use super::super::dim::Dim;
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::{div_exact, like};
use super::contract;
use super::support::elem;
use crate::proto::tensor_proto::DataType;

const MS: &str = "com.microsoft";

pub fn register(r: &mut Registry) {
    for op in ["Gelu", "QuickGelu", "Inverse", "BiasSoftmax"] {
        r.add(MS, op, 1, same_as_first);
    }
    r.add(MS, "FastGelu", 1, biased);
    r.add(MS, "BiasGelu", 1, biased);
    r.add(MS, "BiasAdd", 1, bias_add);
    r.add(MS, "BiasSplitGelu", 1, bias_split_gelu);
    r.add(MS, "BiasDropout", 1, bias_dropout);
    r.add(MS, "BitmaskBiasDropout", 1, bias_dropout);
}

fn same_as_first(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![like(ctx, 0, ctx.shape(0))]
}

/// BiasGelu(A, B) and FastGelu(X, bias?): the output is the input; the bias is 1-D of the last axis.
fn biased(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if ctx.has_input(1) {
        contract::last_axis(
            ctx,
            0,
            1,
            Contract::new(
                "bias-gelu-bias",
                "BiasGelu's and FastGelu's bias: 1-D, as long as the input's last axis",
            ),
        );
    }
    vec![like(ctx, 0, ctx.shape(0))]
}

/// BiasAdd(X [N, S, C], bias [C], skip [N, S, C]) -> X + bias + skip.
fn bias_add(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    contract::last_axis(
        ctx,
        0,
        1,
        Contract::new(
            "bias-add-bias",
            "BiasAdd's bias: 1-D, as long as the input's channels (its last axis)",
        ),
    );
    if let Some(x) = ctx.shape(0) {
        contract::exact(
            ctx,
            0,
            2,
            &x,
            Contract::new("bias-add-skip", "BiasAdd's skip: the input's shape"),
        );
    }
    vec![like(ctx, 0, ctx.shape(0))]
}

/// BiasSplitGelu(X [N, S, D], bias [D]) -> [N, S, D/2].
fn bias_split_gelu(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    contract::last_axis(
        ctx,
        0,
        1,
        Contract::new(
            "bias-split-gelu-bias",
            "BiasSplitGelu's bias: 1-D, as long as the input's last axis",
        ),
    );
    let shape = ctx.shape(0).map(|mut s| {
        if let Some(last) = s.last_mut() {
            *last = div_exact(last, 2);
        }
        s
    });
    vec![like(ctx, 0, shape)]
}

/// BiasDropout(data, bias, residual?, ratio?, training_mode?) -> (output, mask): both of data's
/// shape; the mask is boolean (BitmaskBiasDropout's a packed uint32 bitmask, of its own length).
fn bias_dropout(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let data = ctx.shape(0);
    let bias_rank = ctx.input(1).and_then(ValueInfo::rank);
    let data_rank = data.as_ref().map(Vec::len);
    // The bias is either the last axis or the data's whole shape: its rank says which it claims.
    if bias_rank == Some(1) || data_rank == Some(1) {
        contract::last_axis(
            ctx,
            0,
            1,
            Contract::new(
                "bias-dropout-bias",
                "BiasDropout's bias: 1-D as long as the data's last axis, or the data's shape",
            ),
        );
    } else if let Some(d) = &data {
        contract::exact(
            ctx,
            0,
            1,
            d,
            Contract::new(
                "bias-dropout-bias",
                "BiasDropout's bias: 1-D as long as the data's last axis, or the data's shape",
            ),
        );
    }
    if ctx.has_input(2)
        && let Some(d) = &data
    {
        contract::exact(
            ctx,
            0,
            2,
            d,
            Contract::new(
                "bias-dropout-residual",
                "BiasDropout's residual: the data's shape",
            ),
        );
    }
    let mask = if ctx.op_type() == "BitmaskBiasDropout" {
        ValueInfo::tensor(elem(DataType::Uint32), Some(vec![Dim::Unknown]))
    } else {
        ValueInfo::tensor(elem(DataType::Bool), data.clone())
    };
    vec![like(ctx, 0, data), mask]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    fn op_codes(
        rule: super::super::super::registry::Rule,
        op: &str,
        inputs: &[Option<ValueInfo>],
    ) -> Vec<String> {
        codes(rule, &node(op, inputs.len(), 2, vec![]), inputs)
    }

    #[test]
    fn bias_gelu_keeps_the_input_shape_and_checks_the_bias() {
        let n = node("BiasGelu", 2, 1, vec![]);
        let ok = [t(F32, &["b", "s", "8"]), t(F32, &["8"])];
        assert_eq!(out_shape(biased, &n, 1, &ok), shape(&["b", "s", "8"]));
        assert!(op_codes(biased, "BiasGelu", &ok).is_empty());
        let short = op_codes(
            biased,
            "BiasGelu",
            &[t(F32, &["2", "3", "8"]), t(F32, &["7"])],
        );
        assert!(
            short.len() == 1
                && short[0].starts_with("E2 'n' (BiasGelu) breaks the contract bias-gelu-bias: ")
                && short[0].ends_with("here axis -1: 8 vs 7"),
            "{short:?}"
        );
        // A bias of size 1 is refused by onnxruntime: no numpy broadcasting here.
        let one = op_codes(
            biased,
            "BiasGelu",
            &[t(F32, &["2", "3", "8"]), t(F32, &["1"])],
        );
        assert!(
            one.len() == 1 && one[0].starts_with("E2 ") && one[0].contains("bias-gelu-bias"),
            "{one:?}"
        );
    }

    #[test]
    fn fast_gelu_without_bias_checks_nothing() {
        assert!(op_codes(biased, "FastGelu", &[t(F32, &["2", "8"]), None]).is_empty());
    }

    #[test]
    fn bias_split_gelu_halves_the_last_axis() {
        let n = node("BiasSplitGelu", 2, 1, vec![]);
        let s = out_shape(
            bias_split_gelu,
            &n,
            1,
            &[t(F32, &["2", "s", "640"]), t(F32, &["640"])],
        );
        assert_eq!(s, shape(&["2", "s", "320"]));
    }

    #[test]
    fn bias_add_checks_bias_and_skip() {
        let c = op_codes(
            bias_add,
            "BiasAdd",
            &[
                t(F32, &["2", "16", "8"]),
                t(F32, &["8"]),
                t(F32, &["2", "15", "8"]),
            ],
        );
        assert!(
            c.len() == 1 && c[0].contains("16 vs 15") && c[0].contains("skip"),
            "{c:?}"
        );
    }

    #[test]
    fn bias_dropout_takes_a_last_axis_or_full_bias() {
        let data = t(F32, &["2", "3", "8"]);
        assert!(op_codes(bias_dropout, "BiasDropout", &[data.clone(), t(F32, &["8"])]).is_empty());
        assert!(
            op_codes(
                bias_dropout,
                "BiasDropout",
                &[data.clone(), t(F32, &["2", "3", "8"])]
            )
            .is_empty()
        );
        let c = op_codes(
            bias_dropout,
            "BiasDropout",
            &[data.clone(), t(F32, &["2", "1", "8"])],
        );
        assert_eq!(
            c,
            [
                "E2 'n' (BiasDropout) breaks the contract bias-dropout-bias: BiasDropout's bias: 1-D \
                 as long as the data's last axis, or the data's shape; here axis -2: 3 vs 1"
            ]
        );
        let n = node("BiasDropout", 2, 2, vec![]);
        let outs = run(bias_dropout, &n, 1, &[data, t(F32, &["8"])]);
        assert_eq!(outs[1].elem, elem(DataType::Bool));
        assert_eq!(outs[1].shape, shape(&["2", "3", "8"]));
    }
}
