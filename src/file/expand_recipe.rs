//! An `Expand` node made as the output is written, from the record of the node it feeds: the names
//! it reads and the name it gets all come from that record, so a rewrite of a million nodes holds a
//! 24-byte recipe per broadcast instead of the ~160 bytes of its two encoded nodes.
//!
//! The bytes are those `passes::GraphPatch::insert_node` writes for the same nodes (a `NodeProto`'s
//! input, output, name and op_type, in field order); the pass chooses the names (a suffix `_k` where
//! the plain name is taken) and the recipe only repeats that choice.

use super::encoding::{LEN, Record, WireError, put_short, records, write_varint};
use std::ops::Range;

/// `NodeProto` fields.
pub(super) const INPUT: u32 = 1;
const OUTPUT: u32 = 2;
const NAME: u32 = 3;
const OP_TYPE: u32 = 4;

/// [`Recipe::shape_of`] of a recipe whose target is a named tensor (an initializer).
pub const STATIC: u32 = u32::MAX;

/// An `Expand` of input `slot` of the node it is inserted before, named
/// `<label>/expand_in<slot>[_<k_expand>]`, to a target that is either the tensor named at
/// `target` or the output of a `Shape` of the node's input `shape_of`, named
/// `<label>/expand_in<slot>/shape[_<k_shape>]` (inserted just before the Expand). `<label>` is the
/// node's name, or `#<position>` when it has none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recipe {
    pub slot: u32,
    pub shape_of: u32,
    /// Range of the target's name in the edit's text (set when the recipe is queued).
    pub target: (u32, u32),
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
    /// The records this recipe inserts before `node`, of the list field `field`, appended to `out`.
    /// `target` is the static target's name.
    pub(super) fn write(
        &self,
        node: &NodeRecord<'_>,
        field: u32,
        target: &[u8],
        out: &mut Vec<u8>,
    ) {
        let input = Input::Bytes(node.input(self.slot));
        let expand_len = node.name_len(self.slot, false, self.k_expand);
        let expand_name = |o: &mut Vec<u8>| node.put_name(o, self.slot, false, self.k_expand);
        if self.shape_of == STATIC {
            let inputs = [input, Input::Bytes(target)];
            put_node(out, field, &inputs, expand_len, b"Expand", expand_name);
            return;
        }
        let shape_len = node.name_len(self.slot, true, self.k_shape);
        let shape_name = |o: &mut Vec<u8>| node.put_name(o, self.slot, true, self.k_shape);
        put_node(
            out,
            field,
            &[Input::Bytes(node.input(self.shape_of))],
            shape_len,
            b"Shape",
            shape_name,
        );
        // The Expand reads the Shape's output.
        let inputs = [input, Input::Made(shape_len, &shape_name)];
        put_node(out, field, &inputs, expand_len, b"Expand", expand_name);
    }

    /// The length of what [`Recipe::write`] appends.
    pub(super) fn len(&self, node: &NodeRecord<'_>, field: u32, target: &[u8]) -> usize {
        let lens = Known {
            name: 0,
            input: small(node.input(self.slot).len()),
            shape_of: small(node.input(self.shape_of).len()),
        };
        self.len_of(node.label_len(), lens, field, target.len())
    }

    /// [`Recipe::len`] from the lengths alone: the node's label, its inputs (`lens.name` unread),
    /// the static target's name.
    pub(super) fn len_of(&self, label: usize, lens: Known, field: u32, target: usize) -> usize {
        let input = lens.input as usize;
        let expand_len = made_name_len(label, self.slot, false, self.k_expand);
        if self.shape_of == STATIC {
            return node_len(field, &[input, target], expand_len, 6);
        }
        let shape_len = made_name_len(label, self.slot, true, self.k_shape);
        node_len(field, &[lens.shape_of as usize], shape_len, 5)
            + node_len(field, &[input, shape_len], expand_len, 6)
    }
}

