//! onnxruntime's quantized element-wise, pooling, reduction and concatenation operators (domain
//! com.microsoft, all since version 1): QLinearAdd, QLinearMul, QLinearWhere, QLinearSigmoid,
//! QLinearLeakyRelu, QLinearSoftmax, QLinearConcat, QLinearGlobalAveragePool, QLinearAveragePool,
//! QLinearReduceMean, QLinearConv, and the integer MulInteger and ReduceSumInteger.
//!
//! Spec: <https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md#com.microsoft.QLinearAdd>
//! (and `#com.microsoft.QLinearMul`, `QLinearWhere`, `QLinearSigmoid`, `QLinearLeakyRelu`,
//! `QLinearSoftmax`, `QLinearConcat`, `QLinearGlobalAveragePool`, `QLinearAveragePool`,
//! `QLinearReduceMean`, `QLinearConv`, `MulInteger`, `ReduceSumInteger`). The schemas live in
//! onnxruntime's `quantization_defs.cc` and `contrib_defs.cc`; none has had a second version.
//!
//! What onnxruntime enforces, and so what is checked here:
//! - QLinearAdd, QLinearMul (A slot 0, B slot 3) and MulInteger (A slot 0, B slot 2) broadcast A and B
//!   multidirectionally (the kernels' broadcast helper refuses a mismatch: E1). Their schemas'
//!   shape inference also refuses, at load, a scale or zero point of known rank other than 0 (a
//!   `[1]` tensor included) — as does QLinearReduceMean's for its four scales and zero points.
//! - QLinearAveragePool's shape inference refuses the same (a scale or zero point of rank other than
//!   0). QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax and QLinearGlobalAveragePool's kernels
//!   refuse a scale or zero point that is not a scalar or a 1-D tensor of one element (`[1, 1]`
//!   included) — QLinearSoftmax only the constant ones (it checks them building its lookup table
//!   at load, and runs with a fed scale of any size): here, the scales whose values are known.
//! - QLinearWhere broadcasts condition (0), X (1) and Y (4) multidirectionally. Its scales, like
//!   QLinearConcat's, are not checked: the kernels read them only to build a lookup table, which
//!   they skip when an operand's scale and zero point equal the output's, so a scale of two equal
//!   values runs.
//! - QLinearConcat (inputs: Y_scale, Y_zero_point, then a (tensor, scale, zero point) triple per
//!   operand) needs every operand of one rank with equal sizes off the axis.
//! - The pools, the convolution, the reduction: the sizes of their standard counterparts (the window
//!   arithmetic of `conv_pool.rs` is reused through the registry), with `channels_last` (NHWC) read
//!   where the op has it.
//!
//! QLinearReduceMean, MulInteger and ReduceSumInteger have no CPU kernel in onnxruntime 1.31 (and
//! ReduceSumInteger no type inference), so they are not verified against it, only unit-tested; the
//! others are, by `tests/conformance/contrib/cases_quant.py`.
//!
//! Element types: the QLinear ops output their quantized type (`T`: the type of X, which their zero
//! points share; QLinearWhere, QLinearConcat and QLinearConv take it from the output zero point);
//! MulInteger outputs int32, ReduceSumInteger int32 for int8 data and uint32 for uint8 (its schema).

use super::super::broadcast::{Outcome, multidirectional_of, none};
use super::super::contract::Contract;
use super::super::ctx::{NodeCtx, Rule};
use super::super::dim::{Dim, Shape};
use super::super::registry::{Registry, registry};
use super::super::sites::{Declared, Kind};
use super::super::value::ValueInfo;
use super::common::{axis, like, sum};
use super::support::elem;
use crate::proto::tensor_proto::DataType;

const MS: &str = "com.microsoft";

