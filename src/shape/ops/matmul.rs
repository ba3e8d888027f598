//! MatMul (opset 1, 9, 13): numpy matmul. A 1-D operand is promoted (a row for A, a column for B) and
//! the promoted axis dropped from the result; the batch dimensions (all but the last two) broadcast
//! multidirectionally. A batch conflict is E1, reported on the axis of the full output.
//!
//! Contracts (onnxruntime's `matmul_helper.h` at run, onnx's inference at load when the sizes are
//! static): [`MATMUL_RANK`], no scalar operand; [`MATMUL_INNER`], the contraction sizes agree (a
//! symbol against a number there is a binding, see [`contraction`]). Two 1-D operands are the
//! exception: onnxruntime's kernel takes A's length as K and never compares B's, so their lengths are
//! not checked here.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#MatMul>.

use super::super::broadcast::multidirectional;
use super::super::contract::{Contract, Operand};
use super::super::ctx::{NodeCtx, Rule};
use super::super::dim::{Dim, Shape, SymExpr};
use super::super::registry::Registry;
use super::super::value::ValueInfo;

pub fn register(r: &mut Registry) {
    r.add("", "MatMul", 1, matmul);
}

/// A matrix product's operands have rank 1 or more.
pub const MATMUL_RANK: Contract = Contract::new("matmul-rank", "A and B have rank 1 or more");

/// The contraction of a matrix product.
pub const MATMUL_INNER: Contract = Contract::new(
    "matmul-inner",
    "A's last axis (its columns) equals B's second-to-last (its rows; its only axis when 1-D)",
);

fn matmul(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let elem = ctx.elem(0).or(ctx.elem(1));
    let (a, b) = (ctx.shape(0), ctx.shape(1));
    vec![ValueInfo::tensor(elem, matmul_of(ctx, a, b))]
}

/// Checks a matrix product's contraction `c` of A's columns `ka` and B's rows `kb`. A symbol met by a
/// number there is bound to it (I002, as a declared shape binds one) rather than a condition: the
/// contraction is where a model states its hidden sizes, so a `[batch, seq, hidden]` input meeting a
/// 768-row weight says `hidden` is 768.
pub fn contraction(ctx: &mut NodeCtx<'_>, c: Contract, ka: Operand, kb: Operand) {
    match (&ka.dim, &kb.dim) {
        (Dim::Sym(SymExpr::Var(_)), Dim::Known(n)) => ctx.bind(&ka.dim, *n, "the contraction"),
        (Dim::Known(n), Dim::Sym(SymExpr::Var(_))) => ctx.bind(&kb.dim, *n, "the contraction"),
        _ => {
            ctx.require_equal(c, &[ka, kb]);
        }
    }
}

/// The numpy matmul of operands shaped `a` and `b` (inputs 0 and 1, possibly transposed by the caller),
/// with their batch dimensions and contracts checked; the result's shape.
pub fn matmul_of(ctx: &mut NodeCtx<'_>, a: Shape, b: Shape) -> Shape {
    matmul_at(ctx, [0, 1], a, b)
}

/// [`matmul_of`] of operands that are the node's inputs `slots` (QLinearMatMul's A and B are inputs
/// 0 and 3).
pub fn matmul_at(ctx: &mut NodeCtx<'_>, slots: [usize; 2], a: Shape, b: Shape) -> Shape {
    let (Some(a), Some(b)) = (a, b) else {
        return None;
    };
    if a.is_empty() || b.is_empty() {
        let which = if a.is_empty() { "A" } else { "B" };
        ctx.broken(MATMUL_RANK, &slots, format_args!("{which} is a scalar"));
        return None;
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
    ctx.report_broadcast(Rule::Multidirectional, &slots, &outcome);
    if !(a_vec && b_vec) {
        let ka = Operand::new("A's columns", a2[a2.len() - 1].clone()).from_input(slots[0]);
        let kb = Operand::new("B's rows", b2[b2.len() - 2].clone()).from_input(slots[1]);
        contraction(ctx, MATMUL_INNER, ka, kb);
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
