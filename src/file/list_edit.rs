//! A compact edit of one repeated sub-message field of a message: a graph's node list. Records are
//! inserted before an occurrence, occurrences are removed, and sub-records of an occurrence (a node's
//! input, an attribute) are replaced or dropped.
//!
//! A rewrite of a million nodes touches a million occurrences. As entries of a message's edit each
//! was a record edit, a boxed child edit and a replacement buffer (~250 bytes and four allocations);
//! here an occurrence costs its bytes and a 16- or 24-byte entry in a sorted vector, and the writer
//! walks the vectors with cursors as it meets the records. Records can also be made as they are
//! written, from the record of the occurrence they go before ([`MadeRecord`]): the edit then holds
//! a few words for them, not their bytes.

use super::encoding::{
    LEN, Piece, Record, WireError, put_short, put_varint, record_len, small, write_varint,
};
use super::made::{MadeRecord, Maker, NOTHING, Words, maker};
use super::node_record::NodeRecord;
use super::positions::sort_distinct;
use std::ops::Range;

/// A sub-record's fate: replaced by a length-delimited record of its field holding `text[start..end]`,
/// or dropped (`start == DROP`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Change {
    at: u32,
    field: u32,
    occurrence: u32,
    start: u32,
    end: u32,
}

const DROP: u32 = u32::MAX;
/// A change whose payload a [`MadeRecord`] makes (`end`: the tag it gave, see
/// [`MadeRecord::rewires`]).
const MADE: u32 = u32::MAX - 1;
/// `bytes[start..]` is still being written.
const OPEN: usize = usize::MAX;

/// Inserted before an occurrence: records (`bytes[start..end]`), or records a [`MadeRecord`] makes
/// as they are written, from its words and the text `text[start..end]` queued with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Bytes { start: usize, end: usize },
    Made { words: Words, text: (u32, u32) },
}

/// See the module documentation. Built in any order; [`ListEdit::finish`] sorts it (the writer needs it
/// sorted). Edits made apart (by another thread) are taken whole as later parts rather than copied
/// in ([`ListEdit::append`]), and the walks go from one part to the next.
#[derive(Clone, Debug, PartialEq)]
pub struct ListEdit {
    /// The repeated field edited.
    pub field: u32,
    /// Reads the words of the records it makes ([`NOTHING`] until a record is made).
    maker: &'static dyn Maker,
    /// What is queued goes to the last (made when there is none). Once finished, each holds only occurrences
    /// after every one the parts before it hold.
    parts: Vec<Part>,
    /// Once finished, the first occurrence of each part after the first.
    starts: Vec<u32>,
}

/// One part of a [`ListEdit`], of occurrences in any order.
#[derive(Clone, Debug, Default, PartialEq)]
struct Part {
    /// What is inserted before an occurrence, in the order queued: (occurrence, item). Sorted by
    /// occurrence (stably) once finished.
    before: Vec<(u32, Item)>,
    /// The records of [`Item::Bytes`], one after the other.
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

/// Room for the made records of `n` occurrences, made ahead of the edit that takes it
/// ([`ListEdit::use_room`]), its memory written once. A page of fresh memory is zeroed by the kernel
/// when first written: queueing a million made records spent a fifth of the pass's CPU there (perf, on
/// this VM), which a thread with nothing else to do can spend instead.
#[derive(Debug, Default)]
pub struct Room {
    before: Vec<(u32, Item)>,
    changes: Vec<Change>,
}

impl Room {
    pub fn touched(n: usize) -> Room {
        let mut before = Vec::with_capacity(n);
        before.resize(n, (0, Item::Bytes { start: 0, end: 0 }));
        let mut changes = Vec::with_capacity(n);
        changes.resize(n, Change::default());
        // The writes are the point: kept from being dropped as dead before the clear.
        std::hint::black_box((&mut before, &mut changes));
        before.clear();
        changes.clear();
        Room { before, changes }
    }
}

/// Where a [`ListEdit`] stood (see [`ListEdit::mark`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListMark {
    part: usize,
    before: usize,
    bytes: usize,
    inserted: usize,
    changes: usize,
    text: usize,
    removed: usize,
}

impl Default for ListEdit {
    /// An empty edit of field 0, as a derived default would be (a pass's edit before it knows its
    /// list field).
    fn default() -> Self {
        ListEdit {
            field: 0,
            maker: NOTHING,
            parts: Vec::new(),
            starts: Vec::new(),
        }
    }
}

impl ListEdit {
    pub fn new(field: u32) -> Self {
        ListEdit {
            field,
            maker: NOTHING,
            parts: vec![Part::default()],
            starts: Vec::new(),
        }
    }