pub fn register(r: &mut Registry) {
    // A and B broadcast (numpy), not their scales and zero points.
    let operands = Declared::Always(Kind::MultiOf(&[0, 3]));
    r.add_site(MS, "QLinearAdd", 1, qlinear_binary, operands);
    r.add_site(MS, "QLinearMul", 1, qlinear_binary, operands);
    r.add(MS, "MulInteger", 1, mul_integer);
    let operands = Declared::Always(Kind::MultiOf(&[0, 1, 4]));
    r.add_site(MS, "QLinearWhere", 1, qlinear_where, operands);
    r.add(MS, "QLinearSigmoid", 1, qlinear_unary);
    r.add(MS, "QLinearLeakyRelu", 1, qlinear_unary);
    r.add(MS, "QLinearSoftmax", 1, qlinear_unary);
    r.add(MS, "QLinearConcat", 1, qlinear_concat);
    r.add(
        MS,
        "QLinearGlobalAveragePool",
        1,
        qlinear_global_average_pool,
    );
    r.add(MS, "QLinearAveragePool", 1, qlinear_average_pool);
    r.add(MS, "QLinearConv", 1, qlinear_conv);
    r.add(MS, "QLinearReduceMean", 1, qlinear_reduce_mean);
    r.add(MS, "ReduceSumInteger", 1, reduce_sum_integer);
}

/// Runs the rule of the standard operator `op` (default domain, at `opset`) on this node with
/// `inputs` in place of its own: the contrib operators that only add quantization parameters to a
/// standard one keep its attributes and the slot of its data, so its sizes are the standard
/// operator's. Findings go to this node.
pub(super) fn delegate(
    ctx: &mut NodeCtx<'_>,
    op: &str,
    opset: i64,
    inputs: &[Option<&ValueInfo>],
) -> Vec<ValueInfo> {
    let Some(rule) = registry().lookup("", op, opset) else {
        return Vec::new();
    };
    let mut sub = crate::shape::ctx::no_subgraphs;
    let mut inner = NodeCtx {
        node: ctx.node,
        label: ctx.label,
        opset,
        inputs,
        findings: Vec::new(),
        facts: ctx.facts,
        ranges: ctx.ranges,
        conditions: ctx.conditions,
        subgraph: &mut sub,
    };
    let out = rule(&mut inner);
    ctx.findings.extend(inner.findings);
    out
}

/// Input `slot` for the node's whole life (not borrowed from `ctx`), to hand on to [`delegate`].
pub(super) fn input_of<'a>(ctx: &NodeCtx<'a>, slot: usize) -> Option<&'a ValueInfo> {
    ctx.inputs.get(slot).copied().flatten()
}

/// The scales and zero points at `slots` must be scalars (rank 0), as onnxruntime's shape inference
/// of QLinearAdd, QLinearMul, QLinearReduceMean and MulInteger demands at load: a known rank other
/// than 0 is E2.
fn scalars(ctx: &mut NodeCtx<'_>, data: usize, slots: &[usize], what: Contract) {
    for &s in slots {
        let Some(rank) = ctx.input(s).and_then(ValueInfo::rank) else {
            continue;
        };
        if rank == 0 {
            continue;
        }
        let outcome = Outcome {
            rank_error: Some(format!(
                "input {s} '{}' has rank {rank}, where rank 0 is needed",
                ctx.node.input_name(s)
            )),
            ..Outcome::default()
        };
        ctx.report_broadcast(Rule::Contract(what), &[data, s], &outcome);
    }
}

/// The scales and zero points at `slots` must hold one value: a scalar or a 1-D tensor of one
/// element, as onnxruntime's kernels check them (`IsScalarOr1ElementVector`). A 1-D tensor of a known
/// size other than 1, or a tensor of rank 2 or more (even `[1, 1]`), is E2.
pub(super) fn one_element(ctx: &mut NodeCtx<'_>, data: usize, slots: &[usize], what: Contract) {
    for &s in slots {
        let Some(shape) = ctx.shape(s) else {
            continue;
        };
        let wrong = match shape.as_slice() {
            [] => false,
            [n] => n.known().is_some_and(|n| n != 1),
            // `[1, 1]` too: the check is on the rank as well as on the number of elements.
            _ => true,
        };
        if !wrong {
            continue;
        }
        let outcome = Outcome {
            rank_error: Some(format!(
                "input {s} '{}' has shape {}, where one value is needed",
                ctx.node.input_name(s),
                super::super::dim::format_shape(&Some(shape.clone()))
            )),
            ..Outcome::default()
        };
        ctx.report_broadcast(Rule::Contract(what), &[data, s], &outcome);
    }
}

