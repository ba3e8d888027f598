//! Normalizations: BatchNormalization, InstanceNormalization, GroupNormalization, LpNormalization and
//! LRN. Y has X's shape and element type; BatchNormalization's statistics outputs have the shape of
//! `scale`.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#BatchNormalization>,
//! `#InstanceNormalization`, `#GroupNormalization`, `#LpNormalization`, `#LRN`. Opset history:
//! - BatchNormalization: 1-7 have `spatial` (0 gives per-activation statistics shaped like X without
//!   its batch axis); 9 drops it; 14 reduces the outputs to `Y, running_mean, running_var`; 15 lets
//!   the statistics have their own element type (input `input_mean`'s).
//! - InstanceNormalization: 1, 6, 22. LpNormalization: 1, 22. LRN: 1, 13.
//! - GroupNormalization: 18 takes `scale` and `bias` of `num_groups` values; 21 of C values (18 is
//!   deprecated for it) and adds `stash_type`.
//!
//! Contracts, as onnxruntime enforces them:
//! - [`BATCH_NORM_STATS`]: scale, B, input_mean and input_var 1-D of X's channels (1 for a 1-D X),
//!   or, with `spatial=0` before opset 9, shaped like X without its batch axis. onnxruntime's kernel
//!   (`batch_norm_helper.h`) checks them at run from opset 7 (it has no kernel before); onnx's
//!   inference also at load from opset 14.
//! - [`INSTANCE_NORM_RANK`], input of rank 3 or more, and [`INSTANCE_NORM_SCALE_BIAS`], scale and B
//!   1-D of the input's channels: its kernel (`instance_norm_helper.h`), at run.
//! - GroupNormalization has no CPU kernel: onnxruntime runs its function body (a Reshape of X to
//!   `[N, num_groups, C / num_groups, ...]`, scale and bias reshaped to `[1, -1, 1]` and broadcast
//!   against `[N, num_groups, -1]` at 18, against `[N, C, -1]` at 21, and a Reshape back). What that
//!   refuses, found by running it: [`GROUP_NORM_RANK`], X of rank 2 or more; [`GROUP_NORM_GROUPS`],
//!   C a multiple of `num_groups`; [`GROUP_NORM_SCALE_BIAS`], scale and bias each of one value or of
//!   `num_groups` values (18) or C values (21), of any rank (they are flattened). A single value
//!   broadcasts, so it runs, though the spec does not allow it.
//! - [`LP_NORM_AXIS`]: `axis` inside the rank; its kernel checks it at run even on an empty input.
//! - [`LRN_RANK`]: X of rank 4 (onnxruntime's kernel, at run; the spec allows other ranks).
//! - [`LRN_SIZE`]: an odd `size` of 1 or more (onnxruntime's kernel constructor, at load).

use super::super::contract::{Contract, Operand};
use super::super::ctx::NodeCtx;
use super::super::dim::Dim;
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::like;

pub fn register(r: &mut Registry) {
    r.add("", "BatchNormalization", 1, batch_norm);
    r.add("", "InstanceNormalization", 1, instance_norm);
    r.add("", "GroupNormalization", 18, group_norm);
    r.add("", "LpNormalization", 1, lp_norm);
    r.add("", "LRN", 1, lrn);
}

/// BatchNormalization's parameters.
pub const BATCH_NORM_STATS: Contract = Contract::new(
    "batch-norm-stats",
    "scale, B, input_mean and input_var are 1-D of X's channels (axis 1; 1 for a 1-D X), or with \
     spatial=0 (before opset 9) shaped like X without its batch axis",
);

/// InstanceNormalization's input.
pub const INSTANCE_NORM_RANK: Contract = Contract::new(
    "instance-norm-rank",
    "the input has rank 3 or more ([N, C, spatial...])",
);

/// InstanceNormalization's parameters.
pub const INSTANCE_NORM_SCALE_BIAS: Contract = Contract::new(
    "instance-norm-scale-bias",
    "scale and B are 1-D of the input's channels (axis 1)",
);

/// GroupNormalization's input.
pub const GROUP_NORM_RANK: Contract =
    Contract::new("group-norm-rank", "X has rank 2 or more ([N, C, ...])");

