//! onnxruntime's normalization and embedding contrib operators, and a few small contrib ops beside
//! them: SkipLayerNormalization, SkipSimplifiedLayerNormalization, EmbedLayerNormalization,
//! QEmbedLayerNormalization, GroupNorm, SkipGroupNorm, GatedRMSNorm, BranchwiseRMSNorm,
//! TorchEmbedding, WordConvEmbedding, Trilu, Range and ExpandDims (domain `com.microsoft`, all since
//! version 1), and the LayerNormalization and SimplifiedLayerNormalization that onnxruntime registers
//! in the default domain since version 1 (LayerNormalization only until opset 17 takes over with
//! onnx's own, whose rule is in `unidirectional.rs`).
//!
//! Spec: <https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md#com.microsoft.SkipLayerNormalization>
//! and `#com.microsoft.SkipSimplifiedLayerNormalization`, `#com.microsoft.EmbedLayerNormalization`,
//! `#com.microsoft.QEmbedLayerNormalization`, `#com.microsoft.GroupNorm`, `#com.microsoft.SkipGroupNorm`,
//! `#com.microsoft.GatedRMSNorm`, `#com.microsoft.BranchwiseRMSNorm`, `#com.microsoft.TorchEmbedding`,
//! `#com.microsoft.WordConvEmbedding`, `#com.microsoft.Trilu`, `#com.microsoft.Range`,
//! `#com.microsoft.ExpandDims`. Version history: every op here has one version, 1 (onnxruntime
//! 1.31.1).
//!
//! What onnxruntime's kernels enforce, and what is checked here (E2 for a definite mismatch, W2 for a
//! symbolic one, under the contract named in the finding; E1 and W1 for the broadcast scale and bias
//! of LayerNormalization and SimplifiedLayerNormalization):
//! - Skip(Simplified)LayerNormalization (`skip_layer_norm_helper.h`): input `[B, S, H]` or `[T, H]`;
//!   gamma, beta and bias 1-D of H (the input's last axis). The skip must be 2-D or 3-D with its last
//!   two axes equal to the input's: for a 3-D input any skip `[*, S, H]` (its batch axis is not checked:
//!   the kernel reads the skip modulo its size, so `[1, S, H]`, `[B, S, H]` and even `[3, S, H]` run)
//!   or `[S, H]`; for a 2-D input the skip must be the input's shape. Outputs: output and
//!   input_skip_bias_sum of the input's shape and type; mean and inv_std_var float, the input's shape
//!   with the last axis 1.
//! - LayerNormalization / SimplifiedLayerNormalization of the default domain (`layer_norm_helper.h`):
//!   scale and bias broadcast unidirectionally to X (rank at most X's, every axis from the right 1 or
//!   X's size); Y has the scale's element type (V), the statistics the `stash_type` (float by default)
//!   and X's shape with the axes from `axis` on set to 1.
//! - EmbedLayerNormalization (`embed_layer_norm_helper.cc`, and onnxruntime's shape inference, which
//!   refuses an unknown hidden size): segment_ids and mask of input_ids' shape; position and segment
//!   embeddings 2-D with the word embedding's hidden size; gamma and beta 1-D of it; position_ids
//!   `[1 or B, S]`. Outputs `[B, S, H]` (the embeddings' type), mask_index `[B]` (input_ids' type) and
//!   embedding_sum `[B, S, H]`. QEmbedLayerNormalization checks the same of its first eight inputs and
//!   outputs the scales' float type.
//! - GroupNorm, SkipGroupNorm: no CPU kernel, so not verified against onnxruntime here; their CUDA
//!   kernel (`contrib_ops/cuda/diffusion/group_norm.cc`) requires gamma, beta and bias 1-D of the channel
//!   count, the channel count divisible by `groups`, and a skip of the input's shape, `[N, 1, 1, C]` or
//!   `[N, C]`; checked from the schema's layout (NHWC when `channels_last` is 1, its default).
//! - GatedRMSNorm (`linear_attention_gates.cc`): the gate of X's shape, X's last axis a multiple of
//!   the scale's element count. BranchwiseRMSNorm (`hyper_connection_helper.h`): X grouped `(..., C, H)`
//!   or flattened `(..., C * H)` with `num_branches` C dividing the last axis; the scale `(H)`,
//!   `(C * H)` or `(C, H)`. Both give Y of X's shape and type.
//! - TorchEmbedding (no CPU kernel): `indices.shape + [M]` for a weight `[N, M]`. WordConvEmbedding
//!   (`word_conv_embedding.cc`): `[words, filters]`; the char embedding's second axis must be the conv
//!   weight's last.
//! - Trilu: the input's shape. Range: as onnx's Range, with `delta` optional (1). ExpandDims: a 1
//!   inserted at `axis` (in `[-rank-1, rank]`, negative counted from the end of the result).

use super::super::broadcast::Outcome;
use super::super::contract::Contract;
use super::super::ctx::{NodeCtx, Rule};
use super::super::dim::{Dim, Shape};
use super::super::registry::{Registry, registry};
use super::super::sites::{Declared, Kind};
use super::super::value::{Data, ValueInfo};
use super::common::{axis, like, values_if_small};
use super::contract;
use super::support::{dim_of, elem, elem_attr, or_dim, rank_of, scalar_i64};
use crate::proto::tensor_proto::DataType;

