//! The configuration's interface contract (issue 41): `interface` states the inputs and outputs a
//! model must have (names, element types, shapes), and `check` reports each difference as a C001
//! naming it; nothing without a contract; outputs compared with the inferred type where the model
//! declares none (and said so); `per-file-interface` over the file's; a bad contract refused (exit 2)
//! with the parser's diagram; the code in JSON and SARIF.

use crate::support::binary;
use crate::support::paths::tempdir;
use crate::support::proto::{node, opset, typed};
use onnx_lint::proto::tensor_proto::DataType;
use onnx_lint::proto::{GraphProto, ModelProto, TensorProto, ValueInfoProto};
use prost::Message;
use std::fs;
use std::path::{Path, PathBuf};

/// Runs `check` with `args` in `cwd`: (exit status, stdout, stderr).
fn check(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let args: Vec<&str> = ["check"].iter().chain(args).copied().collect();
    let mut cmd = binary::command(&args);
    cmd.current_dir(cwd);
    let r = binary::run_command(cmd, &args, binary::DEADLINE);
    (r.code, r.stdout, r.stderr)
}

/// `y = Add(a, b)` over `float [batch, seq]` inputs, and `n = Cast(ids)` over `int64 [batch, 8]`
/// ids; `outputs` are the graph's outputs as declared.
fn model(extra_inputs: Vec<ValueInfoProto>, outputs: Vec<ValueInfoProto>) -> ModelProto {
    let mut cast = node("Cast", "cast", &["ids"], &["n"]);
    cast.attribute.push(onnx_lint::proto::AttributeProto {
        name: Some("to".into()),
        r#type: Some(onnx_lint::proto::attribute_proto::AttributeType::Int as i32),
        i: Some(DataType::Float as i64),
        ..Default::default()
    });
    let mut input = vec![
        typed("a", DataType::Float, &["batch", "seq"]),
        typed("b", DataType::Float, &["batch", "seq"]),
        typed("ids", DataType::Int64, &["batch", "8"]),
    ];
    input.extend(extra_inputs);
    ModelProto {
        ir_version: Some(9),
        opset_import: vec![opset("", 17)],
        graph: Some(GraphProto {
            name: Some("g".into()),
            node: vec![node("Add", "add", &["a", "b"], &["y"]), cast],
            input,
            output: outputs,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The model with both outputs declared: `float y [batch, seq]`, `float n [batch, 8]`.
fn declared() -> ModelProto {
    model(
        vec![],
        vec![
            typed("y", DataType::Float, &["batch", "seq"]),
            typed("n", DataType::Float, &["batch", "8"]),
        ],
    )
}

/// A value named `name` with no type at all (what some exporters write for outputs).
fn untyped(name: &str) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        ..Default::default()
    }
}

/// A temporary folder holding `m.onnx` (`m`) and `config` as `onnx-lint.toml` (when given).
fn folder(m: &ModelProto, config: Option<&str>) -> (tempfile::TempDir, PathBuf) {
    let dir = tempdir();
    let root = dir.path().canonicalize().unwrap();
    fs::write(root.join("m.onnx"), m.encode_to_vec()).unwrap();
    if let Some(c) = config {
        fs::write(root.join("onnx-lint.toml"), c).unwrap();
    }
    (dir, root)
}

/// The first lines of the C001 findings of a text report.
fn c001(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| l.contains("[C001] interface-contract: "))
        .collect()
}

/// The contract `declared()` meets, `?` and unchecked parts included.
const MATCHING: &str = r#"
[interface]
inputs = [
  { name = "ids", type = "int64", shape = ["batch", 8] },
  { name = "b", type = "float32", shape = ["batch", "?"] },
  { name = "a" },
]
outputs = [
  { name = "n", type = "float", shape = ["batch", 8] },
  { name = "y", shape = ["batch", "seq"] },
]
"#;

#[test]
fn a_model_that_meets_its_contract_has_no_finding_in_any_order() {
    let (_d, root) = folder(&declared(), Some(MATCHING));
    let (code, out, err) = check(&root, &["m.onnx"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(c001(&out).is_empty(), "{out}");
    assert!(out.contains("0 errors, 0 warnings"), "{out}");
}

#[test]
fn without_a_contract_nothing_is_compared() {
    // A model every contract above would fault: an unexpected input, no typed outputs.
    let m = model(
        vec![typed("extra", DataType::Int32, &["3"])],
        vec![untyped("y")],
    );
    let (_d, root) = folder(&m, None);
    let (code, out, err) = check(&root, &["m.onnx"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("C001"), "{out}");
}

#[test]
fn each_difference_of_an_input_is_a_finding_that_names_it() {
    let config = r#"
[interface]
inputs = [
  { name = "a", type = "int64" },
  { name = "b", shape = ["batch"] },
  { name = "ids", shape = [1, "len"] },
  { name = "mask", type = "bool" },
]
"#;
    let m = model(vec![typed("extra", DataType::Int32, &["3"])], vec![]);
    let (_d, root) = folder(&m, Some(config));
    let (code, out, err) = check(&root, &["m.onnx"]);
    assert_eq!(code, 1, "{out}{err}");
    let found = c001(&out);
    let expected = [
        "error[C001] interface-contract: input 'a' has element type float where the contract says int64",
        "error[C001] interface-contract: input 'b' has rank 2 where the contract says rank 1",
        "error[C001] interface-contract: input 'ids' axis 0 is declared 'batch' where the contract says 1",
        "error[C001] interface-contract: input 'ids' axis 1 is declared 8 where the contract says 'len'",
        "error[C001] interface-contract: missing input 'mask': the contract lists it, the model has no input of that name",
        "error[C001] interface-contract: unexpected input 'extra': the model has it, the contract does not list it",
    ];
    assert_eq!(found, expected, "{out}");
    // The notes say what each side has, and why a symbol and a number differ.
    for note in [
        "= the model: [batch, seq]",
        "= the contract: [batch]",
        "= the model states a free size there: it accepts sizes the contract excludes",
        "= the contract states a free size there: the model fixes it",
        "= the model's inputs: 'a', 'b', 'ids', 'extra'",
    ] {
        assert!(out.contains(note), "{note}: {out}");
    }
}

#[test]
fn symbols_match_by_name_and_unnamed_or_undeclared_axes_do_not() {
    let config = r#"
[interface]
inputs = [
  { name = "a", shape = ["batch", "sequence"] },
  { name = "u", type = "float", shape = ["batch"] },
  { name = "s", shape = [] },
  { name = "t", shape = [] },
]
"#;
    // `u` declares an axis with neither size nor symbol and no element type; `s` has no shape, `t`
    // is a scalar.
    let mut u = typed("u", DataType::Float, &["x"]);
    if let Some(onnx_lint::proto::type_proto::Value::TensorType(t)) =
        u.r#type.as_mut().and_then(|t| t.value.as_mut())
    {
        t.elem_type = None;
        t.shape.as_mut().unwrap().dim[0].value = None;
    }
    let mut s = typed("s", DataType::Float, &[]);
    if let Some(onnx_lint::proto::type_proto::Value::TensorType(t)) =
        s.r#type.as_mut().and_then(|t| t.value.as_mut())
    {
        t.shape = None;
    }
    let m = model(vec![u, s, typed("t", DataType::Float, &[])], vec![]);
    let (_d, root) = folder(&m, Some(config));
    let (code, out, err) = check(&root, &["m.onnx"]);
    assert_eq!(code, 1, "{out}{err}");
    let found = c001(&out);
    assert!(found.contains(&"error[C001] interface-contract: input 'a' axis 1 is declared 'seq' where the contract says 'sequence'"), "{out}");
    assert!(found.contains(&"error[C001] interface-contract: input 'u' declares no element type where the contract says float"), "{out}");
    assert!(found.contains(&"error[C001] interface-contract: input 'u' axis 0 has neither a size nor a symbol where the contract says 'batch'"), "{out}");
    assert!(found.contains(&"error[C001] interface-contract: input 's' declares no shape where the contract says []"), "{out}");
    // b and ids are fed and not listed; nothing else differs (t is the scalar the contract says).
    assert_eq!(found.len(), 6, "{out}");
    assert!(!out.contains("input 't'"), "{out}");
}

#[test]
fn outputs_are_compared_with_the_inferred_type_where_none_is_declared() {
    let config = r#"
[interface]
outputs = [
  { name = "y", type = "int64", shape = ["batch", 16] },
  { name = "n", type = "float", shape = ["batch", 8] },
]
"#;
    let m = model(vec![], vec![untyped("y"), untyped("n"), untyped("ids")]);
    let (_d, root) = folder(&m, Some(config));
    let (code, out, err) = check(&root, &["m.onnx"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        c001(&out),
        [
            "error[C001] interface-contract: output 'y' has element type float (inferred) where the contract says int64",
            "error[C001] interface-contract: output 'y' axis 1 is 'seq' (inferred) where the contract says 16",
            "error[C001] interface-contract: unexpected output 'ids': the model has it, the contract does not list it",
        ],
        "{out}"
    );
    assert!(
        out.contains("= the model (inferred): [batch, seq]"),
        "{out}"
    );
    // A declared output is compared as declared, even where inference knows better (T004 says so).
    let m = model(vec![], vec![typed("y", DataType::Float, &["batch", "16"])]);
    let config = "[interface]\noutputs = [{ name = \"y\", shape = [\"batch\", \"seq\"] }]\n";
    let (_d, root) = folder(&m, Some(config));
    let (_, out, _) = check(&root, &["m.onnx"]);
    assert!(
        c001(&out).contains(&"error[C001] interface-contract: output 'y' axis 1 is declared 16 where the contract says 'seq'"),
        "{out}"
    );
}

#[test]
fn an_output_nothing_tells_is_a_warning_that_it_is_not_checked() {
    // A custom operator without a shape rule: the output is unknown, and declared without a type.
    let mut m = model(vec![], vec![untyped("z")]);
    let g = m.graph.as_mut().unwrap();
    let mut custom = node("Mystery", "mystery", &["a"], &["z"]);
    custom.domain = Some("com.example".into());
    g.node.push(custom);
    m.opset_import.push(opset("com.example", 1));
    let config =
        "[interface]\noutputs = [{ name = \"z\", type = \"float\", shape = [\"batch\"] }]\n";
    let (_d, root) = folder(&m, Some(config));
    let (code, out, err) = check(&root, &["m.onnx"]);
    assert_eq!(code, 0, "a warning does not fail the run: {out}{err}");
    assert_eq!(
        c001(&out),
        [
            "warning[C001] interface-contract: output 'z': the model declares no element type and inference cannot tell it; the contract's float is not checked",
            "warning[C001] interface-contract: output 'z': the model declares no shape and inference cannot tell it; the contract's [batch] is not checked",
        ],
        "{out}"
    );
}

#[test]
fn under_dims_a_fixed_symbol_matches_its_size_in_an_inferred_output() {
    let m = model(vec![], vec![untyped("y")]);
    let config = "[interface]\noutputs = [{ name = \"y\", shape = [\"batch\", \"seq\"] }]\n[dims]\nbatch = 1\n";
    let (_d, root) = folder(&m, Some(config));
    let (code, out, err) = check(&root, &["m.onnx"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(c001(&out).is_empty(), "{out}");
    // A size the contract does not fix is still a difference: the output is always 1 there.
    let config =
        "[interface]\noutputs = [{ name = \"y\", shape = [\"n\", \"seq\"] }]\n[dims]\nbatch = 1\n";
    let (_d, root) = folder(&m, Some(config));
    let (code, out, _) = check(&root, &["m.onnx"]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        c001(&out),
        [
            "error[C001] interface-contract: output 'y' axis 0 is 1 (inferred) where the contract says 'n'"
        ],
        "{out}"
    );
}

#[test]
fn an_input_with_a_default_need_not_be_listed() {
    // IR 3 style: the weight `w` is a graph input with an initializer of its name.
    let mut m = model(vec![typed("w", DataType::Float, &["2"])], vec![]);
    m.graph.as_mut().unwrap().initializer.push(TensorProto {
        name: Some("w".into()),
        data_type: Some(DataType::Float as i32),
        dims: vec![2],
        float_data: vec![1.0, 2.0],
        ..Default::default()
    });
    let config = "[interface]\ninputs = [{ name = \"a\" }, { name = \"b\" }, { name = \"ids\" }]\n";
    let (_d, root) = folder(&m, Some(config));
    let (code, out, err) = check(&root, &["m.onnx"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(c001(&out).is_empty(), "{out}");
    // Listed, it is compared like any other.
    let config = "[interface]\ninputs = [{ name = \"a\" }, { name = \"b\" }, { name = \"ids\" }, { name = \"w\", shape = [3] }]\n";
    fs::write(root.join("onnx-lint.toml"), config).unwrap();
    let (_, out, _) = check(&root, &["m.onnx"]);
    assert_eq!(
        c001(&out),
        [
            "error[C001] interface-contract: input 'w' axis 0 is declared 2 where the contract says 3"
        ],
        "{out}"
    );
}

#[test]
fn per_file_interface_replaces_the_sides_it_gives() {
    let dir = tempdir();
    let root = dir.path().canonicalize().unwrap();
    fs::create_dir(root.join("special")).unwrap();
    fs::write(root.join("m.onnx"), declared().encode_to_vec()).unwrap();
    fs::write(root.join("special/m.onnx"), declared().encode_to_vec()).unwrap();
    let config = r#"
[tool.onnx-lint.interface]
inputs = [{ name = "a" }, { name = "b" }, { name = "ids" }]
outputs = [{ name = "y" }, { name = "n" }]

[tool.onnx-lint.per-file-interface."special/*.onnx"]
outputs = [{ name = "y", type = "float16" }, { name = "n" }]
"#;
    fs::write(root.join("pyproject.toml"), config).unwrap();
    let (code, out, err) = check(&root, &["m.onnx"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = check(&root, &["special/m.onnx"]);
    assert_eq!(code, 1, "{out}{err}");
    // The file's inputs still apply there (none differs), its outputs are replaced.
    assert_eq!(
        c001(&out),
        [
            "error[C001] interface-contract: output 'y' has element type float where the contract says float16"
        ],
        "{out}"
    );
    let (code, out, _) = check(&root, &["--show-settings", "special/m.onnx"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("interface inputs: a, b, ids\n"), "{out}");
    assert!(out.contains("interface outputs: float16 y, n\n"), "{out}");
    // A code like any other: per-file ignores and --ignore silence it.
    let (code, out, _) = check(&root, &["--ignore", "C001", "special/m.onnx"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_bad_contract_is_refused_with_the_parsers_diagram() {
    let cases = [
        (
            "inputs = [{ name = \"a\", type = \"flot\" }]",
            "unknown element type `flot`",
        ),
        (
            "inputs = [{ name = \"a\", shape = [-1] }]",
            "-1 is negative",
        ),
        (
            "inputs = [{ name = \"a\", shape = [\"128\"] }]",
            "a number written as text",
        ),
        (
            "inputs = [{ name = \"a\", shape = [1.5] }]",
            "expected a size (128), a symbol (\"batch\") or \"?\"",
        ),
        (
            "inputs = [{ name = \"a\", shape = [\"\"] }]",
            "a symbol's name is empty",
        ),
        (
            "inputs = [{ name = \"a\" }, { name = \"a\" }]",
            "'a' is listed twice",
        ),
        ("inputs = [{ name = \"\" }]", "a port's name is empty"),
        (
            "inputs = [{ name = \"a\", dtype = \"int64\" }]",
            "unknown field `dtype`",
        ),
        ("input = []", "unknown field `input`"),
        ("inputs = [{ type = \"int64\" }]", "missing field `name`"),
    ];
    for (line, says) in cases {
        let config = format!("[interface]\n{line}\n");
        let (_d, root) = folder(&declared(), Some(&config));
        let (code, out, err) = check(&root, &["m.onnx"]);
        assert_eq!(code, 2, "{line}: {out}{err}");
        assert!(out.is_empty(), "{line}: {out}");
        assert!(
            err.starts_with("error: invalid configuration "),
            "{line}: {err}"
        );
        assert!(err.contains(says), "{line}: {err}");
        assert!(err.contains(&format!("2 | {line}")), "{line}: {err}");
        // The caret line: `  |` then spaces and carets under the bad entry.
        let caret = |l: &str| {
            l.trim_start().strip_prefix('|').is_some_and(|rest| {
                rest.contains('^') && rest.chars().all(|c| c == ' ' || c == '^')
            })
        };
        assert!(err.lines().any(caret), "{line}: {err}");
    }
    // In a per-file table too.
    let config = "[per-file-interface.\"*.onnx\"]\noutputs = [{ name = \"y\", type = \"f32\" }]\n";
    let (_d, root) = folder(&declared(), Some(config));
    let (code, _, err) = check(&root, &["m.onnx"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown element type `f32`"), "{err}");
    // In a pyproject.toml the table is read without its positions: the message names the key.
    fs::remove_file(root.join("onnx-lint.toml")).unwrap();
    let py = "[tool.onnx-lint.interface]\ninputs = [{ name = \"a\", shape = [\"batch\", -2] }]\n";
    fs::write(root.join("pyproject.toml"), py).unwrap();
    let (code, out, err) = check(&root, &["m.onnx"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("[tool.onnx-lint]")
            && err.contains("-2 is negative")
            && err.contains("interface.inputs"),
        "{err}"
    );
}

#[test]
fn json_and_sarif_carry_the_code() {
    let config = "[interface]\ninputs = [{ name = \"a\", type = \"int64\" }, { name = \"b\" }, { name = \"ids\" }]\n";
    let (_d, root) = folder(&declared(), Some(config));
    let (code, out, err) = check(&root, &["--format", "json", "m.onnx"]);
    assert_eq!(code, 1, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let d = &v["diagnostics"].as_array().unwrap();
    assert_eq!(d.len(), 1, "{out}");
    assert_eq!(d[0]["code"], "C001");
    assert_eq!(d[0]["name"], "interface-contract");
    assert_eq!(d[0]["severity"], "error");
    assert_eq!(
        d[0]["message"],
        "input 'a' has element type float where the contract says int64"
    );
    let (code, out, _) = check(&root, &["--format", "sarif", "m.onnx"]);
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let run = &v["runs"][0];
    let result = &run["results"][0];
    assert_eq!(result["ruleId"], "C001");
    assert_eq!(result["level"], "error");
    let index = result["ruleIndex"].as_u64().unwrap() as usize;
    assert_eq!(run["tool"]["driver"]["rules"][index]["id"], "C001");
}

#[test]
fn explain_prints_the_section() {
    let r = binary::run(&["explain", "interface-contract"]);
    r.expect_code(0);
    assert!(
        r.stdout
            .starts_with("C001 interface-contract\nSeverity: error"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("docs/examples/c001.toml"), "{}", r.stdout);
}

#[test]
fn a_port_that_is_no_tensor_says_what_it_is() {
    use onnx_lint::proto::{TypeProto, type_proto};
    // A sequence of float tensors, fed beside the others.
    let element = typed("e", DataType::Float, &["3"]).r#type.unwrap();
    let seqs = ValueInfoProto {
        name: Some("seqs".into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::SequenceType(Box::new(
                type_proto::Sequence {
                    elem_type: Some(Box::new(element)),
                },
            ))),
            ..Default::default()
        }),
        ..Default::default()
    };
    let m = model(vec![seqs], vec![]);
    let ports = "{ name = \"a\" }, { name = \"b\" }, { name = \"ids\" }";
    let config =
        format!("[interface]\ninputs = [{ports}, {{ name = \"seqs\", type = \"float\" }}]\n");
    let (_d, root) = folder(&m, Some(&config));
    let (code, out, err) = check(&root, &["m.onnx"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        c001(&out),
        [
            "error[C001] interface-contract: input 'seqs' is a sequence where the contract states a tensor"
        ],
        "{out}"
    );
    // Listed by name only, it is only required to be there.
    let config = format!("[interface]\ninputs = [{ports}, {{ name = \"seqs\" }}]\n");
    fs::write(root.join("onnx-lint.toml"), config).unwrap();
    let (code, out, _) = check(&root, &["m.onnx"]);
    assert_eq!(code, 0, "{out}");
    assert!(c001(&out).is_empty(), "{out}");
}
