//! Tensors made from attributes and sizes: Constant, ConstantOfShape and Range, with their values
//! when small (a Constant's shape vector, a Range of symbols).
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#Constant> and the pages of each op.
//! Opset history that matters here:
//! - Constant: `sparse_value` from 11; `value_int(s)`, `value_float(s)`, `value_string(s)` from 12.
//! - ConstantOfShape (9): element type of the `value` attribute, FLOAT by default.
//! - Range (11): the length is `max(ceil((limit - start) / delta), 0)`.
//!
//! Contracts, as onnxruntime enforces them:
//! - [`CONSTANT_OF_SHAPE_RANK`]: the shape input not a scalar (at load by onnx's inference when its
//!   value is not a constant, by the kernel at run when it is). A 2-D input is refused at load
//!   unless it is a constant, whose values the kernel reads flattened; whether onnxruntime sees a
//!   constant is not known here, so it is not reported.
//! - [`RANGE_SCALARS`]: start, limit and delta scalar-like, rank 0 or 1-D of one value (the kernel,
//!   at run). onnx's inference also refuses `[1]` at load when all three are constants: not
//!   reported, since whether onnxruntime sees a constant is not known here.
//! - [`RANGE_DELTA`]: delta not 0 (the kernel, at run).

use super::{int64, sizes_of};
use crate::proto::tensor_proto::DataType;
use crate::shape::contract::{Contract, Operand};
use crate::shape::ctx::NodeCtx;
use crate::shape::dim::{Dim, Poly};
use crate::shape::ops::common::{len_1d, unknown_dims};
use crate::shape::value::{
    Data, MAX_DATA_ELEMENTS, MAX_FLOAT_ELEMENTS, ValueInfo, as_i64, from_i64, from_tensor,
    round_to_elem,
};

pub(super) fn constant(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let scalar = Some(Vec::new());
    let vector = |n: usize| Some(vec![Dim::Known(n as u64)]);
    let info = if let Some(t) = ctx.attr_t("value") {
        from_tensor(t)
    } else if let Some(s) = ctx
        .attr("sparse_value")
        .and_then(|a| a.sparse_tensor.as_ref())
    {
        let shape = s
            .dims
            .iter()
            .map(|&d| u64::try_from(d).ok().map(Dim::Known))
            .collect::<Option<Vec<_>>>();
        let elem = s.values.as_ref().map(|v| v.data_type()).filter(|&e| e != 0);
        ValueInfo::tensor(elem, shape)
    } else if let Some(v) = ctx.attr_i("value_int") {
        ValueInfo::int64_data(vec![from_i64(v)], true)
    } else if let Some(a) = ctx.attr("value_ints") {
        let values: Vec<Dim> = a.ints.iter().map(|&v| from_i64(v)).collect();
        let data = (values.len() as u64 <= MAX_DATA_ELEMENTS).then_some(values);
        ValueInfo::tensor(int64(), vector(a.ints.len())).with_data(data)
    } else if let Some(v) = ctx.attr_f("value_float") {
        ValueInfo::tensor(Some(DataType::Float as i32), scalar)
            .with_values(Some(Data::Floats(Box::new([f64::from(v)]))))
    } else if let Some(a) = ctx.attr("value_floats") {
        let data = (a.floats.len() as u64 <= MAX_FLOAT_ELEMENTS)
            .then(|| Data::Floats(a.floats.iter().map(|&x| f64::from(x)).collect()));
        ValueInfo::tensor(Some(DataType::Float as i32), vector(a.floats.len())).with_values(data)
    } else if ctx.attr("value_string").is_some() {
        ValueInfo::tensor(Some(DataType::String as i32), scalar)
    } else if let Some(a) = ctx.attr("value_strings") {
        ValueInfo::tensor(Some(DataType::String as i32), vector(a.strings.len()))
    } else {
        ValueInfo::unknown()
    };
    vec![info]
}

/// ConstantOfShape's shape input.
pub const CONSTANT_OF_SHAPE_RANK: Contract = Contract::new(
    "constant-of-shape-rank",
    "the shape input is 1-D, not a scalar",
);

/// Range's inputs.
pub const RANGE_SCALARS: Contract = Contract::new(
    "range-scalars",
    "start, limit and delta are scalars, or 1-D of one value",
);

/// Range's step.
pub const RANGE_DELTA: Contract = Contract::new("range-delta", "delta is not 0");

