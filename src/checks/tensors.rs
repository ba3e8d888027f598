//! Tensor and type rules: a tensor's dims non-negative and with a product that fits in i64 (T001), a
//! defined element type (T002), stored data whose size matches dims x element size (T003), and
//! negative sizes in declared value types, which exporters write to mean "unknown" (T005, one warning
//! per model).
//!
//! Only lengths are compared: the data bytes themselves are never read, so checking a model does not
//! page its weights in.

use crate::diagnostics::{Code, Diagnostic};
use crate::ir::tensor::{elem_bits, element_count};
use crate::ir::{Graph, Model};
use crate::proto::tensor_proto::{DataLocation, DataType};
use crate::proto::tensor_shape_proto::dimension::Value as DimValue;
use crate::proto::{TensorProto, TypeProto, type_proto};

pub fn check(model: &Model) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut negative = Vec::new();
    for g in model.graphs() {
        check_graph(g, &mut out, &mut negative);
    }
    if let Some(d) = negative_declared_dims(&negative) {
        out.push(d);
    }
    out
}

/// A negative size in a declared type: where it is (the description of the value, the graph), the
/// axis and the value.
struct NegativeDim {
    what: String,
    graph: String,
    axis: usize,
    value: i64,
}

/// How many declared values to name in the T005 message; the rest are counted.
const NEGATIVE_DIMS_NAMED: usize = 5;

/// The one T005 warning of a model, if any declared type has a negative size.
///
/// One per model rather than one per value: an exporter that writes -1 writes it for every dynamic
/// axis of every value, and a page of identical warnings would hide the findings that matter. Shape
/// inference reads these dims as unknown (`shape::value::dim_from_proto`), which is what the exporter
/// means, so they are not errors.
fn negative_declared_dims(found: &[NegativeDim]) -> Option<Diagnostic> {
    let first = found.first()?;
    // Values in source order, each once (a value may have several negative axes, and be declared
    // both as an input or output and in value_info). An index, not a search: an export may declare
    // -1 for every value of a graph of a million nodes.
    let mut values: Vec<(&str, &str, Vec<String>)> = Vec::new();
    let mut index: std::collections::HashMap<(&str, &str), usize> = Default::default();
    // A dim declared twice (a graph output also in value_info) counts once.
    let mut dims_seen = std::collections::HashSet::new();
    for n in found {
        if !dims_seen.insert((n.what.as_str(), n.graph.as_str(), n.axis)) {
            continue;
        }
        let at = *index
            .entry((n.what.as_str(), n.graph.as_str()))
            .or_insert_with(|| {
                values.push((&n.what, &n.graph, Vec::new()));
                values.len() - 1
            });
        // Only the values named in the message need their axes spelled out.
        if at < NEGATIVE_DIMS_NAMED
            && let Some((_, _, axes)) = values.get_mut(at)
        {
            axes.push(format!("dim {} is {}", n.axis, n.value));
        }
    }
    let one_graph = found.iter().all(|n| n.graph == first.graph);
    let named: Vec<String> = values
        .iter()
        .take(NEGATIVE_DIMS_NAMED)
        .map(|(what, graph, axes)| {
            let place = if one_graph {
                String::new()
            } else {
                format!(", graph {graph}")
            };
            format!("{what} ({}{place})", axes.join(", "))
        })
        .collect();
    let more = values.len().saturating_sub(NEGATIVE_DIMS_NAMED);
    let mut list = named.join("; ");
    if more > 0 {
        list.push_str(&format!("; and {more} more"));
    }
    let dims = if dims_seen.len() == 1 {
        "dim is"
    } else {
        "dims are"
    };
    let in_values = if values.len() == 1 { "value" } else { "values" };
    let msg = format!(
        "{} declared {dims} negative, in {} {in_values}: {list}; read as unknown",
        dims_seen.len(),
        values.len(),
    );
    Some(
        Diagnostic::new(Code::NegativeDeclaredDim, "model", msg)
            .note(
                "exporters (paddle2onnx notably) write dim_value -1 for a size known only at run \
                 time; ONNX has no negative sizes, and tools that read the dim as a number see -1",
            )
            .note(
                "fix: write the dim as a symbolic size (dim_param, e.g. \"batch\") or leave it \
                 without value",
            ),
    )
}

