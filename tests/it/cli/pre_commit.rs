//! `.pre-commit-hooks.yaml`: the hook's keys are what pre-commit needs, and its entry, run as
//! pre-commit runs it (the entry's words, then the matching file names), fails on a broken model and
//! passes a clean one.
//!
//! The file is a one-item list of flat `key: value` pairs, so a small hand parse is enough and no
//! YAML crate is needed; it refuses anything it does not understand rather than guessing.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::support::binary::BIN;

fn hooks() -> Vec<BTreeMap<String, String>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let mut hooks: Vec<BTreeMap<String, String>> = Vec::new();
    for line in text.lines() {
        let content = line.trim_end();
        if content.trim_start().starts_with('#') || content.trim().is_empty() {
            continue;
        }
        let pair = if let Some(rest) = content.strip_prefix("- ") {
            hooks.push(BTreeMap::new());
            rest
        } else if let Some(rest) = content.strip_prefix("  ") {
            assert!(!rest.starts_with(' '), "nested YAML not expected: {line:?}");
            rest
        } else {
            panic!("unexpected line: {line:?}");
        };
        let (k, v) = pair
            .split_once(": ")
            .unwrap_or_else(|| panic!("not `key: value`: {line:?}"));
        let hook = hooks.last_mut().expect("a key before the first `- `");
        assert!(
            hook.insert(k.to_owned(), v.trim().to_owned()).is_none(),
            "{k} twice"
        );
    }
    hooks
}

#[test]
fn hook_declares_what_pre_commit_needs() {
    let hooks = hooks();
    assert_eq!(hooks.len(), 1);
    let h = &hooks[0];
    assert_eq!(h["id"], "onnx-lint");
    assert_eq!(h["entry"], "onnx-lint check");
    assert_eq!(h["language"], "rust");
    assert_eq!(h["files"], r"\.onnx$");
    assert_eq!(h["types"], "[file]");
    assert!(!h["name"].is_empty());
}

/// Runs the hook's entry (its first word replaced by the built binary) on `files`, like pre-commit.
fn run_entry(files: &[&str]) -> Option<i32> {
    let entry = hooks()[0]["entry"].clone();
    let mut words = entry.split_whitespace();
    assert_eq!(words.next(), Some("onnx-lint"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    Command::new(BIN)
        .args(words)
        .args(files.iter().map(|f| root.join(f)))
        .output()
        .unwrap()
        .status
        .code()
}

#[test]
fn entry_fails_a_broken_model_and_passes_a_clean_one() {
    assert_eq!(run_entry(&["models/broken/e1_add.onnx"]), Some(1));
    assert_eq!(run_entry(&["models/tiny_transformer.onnx"]), Some(0));
    // pre-commit passes many files at once: one broken file fails the lot.
    assert_eq!(
        run_entry(&["models/tiny_transformer.onnx", "models/broken/e1_add.onnx"]),
        Some(1)
    );
}

#[test]
fn files_pattern_matches_onnx_files_only() {
    // `\.onnx$` as a plain suffix test (it has no other regex syntax), checked on the kinds of name
    // pre-commit will hand over.
    let pattern = &hooks()[0]["files"];
    let suffix = pattern
        .strip_prefix('\\')
        .and_then(|p| p.strip_suffix('$'))
        .unwrap();
    assert_eq!(suffix, ".onnx");
    assert!("models/a.onnx".ends_with(suffix));
    assert!(!"models/a.onnx.data".ends_with(suffix));
}
