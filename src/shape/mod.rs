//! Shapes: the broadcast algebra of the spec, what inference knows of a value, the per-op rules and
//! the driver that walks a model and reports every broadcast error.

pub mod broadcast;
pub mod counterexample;
pub mod ctx;
pub mod dim;
pub mod infer;
pub mod kept;
pub mod ops;
pub mod poly;
pub mod registry;
pub mod value;
