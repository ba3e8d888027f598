//! Operators whose (first) output has the shape of their first input: element-wise math and
//! activations, MeanVarianceNormalization, softmaxes, Cast, Identity, Dropout and ops that permute
//! values within a shape (CumSum, Trilu, ReverseSequence). The other normalizations are in
//! `normalization.rs`.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md>, e.g. `#Relu`, `#Cast`, `#Dropout`,
//! `#Softmax`. Opset history that matters to shapes and types:
//! - Cast: `to` is a type name string in opset 1, a `TensorProto.DataType` from 6.
//! - Clip: `min`/`max` attributes before 11, inputs from 11 (the shape is the input's either way).
//! - Dropout: the `mask` output has the input's element type before 10 and is boolean from 10; 12
//!   turns `ratio` into an input and adds `training_mode`.
//! - Softmax, LogSoftmax, Hardmax: the `axis` default changes from 1 to -1 in 13; the shape does not.
//! - IsNaN, IsInf: boolean results.
//! - RandomNormalLike, RandomUniformLike, Bernoulli, EyeLike: `dtype` when given, else the input's.
//! - CumProd (26) like CumSum (11, 14).
//!
//! Values of small tensors flow through Identity, Cast (a `Shape` result cast to int32 and back is
//! common in exported graphs; float to integer truncates toward zero, as onnxruntime's
//! `static_cast`), Neg, Abs and Not (an If's condition), and float values through Floor, Ceil and
//! Round (exporters compute a resized size as `Cast(Floor(Mul(Cast(size), scale)))`).
//!
//! Contracts of the ops that take an axis or a shape beyond the element-wise ones, as onnxruntime
//! enforces them:
//! - [`SOFTMAX_AXIS`] (Softmax, LogSoftmax, Hardmax): `axis` inside the rank. From opset 11 onnx's
//!   inference checks it at load, whatever the sizes (an empty input included); before, only the
//!   kernel checks it, at run, and it returns early on an empty input, so an input that may be empty
//!   (a size of 0, or one unknown) is not checked there.
//! - [`CUMSUM_AXIS`]: X not a scalar; `axis` one value inside the rank (the kernel, at run; it skips
//!   the axis on an empty input, so neither is checked on one that may be empty).
//! - [`TRILU_RANK`]: rank 2 or more (onnx's inference, at load).
//! - [`REVERSE_SEQUENCE_RANK`] (input of rank 2 or more) and [`REVERSE_SEQUENCE_LENS`]
//!   (`sequence_lens` 1-D, at load; one length per batch entry, at run), and
//!   [`REVERSE_SEQUENCE_LENS_VALUES`] (each length in `[0, time]`, at run). The batch axis is checked
//!   only when `batch_axis` and `time_axis` are 0 and 1 (the kernel refuses others at load, except
//!   negative ones, which it reads its own way).
//! - [`EYE_LIKE_RANK`]: EyeLike's input 2-D (onnx's inference at load, the kernel at run).

use super::super::contract::{Contract, Operand};
use super::super::ctx::NodeCtx;
use super::super::dim::Dim;
use super::super::registry::Registry;
use super::super::value::{Data, ValueInfo, as_i64, from_i64, is_float_elem, round_to_elem};
use super::common::{is_int_elem, like};
use crate::proto::tensor_proto::DataType;

/// Ops with one output of the input's shape and element type, with the version each first appears in.
const SAME: &[(&str, i64)] = &[
    ("Abs", 1),
    ("Acos", 7),
    ("Acosh", 9),
    ("Asin", 7),
    ("Asinh", 9),
    ("Atan", 7),
    ("Atanh", 9),
    ("BitwiseNot", 18),
    ("Ceil", 1),
    ("Celu", 12),
    ("Clip", 1),
    ("Cos", 7),
    ("Cosh", 9),
    ("CumProd", 26),
    ("Elu", 1),
    ("Erf", 9),
    ("Exp", 1),
    ("Floor", 1),
    ("Gelu", 20),
    ("HardSigmoid", 1),
    ("HardSwish", 14),
    ("LeakyRelu", 1),
    ("Log", 1),
    ("MeanVarianceNormalization", 9),
    ("Mish", 18),
    ("Neg", 1),
    ("Not", 1),
    ("Reciprocal", 1),
    ("Relu", 1),
    ("Round", 11),
    ("Selu", 1),
    ("Shrink", 9),
    ("Sigmoid", 1),
    ("Sign", 9),
    ("Sin", 7),
    ("Sinh", 9),
    ("Softplus", 1),
    ("Softsign", 1),
    ("Sqrt", 1),
    ("Swish", 24),
    ("Tan", 7),
    ("Tanh", 1),
    ("ThresholdedRelu", 10),
];

