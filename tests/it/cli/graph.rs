//! `onnx-lint graph`: the picture of a model. E1 nodes are red with the axis on the edges at fault, W1
//! nodes orange, the nodes `expand` inserted blue; hostile names cannot break the DOT file; `.svg` goes
//! through Graphviz's `dot` (those tests are skipped, saying so, only when `dot` is not installed).
//!
//! The DOT text is read back by a small parser of the statements the writer emits (`tests` below); when
//! Graphviz is installed, `dot -Tjson0` reads it too, so Graphviz's own parser confirms the structure.

use crate::support::binary::{self, DEADLINE};
use crate::support::paths::tempdir;
use crate::support::proto::node;
use onnx_lint::proto::tensor_proto::DataType;
use onnx_lint::proto::tensor_shape_proto::{Dimension, dimension};
use onnx_lint::proto::*;
use prost::Message;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Runs with `env` set: (exit status, stdout, stderr).
fn run_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = binary::command(args);
    cmd.envs(env.iter().copied());
    let r = binary::run_command(cmd, args, DEADLINE);
    (r.code, r.stdout, r.stderr)
}

fn model_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("models")
        .join(name)
}

/// Runs the binary: (status, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    run_env(args, &[])
}

/// The DOT picture of `model` (a path), written to standard output.
fn dot_of(model: &Path, extra: &[&str]) -> String {
    let mut args = vec!["graph", model.to_str().unwrap(), "-o", "-"];
    args.extend_from_slice(extra);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "graph {}: {err}", model.display());
    out
}

/// True when Graphviz's `dot` runs; otherwise prints why the caller skips.
fn have_graphviz(test: &str) -> bool {
    let ok = Command::new("dot")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("SKIPPED {test}: Graphviz's `dot` is not installed (apt-get install graphviz)");
    }
    ok
}

/// Runs Graphviz's `dot` with `args` on `input`; returns its stdout (it must succeed).
fn graphviz(args: &[&str], input: &str) -> String {
    let mut child = Command::new("dot")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dot runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "dot {args:?} failed: {}\n{input}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

// ---------------------------------------------------------------------------------------------------
// Reading the DOT back
// ---------------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Id(String),
    Str(String),
    Punct(char),
    Arrow,
}

/// Tokens of DOT text; a quoted string is returned undecoded (its escapes kept), and must be closed.
fn tokens(dot: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut it = dot.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            c if c.is_whitespace() => {}
            '"' => {
                let mut s = String::new();
                let mut closed = false;
                while let Some(c) = it.next() {
                    match c {
                        '\\' => {
                            s.push('\\');
                            s.push(it.next().expect("a backslash ends the file"));
                        }
                        '"' => {
                            closed = true;
                            break;
                        }
                        c => s.push(c),
                    }
                }
                assert!(closed, "an unclosed string in the DOT text");
                out.push(Tok::Str(s));
            }
            '-' if it.peek() == Some(&'>') => {
                it.next();
                out.push(Tok::Arrow);
            }
            '[' | ']' | '{' | '}' | '=' | ';' | ',' => out.push(Tok::Punct(c)),
            c => {
                let mut s = String::from(c);
                while let Some(&n) = it.peek() {
                    if n.is_alphanumeric() || n == '_' || n == '.' {
                        s.push(n);
                        it.next();
                    } else {
                        break;
                    }
                }
                out.push(Tok::Id(s));
            }
        }
    }
    out
}

/// What a label shows: DOT's escapes decoded (`\n` is a line break), then the `&amp;` we write for `&`.
fn decode(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('n') => out.push('\n'),
                Some(o) => out.push(o),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out.replace("&amp;", "&")
}

#[derive(Debug, Default)]
struct Parsed {
    nodes: Vec<(String, HashMap<String, String>)>,
    edges: Vec<(String, String, HashMap<String, String>)>,
    /// Cluster name -> the node ids listed in it.
    clusters: Vec<(String, Vec<String>)>,
}

