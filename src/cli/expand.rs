//! `onnx-lint expand`: make every implicit broadcast explicit and write the model, with a report of
//! each insertion, and of each input left implicit for onnxruntime's kernels, on standard error.

use super::{EXIT_FINDINGS, EXIT_UNLOADABLE, load_or_say, refuse_if_errors, write_out};
use crate::passes::explicit_broadcast::{self, Options};
use crate::render;
use std::fmt::Write;
use std::path::PathBuf;

pub(super) fn expand(
    model: PathBuf,
    output: PathBuf,
    opts: &Options,
    write: super::WriteArgs,
    color: super::ColorChoice,
) -> u8 {
    let Some((m, found)) = load_or_say(&model) else {
        return EXIT_UNLOADABLE;
    };
    if let Some(status) = refuse_if_errors(&found, &model, color) {
        return status;
    }
    let outcome = match explicit_broadcast::run(&m, &found.shapes, opts) {
        Ok(o) => o,
        Err(why) => {
            eprintln!(
                "error: cannot make the broadcasts explicit: {}",
                render::escape(&why)
            );
            return EXIT_FINDINGS;
        }
    };
    // One write for the whole report: a million-node model makes a million lines.
    let mut report = String::new();
    for i in &outcome.insertions {
        let _ = writeln!(
            report,
            "expand: graph {}, node '{}' ({}), input {}: {} -> {}",
            render::escape(&i.graph),
            render::escape(&i.node),
            render::escape(&i.op_type),
            i.slot,
            i.from,
            i.to
        );
    }
    for (list, how) in [
        (&outcome.kept, "left implicit"),
        (&outcome.required, "left implicit as the operator requires"),
    ] {
        for k in list {
            let _ = writeln!(
                report,
                "expand: {how}: graph {}, node '{}' ({}), input {} ({} -> {}): {}",
                render::escape(&k.graph),
                render::escape(&k.node),
                render::escape(&k.op_type),
                k.slot,
                k.from,
                k.to,
                k.reason
            );
        }
    }
    for why in &outcome.left {
        let _ = writeln!(report, "warning: left implicit: {}", render::escape(why));
    }
    eprint!("{report}");
    let inserted: usize = outcome
        .patch
        .graphs
        .iter()
        .map(|g| g.inserted_nodes())
        .sum();
    eprintln!(
        "expand: {} implicit broadcasts made explicit ({inserted} nodes inserted)",
        outcome.insertions.len()
    );
    if !outcome.kept.is_empty() {
        eprintln!(
            "expand: {} left implicit so that onnxruntime computes the same bits (--force-explicit makes them explicit)",
            outcome.kept.len()
        );
    }
    if !outcome.required.is_empty() {
        eprintln!(
            "expand: {} left implicit as their operators require them (a 1-D bias or scale)",
            outcome.required.len()
        );
    }
    // What the report said is freed before the output is made: on large graphs each holds a line
    // or a node per broadcast.
    drop(report);
    let explicit_broadcast::Outcome {
        patch, insertions, ..
    } = outcome;
    drop(insertions);
    // The shapes were for the pass; the output is made from the source bytes and the edit.
    drop(found);
    write_out(&m, &patch.into_edit(), &output, write)
}
