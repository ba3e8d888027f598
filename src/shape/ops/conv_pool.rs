//! Convolutions and pooling: the spatial output sizes from `kernel_shape`, `strides`, `dilations`,
//! `pads`, `auto_pad` and `ceil_mode`, exact for symbolic sizes too.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#Conv>, `#ConvTranspose`, `#MaxPool`,
//! `#AveragePool`, `#LpPool`, `#GlobalAveragePool`, `#GlobalMaxPool`, `#GlobalLpPool`, `#MaxUnpool`,
//! `#MaxRoiPool`, `#ConvInteger`, `#QLinearConv`, `#DeformConv`. Opset history:
//! - Conv, ConvTranspose: 1, 11 (`kernel_shape` may be omitted and read from W; pads default 0), 22.
//! - MaxPool: 8 adds the `Indices` output; 10 adds `dilations` and `ceil_mode`; 11, 12, 22.
//! - AveragePool: 7 `count_include_pad`; 10 `ceil_mode`; 19 `dilations`; 22. LpPool: 18 adds both; 22.
//! - GlobalAveragePool, GlobalMaxPool: 1, 22; GlobalLpPool: 1, 2, 22. None of them changes a shape.
//! - MaxUnpool: 9, 11, 22. MaxRoiPool: 1, 22. DeformConv: 19, 22. ConvInteger, QLinearConv: 10.
//!
//! Per spatial axis, with `ek = (k - 1) * d + 1` (the dilated kernel) and `span = in + pb + pe - ek`:
//! - explicit pads (and VALID, where they are 0): `floor(span / s) + 1`; with `ceil_mode` (pools only,
//!   VALID included) `ceil(span / s) + 1`, less one when that last window would start in the end
//!   padding (`ceil(span / s) * s >= in + pb`). onnxruntime always drops that window; onnx's own shape
//!   inference does from the opset-22 versions of the pools on, and the spec says so. For a symbolic
//!   `in` the drop is decided when it is the same for every value (the start of the last window less
//!   `in + pb` is `pe - ek` plus something in `[0, s)`, or a constant); otherwise the size is unknown;
//! - SAME_UPPER / SAME_LOWER: `ceil(in / s)`. onnxruntime's pools size that padding for the
//!   *undilated* kernel, which gives less than the spec with a dilation above 1: such a size is unknown;
//! - ConvTranspose: `s * (in - 1) + output_padding + ek - pb - pe`; with SAME it pads the excess of
//!   that over `in * s` away and never pads negatively, so `s * in + min(output_padding + ek - s, 0)`
//!   (what onnxruntime computes; onnx's shape inference keeps `output_padding` on top of `in * s`);
//!   the `output_shape` attribute overrides both. MaxUnpool is the same with no dilation or output
//!   padding, unless its `output_shape` input gives the sizes.
//!
//! Sizes are polynomials over the symbols ([`Poly`]): a ResNet stem on `h` gives `ceil(h/2)`, then
//! `ceil(h/4)` after its max pool, and a 1x1 stride-2 downsample and a 3x3 stride-2 pad-1 convolution
//! of the same input give one expression, so the residual Add that joins them needs no condition. The
//! expressions assume what any model that runs assumes: the dilated kernel fits in the padded input
//! (`span >= 0`). Below that the runtimes truncate toward zero and do not agree with each other in
//! ceil mode; a known size there is unknown here, and a size of 0 or less is unknown too (onnxruntime
//! refuses it).
//!
//! Contracts (checked on the standard operators only; the contrib operators that share these rules
//! check their own). Conv, ConvInteger and QLinearConv (onnxruntime's `conv_attributes.h`, at run
//! unless said): [`CONV_RANK`], X and W of one rank, 3 or more (at load, and only when both ranks
//! are known: with W's rank unknown a 2-D X runs); [`CONV_CHANNELS`], X's channels are W's axis 1
//! times `group` (a symbol against a number there is a binding, as at a matrix product's
//! contraction); [`CONV_GROUP`], `group` at least 1 and dividing W's output channels;
//! [`CONV_KERNEL_SHAPE`], a `kernel_shape` of one size per spatial axis (at load) equal to W's
//! spatial sizes; [`CONV_OUTPUT_SIZE`], the dilated kernel fits in the padded input (onnxruntime
//! computes the size in floats and refuses 0, so an overhang of less than a stride is refused too);
//! [`CONV_SAME_DILATION`], no dilation with `auto_pad` SAME_UPPER or SAME_LOWER (stricter than the
//! spec); [`CONV_AUTO_PAD`], no `pads` with an `auto_pad` (at load, ConvTranspose too); [`CONV_BIAS`], B 1-D with one value per output channel (Conv's and QLinearConv's kernels
//! check it, though a reading of onnxruntime's source had it unchecked). ConvTranspose
//! (`conv_transpose_attributes.h`, at run): [`CONV_RANK`] (X of rank 3 or more even when W's rank is
//! unknown), [`CONV_TRANSPOSE_CHANNELS`] (W's axis 0 is X's channels), [`CONV_TRANSPOSE_GROUP`]
//! (`group` at least 1, dividing X's channels; `group=0` kills the process in onnx's inference),
//! [`CONV_KERNEL_SHAPE`], [`CONV_BIAS`] (W's axis 1 times `group` values) and
//! [`CONV_TRANSPOSE_OUTPUT_SIZE`] (every size at least 1); a dilated SAME ConvTranspose runs.
//!
//! MaxPool, AveragePool, LpPool (`pool_attributes.h`, `pool.cc`): [`POOL_RANK`], X of rank 3 to 5
//! (fewer at load, more at run: at most three spatial axes, stricter than the spec; the global pools
//! too); [`POOL_KERNEL_SHAPE`], one kernel size per spatial axis (at load); [`POOL_PADS`], every pad
//! smaller than the kernel on its axis, whatever `auto_pad` says (at load, stricter than the spec);
//! [`POOL_OUTPUT_SIZE`], no negative output size, computed as onnxruntime does in integers (at run).
//! A pool whose window overhangs the input by less than a stride runs, and an output size of 0 runs
//! (an empty output): neither is reported.

use super::super::contract::{Contract, Operand};
use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Poly, Shape};
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::{mul, size_of_value, unknown_dims};
use super::support::dim_of;
use crate::proto::tensor_proto::DataType;

pub fn register(r: &mut Registry) {
    r.add("", "Conv", 1, conv);
    r.add("", "ConvInteger", 10, conv);
    r.add("", "QLinearConv", 10, conv);
    r.add("", "DeformConv", 19, conv);
    r.add("", "ConvTranspose", 1, conv_transpose);
    r.add_all(&["MaxPool", "AveragePool", "LpPool"], 1, pool);
    r.add_all(
        &["GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"],
        1,
        global_pool,
    );
    r.add("", "MaxUnpool", 9, max_unpool);
    r.add("", "MaxRoiPool", 1, max_roi_pool);
}

/// A convolution's data and weight.
pub const CONV_RANK: Contract = Contract::new(
    "conv-rank",
    "X and W have the same rank, 3 or more ([N, C, spatial...])",
);

/// Conv's input channels.
pub const CONV_CHANNELS: Contract = Contract::new(
    "conv-channels",
    "X's channels (axis 1) equal W's axis 1 times group",
);

/// Conv's groups.
pub const CONV_GROUP: Contract = Contract::new(
    "conv-group",
    "group is at least 1 and divides W's output channels (axis 0)",
);

/// The `kernel_shape` attribute of a convolution.
pub const CONV_KERNEL_SHAPE: Contract = Contract::new(
    "conv-kernel-shape",
    "kernel_shape, when given, has one size per spatial axis, equal to W's spatial sizes",
);

/// The window of a convolution.
pub const CONV_OUTPUT_SIZE: Contract = Contract::new(
    "conv-output-size",
    "the dilated kernel fits in the padded input on every spatial axis",
);

/// onnxruntime's SAME padding of a convolution.
pub const CONV_SAME_DILATION: Contract = Contract::new(
    "conv-same-dilation",
    "auto_pad SAME_UPPER or SAME_LOWER only with every dilation 1",
);

/// A convolution's explicit pads against its `auto_pad`.
pub const CONV_AUTO_PAD: Contract = Contract::new(
    "conv-auto-pad",
    "pads is not given when auto_pad is set (anything but NOTSET, VALID included)",
);

/// A convolution's bias.
pub const CONV_BIAS: Contract = Contract::new(
    "conv-bias",
    "B, when given, is 1-D with one value per output channel",
);

/// ConvTranspose's input channels.
pub const CONV_TRANSPOSE_CHANNELS: Contract = Contract::new(
    "conv-transpose-channels",
    "W's axis 0 equals X's channels (axis 1)",
);

/// ConvTranspose's groups.
pub const CONV_TRANSPOSE_GROUP: Contract = Contract::new(
    "conv-transpose-group",
    "group is at least 1 and divides X's channels (axis 1)",
);

/// ConvTranspose's output.
pub const CONV_TRANSPOSE_OUTPUT_SIZE: Contract = Contract::new(
    "conv-transpose-output-size",
    "every computed output size is at least 1",
);

/// A pool's data.
pub const POOL_RANK: Contract =
    Contract::new("pool-rank", "X has rank 3 to 5 (one to three spatial axes)");

/// A pool's `kernel_shape`.
pub const POOL_KERNEL_SHAPE: Contract = Contract::new(
    "pool-kernel-shape",
    "kernel_shape has one size per spatial axis",
);

