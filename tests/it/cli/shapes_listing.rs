//! The `shapes` listing is written value by value to a writer (issue 20). It must be the same bytes as
//! the listing built whole before: the text as `format_shape` wrote each line, the JSON as serde_json
//! pretty-printed one document of `json!` values. Checked on models with subgraphs (If, Loop), and
//! through the command, whose standard output is the streamed listing.

use crate::support::paths::root;
use onnx_lint::file::Origin;
use onnx_lint::ir::tensor::elem_type_name;
use onnx_lint::render::{escape, shapes_json, shapes_text};
use onnx_lint::shape::dim::{Dim, format_shape};
use onnx_lint::shape::infer::GraphShapes;
use serde_json::{Value, json};
use std::fmt::Write;

const MODELS: &[&str] = &[
    "models/broken/e1_in_if.onnx",
    "models/broken/e1_in_loop.onnx",
    "models/tiny_transformer.onnx",
];

/// The text listing as it was built before it was streamed.
fn text_whole(graphs: &[GraphShapes]) -> String {
    let mut out = String::new();
    for g in graphs {
        let _ = writeln!(out, "graph {}:", escape(&g.path));
        for (name, info) in g.iter() {
            let ty = info
                .and_then(|i| i.elem)
                .map(elem_type_name)
                .unwrap_or_else(|| "?".to_owned());
            let shape = format_shape(&info.and_then(|i| i.shape.clone()));
            let _ = writeln!(out, "  {}: {ty}{shape}", escape(name));
        }
    }
    out
}

/// The JSON listing as it was built before it was streamed.
fn json_whole(graphs: &[GraphShapes]) -> String {
    let dim = |d: &Dim| match d {
        Dim::Known(n) => Value::from(*n),
        Dim::Unknown => Value::Null,
        sym => Value::from(sym.to_string()),
    };
    let values: Vec<Value> = graphs
        .iter()
        .flat_map(|g| {
            g.iter().map(move |(name, info)| {
                let shape = match info.and_then(|i| i.shape.as_ref()) {
                    Some(dims) => Value::Array(dims.iter().map(dim).collect()),
                    None => Value::Null,
                };
                let elem = info.and_then(|i| i.elem).map(elem_type_name);
                json!({ "graph": g.path, "name": name, "elem_type": elem, "shape": shape })
            })
        })
        .collect();
    serde_json::to_string_pretty(&json!({ "values": values })).expect("serializes") + "\n"
}

#[test]
fn streamed_listing_is_the_listing_built_whole() {
    for m in MODELS {
        let (_, found) = onnx_lint::lint::load(Origin::File(root().join(m))).expect("loads");
        assert!(
            found.shapes.len() >= 2 || m.contains("tiny"),
            "{m}: subgraphs listed"
        );
        assert_eq!(shapes_text(&found.shapes), text_whole(&found.shapes), "{m}");
        assert_eq!(shapes_json(&found.shapes), json_whole(&found.shapes), "{m}");
    }
    // No graph at all: an empty document.
    assert_eq!(shapes_json(&[]), json_whole(&[]));
    assert_eq!(shapes_text(&[]), "");
}

#[test]
fn the_command_prints_the_streamed_listing() {
    let bin = crate::support::binary::BIN;
    for m in MODELS {
        let (_, found) = onnx_lint::lint::load(Origin::File(root().join(m))).expect("loads");
        for (format, want) in [
            ("text", text_whole(&found.shapes)),
            ("json", json_whole(&found.shapes)),
        ] {
            let out = std::process::Command::new(bin)
                .args(["shapes", "--format", format])
                .arg(root().join(m))
                .output()
                .expect("runs");
            assert_eq!(out.status.code(), Some(0), "{m} {format}");
            assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{m} {format}");
        }
    }
}
