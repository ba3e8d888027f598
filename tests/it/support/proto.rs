//! Building models by hand: the protobuf messages the tests assemble, each helper written once.
//! Tests with a helper of their own keep it where it differs (another shape, another default).

use onnx_lint::proto::tensor_proto::DataType;
use onnx_lint::proto::tensor_shape_proto::{Dimension, dimension};
use onnx_lint::proto::{
    GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto, TensorShapeProto,
    TypeProto, ValueInfoProto, type_proto,
};

/// Owned copies of `v`.
pub fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// A node of operator `op` named `name`, with no attributes.
pub fn node(op: &str, name: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        name: Some(name.into()),
        input: strings(inputs),
        output: strings(outputs),
        ..Default::default()
    }
}

/// An opset import.
pub fn opset(domain: &str, version: i64) -> OperatorSetIdProto {
    OperatorSetIdProto {
        domain: Some(domain.into()),
        version: Some(version),
    }
}

/// A float tensor value of unknown shape.
pub fn vi(name: &str) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(DataType::Float as i32),
                shape: None,
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A tensor value of element type `elem` and shape `dims`: a number is a size, anything else a
/// symbol.
pub fn typed(name: &str, elem: DataType, dims: &[&str]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|d| Dimension {
            value: Some(match d.parse::<i64>() {
                Ok(n) => dimension::Value::DimValue(n),
                Err(_) => dimension::Value::DimParam((*d).to_owned()),
            }),
            ..Default::default()
        })
        .collect();
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem as i32),
                shape: Some(TensorShapeProto { dim }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A graph named `g` of `nodes`, its inputs and outputs float tensors of unknown shape ([`vi`]).
pub fn graph(nodes: Vec<NodeProto>, inputs: &[&str], outputs: &[&str]) -> GraphProto {
    GraphProto {
        node: nodes,
        name: Some("g".into()),
        input: inputs.iter().map(|n| vi(n)).collect(),
        output: outputs.iter().map(|n| vi(n)).collect(),
        ..Default::default()
    }
}

/// A model of `g` at IR version `ir_version`, importing the default domain at opset 17, with
/// `producer` as its producer name when given.
pub fn model_of(ir_version: i64, producer: Option<&str>, g: GraphProto) -> ModelProto {
    ModelProto {
        ir_version: Some(ir_version),
        opset_import: vec![opset("", 17)],
        producer_name: producer.map(Into::into),
        graph: Some(g),
        ..Default::default()
    }
}

/// `y [4] = Add(x [1], w)` (IR 9, opset 17), `w` among `initializer`: the model of the writing tests,
/// whose initializers (external, padding) are what they vary.
pub fn add_model(initializer: Vec<TensorProto>) -> ModelProto {
    ModelProto {
        ir_version: Some(9),
        opset_import: vec![opset("", 17)],
        graph: Some(GraphProto {
            name: Some("g".into()),
            node: vec![node("Add", "add", &["x", "w"], &["y"])],
            input: vec![typed("x", DataType::Float, &["1"])],
            output: vec![typed("y", DataType::Float, &["4"])],
            initializer,
            ..Default::default()
        }),
        ..Default::default()
    }
}
