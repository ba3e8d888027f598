//! Image and detection ops: GridSample, AffineGrid, Col2Im, RoiAlign, NonMaxSuppression and
//! ImageDecoder.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#GridSample>, `#AffineGrid`,
//! `#Col2Im`, `#RoiAlign`, `#NonMaxSuppression`, `#ImageDecoder`. Opset history:
//! - GridSample: 16 (4-D only), 20 (N-D; mode names change), 22. Y is `[N, C, grid spatial...]` for X
//!   `[N, C, D1, ..., Dr]` and a grid `[N, O1, ..., Or, r]`.
//! - AffineGrid: 20. For `size = [N, C, H, W]` the grid is `[N, H, W, 2]`; for `[N, C, D, H, W]` it is
//!   `[N, D, H, W, 3]`.
//! - Col2Im: 18. `[N, C * prod(block_shape), L]` becomes `[N, C, image_shape...]`.
//! - RoiAlign: 10, 16 (`coordinate_transformation_mode`), 22: `[num_rois, C, output_height,
//!   output_width]`.
//! - NonMaxSuppression: 10, 11: `[selected, 3]` int64; how many boxes are selected is data.
//! - ImageDecoder: 20: `[height, width, channels]` uint8, 3 channels for RGB and BGR, 1 for Grayscale.
//!
//! Contracts, as onnxruntime enforces them (onnx's inference at load where it says so, else the
//! CPU kernels at run):
//! - GridSample: [`GRID_SAMPLE_RANK`], X and the grid of the same rank (load), 4 or 5, and 4 in cubic
//!   mode (run: the kernel has no other; onnx's inference takes any rank from 3);
//!   [`GRID_SAMPLE_COORDINATES`], the grid's last axis as long as the spatial rank (load);
//!   [`GRID_SAMPLE_BATCH`], the grid's batch X's (load; no broadcast of a 1).
//! - AffineGrid: [`AFFINE_GRID_SIZE`], `size` 1-D of 4 or 5 values (load); [`AFFINE_GRID_THETA`],
//!   theta `[N, 2, 3]` for a 2-D grid and `[N, 3, 4]` for a 3-D one, N being `size[0]` (run:
//!   onnxruntime 1.31's kernel checks what older ones did not).
//! - Col2Im: [`COL2IM_RANK`], input 3-D and image_shape, block_shape 1-D (load); [`COL2IM_LENGTHS`],
//!   image_shape and block_shape of one length n, pads of 2n, dilations and strides of n (load);
//!   [`COL2IM_VALUES`], image_shape and block_shape positive (run); [`COL2IM_CHANNELS`], the input's
//!   axis 1 a positive multiple of `prod(block_shape)` (run); [`COL2IM_BLOCKS`], the input's axis 2
//!   the number of sliding blocks the image, block, pads, dilations and strides make, each padded
//!   image axis holding the dilated block (run).
//! - RoiAlign: [`ROI_ALIGN_RANK`], X 4-D, rois 2-D, batch_indices 1-D (load); [`ROI_ALIGN_ROIS`],
//!   rois `[num_rois, 4]` and batch_indices `[num_rois]` (the count at load, the 4 at run).
//!   onnxruntime has no CPU kernel for RoiAlign-22.
//! - NonMaxSuppression: [`NMS_RANK`], boxes and scores 3-D; [`NMS_BOXES`], boxes `[B, N, 4]` and
//!   scores `[B, C, N]` (run; onnx's inference checks nothing).

use super::super::contract::{Contract, Operand};
use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::{div_exact, like, size_of_value, unknown_dims};
use super::support::{dim_at, dim_of, elem, or_dim, rank_of};
use crate::proto::tensor_proto::DataType;

pub fn register(r: &mut Registry) {
    r.add("", "GridSample", 16, grid_sample);
    r.add("", "AffineGrid", 20, affine_grid);
    r.add("", "Col2Im", 18, col2im);
    r.add("", "RoiAlign", 10, roi_align);
    r.add("", "NonMaxSuppression", 10, non_max_suppression);
    r.add("", "ImageDecoder", 20, image_decoder);
}

