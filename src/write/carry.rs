//! Carrying a model's external-data files to where it is written.
//!
//! A tensor stored externally (`data_location: EXTERNAL`) is found relative to the model's own folder.
//! When `expand`, `fold` or `roundtrip` write the model into another folder, each file it references
//! is placed at the same relative location beside the output, so the output loads where it is
//! written: a hard link when both folders are on one file system (no byte copied; the link is the
//! same file), else a copy made by the kernel (`copy_file_range`, through `std::io::copy`) into a
//! temporary file of the destination folder, linked into place without replacing anything.
//!
//! Sources are resolved with the loader's containment rules (`checks::external`): a relative
//! location without `..`, a regular file reached without leaving the model's folder through a
//! symlink. What breaks a rule is refused from metadata alone, so nothing outside the folder is
//! linked, copied or even opened, and a FIFO is never opened. A file already at a destination is kept
//! when it is the same file or has the same bytes, and refused otherwise, before anything is placed:
//! a different file is never replaced. [`Placed::undo`] removes what was placed when the model itself
//! cannot be written, so a failed write leaves neither a model without its data nor stray data.

use crate::checks::external::{canonical_folder, check_location_syntax, locate};
use crate::ir::Model;
use anyhow::{Context, Result, anyhow, bail};
use std::collections::HashSet;
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// The distinct external-data locations of `model`'s tensors (every graph, subgraph and function),
/// in the order first met. Only tensors marked `EXTERNAL` count: the loader ignores the entries of
/// any other.
pub fn locations(model: &Model) -> Vec<String> {
    model.external_locations().to_vec()
}

/// How a data file came to be beside the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// A hard link to the source file.
    Linked,
    /// A copy of the source file.
    Copied,
    /// The same file, or one with the same bytes, was there already; left as it was.
    AlreadyThere,
}

impl How {
    pub fn as_str(self) -> &'static str {
        match self {
            How::Linked => "hard link",
            How::Copied => "copy",
            How::AlreadyThere => "already there, same content",
        }
    }
}

/// One data file beside the output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Carried {
    /// The location as the model spells it.
    pub location: String,
    /// Where the file is now: the output's folder joined with the location.
    pub dest: PathBuf,
    pub how: How,
}

/// One data file to place, resolved and checked.
#[derive(Debug)]
struct Item {
    location: String,
    /// The source's canonical path, inside the model's folder.
    source: PathBuf,
    /// Device and inode of the source when it was checked; what is opened or linked must be it.
    source_id: Option<(u64, u64)>,
    len: u64,
    mode: Option<u32>,
    dest: PathBuf,
    /// The destination holds the same file or the same bytes already.
    already: bool,
}

/// The data files to place beside an output, every source and destination checked: placing them
/// ([`Plan::place`]) can fail only on I/O errors or a concurrent change.
#[derive(Debug, Default)]
pub struct Plan {
    items: Vec<Item>,
    /// The output's folder, as given and canonical: destinations are checked against it.
    dest_dir: PathBuf,
    dest_root: PathBuf,
}

/// The folder of an output path (`.` for a bare file name).
pub fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// A location's path without `.` components, so `w.bin` and `./w.bin` are one file.
fn normal(location: &str) -> PathBuf {
    Path::new(location)
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect()
}

/// Device and inode: what identifies a file across paths and links.
#[cfg(unix)]
fn file_id(m: &Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_: &Metadata) -> Option<(u64, u64)> {
    None
}

#[cfg(unix)]
fn file_mode(m: &Metadata) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    Some(m.permissions().mode() & 0o7777)
}

#[cfg(not(unix))]
fn file_mode(_: &Metadata) -> Option<u32> {
    None
}