const ONE_VALUE: Contract = Contract::new(
    "quantized-one-value",
    "a quantized operator's per-tensor scale or zero point: a scalar or a 1-D tensor of one element",
);

/// Multidirectional broadcasting of the inputs at `slots`, reported; the result shape.
fn broadcast(ctx: &mut NodeCtx<'_>, slots: &[usize]) -> Shape {
    let present: Vec<usize> = slots
        .iter()
        .copied()
        .filter(|&s| ctx.has_input(s))
        .collect();
    let outcome = {
        let shapes: Vec<Option<&[Dim]>> = present
            .iter()
            .map(|&k| ctx.input(k).and_then(|i| i.shape.as_deref()))
            .collect();
        multidirectional_of(&shapes)
    };
    ctx.report_broadcast(Rule::Multidirectional, &present, &outcome);
    if present.len() < slots.len() {
        return None; // a required operand is missing: the result is not known
    }
    outcome.shape
}

const QLINEAR_SCALARS: Contract = Contract::new(
    "qlinear-scalar",
    "a QLinear operator's scale or zero point: a scalar (onnxruntime's shape inference refuses any other rank)",
);

/// QLinearAdd, QLinearMul: A (0) and B (3) broadcast; the result has their type.
fn qlinear_binary(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    scalars(ctx, 0, &[1, 2, 4, 5, 6, 7], QLINEAR_SCALARS);
    let shape = broadcast(ctx, &[0, 3]);
    let t = ctx.elem(0).or(ctx.elem(3)).or(ctx.elem(7));
    vec![ValueInfo::tensor(t, shape)]
}

/// MulInteger: A (0) and B (2) broadcast; int32.
fn mul_integer(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    scalars(ctx, 0, &[1, 3], QLINEAR_SCALARS);
    let shape = broadcast(ctx, &[0, 2]);
    vec![ValueInfo::tensor(elem(DataType::Int32), shape)]
}

/// QLinearWhere: condition (0), X (1) and Y (4) broadcast; the result has z_zero_point's type.
fn qlinear_where(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = broadcast(ctx, &[0, 1, 4]);
    let t = ctx.elem(8).or(ctx.elem(1)).or(ctx.elem(4));
    vec![ValueInfo::tensor(t, shape)]
}

/// QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax: X's shape and type; their kernels build a
/// lookup table from one scale and zero point each.
fn qlinear_unary(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if ctx.op_type() == "QLinearSoftmax" {
        // QLinearSoftmax checks a parameter only when it is a constant (at load, building its
        // lookup table), and runs with a fed one of any size: the scales whose values are known
        // (constants) are checked; the zero points, whose 8-bit values are not carried, are not.
        let constant: Vec<usize> = [1, 3]
            .into_iter()
            .filter(|&s| ctx.values(s).is_some())
            .collect();
        one_element(ctx, 0, &constant, ONE_VALUE);
    } else {
        one_element(ctx, 0, &[1, 2, 3, 4], ONE_VALUE);
    }
    vec![like(ctx, 0, ctx.shape(0))]
}

