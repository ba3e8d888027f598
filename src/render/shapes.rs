//! The `shapes` listing: every value's element type and shape, as text or as JSON
//! (`{"values": [{"graph", "name", "elem_type", "shape"}]}`, `shape` a list of integers (known), strings
//! (symbolic) and nulls (unknown), or null when even the rank is unknown).

use super::escape;
use crate::ir::tensor::elem_type_name;
use crate::shape::dim::{Dim, format_shape};
use crate::shape::infer::GraphShapes;
use crate::shape::value::ValueInfo;
use serde_json::{Value, json as j};
use std::fmt::Write;

fn elem(v: Option<&ValueInfo>) -> Option<String> {
    v.and_then(|v| v.elem).map(elem_type_name)
}

pub fn shapes_text(graphs: &[GraphShapes]) -> String {
    let mut out = String::new();
    for g in graphs {
        let _ = writeln!(out, "graph {}:", escape(&g.path));
        for (name, info) in &g.values {
            let ty = elem(info.as_ref()).unwrap_or_else(|| "?".to_owned());
            let shape = format_shape(&info.as_ref().and_then(|i| i.shape.clone()));
            let _ = writeln!(out, "  {}: {ty}{shape}", escape(name));
        }
    }
    out
}

fn dim_json(d: &Dim) -> Value {
    match d {
        Dim::Known(n) => Value::from(*n),
        Dim::Unknown => Value::Null,
        sym => Value::from(sym.to_string()),
    }
}

pub fn shapes_json(graphs: &[GraphShapes]) -> String {
    let values: Vec<Value> = graphs
        .iter()
        .flat_map(|g| {
            g.values.iter().map(move |(name, info)| {
                let shape = match info.as_ref().and_then(|i| i.shape.as_ref()) {
                    Some(dims) => Value::Array(dims.iter().map(dim_json).collect()),
                    None => Value::Null,
                };
                j!({ "graph": g.path, "name": name, "elem_type": elem(info.as_ref()), "shape": shape })
            })
        })
        .collect();
    serde_json::to_string_pretty(&j!({ "values": values })).unwrap_or_default() + "\n"
}
