//! onnxruntime's contrib tensor operators (domain `com.microsoft`, version 1 each) that mirror or extend
//! standard ones: Pad (pads as an input), GatherND, GridSample, CropAndResize, Unique, CDist,
//! UnfoldTensor, MurmurHash3, ScaledSiLU, GatedAdd, BitmaskDropout, IsAllFinite, the pools and
//! convolutions MaxpoolWithMask, NhwcMaxPool, NhwcFusedConv and ConvTransposeWithDynamicPads, the
//! decoding helpers NGramRepeatBlock and BifurcationDetector, RemovePadding/RestorePadding, and
//! SampleOp.
//!
//! Spec: <https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md>
//! (`#com.microsoft.Pad` and so on); shape inference in onnxruntime's
//! `core/graph/contrib_ops/contrib_defs.cc`, `bert_defs.cc` and `nhwc_schema_defs.cc`. Each has one
//! version (since 1).
//!
//! What onnxruntime's CPU kernels enforce, and what is checked here (as contract findings):
//! - Pad: `pads` is `[2 * rank]` or `[1, 2 * rank]` ("Pads tensor size should be equal to twice the
//!   input dimension count").
//! - GridSample: X is 4-D and the grid `(N, H_out, W_out, 2)` of X's batch.
//! - CropAndResize: X is 4-D, `rois` `(num_rois, 4)` and `batch_indices` `(num_rois)`.
//! - CDist: A `(M, N)` and B `(K, N)` share N.
//! - GatedAdd: Y has X's shape and the gate is X's shape with a last axis of 1.
//! - NGramRepeatBlock: `input_ids` and `scores` share the batch.
//! - ScaledSiLU: the scale is a scalar ("scale must be a scalar"; `[1]` is refused too).
//! - Unique: x is 1-D; CDist: A is 2-D.
//! - ConvTransposeWithDynamicPads: W's first axis is X's channels ("filter number not equal to input
//!   channel num"), and the pads are two per spatial axis.
//!
//! Not runnable on onnxruntime's CPU provider (no CPU kernel): BitmaskDropout, IsAllFinite (CUDA,
//! training), RemovePadding, RestorePadding (CUDA), NhwcFusedConv (fp16, only where MLAS has fp16
//! vector intrinsics, not on x86-64). Their rules follow the schema text and are covered by the unit
//! tests below; onnxruntime's own shape inference at load time (the sizes it reports when they clash
//! with a declared output) agrees with them on RemovePadding, RestorePadding, NhwcFusedConv,
//! IsAllFinite and BitmaskDropout's output (it infers no size for the packed mask).

use super::super::contract::Contract;
use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::{Data, ValueInfo};
use super::common::{add, axis, like, product, shift};
use super::contract;
use super::conv_pool::{conv_of, conv_transpose, pool};
use super::indexing::gather_nd;
use super::shape_ops::padded;
use super::support::{dim_at, dim_of, elem, rank_of, scalar};
use crate::proto::tensor_proto::DataType;

const MS: &str = "com.microsoft";

pub fn register(r: &mut Registry) {
    r.add(MS, "Pad", 1, pad);
    r.add(MS, "GatherND", 1, gather_nd);
    r.add(MS, "GridSample", 1, grid_sample);
    r.add(MS, "CropAndResize", 1, crop_and_resize);
    r.add(MS, "Unique", 1, unique);
    r.add(MS, "CDist", 1, cdist);
    r.add(MS, "UnfoldTensor", 1, unfold_tensor);
    r.add(MS, "MurmurHash3", 1, murmur_hash3);
    r.add(MS, "ScaledSiLU", 1, scaled_silu);
    r.add(MS, "SampleOp", 1, same_as_first);
    r.add(MS, "GatedAdd", 1, gated_add);
    r.add(MS, "BitmaskDropout", 1, bitmask_dropout);
    r.add(MS, "IsAllFinite", 1, is_all_finite);
    r.add(MS, "MaxpoolWithMask", 1, maxpool_with_mask);
    r.add(MS, "NhwcMaxPool", 1, nhwc_max_pool);
    r.add(MS, "NhwcFusedConv", 1, nhwc_fused_conv);
    r.add(
        MS,
        "ConvTransposeWithDynamicPads",
        1,
        conv_transpose_dynamic_pads,
    );
    r.add(MS, "NGramRepeatBlock", 1, ngram_repeat_block);
    r.add(MS, "BifurcationDetector", 1, bifurcation_detector);
    r.add(MS, "RemovePadding", 1, remove_padding);
    r.add(MS, "RestorePadding", 1, restore_padding);
}

