//! onnxruntime's quantized matrix products, gathers, (de)quantization and recurrence (domain
//! com.microsoft, all since version 1): QGemm, MatMulIntegerToFloat, DynamicQuantizeMatMul,
//! MatMulInteger16, MatMulNBits, MatMulBnb4, GatherBlockQuantized, QuantizeLinear,
//! DequantizeLinear, DynamicQuantizeLSTM (QEmbedLayerNormalization is with the
//! embeddings, in contrib_norm.rs).
//!
//! Spec: <https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md#com.microsoft.QGemm>
//! (and `#com.microsoft.MatMulIntegerToFloat`, `DynamicQuantizeMatMul`, `MatMulInteger16`,
//! `MatMulNBits`, `MatMulBnb4`, `GatherBlockQuantized`, `QuantizeLinear`, `DequantizeLinear`,
//! `DynamicQuantizeLSTM`); schemas in onnxruntime's `quantization_defs.cc` and `contrib_defs.cc`.
//!
//! What onnxruntime enforces, and so what is checked here:
//! - QGemm: A and B of rank 2, `Y = [M, N]` from `transA`/`transB`; the kernel's Gemm helper refuses
//!   a contraction whose K differ, and a C that does not broadcast (unidirectionally) to `[M, N]`.
//!   Its CheckInputs wants a_scale, a_zero_point, y_scale, y_zero_point of one value (a scalar or
//!   `[1]`), b_scale and b_zero_point scalars or 1-D of 1 or N, both of one rank and length.
//!   Y is float when there is no y_zero_point (onnxruntime's inference reads input 8), else of its type.
//! - MatMulIntegerToFloat (A 0, B 1; Y of a_scale's type), DynamicQuantizeMatMul (Y of A's type),
//!   MatMulInteger16 (int32): numpy matmul, batch dims broadcast (E1 on a conflict), as MatMul; two
//!   known contraction sizes that differ are E2 (shape inference refuses them at load), and a 1-D
//!   bias must be as long as B's last axis (the kernel counts its elements).
//! - MatMulNBits, MatMulBnb4: `Y = A[..., :-1] + [N]` with A's type (attributes K and N; MatMulBnb4
//!   with `transB` 0 gives `[..., K]`); MatMulNBits' A must end in K and its bias be `[N]` (shape
//!   inference, at load).
//! - GatherBlockQuantized: Gather of `data` along `gather_axis` by `indices`, of scales' type; uint8
//!   data with `bits` < 8 packs 8/bits values per byte along the last axis, which the output unpacks.
//! - QuantizeLinear (output of the zero point's type, else uint8) and DequantizeLinear (of the
//!   scale's type): x's shape. A 1-D scale longer than 1 is per-axis (`axis`, 1 by default, as the
//!   kernel reads it) and must be as long as that axis, as must its zero point; a scale of rank 2 or
//!   more is refused (these versions have no blocked quantization).
//! - DynamicQuantizeLSTM: LSTM's outputs, `W` `[D, input, 4H]` and `R` `[D, H, 4H]`.
//!
//! All are verified against onnxruntime (CPU) by `tests/conformance/contrib/cases_quant.py`, except
//! GatherBlockQuantized on int4/uint4/FP8/FP4 data (the harness feeds numpy types; those follow the
//! schema: their shapes are logical, nothing is packed).

use super::super::broadcast::unidirectional;
use super::super::contract::Contract;
use super::super::ctx::{NodeCtx, Rule};
use super::super::dim::Dim;
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::{axis, like, mul};
use super::contract;
use super::contrib_qlinear::{delegate, input_of, one_element};
use super::support::{dim_at, dim_of, elem};
use crate::proto::tensor_proto::DataType;

const MS: &str = "com.microsoft";

pub fn register(r: &mut Registry) {
    r.add(MS, "QGemm", 1, qgemm);
    r.add(MS, "MatMulIntegerToFloat", 1, matmul_like);
    r.add(MS, "DynamicQuantizeMatMul", 1, matmul_like);
    r.add(MS, "MatMulInteger16", 1, matmul_like);
    r.add(MS, "MatMulNBits", 1, matmul_nbits);
    r.add(MS, "MatMulBnb4", 1, matmul_nbits);
    r.add(MS, "GatherBlockQuantized", 1, gather_block_quantized);
    r.add(MS, "QuantizeLinear", 1, quantize_linear);
    r.add(MS, "DequantizeLinear", 1, quantize_linear);
    r.add(MS, "DynamicQuantizeLSTM", 1, dynamic_quantize_lstm);
}