/// QLinearConcat: the operands are inputs 2, 5, 8, ...; the result has Y_zero_point's type.
fn qlinear_concat(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    const WHAT: Contract = Contract::new(
        "qlinear-concat-operands",
        "QLinearConcat's operands: one rank, and equal sizes on every axis but the axis of the concatenation",
    );
    let t = ctx.elem(1).or(ctx.elem(2));
    let slots: Vec<usize> = (2..ctx.num_inputs()).step_by(3).collect();
    let shapes: Vec<Shape> = slots.iter().map(|&s| ctx.shape(s)).collect();
    let Some(rank) = shapes.iter().flatten().map(Vec::len).next() else {
        return vec![ValueInfo::tensor(t, None)];
    };
    let Some(a) = ctx.attr_i("axis").and_then(|a| axis(a, rank)) else {
        return vec![ValueInfo::tensor(t, None)];
    };
    // The sizes off the axis must be equal: compare the shapes with the axis blanked out.
    let blanked: Vec<Shape> = shapes
        .iter()
        .map(|s| {
            s.as_ref().map(|dims| {
                let mut d = dims.clone();
                if let Some(x) = d.get_mut(a) {
                    *x = Dim::Unknown;
                }
                d
            })
        })
        .collect();
    let outcome = none(&blanked);
    ctx.report_broadcast(Rule::Contract(WHAT), &slots, &outcome);
    if outcome.is_error() || slots.is_empty() {
        return vec![ValueInfo::tensor(t, None)];
    }
    let along: Vec<Dim> = shapes
        .iter()
        .map(|s| match s {
            Some(d) => d.get(a).cloned().unwrap_or(Dim::Unknown),
            None => Dim::Unknown,
        })
        .collect();
    let shape = outcome.shape.map(|mut dims| {
        dims[a] = sum(&along);
        dims
    });
    vec![ValueInfo::tensor(t, shape)]
}

fn channels_last(ctx: &NodeCtx<'_>) -> bool {
    ctx.attr_i("channels_last").unwrap_or(0) != 0
}

/// `[N, D1, ..., Dn, C]` as `[N, C, D1, ..., Dn]`.
fn to_nchw(dims: &[Dim]) -> Vec<Dim> {
    let mut out = dims.to_vec();
    if dims.len() >= 2 {
        let c = out.remove(dims.len() - 1);
        out.insert(1, c);
    }
    out
}

/// `[N, C, D1, ..., Dn]` as `[N, D1, ..., Dn, C]`.
fn to_nhwc(dims: &[Dim]) -> Vec<Dim> {
    let mut out = dims.to_vec();
    if dims.len() >= 2 {
        let c = out.remove(1);
        out.push(c);
    }
    out
}

/// QLinearGlobalAveragePool: `[N, C, 1, ..., 1]`, or `[N, 1, ..., 1, C]` with `channels_last`.
fn qlinear_global_average_pool(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    one_element(ctx, 0, &[1, 2, 3, 4], ONE_VALUE);
    let last = channels_last(ctx);
    let shape = ctx.shape(0).filter(|s| s.len() >= 2).map(|dims| {
        let r = dims.len();
        let c = if last { r - 1 } else { 1 };
        dims.iter()
            .enumerate()
            .map(|(i, d)| {
                if i == 0 || i == c {
                    d.clone()
                } else {
                    Dim::Known(1)
                }
            })
            .collect()
    });
    let t = ctx.elem(0).or(ctx.elem(4));
    vec![ValueInfo::tensor(t, shape)]
}

/// Runs the standard rule `op` with input `x` (and the rest of the node's inputs) seen in NCHW when
/// the node says `channels_last`, and gives its first output back in the node's layout.
fn in_nchw(ctx: &mut NodeCtx<'_>, op: &str, opset: i64, x: usize) -> Vec<ValueInfo> {
    let last = channels_last(ctx);
    let nchw = ctx.input(x).map(|v| {
        let mut v = v.clone();
        if last {
            v.shape = v.shape.as_deref().map(to_nchw);
        }
        v
    });
    let inputs: Vec<Option<&ValueInfo>> = (0..ctx.num_inputs())
        .map(|k| {
            if k == x {
                nchw.as_ref()
            } else {
                input_of(ctx, k)
            }
        })
        .collect();
    let mut out = delegate(ctx, op, opset, &inputs);
    if last {
        for o in out.iter_mut().take(1) {
            o.shape = o.shape.as_deref().map(to_nhwc);
        }
    }
    out.truncate(1);
    out
}