fn check_graph(g: &Graph, out: &mut Vec<Diagnostic>, negative: &mut Vec<NegativeDim>) {
    super::visit_tensors(g, &mut |t, what, node| {
        check_tensor(t, what, &g.path, node, out)
    });
    let sparse = g.header.sparse_initializer.iter().map(|s| (s, None));
    let attr_sparse = g.ops_with_attributes().flat_map(|op| {
        op.attributes()
            .iter()
            .flat_map(|a| a.sparse_tensor.iter().chain(&a.sparse_tensors))
            .map(move |s| (s, Some(op)))
    });
    for (s, op) in sparse.chain(attr_sparse) {
        if let Err(e) = element_count(&s.dims) {
            let name = s.values.as_ref().map(|v| v.name()).unwrap_or("");
            let d = Diagnostic::new(
                Code::BadDims,
                &g.path,
                format!("sparse tensor '{name}': {e}"),
            );
            out.push(match op {
                Some(op) => d.at_node(&op.label(), op.op_type()),
                None => d,
            });
        }
    }
    for vi in g.declared_values() {
        if let Some(ty) = &vi.r#type {
            let what = format!("value '{}'", vi.name());
            check_type(ty, &what, &g.path, out, negative);
        }
    }
    for op in g.ops_with_attributes() {
        for a in op.attributes() {
            for tp in a.tp.iter().chain(&a.type_protos) {
                let label = op.label().into_owned();
                let what = format!("type of attribute '{}' of node '{label}'", a.name());
                check_type(tp, &what, &g.path, out, negative);
            }
        }
    }
}

pub(super) fn push(out: &mut Vec<Diagnostic>, d: Diagnostic, node: Option<(&str, &str)>) {
    out.push(match node {
        Some((n, op)) => d.at_node(n, op),
        None => d,
    });
}

fn check_tensor(
    t: &TensorProto,
    what: &str,
    graph: &str,
    node: Option<(&str, &str)>,
    out: &mut Vec<Diagnostic>,
) {
    let count = match element_count(&t.dims) {
        Ok(n) => Some(n),
        Err(e) => {
            push(
                out,
                Diagnostic::new(Code::BadDims, graph, format!("{what}: {e}")),
                node,
            );
            None
        }
    };
    let dt = t.data_type();
    if dt == 0 || DataType::try_from(dt).is_err() {
        let msg = format!("{what}: data_type {dt} is not a defined element type");
        push(out, Diagnostic::new(Code::ElemType, graph, msg), node);
        return;
    }
    if t.data_location == Some(DataLocation::External as i32) {
        return; // checked with the rest of the reference by the external-data rule
    }
    if let Some(n) = count
        && let Some(problem) = data_problem(t, n)
    {
        push(
            out,
            Diagnostic::new(Code::TensorData, graph, format!("{what}: {problem}")),
            node,
        );
    }
}

