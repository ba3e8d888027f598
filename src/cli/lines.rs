//! What the `expand` and `fold` reports keep of each line until the pass has succeeded (a refused
//! model reports the refusal only): numbers, not text. A rewrite of a million nodes makes a million
//! lines; as text they took ~110 MB and a sixth of the time.

use crate::shape::dim::{Shape, format_shape};
use std::collections::HashMap;

/// Each distinct shape of a report, as text, by number. The last shape looked up on each side is
/// checked first: the lines of a large graph repeat a few shapes.
#[derive(Default)]
pub(super) struct ShapeIds {
    ids: HashMap<Shape, u32>,
    texts: Vec<String>,
    last: [Option<(Shape, u32)>; 2],
}

impl ShapeIds {
    /// The number of `shape`, looked up for `side` (0 or 1: the two shapes of a line).
    pub(super) fn id(&mut self, side: usize, shape: &Shape) -> u32 {
        let side = side.min(1);
        if let Some((s, id)) = &self.last[side]
            && s == shape
        {
            return *id;
        }
        let id = match self.ids.get(shape) {
            Some(&id) => id,
            None => {
                let id = small(self.texts.len());
                self.texts.push(format_shape(shape));
                self.ids.insert(shape.clone(), id);
                id
            }
        };
        self.last[side] = Some((shape.clone(), id));
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