/// onnxruntime's pads of a pool.
pub const POOL_PADS: Contract = Contract::new(
    "pool-pads",
    "every pad is smaller than the kernel on its axis",
);

/// A pool's output.
pub const POOL_OUTPUT_SIZE: Contract =
    Contract::new("pool-output-size", "no computed output size is negative");

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AutoPad {
    NotSet,
    Valid,
    Same,
}

/// Convolutions and pools read the same attributes but differ in two places: only pools have
/// `ceil_mode`, and onnxruntime pads a pool's SAME for the undilated kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Conv,
    Pool,
}

/// The sliding-window attributes of one node, for `n` spatial axes. A list of the wrong length or a
/// non-positive kernel, stride or dilation leaves the window unknown (`None`).
#[derive(Debug)]
struct Window {
    kernel: Vec<i64>,
    strides: Vec<i64>,
    dilations: Vec<i64>,
    /// Begin pads then end pads, `2n` of them; 0 with an `auto_pad`, which computes its own.
    pads: Vec<i64>,
    auto_pad: AutoPad,
    ceil: bool,
    family: Family,
}

/// An optional list attribute of `n` positive values, 1 each by default.
fn positive_list(ctx: &NodeCtx<'_>, name: &str, n: usize) -> Option<Vec<i64>> {
    match ctx.attr_ints(name) {
        None => Some(vec![1; n]),
        Some(v) if v.len() == n && v.iter().all(|&x| x > 0) => Some(v.to_vec()),
        Some(_) => None,
    }
}

/// [`CONV_AUTO_PAD`]: false after a break. The pools take both and read only `auto_pad`.
fn auto_pad_contract(ctx: &mut NodeCtx<'_>) -> bool {
    let set = matches!(auto_pad(ctx), Some(AutoPad::Valid | AutoPad::Same));
    if set && ctx.attr_ints("pads").is_some() {
        let detail = format!(
            "auto_pad is {} and pads {:?}",
            ctx.attr_s("auto_pad").unwrap_or_default(),
            ctx.attr_ints("pads").unwrap_or_default()
        );
        ctx.broken(CONV_AUTO_PAD, &[], detail);
        return false;
    }
    true
}

fn auto_pad(ctx: &NodeCtx<'_>) -> Option<AutoPad> {
    match ctx.attr_s("auto_pad").unwrap_or("NOTSET") {
        "NOTSET" | "" => Some(AutoPad::NotSet),
        "VALID" => Some(AutoPad::Valid),
        "SAME_UPPER" | "SAME_LOWER" => Some(AutoPad::Same),
        _ => None,
    }
}

/// The window of a node with `n` spatial axes, with `kernel` when the attribute is absent.
fn window(ctx: &NodeCtx<'_>, n: usize, kernel: Option<Vec<i64>>, family: Family) -> Option<Window> {
    let kernel = match ctx.attr_ints("kernel_shape") {
        Some(k) => Some(k.to_vec()),
        None => kernel,
    }
    .filter(|k| k.len() == n && k.iter().all(|&x| x > 0))?;
    let auto_pad = auto_pad(ctx)?;
    let pads = match ctx.attr_ints("pads") {
        // Explicit pads only count with NOTSET; with auto_pad the op computes its own.
        Some(p) if auto_pad == AutoPad::NotSet => {
            (p.len() == 2 * n && p.iter().all(|&x| x >= 0)).then(|| p.to_vec())?
        }
        _ => vec![0; 2 * n],
    };
    Some(Window {
        kernel,
        strides: positive_list(ctx, "strides", n)?,
        dilations: positive_list(ctx, "dilations", n)?,
        pads,
        auto_pad,
        ceil: family == Family::Pool && ctx.attr_i("ceil_mode").unwrap_or(0) != 0,
        family,
    })
}

/// The kernel's spatial sizes read from a weight shape `[M, C/group, k1, ..., kn]`, when all known.
fn kernel_from_weight(w: &Shape) -> Option<Vec<i64>> {
    w.as_ref()?
        .get(2..)?
        .iter()
        .map(|d| d.known().and_then(|k| i64::try_from(k).ok()))
        .collect()
}

/// A computed size: a positive constant is known; 0 or less, which onnxruntime refuses, is unknown;
/// an expression stays one unless it can never be positive.
fn to_size(p: Option<Poly>) -> Dim {
    match p.map(Poly::into_size) {
        Some(Dim::Known(0)) | None => Dim::Unknown,
        Some(d) => d,
    }
}

impl Window {
    /// Stride, dilated kernel, begin pad and end pad of spatial axis `i`; `None` when the dilated
    /// kernel overflows.
    fn axis(&self, i: usize) -> Option<(i64, i64, i64, i64)> {
        let n = self.kernel.len();
        let (k, s, d) = (self.kernel[i], self.strides[i], self.dilations[i]);
        let ek = (k - 1).checked_mul(d)?.checked_add(1)?;
        Some((s, ek, self.pads[i], self.pads[i + n]))
    }

    /// The output size of spatial axis `i` of a convolution or pooling over `input`.
    fn forward(&self, i: usize, input: &Dim) -> Dim {
        to_size(self.forward_poly(i, input))
    }

    fn forward_poly(&self, i: usize, input: &Dim) -> Option<Poly> {
        let x = Poly::of_size(input)?;
        let (s, ek, pb, pe) = self.axis(i)?;
        if self.auto_pad == AutoPad::Same {
            if self.family == Family::Pool && self.dilations[i] != 1 {
                return None; // onnxruntime and the spec disagree (see the module's header)
            }
            return x.ceil_div(s);
        }
        let span = x.add(&Poly::constant(pb.checked_add(pe)?.checked_sub(ek)?))?;
        if span.as_constant().is_some_and(|c| c < 0) {
            return None; // the kernel does not fit (see the module's header)
        }
        let one = Poly::constant(1);
        if !self.ceil {
            return span.floor_div(s)?.add(&one);
        }
        // Windows start at 0, s, ..., q * s in padded coordinates; the last is dropped when it starts
        // at or after `pb + in`, the start of the end padding.
        let q = span.ceil_div(s)?;
        let beyond = q
            .mul(&Poly::constant(s))?
            .sub(&x)?
            .sub(&Poly::constant(pb))?;
        let drop = match beyond.as_constant() {
            Some(c) => c >= 0,
            // q * s - span is in [0, s), and span - in - pb is pe - ek.
            None => {
                let low = i128::from(pe) - i128::from(ek);
                match (low >= 0, low + i128::from(s) - 1 < 0) {
                    (true, _) => true,
                    (_, true) => false,
                    _ => return None,
                }
            }
        };
        if drop { Some(q) } else { q.add(&one) }
    }

    /// onnxruntime's output size of spatial axis `i` of a pool over a known `input`, in its integer
    /// arithmetic (C++ division truncates toward zero; ceil mode divides in floats), negative
    /// included.
    fn ort_pool_size(&self, i: usize, input: u64) -> Option<i64> {
        let (s, ek, pb, pe) = self.axis(i)?;
        let x = i64::try_from(input).ok()?;
        let num = x.checked_add(pb)?.checked_add(pe)?.checked_sub(ek)?;
        if !self.ceil {
            return num.checked_div(s)?.checked_add(1);
        }
        let mut out = ((num as f32) / (s as f32)).ceil() as i64 + 1;
        if (out - 1).checked_mul(s)? >= x.checked_add(pb)? {
            out -= 1;
        }
        Some(out)
    }

    /// The output size of spatial axis `i` of a transposed convolution over `input`.
    fn transposed(&self, i: usize, input: &Dim, output_padding: i64) -> Dim {
        to_size(self.transposed_poly(i, input, output_padding))
    }

    fn transposed_poly(&self, i: usize, input: &Dim, output_padding: i64) -> Option<Poly> {
        let x = Poly::of_size(input)?;
        let (s, ek, pb, pe) = self.axis(i)?;
        // s * (in - 1) + output_padding + ek is s * in + extra.
        let extra = output_padding.checked_add(ek)?.checked_sub(s)?;
        let trim = match self.auto_pad {
            // SAME pads the excess over s * in away, and cannot pad a shortfall.
            AutoPad::Same => extra.max(0),
            _ => pb.checked_add(pe)?,
        };
        x.mul(&Poly::constant(s))?
            .add(&Poly::constant(extra.checked_sub(trim)?))
    }
}

/// The slots of the data input and weight of a convolution-like op, and its output element type.
fn conv_slots(ctx: &NodeCtx<'_>) -> (usize, usize, Option<i32>) {
    match ctx.op_type() {
        "ConvInteger" => (0, 1, Some(DataType::Int32 as i32)),
        "QLinearConv" => (0, 3, ctx.elem(7).or(ctx.elem(0))),
        _ => (0, 1, ctx.elem(0)),
    }
}

/// The rank of a convolution's data: from X, else from W (the same rank), else from `kernel_shape`.
fn conv_rank(ctx: &NodeCtx<'_>, x: &Shape, w: &Shape) -> Option<usize> {
    x.as_ref()
        .map(Vec::len)
        .or_else(|| w.as_ref().map(Vec::len))
        .or_else(|| ctx.attr_ints("kernel_shape").map(|k| k.len() + 2))
        .filter(|&r| r >= 2)
}

/// The dimension of `x` at `i`, or unknown.
fn dim_at(x: &Shape, i: usize) -> Dim {
    x.as_ref()
        .and_then(|s| s.get(i))
        .cloned()
        .unwrap_or(Dim::Unknown)
}

