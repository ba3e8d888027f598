//! [`OpNode`]: an ONNX node as the IR keeps it, and [`NodeBatch`]: nodes on their way into a graph.
//!
//! prost's `NodeProto` is 240 bytes plus a heap string for every name, input, output, op type and
//! domain; a graph of a million nodes spent half its memory there. An `OpNode` keeps the node's own
//! name, shares its op type and domain with every node of that kind ([`Interner`]), and keeps no input
//! or output names: the graph resolves those to values once ([`super::Graph::io`]), and the value holds
//! the name. Fields that checks and inference never read (`doc_string`, metadata) live in a box that
//! most nodes do not have.

use super::node_name::NodeName;
use super::{Subgraph, position};
use crate::file::sink::{NodeFields, NodeSink};
use crate::proto::{
    AttributeProto, NodeDeviceConfigurationProto, NodeProto, StringStringEntryProto,
};
use crate::text::{OpKey, same};
use std::borrow::Cow;
use std::sync::Arc;

/// An ONNX node. Graph-valued attributes are moved out of its attributes into its subgraphs.
#[derive(Debug)]
pub struct OpNode {
    name: NodeName,
    kind: Arc<OpKind>,
    /// Attributes, subgraphs and the rarely set fields, for the nodes that have any: most nodes of a
    /// large graph (Add, Mul, MatMul...) have none, and then this costs one pointer.
    extra: Option<Box<Extra>>,
    /// Position in the source node list. (32 bits, as `io_start`: a node costs at least two bytes of a
    /// protobuf of at most 2 GiB, and each of its inputs and outputs one more; past that these
    /// saturate, and lookups by them find nothing rather than another node's entries.)
    index: u32,
    /// Where this node's entries start in [`super::Graph::io`]: its inputs, then its outputs.
    io_start: u32,
    /// How many inputs the node has (fewer than 2^32: see [`NodeBatch::push`]).
    inputs: u32,
    /// How many outputs the node has, in the low [`COUNT_BITS`] bits (fewer than 2^28: see
    /// [`NodeBatch::push`]), and in the top four which of name, op_type and domain the record set (to
    /// an empty string, possibly; a node written back as a `NodeProto` is then the one that was read)
    /// and [`PLAIN_INPUTS`]. Together in one word, so that a node with its name in place takes 56
    /// bytes, as it did with its name boxed.
    outputs: u32,
}

/// The bits of [`OpNode::outputs`] that count the outputs.
const COUNT_BITS: u32 = 28;
const COUNT_MASK: u32 = (1 << COUNT_BITS) - 1;

/// What a node is: its op type in its domain, shared by every node of that kind.
#[derive(Debug, PartialEq, Eq, Hash)]
struct OpKind {
    domain: Box<str>,
    op_type: Box<str>,
}

#[derive(Debug, Default)]
struct Extra {
    attribute: Vec<AttributeProto>,
    subgraphs: Vec<Subgraph>,
    rare: Rare,
}

const NAME_SET: u32 = 1 << COUNT_BITS;
const OP_TYPE_SET: u32 = 2 << COUNT_BITS;
const DOMAIN_SET: u32 = 4 << COUNT_BITS;
/// See [`NodeFields::plain_inputs`].
const PLAIN_INPUTS: u32 = 8 << COUNT_BITS;

/// The fields of a `NodeProto` that few nodes set and no analysis reads.
#[derive(Debug, Default, Clone, PartialEq)]
struct Rare {
    overload: Option<String>,
    doc_string: Option<String>,
    metadata_props: Vec<StringStringEntryProto>,
    device_configurations: Vec<NodeDeviceConfigurationProto>,
}