impl Parsed {
    /// The node whose label's first line is `name`.
    fn node_named(&self, name: &str) -> (&str, &HashMap<String, String>) {
        self.nodes
            .iter()
            .find(|(_, a)| label(a).lines().next() == Some(name))
            .map(|(i, a)| (i.as_str(), a))
            .unwrap_or_else(|| panic!("no node labelled {name:?} in {:#?}", self.nodes))
    }

    fn edges_into(&self, id: &str) -> Vec<&HashMap<String, String>> {
        self.edges
            .iter()
            .filter(|(_, t, _)| t == id)
            .map(|(_, _, a)| a)
            .collect()
    }
}

fn label(a: &HashMap<String, String>) -> String {
    decode(a.get("label").map(String::as_str).unwrap_or(""))
}

fn attr<'a>(a: &'a HashMap<String, String>, k: &str) -> &'a str {
    a.get(k).map(String::as_str).unwrap_or("")
}

/// Parses `[k=v k2="v2" ...]` starting after the `[`.
fn attrs(t: &[Tok], i: &mut usize) -> HashMap<String, String> {
    let mut m = HashMap::new();
    loop {
        match &t[*i] {
            Tok::Punct(']') => {
                *i += 1;
                return m;
            }
            Tok::Punct(',') | Tok::Punct(';') => *i += 1,
            Tok::Id(k) => {
                assert_eq!(t[*i + 1], Tok::Punct('='), "attribute {k} without a value");
                let v = match &t[*i + 2] {
                    Tok::Id(v) | Tok::Str(v) => v.clone(),
                    other => panic!("attribute {k} = {other:?}"),
                };
                assert!(m.insert(k.clone(), v).is_none(), "attribute {k} twice");
                *i += 3;
            }
            other => panic!("unexpected {other:?} in an attribute list"),
        }
    }
}

/// Reads the statements the picture writer emits: node and edge statements with attribute lists,
/// `graph`/`node`/`edge` defaults, and clusters listing node ids. Anything else fails the test.
fn parse(dot: &str) -> Parsed {
    let t = tokens(dot);
    let mut p = Parsed::default();
    assert_eq!(t[0], Tok::Id("digraph".into()));
    assert!(matches!(t[1], Tok::Id(_)));
    assert_eq!(t[2], Tok::Punct('{'));
    let mut i = 3;
    let mut stack: Vec<Option<usize>> = vec![None];
    while i < t.len() {
        match (&t[i], t.get(i + 1)) {
            (Tok::Punct('}'), _) => {
                stack.pop();
                i += 1;
            }
            (Tok::Id(k), Some(Tok::Punct('[')))
                if matches!(k.as_str(), "graph" | "node" | "edge") =>
            {
                i += 2;
                attrs(&t, &mut i);
            }
            (Tok::Id(k), Some(Tok::Id(name))) if k == "subgraph" => {
                assert_eq!(t[i + 2], Tok::Punct('{'));
                p.clusters.push((name.clone(), Vec::new()));
                stack.push(Some(p.clusters.len() - 1));
                i += 3;
            }
            (Tok::Id(_), Some(Tok::Punct('='))) => {
                i += 3; // a cluster's own attribute
            }
            (Tok::Id(a), Some(Tok::Arrow)) => {
                let Tok::Id(b) = &t[i + 2] else {
                    panic!("edge to {:?}", t[i + 2])
                };
                assert_eq!(t[i + 3], Tok::Punct('['));
                i += 4;
                let m = attrs(&t, &mut i);
                p.edges.push((a.clone(), b.clone(), m));
            }
            (Tok::Id(a), Some(Tok::Punct('['))) => {
                i += 2;
                let m = attrs(&t, &mut i);
                p.nodes.push((a.clone(), m));
            }
            (Tok::Id(a), _) => {
                let Some(Some(c)) = stack.last() else {
                    panic!("a bare id {a} outside a cluster")
                };
                p.clusters[*c].1.push(a.clone());
                i += 1;
            }
            (other, _) => panic!("unexpected {other:?} at token {i}"),
        }
    }
    assert!(stack.is_empty(), "unbalanced braces");
    let ids: Vec<&str> = p.nodes.iter().map(|(i, _)| i.as_str()).collect();
    for (a, b, _) in &p.edges {
        assert!(
            ids.contains(&a.as_str()) && ids.contains(&b.as_str()),
            "edge {a} -> {b}"
        );
    }
    p
}

