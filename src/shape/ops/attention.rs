//! Attention and the ops around it in transformer and state-space models: Attention, LinearAttention,
//! FlexAttention, RotaryEmbedding, TensorScatter (KV-cache update) and CausalConvWithState.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#Attention>, `#LinearAttention`,
//! `#RotaryEmbedding`, `#TensorScatter`, `#CausalConvWithState`, and `FlexAttention` of the
//! `ai.onnx.preview` domain. Opset history:
//! - Attention: 23; 24 adds the `nonpad_kv_seqlen` input; 25 adds sliding-window attributes. None of
//!   them changes a shape.
//! - RotaryEmbedding: 23. TensorScatter: 24. LinearAttention, CausalConvWithState: 27.
//! - FlexAttention: ai.onnx.preview 1, with optional `score_mod` and `prob_mod` graphs, which are
//!   inferred here (their broadcasts are checked) on the score tensor `[B, Hq, L, S]`.
//!
//! Attention takes Q, K, V either 4-D, `[batch, heads, seq, head_size]`, or 3-D, `[batch, seq,
//! heads * head_size]` with the head counts in `q_num_heads` and `kv_num_heads`. Its outputs:
//! - Y: `[batch, q_heads, q_seq, v_head_size]`, or 3-D `[batch, q_seq, q_heads * v_head_size]`;
//! - present_key / present_value: `[batch, kv_heads, past_seq + kv_seq, head_size]` (`v_head_size`);
//! - qk_matmul_output: `[batch, q_heads, q_seq, past_seq + kv_seq]`.

use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::{add, div_exact, like, mul, shift};
use super::support::{dim_of, elem, elem_attr, or_dim, rank_of};
use crate::proto::tensor_proto::DataType;

pub fn register(r: &mut Registry) {
    r.add("", "Attention", 23, attention);
    r.add("", "LinearAttention", 27, linear_attention);
    r.add("ai.onnx.preview", "FlexAttention", 1, flex_attention);
    r.add("", "RotaryEmbedding", 23, same_as_first);
    r.add("", "TensorScatter", 24, same_as_first);
    r.add("", "CausalConvWithState", 27, causal_conv_with_state);
}

/// Output 0 has input 0's type and shape.
fn same_as_first(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![like(ctx, 0, ctx.shape(0))]
}

/// A positive head-count attribute.
fn heads(ctx: &NodeCtx<'_>, name: &str) -> Option<u64> {
    ctx.attr_i(name)
        .and_then(|h| u64::try_from(h).ok())
        .filter(|&h| h > 0)
}

/// What one of Q, K, V says in the 4-D form, from either layout: (batch, heads, seq, head_size).
/// `heads` is the head count of the 3-D form's attribute.
fn split_heads(ctx: &NodeCtx<'_>, slot: usize, heads: Option<u64>) -> [Dim; 4] {
    match ctx.shape(slot) {
        Some(s) if s.len() == 4 => [s[0].clone(), s[1].clone(), s[2].clone(), s[3].clone()],
        Some(s) if s.len() == 3 => {
            let head_size = heads.map_or(Dim::Unknown, |h| div_exact(&s[2], h));
            let h = heads.map_or(Dim::Unknown, Dim::Known);
            [s[0].clone(), h, s[1].clone(), head_size]
        }
        _ => [Dim::Unknown, Dim::Unknown, Dim::Unknown, Dim::Unknown],
    }
}

fn attention(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (qh, kvh) = (heads(ctx, "q_num_heads"), heads(ctx, "kv_num_heads"));
    let [qb, q_heads, q_seq, _] = split_heads(ctx, 0, qh);
    let [kb, k_heads, kv_seq, k_head] = split_heads(ctx, 1, kvh);
    let [vb, v_heads, _, v_head] = split_heads(ctx, 2, kvh);
    let batch = or_dim(or_dim(qb, kb), vb);
    // The cache grows by the new keys: its sequence length is past + new.
    let (past_k, past_v) = (ctx.has_input(4), ctx.has_input(5));
    let past_seq = if past_k {
        dim_of(ctx, 4, 4, 2)
    } else if past_v {
        dim_of(ctx, 5, 4, 2)
    } else {
        Dim::Known(0)
    };
    let total = add(&past_seq, &kv_seq);
    let y: Shape = match rank_of(ctx, 0) {
        Some(4) => Some(vec![
            batch.clone(),
            q_heads.clone(),
            q_seq.clone(),
            v_head.clone(),
        ]),
        Some(3) => {
            // q_heads * v_head_size; with as many query as value heads it is V's hidden size.
            let hidden = match (rank_of(ctx, 2), qh.is_some() && qh == kvh) {
                (Some(3), true) => dim_of(ctx, 2, 3, 2),
                _ => qh.map_or(Dim::Unknown, |h| mul(&v_head, &Dim::Known(h))),
            };
            Some(vec![batch.clone(), q_seq.clone(), hidden])
        }
        _ => None,
    };
    let kv_heads = or_dim(k_heads, v_heads);
    let present_key = vec![
        batch.clone(),
        or_dim(kv_heads.clone(), dim_of(ctx, 4, 4, 1)),
        total.clone(),
        or_dim(k_head, dim_of(ctx, 4, 4, 3)),
    ];
    let present_value = vec![
        batch.clone(),
        or_dim(kv_heads, dim_of(ctx, 5, 4, 1)),
        total.clone(),
        or_dim(v_head, dim_of(ctx, 5, 4, 3)),
    ];
    let qk = vec![batch, q_heads, q_seq, total];
    vec![
        like(ctx, 0, y),
        like(ctx, 1, Some(present_key)),
        like(ctx, 2, Some(present_value)),
        like(ctx, 0, Some(qk)),
    ]
}

