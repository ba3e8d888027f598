//! The write walk of a finished [`ListEdit`]: a [`Cursor`] meets the occurrences in order, and each
//! [`Occurrence`] measures or writes its record with the edit applied (records inserted or made
//! before it, sub-records replaced or dropped, the occurrence removed).

use super::{Change, DROP, Item, ListEdit, MADE, Part};
use crate::file::encoding::{
    LEN, Piece, Record, WireError, put_short, put_varint, record_len, small,
};
use crate::file::made::Maker;
use crate::file::node_record::NodeRecord;
use std::ops::Range;
/// What a write walk puts together is handed on once it holds this much.
const HAND_ON_ABOVE: usize = 1 << 20;

/// A changed record longer than this is written in pieces, its large spans copied by the kernel
/// (a node holding a tensor); a shorter one is put together in a buffer and written in one piece.
const SPAN_ABOVE: usize = 1 << 16;

/// Where the pieces of an occurrence go (`None`: they are only measured).
pub(in crate::file) type Sink<'f, E> = &'f mut dyn FnMut(Piece<'_>) -> Result<(), E>;

/// What the edit does to one occurrence.
pub(in crate::file) struct Occurrence<'a> {
    at: u32,
    before: &'a [(u32, Item)],
    pub removed: bool,
    changes: &'a [Change],
    edit: &'a Part,
    maker: &'a dyn Maker,
}

impl ListEdit {
    /// The edit of occurrence `at`, looked up (finished): a cursor placed just before it.
    pub(in crate::file) fn occurrence(&self, at: usize) -> Occurrence<'_> {
        self.cursor_from(at).at(at)
    }

    /// A walk over the occurrences in order.
    pub(in crate::file) fn cursor(&self) -> Cursor<'_> {
        self.cursor_from(0)
    }

    /// A walk over the occurrences in order from occurrence `at` on (finished).
    pub(in crate::file) fn cursor_from(&self, at: usize) -> Cursor<'_> {
        let mut c = Cursor {
            edit: self,
            part: 0,
            before: 0,
            changes: 0,
            removed: 0,
            scratch: Vec::new(),
        };
        c.enter(self.part_of(small(at)), small(at));
        c
    }

    /// The part that holds occurrence `at`'s edits, if any (finished).
    fn part_of(&self, at: u32) -> usize {
        self.starts.partition_point(|&s| s <= at)
    }

    /// How much writing the edit takes, in entries: records inserted and sub-records changed.
    pub(in crate::file) fn work(&self) -> usize {
        self.parts
            .iter()
            .map(|p| p.before.len() + p.changes.len())
            .sum()
    }

    /// An occurrence that divides the work in two about equal halves (finished): where a write in two
    /// parts splits the list.
    pub(in crate::file) fn middle(&self) -> usize {
        let nth = |k: usize, of: fn(&Part, usize) -> Option<u32>, len: fn(&Part) -> usize| {
            let mut k = k;
            for p in &self.parts {
                if k < len(p) {
                    return of(p, k);
                }
                k -= len(p);
            }
            None
        };
        let before = |p: &Part, k: usize| p.before.get(k).map(|b| b.0);
        let changes = |p: &Part, k: usize| p.changes.get(k).map(|c| c.at);
        let total_before: usize = self.parts.iter().map(|p| p.before.len()).sum();
        let total_changes: usize = self.parts.iter().map(|p| p.changes.len()).sum();
        let x = nth(total_before / 2, before, |p| p.before.len());
        let y = nth(total_changes / 2, changes, |p| p.changes.len());
        let at = match (x, y) {
            (Some(x), Some(y)) => x.min(y),
            (Some(x), None) => x,
            (None, Some(y)) => y,
            (None, None) => 0,
        };
        at as usize
    }
}

/// Walks a finished [`ListEdit`] in occurrence order.
pub(in crate::file) struct Cursor<'a> {
    edit: &'a ListEdit,
    /// The part walked, and where the walk stands in its vectors.
    part: usize,
    before: usize,
    changes: usize,
    removed: usize,
    /// Where what the walk writes is put together and handed on in pieces of about
    /// [`HAND_ON_ABOVE`] bytes (see [`Cursor::flush`]): one buffer for the walk, not allocations
    /// for each of a million occurrences, nor a piece (and a copy into the writer's buffer) for
    /// each.
    scratch: Vec<u8>,
}

