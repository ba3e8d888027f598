//! The fold pass, inverse of [`super::explicit_broadcast`]: removes the `Expand` nodes that implicit
//! broadcasting makes redundant, i.e. whose every reader broadcasts that input anyway and gets the same
//! result shape without it. `Add(Expand(a [1, 4], [3, 4]), b [3, 4])` folds to `Add(a, b)`;
//! `Add(Expand(a [1, 4], [3, 4]), b [1, 4])` does not (the Expand makes the result [3, 4]).
//!
//! Broadcasting copies values, never computes them, so a folded model computes the same values. In
//! onnxruntime the bits are the same too, except around the inputs that `expand` leaves implicit by
//! default (its kernel exceptions: Pow's broadcast exponent, floating-point Max/Min, normalization
//! scale and bias; docs/expand-exactness.md): an Expand there, as `expand --force-explicit` writes it, is
//! folded like any other, which gives back the original's bits.
//!
//! An Expand `y = Expand(x, s)` is removed when:
//! - `y` is not an output of its graph, and no subgraph reads it from the enclosing scope;
//! - every reader reads `y` at a slot it broadcasts (the same classification `expand` uses:
//!   multidirectional ops, PRelu's slope, Gemm's C, LayerNormalization's scale and bias...);
//! - for a multidirectional reader, the broadcast of its inputs with `x` in place of `y` is provably
//!   the shape it is with `y` (equal static sizes, or equal symbolic expressions; an unknown dim proves
//!   nothing), or the Expand's target is, by construction, the shape of values the reader broadcasts
//!   anyway: `Shape(v)` of another of its inputs, or `Shape` of an `Expand(Expand(a, Shape(b)), ...)`
//!   chain over them, which is how `expand` writes symbolic targets (then no size need be known);
//! - for a unidirectional reader (PRelu's slope, Gemm's C, normalization scale/bias), `x` still
//!   broadcasts to the shape the rule requires (X's shape, `[M, N]`, `X.shape[axis:]`). In a model that
//!   runs this follows from the Expand (each size of `x` is 1 or the size of `y`, which is 1 or the
//!   target's), but it is checked on the shapes anyway: the model must stay valid, not only run.
//!   Readers under the legacy rule of opset < 7 (`broadcast=1`, `axis`) align inputs at `axis`, not as
//!   numpy does, and are left alone.
//!
//! Before opset 8 there is no Expand: `expand` writes `Reshape` (1s prepended) and `Tile` (of size-1
//! axes) instead. In such graphs a `Tile` that only repeats size-1 axes and a `Reshape` that only
//! prepends 1s are broadcasts too, and fold the same way. (An opset-6 node that `expand` stripped of its
//! `broadcast` attribute does not broadcast any more, so those stay, with a message.)
//!
//! Expands are taken consumers first, so that a chain `Expand(Expand(x))` folds in one run. Once the
//! Expands are gone, the nodes and initializers that only computed their target shapes (`Shape`,
//! `Constant`, `Gather`, `Concat`, the `Expand`s `expand` uses to broadcast shapes at run time...) are
//! removed too, along with the `value_info` of every removed value. An initializer that is also a
//! graph input stays: removing it would change the model's interface.

use super::{GraphPatch, Patch};
use crate::ir::{Graph, Imports, Model, NodeId, NodeKind, OpNode, Slot, ValueId, opset_domain};
use crate::shape::broadcast::{multidirectional_of, unidirectional};
use crate::shape::dim::{Dim, Shape, format_shape};
use crate::shape::infer::GraphShapes;
use crate::shape::sites::{self, Declared, Kind, attention_bias_target, num_heads};
use petgraph::visit::EdgeRef;
use smallvec::SmallVec;
use std::borrow::Cow;

/// First opset version of the default domain that has Expand; below it `Reshape` + `Tile` stand in.
const EXPAND_SINCE: i64 = 8;

/// Why a node is kept (not folded): not a broadcast at all (nothing to say), or a reason, said in a
/// warning with the node's place.
#[derive(Debug, thiserror::Error)]
enum Kept {
    #[error("not a broadcast")]
    NotABroadcast,
    #[error("{0}")]
    Because(String),
}

/// A [`Kept::Because`] of a formatted reason.
macro_rules! why {
    ($($reason:tt)*) => {
        Kept::Because(format!($($reason)*))
    };
}

/// Ops removed when nothing reads their outputs any more: pure functions of their inputs, the ones
/// that compute target shapes. Anything else (a random op, a custom-domain op) stays even when dead.
const SHAPE_OPS: &[&str] = &[
    "Shape",
    "Size",
    "Constant",
    "Gather",
    "Concat",
    "Expand",
    "Unsqueeze",
    "Squeeze",
    "Reshape",
    "Tile",
    "Slice",
    "Cast",
    "Identity",
];

/// Longest chain of Expands followed when proving a target shape from how it was built.
const MAX_CHAIN: usize = 64;