const QGEMM_ONE: Contract = Contract::new(
    "qgemm-scalars",
    "QGemm's a_scale, a_zero_point, y_scale, y_zero_point: a scalar or a 1-D tensor of one element",
);
const QGEMM_PER_COLUMN: Contract = Contract::new(
    "qgemm-b-per-column",
    "QGemm's b_scale and b_zero_point: one value, or 1-D with one per column of B (N)",
);

const QGEMM_SAME: Contract = Contract::new(
    "qgemm-b-same-rank",
    "QGemm's b_scale and b_zero_point: of one rank, and of one length when 1-D",
);

/// An E2 on input `slot` of a QGemm under the contract `contract`.
fn qgemm_b_error(ctx: &mut NodeCtx<'_>, slot: usize, what: &str, contract: Contract) {
    let outcome = super::super::broadcast::Outcome {
        rank_error: Some(format!(
            "input {slot} '{}' {what}",
            ctx.node.input_name(slot)
        )),
        ..Default::default()
    };
    ctx.report_broadcast(
        super::super::ctx::Rule::Contract(contract),
        &[3, slot],
        &outcome,
    );
}

fn qgemm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let t = if ctx.has_input(8) {
        ctx.elem(8)
    } else {
        elem(DataType::Float)
    };
    let trans_a = ctx.attr_i("transA").unwrap_or(0) != 0;
    let trans_b = ctx.attr_i("transB").unwrap_or(0) != 0;
    let (a, b) = (ctx.shape(0), ctx.shape(3));
    let ranked = |s: &Option<Vec<Dim>>| s.as_ref().is_some_and(|s| s.len() == 2);
    if !ranked(&a) || !ranked(&b) {
        return vec![ValueInfo::tensor(t, None)];
    }
    let (m, ka) = if trans_a {
        (dim_at(&a, 1), dim_at(&a, 0))
    } else {
        (dim_at(&a, 0), dim_at(&a, 1))
    };
    let n = dim_at(&b, if trans_b { 0 } else { 1 });
    // K of B must be K of A: B's K axis against A's, as an exact one-axis contract.
    let k_axis = usize::from(trans_b);
    if let Some(bs) = b.as_ref() {
        let mut expected = bs.clone();
        for (i, d) in expected.iter_mut().enumerate() {
            if i == k_axis {
                *d = ka.clone();
            } else {
                *d = Dim::Unknown;
            }
        }
        contract::exact(
            ctx,
            0,
            3,
            &expected,
            Contract::new(
                "qgemm-contraction",
                "QGemm's contraction: B's K (its axis 0, or 1 with transB) equals A's K",
            ),
        );
    }
    one_element(ctx, 0, &[1, 2, 7, 8], QGEMM_ONE);
    // b's scale and zero point: a scalar, or 1-D of one value or of one per column of B (N); and
    // the two of one rank and, 1-D, of one length (the kernel's CheckInputs).
    for s in [4, 5] {
        match ctx.shape(s).as_deref() {
            Some([len]) if !len.is_one() => {
                contract::exact(ctx, 3, s, std::slice::from_ref(&n), QGEMM_PER_COLUMN);
            }
            Some(dims) if dims.len() >= 2 => {
                let what = format!("has rank {}", dims.len());
                qgemm_b_error(ctx, s, &what, QGEMM_PER_COLUMN);
            }
            _ => {}
        }
    }
    if let (Some(sc), Some(zp)) = (ctx.shape(4), ctx.shape(5)) {
        let differ = match (sc.as_slice(), zp.as_slice()) {
            ([a], [b]) => matches!((a, b), (Dim::Known(p), Dim::Known(q)) if p != q),
            _ => sc.len() != zp.len(),
        };
        if differ {
            let what = format!(
                "has shape {} and b_scale {}",
                super::super::dim::format_shape(&Some(zp)),
                super::super::dim::format_shape(&Some(sc))
            );
            qgemm_b_error(ctx, 5, &what, QGEMM_SAME);
        }
    }
    if ctx.has_input(6) {
        // C is Gemm's: broadcast unidirectionally onto (M, N), an E1 when it cannot be.
        let outcome = unidirectional(&Some(vec![m.clone(), n.clone()]), &ctx.shape(6));
        ctx.report_broadcast(Rule::Unidirectional, &[0, 6], &outcome);
    }
    vec![ValueInfo::tensor(t, Some(vec![m, n]))]
}