pub fn register(r: &mut Registry) {
    r.add(
        "com.microsoft",
        "SkipLayerNormalization",
        1,
        skip_layer_norm,
    );
    r.add(
        "com.microsoft",
        "SkipSimplifiedLayerNormalization",
        1,
        skip_simplified_layer_norm,
    );
    // onnxruntime's own LayerNormalization of the default domain, for opsets before onnx's 17.
    // Its kernel broadcasts scale and bias onto X's whole shape.
    let to_x = Declared::Always(Kind::ToFirst(&[1, 2]));
    r.add_site("", "LayerNormalization", 1, ort_layer_norm, to_x);
    r.add("", "SimplifiedLayerNormalization", 1, ort_layer_norm);
    r.add(
        "com.microsoft",
        "EmbedLayerNormalization",
        1,
        embed_layer_norm,
    );
    r.add(
        "com.microsoft",
        "QEmbedLayerNormalization",
        1,
        qembed_layer_norm,
    );
    r.add("com.microsoft", "GroupNorm", 1, group_norm);
    r.add("com.microsoft", "SkipGroupNorm", 1, group_norm);
    r.add("com.microsoft", "GatedRMSNorm", 1, gated_rms_norm);
    r.add("com.microsoft", "BranchwiseRMSNorm", 1, branchwise_rms_norm);
    r.add("com.microsoft", "TorchEmbedding", 1, torch_embedding);
    r.add("com.microsoft", "WordConvEmbedding", 1, word_conv_embedding);
    r.add("com.microsoft", "Trilu", 1, same_as_first);
    r.add("com.microsoft", "Range", 1, ms_range);
    r.add("com.microsoft", "ExpandDims", 1, expand_dims);
}

const SKIP_LN_SKIP: Contract = Contract::new(
    "skip-layernorm-skip",
    "Skip(Simplified)LayerNormalization's skip: 2-D or 3-D, with the input's \
     last two axes (sequence, hidden) and any batch; the input's shape for a 2-D input",
);
const SKIP_LN_GAMMA: Contract = Contract::new(
    "skip-layernorm-gamma",
    "Skip(Simplified)LayerNormalization's gamma: 1-D, as long as the hidden \
     size (the input's last axis)",
);
const SKIP_LN_BETA: Contract = Contract::new(
    "skip-layernorm-beta",
    "SkipLayerNormalization's beta: 1-D, as long as the hidden size (the input's last axis)",
);
const SKIP_LN_BIAS: Contract = Contract::new(
    "skip-layernorm-bias",
    "Skip(Simplified)LayerNormalization's bias: 1-D, as long as the hidden \
     size (the input's last axis)",
);

fn same_as_first(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![like(ctx, 0, ctx.shape(0))]
}

/// The input's shape with the last axis 1: the per-row statistics of a LayerNorm over the last axis.
fn rows(shape: &Shape) -> Shape {
    shape.as_ref().and_then(|s| {
        let (_, head) = s.split_last()?;
        let mut out = head.to_vec();
        out.push(Dim::Known(1));
        Some(out)
    })
}

/// SkipLayerNormalization(input, skip, gamma, beta?, bias?).
fn skip_layer_norm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    skip_norm(ctx, Some(3), 4)
}

/// SkipSimplifiedLayerNormalization(input, skip, gamma, bias?): no beta.
fn skip_simplified_layer_norm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    skip_norm(ctx, None, 3)
}

fn skip_norm(ctx: &mut NodeCtx<'_>, beta: Option<usize>, bias: usize) -> Vec<ValueInfo> {
    let x = ctx.shape(0);
    check_skip(ctx, &x);
    // The hidden size is the input's last axis, or the skip's, which must equal it: a known skip
    // still checks the parameters when the input's shape is unknown (after a broken contract upstream).
    let hidden = if x.is_some() { 0 } else { 1 };
    contract::last_axis(ctx, hidden, 2, SKIP_LN_GAMMA);
    if let Some(b) = beta
        && ctx.has_input(b)
    {
        contract::last_axis(ctx, hidden, b, SKIP_LN_BETA);
    }
    if ctx.has_input(bias) {
        contract::last_axis(ctx, hidden, bias, SKIP_LN_BIAS);
    }
    let stats = ValueInfo::tensor(elem(DataType::Float), rows(&x));
    vec![
        like(ctx, 0, x.clone()),
        stats.clone(),
        stats,
        like(ctx, 0, x),
    ]
}

/// The skip against the input, as `skip_layer_norm_helper.h` checks it (only for an input of rank 2
/// or 3, the ones the kernel takes).
fn check_skip(ctx: &mut NodeCtx<'_>, x: &Shape) {
    let (Some(x), Some(skip_rank)) = (x.as_ref(), rank_of(ctx, 1)) else {
        return;
    };
    let expected: Vec<Dim> = match (x.as_slice(), skip_rank) {
        ([_, _], _) => x.clone(),
        ([_, s, h], 2) => vec![s.clone(), h.clone()],
        // Any batch: the kernel never compares it (and reads the skip modulo its size).
        ([_, s, h], 3) => vec![Dim::Unknown, s.clone(), h.clone()],
        ([_, _, _], r) => {
            let outcome = Outcome {
                rank_error: Some(format!(
                    "input 1 '{}' has rank {r}, where rank 2 or 3 is needed",
                    ctx.node.input_name(1)
                )),
                ..Outcome::default()
            };
            ctx.report_broadcast(Rule::Contract(SKIP_LN_SKIP), &[0, 1], &outcome);
            return;
        }
        _ => return,
    };
    contract::exact(ctx, 0, 1, &expected, SKIP_LN_SKIP);
}

/// onnxruntime's LayerNormalization (X, Scale, B?) and SimplifiedLayerNormalization (X, scale) of the
/// default domain: Y has X's shape and the scale's type; the statistics X's shape with the axes from
/// `axis` on set to 1, of the `stash_type` type.
fn ort_layer_norm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let x = ctx.shape(0);
    for slot in 1..ctx.num_inputs().min(3) {
        if ctx.has_input(slot) {
            let outcome = super::super::broadcast::unidirectional(&x, &ctx.shape(slot));
            ctx.report_broadcast(Rule::Unidirectional, &[0, slot], &outcome);
        }
    }
    let axis_attr = ctx.attr_i("axis").unwrap_or(-1);
    let stats: Shape = x.as_ref().and_then(|dims| {
        // onnxruntime's inference takes axis in [-rank, rank).
        let a = axis(axis_attr, dims.len())?;
        Some(
            dims.iter()
                .enumerate()
                .map(|(i, d)| if i < a { d.clone() } else { Dim::Known(1) })
                .collect(),
        )
    });
    let stash = elem_attr(ctx, "stash_type").or(elem(DataType::Float));
    let y = ValueInfo::tensor(ctx.elem(1).or(ctx.elem(0)), x);
    let mut out = vec![y];
    for _ in 1..ctx.num_outputs() {
        out.push(ValueInfo::tensor(stash, stats.clone()));
    }
    out
}

