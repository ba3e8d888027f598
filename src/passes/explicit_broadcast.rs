//! The explicit-broadcast pass: every input that a broadcasting node would broadcast implicitly gets
//! an `Expand` to the node's output shape, so that each such node sees inputs of exactly one shape. The
//! values are copied, never computed (the spec's "numerical accuracy: values strictly equal"), so the
//! rewritten model computes the same values; onnxruntime computes the same bits too, once the kernel
//! exceptions below are left implicit.
//!
//! Which inputs: all inputs of multidirectional ops (Add ... Where, Sum/Max/Min/Mean, StringConcat...),
//! Gemm's C, PRelu's slope, LayerNormalization's scale and bias, RMSNormalization's scale; except, by
//! default, the inputs of [`KERNEL_EXCEPTIONS`], for which onnxruntime runs other code once they are
//! explicit and the output's last bits change (found by `tools/kernel_survey.py`, see
//! docs/expand-exactness.md); `Options::force_explicit` makes those explicit too. The target
//! shape is an int64 initializer (one per distinct static shape and graph; a Constant node in function
//! bodies, which cannot hold initializers) or, when the output shape has symbolic dims, computed at run
//! time from `Shape` of the other inputs, so dynamic models stay dynamic: a symbol is never baked into
//! a number.

use super::{GraphPatch, Names, Patch};
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{Graph, Model, OpNode, ValueId, opset_domain};
use crate::proto::attribute_proto::AttributeType;
use crate::proto::tensor_proto::DataType;
use crate::proto::{AttributeProto, NodeProto, TensorProto, ValueInfoProto};
use crate::shape::dim::{Dim, Shape, format_shape};
use crate::shape::infer::GraphShapes;
use crate::shape::value::ValueInfo;
use std::collections::HashMap;

/// Options of the pass.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Leave scalars and one-element tensors implicit (they are made explicit by default).
    pub keep_scalars: bool,
    /// Make explicit also the inputs a [`KernelException`] leaves implicit by default.
    pub force_explicit: bool,
}

/// One input made explicit.
#[derive(Clone, Debug, PartialEq)]
pub struct Insertion {
    pub graph: String,
    pub node: String,
    pub op_type: String,
    pub slot: usize,
    pub from: String,
    pub to: String,
}

/// One input left implicit on purpose: a [`KernelException`] applies to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Kept {
    pub graph: String,
    pub node: String,
    pub op_type: String,
    pub slot: usize,
    pub from: String,
    pub to: String,
    /// The exception's reason.
    pub reason: &'static str,
}

/// What the pass did, and what it could not do.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub patch: Patch,
    pub insertions: Vec<Insertion>,
    /// Inputs left implicit because of a kernel exception (without `force_explicit`).
    pub kept: Vec<Kept>,
    /// Inputs left implicit because their operator's definition requires them smaller than the
    /// output ([`REQUIRED_SMALLER`]: a 1-D bias); `force_explicit` does not change these.
    pub required: Vec<Kept>,
    /// Broadcasts left implicit, with the reason (e.g. a shape inference could not determine).
    pub left: Vec<String>,
}

/// First opset version of the default domain that has Expand.
const EXPAND_SINCE: i64 = 8;

/// First IR version in which an initializer need not also be a graph input. Before it, every
/// initializer must be listed in `graph.input` too (onnx's checker rejects the model otherwise).
const INITIALIZER_NOT_INPUT_SINCE: i64 = 4;

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
    /// or bias stays implicit ([`KERNEL_EXCEPTIONS`]).
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
/// [`REQUIRED_SMALLER`].)
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

fn same_shape(a: &Shape, b: &Shape) -> bool {
    matches!((a, b), (Some(x), Some(y)) if x == y && !x.contains(&Dim::Unknown))
}

fn is_static(s: &Shape) -> Option<Vec<u64>> {
    s.as_ref()?
        .iter()
        .map(|d| match d {
            Dim::Known(n) => Some(*n),
            _ => None,
        })
        .collect()
}

/// True when `a` and `b` are known to differ: both ranks known and unequal, or two known sizes unequal
/// on one axis. Unknown and symbolic sizes never prove a difference.
fn known_to_differ(a: &Shape, b: &Shape) -> bool {
    let (Some(x), Some(y)) = (a, b) else {
        return false;
    };
    x.len() != y.len()
        || x.iter()
            .zip(y)
            .any(|p| matches!(p, (Dim::Known(m), Dim::Known(n)) if m != n))
}

