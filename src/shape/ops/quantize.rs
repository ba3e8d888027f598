//! Quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, and the integer matrix
//! products QLinearMatMul and MatMulInteger.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#QuantizeLinear>,
//! `#DequantizeLinear`, `#DynamicQuantizeLinear`, `#QLinearMatMul`, `#MatMulInteger`. Opset history:
//! - QuantizeLinear: 10, 13 (`axis`: per-axis scales), 19 (float8, `saturate`), 21 (`block_size`,
//!   `output_dtype`), 23 (`precision`, 4-bit types), 24, 25, 28. The output has x's shape; its type is
//!   the zero point's, else `output_dtype` (21 on), else uint8.
//! - DequantizeLinear: 10, 13, 19, 21, 23 (`output_dtype`), 24, 25, 28. The output has x's shape; its
//!   type is `output_dtype` (23 on), else the scale's (19 on), else float.
//! - DynamicQuantizeLinear: 11: y (uint8, x's shape), y_scale (float scalar), y_zero_point (uint8
//!   scalar).
//! - QLinearMatMul: 10, 21; MatMulInteger: 10. Both multiply like MatMul: 1-D operands are promoted
//!   and the batch dimensions broadcast multidirectionally (a conflict there is E1), through MatMul's
//!   rule and its contracts. QLinearMatMul's result has the output zero point's type; MatMulInteger's
//!   is int32.
//!
//! QuantizeLinear's and DequantizeLinear's scale and zero point, as onnxruntime's kernel
//! (`quantize_linear.cc`) checks them at run, at every opset (onnx's inference checks none of them).
//! The scale's shape decides the mode: a scalar or a 1-D `[1]` is per tensor, anything else per axis
//! (or blocked, with `block_size`, opset 21 on). The contracts:
//! - [`QUANTIZE_PER_TENSOR`]: per tensor, the zero point is one value too (a scalar or `[1]`; a
//!   `[1, 1]` is not) and block_size is 0. `axis` is not read, so not checked;
//! - [`QUANTIZE_AXIS`]: per axis or blocked, `axis` (default 1, read by the kernel at opsets 10-12
//!   too, where the spec has no such attribute) inside x's rank;
//! - [`QUANTIZE_PER_AXIS`]: the scale 1-D as long as x's axis, the zero point alike (a `[1, C]` scale
//!   is refused);
//! - [`QUANTIZE_BLOCKED`]: scale and zero point of x's rank, `ceil(x[axis] / block_size)` on the
//!   axis and x's sizes elsewhere.
//!
//! A 1-D scale of a symbolic length may be one value (per tensor) or not: it is not checked.

use super::super::contract::{Contract, Operand};
use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Poly};
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::like;
use super::matmul::matmul_at;
use super::support::{elem, elem_attr, scalar};
use crate::proto::tensor_proto::DataType;

pub fn register(r: &mut Registry) {
    r.add("", "QuantizeLinear", 10, quantize);
    r.add("", "DequantizeLinear", 10, dequantize);
    r.add("", "DynamicQuantizeLinear", 11, dynamic_quantize);
    r.add("", "QLinearMatMul", 10, qlinear_matmul);
    r.add("", "MatMulInteger", 10, matmul_integer);
}

/// A per-tensor scale and its zero point.
pub const QUANTIZE_PER_TENSOR: Contract = Contract::new(
    "quantize-per-tensor",
    "with a scale of one value (a scalar or [1]: per tensor), the zero point is a scalar or [1] too \
     and block_size is 0",
);

/// The quantization axis.
pub const QUANTIZE_AXIS: Contract = Contract::new(
    "quantize-axis",
    "with a per-axis or blocked scale, axis is inside x's rank, in [-r, r-1]",
);

/// A per-axis scale and its zero point.
pub const QUANTIZE_PER_AXIS: Contract = Contract::new(
    "quantize-per-axis",
    "without block_size, a scale of more than one value is 1-D as long as x's axis, and the zero \
     point likewise",
);