fn same_as_first(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![like(ctx, 0, ctx.shape(0))]
}

/// ScaledSiLU(X, scale?): X's shape; the scale, when given, a scalar (a one-element vector is refused).
fn scaled_silu(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if ctx.has_input(1) {
        contract::exact(
            ctx,
            0,
            1,
            &[],
            Contract::new("scaled-silu-scale", "ScaledSiLU's scale: a scalar (rank 0)"),
        );
    }
    vec![like(ctx, 0, ctx.shape(0))]
}

/// Pad(data, pads, value?): pads `[x1_begin, .., xn_begin, x1_end, .., xn_end]`, as a vector or a
/// `[1, 2 * rank]` matrix.
fn pad(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let Some(dims) = ctx.shape(0) else {
        return vec![like(ctx, 0, None)];
    };
    let r = dims.len();
    let twice = Dim::Known(2 * r as u64);
    match rank_of(ctx, 1) {
        Some(2) => contract::exact(
            ctx,
            0,
            1,
            &[Dim::Known(1), twice],
            Contract::new(
                "pad-pads",
                "Pad's pads: [2 * rank] or [1, 2 * rank] of the data's rank",
            ),
        ),
        Some(_) => contract::exact(
            ctx,
            0,
            1,
            &[twice],
            Contract::new(
                "pad-pads",
                "Pad's pads: [2 * rank] or [1, 2 * rank] of the data's rank",
            ),
        ),
        None => {}
    }
    let pads = match ctx.values(1) {
        Some(Data::Ints(p)) if p.len() == 2 * r => Some(p.clone()),
        _ => None,
    };
    let shape = match pads {
        Some(p) => (0..r).map(|i| padded(&dims[i], &p[i], &p[i + r])).collect(),
        None => vec![Dim::Unknown; r],
    };
    vec![like(ctx, 0, Some(shape))]
}

/// GridSample(X (N, C, H, W), grid (N, H_out, W_out, 2)) -> (N, C, H_out, W_out).
fn grid_sample(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    contract::exact(
        ctx,
        0,
        0,
        &vec![Dim::Unknown; 4],
        Contract::new("grid-sample-x", "GridSample's X: 4-D (N, C, H, W)"),
    );
    let x = ctx.shape(0).filter(|s| s.len() == 4);
    let grid = ctx.shape(1).filter(|s| s.len() == 4);
    if let Some(x) = &x {
        let expected = [x[0].clone(), Dim::Unknown, Dim::Unknown, Dim::Known(2)];
        contract::exact(
            ctx,
            0,
            1,
            &expected,
            Contract::new(
                "grid-sample-grid",
                "GridSample's grid: (N, H_out, W_out, 2) of the input's batch N",
            ),
        );
    }
    let shape = Some(vec![
        match (dim_at(&x, 0), dim_at(&grid, 0)) {
            (Dim::Unknown, g) => g,
            (n, _) => n,
        },
        dim_at(&x, 1),
        dim_at(&grid, 1),
        dim_at(&grid, 2),
    ]);
    vec![like(ctx, 0, shape)]
}

