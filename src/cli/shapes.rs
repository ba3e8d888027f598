//! `onnx-lint shapes`: print the element type and shape inferred for every value.

use super::{EXIT_OK, EXIT_UNLOADABLE, ShapesFormat, load_or_say_with, parse_dims};
use crate::lint::LoadOptions;
use crate::render;
use std::io::Write;

pub(super) fn shapes(model: &std::path::Path, format: ShapesFormat, dims: &[String]) -> u8 {
    let dims = match parse_dims(dims) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {}", crate::render::escape(&e.to_string()));
            return EXIT_UNLOADABLE;
        }
    };
    let opts = LoadOptions {
        dims: (!dims.is_empty()).then(|| std::sync::Arc::new(dims)),
        ..LoadOptions::default()
    };
    let Some((m, found)) = load_or_say_with(model, &opts) else {
        return EXIT_UNLOADABLE;
    };
    // The listing needs the shapes only.
    drop(m);
    // Written value by value as it is made: never the whole listing in memory.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = match format {
        ShapesFormat::Text => render::write_shapes_text(&mut out, &found.shapes),
        ShapesFormat::Json => render::write_shapes_json(&mut out, &found.shapes),
    }
    .and_then(|()| out.flush());
    match written {
        Ok(()) => EXIT_OK,
        // Standard output is gone or full: say so (unless the reader just stopped reading, as
        // `head` does) and exit 2, as `check` does.
        Err(e) => {
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                eprintln!("error: cannot write the listing: {e}");
            }
            EXIT_UNLOADABLE
        }
    }
}
