//! Shapes computed and rearranged: Shape, Size, Reshape, Flatten, Transpose, Squeeze and Unsqueeze,
//! with their values carried (a Shape's dims are its values; a Transpose of a small matrix moves them).
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#Reshape> and the pages of each op.
//! Opset history that matters here:
//! - Shape: 15 adds `start`/`end` (clamped to `[0, rank]`, negative counts from the end).
//! - Reshape: the target is attribute `shape` before 5, an input from 5; 14 adds `allowzero` (a 0 is
//!   then a 0, not a copy of the input's dim).
//! - Squeeze, Unsqueeze: `axes` attribute before 13, input from 13; 11 allows negative axes.
//!
//! Contracts (onnxruntime's `reshape_helper.h`, `transpose.h`, `squeeze.h`, `unsqueeze.cc`, `flatten.h`;
//! onnx's inference at load catches the static ones first):
//! - Reshape: [`RESHAPE_TARGET`] (no size below -1, one -1 at most), [`RESHAPE_ZERO`] (a copying 0
//!   within the input's rank) and [`RESHAPE_COUNT`] (the element count kept; a -1 beside sizes whose
//!   product is 0, as `allowzero`'s 0 gives, is refused). A symbolic count reshaped to known sizes is a binding (I002), as before: a Reshape to
//!   `[1, 150528]` is how a model says its batch is 1; under `--dim` ranges of its symbols it is
//!   the condition `count = 150528`, judged over them (W2 with the sizes that fail, E2, or proven).
//! - Flatten: [`FLATTEN_AXIS`], in `[-rank, rank]`.
//! - Transpose: [`TRANSPOSE_PERM`], a permutation of the input's axes (onnxruntime refuses a negative
//!   or repeated entry when it builds the kernel, a length other than the rank when it runs).
//! - Squeeze: [`SQUEEZE_AXES`] inside the rank, and [`SQUEEZE_ONE`], each squeezed axis of size 1
//!   (repeated axes are fine: onnxruntime merges them).
//! - Unsqueeze: [`UNSQUEEZE_AXES`], inside the output's rank and not repeated.

use super::int64;
use crate::ir::Graph;
use crate::shape::contract::{Contract, Operand};
use crate::shape::ctx::{NodeCtx, NodeRef};
use crate::shape::dim::{Dim, Shape};
use crate::shape::ops::common::{
    Param, axes, axis, axis_inclusive, div_exact_dim, ints_attr_or_input, len_1d, like, product,
    size_of_value, unknown_dims, values_if_small,
};
use crate::shape::value::{Data, ValueInfo, as_i64, from_i64, from_tensor};

/// Shape: the input's dims from `start` to `end` (opset 15), as values.
pub(super) fn shape_op(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let Some(dims) = ctx.shape(0) else {
        return vec![ValueInfo::tensor(int64(), Some(vec![Dim::Unknown]))];
    };
    let r = dims.len() as i64;
    let clamp = |v: i64| -> usize {
        let v = if v < 0 { v.saturating_add(r) } else { v };
        v.clamp(0, r) as usize
    };
    let (start, end) = if ctx.opset >= 15 {
        (
            clamp(ctx.attr_i("start").unwrap_or(0)),
            clamp(ctx.attr_i("end").unwrap_or(r)),
        )
    } else {
        (0, dims.len())
    };
    let part = if start < end {
        dims[start..end].to_vec()
    } else {
        Vec::new()
    };
    vec![ValueInfo::int64_data(part, false)]
}

/// Size: the number of elements, as a scalar value.
pub(super) fn size(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    // A count is carried as an i64 value, so one beyond i64::MAX is not carried.
    let data = ctx.shape(0).and_then(|dims| match product(&dims) {
        Dim::Known(n) if i64::try_from(n).is_err() => None,
        Dim::Unknown => None,
        n => Some(vec![n]),
    });
    vec![ValueInfo::tensor(int64(), Some(vec![])).with_data(data)]
}

/// The requested shape of a Reshape as values: the `shape` attribute before opset 5, else input 1.
fn reshape_target(ctx: &NodeCtx<'_>) -> Option<Vec<Dim>> {
    if ctx.opset < 5 {
        return Some(
            ctx.attr_ints("shape")?
                .iter()
                .map(|&v| from_i64(v))
                .collect(),
        );
    }
    ctx.data(1).map(<[Dim]>::to_vec)
}

pub const RESHAPE_TARGET: Contract = Contract::new(
    "reshape-target",
    "the target shape holds sizes of 0 or more and at most one -1",
);
pub const RESHAPE_ZERO: Contract = Contract::new(
    "reshape-zero",
    "a 0 in the target (without allowzero) copies the input's size at its position, which must exist",
);
pub const RESHAPE_COUNT: Contract = Contract::new(
    "reshape-count",
    "the target has the input's number of elements (with a -1, the other sizes divide it)",
);

