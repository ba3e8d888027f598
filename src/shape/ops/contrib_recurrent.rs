//! onnxruntime's recurrent-state operators of the linear-attention and hybrid models (domain
//! `com.microsoft`, version 1 each): LinearAttention, LinearAttentionGate, GatedDeltaNet,
//! CausalConvWithState, VarlenCausalConvWithState, HyperConnectionPreMix, HyperConnectionPostMix,
//! EngramGate, NGramHashMapping and VarlenNGramHashMapping.
//!
//! Spec: <https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md>
//! (`#com.microsoft.LinearAttention` and so on; the shapes below are the schemas' words):
//! - LinearAttention: Q `(B, T, H_q * d_k)`, K `(B, T, H_kv * d_k)`, V `(B, T, H_kv * d_v)` give the
//!   output `(B, T, max(H_q, H_kv) * d_v)` and the state `(B, H_kv, d_k, d_v)`, with a leading window
//!   axis `W` when `state_window` is positive.
//! - LinearAttentionGate: decay and beta of `a`'s shape `(B, T, H)`.
//! - GatedDeltaNet: with separate Q `(tokens, H_q, d_qk)` and V `(tokens, H_v, d_v)`: output `(tokens,
//!   max(H_q, H_v), d_v)`; the final state `(batch, H_v, d_v, d_qk)` (the initial state's shape);
//!   `state_update` `(batch, C * (H_v + H_k * d_qk + H_v * d_v))` for a capacity C.
//! - CausalConvWithState: the output is the input's shape; the present state is the past state's, or
//!   for one channels-first spatial axis `(B, C, (k - 1) * dilation)` (window axis in front when
//!   `state_window` is positive).
//! - VarlenCausalConvWithState: output of the input's shape, final state of the initial state's,
//!   `state_update` `(batch, capacity, channels)`.
//! - HyperConnectionPreMix: grouped streams `(.., C, H)` reduce to `(.., H)`; flattened `(.., C * H)`
//!   (with `num_branches` C) to `(.., H)`. HyperConnectionPostMix: the streams' shape.
//! - EngramGate: both outputs of the key's shape `(B, S, hc, hidden)`.
//! - NGramHashMapping: `hash_ids` `(B, S, (max_ngram_size - 1) * n_head_per_ngram)`, `present_ids`
//!   `(B, max_ngram_size - 1)`; the varlen form packs the tokens: `(tokens, ..)`, with the batch from
//!   `cumulative_sequence_length` (`batch + 1` long).
//!
//! Contracts onnxruntime's CPU kernels enforce (each with a refused case in
//! tests/conformance/contrib/cases_more.py), checked here: LinearAttention's key and value of the
//! query's batch and length, its past state of the computed shape; LinearAttentionGate's `dt_bias` and
//! `decay_scale` `(H)` and `b` of a's shape; CausalConvWithState's depthwise weight `(C, 1, k..)`, bias
//! `(C)` and past state; HyperConnectionPostMix's block output `(.., H)`; EngramGate's query of key's
//! shape, value `(B, S, H)` and norm scales `(hc, H)`; NGramHashMapping's `vocab_sizes` and
//! `head_offsets` `((n - 1) * heads)` and `past_ids` `(B, n - 1)`. GatedDeltaNet and
//! VarlenCausalConvWithState have no CPU kernel: their rules are covered by the unit tests, and agree
//! with onnxruntime's own shape inference at load time (the sizes it reports when they clash with a
//! declared output), as do the windowed states of LinearAttention and CausalConvWithState.

use super::super::contract::Contract;
use super::super::ctx::NodeCtx;
use super::super::dim::Dim;
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::{div_exact, like, mul, shift, sum};
use super::contract;
use super::support::{dim_of, rank_of};

const MS: &str = "com.microsoft";