const EMBED_IDS: Contract = Contract::new(
    "embed-layernorm-segment-ids-mask",
    "EmbedLayerNormalization's segment_ids and mask: input_ids' shape (batch, sequence)",
);
const EMBED_TABLE: Contract = Contract::new(
    "embed-layernorm-embeddings",
    "EmbedLayerNormalization's position and segment embeddings: 2-D, (rows, \
     hidden size), the hidden size the word embedding's",
);
const EMBED_GAMMA: Contract = Contract::new(
    "embed-layernorm-gamma-beta",
    "EmbedLayerNormalization's gamma and beta: 1-D, as long as the hidden size \
     (the word embedding's second axis)",
);
const EMBED_POSITION_IDS: Contract = Contract::new(
    "embed-layernorm-position-ids",
    "EmbedLayerNormalization's position_ids: (1 or batch, sequence), input_ids' sequence",
);

/// The shared checks and outputs of EmbedLayerNormalization and QEmbedLayerNormalization over their
/// first eight inputs (input_ids, segment_ids?, word, position and segment? embeddings, gamma, beta,
/// mask?). Returns (batch, sequence, hidden).
fn embed_common(ctx: &mut NodeCtx<'_>) -> (Dim, Dim, Dim) {
    let ids = match ctx.shape(0) {
        Some(s) if s.len() == 2 => Some(s),
        _ => None,
    };
    if let Some(ids) = &ids {
        for slot in [1, 7] {
            if ctx.has_input(slot) {
                contract::exact(ctx, 0, slot, ids, EMBED_IDS);
            }
        }
    }
    let hidden = dim_of(ctx, 2, 2, 1);
    if rank_of(ctx, 2) == Some(2) {
        for slot in [3, 4] {
            if ctx.has_input(slot) {
                contract::exact(ctx, 2, slot, &[Dim::Unknown, hidden.clone()], EMBED_TABLE);
            }
        }
        for slot in [5, 6] {
            if ctx.has_input(slot) {
                contract::exact(ctx, 2, slot, std::slice::from_ref(&hidden), EMBED_GAMMA);
            }
        }
    }
    let hidden = or_dim(
        hidden,
        or_dim(
            dim_of(ctx, 3, 2, 1),
            or_dim(dim_of(ctx, 5, 1, 0), dim_of(ctx, 6, 1, 0)),
        ),
    );
    let (batch, seq) = match &ids {
        Some(s) => (s[0].clone(), s[1].clone()),
        None => (Dim::Unknown, Dim::Unknown),
    };
    (batch, seq, hidden)
}

/// EmbedLayerNormalization(input_ids, segment_ids?, word_embedding, position_embedding,
/// segment_embedding?, gamma, beta, mask?, position_ids?) -> output, mask_index, embedding_sum?.
fn embed_layer_norm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (batch, seq, hidden) = embed_common(ctx);
    // position_ids: the kernel compares its sequence with input_ids' and wants its batch 1 or B.
    if rank_of(ctx, 0) == Some(2)
        && let Some([_, p1]) = ctx.shape(8).as_deref()
    {
        contract::exact(ctx, 0, 8, &[Dim::Unknown, seq.clone()], EMBED_POSITION_IDS);
        let target = [batch.clone(), p1.clone()];
        contract::onto(ctx, 0, 8, &target, true, EMBED_POSITION_IDS);
    }
    let out = Some(vec![batch.clone(), seq, hidden]);
    vec![
        like(ctx, 2, out.clone()),
        like(ctx, 0, Some(vec![batch])),
        like(ctx, 2, out),
    ]
}

/// QEmbedLayerNormalization: EmbedLayerNormalization's first eight inputs quantized, then their
/// scales (8..13) and zero points (13..18); the output has the scales' float type.
fn qembed_layer_norm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (batch, seq, hidden) = embed_common(ctx);
    let float = ctx.elem(8).or(elem(DataType::Float));
    vec![
        ValueInfo::tensor(float, Some(vec![batch.clone(), seq, hidden])),
        like(ctx, 0, Some(vec![batch])),
    ]
}

const GN_PARAM: Contract = Contract::new(
    "groupnorm-params",
    "GroupNorm's gamma, beta and bias: 1-D, as long as the channel count (C of NHWC, or of NCHW)",
);
const GN_GROUPS: Contract = Contract::new(
    "groupnorm-groups",
    "GroupNorm's groups: a divisor of the channel count",
);
const GN_SKIP: Contract = Contract::new(
    "skip-groupnorm-skip",
    "SkipGroupNorm's skip: the input's shape, (N, 1, 1, C) or (N, C)",
);

/// GroupNorm(X, gamma, beta) and SkipGroupNorm(X, gamma, beta, skip, bias?): outputs of X's shape
/// (SkipGroupNorm's second, the sum, too).
fn group_norm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let x = ctx.shape(0);
    let channels_last = ctx.attr_i("channels_last").unwrap_or(1) != 0;
    if let Some(dims) = x.as_ref().filter(|d| d.len() == 4) {
        let c = if channels_last {
            dims[3].clone()
        } else {
            dims[1].clone()
        };
        for slot in [1, 2, 4] {
            if ctx.has_input(slot) {
                contract::exact(ctx, 0, slot, std::slice::from_ref(&c), GN_PARAM);
            }
        }
        if let (Dim::Known(channels), Some(groups)) = (&c, ctx.attr_i("groups"))
            && groups > 0
            && channels % groups as u64 != 0
        {
            let reason = format!("{channels} channels are not divisible by groups = {groups}");
            let outcome = Outcome {
                rank_error: Some(reason),
                ..Outcome::default()
            };
            ctx.report_broadcast(Rule::Contract(GN_GROUPS), &[0], &outcome);
        }
        if ctx.op_type() == "SkipGroupNorm" && channels_last {
            match ctx.shape(3).as_deref() {
                Some([_, _]) => contract::exact(ctx, 0, 3, &[dims[0].clone(), c], GN_SKIP),
                Some([_, Dim::Known(1), Dim::Known(1), _]) => {
                    let expected = [dims[0].clone(), Dim::Known(1), Dim::Known(1), c];
                    contract::exact(ctx, 0, 3, &expected, GN_SKIP);
                }
                Some(_) => contract::exact(ctx, 0, 3, dims, GN_SKIP),
                None => {}
            }
        }
    }
    vec![like(ctx, 0, x.clone()), like(ctx, 0, x)]
}