/// Checks Reshape's contracts on the target values `target`; false when one is broken.
fn reshape_contracts(
    ctx: &mut NodeCtx<'_>,
    input: &Shape,
    target: &[Dim],
    allowzero: bool,
) -> bool {
    let slots = if ctx.opset < 5 { vec![0] } else { vec![0, 1] };
    let values: Vec<Option<i64>> = target.iter().map(as_i64).collect();
    if let Some(v) = values.iter().flatten().find(|&&v| v < -1) {
        ctx.out_of_range(RESHAPE_TARGET, &slots, format_args!("a size of {v}"));
        return false;
    }
    let wild = values.iter().filter(|v| **v == Some(-1)).count();
    if wild > 1 {
        ctx.out_of_range(RESHAPE_TARGET, &slots, format_args!("{wild} sizes of -1"));
        return false;
    }
    let zeros: Vec<usize> = (0..values.len())
        .filter(|&i| values[i] == Some(0))
        .collect();
    if !allowzero
        && let (Some(dims), Some(&i)) = (input, zeros.last())
        && i >= dims.len()
    {
        let detail = format!("a 0 at position {i} of an input of rank {}", dims.len());
        ctx.broken(RESHAPE_ZERO, &slots, detail);
        return false;
    }
    let Some(dims) = input else {
        return true;
    };
    let out = reshape_dims(input, target, allowzero);
    let total = Operand::new("the input's element count", product(dims)).from_input(0);
    let Some(k) = values.iter().position(|v| *v == Some(-1)) else {
        let count = product(&out);
        if let (Dim::Sym(s), Dim::Known(n)) = (&total.dim, &count)
            && s.can_equal(*n)
            && !ctx.ranged(&total.dim)
        {
            // A symbolic count reshaped to known sizes only is bound to their product. Not where
            // the run binds its symbols to ranges (`--dim`): there the deployment says which sizes
            // come, and the count is judged over them as any condition is (which of them the
            // reshape refuses), not assumed.
            ctx.bind(&total.dim, *n, "the reshape");
            return true;
        }
        return ctx.require_equal(RESHAPE_COUNT, &[total, Operand::new("the target's", count)]);
    };
    let others = product(
        out.iter()
            .enumerate()
            .filter(|&(i, _)| i != k)
            .map(|(_, d)| d),
    );
    match (&total.dim, &others) {
        (_, Dim::Known(0)) => {
            let detail = "a -1 beside sizes whose product is 0";
            ctx.broken(RESHAPE_COUNT, &slots, detail);
            false
        }
        (_, Dim::Known(n)) => ctx.require_multiple(RESHAPE_COUNT, &total, *n),
        // Symbolic sizes beside the -1: exact when they divide the count (`batch*seq*768` by
        // `batch*64`); a quotient that is no expression says nothing about the model.
        _ => true,
    }
}

pub(super) fn reshape(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let input = ctx.shape(0);
    let allowzero = ctx.opset >= 14 && ctx.attr_i("allowzero").unwrap_or(0) != 0;
    let shape = match reshape_target(ctx) {
        Some(target) => {
            if !reshape_contracts(ctx, &input, &target, allowzero) {
                return vec![like(ctx, 0, None)];
            }
            let mut dims = reshape_dims(&input, &target, allowzero);
            cancel_unknown_factors(ctx, &input, &target, allowzero, &mut dims);
            Some(dims)
        }
        None if ctx.opset >= 5 => len_1d(ctx, 1).and_then(unknown_dims),
        None => None,
    };
    let data = values_if_small(&shape, ctx.values(0).cloned());
    vec![like(ctx, 0, shape).with_values(data)]
}

/// The output dims of a Reshape of `input` to the values `target`: 0 copies the input's dim (unless
/// `allowzero`), one -1 takes what is left.
fn reshape_dims(input: &Shape, target: &[Dim], allowzero: bool) -> Vec<Dim> {
    let mut out = Vec::with_capacity(target.len());
    let mut inferred = None;
    for (i, t) in target.iter().enumerate() {
        let d = match t {
            Dim::Known(_) => match as_i64(t) {
                Some(0) if !allowzero => input
                    .as_ref()
                    .and_then(|s| s.get(i))
                    .cloned()
                    .unwrap_or(Dim::Unknown),
                Some(-1) if inferred.is_none() => {
                    inferred = Some(i);
                    Dim::Unknown
                }
                Some(-1) => return vec![Dim::Unknown; target.len()], // two -1: invalid
                _ => size_of_value(t),
            },
            other => size_of_value(other),
        };
        out.push(d);
    }
    if let Some(k) = inferred {
        let others: Vec<&Dim> = out
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != k)
            .map(|(_, d)| d)
            .collect();
        out[k] = match input {
            Some(input) => inferred_dim(input, &others),
            None => Dim::Unknown,
        };
    }
    out
}

/// The size a -1 stands for: the input's element count over the product of the other target dims,
/// divided exactly in the polynomial algebra (`batch*seq*768 / (batch*64)` is `seq*12`); unknown when it
/// does not divide.
fn inferred_dim(input: &[Dim], others: &[&Dim]) -> Dim {
    let total = product(input);
    let rest = product(others.iter().copied());
    match (&total, &rest) {
        (Dim::Unknown, _) | (_, Dim::Unknown) | (_, Dim::Known(0)) => Dim::Unknown,
        // No elements: the -1 is 0 when the other target dims are known not to be.
        (Dim::Known(0), Dim::Known(_)) => Dim::Known(0),
        (Dim::Known(0), _) => Dim::Unknown,
        _ => div_exact_dim(&total, &rest),
    }
}

