//! Helpers the shape-carrying families share: axis normalization, size arithmetic on [`Dim`]s that
//! stays exact (symbols take part through the polynomial algebra of [`Poly`]: `seq*12`, `seq+1`; what
//! is not exact, such as `seq / 2`, is unknown), reading integer lists from attributes or from input
//! data, and the bounds that keep a malformed model from making inference allocate without limit.

use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Poly, Shape};
use super::super::value::{Data, MAX_DATA_ELEMENTS, ValueInfo, as_i64};
use crate::proto::tensor_proto::DataType;

/// The largest rank inference builds. A rank read from a value (a shape tensor of length `n`) beyond
/// it is treated as unknown rather than allocated: no real model comes near it.
pub const MAX_RANK: u64 = MAX_DATA_ELEMENTS;

/// `axis` in `[-rank, rank)` as an index, else `None`.
pub fn axis(axis: i64, rank: usize) -> Option<usize> {
    let r = i64::try_from(rank).ok()?;
    let a = if axis < 0 { axis.checked_add(r)? } else { axis };
    (0..r).contains(&a).then_some(a as usize)
}

/// `axis` in `[-rank, rank]` (an insertion point or a split position) as an index, else `None`.
pub fn axis_inclusive(axis: i64, rank: usize) -> Option<usize> {
    let r = i64::try_from(rank).ok()?;
    let a = if axis < 0 { axis.checked_add(r)? } else { axis };
    (0..=r).contains(&a).then_some(a as usize)
}

/// Distinct normalized axes, or `None` if one is out of range or repeated.
pub fn axes(list: &[i64], rank: usize) -> Option<Vec<usize>> {
    let mut out: Vec<usize> = Vec::with_capacity(list.len());
    for &a in list {
        let a = axis(a, rank)?;
        if out.contains(&a) {
            return None;
        }
        out.push(a);
    }
    Some(out)
}

/// The size a data value stands for, when used as a dimension: a negative integer is no size, nor is an
/// expression that can never be positive (`-seq`).
pub fn size_of_value(d: &Dim) -> Dim {
    match d {
        Dim::Known(_) => match as_i64(d) {
            Some(v) if v >= 0 => Dim::Known(v as u64),
            _ => Dim::Unknown,
        },
        Dim::Sym(e) if Poly::of(e).never_positive() => Dim::Unknown,
        other => other.clone(),
    }
}

/// A size computed from two sizes in the polynomial algebra, or unknown.
fn sizes(a: &Dim, b: &Dim, op: impl FnOnce(&Poly, &Poly) -> Option<Poly>) -> Dim {
    match (Poly::of_size(a), Poly::of_size(b)) {
        (Some(x), Some(y)) => op(&x, &y).map_or(Dim::Unknown, Poly::into_size),
        _ => Dim::Unknown,
    }
}

/// The product of two sizes, kept exact: `seq * 12` is `seq*12`, `batch * seq` is `batch*seq`; 0 times
/// anything, even an unknown, is 0.
pub fn mul(a: &Dim, b: &Dim) -> Dim {
    match (a, b) {
        (Dim::Known(x), Dim::Known(y)) => x.checked_mul(*y).map_or(Dim::Unknown, Dim::Known),
        (Dim::Known(0), _) | (_, Dim::Known(0)) => Dim::Known(0),
        (Dim::Known(1), other) | (other, Dim::Known(1)) => other.clone(),
        _ => sizes(a, b, Poly::mul),
    }
}

/// The product of all of `dims`.
pub fn product<'a>(dims: impl IntoIterator<Item = &'a Dim>) -> Dim {
    dims.into_iter().fold(Dim::Known(1), |acc, d| mul(&acc, d))
}

/// The sum of two sizes, kept exact (`seq + 1` is `seq+1`).
pub fn add(a: &Dim, b: &Dim) -> Dim {
    match (a, b) {
        (Dim::Known(x), Dim::Known(y)) => x.checked_add(*y).map_or(Dim::Unknown, Dim::Known),
        (Dim::Known(0), other) | (other, Dim::Known(0)) => other.clone(),
        _ => sizes(a, b, Poly::add),
    }
}