fn one_element(s: &Shape) -> bool {
    s.as_ref()
        .is_some_and(|d| d.iter().all(|x| *x == Dim::Known(1)))
}

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
/// are made explicit, and the README says so.
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

/// Runs the pass over every graph of `model`, whose inferred shapes are `shapes` (a lint run's, kept).
/// Refuses (Err) models it cannot rewrite faithfully.
pub fn run(model: &Model, shapes: &[GraphShapes], opts: &Options) -> Result<Outcome, String> {
    let mut names = Names::of(model);
    let mut out = Outcome::default();
    let shapes = super::shapes_by_path(shapes);
    let graphs = super::all_graphs(model);
    let legacy_ir = model.header.ir_version.unwrap_or(0) < INITIALIZER_NOT_INPUT_SINCE;
    for (g, function) in graphs {
        let imports = model.opset_imports(function);
        let opset = imports.get("").copied().unwrap_or(0);
        let in_function = function.is_some();
        let infos = shapes.get(g.path.as_str()).copied();
        let mut rw = GraphRewriter {
            g,
            infos,
            patch: GraphPatch::new(g),
            names: &mut names,
            shape_consts: HashMap::new(),
            in_function,
            legacy_ir,
            opset,
            out: &mut out,
            opts,
        };
        for &id in &g.ops {
            let Some(op) = g.op(id) else { continue };
            if opset_domain(op.domain()) == "com.microsoft" {
                rw.required_smaller(op);
            }
            let Some(k) = kind(op, opset) else { continue };
            rw.node(op, k)?;
        }
        let patch = rw.patch;
        if !patch.is_empty() {
            out.patch.graphs.push(patch);
        }
    }
    Ok(out)
}

struct GraphRewriter<'a, 'm> {
    g: &'a Graph,
    infos: Option<&'a Vec<(String, Option<ValueInfo>)>>,
    patch: GraphPatch,
    names: &'a mut Names<'m>,
    /// Name of the int64 tensor holding each static target shape, per graph.
    shape_consts: HashMap<Vec<u64>, String>,
    /// New tensors are `Constant` nodes in function bodies, which cannot hold initializers.
    in_function: bool,
    /// IR version < 4: every initializer must also be listed as a graph input. (Constant nodes are
    /// no way out: before opset 9 they cannot hold int64.)
    legacy_ir: bool,
    /// Version of the default domain in force: below 8 there is no Expand, and Reshape + Tile stand in.
    opset: i64,
    out: &'a mut Outcome,
    opts: &'a Options,
}

fn node(op_type: &str, name: String, inputs: Vec<String>, outputs: Vec<String>) -> NodeProto {
    NodeProto {
        op_type: Some(op_type.into()),
        name: Some(name),
        input: inputs,
        output: outputs,
        ..Default::default()
    }
}