/// The size a -1 stands for where the input's dims and the target's other entries hold unknown
/// factors that cancel: a target entry the graph shows is a dim of the input itself (`Shape(x)[0]`
/// gathered, unsqueezed and concatenated into `[Shape[0], Shape[1], -1, 8]`) is the same size as
/// that dim of the input, known or not. Each such unknown is a fresh symbol for the division
/// (`?*16*16 / (?*16*8) = 2`); a quotient still holding one stays unknown. Only where the plain
/// division left the -1 unknown, so the common case pays nothing.
fn cancel_unknown_factors(
    ctx: &NodeCtx<'_>,
    input: &Shape,
    target: &[Dim],
    allowzero: bool,
    out: &mut [Dim],
) {
    let NodeRef::Ir(g, _) = ctx.node else {
        return;
    };
    let Some(dims) = input.as_deref() else {
        return;
    };
    let Some(k) = target.iter().position(|t| as_i64(t) == Some(-1)) else {
        return;
    };
    if out.get(k) != Some(&Dim::Unknown) || !dims.contains(&Dim::Unknown) {
        return;
    }
    let data = ctx.node.input_name(0);
    let shape_input = ctx.node.input_name(1);
    let fresh = |name: &str, axis: usize| Dim::sym(format!("{FRESH}{name}#{axis}"));
    let total: Vec<Dim> = dims
        .iter()
        .enumerate()
        .map(|(j, d)| match d {
            Dim::Unknown => fresh(data, j),
            d => d.clone(),
        })
        .collect();
    let mut others = Vec::with_capacity(out.len());
    for (i, d) in out.iter().enumerate() {
        if i == k {
            continue;
        }
        others.push(match d {
            // A 0 copies the input's dim.
            Dim::Unknown if !allowzero && as_i64(&target[i]) == Some(0) => fresh(data, i),
            Dim::Unknown => match dim_source(g, shape_input, i, 0) {
                Some((name, axis)) => fresh(name, axis),
                None => return,
            },
            d => d.clone(),
        });
    }
    let q = div_exact_dim(&product(&total), &product(&others));
    let fresh_left = matches!(&q, Dim::Sym(e) if e.symbols().iter().any(|s| s.starts_with(FRESH)));
    if !fresh_left && q != Dim::Unknown {
        out[k] = q;
    }
}

/// What names the fresh symbols of [`cancel_unknown_factors`]: a control character no exporter
/// writes in a `dim_param`, and they never leave that function.
const FRESH: char = '\u{1}';

/// Which dim of which tensor entry `i` of the 1-D integer value `name` is, when the graph shows it:
/// a `Shape` (from `start`), a `Gather` of one by constant indices, and what moves entries without
/// changing them (Unsqueeze, Squeeze, Cast, Identity, and a Concat along axis 0 of parts of known
/// length). `None` for anything else.
fn dim_source<'g>(g: &'g Graph, name: &str, i: usize, depth: u32) -> Option<(&'g str, usize)> {
    if depth > 16 {
        return None;
    }
    let id = g.lookup(name)?;
    let op = g.op(g.value(id).producer.0)?;
    let input = |slot: usize| g.input_name(op, slot);
    let int_attr = |n: &str| op.attr(n).and_then(|a| a.i);
    match op.op_type() {
        "Shape" if op.domain().is_empty() => {
            let start = usize::try_from(int_attr("start").unwrap_or(0)).ok()?;
            let x = g.value(g.lookup(input(0))?).name;
            Some((x, start.checked_add(i)?))
        }
        "Gather" if op.domain().is_empty() && int_attr("axis").unwrap_or(0) == 0 => {
            let idx = usize::try_from(*constant_ints(g, input(1))?.get(i)?).ok()?;
            dim_source(g, input(0), idx, depth + 1)
        }
        "Unsqueeze" | "Squeeze" | "Cast" | "Identity" if op.domain().is_empty() => {
            dim_source(g, input(0), i, depth + 1)
        }
        "Concat" if op.domain().is_empty() && int_attr("axis") == Some(0) => {
            let mut at = i;
            for slot in 0..op.num_inputs() {
                let part = input(slot);
                let n = entries(g, part, depth + 1)?;
                if at < n {
                    return dim_source(g, part, at, depth + 1);
                }
                at -= n;
            }
            None
        }
        _ => None,
    }
}

/// The number of entries of the 1-D (or scalar) integer value `name`, when the graph shows it: a
/// constant's, one for an Unsqueeze of a scalar Gather, a Gather's index count.
fn entries(g: &Graph, name: &str, depth: u32) -> Option<usize> {
    if depth > 16 {
        return None;
    }
    if let Some(v) = constant_ints(g, name) {
        return Some(v.len());
    }
    let op = g.op(g.value(g.lookup(name)?).producer.0)?;
    if !op.domain().is_empty() {
        return None;
    }
    match op.op_type() {
        "Gather" => constant_ints(g, g.input_name(op, 1)).map(|v| v.len()),
        "Unsqueeze" | "Squeeze" | "Cast" | "Identity" => entries(g, g.input_name(op, 0), depth + 1),
        _ => None,
    }
}

