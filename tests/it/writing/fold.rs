//! `onnx-lint fold`, the inverse of `expand`: `fold(expand(m))` gives back `m` for the example models,
//! and hand-made models show which Expands fold (their readers broadcast to the same result anyway)
//! and which must stay (they enlarge the result, feed a graph output, a subgraph, a non-broadcasting
//! op or a non-broadcast slot of PRelu or Gemm, or their shapes are not known well enough).

use crate::support::binary::{self};
use crate::support::paths::{root, s, tempdir};
use crate::support::proto::node;
use onnx_lint::proto::attribute_proto::AttributeType;
use onnx_lint::proto::tensor_proto::DataType;
use onnx_lint::proto::tensor_shape_proto::{Dimension, dimension};
use onnx_lint::proto::{
    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto,
    TensorShapeProto, TypeProto, ValueInfoProto, type_proto,
};
use prost::Message;

/// Runs with `args`: (exit status, stderr, which must be UTF-8).
fn run(args: &[&str]) -> (i32, String) {
    let r = binary::run(args);
    let stderr = String::from_utf8(r.stderr_bytes).expect("stderr is UTF-8");
    (r.code, stderr)
}

/// Nodes of every graph of the model: main graph, subgraphs, function bodies.
fn node_count(m: &ModelProto) -> usize {
    fn nodes(list: &[NodeProto]) -> usize {
        list.iter()
            .map(|n| {
                1 + n
                    .attribute
                    .iter()
                    .flat_map(|a| a.g.iter().chain(&a.graphs))
                    .map(|g| nodes(&g.node))
                    .sum::<usize>()
            })
            .sum()
    }
    m.graph.as_ref().map_or(0, |g| nodes(&g.node))
        + m.functions.iter().map(|f| nodes(&f.node)).sum::<usize>()
}

/// Folds `model` (written to a temporary file); returns (exit status, stderr, the output model).
fn fold(model: &ModelProto) -> (i32, String, Option<ModelProto>) {
    let dir = tempdir();
    let (src, out) = (dir.path().join("in.onnx"), dir.path().join("out.onnx"));
    std::fs::write(&src, model.encode_to_vec()).unwrap();
    let (code, stderr) = run(&["fold", s(&src), "-o", s(&out)]);
    let folded = std::fs::read(&out)
        .ok()
        .map(|b| ModelProto::decode(b.as_slice()).unwrap());
    (code, stderr, folded)
}

/// Folds a model that must load and fold cleanly; returns (stderr, the output model).
fn fold_ok(model: &ModelProto) -> (String, ModelProto) {
    let (code, stderr, folded) = fold(model);
    assert_eq!(code, 0, "{stderr}");
    (stderr, folded.unwrap())
}

fn dims(shape: &[&str]) -> TensorShapeProto {
    TensorShapeProto {
        dim: shape
            .iter()
            .map(|d| Dimension {
                value: match d.parse::<i64>() {
                    _ if *d == "?" => None,
                    Ok(n) => Some(dimension::Value::DimValue(n)),
                    Err(_) => Some(dimension::Value::DimParam(d.to_string())),
                },
                ..Default::default()
            })
            .collect(),
    }
}

/// A float tensor value of this shape (sizes, symbols such as "N", or "?" for a dim with neither).
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

/// A float value whose type is declared but not its shape (a graph output left to inference).
fn untyped(name: &str) -> ValueInfoProto {
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

fn int64s(name: &str, values: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        data_type: Some(DataType::Int64 as i32),
        dims: vec![values.len() as i64],
        int64_data: values.to_vec(),
        ..Default::default()
    }
}

