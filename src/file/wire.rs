//! The protobuf wire format, read directly: scanning the records of a message, and splicing edits into
//! a message so that every record an edit does not touch is copied byte for byte.
//!
//! This is how onnx-lint writes a model back "exactly as read": prost drops unknown fields and would
//! re-encode (re-order, re-pack) what it knows, so the writer never re-encodes an existing message. It
//! copies spans of the source and emits bytes only for what a pass added or changed. An output is a
//! list of [`Chunk`]s, streamed to the destination, so weights go from the mapped input to the output
//! file without an in-memory copy of the model.

use super::atomic::{Filling, Flusher};
use super::list_edit::ListEdit;
use std::io::Write;
use std::ops::Range;
use thiserror::Error;

/// Why a buffer is not a well-formed protobuf message.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum WireError {
    #[error("truncated varint at byte {0}")]
    TruncatedVarint(usize),
    #[error("varint longer than 10 bytes at byte {0}")]
    OverlongVarint(usize),
    #[error("field number 0 at byte {0}")]
    FieldZero(usize),
    #[error("invalid wire type {1} at byte {0}")]
    WireType(usize, u8),
    #[error("length-delimited field at byte {0} runs past the end of its message")]
    Overrun(usize),
    #[error("unbalanced group at byte {0}")]
    Group(usize),
    #[error("field {field} occurrence {occurrence}: edit expects a length-delimited record")]
    NotLengthDelimited { field: u32, occurrence: usize },
}

/// Wire type of length-delimited records (strings, bytes, sub-messages, packed repeated).
pub const LEN: u8 = 2;

/// One record of a message: a tag and its payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub field: u32,
    pub wire_type: u8,
    /// The whole record, tag included.
    pub span: Range<usize>,
    /// The bytes after the tag (after the length prefix, for length-delimited records).
    pub payload: Range<usize>,
}

/// Reads a varint at `pos`; returns the value and the position after it.
pub fn read_varint(buf: &[u8], pos: usize) -> Result<(u64, usize), WireError> {
    let mut value = 0u64;
    for i in 0..10 {
        let byte = *buf.get(pos + i).ok_or(WireError::TruncatedVarint(pos))?;
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok((value, pos + i + 1));
        }
    }
    Err(WireError::OverlongVarint(pos))
}

/// Why `prefix`, the first bytes of a stream, cannot start a protobuf message of at most `cap` bytes;
/// `None` if it may (what it cut short is given the benefit of the doubt). For refusing an endless
/// stream that is no model (`/dev/zero` is field number 0 at byte 0) before reading the rest of it.
pub fn prefix_error(prefix: &[u8], cap: u64) -> Option<WireError> {
    let mut pos = 0;
    while pos < prefix.len() {
        let at = pos;
        let (key, after) = match read_varint(prefix, pos) {
            Ok(v) => v,
            Err(WireError::TruncatedVarint(_)) => return None,
            Err(e) => return Some(e),
        };
        if key >> 3 == 0 {
            return Some(WireError::FieldZero(at));
        }
        pos = after;
        match (key & 7) as u8 {
            0 => match read_varint(prefix, pos) {
                Ok((_, p)) => pos = p,
                Err(WireError::TruncatedVarint(_)) => return None,
                Err(e) => return Some(e),
            },
            1 => pos += 8,
            5 => pos += 4,
            LEN => {
                let (n, p) = match read_varint(prefix, pos) {
                    Ok(v) => v,
                    Err(WireError::TruncatedVarint(_)) => return None,
                    Err(e) => return Some(e),
                };
                if n > cap.saturating_sub(p as u64) {
                    return Some(WireError::Overrun(at));
                }
                pos = p.saturating_add(usize::try_from(n).unwrap_or(usize::MAX));
            }
            // A group is rare enough at the top of a model to leave to the decoder.
            3 => return None,
            wire => return Some(WireError::WireType(at, wire)),
        }
    }
    None
}

/// Appends `value` as a varint.
pub fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends `b` to `out`. A slice of up to 32 bytes (a name, a varint, a node's short record) is
/// moved in a few fixed-size pieces: a call to `memcpy` for each of the ~20 names and spans a
/// rewritten node is made of cost more than the copies, a quarter of `expand`'s write.
///
/// The pieces go straight into 32 bytes of room at the end of `out`, not through a buffer on the
/// stack: read back in wider words than they were stored in, the stack's bytes stalled each load
/// until the stores were done (a fifth of the write's CPU in `put_name` alone).
#[inline]
pub(super) fn put_short(out: &mut Vec<u8>, b: &[u8]) {
    let n = b.len();
    if n > 32 {
        out.extend_from_slice(b);
        return;
    }
    let at = out.len();
    out.extend_from_slice(&[0u8; 32]);
    let room = &mut out[at..at + 32];
    // Two overlapping pieces of a fixed size cover any length between that size and twice it.
    match n {
        0 => {}
        1..4 => {
            room[0] = b[0];
            room[n / 2] = b[n / 2];
            room[n - 1] = b[n - 1];
        }
        4..8 => {
            room[..4].copy_from_slice(&b[..4]);
            room[n - 4..n].copy_from_slice(&b[n - 4..]);
        }
        8..16 => {
            room[..8].copy_from_slice(&b[..8]);
            room[n - 8..n].copy_from_slice(&b[n - 8..]);
        }
        _ => {
            room[..16].copy_from_slice(&b[..16]);
            room[n - 16..n].copy_from_slice(&b[n - 16..]);
        }
    }
    out.truncate(at + n);
}

/// Appends a length-delimited record: tag, length, payload.
pub fn write_len_record(out: &mut Vec<u8>, field: u32, payload: &[u8]) {
    write_varint(out, (u64::from(field) << 3) | u64::from(LEN));
    write_varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

/// The records of the message in `buf[range]`, in order.
pub fn records(buf: &[u8], range: Range<usize>) -> Records<'_> {
    Records {
        buf,
        pos: range.start,
        end: range.end.min(buf.len()),
        failed: false,
    }
}

/// Iterator over the records of one message; stops after the first error.
pub struct Records<'a> {
    buf: &'a [u8],
    pos: usize,
    end: usize,
    failed: bool,
}

