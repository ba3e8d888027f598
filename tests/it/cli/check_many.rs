//! `check` over many models, as a CI pipeline runs it: folders searched for `*.onnx`, the run summary,
//! exit statuses, GitHub workflow commands, no progress bar in pipes, and SARIF valid against the 2.1.0
//! schema.

use crate::support::binary::{self, BIN, DEADLINE, Run};
use crate::support::paths::{repo_model as model, root, s, tempdir};
use serde_json::Value;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Runs in `cwd` with no standard input; stdout and stderr are pipes, and stdout must be UTF-8.
fn run_in(cwd: &Path, args: &[&str]) -> Run {
    let mut cmd = binary::command(args);
    cmd.current_dir(cwd);
    let r = binary::run_command(cmd, args, DEADLINE);
    r.stdout_utf8();
    r
}

fn run(args: &[&str]) -> Run {
    run_in(&root(), args)
}

fn copy(from: &str, to: &Path) {
    fs::create_dir_all(to.parent().unwrap()).unwrap();
    fs::copy(model(from), to).unwrap();
}

/// A tree of three models under nested folders, and files `check` must pass over.
fn tree() -> tempfile::TempDir {
    let dir = tempdir();
    let root = dir.path();
    copy("tiny_cnn.onnx", &root.join("b_clean.onnx"));
    copy("broken/e1_add.onnx", &root.join("a/deep/er/e1.onnx"));
    copy("broken/e1_symbolic_warning.onnx", &root.join("a/w1.onnx"));
    fs::write(root.join("notes.txt"), b"not a model").unwrap();
    fs::write(root.join("a/model.onnx.bak"), b"not a model").unwrap();
    fs::write(root.join("a/deep/garbage.pb"), [0x3a, 0xff]).unwrap();
    fs::create_dir_all(root.join("empty")).unwrap();
    dir
}

#[test]
fn a_folder_is_searched_recursively_for_onnx_files_in_name_order() {
    let dir = tree();
    let r = run_in(dir.path(), &["check", "."]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let counts: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("./") && l.contains(": "))
        .collect();
    assert_eq!(
        counts,
        [
            "./a/deep/er/e1.onnx: 1 error, 0 warnings",
            "./a/w1.onnx: 0 errors, 1 warning",
            "./b_clean.onnx: 0 errors, 0 warnings",
        ],
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("notes.txt") && !r.stdout.contains(".bak"));
    assert!(!r.stdout.contains("garbage"), "{}", r.stdout);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
}

#[test]
fn the_summary_counts_models_findings_and_codes() {
    let dir = tree();
    let garbage = dir.path().join("z_garbage.onnx");
    fs::write(&garbage, [0x3a, 0xff]).unwrap();
    let r = run_in(
        dir.path(),
        &["check", "a", "b_clean.onnx", "z_garbage.onnx"],
    );
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stdout.ends_with(
            "4 models checked: 1 error, 1 warning, 1 not loadable\n  \
             models: 1 with errors, 1 with warnings only, 1 clean, 1 not loadable\n  \
             findings by code: E1 broadcast-error 1, W1 possible-broadcast-error 1\n"
        ),
        "{}",
        r.stdout
    );
    // One model: its own count line and nothing more.
    let one = run_in(dir.path(), &["check", "b_clean.onnx"]);
    assert_eq!(one.stdout, "b_clean.onnx: 0 errors, 0 warnings\n");
}

#[test]
fn exit_status_is_the_worst_of_the_run() {
    let dir = tree();
    let root = dir.path();
    assert_eq!(run_in(root, &["check", "b_clean.onnx"]).code, 0);
    assert_eq!(
        run_in(root, &["check", "a/w1.onnx", "b_clean.onnx"]).code,
        0
    );
    assert_eq!(run_in(root, &["check", "a"]).code, 1);
    assert_eq!(run_in(root, &["check", "a", "missing.onnx"]).code, 2);
    // A folder without models is no failure, but says so.
    let empty = run_in(root, &["check", "empty"]);
    assert_eq!(empty.code, 0);
    assert!(
        empty.stderr.contains("no *.onnx file in empty"),
        "{}",
        empty.stderr
    );
}