impl OpNode {
    pub fn name(&self) -> &str {
        self.name.as_str()
    }
    pub fn op_type(&self) -> &str {
        &self.kind.op_type
    }
    /// True when the node's record holds each of its inputs in the shortest encoding (see
    /// [`NodeFields::plain_inputs`]).
    pub fn plain_inputs(&self) -> bool {
        self.outputs & PLAIN_INPUTS != 0
    }
    pub fn domain(&self) -> &str {
        &self.kind.domain
    }
    pub fn overload(&self) -> &str {
        self.extra
            .as_ref()
            .and_then(|e| e.rare.overload.as_deref())
            .unwrap_or("")
    }
    /// Position in the source node list.
    pub fn index(&self) -> usize {
        self.index as usize
    }

    /// Where this node's entries start in [`super::Graph::io`]: its inputs, then its outputs.
    pub fn io_start(&self) -> usize {
        self.io_start as usize
    }

    pub(crate) fn set_io_start(&mut self, at: usize) {
        self.io_start = position(at);
    }

    pub fn num_inputs(&self) -> usize {
        self.inputs as usize
    }
    pub fn num_outputs(&self) -> usize {
        (self.outputs & COUNT_MASK) as usize
    }

    /// The node's attributes (graph-valued ones without their graph, which is in [`OpNode::subgraphs`]).
    pub fn attributes(&self) -> &[AttributeProto] {
        self.extra.as_ref().map_or(&[], |e| &e.attribute)
    }

    /// The graphs of the node's GRAPH and GRAPHS attributes.
    pub fn subgraphs(&self) -> &[Subgraph] {
        self.extra.as_ref().map_or(&[], |e| &e.subgraphs)
    }

    pub(super) fn attributes_mut(&mut self) -> &mut [AttributeProto] {
        self.extra.as_mut().map_or(&mut [], |e| &mut e.attribute)
    }

    pub(super) fn add_subgraph(&mut self, sub: Subgraph) {
        self.extra
            .get_or_insert_with(Box::default)
            .subgraphs
            .push(sub);
    }

    /// The name diagnostics use for the node: its own, or `#index` when it has none.
    pub fn label(&self) -> Cow<'_, str> {
        match self.name() {
            "" => Cow::Owned(format!("#{}", self.index)),
            n => Cow::Borrowed(n),
        }
    }

    /// The first attribute called `name`.
    pub fn attr(&self, name: &str) -> Option<&AttributeProto> {
        self.attributes().iter().find(|a| a.name() == name)
    }

    /// The node as a `NodeProto` with the given input and output names (graph-valued attributes are
    /// not part of it once the node is in a graph: they are in its subgraphs).
    pub fn to_proto(&self, input: Vec<String>, output: Vec<String>) -> NodeProto {
        let rare = self
            .extra
            .as_ref()
            .map(|e| e.rare.clone())
            .unwrap_or_default();
        self.proto_with(input, output, self.attributes().to_vec(), rare)
    }

    /// [`OpNode::to_proto`], consuming the node.
    pub fn into_proto(mut self, input: Vec<String>, output: Vec<String>) -> NodeProto {
        let extra = self.extra.take().map(|e| *e).unwrap_or_default();
        self.proto_with(input, output, extra.attribute, extra.rare)
    }

    fn proto_with(
        &self,
        input: Vec<String>,
        output: Vec<String>,
        attribute: Vec<AttributeProto>,
        rare: Rare,
    ) -> NodeProto {
        let set = |bit: u32, s: &str| (self.outputs & bit != 0).then(|| s.to_owned());
        NodeProto {
            input,
            output,
            name: set(NAME_SET, self.name()),
            op_type: set(OP_TYPE_SET, self.op_type()),
            domain: set(DOMAIN_SET, self.domain()),
            overload: rare.overload,
            attribute,
            doc_string: rare.doc_string,
            metadata_props: rare.metadata_props,
            device_configurations: rare.device_configurations,
        }
    }
}

/// Hands out one shared `OpKind` for each op type and domain.
#[derive(Debug, Default)]
pub struct Interner {
    kinds: hashbrown::HashMap<(Box<str>, Box<str>), Arc<OpKind>>,
    /// The kind handed out last: nodes of one kind often come in runs.
    last: Option<Arc<OpKind>>,
}

