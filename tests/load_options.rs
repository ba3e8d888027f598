//! `LoadOptions { keep_shapes: false }` (what `check` uses) frees each value's type after its last reader:
//! the findings must be exactly those of a full load, on every example model, broken ones included.

use onnx_lint::file::Origin;
use onnx_lint::lint::{self, LoadOptions};
use std::path::Path;

#[test]
fn findings_do_not_depend_on_keeping_the_shapes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut seen = 0;
    for dir in [root.clone(), root.join("broken")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "onnx") {
                continue;
            }
            let (_, full) = lint::load(Origin::File(path.clone())).unwrap();
            let (_, lean) = lint::load_with(
                Origin::File(path.clone()),
                &LoadOptions {
                    keep_shapes: false,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(full.diagnostics, lean.diagnostics, "{}", path.display());
            assert!(!full.shapes.is_empty(), "{}", path.display());
            assert!(lean.shapes.is_empty(), "{}", path.display());
            seen += 1;
        }
    }
    // The broken models hold E1s in subgraphs and functions, which read values through captures.
    assert!(seen >= 20, "only {seen} models");
}
