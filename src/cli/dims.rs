//! `onnx-lint dims`: the sizes report of a model, as text or JSON (see `docs/sizes-report.md`).
//! Exit 0 when the model could be analysed (its findings are `check`'s to report), 2 when it
//! cannot be loaded or a `--dim` is malformed or names no input dim of it.

use super::{EXIT_OK, EXIT_UNLOADABLE, ShapesFormat, load_error, parse_dims, say_unloadable};
use crate::file::Origin;
use crate::render;
use std::io::Write;

pub(super) fn dims(model: &std::path::Path, format: ShapesFormat, dims: &[String]) -> u8 {
    let dims = match parse_dims(dims) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {}", render::escape(&e.to_string()));
            return EXIT_UNLOADABLE;
        }
    };
    let report = match crate::lint::sizes(Origin::from_arg(model), &dims) {
        Ok(r) => r,
        Err(e) => {
            say_unloadable(model, &load_error(&e));
            return EXIT_UNLOADABLE;
        }
    };
    let shown = Origin::from_arg(model).display();
    let text = match format {
        ShapesFormat::Text => render::dims_text(&shown, &report),
        ShapesFormat::Json => {
            let mut j = render::dims_json(&shown, &report).to_string();
            j.push('\n');
            j
        }
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => EXIT_OK,
        Err(e) => {
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                eprintln!("error: cannot write the report: {e}");
            }
            EXIT_UNLOADABLE
        }
    }
}
