//! The graph picture: a model's main graph as Graphviz DOT text, written by petgraph's DOT writer
//! ([`petgraph::dot::Dot`]) with attribute closures of our own.
//!
//! What it shows:
//! - op nodes as rounded boxes labelled with their name and `(OpType)`; graph inputs (`invhouse`) and
//!   outputs (`house`) in green; initializers are weights and left out unless asked for
//!   ([`Options::initializers`]): the consumer's label lists them instead (`in 1: W FLOAT[4, 4]`);
//! - every edge labelled with its value's name and inferred type (`FLOAT[2, 3]`, as `shapes` prints);
//! - nodes with a broadcast error (E1) in red, with the message's axis and sizes in the label and each
//!   input at fault marked on its edge (`E1 axis -1: 63`); possible errors (W1) likewise in orange;
//! - nodes inserted by `onnx-lint expand` in blue (the Expand itself) and light blue (what computes its
//!   target shape), recognised by [`explicit_broadcast::inserted_nodes`];
//! - subgraphs (If branches, Loop and Scan bodies) as nested clusters, attached to their node by a
//!   dotted edge; a value read from an enclosing graph is a dashed `outer` node inside the cluster.
//!
//! Model-local function bodies are not drawn: a finding inside one is shown at its calling node.
//!
//! Every string taken from the model goes through [`quote`], so a name holding quotes, backslashes,
//! newlines, braces or HTML-like text cannot end a DOT string or inject attributes.

use crate::diagnostics::{Code, Diagnostic};
use crate::ir::tensor::elem_type_name;
use crate::ir::{Graph, Model, NodeId, NodeKind, Slot};
use crate::lint::Findings;
use crate::passes::explicit_broadcast::{self, Inserted};
use crate::shape::dim::format_shape;
use petgraph::dot::{Config, Dot};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{EdgeRef, IntoEdgeReferences};
use std::collections::HashMap;
use std::fmt::Write;

/// Default for [`Options::max_nodes`]: past a few hundred nodes a drawing is a texture, not a picture.
pub const DEFAULT_MAX_NODES: usize = 500;

/// Longest label line shown (in characters); the rest is elided with `...`.
const MAX_LINE_CHARS: usize = 100;

/// Longest tooltip line (the full message of a finding).
const MAX_TOOLTIP_CHARS: usize = 400;

#[derive(Clone, Debug)]
pub struct Options {
    /// Most op nodes drawn (main graph and subgraphs together); 0 for no limit.
    pub max_nodes: usize,
    /// Draw initializers as (small) nodes of their own instead of listing them in their consumers.
    pub initializers: bool,
    /// The title: the model's file name as the user gave it.
    pub title: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_nodes: DEFAULT_MAX_NODES,
            initializers: false,
            title: String::new(),
        }
    }
}

/// Why no picture was drawn.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PictureError {
    #[error("the model has no graph to draw")]
    NoGraph,
    #[error(
        "the graph has {nodes} nodes, more than --max-nodes {max}: a picture that large is unreadable (raise --max-nodes, or 0 for no limit)"
    )]
    TooLarge { nodes: usize, max: usize },
}

/// A drawn picture: the DOT text and what it highlights.
#[derive(Debug)]
pub struct Picture {
    pub dot: String,
    pub nodes: usize,
    /// Nodes drawn red (E1), orange (W1) and blue (inserted by `expand`: the Expand nodes only).
    pub errors: usize,
    pub warnings: usize,
    pub inserted: usize,
}

/// How a node or edge is highlighted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Mark {
    None,
    Helper,
    Inserted,
    Warning,
    Error,
}

