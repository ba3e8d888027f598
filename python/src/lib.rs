//! `onnx_lint._onnx_lint`: the Python extension behind the `onnx_lint` package. It calls the same
//! library functions the command does; the Python side (`python/onnx_lint/__init__.py`) turns models
//! (paths, bytes, `onnx.ModelProto`) into a path or bytes, and these results into its classes.
//!
//! Every call does its work on a thread of its own, with the interpreter released: other Python
//! threads run meanwhile (a thread pool checks models in parallel), the stack is as deep as the
//! command's whatever the calling thread's is, and a panic (a bug) ends that thread only and comes
//! back as a `RuntimeError` instead of taking the interpreter down.

use bytes::Bytes;
use clap::Parser;
use onnx_lint::diagnostics::{Code, Diagnostic, has_errors};
use onnx_lint::file::Origin;
use onnx_lint::file::budget::OutOfMemory;
use onnx_lint::ir::{Graph, Model, OpNode};
use onnx_lint::lint::{self, Findings, LoadOptions};
use onnx_lint::passes::annotate as annotate_pass;
use onnx_lint::passes::{explicit_broadcast, fold_expand};
use onnx_lint::render::{self, FileReport};
use onnx_lint::settings::{RuleLayer, Selector, Settings};
use onnx_lint::shape::bindings::{Bindings, Domain};
use onnx_lint::shape::dim::Dim;
use onnx_lint::shape::infer::GraphShapes;
use onnx_lint::write::{self, WriteOptions};
use pyo3::exceptions::{PyMemoryError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::borrow::Cow;
use std::collections::{HashMap, TryReserveError};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod buffer;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

pyo3::create_exception!(
    onnx_lint,
    LoadError,
    PyValueError,
    "The input is not an ONNX model: the bytes are not a protobuf ModelProto (truncated, corrupt, not \
     a model at all)."
);

/// Stack of the thread each call works on: twice the main thread's usual 8 MiB, which the command
/// runs on, so that nesting the command handles is handled here from any Python thread.
const WORK_STACK: usize = 16 << 20;

/// Longest load-error message kept whole; prost's field paths of deeply nested input run to kilobytes.
const MAX_ERROR_CHARS: usize = 2000;

/// Runs `f` on a thread of its own with the interpreter released; a panic becomes a `RuntimeError`.
fn work<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    work_on(py, true, f)
}

/// [`work`], with the interpreter released only when `release`: a model in a buffer that Python code
/// could change meanwhile (see [`Source::new`]) is checked with the interpreter held, so that no
/// Python thread runs while it is read.
fn work_on<T: Send>(py: Python<'_>, release: bool, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    let run = || {
        std::thread::scope(|s| {
            let spawned = std::thread::Builder::new()
                .name("onnx-lint".to_owned())
                .stack_size(WORK_STACK)
                .spawn_scoped(s, f);
            match spawned {
                Ok(handle) => handle.join(),
                // No thread to be had: the closure is gone with the failed spawn, so say so.
                Err(e) => Err(Box::new(format!("cannot start a thread: {e}")) as _),
            }
        })
    };
    // Held, the interpreter waits on the worker, which never touches Python: the buffer's release
    // (which needs the interpreter) is the caller's, after the call (`Source` outlives the work).
    let joined = if release { py.detach(run) } else { run() };
    joined.map_err(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        PyRuntimeError::new_err(format!(
            "onnx-lint failed on this input (a bug in onnx-lint; please report it): {what}"
        ))
    })
}

/// A model to load: a file (its folder anchors external data) or bytes held by the caller.
enum Source {
    Path(PathBuf),
    /// `frozen`: nothing Python does can change the bytes while they are checked (see
    /// [`Source::new`]); the interpreter is released only then.
    Data {
        bytes: Bytes,
        frozen: bool,
    },
}

