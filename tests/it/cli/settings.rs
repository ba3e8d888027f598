//! What `check` reports, through the binary: rule selection (`--select`, `--ignore`, `--extend-select`
//! by code, prefix and name), severity overrides, `--exit-zero`, `--quiet`, `--statistics`,
//! `--output-file`, configuration files found from each model's folder upwards (and in
//! `pyproject.toml`), `--config`, `--isolated`, `--show-settings`, strictness about unknown keys and
//! codes, per-file ignores, suppressions with reasons and their unused report, and baselines.

use crate::support::binary;
use crate::support::paths::tempdir;
use std::fs;
use std::path::{Path, PathBuf};

/// Runs `check` with `args` in `cwd`, colour left to the command line: (exit status, stdout, stderr).
fn check(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let args: Vec<&str> = ["check"].iter().chain(args).copied().collect();
    let mut cmd = binary::command(&args);
    cmd.current_dir(cwd)
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR");
    let r = binary::run_command(cmd, &args, binary::DEADLINE);
    (r.code, r.stdout, r.stderr)
}

fn models() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/broken")
}

/// A model with one E1 (node `add_lhs_rhs`).
const E1: &str = "e1_add.onnx";
/// A model with one W1 (node `add_symbolic`).
const W1: &str = "e1_symbolic_warning.onnx";

/// Copies `model` from models/broken into `dir` under `name`.
fn place(dir: &Path, model: &str, name: &str) -> PathBuf {
    let dest = dir.join(name);
    fs::create_dir_all(dest.parent().unwrap()).unwrap();
    fs::copy(models().join(model), &dest).unwrap();
    dest
}

/// The codes of the findings in a text report, in order.
fn codes(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| {
            let open = l.find('[')?;
            let close = l.find(']')?;
            let sev = &l[..open];
            ["error", "warning", "info"]
                .contains(&sev)
                .then(|| l[open + 1..close].to_owned())
        })
        .collect()
}

/// A folder with the E1 and W1 models, and no configuration above it (temporary folders are
/// outside the repository).
fn two_models() -> (tempfile::TempDir, PathBuf) {
    let dir = tempdir();
    let root = dir.path().canonicalize().unwrap();
    place(&root, E1, "e1.onnx");
    place(&root, W1, "w1.onnx");
    (dir, root)
}

#[test]
fn select_ignore_and_extend_select_take_codes_prefixes_and_names() {
    let (_d, root) = two_models();
    let run = |args: &[&str]| {
        let mut a = args.to_vec();
        a.extend(["e1.onnx", "w1.onnx"]);
        let (status, out, _) = check(&root, &a);
        (status, codes(&out))
    };
    assert_eq!(run(&[]), (1, vec!["E1".into(), "W1".into()]));
    assert_eq!(run(&["--select", "W"]), (0, vec!["W1".into()]));
    assert_eq!(
        run(&["--select", "broadcast-error"]),
        (1, vec!["E1".into()])
    );
    assert_eq!(run(&["--ignore", "E1"]), (0, vec!["W1".into()]));
    assert_eq!(run(&["--ignore", "E,W"]), (0, vec![]));
    // The more specific selector wins.
    assert_eq!(
        run(&["--select", "E1", "--ignore", "E"]),
        (1, vec!["E1".into()])
    );
    // B001 is off by default; --extend-select (or --explicit) turns it on.
    let (_, with_b001) = run(&["--select", "W1", "--extend-select", "implicit-broadcast"]);
    assert!(with_b001.iter().any(|c| c == "B001"), "{with_b001:?}");
    assert!(!with_b001.iter().any(|c| c == "E1"), "{with_b001:?}");
    let (_, explicit) = run(&["--explicit", "--select", "W1,B001"]);
    assert_eq!(explicit, with_b001);
}

