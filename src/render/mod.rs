//! Renderers: turn the diagnostics of one run (several files) into text, GitHub workflow commands, JSON
//! or SARIF. Detection never formats; rendering never decides.

mod dims;
mod github;
mod json;
mod sarif;
mod shapes;
mod text;

pub use dims::{dims_json, dims_text};
pub use github::{github, github_file};
pub use json::json;
pub use sarif::sarif;
pub use shapes::{shapes_json, shapes_text, write_shapes_json, write_shapes_text};
pub use text::{Paint, Summary, text, text_file, text_file_painted, text_findings_painted};

use crate::diagnostics::Diagnostic;

/// What a run found in one file: its diagnostics, or why it could not be loaded.
#[derive(Debug)]
pub struct FileReport {
    pub file: String,
    pub outcome: Result<Vec<Diagnostic>, String>,
}

/// Makes a model-controlled string safe for a terminal: control characters (ANSI escapes, newlines)
/// and bidirectional overrides are shown as `\u{..}` escapes instead of acting on the terminal.
pub fn escape(s: &str) -> String {
    escaped(s).into_owned()
}

/// [`escape`], borrowing `s` when it needs no escape (the common case: no copy per name when a
/// million are listed).
pub fn escaped(s: &str) -> std::borrow::Cow<'_, str> {
    let needs = |c: char| {
        c.is_control()
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    // Printable ASCII needs nothing: a byte test, cheaper than decoding the characters (a report
    // escapes three strings a line, a million lines for a large rewrite).
    // Without a branch per byte, so that it runs on words of them.
    let printable = s
        .bytes()
        .fold(true, |ok, b| ok & (b.wrapping_sub(0x20) < 0x5f));
    if printable || !s.chars().any(needs) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if needs(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escape_neutralises_terminal_controls() {
        assert_eq!(escape("plain_name"), "plain_name");
        assert_eq!(escape("a\x1b[31mred"), "a\\u{1b}[31mred");
        assert_eq!(escape("two\nlines"), "two\\nlines");
        assert_eq!(escape("rtl\u{202e}x"), "rtl\\u{202e}x");
    }
}
