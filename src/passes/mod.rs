//! Passes: analyses that propose changes to a model as a [`Patch`] (nodes to insert, inputs to rewire,
//! initializers to add) instead of mutating it. Applying a patch is separate: [`Patch::to_edit`] turns
//! it into a wire-level edit of the source bytes, so everything the patch does not mention is written
//! back exactly as it was read.
//!
//! Passes read what shape inference found (`shape::infer::GraphShapes`, as a lint run returns it in
//! `lint::Findings::shapes`) beside the model: the IR does not hold it.

pub mod annotate;
pub mod explicit_broadcast;
pub mod fold_expand;

use crate::file::list_edit::{ListEdit, ListMark, Room};
use crate::file::node_record::{NewNode, Text};
use crate::file::schema::{function, graph, node};
use crate::file::wire::{Action, Edit, write_len_record};
use crate::ir::{Graph, Model, WirePath};
use crate::proto::{AttributeProto, NodeProto, TensorProto, ValueInfoProto};
use crate::shape::infer::GraphShapes;
use explicit_broadcast::recipe::Recipe;
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
    /// The edit of the graph's node list (field 1 of a GraphProto, 7 of a FunctionProto): new nodes
    /// before a node, rewired inputs, dropped attributes, removed nodes. Inserted nodes are encoded as
    /// they are made (a rewrite of a million nodes would otherwise hold two million `NodeProto`s),
    /// all into one buffer.
    nodes: ListEdit,
    /// Initializers appended to the graph (a GraphProto; function bodies use Constant nodes instead).
    pub initializers: Vec<TensorProto>,
    /// Graph inputs appended (models of IR version < 4 list every initializer as an input too).
    pub inputs: Vec<ValueInfoProto>,
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
            nodes: ListEdit::new(g.node_field),
            ..Default::default()
        }
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
            && self.initializers.is_empty()
            && self.inputs.is_empty()
            && self.remove_initializers.is_empty()
            && self.remove_value_info.is_empty()
    }

    /// Field number of the node list in the graph's message (1 in GraphProto, 7 in FunctionProto).
    pub fn node_field(&self) -> u32 {
        self.nodes.field
    }

    /// Makes room for insertions before, and rewires of, `nodes` nodes. Room only: memory the
    /// allocator hands out is not touched until it is used, and a vector grown by doubling instead
    /// copies itself over and over (a tenth of a million-node rewrite's time).
    pub fn reserve(&mut self, nodes: usize) {
        self.nodes.reserve(nodes);
    }

    /// Takes room made ahead for the node list's edit (see [`Room`]), if nothing is queued yet.
    pub fn use_room(&mut self, room: Room) {
        self.nodes.use_room(room);
    }

    pub fn inserted_nodes(&self) -> usize {
        self.nodes.inserted()
    }

    /// Starts the record of a node of `len` bytes queued before the node at source position `at`
    /// and returns the bytes to append its body to.
    fn queue_record(&mut self, at: usize, len: usize) -> &mut Vec<u8> {
        self.nodes.queue_record(at, len)
    }

    /// Queues `node` to be inserted before the node at source position `at`, after those queued there
    /// already.
    pub fn insert(&mut self, at: usize, node: &NodeProto) {
        let bytes = self.queue_record(at, node.encoded_len());
        // Encoding into a vector with room reserved cannot fail.
        let _ = node.encode(bytes);
    }

    /// [`GraphPatch::insert`] of the node `name` (`op_type`, default domain) reading `inputs` and
    /// writing `outputs`, encoded straight from these strings: the same bytes as encoding its
    /// `NodeProto` (fields in field-number order, as prost writes them), without the six strings and
    /// two vectors a `NodeProto` is built of, for each of a million inserted nodes.
    pub fn insert_node(
        &mut self,
        at: usize,
        op_type: &str,
        name: &str,
        inputs: &[&str],
        outputs: &[&str],
        attributes: &[AttributeProto],
    ) {
        fn text<'a>(s: &[&'a str]) -> smallvec::SmallVec<[Text<'a>; 4]> {
            s.iter().map(|s| Text::Bytes(s.as_bytes())).collect()
        }
        let (inputs, outputs) = (text(inputs), text(outputs));
        let node = NewNode {
            inputs: &inputs,
            outputs: &outputs,
            name: Text::Bytes(name.as_bytes()),
            op_type: op_type.as_bytes(),
            attributes,
        };
        let bytes = self.queue_record(at, node.payload_len());
        node.put_payload(bytes);
    }

    /// Queues the `Expand` `recipe` describes before the node at source position `at` (a node that
    /// holds no subgraph), and rewires the node's input to it: made as the output is written, from
    /// the node's record. `target` names the static target shape, if the recipe has one.
    pub fn expand(&mut self, at: usize, recipe: Recipe, target: Option<&str>) {
        self.nodes
            .queue_made(at, recipe, target.unwrap_or_default().as_bytes());
    }

    /// Where the node list's edit stands (see [`GraphPatch::rollback`]).
    pub fn mark(&mut self) -> ListMark {
        self.nodes.mark()
    }

    /// Drops the changes of the node list made since `mark`.
    pub fn rollback(&mut self, mark: ListMark) {
        self.nodes.rollback(mark);
    }

    /// Appends the changes of `other`, a patch of the same graph made apart (the nodes another
    /// thread rewrote), after this one's: as if they had been made here in that order. False,
    /// changing nothing, when `other` changes more than the node list.
    pub fn append(&mut self, other: GraphPatch) -> bool {
        if !(other.initializers.is_empty()
            && other.inputs.is_empty()
            && other.remove_initializers.is_empty()
            && other.remove_value_info.is_empty())
        {
            return false;
        }
        self.nodes.append(other.nodes);
        true
    }

    /// Makes input `slot` of the node at source position `at` read the value `name` (the last call
    /// for one input wins).
    pub fn rewire(&mut self, at: usize, slot: usize, name: &str) {
        self.nodes.replace(at, node::INPUT, slot, name.as_bytes());
    }

    /// Removes attribute `attribute` (its position in the node) of the node at source position `at`.
    pub fn drop_attribute(&mut self, at: usize, attribute: usize) {
        self.nodes.drop_sub(at, node::ATTRIBUTE, attribute);
    }

    /// Removes the node at source position `at` (its rewires and attribute changes, if any, go with
    /// it; nodes queued before it stay).
    pub fn remove_node(&mut self, at: usize) {
        self.nodes.remove(at);
    }

    pub fn removed_nodes(&self) -> usize {
        self.nodes.removed()
    }
}

