//! Losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#NegativeLogLikelihoodLoss>,
//! `#SoftmaxCrossEntropyLoss`. Opset history: NegativeLogLikelihoodLoss 12, 13, 22;
//! SoftmaxCrossEntropyLoss 12, 13 (types only).
//!
//! The scores are `[N, C]` or `[N, C, d1, ..., dk]` and the labels `[N]` or `[N, d1, ..., dk]`. With
//! `reduction="none"` the loss is per element, shaped like the labels; with "mean" (the default) or
//! "sum" it is a scalar. SoftmaxCrossEntropyLoss's optional `log_prob` has the scores' shape.

use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::like;

pub fn register(r: &mut Registry) {
    r.add("", "NegativeLogLikelihoodLoss", 12, loss);
    r.add("", "SoftmaxCrossEntropyLoss", 12, loss);
}

/// The per-element loss shape: the labels', or the scores' without their class axis.
fn per_element(ctx: &NodeCtx<'_>) -> Shape {
    if let Some(labels) = ctx.shape(1) {
        return Some(labels);
    }
    let scores = ctx.shape(0)?;
    (scores.len() >= 2).then(|| {
        let mut s: Vec<Dim> = scores;
        s.remove(1);
        s
    })
}

fn loss(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = match ctx.attr_s("reduction").unwrap_or("mean") {
        "none" => per_element(ctx),
        "mean" | "sum" => Some(vec![]),
        _ => None,
    };
    let mut out = vec![like(ctx, 0, shape)];
    if ctx.op_type() == "SoftmaxCrossEntropyLoss" {
        out.push(like(ctx, 0, ctx.shape(0)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    #[test]
    fn reductions() {
        let inputs = [t(F32, &["N", "5", "7"]), t(I64, &["N", "7"])];
        let n = node("NegativeLogLikelihoodLoss", 2, 1, vec![]);
        assert_eq!(out_shape(loss, &n, 13, &inputs), Some(vec![]));
        let n = node(
            "NegativeLogLikelihoodLoss",
            2,
            1,
            vec![attr_s("reduction", "none")],
        );
        assert_eq!(out_shape(loss, &n, 13, &inputs), shape(&["N", "7"]));
        assert_eq!(
            out_shape(loss, &n, 13, &[inputs[0].clone(), None]),
            shape(&["N", "7"])
        );
        let n = node(
            "SoftmaxCrossEntropyLoss",
            2,
            2,
            vec![attr_s("reduction", "sum")],
        );
        let out = run(loss, &n, 13, &inputs);
        assert_eq!(out[0].shape, Some(vec![]));
        assert_eq!(out[1].shape, shape(&["N", "5", "7"]));
        let n = node(
            "SoftmaxCrossEntropyLoss",
            2,
            1,
            vec![attr_s("reduction", "odd")],
        );
        assert_eq!(out_shape(loss, &n, 13, &inputs), None);
    }
}