/// I002 (a symbol bound by a declared shape) asks nothing of the user: off until selected, by code,
/// name, prefix or ALL, on the command line or in a configuration.
#[test]
fn i002_is_reported_only_when_selected() {
    let dir = tempdir();
    let root = dir.path().canonicalize().unwrap();
    let example = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/examples/i002.onnx");
    fs::copy(example, root.join("m.onnx")).unwrap();
    let (code, out, _) = check(&root, &["m.onnx"]);
    assert_eq!((code, codes(&out)), (0, vec![]), "{out}");
    for sel in [
        &["--extend-select", "I002"][..],
        &["--extend-select", "symbol-binding"],
        &["--select", "I"],
        &["--select", "ALL"],
    ] {
        let args: Vec<&str> = sel.iter().copied().chain(["m.onnx"]).collect();
        let (code, out, _) = check(&root, &args);
        assert_eq!(
            (code, codes(&out)),
            (0, vec!["I002".to_owned()]),
            "{sel:?}: {out}"
        );
    }
    fs::write(root.join("onnx-lint.toml"), "extend-select = [\"I002\"]\n").unwrap();
    let (code, out, _) = check(&root, &["m.onnx"]);
    assert_eq!((code, codes(&out)), (0, vec!["I002".to_owned()]), "{out}");
}

#[test]
fn unknown_selectors_stop_the_run_with_status_2() {
    let (_d, root) = two_models();
    let (status, out, err) = check(&root, &["--select", "E9", "e1.onnx"]);
    assert_eq!(status, 2);
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("--select") && err.contains("`E9`"), "{err}");
}

#[test]
fn severity_overrides_decide_the_exit_status() {
    let (_d, root) = two_models();
    let (status, out, _) = check(&root, &["w1.onnx"]);
    assert_eq!(status, 0);
    assert!(out.starts_with("warning[W1]"), "{out}");
    let (status, out, _) = check(&root, &["--error", "W1", "w1.onnx"]);
    assert_eq!(status, 1);
    assert!(out.starts_with("error[W1]"), "{out}");
    let (status, out, _) = check(&root, &["--warn", "E1", "e1.onnx"]);
    assert_eq!(status, 0);
    assert!(out.starts_with("warning[E1]"), "{out}");
}

#[test]
fn exit_zero_quiet_statistics_and_output_file() {
    let (_d, root) = two_models();
    let (status, out, _) = check(&root, &["--exit-zero", "e1.onnx"]);
    assert_eq!(status, 0);
    assert_eq!(codes(&out), ["E1"]);
    // A model that cannot be loaded still gives 2.
    fs::write(root.join("junk.onnx"), b"\xff\xff").unwrap();
    assert_eq!(check(&root, &["--exit-zero", "junk.onnx"]).0, 2);

    let (_, loud, _) = check(&root, &["e1.onnx", "w1.onnx"]);
    let (status, quiet, _) = check(&root, &["--quiet", "e1.onnx", "w1.onnx"]);
    assert_eq!(status, 1);
    assert!(loud.contains("models checked") && loud.contains("e1.onnx: 1 error"));
    assert!(
        !quiet.contains("checked") && !quiet.contains("1 error,"),
        "{quiet}"
    );
    assert_eq!(codes(&quiet), codes(&loud));

    let (status, stats, _) = check(&root, &["--statistics", "e1.onnx", "w1.onnx", "e1.onnx"]);
    assert_eq!(status, 1);
    assert_eq!(
        stats,
        "     2  E1    broadcast-error\n     1  W1    possible-broadcast-error\n"
    );
    let (_, json, _) = check(&root, &["--statistics", "--format", "json", "e1.onnx"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v[0]["code"], "E1");
    assert_eq!(v[0]["count"], 1);

    let (status, stdout, _) = check(&root, &["-o", "report.json", "--format", "json", "e1.onnx"]);
    assert_eq!(status, 1);
    assert!(stdout.is_empty(), "{stdout}");
    let written: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(root.join("report.json")).unwrap()).unwrap();
    let (_, direct, _) = check(&root, &["--format", "json", "e1.onnx"]);
    assert_eq!(
        written,
        serde_json::from_str::<serde_json::Value>(&direct).unwrap()
    );
}

