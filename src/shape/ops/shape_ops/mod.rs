//! Operators that compute, carry or rearrange shapes — with data propagation, so that the values of
//! shape tensors (symbols included) flow from `Shape` through `Gather`, `Unsqueeze`, `Concat` and the
//! like into `Reshape`, `Expand` and `ConstantOfShape`. One file per family, each with its spec links
//! and opset history:
//!
//! - `layout.rs`: Shape, Size, Reshape, Flatten, Transpose, Squeeze, Unsqueeze;
//! - `concat_split.rs`: Concat, Split;
//! - `slice_pad.rs`: Slice, Tile, Pad, CenterCropPad;
//! - `generators.rs`: Constant, ConstantOfShape, Range;
//! - `resize.rs`: DepthToSpace, SpaceToDepth, Resize, Upsample.
//!
//! Sizes stay exact: symbolic sizes are computed in the polynomial algebra of
//! [`Poly`](crate::shape::dim::Poly) (a Reshape's -1 of `[batch, seq, 768]` to `[0, -1, 64]` is
//! `seq*12`, a Concat of `seq` and 1 is `seq+1`, a Slice `[:seq]` of 512 is `min(seq, 512)`, a Resize
//! by 0.5 `floor(h/2)`), and a size that is not exactly an expression (`seq / 5`, a Resize of a symbol
//! by 0.1) is unknown. This file holds the registrations, the helpers the families share, and the
//! tests of values flowing across families.

mod concat_split;
mod generators;
mod layout;
mod resize;
mod slice_pad;

use crate::proto::tensor_proto::DataType;
use crate::shape::ctx::NodeCtx;
use crate::shape::dim::Dim;
use crate::shape::ops::common::size_of_value;
use crate::shape::registry::Registry;
use concat_split::{concat, split};
use generators::{constant, constant_of_shape, range};
use layout::{flatten, reshape, shape_op, size, squeeze, transpose, unsqueeze};
use resize::{depth_to_space, resize, space_to_depth, upsample};
use slice_pad::{center_crop_pad, pad, slice, tile};

/// Pad's size rule, which onnxruntime's contrib Pad shares.
pub(super) use slice_pad::padded;

pub fn register(r: &mut Registry) {
    r.add("", "Shape", 1, shape_op);
    r.add("", "Size", 1, size);
    r.add("", "Reshape", 1, reshape);
    r.add("", "Flatten", 1, flatten);
    r.add("", "Transpose", 1, transpose);
    r.add("", "Squeeze", 1, squeeze);
    r.add("", "Unsqueeze", 1, unsqueeze);
    r.add("", "Concat", 1, concat);
    r.add("", "Split", 1, split);
    r.add("", "Slice", 1, slice);
    r.add("", "Tile", 1, tile);
    r.add("", "Pad", 1, pad);
    r.add("", "CenterCropPad", 18, center_crop_pad);
    r.add("", "Constant", 1, constant);
    r.add("", "ConstantOfShape", 9, constant_of_shape);
    r.add("", "Range", 11, range);
    r.add("", "DepthToSpace", 1, depth_to_space);
    r.add("", "SpaceToDepth", 1, space_to_depth);
    r.add("", "Resize", 10, resize);
    r.add("", "Upsample", 1, upsample);
}

fn int64() -> Option<i32> {
    Some(DataType::Int64 as i32)
}

/// The values of input `slot` read as sizes (a negative value is no size).
fn sizes_of(ctx: &NodeCtx<'_>, slot: usize) -> Option<Vec<Dim>> {
    Some(ctx.data(slot)?.iter().map(size_of_value).collect())
}

/// Shapes as the tests write them.
#[cfg(test)]
fn text(s: &crate::shape::dim::Shape) -> String {
    crate::shape::dim::format_shape(s)
}

