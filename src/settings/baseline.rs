//! Baselines: the findings a repository has accepted for now, so that a run fails only on new ones.
//!
//! A finding is matched by file, code, graph, node and message, never by position (a model has no
//! lines, and its nodes move when it is re-exported); a finding that occurs twice is recorded with a
//! count, so a third copy is new. Files are recorded relative to the baseline's folder, so the
//! baseline holds wherever the run starts from.

use super::SettingsError;
use crate::diagnostics::Diagnostic;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The format's version, the value of the file's `onnx-lint-baseline` key.
const VERSION: u32 = 1;

/// One recorded finding, as stored.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(deny_unknown_fields)]
struct Entry {
    file: String,
    code: String,
    graph: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    node: Option<String>,
    message: String,
    #[serde(default = "one", skip_serializing_if = "is_one")]
    count: usize,
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    #[serde(rename = "onnx-lint-baseline")]
    version: u32,
    findings: Vec<Entry>,
}

type Key = (String, String, String, Option<String>, String);

fn key(file: &str, d: &Diagnostic) -> Key {
    (
        file.to_owned(),
        d.code.as_str().to_owned(),
        d.graph.clone(),
        d.node.clone(),
        d.message.clone(),
    )
}

/// How a model is named in a baseline kept in `folder` (canonical): its path relative to that folder
/// with `/` separators, or its absolute path when it is elsewhere; `-` for standard input.
pub fn file_key(folder: &Path, model: Option<&Path>) -> String {
    let Some(model) = model else {
        return "-".to_owned();
    };
    let rel = model.strip_prefix(folder).unwrap_or(model);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
        .replace("//", "/")
}

/// The canonical folder of a baseline file (which may not exist yet).
pub fn folder_of(path: &Path) -> PathBuf {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_owned())
}

/// A baseline read for matching: what is left of each recorded finding's count.
#[derive(Debug, Default)]
pub struct Baseline {
    pub folder: PathBuf,
    left: HashMap<Key, usize>,
}

impl Baseline {
    pub fn read(path: &Path) -> Result<Baseline, SettingsError> {
        let text = crate::file::read::read_text_capped(
            path,
            crate::file::read::MAX_BASELINE_BYTES,
            "baseline",
        )
        .map_err(|e| SettingsError::ReadBaseline {
            path: path.to_owned(),
            why: format!("{e:#}"),
        })?;
        let doc: Document =
            serde_json::from_str(&text).map_err(|cause| SettingsError::InvalidBaseline {
                path: path.to_owned(),
                cause,
            })?;
        if doc.version != VERSION {
            return Err(SettingsError::BaselineVersion {
                path: path.to_owned(),
                version: doc.version,
                reads: VERSION,
            });
        }
        let mut left = HashMap::new();
        for e in doc.findings {
            *left
                .entry((e.file, e.code, e.graph, e.node, e.message))
                .or_insert(0) += e.count;
        }
        Ok(Baseline {
            folder: folder_of(path),
            left,
        })
    }

    /// The findings of `file` that the baseline does not hold (each recorded finding absorbs as many
    /// as its count), and how many it absorbed.
    pub fn filter(&mut self, file: &str, found: Vec<Diagnostic>) -> (Vec<Diagnostic>, usize) {
        let mut absorbed = 0;
        let kept = found
            .into_iter()
            .filter(|d| match self.left.get_mut(&key(file, d)) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    absorbed += 1;
                    false
                }
                _ => true,
            })
            .collect();
        (kept, absorbed)
    }

    /// Recorded findings of `files` that did not occur (fixed since, or changed): the baseline can
    /// be rewritten smaller.
    pub fn stale(&self, files: &[String]) -> usize {
        self.left
            .iter()
            .filter(|(k, _)| files.contains(&k.0))
            .map(|(_, n)| *n)
            .sum()
    }
}

/// Findings gathered over a run, to be written as a baseline.
#[derive(Debug, Default)]
pub struct Recorder {
    pub folder: PathBuf,
    seen: BTreeMap<Key, usize>,
}

impl Recorder {
    pub fn new(path: &Path) -> Recorder {
        Recorder {
            folder: folder_of(path),
            seen: BTreeMap::new(),
        }
    }

    pub fn record(&mut self, file: &str, found: &[Diagnostic]) {
        for d in found {
            *self.seen.entry(key(file, d)).or_insert(0) += 1;
        }
    }

    /// Findings recorded so far.
    pub fn len(&self) -> usize {
        self.seen.values().sum()
    }

    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// The baseline document, sorted by file, code, graph, node and message (so it diffs well).
    pub fn to_json(&self) -> String {
        let findings = self
            .seen
            .iter()
            .map(|((file, code, graph, node, message), n)| Entry {
                file: file.clone(),
                code: code.clone(),
                graph: graph.clone(),
                node: node.clone(),
                message: message.clone(),
                count: *n,
            })
            .collect();
        let doc = Document {
            version: VERSION,
            findings,
        };
        // Plain data of strings and numbers: serialization cannot fail.
        let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
        s.push('\n');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Code;

    fn d(code: Code, node: &str, msg: &str) -> Diagnostic {
        Diagnostic::new(code, "main", msg).at_node(node, "Add")
    }

    #[test]
    fn recorded_findings_are_absorbed_by_count_and_new_ones_kept() {
        let mut rec = Recorder::default();
        rec.record(
            "m/a.onnx",
            &[
                d(Code::BroadcastError, "n", "x"),
                d(Code::BroadcastError, "n", "x"),
            ],
        );
        rec.record("m/b.onnx", &[d(Code::PossibleBroadcastError, "k", "y")]);
        assert_eq!(rec.len(), 3);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("baseline.json");
        std::fs::write(&p, rec.to_json()).unwrap();
        let mut b = Baseline::read(&p).unwrap();
        let found = vec![
            d(Code::BroadcastError, "n", "x"),
            d(Code::BroadcastError, "n", "x"),
            d(Code::BroadcastError, "n", "x"),
            d(Code::BroadcastError, "other", "x"),
        ];
        let (kept, absorbed) = b.filter("m/a.onnx", found);
        assert_eq!(absorbed, 2);
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[1].node.as_deref(), Some("other"));
        // b.onnx was not filtered: its entry is stale only if b.onnx was checked.
        assert_eq!(b.stale(&["m/a.onnx".into()]), 0);
        assert_eq!(b.stale(&["m/b.onnx".into()]), 1);
    }

    #[test]
    fn bad_baselines_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("b.json");
        std::fs::write(&p, "{\"onnx-lint-baseline\": 9, \"findings\": []}").unwrap();
        assert!(
            Baseline::read(&p)
                .unwrap_err()
                .to_string()
                .to_string()
                .contains("version 9")
        );
        std::fs::write(&p, "[]").unwrap();
        assert!(
            Baseline::read(&p)
                .unwrap_err()
                .to_string()
                .contains("invalid baseline")
        );
    }

    #[test]
    fn files_are_keyed_relative_to_the_baseline_folder() {
        let f = Path::new("/repo");
        assert_eq!(
            file_key(f, Some(Path::new("/repo/models/a.onnx"))),
            "models/a.onnx"
        );
        assert_eq!(
            file_key(f, Some(Path::new("/elsewhere/a.onnx"))),
            "/elsewhere/a.onnx"
        );
        assert_eq!(file_key(f, None), "-");
    }
}
