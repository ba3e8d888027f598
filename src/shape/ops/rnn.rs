//! Recurrent layers: RNN, GRU and LSTM.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#RNN>, `#GRU`, `#LSTM`. Opset
//! history:
//! - RNN, LSTM: 1 (with `output_sequence`), 7, 14 (adds `layout`), 22. GRU: 1 (its `direction`
//!   defaults to the misspelt "foward", which runtimes read as forward), 3, 7, 14, 22.
//!
//! With `layout=0` (the only layout before 14), X is `[seq_length, batch_size, input_size]`, and
//! - Y is `[seq_length, num_directions, batch_size, hidden_size]`,
//! - Y_h (and LSTM's Y_c) is `[num_directions, batch_size, hidden_size]`;
//!
//! with `layout=1`, X is `[batch_size, seq_length, input_size]`, Y `[batch_size, seq_length,
//! num_directions, hidden_size]` and Y_h, Y_c `[batch_size, num_directions, hidden_size]`.
//! `num_directions` is 2 for "bidirectional", else 1 (or W's first dimension); `hidden_size` is the
//! attribute, or R's last dimension (R is `[num_directions, k * hidden_size, hidden_size]`).
//!
//! Contracts, which onnxruntime's kernels check at run (`rnn_helpers.cc`, `lstm_base.cc`; onnx's
//! inference checks only X's rank, at load), for `layout=0` from opset 7 (onnxruntime has no kernel
//! before and refuses `layout=1` at load), with `k` 1 for RNN, 3 for GRU and 4 for LSTM and
//! `num_directions` from `direction`: [`RECURRENT_X_RANK`], X of rank 3; [`RECURRENT_W`], W
//! `[num_directions, k * hidden_size, input_size]` (X's input size against W's is a contraction: a
//! symbol met by a number is bound to it); [`RECURRENT_R`], R `[num_directions, k * hidden_size,
//! hidden_size]`; [`RECURRENT_B`], B `[num_directions, 2 * k * hidden_size]`;
//! [`RECURRENT_SEQUENCE_LENS`], sequence_lens `[batch_size]`; [`RECURRENT_INITIAL_STATE`],
//! initial_h and LSTM's initial_c `[num_directions, batch_size, hidden_size]`; [`LSTM_PEEPHOLES`],
//! LSTM's P `[num_directions, 3 * hidden_size]`. onnxruntime 1.23's LSTM kernel checks W and R as
//! GRU's and RNN's do (`Input R must have shape {1,16,4}. Actual:{1,20,4}`), though a reading of its
//! source had them unchecked. Only the first input that breaks its contract is reported, as the
//! kernel stops there.

use super::super::contract::{Contract, Operand};
use super::super::ctx::NodeCtx;
use super::super::dim::Dim;
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::support::dim_of;

pub fn register(r: &mut Registry) {
    r.add_all(&["RNN", "GRU", "LSTM"], 1, recurrent);
}

/// A recurrent layer's input.
pub const RECURRENT_X_RANK: Contract = Contract::new(
    "recurrent-x-rank",
    "X has rank 3 ([seq_length, batch_size, input_size])",
);

/// A recurrent layer's input weights.
pub const RECURRENT_W: Contract = Contract::new(
    "recurrent-w",
    "W is [num_directions, k * hidden_size, input_size] (k: 1 for RNN, 3 for GRU, 4 for LSTM)",
);

/// A recurrent layer's recurrence weights.
pub const RECURRENT_R: Contract = Contract::new(
    "recurrent-r",
    "R is [num_directions, k * hidden_size, hidden_size] (k: 1 for RNN, 3 for GRU, 4 for LSTM)",
);

/// A recurrent layer's biases.
pub const RECURRENT_B: Contract = Contract::new(
    "recurrent-b",
    "B is [num_directions, 2 * k * hidden_size] (k: 1 for RNN, 3 for GRU, 4 for LSTM)",
);

/// A recurrent layer's sequence lengths.
pub const RECURRENT_SEQUENCE_LENS: Contract =
    Contract::new("recurrent-sequence-lens", "sequence_lens is [batch_size]");

/// A recurrent layer's initial state.
pub const RECURRENT_INITIAL_STATE: Contract = Contract::new(
    "recurrent-initial-state",
    "initial_h (and LSTM's initial_c) are [num_directions, batch_size, hidden_size]",
);

/// LSTM's peephole weights.
pub const LSTM_PEEPHOLES: Contract =
    Contract::new("lstm-peepholes", "P is [num_directions, 3 * hidden_size]");

