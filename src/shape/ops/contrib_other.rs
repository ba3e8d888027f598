//! The remaining onnxruntime contrib operators (domain `com.microsoft`, version 1 each): the float8 and
//! block-quantized products GemmFloat8, MatMulBlockQuantizedFp4Weight and MatMulBlockQuantizedFp8Weight,
//! SparseToDenseMatMul, the block floating point pair QuantizeBFP and DequantizeBFP, AttnLSTM and
//! Tokenizer.
//!
//! Spec: <https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md>
//! (`#com.microsoft.GemmFloat8` and so on):
//! - GemmFloat8: Gemm's `(M, N)` after `transA`/`transB`, of the type `dtype` names.
//! - MatMulBlockQuantizedFp4Weight, MatMulBlockQuantizedFp8Weight: A `[.., K]` by B `[N, ..]` gives
//!   `[.., N]` in A's type.
//! - SparseToDenseMatMul: the sparse A `(M, K)` by the dense B `(K, N)` gives `(M, N)` in B's type.
//! - QuantizeBFP: the 1-D BFP bytes (uint8, of a length of the format's), and x's shape and strides as
//!   int64 vectors of x's rank. DequantizeBFP: a tensor of the shape the `shape` input holds, of type
//!   `dtype` (float by default).
//! - AttnLSTM: LSTM's outputs, `Y` `(seq, num_directions, batch, hidden)` and `Y_h`, `Y_c`
//!   `(num_directions, batch, hidden)`. onnxruntime requires W `(num_directions, 4 * hidden,
//!   input_size + attention size)`, the attention size AW's last axis, or MW's memory depth without
//!   a wrapper ("Input W must have shape ..."): checked here.
//! - Tokenizer: strings `[N]` or `[N, C]` give `[N, T]` or `[N, C, T]` strings, T the most tokens found
//!   (data-dependent).
//!
//! EPContext and Snpe hold a compiled graph of another runtime (an execution provider's context, a SNPE
//! DLC): nothing is known of their outputs, not even their ranks or types (a variadic `T`). They get no
//! rule on purpose: a rule answering "unknown" would only silence I001, which tells the user their
//! outputs are unknown.
//!
//! Runnable on the CPU: Tokenizer and AttnLSTM (tests/conformance/contrib/cases_more.py). GemmFloat8
//! and the block-quantized products are CUDA kernels, SparseToDenseMatMul takes a sparse input the
//! harness does not build, and the BFP pair has no kernel in onnxruntime's builds: covered by the unit
//! tests below. onnxruntime's own shape inference at load time (the sizes it reports when they clash
//! with a declared output) agrees with these rules on GemmFloat8, both block-quantized products and
//! QuantizeBFP.

use super::super::contract::Contract;
use super::super::ctx::NodeCtx;
use super::super::dim::Dim;
use super::super::registry::Registry;
use super::super::value::{Data, ValueInfo};
use super::common::{add, like, mul, size_of_value};
use super::contract;
use super::support::{dim_of, elem, elem_attr, rank_of};
use crate::proto::tensor_proto::DataType;

const MS: &str = "com.microsoft";

pub fn register(r: &mut Registry) {
    r.add(MS, "GemmFloat8", 1, gemm_float8);
    r.add(
        MS,
        "MatMulBlockQuantizedFp4Weight",
        1,
        block_quantized_matmul,
    );
    r.add(
        MS,
        "MatMulBlockQuantizedFp8Weight",
        1,
        block_quantized_matmul,
    );
    r.add(MS, "SparseToDenseMatMul", 1, sparse_to_dense_matmul);
    r.add(MS, "QuantizeBFP", 1, quantize_bfp);
    r.add(MS, "DequantizeBFP", 1, dequantize_bfp);
    r.add(MS, "AttnLSTM", 1, attn_lstm);
    r.add(MS, "Tokenizer", 1, tokenizer);
}

