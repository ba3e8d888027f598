//! Operators with little in common: BitCast, Det, Unique and SwiGLU.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#BitCast>, `#Det`, `#Unique`,
//! `#SwiGLU`. Opset history:
//! - BitCast: 26. The target type has the source's bit width, so the shape is kept.
//! - Det: 11, 22. `[*, M, M]` gives `[*]`.
//! - Unique: 11, 28. Without `axis` the input is flattened: Y, indices and counts are 1-D with as many
//!   entries as distinct values (data), and inverse_indices has one entry per input element. With
//!   `axis`, Y is X with that axis as long as the number of distinct slices, and inverse_indices has
//!   X's length on the axis.
//! - SwiGLU: 28. A and B must have the same shape; the spec says broadcasting is not applied, so a
//!   difference is reported as a broadcast error of the "no broadcasting" rule.
//!
//! Contracts: Det's [`DET_RANK`], rank 2 or more, and [`DET_SQUARE`], the last two axes equal (onnx's
//! inference at load, onnxruntime's kernel at run); Unique's [`UNIQUE_AXIS`], inside the rank (onnx's
//! inference at load).

use super::super::broadcast::none;
use super::super::contract::{Contract, Operand};
use super::super::ctx::{NodeCtx, Rule};
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::{like, product};
use super::support::{elem, elem_attr};
use crate::proto::tensor_proto::DataType;

pub fn register(r: &mut Registry) {
    r.add("", "BitCast", 26, bit_cast);
    r.add("", "Det", 11, det);
    r.add("", "Unique", 11, unique);
    r.add("", "SwiGLU", 28, swiglu);
}

fn bit_cast(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![ValueInfo::tensor(elem_attr(ctx, "to"), ctx.shape(0))]
}

/// Det's input holds matrices.
pub const DET_RANK: Contract =
    Contract::new("det-rank", "the input has rank 2 or more ([*, M, M])");

/// Det's matrices are square.
pub const DET_SQUARE: Contract = Contract::new(
    "det-square",
    "the input's last two axes are equal (square matrices)",
);

/// Unique's axis.
pub const UNIQUE_AXIS: Contract = Contract::new(
    "unique-axis",
    "axis, when given, is inside the input's rank, in [-r, r-1]",
);

fn det(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let Some(s) = ctx.shape(0) else {
        return vec![like(ctx, 0, None)];
    };
    if s.len() < 2 {
        ctx.broken(
            DET_RANK,
            &[0],
            format_args!("the input has rank {}", s.len()),
        );
        return vec![like(ctx, 0, None)];
    }
    let r = s.len();
    let sides: Vec<Operand> = [ctx.operand(0, r - 2), ctx.operand(0, r - 1)]
        .into_iter()
        .flatten()
        .collect();
    ctx.require_equal(DET_SQUARE, &sides);
    vec![like(ctx, 0, Some(s[..r - 2].to_vec()))]
}

/// The number of distinct entries among `n`: unknown, except that 0 or 1 entries are all distinct.
fn distinct(n: &Dim) -> Dim {
    match n {
        Dim::Known(0 | 1) => n.clone(),
        _ => Dim::Unknown,
    }
}

fn unique(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let x = ctx.shape(0);
    let (y, count, inverse): (Shape, Dim, Dim) = match ctx.attr_i("axis") {
        None => {
            let n = x.as_ref().map_or(Dim::Unknown, |s| product(s.iter()));
            let c = distinct(&n);
            (Some(vec![c.clone()]), c, n)
        }
        Some(a) => match x
            .as_ref()
            .and_then(|s| Some((s, ctx.require_axis(UNIQUE_AXIS, &[0], a, s.len())?)))
        {
            Some((s, a)) => {
                let n = s[a].clone();
                let c = distinct(&n);
                let mut y = s.clone();
                y[a] = c.clone();
                (Some(y), c, n)
            }
            None => (None, Dim::Unknown, Dim::Unknown),
        },
    };
    let int64 = |d: Dim| ValueInfo::tensor(elem(DataType::Int64), Some(vec![d]));
    vec![
        like(ctx, 0, y),
        int64(count.clone()),
        int64(inverse),
        int64(count),
    ]
}

