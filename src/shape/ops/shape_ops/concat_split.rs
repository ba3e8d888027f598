//! Tensors joined and cut along an axis: Concat and Split, with their values carried (a Concat of
//! shape vectors is the next Reshape's target).
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#Concat> and
//! <https://github.com/onnx/onnx/blob/main/docs/Operators.md#Split>. Opset history that matters here:
//! - Concat: `axis` defaults to 1 in opset 1, is required from 4.
//! - Split: sizes in attribute `split` (opset 1 also as a second input) before 13, input from 13; 18
//!   adds `num_outputs` (chunks of `ceil(dim / n)`, the last one smaller).
//!
//! Contracts, as onnxruntime's kernels check them at run (`concat.cc`, `split.cc`; onnx's inference at
//! load catches the static ones first):
//! - Concat: [`CONCAT_RANK`], [`CONCAT_AXIS`], [`CONCAT_AXES`]. onnxruntime's kernel skips an input
//!   with no elements whatever its rank or sizes, but its shape inference at load does not: where the
//!   shapes are known, as they are here, such an input is refused like any other.
//! - Split: [`SPLIT_AXIS`]; with sizes, [`SPLIT_SIZES`] (as many as outputs, none negative, summing to
//!   the axis); without, [`SPLIT_EVEN`] (the axis a multiple of the outputs) or, with `num_outputs`,
//!   [`SPLIT_CHUNKS`]: onnxruntime cuts chunks of `ceil(dim / n)` and refuses a `dim` that such chunks
//!   do not cut into `n` pieces (9 into 4: 3, 3, 3 and nothing), which the spec leaves undefined.

use crate::proto::tensor_proto::DataType;
use crate::shape::contract::{Contract, Operand};
use crate::shape::ctx::NodeCtx;
use crate::shape::dim::{Dim, Poly, Shape};
use crate::shape::ops::common::{Param, axis, div_exact, size_of_value, sum, values_if_small};
use crate::shape::value::{Data, MAX_DATA_ELEMENTS, ValueInfo, as_i64, from_i64};

/// What several inputs say of one dimension that must be equal across them: a known size if any
/// gives one, else a symbol.
fn agree<'a>(dims: impl IntoIterator<Item = &'a Dim>) -> Dim {
    let mut best = Dim::Unknown;
    for d in dims {
        match (d, &best) {
            (Dim::Known(_), _) => return d.clone(),
            (Dim::Sym(_), Dim::Unknown) => best = d.clone(),
            _ => {}
        }
    }
    best
}

pub const CONCAT_RANK: Contract =
    Contract::new("concat-rank", "the inputs have one rank, 1 or more");
pub const CONCAT_AXIS: Contract = Contract::new(
    "concat-axis",
    "axis is an axis of the inputs, in [-rank, rank-1]",
);
pub const CONCAT_AXES: Contract = Contract::new(
    "concat-axes",
    "the inputs have equal sizes on every axis but the concatenation's",
);

/// Checks Concat's contracts on the inputs of known rank; false when one is broken.
fn concat_contracts(ctx: &mut NodeCtx<'_>, a: i64) -> bool {
    let shaped: Vec<(usize, Vec<Dim>)> = (0..ctx.num_inputs())
        .filter_map(|k| Some((k, ctx.shape(k)?)))
        .collect();
    let Some((first, reference)) = shaped.first() else {
        return true;
    };
    let r = reference.len();
    if let Some((k, _)) = shaped.iter().find(|(_, s)| s.is_empty()) {
        ctx.broken(CONCAT_RANK, &[*k], format_args!("input {k} is a scalar"));
        return false;
    }
    if let Some((k, s)) = shaped.iter().find(|(_, s)| s.len() != r) {
        let detail = format!("input {first} has rank {r}, input {k} rank {}", s.len());
        ctx.broken(CONCAT_RANK, &[*first, *k], detail);
        return false;
    }
    let slots: Vec<usize> = shaped.iter().map(|(k, _)| *k).collect();
    let Some(along) = ctx.require_axis(CONCAT_AXIS, &slots, a, r) else {
        return false;
    };
    let mut kept = true;
    for i in (0..r).filter(|&i| i != along) {
        let operands: Vec<Operand> = slots.iter().filter_map(|&k| ctx.operand(k, i)).collect();
        kept &= ctx.require_equal(CONCAT_AXES, &operands);
    }
    kept
}

