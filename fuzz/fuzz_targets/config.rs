//! Raw bytes -> a configuration file (`onnx-lint.toml`, then `pyproject.toml`) -> its settings (rule
//! selectors, compiled glob patterns) -> applied to findings of models at a few paths, and described.
//! Must never panic, hang or allocate without bound, whatever the bytes: an unusable configuration is
//! an error message (exit 2), never a crash. `tests/it/reading/hostile_complexity.rs` runs the same steps over
//! generated configurations where cargo-fuzz is not installed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onnx_lint::diagnostics::{Code, Diagnostic};
use onnx_lint::settings::{RuleLayer, Settings};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for file in ["/repo/onnx-lint.toml", "/repo/pyproject.toml"] {
        let Ok(Some(s)) = Settings::from_text(text, Path::new(file), &RuleLayer::default()) else {
            continue;
        };
        for model in ["/repo/a.onnx", "/repo/legacy/deep/e1_add.onnx", "/elsewhere/b.onnx"] {
            let at = Some(Path::new(model));
            let mut d = Diagnostic::new(Code::BroadcastError, "main", "x");
            d.node = Some("/encoder/layer.0/Add".into());
            let _ = s.apply(at, vec![d, Diagnostic::new(Code::DeclaredShape, "main", "y")]);
            let _ = s.describe(model, at);
        }
        let _ = s.apply(None, Vec::new());
        let _ = s.unused();
    }
});