impl Source {
    /// The model `path` names, or the one in `data`: `bytes` or any object with the buffer protocol
    /// (`bytearray`, `memoryview`, `mmap`, a NumPy array...), read where it lies, never copied.
    ///
    /// Over protobuf's 2 GiB limit, `data` is refused at once (a `ValueError`): no such model can be
    /// written, and walking one took minutes and gigabytes.
    ///
    /// Whether the bytes may change while they are read decides whether the interpreter is released:
    /// a `bytes` object, a `memoryview` of one and a read-only `mmap` (whose file may change under it
    /// exactly as the file `check(path)` maps may) are frozen; anything else (a `bytearray`, a
    /// writable mapping, an array) could be written by another Python thread, so it is read with the
    /// interpreter held, which no Python thread can write without. (Native code that writes it
    /// without the interpreter is the caller's race; the reads are bounds-checked against the
    /// length, which the held buffer keeps fixed: a `bytearray` cannot be resized, nor a `mmap`
    /// closed, while exported.)
    fn new(path: Option<PathBuf>, data: Option<Bound<'_, PyAny>>) -> PyResult<Source> {
        match (path, data) {
            (Some(p), None) => Ok(Source::Path(p)),
            (None, Some(d)) => {
                if let Ok(b) = d.cast::<PyBytes>() {
                    too_large(b.as_bytes().len())?;
                    let bytes = Bytes::from_owner(PyOwned::new(b.clone()));
                    return Ok(Source::Data {
                        bytes,
                        frozen: true,
                    });
                }
                let (bytes, frozen) = buffer::lend(&d)?;
                Ok(Source::Data { bytes, frozen })
            }
            _ => Err(PyValueError::new_err("give a path or bytes, not both")),
        }
    }

    /// Whether the interpreter can be released while the model is read.
    fn release(&self) -> bool {
        match self {
            Source::Path(_) => true,
            Source::Data { frozen, .. } => *frozen,
        }
    }

    fn path(&self) -> Option<&Path> {
        match self {
            Source::Path(p) => Some(p),
            Source::Data { .. } => None,
        }
    }

    fn load(&self, opts: &LoadOptions) -> anyhow::Result<(Model, Findings)> {
        match self {
            Source::Path(p) => lint::load_with(Origin::File(p.clone()), opts),
            // Bytes have no folder: external data cannot be resolved (an X001 finding says so).
            Source::Data { bytes, .. } => lint::from_bytes_with(bytes.clone(), Origin::Stdin, opts),
        }
    }
}

/// Refuses a model of `len` bytes over protobuf's limit.
fn too_large(len: usize) -> PyResult<()> {
    let max = write::MAX_PROTOBUF_BYTES;
    if len as u64 > max {
        return Err(PyValueError::new_err(format!(
            "the model is {len} bytes, over protobuf's 2 GiB limit ({max} bytes): no ONNX model \
             is that large; a model with large weights keeps them in external data (check it by \
             its path)"
        )));
    }
    Ok(())
}

/// A Python `bytes` object lent to the model without a copy: the model's tensors are slices of it.
struct PyOwned {
    _obj: Py<PyBytes>,
    ptr: *const u8,
    len: usize,
}

impl PyOwned {
    fn new(b: Bound<'_, PyBytes>) -> PyOwned {
        let s = b.as_bytes();
        PyOwned {
            ptr: s.as_ptr(),
            len: s.len(),
            _obj: b.unbind(),
        }
    }
}

