//! onnx-lint: load ONNX models into a petgraph IR without copying their weights, check their structure
//! and broadcasting, and write them back losslessly.
//!
//! The library is what the `onnx-lint` command runs; a Rust program can run the same steps:
//!
//! - [`ir::Model::load`] reads a model (a file is memory-mapped; weights stay in the file), builds the
//!   IR of every graph (subgraphs and model-local functions included), runs the structural checks and
//!   shape inference, and keeps every finding in [`ir::Model::diagnostics`]. A model that loads always
//!   yields a `Model`; `Err` means the bytes are not an ONNX model at all.
//! - [`diagnostics::Diagnostic`]s carry a [`diagnostics::Code`] (E1 is a broadcast that fails for
//!   every input, W1 one that fails for some sizes of its symbols), the graph, node and op type, and for
//!   broadcasts the axis and the sizes in conflict. [`diagnostics::render`] formats them as text, JSON,
//!   SARIF or GitHub annotations.
//! - [`passes::explicit_broadcast`] proposes a [`passes::Patch`] that makes every implicit broadcast an
//!   explicit `Expand`; [`passes::fold_expand`] is its inverse. A patch becomes a wire-level
//!   [`wire::Edit`] of the source bytes, and [`write::write_model`] writes it atomically: everything the
//!   patch does not touch is copied byte for byte, and external-data files are carried beside an
//!   output in another folder ([`carry`]).
//!
//! Load a model, read its broadcast errors, make its broadcasts explicit and write the result:
//!
//! ```
//! use onnx_lint::diagnostics::{Code, has_errors};
//! use onnx_lint::io::Origin;
//! use onnx_lint::ir::Model;
//! use onnx_lint::passes::explicit_broadcast::{self, Options};
//! use onnx_lint::write::{WriteOptions, write_model};
//!
//! let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
//!
//! // A model with a planted broadcast error: every E1 names its node, axis and sizes.
//! let broken = Model::load(Origin::File(models.join("broken/e1_add.onnx")))?;
//! let errors: Vec<_> = broken
//!     .diagnostics
//!     .iter()
//!     .filter(|d| d.code == Code::BroadcastError)
//!     .collect();
//! assert_eq!(errors.len(), 1);
//! let e1 = errors[0];
//! println!("{}: node {:?}, axis {:?}, sizes {:?}", e1.message, e1.node, e1.axis, e1.sizes);
//! assert_eq!(e1.sizes, vec![64, 63]);
//!
//! // A valid model: make every implicit broadcast explicit and write the result.
//! let model = Model::load(Origin::File(models.join("tiny_transformer.onnx")))?;
//! assert!(!has_errors(&model.diagnostics));
//! let outcome = explicit_broadcast::run(&model, &Options::default())
//!     .map_err(anyhow::Error::msg)?;
//! assert!(!outcome.insertions.is_empty());
//! let dir = tempfile::tempdir()?;
//! let out = dir.path().join("explicit.onnx");
//! write_model(&model, &outcome.patch.to_edit(), &out, &WriteOptions::default())?;
//!
//! // The result loads, and no broadcasting node is left with inputs of different shapes.
//! let again = Model::load(Origin::File(out))?;
//! assert!(!has_errors(&again.diagnostics));
//! let left = explicit_broadcast::implicit_broadcasts(&again, &Options::default());
//! assert!(left.is_empty(), "{left:?}");
//! # Ok::<(), anyhow::Error>(())
//! ```
//!
//! `examples/pipeline_step.rs` shows the library as a step of a deployment pipeline: it checks every
//! model it is given, fails on errors and writes the explicit form of the others.

pub mod carry;
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