/// The changes a pass proposes, graph by graph.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Patch {
    pub graphs: Vec<GraphPatch>,
}

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
        let mut graphs = self.graphs;
        // Subgraphs first: a parent's node list then finds which of its nodes hold an edited
        // subgraph (see `Edit::set_list`).
        graphs.sort_by_key(|g| std::cmp::Reverse(g.wire.len()));
        for mut gp in graphs.into_iter().filter(|g| !g.is_empty()) {
            let mut edit = &mut root;
            for &(field, occurrence) in &gp.wire {
                edit = edit.child(field, occurrence);
            }
            let node_field = gp.node_field();
            edit.set_list(std::mem::take(&mut gp.nodes));
            for &index in &gp.remove_initializers {
                edit.at(graph::INITIALIZER, index).action = Action::Replace(Vec::new());
            }
            let value_info_field = if node_field == function::NODE {
                function::VALUE_INFO
            } else {
                graph::VALUE_INFO
            };
            for &index in &gp.remove_value_info {
                edit.at(value_info_field, index).action = Action::Replace(Vec::new());
            }
            for t in &gp.initializers {
                write_len_record(&mut edit.append, graph::INITIALIZER, &t.encode_to_vec());
            }
            for vi in &gp.inputs {
                write_len_record(&mut edit.append, graph::INPUT, &vi.encode_to_vec());
            }
        }
        root
    }
}