pub(super) fn constant_of_shape(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if ctx.input(0).and_then(ValueInfo::rank) == Some(0) {
        ctx.broken(CONSTANT_OF_SHAPE_RANK, &[0], "the shape input is a scalar");
        return vec![ValueInfo::unknown()];
    }
    let value = ctx.attr_t("value");
    let elem = value
        .map(|t| t.data_type())
        .filter(|&e| e != 0)
        .or(Some(DataType::Float as i32));
    let shape = match sizes_of(ctx, 0) {
        Some(dims) => Some(dims),
        None => len_1d(ctx, 0).and_then(unknown_dims),
    };
    // A fill of a small known shape has known values (0.0 when no value is given).
    let fill = match value {
        Some(t) => from_tensor(t).data.filter(|d| d.len() == 1),
        None => Some(Data::Floats(Box::new([0.0]))),
    };
    let count = match shape.as_deref() {
        Some([]) => Some(1),
        Some([Dim::Known(n)]) => Some(*n),
        _ => None,
    };
    let limit = match fill {
        Some(Data::Floats(_)) => MAX_FLOAT_ELEMENTS,
        _ => MAX_DATA_ELEMENTS,
    };
    let data = count
        .filter(|&n| n <= limit)
        .zip(fill)
        .and_then(|(n, x)| x.pick(std::iter::repeat_n(0, n as usize)));
    vec![ValueInfo::tensor(elem, shape).with_values(data)]
}

/// The value of a scalar (or one-element) input.
fn scalar_value<'c>(ctx: &'c NodeCtx<'_>, slot: usize) -> Option<&'c Dim> {
    match ctx.data(slot)? {
        [v] => Some(v),
        _ => None,
    }
}

/// [`RANGE_SCALARS`] and [`RANGE_DELTA`]; false after a break.
fn range_contracts(ctx: &mut NodeCtx<'_>) -> bool {
    for (slot, name) in [(0, "start"), (1, "limit"), (2, "delta")] {
        match ctx.shape(slot).as_deref() {
            None | Some([] | [Dim::Known(1)]) => {}
            Some([d @ Dim::Sym(_)]) => {
                let what = format!("{name}'s length");
                let ops = [
                    Operand::new(what, d.clone()).from_input(slot),
                    Operand::new("one value", Dim::Known(1)),
                ];
                if !ctx.require_equal(RANGE_SCALARS, &ops) {
                    return false;
                }
            }
            Some([Dim::Unknown]) => {}
            Some(s) => {
                let shape = crate::shape::dim::format_shape(&Some(s.to_vec()));
                ctx.broken(
                    RANGE_SCALARS,
                    &[slot],
                    format_args!("{name} has shape {shape}"),
                );
                return false;
            }
        }
    }
    let zero = match (scalar_value(ctx, 2), ctx.floats(2)) {
        (Some(d), _) => as_i64(d) == Some(0),
        (None, Some([x])) => *x == 0.0,
        _ => false,
    };
    if zero {
        ctx.out_of_range(RANGE_DELTA, &[2], "delta is 0");
        return false;
    }
    true
}

/// Range(start, limit, delta): `max(ceil((limit - start) / delta), 0)` values.
pub(super) fn range(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if !range_contracts(ctx) {
        return vec![ValueInfo::unknown()];
    }
    let elem = ctx.elem(0).or(ctx.elem(1)).or(ctx.elem(2));
    let (start, limit, delta) = (
        scalar_value(ctx, 0),
        scalar_value(ctx, 1),
        scalar_value(ctx, 2),
    );
    let ints = |d: Option<&Dim>| d.and_then(as_i64);
    let (len, data) = match (ints(start), ints(limit), ints(delta)) {
        (Some(s), Some(l), Some(st)) if st != 0 => {
            // ceil(span / step), or 0 when the range runs the other way.
            let (span, st) = (i128::from(l) - i128::from(s), i128::from(st));
            let (a, b) = if st > 0 { (span, st) } else { (-span, -st) };
            let n = if a <= 0 { 0 } else { (a + b - 1) / b };
            let n = u64::try_from(n).unwrap_or(u64::MAX);
            let data = (n <= MAX_DATA_ELEMENTS).then(|| {
                (0..n as i128)
                    .map(|i| from_i64((i128::from(s) + i * st) as i64))
                    .collect()
            });
            (Dim::Known(n), data)
        }
        // Symbolic bounds and a known step k: max(ceil((limit - start) / k), 0) (Range(0, n, 1) has n
        // elements, Range(past, past+seq, 1) has seq, Range(0, seq, 2) ceil(seq/2)).
        (_, _, Some(k)) if k != 0 => {
            let len = start.zip(limit).and_then(|(s, l)| {
                let (s, l) = (Poly::of_value(s)?, Poly::of_value(l)?);
                let (span, k) = if k > 0 {
                    (l.sub(&s)?, k)
                } else {
                    (s.sub(&l)?, k.checked_neg()?)
                };
                Poly::max(&[span.ceil_div(k)?, Poly::constant(0)])
            });
            (len.map_or(Dim::Unknown, Poly::into_size), None)
        }
        _ => (float_range_len(ctx, elem), None),
    };
    vec![ValueInfo::tensor(elem, Some(vec![len])).with_data(data)]
}

