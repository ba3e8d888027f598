//! Element-wise operators that broadcast their inputs, at every opset version.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Broadcasting.md> and the operators' pages in
//! <https://github.com/onnx/onnx/blob/main/docs/Operators.md>. Opset history:
//! - Add, Sub, Mul, Div, Pow, And, Or, Xor, Equal, Greater, Less: opset 1 and 6 broadcast only with the
//!   attribute `broadcast=1`, by the legacy rule (B a contiguous subsequence of A's shape, placed at `axis`,
//!   OpenVINO's PDPD); without it the shapes must be equal. From opset 7: multidirectional.
//! - Max, Min, Sum, Mean: opset 1 and 6 require equal shapes; from opset 8 multidirectional, N-ary.
//! - Mod (10), BitShift (11), GreaterOrEqual and LessOrEqual (12), Where (9), BitwiseAnd/Or/Xor (18),
//!   StringConcat (20): multidirectional from their first version.

use super::super::broadcast::{legacy_axis, multidirectional_of, none};
use super::super::ctx::{NodeCtx, Rule};
use super::super::dim::{Dim, Poly, SymExpr};
use super::super::registry::Registry;
use super::super::sites::{Declared, Kind};
use super::super::value::{Data, ValueInfo, as_i64, from_i64, round_to_elem};
use crate::proto::tensor_proto::DataType;
use smallvec::SmallVec;

/// Ops whose output has the element type of their (first) input.
const ARITHMETIC: &[&str] = &["Add", "Sub", "Mul", "Div", "Pow"];
/// Ops whose output is boolean.
const PREDICATES: &[&str] = &["And", "Or", "Xor", "Equal", "Greater", "Less"];
const VARIADIC: &[&str] = &["Max", "Min", "Sum", "Mean"];

pub fn register(r: &mut Registry) {
    // Before opset 7, `broadcast=1` places B at A's `axis` (the legacy rule).
    let legacy = Declared::WithBroadcastAttribute(Kind::LegacyAxis(None));
    let all = Declared::Always(Kind::Multi);
    r.add_all_sites(ARITHMETIC, 1, legacy_binary, legacy);
    r.add_all_sites(PREDICATES, 1, legacy_binary, legacy);
    r.add_all_sites(ARITHMETIC, 7, multi, all);
    r.add_all_sites(PREDICATES, 7, multi, all);
    r.add_all(VARIADIC, 1, equal_shapes);
    r.add_all_sites(VARIADIC, 8, multi, all);
    r.add_all_sites(&["Mod"], 10, multi, all);
    r.add_all_sites(&["BitShift"], 11, multi, all);
    r.add_all_sites(&["GreaterOrEqual", "LessOrEqual"], 12, multi, all);
    r.add_all_sites(&["Where"], 9, multi, all);
    r.add_all_sites(&["BitwiseAnd", "BitwiseOr", "BitwiseXor"], 18, multi, all);
    r.add_all_sites(&["StringConcat"], 20, multi, all);
}

/// The element type of the output of an element-wise op.
fn output_elem(ctx: &NodeCtx<'_>) -> Option<i32> {
    match ctx.op_type() {
        "And" | "Or" | "Xor" | "Equal" | "Greater" | "Less" | "GreaterOrEqual" | "LessOrEqual" => {
            Some(DataType::Bool as i32)
        }
        "StringConcat" => Some(DataType::String as i32),
        // Where's condition is boolean; its values come from inputs 1 and 2.
        "Where" => ctx.elem(1).or(ctx.elem(2)),
        _ => (0..ctx.num_inputs()).find_map(|k| ctx.elem(k)),
    }
}

/// Multidirectional (numpy) broadcasting over every present input.
fn multi(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    // Inline: this runs for every element-wise node, and most have two inputs.
    let slots: SmallVec<[usize; 4]> = (0..ctx.num_inputs())
        .filter(|&k| ctx.has_input(k))
        .collect();
    let outcome = {
        let shapes: SmallVec<[Option<&[Dim]>; 4]> = slots
            .iter()
            .map(|&k| ctx.input(k).and_then(|i| i.shape.as_deref()))
            .collect();
        multidirectional_of(&shapes)
    };
    ctx.report_broadcast(Rule::Multidirectional, &slots, &outcome);
    let data = match propagate(ctx) {
        Some(ints) => Some(Data::Ints(ints)),
        None => propagate_floats(ctx),
    };
    vec![ValueInfo::tensor(output_elem(ctx), outcome.shape).with_values(data)]
}

