//! The explicit-broadcast pass: every input that a broadcasting node would broadcast implicitly gets
//! an `Expand` to the node's output shape, so that each such node sees inputs of exactly one shape. The
//! values are copied, never computed (the spec's "numerical accuracy: values strictly equal"), so the
//! rewritten model computes the same values; onnxruntime computes the same bits too, once the kernel
//! exceptions below are left implicit.
//!
//! Which inputs: all inputs of multidirectional ops (Add ... Where, Sum/Max/Min/Mean, StringConcat...),
//! Gemm's C, PRelu's slope, LayerNormalization's scale and bias, RMSNormalization's scale; except, by
//! default, the inputs of [`KERNEL_EXCEPTIONS`], for which onnxruntime runs other code once they are
//! explicit and the output's last bits change (found by `tools/kernel_survey.py`, see
//! docs/expand-exactness.md); `Options::force_explicit` makes those explicit too. The target
//! shape is an int64 initializer (one per distinct static shape and graph; a Constant node in function
//! bodies, which cannot hold initializers) or, when the output shape has symbolic dims, computed at run
//! time from `Shape` of the other inputs, so dynamic models stay dynamic: a symbol is never baked into
//! a number.

mod exceptions;
mod halves;
mod inserted;
pub mod recipe;
mod targets;

pub use exceptions::{
    KERNEL_EXCEPTIONS, KernelException, REQUIRED_SMALLER, Site, kernel_exception,
};
pub use inserted::{Inserted, NAME_MARK, SHAPE_PREFIX, inserted_nodes};

use super::{GraphPatch, Names, Patch};
use crate::diagnostics::{Code, Diagnostic};
use crate::file::list_edit::Room;
use crate::ir::{Graph, Imports, Model, OpNode, ValueId, opset_domain};
use crate::proto::attribute_proto::AttributeType;
use crate::proto::tensor_proto::DataType;
use crate::proto::{AttributeProto, NodeProto, TensorProto, ValueInfoProto};
use crate::shape::dim::{Dim, Shape, format_shape};
use crate::shape::infer::GraphShapes;
use crate::shape::sites::{self, Kind, attention_bias_target, num_heads};
use recipe::{Known, Recipe, STATIC};
use std::collections::HashMap;

/// Options of the pass.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Leave scalars and one-element tensors implicit (they are made explicit by default).
    pub keep_scalars: bool,
    /// Make explicit also the inputs a [`KernelException`] leaves implicit by default.
    pub force_explicit: bool,
}

/// One input made explicit.
#[derive(Clone, Debug, PartialEq)]
pub struct Insertion {
    pub graph: String,
    pub node: String,
    pub op_type: String,
    pub slot: usize,
    pub from: String,
    pub to: String,
}

/// One input left implicit on purpose: a [`KernelException`] applies to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Kept {
    pub graph: String,
    pub node: String,
    pub op_type: String,
    pub slot: usize,
    pub from: String,
    pub to: String,
    /// The exception's reason.
    pub reason: &'static str,
}

/// What the pass did, and what it could not do.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub patch: Patch,
    pub insertions: Vec<Insertion>,
    /// Inputs left implicit because of a kernel exception (without `force_explicit`).
    pub kept: Vec<Kept>,
    /// Inputs left implicit because their operator's definition requires them smaller than the
    /// output ([`REQUIRED_SMALLER`]: a 1-D bias); `force_explicit` does not change these.
    pub required: Vec<Kept>,
    /// Broadcasts left implicit, with the reason (e.g. a shape inference could not determine).
    pub left: Vec<String>,
}

/// First opset version of the default domain that has Expand.
const EXPAND_SINCE: i64 = 8;

/// First IR version in which an initializer need not also be a graph input. Before it, every
/// initializer must be listed in `graph.input` too (onnx's checker rejects the model otherwise).
const INITIALIZER_NOT_INPUT_SINCE: i64 = 4;

fn same_shape(a: &Shape, b: &Shape) -> bool {
    matches!((a, b), (Some(x), Some(y)) if x == y && !x.contains(&Dim::Unknown))
}

fn is_static(s: &Shape) -> Option<Vec<u64>> {
    s.as_ref()?
        .iter()
        .map(|d| match d {
            Dim::Known(n) => Some(*n),
            _ => None,
        })
        .collect()
}