pub(super) fn concat(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let a = ctx
        .attr_i("axis")
        .or((ctx.opset < 4).then_some(1))
        .unwrap_or(0);
    if !concat_contracts(ctx, a) {
        return vec![ValueInfo::tensor(ctx.elem(0), None)];
    }
    let shapes: Vec<Shape> = (0..ctx.num_inputs()).map(|k| ctx.shape(k)).collect();
    let elem = (0..ctx.num_inputs()).find_map(|k| ctx.elem(k));
    let rank = shapes.iter().flatten().map(Vec::len).next();
    let shape = rank.and_then(|r| {
        let k = axis(a, r)?;
        let column = |i: usize| -> Vec<Dim> {
            shapes
                .iter()
                .map(|s| match s {
                    Some(s) if s.len() == r => s[i].clone(),
                    _ => Dim::Unknown,
                })
                .collect()
        };
        Some(
            (0..r)
                .map(|i| {
                    if i == k {
                        sum(&column(i))
                    } else {
                        agree(&column(i))
                    }
                })
                .collect(),
        )
    });
    // Values of 1-D inputs concatenate (shape tensors assembled piece by piece, scales too). An
    // integer input of known length whose values are not known stands for that many unknown values,
    // so that the others (a literal `4` beside a computed size) are kept.
    let data = if rank == Some(1) && (0..ctx.num_inputs()).any(|k| ctx.values(k).is_some()) {
        let holes: Vec<Option<Data>> = (0..ctx.num_inputs())
            .map(|k| unknown_ints(ctx, k))
            .collect();
        (0..ctx.num_inputs())
            .map(|k| {
                ctx.values(k)
                    .filter(|_| ctx.input(k).and_then(ValueInfo::rank) == Some(1))
                    .or(holes[k].as_ref())
            })
            .collect::<Option<Vec<_>>>()
            .and_then(Data::concat)
    } else {
        None
    };
    let data = values_if_small(&shape, data);
    vec![ValueInfo::tensor(elem, shape).with_values(data)]
}

/// For a 1-D integer input `slot` of known length without known values: that many unknown values.
fn unknown_ints(ctx: &NodeCtx<'_>, slot: usize) -> Option<Data> {
    let v = ctx.input(slot)?;
    let int = |t: DataType| v.elem == Some(t as i32);
    if v.data.is_some() || !(int(DataType::Int64) || int(DataType::Int32)) {
        return None;
    }
    match v.shape.as_deref()? {
        [Dim::Known(n)] if *n <= MAX_DATA_ELEMENTS => {
            Some(Data::Ints(vec![Dim::Unknown; usize::try_from(*n).ok()?]))
        }
        _ => None,
    }
}

/// The split sizes, as values: from the attribute, or from input 1 (opset 1, and from 13), where they
/// may be computed (symbols included).
fn split_sizes(ctx: &NodeCtx<'_>) -> Param<Dim> {
    let from_input = ctx.opset >= 13 || (ctx.opset < 2 && ctx.attr("split").is_none());
    if !from_input {
        return ctx
            .attr_ints("split")
            .map(|s| s.iter().map(|&v| from_i64(v)).collect())
            .into();
    }
    if !ctx.has_input(1) {
        return Param::Absent;
    }
    ctx.data(1)
        .map_or(Param::Unknown, |d| Param::Known(d.to_vec()))
}