/// Conv, ConvInteger, QLinearConv, DeformConv; also the core of onnxruntime's FusedConv (Conv with an
/// activation and an added Z). The contracts are checked for the first three.
pub fn conv(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (xs, ws, elem) = conv_slots(ctx);
    let (x, w) = (ctx.shape(xs), ctx.shape(ws));
    let bias = match ctx.op_type() {
        "Conv" => Some(Some(2)),
        "QLinearConv" => Some(Some(8)),
        "ConvInteger" => Some(None),
        _ => None,
    };
    if let Some(bias) = bias {
        conv_contracts(ctx, [xs, ws], bias, &x, &w);
    }
    vec![ValueInfo::tensor(elem, conv_of(ctx, &x, &w))]
}

/// The contracts of Conv, ConvInteger and QLinearConv, whose X and W are inputs `xs` and `ws` and
/// whose bias, when the op has one, is input `bias`.
fn conv_contracts(
    ctx: &mut NodeCtx<'_>,
    [xs, ws]: [usize; 2],
    bias: Option<usize>,
    x: &Shape,
    w: &Shape,
) {
    if let (Some(x), Some(w)) = (x, w) {
        // onnx's inference compares the ranks only when it knows both.
        let detail = if x.len() != w.len() {
            format!("X has rank {}, W rank {}", x.len(), w.len())
        } else if x.len() < 3 {
            format!("X and W have rank {}", x.len())
        } else {
            String::new()
        };
        if !detail.is_empty() {
            ctx.broken(CONV_RANK, &[xs, ws], detail);
            return;
        }
    }
    let group = ctx.attr_i("group").unwrap_or(1);
    if group < 1 {
        ctx.out_of_range(CONV_GROUP, &[], format_args!("group is {group}"));
        return;
    }
    let g = group as u64;
    if let (Some(c), Some(wc)) = (ctx.operand(xs, 1), ctx.operand(ws, 1)) {
        let expected = times_group(wc, g);
        if !contract(ctx, CONV_CHANNELS, c, expected) {
            return;
        }
    }
    if let Some(m) = ctx.operand(ws, 0)
        && !ctx.require_multiple(CONV_GROUP, &m, g)
    {
        return;
    }
    let rank = x.as_ref().or(w.as_ref()).map(Vec::len);
    if !kernel_shape_contract(ctx, [xs, ws], rank) {
        return;
    }
    if !auto_pad_contract(ctx) {
        return;
    }
    let dilated = ctx
        .attr_ints("dilations")
        .is_some_and(|d| d.iter().any(|&v| v != 1));
    if auto_pad(ctx) == Some(AutoPad::Same) && dilated {
        let detail = format!(
            "auto_pad is {} and dilations {:?}",
            ctx.attr_s("auto_pad").unwrap_or_default(),
            ctx.attr_ints("dilations").unwrap_or_default()
        );
        ctx.broken(CONV_SAME_DILATION, &[], detail);
        return;
    }
    if !conv_output_sizes(ctx, xs, x, w) {
        return;
    }
    if let (Some(bs), Some(m)) = (bias, ctx.operand(ws, 0)) {
        bias_contract(ctx, bs, m);
    }
}

/// A weight's axis `o` times `group`, as an operand (itself for one group).
fn times_group(o: Operand, group: u64) -> Operand {
    if group == 1 {
        return o;
    }
    let dim = mul(&o.dim, &Dim::Known(group));
    let slot = o.slot;
    let o = Operand::new(format!("{} times group {group}", o.what), dim);
    match slot {
        Some(s) => o.from_input(s),
        None => o,
    }
}

/// Checks that X's axis `a` and a weight's axis `b` agree, as at a matrix product's contraction (a
/// symbol met by a number is bound to it: the weight says what the size is); false when they
/// definitely do not.
fn contract(ctx: &mut NodeCtx<'_>, c: Contract, a: Operand, b: Operand) -> bool {
    let before = ctx.findings.len();
    super::matmul::contraction(ctx, c, a, b);
    !ctx.findings[before..]
        .iter()
        .any(super::super::contract::breaks_node)
}

/// [`CONV_KERNEL_SHAPE`] for a convolution of rank `rank` (X's, else W's); false on a break.
fn kernel_shape_contract(ctx: &mut NodeCtx<'_>, [xs, ws]: [usize; 2], rank: Option<usize>) -> bool {
    let Some(kernel) = ctx.attr_ints("kernel_shape").map(<[i64]>::to_vec) else {
        return true;
    };
    if let Some(r) = rank
        && kernel.len() + 2 != r
    {
        let detail = format!(
            "kernel_shape is {kernel:?} for {} spatial axes",
            r.saturating_sub(2)
        );
        ctx.broken(CONV_KERNEL_SHAPE, &[xs], detail);
        return false;
    }
    for (i, &k) in kernel.iter().enumerate() {
        let (Ok(k), Some(wk)) = (u64::try_from(k), ctx.operand(ws, i + 2)) else {
            continue;
        };
        let given = Operand::new(format!("kernel_shape[{i}]"), Dim::Known(k));
        if !ctx.require_equal(CONV_KERNEL_SHAPE, &[wk, given]) {
            return false;
        }
    }
    true
}

/// [`CONV_OUTPUT_SIZE`] on the known spatial sizes of X (input `xs`); false on a break. onnxruntime
/// computes `(in + pads - ek) / s + 1` in floats and truncates, so any overhang gives 0 or less,
/// which it refuses; SAME pads never leave one.
fn conv_output_sizes(ctx: &mut NodeCtx<'_>, xs: usize, x: &Shape, w: &Shape) -> bool {
    let Some(x) = x.as_ref().filter(|x| x.len() >= 3) else {
        return true;
    };
    let n = x.len() - 2;
    let Some(win) = window(ctx, n, kernel_from_weight(w), Family::Conv) else {
        return true;
    };
    if win.auto_pad == AutoPad::Same {
        return true;
    }
    for i in 0..n {
        let (Some(v), Some((_, ek, pb, pe))) = (x[i + 2].known(), win.axis(i)) else {
            continue;
        };
        let padded = i128::from(v) + i128::from(pb) + i128::from(pe);
        if padded < i128::from(ek) {
            let detail = format!(
                "axis {}: {v} plus pads {pb} and {pe} is {padded}, less than the dilated kernel {ek}",
                i + 2
            );
            ctx.broken(CONV_OUTPUT_SIZE, &[xs], detail);
            return false;
        }
    }
    true
}

/// [`CONV_BIAS`]: input `bs`, when given, is 1-D of `channels` values.
fn bias_contract(ctx: &mut NodeCtx<'_>, bs: usize, channels: Operand) {
    let Some(b) = ctx.shape(bs) else {
        return;
    };
    if b.len() != 1 {
        let detail = format!(
            "input {bs} '{}' has rank {}",
            ctx.node.input_name(bs),
            b.len()
        );
        ctx.broken(CONV_BIAS, &[bs], detail);
        return;
    }
    if let Some(len) = ctx.operand(bs, 0) {
        ctx.require_equal(CONV_BIAS, &[len, channels]);
    }
}

/// The output shape of a convolution of data `x` (channels first) by weight `w` under the node's
/// attributes: onnxruntime's NhwcConv gives its data here in the channels-first order.
pub fn conv_of(ctx: &NodeCtx<'_>, x: &Shape, w: &Shape) -> Shape {
    let rank = conv_rank(ctx, x, w)?;
    let n = rank - 2;
    let win = window(ctx, n, kernel_from_weight(w), Family::Conv);
    let mut out = vec![dim_at(x, 0), dim_at(w, 0)];
    for i in 0..n {
        out.push(match &win {
            Some(win) => win.forward(i, &dim_at(x, i + 2)),
            None => Dim::Unknown,
        });
    }
    Some(out)
}

pub(super) fn conv_transpose(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    if ctx.op_type() == "ConvTranspose" {
        conv_transpose_contracts(ctx);
    }
    let elem = ctx.elem(0);
    let (x, w) = (ctx.shape(0), ctx.shape(1));
    let Some(rank) = conv_rank(ctx, &x, &w) else {
        return vec![ValueInfo::tensor(elem, None)];
    };
    let n = rank - 2;
    let group = ctx.attr_i("group").unwrap_or(1);
    let channels = u64::try_from(group)
        .ok()
        .filter(|&g| g > 0)
        .map_or(Dim::Unknown, |g| mul(&dim_at(&w, 1), &Dim::Known(g)));
    let mut out = vec![dim_at(&x, 0), channels];
    if let Some(explicit) = ctx.attr_ints("output_shape") {
        // The spatial sizes, or the whole shape (onnxruntime reads its last n then); 0 or a negative
        // size is refused.
        let tail = match explicit.len() {
            len if len == n || len == n + 2 => Some(&explicit[len - n..]),
            _ => None,
        };
        match tail {
            Some(t) => out.extend(t.iter().map(|&v| match v {
                1.. => Dim::Known(v as u64),
                _ => Dim::Unknown,
            })),
            None => out.extend(std::iter::repeat_n(Dim::Unknown, n)),
        }
        return vec![ValueInfo::tensor(elem, Some(out))];
    }
    let win = window(ctx, n, kernel_from_weight(&w), Family::Conv);
    let output_padding = match ctx.attr_ints("output_padding") {
        None => Some(vec![0; n]),
        Some(p) if p.len() == n && p.iter().all(|&v| v >= 0) => Some(p.to_vec()),
        Some(_) => None,
    };
    for i in 0..n {
        out.push(match (&win, &output_padding) {
            (Some(win), Some(op)) => win.transposed(i, &dim_at(&x, i + 2), op[i]),
            _ => Dim::Unknown,
        });
    }
    vec![ValueInfo::tensor(elem, Some(out))]
}

