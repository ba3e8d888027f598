//! The packed, decoder and special-purpose attention contrib operators of onnxruntime (domain
//! `com.microsoft`, all version 1): DecoderMaskedMultiHeadAttention, DecoderMaskedSelfAttention,
//! PackedAttention, PackedMultiHeadAttention, SparseAttention, LongformerAttention,
//! RelativePositionBias and GatedRelativePositionBias. The common attention ops are in
//! [`super::contrib_attention`].
//!
//! Spec: <https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md#com.microsoft.DecoderMaskedMultiHeadAttention>
//! (and `#com.microsoft.DecoderMaskedSelfAttention`, `#com.microsoft.PackedAttention`,
//! `#com.microsoft.PackedMultiHeadAttention`, `#com.microsoft.SparseAttention`,
//! `#com.microsoft.LongformerAttention`, `#com.microsoft.RelativePositionBias`,
//! `#com.microsoft.GatedRelativePositionBias`).
//!
//! - DecoderMaskedMultiHeadAttention shares MultiHeadAttention's checks
//!   (`multihead_attention_helper.h`) with its own input order; its CPU kernel runs only with
//!   `past_present_share_buffer` set, the present caches then being the past buffers and the total
//!   length `past_sequence_length + 1` (the masks and attention bias are checked against it, when
//!   past_sequence_length is a known value). Verified on onnxruntime 1.31.1's CPU provider.
//! - The others have only CUDA kernels in onnxruntime 1.31.1: their output shapes follow the schema
//!   and onnxruntime's shape inference, and nothing is checked, as nothing could be verified against
//!   the kernels. Unit tests cover them. SparseAttention has a CPU kernel, but it requires the past
//!   and present caches to be one buffer, which the harness's plain session cannot give it; its
//!   output shapes (`[B, S, N H]`, the presents the past buffers, also for packed QKV) were checked by
//!   hand through an I/O binding.

use super::super::ctx::NodeCtx;
use super::super::dim::Dim;
use super::super::registry::Registry;
use super::super::sites::{Declared, Kind};
use super::super::value::ValueInfo;
use super::common::{add, div_exact, like, mul};
use super::contrib_attention::{MhaSlots, dim, known, multi_head, per_head, positive};
use super::support::{rank_of, scalar_i64};

pub fn register(r: &mut Registry) {
    // Its attention_bias broadcasts as MultiHeadAttention's.
    r.add_site(
        "com.microsoft",
        "DecoderMaskedMultiHeadAttention",
        1,
        decoder_masked_mha,
        Declared::Always(Kind::AttentionBias(4)),
    );
    r.add(
        "com.microsoft",
        "DecoderMaskedSelfAttention",
        1,
        decoder_masked_self_attention,
    );
    r.add("com.microsoft", "PackedAttention", 1, packed_attention);
    r.add("com.microsoft", "PackedMultiHeadAttention", 1, packed_mha);
    r.add("com.microsoft", "SparseAttention", 1, sparse_attention);
    r.add(
        "com.microsoft",
        "LongformerAttention",
        1,
        longformer_attention,
    );
    r.add(
        "com.microsoft",
        "RelativePositionBias",
        1,
        relative_position_bias,
    );
    r.add(
        "com.microsoft",
        "GatedRelativePositionBias",
        1,
        gated_relative_position_bias,
    );
}

/// DecoderMaskedMultiHeadAttention(query, key?, value?, mask_index?, attention_bias?, past_key?,
/// past_value?, past_sequence_length?, beam_width?, cache_indirection?, bias?).
fn decoder_masked_mha(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    const SLOTS: MhaSlots = MhaSlots {
        bias: 10,
        mask: 3,
        attn_bias: 4,
        past_key: 5,
        past_value: 6,
        past_len: 7,
        decoder: true,
    };
    multi_head(ctx, &SLOTS)
}

/// The v hidden size of an Attention-like op: `qkv_hidden_sizes[2]`, or a third of the weights'
/// width (input 1's axis 1).
fn v_hidden_of(ctx: &NodeCtx<'_>) -> Dim {
    match ctx.attr_ints("qkv_hidden_sizes") {
        Some([_, _, v]) => u64::try_from(*v).map_or(Dim::Unknown, Dim::Known),
        Some(_) => Dim::Unknown,
        None if rank_of(ctx, 1) == Some(2) => div_exact(&dim(ctx, 1, 1), 3),
        None => Dim::Unknown,
    }
}

