//! onnx-lint: load ONNX models into a petgraph IR without copying their weights, check their structure
//! and broadcasting, and write them back losslessly.
//!
//! The library is what the `onnx-lint` command runs; a Rust program can run the same steps. The crate
//! is in layers, each using only those below it (the order is written in `docs/design.md`
//! and enforced by `tests/it/layering.rs`):
//!
//! - [`file`](mod@file): bytes. A file is memory-mapped (weights stay in the file) or standard input read;
//!   [`file::decode`] decodes the protobuf without paging weights in; [`file::wire`] splices edits into
//!   the source bytes; [`file::atomic`] writes through a temporary file and a rename.
//! - [`diagnostics`]: findings as data. A [`diagnostics::Diagnostic`] carries a
//!   [`diagnostics::Code`] (E1 is a broadcast that fails for every input, W1 one that fails for some
//!   sizes of its symbols), the graph, node and op type, and for broadcasts the axis and the sizes in
//!   conflict.
//! - [`ir`]: the model as data. An [`ir::Model`] is the IR of every graph (subgraphs and model-local
//!   functions included) and the bytes it was decoded from; it knows nothing of the analyses built on
//!   it.
//! - [`checks`] (structural rules) and [`shape`] (shape inference and broadcast algebra) read the IR.
//! - [`passes`]: [`passes::explicit_broadcast`] proposes a [`passes::Patch`] that makes every implicit
//!   broadcast an explicit `Expand`; [`passes::fold_expand`] is its inverse; [`passes::annotate`]
//!   writes the inferred types into the graphs' `value_info`. A patch becomes a
//!   [`file::wire::Edit`] of the source bytes, and [`write::write_model`] writes it atomically:
//!   everything the patch does not touch is copied byte for byte, and external-data files are carried
//!   beside an output in another folder ([`write::carry`]). [`render`] formats findings as text, JSON,
//!   SARIF or GitHub annotations. [`settings`] decides what a run reports: rule selection, severity
//!   overrides, configuration files, suppressions with reasons and baselines.
//! - [`lint`]: the pipeline every front end calls: [`lint::load`] reads a model, builds its IR, runs
//!   the structural checks beside shape inference and returns the [`ir::Model`] and the
//!   [`lint::Findings`] (diagnostics and inferred shapes). A model that loads always yields findings;
//!   `Err` means the bytes are not an ONNX model at all.
//! - [`picture`] draws a graph with its findings; [`cli`] is the command line.
//!
//! Load a model, read its broadcast errors, make its broadcasts explicit and write the result:
//!
//! ```
//! use onnx_lint::diagnostics::{Code, has_errors};
//! use onnx_lint::file::Origin;
//! use onnx_lint::lint;
//! use onnx_lint::passes::explicit_broadcast::{self, Options};
//! use onnx_lint::write::{WriteOptions, write_model};
//!
//! let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
//!
//! // A model with a planted broadcast error: every E1 names its node, axis and sizes.
//! let (_, found) = lint::load(Origin::File(models.join("broken/e1_add.onnx")))?;
//! let errors: Vec<_> = found
//!     .diagnostics
//!     .iter()
//!     .filter(|d| d.code == Code::BroadcastError)
//!     .collect();
//! assert_eq!(errors.len(), 1);
//! let e1 = errors[0];
//! println!("{}: node {:?}, axis {:?}, sizes {:?}", e1.message, e1.node, e1.axis, e1.sizes);
//! assert_eq!(e1.sizes, vec![64, 63]);
//!
//! // A valid model: make every implicit broadcast explicit (the pass reads the inferred shapes) and
//! // write the result.
//! let (model, found) = lint::load(Origin::File(models.join("tiny_transformer.onnx")))?;
//! assert!(!has_errors(&found.diagnostics));
//! let outcome = explicit_broadcast::run(&model, &found.shapes, &Options::default())?;
//! assert!(!outcome.insertions.is_empty());
//! let dir = tempfile::tempdir()?;
//! let out = dir.path().join("explicit.onnx");
//! write_model(&model, &outcome.patch.to_edit(), &out, &WriteOptions::default())?;
//!
//! // The result loads, and no broadcasting node is left with inputs of different shapes.
//! let (again, found) = lint::load(Origin::File(out))?;
//! assert!(!has_errors(&found.diagnostics));
//! let left = explicit_broadcast::implicit_broadcasts(&again, &found.shapes, &Options::default());
//! assert!(left.is_empty(), "{left:?}");
//! # Ok::<(), anyhow::Error>(())
//! ```
//!
//! `examples/pipeline_step.rs` shows the library as a step of a deployment pipeline: it checks every
//! model it is given, fails on errors and writes the explicit form of the others.

pub mod checks;
pub mod cli;
pub mod diagnostics;
pub mod file;
pub mod ir;
pub mod lint;
pub mod passes;
pub mod picture;
pub mod proto;
pub mod render;
pub mod settings;
pub mod shape;
pub mod text;
pub mod write;
