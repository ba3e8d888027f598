//! Annotate: write what shape inference found into the model's `value_info`, as onnx's and
//! onnxruntime's shape inference do, so that tools that only read stored shapes (viewers, the
//! quantizer with its own inference skipped, engine builders) see them. [`strip`] is the inverse: it
//! removes every `value_info` entry.
//!
//! The result is a [`wire::Edit`](crate::file::wire::Edit) of the source bytes, like every pass's:
//! new entries are appended at the end of each graph's message and refined entries replaced where
//! they lie, so everything else is written back byte for byte and no weight is read.
//!
//! What is written, and why:
//! - only the values nodes compute: a graph input, initializer or captured outer value has its type
//!   where it is defined, and a graph output's type belongs in `graph.output` (filled only with
//!   [`Options::outputs_too`]);
//! - only types with an element type and a rank: onnx's checker requires both of a tensor type;
//! - a symbolic size as a `dim_param`: a symbol by its name, an expression by its text (which
//!   onnx-lint reads back as that expression, and which onnx and onnxruntime take as an opaque
//!   name), or, without [`Options::expressions`], as `unk__N`, named like onnxruntime names the
//!   sizes it cannot name (one name per distinct expression, so equal sizes keep equal names);
//! - an unknown size as a dimension without a value;
//! - an entry already there is refined (its unknown sizes filled, a symbol inference knows the value
//!   of replaced by it, a name that relates to no input size, such as a converter's `unk__0`, replaced
//!   by inference's size in the inputs' symbols), never made less precise; one that contradicts
//!   inference is left as it is and returned in [`Outcome::left`] (inference reports it as T004);
//! - in a function body (and its subgraphs), only what holds whatever the call: inference keeps of a
//!   body what every call agrees on (the element type, and each size all calls infer the same), and a
//!   symbolic size, which is a caller's symbol, is written as unknown. The body's inputs and outputs
//!   get entries too, since a `FunctionProto` types them nowhere else. `FunctionProto.value_info`
//!   exists from IR version 10: a model of an older IR version gets none there.

use crate::file::schema::{function, graph};
use crate::file::wire::{Action, Edit, write_len_record};
use crate::ir::{Graph, Model, NodeKind, ValueId};
use crate::proto::tensor_shape_proto::Dimension;
use crate::proto::tensor_shape_proto::dimension::Value as DimValue;
use crate::proto::type_proto::{self, Value as TypeValue};
use crate::proto::{TensorShapeProto, TypeProto, ValueInfoProto};
use crate::shape::dim::{Dim, SymExpr};
use crate::shape::infer::GraphShapes;
use crate::shape::value::{ANONYMOUS, Kind, ValueInfo, dim_from_proto};
use prost::Message;
use std::collections::{HashMap, HashSet};

/// What `annotate` writes.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Write a symbolic size that is an expression over symbols as its text (`floor((H - 1)/32) +
    /// 1`); when false, as `unk__N`.
    pub expressions: bool,
    /// Also fill the declared types of graph outputs that are missing or less precise than inferred.
    pub outputs_too: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            expressions: true,
            outputs_too: false,
        }
    }
}

/// A declared type left as it is because it contradicts inference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Left {
    pub graph: String,
    /// The value's name.
    pub name: String,
    /// Where it is declared: `value_info` or `output`.
    pub place: &'static str,
    pub why: String,
}

/// What [`run`] proposes.
#[derive(Debug, Default)]
pub struct Outcome {
    pub edit: Edit,
    /// Entries appended to a `value_info`.
    pub added: usize,
    /// Entries of a `value_info` replaced by a more precise type.
    pub refined: usize,
    /// Of the entries added and refined, those in function bodies and their subgraphs.
    pub in_functions: usize,
    /// Graph outputs whose type was filled or refined ([`Options::outputs_too`]).
    pub outputs: usize,
    pub left: Vec<Left>,
}

/// The first IR version whose `FunctionProto` has a `value_info` field.
pub const FUNCTION_VALUE_INFO_IR: i64 = 10;

