//! The protobuf wire format, read and written directly: varints, records and the scan of a
//! message's records, and the small appends the writers are made of. The bottom of the byte layer:
//! it names no other module of it.

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
/// rewritten node is made of cost more than the copies, a quarter of the write of a
/// million rewritten nodes.
///
/// The pieces go straight into 32 bytes of room at the end of `out`, not through a buffer on the
/// stack: read back in wider words than they were stored in, the stack's bytes stalled each load
/// until the stores were done (a fifth of the write's CPU in `put_name` alone).
#[inline]
pub fn put_short(out: &mut Vec<u8>, b: &[u8]) {
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

/// What the walk hands the writer: a span of the source, or bytes.
pub enum Piece<'a> {
    Source(Range<usize>),
    Bytes(&'a [u8]),
    /// The pieces that follow go at this offset of the output (the tail part of a split output).
    At(u64),
}

impl Piece<'_> {
    /// The bytes the piece puts in the output.
    pub(super) fn len(&self) -> u64 {
        match self {
            Piece::Source(r) => r.len() as u64,
            Piece::Bytes(b) => b.len() as u64,
            Piece::At(_) => 0,
        }
    }
}

/// Writes `value` as a varint into `buf` at `at` (which has room for 10 bytes); returns the end.
pub fn put_varint(buf: &mut [u8; 20], mut at: usize, mut value: u64) -> usize {
    while value >= 0x80 {
        buf[at] = (value as u8) | 0x80;
        value >>= 7;
        at += 1;
    }
    buf[at] = value as u8;
    at + 1
}

/// Bytes of a length-delimited record of `field` whose payload is `payload` bytes.
pub fn record_len(field: u32, payload: u64) -> u64 {
    (varint_len((u64::from(field) << 3) | u64::from(LEN)) + varint_len(payload)) as u64 + payload
}

/// Bytes of `value` as a varint.
pub fn varint_len(value: u64) -> usize {
    (64 - (value | 1).leading_zeros()).div_ceil(7) as usize
}

/// `1 + varint + n`: the length of a length-delimited field of `n` bytes whose number is below 16
/// (a one-byte tag), as every `NodeProto` field is.
pub fn field_len(n: usize) -> usize {
    1 + varint_len(n as u64) + n
}

/// A count, an offset or a length kept in 32 bits, as the edits keep them to stay small. Every
/// value of a model that can be written fits: protobuf's 2 GiB limit bounds its records, names
/// and text. A larger one saturates at `u32::MAX - 1`, short of `u32::MAX`, which an edit uses as
/// a sentinel; what is made from a saturated value then differs from what it stands for, and the
/// write fails on the length it measured, or on the output's size, before anything is written.
pub fn small(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX - 1)
}

/// Decimal digits of `n`.
pub fn digits(mut n: u32) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// Appends `n` in decimal, written in place (see [`put_short`] on bytes read back from the stack).
pub fn put_u32(out: &mut Vec<u8>, n: u32) {
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
