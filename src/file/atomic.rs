//! Writing files atomically: a temporary file in the destination folder, filled, flushed and renamed
//! into place, so that readers see the old file or the new one, never half of one.
//!
//! What the output path is decides how ([`super::output`]): a symbolic link is followed, a character
//! device or a FIFO is written through, a file this user cannot write is refused. The temporary
//! files are named, registered and swept by [`super::temp`].

use super::output::{self, Target};
use super::temp;
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
    /// The temporary file; `None` for an output written through (a device, a FIFO).
    tmp: Option<&'a tempfile::NamedTempFile>,
    flusher: Option<&'a Flusher>,
}

impl Filling<'_> {
    /// Whether the output can be written at two places at once ([`Filling::reopen`]): not a device or
    /// a FIFO, which are written from start to end.
    pub fn seekable(&self) -> bool {
        self.tmp.is_some()
    }

    /// Another handle of the temporary file, with a position of its own: for a writer that fills
    /// the file from two threads. Fails for an output that is not [`Filling::seekable`].
    pub fn reopen(&self) -> std::io::Result<File> {
        match self.tmp {
            Some(t) => t.reopen(),
            None => Err(std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "the output is written from start to end",
            )),
        }
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
/// left to the flush before the rename. With 32 MiB, a rewrite of a 20 MB model wrote everything
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
///
/// `dest` is first resolved ([`output::resolve`]): a symbolic link is followed and the file it names
/// replaced (the link kept); a character device or a FIFO is opened and written through, with no
/// temporary file; a file this user cannot write, a folder or another kind of file is refused before
/// anything is written. The temporary file (`.onnx-lint-<pid>-*.tmp`, see [`temp`]) is removed if the
/// write fails, or the process gets SIGINT or SIGTERM (in a program that asked for it, as the binary
/// does: [`temp::remove_on_signals`]); one left by a killed process is removed by a later write into
/// the same folder ([`temp::sweep_stale`]).
pub fn write_atomic_durable(
    dest: &Path,
    durable: bool,
    fill: impl FnOnce(&mut std::io::BufWriter<&File>, &Filling<'_>) -> std::io::Result<()>,
) -> Result<()> {
    match output::resolve(dest)? {
        Target::Through(path) => write_through(&path, fill),
        Target::Replace(path) => replace(&path, durable, fill),
    }
}

/// Writes a device or a FIFO from start to end. Nothing is flushed to disk: there is no disk.
fn write_through(
    path: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<&File>, &Filling<'_>) -> std::io::Result<()>,
) -> Result<()> {
    // Opening a FIFO waits for its reader, as the shell's `>` does.
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, &file);
    let filling = Filling {
        tmp: None,
        flusher: None,
    };
    fill(&mut w, &filling)
        .and_then(|_| w.flush())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Writes a regular file (or a new one) through a temporary file renamed over it.
fn replace(
    dest: &Path,
    durable: bool,
    fill: impl FnOnce(&mut std::io::BufWriter<&File>, &Filling<'_>) -> std::io::Result<()>,
) -> Result<()> {
    let dir = match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    temp::sweep_stale(dir);
    #[cfg(unix)]
    let permissions = Some(output_permissions(dest));
    #[cfg(not(unix))]
    let permissions = None;
    let tmp = temp::create_in(dir, permissions)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    keep_owner(dest, tmp.file.as_file());
    {
        let flusher = durable.then(|| Flusher::start(tmp.file.as_file()));
        let mut w = std::io::BufWriter::with_capacity(1 << 20, tmp.file.as_file());
        let filling = Filling {
            tmp: Some(&tmp.file),
            flusher: flusher.as_ref(),
        };
        let filled = fill(&mut w, &filling).and_then(|_| w.flush());
        let flushed = flusher.map_or(Ok(()), Flusher::finish);
        filled.context("cannot write temporary file")?;
        flushed.context("cannot flush temporary file")?;
    }
    if durable {
        tmp.file
            .as_file()
            .sync_all()
            .context("cannot flush temporary file")?;
    }
    tmp.persist(dest)
        .with_context(|| format!("cannot rename temporary file to {}", dest.display()))?;
    Ok(())
}

/// Gives the new file the owner and group of the one it replaces, as `cp` writing over a file keeps
/// them: root rewriting a user's model must not leave it root's. Only root may give a file away;
/// for anyone else this fails, harmlessly, and the file is the writer's as any new file would be.
#[cfg(unix)]
fn keep_owner(dest: &Path, tmp: &File) {
    use std::os::unix::fs::MetadataExt;
    if let Ok(m) = std::fs::metadata(dest)
        && m.is_file()
    {
        let _ = std::os::unix::fs::fchown(tmp, Some(m.uid()), Some(m.gid()));
    }
}

#[cfg(not(unix))]
fn keep_owner(_: &Path, _: &File) {}

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
