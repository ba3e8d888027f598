//! MatMul (opset 1, 9, 13): numpy matmul. A 1-D operand is promoted (a row for A, a column for B) and
//! the promoted axis dropped from the result; the batch dimensions (all but the last two) broadcast
//! multidirectionally. A batch conflict is E1, reported on the axis of the full output.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#MatMul>.

use super::super::broadcast::multidirectional;
use super::super::ctx::{NodeCtx, Rule};
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::ValueInfo;

pub fn register(r: &mut Registry) {
    r.add("", "MatMul", 1, matmul);
}

fn matmul(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let elem = ctx.elem(0).or(ctx.elem(1));
    let (a, b) = (ctx.shape(0), ctx.shape(1));
    vec![ValueInfo::tensor(elem, matmul_of(ctx, a, b))]
}

/// The numpy matmul of operands shaped `a` and `b` (inputs 0 and 1, possibly transposed by the caller),
/// with their batch dimensions checked; the result's shape.
pub fn matmul_of(ctx: &mut NodeCtx<'_>, a: Shape, b: Shape) -> Shape {
    let (Some(a), Some(b)) = (a, b) else {
        return None;
    };
    if a.is_empty() || b.is_empty() {
        return None; // scalars are not valid MatMul operands
    }
    let a_vec = a.len() == 1;
    let b_vec = b.len() == 1;
    let a2: Vec<Dim> = if a_vec {
        vec![Dim::Known(1), a[0].clone()]
    } else {
        a.clone()
    };
    let b2: Vec<Dim> = if b_vec {
        vec![b[0].clone(), Dim::Known(1)]
    } else {
        b.clone()
    };
    let batch_a = Some(a2[..a2.len() - 2].to_vec());
    let batch_b = Some(b2[..b2.len() - 2].to_vec());
    let mut outcome = multidirectional(&[batch_a, batch_b]);
    // Batch axes are counted from the end of the batch part; the output has two matrix axes after it.
    for c in &mut outcome.conflicts {
        c.axis_from_end -= 2;
    }
    for p in &mut outcome.possible {
        p.axis_from_end -= 2;
    }
    ctx.report_broadcast(Rule::Multidirectional, &[0, 1], &outcome);
    // The contraction equates A's last dim with B's first matrix dim: a symbol met by a number there
    // is bound to it.
    let (ka, kb) = (&a2[a2.len() - 1], &b2[b2.len() - 2]);
    match (ka, kb) {
        (Dim::Sym(_), Dim::Known(n)) => ctx.bind(ka, *n, "the contraction"),
        (Dim::Known(n), Dim::Sym(_)) => ctx.bind(kb, *n, "the contraction"),
        _ => {}
    }
    outcome.shape.map(|mut batch| {
        if !a_vec {
            batch.push(a2[a2.len() - 2].clone());
        }
        if !b_vec {
            batch.push(b2[b2.len() - 1].clone());
        }
        batch
    })
}
