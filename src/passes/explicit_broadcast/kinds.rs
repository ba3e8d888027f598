//! Which nodes broadcast, and how: the inputs each operator broadcasts and the shape it broadcasts
//! them to ([`Kind`]), for the default domain by opset and for onnxruntime's contrib operators. The
//! explicit-broadcast pass expands those inputs; the fold pass reads the same table to find the
//! Expands a node's own broadcasting makes redundant.

use crate::ir::{OpNode, opset_domain};
use crate::shape::dim::{Dim, Shape};

/// How a node broadcasts: which input slots, and to what (the fold pass reads it too).
pub(crate) enum Kind {
    /// Every input to the output shape.
    Multi,
    /// These inputs to the output shape, the others not being broadcast operands (onnxruntime's
    /// QLinearAdd: A and B, not their scales and zero points).
    MultiOf(&'static [usize]),
    /// These inputs to the shape of input 0 (which is the output's shape).
    ToFirst(&'static [usize]),
    /// These inputs to the normalized part of input 0's shape, `X.shape[axis:]`: the shape the
    /// operator defines scale and bias on (X's full shape would break onnx-lint's own rule for them).
    /// onnxruntime computes a scale of exactly that shape with one kernel and any other (smaller, or
    /// X's full shape) with another, so the last bits change either way: by default a broadcast scale
    /// or bias stays implicit ([`KERNEL_EXCEPTIONS`](super::KERNEL_EXCEPTIONS)).
    Normalized(&'static [usize]),
    /// Gemm's C to the output shape [M, N].
    GemmC,
    /// Opset < 7 `broadcast=1`: B (input 1) placed at `axis` of A's shape and repeated to it.
    LegacyAxis(Option<i64>),
    /// The attention_bias (at this slot) of onnxruntime's attention operators, `(batch or 1, num_heads
    /// or 1, q, kv)`, to `(batch, num_heads, q, kv)`: batch from the query (input 0), num_heads from the
    /// attribute, q and kv its own (they never broadcast).
    AttentionBias(usize),
}

/// The shape an attention_bias broadcasts to: `[batch, num_heads, q, kv]` from the query's shape
/// `query` (its first axis is the batch in every layout), the `num_heads` attribute and the bias's own
/// last two axes. `None` when the bias is not 4-D, the query's rank is unknown or `num_heads` absent.
pub(crate) fn attention_bias_target(query: &Shape, bias: &Shape, heads: Option<i64>) -> Shape {
    let (q, b) = (query.as_ref()?, bias.as_ref()?);
    let heads = u64::try_from(heads?).ok().filter(|&h| h > 0)?;
    if b.len() != 4 || q.is_empty() {
        return None;
    }
    Some(vec![
        q[0].clone(),
        Dim::Known(heads),
        b[2].clone(),
        b[3].clone(),
    ])
}

/// The `num_heads` attribute of a node.
pub(crate) fn num_heads(op: &OpNode) -> Option<i64> {
    op.attributes()
        .iter()
        .find(|a| a.name() == "num_heads")
        .and_then(|a| a.i)
}

/// How `op` broadcasts, if it does; `opset` is the default domain's version in force.
pub(crate) fn kind(op: &OpNode, opset: i64) -> Option<Kind> {
    match opset_domain(op.domain()) {
        "" => standard_kind(op, opset),
        "com.microsoft" => contrib_kind(op),
        _ => None,
    }
}

/// onnxruntime's contrib operators that broadcast numpy-style and accept operands of one shape, so
/// an Expand keeps the model valid. (Their inputs the definition requires smaller, a 1-D bias, are
/// [`REQUIRED_SMALLER`](super::REQUIRED_SMALLER).)
fn contrib_kind(op: &OpNode) -> Option<Kind> {
    Some(match op.op_type() {
        "QLinearAdd" | "QLinearMul" => Kind::MultiOf(&[0, 3]),
        "QLinearWhere" => Kind::MultiOf(&[0, 1, 4]),
        // Gemm with an activation: C broadcasts as Gemm's.
        "FusedGemm" => Kind::GemmC,
        // onnxruntime runs an attention_bias of the full (batch, num_heads, q, kv) as it runs a
        // broadcast one.
        "Attention" | "MultiHeadAttention" => Kind::AttentionBias(5),
        "GroupQueryAttention" => Kind::AttentionBias(10),
        "DecoderMaskedMultiHeadAttention" => Kind::AttentionBias(4),
        _ => return None,
    })
}

fn standard_kind(op: &OpNode, opset: i64) -> Option<Kind> {
    let legacy_binary = opset < 7;
    Some(match op.op_type() {
        "Add" | "Sub" | "Mul" | "Div" | "Pow" | "And" | "Or" | "Xor" | "Equal" | "Greater"
        | "Less"
            if !legacy_binary =>
        {
            Kind::Multi
        }
        "Max" | "Min" | "Sum" | "Mean" if opset >= 8 => Kind::Multi,
        "Mod" | "BitShift" | "GreaterOrEqual" | "LessOrEqual" | "Where" | "BitwiseAnd"
        | "BitwiseOr" | "BitwiseXor" | "StringConcat" => Kind::Multi,
        "PRelu" if opset >= 7 => Kind::ToFirst(&[1]),
        "LayerNormalization" if opset >= 17 => Kind::Normalized(&[1, 2]),
        // Before 17 it is onnxruntime's own (default domain, version 1), whose kernel broadcasts scale
        // and bias onto X's whole shape.
        "LayerNormalization" => Kind::ToFirst(&[1, 2]),
        "RMSNormalization" => Kind::Normalized(&[1]),
        "Gemm" if opset >= 7 || legacy_broadcast(op) => Kind::GemmC,
        _ if legacy_binary && legacy_broadcast(op) => Kind::LegacyAxis(
            op.attributes()
                .iter()
                .find(|a| a.name() == "axis")
                .and_then(|a| a.i),
        ),
        _ => return None,
    })
}

/// True when the legacy (opset < 7) `broadcast=1` attribute makes this node broadcast.
fn legacy_broadcast(op: &OpNode) -> bool {
    op.attributes()
        .iter()
        .any(|a| a.name() == "broadcast" && a.i.unwrap_or(0) != 0)
}
