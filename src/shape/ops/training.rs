//! Training ops of the `ai.onnx.preview.training` domain: the optimizers Momentum, Adagrad and Adam,
//! and Gradient.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#ai.onnx.preview.training.Adam>
//! (and `.Adagrad`, `.Momentum`, `.Gradient`). All are version 1 of the domain.
//!
//! - An optimizer takes `(R, T, X1..Xn, G1..Gn, S1..Sn[, H1..Hn])` and returns the new values of the
//!   Xs and of the states, in that order: `(X1'..Xn', S1'..Sn'[, H1'..Hn'])`. Each output has the
//!   shape of the tensor it updates: output `i` is input `2 + i` for the Xs, and input `2 + n + i`
//!   for the states (the gradients sit between). Momentum and Adagrad have one state per tensor
//!   (three lists), Adam two (four lists).
//! - Gradient's inputs are the values of `xs` then `zs`; output `i` is the gradient with respect to
//!   `xs[i]`, which has that input's shape.

use super::super::ctx::NodeCtx;
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::like;

const DOMAIN: &str = "ai.onnx.preview.training";

pub fn register(r: &mut Registry) {
    for op in ["Momentum", "Adagrad", "Adam"] {
        r.add(DOMAIN, op, 1, optimizer);
    }
    r.add(DOMAIN, "Gradient", 1, gradient);
}

fn optimizer(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let lists = if ctx.op_type() == "Adam" { 4 } else { 3 };
    let tensors = ctx.num_inputs().saturating_sub(2);
    if tensors == 0 || !tensors.is_multiple_of(lists) {
        return Vec::new(); // malformed: the lists cannot be told apart
    }
    let n = tensors / lists;
    (0..ctx.num_outputs())
        .map(|i| {
            let slot = if i < n { 2 + i } else { 2 + n + i };
            like(ctx, slot, ctx.shape(slot))
        })
        .collect()
}

fn gradient(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    (0..ctx.num_outputs())
        .map(|i| like(ctx, i, ctx.shape(i)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    #[test]
    fn optimizer_outputs_follow_their_tensors() {
        let n = node("Adam", 10, 6, vec![]);
        let mut inputs = vec![t(F32, &[]), t(I64, &[])];
        for list in 0..4 {
            inputs.push(t(F32, &["2", &list.to_string()]));
            inputs.push(t(F32, &["3", &list.to_string()]));
        }
        let out = run(optimizer, &n, 1, &inputs);
        let shapes: Vec<_> = out.iter().map(|v| v.shape.clone()).collect();
        assert_eq!(
            shapes,
            vec![
                shape(&["2", "0"]),
                shape(&["3", "0"]),
                shape(&["2", "2"]),
                shape(&["3", "2"]),
                shape(&["2", "3"]),
                shape(&["3", "3"]),
            ]
        );
        let n = node("Momentum", 5, 2, vec![]);
        let inputs = [
            t(F32, &[]),
            t(I64, &[]),
            t(F32, &["4"]),
            t(F32, &["4"]),
            t(F32, &["5"]),
        ];
        let out = run(optimizer, &n, 1, &inputs);
        assert_eq!(out[1].shape, shape(&["5"]));
        let n = node("Adagrad", 4, 2, vec![]);
        assert!(run(optimizer, &n, 1, &inputs[..4]).is_empty());
    }

    #[test]
    fn gradients_have_the_shapes_of_xs() {
        let n = node("Gradient", 3, 2, vec![]);
        let out = run(
            gradient,
            &n,
            1,
            &[t(F32, &["2"]), t(F32, &["3"]), t(F32, &["4"])],
        );
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].shape, shape(&["3"]));
    }
}
