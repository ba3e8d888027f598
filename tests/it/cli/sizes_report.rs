//! `onnx-lint dims` (issue 41, part 3): every input symbol with the conditions the model puts on it,
//! where each comes from, and the values with no finding; as text and as JSON (the shape
//! `docs/sizes-report.md` documents; python/tests/test_schemas.py validates it against
//! `docs/sizes-report.schema.json`).

use crate::support::binary;
use crate::support::paths::{root, tempdir};
use crate::support::proto::{node, opset, typed};
use bytes::Bytes;
use onnx_lint::proto::tensor_proto::DataType;
use onnx_lint::proto::{GraphProto, ModelProto, TensorProto};
use prost::Message;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

fn run(args: &[&str]) -> (i32, String, String) {
    let mut cmd = binary::command(args);
    cmd.current_dir(root());
    let r = binary::run_command(cmd, args, binary::DEADLINE);
    (r.code, r.stdout, r.stderr)
}

/// `dims` of `model` with `more` arguments, as JSON (exit 0 required).
fn json(model: &Path, more: &[&str]) -> Value {
    let mut args = vec!["dims", model.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(more);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

/// The report's symbol named `name`.
fn symbol<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no symbol {name}: {v}"))
}

/// The conditions of symbol `s` (its own, then those it shares), from the report's list.
fn conditions_of<'a>(v: &'a Value, s: &Value) -> Vec<&'a Value> {
    let all = v["conditions"].as_array().unwrap();
    ["alone", "joint"]
        .iter()
        .flat_map(|k| s[*k].as_array().unwrap().clone())
        .map(|i| &all[i.as_u64().unwrap() as usize])
        .collect()
}

fn int64s(name: &str, values: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: vec![values.len() as i64],
        data_type: Some(DataType::Int64 as i32),
        int64_data: values.to_vec(),
        ..Default::default()
    }
}

fn floats(name: &str, dims: &[i64]) -> TensorProto {
    let n: i64 = dims.iter().product();
    TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(DataType::Float as i32),
        raw_data: Some(Bytes::from(vec![0u8; n as usize * 4])),
        ..Default::default()
    }
}

fn write(dir: &Path, file: &str, g: GraphProto) -> PathBuf {
    let m = ModelProto {
        ir_version: Some(9),
        opset_import: vec![opset("", 17)],
        graph: Some(g),
        ..Default::default()
    };
    let path = dir.join(file);
    fs::write(&path, m.encode_to_vec()).unwrap();
    path
}

/// A BERT-style position embedding: `x [batch, seq, 8] + table[:seq]` of a 512-row table (Shape,
/// Gather, Slice), which inference sizes `min(seq, 512)`: the Add needs seq <= 512.
fn position_embedding(dir: &Path) -> PathBuf {
    let g = GraphProto {
        name: Some("bert".into()),
        node: vec![
            node("Shape", "shape", &["x"], &["s"]),
            node("Gather", "seq_len", &["s", "one"], &["len"]),
            node(
                "Slice",
                "positions",
                &["table", "zero", "len", "zero"],
                &["pos"],
            ),
            node("Add", "add_pos", &["x", "pos"], &["y"]),
        ],
        input: vec![typed("x", DataType::Float, &["batch", "seq", "8"])],
        initializer: vec![
            floats("table", &[512, 8]),
            int64s("one", &[1]),
            int64s("zero", &[0]),
        ],
        output: vec![typed("y", DataType::Float, &["batch", "seq", "8"])],
        ..Default::default()
    };
    write(dir, "bert_pos.onnx", g)
}

/// `x [L]` reshaped to `[-1, 32]`: Reshape's element count needs L a multiple of 32.
fn reshape_by_32(dir: &Path) -> PathBuf {
    let g = GraphProto {
        name: Some("rows".into()),
        node: vec![node("Reshape", "rows", &["x", "shape"], &["y"])],
        input: vec![typed("x", DataType::Float, &["L"])],
        initializer: vec![int64s("shape", &[-1, 32])],
        output: vec![typed("y", DataType::Float, &["?", "32"])],
        ..Default::default()
    };
    write(dir, "rows.onnx", g)
}

