//! An `Expand` node made as the output is written, from the record of the node it feeds: the names
//! it reads and the name it gets all come from that record, so a rewrite of a million nodes holds a
//! small recipe per broadcast instead of the ~160 bytes of its two encoded nodes. The byte layer
//! knows it only as a [`MadeRecord`]: this module spells the nodes and their names.
//!
//! The bytes are those [`GraphPatch::insert_node`](crate::passes::GraphPatch::insert_node) writes
//! for the same nodes (both go through the one node encoder, `file::node_record`); the pass chooses
//! the names (a suffix `_k` where the plain name is taken) and the recipe only repeats that choice.

use crate::file::encoding::{digits, field_len, put_short, put_u32, small};
use crate::file::made::{MadeRecord, Words};
use crate::file::node_record::{NewNode, NodeRecord, Text, node_record_len};
use crate::file::schema::node::INPUT;

/// [`Recipe::shape_of`] of a recipe whose target is a named tensor (an initializer).
pub const STATIC: u32 = u32::MAX;

/// An `Expand` of input `slot` of the node it is inserted before, named
/// `<label>/expand_in<slot>[_<k_expand>]`, to a target that is either the tensor named by the
/// edit's text for it or the output of a `Shape` of the node's input `shape_of`, named
/// `<label>/expand_in<slot>/shape[_<k_shape>]` (inserted just before the Expand). `<label>` is the
/// node's name, or `#<position>` when it has none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recipe {
    pub slot: u32,
    pub shape_of: u32,
    /// Suffixes of the two names (0: none).
    pub k_expand: u32,
    pub k_shape: u32,
    /// The lengths the records are made of, when the pass knows them (see [`Known`]).
    pub known: Option<Known>,
}

/// What a pass knows of the record of the node a [`Recipe`] is for, from the model it loaded: the
/// lengths of the node's name and of the two inputs the recipe reads, and that the record holds its
/// inputs in the shortest encoding. With it, the output is measured without reading the record
/// again: the length of what the recipe makes, and of the node with its input rewired, follow from
/// these. The write still makes the bytes from the record, and checks the length it made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Known {
    /// The node's name (0: none, the label is then its position).
    pub name: u32,
    /// Input `slot`, the one rewired to the Expand.
    pub input: u32,
    /// Input `shape_of` (0 for a static target).
    pub shape_of: u32,
}

impl Recipe {
    /// [`MadeRecord::len`] from the lengths alone: the node's label, its inputs (`lens.name`
    /// unread), the static target's name.
    fn len_of(&self, label: usize, lens: Known, field: u32, target: usize) -> usize {
        let input = lens.input as usize;
        let expand_len = made_name_len(label, self.slot, false, self.k_expand);
        // A made node's name is also its one output.
        let node = |inputs: &[usize], name: usize, op: &str| {
            let strings: usize = inputs.iter().map(|&n| field_len(n)).sum();
            node_record_len(field, strings + 2 * field_len(name) + field_len(op.len()))
        };
        if self.shape_of == STATIC {
            return node(&[input, target], expand_len, "Expand");
        }
        let shape_len = made_name_len(label, self.slot, true, self.k_shape);
        node(&[lens.shape_of as usize], shape_len, "Shape")
            + node(&[input, shape_len], expand_len, "Expand")
    }
}

impl MadeRecord for Recipe {
    fn to_words(&self) -> Words {
        // No known lengths: a name of u32::MAX bytes, which no model under 2 GiB has.
        let k = self.known.unwrap_or(Known {
            name: u32::MAX,
            input: 0,
            shape_of: 0,
        });
        [
            self.slot,
            self.shape_of,
            self.k_expand,
            self.k_shape,
            k.name,
            k.input,
            k.shape_of,
        ]
    }

    fn from_words(w: &Words) -> Self {
        Recipe {
            slot: w[0],
            shape_of: w[1],
            k_expand: w[2],
            k_shape: w[3],
            known: (w[4] != u32::MAX).then_some(Known {
                name: w[4],
                input: w[5],
                shape_of: w[6],
            }),
        }
    }

    fn records(&self) -> usize {
        if self.shape_of == STATIC { 1 } else { 2 }
    }

    /// The node's input `slot` reads the Expand's output (its name, tagged with its suffix).
    fn rewires(&self) -> Option<(u32, u32, u32)> {
        Some((INPUT, self.slot, self.k_expand))
    }

