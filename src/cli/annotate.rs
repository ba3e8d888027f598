//! `onnx-lint annotate`: write the inferred type of every value into the model's `value_info` (or,
//! with `--strip`, remove them all), with a report on standard error.

use super::{EXIT_OK, EXIT_UNLOADABLE, build_or_say, load_or_say_with, refuse_if_errors};
use crate::lint::{Built, LoadOptions};
use crate::passes::annotate::{self, Options};
use crate::render;
use std::path::PathBuf;

/// What the command line asks of `annotate`.
pub(super) struct Asked {
    pub options: Options,
    pub strip: bool,
    pub force: bool,
}

pub(super) fn annotate(
    model: PathBuf,
    output: PathBuf,
    asked: &Asked,
    write: super::WriteArgs,
    color: super::ColorChoice,
) -> u8 {
    if asked.strip {
        return strip(model, output, write);
    }
    let Some((m, found)) = load_or_say_with(&model, &LoadOptions::for_pass()) else {
        return EXIT_UNLOADABLE;
    };
    // Shapes inferred downstream of an error are guesses: written only when asked to.
    if !asked.force
        && let Some(status) = refuse_if_errors(&found, &model, color)
    {
        eprintln!("annotate: --force writes the inferred types anyway");
        return status;
    }
    if let Some(status) = super::refuse_output(&m, &output, &write) {
        return status;
    }
    let outcome = annotate::run(&m, &found.shapes, &asked.options);
    super::leave(found);
    for l in &outcome.left {
        eprintln!(
            "annotate: graph {}, {} '{}' left as declared, it contradicts inference (T004): {}",
            render::escape(&l.graph),
            l.place,
            render::escape(&l.name),
            render::escape(&l.why)
        );
    }
    let status = super::write_out(&m, &outcome.edit, &output, write);
    if status == EXIT_OK {
        let outputs = if asked.options.outputs_too {
            format!(", {} graph outputs filled", outcome.outputs)
        } else {
            String::new()
        };
        let functions = if outcome.in_functions > 0 {
            format!(", {} of them in function bodies", outcome.in_functions)
        } else {
            String::new()
        };
        eprintln!(
            "annotate: {} types written to value_info ({} added, {} refined){functions}{outputs}, {} left as declared",
            outcome.added + outcome.refined,
            outcome.added,
            outcome.refined,
            outcome.left.len()
        );
    }
    super::leave((m, outcome));
    status
}

/// `--strip`: removes every `value_info` entry. Inference is not needed, nor run.
fn strip(model: PathBuf, output: PathBuf, write: super::WriteArgs) -> u8 {
    let Some(Built { model: m, .. }) = build_or_say(&model) else {
        return EXIT_UNLOADABLE;
    };
    if let Some(status) = super::refuse_output(&m, &output, &write) {
        return status;
    }
    let (edit, removed) = annotate::strip(&m);
    let status = super::write_out(&m, &edit, &output, write);
    if status == EXIT_OK {
        eprintln!("annotate: {removed} value_info entries removed");
    }
    status
}
