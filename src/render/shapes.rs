//! The `shapes` listing: every value's element type and shape, as text or as JSON
//! (`{"values": [{"graph", "name", "elem_type", "shape"}]}`, `shape` a list of integers (known), strings
//! (symbolic) and nulls (unknown), or null when even the rank is unknown).
//!
//! Both are written straight to a writer, value by value: a graph of a million values would otherwise
//! be held as one string (and, for JSON, as a tree of a million `serde_json::Value` maps) before the
//! first byte is printed. The JSON goes through serde_json's own pretty printer, so it is the same
//! bytes as serializing the whole document at once.

use super::escaped;
use crate::ir::tensor::{elem_type_name, elem_type_str};
use crate::shape::dim::{Dim, write_shape};
use crate::shape::infer::GraphShapes;
use crate::shape::value::ValueInfo;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use std::io::{self, Write};

fn elem(v: Option<&ValueInfo>) -> Option<String> {
    v.and_then(|v| v.elem).map(elem_type_name)
}

/// Writes the text listing of `graphs` to `out`. Each line is put together in one buffer and written
/// at once: through `writeln!`, the formatting machinery and an allocation for the element type were
/// ~200 ms of a million-value listing (perf), a fifth of `shapes` of `synthetic_1M`.
pub fn write_shapes_text(out: &mut impl Write, graphs: &[GraphShapes]) -> io::Result<()> {
    let mut line = String::with_capacity(128);
    for g in graphs {
        writeln!(out, "graph {}:", escaped(&g.path))?;
        for (name, info) in g.iter() {
            line.clear();
            line.push_str("  ");
            line.push_str(&escaped(name));
            line.push_str(": ");
            match info.and_then(|i| i.elem) {
                Some(t) => line.push_str(&elem_type_str(t)),
                None => line.push('?'),
            }
            // Writing to a string cannot fail.
            let _ = write_shape(&mut line, info.and_then(|i| i.shape.as_deref()));
            line.push('\n');
            out.write_all(line.as_bytes())?;
        }
    }
    Ok(())
}

/// The text listing of `graphs`, as one string.
pub fn shapes_text(graphs: &[GraphShapes]) -> String {
    let mut out = Vec::new();
    // Writing to a vector cannot fail.
    let _ = write_shapes_text(&mut out, graphs);
    String::from_utf8(out).unwrap_or_default()
}

/// A shape as JSON: integers, strings (symbolic), nulls (unknown).
struct DimsJson<'a>(&'a [Dim]);

impl serde::Serialize for DimsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for d in self.0 {
            match d {
                Dim::Known(n) => seq.serialize_element(n)?,
                Dim::Unknown => seq.serialize_element(&())?,
                sym => seq.serialize_element(&sym.to_string())?,
            }
        }
        seq.end()
    }
}

/// One value's entry, its keys in the order serde_json's (sorted) maps print them.
struct ValueJson<'a> {
    graph: &'a str,
    name: &'a str,
    info: Option<&'a ValueInfo>,
}

impl serde::Serialize for ValueJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(4))?;
        map.serialize_entry("elem_type", &elem(self.info))?;
        map.serialize_entry("graph", self.graph)?;
        map.serialize_entry("name", self.name)?;
        let dims = self.info.and_then(|i| i.shape.as_deref()).map(DimsJson);
        map.serialize_entry("shape", &dims)?;
        map.end()
    }
}

struct ValuesJson<'a>(&'a [GraphShapes]);

impl serde::Serialize for ValuesJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let len = self.0.iter().map(GraphShapes::len).sum();
        let mut seq = s.serialize_seq(Some(len))?;
        for g in self.0 {
            for (name, info) in g.iter() {
                seq.serialize_element(&ValueJson {
                    graph: &g.path,
                    name,
                    info,
                })?;
            }
        }
        seq.end()
    }
}

struct DocumentJson<'a>(&'a [GraphShapes]);

impl serde::Serialize for DocumentJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry("values", &ValuesJson(self.0))?;
        map.end()
    }
}

/// Writes the JSON listing of `graphs` to `out` (pretty-printed, with a final newline).
pub fn write_shapes_json(out: &mut impl Write, graphs: &[GraphShapes]) -> io::Result<()> {
    let mut ser = serde_json::Serializer::pretty(&mut *out);
    serde::Serialize::serialize(&DocumentJson(graphs), &mut ser).map_err(io::Error::other)?;
    out.write_all(b"\n")
}

/// The JSON listing of `graphs`, as one string.
pub fn shapes_json(graphs: &[GraphShapes]) -> String {
    let mut out = Vec::new();
    // Writing to a vector cannot fail.
    let _ = write_shapes_json(&mut out, graphs);
    String::from_utf8(out).unwrap_or_default()
}
