//! Convolutions and pooling: the spatial output sizes from `kernel_shape`, `strides`, `dilations`,
//! `pads`, `auto_pad` and `ceil_mode`.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#Conv>, `#ConvTranspose`, `#MaxPool`,
//! `#AveragePool`, `#LpPool`, `#GlobalAveragePool`, `#GlobalMaxPool`, `#GlobalLpPool`, `#MaxUnpool`,
//! `#ConvInteger`, `#QLinearConv`, `#DeformConv`. Opset history:
//! - Conv, ConvTranspose: 1, 11 (`kernel_shape` may be omitted and read from W; pads default 0), 22.
//! - MaxPool: 8 adds the `Indices` output; 10 adds `dilations` and `ceil_mode`; 11, 12, 22.
//! - AveragePool: 7 `count_include_pad`; 10 `ceil_mode`; 19 `dilations`. LpPool: 18 adds both.
//! - MaxUnpool: 9, 11, 22. DeformConv: 19, 22. ConvInteger, QLinearConv: 10.
//!
//! Per spatial axis, with `ek = (k - 1) * d + 1` (the dilated kernel):
//! - explicit pads: `floor((in + pb + pe - ek) / s) + 1`, or `ceil(...)` + 1 with `ceil_mode`, where a
//!   last window that would start in the end padding is dropped (as the spec and PyTorch say);
//! - VALID: pads are 0 (ceil and floor agree there); SAME_UPPER/SAME_LOWER: `ceil(in / s)`;
//! - ConvTranspose: `s * (in - 1) + output_padding + ek - pb - pe`, `in * s` for SAME (unknown where
//!   that would need negative padding: onnxruntime then gives the unpadded size), or the
//!   `output_shape` attribute.
//!
//! A symbolic input size survives only where the output equals it (stride 1 and padding that exactly
//! offsets the kernel, as in a 3x3 convolution with pads 1); anything else is unknown.

use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use super::common::{add_offset, mul, size_of_value, unknown_dims};
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AutoPad {
    NotSet,
    Valid,
    Same,
}

/// The sliding-window attributes of one node, for `n` spatial axes. A list of the wrong length or a
/// non-positive kernel, stride or dilation leaves the window unknown (`None`).
#[derive(Debug)]
struct Window {
    kernel: Vec<i64>,
    strides: Vec<i64>,
    dilations: Vec<i64>,
    /// Begin pads then end pads, `2n` of them.
    pads: Vec<i64>,
    auto_pad: AutoPad,
    ceil: bool,
}

