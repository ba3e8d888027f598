//! `--dim` and the configuration's `dims` (issue 41): a fixed size flows through inference (a
//! broadcast that then fails is E1, `shapes` prints the number), a range turns a W1 into an error
//! (every value fails), nothing (none does: counted as proven) or a W1 that names the exact failing
//! values; a name the model has no input dim of is refused (exit 2) with the names it has.

use crate::support::binary;
use crate::support::paths::{root, tempdir};
use crate::support::proto::{node, opset, typed};
use onnx_lint::proto::tensor_proto::DataType;
use onnx_lint::proto::{GraphProto, ModelProto};
use prost::Message;
use std::fs;
use std::path::{Path, PathBuf};

/// `x [N, 3] + table [4, 3]`: W1 "N must be 1 or 4".
fn w1() -> PathBuf {
    root().join("models/broken/e1_symbolic_warning.onnx")
}

/// An FPN whose top-down adds need H and W multiples of 32 (W1 on each axis of two adds).
fn fpn() -> PathBuf {
    root().join("models/broken/w1_fpn_detector.onnx")
}

/// Runs the binary with `args` in `cwd`: (exit status, stdout, stderr).
fn run_in(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let mut cmd = binary::command(args);
    cmd.current_dir(cwd);
    let r = binary::run_command(cmd, args, binary::DEADLINE);
    (r.code, r.stdout, r.stderr)
}

fn run(args: &[&str]) -> (i32, String, String) {
    run_in(&root(), args)
}

/// The first line of each broadcast finding (E1, W1) of a text report.
fn findings(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| l.starts_with("error[E1]") || l.starts_with("warning[W1]"))
        .collect()
}

#[test]
fn a_fixed_size_that_breaks_a_broadcast_is_e1() {
    let m = w1();
    let (code, out, _) = run(&["check", m.to_str().unwrap(), "--dim", "N=2"]);
    assert_eq!(code, 1, "{out}");
    let f = findings(&out);
    assert_eq!(f.len(), 1, "{out}");
    assert!(
        f[0].starts_with("error[E1]") && f[0].contains("axis -2: 2 vs 4"),
        "{out}"
    );
    assert!(out.contains("input 0 'x': [2, 3]"), "{out}");
    // A size that fits leaves nothing to say.
    let (code, out, _) = run(&["check", m.to_str().unwrap(), "--dim", "N=4"]);
    assert_eq!(code, 0, "{out}");
    assert!(findings(&out).is_empty(), "{out}");
}

