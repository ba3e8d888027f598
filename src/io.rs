//! Reading model bytes (memory-mapped file or standard input) and writing files atomically.
//!
//! A file is mapped, not read: the decoded model's `bytes` fields are slices of the mapping, so weights are
//! never copied and, while checking, never paged in.

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

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

/// The content of a model source: all of it as `bytes` (mapped for a regular file), and the open file
/// when there is one to read selectively (see `decode`).
pub struct Content {
    pub bytes: Bytes,
    pub file: Option<File>,
}

/// The whole content of `origin`, mapped (files) or read (standard input).
pub fn read(origin: &Origin) -> Result<Content> {
    match origin {
        Origin::Stdin => {
            let mut buf = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut buf)
                .context("cannot read standard input")?;
            Ok(Content {
                bytes: Bytes::from(buf),
                file: None,
            })
        }
        Origin::File(path) => map_file(path),
    }
}

fn map_file(path: &Path) -> Result<Content> {
    let file = File::open(path).with_context(|| "cannot open file".to_string())?;
    let meta = file.metadata().context("cannot stat file")?;
    if meta.is_dir() {
        bail!("is a directory");
    }
    if !meta.is_file() {
        // A FIFO or device cannot be mapped; read it, as `cat` would.
        let mut buf = Vec::new();
        (&file).read_to_end(&mut buf).context("cannot read file")?;
        return Ok(Content {
            bytes: Bytes::from(buf),
            file: None,
        });
    }
    if meta.len() == 0 {
        // mmap of zero bytes fails on Linux; an empty model is decoded (and rejected) like any other.
        return Ok(Content {
            bytes: Bytes::new(),
            file: None,
        });
    }
    // SAFETY: the mapping is read-only. If another process truncates the file while we hold it, reads
    // past the new end fault (SIGBUS); that is the documented limit of every mmap-based loader and the
    // price of not copying weights. Writers in this crate never modify a file in place (atomic rename).
    let map = unsafe { memmap2::Mmap::map(&file) }.context("cannot map file")?;
    // The mapping is read for writing (sequentially) and for small constants; read-ahead around a
    // small read would page in weight bytes nobody needs.
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Random);
    Ok(Content {
        bytes: Bytes::from_owner(map),
        file: Some(file),
    })
}

/// Writes `data` to `dest` atomically: a temporary file in the destination folder, flushed to disk, then
/// renamed over `dest`. Readers see the old file or the new one, never half of one.
pub fn write_atomic(dest: &Path, data: &[u8]) -> Result<()> {
    write_atomic_with(dest, |f| f.write_all(data))
}

/// Like [`write_atomic`], with the content produced by `fill` writing into the temporary file.
pub fn write_atomic_with(
    dest: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<&File>) -> std::io::Result<()>,
) -> Result<()> {
    write_atomic_durable(dest, true, fill)
}

/// Like [`write_atomic_with`]; without `durable` the temporary file is not flushed to disk before the
/// rename. The output is still atomic for readers and if the process is killed, but a power loss soon
/// after may leave `dest` empty or as it was: the flush is what makes the write wait for the disk.
pub fn write_atomic_durable(
    dest: &Path,
    durable: bool,
    fill: impl FnOnce(&mut std::io::BufWriter<&File>) -> std::io::Result<()>,
) -> Result<()> {
    let dir = match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".onnx-lint-").suffix(".tmp");
    #[cfg(unix)]
    builder.permissions(output_permissions(dest));
    let tmp = builder
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file());
        fill(&mut w)
            .and_then(|_| w.flush())
            .context("cannot write temporary file")?;
    }
    if durable {
        tmp.as_file()
            .sync_all()
            .context("cannot flush temporary file")?;
    }
    tmp.persist(dest)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot rename temporary file to {}", dest.display()))?;
    Ok(())
}

/// The mode of a written model: that of the file it replaces, else what a new file gets (0666 less the
/// umask, which the kernel applies at creation). A temporary file is private (0600) by default, and a
/// model left so after the rename would be unreadable to the service meant to load it.
#[cfg(unix)]
fn output_permissions(dest: &Path) -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(dest) {
        Ok(m) if m.is_file() => m.permissions(),
        _ => std::fs::Permissions::from_mode(0o666),
    }
}

/// Asks the kernel to start writing `len` bytes of `file` from `offset` to disk, and returns without
/// waiting: the flush before the rename then finds most of the file written already, where it would
/// otherwise start the whole write itself. A hint: where the platform has no such call, or it fails,
/// the flush does all the work.
pub fn start_writeback(file: &File, offset: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
            return;
        };
        // SAFETY: sync_file_range reads and writes no memory of this process; the descriptor is
        // borrowed from `file`, so it stays open for the duration of the call.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, offset, len);
}

/// True when `a` and `b` name the same existing file (through links, `.` and `..`).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
