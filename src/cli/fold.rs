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
    // The report's lines are written as the pass makes each removal, and printed at the end.
    let mut report = super::Pieces::default();
    let mut removals = 0usize;
    let mut line = |r: fold_expand::Removal| {
        removals += 1;
        let piece = report.line();
        let _ = writeln!(
            piece,
            "fold: graph {}, node '{}' ({}): removed, {} read '{}' {} directly (broadcast to {} anyway)",
            render::escaped(&r.graph),
            render::escaped(&r.node),
            render::escaped(&r.op_type),
            render::escaped(&r.readers.join(", ")),
            render::escaped(&r.input),
            r.from,
            r.to
        );
    };
    let outcome = fold_expand::run_reporting(&m, &found.shapes, &mut line);
    let mut rest = String::new();
    for d in &outcome.dead {
        let _ = writeln!(
            rest,
            "fold: graph {}, node '{}' ({}): removed, only removed nodes read its outputs",
            render::escape(&d.graph),
            render::escape(&d.node),
            render::escape(&d.op_type)
        );
    }
    for (graph, name) in &outcome.initializers {
        let _ = writeln!(
            rest,
            "fold: graph {}, initializer '{}': removed, only removed nodes read it",
            render::escape(graph),
            render::escape(name)
        );
    }
    for why in &outcome.left {
        let _ = writeln!(rest, "left: {}", render::escape(why));
    }
    report.print(&rest);
    drop(report);
    let removed: usize = outcome.patch.graphs.iter().map(|g| g.removed_nodes()).sum();
    eprintln!(
        "fold: {} redundant broadcasts removed ({removed} nodes, {} initializers removed), {} left",
        removals,
        outcome.initializers.len(),
        outcome.left.len()
    );
    write_out(&m, &outcome.patch.into_edit(), &output, write)
}
