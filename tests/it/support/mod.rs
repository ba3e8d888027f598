//! What the integration tests share, written once: running the built binary with a hang guard
//! ([`binary`]), building models ([`proto`]), paths of the repository and temporary folders
//! ([`paths`]), reading a model with its findings ([`lint`]), and files compared with what the code
//! makes, with the one switch that rewrites them ([`snapshot`], `ONNX_LINT_BLESS=1`).

pub mod binary;
pub mod lint;
pub mod paths;
pub mod proto;
pub mod snapshot;