/// How the stored data disagrees with `n` elements of the tensor's type, if it does.
fn data_problem(t: &TensorProto, n: u64) -> Option<String> {
    use DataType as D;
    let dt = DataType::try_from(t.data_type()).ok()?;
    let typed: [(&str, usize); 6] = [
        ("float_data", t.float_data.len()),
        ("int32_data", t.int32_data.len()),
        ("string_data", t.string_data.len()),
        ("int64_data", t.int64_data.len()),
        ("double_data", t.double_data.len()),
        ("uint64_data", t.uint64_data.len()),
    ];
    let used: Vec<_> = typed.iter().filter(|(_, l)| *l > 0).collect();
    if let Some(raw) = &t.raw_data {
        if let Some((field, _)) = used.first() {
            return Some(format!("data is stored twice, in raw_data and in {field}"));
        }
        let bits = elem_bits(t.data_type())?;
        if dt == D::Float6e2m3 || dt == D::Float6e3m2 {
            return None; // packing of 6-bit types is not settled upstream; not checked
        }
        // In u128: n < 2^63 and bits <= 128, so the product cannot overflow (in u64 it could, and a
        // huge tensor with a few bytes of data would go unreported).
        let want = (u128::from(n) * u128::from(bits)).div_ceil(8);
        let have = raw.len() as u128;
        return (have != want).then(|| {
            let side = if have < want { "shorter" } else { "longer" };
            format!(
                "raw_data is {have} bytes, {side} than the {want} bytes that {n} elements of {} take",
                dt.as_str_name()
            )
        });
    }
    let (field, per_element) = match dt {
        D::Float => ("float_data", 1),
        D::Complex64 => ("float_data", 2),
        D::Double => ("double_data", 1),
        D::Complex128 => ("double_data", 2),
        D::Int64 => ("int64_data", 1),
        D::Uint32 | D::Uint64 => ("uint64_data", 1),
        D::String => ("string_data", 1),
        D::Int4 | D::Uint4 | D::Float4e2m1 | D::Int2 | D::Uint2 | D::Float6e2m3 | D::Float6e3m2 => {
            return None; // packed several to an int32; packing conventions vary by release
        }
        _ => ("int32_data", 1),
    };
    if let Some((other, _)) = used.iter().find(|(f, _)| *f != field) {
        return Some(format!(
            "{} data is stored in {other} (expected {field})",
            dt.as_str_name()
        ));
    }
    let have = typed
        .iter()
        .find(|(f, _)| *f == field)
        .map_or(0, |(_, l)| *l) as u64;
    let want = n.checked_mul(per_element)?;
    (have != want).then(|| {
        if have == 0 {
            format!("has no data, but its dims say {n} elements")
        } else {
            format!("{field} holds {have} values, but its dims say {want}")
        }
    })
}

/// Checks a declared type: its element type (T002), and records its negative sizes for the model's
/// one T005 (a declared type describes a value, unlike a tensor's own dims, and exporters write -1
/// there for "unknown").
fn check_type(
    ty: &TypeProto,
    what: &str,
    graph: &str,
    out: &mut Vec<Diagnostic>,
    negative: &mut Vec<NegativeDim>,
) {
    use type_proto::Value as V;
    let shape = match &ty.value {
        Some(V::TensorType(t)) => {
            check_elem(t.elem_type, what, graph, out);
            t.shape.as_ref()
        }
        Some(V::SparseTensorType(t)) => {
            check_elem(t.elem_type, what, graph, out);
            t.shape.as_ref()
        }
        Some(V::SequenceType(s)) => {
            if let Some(e) = &s.elem_type {
                check_type(e, what, graph, out, negative);
            }
            None
        }
        Some(V::OptionalType(o)) => {
            if let Some(e) = &o.elem_type {
                check_type(e, what, graph, out, negative);
            }
            None
        }
        Some(V::MapType(m)) => {
            if let Some(v) = &m.value_type {
                check_type(v, what, graph, out, negative);
            }
            None
        }
        Some(V::OpaqueType(_)) | None => None,
    };
    for (axis, d) in shape.iter().flat_map(|s| s.dim.iter()).enumerate() {
        if let Some(DimValue::DimValue(value)) = d.value
            && value < 0
        {
            negative.push(NegativeDim {
                what: what.to_owned(),
                graph: graph.to_owned(),
                axis,
                value,
            });
        }
    }
}

fn check_elem(elem: Option<i32>, what: &str, graph: &str, out: &mut Vec<Diagnostic>) {
    let msg = match elem {
        None => format!("{what}: tensor type has no elem_type"),
        Some(0) => format!("{what}: elem_type is UNDEFINED (0)"),
        Some(e) if DataType::try_from(e).is_err() => {
            format!("{what}: elem_type {e} is not a defined element type")
        }
        Some(_) => return,
    };
    out.push(Diagnostic::new(Code::ElemType, graph, msg));
}
