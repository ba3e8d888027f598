//! `expand` of a Sum with 100,000 broadcast inputs (issue 36, "expand"), through the real binary
//! with a hang guard: the writer was quadratic in a node's inputs (25 s at 50,000), and must end
//! within [`DEADLINE`] without a panic or a signal. Copied from `tests/hostile_complexity.rs` on
//! branch hostile-limits, with the model builders the test uses.

#[path = "common/binary.rs"]
// `expect_words` is for the other tests that include it.
#[allow(dead_code)]
mod binary;

use binary::{Run, run_with};
use onnx_lint::proto::tensor_shape_proto::{Dimension, dimension};
use onnx_lint::proto::*;
use prost::Message;
use std::path::{Path, PathBuf};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_onnx-lint");

/// The hang guard: generous for a loaded machine; a healthy run takes about a second.
const DEADLINE: Duration = Duration::from_secs(20);

fn run(args: &[&str]) -> Run {
    run_with(BIN, args, DEADLINE)
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn node(op: &str, name: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        name: Some(name.into()),
        input: strings(inputs),
        output: strings(outputs),
        ..Default::default()
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

fn opset(domain: &str, version: i64) -> OperatorSetIdProto {
    OperatorSetIdProto {
        domain: Some(domain.into()),
        version: Some(version),
    }
}

/// A model whose main graph is `nodes`, from `inputs` to `y`.
fn model(nodes: Vec<NodeProto>, inputs: Vec<ValueInfoProto>) -> Vec<u8> {
    ModelProto {
        ir_version: Some(9),
        opset_import: vec![opset("", 17)],
        producer_name: Some("hostile_expand".into()),
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
        ..Default::default()
    }
    .encode_to_vec()
}

/// A folder holding `model.onnx` with `bytes`.
fn folder(bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("model.onnx");
    std::fs::write(&path, bytes).expect("write the model");
    (dir, path)
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("temporary paths are UTF-8")
}

#[test]
fn expand_of_a_sum_of_100000_broadcast_inputs_ends() {
    // `a` is [4, 4]; every other input is [4], broadcast to it: 99,999 Expands, one node's inputs.
    let n = 100_000;
    let names: Vec<String> = (1..n).map(|i| format!("b{i}")).collect();
    let mut inputs = vec![float("a", &[4, 4])];
    inputs.extend(names.iter().map(|b| float(b, &[4])));
    let mut sum_inputs = vec!["a"];
    sum_inputs.extend(names.iter().map(String::as_str));
    let bytes = model(vec![node("Sum", "sum", &sum_inputs, &["y"])], inputs);
    let (dir, path) = folder(&bytes);
    let out = dir.path().join("out.onnx");
    run(&["expand", path_str(&path), "-o", path_str(&out)]).expect_code(0);
    assert!(
        std::fs::metadata(&out)
            .expect("expand wrote its output")
            .len()
            > bytes.len() as u64
    );
}