/// CropAndResize(X (N, C, H, W), rois (R, 4), batch_indices (R), crop_size [h, w]) -> (R, C, h, w).
fn crop_and_resize(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    contract::exact(
        ctx,
        0,
        0,
        &vec![Dim::Unknown; 4],
        Contract::new("crop-and-resize-x", "CropAndResize's X: 4-D (N, C, H, W)"),
    );
    let rois = dim_of(ctx, 1, 2, 0);
    contract::exact(
        ctx,
        1,
        1,
        &[Dim::Unknown, Dim::Known(4)],
        Contract::new(
            "crop-and-resize-rois",
            "CropAndResize's rois: (num_rois, 4)",
        ),
    );
    if rank_of(ctx, 1) == Some(2) {
        contract::exact(
            ctx,
            1,
            2,
            std::slice::from_ref(&rois),
            Contract::new(
                "crop-and-resize-batch-indices",
                "CropAndResize's batch_indices: 1-D, one per roi (num_rois)",
            ),
        );
    }
    let num = match rois {
        Dim::Unknown => dim_of(ctx, 2, 1, 0),
        r => r,
    };
    let crop = |i: usize| match ctx.data_i64(3).as_deref().and_then(|c| c.get(i).copied()) {
        Some(v) if v > 0 && ctx.data_i64(3).is_some_and(|c| c.len() == 2) => Dim::Known(v as u64),
        _ => Dim::Unknown,
    };
    let shape = vec![num, dim_of(ctx, 0, 4, 1), crop(0), crop(1)];
    vec![like(ctx, 0, Some(shape))]
}

/// Unique(x) -> (y [u], idx [n], counts [u]): the input is read flattened; u is data-dependent.
fn unique(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    contract::exact(
        ctx,
        0,
        0,
        &[Dim::Unknown],
        Contract::new("unique-x", "Unique's x: 1-D"),
    );
    let n = ctx.shape(0).map_or(Dim::Unknown, |s| product(s.iter()));
    let u = match n {
        Dim::Known(0 | 1) => n.clone(),
        _ => Dim::Unknown,
    };
    let int64 = |d: Dim| ValueInfo::tensor(elem(DataType::Int64), Some(vec![d]));
    vec![like(ctx, 0, Some(vec![u.clone()])), int64(n), int64(u)]
}

/// CDist(A (M, N), B (K, N)) -> (M, K).
fn cdist(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    contract::exact(
        ctx,
        0,
        0,
        &[Dim::Unknown, Dim::Unknown],
        Contract::new("cdist-a", "CDist's A: 2-D (M, N)"),
    );
    if rank_of(ctx, 0) == Some(2) {
        let n = dim_of(ctx, 0, 2, 1);
        contract::exact(
            ctx,
            0,
            1,
            &[Dim::Unknown, n],
            Contract::new("cdist-b", "CDist's B: (K, N), of A's N (A is (M, N))"),
        );
    }
    let shape = vec![dim_of(ctx, 0, 2, 0), dim_of(ctx, 1, 2, 0)];
    vec![like(ctx, 0, Some(shape))]
}

/// UnfoldTensor(input; dim = -1, size, step = 1): axis `dim` becomes `(n - size) / step + 1` and an
/// axis of `size` is appended.
fn unfold_tensor(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let size = ctx.attr_i("size").filter(|&s| s > 0);
    let step = ctx.attr_i("step").unwrap_or(1);
    let shape = ctx.shape(0).and_then(|mut s| {
        let a = axis(ctx.attr_i("dim").unwrap_or(-1), s.len())?;
        let size = size?;
        let step = u64::try_from(step).ok().filter(|&v| v > 0)?;
        s[a] = match shift(&s[a], -size) {
            Dim::Known(span) => Dim::Known(span / step + 1),
            span if step == 1 => add(&span, &Dim::Known(1)),
            _ => Dim::Unknown,
        };
        s.push(Dim::Known(size as u64));
        Some(s)
    });
    vec![like(ctx, 0, shape)]
}

