//! `expand` measures its output from the lengths the pass knows (a node's name and inputs) only where
//! the node's record holds its inputs in the shortest encoding; a record that spells an input's
//! length with more bytes than it needs (valid protobuf, which prost and onnxruntime read) is measured
//! from its bytes, and the output is still written.

use crate::support::paths::tempdir;
use onnx_lint::file::Origin;
use onnx_lint::lint;
use onnx_lint::passes::explicit_broadcast::{self, Options};
use onnx_lint::proto::tensor_proto::DataType;
use onnx_lint::proto::tensor_shape_proto::{Dimension, dimension};
use onnx_lint::proto::{
    GraphProto, ModelProto, OperatorSetIdProto, TensorShapeProto, TypeProto, ValueInfoProto,
    type_proto,
};
use onnx_lint::write::{WriteOptions, write_model};
use prost::Message;

fn float(name: &str, dims: &[Option<i64>]) -> ValueInfoProto {
    let dim = |d: &Option<i64>| Dimension {
        value: Some(match d {
            Some(v) => dimension::Value::DimValue(*v),
            None => dimension::Value::DimParam("N".into()),
        }),
        ..Default::default()
    };
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(DataType::Float as i32),
                shape: Some(TensorShapeProto {
                    dim: dims.iter().map(dim).collect(),
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A `NodeProto` record's payload: inputs, output, name and op type, the inputs' lengths written
/// with `pad` more bytes than they need (`0x80` continuation bytes, then the last one).
fn node_payload(inputs: &[&str], output: &str, name: &str, op: &str, pad: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in inputs {
        out.push(0x0a);
        let mut len = vec![i.len() as u8 | 0x80];
        len.extend(std::iter::repeat_n(0x80, pad.saturating_sub(1)));
        len.push(0);
        if pad == 0 {
            len = vec![i.len() as u8];
        }
        out.extend(len);
        out.extend_from_slice(i.as_bytes());
    }
    for (field, s) in [(2u8, output), (3, name), (4, op)] {
        out.push(field << 3 | 2);
        out.push(s.len() as u8);
        out.extend_from_slice(s.as_bytes());
    }
    out
}

/// `z = Add(x, y); out = Mul(z, y)`, x of shape [N, 3] and y [3] (both broadcast), the Add's
/// inputs written with `pad` extra length bytes.
fn model(pad: usize) -> Vec<u8> {
    let graph = GraphProto {
        name: Some("g".into()),
        input: vec![float("x", &[None, Some(3)]), float("y", &[Some(3)])],
        output: vec![float("out", &[None, Some(3)])],
        ..Default::default()
    };
    let mut graph_bytes = graph.encode_to_vec();
    for node in [
        node_payload(&["x", "y"], "z", "add", "Add", pad),
        node_payload(&["z", "y"], "out", "mul", "Mul", 0),
    ] {
        graph_bytes.push(0x0a); // GraphProto.node
        prost::encoding::encode_varint(node.len() as u64, &mut graph_bytes);
        graph_bytes.extend(node);
    }
    let mut model = ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        ..Default::default()
    }
    .encode_to_vec();
    model.push(7 << 3 | 2); // ModelProto.graph
    prost::encoding::encode_varint(graph_bytes.len() as u64, &mut model);
    model.extend(graph_bytes);
    model
}

/// Loads `bytes` from a file, makes its broadcasts explicit and writes it; returns whether the
/// loader found the Add's inputs in their shortest encoding, and the output decoded.
fn expand(bytes: &[u8]) -> (bool, ModelProto) {
    let dir = tempdir();
    let src = dir.path().join("in.onnx");
    std::fs::write(&src, bytes).expect("written");
    let (model, found) = lint::load(Origin::File(src)).expect("the model loads");
    let g = model.graph.as_ref().expect("a main graph");
    let add = g.ops.first().and_then(|&id| g.op(id)).expect("the Add");
    assert_eq!(add.op_type(), "Add");
    let plain = add.plain_inputs();
    let outcome =
        explicit_broadcast::run(&model, &found.shapes, &Options::default()).expect("explicit");
    let edit = outcome.patch.to_edit();
    let out = dir.path().join("out.onnx");
    write_model(&model, &edit, &out, &WriteOptions::default()).expect("the output is written");
    let written = std::fs::read(&out).expect("readable");
    (
        plain,
        ModelProto::decode(written.as_slice()).expect("the output decodes"),
    )
}

#[test]
fn an_input_in_a_longer_encoding_is_measured_from_its_record() {
    let (plain, shortest) = expand(&model(0));
    assert!(plain, "the shortest encoding is known as such");
    let nodes = &shortest.graph.as_ref().expect("a graph").node;
    let ops: Vec<&str> = nodes.iter().filter_map(|n| n.op_type.as_deref()).collect();
    assert_eq!(ops, ["Shape", "Expand", "Add", "Shape", "Expand", "Mul"]);
    for pad in [1, 3] {
        let (plain, longer) = expand(&model(pad));
        assert!(
            !plain,
            "pad {pad}: a longer encoding is not taken as the shortest"
        );
        // Decoded, the longer encoding is the same model: so is its output.
        assert_eq!(longer, shortest, "pad {pad}");
    }
}