/// The sum of all of `dims`.
pub fn sum<'a>(dims: impl IntoIterator<Item = &'a Dim>) -> Dim {
    dims.into_iter().fold(Dim::Known(0), |acc, d| add(&acc, d))
}

/// `a + delta` for a size and a signed offset: a symbol survives only an offset of 0; a negative result
/// is invalid, so unknown. (Window formulas rely on it: their symbolic cases are not all plain offsets.
/// [`shift`] keeps `seq+2`.)
pub fn add_offset(a: &Dim, delta: i64) -> Dim {
    match a {
        _ if delta == 0 => a.clone(),
        Dim::Known(_) => shift(a, delta),
        _ => Dim::Unknown,
    }
}

/// `a + delta` for a size and a signed offset (a pad), symbols included: a known result below 0 is
/// invalid, so unknown; a symbolic one (`seq+2`, or `seq-2` for a crop of 2) is kept, as a valid model
/// has it non-negative.
pub fn shift(a: &Dim, delta: i64) -> Dim {
    match a {
        _ if delta == 0 => a.clone(),
        Dim::Known(x) => i64::try_from(*x)
            .ok()
            .and_then(|x| x.checked_add(delta))
            .filter(|&v| v >= 0)
            .map_or(Dim::Unknown, |v| Dim::Known(v as u64)),
        _ => Poly::of_size(a)
            .and_then(|x| x.add(&Poly::constant(delta)))
            .map_or(Dim::Unknown, Poly::into_size),
    }
}

/// `a / b` when `b` divides `a` exactly (a symbol divided by 1 is itself; `seq*12` by 4 is `seq*3`).
pub fn div_exact(a: &Dim, b: u64) -> Dim {
    match a {
        _ if b == 1 => a.clone(),
        Dim::Known(x) if b != 0 && x % b == 0 => Dim::Known(x / b),
        Dim::Known(_) => Dim::Unknown,
        _ => div_exact_dim(a, &Dim::Known(b)),
    }
}

/// `a / b` for two sizes when `b` divides `a` exactly as polynomials (`(batch*seq*768) / (batch*64)`
/// is `seq*12`); unknown otherwise, and for a zero divisor.
pub fn div_exact_dim(a: &Dim, b: &Dim) -> Dim {
    sizes(a, b, Poly::div_exact)
}

/// `n` unknown dimensions, or an unknown rank when `n` is beyond [`MAX_RANK`].
pub fn unknown_dims(n: u64) -> Shape {
    (n <= MAX_RANK).then(|| vec![Dim::Unknown; n as usize])
}

/// The length of a 1-D input: from its values when known, else from its shape.
pub fn len_1d(ctx: &NodeCtx<'_>, slot: usize) -> Option<u64> {
    if let Some(d) = ctx.data(slot) {
        return Some(d.len() as u64);
    }
    match ctx.shape(slot)?.as_slice() {
        [Dim::Known(n)] => Some(*n),
        _ => None,
    }
}

/// A list parameter of an op: absent (the op's default applies), given with known values, or given
/// as an input whose values inference does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Param<T> {
    Absent,
    Known(Vec<T>),
    Unknown,
}

impl<T> From<Option<Vec<T>>> for Param<T> {
    fn from(v: Option<Vec<T>>) -> Self {
        v.map_or(Param::Absent, Param::Known)
    }
}

/// An integer list given as attribute `name` before opset `since` and as input `slot` from it on.
pub fn ints_attr_or_input(ctx: &NodeCtx<'_>, name: &str, slot: usize, since: i64) -> Param<i64> {
    if ctx.opset < since {
        return ctx.attr(name).map(|a| a.ints.clone()).into();
    }
    if !ctx.has_input(slot) {
        return Param::Absent;
    }
    ctx.data_i64(slot).map_or(Param::Unknown, Param::Known)
}

/// Whether an element type is an integer type whose values data propagation carries as i64.
pub fn is_int_elem(elem: Option<i32>) -> bool {
    let Some(e) = elem.and_then(|e| DataType::try_from(e).ok()) else {
        return false;
    };
    matches!(
        e,
        DataType::Int64
            | DataType::Int32
            | DataType::Int16
            | DataType::Int8
            | DataType::Uint64
            | DataType::Uint32
            | DataType::Uint16
            | DataType::Uint8
    )
}