/// GridSample's ranks.
pub const GRID_SAMPLE_RANK: Contract = Contract::new(
    "grid-sample-rank",
    "X and the grid have the same rank, 4 or 5 (4 in cubic mode)",
);

/// GridSample's coordinates.
pub const GRID_SAMPLE_COORDINATES: Contract = Contract::new(
    "grid-sample-coordinates",
    "the grid's last axis is the number of spatial axes (its rank - 2)",
);

/// GridSample's batch.
pub const GRID_SAMPLE_BATCH: Contract =
    Contract::new("grid-sample-batch", "the grid's batch (axis 0) equals X's");

/// AffineGrid's size.
pub const AFFINE_GRID_SIZE: Contract = Contract::new(
    "affine-grid-size",
    "size is 1-D of 4 values ([N, C, H, W]) or 5 ([N, C, D, H, W])",
);

/// AffineGrid's theta.
pub const AFFINE_GRID_THETA: Contract = Contract::new(
    "affine-grid-theta",
    "theta is [N, 2, 3] for a 2-D grid (4 size values) and [N, 3, 4] for a 3-D one, N being size[0]",
);

/// Col2Im's ranks.
pub const COL2IM_RANK: Contract = Contract::new(
    "col2im-rank",
    "the input is 3-D ([N, C * prod(block_shape), L]); image_shape and block_shape are 1-D",
);

/// Col2Im's lengths.
pub const COL2IM_LENGTHS: Contract = Contract::new(
    "col2im-lengths",
    "image_shape and block_shape have one length n; pads has 2n values, dilations and strides n",
);

/// Col2Im's image and block sizes.
pub const COL2IM_VALUES: Contract = Contract::new(
    "col2im-values",
    "image_shape and block_shape values are positive",
);

/// Col2Im's channels.
pub const COL2IM_CHANNELS: Contract = Contract::new(
    "col2im-channels",
    "the input's axis 1 is a positive multiple of prod(block_shape)",
);

/// Col2Im's blocks.
pub const COL2IM_BLOCKS: Contract = Contract::new(
    "col2im-blocks",
    "each padded image axis holds the dilated block, and the input's axis 2 is the number of \
     sliding blocks, the product of (image + pads - dilation * (block - 1) - 1) / stride + 1",
);

/// RoiAlign's ranks.
pub const ROI_ALIGN_RANK: Contract =
    Contract::new("roi-align-rank", "X is 4-D, rois 2-D and batch_indices 1-D");

/// RoiAlign's regions.
pub const ROI_ALIGN_ROIS: Contract = Contract::new(
    "roi-align-rois",
    "rois is [num_rois, 4] and batch_indices [num_rois]",
);

/// NonMaxSuppression's ranks.
pub const NMS_RANK: Contract = Contract::new("nms-rank", "boxes and scores are 3-D");

/// NonMaxSuppression's boxes against its scores.
pub const NMS_BOXES: Contract = Contract::new(
    "nms-boxes",
    "boxes is [B, N, 4] and scores [B, C, N]: the batches and the box counts agree",
);

/// The first input at `slots` whose rank is known and not the one it must be, reported as a break of
/// `c`; true when there is one.
fn wrong_rank(ctx: &mut NodeCtx<'_>, c: Contract, slots: &[(usize, &[usize])]) -> bool {
    for &(slot, ranks) in slots {
        let Some(r) = ctx.input(slot).and_then(ValueInfo::rank) else {
            continue;
        };
        if !ranks.contains(&r) {
            let name = ctx.node.input_name(slot);
            let all: Vec<usize> = slots.iter().map(|&(s, _)| s).collect();
            ctx.broken(c, &all, format_args!("input {slot} '{name}' has rank {r}"));
            return true;
        }
    }
    false
}

