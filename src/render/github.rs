//! GitHub Actions workflow commands: one `::error`/`::warning`/`::notice` line per finding, which the
//! runner turns into an annotation on the model file.
//!
//! The runner reads a command from each line of the log: everything a model or a file name controls is
//! escaped by GitHub's rules (data: `%`, CR and LF; property values also `:` and `,`), so no name can end
//! the line early and start a command of its own, or add a property.

use super::{FileReport, escape};
use crate::diagnostics::Severity;
use std::fmt::Write;

pub fn github(reports: &[FileReport]) -> String {
    reports.iter().map(github_file).collect()
}

/// The lines of one file: one per finding, or one `::error` saying why it could not be loaded.
pub fn github_file(r: &FileReport) -> String {
    let mut out = String::new();
    let file = property(&r.file);
    let diags = match &r.outcome {
        Err(e) => {
            let msg = format!("cannot load {}: {}", escape(&r.file), escape(e));
            let _ = writeln!(out, "::error file={file},title=load-error::{}", data(&msg));
            return out;
        }
        Ok(d) => d,
    };
    for d in diags {
        let command = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        // Model-controlled text goes through `escape` first (no terminal controls in the log), then the
        // lines are joined with real newlines, which `data` encodes.
        let mut msg = format!("{}: {}", d.code.name(), escape(&d.message));
        // Findings about a configuration file (S001) are in no graph.
        if !d.graph.is_empty() {
            let _ = write!(msg, "\ngraph {}", escape(&d.graph));
        }
        if let (Some(n), Some(op)) = (&d.node, &d.op_type) {
            let _ = write!(msg, ", node '{}' ({})", escape(n), escape(op));
        }
        for note in &d.notes {
            msg.push('\n');
            msg.push_str(&escape(note));
        }
        let _ = writeln!(
            out,
            "::{command} file={file},title={}::{}",
            property(d.code.as_str()),
            data(&msg)
        );
    }
    out
}

/// The message of a workflow command.
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value (`file=`, `title=`).
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::{Code, Diagnostic};

    #[test]
    fn escapes_follow_github_rules() {
        assert_eq!(data("50% a\r\nb:c,d"), "50%25 a%0D%0Ab:c,d");
        assert_eq!(property("50% a\r\nb:c,d"), "50%25 a%0D%0Ab%3Ac%2Cd");
        // Percent first: an escape already in the input is not decoded by the runner.
        assert_eq!(property("%0A"), "%250A");
    }

    #[test]
    fn one_line_per_finding_with_the_level_of_its_severity() {
        let r = FileReport {
            file: "dir,x/a:b.onnx".into(),
            outcome: Ok(vec![
                Diagnostic::new(Code::BroadcastError, "main", "bad\nline").at_node("n", "Add"),
                Diagnostic::new(Code::PossibleBroadcastError, "main", "maybe").note("N must be 1"),
                Diagnostic::new(Code::NoShapeRule, "main", "info"),
            ]),
        };
        let out = github_file(&r);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert_eq!(
            lines[0],
            "::error file=dir%2Cx/a%3Ab.onnx,title=E1::broadcast-error: bad\\nline%0Agraph main, node 'n' (Add)"
        );
        assert!(lines[1].starts_with("::warning file=dir%2Cx/a%3Ab.onnx,title=W1::"));
        assert!(lines[1].ends_with("%0AN must be 1"));
        assert!(lines[2].starts_with("::notice "));
    }
}
