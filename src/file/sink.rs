//! What the decoder hands over for each node record of a main graph, and to whom: a [`NodeFields`]
//! record into a [`NodeSink`]. Apart from the decoder so that the IR, which implements the sink (its
//! compact `NodeBatch`), depends on this interface only, never on the decoder itself.

use crate::proto::{AttributeProto, NodeDeviceConfigurationProto, StringStringEntryProto};

/// The parts of a node record the decoder fills in, besides its input and output names; a
/// [`NodeSink`] makes its own node of them.
#[derive(Debug, Default)]
pub struct NodeFields<'a> {
    pub name: Option<&'a str>,
    pub op_type: Option<&'a str>,
    pub domain: Option<&'a str>,
    pub overload: Option<String>,
    pub attribute: Vec<AttributeProto>,
    pub doc_string: Option<String>,
    pub metadata_props: Vec<StringStringEntryProto>,
    pub device_configurations: Vec<NodeDeviceConfigurationProto>,
    /// True when the decoder read every input of the record in its shortest encoding (a one-byte
    /// tag and the shortest length), so that a writer can tell a rewired input's new length from
    /// its name's alone. False when not known (a node decoded by prost).
    pub plain_inputs: bool,
}

/// Where the decoder puts the main graph's nodes: a batch of nodes in source order, which the decoder
/// fills until its names no longer fit ([`NodeSink::has_room`]) and then starts another. The IR's
/// `NodeBatch` is the sink a load uses; [`NodeProtos`](super::decode::NodeProtos) gives prost's `NodeProto`s.
pub trait NodeSink: Default + Send {
    /// An empty batch with room for `nodes` nodes and `bytes` bytes of names.
    fn with_capacity(nodes: usize, bytes: usize) -> Self;
    /// Whether `more` bytes of names still fit.
    fn has_room(&self, more: usize) -> bool;
    /// Adds a node, its position in the graph's node list being `index`.
    fn push<'a>(
        &mut self,
        index: usize,
        fields: NodeFields<'_>,
        inputs: impl ExactSizeIterator<Item = &'a str>,
        outputs: impl ExactSizeIterator<Item = &'a str>,
    );
}