#[test]
fn the_nearest_configuration_of_each_model_applies() {
    let dir = tempdir();
    let root = dir.path().canonicalize().unwrap();
    place(&root, E1, "top.onnx");
    place(&root, E1, "team/a/deep.onnx");
    place(&root, E1, "lib/py.onnx");
    fs::write(root.join("onnx-lint.toml"), "ignore = [\"E1\"]\n").unwrap();
    // A nearer file replaces the farther one for the models under it (it does not merge).
    fs::write(root.join("team/onnx-lint.toml"), "warn = [\"E1\"]\n").unwrap();
    fs::write(
        root.join("lib/pyproject.toml"),
        "[project]\nname = \"x\"\n\n[tool.onnx-lint]\nerror = [\"E1\"]\nextend-select = [\"B\"]\n",
    )
    .unwrap();
    let (status, out, _) = check(&root, &["top.onnx"]);
    assert_eq!((status, codes(&out)), (0, vec![]));
    let (status, out, _) = check(&root, &["team/a/deep.onnx"]);
    assert_eq!(status, 0);
    assert!(out.starts_with("warning[E1]"), "{out}");
    let (status, out, _) = check(&root, &["lib/py.onnx"]);
    assert_eq!(status, 1);
    assert!(out.starts_with("error[E1]"), "{out}");
    // One run, three configurations; from another folder the same.
    let (status, out, _) = check(&root.join("team"), &["..", "--quiet"]);
    assert_eq!(status, 1);
    // lib/ extends the selection with B (its implicit broadcasts).
    assert_eq!(codes(&out), ["E1", "B001", "B001", "E1"], "{out}");
    // The command line goes over the configuration; --isolated reads none; --config names one.
    assert_eq!(check(&root, &["--select", "E1", "top.onnx"]).0, 1);
    assert_eq!(check(&root, &["--isolated", "top.onnx"]).0, 1);
    let (status, out, _) = check(&root, &["--config", "team/onnx-lint.toml", "top.onnx"]);
    assert_eq!(status, 0);
    assert!(out.starts_with("warning[E1]"), "{out}");
    // A pyproject.toml without the table does not count: the search goes on upwards.
    fs::write(
        root.join("team/a/pyproject.toml"),
        "[project]\nname = \"y\"\n",
    )
    .unwrap();
    assert!(
        check(&root, &["team/a/deep.onnx"])
            .1
            .starts_with("warning[E1]")
    );
}

#[test]
fn unknown_keys_and_codes_in_a_configuration_give_status_2_naming_them() {
    let dir = tempdir();
    let root = dir.path().canonicalize().unwrap();
    place(&root, E1, "m.onnx");
    let cases = [
        ("onnx-lint.toml", "slect = [\"E1\"]\n", "slect"),
        ("onnx-lint.toml", "ignore = [\"E77\"]\n", "E77"),
        (
            "onnx-lint.toml",
            "[per-file-ignores]\n\"*.onnx\" = [\"nope\"]\n",
            "per-file-ignores",
        ),
        ("onnx-lint.toml", "[[suppress]]\ncode = \"E1\"\n", "reason"),
        (
            "pyproject.toml",
            "[tool.onnx-lint]\nselet = [\"E\"]\n",
            "selet",
        ),
        ("onnx-lint.toml", "select = \"E1\"\n", "select"),
    ];
    for (name, text, named) in cases {
        fs::write(root.join(name), text).unwrap();
        let (status, out, err) = check(&root, &["m.onnx"]);
        assert_eq!(status, 2, "{text}: {err}");
        assert!(out.is_empty(), "{text}: {out}");
        assert!(err.contains(named) && err.contains(name), "{text}: {err}");
        fs::remove_file(root.join(name)).unwrap();
    }
}