/// An optional list attribute of `n` positive values, 1 each by default.
fn positive_list(ctx: &NodeCtx<'_>, name: &str, n: usize) -> Option<Vec<i64>> {
    match ctx.attr_ints(name) {
        None => Some(vec![1; n]),
        Some(v) if v.len() == n && v.iter().all(|&x| x > 0) => Some(v.to_vec()),
        Some(_) => None,
    }
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
fn window(ctx: &NodeCtx<'_>, n: usize, kernel: Option<Vec<i64>>) -> Option<Window> {
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
        ceil: ctx.attr_i("ceil_mode").unwrap_or(0) != 0,
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

impl Window {
    /// The output size of spatial axis `i` of a convolution or pooling over `input`.
    fn forward(&self, i: usize, input: &Dim) -> Dim {
        let n = self.kernel.len();
        let (k, s, d) = (self.kernel[i], self.strides[i], self.dilations[i]);
        let (pb, pe) = match self.auto_pad {
            AutoPad::NotSet => (self.pads[i], self.pads[i + n]),
            _ => (0, 0),
        };
        let ek = i128::from(k - 1) * i128::from(d) + 1;
        let Dim::Known(x) = input else {
            // Only with stride 1 can the result be the input plus a constant (0 to keep a symbol).
            return match self.auto_pad {
                _ if s != 1 => Dim::Unknown,
                AutoPad::Same => input.clone(),
                _ => offset_dim(input, i128::from(pb) + i128::from(pe) - ek + 1),
            };
        };
        let (x, s) = (i128::from(*x), i128::from(s));
        let out = match self.auto_pad {
            AutoPad::Same => (x + s - 1) / s,
            _ => {
                let span = x + i128::from(pb) + i128::from(pe) - ek;
                if span < 0 {
                    return Dim::Unknown; // the kernel does not fit: invalid
                }
                if self.ceil && self.auto_pad == AutoPad::NotSet {
                    let o = (span + s - 1) / s + 1;
                    // A last window starting in the end padding is dropped.
                    if (o - 1) * s >= x + i128::from(pb) {
                        o - 1
                    } else {
                        o
                    }
                } else {
                    span / s + 1
                }
            }
        };
        to_dim(out)
    }

    /// The output size of spatial axis `i` of a transposed convolution over `input`.
    fn transposed(&self, i: usize, input: &Dim, output_padding: i64) -> Dim {
        let n = self.kernel.len();
        let (k, s, d) = (self.kernel[i], self.strides[i], self.dilations[i]);
        let (pb, pe) = match self.auto_pad {
            AutoPad::NotSet => (self.pads[i], self.pads[i + n]),
            _ => (0, 0),
        };
        let ek = i128::from(k - 1) * i128::from(d) + 1;
        let extra = i128::from(output_padding) + ek - i128::from(pb) - i128::from(pe);
        match (input, self.auto_pad) {
            // SAME pads so that the output is `in * s`; it cannot when that would take negative
            // padding (`output_padding + ek < s`), where runtimes give the unpadded size instead.
            (Dim::Known(x), AutoPad::Same) => {
                let unpadded = unpadded_transposed(*x, s, extra);
                let same = i128::from(s) * i128::from(*x);
                match unpadded {
                    Some(u) if u >= same => to_dim(same),
                    _ => Dim::Unknown,
                }
            }
            (_, AutoPad::Same) if s == 1 => input.clone(),
            (Dim::Known(x), _) => {
                unpadded_transposed(*x, s, extra).map_or(Dim::Unknown, |v| positive(to_dim(v)))
            }
            (_, _) if s == 1 => offset_dim(input, extra - 1),
            _ => Dim::Unknown,
        }
    }
}

/// `s * (x - 1) + extra`, unless it overflows.
fn unpadded_transposed(x: u64, s: i64, extra: i128) -> Option<i128> {
    i128::from(s)
        .checked_mul(i128::from(x) - 1)?
        .checked_add(extra)
}

/// A computed size: known when it fits, unknown when negative or too large.
fn to_dim(v: i128) -> Dim {
    u64::try_from(v).map_or(Dim::Unknown, Dim::Known)
}

fn offset_dim(d: &Dim, delta: i128) -> Dim {
    i64::try_from(delta).map_or(Dim::Unknown, |delta| add_offset(d, delta))
}

/// An output size of 0 from a window formula means the window did not fit: nothing is known.
fn positive(d: Dim) -> Dim {
    if d == Dim::Known(0) { Dim::Unknown } else { d }
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

fn conv(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let (xs, ws, elem) = conv_slots(ctx);
    let (x, w) = (ctx.shape(xs), ctx.shape(ws));
    let Some(rank) = conv_rank(ctx, &x, &w) else {
        return vec![ValueInfo::tensor(elem, None)];
    };
    let n = rank - 2;
    let win = window(ctx, n, kernel_from_weight(&w));
    let mut out = vec![dim_at(&x, 0), dim_at(&w, 0)];
    for i in 0..n {
        out.push(match &win {
            Some(win) => positive(win.forward(i, &dim_at(&x, i + 2))),
            None => Dim::Unknown,
        });
    }
    vec![ValueInfo::tensor(elem, Some(out))]
}

fn conv_transpose(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
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
        // The attribute may list the spatial sizes only or the whole shape: its last n are spatial.
        let tail = explicit.len().checked_sub(n).map(|k| &explicit[k..]);
        match tail {
            Some(t) => out.extend(t.iter().map(|&v| size_of_value(&Dim::Known(v as u64)))),
            None => out.extend(std::iter::repeat_n(Dim::Unknown, n)),
        }
        return vec![ValueInfo::tensor(elem, Some(out))];
    }
    let win = window(ctx, n, kernel_from_weight(&w));
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

/// MaxPool, AveragePool, LpPool: `[N, C, spatial...]`; MaxPool's `Indices` has the same shape.
fn pool(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let x = ctx.shape(0);
    let shape = x.as_ref().filter(|s| s.len() >= 2).map(|dims| {
        let n = dims.len() - 2;
        let win = window(ctx, n, None);
        let mut out = dims[..2].to_vec();
        for i in 0..n {
            out.push(match &win {
                Some(win) => positive(win.forward(i, &dims[i + 2])),
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
        let win = window(ctx, n, None);
        let mut out = dims[..2].to_vec();
        for i in 0..n {
            out.push(match &win {
                // Unpooling is a transposed window with unit dilation and no output padding.
                Some(win) if win.auto_pad == AutoPad::NotSet => win.transposed(i, &dims[i + 2], 0),
                _ => Dim::Unknown,
            });
        }
        out
    });
    vec![ValueInfo::tensor(elem, shape)]
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    fn conv2d(attrs: Vec<crate::proto::AttributeProto>, x: &[&str], w: &[&str]) -> Shape {
        let n = node("Conv", 2, 1, attrs);
        out_shape(conv, &n, 22, &[t(F32, x), t(F32, w)])
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
        // A 3x3 convolution with pads 1 and stride 1 keeps symbolic sizes.
        let a = vec![attr_ints("pads", &[1, 1, 1, 1])];
        let s = conv2d(a, &["N", "3", "H", "W"], &["8", "3", "3", "3"]);
        assert_eq!(s, shape(&["N", "8", "H", "W"]));
        let s = conv2d(vec![], &["N", "3", "H", "W"], &["8", "3", "3", "3"]);
        assert_eq!(s, shape(&["N", "8", "?", "?"]));
    }

    #[test]
    fn conv_auto_pad_and_malformed_attributes() {
        let a = vec![
            attr_s("auto_pad", "SAME_UPPER"),
            attr_ints("strides", &[2, 2]),
        ];
        let s = conv2d(a, &["1", "3", "7", "H"], &["8", "3", "3", "3"]);
        assert_eq!(s, shape(&["1", "8", "4", "?"]));
        let a = vec![attr_s("auto_pad", "VALID")];
        let s = conv2d(a, &["1", "3", "7", "2"], &["8", "3", "3", "3"]);
        assert_eq!(s, shape(&["1", "8", "5", "?"]));
        for bad in [
            attr_ints("strides", &[0, 1]),
            attr_ints("pads", &[1, 1]),
            attr_ints("dilations", &[i64::MAX, 1]),
            attr_ints("kernel_shape", &[-3, 3]),
            attr_s("auto_pad", "WHATEVER"),
        ] {
            let s = conv2d(vec![bad], &["1", "3", "7", "7"], &["8", "3", "3", "3"]);
            assert_eq!(s.as_ref().map(Vec::len), Some(4));
            assert_eq!(s.as_ref().map(|v| v[1].clone()), Some(d("8")));
        }
        assert_eq!(conv2d(vec![], &["?"], &[]), None);
        let n = node("Conv", 2, 1, vec![attr_ints("kernel_shape", &[3])]);
        assert_eq!(
            out_shape(conv, &n, 22, &[None, None]),
            shape(&["?", "?", "?"])
        );
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
        let out = run(pool, &n, 12, &[t(F32, &["N", "64", "112", "112"])]);
        assert_eq!(out[0].shape, shape(&["N", "64", "55", "55"]));
        assert_eq!(out[1].elem, I64);
        let n = node(
            "MaxPool",
            1,
            1,
            vec![
                attr_ints("kernel_shape", &[3, 3]),
                attr_ints("strides", &[2, 2]),
                attr_i("ceil_mode", 1),
            ],
        );
        assert_eq!(
            out_shape(pool, &n, 12, &[t(F32, &["N", "64", "112", "6"])]),
            shape(&["N", "64", "56", "3"])
        );
        // ceil mode: 5 + 1 pad, k 2, s 2 gives ceil(4/2)+1 = 3 windows; the third starts at 4, inside
        // the input (pads begin at 0), so it stays.
        let n = node(
            "AveragePool",
            1,
            1,
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
        // 4 + pads (1, 2), k 2, s 2: ceil(5/2)+1 = 4, but the 4th window starts at 6 >= 4 + 1.
        let n = node(
            "AveragePool",
            1,
            1,
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
        let g = node("GlobalAveragePool", 1, 1, vec![]);
        assert_eq!(
            out_shape(global_pool, &g, 1, &[t(F32, &["N", "C", "7", "7"])]),
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
        assert_eq!(s, shape(&["N", "4", "16", "?"]));
        let n = node(
            "ConvTranspose",
            2,
            1,
            vec![attr_ints("output_shape", &[20, 21]), attr_i("group", 2)],
        );
        let s = out_shape(
            conv_transpose,
            &n,
            11,
            &[
                t(F32, &["N", "16", "8", "8"]),
                t(F32, &["16", "4", "3", "3"]),
            ],
        );
        assert_eq!(s, shape(&["N", "8", "20", "21"]));
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
        let s = out_shape(max_unpool, &n, 11, &[t(F32, &["1", "1", "2", "2"]), None]);
        assert_eq!(s, shape(&["1", "1", "4", "4"]));
        let n = node("MaxUnpool", 3, 1, vec![attr_ints("kernel_shape", &[2, 2])]);
        let s = out_shape(
            max_unpool,
            &n,
            11,
            &[t(F32, &["1", "1", "2", "2"]), None, ints(&[1, 1, 5, 5])],
        );
        assert_eq!(s, shape(&["1", "1", "5", "5"]));
    }
}
