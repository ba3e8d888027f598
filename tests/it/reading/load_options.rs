//! `LoadOptions { keep_shapes: false }` (what `check` uses) frees each value's type after its last reader:
//! the findings must be exactly those of a full load, on every example model, broken ones included.
//! `keep_names: false` (what the passes use) keeps the same types without the values' names.

use onnx_lint::file::Origin;
use onnx_lint::lint::{self, LoadOptions};
use std::path::{Path, PathBuf};

/// Every example model, broken ones included.
fn example_models() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut paths = Vec::new();
    for dir in [root.clone(), root.join("broken")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "onnx") {
                paths.push(path);
            }
        }
    }
    paths
}

/// What a full load finds in `path`, and what a load with `options` finds.
fn full_and_with(path: &Path, options: &LoadOptions) -> (lint::Findings, lint::Findings) {
    let (_, full) = lint::load(Origin::File(path.to_owned())).unwrap();
    let (_, with) = lint::load_with(Origin::File(path.to_owned()), options).unwrap();
    (full, with)
}

#[test]
fn findings_do_not_depend_on_keeping_the_shapes() {
    let mut seen = 0;
    for path in example_models() {
        let lean_options = LoadOptions {
            keep_shapes: false,
            ..Default::default()
        };
        let (full, lean) = full_and_with(&path, &lean_options);
        assert_eq!(full.diagnostics, lean.diagnostics, "{}", path.display());
        assert!(!full.shapes.is_empty(), "{}", path.display());
        assert!(lean.shapes.is_empty(), "{}", path.display());
        seen += 1;
    }
    // The broken models hold E1s in subgraphs and functions, which read values through captures.
    assert!(seen >= 20, "only {seen} models");
}

/// `keep_names: false` (what the passes use) keeps the same types by value id, with empty names.
#[test]
fn types_kept_without_names_are_the_types_kept_with_them() {
    let mut values = 0;
    for path in example_models() {
        let unnamed_options = LoadOptions {
            keep_names: false,
            ..Default::default()
        };
        let (full, unnamed) = full_and_with(&path, &unnamed_options);
        assert_eq!(full.diagnostics, unnamed.diagnostics, "{}", path.display());
        assert_eq!(
            full.shapes.len(),
            unnamed.shapes.len(),
            "{}",
            path.display()
        );
        for (a, b) in full.shapes.iter().zip(&unnamed.shapes) {
            assert_eq!(a.path, b.path);
            assert_eq!(a.len(), b.len(), "{} {}", path.display(), a.path);
            for i in 0..a.len() {
                assert_eq!(
                    a.info(i),
                    b.info(i),
                    "{} {} value {i}",
                    path.display(),
                    a.path
                );
                assert_eq!(b.name(i), "");
                values += 1;
            }
        }
    }
    assert!(values > 100, "only {values} values compared");
}