/// True when `a` and `b` are known to differ: both ranks known and unequal, or two known sizes unequal
/// on one axis. Unknown and symbolic sizes never prove a difference.
fn known_to_differ(a: &Shape, b: &Shape) -> bool {
    let (Some(x), Some(y)) = (a, b) else {
        return false;
    };
    x.len() != y.len()
        || x.iter()
            .zip(y)
            .any(|p| matches!(p, (Dim::Known(m), Dim::Known(n)) if m != n))
}

fn one_element(s: &Shape) -> bool {
    s.as_ref()
        .is_some_and(|d| d.iter().all(|x| *x == Dim::Known(1)))
}

/// An input made explicit, as the pass reports it to [`run_reporting`]'s callback (borrowed: a
/// million of them are not kept).
#[derive(Clone, Copy, Debug)]
pub struct Made<'a> {
    /// The graph's place in the pass's order (main graph and its subgraphs, parents first, then
    /// function bodies), and the node's in the graph's `ops`: with them a caller can keep a
    /// 20-byte entry and find the node again, where the strings would take far more.
    pub graph_index: usize,
    pub ordinal: usize,
    pub graph: &'a str,
    pub node: &'a str,
    pub op_type: &'a str,
    pub slot: usize,
    pub from: &'a Shape,
    pub to: &'a Shape,
}

/// Why a model's broadcasts cannot be made explicit faithfully: the pass refuses the model.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum BroadcastError {
    /// An input cannot be broadcast to its node's output shape (a declaration no input could
    /// produce): expanding to it would plant a broadcast error.
    /// `node` is the node's place: `node '<label>' (<op_type>) in graph <path>`.
    #[error(
        "{node}: input {slot} '{input}' of shape {from} cannot be broadcast to the output shape {to}; the model's shapes are inconsistent"
    )]
    Inconsistent {
        node: String,
        slot: usize,
        input: String,
        from: String,
        to: String,
    },
    /// A broadcast that must be made with Tile (the opset is older than Expand's) and cannot be.
    #[error(
        "{node}: {why}; opset {opset} has no Expand (from opset {EXPAND_SINCE}): convert the model to opset {EXPAND_SINCE} or later first"
    )]
    NoExpand {
        node: String,
        why: String,
        opset: i64,
    },
}

/// A node's place in a [`BroadcastError`].
fn place(label: &str, op: &OpNode, g: &Graph) -> String {
    format!("node '{label}' ({}) in graph {}", op.op_type(), g.path)
}

/// Runs the pass over every graph of `model`, whose inferred shapes are `shapes` (a lint run's, kept).
/// Refuses (Err) models it cannot rewrite faithfully.
pub fn run(
    model: &Model,
    shapes: &[GraphShapes],
    opts: &Options,
) -> Result<Outcome, BroadcastError> {
    let mut insertions = Vec::new();
    let mut out = run_reporting(model, shapes, opts, &mut |m: Made<'_>| {
        insertions.push(Insertion {
            graph: m.graph.to_owned(),
            node: m.node.to_owned(),
            op_type: m.op_type.to_owned(),
            slot: m.slot,
            from: format_shape(m.from),
            to: format_shape(m.to),
        });
    })?;
    out.insertions = insertions;
    Ok(out)
}

/// [`run`], handing each input made explicit to `made` as it is made instead of listing it in
/// [`Outcome::insertions`] (left empty): `expand` writes its report line at once, where a list of a
/// million insertions, five strings each, took more memory than the model.
pub fn run_reporting(
    model: &Model,
    shapes: &[GraphShapes],
    opts: &Options,
    made: &mut dyn FnMut(Made<'_>),
) -> Result<Outcome, BroadcastError> {
    run_split_above(model, shapes, opts, made, halves::SPLIT_ABOVE, None)
}

/// [`run_reporting`], with what [`prepare`] found of the model (on another thread, while inference
/// ran: the load leaves a core idle then).
pub fn run_reporting_prepared<'m>(
    model: &'m Model,
    shapes: &[GraphShapes],
    opts: &Options,
    made: &mut dyn FnMut(Made<'_>),
    prepared: Prepared<'m>,
) -> Result<Outcome, BroadcastError> {
    run_split_above(
        model,
        shapes,
        opts,
        made,
        halves::SPLIT_ABOVE,
        Some(prepared),
    )
}

/// What the pass needs of a model before it rewrites anything, and needs no shapes for: the names it
/// must not clash with, and whether the nodes' labels are distinct. Both walk every node of a large
/// graph (~15 and ~35 ms for a million).
pub struct Prepared<'m> {
    names: Names<'m>,
    distinct_labels: bool,
    /// For a main graph rewritten in two halves, the room for each half's recipes (see [`Room`]).
    rooms: Option<(Room, Room)>,
}