#[test]
fn shapes_prints_the_bound_sizes() {
    let m = w1();
    let (code, out, err) = run(&["shapes", m.to_str().unwrap(), "--dim", "N=4"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("x: FLOAT[4, 3]"), "{out}");
    let (code, out, _) = run(&["shapes", m.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("x: FLOAT[N, 3]"), "{out}");
}

#[test]
fn a_range_where_every_value_fails_is_an_error() {
    let m = w1();
    let (code, out, _) = run(&["check", m.to_str().unwrap(), "--dim", "N=5..9"]);
    assert_eq!(code, 1, "{out}");
    let f = findings(&out);
    assert_eq!(f.len(), 1, "{out}");
    assert!(f[0].starts_with("error[E1]"), "{out}");
    assert!(
        f[0].ends_with("N must be 1 or 4; fails for every N in 5..=9 (the bound sizes)"),
        "{out}"
    );
}

#[test]
fn a_range_where_part_fails_names_exactly_which() {
    let m = w1();
    let (code, out, _) = run(&["check", m.to_str().unwrap(), "--dim", "N=2..=8"]);
    assert_eq!(code, 0, "{out}");
    let f = findings(&out);
    assert_eq!(f.len(), 1, "{out}");
    assert!(
        f[0].ends_with("within the bound sizes, fails for N in 2..=3 and 5..=8 (smallest 2)"),
        "{out}"
    );
    let m = fpn();
    let (_, out, _) = run(&[
        "check",
        m.to_str().unwrap(),
        "--dim",
        "H=640",
        "--dim",
        "W=1..64",
    ]);
    let f = findings(&out);
    assert_eq!(f.len(), 2, "{out}");
    assert!(
        f[0].ends_with("fails for W in 33..=48 (smallest 33)"),
        "{out}"
    );
    assert!(
        f[1].ends_with("fails for W in 9..=24 and 49..=56 (smallest 9)"),
        "{out}"
    );
    // Over a camera's sizes, the failures repeat every 32 values.
    let (_, out, _) = run(&[
        "check",
        m.to_str().unwrap(),
        "--dim",
        "H=640",
        "--dim",
        "W=1..640",
    ]);
    let f = findings(&out);
    assert!(
        f[0].ends_with("fails for W in 33..=640 where W mod 32 is 1..=16 (smallest 33)"),
        "{out}"
    );
}

#[test]
fn a_range_where_no_value_fails_is_proven_and_not_reported() {
    let m = fpn();
    let (code, out, err) = run(&[
        "check",
        m.to_str().unwrap(),
        "--dim",
        "H=640",
        "--dim",
        "W=1..8",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(findings(&out).is_empty(), "{out}");
    assert!(
        err.contains("note: 2 conditions proven for every value of the bound sizes"),
        "{err}"
    );
}

#[test]
fn a_name_the_model_lacks_is_refused_with_the_names_it_has() {
    let m = w1();
    // `check` says why a model cannot be loaded in its report.
    let (code, out, _) = run(&["check", m.to_str().unwrap(), "--dim", "batch=2"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("no input dim of the model is named batch (--dim, dims); it has N"),
        "{out}"
    );
    let (code, _, err) = run(&["shapes", m.to_str().unwrap(), "--dim", "batch=2"]);
    assert_eq!(code, 2);
    assert!(err.contains("it has N"), "{err}");
    for bad in ["N", "N=x", "N=9..3", "=3"] {
        let (code, _, err) = run(&["check", m.to_str().unwrap(), "--dim", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.starts_with("error: "), "{bad}: {err}");
    }
}

/// `x [?, 3] + t [4, 3]` and `u [-1, 3] + t`: axes without a name, named `x[0]` and `u[0]`.
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
    let m = ModelProto {
        ir_version: Some(9),
        opset_import: vec![opset("", 17)],
        graph: Some(g),
        ..Default::default()
    };
    let path = dir.join("unnamed.onnx");
    fs::write(&path, m.encode_to_vec()).unwrap();
    path
}

#[test]
fn axes_without_a_name_are_bound_by_their_positional_name() {
    let dir = tempdir();
    let m = unnamed_axes(dir.path());
    let m = m.to_str().unwrap();
    let (code, out, _) = run(&["check", m]);
    assert_eq!(code, 0, "{out}");
    let f = findings(&out);
    assert_eq!(f.len(), 1, "{out}");
    assert!(f[0].contains("x[0] must be 1 or 4"), "{out}");
    // The -1 axis is unknown (no W1) until it is bound.
    let (code, out, _) = run(&["check", m, "--dim", "u[0]=5", "--dim", "x[0]=2..3"]);
    assert_eq!(code, 1, "{out}");
    let f = findings(&out);
    assert_eq!(f.len(), 2, "{out}");
    assert!(
        f[0].starts_with("error[E1]") && f[0].contains("x[0]"),
        "{out}"
    );
    assert!(
        f[0].ends_with("fails for every x[0] in 2..=3 (the bound sizes)"),
        "{out}"
    );
    assert!(
        f[1].starts_with("error[E1]") && f[1].contains("5 vs 4"),
        "{out}"
    );
    let (code, out, _) = run(&["check", m, "--dim", "u[0]=1..8"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("within the bound sizes, fails for u[0] in 2..=3 and 5..=8 (smallest 2)"),
        "{out}"
    );
    let (code, out, _) = run(&["check", m, "--dim", "t[0]=4"]);
    assert_eq!(code, 2);
    assert!(out.contains("it has u[0], x[0]"), "{out}");
}

/// A folder with the W1 model as `a.onnx` and `b.onnx`, and `config` as `file`.
fn configured(file: &str, config: &str) -> tempfile::TempDir {
    let dir = tempdir();
    for name in ["a.onnx", "b.onnx"] {
        fs::copy(w1(), dir.path().join(name)).unwrap();
    }
    fs::write(dir.path().join(file), config).unwrap();
    dir
}

#[test]
fn the_configuration_binds_sizes_per_file_and_the_command_line_goes_over_it() {
    let dir = configured(
        "onnx-lint.toml",
        "[dims]\nN = 2\n\n[per-file-dims]\n\"b.onnx\" = { N = \"1..4\" }\n",
    );
    let (code, out, _) = run_in(dir.path(), &["check", "a.onnx", "b.onnx"]);
    assert_eq!(code, 1, "{out}");
    let f = findings(&out);
    assert_eq!(f.len(), 2, "{out}");
    assert!(
        f[0].starts_with("error[E1]") && f[0].contains("2 vs 4"),
        "{out}"
    );
    assert!(
        f[1].starts_with("warning[W1]") && f[1].ends_with("fails for N in 2..=3 (smallest 2)"),
        "{out}"
    );
    let (code, out, _) = run_in(dir.path(), &["check", "a.onnx", "--dim", "N=4"]);
    assert_eq!(code, 0, "{out}");
    assert!(findings(&out).is_empty(), "{out}");
    // Ignored with the file.
    let (code, out, _) = run_in(dir.path(), &["check", "--isolated", "a.onnx"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(findings(&out).len(), 1, "{out}");
}

#[test]
fn pyproject_dims_and_their_errors() {
    let dir = configured("pyproject.toml", "[tool.onnx-lint.dims]\nN = \"5..\"\n");
    let (code, out, _) = run_in(dir.path(), &["check", "a.onnx"]);
    assert_eq!(code, 0, "{out}");
    // An open range is tried from its lower end, and the clause says how far.
    assert!(
        out.contains("fails for every value tried; only N in 5..=65540 tried"),
        "{out}"
    );
    let dir = configured("onnx-lint.toml", "[dims]\nN = \"many\"\n");
    let (code, _, err) = run_in(dir.path(), &["check", "a.onnx"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("`dims.N`") && err.contains("'many' is not a size (a whole number from 0 to"),
        "{err}"
    );
    let dir = configured("onnx-lint.toml", "[dims]\nbatch = 1\n");
    let (code, out, _) = run_in(dir.path(), &["check", "a.onnx"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("no input dim of the model is named batch"),
        "{out}"
    );
}

#[test]
fn contract_conditions_are_judged_over_the_ranges_too() {
    // Concat of x [2, N] and y [2, M] on axis 0: W2 "needs M = N".
    let m = root().join("models/broken/w2_concat.onnx");
    let m = m.to_str().unwrap();
    let (code, out, _) = run(&["check", m, "--dim", "M=2..3", "--dim", "N=4..5"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.lines().next().unwrap().starts_with("error[E2]")
            && out
                .contains("needs M = N; fails for every M in 2..=3, N in 4..=5 (the bound sizes)"),
        "{out}"
    );
    let (code, out, _) = run(&["check", m, "--dim", "M=3", "--dim", "N=1..5"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(
            "N must be 3; within the bound sizes, fails for N in 1..=2 and 4..=5 (smallest 1)"
        ),
        "{out}"
    );
    let (code, out, err) = run(&["check", m, "--dim", "M=3..3", "--dim", "N=3"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        !out.contains("[W2]") && !err.contains("proven"),
        "{out}{err}"
    );
}

/// `x [N, 4]` reshaped to `[8]`: the count `N*4` against 8, a binding (I002) without ranges.
fn reshape_to_known(dir: &Path) -> PathBuf {
    let g = GraphProto {
        name: Some("g".into()),
        node: vec![node("Reshape", "flat", &["x", "shape"], &["y"])],
        input: vec![typed("x", DataType::Float, &["N", "4"])],
        output: vec![typed("y", DataType::Float, &["8"])],
        initializer: vec![onnx_lint::proto::TensorProto {
            name: Some("shape".into()),
            data_type: Some(DataType::Int64 as i32),
            dims: vec![1],
            int64_data: vec![8],
            ..Default::default()
        }],
        ..Default::default()
    };
    let m = ModelProto {
        ir_version: Some(9),
        opset_import: vec![opset("", 17)],
        graph: Some(g),
        ..Default::default()
    };
    let path = dir.join("reshape_to_known.onnx");
    fs::write(&path, m.encode_to_vec()).unwrap();
    path
}

#[test]
fn a_count_reshaped_to_known_sizes_is_judged_over_the_ranges() {
    let dir = tempdir();
    let m = reshape_to_known(dir.path());
    let m = m.to_str().unwrap();
    // Without ranges the reshape says what N is.
    let (code, out, _) = run(&["check", m, "--extend-select", "I002"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("info[I002]") && !out.contains("[W2]"), "{out}");
    // Under a range, the count is a condition with the sizes that fail, not an assumption.
    let (code, out, _) = run(&["check", m, "--extend-select", "I002", "--dim", "N=1..4"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("warning[W2]")
            && out.contains(
                "N*4 must be 8; within the bound sizes, fails for N in 1 and 3..=4 (smallest 1)"
            )
            && !out.contains("[I002]"),
        "{out}"
    );
    let (code, out, _) = run(&["check", m, "--dim", "N=3..9"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("error[E2]") && out.contains("fails for every N in 3..=9 (the bound sizes)"),
        "{out}"
    );
    let (code, out, err) = run(&["check", m, "--dim", "N=2..2"]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("[W2]") && !out.contains("[E2]"), "{out}{err}");
}

/// `If(flag)` choosing `x [N, 3] + t [4, 3]` or `x` itself; with `with_static`, a second `If(flag)`
/// choosing `t + k [5, 3]` (4 vs 5 at the model's own sizes) or `t`.
fn branches(dir: &Path, with_static: bool) -> PathBuf {
    use onnx_lint::proto::attribute_proto::AttributeType;
    use onnx_lint::proto::{AttributeProto, NodeProto};
    let branch = |attr: &str, n: NodeProto| AttributeProto {
        name: Some(attr.into()),
        r#type: Some(AttributeType::Graph as i32),
        g: Some(GraphProto {
            name: Some(format!("{}_{attr}", n.name())),
            output: vec![crate::support::proto::vi(&n.output[0])],
            node: vec![n],
            ..Default::default()
        }),
        ..Default::default()
    };
    let choose = |name: &str, out: &str, then: NodeProto, els: NodeProto| {
        let mut n = node("If", name, &["flag"], &[out]);
        n.attribute = vec![branch("then_branch", then), branch("else_branch", els)];
        n
    };
    let mut nodes = vec![choose(
        "choose",
        "y",
        node("Add", "add_x", &["x", "t"], &["s"]),
        node("Identity", "same_x", &["x"], &["i"]),
    )];
    let mut input = vec![
        typed("x", DataType::Float, &["N", "3"]),
        typed("t", DataType::Float, &["4", "3"]),
        typed("flag", DataType::Bool, &[]),
    ];
    if with_static {
        nodes.push(choose(
            "choose_k",
            "z",
            node("Add", "add_k", &["t", "k"], &["sk"]),
            node("Identity", "same_t", &["t"], &["it"]),
        ));
        input.push(typed("k", DataType::Float, &["5", "3"]));
    }
    let m = ModelProto {
        ir_version: Some(9),
        opset_import: vec![opset("", 17)],
        graph: Some(GraphProto {
            name: Some("g".into()),
            node: nodes,
            input,
            ..Default::default()
        }),
        ..Default::default()
    };
    let path = dir.join(format!("branches_{with_static}.onnx"));
    fs::write(&path, m.encode_to_vec()).unwrap();
    path
}

/// A break that only the bound sizes make, in a branch of an If whose condition inference does not
/// know, is met only when that branch runs: onnxruntime runs the model at N=2 with flag false, and
/// fails at `add_x` with flag true. It is a warning, code E1 kept, with the reason. A break at the
/// model's own sizes in such a branch stays an error under `--dim`: onnxruntime refuses that model at
/// load whatever the flag ("Graph attribute inferencing failed ... add_k").
#[test]
fn a_break_the_bound_sizes_make_in_a_branch_that_may_not_run_is_a_warning() {
    let dir = tempdir();
    let m = branches(dir.path(), false);
    let (code, out, _) = run(&["check", m.to_str().unwrap(), "--dim", "N=2"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("warning[E1]") && l.contains("'add_x'"))
            .count(),
        1,
        "{out}"
    );
    assert!(
        out.contains(
            "the node is in a branch of 'choose' (If), whose condition inference does not know"
        ),
        "{out}"
    );
    // The sizes report judges it alike: no error that holds whatever the sizes.
    let (code, out, _) = run(&["dims", m.to_str().unwrap(), "--dim", "N=2"]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("found by inference"), "{out}");
    // At a size that fits, nothing.
    let (code, out, _) = run(&["check", m.to_str().unwrap(), "--dim", "N=4"]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("[E1]"), "{out}");

    let m = branches(dir.path(), true);
    let (code, out, _) = run(&["check", m.to_str().unwrap(), "--dim", "N=2"]);
    assert_eq!(code, 1, "{out}");
    let e1: Vec<&str> = out.lines().filter(|l| l.contains("[E1]")).collect();
    assert_eq!(e1.len(), 2, "{out}");
    assert!(
        e1.iter()
            .any(|l| l.starts_with("error[E1]") && l.contains("'add_k'")),
        "{out}"
    );
    assert!(
        e1.iter()
            .any(|l| l.starts_with("warning[E1]") && l.contains("'add_x'")),
        "{out}"
    );
    // The break at the model's own sizes is the sizes report's error too.
    let (_, out, _) = run(&["dims", m.to_str().unwrap(), "--dim", "N=2"]);
    assert!(out.contains("1 error found by inference"), "{out}");
}