/// A blocked scale and its zero point.
pub const QUANTIZE_BLOCKED: Contract = Contract::new(
    "quantize-blocked",
    "with block_size, the scale and the zero point have x's rank, ceil(x[axis] / block_size) on the \
     axis and x's sizes on the others",
);

/// How the scale quantizes, from its shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    PerTensor,
    /// Per axis, or blocked with `block_size` > 0.
    PerAxis,
}

/// The mode a scale of shape `s` selects: `None` when it cannot be told (an unknown rank, or a 1-D
/// scale of a symbolic or unknown length, which may be 1).
fn mode(s: &[Dim]) -> Option<Mode> {
    match s {
        [] | [Dim::Known(1)] => Some(Mode::PerTensor),
        [Dim::Known(_)] => Some(Mode::PerAxis),
        [_] => None,
        _ => Some(Mode::PerAxis),
    }
}

/// Whether shape `s` is one value as onnxruntime reads it: a scalar, or 1-D of length 1.
fn one_value(s: &[Dim]) -> Option<bool> {
    match s {
        [] | [Dim::Known(1)] => Some(true),
        [Dim::Known(_)] => Some(false),
        [_] => None,
        _ => Some(false),
    }
}

/// The scale (input 1) and zero point (input 2) of QuantizeLinear and DequantizeLinear against x.
fn scale_contracts(ctx: &mut NodeCtx<'_>) {
    let Some(scale) = ctx.shape(1) else {
        return;
    };
    let zp = if ctx.has_input(2) { ctx.shape(2) } else { None };
    let block = if ctx.opset >= 21 {
        ctx.attr_i("block_size").unwrap_or(0)
    } else {
        0
    };
    match mode(&scale) {
        None => {}
        Some(Mode::PerTensor) => {
            if block > 0 {
                ctx.broken(
                    QUANTIZE_PER_TENSOR,
                    &[1],
                    format_args!("block_size is {block} with a scale of one value"),
                );
                return;
            }
            let Some(z) = zp else {
                return;
            };
            match (one_value(&z), z.as_slice()) {
                (Some(false), _) => {
                    let name = ctx.node.input_name(2);
                    ctx.broken(
                        QUANTIZE_PER_TENSOR,
                        &[1, 2],
                        format_args!(
                            "the zero point '{name}' has shape {}",
                            super::super::dim::format_shape(&Some(z.clone()))
                        ),
                    );
                }
                (None, [d]) => {
                    let ops = [
                        Operand::new("the zero point's length", d.clone()).from_input(2),
                        Operand::new("one value", Dim::Known(1)),
                    ];
                    ctx.require_equal(QUANTIZE_PER_TENSOR, &ops);
                }
                _ => {}
            }
        }
        Some(Mode::PerAxis) => {
            let x = ctx.shape(0);
            let a = ctx.attr_i("axis").unwrap_or(1);
            let axis = match &x {
                Some(x) => match ctx.require_axis(QUANTIZE_AXIS, &[0], a, x.len()) {
                    Some(k) => Some(k),
                    None => return,
                },
                None => None,
            };
            if block > 0 {
                blocked(ctx, &scale, zp.as_deref(), block, x.as_deref().zip(axis));
            } else {
                per_axis(ctx, &scale, zp.as_deref(), x.as_deref().zip(axis));
            }
        }
    }
}

/// [`QUANTIZE_PER_AXIS`]: the scale and zero point 1-D of x's size on axis `at` (when x is known).
fn per_axis(ctx: &mut NodeCtx<'_>, scale: &[Dim], zp: Option<&[Dim]>, at: Option<(&[Dim], usize)>) {
    for (slot, s) in [(1, Some(scale)), (2, zp)] {
        if let Some(s) = s
            && s.len() != 1
        {
            let name = ctx.node.input_name(slot);
            let what = if slot == 1 { "scale" } else { "zero point" };
            ctx.broken(
                QUANTIZE_PER_AXIS,
                &[0, slot],
                format_args!("the {what} '{name}' has rank {}, not 1", s.len()),
            );
            return;
        }
    }
    let mut sizes: Vec<Operand> = Vec::new();
    if let Some((_, k)) = at {
        sizes.extend(ctx.operand(0, k));
    }
    sizes.extend(ctx.operand(1, 0));
    if zp.is_some() {
        sizes.extend(ctx.operand(2, 0));
    }
    ctx.require_equal(QUANTIZE_PER_AXIS, &sizes);
}

