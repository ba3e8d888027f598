//! The intermediate representation: a model's graphs as petgraph `StableDiGraph`s.
//!
//! Nodes are ONNX nodes plus one source node per graph input, initializer and captured outer-scope
//! value, so every edge has a producer. Edges are tensor values and carry the consumer's input slot
//! (`Add(x, x)` is two edges; an omitted optional input simply has no edge for its slot). A node that
//! owns subgraphs gets a `Capture` edge from every outer value its subgraphs read, so the outer graph's
//! topological order accounts for them. An op node's weight is its kind and an index into
//! [`Graph::nodes`], which holds the compact [`OpNode`]s; each input and output is resolved once to a
//! value ([`Graph::io`]), and the value holds the name (in [`Values`]). The graph's other protobuf
//! messages are moved, not copied, into the IR, and tensor bytes stay slices of the loaded buffer.

pub(crate) mod build;
mod model;
mod names;
mod node;
mod node_name;
pub mod tensor;
mod values;

pub use build::{build_graph, build_graph_from};
pub(crate) use model::ExternalLocations;
pub use model::{FUNCTION_PATH, Function, Imports, Model, opset_domain};
pub use names::NameIndex;
pub use node::{Interner, NamesOf, NodeBatch, NodeList, OpNode};
pub use values::{Value, Values};

use crate::proto::{
    GraphProto, NodeProto, SparseTensorProto, TensorProto, TypeProto, ValueInfoProto,
};
use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use std::num::NonZeroU32;

pub type NodeId = NodeIndex;

