//! What an output path is, and whether it may be written: a symbolic link is followed to the file it
//! names (the link is kept), a character device or a FIFO is written through (never replaced by a
//! regular file), a file this user may not write is refused as `cp` would refuse it, and so is a
//! folder or any other kind of file. [`Inputs`] holds the files a run reads, by identity, so that no
//! output replaces one of them whatever path names it.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// How an output is written.
#[derive(Debug, PartialEq, Eq)]
pub enum Target {
    /// A regular file, or nothing yet: replaced atomically (a temporary file renamed over it).
    Replace(PathBuf),
    /// A character device (`/dev/null`) or a FIFO: opened and written, no rename. Renaming over it
    /// would replace the device or the pipe with a regular file, and the reader would get nothing.
    Through(PathBuf),
}

impl Target {
    pub fn path(&self) -> &Path {
        match self {
            Target::Replace(p) | Target::Through(p) => p,
        }
    }
}

/// The file `dest` names: `dest` itself, or where a symbolic link leads. Following the link writes the
/// file it names and keeps the link, as `cp` and the shell's `>` do; renaming over the link would
/// replace it and leave the file it pointed to unchanged.
fn follow_link(dest: &Path) -> Result<PathBuf> {
    match std::fs::symlink_metadata(dest) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(dest).with_context(|| {
            format!(
                "cannot write {}: it is a symbolic link to a file that cannot be reached",
                dest.display()
            )
        }),
        _ => Ok(dest.to_owned()),
    }
}

/// How to write `dest` (links followed), or why not.
pub fn resolve(dest: &Path) -> Result<Target> {
    // A device or a FIFO, behind links or not, is opened by the name given: `/dev/stdout` leads to
    // `/proc/self/fd/1`, which for a pipe names no path that could be followed.
    if let Ok(m) = std::fs::metadata(dest)
        && written_through(&m.file_type())
    {
        return Ok(Target::Through(dest.to_owned()));
    }
    let path = follow_link(dest)?;
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Target::Replace(path)),
        Err(e) => return Err(e).with_context(|| format!("cannot write {}", path.display())),
    };
    let kind = meta.file_type();
    if kind.is_file() {
        refuse_unwritable(&path)?;
        return Ok(Target::Replace(path));
    }
    if written_through(&kind) {
        return Ok(Target::Through(path));
    }
    if kind.is_dir() {
        bail!(
            "cannot write {}: it is a folder; name a file",
            path.display()
        );
    }
    bail!(
        "refusing to write {}: it is neither a regular file, a character device nor a FIFO; nothing was written",
        path.display()
    )
}

#[cfg(unix)]
fn written_through(kind: &std::fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    kind.is_char_device() || kind.is_fifo()
}

#[cfg(not(unix))]
fn written_through(_: &std::fs::FileType) -> bool {
    false
}

/// Refuses to replace a file this user may not write, as `cp` would: the rename needs only the
/// folder's permission, and would silently replace a read-only file. Root may write any file, as
/// `access(2)` says.
#[cfg(unix)]
fn refuse_unwritable(path: &Path) -> Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return Ok(()); // a path with a NUL byte cannot have been found by metadata
    };
    // SAFETY: access(2) reads the NUL-terminated path and nothing else.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    bail!(
        "refusing to write over {}: {} (it is not writable by this user); nothing was written",
        path.display(),
        match e.raw_os_error() {
            Some(libc::EACCES) | Some(libc::EPERM) => "permission denied".to_owned(),
            _ => e.to_string(),
        }
    )
}

#[cfg(not(unix))]
fn refuse_unwritable(path: &Path) -> Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if m.permissions().readonly() => bail!(
            "refusing to write over {}: it is read-only; nothing was written",
            path.display()
        ),
        _ => Ok(()),
    }
}

/// The files a run reads, each by identity (device and inode) and with what it is: no output may
/// replace one of them, whatever path names it (`./m.onnx`, a link, a hard link).
#[derive(Debug, Default)]
pub struct Inputs {
    files: Vec<(FileId, String)>,
}

impl Inputs {
    /// Records `path` as `what` (`the model`, `the configuration file`); a path that names no file
    /// is no input to protect.
    pub fn add(&mut self, what: &str, path: &Path) {
        if let Some(id) = file_id(path)
            && !self.files.iter().any(|(i, _)| *i == id)
        {
            self.files.push((id, format!("{what} {}", path.display())));
        }
    }

    /// What input `dest` is, if it is one.
    pub fn find(&self, dest: &Path) -> Option<&str> {
        let id = file_id(dest)?;
        self.files
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, what)| what.as_str())
    }

    /// Refuses `dest` if it is one of the inputs; `output` says what would be written (`the report`).
    pub fn refuse(&self, dest: &Path, output: &str) -> Result<()> {
        match self.find(dest) {
            Some(what) => bail!(
                "refusing to write {output} to {}: it is {what}, an input of this run; nothing was written",
                dest.display()
            ),
            None => Ok(()),
        }
    }
}

/// What identifies a file whatever path names it: device and inode.
pub type FileId = (u64, u64);

/// The identity of the file `path` names (links followed), if it exists.
#[cfg(unix)]
pub fn file_id(path: &Path) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Without inodes, the canonical path stands for the file (hashed: an identity is two numbers).
#[cfg(not(unix))]
pub fn file_id(path: &Path) -> Option<FileId> {
    use std::hash::{Hash, Hasher};
    let p = std::fs::canonicalize(path).ok()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    p.hash(&mut h);
    Some((0, h.finish()))
}

/// True when `a` and `b` name the same existing file, by identity (device and inode): through links,
/// `.` and `..`, and hard links, which no comparison of names catches.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (file_id(a), file_id(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_followed_and_kinds_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("m.onnx");
        std::fs::write(&file, b"x").unwrap();
        let new = dir.path().join("new.onnx");
        assert_eq!(resolve(&new).unwrap(), Target::Replace(new.clone()));
        #[cfg(unix)]
        {
            let link = dir.path().join("link.onnx");
            std::os::unix::fs::symlink(&file, &link).unwrap();
            let real = std::fs::canonicalize(&file).unwrap();
            assert_eq!(resolve(&link).unwrap(), Target::Replace(real));
            let dangling = dir.path().join("dangling.onnx");
            std::os::unix::fs::symlink(dir.path().join("nothing"), &dangling).unwrap();
            assert!(resolve(&dangling).is_err());
            assert_eq!(
                resolve(Path::new("/dev/null")).unwrap(),
                Target::Through("/dev/null".into())
            );
            let to_null = dir.path().join("null-link");
            std::os::unix::fs::symlink("/dev/null", &to_null).unwrap();
            assert_eq!(resolve(&to_null).unwrap(), Target::Through(to_null.clone()));
        }
        assert!(resolve(dir.path()).is_err());
    }

    #[test]
    fn inputs_are_found_by_identity_not_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("m.onnx");
        std::fs::write(&file, b"x").unwrap();
        let mut inputs = Inputs::default();
        inputs.add("the model", &file);
        inputs.add("the model", &dir.path().join("missing.onnx"));
        let other_name = dir.path().join(".").join("m.onnx");
        assert!(inputs.find(&other_name).is_some());
        let hard = dir.path().join("hard.onnx");
        std::fs::hard_link(&file, &hard).unwrap();
        let err = inputs.refuse(&hard, "the report").unwrap_err().to_string();
        assert!(
            err.contains("the model") && err.contains("nothing was written"),
            "{err}"
        );
        assert!(
            inputs
                .refuse(&dir.path().join("out.txt"), "the report")
                .is_ok()
        );
    }
}
