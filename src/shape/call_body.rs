//! A model-local function's body as one call sees it: attribute references (`ref_attr_name`)
//! replaced by the call's attribute values or the function's defaults, so the body's shape rules read
//! the values this call gives (a `Constant` whose value is a reference, a `Reshape`'s `allowzero`).

use crate::ir::{Graph, OpNode};
use crate::proto::NodeProto;

/// A function body whose attribute references (`ref_attr_name`) are replaced by the call's attribute
/// values or the function's defaults; `None` when the body has none.
pub(super) fn with_call_attributes(f: &crate::ir::Function, call: &OpNode) -> Option<Graph> {
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

fn substitute(mut n: NodeProto, call: &OpNode, f: &crate::ir::Function) -> NodeProto {
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
