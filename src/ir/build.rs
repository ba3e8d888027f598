//! Building an IR [`Graph`] from a `GraphProto`, with the structural checks that fall out of it:
//! undefined values, duplicate definitions, undefined graph outputs, cycles (all reported, none fatal).
//!
//! Names are resolved in one pass over the nodes: an input whose name is already defined is resolved
//! at once (values are single-assignment, so a later definition cannot change it); the others wait
//! until every node has defined its outputs, so nodes listed out of topological order are accepted.
//! Resolving while the definition is still in cache is what makes graphs of millions of nodes cheap.
//!
//! The graph's tables are written one after another: the op nodes of the petgraph graph, then the
//! values, their index and [`Graph::io`] as the names are resolved, then the edges of the inputs
//! resolved. Every table of a large graph is fresh memory; written side by side, on a graph of a
//! million nodes the edges (the largest, 48 bytes a node of two inputs) took 35 ms of the 124 ms the
//! name pass took, and nodes and edges in runs of their own took `check` of that graph from 422 to
//! 403 ms (the likeliest reason: a table filled alone is filled while its new pages are in cache).
//! Subgraphs see the enclosing graphs through a [`Scope`] chain; a name a subgraph reads from outside
//! becomes an `Outer` source node there and a `Capture` edge here.

use super::{
    Edge, Graph, NameIndex, NamesOf, Node, NodeBatch, NodeId, NodeKind, NodeList, Slot, Subgraph,
    ValueId, Values, WirePath, position,
};
use crate::diagnostics::{Code, Diagnostic};
use crate::file::schema::{attribute, graph, node};
use crate::proto::{AttributeProto, GraphProto};
use petgraph::Direction;
use petgraph::stable_graph::StableDiGraph;
use std::collections::HashSet;

/// The names visible from enclosing graphs, innermost first.
pub struct Scope<'a> {
    names: &'a NameIndex,
    values: &'a Values,
    parent: Option<&'a Scope<'a>>,
}

impl Scope<'_> {
    fn defines(&self, name: &str) -> bool {
        self.names.get(self.values, name).is_some() || self.parent.is_some_and(|p| p.defines(name))
    }
}

/// How many nodes ahead the builder prefetches name slots: far enough for a line to arrive from memory
/// while the nodes in between are added, near enough for it to still be in cache then.
const PREFETCH_AHEAD: usize = 8;

/// Most cycle members listed in one diagnostic.
const CYCLE_LISTED: usize = 8;

/// Builds the graph `proto` found at `wire`, reporting structural problems into `diags`. Returns the
/// graph and the names it reads from enclosing scopes.
pub fn build_graph(
    mut proto: GraphProto,
    path: String,
    wire: WirePath,
    node_field: u32,
    outer: Option<&Scope<'_>>,
    diags: &mut Vec<Diagnostic>,
) -> (Graph, Vec<String>) {
    let nodes = NodeBatch::from_protos(std::mem::take(&mut proto.node));
    build_graph_from(proto, nodes, path, wire, node_field, outer, diags)
}