/// One broadcast node removed.
#[derive(Clone, Debug, PartialEq)]
pub struct Removal {
    pub graph: String,
    pub node: String,
    pub op_type: String,
    /// The value the readers now read, and its shape.
    pub input: String,
    pub from: String,
    /// The shape the node broadcast it to.
    pub to: String,
    /// The readers, as `'label' (Op) input k`.
    pub readers: Vec<String>,
}

/// One broadcast node removed, as the pass hands it to [`run_reporting`]'s callback (borrowed: a
/// million of them are not kept).
#[derive(Clone, Copy, Debug)]
pub struct Folded<'a> {
    /// The graph's place in the pass's order (as [`Dead::graph_index`]).
    pub graph_index: usize,
    pub graph: &'a Graph,
    pub node: NodeId,
    /// Its readers, now reading its input.
    pub readers: &'a [(NodeId, Slot)],
    /// The shapes of its input and of its output.
    pub from: &'a Shape,
    pub to: &'a Shape,
}

impl Removal {
    /// The removal `f` describes, in words.
    pub fn of(f: &Folded<'_>) -> Removal {
        let g = f.graph;
        let label = |id: NodeId| g.op(id).map(|o| (o.label().into_owned(), o.op_type()));
        let (node, op_type) = label(f.node).unwrap_or_default();
        let input = g.op(f.node).map(|o| g.input_name(o, 0)).unwrap_or_default();
        Removal {
            graph: g.path.clone(),
            node,
            op_type: op_type.to_owned(),
            input: input.to_owned(),
            from: format_shape(f.from),
            to: format_shape(f.to),
            readers: f
                .readers
                .iter()
                .map(|&(r, slot)| {
                    let (l, op) = label(r).unwrap_or_default();
                    let k = match slot {
                        Slot::Input(k) => k,
                        _ => 0,
                    };
                    format!("'{l}' ({op}) input {k}")
                })
                .collect(),
        }
    }
}

/// A node removed because only removed nodes read its outputs: which graph (its place in the pass's
/// order: main graph and subgraphs, parents first, then function bodies) and which node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dead {
    pub graph_index: usize,
    pub node: NodeId,
}

/// What the pass did, and what it left.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub patch: Patch,
    pub removals: Vec<Removal>,
    pub dead: Vec<Dead>,
    /// Initializers removed, as (graph, name).
    pub initializers: Vec<(String, String)>,
    /// Broadcast nodes kept, with the reason.
    pub left: Vec<String>,
}

/// Runs the pass over every graph of `model` (subgraphs and function bodies included), whose inferred
/// shapes are `shapes` (a lint run's, kept).
pub fn run(model: &Model, shapes: &[GraphShapes]) -> Outcome {
    let mut removals = Vec::new();
    let mut out = run_reporting(model, shapes, &mut |f| removals.push(Removal::of(&f)));
    out.removals = removals;
    out
}

/// [`run`], handing each removal to `removed` as it is made instead of listing it in
/// [`Outcome::removals`] (left empty): `fold` writes its report line at once, where a list of a
/// million removals took more memory than the model.
pub fn run_reporting(
    model: &Model,
    shapes: &[GraphShapes],
    removed: &mut dyn FnMut(Folded<'_>),
) -> Outcome {
    let mut out = Outcome::default();
    let shapes = super::shapes_by_path(shapes);
    let graphs = super::all_graphs(model);
    for (graph_index, (g, function)) in graphs.into_iter().enumerate() {
        let imports = model.opset_imports(function);
        let mut f = GraphFolder::new(g, shapes.get(g.path.as_str()).copied(), imports);
        f.fold_all(graph_index, &mut *removed);
        f.remove_dead(graph_index, &mut out);
        let patch = f.finish(&mut out);
        if !patch.is_empty() {
            out.patch.graphs.push(patch);
        }
    }
    out
}

/// A flag per node index.
struct Removed(Vec<bool>);

impl Removed {
    fn contains(&self, id: NodeId) -> bool {
        self.0.get(id.index()).copied().unwrap_or(false)
    }

    fn insert(&mut self, id: NodeId) {
        if let Some(f) = self.0.get_mut(id.index()) {
            *f = true;
        }
    }
}

/// Who reads a value: (reading node, slot).
type Readers = Vec<(NodeId, Slot)>;

/// The readers of a value a fold changed: the graph's readers of it when `graph`, then those the
/// folds added, in order. The graph's are walked only when asked for: a fold hands the Expand's
/// readers to its input, and when that is a constant that thousands of Expands read, listing its
/// readers up front meant a walk of petgraph's edge list, a cache miss an edge, for each such
/// constant (in `synthetic_1M_expanded`, 900,000 edges; walking them lazily took its `fold` from
/// 1.90 to 1.79 s). What asks for them afterwards is mostly dead-code removal, which needs only one
/// live reader, and finds it among those added.
#[derive(Default)]
struct ReaderList {
    graph: bool,
    added: Readers,
}

/// A node's input or output as the pass compares them: what [`Graph::lookup`] finds for its name,
/// read from [`Graph::io`] where the graph resolved it. A fold compared a dozen names, each a hash
/// and a few cache misses on a graph of millions of values. Two of these are equal exactly when the
/// names are: a value's id stands for its name (no other value has it), and a name that is no
/// value's is kept as text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum In<'a> {
    /// An omitted optional input or output: the empty name, which no value has.
    Omitted,
    Value(ValueId),
    /// A name no value of the graph has (an undefined input, which the checks report).
    Unknown(&'a str),
}

/// The shape of a value inference knows nothing of.
static UNKNOWN: Shape = None;

/// A reader of the Expand being folded, checked: where its inputs after the fold start in
/// [`Scratch::after`], and which of its slots read the Expand (in [`Scratch::slots`]).
struct Checked {
    reader: NodeId,
    slots: std::ops::Range<usize>,
}

/// The vectors [`GraphFolder::try_fold`] fills, kept from one fold to the next: a million folds
/// allocated a few each.
#[derive(Default)]
struct Scratch<'a> {
    /// The live readers of the Expand's output.
    readers: Readers,
    /// The current inputs of the reader being checked.
    before: Vec<In<'a>>,
    /// Its inputs once the fold is done.
    after: Vec<In<'a>>,
    /// The readers checked so far.
    checked: Vec<Checked>,
    /// Their slots that read the Expand, one list after the other.
    slots: Vec<usize>,
}

