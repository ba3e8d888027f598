//! onnx-lint as one step of a deployment pipeline, through the library rather than the command.
//!
//! For each model given: load it, print its findings, and if it has no error write its explicit form
//! (every implicit broadcast an `Expand`) into the output folder, for runtimes that do not broadcast.
//! The exit status is what a pipeline branches on: 0 every model passed and was written, 1 some model
//! has errors (E1...) and was not written, 2 some model could not be loaded or written.
//!
//! ```text
//! cargo run --release --example pipeline_step -- OUT_DIR MODEL...
//! ```

use onnx_lint::diagnostics::has_errors;
use onnx_lint::file::Origin;
use onnx_lint::lint;
use onnx_lint::passes::explicit_broadcast::{self, Options};
use onnx_lint::render::{self, FileReport};
use onnx_lint::write::{WriteOptions, write_model};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What became of one model, worst last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Written,
    Rejected,
    Failed,
}

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let Some((out_dir, models)) = args.split_first().filter(|(_, m)| !m.is_empty()) else {
        eprintln!("usage: pipeline_step OUT_DIR MODEL...");
        return ExitCode::from(2);
    };
    if let Err(e) = std::fs::create_dir_all(out_dir) {
        eprintln!("error: cannot create {}: {e}", out_dir.display());
        return ExitCode::from(2);
    }
    let worst = models
        .iter()
        .map(|m| step(m, out_dir))
        .max()
        .unwrap_or(Outcome::Written);
    ExitCode::from(match worst {
        Outcome::Written => 0,
        Outcome::Rejected => 1,
        Outcome::Failed => 2,
    })
}

fn step(path: &Path, out_dir: &Path) -> Outcome {
    let (model, found) = match lint::load(Origin::File(path.to_owned())) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("{}: cannot load: {e:#}", path.display());
            return Outcome::Failed;
        }
    };
    let report = FileReport {
        file: path.display().to_string(),
        outcome: Ok(found.diagnostics.clone()),
    };
    print!("{}", render::text(std::slice::from_ref(&report)));
    if has_errors(&found.diagnostics) {
        eprintln!("{}: rejected, nothing written", path.display());
        return Outcome::Rejected;
    }
    let outcome = match explicit_broadcast::run(&model, &found.shapes, &Options::default()) {
        Ok(o) => o,
        Err(why) => {
            eprintln!(
                "{}: cannot make the broadcasts explicit: {why}",
                path.display()
            );
            return Outcome::Rejected;
        }
    };
    let name = path.file_name().unwrap_or(path.as_os_str());
    let out = out_dir.join(name);
    match write_model(
        &model,
        &outcome.patch.to_edit(),
        &out,
        &WriteOptions::default(),
    ) {
        Ok(written) => {
            eprintln!(
                "{}: {} broadcasts made explicit -> {}",
                path.display(),
                outcome.insertions.len(),
                out.display()
            );
            // External-data files come along (linked or copied), so the output loads from out_dir.
            for c in &written.carried {
                eprintln!(
                    "{}: external data '{}' -> {} ({})",
                    path.display(),
                    c.location,
                    c.dest.display(),
                    c.how.as_str()
                );
            }
            Outcome::Written
        }
        Err(e) => {
            eprintln!("{}: cannot write {}: {e:#}", path.display(), out.display());
            Outcome::Failed
        }
    }
}
