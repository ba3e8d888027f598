//! Errors in a branch that may not run, under the sizes of `--dim`.
//!
//! An If whose condition inference does not know (the value of an input: silero_vad's
//! `Equal(sr, 16000)` picks its 16 kHz or its 8 kHz network) may run either branch. A break inference
//! finds in one at the model's own sizes stays an error: onnxruntime's inference sees the branch when
//! it loads the model and refuses it, whatever the condition (`models/broken/e1_in_if.onnx`). A break
//! that only the bound sizes make (silero_vad's 8 kHz LSTM at 512 samples a chunk) is met only when
//! the branch runs: onnxruntime loads the model, with its symbolic sizes, and runs it at those sizes
//! for every condition that takes the other branch. Reported as an error it would be false for the
//! deployment that never takes the branch, so it is a warning, with its code and a note that says why.
//!
//! Which is which is decided by inferring the model a second time without the bindings, only when a
//! bound run finds an error in such a branch.

use crate::diagnostics::{Code, Diagnostic, Severity};
use std::collections::{HashMap, HashSet};

/// Where an error is, and what it breaks: the same break at other sizes has the same key (its message
/// names the sizes, so it differs).
pub(super) type Key = (
    String,
    Option<String>,
    Option<String>,
    Code,
    Option<&'static str>,
);

/// The key of a shape error (E1, E2, E3 of error severity); `None` for any other finding.
pub(super) fn key(d: &Diagnostic) -> Option<Key> {
    let shape_error = matches!(
        d.code,
        Code::BroadcastError | Code::ShapeContract | Code::ValueOutOfRange
    );
    (shape_error && d.severity == Severity::Error).then(|| {
        (
            d.graph.clone(),
            d.node.clone(),
            d.inner_node.clone(),
            d.code,
            d.contract,
        )
    })
}

/// Turns into warnings the errors of `found` that lie in a branch that may not run (`maybe`: their
/// keys, each with the If whose condition is not known, the innermost) and that the run without
/// bindings does not find (`unbound`).
pub(super) fn tell_apart(
    found: &mut [Diagnostic],
    maybe: &HashMap<Key, String>,
    unbound: &[Diagnostic],
) {
    let own: HashSet<Key> = unbound.iter().filter_map(key).collect();
    for d in found {
        let Some(k) = key(d) else { continue };
        let Some(at) = maybe.get(&k) else { continue };
        if own.contains(&k) {
            continue;
        }
        d.severity = Severity::Warning;
        d.notes.push(format!(
            "a warning, not an error: the node is in a branch of '{at}' (If), whose condition inference does not know, and it breaks only at the bound sizes; onnxruntime fails there when that branch runs"
        ));
    }
}
