//! Passes: analyses that propose changes to a model as a [`Patch`] (nodes to insert, inputs to rewire,
//! initializers to add) instead of mutating it. Applying a patch is separate: [`Patch::to_edit`] turns
//! it into a wire-level edit of the source bytes, so everything the patch does not mention is written
//! back exactly as it was read.
//!
//! Passes read what shape inference found (`shape::infer::GraphShapes`, as a lint run returns it in
//! `lint::Findings::shapes`) beside the model: the IR does not hold it.

pub mod explicit_broadcast;
pub mod fold_expand;

use crate::file::wire::{Action, Edit, LEN, write_len_record, write_varint};
use crate::ir::{Graph, Model, WirePath};
use crate::proto::{NodeProto, TensorProto, ValueInfoProto};
use crate::shape::infer::GraphShapes;
use prost::Message;
use std::collections::{BTreeSet, HashMap};

/// What inference knows of each graph's values (in value-id order), by graph path.
pub(crate) type ShapesByPath<'m> = HashMap<&'m str, &'m GraphShapes>;

pub(crate) fn shapes_by_path(shapes: &[GraphShapes]) -> ShapesByPath<'_> {
    shapes.iter().map(|g| (g.path.as_str(), g)).collect()
}

/// Every graph of `model` (main graph, subgraphs, function bodies), parents first, with the index of
/// the function it belongs to (whose opset imports are in force there).
pub(crate) fn all_graphs(model: &Model) -> Vec<(&Graph, Option<usize>)> {
    let mut graphs: Vec<(&Graph, Option<usize>)> = Vec::new();
    if let Some(g) = &model.graph {
        g.walk(&mut |x| graphs.push((x, None)));
    }
    for (i, f) in model.functions.iter().enumerate() {
        f.body.walk(&mut |x| graphs.push((x, Some(i))));
    }
    graphs
}

/// Changes to one graph (main graph, subgraph or function body), located by its wire path.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GraphPatch {
    pub path: String,
    pub wire: WirePath,
    /// Field number of the node list in the graph's message (1 in GraphProto, 7 in FunctionProto).
    pub node_field: u32,
    /// New nodes to insert just before the node at a source position, in order, as the records of
    /// the graph's node field: (position, records), sorted by position. Encoded as they are made (a
    /// rewrite of a million nodes would otherwise hold two million `NodeProto`s), in a sorted vector
    /// rather than a map because passes make them in source order (each one an append) and a map's
    /// nodes cost more than the records they point to.
    insert_before: Vec<(usize, Vec<u8>)>,
    /// How many nodes `insert_before` holds.
    inserted: usize,
    /// ((node position, input slot), the value name that input now reads), sorted, as `insert_before`.
    rewire: Vec<((usize, usize), String)>,
    /// Initializers appended to the graph (a GraphProto; function bodies use Constant nodes instead).
    pub initializers: Vec<TensorProto>,
    /// Graph inputs appended (models of IR version < 4 list every initializer as an input too).
    pub inputs: Vec<ValueInfoProto>,
    /// (node position, attribute position) of attributes to remove.
    pub drop_attributes: BTreeSet<(usize, usize)>,
    /// Positions of nodes to remove (their rewires and attribute changes, if any, go with them).
    pub remove_nodes: BTreeSet<usize>,
    /// Positions of initializers to remove (a GraphProto's; function bodies have none).
    pub remove_initializers: BTreeSet<usize>,
    /// Positions of `value_info` entries to remove (the graph's or the function body's).
    pub remove_value_info: BTreeSet<usize>,
}

impl GraphPatch {
    pub fn new(g: &Graph) -> Self {
        GraphPatch {
            path: g.path.clone(),
            wire: g.wire.clone(),
            node_field: g.node_field,
            ..Default::default()
        }
    }

    pub fn is_empty(&self) -> bool {
        self.insert_before.is_empty()
            && self.rewire.is_empty()
            && self.initializers.is_empty()
            && self.inputs.is_empty()
            && self.drop_attributes.is_empty()
            && self.remove_nodes.is_empty()
            && self.remove_initializers.is_empty()
            && self.remove_value_info.is_empty()
    }