fn flag(ctx: &NodeCtx<'_>, name: &str) -> bool {
    ctx.attr_i(name).unwrap_or(0) != 0
}

/// GemmFloat8(A, B, ..) -> (M, N) of type `dtype`.
fn gemm_float8(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let m = dim_of(ctx, 0, 2, usize::from(flag(ctx, "transA")));
    let n = dim_of(ctx, 1, 2, usize::from(!flag(ctx, "transB")));
    vec![ValueInfo::tensor(elem_attr(ctx, "dtype"), Some(vec![m, n]))]
}

/// MatMulBlockQuantizedFp4Weight / Fp8Weight(A [.., K], B [N, ..], ..) -> [.., N].
fn block_quantized_matmul(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let n = dim_of(ctx, 1, 2, 0);
    let shape = ctx.shape(0).filter(|s| !s.is_empty()).map(|mut s| {
        let last = s.len() - 1;
        s[last] = n;
        s
    });
    vec![like(ctx, 0, shape)]
}

/// SparseToDenseMatMul(A sparse (M, K), B (K, N)) -> (M, N).
fn sparse_to_dense_matmul(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let m = dim_of(ctx, 0, 2, usize::from(flag(ctx, "transA")));
    let n = dim_of(ctx, 1, 2, usize::from(!flag(ctx, "transB")));
    vec![like(ctx, 1, Some(vec![m, n]))]
}

/// QuantizeBFP(x) -> (y uint8 [?], shape int64 [rank], strides int64 [rank]).
fn quantize_bfp(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let rank = rank_of(ctx, 0).map_or(Dim::Unknown, |r| Dim::Known(r as u64));
    let int64 = elem(DataType::Int64);
    let shape_values = ctx.shape(0);
    vec![
        ValueInfo::tensor(elem(DataType::Uint8), Some(vec![Dim::Unknown])),
        ValueInfo::tensor(int64, Some(vec![rank.clone()])).with_data(shape_values),
        ValueInfo::tensor(int64, Some(vec![rank])),
    ]
}

/// DequantizeBFP(x, shape, strides) -> a tensor of the shape `shape` holds, of type `dtype`.
fn dequantize_bfp(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = match ctx.values(1) {
        Some(Data::Ints(v)) if rank_of(ctx, 1) == Some(1) => {
            Some(v.iter().map(size_of_value).collect())
        }
        _ => match dim_of(ctx, 1, 1, 0) {
            Dim::Known(r) if r <= 64 => Some(vec![Dim::Unknown; r as usize]),
            _ => None,
        },
    };
    let t = elem_attr(ctx, "dtype").or(elem(DataType::Float));
    vec![ValueInfo::tensor(t, shape)]
}

/// AttnLSTM(X (seq, batch, input), W, R (dirs, 4 * hidden, hidden), ..) -> (Y, Y_h, Y_c).
fn attn_lstm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let dirs = match ctx.attr_s("direction") {
        Some("bidirectional") => Dim::Known(2),
        None | Some("forward" | "reverse") => Dim::Known(1),
        Some(_) => Dim::Unknown,
    };
    let hidden = match ctx.attr_i("hidden_size") {
        Some(h) if h > 0 => Dim::Known(h as u64),
        Some(_) => Dim::Unknown,
        None => dim_of(ctx, 2, 3, 2),
    };
    let (seq, batch) = (dim_of(ctx, 0, 3, 0), dim_of(ctx, 0, 3, 1));
    // The cell reads the input concatenated with the attention: W's last axis is the input size plus
    // the attention wrapper's size (AW's last axis), or without a wrapper the memory depth (MW's).
    let attention = if ctx.has_input(13) {
        dim_of(ctx, 13, 3, 2)
    } else {
        dim_of(ctx, 9, 3, 1)
    };
    if ctx.has_input(9) && rank_of(ctx, 0) == Some(3) {
        let width = add(&dim_of(ctx, 0, 3, 2), &attention);
        let gates = mul(&Dim::Known(4), &hidden);
        contract::exact(
            ctx,
            0,
            1,
            &[dirs.clone(), gates, width],
            Contract::new(
                "attn-lstm-w",
                "AttnLSTM's W: (num_directions, 4 * hidden_size, input_size + attention size)",
            ),
        );
    }
    let state = vec![dirs.clone(), batch.clone(), hidden.clone()];
    vec![
        like(ctx, 0, Some(vec![seq, dirs, batch, hidden])),
        like(ctx, 0, Some(state.clone())),
        like(ctx, 0, Some(state)),
    ]
}

