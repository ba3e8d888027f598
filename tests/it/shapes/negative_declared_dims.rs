//! A negative `dim_value` in a declared value type (graph input, output, `value_info`, in any graph,
//! subgraph or function) is what exporters such as paddle2onnx write for "unknown": onnx-lint reads it
//! as an unknown size and reports it once per model as a T005 warning (exit 0), where it used to be a
//! T001 error. A negative dim of a tensor (an initializer) is still T001. Everything runs through the
//! binary.

use crate::support::binary;
use crate::support::paths::tempdir;
use crate::support::proto::{model_of, node, opset};
use onnx_lint::proto::attribute_proto::AttributeType;
use onnx_lint::proto::tensor_proto::DataType;
use onnx_lint::proto::tensor_shape_proto::{Dimension, dimension};
use onnx_lint::proto::*;
use prost::Message;
use serde_json::Value;
use std::path::Path;

/// Runs the binary: (exit status, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let r = binary::run(args);
    (r.code, r.stdout, r.stderr)
}

fn model(g: GraphProto) -> ModelProto {
    model_of(10, None, g)
}

/// `dim_value` for numbers, `dim_param` for anything else, no value for `""`.
fn dims(d: &[&str]) -> TensorShapeProto {
    TensorShapeProto {
        dim: d
            .iter()
            .map(|s| Dimension {
                value: match s.parse::<i64>() {
                    Ok(n) => Some(dimension::Value::DimValue(n)),
                    Err(_) if s.is_empty() => None,
                    Err(_) => Some(dimension::Value::DimParam(s.to_string())),
                },
                ..Default::default()
            })
            .collect(),
    }
}

fn float(name: &str, shape: &[&str]) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(DataType::Float as i32),
                shape: Some(dims(shape)),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// `y = Relu(x)` with x and y declared `[-1, 3]`, as paddle2onnx writes a dynamic batch.
fn relu_minus_one() -> ModelProto {
    model(GraphProto {
        name: Some("g".into()),
        node: vec![node("Relu", "relu", &["x"], &["y"])],
        input: vec![float("x", &["-1", "3"])],
        output: vec![float("y", &["-1", "3"])],
        ..Default::default()
    })
}

/// Writes `m` to `dir/m.onnx`.
fn save(dir: &Path, m: &ModelProto) -> String {
    let path = dir.join("m.onnx");
    std::fs::write(&path, m.encode_to_vec()).expect("write the model");
    path.to_str().expect("UTF-8 temporary path").to_owned()
}

/// The diagnostics of `check --format json` and the exit status.
fn check_json(path: &str) -> (i32, Vec<Value>) {
    let (code, stdout, stderr) = run(&["check", path, "--format", "json"]);
    let doc: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
    let diags = doc["diagnostics"].as_array().expect("a list").clone();
    (code, diags)
}

fn with_code<'a>(diags: &'a [Value], code: &str) -> Vec<&'a Value> {
    diags.iter().filter(|d| d["code"] == code).collect()
}

#[test]
fn an_input_dim_of_minus_one_is_one_t005_warning_and_exit_0() {
    let dir = tempdir();
    let path = save(dir.path(), &relu_minus_one());
    let (code, diags) = check_json(&path);
    assert_eq!(code, 0, "{diags:#?}");
    assert!(with_code(&diags, "T001").is_empty(), "{diags:#?}");
    let t005 = with_code(&diags, "T005");
    assert_eq!(t005.len(), 1, "one warning per model: {diags:#?}");
    let d = t005[0];
    assert_eq!(d["severity"], "warning");
    assert_eq!(d["name"], "negative-declared-dim");
    let msg = d["message"].as_str().unwrap();
    for w in [
        "2 declared dims",
        "2 values",
        "value 'x' (dim 0 is -1)",
        "value 'y'",
    ] {
        assert!(msg.contains(w), "{w:?} in {msg}");
    }
    let notes = d["notes"].to_string();
    assert!(
        notes.contains("paddle2onnx") && notes.contains("dim_param"),
        "{notes}"
    );

    let (code, text, _) = run(&["check", &path]);
    assert_eq!(code, 0);
    assert!(
        text.contains("warning[T005] negative-declared-dim: "),
        "{text}"
    );
    assert!(!text.contains("error["), "{text}");
}

