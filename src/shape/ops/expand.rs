//! Expand (opset 8, 13): the input broadcast with a target shape, bidirectionally (the result takes the
//! larger of the two on each axis, so a target dim of 1 keeps the input's).
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#Expand>.

use super::super::broadcast::bidirectional;
use super::super::ctx::{NodeCtx, Rule};
use super::super::dim::Dim;
use super::super::registry::Registry;
use super::super::value::{ValueInfo, as_i64};

pub fn register(r: &mut Registry) {
    r.add("", "Expand", 8, expand);
}

/// The target shape as dimensions: from its values when known, else as many unknown dims as its
/// length says.
fn target_shape(ctx: &NodeCtx<'_>) -> Option<Vec<Dim>> {
    if let Some(data) = ctx.data(1) {
        return Some(
            data.iter()
                .map(|d| match d {
                    // A value is an i64; a negative size is invalid, so nothing is known of it.
                    Dim::Known(_) => match as_i64(d) {
                        Some(v) if v >= 0 => Dim::Known(v as u64),
                        _ => Dim::Unknown,
                    },
                    other => other.clone(),
                })
                .collect(),
        );
    }
    match ctx.shape(1)?.as_slice() {
        [Dim::Known(n)] => super::common::unknown_dims(*n),
        _ => None,
    }
}

fn expand(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let target = target_shape(ctx);
    let outcome = bidirectional(&ctx.shape(0), &target);
    ctx.report_broadcast(Rule::Bidirectional, &[0], &outcome);
    vec![ValueInfo::tensor(ctx.elem(0), outcome.shape)]
}