/// A tensor of input `slot`'s element type with `shape`.
pub fn like(ctx: &NodeCtx<'_>, slot: usize, shape: Shape) -> ValueInfo {
    ValueInfo::tensor(ctx.elem(slot), shape)
}

/// Integer data for a result of rank 0 or 1 only (see [`values_if_small`]).
pub fn data_if_small(shape: &Shape, data: Option<Vec<Dim>>) -> Option<Vec<Dim>> {
    let small = matches!(shape.as_deref(), Some([]) | Some([_]));
    match values_if_small(shape, data.map(Data::Ints)) {
        Some(Data::Ints(v)) if small => Some(v),
        _ => None,
    }
}

/// Values for a result of shape `shape`, when they fit it: a scalar or vector of as many values, or a
/// small tensor of higher rank whose sizes are all known and multiply to their number (a Reshape of
/// pads to `[-1, 2]`). Anything else is dropped, so a rule never hands on values of the wrong shape.
pub fn values_if_small(shape: &Shape, data: Option<Data>) -> Option<Data> {
    let data = data?;
    let n = data.len() as u64;
    if n > MAX_DATA_ELEMENTS {
        return None;
    }
    let fits = match shape.as_deref()? {
        [] => n == 1,
        [d] => d.known().is_none_or(|k| k == n),
        dims => {
            dims.iter()
                .try_fold(1u64, |acc, d| acc.checked_mul(d.known()?))
                == Some(n)
        }
    };
    fits.then_some(data)
}

#[cfg(test)]
pub(crate) mod test_util {
    //! Building a [`NodeCtx`] for a rule test without a model.

    use super::super::super::ctx::NodeCtx;
    use super::super::super::dim::{Dim, Shape};
    use super::super::super::registry::Rule;
    use super::super::super::value::{ValueInfo, from_i64};
    use crate::proto::attribute_proto::AttributeType;
    use crate::proto::tensor_proto::DataType;
    use crate::proto::{AttributeProto, NodeProto, TensorProto};

    pub const F32: Option<i32> = Some(DataType::Float as i32);
    pub const I64: Option<i32> = Some(DataType::Int64 as i32);

    /// A node of `op` with `n_out` outputs and the given attributes.
    pub fn node(op: &str, n_in: usize, n_out: usize, attrs: Vec<AttributeProto>) -> NodeProto {
        NodeProto {
            op_type: Some(op.to_owned()),
            input: (0..n_in).map(|k| format!("i{k}")).collect(),
            output: (0..n_out).map(|k| format!("o{k}")).collect(),
            attribute: attrs,
            ..Default::default()
        }
    }

    pub fn attr_i(name: &str, v: i64) -> AttributeProto {
        AttributeProto {
            name: Some(name.to_owned()),
            r#type: Some(AttributeType::Int as i32),
            i: Some(v),
            ..Default::default()
        }
    }

    pub fn attr_f(name: &str, v: f32) -> AttributeProto {
        AttributeProto {
            name: Some(name.to_owned()),
            r#type: Some(AttributeType::Float as i32),
            f: Some(v),
            ..Default::default()
        }
    }

    pub fn attr_ints(name: &str, v: &[i64]) -> AttributeProto {
        AttributeProto {
            name: Some(name.to_owned()),
            r#type: Some(AttributeType::Ints as i32),
            ints: v.to_vec(),
            ..Default::default()
        }
    }

    pub fn attr_floats(name: &str, v: &[f32]) -> AttributeProto {
        AttributeProto {
            name: Some(name.to_owned()),
            r#type: Some(AttributeType::Floats as i32),
            floats: v.to_vec(),
            ..Default::default()
        }
    }

    pub fn attr_s(name: &str, v: &str) -> AttributeProto {
        AttributeProto {
            name: Some(name.to_owned()),
            r#type: Some(AttributeType::String as i32),
            s: Some(v.as_bytes().to_vec().into()),
            ..Default::default()
        }
    }

    pub fn attr_t(name: &str, t: TensorProto) -> AttributeProto {
        AttributeProto {
            name: Some(name.to_owned()),
            r#type: Some(AttributeType::Tensor as i32),
            t: Some(t),
            ..Default::default()
        }
    }

