//! Writing files atomically: a temporary file in the destination folder, filled, flushed and renamed
//! into place, so that readers see the old file or the new one, never half of one.

use anyhow::{Context, Result};
use std::fs::File;
use std::io::Write;
use std::path::Path;

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
