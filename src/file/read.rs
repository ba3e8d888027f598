//! Reading model bytes: a memory-mapped file or standard input.
//!
//! A file is mapped, not read: the decoded model's `bytes` fields are slices of the mapping, so weights are
//! never copied and, while checking, never paged in.

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use std::fs::File;
use std::io::Read;
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
