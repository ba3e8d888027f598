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

use super::super::broadcast::none;
use super::super::ctx::{NodeCtx, Rule};
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::{axis, like, product};
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

fn det(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = ctx
        .shape(0)
        .filter(|s| s.len() >= 2)
        .map(|s| s[..s.len() - 2].to_vec());
    vec![like(ctx, 0, shape)]
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
        Some(a) => match x.as_ref().and_then(|s| Some((s, axis(a, s.len())?))) {
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
        let mut sub = |_: &str, _: &[ValueInfo], _: bool| -> Option<Vec<ValueInfo>> { None };
        let mut ctx = NodeCtx {
            node: crate::shape::ctx::NodeRef::Proto(&n),
            label: "n",
            opset: 28,
            inputs: &inputs,
            findings: Vec::new(),
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
}
