//! Small helpers the later families share (sequences, recurrent and attention ops, signal processing,
//! the ML domain): reading one dimension of a possibly unknown shape, scalar inputs, and building
//! sequence and scalar results. They sit beside [`super::common`], which holds
//! the helpers of the first families.

use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Shape};
use super::super::value::{Kind, ValueInfo};
use crate::proto::tensor_proto::DataType;

/// Dimension `i` of `shape`, or unknown (unknown rank, or a rank too small).
pub fn dim_at(shape: &Shape, i: usize) -> Dim {
    shape
        .as_ref()
        .and_then(|s| s.get(i))
        .cloned()
        .unwrap_or(Dim::Unknown)
}

/// Dimension `i` of input `slot` when that input has rank `rank`, else unknown: a rule reading a
/// fixed layout must not take a size from an input whose rank says the layout is another.
pub fn dim_of(ctx: &NodeCtx<'_>, slot: usize, rank: usize, i: usize) -> Dim {
    match ctx.shape(slot) {
        Some(s) if s.len() == rank => s.get(i).cloned().unwrap_or(Dim::Unknown),
        _ => Dim::Unknown,
    }
}

/// The rank of input `slot`, when known.
pub fn rank_of(ctx: &NodeCtx<'_>, slot: usize) -> Option<usize> {
    ctx.input(slot)?.rank()
}

/// `a` when it is known (a size or a symbol), else `b`: the first source that says something.
pub fn or_dim(a: Dim, b: Dim) -> Dim {
    if matches!(a, Dim::Unknown) { b } else { a }
}

/// The value of input `slot` when it is a known integer scalar (or a one-element tensor, which
/// runtimes accept where the spec asks for a scalar).
pub fn scalar_i64(ctx: &NodeCtx<'_>, slot: usize) -> Option<i64> {
    match ctx.data_i64(slot)?.as_slice() {
        [v] => Some(*v),
        _ => None,
    }
}

/// The element type `t` as carried in [`ValueInfo::elem`].
pub fn elem(t: DataType) -> Option<i32> {
    Some(t as i32)
}

/// A data type given by an attribute (`dtype`, `to`, `output_datatype`): a known non-zero value.
pub fn elem_attr(ctx: &NodeCtx<'_>, name: &str) -> Option<i32> {
    ctx.attr_i(name)
        .and_then(|v| i32::try_from(v).ok())
        .filter(|&t| t > 0 && DataType::try_from(t).is_ok())
}

/// A scalar of element type `t`.
pub fn scalar(t: DataType) -> ValueInfo {
    ValueInfo::tensor(elem(t), Some(vec![]))
}

/// A sequence whose element tensors have type `elem` and shape `shape` (what all of them share).
pub fn sequence(elem: Option<i32>, shape: Shape) -> ValueInfo {
    ValueInfo {
        kind: Kind::Sequence,
        elem,
        shape,
        data: None,
    }
}

/// What two element types of one sequence have in common: the shared part of their shapes (equal
/// dimensions kept, differing ones unknown, differing ranks an unknown rank).
pub fn union_shape(a: &Shape, b: &Shape) -> Shape {
    match (a, b) {
        (Some(x), Some(y)) if x.len() == y.len() => Some(
            x.iter()
                .zip(y)
                .map(|(p, q)| if p == q { p.clone() } else { Dim::Unknown })
                .collect(),
        ),
        _ => None,
    }
}

/// `dims` with every size unknown (the rank kept).
pub fn unknown_like(shape: &Shape) -> Shape {
    shape.as_ref().map(|s| vec![Dim::Unknown; s.len()])
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    #[test]
    fn unions_keep_what_both_sides_say() {
        assert_eq!(
            union_shape(&shape(&["N", "3"]), &shape(&["N", "4"])),
            shape(&["N", "?"])
        );
        assert_eq!(union_shape(&shape(&["N"]), &shape(&["N", "4"])), None);
        assert_eq!(dim_at(&shape(&["2"]), 3), Dim::Unknown);
    }
}

#[cfg(test)]
mod hostile {
    //! Every rule of the later families, on hostile attributes and inputs: none may panic.