impl Records<'_> {
    fn next_record(&mut self) -> Result<Record, WireError> {
        let start = self.pos;
        // Most records of a model's graph are short strings and messages under a one-byte tag with
        // a one-byte length (a node's inputs, outputs, name and op type; small nodes): read at once.
        if let Some(&[tag, len]) = self.buf.get(start..start.saturating_add(2))
            && tag < 0x80
            && tag & 7 == LEN
            && tag >> 3 != 0
            && len < 0x80
        {
            let payload = start + 2..start + 2 + usize::from(len);
            if payload.end <= self.end {
                self.pos = payload.end;
                return Ok(Record {
                    field: u32::from(tag >> 3),
                    wire_type: LEN,
                    span: start..payload.end,
                    payload,
                });
            }
        }
        let (key, after_tag) = read_varint(&self.buf[..self.end], start)?;
        let field = u32::try_from(key >> 3).map_err(|_| WireError::FieldZero(start))?;
        if field == 0 {
            return Err(WireError::FieldZero(start));
        }
        let wire_type = (key & 7) as u8;
        let body = &self.buf[..self.end];
        let (payload, next) = match wire_type {
            0 => {
                let (_, n) = read_varint(body, after_tag)?;
                (after_tag..n, n)
            }
            1 => fixed(after_tag, 8, self.end)?,
            5 => fixed(after_tag, 4, self.end)?,
            LEN => {
                let (len, p) = read_varint(body, after_tag)?;
                let stop = usize::try_from(len)
                    .ok()
                    .and_then(|l| p.checked_add(l))
                    .filter(|&s| s <= self.end)
                    .ok_or(WireError::Overrun(start))?;
                (p..stop, stop)
            }
            3 => {
                let stop = skip_group(body, after_tag, field)?;
                (after_tag..stop, stop)
            }
            t => return Err(WireError::WireType(start, t)),
        };
        self.pos = next;
        Ok(Record {
            field,
            wire_type,
            span: start..next,
            payload,
        })
    }
}

fn fixed(at: usize, width: usize, end: usize) -> Result<(Range<usize>, usize), WireError> {
    let stop = at + width;
    if stop > end {
        return Err(WireError::Overrun(at));
    }
    Ok((at..stop, stop))
}

/// Skips a (deprecated) group up to and including its end tag; groups only appear as unknown fields.
fn skip_group(buf: &[u8], mut pos: usize, field: u32) -> Result<usize, WireError> {
    // Bounded like prost's recursion limit, so a hostile file cannot make this loop deep.
    let mut depth = 1u32;
    let mut stack = vec![field];
    while depth > 0 {
        let start = pos;
        let (key, p) = read_varint(buf, pos)?;
        let f = (key >> 3) as u32;
        pos = match (key & 7) as u8 {
            0 => read_varint(buf, p)?.1,
            1 => fixed(p, 8, buf.len())?.1,
            5 => fixed(p, 4, buf.len())?.1,
            LEN => {
                let (len, q) = read_varint(buf, p)?;
                usize::try_from(len)
                    .ok()
                    .and_then(|l| q.checked_add(l))
                    .filter(|&s| s <= buf.len())
                    .ok_or(WireError::Overrun(start))?
            }
            3 => {
                depth += 1;
                if depth > 100 {
                    return Err(WireError::Group(start));
                }
                stack.push(f);
                p
            }
            4 => {
                if stack.pop() != Some(f) {
                    return Err(WireError::Group(start));
                }
                depth -= 1;
                p
            }
            t => return Err(WireError::WireType(start, t)),
        };
    }
    Ok(pos)
}

impl Iterator for Records<'_> {
    type Item = Result<Record, WireError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.end {
            return None;
        }
        let r = self.next_record();
        self.failed = r.is_err();
        Some(r)
    }
}

/// Changes to one message. Records are addressed by (field number, occurrence): the occurrence is the
/// index among that field's records, which for a repeated field is its index in the decoded list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Edit {
    /// The record edits, sorted by (field, occurrence). A sorted vector rather than a map: most edits
    /// touch one or two records of a node (a map's first node alone is a kilobyte), and the few large
    /// ones are built in key order, each edit an append.
    records: Vec<((u32, usize), RecordEdit)>,
    /// Whole records (tag and payload) added at the end of the message.
    pub append: Vec<u8>,
    /// The edit of one repeated field (a graph's nodes), kept compact: that field's records are
    /// edited by it alone (finished: see [`ListEdit::finish`]).
    pub list: Option<Box<ListEdit>>,
}

/// What happens at one record: `before` is inserted ahead of it, then `action` applies to it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordEdit {
    pub before: Vec<u8>,
    pub action: Action,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub enum Action {
    #[default]
    Keep,
    /// The record is a sub-message with changes of its own.
    Edit(Box<Edit>),
    /// The record is replaced by these bytes (whole records; empty drops it).
    Replace(Vec<u8>),
}

impl Edit {
    pub fn is_empty(&self) -> bool {
        self.append.is_empty()
            && self.records.is_empty()
            && self.list.as_ref().is_none_or(|l| l.is_empty())
    }

    /// The edit of record (field, occurrence), created empty if absent.
    pub fn at(&mut self, field: u32, occurrence: usize) -> &mut RecordEdit {
        let key = (field, occurrence);
        let at = match self.records.last() {
            // In key order: an append.
            Some((last, _)) if *last < key => self.records.len(),
            None => 0,
            _ => match self.records.binary_search_by(|(k, _)| k.cmp(&key)) {
                Ok(i) => return &mut self.records[i].1,
                Err(i) => i,
            },
        };
        if self.records.is_empty() {
            // Most edits are of one record (a node's input): no room for four.
            self.records.reserve_exact(1);
        }
        self.records.insert(at, (key, RecordEdit::default()));
        &mut self.records[at].1
    }