/// A configuration the TOML parser refuses is shown as the parser draws it: the line of the file
/// with a caret under the bad key, on lines of their own; a control character in the file or a
/// line break in its folder's name stays escaped.
#[test]
fn a_configuration_error_keeps_the_parsers_diagram_and_escapes_the_rest() {
    let dir = tempdir();
    let root = dir.path().canonicalize().unwrap();
    let odd = root.join("odd\nname");
    fs::create_dir(&odd).unwrap();
    place(&odd, E1, "m.onnx");
    fs::write(odd.join("onnx-lint.toml"), "ignroe = [\"I\"]\n").unwrap();
    let (status, out, err) = check(&odd, &["m.onnx"]);
    assert_eq!(status, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].starts_with("error: invalid configuration "),
        "{err}"
    );
    assert!(
        lines[0].contains("odd\\nname"),
        "the folder's line break is escaped: {err}"
    );
    assert!(lines.contains(&"1 | ignroe = [\"I\"]"), "{err}");
    assert!(
        lines.iter().any(|l| l.trim_start().starts_with("| ^")),
        "{err}"
    );
    assert!(err.contains("unknown field `ignroe`"), "{err}");
    assert!(
        !err.contains("\\n  |"),
        "no escaped line break in the diagram: {err}"
    );

    fs::write(odd.join("onnx-lint.toml"), "ignore = [\"I\u{1b}[31m\"]\n").unwrap();
    let (status, _, err) = check(&odd, &["m.onnx"]);
    assert_eq!(status, 2, "{err}");
    assert!(!err.contains('\u{1b}'), "{err}");
    assert!(err.contains("\\u{1b}"), "{err}");
}

/// With several jobs (the walk shared out, the checks on threads) a bad configuration met late in
/// the folder still stops the run with nothing reported, as with one job.
#[test]
fn a_bad_configuration_late_in_a_folder_stops_every_number_of_jobs_alike() {
    let dir = tempdir();
    let root = dir.path().canonicalize().unwrap();
    for i in 0..12 {
        place(&root, E1, &format!("a{i:02}/m.onnx"));
    }
    place(&root, E1, "z/m.onnx");
    fs::write(root.join("z/onnx-lint.toml"), "slect = [\"E1\"]\n").unwrap();
    let one = check(&root, &["--jobs", "1", "."]);
    assert_eq!(one.0, 2, "{}", one.2);
    assert!(one.1.is_empty(), "{}", one.1);
    assert!(one.2.contains("slect"), "{}", one.2);
    for jobs in ["2", "3", "8"] {
        assert_eq!(check(&root, &["--jobs", jobs, "."]), one, "--jobs {jobs}");
    }
    // Without it, every job count reports the same.
    fs::remove_file(root.join("z/onnx-lint.toml")).unwrap();
    let one = check(&root, &["--jobs", "1", "."]);
    assert_eq!(one.0, 1, "{}", one.2);
    for jobs in ["2", "3", "8"] {
        assert_eq!(check(&root, &["--jobs", jobs, "."]), one, "--jobs {jobs}");
    }
}