/// Finds what [`run_reporting_prepared`] needs of `model` before the pass (see [`Prepared`]).
pub fn prepare(model: &Model) -> Prepared<'_> {
    prepare_split_above(model, halves::SPLIT_ABOVE)
}

/// [`prepare`] for a pass that rewrites the main graph in two halves when it has at least
/// `split_above` nodes.
fn prepare_split_above(model: &Model, split_above: usize) -> Prepared<'_> {
    let graphs = super::all_graphs(model);
    Prepared {
        names: names_of(model),
        distinct_labels: labels_distinct(&graphs),
        rooms: graphs
            .first()
            .filter(|(g, function)| function.is_none() && g.ops.len() >= split_above)
            .map(|&(g, _)| halves_rooms(model, g)),
    }
}

/// Appends `n` in decimal (an input's slot: one digit nearly always).
fn push_decimal(s: &mut String, n: usize) {
    match u8::try_from(n) {
        Ok(d) if d < 10 => s.push(char::from(b'0' + d)),
        _ => s.push_str(&n.to_string()),
    }
}

/// Room for the recipes of each half of `g` (see [`halves`]): as many as the half has broadcasting
/// nodes (most have one), not a recipe a node, so that a large graph with few broadcasts is not
/// given memory it will not use.
fn halves_rooms(model: &Model, g: &Graph) -> (Room, Room) {
    let imports = model.opset_imports(None);
    let broadcasting = |ordinals: &[crate::ir::NodeId]| {
        ordinals
            .iter()
            .filter_map(|&id| g.op(id))
            .filter(|op| sites::site(op, &imports).is_some())
            .count()
    };
    let (first, second) = g.ops.split_at(halves::split_point(g.ops.len()));
    (
        Room::touched(broadcasting(first)),
        Room::touched(broadcasting(second)),
    )
}

fn names_of(model: &Model) -> Names<'_> {
    Names::of(model, |n| {
        n.contains(NAME_MARK) || n.starts_with(SHAPE_PREFIX)
    })
}

/// [`run_reporting`], the main graph rewritten by two threads when it has at least `split_above`
/// nodes (see [`halves`]).
fn run_split_above<'m>(
    model: &'m Model,
    shapes: &[GraphShapes],
    opts: &Options,
    made: &mut dyn FnMut(Made<'_>),
    split_above: usize,
    prepared: Option<Prepared<'m>>,
) -> Result<Outcome, BroadcastError> {
    let graphs = super::all_graphs(model);
    let nodes: usize = graphs.iter().map(|(g, _)| g.ops.len()).sum();
    let (mut names, distinct_labels, mut rooms) = match prepared {
        Some(p) => (p.names, p.distinct_labels, p.rooms),
        // Apart, the two walks overlap.
        None if nodes >= split_above => std::thread::scope(|s| {
            let labels = std::thread::Builder::new()
                .name("labels".to_owned())
                .spawn_scoped(s, || labels_distinct(&graphs));
            let names = names_of(model);
            let distinct = match labels {
                Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                // No thread to be had: here, then.
                Err(_) => labels_distinct(&graphs),
            };
            (names, distinct, None)
        }),
        None => (names_of(model), labels_distinct(&graphs), None),
    };
    let mut out = Outcome::default();
    let shapes = super::shapes_by_path(shapes);
    if distinct_labels {
        // Every name the pass makes from a node's label is `<label>/expand_in<slot>` and a rest
        // without the mark: the last mark in the name ends the label, so names of distinct
        // labels differ, and one label's names differ by their rests (the model's own names are
        // still checked).
        names.distinct_with(NAME_MARK);
    } else {
        // An Expand and a Shape for (at most a few) inputs of most nodes, in a large graph.
        names.reserve(2 * nodes);
    }
    let legacy_ir = model.header.ir_version.unwrap_or(0) < INITIALIZER_NOT_INPUT_SINCE;
    let distinct = names.is_distinct();
    for (graph_index, (g, function)) in graphs.into_iter().enumerate() {
        let imports = model.opset_imports(function);
        let opset = imports.get("").copied().unwrap_or(0);
        let in_function = function.is_some();
        let infos = shapes.get(g.path.as_str()).copied();
        let mut rw = GraphRewriter {
            g,
            infos,
            patch: GraphPatch::new(g),
            names: &mut names,
            shape_consts: HashMap::new(),
            in_function,
            legacy_ir,
            opset,
            imports,
            out: &mut out,
            made: &mut *made,
            opts,
            graph_index,
            ordinal: 0,
            name_buf: String::new(),
            speculative: None,
            aborted: false,
        };
        let halved = distinct && graph_index == 0 && !in_function && g.ops.len() >= split_above;
        match rooms.take().filter(|_| halved) {
            Some((first, second)) => {
                rw.patch.use_room(first);
                halves::rewrite_in_two(&mut rw, Some(second))?;
            }
            None if halved => {
                rw.patch.reserve(g.ops.len());
                halves::rewrite_in_two(&mut rw, None)?;
            }
            None => {
                rw.patch.reserve(g.ops.len());
                rw.rewrite(0..g.ops.len())?;
            }
        }
        let patch = rw.patch;
        if !patch.is_empty() {
            out.patch.graphs.push(patch);
        }
    }
    Ok(out)
}