    /// Sets the edit of one repeated field. Records of that field that already have an edit here (the
    /// node holding a subgraph that is edited too) get the list's edits of them (records inserted
    /// before, changes, removal) as record edits, and the list leaves them to those. A node that
    /// holds a subgraph is never an `Expand` recipe's consumer (see `passes::GraphPatch::expand`),
    /// whose nodes and rewire are made from the node's record as it is written.
    pub fn set_list(&mut self, mut list: ListEdit) {
        list.finish();
        let field = list.field;
        let taken: Vec<usize> = self
            .records
            .iter()
            .filter(|((f, _), _)| *f == field)
            .map(|((_, o), _)| *o)
            .collect();
        for at in taken {
            let o = list.occurrence(at);
            let rec = self.at(field, at);
            for bytes in o.plain_before() {
                rec.before.extend_from_slice(bytes);
            }
            if o.removed {
                rec.action = Action::Replace(Vec::new());
                continue;
            }
            let child = self.child(field, at);
            for (sub, occurrence, payload) in o.plain_changes() {
                let mut record = Vec::new();
                if let Some(p) = payload {
                    write_len_record(&mut record, sub, p);
                }
                child.at(sub, occurrence).action = Action::Replace(record);
            }
        }
        self.list = Some(Box::new(list));
    }

    /// The record edits, by (field, occurrence) in order.
    pub(super) fn records(&self) -> &[((u32, usize), RecordEdit)] {
        &self.records
    }

    /// The edit of record (field, occurrence), if there is one.
    pub fn get(&self, field: u32, occurrence: usize) -> Option<&RecordEdit> {
        let key = (field, occurrence);
        self.records
            .binary_search_by(|(k, _)| k.cmp(&key))
            .ok()
            .map(|i| &self.records[i].1)
    }

    /// The nested edit of sub-message (field, occurrence), created empty if absent.
    pub fn child(&mut self, field: u32, occurrence: usize) -> &mut Edit {
        let rec = self.at(field, occurrence);
        if !matches!(rec.action, Action::Edit(_)) {
            rec.action = Action::Edit(Box::default());
        }
        match &mut rec.action {
            Action::Edit(e) => e,
            // The arm above made it an Edit.
            _ => unreachable!("action was just set to Edit"),
        }
    }
}

/// Bytes written between two reports to the flusher of a durable write (see [`Spliced::copy_to`]):
/// as often as it flushes ([`crate::file::atomic::FLUSH_EVERY`]).
const WRITEBACK_SLICE: u64 = crate::file::atomic::FLUSH_EVERY;

/// A piece of the output: a span of the source, bytes of the edit, or bytes the splice made (the tag
/// and length of an edited sub-message) in [`Spliced::made`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunk<'e> {
    Source(Range<usize>),
    Edit(&'e [u8]),
    Made(Range<usize>),
}

/// An output message, with its total length known before anything is written: either a list of
/// chunks, or (what [`splice`] makes) the source range and the edit, with the length of every edited
/// sub-message measured beforehand, walked again as it is written. The bytes of the edit are
/// borrowed, not copied, and a rewrite of a million nodes is no longer held as a list of millions of
/// chunks (~250 MB) between the edit and the output file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Spliced<'e> {
    pub chunks: Vec<Chunk<'e>>,
    pub made: Vec<u8>,
    pub len: u64,
    /// When set, the output is this edit of this range of the source, after `chunks`.
    walk: Option<Walk<'e>>,
}

/// An edit applied to a message as it is written (see [`Spliced`]).
#[derive(Clone, Debug, PartialEq)]
struct Walk<'e> {
    range: Range<usize>,
    edit: &'e Edit,
    /// The new payload length of every edited sub-message, in the order the walk meets them.
    lens: Vec<u64>,
    /// Where a write in two parts divides the output, if the edit is large enough to be worth it.
    split: Option<Split<'e>>,
}

/// Where a write in two parts divides the output (see [`super::two_part`]): at the first occurrence
/// from `at` on of the list `owner` edits, or at the end of `owner`'s message if it has none.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Split<'e> {
    pub owner: &'e Edit,
    pub at: usize,
    /// The length of the list's occurrences before `at` (those the list edit writes), as written.
    pub head: u64,
}

/// The part of a split output a walk makes: up to the split, or from it on (see [`Split`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Part {
    Head,
    Tail,
}

/// A split as [`emit`] follows it: the part it makes, and whether it has reached the split.
struct EmitSplit<'e> {
    split: Split<'e>,
    part: Part,
    reached: bool,
}

/// A split as [`measure`] follows it: the list's occurrences from `at` on are measured by `tail`
/// (on another thread), the others here, their length summed in `head`.
pub(super) struct MeasureSplit<'t> {
    pub owner: &'t Edit,
    pub at: usize,
    pub head: u64,
    pub tail: Option<Box<dyn FnOnce() -> Result<u64, WireError> + 't>>,
}

/// The head part of a split output ends here: not an error, the walk stops.
#[derive(Debug, Error)]
#[error("the split point of the output was reached")]
struct SplitReached;

fn is_split_reached(e: &std::io::Error) -> bool {
    e.get_ref().is_some_and(|e| e.is::<SplitReached>())
}

/// What the walk hands the writer: a span of the source, or bytes.
pub(super) enum Piece<'a> {
    Source(Range<usize>),
    Bytes(&'a [u8]),
    /// The pieces that follow go at this offset of the output (the tail part of a split output).
    At(u64),
}

impl<'e> Spliced<'e> {
    fn push_source(&mut self, r: Range<usize>) {
        if r.is_empty() {
            return;
        }
        self.len += (r.end - r.start) as u64;
        if let Some(Chunk::Source(last)) = self.chunks.last_mut()
            && last.end == r.start
        {
            last.end = r.end;
            return;
        }
        self.chunks.push(Chunk::Source(r));
    }

    #[cfg(test)]
    fn push_edit(&mut self, bytes: &'e [u8]) {
        if bytes.is_empty() {
            return;
        }
        self.len += bytes.len() as u64;
        self.chunks.push(Chunk::Edit(bytes));
    }

    /// True when the output is exactly the source span `whole`.
    pub fn is_identity(&self, whole: &Range<usize>) -> bool {
        if self.walk.is_some() {
            return false;
        }
        match self.chunks.as_slice() {
            [] => whole.is_empty(),
            [Chunk::Source(r)] => r == whole,
            _ => false,
        }
    }

