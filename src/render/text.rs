//! rustc-like text: one block per diagnostic, a summary line per file and, for more than one file, a
//! summary of the run.
//!
//! Optionally coloured in the rustc style (severity red/yellow/cyan bold, code bold, `-->` and `=`
//! blue). Colour codes are only ever put around text already passed through [`escape`], so a name from
//! the model can never open or close an escape sequence of its own.

use super::{FileReport, escape};
use crate::diagnostics::{Code, Severity};
use std::fmt::Write;

/// ANSI SGR sequences of the rustc palette.
const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const RED_BOLD: &str = "\x1b[1;31m";
const YELLOW_BOLD: &str = "\x1b[1;33m";
const CYAN_BOLD: &str = "\x1b[1;36m";
const BLUE_BOLD: &str = "\x1b[1;34m";

/// Whether text output is coloured: wraps already-escaped pieces in ANSI codes, or returns them as
/// they are (so uncoloured output stays byte-identical to the plain renderer's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Paint {
    pub color: bool,
}

impl Paint {
    pub const fn plain() -> Self {
        Paint { color: false }
    }

    fn wrap(self, sgr: &str, s: &str) -> String {
        if self.color {
            format!("{sgr}{s}{RESET}")
        } else {
            s.to_owned()
        }
    }

    fn severity(self, s: Severity) -> String {
        let sgr = match s {
            Severity::Error => RED_BOLD,
            Severity::Warning => YELLOW_BOLD,
            Severity::Info => CYAN_BOLD,
        };
        self.wrap(sgr, s.as_str())
    }
}

pub fn text(reports: &[FileReport]) -> String {
    let mut out = String::new();
    let mut summary = Summary::default();
    for r in reports {
        out.push_str(&text_file(r));
        summary.add(r);
    }
    out.push_str(&summary.text());
    out
}

/// The block of one file: every finding, then the file's count line (or the one line saying why it
/// could not be loaded).
pub fn text_file(r: &FileReport) -> String {
    text_file_painted(r, Paint::plain())
}

/// [`text_file`], coloured if `paint` says so.
pub fn text_file_painted(r: &FileReport, paint: Paint) -> String {
    let mut out = text_findings_painted(r, paint);
    if let Ok(diags) = &r.outcome {
        let e = count(diags, Severity::Error);
        let w = count(diags, Severity::Warning);
        let _ = writeln!(
            out,
            "{}: {}, {}",
            escape(&r.file),
            plural(e, "error"),
            plural(w, "warning")
        );
    }
    out
}

/// The findings of one file without its count line (`check --quiet`), or the line saying why it
/// could not be loaded.
pub fn text_findings_painted(r: &FileReport, paint: Paint) -> String {
    let mut out = String::new();
    let file = escape(&r.file);
    let diags = match &r.outcome {
        Err(e) => {
            let _ = writeln!(
                out,
                "{}: cannot load {file}: {}",
                paint.severity(Severity::Error),
                escape(e)
            );
            return out;
        }
        Ok(d) => d,
    };
    for d in diags {
        let _ = writeln!(
            out,
            "{}{} {}: {}",
            paint.severity(d.severity),
            paint.wrap(BOLD, &format!("[{}]", d.code)),
            d.code.name(),
            escape(&d.message)
        );
        let _ = write!(out, "  {} {file}", paint.wrap(BLUE_BOLD, "-->"));
        // Findings about a configuration file (S001) are in no graph.
        if !d.graph.is_empty() {
            let _ = write!(out, ", graph {}", escape(&d.graph));
        }
        if let (Some(n), Some(op)) = (&d.node, &d.op_type) {
            let _ = write!(out, ", node '{}' ({})", escape(n), escape(op));
        }
        out.push('\n');
        for note in &d.notes {
            let _ = writeln!(out, "   {} {}", paint.wrap(BLUE_BOLD, "="), escape(note));
        }
        out.push('\n');
    }
    out
}

fn count(diags: &[crate::diagnostics::Diagnostic], s: Severity) -> usize {
    diags.iter().filter(|d| d.severity == s).count()
}

/// The counts of a run, added up file by file so that a caller streaming thousands of files need not
/// keep their diagnostics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Files checked (loaded or not).
    pub models: usize,
    /// Files that could not be loaded.
    pub unloadable: usize,
    /// Loaded files with at least one error.
    pub with_errors: usize,
    /// Loaded files with warnings but no error.
    pub with_warnings_only: usize,
    pub errors: usize,
    pub warnings: usize,
    /// Findings per code, indexed like [`Code::ALL`].
    pub per_code: Vec<usize>,
    /// Errors in files that are not models (a configuration's unused suppressions made errors).
    pub other_errors: usize,
}

