//! What the `expand` and `fold` reports keep of each line until the pass has succeeded (a refused
//! model reports the refusal only): numbers, not text. A rewrite of a million nodes makes a million
//! lines; as text they took ~110 MB and a sixth of the time.

use crate::shape::dim::{Shape, format_shape};
use std::collections::HashMap;

/// Each distinct shape of a report, as text, by number. A report has few distinct shapes: while it
/// has at most [`ShapeIds::FEW`], a shape is found by comparing it with each (no hashing, no copy).
#[derive(Default)]
pub(super) struct ShapeIds {
    shapes: Vec<Shape>,
    ids: HashMap<Shape, u32>,
    texts: Vec<String>,
}

impl ShapeIds {
    const FEW: usize = 16;

    /// The number of `shape`.
    pub(super) fn id(&mut self, shape: &Shape) -> u32 {
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
