//! Hostile input whose cost is in its structure, not its size (issue 36: "functions", "globs",
//! "expand"), through the real binary with a hang guard: each run must end within [`DEADLINE`] with
//! the expected exit status and message, without a panic or a signal.
//!
//! - model-local functions calling each other in a fan-out, 2 calls x 40 levels and 10 x 12 (2^40 and
//!   10^12 call paths; each function is inferred once per call signature);
//! - a chain of 100,000 functions (no stack overflow; calls past the depth limit are I003);
//! - a 10,000-node function called 10,000 times with one signature (inferred once), and with a
//!   signature of its own per call (the work budget stops it: I003);
//! - functions calling each other in a cycle, with a fan-out (G009, and an end);
//! - `expand` of a Sum with 100,000 broadcast inputs;
//! - glob bombs (nested braces, 200,000 alternatives) in `per-file-ignores` and in a suppression's
//!   node pattern, in a discovered configuration and one given with `--config` (the command line takes
//!   no patterns): exit 2 naming the key.

use crate::support::binary::{Run, run_with};
use crate::support::paths::s as path_str;
use crate::support::paths::{temp_model, tempdir};
use crate::support::proto::{node, opset, strings};
use onnx_lint::proto::attribute_proto::AttributeType;
use onnx_lint::proto::tensor_shape_proto::{Dimension, dimension};
use onnx_lint::proto::*;
use prost::Message;
use std::path::Path;
use std::time::Duration;

use crate::support::binary::BIN;

/// The hang guard: generous for a loaded machine; a healthy run of each case takes well under it
/// (the slowest, 6 s alone on 2 cores, took over 20 s with eight tests of the one test binary at once).
const DEADLINE: Duration = Duration::from_secs(60);

fn run(args: &[&str]) -> Run {
    run_with(BIN, args, DEADLINE)
}

// ---------------------------------------------------------------------------------------------------
// Building models
// ---------------------------------------------------------------------------------------------------

/// A call of the local function `f`.
fn call(f: &str, name: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        domain: Some("local".into()),
        ..node(f, name, inputs, outputs)
    }
}