/// Opset < 8 Max/Min/Sum/Mean: every input has the same shape.
fn equal_shapes(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let slots: Vec<usize> = (0..ctx.num_inputs())
        .filter(|&k| ctx.has_input(k))
        .collect();
    let shapes: Vec<_> = slots.iter().map(|&k| ctx.shape(k)).collect();
    let outcome = none(&shapes);
    ctx.report_broadcast(Rule::None, &slots, &outcome);
    vec![ValueInfo::tensor(output_elem(ctx), outcome.shape)]
}

/// Opset < 7 binary ops: legacy `broadcast`/`axis` attributes, or equal shapes.
fn legacy_binary(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (a, b) = (ctx.shape(0), ctx.shape(1));
    let outcome = if ctx.attr_i("broadcast").unwrap_or(0) != 0 {
        let o = legacy_axis(&a, &b, ctx.attr_i("axis"));
        ctx.report_broadcast(Rule::LegacyAxis, &[0, 1], &o);
        o
    } else {
        let o = none(&[a, b]);
        ctx.report_broadcast(Rule::None, &[0, 1], &o);
        o
    };
    vec![ValueInfo::tensor(output_elem(ctx), outcome.shape)]
}

/// Values of small integer results (shape arithmetic: `Mul(Gather(Shape(x), 0), 2)`), computed when
/// every input's values are known and the inputs are scalars or equal-length vectors. Values holding
/// symbols are computed in the polynomial algebra (`Mul(seq, 12)` is `seq*12`, `Div(seq*12, 12)` is
/// `seq`, `Div(h-1, 2)` of a size is `floor((h-1)/2)`, `Mod(h, 4)` is `h - 4*floor(h/4)`). An
/// element that cannot be computed is unknown, and the others are kept (a padding of `[0, 0, Mod(-h,
/// 7)]` keeps its zeros); with none known there are no values.
fn propagate(ctx: &NodeCtx<'_>) -> Option<Vec<Dim>> {
    let op = ctx.op_type();
    // Mod with `fmod=1` is C's remainder (the sign of the dividend), else Python's (the divisor's).
    let c_remainder = op == "Mod" && ctx.attr_i("fmod") == Some(1);
    let arity = if op == "Where" { 3 } else { 2 };
    if ctx.num_inputs() != arity {
        return None;
    }
    let inputs: Vec<&[Dim]> = (0..arity).map(|k| ctx.data(k)).collect::<Option<_>>()?;
    let n = inputs.iter().map(|d| d.len()).max()?;
    if inputs.iter().any(|d| d.len() != n && d.len() != 1) {
        return None;
    }
    let at = |k: usize, i: usize| &inputs[k][if inputs[k].len() == 1 { 0 } else { i }];
    let values: Vec<Dim> = (0..n)
        .map(|i| {
            match op {
                "Where" => {
                    as_i64(at(0, i)).map(|c| if c != 0 { at(1, i) } else { at(2, i) }.clone())
                }
                _ => binary_value(op, c_remainder, at(0, i), at(1, i)),
            }
            .unwrap_or(Dim::Unknown)
        })
        .collect();
    values.iter().any(|v| *v != Dim::Unknown).then_some(values)
}