pub fn register(r: &mut Registry) {
    r.add(MS, "LinearAttention", 1, linear_attention);
    r.add(MS, "LinearAttentionGate", 1, linear_attention_gate);
    r.add(MS, "GatedDeltaNet", 1, gated_delta_net);
    r.add(MS, "CausalConvWithState", 1, causal_conv_with_state);
    r.add(MS, "VarlenCausalConvWithState", 1, varlen_causal_conv);
    r.add(MS, "HyperConnectionPreMix", 1, hyper_pre_mix);
    r.add(MS, "HyperConnectionPostMix", 1, hyper_post_mix);
    r.add(MS, "EngramGate", 1, engram_gate);
    r.add(MS, "NGramHashMapping", 1, ngram_hash_mapping);
    r.add(MS, "VarlenNGramHashMapping", 1, ngram_hash_mapping);
}

/// A positive integer attribute.
fn positive(ctx: &NodeCtx<'_>, name: &str) -> Option<u64> {
    ctx.attr_i(name)
        .and_then(|v| u64::try_from(v).ok())
        .filter(|&v| v > 0)
}

/// LinearAttention(Q, K, V, past_state?, decay?, beta?) -> (output, present_state).
fn linear_attention(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (hq, hkv) = (positive(ctx, "q_num_heads"), positive(ctx, "kv_num_heads"));
    let (b, t) = (dim_of(ctx, 0, 3, 0), dim_of(ctx, 0, 3, 1));
    let per = |slot: usize, heads: Option<u64>| match heads {
        Some(h) => div_exact(&dim_of(ctx, slot, 3, 2), h),
        None => Dim::Unknown,
    };
    let dv = per(2, hkv);
    let dk = match per(0, hq) {
        Dim::Unknown => per(1, hkv),
        d => d,
    };
    let heads = match (hq, hkv) {
        (Some(q), Some(k)) => Dim::Known(q.max(k)),
        _ => Dim::Unknown,
    };
    if rank_of(ctx, 0) == Some(3) {
        for (slot, what) in [
            (
                1,
                Contract::new(
                    "linear-attention-key",
                    "LinearAttention's key: (B, T, H_kv * d_k) of the query's B and T",
                ),
            ),
            (
                2,
                Contract::new(
                    "linear-attention-value",
                    "LinearAttention's value: (B, T, H_kv * d_v) of the query's B and T",
                ),
            ),
        ] {
            contract::exact(ctx, 0, slot, &[b.clone(), t.clone(), Dim::Unknown], what);
        }
    }
    let output = vec![b.clone(), t, mul(&heads, &dv)];
    let mut computed = vec![b, hkv.map_or(Dim::Unknown, Dim::Known), dk, dv];
    if let Some(w) = positive(ctx, "state_window") {
        computed.insert(0, Dim::Known(w));
    }
    let state = if ctx.has_input(3) && ctx.shape(3).is_some() {
        contract::exact(
            ctx,
            0,
            3,
            &computed,
            Contract::new(
                "linear-attention-past-state",
                "LinearAttention's past_state: (B, H_kv, d_k, d_v) of the query, key and value",
            ),
        );
        ctx.shape(3)
    } else {
        Some(computed)
    };
    let state_type = ctx.elem(3).or(ctx.elem(0));
    vec![
        like(ctx, 0, Some(output)),
        ValueInfo::tensor(state_type, state),
    ]
}

/// LinearAttentionGate(a, dt_bias, decay_scale, b?) -> (decay, beta), both of a's shape.
fn linear_attention_gate(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let a = ctx.shape(0);
    if let Some(a) = &a {
        let h = a.last().cloned().unwrap_or(Dim::Unknown);
        contract::exact(
            ctx,
            0,
            1,
            std::slice::from_ref(&h),
            Contract::new(
                "linear-attention-gate-dt-bias",
                "LinearAttentionGate's dt_bias: (H), H the last axis of a",
            ),
        );
        contract::exact(
            ctx,
            0,
            2,
            &[h],
            Contract::new(
                "linear-attention-gate-decay-scale",
                "LinearAttentionGate's decay_scale: (H), H the last axis of a",
            ),
        );
        if ctx.has_input(3) {
            contract::exact(
                ctx,
                0,
                3,
                a,
                Contract::new(
                    "linear-attention-gate-b",
                    "LinearAttentionGate's b: the shape of a",
                ),
            );
        }
    }
    vec![like(ctx, 0, a.clone()), like(ctx, 0, ctx.shape(3).or(a))]
}