/// GridSample's contracts; false after a break.
fn grid_sample_contracts(ctx: &mut NodeCtx<'_>) -> bool {
    let (xr, gr) = (rank_of(ctx, 0), rank_of(ctx, 1));
    let cubic = matches!(ctx.attr_s("mode"), Some("cubic" | "bicubic"));
    let allowed: &[usize] = if cubic { &[4] } else { &[4, 5] };
    let detail = match (xr, gr) {
        (Some(a), Some(b)) if a != b => Some(format!("X has rank {a}, the grid rank {b}")),
        (Some(r), _) | (_, Some(r)) if !allowed.contains(&r) => {
            let mode = if cubic { " in cubic mode" } else { "" };
            Some(format!("the rank is {r}{mode}"))
        }
        _ => None,
    };
    if let Some(detail) = detail {
        ctx.broken(GRID_SAMPLE_RANK, &[0, 1], detail);
        return false;
    }
    if let Some(g) = ctx.shape(1) {
        let last = Operand::new("the grid's last axis", g[g.len() - 1].clone()).from_input(1);
        let spatial = Operand::new("its rank - 2", Dim::Known(g.len() as u64 - 2));
        if !ctx.require_equal(GRID_SAMPLE_COORDINATES, &[last, spatial]) {
            return false;
        }
    }
    let batch: Vec<Operand> = [ctx.operand(0, 0), ctx.operand(1, 0)]
        .into_iter()
        .flatten()
        .collect();
    ctx.require_equal(GRID_SAMPLE_BATCH, &batch)
}

fn grid_sample(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if !grid_sample_contracts(ctx) {
        return vec![like(ctx, 0, None)];
    }
    let (x, grid) = (ctx.shape(0), ctx.shape(1));
    let rank = grid
        .as_ref()
        .map(Vec::len)
        .or_else(|| x.as_ref().map(Vec::len))
        .filter(|&r| r >= 3);
    let Some(rank) = rank else {
        return vec![like(ctx, 0, None)];
    };
    let mut out = vec![or_dim(dim_at(&x, 0), dim_at(&grid, 0)), dim_at(&x, 1)];
    // The grid's own rank decides the spatial axes; without it, X's rank does.
    let spatial = grid
        .as_ref()
        .map_or(vec![Dim::Unknown; rank - 2], |g| g[1..rank - 1].to_vec());
    out.extend(spatial);
    vec![like(ctx, 0, Some(out))]
}

/// AffineGrid's contracts; false after a break.
fn affine_grid_contracts(ctx: &mut NodeCtx<'_>) -> bool {
    if wrong_rank(ctx, AFFINE_GRID_SIZE, &[(1, &[1])]) {
        return false;
    }
    // The number of size values: from its shape, else from its values.
    let n = match ctx.shape(1).as_deref() {
        Some([d]) => d.clone(),
        _ => ctx
            .data(1)
            .map_or(Dim::Unknown, |v| Dim::Known(v.len() as u64)),
    };
    match &n {
        Dim::Known(4 | 5) | Dim::Unknown => {}
        Dim::Known(k) => {
            ctx.broken(AFFINE_GRID_SIZE, &[1], format_args!("size has {k} values"));
            return false;
        }
        Dim::Sym(_) => {
            // One of two values: a condition the broadcast algebra cannot state; 4 or 5 it must be.
        }
    }
    if wrong_rank(ctx, AFFINE_GRID_THETA, &[(0, &[3])]) {
        return false;
    }
    let (rows, cols) = match n {
        Dim::Known(4) => (2, 3),
        Dim::Known(5) => (3, 4),
        _ => return true,
    };
    let mut ok = true;
    for (axis, want) in [(1, rows), (2, cols)] {
        if let Some(o) = ctx.operand(0, axis) {
            let what = format!("{want}, for {} size values", if rows == 2 { 4 } else { 5 });
            ok = ok
                && ctx.require_equal(
                    AFFINE_GRID_THETA,
                    &[o, Operand::new(what, Dim::Known(want))],
                );
        }
    }
    if !ok {
        return false;
    }
    let n = match ctx.data(1) {
        Some(v) if !v.is_empty() => size_of_value(&v[0]),
        _ => Dim::Unknown,
    };
    let sizes: Vec<Operand> = ctx
        .operand(0, 0)
        .into_iter()
        .chain(std::iter::once(Operand::new("size[0]", n).from_input(1)))
        .collect();
    ctx.require_equal(AFFINE_GRID_THETA, &sizes)
}

