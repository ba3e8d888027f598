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
    write_atomic_durable(dest, true, |w, _| fill(w))
}

/// What a `fill` of [`write_atomic_durable`] may use besides its writer.
pub struct Filling<'a> {
    tmp: &'a tempfile::NamedTempFile,
    flusher: Option<&'a Flusher>,
}

impl Filling<'_> {
    /// Another handle of the temporary file, with a position of its own: for a writer that fills
    /// the file from two threads.
    pub fn reopen(&self) -> std::io::Result<File> {
        self.tmp.reopen()
    }

    /// The flusher of a durable write, to be told what was written.
    pub fn flusher(&self) -> Option<&Flusher> {
        self.flusher
    }
}

/// Flushes a file to disk while it is being written, on a thread of its own: each time
/// [`FLUSH_EVERY`] more bytes were written (as the writers say with [`Flusher::wrote`]), it flushes
/// the file. The flush before the rename then has only the last slice to wait for. Why not the
/// kernel's write-back hint (`sync_file_range`): the flush to the device is what costs (~0.16 s for
/// 207 MB on the benchmark's disk, after the data was written back), and only a flush moves it.
pub struct Flusher {
    tx: Option<std::sync::mpsc::Sender<u64>>,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

/// Bytes written between two flushes of [`Flusher`]. Small: a flush costs ~11-14 ms of device
/// latency whatever it carries on the benchmark's disk, and the bytes written after the last one are
/// left to the flush before the rename. With 32 MiB, `expand` of a 20 MB model wrote everything
/// before the first flush and then waited 23 ms for it; with 4 MiB, 0.1 ms.
pub const FLUSH_EVERY: u64 = 4 << 20;

impl Flusher {
    /// A flusher of `file`; without a thread to be had, one that does nothing (the flush before the
    /// rename does all the work).
    pub fn start(file: &File) -> Flusher {
        let (tx, rx) = std::sync::mpsc::channel::<u64>();
        let thread = file.try_clone().and_then(|f| {
            std::thread::Builder::new()
                .name("flush".to_owned())
                .spawn(move || {
                    let mut pending = 0u64;
                    while let Ok(n) = rx.recv() {
                        pending += n;
                        if pending >= FLUSH_EVERY {
                            f.sync_data()?;
                            pending = 0;
                        }
                    }
                    Ok(())
                })
        });
        match thread {
            Ok(t) => Flusher {
                tx: Some(tx),
                thread: Some(t),
            },
            Err(_) => Flusher {
                tx: None,
                thread: None,
            },
        }
    }

    /// Says that `bytes` more were written (to the page cache: a buffered writer flushed first).
    pub fn wrote(&self, bytes: u64) {
        if let Some(tx) = &self.tx {
            // A flusher that stopped on an error says so in `finish`.
            let _ = tx.send(bytes);
        }
    }

    /// Waits for the flush under way, if any, and returns its error: a flush that failed may have
    /// taken the file's error state with it, so the final flush could not report it.
    pub fn finish(mut self) -> std::io::Result<()> {
        drop(self.tx.take());
        match self.thread.take() {
            Some(t) => t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            None => Ok(()),
        }
    }
}

/// Like [`write_atomic_with`]; without `durable` the temporary file is not flushed to disk before the
/// rename. The output is still atomic for readers and if the process is killed, but a power loss soon
/// after may leave `dest` empty or as it was: the flush is what makes the write wait for the disk.
pub fn write_atomic_durable(
    dest: &Path,
    durable: bool,
    fill: impl FnOnce(&mut std::io::BufWriter<&File>, &Filling<'_>) -> std::io::Result<()>,
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
        let flusher = durable.then(|| Flusher::start(tmp.as_file()));
        let mut w = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file());
        let filling = Filling {
            tmp: &tmp,
            flusher: flusher.as_ref(),
        };
        let filled = fill(&mut w, &filling).and_then(|_| w.flush());
        let flushed = flusher.map_or(Ok(()), Flusher::finish);
        filled.context("cannot write temporary file")?;
        flushed.context("cannot flush temporary file")?;
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

/// True when `a` and `b` name the same existing file (through links, `.` and `..`).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
