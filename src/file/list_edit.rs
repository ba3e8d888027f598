//! A compact edit of one repeated sub-message field of a message: a graph's node list. Records are
//! inserted before an occurrence, occurrences are removed, and sub-records of an occurrence (a node's
//! input, an attribute) are replaced or dropped.
//!
//! A rewrite of a million nodes touches a million occurrences. As [`super::wire::Edit`] entries each
//! was a record edit, a boxed child edit and a replacement buffer (~250 bytes and four allocations);
//! here an occurrence costs its bytes and a 16- or 24-byte entry in a sorted vector, and the writer
//! walks the vectors with cursors as it meets the records.

use super::wire::{LEN, Piece, Record, WireError, put_varint, records, write_varint};
use std::ops::Range;

/// A sub-record's fate: replaced by a length-delimited record of its field holding `text[start..end]`,
/// or dropped (`start == DROP`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Change {
    at: u32,
    field: u32,
    occurrence: u32,
    start: u32,
    end: u32,
}

const DROP: u32 = u32::MAX;

/// See the module documentation. Built in any order; [`ListEdit::finish`] sorts it (the writer needs it
/// sorted).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListEdit {
    /// The repeated field edited.
    pub field: u32,
    /// (occurrence, start in `bytes`) of whole records inserted before that occurrence; each run ends
    /// where the next starts. Sorted and one per occurrence once finished.
    before: Vec<(u32, usize)>,
    bytes: Vec<u8>,
    /// How many records `bytes` holds.
    inserted: usize,
    /// Sorted by (occurrence, field, sub-occurrence) once finished, one per sub-record (the last made).
    changes: Vec<Change>,
    /// The replacement payloads of `changes`, one after the other.
    text: Vec<u8>,
    /// Occurrences removed (a removal overrides every other change of the occurrence, not insertions
    /// before it). Sorted and distinct once finished.
    removed: Vec<u32>,
    finished: bool,
}

/// Occurrences and offsets are kept in 32 bits: a message under protobuf's 2 GiB limit has fewer
/// records, and its text fewer bytes. Larger values saturate (the model cannot be written anyway).
fn small(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX - 1)
}

impl ListEdit {
    pub fn new(field: u32) -> Self {
        ListEdit {
            field,
            ..Default::default()
        }
    }

    pub fn is_empty(&self) -> bool {
        self.before.is_empty() && self.changes.is_empty() && self.removed.is_empty()
    }

    /// Records queued for insertion.
    pub fn inserted(&self) -> usize {
        self.inserted
    }

    /// Makes room for `n` insertions and changes, without touching the memory (see
    /// [`Vec::reserve`]): vectors grown by doubling copy themselves over and over.
    pub fn reserve(&mut self, n: usize) {
        self.before.reserve(n);
        self.changes.reserve(n);
        self.bytes.reserve(n * 144);
        self.text.reserve(n * 32);
    }

    /// Starts a record to insert before occurrence `at`, after those queued there already: writes
    /// its tag and the length `len` of its payload, and returns the buffer to append the payload to.
    pub fn queue_record(&mut self, at: usize, len: usize) -> &mut Vec<u8> {
        let at = small(at);
        if self.before.last().is_none_or(|&(last, _)| last != at) {
            self.before.push((at, self.bytes.len()));
            self.finished = false;
        }
        self.inserted += 1;
        write_varint(
            &mut self.bytes,
            (u64::from(self.field) << 3) | u64::from(LEN),
        );
        write_varint(&mut self.bytes, len as u64);
        &mut self.bytes
    }

    /// Replaces sub-record (`field`, `occurrence`) of occurrence `at` by a length-delimited record of
    /// the same field holding `payload` (the last replacement of a sub-record wins).
    pub fn replace(&mut self, at: usize, field: u32, occurrence: usize, payload: &[u8]) {
        let start = small(self.text.len());
        self.text.extend_from_slice(payload);
        self.change(at, field, occurrence, start, small(self.text.len()));
    }

