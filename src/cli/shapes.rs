//! `onnx-lint shapes`: print the element type and shape inferred for every value.

use super::{EXIT_OK, EXIT_UNLOADABLE, ShapesFormat, load_or_say};
use crate::render;

pub(super) fn shapes(model: &std::path::Path, format: ShapesFormat) -> u8 {
    let Some((_, found)) = load_or_say(model) else {
        return EXIT_UNLOADABLE;
    };
    let out = match format {
        ShapesFormat::Text => render::shapes_text(&found.shapes),
        ShapesFormat::Json => render::shapes_json(&found.shapes),
    };
    print!("{out}");
    EXIT_OK
}
