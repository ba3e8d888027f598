//! onnxruntime's generation loops (domain `com.microsoft`, version 1 each): BeamSearch,
//! WhisperBeamSearch, GreedySearch and Sampling. Each runs its decoder (and encoder) subgraphs until
//! `max_length`; the outputs' shapes follow from the inputs' values, not from the subgraphs, which are
//! not inferred here.
//!
//! Spec: <https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md>
//! (`#com.microsoft.BeamSearch` and so on); shape inference in onnxruntime's
//! `core/graph/contrib_ops/contrib_defs.cc` (`BeamSearchShapeInference`, `GreedySearchShapeInference`).
//! onnxruntime infers only known sizes from initializers; here the batch stays symbolic and the counts
//! come from any known values:
//! - BeamSearch, WhisperBeamSearch: `sequences` int32 `(batch, num_return_sequences, max_length)` (padded
//!   to `max_length` with the pad token), `sequences_scores` `(batch, num_return_sequences)`, `scores`
//!   `(max_length - sequence_length, batch, num_beams, vocab_size)` with `vocab_size` from the attribute
//!   (for encoder-decoder models and Whisper the decoder's initial length is not the input's, so the
//!   first size is unknown, where onnxruntime's inference still subtracts the encoder input's length);
//!   WhisperBeamSearch's `cross_qk` `(batch, num_return_sequences, layers * heads, T, F)` (the pairs
//!   of `cross_qk_layer_head` when given; T the decoded length and F the frames, known at run time) and
//!   `non_speech_probs` `(batch)`. The scores are of the type of `length_penalty` and the other
//!   float inputs (the `T` of the schema).
//! - GreedySearch, Sampling: `sequences` `(batch, max_length)` of the input ids' type; Sampling's
//!   `filtered_logits` `(batch, vocab_size)`.
//!
//! GreedySearch, Sampling and BeamSearch run on the CPU with a one-layer GPT-2-style decoder built by
//! tests/conformance/contrib/cases_more.py. WhisperBeamSearch needs an encoder and a decoder of
//! Whisper's layout, which no case builds: it is covered by the unit tests below.

use super::super::ctx::NodeCtx;
use super::super::dim::Dim;
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::support::{dim_of, elem, scalar_i64};
use crate::proto::tensor_proto::DataType;

const MS: &str = "com.microsoft";

pub fn register(r: &mut Registry) {
    r.add(MS, "BeamSearch", 1, beam_search);
    r.add(MS, "WhisperBeamSearch", 1, beam_search);
    r.add(MS, "GreedySearch", 1, greedy_search);
    r.add(MS, "Sampling", 1, greedy_search);
}

/// A positive count given as the value of input `slot`.
fn count(ctx: &NodeCtx<'_>, slot: usize) -> Dim {
    match scalar_i64(ctx, slot) {
        Some(v) if v > 0 => Dim::Known(v as u64),
        _ => Dim::Unknown,
    }
}

fn vocab(ctx: &NodeCtx<'_>) -> Dim {
    match ctx.attr_i("vocab_size") {
        Some(v) if v > 0 => Dim::Known(v as u64),
        _ => Dim::Unknown,
    }
}

/// The float type `T` of the scores: that of the first float input given.
fn float_type(ctx: &NodeCtx<'_>, slots: &[usize]) -> Option<i32> {
    slots.iter().find_map(|&s| ctx.elem(s))
}

fn beam_search(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let whisper = ctx.op_type() == "WhisperBeamSearch" || ctx.attr_i("model_type") == Some(2);
    let rank = if whisper { 3 } else { 2 };
    let batch = dim_of(ctx, 0, rank, 0);
    let max_length = count(ctx, 1);
    let (beams, returned) = (count(ctx, 3), count(ctx, 4));
    // The scores cover the generated steps: max_length less the prompt for a decoder-only model;
    // an encoder-decoder's decoder starts from its own ids, not the encoder's input.
    let decoder_only = ctx.attr_i("model_type").unwrap_or(0) == 0;
    let steps = match (whisper || !decoder_only, &max_length) {
        (false, Dim::Known(m)) => match dim_of(ctx, 0, 2, 1) {
            Dim::Known(s) if s <= *m => Dim::Known(m - s),
            _ => Dim::Unknown,
        },
        (false, _) => Dim::Unknown,
        _ => Dim::Unknown,
    };
    let t = float_type(ctx, &[5, 6, 14]);
    let int32 = elem(DataType::Int32);
    let mut outs = vec![
        ValueInfo::tensor(
            int32,
            Some(vec![batch.clone(), returned.clone(), max_length.clone()]),
        ),
        ValueInfo::tensor(t, Some(vec![batch.clone(), returned.clone()])),
        ValueInfo::tensor(t, Some(vec![steps, batch.clone(), beams, vocab(ctx)])),
    ];
    if whisper {
        // [B, R, L*H, T, F]: the kept (layer, head) pairs when cross_qk_layer_head lists them; T the
        // decoded length and F the cross attention's length, both known only at run time.
        let pairs = dim_of(ctx, 12, 2, 0);
        outs.push(ValueInfo::tensor(
            elem(DataType::Float),
            Some(vec![
                batch.clone(),
                returned,
                pairs,
                Dim::Unknown,
                Dim::Unknown,
            ]),
        ));
        outs.push(ValueInfo::tensor(t, Some(vec![batch])));
    }
    outs
}