/// The integer values of a constant (an initializer or a Constant node), of rank 0 or 1.
fn constant_ints(g: &Graph, name: &str) -> Option<Vec<i64>> {
    let id = g.lookup(name)?;
    let t = match g.initializer(id) {
        Some(t) => t,
        None => {
            let op = g.op(g.value(id).producer.0)?;
            if op.op_type() != "Constant" || !op.domain().is_empty() {
                return None;
            }
            op.attr("value")?.t.as_ref()?
        }
    };
    if t.dims.len() > 1 {
        return None;
    }
    from_tensor(t).data_i64()
}

pub const FLATTEN_AXIS: Contract = Contract::new(
    "flatten-axis",
    "axis is in [-rank, rank] (0 through 8 before opset 11: not negative)",
);

/// Flatten: `[prod(dims[..axis]), prod(dims[axis..])]`.
pub(super) fn flatten(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let a = ctx.attr_i("axis").unwrap_or(1);
    let shape = match ctx.shape(0) {
        Some(dims) => {
            let k = axis_inclusive(a, dims.len()).filter(|_| a >= 0 || ctx.opset >= 11);
            if k.is_none() {
                let detail = format!("axis {a} of a tensor of rank {}", dims.len());
                ctx.out_of_range(FLATTEN_AXIS, &[0], detail);
            }
            k.map(|k| vec![product(&dims[..k]), product(&dims[k..])])
        }
        None => Some(vec![Dim::Unknown, Dim::Unknown]),
    };
    vec![like(ctx, 0, shape)]
}

pub const TRANSPOSE_PERM: Contract = Contract::new(
    "transpose-perm",
    "perm is a permutation of the input's axes: each of 0 to rank-1 once",
);

/// Checks `perm` against itself (no negative, repeated or too large entry: onnxruntime refuses it
/// when it builds the kernel) and against the input's rank; false when broken.
fn check_perm(ctx: &mut NodeCtx<'_>, perm: &[i64]) -> bool {
    let n = perm.len() as i64;
    if let Some(&v) = perm.iter().find(|&&v| v < 0 || v >= n) {
        ctx.out_of_range(
            TRANSPOSE_PERM,
            &[0],
            format_args!("entry {v} of a perm of {n}"),
        );
        return false;
    }
    if let Some((i, v)) = perm
        .iter()
        .enumerate()
        .find(|(i, v)| perm[..*i].contains(v))
    {
        let detail = format!("entry {v} repeated at position {i}");
        ctx.out_of_range(TRANSPOSE_PERM, &[0], detail);
        return false;
    }
    match ctx.input(0).and_then(ValueInfo::rank) {
        Some(r) if r != perm.len() => {
            let detail = format!("a perm of {} entries for an input of rank {r}", perm.len());
            ctx.broken(TRANSPOSE_PERM, &[0], detail);
            false
        }
        _ => true,
    }
}

/// Transpose: dims permuted by `perm` (reversed by default). A malformed `perm` keeps the rank only.
pub(super) fn transpose(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let perm = ctx.attr_ints("perm").map(<[i64]>::to_vec);
    if let Some(p) = &perm
        && !check_perm(ctx, p)
    {
        return vec![like(ctx, 0, None)];
    }
    let shape = match (ctx.shape(0), perm) {
        (Some(dims), None) => Some(dims.into_iter().rev().collect()),
        (Some(dims), Some(p)) => Some(match axes(&p, dims.len()) {
            Some(p) if p.len() == dims.len() => p.iter().map(|&i| dims[i].clone()).collect(),
            _ => vec![Dim::Unknown; dims.len()],
        }),
        (None, Some(p)) => unknown_dims(p.len() as u64),
        (None, None) => None,
    };
    // Values move with their elements (torch's pads computation transposes a [k, 2] matrix).
    let data = match (ctx.shape(0), ctx.values(0)) {
        (Some(dims), Some(values)) => {
            let p: Option<Vec<usize>> = match ctx.attr_ints("perm") {
                Some(p) => axes(p, dims.len()),
                None => Some((0..dims.len()).rev().collect()),
            };
            p.and_then(|p| transposed(&dims, &p, values))
        }
        _ => None,
    };
    let data = values_if_small(&shape, data);
    vec![like(ctx, 0, shape).with_values(data)]
}

/// The values of a tensor of known sizes `dims` (row-major) with its axes permuted by `perm`.
pub(super) fn transposed(dims: &[Dim], perm: &[usize], values: &Data) -> Option<Data> {
    let sizes: Vec<usize> = dims
        .iter()
        .map(|d| usize::try_from(d.known()?).ok())
        .collect::<Option<_>>()?;
    if perm.len() != sizes.len()
        || sizes.iter().try_fold(1usize, |a, &n| a.checked_mul(n)) != Some(values.len())
    {
        return None;
    }
    // An empty tensor has no values to move (and its other sizes, which may be anything, must not
    // be multiplied into strides).
    if values.is_empty() {
        return Some(values.clone());
    }
    // Row-major strides of the input, read in the output's axis order.
    let mut strides = vec![1usize; sizes.len()];
    for i in (0..sizes.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * sizes[i + 1];
    }
    let out_sizes: Vec<usize> = perm.iter().map(|&a| sizes[a]).collect();
    let out_strides: Vec<usize> = perm.iter().map(|&a| strides[a]).collect();
    let mut index = vec![0usize; sizes.len()];
    let mut order = Vec::with_capacity(values.len());
    for _ in 0..values.len() {
        order.push(index.iter().zip(&out_strides).map(|(i, s)| i * s).sum());
        // The next output position, last axis fastest.
        for k in (0..index.len()).rev() {
            index[k] += 1;
            if index[k] < out_sizes[k] {
                break;
            }
            index[k] = 0;
        }
    }
    values.pick(order)
}