/// LinearAttention(query, key, value, past_state?, ...): 3-D packed `[B, T, H * d]` inputs; the
/// output is `[B, T, q_heads * d_v]` and the state `[B, kv_heads, d_k, d_v]`.
fn linear_attention(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (qh, kvh) = (heads(ctx, "q_num_heads"), heads(ctx, "kv_num_heads"));
    let packed = |slot: usize, i: usize| dim_of(ctx, slot, 3, i);
    let per_head = |d: Dim, h: Option<u64>| h.map_or(Dim::Unknown, |h| div_exact(&d, h));
    let batch = or_dim(packed(0, 0), dim_of(ctx, 3, 4, 0));
    let d_k = or_dim(
        per_head(packed(1, 2), kvh),
        or_dim(per_head(packed(0, 2), qh), dim_of(ctx, 3, 4, 2)),
    );
    let d_v = or_dim(per_head(packed(2, 2), kvh), dim_of(ctx, 3, 4, 3));
    let hidden = match (qh, kvh) {
        // As many query as value heads: the output is as wide as the value input.
        (Some(q), Some(k)) if q == k => or_dim(packed(2, 2), mul(&d_v, &Dim::Known(q))),
        (Some(q), _) => mul(&d_v, &Dim::Known(q)),
        _ => Dim::Unknown,
    };
    let output = vec![batch.clone(), packed(0, 1), hidden];
    let kv_heads = or_dim(kvh.map_or(Dim::Unknown, Dim::Known), dim_of(ctx, 3, 4, 1));
    let state = vec![batch, kv_heads, d_k, d_v];
    vec![
        like(ctx, 0, Some(output)),
        ValueInfo::tensor(ctx.elem(3).or(ctx.elem(0)), Some(state)),
    ]
}

/// FlexAttention(Q, K, V), all `[B, H, S, D]`: Y is `[B, Hq, Lq, Dv]`. The modifier graphs see the
/// scores `[B, Hq, Lq, S_kv]` in the softmax precision (float, or double for double inputs).
fn flex_attention(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let q = |i: usize| dim_of(ctx, 0, 4, i);
    let batch = or_dim(q(0), or_dim(dim_of(ctx, 1, 4, 0), dim_of(ctx, 2, 4, 0)));
    let y = vec![batch.clone(), q(1), q(2), dim_of(ctx, 2, 4, 3)];
    let precision = elem_attr(ctx, "softmax_precision").or_else(|| {
        if ctx.elem(0) == elem(DataType::Double) {
            elem(DataType::Double)
        } else {
            elem(DataType::Float)
        }
    });
    let scores = ValueInfo::tensor(
        precision,
        Some(vec![batch, q(1), q(2), dim_of(ctx, 1, 4, 2)]),
    );
    for name in ["score_mod", "prob_mod"] {
        ctx.infer_subgraph(name, std::slice::from_ref(&scores));
    }
    vec![like(ctx, 0, Some(y))]
}