/// The contracts of ConvTranspose (X, W, B?).
fn conv_transpose_contracts(ctx: &mut NodeCtx<'_>) {
    let (x, w) = (ctx.shape(0), ctx.shape(1));
    let (xr, wr) = (x.as_ref().map(Vec::len), w.as_ref().map(Vec::len));
    // Its kernel reads X's channels and spatial sizes whatever W's rank.
    if let Some(r) = xr.filter(|&r| r < 3) {
        ctx.broken(CONV_RANK, &[0], format_args!("X has rank {r}"));
        return;
    }
    if let (Some(a), Some(b)) = (xr, wr)
        && a != b
    {
        ctx.broken(
            CONV_RANK,
            &[0, 1],
            format_args!("X has rank {a}, W rank {b}"),
        );
        return;
    }
    if !auto_pad_contract(ctx) {
        return;
    }
    let group = ctx.attr_i("group").unwrap_or(1);
    if group < 1 {
        ctx.out_of_range(CONV_TRANSPOSE_GROUP, &[], format_args!("group is {group}"));
        return;
    }
    let g = group as u64;
    let (c, w0) = (ctx.operand(0, 1), ctx.operand(1, 0));
    if let (Some(c), Some(w0)) = (c.clone(), w0.clone())
        && !contract(ctx, CONV_TRANSPOSE_CHANNELS, c, w0)
    {
        return;
    }
    // The channels as a number where either side says it (W's axis 0 binds a symbol of X's).
    let channels = match (c, w0) {
        (Some(c), Some(w0)) if c.dim.known().is_none() && w0.dim.known().is_some() => Some(w0),
        (Some(c), _) => Some(c),
        (None, w0) => w0,
    };
    if let Some(channels) = channels
        && !ctx.require_multiple(CONV_TRANSPOSE_GROUP, &channels, g)
    {
        return;
    }
    if !kernel_shape_contract(ctx, [0, 1], xr.or(wr)) {
        return;
    }
    if ctx.has_input(2)
        && let Some(m) = ctx.operand(1, 1)
    {
        bias_contract(ctx, 2, times_group(m, g));
    }
    if ctx.attr_ints("output_shape").is_some() {
        return;
    }
    let Some(x) = x.filter(|x| x.len() >= 3) else {
        return;
    };
    let n = x.len() - 2;
    let win = window(ctx, n, kernel_from_weight(&w), Family::Conv);
    let output_padding = match ctx.attr_ints("output_padding") {
        None => Some(vec![0; n]),
        Some(p) if p.len() == n && p.iter().all(|&v| v >= 0) => Some(p.to_vec()),
        Some(_) => None,
    };
    let (Some(win), Some(op)) = (win, output_padding) else {
        return;
    };
    for i in 0..n {
        let Some(v) = x[i + 2].known() else {
            continue;
        };
        let size = win
            .transposed_poly(i, &Dim::Known(v), op[i])
            .and_then(|p| p.as_constant());
        if let Some(size) = size.filter(|&s| s < 1) {
            let detail = format!("axis {} of size {v} gives an output size of {size}", i + 2);
            ctx.broken(CONV_TRANSPOSE_OUTPUT_SIZE, &[0], detail);
            return;
        }
    }
}

/// The contracts of MaxPool, AveragePool and LpPool.
fn pool_contracts(ctx: &mut NodeCtx<'_>, x: &Shape) {
    if !pool_rank(ctx, x) {
        return;
    }
    let Some(kernel) = ctx.attr_ints("kernel_shape").map(<[i64]>::to_vec) else {
        return;
    };
    if let Some(x) = x
        && kernel.len() + 2 != x.len()
    {
        let detail = format!(
            "kernel_shape is {kernel:?} for {} spatial axes",
            x.len() - 2
        );
        ctx.broken(POOL_KERNEL_SHAPE, &[0], detail);
        return;
    }
    // onnxruntime's constructor compares the pads whatever auto_pad says.
    let n = kernel.len();
    if let Some(pads) = ctx.attr_ints("pads").filter(|p| p.len() == 2 * n) {
        let wide = (0..2 * n).find(|&j| kernel[j % n] > 0 && pads[j] >= kernel[j % n]);
        if let Some(j) = wide {
            let which = if j < n { "begin" } else { "end" };
            let detail = format!(
                "the {which} pad of spatial axis {} is {}, the kernel {}",
                j % n,
                pads[j],
                kernel[j % n]
            );
            ctx.broken(POOL_PADS, &[], detail);
            return;
        }
    }
    let Some(x) = x else {
        return;
    };
    let Some(win) = window(ctx, n, None, Family::Pool) else {
        return;
    };
    if win.auto_pad == AutoPad::Same {
        return;
    }
    for i in 0..n {
        let Some(size) = x[i + 2].known().and_then(|v| win.ort_pool_size(i, v)) else {
            continue;
        };
        if size < 0 {
            let detail = format!(
                "axis {} of size {} gives an output size of {size}",
                i + 2,
                x[i + 2]
            );
            ctx.broken(POOL_OUTPUT_SIZE, &[0], detail);
            return;
        }
    }
}

/// [`POOL_RANK`]; false on a break.
fn pool_rank(ctx: &mut NodeCtx<'_>, x: &Shape) -> bool {
    match x.as_ref().map(Vec::len) {
        Some(r) if !(3..=5).contains(&r) => {
            ctx.broken(POOL_RANK, &[0], format_args!("X has rank {r}"));
            false
        }
        _ => true,
    }
}

/// MaxPool, AveragePool, LpPool: `[N, C, spatial...]`; MaxPool's `Indices` (int64, whatever
/// `storage_order` says about the values) has the same shape.
pub(super) fn pool(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let x = ctx.shape(0);
    if matches!(ctx.op_type(), "MaxPool" | "AveragePool" | "LpPool") {
        pool_contracts(ctx, &x);
    }
    let shape = x.as_ref().filter(|s| s.len() >= 2).map(|dims| {
        let n = dims.len() - 2;
        let win = window(ctx, n, None, Family::Pool);
        let mut out = dims[..2].to_vec();
        for i in 0..n {
            out.push(match &win {
                Some(win) => win.forward(i, &dims[i + 2]),
                None => Dim::Unknown,
            });
        }
        out
    });
    let mut outs = vec![ValueInfo::tensor(ctx.elem(0), shape.clone())];
    if ctx.num_outputs() > 1 {
        outs.push(ValueInfo::tensor(Some(DataType::Int64 as i32), shape));
    }
    outs
}

/// Global pools: `[N, C, 1, ..., 1]`.
fn global_pool(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    pool_rank(ctx, &ctx.shape(0));
    let shape = ctx.shape(0).filter(|s| s.len() >= 2).map(|dims| {
        let mut out = dims[..2].to_vec();
        out.resize(dims.len(), Dim::Known(1));
        out
    });
    vec![ValueInfo::tensor(ctx.elem(0), shape)]
}

/// MaxUnpool(X, I, output_shape?): the `output_shape` input when its values are known, else the
/// inverse of the pooling window: `(in - 1) * s + k - pb - pe`.
fn max_unpool(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let elem = ctx.elem(0);
    if ctx.has_input(2) {
        let shape = match ctx.data(2) {
            Some(values) => Some(values.iter().map(size_of_value).collect()),
            None => match ctx.shape(2).as_deref() {
                Some([Dim::Known(r)]) => unknown_dims(*r),
                _ => ctx.shape(0).map(|s| vec![Dim::Unknown; s.len()]),
            },
        };
        return vec![ValueInfo::tensor(elem, shape)];
    }
    let shape = ctx.shape(0).filter(|s| s.len() >= 2).map(|dims| {
        let n = dims.len() - 2;
        // MaxUnpool has no dilations (onnxruntime reads none) and no auto_pad (one set would zero
        // the pads onnxruntime reads, so the window is then unknown).
        let win = window(ctx, n, None, Family::Pool)
            .filter(|w| w.auto_pad == AutoPad::NotSet)
            .map(|mut w| {
                w.dilations.fill(1);
                w
            });
        let mut out = dims[..2].to_vec();
        for i in 0..n {
            out.push(match &win {
                Some(win) => win.transposed(i, &dims[i + 2], 0),
                None => Dim::Unknown,
            });
        }
        out
    });
    vec![ValueInfo::tensor(elem, shape)]
}

