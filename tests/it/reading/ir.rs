//! The IR built from a model: edges carry input slots, subgraphs resolve outer-scope values, functions
//! can be looked up, and out-of-order node lists are accepted.

use crate::support::proto::{graph, node};
use bytes::Bytes;
use onnx_lint::diagnostics::Code;
use onnx_lint::ir::{Graph, NodeKind, Slot};
use onnx_lint::proto::attribute_proto::AttributeType;
use onnx_lint::proto::*;
use petgraph::visit::{EdgeRef, IntoEdgeReferences};
use prost::Message;

use crate::support::lint::{Loaded, lint_bytes};

fn model(g: GraphProto) -> ModelProto {
    crate::support::proto::model_of(9, None, g)
}

fn load(m: &ModelProto) -> Loaded {
    lint_bytes(Bytes::from(m.encode_to_vec())).expect("decodes")
}

/// Codes of the findings that are not information about the analysis itself.
fn codes(m: &Loaded) -> Vec<Code> {
    findings(m).iter().map(|d| d.code).collect()
}

fn findings(m: &Loaded) -> Vec<&onnx_lint::diagnostics::Diagnostic> {
    m.diagnostics
        .iter()
        .filter(|d| d.severity != onnx_lint::diagnostics::Severity::Info)
        .collect()
}

fn slots_into(g: &Graph, name: &str) -> Vec<(String, Slot)> {
    let id = g
        .ops
        .iter()
        .copied()
        .find(|&n| g.op(n).unwrap().name() == name)
        .unwrap();
    let mut v: Vec<_> = g
        .dag
        .edges_directed(id, petgraph::Direction::Incoming)
        .map(|e| {
            (
                g.value(e.weight().value).name.to_string(),
                e.weight().slot(),
            )
        })
        .collect();
    v.sort_by_key(|(n, s)| format!("{s:?}{n}"));
    v
}

#[test]
fn add_of_a_value_with_itself_is_two_edges_with_their_slots() {
    let m = load(&model(graph(
        vec![node("Add", "add", &["x", "x"], &["y"])],
        &["x"],
        &["y"],
    )));
    assert!(findings(&m).is_empty(), "{:?}", m.diagnostics);
    let g = m.graph.as_ref().unwrap();
    assert_eq!(
        slots_into(g, "add"),
        [
            ("x".to_string(), Slot::Input(0)),
            ("x".to_string(), Slot::Input(1))
        ]
    );
}

#[test]
fn omitted_optional_input_keeps_the_slots_of_the_others() {
    // Clip(x, "", max): the min slot is empty, max stays slot 2.
    let m = load(&model(graph(
        vec![node("Clip", "clip", &["x", "", "hi"], &["y"])],
        &["x", "hi"],
        &["y"],
    )));
    assert!(findings(&m).is_empty(), "{:?}", m.diagnostics);
    let g = m.graph.as_ref().unwrap();
    assert_eq!(
        slots_into(g, "clip"),
        [
            ("x".to_string(), Slot::Input(0)),
            ("hi".to_string(), Slot::Input(2))
        ]
    );
}

#[test]
fn edges_are_listed_node_by_node_then_those_of_names_defined_further_down() {
    // `a` reads `x` and `t`, which `b`, listed after it, defines: `a`'s second input is resolved
    // once every node is in, so its edge comes after those of the inputs defined earlier.
    let m = load(&model(graph(
        vec![
            node("Add", "a", &["x", "t"], &["y"]),
            node("Neg", "b", &["x"], &["t"]),
            node("Mul", "c", &["t", "x"], &["z"]),
        ],
        &["x"],
        &["y", "z"],
    )));
    assert!(findings(&m).is_empty(), "{:?}", m.diagnostics);
    let g = m.graph.as_ref().unwrap();
    let listed: Vec<_> = g
        .dag
        .edge_references()
        .map(|e| {
            (
                g.op(e.target()).unwrap().name().to_owned(),
                g.value(e.weight().value).name.to_owned(),
                e.weight().slot(),
            )
        })
        .collect();
    let edge = |n: &str, v: &str, k: u32| (n.to_owned(), v.to_owned(), Slot::Input(k));
    assert_eq!(
        listed,
        [
            edge("a", "x", 0),
            edge("b", "x", 0),
            edge("c", "t", 0),
            edge("c", "x", 1),
            edge("a", "t", 1),
        ]
    );
}