/// Hands out names no graph of the model uses yet (values and nodes share one pool, so a new node
/// and its output may carry the same name).
///
/// Every name a pass gives carries a mark (`could_clash`: `/expand_in` or the `onnx_lint_shape_`
/// prefix), and so does every `base_k` made from a marked base: only the model's names that carry the
/// mark can clash, and only those are indexed. A table of all the names of a million-node model cost
/// ~70 MB and a tenth of `expand`'s time; a model has few marked names (none unless already expanded).
pub struct Names<'m> {
    model: &'m Model,
    could_clash: fn(&str) -> bool,
    /// The model's names that could clash with a name handed out, borrowed from it.
    existing: hashbrown::HashSet<&'m str>,
    /// Every name of the model, made only if a base without the mark is asked for.
    all: Option<hashbrown::HashSet<&'m str>>,
    /// The hashes of the names handed out by [`Names::fresh`] (64 bits, of a fixed seed). Not the
    /// names: a rewrite of a million nodes hands out two million, ~80 MB as text and index. Two names
    /// of one hash (odds of about 1 in 10^13 for two million names) only make the second take the
    /// next suffix: names stay distinct, and the same from run to run.
    new: hashbrown::HashTable<u64>,
    hasher: foldhash::quality::FixedState,
    /// Names containing this are distinct by construction and are not recorded (see
    /// [`Names::distinct_with`]).
    distinct_with: Option<&'static str>,
    /// A copy for a speculative pass (see [`Names::speculative`]), and whether it was asked for a
    /// name it cannot hand out alone.
    speculative: bool,
    blocked: bool,
}

impl<'m> Names<'m> {
    /// The names of `model`; `could_clash` is true of every name the pass will ask for (else it
    /// still works, by indexing every name of the model the first time).
    pub fn of(model: &'m Model, could_clash: fn(&str) -> bool) -> Self {
        Names {
            model,
            could_clash,
            existing: Self::model_names(model, could_clash),
            all: None,
            new: hashbrown::HashTable::new(),
            hasher: foldhash::quality::FixedState::with_seed(0x6f6e_6e78_6c69_6e74),
            distinct_with: None,
            speculative: false,
            blocked: false,
        }
    }

