//! What the `expand` and `fold` reports keep of each line until the pass has succeeded (a refused
//! model reports the refusal only): numbers, not text. A rewrite of a million nodes makes a million
//! lines; as text they took ~110 MB and a sixth of the time.

use crate::ir::{Graph, OpNode};
use crate::render;
use crate::shape::dim::{Shape, format_shape};
use std::collections::HashMap;

/// Each distinct shape of a report, as text, by number. A report has few distinct shapes: while it
/// has at most [`ShapeIds::FEW`], a shape is found by comparing it with each (no hashing, no copy).
#[derive(Default)]
pub(super) struct ShapeIds {
    shapes: Vec<Shape>,
    ids: HashMap<Shape, u32>,
    texts: Vec<String>,
    /// The last two numbers given: a report's lines come node after node, and neighbours mostly
    /// have the same shapes (one comparison, not a search of up to `FEW`).
    recent: [u32; 2],
}

impl ShapeIds {
    const FEW: usize = 16;

    /// The number of `shape`.
    pub(super) fn id(&mut self, shape: &Shape) -> u32 {
        let id = self.find(shape);
        if self.recent[0] != id {
            self.recent = [id, self.recent[0]];
        }
        id
    }

    fn find(&mut self, shape: &Shape) -> u32 {
        for id in self.recent {
            if self.shapes.get(id as usize) == Some(shape) {
                return id;
            }
        }
        let found = if self.shapes.len() <= Self::FEW {
            self.shapes.iter().position(|s| s == shape).map(small)
        } else {
            self.ids.get(shape).copied()
        };
        if let Some(id) = found {
            return id;
        }
        let id = small(self.shapes.len());
        self.shapes.push(shape.clone());
        self.texts.push(format_shape(shape));
        if self.shapes.len() > Self::FEW {
            if self.ids.is_empty() {
                self.ids.extend(
                    self.shapes
                        .iter()
                        .cloned()
                        .zip(0..)
                        .map(|(s, i)| (s, small(i))),
                );
            } else {
                self.ids.insert(shape.clone(), id);
            }
        }
        id
    }

    pub(super) fn text(&self, id: u32) -> &str {
        self.texts.get(id as usize).map_or("", String::as_str)
    }
}

/// Counts kept in 32 bits saturate (a model under 2 GiB has fewer nodes and shapes).
pub(super) fn small(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Appends `s` escaped for a terminal (see [`render::escaped`]).
pub(super) fn put_escaped(line: &mut Vec<u8>, s: &str) {
    line.extend_from_slice(render::escaped(s).as_bytes());
}

/// Starts a report line, `<command>: graph <path>, node '<label>' (<op_type>)`, the names escaped.
/// Lines are put together from their pieces, not with `writeln!`: with the byte test of
/// `render::escaped`, the report of `expand` of `synthetic_1M` took 98 ms of CPU instead of 225.
pub(super) fn node_head(line: &mut Vec<u8>, command: &str, g: &Graph, op: &OpNode) {
    line.extend_from_slice(command.as_bytes());
    line.extend_from_slice(b": graph ");
    put_escaped(line, &g.path);
    line.extend_from_slice(b", node '");
    put_escaped(line, &op.label());
    line.extend_from_slice(b"' (");
    put_escaped(line, op.op_type());
    line.push(b')');
}