/// MurmurHash3(X) -> Y of X's shape: uint32 when `positive` (the default), else int32.
fn murmur_hash3(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let t = if ctx.attr_i("positive").unwrap_or(1) == 1 {
        DataType::Uint32
    } else {
        DataType::Int32
    };
    vec![ValueInfo::tensor(elem(t), ctx.shape(0))]
}

/// GatedAdd(X (.., C), Y (.., C), gate (.., 1)) -> X's shape.
fn gated_add(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if let Some(x) = ctx.shape(0) {
        contract::exact(
            ctx,
            0,
            1,
            &x,
            Contract::new("gated-add-y", "GatedAdd's Y: the shape of X"),
        );
        let mut g = x.clone();
        if let Some(last) = g.last_mut() {
            *last = Dim::Known(1);
            contract::exact(
                ctx,
                0,
                2,
                &g,
                Contract::new(
                    "gated-add-gate",
                    "GatedAdd's gate: the shape of X with a last axis of 1",
                ),
            );
        }
    }
    vec![like(ctx, 0, ctx.shape(0))]
}

/// BitmaskDropout(data, ratio?, training_mode?) -> (output of data's shape, mask uint32
/// `[ceil(numel / 32)]`).
fn bitmask_dropout(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let n = ctx.shape(0).map_or(Dim::Unknown, |s| product(s.iter()));
    let words = match n {
        Dim::Known(k) => Dim::Known(k.div_ceil(32)),
        _ => Dim::Unknown,
    };
    vec![
        like(ctx, 0, ctx.shape(0)),
        ValueInfo::tensor(elem(DataType::Uint32), Some(vec![words])),
    ]
}

/// IsAllFinite(inputs...) -> a boolean scalar.
fn is_all_finite(_ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![scalar(DataType::Bool)]
}

/// MaxpoolWithMask(X, M): MaxPool's output (the mask only selects).
fn maxpool_with_mask(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let mut out = pool(ctx);
    out.truncate(1);
    out
}

/// Moves the last axis (channels) of `s` to position 1.
fn channels_first(s: Shape) -> Shape {
    s.filter(|s| s.len() >= 3).map(|mut s| {
        let c = s.remove(s.len() - 1);
        s.insert(1, c);
        s
    })
}

/// Moves axis 1 (channels) of `s` to the end.
fn channels_last(s: Shape) -> Shape {
    s.filter(|s| s.len() >= 2).map(|mut s| {
        let c = s.remove(1);
        s.push(c);
        s
    })
}

/// NhwcMaxPool(x [N, spatial.., C]) -> [N, spatial'.., C], MaxPool's sizes.
fn nhwc_max_pool(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let elem = ctx.elem(0);
    let Some(x) = ctx.input(0) else {
        return vec![ValueInfo::tensor(elem, None)];
    };
    // Pool over the channels-first view of the data, then put the channels back last.
    let nchw = ValueInfo::tensor(elem, channels_first(x.shape.clone()));
    let inputs = [Some(&nchw)];
    let mut sub = crate::shape::ctx::no_subgraphs;
    let mut view = NodeCtx {
        node: ctx.node,
        label: ctx.label,
        opset: 12,
        inputs: &inputs,
        findings: Vec::new(),
        facts: ctx.facts,
        ranges: ctx.ranges,
        conditions: ctx.conditions,
        subgraph: &mut sub,
    };
    let y = pool(&mut view).into_iter().next().and_then(|v| v.shape);
    vec![ValueInfo::tensor(elem, channels_last(y))]
}

/// NhwcFusedConv(X [N, spatial.., C], W [M, C/group, k..], B?, Z?) -> [N, spatial'.., M]. Z is added
/// element by element; its shape is not checked, as no CPU run of the operator can confirm the check.
fn nhwc_fused_conv(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let elem = ctx.elem(0);
    let x = channels_first(ctx.shape(0));
    let w = ctx.shape(1);
    let y = channels_last(conv_of(ctx, &x, &w));
    vec![ValueInfo::tensor(elem, y)]
}