/// GroupNormalization's groups.
pub const GROUP_NORM_GROUPS: Contract = Contract::new(
    "group-norm-groups",
    "X's channels (axis 1) are a multiple of num_groups",
);

/// GroupNormalization's parameters.
pub const GROUP_NORM_SCALE_BIAS: Contract = Contract::new(
    "group-norm-scale-bias",
    "scale and bias each hold one value, or num_groups values (opset 18) or X's channels (opset 21)",
);

/// LpNormalization's axis.
pub const LP_NORM_AXIS: Contract = Contract::new(
    "lp-norm-axis",
    "axis is inside the input's rank, in [-r, r-1]",
);

/// onnxruntime's LRN.
pub const LRN_RANK: Contract = Contract::new("lrn-rank", "X has rank 4 ([N, C, H, W])");

/// LRN's window.
pub const LRN_SIZE: Contract = Contract::new("lrn-size", "size is odd and at least 1");

/// X's channels: axis 1, or 1 for a 1-D X (onnxruntime's and onnx's reading).
fn channels(ctx: &NodeCtx<'_>) -> Option<Operand> {
    match ctx.shape(0)?.len() {
        0 => None,
        1 => Some(Operand::new("X's channels (1 for a 1-D X)", Dim::Known(1)).from_input(0)),
        _ => ctx.operand(0, 1),
    }
}

/// The first of the inputs at `slots` whose rank is known and not `rank`, with its rank.
fn wrong_rank(ctx: &NodeCtx<'_>, slots: &[usize], rank: usize) -> Option<(usize, usize)> {
    slots.iter().find_map(|&s| {
        let r = ctx.input(s)?.rank()?;
        (r != rank).then_some((s, r))
    })
}

/// Reports input `slot` of rank `r` against contract `c`, which wants `rank`.
fn report_rank(ctx: &mut NodeCtx<'_>, c: Contract, slot: usize, r: usize, rank: usize) {
    let detail = format!(
        "input {slot} '{}' has rank {r}, not {rank}",
        ctx.node.input_name(slot)
    );
    ctx.broken(c, &[slot], detail);
}

/// BatchNormalization: `Y` like `X`; every statistics output has the shape of `scale` (`[C]`, or
/// per-activation before opset 9 with `spatial=0`).
fn batch_norm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let x = ctx.shape(0);
    let spatial = ctx.opset >= 9 || ctx.attr_i("spatial").unwrap_or(1) != 0;
    // onnxruntime has no kernel before opset 7: nothing it enforces to check.
    if ctx.opset >= 7 {
        batch_norm_contract(ctx, spatial);
    }
    let stats_shape = ctx.shape(1).or_else(|| {
        let channels = x.as_ref()?.get(1)?.clone();
        spatial.then(|| vec![channels])
    });
    let stats_elem = ctx.elem(3).or(ctx.elem(0));
    let mut out = vec![like(ctx, 0, x)];
    for _ in 1..ctx.num_outputs() {
        out.push(ValueInfo::tensor(stats_elem, stats_shape.clone()));
    }
    out
}

/// [`BATCH_NORM_STATS`] on inputs 1 to 4.
fn batch_norm_contract(ctx: &mut NodeCtx<'_>, spatial: bool) {
    let params: Vec<usize> = (1..ctx.num_inputs().min(5))
        .filter(|&s| ctx.has_input(s))
        .collect();
    if spatial {
        if let Some((s, r)) = wrong_rank(ctx, &params, 1) {
            report_rank(ctx, BATCH_NORM_STATS, s, r, 1);
            return;
        }
        let mut sizes: Vec<Operand> = channels(ctx).into_iter().collect();
        sizes.extend(params.iter().filter_map(|&s| ctx.operand(s, 0)));
        ctx.require_equal(BATCH_NORM_STATS, &sizes);
        return;
    }
    // Per activation: [C, D1, ..., Dn], X's shape without N.
    let Some(rank) = ctx.shape(0).map(|x| x.len()).filter(|&r| r >= 2) else {
        return;
    };
    if let Some((s, r)) = wrong_rank(ctx, &params, rank - 1) {
        report_rank(ctx, BATCH_NORM_STATS, s, r, rank - 1);
        return;
    }
    for axis in 0..rank - 1 {
        let mut sizes: Vec<Operand> = ctx.operand(0, axis + 1).into_iter().collect();
        sizes.extend(params.iter().filter_map(|&s| ctx.operand(s, axis)));
        if !ctx.require_equal(BATCH_NORM_STATS, &sizes) {
            return;
        }
    }
}