    /// Hands every piece of the output to `f` in order, adjacent source spans joined into one.
    /// The output's length is checked against the measured one at the end: the lengths written
    /// before each message come from the measure, so a difference would be a corrupt file, and is an
    /// error instead (the caller's temporary file is then removed).
    fn pieces(
        &self,
        src: &[u8],
        f: &mut dyn FnMut(Piece<'_>) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut total = 0u64;
        let mut counted = |p: Piece<'_>| {
            total += p.len();
            f(p)
        };
        self.pieces_uncounted(src, &mut counted, None)?;
        if total != self.len {
            return Err(std::io::Error::other(format!(
                "internal error: the output was measured at {} bytes but {total} were made; nothing was written",
                self.len
            )));
        }
        Ok(())
    }

    /// Hands the pieces of the output, or of one `part` of it (see [`Split`]), to `f`. Returns the
    /// output offset where the pieces handed start (0 but for the tail part).
    fn pieces_uncounted(
        &self,
        src: &[u8],
        f: &mut dyn FnMut(Piece<'_>) -> std::io::Result<()>,
        part: Option<Part>,
    ) -> std::io::Result<u64> {
        let mut split = match (part, self.walk.as_ref().and_then(|w| w.split)) {
            (Some(part), Some(split)) => Some(EmitSplit {
                split,
                part,
                reached: false,
            }),
            _ => None,
        };
        let skip = matches!(part, Some(Part::Tail)) && split.is_some();
        let mut joined = Joined {
            pending: None,
            f,
            skip,
            skipped: 0,
        };
        for c in &self.chunks {
            match c {
                Chunk::Source(r) => joined.piece(Piece::Source(r.clone()))?,
                Chunk::Edit(b) => joined.piece(Piece::Bytes(b))?,
                Chunk::Made(r) => {
                    joined.piece(Piece::Bytes(self.made.get(r.clone()).unwrap_or_default()))?
                }
            }
        }
        if let Some(w) = &self.walk {
            let mut lens = w.lens.iter().copied();
            match emit(
                src,
                w.range.clone(),
                w.edit,
                &mut lens,
                &mut joined,
                split.as_mut(),
            ) {
                Err(e) if is_split_reached(&e) => return Ok(0),
                r => r?,
            }
        }
        joined.flush()?;
        Ok(joined.skipped)
    }

    /// Streams the output to `w`.
    pub fn write_to(&self, src: &[u8], w: &mut impl Write) -> std::io::Result<()> {
        self.pieces(src, &mut |p| match p {
            Piece::Source(r) => w.write_all(src.get(r).unwrap_or_default()),
            Piece::Bytes(b) => w.write_all(b),
            // Only the parts of a split output have offsets.
            Piece::At(_) => Ok(()),
        })
    }

    /// Streams the output to the file behind `w` (from its start), copying large source spans from
    /// `file` (whose content is `src`) with positional reads, or with the kernel's file-to-file copy
    /// where that copies whole pages (see `copy_span`): the weights never pass through the mapping,
    /// so they add nothing to this process's memory. With a `flusher` (a durable write), every
    /// `WRITEBACK_SLICE` bytes written are reported to it, and it flushes them while the rest is
    /// written.
    pub fn copy_to(
        &self,
        file: &std::fs::File,
        src: &[u8],
        w: &mut std::io::BufWriter<&std::fs::File>,
        flusher: Option<&Flusher>,
    ) -> std::io::Result<()> {
        let mut out = FileOut::new(file, src, w, flusher);
        self.pieces(src, &mut |p| out.piece(p))
    }

    /// [`Spliced::copy_to`], in two parts made at once when the edit was split (see [`super::two_part`]): the
    /// tail on another thread, written through another handle of `w`'s file with its own position
    /// (`filling`'s). Either way the output is the same bytes.
    pub fn copy_to_in_two(
        &self,
        file: &std::fs::File,
        src: &[u8],
        w: &mut std::io::BufWriter<&std::fs::File>,
        filling: &Filling<'_>,
    ) -> std::io::Result<()> {
        let flusher = filling.flusher();
        // A device or a FIFO is written from start to end: one part.
        if self.walk.as_ref().is_none_or(|w| w.split.is_none()) || !filling.seekable() {
            return self.copy_to(file, src, w, flusher);
        }
        let second = filling.reopen()?;
        let tail = |second: &std::fs::File| -> std::io::Result<(u64, u64)> {
            let mut w2 = std::io::BufWriter::with_capacity(1 << 20, second);
            let made = self.copy_part(file, src, &mut w2, flusher, Part::Tail)?;
            w2.flush()?;
            Ok(made)
        };
        let head = |w: &mut std::io::BufWriter<&std::fs::File>| {
            self.copy_part(file, src, w, flusher, Part::Head)
                .map(|(_, made)| made)
        };
        let (head, tail) = std::thread::scope(|s| {
            let t = std::thread::Builder::new()
                .name("write".to_owned())
                .spawn_scoped(s, || tail(&second));
            let h = head(w);
            let t = match t {
                Ok(t) => t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                Err(_) => tail(&second),
            };
            (h, t)
        });
        let (head, (start, made)) = (head?, tail?);
        if head != start || start + made != self.len {
            return Err(std::io::Error::other(format!(
                "internal error: the output was measured at {} bytes but its parts were made of {head} and {start} + {made}; nothing was written",
                self.len
            )));
        }
        Ok(())
    }

    /// Writes `part` of a split output to `w`; returns the offset where it starts and its length.
    fn copy_part(
        &self,
        file: &std::fs::File,
        src: &[u8],
        w: &mut std::io::BufWriter<&std::fs::File>,
        flusher: Option<&Flusher>,
        part: Part,
    ) -> std::io::Result<(u64, u64)> {
        let mut out = FileOut::new(file, src, w, flusher);
        let mut made = 0u64;
        let start = self.pieces_uncounted(
            src,
            &mut |p| {
                made += p.len();
                out.piece(p)
            },
            Some(part),
        )?;
        Ok((start, made))
    }

    /// The output as one buffer (for small models and tests).
    pub fn to_vec(&self, src: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len as usize);
        // Writing into a vector cannot fail; a length other than the one measured (see `pieces`) is
        // for the caller to compare with `len`.
        let _ = self.write_to(src, &mut out);
        out
    }
}

