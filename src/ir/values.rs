//! A graph's values and their names. The names lie end to end in one string, and each value keeps
//! only where its name ends (the previous value's end is where it starts). A graph of a million nodes
//! had a million small name allocations, and the kernel's zeroing of their fresh pages was a fifth of
//! the page zeroing of `check` (perf; bench/HISTORY.md, "Issue 20, seventh session").

use super::{NodeId, ValueId};

/// The values of one graph, in the order they were defined. Values are only ever appended.
#[derive(Debug, Default)]
pub struct Values {
    entries: Vec<Entry>,
    text: String,
}

#[derive(Debug)]
struct Entry {
    /// Where the value's name ends in [`Values::text`].
    end: usize,
    producer: (NodeId, u32),
}

/// A value: its name and where it comes from. The type its graph declares for it, if any, is in
/// [`super::Graph::declared`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Value<'g> {
    pub name: &'g str,
    /// The node that defines the value, and which of its outputs it is (0 for source nodes).
    pub producer: (NodeId, u32),
}

impl Values {
    /// Room for `values` values whose names take `text` bytes in all. An overestimate of `text` costs
    /// address space only: pages never written are never mapped in.
    pub fn with_capacity(values: usize, text: usize) -> Values {
        Values {
            entries: Vec::with_capacity(values),
            text: String::with_capacity(text),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Appends a value named `name` made by `producer`, and returns its id.
    pub fn push(&mut self, name: &str, producer: (NodeId, u32)) -> ValueId {
        let id = ValueId::new(self.entries.len());
        self.text.push_str(name);
        self.entries.push(Entry {
            end: self.text.len(),
            producer,
        });
        id
    }

    /// The value at position `index`, if there is one.
    #[inline]
    fn at(&self, index: usize) -> Option<Value<'_>> {
        let entry = self.entries.get(index)?;
        let start = match index.checked_sub(1) {
            Some(before) => self.entries.get(before).map_or(0, |e| e.end),
            None => 0,
        };
        Some(Value {
            name: self.text_between(start, entry.end),
            producer: entry.producer,
        })
    }

    /// The name text from `start` to `end`, two ends of names.
    #[inline]
    fn text_between(&self, start: usize, end: usize) -> &str {
        match self.text.as_bytes().get(start..end) {
            // SAFETY: `text` only grows, by whole `&str`s (`push`), and every `end` was its length
            // right after one was pushed; so both ends lie on character boundaries and the bytes
            // between are whole characters. (A `str::get` would check so by reading the byte at each
            // end, the second one often on a line of its own: a cache miss per name lookup.)
            Some(bytes) => unsafe { std::str::from_utf8_unchecked(bytes) },
            None => "",
        }
    }

    #[inline]
    pub fn get(&self, id: ValueId) -> Option<Value<'_>> {
        self.at(id.index())
    }

    /// The name of value `id`; empty for an id of another graph.
    #[inline]
    pub fn name(&self, id: ValueId) -> &str {
        self.get(id).map_or("", |v| v.name)
    }

    /// The values in the order they were defined (their ids in order).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Value<'_>> + Clone + '_ {
        let mut start = 0;
        self.entries.iter().map(move |e| {
            let name = self.text_between(start, e.end);
            start = e.end;
            Value {
                name,
                producer: e.producer,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use petgraph::stable_graph::NodeIndex;

    #[test]
    fn names_come_back_as_pushed_empty_and_non_ascii_ones_included() {
        let mut values = Values::with_capacity(1, 1);
        let names = ["x", "", "größe", "y/z:0", ""];
        for (i, n) in names.iter().enumerate() {
            let id = values.push(n, (NodeIndex::new(i), i as u32));
            assert_eq!(id, ValueId::new(i));
        }
        assert_eq!(values.len(), names.len());
        for (i, n) in names.iter().enumerate() {
            let v = values.get(ValueId::new(i)).expect("pushed");
            assert_eq!((v.name, v.producer), (*n, (NodeIndex::new(i), i as u32)));
            assert_eq!(values.name(ValueId::new(i)), *n);
        }
        let listed: Vec<&str> = values.iter().map(|v| v.name).collect();
        assert_eq!(listed, names);
        assert_eq!(values.get(ValueId::new(names.len())), None);
        assert_eq!(values.name(ValueId::new(99)), "");
    }
}
