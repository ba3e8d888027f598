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

use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::{div_exact, like, size_of_value, unknown_dims};
use super::support::{dim_at, dim_of, elem, or_dim};
use crate::proto::tensor_proto::DataType;

pub fn register(r: &mut Registry) {
    r.add("", "GridSample", 16, grid_sample);
    r.add("", "AffineGrid", 20, affine_grid);
    r.add("", "Col2Im", 18, col2im);
    r.add("", "RoiAlign", 10, roi_align);
    r.add("", "NonMaxSuppression", 10, non_max_suppression);
    r.add("", "ImageDecoder", 20, image_decoder);
}

fn grid_sample(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
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

fn affine_grid(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
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

fn col2im(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
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

fn roi_align(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let rois = or_dim(dim_of(ctx, 1, 2, 0), dim_of(ctx, 2, 1, 0));
    let out = vec![
        rois,
        dim_of(ctx, 0, 4, 1),
        size_attr(ctx, "output_height", 1),
        size_attr(ctx, "output_width", 1),
    ];
    vec![like(ctx, 0, Some(out))]
}

fn non_max_suppression(_: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
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
            &[t(F32, &["1", "10", "12"]), ints(&[5, 5]), ints(&[1, 5])],
        );
        assert_eq!(s, shape(&["1", "2", "5", "5"]));
        let s = out_shape(
            col2im,
            &n,
            18,
            &[t(F32, &["1", "10", "12"]), None, ints(&[3, 5])],
        );
        assert_eq!(s, shape(&["1", "?", "?", "?"]));
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
}
