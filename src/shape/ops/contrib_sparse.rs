//! onnxruntime's paged and sparse attention of the serving stacks (domain `com.microsoft`, version 1
//! each): PagedAttention, SparsePagedAttention, DynamicSparseAttention, SparseAttentionIndexer and
//! PackedSparseAttentionIndexer.
//!
//! Spec: <https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md>
//! (`#com.microsoft.PagedAttention` and so on; the shapes below are the schemas' words):
//! - PagedAttention, SparsePagedAttention: the output is `(tokens, num_heads * head_size)`: the query's
//!   shape with separate K and V, and for a packed QKV query of width `(num_heads + 2 *
//!   kv_num_heads) * head_size` that width scaled to the query heads. With PagedAttention's latent
//!   cache layout (`kv_cache_layout` LATENT) it is `num_heads * v_head_size` (the query's width by
//!   default). The cache outputs alias the caches: their shapes and types.
//! - DynamicSparseAttention: `(batch, seq, num_heads * head_size)` as above; the present caches of the
//!   past caches' shape (BNSH buffers), or without them `(batch, kv_num_heads, total_sequence_length,
//!   head_size)` with the length from input 10's value.
//! - SparseAttentionIndexer: `selected_indices` `(batch, seq, capacity)` with capacity `token_budget +
//!   compress_ratio - 1` ('qsa') or `index_topk` ('csa'), int32; `present_key` the past key's shape
//!   when `past_sequence_length` fixes the cache, else for 'qsa' `(batch, past + seq, head_size)` and
//!   for 'csa' `(batch, ?, head_size)`; `present_proj_buffer` `(2, batch, ?, 2 * head_size)`. These
//!   follow onnxruntime's `symbolic_shape_infer.py`.
//! - PackedSparseAttentionIndexer: `selected_indices` `(tokens, capacity)`, `selected_counts`
//!   `(tokens)` (int32), the states and buffers of their inputs' fixed shapes, `state_update` `(batch,
//!   state_update_capacity, head_size)`.
//!
//! None of them has a CPU kernel in onnxruntime 1.31.1 (CUDA and WebGPU): the CPU harness cannot run
//! them, their rules are covered by the unit tests below, and no contract is checked. onnxruntime's own
//! shape inference at load time (the sizes it reports when they clash with a declared output) agrees
//! with these rules on PagedAttention, SparsePagedAttention, DynamicSparseAttention and
//! SparseAttentionIndexer.

use super::super::ctx::NodeCtx;
use super::super::dim::Dim;
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::{add, div_exact, like, mul, shift};
use super::support::{dim_of, elem, rank_of, scalar_i64};
use crate::proto::tensor_proto::DataType;

const MS: &str = "com.microsoft";

pub fn register(r: &mut Registry) {
    r.add(MS, "PagedAttention", 1, paged_attention);
    r.add(MS, "SparsePagedAttention", 1, paged_attention);
    r.add(MS, "DynamicSparseAttention", 1, dynamic_sparse_attention);
    r.add(MS, "SparseAttentionIndexer", 1, sparse_attention_indexer);
    r.add(
        MS,
        "PackedSparseAttentionIndexer",
        1,
        packed_sparse_attention_indexer,
    );
}

fn positive(ctx: &NodeCtx<'_>, name: &str) -> Option<u64> {
    ctx.attr_i(name)
        .and_then(|v| u64::try_from(v).ok())
        .filter(|&v| v > 0)
}

/// The query heads' width of a query whose last axis is `width`: itself with a separate key, else
/// the query's share of a packed QKV.
fn query_width(ctx: &NodeCtx<'_>, width: &Dim) -> Dim {
    if ctx.has_input(1) {
        return width.clone();
    }
    match (positive(ctx, "num_heads"), positive(ctx, "kv_num_heads")) {
        (Some(q), Some(kv)) => match kv.checked_mul(2).and_then(|k| k.checked_add(q)) {
            Some(total) => mul(&div_exact(width, total), &Dim::Known(q)),
            None => Dim::Unknown,
        },
        _ => Dim::Unknown,
    }
}