    /// An inline INT64 tensor.
    pub fn int64_tensor(dims: &[i64], values: &[i64]) -> TensorProto {
        TensorProto {
            dims: dims.to_vec(),
            data_type: Some(DataType::Int64 as i32),
            int64_data: values.to_vec(),
            ..Default::default()
        }
    }

    /// Parses a dimension: a number, `?`, or a symbol.
    pub fn d(s: &str) -> Dim {
        match s {
            "?" => Dim::Unknown,
            _ => s.parse().map_or_else(|_| Dim::sym(s), Dim::Known),
        }
    }

    pub fn shape(dims: &[&str]) -> Shape {
        Some(dims.iter().map(|s| d(s)).collect())
    }

    pub fn t(elem: Option<i32>, dims: &[&str]) -> Option<ValueInfo> {
        Some(ValueInfo::tensor(elem, shape(dims)))
    }

    /// A 1-D int64 constant.
    pub fn ints(v: &[i64]) -> Option<ValueInfo> {
        Some(ValueInfo::int64_data(
            v.iter().copied().map(from_i64).collect(),
            false,
        ))
    }

    /// A scalar int64 constant.
    pub fn int(v: i64) -> Option<ValueInfo> {
        Some(ValueInfo::int64_data(vec![from_i64(v)], true))
    }

    /// Runs `rule` on a node at `opset` with `inputs`: its outputs and its findings.
    pub fn run_all(
        rule: Rule,
        node: &NodeProto,
        opset: i64,
        inputs: &[Option<ValueInfo>],
    ) -> (Vec<ValueInfo>, Vec<crate::diagnostics::Diagnostic>) {
        let mut sub = crate::shape::ctx::no_subgraphs;
        let inputs: Vec<Option<&ValueInfo>> = inputs.iter().map(Option::as_ref).collect();
        let mut ctx = NodeCtx {
            node: crate::shape::ctx::NodeRef::Proto(node),
            label: "n",
            opset,
            inputs: &inputs,
            findings: Vec::new(),
            facts: &crate::shape::facts::Facts::default(),
            ranges: None,
            conditions: None,
            subgraph: &mut sub,
        };
        let out = rule(&mut ctx);
        (out, ctx.findings)
    }

    /// Runs `rule` on a node at `opset` with `inputs`.
    pub fn run(
        rule: Rule,
        node: &NodeProto,
        opset: i64,
        inputs: &[Option<ValueInfo>],
    ) -> Vec<ValueInfo> {
        run_all(rule, node, opset, inputs).0
    }

    /// The findings `rule` reports on a node at `opset` with `inputs`.
    pub fn findings(
        rule: Rule,
        node: &NodeProto,
        opset: i64,
        inputs: &[Option<ValueInfo>],
    ) -> Vec<crate::diagnostics::Diagnostic> {
        run_all(rule, node, opset, inputs).1
    }

    /// The findings of `rule` on node `n` at `opset`, one line each: "CODE message".
    pub fn codes_at(
        rule: Rule,
        n: &NodeProto,
        opset: i64,
        inputs: &[Option<ValueInfo>],
    ) -> Vec<String> {
        findings(rule, n, opset, inputs)
            .iter()
            .map(|d| format!("{} {}", d.code.as_str(), d.message))
            .collect()
    }

    /// The findings of `rule` on node `n` at `opset`, one line each: "CODE contract" (`-` for a
    /// finding of no contract), for the tests of the contracts.
    pub fn contracts(
        rule: Rule,
        n: &NodeProto,
        opset: i64,
        inputs: &[Option<ValueInfo>],
    ) -> Vec<String> {
        findings(rule, n, opset, inputs)
            .iter()
            .map(|d| format!("{} {}", d.code.as_str(), d.contract.unwrap_or("-")))
            .collect()
    }

    /// [`codes_at`] at version 1 (every contrib operator's).
    pub fn codes(rule: Rule, n: &NodeProto, inputs: &[Option<ValueInfo>]) -> Vec<String> {
        codes_at(rule, n, 1, inputs)
    }