/// The graph input that declares an int64 1-D initializer of `len` values.
fn int64_input(name: &str, len: usize) -> ValueInfoProto {
    use crate::proto::{TensorShapeProto, TypeProto, tensor_shape_proto, type_proto};
    let dim = tensor_shape_proto::Dimension {
        value: Some(tensor_shape_proto::dimension::Value::DimValue(len as i64)),
        ..Default::default()
    };
    ValueInfoProto {
        name: Some(name.to_owned()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(DataType::Int64 as i32),
                shape: Some(TensorShapeProto { dim: vec![dim] }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn int64_tensor(name: &str, values: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.to_owned()),
        data_type: Some(DataType::Int64 as i32),
        dims: vec![values.len() as i64],
        raw_data: Some(
            values
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>()
                .into(),
        ),
        ..Default::default()
    }
}

impl GraphRewriter<'_, '_> {
    /// The shape of value `id` (unknown for `None`), read without a name lookup.
    fn shape_of_id(&self, id: Option<ValueId>) -> Shape {
        self.infos?.get(id?.index())?.1.as_ref()?.shape.clone()
    }

    /// The value input `slot` of `op` reads, if any.
    fn input_id(&self, op: &OpNode, slot: usize) -> Option<ValueId> {
        self.g.input_ids(op).get(slot).copied().flatten()
    }

    /// The shapes of input `slot` and output 0 of `op`.
    fn input_shape(&self, op: &OpNode, slot: usize) -> Shape {
        self.shape_of_id(self.input_id(op, slot))
    }

    fn output_shape(&self, op: &OpNode) -> Shape {
        self.shape_of_id(self.g.output_ids(op).first().copied().flatten())
    }

    /// True when value `id` is the output of an `Expand` node of this graph.
    fn is_expand_output(&self, id: Option<ValueId>) -> bool {
        let Some(id) = id else {
            return false;
        };
        self.g
            .op(self.g.value(id).producer.0)
            .is_some_and(|op| op.op_type() == "Expand" && opset_domain(op.domain()).is_empty())
    }

    /// Queues `n` to be inserted before the consumer at source position `at`.
    fn insert(&mut self, at: usize, n: NodeProto) {
        self.patch.insert(at, &n);
    }

    /// The name of an int64 1-D tensor holding `values`: an initializer, or (in a function body or
    /// an IR < 4 model) a Constant node placed before the consumer at `at`.
    fn const_i64(&mut self, at: usize, base: &str, values: &[i64]) -> String {
        let name = self.names.fresh(base);
        let t = int64_tensor(&name, values);
        if self.in_function {
            let mut c = node("Constant", name.clone(), vec![], vec![name.clone()]);
            c.attribute.push(AttributeProto {
                name: Some("value".into()),
                r#type: Some(AttributeType::Tensor as i32),
                t: Some(t),
                ..Default::default()
            });
            self.insert(at, c);
            return name;
        }
        if self.legacy_ir {
            // IR < 4: an initializer must also be a graph input (with its default value).
            self.patch.inputs.push(int64_input(&name, values.len()));
        }
        self.patch.initializers.push(t);
        name
    }

    /// The tensor holding the static shape `dims`, shared by every use in this graph.
    fn static_target(&mut self, at: usize, dims: &[u64]) -> String {
        if let Some(n) = self.shape_consts.get(dims) {
            return n.clone();
        }
        let label: Vec<String> = dims.iter().map(u64::to_string).collect();
        let base = format!("onnx_lint_shape_{}", label.join("x"));
        let values: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let name = self.const_i64(at, &base, &values);
        // Constant nodes are one per use; initializers are shared graph-wide.
        if !self.in_function {
            self.shape_consts.insert(dims.to_vec(), name.clone());
        }
        name
    }

    fn node(&mut self, op: &OpNode, k: Kind) -> Result<(), String> {
        let out_shape = match k {
            Kind::Normalized(_) => self.normalized_shape(op),
            Kind::AttentionBias(slot) => attention_bias_target(
                &self.input_shape(op, 0),
                &self.input_shape(op, slot),
                num_heads(op),
            ),
            _ => self.output_shape(op),
        };
        let slots: Vec<usize> = match k {
            Kind::AttentionBias(slot) => vec![slot],
            Kind::Multi => (0..op.num_inputs()).collect(),
            Kind::ToFirst(s) | Kind::Normalized(s) | Kind::MultiOf(s) => s.to_vec(),
            Kind::GemmC => vec![2],
            Kind::LegacyAxis(_) => vec![1],
        };
        let label = op.label().into_owned();
        let g = self.g;
        // The shapes of all the node's inputs, read once and only for a node a kernel exception names.
        let mut node_shapes = None;
        for &slot in &slots {
            let input = g.input_name(op, slot);
            if input.is_empty() {
                continue;
            }
            let in_shape = self.input_shape(op, slot);
            if same_shape(&in_shape, &out_shape) {
                continue;
            }
            // The target may come from a declaration that no input value could produce (found by
            // fuzzing: x [3, 4, 69] plus an untyped y, output declared [3, 4, 5]). Expanding to it
            // would plant a broadcast error; the model is inconsistent, so refuse.
            if !matches!(k, Kind::LegacyAxis(_))
                && crate::shape::broadcast::unidirectional(&out_shape, &in_shape).is_error()
            {
                return Err(format!(
                    "node '{label}' ({}) in graph {}: input {slot} '{input}' of shape {} cannot be broadcast to the output shape {}; the model's shapes are inconsistent",
                    op.op_type(),
                    self.g.path,
                    format_shape(&in_shape),
                    format_shape(&out_shape)
                ));
            }
            // Not provably the same shape, nor provably another one (unknown sizes), and already the
            // output of an Expand: taken as explicit. Without this, the Expand inserted by a first
            // run (whose output sizes are as unknown as its input's) would get another Expand on
            // every run, and `expand` of its own output would not be a no-op.
            if !known_to_differ(&in_shape, &out_shape)
                && self.is_expand_output(self.input_id(op, slot))
            {
                continue;
            }
            if self.opts.keep_scalars && one_element(&in_shape) {
                continue;
            }
            if !self.opts.force_explicit
                && let Some(e) = self.exception(op, slot, &k, &out_shape, &mut node_shapes)
            {
                self.out.kept.push(Kept {
                    graph: self.g.path.clone(),
                    node: label.clone(),
                    op_type: op.op_type().to_owned(),
                    slot,
                    from: format_shape(&in_shape),
                    to: format_shape(&out_shape),
                    reason: e.reason,
                });
                continue;
            }
            let base = format!("{label}/expand_in{slot}");
            if self.opset < EXPAND_SINCE {
                self.tile(op, &k, slot, input, &in_shape, &out_shape, &base)?;
                continue;
            }
            let target = if let Some(dims) = is_static(&out_shape) {
                Some(self.static_target(op.index(), &dims))
            } else {
                self.runtime_target(op, &k, slot, &base)
            };
            let Some(target) = target else {
                self.out.left.push(format!(
                    "graph {}, node '{label}' ({}), input {slot} '{input}': the output shape {} is not known well enough to make the broadcast explicit",
                    self.g.path,
                    op.op_type(),
                    format_shape(&out_shape)
                ));
                continue;
            };
            let name = self.names.fresh(&base);
            let expand = node(
                "Expand",
                name.clone(),
                vec![input.to_owned(), target],
                vec![name.clone()],
            );
            self.insert(op.index(), expand);
            self.patch.rewire.insert((op.index(), slot), name);
            self.out.insertions.push(Insertion {
                graph: self.g.path.clone(),
                node: label.clone(),
                op_type: op.op_type().to_owned(),
                slot,
                from: format_shape(&in_shape),
                to: format_shape(&out_shape),
            });
        }
        Ok(())
    }

    /// Lists the inputs of a contrib `op` that its definition requires smaller than its output (and
    /// that are), as left implicit with the reason.
    fn required_smaller(&mut self, op: &OpNode) {
        let Some((_, slots, reason)) = REQUIRED_SMALLER
            .iter()
            .find(|(name, _, _)| *name == op.op_type())
        else {
            return;
        };
        let out_shape = self.output_shape(op);
        for &slot in *slots {
            if self.g.input_name(op, slot).is_empty() {
                continue;
            }
            let in_shape = self.input_shape(op, slot);
            if same_shape(&in_shape, &out_shape) {
                continue;
            }
            self.out.required.push(Kept {
                graph: self.g.path.clone(),
                node: op.label().into_owned(),
                op_type: op.op_type().to_owned(),
                slot,
                from: format_shape(&in_shape),
                to: format_shape(&out_shape),
                reason,
            });
        }
    }

    /// The kernel exception for input `slot` of `op` (broadcast to `target`), if one applies;
    /// `shapes` caches the node's input shapes across its slots.
    fn exception(
        &self,
        op: &OpNode,
        slot: usize,
        k: &Kind,
        target: &Shape,
        shapes: &mut Option<Vec<Shape>>,
    ) -> Option<&'static KernelException> {
        // The legacy rule is onnxruntime's opset-6 kernels, which it no longer has.
        if matches!(k, Kind::LegacyAxis(_))
            || !KERNEL_EXCEPTIONS.iter().any(|e| e.op_type == op.op_type())
        {
            return None;
        }
        let inputs = shapes.get_or_insert_with(|| {
            (0..op.num_inputs())
                .map(|j| self.input_shape(op, j))
                .collect()
        });
        let elem = self
            .input_id(op, 0)
            .and_then(|id| self.infos?.get(id.index())?.1.as_ref()?.elem);
        let site = Site {
            slot,
            elem,
            inputs,
            target,
        };
        kernel_exception(op.op_type(), &site)
    }

    /// Before opset 8 there is no Expand: the input is reshaped to the output's rank (at `axis` for the
    /// legacy rule: B's shape padded with rank(A) - axis - rank(B) trailing ones) and tiled to the
    /// output's sizes. Tile repeats (not computes) values, so the result is bit-identical too. Only
    /// static shapes can be done this way: repeat counts of symbolic sizes would need arithmetic.
    #[allow(clippy::too_many_arguments)]
    fn tile(
        &mut self,
        op: &OpNode,
        k: &Kind,
        slot: usize,
        input: &str,
        in_shape: &Shape,
        out_shape: &Shape,
        base: &str,
    ) -> Result<(), String> {
        let label = op.label().into_owned();
        let refuse = |why: &str| {
            format!(
                "node '{label}' ({}) in graph {}: {why}; opset {} has no Expand (from opset {EXPAND_SINCE}): convert the model to opset {EXPAND_SINCE} or later first",
                op.op_type(),
                self.g.path,
                self.opset
            )
        };
        if self.opset < 6 {
            return Err(refuse("Tile with a repeats input needs opset 6"));
        }
        let (Some(from), Some(to)) = (is_static(in_shape), is_static(out_shape)) else {
            return Err(refuse(&format!(
                "the broadcast {} -> {} is not static",
                format_shape(in_shape),
                format_shape(out_shape)
            )));
        };
        if from.len() > to.len() {
            return Err(refuse("the input has more axes than the output"));
        }
        let lead = match k {
            Kind::LegacyAxis(Some(axis)) if *axis >= 0 => *axis as usize,
            _ => to.len() - from.len(),
        };
        let Some(trail) = to.len().checked_sub(lead + from.len()) else {
            return Err(refuse(
                "the input does not fit in the output's rank at its axis",
            ));
        };
        let padded: Vec<u64> = std::iter::repeat_n(1, lead)
            .chain(from.iter().copied())
            .chain(std::iter::repeat_n(1, trail))
            .collect();
        let repeats: Vec<i64> = padded
            .iter()
            .zip(&to)
            .map(|(&p, &t)| if p == t { 1 } else { t as i64 })
            .collect();
        let mut current = input.to_owned();
        if padded != from {
            let values: Vec<i64> = padded.iter().map(|&d| d as i64).collect();
            let shape = self.const_i64(op.index(), &format!("{base}/rank_shape"), &values);
            let name = self.names.fresh(&format!("{base}/reshape"));
            let reshape = node(
                "Reshape",
                name.clone(),
                vec![current, shape],
                vec![name.clone()],
            );
            self.insert(op.index(), reshape);
            current = name;
        }
        if repeats.iter().any(|&r| r != 1) {
            let reps = self.const_i64(op.index(), &format!("{base}/repeats"), &repeats);
            let name = self.names.fresh(base);
            self.insert(
                op.index(),
                node(
                    "Tile",
                    name.clone(),
                    vec![current, reps],
                    vec![name.clone()],
                ),
            );
            current = name;
        }
        self.patch.rewire.insert((op.index(), slot), current);
        if let Kind::LegacyAxis(_) = k {
            // With B of A's shape the legacy rule no longer applies (B would not fit at `axis`):
            // the node becomes a plain equal-shapes one.
            for (i, a) in op.attributes().iter().enumerate() {
                if a.name() == "broadcast" || a.name() == "axis" {
                    self.patch.drop_attributes.insert((op.index(), i));
                }
            }
        }
        self.out.insertions.push(Insertion {
            graph: self.g.path.clone(),
            node: label,
            op_type: op.op_type().to_owned(),
            slot,
            from: format_shape(in_shape),
            to: format_shape(out_shape),
        });
        Ok(())
    }

    /// The `axis` attribute of a normalization node (default -1).
    fn norm_axis(op: &OpNode) -> i64 {
        op.attributes()
            .iter()
            .find(|a| a.name() == "axis")
            .and_then(|a| a.i)
            .unwrap_or(-1)
    }

    /// `X.shape[axis:]` of a normalization node, when X's rank is known.
    fn normalized_shape(&self, op: &OpNode) -> Shape {
        let x = self.input_shape(op, 0)?;
        let r = x.len() as i64;
        let axis = Self::norm_axis(op);
        let a = if axis < 0 { axis + r } else { axis };
        (0..=r).contains(&a).then(|| x[a as usize..].to_vec())
    }

    /// A value holding the output shape, computed at run time. For multidirectional ops: the shape of
    /// an input already of the output's shape if there is one, else the broadcast of the others built
    /// with Expand (which is itself bidirectional). For X-shaped ops: Shape(X). For Gemm: [M, N] taken
    /// from A and B.
    fn runtime_target(&mut self, op: &OpNode, k: &Kind, slot: usize, base: &str) -> Option<String> {
        let g = self.g;
        let out_shape = self.output_shape(op);
        let at = op.index();
        match k {
            Kind::ToFirst(_) => Some(self.shape_node(at, g.input_name(op, 0), base)),
            Kind::Normalized(_) => {
                // Shape's `start` (opset 15; these ops start at 17) takes the normalized part, and a
                // negative start works whatever X's rank turns out to be.
                let start = AttributeProto {
                    name: Some("start".into()),
                    r#type: Some(AttributeType::Int as i32),
                    i: Some(Self::norm_axis(op)),
                    ..Default::default()
                };
                Some(self.shape_node_with(at, g.input_name(op, 0), base, vec![start]))
            }
            Kind::LegacyAxis(_) => None,
            Kind::AttentionBias(_) => {
                // [batch] from the query's shape, then num_heads, q and kv: numbers, or the bias's
                // own last two axes read at run time (Shape's `start`, opset 15).
                let dims = attention_bias_target(
                    &self.input_shape(op, 0),
                    &self.input_shape(op, slot),
                    num_heads(op),
                )?;
                let q = g.input_name(op, 0);
                let shape = self.shape_node(at, q, &format!("{base}/query"));
                let first = self.const_i64(at, &format!("{base}/batch_axis"), &[0]);
                let batch = self.names.fresh(&format!("{base}/batch"));
                self.insert(
                    at,
                    node(
                        "Gather",
                        batch.clone(),
                        vec![shape, first],
                        vec![batch.clone()],
                    ),
                );
                let known = |d: &Dim| match d {
                    Dim::Known(n) => i64::try_from(*n).ok(),
                    _ => None,
                };
                let mut parts = vec![batch];
                let [_, h, q, kv] = dims.as_slice() else {
                    return None;
                };
                match (known(h), known(q), known(kv)) {
                    (Some(h), Some(q), Some(kv)) => {
                        parts.push(self.const_i64(at, &format!("{base}/rest"), &[h, q, kv]));
                    }
                    (Some(h), _, _) if self.opset >= 15 => {
                        parts.push(self.const_i64(at, &format!("{base}/heads"), &[h]));
                        let start = AttributeProto {
                            name: Some("start".into()),
                            r#type: Some(AttributeType::Int as i32),
                            i: Some(-2),
                            ..Default::default()
                        };
                        let bias = g.input_name(op, slot);
                        parts.push(self.shape_node_with(
                            at,
                            bias,
                            &format!("{base}/qkv"),
                            vec![start],
                        ));
                    }
                    _ => return None,
                }
                Some(self.concat(at, &format!("{base}/target"), parts))
            }
            Kind::GemmC => {
                let trans = |n: &str| {
                    op.attributes()
                        .iter()
                        .any(|a| a.name() == n && a.i.unwrap_or(0) != 0)
                };
                let m_axis = if trans("transA") { 1 } else { 0 };
                let n_axis = if trans("transB") { 0 } else { 1 };
                let sa = self.shape_node(at, g.input_name(op, 0), &format!("{base}/shape_a"));
                let sb = self.shape_node(at, g.input_name(op, 1), &format!("{base}/shape_b"));
                let ia = self.const_i64(at, &format!("{base}/m_axis"), &[m_axis]);
                let ib = self.const_i64(at, &format!("{base}/n_axis"), &[n_axis]);
                let m = self.names.fresh(&format!("{base}/m"));
                let n = self.names.fresh(&format!("{base}/n"));
                self.insert(at, node("Gather", m.clone(), vec![sa, ia], vec![m.clone()]));
                self.insert(at, node("Gather", n.clone(), vec![sb, ib], vec![n.clone()]));
                Some(self.concat(at, &format!("{base}/mn"), vec![m, n]))
            }
            Kind::Multi | Kind::MultiOf(_) => {
                // Only the broadcast operands take part (a QLinearAdd's scales do not).
                let inputs: Vec<&str> = g
                    .input_names(op)
                    .enumerate()
                    .map(|(j, n)| match k {
                        Kind::MultiOf(s) if !s.contains(&j) => "",
                        _ => n,
                    })
                    .collect();
                // An input already of the output's shape gives the target directly.
                if let Some(full) = inputs
                    .iter()
                    .enumerate()
                    .find(|(j, n)| {
                        *j != slot
                            && !n.is_empty()
                            && same_shape(&self.input_shape(op, *j), &out_shape)
                    })
                    .map(|(_, n)| *n)
                {
                    return Some(self.shape_node(at, full, base));
                }
                // Otherwise broadcast the other inputs together: Expand(x1, Shape(x2)) ... then Shape.
                let others: Vec<&str> = inputs
                    .iter()
                    .enumerate()
                    .filter(|(j, n)| *j != slot && !n.is_empty())
                    .map(|(_, n)| *n)
                    .collect();
                let (first, rest) = others.split_first()?;
                let mut acc = (*first).to_owned();
                for (i, other) in rest.iter().enumerate() {
                    let s = self.shape_node(at, other, &format!("{base}/shape{i}"));
                    let e = self.names.fresh(&format!("{base}/bcast{i}"));
                    self.insert(at, node("Expand", e.clone(), vec![acc, s], vec![e.clone()]));
                    acc = e;
                }
                // The input itself joins too: its own size may be the larger on some axis.
                let own = self.shape_node(at, inputs.get(slot)?, &format!("{base}/own"));
                let e = self.names.fresh(&format!("{base}/bcast_own"));
                self.insert(
                    at,
                    node("Expand", e.clone(), vec![acc, own], vec![e.clone()]),
                );
                Some(self.shape_node(at, &e, base))
            }
        }
    }

    fn shape_node(&mut self, at: usize, of: &str, base: &str) -> String {
        self.shape_node_with(at, of, base, Vec::new())
    }

    /// A `Concat` (axis 0) of the 1-D tensors `parts`, inserted before the consumer at `at`.
    fn concat(&mut self, at: usize, base: &str, parts: Vec<String>) -> String {
        let name = self.names.fresh(base);
        let mut n = node("Concat", name.clone(), parts, vec![name.clone()]);
        n.attribute.push(AttributeProto {
            name: Some("axis".into()),
            r#type: Some(AttributeType::Int as i32),
            i: Some(0),
            ..Default::default()
        });
        self.insert(at, n);
        name
    }

    /// A `Shape` node of `of` with these attributes, inserted before the consumer at `at`.
    fn shape_node_with(
        &mut self,
        at: usize,
        of: &str,
        base: &str,
        attribute: Vec<AttributeProto>,
    ) -> String {
        let name = self.names.fresh(&format!("{base}/shape"));
        let mut n = node(
            "Shape",
            name.clone(),
            vec![of.to_owned()],
            vec![name.clone()],
        );
        n.attribute = attribute;
        self.insert(at, n);
        name
    }
}

/// The `check --explicit` rule: every broadcast the pass would make explicit, as a warning, and every
/// one it leaves implicit on purpose (a kernel exception, an operand its operator requires smaller), as
/// an info saying why.
pub fn implicit_broadcasts(
    model: &Model,
    shapes: &[GraphShapes],
    opts: &Options,
) -> Vec<Diagnostic> {
    let Ok(outcome) = run(model, shapes, opts) else {
        return Vec::new();
    };
    let made = outcome.insertions.iter().map(|i| {
        Diagnostic::new(
            Code::ImplicitBroadcast,
            &i.graph,
            format!(
                "input {} of '{}' ({}) is broadcast implicitly from {} to {}",
                i.slot, i.node, i.op_type, i.from, i.to
            ),
        )
        .at_node(&i.node, &i.op_type)
        .note("`onnx-lint expand` inserts an Expand node to make it explicit")
    });
    // An input left implicit on purpose is an info: why, and whether --force-explicit would change it.
    let info = |k: &Kept, why: &str, force: bool| {
        let d = Diagnostic::new(
            Code::ImplicitBroadcast,
            &k.graph,
            format!(
                "input {} of '{}' ({}) is broadcast implicitly from {} to {}; {why}",
                k.slot, k.node, k.op_type, k.from, k.to
            ),
        )
        .severity(crate::diagnostics::Severity::Info)
        .at_node(&k.node, &k.op_type)
        .note(k.reason);
        if force {
            d.note("`onnx-lint expand --force-explicit` makes it explicit anyway")
        } else {
            d
        }
    };
    let kept = outcome
        .kept
        .iter()
        .map(|k| info(k, "`expand` keeps it implicit on purpose", true));
    let required = outcome
        .required
        .iter()
        .map(|k| info(k, "the operator requires it so", false));
    made.chain(kept).chain(required).collect()
}

/// A node (or initializer) the pass inserted, as pictures tell them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inserted {
    /// What makes one broadcast explicit: the `Expand` (before opset 8, the `Tile`, or a lone
    /// `Reshape`) whose output replaced an input of the consumer.
    Broadcast,
    /// What computes or holds its target shape: `Shape`, `Gather`, `Concat`, `Constant`, the `Expand`
    /// of the other inputs, the legacy `Reshape`, the int64 shape initializers.
    Helper,
}