    /// The part things are queued in.
    fn last(&mut self) -> &mut Part {
        if self.parts.is_empty() {
            self.parts.push(Part::default());
        }
        let n = self.parts.len();
        &mut self.parts[n - 1]
    }

    pub fn is_empty(&self) -> bool {
        self.parts.iter().all(Part::is_empty)
    }

    /// Records queued for insertion.
    pub fn inserted(&self) -> usize {
        self.parts.iter().map(Part::inserted).sum()
    }

    /// Makes room for `n` insertions and changes, without touching the memory (see
    /// [`Vec::reserve`]): vectors grown by doubling copy themselves over and over.
    pub fn reserve(&mut self, n: usize) {
        self.last().reserve(n);
    }

    /// Takes `room` for what is queued next, if nothing is queued yet and it is larger than the
    /// room there is (else drops it).
    pub fn use_room(&mut self, room: Room) {
        let part = self.last();
        if part.before.is_empty() && room.before.capacity() > part.before.capacity() {
            part.before = room.before;
        }
        if part.changes.is_empty() && room.changes.capacity() > part.changes.capacity() {
            part.changes = room.changes;
        }
    }

    /// Starts a record to insert before occurrence `at`, after those queued there already: writes
    /// its tag and the length `len` of its payload, and returns the buffer to append the payload to.
    pub fn queue_record(&mut self, at: usize, len: usize) -> &mut Vec<u8> {
        let field = self.field;
        self.last().queue_record(field, at, len)
    }

    /// Queues `made` before occurrence `at`: its records made from that occurrence's own record as
    /// it is written, and the sub-record it rewires (if any) rewritten. `text` goes with it. An
    /// edit makes records of one type.
    pub fn queue_made<M: MadeRecord>(&mut self, at: usize, made: M, text: &[u8]) {
        self.maker = maker::<M>();
        self.last().queue_made(at, made, text);
    }

    /// Replaces sub-record (`field`, `occurrence`) of occurrence `at` by a length-delimited record of
    /// the same field holding `payload` (the last replacement of a sub-record wins).
    pub fn replace(&mut self, at: usize, field: u32, occurrence: usize, payload: &[u8]) {
        self.last().replace(at, field, occurrence, payload);
    }

    /// Drops sub-record (`field`, `occurrence`) of occurrence `at`.
    pub fn drop_sub(&mut self, at: usize, field: u32, occurrence: usize) {
        self.last().drop_sub(at, field, occurrence);
    }

    /// Removes occurrence `at`.
    pub fn remove(&mut self, at: usize) {
        self.last().remove(at);
    }

    /// Where the edit stands, to go back to with [`ListEdit::rollback`].
    pub fn mark(&mut self) -> ListMark {
        let part = self.parts.len().saturating_sub(1);
        ListMark {
            part,
            ..self.last().mark()
        }
    }

    /// Drops what was queued since `mark` (the edit not finished since), parts taken since too.
    pub fn rollback(&mut self, mark: ListMark) {
        self.parts.truncate(mark.part + 1);
        self.last().rollback(mark);
    }

    /// Queues what `other` queued after what this edit queued, as if it had been queued here (an
    /// edit of the same list made apart, on another thread). Its parts are taken as they are, not
    /// copied: [`ListEdit::finish`] puts them together only if their occurrences are not all after
    /// this edit's.
    pub fn append(&mut self, other: ListEdit) {
        if *other.maker != *NOTHING {
            debug_assert!(*self.maker == *NOTHING || *self.maker == *other.maker);
            self.maker = other.maker;
        }
        self.last().close();
        for mut part in other.parts {
            part.close();
            self.parts.push(part);
        }
    }

    /// Occurrences removed (distinct).
    pub fn removed(&self) -> usize {
        if self.parts.len() == 1 || !self.starts.is_empty() {
            return self.parts.iter().map(Part::removed).sum();
        }
        let mut r: Vec<u32> = self
            .parts
            .iter()
            .flat_map(|p| p.removed.iter().copied())
            .collect();
        sort_distinct(&mut r);
        r.len()
    }