/// Reports a definite violation of contract `what` between inputs `source` and `operand`, explained
/// by `reason` (a condition the algebra of one axis cannot state: a divisibility, one of several
/// shapes).
fn refuse(ctx: &mut NodeCtx<'_>, source: usize, operand: usize, reason: String, what: Contract) {
    let outcome = Outcome {
        rank_error: Some(reason),
        ..Outcome::default()
    };
    ctx.report_broadcast(Rule::Contract(what), &[source, operand], &outcome);
}

const GATED_GATE: Contract = Contract::new(
    "gated-rmsnorm-gate",
    "GatedRMSNorm's gate: the input's shape",
);
const GATED_SCALE: Contract = Contract::new(
    "gated-rmsnorm-scale",
    "GatedRMSNorm's scale: C elements, C dividing the input's last axis (groups of C normalized)",
);

/// GatedRMSNorm(X, scale, gate): Y of X's shape. The kernel (`linear_attention_gates.cc`) wants the
/// gate of X's shape and X's last axis a multiple of the scale's element count (of any rank).
fn gated_rms_norm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let x = ctx.shape(0);
    if let Some(dims) = &x {
        contract::exact(ctx, 0, 2, dims, GATED_GATE);
        let last = dims.last().and_then(Dim::known);
        let scale = ctx
            .shape(1)
            .and_then(|s| s.iter().map(Dim::known).product::<Option<u64>>());
        if let (Some(l), Some(c)) = (last, scale)
            && (c == 0 || l % c != 0)
        {
            let reason =
                format!("the input's last axis {l} is not a multiple of the scale's {c} elements");
            refuse(ctx, 0, 1, reason, GATED_SCALE);
        }
    }
    vec![like(ctx, 0, x)]
}

const BRANCH_SCALE: Contract = Contract::new(
    "branchwise-rmsnorm-scale",
    "BranchwiseRMSNorm's scale: (H), (C * H) or (C, H), for C branches of H each \
     (the input's (..., C, H), or (..., C * H) with num_branches C)",
);
const BRANCH_INPUT: Contract = Contract::new(
    "branchwise-rmsnorm-input",
    "BranchwiseRMSNorm's input: (..., C * H) with the last axis divisible by num_branches",
);

/// BranchwiseRMSNorm(X, scale?): Y of X's shape and type. The kernel (`hyper_connection_helper.h`)
/// takes X grouped `(..., C, H)` (num_branches 0) or flattened `(..., C * H)` (num_branches C), and a
/// scale of `(H)`, `(C * H)` or `(C, H)`.
fn branchwise_rms_norm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let x = ctx.shape(0);
    let branches = ctx.attr_i("num_branches").unwrap_or(0);
    let split: Option<(Dim, Dim)> = match (x.as_deref(), branches) {
        (Some([.., c, h]), 0) => Some((c.clone(), h.clone())),
        (Some([.., last]), b) if b > 0 => {
            let b = b as u64;
            if let Dim::Known(l) = last
                && l % b != 0
            {
                let reason = format!("the last axis {l} is not divisible by num_branches {b}");
                let outcome = Outcome {
                    rank_error: Some(reason),
                    ..Outcome::default()
                };
                ctx.report_broadcast(Rule::Contract(BRANCH_INPUT), &[0], &outcome);
                None
            } else {
                Some((Dim::Known(b), super::common::div_exact(last, b)))
            }
        }
        _ => None,
    };
    if let (Some((c, h)), Some(scale)) = (split, ctx.shape(1)) {
        match scale.as_slice() {
            [_, _] => contract::exact(ctx, 0, 1, &[c, h], BRANCH_SCALE),
            [Dim::Known(n)] => {
                let whole = super::common::mul(&c, &h);
                if let (Dim::Known(hk), Dim::Known(wk)) = (&h, &whole)
                    && *n != *hk
                    && *n != *wk
                {
                    let reason = format!("a 1-D scale of {n} is neither H = {hk} nor C * H = {wk}");
                    refuse(ctx, 0, 1, reason, BRANCH_SCALE);
                }
            }
            [_] => {}
            other => {
                let reason = format!(
                    "the scale has rank {}, where it needs rank 1 or 2",
                    other.len()
                );
                refuse(ctx, 0, 1, reason, BRANCH_SCALE);
            }
        }
    }
    vec![like(ctx, 0, x)]
}

/// TorchEmbedding(weight `[N, M]`, indices, padding_idx?, scale_grad_by_freq?): `indices.shape + [M]`
/// of the weight's type.
fn torch_embedding(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = ctx.shape(1).map(|mut s| {
        s.push(dim_of(ctx, 0, 2, 1));
        s
    });
    vec![like(ctx, 0, shape)]
}

const WORD_CONV_CHARS: Contract = Contract::new(
    "word-conv-embedding-chars",
    "WordConvEmbedding's char embedding C: (chars, char embedding size), the size \
     the conv weight W's last axis (filters, 1, window, char embedding size)",
);

