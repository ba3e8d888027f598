//! Snapshots of the explicit-broadcast rewrite: `onnx-lint expand` of a few example models, rendered as
//! text (its standard error report, then every graph's node list and the initializers it added) and
//! compared with `tests/expand_fixed/<model>.fixed`. Any change to the rewrite shows up as a diff here.
//!
//! `ONNX_LINT_BLESS=1 cargo test --release --test it writing::expand_snapshots` (re)writes the `.fixed`
//! files instead; review the diff before committing it.
//!
//! In the rendering, nodes and initializers the rewrite added are marked `+`; an unnamed node shows as
//! `#<position in its node list>`; small int64 tensors show their values.

use crate::support::binary::{self};
use crate::support::paths::{root, s, tempdir};
use crate::support::snapshot;
use onnx_lint::proto::attribute_proto::AttributeType;
use onnx_lint::proto::tensor_proto::DataType;
use onnx_lint::proto::{AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto};
use prost::Message;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;

/// Runs with `args`: (exit status, stderr, which must be UTF-8).
fn run(args: &[&Path]) -> (i32, String) {
    let args: Vec<&str> = args.iter().map(|p| s(p)).collect();
    let r = binary::run(&args);
    let stderr = String::from_utf8(r.stderr_bytes).expect("stderr is UTF-8");
    (r.code, stderr)
}

fn decode(path: &Path) -> ModelProto {
    let bytes = std::fs::read(path).unwrap();
    ModelProto::decode(bytes.as_slice()).unwrap()
}

/// Every node name of the model (all graphs, subgraphs and function bodies).
fn node_names(m: &ModelProto) -> HashSet<String> {
    fn graph(g: &GraphProto, out: &mut HashSet<String>) {
        nodes(&g.node, out);
    }
    fn nodes(list: &[NodeProto], out: &mut HashSet<String>) {
        for n in list {
            out.insert(n.name().to_owned());
            for a in &n.attribute {
                a.g.iter().chain(&a.graphs).for_each(|g| graph(g, out));
            }
        }
    }
    let mut out = HashSet::new();
    if let Some(g) = &m.graph {
        graph(g, &mut out);
    }
    for f in &m.functions {
        nodes(&f.node, &mut out);
    }
    out
}

/// Every initializer name of the model (main graph and subgraphs).
fn initializer_names(m: &ModelProto) -> HashSet<String> {
    fn graph(g: &GraphProto, out: &mut HashSet<String>) {
        out.extend(g.initializer.iter().map(|t| t.name().to_owned()));
        for n in &g.node {
            for a in &n.attribute {
                a.g.iter().chain(&a.graphs).for_each(|g| graph(g, out));
            }
        }
    }
    let mut out = HashSet::new();
    if let Some(g) = &m.graph {
        graph(g, &mut out);
    }
    out
}

/// `INT64[4] [1, 4, 1, 1]`: element type, dims, and the values of a small int64 tensor.
fn tensor(t: &TensorProto) -> String {
    let ty = DataType::try_from(t.data_type())
        .map(|d| d.as_str_name().to_owned())
        .unwrap_or_else(|_| format!("type{}", t.data_type()));
    let dims: Vec<String> = t.dims.iter().map(i64::to_string).collect();
    let mut s = format!("{ty}[{}]", dims.join(","));
    if t.data_type() == DataType::Int64 as i32 {
        let values: Vec<i64> = match &t.raw_data {
            Some(raw) => raw
                .chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                .collect(),
            None => t.int64_data.clone(),
        };
        if values.len() <= 16 {
            let v: Vec<String> = values.iter().map(i64::to_string).collect();
            write!(s, " [{}]", v.join(", ")).unwrap();
        }
    }
    s
}

/// An attribute's value, or None for a graph (rendered below its node).
fn attribute(a: &AttributeProto) -> Option<String> {
    let bytes = |b: &[u8]| format!("{:?}", String::from_utf8_lossy(b));
    Some(match a.r#type() {
        AttributeType::Int => a.i().to_string(),
        AttributeType::Float => format!("{:?}", a.f()),
        AttributeType::String => bytes(a.s()),
        AttributeType::Tensor => tensor(a.t.as_ref()?),
        AttributeType::Ints => format!("{:?}", a.ints),
        AttributeType::Floats => format!("{:?}", a.floats),
        AttributeType::Strings => {
            let v: Vec<String> = a.strings.iter().map(|s| bytes(s)).collect();
            format!("[{}]", v.join(", "))
        }
        AttributeType::Graph | AttributeType::Graphs => return None,
        other => format!("<{}>", other.as_str_name()),
    })
}

struct Renderer {
    old_nodes: HashSet<String>,
    old_initializers: HashSet<String>,
    out: String,
}

impl Renderer {
    fn line(&mut self, depth: usize, added: bool, text: &str) {
        let mark = if added { "+ " } else { "  " };
        writeln!(self.out, "{}{mark}{text}", "    ".repeat(depth)).unwrap();
    }

