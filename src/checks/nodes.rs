//! Node rules: an `op_type` (G005), unique attribute names (G006), attribute values in the field their
//! `type` names (G007), and a domain the enclosing model or function imports (M006).

use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{Graph, Model, OpNode, opset_domain};
use crate::proto::AttributeProto;
use crate::proto::attribute_proto::AttributeType;
use std::collections::HashSet;

pub fn check(model: &Model) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Some(g) = &model.graph {
        let imports = model.opset_imports(None);
        g.walk(&mut |sub| check_graph(sub, &imports, &mut out));
    }
    for (i, f) in model.functions.iter().enumerate() {
        let imports = model.opset_imports(Some(i));
        f.body.walk(&mut |sub| check_graph(sub, &imports, &mut out));
    }
    out
}

fn check_graph(g: &Graph, imports: &crate::ir::Imports<'_>, out: &mut Vec<Diagnostic>) {
    for op in g.ops_in_source_order() {
        let label = op.label();
        let at = |d: Diagnostic| d.at_node(&label, op.op_type());
        if op.op_type().is_empty() {
            out.push(at(Diagnostic::new(
                Code::EmptyOpType,
                &g.path,
                format!("node '{label}' has no op_type"),
            )));
        }
        let domain = opset_domain(op.domain());
        if !imports.contains_key(domain) {
            let shown = if domain.is_empty() { "ai.onnx" } else { domain };
            out.push(at(Diagnostic::new(
                Code::DomainNotImported,
                &g.path,
                format!("node '{label}' uses domain '{shown}', which is not in opset_import"),
            )));
        }
        let mut names = HashSet::new();
        for (a, attr) in op.attributes().iter().enumerate() {
            if !names.insert(attr.name()) {
                out.push(at(Diagnostic::new(
                    Code::DuplicateAttribute,
                    &g.path,
                    format!("node '{label}' has two attributes named '{}'", attr.name()),
                )));
            }
            if let Some(problem) = attribute_type_problem(op, a, attr) {
                out.push(at(Diagnostic::new(
                    Code::AttributeType,
                    &g.path,
                    format!("attribute '{}' of node '{label}': {problem}", attr.name()),
                )));
            }
        }
    }
}

/// Which value fields of an attribute hold something. Graphs were moved into the node's subgraphs.
fn present_fields(op: &OpNode, index: usize, a: &AttributeProto) -> Vec<AttributeType> {
    use AttributeType as T;
    let sub = |many: bool| {
        op.subgraphs()
            .iter()
            .any(|s| s.attribute == index && s.item.is_some() == many)
    };
    [
        (a.f.is_some(), T::Float),
        (a.i.is_some(), T::Int),
        (a.s.is_some(), T::String),
        (a.t.is_some(), T::Tensor),
        (sub(false), T::Graph),
        (a.sparse_tensor.is_some(), T::SparseTensor),
        (a.tp.is_some(), T::TypeProto),
        (!a.floats.is_empty(), T::Floats),
        (!a.ints.is_empty(), T::Ints),
        (!a.strings.is_empty(), T::Strings),
        (!a.tensors.is_empty(), T::Tensors),
        (sub(true), T::Graphs),
        (!a.sparse_tensors.is_empty(), T::SparseTensors),
        (!a.type_protos.is_empty(), T::TypeProtos),
    ]
    .into_iter()
    .filter_map(|(set, t)| set.then_some(t))
    .collect()
}

fn is_list(t: AttributeType) -> bool {
    use AttributeType as T;
    matches!(
        t,
        T::Floats
            | T::Ints
            | T::Strings
            | T::Tensors
            | T::Graphs
            | T::SparseTensors
            | T::TypeProtos
    )
}

fn attribute_type_problem(op: &OpNode, index: usize, a: &AttributeProto) -> Option<String> {
    if a.ref_attr_name.is_some() {
        return None; // a reference to an attribute of the enclosing function: no value of its own
    }
    // IR version 1 had no `type` field; its absence is not an error.
    let raw = a.r#type?;
    let present = present_fields(op, index, a);
    let Ok(declared) = AttributeType::try_from(raw) else {
        return Some(format!("type {raw} is not an attribute type"));
    };
    if declared == AttributeType::Undefined {
        return Some("type is UNDEFINED".to_owned());
    }
    let others: Vec<_> = present.iter().filter(|&&t| t != declared).collect();
    if let Some(other) = others.first() {
        return Some(format!(
            "type says {} but the value is in the {} field",
            declared.as_str_name(),
            other.as_str_name()
        ));
    }
    // An empty list is a valid list; a missing scalar is not.
    if !present.contains(&declared) && !is_list(declared) {
        return Some(format!(
            "type says {} but no value is set",
            declared.as_str_name()
        ));
    }
    None
}