/// The head size of a query of width `width`.
fn head_size(ctx: &NodeCtx<'_>, width: &Dim) -> Dim {
    match (positive(ctx, "num_heads"), positive(ctx, "kv_num_heads")) {
        (Some(q), _) if ctx.has_input(1) => div_exact(width, q),
        (Some(q), Some(kv)) => kv
            .checked_mul(2)
            .and_then(|k| k.checked_add(q))
            .map_or(Dim::Unknown, |t| div_exact(width, t)),
        _ => Dim::Unknown,
    }
}

/// PagedAttention and SparsePagedAttention: (output (tokens, heads * head_size), key_cache_out,
/// value_cache_out).
fn paged_attention(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let tokens = dim_of(ctx, 0, 2, 0);
    let latent = ctx.attr_s("kv_cache_layout") == Some("LATENT");
    let q = dim_of(ctx, 0, 2, 1);
    let width = if latent {
        // The latent cache: heads of `v_head_size` (by default the query's head size).
        match (positive(ctx, "num_heads"), positive(ctx, "v_head_size")) {
            (Some(h), Some(v)) => h.checked_mul(v).map_or(Dim::Unknown, Dim::Known),
            (Some(_), None) => q,
            _ => Dim::Unknown,
        }
    } else {
        query_width(ctx, &q)
    };
    vec![
        like(ctx, 0, Some(vec![tokens, width])),
        like(ctx, 3, ctx.shape(3)),
        like(ctx, 4, ctx.shape(4)),
    ]
}

/// DynamicSparseAttention: (output (B, S, heads * head_size), present_key, present_value).
fn dynamic_sparse_attention(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (b, s, w) = (
        dim_of(ctx, 0, 3, 0),
        dim_of(ctx, 0, 3, 1),
        dim_of(ctx, 0, 3, 2),
    );
    // The caches keep the past's (maximum) shape; without a past, the total length is input 10's.
    let length = if ctx.has_input(3) {
        Dim::Unknown
    } else {
        match scalar_i64(ctx, 10) {
            Some(v) if v > 0 => Dim::Known(v as u64),
            _ => Dim::Unknown,
        }
    };
    let present = match ctx.shape(3).filter(|p| p.len() == 4) {
        Some(past) => past,
        None => vec![
            b.clone(),
            positive(ctx, "kv_num_heads").map_or(Dim::Unknown, Dim::Known),
            length,
            head_size(ctx, &w),
        ],
    };
    vec![
        like(ctx, 0, Some(vec![b, s, query_width(ctx, &w)])),
        like(ctx, 0, Some(present.clone())),
        like(ctx, 0, Some(present)),
    ]
}

/// The selection capacity of the indexers.
fn capacity(ctx: &NodeCtx<'_>) -> Dim {
    match ctx.attr_s("policy_mode") {
        Some("qsa") => match (
            positive(ctx, "token_budget"),
            positive(ctx, "compress_ratio"),
        ) {
            (Some(t), Some(c)) => t.checked_add(c - 1).map_or(Dim::Unknown, Dim::Known),
            _ => Dim::Unknown,
        },
        Some("csa") => positive(ctx, "index_topk").map_or(Dim::Unknown, Dim::Known),
        _ => Dim::Unknown,
    }
}

/// SparseAttentionIndexer: (selected_indices, present_key, present_proj_buffer).
fn sparse_attention_indexer(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (b, s) = (dim_of(ctx, 0, 3, 0), dim_of(ctx, 0, 3, 1));
    let head = match dim_of(ctx, 2, 1, 0) {
        Dim::Unknown => dim_of(ctx, 7, 3, 2),
        h => h,
    };
    let qsa = ctx.attr_s("policy_mode") == Some("qsa");
    let present_key = if ctx.has_input(12) && rank_of(ctx, 7) == Some(3) {
        ctx.shape(7)
    } else if qsa {
        // The raw key cache grows by the new tokens.
        Some(vec![
            b.clone(),
            add(&dim_of(ctx, 7, 3, 1), &s),
            head.clone(),
        ])
    } else {
        Some(vec![b.clone(), Dim::Unknown, head.clone()])
    };
    vec![
        ValueInfo::tensor(
            elem(DataType::Int32),
            Some(vec![b.clone(), s, capacity(ctx)]),
        ),
        like(ctx, 0, present_key),
        like(
            ctx,
            0,
            Some(vec![
                Dim::Known(2),
                b,
                Dim::Unknown,
                mul(&head, &Dim::Known(2)),
            ]),
        ),
    ]
}