/// True when no two nodes of `graphs` have one label (name, or `#position`), all graphs together.
/// Judged by 64-bit hashes: two labels of one hash count as the same.
fn labels_distinct(graphs: &[(&Graph, Option<usize>)]) -> bool {
    use std::hash::BuildHasher;
    let hasher = foldhash::quality::FixedState::with_seed(0);
    // Sorted, not put in a table: a table of a million hashes is read at random, and took 3x the
    // time of the sort (instrumented runs on `synthetic_1M`).
    let mut hashes: Vec<u64> = Vec::with_capacity(graphs.iter().map(|(g, _)| g.ops.len()).sum());
    for (g, _) in graphs {
        hashes.extend(
            g.ops
                .iter()
                .filter_map(|&id| g.op(id))
                .map(|op| hasher.hash_one(op.label().as_ref())),
        );
    }
    hashes.sort_unstable();
    hashes.windows(2).all(|w| w[0] != w[1])
}

struct GraphRewriter<'a, 'm> {
    g: &'a Graph,
    infos: Option<&'a GraphShapes>,
    patch: GraphPatch,
    names: &'a mut Names<'m>,
    /// Name of the int64 tensor holding each static target shape, per graph.
    shape_consts: HashMap<Vec<u64>, String>,
    /// New tensors are `Constant` nodes in function bodies, which cannot hold initializers.
    in_function: bool,
    /// IR version < 4: every initializer must also be listed as a graph input. (Constant nodes are
    /// no way out: before opset 9 they cannot hold int64.)
    legacy_ir: bool,
    /// Version of the default domain in force: below 8 there is no Expand, and Reshape + Tile stand in.
    opset: i64,
    /// The graph's opset imports, which say how each node broadcasts ([`sites::site`]).
    imports: Imports<'m>,
    out: &'a mut Outcome,
    /// Told of every input made explicit.
    made: &'a mut dyn FnMut(Made<'_>),
    opts: &'a Options,
    /// Where the node being rewritten is (see [`Made`]).
    graph_index: usize,
    ordinal: usize,
    /// The buffer names are made in: a name or two per broadcast, a million in a large graph.
    name_buf: String,
    /// For a rewriter of part of a graph on another thread (see [`halves`]): the inputs made
    /// explicit, as (ordinal, input), to be told the caller later; and whether it met what it cannot
    /// do alone.
    speculative: Option<Vec<(u32, u32)>>,
    aborted: bool,
}

fn node(op_type: &str, name: String, inputs: Vec<String>, outputs: Vec<String>) -> NodeProto {
    NodeProto {
        op_type: Some(op_type.into()),
        name: Some(name),
        input: inputs,
        output: outputs,
        ..Default::default()
    }
}