/// GreedySearch and Sampling: `sequences` (batch, max_length); Sampling's `filtered_logits` (batch,
/// vocab_size).
fn greedy_search(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let batch = dim_of(ctx, 0, 2, 0);
    let ids = ctx.elem(0).or(elem(DataType::Int32));
    let mut outs = vec![ValueInfo::tensor(
        ids,
        Some(vec![batch.clone(), count(ctx, 1)]),
    )];
    if ctx.op_type() == "Sampling" {
        outs.push(ValueInfo::tensor(
            float_type(ctx, &[3]),
            Some(vec![batch, vocab(ctx)]),
        ));
    }
    outs
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    const I32: Option<i32> = Some(DataType::Int32 as i32);

    fn int32(v: i64) -> Option<ValueInfo> {
        int(v).map(|mut i| {
            i.elem = I32;
            i.shape = shape(&["1"]);
            i
        })
    }

    #[test]
    fn beam_search_sizes_come_from_the_counts() {
        let n = node("BeamSearch", 6, 3, vec![attr_i("vocab_size", 100)]);
        let outs = run(
            beam_search,
            &n,
            1,
            &[
                t(I32, &["b", "7"]),
                int32(20),
                None,
                int32(4),
                int32(2),
                t(F32, &["1"]),
            ],
        );
        assert_eq!(outs[0].shape, shape(&["b", "2", "20"]));
        assert_eq!(outs[0].elem, I32);
        assert_eq!(outs[1].shape, shape(&["b", "2"]));
        assert_eq!(outs[2].shape, shape(&["13", "b", "4", "100"]));
        assert_eq!(outs[2].elem, F32);
    }

    #[test]
    fn unknown_counts_stay_unknown() {
        let n = node("BeamSearch", 5, 1, vec![]);
        let outs = run(
            beam_search,
            &n,
            1,
            &[
                t(I32, &["b", "s"]),
                t(I32, &["1"]),
                None,
                t(I32, &["1"]),
                t(I32, &["1"]),
            ],
        );
        assert_eq!(outs[0].shape, shape(&["b", "?", "?"]));
    }

    #[test]
    fn whisper_adds_cross_qk_and_speech_probs() {
        let n = node("WhisperBeamSearch", 6, 5, vec![]);
        let outs = run(
            beam_search,
            &n,
            1,
            &[
                t(F32, &["b", "80", "3000"]),
                int32(448),
                None,
                int32(1),
                int32(1),
                t(F32, &["1"]),
            ],
        );
        assert_eq!(outs[0].shape, shape(&["b", "1", "448"]));
        assert_eq!(outs[3].shape, shape(&["b", "1", "?", "?", "?"]));
        assert_eq!(outs[4].shape, shape(&["b"]));
    }

    #[test]
    fn greedy_and_sampling_give_batch_by_max_length() {
        let n = node("GreedySearch", 2, 1, vec![]);
        let s = out_shape(greedy_search, &n, 1, &[t(I32, &["b", "s"]), int32(32)]);
        assert_eq!(s, shape(&["b", "32"]));
        let n = node("Sampling", 4, 2, vec![attr_i("vocab_size", 50)]);
        let outs = run(
            greedy_search,
            &n,
            1,
            &[t(I32, &["b", "s"]), int32(32), None, t(F32, &["1"])],
        );
        assert_eq!(outs[1].shape, shape(&["b", "50"]));
    }
}