/// PackedSparseAttentionIndexer: (selected_indices, selected_counts, present_key_state,
/// present_kv_buffer, present_gate_buffer, present_state_lengths, state_update).
fn packed_sparse_attention_indexer(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let tokens = dim_of(ctx, 0, 2, 0);
    let m = elem(DataType::Int32);
    let batch = match dim_of(ctx, 7, 1, 0) {
        Dim::Unknown => shift(&dim_of(ctx, 6, 1, 0), -1),
        b => b,
    };
    let update = vec![
        batch,
        positive(ctx, "state_update_capacity").map_or(Dim::Unknown, Dim::Known),
        dim_of(ctx, 12, 3, 2),
    ];
    vec![
        ValueInfo::tensor(m, Some(vec![tokens.clone(), capacity(ctx)])),
        ValueInfo::tensor(m, Some(vec![tokens])),
        like(ctx, 12, ctx.shape(12)),
        like(ctx, 13, ctx.shape(13)),
        like(ctx, 14, ctx.shape(14)),
        like(ctx, 15, ctx.shape(15)),
        like(ctx, 0, Some(update)),
    ]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    #[test]
    fn paged_attention_unpacks_the_query_heads() {
        let n = node(
            "PagedAttention",
            1,
            1,
            vec![attr_i("num_heads", 8), attr_i("kv_num_heads", 2)],
        );
        // (8 + 2 * 2) * 16 = 192 packed, 128 for the query heads.
        let s = out_shape(paged_attention, &n, 1, &[t(F32, &["n", "192"])]);
        assert_eq!(s, shape(&["n", "128"]));
        let n = node("PagedAttention", 2, 1, vec![attr_i("num_heads", 8)]);
        let s = out_shape(
            paged_attention,
            &n,
            1,
            &[t(F32, &["n", "128"]), t(F32, &["n", "32"])],
        );
        assert_eq!(s, shape(&["n", "128"]));
    }

    #[test]
    fn dynamic_sparse_attention_presents_in_bnsh() {
        let n = node(
            "DynamicSparseAttention",
            1,
            3,
            vec![attr_i("num_heads", 4), attr_i("kv_num_heads", 2)],
        );
        let outs = run(
            dynamic_sparse_attention,
            &n,
            1,
            &[t(F32, &["b", "s", "128"])],
        );
        assert_eq!(outs[0].shape, shape(&["b", "s", "64"]));
        assert_eq!(outs[1].shape, shape(&["b", "2", "?", "16"]));
    }

    #[test]
    fn indexers_select_their_capacity() {
        let n = node(
            "SparseAttentionIndexer",
            8,
            2,
            vec![
                attr_s("policy_mode", "qsa"),
                attr_i("token_budget", 64),
                attr_i("compress_ratio", 4),
            ],
        );
        let mut inputs = vec![t(F32, &["b", "s", "64"])];
        inputs.extend(std::iter::repeat_n(None, 6));
        inputs.push(t(F32, &["b", "p", "16"]));
        let outs = run(sparse_attention_indexer, &n, 1, &inputs);
        assert_eq!(outs[0].shape, shape(&["b", "s", "67"]));
        assert_eq!(outs[0].elem, elem(DataType::Int32));
        assert_eq!(
            outs[1].shape.as_ref().map(|s| s[1].to_string()),
            Some("p+s".to_owned())
        );
    }
}
