//! `onnx-lint explain [CODE]`: print a rule's documentation (from `docs/rules.md`), or list the codes.

use super::{EXIT_OK, EXIT_UNLOADABLE};
use crate::diagnostics::explain;
use crate::render;

pub(super) fn explain(code: Option<&str>) -> u8 {
    let Some(code) = code else {
        print!("{}", explain::list());
        return EXIT_OK;
    };
    match explain::lookup(code).and_then(explain::text) {
        Some(text) => {
            print!("{text}");
            EXIT_OK
        }
        None => {
            eprintln!(
                "error: unknown code '{}'; the codes are:\n",
                render::escape(code)
            );
            eprint!("{}", explain::list());
            EXIT_UNLOADABLE
        }
    }
}