/// Values of small float results (scales computed from constants, `Mul(Cast(size), 0.5)`): every
/// input's float values known (Where's condition's as integers), scalars or equal-length vectors; each
/// result rounded to the output's element type as the runtime computing in it would.
fn propagate_floats(ctx: &NodeCtx<'_>) -> Option<Data> {
    let op = ctx.op_type();
    let elem = output_elem(ctx);
    let (cond, operands): (Option<&[Dim]>, Vec<&[f64]>) = if op == "Where" {
        if ctx.num_inputs() != 3 {
            return None;
        }
        (Some(ctx.data(0)?), vec![ctx.floats(1)?, ctx.floats(2)?])
    } else {
        if ctx.num_inputs() != 2 {
            return None;
        }
        (None, vec![ctx.floats(0)?, ctx.floats(1)?])
    };
    let n = operands
        .iter()
        .map(|d| d.len())
        .chain(cond.map(<[Dim]>::len))
        .max()?;
    if operands.iter().any(|d| d.len() != n && d.len() != 1)
        || cond.is_some_and(|c| c.len() != n && c.len() != 1)
    {
        return None;
    }
    let at = |d: &[f64], i: usize| d[if d.len() == 1 { 0 } else { i }];
    let predicate = matches!(
        op,
        "Equal" | "Less" | "LessOrEqual" | "Greater" | "GreaterOrEqual"
    );
    if predicate {
        let ints = (0..n)
            .map(|i| {
                let (x, y) = (at(operands[0], i), at(operands[1], i));
                let b = match op {
                    "Equal" => x == y,
                    "Less" => x < y,
                    "LessOrEqual" => x <= y,
                    "Greater" => x > y,
                    _ => x >= y,
                };
                Dim::Known(u64::from(b))
            })
            .collect();
        return Some(Data::Ints(ints));
    }
    let out: Option<Box<[f64]>> = (0..n)
        .map(|i| {
            let (x, y) = (at(operands[0], i), at(operands[1], i));
            let exact = match op {
                "Where" => {
                    let c = cond?;
                    let c = &c[if c.len() == 1 { 0 } else { i }];
                    return Some(if as_i64(c)? != 0 { x } else { y });
                }
                "Add" => x + y,
                "Sub" => x - y,
                "Mul" => x * y,
                "Div" => x / y,
                // Both operands are values of the type: the pick is one of them, no rounding. A NaN
                // operand is not carried (runtimes differ in which they return).
                "Max" | "Min" if x.is_nan() || y.is_nan() => return None,
                "Max" => x.max(y),
                "Min" => x.min(y),
                _ => return None,
            };
            round_to_elem(elem, exact)
        })
        .collect();
    out.map(Data::Floats)
}

/// One element of a binary op on integer values (shape arithmetic, and the comparisons exporters
/// put around it, as torch's `Where(Equal(shape, -1), 1, shape)` before an Expand).
fn binary_value(op: &str, c_remainder: bool, x: &Dim, y: &Dim) -> Option<Dim> {
    let bool_dim = |b: bool| Dim::Known(u64::from(b));
    if let (Some(x), Some(y)) = (as_i64(x), as_i64(y)) {
        return Some(match op {
            "Add" => from_i64(x.checked_add(y)?),
            "Sub" => from_i64(x.checked_sub(y)?),
            "Mul" => from_i64(x.checked_mul(y)?),
            // Integer Div truncates toward zero, as in C.
            "Div" => from_i64(x.checked_div(y)?),
            "Mod" => {
                let r = x.checked_rem(y)?;
                if !c_remainder && r != 0 && (r < 0) != (y < 0) {
                    from_i64(r + y)
                } else {
                    from_i64(r)
                }
            }
            "Max" => from_i64(x.max(y)),
            "Min" => from_i64(x.min(y)),
            "Equal" => bool_dim(x == y),
            "Less" => bool_dim(x < y),
            "LessOrEqual" => bool_dim(x <= y),
            "Greater" => bool_dim(x > y),
            "GreaterOrEqual" => bool_dim(x >= y),
            _ => return None,
        });
    }
    // A dim_param symbol is a size, never negative: compared with a negative number it is known.
    let size_vs_negative = |s: &Dim, k: &Dim| {
        matches!(s, Dim::Sym(SymExpr::Var(_))) && as_i64(k).is_some_and(|v| v < 0)
    };
    match op {
        "Equal" if x == y => return Some(bool_dim(true)),
        "Equal" if size_vs_negative(x, y) || size_vs_negative(y, x) => {
            return Some(bool_dim(false));
        }
        "Max" | "Min" if x == y => return Some(x.clone()),
        _ => {}
    }
    let (px, py) = (Poly::of_value(x)?, Poly::of_value(y)?);
    let v = match op {
        "Add" => px.add(&py)?,
        "Sub" => px.sub(&py)?,
        "Mul" => px.mul(&py)?,
        // Exact, so truncation does not come into it; else by a positive number, where the dividend
        // is not negative for any input sizes (truncation is then the floor).
        "Div" => match px.div_exact(&py) {
            Some(q) => q,
            None => px.floor_div(positive(&py)?).filter(|_| sized(&px))?,
        },
        // By a positive number: Python's remainder is `x - k*floor(x/k)` for every x, C's where x is
        // not negative.
        "Mod" => {
            let k = positive(&py)?;
            if c_remainder && !sized(&px) {
                return None;
            }
            px.sub(&px.floor_div(k)?.mul(&Poly::constant(k))?)?
        }
        _ => return None,
    };
    Some(v.into_value())
}