/// GatedDeltaNet(query, key?, value?, cu_seqlens?, decay?, beta?, initial_state?, ..) -> (output,
/// final_state, state_update).
fn gated_delta_net(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let tokens = match rank_of(ctx, 0) {
        Some(r) if r >= 2 => dim_of(ctx, 0, r, 0),
        _ => Dim::Unknown,
    };
    let output = if ctx.has_input(2) && rank_of(ctx, 0) == Some(3) && rank_of(ctx, 2) == Some(3) {
        let heads = match (dim_of(ctx, 0, 3, 1), dim_of(ctx, 2, 3, 1)) {
            (Dim::Known(q), Dim::Known(v)) => Dim::Known(q.max(v)),
            (q, v) if q == v => q,
            _ => Dim::Unknown,
        };
        Some(vec![tokens, heads, dim_of(ctx, 2, 3, 2)])
    } else {
        Some(vec![tokens, Dim::Unknown, Dim::Unknown])
    };
    let state_type = ctx.elem(6).or(ctx.elem(5)).or(ctx.elem(0));
    let batch = match dim_of(ctx, 6, 4, 0) {
        Dim::Unknown => shift(&dim_of(ctx, 3, 1, 0), -1),
        b => b,
    };
    let final_state = if ctx.shape(6).is_some() {
        ctx.shape(6)
    } else {
        Some(vec![
            batch.clone(),
            Dim::Unknown,
            Dim::Unknown,
            Dim::Unknown,
        ])
    };
    // C * (H_v + H_k * d_qk + H_v * d_v), from the separate key and value.
    let width = match (
        positive(ctx, "state_update_capacity"),
        rank_of(ctx, 1),
        rank_of(ctx, 2),
    ) {
        (Some(c), Some(3), Some(3)) => {
            let (hk, dqk) = (dim_of(ctx, 1, 3, 1), dim_of(ctx, 1, 3, 2));
            let (hv, dv) = (dim_of(ctx, 2, 3, 1), dim_of(ctx, 2, 3, 2));
            let per = sum(&[hv.clone(), mul(&hk, &dqk), mul(&hv, &dv)]);
            mul(&Dim::Known(c), &per)
        }
        _ => Dim::Unknown,
    };
    vec![
        like(ctx, 0, output),
        ValueInfo::tensor(state_type, final_state),
        ValueInfo::tensor(state_type, Some(vec![batch, width])),
    ]
}

/// CausalConvWithState(input, weight, bias?, past_state?) -> (output, present_state).
fn causal_conv_with_state(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let channels_first = ctx.attr_i("channels_last").unwrap_or(0) == 0;
    if channels_first && let Some(x) = ctx.shape(0).filter(|x| x.len() >= 3) {
        // Depthwise: the weight is (C, 1, k..) of the input's rank, the bias (C).
        let mut w = vec![Dim::Unknown; x.len()];
        w[0] = x[1].clone();
        w[1] = Dim::Known(1);
        contract::exact(
            ctx,
            0,
            1,
            &w,
            Contract::new(
                "causal-conv-with-state-weight",
                "CausalConvWithState's weight: depthwise (C, 1, k..), C the input's channels",
            ),
        );
        if ctx.has_input(2) {
            contract::exact(
                ctx,
                0,
                2,
                std::slice::from_ref(&x[1]),
                Contract::new(
                    "causal-conv-with-state-bias",
                    "CausalConvWithState's bias: (C), the input's channels",
                ),
            );
        }
    }
    let state = if ctx.shape(3).is_some() {
        if let Some(expected) = causal_state(ctx) {
            contract::exact(
                ctx,
                0,
                3,
                &expected,
                Contract::new(
                    "causal-conv-with-state-past-state",
                    "CausalConvWithState's past_state: (B, C, (k - 1) * dilation) of the input and kernel",
                ),
            );
        }
        ctx.shape(3)
    } else {
        causal_state(ctx)
    };
    vec![like(ctx, 0, ctx.shape(0)), like(ctx, 0, state)]
}