pub fn register(r: &mut Registry) {
    for &(op, since) in SAME {
        r.add("", op, since, same);
    }
    r.add("", "IsNaN", 9, predicate);
    r.add("", "IsInf", 10, predicate);
    r.add("", "Identity", 1, identity);
    r.add("", "Cast", 1, cast);
    r.add("", "CastLike", 15, cast_like);
    r.add("", "Dropout", 1, dropout);
    r.add_all(&["Softmax", "LogSoftmax", "Hardmax"], 1, softmax);
    r.add("", "CumSum", 11, cumsum);
    r.add("", "Trilu", 14, trilu);
    r.add("", "ReverseSequence", 10, reverse_sequence);
    r.add("", "RandomNormalLike", 1, like_with_dtype);
    r.add("", "RandomUniformLike", 1, like_with_dtype);
    r.add("", "Bernoulli", 15, like_with_dtype);
    r.add("", "EyeLike", 9, eye_like);
    r.add("", "RandomNormal", 1, random);
    r.add("", "RandomUniform", 1, random);
}

fn same(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let data = match ctx.op_type() {
        "Neg" => map_data(ctx, |d| match d {
            Dim::Known(_) => as_i64(d)?.checked_neg().map(from_i64),
            _ => None,
        }),
        // A size is never negative, so a symbol is its own absolute value.
        "Abs" => map_data(ctx, |d| match d {
            Dim::Known(_) => as_i64(d)?.checked_abs().map(from_i64),
            other => Some(other.clone()),
        }),
        // An If's condition is often a negated comparison of sizes (torch's `Not(Equal(Size(Shape(x)),
        // 2))` in Silero's LSTM): without its value, the If's branches are joined, and where they
        // differ in rank the rank the LSTM gets is lost.
        "Not" if ctx.elem(0) == Some(DataType::Bool as i32) => ctx.data(0).and_then(|d| {
            d.iter()
                .map(|v| match v {
                    Dim::Known(b) => Some(Dim::Known(u64::from(*b == 0))),
                    _ => None,
                })
                .collect()
        }),
        _ => None,
    };
    let data = data.map(Data::Ints).or_else(|| float_unary(ctx));
    vec![like(ctx, 0, ctx.shape(0)).with_values(data)]
}

/// The float values of Neg, Abs, Floor, Ceil and Round (exporters floor a scaled size in float before
/// casting it back). Each result is exact in the input's type: no rounding to copy.
fn float_unary(ctx: &NodeCtx<'_>) -> Option<Data> {
    let f: fn(f64) -> f64 = match ctx.op_type() {
        "Neg" => |x| -x,
        "Abs" => f64::abs,
        "Floor" => f64::floor,
        "Ceil" => f64::ceil,
        // Round halves to even (onnxruntime's std::nearbyint).
        "Round" => f64::round_ties_even,
        _ => return None,
    };
    if !is_float_elem(ctx.elem(0)) {
        return None;
    }
    let v = ctx.input(0)?.floats()?;
    Some(Data::Floats(v.iter().map(|&x| f(x)).collect()))
}

/// Input 0's values mapped one by one, when they are known integers and `f` knows every result.
fn map_data(ctx: &NodeCtx<'_>, f: impl Fn(&Dim) -> Option<Dim>) -> Option<Vec<Dim>> {
    if !is_int_elem(ctx.elem(0)) {
        return None;
    }
    ctx.data(0)?.iter().map(f).collect()
}

/// Softmax, LogSoftmax and Hardmax's axis.
pub const SOFTMAX_AXIS: Contract = Contract::new(
    "softmax-axis",
    "axis is inside the input's rank, in [-r, r-1]",
);

/// CumSum's axis.
pub const CUMSUM_AXIS: Contract = Contract::new(
    "cumsum-axis",
    "X has rank 1 or more, and axis is one value inside it, in [-r, r-1]",
);