/// Folders with configurations of their own at several depths (each model under the nearest one,
/// a `pyproject.toml` without the table passed over, a test-data folder beside each model), walked
/// and checked on 4 threads: the report is the one-thread report, byte for byte, in text and JSON,
/// and so are the unused suppressions of each configuration.
#[test]
fn nested_configurations_give_the_one_job_report_on_four_jobs() {
    let dir = tempdir();
    let root = dir.path().canonicalize().unwrap();
    fs::write(
        root.join("onnx-lint.toml"),
        "[[suppress]]\ncode = \"T004\"\nnode = \"nothing\"\nreason = \"unused at the top\"\n",
    )
    .unwrap();
    for i in 0..24 {
        let folder = format!("g{}/m{i:02}", i % 3);
        place(
            &root,
            if i % 2 == 0 { E1 } else { W1 },
            &format!("{folder}/model.onnx"),
        );
        fs::create_dir_all(root.join(&folder).join("test_data_set_0")).unwrap();
        fs::write(root.join(&folder).join("test_data_set_0/input_0.pb"), b"").unwrap();
        match i % 4 {
            0 => fs::write(
                root.join(&folder).join("onnx-lint.toml"),
                "ignore = [\"E1\"]\n",
            ),
            1 => fs::write(
                root.join(&folder).join("pyproject.toml"),
                "[tool.onnx-lint]\nerror = [\"W1\"]\n",
            ),
            2 => fs::write(
                root.join(&folder).join("pyproject.toml"),
                "[project]\nname = \"x\"\n",
            ),
            _ => Ok(()),
        }
        .unwrap();
    }
    fs::write(
        root.join("g1/.onnx-lint.toml"),
        "[[suppress]]\ncode = \"E1\"\nreason = \"g1 accepts it\"\n\
         [[suppress]]\ncode = \"T004\"\nreason = \"unused in g1\"\n",
    )
    .unwrap();
    place(&root, E1, "top.onnx");
    for format in ["text", "json"] {
        let one = check(&root, &["--jobs", "1", "--format", format, "."]);
        assert_eq!(one.0, 1, "{}", one.2);
        assert!(one.1.contains("g1"), "{}", one.1);
        let four = check(&root, &["--jobs", "4", "--format", format, "."]);
        assert_eq!(four, one, "--format {format}");
    }
    let (_, text, _) = check(&root, &["--jobs", "1", "."]);
    assert!(text.contains("unused in g1"), "{text}");
    assert!(text.contains("unused at the top"), "{text}");
}

#[test]
fn show_settings_prints_what_applies_to_each_model() {
    let dir = tempdir();
    let root = dir.path().canonicalize().unwrap();
    place(&root, E1, "legacy/old.onnx");
    fs::write(
        root.join("onnx-lint.toml"),
        "error = [\"W1\"]\n[per-file-ignores]\n\"legacy/*.onnx\" = [\"E1\"]\n\
         [[suppress]]\nmodel = \"old.onnx\"\ncode = \"W1\"\nreason = \"dynamic batch is 1\"\n",
    )
    .unwrap();
    let (status, out, _) = check(&root, &["--show-settings", "legacy/old.onnx"]);
    assert_eq!(status, 0);
    assert!(out.contains("model: legacy/old.onnx\n"), "{out}");
    assert!(out.contains(&format!(
        "configuration: {}",
        root.join("onnx-lint.toml").display()
    )));
    assert!(
        out.contains("  E1    broadcast-error            off\n"),
        "{out}"
    );
    assert!(
        out.contains("  W1    possible-broadcast-error   error (forced)\n"),
        "{out}"
    );
    assert!(
        out.contains("  B001  implicit-broadcast         off\n"),
        "{out}"
    );
    assert!(out.contains("legacy/*.onnx = E1"), "{out}");
    assert!(out.contains("dynamic batch is 1"), "{out}");
}

#[test]
fn per_file_ignores_apply_to_matching_models_only() {
    let dir = tempdir();
    let root = dir.path().canonicalize().unwrap();
    place(&root, E1, "legacy/old.onnx");
    place(&root, E1, "new/m.onnx");
    fs::write(
        root.join("onnx-lint.toml"),
        "[per-file-ignores]\n\"legacy/**\" = [\"E\"]\n",
    )
    .unwrap();
    let (status, out, _) = check(&root, &["--quiet", "."]);
    assert_eq!(status, 1);
    assert_eq!(codes(&out), ["E1"]);
    assert!(out.contains("new/m.onnx"), "{out}");
}

