//! The inputs `expand` leaves implicit on purpose, each table with its reasons in one place:
//!
//! - [`KERNEL_EXCEPTIONS`]: inputs onnxruntime computes with other code once they are explicit, so
//!   that the output's last bits change (found by `tools/kernel_survey.py`, see
//!   docs/expand-exactness.md); `Options::force_explicit` makes them explicit anyway.
//! - [`REQUIRED_SMALLER`]: inputs of onnxruntime's contrib operators that the operator requires
//!   smaller than the output (a 1-D bias): an Expand would make the model invalid, so they always
//!   stay implicit.

use super::same_shape;
use crate::proto::tensor_proto::DataType;
use crate::shape::dim::{Dim, Shape};

/// Inputs of onnxruntime's contrib operators that the operator's definition requires smaller than the
/// output (a 1-D bias, a normalization's scale): an Expand would make the model invalid, so `expand`
/// leaves them implicit and lists them with the reason. (op_type, slots, reason.)
pub const REQUIRED_SMALLER: &[(&str, &[usize], &str)] = &[
    (
        "BiasGelu",
        &[1],
        "onnxruntime's BiasGelu requires a 1-D bias of the last axis; an expanded one is refused",
    ),
    (
        "FastGelu",
        &[1],
        "onnxruntime's FastGelu requires a 1-D bias of the last axis; an expanded one is refused",
    ),
    (
        "BiasSplitGelu",
        &[1],
        "onnxruntime's BiasSplitGelu requires a 1-D bias of the last axis",
    ),
    (
        "BiasAdd",
        &[1],
        "onnxruntime's BiasAdd requires a 1-D bias of the channels",
    ),
    (
        "SkipLayerNormalization",
        &[2, 3, 4],
        "onnxruntime's SkipLayerNormalization requires gamma, beta and bias 1-D of the hidden size",
    ),
    (
        "SkipSimplifiedLayerNormalization",
        &[2, 3],
        "onnxruntime's SkipSimplifiedLayerNormalization requires gamma and bias 1-D of the hidden size",
    ),
    (
        "GemmFastGelu",
        &[2],
        "onnxruntime's GemmFastGelu requires a 1-D bias of the product's last axis",
    ),
    (
        "MatMulIntegerToFloat",
        &[6],
        "onnxruntime's MatMulIntegerToFloat requires a bias with as many elements as B's last axis",
    ),
    (
        "DynamicQuantizeMatMul",
        &[4],
        "onnxruntime's DynamicQuantizeMatMul requires a bias with as many elements as B's last axis",
    ),
    (
        "MatMulNBits",
        &[5],
        "onnxruntime's MatMulNBits requires a bias of shape [N]",
    ),
];

/// What a [`KernelException`] looks at: one input the pass would make explicit, and its node.
pub struct Site<'s> {
    /// The input's slot.
    pub slot: usize,
    /// `TensorProto.DataType` of the node's input 0, when known.
    pub elem: Option<i32>,
    /// The shapes of all the node's inputs (unknown for an omitted one).
    pub inputs: &'s [Shape],
    /// The shape the input would be expanded to.
    pub target: &'s Shape,
}

/// An input `expand` leaves implicit by default, because onnxruntime computes the node with other
/// code once that input is explicit and the output's bits change. Each entry is what
/// `tools/kernel_survey.py` found with onnxruntime 1.31.1 (CPU, `ORT_DISABLE_ALL`); the table of
/// docs/expand-exactness.md gives the data. Only differences in value or in the sign of a zero make an
/// entry: where only the payload of a NaN computed from two NaNs differs (Add, Mul, Sum, Mean), inputs
/// are made explicit, and docs/usage.md says so.
pub struct KernelException {
    /// The operator (default domain).
    pub op_type: &'static str,
    /// Whether the exception applies to this input.
    pub applies: fn(&Site) -> bool,
    /// Why, as printed on `expand`'s `left implicit` lines and in B001's info.
    pub reason: &'static str,
}