/// Where a graph is, which decides what its entries may say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// The main graph or one of its subgraphs.
    Model,
    /// A function body: its inputs and outputs get entries too; sizes in the function's own terms.
    Body,
    /// A subgraph in a function body: sizes in the function's own terms.
    InFunction,
}

/// The edit that writes the inferred types of `model` (`shapes` as inference returns them, by
/// graph path) into its graphs' `value_info`, function bodies included (see the module
/// documentation).
pub fn run(model: &Model, shapes: &[GraphShapes], opts: &Options) -> Outcome {
    let by_path = super::shapes_by_path(shapes);
    let mut namer = Namer::new(model, opts.expressions);
    let mut out = Outcome::default();
    let body_entries = model
        .header
        .ir_version
        .is_some_and(|v| v >= FUNCTION_VALUE_INFO_IR);
    // Inference keeps a body by its path, `function:DOMAIN.NAME`: overloads of one name share it,
    // and what it kept is then no one body's.
    let mut paths: HashMap<&str, usize> = HashMap::new();
    for f in &model.functions {
        *paths.entry(f.body.path.as_str()).or_default() += 1;
    }
    for (g, function) in super::all_graphs(model) {
        let scope = match function.and_then(|i| model.functions.get(i)) {
            None => Scope::Model,
            Some(f) if paths.get(f.body.path.as_str()).copied().unwrap_or(0) > 1 => continue,
            Some(f) if std::ptr::eq(g, &f.body) => Scope::Body,
            Some(_) => Scope::InFunction,
        };
        if scope == Scope::Body && !body_entries {
            continue;
        }
        let Some(s) = by_path.get(g.path.as_str()) else {
            continue;
        };
        let before = out.added + out.refined;
        annotate_graph(g, s, scope, opts, &mut namer, &mut out);
        if scope != Scope::Model {
            out.in_functions += out.added + out.refined - before;
        }
    }
    out
}

/// The edit that removes every `value_info` entry of every graph (subgraphs and function bodies
/// included), and how many it removes.
pub fn strip(model: &Model) -> (Edit, usize) {
    let mut root = Edit::default();
    let mut removed = 0;
    for (g, _) in super::all_graphs(model) {
        if g.header.value_info.is_empty() {
            continue;
        }
        let field = value_info_field(g);
        let edit = edit_of(&mut root, g);
        for k in 0..g.header.value_info.len() {
            edit.at(field, k).action = Action::Replace(Vec::new());
        }
        removed += g.header.value_info.len();
    }
    (root, removed)
}

fn value_info_field(g: &Graph) -> u32 {
    if g.node_field == function::NODE {
        function::VALUE_INFO
    } else {
        graph::VALUE_INFO
    }
}

/// The edit of `g`'s message within `root`.
fn edit_of<'e>(root: &'e mut Edit, g: &Graph) -> &'e mut Edit {
    let mut edit = root;
    for &(field, occurrence) in &g.wire {
        edit = edit.child(field, occurrence);
    }
    edit
}

/// Whether value `id` gets an entry in a graph of `scope`: a value computed by a node of `g` (not
/// a graph input, initializer or outer value), or in a function body an input too.
fn wanted(g: &Graph, id: ValueId, scope: Scope) -> bool {
    let Some(v) = g.values.get(id) else {
        return false;
    };
    match g.dag.node_weight(v.producer.0).map(|n| &n.kind) {
        Some(NodeKind::Op(_)) => true,
        Some(NodeKind::Input(_)) => scope == Scope::Body,
        _ => false,
    }
}

/// What inference knows of value `i` that may be written in a graph of `scope`: in a function, a
/// symbolic size is a caller's symbol, and says nothing of the body by itself.
fn known(shapes: &GraphShapes, i: usize, scope: Scope) -> Option<std::borrow::Cow<'_, ValueInfo>> {
    let info = shapes.info(i)?;
    if scope == Scope::Model
        || !info
            .shape
            .iter()
            .flatten()
            .any(|d| matches!(d, Dim::Sym(_)))
    {
        return Some(std::borrow::Cow::Borrowed(info));
    }
    let mut own = info.clone();
    for d in own.shape.iter_mut().flatten() {
        if matches!(d, Dim::Sym(_)) {
            *d = Dim::Unknown;
        }
    }
    Some(std::borrow::Cow::Owned(own))
}

