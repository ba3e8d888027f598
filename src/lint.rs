//! The pipeline, the one way in for every front end (the command line, the library example, the fuzz
//! targets, the coming Python binding): read the bytes, build the IR, run the structural checks beside
//! shape inference, and return the model with what the run found about it.
//!
//! ```text
//! Origin -> file::read -> file::decode -> ir::Model::build -> checks::run  } -> Findings
//!                                                           -> shape::infer }
//! ```
//!
//! The model ([`Model`]: the IR and its source bytes) and the findings ([`Findings`]: diagnostics and
//! inferred shapes) are two values: the IR is data and knows nothing of the analyses run on it, and a
//! caller that only wants the findings drops the model as soon as it has them.

use crate::diagnostics::{Diagnostic, MAX_PER_CODE_AND_GRAPH, cap};
use crate::file::decode::{decode_bytes_split, decode_file_split};
use crate::file::{Origin, read};
use crate::ir::{Model, NodeBatch};
use crate::shape::infer::{GraphShapes, Inference, infer_with};
use anyhow::Result;
use bytes::Bytes;

/// What a lint run found about a model.
#[derive(Debug, Default)]
pub struct Findings {
    /// Every finding, in a stable order: structural problems met while building the IR, then the
    /// structural checks, then shape inference (broadcast errors...); at most
    /// [`MAX_PER_CODE_AND_GRAPH`] of each code in each graph.
    pub diagnostics: Vec<Diagnostic>,
    /// What shape inference knows of every value of every graph inferred in its own right (empty
    /// unless [`LoadOptions::keep_shapes`]).
    pub shapes: Vec<GraphShapes>,
}

/// What a lint run keeps besides the findings.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Keep what inference found of every value in [`Findings::shapes`] (the `shapes` listing and the
    /// passes need it). Without it each value's type is freed after its last reader, and a large graph
    /// is checked in a fraction of the memory.
    pub keep_shapes: bool,
    /// Run the structural checks on a second thread, beside inference. A caller that already keeps
    /// every core busy (`check --jobs N` over many models) turns it off: two threads per model would
    /// only contend.
    pub parallel: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            keep_shapes: true,
            parallel: true,
        }
    }
}

/// Reads, decodes and checks the model at `origin` (a file is memory-mapped: weights stay in the
/// file). Structural problems and broadcast errors are findings; `Err` means the bytes could not be
/// read or are not a protobuf `ModelProto`.
pub fn load(origin: Origin) -> Result<(Model, Findings)> {
    load_with(origin, &LoadOptions::default())
}

/// [`load`], with what to keep (see [`LoadOptions`]).
pub fn load_with(origin: Origin, opts: &LoadOptions) -> Result<(Model, Findings)> {
    let content = read(&origin)?;
    match content.file {
        Some(file) if !content.bytes.is_empty() => {
            let d = decode_file_split::<NodeBatch>(&file, &content.bytes)?;
            let (mut model, built) = Model::build(d.model, d.main_nodes, content.bytes, origin);
            model.source_file = Some(std::sync::Arc::new(file));
            let findings = run(&model, built, opts);
            Ok((model, findings))
        }
        _ => from_bytes_with(content.bytes, origin, opts),
    }
}

/// Decodes `bytes` (zero-copy: tensor data stay slices of `bytes`), builds the IR and checks it.
/// `origin` says where the bytes came from (a file's folder anchors its external data).
pub fn from_bytes(bytes: Bytes, origin: Origin) -> Result<(Model, Findings)> {
    from_bytes_with(bytes, origin, &LoadOptions::default())
}

/// [`from_bytes`], with what to keep (see [`LoadOptions`]).
pub fn from_bytes_with(
    bytes: Bytes,
    origin: Origin,
    opts: &LoadOptions,
) -> Result<(Model, Findings)> {
    let d = decode_bytes_split::<NodeBatch>(&bytes)?;
    let (model, built) = Model::build(d.model, d.main_nodes, bytes, origin);
    let findings = run(&model, built, opts);
    Ok((model, findings))
}

/// Runs the structural checks and shape inference on a model built with [`Model::build`] (for a
/// caller that decoded it itself); `built` are the problems the build found, first in the findings.
pub fn run(model: &Model, built: Vec<Diagnostic>, opts: &LoadOptions) -> Findings {
    let (found, inference) = checks_and_inference(model, opts);
    let mut all = built;
    all.extend(found);
    all.extend(inference.diagnostics);
    Findings {
        diagnostics: cap(all, MAX_PER_CODE_AND_GRAPH),
        shapes: inference.graphs,
    }
}

/// Stack of the thread that runs the structural checks: as deep as the main thread's, since the checks
/// recurse into nested subgraphs as inference does.
const CHECKS_STACK: usize = 8 << 20;

/// Runs the structural checks and shape inference, on two threads when one can be had: they only
/// read the model, and on large graphs each takes a noticeable share of the load time.
fn checks_and_inference(model: &Model, opts: &LoadOptions) -> (Vec<Diagnostic>, Inference) {
    if !opts.parallel {
        let found = crate::checks::run(model);
        return (found, infer_with(model, opts.keep_shapes));
    }
    std::thread::scope(|s| {
        let checks = std::thread::Builder::new()
            .name("checks".to_owned())
            .stack_size(CHECKS_STACK)
            .spawn_scoped(s, || crate::checks::run(model));
        let inference = infer_with(model, opts.keep_shapes);
        let found = match checks.map(|h| h.join()) {
            Ok(Ok(found)) => found,
            // No thread to be had: run them here.
            Err(_) => crate::checks::run(model),
            // The checks panicked: that is a bug, and it must surface as one.
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
        };
        (found, inference)
    })
}