#[test]
fn nodes_out_of_topological_order_are_accepted_and_ordered() {
    let m = load(&model(graph(
        vec![
            node("Relu", "second", &["t"], &["y"]),
            node("Neg", "first", &["x"], &["t"]),
        ],
        &["x"],
        &["y"],
    )));
    assert!(findings(&m).is_empty(), "{:?}", m.diagnostics);
    let g = m.graph.as_ref().unwrap();
    let order: Vec<_> = g
        .ops_in_order()
        .map(|(_, op)| op.name().to_owned())
        .collect();
    assert_eq!(order, ["first", "second"]);
}

fn if_node(name: &str, cond: &str, then: GraphProto, els: GraphProto, out: &str) -> NodeProto {
    let attr = |n: &str, g: GraphProto| AttributeProto {
        name: Some(n.into()),
        r#type: Some(AttributeType::Graph as i32),
        g: Some(g),
        ..Default::default()
    };
    NodeProto {
        attribute: vec![attr("then_branch", then), attr("else_branch", els)],
        ..node("If", name, &[cond], &[out])
    }
}

#[test]
fn subgraph_reads_outer_values_through_a_capture_edge() {
    // The outer value `b` is produced by a node listed AFTER the If: the capture edge orders them.
    let then = graph(
        vec![node("Add", "inner_add", &["x", "b"], &["t"])],
        &[],
        &["t"],
    );
    let els = graph(
        vec![node("Identity", "inner_id", &["x"], &["e"])],
        &[],
        &["e"],
    );
    let m = load(&model(graph(
        vec![
            if_node("if", "c", then, els, "y"),
            node("Neg", "make_b", &["x"], &["b"]),
        ],
        &["x", "c"],
        &["y"],
    )));
    assert!(findings(&m).is_empty(), "{:?}", m.diagnostics);
    let g = m.graph.as_ref().unwrap();
    let order: Vec<_> = g
        .ops_in_order()
        .map(|(_, op)| op.name().to_owned())
        .collect();
    assert_eq!(order, ["make_b", "if"]);
    let captured: Vec<_> = slots_into(g, "if")
        .into_iter()
        .filter(|(_, s)| *s == Slot::Capture)
        .map(|(n, _)| n)
        .collect();
    assert_eq!(captured, ["b", "x"]);
    let if_op = g.op(g.ops[0]).unwrap();
    let then_g = &if_op.subgraphs()[0].graph;
    assert_eq!(then_g.path, "main/if/then_branch");
    let b = then_g.lookup("b").unwrap();
    assert!(matches!(
        then_g.dag[then_g.value(b).producer.0].kind,
        NodeKind::Outer
    ));
    assert_eq!(m.graphs().len(), 3);
}

#[test]
fn undefined_name_in_a_subgraph_is_reported_with_its_path() {
    let then = graph(
        vec![node("Add", "inner", &["x", "nowhere"], &["t"])],
        &[],
        &["t"],
    );
    let els = graph(vec![node("Identity", "id", &["x"], &["e"])], &[], &["e"]);
    let m = load(&model(graph(
        vec![if_node("cond", "c", then, els, "y")],
        &["x", "c"],
        &["y"],
    )));
    assert_eq!(codes(&m), [Code::UndefinedValue]);
    let d = findings(&m)[0];
    assert_eq!(d.graph, "main/cond/then_branch");
    assert_eq!(d.node.as_deref(), Some("inner"));
    assert!(d.message.contains("'nowhere'"));
}