fn annotate_graph(
    g: &Graph,
    shapes: &GraphShapes,
    scope: Scope,
    opts: &Options,
    namer: &mut Namer,
    out: &mut Outcome,
) {
    // A function's outputs have no declared type: their entries are in `value_info`.
    let outputs: HashSet<&str> = if scope == Scope::Body {
        HashSet::new()
    } else {
        g.header
            .output
            .iter()
            .filter_map(|o| o.name.as_deref())
            .collect()
    };
    let field = value_info_field(g);
    // Values that have an entry already (the first entry of a name is the one refined).
    let mut declared: HashSet<ValueId> = HashSet::new();
    let mut replaced: Vec<(u32, usize, Vec<u8>)> = Vec::new();
    let left = |name: &str, place: &'static str, why: String| Left {
        graph: g.path.clone(),
        name: name.to_owned(),
        place,
        why,
    };
    if opts.outputs_too && scope != Scope::Body {
        for (k, o) in g.header.output.iter().enumerate() {
            let name = o.name.as_deref().unwrap_or_default();
            let Some(info) = g
                .lookup(name)
                .and_then(|id| known(shapes, id.index(), scope))
            else {
                continue;
            };
            match refine(o.r#type.as_ref(), &info, namer) {
                Err(why) => out.left.push(left(name, "output", why)),
                Ok(None) => {}
                Ok(Some(t)) => {
                    replaced.push((graph::OUTPUT, k, record(graph::OUTPUT, o, t)));
                    out.outputs += 1;
                }
            }
        }
    }
    for (k, vi) in g.header.value_info.iter().enumerate() {
        let name = vi.name.as_deref().unwrap_or_default();
        let Some(id) = g.lookup(name) else {
            continue;
        };
        if !wanted(g, id, scope) || outputs.contains(name) || !declared.insert(id) {
            continue;
        }
        let Some(info) = known(shapes, id.index(), scope) else {
            continue;
        };
        match refine(vi.r#type.as_ref(), &info, namer) {
            Err(why) => out.left.push(left(name, "value_info", why)),
            Ok(None) => {}
            Ok(Some(t)) => {
                replaced.push((field, k, record(field, vi, t)));
                out.refined += 1;
            }
        }
    }
    // The values that have an entry already or are graph outputs, by id.
    let mut skip = vec![false; g.values.len()];
    for id in declared
        .iter()
        .copied()
        .chain(outputs.iter().filter_map(|n| g.lookup(n)))
    {
        if let Some(s) = skip.get_mut(id.index()) {
            *s = true;
        }
    }
    let append = new_entries(g, shapes, scope, field, &skip, namer, &mut out.added);
    if replaced.is_empty() && append.is_empty() {
        return;
    }
    let edit = edit_of(&mut out.edit, g);
    for (f, k, bytes) in replaced {
        edit.at(f, k).action = Action::Replace(bytes);
    }
    if edit.append.is_empty() {
        edit.append = append;
    } else {
        edit.append.extend_from_slice(&append);
    }
}

/// The entries (records of field `field`) of the values of `g` that get one and have none (`skip`),
/// one after the other; counts them in `added`.
fn new_entries(
    g: &Graph,
    shapes: &GraphShapes,
    scope: Scope,
    field: u32,
    skip: &[bool],
    namer: &mut Namer,
    added: &mut usize,
) -> Vec<u8> {
    // Room for an entry of ~40 bytes per value: grown by doubling, the 33 MB the 1M-node model's
    // entries take were copied into fresh memory at each step. Pages never written are never touched.
    let mut append = Vec::with_capacity(g.values.len().saturating_mul(40));
    // Each distinct type is made and encoded once: the values of a graph share a few types (a
    // million values of the 1M-node model, a handful of types), and `namer` names a type's sizes the
    // same whenever it is asked.
    let mut encoded: Vec<Option<Option<Vec<u8>>>> = Vec::new();
    let mut entry = Vec::new();
    for (i, v) in g.values.iter().enumerate() {
        let id = ValueId::new(i);
        if v.name.is_empty() || skip.get(i).copied().unwrap_or(true) || !wanted(g, id, scope) {
            continue;
        }
        let Some(t) = shapes.type_id(i).map(|t| t as usize) else {
            continue;
        };
        if encoded.len() <= t {
            encoded.resize(t + 1, None);
        }
        let Some(bytes) = encoded[t].get_or_insert_with(|| {
            known(shapes, i, scope)
                .and_then(|info| type_of(&info, namer))
                .map(|t| t.encode_to_vec())
        }) else {
            continue;
        };
        // A `ValueInfoProto` of the name (field 1) and the type (field 2).
        entry.clear();
        write_len_record(&mut entry, 1, v.name.as_bytes());
        write_len_record(&mut entry, 2, bytes);
        write_len_record(&mut append, field, &entry);
        *added += 1;
    }
    append
}