/// [`build_graph`] of a graph whose nodes are given apart from `proto` (whose own node list is then
/// ignored), in batches that follow each other in source order.
pub fn build_graph_from(
    proto: GraphProto,
    nodes: Vec<NodeBatch>,
    path: String,
    wire: WirePath,
    node_field: u32,
    outer: Option<&Scope<'_>>,
    diags: &mut Vec<Diagnostic>,
) -> (Graph, Vec<String>) {
    let count: usize = nodes.iter().map(NodeBatch::len).sum();
    let io: usize = nodes.iter().map(NodeBatch::io_len).sum();
    let sources = proto.input.len() + proto.initializer.len() + proto.sparse_initializer.len();
    // Every value's name is one of the nodes' names or a source's: their sum bounds the names' text.
    let text = nodes.iter().map(NodeBatch::text_len).sum::<usize>() + source_names_len(&proto);
    let mut g = Graph {
        path,
        dag: StableDiGraph::with_capacity(count + sources, io.saturating_sub(count)),
        values: Values::with_capacity(count + sources, text),
        io: Vec::with_capacity(io),
        unresolved: hashbrown::HashMap::new(),
        by_name: NameIndex::with_capacity(count + sources),
        declared: hashbrown::HashMap::new(),
        header: proto,
        ops: Vec::with_capacity(count),
        nodes: NodeList::default(),
        owners: Vec::new(),
        attributed: Vec::new(),
        topo: None,
        wire,
        node_field,
    };
    define_sources(&mut g, diags);
    // The nodes move into the graph first (the decoder's vectors themselves); their names are read
    // from the batches as each node is added.
    let mut names = Vec::with_capacity(nodes.len());
    for batch in nodes {
        let (ops, batch_names) = batch.into_parts();
        g.nodes.push_run(ops);
        names.push((batch_names, g.nodes.len()));
    }
    // Op node k's id is the k-th after the sources'.
    for k in 0..g.nodes.len() {
        let id = g.dag.add_node(Node {
            kind: NodeKind::Op(position(k)),
        });
        g.ops.push(id);
    }
    let mut later = Vec::new();
    let mut pending = Vec::new();
    let mut k = 0;
    for (batch_names, end) in &names {
        let mut at = 0;
        let mut ahead = (k, 0);
        while k < *end {
            // Ask for the name slots of a node a few places on, so that they are in cache by the time
            // it defines and looks up its names (see `NameIndex::prefetch`).
            while ahead.0 < *end && ahead.0 < k + PREFETCH_AHEAD {
                let Some(op) = g.nodes.get(ahead.0) else {
                    break;
                };
                let (inputs, outputs) = (op.num_inputs(), op.num_outputs());
                let of = batch_names.of(ahead.1, inputs, outputs);
                for name in of.outputs().chain(of.inputs()) {
                    g.by_name.prefetch(name);
                }
                ahead = (ahead.0 + 1, ahead.1 + inputs + outputs);
            }
            let Some(op) = g.nodes.get(k) else { break };
            let (inputs, outputs) = (op.num_inputs(), op.num_outputs());
            let of = batch_names.of(at, inputs, outputs);
            at += inputs + outputs;
            add_op(&mut g, k, of, outer, &mut later, &mut pending, diags);
            k += 1;
        }
    }
    drop(names);
    add_input_edges(&mut g);
    attach_subgraphs(&mut g, pending, outer, diags);
    let mut free = Vec::new();
    connect_later(&mut g, later, outer, &mut free, diags);
    check_outputs(&mut g, outer, &mut free, diags);
    attach_declared_types(&mut g);
    g.topo = topological_order(&g);
    if g.topo.is_none() {
        report_cycle(&g, diags);
    }
    (g, free)
}

fn add_value(g: &mut Graph, name: &str, producer: (NodeId, u32)) -> ValueId {
    let id = g.values.push(name, producer);
    g.by_name.insert(&g.values, id);
    id
}

/// Describes the definition of an existing value, for duplicate-definition messages.
fn describe_producer(g: &Graph, id: ValueId) -> String {
    let (node, _) = g.value(id).producer;
    match &g.dag[node].kind {
        NodeKind::Op(k) => g.nodes.get(*k as usize).map_or_else(String::new, |op| {
            format!("output of node '{}' ({})", op.name(), op.op_type())
        }),
        NodeKind::Input(_) => "a graph input".to_owned(),
        NodeKind::Initializer(_) => "an initializer".to_owned(),
        NodeKind::SparseInitializer(_) => "a sparse initializer".to_owned(),
        NodeKind::Outer => "an outer-scope value".to_owned(),
    }
}

fn duplicate(g: &Graph, name: &str, what: &str) -> Diagnostic {
    let first = g
        .lookup(name)
        .map(|id| describe_producer(g, id))
        .unwrap_or_default();
    Diagnostic::new(
        Code::DuplicateDefinition,
        &g.path,
        format!("value '{name}' is defined twice: as {first} and as {what}"),
    )
}