impl<'a> Cursor<'a> {
    /// [`Occurrence::splice`] of occurrence `at` (asked for in increasing order).
    pub fn splice<E: From<WireError>>(
        &mut self,
        at: usize,
        src: &[u8],
        rec: &Record,
        out: Option<Sink<'_, E>>,
    ) -> Result<u64, E> {
        let o = self.at(at);
        o.splice(src, rec, at, out, &mut self.scratch)
    }

    /// Hands on what the walk has put together and not yet handed on: at the end of the list, and
    /// before anything else is written.
    pub fn flush<E>(&mut self, f: Sink<'_, E>) -> Result<(), E> {
        if !self.scratch.is_empty() {
            f(Piece::Bytes(&self.scratch))?;
            self.scratch.clear();
        }
        Ok(())
    }

    /// Places the walk in part `part`, at occurrence `at`.
    pub(super) fn enter(&mut self, part: usize, at: u32) {
        self.part = part;
        let Some(p) = self.edit.parts.get(part) else {
            return;
        };
        self.before = p.before.partition_point(|b| b.0 < at);
        self.changes = p.changes.partition_point(|c| c.at < at);
        self.removed = p.removed.partition_point(|&r| r < at);
    }

    /// The edit of occurrence `at`; occurrences must be asked for in increasing order.
    pub fn at(&mut self, at: usize) -> Occurrence<'a> {
        let at = small(at);
        let part = self.edit.part_of(at);
        if part != self.part {
            self.enter(part, at);
        }
        static NONE: Part = Part {
            before: Vec::new(),
            bytes: Vec::new(),
            inserted: 0,
            changes: Vec::new(),
            text: Vec::new(),
            removed: Vec::new(),
            finished: true,
        };
        let e = self.edit.parts.get(part).unwrap_or(&NONE);
        while e.before.get(self.before).is_some_and(|b| b.0 < at) {
            self.before += 1;
        }
        let n = e.before[self.before..]
            .iter()
            .take_while(|b| b.0 == at)
            .count();
        let before = &e.before[self.before..self.before + n];
        self.before += n;
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
            at,
            before,
            removed,
            changes,
            edit: e,
            maker: self.edit.maker,
        }
    }
}