#[test]
fn a_file_named_on_the_command_line_is_checked_whatever_its_extension() {
    let dir = tree();
    copy("tiny_cnn.onnx", &dir.path().join("model.bin"));
    let r = run_in(dir.path(), &["check", "model.bin"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.stdout, "model.bin: 0 errors, 0 warnings\n");
    let r = run_in(dir.path(), &["check", "notes.txt"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stdout.starts_with("error: cannot load notes.txt: "),
        "{}",
        r.stdout
    );
}

#[cfg(unix)]
#[test]
fn symlink_loops_do_not_hang_and_no_model_is_checked_twice() {
    use std::os::unix::fs::symlink;
    let dir = tree();
    let root = dir.path();
    symlink("..", root.join("a/deep/up")).unwrap();
    symlink(root, root.join("a/root")).unwrap();
    symlink("loop.onnx", root.join("loop.onnx")).unwrap();
    symlink("b_clean.onnx", root.join("c_link.onnx")).unwrap();
    let mut child = Command::new(BIN)
        .args(["check", "--format", "json", "."])
        .current_dir(root)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("check of a folder with symlink loops did not finish");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    // The self-referencing link cannot be loaded: exit 2, and it is named.
    assert_eq!(out.status.code(), Some(2));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<&str> = doc["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["file"].as_str().unwrap())
        .collect();
    assert_eq!(errors, ["./loop.onnx"]);
    let mut files: Vec<&str> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    files.dedup();
    // The link to a model file is checked (it has no finding, as its target); no folder link is entered.
    assert_eq!(files, ["./a/deep/er/e1.onnx", "./a/w1.onnx"], "{doc}");
}

#[cfg(unix)]
#[test]
fn unreadable_files_and_folders_are_load_failures_with_their_path() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let dir = tree();
    let root = dir.path();
    // Unreadable for everyone, root included: a link to nothing.
    symlink("nowhere.onnx", root.join("a/dangling.onnx")).unwrap();
    let r = run_in(root, &["check", "."]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stdout.contains("error: cannot load ./a/dangling.onnx: "),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("./a/deep/er/e1.onnx: 1 error"),
        "the others are still checked"
    );

    // Permissions stop everyone but root: check them only when they apply.
    let secret = root.join("secret.onnx");
    copy("tiny_cnn.onnx", &secret);
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o000)).unwrap();
    let locked = root.join("locked");
    copy("tiny_cnn.onnx", &locked.join("inside.onnx"));
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let privileged = fs::read(&secret).is_ok();
    let r = run_in(root, &["check", "secret.onnx", "locked"]);
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    if privileged {
        assert_eq!(r.code, 0, "{}", r.stdout);
        eprintln!("running as root: permission checks skipped");
        return;
    }
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stdout.contains("error: cannot load secret.onnx: ")
            && r.stdout
                .contains("error: cannot load locked: cannot read folder: "),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("2 models checked: 0 errors, 0 warnings, 2 not loadable")
    );
}

/// Inverse of the escaping GitHub documents for workflow command properties and data.
fn unescape(s: &str) -> String {
    s.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

/// Splits `::command k=v,k=v::data` into its parts.
fn workflow_command(line: &str) -> (&str, Vec<(&str, &str)>, &str) {
    let rest = line.strip_prefix("::").unwrap();
    let (head, data) = rest.split_once("::").unwrap();
    let (command, props) = head.split_once(' ').unwrap();
    let props = props
        .split(',')
        .map(|p| p.split_once('=').unwrap())
        .collect();
    (command, props, data)
}

#[test]
fn github_format_writes_one_workflow_command_per_finding() {
    let r = run(&[
        "check",
        "--format",
        "github",
        "models/broken/e1_multi.onnx",
        "models/broken/e1_symbolic_warning.onnx",
        "models/tiny_cnn.onnx",
    ]);
    assert_eq!(r.code, 1);
    let commands: Vec<_> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("::"))
        .map(workflow_command)
        .collect();
    assert_eq!(commands.len(), 4, "{}", r.stdout);
    let (command, props, data) = &commands[0];
    assert_eq!(*command, "error");
    assert_eq!(
        props,
        &[("file", "models/broken/e1_multi.onnx"), ("title", "E1")]
    );
    assert!(
        data.starts_with("broadcast-error: inputs of 'mul_gate' (Mul) cannot be broadcast"),
        "{data}"
    );
    assert!(
        data.contains("%0Agraph main, node 'mul_gate' (Mul)%0Ainput 0 'features'"),
        "{data}"
    );
    assert_eq!(commands[3].0, "warning");
    assert_eq!(commands[3].1[1], ("title", "W1"));
    // The summary closes the log, as in text.
    assert!(
        r.stdout
            .contains("3 models checked: 3 errors, 1 warning, 0 not loadable\n")
    );
}