/// CausalConvWithState(input, weight, bias?, past_state?): the output has the input's shape; the
/// state keeps the last `k - 1` positions, `[B, C, k - 1]` for a weight `[C, 1, k]`.
fn causal_conv_with_state(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let state: Shape = match ctx.shape(3) {
        Some(s) if s.len() == 3 => Some(s),
        _ => {
            let k = dim_of(ctx, 1, 3, 2);
            // A kernel of k taps keeps k - 1 past inputs (`kernel-1` for a symbolic kernel size).
            let taps = shift(&k, -1);
            Some(vec![
                dim_of(ctx, 0, 3, 0),
                or_dim(dim_of(ctx, 0, 3, 1), dim_of(ctx, 1, 3, 0)),
                taps,
            ])
        }
    };
    vec![like(ctx, 0, ctx.shape(0)), like(ctx, 0, state)]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    #[test]
    fn attention_4d_with_cache() {
        let n = node("Attention", 6, 4, vec![]);
        let inputs = [
            t(F32, &["2", "8", "S", "64"]),
            t(F32, &["2", "2", "4", "64"]),
            t(F32, &["2", "2", "4", "32"]),
            None,
            t(F32, &["2", "2", "6", "64"]),
            t(F32, &["2", "2", "6", "32"]),
        ];
        let out = run(attention, &n, 23, &inputs);
        assert_eq!(out[0].shape, shape(&["2", "8", "S", "32"]));
        assert_eq!(out[1].shape, shape(&["2", "2", "10", "64"]));
        assert_eq!(out[2].shape, shape(&["2", "2", "10", "32"]));
        assert_eq!(out[3].shape, shape(&["2", "8", "S", "10"]));
    }

    #[test]
    fn attention_3d_uses_head_counts() {
        let n = node(
            "Attention",
            3,
            4,
            vec![attr_i("q_num_heads", 8), attr_i("kv_num_heads", 2)],
        );
        let inputs = [
            t(F32, &["B", "S", "512"]),
            t(F32, &["B", "L", "128"]),
            t(F32, &["B", "L", "96"]),
        ];
        let out = run(attention, &n, 24, &inputs);
        assert_eq!(out[0].shape, shape(&["B", "S", "384"]));
        assert_eq!(out[1].shape, shape(&["B", "2", "L", "64"]));
        assert_eq!(out[2].shape, shape(&["B", "2", "L", "48"]));
        assert_eq!(out[3].shape, shape(&["B", "8", "S", "L"]));
        // No head counts: the 3-D hidden size cannot be split.
        let n = node("Attention", 3, 1, vec![]);
        let out = run(attention, &n, 24, &inputs);
        assert_eq!(out[0].shape, shape(&["B", "S", "?"]));
    }

    #[test]
    fn linear_attention_and_causal_conv_states() {
        let n = node(
            "LinearAttention",
            3,
            2,
            vec![attr_i("q_num_heads", 4), attr_i("kv_num_heads", 2)],
        );
        let inputs = [
            t(F32, &["B", "T", "64"]),
            t(F32, &["B", "T", "32"]),
            t(F32, &["B", "T", "48"]),
        ];
        let out = run(linear_attention, &n, 27, &inputs);
        assert_eq!(out[0].shape, shape(&["B", "T", "96"]));
        assert_eq!(out[1].shape, shape(&["B", "2", "16", "24"]));
        let n = node("CausalConvWithState", 2, 2, vec![]);
        let out = run(
            causal_conv_with_state,
            &n,
            27,
            &[t(F32, &["B", "C", "L"]), t(F32, &["C", "1", "4"])],
        );
        assert_eq!(out[0].shape, shape(&["B", "C", "L"]));
        assert_eq!(out[1].shape, shape(&["B", "C", "3"]));
    }

    #[test]
    fn a_symbolic_cache_grows_by_the_new_keys() {
        let n = node("Attention", 6, 4, vec![]);
        let inputs = [
            t(F32, &["B", "8", "S", "64"]),
            t(F32, &["B", "2", "S", "64"]),
            t(F32, &["B", "2", "S", "64"]),
            None,
            t(F32, &["B", "2", "past", "64"]),
            t(F32, &["B", "2", "past", "64"]),
        ];
        let out = run(attention, &n, 23, &inputs);
        let text = |i: usize| crate::shape::dim::format_shape(&out[i].shape);
        assert_eq!(text(1), "[B, 2, S+past, 64]");
        assert_eq!(text(2), "[B, 2, S+past, 64]");
        assert_eq!(text(3), "[B, 8, S, S+past]");
        // A symbolic kernel keeps kernel-1 inputs of state.
        let n = node("CausalConvWithState", 2, 2, vec![]);
        let out = run(
            causal_conv_with_state,
            &n,
            27,
            &[t(F32, &["B", "C", "L"]), t(F32, &["C", "1", "k"])],
        );
        assert_eq!(
            crate::shape::dim::format_shape(&out[1].shape),
            "[B, C, k-1]"
        );
    }

    #[test]
    fn flex_attention_output() {
        let n = node("FlexAttention", 3, 1, vec![]);
        let inputs = [
            t(F32, &["B", "8", "L", "64"]),
            t(F32, &["B", "2", "S", "64"]),
            t(F32, &["B", "2", "S", "32"]),
        ];
        assert_eq!(
            out_shape(flex_attention, &n, 1, &inputs),
            shape(&["B", "8", "L", "32"])
        );
    }
}
