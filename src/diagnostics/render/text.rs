//! rustc-like text: one block per diagnostic, a summary line per file and one for the run.

use super::{FileReport, escape};
use crate::diagnostics::Severity;
use std::fmt::Write;

pub fn text(reports: &[FileReport]) -> String {
    let mut out = String::new();
    let (mut errors, mut warnings, mut unreadable) = (0, 0, 0);
    for r in reports {
        let file = escape(&r.file);
        let diags = match &r.outcome {
            Err(e) => {
                unreadable += 1;
                let _ = writeln!(out, "error: cannot load {file}: {}", escape(e));
                continue;
            }
            Ok(d) => d,
        };
        for d in diags {
            let _ = writeln!(
                out,
                "{}[{}] {}: {}",
                d.severity.as_str(),
                d.code,
                d.code.name(),
                escape(&d.message)
            );
            let _ = write!(out, "  --> {file}, graph {}", escape(&d.graph));
            if let (Some(n), Some(op)) = (&d.node, &d.op_type) {
                let _ = write!(out, ", node '{}' ({})", escape(n), escape(op));
            }
            out.push('\n');
            for note in &d.notes {
                let _ = writeln!(out, "   = {}", escape(note));
            }
            out.push('\n');
        }
        let e = diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        let w = diags
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count();
        errors += e;
        warnings += w;
        let _ = writeln!(
            out,
            "{file}: {}, {}",
            plural(e, "error"),
            plural(w, "warning")
        );
    }
    if reports.len() > 1 {
        let _ = writeln!(
            out,
            "{} checked: {}, {}, {} not loadable",
            plural(reports.len(), "model"),
            plural(errors, "error"),
            plural(warnings, "warning"),
            unreadable
        );
    }
    out
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