impl Mark {
    /// (border, fill, font) colours.
    fn colors(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Mark::None => ("black", "white", "black"),
            Mark::Helper => ("cornflowerblue", "#eef3ff", "black"),
            Mark::Inserted => ("blue", "#cfe0ff", "black"),
            Mark::Warning => ("orange", "#ffe4b5", "black"),
            Mark::Error => ("red", "#ffd0d0", "black"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Op,
    Input,
    Output,
    Initializer,
    Outer,
}

#[derive(Debug)]
struct PicNode {
    kind: Kind,
    /// Label lines, unescaped; each is escaped and truncated when written.
    lines: Vec<String>,
    mark: Mark,
    /// Hover text (SVG): the findings at this node.
    tooltip: Vec<String>,
}

#[derive(Debug)]
enum EdgeKind {
    Value,
    /// An outer value a subgraph reads, into the node that owns the subgraph.
    Capture,
    /// From a node to the cluster of one of its subgraphs.
    Subgraph(usize),
}

#[derive(Debug)]
struct PicEdge {
    kind: EdgeKind,
    lines: Vec<String>,
    mark: Mark,
}

/// A subgraph drawn as a cluster: its label, its nodes, the clusters nested in it.
#[derive(Debug, Default)]
struct Cluster {
    label: String,
    nodes: Vec<NodeIndex>,
    children: Vec<usize>,
}

/// Makes `s` safe inside a DOT double-quoted string whose value Graphviz reads as an escString (labels,
/// tooltips): control characters and bidi overrides become visible `\u{..}` escapes first (as on the
/// terminal), then `\` and `"` are escaped, and `&` is written as `&amp;` so that Graphviz shows an
/// entity-like name (`&#x202e;`) as it is instead of decoding it. Text over `max` characters is
/// elided with `...`.
pub fn quote(s: &str, max: usize) -> String {
    let shown = crate::render::escape(s);
    let mut chars: Vec<char> = shown.chars().collect();
    if chars.len() > max {
        chars.truncate(max.saturating_sub(3));
        chars.extend(['.', '.', '.']);
    }
    let mut out = String::with_capacity(chars.len() + 8);
    for c in chars {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '&' => out.push_str("&amp;"),
            c => out.push(c),
        }
    }
    out
}

/// DOT text for label lines: each line quoted, joined by DOT's centred line break.
fn label_text(lines: &[String], max: usize) -> String {
    lines
        .iter()
        .map(|l| quote(l, max))
        .collect::<Vec<_>>()
        .join("\\n")
}

/// The findings of a model that the picture marks, by (graph path, node label).
struct Marks<'a> {
    at: HashMap<(String, String), Vec<&'a Diagnostic>>,
}

impl<'a> Marks<'a> {
    fn of(diagnostics: &'a [Diagnostic]) -> Self {
        let mut at: HashMap<(String, String), Vec<&Diagnostic>> = HashMap::new();
        for d in diagnostics {
            if let Some(node) = &d.node {
                at.entry((d.graph.clone(), node.clone()))
                    .or_default()
                    .push(d);
            }
        }
        Marks { at }
    }

    fn get(&self, graph: &str, label: &str) -> &[&'a Diagnostic] {
        self.at
            .get(&(graph.to_owned(), label.to_owned()))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }
}

/// The part of a broadcast message after its fixed introduction: `axis -1: 64 vs 63 (neither is 1)`.
fn broadcast_detail(d: &Diagnostic) -> String {
    // A contract's finding: its name and what is wrong here, without the contract's wording.
    if let Some(name) = d.contract {
        return match d.message.find("; here ") {
            Some(p) => format!("{name}: {}", &d.message[p + "; here ".len()..]),
            None => name.to_owned(),
        };
    }
    for intro in [
        "cannot be broadcast: ",
        "broadcast only under a condition: ",
    ] {
        if let Some(p) = d.message.find(intro) {
            return d.message[p + intro.len()..].to_owned();
        }
    }
    d.message.clone()
}

struct Builder<'a> {
    model: &'a Model,
    opts: &'a Options,
    findings: Marks<'a>,
    pic: DiGraph<PicNode, PicEdge>,
    clusters: Vec<Cluster>,
    /// Clusters directly in the main graph.
    top: Vec<usize>,
    ops: usize,
    shapes: HashMap<&'a str, &'a crate::shape::infer::GraphShapes>,
}