impl Interner {
    fn get(&mut self, domain: &str, op_type: &str) -> Arc<OpKind> {
        if let Some(k) = &self.last
            && same(&k.op_type, op_type)
            && same(&k.domain, domain)
        {
            return k.clone();
        }
        let kind = match self.kinds.get(&OpKey(domain, op_type)) {
            Some(k) => k.clone(),
            None => {
                let k = Arc::new(OpKind {
                    domain: domain.into(),
                    op_type: op_type.into(),
                });
                self.kinds
                    .insert((domain.into(), op_type.into()), k.clone());
                k
            }
        };
        self.last = Some(kind.clone());
        kind
    }
}

/// A graph's op nodes by position in its source node list, kept in the runs the decoder made them in:
/// the two threads that decode a large graph each fill their own vector, and joining them would copy
/// every node once more into fresh memory.
#[derive(Debug, Default)]
pub struct NodeList {
    runs: Vec<Vec<OpNode>>,
    /// The position of each run's first node.
    starts: Vec<usize>,
}

impl NodeList {
    /// Appends a run of nodes (an empty one is dropped).
    pub fn push_run(&mut self, run: Vec<OpNode>) {
        if run.is_empty() {
            return;
        }
        self.starts.push(self.len());
        self.runs.push(run);
    }

    pub fn len(&self) -> usize {
        self.starts
            .last()
            .zip(self.runs.last())
            .map_or(0, |(start, run)| start + run.len())
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Which run holds node `k`, and where in it.
    fn locate(&self, k: usize) -> Option<(usize, usize)> {
        // Runs are few (one or two but for graphs of gigabytes of names): the search is a compare or two.
        let run = self.starts.partition_point(|&s| s <= k).checked_sub(1)?;
        Some((run, k - self.starts[run]))
    }

    pub fn get(&self, k: usize) -> Option<&OpNode> {
        let (run, at) = self.locate(k)?;
        self.runs.get(run)?.get(at)
    }

    /// The nodes in source order, run after run: a scan of the runs' memory, without the lookups
    /// that [`NodeList::get`] makes for each node.
    pub fn iter(&self) -> impl Iterator<Item = &OpNode> {
        self.runs.iter().flatten()
    }

    pub fn get_mut(&mut self, k: usize) -> Option<&mut OpNode> {
        let (run, at) = self.locate(k)?;
        self.runs.get_mut(run)?.get_mut(at)
    }
}

/// Nodes of one graph, in source order, on their way into the IR. Their input and output names are
/// kept in one string: decoding a million nodes then allocates no string per name.
#[derive(Debug)]
pub struct NodeBatch {
    names: String,
    /// 0, then where in `names` each node's inputs then outputs end, node after node: name k is
    /// `bounds[k]..bounds[k + 1]` (four bytes per name, where a (start, length) pair took eight).
    bounds: Vec<u32>,
    nodes: Vec<OpNode>,
    interner: Interner,
}

impl Default for NodeBatch {
    fn default() -> Self {
        NodeBatch::with_capacity(0, 0)
    }
}

impl NodeSink for NodeBatch {
    fn with_capacity(nodes: usize, bytes: usize) -> Self {
        NodeBatch {
            names: String::with_capacity(bytes),
            // Most nodes have one to three inputs and one output.
            bounds: {
                let mut bounds = Vec::with_capacity(nodes.saturating_mul(3).saturating_add(1));
                bounds.push(0);
                bounds
            },
            nodes: Vec::with_capacity(nodes),
            interner: Interner::default(),
        }
    }

    // Name offsets are 32-bit; a fuller batch is followed by another.
    fn has_room(&self, more: usize) -> bool {
        self.names
            .len()
            .checked_add(more)
            .is_some_and(|n| n <= u32::MAX as usize)
    }