#[test]
fn suppressions_need_a_reason_and_unused_ones_are_reported() {
    let dir = tempdir();
    let root = dir.path().canonicalize().unwrap();
    place(&root, E1, "vendor/e1.onnx");
    place(&root, W1, "vendor/w1.onnx");
    fs::write(
        root.join("onnx-lint.toml"),
        "[[suppress]]\nmodel = \"vendor/e1.onnx\"\ncode = \"E1\"\nnode = \"add_*\"\n\
         reason = \"vendor fix pending (TICKET-12)\"\n\
         [[suppress]]\nmodel = \"vendor/*.onnx\"\ncode = \"E1\"\nnode = \"mul_*\"\n\
         reason = \"was fixed in v2\"\n\
         [[suppress]]\nmodel = \"elsewhere/*.onnx\"\ncode = \"W1\"\nreason = \"not checked in this run\"\n",
    )
    .unwrap();
    let (status, out, err) = check(&root, &["vendor"]);
    // E1 is silenced; W1 stays a warning; the second suppression matched nothing.
    assert_eq!(status, 0, "{out}{err}");
    assert_eq!(codes(&out), ["W1", "S001"], "{out}");
    assert!(
        out.contains("warning[S001] unused-suppression: suppression 2 (E1 at node 'mul_*' in 'vendor/*.onnx') matched no finding"),
        "{out}"
    );
    assert!(out.contains("  --> onnx-lint.toml\n"), "{out}");
    assert!(out.contains("reason given: was fixed in v2"), "{out}");
    // Suppression 3's models were not checked: it is not judged.
    assert!(!out.contains("suppression 3"), "{out}");
    assert!(err.contains("1 finding suppressed"), "{err}");
    // S001 can fail the run like any code.
    assert_eq!(check(&root, &["--error", "S001", "vendor"]).0, 1);
    assert_eq!(
        check(&root, &["--ignore", "S001", "--quiet", "vendor"])
            .1
            .matches("S001")
            .count(),
        0
    );
}

#[test]
fn a_baseline_fails_only_on_new_findings() {
    let dir = tempdir();
    let root = dir.path().canonicalize().unwrap();
    place(&root, E1, "models/a.onnx");
    place(&root, W1, "models/b.onnx");
    let (status, _, err) = check(&root, &["--write-baseline", "baseline.json", "models"]);
    assert_eq!(status, 0, "{err}");
    assert!(
        err.contains("baseline baseline.json written: 2 findings"),
        "{err}"
    );
    let text = fs::read_to_string(root.join("baseline.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["findings"][0]["file"], "models/a.onnx");
    assert_eq!(v["findings"][0]["node"], "add_lhs_rhs");

    // Nothing new: exit 0, nothing shown; from another folder the same (paths are relative to the
    // baseline's folder).
    let (status, out, err) = check(&root, &["--baseline", "baseline.json", "models"]);
    assert_eq!((status, codes(&out)), (0, vec![]), "{out}");
    assert!(err.contains("2 findings in the baseline"), "{err}");
    let (status, _, _) = check(
        &root.join("models"),
        &["--baseline", "../baseline.json", "."],
    );
    assert_eq!(status, 0);

    // A new E1 in a new model fails the run, and only it is shown.
    place(&root, E1, "models/c.onnx");
    let (status, out, _) = check(&root, &["--baseline", "baseline.json", "models"]);
    assert_eq!(status, 1);
    assert_eq!(codes(&out), ["E1"]);
    assert!(out.contains("models/c.onnx, graph main"), "{out}");

    // A fixed finding leaves a stale entry, said on standard error.
    fs::remove_file(root.join("models/b.onnx")).unwrap();
    fs::remove_file(root.join("models/c.onnx")).unwrap();
    place(&root, E1, "models/b.onnx");
    let (status, out, err) = check(&root, &["--baseline", "baseline.json", "models"]);
    assert_eq!(status, 1, "{out}");
    assert!(
        err.contains("1 finding of the baseline baseline.json no longer found"),
        "{err}"
    );

    // A baseline that is not one is refused.
    fs::write(root.join("bad.json"), "{}").unwrap();
    let (status, _, err) = check(&root, &["--baseline", "bad.json", "models"]);
    assert_eq!(status, 2);
    assert!(err.contains("invalid baseline"), "{err}");
}