/// DecoderMaskedSelfAttention(input, weights, bias, mask_index?, past, attention_bias?,
/// past_sequence_length, ...): output `[B, S, v_hidden]`; present the past buffer when shared, else
/// `[2, B, N, past + S, H]`.
fn decoder_masked_self_attention(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if rank_of(ctx, 0) != Some(3) {
        return vec![];
    }
    let (b, s) = (dim(ctx, 0, 0), dim(ctx, 0, 1));
    let v_hidden = v_hidden_of(ctx);
    let n = positive(ctx, "num_heads");
    let present = if ctx.attr_i("past_present_share_buffer").unwrap_or(0) != 0 {
        ctx.shape(4)
    } else {
        let past = match ctx.shape(4) {
            Some(p) if p.len() == 5 => p[3].clone(),
            _ => Dim::Unknown,
        };
        Some(vec![
            Dim::Known(2),
            b.clone(),
            known(n),
            add(&past, &s),
            per_head(&v_hidden, n),
        ])
    };
    vec![
        like(ctx, 0, Some(vec![b, s, v_hidden])),
        like(ctx, 0, present),
    ]
}

/// PackedAttention(input, weights, bias, token_offset, cumulative_sequence_length,
/// attention_bias?): output `[token_count, v_hidden]`.
fn packed_attention(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if rank_of(ctx, 0) != Some(2) {
        return vec![];
    }
    let out = vec![dim(ctx, 0, 0), v_hidden_of(ctx)];
    vec![like(ctx, 0, Some(out))]
}

/// PackedMultiHeadAttention(query, key?, value?, bias?, token_offset, cumulative_sequence_length,
/// attention_bias?): query `[token_count, D]` or packed `[token_count, N, 3, H]`; output
/// `[token_count, D_v]`.
fn packed_mha(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let tokens = match rank_of(ctx, 0) {
        Some(2 | 4) => dim(ctx, 0, 0),
        _ => return vec![],
    };
    let width = match (rank_of(ctx, 0), ctx.has_input(2)) {
        (Some(4), _) => mul(&dim(ctx, 0, 1), &dim(ctx, 0, 3)),
        (_, true) if rank_of(ctx, 2) == Some(2) => dim(ctx, 2, 1),
        (_, true) => Dim::Unknown,
        _ => dim(ctx, 0, 1),
    };
    vec![like(ctx, 0, Some(vec![tokens, width]))]
}

/// SparseAttention(query, key?, value?, past_key, past_value, block_row_indices, block_col_indices,
/// total_sequence_length, key_total_sequence_lengths, cos_cache?, sin_cache?): output
/// `[B, S, N H]`; the present caches are the past ones (one buffer).
fn sparse_attention(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if rank_of(ctx, 0) != Some(3) {
        return vec![];
    }
    let (n, kvn) = (positive(ctx, "num_heads"), positive(ctx, "kv_num_heads"));
    let d = dim(ctx, 0, 2);
    let hidden = if ctx.has_input(1) {
        d
    } else {
        // Packed QKV: (num_heads + 2 kv_num_heads) * head_size wide.
        match (n, kvn) {
            (Some(n), Some(k)) => k
                .checked_mul(2)
                .and_then(|k2| k2.checked_add(n))
                .map_or(Dim::Unknown, |w| mul(&div_exact(&d, w), &Dim::Known(n))),
            _ => Dim::Unknown,
        }
    };
    let out = vec![dim(ctx, 0, 0), dim(ctx, 0, 1), hidden];
    vec![
        like(ctx, 0, Some(out)),
        like(ctx, 3, ctx.shape(3)),
        like(ctx, 4, ctx.shape(4)),
    ]
}

/// LongformerAttention(input, weight, bias, mask, global_weight, global_bias, global): the output
/// has the input's shape `[B, S, hidden]`.
fn longformer_attention(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = ctx.shape(0).filter(|s| s.len() == 3);
    vec![like(ctx, 0, shape)]
}

/// RelativePositionBias(bias_table `[buckets, N]`, query_length, key_length): output
/// `[1, N, query_length, key_length]` (the lengths' values, when known).
fn relative_position_bias(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let len = |slot: usize| {
        scalar_i64(ctx, slot)
            .and_then(|v| u64::try_from(v).ok())
            .map_or(Dim::Unknown, Dim::Known)
    };
    let heads = match ctx.shape(0) {
        Some(s) if s.len() == 2 => s[1].clone(),
        _ => Dim::Unknown,
    };
    let out = vec![Dim::Known(1), heads, len(1), len(2)];
    vec![like(ctx, 0, Some(out))]
}

