//! Bad input, through the real binary: the "Protobuf bytes", "Model" and "Graph" categories of
//! `docs/hostile-input.md`. Every case runs `check` (text and JSON) and `roundtrip` in a fresh
//! process with a deadline, and asserts the exit status (1 findings, 2 cannot load), that the
//! output names the problem (its code and the offending name) and where it is (graph, node), and
//! that nothing panicked, hung or died of a signal. A model that loads, however broken, must
//! round-trip byte for byte.

use crate::support::binary::{self, BIN, Run};
use crate::support::paths::s as path_str;
use crate::support::paths::{temp_model, tempdir};
use crate::support::proto::{graph, node, opset, vi};
use onnx_lint::file::wire::{write_len_record, write_varint};
use onnx_lint::proto::attribute_proto::AttributeType;
use onnx_lint::proto::*;
use prost::Message;
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long one run of the binary on a small model may take ("promptly": generous for a loaded machine
/// running a debug build, far above what a healthy run needs).
const DEADLINE: Duration = Duration::from_secs(10);

fn run_with(args: &[&str], limit: Duration) -> Run {
    binary::run_with(BIN, args, limit)
}

fn run(args: &[&str]) -> Run {
    run_with(args, DEADLINE)
}

fn model(g: GraphProto) -> ModelProto {
    crate::support::proto::model_of(9, Some("bad_inputs"), g)
}

// ---------------------------------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------------------------------

/// A model file in its own temporary folder.
struct ModelFile {
    dir: tempfile::TempDir,
    path: PathBuf,
    bytes: Vec<u8>,
}

fn write_model(bytes: &[u8]) -> ModelFile {
    let (dir, path) = temp_model("model.onnx", bytes);
    ModelFile {
        dir,
        path,
        bytes: bytes.to_vec(),
    }
}

impl ModelFile {
    fn check(&self) -> Run {
        run(&["check", path_str(&self.path)])
    }

    fn check_json(&self) -> Run {
        run(&["check", path_str(&self.path), "--format", "json"])
    }

    /// Runs `roundtrip` into a new file of the same folder; returns the run and the written bytes.
    fn roundtrip(&self) -> (Run, Option<Vec<u8>>) {
        let out = self.dir.path().join("out.onnx");
        let _ = std::fs::remove_file(&out);
        let r = run(&["roundtrip", path_str(&self.path), "-o", path_str(&out)]);
        let written = std::fs::read(&out).ok();
        (r, written)
    }

    /// The writer is lossless: a model that loads, however broken, is written back byte for byte.
    fn expect_identical_roundtrip(&self) {
        let (r, written) = self.roundtrip();
        r.expect_code(0);
        assert!(
            !r.stderr.contains("error"),
            "roundtrip of a loadable model printed an error:\n{}",
            r.stderr
        );
        let written = written.expect("roundtrip wrote its output");
        assert!(
            written == self.bytes,
            "roundtrip changed the model ({} bytes in, {} out)",
            self.bytes.len(),
            written.len()
        );
    }

    /// A model that cannot be loaded: `check` and `roundtrip` exit 2 naming the file and every word of
    /// `words`; `roundtrip` writes nothing.
    fn expect_unloadable(&self, words: &[&str]) {
        let shown = path_str(&self.path);
        let c = self.check();
        c.expect_code(2);
        let line = c
            .stdout
            .lines()
            .find(|l| l.starts_with("error: cannot load "))
            .unwrap_or_else(|| panic!("check names no load error:\n{}", c.stdout));
        assert!(
            line.contains(shown),
            "the load error names the file: {line}"
        );
        for w in words {
            assert!(line.contains(w), "the load error should say {w:?}: {line}");
        }

        let j = self.check_json();
        j.expect_code(2);
        let doc = j.json();
        let errors = doc["errors"].as_array().expect("JSON has an errors list");
        assert_eq!(errors.len(), 1, "one load error in {doc}");
        assert_eq!(errors[0]["file"], shown);
        let message = errors[0]["message"].as_str().expect("a message");
        for w in words {
            assert!(
                message.contains(w),
                "the JSON load error should say {w:?}: {message}"
            );
        }
        assert_eq!(doc["diagnostics"].as_array().map(Vec::len), Some(0));

        let (r, written) = self.roundtrip();
        r.expect_code(2);
        assert!(
            r.stderr.contains("error: cannot load") && r.stderr.contains(shown),
            "roundtrip names the file it cannot load:\n{}",
            r.stderr
        );
        for w in words {
            assert!(
                r.stderr.contains(w),
                "the roundtrip error should say {w:?}:\n{}",
                r.stderr
            );
        }
        assert!(written.is_none(), "roundtrip wrote an unloadable model");
        assert!(r.stdout.is_empty(), "roundtrip printed: {}", r.stdout);
    }
}

// ---------------------------------------------------------------------------------------------------
// What a check must report
// ---------------------------------------------------------------------------------------------------

/// One finding a check must report: its code and severity, its graph, its node (if any), and words
/// its message must contain.
struct Finding<'a> {
    code: &'a str,
    severity: &'a str,
    graph: &'a str,
    node: Option<&'a str>,
    words: &'a [&'a str],
}

fn error<'a>(
    code: &'a str,
    graph: &'a str,
    node: Option<&'a str>,
    words: &'a [&'a str],
) -> Finding<'a> {
    Finding {
        code,
        severity: "error",
        graph,
        node,
        words,
    }
}

fn warning<'a>(
    code: &'a str,
    graph: &'a str,
    node: Option<&'a str>,
    words: &'a [&'a str],
) -> Finding<'a> {
    Finding {
        code,
        severity: "warning",
        graph,
        node,
        words,
    }
}