/// The numpy matmul of A (0) and B (1), as MatMul's rule computes and checks it; the element type
/// of each op's Y.
fn matmul_like(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let t = match ctx.op_type() {
        "MatMulIntegerToFloat" => ctx.elem(2),
        "DynamicQuantizeMatMul" => ctx.elem(0),
        _ => elem(DataType::Int32),
    };
    contraction(ctx, 0, 1);
    let bias = match ctx.op_type() {
        "MatMulIntegerToFloat" => Some(6),
        "DynamicQuantizeMatMul" => Some(4),
        _ => None,
    };
    if let Some(bias) = bias.filter(|&b| ctx.shape(b).is_some_and(|s| s.len() == 1)) {
        let cols = ctx
            .shape(1)
            .and_then(|s| s.last().cloned())
            .unwrap_or(Dim::Unknown);
        contract::exact(
            ctx,
            1,
            bias,
            &[cols],
            Contract::new(
                "integer-matmul-bias",
                "the bias of an integer MatMul: as many elements as B's last axis",
            ),
        );
    }
    let inputs = [input_of(ctx, 0), input_of(ctx, 1)];
    let mut out = delegate(ctx, "MatMul", 13, &inputs);
    out.truncate(1);
    match out.first_mut() {
        Some(o) => {
            o.elem = t;
            o.data = None;
        }
        None => out.push(ValueInfo::tensor(t, None)),
    }
    out
}

/// The contraction of a matmul of A (`a`) and B (`b`): A's last axis against B's second-to-last
/// (its only one when 1-D). Only two known sizes that differ are reported (E2; onnxruntime's shape
/// inference refuses them at load); a symbol met by a size is left to the MatMul rule, which binds it.
fn contraction(ctx: &mut NodeCtx<'_>, a: usize, b: usize) {
    let (Some(x), Some(y)) = (ctx.shape(a), ctx.shape(b)) else {
        return;
    };
    let (Some(ka), Some(at)) = (
        x.last(),
        y.len().checked_sub(if y.len() == 1 { 1 } else { 2 }),
    ) else {
        return;
    };
    if !matches!((ka, &y[at]), (Dim::Known(p), Dim::Known(q)) if p != q) {
        return;
    }
    let mut expected = vec![Dim::Unknown; y.len()];
    expected[at] = ka.clone();
    contract::exact(
        ctx,
        a,
        b,
        &expected,
        Contract::new(
            "matrix-product-contraction",
            "a matrix product's contraction: A's last axis as long as B's second-to-last",
        ),
    );
}

/// MatMulNBits, MatMulBnb4: A's shape with its last axis N (K for MatMulBnb4 with `transB` 0).
/// MatMulNBits' A must end in K and its bias be `[N]` (onnxruntime's shape inference).
fn matmul_nbits(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let size = |name: &str| {
        ctx.attr_i(name)
            .and_then(|n| u64::try_from(n).ok())
            .map_or(Dim::Unknown, Dim::Known)
    };
    let (n, k) = (size("N"), size("K"));
    let nbits = ctx.op_type() == "MatMulNBits";
    if nbits
        && let (Some(a), Dim::Known(kv)) = (ctx.shape(0), &k)
        && let Some(Dim::Known(last)) = a.last()
        && last != kv
    {
        let mut expected = vec![Dim::Unknown; a.len()];
        if let Some(e) = expected.last_mut() {
            *e = k.clone();
        }
        contract::exact(
            ctx,
            0,
            0,
            &expected,
            Contract::new("matmulnbits-a", "MatMulNBits' A: its last axis of size K"),
        );
    }
    if nbits && ctx.has_input(5) {
        contract::exact(
            ctx,
            0,
            5,
            std::slice::from_ref(&n),
            Contract::new("matmulnbits-bias", "MatMulNBits' bias: [N]"),
        );
    }
    // MatMulBnb4 without transB (its backward form) multiplies by B itself: `[..., N]` to `[..., K]`.
    let out = if !nbits && ctx.attr_i("transB").unwrap_or(1) == 0 {
        k
    } else {
        n
    };
    let shape = ctx.shape(0).filter(|s| !s.is_empty()).map(|mut s| {
        let last = s.len() - 1;
        s[last] = out;
        s
    });
    vec![like(ctx, 0, shape)]
}