/// ConvTransposeWithDynamicPads(X, W, Pads?, B?): ConvTranspose, with the pads read from the input
/// when it is given.
fn conv_transpose_dynamic_pads(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    // W is (C, M / group, k..): its first axis is X's channels; the pads are two per spatial axis.
    if let (Some(x), Some(w)) = (ctx.shape(0), ctx.shape(1))
        && x.len() == w.len()
        && x.len() >= 3
    {
        let mut expected = vec![Dim::Unknown; w.len()];
        expected[0] = x[1].clone();
        contract::exact(
            ctx,
            0,
            1,
            &expected,
            Contract::new(
                "conv-transpose-with-dynamic-pads-w",
                "ConvTransposeWithDynamicPads's W: (C, M / group, k..), C the input's channels",
            ),
        );
        if ctx.has_input(2) {
            let twice = Dim::Known(2 * (x.len() as u64 - 2));
            contract::exact(
                ctx,
                0,
                2,
                &[twice],
                Contract::new(
                    "conv-transpose-with-dynamic-pads-pads",
                    "ConvTransposeWithDynamicPads's Pads: two per spatial axis of the input",
                ),
            );
        }
    }
    let mut out = conv_transpose(ctx);
    if !ctx.has_input(2) || ctx.attr_ints("output_shape").is_some() {
        return out;
    }
    let (x, w) = (ctx.shape(0), ctx.shape(1));
    let pads = ctx.data_i64(2);
    if let Some(Some(y)) = out.first_mut().map(|v| v.shape.as_mut()) {
        let n = y.len().saturating_sub(2);
        for i in 0..n {
            y[i + 2] = transposed_size(ctx, &x, &w, pads.as_deref(), i, n);
        }
    }
    out
}

/// `s * (in - 1) + output_padding + (k - 1) * d + 1 - pb - pe` for spatial axis `i` of `n`, from
/// known sizes only.
fn transposed_size(
    ctx: &NodeCtx<'_>,
    x: &Shape,
    w: &Shape,
    pads: Option<&[i64]>,
    i: usize,
    n: usize,
) -> Dim {
    let at = |name: &str, default: i64| -> Option<i64> {
        match ctx.attr_ints(name) {
            Some(v) if v.len() == n => Some(v[i]),
            Some(_) => None,
            None => Some(default),
        }
    };
    let calc = || -> Option<u64> {
        let input = i64::try_from(dim_at(x, i + 2).known()?).ok()?;
        let k = match ctx.attr_ints("kernel_shape") {
            Some(v) if v.len() == n => v[i],
            Some(_) => return None,
            None => i64::try_from(dim_at(w, i + 2).known()?).ok()?,
        };
        let (s, d, op) = (
            at("strides", 1)?,
            at("dilations", 1)?,
            at("output_padding", 0)?,
        );
        let p = pads.filter(|p| p.len() == 2 * n)?;
        let total = s
            .checked_mul(input.checked_sub(1)?)?
            .checked_add(op)?
            .checked_add(k.checked_sub(1)?.checked_mul(d)?.checked_add(1)?)?
            .checked_sub(p[i])?
            .checked_sub(p[i + n])?;
        u64::try_from(total).ok().filter(|&v| v > 0)
    };
    calc().map_or(Dim::Unknown, Dim::Known)
}

/// NGramRepeatBlock(input_ids (B, S), scores (B, V)) -> scores' shape.
fn ngram_repeat_block(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if rank_of(ctx, 1) == Some(2) {
        let b = dim_of(ctx, 0, 2, 0);
        contract::exact(
            ctx,
            0,
            1,
            &[b, Dim::Unknown],
            Contract::new(
                "ngram-repeat-block-scores",
                "NGramRepeatBlock's scores: (batch_size, vocab_size) of input_ids' batch",
            ),
        );
    }
    vec![like(ctx, 1, ctx.shape(1))]
}