/// Trilu's input.
pub const TRILU_RANK: Contract = Contract::new("trilu-rank", "the input has rank 2 or more");

/// ReverseSequence's input.
pub const REVERSE_SEQUENCE_RANK: Contract =
    Contract::new("reverse-sequence-rank", "the input has rank 2 or more");

/// ReverseSequence's lengths.
pub const REVERSE_SEQUENCE_LENS: Contract = Contract::new(
    "reverse-sequence-lens",
    "sequence_lens is 1-D, one length per batch entry (the input's batch_axis)",
);

/// ReverseSequence's length values.
pub const REVERSE_SEQUENCE_LENS_VALUES: Contract = Contract::new(
    "reverse-sequence-lens-values",
    "every sequence length is in [0, the input's time_axis]",
);

/// EyeLike's input.
pub const EYE_LIKE_RANK: Contract = Contract::new("eye-like-rank", "the input is 2-D");

/// Whether input `slot` has a known shape with no size that may be 0 (symbols stand for sizes of 1
/// or more): a kernel that returns early on an empty input then runs its checks.
fn surely_not_empty(ctx: &NodeCtx<'_>, slot: usize) -> bool {
    ctx.shape(slot).is_some_and(|s| {
        s.iter().all(|d| match d {
            Dim::Known(n) => *n > 0,
            Dim::Sym(_) => true,
            Dim::Unknown => false,
        })
    })
}

/// Softmax, LogSoftmax, Hardmax: `axis` (1 before opset 13, -1 from 13) inside the rank.
fn softmax(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let default = if ctx.opset >= 13 { -1 } else { 1 };
    let a = ctx.attr_i("axis").unwrap_or(default);
    // From opset 11 onnx's inference checks the axis at load; before, only the kernel, which returns
    // early on an empty input.
    let checked = ctx.opset >= 11 || surely_not_empty(ctx, 0);
    if let Some(r) = ctx.input(0).and_then(ValueInfo::rank)
        && checked
    {
        ctx.require_axis(SOFTMAX_AXIS, &[0], a, r);
    }
    vec![like(ctx, 0, ctx.shape(0))]
}

/// CumSum(x, axis).
fn cumsum(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    cumsum_contract(ctx);
    vec![like(ctx, 0, ctx.shape(0))]
}

fn cumsum_contract(ctx: &mut NodeCtx<'_>) {
    // The kernel refuses a scalar first; past that, it reads no axis on an empty input.
    let Some(r) = ctx.input(0).and_then(ValueInfo::rank) else {
        return;
    };
    if r == 0 {
        ctx.broken(CUMSUM_AXIS, &[0], "X is a scalar");
        return;
    }
    if !surely_not_empty(ctx, 0) {
        return;
    }
    if let Some(axis_shape) = ctx.shape(1)
        && (axis_shape.len() > 1 || axis_shape.iter().any(|d| d.known().is_some_and(|n| n != 1)))
    {
        let detail = format!(
            "input 1 '{}' has shape {}",
            ctx.node.input_name(1),
            super::super::dim::format_shape(&Some(axis_shape))
        );
        ctx.broken(CUMSUM_AXIS, &[1], detail);
        return;
    }
    if let Some(&[a]) = ctx.data_i64(1).as_deref() {
        ctx.require_axis(CUMSUM_AXIS, &[0, 1], a, r);
    }
}

/// Trilu(input, k?).
fn trilu(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if let Some(r) = ctx.input(0).and_then(ValueInfo::rank).filter(|&r| r < 2) {
        ctx.broken(TRILU_RANK, &[0], format_args!("the input has rank {r}"));
    }
    vec![like(ctx, 0, ctx.shape(0))]
}

/// ReverseSequence(input, sequence_lens).
fn reverse_sequence(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    reverse_sequence_contracts(ctx);
    vec![like(ctx, 0, ctx.shape(0))]
}