/// The graph input that declares an int64 1-D initializer of `len` values.
fn int64_input(name: &str, len: usize) -> ValueInfoProto {
    use crate::proto::{TensorShapeProto, TypeProto, tensor_shape_proto, type_proto};
    let dim = tensor_shape_proto::Dimension {
        value: Some(tensor_shape_proto::dimension::Value::DimValue(len as i64)),
        ..Default::default()
    };
    ValueInfoProto {
        name: Some(name.to_owned()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(DataType::Int64 as i32),
                shape: Some(TensorShapeProto { dim: vec![dim] }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn int64_tensor(name: &str, values: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.to_owned()),
        data_type: Some(DataType::Int64 as i32),
        dims: vec![values.len() as i64],
        raw_data: Some(
            values
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>()
                .into(),
        ),
        ..Default::default()
    }
}

impl<'a> GraphRewriter<'a, '_> {
    /// Rewrites the nodes of `ordinals` (positions in the graph's `ops`), in order.
    fn rewrite(&mut self, ordinals: std::ops::Range<usize>) -> Result<(), BroadcastError> {
        let g = self.g;
        for ordinal in ordinals {
            let Some(op) = g.ops.get(ordinal).and_then(|&id| g.op(id)) else {
                continue;
            };
            self.ordinal = ordinal;
            if opset_domain(op.domain()) == "com.microsoft" {
                self.required_smaller(op);
            }
            let Some(k) = sites::site(op, &self.imports) else {
                continue;
            };
            self.node(op, k)?;
        }
        Ok(())
    }

    /// [`GraphRewriter::shape_of_id`], borrowed from inference's table: the pass reads two or three
    /// shapes per node, and a copy of a symbolic shape is an allocation per dim.
    fn shape_ref(&self, id: Option<ValueId>) -> &'a Shape {
        static UNKNOWN: Shape = None;
        let infos: Option<&'a GraphShapes> = self.infos;
        id.and_then(|id| infos?.info(id.index()))
            .map_or(&UNKNOWN, |v| &v.shape)
    }

    /// The shape of value `id` (unknown for `None`), read without a name lookup.
    fn shape_of_id(&self, id: Option<ValueId>) -> Shape {
        self.infos?.info(id?.index())?.shape.clone()
    }

    /// The value input `slot` of `op` reads, if any.
    fn input_id(&self, op: &OpNode, slot: usize) -> Option<ValueId> {
        self.g.input_ids(op).get(slot).copied().flatten()
    }

    /// The shapes of input `slot` and output 0 of `op`.
    fn input_shape(&self, op: &OpNode, slot: usize) -> Shape {
        self.shape_of_id(self.input_id(op, slot))
    }

    fn output_shape(&self, op: &OpNode) -> Shape {
        self.shape_of_id(self.g.output_ids(op).first().copied().flatten())
    }

    /// True when value `id` is the output of an `Expand` node of this graph.
    fn is_expand_output(&self, id: Option<ValueId>) -> bool {
        let Some(id) = id else {
            return false;
        };
        self.g
            .op(self.g.value(id).producer.0)
            .is_some_and(|op| op.op_type() == "Expand" && opset_domain(op.domain()).is_empty())
    }

    /// Queues `n` to be inserted before the consumer at source position `at`.
    fn insert(&mut self, at: usize, n: NodeProto) {
        self.patch.insert(at, &n);
    }

    /// The name of an int64 1-D tensor holding `values`: an initializer, or (in a function body or
    /// an IR < 4 model) a Constant node placed before the consumer at `at`.
    fn const_i64(&mut self, at: usize, base: &str, values: &[i64]) -> String {
        let name = self.names.fresh(base);
        let t = int64_tensor(&name, values);
        if self.in_function {
            let mut c = node("Constant", name.clone(), vec![], vec![name.clone()]);
            c.attribute.push(AttributeProto {
                name: Some("value".into()),
                r#type: Some(AttributeType::Tensor as i32),
                t: Some(t),
                ..Default::default()
            });
            self.insert(at, c);
            return name;
        }
        if self.legacy_ir {
            // IR < 4: an initializer must also be a graph input (with its default value).
            self.patch.inputs.push(int64_input(&name, values.len()));
        }
        self.patch.initializers.push(t);
        name
    }

    /// The tensor holding the static shape `dims`, shared by every use in this graph.
    fn static_target(&mut self, at: usize, dims: &[u64]) -> String {
        if let Some(n) = self.shape_consts.get(dims) {
            return n.clone();
        }
        let label: Vec<String> = dims.iter().map(u64::to_string).collect();
        let base = format!("onnx_lint_shape_{}", label.join("x"));
        let values: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let name = self.const_i64(at, &base, &values);
        // Constant nodes are one per use; initializers are shared graph-wide.
        if !self.in_function {
            self.shape_consts.insert(dims.to_vec(), name.clone());
        }
        name
    }

    fn node(&mut self, op: &OpNode, k: Kind) -> Result<(), BroadcastError> {
        let mut buf = std::mem::take(&mut self.name_buf);
        let done = self.node_with(op, k, &mut buf);
        self.name_buf = buf;
        done
    }

    /// [`GraphRewriter::node`], with `base` a buffer for the names it makes.
    fn node_with(&mut self, op: &OpNode, k: Kind, base: &mut String) -> Result<(), BroadcastError> {
        // Their target is made here, not read from inference's table: a speculative rewriter
        // could not tell it later.
        if self.speculative.is_some() && matches!(k, Kind::Normalized(_) | Kind::AttentionBias(_)) {
            self.aborted = true;
            return Ok(());
        }
        let out_shape: std::borrow::Cow<'a, Shape> = match k {
            Kind::Normalized(_) => std::borrow::Cow::Owned(self.normalized_shape(op)),
            Kind::AttentionBias(slot) => std::borrow::Cow::Owned(attention_bias_target(
                &self.input_shape(op, 0),
                &self.input_shape(op, slot),
                num_heads(op),
            )),
            _ => std::borrow::Cow::Borrowed(
                self.shape_ref(self.g.output_ids(op).first().copied().flatten()),
            ),
        };
        let slots = k.slots(op.num_inputs());
        let label = op.label();
        let g = self.g;
        // The shapes of all the node's inputs, read once and only for a node a kernel exception names.
        let mut node_shapes = None;
        for &slot in &slots {
            let input = g.input_name(op, slot);
            if input.is_empty() {
                continue;
            }
            let in_shape = self.shape_ref(self.input_id(op, slot));
            if same_shape(in_shape, &out_shape) {
                continue;
            }
            // The target may come from a declaration that no input value could produce (found by
            // fuzzing: x [3, 4, 69] plus an untyped y, output declared [3, 4, 5]). Expanding to it
            // would plant a broadcast error; the model is inconsistent, so refuse.
            if !matches!(k, Kind::LegacyAxis(_))
                && crate::shape::broadcast::unidirectional_fails(&out_shape, in_shape)
            {
                return Err(BroadcastError::Inconsistent {
                    node: place(&label, op, self.g),
                    slot,
                    input: input.to_owned(),
                    from: format_shape(in_shape),
                    to: format_shape(&out_shape),
                });
            }
            // Not provably the same shape, nor provably another one (unknown sizes), and already the
            // output of an Expand: taken as explicit. Without this, the Expand inserted by a first
            // run (whose output sizes are as unknown as its input's) would get another Expand on
            // every run, and `expand` of its own output would not be a no-op.
            if !known_to_differ(in_shape, &out_shape)
                && self.is_expand_output(self.input_id(op, slot))
            {
                continue;
            }
            if self.opts.keep_scalars && one_element(in_shape) {
                continue;
            }
            if !self.opts.force_explicit
                && let Some(e) = self.exception(op, slot, &k, &out_shape, &mut node_shapes)
            {
                self.out.kept.push(Kept {
                    graph: self.g.path.clone(),
                    node: label.clone().into_owned(),
                    op_type: op.op_type().to_owned(),
                    slot,
                    from: format_shape(in_shape),
                    to: format_shape(&out_shape),
                    reason: e.reason,
                });
                continue;
            }
            // Put together from its pieces, not with `write!`: the formatting machinery was a twentieth
            // of the pass of a million nodes.
            base.clear();
            base.push_str(&label);
            base.push_str("/expand_in");
            push_decimal(base, slot);
            if self.speculative.is_some() && self.opset < EXPAND_SINCE {
                self.aborted = true;
                return Ok(());
            }
            if self.opset < EXPAND_SINCE {
                self.tile(op, &k, slot, input, in_shape, &out_shape, base)?;
                continue;
            }
            if self.recipe(op, &k, slot, base, &out_shape) {
                self.report(op, &label, slot, in_shape, &out_shape);
                continue;
            }
            // The other targets take names and tensors shared by the whole graph.
            if self.speculative.is_some() {
                self.aborted = true;
                return Ok(());
            }
            let target = if let Some(dims) = is_static(&out_shape) {
                Some(self.static_target(op.index(), &dims))
            } else {
                self.runtime_target(op, &k, slot, base)
            };
            let Some(target) = target else {
                self.out.left.push(format!(
                    "graph {}, node '{label}' ({}), input {slot} '{input}': the output shape {} is not known well enough to make the broadcast explicit",
                    self.g.path,
                    op.op_type(),
                    format_shape(&out_shape)
                ));
                continue;
            };
            let name = self.names.fresh(base);
            self.patch.insert_node(
                op.index(),
                "Expand",
                &name,
                &[input, &target],
                &[&name],
                &[],
            );
            self.patch.rewire(op.index(), slot, &name);
            self.report(op, &label, slot, in_shape, &out_shape);
        }
        Ok(())
    }

    /// Tells the caller input `slot` of `op` (labelled `label`) was made explicit, from `from` to `to`.
    fn report(&mut self, op: &OpNode, label: &str, slot: usize, from: &Shape, to: &Shape) {
        if let Some(pending) = &mut self.speculative {
            // Both shapes are found again from the node when told (see `halves`).
            pending.push((halves::small(self.ordinal), halves::small(slot)));
            return;
        }
        (self.made)(Made {
            graph_index: self.graph_index,
            ordinal: self.ordinal,
            graph: &self.g.path,
            node: label,
            op_type: op.op_type(),
            slot,
            from,
            to,
        });
    }

    /// Makes input `slot` explicit with a [`Recipe`] where its target is a shared initializer or the
    /// `Shape` of one of the node's own inputs (the common case): the two nodes are then made as the
    /// output is written. Not in function bodies (whose targets are Constant nodes), nor for a node
    /// holding a subgraph. The names are taken as the general path takes them, in the same order, so
    /// the output is the same bytes. Returns false, having done nothing, where it does not apply.
    fn recipe(
        &mut self,
        op: &OpNode,
        k: &Kind,
        slot: usize,
        base: &mut String,
        out_shape: &Shape,
    ) -> bool {
        if self.in_function || !op.subgraphs().is_empty() {
            return false;
        }
        let Ok(slot32) = u32::try_from(slot) else {
            return false;
        };
        // The target: a shared initializer, or the Shape of one of the node's inputs (whose name is
        // taken first, as `runtime_target` takes it).
        let (shape_of, k_shape, target) = if let Some(dims) = is_static(out_shape) {
            // A static target is a tensor shared by the whole graph.
            if self.speculative.is_some() {
                return false;
            }
            (STATIC, 0, Some(self.static_target(op.index(), &dims)))
        } else {
            let Some(of) = self
                .shape_source(op, k, slot, out_shape)
                .and_then(|j| u32::try_from(j).ok())
            else {
                return false;
            };
            let len = base.len();
            base.push_str("/shape");
            let k_shape = self.names.fresh_suffix_marked(base);
            base.truncate(len);
            (of, k_shape, None)
        };
        let recipe = Recipe {
            slot: slot32,
            shape_of,
            k_expand: self.names.fresh_suffix_marked(base),
            k_shape,
            known: self.known(op, slot, shape_of),
        };
        self.patch.expand(op.index(), recipe, target.as_deref());
        true
    }

    /// The lengths a recipe for input `slot` of `op` (targeting the `Shape` of input `shape_of`) is
    /// made of, when the node's record holds its inputs in the shortest encoding: the writer then
    /// measures the output without reading the record again.
    fn known(&self, op: &OpNode, slot: usize, shape_of: u32) -> Option<Known> {
        if !op.plain_inputs() {
            return None;
        }
        let len = |s: &str| u32::try_from(s.len()).ok();
        let of = match shape_of {
            STATIC => 0,
            j => len(self.g.input_name(op, j as usize))?,
        };
        Some(Known {
            name: len(op.name())?,
            input: len(self.g.input_name(op, slot))?,
            shape_of: of,
        })
    }

    /// The input of `op` whose shape is the target of input `slot` at run time, when there is one
    /// (as [`GraphRewriter::runtime_target`] finds it).
    fn shape_source(&self, op: &OpNode, k: &Kind, slot: usize, out_shape: &Shape) -> Option<usize> {
        match k {
            Kind::ToFirst(_) => Some(0),
            Kind::Multi | Kind::MultiOf(_) => (0..op.num_inputs()).find(|&j| {
                j != slot
                    && !matches!(k, Kind::MultiOf(s) if !s.contains(&j))
                    && !self.g.input_name(op, j).is_empty()
                    && same_shape(self.shape_ref(self.input_id(op, j)), out_shape)
            }),
            _ => None,
        }
    }

    /// Lists the inputs of a contrib `op` that its definition requires smaller than its output (and
    /// that are), as left implicit with the reason.
    fn required_smaller(&mut self, op: &OpNode) {
        let Some((_, slots, reason)) = REQUIRED_SMALLER
            .iter()
            .find(|(name, _, _)| *name == op.op_type())
        else {
            return;
        };
        let out_shape = self.output_shape(op);
        for &slot in *slots {
            if self.g.input_name(op, slot).is_empty() {
                continue;
            }
            let in_shape = self.input_shape(op, slot);
            if same_shape(&in_shape, &out_shape) {
                continue;
            }
            self.out.required.push(Kept {
                graph: self.g.path.clone(),
                node: op.label().into_owned(),
                op_type: op.op_type().to_owned(),
                slot,
                from: format_shape(&in_shape),
                to: format_shape(&out_shape),
                reason,
            });
        }
    }

    /// The kernel exception for input `slot` of `op` (broadcast to `target`), if one applies;
    /// `shapes` caches the node's input shapes across its slots.
    fn exception(
        &self,
        op: &OpNode,
        slot: usize,
        k: &Kind,
        target: &Shape,
        shapes: &mut Option<Vec<Shape>>,
    ) -> Option<&'static KernelException> {
        // The legacy rule is onnxruntime's opset-6 kernels, which it no longer has.
        if matches!(k, Kind::LegacyAxis(_))
            || !KERNEL_EXCEPTIONS.iter().any(|e| e.op_type == op.op_type())
        {
            return None;
        }
        let inputs = shapes.get_or_insert_with(|| {
            (0..op.num_inputs())
                .map(|j| self.input_shape(op, j))
                .collect()
        });
        let elem = self
            .input_id(op, 0)
            .and_then(|id| self.infos?.info(id.index())?.elem);
        let site = Site {
            slot,
            elem,
            inputs,
            target,
        };
        kernel_exception(op.op_type(), &site)
    }

    /// `X.shape[axis:]` of a normalization node, when X's rank is known.
    fn normalized_shape(&self, op: &OpNode) -> Shape {
        sites::normalized(&self.input_shape(op, 0), sites::norm_axis(op))
    }
}

