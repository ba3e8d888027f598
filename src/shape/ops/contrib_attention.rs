//! onnxruntime's attention contrib operators (domain `com.microsoft`): Attention, QAttention,
//! MultiHeadAttention, GroupQueryAttention, RotaryEmbedding and GemmaRotaryEmbedding; the packed and
//! decoder variants are in [`super::contrib_attention_decoding`].
//!
//! Spec: <https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md#com.microsoft.Attention>
//! (`#com.microsoft.QAttention`, `#com.microsoft.MultiHeadAttention`,
//! `#com.microsoft.GroupQueryAttention`, `#com.microsoft.RotaryEmbedding`,
//! `#com.microsoft.GemmaRotaryEmbedding`). Every one of them is version 1 of `com.microsoft`; the
//! later inputs (Attention's `attention_bias` and `past_sequence_length`, MultiHeadAttention's
//! `past_sequence_length` and `cache_indirection`, GroupQueryAttention's cos/sin caches, position ids,
//! attention bias, head sink, kv scales and q/k norm weights) were appended to the same version.
//!
//! What onnxruntime's kernels enforce (`contrib_ops/cpu/bert/attention_base.cc`,
//! `multihead_attention_helper.h`, `group_query_attention_helper.h`, `rotary_embedding_helper.h`),
//! and what is checked here (each verified on onnxruntime 1.31.1's CPU provider by a fault case of
//! `tests/conformance/contrib/cases_attention.py`):
//! - Attention / QAttention: input `[B, S, D_in]`; weights `[D_in, W]`; bias `[W]` (with
//!   `qkv_hidden_sizes`, as long as their sum); mask_index `(B)`, `(2B)` or `(3B + 2)`, `(B, T)`,
//!   `(B, S, T)` or `(B, 1, M, M)`, with `T = past + S`; past `[2, B, N, past, H]`; attention_bias
//!   `(B or 1, N or 1, S, T)`. Outputs `[B, S, v_hidden]` and present `[2, B, N, T, v_hidden / N]`
//!   (unknown with `past_present_share_buffer` and a past: the CPU kernel refuses every such node
//!   tried, so its sizes are not verified). The CPU kernel crashes without the optional bias.
//! - MultiHeadAttention: query `[B, S, D]` (or packed QKV `[B, S, N, 3, H]`, which the CPU kernel
//!   refuses); key `[B, L, D]`, packed KV `[B, L, N, 2, H]`, or the cross-attention cache
//!   `[B, N, L, H]` (value then of the same shape); value `[B, L, D_v]`; bias `[2 D + D_v]`;
//!   key_padding_mask `(B)`, `(3B + 2)`, `(B, T)` or `(B, S, T)`; attention_bias `(B or 1, N or 1,
//!   S, T)`; past_key and past_value `[B, N, past, H]` (both of the query's head size, even when
//!   V's differs), with `T = past + L`.
//!   Outputs `[B, S, D_v]`, present `[B, N, T, H]` / `[B, N, T, H_v]`, qk `[B, N, S, T]`. With a
//!   past_sequence_length input the past buffers are shared: the presents are the past buffers and
//!   `T = past_sequence_length + L` (its value).
//! - GroupQueryAttention: query `[B, S, N H]` (or packed `[B, S, (N + 2 N_kv) H]` without key and
//!   value); key and value `[B, L, N_kv H]` (a key of another head size is refused: "kv_hidden_size /
//!   kv_num_heads must be equal to head_size"), L = S without a past; past_key / past_value
//!   `[B, N_kv, P, H]`; seqlens_k of B elements; attention_bias `(B or 1, N or 1, S, total)` and the
//!   qk output `[B, N, S, total]`, with `total` the value of total_sequence_length (not the cache's
//!   length); head_sink `[N]`; sin_cache of cos_cache's shape and position_ids `(B, >= S)` (with
//!   or without do_rotary). The present caches are `[B, N_kv, max(P, total), H]` (so unknown
//!   when total's value is), `[B, N_kv, L, H]` without a past, and the past's shape with
//!   `sliding_window_cache = 1` (a windowed cache keeps its capacity).
//! - RotaryEmbedding: input `[B, S, hidden]` or `[B, N, S, H]`; position_ids `[B, S]` (or one
//!   offset); cos_cache `[max_pos, R / 2]` and sin_cache of the same shape, where `R / 2` must be
//!   `H / 2` or `rotary_embedding_dim / 2` (the head size comes from `num_heads` for a 3-D input;
//!   without it the kernel derives the head size from the cache, so nothing is checked). The output
//!   has the input's shape.
//!
//! Not checked, though the kernels refuse them: sizes that must divide by the head count (an
//! attribute, not an operand's shape), GroupQueryAttention's head size being a multiple of 8, and
//! run-time values (positions past the cache, seqlens).

use super::super::broadcast::Outcome;
use super::super::contract::Contract;
use super::super::ctx::{NodeCtx, Rule};
use super::super::dim::Dim;
use super::super::registry::Registry;
use super::super::sites::{Declared, Kind};
use super::super::value::ValueInfo;
use super::common::{add, div_exact, like, mul, sum};
use super::contract;
use super::support::{dim_at, or_dim, rank_of, scalar_i64};

pub fn register(r: &mut Registry) {
    // onnxruntime runs an attention_bias of the full (batch, num_heads, q, kv) as it runs a
    // broadcast one.
    let bias = |slot| Declared::Always(Kind::AttentionBias(slot));
    r.add_site("com.microsoft", "Attention", 1, attention, bias(5));
    r.add("com.microsoft", "QAttention", 1, qattention);
    r.add_site(
        "com.microsoft",
        "MultiHeadAttention",
        1,
        multi_head_attention,
        bias(5),
    );
    r.add_site(
        "com.microsoft",
        "GroupQueryAttention",
        1,
        group_query_attention,
        bias(10),
    );
    r.add("com.microsoft", "RotaryEmbedding", 1, rotary_embedding);
    r.add(
        "com.microsoft",
        "GemmaRotaryEmbedding",
        1,
        gemma_rotary_embedding,
    );
}

/// A positive integer attribute (a head count, a rotary dimension).
pub(super) fn positive(ctx: &NodeCtx<'_>, name: &str) -> Option<u64> {
    ctx.attr_i(name)
        .and_then(|h| u64::try_from(h).ok())
        .filter(|&h| h > 0)
}

