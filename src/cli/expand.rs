//! `onnx-lint expand`: make every implicit broadcast explicit and write the model, with a report of
//! each insertion, and of each input left implicit for onnxruntime's kernels, on standard error.

use super::lines::{ShapeIds, node_head, small};
use super::{EXIT_FINDINGS, EXIT_UNLOADABLE, build_or_say, refuse_if_errors};
use crate::lint::{Built, LoadOptions};
use crate::passes::explicit_broadcast::{self, Options};
use crate::render;
use std::fmt::Write;
use std::path::PathBuf;

/// The report's lines (see [`super::lines`]): the graph and the node found again in the model when
/// printed, the input, and the two shapes as numbers.
#[derive(Default)]
struct Lines {
    entries: Vec<Line>,
    shapes: ShapeIds,
}

/// One input made explicit (see [`explicit_broadcast::Made`]).
struct Line {
    graph: u32,
    /// The node's ordinal in its graph.
    ordinal: u32,
    slot: u32,
    /// The shapes' numbers in [`Lines::shapes`].
    from: u32,
    to: u32,
}

impl Lines {
    fn add(&mut self, m: &explicit_broadcast::Made<'_>) {
        let from = self.shapes.id(m.from);
        let to = self.shapes.id(m.to);
        self.entries.push(Line {
            graph: small(m.graph_index),
            ordinal: small(m.ordinal),
            slot: small(m.slot),
            from,
            to,
        });
    }

    /// Writes the lines, the nodes found again in `model` (the graphs in the pass's order), then
    /// `rest`, on standard error.
    fn print(&self, model: &crate::ir::Model, rest: &str) {
        use std::io::Write as _;
        let graphs = crate::passes::all_graphs(model);
        let mut err = std::io::BufWriter::with_capacity(1 << 16, std::io::stderr().lock());
        let mut line = Vec::with_capacity(256);
        for &Line {
            graph,
            ordinal,
            slot,
            from,
            to,
        } in &self.entries
        {
            let Some((g, _)) = graphs.get(graph as usize) else {
                continue;
            };
            let Some(op) = g.ops.get(ordinal as usize).and_then(|&id| g.op(id)) else {
                continue;
            };
            line.clear();
            node_head(&mut line, "expand", g, op);
            line.extend_from_slice(b", input ");
            crate::file::encoding::put_u32(&mut line, slot);
            line.extend_from_slice(b": ");
            line.extend_from_slice(self.shapes.text(from).as_bytes());
            line.extend_from_slice(b" -> ");
            line.extend_from_slice(self.shapes.text(to).as_bytes());
            line.push(b'\n');
            let _ = err.write_all(&line);
        }
        let _ = err.write_all(rest.as_bytes());
        let _ = err.flush();
    }
}

pub(super) fn expand(
    model: PathBuf,
    output: PathBuf,
    opts: &Options,
    write: super::WriteArgs,
    color: super::ColorChoice,
    summary: bool,
) -> u8 {
    let Some(Built { model: m, problems }) = build_or_say(&model) else {
        return EXIT_UNLOADABLE;
    };
    // What the pass needs of the model's names is found while inference runs.
    let (found, prepared) = crate::lint::run_beside(&m, problems, &LoadOptions::for_pass(), || {
        explicit_broadcast::prepare(&m)
    });
    if let Some(status) = refuse_if_errors(&found, &model, color) {
        return status;
    }
    if let Some(status) = super::refuse_output(&m, &output, &write) {
        return status;
    }
    // Room for a line per node (most rewrites make one): grown by doubling, the entries were
    // copied into fresh memory at each step and the old copies left behind.
    let nodes: usize = m.graphs().iter().map(|g| g.ops.len()).sum();
    let mut report = Lines {
        entries: Vec::with_capacity(nodes),
        shapes: ShapeIds::default(),
    };
    let mut line = |i: explicit_broadcast::Made<'_>| report.add(&i);
    let outcome = match explicit_broadcast::run_reporting_prepared(
        &m,
        &found.shapes,
        opts,
        &mut line,
        prepared,
    ) {
        Ok(o) => o,
        Err(why) => {
            eprintln!(
                "error: cannot make the broadcasts explicit: {}",
                render::escape(&why.to_string())
            );
            return EXIT_FINDINGS;
        }
    };
    let mut rest = String::new();
    for (list, how) in [
        (&outcome.kept, "left implicit"),
        (&outcome.required, "left implicit as the operator requires"),
    ] {
        for k in list {
            let _ = writeln!(
                rest,
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
    // The warnings, which `--summary` prints too, end the rest.
    let mut warnings = String::new();
    for why in &outcome.left {
        let _ = writeln!(warnings, "warning: left implicit: {}", render::escape(why));
    }
    rest.push_str(&warnings);
    let inserted: usize = outcome
        .patch
        .graphs
        .iter()
        .map(|g| g.inserted_nodes())
        .sum();
    let counts = (inserted, outcome.kept.len(), outcome.required.len());
    let explicit_broadcast::Outcome { patch, .. } = outcome;
    // The shapes were for the pass; the output is made from the source bytes and the edit.
    super::leave(found);
    let edit = patch.into_edit();
    let status = super::write_beside_report(m, edit, &output, write, |m| {
        if summary {
            eprint!("{warnings}");
        } else {
            report.print(m, &rest);
        }
        say_counts(&report, counts);
    });
    super::leave(report);
    status
}

/// Prints the report's closing counts: inputs made explicit, nodes inserted, inputs left implicit
/// for a kernel exception, and as their operator requires.
fn say_counts(report: &Lines, (inserted, kept, required): (usize, usize, usize)) {
    let made = report.entries.len();
    eprintln!("expand: {made} implicit broadcasts made explicit ({inserted} nodes inserted)");
    if kept > 0 {
        eprintln!(
            "expand: {kept} left implicit so that onnxruntime computes the same bits (--force-explicit makes them explicit)"
        );
    }
    if required > 0 {
        eprintln!(
            "expand: {required} left implicit as their operators require them (a 1-D bias or scale)"
        );
    }
}