/// The record of field `field` holding `vi` with its type replaced by `t` (its name, doc string
/// and metadata kept).
fn record(field: u32, vi: &ValueInfoProto, t: TypeProto) -> Vec<u8> {
    let mut vi = vi.clone();
    vi.r#type = Some(t);
    let mut bytes = Vec::new();
    write_len_record(&mut bytes, field, &vi.encode_to_vec());
    bytes
}

/// The type to write for `info`, if it has an element type and a rank (and is a tensor, or a
/// sequence or optional of tensors).
pub fn type_of(info: &ValueInfo, namer: &mut Namer) -> Option<TypeProto> {
    let elem = info.elem.filter(|&e| e > 0)?;
    let dims = info.shape.as_ref()?;
    let tensor = TypeProto {
        value: Some(TypeValue::TensorType(type_proto::Tensor {
            elem_type: Some(elem),
            shape: Some(TensorShapeProto {
                dim: dims.iter().map(|d| namer.dim(d)).collect(),
            }),
        })),
        denotation: None,
    };
    let value = match info.kind {
        Kind::Tensor => return Some(tensor),
        Kind::Sequence => TypeValue::SequenceType(Box::new(type_proto::Sequence {
            elem_type: Some(Box::new(tensor)),
        })),
        Kind::Optional => TypeValue::OptionalType(Box::new(type_proto::Optional {
            elem_type: Some(Box::new(tensor)),
        })),
        _ => return None,
    };
    Some(TypeProto {
        value: Some(value),
        denotation: None,
    })
}

/// The tensor type a type is of (itself, or a sequence's or optional's elements), with its kind.
fn tensor_of(t: &TypeProto) -> Option<(Kind, &type_proto::Tensor)> {
    fn inner(e: &Option<Box<TypeProto>>) -> Option<&type_proto::Tensor> {
        match e.as_deref().and_then(|t| t.value.as_ref()) {
            Some(TypeValue::TensorType(t)) => Some(t),
            _ => None,
        }
    }
    match t.value.as_ref()? {
        TypeValue::TensorType(x) => Some((Kind::Tensor, x)),
        TypeValue::SequenceType(s) => Some((Kind::Sequence, inner(&s.elem_type)?)),
        TypeValue::OptionalType(o) => Some((Kind::Optional, inner(&o.elem_type)?)),
        _ => None,
    }
}

fn tensor_of_mut(t: &mut TypeProto) -> Option<&mut type_proto::Tensor> {
    fn inner(e: &mut Option<Box<TypeProto>>) -> Option<&mut type_proto::Tensor> {
        match e.as_deref_mut().and_then(|t| t.value.as_mut()) {
            Some(TypeValue::TensorType(t)) => Some(t),
            _ => None,
        }
    }
    match t.value.as_mut()? {
        TypeValue::TensorType(x) => Some(x),
        TypeValue::SequenceType(s) => inner(&mut s.elem_type),
        TypeValue::OptionalType(o) => inner(&mut o.elem_type),
        _ => None,
    }
}