/// BifurcationDetector(src_tokens, cur_tokens, prev_suffix_match_idx, pred_tokens?) -> (tokens 1-D
/// of a data-dependent length, suffix_match_idx scalar), of the inputs' integer type.
fn bifurcation_detector(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let t = ctx.elem(1).or(ctx.elem(0));
    let tokens = if ctx.has_input(3) {
        Dim::Unknown
    } else {
        // Without predicted tokens the current ones pass through.
        dim_of(ctx, 1, 1, 0)
    };
    vec![
        ValueInfo::tensor(t, Some(vec![tokens])),
        ValueInfo::tensor(t, Some(vec![])),
    ]
}

/// RemovePadding(input (B, S, H), sequence_token_count (B)) -> (output (total_tokens, H),
/// token_offset (B, S), cumulated_seq_len (B + 1), max_seq_len (1)).
fn remove_padding(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (b, s, h) = (
        dim_of(ctx, 0, 3, 0),
        dim_of(ctx, 0, 3, 1),
        dim_of(ctx, 0, 3, 2),
    );
    let m = ctx.elem(1);
    vec![
        like(ctx, 0, Some(vec![Dim::Unknown, h])),
        ValueInfo::tensor(m, Some(vec![b.clone(), s])),
        ValueInfo::tensor(m, Some(vec![add(&b, &Dim::Known(1))])),
        ValueInfo::tensor(m, Some(vec![Dim::Known(1)])),
    ]
}

