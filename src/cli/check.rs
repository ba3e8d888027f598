//! `onnx-lint check`: find the models (files, folders searched for `*.onnx`, standard input), load and
//! check each, render the findings, pick the exit status.
//!
//! Models are checked one at a time and freed as soon as their findings are taken: a folder of
//! thousands of models needs the memory of one (plus the findings, for JSON and SARIF, which are one
//! document). Text and GitHub output is written file by file as the run goes.

use super::{ColorChoice, EXIT_FINDINGS, EXIT_OK, EXIT_UNLOADABLE, Format, load_with};
use crate::file::Origin;
use crate::ir::Model;
use crate::lint::{Findings, LoadOptions};
use crate::passes::explicit_broadcast::{Options, implicit_broadcasts};
use crate::render::{self, FileReport, Summary, escape};
use crate::shape::infer::GraphShapes;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fs;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

pub(super) fn check(args: &[PathBuf], format: Format, explicit: bool, color: ColorChoice) -> u8 {
    // Everything `check` reports goes to standard output, so that is the stream whose terminal-ness
    // decides `auto`; only the text format is ever coloured (JSON, SARIF and workflow commands are
    // read by programs).
    let paint = render::Paint {
        color: format == Format::Text && color.resolve(std::io::stdout().is_terminal()),
    };
    let targets = find_models(args);
    let progress = Progress::start(targets.len());
    let mut dropper = Dropper::default();
    let mut summary = Summary::default();
    let mut kept = Vec::new();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for target in targets {
        let report = match target {
            Target::Model(path) => {
                let file = Origin::from_arg(&path).display();
                progress.set_message(escape(&file));
                // Findings only, unless --explicit needs every value's shape afterwards.
                let opts = LoadOptions {
                    keep_shapes: explicit,
                };
                let outcome = load_with(&path, &opts).map(|(m, found)| {
                    let Findings {
                        diagnostics: mut d,
                        shapes,
                    } = found;
                    if explicit {
                        d.extend(implicit_broadcasts(&m, &shapes, &Options::default()));
                    }
                    dropper.free((m, shapes));
                    d
                });
                FileReport { file, outcome }
            }
            Target::Unreadable { path, error } => FileReport {
                file: path.display().to_string(),
                outcome: Err(error),
            },
        };
        summary.add(&report);
        let block = match format {
            Format::Text => render::text_file_painted(&report, paint),
            Format::Github => render::github_file(&report),
            Format::Json | Format::Sarif => {
                kept.push(report);
                String::new()
            }
        };
        if !block.is_empty()
            && let Err(e) =
                progress.suspend(|| out.write_all(block.as_bytes()).and_then(|()| out.flush()))
        {
            progress.finish();
            return write_failed(&e);
        }
        progress.inc();
    }
    progress.finish();
    let tail = match format {
        Format::Text | Format::Github => summary.text(),
        Format::Json => render::json(&kept),
        Format::Sarif => render::sarif(&kept),
    };
    if let Err(e) = out.write_all(tail.as_bytes()).and_then(|()| out.flush()) {
        return write_failed(&e);
    }
    exit_status(&summary)
}

fn exit_status(summary: &Summary) -> u8 {
    if summary.unloadable > 0 {
        EXIT_UNLOADABLE
    } else if summary.with_errors > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}

/// Standard output is gone or full: say so (unless the reader just stopped reading, as `head` does)
/// and exit 2.
fn write_failed(e: &std::io::Error) -> u8 {
    if e.kind() != std::io::ErrorKind::BrokenPipe {
        eprintln!("error: cannot write the report: {e}");
    }
    EXIT_UNLOADABLE
}

/// One thing `check` reports on: a model to load, or a folder that could not be searched.
#[derive(Debug, PartialEq, Eq)]
enum Target {
    Model(PathBuf),
    Unreadable { path: PathBuf, error: String },
}

/// The models the arguments name, in a stable order: an argument that is a folder (or a symlink to
/// one) stands for every `*.onnx` file under it, found by [`walk`]; any other argument (`-`, a file of
/// any extension, a path that does not exist) is a model, and loading it says what is wrong.
fn find_models(args: &[PathBuf]) -> Vec<Target> {
    let mut out = Vec::new();
    for arg in args {
        let is_dir = arg.as_os_str() != "-" && fs::metadata(arg).is_ok_and(|m| m.is_dir());
        if !is_dir {
            out.push(Target::Model(arg.clone()));
            continue;
        }
        let before = out.len();
        walk(arg, &mut Vec::new(), &mut out);
        if out.len() == before {
            eprintln!(
                "warning: no *.onnx file in {}",
                escape(&arg.display().to_string())
            );
        }
    }
    out
}

/// Appends the `*.onnx` files under `dir`, depth first, each folder's entries sorted by name (so a
/// run's output does not depend on the file system's order). Symlinks to folders are not followed (no
/// loop, no leaving the tree); a symlink to a regular file is checked, and one that resolves to nothing
/// is reported by the load. Other special files (FIFOs, sockets, devices) are skipped: reading a FIFO
/// would block. A folder that cannot be read is reported with its path.
fn walk(dir: &Path, ancestors: &mut Vec<(u64, u64)>, out: &mut Vec<Target>) {
    // Without symlinks a folder can still be reached from itself through a bind mount.
    let id = fs::metadata(dir).ok().and_then(|m| identity(&m));
    if let Some(id) = id {
        if ancestors.contains(&id) {
            return;
        }
        ancestors.push(id);
    }
    let entries = fs::read_dir(dir).and_then(|rd| rd.collect::<Result<Vec<_>, _>>());
    let mut entries = match entries {
        Ok(e) => e,
        Err(e) => {
            out.push(Target::Unreadable {
                path: dir.to_owned(),
                error: format!("cannot read folder: {e}"),
            });
            if id.is_some() {
                ancestors.pop();
            }
            return;
        }
    };
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let file_type = match entry.file_type() {
            Ok(t) => t,
            Err(e) => {
                out.push(Target::Unreadable {
                    path,
                    error: format!("cannot stat: {e}"),
                });
                continue;
            }
        };
        if file_type.is_dir() {
            walk(&path, ancestors, out);
        } else if is_onnx(&path) {
            let wanted = file_type.is_file()
                || (file_type.is_symlink()
                    // A dangling or looping link is kept: the load says why it cannot be read.
                    && fs::metadata(&path).map_or(true, |m| m.is_file()));
            if wanted {
                out.push(Target::Model(path));
            }
        }
    }
    if id.is_some() {
        ancestors.pop();
    }
}