fn affine_grid(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if !affine_grid_contracts(ctx) {
        return vec![like(ctx, 0, None)];
    }
    let batch = dim_of(ctx, 0, 3, 0);
    let shape: Shape = if let Some(size) = ctx.data(1).filter(|s| matches!(s.len(), 4 | 5)) {
        let mut out = vec![or_dim(size_of_value(&size[0]), batch)];
        out.extend(size[2..].iter().map(size_of_value));
        out.push(Dim::Known(size.len() as u64 - 2));
        Some(out)
    } else {
        // The number of spatial axes, from the length of `size` or theta's `[N, 2, 3]` / `[N, 3, 4]`.
        let n = match (ctx.shape(1).as_deref(), ctx.shape(0).as_deref()) {
            (Some([Dim::Known(k @ (4 | 5))]), _) => Some(*k as usize - 2),
            (_, Some([_, Dim::Known(k @ (2 | 3)), _])) => Some(*k as usize),
            _ => None,
        };
        n.map(|n| {
            let mut out = vec![batch];
            out.extend(std::iter::repeat_n(Dim::Unknown, n));
            out.push(Dim::Known(n as u64));
            out
        })
    };
    vec![like(ctx, 0, shape)]
}

/// Col2Im's contracts; false after a break.
fn col2im_contracts(ctx: &mut NodeCtx<'_>) -> bool {
    if wrong_rank(ctx, COL2IM_RANK, &[(0, &[3]), (1, &[1]), (2, &[1])]) {
        return false;
    }
    let image = ctx.data_i64(1);
    let block = ctx.data_i64(2);
    let len = |slot: usize, values: &Option<Vec<i64>>| -> Option<u64> {
        match ctx.shape(slot).as_deref() {
            Some([Dim::Known(n)]) => Some(*n),
            _ => values.as_ref().map(|v| v.len() as u64),
        }
    };
    let (li, lb) = (len(1, &image), len(2, &block));
    let n = li.or(lb);
    let mut lengths: Vec<(String, u64, u64)> = Vec::new();
    if let (Some(a), Some(b)) = (li, lb) {
        lengths.push(("block_shape".into(), b, a));
    }
    if let Some(n) = n {
        for (name, factor) in [("pads", 2), ("dilations", 1), ("strides", 1)] {
            if let Some(v) = ctx.attr_ints(name).filter(|v| !v.is_empty()) {
                lengths.push((name.into(), v.len() as u64, factor * n));
            }
        }
    }
    if let Some((name, got, want)) = lengths.iter().find(|(_, g, w)| g != w) {
        let what = if name == "block_shape" {
            format!("image_shape has {want} values, block_shape {got}")
        } else {
            format!("{name} has {got} values for {} image axes", n.unwrap_or(0))
        };
        ctx.broken(COL2IM_LENGTHS, &[1, 2], what);
        return false;
    }
    for (slot, values, name) in [(1, &image, "image_shape"), (2, &block, "block_shape")] {
        if let Some(v) = values.as_ref().and_then(|v| v.iter().find(|&&x| x <= 0)) {
            ctx.out_of_range(COL2IM_VALUES, &[slot], format_args!("{name} holds {v}"));
            return false;
        }
    }
    let Some(block) = block else {
        return true;
    };
    let Some(area) = block
        .iter()
        .try_fold(1u64, |acc, &b| acc.checked_mul(b as u64))
    else {
        return true;
    };
    if let Some(c) = ctx.operand(0, 1) {
        if c.dim == Dim::Known(0) {
            ctx.broken(COL2IM_CHANNELS, &[0, 2], "the input's axis 1 is 0");
            return false;
        }
        if !ctx.require_multiple(COL2IM_CHANNELS, &c, area) {
            return false;
        }
    }
    let Some(image) = image else {
        return true;
    };
    let n = block.len();
    let attr = |name: &str, i: usize, default: i64| {
        ctx.attr_ints(name)
            .and_then(|v| v.get(i).copied())
            .unwrap_or(default)
    };
    let mut blocks: u64 = 1;
    for i in 0..n {
        let (d, s) = (attr("dilations", i, 1), attr("strides", i, 1));
        let padded = image[i] + attr("pads", i, 0) + attr("pads", i + n, 0);
        let extent = d * (block[i] - 1) + 1;
        if padded < extent {
            ctx.broken(
                COL2IM_BLOCKS,
                &[1, 2],
                format_args!(
                    "image axis {i} is {padded} with its pads, the dilated block {extent}"
                ),
            );
            return false;
        }
        if s <= 0 {
            return true;
        }
        match blocks.checked_mul(((padded - extent) / s + 1) as u64) {
            Some(b) => blocks = b,
            None => return true,
        }
    }
    if let Some(l) = ctx.operand(0, 2) {
        let want = Operand::new("the sliding blocks", Dim::Known(blocks));
        return ctx.require_equal(COL2IM_BLOCKS, &[l, want]);
    }
    true
}

