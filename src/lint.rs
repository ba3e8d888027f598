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
use crate::shape::bindings::Bindings;
use crate::shape::infer::{GraphShapes, Inference, Keep, infer_bound};
use crate::shape::interface::{self, Interface};
use crate::shape::sizes::Report;
use anyhow::Result;
use bytes::Bytes;

/// What a lint run found about a model.
#[derive(Debug, Default)]
pub struct Findings {
    /// Every finding, in a stable order: structural problems met while building the IR, then the
    /// structural checks, then shape inference (broadcast errors...), then the interface contract's
    /// differences (C001, with [`LoadOptions::interface`]); at most
    /// [`MAX_PER_CODE_AND_GRAPH`] of each code in each graph.
    pub diagnostics: Vec<Diagnostic>,
    /// What shape inference knows of every value of every graph inferred in its own right (empty
    /// unless [`LoadOptions::keep_shapes`]).
    pub shapes: Vec<GraphShapes>,
    /// Conditions (W1, W2) that hold at every value of the ranges [`LoadOptions::dims`] gives, and
    /// so are not reported.
    pub proven: usize,
}

/// What a lint run keeps besides the findings.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Keep what inference found of every value in [`Findings::shapes`] (the `shapes` listing and the
    /// passes need it). Without it each value's type is freed after its last reader, and a large graph
    /// is checked in a fraction of the memory.
    pub keep_shapes: bool,
    /// With [`LoadOptions::keep_shapes`], keep each value's name beside its type (the `shapes`
    /// listing needs them; the passes read the types by value id, and leave them out).
    pub keep_names: bool,
    /// Run the structural checks on a second thread, beside inference. A caller that already keeps
    /// every core busy (`check --jobs N` over many models) turns it off: two threads per model would
    /// only contend.
    pub parallel: bool,
    /// Values of the model's input symbols (`--dim`, the configuration's `dims`): fixed sizes flow
    /// through inference, ranges decide W1 and W2 (see [`crate::shape::bindings`]). A name the model
    /// has no input dim of makes the load fail, naming those it has.
    pub dims: Option<std::sync::Arc<Bindings>>,
    /// The interface the configuration states (`interface`): the model's inputs and outputs are
    /// compared with it after inference, each difference a C001 finding. `None`: not compared.
    pub interface: Option<std::sync::Arc<Interface>>,
}

impl LoadOptions {
    /// What a pass needs: every value's type, by value id, without the values' names.
    pub fn for_pass() -> Self {
        LoadOptions {
            keep_names: false,
            ..Self::default()
        }
    }

    fn keep(&self) -> Keep {
        match (self.keep_shapes, self.keep_names) {
            (false, _) => Keep::Nothing,
            (true, false) => Keep::Types,
            (true, true) => Keep::TypesAndNames,
        }
    }
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            keep_shapes: true,
            keep_names: true,
            parallel: true,
            dims: None,
            interface: None,
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
    let Built { model, problems } = build(origin)?;
    check_dims(&model, opts)?;
    let findings = run(&model, problems, opts);
    // The checks read small tensors' bytes from the mapping: a file cut short meanwhile read as zeros.
    unchanged(&model)?;
    Ok((model, findings))
}

/// `Err` when [`LoadOptions::dims`] names a symbol the model's inputs do not have.
pub fn check_dims(model: &Model, opts: &LoadOptions) -> Result<()> {
    match &opts.dims {
        Some(b) => b.check_names(model).map_err(anyhow::Error::from),
        None => Ok(()),
    }
}

/// `Err` if the file `model` was read from changed (or was cut short under its mapping) since it was
/// opened: what was decoded and checked may not be what the file holds.
pub fn unchanged(model: &Model) -> Result<()> {
    crate::file::read::unchanged(
        &model.source,
        model.source_file.as_deref(),
        model.source_stamp,
        &model.origin,
    )
}

/// A model read, decoded and built into the IR, not yet checked (see [`build`]).
pub struct Built {
    pub model: Model,
    /// The structural problems the build found, first in the findings of [`run`].
    pub problems: Vec<Diagnostic>,
}

/// The first half of [`load`]: reads and builds the model at `origin`, for a caller that then runs
/// work of its own beside the checks and inference ([`run_beside`]).
pub fn build(origin: Origin) -> Result<Built> {
    let content = read(&origin)?;
    let decoded = match &content.file {
        Some(file) if content.mapped => decode_file_split::<NodeBatch>(file, &content.bytes),
        _ => decode_bytes_split::<NodeBatch>(&content.bytes),
    };
    // A file that changed under the decoder says so, rather than what its zeros decoded to.
    content.unchanged(&origin)?;
    let d = decoded?;
    let stamp = content.stamp;
    let (mut model, problems) = Model::build(d.model, d.main_nodes, content.bytes, origin);
    if let Some(file) = content.file {
        model.source_file = Some(std::sync::Arc::new(file));
        model.source_stamp = stamp;
    }
    Ok(Built { model, problems })
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
    let decoded = decode_bytes_split::<NodeBatch>(&bytes);
    // Bytes of a mapping (`file::read`'s) may have been cut short under the decoder.
    crate::file::read::unchanged(&bytes, None, None, &origin)?;
    let d = decoded?;
    let (model, built) = Model::build(d.model, d.main_nodes, bytes, origin);
    check_dims(&model, opts)?;
    let findings = run(&model, built, opts);
    crate::file::read::unchanged(&model.source, None, None, &model.origin)?;
    Ok((model, findings))
}