/// WordConvEmbedding(Sequence `[words, word_length]`, W `[filters, 1, window, char_size]`, B
/// `[filters]`, C `[chars, char_size]`): `[words, filters]` of the weights' float type. The kernel
/// wants C's second axis equal to W's last.
fn word_conv_embedding(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    // Only a 2-D C: the kernel reads C's axis 1 of any rank (a `[chars, size, 1]` runs).
    if rank_of(ctx, 1) == Some(4) && rank_of(ctx, 3) == Some(2) {
        let char_size = dim_of(ctx, 1, 4, 3);
        contract::exact(ctx, 1, 3, &[Dim::Unknown, char_size], WORD_CONV_CHARS);
    }
    let words = match ctx.shape(0) {
        Some(s) if s.len() >= 2 => s[0].clone(),
        _ => Dim::Unknown,
    };
    let filters = or_dim(dim_of(ctx, 1, 4, 0), dim_of(ctx, 2, 1, 0));
    let float = ctx.elem(1).or(ctx.elem(3));
    vec![ValueInfo::tensor(float, Some(vec![words, filters]))]
}

/// Range(start, limit, delta?): onnx's Range (the rule of the default domain), with delta 1 when
/// omitted.
fn ms_range(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let Some(rule) = registry().lookup("", "Range", 11) else {
        return vec![];
    };
    if ctx.has_input(2) {
        return rule(ctx);
    }
    let e = ctx.elem(0).or(ctx.elem(1));
    let one = if super::super::value::is_float_elem(e) {
        ValueInfo::tensor(e, Some(vec![])).with_values(Some(Data::Floats(vec![1.0].into())))
    } else {
        ValueInfo::tensor(e, Some(vec![])).with_data(Some(vec![Dim::Known(1)]))
    };
    let inputs: Vec<Option<&ValueInfo>> = vec![ctx.input(0), ctx.input(1), Some(&one)];
    let mut sub = crate::shape::ctx::no_subgraphs;
    let mut inner = NodeCtx {
        node: ctx.node,
        label: ctx.label,
        opset: 11,
        inputs: &inputs,
        findings: Vec::new(),
        facts: ctx.facts,
        ranges: ctx.ranges,
        conditions: ctx.conditions,
        subgraph: &mut sub,
    };
    let out = rule(&mut inner);
    let findings = inner.findings;
    ctx.findings.extend(findings);
    out
}