    fn nodes(&mut self, list: &[NodeProto], depth: usize) {
        for (i, n) in list.iter().enumerate() {
            let name = match n.name() {
                "" => format!("#{i}"),
                s => s.to_owned(),
            };
            let op = match n.domain() {
                "" | "ai.onnx" => n.op_type().to_owned(),
                d => format!("{d}.{}", n.op_type()),
            };
            let attrs: Vec<String> = n
                .attribute
                .iter()
                .filter_map(|a| Some(format!("{}={}", a.name(), attribute(a)?)))
                .collect();
            let attrs = if attrs.is_empty() {
                String::new()
            } else {
                format!(" {{{}}}", attrs.join(", "))
            };
            let added = !n.name().is_empty() && !self.old_nodes.contains(n.name());
            let text = format!(
                "{name}: {op}({}){attrs} -> {}",
                n.input.join(", "),
                n.output.join(", ")
            );
            self.line(depth, added, &text);
            for a in &n.attribute {
                for (k, g) in a.g.iter().chain(&a.graphs).enumerate() {
                    let which = if a.graphs.is_empty() {
                        String::new()
                    } else {
                        format!("[{k}]")
                    };
                    self.line(depth + 1, false, &format!("{}{which}:", a.name()));
                    self.graph(g, depth + 2);
                }
            }
        }
    }

    fn graph(&mut self, g: &GraphProto, depth: usize) {
        let names = |v: &[onnx_lint::proto::ValueInfoProto]| match v {
            [] => "(none)".to_owned(),
            _ => v.iter().map(|x| x.name()).collect::<Vec<_>>().join(", "),
        };
        self.line(depth, false, &format!("inputs: {}", names(&g.input)));
        self.nodes(&g.node, depth);
        let kept = g
            .initializer
            .iter()
            .filter(|t| self.old_initializers.contains(t.name()))
            .count();
        if kept > 0 {
            self.line(
                depth,
                false,
                &format!("initializers: {kept} of the original"),
            );
        }
        for t in &g.initializer {
            if !self.old_initializers.contains(t.name()) {
                let text = format!("initializer {}: {}", t.name(), tensor(t));
                self.line(depth, true, &text);
            }
        }
        self.line(depth, false, &format!("outputs: {}", names(&g.output)));
    }
}

/// The rewritten model as text, marking what is not in `original`.
fn render(original: &ModelProto, rewritten: &ModelProto) -> String {
    let mut r = Renderer {
        old_nodes: node_names(original),
        old_initializers: initializer_names(original),
        out: String::new(),
    };
    if let Some(g) = &rewritten.graph {
        r.out.push_str("graph main:\n");
        r.graph(g, 0);
    }
    for f in &rewritten.functions {
        writeln!(r.out, "function {}.{}:", f.domain(), f.name()).unwrap();
        r.line(0, false, &format!("inputs: {}", f.input.join(", ")));
        r.nodes(&f.node, 0);
        r.line(0, false, &format!("outputs: {}", f.output.join(", ")));
    }
    r.out
}

/// Expands `models/<name>.onnx`, checks that a second `expand` changes nothing, and compares (or with
/// `ONNX_LINT_BLESS=1` writes) `tests/expand_fixed/<name>.fixed`.
fn snapshot(name: &str) {
    let model = root().join("models").join(format!("{name}.onnx"));
    let dir = tempdir();
    let out = dir.path().join("out.onnx");
    let (code, stderr) = run(&[Path::new("expand"), &model, Path::new("-o"), &out]);
    assert_eq!(code, 0, "{stderr}");

    let again = dir.path().join("again.onnx");
    let (code, stderr2) = run(&[Path::new("expand"), &out, Path::new("-o"), &again]);
    assert_eq!(code, 0, "{stderr2}");
    assert!(
        stderr2.contains("expand: 0 implicit broadcasts made explicit (0 nodes inserted)"),
        "expand of its own output is not a no-op:\n{stderr2}"
    );
    assert!(
        std::fs::read(&out).unwrap() == std::fs::read(&again).unwrap(),
        "expand of its own output is not byte-identical"
    );

    let text = format!(
        "# onnx-lint expand models/{name}.onnx -o OUT\n\n## standard error\n{stderr}\n## OUT\n{}",
        render(&decode(&model), &decode(&out))
    );
    let fixed = root()
        .join("tests/expand_fixed")
        .join(format!("{name}.fixed"));
    snapshot::assert_file(&fixed, text.as_bytes(), "writing::expand_snapshots");
}

#[test]
fn tiny_cnn() {
    snapshot("tiny_cnn");
}

#[test]
fn variadic_ops() {
    snapshot("variadic_ops");
}

#[test]
fn tiny_transformer() {
    snapshot("tiny_transformer");
}

#[test]
fn control_flow() {
    snapshot("control_flow");
}

#[test]
fn zero_size() {
    snapshot("zero_size");
}

#[test]
fn many_types() {
    snapshot("many_types");
}

/// GPT-2's tanh-GELU: every scalar and bias made explicit except the cube's exponent, which a kernel
/// exception keeps implicit (onnxruntime computes `Pow(h, 3.0)` as `h*h*h` only then).
#[test]
fn gelu_tanh() {
    snapshot("gelu_tanh");
}

/// Opset 6 has no Expand: Reshape (B padded at `axis` with trailing ones) + Tile, and the legacy
/// `broadcast`/`axis` attributes removed from the now equal-shaped node.
#[test]
fn legacy_axis() {
    snapshot("legacy_axis");
}

/// onnxruntime's contrib operators: MultiHeadAttention's attention_bias and QLinearMul's gate made
/// explicit (targets computed at run time from the symbolic inputs), BiasGelu's bias and
/// SkipLayerNormalization's gamma and beta left implicit as the operators require.
#[test]
fn ort_contrib() {
    snapshot("ort_contrib");
}