struct GraphFolder<'a> {
    g: &'a Graph,
    infos: Option<&'a GraphShapes>,
    /// The default domain's version: below 8, Tile and Reshape stand in for Expand.
    opset: i64,
    /// The graph's opset imports, which say how each reader broadcasts ([`sites::site`]).
    imports: Imports<'a>,
    patch: GraphPatch,
    /// The graph's outputs (a function body's too): never removed. As values: a name that is no
    /// value's is never one the pass asks about.
    outputs: hashbrown::HashSet<ValueId>,
    /// Per value index: 0 when the value's readers are those the graph gives it, else 1 + the index
    /// of its list in `reader_lists` (the readers of the values the folds so far changed). A list may
    /// still name nodes removed since: they are skipped when it is read, as taking them out at each
    /// removal was quadratic (a constant shared by thousands of Expands lost one reader per fold:
    /// 77 s for `fold` of a million Expands). A table rather than a hash map: a fold looks up two
    /// values, each a hash and a cache miss; the table's pages are only touched where used.
    readers: Vec<u32>,
    /// The lists `readers` points at; the first one is empty (the readers of a removed Expand's
    /// output: they read its input now).
    reader_lists: Vec<ReaderList>,
    /// The positions of the `value_info` entries of each name, made at the first removal.
    value_info: Option<hashbrown::HashMap<&'a str, Vec<usize>>>,
    /// Per node index: 0 when no fold rewired the node, else 1 + where its inputs start in
    /// `rewired`, an entry per input slot: the value a fold made it read, or `None` for the one the
    /// graph gives it. (One table for every node instead of a vector per rewired node: a million
    /// small allocations, and a hash map of them.)
    rewired_at: Vec<u32>,
    rewired: Vec<Option<ValueId>>,
    /// Nodes removed, by node index (a flag each: a hash set of millions of ids was a cache miss at
    /// every look).
    removed: Removed,
    /// Values that lost a reader to a removal: where dead-code removal starts.
    orphans: Vec<ValueId>,
    /// Broadcast nodes kept, with the reason (reported unless dead-code removal takes them after all).
    left: Vec<(NodeId, String)>,
    scratch: Scratch<'a>,
}

/// What [`GraphFolder::readers`] holds for a value whose readers are the graph's.
const GRAPH_READERS: u32 = 0;
/// What [`GraphFolder::readers`] holds for a value nothing reads any more (the first list).
const NO_READERS: u32 = 1;

impl<'a> GraphFolder<'a> {
    fn new(g: &'a Graph, infos: Option<&'a GraphShapes>, imports: Imports<'a>) -> Self {
        let nodes = petgraph::visit::NodeIndexable::node_bound(&g.dag);
        GraphFolder {
            g,
            infos,
            opset: imports.get("").copied().unwrap_or(0),
            imports,
            patch: GraphPatch::new(g),
            outputs: g
                .header
                .output
                .iter()
                .filter_map(|o| g.lookup(o.name()))
                .collect(),
            // Zeroed by the allocator as pages are first touched, not up front.
            readers: vec![GRAPH_READERS; g.values.len()],
            reader_lists: vec![ReaderList::default()],
            value_info: None,
            rewired_at: vec![0; nodes],
            rewired: Vec::new(),
            removed: Removed(vec![false; nodes]),
            orphans: Vec::new(),
            left: Vec::new(),
            scratch: Scratch::default(),
        }
    }

    /// The patch, and the kept broadcast nodes into `out`.
    fn finish(self, out: &mut Outcome) -> GraphPatch {
        for (id, why) in self.left {
            if !self.removed.contains(id) {
                out.left.push(why);
            }
        }
        self.patch
    }