impl<'a> Builder<'a> {
    fn value_type(&self, g: &Graph, value: crate::ir::ValueId) -> String {
        let info = self
            .shapes
            .get(g.path.as_str())
            .and_then(|v| v.info(value.index()));
        let ty = info
            .and_then(|i| i.elem)
            .map(elem_type_name)
            .unwrap_or_else(|| "?".to_owned());
        format!("{ty}{}", format_shape(&info.and_then(|i| i.shape.clone())))
    }

    fn add(&mut self, node: PicNode, cluster: Option<usize>) -> NodeIndex {
        let i = self.pic.add_node(node);
        if let Some(c) = cluster {
            self.clusters[c].nodes.push(i);
        }
        i
    }

    /// Adds graph `g` (in cluster `cluster`, `None` for the main graph) and its subgraphs.
    fn graph(&mut self, g: &'a Graph, cluster: Option<usize>) -> Result<(), PictureError> {
        let inserted = explicit_broadcast::inserted_nodes(g);
        let mut map: HashMap<NodeId, NodeIndex> = HashMap::new();
        // Inputs at fault per (node, slot): the mark and the text for the edge.
        let mut faults: HashMap<(NodeId, usize), (Mark, String)> = HashMap::new();
        let order: Vec<NodeId> = g.dag.node_indices().collect();
        // The value each source node (initializer, outer value) produces, and the graph's outputs.
        let source_name: HashMap<NodeId, &str> =
            g.values.iter().map(|v| (v.producer.0, v.name)).collect();
        let outputs: std::collections::HashSet<&str> =
            g.header.output.iter().map(|o| o.name()).collect();
        for &id in &order {
            let node = match (&g.dag[id].kind, g.op(id)) {
                (NodeKind::Op(_), Some(op)) => {
                    self.ops += 1;
                    if self.opts.max_nodes > 0 && self.ops > self.opts.max_nodes {
                        return Err(PictureError::TooLarge {
                            nodes: count_ops(self.model),
                            max: self.opts.max_nodes,
                        });
                    }
                    let label = op.label().into_owned();
                    let mut lines = vec![label.clone(), format!("({})", op.op_type())];
                    let mut mark = match inserted.get(&id) {
                        Some(Inserted::Broadcast) => Mark::Inserted,
                        Some(Inserted::Helper) => Mark::Helper,
                        None => Mark::None,
                    };
                    let mut tooltip = Vec::new();
                    for d in self.findings.get(&g.path, &label) {
                        tooltip.push(format!("{}: {}", d.code, d.message));
                        let m = match d.code {
                            Code::BroadcastError | Code::ShapeContract | Code::ValueOutOfRange => {
                                Mark::Error
                            }
                            Code::PossibleBroadcastError | Code::PossibleShapeContract => {
                                Mark::Warning
                            }
                            _ => continue,
                        };
                        mark = mark.max(m);
                        lines.push(format!("{}: {}", d.code, broadcast_detail(d)));
                        if let Some(inner) = &d.inner_node {
                            lines.push(format!("(in its function, at node '{inner}')"));
                            continue; // the slots are the inner node's
                        }
                        // A broadcast's sizes are on one axis; a contract's name their own.
                        let axis = d.axis.map(|a| format!(" axis {a}"));
                        if axis.is_some() || d.contract.is_some() {
                            let axis = axis.unwrap_or_default();
                            for (slot, size) in &d.inputs {
                                let e = faults
                                    .entry((id, *slot))
                                    .or_insert((Mark::None, String::new()));
                                let text = format!("{}{axis}: {size}", d.code);
                                // Findings of one severity on several axes are all shown; a worse one
                                // replaces milder ones.
                                if m > e.0 || e.1.is_empty() {
                                    *e = (m, text);
                                } else if m == e.0 {
                                    e.1.push('\n');
                                    e.1.push_str(&text);
                                }
                            }
                        }
                    }
                    PicNode {
                        kind: Kind::Op,
                        lines,
                        mark,
                        tooltip,
                    }
                }
                (NodeKind::Input(i), _) => {
                    let name = g.header.input.get(*i as usize).map_or("", |v| v.name());
                    PicNode {
                        kind: Kind::Input,
                        lines: vec![name.to_owned()],
                        mark: Mark::None,
                        tooltip: vec![format!("graph input '{name}'")],
                    }
                }
                (NodeKind::Initializer(_) | NodeKind::SparseInitializer(_), _) => {
                    let name = source_name.get(&id).copied().unwrap_or("");
                    if !self.opts.initializers && !outputs.contains(name) {
                        continue;
                    }
                    PicNode {
                        kind: Kind::Initializer,
                        lines: vec![name.to_owned()],
                        mark: if inserted.contains_key(&id) {
                            Mark::Helper
                        } else {
                            Mark::None
                        },
                        tooltip: vec![format!("initializer '{name}'")],
                    }
                }
                (NodeKind::Outer, _) => {
                    let name = source_name.get(&id).copied().unwrap_or("");
                    PicNode {
                        kind: Kind::Outer,
                        lines: vec!["outer".to_owned(), name.to_owned()],
                        mark: Mark::None,
                        tooltip: vec![format!("'{name}', read from an enclosing graph")],
                    }
                }
                // An op node always has its data (see `Graph::nodes`).
                (NodeKind::Op(_), None) => continue,
            };
            let i = self.add(node, cluster);
            map.insert(id, i);
        }
        // Value edges; inputs whose producer is not drawn are listed in the consumer's label.
        for e in (&g.dag).edge_references() {
            let (Some(&to), value) = (map.get(&e.target()), e.weight().value) else {
                continue;
            };
            let name = g.value(value).name.to_string();
            let ty = self.value_type(g, value);
            match e.weight().slot() {
                Slot::Input(slot) => {
                    let fault = faults.get(&(e.target(), slot as usize));
                    match map.get(&e.source()) {
                        Some(&from) => {
                            let mut lines = vec![name, ty];
                            let mut mark = Mark::None;
                            if let Some((m, text)) = fault {
                                lines.extend(text.lines().map(str::to_owned));
                                mark = *m;
                            }
                            self.pic.add_edge(
                                from,
                                to,
                                PicEdge {
                                    kind: EdgeKind::Value,
                                    lines,
                                    mark,
                                },
                            );
                        }
                        None => {
                            let mut line = format!("in {slot}: {name} {ty}");
                            if let Some((_, text)) = fault {
                                let _ = write!(line, "  <- {}", text.replace('\n', "; "));
                            }
                            self.pic[to].lines.push(line);
                        }
                    }
                }
                Slot::Capture => {
                    if let Some(&from) = map.get(&e.source()) {
                        self.pic.add_edge(
                            from,
                            to,
                            PicEdge {
                                kind: EdgeKind::Capture,
                                lines: vec![name],
                                mark: Mark::None,
                            },
                        );
                    }
                }
            }
        }
        // Graph outputs.
        for out in &g.header.output {
            let Some(value) = g.lookup(out.name()) else {
                continue;
            };
            let ty = self.value_type(g, value);
            let o = self.add(
                PicNode {
                    kind: Kind::Output,
                    lines: vec![out.name().to_owned()],
                    mark: Mark::None,
                    tooltip: vec![format!("graph output '{}'", out.name())],
                },
                cluster,
            );
            if let Some(&from) = map.get(&g.value(value).producer.0) {
                self.pic.add_edge(
                    from,
                    o,
                    PicEdge {
                        kind: EdgeKind::Value,
                        lines: vec![out.name().to_owned(), ty],
                        mark: Mark::None,
                    },
                );
            }
        }
        // Subgraphs, in source order of their nodes.
        for &id in &g.ops {
            let Some(op) = g.op(id) else { continue };
            for sub in op.subgraphs() {
                let attr = op.attributes().get(sub.attribute).map_or("", |a| a.name());
                let what = match sub.item {
                    Some(k) => format!("{attr}[{k}]"),
                    None => attr.to_owned(),
                };
                let c = self.clusters.len();
                self.clusters.push(Cluster {
                    label: sub.graph.path.clone(),
                    ..Cluster::default()
                });
                match cluster {
                    Some(parent) => self.clusters[parent].children.push(c),
                    None => self.top.push(c),
                }
                let first = self.pic.node_count();
                self.graph(&sub.graph, Some(c))?;
                if let (Some(&owner), true) = (map.get(&id), self.pic.node_count() > first) {
                    self.pic.add_edge(
                        owner,
                        NodeIndex::new(first),
                        PicEdge {
                            kind: EdgeKind::Subgraph(c),
                            lines: vec![what],
                            mark: Mark::None,
                        },
                    );
                }
            }
        }
        Ok(())
    }
}