/// [`QUANTIZE_BLOCKED`]: the scale and zero point of x's rank, `ceil(x[k] / block)` on axis `k`
/// and x's sizes elsewhere.
fn blocked(
    ctx: &mut NodeCtx<'_>,
    scale: &[Dim],
    zp: Option<&[Dim]>,
    block: i64,
    at: Option<(&[Dim], usize)>,
) {
    let Some((x, k)) = at else {
        return;
    };
    for (slot, s) in [(1, Some(scale)), (2, zp)] {
        if let Some(s) = s
            && s.len() != x.len()
        {
            let name = ctx.node.input_name(slot);
            let what = if slot == 1 { "scale" } else { "zero point" };
            ctx.broken(
                QUANTIZE_BLOCKED,
                &[0, slot],
                format_args!(
                    "the {what} '{name}' has rank {}, x has rank {}",
                    s.len(),
                    x.len()
                ),
            );
            return;
        }
    }
    for (i, d) in x.iter().enumerate() {
        let expected = if i == k {
            let blocks = Poly::of_size(d)
                .and_then(|p| p.ceil_div(block))
                .map_or(Dim::Unknown, Poly::into_size);
            Operand::new(format!("ceil(x's axis {i} / block_size {block})"), blocks).from_input(0)
        } else {
            match ctx.operand(0, i) {
                Some(o) => o,
                None => continue,
            }
        };
        let mut sizes = vec![expected];
        sizes.extend(ctx.operand(1, i));
        if zp.is_some() {
            sizes.extend(ctx.operand(2, i));
        }
        if !ctx.require_equal(QUANTIZE_BLOCKED, &sizes) {
            return;
        }
    }
}

fn quantize(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    scale_contracts(ctx);
    let t = if ctx.has_input(2) {
        ctx.elem(2)
    } else if ctx.opset >= 21 && ctx.attr_i("output_dtype").unwrap_or(0) != 0 {
        elem_attr(ctx, "output_dtype")
    } else {
        elem(DataType::Uint8)
    };
    vec![ValueInfo::tensor(t, ctx.shape(0))]
}

fn dequantize(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    scale_contracts(ctx);
    let t = if ctx.opset >= 23 && ctx.attr_i("output_dtype").unwrap_or(0) != 0 {
        elem_attr(ctx, "output_dtype")
    } else if ctx.opset >= 19 {
        ctx.elem(1)
    } else {
        elem(DataType::Float)
    };
    vec![ValueInfo::tensor(t, ctx.shape(0))]
}

fn dynamic_quantize(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![
        ValueInfo::tensor(elem(DataType::Uint8), ctx.shape(0)),
        scalar(DataType::Float),
        scalar(DataType::Uint8),
    ]
}

fn qlinear_matmul(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = matmul_at(ctx, [0, 3], ctx.shape(0), ctx.shape(3));
    vec![like(ctx, 7, shape)]
}