/// QLinearAveragePool: its scales and zero points scalars (onnxruntime's shape inference); AveragePool's sizes (its attributes, no dilations), in NCHW or NHWC.
fn qlinear_average_pool(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    scalars(ctx, 0, &[1, 2, 3, 4], QLINEAR_SCALARS);
    let mut out = in_nchw(ctx, "AveragePool", 19, 0);
    let t = ctx.elem(0).or(ctx.elem(4));
    match out.first_mut() {
        Some(o) => o.elem = t,
        None => out.push(ValueInfo::tensor(t, None)),
    }
    out
}

/// QLinearConv of com.microsoft: the standard QLinearConv (x 0, w 3, y_zero_point 7), with x and
/// y in NHWC under `channels_last` (w stays `[M, C/group, k...]`).
fn qlinear_conv(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let mut out = in_nchw(ctx, "QLinearConv", 10, 0);
    let t = ctx.elem(7).or(ctx.elem(0));
    match out.first_mut() {
        Some(o) => o.elem = t,
        None => out.push(ValueInfo::tensor(t, None)),
    }
    out
}

/// QLinearReduceMean: ReduceMean's sizes with `axes` as an attribute (an empty list reduces every
/// axis) and `keepdims`.
fn qlinear_reduce_mean(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    scalars(ctx, 0, &[1, 2, 3, 4], QLINEAR_SCALARS);
    let x = input_of(ctx, 0);
    let mut out = delegate(ctx, "ReduceMean", 13, &[x]);
    out.truncate(1);
    for o in &mut out {
        o.data = None;
    }
    out
}