/// Op nodes of the main graph and its subgraphs.
fn count_ops(model: &Model) -> usize {
    let mut n = 0;
    if let Some(g) = &model.graph {
        g.walk(&mut |x| n += x.ops.len());
    }
    n
}

fn node_attributes(n: &PicNode) -> String {
    let (color, fill, font) = n.mark.colors();
    let mut a = format!("label=\"{}\"", label_text(&n.lines, MAX_LINE_CHARS));
    match n.kind {
        Kind::Op => {}
        Kind::Input => a.push_str(" shape=invhouse fillcolor=\"#dff0d8\""),
        Kind::Output => a.push_str(" shape=house fillcolor=\"#dff0d8\""),
        Kind::Initializer => {
            a.push_str(
                " shape=box style=\"filled\" fontsize=8 height=0.2 color=gray50 fontcolor=gray30",
            );
            if n.mark == Mark::None {
                a.push_str(" fillcolor=gray95");
            }
        }
        Kind::Outer => a.push_str(" shape=ellipse style=dashed fontcolor=gray30"),
    }
    if n.mark != Mark::None {
        let width = if n.mark >= Mark::Warning { 3 } else { 2 };
        let _ = write!(
            a,
            " color=\"{color}\" fillcolor=\"{fill}\" fontcolor=\"{font}\" penwidth={width}"
        );
    }
    if !n.tooltip.is_empty() {
        let _ = write!(
            a,
            " tooltip=\"{}\"",
            label_text(&n.tooltip, MAX_TOOLTIP_CHARS)
        );
    }
    a
}

