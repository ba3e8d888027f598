//! The rule documentation: `docs/rules.md`, embedded in the binary, one section per code. A section
//! starts with a `## CODE name` heading and has four parts, each under its own `###` heading: what it
//! checks, why it matters, an example, and the fix. `onnx-lint explain CODE` prints the section.
//!
//! `tests/it/docs/rules_doc.rs` checks that every code of the table has a section with all four parts, and
//! runs the example commands the sections show.

use super::Code;

/// The whole of `docs/rules.md`.
pub const RULES: &str = include_str!("../../docs/rules.md");

/// The four parts every section has, by their `###` headings.
pub const PARTS: [&str; 4] = ["What it checks", "Why it matters", "Example", "Fix"];

/// One code's section of `docs/rules.md`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The heading's text after `## ` (`E1 broadcast-error`).
    pub heading: &'static str,
    /// Everything after the heading line, up to the next section.
    pub body: &'static str,
}

impl Entry {
    /// The code the heading names, if it is one.
    pub fn code(&self) -> Option<Code> {
        self.heading.split_whitespace().next()?.parse().ok()
    }

    /// The text of part `name` (one of [`PARTS`]), without its heading, trimmed; `None` if absent.
    pub fn part(&self, name: &str) -> Option<&'static str> {
        let heads = headings(self.body, "### ");
        let k = heads.iter().position(|h| h.title == name)?;
        let end = heads.get(k + 1).map_or(self.body.len(), |h| h.start);
        Some(self.body[heads[k].body..end].trim())
    }
}

/// A markdown heading of a given level: its title, where its line starts and where its body starts.
struct Heading {
    title: &'static str,
    start: usize,
    body: usize,
}

/// The headings of `text` that start with `prefix` (`## `, `### `), skipping fenced code blocks, whose
/// `#` lines are comments or shell prompts, not headings.
fn headings(text: &'static str, prefix: &str) -> Vec<Heading> {
    let mut out = Vec::new();
    let mut offset = 0;
    let mut fenced = false;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && let Some(h) = line.strip_prefix(prefix) {
            out.push(Heading {
                title: h.trim(),
                start,
                body: offset,
            });
        }
    }
    out
}

/// Every section of `docs/rules.md`, in order. `##` lines inside fenced code blocks are not headings.
pub fn entries() -> Vec<Entry> {
    let heads = headings(RULES, "## ");
    heads
        .iter()
        .enumerate()
        .map(|(k, h)| Entry {
            heading: h.title,
            body: &RULES[h.body..heads.get(k + 1).map_or(RULES.len(), |n| n.start)],
        })
        .collect()
}

/// The section documenting `code`.
pub fn entry(code: Code) -> Option<Entry> {
    entries().into_iter().find(|e| e.code() == Some(code))
}

/// The code `s` names: its identifier or its name, in any case.
pub fn lookup(s: &str) -> Option<Code> {
    let s = s.trim();
    Code::ALL
        .iter()
        .copied()
        .find(|c| c.as_str().eq_ignore_ascii_case(s) || c.name().eq_ignore_ascii_case(s))
}

/// What `explain CODE` prints: the heading with the default severity, then the section.
pub fn text(code: Code) -> Option<String> {
    let e = entry(code)?;
    Some(format!(
        "{} {} ({})\n\n{}\n",
        code.as_str(),
        code.name(),
        code.severity().as_str(),
        e.body.trim()
    ))
}

/// What `explain` without a code prints: one line per code.
pub fn list() -> String {
    let mut out = String::new();
    for &c in Code::ALL {
        out.push_str(&format!(
            "{:<5} {:<25} {:<8} {}\n",
            c.as_str(),
            c.name(),
            c.severity().as_str(),
            c.summary()
        ));
    }
    out.push_str("\n`onnx-lint explain CODE` explains one (docs/rules.md has them all).\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_by_id_or_name_in_any_case() {
        assert_eq!(lookup("e1"), Some(Code::BroadcastError));
        assert_eq!(lookup("G001"), Some(Code::UndefinedValue));
        assert_eq!(lookup("Broadcast-Error"), Some(Code::BroadcastError));
        assert_eq!(lookup("Z9"), None);
    }

    #[test]
    fn every_code_has_a_section_with_all_four_parts() {
        for &c in Code::ALL {
            let e = entry(c).unwrap_or_else(|| panic!("docs/rules.md has no section for {c}"));
            assert_eq!(e.heading, format!("{} {}", c.as_str(), c.name()));
            for p in PARTS {
                let text = e.part(p).unwrap_or_else(|| panic!("{c}: no '### {p}'"));
                assert!(!text.is_empty(), "{c}: '### {p}' is empty");
            }
        }
    }
}
