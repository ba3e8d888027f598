//! Reading model bytes: a memory-mapped file or standard input, and every other file onnx-lint reads
//! (configuration, baselines), through [`open_regular`].
//!
//! A file is mapped, not read: the decoded model's `bytes` fields are slices of the mapping, so weights are
//! never copied and, while checking, never paged in. The mapping is guarded against the file shrinking
//! under it ([`super::guard`]); [`Content::unchanged`] says whether it did.
//!
//! Only regular files are opened: a FIFO with no writer would block the open (or the read) forever, and a
//! device such as `/dev/zero` never ends. Standard input, which can be either, is read up to
//! [`MAX_PROTOBUF_BYTES`] and refused at once when its first bytes cannot start a model.

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Protobuf cannot hold a message of 2 GiB or more: no model is larger, on standard input or written.
pub const MAX_PROTOBUF_BYTES: u64 = (1 << 31) - 1;

/// Configuration files (`onnx-lint.toml`, `pyproject.toml`) larger than this are refused unread.
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// Baselines larger than this are refused unread (a million findings take about 200 MB).
pub const MAX_BASELINE_BYTES: u64 = 1 << 30;
/// Where a model came from: a file (whose folder anchors external data) or standard input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    File(PathBuf),
    Stdin,
}

impl Origin {
    /// `-` means standard input, as for most command-line tools.
    pub fn from_arg(arg: &Path) -> Self {
        if arg.as_os_str() == "-" {
            Origin::Stdin
        } else {
            Origin::File(arg.to_owned())
        }
    }

    /// The folder external-data locations are resolved against; none for standard input.
    pub fn base_dir(&self) -> Option<PathBuf> {
        match self {
            Origin::File(p) => Some(match p.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
                _ => PathBuf::from("."),
            }),
            Origin::Stdin => None,
        }
    }

    pub fn display(&self) -> String {
        match self {
            Origin::File(p) => p.display().to_string(),
            Origin::Stdin => "<stdin>".to_owned(),
        }
    }
}

/// The content of a model source: all of it as `bytes` (mapped for a regular file over
/// 64 KiB, `READ_WHOLE_UP_TO`), and the open file when there is one.
pub struct Content {
    pub bytes: Bytes,
    pub file: Option<File>,
    /// `bytes` is a mapping of `file`: decoding reads the file selectively (see `decode`) rather
    /// than touch, and so page in, every byte of the mapping.
    pub mapped: bool,
    /// The file's size and modification time when it was opened, to tell whether it changed since.
    pub stamp: Option<Stamp>,
}

/// A file's size and modification time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub len: u64,
    pub modified: Option<SystemTime>,
}

impl Stamp {
    fn of(meta: &Metadata) -> Stamp {
        Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }
}

impl Content {
    /// `Err` if the file was written to, or shrank under its mapping, since it was opened: what was
    /// decoded from it may be a mix of old and new bytes, or zeros where it was cut.
    pub fn unchanged(&self, origin: &Origin) -> Result<()> {
        unchanged(&self.bytes, self.file.as_ref(), self.stamp, origin)
    }
}

/// [`Content::unchanged`] for bytes and a file held apart (a model's).
pub fn unchanged(
    bytes: &[u8],
    file: Option<&File>,
    stamp: Option<Stamp>,
    origin: &Origin,
) -> Result<()> {
    let now = file.and_then(|f| f.metadata().ok()).map(|m| Stamp::of(&m));
    let why = if super::guard::hit(bytes) {
        Some("it was cut short under the reader".to_owned())
    } else {
        match (stamp, now) {
            (Some(was), Some(now)) if now.len != was.len => Some(format!(
                "its size went from {} to {} bytes",
                was.len, now.len
            )),
            (Some(was), Some(now)) if now.modified != was.modified => {
                Some("it was written to".to_owned())
            }
            _ => None,
        }
    };
    match why {
        Some(why) => bail!(
            "{} changed while being read ({why}); load it again once it is complete",
            origin.display()
        ),
        None => Ok(()),
    }
}