/// The writer of [`Spliced::copy_to`]: hands each piece to `w`, large source spans copied from `file`
/// with positional reads or the kernel's file-to-file copy (see `copy_span`), and tells the flusher of
/// a durable write every `WRITEBACK_SLICE` bytes written (see [`Flusher`]).
struct FileOut<'a, 'w> {
    file: &'a std::fs::File,
    src: &'a [u8],
    w: &'a mut std::io::BufWriter<&'w std::fs::File>,
    flusher: Option<&'a Flusher>,
    bounce: Vec<u8>,
    /// The output offset reached, and up to where the output was handed to the disk.
    written: u64,
    handed: u64,
}

impl<'a, 'w> FileOut<'a, 'w> {
    fn new(
        file: &'a std::fs::File,
        src: &'a [u8],
        w: &'a mut std::io::BufWriter<&'w std::fs::File>,
        flusher: Option<&'a Flusher>,
    ) -> Self {
        FileOut {
            file,
            src,
            w,
            flusher,
            bounce: Vec::new(),
            written: 0,
            handed: 0,
        }
    }

    fn hand_over(&mut self) -> std::io::Result<()> {
        if let Some(f) = self.flusher
            && self.written - self.handed >= WRITEBACK_SLICE
        {
            self.w.flush()?;
            f.wrote(self.written - self.handed);
            self.handed = self.written;
        }
        Ok(())
    }

    fn piece(&mut self, p: Piece<'_>) -> std::io::Result<()> {
        /// Spans shorter than this are copied from the mapping: a syscall each would cost more.
        const FILE_COPY_ABOVE: usize = 1 << 20;
        match p {
            Piece::Source(r) if r.len() > FILE_COPY_ABOVE => {
                self.w.flush()?;
                let (mut at, end) = (r.start as u64, r.end as u64);
                while at < end {
                    let want = (end - at).min(WRITEBACK_SLICE);
                    copy_span(
                        self.file,
                        at,
                        want,
                        self.written,
                        self.w.get_mut(),
                        &mut self.bounce,
                    )?;
                    at += want;
                    self.written += want;
                    self.hand_over()?;
                }
            }
            Piece::At(offset) => {
                use std::io::Seek;
                self.w.seek(std::io::SeekFrom::Start(offset))?;
                self.written = offset;
                self.handed = offset;
            }
            p => {
                let bytes = match p {
                    Piece::Source(r) => self.src.get(r).unwrap_or_default(),
                    Piece::Bytes(b) => b,
                    Piece::At(_) => &[],
                };
                self.w.write_all(bytes)?;
                self.written += bytes.len() as u64;
                self.hand_over()?;
            }
        }
        Ok(())
    }
}

/// Joins adjacent source spans before handing them on: records left as they were are met one by
/// one, and a long run of them is one copy (a kernel copy when it is large).
/// While `skip`, pieces are only counted in `skipped` (the tail part of a split output, before the
/// split).
struct Joined<'f> {
    pending: Option<Range<usize>>,
    f: &'f mut dyn FnMut(Piece<'_>) -> std::io::Result<()>,
    skip: bool,
    skipped: u64,
}

impl Piece<'_> {
    /// The bytes the piece puts in the output.
    fn len(&self) -> u64 {
        match self {
            Piece::Source(r) => r.len() as u64,
            Piece::Bytes(b) => b.len() as u64,
            Piece::At(_) => 0,
        }
    }
}

impl Joined<'_> {
    /// Ends the skipping: the split is here, after `head` more bytes (the list's occurrences before
    /// it, not walked).
    fn start(&mut self, head: u64) -> std::io::Result<()> {
        self.skipped += head;
        self.skip = false;
        (self.f)(Piece::At(self.skipped))
    }

    fn piece(&mut self, p: Piece<'_>) -> std::io::Result<()> {
        if self.skip {
            self.skipped += p.len();
            return Ok(());
        }
        match p {
            Piece::Source(r) if r.is_empty() => Ok(()),
            Piece::Source(r) => {
                match &mut self.pending {
                    Some(last) if last.end == r.start => last.end = r.end,
                    pending => {
                        if let Some(last) = pending.replace(r) {
                            (self.f)(Piece::Source(last))?;
                        }
                    }
                }
                Ok(())
            }
            Piece::Bytes([]) => Ok(()),
            p => {
                self.flush()?;
                (self.f)(p)
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self.pending.take() {
            Some(r) => (self.f)(Piece::Source(r)),
            None => Ok(()),
        }
    }
}

/// Page size of the page cache: a span copied file to file keeps whole pages only where its source and
/// destination offsets are at the same place in a page.
const PAGE: u64 = 4096;

/// Size of the buffer through which a span is copied when the kernel cannot copy whole pages.
const BOUNCE: usize = 1 << 20;

/// Appends `len` bytes of `input`, from offset `at`, to `out`, which is at offset `out_at`.
///
/// Where source and destination offsets are at the same place in a page, the kernel copies file to
/// file (`copy_file_range` under `std::io::copy`): one pass, nothing through this process's memory.
/// Elsewhere that copy fills every destination page in two pieces (zeroing it first, dirtying it
/// twice) and a read into a buffer and a write of whole pages costs less CPU.
fn copy_span(
    input: &std::fs::File,
    at: u64,
    len: u64,
    out_at: u64,
    out: &mut &std::fs::File,
    bounce: &mut Vec<u8>,
) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    if at % PAGE == out_at % PAGE {
        let mut input = input;
        input.seek(SeekFrom::Start(at))?;
        let copied = std::io::copy(&mut input.take(len), out)?;
        if copied != len {
            return Err(shrank());
        }
        return Ok(());
    }
    bounce.resize(BOUNCE.min(len as usize), 0);
    let (mut at, end) = (at, at + len);
    while at < end {
        let n = ((end - at) as usize).min(bounce.len());
        let buf = &mut bounce[..n];
        read_exact_at(input, buf, at)?;
        out.write_all(buf)?;
        at += n as u64;
    }
    Ok(())
}

#[cfg(unix)]
fn read_exact_at(input: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    input.read_exact_at(buf, at).map_err(eof_is_shrink)
}

#[cfg(not(unix))]
fn read_exact_at(input: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut input = input;
    input.seek(SeekFrom::Start(at))?;
    input.read_exact(buf).map_err(eof_is_shrink)
}

