//! `onnx-lint annotate`: the inferred types written into `value_info`, and nothing else changed
//! (annotate then strip gives the bytes strip gives of the original), inference unchanged by what
//! it wrote, subgraphs annotated, entries refined and never contradicted (T004), the refusals and
//! the standard streams of the other writers.

use crate::support::binary::{self, command, run_fed};
use crate::support::paths::{repo_model, root, s, tempdir};
use crate::support::proto::{graph, model_of, node, opset, typed, vi};
use onnx_lint::proto::attribute_proto::AttributeType;
use onnx_lint::proto::tensor_proto::DataType;
use onnx_lint::proto::tensor_shape_proto::dimension::Value as DimValue;
use onnx_lint::proto::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, ValueInfoProto, type_proto,
};
use prost::Message;
use std::path::{Path, PathBuf};

/// Every example model a clean annotate must hold for (models/ and the warning-only broken ones).
fn examples() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join("models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "onnx"))
        .collect();
    out.push(repo_model("broken/w1_fpn_detector.onnx"));
    out.push(repo_model("broken/w2_concat.onnx"));
    out.sort();
    out
}

/// Runs `annotate` with `args` on `src` into `out`; returns (exit status, stderr).
fn annotate(src: &Path, out: &Path, args: &[&str]) -> (i32, String) {
    let mut all = vec!["annotate", s(src), "-o", s(out)];
    all.extend_from_slice(args);
    let r = binary::run(&all);
    (r.code, r.stderr)
}

fn read(p: &Path) -> ModelProto {
    ModelProto::decode(std::fs::read(p).unwrap().as_slice()).unwrap()
}

/// The dims of a value_info entry as text: sizes, names, `?` for none.
fn dims(v: &ValueInfoProto) -> Vec<String> {
    let Some(type_proto::Value::TensorType(t)) = v.r#type.as_ref().and_then(|t| t.value.as_ref())
    else {
        panic!("{v:?} is not a tensor");
    };
    t.shape
        .as_ref()
        .unwrap()
        .dim
        .iter()
        .map(|d| match &d.value {
            Some(DimValue::DimValue(n)) => n.to_string(),
            Some(DimValue::DimParam(p)) => p.clone(),
            None => "?".into(),
        })
        .collect()
}

fn entry<'g>(g: &'g GraphProto, name: &str) -> Option<&'g ValueInfoProto> {
    g.value_info.iter().find(|v| v.name() == name)
}

#[test]
fn annotate_then_strip_is_strip_and_inference_is_unchanged_on_every_example() {
    let dir = tempdir();
    for model in examples() {
        let name = model.file_name().unwrap().to_str().unwrap();
        let ann = dir.path().join(format!("ann_{name}"));
        let (code, err) = annotate(&model, &ann, &[]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(err.contains("types written to value_info"), "{err}");
        // Everything but value_info is as it was: stripping both gives the same bytes.
        let (s1, s2) = (dir.path().join("s1.onnx"), dir.path().join("s2.onnx"));
        assert_eq!(annotate(&model, &s1, &["--strip"]).0, 0);
        assert_eq!(annotate(&ann, &s2, &["--strip"]).0, 0);
        assert_eq!(
            std::fs::read(&s1).unwrap(),
            std::fs::read(&s2).unwrap(),
            "{name}: annotate changed more than value_info"
        );
        // What was written is what inference finds, and inference finds the same again.
        let before = binary::run(&["shapes", s(&model)]);
        let after = binary::run(&["shapes", s(&ann)]);
        assert_eq!(before.stdout, after.stdout, "{name}");
        // A second annotate has nothing to add: the same bytes.
        let again = dir.path().join("again.onnx");
        let (code, err) = annotate(&ann, &again, &[]);
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("(0 added, 0 refined)"), "{name}: {err}");
        assert_eq!(std::fs::read(&again).unwrap(), std::fs::read(&ann).unwrap());
        // No entry for a graph input, output or initializer.
        let g = read(&ann).graph.unwrap();
        let original = read(&model).graph.unwrap();
        for v in &g.value_info {
            if entry(&original, v.name()).is_some() {
                continue;
            }
            let n = v.name();
            assert!(
                !g.input.iter().any(|i| i.name() == n)
                    && !g.output.iter().any(|o| o.name() == n)
                    && !g.initializer.iter().any(|t| t.name() == n),
                "{name}: {n} is declared elsewhere"
            );
        }
    }
}

#[test]
fn intermediate_values_get_their_shapes_and_symbols_keep_their_names() {
    let dir = tempdir();
    let out = dir.path().join("t.onnx");
    let (code, err) = annotate(&repo_model("tiny_transformer.onnx"), &out, &[]);
    assert_eq!(code, 0, "{err}");
    let g = read(&out).graph.unwrap();
    assert_eq!(dims(entry(&g, "q_t").unwrap()), ["batch", "2", "seq", "8"]);
    assert_eq!(
        dims(entry(&g, "scores").unwrap()),
        ["batch", "2", "seq", "seq"]
    );
    assert_eq!(dims(entry(&g, "heads_shape").unwrap()), ["4"]);
}