impl AsRef<[u8]> for PyOwned {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: `ptr` and `len` are those of the buffer of a `bytes` object, which is immutable and
        // lives at least as long as the reference `_obj` holds; reading it needs no interpreter lock.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

// SAFETY: the buffer is immutable (read from any thread) and `Py<PyBytes>` is `Send`; pyo3 defers
// the decrement of a reference dropped without the interpreter lock until it is next held.
unsafe impl Send for PyOwned {}

/// The name the renderings give a model: its path as the OS gave it (any bytes, from a `str` with
/// surrogate escapes or `bytes`), shown as the command shows a path, invalid UTF-8 replaced.
fn shown(file: OsString) -> String {
    file.to_string_lossy().into_owned()
}

/// Why a call failed, as it is raised in Python.
enum Fail {
    Load(anyhow::Error),
    Refused(Checked),
    Pass(String),
    Write(anyhow::Error),
}

fn shorten(msg: String) -> String {
    let chars: Vec<char> = msg.chars().collect();
    if chars.len() <= MAX_ERROR_CHARS {
        return msg;
    }
    let head: String = chars[..MAX_ERROR_CHARS / 2].iter().collect();
    let tail: String = chars[chars.len() - MAX_ERROR_CHARS / 2..].iter().collect();
    format!("{head} ... {tail}")
}

/// A load that failed: an operating-system error on a path is an `OSError` (`FileNotFoundError`,
/// `PermissionError`, `IsADirectoryError`... as Python picks by errno), anything else a `LoadError`.
fn load_error(e: &anyhow::Error, path: Option<&Path>) -> PyErr {
    if let Some(err) = memory_error(e) {
        return err;
    }
    if let Some(path) = path
        && let Some(io) = e.chain().find_map(|c| c.downcast_ref::<std::io::Error>())
        && let Some(errno) = io.raw_os_error()
    {
        let text = io.to_string();
        let strerror = match text.find(" (os error") {
            Some(at) => text[..at].to_owned(),
            None => text,
        };
        return PyOSError::new_err((errno, strerror, path.as_os_str().to_os_string()));
    }
    // Named as the command names it ("cannot load PATH: ..."), unless the message already does.
    let text = format!("{e:#}");
    let text = match path {
        Some(p) if !text.contains(&*p.to_string_lossy()) => format!("{}: {text}", p.display()),
        _ => text,
    };
    LoadError::new_err(shorten(text))
}

/// An allocation the input asked for and the allocator refused (the library bounds what it decodes
/// and reserves fallibly where sizes come from the input) is a `MemoryError`, as Python's own are.
fn memory_error(e: &anyhow::Error) -> Option<PyErr> {
    e.chain()
        .any(|c| c.is::<OutOfMemory>() || c.is::<TryReserveError>())
        .then(|| PyMemoryError::new_err(shorten(format!("{e:#}"))))
}

impl Fail {
    fn into_py(self, path: Option<&Path>) -> PyErr {
        match self {
            Fail::Load(e) => load_error(&e, path),
            // The Python side turns this into `ModelHasErrors` carrying the report.
            Fail::Refused(c) => ModelRefused::new_err(Report::from(c)),
            Fail::Pass(why) => {
                PyValueError::new_err(format!("cannot make the broadcasts explicit: {why}"))
            }
            Fail::Write(e) => {
                memory_error(&e).unwrap_or_else(|| PyOSError::new_err(shorten(format!("{e:#}"))))
            }
        }
    }
}

pyo3::create_exception!(
    onnx_lint,
    ModelRefused,
    PyValueError,
    "Internal: raised with a report when a model with errors is not rewritten (the package re-raises \
     it as ModelHasErrors)."
);

/// A dimension as Python sees it: an int (known), a str (symbolic); `None` (unknown) is the `Option`
/// around it.
#[derive(Clone, Debug, IntoPyObject)]
enum PyDim {
    Known(u64),
    Sym(String),
}

type PyShape = Option<Vec<Option<PyDim>>>;

fn py_shape(shape: &Option<Vec<Dim>>) -> PyShape {
    shape.as_ref().map(|dims| {
        dims.iter()
            .map(|d| match d {
                Dim::Known(n) => Some(PyDim::Known(*n)),
                Dim::Unknown => None,
                sym => Some(PyDim::Sym(sym.to_string())),
            })
            .collect()
    })
}

/// The name and inferred shape of each input of a finding's node (an absent optional input has an
/// empty name and no shape).
type Inputs = Vec<(String, PyShape)>;

/// What a check found, before it is handed to Python.
struct Checked {
    file: String,
    diagnostics: Vec<Diagnostic>,
    inputs: Vec<Option<Inputs>>,
}

/// The inputs of the node of each finding that names one: looked up by graph path and node name in
/// the IR, their shapes in what inference kept (run again, keeping them, if the load did not: a
/// clean model never pays for it).
fn node_inputs(
    model: &Model,
    shapes: Vec<GraphShapes>,
    found: &[Diagnostic],
) -> Vec<Option<Inputs>> {
    if !found.iter().any(|d| d.node.is_some()) {
        return vec![None; found.len()];
    }
    let shapes = if shapes.is_empty() {
        onnx_lint::shape::infer::infer_with(model, true).graphs
    } else {
        shapes
    };
    let by_graph: HashMap<&str, HashMap<&str, PyShape>> = shapes
        .iter()
        .map(|g| {
            let mut values = HashMap::new();
            for (name, info) in g.iter() {
                values
                    .entry(name)
                    .or_insert_with(|| info.and_then(|i| py_shape(&i.shape)));
            }
            (g.path.as_str(), values)
        })
        .collect();
    // Each graph's nodes by label (the name findings give them: the node's name, `#i` for the i-th
    // node when it has none; the first of a name), made only for graphs that have a finding at
    // a node: looking each finding's node up by a scan would be quadratic on a capped list of a
    // million-node graph.
    let graphs = model.graphs();
    let mut nodes: HashMap<&str, (&Graph, HashMap<Cow<str>, &OpNode>)> = HashMap::new();
    for d in found.iter().filter(|d| d.node.is_some()) {
        if nodes.contains_key(d.graph.as_str()) {
            continue;
        }
        if let Some(g) = graphs.iter().find(|g| g.path == d.graph) {
            let mut by_name = HashMap::new();
            for (_, op) in g.ops_in_order() {
                by_name.entry(op.label()).or_insert(op);
            }
            nodes.insert(d.graph.as_str(), (g, by_name));
        }
    }
    found
        .iter()
        .map(|d| {
            let (graph, by_name) = nodes.get(d.graph.as_str())?;
            let op = by_name.get(d.node.as_deref()?)?;
            let values = by_graph.get(d.graph.as_str());
            Some(
                graph
                    .input_names(op)
                    .map(|name| {
                        let shape = values.and_then(|v| v.get(name).cloned()).flatten();
                        (name.to_owned(), shape)
                    })
                    .collect(),
            )
        })
        .collect()
}

/// The rule selection of a call: the defaults with `select` and `ignore` over them, no configuration
/// file (a library call does not depend on the folder it runs in).
fn settings(select: Option<Vec<String>>, ignore: Vec<String>) -> PyResult<Settings> {
    let parse =
        |v: &[String]| Selector::parse_all(v).map_err(|e| PyValueError::new_err(e.to_string()));
    let layer = RuleLayer {
        select: select.as_deref().map(parse).transpose()?,
        ignore: parse(&ignore)?,
        ..Default::default()
    };
    Ok(Settings::isolated(&layer))
}

/// Loads and checks `source` as `check` does, rules applied.
fn run_check(
    source: &Source,
    file: String,
    settings: &Settings,
    dims: Option<Arc<Bindings>>,
) -> Result<Checked, Fail> {
    let explicit = settings.wants(None, Code::ImplicitBroadcast);
    let opts = LoadOptions {
        keep_shapes: explicit,
        keep_names: false,
        dims,
        ..LoadOptions::default()
    };
    let (model, found) = source.load(&opts).map_err(Fail::Load)?;
    let Findings {
        mut diagnostics,
        shapes,
        ..
    } = found;
    if explicit {
        diagnostics.extend(explicit_broadcast::implicit_broadcasts(
            &model,
            &shapes,
            &explicit_broadcast::Options::default(),
        ));
    }
    let (diagnostics, _suppressed) = settings.apply(None, diagnostics);
    let inputs = node_inputs(&model, shapes, &diagnostics);
    Ok(Checked {
        file,
        diagnostics,
        inputs,
    })
}

/// The findings of one model, with the renderings of the command.
#[pyclass(frozen, module = "onnx_lint._onnx_lint")]
struct Report {
    checked: Checked,
}

impl From<Checked> for Report {
    fn from(checked: Checked) -> Report {
        Report { checked }
    }
}

impl Report {
    fn file_report(&self) -> FileReport {
        FileReport {
            file: self.checked.file.clone(),
            outcome: Ok(self.checked.diagnostics.clone()),
        }
    }
}

#[pymethods]
impl Report {
    /// The name the renderings give the model: its path, or `<bytes>`/`<ModelProto>`.
    #[getter]
    fn file(&self) -> &str {
        &self.checked.file
    }