fn edge_attributes(e: &PicEdge) -> String {
    let mut a = format!("label=\"{}\"", label_text(&e.lines, MAX_LINE_CHARS));
    match e.kind {
        EdgeKind::Value => {}
        EdgeKind::Capture => a.push_str(" style=dashed color=gray50 fontcolor=gray40"),
        EdgeKind::Subgraph(c) => {
            let _ = write!(
                a,
                " style=dotted arrowhead=odot color=gray40 fontcolor=gray40 lhead=cluster_{c}"
            );
        }
    }
    if e.mark != Mark::None {
        let (color, _, _) = e.mark.colors();
        let _ = write!(a, " color=\"{color}\" fontcolor=\"{color}\" penwidth=2");
    }
    a
}

fn write_cluster(out: &mut String, clusters: &[Cluster], c: usize, depth: usize) {
    let pad = "    ".repeat(depth);
    let cl = &clusters[c];
    let _ = writeln!(out, "{pad}subgraph cluster_{c} {{");
    let _ = writeln!(
        out,
        "{pad}    label=\"{}\" style=rounded color=gray50 fontcolor=gray30",
        quote(&cl.label, MAX_LINE_CHARS)
    );
    let ids: Vec<String> = cl.nodes.iter().map(|n| n.index().to_string()).collect();
    if !ids.is_empty() {
        let _ = writeln!(out, "{pad}    {}", ids.join(" "));
    }
    for &child in &cl.children {
        write_cluster(out, clusters, child, depth + 1);
    }
    let _ = writeln!(out, "{pad}}}");
}