/// The declared type `declared` made as precise as `info`: `Ok(None)` when it is already (or
/// `info` has nothing to add, or the declaration is of a kind not written here), `Err` saying why
/// when the two contradict (a different kind, element type or rank, a size the inferred one cannot
/// be). Everything of the declaration is kept but the sizes and element type it lacks (a symbol
/// inference knows the value of is replaced by that value).
pub fn refine(
    declared: Option<&TypeProto>,
    info: &ValueInfo,
    namer: &mut Namer,
) -> Result<Option<TypeProto>, String> {
    let Some(declared) = declared.filter(|t| t.value.is_some()) else {
        return Ok(type_of(info, namer));
    };
    let Some((kind, dt)) = tensor_of(declared) else {
        return Ok(None);
    };
    if !matches!(info.kind, Kind::Tensor | Kind::Sequence | Kind::Optional) {
        return Ok(None);
    }
    if kind != info.kind {
        return Err(format!(
            "declared as a {}, inferred as a {}",
            kind_name(kind),
            kind_name(info.kind)
        ));
    }
    let d_elem = dt.elem_type.unwrap_or(0);
    let i_elem = info.elem.unwrap_or(0);
    if d_elem > 0 && i_elem > 0 && d_elem != i_elem {
        return Err(format!(
            "declared with element type {}, inferred as {}",
            crate::ir::tensor::elem_type_str(d_elem),
            crate::ir::tensor::elem_type_str(i_elem)
        ));
    }
    let mut t = declared.clone();
    let Some(tt) = tensor_of_mut(&mut t) else {
        return Ok(None);
    };
    if d_elem <= 0 && i_elem > 0 {
        tt.elem_type = Some(i_elem);
    }
    match (&mut tt.shape, &info.shape) {
        (_, None) => {}
        (None, Some(dims)) => {
            tt.shape = Some(TensorShapeProto {
                dim: dims.iter().map(|d| namer.dim(d)).collect(),
            })
        }
        (Some(s), Some(dims)) => {
            if s.dim.len() != dims.len() {
                return Err(format!(
                    "declared with rank {}, inferred as {}",
                    s.dim.len(),
                    crate::shape::dim::format_shape(&Some(dims.clone()))
                ));
            }
            for (axis, (d, x)) in s.dim.iter_mut().zip(dims).enumerate() {
                refine_dim(d, x, namer).map_err(|n| {
                    format!("declared with size {n} on axis {axis}, inferred as {x}")
                })?;
            }
        }
    }
    Ok((t != *declared).then_some(t))
}

/// Refines one declared dimension by the inferred one; `Err` with the declared size when they
/// contradict.
fn refine_dim(d: &mut Dimension, x: &Dim, namer: &mut Namer) -> Result<(), i64> {
    match (&d.value, x) {
        (Some(DimValue::DimValue(v)), Dim::Known(w)) if *v >= 0 && *v as u64 != *w => Err(*v),
        (Some(DimValue::DimValue(v)), Dim::Sym(s)) if *v >= 0 && !s.can_equal(*v as u64) => Err(*v),
        (Some(DimValue::DimValue(v)), _) if *v >= 0 => Ok(()),
        // A named size inference knows the value of: the value says more.
        (Some(DimValue::DimParam(p)), Dim::Known(_)) if !p.is_empty() && p != ANONYMOUS => {
            d.value = namer.dim(x).value;
            Ok(())
        }
        // A name that relates to no input size says less than an expression in the inputs'
        // symbols (inference reads such a name as unknown).
        (Some(DimValue::DimParam(p)), Dim::Sym(s))
            if !p.is_empty() && p != ANONYMOUS && !namer.relates(d) && namer.names_in_inputs(s) =>
        {
            d.value = namer.dim(x).value;
            Ok(())
        }
        (Some(DimValue::DimParam(p)), _) if !p.is_empty() && p != ANONYMOUS => Ok(()),
        // No size, a negative one (written for "unknown") or `?`: whatever inference knows.
        _ => {
            if !matches!(x, Dim::Unknown) {
                d.value = namer.dim(x).value;
            }
            Ok(())
        }
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Tensor => "tensor",
        Kind::SparseTensor => "sparse tensor",
        Kind::Sequence => "sequence",
        Kind::Optional => "optional",
        Kind::Map => "map",
        Kind::Opaque => "opaque value",
    }
}