/// MaxRoiPool(X, rois): `[num_rois, C, pooled_h, pooled_w]` for X `[N, C, H, W]` and rois
/// `[num_rois, 5]`; the pooled sizes are the `pooled_shape` attribute.
fn max_roi_pool(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let pooled: Vec<Dim> = match ctx.attr_ints("pooled_shape") {
        Some(&[h, w]) if h > 0 && w > 0 => vec![Dim::Known(h as u64), Dim::Known(w as u64)],
        _ => vec![Dim::Unknown; 2],
    };
    let mut out = vec![dim_of(ctx, 1, 2, 0), dim_of(ctx, 0, 4, 1)];
    out.extend(pooled);
    vec![ValueInfo::tensor(ctx.elem(0), Some(out))]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;
    use crate::shape::dim::format_shape;

    fn conv2d(attrs: Vec<crate::proto::AttributeProto>, x: &[&str], w: &[&str]) -> Shape {
        let n = node("Conv", 2, 1, attrs);
        out_shape(conv, &n, 22, &[t(F32, x), t(F32, w)])
    }

    fn text(s: &Shape) -> String {
        format_shape(s)
    }

    /// A float tensor of the given dimensions (computed ones included).
    fn dims(d: Vec<Dim>) -> Option<ValueInfo> {
        Some(ValueInfo::tensor(F32, Some(d)))
    }

    #[test]
    fn conv_explicit_pads_strides_dilations() {
        // ResNet stem: 7x7 stride 2 pad 3 on 224.
        let a = vec![
            attr_ints("strides", &[2, 2]),
            attr_ints("pads", &[3, 3, 3, 3]),
        ];
        let s = conv2d(a, &["N", "3", "224", "224"], &["64", "3", "7", "7"]);
        assert_eq!(s, shape(&["N", "64", "112", "112"]));
        let a = vec![attr_ints("dilations", &[2, 2])];
        let s = conv2d(a, &["1", "3", "10", "10"], &["8", "3", "3", "3"]);
        assert_eq!(s, shape(&["1", "8", "6", "6"]));
        // A 3x3 convolution with pads 1 and stride 1 keeps symbolic sizes; without pads it trims 2.
        let a = vec![attr_ints("pads", &[1, 1, 1, 1])];
        let s = conv2d(a, &["N", "3", "H", "W"], &["8", "3", "3", "3"]);
        assert_eq!(s, shape(&["N", "8", "H", "W"]));
        let s = conv2d(vec![], &["N", "3", "H", "W"], &["8", "3", "3", "3"]);
        assert_eq!(text(&s), "[N, 8, H-2, W-2]");
        // The kernel does not fit a known input: no size.
        let s = conv2d(vec![], &["N", "3", "2", "3"], &["8", "3", "3", "3"]);
        assert_eq!(text(&s), "[N, 8, ?, 1]");
    }

    #[test]
    fn resnet_stem_and_downsamples_meet_in_one_expression() {
        let stem = vec![
            attr_ints("strides", &[2, 2]),
            attr_ints("pads", &[3, 3, 3, 3]),
        ];
        let s = conv2d(stem, &["N", "3", "h", "w"], &["64", "3", "7", "7"]);
        assert_eq!(text(&s), "[N, 64, ceil(h/2), ceil(w/2)]");
        let n = node(
            "MaxPool",
            1,
            1,
            vec![
                attr_ints("kernel_shape", &[3, 3]),
                attr_ints("strides", &[2, 2]),
                attr_ints("pads", &[1, 1, 1, 1]),
            ],
        );
        let pooled = out_shape(pool, &n, 12, &[dims(s.clone().unwrap())]);
        assert_eq!(text(&pooled), "[N, 64, ceil(h/4), ceil(w/4)]");
        let x = pooled.unwrap();
        // The two branches of a downsampling residual block: a 3x3 stride-2 pad-1 convolution and a
        // 1x1 stride-2 one.
        let n3 = node(
            "Conv",
            2,
            1,
            vec![
                attr_ints("strides", &[2, 2]),
                attr_ints("pads", &[1, 1, 1, 1]),
            ],
        );
        let n1 = node("Conv", 2, 1, vec![attr_ints("strides", &[2, 2])]);
        let w3 = t(F32, &["128", "64", "3", "3"]);
        let w1 = t(F32, &["128", "64", "1", "1"]);
        let a = out_shape(conv, &n3, 11, &[dims(x.clone()), w3]);
        let b = out_shape(conv, &n1, 11, &[dims(x), w1]);
        assert_eq!(text(&a), "[N, 128, ceil(h/8), ceil(w/8)]");
        assert_eq!(a, b, "floor((x-1)/2)+1 both ways");
    }

    #[test]
    fn conv_auto_pad_and_malformed_attributes() {
        let a = vec![
            attr_s("auto_pad", "SAME_UPPER"),
            attr_ints("strides", &[2, 2]),
        ];
        let s = conv2d(a, &["1", "3", "7", "H"], &["8", "3", "3", "3"]);
        assert_eq!(text(&s), "[1, 8, 4, ceil(H/2)]");
        let a = vec![
            attr_s("auto_pad", "SAME_LOWER"),
            attr_ints("strides", &[3, 1]),
        ];
        let s = conv2d(a, &["1", "3", "H", "W"], &["8", "3", "5", "5"]);
        assert_eq!(text(&s), "[1, 8, ceil(H/3), W]");
        let a = vec![attr_s("auto_pad", "VALID"), attr_ints("strides", &[2, 2])];
        let s = conv2d(a, &["1", "3", "7", "H"], &["8", "3", "3", "3"]);
        assert_eq!(text(&s), "[1, 8, 3, ceil(H/2)-1]");
        let a = vec![attr_s("auto_pad", "VALID")];
        let s = conv2d(a, &["1", "3", "7", "2"], &["8", "3", "3", "3"]);
        assert_eq!(s, shape(&["1", "8", "5", "?"]));
        // ceil_mode is a pooling attribute: a convolution ignores it.
        let a = vec![attr_ints("strides", &[2, 2]), attr_i("ceil_mode", 1)];
        let s = conv2d(a, &["1", "3", "8", "8"], &["8", "3", "3", "3"]);
        assert_eq!(s, shape(&["1", "8", "3", "3"]));
        for bad in [
            attr_ints("strides", &[0, 1]),
            attr_ints("strides", &[i64::MAX, 1]),
            attr_ints("pads", &[1, 1]),
            attr_ints("pads", &[i64::MAX, i64::MAX, 0, 0]),
            attr_ints("pads", &[-1, 0, 0, 0]),
            attr_ints("dilations", &[i64::MAX, 1]),
            attr_ints("kernel_shape", &[-3, 3]),
            attr_ints("kernel_shape", &[i64::MAX, 3]),
            attr_s("auto_pad", "WHATEVER"),
        ] {
            for x in [["1", "3", "7", "7"], ["1", "3", "H", "W"]] {
                let s = conv2d(vec![bad.clone()], &x, &["8", "3", "3", "3"]);
                assert_eq!(s.as_ref().map(Vec::len), Some(4));
                assert_eq!(s.as_ref().map(|v| v[1].clone()), Some(d("8")));
            }
        }
        assert_eq!(conv2d(vec![], &["?"], &[]), None);
        let n = node("Conv", 2, 1, vec![attr_ints("kernel_shape", &[3])]);
        assert_eq!(
            out_shape(conv, &n, 22, &[None, None]),
            shape(&["?", "?", "?"])
        );
    }

    /// The findings of a rule, one "CODE contract" line each.
    fn broken(
        rule: crate::shape::registry::Rule,
        n: &crate::proto::NodeProto,
        inputs: &[Option<ValueInfo>],
    ) -> Vec<String> {
        findings(rule, n, 17, inputs)
            .iter()
            .map(|d| format!("{} {}", d.code.as_str(), d.contract.unwrap_or("-")))
            .collect()
    }

    #[test]
    fn conv_contracts() {
        let conv_n = |attrs| node("Conv", 3, 1, attrs);
        let x = || t(F32, &["1", "4", "8", "8"]);
        let ok = broken(
            conv,
            &conv_n(vec![]),
            &[x(), t(F32, &["6", "4", "3", "3"]), None],
        );
        assert!(ok.is_empty(), "{ok:?}");
        for (attrs, xs, ws, b, want) in [
            (vec![], x(), t(F32, &["6", "4", "3"]), None, "E2 conv-rank"),
            (
                vec![],
                t(F32, &["1", "4"]),
                t(F32, &["6", "4"]),
                None,
                "E2 conv-rank",
            ),
            (
                vec![],
                x(),
                t(F32, &["6", "5", "3", "3"]),
                None,
                "E2 conv-channels",
            ),
            (
                vec![attr_i("group", 2)],
                x(),
                t(F32, &["6", "4", "3", "3"]),
                None,
                "E2 conv-channels",
            ),
            (
                vec![attr_i("group", 2)],
                x(),
                t(F32, &["5", "2", "3", "3"]),
                None,
                "E2 conv-group",
            ),
            (
                vec![attr_i("group", 0)],
                x(),
                t(F32, &["6", "4", "3", "3"]),
                None,
                "E3 conv-group",
            ),
            (
                vec![attr_ints("kernel_shape", &[3, 2])],
                x(),
                t(F32, &["6", "4", "3", "3"]),
                None,
                "E2 conv-kernel-shape",
            ),
            (
                vec![attr_ints("kernel_shape", &[3])],
                x(),
                t(F32, &["6", "4", "3", "3"]),
                None,
                "E2 conv-kernel-shape",
            ),
            (
                vec![],
                t(F32, &["1", "4", "2", "8"]),
                t(F32, &["6", "4", "3", "3"]),
                None,
                "E2 conv-output-size",
            ),
            (
                vec![attr_ints("strides", &[3, 1])],
                t(F32, &["1", "4", "2", "8"]),
                t(F32, &["6", "4", "3", "3"]),
                None,
                "E2 conv-output-size",
            ),
            (
                vec![
                    attr_s("auto_pad", "SAME_UPPER"),
                    attr_ints("dilations", &[1, 2]),
                ],
                x(),
                t(F32, &["6", "4", "3", "3"]),
                None,
                "E2 conv-same-dilation",
            ),
            (
                vec![],
                x(),
                t(F32, &["6", "4", "3", "3"]),
                t(F32, &["5"]),
                "E2 conv-bias",
            ),
            (
                vec![],
                x(),
                t(F32, &["6", "4", "3", "3"]),
                t(F32, &["1", "6"]),
                "E2 conv-bias",
            ),
        ] {
            let got = broken(conv, &conv_n(attrs.clone()), &[xs, ws, b]);
            assert_eq!(got, [want], "{attrs:?}");
        }
        // Passes: a pad that makes the kernel fit, SAME undilated, a symbolic input size (its
        // condition is every model's), a 2-D X when W's rank is unknown (onnxruntime runs it).
        let w = || t(F32, &["6", "4", "3", "3"]);
        for (attrs, xs, ws) in [
            (
                vec![attr_ints("pads", &[1, 0, 0, 0])],
                t(F32, &["1", "4", "2", "8"]),
                w(),
            ),
            (
                vec![
                    attr_s("auto_pad", "SAME_LOWER"),
                    attr_ints("dilations", &[1, 1]),
                ],
                x(),
                w(),
            ),
            (vec![], t(F32, &["1", "4", "h", "w"]), w()),
            (vec![], t(F32, &["1", "4"]), None),
            (vec![attr_ints("kernel_shape", &[3, 3])], x(), w()),
        ] {
            let got = broken(conv, &conv_n(attrs.clone()), &[xs, ws, None]);
            assert!(got.is_empty(), "{attrs:?}: {got:?}");
        }
        // A symbolic channel count meets the weight's: bound, no condition; two symbols: W2.
        let got = broken(
            conv,
            &conv_n(vec![]),
            &[t(F32, &["1", "c", "8", "8"]), w(), None],
        );
        assert_eq!(got, ["I002 -"]);
        let got = broken(
            conv,
            &conv_n(vec![]),
            &[
                t(F32, &["1", "c", "8", "8"]),
                t(F32, &["6", "k", "3", "3"]),
                None,
            ],
        );
        assert_eq!(got, ["W2 conv-channels"]);
        let got = broken(conv, &conv_n(vec![]), &[x(), w(), t(F32, &["b"])]);
        assert_eq!(got, ["W2 conv-bias"]);
        let c = codes_at(
            conv,
            &conv_n(vec![attr_i("group", 2)]),
            17,
            &[x(), t(F32, &["5", "2", "3", "3"]), None],
        );
        assert_eq!(
            c,
            [
                "E2 'n' (Conv) breaks the contract conv-group: group is at least 1 and divides W's \
              output channels (axis 0); here 5 (input 1 'i1' axis 0) is not a multiple of 2"
            ]
        );
        // The integer convolutions: QLinearConv's W is input 3 and its bias input 8.
        let q = node("QLinearConv", 9, 1, vec![]);
        let mut inputs = vec![None; 9];
        inputs[0] = x();
        inputs[3] = t(F32, &["6", "4", "3", "3"]);
        inputs[8] = t(F32, &["7"]);
        assert_eq!(broken(conv, &q, &inputs), ["E2 conv-bias"]);
        let ci = node("ConvInteger", 2, 1, vec![]);
        assert_eq!(
            broken(conv, &ci, &[x(), t(F32, &["6", "3", "3", "3"])]),
            ["E2 conv-channels"]
        );
        // DeformConv and the contrib convolutions are not checked here.
        let d = node("DeformConv", 2, 1, vec![]);
        assert!(broken(conv, &d, &[x(), t(F32, &["6", "3", "3", "3"])]).is_empty());
    }

    #[test]
    fn conv_transpose_contracts() {
        let ct = |attrs| node("ConvTranspose", 3, 1, attrs);
        let x = || t(F32, &["1", "4", "5", "5"]);
        let w = || t(F32, &["4", "3", "3", "3"]);
        assert!(
            broken(
                conv_transpose,
                &ct(vec![attr_i("group", 2)]),
                &[x(), w(), t(F32, &["6"])]
            )
            .is_empty()
        );
        for (attrs, xs, ws, b, want) in [
            (vec![], t(F32, &["1", "4"]), None, None, "E2 conv-rank"),
            (vec![], x(), t(F32, &["4", "3", "3"]), None, "E2 conv-rank"),
            (
                vec![],
                x(),
                t(F32, &["5", "3", "3", "3"]),
                None,
                "E2 conv-transpose-channels",
            ),
            (
                vec![attr_i("group", 2)],
                t(F32, &["1", "5", "5", "5"]),
                t(F32, &["5", "3", "3", "3"]),
                None,
                "E2 conv-transpose-group",
            ),
            (
                vec![attr_i("group", 2)],
                t(F32, &["1", "c", "5", "5"]),
                t(F32, &["5", "3", "3", "3"]),
                None,
                "E2 conv-transpose-group",
            ),
            (
                vec![attr_i("group", 0)],
                x(),
                w(),
                None,
                "E3 conv-transpose-group",
            ),
            (
                vec![attr_ints("kernel_shape", &[3, 2])],
                x(),
                w(),
                None,
                "E2 conv-kernel-shape",
            ),
            (vec![], x(), w(), t(F32, &["4"]), "E2 conv-bias"),
            (
                vec![attr_ints("pads", &[4, 0, 0, 0])],
                t(F32, &["1", "4", "1", "5"]),
                w(),
                None,
                "E2 conv-transpose-output-size",
            ),
        ] {
            let got = broken(conv_transpose, &ct(attrs.clone()), &[xs, ws, b]);
            let got: Vec<&str> = got
                .iter()
                .map(String::as_str)
                .filter(|c| *c != "I002 -")
                .collect();
            assert_eq!(got, [want], "{attrs:?}");
        }
        // An output_shape decides the sizes; a dilated SAME runs in onnxruntime.
        for attrs in [
            vec![
                attr_ints("pads", &[4, 0, 0, 0]),
                attr_ints("output_shape", &[3, 3]),
            ],
            vec![
                attr_s("auto_pad", "SAME_UPPER"),
                attr_ints("dilations", &[2, 2]),
            ],
        ] {
            assert!(
                broken(
                    conv_transpose,
                    &ct(attrs),
                    &[t(F32, &["1", "4", "1", "5"]), w(), None]
                )
                .is_empty()
            );
        }
        let got = broken(
            conv_transpose,
            &ct(vec![attr_i("group", 2)]),
            &[
                t(F32, &["1", "c", "5", "5"]),
                t(F32, &["k", "3", "3", "3"]),
                None,
            ],
        );
        assert_eq!(
            got,
            ["W2 conv-transpose-channels", "W2 conv-transpose-group"]
        );
    }

    #[test]
    fn pool_contracts() {
        let k3 = || vec![attr_ints("kernel_shape", &[3, 3])];
        let with = |mut a: Vec<crate::proto::AttributeProto>,
                    more: Vec<crate::proto::AttributeProto>| {
            a.extend(more);
            a
        };
        for op in ["MaxPool", "AveragePool", "LpPool"] {
            let p = |attrs| pool_node(op, attrs);
            let ok = broken(
                pool,
                &p(with(k3(), vec![attr_ints("pads", &[2, 2, 2, 2])])),
                &[t(F32, &["1", "2", "8", "8"])],
            );
            assert!(ok.is_empty(), "{ok:?}");
            for (attrs, x, want) in [
                (
                    vec![attr_ints("kernel_shape", &[1])],
                    t(F32, &["1", "2"]),
                    "E2 pool-rank",
                ),
                (
                    vec![attr_ints("kernel_shape", &[2, 2, 2, 2])],
                    t(F32, &["1", "2", "3", "3", "3", "3"]),
                    "E2 pool-rank",
                ),
                (
                    vec![attr_ints("kernel_shape", &[3])],
                    t(F32, &["N", "2", "8", "8"]),
                    "E2 pool-kernel-shape",
                ),
                (
                    with(k3(), vec![attr_ints("pads", &[3, 0, 0, 0])]),
                    t(F32, &["1", "2", "8", "8"]),
                    "E2 pool-pads",
                ),
                (
                    with(
                        k3(),
                        vec![
                            attr_ints("pads", &[0, 0, 0, 3]),
                            attr_s("auto_pad", "VALID"),
                        ],
                    ),
                    t(F32, &["1", "2", "8", "8"]),
                    "E2 pool-pads",
                ),
                (k3(), t(F32, &["1", "2", "1", "8"]), "E2 pool-output-size"),
                (
                    vec![attr_ints("kernel_shape", &[5, 3]), attr_i("ceil_mode", 1)],
                    t(F32, &["1", "2", "1", "8"]),
                    "E2 pool-output-size",
                ),
            ] {
                assert_eq!(
                    broken(pool, &p(attrs.clone()), &[x]),
                    [want],
                    "{op} {attrs:?}"
                );
            }
            // Sizes of 0 run (an empty output), as does an overhang of less than a stride; symbolic
            // sizes and SAME never break.
            for (attrs, x) in [
                (k3(), t(F32, &["1", "2", "2", "8"])),
                (
                    with(k3(), vec![attr_ints("strides", &[2, 1])]),
                    t(F32, &["1", "2", "1", "8"]),
                ),
                (k3(), t(F32, &["1", "2", "h", "w"])),
                (
                    with(k3(), vec![attr_s("auto_pad", "SAME_UPPER")]),
                    t(F32, &["1", "2", "1", "1"]),
                ),
            ] {
                let got = broken(pool, &p(attrs.clone()), &[x]);
                assert!(got.is_empty(), "{op} {attrs:?}: {got:?}");
            }
        }
        let g = node("GlobalMaxPool", 1, 1, vec![]);
        assert_eq!(
            broken(global_pool, &g, &[t(F32, &["1", "2"])]),
            ["E2 pool-rank"]
        );
        assert!(broken(global_pool, &g, &[t(F32, &["1", "2", "3"])]).is_empty());
        // The contrib pools that share the rule are not checked here.
        let m = node(
            "MaxpoolWithMask",
            1,
            1,
            vec![attr_ints("kernel_shape", &[3])],
        );
        assert!(broken(pool, &m, &[t(F32, &["1", "2", "8", "8"])]).is_empty());
    }

    fn pool_node(op: &str, attrs: Vec<crate::proto::AttributeProto>) -> crate::proto::NodeProto {
        node(op, 1, 1, attrs)
    }

    #[test]
    fn pooling_floor_ceil_and_global() {
        let n = node(
            "MaxPool",
            1,
            2,
            vec![
                attr_ints("kernel_shape", &[3, 3]),
                attr_ints("strides", &[2, 2]),
            ],
        );
        let out = run(pool, &n, 12, &[t(F32, &["N", "64", "112", "H"])]);
        assert_eq!(text(&out[0].shape), "[N, 64, 55, ceil(H/2)-1]");
        assert_eq!(out[1].shape, out[0].shape, "Indices has Y's shape");
        assert_eq!(out[1].elem, I64);
        let n = pool_node(
            "MaxPool",
            vec![
                attr_ints("kernel_shape", &[3, 3]),
                attr_ints("strides", &[2, 2]),
                attr_i("ceil_mode", 1),
                attr_i("storage_order", 1),
            ],
        );
        // Ceil mode with no end padding never drops a window here: ceil((H-3)/2)+1 = floor(H/2).
        assert_eq!(
            text(&out_shape(
                pool,
                &n,
                12,
                &[t(F32, &["N", "64", "112", "H"])]
            )),
            "[N, 64, 56, floor(H/2)]"
        );
        // ceil mode: 5 + 1 pad, k 2, s 2 gives ceil(4/2)+1 = 3 windows; the third starts at 4, inside
        // the input (pads begin at 0), so it stays.
        let n = pool_node(
            "AveragePool",
            vec![
                attr_ints("kernel_shape", &[2]),
                attr_ints("strides", &[2]),
                attr_ints("pads", &[0, 1]),
                attr_i("ceil_mode", 1),
            ],
        );
        assert_eq!(
            out_shape(pool, &n, 19, &[t(F32, &["1", "1", "5"])]),
            shape(&["1", "1", "3"])
        );
        // The same on 2*h: the last window starts at 2*h, in the end padding, for every h: dropped.
        let two_h = mul(&d("h"), &d("2"));
        let s = out_shape(pool, &n, 19, &[dims(vec![d("1"), d("1"), two_h])]);
        assert_eq!(text(&s), "[1, 1, h]");
        // On h it depends on h's parity: no expression says it.
        assert_eq!(
            out_shape(pool, &n, 19, &[t(F32, &["1", "1", "h"])]),
            shape(&["1", "1", "?"])
        );
        // 4 + pads (1, 2), k 2, s 2: ceil(5/2)+1 = 4, but the 4th window starts at 6 >= 4 + 1.
        let n = pool_node(
            "AveragePool",
            vec![
                attr_ints("kernel_shape", &[2]),
                attr_ints("strides", &[2]),
                attr_ints("pads", &[1, 2]),
                attr_i("ceil_mode", 1),
            ],
        );
        assert_eq!(
            out_shape(pool, &n, 19, &[t(F32, &["1", "1", "4"])]),
            shape(&["1", "1", "3"])
        );
        // An end pad of the whole kernel: the last window always starts in it.
        let n = pool_node(
            "LpPool",
            vec![
                attr_ints("kernel_shape", &[1]),
                attr_ints("strides", &[2]),
                attr_ints("pads", &[0, 1]),
                attr_i("ceil_mode", 1),
            ],
        );
        assert_eq!(
            text(&out_shape(pool, &n, 18, &[t(F32, &["1", "1", "h"])])),
            "[1, 1, ceil(h/2)]"
        );
        // SAME: ceil(in / s), except for a dilated pool, where onnxruntime pads differently.
        let same = |dil: i64| {
            pool_node(
                "MaxPool",
                vec![
                    attr_ints("kernel_shape", &[3]),
                    attr_ints("strides", &[2]),
                    attr_ints("dilations", &[dil]),
                    attr_s("auto_pad", "SAME_UPPER"),
                ],
            )
        };
        assert_eq!(
            text(&out_shape(pool, &same(1), 12, &[t(F32, &["N", "C", "h"])])),
            "[N, C, ceil(h/2)]"
        );
        assert_eq!(
            out_shape(pool, &same(2), 12, &[t(F32, &["N", "C", "9"])]),
            shape(&["N", "C", "?"])
        );
        let g = node("GlobalAveragePool", 1, 1, vec![]);
        assert_eq!(
            out_shape(global_pool, &g, 1, &[t(F32, &["N", "C", "h", "7"])]),
            shape(&["N", "C", "1", "1"])
        );
    }

    #[test]
    fn conv_transpose_sizes() {
        let n = node(
            "ConvTranspose",
            2,
            1,
            vec![
                attr_ints("strides", &[2, 2]),
                attr_ints("pads", &[1, 1, 1, 1]),
                attr_ints("output_padding", &[1, 1]),
            ],
        );
        let s = out_shape(
            conv_transpose,
            &n,
            11,
            &[
                t(F32, &["N", "16", "8", "H"]),
                t(F32, &["16", "4", "3", "3"]),
            ],
        );
        // 2 * (in - 1) + 1 + 3 - 2 = 2 * in.
        assert_eq!(text(&s), "[N, 4, 16, H*2]");
        let n = node(
            "ConvTranspose",
            2,
            1,
            vec![attr_ints("output_shape", &[20, 21]), attr_i("group", 2)],
        );
        let x = t(F32, &["N", "16", "8", "h"]);
        let w = t(F32, &["16", "4", "3", "3"]);
        let s = out_shape(conv_transpose, &n, 11, &[x.clone(), w.clone()]);
        assert_eq!(s, shape(&["N", "8", "20", "21"]));
        // The whole shape is accepted too (its spatial part counts); another length, or a size of 0,
        // says nothing.
        for (given, want) in [
            (&[1, 8, 20, 21][..], "[N, 8, 20, 21]"),
            (&[20, 21, 22], "[N, 8, ?, ?]"),
            (&[0, -5], "[N, 8, ?, ?]"),
        ] {
            let n = node(
                "ConvTranspose",
                2,
                1,
                vec![attr_ints("output_shape", given), attr_i("group", 2)],
            );
            let s = out_shape(conv_transpose, &n, 11, &[x.clone(), w.clone()]);
            assert_eq!(text(&s), want, "{given:?}");
        }
        // Upsampling a ceil(h/4) by 2 with a 2x2 kernel doubles it exactly; with a 3x3 kernel, pad 0,
        // it is one more.
        let ceil4 = Poly::of(&crate::shape::dim::SymExpr::var("h"))
            .ceil_div(4)
            .unwrap()
            .into_size();
        let up = |k: &str, attrs| {
            let n = node("ConvTranspose", 2, 1, attrs);
            let x = dims(vec![d("N"), d("16"), ceil4.clone()]);
            out_shape(conv_transpose, &n, 22, &[x, t(F32, &["16", "4", k])])
        };
        let s2 = || vec![attr_ints("strides", &[2])];
        assert_eq!(text(&up("2", s2())), "[N, 4, ceil(h/4)*2]");
        assert_eq!(text(&up("3", s2())), "[N, 4, ceil(h/4)*2+1]");
        // SAME: in * s when the kernel covers the stride, the unpadded size when it does not.
        let same = || vec![attr_ints("strides", &[2]), attr_s("auto_pad", "SAME_UPPER")];
        assert_eq!(text(&up("3", same())), "[N, 4, ceil(h/4)*2]");
        assert_eq!(text(&up("1", same())), "[N, 4, ceil(h/4)*2-1]");
        let mut with_padding = same();
        with_padding.push(attr_ints("output_padding", &[1]));
        assert_eq!(text(&up("3", with_padding)), "[N, 4, ceil(h/4)*2]");
        // Pads larger than the output: no size; hostile values: no size, no panic.
        for bad in [
            vec![attr_ints("pads", &[9, 9])],
            vec![attr_ints("output_padding", &[i64::MAX])],
            vec![attr_ints("output_padding", &[-1])],
            vec![attr_ints("strides", &[i64::MAX])],
            vec![attr_ints("dilations", &[i64::MAX])],
            vec![attr_ints("pads", &[i64::MAX, i64::MAX])],
        ] {
            let n = node("ConvTranspose", 2, 1, bad.clone());
            let x = t(F32, &["N", "16", "3"]);
            let s = out_shape(conv_transpose, &n, 22, &[x, t(F32, &["16", "4", "3"])]);
            assert_eq!(text(&s), "[N, 4, ?]", "{bad:?}");
        }
    }

    #[test]
    fn max_unpool_inverts_the_window() {
        let n = node(
            "MaxUnpool",
            2,
            1,
            vec![
                attr_ints("kernel_shape", &[2, 2]),
                attr_ints("strides", &[2, 2]),
            ],
        );
        let s = out_shape(max_unpool, &n, 11, &[t(F32, &["1", "1", "2", "h"]), None]);
        assert_eq!(text(&s), "[1, 1, 4, h*2]");
        let n = node("MaxUnpool", 3, 1, vec![attr_ints("kernel_shape", &[2, 2])]);
        let s = out_shape(
            max_unpool,
            &n,
            11,
            &[t(F32, &["1", "1", "2", "2"]), None, ints(&[1, 1, 5, 5])],
        );
        assert_eq!(s, shape(&["1", "1", "5", "5"]));
    }

    #[test]
    fn max_roi_pool_takes_rois_channels_and_pooled_shape() {
        let n = node("MaxRoiPool", 2, 1, vec![attr_ints("pooled_shape", &[7, 6])]);
        let inputs = [t(F32, &["N", "C", "H", "W"]), t(F32, &["R", "5"])];
        assert_eq!(
            out_shape(max_roi_pool, &n, 1, &inputs),
            shape(&["R", "C", "7", "6"])
        );
        let n = node("MaxRoiPool", 2, 1, vec![attr_ints("pooled_shape", &[0, 6])]);
        assert_eq!(
            out_shape(max_roi_pool, &n, 1, &[None, None]),
            shape(&["?", "?", "?", "?"])
        );
    }

    /// onnxruntime's output size of one axis of a convolution or pool, written out as it computes it
    /// (C++ integer division, pads as it derives them), or `None` where it refuses the model.
    #[allow(clippy::too_many_arguments)]
    fn ort_forward(
        x: i64,
        k: i64,
        s: i64,
        d: i64,
        pads: (i64, i64),
        ceil: bool,
        auto: AutoPad,
    ) -> Option<i64> {
        let ek = (k - 1) * d + 1;
        let (pb, pe) = match auto {
            AutoPad::NotSet => pads,
            AutoPad::Valid => (0, 0),
            AutoPad::Same => {
                let target = (x + s - 1) / s;
                let needed = (target - 1) * s + ek - x;
                (needed / 2, needed - needed / 2)
            }
        };
        let span = x + pb + pe - ek;
        let mut out = if ceil {
            (span + s - 1).div_euclid(s) + 1
        } else {
            span / s + 1
        };
        if ceil && (out - 1) * s >= x + pb {
            out -= 1;
        }
        (out > 0).then_some(out)
    }

    /// onnxruntime's output size of one axis of a transposed convolution.
    fn ort_transposed(
        x: i64,
        k: i64,
        s: i64,
        d: i64,
        pads: (i64, i64),
        op: i64,
        auto: AutoPad,
    ) -> Option<i64> {
        let unpadded = (x - 1) * s + op + (k - 1) * d + 1;
        let out = match auto {
            AutoPad::NotSet => unpadded - pads.0 - pads.1,
            AutoPad::Valid => unpadded,
            AutoPad::Same if unpadded >= x * s => x * s,
            AutoPad::Same => unpadded,
        };
        (out > 0).then_some(out)
    }

    /// The value of a size at `h`.
    fn at(size: &Dim, h: i64) -> Option<i64> {
        match size {
            Dim::Known(v) => i64::try_from(*v).ok(),
            Dim::Sym(e) => e.eval(&|n| (n == "h").then_some(h)),
            Dim::Unknown => None,
        }
    }

    /// Input sizes as expressions of `h`: plain, even, a strided size, an offset.
    fn inputs() -> Vec<Dim> {
        let h = Poly::of(&crate::shape::dim::SymExpr::var("h"));
        vec![
            h.clone().into_size(),
            h.mul(&Poly::constant(2)).unwrap().into_size(),
            h.ceil_div(2).unwrap().into_size(),
            h.add(&Poly::constant(3)).unwrap().into_size(),
        ]
    }

    fn win(
        k: i64,
        s: i64,
        d: i64,
        pads: (i64, i64),
        ceil: bool,
        auto: AutoPad,
        family: Family,
    ) -> Window {
        Window {
            kernel: vec![k],
            strides: vec![s],
            dilations: vec![d],
            pads: if auto == AutoPad::NotSet {
                vec![pads.0, pads.1]
            } else {
                vec![0, 0]
            },
            auto_pad: auto,
            ceil,
            family,
        }
    }

    /// Every symbolic window size, evaluated at h = 0..48, against onnxruntime's integer arithmetic on
    /// the input's value, wherever the window fits; the same formula on known sizes gives the same
    /// numbers, and unknown only where the window does not fit or onnxruntime refuses.
    #[test]
    fn symbolic_window_sizes_match_integer_arithmetic_at_every_value() {
        let (mut checked, mut symbolic, mut undecided) = (0, 0, 0);
        for (k, s, d) in itertools_product() {
            for pads in [(0, 0), (0, 1), (1, 0), (1, 1), (2, 1), (3, 3), (0, 4)] {
                for auto in [AutoPad::NotSet, AutoPad::Valid, AutoPad::Same] {
                    for (ceil, family) in [
                        (false, Family::Conv),
                        (false, Family::Pool),
                        (true, Family::Pool),
                    ] {
                        if auto != AutoPad::NotSet && pads != (0, 0) {
                            continue;
                        }
                        let w = win(k, s, d, pads, ceil, auto, family);
                        let ek = (k - 1) * d + 1;
                        let same_dilated = auto == AutoPad::Same && d != 1;
                        for input in inputs() {
                            let out = w.forward(0, &input);
                            match out {
                                Dim::Unknown if same_dilated && family == Family::Pool => {}
                                Dim::Unknown => {
                                    assert!(
                                        ceil,
                                        "only a ceil-mode drop may be undecided: k{k} s{s} d{d} {pads:?} {auto:?} on {input}"
                                    );
                                    undecided += 1;
                                }
                                Dim::Sym(_) => symbolic += 1,
                                Dim::Known(_) => {}
                            }
                            for h in 0..48 {
                                let x = at(&input, h).unwrap();
                                let (pb, pe) = if auto == AutoPad::NotSet {
                                    pads
                                } else {
                                    (0, 0)
                                };
                                let fits = x + pb + pe >= ek;
                                let want = if auto == AutoPad::Same && d != 1 {
                                    // onnxruntime refuses a dilated SAME convolution; the spec says
                                    // ceil(x / s).
                                    Some((x + s - 1) / s)
                                        .filter(|&v| v > 0 && family == Family::Conv)
                                } else {
                                    ort_forward(x, k, s, d, pads, ceil, auto)
                                };
                                let known = w.forward(0, &Dim::Known(x as u64));
                                if auto == AutoPad::Same || fits {
                                    assert_eq!(
                                        at(&known, 0),
                                        want,
                                        "known {x}: k{k} s{s} d{d} {pads:?} {auto:?} ceil {ceil}"
                                    );
                                    if !matches!(out, Dim::Unknown) && want.is_some() {
                                        assert_eq!(
                                            at(&out, h),
                                            want,
                                            "{out} at h={h}: k{k} s{s} d{d} {pads:?} {auto:?} ceil {ceil}"
                                        );
                                        checked += 1;
                                    }
                                } else {
                                    assert_eq!(
                                        known,
                                        Dim::Unknown,
                                        "{x} does not fit k{k} d{d} {pads:?}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 50_000, "{checked} values checked");
        assert!(symbolic > 1000, "{symbolic} symbolic sizes");
        assert!(
            undecided > 0 && undecided < symbolic / 4,
            "{undecided} undecided"
        );
    }

    fn itertools_product() -> Vec<(i64, i64, i64)> {
        let mut out = Vec::new();
        for k in 1..=4 {
            for s in 1..=4 {
                for d in 1..=2 {
                    out.push((k, s, d));
                }
            }
        }
        out
    }

    #[test]
    fn symbolic_transposed_sizes_match_integer_arithmetic_at_every_value() {
        let mut checked = 0;
        for (k, s, d) in itertools_product() {
            for pads in [(0, 0), (0, 1), (1, 1), (2, 3)] {
                for op in 0..3 {
                    for auto in [AutoPad::NotSet, AutoPad::Valid, AutoPad::Same] {
                        if auto != AutoPad::NotSet && pads != (0, 0) {
                            continue;
                        }
                        let w = win(k, s, d, pads, false, auto, Family::Conv);
                        for input in inputs() {
                            let out = w.transposed(0, &input, op);
                            assert_ne!(
                                out,
                                Dim::Unknown,
                                "k{k} s{s} d{d} {pads:?} op{op} {auto:?} on {input}"
                            );
                            for h in 0..48 {
                                let x = at(&input, h).unwrap();
                                let want = ort_transposed(x, k, s, d, pads, op, auto);
                                let known = w.transposed(0, &Dim::Known(x as u64), op);
                                assert_eq!(
                                    at(&known, 0),
                                    want,
                                    "known {x}: k{k} s{s} d{d} {pads:?} op{op} {auto:?}"
                                );
                                if want.is_some() {
                                    assert_eq!(
                                        at(&out, h),
                                        want,
                                        "{out} at h={h}: k{k} s{s} d{d} {pads:?} op{op} {auto:?}"
                                    );
                                    checked += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 20_000, "{checked} values checked");
    }
}