/// Draws the main graph of `model` (and its subgraphs) as DOT, marked with what a lint run found
/// about it (`found`: its findings, and its shapes if kept).
pub fn draw(model: &Model, found: &Findings, opts: &Options) -> Result<Picture, PictureError> {
    let g = model.graph.as_ref().ok_or(PictureError::NoGraph)?;
    let mut b = Builder {
        model,
        opts,
        findings: Marks::of(&found.diagnostics),
        pic: DiGraph::new(),
        clusters: Vec::new(),
        top: Vec::new(),
        ops: 0,
        shapes: found.shapes.iter().map(|s| (s.path.as_str(), s)).collect(),
    };
    b.graph(g, None)?;
    let pic = b.pic;
    let count = |m: Mark| {
        pic.node_weights()
            .filter(|n| n.kind == Kind::Op && n.mark == m)
            .count()
    };
    let (errors, warnings, inserted) = (
        count(Mark::Error),
        count(Mark::Warning),
        count(Mark::Inserted),
    );
    let mut title = vec![opts.title.clone()];
    let mut legend = Vec::new();
    if errors > 0 {
        legend.push(format!("{errors} with errors (E1, E2, E3) in red"));
    }
    if warnings > 0 {
        legend.push(format!("{warnings} with warnings (W1, W2) in orange"));
    }
    if inserted > 0 {
        legend.push(format!("{inserted} inserted by onnx-lint expand in blue"));
    }
    if !legend.is_empty() {
        title.push(format!("nodes: {}", legend.join(", ")));
    }
    let mut dot = String::new();
    dot.push_str("digraph onnx_lint {\n");
    let _ = writeln!(
        dot,
        "    graph [label=\"{}\" labelloc=t fontname=\"Helvetica\" fontsize=12 compound=true]",
        label_text(&title, MAX_TOOLTIP_CHARS)
    );
    dot.push_str(
        "    node [shape=box style=\"rounded,filled\" fillcolor=white fontname=\"Helvetica\" fontsize=10]\n",
    );
    dot.push_str("    edge [fontname=\"Helvetica\" fontsize=8 color=gray30]\n");
    let node_attrs = |_, n: (NodeIndex, &PicNode)| node_attributes(n.1);
    let edge_attrs =
        |_, e: petgraph::graph::EdgeReference<'_, PicEdge>| edge_attributes(e.weight());
    let _ = write!(
        dot,
        "{:?}",
        Dot::with_attr_getters(
            &pic,
            &[
                Config::NodeNoLabel,
                Config::EdgeNoLabel,
                Config::GraphContentOnly
            ],
            &edge_attrs,
            &node_attrs,
        )
    );
    for &c in &b.top {
        write_cluster(&mut dot, &b.clusters, c, 1);
    }
    dot.push_str("}\n");
    Ok(Picture {
        dot,
        nodes: pic.node_count(),
        errors,
        warnings,
        inserted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_escapes_dot_syntax_controls_and_entities() {
        assert_eq!(quote("plain", 100), "plain");
        assert_eq!(quote("a\"b", 100), "a\\\"b");
        assert_eq!(quote("back\\slash", 100), "back\\\\slash");
        assert_eq!(quote("two\nlines", 100), "two\\\\nlines");
        assert_eq!(quote("&#x202e;", 100), "&amp;#x202e;");
        assert_eq!(quote("rtl\u{202e}x", 100), "rtl\\\\u{202e}x");
        assert_eq!(quote("abcdefghij", 8), "abcde...");
    }

    #[test]
    fn too_large_graphs_are_refused_with_the_count() {
        let (m, found) = crate::lint::load(crate::file::Origin::File(
            concat!(env!("CARGO_MANIFEST_DIR"), "/models/tiny_cnn.onnx").into(),
        ))
        .unwrap();
        let opts = Options {
            max_nodes: 3,
            ..Options::default()
        };
        assert_eq!(
            draw(&m, &found, &opts).unwrap_err(),
            PictureError::TooLarge { nodes: 7, max: 3 }
        );
        let p = draw(&m, &found, &Options::default()).unwrap();
        assert_eq!((p.errors, p.warnings, p.inserted), (0, 0, 0));
    }
}