    fn len(&self, node: &NodeRecord<'_>, field: u32, target: &[u8]) -> usize {
        let lens = Known {
            name: 0,
            input: small(node.input(self.slot).len()),
            shape_of: small(node.input(self.shape_of).len()),
        };
        self.len_of(label_len(node), lens, field, target.len())
    }

    fn write(&self, node: &NodeRecord<'_>, field: u32, target: &[u8], out: &mut Vec<u8>) {
        let input = Text::Bytes(node.input(self.slot));
        let expand_len = name_len(node, self.slot, false, self.k_expand);
        let expand_name = |o: &mut Vec<u8>| put_name(node, o, self.slot, false, self.k_expand);
        let expand = |inputs: &[Text<'_>], out: &mut Vec<u8>| {
            NewNode {
                inputs,
                outputs: &[Text::Made(expand_len, &expand_name)],
                name: Text::Made(expand_len, &expand_name),
                op_type: b"Expand",
                attributes: &[],
            }
            .put_record(field, out);
        };
        if self.shape_of == STATIC {
            expand(&[input, Text::Bytes(target)], out);
            return;
        }
        let shape_len = name_len(node, self.slot, true, self.k_shape);
        let shape_name = |o: &mut Vec<u8>| put_name(node, o, self.slot, true, self.k_shape);
        NewNode {
            inputs: &[Text::Bytes(node.input(self.shape_of))],
            outputs: &[Text::Made(shape_len, &shape_name)],
            name: Text::Made(shape_len, &shape_name),
            op_type: b"Shape",
            attributes: &[],
        }
        .put_record(field, out);
        // The Expand reads the Shape's output.
        expand(&[input, Text::Made(shape_len, &shape_name)], out);
    }

    fn known_len(&self, at: u32, field: u32, target: usize) -> Option<usize> {
        let known = self.known?;
        let label = label_len_of(known.name as usize, at);
        Some(self.len_of(label, known, field, target))
    }

    fn known_rewire(&self, at: u32, slot: u32, k: u32) -> Option<(usize, usize)> {
        let known = self.known?;
        let label = label_len_of(known.name as usize, at);
        Some((
            field_len(known.input as usize),
            field_len(made_name_len(label, slot, false, k)),
        ))
    }

    fn rewired_len(node: &NodeRecord<'_>, _field: u32, slot: u32, k: u32) -> usize {
        name_len(node, slot, false, k)
    }

    fn put_rewired(node: &NodeRecord<'_>, _field: u32, slot: u32, k: u32, out: &mut Vec<u8>) {
        put_name(node, out, slot, false, k);
    }
}

/// The length of a node's label: its name of `name` bytes, or `#<at>` without one.
fn label_len_of(name: usize, at: u32) -> usize {
    if name == 0 { 1 + digits(at) } else { name }
}

/// The length of `node`'s label (see [`put_name`]).
fn label_len(node: &NodeRecord<'_>) -> usize {
    label_len_of(node.name().len(), node.at())
}

/// The length of `<label>/expand_in<slot>[/shape][_<k>]` for a label of `label` bytes.
pub(crate) fn made_name_len(label: usize, slot: u32, shape: bool, k: u32) -> usize {
    label
        + "/expand_in".len()
        + digits(slot)
        + if shape { "/shape".len() } else { 0 }
        + if k > 0 { 1 + digits(k) } else { 0 }
}

/// The length of [`put_name`]'s name.
fn name_len(node: &NodeRecord<'_>, slot: u32, shape: bool, k: u32) -> usize {
    made_name_len(label_len(node), slot, shape, k)
}

/// Appends `<label>/expand_in<slot>[/shape][_<k>]`, the label being the node's name or
/// `#<position>`.
fn put_name(node: &NodeRecord<'_>, out: &mut Vec<u8>, slot: u32, shape: bool, k: u32) {
    if node.name().is_empty() {
        out.push(b'#');
        put_u32(out, node.at());
    } else {
        put_short(out, node.name());
    }
    out.extend_from_slice(b"/expand_in");
    put_u32(out, slot);
    if shape {
        out.extend_from_slice(b"/shape");
    }
    if k > 0 {
        out.push(b'_');
        put_u32(out, k);
    }
}