/// Tokenizer(X [N] or [N, C]) -> [N, T] or [N, C, T] strings.
fn tokenizer(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let shape = ctx
        .shape(0)
        .filter(|s| matches!(s.len(), 1 | 2))
        .map(|mut s| {
            s.push(Dim::Unknown);
            s
        });
    vec![ValueInfo::tensor(elem(DataType::String), shape)]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    #[test]
    fn gemm_float8_transposes() {
        let n = node(
            "GemmFloat8",
            2,
            1,
            vec![attr_i("transB", 1), attr_i("dtype", 10)],
        );
        let outs = run(
            gemm_float8,
            &n,
            1,
            &[t(F32, &["m", "32"]), t(F32, &["16", "32"])],
        );
        assert_eq!(outs[0].shape, shape(&["m", "16"]));
        assert_eq!(outs[0].elem, Some(10));
    }

    #[test]
    fn block_quantized_products_take_n_from_b() {
        let n = node("MatMulBlockQuantizedFp8Weight", 3, 1, vec![]);
        let s = out_shape(
            block_quantized_matmul,
            &n,
            1,
            &[t(F32, &["b", "s", "256"]), t(F32, &["64", "256"])],
        );
        assert_eq!(s, shape(&["b", "s", "64"]));
    }

    #[test]
    fn bfp_round_trip_keeps_the_shape() {
        let n = node("QuantizeBFP", 1, 3, vec![attr_i("bfp_type", 1)]);
        let outs = run(quantize_bfp, &n, 1, &[t(F32, &["4", "b"])]);
        assert_eq!(outs[1].shape, shape(&["2"]));
        let n = node("DequantizeBFP", 3, 1, vec![attr_i("bfp_type", 1)]);
        let s = out_shape(
            dequantize_bfp,
            &n,
            1,
            &[t(F32, &["?"]), ints(&[4, 8]), ints(&[8, 1])],
        );
        assert_eq!(s, shape(&["4", "8"]));
    }

    #[test]
    fn attn_lstm_and_tokenizer() {
        let n = node(
            "AttnLSTM",
            3,
            3,
            vec![
                attr_s("direction", "bidirectional"),
                attr_i("hidden_size", 8),
            ],
        );
        let outs = run(
            attn_lstm,
            &n,
            1,
            &[
                t(F32, &["s", "b", "4"]),
                t(F32, &["2", "32", "4"]),
                t(F32, &["2", "32", "8"]),
            ],
        );
        assert_eq!(outs[0].shape, shape(&["s", "2", "b", "8"]));
        assert_eq!(outs[2].shape, shape(&["2", "b", "8"]));
        let n = node("Tokenizer", 1, 1, vec![]);
        let s = out_shape(tokenizer, &n, 1, &[t(F32, &["n"])]);
        assert_eq!(s, shape(&["n", "?"]));
    }
}

#[cfg(test)]
mod hostile {
    //! The rules of the contrib families added with this file (contrib_misc, contrib_signal, contrib_moe,
    //! contrib_qordered, contrib_generation, contrib_recurrent, contrib_sparse and this one) on their own
    //! attributes at hostile values (the shared sweep in `support` covers hostile inputs
    //! with the common attribute names): none may panic.

