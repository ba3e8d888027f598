//! Loading a file leaves large weights in place: every `raw_data` over the skip threshold, wherever it
//! sits in the model, comes back as a slice of the mapped file with the right bytes.

use crate::support::paths::tempdir;
use bytes::Bytes;
use onnx_lint::file::Origin;
use onnx_lint::file::decode::SKIP_ABOVE;
use onnx_lint::ir::Model;
use onnx_lint::lint;
use onnx_lint::proto::attribute_proto::AttributeType;
use onnx_lint::proto::*;
use prost::Message;

fn big(name: &str, seed: u8) -> TensorProto {
    let n = (SKIP_ABOVE as usize) + 4 * seed as usize + 4;
    let data: Vec<u8> = (0..n).map(|i| (i as u8).wrapping_mul(seed)).collect();
    TensorProto {
        name: Some(name.into()),
        data_type: Some(2), // UINT8: one byte per element
        dims: vec![n as i64],
        raw_data: Some(Bytes::from(data)),
        ..Default::default()
    }
}

fn constant(name: &str, t: TensorProto) -> NodeProto {
    NodeProto {
        op_type: Some("Constant".into()),
        name: Some(name.into()),
        output: vec![name.into()],
        attribute: vec![AttributeProto {
            name: Some("value".into()),
            r#type: Some(AttributeType::Tensor as i32),
            t: Some(t),
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn model() -> ModelProto {
    let inner = GraphProto {
        node: vec![constant("c_inner", big("inner", 3))],
        output: vec![ValueInfoProto {
            name: Some("c_inner".into()),
            ..Default::default()
        }],
        ..Default::default()
    };
    let if_node = NodeProto {
        op_type: Some("If".into()),
        name: Some("if".into()),
        input: vec!["cond".into()],
        output: vec!["y".into()],
        attribute: ["then_branch", "else_branch"]
            .iter()
            .map(|n| AttributeProto {
                name: Some(n.to_string()),
                r#type: Some(AttributeType::Graph as i32),
                g: Some(inner.clone()),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    ModelProto {
        ir_version: Some(9),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        graph: Some(GraphProto {
            node: vec![constant("c_main", big("main", 5)), if_node],
            initializer: vec![big("init", 7)],
            sparse_initializer: vec![SparseTensorProto {
                values: Some(big("sparse", 9)),
                indices: Some(TensorProto {
                    name: Some("idx".into()),
                    data_type: Some(7),
                    dims: vec![1],
                    int64_data: vec![0],
                    ..Default::default()
                }),
                dims: vec![1 << 20],
            }],
            input: vec![ValueInfoProto {
                name: Some("cond".into()),
                ..Default::default()
            }],
            output: vec![ValueInfoProto {
                name: Some("y".into()),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Every raw_data in the decoded model, found through the IR.
fn raw_datas(m: &Model) -> Vec<(String, Bytes)> {
    let mut out = Vec::new();
    for g in m.graphs() {
        onnx_lint::checks::visit_tensors(g, &mut |t, _, _| {
            if let Some(r) = &t.raw_data {
                out.push((t.name().to_owned(), r.clone()));
            }
        });
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn large_raw_data_everywhere_is_restored_as_slices_of_the_file() {
    let dir = tempdir();
    let path = dir.path().join("m.onnx");
    let proto = model();
    std::fs::write(&path, proto.encode_to_vec()).unwrap();

    let (from_file, _) = lint::load(Origin::File(path)).unwrap();
    let (from_memory, _) =
        lint::from_bytes(Bytes::from(proto.encode_to_vec()), Origin::Stdin).unwrap();
    let a = raw_datas(&from_file);
    let b = raw_datas(&from_memory);
    let names: Vec<_> = a.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["init", "inner", "inner", "main", "sparse"]);
    assert_eq!(a, b, "same bytes as a full decode");
    let src = from_file.source.as_ptr_range();
    for (name, raw) in &a {
        assert!(raw.len() as u64 > SKIP_ABOVE);
        assert!(
            src.contains(&raw.as_ptr()),
            "{name} is a slice of the mapped file"
        );
    }
}

#[test]
fn a_file_that_is_not_a_model_reports_prosts_field_path() {
    let dir = tempdir();
    let path = dir.path().join("bad.onnx");
    let mut bytes = model().encode_to_vec();
    bytes.truncate(bytes.len() - 3);
    std::fs::write(&path, &bytes).unwrap();
    let err = format!("{:#}", lint::load(Origin::File(path)).unwrap_err());
    assert!(err.contains("not an ONNX model"), "{err}");
    assert!(err.contains("ModelProto"), "{err}");
}

/// Writes `bytes` to a file and decodes it with the file decoder, which walks a file this small in
/// its mapping; the walk with reads (a larger file's) must give the same model.
fn decode_via_file(bytes: &[u8]) -> ModelProto {
    let dir = tempdir();
    let path = dir.path().join("m.onnx");
    std::fs::write(&path, bytes).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    let map = Bytes::from(std::fs::read(&path).unwrap());
    assert!(map.len() <= onnx_lint::file::decode::WALK_MAPPING_BELOW);
    let mapped = onnx_lint::file::decode::decode_file(&file, &map).unwrap();
    let read = onnx_lint::file::decode::decode_file_by_reads(&file, &map).unwrap();
    assert_eq!(mapped, read, "walked in the mapping and with reads");
    mapped
}

fn node(name: &str, input: &str) -> NodeProto {
    NodeProto {
        op_type: Some("Relu".into()),
        name: Some(name.into()),
        input: vec![input.into()],
        output: vec![name.into()],
        ..Default::default()
    }
}

#[test]
fn nodes_decoded_apart_are_the_nodes_prost_decodes() {
    use prost::encoding::{bytes as pb_bytes, message, string};
    // A graph whose nodes are interleaved with its other fields, which no writer is bound to avoid:
    // the nodes must keep their order, and the other fields their values.
    let mut graph = Vec::new();
    message::encode(1, &node("a", "x"), &mut graph);
    string::encode(2, &"g".to_owned(), &mut graph);
    message::encode(1, &node("b", "a"), &mut graph);
    string::encode(10, &"doc".to_owned(), &mut graph);
    message::encode(1, &node("c", "b"), &mut graph);
    let mut bytes = ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        ..Default::default()
    }
    .encode_to_vec();
    pb_bytes::encode(7, &graph, &mut bytes);
    let expected = ModelProto::decode(bytes.as_slice()).unwrap();
    let names: Vec<&str> = expected
        .graph
        .as_ref()
        .unwrap()
        .node
        .iter()
        .map(|n| n.name())
        .collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(decode_via_file(&bytes), expected);

    // A second `graph` record merges into the first, per protobuf: the decoder must see there are two
    // and decode the usual way.
    let mut more = Vec::new();
    message::encode(1, &node("d", "c"), &mut more);
    pb_bytes::encode(7, &more, &mut bytes);
    let expected = ModelProto::decode(bytes.as_slice()).unwrap();
    assert_eq!(expected.graph.as_ref().unwrap().node.len(), 4);
    assert_eq!(expected.graph.as_ref().unwrap().name(), "g");
    assert_eq!(decode_via_file(&bytes), expected);
}

#[test]
fn example_models_decode_the_same_split_or_whole() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "onnx") {
            let bytes = std::fs::read(&path).unwrap();
            let whole = ModelProto::decode(bytes.as_slice()).unwrap();
            assert_eq!(decode_via_file(&bytes), whole, "{}", path.display());
        }
    }
}

/// A chain of `n` Relu nodes, `n{i+1}` reading `n{i}`: over 20,000 nodes, the node records are decoded in
/// two halves on two threads.
fn chain(n: usize) -> ModelProto {
    let g = GraphProto {
        node: (0..n)
            .map(|i| node(&format!("n{}", i + 1), &format!("n{i}")))
            .collect(),
        ..Default::default()
    };
    ModelProto {
        ir_version: Some(8),
        graph: Some(g),
        ..Default::default()
    }
}

#[test]
fn many_nodes_decoded_on_two_threads_keep_their_order() {
    let n = 50_000;
    let m = chain(n);
    let bytes = m.encode_to_vec();
    let decoded = decode_via_file(&bytes);
    assert_eq!(decoded.graph.as_ref().unwrap().node.len(), n);
    assert_eq!(decoded, m);
}

#[test]
fn a_graph_decoded_on_two_threads_is_built_in_source_order() {
    // The two halves stay two vectors in the IR (`NodeList`): every position must still find its
    // node, and every node its input, across the seam.
    let n = 50_000;
    let m = chain(n);
    let dir = tempdir();
    let path = dir.path().join("m.onnx");
    std::fs::write(&path, m.encode_to_vec()).unwrap();
    let (model, _) = lint::load(Origin::File(path)).unwrap();
    let g = model.graph.as_ref().unwrap();
    assert_eq!(g.nodes.len(), n);
    assert_eq!(g.ops.len(), n);
    for (k, &id) in g.ops.iter().enumerate() {
        let op = g.op(id).unwrap();
        assert_eq!(op.name(), format!("n{}", k + 1));
        assert_eq!(op.index(), k);
        assert_eq!(g.input_name(op, 0), format!("n{k}"), "input of node {k}");
    }
    assert!(g.nodes.get(n).is_none());
}

#[test]
fn node_records_decode_as_prost_decodes_them_whatever_their_fields() {
    use prost::encoding::{WireType, encode_key, encode_varint, message, string};
    // Fields in any order, a scalar field given twice (the last one counts), empty strings that are
    // present, the rarely set fields, unknown fields of every wire type (a group among them).
    let mut odd = Vec::new();
    string::encode(2, &"y".to_owned(), &mut odd); // an output before the inputs
    string::encode(1, &"x".to_owned(), &mut odd);
    string::encode(3, &"first".to_owned(), &mut odd);
    string::encode(4, &"Relu".to_owned(), &mut odd);
    string::encode(3, &"second".to_owned(), &mut odd); // name again: the last one counts
    string::encode(1, &String::new(), &mut odd); // an omitted optional input
    string::encode(7, &String::new(), &mut odd); // a domain, present and empty
    string::encode(6, &"doc".to_owned(), &mut odd);
    string::encode(8, &"ov".to_owned(), &mut odd);
    message::encode(
        9,
        &StringStringEntryProto {
            key: Some("k".into()),
            value: Some("v".into()),
        },
        &mut odd,
    );
    message::encode(
        10,
        &NodeDeviceConfigurationProto {
            configuration_id: Some("c".into()),
            ..Default::default()
        },
        &mut odd,
    );
    encode_key(99, WireType::Varint, &mut odd);
    encode_varint(7, &mut odd);
    encode_key(98, WireType::SixtyFourBit, &mut odd);
    odd.extend_from_slice(&[1; 8]);
    encode_key(97, WireType::StartGroup, &mut odd);
    encode_key(1, WireType::Varint, &mut odd);
    encode_varint(5, &mut odd);
    encode_key(97, WireType::EndGroup, &mut odd);
    let mut graph = Vec::new();
    message::encode(1, &node("a", "in"), &mut graph);
    prost::encoding::bytes::encode(1, &odd, &mut graph);
    // A node record over the size decoded straight from the file: copied with its weight left out.
    message::encode(1, &constant("big", big("w", 2)), &mut graph);
    message::encode(1, &NodeProto::default(), &mut graph); // a node of no fields at all
    let mut bytes = ModelProto {
        ir_version: Some(8),
        ..Default::default()
    }
    .encode_to_vec();
    prost::encoding::bytes::encode(7, &graph, &mut bytes);
    let expected = ModelProto::decode(bytes.as_slice()).unwrap();
    let nodes = &expected.graph.as_ref().unwrap().node;
    assert_eq!(nodes.len(), 4);
    assert_eq!(nodes[1].name(), "second");
    assert_eq!(nodes[1].input, ["x", ""]);
    assert_eq!(nodes[1].domain, Some(String::new()));
    assert_eq!(decode_via_file(&bytes), expected);
}

#[test]
fn a_node_record_prost_refuses_is_a_load_error() {
    // Field 1 (input) as a varint: prost refuses the model, and so must the node decoder.
    let mut odd = Vec::new();
    prost::encoding::encode_key(1, prost::encoding::WireType::Varint, &mut odd);
    prost::encoding::encode_varint(3, &mut odd);
    let mut graph = Vec::new();
    prost::encoding::bytes::encode(1, &odd, &mut graph);
    let mut bytes = ModelProto::default().encode_to_vec();
    prost::encoding::bytes::encode(7, &graph, &mut bytes);
    assert!(ModelProto::decode(bytes.as_slice()).is_err());
    let dir = tempdir();
    let path = dir.path().join("m.onnx");
    std::fs::write(&path, &bytes).unwrap();
    let err = format!("{:#}", lint::load(Origin::File(path)).unwrap_err());
    assert!(err.contains("NodeProto.input"), "{err}");
}

#[test]
fn runs_of_small_node_records_end_where_anything_else_starts() {
    use prost::encoding::{bytes as pb_bytes, message, string};
    // The walker notes a run of small node records straight from the mapping and leaves the rest to
    // its general walk: a large record (a Constant holding a weight), another field, a node key
    // written in two bytes (valid protobuf, not the usual one byte) must each end a run, and the
    // nodes keep their order and contents whichever way each was found.
    let mut graph = Vec::new();
    for i in 0..30 {
        message::encode(1, &node(&format!("a{i}"), "x"), &mut graph);
    }
    message::encode(1, &constant("w", big("w", 3)), &mut graph);
    for i in 0..30 {
        message::encode(1, &node(&format!("b{i}"), "x"), &mut graph);
    }
    string::encode(2, &"g".to_owned(), &mut graph);
    let late = node("c0", "x").encode_to_vec();
    graph.extend_from_slice(&[0x8a, 0x00, late.len() as u8]);
    graph.extend_from_slice(&late);
    message::encode(1, &node("c1", "x"), &mut graph);
    let mut bytes = ModelProto {
        ir_version: Some(8),
        ..Default::default()
    }
    .encode_to_vec();
    pb_bytes::encode(7, &graph, &mut bytes);
    let expected = ModelProto::decode(bytes.as_slice()).unwrap();
    assert_eq!(expected.graph.as_ref().unwrap().node.len(), 63);
    assert_eq!(decode_via_file(&bytes), expected);
    // Decoded apart, not by the whole-model fallback that a walk gone wrong ends in.
    let dir = tempdir();
    let path = dir.path().join("runs.onnx");
    std::fs::write(&path, &bytes).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    let map = Bytes::from(bytes.clone());
    use onnx_lint::file::decode::{decode_file_split, decode_file_split_by_reads};
    use onnx_lint::ir::NodeBatch;
    for split in [
        decode_file_split::<NodeBatch>(&file, &map).unwrap(),
        decode_file_split_by_reads::<NodeBatch>(&file, &map).unwrap(),
    ] {
        let batches = split
            .main_nodes
            .expect("the main graph's nodes decoded apart");
        let nodes: Vec<NodeProto> = batches
            .into_iter()
            .flat_map(NodeBatch::into_protos)
            .collect();
        assert_eq!(nodes, expected.graph.as_ref().unwrap().node);
    }

    // A record whose length runs past the graph's end is refused as before: with prost's error.
    let mut cut = graph.clone();
    cut.extend_from_slice(&[0x0a, 0x7f, 0x00]);
    let mut bytes = ModelProto::default().encode_to_vec();
    pb_bytes::encode(7, &cut, &mut bytes);
    let dir = tempdir();
    let path = dir.path().join("cut.onnx");
    std::fs::write(&path, &bytes).unwrap();
    let err = format!("{:#}", lint::load(Origin::File(path)).unwrap_err());
    assert!(err.contains("not an ONNX model"), "{err}");
}