/// Lengths are kept in 32 bits, as in the edit: a longer name saturates, and the length made from it
/// then differs from the one written, which the write reports as an error.
fn small(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The length of a node's label: its name of `name` bytes, or `#<at>` without one.
pub(super) fn label_len(name: usize, at: u32) -> usize {
    if name == 0 { 1 + digits(at) } else { name }
}

/// The length of `<label>/expand_in<slot>[/shape][_<k>]` for a label of `label` bytes.
pub(super) fn made_name_len(label: usize, slot: u32, shape: bool, k: u32) -> usize {
    label
        + "/expand_in".len()
        + digits(slot)
        + if shape { "/shape".len() } else { 0 }
        + if k > 0 { 1 + digits(k) } else { 0 }
}

/// `1 + varint + n`: a one-byte tag, the length and the payload of a field.
pub(super) fn field_len(n: usize) -> usize {
    1 + varint_len(n) + n
}

/// The record length of a node reading inputs of these lengths, named (and writing) a name of
/// `name` bytes, of an op type of `op` bytes, in list field `field`.
fn node_len(field: u32, inputs: &[usize], name: usize, op: usize) -> usize {
    let payload =
        inputs.iter().map(|&i| field_len(i)).sum::<usize>() + 2 * field_len(name) + field_len(op);
    varint_len(((field as usize) << 3) | usize::from(LEN)) + varint_len(payload) + payload
}

/// An input name of a node [`put_node`] makes: bytes, or a name of this length that the function
/// appends.
enum Input<'a> {
    Bytes(&'a [u8]),
    Made(usize, &'a dyn Fn(&mut Vec<u8>)),
}

impl Input<'_> {
    fn len(&self) -> usize {
        match self {
            Input::Bytes(b) => b.len(),
            Input::Made(n, _) => *n,
        }
    }
}

/// Appends the record of a node of `op_type` reading `inputs`, named and writing the `name_len`
/// bytes `name` appends. A name is made each time it is written, not copied from where it was just
/// made: read back right after being stored, its bytes stalled the loads (see
/// [`super::wire::put_short`]).
fn put_node(
    out: &mut Vec<u8>,
    field: u32,
    inputs: &[Input<'_>],
    name_len: usize,
    op_type: &[u8],
    name: impl Fn(&mut Vec<u8>),
) {
    let payload = inputs.iter().map(|i| field_len(i.len())).sum::<usize>()
        + 2 * field_len(name_len)
        + field_len(op_type.len());
    write_varint(out, (u64::from(field) << 3) | u64::from(LEN));
    write_varint(out, payload as u64);
    let head = |out: &mut Vec<u8>, f: u32, len: usize| {
        out.push(((f as u8) << 3) | LEN);
        write_varint(out, len as u64);
    };
    for i in inputs {
        head(out, INPUT, i.len());
        match i {
            Input::Bytes(b) => put_short(out, b),
            Input::Made(_, made) => made(out),
        }
    }
    head(out, OUTPUT, name_len);
    name(out);
    head(out, NAME, name_len);
    name(out);
    head(out, OP_TYPE, op_type.len());
    out.extend_from_slice(op_type);
}

fn varint_len(value: usize) -> usize {
    (64 - (value as u64 | 1).leading_zeros()).div_ceil(7) as usize
}

/// Decimal digits of `n`.
fn digits(mut n: u32) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// Appends `n` in decimal, written in place (see [`put_short`] on bytes read back from the stack).
pub(crate) fn put_u32(out: &mut Vec<u8>, n: u32) {
    if n < 10 {
        // An input's slot, nearly always.
        out.push(b'0' + n as u8);
        return;
    }
    let end = out.len() + digits(n);
    out.resize(end, b'0');
    let (mut i, mut n) = (end, n);
    while n > 0 {
        i -= 1;
        out[i] = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

/// A node's record, read once: its sub-records, its name (the last one it holds, as a decoder
/// reads it) and its inputs.
pub(super) struct NodeRecord<'s> {
    pub src: &'s [u8],
    pub subs: smallvec::SmallVec<[Record; 8]>,
    /// Where input `j` is in `subs`, found as the record is read: each recipe of the node reads one
    /// or two inputs, and finding each by a scan of `subs` made a node with many (a Sum of 100,000
    /// broadcast inputs) take time quadratic in them.
    inputs: smallvec::SmallVec<[u32; 8]>,
    name: &'s [u8],
    at: u32,
}

impl<'s> NodeRecord<'s> {
    /// A record not yet read (see [`NodeRecord::read`]).
    pub(super) fn new(src: &'s [u8], at: u32) -> Self {
        NodeRecord {
            src,
            subs: smallvec::SmallVec::new(),
            inputs: smallvec::SmallVec::new(),
            name: &[],
            at,
        }
    }

    /// Reads the record `src[payload]` into this one, in place: the record is ~370 bytes, and
    /// returned by value it was copied three times a node on its way to the writer.
    pub(super) fn read(&mut self, payload: Range<usize>) -> Result<(), WireError> {
        for rec in records(self.src, payload) {
            let rec = rec?;
            if rec.field == NAME && rec.wire_type == LEN {
                self.name = self.src.get(rec.payload.clone()).unwrap_or_default();
            }
            if rec.field == INPUT {
                // A record holds far fewer than 2^32 sub-records.
                self.inputs.push(self.subs.len() as u32);
            }
            self.subs.push(rec);
        }
        Ok(())
    }

    /// Input `j` (empty if the node has fewer).
    fn input(&self, j: u32) -> &'s [u8] {
        self.inputs
            .get(j as usize)
            .and_then(|&i| self.subs.get(i as usize))
            .and_then(|r| self.src.get(r.payload.clone()))
            .unwrap_or_default()
    }

    /// The length of the node's label (see [`NodeRecord::put_name`]).
    fn label_len(&self) -> usize {
        label_len(self.name.len(), self.at)
    }

    /// The length of [`NodeRecord::put_name`]'s name.
    pub(super) fn name_len(&self, slot: u32, shape: bool, k: u32) -> usize {
        made_name_len(self.label_len(), slot, shape, k)
    }

    /// Appends `<label>/expand_in<slot>[/shape][_<k>]`, the label being the node's name or
    /// `#<position>`.
    pub(super) fn put_name(&self, out: &mut Vec<u8>, slot: u32, shape: bool, k: u32) {
        if self.name.is_empty() {
            out.push(b'#');
            put_u32(out, self.at);
        } else {
            put_short(out, self.name);
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
}

#[cfg(test)]
mod tests {
    use super::{digits, put_u32};

    #[test]
    fn put_u32_appends_what_format_writes() {
        for n in [0u32, 7, 9, 10, 42, 99, 100, 999_999, 1_000_000, u32::MAX] {
            let mut got = b"#".to_vec();
            put_u32(&mut got, n);
            assert_eq!(got, format!("#{n}").into_bytes(), "{n}");
            assert_eq!(digits(n), n.to_string().len(), "{n}");
        }
    }
}