/// Dimension `i` of input `slot`, unknown when the input is absent or too short.
pub(super) fn dim(ctx: &NodeCtx<'_>, slot: usize, i: usize) -> Dim {
    dim_at(&ctx.shape(slot), i)
}

/// `d / n` for a head count that may be unknown.
pub(super) fn per_head(d: &Dim, n: Option<u64>) -> Dim {
    n.map_or(Dim::Unknown, |n| div_exact(d, n))
}

/// `n` as a size, unknown when absent.
pub(super) fn known(n: Option<u64>) -> Dim {
    n.map_or(Dim::Unknown, Dim::Known)
}

/// Reports input `operand` when its rank is known and not one of `ranks`.
pub(super) fn rank_in(
    ctx: &mut NodeCtx<'_>,
    source: usize,
    operand: usize,
    ranks: &[usize],
    what: Contract,
) -> bool {
    let Some(r) = rank_of(ctx, operand) else {
        return false;
    };
    if ranks.contains(&r) {
        return true;
    }
    let list: Vec<String> = ranks.iter().map(usize::to_string).collect();
    let outcome = Outcome {
        rank_error: Some(format!(
            "input {operand} '{}' has rank {r}, where rank {} is needed",
            ctx.node.input_name(operand),
            list.join(" or ")
        )),
        ..Outcome::default()
    };
    ctx.report_broadcast(Rule::Contract(what), &[source, operand], &outcome);
    false
}

/// Reports input `operand` when its axis `axis` is a known size none of the (all known) `choices`.
pub(super) fn one_of(
    ctx: &mut NodeCtx<'_>,
    source: usize,
    operand: usize,
    axis: usize,
    choices: &[Dim],
    what: Contract,
) {
    let Some(Dim::Known(n)) = ctx.shape(operand).and_then(|s| s.get(axis).cloned()) else {
        return;
    };
    let Some(sizes) = choices.iter().map(Dim::known).collect::<Option<Vec<u64>>>() else {
        return;
    };
    if sizes.contains(&n) {
        return;
    }
    let list: Vec<String> = sizes.iter().map(u64::to_string).collect();
    let outcome = Outcome {
        rank_error: Some(format!(
            "input {operand} '{}' has size {n} on axis {axis}, none of {}",
            ctx.node.input_name(operand),
            list.join(", ")
        )),
        ..Outcome::default()
    };
    ctx.report_broadcast(Rule::Contract(what), &[source, operand], &outcome);
}

/// What past_value must be: past_key's shape (which is checked against `(batch, heads, head_size)`
/// itself), its unknown sizes taken from `derived`. Comparing with past_key rather than with the
/// derived sizes again reports a symbolic head size once, not once per cache.
pub(super) fn like_past_key(ctx: &NodeCtx<'_>, past_key: usize, derived: [Dim; 3]) -> [Dim; 4] {
    let [b, n, h] = derived;
    let k = |i: usize| match ctx.shape(past_key) {
        Some(s) if s.len() == 4 => s[i].clone(),
        _ => Dim::Unknown,
    };
    [or_dim(k(0), b), or_dim(k(1), n), k(2), or_dim(k(3), h)]
}

/// An attention bias: `(batch or 1, heads or 1, q, kv)`, broadcast along its first two axes only.
pub(super) fn attention_bias(
    ctx: &mut NodeCtx<'_>,
    source: usize,
    slot: usize,
    target: [Dim; 4],
    what: Contract,
) {
    let Some(actual) = ctx.shape(slot) else {
        return;
    };
    let [b, n, s, t] = target;
    let expected = if actual.len() == 4 {
        let pick = |a: &Dim, full: Dim| if a.is_one() { Dim::Known(1) } else { full };
        [pick(&actual[0], b), pick(&actual[1], n), s, t]
    } else {
        [b, n, s, t]
    };
    contract::exact(ctx, source, slot, &expected, what);
}

const ATTN_WEIGHTS: Contract = Contract::new(
    "attention-weights",
    "Attention's weights: 2-D (input hidden size, q + k + v hidden sizes), \
     its first axis the input's last",
);
const ATTN_BIAS: Contract = Contract::new(
    "attention-bias",
    "Attention's bias: 1-D, as long as the weights' second axis",
);
const ATTN_BIAS_QKV: Contract = Contract::new(
    "attention-bias",
    "Attention's bias: 1-D, as long as the sum of qkv_hidden_sizes",
);
const ATTN_MASK: Contract = Contract::new(
    "attention-mask-index",
    "Attention's mask_index: (batch) or (2 * batch) or (3 * batch + 2), \
     (batch, total_sequence), (batch, sequence, total_sequence) or (batch, 1, max_sequence, \
     max_sequence)",
);
const ATTN_PAST: Contract = Contract::new(
    "attention-past",
    "Attention's past: (2, batch, num_heads, past_sequence, head_size), \
     head_size = hidden / num_heads",
);
const ATTN_ATTN_BIAS: Contract = Contract::new(
    "attention-attention-bias",
    "Attention's attention_bias: (batch or 1, num_heads or 1, sequence, \
     total_sequence), total_sequence = past + sequence",
);