    /// Sorts what was queued in any order, keeping the order in which one occurrence's records were
    /// queued, and the last change of each sub-record. Parts whose occurrences are not all after
    /// those of the parts before are put together first.
    pub fn finish(&mut self) {
        for p in &mut self.parts {
            p.finish();
        }
        self.parts.retain(|p| !p.is_empty());
        let ordered = self
            .parts
            .windows(2)
            .all(|w| matches!((w[0].last_occurrence(), w[1].first_occurrence()), (Some(a), Some(b)) if a < b));
        if !ordered {
            let mut whole = Part::default();
            for p in self.parts.drain(..) {
                whole.take(p);
            }
            whole.finish();
            self.parts.push(whole);
        }
        if self.parts.is_empty() {
            self.parts.push(Part::default());
        }
        self.starts = self
            .parts
            .iter()
            .skip(1)
            .filter_map(Part::first_occurrence)
            .collect();
    }
}

impl Part {
    /// Queues what `other` queued after what this part queued (both closed).
    fn take(&mut self, other: Part) {
        let text = small(self.text.len());
        let bytes = self.bytes.len();
        self.before
            .extend(other.before.into_iter().map(|(at, item)| {
                let item = match item {
                    Item::Bytes { start, end } => Item::Bytes {
                        start: start + bytes,
                        end: end + bytes,
                    },
                    Item::Made {
                        words,
                        text: (start, end),
                    } => Item::Made {
                        words,
                        text: (start + text, end + text),
                    },
                };
                (at, item)
            }));
        self.changes
            .extend(other.changes.into_iter().map(|c| match c.start {
                // Sentinels, with no text: `end` of a made name is its suffix.
                DROP | MADE => c,
                _ => Change {
                    start: c.start + text,
                    end: c.end + text,
                    ..c
                },
            }));
        self.bytes.extend_from_slice(&other.bytes);
        self.text.extend_from_slice(&other.text);
        self.inserted += other.inserted;
        self.removed.extend(other.removed);
        self.finished = false;
    }