/// RestorePadding(input (total_tokens, H), token_offset (B, S)) -> (B, S, H).
fn restore_padding(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = vec![
        dim_of(ctx, 1, 2, 0),
        dim_of(ctx, 1, 2, 1),
        dim_of(ctx, 0, 2, 1),
    ];
    vec![like(ctx, 0, Some(shape))]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    /// The findings of `rule` on a node of these inputs (shadows test_util's `codes`).
    fn codes(
        rule: super::super::super::registry::Rule,
        inputs: &[Option<ValueInfo>],
    ) -> Vec<String> {
        codes_at(rule, &node("Op", inputs.len(), 1, vec![]), 1, inputs)
    }

    #[test]
    fn pad_reads_pads_of_either_layout() {
        let n = node("Pad", 2, 1, vec![]);
        let s = out_shape(pad, &n, 1, &[t(F32, &["b", "3"]), ints(&[0, 1, 0, 2])]);
        assert_eq!(s, shape(&["b", "6"]));
        let matrix = Some(
            ValueInfo::tensor(I64, shape(&["1", "4"])).with_values(Some(Data::Ints(vec![
                d("1"),
                d("0"),
                d("1"),
                d("0"),
            ]))),
        );
        let s = out_shape(pad, &n, 1, &[t(F32, &["2", "3"]), matrix]);
        assert_eq!(s, shape(&["4", "3"]));
        let c = codes(pad, &[t(F32, &["2", "3"]), t(I64, &["6"])]);
        assert!(
            c.len() == 1
                && c[0].starts_with("E2 'n' (Op) breaks the contract pad-pads: ")
                && c[0].ends_with("here axis -1: 4 vs 6"),
            "{c:?}"
        );
    }

    #[test]
    fn grid_sample_takes_the_grid_sizes() {
        let n = node("GridSample", 2, 1, vec![]);
        let s = out_shape(
            grid_sample,
            &n,
            1,
            &[t(F32, &["n", "3", "8", "8"]), t(F32, &["n", "4", "5", "2"])],
        );
        assert_eq!(s, shape(&["n", "3", "4", "5"]));
        let c = codes(
            grid_sample,
            &[t(F32, &["2", "3", "8", "8"]), t(F32, &["2", "4", "5", "3"])],
        );
        assert!(
            c.len() == 1
                && c[0].starts_with("E2 'n' (Op) breaks the contract grid-sample-grid: ")
                && c[0].ends_with("here axis -1: 2 vs 3"),
            "{c:?}"
        );
    }

    #[test]
    fn crop_and_resize_reads_the_crop_size() {
        let n = node("CropAndResize", 4, 1, vec![]);
        let s = out_shape(
            crop_and_resize,
            &n,
            1,
            &[
                t(F32, &["1", "3", "8", "8"]),
                t(F32, &["r", "4"]),
                t(I64, &["r"]),
                ints(&[2, 5]),
            ],
        );
        assert_eq!(s, shape(&["r", "3", "2", "5"]));
        let c = codes(
            crop_and_resize,
            &[
                t(F32, &["1", "3", "8", "8"]),
                t(F32, &["3", "5"]),
                t(I64, &["3"]),
                ints(&[2, 5]),
            ],
        );
        assert!(
            c.len() == 1
                && c[0].starts_with("E2 'n' (Op) breaks the contract crop-and-resize-rois: ")
                && c[0].ends_with("here axis -1: 4 vs 5"),
            "{c:?}"
        );
    }

    #[test]
    fn unfold_and_cdist_and_unique() {
        let n = node(
            "UnfoldTensor",
            1,
            1,
            vec![attr_i("size", 3), attr_i("step", 2)],
        );
        let s = out_shape(unfold_tensor, &n, 1, &[t(F32, &["2", "9"])]);
        assert_eq!(s, shape(&["2", "4", "3"]));
        let n = node("UnfoldTensor", 1, 1, vec![attr_i("size", 3)]);
        let s = out_shape(unfold_tensor, &n, 1, &[t(F32, &["2", "s"])]);
        assert_eq!(s.map(|s| s[1].to_string()), Some("s-2".to_owned()));
        let n = node("CDist", 2, 1, vec![]);
        let s = out_shape(cdist, &n, 1, &[t(F32, &["m", "4"]), t(F32, &["k", "4"])]);
        assert_eq!(s, shape(&["m", "k"]));
        let c = codes(cdist, &[t(F32, &["3", "4"]), t(F32, &["2", "5"])]);
        assert!(
            c.len() == 1
                && c[0].starts_with("E2 'n' (Op) breaks the contract cdist-b: ")
                && c[0].ends_with("here axis -1: 4 vs 5"),
            "{c:?}"
        );
        let n = node("Unique", 1, 3, vec![]);
        let outs = run(unique, &n, 1, &[t(F32, &["6"])]);
        assert_eq!(outs[1].shape, shape(&["6"]));
        assert_eq!(outs[2].elem, I64);
    }

    #[test]
    fn gated_add_checks_y_and_gate() {
        let ok = [
            t(F32, &["2", "3", "8"]),
            t(F32, &["2", "3", "8"]),
            t(F32, &["2", "3", "1"]),
        ];
        assert!(codes(gated_add, &ok).is_empty());
        let bad = [
            t(F32, &["2", "3", "8"]),
            t(F32, &["2", "3", "8"]),
            t(F32, &["2", "3", "8"]),
        ];
        let c = codes(gated_add, &bad);
        assert!(
            c.len() == 1
                && c[0].starts_with("E2 'n' (Op) breaks the contract gated-add-gate: ")
                && c[0].ends_with("here axis -1: 1 vs 8"),
            "{c:?}"
        );
    }

    #[test]
    fn bitmask_dropout_packs_the_mask() {
        let n = node("BitmaskDropout", 1, 2, vec![]);
        let outs = run(bitmask_dropout, &n, 1, &[t(F32, &["3", "33"])]);
        assert_eq!(outs[1].shape, shape(&["4"]));
    }

    #[test]
    fn nhwc_ops_keep_channels_last() {
        let n = node(
            "NhwcMaxPool",
            1,
            1,
            vec![
                attr_ints("kernel_shape", &[2, 2]),
                attr_ints("strides", &[2, 2]),
            ],
        );
        let s = out_shape(nhwc_max_pool, &n, 1, &[t(F32, &["1", "8", "6", "3"])]);
        assert_eq!(s, shape(&["1", "4", "3", "3"]));
        let n = node("NhwcFusedConv", 4, 1, vec![]);
        let ok = [
            t(F32, &["1", "8", "8", "2"]),
            t(F32, &["4", "2", "3", "3"]),
            None,
            t(F32, &["1", "6", "6", "4"]),
        ];
        assert_eq!(
            out_shape(nhwc_fused_conv, &n, 1, &ok),
            shape(&["1", "6", "6", "4"])
        );
        assert!(codes(nhwc_fused_conv, &ok).is_empty());
    }

    #[test]
    fn conv_transpose_reads_dynamic_pads() {
        let n = node(
            "ConvTransposeWithDynamicPads",
            3,
            1,
            vec![attr_ints("strides", &[2, 2])],
        );
        let s = out_shape(
            conv_transpose_dynamic_pads,
            &n,
            1,
            &[
                t(F32, &["1", "2", "4", "4"]),
                t(F32, &["2", "3", "3", "3"]),
                ints(&[1, 1, 1, 1]),
            ],
        );
        assert_eq!(s, shape(&["1", "3", "7", "7"]));
    }

    #[test]
    fn padding_removal_and_restoration() {
        let n = node("RemovePadding", 2, 4, vec![]);
        let outs = run(
            remove_padding,
            &n,
            1,
            &[
                t(F32, &["b", "s", "8"]),
                t(Some(DataType::Int32 as i32), &["b"]),
            ],
        );
        assert_eq!(outs[1].shape, shape(&["b", "s"]));
        assert_eq!(
            outs[2].shape.as_ref().map(|s| s[0].to_string()),
            Some("b+1".into())
        );
        let n = node("RestorePadding", 2, 1, vec![]);
        let s = out_shape(
            restore_padding,
            &n,
            1,
            &[
                t(F32, &["t", "8"]),
                t(Some(DataType::Int32 as i32), &["b", "s"]),
            ],
        );
        assert_eq!(s, shape(&["b", "s", "8"]));
    }

    #[test]
    fn murmur_hash_type_follows_positive() {
        let n = node("MurmurHash3", 1, 1, vec![attr_i("positive", 0)]);
        let outs = run(murmur_hash3, &n, 1, &[t(I64, &["3"])]);
        assert_eq!(outs[0].elem, elem(DataType::Int32));
    }

    #[test]
    fn scalar_scale_and_transposed_weights() {
        let c = codes(scaled_silu, &[t(F32, &["2", "3"]), t(F32, &["1"])]);
        assert!(
            c.len() == 1
                && c[0].starts_with("E2 'n' (Op) breaks the contract scaled-silu-scale: ")
                && c[0].ends_with("here input 1 'i1' has rank 1, where rank 0 is needed"),
            "{c:?}"
        );
        assert!(codes(scaled_silu, &[t(F32, &["2", "3"]), t(F32, &[])]).is_empty());
        let c = codes(
            conv_transpose_dynamic_pads,
            &[
                t(F32, &["1", "2", "4", "4"]),
                t(F32, &["3", "3", "3", "3"]),
                ints(&[1, 1, 1, 1]),
            ],
        );
        assert!(c.len() == 1 && c[0].contains("W"), "{c:?}");
        let c = codes(unique, &[t(F32, &["2", "3"])]);
        assert!(
            c.len() == 1
                && c[0].starts_with("E2 'n' (Op) breaks the contract unique-x: ")
                && c[0].ends_with("here input 0 'i0' has rank 2, where rank 1 is needed"),
            "{c:?}"
        );
    }
}