/// What Attention and QAttention share: the shape checks and the two outputs. `mask` and `past`
/// are the slots of mask_index and past; `attn_bias` that of attention_bias (Attention only).
fn attention_common(
    ctx: &mut NodeCtx<'_>,
    mask: usize,
    past: usize,
    attn_bias: Option<usize>,
) -> [Option<Vec<Dim>>; 2] {
    let n = positive(ctx, "num_heads");
    if !rank_in(
        ctx,
        1,
        0,
        &[3],
        Contract::new(
            "attention-input",
            "Attention's input: 3-D (batch, sequence, input hidden size)",
        ),
    ) {
        return [None, None];
    }
    let (b, s, d_in) = (dim(ctx, 0, 0), dim(ctx, 0, 1), dim(ctx, 0, 2));
    contract::exact(ctx, 0, 1, &[d_in, Dim::Unknown], ATTN_WEIGHTS);
    let w = if rank_of(ctx, 1) == Some(2) {
        dim(ctx, 1, 1)
    } else {
        Dim::Unknown
    };
    // The hidden sizes of Q, K and V: the attribute's, or a third of the weights' width each.
    let qkv: Option<[u64; 3]> = ctx.attr_ints("qkv_hidden_sizes").and_then(|v| match v {
        [q, k, vv] => Some([
            u64::try_from(*q).ok()?,
            u64::try_from(*k).ok()?,
            u64::try_from(*vv).ok()?,
        ]),
        _ => None,
    });
    let (k_hidden, v_hidden) = match qkv {
        Some([_, k, v]) => (Dim::Known(k), Dim::Known(v)),
        None => {
            let third = div_exact(&w, 3);
            (third.clone(), third)
        }
    };
    // onnxruntime checks the bias against the weights' width, and then against the sum of
    // qkv_hidden_sizes.
    if ctx.has_input(2) {
        contract::exact(ctx, 1, 2, std::slice::from_ref(&w), ATTN_BIAS);
        if let Some(sizes) = qkv {
            let width = sum(&sizes.map(Dim::Known));
            contract::exact(ctx, 1, 2, &[width], ATTN_BIAS_QKV);
        }
    }
    let head = per_head(&k_hidden, n);
    // A shared buffer matters only with a past (without one, the present is the new keys).
    let share = ctx.attr_i("past_present_share_buffer").unwrap_or(0) != 0 && ctx.has_input(past);
    let past_seq = if ctx.has_input(past) {
        if rank_in(ctx, 0, past, &[5], ATTN_PAST) {
            contract::exact(
                ctx,
                0,
                past,
                &[
                    Dim::Known(2),
                    b.clone(),
                    known(n),
                    Dim::Unknown,
                    head.clone(),
                ],
                ATTN_PAST,
            );
        }
        dim(ctx, past, 3)
    } else {
        Dim::Known(0)
    };
    // With a shared buffer the past's length is the buffer's, not the history's: no total is known.
    let total = if share {
        Dim::Unknown
    } else {
        add(&past_seq, &s)
    };
    if ctx.has_input(mask) {
        match rank_of(ctx, mask) {
            Some(1) => {
                let two_b = mul(&b, &Dim::Known(2));
                let three_b2 = add(&mul(&b, &Dim::Known(3)), &Dim::Known(2));
                one_of(ctx, 0, mask, 0, &[b.clone(), two_b, three_b2], ATTN_MASK);
            }
            Some(2) => contract::exact(ctx, 0, mask, &[b.clone(), total.clone()], ATTN_MASK),
            Some(3) => contract::exact(
                ctx,
                0,
                mask,
                &[b.clone(), s.clone(), total.clone()],
                ATTN_MASK,
            ),
            Some(4) => contract::exact(
                ctx,
                0,
                mask,
                &[b.clone(), Dim::Known(1), Dim::Unknown, Dim::Unknown],
                ATTN_MASK,
            ),
            _ => {
                rank_in(ctx, 0, mask, &[1, 2, 3, 4], ATTN_MASK);
            }
        }
    }
    if let Some(slot) = attn_bias.filter(|&k| ctx.has_input(k)) {
        attention_bias(
            ctx,
            0,
            slot,
            [b.clone(), known(n), s.clone(), total.clone()],
            ATTN_ATTN_BIAS,
        );
    }
    // The present cache's head size is V's (onnxruntime 1.31.1; K's and V's are equal with a past).
    let present = (!share).then(|| {
        vec![
            Dim::Known(2),
            b.clone(),
            known(n),
            total,
            per_head(&v_hidden, n),
        ]
    });
    let out = vec![b, s, v_hidden];
    [Some(out), present]
}

/// Attention(input, weights, bias?, mask_index?, past?, attention_bias?, past_sequence_length?).
fn attention(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let [out, present] = attention_common(ctx, 3, 4, Some(5));
    vec![like(ctx, 0, out), like(ctx, 0, present)]
}

/// QAttention(input, weight, bias, input_scale, weight_scale, mask_index?, input_zero_point?,
/// weight_zero_point?, past?): the outputs are of the bias's (float) type.
fn qattention(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let [out, present] = attention_common(ctx, 5, 8, None);
    vec![like(ctx, 2, out), like(ctx, 2, present)]
}

const MHA_QUERY: Contract = Contract::new(
    "mha-query",
    "MultiHeadAttention's query: 3-D, or 5-D packed QKV",
);
const MHA_KEY: Contract = Contract::new(
    "mha-key",
    "MultiHeadAttention's key: (batch, kv_sequence, hidden) with the query's batch \
     and hidden size, (batch, kv_sequence, num_heads, 2, head_size), or (batch, num_heads, \
     kv_sequence, head_size)",
);
const MHA_VALUE: Contract = Contract::new(
    "mha-value",
    "MultiHeadAttention's value: (batch, kv_sequence, v_hidden) with the key's \
     batch and kv_sequence, or the key's shape when the key is 4-D",
);
const MHA_BIAS: Contract = Contract::new(
    "mha-bias",
    "MultiHeadAttention's bias: 1-D, hidden + hidden + v_hidden long",
);
const MHA_MASK: Contract = Contract::new(
    "mha-key-padding-mask",
    "MultiHeadAttention's key_padding_mask: (batch) or (3 * batch + 2), (batch, \
     total_sequence) or (batch, sequence, total_sequence)",
);
const MHA_ATTN_BIAS: Contract = Contract::new(
    "mha-attention-bias",
    "MultiHeadAttention's attention_bias: (batch or 1, num_heads or 1, \
     sequence, total_sequence), total_sequence = past + kv_sequence",
);
const MHA_PAST: Contract = Contract::new(
    "mha-past",
    "MultiHeadAttention's past_key and past_value: (batch, num_heads, \
     past_sequence, head_size), of the same past_sequence",
);

/// The input slots of MultiHeadAttention and DecoderMaskedMultiHeadAttention (query, key and value
/// are 0, 1 and 2 in both).
pub(super) struct MhaSlots {
    pub bias: usize,
    pub mask: usize,
    pub attn_bias: usize,
    pub past_key: usize,
    pub past_value: usize,
    pub past_len: usize,
    /// DecoderMaskedMultiHeadAttention: a 3-D query without key and value is packed QKV, and a shared
    /// buffer makes the present caches the past's and the total `past_sequence_length + 1`.
    pub decoder: bool,
}

const MHA: MhaSlots = MhaSlots {
    bias: 3,
    mask: 4,
    attn_bias: 5,
    past_key: 6,
    past_value: 7,
    past_len: 8,
    decoder: false,
};

/// MultiHeadAttention(query, key?, value?, bias?, key_padding_mask?, attention_bias?, past_key?,
/// past_value?, past_sequence_length?, cache_indirection?).
fn multi_head_attention(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    multi_head(ctx, &MHA)
}