fn reverse_sequence_contracts(ctx: &mut NodeCtx<'_>) {
    // onnx's inference checks the ranks at load once it knows both.
    let (Some(r), Some(lr)) = (
        ctx.input(0).and_then(ValueInfo::rank),
        ctx.input(1).and_then(ValueInfo::rank),
    ) else {
        return;
    };
    if r < 2 {
        ctx.broken(
            REVERSE_SEQUENCE_RANK,
            &[0],
            format_args!("the input has rank {r}"),
        );
        return;
    }
    if lr != 1 {
        let detail = format!("input 1 '{}' has rank {lr}", ctx.node.input_name(1));
        ctx.broken(REVERSE_SEQUENCE_LENS, &[1], detail);
        return;
    }
    let batch_axis = ctx.attr_i("batch_axis").unwrap_or(1);
    let time_axis = ctx.attr_i("time_axis").unwrap_or(0);
    let (batch, time) = match (batch_axis, time_axis) {
        (1, 0) => (1, 0),
        (0, 1) => (0, 1),
        _ => return,
    };
    let (Some(b), Some(len)) = (ctx.operand(0, batch), ctx.operand(1, 0)) else {
        return;
    };
    if !ctx.require_equal(REVERSE_SEQUENCE_LENS, &[len, b]) {
        return;
    }
    let (
        Some(values),
        Some(Operand {
            dim: Dim::Known(t), ..
        }),
    ) = (ctx.data_i64(1), ctx.operand(0, time))
    else {
        return;
    };
    let t = i64::try_from(t).unwrap_or(i64::MAX);
    if let Some(v) = values.iter().find(|&&v| !(0..=t).contains(&v)) {
        ctx.out_of_range(
            REVERSE_SEQUENCE_LENS_VALUES,
            &[0, 1],
            format_args!("a length of {v} on a time axis of {t}"),
        );
    }
}

fn predicate(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![ValueInfo::tensor(Some(DataType::Bool as i32), ctx.shape(0))]
}

/// Identity passes its input through whole: sequences and optionals (opset 14, 16) and values too.
fn identity(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    vec![ctx.input(0).cloned().unwrap_or_else(ValueInfo::unknown)]
}

/// The `to` attribute: a number from opset 6, a type name before.
fn cast_target(ctx: &NodeCtx<'_>) -> Option<i32> {
    if let Some(to) = ctx.attr_i("to") {
        return i32::try_from(to).ok().filter(|&t| t != 0);
    }
    let name = ctx.attr_s("to")?;
    DataType::from_str_name(&name.to_ascii_uppercase())
        .map(|t| t as i32)
        .filter(|&t| t != 0)
}

fn cast(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let to = cast_target(ctx);
    vec![cast_to(ctx, to)]
}

fn cast_like(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let to = ctx.elem(1);
    vec![cast_to(ctx, to)]
}

/// Input 0 cast to `to`: the shape is kept, and values are converted as onnxruntime converts them
/// (a C++ `static_cast`), where that is exact and defined (see [`cast_data`] and [`cast_floats`]).
fn cast_to(ctx: &NodeCtx<'_>, to: Option<i32>) -> ValueInfo {
    let from = ctx.elem(0);
    let data = match ctx.values(0) {
        Some(Data::Ints(d)) if is_int_elem(from) || is_bool(from) => {
            if is_float_elem(to) {
                int_to_float(d, to).map(Data::Floats)
            } else if is_bool(to) {
                d.iter()
                    .map(|v| Some(Dim::Known(u64::from(as_i64(v)? != 0))))
                    .collect::<Option<_>>()
                    .map(Data::Ints)
            } else {
                cast_data(d, to).map(Data::Ints)
            }
        }
        Some(Data::Floats(f)) if is_float_elem(from) => cast_floats(f, to),
        _ => None,
    };
    ValueInfo::tensor(to, ctx.shape(0)).with_values(data)
}

fn is_bool(elem: Option<i32>) -> bool {
    elem == Some(DataType::Bool as i32)
}

/// Known integers converted to float type `to`: rounded to the nearest value of that type, as
/// `static_cast<float>(int64_t)` does (kept only when exact for 16-bit floats). Symbols have no
/// float value carried.
fn int_to_float(values: &[Dim], to: Option<i32>) -> Option<Box<[f64]>> {
    values
        .iter()
        .map(|d| {
            let v = as_i64(d).filter(|_| matches!(d, Dim::Known(_)))?;
            match DataType::try_from(to?).ok()? {
                // Straight from the integer: through f64 first could round twice.
                DataType::Float => Some(f64::from(v as f32)),
                DataType::Double => Some(v as f64),
                _ => round_to_elem(to, v as f64).filter(|&x| x == v as f64),
            }
        })
        .collect()
}

