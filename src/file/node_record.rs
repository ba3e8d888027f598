//! A graph's node record at the byte level: read once into its sub-records ([`NodeRecord`]), and
//! encoded from its parts ([`NewNode`]). The one `NodeProto` encoder: a pass's inserted nodes and
//! the records a list edit makes as it writes both go through it, so they cannot differ in field
//! order or in how a length is counted.

use super::encoding::{
    LEN, Record, WireError, field_len, put_short, record_len, records, write_varint,
};
use super::schema::node::{ATTRIBUTE, INPUT, NAME, OP_TYPE, OUTPUT};
use crate::proto::AttributeProto;
use prost::Message;
use std::ops::Range;

/// A string field of a node being encoded: bytes, or a string of this length that the function
/// appends. A made string is made each time it is written, not copied from where it was just
/// made: read back right after being stored, its bytes stalled the loads (see [`put_short`]).
pub enum Text<'a> {
    Bytes(&'a [u8]),
    Made(usize, &'a dyn Fn(&mut Vec<u8>)),
}

impl Text<'_> {
    pub fn len(&self) -> usize {
        match self {
            Text::Bytes(b) => b.len(),
            Text::Made(n, _) => *n,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn put(&self, out: &mut Vec<u8>) {
        match self {
            Text::Bytes(b) => put_short(out, b),
            Text::Made(_, made) => made(out),
        }
    }
}

/// A `NodeProto` to encode, in field order as prost writes it: inputs, outputs, name, op_type,
/// attributes (the default domain, no doc string).
pub struct NewNode<'a> {
    pub inputs: &'a [Text<'a>],
    pub outputs: &'a [Text<'a>],
    pub name: Text<'a>,
    pub op_type: &'a [u8],
    pub attributes: &'a [AttributeProto],
}

/// The length of a record of list field `field` holding a payload of `payload` bytes.
pub fn node_record_len(field: u32, payload: usize) -> usize {
    record_len(field, payload as u64) as usize
}

impl NewNode<'_> {
    /// The length of [`NewNode::put_payload`]'s bytes.
    pub fn payload_len(&self) -> usize {
        let mut len = field_len(self.name.len()) + field_len(self.op_type.len());
        for t in self.inputs.iter().chain(self.outputs) {
            len += field_len(t.len());
        }
        for a in self.attributes {
            len += field_len(a.encoded_len());
        }
        len
    }

    /// Appends the node's fields.
    pub fn put_payload(&self, out: &mut Vec<u8>) {
        let head = |out: &mut Vec<u8>, f: u32, len: usize| {
            // Every NodeProto field number is below 16: a one-byte tag.
            out.push(((f as u8) << 3) | LEN);
            write_varint(out, len as u64);
        };
        for t in self.inputs {
            head(out, INPUT, t.len());
            t.put(out);
        }
        for t in self.outputs {
            head(out, OUTPUT, t.len());
            t.put(out);
        }
        head(out, NAME, self.name.len());
        self.name.put(out);
        head(out, OP_TYPE, self.op_type.len());
        out.extend_from_slice(self.op_type);
        for a in self.attributes {
            head(out, ATTRIBUTE, a.encoded_len());
            // Encoding into a vector cannot fail.
            let _ = a.encode(out);
        }
    }

    /// Appends the node as a record of list field `field`: tag, length, payload.
    pub fn put_record(&self, field: u32, out: &mut Vec<u8>) {
        write_varint(out, (u64::from(field) << 3) | u64::from(LEN));
        write_varint(out, self.payload_len() as u64);
        self.put_payload(out);
    }
}

/// A node's record, read once: its sub-records, its name (the last one it holds, as a decoder
/// reads it) and its inputs.
pub struct NodeRecord<'s> {
    pub src: &'s [u8],
    pub subs: smallvec::SmallVec<[Record; 8]>,
    /// Where input `j` is in `subs`, found as the record is read: a record made from a node's
    /// inputs reads one or two of them, and finding each by a scan of `subs` made a node with many
    /// (a Sum of 100,000 broadcast inputs) take time quadratic in them.
    inputs: smallvec::SmallVec<[u32; 8]>,
    name: &'s [u8],
    at: u32,
}

impl<'s> NodeRecord<'s> {
    /// A record not yet read (see [`NodeRecord::read`]), occurrence `at` of its list.
    pub fn new(src: &'s [u8], at: u32) -> Self {
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
    pub fn read(&mut self, payload: Range<usize>) -> Result<(), WireError> {
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
    pub fn input(&self, j: u32) -> &'s [u8] {
        self.inputs
            .get(j as usize)
            .and_then(|&i| self.subs.get(i as usize))
            .and_then(|r| self.src.get(r.payload.clone()))
            .unwrap_or_default()
    }

    /// The node's name (empty if it has none).
    pub fn name(&self) -> &'s [u8] {
        self.name
    }

    /// The record's position in its list.
    pub fn at(&self) -> u32 {
        self.at
    }
}
