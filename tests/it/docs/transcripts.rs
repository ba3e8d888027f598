//! Every command transcript of `README.md` and `docs/*.md` is what the binary prints today, so no
//! example goes stale:
//!
//! - a fenced block with lines starting `$ ` is a transcript: each command (`onnx-lint ARGS`, or
//!   `cargo run --release -- ARGS`, which runs the same binary) is run from the repository's root,
//!   without a shell, and the lines under it must be its output (standard output, then standard
//!   error). A line `...` stands for any number of lines; without one at the start (end), the shown
//!   lines start (end) the output; blank lines at the end of the output do not count. A command that
//!   writes a file (`-o`, `--output-file`, `--write-baseline`), or reads one written so
//!   (`--baseline`), runs in a temporary folder whose `models` and `docs` link to the repository's,
//!   so that it prints the same paths and writes nothing into the repository;
//! - a `sh`, `console`, `bash` or `shell` block that runs `onnx-lint` or `cargo` without being a
//!   transcript (an install, the tests themselves) must say so on its first line, visibly:
//!   `# not run by the docs test: REASON`.
//!
//! `ONNX_LINT_BLESS=1 cargo test --release --test it docs::transcripts` rewrites the output of every
//! transcript that differs with the whole output (put back any `...` by hand, and review the diff).

use crate::support::binary;
use crate::support::paths::{root, tempdir};
use crate::support::snapshot;
use std::path::{Path, PathBuf};

/// The first line of a block that runs commands the test does not run.
const NOT_RUN: &str = "# not run by the docs test: ";

/// The documents whose transcripts are run.
fn documents() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    out.extend(docs);
    out
}

/// A fenced block: its info string, and its lines with their index in the file.
struct Block {
    info: String,
    lines: Vec<(usize, String)>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (k, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if let Some(info) = t.strip_prefix("```") {
            match open.take() {
                Some(b) => out.push(b),
                None => {
                    open = Some(Block {
                        info: info.trim().to_owned(),
                        lines: Vec::new(),
                    })
                }
            }
        } else if let Some(b) = &mut open {
            b.lines.push((k, line.to_owned()));
        }
    }
    out
}

/// A command of a transcript: its line in the file, the command, and the lines shown under it
/// (their range in the file).
struct Transcript {
    command: String,
    shown: Vec<String>,
    first: usize,
    end: usize,
}

fn transcripts(b: &Block) -> Vec<Transcript> {
    let mut out: Vec<Transcript> = Vec::new();
    for (k, line) in &b.lines {
        if let Some(cmd) = line.strip_prefix("$ ") {
            out.push(Transcript {
                command: cmd.trim().to_owned(),
                shown: Vec::new(),
                first: k + 1,
                end: k + 1,
            });
        } else if let Some(t) = out.last_mut() {
            t.shown.push(line.clone());
            t.end = k + 1;
        }
    }
    out
}

/// The arguments of the binary for a transcript's command, or why it cannot be run.
fn binary_args(command: &str) -> Result<Vec<String>, String> {
    if command.contains(['|', '>', '<', ';', '&', '$', '`', '"', '\'', '*']) {
        return Err("needs a shell; the test runs commands without one".to_owned());
    }
    let words: Vec<&str> = command.split_whitespace().collect();
    let args = match words.as_slice() {
        ["onnx-lint", rest @ ..] => rest,
        ["cargo", "run", "--release", "--", rest @ ..] => rest,
        _ => return Err("runs something other than onnx-lint".to_owned()),
    };
    Ok(args.iter().map(|a| a.to_string()).collect())
}

/// The flags whose value is a file the command writes (or, `--baseline`, one an earlier command of
/// the docs wrote).
const FILE_FLAGS: [&str; 5] = [
    "-o",
    "--output",
    "--output-file",
    "--write-baseline",
    "--baseline",
];

/// A folder standing for the repository's root for commands that write files: `models` and `docs`
/// link to the repository's, and what is written stays here.
fn scratch() -> tempfile::TempDir {
    let dir = tempdir();
    for name in ["models", "docs"] {
        std::os::unix::fs::symlink(root().join(name), dir.path().join(name)).expect("a link");
    }
    dir
}