/// MultiHeadAttention and DecoderMaskedMultiHeadAttention, their inputs at `slots`.
pub(super) fn multi_head(ctx: &mut NodeCtx<'_>, slots: &MhaSlots) -> Vec<ValueInfo> {
    let n = positive(ctx, "num_heads");
    let nd = known(n);
    let q_rank = rank_of(ctx, 0);
    if !rank_in(ctx, 1, 0, &[3, 5], MHA_QUERY) {
        return vec![];
    }
    let (b, s) = (dim(ctx, 0, 0), dim(ctx, 0, 1));
    let decoder_packed = slots.decoder && !ctx.has_input(1) && !ctx.has_input(2);
    let hidden = match q_rank {
        Some(5) => mul(&nd, &dim(ctx, 0, 4)),
        // The decoder's packed QKV, (batch, 1, 3 * hidden).
        _ if decoder_packed => div_exact(&dim(ctx, 0, 2), 3),
        _ => dim(ctx, 0, 2),
    };
    let head = per_head(&hidden, n);
    // kv_sequence, and the key's layout.
    let k_rank = if ctx.has_input(1) {
        rank_of(ctx, 1)
    } else {
        None
    };
    let kv_seq = match k_rank {
        Some(3) => {
            contract::exact(
                ctx,
                0,
                1,
                &[b.clone(), Dim::Unknown, hidden.clone()],
                MHA_KEY,
            );
            dim(ctx, 1, 1)
        }
        Some(5) => {
            let packed = [
                b.clone(),
                Dim::Unknown,
                nd.clone(),
                Dim::Known(2),
                head.clone(),
            ];
            contract::exact(ctx, 0, 1, &packed, MHA_KEY);
            dim(ctx, 1, 1)
        }
        Some(4) => {
            let cache = [b.clone(), nd.clone(), Dim::Unknown, head.clone()];
            contract::exact(ctx, 0, 1, &cache, MHA_KEY);
            dim(ctx, 1, 2)
        }
        Some(_) => {
            rank_in(ctx, 0, 1, &[3, 4, 5], MHA_KEY);
            Dim::Unknown
        }
        None if ctx.has_input(1) => Dim::Unknown,
        // Packed QKV: the keys are the query's positions.
        None => s.clone(),
    };
    let v_hidden = if ctx.has_input(2) {
        match (k_rank, rank_of(ctx, 2)) {
            (Some(4), Some(_)) => {
                if let Some(key) = ctx.shape(1) {
                    contract::exact(ctx, 1, 2, &key, MHA_VALUE);
                }
                mul(&nd, &dim(ctx, 2, 3))
            }
            (_, Some(3)) => {
                contract::exact(
                    ctx,
                    0,
                    2,
                    &[b.clone(), kv_seq.clone(), Dim::Unknown],
                    MHA_VALUE,
                );
                dim(ctx, 2, 2)
            }
            (_, Some(4)) => mul(&nd, &dim(ctx, 2, 3)),
            _ => Dim::Unknown,
        }
    } else {
        hidden.clone()
    };
    let v_head = per_head(&v_hidden, n);
    if ctx.has_input(slots.bias) && k_rank != Some(4) {
        let width = sum(&[hidden.clone(), hidden.clone(), v_hidden.clone()]);
        contract::exact(ctx, 0, slots.bias, &[width], MHA_BIAS);
    }
    let past = ctx.has_input(slots.past_key) && ctx.has_input(slots.past_value);
    let past_seq = if past {
        let pk = [b.clone(), nd.clone(), Dim::Unknown, head.clone()];
        contract::exact(ctx, 0, slots.past_key, &pk, MHA_PAST);
        // past_value's head size is the query's too, whatever V's (onnxruntime checks both against
        // head_size).
        let pv = like_past_key(ctx, slots.past_key, [b.clone(), nd.clone(), head.clone()]);
        contract::exact(ctx, slots.past_key, slots.past_value, &pv, MHA_PAST);
        dim(ctx, slots.past_key, 2)
    } else {
        Dim::Known(0)
    };
    // A shared buffer (DecoderMaskedMultiHeadAttention's past_present_share_buffer, or
    // MultiHeadAttention's past_sequence_length input) is as long as the longest history: with a
    // past, the present caches are the past buffers, and the history is past_sequence_length's
    // value (onnxruntime 1.31.1 checks the masks and the attention bias against it plus the new
    // keys).
    let share = if slots.decoder {
        ctx.attr_i("past_present_share_buffer").unwrap_or(0) != 0
    } else {
        ctx.has_input(slots.past_len)
    };
    let total = if share && past {
        scalar_i64(ctx, slots.past_len)
            .and_then(|p| u64::try_from(p).ok())
            .map_or(Dim::Unknown, |p| add(&Dim::Known(p), &kv_seq))
    } else {
        add(&past_seq, &kv_seq)
    };
    if ctx.has_input(slots.mask) {
        match rank_of(ctx, slots.mask) {
            Some(1) => {
                let three_b2 = add(&mul(&b, &Dim::Known(3)), &Dim::Known(2));
                one_of(ctx, 0, slots.mask, 0, &[b.clone(), three_b2], MHA_MASK);
            }
            Some(2) => contract::exact(ctx, 0, slots.mask, &[b.clone(), total.clone()], MHA_MASK),
            Some(3) => contract::exact(
                ctx,
                0,
                slots.mask,
                &[b.clone(), s.clone(), total.clone()],
                MHA_MASK,
            ),
            _ => {
                rank_in(ctx, 0, slots.mask, &[1, 2, 3], MHA_MASK);
            }
        }
    }
    if ctx.has_input(slots.attn_bias) {
        let target = [b.clone(), nd.clone(), s.clone(), total.clone()];
        attention_bias(ctx, 0, slots.attn_bias, target, MHA_ATTN_BIAS);
    }
    let out = vec![b.clone(), s.clone(), v_hidden];
    // Cross attention with the cache as key and value: the present caches are key and value.
    let (pk, pv) = if share && past {
        (ctx.shape(slots.past_key), ctx.shape(slots.past_value))
    } else if k_rank == Some(4) {
        (ctx.shape(1), ctx.shape(2))
    } else {
        (
            Some(vec![b.clone(), nd.clone(), total.clone(), head]),
            Some(vec![b.clone(), nd.clone(), total.clone(), v_head]),
        )
    };
    let qk = vec![b, nd, s, total];
    vec![
        like(ctx, 0, Some(out)),
        like(ctx, 0, pk),
        like(ctx, 0, pv),
        like(ctx, 0, Some(qk)),
    ]
}