fn col2im(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if !col2im_contracts(ctx) {
        return vec![like(ctx, 0, None)];
    }
    let block = ctx.data_i64(2);
    let channels = match &block {
        Some(b) if b.iter().all(|&v| v > 0) => b
            .iter()
            .try_fold(1u64, |acc, &v| acc.checked_mul(v as u64))
            .map_or(Dim::Unknown, |p| div_exact(&dim_of(ctx, 0, 3, 1), p)),
        _ => Dim::Unknown,
    };
    let spatial: Shape = match ctx.data(1) {
        Some(values) => Some(values.iter().map(size_of_value).collect()),
        None => match (ctx.shape(1).as_deref(), &block) {
            (Some([Dim::Known(n)]), _) => unknown_dims(*n),
            (_, Some(b)) => Some(vec![Dim::Unknown; b.len()]),
            _ => None,
        },
    };
    let shape = spatial.map(|s| {
        let mut out = vec![dim_of(ctx, 0, 3, 0), channels];
        out.extend(s);
        out
    });
    vec![like(ctx, 0, shape)]
}

/// A positive size attribute with its default.
fn size_attr(ctx: &NodeCtx<'_>, name: &str, default: u64) -> Dim {
    match ctx.attr_i(name) {
        None => Dim::Known(default),
        Some(v) if v > 0 => Dim::Known(v as u64),
        Some(_) => Dim::Unknown,
    }
}

/// RoiAlign's contracts; false after a break.
fn roi_align_contracts(ctx: &mut NodeCtx<'_>) -> bool {
    if wrong_rank(ctx, ROI_ALIGN_RANK, &[(0, &[4]), (1, &[2]), (2, &[1])]) {
        return false;
    }
    let count: Vec<Operand> = [ctx.operand(1, 0), ctx.operand(2, 0)]
        .into_iter()
        .flatten()
        .collect();
    if !ctx.require_equal(ROI_ALIGN_ROIS, &count) {
        return false;
    }
    match ctx.operand(1, 1) {
        Some(o) => ctx.require_equal(ROI_ALIGN_ROIS, &[o, Operand::new("4", Dim::Known(4))]),
        None => true,
    }
}

fn roi_align(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if !roi_align_contracts(ctx) {
        return vec![like(ctx, 0, None)];
    }
    let rois = or_dim(dim_of(ctx, 1, 2, 0), dim_of(ctx, 2, 1, 0));
    let out = vec![
        rois,
        dim_of(ctx, 0, 4, 1),
        size_attr(ctx, "output_height", 1),
        size_attr(ctx, "output_width", 1),
    ];
    vec![like(ctx, 0, Some(out))]
}

/// NonMaxSuppression's contracts.
fn nms_contracts(ctx: &mut NodeCtx<'_>) {
    if wrong_rank(ctx, NMS_RANK, &[(0, &[3]), (1, &[3])]) {
        return;
    }
    let pairs = [
        [ctx.operand(0, 0), ctx.operand(1, 0)],
        [ctx.operand(0, 1), ctx.operand(1, 2)],
        [
            ctx.operand(0, 2),
            Some(Operand::new("4 coordinates", Dim::Known(4))),
        ],
    ];
    for pair in pairs {
        let sizes: Vec<Operand> = pair.into_iter().flatten().collect();
        if !ctx.require_equal(NMS_BOXES, &sizes) {
            return;
        }
    }
}

fn non_max_suppression(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    nms_contracts(ctx);
    vec![ValueInfo::tensor(
        elem(DataType::Int64),
        Some(vec![Dim::Unknown, Dim::Known(3)]),
    )]
}

