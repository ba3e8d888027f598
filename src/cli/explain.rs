//! `onnx-lint explain [CODE]`: print a rule's documentation (from `docs/rules.md`, rendered for a
//! terminal: bold headings when coloured), or list the codes.

use super::{ColorChoice, EXIT_OK, EXIT_UNLOADABLE};
use crate::diagnostics::explain;
use crate::render;
use std::io::IsTerminal;

pub(super) fn explain(code: Option<&str>, color: ColorChoice) -> u8 {
    let Some(code) = code else {
        print!("{}", explain::list());
        return EXIT_OK;
    };
    let color = color.resolve(std::io::stdout().is_terminal());
    match explain::lookup(code).and_then(|c| explain::render(c, color)) {
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