#[cfg(unix)]
#[test]
fn github_format_escapes_hostile_file_names() {
    let dir = tempdir();
    let names = [
        "comma,title=pwned.onnx",
        "colon: ::error ::x.onnx",
        "new\nline\r\n::error file=x::injected.onnx",
        "100% %0A %2C.onnx",
    ];
    for n in names {
        copy("broken/e1_add.onnx", &dir.path().join(n));
    }
    fs::write(dir.path().join("bad,%\n:load.onnx"), [0x3a, 0xff]).unwrap();
    let r = run_in(dir.path(), &["check", "--format", "github", "."]);
    assert_eq!(r.code, 2);
    let mut files = Vec::new();
    for line in r.stdout.lines() {
        if !line.starts_with("::") {
            // Only the summary's lines, which hold numbers and codes.
            assert!(
                line.starts_with("5 models checked") || line.starts_with("  "),
                "stray line: {line:?}"
            );
            continue;
        }
        let (command, props, data) = workflow_command(line);
        assert_eq!(command, "error");
        assert_eq!(props.len(), 2, "{line}");
        assert_eq!(props[0].0, "file");
        let file = unescape(props[0].1);
        if props[1].1 == "load-error" {
            assert!(
                data.starts_with("cannot load ./bad,%25\\n:load.onnx: "),
                "{data}"
            );
        } else {
            assert_eq!(props[1], ("title", "E1"));
        }
        files.push(file);
    }
    let mut expected: Vec<String> = names.iter().map(|n| format!("./{n}")).collect();
    expected.push("./bad,%\n:load.onnx".into());
    expected.sort();
    files.sort();
    assert_eq!(files, expected);
}

#[test]
fn no_progress_output_when_standard_error_is_a_pipe() {
    // Standard input that stays open for longer than the bar's delay makes a long run: the bar
    // would be drawn by now if stderr were a terminal.
    let mut child = Command::new(BIN)
        .args([
            "check",
            "models/tiny_cnn.onnx",
            "-",
            "models/broken/e1_add.onnx",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::thread::sleep(Duration::from_millis(1600));
    stdin
        .write_all(&fs::read(model("tiny_transformer.onnx")).unwrap())
        .unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stderr.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        !stdout.contains('\r') && !stdout.contains('\x1b'),
        "{stdout:?}"
    );
    assert!(stdout.contains("<stdin>: 0 errors"), "{stdout}");
}

#[test]
fn a_folder_of_thousands_of_models_is_checked_in_bounded_memory() {
    let dir = tempdir();
    let original = dir.path().join("original.bin");
    copy("tiny_transformer.onnx", &original);
    const N: usize = 2000;
    for i in 0..N {
        let p = dir.path().join(format!("d{}/m{i:04}.onnx", i % 10));
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::hard_link(&original, &p).unwrap();
    }
    let out = Command::new(BIN)
        .args(["check", "--format", "sarif", "."])
        .current_dir(dir.path())
        .env("ONNX_LINT_DEBUG_RSS", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["runs"][0]["invocations"][0]["executionSuccessful"],
        true
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let peak_kb: u64 = stderr
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmHWM in {stderr}"));
    assert!(peak_kb < 100 * 1024, "peak RSS {peak_kb} kB for {N} models");
}

#[test]
fn json_and_sarif_are_one_document_for_all_files() {
    let r = run(&["check", "--format", "json", "models/broken"]);
    assert_eq!(r.code, 1);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    let files: std::collections::BTreeSet<&str> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    let on_disk = fs::read_dir(model("broken"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "onnx")
        })
        .count();
    assert_eq!(files.len(), on_disk, "every broken model has a finding");
    assert!(files.iter().all(|f| f.starts_with("models/broken/")));
}

// --- SARIF ----------------------------------------------------------------------------------------
// The logs' validity against the SARIF 2.1.0 schema is checked by the Python suite
// (python/tests/test_schemas.py, with the `jsonschema` package); these check what the logs say.

fn sarif_log(args: &[&str], cwd: &Path) -> Value {
    let mut all = vec!["check", "--format", "sarif"];
    all.extend_from_slice(args);
    let r = run_in(cwd, &all);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["version"], "2.1.0");
    doc
}

#[test]
fn sarif_of_a_clean_model_has_no_results() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = sarif_log(&["models/tiny_cnn.onnx"], root);
    assert_eq!(doc["runs"][0]["results"].as_array().unwrap().len(), 0);
}

#[test]
fn sarif_of_the_broken_models_has_errors_and_warnings() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut levels = std::collections::BTreeSet::new();
    for e in fs::read_dir(model("broken")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "onnx") {
            let doc = sarif_log(&[s(&p)], root);
            for r in doc["runs"][0]["results"].as_array().unwrap() {
                levels.insert(r["level"].as_str().unwrap().to_owned());
            }
        }
    }
    // E1 and W1 both appear, each at its level.
    assert!(
        levels.contains("error") && levels.contains("warning"),
        "{levels:?}"
    );
}

