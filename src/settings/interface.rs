//! The `interface` and `per-file-interface` keys of a configuration as written, read straight into
//! the contract [`crate::shape::interface`] compares models with. A bad entry (an element type onnx
//! does not name, a shape entry that is no size, symbol or `"?"`, a port listed twice) is refused while
//! the file is parsed, so the error shows the parser's diagram with a caret under the entry.

use crate::shape::interface::{Axis, Interface, Port, elem_type};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, de::Error as _};
use std::fmt;

/// An `interface` table: `inputs` and `outputs`, each a list of ports (absent: that side is not
/// checked).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct InterfaceTable {
    pub inputs: Option<Ports>,
    pub outputs: Option<Ports>,
}

impl InterfaceTable {
    /// The contract it states.
    pub fn contract(&self) -> Interface {
        Interface {
            inputs: self.inputs.as_ref().map(|p| p.0.clone()),
            outputs: self.outputs.as_ref().map(|p| p.0.clone()),
        }
    }
}

/// A list of ports, no name twice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ports(pub Vec<Port>);

impl<'de> Deserialize<'de> for Ports {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let entries = Vec::<PortEntry>::deserialize(d)?;
        let mut out: Vec<Port> = Vec::with_capacity(entries.len());
        for e in entries {
            // An empty name is no value of a graph.
            if e.name.is_empty() {
                return Err(D::Error::custom("a port's name is empty"));
            }
            if out.iter().any(|p| p.name == e.name) {
                return Err(D::Error::custom(format!("'{}' is listed twice", e.name)));
            }
            out.push(Port {
                name: e.name,
                elem: e.elem.map(|t| t.0),
                shape: e.shape.map(|axes| axes.into_iter().map(|a| a.0).collect()),
            });
        }
        Ok(Ports(out))
    }
}

/// One port as written: `{ name = "input_ids", type = "int64", shape = ["batch", "seq"] }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PortEntry {
    name: String,
    #[serde(rename = "type")]
    elem: Option<ElemType>,
    shape: Option<Vec<AxisEntry>>,
}

/// An element type by onnx's name (see [`elem_type`]).
struct ElemType(i32);

impl<'de> Deserialize<'de> for ElemType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        elem_type(&s).map(ElemType).map_err(D::Error::custom)
    }
}

/// One entry of a shape: a size (`128`), a symbol (`"batch"`) or `"?"`.
struct AxisEntry(Axis);

impl<'de> Deserialize<'de> for AxisEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(AxisVisitor)
    }
}

struct AxisVisitor;

/// What a shape entry may be, as the parser's message says it.
const AXIS_EXPECTED: &str = "a size (128), a symbol (\"batch\") or \"?\" (any size)";

impl<'de> Visitor<'de> for AxisVisitor {
    type Value = AxisEntry;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(AXIS_EXPECTED)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<AxisEntry, E> {
        u64::try_from(v)
            .map(|v| AxisEntry(Axis::Size(v)))
            .map_err(|_| E::custom(format!("{v} is negative: a shape entry is {AXIS_EXPECTED}")))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<AxisEntry, E> {
        // Sizes are evaluated as i64 elsewhere; a larger one is no tensor's.
        if i64::try_from(v).is_err() {
            return Err(E::custom(format!(
                "{v} is not a size: at most {}",
                i64::MAX
            )));
        }
        Ok(AxisEntry(Axis::Size(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<AxisEntry, E> {
        Axis::parse(v).map(AxisEntry).map_err(E::custom)
    }
}
