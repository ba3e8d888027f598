//! Shape inference and the findings it makes: the broadcast algebra against the spec, data
//! propagation, symbolic sizes, negative declared dims, and the planted findings of `models/broken/`.

mod broadcast_spec;
mod data_prop;
mod negative_declared_dims;
mod planted_findings;
mod symbolic;