fn model_at(
    opset: i64,
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: &[&str],
) -> ModelProto {
    ModelProto {
        ir_version: Some(if opset >= 8 { 8 } else { 3 }),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(opset),
        }],
        graph: Some(GraphProto {
            node: nodes,
            name: Some("g".into()),
            input: inputs,
            output: outputs.iter().map(|n| untyped(n)).collect(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// An opset-17 model of `nodes`, graph inputs `inputs`, outputs `outputs`.
fn model(nodes: Vec<NodeProto>, inputs: Vec<ValueInfoProto>, outputs: &[&str]) -> ModelProto {
    model_at(17, nodes, inputs, outputs)
}

/// `model` plus int64 initializers.
fn with_inits(mut m: ModelProto, inits: Vec<TensorProto>) -> ModelProto {
    m.graph.as_mut().unwrap().initializer = inits;
    m
}

fn main_nodes(m: &ModelProto) -> &[NodeProto] {
    &m.graph.as_ref().unwrap().node
}

fn op_types(m: &ModelProto) -> Vec<&str> {
    main_nodes(m).iter().map(|n| n.op_type()).collect()
}

/// The `left:` line of stderr about node `name`, if any.
fn left_line<'a>(stderr: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("node '{name}' ");
    stderr
        .lines()
        .find(|l| l.starts_with("left: ") && l.contains(&key))
}

fn assert_left(stderr: &str, name: &str, why: &str, folded: &ModelProto, before: usize) {
    let line =
        left_line(stderr, name).unwrap_or_else(|| panic!("no left line for {name}:\n{stderr}"));
    assert!(line.contains(why), "expected '{why}' in: {line}");
    assert_eq!(node_count(folded), before, "nothing removed:\n{stderr}");
    assert!(
        stderr.contains("fold: 0 redundant broadcasts removed"),
        "{stderr}"
    );
}

#[test]
fn fold_of_expand_gives_back_each_example_model() {
    let dir = tempdir();
    let mut rewritten = 0;
    for entry in std::fs::read_dir(root().join("models")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "onnx") {
            continue;
        }
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let (expanded, folded) = (dir.path().join("e.onnx"), dir.path().join("f.onnx"));
        let (code, stderr) = run(&["expand", s(&path), "-o", s(&expanded)]);
        assert_eq!(code, 0, "{name}: {stderr}");
        let (code, stderr) = run(&["fold", s(&expanded), "-o", s(&folded)]);
        assert_eq!(code, 0, "{name}: {stderr}");
        let original = std::fs::read(&path).unwrap();
        let e = ModelProto::decode(std::fs::read(&expanded).unwrap().as_slice()).unwrap();
        let f = ModelProto::decode(std::fs::read(&folded).unwrap().as_slice()).unwrap();
        let m = ModelProto::decode(original.as_slice()).unwrap();
        if node_count(&e) == node_count(&m) {
            continue;
        }
        if name == "legacy_axis" {
            // Opset 6: expand removed the `broadcast` attributes, without which the nodes do not
            // broadcast; folding would need them back. Left, and said so.
            assert_eq!(node_count(&f), node_count(&e), "{stderr}");
            assert!(stderr.contains("only with broadcast=1"), "{stderr}");
            continue;
        }
        rewritten += 1;
        assert_eq!(node_count(&f), node_count(&m), "{name}:\n{stderr}");
        // Nodes removed, initializers dropped and inputs renamed back: the original, byte for byte.
        assert!(
            std::fs::read(&folded).unwrap() == original,
            "{name}: fold(expand(m)) is not byte-identical to m:\n{stderr}"
        );
        // The example models have no redundant Expand of their own.
        let (code, stderr) = run(&["fold", s(&path), "-o", s(&folded)]);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            std::fs::read(&folded).unwrap() == original,
            "{name}: {stderr}"
        );
    }
    assert!(rewritten >= 5, "expand rewrote {rewritten} example models");
}

#[test]
fn summary_writes_the_same_models_and_only_the_closing_counts() {
    // `--summary` leaves out the line per change: the models written are the same bytes, and what
    // is left of the report is its last lines, the counts.
    let dir = tempdir();
    let model = root().join("models/tiny_transformer.onnx");
    let out = |name: &str| dir.path().join(name);
    let (code, full) = run(&["expand", s(&model), "-o", s(&out("e.onnx"))]);
    assert_eq!(code, 0, "{full}");
    let (code, brief) = run(&["expand", "--summary", s(&model), "-o", s(&out("e2.onnx"))]);
    assert_eq!(code, 0, "{brief}");
    let (code, full_fold) = run(&["fold", s(&out("e.onnx")), "-o", s(&out("f.onnx"))]);
    assert_eq!(code, 0, "{full_fold}");
    let (code, brief_fold) = run(&[
        "fold",
        "--summary",
        s(&out("e.onnx")),
        "-o",
        s(&out("f2.onnx")),
    ]);
    assert_eq!(code, 0, "{brief_fold}");
    for (a, b) in [("e.onnx", "e2.onnx"), ("f.onnx", "f2.onnx")] {
        assert!(
            std::fs::read(out(a)).unwrap() == std::fs::read(out(b)).unwrap(),
            "{a} and {b} differ"
        );
    }
    for (full, brief, count) in [
        (&full, &brief, "implicit broadcasts made explicit"),
        (&full_fold, &brief_fold, "redundant broadcasts removed"),
    ] {
        let (all, kept): (Vec<&str>, Vec<&str>) = (full.lines().collect(), brief.lines().collect());
        assert!(all.len() > kept.len() + 1, "{full}");
        assert_eq!(
            all[all.len() - kept.len()..],
            kept[..],
            "{full}\n---\n{brief}"
        );
        assert!(kept.iter().any(|l| l.contains(count)), "{brief}");
        assert!(!kept.iter().any(|l| l.contains(" node '")), "{brief}");
    }
}