pub const SQUEEZE_AXES: Contract = Contract::new(
    "squeeze-axes",
    "each axis is an axis of the input, in [-rank, rank-1]",
);
pub const SQUEEZE_ONE: Contract = Contract::new("squeeze-one", "each squeezed axis has size 1");

/// Checks Squeeze's axes `list` against the input; false when a contract is broken.
fn squeeze_contracts(ctx: &mut NodeCtx<'_>, list: &[i64]) -> bool {
    let Some(dims) = ctx.shape(0) else {
        return true;
    };
    let mut kept = true;
    for &a in list {
        let Some(k) = ctx.require_axis(SQUEEZE_AXES, &[0], a, dims.len()) else {
            return false;
        };
        if let Some(o) = ctx.operand(0, k) {
            let one = Operand::new("what Squeeze removes", Dim::Known(1));
            kept &= ctx.require_equal(SQUEEZE_ONE, &[o, one]);
        }
    }
    kept
}

pub(super) fn squeeze(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let list = ints_attr_or_input(ctx, "axes", 1, 13);
    if let Param::Known(l) = &list
        && !squeeze_contracts(ctx, l)
    {
        return vec![like(ctx, 0, None)];
    }
    let shape = ctx.shape(0).and_then(|dims| match list {
        // An empty attribute is no attribute. An empty input squeezes nothing in the reference
        // implementation but every 1 in onnxruntime: known only where the two agree.
        Param::Known(list) if list.is_empty() && ctx.opset >= 13 => dims
            .iter()
            .all(|d| matches!(d, Dim::Known(n) if *n != 1))
            .then_some(dims),
        Param::Known(list) if !list.is_empty() => {
            // A repeated axis is squeezed once (onnxruntime merges them).
            let gone: Vec<usize> = list
                .iter()
                .map(|&a| axis(a, dims.len()))
                .collect::<Option<_>>()?;
            Some(
                dims.iter()
                    .enumerate()
                    .filter(|(i, _)| !gone.contains(i))
                    .map(|(_, d)| d.clone())
                    .collect(),
            )
        }
        // Without axes every 1 goes: only known when every dim is known.
        Param::Absent | Param::Known(_) => dims
            .iter()
            .all(|d| matches!(d, Dim::Known(_)))
            .then(|| dims.iter().filter(|d| !d.is_one()).cloned().collect()),
        Param::Unknown => {
            let n = len_1d(ctx, 1)?;
            unknown_dims((dims.len() as u64).checked_sub(n)?)
        }
    });
    let data = values_if_small(&shape, ctx.values(0).cloned());
    vec![like(ctx, 0, shape).with_values(data)]
}

pub const UNSQUEEZE_AXES: Contract = Contract::new(
    "unsqueeze-axes",
    "each axis is an axis of the output (rank + number of axes), none twice",
);

/// Checks Unsqueeze's axes `list` against the output's rank; false when broken.
fn unsqueeze_contracts(ctx: &mut NodeCtx<'_>, list: &[i64]) -> bool {
    let Some(rank) = ctx.input(0).and_then(ValueInfo::rank) else {
        return true;
    };
    let out = rank + list.len();
    let mut seen = Vec::with_capacity(list.len());
    for &a in list {
        let Some(k) = ctx.require_axis(UNSQUEEZE_AXES, &[0], a, out) else {
            return false;
        };
        if seen.contains(&k) {
            let detail = format!("axis {a} names output axis {k} twice");
            ctx.out_of_range(UNSQUEEZE_AXES, &[0], detail);
            return false;
        }
        seen.push(k);
    }
    true
}

pub(super) fn unsqueeze(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let list = ints_attr_or_input(ctx, "axes", 1, 13);
    if let Param::Known(l) = &list
        && !unsqueeze_contracts(ctx, l)
    {
        return vec![like(ctx, 0, None)];
    }
    let shape = ctx.shape(0).and_then(|dims| match list {
        Param::Known(list) => {
            let rank = dims.len().checked_add(list.len())?;
            let new = axes(&list, rank)?;
            let mut rest = dims.into_iter();
            (0..rank)
                .map(|i| {
                    if new.contains(&i) {
                        Some(Dim::Known(1))
                    } else {
                        rest.next()
                    }
                })
                .collect()
        }
        Param::Absent => None,
        Param::Unknown => unknown_dims((dims.len() as u64).checked_add(len_1d(ctx, 1)?)?),
    });
    let data = values_if_small(&shape, ctx.values(0).cloned());
    vec![like(ctx, 0, shape).with_values(data)]
}

#[cfg(test)]
mod tests {
    use super::super::{text, vals};
    use super::*;

    use crate::shape::ops::common::test_util::*;
    use crate::shape::ops::common::{mul, shift};

    fn reshape_to(input: &[&str], target: &[Dim], opset: i64) -> Shape {
        let n = node("Reshape", 2, 1, vec![]);
        let t_info = ValueInfo::int64_data(target.to_vec(), false);
        out_shape(reshape, &n, opset, &[t(F32, input), Some(t_info)])
    }