/// Checks `bytes` in text and JSON and round-trips them. The errors and warnings reported must be
/// exactly `findings` (information notes are ignored); the exit status must be `exit`.
fn expect_findings(bytes: &[u8], exit: i32, findings: &[Finding<'_>]) -> ModelFile {
    let f = write_model(bytes);
    let shown = path_str(&f.path).to_owned();

    // Text: one block per diagnostic, `severity[CODE] name: message` then `  --> file, graph G, node 'N' (op)`.
    let t = f.check();
    t.expect_code(exit);
    let blocks: Vec<&str> = t
        .stdout
        .split("\n\n")
        .filter(|b| b.starts_with("error[") || b.starts_with("warning["))
        .collect();
    assert_eq!(
        blocks.len(),
        findings.len(),
        "expected {} errors and warnings, got:\n{}",
        findings.len(),
        t.stdout
    );
    for want in findings {
        let head = format!("{}[{}] ", want.severity, want.code);
        let place = match want.node {
            Some(n) => format!("  --> {shown}, graph {}, node '{n}' (", want.graph),
            None => format!("  --> {shown}, graph {}\n", want.graph),
        };
        let found = blocks.iter().any(|b| {
            let b = format!("{b}\n");
            b.starts_with(&head) && b.contains(&place) && want.words.iter().all(|w| b.contains(w))
        });
        assert!(
            found,
            "no {head}finding at `{}` mentioning {:?} in:\n{}",
            place.trim_end(),
            want.words,
            t.stdout
        );
    }
    let errors = findings.iter().filter(|f| f.severity == "error").count();
    let warnings = findings.len() - errors;
    let plural = |n: usize, w: &str| {
        if n == 1 {
            format!("1 {w}")
        } else {
            format!("{n} {w}s")
        }
    };
    let summary = format!(
        "{shown}: {}, {}",
        plural(errors, "error"),
        plural(warnings, "warning")
    );
    assert!(
        t.stdout.contains(&summary),
        "no `{summary}` in:\n{}",
        t.stdout
    );

    // JSON: the same findings, as fields.
    let j = f.check_json();
    j.expect_code(exit);
    let doc = j.json();
    assert_eq!(doc["errors"].as_array().map(Vec::len), Some(0), "{doc}");
    let diags: Vec<&Value> = doc["diagnostics"]
        .as_array()
        .expect("a diagnostics list")
        .iter()
        .filter(|d| d["severity"] != "info")
        .collect();
    assert_eq!(diags.len(), findings.len(), "JSON findings: {doc:#}");
    for want in findings {
        let found = diags.iter().any(|d| {
            d["code"] == want.code
                && d["severity"] == want.severity
                && d["graph"] == want.graph
                && d["file"] == shown.as_str()
                && d["name"].as_str().is_some_and(|n| !n.is_empty())
                && match want.node {
                    Some(n) => d["node"] == n,
                    None => d["node"].is_null(),
                }
                && d["message"]
                    .as_str()
                    .is_some_and(|m| want.words.iter().all(|w| m.contains(w)))
        });
        assert!(
            found,
            "no JSON {} {} in graph {} node {:?} mentioning {:?}: {doc:#}",
            want.severity, want.code, want.graph, want.node, want.words
        );
    }

    f.expect_identical_roundtrip();
    f
}

/// The one diagnostic of code `code` in a JSON report.
fn find_code<'a>(doc: &'a Value, code: &str) -> &'a Value {
    let found: Vec<&Value> = doc["diagnostics"]
        .as_array()
        .expect("a diagnostics list")
        .iter()
        .filter(|d| d["code"] == code)
        .collect();
    assert_eq!(found.len(), 1, "one {code} in {doc:#}");
    found[0]
}

/// A model that loads and has nothing wrong: exit 0, no error or warning, identical roundtrip.
fn expect_clean(bytes: &[u8]) -> ModelFile {
    expect_findings(bytes, 0, &[])
}

// ---------------------------------------------------------------------------------------------------
// Building models
// ---------------------------------------------------------------------------------------------------

fn typed(name: &str, elem: tensor_proto::DataType) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem as i32),
                shape: None,
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A float tensor of one element.
fn scalar(name: &str) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        data_type: Some(tensor_proto::DataType::Float as i32),
        dims: vec![1],
        float_data: vec![1.5],
        ..Default::default()
    }
}

fn attr_float(name: &str, v: f32) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Float as i32),
        f: Some(v),
        ..Default::default()
    }
}

fn attr_graph(name: &str, g: GraphProto) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Graph as i32),
        g: Some(g),
        ..Default::default()
    }
}

/// `If(cond)` with the two branches, producing `out`.
fn if_node(name: &str, then: GraphProto, els: GraphProto, out: &str) -> NodeProto {
    NodeProto {
        attribute: vec![
            attr_graph("then_branch", then),
            attr_graph("else_branch", els),
        ],
        ..node("If", name, &["cond"], &[out])
    }
}

/// The main graph of `If` tests: inputs `x` (float) and `cond` (bool), output `y`.
fn if_graph(if_node: NodeProto) -> GraphProto {
    GraphProto {
        input: vec![vi("x"), typed("cond", tensor_proto::DataType::Bool)],
        ..graph(vec![if_node], &[], &["y"])
    }
}

/// A valid model: `x -> Relu -> r -> Add(r, bias) -> y`, `bias` an initializer.
fn valid_graph() -> GraphProto {
    GraphProto {
        initializer: vec![scalar("bias")],
        ..graph(
            vec![
                node("Relu", "relu", &["x"], &["r"]),
                node("Add", "add", &["r", "bias"], &["y"]),
            ],
            &["x"],
            &["y"],
        )
    }
}

fn valid_model() -> ModelProto {
    model(valid_graph())
}

/// Replaces the one occurrence of `from` in `bytes` by `to` (same length: lengths stay valid).
fn patch(bytes: &mut [u8], from: &[u8], to: &[u8]) {
    assert_eq!(from.len(), to.len());
    let at: Vec<usize> = bytes
        .windows(from.len())
        .enumerate()
        .filter(|(_, w)| *w == from)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(at.len(), 1, "{from:?} occurs once");
    bytes[at[0]..at[0] + to.len()].copy_from_slice(to);
}

/// A deterministic byte generator (xorshift64*), so that "random" cases are reproducible.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next() >> 32) as u8).collect()
    }
}

/// `depth` `If` nodes, each the `then_branch` of the one above, the innermost reading the main graph's
/// input `x` through every scope. Built bottom-up as bytes, without recursion.
pub(super) fn nested_if_model(depth: usize) -> Vec<u8> {
    let mut inner = graph(
        vec![node("Identity", "leaf", &["x"], &["y0"])],
        &[],
        &["y0"],
    )
    .encode_to_vec();
    for k in 1..=depth {
        let out = if k == depth {
            "y".to_owned()
        } else {
            format!("y{k}")
        };
        let e = format!("e{k}");
        let els = graph(
            vec![node("Identity", &format!("else{k}"), &["x"], &[&e])],
            &[],
            &[&e],
        );
        let mut then = AttributeProto {
            name: Some("then_branch".into()),
            r#type: Some(AttributeType::Graph as i32),
            ..Default::default()
        }
        .encode_to_vec();
        write_len_record(&mut then, 6, &inner); // AttributeProto.g
        let mut n = NodeProto {
            attribute: vec![attr_graph("else_branch", els)],
            ..node("If", &format!("if{k}"), &["cond"], &[&out])
        }
        .encode_to_vec();
        write_len_record(&mut n, 5, &then); // NodeProto.attribute
        let mut g = if k == depth {
            GraphProto {
                input: vec![vi("x"), typed("cond", tensor_proto::DataType::Bool)],
                ..graph(vec![], &[], &[&out])
            }
        } else {
            graph(vec![], &[], &[&out])
        }
        .encode_to_vec();
        write_len_record(&mut g, 1, &n); // GraphProto.node
        inner = g;
    }
    let mut m = ModelProto {
        graph: None,
        ..valid_model()
    }
    .encode_to_vec();
    write_len_record(&mut m, 7, &inner); // ModelProto.graph
    m
}