/// ReduceSumInteger: ReduceSum's sizes with `axes` as an attribute; 32-bit integers.
fn reduce_sum_integer(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    // The schema: uint32 for uint8 data, int32 for int8.
    let t = if ctx.elem(0) == elem(DataType::Uint8) {
        elem(DataType::Uint32)
    } else {
        elem(DataType::Int32)
    };
    let x = input_of(ctx, 0);
    let mut out = delegate(ctx, "ReduceSum", 11, &[x]);
    out.truncate(1);
    for o in &mut out {
        o.data = None;
        o.elem = t;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    const U8: Option<i32> = Some(DataType::Uint8 as i32);
    const I8: Option<i32> = Some(DataType::Int8 as i32);

    fn binary_inputs(a: &[&str], b: &[&str]) -> Vec<Option<ValueInfo>> {
        vec![
            t(U8, a),
            t(F32, &[]),
            t(U8, &[]),
            t(U8, b),
            t(F32, &[]),
            t(U8, &[]),
            t(F32, &[]),
            t(U8, &[]),
        ]
    }

    #[test]
    fn qlinear_add_broadcasts_a_and_b() {
        let n = node("QLinearAdd", 8, 1, vec![]);
        let out = run(
            qlinear_binary,
            &n,
            1,
            &binary_inputs(&["B", "1", "8"], &["3", "8"]),
        );
        assert_eq!(
            (out[0].elem, out[0].shape.clone()),
            (U8, shape(&["B", "3", "8"]))
        );
        let c = codes(qlinear_binary, &n, &binary_inputs(&["2", "3", "8"], &["7"]));
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(c[0].starts_with("E1 ") && c[0].contains("8 vs 7"), "{c:?}");
        let c = codes(qlinear_binary, &n, &binary_inputs(&["b", "8"], &["s", "8"]));
        assert!(c.len() == 1 && c[0].starts_with("W1 "), "{c:?}");
    }

    #[test]
    fn qlinear_scales_must_be_scalars() {
        let n = node("QLinearMul", 8, 1, vec![]);
        let mut inputs = binary_inputs(&["4"], &["4"]);
        inputs[4] = t(F32, &["1"]);
        let c = codes(qlinear_binary, &n, &inputs);
        assert!(
            c.len() == 1
                && c[0].starts_with("E2 'n' (QLinearMul) breaks the contract qlinear-scalar: ")
                && c[0].ends_with("here input 4 'i4' has rank 1, where rank 0 is needed"),
            "{c:?}"
        );
        inputs[4] = t(F32, &[]);
        inputs[2] = None;
        assert!(codes(qlinear_binary, &n, &inputs).is_empty());
    }

    #[test]
    fn where_and_mul_integer() {
        let n = node("QLinearWhere", 9, 1, vec![]);
        let bool_t = Some(DataType::Bool as i32);
        let mut inputs = vec![
            t(bool_t, &["2", "1"]),
            t(I8, &["1", "5"]),
            t(F32, &[]),
            t(I8, &[]),
        ];
        inputs.extend([
            t(I8, &["5"]),
            t(F32, &[]),
            t(I8, &[]),
            t(F32, &[]),
            t(I8, &[]),
        ]);
        let out = run(qlinear_where, &n, 1, &inputs);
        assert_eq!(
            (out[0].elem, out[0].shape.clone()),
            (I8, shape(&["2", "5"]))
        );
        inputs[4] = t(I8, &["4"]);
        let c = codes(qlinear_where, &n, &inputs);
        assert!(c.len() == 1 && c[0].starts_with("E1 "), "{c:?}");
        let n = node("MulInteger", 4, 1, vec![]);
        let out = run(
            mul_integer,
            &n,
            1,
            &[t(U8, &["3", "1"]), None, t(U8, &["4"]), None],
        );
        assert_eq!(out[0].shape, shape(&["3", "4"]));
        assert_eq!(out[0].elem, Some(DataType::Int32 as i32));
    }

    #[test]
    fn concat_sums_the_axis_and_checks_the_rest() {
        let n = node("QLinearConcat", 8, 1, vec![attr_i("axis", 1)]);
        let mut inputs = vec![t(F32, &[]), t(I8, &[])];
        inputs.extend([t(I8, &["N", "2"]), t(F32, &[]), t(I8, &[])]);
        inputs.extend([t(I8, &["N", "S"]), t(F32, &[]), t(I8, &[])]);
        let out = run(qlinear_concat, &n, 1, &inputs);
        assert_eq!(out[0].elem, I8);
        let dims: Vec<String> = out[0]
            .shape
            .iter()
            .flatten()
            .map(|d| d.to_string())
            .collect();
        assert_eq!(dims, ["N", "S+2"]);
        inputs[2] = t(I8, &["3", "2"]);
        inputs[5] = t(I8, &["4", "2"]);
        let c = codes(qlinear_concat, &n, &inputs);
        assert!(
            c.len() == 1
                && c[0].starts_with(
                    "E2 'n' (QLinearConcat) breaks the contract qlinear-concat-operands: "
                )
                && c[0].ends_with("here axis -2: 3 vs 4"),
            "{c:?}"
        );
    }

    #[test]
    fn pools_in_both_layouts() {
        let n = node(
            "QLinearGlobalAveragePool",
            5,
            1,
            vec![attr_i("channels_last", 1)],
        );
        let inputs = [t(U8, &["N", "H", "W", "C"]), None, None, None, None];
        assert_eq!(
            out_shape(qlinear_global_average_pool, &n, 1, &inputs),
            shape(&["N", "1", "1", "C"])
        );
        let n = node("QLinearGlobalAveragePool", 5, 1, vec![]);
        assert_eq!(
            out_shape(qlinear_global_average_pool, &n, 1, &inputs),
            shape(&["N", "H", "1", "1"])
        );
        let attrs = vec![
            attr_ints("kernel_shape", &[3, 3]),
            attr_ints("strides", &[2, 2]),
            attr_i("channels_last", 1),
        ];
        let n = node("QLinearAveragePool", 5, 1, attrs);
        let inputs = [t(U8, &["1", "9", "7", "4"]), None, None, None, None];
        let out = run(qlinear_average_pool, &n, 1, &inputs);
        assert_eq!(
            (out[0].elem, out[0].shape.clone()),
            (U8, shape(&["1", "4", "3", "4"]))
        );
    }

    #[test]
    fn reductions() {
        let n = node(
            "QLinearReduceMean",
            5,
            1,
            vec![attr_ints("axes", &[1]), attr_i("keepdims", 0)],
        );
        let inputs = [
            t(U8, &["N", "5", "7"]),
            t(F32, &[]),
            None,
            t(F32, &[]),
            None,
        ];
        let out = run(qlinear_reduce_mean, &n, 1, &inputs);
        assert_eq!(
            (out[0].elem, out[0].shape.clone()),
            (U8, shape(&["N", "7"]))
        );
        let n = node("ReduceSumInteger", 1, 1, vec![attr_ints("axes", &[-1])]);
        let out = run(reduce_sum_integer, &n, 1, &[t(I8, &["N", "5"])]);
        assert_eq!(out[0].shape, shape(&["N", "1"]));
        assert_eq!(out[0].elem, Some(DataType::Int32 as i32));
    }

    /// Every rule of both quantized files, on hostile attributes and inputs: none may panic.
    #[test]
    fn no_rule_panics() {
        use super::super::super::value::from_i64;
        let mut r = Registry::default();
        register(&mut r);
        super::super::contrib_quant_matmul::register(&mut r);
        let huge = Dim::Known(u64::MAX);
        let big = Some(ValueInfo::tensor(
            U8,
            Some(vec![huge.clone(), d("N"), Dim::Unknown, d("0")]),
        ));
        let extreme = Some(ValueInfo::int64_data(
            vec![from_i64(i64::MIN), from_i64(i64::MAX), from_i64(-1)],
            false,
        ));
        let mut input_sets = vec![
            vec![],
            vec![None; 12],
            vec![big.clone(); 12],
            vec![extreme.clone(); 12],
            vec![t(U8, &[]); 12],
            vec![t(I8, &["1"]); 12],
        ];
        for rank in 1..6 {
            let dims: Vec<String> = (0..rank).map(|k| (k * 7 % 5).to_string()).collect();
            let dims: Vec<&str> = dims.iter().map(String::as_str).collect();
            input_sets.push(vec![t(U8, &dims); 12]);
            let mut mixed = vec![t(F32, &dims), t(U8, &["2", "3"]), big.clone(), t(U8, &dims)];
            mixed.extend(vec![t(F32, &["N"]); 8]);
            input_sets.push(mixed);
        }
        let mut attr_sets = vec![vec![]];
        for v in [i64::MIN, -1, 0, 1, 2, 3, 8, i64::MAX] {
            let mut a: Vec<_> = [
                "axis",
                "keepdims",
                "channels_last",
                "transA",
                "transB",
                "K",
                "N",
                "bits",
                "block_size",
                "gather_axis",
                "quantize_axis",
                "hidden_size",
                "ceil_mode",
            ]
            .iter()
            .map(|n| attr_i(n, v))
            .collect();
            a.extend(
                ["axes", "kernel_shape", "strides", "pads", "dilations"]
                    .iter()
                    .map(|n| attr_ints(n, &[v, v])),
            );
            a.push(attr_s("direction", "bidirectional"));
            a.push(attr_s("auto_pad", "SAME_UPPER"));
            attr_sets.push(a);
        }
        let mut ops: Vec<(&str, &str)> = r.ops().collect();
        ops.sort();
        assert!(ops.len() >= 20, "{} ops", ops.len());
        for (domain, op) in ops {
            let rule = r.lookup(domain, op, 1).expect("registered at 1");
            for attrs in &attr_sets {
                for inputs in &input_sets {
                    for outputs in [0, 1, 3] {
                        let n = node(op, inputs.len(), outputs, attrs.clone());
                        run(rule, &n, 1, inputs);
                    }
                }
            }
        }
    }
}