    #[test]
    fn reshape_copies_zeros_and_infers_minus_one() {
        assert_eq!(
            reshape_to(&["2", "3", "4"], &vals(&[0, -1]), 14),
            shape(&["2", "12"])
        );
        assert_eq!(
            reshape_to(&["B", "S", "768"], &vals(&[0, 0, 12, 64]), 14),
            shape(&["B", "S", "12", "64"])
        );
        // -1 with symbols that cancel.
        let target = vec![d("B"), from_i64(-1), from_i64(768)];
        assert_eq!(
            reshape_to(&["B", "S", "768"], &target, 14),
            shape(&["B", "S", "768"])
        );
        // -1 divided exactly in the symbolic algebra: B*S*768 / (B*64) = S*12.
        let target = vec![d("B"), from_i64(-1), from_i64(64)];
        assert_eq!(
            text(&reshape_to(&["B", "S", "768"], &target, 14)),
            "[B, S*12, 64]"
        );
        // [0, -1, 64] (0 copies batch), the case.
        assert_eq!(
            text(&reshape_to(
                &["batch", "seq", "768"],
                &vals(&[0, -1, 64]),
                14
            )),
            "[batch, seq*12, 64]"
        );
        // ... and back: [batch, seq*12, 64] to [0, -1, 768] is [batch, seq, 768].
        let x = ValueInfo::tensor(
            F32,
            Some(vec![d("batch"), mul(&d("seq"), &d("12")), d("64")]),
        );
        let back = ValueInfo::int64_data(vals(&[0, -1, 768]), false);
        let n = node("Reshape", 2, 1, vec![]);
        assert_eq!(
            out_shape(reshape, &n, 14, &[Some(x), Some(back)]),
            shape(&["batch", "seq", "768"])
        );
        // Not exact: S*768 / 7 and S / B are no sizes.
        assert_eq!(
            reshape_to(&["B", "S", "768"], &vals(&[0, -1, 7]), 14),
            shape(&["B", "?", "7"])
        );
        assert_eq!(
            reshape_to(&["S"], &[from_i64(-1), d("B")], 14),
            shape(&["?", "B"])
        );
        // A sum divides too: [2, seq+1, 64] to [-1, 64] is [seq*2+2, 64].
        let x = ValueInfo::tensor(F32, Some(vec![d("2"), shift(&d("seq"), 1), d("64")]));
        let target = ValueInfo::int64_data(vals(&[-1, 64]), false);
        assert_eq!(
            text(&out_shape(reshape, &n, 14, &[Some(x), Some(target)])),
            "[seq*2+2, 64]"
        );
        assert_eq!(
            reshape_to(&["B", "S", "?"], &vals(&[-1]), 14),
            shape(&["?"])
        );
        // A broken contract leaves no shape: 24 elements in rows of 5, two -1s.
        assert_eq!(reshape_to(&["6", "4"], &vals(&[-1, 5]), 14), None);
        assert_eq!(reshape_to(&["6", "4"], &vals(&[-1, -1]), 14), None);
        assert_eq!(
            reshape_to(&["0", "4"], &vals(&[-1, 2]), 14),
            shape(&["0", "2"])
        );
        // A -1 beside a copied 0, a size below -1: refused (no shape).
        assert_eq!(reshape_to(&["3", "0"], &vals(&[-1, 0]), 14), None);
        assert_eq!(reshape_to(&["4"], &vals(&[-7, 2]), 14), None);
        assert_eq!(reshape_to(&[], &vals(&[-1]), 14), shape(&["1"]));
        // allowzero: a 0 is a 0.
        let n = node("Reshape", 2, 1, vec![attr_i("allowzero", 1)]);
        let s = out_shape(reshape, &n, 14, &[t(F32, &["0", "4"]), ints(&[0, 4])]);
        assert_eq!(s, shape(&["0", "4"]));
        let s = out_shape(reshape, &n, 14, &[t(F32, &["3", "4"]), ints(&[0, -1])]);
        assert_eq!(s, None, "a -1 beside allowzero's 0");
        // Unknown values: rank from the target's length.
        let target = ValueInfo::tensor(I64, shape(&["3"]));
        let s = out_shape(
            reshape,
            &node("Reshape", 2, 1, vec![]),
            14,
            &[t(F32, &["6"]), Some(target)],
        );
        assert_eq!(s, shape(&["?", "?", "?"]));
        let huge = ValueInfo::tensor(I64, Some(vec![Dim::Known(u64::MAX)]));
        let s = out_shape(
            reshape,
            &node("Reshape", 2, 1, vec![]),
            14,
            &[t(F32, &["6"]), Some(huge)],
        );
        assert_eq!(s, None);
        let legacy = node("Reshape", 1, 1, vec![attr_ints("shape", &[-1, 2])]);
        assert_eq!(
            out_shape(reshape, &legacy, 1, &[t(F32, &["2", "3"])]),
            shape(&["3", "2"])
        );
    }

