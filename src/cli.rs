//! The `onnx-lint` command line: arguments to library calls to output and an exit status.
//!
//! Exit status: 0 no error, 1 errors found (or nothing written because of them), 2 a model could not be
//! loaded or an output could not be written.

use crate::diagnostics::has_errors;
use crate::diagnostics::render::{self, FileReport};
use crate::io::Origin;
use crate::ir::Model;
use crate::wire::Edit;
use crate::write::{WriteOptions, external_files_left_behind, write_model};
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "onnx-lint",
    version,
    about = "Checks ONNX models for broadcasting errors and structural faults"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check models and print every finding (exit 1 if any is an error, 2 if a model cannot be loaded)
    Check {
        /// Model files (`-` reads standard input)
        #[arg(required = true)]
        models: Vec<PathBuf>,
        /// Output format
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Print the element type and shape inferred for every value
    Shapes {
        /// Model file (`-` reads standard input)
        model: PathBuf,
        /// Output format
        #[arg(long, value_enum, default_value_t = ShapesFormat::Text)]
        format: ShapesFormat,
    },
    /// Load a model into the IR and write it back unchanged (the output is byte-identical)
    Roundtrip {
        /// Model file (`-` reads standard input)
        model: PathBuf,
        /// Output file (`-` writes standard output)
        #[arg(short, long)]
        output: PathBuf,
        /// Allow the output to be the input file
        #[arg(long)]
        in_place: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Sarif,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ShapesFormat {
    Text,
    Json,
}

pub const EXIT_OK: u8 = 0;
pub const EXIT_FINDINGS: u8 = 1;
pub const EXIT_UNLOADABLE: u8 = 2;

/// Runs the parsed command; returns the exit status.
pub fn run(cli: Cli) -> u8 {
    match cli.command {
        Command::Check { models, format } => check(&models, format),
        Command::Shapes { model, format } => shapes(&model, format),
        Command::Roundtrip {
            model,
            output,
            in_place,
        } => roundtrip(model, output, in_place),
    }
}

/// Longest load-error message shown whole; prost's field paths of deeply nested files run to
/// kilobytes, and the middle of them repeats.
const MAX_ERROR_CHARS: usize = 400;

fn load(path: &std::path::Path) -> Result<Model, String> {
    Model::load(Origin::from_arg(path)).map_err(|e| shorten(&format!("{e:#}")))
}

fn shorten(msg: &str) -> String {
    let chars: Vec<char> = msg.chars().collect();
    if chars.len() <= MAX_ERROR_CHARS {
        return msg.to_owned();
    }
    let head: String = chars[..MAX_ERROR_CHARS / 2].iter().collect();
    let tail: String = chars[chars.len() - MAX_ERROR_CHARS / 2..].iter().collect();
    format!("{head} ... {tail}")
}

fn check(models: &[PathBuf], format: Format) -> u8 {
    let reports: Vec<FileReport> = models
        .iter()
        .map(|p| FileReport {
            file: Origin::from_arg(p).display(),
            outcome: load(p).map(|m| m.diagnostics),
        })
        .collect();
    let out = match format {
        Format::Text => render::text(&reports),
        Format::Json => render::json(&reports),
        Format::Sarif => render::sarif(&reports),
    };
    print!("{out}");
    exit_status(&reports)
}

fn exit_status(reports: &[FileReport]) -> u8 {
    if reports.iter().any(|r| r.outcome.is_err()) {
        EXIT_UNLOADABLE
    } else if reports
        .iter()
        .any(|r| r.outcome.as_ref().is_ok_and(|d| has_errors(d)))
    {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}

fn roundtrip(model: PathBuf, output: PathBuf, in_place: bool) -> u8 {
    let shown = Origin::from_arg(&model).display();
    let m = match load(&model) {
        Ok(m) => m,
        Err(e) => {
            eprintln!(
                "error: cannot load {}: {}",
                render::escape(&shown),
                render::escape(&e)
            );
            return EXIT_UNLOADABLE;
        }
    };
    if let Err(e) = write_model(&m, &Edit::default(), &output, &WriteOptions { in_place }) {
        eprintln!("error: {}", render::escape(&format!("{e:#}")));
        return EXIT_UNLOADABLE;
    }
    for loc in external_files_left_behind(&m, &output) {
        eprintln!(
            "warning: the model's external data '{}' is not next to {}: copy it there, or the output will not load",
            render::escape(&loc),
            render::escape(&output.display().to_string())
        );
    }
    EXIT_OK
}

fn shapes(model: &std::path::Path, format: ShapesFormat) -> u8 {
    let m = match load(model) {
        Ok(m) => m,
        Err(e) => {
            let shown = Origin::from_arg(model).display();
            eprintln!(
                "error: cannot load {}: {}",
                render::escape(&shown),
                render::escape(&e)
            );
            return EXIT_UNLOADABLE;
        }
    };
    let out = match format {
        ShapesFormat::Text => render::shapes_text(&m.shapes),
        ShapesFormat::Json => render::shapes_json(&m.shapes),
    };
    print!("{out}");
    EXIT_OK
}