/// Graph inputs, initializers and sparse initializers become source nodes.
fn define_sources(g: &mut Graph, diags: &mut Vec<Diagnostic>) {
    for i in 0..g.header.input.len() {
        let name = g.header.input[i].name().to_owned();
        if name.is_empty() {
            diags.push(Diagnostic::new(
                Code::EmptyName,
                &g.path,
                format!("graph input #{i} has an empty name"),
            ));
            continue;
        }
        if g.lookup(&name).is_some() {
            let d = duplicate(g, &name, &format!("graph input #{i}"));
            diags.push(d);
            continue;
        }
        let n = g.dag.add_node(Node {
            kind: NodeKind::Input(position(i)),
        });
        add_value(g, &name, (n, 0));
    }
    let mut initializer_names = HashSet::new();
    let dense = g.header.initializer.iter().map(|t| t.name().to_owned());
    let sparse = g
        .header
        .sparse_initializer
        .iter()
        .map(|s| s.values.as_ref().map(|v| v.name()).unwrap_or("").to_owned());
    let all: Vec<(bool, usize, String)> = dense
        .enumerate()
        .map(|(i, n)| (false, i, n))
        .chain(sparse.enumerate().map(|(i, n)| (true, i, n)))
        .collect();
    for (is_sparse, i, name) in all {
        let what = if is_sparse {
            format!("sparse initializer #{i}")
        } else {
            format!("initializer #{i}")
        };
        if name.is_empty() {
            diags.push(Diagnostic::new(
                Code::EmptyName,
                &g.path,
                format!("{what} has an empty name"),
            ));
            continue;
        }
        if !initializer_names.insert(name.clone()) {
            diags.push(Diagnostic::new(
                Code::DuplicateDefinition,
                &g.path,
                format!("value '{name}' is defined twice: two initializers have this name"),
            ));
            continue;
        }
        // An initializer named like a graph input is that input's default value (IR >= 4), not a
        // second definition: the input stays the producer.
        if g.lookup(&name).is_some() {
            continue;
        }
        let kind = if is_sparse {
            NodeKind::SparseInitializer(position(i))
        } else {
            NodeKind::Initializer(position(i))
        };
        let n = g.dag.add_node(Node { kind });
        add_value(g, &name, (n, 0));
    }
}

/// The bytes of the names of `proto`'s inputs, initializers and sparse initializers.
fn source_names_len(proto: &GraphProto) -> usize {
    let inputs = proto.input.iter().map(|v| v.name().len());
    let dense = proto.initializer.iter().map(|t| t.name().len());
    let sparse = proto
        .sparse_initializer
        .iter()
        .map(|s| s.values.as_ref().map_or(0, |v| v.name().len()));
    inputs.chain(dense).chain(sparse).sum()
}

/// A node's graph-valued attributes, taken out of it to be built once the scope is complete.
struct PendingSubgraph {
    node: NodeId,
    index: usize,
    attribute: usize,
    item: Option<usize>,
    field: u32,
    proto: GraphProto,
}

/// An input whose name was not defined yet when its node was added.
struct LaterInput {
    node: NodeId,
    slot: usize,
    io: usize,
    name: Box<str>,
}