// ---------------------------------------------------------------------------------------------------
// Colours
// ---------------------------------------------------------------------------------------------------

#[test]
fn e1_node_is_red_with_the_axis_on_the_edges_at_fault() {
    let p = parse(&dot_of(&model_path("broken/e1_add.onnx"), &[]));
    let (id, n) = p.node_named("add_lhs_rhs");
    assert_eq!(attr(n, "color"), "red");
    assert!(
        label(n).contains("(Add)\nE1: axis -1: 64 vs 63 (neither is 1)"),
        "{}",
        label(n)
    );
    let mut edges: Vec<String> = p
        .edges_into(id)
        .iter()
        .map(|a| {
            assert_eq!(attr(a, "color"), "red");
            label(a)
        })
        .collect();
    edges.sort();
    assert_eq!(
        edges,
        [
            "lhs\nFLOAT[2, 64]\nE1 axis -1: 64",
            "rhs\nFLOAT[2, 63]\nE1 axis -1: 63"
        ]
    );
    // Nothing else is red; the output edge carries the inferred type (the conflicting axis unknown).
    assert_eq!(
        p.nodes
            .iter()
            .filter(|(_, a)| attr(a, "color") == "red")
            .count(),
        1
    );
    assert!(
        p.edges
            .iter()
            .any(|(_, _, a)| label(a) == "sum\nFLOAT[2, ?]")
    );
}

#[test]
fn w1_node_is_orange_with_the_condition() {
    let p = parse(&dot_of(&model_path("broken/e1_symbolic_warning.onnx"), &[]));
    let (id, n) = p.node_named("add_symbolic");
    assert_eq!(attr(n, "color"), "orange");
    assert!(
        label(n).contains("W1: axis -2: N vs 4; N must be 1 or 4"),
        "{}",
        label(n)
    );
    let mut edges: Vec<String> = p.edges_into(id).iter().map(|a| label(a)).collect();
    edges.sort();
    assert_eq!(
        edges,
        [
            "table\nFLOAT[4, 3]\nW1 axis -2: 4",
            "x\nFLOAT[N, 3]\nW1 axis -2: N"
        ]
    );
    assert!(!p.nodes.iter().any(|(_, a)| attr(a, "color") == "red"));
}