/// GatherBlockQuantized: `data[:g] + indices + data[g+1:]`, the last axis unpacked for uint8 data
/// of fewer than 8 bits; the scales' type.
fn gather_block_quantized(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let t = ctx.elem(2);
    let (Some(data), Some(indices)) = (ctx.shape(0), ctx.shape(1)) else {
        return vec![ValueInfo::tensor(t, None)];
    };
    let Some(g) = axis(ctx.attr_i("gather_axis").unwrap_or(0), data.len()) else {
        return vec![ValueInfo::tensor(t, None)];
    };
    let mut dims = data.clone();
    let packed = ctx.elem(0) == elem(DataType::Uint8);
    if packed {
        let bits = ctx.attr_i("bits").unwrap_or(4);
        let per_byte = match bits {
            2 => 4,
            4 => 2,
            8 => 1,
            _ => return vec![ValueInfo::tensor(t, None)],
        };
        if let Some(last) = dims.last_mut() {
            *last = mul(last, &Dim::Known(per_byte));
        }
    }
    let mut out: Vec<Dim> = dims[..g].to_vec();
    out.extend(indices);
    out.extend(dims[g + 1..].iter().cloned());
    vec![ValueInfo::tensor(t, Some(out))]
}

/// QuantizeLinear, DequantizeLinear of com.microsoft: x's shape; a per-axis scale (1-D, longer
/// than 1) as long as x's `axis` (1 by default).
fn quantize_linear(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let t = if ctx.op_type() == "QuantizeLinear" {
        if ctx.has_input(2) {
            ctx.elem(2)
        } else {
            elem(DataType::Uint8)
        }
    } else {
        ctx.elem(1)
    };
    let x = ctx.shape(0);
    if let Some(scale) = ctx.shape(1).filter(|s| s.len() >= 2) {
        let outcome = super::super::broadcast::Outcome {
            rank_error: Some(format!(
                "input 1 '{}' has rank {}, where a scale is a scalar or 1-D",
                ctx.node.input_name(1),
                scale.len()
            )),
            ..Default::default()
        };
        ctx.report_broadcast(
            super::super::ctx::Rule::Contract(Contract::new(
                "quantize-scale-rank",
                "a scale of QuantizeLinear/DequantizeLinear: a scalar or 1-D",
            )),
            &[0, 1],
            &outcome,
        );
    }
    if let (Some(xs), Some(scale)) = (x.as_ref(), ctx.shape(1))
        && let [len] = scale.as_slice()
        && !len.is_one()
        && let Some(a) = axis(ctx.attr_i("axis").unwrap_or(1), xs.len())
    {
        let expected = [xs[a].clone()];
        contract::exact(
            ctx,
            0,
            1,
            &expected,
            Contract::new(
                "per-axis-scale",
                "a per-axis scale: 1-D, as long as x's axis `axis` (1 by default)",
            ),
        );
        if ctx.has_input(2) {
            contract::exact(
                ctx,
                0,
                2,
                &expected,
                Contract::new(
                    "per-axis-zero-point",
                    "a per-axis zero point: 1-D, as long as x's axis `axis` (1 by default)",
                ),
            );
        }
    }
    vec![ValueInfo::tensor(t, x)]
}