    use super::super::super::ctx::NodeCtx;
    use super::super::super::dim::Dim;
    use super::super::super::registry::Registry;
    use super::super::super::value::{Data, Kind, ValueInfo, from_i64};
    use super::super::common::test_util::*;
    use crate::proto::attribute_proto::AttributeType;
    use crate::proto::{AttributeProto, TypeProto};

    const INT_ATTRS: &[&str] = &[
        "axis",
        "keepdims",
        "new_axis",
        "dtype",
        "to",
        "hidden_size",
        "layout",
        "q_num_heads",
        "kv_num_heads",
        "output_dtype",
        "output_datatype",
        "inverse",
        "onesided",
        "output_height",
        "output_width",
        "n_targets",
        "targets",
        "block_size",
    ];
    const INTS_ATTRS: &[&str] = &[
        "ngram_indexes",
        "classlabels_ints",
        "classlabels_int64s",
        "inputdimensions",
        "cats_int64s",
        "strides",
        "pads",
        "dilations",
    ];
    const STRING_ATTRS: &[(&str, &str)] = &[
        ("direction", "bidirectional"),
        ("reduction", "none"),
        ("pixel_format", "Grayscale"),
        ("cast_to", "TO_STRING"),
        ("auto_pad", "SAME_UPPER"),
    ];

    fn attr_sets() -> Vec<Vec<AttributeProto>> {
        let mut sets = vec![Vec::new()];
        for v in [i64::MIN, -1, 0, 1, 2, 3, i64::MAX] {
            let mut a: Vec<AttributeProto> = INT_ATTRS.iter().map(|n| attr_i(n, v)).collect();
            a.extend(INTS_ATTRS.iter().map(|n| attr_ints(n, &[v, v])));
            a.extend(STRING_ATTRS.iter().map(|(n, s)| attr_s(n, s)));
            a.push(attr_floats("intercepts", &[f32::NAN]));
            sets.push(a);
        }
        let mut odd: Vec<AttributeProto> = INTS_ATTRS
            .iter()
            .map(|n| attr_ints(n, &[i64::MAX, i64::MIN, 0, -1]))
            .collect();
        odd.extend(STRING_ATTRS.iter().map(|(n, _)| attr_s(n, "\u{0}?")));
        odd.push(AttributeProto {
            name: Some("type".into()),
            r#type: Some(AttributeType::TypeProto as i32),
            tp: Some(TypeProto::default()),
            ..Default::default()
        });
        odd.push(attr_t("values_tensor", int64_tensor(&[-1], &[])));
        sets.push(odd);
        sets
    }

