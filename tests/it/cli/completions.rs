//! `onnx-lint completions SHELL`: a script for each shell, naming the subcommands; bash's parses.

use crate::support::paths::tempdir;
use std::process::Command;

use crate::support::binary::BIN;

fn script(shell: &str) -> String {
    let out = Command::new(BIN)
        .args(["completions", shell])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{shell}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_shell_gets_a_script_naming_the_subcommands() {
    for shell in ["bash", "zsh", "fish"] {
        let s = script(shell);
        assert!(!s.is_empty(), "{shell}");
        for sub in ["check", "expand", "shapes", "completions"] {
            assert!(s.contains(sub), "{shell} script lacks {sub}");
        }
        // fish spells long options `-l color`, the others `--color`.
        assert!(s.contains("color"), "{shell} script lacks --color");
    }
}

#[test]
fn bash_script_parses() {
    let dir = tempdir();
    let path = dir.path().join("onnx-lint.bash");
    std::fs::write(&path, script("bash")).unwrap();
    match Command::new("bash").arg("-n").arg(&path).output() {
        Ok(o) => assert!(
            o.status.success(),
            "bash -n: {}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => eprintln!("skipped: no bash ({e})"),
    }
}

#[test]
fn unknown_shell_is_refused() {
    let out = Command::new(BIN)
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
