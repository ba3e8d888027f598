//! Shapes: the broadcast algebra of the spec, operator contracts, what inference knows of a value, the
//! per-op rules and the driver that walks a model and reports every broadcast error and broken
//! contract.

pub mod bindings;
pub mod broadcast;
mod call_body;
mod calls;
pub mod conditions;
pub mod contract;
pub mod counterexample;
pub mod ctx;
pub mod dim;
pub mod dim_parse;
pub mod domains;
pub mod facts;
pub mod infer;
pub mod inputs;
pub mod interface;
pub mod kept;
mod maybe_branch;
pub mod ops;
pub mod poly;
pub mod ranges;
pub mod registry;
pub mod sites;
pub mod sizes;
pub mod value;
