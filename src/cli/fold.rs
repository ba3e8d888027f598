//! `onnx-lint fold`: remove the Expand nodes implicit broadcasting makes redundant (the inverse of
//! `expand`) and write the model, with a report of each removal on standard error.

use super::{EXIT_UNLOADABLE, load_or_say, refuse_if_errors, write_out};
use crate::passes::fold_expand;
use crate::render;
use std::fmt::Write;
use std::path::PathBuf;

pub(super) fn fold(
    model: PathBuf,
    output: PathBuf,
    write: super::WriteArgs,
    color: super::ColorChoice,
) -> u8 {
    let Some((m, found)) = load_or_say(&model) else {
        return EXIT_UNLOADABLE;
    };
    if let Some(status) = refuse_if_errors(&found, &model, color) {
        return status;
    }
    let outcome = fold_expand::run(&m, &found.shapes);
    // One write for the whole report: a large model makes many lines.
    let mut report = String::new();
    for r in &outcome.removals {
        let _ = writeln!(
            report,
            "fold: graph {}, node '{}' ({}): removed, {} read '{}' {} directly (broadcast to {} anyway)",
            render::escape(&r.graph),
            render::escape(&r.node),
            render::escape(&r.op_type),
            render::escape(&r.readers.join(", ")),
            render::escape(&r.input),
            r.from,
            r.to
        );
    }
    for d in &outcome.dead {
        let _ = writeln!(
            report,
            "fold: graph {}, node '{}' ({}): removed, only removed nodes read its outputs",
            render::escape(&d.graph),
            render::escape(&d.node),
            render::escape(&d.op_type)
        );
    }
    for (graph, name) in &outcome.initializers {
        let _ = writeln!(
            report,
            "fold: graph {}, initializer '{}': removed, only removed nodes read it",
            render::escape(graph),
            render::escape(name)
        );
    }
    for why in &outcome.left {
        let _ = writeln!(report, "left: {}", render::escape(why));
    }
    eprint!("{report}");
    let removed: usize = outcome.patch.graphs.iter().map(|g| g.removed_nodes()).sum();
    eprintln!(
        "fold: {} redundant broadcasts removed ({removed} nodes, {} initializers removed), {} left",
        outcome.removals.len(),
        outcome.initializers.len(),
        outcome.left.len()
    );
    write_out(&m, &outcome.patch.into_edit(), &output, write)
}