    /// Drops sub-record (`field`, `occurrence`) of occurrence `at`.
    pub fn drop_sub(&mut self, at: usize, field: u32, occurrence: usize) {
        self.change(at, field, occurrence, DROP, DROP);
    }

    fn change(&mut self, at: usize, field: u32, occurrence: usize, start: u32, end: u32) {
        self.changes.push(Change {
            at: small(at),
            field,
            occurrence: small(occurrence),
            start,
            end,
        });
        self.finished = false;
    }

    /// Removes occurrence `at`.
    pub fn remove(&mut self, at: usize) {
        self.removed.push(small(at));
        self.finished = false;
    }

    /// Occurrences removed (distinct).
    pub fn removed(&self) -> usize {
        if self.finished || self.removed.is_sorted_by(|a, b| a < b) {
            return self.removed.len();
        }
        let mut r = self.removed.clone();
        r.sort_unstable();
        r.dedup();
        r.len()
    }

    /// Sorts what was queued in any order, keeping the order in which one occurrence's records were
    /// queued, and the last change of each sub-record.
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        if !self.before.is_sorted_by(|a, b| a.0 < b.0) {
            // Runs of one occurrence are gathered in queue order into a new buffer.
            let ends: Vec<usize> = self
                .before
                .iter()
                .skip(1)
                .map(|&(_, s)| s)
                .chain([self.bytes.len()])
                .collect();
            let mut runs: Vec<(u32, Range<usize>)> = self
                .before
                .iter()
                .zip(ends)
                .map(|(&(at, s), e)| (at, s..e))
                .collect();
            runs.sort_by_key(|(at, _)| *at);
            let mut bytes = Vec::with_capacity(self.bytes.len());
            let mut before: Vec<(u32, usize)> = Vec::with_capacity(runs.len());
            for (at, r) in runs {
                if before.last().is_none_or(|&(last, _)| last != at) {
                    before.push((at, bytes.len()));
                }
                bytes.extend_from_slice(&self.bytes[r]);
            }
            self.before = before;
            self.bytes = bytes;
        }
        let key = |c: &Change| (c.at, c.field, c.occurrence);
        if !self.changes.is_sorted_by(|a, b| key(a) < key(b)) {
            // Stable: of one sub-record's changes, the last made ends up last.
            self.changes.sort_by_key(key);
            let mut kept: Vec<Change> = Vec::with_capacity(self.changes.len());
            for c in self.changes.drain(..) {
                match kept.last_mut() {
                    Some(last) if key(last) == key(&c) => *last = c,
                    _ => kept.push(c),
                }
            }
            self.changes = kept;
        }
        self.removed.sort_unstable();
        self.removed.dedup();
    }

    /// A walk over the occurrences in order.
    pub(super) fn cursor(&self) -> Cursor<'_> {
        Cursor {
            edit: self,
            before: 0,
            changes: 0,
            removed: 0,
        }
    }
}

impl ListEdit {
    /// The edit of occurrence `at`, looked up (finished).
    pub(super) fn occurrence(&self, at: usize) -> Occurrence<'_> {
        let at = small(at);
        let before = match self.before.binary_search_by_key(&at, |b| b.0) {
            Ok(i) => {
                let end = self.before.get(i + 1).map_or(self.bytes.len(), |b| b.1);
                self.bytes.get(self.before[i].1..end).unwrap_or_default()
            }
            Err(_) => &[],
        };
        let first = self.changes.partition_point(|c| c.at < at);
        let n = self.changes[first..]
            .iter()
            .take_while(|c| c.at == at)
            .count();
        Occurrence {
            before,
            removed: self.removed.binary_search(&at).is_ok(),
            changes: &self.changes[first..first + n],
            text: &self.text,
        }
    }
}

/// What the edit does to one occurrence.
pub(super) struct Occurrence<'a> {
    pub before: &'a [u8],
    pub removed: bool,
    changes: &'a [Change],
    text: &'a [u8],
}