fn image_decoder(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let channels = match ctx.attr_s("pixel_format").unwrap_or("RGB") {
        "RGB" | "BGR" => Dim::Known(3),
        "Grayscale" => Dim::Known(1),
        _ => Dim::Unknown,
    };
    vec![ValueInfo::tensor(
        elem(DataType::Uint8),
        Some(vec![Dim::Unknown, Dim::Unknown, channels]),
    )]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    #[test]
    fn grid_sample_takes_spatial_sizes_from_the_grid() {
        let n = node("GridSample", 2, 1, vec![]);
        let s = out_shape(
            grid_sample,
            &n,
            16,
            &[
                t(F32, &["N", "3", "10", "10"]),
                t(F32, &["N", "5", "6", "2"]),
            ],
        );
        assert_eq!(s, shape(&["N", "3", "5", "6"]));
        let s = out_shape(
            grid_sample,
            &n,
            20,
            &[t(F32, &["N", "3", "4", "4", "4"]), None],
        );
        assert_eq!(s, shape(&["N", "3", "?", "?", "?"]));
    }

    #[test]
    fn affine_grid_from_size_values_or_ranks() {
        let n = node("AffineGrid", 2, 1, vec![]);
        let theta = t(F32, &["N", "2", "3"]);
        assert_eq!(
            out_shape(affine_grid, &n, 20, &[theta.clone(), ints(&[2, 3, 5, 6])]),
            shape(&["2", "5", "6", "2"])
        );
        assert_eq!(
            out_shape(affine_grid, &n, 20, &[theta, t(I64, &["4"])]),
            shape(&["N", "?", "?", "2"])
        );
        assert_eq!(
            out_shape(affine_grid, &n, 20, &[t(F32, &["N", "3", "4"]), None]),
            shape(&["N", "?", "?", "?", "3"])
        );
    }

    #[test]
    fn col2im_roi_align_nms_decoder() {
        let n = node("Col2Im", 3, 1, vec![]);
        let s = out_shape(
            col2im,
            &n,
            18,
            &[t(F32, &["1", "10", "5"]), ints(&[5, 5]), ints(&[1, 5])],
        );
        assert_eq!(s, shape(&["1", "2", "5", "5"]));
        let s = out_shape(
            col2im,
            &n,
            18,
            &[t(F32, &["1", "30", "12"]), None, ints(&[3, 5])],
        );
        assert_eq!(s, shape(&["1", "2", "?", "?"]));
        let n = node("RoiAlign", 3, 1, vec![attr_i("output_height", 7)]);
        let s = out_shape(
            roi_align,
            &n,
            16,
            &[t(F32, &["N", "256", "H", "W"]), t(F32, &["R", "4"]), None],
        );
        assert_eq!(s, shape(&["R", "256", "7", "1"]));
        let n = node("NonMaxSuppression", 2, 1, vec![]);
        assert_eq!(
            out_shape(non_max_suppression, &n, 11, &[]),
            shape(&["?", "3"])
        );
        let n = node(
            "ImageDecoder",
            1,
            1,
            vec![attr_s("pixel_format", "Grayscale")],
        );
        assert_eq!(
            out_shape(image_decoder, &n, 20, &[]),
            shape(&["?", "?", "1"])
        );
    }

    /// "CODE contract" of each finding.
    fn found(
        rule: crate::shape::registry::Rule,
        n: &crate::proto::NodeProto,
        opset: i64,
        inputs: &[Option<ValueInfo>],
    ) -> Vec<String> {
        contracts(rule, n, opset, inputs)
    }

    #[test]
    fn grid_sample_contracts() {
        let n = node("GridSample", 2, 1, vec![]);
        let gs = |x: &[&str], g: &[&str]| found(grid_sample, &n, 20, &[t(F32, x), t(F32, g)]);
        assert!(gs(&["N", "3", "4", "4"], &["N", "5", "6", "2"]).is_empty());
        assert!(gs(&["2", "3", "4", "4", "4"], &["2", "5", "6", "7", "3"]).is_empty());
        assert_eq!(
            gs(&["2", "3", "4", "4"], &["2", "5", "6", "6", "3"]),
            ["E2 grid-sample-rank"]
        );
        assert_eq!(
            gs(&["2", "3", "4"], &["2", "5", "1"]),
            ["E2 grid-sample-rank"]
        );
        assert_eq!(
            gs(&["2", "3", "4", "4"], &["2", "5", "6", "3"]),
            ["E2 grid-sample-coordinates"]
        );
        assert_eq!(
            gs(&["2", "3", "4", "4"], &["2", "5", "6", "K"]),
            ["W2 grid-sample-coordinates"]
        );
        assert_eq!(
            gs(&["2", "3", "4", "4"], &["1", "5", "6", "2"]),
            ["E2 grid-sample-batch"]
        );
        assert_eq!(
            gs(&["N", "3", "4", "4"], &["M", "5", "6", "2"]),
            ["W2 grid-sample-batch"]
        );
        let cubic = node("GridSample", 2, 1, vec![attr_s("mode", "cubic")]);
        let x5 = [
            t(F32, &["2", "3", "4", "4", "4"]),
            t(F32, &["2", "5", "6", "7", "3"]),
        ];
        assert_eq!(found(grid_sample, &cubic, 20, &x5), ["E2 grid-sample-rank"]);
        assert_eq!(out_shape(grid_sample, &cubic, 20, &x5), None);
    }

    #[test]
    fn affine_grid_contracts() {
        let n = node("AffineGrid", 2, 1, vec![]);
        let ag = |theta: &[&str], size: Option<ValueInfo>| {
            found(affine_grid, &n, 20, &[t(F32, theta), size])
        };
        assert!(ag(&["2", "2", "3"], ints(&[2, 3, 5, 6])).is_empty());
        assert!(ag(&["2", "3", "4"], ints(&[2, 3, 5, 6, 7])).is_empty());
        assert!(ag(&["N", "2", "3"], t(I64, &["4"])).is_empty());
        assert_eq!(
            ag(&["2", "2", "3"], ints(&[2, 5, 6])),
            ["E2 affine-grid-size"]
        );
        assert_eq!(
            ag(&["2", "2", "3"], t(I64, &["1", "4"])),
            ["E2 affine-grid-size"]
        );
        assert_eq!(
            ag(&["2", "3"], ints(&[2, 3, 5, 6])),
            ["E2 affine-grid-theta"]
        );
        assert_eq!(
            ag(&["2", "3", "4"], ints(&[2, 3, 5, 6])),
            ["E2 affine-grid-theta"]
        );
        assert_eq!(
            ag(&["2", "2", "3"], ints(&[2, 3, 5, 6, 7])),
            ["E2 affine-grid-theta"]
        );
        assert_eq!(
            ag(&["3", "2", "3"], ints(&[2, 3, 5, 6])),
            ["E2 affine-grid-theta"]
        );
        assert_eq!(
            ag(&["N", "2", "3"], ints(&[2, 3, 5, 6])),
            ["W2 affine-grid-theta"]
        );
    }

    #[test]
    fn col2im_contracts() {
        let c2 =
            |attrs: Vec<crate::proto::AttributeProto>, x: &[&str], image: &[i64], block: &[i64]| {
                let n = node("Col2Im", 3, 1, attrs);
                found(col2im, &n, 18, &[t(F32, x), ints(image), ints(block)])
            };
        assert!(c2(vec![], &["1", "10", "5"], &[5, 5], &[1, 5]).is_empty());
        assert!(
            c2(
                vec![attr_ints("pads", &[1, 1, 1, 1])],
                &["1", "10", "21"],
                &[5, 5],
                &[1, 5]
            )
            .is_empty()
        );
        assert!(
            c2(
                vec![attr_ints("dilations", &[2, 2])],
                &["1", "4", "9"],
                &[5, 5],
                &[2, 2]
            )
            .is_empty()
        );
        assert!(
            c2(
                vec![attr_ints("strides", &[2, 2])],
                &["1", "4", "9"],
                &[6, 6],
                &[2, 2]
            )
            .is_empty()
        );
        assert_eq!(
            c2(vec![], &["10", "5"], &[5, 5], &[1, 5]),
            ["E2 col2im-rank"]
        );
        assert_eq!(
            c2(vec![], &["1", "10", "5"], &[5, 5], &[1, 5, 1]),
            ["E2 col2im-lengths"]
        );
        assert_eq!(
            c2(
                vec![attr_ints("pads", &[0, 0])],
                &["1", "10", "5"],
                &[5, 5],
                &[1, 5]
            ),
            ["E2 col2im-lengths"]
        );
        assert_eq!(
            c2(
                vec![attr_ints("strides", &[1])],
                &["1", "10", "5"],
                &[5, 5],
                &[1, 5]
            ),
            ["E2 col2im-lengths"]
        );
        assert_eq!(
            c2(vec![], &["1", "10", "5"], &[5, 5], &[0, 5]),
            ["E3 col2im-values"]
        );
        assert_eq!(
            c2(vec![], &["1", "11", "5"], &[5, 5], &[1, 5]),
            ["E2 col2im-channels"]
        );
        assert_eq!(
            c2(vec![], &["1", "0", "5"], &[5, 5], &[1, 5]),
            ["E2 col2im-channels"]
        );
        assert_eq!(
            c2(vec![], &["1", "C", "5"], &[5, 5], &[1, 5]),
            ["W2 col2im-channels"]
        );
        assert_eq!(
            c2(vec![], &["1", "10", "12"], &[5, 5], &[1, 5]),
            ["E2 col2im-blocks"]
        );
        assert_eq!(
            c2(vec![], &["1", "6", "1"], &[2, 2], &[3, 2]),
            ["E2 col2im-blocks"]
        );
        assert_eq!(
            c2(vec![], &["1", "10", "L"], &[5, 5], &[1, 5]),
            ["W2 col2im-blocks"]
        );
    }

    #[test]
    fn roi_align_and_nms_contracts() {
        let n = node("RoiAlign", 3, 1, vec![]);
        let ra = |x: &[&str], rois: &[&str], idx: &[&str]| {
            found(roi_align, &n, 16, &[t(F32, x), t(F32, rois), t(I64, idx)])
        };
        assert!(ra(&["N", "2", "5", "5"], &["R", "4"], &["R"]).is_empty());
        assert_eq!(
            ra(&["2", "5", "5"], &["3", "4"], &["3"]),
            ["E2 roi-align-rank"]
        );
        assert_eq!(
            ra(&["1", "2", "5", "5"], &["3", "4", "1"], &["3"]),
            ["E2 roi-align-rank"]
        );
        assert_eq!(
            ra(&["1", "2", "5", "5"], &["3", "4"], &["3", "1"]),
            ["E2 roi-align-rank"]
        );
        assert_eq!(
            ra(&["1", "2", "5", "5"], &["3", "4"], &["2"]),
            ["E2 roi-align-rois"]
        );
        assert_eq!(
            ra(&["1", "2", "5", "5"], &["3", "5"], &["3"]),
            ["E2 roi-align-rois"]
        );
        assert_eq!(
            ra(&["1", "2", "5", "5"], &["R", "4"], &["S"]),
            ["W2 roi-align-rois"]
        );
        let n = node("NonMaxSuppression", 2, 1, vec![]);
        let nms =
            |b: &[&str], s: &[&str]| found(non_max_suppression, &n, 11, &[t(F32, b), t(F32, s)]);
        assert!(nms(&["B", "N", "4"], &["B", "C", "N"]).is_empty());
        assert_eq!(nms(&["6", "4"], &["1", "2", "6"]), ["E2 nms-rank"]);
        assert_eq!(nms(&["1", "6", "4"], &["2", "6"]), ["E2 nms-rank"]);
        assert_eq!(nms(&["2", "6", "4"], &["1", "2", "6"]), ["E2 nms-boxes"]);
        assert_eq!(nms(&["1", "6", "4"], &["1", "2", "5"]), ["E2 nms-boxes"]);
        assert_eq!(nms(&["1", "6", "5"], &["1", "2", "6"]), ["E2 nms-boxes"]);
        assert_eq!(nms(&["B", "6", "4"], &["A", "2", "6"]), ["W2 nms-boxes"]);
    }
}
