//! Calls of model-local functions as inference follows them: which functions a model calls, and the
//! signature a call's inference is memoized by (the body a call runs is [`super::call_body`]'s).

use super::value::ValueInfo;
use crate::ir::Model;
use std::collections::HashSet;

/// The (domain, op_type) of every node of the model: one pass, where a scan per function was
/// quadratic in a model of many functions.
pub(super) fn called_functions(model: &Model) -> HashSet<(&str, &str)> {
    model
        .graphs()
        .iter()
        .flat_map(|g| g.ops.iter().filter_map(|&id| g.op(id)))
        .map(|op| (op.domain(), op.op_type()))
        .collect()
}

/// A hash of what a call's inputs are known to be; equal inputs hash equal (the memo compares them
/// in full after).
pub(super) fn signature_hash(formal: &[ValueInfo]) -> u64 {
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
