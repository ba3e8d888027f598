//! The kernel exceptions of `expand` (src/passes/explicit_broadcast/exceptions.rs, `KERNEL_EXCEPTIONS`): inputs
//! left implicit by default because onnxruntime computes them with other code once explicit
//! (docs/expand-exactness.md), each listed on standard error with its reason; `--force-explicit`
//! makes them explicit; `check --explicit` reports them as B001 infos; `fold` undoes the forced form.
//! Through the binary, on small models built here and on `models/gelu_tanh.onnx`.

use crate::support::binary;
use crate::support::paths::{root, s, tempdir};
use onnx_lint::proto::tensor_proto::DataType;
use onnx_lint::proto::tensor_shape_proto::{Dimension, dimension};
use onnx_lint::proto::*;
use prost::Message;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Runs with `args`: (exit status, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let r = binary::run(args);
    (r.code, r.stdout, r.stderr)
}

fn value(name: &str, elem: DataType, shape: &[i64]) -> ValueInfoProto {
    let dim = |n: &i64| Dimension {
        value: Some(dimension::Value::DimValue(*n)),
        ..Default::default()
    };
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem as i32),
                shape: Some(TensorShapeProto {
                    dim: shape.iter().map(dim).collect(),
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// One node `op` named `name` over graph inputs of the given types and shapes (inputs `in0`, `in1`...,
/// output `y`), with the attribute `axis` when given; opset 17 (23 for RMSNormalization).
fn one_node(op: &str, name: &str, inputs: &[(DataType, &[i64])], axis: Option<i64>) -> ModelProto {
    let names: Vec<String> = (0..inputs.len()).map(|k| format!("in{k}")).collect();
    let node = NodeProto {
        op_type: Some(op.into()),
        name: Some(name.into()),
        input: names.clone(),
        output: vec!["y".into()],
        attribute: axis
            .map(|a| AttributeProto {
                name: Some("axis".into()),
                r#type: Some(attribute_proto::AttributeType::Int as i32),
                i: Some(a),
                ..Default::default()
            })
            .into_iter()
            .collect(),
        ..Default::default()
    };
    let opset = if op == "RMSNormalization" { 23 } else { 17 };
    ModelProto {
        ir_version: Some(9),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(opset),
        }],
        graph: Some(GraphProto {
            name: Some("main".into()),
            node: vec![node],
            input: names
                .iter()
                .zip(inputs)
                .map(|(n, (t, shape))| value(n, *t, shape))
                .collect(),
            output: vec![ValueInfoProto {
                name: Some("y".into()),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// `Pow(x [2, 3], 3.0)` with the exponent a scalar initializer, the node named `pow_1`.
fn pow_scalar_initializer() -> ModelProto {
    let mut m = one_node("Pow", "pow_1", &[(DataType::Float, &[2, 3])], None);
    let g = m.graph.as_mut().unwrap();
    g.node[0].input.push("three".into());
    g.initializer.push(TensorProto {
        name: Some("three".into()),
        data_type: Some(DataType::Float as i32),
        dims: vec![],
        float_data: vec![3.0],
        ..Default::default()
    });
    m
}

/// Writes `m` to `dir/name` and returns its path.
fn save(dir: &Path, name: &str, m: &ModelProto) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, m.encode_to_vec()).unwrap();
    path
}

/// The inputs of the node `name` in the main graph of the model at `path`.
fn inputs_of(path: &Path, name: &str) -> Vec<String> {
    let m = ModelProto::decode(std::fs::read(path).unwrap().as_slice()).unwrap();
    let g = m.graph.unwrap();
    let n = g.node.iter().find(|n| n.name() == name).unwrap();
    n.input.clone()
}

/// `expand MODEL -o OUT` (with `extra` arguments): (stderr, the inputs of node `node` in OUT).
fn expand(dir: &Path, model: &Path, node: &str, extra: &[&str]) -> (String, Vec<String>) {
    let out = dir.join("out.onnx");
    let mut args = vec!["expand", s(model), "-o", s(&out)];
    args.extend(extra);
    let (code, _, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    (stderr, inputs_of(&out, node))
}

#[test]
fn expand_leaves_a_scalar_pow_exponent_implicit_and_says_why() {
    let dir = tempdir();
    let model = save(dir.path(), "pow.onnx", &pow_scalar_initializer());
    let (stderr, inputs) = expand(dir.path(), &model, "pow_1", &[]);
    assert_eq!(inputs, ["in0", "three"], "the exponent is read as it was");
    assert!(
        stderr.contains(
            "expand: left implicit: graph main, node 'pow_1' (Pow), input 1 ([] -> [2, 3]): \
             onnxruntime computes an exponent broadcast along the last axis differently (its Pow \
             special-cases exponents 2 and 3 as multiplications:"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("expand: 0 implicit broadcasts made explicit (0 nodes inserted)\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("expand: 1 left implicit so that onnxruntime computes the same bits"),
        "{stderr}"
    );
    // Nothing was inserted: the output is the input, byte for byte.
    assert!(std::fs::read(dir.path().join("out.onnx")).unwrap() == std::fs::read(&model).unwrap());
}

#[test]
fn force_explicit_expands_the_pow_exponent_too() {
    let dir = tempdir();
    let model = save(dir.path(), "pow.onnx", &pow_scalar_initializer());
    let (stderr, inputs) = expand(dir.path(), &model, "pow_1", &["--force-explicit"]);
    assert_eq!(inputs, ["in0", "pow_1/expand_in1"], "{stderr}");
    assert!(
        stderr.contains("expand: graph main, node 'pow_1' (Pow), input 1: [] -> [2, 3]"),
        "{stderr}"
    );
    assert!(!stderr.contains("left implicit"), "{stderr}");
}

#[test]
fn a_pow_exponent_spanning_the_last_axis_is_expanded() {
    // Per last axis ([4]) and with only leading axes missing ([3, 4]) the survey found no difference;
    // per channel ([3, 1]) the exponent is read one value per row, as a scalar.
    let dir = tempdir();
    let f = DataType::Float;
    for (shape, kept) in [
        (&[4][..], false),
        (&[3, 4][..], false),
        (&[3, 1][..], true),
        (&[1][..], true),
        (&[1, 1, 1][..], true),
    ] {
        let m = one_node("Pow", "p", &[(f, &[2, 3, 4]), (f, shape)], None);
        let model = save(dir.path(), "pow.onnx", &m);
        let (stderr, inputs) = expand(dir.path(), &model, "p", &[]);
        assert_eq!(inputs[1] == "in1", kept, "{shape:?}: {stderr}");
        assert_eq!(
            stderr.contains("left implicit: graph main, node 'p'"),
            kept,
            "{shape:?}: {stderr}"
        );
    }
    // The base is never an exception: a broadcast base is expanded while the exponent stays.
    let m = one_node("Pow", "p", &[(f, &[1, 4]), (f, &[3, 1])], None);
    let model = save(dir.path(), "pow.onnx", &m);
    let (stderr, inputs) = expand(dir.path(), &model, "p", &[]);
    assert_eq!(inputs, ["p/expand_in0", "in1"], "{stderr}");
}

#[test]
fn max_and_min_are_exceptions_only_where_the_survey_found_differences() {
    let dir = tempdir();
    let (f, h, i) = (DataType::Float, DataType::Float16, DataType::Int32);
    let full: &[i64] = &[2, 3];
    let row: &[i64] = &[3];
    // (element type, input shapes, whether the broadcast inputs stay implicit)
    let cases: [(DataType, Vec<&[i64]>, bool); 5] = [
        (f, vec![full, row], false), // Max(x, c): input 0 already full, two inputs
        (f, vec![row, full], true),  // input 0 broadcast
        (h, vec![row, full], true),
        (f, vec![full, row, full], true), // three inputs
        (i, vec![row, full], false),      // integers have no signed zero, no NaN
    ];
    for op in ["Max", "Min"] {
        for (elem, shapes, kept) in &cases {
            let inputs: Vec<(DataType, &[i64])> = shapes.iter().map(|s| (*elem, *s)).collect();
            let m = one_node(op, "m", &inputs, None);
            let model = save(dir.path(), "m.onnx", &m);
            let (stderr, read) = expand(dir.path(), &model, "m", &[]);
            let slot = shapes.iter().position(|s| *s == row).unwrap();
            assert_eq!(
                read[slot] == format!("in{slot}"),
                *kept,
                "{op} {elem:?} {shapes:?}: {stderr}"
            );
            if *kept {
                assert!(
                    stderr.contains(&format!(
                        "input {slot} ([3] -> [2, 3]): onnxruntime's floating-point {op} returns +0 or -0"
                    )),
                    "{stderr}"
                );
            }
        }
    }
}

#[test]
fn a_broadcast_normalization_scale_stays_implicit_unless_forced() {
    let dir = tempdir();
    let f = DataType::Float;
    for op in ["LayerNormalization", "RMSNormalization"] {
        let m = one_node(op, "norm", &[(f, &[2, 3, 4]), (f, &[1])], Some(-1));
        let model = save(dir.path(), "n.onnx", &m);
        let (stderr, inputs) = expand(dir.path(), &model, "norm", &[]);
        assert_eq!(inputs, ["in0", "in1"], "{stderr}");
        assert!(
            stderr.contains(&format!(
                "node 'norm' ({op}), input 1 ([1] -> [4]): onnxruntime's {op} computes a"
            )),
            "{stderr}"
        );
        // Forced: expanded to the normalized shape X.shape[axis:], as before the exceptions.
        let (stderr, inputs) = expand(dir.path(), &model, "norm", &["--force-explicit"]);
        assert_eq!(inputs, ["in0", "norm/expand_in1"], "{stderr}");
        assert!(stderr.contains("input 1: [1] -> [4]"), "{stderr}");
        // A scale of exactly the normalized shape is no broadcast: nothing to say.
        let m = one_node(op, "norm", &[(f, &[2, 3, 4]), (f, &[4])], Some(-1));
        let model = save(dir.path(), "n.onnx", &m);
        let (stderr, _) = expand(dir.path(), &model, "norm", &[]);
        assert!(!stderr.contains("left implicit"), "{stderr}");
    }
}

/// `check --explicit --format json MODEL`: the B001 diagnostics as (severity, message).
fn b001(model: &Path) -> Vec<(String, String)> {
    let (code, out, stderr) = run(&["check", "--explicit", "--format", "json", s(model)]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&out).unwrap();
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "B001")
        .map(|d| {
            (
                d["severity"].as_str().unwrap().to_owned(),
                d["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn check_explicit_reports_a_kept_input_as_info_and_no_warning_after_expand() {
    let dir = tempdir();
    let gelu = root().join("models/gelu_tanh.onnx");
    let before = b001(&gelu);
    let infos: Vec<_> = before.iter().filter(|(sev, _)| sev == "info").collect();
    assert_eq!(infos.len(), 1, "{before:?}");
    assert!(
        infos[0].1.contains("input 1 of 'act_pow' (Pow) is broadcast implicitly from [] to [batch, seq, 32]; `expand` keeps it implicit on purpose"),
        "{infos:?}"
    );
    assert_eq!(
        before.iter().filter(|(sev, _)| sev == "warning").count(),
        6,
        "{before:?}"
    );
    let out = dir.path().join("out.onnx");
    let (code, _, stderr) = run(&["expand", s(&gelu), "-o", s(&out)]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(b001(&out), infos.into_iter().cloned().collect::<Vec<_>>());
}

#[test]
fn gelu_tanh_expand_keeps_the_cube_is_idempotent_and_fold_undoes_the_forced_form() {
    let dir = tempdir();
    let gelu = root().join("models/gelu_tanh.onnx");
    let (stderr, inputs) = expand(dir.path(), &gelu, "act_pow", &[]);
    assert_eq!(inputs, ["h", "three"], "{stderr}");
    assert!(
        stderr.contains("expand: 6 implicit broadcasts made explicit"),
        "{stderr}"
    );
    // expand of its own output: the same input kept, nothing inserted, the same bytes.
    let (out, again) = (dir.path().join("out.onnx"), dir.path().join("again.onnx"));
    let (code, _, stderr) = run(&["expand", s(&out), "-o", s(&again)]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("expand: 0 implicit broadcasts made explicit"),
        "{stderr}"
    );
    assert!(stderr.contains("node 'act_pow' (Pow), input 1"), "{stderr}");
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&again).unwrap());
    // Forced, then folded: the original, byte for byte (fold removes the exponent's Expand too).
    let (stderr, inputs) = expand(dir.path(), &gelu, "act_pow", &["--force-explicit"]);
    assert_eq!(inputs, ["h", "act_pow/expand_in1"], "{stderr}");
    let folded = dir.path().join("folded.onnx");
    let (code, _, stderr) = run(&["fold", s(&out), "-o", s(&folded)]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        std::fs::read(&folded).unwrap() == std::fs::read(&gelu).unwrap(),
        "{stderr}"
    );
}

#[test]
fn exceptions_apply_to_the_element_types_the_survey_found_differing() {
    // Pow: float, double, int32, int64 differ (float16 only in NaN payloads); RMSNormalization: float
    // only (double identical, float16 only NaN payloads).
    let dir = tempdir();
    let cases = [
        ("Pow", DataType::Float, true),
        ("Pow", DataType::Double, true),
        ("Pow", DataType::Int64, true),
        ("Pow", DataType::Float16, false),
        ("RMSNormalization", DataType::Float, true),
        ("RMSNormalization", DataType::Double, false),
        ("RMSNormalization", DataType::Float16, false),
    ];
    for (op, elem, kept) in cases {
        let m = one_node(op, "n", &[(elem, &[2, 4]), (elem, &[])], Some(-1));
        let model = save(dir.path(), "n.onnx", &m);
        let (stderr, inputs) = expand(dir.path(), &model, "n", &[]);
        assert_eq!(inputs[1] == "in1", kept, "{op} {elem:?}: {stderr}");
    }
}
