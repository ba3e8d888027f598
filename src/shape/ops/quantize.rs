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

use super::super::ctx::NodeCtx;
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

fn quantize(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
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
}