fn float(name: &str, dims: &[i64]) -> ValueInfoProto {
    let dim = |d: i64| Dimension {
        value: Some(dimension::Value::DimValue(d)),
        ..Default::default()
    };
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(tensor_proto::DataType::Float as i32),
                shape: Some(TensorShapeProto {
                    dim: dims.iter().map(|&d| dim(d)).collect(),
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn function(name: &str, nodes: Vec<NodeProto>) -> FunctionProto {
    FunctionProto {
        name: Some(name.into()),
        domain: Some("local".into()),
        input: strings(&["X"]),
        output: strings(&["Y"]),
        opset_import: vec![opset("", 17), opset("local", 1)],
        node: nodes,
        ..Default::default()
    }
}

/// `n` nodes, in a chain from `from` to `to`, each made by `make(i, input, output)`.
fn chain(
    n: usize,
    from: &str,
    to: &str,
    make: impl Fn(usize, &str, &str) -> NodeProto,
) -> Vec<NodeProto> {
    (0..n)
        .map(|i| {
            let input = if i == 0 {
                from.to_owned()
            } else {
                format!("t{i}")
            };
            let output = if i + 1 == n {
                to.to_owned()
            } else {
                format!("t{}", i + 1)
            };
            make(i, &input, &output)
        })
        .collect()
}

/// A model whose main graph is `nodes` from `x` (float[2, 3]) to `y`, with local `functions`.
fn model(
    nodes: Vec<NodeProto>,
    functions: Vec<FunctionProto>,
    inputs: Vec<ValueInfoProto>,
) -> Vec<u8> {
    ModelProto {
        ir_version: Some(9),
        opset_import: vec![opset("", 17), opset("local", 1)],
        producer_name: Some("hostile_complexity".into()),
        graph: Some(GraphProto {
            name: Some("main".into()),
            node: nodes,
            input: inputs,
            output: vec![ValueInfoProto {
                name: Some("y".into()),
                ..Default::default()
            }],
            ..Default::default()
        }),
        functions,
        ..Default::default()
    }
    .encode_to_vec()
}

/// Functions F0 ... F{depth-1}: each calls the next `width` times in a chain, the last is a Relu.
/// The main graph calls F0 once.
fn fan_out(width: usize, depth: usize) -> Vec<u8> {
    let functions = (0..depth)
        .map(|i| {
            let body = if i + 1 == depth {
                vec![node("Relu", "relu", &["X"], &["Y"])]
            } else {
                let next = format!("F{}", i + 1);
                chain(width, "X", "Y", |k, a, b| {
                    call(&next, &format!("c{k}"), &[a], &[b])
                })
            };
            function(&format!("F{i}"), body)
        })
        .collect();
    model(
        vec![call("F0", "call", &["x"], &["y"])],
        functions,
        vec![float("x", &[2, 3])],
    )
}

/// A function of `size` nodes called `calls` times in a chain. With `growing`, its first node is a
/// Concat with a constant of one element, so that each call's input is one longer than the last one's:
/// every call has a signature of its own.
fn big_function(size: usize, calls: usize, growing: bool) -> Vec<u8> {
    let mut body = Vec::new();
    let mut from = "X";
    if growing {
        let mut one = node("Constant", "one", &[], &["one"]);
        one.attribute.push(AttributeProto {
            name: Some("value".into()),
            r#type: Some(AttributeType::Tensor as i32),
            t: Some(TensorProto {
                dims: vec![1],
                data_type: Some(tensor_proto::DataType::Float as i32),
                float_data: vec![1.0],
                ..Default::default()
            }),
            ..Default::default()
        });
        let mut cat = node("Concat", "cat", &["X", "one"], &["grown"]);
        cat.attribute.push(AttributeProto {
            name: Some("axis".into()),
            r#type: Some(AttributeType::Int as i32),
            i: Some(0),
            ..Default::default()
        });
        body.push(one);
        body.push(cat);
        from = "grown";
    }
    let relus = size - body.len();
    body.extend(chain(relus, from, "Y", |k, a, b| {
        node("Relu", &format!("r{k}"), &[a], &[b])
    }));
    model(
        chain(calls, "x", "y", |k, a, b| {
            call("F", &format!("call{k}"), &[a], &[b])
        }),
        vec![function("F", body)],
        vec![float("x", &[3])],
    )
}

fn check(bytes: &[u8]) -> Run {
    let (_dir, path) = temp_model("model.onnx", bytes);
    run(&["check", path_str(&path)])
}

// ---------------------------------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------------------------------

#[test]
fn fan_out_of_2_calls_over_40_levels_ends_at_the_depth_limit() {
    // 40 levels are deeper than inference follows calls (32): said once, at the call.
    check(&fan_out(2, 40))
        .expect_code(0)
        .expect_words(&["I003", "deeper than 32", "node 'call'"]);
}

#[test]
fn fan_out_of_10_calls_over_12_levels_is_inferred_through() {
    let r = check(&fan_out(10, 12));
    r.expect_code(0);
    assert!(!r.stdout.contains("I003"), "{}", r.stdout);
    let (_dir, path) = temp_model("model.onnx", &fan_out(10, 12));
    // Inferred through: the output's shape is the input's, through 12 levels of calls.
    run(&["shapes", path_str(&path)])
        .expect_code(0)
        .expect_words(&["y: FLOAT[2, 3]"]);
}

#[test]
fn chain_of_100000_functions_ends_without_overflowing_the_stack() {
    check(&fan_out(1, 100_000))
        .expect_code(0)
        .expect_words(&["I003", "deeper than 32"]);
}

#[test]
fn function_of_10000_nodes_called_10000_times_is_inferred_once() {
    let r = check(&big_function(10_000, 10_000, false));
    r.expect_code(0);
    assert!(!r.stdout.contains("I003"), "{}", r.stdout);
}

#[test]
fn function_of_10000_nodes_with_a_signature_per_call_stops_at_the_work_budget() {
    check(&big_function(10_000, 10_000, true))
        .expect_code(0)
        .expect_words(&["I003", "stopped following function calls"]);
}

#[test]
fn functions_calling_each_other_in_a_fan_out_cycle_are_g009_and_end() {
    let f = |name: &str, next: &str| {
        function(
            name,
            chain(4, "X", "Y", |k, a, b| {
                call(next, &format!("c{k}"), &[a], &[b])
            }),
        )
    };
    let bytes = model(
        vec![call("F", "call", &["x"], &["y"])],
        vec![f("F", "G"), f("G", "F")],
        vec![float("x", &[2, 3])],
    );
    check(&bytes)
        .expect_code(1)
        .expect_words(&["G009", "local.F -> local.G -> local.F"]);
}

#[test]
fn error_in_a_function_called_many_times_is_reported_at_every_call() {
    // F adds [2, 3] to [4]: E1 inside the body, found once per signature and reported at each call.
    let mut bias = node("Constant", "bias", &[], &["B"]);
    bias.attribute.push(AttributeProto {
        name: Some("value".into()),
        r#type: Some(AttributeType::Tensor as i32),
        t: Some(TensorProto {
            dims: vec![4],
            data_type: Some(tensor_proto::DataType::Float as i32),
            float_data: vec![0.0; 4],
            ..Default::default()
        }),
        ..Default::default()
    });
    let body = vec![bias, node("Add", "add", &["X", "B"], &["Y"])];
    let calls = vec![
        call("F", "first", &["x"], &["t"]),
        call("F", "second", &["x"], &["y"]),
    ];
    let (_dir, path) = temp_model(
        "model.onnx",
        &model(calls, vec![function("F", body)], vec![float("x", &[2, 3])]),
    );
    let r = run(&["check", path_str(&path), "--format", "json"]);
    r.expect_code(1);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
    let e1: Vec<&serde_json::Value> = doc["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["code"] == "E1")
        .collect();
    let nodes: Vec<&str> = e1.iter().filter_map(|d| d["node"].as_str()).collect();
    assert_eq!(nodes, ["first", "second"], "{}", r.stdout);
    for d in e1 {
        assert_eq!(d["inner_node"], "add");
        assert!(
            d["message"]
                .as_str()
                .unwrap()
                .starts_with("in function local.F: ")
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// expand
// ---------------------------------------------------------------------------------------------------

#[test]
fn expand_of_a_sum_of_100000_broadcast_inputs_ends() {
    // `a` is [4, 4]; every other input is [4], broadcast to it: 99,999 Expands, one node's inputs.
    let n = 100_000;
    let names: Vec<String> = (1..n).map(|i| format!("b{i}")).collect();
    let mut inputs = vec![float("a", &[4, 4])];
    inputs.extend(names.iter().map(|b| float(b, &[4])));
    let mut sum_inputs = vec!["a"];
    sum_inputs.extend(names.iter().map(String::as_str));
    let bytes = model(
        vec![node("Sum", "sum", &sum_inputs, &["y"])],
        vec![],
        inputs,
    );
    let (dir, path) = temp_model("model.onnx", &bytes);
    let out = dir.path().join("out.onnx");
    run(&["expand", path_str(&path), "-o", path_str(&out)]).expect_code(0);
    assert!(
        std::fs::metadata(&out)
            .expect("expand wrote its output")
            .len()
            > bytes.len() as u64
    );
}

// ---------------------------------------------------------------------------------------------------
// Globs
// ---------------------------------------------------------------------------------------------------

/// Braces nested 40 deep.
fn nested_braces() -> String {
    format!("{}x{}", "{a,".repeat(40), "}".repeat(40))
}

/// 200,000 alternatives in one pair of braces.
fn wide_braces() -> String {
    let alts: Vec<String> = (0..200_000).map(|i| format!("m{i}")).collect();
    format!("{{{}}}.onnx", alts.join(","))
}

/// Runs `check` of a clean model with `config` as the configuration: discovered in the model's
/// folder, and given with `--config` from another folder. Both must exit 2 naming `words`.
fn expect_config_error(config: &str, words: &[&str]) {
    let bytes = model(
        vec![node("Relu", "relu", &["x"], &["y"])],
        vec![],
        vec![float("x", &[2, 3])],
    );
    let (dir, path) = temp_model("model.onnx", &bytes);
    std::fs::write(dir.path().join("onnx-lint.toml"), config).expect("write the configuration");
    run(&["check", path_str(&path)])
        .expect_code(2)
        .expect_words(words);
    let elsewhere = tempdir();
    let given = elsewhere.path().join("given.toml");
    std::fs::write(&given, config).expect("write the configuration");
    run(&["check", path_str(&path), "--config", path_str(&given)])
        .expect_code(2)
        .expect_words(words);
}

#[test]
fn nested_braces_in_per_file_ignores_are_a_configuration_error() {
    let config = format!("[per-file-ignores]\n\"{}\" = [\"W1\"]\n", nested_braces());
    expect_config_error(&config, &["`per-file-ignores`", "too deep"]);
}

#[test]
fn wide_braces_in_per_file_ignores_are_a_configuration_error() {
    let config = format!("[per-file-ignores]\n\"{}\" = [\"W1\"]\n", wide_braces());
    expect_config_error(&config, &["`per-file-ignores`", "too long"]);
}

#[test]
fn nested_braces_in_a_suppression_node_pattern_are_a_configuration_error() {
    let config = format!(
        "[[suppress]]\ncode = \"E1\"\nnode = \"{}\"\nreason = \"vendor model\"\n",
        nested_braces()
    );
    expect_config_error(&config, &["`suppress[1].node`", "too deep"]);
}

#[test]
fn wide_braces_in_a_suppression_pattern_are_a_configuration_error() {
    let config = format!(
        "[[suppress]]\ncode = \"E1\"\nmodel = \"{}\"\nnode = \"{}\"\nreason = \"vendor model\"\n",
        wide_braces(),
        wide_braces()
    );
    expect_config_error(&config, &["`suppress[1].model`", "too long"]);
}

// ---------------------------------------------------------------------------------------------------
// The configuration parser over generated input (what fuzz/fuzz_targets/config.rs does, for where
// cargo-fuzz is not installed)
// ---------------------------------------------------------------------------------------------------

/// Seed configurations: every key, globs of every kind, a `pyproject.toml` table.
const SEEDS: &[&str] = &[
    "select = [\"E\", \"W1\"]\nignore = [\"I\"]\nerror = [\"W1\"]\nwarn = [\"E2\"]\nextend-select = [\"B001\"]\n",
    "[per-file-ignores]\n\"legacy/**/*.onnx\" = [\"T004\"]\n\"e1_*.onnx\" = [\"E1\"]\n\"{a,{b,c}}/[!x]?.onnx\" = [\"W\"]\n",
    "[[suppress]]\nmodel = \"{a,b}/*.onnx\"\ncode = \"E1\"\nnode = \"/encoder/*/Add*\"\nreason = \"known\"\n",
    "[tool.onnx-lint]\nextend-select = [\"B001\"]\n[[tool.onnx-lint.suppress]]\ncode = \"W1\"\nreason = \"r\"\n",
];

/// Pieces spliced into the seeds: glob syntax, TOML syntax, deep nesting, long runs.
const PIECES: &[&str] = &[
    "{",
    "}",
    ",",
    "[",
    "]",
    "[!",
    "\\",
    "*",
    "**",
    "?",
    "/",
    "\"",
    "'",
    "=",
    "\n",
    "[[suppress]]\n",
    "[per-file-ignores]\n",
    "{a,{b,{c,{d,{e,{f,{g,{h,{i,{j,k}}}}}}}}}}",
    "é",
    "\u{0}",
    "#",
    "a = [",
    "x = {",
    "1e999",
    "-",
    "ALL",
    "E1",
    "reason = \"\"\n",
    "[tool]\n",
    ".",
    "\t",
];

/// xorshift64*: a fixed sequence, so a failure is found again.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn exercise_config(text: &str) {
    use onnx_lint::diagnostics::{Code, Diagnostic};
    use onnx_lint::settings::{RuleLayer, Settings};
    for file in ["/repo/onnx-lint.toml", "/repo/pyproject.toml"] {
        let Ok(Some(s)) = Settings::from_text(text, Path::new(file), &RuleLayer::default()) else {
            continue;
        };
        for model in [
            "/repo/a.onnx",
            "/repo/legacy/deep/e1_add.onnx",
            "/elsewhere/b.onnx",
        ] {
            let at = Some(Path::new(model));
            let mut d = Diagnostic::new(Code::BroadcastError, "main", "x");
            d.node = Some("/encoder/layer.0/Add".into());
            let _ = s.apply(
                at,
                vec![d, Diagnostic::new(Code::DeclaredShape, "main", "y")],
            );
            let _ = s.describe(model, at);
        }
        let _ = s.apply(None, Vec::new());
        let _ = s.unused();
    }
}

#[test]
fn generated_configurations_are_settings_or_errors_never_panics() {
    let mut rng = Rng(0x5eed_0036);
    for _ in 0..4000 {
        let mut text = SEEDS[rng.below(SEEDS.len())].to_owned();
        for _ in 0..1 + rng.below(8) {
            let mut at = rng.below(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let piece = PIECES[rng.below(PIECES.len())];
            match rng.below(4) {
                0 => {
                    let mut end = (at + rng.below(8)).min(text.len());
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    text.replace_range(at..end, "");
                }
                1 => text.insert_str(at, &piece.repeat(1 + rng.below(300))),
                _ => text.insert_str(at, piece),
            }
        }
        exercise_config(&text);
    }
    // Deep nesting of TOML values and of braces in a glob.
    for depth in [100, 1000, 10_000] {
        exercise_config(&format!(
            "select = {}{}\n",
            "[".repeat(depth),
            "]".repeat(depth)
        ));
        exercise_config(&format!("select = {}\n", "{a=".repeat(depth)));
        exercise_config(&format!(
            "[per-file-ignores]\n\"{}\" = []\n",
            "{a,".repeat(depth)
        ));
    }
}