fn matmul_integer(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = matmul_at(ctx, [0, 1], ctx.shape(0), ctx.shape(1));
    vec![ValueInfo::tensor(elem(DataType::Int32), shape)]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    const U8: Option<i32> = Some(DataType::Uint8 as i32);
    const I8: Option<i32> = Some(DataType::Int8 as i32);

    #[test]
    fn quantize_types_follow_the_opset() {
        let n = node("QuantizeLinear", 3, 1, vec![]);
        let out = run(
            quantize,
            &n,
            13,
            &[t(F32, &["N", "3"]), t(F32, &[]), t(I8, &[])],
        );
        assert_eq!(
            (out[0].elem, out[0].shape.clone()),
            (I8, shape(&["N", "3"]))
        );
        let n = node("QuantizeLinear", 2, 1, vec![attr_i("output_dtype", 3)]);
        let out = run(quantize, &n, 21, &[t(F32, &["N"]), t(F32, &[])]);
        assert_eq!(out[0].elem, I8);
        let out = run(quantize, &n, 19, &[t(F32, &["N"]), t(F32, &[])]);
        assert_eq!(out[0].elem, U8);
        let n = node("DequantizeLinear", 2, 1, vec![]);
        let f16 = Some(DataType::Float16 as i32);
        let out = run(dequantize, &n, 19, &[t(U8, &["4"]), t(f16, &[])]);
        assert_eq!((out[0].elem, out[0].shape.clone()), (f16, shape(&["4"])));
        let out = run(dequantize, &n, 13, &[t(U8, &["4"]), t(f16, &[])]);
        assert_eq!(out[0].elem, F32);
        let n = node("DynamicQuantizeLinear", 1, 3, vec![]);
        let out = run(dynamic_quantize, &n, 11, &[t(F32, &["2", "3"])]);
        assert_eq!(out[0].shape, shape(&["2", "3"]));
        assert_eq!((out[1].elem, out[2].elem), (F32, U8));
    }

    #[test]
    fn integer_matmuls_broadcast_their_batches() {
        let n = node("QLinearMatMul", 8, 1, vec![]);
        let s = |dims: &[&str]| t(U8, dims);
        let mut inputs = vec![s(&["B", "1", "2", "4"]), None, None, s(&["3", "4", "5"])];
        inputs.extend([None, None, None, t(I8, &[])]);
        let out = run(qlinear_matmul, &n, 21, &inputs);
        assert_eq!(
            (out[0].elem, out[0].shape.clone()),
            (I8, shape(&["B", "3", "2", "5"]))
        );
        let n = node("MatMulInteger", 2, 1, vec![]);
        let out = run(matmul_integer, &n, 10, &[s(&["4"]), s(&["4", "5"])]);
        assert_eq!(out[0].shape, shape(&["5"]));
        let mut ctx_inputs = vec![s(&["2", "3", "4"]), s(&["5", "4", "6"])];
        let out = run(matmul_integer, &n, 10, &ctx_inputs);
        assert_eq!(out[0].shape, shape(&["?", "3", "6"]));
        ctx_inputs[1] = s(&[]);
        assert_eq!(run(matmul_integer, &n, 10, &ctx_inputs)[0].shape, None);
    }

    /// "CODE contract" of each finding of `rule` at `opset`.
    fn found(
        op: &str,
        attrs: Vec<crate::proto::AttributeProto>,
        opset: i64,
        inputs: &[Option<ValueInfo>],
    ) -> Vec<String> {
        let n = node(op, inputs.len(), 1, attrs);
        let rule = if op == "QuantizeLinear" {
            quantize
        } else {
            dequantize
        };
        contracts(rule, &n, opset, inputs)
    }

    fn q(
        opset: i64,
        attrs: Vec<crate::proto::AttributeProto>,
        x: &[&str],
        s: &[&str],
        z: Option<&[&str]>,
    ) -> Vec<String> {
        let mut inputs = vec![t(F32, x), t(F32, s)];
        if let Some(z) = z {
            inputs.push(t(U8, z));
        }
        found("QuantizeLinear", attrs, opset, &inputs)
    }

    #[test]
    fn per_tensor_zero_points() {
        let x = ["N", "3", "4"];
        assert!(q(13, vec![], &x, &[], Some(&[])).is_empty());
        assert!(q(13, vec![], &x, &["1"], Some(&["1"])).is_empty());
        assert!(q(10, vec![], &x, &[], None).is_empty());
        // The axis is not read per tensor.
        assert!(q(13, vec![attr_i("axis", 7)], &x, &[], None).is_empty());
        assert_eq!(
            q(13, vec![], &x, &["1"], Some(&["2"])),
            ["E2 quantize-per-tensor"]
        );
        assert_eq!(
            q(13, vec![], &x, &[], Some(&["1", "1"])),
            ["E2 quantize-per-tensor"]
        );
        assert_eq!(
            q(13, vec![], &x, &[], Some(&["Z"])),
            ["W2 quantize-per-tensor"]
        );
        assert_eq!(
            q(21, vec![attr_i("block_size", 2)], &x, &["1"], None),
            ["E2 quantize-per-tensor"]
        );
    }

    #[test]
    fn per_axis_scales() {
        let x = ["N", "3", "4"];
        assert!(q(13, vec![], &x, &["3"], Some(&["3"])).is_empty());
        assert!(
            q(10, vec![], &x, &["3"], None).is_empty(),
            "axis 1 by default"
        );
        assert!(q(13, vec![attr_i("axis", -1)], &x, &["4"], Some(&["4"])).is_empty());
        assert_eq!(
            q(13, vec![attr_i("axis", 3)], &x, &["4"], None),
            ["E3 quantize-axis"]
        );
        assert_eq!(q(13, vec![], &x, &["4"], None), ["E2 quantize-per-axis"]);
        assert_eq!(
            q(13, vec![], &x, &["3"], Some(&["2"])),
            ["E2 quantize-per-axis"]
        );
        assert_eq!(
            q(13, vec![], &x, &["3"], Some(&[])),
            ["E2 quantize-per-axis"]
        );
        assert_eq!(
            q(19, vec![], &x, &["1", "3"], None),
            ["E2 quantize-per-axis"]
        );
        assert_eq!(
            q(13, vec![attr_i("axis", 0)], &x, &["3"], None),
            ["W2 quantize-per-axis"]
        );
        // A symbolic scale length may be one value: not checked.
        assert!(q(13, vec![], &x, &["S"], None).is_empty());
        let n = node("DequantizeLinear", 2, 1, vec![]);
        let c = codes_at(dequantize, &n, 13, &[t(U8, &["2", "3"]), t(F32, &["4"])]);
        assert!(
            c[0].ends_with("here 3 (input 0 'i0' axis 1) vs 4 (input 1 'i1' axis 0)"),
            "{c:?}"
        );
    }

    #[test]
    fn blocked_scales() {
        let b = || vec![attr_i("axis", 1), attr_i("block_size", 2)];
        assert!(
            q(
                21,
                b(),
                &["2", "6", "4"],
                &["2", "3", "4"],
                Some(&["2", "3", "4"])
            )
            .is_empty()
        );
        assert!(q(21, b(), &["2", "5", "4"], &["2", "3", "4"], None).is_empty());
        assert_eq!(
            q(21, b(), &["N", "T", "4"], &["N", "T", "4"], None),
            ["W2 quantize-blocked"]
        );
        assert_eq!(
            q(21, b(), &["2", "6", "4"], &["2", "2", "4"], None),
            ["E2 quantize-blocked"]
        );
        assert_eq!(
            q(21, b(), &["2", "6", "4"], &["2", "3", "1"], None),
            ["E2 quantize-blocked"]
        );
        assert_eq!(
            q(21, b(), &["2", "6", "4"], &["3"], None),
            ["E2 quantize-blocked"]
        );
        assert_eq!(
            q(
                21,
                b(),
                &["2", "6", "4"],
                &["2", "3", "4"],
                Some(&["2", "3", "1"])
            ),
            ["E2 quantize-blocked"]
        );
        assert_eq!(
            q(21, b(), &["2", "T", "4"], &["2", "3", "4"], None),
            ["W2 quantize-blocked"]
        );
        let n = node("QuantizeLinear", 2, 1, b());
        let c = codes_at(
            quantize,
            &n,
            21,
            &[t(F32, &["2", "6", "4"]), t(F32, &["2", "2", "4"])],
        );
        assert!(
            c[0].ends_with("here 3 (ceil(x's axis 1 / block_size 2)) vs 2 (input 1 'i1' axis 1)"),
            "{c:?}"
        );
        // Before opset 21 there is no block_size: a 3-D scale is a per-axis one, refused.
        assert_eq!(
            q(19, b(), &["2", "6", "4"], &["2", "3", "4"], None),
            ["E2 quantize-per-axis"]
        );
    }
}