fn is_onnx(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("onnx"))
}

#[cfg(unix)]
fn identity(m: &fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(_: &fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// Frees models (with their inferred shapes, when kept) on one other thread: a graph of a million nodes
/// takes a noticeable time to drop, and nothing waits for it. The channel holds one model, so however many files a run has, at most three
/// models are alive at once (being checked, waiting, being freed); the last is left to process exit.
#[derive(Default)]
struct Dropper {
    tx: Option<mpsc::SyncSender<(Model, Vec<GraphShapes>)>>,
}

impl Dropper {
    fn free(&mut self, m: (Model, Vec<GraphShapes>)) {
        if self.tx.is_none() {
            let (tx, rx) = mpsc::sync_channel::<(Model, Vec<GraphShapes>)>(1);
            let spawned = thread::Builder::new()
                .name("drop-models".into())
                .spawn(move || rx.into_iter().for_each(drop));
            if spawned.is_ok() {
                self.tx = Some(tx);
            }
        }
        match &self.tx {
            // A failed send hands the model back; it is dropped here.
            Some(tx) => drop(tx.send(m)),
            None => drop(m),
        }
    }
}

/// How long a run goes before its progress bar appears: a short run prints nothing.
const PROGRESS_DELAY: Duration = Duration::from_secs(1);

/// A progress bar on standard error, only when that is a terminal and there is more than one model,
/// and only once the run has lasted [`PROGRESS_DELAY`]. Otherwise (pipes, CI logs, one model) a hidden
/// bar that draws nothing.
struct Progress {
    bar: ProgressBar,
    /// Dropping the sender tells the thread that would show the bar that the run is over.
    shower: Option<(mpsc::Sender<()>, thread::JoinHandle<()>)>,
}

impl Progress {
    fn start(total: usize) -> Self {
        let bar = ProgressBar::hidden();
        if total < 2 || !std::io::stderr().is_terminal() {
            return Progress { bar, shower: None };
        }
        bar.set_length(total as u64);
        if let Ok(style) =
            ProgressStyle::with_template("{bar:30} {pos}/{len} models [{elapsed}] {wide_msg}")
        {
            bar.set_style(style);
        }
        let (tx, rx) = mpsc::channel::<()>();
        let shown = bar.clone();
        let shower = thread::Builder::new()
            .name("progress".into())
            .spawn(move || {
                if rx.recv_timeout(PROGRESS_DELAY) == Err(mpsc::RecvTimeoutError::Timeout) {
                    shown.set_draw_target(ProgressDrawTarget::stderr());
                    shown.enable_steady_tick(Duration::from_millis(200));
                }
            })
            .ok()
            .map(|h| (tx, h));
        Progress { bar, shower }
    }

    fn set_message(&self, msg: String) {
        self.bar.set_message(msg);
    }

    fn inc(&self) {
        self.bar.inc(1);
    }

    /// Runs `f` (which writes to standard output) with the bar wiped, then draws it again.
    fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Wipes the bar, if it was shown, before the last of the output.
    fn finish(self) {
        if let Some((tx, handle)) = self.shower {
            drop(tx);
            let _ = handle.join();
        }
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn models(targets: &[Target], root: &Path) -> Vec<String> {
        targets
            .iter()
            .map(|t| match t {
                Target::Model(p) => p.strip_prefix(root).unwrap().display().to_string(),
                Target::Unreadable { path, .. } => format!("!{}", path.display()),
            })
            .collect()
    }

    #[test]
    fn folders_are_searched_for_onnx_files_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in [
            "b.onnx",
            "a.ONNX",
            "notes.txt",
            "sub/z.onnx",
            "sub/deeper/y.onnx",
            "a0/x.onnx",
        ] {
            let p = root.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, b"").unwrap();
        }
        let found = find_models(&[root.to_owned()]);
        assert_eq!(
            models(&found, root),
            [
                "a.ONNX",
                "a0/x.onnx",
                "b.onnx",
                "sub/deeper/y.onnx",
                "sub/z.onnx"
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_to_folders_are_not_followed_but_links_to_files_are() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir(root.join("sub")).unwrap();
        fs::write(root.join("sub/m.onnx"), b"").unwrap();
        std::os::unix::fs::symlink("..", root.join("sub/up")).unwrap();
        std::os::unix::fs::symlink("m.onnx", root.join("sub/link.onnx")).unwrap();
        std::os::unix::fs::symlink("nowhere", root.join("sub/dangling.onnx")).unwrap();
        std::os::unix::fs::symlink("sub", root.join("dir.onnx")).unwrap();
        let found = find_models(&[root.to_owned()]);
        assert_eq!(
            models(&found, root),
            ["sub/dangling.onnx", "sub/link.onnx", "sub/m.onnx"]
        );
    }
}