    pub fn inserted_nodes(&self) -> usize {
        self.inserted
    }

    /// Queues `node` to be inserted before the node at source position `at`, after those queued there
    /// already.
    pub fn insert(&mut self, at: usize, node: &NodeProto) {
        let i = match self.insert_before.last() {
            Some((last, _)) if *last == at => self.insert_before.len() - 1,
            Some((last, _)) if *last > at => {
                match self.insert_before.binary_search_by_key(&at, |(k, _)| *k) {
                    Ok(i) => i,
                    Err(i) => {
                        self.insert_before.insert(i, (at, Vec::new()));
                        i
                    }
                }
            }
            _ => {
                self.insert_before.push((at, Vec::new()));
                self.insert_before.len() - 1
            }
        };
        let bytes = &mut self.insert_before[i].1;
        let len = node.encoded_len();
        // Room for exactly this record (tag and length take at most 15 bytes): these buffers are
        // most of a large rewrite's memory, and growth by doubling would waste a third of it.
        bytes.reserve_exact(len + 15);
        write_varint(bytes, (u64::from(self.node_field) << 3) | u64::from(LEN));
        write_varint(bytes, len as u64);
        // Encoding into a vector with room reserved cannot fail.
        let _ = node.encode(bytes);
        self.inserted += 1;
    }

    /// Makes input `slot` of the node at source position `at` read the value `name` (the last call
    /// for one input wins).
    pub fn rewire(&mut self, at: usize, slot: usize, name: String) {
        let key = (at, slot);
        match self.rewire.last() {
            Some((last, _)) if *last < key => self.rewire.push((key, name)),
            None => self.rewire.push((key, name)),
            _ => match self.rewire.binary_search_by_key(&key, |(k, _)| *k) {
                Ok(i) => self.rewire[i].1 = name,
                Err(i) => self.rewire.insert(i, (key, name)),
            },
        }
    }

    pub fn removed_nodes(&self) -> usize {
        self.remove_nodes.len()
    }
}

/// The changes a pass proposes, graph by graph.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Patch {
    pub graphs: Vec<GraphPatch>,
}

/// `GraphProto.initializer`.
const INITIALIZER_FIELD: u32 = 5;
/// `NodeProto.input`.
const INPUT_FIELD: u32 = 1;
/// `NodeProto.attribute`.
const ATTRIBUTE_FIELD: u32 = 5;
/// `GraphProto.input`.
const INPUT_FIELD_OF_GRAPH: u32 = 11;
/// `GraphProto.value_info`.
const VALUE_INFO_FIELD: u32 = 13;
/// `FunctionProto.value_info`.
const VALUE_INFO_FIELD_OF_FUNCTION: u32 = 12;
/// `FunctionProto.node`: a graph patch with this node field is a function body's.
const NODE_FIELD_OF_FUNCTION: u32 = 7;

impl Patch {
    pub fn is_empty(&self) -> bool {
        self.graphs.iter().all(GraphPatch::is_empty)
    }

    /// The wire edit that applies this patch to the model's source bytes.
    pub fn to_edit(&self) -> Edit {
        self.clone().into_edit()
    }