    fn push<'a>(
        &mut self,
        index: usize,
        fields: NodeFields<'_>,
        inputs: impl ExactSizeIterator<Item = &'a str>,
        outputs: impl ExactSizeIterator<Item = &'a str>,
    ) {
        // A node with 2^32 inputs would be a file of 8 GB of empty names, one with 2^28 outputs of
        // 512 MB: not a model; its names are then cut to the first 2^32 - 1 inputs and 2^28 - 1
        // outputs, and nothing indexes past them.
        let n_in = position(inputs.len());
        let n_out = position(outputs.len()).min(COUNT_MASK);
        let (inputs, outputs) = (inputs.take(n_in as usize), outputs.take(n_out as usize));
        for s in inputs.chain(outputs) {
            self.names.push_str(s);
            // `has_room` was asked for the whole node: this conversion cannot truncate.
            self.bounds.push(self.names.len() as u32);
        }
        let rare = Rare {
            overload: fields.overload,
            doc_string: fields.doc_string,
            metadata_props: fields.metadata_props,
            device_configurations: fields.device_configurations,
        };
        let present = [
            (fields.name, NAME_SET),
            (fields.op_type, OP_TYPE_SET),
            (fields.domain, DOMAIN_SET),
        ]
        .iter()
        .filter(|(f, _)| f.is_some())
        .fold(0, |acc, (_, bit)| acc | bit)
            | if fields.plain_inputs { PLAIN_INPUTS } else { 0 };
        let extra = (!fields.attribute.is_empty() || rare != Rare::default()).then(|| {
            Box::new(Extra {
                attribute: fields.attribute,
                subgraphs: Vec::new(),
                rare,
            })
        });
        self.nodes.push(OpNode {
            name: NodeName::new(fields.name.unwrap_or("")),
            kind: self
                .interner
                .get(fields.domain.unwrap_or(""), fields.op_type.unwrap_or("")),
            extra,
            index: position(index),
            io_start: 0,
            inputs: n_in,
            outputs: n_out | present,
        });
    }
}

impl NodeBatch {
    /// Nodes decoded by prost (subgraphs, function bodies, models decoded whole), in as many batches as
    /// their names need.
    pub fn from_protos(nodes: Vec<NodeProto>) -> Vec<NodeBatch> {
        let mut out = vec![NodeBatch::default()];
        for (index, n) in nodes.into_iter().enumerate() {
            let bytes: usize = n.input.iter().chain(&n.output).map(String::len).sum();
            if out.last().is_some_and(|b| !b.has_room(bytes)) {
                out.push(NodeBatch::default());
            }
            let Some(batch) = out.last_mut() else { break };
            let NodeProto {
                input,
                output,
                name,
                op_type,
                domain,
                overload,
                attribute,
                doc_string,
                metadata_props,
                device_configurations,
            } = n;
            let fields = NodeFields {
                name: name.as_deref(),
                op_type: op_type.as_deref(),
                domain: domain.as_deref(),
                overload,
                attribute,
                doc_string,
                metadata_props,
                device_configurations,
                plain_inputs: false,
            };
            batch.push(
                index,
                fields,
                input.iter().map(String::as_str),
                output.iter().map(String::as_str),
            );
        }
        out
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The bytes of the input and output names of the batch's nodes.
    pub fn text_len(&self) -> usize {
        self.names.len()
    }

    /// How many input and output entries the batch's nodes have in all.
    pub fn io_len(&self) -> usize {
        self.bounds.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The nodes back as `NodeProto`s, in order.
    pub fn into_protos(self) -> Vec<NodeProto> {
        let (nodes, names) = self.into_parts();
        let mut at = 0;
        nodes
            .into_iter()
            .map(|op| {
                let of = names.of(at, op.num_inputs(), op.num_outputs());
                at += op.num_inputs() + op.num_outputs();
                let own = |it: &mut dyn Iterator<Item = &str>| it.map(str::to_owned).collect();
                op.into_proto(own(&mut of.inputs()), own(&mut of.outputs()))
            })
            .collect()
    }

    /// The nodes, and apart from them their input and output names.
    pub fn into_parts(self) -> (Vec<OpNode>, BatchNames) {
        (
            self.nodes,
            BatchNames {
                names: self.names,
                bounds: self.bounds,
            },
        )
    }
}

/// The input and output names of a batch's nodes.
#[derive(Debug, Default)]
pub struct BatchNames {
    names: String,
    bounds: Vec<u32>,
}

impl BatchNames {
    /// The names of the node with `inputs` inputs and `outputs` outputs whose first name is the
    /// `at`-th of the batch.
    pub fn of(&self, at: usize, inputs: usize, outputs: usize) -> NamesOf<'_> {
        NamesOf {
            names: &self.names,
            bounds: self.bounds.get(at..=at + inputs + outputs).unwrap_or(&[]),
            inputs,
        }
    }
}

/// The input and output names of one node of a [`NodeBatch`].
#[derive(Clone, Copy)]
pub struct NamesOf<'b> {
    names: &'b str,
    /// Where the node's names start and end: name k is `bounds[k]..bounds[k + 1]`.
    bounds: &'b [u32],
    inputs: usize,
}