/// Runs `args` from the repository's root, or from `scratch` when the command writes a file (or
/// reads one written there): stdout followed by stderr.
fn run(args: &[String], scratch: &Path) -> Result<String, String> {
    let mut writes = false;
    for k in 1..args.len() {
        if FILE_FLAGS.contains(&args[k - 1].as_str()) {
            if !Path::new(&args[k]).is_relative() {
                return Err(format!("writes {}, outside the repository", args[k]));
            }
            writes = true;
        } else if args[k].ends_with(".onnx") && !root().join(&args[k]).is_file() {
            return Err(format!("{} is not a file of the repository", args[k]));
        }
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut cmd = binary::command(&refs);
    cmd.current_dir(if writes { scratch.to_owned() } else { root() })
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR");
    let r = binary::run_command(cmd, &refs, binary::DEADLINE);
    Ok(r.stdout + &r.stderr)
}

/// Whether the `shown` lines are `actual` (see the module's rules for `...`).
fn matches(shown: &[String], actual: &str) -> Result<(), String> {
    let mut actual: Vec<&str> = actual.lines().collect();
    while actual.last().is_some_and(|l| l.trim().is_empty()) {
        actual.pop();
    }
    let segments: Vec<&[String]> = shown.split(|l| l.trim() == "...").collect();
    let n = segments.len();
    let mut at = 0;
    for (i, seg) in segments.iter().enumerate() {
        if seg.is_empty() {
            continue;
        }
        let fits = |p: usize| {
            p + seg.len() <= actual.len() && seg.iter().zip(&actual[p..]).all(|(s, a)| s == a)
        };
        let found = if i == 0 {
            // Anchored at the start (no `...` before it).
            fits(0).then_some(0)
        } else if i == n - 1 {
            // Anchored at the end (no `...` after it).
            let p = actual.len().checked_sub(seg.len()).filter(|&p| p >= at);
            p.filter(|&p| fits(p))
        } else {
            (at..=actual.len()).find(|&p| fits(p))
        };
        match found {
            Some(p) => at = p + seg.len(),
            None => {
                return Err(format!(
                    "the lines from {:?} are not where the docs show them",
                    seg[0]
                ));
            }
        }
    }
    if n == 1 && at != actual.len() {
        return Err(format!(
            "the output goes on after the lines shown (with {:?}); add `...` to elide it",
            actual[at..]
                .iter()
                .find(|l| !l.trim().is_empty())
                .unwrap_or(&"")
        ));
    }
    Ok(())
}

#[test]
fn every_transcript_of_the_docs_is_what_the_binary_prints() {
    let scratch = scratch();
    let mut failures = Vec::new();
    let mut ran = 0;
    for doc in documents() {
        let name = doc
            .strip_prefix(root())
            .unwrap_or(&doc)
            .display()
            .to_string();
        let text = std::fs::read_to_string(&doc).expect("a document");
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let mut blessed = false;
        // Rewritten from the end, so that the line numbers of earlier transcripts still hold.
        let mut rewrites: Vec<(usize, usize, Vec<String>)> = Vec::new();
        for b in blocks(&text) {
            let ts = transcripts(&b);
            let Some((first_line, first)) = b.lines.first() else {
                continue;
            };
            if ts.is_empty() {
                let shell = ["sh", "console", "bash", "shell"].contains(&b.info.as_str());
                let runs = b.lines.iter().any(|(_, l)| {
                    let l = l.trim_start();
                    !l.starts_with('#') && (l.starts_with("onnx-lint ") || l.starts_with("cargo "))
                });
                if shell && runs && !first.starts_with(NOT_RUN) {
                    failures.push(format!(
                        "{name}:{}: a block runs commands but is no transcript (`$ ` lines with \
                         their output); make it one, or start it with `{NOT_RUN}REASON`",
                        first_line + 1
                    ));
                }
                continue;
            }
            for t in ts {
                let at = format!("{name}:{}: `{}`", t.first, t.command);
                let outcome = binary_args(&t.command).and_then(|args| {
                    ran += 1;
                    run(&args, scratch.path())
                });
                match outcome {
                    Err(why) => failures.push(format!("{at}: {why}")),
                    Ok(actual) => {
                        if let Err(why) = matches(&t.shown, &actual) {
                            if snapshot::blessing() {
                                let mut out: Vec<String> =
                                    actual.lines().map(str::to_owned).collect();
                                while out.last().is_some_and(|l| l.trim().is_empty()) {
                                    out.pop();
                                }
                                rewrites.push((t.first, t.end, out));
                            } else {
                                failures.push(format!(
                                    "{at}: {why}\n--- the docs show ---\n{}\n--- the binary \
                                     prints ---\n{actual}",
                                    t.shown.join("\n")
                                ));
                            }
                        }
                    }
                }
            }
        }
        rewrites.sort_by_key(|r| std::cmp::Reverse(r.0));
        for (first, end, out) in rewrites {
            lines.splice(first..end, out);
            blessed = true;
        }
        if blessed {
            let mut new = lines.join("\n");
            new.push('\n');
            std::fs::write(&doc, new).expect("write the document");
            eprintln!("{name}: transcripts rewritten; review the diff");
        }
    }
    assert!(ran >= 40, "only {ran} transcripts ran");
    assert!(
        failures.is_empty(),
        "{} transcript(s) differ from the binary (`{}=1 cargo test --release --test it \
         docs::transcripts` rewrites their output):\n\n{}",
        failures.len(),
        snapshot::BLESS,
        failures.join("\n\n")
    );
}

#[test]
fn the_matching_rules_hold() {
    let s = |v: &[&str]| v.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    let out = "a\nb\nc\nd\n\n";
    assert!(matches(&s(&["a", "b", "c", "d"]), out).is_ok());
    assert!(
        matches(&s(&["a", "b", "c"]), out).is_err(),
        "the end is missing"
    );
    assert!(
        matches(&s(&["b", "c", "d"]), out).is_err(),
        "the start is missing"
    );
    assert!(matches(&s(&["a", "...", "d"]), out).is_ok());
    assert!(matches(&s(&["a", "..."]), out).is_ok());
    assert!(matches(&s(&["...", "c", "..."]), out).is_ok());
    assert!(matches(&s(&["...", "c", "d"]), out).is_ok());
    assert!(
        matches(&s(&["...", "c"]), out).is_err(),
        "d ends the output"
    );
    assert!(matches(&s(&["a", "...", "c", "b"]), out).is_err());
    assert!(binary_args("onnx-lint check m.onnx | head").is_err());
    assert!(binary_args("pip install .").is_err());
    assert_eq!(
        binary_args("cargo run --release -- check m.onnx").unwrap(),
        ["check", "m.onnx"]
    );
}
