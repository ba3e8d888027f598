//! Glob patterns of a configuration: model paths (relative to the configuration's folder, or file
//! names) and node names.
//!
//! A pattern comes from a file or a command line nobody vetted, so it is bounded before globset sees
//! it (length, brace nesting: globset's translation recurses over nested braces) and compiled through
//! a `GlobSet`, whose build reports a regex over its size limit as an error where `compile_matcher`
//! panics.

use super::SettingsError;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use std::path::Path;

/// The longest pattern accepted, in bytes: far above any real glob, far below what makes the regex
/// compiler slow.
pub const MAX_PATTERN_LEN: usize = 1024;

/// The deepest nesting of `{...}` accepted.
pub const MAX_BRACE_DEPTH: usize = 8;

/// Compiles `text` (`what` names the kind of pattern in the error), refusing what is over the limits.
fn compile(
    text: &str,
    what: &'static str,
    literal_separator: bool,
) -> Result<GlobSet, SettingsError> {
    let shown = |t: &str| -> String {
        if t.len() <= 60 {
            return t.to_owned();
        }
        let mut end = 60;
        while !t.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}... ({} bytes)", &t[..end], t.len())
    };
    if text.len() > MAX_PATTERN_LEN {
        return Err(SettingsError::PatternTooLong {
            what,
            shown: shown(text),
            max: MAX_PATTERN_LEN,
        });
    }
    let mut depth = 0usize;
    let mut escaped = false;
    for c in text.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '{' => {
                depth += 1;
                if depth > MAX_BRACE_DEPTH {
                    return Err(SettingsError::PatternTooDeep {
                        what,
                        shown: shown(text),
                        max: MAX_BRACE_DEPTH,
                    });
                }
            }
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let glob = GlobBuilder::new(text)
        .literal_separator(literal_separator)
        .build()
        .map_err(|cause| SettingsError::InvalidPattern {
            what,
            shown: shown(text),
            cause,
        })?;
    GlobSetBuilder::new()
        .add(glob)
        .build()
        .map_err(|cause| SettingsError::PatternTooComplex {
            what,
            shown: shown(text),
            cause,
        })
}

/// A glob over model paths. A pattern with a `/` matches the path relative to the configuration's
/// folder (`*` stays within one folder, `**` crosses folders); one without matches the file name
/// alone, in any folder, as a `.gitignore` line does.
#[derive(Clone, Debug)]
pub struct PathPattern {
    pub text: String,
    matcher: GlobSet,
    by_name: bool,
}

impl PathPattern {
    pub fn new(text: &str) -> Result<Self, SettingsError> {
        let matcher = compile(text, "model", true)?;
        Ok(PathPattern {
            text: text.to_owned(),
            matcher,
            by_name: !text.contains('/'),
        })
    }

    /// Whether the model at `model` (absolute, canonical; `None` for standard input, which no path
    /// pattern matches) is matched, `root` being the configuration's folder.
    pub fn matches(&self, root: &Path, model: Option<&Path>) -> bool {
        let Some(model) = model else {
            return false;
        };
        if self.by_name {
            return model
                .file_name()
                .is_some_and(|n| self.matcher.is_match(Path::new(n)));
        }
        match model.strip_prefix(root) {
            Ok(rel) => self.matcher.is_match(rel),
            Err(_) => self.matcher.is_match(model),
        }
    }
}

/// A glob over node names. Exporters put `/` in names (`/encoder/layer.0/Add`), so `*` crosses it.
#[derive(Clone, Debug)]
pub struct NamePattern {
    pub text: String,
    matcher: GlobSet,
}

impl NamePattern {
    pub fn new(text: &str) -> Result<Self, SettingsError> {
        let matcher = compile(text, "node", false)?;
        Ok(NamePattern {
            text: text.to_owned(),
            matcher,
        })
    }

    pub fn matches(&self, name: &str) -> bool {
        self.matcher.is_match(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_patterns_match_relative_paths_or_file_names() {
        let root = Path::new("/repo");
        let m = |p: &str, f: &str| {
            PathPattern::new(p)
                .unwrap()
                .matches(root, Some(Path::new(f)))
        };
        assert!(m("legacy/*.onnx", "/repo/legacy/a.onnx"));
        assert!(!m("legacy/*.onnx", "/repo/legacy/deep/a.onnx"));
        assert!(m("legacy/**/*.onnx", "/repo/legacy/deep/a.onnx"));
        assert!(m("a.onnx", "/repo/x/y/a.onnx"));
        assert!(m("e1_*.onnx", "/repo/broken/e1_add.onnx"));
        assert!(!m("e1_*.onnx", "/repo/broken/w1_add.onnx"));
        assert!(!PathPattern::new("*.onnx").unwrap().matches(root, None));
        assert!(PathPattern::new("a[").is_err());
    }

    #[test]
    fn node_patterns_cross_slashes() {
        let p = NamePattern::new("/encoder/*/Add*").unwrap();
        assert!(p.matches("/encoder/layer.0/attention/Add_1"));
        assert!(!p.matches("/decoder/layer.0/Add"));
    }

    #[test]
    fn patterns_over_the_limits_are_errors_not_panics() {
        let nested = format!("{}a{}", "{a,".repeat(20), "}".repeat(20));
        let e = NamePattern::new(&nested).unwrap_err().to_string();
        assert!(e.contains("too deep"), "{e}");
        let long = "a".repeat(MAX_PATTERN_LEN + 1);
        assert!(
            PathPattern::new(&long)
                .unwrap_err()
                .to_string()
                .contains("too long")
        );
        // Within the length limit but over the regex compiler's size limit.
        let wide = format!("{{{}}}", vec!["**a*b*c"; 100].join(","));
        let _ = NamePattern::new(&wide); // an error or a matcher, never a panic
        let ok = NamePattern::new("{a,{b,c}}_*").unwrap();
        assert!(ok.matches("c_1"));
    }
}