/// The `check --explicit` rule: every broadcast the pass would make explicit, as a warning, and every
/// one it leaves implicit on purpose (a kernel exception, an operand its operator requires smaller), as
/// an info saying why.
pub fn implicit_broadcasts(
    model: &Model,
    shapes: &[GraphShapes],
    opts: &Options,
) -> Vec<Diagnostic> {
    let Ok(outcome) = run(model, shapes, opts) else {
        return Vec::new();
    };
    let made = outcome.insertions.iter().map(|i| {
        Diagnostic::new(
            Code::ImplicitBroadcast,
            &i.graph,
            format!(
                "input {} of '{}' ({}) is broadcast implicitly from {} to {}",
                i.slot, i.node, i.op_type, i.from, i.to
            ),
        )
        .at_node(&i.node, &i.op_type)
        .note("`onnx-lint expand` inserts an Expand node to make it explicit")
    });
    // An input left implicit on purpose is an info: why, and whether --force-explicit would change it.
    let info = |k: &Kept, why: &str, force: bool| {
        let d = Diagnostic::new(
            Code::ImplicitBroadcast,
            &k.graph,
            format!(
                "input {} of '{}' ({}) is broadcast implicitly from {} to {}; {why}",
                k.slot, k.node, k.op_type, k.from, k.to
            ),
        )
        .severity(crate::diagnostics::Severity::Info)
        .at_node(&k.node, &k.op_type)
        .note(k.reason);
        if force {
            d.note("`onnx-lint expand --force-explicit` makes it explicit anyway")
        } else {
            d
        }
    };
    let kept = outcome
        .kept
        .iter()
        .map(|k| info(k, "`expand` keeps it implicit on purpose", true));
    let required = outcome
        .required
        .iter()
        .map(|k| info(k, "the operator requires it so", false));
    made.chain(kept).chain(required).collect()
}