/// The carry state of a channels-first 1-D causal convolution: `(B, C, (k - 1) * dilation)`, with a
/// leading window axis when `state_window` is positive.
fn causal_state(ctx: &NodeCtx<'_>) -> Option<Vec<Dim>> {
    let ndim = ctx.attr_i("ndim").unwrap_or(1);
    let channels_last = ctx.attr_i("channels_last").unwrap_or(0) != 0;
    let dilation = positive(ctx, "dilation").or(ctx.attr_i("dilation").is_none().then_some(1));
    match (ndim, channels_last, rank_of(ctx, 0), dim_of(ctx, 1, 3, 2)) {
        (1, false, Some(3), Dim::Known(k)) if k > 0 => {
            let length = dilation.map_or(Dim::Unknown, |d| mul(&Dim::Known(k - 1), &Dim::Known(d)));
            let mut s = vec![dim_of(ctx, 0, 3, 0), dim_of(ctx, 0, 3, 1), length];
            if let Some(w) = positive(ctx, "state_window") {
                s.insert(0, Dim::Known(w));
            }
            Some(s)
        }
        _ => None,
    }
}

/// VarlenCausalConvWithState(input (tokens, C), weight (C, 1, k), cu_seqlens, bias?, initial_state,
/// capture_count?) -> (output, final_state, state_update).
fn varlen_causal_conv(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let batch = match dim_of(ctx, 4, 3, 0) {
        Dim::Unknown => shift(&dim_of(ctx, 2, 1, 0), -1),
        b => b,
    };
    let capacity = positive(ctx, "state_update_capacity").map_or(Dim::Unknown, Dim::Known);
    let update = vec![batch, capacity, dim_of(ctx, 0, 2, 1)];
    vec![
        like(ctx, 0, ctx.shape(0)),
        like(ctx, 0, ctx.shape(4)),
        like(ctx, 0, Some(update)),
    ]
}

/// HyperConnectionPreMix(streams, pre_mix) -> (.., H).
fn hyper_pre_mix(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = ctx.shape(0).and_then(|mut s| {
        match positive(ctx, "num_branches") {
            Some(c) => {
                let last = s.last_mut()?;
                *last = div_exact(last, c);
            }
            None => {
                if s.len() < 2 {
                    return None;
                }
                s.remove(s.len() - 2);
            }
        }
        Some(s)
    });
    vec![like(ctx, 0, shape)]
}

/// HyperConnectionPostMix(streams, block_output (.., H), post_mix, stream_mix?) -> streams' shape.
fn hyper_post_mix(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if let Some(reduced) = hyper_pre_mix(ctx).pop().and_then(|v| v.shape) {
        contract::exact(
            ctx,
            0,
            1,
            &reduced,
            Contract::new(
                "hyper-connection-post-mix-block-output",
                "HyperConnectionPostMix's block_output: (.., H), the streams without their branch axis",
            ),
        );
    }
    vec![like(ctx, 0, ctx.shape(0))]
}

/// EngramGate(key (B, S, hc, H), ..) -> (output, gated_value_normed), both of key's shape.
fn engram_gate(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if let Some([b, s, hc, h]) = ctx.shape(0).as_deref() {
        let (b, s, hc, h) = (b.clone(), s.clone(), hc.clone(), h.clone());
        let key = [b.clone(), s.clone(), hc.clone(), h.clone()];
        contract::exact(
            ctx,
            0,
            1,
            &key,
            Contract::new("engram-gate-query", "EngramGate's query: the shape of key"),
        );
        contract::exact(
            ctx,
            0,
            2,
            &[b, s, h.clone()],
            Contract::new(
                "engram-gate-value",
                "EngramGate's value: (batch_size, sequence_length, hidden_size) of key",
            ),
        );
        for slot in [3, 4, 5] {
            if ctx.has_input(slot) {
                contract::exact(
                    ctx,
                    0,
                    slot,
                    &[hc.clone(), h.clone()],
                    Contract::new(
                        "engram-gate-norm-scales",
                        "EngramGate's norm scales: (hc_mult, hidden_size) of key",
                    ),
                );
            }
        }
    }
    vec![like(ctx, 0, ctx.shape(0)), like(ctx, 0, ctx.shape(0))]
}

