//! Shape rules, one file per operator family. Each file's `register` adds its rules to the registry
//! with the opset version each applies from.

pub mod attention;
pub mod broadcasting;
pub mod common;
pub mod contract;
pub mod contrib_activation;
pub mod contrib_attention;
pub mod contrib_attention_decoding;
pub mod contrib_fused;
pub mod contrib_generation;
pub mod contrib_misc;
pub mod contrib_moe;
pub mod contrib_norm;
pub mod contrib_other;
pub mod contrib_qlinear;
pub mod contrib_qordered;
pub mod contrib_quant_matmul;
pub mod contrib_recurrent;
pub mod contrib_signal;
pub mod contrib_sparse;
pub mod control_flow;
pub mod conv_pool;
pub mod einsum;
pub mod elementwise_unary;
pub mod expand;
pub mod image;
pub mod indexing;
pub mod losses;
pub mod matmul;
pub mod misc;
pub mod ml;
pub mod normalization;
pub mod quantize;
pub mod reduce;
pub mod rnn;
pub mod sequence;
pub mod shape_ops;
pub mod signal;
pub mod support;
pub mod text;
pub mod training;
pub mod unidirectional;

use super::registry::Registry;

/// Registers every family's rules.
pub fn register_all(r: &mut Registry) {
    attention::register(r);
    broadcasting::register(r);
    contrib_activation::register(r);
    contrib_attention::register(r);
    contrib_attention_decoding::register(r);
    contrib_fused::register(r);
    contrib_generation::register(r);
    contrib_misc::register(r);
    contrib_moe::register(r);
    contrib_qordered::register(r);
    contrib_norm::register(r);
    contrib_other::register(r);
    contrib_qlinear::register(r);
    contrib_quant_matmul::register(r);
    contrib_recurrent::register(r);
    contrib_signal::register(r);
    contrib_sparse::register(r);
    control_flow::register(r);
    conv_pool::register(r);
    einsum::register(r);
    elementwise_unary::register(r);
    expand::register(r);
    image::register(r);
    indexing::register(r);
    losses::register(r);
    matmul::register(r);
    misc::register(r);
    ml::register(r);
    normalization::register(r);
    quantize::register(r);
    reduce::register(r);
    rnn::register(r);
    sequence::register(r);
    shape_ops::register(r);
    signal::register(r);
    text::register(r);
    training::register(r);
    unidirectional::register(r);
}
