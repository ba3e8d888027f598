//! [`Model`]: a loaded ONNX model — the decoded header, the main graph and the model-local functions as
//! IR graphs, the source bytes (for lossless writing) and the diagnostics found while loading.

use super::{Graph, NodeBatch, build_graph, build_graph_from};
use crate::diagnostics::Diagnostic;
use crate::io::Origin;
use crate::proto::{FunctionProto, GraphProto, ModelProto, ValueInfoProto};
use anyhow::{Context, Result, bail};
use bytes::Bytes;
use prost::Message;

/// `ModelProto.graph`.
pub const GRAPH_FIELD: u32 = 7;
/// `ModelProto.functions`.
pub const FUNCTIONS_FIELD: u32 = 25;

/// A model-local function (IR >= 8): its header (attributes, opset imports...) and its body as a graph.
#[derive(Debug)]
pub struct Function {
    /// The `FunctionProto` with its nodes moved into `body`.
    pub header: FunctionProto,
    pub body: Graph,
}

impl Function {
    pub fn domain(&self) -> &str {
        self.header.domain()
    }
    pub fn name(&self) -> &str {
        self.header.name()
    }
}

#[derive(Debug)]
pub struct Model {
    pub origin: Origin,
    /// The bytes the model was decoded from. Tensor data in the IR are slices of these.
    pub source: Bytes,
    /// The open file `source` maps, when the model came from one: the writer copies unchanged spans
    /// from it inside the kernel (copy_file_range) instead of through memory.
    pub source_file: Option<std::sync::Arc<std::fs::File>>,
    /// The `ModelProto` with `graph` and `functions` moved into the IR.
    pub header: ModelProto,
    pub graph: Option<Graph>,
    pub functions: Vec<Function>,
    /// Findings of the load: structural checks, then shape inference (broadcast errors...).
    pub diagnostics: Vec<Diagnostic>,
    /// What shape inference knows of every value of every graph inferred in its own right.
    pub shapes: Vec<crate::shape::infer::GraphShapes>,
}

/// The canonical name of an operator-set domain: `ai.onnx` and the empty string are one domain.
pub fn opset_domain(domain: &str) -> &str {
    if domain == "ai.onnx" { "" } else { domain }
}

impl Model {
    /// Reads and decodes the model at `origin` and builds its IR. Structural problems are diagnostics
    /// (in `diagnostics`); `Err` means the bytes could not be read or are not a protobuf `ModelProto`.
    pub fn load(origin: Origin) -> Result<Model> {
        Model::load_with(origin, &LoadOptions::default())
    }

    /// [`Model::load`], with what to keep (see [`LoadOptions`]).
    pub fn load_with(origin: Origin, opts: &LoadOptions) -> Result<Model> {
        let content = crate::io::read(&origin)?;
        match content.file {
            Some(file) if !content.bytes.is_empty() => {
                let d = crate::decode::decode_file_split(&file, &content.bytes)?;
                let mut m = Model::from_parts(d.model, d.main_nodes, content.bytes, origin, opts);
                m.source_file = Some(std::sync::Arc::new(file));
                Ok(m)
            }
            _ => Model::from_bytes_with(content.bytes, origin, opts),
        }
    }

    /// Decodes `bytes` (zero-copy: tensor data stay slices of `bytes`) and builds the IR.
    pub fn from_bytes(bytes: Bytes, origin: Origin) -> Result<Model> {
        Model::from_bytes_with(bytes, origin, &LoadOptions::default())
    }

    fn from_bytes_with(bytes: Bytes, origin: Origin, opts: &LoadOptions) -> Result<Model> {
        if bytes.is_empty() {
            bail!("file is empty (0 bytes): not an ONNX model");
        }
        let header = ModelProto::decode(bytes.clone())
            .context("not an ONNX model: the protobuf does not decode as ModelProto")?;
        Ok(Model::from_parts(header, None, bytes, origin, opts))
    }

    /// Builds the IR of an already decoded model; `source` must be the bytes it was decoded from.
    pub fn from_proto_with_source(header: ModelProto, source: Bytes, origin: Origin) -> Model {
        Model::from_parts(header, None, source, origin, &LoadOptions::default())
    }