impl Occurrence<'_> {
    /// The records inserted before the occurrence, but for those a [`MadeRecord`] makes (from the
    /// occurrence's record as it is written).
    pub fn plain_before(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.before.iter().filter_map(|(_, item)| match *item {
            Item::Bytes { start, end } => Some(self.edit.bytes.get(start..end).unwrap_or_default()),
            Item::Made { .. } => None,
        })
    }

    /// The changes of sub-records: (field, occurrence, the new payload or `None` to drop it), but
    /// for the rewrites of a [`MadeRecord`] (made from the record as it is written).
    pub fn plain_changes(&self) -> impl Iterator<Item = (u32, usize, Option<&[u8]>)> + '_ {
        self.changes.iter().filter(|c| c.start != MADE).map(|c| {
            let payload = (c.start != DROP).then(|| self.text(c.start, c.end));
            (c.field, c.occurrence as usize, payload)
        })
    }

    fn text(&self, start: u32, end: u32) -> &[u8] {
        self.edit
            .text
            .get(start as usize..end as usize)
            .unwrap_or_default()
    }

    /// True when the occurrence itself is written as it was read.
    fn kept_whole(&self) -> bool {
        !self.removed && self.changes.is_empty()
    }

    /// Reads the occurrence's record (`payload` of `node`'s source) into `node`, if what is
    /// inserted before it or its changes need it; returns whether it did.
    fn read(&self, node: &mut NodeRecord<'_>, payload: Range<usize>) -> Result<bool, WireError> {
        let made_before = self
            .before
            .iter()
            .any(|(_, i)| matches!(i, Item::Made { .. }));
        if !made_before && (self.removed || self.changes.is_empty()) {
            return Ok(false);
        }
        node.read(payload)?;
        Ok(true)
    }

    /// Hands what the edit makes of the occurrence, whose record is `rec` (occurrence `occurrence`
    /// of the list's field), to `out`: what is inserted before it, then the record as it was, changed,
    /// or nothing if removed. With `out` `None`, only measures it; either way returns the length.
    /// Measuring and writing are this one walk, so they cannot disagree, but for a measure from
    /// lengths a [`MadeRecord`] knows (see [`Occurrence::known_len`]), which the
    /// writer checks against what it made. What is made is put together in `scratch`, after what
    /// it holds, and handed on when it holds [`HAND_ON_ABOVE`] bytes or a span of the source
    /// must follow (see [`Cursor::flush`]).
    pub fn splice<E: From<WireError>>(
        &self,
        src: &[u8],
        rec: &Record,
        occurrence: usize,
        out: Option<Sink<'_, E>>,
        scratch: &mut Vec<u8>,
    ) -> Result<u64, E> {
        if rec.wire_type != LEN && !(self.before.is_empty() && self.kept_whole()) {
            return Err(WireError::NotLengthDelimited {
                field: rec.field,
                occurrence,
            }
            .into());
        }
        if out.is_none()
            && rec.wire_type == LEN
            && let Some(len) = self.known_len(rec)
        {
            return Ok(len);
        }
        let mut record = NodeRecord::new(src, self.at);
        let node = self
            .read(&mut record, rec.payload.clone())?
            .then_some(&record);
        let Some(f) = out else {
            return Ok(self.measure(node, rec));
        };
        if scratch.capacity() < HAND_ON_ABOVE {
            // Room for a piece and the record that ends it, at once: a buffer grown by doubling
            // past the piece's size leaves the smaller ones behind (whole huge pages, with THP).
            scratch.reserve_exact(HAND_ON_ABOVE + SPAN_ABOVE);
        }
        let mut len = self.before(node, rec.field, Some(scratch));
        let whole = match node.filter(|_| !self.removed && !self.kept_whole()) {
            // A record holding a large tensor: its spans are handed on as spans of the source (a
            // kernel copy), not put together here.
            Some(node) if rec.payload.len() > SPAN_ABOVE => {
                let inner = self.pieces(node, None, None)?;
                let mut head = [0u8; 20];
                let n = put_varint(&mut head, 0, (u64::from(rec.field) << 3) | u64::from(LEN));
                let n = put_varint(&mut head, n, inner);
                put_short(scratch, &head[..n]);
                self.pieces(node, Some(scratch), Some(&mut *f))?;
                len += (n as u64) + inner;
                None
            }
            Some(node) => {
                // The payload goes after room for its tag and length, which are then moved up
                // against it and the whole moved down: one copy of a node's ~100 bytes.
                const ROOM: usize = 20;
                let head_at = scratch.len();
                scratch.resize(head_at + ROOM, 0);
                let inner = self.pieces(node, Some(scratch), None)?;
                let mut head = [0u8; ROOM];
                let n = put_varint(&mut head, 0, (u64::from(rec.field) << 3) | u64::from(LEN));
                let n = put_varint(&mut head, n, inner);
                let from = head_at + ROOM - n;
                scratch[from..head_at + ROOM].copy_from_slice(&head[..n]);
                scratch.copy_within(from.., head_at);
                scratch.truncate(scratch.len() - (ROOM - n));
                len += (n as u64) + inner;
                None
            }
            None => (!self.removed).then(|| rec.span.clone()),
        };
        if let Some(span) = whole {
            len += span.len() as u64;
            match src.get(span.clone()) {
                // Nothing pending: a span, which joins the spans of the records left as they are
                // around it (a kernel copy, when they are many).
                _ if scratch.is_empty() => f(Piece::Source(span))?,
                Some(bytes) if span.len() <= SPAN_ABOVE => put_short(scratch, bytes),
                _ => {
                    f(Piece::Bytes(scratch))?;
                    scratch.clear();
                    f(Piece::Source(span))?;
                }
            }
        }
        if scratch.len() >= HAND_ON_ABOVE {
            f(Piece::Bytes(scratch))?;
            scratch.clear();
        }
        Ok(len)
    }

    /// The length of what [`Occurrence::splice`] writes, `node` being the occurrence's record (see
    /// [`Occurrence::read`]).
    fn measure(&self, node: Option<&NodeRecord<'_>>, rec: &Record) -> u64 {
        let len = self.before(node, rec.field, None);
        if self.removed {
            return len;
        }
        let Some(node) = node.filter(|_| !self.kept_whole()) else {
            return len + rec.span.len() as u64;
        };
        let Ok(inner) = self.pieces::<std::convert::Infallible>(node, None, None);
        len + record_len(rec.field, inner)
    }

    /// The length [`Occurrence::splice`] makes of the occurrence whose record is `rec`, found
    /// without reading the record when every [`MadeRecord`] of the occurrence knows its lengths
    /// ([`MadeRecord::known_len`]) and the only changes are their rewrites: the record's
    /// sub-records are then in their shortest encoding, so a rewritten one grows by what its
    /// payload grows. `None` where the record must be read.
    fn known_len(&self, rec: &Record) -> Option<u64> {
        let mut len = 0u64;
        // The made records' (rewritten sub-record, where in `before`), to find the made record of
        // each rewrite by a binary search: a scan for each rewrite made a node with many (a Sum of
        // 100,000 broadcast inputs) quadratic in them.
        let mut rewires: smallvec::SmallVec<[((u32, u32), usize); 4]> = smallvec::SmallVec::new();
        for (i, (_, item)) in self.before.iter().enumerate() {
            match *item {
                Item::Bytes { start, end } => len += end.saturating_sub(start) as u64,
                Item::Made { words, text } => {
                    let text = text.1.saturating_sub(text.0) as usize;
                    len += self.maker.known_len(&words, self.at, rec.field, text)? as u64;
                    if let Some((field, occurrence, _)) = self.maker.rewires(&words) {
                        rewires.push(((field, occurrence), i));
                    }
                }
            }
        }
        if self.removed {
            return Some(len);
        }
        if self.changes.is_empty() {
            return Some(len + rec.span.len() as u64);
        }
        // Stable: of two made records of one sub-record, the one queued first stays first.
        rewires.sort_by_key(|&(key, _)| key);
        let mut inner = rec.payload.len() as u64;
        for c in self.changes {
            // The rewrite of a made record of this occurrence.
            if c.start != MADE {
                return None;
            }
            let key = (c.field, c.occurrence);
            let first = rewires.partition_point(|&(k, _)| k < key);
            let words = match rewires.get(first) {
                Some(&(k, i)) if k == key => match self.before[i].1 {
                    Item::Made { words, .. } => words,
                    Item::Bytes { .. } => return None,
                },
                _ => return None,
            };
            let (old, new) = self
                .maker
                .known_rewire(&words, self.at, c.occurrence, c.end)?;
            inner = (inner + new as u64).checked_sub(old as u64)?;
        }
        Some(len + record_len(rec.field, inner))
    }

    /// Appends what is inserted before the occurrence to `out`; with `out` `None`, only measures
    /// it. Returns the length. `node` is the occurrence's record (see [`Occurrence::read`]).
    fn before(
        &self,
        node: Option<&NodeRecord<'_>>,
        field: u32,
        mut out: Option<&mut Vec<u8>>,
    ) -> u64 {
        let mut len = 0u64;
        for (_, item) in self.before {
            match (*item, node) {
                (Item::Bytes { start, end }, _) => {
                    let b = self.edit.bytes.get(start..end).unwrap_or_default();
                    len += b.len() as u64;
                    if let Some(out) = &mut out {
                        put_short(out, b);
                    }
                }
                (Item::Made { words, text }, Some(node)) => {
                    let text = self.text(text.0, text.1);
                    match &mut out {
                        None => len += self.maker.len(&words, node, field, text) as u64,
                        Some(out) => {
                            let at = out.len();
                            self.maker.write(&words, node, field, text, out);
                            len += (out.len() - at) as u64;
                        }
                    }
                }
                // The record could not be read: `read` said why.
                (Item::Made { .. }, None) => {}
            }
        }
        len
    }

    /// Appends the changed occurrence's payload to `out` (spans of the source and replacement
    /// records, in order); with `out` `None`, only measures it. Returns the payload's new length.
    /// With `large`, a source span over [`SPAN_ABOVE`] bytes is handed to it as a span, after what
    /// `out` holds (which is then emptied).
    fn pieces<E>(
        &self,
        node: &NodeRecord<'_>,
        mut out: Option<&mut Vec<u8>>,
        mut large: Option<Sink<'_, E>>,
    ) -> Result<u64, E> {
        let mut walks = FieldWalk::of(self.changes);
        let mut len = 0u64;
        // Records left as they are, not yet copied: a run of them is one copy.
        let mut kept: Option<Range<usize>> = None;
        let copy = |out: &mut Vec<u8>, kept: &mut Option<Range<usize>>| {
            if let Some(r) = kept.take() {
                put_short(out, node.src.get(r).unwrap_or_default());
            }
        };
        for rec in &node.subs {
            let change = walks
                .binary_search_by_key(&rec.field, |w| w.field)
                .ok()
                .and_then(|w| walks[w].next());
            let body_len = match change {
                None => {
                    len += rec.span.len() as u64;
                    match (&mut out, &mut large) {
                        (Some(out), Some(f)) if rec.span.len() > SPAN_ABOVE => {
                            copy(out, &mut kept);
                            if !out.is_empty() {
                                f(Piece::Bytes(out))?;
                                out.clear();
                            }
                            f(Piece::Source(rec.span.clone()))?;
                        }
                        (Some(out), _) => match &mut kept {
                            Some(r) if r.end == rec.span.start => r.end = rec.span.end,
                            _ => {
                                copy(out, &mut kept);
                                kept = Some(rec.span.clone());
                            }
                        },
                        (None, _) => {}
                    }
                    continue;
                }
                Some(c) if c.start == DROP => continue,
                Some(c) if c.start == MADE => {
                    self.maker.rewired_len(node, c.field, c.occurrence, c.end)
                }
                Some(c) => (c.end - c.start) as usize,
            };
            let mut head = [0u8; 20];
            let n = put_varint(&mut head, 0, (u64::from(rec.field) << 3) | u64::from(LEN));
            let n = put_varint(&mut head, n, body_len as u64);
            len += (n + body_len) as u64;
            let (Some(out), Some(c)) = (&mut out, change) else {
                continue;
            };
            copy(out, &mut kept);
            put_short(out, &head[..n]);
            if c.start == MADE {
                self.maker
                    .put_rewired(node, c.field, c.occurrence, c.end, out);
            } else {
                put_short(out, self.text(c.start, c.end));
            }
        }
        if let Some(out) = &mut out {
            copy(out, &mut kept);
        }
        Ok(len)
    }
}