    /// [`Patch::to_edit`], moving the new nodes' bytes into the edit rather than copying them.
    pub fn into_edit(self) -> Edit {
        let mut root = Edit::default();
        for mut gp in self.graphs.into_iter().filter(|g| !g.is_empty()) {
            let mut edit = &mut root;
            for &(field, occurrence) in &gp.wire {
                edit = edit.child(field, occurrence);
            }
            // Node by node in source order, so that the edit is built by appends (see `Edit`).
            let mut touched: Vec<usize> = gp
                .insert_before
                .iter()
                .map(|(i, _)| *i)
                .chain(gp.rewire.iter().map(|((i, _), _)| *i))
                .chain(gp.drop_attributes.iter().map(|&(i, _)| i))
                .chain(gp.remove_nodes.iter().copied())
                .collect();
            touched.sort_unstable();
            touched.dedup();
            let mut inserts = std::mem::take(&mut gp.insert_before).into_iter().peekable();
            let mut rewire_at = 0;
            for index in touched {
                let rec = edit.at(gp.node_field, index);
                if let Some((_, bytes)) = inserts.next_if(|(i, _)| *i == index) {
                    rec.before = bytes;
                }
                if gp.remove_nodes.contains(&index) {
                    // A removal overrides any other edit of the node.
                    rec.action = Action::Replace(Vec::new());
                    continue;
                }
                // `rewire` is sorted by position as `touched` is: this node's are the next ones.
                while gp
                    .rewire
                    .get(rewire_at)
                    .is_some_and(|((i, _), _)| *i < index)
                {
                    rewire_at += 1;
                }
                let mine = gp.rewire[rewire_at..]
                    .iter()
                    .take_while(|((i, _), _)| *i == index)
                    .count();
                let rewires = gp.rewire[rewire_at..rewire_at + mine]
                    .iter()
                    .map(|((_, slot), name)| (slot, name));
                rewire_at += mine;
                let drops = gp.drop_attributes.range((index, 0)..=(index, usize::MAX));
                let (mut rewires, mut drops) = (rewires.peekable(), drops.peekable());
                if rewires.peek().is_none() && drops.peek().is_none() {
                    continue;
                }
                let node = edit.child(gp.node_field, index);
                for (&slot, name) in rewires {
                    let mut record = Vec::new();
                    write_len_record(&mut record, INPUT_FIELD, name.as_bytes());
                    node.at(INPUT_FIELD, slot).action = Action::Replace(record);
                }
                for &(_, attribute) in drops {
                    node.at(ATTRIBUTE_FIELD, attribute).action = Action::Replace(Vec::new());
                }
            }
            for &index in &gp.remove_initializers {
                edit.at(INITIALIZER_FIELD, index).action = Action::Replace(Vec::new());
            }
            let value_info_field = if gp.node_field == NODE_FIELD_OF_FUNCTION {
                VALUE_INFO_FIELD_OF_FUNCTION
            } else {
                VALUE_INFO_FIELD
            };
            for &index in &gp.remove_value_info {
                edit.at(value_info_field, index).action = Action::Replace(Vec::new());
            }
            for t in &gp.initializers {
                write_len_record(&mut edit.append, INITIALIZER_FIELD, &t.encode_to_vec());
            }
            for vi in &gp.inputs {
                write_len_record(&mut edit.append, INPUT_FIELD_OF_GRAPH, &vi.encode_to_vec());
            }
        }
        root
    }
}

/// Hands out names no graph of the model uses yet (values and nodes share one pool, so a new node
/// and its output may carry the same name).
pub struct Names<'m> {
    /// Every name the model uses, borrowed from it: a copy of each would double the names' memory.
    existing: hashbrown::HashSet<&'m str>,
    /// Names handed out by [`Names::fresh`].
    new: hashbrown::HashSet<String>,
}

impl<'m> Names<'m> {
    pub fn of(model: &'m Model) -> Self {
        let mut existing = hashbrown::HashSet::new();
        for g in model.graphs() {
            // Every input and output name is a value's, or one that did not resolve.
            existing.extend(g.values.iter().map(|v| &*v.name));
            existing.extend(g.unresolved.values().map(|n| &**n));
            for &id in &g.ops {
                if let Some(op) = g.op(id) {
                    existing.insert(op.name());
                }
            }
            existing.extend(g.declared_values().map(|v| v.name()));
        }
        Names {
            existing,
            new: hashbrown::HashSet::new(),
        }
    }

    fn taken(&self, name: &str) -> bool {
        self.existing.contains(name) || self.new.contains(name)
    }

    /// `base`, or `base_1`, `base_2`... whichever is free; it is then taken.
    pub fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_owned();
        let mut k = 0;
        while self.taken(&name) {
            k += 1;
            name = format!("{base}_{k}");
        }
        self.new.insert(name.clone());
        name
    }
}
