//! `onnx-lint check`: load each model, run every check, render the findings, pick the exit status.

use super::{EXIT_FINDINGS, EXIT_OK, EXIT_UNLOADABLE, Format, load};
use crate::diagnostics::has_errors;
use crate::diagnostics::render::{self, FileReport};
use crate::io::Origin;
use crate::ir::Model;
use crate::passes::explicit_broadcast::{Options, implicit_broadcasts};
use std::path::PathBuf;

pub(super) fn check(models: &[PathBuf], format: Format, explicit: bool) -> u8 {
    let reports: Vec<FileReport> = models
        .iter()
        .map(|p| FileReport {
            file: Origin::from_arg(p).display(),
            outcome: load(p).map(|mut m| {
                let mut d = std::mem::take(&mut m.diagnostics);
                if explicit {
                    d.extend(implicit_broadcasts(&m, &Options::default()));
                }
                drop_in_background(m);
                d
            }),
        })
        .collect();
    let out = match format {
        Format::Text => render::text(&reports),
        Format::Json => render::json(&reports),
        Format::Sarif => render::sarif(&reports),
    };
    print!("{out}");
    exit_status(&reports)
}

/// Frees a model on another thread: a graph of a million nodes takes a noticeable time to drop, and
/// nothing waits for it.
fn drop_in_background(m: Model) {
    std::thread::spawn(move || drop(m));
}

fn exit_status(reports: &[FileReport]) -> u8 {
    if reports.iter().any(|r| r.outcome.is_err()) {
        EXIT_UNLOADABLE
    } else if reports
        .iter()
        .any(|r| r.outcome.as_ref().is_ok_and(|d| has_errors(d)))
    {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}