/// Every kernel exception, in one place.
pub const KERNEL_EXCEPTIONS: &[KernelException] = &[
    KernelException {
        op_type: "Pow",
        applies: pow_exponent_on_scalar_path,
        reason: "onnxruntime computes an exponent broadcast along the last axis differently (its Pow \
                 special-cases exponents 2 and 3 as multiplications: last bit of float and double, \
                 overflow of int32 and int64)",
    },
    KernelException {
        op_type: "Max",
        applies: max_min_operand_order,
        reason: "onnxruntime's floating-point Max returns +0 or -0 (and one NaN or another) by operand \
                 order, which its broadcast loops and its element-wise loop do not share",
    },
    KernelException {
        op_type: "Min",
        applies: max_min_operand_order,
        reason: "onnxruntime's floating-point Min returns +0 or -0 (and one NaN or another) by operand \
                 order, which its broadcast loops and its element-wise loop do not share",
    },
    KernelException {
        op_type: "LayerNormalization",
        applies: always,
        reason: "onnxruntime's LayerNormalization computes a scale or bias smaller than X.shape[axis:] \
                 with another kernel than one of exactly that shape (last bits differ)",
    },
    KernelException {
        op_type: "RMSNormalization",
        applies: rms_float,
        reason: "onnxruntime's RMSNormalization computes a float scale smaller than X.shape[axis:] \
                 with other code than one of exactly that shape (last bits differ)",
    },
];

/// The kernel exception that applies to input `site.slot` of an `op_type` node, if any.
pub fn kernel_exception(op_type: &str, site: &Site) -> Option<&'static KernelException> {
    KERNEL_EXCEPTIONS
        .iter()
        .find(|e| e.op_type == op_type && (e.applies)(site))
}

/// True when the element type is unknown or one of `types`.
fn elem_in(elem: Option<i32>, types: &[DataType]) -> bool {
    elem.is_none_or(|t| types.iter().any(|d| *d as i32 == t))
}

/// Pow's exponent (input 1) broadcast along the innermost axis that is not 1: onnxruntime then reads
/// it as one value per run of the output and takes its scalar-exponent path, where 2 and 3 are
/// multiplications, instead of `pow` element by element. The survey found no difference for an
/// exponent that spans the last axis (`[C]`, or only leading axes missing), so those are expanded.
/// Bases of float and double differ in the last bit, int32 and int64 on overflow; float16 only in
/// NaN payloads, so it is expanded.
fn pow_exponent_on_scalar_path(site: &Site) -> bool {
    site.slot == 1
        && elem_in(
            site.elem,
            &[
                DataType::Float,
                DataType::Double,
                DataType::Int32,
                DataType::Int64,
            ],
        )
        && broadcast_on_innermost_axis(site.inputs.get(1).unwrap_or(&None), site.target)
}

/// Floating-point Max/Min whose input 0 is broadcast, or with three or more inputs: there the survey
/// found +0 against -0 (and NaN payloads). With two inputs and only input 1 broadcast it found no
/// difference, so that common form (`Max(x, 0.0)`) is expanded. Every broadcast input of such a node
/// stays implicit, as the survey compared the node fully implicit with fully explicit. bfloat16 could
/// not be surveyed (numpy cannot feed it) and is taken as the other floating-point types.
fn max_min_operand_order(site: &Site) -> bool {
    let first = site.inputs.first().unwrap_or(&None);
    elem_in(
        site.elem,
        &[
            DataType::Float,
            DataType::Double,
            DataType::Float16,
            DataType::Bfloat16,
        ],
    ) && (site.inputs.len() > 2 || !same_shape(first, site.target))
}

/// LayerNormalization's scale or bias smaller than `X.shape[axis:]` (the pass asks only about those):
/// values differ for float, double and float16 alike.
fn always(_: &Site) -> bool {
    true
}

/// RMSNormalization's scale smaller than `X.shape[axis:]`, for a float X: the survey found values
/// differing for float only (double identical, float16 only NaN payloads).
fn rms_float(site: &Site) -> bool {
    elem_in(site.elem, &[DataType::Float])
}