fn eof_is_shrink(e: std::io::Error) -> std::io::Error {
    match e.kind() {
        std::io::ErrorKind::UnexpectedEof => shrank(),
        _ => e,
    }
}

fn shrank() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        "the input file shrank while it was being copied",
    )
}

/// Applies `edit` to the message `src[range]`. Records without an edit are copied as they are.
/// Measures the output (and checks that the edit fits the message); the bytes are made as they are
/// written.
pub fn splice<'e>(
    src: &[u8],
    range: Range<usize>,
    edit: &'e Edit,
) -> Result<Spliced<'e>, WireError> {
    splice_with(src, range, edit, |src, range, edit, lens| {
        super::two_part::measure_split(src, range, edit, lens)
    })
}

/// [`splice`], split where `chosen` says (the edit whose list is split, and the occurrence), if
/// anywhere: for tests of every split point.
#[cfg(test)]
pub(super) fn splice_at<'e>(
    src: &[u8],
    range: Range<usize>,
    edit: &'e Edit,
    chosen: Option<(&'e Edit, usize)>,
) -> Result<Spliced<'e>, WireError> {
    splice_with(src, range, edit, |src, range, edit, lens| {
        super::two_part::measure_split_at(src, range, edit, lens, chosen)
    })
}

type Measured<'e> = Result<(u64, Option<Split<'e>>), WireError>;

fn splice_with<'e>(
    src: &[u8],
    range: Range<usize>,
    edit: &'e Edit,
    measure: impl FnOnce(&[u8], Range<usize>, &'e Edit, &mut Vec<u64>) -> Measured<'e>,
) -> Result<Spliced<'e>, WireError> {
    let mut out = Spliced::default();
    if edit.is_empty() {
        out.push_source(range);
        return Ok(out);
    }
    let mut lens = Vec::new();
    let (len, split) = measure(src, range.clone(), edit, &mut lens)?;
    out.len = len;
    out.walk = Some(Walk {
        range,
        edit,
        lens,
        split,
    });
    Ok(out)
}

/// Writes `value` as a varint into `buf` at `at` (which has room for 10 bytes); returns the end.
pub(super) fn put_varint(buf: &mut [u8; 20], mut at: usize, mut value: u64) -> usize {
    while value >= 0x80 {
        buf[at] = (value as u8) | 0x80;
        value >>= 7;
        at += 1;
    }
    buf[at] = value as u8;
    at + 1
}

/// Bytes of a length-delimited record of `field` whose payload is `payload` bytes.
pub(super) fn record_len(field: u32, payload: u64) -> u64 {
    varint_len((u64::from(field) << 3) | u64::from(LEN)) + varint_len(payload) + payload
}

/// Bytes of `value` as a varint.
fn varint_len(value: u64) -> u64 {
    u64::from((64 - (value | 1).leading_zeros()).div_ceil(7))
}

/// Visits the records of the message `src[range]` with the edit of each (if any), in order.
fn each_record<E: From<WireError>>(
    src: &[u8],
    range: Range<usize>,
    edit: &Edit,
    mut visit: impl FnMut(Record, usize, Option<&RecordEdit>) -> Result<(), E>,
) -> Result<(), E> {
    // Per field met so far: (field, records seen, where its next edit may be in `edit.records`).
    // A message has a handful of fields, and each field's edits are met in order.
    let mut seen: Vec<(u32, usize, usize)> = Vec::new();
    for rec in records(src, range) {
        let rec = rec?;
        let i = match seen.iter().position(|(f, _, _)| *f == rec.field) {
            Some(i) => i,
            None => {
                seen.push((rec.field, 0, 0));
                seen.len() - 1
            }
        };
        let (_, count, hint) = &mut seen[i];
        let occurrence = *count;
        *count += 1;
        let key = (rec.field, occurrence);
        let found = match edit.records.get(*hint) {
            Some((k, _)) if *k == key => Some(*hint),
            _ => edit.records.binary_search_by(|(k, _)| k.cmp(&key)).ok(),
        };
        if let Some(at) = found {
            *hint = at + 1;
        }
        visit(rec, occurrence, found.map(|at| &edit.records[at].1))?;
    }
    Ok(())
}

/// The length of the message `src[range]` with `edit` applied; pushes the new payload length of each
/// edited sub-message on `lens`, in the order [`emit`] meets them.
pub(super) fn measure(
    src: &[u8],
    range: Range<usize>,
    edit: &Edit,
    lens: &mut Vec<u64>,
    mut split: Option<&mut MeasureSplit<'_>>,
) -> Result<u64, WireError> {
    if edit.is_empty() {
        return Ok(range.len() as u64);
    }
    let mut len = 0u64;
    let mut list = edit.list.as_deref().map(|l| (l.field, l.cursor()));
    let splitting = split
        .as_deref()
        .is_some_and(|s| std::ptr::eq(s.owner, edit));
    each_record(src, range, edit, |rec, occurrence, re| {
        if let Some((field, cursor)) = &mut list
            && rec.field == *field
            && re.is_none()
        {
            let head = split.as_deref_mut().filter(|_| splitting);
            if let Some(s) = &head
                && occurrence >= s.at
            {
                return Ok(());
            }
            let n = cursor.splice::<WireError>(occurrence, src, &rec, None)?;
            if let Some(s) = head {
                s.head += n;
            }
            len += n;
            return Ok(());
        }
        let Some(re) = re else {
            len += rec.span.len() as u64;
            return Ok(());
        };
        len += re.before.len() as u64;
        match &re.action {
            Action::Keep => len += rec.span.len() as u64,
            Action::Replace(bytes) => len += bytes.len() as u64,
            Action::Edit(child) => {
                if rec.wire_type != LEN {
                    return Err(WireError::NotLengthDelimited {
                        field: rec.field,
                        occurrence,
                    });
                }
                let slot = lens.len();
                lens.push(0);
                let inner = measure(src, rec.payload.clone(), child, lens, split.as_deref_mut())?;
                lens[slot] = inner;
                len += record_len(rec.field, inner);
            }
        }
        Ok(())
    })?;
    if splitting && let Some(tail) = split.and_then(|s| s.tail.take()) {
        len += tail()?;
    }
    Ok(len + edit.append.len() as u64)
}