#[test]
fn expressions_are_written_as_text_or_as_unk_names() {
    let dir = tempdir();
    let model = repo_model("broken/w1_fpn_detector.onnx");
    let (a, b) = (dir.path().join("a.onnx"), dir.path().join("b.onnx"));
    assert_eq!(annotate(&model, &a, &[]).0, 0);
    let g = read(&a).graph.unwrap();
    assert_eq!(
        dims(entry(&g, "c1").unwrap()),
        ["1", "4", "ceil(H/2)", "ceil(W/2)"]
    );
    let (code, err) = annotate(&model, &b, &["--no-expressions"]);
    assert_eq!(code, 0, "{err}");
    let g = read(&b).graph.unwrap();
    let c1 = dims(entry(&g, "c1").unwrap());
    let c1_pre = dims(entry(&g, "c1_pre").unwrap());
    assert!(
        c1[2].starts_with("unk__") && c1[3].starts_with("unk__"),
        "{c1:?}"
    );
    assert_ne!(c1[2], c1[3], "different sizes, different names");
    assert_eq!(c1, c1_pre, "equal sizes, equal names");
    // Nothing else differs between the two.
    let (s1, s2) = (dir.path().join("s1.onnx"), dir.path().join("s2.onnx"));
    assert_eq!(annotate(&a, &s1, &["--strip"]).0, 0);
    assert_eq!(annotate(&b, &s2, &["--strip"]).0, 0);
    assert_eq!(std::fs::read(&s1).unwrap(), std::fs::read(&s2).unwrap());
}

/// `y = If(cond) { then: t = Relu(x); then_out = Neg(t) } else { else_out = Abs(x) }`, `x` FLOAT[2, 3]
/// from the main graph, `y` declared without a shape.
fn if_model() -> ModelProto {
    let branch = |name: &str, nodes, out: &str| AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Graph as i32),
        g: Some(GraphProto {
            name: Some(name.into()),
            node: nodes,
            output: vec![vi(out)],
            ..Default::default()
        }),
        ..Default::default()
    };
    let mut iff = node("If", "if", &["cond"], &["y"]);
    iff.attribute = vec![
        branch(
            "then_branch",
            vec![
                node("Relu", "relu", &["x"], &["t"]),
                node("Neg", "neg", &["t"], &["then_out"]),
            ],
            "then_out",
        ),
        branch(
            "else_branch",
            vec![node("Abs", "abs", &["x"], &["else_out"])],
            "else_out",
        ),
    ];
    let mut g = graph(vec![iff], &[], &["y"]);
    g.input = vec![
        typed("x", DataType::Float, &["2", "3"]),
        typed("cond", DataType::Bool, &[]),
    ];
    model_of(9, None, g)
}