/// Walks a finished [`ListEdit`] in occurrence order.
pub(super) struct Cursor<'a> {
    edit: &'a ListEdit,
    before: usize,
    changes: usize,
    removed: usize,
}

impl<'a> Cursor<'a> {
    /// The edit of occurrence `at`; occurrences must be asked for in increasing order.
    pub fn at(&mut self, at: usize) -> Occurrence<'a> {
        let e = self.edit;
        let at = small(at);
        let mut before: &[u8] = &[];
        while let Some(&(o, start)) = e.before.get(self.before) {
            if o > at {
                break;
            }
            self.before += 1;
            if o == at {
                let end = e.before.get(self.before).map_or(e.bytes.len(), |b| b.1);
                before = e.bytes.get(start..end).unwrap_or_default();
            }
        }
        while e.removed.get(self.removed).is_some_and(|&r| r < at) {
            self.removed += 1;
        }
        let removed = e.removed.get(self.removed) == Some(&at);
        while e.changes.get(self.changes).is_some_and(|c| c.at < at) {
            self.changes += 1;
        }
        let n = e.changes[self.changes..]
            .iter()
            .take_while(|c| c.at == at)
            .count();
        let changes = &e.changes[self.changes..self.changes + n];
        self.changes += n;
        Occurrence {
            before,
            removed,
            changes,
            text: &e.text,
        }
    }
}

impl Occurrence<'_> {
    /// The changes of sub-records: (field, occurrence, the new payload or `None` to drop it).
    pub fn changes(&self) -> impl Iterator<Item = (u32, usize, Option<&[u8]>)> + '_ {
        self.changes.iter().map(|c| {
            let payload = (c.start != DROP).then(|| {
                self.text
                    .get(c.start as usize..c.end as usize)
                    .unwrap_or_default()
            });
            (c.field, c.occurrence as usize, payload)
        })
    }

    /// True when the occurrence itself is written as it was read.
    pub fn kept_whole(&self) -> bool {
        !self.removed && self.changes.is_empty()
    }

    /// Hands the pieces of the changed occurrence's payload `src[payload]` to `f` in order: spans of
    /// the source, and replacement records. Returns the payload's new length.
    pub fn pieces<E: From<WireError>>(
        &self,
        src: &[u8],
        payload: Range<usize>,
        mut f: impl FnMut(Piece<'_>) -> Result<(), E>,
    ) -> Result<u64, E> {
        // Occurrences met of each changed field, by the index of the field's first change.
        let mut stack = [0u32; 16];
        let mut heap;
        let counts: &mut [u32] = if self.changes.len() <= stack.len() {
            &mut stack[..self.changes.len()]
        } else {
            heap = vec![0u32; self.changes.len()];
            &mut heap
        };
        let mut len = 0u64;
        for rec in records(src, payload) {
            let rec: Record = rec?;
            let first = self.changes.iter().position(|c| c.field == rec.field);
            let change = first.and_then(|i| {
                let occurrence = counts[i];
                counts[i] += 1;
                self.changes[i..]
                    .iter()
                    .find(|c| c.field == rec.field && c.occurrence == occurrence)
            });
            match change {
                None => {
                    len += rec.span.len() as u64;
                    f(Piece::Source(rec.span))?;
                }
                Some(c) if c.start == DROP => {}
                Some(c) => {
                    let body = self
                        .text
                        .get(c.start as usize..c.end as usize)
                        .unwrap_or_default();
                    let mut head = [0u8; 20];
                    let n = put_varint(&mut head, 0, (u64::from(rec.field) << 3) | u64::from(LEN));
                    let n = put_varint(&mut head, n, body.len() as u64);
                    len += (n + body.len()) as u64;
                    f(Piece::Bytes(&head[..n]))?;
                    f(Piece::Bytes(body))?;
                }
            }
        }
        Ok(len)
    }
}