/// The mark in every name the pass gives: a node inserted for input `S` of the node labelled `L` (its
/// name, `#i` when it has none) is named `L/expand_inS`, made unique by a `_k` suffix; its helpers
/// are named `L/expand_inS/...`; a static target shape is the initializer `onnx_lint_shape_AxB...`.
pub const NAME_MARK: &str = "/expand_in";

/// Static target shapes are initializers named with this prefix and the sizes (`onnx_lint_shape_2x3`).
pub const SHAPE_PREFIX: &str = "onnx_lint_shape_";

/// The parts of `name` around each occurrence of [`NAME_MARK`]: (consumer label, input slot, base
/// `L/expand_inS`, the rest after the base).
fn marked_parts(name: &str) -> Vec<(&str, usize, &str, &str)> {
    let mut out = Vec::new();
    for (p, _) in name.match_indices(NAME_MARK) {
        let after = &name[p + NAME_MARK.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let Ok(slot) = after[..digits].parse::<usize>() else {
            continue;
        };
        let end = p + NAME_MARK.len() + digits;
        out.push((&name[..p], slot, &name[..end], &name[end..]));
    }
    out
}

/// True when the consumer `op` is the node `label` names. Inserting nodes moves source positions,
/// so a `#i` label (an unnamed consumer) matches any unnamed node.
fn labels(op: &OpNode, label: &str) -> bool {
    match label.strip_prefix('#') {
        Some(i) if !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()) => op.name().is_empty(),
        _ => op.name() == label,
    }
}