/// What one axis of an input must be.
enum Want {
    /// Nothing known.
    Any,
    /// Equal to this.
    Equal(Operand),
    /// Equal to this, as at a contraction (a symbol met by a number is bound to it).
    Contracted(Operand),
}

/// Checks input `slot` against contract `c`: rank `want.len()`, then each axis; false on a break.
fn expect(ctx: &mut NodeCtx<'_>, c: Contract, slot: usize, want: Vec<Want>) -> bool {
    let Some(r) = ctx.input(slot).and_then(ValueInfo::rank) else {
        return true;
    };
    if r != want.len() {
        let detail = format!(
            "input {slot} '{}' has rank {r}, not {}",
            ctx.node.input_name(slot),
            want.len()
        );
        ctx.broken(c, &[slot], detail);
        return false;
    }
    for (axis, w) in want.into_iter().enumerate() {
        let Some(actual) = ctx.operand(slot, axis) else {
            continue;
        };
        let ok = match w {
            Want::Any => true,
            Want::Equal(e) => ctx.require_equal(c, &[actual, e]),
            Want::Contracted(e) => {
                let before = ctx.findings.len();
                super::matmul::contraction(ctx, c, e, actual);
                !ctx.findings[before..]
                    .iter()
                    .any(super::super::contract::breaks_node)
            }
        };
        if !ok {
            return false;
        }
    }
    true
}

/// `n` times hidden_size as a wanted size (`4 * hidden_size`), when hidden_size is known.
fn times_hidden(hidden: Option<u64>, n: u64) -> Want {
    let Some(h) = hidden.and_then(|h| h.checked_mul(n)) else {
        return Want::Any;
    };
    let what = if n == 1 {
        "hidden_size".to_owned()
    } else {
        format!("{n} * hidden_size")
    };
    Want::Equal(Operand::new(what, Dim::Known(h)))
}

/// The contracts of RNN, GRU and LSTM with `layout=0`.
fn recurrent_contracts(ctx: &mut NodeCtx<'_>) {
    if let Some(r) = ctx.input(0).and_then(ValueInfo::rank).filter(|&r| r != 3) {
        ctx.broken(RECURRENT_X_RANK, &[0], format_args!("X has rank {r}"));
        return;
    }
    let k: u64 = match ctx.op_type() {
        "GRU" => 3,
        "LSTM" => 4,
        _ => 1,
    };
    let dirs = match ctx.attr_s("direction") {
        None | Some("forward" | "reverse") => Some(1),
        Some("bidirectional") => Some(2),
        Some(_) => None,
    };
    let hidden = ctx
        .attr_i("hidden_size")
        .and_then(|h| u64::try_from(h).ok())
        .filter(|&h| h > 0);
    let dirs_want = || match dirs {
        Some(d) => Want::Equal(Operand::new("num_directions", Dim::Known(d))),
        None => Want::Any,
    };
    let x_axis = |ctx: &NodeCtx<'_>, axis: usize, contracted: bool| match ctx.operand(0, axis) {
        Some(o) if contracted => Want::Contracted(o),
        Some(o) => Want::Equal(o),
        None => Want::Any,
    };
    let checks: Vec<(Contract, usize, Vec<Want>)> = vec![
        (
            RECURRENT_W,
            1,
            vec![dirs_want(), times_hidden(hidden, k), x_axis(ctx, 2, true)],
        ),
        (
            RECURRENT_R,
            2,
            vec![
                dirs_want(),
                times_hidden(hidden, k),
                times_hidden(hidden, 1),
            ],
        ),
        (
            RECURRENT_B,
            3,
            vec![dirs_want(), times_hidden(hidden, 2 * k)],
        ),
        (RECURRENT_SEQUENCE_LENS, 4, vec![x_axis(ctx, 1, false)]),
        (
            RECURRENT_INITIAL_STATE,
            5,
            vec![dirs_want(), x_axis(ctx, 1, false), times_hidden(hidden, 1)],
        ),
        (
            RECURRENT_INITIAL_STATE,
            6,
            vec![dirs_want(), x_axis(ctx, 1, false), times_hidden(hidden, 1)],
        ),
        (
            LSTM_PEEPHOLES,
            7,
            vec![dirs_want(), times_hidden(hidden, 3)],
        ),
    ];
    let inputs = if k == 4 { 8 } else { 6 };
    for (c, slot, want) in checks {
        if slot < inputs && ctx.has_input(slot) && !expect(ctx, c, slot, want) {
            return;
        }
    }
}

/// The first of `candidates` that is known, else unknown.
fn first_known(candidates: impl IntoIterator<Item = Dim>) -> Dim {
    candidates
        .into_iter()
        .find(|d| !matches!(d, Dim::Unknown))
        .unwrap_or(Dim::Unknown)
}