// ---------------------------------------------------------------------------------------------------
// Protobuf bytes
// ---------------------------------------------------------------------------------------------------

#[test]
fn valid_model_is_clean_and_roundtrips() {
    // The baseline every other case is a variation of.
    expect_clean(&valid_model().encode_to_vec());
}

#[test]
fn empty_file_cannot_be_loaded() {
    write_model(&[]).expect_unloadable(&["empty", "0 bytes"]);
}

#[test]
fn random_bytes_are_rejected_or_checked_without_panic() {
    let mut unloadable = 0;
    for seed in 1..=48u64 {
        let mut rng = XorShift(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let len = 1 + (rng.next() % 2048) as usize;
        let f = write_model(&rng.bytes(len));
        let c = f.check();
        match c.code {
            2 => {
                unloadable += 1;
                assert!(
                    c.stdout.starts_with("error: cannot load ")
                        && (c.stdout.contains("does not decode as ModelProto")
                            || c.stdout.contains("the file is truncated")),
                    "seed {seed}: {}",
                    c.stdout
                );
                let (r, written) = f.roundtrip();
                r.expect_code(2);
                assert!(
                    r.stderr.contains("cannot load"),
                    "seed {seed}: {}",
                    r.stderr
                );
                assert!(written.is_none());
            }
            // Bytes that happen to decode are a model without a graph or ir_version: findings.
            1 => {
                assert!(c.stdout.contains("error[M"), "seed {seed}: {}", c.stdout);
                f.expect_identical_roundtrip();
            }
            other => panic!("seed {seed}: exit {other}:\n{}\n{}", c.stdout, c.stderr),
        }
    }
    // Random bytes are almost never a protobuf message.
    assert!(
        unloadable >= 40,
        "only {unloadable} of 48 random files were rejected"
    );
}

#[test]
fn random_bytes_after_a_valid_prefix_are_rejected_or_checked_without_panic() {
    // Random garbage behind a well-formed header reaches deeper into the decoder than pure noise.
    let head = valid_model().encode_to_vec();
    for seed in 1..=24u64 {
        let mut rng = XorShift(seed.wrapping_mul(0xd1b5_4a32_d192_ed03) | 1);
        let mut bytes = head.clone();
        let len = 1 + (rng.next() % 256) as usize;
        bytes.extend(rng.bytes(len));
        let f = write_model(&bytes);
        let c = f.check();
        match c.code {
            2 => assert!(
                c.stdout.contains("cannot load"),
                "seed {seed}: {}",
                c.stdout
            ),
            0 | 1 => f.expect_identical_roundtrip(),
            other => panic!("seed {seed}: exit {other}:\n{}", c.stdout),
        }
    }
}

#[test]
fn every_truncation_of_a_model_is_rejected_or_checked_without_panic() {
    // A model with a subgraph, attributes, an initializer and typed values: cut after every byte.
    let then = graph(vec![node("Identity", "t", &["x"], &["ty"])], &[], &["ty"]);
    let els = graph(vec![node("Neg", "e", &["x"], &["ey"])], &[], &["ey"]);
    let mut g = if_graph(if_node("branch", then, els, "y"));
    g.initializer.push(scalar("w"));
    g.node.insert(
        0,
        NodeProto {
            attribute: vec![attr_float("alpha", 0.1)],
            ..node("LeakyRelu", "lr", &["x"], &["unused"])
        },
    );
    let full = model(g).encode_to_vec();
    expect_clean(&full);
    let mut loaded = 0;
    for cut in 1..full.len() {
        let f = write_model(&full[..cut]);
        let c = f.check();
        match c.code {
            2 => assert!(
                c.stdout.contains("cannot load") && c.stdout.contains("ModelProto"),
                "cut at {cut}: {}",
                c.stdout
            ),
            0 | 1 => {
                loaded += 1;
                f.expect_identical_roundtrip();
            }
            other => panic!("cut at {cut}: exit {other}:\n{}", c.stdout),
        }
    }
    // Only cuts at the end of a top-level record decode; most cuts are inside the graph.
    assert!(
        loaded < full.len() / 4,
        "{loaded} of {} cuts loaded",
        full.len()
    );
}

#[test]
fn truncated_inside_a_varint_cannot_be_loaded() {
    // ir_version (field 1, varint) whose value stops after a continuation byte.
    write_model(&[0x08, 0x80]).expect_unloadable(&["truncated", "ModelProto.ir_version", "varint"]);
    // A tag that stops after a continuation byte.
    write_model(&[0x80]).expect_unloadable(&["truncated", "ModelProto", "varint"]);
    // A valid model followed by a cut varint: the last record is opset_import.version's neighbour.
    let mut bytes = valid_model().encode_to_vec();
    bytes.extend([0x08, 0xff, 0xff]);
    write_model(&bytes).expect_unloadable(&["ModelProto", "varint"]);
}

#[test]
fn truncated_inside_a_length_delimited_field_cannot_be_loaded() {
    // ModelProto.graph (field 7) announces 100 bytes; 5 follow.
    let mut bytes = vec![0x08, 0x09, 0x3a, 100];
    bytes.extend([0x0a, 0x03, b'a', b'b', b'c']);
    write_model(&bytes).expect_unloadable(&[
        "truncated: 9 bytes",
        "ModelProto.graph (field 7), which needs 100 bytes from byte 4",
    ]);
    // A valid model whose graph, its last record, lacks its last byte.
    let mut bytes = ModelProto {
        graph: None,
        ..valid_model()
    }
    .encode_to_vec();
    let mut g = Vec::new();
    write_len_record(&mut g, 7, &valid_graph().encode_to_vec());
    bytes.extend(&g[..g.len() - 1]);
    let len = bytes.len().to_string();
    write_model(&bytes).expect_unloadable(&["truncated", &len, "ModelProto.graph"]);
}

#[test]
fn length_prefix_of_two_to_the_63_cannot_be_loaded() {
    // ModelProto.graph with a length of 2^63: must be refused, not allocated.
    let mut bytes = vec![0x08, 0x09, 0x3a];
    write_varint(&mut bytes, 1 << 63);
    bytes.extend([0u8; 16]);
    write_model(&bytes).expect_unloadable(&["ModelProto", "buffer underflow"]);
    // The same inside the graph: NodeProto.name with a length of 2^63.
    let mut node = vec![0x1a];
    write_varint(&mut node, 1 << 63);
    let mut graph = Vec::new();
    write_len_record(&mut graph, 1, &node);
    let mut bytes = vec![0x08, 0x09];
    write_len_record(&mut bytes, 7, &graph);
    write_model(&bytes).expect_unloadable(&["NodeProto", "buffer underflow"]);
}

#[test]
fn overlong_varint_cannot_be_loaded() {
    // ir_version as an 11-byte varint.
    let mut bytes = vec![0x08];
    bytes.extend([0xff; 10]);
    bytes.push(0x01);
    write_model(&bytes).expect_unloadable(&["ModelProto", "varint"]);
}

#[test]
fn ten_byte_varint_overflowing_64_bits_cannot_be_loaded() {
    // Ten bytes, but the last carries bits above bit 63.
    let mut bytes = vec![0x08];
    bytes.extend([0xff; 9]);
    bytes.push(0x02);
    write_model(&bytes).expect_unloadable(&["ModelProto.ir_version", "varint"]);
}

#[test]
fn malformed_tags_and_groups_cannot_be_loaded() {
    let group = |field: u64, wire_type: u64| {
        let mut v = Vec::new();
        write_varint(&mut v, (field << 3) | wire_type);
        v
    };
    let cases: Vec<(&str, Vec<u8>, &[&str])> = vec![
        ("field number 0", vec![0x00, 0x01], &["tag value: 0"]),
        ("wire type 6", vec![0x0e, 0x01], &["wire type value: 6"]),
        ("wire type 7", vec![0x0f, 0x01], &["wire type value: 7"]),
        (
            "end group on a varint field",
            vec![0x0c],
            &["ModelProto.ir_version", "wire type"],
        ),
        (
            "mismatched end group",
            [group(900, 3), group(901, 4)].concat(),
            &["end group"],
        ),
        (
            "unterminated group",
            group(900, 3),
            &["failed to decode Protobuf message"],
        ),
    ];
    for (what, tail, words) in cases {
        eprintln!("case: {what}");
        let mut bytes = vec![0x08, 0x09];
        bytes.extend(tail);
        write_model(&bytes).expect_unloadable(words);
    }
}

#[test]
fn wire_type_mismatch_on_a_known_field_cannot_be_loaded() {
    // ModelProto.graph (field 7) sent as a varint.
    let mut bytes = vec![0x08, 0x09];
    write_varint(&mut bytes, 7 << 3);
    bytes.push(0x01);
    write_model(&bytes).expect_unloadable(&["ModelProto.graph", "wire type"]);
    // NodeProto.input (field 1, string) sent as a fixed32.
    let mut node = Vec::new();
    write_varint(&mut node, (1 << 3) | 5);
    node.extend([1, 2, 3, 4]);
    let mut graph = Vec::new();
    write_len_record(&mut graph, 1, &node);
    let mut bytes = vec![0x08, 0x09];
    write_len_record(&mut bytes, 7, &graph);
    write_model(&bytes).expect_unloadable(&["NodeProto.input", "wire type"]);
}

#[test]
fn invalid_utf8_in_a_node_name_cannot_be_loaded() {
    let mut g = valid_graph();
    g.node[0].name = Some("NAME".into());
    let mut bytes = model(g).encode_to_vec();
    patch(&mut bytes, b"NAME", &[0xff, 0xfe, 0x80, b'A']);
    write_model(&bytes).expect_unloadable(&["NodeProto.name", "UTF-8"]);
}

#[test]
fn invalid_utf8_in_a_graph_input_name_cannot_be_loaded() {
    let mut g = valid_graph();
    g.input[0].name = Some("INPUTNAME".into());
    g.node[0].input[0] = "INPUTNAME".into();
    let mut m = model(g);
    // Two occurrences would be ambiguous: rename the node's reference after encoding the input.
    m.graph.as_mut().unwrap().node[0].input[0] = "x".into();
    let mut bytes = m.encode_to_vec();
    patch(&mut bytes, b"INPUTNAME", b"INPUT\xc3\x28\xa0\xa1");
    write_model(&bytes).expect_unloadable(&["ValueInfoProto.name", "UTF-8"]);
}

/// A valid model with unknown fields of every wire type, in the model, the graph and a node.
fn model_with_unknown_fields() -> Vec<u8> {
    let unknown = |field: u64| {
        let mut u = Vec::new();
        write_varint(&mut u, field << 3); // varint
        write_varint(&mut u, 123_456_789);
        write_varint(&mut u, ((field + 1) << 3) | 1); // fixed64
        u.extend([1, 2, 3, 4, 5, 6, 7, 8]);
        write_varint(&mut u, ((field + 2) << 3) | 5); // fixed32
        u.extend([9, 10, 11, 12]);
        write_len_record(&mut u, (field + 3) as u32, b"opaque payload \x00\xff");
        write_varint(&mut u, ((field + 4) << 3) | 3); // a group holding a varint
        write_varint(&mut u, 1 << 3);
        write_varint(&mut u, 5);
        write_varint(&mut u, ((field + 4) << 3) | 4);
        u
    };
    let g = valid_graph();
    let mut node_bytes = g.node[0].encode_to_vec();
    node_bytes.extend(unknown(300));
    let mut graph_bytes = GraphProto {
        node: vec![],
        ..g.clone()
    }
    .encode_to_vec();
    write_len_record(&mut graph_bytes, 1, &node_bytes);
    let mut second = Vec::new();
    write_len_record(&mut second, 1, &g.node[1].encode_to_vec());
    graph_bytes.extend(second);
    graph_bytes.extend(unknown(400));
    let mut bytes = unknown(1000);
    bytes.extend(
        ModelProto {
            graph: None,
            ..valid_model()
        }
        .encode_to_vec(),
    );
    write_len_record(&mut bytes, 7, &graph_bytes);
    bytes.extend(unknown(2000));
    bytes
}

#[test]
fn unknown_fields_load_and_roundtrip_byte_identical() {
    let bytes = model_with_unknown_fields();
    // The decoder sees the same model as without them.
    let decoded = ModelProto::decode(bytes.as_slice()).expect("decodes");
    assert_eq!(decoded.graph.as_ref().map(|g| g.node.len()), Some(2));
    // expect_clean checks exit 0, no finding, and a byte-identical roundtrip (unknown fields kept).
    let f = expect_clean(&bytes);
    // And the output is itself a model that loads clean.
    let (_, written) = f.roundtrip();
    expect_clean(&written.expect("written"));
}

#[test]
fn unknown_fields_in_a_broken_model_are_kept_too() {
    // A G001 model with unknown fields: findings, and still a byte-identical roundtrip.
    let mut bytes = vec![];
    write_varint(&mut bytes, 5000 << 3);
    write_varint(&mut bytes, 1);
    let mut g = valid_graph();
    g.node[1].input[1] = "ghost".into();
    bytes.extend(model(g).encode_to_vec());
    expect_findings(
        &bytes,
        1,
        &[error("G001", "main", Some("add"), &["'ghost'", "'add'"])],
    );
}

#[test]
fn nesting_deeper_than_the_decoder_allows_cannot_be_loaded() {
    // 200 nested If subgraphs: 600 message levels.
    let bytes = nested_if_model(200);
    write_model(&bytes).expect_unloadable(&["ModelProto", "recursion limit"]);
}

#[test]
fn very_deep_nesting_is_rejected_promptly_without_stack_overflow() {
    // 20,000 nested If subgraphs (60,000 message levels), built as bytes without recursion: a decoder
    // or builder that recursed without a limit would overflow its stack (and abort with a signal).
    let mut inner = Vec::new();
    for _ in 0..20_000 {
        let mut attr = Vec::new();
        write_len_record(&mut attr, 6, &inner);
        let mut node = Vec::new();
        write_len_record(&mut node, 5, &attr);
        let mut g = Vec::new();
        write_len_record(&mut g, 1, &node);
        inner = g;
        if inner.len() > 1 << 20 {
            break;
        }
    }
    let mut bytes = vec![0x08, 0x09];
    write_len_record(&mut bytes, 7, &inner);
    write_model(&bytes).expect_unloadable(&["recursion limit"]);
}

#[test]
fn deeply_nested_unknown_groups_cannot_be_loaded() {
    // Unknown field 900 as 10,000 nested groups: skipping them must be bounded too.
    let mut bytes = vec![0x08, 0x09];
    for _ in 0..10_000 {
        write_varint(&mut bytes, (900 << 3) | 3);
    }
    for _ in 0..10_000 {
        write_varint(&mut bytes, (900 << 3) | 4);
    }
    write_model(&bytes).expect_unloadable(&["ModelProto", "recursion limit"]);
}

#[test]
fn nesting_within_the_decoder_limit_loads_and_resolves_outer_scope() {
    // 25 nested If subgraphs whose innermost node reads the main graph's input: valid.
    let bytes = nested_if_model(25);
    expect_clean(&bytes);
}

// ---------------------------------------------------------------------------------------------------
// Model
// ---------------------------------------------------------------------------------------------------

#[test]
fn model_without_graph_is_m001() {
    let m = ModelProto {
        graph: None,
        ..valid_model()
    };
    expect_findings(
        &m.encode_to_vec(),
        1,
        &[error("M001", "model", None, &["no graph"])],
    );
}

#[test]
fn ir_version_zero_is_m002() {
    let m = ModelProto {
        ir_version: Some(0),
        ..valid_model()
    };
    expect_findings(
        &m.encode_to_vec(),
        1,
        &[error("M002", "model", None, &["ir_version 0"])],
    );
}

#[test]
fn negative_ir_version_is_m002() {
    let m = ModelProto {
        ir_version: Some(-3),
        ..valid_model()
    };
    expect_findings(
        &m.encode_to_vec(),
        1,
        &[error("M002", "model", None, &["ir_version -3"])],
    );
}

#[test]
fn missing_ir_version_is_m002() {
    let m = ModelProto {
        ir_version: None,
        ..valid_model()
    };
    expect_findings(
        &m.encode_to_vec(),
        1,
        &[error("M002", "model", None, &["ir_version", "not set"])],
    );
}

#[test]
fn ir_version_newer_than_supported_is_an_m002_warning_only() {
    for v in [15, 1 << 40] {
        let m = ModelProto {
            ir_version: Some(v),
            ..valid_model()
        };
        let words = format!("ir_version {v} is newer");
        expect_findings(
            &m.encode_to_vec(),
            0,
            &[warning("M002", "model", None, &[words.as_str()])],
        );
    }
}

#[test]
fn no_opset_import_at_ir_3_or_later_is_m003() {
    // No nodes, so no node domain is missing: only the header is at fault.
    let g = graph(vec![], &["x"], &["x"]);
    for ir in [3, 9] {
        let m = ModelProto {
            ir_version: Some(ir),
            opset_import: vec![],
            ..model(g.clone())
        };
        expect_findings(
            &m.encode_to_vec(),
            1,
            &[error("M003", "model", None, &["opset_import", "empty"])],
        );
    }
    // IR version 2 had no opset_import: not a finding.
    let m = ModelProto {
        ir_version: Some(2),
        opset_import: vec![],
        ..model(g)
    };
    expect_clean(&m.encode_to_vec());
}

#[test]
fn opset_version_two_to_the_40_is_m004() {
    let m = ModelProto {
        opset_import: vec![opset("", 1 << 40)],
        ..valid_model()
    };
    expect_findings(
        &m.encode_to_vec(),
        1,
        &[error(
            "M004",
            "model",
            None,
            &["'ai.onnx'", "1099511627776", "not a valid version"],
        )],
    );
}

#[test]
fn opset_version_minus_one_is_m004() {
    let m = ModelProto {
        opset_import: vec![opset("", 17), opset("com.example", -1)],
        ..valid_model()
    };
    expect_findings(
        &m.encode_to_vec(),
        1,
        &[error(
            "M004",
            "model",
            None,
            &["'com.example'", "-1", "not a valid version"],
        )],
    );
}

#[test]
fn opset_version_zero_or_missing_is_m004() {
    for version in [Some(0), None] {
        let m = ModelProto {
            opset_import: vec![
                opset("", 17),
                OperatorSetIdProto {
                    domain: Some("com.example".into()),
                    version,
                },
            ],
            ..valid_model()
        };
        expect_findings(
            &m.encode_to_vec(),
            1,
            &[error(
                "M004",
                "model",
                None,
                &["'com.example'", "not a valid version"],
            )],
        );
    }
}

#[test]
fn same_domain_imported_twice_with_different_versions_is_m005() {
    let m = ModelProto {
        opset_import: vec![opset("", 13), opset("", 17)],
        ..valid_model()
    };
    expect_findings(
        &m.encode_to_vec(),
        1,
        &[error(
            "M005",
            "model",
            None,
            &["'ai.onnx'", "imported twice", "13", "17"],
        )],
    );
    // "ai.onnx" and "" are one domain.
    let m = ModelProto {
        opset_import: vec![opset("", 17), opset("ai.onnx", 18)],
        ..valid_model()
    };
    expect_findings(
        &m.encode_to_vec(),
        1,
        &[error(
            "M005",
            "model",
            None,
            &["imported twice", "17", "18"],
        )],
    );
}

#[test]
fn same_domain_imported_twice_at_one_version_is_an_m005_warning() {
    let m = ModelProto {
        opset_import: vec![opset("", 17), opset("", 17)],
        ..valid_model()
    };
    expect_findings(
        &m.encode_to_vec(),
        0,
        &[warning(
            "M005",
            "model",
            None,
            &["'ai.onnx'", "imported twice"],
        )],
    );
}

#[test]
fn node_domain_not_imported_is_m006() {
    let mut g = valid_graph();
    g.node[0].domain = Some("com.example".into());
    g.node[0].op_type = Some("Custom".into());
    expect_findings(
        &model(g).encode_to_vec(),
        1,
        &[error(
            "M006",
            "main",
            Some("relu"),
            &["'relu'", "'com.example'", "opset_import"],
        )],
    );
}

#[test]
fn node_domain_not_imported_in_a_subgraph_is_m006_with_its_path() {
    let mut inner = node("Custom", "deep", &["x"], &["t"]);
    inner.domain = Some("com.example".into());
    let then = graph(vec![inner], &[], &["t"]);
    let els = graph(vec![node("Identity", "e", &["x"], &["f"])], &[], &["f"]);
    let m = model(if_graph(if_node("branch", then, els, "y")));
    expect_findings(
        &m.encode_to_vec(),
        1,
        &[error(
            "M006",
            "main/branch/then_branch",
            Some("deep"),
            &["'com.example'"],
        )],
    );
}

// ---------------------------------------------------------------------------------------------------
// Graph
// ---------------------------------------------------------------------------------------------------

#[test]
fn undefined_node_input_is_g001_naming_input_and_node() {
    let mut g = valid_graph();
    g.node[1].input[1] = "ghost".into();
    expect_findings(
        &model(g).encode_to_vec(),
        1,
        &[error(
            "G001",
            "main",
            Some("add"),
            &["input #1 'ghost'", "node 'add' (Add)", "not defined"],
        )],
    );
}

#[test]
fn undefined_input_of_an_unnamed_node_is_g001_naming_its_position() {
    let mut g = valid_graph();
    g.node[1].name = None;
    g.node[1].input[0] = "ghost".into();
    // `r` is no longer read: not a finding (dead values are allowed).
    expect_findings(
        &model(g).encode_to_vec(),
        1,
        &[error("G001", "main", Some("#1"), &["'ghost'", "node '#1'"])],
    );
}

#[test]
fn nodes_out_of_topological_order_are_valid() {
    let mut g = valid_graph();
    g.node.reverse();
    expect_clean(&model(g).encode_to_vec());
    // A longer chain listed backwards.
    let nodes: Vec<NodeProto> = (1..=50)
        .rev()
        .map(|i| {
            node(
                "Relu",
                &format!("n{i}"),
                &[&format!("v{}", i - 1)],
                &[&format!("v{i}")],
            )
        })
        .collect();
    expect_clean(&model(graph(nodes, &["v0"], &["v50"])).encode_to_vec());
}

#[test]
fn cycle_is_g002_naming_the_nodes() {
    let g = graph(
        vec![
            node("Add", "a", &["x", "c"], &["av"]),
            node("Relu", "b", &["av"], &["bv"]),
            node("Neg", "c", &["bv"], &["c"]),
            node("Identity", "out", &["bv"], &["y"]),
        ],
        &["x"],
        &["y"],
    );
    expect_findings(
        &model(g).encode_to_vec(),
        1,
        &[error(
            "G002",
            "main",
            None,
            &["3 nodes form a cycle", "'a'", "'b'", "'c'"],
        )],
    );
}

#[test]
fn node_reading_its_own_output_is_g002() {
    let g = graph(
        vec![node("Add", "selfish", &["x", "y"], &["y"])],
        &["x"],
        &["y"],
    );
    expect_findings(
        &model(g).encode_to_vec(),
        1,
        &[error("G002", "main", None, &["cycle", "'selfish'"])],
    );
}

#[test]
fn large_cycle_lists_some_members_and_counts_the_rest() {
    // 100 nodes in one ring: the message lists a few and says how many more, not all 100.
    let nodes: Vec<NodeProto> = (0..100)
        .map(|i| {
            node(
                "Relu",
                &format!("ring{i}"),
                &[&format!("v{}", (i + 99) % 100)],
                &[&format!("v{i}")],
            )
        })
        .collect();
    let f = expect_findings(
        &model(graph(nodes, &[], &["v0"])).encode_to_vec(),
        1,
        &[error(
            "G002",
            "main",
            None,
            &["100 nodes form a cycle", "'ring0'", "more"],
        )],
    );
    let out = f.check().stdout;
    assert!(!out.contains("'ring99'"), "every member listed:\n{out}");
}

#[test]
fn two_nodes_producing_one_name_is_g003() {
    let mut g = valid_graph();
    g.node.push(node("Neg", "again", &["x"], &["r"]));
    expect_findings(
        &model(g).encode_to_vec(),
        1,
        &[error(
            "G003",
            "main",
            Some("again"),
            &[
                "'r'",
                "defined twice",
                "node 'relu' (Relu)",
                "node 'again' (Neg)",
            ],
        )],
    );
}

#[test]
fn node_output_named_like_a_graph_input_is_g003() {
    let mut g = valid_graph();
    g.node[0].output[0] = "x".into();
    g.node[1].input[0] = "x".into();
    expect_findings(
        &model(g).encode_to_vec(),
        1,
        &[error(
            "G003",
            "main",
            Some("relu"),
            &["'x'", "defined twice", "a graph input", "node 'relu'"],
        )],
    );
}

#[test]
fn node_output_named_like_an_initializer_is_g003() {
    let mut g = valid_graph();
    g.node[0].output[0] = "bias".into();
    g.node[1].input[0] = "bias".into();
    expect_findings(
        &model(g).encode_to_vec(),
        1,
        &[error(
            "G003",
            "main",
            Some("relu"),
            &["'bias'", "defined twice", "an initializer", "node 'relu'"],
        )],
    );
}

#[test]
fn graph_input_listed_twice_is_g003() {
    let mut g = valid_graph();
    g.input.push(vi("x"));
    expect_findings(
        &model(g).encode_to_vec(),
        1,
        &[error(
            "G003",
            "main",
            None,
            &["'x'", "defined twice", "graph input #1"],
        )],
    );
}

#[test]
fn initializer_named_like_a_graph_input_is_its_default_not_a_finding() {
    // IR >= 4: an initializer may give a graph input its default value.
    let mut g = valid_graph();
    g.input.push(vi("bias"));
    expect_clean(&model(g).encode_to_vec());
}

#[test]
fn duplicate_initializer_names_are_g003() {
    let mut g = valid_graph();
    g.initializer.push(scalar("bias"));
    expect_findings(
        &model(g).encode_to_vec(),
        1,
        &[error("G003", "main", None, &["'bias'", "two initializers"])],
    );
}

#[test]
fn empty_initializer_name_is_g008() {
    let mut g = valid_graph();
    g.initializer.push(scalar(""));
    expect_findings(
        &model(g).encode_to_vec(),
        1,
        &[error(
            "G008",
            "main",
            None,
            &["initializer #1", "empty name"],
        )],
    );
}

#[test]
fn empty_graph_input_and_output_names_are_g008() {
    let mut g = valid_graph();
    g.input.push(vi(""));
    g.output.push(vi(""));
    expect_findings(
        &model(g).encode_to_vec(),
        1,
        &[
            error("G008", "main", None, &["graph input #1", "empty name"]),
            error("G008", "main", None, &["graph output #1", "empty name"]),
        ],
    );
}

#[test]
fn graph_output_nothing_defines_is_g004() {
    let mut g = valid_graph();
    g.output.push(vi("nowhere"));
    expect_findings(
        &model(g).encode_to_vec(),
        1,
        &[error(
            "G004",
            "main",
            None,
            &["graph output #1 'nowhere'", "not defined"],
        )],
    );
}

#[test]
fn node_with_empty_op_type_is_g005() {
    let mut g = valid_graph();
    g.node[0].op_type = Some(String::new());
    expect_findings(
        &model(g.clone()).encode_to_vec(),
        1,
        &[error(
            "G005",
            "main",
            Some("relu"),
            &["node 'relu'", "no op_type"],
        )],
    );
    // Not set at all is the same.
    g.node[0].op_type = None;
    expect_findings(
        &model(g).encode_to_vec(),
        1,
        &[error(
            "G005",
            "main",
            Some("relu"),
            &["node 'relu'", "no op_type"],
        )],
    );
}

#[test]
fn duplicate_attribute_names_are_g006() {
    let mut g = valid_graph();
    g.node[0] = NodeProto {
        attribute: vec![attr_float("alpha", 0.1), attr_float("alpha", 0.2)],
        ..node("LeakyRelu", "leaky", &["x"], &["r"])
    };
    expect_findings(
        &model(g).encode_to_vec(),
        1,
        &[error(
            "G006",
            "main",
            Some("leaky"),
            &["node 'leaky'", "two attributes named 'alpha'"],
        )],
    );
}

#[test]
fn attribute_whose_value_field_disagrees_with_its_type_is_g007() {
    let mut g = valid_graph();
    g.node[0] = NodeProto {
        attribute: vec![AttributeProto {
            r#type: Some(AttributeType::Int as i32),
            ..attr_float("alpha", 0.1)
        }],
        ..node("LeakyRelu", "leaky", &["x"], &["r"])
    };
    expect_findings(
        &model(g).encode_to_vec(),
        1,
        &[error(
            "G007",
            "main",
            Some("leaky"),
            &["attribute 'alpha'", "node 'leaky'", "INT", "FLOAT"],
        )],
    );
}

#[test]
fn attribute_with_a_type_and_no_value_or_an_unknown_type_is_g007() {
    let cases: [(AttributeProto, &[&str]); 3] = [
        (
            AttributeProto {
                name: Some("alpha".into()),
                r#type: Some(AttributeType::Float as i32),
                ..Default::default()
            },
            &["attribute 'alpha'", "FLOAT", "no value"],
        ),
        (
            AttributeProto {
                r#type: Some(99),
                ..attr_float("alpha", 0.1)
            },
            &["attribute 'alpha'", "99", "not an attribute type"],
        ),
        (
            AttributeProto {
                r#type: Some(AttributeType::Undefined as i32),
                ..attr_float("alpha", 0.1)
            },
            &["attribute 'alpha'", "UNDEFINED"],
        ),
    ];
    for (attr, words) in cases {
        let mut g = valid_graph();
        g.node[0] = NodeProto {
            attribute: vec![attr],
            ..node("LeakyRelu", "leaky", &["x"], &["r"])
        };
        expect_findings(
            &model(g).encode_to_vec(),
            1,
            &[error("G007", "main", Some("leaky"), words)],
        );
    }
}

#[test]
fn graph_attribute_declared_as_another_type_is_g007() {
    // then_branch holds a graph but says FLOAT: the graph is still built (and checked), and reported.
    let then = graph(vec![node("Identity", "t", &["x"], &["ty"])], &[], &["ty"]);
    let els = graph(vec![node("Identity", "e", &["x"], &["ey"])], &[], &["ey"]);
    let mut n = if_node("branch", then, els, "y");
    n.attribute[0].r#type = Some(AttributeType::Float as i32);
    expect_findings(
        &model(if_graph(n)).encode_to_vec(),
        1,
        &[error(
            "G007",
            "main",
            Some("branch"),
            &["attribute 'then_branch'", "FLOAT", "GRAPH"],
        )],
    );
}

#[test]
fn undefined_input_inside_a_subgraph_is_g001_with_the_subgraph_path() {
    let then = graph(
        vec![node("Relu", "inner", &["phantom"], &["t"])],
        &[],
        &["t"],
    );
    let els = graph(vec![node("Identity", "e", &["x"], &["f"])], &[], &["f"]);
    let m = model(if_graph(if_node("branch", then, els, "y")));
    expect_findings(
        &m.encode_to_vec(),
        1,
        &[error(
            "G001",
            "main/branch/then_branch",
            Some("inner"),
            &["'phantom'", "node 'inner' (Relu)"],
        )],
    );
}

#[test]
fn undefined_output_of_a_subgraph_is_g004_with_the_subgraph_path() {
    let then = graph(vec![node("Relu", "inner", &["x"], &["t"])], &[], &["t"]);
    let els = graph(vec![], &[], &["missing"]);
    let m = model(if_graph(if_node("branch", then, els, "y")));
    expect_findings(
        &m.encode_to_vec(),
        1,
        &[error(
            "G004",
            "main/branch/else_branch",
            None,
            &["'missing'"],
        )],
    );
}

#[test]
fn outer_scope_reference_from_a_subgraph_is_valid() {
    // Both branches read the main graph's `x` and an initializer; the else branch's output is `x` itself.
    let mut g0 = if_graph(if_node(
        "branch",
        graph(
            vec![node("Add", "t", &["x", "bias"], &["ty"])],
            &[],
            &["ty"],
        ),
        graph(vec![], &[], &["x"]),
        "y",
    ));
    g0.initializer.push(scalar("bias"));
    expect_clean(&model(g0).encode_to_vec());
}

#[test]
fn subgraph_cannot_see_a_sibling_branch_or_a_later_scope_value() {
    // The else branch reads `ty`, defined only inside the then branch: undefined there.
    let then = graph(vec![node("Relu", "t", &["x"], &["ty"])], &[], &["ty"]);
    let els = graph(vec![node("Neg", "e", &["ty"], &["ey"])], &[], &["ey"]);
    let m = model(if_graph(if_node("branch", then, els, "y")));
    expect_findings(
        &m.encode_to_vec(),
        1,
        &[error(
            "G001",
            "main/branch/else_branch",
            Some("e"),
            &["'ty'"],
        )],
    );
}

#[test]
fn several_graph_faults_are_all_reported_at_once() {
    let mut g = valid_graph();
    g.node[1].input[1] = "ghost".into();
    g.node.push(node("", "blank", &["x"], &["r"]));
    g.output.push(vi("nowhere"));
    expect_findings(
        &model(g).encode_to_vec(),
        1,
        &[
            error("G001", "main", Some("add"), &["'ghost'"]),
            error("G003", "main", Some("blank"), &["'r'"]),
            error("G004", "main", None, &["'nowhere'"]),
            error("G005", "main", Some("blank"), &["no op_type"]),
        ],
    );
}

// ---------------------------------------------------------------------------------------------------
// Output escaping, several files, scale
// ---------------------------------------------------------------------------------------------------

#[test]
fn names_with_ansi_escapes_and_newlines_are_escaped_in_text_output() {
    let evil_node = "evil\x1b[31m\nnode\u{202e}";
    let evil_value = "ghost\x1b]0;title\x07\r\nerror[G000] fake";
    let mut g = valid_graph();
    g.node[1].name = Some(evil_node.into());
    g.node[1].input[1] = evil_value.into();
    let f = write_model(&model(g).encode_to_vec());
    let t = f.check();
    t.expect_code(1);
    for raw in [0x1b, 0x07, b'\r'] {
        assert!(
            !t.stdout_bytes.contains(&raw),
            "raw control byte {raw:#x} in the text output:\n{:?}",
            t.stdout
        );
    }
    assert!(
        !t.stdout.contains('\u{202e}'),
        "raw bidi override: {:?}",
        t.stdout
    );
    assert!(
        t.stdout.contains("evil\\u{1b}[31m\\nnode\\u{202e}"),
        "escaped node name: {}",
        t.stdout
    );
    assert!(
        t.stdout
            .contains("ghost\\u{1b}]0;title\\u{7}\\r\\nerror[G000] fake"),
        "escaped value name: {}",
        t.stdout
    );
    // The injected newline did not start a line of its own.
    assert!(
        !t.stdout
            .lines()
            .any(|l| l.starts_with("error[G000]") || l.starts_with("node")),
        "a name broke the output into lines:\n{}",
        t.stdout
    );
    // JSON keeps the name exactly (escaped by JSON itself, never raw on the terminal).
    let j = f.check_json();
    j.expect_code(1);
    assert!(!j.stdout_bytes.contains(&0x1b), "raw ESC in JSON output");
    let doc = j.json();
    let d = find_code(&doc, "G001");
    assert_eq!(d["node"], evil_node);
    assert!(d["message"].as_str().unwrap().contains(evil_value));
    f.expect_identical_roundtrip();
}

#[test]
fn model_file_name_with_control_characters_is_escaped() {
    let dir = tempdir();
    let path = dir.path().join("bad\x1b[2Jname\n.onnx");
    std::fs::write(&path, []).expect("write");
    let r = run(&["check", path_str(&path)]);
    r.expect_code(2);
    assert!(!r.stdout_bytes.contains(&0x1b), "raw ESC: {:?}", r.stdout);
    assert!(
        r.stdout.contains("bad\\u{1b}[2Jname\\n.onnx"),
        "{}",
        r.stdout
    );
}

#[test]
fn one_unloadable_model_among_several_exits_2_and_the_others_are_still_checked() {
    let good = write_model(&valid_model().encode_to_vec());
    let mut g = valid_graph();
    g.node[1].input[1] = "ghost".into();
    let broken = write_model(&model(g).encode_to_vec());
    let garbage = write_model(&[0x3a, 0xff]);
    let r = run(&[
        "check",
        path_str(&good.path),
        path_str(&garbage.path),
        path_str(&broken.path),
    ]);
    r.expect_code(2);
    assert!(
        r.stdout
            .contains(&format!("error: cannot load {}", path_str(&garbage.path)))
    );
    assert!(r.stdout.contains("error[G001]"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains(&format!("{}: 0 errors", path_str(&good.path)))
    );
    assert!(
        r.stdout
            .contains("3 models checked: 1 error, 0 warnings, 1 not loadable"),
        "{}",
        r.stdout
    );

    let j = run(&[
        "check",
        path_str(&good.path),
        path_str(&garbage.path),
        path_str(&broken.path),
        "--format",
        "json",
    ]);
    j.expect_code(2);
    let doc = j.json();
    assert_eq!(doc["errors"][0]["file"], path_str(&garbage.path));
    assert_eq!(find_code(&doc, "G001")["file"], path_str(&broken.path));
    let files: Vec<&str> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] != "info")
        .filter_map(|d| d["file"].as_str())
        .collect();
    assert_eq!(files, [path_str(&broken.path)], "{doc:#}");
}