/// `x [?, 3] + t [4, 3]` and `u [-1, 3] + t`: axes without a name, `x[0]` and `u[0]`.
fn unnamed_axes(dir: &Path) -> PathBuf {
    let g = GraphProto {
        name: Some("g".into()),
        node: vec![
            node("Add", "add_x", &["x", "t"], &["y"]),
            node("Add", "add_u", &["u", "t"], &["z"]),
        ],
        input: vec![
            typed("x", DataType::Float, &["?", "3"]),
            typed("u", DataType::Float, &["-1", "3"]),
            typed("t", DataType::Float, &["4", "3"]),
        ],
        output: vec![
            typed("y", DataType::Float, &["4", "3"]),
            typed("z", DataType::Float, &["4", "3"]),
        ],
        ..Default::default()
    };
    write(dir, "unnamed.onnx", g)
}

#[test]
fn a_position_table_limits_the_sequence_and_leaves_the_batch_free() {
    let dir = tempdir();
    let m = position_embedding(dir.path());
    let (code, out, err) = run(&["dims", m.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let at = |prefix: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line {prefix}: {out}"))
    };
    // In input order: batch (axis 0), then seq (axis 1).
    let (batch, seq) = (at("batch: "), at("seq: "));
    assert!(batch < seq, "{out}");
    assert_eq!(lines[batch], "batch: input 'x' axis 0", "{out}");
    assert_eq!(lines[batch + 1], "  any value: no condition on it", "{out}");
    assert_eq!(lines[seq], "seq: input 'x' axis 1", "{out}");
    assert_eq!(
        lines[seq + 1],
        "  W1 'add_pos' (Add), multidirectional (numpy) broadcasting, axis -2: needs min(seq, 512) = seq or one of them 1",
        "{out}"
    );
    assert_eq!(
        lines[seq + 2],
        "     over seq in 1..=65536: fails for seq in 513..=65536 (smallest 513)",
        "{out}"
    );
    assert_eq!(
        lines[seq + 3],
        "  no finding for seq in 1..=512 (every value of seq in 1..=65536 tried)",
        "{out}"
    );
    // What `check` says of the same node.
    let (_, check, _) = run(&["check", m.to_str().unwrap()]);
    assert!(
        check.contains("'add_pos' (Add) broadcast only under a condition: axis -2: seq vs min(seq, 512); needs min(seq, 512) = seq or one of them 1"),
        "{check}"
    );
}

#[test]
fn a_range_narrows_what_is_judged() {
    let dir = tempdir();
    let m = position_embedding(dir.path());
    let v = json(&m, &["--dim", "seq=100..1000"]);
    let seq = symbol(&v, "seq");
    assert_eq!(seq["bound"], "100..=1000");
    assert_eq!(seq["domain"], serde_json::json!({"from": 100, "to": 1000}));
    let set = &seq["no_finding"];
    assert_eq!(set["intervals"], serde_json::json!([[100, 512]]));
    assert_eq!(set["count"], 413);
    assert_eq!(set["complete"], true);
    assert_eq!(set["text"], "seq in 100..=512");
    let c = conditions_of(&v, seq);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0]["verdict"], "fails-some");
    assert!(
        c[0]["verdict_text"]
            .as_str()
            .unwrap()
            .ends_with("fails for seq in 513..=1000 (smallest 513)"),
        "{v}"
    );
    // Within the table: the condition holds at every value.
    let v = json(&m, &["--dim", "seq=1..512", "--dim", "batch=4"]);
    let c = conditions_of(&v, symbol(&v, "seq"));
    assert_eq!(c[0]["verdict"], "holds");
    assert_eq!(symbol(&v, "seq")["no_finding"]["count"], 512);
    // A fixed symbol's sizes are numbers: no values to try.
    let batch = symbol(&v, "batch");
    assert_eq!(batch["bound"], "4");
    assert!(batch["no_finding"].is_null());
    assert_eq!(batch["text"], "fixed to 4 (--dim): its sizes are numbers");
    // Past the table: every value fails.
    let v = json(&m, &["--dim", "seq=600.."]);
    let seq = symbol(&v, "seq");
    assert_eq!(seq["no_finding"]["count"], 0);
    assert_eq!(seq["no_finding"]["complete"], false);
    assert!(
        seq["text"]
            .as_str()
            .unwrap()
            .starts_with("no value without a finding"),
        "{v}"
    );
}