#[test]
fn model_local_functions_are_kept_and_found_by_domain_and_name() {
    let mut m = model(graph(
        vec![NodeProto {
            domain: Some("custom".into()),
            ..node("Twice", "call", &["x"], &["y"])
        }],
        &["x"],
        &["y"],
    ));
    m.opset_import.push(OperatorSetIdProto {
        domain: Some("custom".into()),
        version: Some(1),
    });
    m.functions.push(FunctionProto {
        name: Some("Twice".into()),
        domain: Some("custom".into()),
        input: vec!["a".into()],
        output: vec!["b".into()],
        node: vec![node("Add", "double", &["a", "a"], &["b"])],
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        ..Default::default()
    });
    let m = load(&m);
    assert!(findings(&m).is_empty(), "{:?}", m.diagnostics);
    let f = m.function("custom", "Twice", "").expect("function is kept");
    assert_eq!(f.body.path, "function:custom.Twice");
    assert_eq!(f.body.ops.len(), 1);
    assert!(m.function("custom", "Thrice", "").is_none());
}

#[test]
fn initializer_bytes_are_slices_of_the_source_not_copies() {
    let weights = vec![7u8; 4096];
    let mut g = graph(
        vec![node("Add", "add", &["x", "w"], &["y"])],
        &["x"],
        &["y"],
    );
    g.initializer.push(TensorProto {
        name: Some("w".into()),
        data_type: Some(1),
        dims: vec![1024],
        raw_data: Some(Bytes::from(weights)),
        ..Default::default()
    });
    let bytes = Bytes::from(model(g).encode_to_vec());
    let m = lint_bytes(bytes.clone()).unwrap();
    assert!(findings(&m).is_empty(), "{:?}", m.diagnostics);
    let raw = m.graph.as_ref().unwrap().header.initializer[0]
        .raw_data
        .as_ref()
        .unwrap();
    let src = bytes.as_ptr_range();
    assert!(
        src.contains(&raw.as_ptr()),
        "raw_data points into the source buffer"
    );
}

#[test]
fn short_raw_data_and_negative_dims_are_reported() {
    let mut g = graph(
        vec![node("Add", "add", &["x", "w"], &["y"])],
        &["x"],
        &["y"],
    );
    g.initializer.push(TensorProto {
        name: Some("w".into()),
        data_type: Some(1),
        dims: vec![1024],
        raw_data: Some(Bytes::from(vec![0u8; 4])),
        ..Default::default()
    });
    g.initializer.push(TensorProto {
        name: Some("neg".into()),
        data_type: Some(1),
        dims: vec![-3],
        ..Default::default()
    });
    g.initializer.push(TensorProto {
        name: Some("huge".into()),
        data_type: Some(1),
        dims: vec![i64::MAX, 4],
        raw_data: Some(Bytes::from(vec![0u8; 4])),
        ..Default::default()
    });
    let m = load(&model(g));
    assert_eq!(codes(&m), [Code::TensorData, Code::BadDims, Code::BadDims]);
    assert!(
        m.diagnostics[0]
            .message
            .contains("raw_data is 4 bytes, shorter than the 4096 bytes")
    );
    assert!(m.diagnostics[1].message.contains("negative (-3)"));
    assert!(m.diagnostics[2].message.contains("overflows"));
}

#[test]
fn attribute_walks_visit_the_nodes_with_attributes_in_source_order_and_only_them() {
    // Two attribute-less nodes around each node with attributes: the tensor and type walks skip the
    // former, and still find a bad tensor on the last node.
    let attr = |name: &str, t: TensorProto| AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Tensor as i32),
        t: Some(t),
        ..Default::default()
    };
    let short = TensorProto {
        data_type: Some(1),
        dims: vec![8],
        raw_data: Some(Bytes::from(vec![0u8; 4])),
        ..Default::default()
    };
    let mut first = node("Constant", "k1", &[], &["k1"]);
    first.attribute.push(attr(
        "value",
        TensorProto {
            data_type: Some(1),
            dims: vec![1],
            float_data: vec![1.0],
            ..Default::default()
        },
    ));
    let mut last = node("Constant", "k2", &[], &["k2"]);
    last.attribute.push(attr("value", short));
    let m = load(&model(graph(
        vec![
            node("Neg", "a", &["x"], &["p"]),
            first,
            node("Add", "b", &["p", "k1"], &["q"]),
            node("Relu", "c", &["q"], &["r"]),
            last,
            node("Add", "d", &["r", "k2"], &["y"]),
        ],
        &["x"],
        &["y"],
    )));
    let g = m.graph.as_ref().unwrap();
    let with: Vec<&str> = g.ops_with_attributes().map(|op| op.name()).collect();
    assert_eq!(with, ["k1", "k2"]);
    let filtered: Vec<&str> = g
        .ops_in_source_order()
        .filter(|op| !op.attributes().is_empty())
        .map(|op| op.name())
        .collect();
    assert_eq!(with, filtered);
    let bad: Vec<_> = findings(&m)
        .into_iter()
        .filter(|d| d.code == Code::TensorData)
        .collect();
    assert_eq!(bad.len(), 1, "{:?}", m.diagnostics);
    assert!(bad[0].message.contains("node 'k2'"), "{}", bad[0].message);
}