/// NGramHashMapping(input_ids (B, S), ..) and VarlenNGramHashMapping(input_ids (tokens), ..,
/// cumulative_sequence_length (B + 1), ..).
fn ngram_hash_mapping(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let varlen = ctx.op_type() == "VarlenNGramHashMapping";
    let n = ctx
        .attr_i("max_ngram_size")
        .filter(|&n| n >= 2)
        .and_then(|n| u64::try_from(n - 1).ok());
    let history = n.map_or(Dim::Unknown, Dim::Known);
    let heads = match (n, positive(ctx, "n_head_per_ngram")) {
        (Some(n), Some(h)) => n.checked_mul(h).map_or(Dim::Unknown, Dim::Known),
        _ => Dim::Unknown,
    };
    if !matches!(heads, Dim::Unknown) {
        for (slot, what) in [
            (
                2,
                Contract::new(
                    "ngram-hash-mapping-vocab-sizes",
                    "NGramHashMapping's vocab_sizes: ((max_ngram_size - 1) * n_head_per_ngram)",
                ),
            ),
            (
                if varlen { 5 } else { 4 },
                Contract::new(
                    "ngram-hash-mapping-head-offsets",
                    "NGramHashMapping's head_offsets: ((max_ngram_size - 1) * n_head_per_ngram)",
                ),
            ),
        ] {
            if ctx.has_input(slot) {
                contract::exact(ctx, 0, slot, std::slice::from_ref(&heads), what);
            }
        }
    }
    let (hash, batch) = if varlen {
        (
            vec![dim_of(ctx, 0, 1, 0), heads],
            shift(&dim_of(ctx, 3, 1, 0), -1),
        )
    } else {
        let (b, s) = (dim_of(ctx, 0, 2, 0), dim_of(ctx, 0, 2, 1));
        if ctx.has_input(3) && rank_of(ctx, 0) == Some(2) {
            contract::exact(
                ctx,
                0,
                3,
                &[b.clone(), history.clone()],
                Contract::new(
                    "ngram-hash-mapping-past-ids",
                    "NGramHashMapping's past_ids: (batch_size, max_ngram_size - 1) of input_ids",
                ),
            );
        }
        (vec![b.clone(), s, heads], b)
    };
    let mut outs = vec![
        like(ctx, 0, Some(hash)),
        like(ctx, 0, Some(vec![batch.clone(), history.clone()])),
    ];
    if varlen {
        let capacity = positive(ctx, "state_update_capacity").map_or(Dim::Unknown, Dim::Known);
        outs.push(like(ctx, 3, Some(vec![batch.clone(), history.clone()])));
        outs.push(like(ctx, 0, Some(vec![batch, capacity, history])));
    }
    outs
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    #[test]
    fn linear_attention_splits_the_heads() {
        let n = node(
            "LinearAttention",
            3,
            2,
            vec![attr_i("q_num_heads", 4), attr_i("kv_num_heads", 2)],
        );
        let outs = run(
            linear_attention,
            &n,
            1,
            &[
                t(F32, &["b", "t", "64"]),
                t(F32, &["b", "t", "32"]),
                t(F32, &["b", "t", "48"]),
            ],
        );
        assert_eq!(outs[0].shape, shape(&["b", "t", "96"]));
        assert_eq!(outs[1].shape, shape(&["b", "2", "16", "24"]));
    }

    #[test]
    fn gated_delta_net_takes_the_widest_heads() {
        let n = node(
            "GatedDeltaNet",
            7,
            3,
            vec![attr_i("state_update_capacity", 2)],
        );
        let outs = run(
            gated_delta_net,
            &n,
            1,
            &[
                t(F32, &["n", "2", "8"]),
                t(F32, &["n", "2", "8"]),
                t(F32, &["n", "4", "16"]),
                t(I64, &["3"]),
                None,
                None,
                None,
            ],
        );
        assert_eq!(outs[0].shape, shape(&["n", "4", "16"]));
        assert_eq!(outs[1].shape, shape(&["2", "?", "?", "?"]));
        // 2 * (4 + 2 * 8 + 4 * 16) = 168
        assert_eq!(outs[2].shape, shape(&["2", "168"]));
    }

    #[test]
    fn causal_conv_state_is_the_kernel_span() {
        let n = node("CausalConvWithState", 2, 2, vec![attr_i("dilation", 2)]);
        let outs = run(
            causal_conv_with_state,
            &n,
            1,
            &[t(F32, &["b", "8", "s"]), t(F32, &["8", "1", "4"])],
        );
        assert_eq!(outs[0].shape, shape(&["b", "8", "s"]));
        assert_eq!(outs[1].shape, shape(&["b", "8", "6"]));
    }

    #[test]
    fn hyper_connections_and_ngram_hashes() {
        let n = node("HyperConnectionPreMix", 2, 1, vec![]);
        let s = out_shape(hyper_pre_mix, &n, 1, &[t(F32, &["b", "s", "4", "64"])]);
        assert_eq!(s, shape(&["b", "s", "64"]));
        let n = node(
            "HyperConnectionPreMix",
            2,
            1,
            vec![attr_i("num_branches", 4)],
        );
        let s = out_shape(hyper_pre_mix, &n, 1, &[t(F32, &["b", "s", "256"])]);
        assert_eq!(s, shape(&["b", "s", "64"]));
        let n = node(
            "NGramHashMapping",
            3,
            2,
            vec![attr_i("max_ngram_size", 3), attr_i("n_head_per_ngram", 4)],
        );
        let outs = run(ngram_hash_mapping, &n, 1, &[t(I64, &["b", "s"])]);
        assert_eq!(outs[0].shape, shape(&["b", "s", "8"]));
        assert_eq!(outs[1].shape, shape(&["b", "2"]));
    }

    fn codes(
        rule: super::super::super::registry::Rule,
        attrs: Vec<crate::proto::AttributeProto>,
        inputs: &[Option<ValueInfo>],
    ) -> Vec<String> {
        codes_at(rule, &node("Op", inputs.len(), 2, attrs), 1, inputs)
    }

    #[test]
    fn recurrent_contracts_are_e2() {
        let heads = || vec![attr_i("q_num_heads", 2), attr_i("kv_num_heads", 2)];
        let q = t(F32, &["2", "3", "16"]);
        let ok = [q.clone(), q.clone(), q.clone()];
        assert!(codes(linear_attention, heads(), &ok).is_empty());
        let c = codes(
            linear_attention,
            heads(),
            &[q.clone(), t(F32, &["2", "4", "16"]), q.clone()],
        );
        assert!(
            c.len() == 1
                && c[0].starts_with("E2 'n' (Op) breaks the contract linear-attention-key: ")
                && c[0].ends_with("here axis -2: 3 vs 4"),
            "{c:?}"
        );
        let c = codes(
            causal_conv_with_state,
            vec![],
            &[t(F32, &["2", "8", "5"]), t(F32, &["6", "1", "4"])],
        );
        assert!(
            c.len() == 1
                && c[0]
                    .starts_with("E2 'n' (Op) breaks the contract causal-conv-with-state-weight: "),
            "{c:?}"
        );
        let c = codes(
            causal_conv_with_state,
            vec![],
            &[
                t(F32, &["2", "8", "5"]),
                t(F32, &["8", "1", "4"]),
                None,
                t(F32, &["2", "8", "2"]),
            ],
        );
        assert!(c.len() == 1 && c[0].contains("past_state"), "{c:?}");
        let k = t(F32, &["2", "3", "4", "8"]);
        let c = codes(
            engram_gate,
            vec![],
            &[
                k.clone(),
                k,
                t(F32, &["2", "3", "7"]),
                t(F32, &["4", "8"]),
                t(F32, &["4", "8"]),
            ],
        );
        assert!(c.len() == 1 && c[0].contains("value"), "{c:?}");
        let c = codes(
            ngram_hash_mapping,
            vec![attr_i("max_ngram_size", 3), attr_i("n_head_per_ngram", 2)],
            &[t(I64, &["2", "5"]), t(I64, &["3"]), t(I64, &["3"])],
        );
        assert!(c.len() == 1 && c[0].contains("vocab_sizes"), "{c:?}");
        // A symbolic batch against a known one is a condition, not an error.
        let c = codes(
            linear_attention_gate,
            vec![],
            &[t(F32, &["b", "t", "h"]), t(F32, &["4"]), t(F32, &["4"])],
        );
        assert!(
            c.iter()
                .all(|c| c.starts_with("W2 'n' (Op) meets the contract linear-attention-gate-"))
                && !c.is_empty(),
            "{c:?}"
        );
    }
}
