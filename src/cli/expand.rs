//! `onnx-lint expand`: make every implicit broadcast explicit and write the model, with a report of
//! each insertion, and of each input left implicit for onnxruntime's kernels, on standard error.

use super::{EXIT_FINDINGS, EXIT_UNLOADABLE, load_or_say, refuse_if_errors, write_out};
use crate::passes::explicit_broadcast::{self, Options};
use crate::render;
use crate::shape::dim::{Shape, ShapeText};
use std::fmt::Write;
use std::path::PathBuf;

/// A shape and its text, kept while the next shape is the same.
#[derive(Default)]
struct ShapeCache {
    shape: Option<Shape>,
    text: String,
}

impl ShapeCache {
    fn text(&mut self, shape: &Shape) -> &str {
        if self.shape.as_ref() != Some(shape) {
            self.text = ShapeText(shape.as_deref()).to_string();
            self.shape = Some(shape.clone());
        }
        &self.text
    }
}

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
    // The report's lines are written as the pass makes each insertion, into one buffer printed once
    // the pass has succeeded (a refused model reports the refusal only). A million-node model makes a
    // million lines: as text they take a third of the memory the insertions took as records.
    let mut report = super::Pieces::default();
    let mut made = 0usize;
    // The last shapes written, as text: the lines of a large graph repeat a few shapes.
    let (mut from, mut to) = (ShapeCache::default(), ShapeCache::default());
    let mut line = |i: explicit_broadcast::Made<'_>| {
        made += 1;
        let piece = report.line();
        let _ = writeln!(
            piece,
            "expand: graph {}, node '{}' ({}), input {}: {} -> {}",
            render::escaped(i.graph),
            render::escaped(i.node),
            render::escaped(i.op_type),
            i.slot,
            from.text(i.from),
            to.text(i.to)
        );
    };
    let outcome = match explicit_broadcast::run_reporting(&m, &found.shapes, opts, &mut line) {
        Ok(o) => o,
        Err(why) => {
            eprintln!(
                "error: cannot make the broadcasts explicit: {}",
                render::escape(&why)
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
    for why in &outcome.left {
        let _ = writeln!(rest, "warning: left implicit: {}", render::escape(why));
    }
    report.print(&rest);
    let inserted: usize = outcome
        .patch
        .graphs
        .iter()
        .map(|g| g.inserted_nodes())
        .sum();
    eprintln!("expand: {made} implicit broadcasts made explicit ({inserted} nodes inserted)");
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
    let explicit_broadcast::Outcome { patch, .. } = outcome;
    // The shapes were for the pass; the output is made from the source bytes and the edit.
    drop(found);
    write_out(&m, &patch.into_edit(), &output, write)
}
