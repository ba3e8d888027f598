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

use super::encoding::{LEN, small, write_varint};
use super::made::{MadeRecord, Maker, NOTHING, Words, maker};
use super::positions::sort_distinct;
mod walk;

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
