//! The splicer: an [`Edit`] applied to a message as it is written, so that every record the edit
//! does not touch is copied byte for byte. The wire format itself is [`super::encoding`]'s; its
//! public parts are re-exported here, where the writers above the byte layer find them.
//!
//! This is how onnx-lint writes a model back "exactly as read": prost drops unknown fields and would
//! re-encode (re-order, re-pack) what it knows, so the writer never re-encodes an existing message. It
//! copies spans of the source and emits bytes only for what a pass added or changed. An output is a
//! list of [`Chunk`]s, streamed to the destination, so weights go from the mapped input to the output
//! file without an in-memory copy of the model.

pub use super::edit::{Action, Edit, RecordEdit};
pub use super::encoding::{
    LEN, Record, Records, WireError, prefix_error, put_u32, read_varint, records, write_len_record,
    write_varint,
};

use super::atomic::{Filling, Flusher};
use super::edit::{Split, each_record};
use super::encoding::{Piece, put_varint};
use std::io::Write;
use std::ops::Range;
use thiserror::Error;

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

/// The head part of a split output ends here: not an error, the walk stops.
#[derive(Debug, Error)]
#[error("the split point of the output was reached")]
struct SplitReached;

fn is_split_reached(e: &std::io::Error) -> bool {
    e.get_ref().is_some_and(|e| e.is::<SplitReached>())
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
                crate::file::encoding::put_short(&mut got, &src[..n]);
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
        let keys: Vec<_> = edit.records().iter().map(|(k, _)| *k).collect();
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