/// InstanceNormalization(input, scale, B).
fn instance_norm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    instance_norm_contracts(ctx);
    vec![like(ctx, 0, ctx.shape(0))]
}

fn instance_norm_contracts(ctx: &mut NodeCtx<'_>) {
    if let Some(r) = ctx.input(0).and_then(ValueInfo::rank).filter(|&r| r < 3) {
        ctx.broken(
            INSTANCE_NORM_RANK,
            &[0],
            format_args!("the input has rank {r}"),
        );
        return;
    }
    let params: Vec<usize> = [1, 2].into_iter().filter(|&s| ctx.has_input(s)).collect();
    if let Some((s, r)) = wrong_rank(ctx, &params, 1) {
        report_rank(ctx, INSTANCE_NORM_SCALE_BIAS, s, r, 1);
        return;
    }
    let mut sizes: Vec<Operand> = ctx.operand(0, 1).into_iter().collect();
    sizes.extend(params.iter().filter_map(|&s| ctx.operand(s, 0)));
    ctx.require_equal(INSTANCE_NORM_SCALE_BIAS, &sizes);
}

/// GroupNormalization(X, scale, bias).
fn group_norm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    group_norm_contracts(ctx);
    vec![like(ctx, 0, ctx.shape(0))]
}

fn group_norm_contracts(ctx: &mut NodeCtx<'_>) {
    if let Some(r) = ctx.input(0).and_then(ValueInfo::rank).filter(|&r| r < 2) {
        ctx.broken(GROUP_NORM_RANK, &[0], format_args!("X has rank {r}"));
        return;
    }
    let Some(groups) = ctx
        .attr_i("num_groups")
        .and_then(|g| u64::try_from(g).ok())
        .filter(|&g| g > 0)
    else {
        return;
    };
    if let Some(c) = ctx.operand(0, 1)
        && !ctx.require_multiple(GROUP_NORM_GROUPS, &c, groups)
    {
        return;
    }
    // The function body flattens scale and bias: their element count is what counts.
    let target = if ctx.opset >= 21 {
        ctx.operand(0, 1)
    } else {
        Some(Operand::new("num_groups", Dim::Known(groups)))
    };
    let Some(target) = target else {
        return;
    };
    let mut sizes = vec![target];
    for slot in [1, 2] {
        let Some(count) = ctx.shape(slot).and_then(|s| {
            s.iter()
                .try_fold(1u64, |acc, d| acc.checked_mul(d.known()?))
        }) else {
            continue;
        };
        if count != 1 {
            let what = format!(
                "the element count of input {slot} '{}'",
                ctx.node.input_name(slot)
            );
            sizes.push(Operand::new(what, Dim::Known(count)).from_input(slot));
        }
    }
    ctx.require_equal(GROUP_NORM_SCALE_BIAS, &sizes);
}

/// LpNormalization(input): `axis` (default -1) inside the rank.
fn lp_norm(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let a = ctx.attr_i("axis").unwrap_or(-1);
    if let Some(r) = ctx.input(0).and_then(ValueInfo::rank) {
        ctx.require_axis(LP_NORM_AXIS, &[0], a, r);
    }
    vec![like(ctx, 0, ctx.shape(0))]
}

