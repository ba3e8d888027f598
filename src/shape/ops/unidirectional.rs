//! Operators that broadcast one input to another's shape (unidirectional): Gemm's C, PRelu's slope,
//! LayerNormalization's and RMSNormalization's scale and bias. onnx's own shape inference checks none of
//! these; a mismatch there only shows at run time.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md>. Opset history:
//! - Gemm: 1 and 6 broadcast C only with `broadcast=1`; 7 on C is unidirectional; 11 makes C optional.
//! - PRelu: 7 makes the slope unidirectional. Before (opsets 1 and 6) how the slope broadcasts was
//!   unspecified, so it is not checked there: Y simply has X's shape.
//! - LayerNormalization: 17. RMSNormalization: 23. Scale and bias broadcast to X unidirectionally.
//!
//! Gemm's contracts, which onnxruntime's kernel (`gemm_helper.h`) checks at run: [`GEMM_RANK`], B of
//! rank 2 and A of rank 2 (its kernel also takes a 1-D A, which onnx's inference refuses at load
//! when it knows the rank: not reported); [`GEMM_INNER`], the contraction sizes agree after the
//! transposes.
//!
//! LayerNormalization's and RMSNormalization's [`LAYER_NORM_AXIS`]: `axis` inside X's rank. onnx's
//! inference refuses an axis below -r at load, and one of r or more too for LayerNormalization;
//! onnxruntime's kernel refuses both at run.

use super::super::broadcast::{none, unidirectional};
use super::super::contract::{Contract, Operand};
use super::super::ctx::{NodeCtx, Rule};
use super::super::dim::Dim;
use super::super::registry::Registry;
use super::super::sites::{Declared, Kind};
use super::super::value::ValueInfo;

pub fn register(r: &mut Registry) {
    // C broadcasts to [M, N]; before opset 7 only with `broadcast=1`.
    let gemm_c = Kind::GemmC;
    r.add_site(
        "",
        "Gemm",
        1,
        gemm,
        Declared::WithBroadcastAttribute(gemm_c),
    );
    r.add_site("", "Gemm", 7, gemm, Declared::Always(gemm_c));
    r.add("", "PRelu", 1, prelu_legacy);
    r.add_site("", "PRelu", 7, prelu, Declared::Always(Kind::ToFirst(&[1])));
    // Scale and bias to the normalized part of X's shape, X.shape[axis:] (see `Kind::Normalized`).
    let norm = |slots| Declared::Always(Kind::Normalized(slots));
    r.add_site("", "LayerNormalization", 17, layer_norm, norm(&[1, 2]));
    r.add_site("", "RMSNormalization", 23, layer_norm, norm(&[1]));
}

/// Gemm's operands are matrices.
pub const GEMM_RANK: Contract = Contract::new("gemm-rank", "A and B are 2-D");

/// Gemm's contraction.
pub const GEMM_INNER: Contract = Contract::new(
    "gemm-inner",
    "A's columns equal B's rows, after transA and transB",
);

/// LayerNormalization's and RMSNormalization's axis.
pub const LAYER_NORM_AXIS: Contract =
    Contract::new("layer-norm-axis", "axis is inside X's rank, in [-r, r-1]");

/// The 2-D shape of a Gemm operand after its optional transpose, as (rows, cols).
fn gemm_operand(ctx: &NodeCtx<'_>, slot: usize, transposed: bool) -> Option<(Dim, Dim)> {
    match ctx.shape(slot)?.as_slice() {
        [r, c] if transposed => Some((c.clone(), r.clone())),
        [r, c] => Some((r.clone(), c.clone())),
        _ => None,
    }
}

