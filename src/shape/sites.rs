//! Broadcast sites: which inputs of a node broadcast, and to what shape. Each broadcasting operator
//! declares its site where its shape rule is registered ([`Registry::add_site`]), once per operator
//! version, so "which inputs does this op broadcast?" has one answer: the `expand` and `fold` passes,
//! the B001 rule (which lists what `expand` would do) and the kernel exceptions read it through
//! [`site`]. Adding a broadcasting operator touches its rule file and its conformance case only.
//!
//! The declaration is read per node, not stored per node by inference: a record per site (about 32
//! bytes) would come to about 29 MB for the 900,000 sites of the million-node benchmark model, a tenth
//! of `expand`'s peak memory there (345 MB).
//!
//! [`Registry::add_site`]: super::registry::Registry::add_site

use super::dim::{Dim, Shape};
use super::registry::registry;
use crate::ir::{Imports, OpNode, opset_domain};

/// How a node broadcasts: which input slots, and to what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Every input to the output shape.
    Multi,
    /// These inputs to the output shape, the others not being broadcast operands (onnxruntime's
    /// QLinearAdd: A and B, not their scales and zero points).
    MultiOf(&'static [usize]),
    /// These inputs to the shape of input 0 (which is the output's shape).
    ToFirst(&'static [usize]),
    /// These inputs to the normalized part of input 0's shape, `X.shape[axis:]` ([`normalized`]):
    /// the shape the operator defines scale and bias on (X's full shape would break onnx-lint's own
    /// rule for them).
    Normalized(&'static [usize]),
    /// Gemm's C to the output shape [M, N].
    GemmC,
    /// Opset < 7 `broadcast=1`: B (input 1) placed at `axis` of A's shape and repeated to it.
    LegacyAxis(Option<i64>),
    /// The attention_bias (at this slot) of onnxruntime's attention operators, `(batch or 1,
    /// num_heads or 1, q, kv)`, to `(batch, num_heads, q, kv)` ([`attention_bias_target`]).
    AttentionBias(usize),
}

impl Kind {
    /// The input slots that broadcast, of a node with `num_inputs` inputs.
    pub fn slots(self, num_inputs: usize) -> smallvec::SmallVec<[usize; 4]> {
        match self {
            Kind::Multi => (0..num_inputs).collect(),
            Kind::MultiOf(s) | Kind::ToFirst(s) | Kind::Normalized(s) => {
                s.iter().copied().collect()
            }
            Kind::GemmC => smallvec::smallvec![2],
            Kind::LegacyAxis(_) => smallvec::smallvec![1],
            Kind::AttentionBias(slot) => smallvec::smallvec![slot],
        }
    }
}

/// A declared site, as a shape rule registers it.
#[derive(Clone, Copy, Debug)]
pub enum Declared {
    /// The node always broadcasts so.
    Always(Kind),
    /// Before opset 7 the node broadcasts only with the attribute `broadcast=1`: so (Gemm's C), or,
    /// for [`Kind::LegacyAxis`], at the node's `axis` attribute.
    WithBroadcastAttribute(Kind),
}

/// The declaration in force for `op`, whose domains are imported at `imports` (onnx's `""` for the
/// default domain). A domain the model does not import is read at its latest version (the domain check
/// reports the model; the passes refuse it).
pub fn declared(op: &OpNode, imports: &Imports<'_>) -> Option<Declared> {
    let domain = opset_domain(op.domain());
    let version = match imports.get(domain) {
        Some(&v) => v,
        None if domain.is_empty() => return None,
        None => i64::MAX,
    };
    registry().site(domain, op.op_type(), version)
}

/// How `op` broadcasts, if it does (its declaration, resolved against its attributes).
pub fn site(op: &OpNode, imports: &Imports<'_>) -> Option<Kind> {
    match declared(op, imports)? {
        Declared::Always(k) => Some(k),
        Declared::WithBroadcastAttribute(k) => {
            let attr = |name: &str| op.attributes().iter().find(|a| a.name() == name);
            if attr("broadcast").and_then(|a| a.i).unwrap_or(0) == 0 {
                return None;
            }
            Some(match k {
                Kind::LegacyAxis(_) => Kind::LegacyAxis(attr("axis").and_then(|a| a.i)),
                k => k,
            })
        }
    }
}

/// The `axis` attribute of a normalization node (default -1).
pub fn norm_axis(op: &OpNode) -> i64 {
    op.attributes()
        .iter()
        .find(|a| a.name() == "axis")
        .and_then(|a| a.i)
        .unwrap_or(-1)
}

/// `X.shape[axis:]`, the target of a [`Kind::Normalized`] site, when X's rank is known and `axis`
/// inside it.
pub fn normalized(x: &Shape, axis: i64) -> Shape {
    let x = x.as_ref()?;
    let r = x.len() as i64;
    let a = if axis < 0 { axis + r } else { axis };
    (0..=r).contains(&a).then(|| x[a as usize..].to_vec())
}

/// The shape an attention_bias broadcasts to: `[batch, num_heads, q, kv]` from the query's shape
/// `query` (its first axis is the batch in every layout), the `num_heads` attribute and the bias's own
/// last two axes. `None` when the bias is not 4-D, the query's rank is unknown or `num_heads` absent.
pub fn attention_bias_target(query: &Shape, bias: &Shape, heads: Option<i64>) -> Shape {
    let (q, b) = (query.as_ref()?, bias.as_ref()?);
    let heads = u64::try_from(heads?).ok().filter(|&h| h > 0)?;
    if b.len() != 4 || q.is_empty() {
        return None;
    }
    Some(vec![
        q[0].clone(),
        Dim::Known(heads),
        b[2].clone(),
        b[3].clone(),
    ])
}

/// The `num_heads` attribute of a node.
pub fn num_heads(op: &OpNode) -> Option<i64> {
    op.attributes()
        .iter()
        .find(|a| a.name() == "num_heads")
        .and_then(|a| a.i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::{AttributeProto, GraphProto, NodeProto};

    /// The site of a node `op` (of `domain`, with integer attributes `attrs`) in a graph importing
    /// `imports`.
    fn site_of(
        op: &str,
        domain: &str,
        attrs: &[(&str, i64)],
        imports: &[(&str, i64)],
    ) -> Option<Kind> {
        let node = NodeProto {
            op_type: Some(op.to_owned()),
            domain: Some(domain.to_owned()),
            input: vec!["a".into(), "b".into()],
            output: vec!["y".into()],
            attribute: attrs
                .iter()
                .map(|(n, v)| AttributeProto {
                    name: Some((*n).to_owned()),
                    i: Some(*v),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        let proto = GraphProto {
            node: vec![node],
            ..Default::default()
        };
        let (g, _) =
            crate::ir::build_graph(proto, "main".into(), Vec::new(), 1, None, &mut Vec::new());
        let imports: Imports<'_> = imports.iter().copied().collect();
        let op = g.ops.first().and_then(|&id| g.op(id))?;
        site(op, &imports)
    }

    #[test]
    fn legacy_binary_ops_broadcast_only_with_the_attribute_at_its_axis() {
        assert_eq!(site_of("Add", "", &[], &[("", 6)]), None);
        assert_eq!(
            site_of("Add", "", &[("broadcast", 1), ("axis", 1)], &[("", 6)]),
            Some(Kind::LegacyAxis(Some(1)))
        );
        assert_eq!(site_of("Add", "", &[], &[("", 7)]), Some(Kind::Multi));
        assert_eq!(site_of("Gemm", "", &[], &[("", 6)]), None);
        assert_eq!(
            site_of("Gemm", "", &[("broadcast", 1)], &[("", 6)]),
            Some(Kind::GemmC)
        );
        assert_eq!(site_of("Gemm", "", &[], &[("", 13)]), Some(Kind::GemmC));
    }

    #[test]
    fn the_version_in_force_decides() {
        // Max requires equal shapes before opset 8; PRelu's slope was unspecified before 7.
        assert_eq!(site_of("Max", "", &[], &[("", 7)]), None);
        assert_eq!(site_of("Max", "", &[], &[("", 8)]), Some(Kind::Multi));
        assert_eq!(site_of("PRelu", "", &[], &[("", 6)]), None);
        assert_eq!(
            site_of("PRelu", "", &[], &[("", 7)]),
            Some(Kind::ToFirst(&[1]))
        );
        // onnxruntime's own LayerNormalization before onnx's (17) broadcasts onto X's whole shape.
        assert_eq!(
            site_of("LayerNormalization", "", &[], &[("", 13)]),
            Some(Kind::ToFirst(&[1, 2]))
        );
        assert_eq!(
            site_of("LayerNormalization", "", &[], &[("", 17)]),
            Some(Kind::Normalized(&[1, 2]))
        );
        // No default domain imported: nothing is known of its operators.
        assert_eq!(site_of("Add", "", &[], &[]), None);
        // Not a broadcasting operator.
        assert_eq!(site_of("Relu", "", &[], &[("", 17)]), None);
    }

    #[test]
    fn contrib_operators_are_read_in_their_own_domain() {
        let ms = "com.microsoft";
        assert_eq!(
            site_of("QLinearAdd", ms, &[], &[("", 17), (ms, 1)]),
            Some(Kind::MultiOf(&[0, 3]))
        );
        // An unimported domain is read at its latest version.
        assert_eq!(
            site_of("GroupQueryAttention", ms, &[], &[("", 17)]),
            Some(Kind::AttentionBias(10))
        );
        // The same name in the default domain is another operator.
        assert_eq!(site_of("QLinearAdd", "", &[], &[("", 17)]), None);
    }

    #[test]
    fn targets() {
        let s = |d: &[u64]| Some(d.iter().map(|&n| Dim::Known(n)).collect::<Vec<_>>());
        assert_eq!(normalized(&s(&[2, 3, 4]), -1), s(&[4]));
        assert_eq!(normalized(&s(&[2, 3, 4]), 1), s(&[3, 4]));
        assert_eq!(normalized(&s(&[2, 3, 4]), 4), None);
        assert_eq!(normalized(&None, -1), None);
        assert_eq!(
            attention_bias_target(&s(&[2, 7, 64]), &s(&[1, 1, 7, 9]), Some(8)),
            s(&[2, 8, 7, 9])
        );
        assert_eq!(
            attention_bias_target(&s(&[2, 7, 64]), &s(&[7, 9]), Some(8)),
            None
        );
        assert_eq!(
            attention_bias_target(&s(&[2, 7, 64]), &s(&[1, 1, 7, 9]), None),
            None
        );
    }
}