    #[test]
    fn shape_with_start_and_end() {
        let x = t(F32, &["B", "S", "768"]);
        let out = run(
            shape_op,
            &node("Shape", 1, 1, vec![]),
            13,
            std::slice::from_ref(&x),
        );
        assert_eq!(out[0].int_vec(), Some(vec![d("B"), d("S"), d("768")]));
        assert_eq!(out[0].shape, shape(&["3"]));
        let n = node(
            "Shape",
            1,
            1,
            vec![attr_i("start", -2), attr_i("end", i64::MAX)],
        );
        assert_eq!(
            run(shape_op, &n, 15, std::slice::from_ref(&x))[0].int_vec(),
            Some(vec![d("S"), d("768")])
        );
        let n = node("Shape", 1, 1, vec![attr_i("start", 2), attr_i("end", 1)]);
        assert_eq!(
            run(shape_op, &n, 15, std::slice::from_ref(&x))[0].shape,
            shape(&["0"])
        );
        let n = node("Shape", 1, 1, vec![attr_i("start", i64::MIN)]);
        assert_eq!(run(shape_op, &n, 15, &[x])[0].shape, shape(&["3"]));
        let out = run(
            size,
            &node("Size", 1, 1, vec![]),
            13,
            &[t(F32, &["2", "N", "1"])],
        );
        assert_eq!(out[0].int_vec(), Some(vec![mul(&d("N"), &d("2"))]));
        let out = run(
            size,
            &node("Size", 1, 1, vec![]),
            13,
            &[t(F32, &["2", "N", "?"])],
        );
        assert_eq!(out[0].int_vec(), None);
        let out = run(
            size,
            &node("Size", 1, 1, vec![]),
            13,
            &[t(F32, &["2", "3"])],
        );
        assert_eq!(out[0].data_i64(), Some(vec![6]));
    }

    #[test]
    fn flatten_transpose_squeeze_unsqueeze() {
        let n = node("Flatten", 1, 1, vec![attr_i("axis", 1)]);
        assert_eq!(
            out_shape(flatten, &n, 13, &[t(F32, &["N", "2", "3"])]),
            shape(&["N", "6"])
        );
        let n = node("Flatten", 1, 1, vec![attr_i("axis", 0)]);
        assert_eq!(
            out_shape(flatten, &n, 13, &[t(F32, &["2", "3"])]),
            shape(&["1", "6"])
        );
        let n = node("Flatten", 1, 1, vec![attr_i("axis", 9)]);
        assert_eq!(out_shape(flatten, &n, 13, &[t(F32, &["2", "3"])]), None);

        let n = node("Transpose", 1, 1, vec![attr_ints("perm", &[0, 2, 1, 3])]);
        assert_eq!(
            out_shape(transpose, &n, 13, &[t(F32, &["B", "S", "12", "64"])]),
            shape(&["B", "12", "S", "64"])
        );
        let n = node("Transpose", 1, 1, vec![attr_ints("perm", &[0, 0])]);
        assert_eq!(out_shape(transpose, &n, 13, &[t(F32, &["2", "3"])]), None);
        let n = node("Transpose", 1, 1, vec![]);
        assert_eq!(
            out_shape(transpose, &n, 13, &[t(F32, &["2", "3"])]),
            shape(&["3", "2"])
        );

        let sq = node("Squeeze", 2, 1, vec![]);
        assert_eq!(
            out_shape(
                squeeze,
                &sq,
                13,
                &[t(F32, &["1", "N", "1"]), ints(&[0, -1])]
            ),
            shape(&["N"])
        );
        assert_eq!(
            out_shape(squeeze, &sq, 13, &[t(F32, &["1", "3", "1"]), None]),
            shape(&["3"])
        );
        assert_eq!(
            out_shape(squeeze, &sq, 13, &[t(F32, &["1", "N"]), None]),
            None
        );
        assert_eq!(
            out_shape(squeeze, &sq, 13, &[t(F32, &["1", "N"]), ints(&[2])]),
            None
        );
        assert_eq!(
            out_shape(squeeze, &sq, 13, &[t(F32, &["1", "3"]), ints(&[])]),
            None
        );
        assert_eq!(
            out_shape(squeeze, &sq, 13, &[t(F32, &["2", "3"]), ints(&[])]),
            shape(&["2", "3"])
        );
        let legacy = node("Squeeze", 1, 1, vec![attr_ints("axes", &[1])]);
        assert_eq!(
            out_shape(squeeze, &legacy, 11, &[t(F32, &["3", "1"])]),
            shape(&["3"])
        );

        let un = node("Unsqueeze", 2, 1, vec![]);
        assert_eq!(
            out_shape(unsqueeze, &un, 13, &[t(F32, &["3", "4"]), ints(&[0, -1])]),
            shape(&["1", "3", "4", "1"])
        );
        assert_eq!(
            out_shape(unsqueeze, &un, 13, &[t(F32, &["3"]), ints(&[3])]),
            None
        );
        let legacy = node("Unsqueeze", 1, 1, vec![attr_ints("axes", &[1])]);
        assert_eq!(
            out_shape(unsqueeze, &legacy, 11, &[t(F32, &["3"])]),
            shape(&["3", "1"])
        );
        let unknown_axes = Some(ValueInfo::tensor(I64, shape(&["2"])));
        assert_eq!(
            out_shape(unsqueeze, &un, 13, &[t(F32, &["3"]), unknown_axes]),
            shape(&["?", "?", "?"])
        );
    }

