//! What the pass inserted, told apart in a model read back: the names it gives inserted nodes
//! ([`NAME_MARK`], [`SHAPE_PREFIX`]) and [`inserted_nodes`], which recognises them by name and
//! structure, for the graph picture, which colours them.

use crate::ir::{Graph, OpNode, opset_domain};
use std::collections::HashMap;

/// A node (or initializer) the pass inserted, as pictures tell them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inserted {
    /// What makes one broadcast explicit: the `Expand` (before opset 8, the `Tile`, or a lone
    /// `Reshape`) whose output replaced an input of the consumer.
    Broadcast,
    /// What computes or holds its target shape: `Shape`, `Gather`, `Concat`, `Constant`, the `Expand`
    /// of the other inputs, the legacy `Reshape`, the int64 shape initializers.
    Helper,
}

/// The mark in every name the pass gives: a node inserted for input `S` of the node labelled `L` (its
/// name, `#i` when it has none) is named `L/expand_inS`, made unique by a `_k` suffix; its helpers
/// are named `L/expand_inS/...`; a static target shape is the initializer `onnx_lint_shape_AxB...`.
pub const NAME_MARK: &str = "/expand_in";

/// Static target shapes are initializers named with this prefix and the sizes (`onnx_lint_shape_2x3`).
pub const SHAPE_PREFIX: &str = "onnx_lint_shape_";

/// The parts of `name` around each occurrence of [`NAME_MARK`]: (consumer label, input slot, base
/// `L/expand_inS`, the rest after the base).
fn marked_parts(name: &str) -> Vec<(&str, usize, &str, &str)> {
    let mut out = Vec::new();
    for (p, _) in name.match_indices(NAME_MARK) {
        let after = &name[p + NAME_MARK.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let Ok(slot) = after[..digits].parse::<usize>() else {
            continue;
        };
        let end = p + NAME_MARK.len() + digits;
        out.push((&name[..p], slot, &name[..end], &name[end..]));
    }
    out
}

/// True when the consumer `op` is the node `label` names. Inserting nodes moves source positions,
/// so a `#i` label (an unnamed consumer) matches any unnamed node.
fn labels(op: &OpNode, label: &str) -> bool {
    match label.strip_prefix('#') {
        Some(i) if !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()) => op.name().is_empty(),
        _ => op.name() == label,
    }
}

/// The nodes and initializers of `g` that this pass inserted (in an earlier run whose output `g` was
/// read from), recognised by their names ([`NAME_MARK`], [`SHAPE_PREFIX`]). A name alone could be a
/// coincidence, so the structure must agree too: a [`Inserted::Broadcast`] node named
/// `L/expand_inS...` feeds input `S` of the node labelled `L`; a helper carries the base
/// `L/expand_inS/` of such a node, or is a shape initializer read only by them.
pub fn inserted_nodes(g: &Graph) -> HashMap<crate::ir::NodeId, Inserted> {
    use crate::ir::{NodeKind, Slot};
    use petgraph::visit::EdgeRef;
    let mut out = HashMap::new();
    let mut bases: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for &id in &g.ops {
        let Some(op) = g.op(id) else { continue };
        if !matches!(op.op_type(), "Expand" | "Tile" | "Reshape")
            || !opset_domain(op.domain()).is_empty()
        {
            continue;
        }
        for (label, slot, base, rest) in marked_parts(op.name()) {
            let suffix_ok = rest.is_empty()
                || rest
                    .strip_prefix('_')
                    .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
                || rest.starts_with("/reshape");
            let feeds = g.dag.edges(id).any(|e| {
                u32::try_from(slot).is_ok_and(|s| e.weight().slot() == Slot::Input(s))
                    && g.op(e.target()).is_some_and(|c| labels(c, label))
            });
            if suffix_ok && feeds {
                out.insert(id, Inserted::Broadcast);
                bases.insert(base);
                break;
            }
        }
    }
    let helper_name = |name: &str| {
        marked_parts(name)
            .iter()
            .any(|(_, _, base, rest)| rest.starts_with('/') && bases.contains(base))
    };
    for id in g.dag.node_indices() {
        if out.contains_key(&id) {
            continue;
        }
        let helper = match &g.dag[id].kind {
            NodeKind::Op(_) => g.op(id).is_some_and(|op| helper_name(op.name())),
            NodeKind::Initializer(i) => {
                let name = g
                    .header
                    .initializer
                    .get(*i as usize)
                    .map_or("", |t| t.name());
                helper_name(name)
                    || (name.starts_with(SHAPE_PREFIX)
                        && g.dag.edges(id).next().is_some()
                        && g.dag.edges(id).all(|e| {
                            out.get(&e.target()) == Some(&Inserted::Broadcast)
                                && e.weight().slot() == Slot::Input(1)
                        }))
            }
            _ => false,
        };
        if helper {
            out.insert(id, Inserted::Helper);
        }
    }
    out
}