    /// The output shape of `rule`'s first output.
    pub fn out_shape(
        rule: Rule,
        node: &NodeProto,
        opset: i64,
        inputs: &[Option<ValueInfo>],
    ) -> Shape {
        run(rule, node, opset, inputs)
            .into_iter()
            .next()
            .and_then(|v| v.shape)
    }
}

#[cfg(test)]
mod tests {
    use super::test_util::d;
    use super::*;

    #[test]
    fn axes_normalize_and_reject_out_of_range() {
        assert_eq!(axis(-1, 3), Some(2));
        assert_eq!(axis(3, 3), None);
        assert_eq!(axis(-4, 3), None);
        assert_eq!(axis(i64::MIN, 3), None);
        assert_eq!(axis_inclusive(3, 3), Some(3));
        assert_eq!(axis_inclusive(-3, 3), Some(0));
        assert_eq!(axis_inclusive(-4, 3), None);
        assert_eq!(axes(&[0, -3], 3), None);
    }

    #[test]
    fn arithmetic_keeps_symbols_only_when_exact() {
        assert_eq!(mul(&d("N"), &d("1")), d("N"));
        assert_eq!(mul(&d("N"), &d("0")), d("0"));
        assert_eq!(mul(&Dim::Unknown, &d("0")), d("0"));
        assert_eq!(mul(&d("N"), &Dim::Unknown), Dim::Unknown);
        assert_eq!(mul(&d("N"), &d("2")).to_string(), "N*2");
        assert_eq!(mul(&d("2"), &d("N")), mul(&d("N"), &d("2")));
        assert_eq!(product(&[d("B"), d("S"), d("768")]).to_string(), "B*S*768");
        assert_eq!(sum(&[d("S"), d("1"), d("S")]).to_string(), "S*2+1");
        assert_eq!(add(&d("S"), &d("0")), d("S"));
        assert_eq!(add(&d("S"), &Dim::Unknown), Dim::Unknown);
        assert_eq!(add_offset(&d("S"), 2), Dim::Unknown);
        assert_eq!(shift(&d("S"), 2).to_string(), "S+2");
        assert_eq!(shift(&d("S"), -2).to_string(), "S-2");
        assert_eq!(shift(&d("3"), -4), Dim::Unknown);
        assert_eq!(div_exact(&mul(&d("S"), &d("12")), 4).to_string(), "S*3");
        assert_eq!(div_exact(&d("S"), 2), Dim::Unknown);
        assert_eq!(div_exact(&d("S"), 0), Dim::Unknown);
        let total = product(&[d("B"), d("S"), d("768")]);
        let per = mul(&d("B"), &d("64"));
        assert_eq!(div_exact_dim(&total, &per).to_string(), "S*12");
        assert_eq!(div_exact_dim(&total, &d("0")), Dim::Unknown);
        assert_eq!(div_exact_dim(&d("S"), &d("B")), Dim::Unknown);
        let minus = Dim::Sym(
            Poly::of_size(&d("S"))
                .unwrap()
                .neg()
                .unwrap()
                .into_expr()
                .unwrap(),
        );
        assert_eq!(size_of_value(&minus), Dim::Unknown);
        assert_eq!(size_of_value(&shift(&d("S"), -1)).to_string(), "S-1");
        assert_eq!(mul(&Dim::Known(u64::MAX), &d("2")), Dim::Unknown);
        assert_eq!(add_offset(&d("N"), 0), d("N"));
        assert_eq!(add_offset(&d("3"), -4), Dim::Unknown);
        assert_eq!(add_offset(&Dim::Known(u64::MAX), 1), Dim::Unknown);
        assert_eq!(div_exact(&d("6"), 4), Dim::Unknown);
        assert_eq!(div_exact(&d("8"), 4), d("2"));
        assert_eq!(div_exact(&d("8"), 0), Dim::Unknown);
        assert_eq!(
            size_of_value(&super::super::super::value::from_i64(-1)),
            Dim::Unknown
        );
        assert_eq!(unknown_dims(u64::MAX), None);
    }
}

#[cfg(test)]
mod hostile {
    //! Every rule of these families, on hostile attributes and inputs: none may panic.