/// The sizes of `n` equal parts of `dim`; from opset 18 with `num_outputs`, chunks of `ceil(dim / n)`
/// with a smaller last one.
fn equal_parts(dim: &Dim, n: usize, uneven: bool) -> Vec<Dim> {
    let Dim::Known(total) = dim else {
        // A symbolic size splits evenly only where it divides (`seq*12` in 3 parts of `seq*4`); in
        // chunks it is `ceil(dim / n)` each and the rest for the last, exact wherever the op runs.
        return if uneven {
            symbolic_chunks(dim, n)
        } else {
            vec![div_exact(dim, n as u64); n]
        };
    };
    let n64 = n as u64;
    if n64 == 0 {
        return Vec::new();
    }
    if total % n64 == 0 {
        return vec![Dim::Known(total / n64); n];
    }
    if !uneven {
        return vec![Dim::Unknown; n];
    }
    let chunk = total.div_ceil(n64);
    let last = chunk
        .checked_mul(n64 - 1)
        .and_then(|used| total.checked_sub(used));
    let mut out = vec![Dim::Known(chunk); n - 1];
    out.push(last.map_or(Dim::Unknown, Dim::Known));
    out
}

/// `n` chunks of a symbolic `dim`: `ceil(dim / n)` for all but the last, which has the rest.
fn symbolic_chunks(dim: &Dim, n: usize) -> Vec<Dim> {
    let sizes = || -> Option<(Poly, Poly)> {
        let total = Poly::of_size(dim)?;
        let k = i64::try_from(n).ok().filter(|&k| k > 0)?;
        let chunk = total.ceil_div(k)?;
        let last = total.sub(&chunk.mul(&Poly::constant(k - 1))?)?;
        Some((chunk, last))
    };
    match sizes() {
        Some((chunk, last)) => {
            let mut out = vec![chunk.into_size(); n - 1];
            out.push(last.into_size());
            out
        }
        None => vec![Dim::Unknown; n],
    }
}

pub const SPLIT_AXIS: Contract = Contract::new(
    "split-axis",
    "axis is an axis of the input, in [-rank, rank-1]",
);
pub const SPLIT_SIZES: Contract = Contract::new(
    "split-sizes",
    "the split sizes are as many as the outputs, none negative, and sum to the axis's size",
);
pub const SPLIT_EVEN: Contract = Contract::new(
    "split-even",
    "without split sizes, the axis's size is a multiple of the number of outputs",
);
pub const SPLIT_CHUNKS: Contract = Contract::new(
    "split-chunks",
    "with num_outputs n, chunks of ceil(size / n) cut the axis into n pieces (onnxruntime's reading)",
);

/// Checks the split sizes `sizes` (as values: negative ones are huge) against the `n` outputs and
/// the axis's size `total`; false when they break [`SPLIT_SIZES`].
fn check_split_sizes(ctx: &mut NodeCtx<'_>, sizes: &[Dim], n: usize, total: &Dim) -> bool {
    if sizes.len() != n {
        let detail = format!("{} sizes for {n} outputs", sizes.len());
        ctx.broken(SPLIT_SIZES, &[0], detail);
        return false;
    }
    if let Some(v) = sizes.iter().filter_map(as_i64).find(|&v| v < 0) {
        ctx.out_of_range(SPLIT_SIZES, &[0], format_args!("a size of {v}"));
        return false;
    }
    let sum = Operand::new("the split sizes' sum", sum(sizes));
    let axis = Operand::new("the axis's size", total.clone()).from_input(0);
    ctx.require_equal(SPLIT_SIZES, &[sum, axis])
}

/// Whether onnxruntime's chunks for `num_outputs` `n` cut an axis of known size `total`: `n` chunks of
/// `ceil(total / n)`, the last one replaced by the rest when there is a rest; false (after an E2) when
/// they do not add up to `total`. An empty axis is left alone (onnxruntime divides by its chunk of 0).
fn check_chunks(ctx: &mut NodeCtx<'_>, total: u64, n: usize) -> bool {
    let n64 = n as u64;
    if total == 0 || n64 == 0 {
        return true;
    }
    let chunk = total.div_ceil(n64);
    let last = match total % chunk {
        0 => chunk,
        rest => rest,
    };
    let cut = chunk.saturating_mul(n64 - 1).saturating_add(last);
    if cut != total {
        let detail = format!(
            "an axis of size {total} in {n} chunks of {chunk}, the last of {last}: {cut} in all"
        );
        ctx.broken(SPLIT_CHUNKS, &[0], detail);
        return false;
    }
    true
}

