//! The command line as a pipeline sees it: standard input and output, exit statuses, the shapes
//! listing, and the writer's refusals.

use crate::support::binary::{self, DEADLINE};
use crate::support::paths::{repo_model as model, tempdir};
use serde_json::Value;

/// Runs with `stdin` as standard input: (exit status, stdout, stderr).
fn run(args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, String) {
    let r = binary::run_fed(binary::command(args), args, stdin, DEADLINE);
    (r.code, r.stdout_bytes, r.stderr)
}

#[test]
fn check_reads_standard_input() {
    let bytes = std::fs::read(model("broken/e1_add.onnx")).unwrap();
    let (code, out, _) = run(&["check", "-"], &bytes);
    assert_eq!(code, 1);
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("<stdin>, graph main, node 'add_lhs_rhs' (Add)"),
        "{text}"
    );
}

#[test]
fn roundtrip_streams_standard_input_to_standard_output_unchanged() {
    let bytes = std::fs::read(model("tiny_transformer.onnx")).unwrap();
    let (code, out, _) = run(&["roundtrip", "-", "-o", "-"], &bytes);
    assert_eq!(code, 0);
    assert!(out == bytes, "byte-identical");
}

#[test]
fn shapes_json_lists_known_symbolic_and_unknown_dims() {
    let (code, out, _) = run(
        &[
            "shapes",
            "--format",
            "json",
            model("tiny_transformer.onnx").to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(code, 0);
    let doc: Value = serde_json::from_slice(&out).unwrap();
    let values = doc["values"].as_array().unwrap();
    let ids = values.iter().find(|v| v["name"] == "input_ids").unwrap();
    assert_eq!(ids["elem_type"], "INT64");
    assert_eq!(ids["graph"], "main");
    assert_eq!(ids["shape"], serde_json::json!(["batch", "seq"]));
    // Every shape is null (unknown rank) or a list of int / string / null.
    for v in values {
        match &v["shape"] {
            Value::Null => {}
            Value::Array(dims) => assert!(
                dims.iter()
                    .all(|d| d.is_u64() || d.is_string() || d.is_null())
            ),
            other => panic!("bad shape {other}"),
        }
    }
}

/// A write that cannot happen is refused before the pass reports anything: the input as the output,
/// an output in a folder that does not exist (named, not a temporary file's name).
#[test]
fn expand_fold_and_annotate_refuse_an_output_before_reporting() {
    let dir = tempdir();
    let path = dir.path().join("m.onnx");
    std::fs::copy(model("tiny_cnn.onnx"), &path).unwrap();
    let p = path.to_str().unwrap();
    for cmd in ["expand", "fold", "annotate"] {
        let (code, _, err) = run(&[cmd, p, "-o", p], b"");
        assert_eq!(code, 2, "{err}");
        assert!(
            err.starts_with("error: refusing to overwrite the input"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "nothing reported first: {err}");
        let missing = dir.path().join("no/such/folder/out.onnx");
        let (code, _, err) = run(&[cmd, p, "-o", missing.to_str().unwrap()], b"");
        assert_eq!(code, 2, "{err}");
        assert_eq!(err.lines().count(), 1, "nothing reported first: {err}");
        assert!(
            err.contains("the folder") && err.contains("does not exist"),
            "{err}"
        );
        assert!(!err.contains("temporary"), "{err}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn roundtrip_refuses_to_overwrite_its_input_unless_in_place() {
    let dir = tempdir();
    let path = dir.path().join("m.onnx");
    std::fs::copy(model("tiny_cnn.onnx"), &path).unwrap();
    let p = path.to_str().unwrap();
    let (code, _, err) = run(&["roundtrip", p, "-o", p], b"");
    assert_eq!(code, 2);
    assert!(err.contains("refusing to overwrite the input"), "{err}");
    let (code, _, _) = run(&["roundtrip", p, "-o", p, "--in-place"], b"");
    assert_eq!(code, 0);
    assert!(std::fs::read(&path).unwrap() == std::fs::read(model("tiny_cnn.onnx")).unwrap());
    // Nothing but the model is left in the folder: the temporary file was renamed.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn no_fsync_writes_the_same_model_through_a_renamed_temporary_file() {
    let dir = tempdir();
    let input = model("tiny_transformer.onnx");
    let (durable, fast) = (
        dir.path().join("durable.onnx"),
        dir.path().join("fast.onnx"),
    );
    for (out, extra) in [(&durable, None), (&fast, Some("--no-fsync"))] {
        let mut args = vec![
            "expand",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        let (code, _, err) = run(&args, b"");
        assert_eq!(code, 0, "{err}");
    }
    let (a, b) = (
        std::fs::read(&durable).unwrap(),
        std::fs::read(&fast).unwrap(),
    );
    assert!(a == b, "--no-fsync changes what is written");
    assert!(
        a != std::fs::read(&input).unwrap(),
        "expand rewrote nothing"
    );
    // The two outputs and nothing else: no temporary file left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn check_of_several_files_exits_with_the_worst_status() {
    let ok = model("tiny_cnn.onnx");
    let bad = model("broken/e1_add.onnx");
    let (code, _, _) = run(&["check", ok.to_str().unwrap()], b"");
    assert_eq!(code, 0);
    let (code, _, _) = run(&["check", ok.to_str().unwrap(), bad.to_str().unwrap()], b"");
    assert_eq!(code, 1);
    let (code, out, _) = run(&["check", bad.to_str().unwrap(), "/nonexistent.onnx"], b"");
    assert_eq!(code, 2);
    assert!(
        String::from_utf8(out)
            .unwrap()
            .contains("cannot load /nonexistent.onnx")
    );
}

/// Found by the `expand_reload` fuzz target: x [3, 4, 69] plus an untyped y, with the output declared
/// [3, 4, 5], which no y can produce. Expanding x to the declared shape planted an E1; now `expand`
/// refuses the inconsistent model and writes nothing.
#[test]
fn expand_refuses_a_declared_output_no_input_can_reach() {
    const MODEL: &[u8] = &[
        8, 7, 18, 12, 98, 97, 99, 107, 101, 110, 100, 45, 116, 101, 115, 116, 58, 103, 10, 16, 10,
        1, 120, 10, 1, 121, 18, 3, 115, 117, 109, 34, 3, 65, 100, 100, 18, 14, 116, 101, 115, 116,
        95, 97, 100, 100, 95, 98, 99, 97, 115, 116, 90, 23, 10, 1, 120, 18, 18, 10, 16, 8, 1, 18,
        12, 10, 2, 8, 3, 10, 2, 8, 4, 10, 2, 8, 69, 90, 15, 10, 1, 121, 18, 10, 114, 8, 8, 1, 18,
        4, 10, 2, 8, 5, 98, 25, 10, 3, 115, 117, 109, 18, 18, 10, 16, 8, 1, 18, 12, 10, 2, 8, 3,
        10, 2, 8, 4, 10, 2, 8, 5, 66, 4, 10, 0, 16, 14,
    ];
    let dir = tempdir();
    let input = dir.path().join("m.onnx");
    let out = dir.path().join("out.onnx");
    std::fs::write(&input, MODEL).unwrap();
    let (code, _, err) = run(
        &[
            "expand",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("cannot be broadcast to the output shape [3, 4, 5]"),
        "{err}"
    );
    assert!(!out.exists());
}

/// The process's umask, from /proc (reading it with umask(2) would change it).
#[cfg(target_os = "linux")]
fn umask() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("Umask:")).unwrap();
    u32::from_str_radix(line["Umask:".len()..].trim(), 8).unwrap()
}

#[cfg(target_os = "linux")]
#[test]
fn written_models_get_the_mode_of_a_new_file_or_keep_the_one_they_replace() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir();
    let out = dir.path().join("out.onnx");
    let out_arg = out.to_str().unwrap();
    let src = model("tiny_cnn.onnx");
    let (code, _, err) = run(&["expand", src.to_str().unwrap(), "-o", out_arg], b"");
    assert_eq!(code, 0, "{err}");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    // Not the private 0600 of the temporary file it was written through.
    assert_eq!(mode(&out), 0o666 & !umask());
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
    let (code, _, err) = run(&["roundtrip", src.to_str().unwrap(), "-o", out_arg], b"");
    assert_eq!(code, 0, "{err}");
    assert_eq!(mode(&out), 0o640);
}

/// `expand` and `fold` refuse a model with a broken contract (E2) or a value out of range (E3) as
/// they refuse one with an E1: the findings on standard error, exit 1, nothing written.
#[test]
fn expand_and_fold_refuse_broken_contracts_as_they_refuse_e1() {
    let dir = tempdir();
    for name in ["e1_add", "e2_matmul", "e2_many", "e3_values"] {
        let input = model(&format!("broken/{name}.onnx"));
        for cmd in ["expand", "fold"] {
            let out = dir.path().join(format!("{name}-{cmd}.onnx"));
            let (code, _, err) = run(
                &[cmd, input.to_str().unwrap(), "-o", out.to_str().unwrap()],
                b"",
            );
            assert_eq!(code, 1, "{cmd} {name}: {err}");
            assert!(
                err.contains("nothing was written") && err.contains("error[E"),
                "{cmd} {name}: {err}"
            );
            assert!(!out.exists(), "{cmd} {name} wrote {}", out.display());
        }
    }
    // A W2 alone is no error: the model is written.
    let out = dir.path().join("w2.onnx");
    let input = model("broken/w2_concat.onnx");
    let (code, _, err) = run(
        &[
            "expand",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.exists());
}

/// JSON and SARIF carry the contract's name beside the code.
#[test]
fn json_and_sarif_name_the_contract() {
    let m = model("broken/e2_matmul.onnx");
    let (_, out, _) = run(&["check", "--format", "json", m.to_str().unwrap()], b"");
    let doc: Value = serde_json::from_slice(&out).unwrap();
    let d = &doc["diagnostics"][0];
    assert_eq!(
        (d["code"].as_str(), d["contract"].as_str()),
        (Some("E2"), Some("matmul-inner"))
    );
    assert_eq!(d["sizes"], serde_json::json!([64, 63]));
    let (_, out, _) = run(&["check", "--format", "sarif", m.to_str().unwrap()], b"");
    let doc: Value = serde_json::from_slice(&out).unwrap();
    let r = &doc["runs"][0]["results"][0];
    assert_eq!(r["ruleId"], "E2");
    assert_eq!(r["properties"]["contract"], "matmul-inner");
}