    /// Entry `k` of [`Graph::io`], as [`In`].
    fn io(&self, k: usize) -> In<'a> {
        let g: &'a Graph = self.g;
        if let Some(&Some(id)) = g.io.get(k) {
            return In::Value(id);
        }
        if g.unresolved.is_empty() {
            return In::Omitted;
        }
        match g.unresolved.get(&k) {
            None => In::Omitted,
            // An output that redefines a name: the name is the first definition's value.
            Some(name) => g.lookup(name).map_or(In::Unknown(name), In::Value),
        }
    }

    /// Input `slot` of `op` (omitted past the last).
    fn input(&self, op: &OpNode, slot: usize) -> In<'a> {
        if slot < op.num_inputs() {
            self.io(op.io_start() + slot)
        } else {
            In::Omitted
        }
    }

    /// Output `slot` of `op` (omitted past the last).
    fn output(&self, op: &OpNode, slot: usize) -> In<'a> {
        if slot < op.num_outputs() {
            self.io(op.io_start() + op.num_inputs() + slot)
        } else {
            In::Omitted
        }
    }

    /// The name of `i`, for messages.
    fn name(&self, i: In<'a>) -> &'a str {
        match i {
            In::Omitted => "",
            In::Value(id) => self.g.value(id).name,
            In::Unknown(name) => name,
        }
    }

    /// What inference found of value `id`'s shape, borrowed from its table (a symbolic shape's copy
    /// is an allocation per dim).
    fn shape(&self, id: ValueId) -> &'a Shape {
        let infos: Option<&'a GraphShapes> = self.infos;
        infos
            .and_then(|s| s.info(id.index()))
            .map_or(&UNKNOWN, |v| &v.shape)
    }

    fn shape_in(&self, i: In<'a>) -> &'a Shape {
        match i {
            In::Value(id) => self.shape(id),
            _ => &UNKNOWN,
        }
    }

    /// The readers of `v` as the folds so far leave them: whether the graph's readers of it count,
    /// and those the folds added (removed nodes not yet taken out).
    fn readers_of(&self, v: ValueId) -> (bool, &[(NodeId, Slot)]) {
        match self.readers.get(v.index()).copied() {
            None | Some(GRAPH_READERS) => (true, &[]),
            Some(list) => self
                .reader_lists
                .get(list as usize - 1)
                .map_or((false, &[]), |r| (r.graph, &r.added)),
        }
    }

    /// Puts the live readers of `v`, as the folds so far leave them, into `out`.
    fn live_readers(&self, v: ValueId, out: &mut Readers) {
        out.clear();
        let (graph, added) = self.readers_of(v);
        if graph {
            self.graph_readers(v, out);
        }
        out.extend_from_slice(added);
        out.retain(|(n, _)| !self.removed.contains(*n));
    }

    /// True when something live reads `v`.
    fn has_live_reader(&self, v: ValueId) -> bool {
        let (graph, added) = self.readers_of(v);
        added.iter().any(|(n, _)| !self.removed.contains(*n))
            || (graph && self.graph_has_live_reader(v))
    }

    /// True when one of the graph's readers of `v` is live.
    fn graph_has_live_reader(&self, v: ValueId) -> bool {
        let producer = self.g.value(v).producer.0;
        self.g
            .dag
            .edges_directed(producer, petgraph::Direction::Outgoing)
            .any(|e| e.weight().value == v && !self.removed.contains(e.target()))
    }

    /// Appends the readers of `v` in the graph as read to `out`: the edges out of its producer that
    /// carry it.
    fn graph_readers(&self, v: ValueId, out: &mut Readers) {
        let producer = self.g.value(v).producer.0;
        let start = out.len();
        out.extend(
            self.g
                .dag
                .edges_directed(producer, petgraph::Direction::Outgoing)
                .filter(|e| e.weight().value == v)
                .map(|e| (e.target(), e.weight().slot())),
        );
        // In the order of the graph's edge list, as the table built from it listed them (petgraph
        // lists a node's outgoing edges newest first).
        out[start..].reverse();
    }

    /// Puts the node's inputs, as the folds so far leave them, into `out`.
    fn inputs_of(&self, id: NodeId, op: &OpNode, out: &mut Vec<In<'a>>) {
        out.clear();
        let n = op.num_inputs();
        let rewired = match self.rewired_at.get(id.index()).copied() {
            Some(at) if at > 0 => self.rewired.get(at as usize - 1..at as usize - 1 + n),
            _ => None,
        };
        match rewired {
            Some(r) => out.extend(r.iter().enumerate().map(|(k, v)| match v {
                Some(v) => In::Value(*v),
                None => self.input(op, k),
            })),
            None => out.extend((0..n).map(|k| self.input(op, k))),
        }
    }

    /// The broadcast nodes of this graph: Expand, and before opset 8 its stand-ins Tile and Reshape.
    fn is_candidate(&self, op: &OpNode) -> bool {
        if !opset_domain(op.domain()).is_empty() {
            return false;
        }
        match op.op_type() {
            "Expand" => true,
            "Tile" | "Reshape" => self.opset < EXPAND_SINCE,
            _ => false,
        }
    }

    fn fold_all(&mut self, graph_index: usize, removed: &mut dyn FnMut(Folded<'_>)) {
        let g: &'a Graph = self.g;
        // Op nodes in topological order, as `Graph::ops_in_order` gives them (a list of millions
        // of them is not made just to be walked backwards).
        let order: &'a [NodeId] = g.topo.as_deref().unwrap_or(&g.ops);
        // Readers first: when the second Expand of a chain goes, the first one's readers become the
        // second's, which may broadcast anyway.
        for &id in order.iter().rev() {
            let Some(op) = g.op(id) else {
                continue;
            };
            if !self.is_candidate(op) {
                continue;
            }
            match self.try_fold(id, op) {
                Ok((from, to)) => removed(Folded {
                    graph_index,
                    graph: g,
                    node: id,
                    readers: &self.scratch.readers,
                    from,
                    to,
                }),
                // Only Tiles and Reshapes that are broadcasts are worth a word.
                Err(Kept::NotABroadcast) => continue,
                Err(why) => {
                    let why = format!(
                        "graph {}, node '{}' ({}): {why}",
                        g.path,
                        op.label(),
                        op.op_type()
                    );
                    self.left.push((id, why));
                }
            }
        }
    }

    /// Removes the node if it is a redundant broadcast, its readers left in `self.scratch.readers`
    /// and the shapes of its input and output returned; else says why not (an empty reason: it is
    /// not a broadcast at all, nothing to report).
    fn try_fold(&mut self, id: NodeId, op: &'a OpNode) -> Result<(&'a Shape, &'a Shape), Kept> {
        let (In::Value(x), In::Value(y)) = (self.input(op, 0), self.output(op, 0)) else {
            return Err(Kept::NotABroadcast);
        };
        let (xs, ys) = (self.shape(x), self.shape(y));
        if op.op_type() != "Expand" && !is_broadcast(op.op_type(), xs, ys) {
            return Err(Kept::NotABroadcast);
        }
        if self.outputs.contains(&y) {
            return Err(why!(
                "its output '{}' is a graph output",
                self.name(In::Value(y))
            ));
        }
        let mut s = std::mem::take(&mut self.scratch);
        let checked = self.check_readers(op, (x, xs), y, &mut s);
        if checked.is_ok() {
            self.commit(id, op, x, y, &s);
        }
        self.scratch = s;
        checked.map(|()| (xs, ys))
    }

    /// Checks, reader by reader, that each gives the same result reading `x` (of shape `xs`) in place
    /// of `y`, the output of `op`; the readers are left in `s.readers`, and what the fold changes
    /// in `s.checked`.
    fn check_readers(
        &self,
        op: &'a OpNode,
        (x, xs): (ValueId, &Shape),
        y: ValueId,
        s: &mut Scratch<'a>,
    ) -> Result<(), Kept> {
        let g: &'a Graph = self.g;
        let y_name = || self.name(In::Value(y));
        self.live_readers(y, &mut s.readers);
        if s.readers.is_empty() {
            return Err(why!("nothing reads its output '{}'", y_name()));
        }
        s.checked.clear();
        s.slots.clear();
        let target = (op.op_type() == "Expand" && op.num_inputs() > 1).then(|| self.input(op, 1));
        for &(reader, slot) in &s.readers {
            let Some(rop) = g.op(reader) else {
                return Err(why!(
                    "'{}' is read by something other than a node",
                    y_name()
                ));
            };
            let Slot::Input(slot) = slot else {
                return Err(why!(
                    "a subgraph of '{}' ({}) reads '{}'",
                    rop.label(),
                    rop.op_type(),
                    y_name()
                ));
            };
            if s.checked.iter().any(|c| c.reader == reader) {
                continue; // Add(y, y): both slots are handled together
            }
            self.inputs_of(reader, rop, &mut s.before);
            let start = s.slots.len();
            s.after.clear();
            for (k, &i) in s.before.iter().enumerate() {
                if i == In::Value(y) {
                    s.slots.push(k);
                    s.after.push(In::Value(x));
                } else {
                    s.after.push(i);
                }
            }
            let slots = start..s.slots.len();
            self.reader_allows(
                rop,
                &s.before,
                &s.after,
                &s.slots[slots.clone()],
                (x, xs),
                target,
            )
            .map_err(|why| why!("'{}' ({}) input {slot}: {why}", rop.label(), rop.op_type()))?;
            s.checked.push(Checked { reader, slots });
        }
        Ok(())
    }

    /// Makes the fold [`GraphFolder::check_readers`] checked: the readers read `x`, the node `id`
    /// (`op`, writing `y`) is gone.
    fn commit(&mut self, id: NodeId, op: &'a OpNode, x: ValueId, y: ValueId, s: &Scratch<'a>) {
        let g: &'a Graph = self.g;
        let x_name: &'a str = g.value(x).name;
        for c in &s.checked {
            let rop = g.op(c.reader);
            let index = rop.map(|o| o.index()).unwrap_or_default();
            let slots = s.slots.get(c.slots.clone()).unwrap_or_default();
            for &k in slots {
                self.patch.rewire(index, k, x_name);
            }
            let n = rop.map_or(0, |o| o.num_inputs());
            let start = match self.rewired_at.get(c.reader.index()).copied() {
                Some(at) if at > 0 => at as usize - 1,
                _ => {
                    let start = self.rewired.len();
                    self.rewired.resize(start + n, None);
                    // A graph's node inputs number fewer than 2^32 (see `OpNode`), and a node's
                    // entries are made once.
                    if let (Some(at), Ok(v)) = (
                        self.rewired_at.get_mut(c.reader.index()),
                        u32::try_from(start + 1),
                    ) {
                        *at = v;
                    }
                    start
                }
            };
            for &k in slots {
                if let Some(e) = self.rewired.get_mut(start + k) {
                    *e = Some(x);
                }
            }
        }
        // x's readers: y's join them; this node stays listed, removed just below and so skipped from
        // now on (not copied or filtered here: x may be a constant every Expand reads).
        let list = match self.readers.get(x.index()).copied() {
            None => None,
            Some(list) if list != GRAPH_READERS && list != NO_READERS => Some(list),
            Some(list) => {
                // A list of its own (the empty one is shared).
                self.reader_lists.push(ReaderList {
                    graph: list == GRAPH_READERS,
                    added: Readers::new(),
                });
                // Fewer lists than values, whose ids are 32-bit.
                let list = u32::try_from(self.reader_lists.len()).ok();
                if let (Some(e), Some(list)) = (self.readers.get_mut(x.index()), list) {
                    *e = list;
                }
                list
            }
        };
        if let Some(xr) = list.and_then(|l| self.reader_lists.get_mut(l as usize - 1)) {
            xr.added.extend(s.readers.iter().copied());
        }
        if let Some(e) = self.readers.get_mut(y.index()) {
            *e = NO_READERS;
        }
        self.remove_node(id, op);
    }

    /// Whether `reader` gives the same result with `after` as its inputs instead of `before`, `slots`
    /// being the slots that changed (to `x`, of shape `xs`).
    fn reader_allows(
        &self,
        reader: &OpNode,
        before: &[In<'a>],
        after: &[In<'a>],
        slots: &[usize],
        (x, xs): (ValueId, &Shape),
        target: Option<In<'a>>,
    ) -> Result<(), Kept> {
        let x = || self.name(In::Value(x));
        let Some(k) = sites::site(reader, &self.imports) else {
            // (Which `expand` removes when it makes such a broadcast explicit.)
            let legacy = matches!(
                sites::declared(reader, &self.imports),
                Some(Declared::WithBroadcastAttribute(_))
            );
            return Err(why!(
                "{} does not broadcast its inputs{}",
                reader.op_type(),
                if legacy {
                    " (before opset 7, only with broadcast=1: folding would need that attribute back, and `axis`)"
                } else {
                    ""
                }
            ));
        };
        let broadcast_slots: &[usize] = match k {
            Kind::Multi => &[],
            Kind::ToFirst(s) | Kind::Normalized(s) | Kind::MultiOf(s) => s,
            Kind::AttentionBias(ref s) => std::slice::from_ref(s),
            Kind::GemmC => &[2],
            Kind::LegacyAxis(_) => {
                return Err(why!(
                    "the legacy broadcast rule (opset < 7) aligns inputs at `axis`, not as numpy does"
                ));
            }
        };
        let multi = matches!(k, Kind::Multi);
        if let Some(&k) = slots
            .iter()
            .find(|s| !multi && !broadcast_slots.contains(s))
        {
            return Err(why!(
                "{} does not broadcast input {k}: without the node it would see another shape",
                reader.op_type()
            ));
        }
        match k {
            Kind::Multi | Kind::MultiOf(_) => {
                // Only the broadcast operands take part (a QLinearAdd's scales do not).
                let operands = |ins: &[In<'a>]| -> SmallVec<[In<'a>; 4]> {
                    ins.iter()
                        .enumerate()
                        .filter(|(j, _)| broadcast_slots.is_empty() || broadcast_slots.contains(j))
                        .map(|(_, n)| *n)
                        .collect()
                };
                let (before, after) = (operands(before), operands(after));
                if target.is_some_and(|t| self.target_is_the_result(t, &after)) {
                    return Ok(());
                }
                let shapes = |ins: &[In<'a>]| -> SmallVec<[Option<&'a [Dim]>; 4]> {
                    ins.iter()
                        .filter(|n| **n != In::Omitted)
                        .map(|n| self.shape_in(*n).as_deref())
                        .collect()
                };
                let was = multidirectional_of(&shapes(&before));
                let now = multidirectional_of(&shapes(&after));
                if !fully_known(&was.shape) || !fully_known(xs) {
                    return Err(why!(
                        "the shapes are not known well enough to prove the result the same (with the node {}, '{}' {})",
                        format_shape(&was.shape),
                        x(),
                        format_shape(xs)
                    ));
                }
                if now.is_error() {
                    return Err(why!(
                        "'{}' {} does not broadcast with the other inputs",
                        x(),
                        format_shape(xs)
                    ));
                }
                if now.shape != was.shape && !fully_known(&now.shape) {
                    return Err(why!(
                        "the shapes are not known well enough to prove the result the same: {} with the node, {} without it",
                        format_shape(&was.shape),
                        format_shape(&now.shape)
                    ));
                }
                if now.shape != was.shape {
                    return Err(why!(
                        "the node makes the result {}; without it the result would be {}",
                        format_shape(&was.shape),
                        format_shape(&now.shape)
                    ));
                }
                Ok(())
            }
            Kind::ToFirst(_) | Kind::GemmC | Kind::Normalized(_) | Kind::AttentionBias(_) => {
                let first = || before.first().map_or(&UNKNOWN, |n| self.shape_in(*n));
                let target: Cow<'a, Shape> = match k {
                    Kind::ToFirst(_) => Cow::Borrowed(first()),
                    Kind::GemmC => Cow::Borrowed(self.shape_in(self.output(reader, 0))),
                    Kind::AttentionBias(slot) => Cow::Owned(attention_bias_target(
                        first(),
                        before.get(slot).map_or(&UNKNOWN, |n| self.shape_in(*n)),
                        num_heads(reader),
                    )),
                    _ => Cow::Owned(self.normalized_shape(reader, before)),
                };
                let what = match k {
                    Kind::ToFirst(_) => "X's shape",
                    Kind::GemmC => "[M, N]",
                    Kind::AttentionBias(_) => "(batch, num_heads, q, kv)",
                    _ => "the normalized shape X.shape[axis:]",
                };
                if !fully_known(&target) || !fully_known(xs) {
                    return Err(why!(
                        "the shapes are not known well enough to prove that '{}' {} broadcasts to {what} {}",
                        x(),
                        format_shape(xs),
                        format_shape(&target)
                    ));
                }
                if unidirectional(&target, xs).is_error() {
                    return Err(why!(
                        "'{}' {} does not broadcast unidirectionally to {what} {}: the model would be invalid",
                        x(),
                        format_shape(xs),
                        format_shape(&target)
                    ));
                }
                Ok(())
            }
            Kind::LegacyAxis(_) => Err(Kept::Because(String::new())),
        }
    }

    /// True when the target shape `t` is, by construction, the shape of a broadcast of values the
    /// reader broadcasts anyway (`inputs`, with the Expand's input in place of its output): then
    /// without the Expand the reader's result is the same, whatever the shapes turn out to be. This is
    /// how `expand` builds symbolic targets: `Shape` of another input, or `Shape` of
    /// `Expand(Expand(a, Shape(b)), Shape(c))` over the inputs.
    fn target_is_the_result(&self, t: In<'a>, inputs: &[In<'a>]) -> bool {
        let Some(w) = self.shape_source(t) else {
            return false;
        };
        let mut members: SmallVec<[In<'a>; 4]> = SmallVec::new();
        if !self.members(w, &mut members, 0) {
            return false;
        }
        members
            .iter()
            .all(|&m| inputs.iter().any(|&i| self.dominates(i, m, 0)))
    }

    /// The op node that writes `v`, if one does.
    fn producer(&self, v: In<'a>) -> Option<&'a OpNode> {
        let g: &'a Graph = self.g;
        let In::Value(id) = v else {
            return None;
        };
        g.op(g.value(id).producer.0)
    }

    /// `v` when `t` is `Shape(v)` (of the whole shape: no `start` or `end`).
    fn shape_source(&self, t: In<'a>) -> Option<In<'a>> {
        let op = self.producer(t)?;
        (op.op_type() == "Shape"
            && opset_domain(op.domain()).is_empty()
            && op.attributes().is_empty())
        .then(|| self.input(op, 0))
    }

    /// The values `w` is the broadcast of: for `Expand(a, Shape(b))` those of `a` and of `b`, else
    /// `w` itself. False when the chain is deeper than [`MAX_CHAIN`].
    fn members(&self, w: In<'a>, out: &mut SmallVec<[In<'a>; 4]>, depth: usize) -> bool {
        if depth > MAX_CHAIN {
            return false;
        }
        if let Some((a, t)) = self.expand_of(w)
            && let Some(b) = self.shape_source(t)
        {
            return self.members(a, out, depth + 1) && self.members(b, out, depth + 1);
        }
        out.push(w);
        true
    }

    /// True when `i`'s shape is a broadcast of `m`'s: `i` is `m`, or an Expand of something that is.
    fn dominates(&self, i: In<'a>, m: In<'a>, depth: usize) -> bool {
        i == m
            || (depth <= MAX_CHAIN
                && self
                    .expand_of(i)
                    .is_some_and(|(a, _)| self.dominates(a, m, depth + 1)))
    }

    /// (input, target) when `v` is the output of a default-domain Expand.
    fn expand_of(&self, v: In<'a>) -> Option<(In<'a>, In<'a>)> {
        let op = self.producer(v)?;
        if op.op_type() != "Expand" || !opset_domain(op.domain()).is_empty() {
            return None;
        }
        let (a, t) = (self.input(op, 0), self.input(op, 1));
        (op.num_inputs() == 2 && a != In::Omitted && t != In::Omitted).then_some((a, t))
    }

    /// `X.shape[axis:]` of a normalization node, when X's rank is known.
    fn normalized_shape(&self, op: &OpNode, inputs: &[In<'a>]) -> Shape {
        sites::normalized(self.shape_in(*inputs.first()?), sites::norm_axis(op))
    }

    /// Marks the node removed, drops it from its inputs' readers (queuing them for dead-code
    /// removal) and drops the value_info of its outputs.
    fn remove_node(&mut self, id: NodeId, op: &OpNode) {
        self.removed.insert(id);
        self.patch.remove_node(op.index());
        for k in 0..op.num_inputs() {
            if let In::Value(v) = self.input(op, k) {
                self.orphans.push(v);
            }
        }
        let g = self.g;
        if g.header.value_info.is_empty() {
            return;
        }
        let value_info = self.value_info.get_or_insert_with(|| {
            let mut by_name: hashbrown::HashMap<&str, Vec<usize>> = hashbrown::HashMap::new();
            for (i, vi) in g.header.value_info.iter().enumerate() {
                by_name.entry(vi.name()).or_default().push(i);
            }
            by_name
        });
        for name in g.output_names(op).filter(|n| !n.is_empty()) {
            for &i in value_info.get(name).into_iter().flatten() {
                self.patch.remove_value_info.insert(i);
            }
        }
    }

    /// True when nothing live reads `v` and it is not a graph output.
    fn unread(&self, v: ValueId) -> bool {
        !self.outputs.contains(&v) && !self.has_live_reader(v)
    }

    /// Removes what only the removed nodes read: shape-computing nodes and initializers, transitively.
    fn remove_dead(&mut self, graph_index: usize, out: &mut Outcome) {
        let mut seen = vec![false; self.g.values.len()];
        while let Some(v) = self.orphans.pop() {
            let first = seen.get_mut(v.index()).map(|s| !std::mem::replace(s, true));
            if first != Some(true) || !self.unread(v) {
                continue;
            }
            let producer = self.g.value(v).producer.0;
            match self.g.dag.node_weight(producer).map(|n| &n.kind) {
                Some(NodeKind::Initializer(i)) => {
                    self.patch.remove_initializers.insert(*i as usize);
                    out.initializers
                        .push((self.g.path.clone(), self.g.value(v).name.to_string()));
                }
                Some(NodeKind::Input(_))
                    if self
                        .g
                        .header
                        .initializer
                        .iter()
                        .any(|t| t.name() == self.g.value(v).name) =>
                {
                    out.left.push(format!(
                        "graph {}, initializer '{}': no node reads it any more, but it is also a graph input (as IR < 4 requires), and removing it would change the model's inputs",
                        self.g.path,
                        self.g.value(v).name
                    ));
                }
                Some(NodeKind::Op(_)) => {
                    let Some(op) = self.g.op(producer) else {
                        continue;
                    };
                    if self.removed.contains(producer)
                        || !opset_domain(op.domain()).is_empty()
                        || !SHAPE_OPS.contains(&op.op_type())
                        || !op.subgraphs().is_empty()
                    {
                        continue;
                    }
                    let all_dead = (0..op.num_outputs()).all(|k| match self.output(op, k) {
                        In::Value(o) => self.unread(o),
                        In::Omitted | In::Unknown(_) => true,
                    });
                    if !all_dead {
                        continue;
                    }
                    out.dead.push(Dead {
                        graph_index,
                        node: producer,
                    });
                    self.remove_node(producer, op);
                }
                _ => {}
            }
        }
    }
}

fn fully_known(s: &Shape) -> bool {
    s.as_ref().is_some_and(|d| !d.contains(&Dim::Unknown))
}

/// True when a `Tile` or `Reshape` from `xs` to `ys` only broadcasts: right-aligned, each size of `xs`
/// is 1 or the size of `ys` (Tile keeps the rank; Reshape may only prepend 1s, which the same test
/// checks since its element count does not change). The values are then those of `Expand(x, ys)`.
fn is_broadcast(op_type: &str, xs: &Shape, ys: &Shape) -> bool {
    let (Some(x), Some(y)) = (xs, ys) else {
        return false;
    };
    if !fully_known(xs) || !fully_known(ys) || x.len() > y.len() {
        return false;
    }
    if op_type == "Tile" && x.len() != y.len() {
        return false;
    }
    let lead = y.len() - x.len();
    if op_type == "Reshape" && y[..lead].iter().any(|d| *d != Dim::Known(1)) {
        return false;
    }
    x.iter()
        .zip(&y[lead..])
        .all(|(a, b)| *a == Dim::Known(1) || a == b)
}