    /// Every finding as a dict of its fields.
    fn diagnostics<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.checked
            .diagnostics
            .iter()
            .zip(&self.checked.inputs)
            .map(|(d, inputs)| {
                let o = PyDict::new(py);
                o.set_item("code", d.code.as_str())?;
                o.set_item("name", d.code.name())?;
                o.set_item("severity", d.severity.as_str())?;
                o.set_item("message", &d.message)?;
                o.set_item("graph", &d.graph)?;
                o.set_item("node", &d.node)?;
                o.set_item("op_type", &d.op_type)?;
                o.set_item("inner_node", &d.inner_node)?;
                o.set_item("contract", d.contract)?;
                o.set_item("axis", d.axis)?;
                o.set_item("sizes", &d.sizes)?;
                o.set_item("inputs", inputs.clone())?;
                o.set_item("notes", &d.notes)?;
                Ok(o)
            })
            .collect()
    }

    /// The document `onnx-lint check --format json` prints for this model.
    fn to_json(&self) -> String {
        render::json(std::slice::from_ref(&self.file_report()))
    }

    /// The SARIF 2.1.0 log `onnx-lint check --format sarif` prints for this model.
    fn to_sarif(&self) -> String {
        render::sarif(std::slice::from_ref(&self.file_report()))
    }
}