const GQA_KEY: Contract = Contract::new(
    "gqa-key-value",
    "GroupQueryAttention's key and value: (batch, kv_sequence, kv_num_heads * \
     head_size), head_size = the query's hidden size / num_heads",
);
const GQA_PAST: Contract = Contract::new(
    "gqa-past",
    "GroupQueryAttention's past_key and past_value: (batch, kv_num_heads, \
     past_sequence, head_size), of the same past_sequence",
);
const GQA_SEQLENS: Contract = Contract::new(
    "gqa-seqlens-k",
    "GroupQueryAttention's seqlens_k: batch-size elements",
);
const GQA_ATTN_BIAS: Contract = Contract::new(
    "gqa-attention-bias",
    "GroupQueryAttention's attention_bias: (batch or 1, num_heads or 1, \
     sequence, total_sequence_length)",
);
const GQA_HEAD_SINK: Contract = Contract::new(
    "gqa-head-sink",
    "GroupQueryAttention's head_sink: 1-D, num_heads long",
);
const GQA_KEY_NO_PAST: Contract = Contract::new(
    "gqa-key-value-no-past",
    "GroupQueryAttention's key and value without a past: (batch, \
     sequence, kv_num_heads * head_size), the query's batch and sequence, head_size = the query's \
     hidden size / num_heads",
);
const GQA_POSITIONS: Contract = Contract::new(
    "gqa-position-ids",
    "GroupQueryAttention's position_ids: (batch, at least sequence)",
);
const GQA_CACHE: Contract = Contract::new(
    "gqa-cos-sin-cache",
    "GroupQueryAttention's cos_cache and sin_cache: of the same shape",
);

/// GroupQueryAttention(query, key?, value?, past_key?, past_value?, seqlens_k,
/// total_sequence_length, cos_cache?, sin_cache?, position_ids?, attention_bias?, head_sink?, ...).
fn group_query_attention(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (n, kvn) = (positive(ctx, "num_heads"), positive(ctx, "kv_num_heads"));
    if !rank_in(
        ctx,
        1,
        0,
        &[3],
        Contract::new("gqa-query", "GroupQueryAttention's query: 3-D"),
    ) {
        return vec![];
    }
    let (b, s, d) = (dim(ctx, 0, 0), dim(ctx, 0, 1), dim(ctx, 0, 2));
    let packed = !ctx.has_input(1) && !ctx.has_input(2);
    let head = if packed {
        match (n, kvn) {
            (Some(n), Some(k)) => n
                .checked_add(k.saturating_mul(2))
                .map_or(Dim::Unknown, |w| div_exact(&d, w)),
            _ => Dim::Unknown,
        }
    } else {
        per_head(&d, n)
    };
    let kv_hidden = mul(&known(kvn), &head);
    let mut kv_seq = s.clone();
    let past = ctx.has_input(3) && ctx.has_input(4);
    if !packed {
        if ctx.has_input(1) && rank_in(ctx, 0, 1, &[3], GQA_KEY) {
            // Without a past the keys are the query's positions.
            let (what, kv) = if past {
                (GQA_KEY, Dim::Unknown)
            } else {
                (GQA_KEY_NO_PAST, s.clone())
            };
            contract::exact(ctx, 0, 1, &[b.clone(), kv, kv_hidden.clone()], what);
            kv_seq = dim(ctx, 1, 1);
        }
        if ctx.has_input(2) && rank_in(ctx, 0, 2, &[3], GQA_KEY) {
            let v = [b.clone(), kv_seq.clone(), kv_hidden.clone()];
            contract::exact(ctx, 0, 2, &v, GQA_KEY);
        }
    }
    if past {
        let pk = [b.clone(), known(kvn), Dim::Unknown, head.clone()];
        contract::exact(ctx, 0, 3, &pk, GQA_PAST);
        let pv = like_past_key(ctx, 3, [b.clone(), known(kvn), head.clone()]);
        contract::exact(ctx, 3, 4, &pv, GQA_PAST);
    }
    // onnxruntime counts seqlens_k's elements: a (1, batch) tensor passes too.
    if rank_of(ctx, 5) == Some(1) {
        contract::exact(ctx, 0, 5, std::slice::from_ref(&b), GQA_SEQLENS);
    }
    // The caches hold max(past, total) positions (a static cache keeps its length); without a past
    // the total is the new keys' count. A windowed cache (sliding_window_cache = 1) keeps its
    // capacity, the past's length, whatever the total.
    let total = scalar_i64(ctx, 6).and_then(|t| u64::try_from(t).ok());
    let windowed = ctx.attr_i("sliding_window_cache").unwrap_or(0) == 1;
    let present_seq = match (past, windowed) {
        (true, true) => dim(ctx, 3, 2),
        (true, false) => match (dim(ctx, 3, 2), total) {
            (Dim::Known(p), Some(t)) => Dim::Known(p.max(t)),
            _ => Dim::Unknown,
        },
        (false, true) => Dim::Unknown,
        (false, false) => kv_seq,
    };
    // The attention bias and the qk output span the total length (the value, not the cache's).
    let total_dim = known(total);
    if ctx.has_input(10) {
        let target = [b.clone(), known(n), s.clone(), total_dim.clone()];
        attention_bias(ctx, 0, 10, target, GQA_ATTN_BIAS);
    }
    if ctx.has_input(11) {
        contract::exact(ctx, 0, 11, &[known(n)], GQA_HEAD_SINK);
    }
    // Checked with or without do_rotary.
    if let Some(cos) = ctx.shape(7) {
        contract::exact(ctx, 7, 8, &cos, GQA_CACHE);
    }
    // position_ids: (batch, at least sequence); only the batch is an equality.
    if rank_of(ctx, 9) == Some(2) {
        contract::exact(ctx, 0, 9, &[b.clone(), Dim::Unknown], GQA_POSITIONS);
    }
    let out = vec![b.clone(), s.clone(), mul(&known(n), &head)];
    let qk = vec![b.clone(), known(n), s, total_dim];
    let present = vec![b, known(kvn), present_seq, head];
    let cache_type = if past { 3 } else { 0 };
    vec![
        like(ctx, 0, Some(out)),
        like(ctx, cache_type, Some(present.clone())),
        like(ctx, cache_type, Some(present)),
        like(ctx, 0, Some(qk)),
    ]
}