    fn input_sets() -> Vec<Vec<Option<ValueInfo>>> {
        let huge = Dim::Known(u64::MAX);
        let big = ValueInfo::tensor(
            F32,
            Some(vec![
                huge.clone(),
                d("N"),
                Dim::Unknown,
                d("0"),
                huge.clone(),
            ]),
        );
        let extreme = Some(ValueInfo::int64_data(
            vec![from_i64(i64::MIN), from_i64(i64::MAX), from_i64(-1), d("S")],
            false,
        ));
        let seq = Some(super::sequence(F32, Some(vec![huge.clone(), d("0")])));
        let opt = Some(ValueInfo {
            kind: Kind::Optional,
            ..big.clone()
        });
        let mut sets = vec![
            vec![],
            vec![None; 10],
            vec![Some(big.clone()); 10],
            vec![seq.clone(), opt.clone(), seq, opt, extreme.clone()],
            vec![t(F32, &[]), int(i64::MIN), int(i64::MAX), int(-1), int(0)],
            vec![extreme; 8],
            vec![
                t(F32, &["1", "2", "3", "4", "5", "6"]),
                ints(&[]),
                ints(&[]),
                ints(&[]),
                ints(&[]),
            ],
        ];
        // Float values (scales, roi, depths, Range bounds) at the edges of f32 and f64, and the
        // values of an empty matrix whose other sizes overflow any product.
        let fl = |v: &[f64]| {
            Some(
                ValueInfo::tensor(F32, Some(vec![Dim::Known(v.len() as u64)]))
                    .with_values(Some(Data::Floats(v.into()))),
            )
        };
        let odd = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
            -1e300,
            1e-45,
            -0.0,
            0.5,
        ];
        let empty_matrix = Some(
            ValueInfo::tensor(I64, Some(vec![d("0"), huge.clone(), huge.clone()]))
                .with_values(Some(Data::Ints(Vec::new()))),
        );
        sets.push(vec![fl(&odd); 5]);
        sets.push(vec![
            Some(big.clone()),
            fl(&odd),
            fl(&odd[..4]),
            ints(&[1, 2, 3, 4]),
            fl(&[]),
        ]);
        sets.push(vec![
            t(F32, &["N", "3", "H", "W"]),
            fl(&[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]),
            fl(&[1.0, 1.0, f64::from(f32::MAX), 1e-40]),
            ints(&[i64::MAX, -1, 0, 5]),
        ]);
        sets.push(vec![
            fl(&[f64::NAN]),
            fl(&[f64::INFINITY]),
            fl(&[-1e300]),
            fl(&[1e-45]),
        ]);
        sets.push(vec![empty_matrix.clone(); 5]);
        sets.push(vec![
            empty_matrix,
            ints(&[-1, 2]),
            ints(&[0]),
            ints(&[1]),
            ints(&[-1]),
        ]);
        for rank in 0..6 {
            let dims: Vec<String> = (0..rank).map(|k| (k * 7 % 5).to_string()).collect();
            let dims: Vec<&str> = dims.iter().map(String::as_str).collect();
            sets.push(vec![t(F32, &dims); 9]);
            sets.push(vec![
                t(F32, &dims),
                int(2),
                int(-3),
                int(i64::MAX),
                ints(&[2, 0, 3]),
            ]);
        }
        sets
    }

    #[test]
    fn no_rule_panics() {
        let mut r = Registry::default();
        super::super::attention::register(&mut r);
        super::super::contrib_activation::register(&mut r);
        super::super::contrib_fused::register(&mut r);
        super::super::contrib_generation::register(&mut r);
        super::super::contrib_misc::register(&mut r);
        super::super::contrib_moe::register(&mut r);
        super::super::contrib_qordered::register(&mut r);
        super::super::contrib_other::register(&mut r);
        super::super::contrib_sparse::register(&mut r);
        super::super::contrib_recurrent::register(&mut r);
        super::super::contrib_signal::register(&mut r);
        super::super::image::register(&mut r);
        super::super::losses::register(&mut r);
        super::super::misc::register(&mut r);
        super::super::ml::register(&mut r);
        super::super::normalization::register(&mut r);
        super::super::quantize::register(&mut r);
        super::super::rnn::register(&mut r);
        super::super::sequence::register(&mut r);
        super::super::signal::register(&mut r);
        super::super::text::register(&mut r);
        super::super::training::register(&mut r);
        super::super::unidirectional::register(&mut r);
        let mut ops: Vec<(&str, &str)> = r.ops().collect();
        ops.sort();
        assert!(ops.len() > 70, "{} ops", ops.len());
        let (attrs, inputs) = (attr_sets(), input_sets());
        for (domain, op) in ops {
            for opset in [1, 2, 4, 5, 7, 10, 11, 14, 17, 19, 20, 21, 23, 24, 27, 28] {
                let Some(rule) = r.lookup(domain, op, opset) else {
                    continue;
                };
                for a in &attrs {
                    for ins in &inputs {
                        for outputs in [0, 1, 4] {
                            let n = node(op, ins.len(), outputs, a.clone());
                            // A body that answers with more outputs than asked, of unknown types.
                            let mut sub = |_: &str,
                                           f: &[ValueInfo],
                                           _: crate::shape::ctx::Reach|
                             -> Option<Vec<ValueInfo>> {
                                Some(vec![ValueInfo::unknown(); f.len() + 2])
                            };
                            let mut ctx = NodeCtx {
                                node: crate::shape::ctx::NodeRef::Proto(&n),
                                label: "n",
                                opset,
                                inputs: &ins.iter().map(Option::as_ref).collect::<Vec<_>>(),
                                findings: Vec::new(),
                                facts: &crate::shape::facts::Facts::default(),
                                ranges: None,
                                conditions: None,
                                subgraph: &mut sub,
                            };
                            rule(&mut ctx);
                        }
                    }
                }
            }
        }
    }
}
