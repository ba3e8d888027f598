//! Shape rules, one file per operator family. Each file's `register` adds its rules to the registry
//! with the opset version each applies from.

pub mod broadcasting;
pub mod control_flow;
pub mod expand;
pub mod matmul;
pub mod unidirectional;

use super::registry::Registry;

/// Registers every family's rules.
pub fn register_all(r: &mut Registry) {
    broadcasting::register(r);
    control_flow::register(r);
    expand::register(r);
    matmul::register(r);
    unidirectional::register(r);
}