/// The positive number `p` is, if it is one.
fn positive(p: &Poly) -> Option<i64> {
    p.as_constant().filter(|&k| k > 0)
}

/// Whether `p` is at least 0 for every input size of 1 or more.
fn sized(p: &Poly) -> bool {
    p.lower_bound_for_sizes().is_some_and(|b| b >= 0)
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    fn values(op: &str, a: Vec<Dim>, b: Vec<Dim>) -> Option<Vec<String>> {
        let n = node(op, 2, 1, vec![]);
        let a = Some(ValueInfo::int64_data(a, false));
        let b = Some(ValueInfo::int64_data(b, false));
        let out = run(multi, &n, 14, &[a, b]).remove(0);
        out.int_vec().map(|v| {
            v.iter()
                .map(|d| match as_i64(d) {
                    Some(x) => x.to_string(),
                    None => d.to_string(),
                })
                .collect()
        })
    }

    #[test]
    fn torch_expand_pattern_keeps_the_shape_values() {
        // Where(Equal(shape, -1), ones, shape) with shape = [batch, 3, -1]: the symbol is a size, so
        // it is never -1.
        let shape = vec![Dim::sym("batch"), from_i64(3), from_i64(-1)];
        let minus_one = vec![from_i64(-1)];
        let eq = values("Equal", shape.clone(), minus_one.clone());
        assert_eq!(eq, strs(&["0", "0", "1"]));
        let cond = Some(ValueInfo::int64_data(
            vec![Dim::Known(0), Dim::Known(0), Dim::Known(1)],
            false,
        ));
        let ones = Some(ValueInfo::int64_data(vec![from_i64(1)], false));
        let n = node("Where", 3, 1, vec![]);
        let out = run(
            multi,
            &n,
            16,
            &[cond, ones, Some(ValueInfo::int64_data(shape, false))],
        )
        .remove(0);
        let got: Vec<String> = out
            .int_vec()
            .unwrap()
            .iter()
            .map(|d| d.to_string())
            .collect();
        assert_eq!(got, ["batch", "3", "1"]);
        assert_eq!(
            values("Max", vec![from_i64(2)], vec![from_i64(5)]),
            strs(&["5"])
        );
    }

    fn strs(v: &[&str]) -> Option<Vec<String>> {
        Some(v.iter().map(|s| (*s).to_owned()).collect())
    }

    #[test]
    fn shape_values_with_symbols_are_computed_exactly() {
        let (seq, batch) = (d("seq"), d("batch"));
        assert_eq!(
            values("Mul", vec![seq.clone()], vec![from_i64(12)]),
            strs(&["seq*12"])
        );
        assert_eq!(
            values("Mul", vec![batch.clone(), seq.clone()], vec![seq.clone()]),
            strs(&["batch*seq", "seq*seq"])
        );
        assert_eq!(
            values("Add", vec![seq.clone()], vec![from_i64(1)]),
            strs(&["seq+1"])
        );
        assert_eq!(
            values("Sub", vec![seq.clone()], vec![seq.clone()]),
            strs(&["0"])
        );
        assert_eq!(
            values("Sub", vec![from_i64(1)], vec![seq.clone()]),
            strs(&["-seq+1"])
        );
        let s12 = Poly::of_value(&seq)
            .and_then(|p| p.mul(&Poly::constant(12)))
            .map(Poly::into_value)
            .unwrap();
        assert_eq!(
            values("Div", vec![s12.clone()], vec![from_i64(12)]),
            strs(&["seq"])
        );
        assert_eq!(
            values("Div", vec![s12.clone()], vec![from_i64(-4)]),
            strs(&["-seq*3"])
        );
        assert_eq!(values("Div", vec![s12], vec![seq.clone()]), strs(&["12"]));
        // Not exact: a size divided by a positive number is its floor (truncation, for a dividend
        // that is not negative); one that may be negative, or a division by 0, has no value.
        assert_eq!(
            values("Div", vec![seq.clone()], vec![from_i64(2)]),
            strs(&["floor(seq/2)"])
        );
        let minus_one = Poly::of_value(&seq)
            .and_then(|p| p.sub(&Poly::constant(1)))
            .map(Poly::into_value)
            .unwrap();
        assert_eq!(
            values("Div", vec![minus_one.clone()], vec![from_i64(2)]),
            strs(&["ceil(seq/2)-1"])
        );
        let negated = values("Sub", vec![from_i64(0)], vec![seq.clone()]);
        assert_eq!(negated, strs(&["-seq"]));
        let neg = Poly::of_value(&seq)
            .and_then(|p| p.neg())
            .map(Poly::into_value)
            .unwrap();
        assert_eq!(values("Div", vec![neg.clone()], vec![from_i64(2)]), None);
        assert_eq!(values("Div", vec![seq.clone()], vec![from_i64(0)]), None);
        // Mod by a positive number: Python's remainder for any dividend (a window padding
        // `Mod(-h, 7)`), C's (`fmod=1`) for one that is not negative.
        assert_eq!(
            values("Mod", vec![seq.clone()], vec![from_i64(4)]),
            strs(&["seq-floor(seq/4)*4"])
        );
        assert_eq!(
            values("Mod", vec![neg], vec![from_i64(7)]),
            strs(&["seq*6-floor(seq*6/7)*7"])
        );
        assert_eq!(
            values("Mod", vec![from_i64(-7)], vec![from_i64(4)]),
            strs(&["1"])
        );
        // An element not computed is unknown beside the others.
        assert_eq!(
            values("Add", vec![seq.clone(), Dim::Unknown], vec![from_i64(1)]),
            strs(&["seq+1", "?"])
        );
        // Known values keep C semantics.
        assert_eq!(
            values("Div", vec![from_i64(-7)], vec![from_i64(2)]),
            strs(&["-3"])
        );
        let huge = values("Mul", vec![from_i64(i64::MAX)], vec![seq.clone()]);
        assert_eq!(huge, strs(&["seq*9223372036854775807"]));
        let huge = Poly::of_value(&seq)
            .and_then(|p| p.mul(&Poly::constant(i64::MAX)))
            .map(Poly::into_value)
            .unwrap();
        assert_eq!(
            values("Mul", vec![huge], vec![from_i64(2)]),
            None,
            "overflow"
        );
    }

    fn fl(elem: Option<i32>, v: &[f64]) -> Option<ValueInfo> {
        Some(
            ValueInfo::tensor(elem, Some(vec![Dim::Known(v.len() as u64)]))
                .with_values(Some(Data::Floats(v.into()))),
        )
    }

    #[test]
    fn float_arithmetic_rounds_to_the_element_type() {
        let (a, b) = (f64::from(0.1f32), f64::from(0.2f32));
        let out = run(
            multi,
            &node("Add", 2, 1, vec![]),
            14,
            &[fl(F32, &[a]), fl(F32, &[b])],
        );
        assert_eq!(out[0].floats(), Some(&[f64::from(0.1f32 + 0.2f32)][..]));
        let dbl = Some(DataType::Double as i32);
        let out = run(
            multi,
            &node("Add", 2, 1, vec![]),
            14,
            &[fl(dbl, &[0.1]), fl(dbl, &[0.2])],
        );
        assert_eq!(out[0].floats(), Some(&[0.1 + 0.2][..]));
        let out = run(
            multi,
            &node("Mul", 2, 1, vec![]),
            14,
            &[fl(F32, &[1.0, 2.0, 3.0]), fl(F32, &[0.5])],
        );
        assert_eq!(out[0].floats(), Some(&[0.5, 1.0, 1.5][..]));
        let out = run(
            multi,
            &node("Div", 2, 1, vec![]),
            14,
            &[fl(F32, &[1.0]), fl(F32, &[3.0])],
        );
        assert_eq!(out[0].floats(), Some(&[f64::from(1.0f32 / 3.0)][..]));
        let out = run(
            multi,
            &node("Less", 2, 1, vec![]),
            14,
            &[fl(F32, &[1.0, 5.0]), fl(F32, &[3.0])],
        );
        assert_eq!(out[0].data_i64(), Some(vec![1, 0]));
        let out = run(
            multi,
            &node("Max", 2, 1, vec![]),
            14,
            &[fl(F32, &[f64::NAN]), fl(F32, &[3.0])],
        );
        assert_eq!(out[0].data, None, "NaN is not carried");
        // Lengths that do not broadcast as scalars or equal vectors: nothing.
        let out = run(
            multi,
            &node("Add", 2, 1, vec![]),
            14,
            &[fl(F32, &[1.0, 2.0]), fl(F32, &[1.0, 2.0, 3.0])],
        );
        assert_eq!(out[0].data, None);
    }
}
