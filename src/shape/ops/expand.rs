//! Expand (opset 8, 13): the input broadcast with a target shape, bidirectionally (the result takes the
//! larger of the two on each axis, so a target dim of 1 keeps the input's).
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#Expand>.

use super::super::broadcast::bidirectional;
use super::super::ctx::{NodeCtx, Rule};
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::{Data, MAX_DATA_ELEMENTS, ValueInfo, as_i64};
use super::common::values_if_small;

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
    let values = expanded_values(ctx, &outcome.shape);
    vec![ValueInfo::tensor(ctx.elem(0), outcome.shape).with_values(values)]
}

/// The values of a small expanded scalar or vector (data propagation): shape arithmetic that `onnx-lint
/// expand` made explicit (`Mul(Shape(x), Expand(2, [2]))`) keeps its values, so a rewritten model is
/// inferred as well as the original.
fn expanded_values(ctx: &NodeCtx<'_>, shape: &Shape) -> Option<Data> {
    let data = ctx.values(0)?;
    let len = match shape.as_deref()? {
        [] => 1,
        [Dim::Known(n)] if *n <= MAX_DATA_ELEMENTS => usize::try_from(*n).ok()?,
        _ => return None,
    };
    let picked = match data.len() {
        1 => data.pick(std::iter::repeat_n(0, len))?,
        n if n == len => data.clone(),
        _ => return None,
    };
    values_if_small(shape, Some(picked))
}
