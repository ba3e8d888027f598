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

use super::super::ctx::NodeCtx;
use super::super::dim::Dim;
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::support::dim_of;

pub fn register(r: &mut Registry) {
    r.add_all(&["RNN", "GRU", "LSTM"], 1, recurrent);
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