#[test]
fn expand_to_the_broadcast_result_folds() {
    // Add(Expand(a [1, 4], [3, 4]), b [3, 4]): b makes the result [3, 4] anyway.
    let m = with_inits(
        model(
            vec![
                node("Expand", "e", &["a", "s"], &["ea"]),
                node("Add", "add", &["ea", "b"], &["y"]),
            ],
            vec![float("a", &["1", "4"]), float("b", &["3", "4"])],
            &["y"],
        ),
        vec![int64s("s", &[3, 4])],
    );
    let (stderr, f) = fold_ok(&m);
    assert_eq!(op_types(&f), ["Add"], "{stderr}");
    assert_eq!(main_nodes(&f)[0].input, ["a", "b"]);
    // The shape initializer was read by the Expand only.
    assert!(f.graph.as_ref().unwrap().initializer.is_empty(), "{stderr}");
    assert!(
        stderr.contains("fold: graph main, node 'e' (Expand): removed, 'add' (Add) input 0 read 'a' [1, 4] directly (broadcast to [3, 4] anyway)"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "fold: 1 redundant broadcasts removed (1 nodes, 1 initializers removed), 0 left"
        ),
        "{stderr}"
    );
}

#[test]
fn expand_that_enlarges_the_result_stays() {
    // Add(Expand(a [1, 4], [3, 4]), b [1, 4]): without the Expand the result would be [1, 4].
    let m = with_inits(
        model(
            vec![
                node("Expand", "e", &["a", "s"], &["ea"]),
                node("Add", "add", &["ea", "b"], &["y"]),
            ],
            vec![float("a", &["1", "4"]), float("b", &["1", "4"])],
            &["y"],
        ),
        vec![int64s("s", &[3, 4])],
    );
    let (stderr, f) = fold_ok(&m);
    assert_left(
        &stderr,
        "e",
        "the node makes the result [3, 4]; without it the result would be [1, 4]",
        &f,
        2,
    );
    assert_eq!(f.graph.unwrap().initializer.len(), 1);
}

#[test]
fn expand_feeding_a_graph_output_stays() {
    let m = with_inits(
        model(
            vec![
                node("Expand", "e", &["a", "s"], &["ea"]),
                node("Add", "add", &["ea", "b"], &["y"]),
            ],
            vec![float("a", &["1", "4"]), float("b", &["3", "4"])],
            &["y", "ea"],
        ),
        vec![int64s("s", &[3, 4])],
    );
    let (stderr, f) = fold_ok(&m);
    assert_left(&stderr, "e", "its output 'ea' is a graph output", &f, 2);
}

#[test]
fn expand_feeding_a_non_broadcasting_op_stays() {
    // Relu(Expand(a)) sees [3, 4]; without the Expand it would see [1, 4]. The Add reading it too
    // would allow the fold, but every reader must.
    let m = with_inits(
        model(
            vec![
                node("Expand", "e", &["a", "s"], &["ea"]),
                node("Add", "add", &["ea", "b"], &["y"]),
                node("Relu", "relu", &["ea"], &["z"]),
            ],
            vec![float("a", &["1", "4"]), float("b", &["3", "4"])],
            &["y", "z"],
        ),
        vec![int64s("s", &[3, 4])],
    );
    let (stderr, f) = fold_ok(&m);
    assert_left(
        &stderr,
        "e",
        "'relu' (Relu) input 0: Relu does not broadcast its inputs",
        &f,
        3,
    );
}