fn swiglu(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let outcome = none(&[ctx.shape(0), ctx.shape(1)]);
    ctx.report_broadcast(Rule::None, &[0, 1], &outcome);
    vec![ValueInfo::tensor(
        ctx.elem(0).or(ctx.elem(1)),
        outcome.shape,
    )]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    #[test]
    fn det_bitcast_swiglu() {
        let n = node("Det", 1, 1, vec![]);
        assert_eq!(
            out_shape(det, &n, 11, &[t(F32, &["B", "3", "3"])]),
            shape(&["B"])
        );
        assert_eq!(out_shape(det, &n, 11, &[t(F32, &["3", "3"])]), Some(vec![]));
        assert_eq!(out_shape(det, &n, 11, &[t(F32, &["3"])]), None);
        let n = node("BitCast", 1, 1, vec![attr_i("to", 6)]);
        let out = run(bit_cast, &n, 26, &[t(F32, &["2", "N"])]);
        assert_eq!(out[0].elem, Some(DataType::Int32 as i32));
        assert_eq!(out[0].shape, shape(&["2", "N"]));
        let n = node("SwiGLU", 2, 1, vec![]);
        assert_eq!(
            out_shape(swiglu, &n, 28, &[t(F32, &["N", "8"]), t(F32, &["N", "8"])]),
            shape(&["N", "8"])
        );
    }

    #[test]
    fn swiglu_reports_different_shapes() {
        let n = node("SwiGLU", 2, 1, vec![]);
        let inputs = [t(F32, &["N", "8"]), t(F32, &["N", "1"])];
        let inputs: Vec<Option<&ValueInfo>> = inputs.iter().map(Option::as_ref).collect();
        let mut sub = crate::shape::ctx::no_subgraphs;
        let mut ctx = NodeCtx {
            node: crate::shape::ctx::NodeRef::Proto(&n),
            label: "n",
            opset: 28,
            inputs: &inputs,
            findings: Vec::new(),
            facts: &crate::shape::facts::Facts::default(),
            ranges: None,
            conditions: None,
            subgraph: &mut sub,
        };
        swiglu(&mut ctx);
        assert_eq!(ctx.findings.len(), 1);
    }

    #[test]
    fn unique_outputs() {
        let n = node("Unique", 1, 4, vec![]);
        let out = run(unique, &n, 11, &[t(F32, &["2", "3"])]);
        assert_eq!(out[0].shape, shape(&["?"]));
        assert_eq!(out[1].shape, shape(&["?"]));
        assert_eq!(out[2].shape, shape(&["6"]));
        assert_eq!(out[3].shape, shape(&["?"]));
        let n = node("Unique", 1, 4, vec![attr_i("axis", -1)]);
        let out = run(unique, &n, 11, &[t(F32, &["2", "3"])]);
        assert_eq!(out[0].shape, shape(&["2", "?"]));
        assert_eq!(out[2].shape, shape(&["3"]));
        let out = run(unique, &n, 11, &[t(F32, &["2", "1"])]);
        assert_eq!(out[0].shape, shape(&["2", "1"]));
        assert_eq!(out[1].shape, shape(&["1"]));
        let n = node("Unique", 1, 1, vec![attr_i("axis", 7)]);
        assert_eq!(out_shape(unique, &n, 11, &[t(F32, &["2", "1"])]), None);
    }

    fn found(
        rule: crate::shape::registry::Rule,
        n: &crate::proto::NodeProto,
        x: &[&str],
    ) -> Vec<String> {
        contracts(rule, n, 22, &[t(F32, x)])
    }

    #[test]
    fn det_contracts() {
        let n = node("Det", 1, 1, vec![]);
        assert!(found(det, &n, &["B", "3", "3"]).is_empty());
        assert!(found(det, &n, &["M", "M"]).is_empty());
        assert_eq!(found(det, &n, &["3"]), ["E2 det-rank"]);
        assert_eq!(found(det, &n, &[]), ["E2 det-rank"]);
        assert_eq!(found(det, &n, &["2", "3"]), ["E2 det-square"]);
        assert_eq!(found(det, &n, &["B", "M", "3"]), ["W2 det-square"]);
        assert_eq!(found(det, &n, &["B", "M", "N"]), ["W2 det-square"]);
        let c = codes_at(det, &n, 22, &[t(F32, &["2", "3"])]);
        assert!(
            c[0].ends_with("here 2 (input 0 'i0' axis 0) vs 3 (input 0 'i0' axis 1)"),
            "{c:?}"
        );
    }

    #[test]
    fn unique_axis() {
        let n = node("Unique", 1, 4, vec![attr_i("axis", -2)]);
        assert!(found(unique, &n, &["2", "3"]).is_empty());
        let n = node("Unique", 1, 4, vec![attr_i("axis", 2)]);
        assert_eq!(found(unique, &n, &["2", "3"]), ["E3 unique-axis"]);
        let n = node("Unique", 1, 4, vec![attr_i("axis", -3)]);
        assert_eq!(found(unique, &n, &["2", "3"]), ["E3 unique-axis"]);
        let n = node("Unique", 1, 4, vec![]);
        assert!(found(unique, &n, &[]).is_empty());
    }
}
