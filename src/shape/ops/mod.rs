//! Shape rules, one file per operator family. Each file's `register` adds its rules to the registry
//! with the opset version each applies from.

pub mod broadcasting;
pub mod common;
pub mod control_flow;
pub mod conv_pool;
pub mod einsum;
pub mod elementwise_unary;
pub mod expand;
pub mod indexing;
pub mod matmul;
pub mod reduce;
pub mod shape_ops;
pub mod unidirectional;

use super::registry::Registry;

/// Registers every family's rules.
pub fn register_all(r: &mut Registry) {
    broadcasting::register(r);
    control_flow::register(r);
    conv_pool::register(r);
    einsum::register(r);
    elementwise_unary::register(r);
    expand::register(r);
    indexing::register(r);
    matmul::register(r);
    reduce::register(r);
    shape_ops::register(r);
    unidirectional::register(r);
}
