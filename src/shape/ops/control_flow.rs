//! Control flow: If, Loop and Scan. Their bodies are inferred as subgraphs that see the enclosing
//! scope; broadcasts inside them are checked like any other (a finding names the inner node and the
//! subgraph's path).
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#If> (1, 11, 13, 16, 19, 21, 23, 24),
//! `#Loop` (1, 11, 13, 16, 19, 21, 23, 24), `#Scan` (8: batch axis and sequence_lens; 9 on: scan axes
//! attributes). A Loop body is inferred with the initial loop-carried types: what it finds is what
//! the first iteration would meet.

use super::super::ctx::{NodeCtx, Reach};
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::{Kind, ValueInfo};
use crate::proto::tensor_proto::DataType;

pub fn register(r: &mut Registry) {
    r.add("", "If", 1, if_rule);
    r.add("", "Loop", 1, loop_rule);
    r.add("", "Scan", 8, scan_v8);
    r.add("", "Scan", 9, scan);
}

/// What is common to two types of one value: equal parts are kept, differing sizes become unknown.
pub fn join(a: &ValueInfo, b: &ValueInfo) -> ValueInfo {
    let shape: Shape = match (&a.shape, &b.shape) {
        (Some(x), Some(y)) if x.len() == y.len() => Some(
            x.iter()
                .zip(y)
                .map(|(p, q)| if p == q { p.clone() } else { Dim::Unknown })
                .collect(),
        ),
        _ => None,
    };
    ValueInfo {
        kind: if a.kind == b.kind {
            a.kind
        } else {
            Kind::Tensor
        },
        elem: a.elem.or(b.elem),
        shape,
        data: if a.data == b.data {
            a.data.clone()
        } else {
            None
        },
    }
}

/// If: both branches are inferred; with a condition of known value (an exported function's
/// `Equal(Size(x), 4)`), the outputs are the taken branch's and the other's findings are dropped, since
/// it never runs; otherwise the outputs are what the two branches agree on, and each branch may run
/// ([`Reach::Maybe`]).
fn if_rule(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let cond = ctx.data_i64(0).filter(|v| v.len() == 1).map(|v| v[0] != 0);
    let reach = |taken: bool| match cond {
        None => Reach::Maybe,
        Some(c) if c == taken => Reach::Runs,
        Some(_) => Reach::Never,
    };
    let then = ctx.infer_branch("then_branch", reach(true));
    let els = ctx.infer_branch("else_branch", reach(false));
    match (cond, then, els) {
        (Some(true), Some(t), _) => t,
        (Some(false), _, Some(e)) => e,
        (None, Some(t), Some(e)) => t.iter().zip(&e).map(|(a, b)| join(a, b)).collect(),
        _ => Vec::new(),
    }
}

fn scalar(elem: DataType) -> ValueInfo {
    ValueInfo::tensor(Some(elem as i32), Some(vec![]))
}

/// Loop(M, cond, v_initial...) -> (v_final..., scan_outputs...). The body takes (iteration, cond,
/// v...) and returns (cond, v..., scan elements...).
fn loop_rule(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let carried: Vec<ValueInfo> = (2..ctx.num_inputs())
        .map(|k| ctx.input(k).cloned().unwrap_or_else(ValueInfo::unknown))
        .collect();
    let mut formal = vec![scalar(DataType::Int64), scalar(DataType::Bool)];
    formal.extend(carried.iter().cloned());
    let Some(body) = ctx.infer_subgraph("body", &formal) else {
        return Vec::new();
    };
    let n = carried.len();
    let mut out: Vec<ValueInfo> = carried
        .iter()
        .zip(body.iter().skip(1))
        .map(|(init, after)| join(init, after))
        .collect();
    // Scan outputs stack one element per iteration: the count is not known statically.
    for elem in body.iter().skip(1 + n) {
        out.push(stacked(elem, 0, Dim::Unknown));
    }
    out
}

/// `elem` with a new axis of size `len` inserted at `axis`.
fn stacked(elem: &ValueInfo, axis: usize, len: Dim) -> ValueInfo {
    let shape = elem.shape.as_ref().and_then(|s| {
        (axis <= s.len()).then(|| {
            let mut s = s.clone();
            s.insert(axis, len);
            s
        })
    });
    ValueInfo::tensor(elem.elem, shape)
}

/// Resolves a possibly negative axis against `rank`.
fn axis_of(axis: i64, rank: usize) -> Option<usize> {
    let r = rank as i64;
    let a = if axis < 0 { axis + r } else { axis };
    (0..r).contains(&a).then_some(a as usize)
}

/// Scan (opset 9 on): inputs are N states then M scan inputs; the body gets the states and one slice
/// of each scan input (its scan axis removed), and returns N states and K scan-output elements.
fn scan(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let m = ctx.attr_i("num_scan_inputs").unwrap_or(0).max(0) as usize;
    let total = ctx.num_inputs();
    let Some(n) = total.checked_sub(m) else {
        return Vec::new();
    };
    let in_axes = ctx
        .attr_ints("scan_input_axes")
        .map(<[i64]>::to_vec)
        .unwrap_or_default();
    let out_axes = ctx
        .attr_ints("scan_output_axes")
        .map(<[i64]>::to_vec)
        .unwrap_or_default();
    let mut formal: Vec<ValueInfo> = (0..n)
        .map(|k| ctx.input(k).cloned().unwrap_or_else(ValueInfo::unknown))
        .collect();
    let mut seq_len = Dim::Unknown;
    for j in 0..m {
        let x = ctx.input(n + j).cloned().unwrap_or_else(ValueInfo::unknown);
        let axis = in_axes.get(j).copied().unwrap_or(0);
        let slice = x.shape.as_ref().and_then(|s| {
            let a = axis_of(axis, s.len())?;
            if j == 0 {
                seq_len = s[a].clone();
            }
            let mut s = s.clone();
            s.remove(a);
            Some(s)
        });
        formal.push(ValueInfo::tensor(x.elem, slice));
    }
    let Some(body) = ctx.infer_subgraph("body", &formal) else {
        return Vec::new();
    };
    let mut out: Vec<ValueInfo> = formal
        .iter()
        .take(n)
        .zip(&body)
        .map(|(init, after)| join(init, after))
        .collect();
    for (k, elem) in body.iter().skip(n).enumerate() {
        let rank = elem.rank().map_or(0, |r| r + 1);
        let axis = axis_of(out_axes.get(k).copied().unwrap_or(0), rank).unwrap_or(0);
        out.push(stacked(elem, axis, seq_len.clone()));
    }
    out
}

/// Scan opset 8 (batched, with sequence_lens first): the body is inferred with unknown inputs, which
/// still checks the broadcasts among its own constants and declared shapes.
fn scan_v8(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let m = ctx.attr_i("num_scan_inputs").unwrap_or(0).max(0) as usize;
    let states = ctx.num_inputs().saturating_sub(m + 1);
    let formal = vec![ValueInfo::unknown(); states + m];
    ctx.infer_subgraph("body", &formal);
    Vec::new()
}