/// Resolves the names of op node `g.nodes[k]` (graph node `g.ops[k]`): defines its outputs and
/// records in [`Graph::io`] the inputs already defined; the others go to `later`, its subgraphs to
/// `pending`.
fn add_op(
    g: &mut Graph,
    k: usize,
    names: NamesOf<'_>,
    outer: Option<&Scope<'_>>,
    later: &mut Vec<LaterInput>,
    pending: &mut Vec<PendingSubgraph>,
    diags: &mut Vec<Diagnostic>,
) {
    let io_start = g.io.len();
    let Some(op) = g.nodes.get_mut(k) else {
        return;
    };
    let index = op.index();
    let graphs = take_graph_attributes(op.attributes_mut());
    if !op.attributes().is_empty() {
        g.attributed.push(position(k));
    }
    op.set_io_start(io_start);
    let n_inputs = op.num_inputs();
    g.io.resize(io_start + n_inputs, None);
    let Some(&id) = g.ops.get(k) else {
        return;
    };
    // Outputs first: a node that reads its own output is a cycle of one node, as in the file.
    for (slot, name) in names.outputs().enumerate() {
        let at = g.io.len();
        g.io.push(None);
        if name.is_empty() {
            continue; // an omitted optional output
        }
        // Slots count the outputs of one node, which number fewer than 2^32 (see `OpNode`).
        let Ok(value) = g.by_name.define(&mut g.values, name, (id, slot as u32)) else {
            let (label, op_type) = op_label(g, id);
            let d = duplicate(g, name, &format!("output of node '{label}' ({op_type})"))
                .at_node(&label, &op_type);
            diags.push(d);
            g.unresolved.insert(at, name.into());
            continue;
        };
        g.io[at] = Some(value);
        if outer.is_some_and(|s| s.defines(name)) {
            // Values are single-assignment across scopes: a subgraph may read an outer value but
            // not define another under its name.
            let (label, op_type) = op_label(g, id);
            diags.push(
                Diagnostic::new(
                    Code::DuplicateDefinition,
                    &g.path,
                    format!(
                        "value '{name}' is defined twice: in an enclosing graph and as output of node '{label}' ({op_type})"
                    ),
                )
                .at_node(&label, &op_type),
            );
        }
    }
    for (slot, name) in names.inputs().enumerate() {
        if name.is_empty() {
            continue; // an omitted optional input keeps its slot and has no edge
        }
        match g.lookup(name) {
            // Its edge comes later, with every other (see `add_input_edges`).
            Some(value) => g.io[io_start + slot] = Some(value),
            None => later.push(LaterInput {
                node: id,
                slot,
                io: io_start + slot,
                name: name.into(),
            }),
        }
    }
    for (attribute, item, field, sub) in graphs {
        pending.push(PendingSubgraph {
            node: id,
            index,
            attribute,
            item,
            field,
            proto: sub,
        });
    }
}

/// Adds the edge of every op input the pass over the names resolved, in node then slot order: the
/// order that adding each as it was resolved gave, so the graph is the same (see the module's header
/// for why apart).
fn add_input_edges(g: &mut Graph) {
    let Graph {
        ops,
        nodes,
        io,
        values,
        dag,
        ..
    } = g;
    for (&id, op) in ops.iter().zip(nodes.iter()) {
        let start = op.io_start();
        for slot in 0..op.num_inputs() {
            let Some(Some(value)) = io.get(start + slot).copied() else {
                continue;
            };
            add_input_edge(dag, values, value, id, slot);
        }
    }
}

/// Records that input `slot` of node `id` (entry `io` of [`Graph::io`]) reads `value`.
fn connect(g: &mut Graph, value: ValueId, id: NodeId, io: usize, slot: usize) {
    g.io[io] = Some(value);
    add_input_edge(&mut g.dag, &g.values, value, id, slot);
}

/// Adds the edge from `value`'s producer to input `slot` of node `id`.
fn add_input_edge(
    dag: &mut StableDiGraph<Node, Edge>,
    values: &Values,
    value: ValueId,
    id: NodeId,
    slot: usize,
) {
    if let Some(v) = values.get(value) {
        // Input slots of one node number fewer than 2^32 (see `OpNode`).
        dag.add_edge(v.producer.0, id, Edge::new(value, Slot::Input(slot as u32)));
    }
}

/// Moves GRAPH and GRAPHS attribute values out of a node's attributes: (attribute index, item, field,
/// graph).
fn take_graph_attributes(
    attributes: &mut [AttributeProto],
) -> Vec<(usize, Option<usize>, u32, GraphProto)> {
    let mut out = Vec::new();
    for (a, attr) in attributes.iter_mut().enumerate() {
        // The value field decides, whatever `type` says: a graph is a graph even under a wrong
        // discriminator (which the attribute check reports separately).
        if let Some(sub) = attr.g.take() {
            out.push((a, None, attribute::G, sub));
        }
        for (k, sub) in std::mem::take(&mut attr.graphs).into_iter().enumerate() {
            out.push((a, Some(k), attribute::GRAPHS, sub));
        }
    }
    out
}