/// Float values cast to `to`: to an integer type truncated toward zero (C++ conversion), kept only
/// when the result is in the type's range (beyond it, and for NaN, the conversion is undefined); to
/// BOOL nonzero is true (NaN too); to another float type rounded to it (see [`round_to_elem`]).
fn cast_floats(values: &[f64], to: Option<i32>) -> Option<Data> {
    if is_float_elem(to) {
        return values
            .iter()
            .map(|&v| round_to_elem(to, v))
            .collect::<Option<_>>()
            .map(Data::Floats);
    }
    if is_bool(to) {
        return Some(Data::Ints(
            values
                .iter()
                .map(|&v| Dim::Known(u64::from(v != 0.0)))
                .collect(),
        ));
    }
    let ints: Vec<Dim> = values
        .iter()
        .map(|&v| {
            let t = v.trunc();
            // Exactly representable bounds: -2^63 is an i64, 2^63 is not.
            const TWO_63: f64 = 9_223_372_036_854_775_808.0;
            (t.is_finite() && (-TWO_63..TWO_63).contains(&t)).then(|| from_i64(t as i64))
        })
        .collect::<Option<_>>()?;
    cast_data(&ints, to).map(Data::Ints)
}

/// Integer values cast to integer type `to`, if none of them wraps. Symbols are sizes: they are kept
/// by the types shape arithmetic uses (32 and 64 bits), where a size fits.
fn cast_data(values: &[Dim], to: Option<i32>) -> Option<Vec<Dim>> {
    let (lo, hi, symbols): (i64, i64, bool) = match DataType::try_from(to?).ok()? {
        DataType::Int64 => (i64::MIN, i64::MAX, true),
        DataType::Uint64 => (0, i64::MAX, true),
        DataType::Int32 => (i32::MIN.into(), i32::MAX.into(), true),
        DataType::Uint32 => (0, u32::MAX.into(), true),
        DataType::Int16 => (i16::MIN.into(), i16::MAX.into(), false),
        DataType::Uint16 => (0, u16::MAX.into(), false),
        DataType::Int8 => (i8::MIN.into(), i8::MAX.into(), false),
        DataType::Uint8 => (0, u8::MAX.into(), false),
        _ => return None,
    };
    // An element not carried exactly is unknown, and the others are kept: a Cast of `[0, 0, ?]`
    // (a padding computed from a symbol) keeps its zeros.
    let cast: Vec<Dim> = values
        .iter()
        .map(|d| match d {
            Dim::Known(_) => as_i64(d)
                .filter(|v| (lo..=hi).contains(v))
                .map_or(Dim::Unknown, from_i64),
            Dim::Sym(_) if symbols => d.clone(),
            _ => Dim::Unknown,
        })
        .collect();
    cast.iter().any(|v| *v != Dim::Unknown).then_some(cast)
}

/// Dropout: `output` like the input; `mask` of the same shape, boolean from opset 10.
fn dropout(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let x = ctx.shape(0);
    let mask_elem = if ctx.opset < 10 {
        ctx.elem(0)
    } else {
        Some(DataType::Bool as i32)
    };
    let mut out = vec![like(ctx, 0, x.clone())];
    if ctx.num_outputs() > 1 {
        out.push(ValueInfo::tensor(mask_elem, x));
    }
    out
}

/// The `dtype` attribute, when given and set.
fn dtype(ctx: &NodeCtx<'_>) -> Option<i32> {
    ctx.attr_i("dtype")
        .and_then(|t| i32::try_from(t).ok())
        .filter(|&t| t != 0)
}

fn like_with_dtype(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let elem = dtype(ctx).or(ctx.elem(0));
    vec![ValueInfo::tensor(elem, ctx.shape(0))]
}

/// EyeLike: a matrix like its input, which [`EYE_LIKE_RANK`] wants 2-D.
fn eye_like(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if let Some(r) = ctx.input(0).and_then(ValueInfo::rank).filter(|&r| r != 2) {
        ctx.broken(EYE_LIKE_RANK, &[0], format_args!("the input has rank {r}"));
        return vec![ValueInfo::unknown()];
    }
    like_with_dtype(ctx)
}