/// The length of the occurrences from `at` on of the list `owner` edits, `src[range]` being
/// `owner`'s message: what [`measure`] leaves to another thread when it splits.
pub(super) fn measure_tail(
    src: &[u8],
    range: Range<usize>,
    owner: &Edit,
    at: usize,
) -> Result<u64, WireError> {
    let Some(list) = owner.list.as_deref() else {
        return Ok(0);
    };
    let mut cursor = list.cursor_from(at);
    let mut len = 0u64;
    each_record(src, range, owner, |rec, occurrence, re| {
        if rec.field == list.field && re.is_none() && occurrence >= at {
            len += cursor.splice::<WireError>(occurrence, src, &rec, None)?;
        }
        Ok(())
    })?;
    Ok(len)
}

/// Hands the message `src[range]` with `edit` applied to `out`, piece by piece; `lens` are the
/// lengths [`measure`] found.
fn emit(
    src: &[u8],
    range: Range<usize>,
    edit: &Edit,
    lens: &mut impl Iterator<Item = u64>,
    out: &mut Joined<'_>,
    mut split: Option<&mut EmitSplit<'_>>,
) -> std::io::Result<()> {
    if edit.is_empty() {
        return out.piece(Piece::Source(range));
    }
    let splitting = split
        .as_deref()
        .is_some_and(|s| std::ptr::eq(s.split.owner, edit));
    let mut list = edit.list.as_deref().map(|l| {
        // The tail part starts its walk of the list at the split.
        let from = match split.as_deref() {
            Some(s) if splitting && s.part == Part::Tail => s.split.at,
            _ => 0,
        };
        (l.field, l.cursor_from(from))
    });
    each_record(src, range, edit, |rec, occurrence, re| {
        if let Some((field, cursor)) = &mut list
            && rec.field == *field
            && re.is_none()
        {
            if let Some(s) = split.as_deref_mut().filter(|_| splitting) {
                match (s.part, occurrence >= s.split.at, s.reached) {
                    (Part::Head, true, _) => {
                        cursor.flush(&mut |p| out.piece(p))?;
                        out.flush()?;
                        return Err(std::io::Error::other(SplitReached));
                    }
                    (Part::Tail, false, _) => return Ok(()),
                    (Part::Tail, true, false) => {
                        s.reached = true;
                        out.start(s.split.head)?;
                    }
                    _ => {}
                }
            }
            let mut put = |p: Piece<'_>| out.piece(p);
            cursor.splice(occurrence, src, &rec, Some(&mut put))?;
            return Ok(());
        }
        // What the list's walk holds goes first.
        if let Some((_, cursor)) = &mut list {
            cursor.flush(&mut |p| out.piece(p))?;
        }
        let Some(re) = re else {
            return out.piece(Piece::Source(rec.span));
        };
        out.piece(Piece::Bytes(&re.before))?;
        match &re.action {
            Action::Keep => out.piece(Piece::Source(rec.span)),
            Action::Replace(bytes) => out.piece(Piece::Bytes(bytes)),
            Action::Edit(child) => {
                // `measure` went through the same records and checked them.
                let inner = lens.next().ok_or_else(|| {
                    std::io::Error::other("the edit changed between measuring and writing")
                })?;
                // Tag and length: two varints of at most 10 bytes, made on the stack.
                let mut head = [0u8; 20];
                let n = put_varint(&mut head, 0, (u64::from(rec.field) << 3) | u64::from(LEN));
                let n = put_varint(&mut head, n, inner);
                out.piece(Piece::Bytes(&head[..n]))?;
                emit(
                    src,
                    rec.payload.clone(),
                    child,
                    lens,
                    out,
                    split.as_deref_mut(),
                )
            }
        }
    })?;
    if let Some((_, cursor)) = &mut list {
        cursor.flush(&mut |p| out.piece(p))?;
    }
    // No occurrence from the split on: the split is at the end of the list's message.
    if let Some(s) = split.filter(|s| splitting && !s.reached) {
        s.reached = true;
        match s.part {
            Part::Head => {
                out.flush()?;
                return Err(std::io::Error::other(SplitReached));
            }
            Part::Tail => out.start(s.split.head)?,
        }
    }
    out.piece(Piece::Bytes(&edit.append))
}

