//! Glob patterns of a configuration: model paths (relative to the configuration's folder, or file
//! names) and node names.

use globset::{GlobBuilder, GlobMatcher};
use std::path::Path;

/// A glob over model paths. A pattern with a `/` matches the path relative to the configuration's
/// folder (`*` stays within one folder, `**` crosses folders); one without matches the file name
/// alone, in any folder, as a `.gitignore` line does.
#[derive(Clone, Debug)]
pub struct PathPattern {
    pub text: String,
    matcher: GlobMatcher,
    by_name: bool,
}

impl PathPattern {
    pub fn new(text: &str) -> Result<Self, String> {
        let matcher = GlobBuilder::new(text)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("invalid model pattern `{text}`: {e}"))?
            .compile_matcher();
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
    matcher: GlobMatcher,
}

impl NamePattern {
    pub fn new(text: &str) -> Result<Self, String> {
        let matcher = GlobBuilder::new(text)
            .literal_separator(false)
            .build()
            .map_err(|e| format!("invalid node pattern `{text}`: {e}"))?
            .compile_matcher();
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
}