#[test]
fn subgraph_output_named_like_an_outer_value_is_a_duplicate_definition() {
    let then = graph(vec![node("Neg", "redefine", &["x"], &["c"])], &[], &["c"]);
    let els = graph(vec![node("Identity", "id", &["x"], &["e"])], &[], &["e"]);
    let m = load(&model(graph(
        vec![if_node("branch", "c", then, els, "y")],
        &["x", "c"],
        &["y"],
    )));
    assert_eq!(codes(&m), [Code::DuplicateDefinition]);
    let d = findings(&m)[0];
    assert_eq!(d.graph, "main/branch/then_branch");
    assert_eq!(d.node.as_deref(), Some("redefine"));
    assert!(d.message.contains("'c'") && d.message.contains("enclosing graph"));
}

fn function(name: &str, calls: &str) -> FunctionProto {
    FunctionProto {
        name: Some(name.into()),
        domain: Some("custom".into()),
        input: vec!["a".into()],
        output: vec!["b".into()],
        node: vec![NodeProto {
            domain: Some("custom".into()),
            ..node(calls, &format!("{name}_calls_{calls}"), &["a"], &["b"])
        }],
        opset_import: vec![OperatorSetIdProto {
            domain: Some("custom".into()),
            version: Some(1),
        }],
        ..Default::default()
    }
}

fn calling_model(functions: Vec<FunctionProto>, entry: &str) -> ModelProto {
    let mut m = model(graph(
        vec![NodeProto {
            domain: Some("custom".into()),
            ..node(entry, "call", &["x"], &["y"])
        }],
        &["x"],
        &["y"],
    ));
    m.opset_import.push(OperatorSetIdProto {
        domain: Some("custom".into()),
        version: Some(1),
    });
    m.functions = functions;
    m
}

#[test]
fn a_function_calling_itself_is_g009_and_inference_terminates() {
    let m = load(&calling_model(vec![function("Loop", "Loop")], "Loop"));
    assert_eq!(codes(&m), [Code::RecursiveFunction]);
    assert!(findings(&m)[0].message.contains("custom.Loop calls itself"));
}

#[test]
fn functions_calling_each_other_in_a_cycle_are_g009_once() {
    let fs = vec![function("A", "B"), function("B", "C"), function("C", "A")];
    let m = load(&calling_model(fs, "A"));
    assert_eq!(codes(&m), [Code::RecursiveFunction]);
    let msg = &findings(&m)[0].message;
    assert!(
        msg.contains("custom.A -> custom.B -> custom.C -> custom.A"),
        "{msg}"
    );
    let ok = vec![function("A", "B"), function("B", "Relu")];
    let fine = load(&calling_model(ok, "A"));
    assert!(!codes(&fine).contains(&Code::RecursiveFunction));
}

#[test]
fn a_ring_of_a_hundred_thousand_nodes_is_one_cycle_not_a_stack_overflow() {
    // The cycle report once recursed per node of the ring: on a test thread's 2 MiB stack a ring of
    // 50,000 nodes overflowed it (the process aborts, which no caller can catch).
    let n = 100_000;
    let nodes: Vec<NodeProto> = (0..n)
        .map(|i| {
            node(
                "Relu",
                &format!("ring{i}"),
                &[&format!("v{}", (i + n - 1) % n)],
                &[&format!("v{i}")],
            )
        })
        .collect();
    let m = load(&model(graph(nodes, &[], &["v0"])));
    let cycles: Vec<_> = m
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::Cycle)
        .collect();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(
        cycles[0].message.contains("100000 nodes form a cycle"),
        "{}",
        cycles[0].message
    );
}
