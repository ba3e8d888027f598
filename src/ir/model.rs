//! [`Model`]: a loaded ONNX model as data — the decoded header, the main graph and the model-local
//! functions as IR graphs, and the source bytes (for lossless writing). What a lint run finds about a
//! model (diagnostics, inferred shapes) is not part of it: the `lint` module reads the bytes,
//! builds the model with [`Model::build`] and runs the checks and inference on it.

use super::{Graph, NodeBatch, build_graph, build_graph_from};
use crate::diagnostics::Diagnostic;
use crate::file::Origin;
use crate::proto::{FunctionProto, GraphProto, ModelProto, ValueInfoProto};
use crate::text::same;
use bytes::Bytes;

use crate::file::schema::{
    function, model::FUNCTIONS as FUNCTIONS_FIELD, model::GRAPH as GRAPH_FIELD,
};

/// How the path of a function body, and of each of its subgraphs, begins: `function:DOMAIN.NAME`.
pub const FUNCTION_PATH: &str = "function:";

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
    /// `source_file`'s size and modification time when it was opened, for telling whether it changed
    /// while the model was read (`file::read::unchanged`).
    pub source_stamp: Option<crate::file::read::Stamp>,
    /// The `ModelProto` with `graph` and `functions` moved into the IR.
    pub header: ModelProto,
    pub graph: Option<Graph>,
    pub functions: Vec<Function>,
    /// The external-data locations of the model's tensors, first seen first: found by the
    /// external-data check as it visits every tensor (or when first asked for), so that a writer
    /// does not walk a graph of a million nodes again for them.
    pub(crate) external_locations: std::sync::OnceLock<Vec<String>>,
}

/// The canonical name of an operator-set domain: `ai.onnx` and the empty string are one domain.
pub fn opset_domain(domain: &str) -> &str {
    if domain == "ai.onnx" { "" } else { domain }
}

impl Model {
    /// Builds the IR of a decoded model; `source` must be the bytes it was decoded from, and
    /// `main_nodes` the main graph's nodes when the decoder decoded them apart, into the IR's own
    /// batches (it fills any [`crate::file::sink::NodeSink`]). Returns the model and the structural problems found while
    /// building it (undefined values, duplicate definitions, cycles...), in the order met: they are
    /// findings, never a reason not to build.
    pub fn build(
        mut header: ModelProto,
        main_nodes: Option<Vec<NodeBatch>>,
        source: Bytes,
        origin: Origin,
    ) -> (Model, Vec<Diagnostic>) {
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
        let model = Model {
            origin,
            source,
            source_file: None,
            source_stamp: None,
            header,
            graph,
            functions,
            external_locations: std::sync::OnceLock::new(),
        };
        (model, diagnostics)
    }

    /// The distinct external-data locations of the model's tensors (initializers, sparse ones, and
    /// tensors of node attributes), in the order first met.
    pub fn external_locations(&self) -> &[String] {
        self.external_locations.get_or_init(|| {
            let mut found = ExternalLocations::default();
            for g in self.graphs() {
                g.each_tensor(&mut |t, _| found.add(t));
            }
            found.list
        })
    }

    /// The model-local function `domain.name` (overload `overload`, empty for none).
    pub fn function(&self, domain: &str, name: &str, overload: &str) -> Option<&Function> {
        self.functions.iter().find(|f| {
            same(f.name(), name) && same(f.domain(), domain) && same(f.header.overload(), overload)
        })
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

/// Opset version by domain (`ai.onnx` as ""), looked up once per node. A model imports a handful of
/// domains, so a scan of them in a vector beats hashing; a domain imported twice takes its last
/// version, as the map this replaced did.
#[derive(Debug, Default, Clone)]
pub struct Imports<'a>(Vec<(&'a str, i64)>);

impl<'a> Imports<'a> {
    /// The version `domain` is imported at.
    pub fn get(&self, domain: &str) -> Option<&i64> {
        self.0
            .iter()
            .rev()
            .find(|(d, _)| same(d, domain))
            .map(|(_, v)| v)
    }

    pub fn contains_key(&self, domain: &str) -> bool {
        self.get(domain).is_some()
    }
}

impl<'a> FromIterator<(&'a str, i64)> for Imports<'a> {
    fn from_iter<I: IntoIterator<Item = (&'a str, i64)>>(iter: I) -> Self {
        Imports(iter.into_iter().collect())
    }
}

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
    let path = format!("{FUNCTION_PATH}{}.{}", f.domain(), f.name());
    let (body, _) = build_graph(
        proto,
        path,
        vec![(FUNCTIONS_FIELD, index)],
        function::NODE,
        None,
        diags,
    );
    Function { header: f, body }
}

/// The distinct external-data locations of tensors, in the order met (see
/// [`Model::external_locations`]).
#[derive(Default)]
pub(crate) struct ExternalLocations {
    seen: std::collections::HashSet<String>,
    pub list: Vec<String>,
}

impl ExternalLocations {
    pub fn add(&mut self, t: &crate::proto::TensorProto) {
        use crate::proto::tensor_proto::DataLocation;
        if t.data_location != Some(DataLocation::External as i32) {
            return;
        }
        for e in &t.external_data {
            if e.key() == "location" && self.seen.insert(e.value().to_owned()) {
                self.list.push(e.value().to_owned());
            }
        }
    }
}