    use super::super::super::dim::Dim;
    use super::super::super::registry::Registry;
    use super::super::super::value::{ValueInfo, from_i64};
    use super::test_util::*;
    use crate::proto::AttributeProto;

    const INT_ATTRS: &[&str] = &[
        "axis",
        "keepdims",
        "start",
        "end",
        "group",
        "blocksize",
        "k",
        "num_outputs",
        "allowzero",
        "batch_dims",
        "to",
        "ceil_mode",
        "noop_with_empty_axes",
        "spatial",
        "value_int",
        "dtype",
    ];
    const INTS_ATTRS: &[&str] = &[
        "axes",
        "perm",
        "kernel_shape",
        "strides",
        "pads",
        "dilations",
        "split",
        "starts",
        "ends",
        "output_shape",
        "output_padding",
        "shape",
        "value_ints",
        "paddings",
        "pooled_shape",
    ];

    fn attr_sets() -> Vec<Vec<AttributeProto>> {
        let mut sets = vec![Vec::new()];
        for v in [i64::MIN, -1, 0, 1, 3, i64::MAX] {
            let mut a: Vec<AttributeProto> = INT_ATTRS.iter().map(|n| attr_i(n, v)).collect();
            a.extend(INTS_ATTRS.iter().map(|n| attr_ints(n, &[v, v])));
            sets.push(a);
        }
        let mut mixed: Vec<AttributeProto> = INTS_ATTRS
            .iter()
            .map(|n| attr_ints(n, &[i64::MAX, i64::MIN, 0, -1, 1]))
            .collect();
        mixed.push(attr_s("auto_pad", "SAME_UPPER"));
        mixed.push(attr_s("equation", "...ij,...jk->...ik"));
        mixed.push(attr_floats(
            "scales",
            &[f32::MAX, f32::NAN, -1.0, 0.0, 1e30],
        ));
        mixed.push(attr_f("height_scale", f32::INFINITY));
        mixed.push(attr_f("width_scale", 1e30));
        sets.push(mixed);
        sets
    }

    fn input_sets() -> Vec<Vec<Option<ValueInfo>>> {
        let huge = Dim::Known(u64::MAX);
        let big = ValueInfo::tensor(F32, Some(vec![huge.clone(), d("N"), Dim::Unknown, d("0")]));
        let extreme = Some(ValueInfo::int64_data(
            vec![from_i64(i64::MIN), from_i64(i64::MAX), from_i64(-1), d("S")],
            false,
        ));
        let long = Some(ValueInfo::tensor(I64, Some(vec![huge.clone()])));
        vec![
            vec![],
            vec![None, None, None, None, None],
            vec![Some(big.clone()); 5],
            vec![t(F32, &[]), int(i64::MIN), int(i64::MAX), int(-1), int(0)],
            vec![
                extreme.clone(),
                extreme.clone(),
                extreme.clone(),
                extreme.clone(),
                extreme,
            ],
            vec![Some(big), long.clone(), long.clone(), long.clone(), long],
            vec![
                t(F32, &["1", "2", "3", "4", "5", "6"]),
                ints(&[]),
                ints(&[]),
                ints(&[]),
                ints(&[]),
            ],
        ]
    }

    #[test]
    fn no_rule_panics() {
        let mut r = Registry::default();
        super::super::conv_pool::register(&mut r);
        super::super::einsum::register(&mut r);
        super::super::elementwise_unary::register(&mut r);
        super::super::indexing::register(&mut r);
        super::super::normalization::register(&mut r);
        super::super::reduce::register(&mut r);
        super::super::shape_ops::register(&mut r);
        let mut ops: Vec<(&str, &str)> = r.ops().collect();
        ops.sort();
        assert!(ops.len() > 100, "{} ops", ops.len());
        for (domain, op) in ops {
            for opset in [1, 2, 5, 7, 9, 10, 11, 13, 15, 18, 19, 25] {
                let Some(rule) = r.lookup(domain, op, opset) else {
                    continue;
                };
                for attrs in attr_sets() {
                    for inputs in input_sets() {
                        for outputs in [0, 1, 3] {
                            let n = node(op, inputs.len(), outputs, attrs.clone());
                            run(rule, &n, opset, &inputs);
                        }
                    }
                }
            }
        }
    }
}
