//! Helpers shared by integration tests: a model read as one with its lint run's findings, as the tests
//! written before the pipeline was split from the IR read it.

use bytes::Bytes;
use onnx_lint::file::Origin;
use onnx_lint::ir::Model;

/// A model and what its lint run found, read as one by the tests (the library keeps them apart).
pub struct Loaded {
    pub model: Model,
    pub diagnostics: Vec<onnx_lint::diagnostics::Diagnostic>,
    /// Read by the tests of inferred values; the others look at findings only.
    #[allow(dead_code)]
    pub shapes: Vec<onnx_lint::shape::infer::GraphShapes>,
}

impl std::ops::Deref for Loaded {
    type Target = Model;
    fn deref(&self) -> &Model {
        &self.model
    }
}

/// Decodes and lints `bytes` as `onnx-lint` would read them from standard input.
pub fn lint_bytes(bytes: Bytes) -> anyhow::Result<Loaded> {
    let (model, found) = onnx_lint::lint::from_bytes(bytes, Origin::Stdin)?;
    Ok(Loaded {
        model,
        diagnostics: found.diagnostics,
        shapes: found.shapes,
    })
}