/// The sizes report of the model at `origin` (`onnx-lint dims`, see [`crate::shape::sizes`]), its
/// input symbols bound as `dims` says. `Err` when it cannot be loaded or `dims` names a symbol its
/// inputs do not have.
pub fn sizes(origin: Origin, dims: &Bindings) -> Result<Report> {
    let Built { model, .. } = build(origin)?;
    dims.check_names(&model)?;
    let report = crate::shape::sizes::report(&model, dims);
    unchanged(&model)?;
    Ok(report)
}

/// [`sizes`] of a model held in memory.
pub fn sizes_from_bytes(bytes: Bytes, origin: Origin, dims: &Bindings) -> Result<Report> {
    let decoded = decode_bytes_split::<NodeBatch>(&bytes);
    crate::file::read::unchanged(&bytes, None, None, &origin)?;
    let d = decoded?;
    let (model, _) = Model::build(d.model, d.main_nodes, bytes, origin);
    dims.check_names(&model)?;
    let report = crate::shape::sizes::report(&model, dims);
    crate::file::read::unchanged(&model.source, None, None, &model.origin)?;
    Ok(report)
}

/// Runs the structural checks and shape inference on a model built with [`Model::build`] (for a
/// caller that decoded it itself); `built` are the problems the build found, first in the findings.
pub fn run(model: &Model, built: Vec<Diagnostic>, opts: &LoadOptions) -> Findings {
    run_beside(model, built, opts, || ()).0
}

/// [`run`], and `beside` on the thread of the structural checks once they are done: inference takes
/// several times as long as the checks, and a caller's work that needs no shapes (a pass's look at
/// the model's names) fills the core they leave idle. Without [`LoadOptions::parallel`], `beside`
/// runs after inference.
pub fn run_beside<T: Send>(
    model: &Model,
    built: Vec<Diagnostic>,
    opts: &LoadOptions,
    beside: impl FnOnce() -> T + Send,
) -> (Findings, T) {
    let (found, inference, t) = checks_and_inference(model, opts, beside);
    let mut all = built;
    all.extend(found);
    all.extend(inference.diagnostics);
    if let Some(contract) = &opts.interface {
        all.extend(interface::check(
            model,
            contract,
            &inference.outputs,
            opts.dims.as_deref(),
        ));
    }
    let findings = Findings {
        diagnostics: cap(all, MAX_PER_CODE_AND_GRAPH),
        shapes: inference.graphs,
        proven: inference.proven,
    };
    (findings, t)
}

/// Stack of the thread that runs the structural checks: as deep as the main thread's, since the checks
/// recurse into nested subgraphs as inference does.
const CHECKS_STACK: usize = 8 << 20;

/// Runs the structural checks and shape inference, on two threads when one can be had: they only
/// read the model, and on large graphs each takes a noticeable share of the load time. `beside` runs
/// after the checks, on their thread.
fn checks_and_inference<T: Send>(
    model: &Model,
    opts: &LoadOptions,
    beside: impl FnOnce() -> T + Send,
) -> (Vec<Diagnostic>, Inference, T) {
    if !opts.parallel {
        let found = crate::checks::run(model);
        let inference = infer_bound(model, opts.keep(), opts.dims.as_deref());
        return (found, inference, beside());
    }
    // Shared, so that it is still here to run if no thread can be had.
    let beside = std::sync::Mutex::new(Some(beside));
    let work = || {
        let found = crate::checks::run(model);
        // Poisoned only by a panic in `beside`, which is resumed below.
        let f = beside.lock().ok().and_then(|mut b| b.take());
        (found, f.map(|f| f()))
    };
    let (found, inference, t) = std::thread::scope(|s| {
        let checks = std::thread::Builder::new()
            .name("checks".to_owned())
            .stack_size(CHECKS_STACK)
            .spawn_scoped(s, work);
        let inference = infer_bound(model, opts.keep(), opts.dims.as_deref());
        let (found, t) = match checks.map(|h| h.join()) {
            Ok(Ok(done)) => done,
            // No thread to be had: run them here.
            Err(_) => work(),
            // The checks panicked: that is a bug, and it must surface as one.
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
        };
        (found, inference, t)
    });
    match t {
        Some(t) => (found, inference, t),
        // `work` ran once, and took `beside` then.
        None => unreachable!("the work beside inference ran and returned"),
    }
}