/// GatedRelativePositionBias(query_layer, query_bias, rel_pos, weight, bias, eco_a, token_offset?):
/// output `[B, N, S, S]`, B and S from a 3-D query_layer `[B, S, N H]` or from token_offset `[B, S]`
/// for a packed `[token_count, N H]`.
fn gated_relative_position_bias(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (b, s) = match (rank_of(ctx, 0), rank_of(ctx, 6)) {
        (Some(3), _) => (dim(ctx, 0, 0), dim(ctx, 0, 1)),
        (Some(2), Some(2)) => (dim(ctx, 6, 0), dim(ctx, 6, 1)),
        _ => (Dim::Unknown, Dim::Unknown),
    };
    let n = known(positive(ctx, "num_heads"));
    vec![like(ctx, 0, Some(vec![b, n, s.clone(), s]))]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    const I32: Option<i32> = Some(crate::proto::tensor_proto::DataType::Int32 as i32);

    #[test]
    fn dmmha_shared_buffer() {
        let n = node(
            "DecoderMaskedMultiHeadAttention",
            8,
            3,
            vec![
                attr_i("num_heads", 2),
                attr_i("past_present_share_buffer", 1),
            ],
        );
        let mut psl = int(3);
        if let Some(v) = psl.as_mut() {
            v.elem = I32;
        }
        let mut inputs = vec![
            t(F32, &["B", "1", "8"]),
            t(F32, &["B", "1", "8"]),
            t(F32, &["B", "1", "8"]),
            t(I32, &["2", "4"]),
            None,
            t(F32, &["B", "2", "M", "4"]),
            t(F32, &["B", "2", "M", "4"]),
            psl,
        ];
        let out = run(decoder_masked_mha, &n, 1, &inputs);
        assert_eq!(out[0].shape, shape(&["B", "1", "8"]));
        assert_eq!(out[1].shape, shape(&["B", "2", "M", "4"]));
        assert_eq!(out[2].shape, shape(&["B", "2", "M", "4"]));
        // The mask spans past_sequence_length + 1 = 4; a mask of 7 is refused.
        let n2 = node(
            "DecoderMaskedMultiHeadAttention",
            8,
            3,
            vec![
                attr_i("num_heads", 2),
                attr_i("past_present_share_buffer", 1),
            ],
        );
        inputs[0] = t(F32, &["2", "1", "8"]);
        inputs[3] = t(I32, &["2", "7"]);
        let f: Vec<_> = findings(decoder_masked_mha, &n2, 1, &inputs)
            .into_iter()
            .filter(|d| d.code.as_str() == "E2")
            .collect();
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].contract, Some("mha-key-padding-mask"), "{f:?}");
        assert!(f[0].message.contains("4 vs 7"), "{f:?}");
    }

    /// Every rule of both files, on odd ranks, zero and huge sizes, missing inputs and absurd
    /// attributes: no panic.
    #[test]
    fn no_rule_panics() {
        let mut r = Registry::default();
        super::super::contrib_attention::register(&mut r);
        register(&mut r);
        let big = u64::MAX.to_string();
        let shapes: Vec<Option<ValueInfo>> = vec![
            None,
            t(F32, &[]),
            t(F32, &["0"]),
            t(F32, &["2", "3", "8"]),
            t(F32, &["b", "s", "0"]),
            t(F32, &["2", "2", "3", "4"]),
            t(F32, &["2", "2", "2", "3", "4"]),
            t(F32, &[big.as_str(), big.as_str(), big.as_str()]),
            t(F32, &["?", "?"]),
            Some(ValueInfo::unknown()),
            int(-5),
            int(i64::MAX),
        ];
        let attr_sets = vec![
            vec![],
            vec![attr_i("num_heads", 0), attr_i("kv_num_heads", -1)],
            vec![
                attr_i("num_heads", i64::MAX),
                attr_i("kv_num_heads", i64::MAX),
            ],
            vec![
                attr_i("num_heads", 2),
                attr_i("kv_num_heads", 1),
                attr_ints("qkv_hidden_sizes", &[-1, 0, i64::MAX]),
                attr_i("rotary_embedding_dim", i64::MAX),
                attr_i("past_present_share_buffer", 1),
                attr_i("do_rotary", 1),
            ],
        ];
        let mut ops: Vec<(&str, &str)> = r.ops().collect();
        ops.sort();
        assert!(ops.len() >= 14, "{ops:?}");
        for (domain, op) in ops {
            let Some(rule) = r.lookup(domain, op, 1) else {
                continue;
            };
            for attrs in &attr_sets {
                for (k, a) in shapes.iter().enumerate() {
                    for b in &shapes {
                        // Inputs of every slot up to 12, cycling through the shapes.
                        let inputs: Vec<Option<ValueInfo>> = (0..12)
                            .map(|slot| {
                                if slot % 2 == 0 {
                                    a.clone()
                                } else {
                                    shapes[(k + slot) % shapes.len()].clone()
                                }
                            })
                            .map(|v| v.or_else(|| b.clone()))
                            .collect();
                        for outputs in [0, 1, 4] {
                            let n = node(op, inputs.len(), outputs, attrs.clone());
                            run(rule, &n, 1, &inputs);
                            findings(rule, &n, 1, &inputs);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn cuda_only_ops_shapes() {
        let n = node("PackedAttention", 5, 1, vec![attr_i("num_heads", 2)]);
        let out = out_shape(
            packed_attention,
            &n,
            1,
            &[
                t(F32, &["T", "8"]),
                t(F32, &["8", "24"]),
                t(F32, &["24"]),
                None,
                None,
            ],
        );
        assert_eq!(out, shape(&["T", "8"]));
        let n = node(
            "PackedMultiHeadAttention",
            6,
            1,
            vec![attr_i("num_heads", 2)],
        );
        let out = out_shape(
            packed_mha,
            &n,
            1,
            &[
                t(F32, &["T", "8"]),
                t(F32, &["T", "8"]),
                t(F32, &["T", "6"]),
            ],
        );
        assert_eq!(out, shape(&["T", "6"]));
        let out = out_shape(packed_mha, &n, 1, &[t(F32, &["T", "2", "3", "4"])]);
        assert_eq!(out, shape(&["T", "8"]));
        let n = node(
            "DecoderMaskedSelfAttention",
            7,
            2,
            vec![attr_i("num_heads", 2)],
        );
        let out = run(
            decoder_masked_self_attention,
            &n,
            1,
            &[
                t(F32, &["B", "1", "8"]),
                t(F32, &["8", "24"]),
                t(F32, &["24"]),
                None,
                t(F32, &["2", "B", "2", "P", "4"]),
            ],
        );
        assert_eq!(out[0].shape, shape(&["B", "1", "8"]));
        assert_eq!(
            crate::shape::dim::format_shape(&out[1].shape),
            "[2, B, 2, P+1, 4]"
        );
        let n = node(
            "SparseAttention",
            9,
            3,
            vec![attr_i("num_heads", 4), attr_i("kv_num_heads", 2)],
        );
        let out = run(
            sparse_attention,
            &n,
            1,
            &[
                t(F32, &["B", "S", "128"]),
                None,
                None,
                t(F32, &["B", "2", "M", "16"]),
                t(F32, &["B", "2", "M", "16"]),
            ],
        );
        assert_eq!(out[0].shape, shape(&["B", "S", "64"]));
        assert_eq!(out[1].shape, shape(&["B", "2", "M", "16"]));
        let n = node(
            "RelativePositionBias",
            3,
            1,
            vec![attr_i("max_distance", 8)],
        );
        let out = out_shape(
            relative_position_bias,
            &n,
            1,
            &[t(F32, &["32", "12"]), int(5), int(7)],
        );
        assert_eq!(out, shape(&["1", "12", "5", "7"]));
        let n = node(
            "GatedRelativePositionBias",
            7,
            1,
            vec![attr_i("num_heads", 12)],
        );
        let out = out_shape(
            gated_relative_position_bias,
            &n,
            1,
            &[t(F32, &["B", "S", "768"])],
        );
        assert_eq!(out, shape(&["B", "12", "S", "S"]));
        let n = node("LongformerAttention", 7, 1, vec![attr_i("num_heads", 2)]);
        let out = out_shape(longformer_attention, &n, 1, &[t(F32, &["B", "S", "8"])]);
        assert_eq!(out, shape(&["B", "S", "8"]));
    }
}