#[test]
fn expand_read_by_a_subgraph_stays() {
    let branch = |name: &str| GraphProto {
        node: vec![node("Identity", name, &["ea"], &[&format!("{name}_out")])],
        name: Some(name.into()),
        output: vec![untyped(&format!("{name}_out"))],
        ..Default::default()
    };
    let attr = |name: &str, g: GraphProto| AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Graph as i32),
        g: Some(g),
        ..Default::default()
    };
    let mut iff = node("If", "if", &["c"], &["z"]);
    iff.attribute = vec![
        attr("then_branch", branch("t")),
        attr("else_branch", branch("f")),
    ];
    let mut cond = float("c", &[]);
    if let Some(type_proto::Value::TensorType(t)) =
        cond.r#type.as_mut().and_then(|t| t.value.as_mut())
    {
        t.elem_type = Some(DataType::Bool as i32);
    }
    let m = with_inits(
        model(
            vec![
                node("Expand", "e", &["a", "s"], &["ea"]),
                node("Add", "add", &["ea", "b"], &["y"]),
                iff,
            ],
            vec![float("a", &["1", "4"]), float("b", &["3", "4"]), cond],
            &["y", "z"],
        ),
        vec![int64s("s", &[3, 4])],
    );
    let (stderr, f) = fold_ok(&m);
    // 3 nodes in the main graph, one in each branch.
    assert_left(&stderr, "e", "a subgraph of 'if' (If) reads 'ea'", &f, 5);
}

#[test]
fn prelu_slope_folds_but_prelu_x_stays() {
    // The slope [4] broadcasts to X [2, 3, 4] unidirectionally: the Expand of it is redundant.
    let slope = with_inits(
        model(
            vec![
                node("Expand", "e", &["slope", "s"], &["es"]),
                node("PRelu", "prelu", &["x", "es"], &["y"]),
            ],
            vec![float("x", &["2", "3", "4"]), float("slope", &["4"])],
            &["y"],
        ),
        vec![int64s("s", &[2, 3, 4])],
    );
    let (stderr, f) = fold_ok(&slope);
    assert_eq!(op_types(&f), ["PRelu"], "{stderr}");
    assert_eq!(main_nodes(&f)[0].input, ["x", "slope"]);

    // X is not broadcast: PRelu(Expand(x [1, 4], [3, 4]), slope [3, 4]) without the Expand would
    // have a slope larger than X, which is invalid.
    let x = with_inits(
        model(
            vec![
                node("Expand", "e", &["x", "s"], &["ex"]),
                node("PRelu", "prelu", &["ex", "slope"], &["y"]),
            ],
            vec![float("x", &["1", "4"]), float("slope", &["3", "4"])],
            &["y"],
        ),
        vec![int64s("s", &[3, 4])],
    );
    let (stderr, f) = fold_ok(&x);
    assert_left(&stderr, "e", "PRelu does not broadcast input 0", &f, 2);
}

#[test]
fn gemm_c_folds_but_gemm_a_stays() {
    let gemm = |a: &str, c: &str| {
        let mut n = node("Gemm", "gemm", &[a, "b", c], &["y"]);
        n.attribute.push(AttributeProto {
            name: Some("alpha".into()),
            r#type: Some(AttributeType::Float as i32),
            f: Some(1.0),
            ..Default::default()
        });
        n
    };
    // C [4] expanded to [M, N] = [2, 4]: Gemm broadcasts C to [M, N] itself.
    let c = with_inits(
        model(
            vec![node("Expand", "e", &["c", "s"], &["ec"]), gemm("a", "ec")],
            vec![
                float("a", &["2", "3"]),
                float("b", &["3", "4"]),
                float("c", &["4"]),
            ],
            &["y"],
        ),
        vec![int64s("s", &[2, 4])],
    );
    let (stderr, f) = fold_ok(&c);
    assert_eq!(op_types(&f), ["Gemm"], "{stderr}");
    assert_eq!(main_nodes(&f)[0].input, ["a", "b", "c"]);

    // A is a matrix operand, not broadcast: Expand(a [1, 3], [2, 3]) changes M.
    let a = with_inits(
        model(
            vec![node("Expand", "e", &["a", "s"], &["ea"]), gemm("ea", "c")],
            vec![
                float("a", &["1", "3"]),
                float("b", &["3", "4"]),
                float("c", &["2", "4"]),
            ],
            &["y"],
        ),
        vec![int64s("s", &[2, 3])],
    );
    let (stderr, f) = fold_ok(&a);
    assert_left(&stderr, "e", "Gemm does not broadcast input 0", &f, 2);
}