#[test]
fn a_dim_of_minus_one_is_unknown_in_the_inferred_shapes() {
    let dir = tempdir();
    let path = save(dir.path(), &relu_minus_one());
    let (code, stdout, stderr) = run(&["shapes", &path, "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    for name in ["x", "y"] {
        let v = doc["values"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap_or_else(|| panic!("no value {name}: {doc:#}"));
        assert_eq!(v["shape"], serde_json::json!([null, 3]), "{name}: {v}");
    }
    let (code, text, _) = run(&["shapes", &path]);
    assert_eq!(code, 0);
    assert!(text.contains("x: FLOAT[?, 3]"), "{text}");
}

#[test]
fn an_initializer_with_a_negative_dim_is_still_a_t001_error() {
    let mut m = relu_minus_one();
    let g = m.graph.as_mut().unwrap();
    g.node.push(node("Add", "add", &["y", "w"], &["z"]));
    g.output.push(float("z", &[]));
    g.initializer.push(TensorProto {
        name: Some("w".into()),
        data_type: Some(DataType::Float as i32),
        dims: vec![-1, 3],
        ..Default::default()
    });
    let dir = tempdir();
    let path = save(dir.path(), &m);
    let (code, diags) = check_json(&path);
    assert_eq!(code, 1, "{diags:#?}");
    let t001 = with_code(&diags, "T001");
    assert_eq!(t001.len(), 1, "{diags:#?}");
    assert_eq!(t001[0]["severity"], "error");
    let msg = t001[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("initializer 'w'") && msg.contains("negative (-1)"),
        "{msg}"
    );
    // The declared -1s of x and y are still the one warning, and do not mention the initializer.
    let t005 = with_code(&diags, "T005");
    assert_eq!(t005.len(), 1, "{diags:#?}");
    assert!(!t005[0]["message"].as_str().unwrap().contains("'w'"));
}

#[test]
fn negative_dims_in_value_info_subgraphs_and_functions_make_one_warning() {
    // Main graph: x [-1, 4] -> Relu -> r (value_info [-1, 4]) -> If(c) -> y; both branches output a
    // value declared [-1]; the function called on r has a value_info of [-7].
    let branch = |name: &str, out: &str| GraphProto {
        name: Some(name.into()),
        node: vec![node("Identity", &format!("{name}_id"), &["r"], &[out])],
        output: vec![float(out, &["-1", "4"])],
        ..Default::default()
    };
    let graph_attr = |name: &str, g: GraphProto| AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Graph as i32),
        g: Some(g),
        ..Default::default()
    };
    let mut if_node = node("If", "branch", &["c"], &["y"]);
    if_node.attribute = vec![
        graph_attr("then_branch", branch("then", "t_out")),
        graph_attr("else_branch", branch("else", "e_out")),
    ];
    let mut call = node("Twice", "twice", &["r"], &["z"]);
    call.domain = Some("local".into());
    let function = FunctionProto {
        name: Some("Twice".into()),
        domain: Some("local".into()),
        input: vec!["a".into()],
        output: vec!["b".into()],
        node: vec![
            node("Add", "add", &["a", "a"], &["s"]),
            node("Relu", "relu", &["s"], &["b"]),
        ],
        value_info: vec![float("s", &["-7", "4"])],
        opset_import: vec![opset("", 17)],
        ..Default::default()
    };
    let m = ModelProto {
        opset_import: vec![opset("", 17), opset("local", 1)],
        functions: vec![function],
        ..model(GraphProto {
            name: Some("g".into()),
            node: vec![node("Relu", "relu", &["x"], &["r"]), if_node, call],
            input: vec![
                float("x", &["-1", "4"]),
                ValueInfoProto {
                    r#type: Some(TypeProto {
                        value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                            elem_type: Some(DataType::Bool as i32),
                            shape: Some(dims(&[])),
                        })),
                        ..Default::default()
                    }),
                    ..float("c", &[])
                },
            ],
            output: vec![float("y", &["N", "4"]), float("z", &["", "4"])],
            value_info: vec![float("r", &["-1", "4"])],
            ..Default::default()
        })
    };
    let dir = tempdir();
    let path = save(dir.path(), &m);
    let (code, diags) = check_json(&path);
    assert_eq!(code, 0, "{diags:#?}");
    assert!(with_code(&diags, "T001").is_empty(), "{diags:#?}");
    let t005 = with_code(&diags, "T005");
    assert_eq!(t005.len(), 1, "{diags:#?}");
    let msg = t005[0]["message"].as_str().unwrap();
    // x, r, then's t_out, else's e_out, the function's s: five values, one dim each.
    assert!(
        msg.starts_with("5 declared dims are negative, in 5 values"),
        "{msg}"
    );
    for w in [
        "value 'x' (dim 0 is -1, graph main)",
        "value 'r' (dim 0 is -1, graph main)",
        "value 't_out' (dim 0 is -1, graph main/branch/then_branch)",
        "value 'e_out'",
        "value 's' (dim 0 is -7, graph function:local.Twice)",
    ] {
        assert!(msg.contains(w), "{w:?} in {msg}");
    }
}