/// The bindings of `dims` (name, value as `check --dim` takes it: `"8"`, `"1..64"`), or a
/// ValueError naming the bad one.
fn bindings(dims: Vec<(String, String)>) -> PyResult<Option<Arc<Bindings>>> {
    let mut b = Bindings::default();
    for (name, value) in dims {
        let domain = Domain::parse(&value)
            .map_err(|e| PyValueError::new_err(format!("dims[{name:?}]: {e}")))?;
        b.insert(name, domain);
    }
    Ok((!b.is_empty()).then(|| Arc::new(b)))
}

/// `check(path, data, file, select, ignore, dims)`: loads and checks a model; see
/// `onnx_lint.check`.
#[pyfunction]
#[pyo3(signature = (path, data, file, select, ignore, dims=Vec::new()))]
fn check(
    py: Python<'_>,
    path: Option<PathBuf>,
    data: Option<Bound<'_, PyAny>>,
    file: OsString,
    select: Option<Vec<String>>,
    ignore: Vec<String>,
    dims: Vec<(String, String)>,
) -> PyResult<Report> {
    let settings = settings(select, ignore)?;
    let dims = bindings(dims)?;
    let source = Source::new(path, data)?;
    let file = shown(file);
    let checked = work_on(py, source.release(), || {
        run_check(&source, file, &settings, dims)
    })?;
    checked
        .map(Report::from)
        .map_err(|f| f.into_py(source.path()))
}

/// `shapes(path, data)`: `(graph, name, elem_type, shape)` for every value of every graph, as
/// `onnx-lint shapes --format json` lists them.
#[pyfunction]
#[pyo3(signature = (path, data))]
#[allow(clippy::type_complexity)]
fn shapes(
    py: Python<'_>,
    path: Option<PathBuf>,
    data: Option<Bound<'_, PyAny>>,
) -> PyResult<Vec<(String, String, Option<String>, PyShape)>> {
    let source = Source::new(path, data)?;
    let listed = work_on(py, source.release(), || {
        let (_, found) = source.load(&LoadOptions::default())?;
        let mut out = Vec::new();
        for g in found.shapes {
            for (name, info) in g.iter() {
                let elem = info
                    .and_then(|i| i.elem)
                    .map(onnx_lint::ir::tensor::elem_type_name);
                let shape = info.and_then(|i| py_shape(&i.shape));
                out.push((g.path.clone(), name.to_owned(), elem, shape));
            }
        }
        Ok::<_, anyhow::Error>(out)
    })?;
    listed.map_err(|e| load_error(&e, source.path()))
}