/// What a file that is not a regular file is, for saying why it is refused.
fn kind(meta: &Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if meta.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

fn refuse(meta: &Metadata) -> Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    if meta.is_dir() {
        // As an operating-system error, which the Python API raises as `IsADirectoryError`.
        #[cfg(unix)]
        return Err(std::io::Error::from_raw_os_error(libc::EISDIR).into());
    }
    match kind(meta) {
        "not a regular file" => bail!("not a regular file: onnx-lint reads only regular files"),
        k => bail!("is {k}, not a regular file: onnx-lint reads only regular files"),
    }
}

/// Opens `path` for reading if it is a regular file (after following symbolic links), with its
/// metadata; a FIFO, device, socket or directory is refused without being read. Every file onnx-lint
/// reads is opened here.
///
/// The check comes before the open, since opening a FIFO that has no writer blocks; the file is opened
/// non-blocking all the same, for the race in which the path is replaced by a FIFO between the two, and
/// checked again on the open descriptor before it is made blocking again.
pub fn open_regular(path: &Path) -> Result<(File, Metadata)> {
    let meta = std::fs::metadata(path)?;
    refuse(&meta)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    refuse(&meta)?;
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        let fd = file.as_raw_fd();
        // SAFETY: fcntl on a descriptor we own, with integer arguments only.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) < 0 {
                return Err(std::io::Error::last_os_error().into());
            }
        }
    }
    Ok((file, meta))
}

/// The whole of the regular file at `path`, refused unread past `cap` bytes (`what` names the file in
/// that message: "configuration", "baseline").
pub fn read_capped(path: &Path, cap: u64, what: &str) -> Result<Vec<u8>> {
    let (file, meta) = open_regular(path)?;
    let too_big = |n: u64| format!("the {what} is {n} bytes; onnx-lint reads at most {cap}");
    if meta.len() > cap {
        bail!(too_big(meta.len()));
    }
    let mut buf = Vec::with_capacity(meta.len() as usize);
    // Bounded again as it is read: the file may grow meanwhile.
    file.take(cap + 1)
        .read_to_end(&mut buf)
        .context("cannot read")?;
    if buf.len() as u64 > cap {
        bail!(too_big(buf.len() as u64));
    }
    Ok(buf)
}

/// [`read_capped`] as UTF-8 text.
pub fn read_text_capped(path: &Path, cap: u64, what: &str) -> Result<String> {
    String::from_utf8(read_capped(path, cap, what)?)
        .map_err(|e| anyhow::anyhow!("the {what} is not UTF-8 text: {}", e.utf8_error()))
}

/// The whole content of `origin`, mapped (files) or read (standard input).
pub fn read(origin: &Origin) -> Result<Content> {
    match origin {
        Origin::Stdin => read_stdin(std::io::stdin().lock(), MAX_PROTOBUF_BYTES),
        Origin::File(path) => map_file(path),
    }
}

/// Standard input is read before anything is decoded; its first bytes are looked at as soon as they
/// arrive, so that an endless stream that is no model (`/dev/zero`) is refused at once rather than
/// after `cap` bytes.
fn read_stdin(mut input: impl Read, cap: u64) -> Result<Content> {
    let mut buf = Vec::new();
    let mut head = (&mut input).take((PREFIX_BYTES as u64).min(cap + 1));
    head.read_to_end(&mut buf)
        .context("cannot read standard input")?;
    if let Some(why) = super::encoding::prefix_error(&buf, cap) {
        bail!("not an ONNX model: standard input starts with an invalid protobuf ({why})");
    }
    input
        .take(cap + 1 - buf.len() as u64)
        .read_to_end(&mut buf)
        .context("cannot read standard input")?;
    if buf.len() as u64 > cap {
        bail!(
            "standard input is over {cap} bytes, the most a protobuf (and so an ONNX model) can hold"
        );
    }
    Ok(Content {
        bytes: Bytes::from(buf),
        file: None,
        mapped: false,
        stamp: None,
    })
}

