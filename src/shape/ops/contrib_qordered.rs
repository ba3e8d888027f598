//! onnxruntime's int8 operators in cublasLt orders and the remaining attention helpers (domain
//! `com.microsoft`, version 1 each): QuantizeWithOrder, DequantizeWithOrder, QOrderedMatMul,
//! QOrderedGelu, QOrderedLayerNormalization, QOrderedAttention, QOrderedLongformerAttention,
//! DecoderAttention and MRotaryEmbedding.
//!
//! Spec: <https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md>
//! (`#com.microsoft.QOrderedMatMul` and so on); shape inference in onnxruntime's
//! `core/graph/contrib_ops/quantization_defs.cc` and `bert_defs.cc`:
//! - QuantizeWithOrder: the input's shape, int8; DequantizeWithOrder: the input's shape, of type `to`
//!   (float or float16). The order attributes change the layout in memory, never the shape.
//! - QOrderedMatMul: numpy's matmul of A and B (onnxruntime's `matmulShapeInference(ctx, 0, 2)`), int8.
//! - QOrderedGelu, QOrderedLayerNormalization, QOrderedLongformerAttention: the first input's shape.
//! - QOrderedAttention: `(batch, seq, hidden)` with `hidden` the Q weight's second axis (onnxruntime's
//!   schema copies the input's shape, which is the same when the input and hidden sizes agree, as in
//!   every model its fusion writes).
//! - DecoderAttention: the query's shape `(seq, batch, hidden)`; the new caches are the key cache's
//!   shape with an unknown length (onnxruntime's `DecoderAttentionTypeAndShapeInference`), or without a
//!   cache `(batch, num_heads, ?, hidden / num_heads)`; the length depends on the boolean inputs' values.
//! - MRotaryEmbedding: the input's shape; onnxruntime's CPU kernel requires `position_ids` `(3, batch,
//!   seq)` of the input's sizes, checked here.
//!
//! MRotaryEmbedding runs on the CPU (tests/conformance/contrib/cases_more.py). The others have no CPU
//! kernel (CUDA only: the QOrdered family needs cublasLt, DecoderAttention is a CUDA kernel): the CPU
//! harness cannot run them; their rules follow the schemas and are covered by the unit tests below, and
//! no contract of theirs is checked, as none could be verified. onnxruntime's own shape inference at
//! load time (the sizes it reports when they clash with a declared output) agrees with these rules on
//! QOrderedMatMul, QuantizeWithOrder, DequantizeWithOrder and DecoderAttention.

use super::super::contract::Contract;
use super::super::ctx::NodeCtx;
use super::super::dim::Dim;
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::{div_exact, like};
use super::contract;
use super::matmul::matmul_of;
use super::support::{dim_of, elem, elem_attr};
use crate::proto::tensor_proto::DataType;

const MS: &str = "com.microsoft";

pub fn register(r: &mut Registry) {
    r.add(MS, "QuantizeWithOrder", 1, quantize_with_order);
    r.add(MS, "DequantizeWithOrder", 1, dequantize_with_order);
    r.add(MS, "QOrderedMatMul", 1, qordered_matmul);
    for op in [
        "QOrderedGelu",
        "QOrderedLayerNormalization",
        "QOrderedLongformerAttention",
    ] {
        r.add(MS, op, 1, same_as_first);
    }
    r.add(MS, "QOrderedAttention", 1, qordered_attention);
    r.add(MS, "DecoderAttention", 1, decoder_attention);
    r.add(MS, "MRotaryEmbedding", 1, mrotary_embedding);
}

/// MRotaryEmbedding(input (B, S, D) or (B, N, S, H), position_ids (3, B, S), ..): the input's shape.
fn mrotary_embedding(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let x = ctx.shape(0);
    let bs = match x.as_deref() {
        Some([b, s, _]) | Some([b, _, s, _]) => Some((b.clone(), s.clone())),
        _ => None,
    };
    if let Some((b, s)) = bs {
        contract::exact(
            ctx,
            0,
            1,
            &[Dim::Known(3), b, s],
            Contract::new(
                "mrotary-position-ids",
                "MRotaryEmbedding's position_ids: (3, batch_size, sequence_length) of the input",
            ),
        );
    }
    vec![like(ctx, 0, x)]
}

fn same_as_first(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![like(ctx, 0, ctx.shape(0))]
}

fn quantize_with_order(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![ValueInfo::tensor(elem(DataType::Int8), ctx.shape(0))]
}

fn dequantize_with_order(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![ValueInfo::tensor(elem_attr(ctx, "to"), ctx.shape(0))]
}