#[test]
fn symbolic_target_computed_at_run_time_folds_with_its_shape_node() {
    // expand's form for symbolic shapes: Add(x [N, 4], Expand(b [4], Shape(x))).
    let m = model(
        vec![
            node("Shape", "sh", &["x"], &["sx"]),
            node("Expand", "e", &["b", "sx"], &["eb"]),
            node("Add", "add", &["x", "eb"], &["y"]),
        ],
        vec![float("x", &["N", "4"]), float("b", &["4"])],
        &["y"],
    );
    let (stderr, f) = fold_ok(&m);
    assert_eq!(op_types(&f), ["Add"], "{stderr}");
    assert!(
        stderr.contains(
            "fold: graph main, node 'sh' (Shape): removed, only removed nodes read its outputs"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("(2 nodes, 0 initializers removed)"),
        "{stderr}"
    );
}

#[test]
fn shape_input_read_by_another_node_stays() {
    // The Shape also feeds a Reshape, so only the Expand goes.
    let m = model(
        vec![
            node("Shape", "sh", &["x"], &["sx"]),
            node("Expand", "e", &["b", "sx"], &["eb"]),
            node("Add", "add", &["x", "eb"], &["y"]),
            node("Reshape", "r", &["y", "sx"], &["z"]),
        ],
        vec![float("x", &["N", "4"]), float("b", &["4"])],
        &["z"],
    );
    let (stderr, f) = fold_ok(&m);
    assert_eq!(op_types(&f), ["Shape", "Add", "Reshape"], "{stderr}");
}

#[test]
fn unknown_result_stays() {
    // x has an unknown first dim, so the result's is unknown too: nothing proves that the Expand's
    // 3 is not what makes it 3.
    let m = with_inits(
        model(
            vec![
                node("Expand", "e", &["b", "s"], &["eb"]),
                node("Add", "add", &["x", "eb"], &["y"]),
            ],
            vec![float("x", &["?", "4"]), float("b", &["4"])],
            &["y"],
        ),
        vec![int64s("s", &[3, 4])],
    );
    let (stderr, f) = fold_ok(&m);
    assert_left(&stderr, "e", "not known well enough", &f, 2);
}

#[test]
fn a_symbol_that_may_be_1_does_not_prove_the_result() {
    // Add(x [N, 4], Expand(b [4], [3, 4])) is [3, 4] (N is 1 or 3); without the Expand it would be
    // [N, 4], which differs when N is 1.
    let m = with_inits(
        model(
            vec![
                node("Expand", "e", &["b", "s"], &["eb"]),
                node("Add", "add", &["x", "eb"], &["y"]),
            ],
            vec![float("x", &["N", "4"]), float("b", &["4"])],
            &["y"],
        ),
        vec![int64s("s", &[3, 4])],
    );
    let (stderr, f) = fold_ok(&m);
    assert_left(&stderr, "e", "without it the result would be [N, 4]", &f, 2);
}

#[test]
fn an_unknown_target_folds_when_the_other_input_fixes_the_result() {
    // The target shape is a graph input, but x [3, 4] makes the result [3, 4] whatever it is (in
    // every run where the model is valid: its first value must be 1 or 3).
    let mut s = float("s", &["2"]);
    if let Some(type_proto::Value::TensorType(t)) = s.r#type.as_mut().and_then(|t| t.value.as_mut())
    {
        t.elem_type = Some(DataType::Int64 as i32);
    }
    let m = model(
        vec![
            node("Expand", "e", &["b", "s"], &["eb"]),
            node("Add", "add", &["x", "eb"], &["y"]),
        ],
        vec![float("x", &["3", "4"]), float("b", &["4"]), s],
        &["y"],
    );
    let (stderr, f) = fold_ok(&m);
    assert_eq!(op_types(&f), ["Add"], "{stderr}");
    // The graph input stays an input, unread.
    assert_eq!(f.graph.unwrap().input.len(), 3);
}

#[test]
fn a_chain_of_expands_folds_in_one_run_and_fold_is_idempotent() {
    let m = with_inits(
        model(
            vec![
                node("Expand", "e1", &["a", "s1"], &["a1"]),
                node("Expand", "e2", &["a1", "s2"], &["a2"]),
                node("Mul", "mul", &["a2", "b"], &["y"]),
            ],
            vec![float("a", &["4"]), float("b", &["3", "4"])],
            &["y"],
        ),
        vec![int64s("s1", &[1, 4]), int64s("s2", &[3, 4])],
    );
    let (stderr, f) = fold_ok(&m);
    assert_eq!(op_types(&f), ["Mul"], "{stderr}");
    assert_eq!(main_nodes(&f)[0].input, ["a", "b"]);
    assert!(f.graph.as_ref().unwrap().initializer.is_empty(), "{stderr}");
    let (again, g) = fold_ok(&f);
    assert!(
        again.contains("fold: 0 redundant broadcasts removed"),
        "{again}"
    );
    assert_eq!(g, f);
}

#[test]
fn two_expands_into_one_node_fold_only_while_the_result_holds() {
    // Add(Expand(a [1, 4]), Expand(b [1, 4])) to [3, 4]: one Expand may go, not both.
    let m = with_inits(
        model(
            vec![
                node("Expand", "ea", &["a", "s"], &["a2"]),
                node("Expand", "eb", &["b", "s"], &["b2"]),
                node("Add", "add", &["a2", "b2"], &["y"]),
            ],
            vec![float("a", &["1", "4"]), float("b", &["1", "4"])],
            &["y"],
        ),
        vec![int64s("s", &[3, 4])],
    );
    let (stderr, f) = fold_ok(&m);
    assert_eq!(node_count(&f), 2, "{stderr}");
    assert!(
        stderr.contains("fold: 1 redundant broadcasts removed"),
        "{stderr}"
    );
    // The initializer is still read by the Expand that stays.
    assert_eq!(f.graph.unwrap().initializer.len(), 1);
}

/// Expands then folds `m`; returns (the expanded model, fold's stderr, the folded model's bytes).
fn expand_then_fold(m: &ModelProto) -> (ModelProto, String, Vec<u8>) {
    let dir = tempdir();
    let (src, e, f) = (
        dir.path().join("m.onnx"),
        dir.path().join("e.onnx"),
        dir.path().join("f.onnx"),
    );
    std::fs::write(&src, m.encode_to_vec()).unwrap();
    let (code, stderr) = run(&["expand", s(&src), "-o", s(&e)]);
    assert_eq!(code, 0, "{stderr}");
    let expanded = ModelProto::decode(std::fs::read(&e).unwrap().as_slice()).unwrap();
    let (code, stderr) = run(&["fold", s(&e), "-o", s(&f)]);
    assert_eq!(code, 0, "{stderr}");
    (expanded, stderr, std::fs::read(&f).unwrap())
}

#[test]
fn opset_7_reshape_and_tile_from_expand_fold() {
    // Opset 7 broadcasts numpy-style but has no Expand: expand writes Reshape + Tile.
    let mut m = model_at(
        7,
        vec![node("Add", "add", &["a", "b"], &["y"])],
        vec![float("a", &["2", "3", "4"]), float("b", &["4"])],
        &["y"],
    );
    m.ir_version = Some(4);
    let (expanded, stderr, folded) = expand_then_fold(&m);
    assert_eq!(op_types(&expanded), ["Reshape", "Tile", "Add"]);
    assert!(
        folded == m.encode_to_vec(),
        "fold(expand(m)) is not m:\n{stderr}"
    );

    // IR 3: expand listed its shape initializers as graph inputs too; those stay (the model's inputs
    // do not change), with a word, and the nodes go.
    m.ir_version = Some(3);
    let (_, stderr, folded) = expand_then_fold(&m);
    let folded = ModelProto::decode(folded.as_slice()).unwrap();
    assert_eq!(op_types(&folded), ["Add"], "{stderr}");
    assert_eq!(main_nodes(&folded)[0].input, ["a", "b"]);
    assert!(
        stderr.contains("it is also a graph input (as IR < 4 requires)"),
        "{stderr}"
    );
}

#[test]
fn a_tile_that_really_tiles_is_not_a_broadcast() {
    // Tile of a [2] axis repeats values in a way no broadcast does: not a candidate, not reported.
    let m = with_inits(
        model_at(
            7,
            vec![
                node("Tile", "t", &["a", "r"], &["at"]),
                node("Add", "add", &["at", "b"], &["y"]),
            ],
            vec![float("a", &["3", "2"]), float("b", &["3", "4"])],
            &["y"],
        ),
        vec![int64s("r", &[1, 2])],
    );
    let (stderr, f) = fold_ok(&m);
    assert_eq!(node_count(&f), 2, "{stderr}");
    assert!(left_line(&stderr, "t").is_none(), "{stderr}");
}

#[test]
fn exit_statuses() {
    // A broadcast error (E1): nothing written, exit 1.
    let bad = model(
        vec![node("Add", "add", &["a", "b"], &["y"])],
        vec![float("a", &["3", "4"]), float("b", &["5"])],
        &["y"],
    );
    let (code, stderr, out) = fold(&bad);
    assert_eq!(code, 1, "{stderr}");
    assert!(out.is_none());
    assert!(stderr.contains("nothing was written"), "{stderr}");
    // Not a model: exit 2.
    let dir = tempdir();
    let junk = dir.path().join("junk.onnx");
    std::fs::write(&junk, b"\xff\xff\xff").unwrap();
    let (code, _) = run(&["fold", s(&junk), "-o", s(&dir.path().join("o.onnx"))]);
    assert_eq!(code, 2);
    // The output is the input: refused without --in-place, done with it.
    let src = dir.path().join("m.onnx");
    let m = with_inits(
        model(
            vec![
                node("Expand", "e", &["a", "s"], &["ea"]),
                node("Add", "add", &["ea", "b"], &["y"]),
            ],
            vec![float("a", &["1", "4"]), float("b", &["3", "4"])],
            &["y"],
        ),
        vec![int64s("s", &[3, 4])],
    );
    std::fs::write(&src, m.encode_to_vec()).unwrap();
    let (code, _) = run(&["fold", s(&src), "-o", s(&src)]);
    assert_eq!(code, 2);
    let (code, stderr) = run(&["fold", s(&src), "-o", s(&src), "--in-place"]);
    assert_eq!(code, 0, "{stderr}");
    let folded = ModelProto::decode(std::fs::read(&src).unwrap().as_slice()).unwrap();
    assert_eq!(op_types(&folded), ["Add"]);
}

#[test]
fn targets_built_at_run_time_fold_even_with_unknown_sizes() {
    // Sizes nothing knows: expand computes each target at run time as Shape(Expand(.., Shape(..)))
    // of the inputs; fold recognises that construction, which gives the result's shape whatever the
    // sizes are.
    let m = model(
        vec![node("Where", "w", &["c", "a", "b"], &["y"])],
        vec![
            {
                let mut c = float("c", &["?", "1"]);
                if let Some(type_proto::Value::TensorType(t)) =
                    c.r#type.as_mut().and_then(|t| t.value.as_mut())
                {
                    t.elem_type = Some(DataType::Bool as i32);
                }
                c
            },
            float("a", &["?"]),
            float("b", &["?", "?"]),
        ],
        &["y"],
    );
    let (expanded, stderr, folded) = expand_then_fold(&m);
    assert!(node_count(&expanded) > 1);
    assert!(
        folded == m.encode_to_vec(),
        "fold(expand(m)) is not m:\n{stderr}"
    );
    assert!(!stderr.contains("left:"), "{stderr}");
}

#[test]
fn a_run_time_target_of_a_value_the_reader_does_not_read_stays() {
    // Add(x, Expand(b, Shape(q))): q may be larger than x and b, so the Expand may enlarge the result.
    let m = model(
        vec![
            node("Shape", "sh", &["q"], &["sq"]),
            node("Expand", "e", &["b", "sq"], &["eb"]),
            node("Add", "add", &["x", "eb"], &["y"]),
        ],
        vec![float("x", &["?"]), float("b", &["?"]), float("q", &["?"])],
        &["y"],
    );
    let (stderr, f) = fold_ok(&m);
    assert_left(&stderr, "e", "not known well enough", &f, 3);
}