const ROPE_INPUT: Contract = Contract::new(
    "rotary-input",
    "RotaryEmbedding's input: 3-D (batch, sequence, hidden) or 4-D (batch, \
     num_heads, sequence, head_size)",
);
const ROPE_POS: Contract = Contract::new(
    "rotary-position-ids",
    "RotaryEmbedding's position_ids: (batch, sequence), or one offset (a scalar or (1))",
);
const ROPE_CACHE: Contract = Contract::new(
    "rotary-cos-sin-cache",
    "RotaryEmbedding's cos_cache and sin_cache: 2-D (max_position, head_size / 2 \
     or rotary_embedding_dim / 2), of the same shape",
);

/// RotaryEmbedding(input, position_ids, cos_cache, sin_cache): the output has the input's shape.
fn rotary_embedding(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let x = ctx.shape(0);
    let rank = rank_of(ctx, 0);
    if rank_in(ctx, 2, 0, &[3, 4], ROPE_INPUT) {
        let (b, s) = (
            dim(ctx, 0, 0),
            dim(ctx, 0, if rank == Some(4) { 2 } else { 1 }),
        );
        match rank_of(ctx, 1) {
            Some(2) => contract::exact(ctx, 0, 1, &[b, s], ROPE_POS),
            Some(1) => contract::exact(ctx, 0, 1, &[Dim::Known(1)], ROPE_POS),
            _ => {
                // A scalar is one offset too.
                rank_in(ctx, 0, 1, &[0, 1, 2], ROPE_POS);
            }
        }
        let n = positive(ctx, "num_heads");
        let head = match rank {
            Some(4) => dim(ctx, 0, 3),
            // Without num_heads the kernel takes the head size from the cache.
            _ => per_head(&dim(ctx, 0, 2), n),
        };
        if rank_in(ctx, 0, 2, &[2], ROPE_CACHE) {
            let half = div_exact(&head, 2);
            match positive(ctx, "rotary_embedding_dim") {
                Some(r) if Dim::Known(r) != head => {
                    let choices = [half, Dim::Known(r / 2)];
                    one_of(ctx, 0, 2, 1, &choices, ROPE_CACHE);
                }
                _ => contract::exact(ctx, 0, 2, &[Dim::Unknown, half], ROPE_CACHE),
            }
        }
    }
    if let Some(cos) = ctx.shape(2) {
        contract::exact(ctx, 2, 3, &cos, ROPE_CACHE);
    }
    vec![like(ctx, 0, x)]
}