/// A count or position in one of a graph's lists, in the 32 bits the IR keeps it in. Lists are shorter
/// than 2^32 (every entry takes bytes of a protobuf of at most 2 GiB); past that it saturates, and then
/// finds nothing rather than another entry.
pub(crate) fn position(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Index of a value in [`Graph::values`]. Kept as the index plus one, so that an `Option<ValueId>`
/// takes four bytes: [`Graph::io`] holds one for every input and output of every node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(NonZeroU32);

impl ValueId {
    /// The id of `values[index]`. A graph has fewer than 2^32 - 1 values (each is named in a protobuf
    /// of at most 2 GiB); past that the id would saturate, never wrap to another value.
    pub fn new(index: usize) -> ValueId {
        ValueId(NonZeroU32::MIN.saturating_add(position(index)))
    }

    /// The position of the value in [`Graph::values`].
    pub fn index(self) -> usize {
        (self.0.get() - 1) as usize
    }
}

/// Where a graph's message lives in the model's bytes: (field number, occurrence) steps from the
/// `ModelProto` down. The writer follows it to splice changes in.
pub type WirePath = Vec<(u32, usize)>;

/// A graph: the main graph, a subgraph (If/Loop/Scan body...) or a model-local function's body.
#[derive(Debug)]
pub struct Graph {
    /// Path for diagnostics: `main`, `main/loop_1/body`, `function:custom.MyFn`.
    pub path: String,
    pub dag: StableDiGraph<Node, Edge>,
    pub values: Values,
    pub by_name: NameIndex,
    /// The types the graph declares for its values (input, value_info or output; the first declaration
    /// counts). Beside the values rather than in them: most values of a large graph have none.
    pub declared: hashbrown::HashMap<ValueId, TypeProto>,
    /// The values each op node reads and writes, resolved once when the graph is built: for the node
    /// with `io_start` k, its inputs then its outputs, in slot order; `None` for an omitted optional,
    /// an undefined name, or an output that redefines a name (the first definition keeps it). Walks
    /// read these instead of looking names up again: on graphs of millions of values each lookup is a
    /// handful of cache misses.
    pub io: Vec<Option<ValueId>>,
    /// The names of the `io` entries that are `None` but not empty (an undefined input, an output
    /// that redefines a name), by position in `io`. Every other entry's name is its value's.
    pub unresolved: hashbrown::HashMap<usize, Box<str>>,
    /// The `GraphProto` with its nodes moved into `dag`: inputs, outputs, initializers, value_info...
    /// For a function body, the inputs and outputs carry only names.
    pub header: GraphProto,
    /// Op nodes in the order the source lists them (their index is their occurrence on the wire).
    pub ops: Vec<NodeId>,
    /// What each op node is, in the same order as `ops`. Kept beside the petgraph graph rather than in
    /// its node weights: the decoder's vectors become this list without a copy, and walks over the
    /// graph's structure stay within a small node array.
    pub nodes: NodeList,
    /// Positions in `nodes` of the op nodes that own subgraphs, in source order: a walk of a
    /// million-node graph with none visits none.
    owners: Vec<u32>,
    /// Positions in `nodes` of the op nodes that have attributes, in source order: the walks for
    /// attribute tensors and types of a million-node graph of attribute-less nodes visit none. Four
    /// such walks each read the whole node array again: the load-time checks of
    /// `synthetic_1M_expanded` took 55.9 ms with them, 19.8 ms without (bench/HISTORY.md, "Issue 20,
    /// tenth session").
    attributed: Vec<u32>,
    /// All nodes in a topological order (source order where the dependencies allow); `None` when the
    /// graph has a cycle.
    pub topo: Option<Vec<NodeId>>,
    pub wire: WirePath,
    /// The field number of the node list in this graph's message (1 in `GraphProto`, 7 in `FunctionProto`).
    pub node_field: u32,
}

#[derive(Debug)]
pub struct Node {
    pub kind: NodeKind,
}

#[derive(Debug)]
/// Positions are 32-bit (as in `OpNode`): a petgraph node is then 16 bytes instead of 24, and a graph
/// has millions.
pub enum NodeKind {
    /// Op node `nodes[i]` (its position in the source node list).
    Op(u32),
    /// Graph input `header.input[i]`.
    Input(u32),
    /// Initializer `header.initializer[i]`.
    Initializer(u32),
    /// Sparse initializer `header.sparse_initializer[i]`.
    SparseInitializer(u32),
    /// A value read from an enclosing graph (its name is the name of the value it produces).
    Outer,
}

#[derive(Debug)]
pub struct Subgraph {
    /// Index of the attribute in `proto.attribute`.
    pub attribute: usize,
    /// Position in a GRAPHS attribute; `None` for a GRAPH attribute.
    pub item: Option<usize>,
    pub graph: Graph,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub value: ValueId,
    /// The [`Slot`] in four bytes where the enum takes eight (a graph has millions of edges): the
    /// input position, or [`Edge::CAPTURE`].
    slot: u32,
}

impl Edge {
    /// A capture's slot. Input positions stay below it: a node's inputs are counted in 32 bits and
    /// saturate at `u32::MAX` (see `NodeBatch::push`), so the last position is `u32::MAX - 1`.
    const CAPTURE: u32 = u32::MAX;

    pub fn new(value: ValueId, slot: Slot) -> Edge {
        let slot = match slot {
            Slot::Input(k) => k.min(Edge::CAPTURE - 1),
            Slot::Capture => Edge::CAPTURE,
        };
        Edge { value, slot }
    }

    pub fn slot(&self) -> Slot {
        match self.slot {
            Edge::CAPTURE => Slot::Capture,
            k => Slot::Input(k),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// The consumer's input position. (32 bits: a graph has millions of edges, and ONNX nodes a
    /// handful of inputs.)
    Input(u32),
    /// The consumer owns a subgraph that reads this value from the enclosing scope.
    Capture,
}

/// Where a tensor of a graph is stored (see [`Graph::each_tensor`]).
#[derive(Clone, Copy, Debug)]
pub enum TensorAt<'a> {
    Initializer,
    /// Part `values` or `indices` of the sparse initializer `name`.
    Sparse {
        part: &'static str,
        name: &'a str,
    },
    /// Attribute `attribute` of node `op`.
    Attribute {
        op: &'a OpNode,
        attribute: &'a str,
    },
}

impl Graph {
    pub fn value(&self, id: ValueId) -> Value<'_> {
        // The ids a graph hands out index its own values, which are never removed.
        self.values
            .get(id)
            .expect("a value id indexes the values of the graph that made it")
    }

    /// The type the graph declares for value `id`, if any.
    pub fn declared_type(&self, id: ValueId) -> Option<&TypeProto> {
        self.declared.get(&id)
    }

    pub fn lookup(&self, name: &str) -> Option<ValueId> {
        self.by_name.get(&self.values, name)
    }

    /// The op node behind `id`, if it is one.
    pub fn op(&self, id: NodeId) -> Option<&OpNode> {
        match self.dag.node_weight(id)?.kind {
            NodeKind::Op(k) => self.nodes.get(k as usize),
            _ => None,
        }
    }

    /// Op nodes in topological order (source order if the graph has a cycle).
    pub fn ops_in_order(&self) -> impl Iterator<Item = (NodeId, &OpNode)> {
        let order: &[NodeId] = self.topo.as_deref().unwrap_or(&self.ops);
        order
            .iter()
            .filter_map(|&id| self.op(id).map(|op| (id, op)))
    }

    /// Op nodes in source order. For whole-graph scans that do not need the topological order: the
    /// nodes' own memory in sequence, where going through [`Graph::ops`] reads the graph's node
    /// table and finds each node's run (a million-node graph missed the cache on each, and such
    /// scans took 1.4-1.8x as long per node at 1M nodes as at 100k; perf).
    pub fn ops_in_source_order(&self) -> impl Iterator<Item = &OpNode> {
        self.nodes.iter()
    }

    /// The op nodes that have attributes, in source order: [`Graph::ops_in_source_order`] without
    /// the nodes whose [`OpNode::attributes`] is empty.
    pub fn ops_with_attributes(&self) -> impl Iterator<Item = &OpNode> {
        self.attributed
            .iter()
            .filter_map(|&k| self.nodes.get(k as usize))
    }

    /// The value each input slot of `op` reads (see [`Graph::io`]).
    pub fn input_ids(&self, op: &OpNode) -> &[Option<ValueId>] {
        let n = op.num_inputs();
        self.io.get(op.io_start()..op.io_start() + n).unwrap_or(&[])
    }

    /// The value each output slot of `op` defines (see [`Graph::io`]).
    pub fn output_ids(&self, op: &OpNode) -> &[Option<ValueId>] {
        let start = op.io_start() + op.num_inputs();
        self.io.get(start..start + op.num_outputs()).unwrap_or(&[])
    }

    /// The name in entry `k` of [`Graph::io`]: its value's, or the name that did not resolve; empty
    /// for an omitted optional input or output.
    fn io_name(&self, k: usize) -> &str {
        match self.io.get(k).copied().flatten() {
            Some(id) => self.values.name(id),
            None => self.unresolved.get(&k).map_or("", |n| n),
        }
    }

    /// The name input `slot` of `op` reads (empty when omitted or past the last input).
    pub fn input_name(&self, op: &OpNode, slot: usize) -> &str {
        if slot < op.num_inputs() {
            self.io_name(op.io_start() + slot)
        } else {
            ""
        }
    }

    /// The name output `slot` of `op` defines (empty when omitted or past the last output).
    pub fn output_name(&self, op: &OpNode, slot: usize) -> &str {
        if slot < op.num_outputs() {
            self.io_name(op.io_start() + op.num_inputs() + slot)
        } else {
            ""
        }
    }

    /// The names of `op`'s inputs, in slot order (empty for an omitted optional input).
    pub fn input_names<'g>(&'g self, op: &'g OpNode) -> impl Iterator<Item = &'g str> + 'g {
        (0..op.num_inputs()).map(move |k| self.io_name(op.io_start() + k))
    }

    /// The names of `op`'s outputs, in slot order (empty for an omitted optional output).
    pub fn output_names<'g>(&'g self, op: &'g OpNode) -> impl Iterator<Item = &'g str> + 'g {
        let start = op.io_start() + op.num_inputs();
        (0..op.num_outputs()).map(move |k| self.io_name(start + k))
    }

    /// `op` as a `NodeProto` (without its graph-valued attributes, which are in `op.subgraphs()`).
    pub fn node_proto(&self, op: &OpNode) -> NodeProto {
        let own = |it: &mut dyn Iterator<Item = &str>| it.map(str::to_owned).collect();
        op.to_proto(
            own(&mut self.input_names(op)),
            own(&mut self.output_names(op)),
        )
    }

    pub fn initializer(&self, id: ValueId) -> Option<&TensorProto> {
        match self.dag.node_weight(self.value(id).producer.0)?.kind {
            NodeKind::Initializer(i) => self.header.initializer.get(i as usize),
            _ => None,
        }
    }

    pub fn sparse_initializer(&self, id: ValueId) -> Option<&SparseTensorProto> {
        match self.dag.node_weight(self.value(id).producer.0)?.kind {
            NodeKind::SparseInitializer(i) => self.header.sparse_initializer.get(i as usize),
            _ => None,
        }
    }

    /// Calls `f` on this graph and every graph nested in it, parents first.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Graph)) {
        f(self);
        for &k in &self.owners {
            for sub in self
                .nodes
                .get(k as usize)
                .map_or(&[][..], OpNode::subgraphs)
            {
                sub.graph.walk(f);
            }
        }
    }

    /// Calls `f` on every tensor stored in this graph (not in its subgraphs), with where it is:
    /// initializers, the values and indices of sparse initializers, then attribute tensors, in
    /// node order.
    pub fn each_tensor<'a>(&'a self, f: &mut dyn FnMut(&'a TensorProto, TensorAt<'a>)) {
        for t in &self.header.initializer {
            f(t, TensorAt::Initializer);
        }
        for s in &self.header.sparse_initializer {
            let name = s.values.as_ref().map(|v| v.name()).unwrap_or("");
            for (part, t) in [("values", &s.values), ("indices", &s.indices)] {
                if let Some(t) = t {
                    f(t, TensorAt::Sparse { part, name });
                }
            }
        }
        for op in self.ops_with_attributes() {
            for a in op.attributes() {
                let sparse = a.sparse_tensor.iter().chain(&a.sparse_tensors);
                let sparse_parts = sparse.flat_map(|s| s.values.iter().chain(&s.indices));
                for t in a.t.iter().chain(&a.tensors).chain(sparse_parts) {
                    f(
                        t,
                        TensorAt::Attribute {
                            op,
                            attribute: a.name(),
                        },
                    );
                }
            }
        }
    }

    /// The graph's declared inputs, outputs and value_info, in that order.
    pub fn declared_values(&self) -> impl Iterator<Item = &ValueInfoProto> {
        self.header
            .input
            .iter()
            .chain(&self.header.output)
            .chain(&self.header.value_info)
    }
}