/// DynamicQuantizeLSTM: Y `[S, D, B, H]`, Y_h and Y_c `[D, B, H]`.
fn dynamic_quantize_lstm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let t = ctx.elem(0);
    let dirs = match ctx.attr_s("direction") {
        None | Some("forward" | "reverse") => Dim::Known(1),
        Some("bidirectional") => Dim::Known(2),
        Some(_) => Dim::Unknown,
    };
    let hidden = match ctx.attr_i("hidden_size") {
        Some(h) => u64::try_from(h).map_or(Dim::Unknown, Dim::Known),
        None => dim_of(ctx, 2, 3, 1),
    };
    let (seq, batch) = (dim_of(ctx, 0, 3, 0), dim_of(ctx, 0, 3, 1));
    let state = vec![dirs.clone(), batch.clone(), hidden.clone()];
    vec![
        ValueInfo::tensor(t, Some(vec![seq, dirs, batch, hidden])),
        ValueInfo::tensor(t, Some(state.clone())),
        ValueInfo::tensor(t, Some(state)),
    ]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    const U8: Option<i32> = Some(DataType::Uint8 as i32);
    const I8: Option<i32> = Some(DataType::Int8 as i32);

    #[test]
    fn qgemm_sizes_types_and_contracts() {
        let n = node("QGemm", 9, 1, vec![attr_i("transB", 1)]);
        let mut inputs = vec![
            t(U8, &["M", "4"]),
            t(F32, &[]),
            t(U8, &[]),
            t(I8, &["5", "4"]),
        ];
        inputs.extend([t(F32, &[]), t(I8, &[]), None, None, None]);
        let out = run(qgemm, &n, 1, &inputs);
        assert_eq!(
            (out[0].elem, out[0].shape.clone()),
            (F32, shape(&["M", "5"]))
        );
        inputs[7] = t(F32, &[]);
        inputs[8] = t(I8, &[]);
        assert_eq!(run(qgemm, &n, 1, &inputs)[0].elem, I8);
        assert!(codes(qgemm, &n, &inputs).is_empty());
        inputs[3] = t(I8, &["5", "3"]);
        let c = codes(qgemm, &n, &inputs);
        assert!(
            c.len() == 1
                && c[0].starts_with("E2 'n' (QGemm) breaks the contract qgemm-contraction: ")
                && c[0].ends_with("here axis -1: 4 vs 3"),
            "{c:?}"
        );
        inputs[3] = t(I8, &["5", "4"]);
        inputs[6] = t(Some(DataType::Int32 as i32), &["4"]);
        let c = codes(qgemm, &n, &inputs);
        assert!(
            c.len() == 1
                && c[0].starts_with("E1 inputs of 'n' (QGemm) cannot be broadcast: ")
                && c[0].contains("axis -1: 5 vs 4"),
            "{c:?}"
        );
    }

    #[test]
    fn integer_matmuls() {
        let n = node("MatMulIntegerToFloat", 7, 1, vec![]);
        let inputs = [
            t(U8, &["B", "2", "3", "4"]),
            t(I8, &["2", "4", "5"]),
            t(F32, &[]),
            t(F32, &[]),
        ];
        let out = run(matmul_like, &n, 1, &inputs);
        assert_eq!(
            (out[0].elem, out[0].shape.clone()),
            (F32, shape(&["B", "2", "3", "5"]))
        );
        let inputs = [
            t(U8, &["2", "3", "4"]),
            t(I8, &["5", "4", "5"]),
            t(F32, &[]),
            t(F32, &[]),
        ];
        let c = codes(matmul_like, &n, &inputs);
        assert!(c.len() == 1 && c[0].starts_with("E1 "), "{c:?}");
        let n = node("MatMulInteger16", 2, 1, vec![]);
        let out = run(
            matmul_like,
            &n,
            1,
            &[t(I8, &["3", "4"]), t(I8, &["4", "6"])],
        );
        assert_eq!(out[0].elem, Some(DataType::Int32 as i32));
    }

    #[test]
    fn nbits_gather_and_qdq() {
        let n = node("MatMulNBits", 3, 1, vec![attr_i("K", 32), attr_i("N", 8)]);
        let out = run(
            matmul_nbits,
            &n,
            1,
            &[t(F32, &["B", "S", "32"]), None, None],
        );
        assert_eq!(out[0].shape, shape(&["B", "S", "8"]));
        let n = node("GatherBlockQuantized", 3, 1, vec![attr_i("bits", 4)]);
        let out = run(
            gather_block_quantized,
            &n,
            1,
            &[
                t(U8, &["10", "16"]),
                t(I64, &["B", "S"]),
                t(F32, &["10", "1"]),
            ],
        );
        assert_eq!(
            (out[0].elem, out[0].shape.clone()),
            (F32, shape(&["B", "S", "32"]))
        );
        let n = node("QuantizeLinear", 3, 1, vec![]);
        let out = run(
            quantize_linear,
            &n,
            1,
            &[t(F32, &["N", "3"]), t(F32, &["3"]), t(I8, &["3"])],
        );
        assert_eq!(
            (out[0].elem, out[0].shape.clone()),
            (I8, shape(&["N", "3"]))
        );
        let c = codes(
            quantize_linear,
            &n,
            &[t(F32, &["N", "3"]), t(F32, &["4"]), None],
        );
        assert!(
            c.len() == 1
                && c[0].starts_with("E2 'n' (QuantizeLinear) breaks the contract per-axis-scale: ")
                && c[0].ends_with("here axis -1: 3 vs 4"),
            "{c:?}"
        );
        let n = node("DequantizeLinear", 2, 1, vec![attr_i("axis", 0)]);
        let out = run(
            quantize_linear,
            &n,
            1,
            &[t(U8, &["4", "3"]), t(F32, &["4"])],
        );
        assert_eq!(
            (out[0].elem, out[0].shape.clone()),
            (F32, shape(&["4", "3"]))
        );
    }

    #[test]
    fn lstm_outputs() {
        let n = node(
            "DynamicQuantizeLSTM",
            12,
            3,
            vec![attr_s("direction", "bidirectional")],
        );
        let out = run(
            dynamic_quantize_lstm,
            &n,
            1,
            &[
                t(F32, &["S", "B", "4"]),
                t(I8, &["2", "4", "28"]),
                t(I8, &["2", "7", "28"]),
            ],
        );
        assert_eq!(out[0].shape, shape(&["S", "2", "B", "7"]));
        assert_eq!(out[2].shape, shape(&["2", "B", "7"]));
    }
}
