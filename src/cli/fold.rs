//! `onnx-lint fold`: remove the Expand nodes implicit broadcasting makes redundant (the inverse of
//! `expand`) and write the model, with a report of each removal on standard error.

use super::lines::{ShapeIds, node_head, put_escaped, small};
use super::{EXIT_UNLOADABLE, load_or_say_with, refuse_if_errors};
use crate::ir::{Graph, NodeId};
use crate::passes::fold_expand;
use crate::render;
use std::path::PathBuf;

/// The report's removals (see [`super::lines`]): the graph, the node and its readers found again in
/// the model when printed, and the two shapes as numbers.
#[derive(Default)]
struct Lines {
    /// (graph index, node, readers start, readers end, from, to).
    entries: Vec<[u32; 6]>,
    /// (reader node, input slot), for every entry.
    readers: Vec<[u32; 2]>,
    shapes: ShapeIds,
}

impl Lines {
    fn add(&mut self, f: &fold_expand::Folded<'_>) {
        let start = small(self.readers.len());
        self.readers.extend(f.readers.iter().map(|&(r, slot)| {
            let k = match slot {
                crate::ir::Slot::Input(k) => k,
                _ => 0,
            };
            [small(r.index()), k]
        }));
        let from = self.shapes.id(f.from);
        let to = self.shapes.id(f.to);
        self.entries.push([
            small(f.graph_index),
            small(f.node.index()),
            start,
            small(self.readers.len()),
            from,
            to,
        ]);
    }

    /// Writes the lines (`graphs` in the pass's order), then what `rest` writes, on standard error.
    fn print(
        &self,
        graphs: &[(&Graph, Option<usize>)],
        rest: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) {
        use crate::file::encoding::put_u32;
        use std::io::Write as _;
        let mut err = std::io::BufWriter::with_capacity(1 << 16, std::io::stderr().lock());
        // Escaping maps each character alone, so the pieces escaped one by one are the line escaped
        // whole.
        let mut line = Vec::with_capacity(512);
        for &[graph, node, start, end, from, to] in &self.entries {
            let Some((g, _)) = graphs.get(graph as usize) else {
                continue;
            };
            let Some(op) = g.op(NodeId::new(node as usize)) else {
                continue;
            };
            line.clear();
            node_head(&mut line, "fold", g, op);
            line.extend_from_slice(b": removed, ");
            for (i, &[r, k]) in self.readers[start as usize..end as usize]
                .iter()
                .enumerate()
            {
                let Some(rop) = g.op(NodeId::new(r as usize)) else {
                    continue;
                };
                if i > 0 {
                    line.extend_from_slice(b", ");
                }
                line.push(b'\'');
                put_escaped(&mut line, &rop.label());
                line.extend_from_slice(b"' (");
                put_escaped(&mut line, rop.op_type());
                line.extend_from_slice(b") input ");
                put_u32(&mut line, k);
            }
            line.extend_from_slice(b" read '");
            put_escaped(&mut line, g.input_name(op, 0));
            line.extend_from_slice(b"' ");
            line.extend_from_slice(self.shapes.text(from).as_bytes());
            line.extend_from_slice(b" directly (broadcast to ");
            line.extend_from_slice(self.shapes.text(to).as_bytes());
            line.extend_from_slice(b" anyway)\n");
            let _ = err.write_all(&line);
        }
        let _ = rest(&mut err);
        let _ = err.flush();
    }
}

pub(super) fn fold(
    model: PathBuf,
    output: PathBuf,
    write: super::WriteArgs,
    color: super::ColorChoice,
    summary: bool,
) -> u8 {
    let Some((m, found)) = load_or_say_with(&model, &crate::lint::LoadOptions::for_pass()) else {
        return EXIT_UNLOADABLE;
    };
    if let Some(status) = refuse_if_errors(&found, &model, color) {
        return status;
    }
    if let Some(status) = super::refuse_output(&m, &output, &write) {
        return status;
    }
    let mut report = Lines::default();
    let outcome = fold_expand::run_reporting(&m, &found.shapes, &mut |f| report.add(&f));
    // The shapes were for the pass; the output is made from the source bytes and the edit.
    super::leave(found);
    let removed: usize = outcome.patch.graphs.iter().map(|g| g.removed_nodes()).sum();
    let fold_expand::Outcome {
        patch,
        dead,
        initializers,
        left,
        ..
    } = outcome;
    let rest = Rest {
        dead,
        initializers,
        left,
        removed,
    };
    let edit = patch.into_edit();
    let status =
        super::write_beside_report(m, edit, &output, write, |m| say(m, &report, &rest, summary));
    super::leave(report);
    status
}

/// What the report says after the removals' lines.
struct Rest {
    dead: Vec<fold_expand::Dead>,
    /// (graph, name) of each initializer removed.
    initializers: Vec<(String, String)>,
    left: Vec<String>,
    /// Nodes removed in all.
    removed: usize,
}

/// Prints the report: the changes (see [`list_changes`]) unless `summary`, then the counts.
fn say(m: &crate::ir::Model, report: &Lines, rest: &Rest, summary: bool) {
    if !summary {
        list_changes(m, report, rest);
    }
    eprintln!(
        "fold: {} redundant broadcasts removed ({} nodes, {} initializers removed), {} left",
        report.entries.len(),
        rest.removed,
        rest.initializers.len(),
        rest.left.len()
    );
}

/// Prints a line per removal, the nodes and initializers removed as dead code, and the broadcasts
/// left.
fn list_changes(m: &crate::ir::Model, report: &Lines, rest: &Rest) {
    let graphs = crate::passes::all_graphs(m);
    // The rest of the report, written after the removals' lines into the same buffer.
    let more = |err: &mut dyn std::io::Write| {
        for d in &rest.dead {
            let Some((g, _)) = graphs.get(d.graph_index) else {
                continue;
            };
            let Some(op) = g.op(d.node) else {
                continue;
            };
            writeln!(
                err,
                "fold: graph {}, node '{}' ({}): removed, only removed nodes read its outputs",
                render::escaped(&g.path),
                render::escaped(&op.label()),
                render::escaped(op.op_type())
            )?;
        }
        for (graph, name) in &rest.initializers {
            writeln!(
                err,
                "fold: graph {}, initializer '{}': removed, only removed nodes read it",
                render::escaped(graph),
                render::escaped(name)
            )?;
        }
        for why in &rest.left {
            writeln!(err, "left: {}", render::escaped(why))?;
        }
        Ok(())
    };
    report.print(&graphs, more);
}