/// RandomNormal, RandomUniform: the `shape` attribute, FLOAT unless `dtype` says otherwise.
fn random(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let elem = dtype(ctx).or(Some(DataType::Float as i32));
    let shape = ctx.attr_ints("shape").and_then(|s| {
        s.iter()
            .map(|&d| u64::try_from(d).ok().map(Dim::Known))
            .collect::<Option<Vec<_>>>()
    });
    vec![ValueInfo::tensor(elem, shape)]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    #[test]
    fn eye_like_is_2d() {
        let n = node("EyeLike", 1, 1, vec![]);
        let found = |x: &[&str]| -> Vec<String> {
            findings(eye_like, &n, 9, &[t(F32, x)])
                .iter()
                .map(|d| format!("{} {}", d.code.as_str(), d.contract.unwrap_or("-")))
                .collect()
        };
        assert!(found(&["N", "4"]).is_empty());
        assert_eq!(found(&["3"]), ["E2 eye-like-rank"]);
        assert_eq!(found(&["2", "3", "4"]), ["E2 eye-like-rank"]);
        assert_eq!(
            out_shape(eye_like, &n, 9, &[t(F32, &["N", "4"])]),
            shape(&["N", "4"])
        );
    }

    #[test]
    fn activations_keep_shape_and_type() {
        let n = node("Relu", 1, 1, vec![]);
        let out = run(same, &n, 14, &[t(F32, &["N", "3", "?"])]);
        assert_eq!(out[0].shape, shape(&["N", "3", "?"]));
        assert_eq!(out[0].elem, F32);
        let out = run(
            predicate,
            &node("IsNaN", 1, 1, vec![]),
            13,
            &[t(F32, &["2"])],
        );
        assert_eq!(out[0].elem, Some(DataType::Bool as i32));
    }

    #[test]
    fn cast_keeps_integer_values_that_fit() {
        let n = node("Cast", 1, 1, vec![attr_i("to", DataType::Int32 as i64)]);
        let mut x = ValueInfo::int64_data(vec![d("batch"), d("8")], false);
        let out = run(cast, &n, 13, &[Some(x.clone())]);
        assert_eq!(out[0].elem, Some(DataType::Int32 as i32));
        assert_eq!(out[0].int_vec(), Some(vec![d("batch"), d("8")]));
        x.data = Some(Data::Ints(vec![from_i64(1 << 40)]));
        assert_eq!(run(cast, &n, 13, &[Some(x.clone())])[0].int_vec(), None);
        let to_float = node("Cast", 1, 1, vec![attr_i("to", DataType::Float as i64)]);
        let out = run(cast, &to_float, 13, &[Some(x)]);
        assert_eq!((out[0].elem, out[0].int_vec()), (F32, None));
        let legacy = node("Cast", 1, 1, vec![attr_s("to", "int64")]);
        assert_eq!(run(cast, &legacy, 1, &[t(F32, &["2"])])[0].elem, I64);
        let bad = node("Cast", 1, 1, vec![attr_i("to", i64::MAX)]);
        assert_eq!(run(cast, &bad, 13, &[t(F32, &["2"])])[0].elem, None);
    }

    #[test]
    fn neg_and_abs_of_values() {
        let n = node("Neg", 1, 1, vec![]);
        let out = run(same, &n, 13, &[ints(&[3, -1])]);
        assert_eq!(out[0].data_i64(), Some(vec![-3, 1]));
        assert_eq!(run(same, &n, 13, &[ints(&[i64::MIN])])[0].int_vec(), None);
        let a = node("Abs", 1, 1, vec![]);
        assert_eq!(
            run(same, &a, 13, &[ints(&[-3])])[0].data_i64(),
            Some(vec![3])
        );
    }

    #[test]
    fn dropout_mask_type_depends_on_opset() {
        let n = node("Dropout", 1, 2, vec![]);
        let out = run(dropout, &n, 7, &[t(F32, &["N", "4"])]);
        assert_eq!(out[1].elem, F32);
        let out = run(dropout, &n, 13, &[t(F32, &["N", "4"])]);
        assert_eq!(out[1].elem, Some(DataType::Bool as i32));
        assert_eq!(out[1].shape, shape(&["N", "4"]));
        assert_eq!(
            run(dropout, &node("Dropout", 1, 1, vec![]), 13, &[None]).len(),
            1
        );
    }

    #[test]
    fn softmax_axis() {
        for op in ["Softmax", "LogSoftmax", "Hardmax"] {
            let n = |a| node(op, 1, 1, vec![attr_i("axis", a)]);
            let x = || t(F32, &["N", "3"]);
            assert!(contracts(softmax, &n(-2), 13, &[x()]).is_empty());
            assert_eq!(contracts(softmax, &n(2), 13, &[x()]), ["E3 softmax-axis"]);
            assert_eq!(contracts(softmax, &n(-3), 1, &[x()]), ["E3 softmax-axis"]);
            // Before 11 only the kernel checks, and not on an input that may be empty.
            let empty = || t(F32, &["0", "3"]);
            assert!(contracts(softmax, &n(2), 1, &[empty()]).is_empty());
            assert!(contracts(softmax, &n(2), 1, &[t(F32, &["?", "3"])]).is_empty());
            assert_eq!(
                contracts(softmax, &n(2), 11, &[empty()]),
                ["E3 softmax-axis"]
            );
            // The default axis: 1 before 13 (out of a 1-D input's range), -1 from 13.
            let d = node(op, 1, 1, vec![]);
            assert_eq!(
                contracts(softmax, &d, 11, &[t(F32, &["4"])]),
                ["E3 softmax-axis"]
            );
            assert!(contracts(softmax, &d, 13, &[t(F32, &["4"])]).is_empty());
            assert_eq!(
                contracts(softmax, &d, 13, &[t(F32, &[])]),
                ["E3 softmax-axis"]
            );
        }
    }

    #[test]
    fn cumsum_axis() {
        let n = node("CumSum", 2, 1, vec![]);
        let x = || t(F32, &["N", "3"]);
        assert!(contracts(cumsum, &n, 14, &[x(), int(-2)]).is_empty());
        assert!(contracts(cumsum, &n, 14, &[x(), ints(&[1])]).is_empty());
        assert_eq!(
            contracts(cumsum, &n, 14, &[x(), int(2)]),
            ["E3 cumsum-axis"]
        );
        assert_eq!(
            contracts(cumsum, &n, 11, &[x(), ints(&[0, 1])]),
            ["E2 cumsum-axis"]
        );
        assert_eq!(
            contracts(cumsum, &n, 14, &[t(F32, &[]), int(0)]),
            ["E2 cumsum-axis"]
        );
        // An input that may be empty: the kernel reads no axis.
        assert!(contracts(cumsum, &n, 14, &[t(F32, &["0", "3"]), int(2)]).is_empty());
        assert!(contracts(cumsum, &n, 14, &[t(F32, &["?", "3"]), int(2)]).is_empty());
        assert!(contracts(cumsum, &n, 14, &[x(), t(I64, &[])]).is_empty());
    }

    #[test]
    fn trilu_and_reverse_sequence() {
        let n = node("Trilu", 1, 1, vec![]);
        assert!(contracts(trilu, &n, 14, &[t(F32, &["N", "3"])]).is_empty());
        assert_eq!(
            contracts(trilu, &n, 14, &[t(F32, &["3"])]),
            ["E2 trilu-rank"]
        );
        let rs = |b, t_| {
            node(
                "ReverseSequence",
                2,
                1,
                vec![attr_i("batch_axis", b), attr_i("time_axis", t_)],
            )
        };
        let x = || t(F32, &["4", "2", "3"]);
        assert!(contracts(reverse_sequence, &rs(1, 0), 10, &[x(), ints(&[1, 4])]).is_empty());
        assert!(
            contracts(
                reverse_sequence,
                &rs(0, 1),
                10,
                &[t(F32, &["2", "4"]), ints(&[0, 4])]
            )
            .is_empty()
        );
        assert_eq!(
            contracts(reverse_sequence, &rs(1, 0), 10, &[x(), ints(&[1, 4, 2])]),
            ["E2 reverse-sequence-lens"]
        );
        assert_eq!(
            contracts(reverse_sequence, &rs(0, 1), 10, &[x(), ints(&[1, 2])]),
            ["E2 reverse-sequence-lens"]
        );
        assert_eq!(
            contracts(reverse_sequence, &rs(1, 0), 10, &[x(), t(I64, &["1", "2"])]),
            ["E2 reverse-sequence-lens"]
        );
        assert_eq!(
            contracts(
                reverse_sequence,
                &rs(1, 0),
                10,
                &[t(F32, &["4"]), ints(&[1])]
            ),
            ["E2 reverse-sequence-rank"]
        );
        assert_eq!(
            contracts(reverse_sequence, &rs(1, 0), 10, &[x(), ints(&[1, 5])]),
            ["E3 reverse-sequence-lens-values"]
        );
        assert_eq!(
            contracts(
                reverse_sequence,
                &rs(1, 0),
                10,
                &[t(F32, &["T", "B"]), t(I64, &["3"])]
            ),
            ["W2 reverse-sequence-lens"]
        );
        // Negative axes pass onnxruntime's constructor and are read its own way: not checked.
        assert!(contracts(reverse_sequence, &rs(-1, 0), 10, &[x(), ints(&[1, 4, 2])]).is_empty());
    }

    #[test]
    fn identity_passes_values_through() {
        let n = node("Identity", 1, 1, vec![]);
        let out = run(identity, &n, 14, &[ints(&[1, 2])]);
        assert_eq!(out[0].data_i64(), Some(vec![1, 2]));
    }

    fn floats_in(elem: Option<i32>, v: &[f64]) -> Option<ValueInfo> {
        Some(
            ValueInfo::tensor(elem, Some(vec![Dim::Known(v.len() as u64)]))
                .with_values(Some(Data::Floats(v.into()))),
        )
    }

    #[test]
    fn casts_convert_values_as_onnxruntime() {
        let to = |t: DataType| node("Cast", 1, 1, vec![attr_i("to", t as i64)]);
        // Float to integer truncates toward zero; out of range or NaN is undefined: not carried.
        let out = run(
            cast,
            &to(DataType::Int64),
            13,
            &[floats_in(F32, &[2.9, -2.7, 0.0])],
        );
        assert_eq!(out[0].data_i64(), Some(vec![2, -2, 0]));
        let out = run(cast, &to(DataType::Int64), 13, &[floats_in(F32, &[1e19])]);
        assert_eq!(out[0].data, None);
        let out = run(
            cast,
            &to(DataType::Int64),
            13,
            &[floats_in(F32, &[f64::NAN])],
        );
        assert_eq!(out[0].data, None);
        let out = run(
            cast,
            &to(DataType::Uint8),
            13,
            &[floats_in(F32, &[255.5, 256.0])],
        );
        // 256 wraps: unknown, beside the 255 kept.
        assert_eq!(
            out[0].data,
            Some(Data::Ints(vec![Dim::Known(255), Dim::Unknown]))
        );
        let out = run(
            cast,
            &to(DataType::Bool),
            13,
            &[floats_in(F32, &[0.5, 0.0])],
        );
        assert_eq!(out[0].data_i64(), Some(vec![1, 0]));
        // Integer to float rounds to the nearest f32; symbols have no float value.
        let out = run(cast, &to(DataType::Float), 13, &[ints(&[(1 << 24) + 1, 3])]);
        assert_eq!(out[0].floats(), Some(&[16777216.0, 3.0][..]));
        let sym = Some(ValueInfo::int64_data(vec![d("N")], false));
        assert_eq!(run(cast, &to(DataType::Float), 13, &[sym])[0].data, None);
        // Double to float rounds; float to float16 only when exact.
        let out = run(
            cast,
            &to(DataType::Float),
            13,
            &[floats_in(Some(DataType::Double as i32), &[0.1])],
        );
        assert_eq!(out[0].floats(), Some(&[f64::from(0.1f32)][..]));
        let out = run(
            cast,
            &to(DataType::Float16),
            13,
            &[floats_in(F32, &[0.5, 2.0])],
        );
        assert_eq!(out[0].floats(), Some(&[0.5, 2.0][..]));
        let out = run(cast, &to(DataType::Float16), 13, &[floats_in(F32, &[0.1])]);
        assert_eq!(out[0].data, None);
        // Floor and friends on floats.
        let n = node("Floor", 1, 1, vec![]);
        let out = run(same, &n, 13, &[floats_in(F32, &[2.5, -2.5])]);
        assert_eq!(out[0].floats(), Some(&[2.0, -3.0][..]));
        let n = node("Round", 1, 1, vec![]);
        let out = run(same, &n, 13, &[floats_in(F32, &[2.5, 3.5, -0.5])]);
        assert_eq!(out[0].floats(), Some(&[2.0, 4.0, -0.0][..]));
    }
}