#[test]
fn sarif_of_load_failures_and_many_files_at_once() {
    let dir = tree();
    let root = dir.path();
    fs::write(root.join("garbage.onnx"), [0x3a, 0xff]).unwrap();
    fs::write(root.join("empty.onnx"), b"").unwrap();
    for n in [
        "comma, colon: percent% #hash?q.onnx",
        "new\nline.onnx",
        "ünï cödé.onnx",
    ] {
        copy("broken/e1_add.onnx", &root.join(n));
    }
    let doc = sarif_log(&["garbage.onnx"], root);
    assert_eq!(
        doc["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );
    let manifest = env!("CARGO_MANIFEST_DIR");
    let broken = model("broken");
    let doc = sarif_log(
        &[
            ".",
            s(&broken),
            &format!("{manifest}/models/tiny_cnn.onnx"),
            "missing.onnx",
        ],
        root,
    );
    let run = &doc["runs"][0];
    assert_eq!(
        run["invocations"][0]["toolExecutionNotifications"]
            .as_array()
            .unwrap()
            .len(),
        3,
        "garbage.onnx, empty.onnx and missing.onnx (a/deep/garbage.pb is not searched): {run}"
    );
}

#[test]
fn sarif_of_an_unused_suppression_points_at_the_configuration() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = sarif_log(
        &[
            "--config",
            "docs/examples/s001.toml",
            "models/broken/e1_add.onnx",
        ],
        root,
    );
    let results = doc["runs"][0]["results"].as_array().unwrap();
    let s001 = results.iter().find(|r| r["ruleId"] == "S001").unwrap();
    let loc = &s001["locations"][0];
    assert_eq!(
        loc["physicalLocation"]["artifactLocation"]["uri"],
        "docs/examples/s001.toml"
    );
    assert!(loc.get("logicalLocations").is_none(), "{loc}");
}

/// `--jobs N` checks models on N threads and writes the report of `--jobs 1`, byte for byte, in
/// every format and with what `check` does after the findings (suppressions, baselines, statistics).
#[test]
fn any_number_of_jobs_gives_the_one_job_output() {
    let dir = tempdir();
    let root = dir.path();
    // Models of very different sizes, so that later ones finish first on other threads.
    for (i, name) in [
        "tiny_transformer.onnx",
        "broken/e1_add.onnx",
        "tiny_cnn.onnx",
        "broken/e1_symbolic_warning.onnx",
        "broken/e1_multi.onnx",
        "broken/w1_fpn_detector.onnx",
    ]
    .iter()
    .cycle()
    .take(30)
    .enumerate()
    {
        copy(name, &root.join(format!("m{i:02}.onnx")));
    }
    fs::write(root.join("m99.onnx"), [0x3a, 0xff]).unwrap();
    fs::write(
        root.join("onnx-lint.toml"),
        "[[suppress]]\nmodel = \"m01.onnx\"\ncode = \"E1\"\nreason = \"test\"\n\
         [[suppress]]\ncode = \"T004\"\nnode = \"nothing\"\nreason = \"unused\"\n",
    )
    .unwrap();
    // m99 cannot be loaded (status 2); the baseline of the others is written all the same.
    let b = run_in(
        root,
        &["check", "-j", "1", "--write-baseline", "b.json", "."],
    );
    assert_eq!(b.code, 2, "{}", b.stderr);
    assert!(root.join("b.json").is_file());
    for extra in [
        &["--format", "text"][..],
        &["--format", "json"],
        &["--format", "sarif"],
        &["--format", "github"],
        &["--statistics"],
        &["--baseline", "b.json", "--explicit"],
    ] {
        let mut one = vec!["check", "--jobs", "1"];
        one.extend_from_slice(extra);
        one.push(".");
        let reference = run_in(root, &one);
        assert!(
            reference.stdout.len() > 100,
            "{extra:?}: {}",
            reference.stdout
        );
        for jobs in ["2", "3", "8"] {
            let mut many = one.clone();
            many[2] = jobs;
            let got = run_in(root, &many);
            assert_eq!(got.code, reference.code, "{extra:?} -j {jobs}");
            assert_eq!(got.stdout, reference.stdout, "{extra:?} -j {jobs}");
            assert_eq!(got.stderr, reference.stderr, "{extra:?} -j {jobs}");
        }
    }
}