    /// The lowest occurrence the part edits (finished).
    fn first_occurrence(&self) -> Option<u32> {
        [
            self.before.first().map(|b| b.0),
            self.changes.first().map(|c| c.at),
            self.removed.first().copied(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// The highest occurrence the part edits (finished).
    fn last_occurrence(&self) -> Option<u32> {
        [
            self.before.last().map(|b| b.0),
            self.changes.last().map(|c| c.at),
            self.removed.last().copied(),
        ]
        .into_iter()
        .flatten()
        .max()
    }
}

impl ListEdit {
    /// The edit of occurrence `at`, looked up (finished): a cursor placed just before it.
    pub(super) fn occurrence(&self, at: usize) -> Occurrence<'_> {
        self.cursor_from(at).at(at)
    }

    /// A walk over the occurrences in order.
    pub(super) fn cursor(&self) -> Cursor<'_> {
        self.cursor_from(0)
    }

    /// A walk over the occurrences in order from occurrence `at` on (finished).
    pub(super) fn cursor_from(&self, at: usize) -> Cursor<'_> {
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
    pub(super) fn work(&self) -> usize {
        self.parts
            .iter()
            .map(|p| p.before.len() + p.changes.len())
            .sum()
    }

    /// An occurrence that divides the work in two about equal halves (finished): where a write in two
    /// parts splits the list.
    pub(super) fn middle(&self) -> usize {
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

impl Part {
    fn is_empty(&self) -> bool {
        self.before.is_empty() && self.changes.is_empty() && self.removed.is_empty()
    }

    /// Records queued for insertion.
    fn inserted(&self) -> usize {
        self.inserted
    }

    /// Makes room for `n` insertions and changes, without touching the memory (see
    /// [`Vec::reserve`]): vectors grown by doubling copy themselves over and over.
    fn reserve(&mut self, n: usize) {
        self.before.reserve(n);
        self.changes.reserve(n);
    }

    /// Ends the run of bytes being written, if any.
    fn close(&mut self) {
        if let Some((_, Item::Bytes { end, .. })) = self.before.last_mut()
            && *end == OPEN
        {
            *end = self.bytes.len();
        }
    }

    /// Starts a record to insert before occurrence `at`, after those queued there already: writes
    /// its tag and the length `len` of its payload, and returns the buffer to append the payload to.
    fn queue_record(&mut self, field: u32, at: usize, len: usize) -> &mut Vec<u8> {
        let at = small(at);
        let open = matches!(self.before.last(), Some((last, Item::Bytes { end: OPEN, .. })) if *last == at);
        if !open {
            self.close();
            let start = self.bytes.len();
            self.before.push((at, Item::Bytes { start, end: OPEN }));
            self.finished = false;
        }
        self.inserted += 1;
        write_varint(&mut self.bytes, (u64::from(field) << 3) | u64::from(LEN));
        write_varint(&mut self.bytes, len as u64);
        &mut self.bytes
    }

    /// See [`ListEdit::queue_made`].
    fn queue_made<M: MadeRecord>(&mut self, at: usize, made: M, text: &[u8]) {
        self.close();
        let start = small(self.text.len());
        self.text.extend_from_slice(text);
        let text = (start, small(self.text.len()));
        self.inserted += made.records();
        let words = made.to_words();
        self.before.push((small(at), Item::Made { words, text }));
        if let Some((field, occurrence, tag)) = made.rewires() {
            self.change(at, field, occurrence as usize, MADE, tag);
        }
    }

    /// Replaces sub-record (`field`, `occurrence`) of occurrence `at` by a length-delimited record of
    /// the same field holding `payload` (the last replacement of a sub-record wins).
    fn replace(&mut self, at: usize, field: u32, occurrence: usize, payload: &[u8]) {
        let start = small(self.text.len());
        self.text.extend_from_slice(payload);
        self.change(at, field, occurrence, start, small(self.text.len()));
    }

    /// Drops sub-record (`field`, `occurrence`) of occurrence `at`.
    fn drop_sub(&mut self, at: usize, field: u32, occurrence: usize) {
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

    /// Where the edit stands, to go back to with [`ListEdit::rollback`].
    fn mark(&mut self) -> ListMark {
        self.close();
        ListMark {
            part: 0,
            before: self.before.len(),
            bytes: self.bytes.len(),
            inserted: self.inserted,
            changes: self.changes.len(),
            text: self.text.len(),
            removed: self.removed.len(),
        }
    }

    /// Drops what was queued since `mark` (the edit not finished since).
    fn rollback(&mut self, mark: ListMark) {
        self.close();
        self.before.truncate(mark.before);
        self.bytes.truncate(mark.bytes);
        self.inserted = mark.inserted;
        self.changes.truncate(mark.changes);
        self.text.truncate(mark.text);
        self.removed.truncate(mark.removed);
    }

    /// Removes occurrence `at`.
    fn remove(&mut self, at: usize) {
        self.removed.push(small(at));
        self.finished = false;
    }

    /// Occurrences removed (distinct).
    fn removed(&self) -> usize {
        if self.finished || self.removed.is_sorted_by(|a, b| a < b) {
            return self.removed.len();
        }
        let mut r = self.removed.clone();
        sort_distinct(&mut r);
        r.len()
    }

    /// Sorts what was queued in any order, keeping the order in which one occurrence's records were
    /// queued, and the last change of each sub-record.
    fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        self.close();
        // Stable: one occurrence's items stay in the order queued.
        if !self.before.is_sorted_by(|a, b| a.0 <= b.0) {
            self.before.sort_by_key(|(at, _)| *at);
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
        sort_distinct(&mut self.removed);
    }
}

/// What a write walk puts together is handed on once it holds this much.
const HAND_ON_ABOVE: usize = 1 << 20;

/// A changed record longer than this is written in pieces, its large spans copied by the kernel
/// (a node holding a tensor); a shorter one is put together in a buffer and written in one piece.
const SPAN_ABOVE: usize = 1 << 16;

/// Where the pieces of an occurrence go (`None`: they are only measured).
pub(super) type Sink<'f, E> = &'f mut dyn FnMut(Piece<'_>) -> Result<(), E>;

/// What the edit does to one occurrence.
pub(super) struct Occurrence<'a> {
    at: u32,
    before: &'a [(u32, Item)],
    pub removed: bool,
    changes: &'a [Change],
    edit: &'a Part,
    maker: &'a dyn Maker,
}

/// Walks a finished [`ListEdit`] in occurrence order.
pub(super) struct Cursor<'a> {
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
    fn enter(&mut self, part: usize, at: u32) {
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

#[cfg(test)]
mod tests {
    use super::{ListEdit, Room};

    #[test]
    fn room_is_taken_only_by_an_edit_with_nothing_queued() {
        let room = Room::touched(100);
        assert!(room.before.is_empty() && room.before.capacity() >= 100);
        assert!(room.changes.is_empty() && room.changes.capacity() >= 100);
        let mut empty = ListEdit::new(1);
        empty.use_room(room);
        assert!(empty.parts[0].before.capacity() >= 100);
        assert!(empty.parts[0].changes.capacity() >= 100);

        let mut queued = ListEdit::new(1);
        queued.remove(3);
        queued.replace(5, 1, 0, b"x");
        queued.use_room(Room::touched(100));
        // What was queued stays; the changes' vector was not empty, so it is kept.
        assert_eq!(queued.parts[0].removed, vec![3]);
        assert_eq!(queued.parts[0].changes.len(), 1);
    }
}