#[test]
fn a_reshape_by_32_wants_a_multiple_of_32() {
    let dir = tempdir();
    let m = reshape_by_32(dir.path());
    let (code, out, err) = run(&["dims", m.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("W2 'rows' (Reshape), contract reshape-count"),
        "{out}"
    );
    assert!(
        out.contains("  no finding for L a multiple of 32 (every value of L in 1..=65536 tried)"),
        "{out}"
    );
    let v = json(&m, &[]);
    let set = &symbol(&v, "L")["no_finding"];
    assert_eq!(
        set["residue"],
        serde_json::json!({"modulus": 32, "remainder": 0})
    );
    assert_eq!(set["count"], 65536 / 32);
    assert_eq!(set["intervals_total"], 65536 / 32);
    assert_eq!(set["intervals"].as_array().unwrap().len(), 64);
    assert_eq!(set["intervals"][0], serde_json::json!([32, 32]));
    let c = conditions_of(&v, symbol(&v, "L"));
    assert_eq!(c[0]["kind"], "contract");
    assert_eq!(c[0]["contract"], "reshape-count");
    assert_eq!(c[0]["code"], "W2");
    assert_eq!(c[0]["requires"], "multiple-of");
    assert_eq!(c[0]["multiple_of"], 32);
}

#[test]
fn a_concat_ties_two_symbols_and_is_said_jointly() {
    // Concat of x [2, N] and y [2, M] on axis 0: W2 "needs M = N".
    let m = root().join("models/broken/w2_concat.onnx");
    let (code, out, err) = run(&["dims", m.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    for s in ["N", "M"] {
        assert!(out.contains(&format!("{s}: input ")), "{out}");
    }
    assert_eq!(out.matches("): needs M = N").count(), 2, "{out}");
    // No set per symbol is made up for a condition that ties two.
    assert_eq!(
        out.matches("  no condition on it alone: its values are limited only jointly, as above")
            .count(),
        2,
        "{out}"
    );
    let v = json(&m, &["--dim", "M=2..3", "--dim", "N=4..5"]);
    let n = symbol(&v, "N");
    assert_eq!(n["alone"], serde_json::json!([]));
    let c = conditions_of(&v, n);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0]["symbols"], serde_json::json!(["M", "N"]));
    assert_eq!(c[0]["contract"], "concat-axes");
    assert_eq!(c[0]["verdict"], "fails-all");
    assert!(
        c[0]["verdict_text"]
            .as_str()
            .unwrap()
            .contains("fails for every M in 2..=3, N in 4..=5"),
        "{v}"
    );
}

#[test]
fn axes_without_a_name_are_reported_by_their_positional_name() {
    let dir = tempdir();
    let m = unnamed_axes(dir.path());
    let (code, out, err) = run(&["dims", m.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // In input order: x's `?` axis, then u's -1 axis (which check leaves unknown until bound).
    let x = out.find("x[0]: input 'x' axis 0").expect(&out);
    let u = out.find("u[0]: input 'u' axis 0").expect(&out);
    assert!(x < u, "{out}");
    assert!(out.contains("x[0] must be 1 or 4"), "{out}");
    assert!(out.contains("u[0] must be 1 or 4"), "{out}");
    assert_eq!(out.matches("no finding for ").count(), 2, "{out}");
    assert!(out.contains("no finding for u[0] = 1 or 4"), "{out}");
    let v = json(&m, &["--dim", "u[0]=2..8"]);
    let u = symbol(&v, "u[0]");
    assert_eq!(u["no_finding"]["intervals"], serde_json::json!([[4, 4]]));
    assert_eq!(u["appears"][0]["declared"], "u[0]");
}

#[test]
fn the_fpn_needs_sizes_that_repeat_every_32() {
    let m = root().join("models/broken/w1_fpn_detector.onnx");
    let v = json(&m, &["--dim", "H=640", "--dim", "W=1..640"]);
    let w = symbol(&v, "W");
    assert_eq!(conditions_of(&v, w).len(), 2);
    // The values with no finding are exactly those at which `check --dim W=N` has none.
    let ok: Vec<u64> = (1..=640)
        .filter(|&n| {
            let interval = |i: &Value| i[0].as_u64().unwrap() <= n && n <= i[1].as_u64().unwrap();
            w["no_finding"]["intervals"]
                .as_array()
                .unwrap()
                .iter()
                .any(interval)
        })
        .collect();
    assert_eq!(w["no_finding"]["count"], ok.len());
    // Every interval is listed: the membership above is the whole set.
    assert_eq!(
        w["no_finding"]["intervals"].as_array().unwrap().len() as u64,
        w["no_finding"]["intervals_total"].as_u64().unwrap()
    );
    for n in [1, 8, 9, 24, 25, 32, 33, 48, 49, 57, 64, 96, 100, 640] {
        let (code, out, _) = run(&[
            "check",
            m.to_str().unwrap(),
            "--dim",
            "H=640",
            "--dim",
            &format!("W={n}"),
        ]);
        let clean = code == 0 && !out.contains("warning[") && !out.contains("error[");
        assert_eq!(clean, ok.contains(&n), "W = {n}: {out}");
    }
    // H is fixed: no condition on it.
    assert!(symbol(&v, "H")["no_finding"].is_null());
}

#[test]
fn errors_at_any_size_are_said_and_bad_input_exits_2() {
    let m = root().join("models/broken/e1_in_function.onnx");
    let (code, out, _) = run(&["dims", m.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("conditions on no input symbol:"), "{out}");
    assert!(
        out.contains("1 error found by inference, whatever the values of the symbols: no input sizes run this model"),
        "{out}"
    );
    assert!(
        out.contains("(node 'fn_mul_scale' of its function)"),
        "{out}"
    );
    let m = root().join("models/broken/e1_symbolic_warning.onnx");
    let (code, _, err) = run(&["dims", m.to_str().unwrap(), "--dim", "batch=2"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no input dim of the model is named batch (--dim, dims); it has N"),
        "{err}"
    );
    let (code, _, err) = run(&["dims", m.to_str().unwrap(), "--dim", "N=9..3"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "error: --dim N: the range 9..3 is empty (3 is below 9)\n"
    );
    let dir = tempdir();
    let junk = dir.path().join("junk.onnx");
    fs::write(&junk, b"\xff\xff\xff").unwrap();
    let (code, _, err) = run(&["dims", junk.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error: cannot load "), "{err}");
}

/// `AddTable(x)` = `x + table [4, 3]` as a model-local function, called on `a [N, 3]` and on
/// `b [N, 3]`: the second call replays the first's inference (same signature).
fn function_called_twice(dir: &Path) -> PathBuf {
    use onnx_lint::proto::FunctionProto;
    let call = |name: &str, input: &str, output: &str| {
        let mut n = node("AddTable", name, &[input], &[output]);
        n.domain = Some("local".into());
        n
    };
    let g = GraphProto {
        name: Some("g".into()),
        node: vec![call("first", "a", "y"), call("second", "b", "z")],
        input: vec![
            typed("a", DataType::Float, &["N", "3"]),
            typed("b", DataType::Float, &["N", "3"]),
        ],
        output: vec![
            typed("y", DataType::Float, &["4", "3"]),
            typed("z", DataType::Float, &["4", "3"]),
        ],
        ..Default::default()
    };
    let mut table = floats("table", &[4, 3]);
    table.name = None;
    let mut constant = node("Constant", "table", &[], &["t"]);
    constant.attribute = vec![onnx_lint::proto::AttributeProto {
        name: Some("value".into()),
        r#type: Some(onnx_lint::proto::attribute_proto::AttributeType::Tensor as i32),
        t: Some(table),
        ..Default::default()
    }];
    let f = FunctionProto {
        name: Some("AddTable".into()),
        domain: Some("local".into()),
        input: vec!["X".into()],
        output: vec!["Y".into()],
        opset_import: vec![opset("", 17)],
        node: vec![constant, node("Add", "add_table", &["X", "t"], &["Y"])],
        ..Default::default()
    };
    let m = ModelProto {
        ir_version: Some(9),
        opset_import: vec![opset("", 17), opset("local", 1)],
        graph: Some(g),
        functions: vec![f],
        ..Default::default()
    };
    let path = dir.join("calls.onnx");
    fs::write(&path, m.encode_to_vec()).unwrap();
    path
}

#[test]
fn a_condition_in_a_function_is_placed_at_each_call() {
    let dir = tempdir();
    let m = function_called_twice(dir.path());
    let (_, check, _) = run(&["check", m.to_str().unwrap()]);
    assert_eq!(check.matches("warning[W1]").count(), 2, "{check}");
    let v = json(&m, &[]);
    let n = symbol(&v, "N");
    let at: Vec<(&str, &str)> = conditions_of(&v, n)
        .iter()
        .map(|c| {
            (
                c["node"].as_str().unwrap(),
                c["inner_node"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(at, [("first", "add_table"), ("second", "add_table")], "{v}");
    assert_eq!(
        n["no_finding"]["intervals"],
        serde_json::json!([[1, 1], [4, 4]])
    );
    let (_, out, _) = run(&["dims", m.to_str().unwrap()]);
    assert!(
        out.contains("  W1 'second' (AddTable) (node 'add_table' of its function), multidirectional (numpy) broadcasting, axis -2: N must be 1 or 4"),
        "{out}"
    );
}
