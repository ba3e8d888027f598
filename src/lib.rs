//! onnx-lint: load ONNX models into a petgraph IR without copying their weights, check their structure
//! and broadcasting, and write them back losslessly.
//!
//! ```no_run
//! use onnx_lint::{io::Origin, ir::Model};
//! let model = Model::load(Origin::File("model.onnx".into()))?;
//! for d in &model.diagnostics {
//!     println!("{} {}", d.code, d.message);
//! }
//! # Ok::<(), anyhow::Error>(())
//! ```

pub mod checks;
pub mod cli;
pub mod decode;
pub mod diagnostics;
pub mod io;
pub mod ir;
pub mod passes;
pub mod picture;
pub mod proto;
pub mod shape;
pub mod wire;
pub mod write;