    use super::super::super::dim::Dim;
    use super::super::super::registry::Registry;
    use super::super::super::value::{Data, ValueInfo, from_i64};
    use super::super::common::test_util::*;

    const INT_ATTRS: &[&str] = &[
        "size",
        "step",
        "dim",
        "signal_ndim",
        "num_heads",
        "N",
        "Nq",
        "Nkv",
        "K",
        "vocab_size",
        "positive",
        "model_type",
        "to",
        "group",
        "q_num_heads",
        "kv_num_heads",
        "state_window",
        "state_update_capacity",
        "dilation",
        "ndim",
        "num_branches",
        "max_ngram_size",
        "n_head_per_ngram",
        "transA",
        "transB",
        "dtype",
        "token_budget",
        "compress_ratio",
        "index_topk",
    ];
    const INTS_ATTRS: &[&str] = &[
        "kernel_shape",
        "strides",
        "pads",
        "dilations",
        "output_padding",
        "output_shape",
    ];

    #[test]
    fn no_rule_panics_on_hostile_attributes() {
        let mut r = Registry::default();
        super::super::contrib_misc::register(&mut r);
        super::super::contrib_signal::register(&mut r);
        super::super::contrib_moe::register(&mut r);
        super::super::contrib_qordered::register(&mut r);
        super::register(&mut r);
        super::super::contrib_sparse::register(&mut r);
        super::super::contrib_generation::register(&mut r);
        super::super::contrib_recurrent::register(&mut r);
        let huge = Dim::Known(u64::MAX);
        let big = Some(ValueInfo::tensor(
            F32,
            Some(vec![huge.clone(), d("N"), Dim::Unknown, d("0")]),
        ));
        let extreme = Some(ValueInfo::int64_data(
            vec![from_i64(i64::MIN), from_i64(i64::MAX), from_i64(-1), d("S")],
            false,
        ));
        let matrix = Some(
            ValueInfo::tensor(I64, Some(vec![d("1"), d("4")])).with_values(Some(Data::Ints(vec![
                from_i64(i64::MAX),
                from_i64(i64::MIN),
                from_i64(-1),
                from_i64(1),
            ]))),
        );
        let input_sets: Vec<Vec<Option<ValueInfo>>> = vec![
            vec![],
            vec![None; 8],
            vec![big.clone(); 8],
            vec![
                t(F32, &["2", "3"]),
                extreme.clone(),
                extreme.clone(),
                extreme.clone(),
                extreme,
            ],
            vec![
                t(F32, &["1", "1", "1"]),
                matrix.clone(),
                int(i64::MAX),
                int(-1),
                int(0),
            ],
            vec![
                t(F32, &["u", "1", "2", "3"]),
                ints(&[0, 0, 0, 0, 0, 0, 0, 0]),
                matrix,
            ],
            vec![
                t(F32, &[]),
                int(i64::MIN),
                int(i64::MAX),
                int(i64::MAX),
                int(i64::MAX),
            ],
            vec![
                big.clone(),
                t(F32, &["1"]),
                big,
                ints(&[i64::MAX, i64::MAX]),
            ],
        ];
        let mut ops: Vec<(&str, &str)> = r.ops().collect();
        ops.sort();
        assert!(ops.len() > 40, "{} ops", ops.len());
        for (domain, op) in ops {
            let rule = r.lookup(domain, op, 1).expect("registered at 1");
            for v in [i64::MIN, -1, 0, 1, 2, 3, i64::MAX] {
                let mut attrs: Vec<_> = INT_ATTRS.iter().map(|n| attr_i(n, v)).collect();
                attrs.extend(INTS_ATTRS.iter().map(|n| attr_ints(n, &[v, v, v, v])));
                for inputs in &input_sets {
                    for outputs in [0, 1, 5] {
                        let n = node(op, inputs.len(), outputs, attrs.clone());
                        run(rule, &n, 1, inputs);
                    }
                }
            }
        }
    }
}
