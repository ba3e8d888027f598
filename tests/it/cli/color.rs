//! `--color`: text output is coloured only when asked or when standard output is a terminal, and
//! then only around escaped text; `never` and pipes give the plain bytes.

use crate::support::paths::{repo_model, tempdir};
use std::process::{Command, Output};

use crate::support::binary::BIN;

fn model(rel: &str) -> String {
    repo_model(rel).display().to_string()
}

/// Runs the binary in a pipe with the colour variables of the test's own environment removed, so a
/// developer's `NO_COLOR` or CI's `FORCE_COLOR` cannot change the result.
fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

const ESC: &str = "\x1b[";

#[test]
fn never_and_pipe_are_byte_identical_to_plain_output() {
    let bad = model("broken/e1_add.onnx");
    let multi = model("broken");
    for target in [&bad, &multi] {
        let plain = run(&["check", target], &[]);
        let never = run(&["check", "--color", "never", target], &[]);
        let global = run(&["--color", "never", "check", target], &[]);
        assert!(!String::from_utf8_lossy(&plain.stdout).contains(ESC));
        assert_eq!(plain.stdout, never.stdout);
        assert_eq!(plain.stdout, global.stdout);
        assert_eq!(plain.status.code(), never.status.code());
    }
}

#[test]
fn always_colours_severity_and_code() {
    let out = run(
        &["check", "--color", "always", &model("broken/e1_add.onnx")],
        &[],
    );
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(
        s.starts_with("\x1b[1;31merror\x1b[0m\x1b[1m[E1]\x1b[0m broadcast-error: "),
        "{s:?}"
    );
    assert!(s.contains("\x1b[1;34m-->\x1b[0m"), "{s:?}");
    assert_eq!(out.status.code(), Some(1));
    // With the codes taken out it is the plain text again.
    let plain = run(&["check", &model("broken/e1_add.onnx")], &[]);
    assert_eq!(strip_ansi(&s), String::from_utf8(plain.stdout).unwrap());
}

#[test]
fn structured_formats_are_never_coloured() {
    for fmt in ["json", "sarif", "github"] {
        let out = run(
            &[
                "check",
                "--color",
                "always",
                "--format",
                fmt,
                &model("broken/e1_add.onnx"),
            ],
            &[],
        );
        assert!(!String::from_utf8_lossy(&out.stdout).contains(ESC), "{fmt}");
    }
}

#[test]
fn no_color_and_force_color_bend_auto_only() {
    let bad = model("broken/e1_add.onnx");
    let no = run(&["check", &bad], &[("NO_COLOR", "1")]);
    assert!(!String::from_utf8_lossy(&no.stdout).contains(ESC));
    let forced = run(&["check", &bad], &[("FORCE_COLOR", "1")]);
    assert!(String::from_utf8_lossy(&forced.stdout).contains(ESC));
    // NO_COLOR wins over FORCE_COLOR; an empty NO_COLOR counts as unset.
    let both = run(&["check", &bad], &[("NO_COLOR", "1"), ("FORCE_COLOR", "1")]);
    assert!(!String::from_utf8_lossy(&both.stdout).contains(ESC));
    let empty = run(&["check", &bad], &[("NO_COLOR", ""), ("FORCE_COLOR", "1")]);
    assert!(String::from_utf8_lossy(&empty.stdout).contains(ESC));
    // An explicit choice is obeyed whatever the environment says.
    let always = run(&["check", "--color", "always", &bad], &[("NO_COLOR", "1")]);
    assert!(String::from_utf8_lossy(&always.stdout).contains(ESC));
    let never = run(
        &["check", "--color", "never", &bad],
        &[("FORCE_COLOR", "1")],
    );
    assert!(!String::from_utf8_lossy(&never.stdout).contains(ESC));
}

#[test]
fn names_stay_escaped_inside_colour() {
    // A file name carrying ESC and a newline must show them as `\u{1b}` and `\n`, the only raw ESC
    // bytes being the colour codes put around the escaped text.
    let dir = tempdir();
    let path = dir.path().join("bad\x1b[2Jname\n.onnx");
    std::fs::write(&path, []).unwrap();
    let shown = path
        .display()
        .to_string()
        .replace('\x1b', "\\u{1b}")
        .replace('\n', "\\n");
    let out = run(&["check", "--color", "always", path.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(2));
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(
        s.starts_with("\x1b[1;31merror\x1b[0m: cannot load "),
        "{s:?}"
    );
    assert!(s.contains(&shown), "{s:?}");
    for (i, _) in s.match_indices('\x1b') {
        let rest = &s[i..];
        assert!(
            ["\x1b[0m", "\x1b[1;31m"]
                .iter()
                .any(|c| rest.starts_with(c)),
            "stray escape at {i}: {s:?}"
        );
    }
}

/// Auto mode on a real terminal: `script` runs the command with a pseudo-terminal as its standard
/// output. Skipped (with a message) where `script` is missing or cannot get a pty.
#[test]
fn auto_colours_on_a_terminal() {
    let cmd = format!("{BIN} check {}", model("broken/e1_add.onnx"));
    let out = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .output();
    let out = match out {
        Ok(o) if !o.stdout.is_empty() => o,
        other => {
            eprintln!("skipped: no pseudo-terminal through `script` ({other:?})");
            return;
        }
    };
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("\x1b[1;31merror\x1b[0m"), "{s:?}");
    // The same, but NO_COLOR: no colour even on a terminal.
    let out = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env("NO_COLOR", "1")
        .env_remove("FORCE_COLOR")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("\x1b[1;31m"));
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `expand` and `fold` print the errors that stop them on standard error: coloured as `--color`
/// says (and `auto` decides by standard error), plain in a pipe.
#[test]
fn refusals_of_expand_and_fold_follow_color_on_stderr() {
    let dir = tempdir();
    let out = dir.path().join("out.onnx");
    let out = out.to_str().unwrap();
    let bad = model("broken/e1_add.onnx");
    for cmd in ["expand", "fold"] {
        let plain = run(&[cmd, &bad, "-o", out], &[]);
        let plain_err = String::from_utf8(plain.stderr).unwrap();
        assert_eq!(plain.status.code(), Some(1));
        assert!(
            plain_err.starts_with("error[E1] broadcast-error: "),
            "{plain_err:?}"
        );
        let always = run(&["--color", "always", cmd, &bad, "-o", out], &[]);
        let err = String::from_utf8(always.stderr).unwrap();
        assert!(
            err.starts_with("\x1b[1;31merror\x1b[0m\x1b[1m[E1]\x1b[0m"),
            "{err:?}"
        );
        assert_eq!(strip_ansi(&err), plain_err);
        assert!(!std::path::Path::new(out).exists());
    }
}