impl Summary {
    pub fn add(&mut self, r: &FileReport) {
        self.models += 1;
        let diags = match &r.outcome {
            Err(_) => {
                self.unloadable += 1;
                return;
            }
            Ok(d) => d,
        };
        let (e, w) = (
            count(diags, Severity::Error),
            count(diags, Severity::Warning),
        );
        self.errors += e;
        self.warnings += w;
        if e > 0 {
            self.with_errors += 1;
        } else if w > 0 {
            self.with_warnings_only += 1;
        }
        if self.per_code.is_empty() {
            self.per_code = vec![0; Code::ALL.len()];
        }
        for d in diags {
            if let Some(i) = Code::ALL.iter().position(|c| *c == d.code) {
                self.per_code[i] += 1;
            }
        }
    }

    /// Counts the findings of a file that is not a model (a configuration's unused suppressions):
    /// they count as errors and warnings of the run, the file not as a model.
    pub fn add_other(&mut self, r: &FileReport) {
        let models = self.models;
        self.add(r);
        self.models = models;
        if let Ok(d) = &r.outcome {
            if count(d, Severity::Error) > 0 {
                self.with_errors -= 1;
            } else if count(d, Severity::Warning) > 0 {
                self.with_warnings_only -= 1;
            }
        }
        self.other_errors += r.outcome.as_ref().map_or(0, |d| count(d, Severity::Error));
    }

    /// `check --statistics`: one line per code found, most frequent first.
    pub fn statistics_text(&self) -> String {
        let mut out = String::new();
        for (c, n) in self.by_frequency() {
            let _ = writeln!(out, "{n:>6}  {:<5} {}", c.as_str(), c.name());
        }
        if self.unloadable > 0 {
            let _ = writeln!(out, "{:>6}  models not loadable", self.unloadable);
        }
        out
    }

    /// `check --statistics --format json`: `[{"code", "name", "count"}]`, most frequent first.
    pub fn statistics_json(&self) -> String {
        let rows: Vec<serde_json::Value> = self
            .by_frequency()
            .into_iter()
            .map(|(c, n)| serde_json::json!({"code": c.as_str(), "name": c.name(), "count": n}))
            .collect();
        let mut s = serde_json::to_string_pretty(&rows).unwrap_or_default();
        s.push('\n');
        s
    }

    fn by_frequency(&self) -> Vec<(Code, usize)> {
        let mut rows: Vec<(Code, usize)> = Code::ALL
            .iter()
            .copied()
            .zip(self.per_code.iter().copied())
            .filter(|(_, n)| *n > 0)
            .collect();
        rows.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
        rows
    }

    /// Loaded files with neither error nor warning.
    pub fn clean(&self) -> usize {
        self.models - self.unloadable - self.with_errors - self.with_warnings_only
    }

    /// The closing lines of a run of more than one file (nothing for one file: its own count line says
    /// it all). Only numbers and codes: nothing in it comes from a model.
    pub fn text(&self) -> String {
        if self.models <= 1 {
            return String::new();
        }
        let mut out = format!(
            "{} checked: {}, {}, {} not loadable\n",
            plural(self.models, "model"),
            plural(self.errors, "error"),
            plural(self.warnings, "warning"),
            self.unloadable
        );
        let _ = writeln!(
            out,
            "  models: {} with errors, {} with warnings only, {} clean, {} not loadable",
            self.with_errors,
            self.with_warnings_only,
            self.clean(),
            self.unloadable
        );
        let by_code: Vec<String> = Code::ALL
            .iter()
            .zip(&self.per_code)
            .filter(|(_, n)| **n > 0)
            .map(|(c, n)| format!("{c} {} {n}", c.name()))
            .collect();
        if !by_code.is_empty() {
            let _ = writeln!(out, "  findings by code: {}", by_code.join(", "));
        }
        out
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Diagnostic;

    fn report(file: &str, codes: &[Code]) -> FileReport {
        FileReport {
            file: file.into(),
            outcome: Ok(codes
                .iter()
                .map(|c| Diagnostic::new(*c, "main", "m"))
                .collect()),
        }
    }

    #[test]
    fn summary_counts_models_and_codes() {
        let reports = [
            report("a.onnx", &[Code::BroadcastError, Code::BroadcastError]),
            report("b.onnx", &[Code::PossibleBroadcastError, Code::NoShapeRule]),
            report("c.onnx", &[Code::NoShapeRule]),
            FileReport {
                file: "d.onnx".into(),
                outcome: Err("bad".into()),
            },
        ];
        let out = text(&reports);
        assert!(out.ends_with(
            "4 models checked: 2 errors, 1 warning, 1 not loadable\n  \
             models: 1 with errors, 1 with warnings only, 1 clean, 1 not loadable\n  \
             findings by code: E1 broadcast-error 2, W1 possible-broadcast-error 1, I001 no-shape-rule 2\n"
        ), "{out}");
        assert_eq!(text(&reports[..1]).matches("checked").count(), 0);
    }
}