/// Names symbolic sizes as `dim_param`s (see the module documentation).
pub struct Namer {
    expressions: bool,
    /// The name given to each expression's text (without expressions).
    given: HashMap<String, String>,
    /// Every `dim_param` the model declares: an `unk__N` must not be one of them.
    taken: HashSet<String>,
    next: usize,
    /// The symbols of the main graph's input sizes (see [`Namer::relates`]).
    inputs: HashSet<String>,
}

impl Namer {
    pub fn new(model: &Model, expressions: bool) -> Namer {
        let mut taken = HashSet::new();
        if !expressions {
            for g in model.graphs() {
                for vi in g.declared_values() {
                    let Some((_, t)) = vi.r#type.as_ref().and_then(tensor_of) else {
                        continue;
                    };
                    for d in t.shape.iter().flat_map(|s| &s.dim) {
                        if let Some(DimValue::DimParam(p)) = &d.value {
                            taken.insert(p.clone());
                        }
                    }
                }
            }
        }
        Namer {
            expressions,
            given: HashMap::new(),
            taken,
            next: 0,
            inputs: model
                .graph
                .as_ref()
                .map(crate::shape::inputs::input_symbols)
                .unwrap_or_default(),
        }
    }

    /// Whether a declared symbolic size is in the symbols of the main graph's input sizes, as
    /// inference reads it: another name is a size the declaration does not relate to the inputs.
    fn relates(&self, d: &Dimension) -> bool {
        match dim_from_proto(d) {
            Dim::Sym(e) => self.relates_expr(&e),
            _ => true,
        }
    }

    fn relates_expr(&self, e: &SymExpr) -> bool {
        crate::shape::inputs::in_symbols(e, &self.inputs)
    }

    /// Whether `e` is written as a size in the inputs' symbols (without expressions, an expression
    /// is written as an `unk__N` name, which relates to nothing).
    fn names_in_inputs(&self, e: &SymExpr) -> bool {
        (self.expressions || matches!(e, SymExpr::Var(_))) && self.relates_expr(e)
    }

    /// The dimension that says `d`.
    pub fn dim(&mut self, d: &Dim) -> Dimension {
        let value = match d {
            Dim::Known(n) => i64::try_from(*n).ok().map(DimValue::DimValue),
            Dim::Unknown => None,
            Dim::Sym(s) => self.name(s).map(DimValue::DimParam),
        };
        Dimension {
            value,
            denotation: None,
        }
    }

    /// The `dim_param` of `s`; `None` (an unknown size) for a symbol inference made up for itself,
    /// whose name holds a control character and means nothing outside it.
    fn name(&mut self, s: &SymExpr) -> Option<String> {
        let text = s.to_string();
        if text.is_empty() || text.chars().any(char::is_control) {
            return None;
        }
        if self.expressions || matches!(s, SymExpr::Var(_)) {
            return Some(text);
        }
        if let Some(n) = self.given.get(&text) {
            return Some(n.clone());
        }
        let name = loop {
            let n = format!("unk__{}", self.next);
            self.next += 1;
            if !self.taken.contains(&n) {
                break n;
            }
        };
        self.given.insert(text, name.clone());
        Some(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::poly::Poly;

    /// A namer for a model whose inputs have the sizes `batch`, `n` and `m`.
    fn namer() -> Namer {
        Namer {
            expressions: true,
            given: HashMap::new(),
            taken: HashSet::new(),
            next: 0,
            inputs: ["batch", "n", "m"].into_iter().map(String::from).collect(),
        }
    }

    fn proto_dim(v: Option<DimValue>) -> Dimension {
        Dimension {
            value: v,
            denotation: None,
        }
    }

    fn declared(dims: Vec<Option<DimValue>>) -> TypeProto {
        TypeProto {
            value: Some(TypeValue::TensorType(type_proto::Tensor {
                elem_type: Some(1),
                shape: Some(TensorShapeProto {
                    dim: dims.into_iter().map(proto_dim).collect(),
                }),
            })),
            denotation: None,
        }
    }

    fn inferred(dims: Vec<Dim>) -> ValueInfo {
        ValueInfo::tensor(Some(1), Some(dims))
    }

    fn dims_of(t: &TypeProto) -> Vec<Dim> {
        let (_, t) = tensor_of(t).unwrap();
        t.shape
            .as_ref()
            .unwrap()
            .dim
            .iter()
            .map(dim_from_proto)
            .collect()
    }

    #[test]
    fn unknown_negative_and_anonymous_sizes_are_filled_and_symbols_made_numbers() {
        let d = declared(vec![
            None,
            Some(DimValue::DimValue(-1)),
            Some(DimValue::DimParam("?".into())),
            Some(DimValue::DimParam("k".into())),
            Some(DimValue::DimParam("n".into())),
        ]);
        let i = inferred(vec![
            Dim::Known(2),
            Dim::sym("batch"),
            Dim::Unknown,
            Dim::Known(7),
            Dim::sym("m"),
        ]);
        let t = refine(Some(&d), &i, &mut namer()).unwrap().unwrap();
        assert_eq!(
            dims_of(&t),
            [
                Dim::Known(2),
                Dim::sym("batch"),
                Dim::Unknown,
                Dim::Known(7),
                // A symbol's name is kept: another name for it is no refinement.
                Dim::sym("n"),
            ]
        );
        // Nothing more to say: no change.
        assert_eq!(refine(Some(&t), &i, &mut namer()), Ok(None));
    }

    #[test]
    fn a_name_that_relates_to_no_input_size_is_replaced_by_the_inferred_expression() {
        let d = declared(vec![
            Some(DimValue::DimParam("unk__0".into())),
            Some(DimValue::DimParam("n".into())),
            Some(DimValue::DimParam("unk__1".into())),
        ]);
        let twice = Poly::of(&SymExpr::var("batch"))
            .mul(&Poly::constant(2))
            .and_then(Poly::into_expr)
            .unwrap();
        // `unk__1` stays: inference's size is in a symbol of no input either.
        let i = inferred(vec![
            Dim::Sym(twice.clone()),
            Dim::sym("m"),
            Dim::sym("other"),
        ]);
        let mut n = namer();
        let t = refine(Some(&d), &i, &mut n).unwrap().unwrap();
        assert_eq!(
            dims_of(&t),
            [Dim::Sym(twice), Dim::sym("n"), Dim::sym("unk__1")]
        );
        assert_eq!(
            refine(Some(&t), &i, &mut n),
            Ok(None),
            "nothing more to say"
        );
    }

    #[test]
    fn contradictions_are_refused() {
        let two = declared(vec![Some(DimValue::DimValue(2))]);
        let mut n = namer();
        assert!(refine(Some(&two), &inferred(vec![Dim::Known(3)]), &mut n).is_err());
        assert!(
            refine(
                Some(&two),
                &inferred(vec![Dim::Known(2), Dim::Known(1)]),
                &mut n
            )
            .is_err()
        );
        let plus_two = Dim::Sym(
            Poly::of(&SymExpr::var("s"))
                .add(&Poly::constant(2))
                .and_then(Poly::into_expr)
                .unwrap(),
        );
        let one = declared(vec![Some(DimValue::DimValue(1))]);
        assert!(
            refine(Some(&one), &inferred(vec![plus_two.clone()]), &mut n).is_err(),
            "s + 2 is never 1"
        );
        assert_eq!(
            refine(Some(&two), &inferred(vec![plus_two]), &mut n),
            Ok(None),
            "s + 2 may be 2"
        );
        let mut other = inferred(vec![Dim::Known(2)]);
        other.elem = Some(7);
        assert!(refine(Some(&two), &other, &mut n).is_err());
    }

    #[test]
    fn without_expressions_each_expression_gets_one_unused_unk_name() {
        let mut n = namer();
        n.expressions = false;
        n.taken.insert("unk__0".into());
        let e = Poly::of(&SymExpr::var("h"))
            .floor_div(2)
            .and_then(Poly::into_expr)
            .unwrap();
        let (a, b) = (n.dim(&Dim::Sym(e.clone())), n.dim(&Dim::Sym(e)));
        assert_eq!(a, b);
        assert_eq!(a.value, Some(DimValue::DimParam("unk__1".into())));
        assert_eq!(
            n.dim(&Dim::sym("batch")).value,
            Some(DimValue::DimParam("batch".into()))
        );
    }
}