/// The length of a Range of known float values as onnxruntime computes it:
/// `ceil((double)(limit - start) / delta)` with the difference taken in the element type, 0 when
/// not positive.
fn float_range_len(ctx: &NodeCtx<'_>, elem: Option<i32>) -> Dim {
    let one = |slot: usize| match ctx.floats(slot) {
        Some([v]) => Some(*v),
        _ => None,
    };
    let (Some(s), Some(l), Some(d)) = (one(0), one(1), one(2)) else {
        return Dim::Unknown;
    };
    let Some(span) = round_to_elem(elem, l - s) else {
        return Dim::Unknown;
    };
    let n = (span / d).ceil();
    if d == 0.0 || n.is_nan() || n >= 9.2e18 {
        Dim::Unknown
    } else {
        Dim::Known(n.max(0.0) as u64)
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    use crate::shape::ops::common::test_util::*;

    #[test]
    fn constant_of_shape_with_symbols_and_values() {
        let n = node(
            "ConstantOfShape",
            1,
            1,
            vec![attr_t("value", int64_tensor(&[1], &[1]))],
        );
        let out = run(constant_of_shape, &n, 9, &[ints(&[3])]);
        assert_eq!((out[0].elem, out[0].data_i64()), (I64, Some(vec![1, 1, 1])));
        let n = node("ConstantOfShape", 1, 1, vec![]);
        let dims = Some(ValueInfo::int64_data(vec![d("B"), from_i64(4)], false));
        let out = run(constant_of_shape, &n, 9, &[dims]);
        assert_eq!(
            (out[0].elem, out[0].shape.clone()),
            (F32, shape(&["B", "4"]))
        );
        let unknown = Some(ValueInfo::tensor(I64, shape(&["2"])));
        assert_eq!(
            run(constant_of_shape, &n, 9, &[unknown])[0].shape,
            shape(&["?", "?"])
        );
    }

    fn found(
        rule: crate::shape::registry::Rule,
        op: &str,
        inputs: &[Option<ValueInfo>],
    ) -> Vec<String> {
        let n = node(op, inputs.len(), 1, vec![]);
        contracts(rule, &n, 11, inputs)
    }

    #[test]
    fn constant_of_shape_rank() {
        let cos = |x: Option<ValueInfo>| found(constant_of_shape, "ConstantOfShape", &[x]);
        assert!(cos(ints(&[2, 3])).is_empty());
        assert!(cos(t(I64, &["K"])).is_empty());
        assert_eq!(cos(t(I64, &[])), ["E2 constant-of-shape-rank"]);
        assert_eq!(cos(int(3)), ["E2 constant-of-shape-rank"]);
        // A 2-D constant runs (read flattened), a 2-D input refused: which it is is not known.
        assert!(cos(t(I64, &["1", "2"])).is_empty());
    }

    #[test]
    fn range_scalars_and_delta() {
        let r = |a: Option<ValueInfo>, b: Option<ValueInfo>, c: Option<ValueInfo>| {
            found(range, "Range", &[a, b, c])
        };
        assert!(r(int(0), int(5), int(1)).is_empty());
        assert!(r(ints(&[0]), t(I64, &[]), t(I64, &["1"])).is_empty());
        assert!(r(t(I64, &[]), t(I64, &[]), t(I64, &[])).is_empty());
        assert_eq!(r(ints(&[0, 1]), int(5), int(1)), ["E2 range-scalars"]);
        assert_eq!(r(int(0), t(I64, &["1", "1"]), int(1)), ["E2 range-scalars"]);
        assert_eq!(r(int(0), int(5), t(I64, &["K"])), ["W2 range-scalars"]);
        assert_eq!(r(int(0), int(5), int(0)), ["E3 range-delta"]);
        let zero = Some(
            ValueInfo::tensor(F32, Some(vec![])).with_values(Some(Data::Floats(Box::new([0.0])))),
        );
        assert_eq!(r(t(F32, &[]), t(F32, &[]), zero), ["E3 range-delta"]);
        let n = node("Range", 3, 1, vec![]);
        let c = codes_at(range, &n, 11, &[ints(&[0, 1]), int(5), int(1)]);
        assert!(c[0].ends_with("here start has shape [2]"), "{c:?}");
    }
}