/// The nodes and initializers of `g` that this pass inserted (in an earlier run whose output `g` was
/// read from), recognised by their names ([`NAME_MARK`], [`SHAPE_PREFIX`]). A name alone could be a
/// coincidence, so the structure must agree too: a [`Inserted::Broadcast`] node named
/// `L/expand_inS...` feeds input `S` of the node labelled `L`; a helper carries the base
/// `L/expand_inS/` of such a node, or is a shape initializer read only by them.
pub fn inserted_nodes(g: &Graph) -> HashMap<crate::ir::NodeId, Inserted> {
    use crate::ir::{NodeKind, Slot};
    use petgraph::visit::EdgeRef;
    let mut out = HashMap::new();
    let mut bases: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for &id in &g.ops {
        let Some(op) = g.op(id) else { continue };
        if !matches!(op.op_type(), "Expand" | "Tile" | "Reshape")
            || !opset_domain(op.domain()).is_empty()
        {
            continue;
        }
        for (label, slot, base, rest) in marked_parts(op.name()) {
            let suffix_ok = rest.is_empty()
                || rest
                    .strip_prefix('_')
                    .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
                || rest.starts_with("/reshape");
            let feeds = g.dag.edges(id).any(|e| {
                u32::try_from(slot).is_ok_and(|s| e.weight().slot() == Slot::Input(s))
                    && g.op(e.target()).is_some_and(|c| labels(c, label))
            });
            if suffix_ok && feeds {
                out.insert(id, Inserted::Broadcast);
                bases.insert(base);
                break;
            }
        }
    }
    let helper_name = |name: &str| {
        marked_parts(name)
            .iter()
            .any(|(_, _, base, rest)| rest.starts_with('/') && bases.contains(base))
    };
    for id in g.dag.node_indices() {
        if out.contains_key(&id) {
            continue;
        }
        let helper = match &g.dag[id].kind {
            NodeKind::Op(_) => g.op(id).is_some_and(|op| helper_name(op.name())),
            NodeKind::Initializer(i) => {
                let name = g
                    .header
                    .initializer
                    .get(*i as usize)
                    .map_or("", |t| t.name());
                helper_name(name)
                    || (name.starts_with(SHAPE_PREFIX)
                        && g.dag.edges(id).next().is_some()
                        && g.dag.edges(id).all(|e| {
                            out.get(&e.target()) == Some(&Inserted::Broadcast)
                                && e.weight().slot() == Slot::Input(1)
                        }))
            }
            _ => false,
        };
        if helper {
            out.insert(id, Inserted::Helper);
        }
    }
    out
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