/// Sizes from numbers, as the tests write them.
#[cfg(test)]
fn vals(v: &[i64]) -> Vec<Dim> {
    v.iter()
        .map(|&x| crate::shape::value::from_i64(x))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::layout::transposed;
    use super::slice_pad::{HUGE, slice_data};
    use super::*;
    use crate::shape::ops::common::test_util::*;
    use crate::shape::ops::indexing::gather;
    use crate::shape::value::{Data, ValueInfo, from_i64};

    #[test]
    fn values_of_small_matrices_move_with_their_elements() {
        let m = Data::Ints((1..=6).map(from_i64).collect());
        let dims = [Dim::Known(2), Dim::Known(3)];
        // [[1, 2, 3], [4, 5, 6]] transposed is [[1, 4], [2, 5], [3, 6]].
        let tr = transposed(&dims, &[1, 0], &m).unwrap();
        assert_eq!(tr, Data::Ints(vals(&[1, 4, 2, 5, 3, 6])));
        // Rows reversed (torch's flip) and every second column.
        let rows = slice_data(&dims, Some(&m), &[0], &vals(&[-1]), &vals(&[-HUGE]), &[-1]);
        assert_eq!(rows, Some(Data::Ints(vals(&[4, 5, 6, 1, 2, 3]))));
        let cols = slice_data(&dims, Some(&m), &[1], &vals(&[0]), &vals(&[3]), &[2]);
        assert_eq!(cols, Some(Data::Ints(vals(&[1, 3, 4, 6]))));
        // Values that are not those of the whole tensor, and an empty tensor with a huge axis.
        assert_eq!(
            transposed(&[Dim::Known(4), Dim::Known(3)], &[1, 0], &m),
            None
        );
        let huge = [Dim::Known(0), Dim::Known(1 << 62), Dim::Known(1 << 62)];
        let empty = Data::Ints(Vec::new());
        assert_eq!(transposed(&huge, &[2, 1, 0], &empty), Some(empty.clone()));
        assert_eq!(
            slice_data(&huge, Some(&empty), &[1], &vals(&[0]), &vals(&[5]), &[1]),
            Some(empty)
        );
        // A Reshape to [-1, 2] keeps them; one to an unknown size does not.
        let r = node("Reshape", 2, 1, vec![]);
        let x = Some(ValueInfo::int64_data(vals(&[2, 2, 0, 0]), false));
        let out = run(reshape, &r, 14, &[x.clone(), ints(&[-1, 2])]).remove(0);
        assert_eq!(text(&out.shape), "[2, 2]");
        assert_eq!(out.int_vec(), Some(vals(&[2, 2, 0, 0])));
        // ... but a matrix is no list: as a Reshape target it says nothing.
        let y = run(reshape, &r, 14, &[t(F32, &["4"]), Some(out)]).remove(0);
        assert_eq!(y.shape, None);
        let out = run(
            reshape,
            &r,
            14,
            &[x, Some(ValueInfo::tensor(I64, shape(&["2"])))],
        );
        assert_eq!(
            (text(&out[0].shape), out[0].data.clone()),
            ("[?, ?]".to_owned(), None)
        );
    }

    /// The transformer pattern: Shape -> Gather -> Unsqueeze -> Concat(with constants) -> Reshape.
    #[test]
    fn shape_arithmetic_chain_reaches_reshape() {
        let x = t(F32, &["batch", "seq", "768"]);
        let s = run(
            shape_op,
            &node("Shape", 1, 1, vec![]),
            13,
            std::slice::from_ref(&x),
        )
        .remove(0);
        let g = node("Gather", 2, 1, vec![attr_i("axis", 0)]);
        let b = run(gather, &g, 13, &[Some(s.clone()), int(0)]).remove(0);
        assert_eq!(
            (b.shape.clone(), b.int_vec()),
            (shape(&[]), Some(vec![d("batch")]))
        );
        let sq = run(gather, &g, 13, &[Some(s), int(-2)]).remove(0);
        let un = node("Unsqueeze", 2, 1, vec![]);
        let b1 = run(unsqueeze, &un, 13, &[Some(b), ints(&[0])]).remove(0);
        let s1 = run(unsqueeze, &un, 13, &[Some(sq), ints(&[0])]).remove(0);
        assert_eq!(b1.int_vec(), Some(vec![d("batch")]));
        let cat = node("Concat", 4, 1, vec![attr_i("axis", 0)]);
        let target = run(
            concat,
            &cat,
            13,
            &[Some(b1.clone()), Some(s1), ints(&[12]), ints(&[64])],
        )
        .remove(0);
        assert_eq!(target.shape, shape(&["4"]));
        let r = node("Reshape", 2, 1, vec![]);
        let out = run(reshape, &r, 14, &[x.clone(), Some(target)]).remove(0);
        assert_eq!(out.shape, shape(&["batch", "seq", "12", "64"]));
        // [batch, -1, 768] infers seq; [batch, -1, 64] cannot say seq * 12.
        let cat3 = node("Concat", 3, 1, vec![attr_i("axis", 0)]);
        let target = run(
            concat,
            &cat3,
            13,
            &[Some(b1.clone()), ints(&[-1]), ints(&[768])],
        )
        .remove(0);
        let out = run(reshape, &r, 14, &[x.clone(), Some(target)]).remove(0);
        assert_eq!(out.shape, shape(&["batch", "seq", "768"]));
        let target = run(
            concat,
            &cat3,
            13,
            &[Some(b1.clone()), ints(&[-1]), ints(&[64])],
        )
        .remove(0);
        let out = run(reshape, &r, 14, &[x, Some(target)]).remove(0);
        assert_eq!(text(&out.shape), "[batch, seq*12, 64]");
        // ConstantOfShape of a shape assembled from a symbol and a constant.
        let cat2 = node("Concat", 2, 1, vec![attr_i("axis", 0)]);
        let dims = run(concat, &cat2, 13, &[Some(b1), ints(&[1])]).remove(0);
        let c = node("ConstantOfShape", 1, 1, vec![]);
        assert_eq!(
            run(constant_of_shape, &c, 9, &[Some(dims)])[0].shape,
            shape(&["batch", "1"])
        );
    }
}