fn attach_subgraphs(
    g: &mut Graph,
    pending: Vec<PendingSubgraph>,
    outer: Option<&Scope<'_>>,
    diags: &mut Vec<Diagnostic>,
) {
    let mut built = Vec::with_capacity(pending.len());
    {
        let scope = Scope {
            names: &g.by_name,
            values: &g.values,
            parent: outer,
        };
        for p in pending {
            let Some(op) = g.op(p.node) else { continue };
            let label = op.label().into_owned();
            let attr_name = op
                .attributes()
                .get(p.attribute)
                .map_or("", |a| a.name())
                .to_owned();
            let mut path = format!("{}/{}/{}", g.path, label, attr_name);
            if let Some(k) = p.item {
                path.push_str(&format!("[{k}]"));
            }
            let mut wire = g.wire.clone();
            wire.extend([
                (g.node_field, p.index),
                (node::ATTRIBUTE, p.attribute),
                (p.field, p.item.unwrap_or(0)),
            ]);
            let (sub, free) = build_graph(p.proto, path, wire, graph::NODE, Some(&scope), diags);
            built.push((p.node, p.attribute, p.item, sub, free));
        }
    }
    // One capture edge per (value, node), however many of the node's subgraphs read the value.
    let mut captured: HashSet<(NodeId, String)> = HashSet::new();
    for (node, attribute, item, graph, free) in built {
        for name in free {
            if !captured.insert((node, name.clone())) {
                continue;
            }
            let value = resolve_outer(g, &name);
            g.dag.add_edge(
                g.value(value).producer.0,
                node,
                Edge::new(value, Slot::Capture),
            );
        }
        if let NodeKind::Op(k) = g.dag[node].kind
            && let Some(op) = g.nodes.get_mut(k as usize)
        {
            op.add_subgraph(Subgraph {
                attribute,
                item,
                graph,
            });
            // A node's subgraphs come one after another, and nodes in source order (`pending`).
            if g.owners.last() != Some(&k) {
                g.owners.push(k);
            }
        }
    }
}

/// The local value for `name`, creating an `Outer` source node when it comes from an enclosing graph.
fn resolve_outer(g: &mut Graph, name: &str) -> ValueId {
    if let Some(id) = g.lookup(name) {
        return id;
    }
    let n = g.dag.add_node(Node {
        kind: NodeKind::Outer,
    });
    add_value(g, name, (n, 0))
}

/// Connects the inputs that were not defined when their node was added: defined by a later node, read
/// from an enclosing graph, or defined nowhere (reported).
fn connect_later(
    g: &mut Graph,
    later: Vec<LaterInput>,
    outer: Option<&Scope<'_>>,
    free: &mut Vec<String>,
    diags: &mut Vec<Diagnostic>,
) {
    for input in later {
        let name = &*input.name;
        let value = match g.lookup(name) {
            Some(v) => v,
            None if outer.is_some_and(|s| s.defines(name)) => {
                free.push(name.to_owned());
                resolve_outer(g, name)
            }
            None => {
                let (label, op_type) = op_label(g, input.node);
                let slot = input.slot;
                diags.push(
                    Diagnostic::new(
                        Code::UndefinedValue,
                        &g.path,
                        format!(
                            "input #{slot} '{name}' of node '{label}' ({op_type}) is not defined"
                        ),
                    )
                    .at_node(&label, &op_type)
                    .note(
                        "no node output, graph input, initializer or enclosing scope has this name",
                    ),
                );
                g.unresolved.insert(input.io, input.name);
                continue;
            }
        };
        connect(g, value, input.node, input.io, input.slot);
    }
    // Outer values created while attaching subgraphs are read from enclosing scopes too.
    for v in g.values.iter() {
        if matches!(g.dag[v.producer.0].kind, NodeKind::Outer) && !free.iter().any(|f| f == v.name)
        {
            free.push(v.name.to_string());
        }
    }
}

fn op_label(g: &Graph, id: NodeId) -> (String, String) {
    match g.op(id) {
        Some(op) => (op.label().into_owned(), op.op_type().to_owned()),
        None => (String::new(), String::new()),
    }
}