impl From<WireError> for std::io::Error {
    fn from(e: WireError) -> Self {
        std::io::Error::other(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::{GraphProto, ModelProto, NodeProto};
    use prost::Message;

    /// Writes `out` to a fresh file through [`Spliced::copy_to`] and returns what the file holds.
    fn copied(out: &Spliced, src: &[u8], durable: bool) -> std::io::Result<Vec<u8>> {
        use crate::file::atomic::Flusher;
        let mut input = tempfile::tempfile()?;
        std::io::Write::write_all(&mut input, src)?;
        let output = tempfile::NamedTempFile::new()?;
        {
            let mut w = std::io::BufWriter::new(output.as_file());
            let flusher = durable.then(|| Flusher::start(output.as_file()));
            out.copy_to(&input, src, &mut w, flusher.as_ref())?;
            if let Some(f) = flusher {
                f.finish()?;
            }
            w.flush()?;
        }
        std::fs::read(output.path())
    }

    #[test]
    fn file_copy_writes_what_the_stream_writes_whatever_the_page_offsets() {
        // Large spans, some at the same place in a page on both sides (copied by the kernel) and
        // some not (copied through the buffer), between edits of odd lengths.
        let src: Vec<u8> = (0..5_000_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let odd = vec![7u8; 4093];
        let mut out = Spliced::default();
        out.push_source(0..1_500_000);
        out.push_edit(b"abc");
        out.push_source(1_500_010..3_100_000);
        out.push_edit(&odd);
        // The output offset here is 1_500_000 + 3 + 1_599_990 + 4093 = 3_104_086, at the same place
        // in a page as 3_104_086 + 40 * 4096 = 3_267_926.
        out.push_source(3_267_926..5_000_000);
        for durable in [false, true] {
            let written = copied(&out, &src, durable).expect("copy");
            assert_eq!(written.len() as u64, out.len);
            assert!(written == out.to_vec(&src), "durable={durable}");
        }
    }

    #[test]
    fn file_copy_of_a_shrunken_input_is_an_error() {
        let src = vec![1u8; 3 << 20];
        // Without and with a leading edit: the span is copied by the kernel, then through the buffer.
        for lead in [&b""[..], b"x"] {
            let mut out = Spliced::default();
            out.push_edit(lead);
            out.push_source(0..src.len());
            let mut input = tempfile::tempfile().expect("temp");
            std::io::Write::write_all(&mut input, &src[..2 << 20]).expect("write");
            let output = tempfile::tempfile().expect("temp");
            let mut w = std::io::BufWriter::new(&output);
            let err = out.copy_to(&input, &src, &mut w, None).unwrap_err();
            assert_eq!(
                err.kind(),
                std::io::ErrorKind::UnexpectedEof,
                "lead {lead:?}"
            );
        }
    }

    fn model_with_unknown_field() -> Vec<u8> {
        let model = ModelProto {
            ir_version: Some(9),
            graph: Some(GraphProto {
                node: vec![
                    NodeProto {
                        op_type: Some("Relu".into()),
                        input: vec!["x".into()],
                        output: vec!["y".into()],
                        ..Default::default()
                    },
                    NodeProto {
                        op_type: Some("Add".into()),
                        input: vec!["y".into(), "b".into()],
                        output: vec!["z".into()],
                        ..Default::default()
                    },
                ],
                ..Default::default()
            }),
            ..Default::default()
        };
        let mut bytes = model.encode_to_vec();
        // Field 999, varint 7: a field no ONNX release defines.
        write_varint(&mut bytes, 999 << 3); // wire type 0: varint
        write_varint(&mut bytes, 7);
        bytes
    }

    #[test]
    fn short_puts_append_what_extend_appends_at_every_length() {
        let src: Vec<u8> = (1..=40u8).collect();
        for n in 0..=src.len() {
            for at in [0usize, 3] {
                let mut want = vec![9u8; at];
                want.extend_from_slice(&src[..n]);
                let mut got = vec![9u8; at];
                put_short(&mut got, &src[..n]);
                assert_eq!(got, want, "{n} bytes after {at}");
            }
        }
    }

    #[test]
    fn varint_round_trips_and_rejects_overlong() {
        for v in [0u64, 1, 127, 128, 300, u64::MAX] {
            let mut b = Vec::new();
            write_varint(&mut b, v);
            assert_eq!(read_varint(&b, 0), Ok((v, b.len())));
        }
        assert_eq!(
            read_varint(&[0x80; 11], 0),
            Err(WireError::OverlongVarint(0))
        );
        assert_eq!(
            read_varint(&[0x80, 0x80], 0),
            Err(WireError::TruncatedVarint(0))
        );
    }

    #[test]
    fn records_report_overrun_of_length_prefix() {
        // Field 1, length 2^63 claimed, no payload.
        let mut b = vec![0x0a];
        write_varint(&mut b, 1 << 63);
        let r: Vec<_> = records(&b, 0..b.len()).collect();
        assert_eq!(r, vec![Err(WireError::Overrun(0))]);
    }

    #[test]
    fn empty_edit_is_the_identity() {
        let src = model_with_unknown_field();
        let edit = Edit::default();
        let out = splice(&src, 0..src.len(), &edit).unwrap();
        assert!(out.is_identity(&(0..src.len())));
        assert_eq!(out.to_vec(&src), src);
    }

    #[test]
    fn insert_before_second_node_and_rewire_its_input_keeps_the_rest() {
        let src = model_with_unknown_field();
        let new_node = NodeProto {
            op_type: Some("Identity".into()),
            input: vec!["b".into()],
            output: vec!["b2".into()],
            ..Default::default()
        };
        let mut edit = Edit::default();
        let graph = edit.child(7, 0);
        let mut before = Vec::new();
        write_len_record(&mut before, 1, &new_node.encode_to_vec());
        graph.at(1, 1).before = before;
        let mut input = Vec::new();
        write_len_record(&mut input, 1, b"b2");
        graph.child(1, 1).at(1, 1).action = Action::Replace(input);

        let out = splice(&src, 0..src.len(), &edit).unwrap().to_vec(&src);
        let m = ModelProto::decode(out.as_slice()).unwrap();
        let g = m.graph.unwrap();
        let ops: Vec<_> = g.node.iter().map(|n| n.op_type()).collect();
        assert_eq!(ops, ["Relu", "Identity", "Add"]);
        assert_eq!(g.node[2].input, ["y", "b2"]);
        // The unknown field is still the last record of the model, untouched.
        let last = records(&out, 0..out.len()).last().unwrap().unwrap();
        assert_eq!(last.field, 999);
        assert_eq!(out[last.span.clone()], src[src.len() - last.span.len()..]);
    }

    #[test]
    fn record_edits_made_in_any_order_are_found_and_kept_once() {
        let mut edit = Edit::default();
        edit.at(1, 5).before = vec![1];
        edit.at(1, 2).before = vec![2];
        edit.at(5, 0).before = vec![3];
        edit.at(1, 2).before.push(4); // the same record again
        edit.at(1, 0).before = vec![5];
        let keys: Vec<_> = edit.records.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, [(1, 0), (1, 2), (1, 5), (5, 0)]);
        assert_eq!(edit.get(1, 2).map(|r| r.before.clone()), Some(vec![2, 4]));
        assert!(edit.get(1, 3).is_none());
    }

    #[test]
    fn splicing_a_non_message_record_is_an_error() {
        let src = model_with_unknown_field();
        let mut edit = Edit::default();
        edit.child(1, 0); // ir_version is a varint
        assert!(matches!(
            splice(&src, 0..src.len(), &edit),
            Err(WireError::NotLengthDelimited { field: 1, .. })
        ));
    }

    #[test]
    fn an_output_not_as_long_as_measured_is_an_error_not_a_file() {
        let src = b"\x08\x01\x10\x02".to_vec();
        let mut out = Spliced::default();
        out.push_source(0..src.len());
        assert!(out.write_to(&src, &mut Vec::new()).is_ok());
        out.len += 1;
        let err = out
            .write_to(&src, &mut Vec::new())
            .expect_err("a length other than the measured one");
        assert!(
            err.to_string().contains("measured at 5 bytes but 4"),
            "{err}"
        );
    }
}