#[test]
fn a_subgraph_gets_its_own_value_info_and_outputs_too_fills_declared_outputs() {
    let (dir, src) = crate::support::paths::temp_model("if.onnx", &if_model().encode_to_vec());
    let out = dir.path().join("out.onnx");
    let (code, err) = annotate(&src, &out, &[]);
    assert_eq!(code, 0, "{err}");
    let m = read(&out);
    let g = m.graph.as_ref().unwrap();
    assert!(g.value_info.is_empty(), "the If's output is a graph output");
    let then = g.node[0].attribute[0].g.as_ref().unwrap();
    assert_eq!(dims(entry(then, "t").unwrap()), ["2", "3"]);
    assert!(entry(then, "then_out").is_none(), "a subgraph output");
    assert!(entry(then, "x").is_none(), "an outer value");
    let els = g.node[0].attribute[1].g.as_ref().unwrap();
    assert!(els.value_info.is_empty());
    // The declared outputs, of the main graph and of the branches, with --outputs-too.
    let (code, err) = annotate(&src, &out, &["--outputs-too"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("graph outputs filled"), "{err}");
    let m = read(&out);
    let g = m.graph.as_ref().unwrap();
    assert_eq!(dims(&g.output[0]), ["2", "3"]);
    assert_eq!(
        dims(&g.node[0].attribute[0].g.as_ref().unwrap().output[0]),
        ["2", "3"]
    );
    // And the inverse: strip of it is strip of the original, byte for byte.
    let (s1, s2) = (dir.path().join("s1.onnx"), dir.path().join("s2.onnx"));
    let (code, err) = annotate(&out, &s1, &["--strip"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("1 value_info entries removed"), "{err}");
    assert_eq!(annotate(&src, &s2, &["--strip"]).0, 0);
    let (mut a, mut b) = (read(&s1), read(&s2));
    assert_ne!(a, b, "the outputs stay filled");
    without_output_types(a.graph.as_mut().unwrap());
    without_output_types(b.graph.as_mut().unwrap());
    assert_eq!(a, b, "only the outputs' types were filled");
}

/// Clears the types of the outputs of `g` and of its subgraphs.
fn without_output_types(g: &mut GraphProto) {
    for o in &mut g.output {
        o.r#type = None;
    }
    for n in &mut g.node {
        for a in &mut n.attribute {
            a.g.iter_mut().for_each(without_output_types);
        }
    }
}

/// `x [2, 3] -> Relu r -> Neg n -> Abs y`, with value_info declaring `r` as [2, 4] (a contradiction),
/// `n` as [2, k] (k is 3), and `x` (a graph input) as [2, 3].
fn declared_model() -> ModelProto {
    let mut g = graph(
        vec![
            node("Relu", "relu", &["x"], &["r"]),
            node("Neg", "neg", &["r"], &["n"]),
            node("Abs", "abs", &["n"], &["y"]),
        ],
        &[],
        &["y"],
    );
    g.input = vec![typed("x", DataType::Float, &["2", "3"])];
    g.value_info = vec![
        typed("r", DataType::Float, &["2", "4"]),
        typed("n", DataType::Float, &["2", "k"]),
        typed("x", DataType::Float, &["2", "3"]),
    ];
    model_of(9, None, g)
}

#[test]
fn entries_are_refined_never_contradicted_and_a_contradiction_is_reported_as_t004() {
    let (dir, src) = crate::support::paths::temp_model("d.onnx", &declared_model().encode_to_vec());
    let out = dir.path().join("out.onnx");
    let (code, err) = annotate(&src, &out, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("value_info 'r' left as declared, it contradicts inference (T004)"),
        "{err}"
    );
    assert!(err.contains("(0 added, 1 refined)"), "{err}");
    let g = read(&out).graph.unwrap();
    assert_eq!(g.value_info.len(), 3, "refined in place, nothing added");
    assert_eq!(dims(&g.value_info[0]), ["2", "4"], "left as declared");
    assert_eq!(dims(&g.value_info[1]), ["2", "3"], "k is 3");
    assert_eq!(
        g.value_info[2],
        declared_model().graph.unwrap().value_info[2]
    );
    // The check reports the same contradiction under the same code.
    binary::run(&["check", s(&out)]).expect_words(&["T004", "'r'"]);
    binary::run(&["explain", "T004"])
        .expect_code(0)
        .expect_words(&["declared-shape"]);
}

#[test]
fn a_model_with_errors_is_refused_unless_forced() {
    let dir = tempdir();
    let out = dir.path().join("out.onnx");
    let e1 = repo_model("broken/e1_add.onnx");
    let (code, err) = annotate(&e1, &out, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("E1") && err.contains("--force"), "{err}");
    assert!(!out.exists(), "nothing written");
    let (code, err) = annotate(&e1, &out, &["--force"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.exists());
    // Unloadable input, unwritable output: 2.
    let junk = dir.path().join("junk.onnx");
    std::fs::write(&junk, b"\xff\xff\xff not a model").unwrap();
    assert_eq!(annotate(&junk, &out, &[]).0, 2);
    let nowhere = dir.path().join("no/such/folder/out.onnx");
    let (code, err) = annotate(&repo_model("tiny_cnn.onnx"), &nowhere, &[]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn the_input_is_overwritten_only_in_place_and_standard_streams_work() {
    let dir = tempdir();
    let src = dir.path().join("m.onnx");
    std::fs::copy(repo_model("tiny_transformer.onnx"), &src).unwrap();
    let original = std::fs::read(&src).unwrap();
    let (code, err) = annotate(&src, &src, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--in-place"), "{err}");
    assert_eq!(std::fs::read(&src).unwrap(), original);
    let elsewhere = dir.path().join("other.onnx");
    assert_eq!(annotate(&src, &elsewhere, &[]).0, 0);
    let (code, err) = annotate(&src, &src, &["--in-place"]);
    assert_eq!(code, 0, "{err}");
    let written = std::fs::read(&src).unwrap();
    assert_eq!(written, std::fs::read(&elsewhere).unwrap());
    // Standard input to standard output: the same bytes.
    let args = ["annotate", "-", "-o", "-"];
    let r = run_fed(command(&args), &args, &original, binary::DEADLINE);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout_bytes, written);
}

/// The function `local.F(a) -> b`: `s = Add(a, a)`, `b = Relu(s)`, `k = Shape(a)`, called once per
/// input of `inputs` (`u0 = F(x0)`, ...), in a model of IR version `ir`.
fn function_model(ir: i64, inputs: Vec<ValueInfoProto>) -> ModelProto {
    let function = FunctionProto {
        name: Some("F".into()),
        domain: Some("local".into()),
        input: vec!["a".into()],
        output: vec!["b".into()],
        node: vec![
            node("Add", "add", &["a", "a"], &["s"]),
            node("Relu", "relu", &["s"], &["b"]),
            node("Shape", "shape", &["a"], &["k"]),
        ],
        opset_import: vec![opset("", 17)],
        ..Default::default()
    };
    let calls = (0..inputs.len())
        .map(|i| {
            let mut call = node(
                "F",
                &format!("call{i}"),
                &[inputs[i].name()],
                &[&format!("u{i}")],
            );
            call.domain = Some("local".into());
            call
        })
        .collect();
    let outputs: Vec<String> = (0..inputs.len()).map(|i| format!("u{i}")).collect();
    let outputs: Vec<&str> = outputs.iter().map(String::as_str).collect();
    let mut g = graph(calls, &[], &outputs);
    g.input = inputs;
    let mut m = model_of(ir, None, g);
    m.opset_import.push(opset("local", 1));
    m.functions = vec![function];
    m
}

/// Annotates `m` and returns the function's value_info (name and dims, `elem:` first) and stderr;
/// checks that inference reads the same from the result, and that a second annotate adds nothing.
fn annotate_function(m: &ModelProto) -> (Vec<(String, Vec<String>)>, String) {
    let (dir, src) = crate::support::paths::temp_model("f.onnx", &m.encode_to_vec());
    let out = dir.path().join("out.onnx");
    let (code, err) = annotate(&src, &out, &[]);
    assert_eq!(code, 0, "{err}");
    let before = binary::run(&["shapes", s(&src)]);
    let after = binary::run(&["shapes", s(&out)]);
    assert_eq!(before.stdout, after.stdout, "inference reads what it wrote");
    let again = dir.path().join("again.onnx");
    let (code, again_err) = annotate(&out, &again, &[]);
    assert_eq!(code, 0, "{again_err}");
    assert!(again_err.contains("(0 added, 0 refined)"), "{again_err}");
    let f = &read(&out).functions[0];
    let entries = f
        .value_info
        .iter()
        .map(|v| {
            let elem = match v.r#type.as_ref().and_then(|t| t.value.as_ref()) {
                Some(type_proto::Value::TensorType(t)) => t.elem_type(),
                _ => 0,
            };
            let mut d = vec![format!("elem:{elem}")];
            d.extend(dims(v));
            (v.name().to_owned(), d)
        })
        .collect();
    (entries, err)
}

fn entries(list: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
    list.iter()
        .map(|(n, d)| (n.to_string(), d.iter().map(|x| x.to_string()).collect()))
        .collect()
}

const F32: &str = "elem:1";
const I64: &str = "elem:7";

#[test]
fn a_function_called_twice_gets_what_both_calls_agree_on() {
    let m = function_model(
        10,
        vec![
            typed("x0", DataType::Float, &["2", "3"]),
            typed("x1", DataType::Float, &["2", "5"]),
        ],
    );
    let (got, err) = annotate_function(&m);
    assert!(err.contains("4 of them in function bodies"), "{err}");
    assert_eq!(
        got,
        entries(&[
            ("a", &[F32, "2", "?"]),
            ("s", &[F32, "2", "?"]),
            ("b", &[F32, "2", "?"]),
            ("k", &[I64, "2"]),
        ])
    );
}

#[test]
fn a_function_called_once_gets_its_call_s_sizes_but_not_the_caller_s_symbols() {
    let m = function_model(10, vec![typed("x0", DataType::Float, &["batch", "3"])]);
    let (got, _) = annotate_function(&m);
    assert_eq!(
        got,
        entries(&[
            ("a", &[F32, "?", "3"]),
            ("s", &[F32, "?", "3"]),
            ("b", &[F32, "?", "3"]),
            ("k", &[I64, "2"]),
        ])
    );
}

#[test]
fn a_function_called_with_two_element_types_gets_only_what_does_not_depend_on_them() {
    let m = function_model(
        10,
        vec![
            typed("x0", DataType::Float, &["2", "3"]),
            typed("x1", DataType::Double, &["2", "3"]),
        ],
    );
    let (got, _) = annotate_function(&m);
    assert_eq!(got, entries(&[("k", &[I64, "2"])]));
}

#[test]
fn a_model_before_ir_10_gets_no_function_value_info() {
    let m = function_model(9, vec![typed("x0", DataType::Float, &["2", "3"])]);
    let (got, err) = annotate_function(&m);
    assert!(got.is_empty(), "{got:?}");
    assert!(!err.contains("function bodies"), "{err}");
    // The main graph is annotated as ever: its one computed value is a graph output.
    assert!(err.contains("0 types written"), "{err}");
}