/// Plans carrying the data files at `locations` (see [`locations`]) of `model` to the folder of
/// `dest`. Every source is resolved by the loader's rules and every destination checked: a refusal
/// comes here, before anything is written. Empty when the output is in the model's own folder.
pub fn plan(model: &Model, dest: &Path, locations: &[String]) -> Result<Plan> {
    if locations.is_empty() {
        return Ok(Plan::default());
    }
    let dest_dir = folder_of(dest);
    let dest_root = std::fs::canonicalize(&dest_dir)
        .with_context(|| format!("cannot resolve the output's folder {}", dest_dir.display()))?;
    let base = model.origin.base_dir();
    let root = match &base {
        Some(b) => Some(
            canonical_folder(b)
                .map_err(|e| anyhow!("cannot carry the model's external data: its folder {e}"))?,
        ),
        None => None,
    };
    if root.as_ref() == Some(&dest_root) {
        return Ok(Plan::default()); // the output is beside the data already
    }
    let shown_dest = dest.display();
    let output_name = dest.file_name().map(PathBuf::from);
    let mut plan = Plan {
        items: Vec::new(),
        dest_dir: dest_dir.clone(),
        dest_root: dest_root.clone(),
    };
    let mut planned = HashSet::new();
    for location in locations {
        check_location_syntax(location).map_err(|why| {
            anyhow!("cannot carry the model's external data: {why}; nothing was written")
        })?;
        if !planned.insert(normal(location)) {
            continue;
        }
        if Some(normal(location)) == output_name {
            bail!(
                "the output {shown_dest} is where the model's external data '{location}' goes: \
                 write the model under another name; nothing was written"
            );
        }
        let place = dest_dir.join(location);
        let (Some(base), Some(root)) = (&base, &root) else {
            // Standard input has no folder to carry from: the data must be at the destination.
            if let Err(why) = locate(&dest_root, &dest_dir, location) {
                bail!(
                    "the model read from standard input references external data '{location}', \
                     which is not usable at {} (it {why}), and standard input has no folder to carry \
                     it from: put it there first, or pass --no-copy-data; nothing was written",
                    place.display()
                );
            }
            continue;
        };
        let found = locate(root, base, location).map_err(|why| {
            anyhow!(
                "cannot carry the model's external data: '{location}' {why}; nothing was written"
            )
        })?;
        let mut item = Item {
            location: location.clone(),
            source_id: file_id(&found.meta),
            len: found.meta.len(),
            mode: file_mode(&found.meta),
            source: found.real,
            dest: place,
            already: false,
        };
        check_destination_folder(&item, &dest_dir, &dest_root)?;
        item.already = existing_is_same(&item, &dest_dir, &dest_root)?;
        plan.items.push(item);
    }
    Ok(plan)
}

/// The folder a destination goes in must not lead out of the output's folder through a symlink: the
/// written model, loaded by the same rules, would refuse its data.
fn check_destination_folder(item: &Item, dest_dir: &Path, dest_root: &Path) -> Result<()> {
    let mut existing = item.dest.parent().unwrap_or(dest_dir);
    while std::fs::symlink_metadata(existing).is_err() {
        match existing.parent() {
            Some(p) if existing != dest_dir => existing = p,
            _ => break,
        }
    }
    let real = std::fs::canonicalize(existing)
        .with_context(|| format!("cannot resolve {}", existing.display()))?;
    if !real.starts_with(dest_root) {
        bail!(
            "cannot carry the model's external data '{}': {} leads out of the output's folder \
             through a symbolic link, so the written model could not load it; nothing was written",
            item.location,
            existing.display()
        );
    }
    Ok(())
}

/// Whether the destination of `item` already holds it: false when nothing is there; true when the
/// same file or the same bytes are; an error when something else is (never replaced).
fn existing_is_same(item: &Item, dest_dir: &Path, dest_root: &Path) -> Result<bool> {
    match std::fs::symlink_metadata(&item.dest) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => {
            return Err(e).with_context(|| format!("cannot inspect {}", item.dest.display()));
        }
        Ok(_) => {}
    }
    let refuse = |why: &str| {
        anyhow!(
            "{} is already there and {why}: the model's external data '{}' would replace it; \
             remove it or write the model elsewhere; nothing was written",
            item.dest.display(),
            item.location
        )
    };
    // What is there must pass the rules the written model will be loaded by.
    let there =
        locate(dest_root, dest_dir, &item.location).map_err(|why| refuse(&why.to_string()))?;
    if file_id(&there.meta).is_some() && file_id(&there.meta) == item.source_id {
        return Ok(true);
    }
    if there.meta.len() != item.len {
        return Err(refuse(&format!(
            "is a different file ({} bytes, the data is {})",
            there.meta.len(),
            item.len
        )));
    }
    let same = same_bytes(item, &there.real, file_id(&there.meta)).with_context(|| {
        format!(
            "cannot compare {} with the model's data",
            item.dest.display()
        )
    })?;
    if same {
        Ok(true)
    } else {
        Err(refuse("is a different file (other bytes)"))
    }
}

/// Opens `path` for reading, only if it is still the regular file identified by `id`. Opened without
/// following a final symlink and without blocking, so a path swapped for a link or a FIFO since it
/// was checked is refused, not followed or waited on.
fn open_checked(path: &Path, id: Option<(u64, u64)>) -> Result<File> {
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let f = opts
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let meta = f
        .metadata()
        .with_context(|| format!("cannot stat {}", path.display()))?;
    if !meta.is_file() || file_id(&meta) != id {
        bail!("{} changed while it was being carried", path.display());
    }
    Ok(f)
}

/// True when the source of `item` and the file at `other` hold the same bytes (lengths are equal).
fn same_bytes(item: &Item, other: &Path, other_id: Option<(u64, u64)>) -> Result<bool> {
    let mut a = open_checked(&item.source, item.source_id)?;
    let mut b = open_checked(other, other_id)?;
    let mut x = vec![0u8; 1 << 20];
    let mut y = vec![0u8; 1 << 20];
    loop {
        let n = read_full(&mut a, &mut x)?;
        let m = read_full(&mut b, &mut y)?;
        if n != m || x[..n] != y[..m] {
            return Ok(false);
        }
        if n == 0 {
            return Ok(true);
        }
    }
}