/// Gemm; also onnxruntime's FusedGemm (Gemm with an activation), whose inputs and attributes are
/// Gemm's.
pub fn gemm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    for (slot, name) in [(0, "A"), (1, "B")] {
        match ctx.input(slot).and_then(ValueInfo::rank) {
            // A 1-D A runs in onnxruntime's kernel (see the module's header).
            Some(2) | None => {}
            Some(1) if slot == 0 => {}
            Some(r) => ctx.broken(GEMM_RANK, &[slot], format_args!("{name} has rank {r}")),
        }
    }
    let a = gemm_operand(ctx, 0, ctx.attr_i("transA").unwrap_or(0) != 0);
    let b = gemm_operand(ctx, 1, ctx.attr_i("transB").unwrap_or(0) != 0);
    if let (Some((_, ka)), Some((kb, _))) = (&a, &b) {
        let ka = Operand::new("A's columns", ka.clone()).from_input(0);
        let kb = Operand::new("B's rows", kb.clone()).from_input(1);
        super::matmul::contraction(ctx, GEMM_INNER, ka, kb);
    }
    let y: Option<Vec<Dim>> = match (&a, &b) {
        (Some((m, _)), Some((_, n))) => Some(vec![m.clone(), n.clone()]),
        (Some((m, _)), None) => Some(vec![m.clone(), Dim::Unknown]),
        (None, Some((_, n))) => Some(vec![Dim::Unknown, n.clone()]),
        (None, None) => Some(vec![Dim::Unknown, Dim::Unknown]),
    };
    if ctx.has_input(2) {
        let c = ctx.shape(2);
        let legacy = ctx.opset < 7;
        let before = ctx.findings.len();
        if legacy && ctx.attr_i("broadcast").unwrap_or(0) == 0 {
            let outcome = none(&[y.clone(), c]);
            ctx.report_broadcast(Rule::None, &[0, 1, 2], &outcome);
        } else {
            let outcome = unidirectional(&y, &c);
            ctx.report_broadcast(Rule::Unidirectional, &[0, 1, 2], &outcome);
        }
        // The algebra's operands are A*B and C, not inputs 0 and 1: C is input 2, and A*B's last
        // axis comes from B, the one before from A.
        for d in &mut ctx.findings[before..] {
            let axis = d.axis;
            for (slot, _) in &mut d.inputs {
                *slot = match (*slot, axis) {
                    (0, Some(-1)) => 1,
                    (0, _) => 0,
                    _ => 2,
                };
            }
        }
    }
    vec![ValueInfo::tensor(ctx.elem(0), y)]
}

fn prelu(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let x = ctx.shape(0);
    let outcome = unidirectional(&x, &ctx.shape(1));
    ctx.report_broadcast(Rule::Unidirectional, &[0, 1], &outcome);
    vec![ValueInfo::tensor(ctx.elem(0), x)]
}

/// PRelu before opset 7: the slope's broadcasting was unspecified, so there is nothing to check.
fn prelu_legacy(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![ValueInfo::tensor(ctx.elem(0), ctx.shape(0))]
}

/// LayerNormalization (X, Scale, B) and RMSNormalization (X, scale): Y has X's shape; the statistics
/// outputs have X's shape with the normalized axes set to 1.
fn layer_norm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let x = ctx.shape(0);
    let axis = ctx.attr_i("axis").unwrap_or(-1);
    if let Some(r) = x.as_ref().map(Vec::len)
        && ctx.require_axis(LAYER_NORM_AXIS, &[0], axis, r).is_none()
    {
        return vec![ValueInfo::unknown(); ctx.num_outputs().max(1)];
    }
    for slot in 1..ctx.num_inputs().min(3) {
        if ctx.has_input(slot) {
            let outcome = unidirectional(&x, &ctx.shape(slot));
            ctx.report_broadcast(Rule::Unidirectional, &[0, slot], &outcome);
        }
    }
    let stats = x.as_ref().and_then(|dims| {
        let r = dims.len() as i64;
        let a = if axis < 0 { axis + r } else { axis };
        (0..=r).contains(&a).then(|| {
            dims.iter()
                .enumerate()
                .map(|(i, d)| {
                    if (i as i64) < a {
                        d.clone()
                    } else {
                        Dim::Known(1)
                    }
                })
                .collect()
        })
    });
    let stash = Some(ctx.attr_i("stash_type").unwrap_or(1) as i32);
    let mut out = vec![ValueInfo::tensor(ctx.elem(0), x)];
    for _ in 1..ctx.num_outputs() {
        out.push(ValueInfo::tensor(stash, stats.clone()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    fn found(op: &str, axis: i64, x: &[&str], scale: &[&str]) -> Vec<String> {
        let n = node(op, 2, 1, vec![attr_i("axis", axis)]);
        contracts(layer_norm, &n, 23, &[t(F32, x), t(F32, scale)])
    }

    #[test]
    fn layer_norm_axis_inside_the_rank() {
        for op in ["LayerNormalization", "RMSNormalization"] {
            assert!(found(op, -1, &["N", "S", "8"], &["8"]).is_empty());
            assert!(found(op, 0, &["N", "8"], &["N", "8"]).is_empty());
            assert!(found(op, -2, &["2", "8"], &["2", "8"]).is_empty());
            assert_eq!(found(op, 2, &["N", "8"], &["8"]), ["E3 layer-norm-axis"]);
            assert_eq!(found(op, -3, &["N", "8"], &["8"]), ["E3 layer-norm-axis"]);
        }
        let n = node("LayerNormalization", 2, 1, vec![attr_i("axis", 3)]);
        let c = codes_at(layer_norm, &n, 17, &[t(F32, &["2", "8"]), t(F32, &["8"])]);
        assert!(c[0].ends_with("here axis 3 of a tensor of rank 2"), "{c:?}");
    }
}
