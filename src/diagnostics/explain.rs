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

/// What `explain CODE` prints: the section rendered for a terminal (see [`render`]), uncoloured.
pub fn text(code: Code) -> Option<String> {
    render(code, false)
}

/// The section of `code` rendered for a terminal: the heading (`E1 broadcast-error`) and the parts'
/// headings on lines of their own, bold when `color`; prose as written, with a link's target in
/// parentheses; code blocks indented by four spaces, without their fences; the severity said once
/// (the section's `Severity:` line); and, last, where the page is on the web ([`docs_link`]).
pub fn render(code: Code, color: bool) -> Option<String> {
    let e = entry(code)?;
    let emphasized = |s: &str| {
        if color {
            format!("\x1b[1m{s}\x1b[0m\n")
        } else {
            format!("{s}\n")
        }
    };
    let mut out = emphasized(e.heading);
    let mut fenced = false;
    let mut blank = false;
    for line in e.body.trim().lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            if line.is_empty() {
                out.push('\n');
            } else {
                out.push_str("    ");
                out.push_str(line);
                out.push('\n');
            }
        } else if let Some(h) = line.strip_prefix("### ") {
            if !blank {
                out.push('\n');
            }
            out.push_str(&emphasized(h.trim()));
        } else {
            out.push_str(&plain_links(line));
            out.push('\n');
        }
        blank = line.trim().is_empty();
    }
    out.push_str(&format!("\nDocumentation: {}\n", docs_link(e.heading)));
    Some(out)
}

/// `[text](target)` as `text (target)`, a relative `.md` target as its [`docs_page`] link; text
/// without links as it is.
fn plain_links(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](").map(|k| open + k) else {
            break;
        };
        let Some(end) = rest[close..].find(')').map(|k| close + k) else {
            break;
        };
        let (text, target) = (&rest[open + 1..close], &rest[close + 2..end]);
        let target = if target.contains("://") {
            target.to_owned()
        } else {
            docs_page(target)
        };
        out.push_str(&rest[..open]);
        out.push_str(&format!("{text} ({target})"));
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

/// Where the documentation page `page` (a file of `docs/`, with an optional `#anchor`) is read: under
/// the repository's web address when the build names one (`repository` in Cargo.toml, a link a wheel
/// or a `cargo install` user can open), else its path in a checkout of the repository.
fn docs_page(page: &str) -> String {
    match option_env!("CARGO_PKG_REPOSITORY").filter(|r| !r.is_empty()) {
        Some(repo) => format!("{}/blob/main/docs/{page}", repo.trim_end_matches('/')),
        None => format!("docs/{page} in the onnx-lint repository"),
    }
}

/// The link to a section of `docs/rules.md`, by its heading (GitHub's anchor: lowercase, spaces to
/// `-`, other punctuation than `-` and `_` dropped).
pub fn docs_link(heading: &str) -> String {
    let anchor: String = heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect();
    docs_page(&format!("rules.md#{anchor}"))
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
    out.push_str(&format!(
        "\n`onnx-lint explain CODE` explains one; all of them: {}\n",
        docs_page("rules.md")
    ));
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
    fn a_section_is_rendered_without_markdown() {
        let t = text(Code::BroadcastError).unwrap();
        assert!(
            t.starts_with("E1 broadcast-error\nSeverity: error; "),
            "{t}"
        );
        assert!(t.contains(" at load).\n\nWhat it checks\n"), "{t}");
        assert!(!t.contains("```") && !t.contains("###"), "{t}");
        assert_eq!(t.matches("Severity").count(), 1, "{t}");
        assert!(
            t.contains("\n    $ onnx-lint check models/broken/e1_add.onnx\n"),
            "{t}"
        );
        let last = t.lines().last().unwrap_or_default();
        assert!(last.starts_with("Documentation: "), "{t}");
        assert!(last.contains("docs/rules.md#e1-broadcast-error"), "{t}");
        let colored = render(Code::BroadcastError, true).unwrap();
        assert!(
            colored.starts_with("\x1b[1mE1 broadcast-error\x1b[0m\n"),
            "{colored}"
        );
        assert!(colored.contains("\n\x1b[1mFix\x1b[0m\n"), "{colored}");
    }

    #[test]
    fn links_keep_their_target_in_parentheses() {
        let l = plain_links("listed in [contracts.md](contracts.md), and [x](https://a.b/c).");
        assert!(l.starts_with("listed in contracts.md ("), "{l}");
        assert!(l.contains("docs/contracts.md"), "{l}");
        assert!(l.ends_with(", and x (https://a.b/c)."), "{l}");
        assert!(docs_link("E1 broadcast-error").contains("docs/rules.md#e1-broadcast-error"));
        assert!(docs_link("M002 ir-version").contains("docs/rules.md#m002-ir-version"));
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
