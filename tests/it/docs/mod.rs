//! The documentation is complete and true: `docs/rules.md` (what `onnx-lint explain` prints) against
//! the codes the binary reports, and its example models in `docs/examples/`.

mod rules_doc;