    /// [`Model::from_proto_with_source`], with the main graph's nodes given apart when the decoder
    /// decoded them so (see [`crate::decode::Decoded`]).
    pub fn from_parts(
        mut header: ModelProto,
        main_nodes: Option<Vec<NodeBatch>>,
        source: Bytes,
        origin: Origin,
        opts: &LoadOptions,
    ) -> Model {
        let mut diagnostics = Vec::new();
        let graph = header.graph.take().map(|mut g| {
            let nodes =
                main_nodes.unwrap_or_else(|| NodeBatch::from_protos(std::mem::take(&mut g.node)));
            let (graph, _) = build_graph_from(
                g,
                nodes,
                "main".to_owned(),
                vec![(GRAPH_FIELD, 0)],
                1,
                None,
                &mut diagnostics,
            );
            graph
        });
        let functions = std::mem::take(&mut header.functions)
            .into_iter()
            .enumerate()
            .map(|(i, f)| build_function(f, i, &mut diagnostics))
            .collect();
        let mut model = Model {
            origin,
            source,
            source_file: None,
            header,
            graph,
            functions,
            diagnostics,
            shapes: Vec::new(),
        };
        let (found, inference) = checks_and_inference(&model, opts);
        model.diagnostics.extend(found);
        model.diagnostics.extend(inference.diagnostics);
        model.shapes = inference.graphs;
        let all = std::mem::take(&mut model.diagnostics);
        model.diagnostics =
            crate::diagnostics::cap(all, crate::diagnostics::MAX_PER_CODE_AND_GRAPH);
        model
    }

    /// The model-local function `domain.name` (overload `overload`, empty for none).
    pub fn function(&self, domain: &str, name: &str, overload: &str) -> Option<&Function> {
        self.functions
            .iter()
            .find(|f| f.domain() == domain && f.name() == name && f.header.overload() == overload)
    }

    /// The version of `domain` the model imports (the first import, if imported twice).
    pub fn opset(&self, domain: &str) -> Option<i64> {
        let want = opset_domain(domain);
        self.header
            .opset_import
            .iter()
            .find(|o| opset_domain(o.domain()) == want)
            .map(|o| o.version())
    }

    /// Every graph of the model: the main graph, its subgraphs, then function bodies and theirs.
    pub fn graphs(&self) -> Vec<&Graph> {
        let mut out = Vec::new();
        if let Some(g) = &self.graph {
            g.walk(&mut |x| out.push(x));
        }
        for f in &self.functions {
            f.body.walk(&mut |x| out.push(x));
        }
        out
    }

    /// The opset imports in force in a graph: the function's own for a function body, the model's
    /// otherwise. `function` is the index of the function the graph belongs to.
    pub fn opset_imports(&self, function: Option<usize>) -> Imports<'_> {
        let imports = match function.and_then(|i| self.functions.get(i)) {
            Some(f) => &f.header.opset_import,
            None => &self.header.opset_import,
        };
        imports
            .iter()
            .map(|o| (opset_domain(o.domain()), o.version()))
            .collect()
    }
}

/// What [`Model::load_with`] keeps besides the findings.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Keep what inference found of every value in [`Model::shapes`] (the `shapes` listing and the
    /// passes need it). Without it each value's type is freed after its last reader, and a large graph
    /// is checked in a fraction of the memory.
    pub keep_shapes: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions { keep_shapes: true }
    }
}

/// Stack of the thread that runs the structural checks: as deep as the main thread's, since the checks
/// recurse into nested subgraphs as inference does.
const CHECKS_STACK: usize = 8 << 20;

/// Runs the structural checks and shape inference, on two threads when one can be had: they only
/// read the model, and on large graphs each takes a noticeable share of the load time.
fn checks_and_inference(
    model: &Model,
    opts: &LoadOptions,
) -> (Vec<Diagnostic>, crate::shape::infer::Inference) {
    std::thread::scope(|s| {
        let checks = std::thread::Builder::new()
            .name("checks".to_owned())
            .stack_size(CHECKS_STACK)
            .spawn_scoped(s, || crate::checks::run(model));
        let inference = crate::shape::infer::infer_with(model, opts.keep_shapes);
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

/// Opset version by domain (`ai.onnx` as ""). Looked up once per node, hence the fast hasher.
pub type Imports<'a> = hashbrown::HashMap<&'a str, i64>;

fn build_function(mut f: FunctionProto, index: usize, diags: &mut Vec<Diagnostic>) -> Function {
    let names = |v: &[String]| -> Vec<ValueInfoProto> {
        v.iter()
            .map(|n| ValueInfoProto {
                name: Some(n.clone()),
                ..Default::default()
            })
            .collect()
    };
    let proto = GraphProto {
        node: std::mem::take(&mut f.node),
        name: f.name.clone(),
        input: names(&f.input),
        output: names(&f.output),
        value_info: f.value_info.clone(),
        ..Default::default()
    };
    let path = format!("function:{}.{}", f.domain(), f.name());
    let (body, _) = build_graph(proto, path, vec![(FUNCTIONS_FIELD, index)], 7, None, diags);
    Function { header: f, body }
}