/// GemmaRotaryEmbedding(emb, q, q_rot, k, k_rot): two outputs of q's and k's shapes, in emb's type
/// (the float type of the computation).
fn gemma_rotary_embedding(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![like(ctx, 1, ctx.shape(1)), like(ctx, 3, ctx.shape(3))]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;
    use crate::shape::dim::format_shape;

    const I32: Option<i32> = Some(crate::proto::tensor_proto::DataType::Int32 as i32);
    const U8: Option<i32> = Some(crate::proto::tensor_proto::DataType::Uint8 as i32);

    fn i32_scalar(v: i64) -> Option<ValueInfo> {
        let mut x = int(v)?;
        x.elem = I32;
        Some(x)
    }

    #[test]
    fn attention_outputs_and_present() {
        let n = node("Attention", 5, 2, vec![attr_i("num_heads", 2)]);
        let inputs = [
            t(F32, &["B", "S", "6"]),
            t(F32, &["6", "24"]),
            t(F32, &["24"]),
            None,
            t(F32, &["2", "B", "2", "P", "4"]),
        ];
        let out = run(attention, &n, 1, &inputs);
        assert_eq!(out[0].shape, shape(&["B", "S", "8"]));
        assert_eq!(format_shape(&out[1].shape), "[2, B, 2, P+S, 4]");
        assert!(codes(attention, &n, &inputs).is_empty());
        // qkv_hidden_sizes: the output is V's width, the present of V's head size.
        let n = node(
            "Attention",
            3,
            2,
            vec![
                attr_i("num_heads", 2),
                attr_ints("qkv_hidden_sizes", &[6, 6, 8]),
            ],
        );
        let out = run(
            attention,
            &n,
            1,
            &[
                t(F32, &["2", "3", "8"]),
                t(F32, &["8", "20"]),
                t(F32, &["20"]),
            ],
        );
        assert_eq!(out[0].shape, shape(&["2", "3", "8"]));
        assert_eq!(out[1].shape, shape(&["2", "2", "2", "3", "4"]));
    }

    #[test]
    fn attention_masks_of_the_wrong_length_are_e2() {
        let n = node("Attention", 4, 1, vec![attr_i("num_heads", 2)]);
        let base = |mask: Option<ValueInfo>| {
            [
                t(F32, &["2", "3", "8"]),
                t(F32, &["8", "24"]),
                t(F32, &["24"]),
                mask,
            ]
        };
        for ok in [&["2"][..], &["4"], &["8"], &["2", "3"], &["2", "3", "3"]] {
            assert!(codes(attention, &n, &base(t(I32, ok))).is_empty(), "{ok:?}");
        }
        for bad in [
            &["5"][..],
            &["2", "4"],
            &["2", "1", "3"],
            &["2", "3", "3", "3", "3"],
        ] {
            let c = codes(attention, &n, &base(t(I32, bad)));
            assert_eq!(c.len(), 1, "{bad:?}: {c:?}");
            assert!(
                c[0].starts_with("E2 'n' (Attention) breaks the contract attention-mask-index: ")
                    && c[0].contains("mask_index"),
                "{c:?}"
            );
        }
        // A symbolic total length is a condition.
        let n = node("Attention", 4, 1, vec![attr_i("num_heads", 2)]);
        let c = codes(
            attention,
            &n,
            &[
                t(F32, &["b", "s", "8"]),
                t(F32, &["8", "24"]),
                t(F32, &["24"]),
                t(I32, &["b", "t"]),
            ],
        );
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(
            c[0].starts_with(
                "W2 'n' (Attention) meets the contract attention-mask-index only under a condition: "
            ),
            "{c:?}"
        );
    }

    #[test]
    fn attention_bias_broadcasts_on_batch_and_heads_only() {
        let n = node("Attention", 6, 1, vec![attr_i("num_heads", 2)]);
        let with = |bias: &[&str]| {
            [
                t(F32, &["2", "3", "8"]),
                t(F32, &["8", "24"]),
                t(F32, &["24"]),
                None,
                None,
                t(F32, bias),
            ]
        };
        for ok in [
            &["2", "2", "3", "3"][..],
            &["1", "1", "3", "3"],
            &["1", "2", "3", "3"],
        ] {
            assert!(codes(attention, &n, &with(ok)).is_empty(), "{ok:?}");
        }
        for bad in [
            &["2", "2", "1", "3"][..],
            &["2", "2", "3", "4"],
            &["3", "2", "3", "3"],
            &["2", "3", "3"],
        ] {
            let c = codes(attention, &n, &with(bad));
            assert_eq!(c.len(), 1, "{bad:?}: {c:?}");
            assert!(
                c[0].starts_with(
                    "E2 'n' (Attention) breaks the contract attention-attention-bias: "
                ),
                "{c:?}"
            );
        }
    }

    #[test]
    fn attention_bias_and_weights_contracts() {
        let n = node("Attention", 3, 1, vec![attr_i("num_heads", 2)]);
        let c = codes(
            attention,
            &n,
            &[
                t(F32, &["2", "3", "8"]),
                t(F32, &["7", "24"]),
                t(F32, &["23"]),
            ],
        );
        assert_eq!(c.len(), 2, "{c:?}");
        assert!(
            c[0].starts_with("E2 'n' (Attention) breaks the contract attention-weights: ")
                && c[0].ends_with("here axis -2: 8 vs 7"),
            "{c:?}"
        );
        assert!(
            c[1].starts_with("E2 'n' (Attention) breaks the contract attention-bias: ")
                && c[1].ends_with("here axis -1: 24 vs 23"),
            "{c:?}"
        );
        // Bad ranks and absurd attributes: no panic, unknown outputs.
        let n = node("Attention", 3, 2, vec![attr_i("num_heads", -3)]);
        let out = run(attention, &n, 1, &[t(F32, &["8"]), t(F32, &["8"]), None]);
        assert!(out.iter().all(|v| v.shape.is_none()));
    }

    #[test]
    fn qattention_outputs_are_of_the_bias_type() {
        let n = node("QAttention", 5, 2, vec![attr_i("num_heads", 2)]);
        let inputs = [
            t(U8, &["2", "3", "8"]),
            t(U8, &["8", "24"]),
            t(F32, &["24"]),
            t(F32, &[]),
            t(F32, &[]),
        ];
        let out = run(qattention, &n, 1, &inputs);
        assert_eq!(out[0].elem, F32);
        assert_eq!(out[0].shape, shape(&["2", "3", "8"]));
        assert_eq!(out[1].shape, shape(&["2", "2", "2", "3", "4"]));
    }

    #[test]
    fn mha_shapes_in_each_layout() {
        let n = node("MultiHeadAttention", 8, 4, vec![attr_i("num_heads", 2)]);
        let inputs = [
            t(F32, &["B", "S", "8"]),
            t(F32, &["B", "L", "8"]),
            t(F32, &["B", "L", "6"]),
            t(F32, &["22"]),
            None,
            None,
            t(F32, &["B", "2", "P", "4"]),
            t(F32, &["B", "2", "P", "4"]),
        ];
        let out = run(multi_head_attention, &n, 1, &inputs);
        assert_eq!(out[0].shape, shape(&["B", "S", "6"]));
        assert_eq!(format_shape(&out[1].shape), "[B, 2, L+P, 4]");
        assert_eq!(format_shape(&out[2].shape), "[B, 2, L+P, 3]");
        assert_eq!(format_shape(&out[3].shape), "[B, 2, S, L+P]");
        assert!(codes(multi_head_attention, &n, &inputs).is_empty());
        // Cross attention on the cache: the presents are key and value.
        let n = node("MultiHeadAttention", 3, 3, vec![attr_i("num_heads", 2)]);
        let out = run(
            multi_head_attention,
            &n,
            1,
            &[
                t(F32, &["B", "S", "8"]),
                t(F32, &["B", "2", "L", "4"]),
                t(F32, &["B", "2", "L", "4"]),
            ],
        );
        assert_eq!(out[0].shape, shape(&["B", "S", "8"]));
        assert_eq!(out[1].shape, shape(&["B", "2", "L", "4"]));
        // Packed QKV (B, S, N, 3, H) and packed KV (B, L, N, 2, H).
        let n = node("MultiHeadAttention", 1, 1, vec![attr_i("num_heads", 2)]);
        let out = run(
            multi_head_attention,
            &n,
            1,
            &[t(F32, &["B", "S", "2", "3", "4"])],
        );
        assert_eq!(out[0].shape, shape(&["B", "S", "8"]));
        let n = node("MultiHeadAttention", 2, 3, vec![attr_i("num_heads", 2)]);
        let out = run(
            multi_head_attention,
            &n,
            1,
            &[t(F32, &["B", "S", "8"]), t(F32, &["B", "L", "2", "2", "4"])],
        );
        assert_eq!(out[0].shape, shape(&["B", "S", "8"]));
        assert_eq!(out[1].shape, shape(&["B", "2", "L", "4"]));
    }

    #[test]
    fn mha_contracts() {
        let n = node("MultiHeadAttention", 6, 1, vec![attr_i("num_heads", 2)]);
        let with = |bias: Option<ValueInfo>, mask: Option<ValueInfo>, ab: Option<ValueInfo>| {
            [
                t(F32, &["2", "3", "8"]),
                t(F32, &["2", "5", "8"]),
                t(F32, &["2", "5", "6"]),
                bias,
                mask,
                ab,
            ]
        };
        assert!(
            codes(
                multi_head_attention,
                &n,
                &with(
                    t(F32, &["22"]),
                    t(I32, &["8"]),
                    t(F32, &["1", "1", "3", "5"])
                )
            )
            .is_empty()
        );
        // The bias of the wrong size, the attention bias of the wrong kv length, a short mask.
        for inputs in [
            with(t(F32, &["24"]), None, None),
            with(None, None, t(F32, &["2", "2", "3", "4"])),
            with(None, t(I32, &["2", "3"]), None),
            with(None, t(I32, &["5"]), None),
        ] {
            let c = codes(multi_head_attention, &n, &inputs);
            assert_eq!(c.len(), 1, "{c:?}");
            assert!(
                c[0].starts_with("E2 'n' (MultiHeadAttention) breaks the contract mha-"),
                "{c:?}"
            );
        }
    }

    #[test]
    fn gqa_presents_and_head_sizes() {
        let attrs = || vec![attr_i("num_heads", 4), attr_i("kv_num_heads", 2)];
        let n = node("GroupQueryAttention", 7, 4, attrs());
        let inputs = [
            t(F32, &["2", "1", "32"]),
            t(F32, &["2", "1", "16"]),
            t(F32, &["2", "1", "16"]),
            t(F32, &["2", "2", "8", "8"]),
            t(F32, &["2", "2", "8", "8"]),
            t(I32, &["2"]),
            i32_scalar(6),
        ];
        let out = run(group_query_attention, &n, 1, &inputs);
        assert_eq!(out[0].shape, shape(&["2", "1", "32"]));
        // A static cache keeps its length: max(8, 6).
        assert_eq!(out[1].shape, shape(&["2", "2", "8", "8"]));
        assert_eq!(out[3].shape, shape(&["2", "4", "1", "6"]));
        assert!(codes(group_query_attention, &n, &inputs).is_empty());
        // A key of another head size.
        let mut bad = inputs.clone();
        bad[1] = t(F32, &["2", "1", "24"]);
        bad[2] = t(F32, &["2", "1", "24"]);
        let c = codes(group_query_attention, &n, &bad);
        assert_eq!(c.len(), 2, "{c:?}");
        assert!(
            c.iter().all(|m| m
                .starts_with("E2 'n' (GroupQueryAttention) breaks the contract gqa-key-value: ")
                && m.ends_with("here axis -1: 16 vs 24")),
            "{c:?}"
        );
        // Packed QKV: (4 + 2 * 2) heads of 8.
        let out = run(
            group_query_attention,
            &n,
            1,
            &[
                t(F32, &["B", "S", "64"]),
                None,
                None,
                None,
                None,
                t(I32, &["B"]),
                None,
            ],
        );
        assert_eq!(out[0].shape, shape(&["B", "S", "32"]));
        assert_eq!(out[1].shape, shape(&["B", "2", "S", "8"]));
        // A symbolic past with an unknown total: the cache length is unknown.
        let out = run(
            group_query_attention,
            &n,
            1,
            &[
                t(F32, &["B", "1", "32"]),
                t(F32, &["B", "1", "16"]),
                t(F32, &["B", "1", "16"]),
                t(F32, &["B", "2", "P", "8"]),
                t(F32, &["B", "2", "P", "8"]),
                t(I32, &["B"]),
                t(I32, &[]),
            ],
        );
        assert_eq!(out[1].shape, shape(&["B", "2", "?", "8"]));
    }

    #[test]
    fn a_symbolic_cache_head_size_is_one_condition() {
        // As onnxruntime-genai's models declare their caches: one W2 (kv_cache_dim must be 16), not
        // one per cache.
        let n = node(
            "GroupQueryAttention",
            7,
            3,
            vec![attr_i("num_heads", 4), attr_i("kv_num_heads", 2)],
        );
        let cache = t(F32, &["b", "2", "past", "kv_cache_dim"]);
        let c = codes(
            group_query_attention,
            &n,
            &[
                t(F32, &["b", "s", "128"]),
                None,
                None,
                cache.clone(),
                cache,
                t(I32, &["b"]),
                t(I32, &[]),
            ],
        );
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(
            c[0].starts_with(
                "W2 'n' (GroupQueryAttention) meets the contract gqa-past only under a condition: "
            ) && c[0].ends_with(
                "here axis -1: 16 vs kv_cache_dim; kv_cache_dim must be 16; fails for \
                 kv_cache_dim = 1 (16 vs 1)"
            ),
            "{c:?}"
        );
    }

    #[test]
    fn rotary_caches_against_the_rotary_dim() {
        let n = node("RotaryEmbedding", 4, 1, vec![attr_i("num_heads", 2)]);
        let with = |x: &[&str], cos: &[&str], sin: &[&str]| {
            [t(F32, x), t(I64, &["2", "3"]), t(F32, cos), t(F32, sin)]
        };
        let inputs = with(&["2", "3", "16"], &["10", "4"], &["10", "4"]);
        assert_eq!(
            out_shape(rotary_embedding, &n, 1, &inputs),
            shape(&["2", "3", "16"])
        );
        assert!(codes(rotary_embedding, &n, &inputs).is_empty());
        for bad in [
            with(&["2", "3", "16"], &["10", "8"], &["10", "8"]),
            with(&["2", "3", "16"], &["10", "4"], &["9", "4"]),
        ] {
            let c = codes(rotary_embedding, &n, &bad);
            assert!(
                !c.is_empty()
                    && c.iter().all(|m| m.starts_with(
                        "E2 'n' (RotaryEmbedding) breaks the contract rotary-cos-sin-cache: "
                    )),
                "{c:?}"
            );
        }
        // rotary_embedding_dim: either half is accepted.
        let n = node(
            "RotaryEmbedding",
            4,
            1,
            vec![attr_i("num_heads", 2), attr_i("rotary_embedding_dim", 4)],
        );
        for ok in ["2", "4"] {
            assert!(
                codes(
                    rotary_embedding,
                    &n,
                    &with(&["2", "3", "16"], &["10", ok], &["10", ok])
                )
                .is_empty()
            );
        }
        let c = codes(
            rotary_embedding,
            &n,
            &with(&["2", "3", "16"], &["10", "3"], &["10", "3"]),
        );
        assert_eq!(c.len(), 1, "{c:?}");
        // 3-D without num_heads: the head size comes from the cache, nothing to check.
        let n = node("RotaryEmbedding", 4, 1, vec![]);
        assert!(
            codes(
                rotary_embedding,
                &n,
                &with(&["2", "3", "16"], &["10", "8"], &["10", "8"])
            )
            .is_empty()
        );
        // 4-D: the head size is the last axis.
        let c = codes(
            rotary_embedding,
            &n,
            &with(&["2", "2", "3", "8"], &["10", "3"], &["10", "3"]),
        );
        assert_eq!(c.len(), 1, "{c:?}");
    }

    #[test]
    fn gemma_rotary_outputs() {
        let n = node("GemmaRotaryEmbedding", 5, 2, vec![]);
        let q = t(F32, &["B", "N", "S", "D"]);
        let out = run(
            gemma_rotary_embedding,
            &n,
            1,
            &[
                t(F32, &["B", "S", "D"]),
                q.clone(),
                q.clone(),
                t(F32, &["B", "K", "S", "D"]),
                None,
            ],
        );
        assert_eq!(out[0].shape, shape(&["B", "N", "S", "D"]));
        assert_eq!(out[1].shape, shape(&["B", "K", "S", "D"]));
    }
}