/// How much of standard input is looked at before the rest is read.
const PREFIX_BYTES: usize = 64 << 10;

/// Files up to this size are read whole, not mapped: a mapping costs an `mmap`, page faults and an
/// `munmap` (whose TLB flush stops every other thread of the process), more than reading a small
/// file. Speed trick, measured on the node corpus (1884 models of a few hundred bytes): see
/// docs/performance.md#many-small-models.
const READ_WHOLE_UP_TO: u64 = 64 << 10;

fn map_file(path: &Path) -> Result<Content> {
    let (file, meta) = open_regular(path).map_err(|e| {
        if e.is::<std::io::Error>() {
            e.context("cannot open file")
        } else {
            e
        }
    })?;
    let stamp = Some(Stamp::of(&meta));
    if meta.len() == 0 {
        // mmap of zero bytes fails on Linux; an empty model is decoded (and rejected) like any other.
        return Ok(Content {
            bytes: Bytes::new(),
            file: None,
            mapped: false,
            stamp,
        });
    }
    if meta.len() <= READ_WHOLE_UP_TO {
        // Bounded as it is read: a file that grows meanwhile is caught by its stamp.
        let buf = read_whole(&file, meta.len(), READ_WHOLE_UP_TO + 1)?;
        return Ok(Content {
            bytes: Bytes::from(buf),
            file: Some(file),
            mapped: false,
            stamp,
        });
    }
    // Mapped rather than read (measured): reading a 400 MiB model whole took 0.37 s and 410 MB, where
    // the mapped check of it takes 0.01 s and 17 MB. The price, SIGBUS when another process truncates
    // the file, is caught by `guard`.
    // SAFETY: the mapping is read-only, and guarded against the file shrinking (see `guard`); writers in
    // this crate never modify a file in place (atomic rename).
    let map = unsafe { memmap2::Mmap::map(&file) }.context("cannot map file")?;
    // The mapping is read for writing (sequentially) and for small constants; read-ahead around a
    // small read would page in weight bytes nobody needs.
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Random);
    let (bytes, mapped) = match super::guard::Guarded::new(map) {
        Ok(guarded) => (Bytes::from_owner(guarded), true),
        // No room to guard it (or no guard on this platform): read it whole, which nothing can cut
        // short under us.
        Err(map) => {
            drop(map);
            let buf = read_whole(&file, meta.len(), MAX_PROTOBUF_BYTES.max(meta.len()))?;
            (Bytes::from(buf), false)
        }
    };
    Ok(Content {
        bytes,
        file: Some(file),
        mapped,
        stamp,
    })
}

/// A model file of `len` bytes (its size when opened), read from the start, at most `cap` bytes.
fn read_whole(file: &File, len: u64, cap: u64) -> Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(len as usize);
    file.take(cap)
        .read_to_end(&mut buf)
        .context("cannot read file")?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeros_on_standard_input_are_refused_at_the_first_byte() {
        // An endless stream: only the prefix is read.
        let err = read_stdin(std::io::repeat(0), MAX_PROTOBUF_BYTES)
            .err()
            .expect("refused");
        assert!(format!("{err:#}").contains("field number 0"), "{err:#}");
    }

    #[test]
    fn standard_input_over_the_cap_is_refused() {
        // A valid start (ir_version = 8), then more than the cap.
        let mut input = vec![0x08, 0x08];
        input.extend(std::iter::repeat_n(0x08, 100));
        let err = read_stdin(input.as_slice(), 64).err().expect("refused");
        assert!(format!("{err:#}").contains("over 64 bytes"), "{err:#}");
    }

    #[test]
    fn devices_and_fifos_are_refused() {
        let err = open_regular(Path::new("/dev/null")).expect_err("refused");
        assert!(format!("{err:#}").contains("character device"), "{err:#}");
        let err = open_regular(Path::new("/")).expect_err("refused");
        assert!(format!("{err:#}").contains("directory"), "{err:#}");
    }
}