/// `dims(path, data, file, dims)`: the sizes report of a model as `onnx-lint dims --format json`
/// writes it (a JSON text); see `onnx_lint.dims`.
#[pyfunction]
#[pyo3(signature = (path, data, file, dims=Vec::new()))]
fn dims(
    py: Python<'_>,
    path: Option<PathBuf>,
    data: Option<Bound<'_, PyAny>>,
    file: OsString,
    dims: Vec<(String, String)>,
) -> PyResult<String> {
    let dims = bindings(dims)?.map(|b| (*b).clone()).unwrap_or_default();
    let source = Source::new(path, data)?;
    let file = shown(file);
    let made = work_on(py, source.release(), || {
        let report = match &source {
            Source::Path(p) => lint::sizes(Origin::File(p.clone()), &dims),
            Source::Data { bytes, .. } => {
                lint::sizes_from_bytes(bytes.clone(), Origin::Stdin, &dims)
            }
        }?;
        Ok::<_, anyhow::Error>(render::dims_json(&file, &report).to_string())
    })?;
    made.map_err(|e| load_error(&e, source.path()))
}

/// Which rewrite to run.
enum Pass {
    Expand(explicit_broadcast::Options),
    Fold,
    /// Write the inferred types into value_info; `force` annotates a model with errors too.
    Annotate {
        options: annotate_pass::Options,
        force: bool,
    },
    /// Remove every value_info entry.
    Strip,
}

/// Loads `source`, refuses it if it has errors, runs `pass`, and writes the result to `output` (as
/// the command does, external data carried) or returns its bytes.
fn rewrite(
    source: &Source,
    file: String,
    pass: Pass,
    output: Option<&Path>,
    in_place: bool,
) -> Result<Option<Vec<u8>>, Fail> {
    let (model, found) = source.load(&LoadOptions::default()).map_err(Fail::Load)?;
    // Stripping reads no shape, and `force` takes the model as it is.
    let unchecked = matches!(pass, Pass::Strip | Pass::Annotate { force: true, .. });
    if !unchecked && has_errors(&found.diagnostics) {
        let Findings {
            diagnostics,
            shapes,
            ..
        } = found;
        let inputs = node_inputs(&model, shapes, &diagnostics);
        return Err(Fail::Refused(Checked {
            file,
            diagnostics,
            inputs,
        }));
    }
    let edit = match &pass {
        Pass::Expand(opts) => explicit_broadcast::run(&model, &found.shapes, opts)
            .map_err(|e| Fail::Pass(e.to_string()))?
            .patch
            .into_edit(),
        Pass::Fold => fold_expand::run(&model, &found.shapes).patch.into_edit(),
        Pass::Annotate { options, .. } => annotate_pass::run(&model, &found.shapes, options).edit,
        Pass::Strip => annotate_pass::strip(&model).0,
    };
    drop(found);
    match output {
        Some(out) => {
            let opts = WriteOptions {
                in_place,
                ..Default::default()
            };
            write::write_model(&model, &edit, out, &opts).map_err(Fail::Write)?;
            Ok(None)
        }
        None => write::to_vec(&model, &edit).map(Some).map_err(Fail::Write),
    }
}

fn rewrite_py(
    py: Python<'_>,
    source: Source,
    file: OsString,
    pass: Pass,
    output: Option<PathBuf>,
    in_place: bool,
) -> PyResult<Option<Py<PyBytes>>> {
    let file = shown(file);
    let done = work_on(py, source.release(), || {
        rewrite(&source, file, pass, output.as_deref(), in_place)
    })?;
    match done {
        Ok(Some(bytes)) => Ok(Some(PyBytes::new(py, &bytes).unbind())),
        Ok(None) => Ok(None),
        Err(f) => Err(f.into_py(source.path())),
    }
}