/// Reads until `buf` is full or the file ends; the number of bytes read.
fn read_full(f: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut at = 0;
    while at < buf.len() {
        match f.read(&mut buf[at..]) {
            Ok(0) => break,
            Ok(n) => at += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(at)
}

/// What [`Plan::place`] put beside the output, to report, or to remove if the model cannot be
/// written after all.
#[derive(Debug, Default)]
pub struct Placed {
    pub carried: Vec<Carried>,
    /// Files this write created (links and copies), in order.
    created_files: Vec<PathBuf>,
    /// Folders this write created, parents first.
    created_dirs: Vec<PathBuf>,
}

impl Placed {
    /// Removes every file and folder this write created (folders only if empty), newest first.
    pub fn undo(self) {
        for f in self.created_files.iter().rev() {
            let _ = std::fs::remove_file(f);
        }
        for d in self.created_dirs.iter().rev() {
            let _ = std::fs::remove_dir(d);
        }
    }
}

impl Plan {
    /// Places every planned file beside the output. On failure, removes what it placed and says why.
    /// `durable` flushes each copy to disk before it is linked into place (as the model's write does).
    pub fn place(&self, durable: bool) -> Result<Placed> {
        let mut placed = Placed::default();
        for item in &self.items {
            if let Err(e) = self.place_one(item, durable, &mut placed) {
                placed.undo();
                return Err(e.context("nothing was written"));
            }
        }
        Ok(placed)
    }

    fn place_one(&self, item: &Item, durable: bool, placed: &mut Placed) -> Result<()> {
        if item.already {
            placed.record(item, How::AlreadyThere);
            return Ok(());
        }
        let parent = folder_of(&item.dest);
        make_folders(&parent, &mut placed.created_dirs)?;
        let cannot = || {
            format!(
                "cannot carry the model's external data '{}' to {}",
                item.location,
                item.dest.display()
            )
        };
        // A hard link first: link() never replaces an existing name, and on another file system (or
        // where links are not allowed) it fails, and the data is copied instead.
        match std::fs::hard_link(&item.source, &item.dest) {
            Ok(()) => {
                placed.created_files.push(item.dest.clone());
                let now = std::fs::symlink_metadata(&item.dest).with_context(cannot)?;
                if file_id(&now) != item.source_id {
                    bail!("{}: the source changed while it was being linked", cannot());
                }
                placed.record(item, How::Linked);
                return Ok(());
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return self.appeared_meanwhile(item, placed);
            }
            Err(_) => {} // another file system, or links refused: copy
        }
        let mut src = open_checked(&item.source, item.source_id).with_context(cannot)?;
        #[cfg(unix)]
        let permissions = item.mode.map(|mode| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::Permissions::from_mode(mode)
        });
        #[cfg(not(unix))]
        let permissions = None;
        let mut tmp = crate::file::temp::create_in(&parent, permissions)
            .with_context(|| format!("cannot create a temporary file in {}", parent.display()))?;
        // File to file: the standard library copies with copy_file_range (or sendfile) in the kernel.
        let n = std::io::copy(&mut src, tmp.file.as_file_mut()).with_context(cannot)?;
        if n != item.len {
            bail!("{}: the source changed while it was being copied", cannot());
        }
        if durable {
            tmp.file.as_file().sync_all().with_context(cannot)?;
        }
        // persist_noclobber links the finished file into place only if nothing is there: never a
        // half-written data file, never a replaced one.
        match tmp.persist_noclobber(&item.dest) {
            Ok(_) => {
                placed.created_files.push(item.dest.clone());
                placed.record(item, How::Copied);
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                self.appeared_meanwhile(item, placed)
            }
            Err(e) => Err(e).with_context(cannot),
        }
    }

    /// A file appeared at the destination after the plan was made: kept if it is the data, else
    /// refused.
    fn appeared_meanwhile(&self, item: &Item, placed: &mut Placed) -> Result<()> {
        if existing_is_same(item, &self.dest_dir, &self.dest_root)? {
            placed.record(item, How::AlreadyThere);
            Ok(())
        } else {
            bail!(
                "{} appeared while the data was being carried",
                item.dest.display()
            )
        }
    }
}

impl Placed {
    fn record(&mut self, item: &Item, how: How) {
        self.carried.push(Carried {
            location: item.location.clone(),
            dest: item.dest.clone(),
            how,
        });
    }
}

/// Creates the missing folders of `dir`, recording each one created (parents first).
fn make_folders(dir: &Path, created: &mut Vec<PathBuf>) -> Result<()> {
    let mut missing = Vec::new();
    let mut p = dir;
    while std::fs::symlink_metadata(p).is_err() {
        missing.push(p.to_path_buf());
        match p.parent() {
            Some(q) if !q.as_os_str().is_empty() => p = q,
            _ => break,
        }
    }
    for d in missing.into_iter().rev() {
        match std::fs::create_dir(&d) {
            Ok(()) => created.push(d),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e).with_context(|| format!("cannot create {}", d.display())),
        }
    }
    Ok(())
}