pub(super) fn split(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let n = ctx.num_outputs();
    let elem = ctx.elem(0);
    let unknown = |elem| vec![ValueInfo::tensor(elem, None); n];
    let Some(dims) = ctx.shape(0) else {
        return unknown(elem);
    };
    let Some(k) = ctx.require_axis(
        SPLIT_AXIS,
        &[0],
        ctx.attr_i("axis").unwrap_or(0),
        dims.len(),
    ) else {
        return unknown(elem);
    };
    let sizes: Vec<Dim> = match split_sizes(ctx) {
        Param::Known(s) => {
            if !check_split_sizes(ctx, &s, n, &dims[k]) {
                return unknown(elem);
            }
            s.iter().map(size_of_value).collect()
        }
        Param::Absent => {
            let uneven = ctx.opset >= 18 && ctx.attr_i("num_outputs").is_some();
            let kept = match (uneven, &dims[k]) {
                (true, Dim::Known(total)) => check_chunks(ctx, *total, n),
                (true, _) => true,
                (false, d) => {
                    let d = Operand::new("the axis's size", d.clone()).from_input(0);
                    ctx.require_multiple(SPLIT_EVEN, &d, n as u64)
                }
            };
            if !kept {
                return unknown(elem);
            }
            equal_parts(&dims[k], n, uneven)
        }
        Param::Unknown => vec![Dim::Unknown; n],
    };
    let data = ctx.values(0).filter(|_| dims.len() == 1);
    let mut offset: Option<usize> = Some(0);
    sizes
        .into_iter()
        .map(|len| {
            let mut s = dims.clone();
            s[k] = len.clone();
            // Values of a split 1-D tensor are the consecutive runs.
            let end = offset
                .zip(len.known())
                .and_then(|(at, len)| at.checked_add(usize::try_from(len).ok()?));
            let part = data
                .zip(offset)
                .zip(end)
                .and_then(|((values, at), end)| values.pick(at..end));
            offset = end;
            ValueInfo::tensor(elem, Some(s)).with_values(part)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::text;
    use super::*;

    use crate::shape::ops::common::mul;
    use crate::shape::ops::common::test_util::*;

    #[test]
    fn concat_sums_the_axis_and_joins_values() {
        let n = node("Concat", 3, 1, vec![attr_i("axis", 1)]);
        let s = out_shape(
            concat,
            &n,
            13,
            &[
                t(F32, &["N", "2"]),
                t(F32, &["?", "3"]),
                t(F32, &["N", "M"]),
            ],
        );
        assert_eq!(text(&s), "[N, M+5]");
        let s = out_shape(
            concat,
            &n,
            13,
            &[
                t(F32, &["N", "S"]),
                t(F32, &["?", "1"]),
                t(F32, &["N", "S"]),
            ],
        );
        assert_eq!(text(&s), "[N, S*2+1]");
        let s = out_shape(concat, &n, 13, &[t(F32, &["N", "S"]), t(F32, &["?", "?"])]);
        assert_eq!(s, shape(&["N", "?"]));
        let s = out_shape(
            concat,
            &n,
            13,
            &[t(F32, &["N", "2"]), t(F32, &["?", "3"]), None],
        );
        assert_eq!(s, shape(&["N", "?"]));
        let n2 = node("Concat", 2, 1, vec![attr_i("axis", -1)]);
        let s = out_shape(concat, &n2, 13, &[t(F32, &["N", "0"]), t(F32, &["4", "S"])]);
        assert_eq!(s, shape(&["4", "S"]));
        let n = node("Concat", 2, 1, vec![attr_i("axis", 0)]);
        let out = run(concat, &n, 13, &[ints(&[1, 2]), ints(&[3])]);
        assert_eq!(out[0].data_i64(), Some(vec![1, 2, 3]));
        let bad = node("Concat", 2, 1, vec![attr_i("axis", 5)]);
        assert_eq!(out_shape(concat, &bad, 13, &[ints(&[1]), ints(&[3])]), None);
    }

    #[test]
    fn split_sizes_from_attribute_input_or_equal_parts() {
        let n = node("Split", 2, 2, vec![attr_i("axis", 1)]);
        let out = run(split, &n, 13, &[t(F32, &["N", "10"]), ints(&[3, 7])]);
        assert_eq!(out[1].shape, shape(&["N", "7"]));
        let n = node("Split", 1, 3, vec![attr_i("axis", -1)]);
        let out = run(split, &n, 13, &[t(F32, &["N", "9"])]);
        assert_eq!(out[2].shape, shape(&["N", "3"]));
        // 10 in 3 equal parts: no shape, and the contract broken.
        let (out, found) = run_all(split, &n, 13, &[t(F32, &["N", "10"])]);
        assert_eq!(out[2].shape, None);
        assert_eq!(found[0].contract, Some("split-even"));
        let n = node("Split", 1, 3, vec![attr_i("num_outputs", 3)]);
        let out = run(split, &n, 18, &[t(F32, &["10"])]);
        let sizes: Vec<Shape> = out.iter().map(|v| v.shape.clone()).collect();
        assert_eq!(sizes, vec![shape(&["4"]), shape(&["4"]), shape(&["2"])]);
        let n = node("Split", 1, 4, vec![attr_i("num_outputs", 4)]);
        // 5 in 4: chunks of 2, the last of 1, 7 in all: onnxruntime refuses it.
        let (out, found) = run_all(split, &n, 18, &[t(F32, &["5"])]);
        assert_eq!(out[3].shape, None);
        assert_eq!(found[0].contract, Some("split-chunks"));
        let out = run(split, &n, 18, &[t(F32, &["7"])]);
        let sizes: Vec<Shape> = out.iter().map(|v| v.shape.clone()).collect();
        assert_eq!(
            sizes,
            [shape(&["2"]), shape(&["2"]), shape(&["2"]), shape(&["1"])]
        );
        // Symbolic chunks: ceil(L/4) each, the rest last; at every L where the last is a size, the
        // sizes add up to L.
        let out = run(split, &n, 18, &[t(F32, &["L"])]);
        let sizes: Vec<String> = out.iter().map(|v| text(&v.shape)).collect();
        assert_eq!(sizes[..3], ["[ceil(L/4)]", "[ceil(L/4)]", "[ceil(L/4)]"]);
        let (Some([Dim::Sym(chunk)]), Some([Dim::Sym(last)])) =
            (out[0].shape.as_deref(), out[3].shape.as_deref())
        else {
            panic!("{sizes:?}");
        };
        for l in 0..200i64 {
            let (c, r) = (chunk.eval(&|_| Some(l)), last.eval(&|_| Some(l)));
            assert_eq!(c, Some((l + 3) / 4), "L = {l}");
            assert_eq!(r, Some(l - 3 * ((l + 3) / 4)), "L = {l}");
        }
        let x = ValueInfo::tensor(F32, Some(vec![mul(&d("seq"), &d("12"))]));
        let n = node("Split", 1, 3, vec![attr_i("num_outputs", 3)]);
        let out = run(split, &n, 18, &[Some(x)]);
        assert!(out.iter().all(|v| text(&v.shape) == "[seq*4]"), "{out:?}");
        let n = node("Split", 1, 2, vec![attr_ints("split", &[1, 2])]);
        let out = run(split, &n, 11, &[ints(&[7, 8, 9])]);
        assert_eq!(out[1].data_i64(), Some(vec![8, 9]));
        // Sizes that do not sum to the axis, or a negative one: the contract broken, no shapes.
        let n = node("Split", 1, 2, vec![attr_ints("split", &[2, 2])]);
        let (out, found) = run_all(split, &n, 11, &[ints(&[7, 8, 9])]);
        assert_eq!((out[1].int_vec(), out[1].shape.clone()), (None, None));
        assert!(
            found[0]
                .message
                .ends_with("here 4 (the split sizes' sum) vs 3 (the axis's size)")
        );
        let n = node("Split", 1, 2, vec![attr_ints("split", &[-5, i64::MAX])]);
        let (out, found) = run_all(split, &n, 11, &[ints(&[7, 8, 9])]);
        assert_eq!(out[0].shape, None);
        assert_eq!(found[0].code, crate::diagnostics::Code::ValueOutOfRange);
    }
}