/// `expand(path, data, file, output, keep_scalars, force_explicit, in_place)`: see `onnx_lint.expand`.
#[pyfunction]
#[pyo3(signature = (path, data, file, output, keep_scalars, force_explicit, in_place))]
#[allow(clippy::too_many_arguments)]
fn expand(
    py: Python<'_>,
    path: Option<PathBuf>,
    data: Option<Bound<'_, PyAny>>,
    file: OsString,
    output: Option<PathBuf>,
    keep_scalars: bool,
    force_explicit: bool,
    in_place: bool,
) -> PyResult<Option<Py<PyBytes>>> {
    let source = Source::new(path, data)?;
    let pass = Pass::Expand(explicit_broadcast::Options {
        keep_scalars,
        force_explicit,
    });
    rewrite_py(py, source, file, pass, output, in_place)
}

/// `fold(path, data, file, output, in_place)`: see `onnx_lint.fold`.
#[pyfunction]
#[pyo3(signature = (path, data, file, output, in_place))]
fn fold(
    py: Python<'_>,
    path: Option<PathBuf>,
    data: Option<Bound<'_, PyAny>>,
    file: OsString,
    output: Option<PathBuf>,
    in_place: bool,
) -> PyResult<Option<Py<PyBytes>>> {
    let source = Source::new(path, data)?;
    rewrite_py(py, source, file, Pass::Fold, output, in_place)
}

/// `annotate(path, data, file, output, expressions, outputs_too, strip, force, in_place)`: see
/// `onnx_lint.annotate`.
#[pyfunction]
#[pyo3(signature = (path, data, file, output, expressions, outputs_too, strip, force, in_place))]
#[allow(clippy::too_many_arguments)]
fn annotate(
    py: Python<'_>,
    path: Option<PathBuf>,
    data: Option<Bound<'_, PyAny>>,
    file: OsString,
    output: Option<PathBuf>,
    expressions: bool,
    outputs_too: bool,
    strip: bool,
    force: bool,
    in_place: bool,
) -> PyResult<Option<Py<PyBytes>>> {
    let source = Source::new(path, data)?;
    let pass = if strip {
        Pass::Strip
    } else {
        Pass::Annotate {
            options: annotate_pass::Options {
                expressions,
                outputs_too,
            },
            force,
        }
    };
    rewrite_py(py, source, file, pass, output, in_place)
}

/// `main(argv)`: runs the command line in this process and returns its exit status. Help, version
/// and usage errors are printed as the binary prints them (status 0 for help and version, 2 for a
/// usage error).
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> PyResult<u8> {
    let cli = match onnx_lint::cli::Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => {
            // As `Parser::parse` does before it exits: help and version to standard output,
            // errors to standard error.
            let _ = e.print();
            let code = e.exit_code();
            return Ok(u8::try_from(code).unwrap_or(2));
        }
    };
    work(py, move || {
        let code = onnx_lint::cli::run(cli);
        // A binary's standard output is flushed when it exits; a library's is not.
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        code
    })
}

#[pymodule]
fn _onnx_lint(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The command's version (the main crate's), which `onnx-lint --version` prints too.
    use clap::CommandFactory;
    let version = onnx_lint::cli::Cli::command()
        .get_version()
        .unwrap_or_default()
        .to_owned();
    m.add("__version__", version)?;
    m.add("LoadError", m.py().get_type::<LoadError>())?;
    m.add("ModelRefused", m.py().get_type::<ModelRefused>())?;
    m.add_class::<Report>()?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(shapes, m)?)?;
    m.add_function(wrap_pyfunction!(dims, m)?)?;
    m.add_function(wrap_pyfunction!(expand, m)?)?;
    m.add_function(wrap_pyfunction!(fold, m)?)?;
    m.add_function(wrap_pyfunction!(annotate, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    Ok(())
}