/// True when `input` is (or may be) broadcast along the innermost axis of `target` whose size is
/// not 1: walking from the last axis, axes of size 1 in the target are skipped (onnxruntime's
/// broadcaster drops them), and the first other axis decides. Unknown ranks and sizes answer true
/// (the exception then applies); an axis where both sizes are the same symbol could be 1 at run time,
/// so the next one decides too.
fn broadcast_on_innermost_axis(input: &Shape, target: &Shape) -> bool {
    let (Some(i), Some(t)) = (input, target) else {
        return true;
    };
    let one = Dim::Known(1);
    for k in 1..=t.len() {
        let to = &t[t.len() - k];
        let from = if k <= i.len() { &i[i.len() - k] } else { &one };
        match (from, to) {
            (_, Dim::Known(1)) => continue,
            (Dim::Known(1), _) => return true,
            (Dim::Known(a), Dim::Known(b)) if a == b => return false,
            (Dim::Sym(a), Dim::Sym(b)) if a == b => continue,
            _ => return true,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(dims: &[&str]) -> Shape {
        Some(
            dims.iter()
                .map(|d| match d.parse::<u64>() {
                    Ok(n) => Dim::Known(n),
                    Err(_) if *d == "?" => Dim::Unknown,
                    Err(_) => Dim::sym(*d),
                })
                .collect(),
        )
    }

    #[test]
    fn innermost_axis_broadcast_follows_the_survey_shapes() {
        let x = shape(&["2", "3", "4", "17"]);
        // scalar, one element, per channel, crossed: read one value per run of the output
        for e in [&[][..], &["1"], &["3", "1", "1"], &["4", "1"]] {
            assert!(broadcast_on_innermost_axis(&shape(e), &x), "{e:?}");
        }
        // per last axis, leading axes only: the exponent spans the last axis
        for e in [&["17"][..], &["3", "4", "17"]] {
            assert!(!broadcast_on_innermost_axis(&shape(e), &x), "{e:?}");
        }
    }

    #[test]
    fn innermost_axis_skips_ones_of_the_target_and_doubts_the_unknown() {
        // The target's trailing 1 is no run: the axis before it decides.
        assert!(!broadcast_on_innermost_axis(
            &shape(&["3", "1"]),
            &shape(&["2", "3", "1"])
        ));
        assert!(broadcast_on_innermost_axis(
            &shape(&["1", "1"]),
            &shape(&["5", "1"])
        ));
        // A one-element output has no run to broadcast along.
        assert!(!broadcast_on_innermost_axis(
            &shape(&[]),
            &shape(&["1", "1"])
        ));
        // The same symbol on the last axis may be 1 at run time: the next axis decides.
        assert!(broadcast_on_innermost_axis(
            &shape(&["1", "n"]),
            &shape(&["4", "n"])
        ));
        assert!(!broadcast_on_innermost_axis(
            &shape(&["4", "n"]),
            &shape(&["2", "4", "n"])
        ));
        // Unknown sizes, ranks, or another symbol: maybe broadcast.
        assert!(broadcast_on_innermost_axis(
            &shape(&["?"]),
            &shape(&["2", "4"])
        ));
        assert!(broadcast_on_innermost_axis(&None, &shape(&["2", "4"])));
        assert!(broadcast_on_innermost_axis(
            &shape(&["m"]),
            &shape(&["2", "n"])
        ));
    }

    #[test]
    fn kernel_exceptions_are_one_per_op_and_each_says_why_in_one_line() {
        let mut ops: Vec<&str> = KERNEL_EXCEPTIONS.iter().map(|e| e.op_type).collect();
        ops.sort_unstable();
        ops.dedup();
        assert_eq!(ops.len(), KERNEL_EXCEPTIONS.len());
        for e in KERNEL_EXCEPTIONS {
            // The reason is printed after "left implicit: ...:", one line, no doubled spaces from
            // the source's line continuations.
            assert!(e.reason.starts_with("onnxruntime"), "{}", e.reason);
            assert!(
                !e.reason.contains("  ") && !e.reason.contains('\n'),
                "{}",
                e.reason
            );
        }
    }
}