#[test]
fn many_values_are_counted_and_the_first_five_named() {
    let names: Vec<String> = (0..8).map(|i| format!("in{i}")).collect();
    let m = model(GraphProto {
        name: Some("g".into()),
        node: vec![node(
            "Sum",
            "sum",
            &names.iter().map(String::as_str).collect::<Vec<_>>(),
            &["y"],
        )],
        input: names.iter().map(|n| float(n, &["-1", "-1"])).collect(),
        output: vec![float("y", &["", ""])],
        ..Default::default()
    });
    let dir = tempdir();
    let path = save(dir.path(), &m);
    let (code, diags) = check_json(&path);
    assert_eq!(code, 0, "{diags:#?}");
    let t005 = with_code(&diags, "T005");
    assert_eq!(t005.len(), 1, "{diags:#?}");
    let msg = t005[0]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("16 declared dims are negative, in 8 values"),
        "{msg}"
    );
    assert!(
        msg.contains("value 'in0' (dim 0 is -1, dim 1 is -1)"),
        "{msg}"
    );
    assert!(msg.contains("'in4'") && !msg.contains("'in5'"), "{msg}");
    assert!(msg.contains("and 3 more"), "{msg}");
}

#[test]
fn expand_and_fold_write_a_model_with_minus_one_dims() {
    // A broadcast over the unknown batch: expand makes it explicit (from Shape at run time), fold
    // removes it again; both exit 0 where they used to refuse the model for its T001 errors.
    let m = model(GraphProto {
        name: Some("g".into()),
        node: vec![node("Add", "add", &["x", "b"], &["y"])],
        input: vec![float("x", &["-1", "3"]), float("b", &["3"])],
        output: vec![float("y", &["-1", "3"])],
        ..Default::default()
    });
    let dir = tempdir();
    let path = save(dir.path(), &m);
    let out = dir.path().join("expanded.onnx");
    let out = out.to_str().unwrap();
    let (code, _, stderr) = run(&["expand", &path, "-o", out]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("input 1: [3] -> [?, 3]"), "{stderr}");
    let (code, diags) = check_json(out);
    assert_eq!(code, 0, "{diags:#?}");
    assert_eq!(with_code(&diags, "T005").len(), 1, "{diags:#?}");
    let folded = dir.path().join("folded.onnx");
    let (code, _, stderr) = run(&["fold", out, "-o", folded.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        std::fs::read(&folded).unwrap(),
        std::fs::read(&path).unwrap(),
        "fold(expand(m)) is m"
    );
}

#[test]
fn a_value_declared_twice_counts_once() {
    // y is a graph output and also in value_info, both [-1, 3]: one value, one dim.
    let mut m = relu_minus_one();
    let g = m.graph.as_mut().unwrap();
    g.value_info.push(float("y", &["-1", "3"]));
    let dir = tempdir();
    let path = save(dir.path(), &m);
    let (code, diags) = check_json(&path);
    assert_eq!(code, 0, "{diags:#?}");
    let t005 = with_code(&diags, "T005");
    assert_eq!(t005.len(), 1, "{diags:#?}");
    let msg = t005[0]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("2 declared dims are negative, in 2 values"),
        "{msg}"
    );
    assert!(msg.contains("value 'y' (dim 0 is -1);"), "{msg}");
}