fn num_directions(ctx: &NodeCtx<'_>) -> Dim {
    let from_attr = match ctx.attr_s("direction") {
        None | Some("forward" | "reverse" | "foward") => Dim::Known(1),
        Some("bidirectional") => Dim::Known(2),
        Some(_) => Dim::Unknown,
    };
    // An explicit attribute is what the op does; W's and R's first dimension must agree with it.
    first_known([from_attr, dim_of(ctx, 1, 3, 0), dim_of(ctx, 2, 3, 0)])
}

fn hidden_size(ctx: &NodeCtx<'_>) -> Dim {
    let from_attr = ctx
        .attr_i("hidden_size")
        .and_then(|h| u64::try_from(h).ok())
        .map_or(Dim::Unknown, Dim::Known);
    first_known([from_attr, dim_of(ctx, 2, 3, 2)])
}

fn recurrent(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let batch_major = ctx.opset >= 14 && ctx.attr_i("layout").unwrap_or(0) == 1;
    if ctx.opset >= 7 && !batch_major {
        recurrent_contracts(ctx);
    }
    let (seq_axis, batch_axis) = if batch_major { (1, 0) } else { (0, 1) };
    let seq = dim_of(ctx, 0, 3, seq_axis);
    // The batch size also shows in the initial states, laid out like Y_h.
    let state_batch_axis = if batch_major { 0 } else { 1 };
    let batch = first_known([
        dim_of(ctx, 0, 3, batch_axis),
        dim_of(ctx, 5, 3, state_batch_axis),
    ]);
    let dirs = num_directions(ctx);
    let hidden = hidden_size(ctx);
    let elem = ctx.elem(0);
    let y = if batch_major {
        vec![batch.clone(), seq, dirs.clone(), hidden.clone()]
    } else {
        vec![seq, dirs.clone(), batch.clone(), hidden.clone()]
    };
    let state = if batch_major {
        vec![batch, dirs, hidden]
    } else {
        vec![dirs, batch, hidden]
    };
    let mut out = vec![
        ValueInfo::tensor(elem, Some(y)),
        ValueInfo::tensor(elem, Some(state.clone())),
    ];
    if ctx.op_type() == "LSTM" {
        out.push(ValueInfo::tensor(elem, Some(state)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    #[test]
    fn outputs_in_both_layouts() {
        let n = node(
            "LSTM",
            3,
            3,
            vec![
                attr_i("hidden_size", 7),
                attr_s("direction", "bidirectional"),
            ],
        );
        let inputs = [
            t(F32, &["S", "B", "4"]),
            t(F32, &["2", "28", "4"]),
            t(F32, &["2", "28", "7"]),
        ];
        let out = run(recurrent, &n, 22, &inputs);
        assert_eq!(out[0].shape, shape(&["S", "2", "B", "7"]));
        assert_eq!(out[1].shape, shape(&["2", "B", "7"]));
        assert_eq!(out[2].shape, shape(&["2", "B", "7"]));
        let n = node("GRU", 3, 2, vec![attr_i("layout", 1)]);
        let inputs = [
            t(F32, &["B", "S", "4"]),
            t(F32, &["1", "15", "4"]),
            t(F32, &["1", "15", "5"]),
        ];
        let out = run(recurrent, &n, 14, &inputs);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].shape, shape(&["B", "S", "1", "5"]));
        assert_eq!(out[1].shape, shape(&["B", "1", "5"]));
        // Before 14 there is no layout: the attribute is not the op's.
        let out = run(recurrent, &n, 7, &inputs);
        assert_eq!(out[0].shape, shape(&["B", "1", "S", "5"]));
    }

    /// "CODE contract" of each finding of `op` with hidden_size 4 on `inputs`.
    fn of_op(
        op: &str,
        attrs: Vec<crate::proto::AttributeProto>,
        inputs: &[Option<ValueInfo>],
    ) -> Vec<String> {
        let mut attrs = attrs;
        attrs.push(attr_i("hidden_size", 4));
        contracts(recurrent, &node(op, inputs.len(), 2, attrs), 14, inputs)
    }

    #[test]
    fn recurrent_contracts() {
        for (op, k) in [("RNN", 1), ("GRU", 3), ("LSTM", 4)] {
            let kh = (4 * k).to_string();
            let kh = kh.as_str();
            let b2 = (8 * k).to_string();
            let x = || t(F32, &["S", "B", "3"]);
            let w = || t(F32, &["1", kh, "3"]);
            let r = || t(F32, &["1", kh, "4"]);
            let valid = [
                x(),
                w(),
                r(),
                t(F32, &["1", &b2]),
                t(I64, &["B"]),
                t(F32, &["1", "B", "4"]),
            ];
            assert!(of_op(op, vec![], &valid).is_empty(), "{op}");
            for (slot, bad, want) in [
                (0, t(F32, &["S", "3"]), "E2 recurrent-x-rank"),
                (1, t(F32, &["1", "5", "3"]), "E2 recurrent-w"),
                (1, t(F32, &["1", kh, "2"]), "E2 recurrent-w"),
                (1, t(F32, &["2", kh, "3"]), "E2 recurrent-w"),
                (1, t(F32, &[kh, "3"]), "E2 recurrent-w"),
                (2, t(F32, &["1", kh, "5"]), "E2 recurrent-r"),
                (2, t(F32, &["1", "20", "4"]), "E2 recurrent-r"),
                (3, t(F32, &["1", kh]), "E2 recurrent-b"),
                (4, t(I64, &["3"]), "W2 recurrent-sequence-lens"),
                (5, t(F32, &["1", "B", "5"]), "E2 recurrent-initial-state"),
                (5, t(F32, &["1", "N", "4"]), "W2 recurrent-initial-state"),
            ] {
                let mut inputs = valid.to_vec();
                inputs[slot] = bad;
                assert_eq!(of_op(op, vec![], &inputs), [want], "{op} slot {slot}");
            }
            // Bidirectional: two directions everywhere.
            let bi = vec![attr_s("direction", "bidirectional")];
            assert_eq!(
                of_op(op, bi.clone(), &[x(), w(), r()]),
                ["E2 recurrent-w"],
                "{op}"
            );
            let w2 = t(F32, &["2", kh, "3"]);
            let r2 = t(F32, &["2", kh, "4"]);
            assert!(of_op(op, bi, &[x(), w2, r2]).is_empty(), "{op}");
            // X's input size meets W's: a symbol is bound, two symbols a condition.
            let xi = t(F32, &["S", "B", "i"]);
            assert_eq!(
                of_op(op, vec![], &[xi.clone(), w(), r()]),
                ["I002 -"],
                "{op}"
            );
            let wj = t(F32, &["1", kh, "j"]);
            assert_eq!(
                of_op(op, vec![], &[xi, wj, r()]),
                ["W2 recurrent-w"],
                "{op}"
            );
            // Only the first broken input is reported, as the kernel stops there.
            let c = of_op(
                op,
                vec![],
                &[x(), t(F32, &["1", "5", "3"]), t(F32, &["1", "5", "5"])],
            );
            assert_eq!(c, ["E2 recurrent-w"], "{op}");
        }
        // LSTM's initial_c and peepholes.
        let x = || t(F32, &["S", "2", "3"]);
        let mut inputs = vec![
            x(),
            t(F32, &["1", "16", "3"]),
            t(F32, &["1", "16", "4"]),
            None,
            None,
            None,
        ];
        inputs.push(t(F32, &["1", "3", "4"]));
        assert_eq!(
            of_op("LSTM", vec![], &inputs),
            ["E2 recurrent-initial-state"]
        );
        inputs[6] = None;
        inputs.push(t(F32, &["1", "13"]));
        assert_eq!(of_op("LSTM", vec![], &inputs), ["E2 lstm-peepholes"]);
        inputs[7] = t(F32, &["1", "12"]);
        assert!(of_op("LSTM", vec![], &inputs).is_empty());
        // layout=1 (refused by onnxruntime at load) and opsets without a kernel are not checked.
        let bad = [t(F32, &["B", "S", "3"]), t(F32, &["1", "5", "3"]), None];
        assert!(of_op("RNN", vec![attr_i("layout", 1)], &bad).is_empty());
        let n = node("RNN", 3, 2, vec![attr_i("hidden_size", 4)]);
        assert!(findings(recurrent, &n, 1, &bad).is_empty());
    }

    #[test]
    fn unknown_inputs_and_bad_attributes_stay_unknown() {
        let n = node(
            "RNN",
            3,
            2,
            vec![attr_i("hidden_size", -3), attr_s("direction", "sideways")],
        );
        let out = run(recurrent, &n, 22, &[None, None, None]);
        assert_eq!(out[0].shape, shape(&["?", "?", "?", "?"]));
        let n = node("GRU", 3, 2, vec![]);
        let out = run(recurrent, &n, 1, &[t(F32, &["S", "B"]), None, None]);
        assert_eq!(out[1].shape, shape(&["1", "?", "?"]));
    }
}
