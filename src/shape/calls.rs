//! Calls of model-local functions as inference follows them: which functions a model calls, the
//! signature a call's inference is memoized by, and the body a call runs, its attribute references
//! replaced by the call's attributes.

use super::value::ValueInfo;
use crate::ir::{Graph, Model, OpNode};
use crate::proto::NodeProto;
use std::collections::HashSet;

/// The (domain, op_type) of every node of the model: one pass, where a scan per function was
/// quadratic in a model of many functions.
pub fn called_functions(model: &Model) -> HashSet<(&str, &str)> {
    model
        .graphs()
        .iter()
        .flat_map(|g| g.ops.iter().filter_map(|&id| g.op(id)))
        .map(|op| (op.domain(), op.op_type()))
        .collect()
}

/// A hash of what a call's inputs are known to be; equal inputs hash equal (the memo compares them
/// in full after).
pub fn signature_hash(formal: &[ValueInfo]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for v in formal {
        std::mem::discriminant(&v.kind).hash(&mut h);
        v.elem.hash(&mut h);
        v.shape.hash(&mut h);
        v.data.as_ref().map(|d| d.len()).hash(&mut h);
    }
    h.finish()
}

/// A function body whose attribute references (`ref_attr_name`) are replaced by the call's attribute
/// values or the function's defaults; `None` when the body has none.
pub fn with_call_attributes(f: &crate::ir::Function, call: &OpNode) -> Option<Graph> {
    let uses_refs = f
        .body
        .ops
        .iter()
        .filter_map(|&id| f.body.op(id))
        .any(|op| op.attributes().iter().any(|a| a.ref_attr_name.is_some()));
    if !uses_refs {
        return None;
    }
    let mut proto = f.body.header.clone();
    proto.node = f
        .body
        .ops
        .iter()
        .filter_map(|&id| f.body.op(id))
        .map(|op| substitute(f.body.node_proto(op), call, f))
        .collect();
    let mut sink = Vec::new();
    let (g, _) = crate::ir::build_graph(
        proto,
        f.body.path.clone(),
        f.body.wire.clone(),
        f.body.node_field,
        None,
        &mut sink,
    );
    Some(g)
}

pub fn substitute(mut n: NodeProto, call: &OpNode, f: &crate::ir::Function) -> NodeProto {
    n.attribute.retain_mut(|a| {
        let Some(r) = a.ref_attr_name.clone() else {
            return true;
        };
        let value = call
            .attributes()
            .iter()
            .find(|c| c.name() == r)
            .or_else(|| f.header.attribute_proto.iter().find(|c| c.name() == r));
        match value {
            Some(v) => {
                let name = a.name.clone();
                *a = v.clone();
                a.name = name;
                true
            }
            None => false,
        }
    });
    n
}