fn check_outputs(
    g: &mut Graph,
    outer: Option<&Scope<'_>>,
    free: &mut Vec<String>,
    diags: &mut Vec<Diagnostic>,
) {
    for i in 0..g.header.output.len() {
        let name = g.header.output[i].name().to_owned();
        if name.is_empty() {
            diags.push(Diagnostic::new(
                Code::EmptyName,
                &g.path,
                format!("graph output #{i} has an empty name"),
            ));
        } else if g.lookup(&name).is_some() {
        } else if outer.is_some_and(|s| s.defines(&name)) {
            if !free.contains(&name) {
                free.push(name.clone());
            }
            resolve_outer(g, &name);
        } else {
            diags.push(Diagnostic::new(
                Code::UndefinedGraphOutput,
                &g.path,
                format!(
                    "graph output #{i} '{name}' is not defined by any node, input or initializer"
                ),
            ));
        }
    }
}

/// Declared types: graph inputs, then value_info, then outputs (a later declaration does not override).
fn attach_declared_types(g: &mut Graph) {
    let decls: Vec<(String, crate::proto::TypeProto)> = g
        .declared_values()
        .filter_map(|vi| Some((vi.name().to_owned(), vi.r#type.clone()?)))
        .collect();
    for (name, ty) in decls {
        if let Some(id) = g.lookup(&name) {
            g.declared.entry(id).or_insert(ty);
        }
    }
}

/// Kahn's algorithm taking, among the nodes that are ready, the one added first: independent nodes keep
/// their source order (op nodes are added in source order), so walks and reports follow the file.
fn topological_order(g: &Graph) -> Option<Vec<NodeId>> {
    use petgraph::visit::{EdgeRef, IntoEdgeReferences};
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    // Indexed by node index: no node has been removed yet, so indices are dense. Counted from the edge
    // list, which is one sequential pass, rather than node by node through petgraph's linked lists.
    let mut indegree = vec![0usize; petgraph::visit::NodeIndexable::node_bound(&g.dag)];
    let mut in_order = true;
    for e in g.dag.edge_references() {
        indegree[e.target().index()] += 1;
        in_order &= e.source() < e.target();
    }
    // Most files list their nodes in topological order: then the order of the nodes is the answer, and
    // the one Kahn's algorithm below would give (at each step the least ready node is the next one).
    if in_order {
        return Some(g.dag.node_indices().collect());
    }
    let mut ready = BinaryHeap::new();
    for n in g.dag.node_indices() {
        if indegree[n.index()] == 0 {
            ready.push(Reverse(n));
        }
    }
    let mut order = Vec::with_capacity(g.dag.node_count());
    while let Some(Reverse(n)) = ready.pop() {
        order.push(n);
        for succ in g.dag.neighbors_directed(n, Direction::Outgoing) {
            // neighbors_directed yields a successor once per edge, matching the indegree count.
            let d = &mut indegree[succ.index()];
            *d -= 1;
            if *d == 0 {
                ready.push(Reverse(succ));
            }
        }
    }
    (order.len() == g.dag.node_count()).then_some(order)
}

fn report_cycle(g: &Graph, diags: &mut Vec<Diagnostic>) {
    // Kosaraju's algorithm as petgraph writes it keeps its own stack; its Tarjan recurses once per node
    // of a path, and a chain of a million nodes closed into a cycle overflowed the thread's stack.
    for scc in petgraph::algo::kosaraju_scc(&g.dag) {
        let self_loop = scc.len() == 1 && g.dag.find_edge(scc[0], scc[0]).is_some();
        if scc.len() < 2 && !self_loop {
            continue;
        }
        let mut members: Vec<(usize, String)> = scc
            .iter()
            .filter_map(|&n| g.op(n).map(|op| (op.index(), op.label().into_owned())))
            .collect();
        members.sort();
        let total = members.len();
        let mut listed: Vec<String> = members
            .into_iter()
            .take(CYCLE_LISTED)
            .map(|(_, l)| format!("'{l}'"))
            .collect();
        if total > CYCLE_LISTED {
            listed.push(format!("and {} more", total - CYCLE_LISTED));
        }
        let message = if self_loop {
            format!(
                "node {} reads its own output: a cycle of one node",
                listed.join("")
            )
        } else {
            format!("{total} nodes form a cycle: {}", listed.join(", "))
        };
        diags.push(Diagnostic::new(Code::Cycle, &g.path, message));
    }
}
