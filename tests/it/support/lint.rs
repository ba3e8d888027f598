//! A model read as one with its lint run's findings (and inferred shapes), as the tests written before
//! the pipeline was split from the IR read it.

use bytes::Bytes;
use onnx_lint::file::Origin;
use onnx_lint::ir::Model;

/// A model and what its lint run found, read as one by the tests (the library keeps them apart).
pub struct Loaded {
    pub model: Model,
    pub diagnostics: Vec<onnx_lint::diagnostics::Diagnostic>,
    /// Read by the tests of inferred values; the others look at findings only.
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

/// The inferred shape of value `name` of the main graph, as `onnx-lint shapes` writes it.
pub fn shape_of(m: &Loaded, name: &str) -> String {
    let g = m.shapes.iter().find(|g| g.path == "main").expect("main");
    let info = g
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no value {name}"));
    onnx_lint::shape::dim::format_shape(&info.1.and_then(|i| i.shape.clone()))
}