/// Where [`Occurrence::pieces`] stands in the changes of one field of an occurrence, as it meets the
/// field's sub-records in order: the changes of an occurrence are sorted by (field, sub-occurrence)
/// and distinct (see [`Part::finish`]), so each sub-record's change, if any, is the next one of its
/// field. A scan of the changes for each sub-record made a node with many (a Sum of 100,000
/// broadcast inputs, each rewired) take time quadratic in them.
struct FieldWalk<'a> {
    field: u32,
    /// The field's sub-records met so far.
    met: u32,
    /// The field's changes of sub-records not yet met.
    changes: &'a [Change],
}

impl<'a> FieldWalk<'a> {
    /// One walk per field that `changes` (one occurrence's, sorted) change, sorted by field.
    fn of(changes: &'a [Change]) -> smallvec::SmallVec<[FieldWalk<'a>; 4]> {
        debug_assert!(
            changes.is_sorted_by(|a, b| (a.field, a.occurrence) < (b.field, b.occurrence)),
            "an occurrence's changes, sorted and distinct"
        );
        changes
            .chunk_by(|a, b| a.field == b.field)
            .map(|run| FieldWalk {
                field: run[0].field,
                met: 0,
                changes: run,
            })
            .collect()
    }

    /// The change of the field's next sub-record, if it has one.
    fn next(&mut self) -> Option<&'a Change> {
        let occurrence = self.met;
        self.met += 1;
        // Changes of sub-records the occurrence does not have (past its last) are never met.
        let (first, rest) = self.changes.split_first()?;
        if first.occurrence != occurrence {
            return None;
        }
        self.changes = rest;
        Some(first)
    }
}
