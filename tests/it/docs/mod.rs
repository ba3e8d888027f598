//! The documentation is complete and true: `docs/rules.md` (what `onnx-lint explain` prints) against
//! the codes the binary reports, and its example models in `docs/examples/`; every command transcript
//! of the README and of `docs/` against what the binary prints.

mod rules_doc;
// The commands that write files run in a folder of symbolic links.
#[cfg(unix)]
mod transcripts;
