//! Building an IR [`Graph`] from a `GraphProto`, with the structural checks that fall out of it:
//! undefined values, duplicate definitions, undefined graph outputs, cycles (all reported, none fatal).
//!
//! Names are resolved in two passes (define everything, then connect), so nodes listed out of
//! topological order are accepted. Subgraphs see the enclosing graphs through a [`Scope`] chain; a name
//! a subgraph reads from outside becomes an `Outer` source node there and a `Capture` edge here.

use super::{
    Edge, Graph, NameIndex, Node, NodeId, NodeKind, OpNode, Slot, Subgraph, Value, ValueId,
    WirePath,
};
use crate::diagnostics::{Code, Diagnostic};
use crate::proto::{GraphProto, NodeProto};
use petgraph::Direction;
use petgraph::stable_graph::StableDiGraph;
use std::borrow::Cow;
use std::collections::HashSet;

/// The names visible from enclosing graphs, innermost first.
pub struct Scope<'a> {
    names: &'a NameIndex,
    values: &'a [Value],
    parent: Option<&'a Scope<'a>>,
}

impl Scope<'_> {
    fn defines(&self, name: &str) -> bool {
        self.names.get(self.values, name).is_some() || self.parent.is_some_and(|p| p.defines(name))
    }
}

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
    let nodes = boxed(std::mem::take(&mut proto.node));
    build_graph_from(proto, nodes, path, wire, node_field, outer, diags)
}

/// Each node in a box of its own, as the IR keeps them.
pub fn boxed(nodes: Vec<NodeProto>) -> Vec<Box<NodeProto>> {
    nodes.into_iter().map(Box::new).collect()
}

/// [`build_graph`] of a graph whose nodes are given apart from `proto` (whose own node list is then
/// ignored).
pub fn build_graph_from(
    proto: GraphProto,
    nodes: Vec<Box<NodeProto>>,
    path: String,
    wire: WirePath,
    node_field: u32,
    outer: Option<&Scope<'_>>,
    diags: &mut Vec<Diagnostic>,
) -> (Graph, Vec<String>) {
    let mut g = Graph {
        path,
        dag: StableDiGraph::with_capacity(nodes.len() + proto.input.len(), nodes.len() * 2),
        values: Vec::new(),
        io: Vec::with_capacity(nodes.iter().map(|n| n.input.len() + n.output.len()).sum()),
        by_name: NameIndex::with_capacity(
            nodes.len() + proto.input.len() + proto.initializer.len(),
        ),
        header: proto,
        ops: Vec::with_capacity(nodes.len()),
        topo: None,
        wire,
        node_field,
    };
    define_sources(&mut g, diags);
    let pending = define_ops(&mut g, nodes, outer, diags);
    attach_subgraphs(&mut g, pending, outer, diags);
    let mut free = Vec::new();
    connect_inputs(&mut g, outer, &mut free, diags);
    check_outputs(&mut g, outer, &mut free, diags);
    attach_declared_types(&mut g);
    g.topo = topological_order(&g);
    if g.topo.is_none() {
        report_cycle(&g, diags);
    }
    (g, free)
}

fn add_value(g: &mut Graph, name: &str, producer: (NodeId, usize)) -> ValueId {
    let id = ValueId(g.values.len() as u32);
    g.values.push(Value {
        name: name.to_owned(),
        producer,
        declared: None,
    });
    g.by_name.insert(&g.values, id);
    id
}

/// Describes the definition of an existing value, for duplicate-definition messages.
fn describe_producer(g: &Graph, id: ValueId) -> String {
    let (node, _) = g.value(id).producer;
    match &g.dag[node].kind {
        NodeKind::Op(op) => format!("output of node '{}' ({})", op.name(), op.op_type()),
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
            kind: NodeKind::Input(i),
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
            NodeKind::SparseInitializer(i)
        } else {
            NodeKind::Initializer(i)
        };
        let n = g.dag.add_node(Node { kind });
        add_value(g, &name, (n, 0));
    }
}

/// A node's graph-valued attributes, taken out of its proto to be built once the scope is complete.
struct PendingSubgraph {
    node: NodeId,
    index: usize,
    attribute: usize,
    item: Option<usize>,
    field: u32,
    proto: GraphProto,
}