    #[test]
    fn reshape_contracts() {
        let n = node("Reshape", 2, 1, vec![]);
        let to = |input: &[&str], target: &[i64]| {
            let t_info = ValueInfo::int64_data(vals(target), false);
            contracts(reshape, &n, 14, &[t(F32, input), Some(t_info)])
        };
        assert!(to(&["2", "3", "4"], &[6, 4]).is_empty());
        assert!(to(&["N", "6"], &[0, -1, 3]).is_empty());
        assert_eq!(to(&["2", "3", "4"], &[5, 5]), ["E2 reshape-count"]);
        assert_eq!(
            to(&["N", "64"], &[0, 8, 7]),
            ["E2 reshape-count"],
            "N*64 vs N*56"
        );
        assert_eq!(to(&["N", "5"], &[-1, 3]), ["W2 reshape-count"]);
        assert_eq!(to(&["2", "3"], &[-1, -2]), ["E3 reshape-target"]);
        assert_eq!(to(&["6"], &[1, 0, 6]), ["E2 reshape-zero"]);
        let zero = node("Reshape", 2, 1, vec![attr_i("allowzero", 1)]);
        let t_info = ValueInfo::int64_data(vals(&[-1, 0]), false);
        let c = contracts(reshape, &zero, 14, &[t(F32, &["0", "3"]), Some(t_info)]);
        assert_eq!(c, ["E2 reshape-count"], "a -1 beside a product of 0");
        // A symbolic count reshaped to known sizes binds the symbol (I002).
        assert_eq!(to(&["N", "4"], &[8]), ["I002 -"]);
    }

    #[test]
    fn layout_contracts() {
        let tr = |perm: &[i64], input: &[&str]| {
            let n = node("Transpose", 1, 1, vec![attr_ints("perm", perm)]);
            contracts(transpose, &n, 13, &[t(F32, input)])
        };
        assert!(tr(&[1, 0], &["2", "3"]).is_empty());
        assert_eq!(tr(&[0, 0], &["2", "3"]), ["E3 transpose-perm"]);
        assert_eq!(tr(&[0, -1], &["2", "3"]), ["E3 transpose-perm"]);
        assert_eq!(tr(&[1, 0], &["2", "3", "4"]), ["E2 transpose-perm"]);
        let sq = node("Squeeze", 2, 1, vec![]);
        let squeeze_of = |input: &[&str], axes: &[i64]| {
            contracts(squeeze, &sq, 13, &[t(F32, input), ints(axes)])
        };
        assert!(squeeze_of(&["2", "1"], &[1, -1]).is_empty());
        assert_eq!(squeeze_of(&["2", "3"], &[1]), ["E2 squeeze-one"]);
        assert_eq!(squeeze_of(&["N", "3"], &[0]), ["W2 squeeze-one"]);
        assert_eq!(squeeze_of(&["1", "3"], &[2]), ["E3 squeeze-axes"]);
        let un = node("Unsqueeze", 2, 1, vec![]);
        let unsqueeze_of =
            |axes: &[i64]| contracts(unsqueeze, &un, 13, &[t(F32, &["2", "3"]), ints(axes)]);
        assert!(
            unsqueeze_of(&[0, -3]).is_empty(),
            "-3 of an output of rank 4"
        );
        assert_eq!(unsqueeze_of(&[0, -4]), ["E3 unsqueeze-axes"]);
        assert_eq!(unsqueeze_of(&[4]), ["E3 unsqueeze-axes"]);
        let fl = node("Flatten", 1, 1, vec![attr_i("axis", 3)]);
        assert!(contracts(flatten, &fl, 13, &[t(F32, &["2", "3", "4"])]).is_empty());
        let fl = node("Flatten", 1, 1, vec![attr_i("axis", -4)]);
        let c = contracts(flatten, &fl, 13, &[t(F32, &["2", "3", "4"])]);
        assert_eq!(c, ["E3 flatten-axis"]);
    }

    #[test]
    fn flatten_of_symbols_is_their_product() {
        let n = node("Flatten", 1, 1, vec![attr_i("axis", 2)]);
        let s = out_shape(flatten, &n, 13, &[t(F32, &["batch", "seq", "768"])]);
        assert_eq!(text(&s), "[batch*seq, 768]");
        let n = node("Flatten", 1, 1, vec![attr_i("axis", 1)]);
        let s = out_shape(flatten, &n, 13, &[t(F32, &["batch", "seq", "768"])]);
        assert_eq!(text(&s), "[batch, seq*768]");
        let s = out_shape(flatten, &n, 13, &[t(F32, &["batch", "seq", "?"])]);
        assert_eq!(text(&s), "[batch, ?]");
        // Flatten then Reshape back: [batch*seq, 768] to [batch, -1, 768] is [batch, seq, 768].
        let flat = ValueInfo::tensor(
            F32,
            Some(vec![mul(&d("batch"), &d("seq")), Dim::Known(768)]),
        );
        let target = ValueInfo::int64_data(vec![d("batch"), from_i64(-1), from_i64(768)], false);
        let r = node("Reshape", 2, 1, vec![]);
        assert_eq!(
            out_shape(reshape, &r, 14, &[Some(flat), Some(target)]),
            shape(&["batch", "seq", "768"])
        );
    }
}