#[test]
fn missing_model_file_cannot_be_loaded() {
    let dir = tempdir();
    let path = dir.path().join("absent.onnx");
    let r = run(&["check", path_str(&path)]);
    r.expect_code(2);
    assert!(
        r.stdout.contains("cannot load") && r.stdout.contains("absent.onnx"),
        "{}",
        r.stdout
    );
    let out = dir.path().join("out.onnx");
    let r = run(&["roundtrip", path_str(&path), "-o", path_str(&out)]);
    r.expect_code(2);
    assert!(r.stderr.contains("cannot open"), "{}", r.stderr);
    assert!(!out.exists());
}

#[test]
fn two_hundred_thousand_empty_nodes_finish_promptly_with_g005() {
    // Default NodeProtos: no name, no op_type, no inputs or outputs (2 bytes each on the wire).
    const N: usize = 200_000;
    let g = GraphProto {
        node: vec![NodeProto::default(); N],
        ..graph(vec![], &["x"], &["x"])
    };
    let f = write_model(&model(g).encode_to_vec());
    let limit = Duration::from_secs(20);
    let start = Instant::now();
    let r = run_with(&["check", path_str(&f.path)], limit);
    r.expect_code(1);
    let g005 = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("error[G005] "))
        .count();
    // One G005 per node up to the cap, then one finding counting the rest.
    let cap = onnx_lint::diagnostics::MAX_PER_CODE_AND_GRAPH;
    assert_eq!(
        g005,
        cap + 1,
        "the first {cap} G005 and a count of the rest"
    );
    let errors = r.stdout.lines().filter(|l| l.starts_with("error[")).count();
    assert_eq!(errors, cap + 1, "nothing but G005");
    assert!(
        r.stdout.contains("node '#999' ()"),
        "nodes are named by position"
    );
    assert!(
        r.stdout
            .contains(&format!("and {} more G005 findings in graph main", N - cap))
    );
    assert!(r.stdout.contains(&format!(
        "{}: {} errors, 0 warnings",
        path_str(&f.path),
        cap + 1
    )));
    let out = f.dir.path().join("out.onnx");
    let rt = run_with(
        &["roundtrip", path_str(&f.path), "-o", path_str(&out)],
        limit,
    );
    rt.expect_code(0);
    assert!(
        std::fs::read(&out).expect("written") == f.bytes,
        "roundtrip changed the model"
    );
    eprintln!(
        "200,000 empty nodes: check and roundtrip in {:?}",
        start.elapsed()
    );
}