    /// A copy that hands out only the names distinct by construction (see
    /// [`Names::distinct_with`]), which need no record of the names handed out: for a pass over
    /// part of a graph on another thread. Asked for any other name, it answers anything and is
    /// [`Names::blocked`]: the caller must then drop what it did with the answer.
    pub fn speculative(&self) -> Names<'m> {
        Names {
            model: self.model,
            could_clash: self.could_clash,
            existing: self.existing.clone(),
            all: None,
            new: hashbrown::HashTable::new(),
            hasher: self.hasher,
            distinct_with: self.distinct_with,
            speculative: true,
            blocked: false,
        }
    }

    /// True once [`Names::distinct_with`] was said.
    pub fn is_distinct(&self) -> bool {
        self.distinct_with.is_some()
    }

    /// True when a [`Names::speculative`] copy was asked for a name it cannot hand out.
    pub fn blocked(&self) -> bool {
        self.blocked
    }

    /// The names `model` uses for which `keep` is true.
    fn model_names(model: &'m Model, keep: fn(&str) -> bool) -> hashbrown::HashSet<&'m str> {
        let mut existing = hashbrown::HashSet::new();
        for g in model.graphs() {
            // Every input and output name is a value's, or one that did not resolve.
            existing.extend(g.values.iter().map(|v| v.name).filter(|n| keep(n)));
            existing.extend(g.unresolved.values().map(|n| &**n).filter(|n| keep(n)));
            for &id in &g.ops {
                if let Some(op) = g.op(id)
                    && keep(op.name())
                {
                    existing.insert(op.name());
                }
            }
            existing.extend(g.declared_values().map(|v| v.name()).filter(|n| keep(n)));
        }
        existing
    }

    fn hash(&self, name: &str) -> u64 {
        use std::hash::BuildHasher;
        self.hasher.hash_one(name)
    }

    fn in_model(&mut self, name: &str) -> bool {
        if (self.could_clash)(name) {
            return self.existing.contains(name);
        }
        let model = self.model;
        self.all
            .get_or_insert_with(|| Self::model_names(model, |_| true))
            .contains(name)
    }

    /// Says that the caller's names containing `mark` are distinct from each other and from every
    /// other name it asks for, by how it makes them: only the model's names need be checked for
    /// them. A table of two million names handed out, probed at random, was a tenth of a large
    /// rewrite's time.
    pub fn distinct_with(&mut self, mark: &'static str) {
        self.distinct_with = Some(mark);
    }

    /// Takes `name` if it is free: the model does not use it and it was not handed out.
    fn take(&mut self, name: &str) -> bool {
        // A speculative copy has neither the index of all the model's names nor the record of
        // the names handed out.
        if self.speculative && !(self.could_clash)(name) {
            self.blocked = true;
            return true;
        }
        if self.in_model(name) {
            return false;
        }
        if self.distinct_with.is_some_and(|mark| name.contains(mark)) {
            return true;
        }
        if self.speculative {
            self.blocked = true;
            return true;
        }
        let h = self.hash(name);
        match self.new.entry(h, |&x| x == h, |&x| x) {
            hashbrown::hash_table::Entry::Occupied(_) => false,
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(h);
                true
            }
        }
    }

    /// `base`, or `base_1`, `base_2`... whichever is free; it is then taken.
    pub fn fresh(&mut self, base: &str) -> String {
        match self.fresh_suffix(base) {
            0 => base.to_owned(),
            k => format!("{base}_{k}"),
        }
    }

    /// Makes room for `n` names handed out: a table grown by doubling rehashes every name it holds
    /// at each step.
    pub fn reserve(&mut self, n: usize) {
        self.new.reserve(n, |&h| h);
    }

    /// [`Names::fresh_suffix`] of a `base` that carries the mark said to
    /// [`Names::distinct_with`] (and so could clash), as the caller made it: the name is then free
    /// unless the model has it, which needs no scan of the name for the mark. Two scans for each of
    /// the three asks of a name were a tenth of a large rewrite's pass (perf).
    pub fn fresh_suffix_marked(&mut self, base: &str) -> u32 {
        debug_assert!(
            self.distinct_with.is_none_or(|m| base.contains(m)) && (self.could_clash)(base),
            "{base} is not marked"
        );
        if self.distinct_with.is_some() && !self.existing.contains(base) {
            return 0;
        }
        self.fresh_suffix(base)
    }

    /// [`Names::fresh`], as the suffix it gave (0: none).
    pub fn fresh_suffix(&mut self, base: &str) -> u32 {
        let mut k = 0;
        if self.take(base) {
            return k;
        }
        loop {
            k += 1;
            if self.take(&format!("{base}_{k}")) {
                return k;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patch() -> GraphPatch {
        GraphPatch {
            nodes: ListEdit::new(1),
            ..Default::default()
        }
    }

    #[test]
    fn a_node_encoded_from_its_strings_is_the_bytes_of_its_node_proto() {
        let start = AttributeProto {
            name: Some("start".into()),
            r#type: Some(crate::proto::attribute_proto::AttributeType::Int as i32),
            i: Some(-2),
            ..Default::default()
        };
        let long = "a".repeat(200);
        for (inputs, attributes) in [
            (vec!["x", "onnx_lint_shape_2x3"], vec![]),
            (vec![long.as_str()], vec![start.clone()]),
            (vec![""], vec![start.clone(), start.clone()]),
        ] {
            let proto = NodeProto {
                op_type: Some("Expand".into()),
                name: Some("n/expand_in1".into()),
                input: inputs.iter().map(|s| s.to_string()).collect(),
                output: vec!["n/expand_in1".into()],
                attribute: attributes.clone(),
                ..Default::default()
            };
            let (mut a, mut b) = (patch(), patch());
            a.insert(3, &proto);
            b.insert_node(
                3,
                "Expand",
                "n/expand_in1",
                &inputs,
                &["n/expand_in1"],
                &attributes,
            );
            assert_eq!(a, b);
        }
    }

    #[test]
    fn edits_made_out_of_order_are_sorted_and_the_last_rewire_of_an_input_wins() {
        let node = |name: &str| NodeProto {
            op_type: Some("Shape".into()),
            name: Some(name.into()),
            ..Default::default()
        };
        let mut p = patch();
        p.path = "main".into();
        p.insert(5, &node("a"));
        p.insert(2, &node("b"));
        p.insert(5, &node("c"));
        p.rewire(7, 1, "late");
        p.rewire(3, 0, "first");
        p.rewire(7, 1, "last");
        let mut q = patch();
        q.path = "main".into();
        q.insert(2, &node("b"));
        q.insert(5, &node("a"));
        q.insert(5, &node("c"));
        q.rewire(3, 0, "first");
        q.rewire(7, 1, "last");
        // A graph of eight nodes, each reading two inputs, at wire path [] (the graph is the message).
        let graph = crate::proto::GraphProto {
            node: (0..8)
                .map(|i| NodeProto {
                    input: vec![format!("x{i}"), format!("y{i}")],
                    ..node(&format!("n{i}"))
                })
                .collect(),
            ..Default::default()
        };
        let src = graph.encode_to_vec();
        let spliced = |p: GraphPatch| {
            let edit = Patch { graphs: vec![p] }.into_edit();
            let out = crate::file::wire::splice(&src, 0..src.len(), &edit).expect("splices");
            crate::proto::GraphProto::decode(out.to_vec(&src).as_slice()).expect("decodes")
        };
        let (a, b) = (spliced(p), spliced(q));
        assert_eq!(a, b);
        let names: Vec<&str> = a.node.iter().map(|n| n.name()).collect();
        assert_eq!(
            names,
            [
                "n0", "n1", "b", "n2", "n3", "n4", "a", "c", "n5", "n6", "n7"
            ]
        );
        assert_eq!(a.node[4].input, ["first", "y3"]);
        assert_eq!(a.node[10].input, ["x7", "last"]);
    }

    #[test]
    fn an_expand_made_from_a_recipe_is_the_bytes_of_the_nodes_it_stands_for() {
        use super::explicit_broadcast::recipe::{Recipe, STATIC};
        let consumer = |name: &str| NodeProto {
            op_type: Some("Add".into()),
            name: Some(name.into()),
            input: vec!["x".into(), "c".into()],
            output: vec![format!("{name}_out")],
            ..Default::default()
        };
        // A named node (its name twice in the record: the last one counts, as decoders read it),
        // and an unnamed one, labelled by its position.
        let mut named = consumer("first").encode_to_vec();
        write_len_record(&mut named, 3, b"n1");
        let graph: Vec<u8> = [
            named,
            consumer("").encode_to_vec(),
            consumer("n3").encode_to_vec(),
        ]
        .iter()
        .flat_map(|n| {
            let mut r = Vec::new();
            write_len_record(&mut r, 1, n);
            r
        })
        .collect();
        let (mut by_hand, mut by_recipe) = (patch(), patch());
        // Node 0: Shape of input 0 as the target, with suffixes; node 1: a static target.
        by_hand.insert_node(
            0,
            "Shape",
            "n1/expand_in1/shape_2",
            &["x"],
            &["n1/expand_in1/shape_2"],
            &[],
        );
        by_hand.insert_node(
            0,
            "Expand",
            "n1/expand_in1_13",
            &["c", "n1/expand_in1/shape_2"],
            &["n1/expand_in1_13"],
            &[],
        );
        by_hand.rewire(0, 1, "n1/expand_in1_13");
        by_hand.insert_node(
            1,
            "Expand",
            "#1/expand_in1",
            &["c", "shape_2x3"],
            &["#1/expand_in1"],
            &[],
        );
        by_hand.rewire(1, 1, "#1/expand_in1");
        let recipe = |shape_of, k_expand, k_shape| Recipe {
            slot: 1,
            shape_of,
            k_expand,
            k_shape,
            known: None,
        };
        by_recipe.expand(0, recipe(0, 13, 2), None);
        by_recipe.expand(1, recipe(STATIC, 0, 0), Some("shape_2x3"));
        assert_eq!(by_recipe.inserted_nodes(), 3);
        let spliced = |p: GraphPatch| {
            let edit = Patch { graphs: vec![p] }.into_edit();
            let out = crate::file::wire::splice(&graph, 0..graph.len(), &edit).expect("splices");
            assert_eq!(
                out.len as usize,
                out.to_vec(&graph).len(),
                "measured as written"
            );
            out.to_vec(&graph)
        };
        let (a, b) = (spliced(by_hand), spliced(by_recipe));
        assert_eq!(a, b);
        let g = crate::proto::GraphProto::decode(a.as_slice()).expect("decodes");
        assert_eq!(g.node.len(), 6);
        assert_eq!(g.node[2].input, ["x", "n1/expand_in1_13"]);
    }

    #[test]
    fn a_node_rewired_whose_subgraph_is_edited_too_gets_both_edits() {
        use crate::proto::{GraphProto, ModelProto};
        let named = |op: &str, name: &str, inputs: &[&str]| NodeProto {
            op_type: Some(op.into()),
            name: Some(name.into()),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![format!("{name}_out")],
            ..Default::default()
        };
        let branch = GraphProto {
            node: vec![named("Identity", "t0", &["x"])],
            ..Default::default()
        };
        let mut holder = named("If", "if", &["c"]);
        holder.attribute.push(AttributeProto {
            name: Some("then_branch".into()),
            r#type: Some(crate::proto::attribute_proto::AttributeType::Graph as i32),
            g: Some(branch),
            ..Default::default()
        });
        let model = ModelProto {
            graph: Some(GraphProto {
                node: vec![holder, named("Add", "add", &["a", "b"])],
                ..Default::default()
            }),
            ..Default::default()
        };
        let src = model.encode_to_vec();
        // The main graph (ModelProto.graph) and its If's then_branch (node 0, attribute 0, field g).
        let mut main = GraphPatch {
            wire: vec![(7, 0)],
            nodes: ListEdit::new(1),
            ..Default::default()
        };
        main.insert_node(0, "Shape", "s", &["c"], &["s"], &[]);
        main.rewire(0, 0, "s");
        main.rewire(1, 1, "s");
        let mut sub = GraphPatch {
            wire: vec![(7, 0), (1, 0), (5, 0), (6, 0)],
            nodes: ListEdit::new(1),
            ..Default::default()
        };
        sub.insert_node(0, "Constant", "k", &[], &["k"], &[]);
        sub.rewire(0, 0, "k");
        // Parents first, as the passes list them: the subgraph's edit is made first regardless.
        let edit = Patch {
            graphs: vec![main, sub],
        }
        .into_edit();
        let out = crate::file::wire::splice(&src, 0..src.len(), &edit).expect("splices");
        let bytes = out.to_vec(&src);
        assert_eq!(out.len as usize, bytes.len(), "measured as written");
        let g = ModelProto::decode(bytes.as_slice())
            .expect("decodes")
            .graph
            .expect("has its graph");
        let ops: Vec<&str> = g.node.iter().map(|n| n.op_type()).collect();
        assert_eq!(ops, ["Shape", "If", "Add"]);
        assert_eq!(g.node[1].input, ["s"]);
        assert_eq!(g.node[2].input, ["a", "s"]);
        let then = g.node[1].attribute[0].g.as_ref().expect("keeps its branch");
        let names: Vec<&str> = then.node.iter().map(|n| n.name()).collect();
        assert_eq!(names, ["k", "t0"]);
        assert_eq!(then.node[1].input, ["k"]);
    }
}