/// Adds every op node and defines its outputs. Returns the subgraphs still to build.
// The boxes are the point: each node moves into the IR as a pointer, never as a 240-byte value.
#[allow(clippy::vec_box)]
fn define_ops(
    g: &mut Graph,
    nodes: Vec<Box<NodeProto>>,
    outer: Option<&Scope<'_>>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<PendingSubgraph> {
    let mut pending = Vec::new();
    for (index, mut proto) in nodes.into_iter().enumerate() {
        let graphs = take_graph_attributes(&mut proto);
        // Moved out and back rather than cloned, as in `connect_inputs`.
        let outputs = std::mem::take(&mut proto.output);
        // Inputs are resolved by `connect_inputs`, once every node has defined its outputs.
        let io_start = g.io.len();
        g.io.resize(io_start + proto.input.len(), None);
        let id = g.dag.add_node(Node {
            kind: NodeKind::Op(OpNode {
                proto,
                index,
                io_start,
                subgraphs: Vec::new(),
            }),
        });
        g.ops.push(id);
        for (slot, name) in outputs.iter().enumerate() {
            g.io.push(None);
            if name.is_empty() {
                continue; // an omitted optional output
            }
            if g.lookup(name).is_some() {
                let (label, op_type) = op_label(g, id);
                let d = duplicate(g, name, &format!("output of node '{label}' ({op_type})"))
                    .at_node(&label, &op_type);
                diags.push(d);
                continue;
            }
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
            let value = add_value(g, name, (id, slot));
            if let Some(last) = g.io.last_mut() {
                *last = Some(value);
            }
        }
        if let NodeKind::Op(op) = &mut g.dag[id].kind {
            op.proto.output = outputs;
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
    pending
}

/// The name diagnostics use for a node: its own, or its position when it has none.
pub fn node_label(proto: &NodeProto, index: usize) -> String {
    label(proto, index).into_owned()
}

/// [`node_label`] without a copy of the name, for the loops that run once per node.
pub fn label(proto: &NodeProto, index: usize) -> Cow<'_, str> {
    match proto.name() {
        "" => Cow::Owned(format!("#{index}")),
        n => Cow::Borrowed(n),
    }
}

/// Moves GRAPH and GRAPHS attribute values out of the node: (attribute index, item, field, graph).
fn take_graph_attributes(proto: &mut NodeProto) -> Vec<(usize, Option<usize>, u32, GraphProto)> {
    let mut out = Vec::new();
    for (a, attr) in proto.attribute.iter_mut().enumerate() {
        // The value field decides, whatever `type` says: a graph is a graph even under a wrong
        // discriminator (which the attribute check reports separately).
        if let Some(sub) = attr.g.take() {
            out.push((a, None, 6, sub));
        }
        for (k, sub) in std::mem::take(&mut attr.graphs).into_iter().enumerate() {
            out.push((a, Some(k), 11, sub));
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
            let (label, attr_name) = match &g.dag[p.node].kind {
                NodeKind::Op(op) => (
                    node_label(&op.proto, p.index),
                    op.proto.attribute[p.attribute].name().to_owned(),
                ),
                _ => continue,
            };
            let mut path = format!("{}/{}/{}", g.path, label, attr_name);
            if let Some(k) = p.item {
                path.push_str(&format!("[{k}]"));
            }
            let mut wire = g.wire.clone();
            wire.extend([
                (g.node_field, p.index),
                (5, p.attribute),
                (p.field, p.item.unwrap_or(0)),
            ]);
            let (sub, free) = build_graph(p.proto, path, wire, 1, Some(&scope), diags);
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
                g.values[value.0 as usize].producer.0,
                node,
                Edge {
                    value,
                    slot: Slot::Capture,
                },
            );
        }
        if let NodeKind::Op(op) = &mut g.dag[node].kind {
            op.subgraphs.push(Subgraph {
                attribute,
                item,
                graph,
            });
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

/// Adds an edge for every named input of every node; reports names defined nowhere.
fn connect_inputs(
    g: &mut Graph,
    outer: Option<&Scope<'_>>,
    free: &mut Vec<String>,
    diags: &mut Vec<Diagnostic>,
) {
    for k in 0..g.ops.len() {
        let id = g.ops[k];
        // Moved out and back rather than cloned: this runs once per node of graphs of millions.
        let (inputs, io_start) = match &mut g.dag[id].kind {
            NodeKind::Op(op) => (std::mem::take(&mut op.proto.input), op.io_start),
            _ => continue,
        };
        connect_node(g, id, &inputs, io_start, outer, free, diags);
        if let NodeKind::Op(op) = &mut g.dag[id].kind {
            op.proto.input = inputs;
        }
    }
    // Outer values created while attaching subgraphs are read from enclosing scopes too.
    for v in &g.values {
        if matches!(g.dag[v.producer.0].kind, NodeKind::Outer) && !free.contains(&v.name) {
            free.push(v.name.clone());
        }
    }
}

/// The edges into node `id` from the producers of `inputs`.
fn connect_node(
    g: &mut Graph,
    id: NodeId,
    inputs: &[String],
    io_start: usize,
    outer: Option<&Scope<'_>>,
    free: &mut Vec<String>,
    diags: &mut Vec<Diagnostic>,
) {
    {
        for (slot, name) in inputs.iter().enumerate() {
            if name.is_empty() {
                continue; // an omitted optional input keeps its slot and has no edge
            }
            let value = match g.lookup(name) {
                Some(v) => v,
                None if outer.is_some_and(|s| s.defines(name)) => {
                    free.push(name.clone());
                    resolve_outer(g, name)
                }
                None => {
                    let (label, op_type) = op_label(g, id);
                    diags.push(
                        Diagnostic::new(
                            Code::UndefinedValue,
                            &g.path,
                            format!("input #{slot} '{name}' of node '{label}' ({op_type}) is not defined"),
                        )
                        .at_node(&label, &op_type)
                        .note("no node output, graph input, initializer or enclosing scope has this name"),
                    );
                    continue;
                }
            };
            g.io[io_start + slot] = Some(value);
            let producer = g.values[value.0 as usize].producer.0;
            g.dag.add_edge(
                producer,
                id,
                Edge {
                    value,
                    slot: Slot::Input(slot),
                },
            );
        }
    }
}

fn op_label(g: &Graph, id: NodeId) -> (String, String) {
    match &g.dag[id].kind {
        NodeKind::Op(op) => (node_label(&op.proto, op.index), op.op_type().to_owned()),
        _ => (String::new(), String::new()),
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
            let v = &mut g.values[id.0 as usize];
            if v.declared.is_none() {
                v.declared = Some(Box::new(ty));
            }
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
    for scc in petgraph::algo::tarjan_scc(&g.dag) {
        let self_loop = scc.len() == 1 && g.dag.find_edge(scc[0], scc[0]).is_some();
        if scc.len() < 2 && !self_loop {
            continue;
        }
        let mut members: Vec<(usize, String)> = scc
            .iter()
            .filter_map(|&n| {
                g.op(n)
                    .map(|op| (op.index, node_label(&op.proto, op.index)))
            })
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
