//! Shape contracts of operators that take a smaller operand without numpy broadcasting: a bias or a
//! LayerNorm scale as long as the last axis, a skip input of the input's shape, an attention mask of
//! the attention's sizes. onnxruntime's contrib operators check these in their kernels at run time;
//! here they are checked at load time with the broadcast algebra's outcomes under
//! [`Rule::Contract`]: E2 for a definite mismatch, W2 with the condition for symbolic sizes, naming
//! the contract.

use super::super::broadcast::{Outcome, none, unidirectional};
use super::super::contract::Contract;
use super::super::ctx::{NodeCtx, Rule};
use super::super::dim::Dim;

/// Input `operand` must be 1-D and as long as the last axis of input `data` (BiasGelu's bias,
/// SkipLayerNormalization's gamma). `what` names the contract in the finding.
pub fn last_axis(ctx: &mut NodeCtx<'_>, data: usize, operand: usize, what: Contract) {
    let last = match ctx.shape(data) {
        Some(s) => s.last().cloned().unwrap_or(Dim::Unknown),
        None => Dim::Unknown,
    };
    exact(ctx, data, operand, &[last], what);
}

/// Input `operand` must have exactly the shape `expected` (sizes taken from input `source`, named in
/// the finding's notes; unknown sizes in `expected` are not checked).
pub fn exact(
    ctx: &mut NodeCtx<'_>,
    source: usize,
    operand: usize,
    expected: &[Dim],
    what: Contract,
) {
    let Some(actual) = ctx.shape(operand) else {
        return;
    };
    let outcome = if actual.len() == expected.len() {
        none(&[Some(expected.to_vec()), Some(actual)])
    } else {
        rank_error(ctx, operand, actual.len(), expected.len())
    };
    ctx.report_broadcast(Rule::Contract(what), &[source, operand], &outcome);
}

/// Input `operand` must broadcast onto `target` (unidirectionally: each of its axes, aligned from the
/// right, 1 or the target's size, and no more axes than the target), as onnxruntime's attention
/// biases do onto `(batch, heads, q, kv)`; with `exact_rank` it must also have the target's rank.
pub fn onto(
    ctx: &mut NodeCtx<'_>,
    source: usize,
    operand: usize,
    target: &[Dim],
    exact_rank: bool,
    what: Contract,
) {
    let Some(actual) = ctx.shape(operand) else {
        return;
    };
    let outcome = if exact_rank && actual.len() != target.len() {
        rank_error(ctx, operand, actual.len(), target.len())
    } else {
        unidirectional(&Some(target.to_vec()), &Some(actual))
    };
    ctx.report_broadcast(Rule::Contract(what), &[source, operand], &outcome);
}

/// The outcome of an operand of rank `actual` where the contract needs rank `needed`.
fn rank_error(ctx: &NodeCtx<'_>, operand: usize, actual: usize, needed: usize) -> Outcome {
    Outcome {
        rank_error: Some(format!(
            "input {operand} '{}' has rank {actual}, where rank {needed} is needed",
            ctx.node.input_name(operand)
        )),
        ..Outcome::default()
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;
    use crate::shape::value::ValueInfo;

    fn bias_rule(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
        last_axis(
            ctx,
            0,
            1,
            Contract::new(
                "test-bias",
                "the bias: 1-D, as long as the input's last axis",
            ),
        );
        vec![]
    }

    fn bias_codes(inputs: &[Option<ValueInfo>]) -> Vec<String> {
        codes(
            bias_rule,
            &node("BiasTest", inputs.len(), 1, vec![]),
            inputs,
        )
    }

    #[test]
    fn a_bias_of_the_last_axis_passes() {
        assert!(bias_codes(&[t(F32, &["2", "3", "8"]), t(F32, &["8"])]).is_empty());
        assert!(bias_codes(&[t(F32, &["b", "s", "8"]), t(F32, &["?"])]).is_empty());
    }

    #[test]
    fn a_short_bias_is_e2_naming_the_contract() {
        let c = bias_codes(&[t(F32, &["2", "3", "8"]), t(F32, &["7"])]);
        assert_eq!(
            c,
            [
                "E2 'n' (BiasTest) breaks the contract test-bias: the bias: 1-D, as long as \
            the input's last axis; here axis -1: 8 vs 7"
            ]
        );
    }

    #[test]
    fn a_bias_of_rank_two_is_a_rank_error() {
        let c = bias_codes(&[t(F32, &["2", "3", "8"]), t(F32, &["1", "8"])]);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(
            c[0].ends_with("here input 1 'i1' has rank 2, where rank 1 is needed"),
            "{c:?}"
        );
    }

    #[test]
    fn a_symbolic_last_axis_is_a_condition() {
        let c = bias_codes(&[t(F32, &["b", "h"]), t(F32, &["8"])]);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(c[0].starts_with("W2 "), "{c:?}");
    }
}