/// ExpandDims(X, axis): X with a 1 inserted at `axis` (a scalar int32 input).
fn expand_dims(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape: Shape = match (ctx.shape(0), scalar_i64(ctx, 1)) {
        // The kernel takes axis in [-rank-1, rank], a negative one counted from the end of the
        // result (-1 appends): an axis of the result.
        (Some(dims), Some(a)) => axis(a, dims.len() + 1).map(|a| {
            let mut out = dims;
            out.insert(a, Dim::Known(1));
            out
        }),
        (Some(dims), None) => Some(vec![Dim::Unknown; dims.len() + 1]),
        _ => None,
    };
    let data = values_if_small(&shape, ctx.values(0).cloned());
    vec![like(ctx, 0, shape).with_values(data)]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;
    use crate::shape::dim::format_shape;

    const F16: Option<i32> = Some(DataType::Float16 as i32);
    const I32: Option<i32> = Some(DataType::Int32 as i32);

    fn text(v: &ValueInfo) -> String {
        format_shape(&v.shape)
    }

    #[test]
    fn skip_layer_norm_outputs() {
        let n = node("SkipLayerNormalization", 5, 4, vec![]);
        let inputs = [
            t(F16, &["B", "S", "768"]),
            t(F16, &["1", "S", "768"]),
            t(F16, &["768"]),
            t(F16, &["768"]),
            t(F16, &["768"]),
        ];
        assert!(codes_at(skip_layer_norm, &n, 1, &inputs).is_empty());
        let out = run(skip_layer_norm, &n, 1, &inputs);
        assert_eq!(text(&out[0]), "[B, S, 768]");
        assert_eq!(out[0].elem, F16);
        assert_eq!(text(&out[1]), "[B, S, 1]");
        assert_eq!(out[1].elem, Some(DataType::Float as i32));
        assert_eq!(text(&out[2]), "[B, S, 1]");
        assert_eq!(text(&out[3]), "[B, S, 768]");
        assert_eq!(out[3].elem, F16);
        // A 2-D input: (tokens, hidden).
        let n = node("SkipSimplifiedLayerNormalization", 3, 4, vec![]);
        let inputs = [t(F32, &["T", "64"]), t(F32, &["T", "64"]), t(F32, &["64"])];
        assert!(codes_at(skip_simplified_layer_norm, &n, 1, &inputs).is_empty());
        let out = run(skip_simplified_layer_norm, &n, 1, &inputs);
        assert_eq!(text(&out[1]), "[T, 1]");
    }

    #[test]
    fn skip_shapes_onnxruntime_takes() {
        let n = node("SkipLayerNormalization", 3, 1, vec![]);
        for skip in [
            &["2", "3", "8"][..],
            &["1", "3", "8"],
            &["5", "3", "8"],
            &["3", "8"],
        ] {
            let inputs = [t(F32, &["2", "3", "8"]), t(F32, skip), t(F32, &["8"])];
            assert!(
                codes_at(skip_layer_norm, &n, 1, &inputs).is_empty(),
                "{skip:?}"
            );
        }
    }

    #[test]
    fn skip_and_parameter_faults() {
        let n = node("SkipLayerNormalization", 5, 1, vec![]);
        let x = || t(F32, &["2", "3", "8"]);
        let one = |inputs: &[Option<ValueInfo>]| {
            let c = codes_at(skip_layer_norm, &n, 1, inputs);
            assert_eq!(c.len(), 1, "{c:?}");
            assert!(
                c[0].starts_with(
                    "E2 'n' (SkipLayerNormalization) breaks the contract skip-layernorm-"
                ),
                "{c:?}"
            );
            c[0].clone()
        };
        let c = one(&[x(), t(F32, &["2", "4", "8"]), t(F32, &["8"])]);
        assert!(
            c.contains("the contract skip-layernorm-skip: ") && c.ends_with("here axis -2: 3 vs 4"),
            "{c}"
        );
        let c = one(&[x(), t(F32, &["8"]), t(F32, &["8"])]);
        assert!(
            c.contains("the contract skip-layernorm-skip: ")
                && c.ends_with("here input 1 'i1' has rank 1, where rank 2 or 3 is needed"),
            "{c}"
        );
        let c = one(&[x(), x(), t(F32, &["7"])]);
        assert!(c.contains("the contract skip-layernorm-gamma: "), "{c}");
        let c = one(&[x(), x(), t(F32, &["8"]), t(F32, &["7"])]);
        assert!(c.contains("the contract skip-layernorm-beta: "), "{c}");
        let c = one(&[x(), x(), t(F32, &["8"]), None, t(F32, &["9"])]);
        assert!(c.contains("the contract skip-layernorm-bias: "), "{c}");
        // A 2-D input takes only a skip of its own shape.
        let c = one(&[t(F32, &["6", "8"]), t(F32, &["1", "8"]), t(F32, &["8"])]);
        assert!(c.contains("the contract skip-layernorm-skip: "), "{c}");
        // Symbolic: a condition.
        let c = codes_at(
            skip_layer_norm,
            &n,
            1,
            &[
                t(F32, &["b", "s", "8"]),
                t(F32, &["b", "t", "8"]),
                t(F32, &["8"]),
            ],
        );
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(
            c[0].starts_with(
                "W2 'n' (SkipLayerNormalization) meets the contract skip-layernorm-skip only under a \
                 condition: "
            ),
            "{c:?}"
        );
        // SkipSimplifiedLayerNormalization's bias is input 3.
        let n = node("SkipSimplifiedLayerNormalization", 4, 1, vec![]);
        let c = codes_at(
            skip_simplified_layer_norm,
            &n,
            1,
            &[x(), x(), t(F32, &["8"]), t(F32, &["7"])],
        );
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(c[0].contains("bias"), "{c:?}");
    }

    #[test]
    fn onnxruntime_layer_norm_of_the_default_domain() {
        let n = node("LayerNormalization", 3, 3, vec![attr_i("axis", 1)]);
        let inputs = [
            t(F32, &["B", "S", "8"]),
            t(F16, &["S", "8"]),
            t(F16, &["1", "8"]),
        ];
        assert!(codes_at(ort_layer_norm, &n, 13, &inputs).is_empty());
        let out = run(ort_layer_norm, &n, 13, &inputs);
        assert_eq!(text(&out[0]), "[B, S, 8]");
        // Y has the scale's type.
        assert_eq!(out[0].elem, F16);
        assert_eq!(text(&out[1]), "[B, 1, 1]");
        assert_eq!(out[1].elem, Some(DataType::Float as i32));
        let n = node("LayerNormalization", 2, 2, vec![attr_i("stash_type", 11)]);
        let out = run(
            ort_layer_norm,
            &n,
            13,
            &[t(F32, &["2", "8"]), t(F32, &["8"])],
        );
        assert_eq!(out[1].elem, Some(DataType::Double as i32));
        assert_eq!(text(&out[1]), "[2, 1]");
        // An axis out of range: statistics unknown.
        let n = node("LayerNormalization", 2, 2, vec![attr_i("axis", -5)]);
        let out = run(
            ort_layer_norm,
            &n,
            13,
            &[t(F32, &["2", "8"]), t(F32, &["8"])],
        );
        assert_eq!(out[1].shape, None);
        // A scale of the wrong length, or of a rank above X's.
        let n = node("SimplifiedLayerNormalization", 2, 1, vec![]);
        for scale in [&["7"][..], &["4", "8"], &["1", "2", "3", "8"]] {
            let c = codes_at(
                ort_layer_norm,
                &n,
                1,
                &[t(F32, &["2", "3", "8"]), t(F32, scale)],
            );
            assert_eq!(c.len(), 1, "{scale:?} {c:?}");
            assert!(c[0].starts_with("E1 "), "{c:?}");
        }
        // The registry: onnxruntime's rule before 17 (Y of the scale's type), onnx's from 17.
        let r = registry();
        let n = node("LayerNormalization", 2, 1, vec![]);
        let mixed = [t(F32, &["2", "8"]), t(F16, &["8"])];
        let y = |opset: i64| {
            let rule = r.lookup("", "LayerNormalization", opset).expect("a rule");
            run(rule, &n, opset, &mixed)[0].elem
        };
        assert_eq!(y(13), F16);
        assert_eq!(y(17), F32);
        assert!(r.lookup("", "SimplifiedLayerNormalization", 21).is_some());
    }

    fn embed_inputs(segment_ids: &[&str], gamma: &[&str]) -> Vec<Option<ValueInfo>> {
        vec![
            t(I32, &["B", "S"]),
            t(I32, segment_ids),
            t(F32, &["30522", "768"]),
            t(F32, &["512", "768"]),
            t(F32, &["2", "768"]),
            t(F32, gamma),
            t(F32, &["768"]),
            t(I32, &["B", "S"]),
        ]
    }

    #[test]
    fn embed_layer_norm_outputs_and_contracts() {
        let n = node("EmbedLayerNormalization", 8, 3, vec![]);
        let inputs = embed_inputs(&["B", "S"], &["768"]);
        assert!(codes_at(embed_layer_norm, &n, 1, &inputs).is_empty());
        let out = run(embed_layer_norm, &n, 1, &inputs);
        assert_eq!(text(&out[0]), "[B, S, 768]");
        assert_eq!(out[0].elem, F32);
        assert_eq!(text(&out[1]), "[B]");
        assert_eq!(out[1].elem, I32);
        assert_eq!(text(&out[2]), "[B, S, 768]");
        let c = codes_at(
            embed_layer_norm,
            &n,
            1,
            &embed_inputs(&["B", "S"], &["512"]),
        );
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(
            c[0].starts_with(
                "E2 'n' (EmbedLayerNormalization) breaks the contract embed-layernorm-gamma-beta: "
            ) && c[0].contains("gamma")
                && c[0].ends_with("here axis -1: 768 vs 512"),
            "{c:?}"
        );
        let c = codes_at(
            embed_layer_norm,
            &n,
            1,
            &embed_inputs(&["B", "T"], &["768"]),
        );
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(
            c[0].starts_with(
                "W2 'n' (EmbedLayerNormalization) meets the contract \
                 embed-layernorm-segment-ids-mask only under a condition: "
            ) && c[0].contains("S vs T"),
            "{c:?}"
        );
        // position_ids: (1 or B, S).
        let n = node("EmbedLayerNormalization", 9, 3, vec![]);
        let mut inputs = embed_inputs(&["B", "S"], &["768"]);
        inputs.push(t(I32, &["1", "S"]));
        assert!(codes_at(embed_layer_norm, &n, 1, &inputs).is_empty());
        inputs[8] = t(I32, &["3", "S"]);
        let c = codes_at(embed_layer_norm, &n, 1, &inputs);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(
            c[0].starts_with(
                "W2 'n' (EmbedLayerNormalization) meets the contract embed-layernorm-position-ids \
                 only under a condition: "
            ),
            "{c:?}"
        );
        // Quantized: the scales' float type.
        let n = node("QEmbedLayerNormalization", 18, 2, vec![]);
        let mut inputs = embed_inputs(&["B", "S"], &["768"]);
        inputs.extend((0..10).map(|_| t(F32, &[])));
        let out = run(qembed_layer_norm, &n, 1, &inputs);
        assert_eq!(text(&out[0]), "[B, S, 768]");
        assert_eq!(out[0].elem, F32);
        assert_eq!(text(&out[1]), "[B]");
    }

    #[test]
    fn group_norms() {
        let n = node(
            "GroupNorm",
            3,
            1,
            vec![attr_i("groups", 32), attr_i("activation", 1)],
        );
        let inputs = [
            t(F16, &["N", "H", "W", "320"]),
            t(F32, &["320"]),
            t(F32, &["320"]),
        ];
        assert!(codes_at(group_norm, &n, 1, &inputs).is_empty());
        let out = run(group_norm, &n, 1, &inputs);
        assert_eq!(text(&out[0]), "[N, H, W, 320]");
        assert_eq!(out[0].elem, F16);
        let bad = [
            t(F16, &["N", "H", "W", "320"]),
            t(F32, &["640"]),
            t(F32, &["320"]),
        ];
        let c = codes_at(group_norm, &n, 1, &bad);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(
            c[0].starts_with("E2 'n' (GroupNorm) breaks the contract groupnorm-params: ")
                && c[0].ends_with("here axis -1: 320 vs 640"),
            "{c:?}"
        );
        let n = node("GroupNorm", 3, 1, vec![attr_i("groups", 3)]);
        let c = codes_at(group_norm, &n, 1, &inputs);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(
            c[0].starts_with("E2 'n' (GroupNorm) breaks the contract groupnorm-groups: ")
                && c[0].contains("divisible"),
            "{c:?}"
        );
        // NCHW: the channels are axis 1.
        let n = node("GroupNorm", 3, 1, vec![attr_i("channels_last", 0)]);
        let inputs = [
            t(F16, &["N", "320", "H", "W"]),
            t(F32, &["320"]),
            t(F32, &["320"]),
        ];
        assert!(codes_at(group_norm, &n, 1, &inputs).is_empty());
        // SkipGroupNorm's skips: the input's shape, (N, 1, 1, C) or (N, C).
        let n = node("SkipGroupNorm", 5, 2, vec![attr_i("groups", 32)]);
        let x = || t(F16, &["N", "H", "W", "64"]);
        for skip in [
            &["N", "H", "W", "64"][..],
            &["N", "1", "1", "64"],
            &["N", "64"],
        ] {
            let inputs = [
                x(),
                t(F32, &["64"]),
                t(F32, &["64"]),
                t(F16, skip),
                t(F16, &["64"]),
            ];
            assert!(codes_at(group_norm, &n, 1, &inputs).is_empty(), "{skip:?}");
            let out = run(group_norm, &n, 1, &inputs);
            assert_eq!(text(&out[1]), "[N, H, W, 64]");
        }
        for skip in [&["N", "1", "1", "32"][..], &["N", "32"], &["64"]] {
            let inputs = [x(), t(F32, &["64"]), t(F32, &["64"]), t(F16, skip)];
            let c = codes_at(group_norm, &n, 1, &inputs);
            assert_eq!(c.len(), 1, "{skip:?} {c:?}");
            assert!(
                c[0].starts_with(
                    "E2 'n' (SkipGroupNorm) breaks the contract skip-groupnorm-skip: "
                ),
                "{c:?}"
            );
        }
        let inputs = [x(), t(F32, &["64"]), t(F32, &["64"]), x(), t(F16, &["32"])];
        assert_eq!(codes_at(group_norm, &n, 1, &inputs).len(), 1);
    }

    #[test]
    fn gated_and_branchwise_rms_norms() {
        let n = node("GatedRMSNorm", 3, 1, vec![]);
        let x = || t(F16, &["B", "T", "64"]);
        let out = run(gated_rms_norm, &n, 1, &[x(), t(F16, &["16"]), x()]);
        assert_eq!(text(&out[0]), "[B, T, 64]");
        assert_eq!(out[0].elem, F16);
        assert!(codes_at(gated_rms_norm, &n, 1, &[x(), t(F16, &["1", "16"]), x()]).is_empty());
        for (scale, gate) in [
            (&["12"][..], &["B", "T", "64"][..]),
            (&["16"], &["B", "T", "32"]),
        ] {
            let c = codes_at(gated_rms_norm, &n, 1, &[x(), t(F16, scale), t(F16, gate)]);
            assert_eq!(c.len(), 1, "{c:?}");
            assert!(
                c[0].starts_with("E2 'n' (GatedRMSNorm) breaks the contract gated-rmsnorm-"),
                "{c:?}"
            );
        }
        let n = node("BranchwiseRMSNorm", 2, 1, vec![]);
        let x = || t(F32, &["B", "4", "8"]);
        for scale in [&["8"][..], &["32"], &["4", "8"]] {
            assert!(
                codes_at(branchwise_rms_norm, &n, 1, &[x(), t(F32, scale)]).is_empty(),
                "{scale:?}"
            );
        }
        for scale in [&["5"][..], &["8", "4"], &["1", "4", "8"]] {
            // A transposed (H, C) scale conflicts on both axes.
            let c = codes_at(branchwise_rms_norm, &n, 1, &[x(), t(F32, scale)]);
            assert!(!c.is_empty(), "{scale:?}");
            assert!(
                c.iter().all(|c| c.starts_with(
                    "E2 'n' (BranchwiseRMSNorm) breaks the contract branchwise-rmsnorm-scale: "
                )),
                "{c:?}"
            );
        }
        let n = node("BranchwiseRMSNorm", 2, 1, vec![attr_i("num_branches", 4)]);
        assert!(
            codes_at(
                branchwise_rms_norm,
                &n,
                1,
                &[t(F32, &["B", "32"]), t(F32, &["4", "8"])]
            )
            .is_empty()
        );
        let c = codes_at(
            branchwise_rms_norm,
            &n,
            1,
            &[t(F32, &["B", "30"]), t(F32, &["8"])],
        );
        assert_eq!(c.len(), 1, "{c:?}");
        let out = run(branchwise_rms_norm, &n, 1, &[t(F32, &["B", "S"])]);
        assert_eq!(text(&out[0]), "[B, S]");
    }

    #[test]
    fn embeddings() {
        let n = node("TorchEmbedding", 2, 1, vec![]);
        let out = run(
            torch_embedding,
            &n,
            1,
            &[t(F16, &["50257", "768"]), t(I64, &["B", "S"])],
        );
        assert_eq!(text(&out[0]), "[B, S, 768]");
        assert_eq!(out[0].elem, F16);
        let n = node("WordConvEmbedding", 4, 1, vec![]);
        let inputs = [
            t(I32, &["W", "L"]),
            t(F32, &["100", "1", "3", "16"]),
            t(F32, &["100"]),
            t(F32, &["256", "16"]),
        ];
        assert!(codes_at(word_conv_embedding, &n, 1, &inputs).is_empty());
        let out = run(word_conv_embedding, &n, 1, &inputs);
        assert_eq!(text(&out[0]), "[W, 100]");
        assert_eq!(out[0].elem, F32);
        let mut bad = inputs.to_vec();
        bad[3] = t(F32, &["256", "15"]);
        let c = codes_at(word_conv_embedding, &n, 1, &bad);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(
            c[0].starts_with(
                "E2 'n' (WordConvEmbedding) breaks the contract word-conv-embedding-chars: "
            ) && c[0].ends_with("here axis -1: 16 vs 15"),
            "{c:?}"
        );
    }

    #[test]
    fn trilu_range_expand_dims() {
        let n = node("Trilu", 1, 1, vec![]);
        assert_eq!(
            out_shape(same_as_first, &n, 1, &[t(F32, &["B", "3", "4"])]),
            shape(&["B", "3", "4"])
        );
        // Range without delta counts by 1.
        let n = node("Range", 2, 1, vec![]);
        let out = run(ms_range, &n, 1, &[int(2), int(7)]);
        assert_eq!(text(&out[0]), "[5]");
        let n = node("Range", 3, 1, vec![]);
        let out = run(ms_range, &n, 1, &[int(0), int(7), int(2)]);
        assert_eq!(text(&out[0]), "[4]");
        let n = node("ExpandDims", 2, 1, vec![]);
        let x = || t(F32, &["2", "S"]);
        let axis = |a: i64| {
            Some(
                ValueInfo::tensor(I32, Some(vec![]))
                    .with_data(Some(vec![crate::shape::value::from_i64(a)])),
            )
        };
        for (a, want) in [
            (0, "[1, 2, S]"),
            (2, "[2, S, 1]"),
            (-1, "[2, S, 1]"),
            (-3, "[1, 2, S]"),
        ] {
            assert_eq!(
                text(&run(expand_dims, &n, 1, &[x(), axis(a)])[0]),
                want,
                "{a}"
            );
        }
        for a in [3, -4] {
            assert_eq!(
                run(expand_dims, &n, 1, &[x(), axis(a)])[0].shape,
                None,
                "{a}"
            );
        }
        assert_eq!(
            text(&run(expand_dims, &n, 1, &[x(), t(I32, &[])])[0]),
            "[?, ?, ?]"
        );
        // Values of a small tensor go through.
        let out = run(expand_dims, &n, 1, &[ints(&[4, 5]), axis(0)]);
        assert_eq!(text(&out[0]), "[1, 2]");
        assert!(out[0].data.is_some());
    }

    #[test]
    fn no_rule_panics() {
        let mut r = Registry::default();
        register(&mut r);
        let huge = Dim::Known(u64::MAX);
        let sets: Vec<Vec<Option<ValueInfo>>> = vec![
            vec![],
            vec![None; 18],
            vec![t(F32, &[]); 18],
            vec![t(F32, &["1", "2", "3", "4", "5"]); 18],
            vec![Some(ValueInfo::tensor(F32, Some(vec![huge.clone(), d("N")]))); 18],
            vec![
                int(i64::MIN),
                int(i64::MAX),
                int(0),
                t(I32, &["?"]),
                ints(&[]),
            ],
            vec![ints(&[1, 2]), int(i64::MAX)],
        ];
        let attrs = [
            vec![],
            vec![
                attr_i("axis", i64::MIN),
                attr_i("stash_type", -1),
                attr_i("channels_last", 0),
            ],
            vec![
                attr_i("axis", i64::MAX),
                attr_i("stash_type", i64::MAX),
                attr_i("groups", 0),
            ],
        ];
        let mut ops: Vec<(&str, &str)> = r.ops().collect();
        ops.sort();
        for (domain, op) in ops {
            let rule = r.lookup(domain, op, 1).expect("registered at 1");
            for a in &attrs {
                for inputs in &sets {
                    for outputs in [0, 1, 4] {
                        run(rule, &node(op, inputs.len(), outputs, a.clone()), 1, inputs);
                    }
                }
            }
        }
    }
}