#[test]
fn every_broken_model_has_its_planted_nodes_red_or_orange() {
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(model_path("broken/expected.json")).unwrap())
            .unwrap();
    for (file, findings) in expected.as_object().unwrap() {
        let p = parse(&dot_of(&model_path(&format!("broken/{file}")), &[]));
        for f in findings.as_array().unwrap() {
            let color = match f["code"].as_str().unwrap() {
                "E1" | "E2" | "E3" => "red",
                _ => "orange",
            };
            let node = f["node"].as_str().unwrap();
            let (id, n) = p.node_named(node);
            assert_eq!(attr(n, "color"), color, "{file}: {node}");
            // A subgraph's node sits in its cluster.
            if f["graph"] != "main" {
                assert!(
                    p.clusters
                        .iter()
                        .any(|(_, ids)| ids.iter().any(|i| i == id)),
                    "{file}: {node} is in no cluster"
                );
            }
            // The sizes at fault are on the node's input edges or on its listed initializer inputs,
            // unless the finding is inside a function (the inputs are the inner node's).
            if let (Some(axis), None) = (f["axis"].as_i64(), f.get("inner_node")) {
                let mut marks: Vec<String> = p
                    .edges_into(id)
                    .iter()
                    .flat_map(|a| label(a).lines().map(str::to_owned).collect::<Vec<_>>())
                    .chain(label(n).lines().map(str::to_owned))
                    .filter_map(|l| {
                        l.split_once(&format!("{} axis {axis}: ", f["code"].as_str().unwrap()))
                            .map(|(_, s)| s.to_owned())
                    })
                    .collect();
                marks.sort();
                for s in f["sizes"].as_array().unwrap() {
                    let s = match s {
                        serde_json::Value::String(x) => x.clone(),
                        other => other.to_string(),
                    };
                    assert!(
                        marks.contains(&s),
                        "{file}: {node}: size {s} not marked: {marks:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn gemm_c_is_the_edge_at_fault() {
    let p = parse(&dot_of(
        &model_path("broken/e1_unidirectional_gemm.onnx"),
        &["--initializers"],
    ));
    let (id, _) = p.node_named("gemm_fc");
    let marked: Vec<String> = p
        .edges_into(id)
        .iter()
        .filter(|a| attr(a, "color") == "red")
        .map(|a| label(a))
        .collect();
    // C [3] against A*B's last axis, which is B's.
    assert_eq!(marked.len(), 2, "{marked:?}");
    assert!(
        marked
            .iter()
            .any(|l| l.starts_with("fc_c_bias\n") && l.ends_with("E1 axis -1: 3"))
    );
    assert!(
        marked
            .iter()
            .any(|l| l.starts_with("fc_b_matrix\n") && l.ends_with("E1 axis -1: 4"))
    );
}

/// Expands `model` into a temporary file; returns the folder, the path and the insertion count.
fn expanded(model: &str) -> (tempfile::TempDir, PathBuf, usize) {
    let dir = tempdir();
    let out = dir.path().join("expanded.onnx");
    let (code, _, err) = run(&[
        "expand",
        model_path(model).to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let n = err
        .lines()
        .filter(|l| l.starts_with("expand: graph main,"))
        .count();
    (dir, out, n)
}

fn blue(p: &Parsed) -> Vec<String> {
    p.nodes
        .iter()
        .filter(|(_, a)| attr(a, "color") == "blue")
        .map(|(_, a)| label(a))
        .collect()
}

#[test]
fn expand_inserted_nodes_are_blue() {
    for model in [
        "tiny_transformer.onnx",
        "tiny_cnn.onnx",
        "variadic_ops.onnx",
    ] {
        assert!(
            blue(&parse(&dot_of(&model_path(model), &[]))).is_empty(),
            "{model}: nothing is blue before expand"
        );
        let (_dir, out, inserted) = expanded(model);
        assert!(inserted > 0, "{model}: expand inserts something");
        let p = parse(&dot_of(&out, &[]));
        let b = blue(&p);
        assert_eq!(
            b.len(),
            inserted,
            "{model}: one blue node per insertion: {b:#?}"
        );
        for l in &b {
            let mut lines = l.lines();
            let name = lines.next().unwrap();
            assert!(name.contains("/expand_in"), "{model}: {name}");
            assert_eq!(lines.next(), Some("(Expand)"), "{model}: {l}");
        }
        // Helpers (Shape...) are light blue, never blue; original nodes are neither.
        for (_, a) in &p.nodes {
            let name = label(a).lines().next().unwrap_or("").to_owned();
            if attr(a, "color") == "cornflowerblue" {
                assert!(name.contains("/expand_in"), "{model}: helper {name}");
            }
            if !name.contains("/expand_in") && !name.starts_with("onnx_lint_shape_") {
                assert!(
                    !attr(a, "color").contains("blue"),
                    "{model}: original node {name} is blue"
                );
            }
        }
    }
}

#[test]
fn expand_in_subgraphs_and_before_opset_8_is_blue_too() {
    // control_flow: three insertions in If/Loop bodies are drawn (two more are in a function body).
    let (_d, out, _) = expanded("control_flow.onnx");
    let p = parse(&dot_of(&out, &[]));
    assert_eq!(blue(&p).len(), 3, "{:#?}", blue(&p));
    // legacy_axis (opset 6): Reshape + Tile stand in for Expand.
    let (_d, out, inserted) = expanded("legacy_axis.onnx");
    let b = blue(&parse(&dot_of(&out, &[])));
    assert_eq!(b.len(), inserted);
    assert!(
        b.iter()
            .all(|l| l.contains("(Tile)") || l.contains("(Reshape)")),
        "{b:?}"
    );
}

// ---------------------------------------------------------------------------------------------------
// Hand-made models
// ---------------------------------------------------------------------------------------------------

fn float(name: &str, shape: &[i64]) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(DataType::Float as i32),
                shape: Some(TensorShapeProto {
                    dim: shape
                        .iter()
                        .map(|&d| Dimension {
                            value: Some(dimension::Value::DimValue(d)),
                            ..Default::default()
                        })
                        .collect(),
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn write_model(
    dir: &Path,
    file: &str,
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: Vec<ValueInfoProto>,
) -> PathBuf {
    let m = ModelProto {
        ir_version: Some(9),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        graph: Some(GraphProto {
            node: nodes,
            name: Some("g".into()),
            input: inputs,
            output: outputs,
            ..Default::default()
        }),
        ..Default::default()
    };
    let path = dir.join(file);
    std::fs::write(&path, m.encode_to_vec()).unwrap();
    path
}

#[test]
fn unnamed_consumers_and_look_alike_names() {
    let dir = tempdir();
    // Two unnamed Adds broadcasting a [3] input, and a user's Relu named like an inserted node that
    // feeds nothing of that name.
    let path = write_model(
        dir.path(),
        "m.onnx",
        vec![
            node("Add", "", &["x", "b"], &["s"]),
            node("Add", "", &["s", "b"], &["t"]),
            node("Relu", "t/expand_in0", &["t"], &["y"]),
        ],
        vec![float("x", &[2, 3]), float("b", &[3])],
        vec![float("y", &[2, 3])],
    );
    let p = parse(&dot_of(&path, &[]));
    assert!(blue(&p).is_empty(), "{:?}", blue(&p));
    let out = dir.path().join("x.onnx");
    let (code, _, err) = run(&[
        "expand",
        path.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let p = parse(&dot_of(&out, &[]));
    let mut b: Vec<String> = blue(&p)
        .iter()
        .map(|l| l.lines().next().unwrap().to_owned())
        .collect();
    b.sort();
    assert_eq!(b, ["#0/expand_in1", "#1/expand_in1"]);
}

/// Names a hostile exporter might write: DOT syntax, escapes, newlines, entities, bidi overrides.
const HOSTILE_NODE: &str = "evil\"]; 99 [label=\"pwned\"]; x [color=\"";
const HOSTILE_INPUT: &str = "back\\slash\\";
const HOSTILE_INPUT2: &str = "two\nlines}{ &#x202e; <b>&amp;</b> \u{202e}rtl";

fn hostile_model(dir: &Path) -> PathBuf {
    write_model(
        dir,
        "we\"ird\\name.onnx",
        vec![node(
            "Add",
            HOSTILE_NODE,
            &[HOSTILE_INPUT, HOSTILE_INPUT2],
            &["out"],
        )],
        vec![
            float(HOSTILE_INPUT, &[2, 3]),
            float(HOSTILE_INPUT2, &[2, 4]),
        ],
        vec![float("out", &[2, 4])],
    )
}

#[test]
fn hostile_names_cannot_break_the_dot_text() {
    let dir = tempdir();
    let path = hostile_model(dir.path());
    let dot = dot_of(&path, &[]);
    let p = parse(&dot);
    // Exactly the graph's nodes: 2 inputs, the Add, the output. No injected node or attribute.
    assert_eq!(p.nodes.len(), 4, "{dot}");
    assert!(!p.nodes.iter().any(|(id, _)| id == "99"));
    let (_, n) = p.node_named(HOSTILE_NODE);
    assert_eq!(attr(n, "color"), "red", "the hostile node is the E1 node");
    // What the labels show: the names as the terminal would, control characters and bidi overrides
    // as visible escapes, entities as written.
    let labels: Vec<String> = p.nodes.iter().map(|(_, a)| label(a)).collect();
    assert!(labels.contains(&HOSTILE_INPUT.to_owned()), "{labels:?}");
    let shown2 = "two\\nlines}{ &#x202e; <b>&amp;</b> \\u{202e}rtl";
    assert!(labels.contains(&shown2.to_owned()), "{labels:?}");
    // The title (the file name) too.
    assert!(dot.contains("we\\\"ird\\\\name.onnx"), "{dot}");

    if !have_graphviz("hostile_names_cannot_break_the_dot_text (Graphviz part)") {
        return;
    }
    // Graphviz's own parser agrees: the same four nodes, labels as written.
    let json: serde_json::Value = serde_json::from_str(&graphviz(&["-Tjson0"], &dot)).unwrap();
    let objects = json["objects"].as_array().unwrap();
    assert_eq!(objects.len(), 4, "{json:#}");
    let gv_labels: Vec<String> = objects
        .iter()
        .map(|o| decode(o["label"].as_str().unwrap()))
        .collect();
    for l in &labels {
        assert!(gv_labels.contains(l), "{l:?} not in {gv_labels:?}");
    }
    // And the drawing shows the text, with no entity decoded into a character.
    let svg = graphviz(&["-Tsvg"], &dot);
    assert!(
        svg.contains("evil&quot;]; 99 [label=&quot;pwned&quot;]; x [color=&quot;"),
        "{svg}"
    );
    assert!(
        svg.contains("&amp;#x202e;"),
        "the entity is shown, not decoded"
    );
    assert!(
        !svg.contains('\u{202e}'),
        "no bidi override reaches the drawing"
    );
}

// ---------------------------------------------------------------------------------------------------
// SVG and the command line
// ---------------------------------------------------------------------------------------------------

/// The `<g class="node">` groups of an SVG, as text.
fn svg_nodes(svg: &str) -> Vec<&str> {
    svg.split("<g id=\"node")
        .skip(1)
        .map(|s| {
            let end = ["<g id=\"edge", "<g id=\"clust"]
                .iter()
                .filter_map(|m| s.find(m))
                .min()
                .unwrap_or(s.len());
            &s[..end]
        })
        .collect()
}

#[test]
fn svg_has_the_e1_node_in_red() {
    if !have_graphviz("svg_has_the_e1_node_in_red") {
        return;
    }
    let dir = tempdir();
    let out = dir.path().join("e1.svg");
    let (code, _, err) = run(&[
        "graph",
        model_path("broken/e1_add.onnx").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("1 with errors in red"), "{err}");
    // Graphviz writes '-' in text as `&#45;`.
    let svg = std::fs::read_to_string(&out).unwrap().replace("&#45;", "-");
    assert!(svg.starts_with("<?xml"), "an SVG document");
    let p = parse(&dot_of(&model_path("broken/e1_add.onnx"), &[]));
    let (id, _) = p.node_named("add_lhs_rhs");
    let nodes = svg_nodes(&svg);
    let g = nodes
        .iter()
        .find(|g| g.contains(&format!("<title>{id}</title>")))
        .unwrap_or_else(|| panic!("no node titled {id} in the SVG"));
    assert!(g.contains(">add_lhs_rhs</text>"), "{g}");
    assert!(
        g.contains("stroke=\"red\"") && g.contains("fill=\"#ffd0d0\""),
        "{g}"
    );
    assert!(g.contains("E1: axis -1: 64 vs 63"), "{g}");
    // Only that node is red.
    assert_eq!(
        nodes
            .iter()
            .filter(|g| g.contains("stroke=\"red\""))
            .count(),
        1
    );
    // The edges at fault are red with their axis.
    assert!(svg.contains(">E1 axis -1: 63</text>"), "{svg}");
}

#[test]
fn svg_without_graphviz_is_a_clear_error() {
    let dir = tempdir();
    let out = dir.path().join("x.svg");
    let empty = dir.path().join("no-bin");
    std::fs::create_dir(&empty).unwrap();
    let (code, _, err) = run_env(
        &[
            "graph",
            model_path("broken/e1_add.onnx").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        &[("PATH", empty.to_str().unwrap())],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("Graphviz") && err.contains("not on PATH"),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");
}

#[test]
fn dot_file_is_written_and_other_extensions_are_refused() {
    let dir = tempdir();
    let model = model_path("broken/e1_add.onnx");
    let out = dir.path().join("e1.dot");
    let (code, _, err) = run(&[
        "graph",
        model.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        written,
        dot_of(&model, &[]),
        "the file holds what -o - prints"
    );
    // Only the file remains in the folder (the temporary file was renamed).
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

    let bad = dir.path().join("e1.png");
    let (code, _, err) = run(&[
        "graph",
        model.to_str().unwrap(),
        "-o",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains(".dot") && err.contains(".svg"), "{err}");
    assert!(!bad.exists());

    let (code, _, err) = run(&["graph", "/nonexistent/model.onnx", "-o", "-"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot load"), "{err}");
}

#[test]
fn a_graph_over_max_nodes_is_refused_with_the_count() {
    let model = model_path("tiny_transformer.onnx");
    let (code, out, err) = run(&[
        "graph",
        model.to_str().unwrap(),
        "-o",
        "-",
        "--max-nodes",
        "10",
    ]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.contains("more than --max-nodes 10") && err.contains("0 for no limit"),
        "{err}"
    );
    let (code, _, err) = run(&[
        "graph",
        model.to_str().unwrap(),
        "-o",
        "-",
        "--max-nodes",
        "0",
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn initializers_are_listed_or_drawn() {
    let model = model_path("tiny_cnn.onnx");
    let p = parse(&dot_of(&model, &[]));
    let (_, conv) = p.node_named("conv");
    assert!(
        label(conv).contains("in 1: conv_w FLOAT[4, 3, 3, 3]"),
        "{}",
        label(conv)
    );
    let q = parse(&dot_of(&model, &["--initializers"]));
    assert!(q.nodes.len() > p.nodes.len());
    let (_, w) = q.node_named("conv_w");
    assert_eq!(attr(w, "fontsize"), "8", "initializers are small");
    let (_, conv) = q.node_named("conv");
    assert!(!label(conv).contains("in 1:"));
}

#[test]
fn subgraphs_are_clusters_and_function_findings_are_at_the_call() {
    let p = parse(&dot_of(&model_path("broken/e1_in_loop.onnx"), &[]));
    assert_eq!(p.clusters.len(), 1);
    let (id, _) = p.node_named("body_add_step");
    assert!(p.clusters[0].1.contains(&id.to_owned()));
    let p = parse(&dot_of(&model_path("broken/e1_in_function.onnx"), &[]));
    let (_, call) = p.node_named("call_scale_shift");
    assert_eq!(attr(call, "color"), "red");
    assert!(
        label(call).contains("at node 'fn_mul_scale'"),
        "{}",
        label(call)
    );
    if have_graphviz("subgraphs_are_clusters (Graphviz part)") {
        // lhead needs compound=true and a real cluster: Graphviz accepts the whole file.
        let dot = dot_of(&model_path("broken/e1_in_if.onnx"), &[]);
        let json: serde_json::Value = serde_json::from_str(&graphviz(&["-Tjson0"], &dot)).unwrap();
        assert_eq!(json["_subgraph_cnt"], 2);
    }
}