impl<'b> NamesOf<'b> {
    fn get(&self, k: usize) -> &'b str {
        self.bounds
            .get(k)
            .zip(self.bounds.get(k + 1))
            .and_then(|(&s, &e)| self.names.get(s as usize..e as usize))
            .unwrap_or("")
    }
    pub fn input(&self, slot: usize) -> &'b str {
        if slot < self.inputs {
            self.get(slot)
        } else {
            ""
        }
    }
    pub fn output(&self, slot: usize) -> &'b str {
        self.get(self.inputs + slot)
    }
    pub fn inputs(&self) -> impl Iterator<Item = &'b str> + '_ {
        (0..self.inputs).map(|k| self.get(k))
    }
    pub fn outputs(&self) -> impl Iterator<Item = &'b str> + '_ {
        (self.inputs..self.bounds.len().saturating_sub(1)).map(|k| self.get(k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pushed(name: Option<&str>, outputs: usize, plain: bool) -> OpNode {
        let mut batch = NodeBatch::with_capacity(1, 64);
        let fields = NodeFields {
            name,
            op_type: Some("Add"),
            domain: None,
            overload: None,
            attribute: Vec::new(),
            doc_string: None,
            metadata_props: Vec::new(),
            device_configurations: Vec::new(),
            plain_inputs: plain,
        };
        let outs: Vec<String> = (0..outputs).map(|k| format!("y{k}")).collect();
        batch.push(
            7,
            fields,
            ["a", "b"].into_iter(),
            outs.iter().map(String::as_str),
        );
        let (mut nodes, _) = batch.into_parts();
        nodes.pop().expect("one node pushed")
    }

    #[test]
    fn counts_and_flags_share_a_word_without_mixing() {
        let op = pushed(Some("add_1"), 3, true);
        assert_eq!((op.num_inputs(), op.num_outputs()), (2, 3));
        assert!(op.plain_inputs());
        let proto = op.to_proto(vec![], vec![]);
        assert_eq!(
            (
                proto.name.as_deref(),
                proto.op_type.as_deref(),
                proto.domain
            ),
            (Some("add_1"), Some("Add"), None)
        );
        let op = pushed(None, 0, false);
        assert_eq!(
            (op.num_outputs(), op.plain_inputs(), op.name()),
            (0, false, "")
        );
        assert_eq!(op.to_proto(vec![], vec![]).name, None);
        let long = "n".repeat(40);
        assert_eq!(pushed(Some(&long), 1, false).name(), long);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_node_takes_56_bytes() {
        // A million-node graph holds a million of them; the name kept in place must not grow it.
        assert_eq!(std::mem::size_of::<OpNode>(), 56);
    }
}