/// QOrderedMatMul(A, scale_A, B, ..) -> matmul(A, B), int8.
fn qordered_matmul(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (a, b) = (ctx.shape(0), ctx.shape(2));
    let shape = matmul_of(ctx, a, b);
    vec![ValueInfo::tensor(elem(DataType::Int8), shape)]
}

/// QOrderedAttention(input (B, S, D), .., Q_weight (D, H), ..) -> (B, S, H).
fn qordered_attention(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let hidden = match dim_of(ctx, 5, 2, 1) {
        Dim::Unknown => dim_of(ctx, 0, 3, 2),
        h => h,
    };
    let shape = ctx
        .shape(0)
        .filter(|s| s.len() == 3)
        .map(|s| vec![s[0].clone(), s[1].clone(), hidden]);
    vec![like(ctx, 0, shape)]
}

/// DecoderAttention(query (S, B, D), ..) -> (output (S, B, D), new_key_cache, new_value_cache).
fn decoder_attention(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let query = ctx.shape(0).filter(|s| s.len() == 3);
    let heads = ctx.attr_i("num_heads").filter(|&h| h > 0);
    // onnxruntime's inference keeps the key cache's sizes but its length; without a cache, the query's.
    let from_cache = ctx.shape(6).filter(|c| c.len() == 4).map(|mut c| {
        c[2] = Dim::Unknown;
        c
    });
    let cache = from_cache.or_else(|| {
        query.as_ref().map(|q| {
            let head_size = heads.map_or(Dim::Unknown, |h| div_exact(&q[2], h as u64));
            vec![
                q[1].clone(),
                heads.map_or(Dim::Unknown, |h| Dim::Known(h as u64)),
                Dim::Unknown,
                head_size,
            ]
        })
    });
    vec![
        like(ctx, 0, query),
        like(ctx, 0, cache.clone()),
        like(ctx, 0, cache),
    ]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    const I8: Option<i32> = Some(DataType::Int8 as i32);

    #[test]
    fn with_order_ops_keep_the_shape_and_change_the_type() {
        let n = node("QuantizeWithOrder", 2, 1, vec![]);
        let outs = run(
            quantize_with_order,
            &n,
            1,
            &[t(F32, &["b", "32"]), t(F32, &[])],
        );
        assert_eq!(
            (outs[0].elem, outs[0].shape.clone()),
            (I8, shape(&["b", "32"]))
        );
        let n = node("DequantizeWithOrder", 2, 1, vec![attr_i("to", 10)]);
        let outs = run(
            dequantize_with_order,
            &n,
            1,
            &[t(I8, &["b", "32"]), t(F32, &[])],
        );
        assert_eq!(outs[0].elem, Some(10));
    }

    #[test]
    fn qordered_matmul_multiplies() {
        let n = node("QOrderedMatMul", 5, 1, vec![]);
        let s = out_shape(
            qordered_matmul,
            &n,
            1,
            &[t(I8, &["b", "s", "32"]), t(F32, &[]), t(I8, &["32", "16"])],
        );
        assert_eq!(s, shape(&["b", "s", "16"]));
    }

    #[test]
    fn qordered_attention_takes_the_weight_width() {
        let mut inputs = vec![t(I8, &["b", "s", "32"])];
        inputs.extend(std::iter::repeat_n(t(F32, &[]), 4));
        inputs.push(t(I8, &["32", "64"]));
        let n = node("QOrderedAttention", inputs.len(), 1, vec![]);
        let s = out_shape(qordered_attention, &n, 1, &inputs);
        assert_eq!(s, shape(&["b", "s", "64"]));
    }

    #[test]
    fn decoder_attention_caches_split_the_heads() {
        let n = node("DecoderAttention", 2, 3, vec![attr_i("num_heads", 4)]);
        let outs = run(
            decoder_attention,
            &n,
            1,
            &[t(F32, &["s", "b", "64"]), t(F32, &["t", "b", "64"])],
        );
        assert_eq!(outs[0].shape, shape(&["s", "b", "64"]));
        assert_eq!(outs[1].shape, shape(&["b", "4", "?", "16"]));
    }

    #[test]
    fn mrotary_position_ids_follow_the_input() {
        let n = node("MRotaryEmbedding", 4, 1, vec![]);
        let ok = [t(F32, &["2", "2", "5", "16"]), t(I64, &["3", "2", "5"])];
        assert!(findings(mrotary_embedding, &n, 1, &ok).is_empty());
        let bad = [t(F32, &["2", "5", "32"]), t(I64, &["3", "2", "6"])];
        let f = findings(mrotary_embedding, &n, 1, &bad);
        assert!(
            f.len() == 1
                && f[0].code.as_str() == "E2"
                && f[0].contract == Some("mrotary-position-ids"),
            "{f:?}"
        );
    }
}