/// LRN(X).
fn lrn(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if let Some(size) = ctx.attr_i("size").filter(|&s| s < 1 || s % 2 == 0) {
        ctx.out_of_range(LRN_SIZE, &[], format_args!("size is {size}"));
    } else if let Some(r) = ctx.input(0).and_then(ValueInfo::rank).filter(|&r| r != 4) {
        ctx.broken(LRN_RANK, &[0], format_args!("X has rank {r}"));
    }
    vec![like(ctx, 0, ctx.shape(0))]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    #[test]
    fn batch_norm_statistics_are_per_channel() {
        let n = node("BatchNormalization", 5, 3, vec![]);
        let x = t(F32, &["N", "16", "H", "W"]);
        let out = run(batch_norm, &n, 15, &[x.clone(), None, None, None, None]);
        assert_eq!(out[0].shape, shape(&["N", "16", "H", "W"]));
        assert_eq!(out[1].shape, shape(&["16"]));
        assert_eq!(out.len(), 3);
        let legacy = node("BatchNormalization", 5, 5, vec![attr_i("spatial", 0)]);
        let out = run(batch_norm, &legacy, 7, &[x, None, None, None, None]);
        assert_eq!(out[4].shape, None);
    }

    #[test]
    fn batch_norm_stats_contract() {
        let n = node("BatchNormalization", 5, 1, vec![]);
        let p = |s: &str| t(F32, &[s]);
        let x = || t(F32, &["N", "3", "4", "4"]);
        for opset in [7, 9, 15] {
            assert!(
                contracts(
                    batch_norm,
                    &n,
                    opset,
                    &[x(), p("3"), p("3"), p("3"), p("3")]
                )
                .is_empty()
            );
            let c = contracts(
                batch_norm,
                &n,
                opset,
                &[x(), p("3"), p("3"), p("3"), p("2")],
            );
            assert_eq!(c, ["E2 batch-norm-stats"], "{opset}");
            let c = contracts(
                batch_norm,
                &n,
                opset,
                &[x(), p("3"), t(F32, &["3", "1"]), p("3"), p("3")],
            );
            assert_eq!(c, ["E2 batch-norm-stats"], "{opset}");
            // A 1-D X has one channel.
            let c = contracts(
                batch_norm,
                &n,
                opset,
                &[t(F32, &["3"]), p("3"), p("3"), p("3"), p("3")],
            );
            assert_eq!(c, ["E2 batch-norm-stats"], "{opset}");
            assert!(
                contracts(
                    batch_norm,
                    &n,
                    opset,
                    &[t(F32, &["3"]), p("1"), p("1"), p("1"), p("1")]
                )
                .is_empty()
            );
        }
        // No kernel before opset 7: nothing checked.
        assert!(contracts(batch_norm, &n, 6, &[x(), p("4"), p("3"), p("3"), p("3")]).is_empty());
        // A symbolic channel count: W2 with the condition.
        let c = codes_at(
            batch_norm,
            &n,
            15,
            &[t(F32, &["N", "C"]), p("3"), p("3"), p("3"), p("3")],
        );
        assert!(
            c.len() == 1 && c[0].starts_with("W2 ") && c[0].contains("C must be 3"),
            "{c:?}"
        );
        // spatial=0 before 9: X's shape without N.
        let s0 = node("BatchNormalization", 5, 1, vec![attr_i("spatial", 0)]);
        let per = || t(F32, &["3", "4", "4"]);
        assert!(contracts(batch_norm, &s0, 7, &[x(), per(), per(), per(), per()]).is_empty());
        let bad = || t(F32, &["3", "4", "5"]);
        assert_eq!(
            contracts(batch_norm, &s0, 7, &[x(), per(), bad(), per(), per()]),
            ["E2 batch-norm-stats"]
        );
        assert_eq!(
            contracts(batch_norm, &s0, 7, &[x(), p("3"), p("3"), p("3"), p("3")]),
            ["E2 batch-norm-stats"]
        );
        // From 9 spatial is gone: [C] it is.
        assert!(contracts(batch_norm, &s0, 9, &[x(), p("3"), p("3"), p("3"), p("3")]).is_empty());
    }

    #[test]
    fn instance_norm_contracts() {
        let n = node("InstanceNormalization", 3, 1, vec![]);
        let x = || t(F32, &["N", "3", "L"]);
        assert!(contracts(instance_norm, &n, 6, &[x(), t(F32, &["3"]), t(F32, &["3"])]).is_empty());
        let c = contracts(
            instance_norm,
            &n,
            6,
            &[t(F32, &["N", "3"]), t(F32, &["3"]), t(F32, &["3"])],
        );
        assert_eq!(c, ["E2 instance-norm-rank"]);
        let c = contracts(instance_norm, &n, 6, &[x(), t(F32, &["3"]), t(F32, &["2"])]);
        assert_eq!(c, ["E2 instance-norm-scale-bias"]);
        let c = contracts(
            instance_norm,
            &n,
            6,
            &[x(), t(F32, &["1", "3"]), t(F32, &["3"])],
        );
        assert_eq!(c, ["E2 instance-norm-scale-bias"]);
        let c = contracts(
            instance_norm,
            &n,
            6,
            &[t(F32, &["N", "C", "L"]), t(F32, &["3"]), t(F32, &["3"])],
        );
        assert_eq!(c, ["W2 instance-norm-scale-bias"]);
        let out = run(instance_norm, &n, 6, &[x(), None, None]);
        assert_eq!(out[0].shape, shape(&["N", "3", "L"]));
    }

    #[test]
    fn group_norm_contracts() {
        let n = |g| node("GroupNormalization", 3, 1, vec![attr_i("num_groups", g)]);
        let x = |c: &str| t(F32, &["N", c, "L"]);
        let p = |s: &str| t(F32, &[s]);
        assert!(contracts(group_norm, &n(3), 18, &[x("6"), p("3"), p("3")]).is_empty());
        assert!(contracts(group_norm, &n(3), 21, &[x("6"), p("6"), p("6")]).is_empty());
        // One value broadcasts; so does a scalar; the count is what counts, not the rank.
        assert!(contracts(group_norm, &n(3), 18, &[x("6"), p("1"), t(F32, &[])]).is_empty());
        assert!(
            contracts(
                group_norm,
                &n(3),
                21,
                &[x("6"), t(F32, &["1", "6"]), p("6")]
            )
            .is_empty()
        );
        assert_eq!(
            contracts(group_norm, &n(3), 18, &[x("6"), p("6"), p("6")]),
            ["E2 group-norm-scale-bias"]
        );
        assert_eq!(
            contracts(group_norm, &n(3), 21, &[x("6"), p("3"), p("3")]),
            ["E2 group-norm-scale-bias"]
        );
        assert_eq!(
            contracts(group_norm, &n(1), 18, &[x("6"), p("6"), p("6")]),
            ["E2 group-norm-scale-bias"]
        );
        assert_eq!(
            contracts(group_norm, &n(3), 18, &[x("7"), p("3"), p("3")]),
            ["E2 group-norm-groups"]
        );
        assert_eq!(
            contracts(group_norm, &n(3), 21, &[t(F32, &["6"]), p("6"), p("6")]),
            ["E2 group-norm-rank"]
        );
        assert_eq!(
            contracts(group_norm, &n(3), 21, &[x("C"), p("6"), p("6")]),
            ["W2 group-norm-groups", "W2 group-norm-scale-bias"]
        );
        assert!(
            contracts(group_norm, &n(3), 18, &[x("C"), p("3"), p("3")]) == ["W2 group-norm-groups"]
        );
    }

    #[test]
    fn lp_norm_axis_and_lrn_rank() {
        let lp = |a| node("LpNormalization", 1, 1, vec![attr_i("axis", a)]);
        assert!(contracts(lp_norm, &lp(-2), 1, &[t(F32, &["2", "3"])]).is_empty());
        assert_eq!(
            contracts(lp_norm, &lp(2), 1, &[t(F32, &["2", "3"])]),
            ["E3 lp-norm-axis"]
        );
        // onnxruntime checks the axis even on an empty input.
        assert_eq!(
            contracts(lp_norm, &lp(-3), 1, &[t(F32, &["0", "3"])]),
            ["E3 lp-norm-axis"]
        );
        assert!(contracts(lp_norm, &lp(5), 1, &[None]).is_empty());
        let n = node("LRN", 1, 1, vec![attr_i("size", 3)]);
        assert!(contracts(lrn, &n, 13, &[t(F32, &["N", "3", "H", "W"])]).is_empty());
        assert_eq!(
            contracts(lrn, &n, 13, &[t(F32, &["N", "3", "H"])]),
            ["E2 lrn-rank"]
        );
        for (size, found) in [
            (1, vec![]),
            (5, vec![]),
            (4, vec!["E3 lrn-size"]),
            (0, vec!["E3 lrn-size"]),
        ] {
            let n = node("LRN", 1, 1, vec![attr_i("size", size)]);
            assert_eq!(
                contracts(lrn, &n, 13, &[t(F32, &["N", "3", "H", "W"])]),
                found,
                "size {size}"
            );
        }
    }
}
