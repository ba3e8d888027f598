//! Which models a `check` run reads and under which settings: the folder walk (which files are
//! models, in a stable order) and each model's configuration, found from its folder.

use crate::render::escape;
use crate::settings::config::Listed;
use crate::settings::{Resolver, Settings, SettingsError, model_path};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

/// Every target with its settings, in order; the first bad configuration met is the error. All are
/// planned before any is checked: a bad configuration stops the run with nothing half-reported.
pub(super) fn plan(
    targets: Vec<Target>,
    resolver: &mut Resolver,
) -> Result<Vec<Planned>, SettingsError> {
    targets.into_iter().map(|t| plan_one(t, resolver)).collect()
}

/// `target` with the settings it is checked under, or why they cannot be had (a bad configuration).
fn plan_one(target: Target, resolver: &mut Resolver) -> Result<Planned, SettingsError> {
    Ok(match target {
        Target::Model(path, known) => {
            // Canonical paths found by the walk spare the plan ten `readlink`s a model, and the
            // folder's listing the `stat`s of configuration files it does not hold.
            let (at, listed) = match known {
                Some(Known { at, listed }) => (Some(at), Some(listed)),
                None => (model_path(&path), None),
            };
            let settings = resolver.for_model_listed(at.as_deref(), listed)?;
            Planned::Model(path, at, settings)
        }
        Target::Unreadable { path, error } => Planned::Unreadable { path, error },
    })
}

/// A [`Target`] with the settings it is checked under.
pub(super) enum Planned {
    /// A model, its canonical path (`None` for standard input) and its settings.
    Model(PathBuf, Option<PathBuf>, Arc<Settings>),
    Unreadable {
        path: PathBuf,
        error: String,
    },
}

/// One thing `check` reports on: a model to load, or a folder that could not be searched.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Target {
    /// A model, and what the walk knows of it.
    Model(PathBuf, Option<Known>),
    Unreadable {
        path: PathBuf,
        error: String,
    },
}

/// What the walk knows of a model that is a regular file in folders walked from a canonical root
/// (no symlink on the way).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Known {
    /// The model's canonical path.
    pub(super) at: PathBuf,
    /// The configuration files its folder's listing holds.
    pub(super) listed: Listed,
}

/// The models the arguments name, in a stable order: an argument that is a folder (or a symlink to
/// one) stands for every `*.onnx` file under it, found by [`walk`] on up to `threads` threads; any
/// other argument (`-`, a file of any extension, a path that does not exist) is a model, and loading
/// it says what is wrong.
pub(super) fn find_models(args: &[PathBuf], threads: usize) -> Vec<Target> {
    let mut out = Vec::new();
    for arg in args {
        let is_dir = arg.as_os_str() != "-" && fs::metadata(arg).is_ok_and(|m| m.is_dir());
        if !is_dir {
            out.push(Target::Model(arg.clone(), None));
            continue;
        }
        let before = out.len();
        let root = Folder {
            path: arg.clone(),
            canonical: fs::canonicalize(arg).ok(),
            ancestors: Vec::new(),
        };
        walk_parallel(root, threads, &mut out);
        if out.len() == before {
            eprintln!(
                "warning: no *.onnx file in {}",
                escape(&arg.display().to_string())
            );
        }
    }
    out
}

/// A folder to walk: its path, its canonical path if known (then a regular file's is that and its
/// name), and the identities of the folders above it in the walk.
struct Folder {
    path: PathBuf,
    canonical: Option<PathBuf>,
    ancestors: Vec<(u64, u64)>,
}

/// What a folder holds, in walk order: models (or errors) found, and subfolders still to walk.
enum Piece {
    Found(Target),
    Folder(Folder),
}

/// Folders split into this many pieces a thread before they are walked in parallel: enough for the
/// threads to even out folders of different sizes.
const PIECES_PER_THREAD: usize = 8;

/// The walk is shared out only once this many folders are left to list; a smaller walk stays on the
/// main thread. The walk's threads cost 4 MiB of peak RSS at `--jobs 2` (33.2 -> 37.2 MiB on the node
/// corpus); 200 folders (bench/out/corpus200) take about 3 ms on one thread (13 us a folder).
const SHARED_FROM: usize = 256;

/// [`walk`] of `root` on `threads` threads, appending to `out` what the one-thread walk would: the
/// folders are listed level by level (in order) until there are enough subfolders to share out, then
/// each subfolder is walked whole by the next free thread and the results are put back in order.
/// Speed trick: on the node corpus (3770 folders) `check --jobs 2` spends 20 ms of CPU on the main
/// thread with it, 68 ms without (bench/serial.py); one thread walks as before.
fn walk_parallel(root: Folder, threads: usize, out: &mut Vec<Target>) {
    if threads <= 1 {
        walk(&root, out);
        return;
    }
    let mut pieces = vec![Piece::Folder(root)];
    loop {
        let folders = pieces
            .iter()
            .filter(|p| matches!(p, Piece::Folder(_)))
            .count();
        if folders == 0 || folders >= SHARED_FROM.max(threads * PIECES_PER_THREAD) {
            break;
        }
        let mut next = Vec::with_capacity(pieces.len());
        for piece in pieces {
            match piece {
                Piece::Folder(f) => list(&f, &mut next),
                found => next.push(found),
            }
        }
        pieces = next;
    }
    let folders: Vec<&Folder> = pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Folder(f) => Some(f),
            Piece::Found(_) => None,
        })
        .collect();
    let mut walked = walk_all(&folders, threads).into_iter();
    for piece in pieces {
        match piece {
            Piece::Found(t) => out.push(t),
            Piece::Folder(_) => out.extend(walked.next().into_iter().flatten()),
        }
    }
}

/// Walks every folder on up to `threads` threads (each takes the next folder not yet taken); the
/// results in the folders' order.
fn walk_all(folders: &[&Folder], threads: usize) -> Vec<Vec<Target>> {
    let next = AtomicUsize::new(0);
    let worker = || {
        let mut walked = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(f) = folders.get(i) else {
                break walked;
            };
            let mut found = Vec::new();
            walk(f, &mut found);
            walked.push((i, found));
        }
    };
    let mut results: Vec<Option<Vec<Target>>> = std::iter::repeat_with(|| None)
        .take(folders.len())
        .collect();
    thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.min(folders.len()))
            .filter_map(|k| {
                thread::Builder::new()
                    .name(format!("walk-{k}"))
                    .spawn_scoped(scope, worker)
                    .ok()
            })
            .collect();
        for h in handles {
            for (i, found) in h.join().unwrap_or_default() {
                results[i] = Some(found);
            }
        }
    });
    // What no thread walked (none could be started) is walked here.
    results
        .into_iter()
        .zip(folders)
        .map(|(r, f)| {
            r.unwrap_or_else(|| {
                let mut found = Vec::new();
                walk(f, &mut found);
                found
            })
        })
        .collect()
}

/// Appends the `*.onnx` files under `folder`, depth first, each folder's entries sorted by name (so
/// a run's output does not depend on the file system's order). Symlinks to folders are not followed
/// (no loop, no leaving the tree); a symlink to a regular file is checked, and one that resolves to
/// nothing is reported by the load. Other special files (FIFOs, sockets, devices) are skipped:
/// reading a FIFO would block. A folder that cannot be read is reported with its path.
fn walk(folder: &Folder, out: &mut Vec<Target>) {
    let mut pieces = Vec::new();
    list(folder, &mut pieces);
    for piece in pieces {
        match piece {
            Piece::Found(t) => out.push(t),
            Piece::Folder(f) => walk(&f, out),
        }
    }
}

/// Reads one folder of the walk: appends its models (or why it cannot be read) and its subfolders,
/// in name order.
fn list(folder: &Folder, out: &mut Vec<Piece>) {
    let Folder {
        path: dir,
        canonical,
        ancestors,
    } = folder;
    let mut ancestors = ancestors.clone();
    // Without symlinks a folder can still be reached from itself through a bind mount.
    let id = fs::metadata(dir).ok().and_then(|m| identity(&m));
    if let Some(id) = id {
        if ancestors.contains(&id) {
            return;
        }
        ancestors.push(id);
    }
    let entries = fs::read_dir(dir).and_then(|rd| rd.collect::<Result<Vec<_>, _>>());
    let mut entries = match entries {
        Ok(e) => e,
        Err(e) => {
            out.push(Piece::Found(Target::Unreadable {
                path: dir.clone(),
                error: format!("cannot read folder: {e}"),
            }));
            return;
        }
    };
    // Each name made once: `file_name` allocates, and a sort by it asks twice a comparison.
    entries.sort_by_cached_key(|e| e.file_name());
    let mut listed = Listed::default();
    for entry in &entries {
        listed.note(&entry.file_name());
    }
    for entry in entries {
        let path = entry.path();
        let file_type = match entry.file_type() {
            Ok(t) => t,
            Err(e) => {
                out.push(Piece::Found(Target::Unreadable {
                    path,
                    error: format!("cannot stat: {e}"),
                }));
                continue;
            }
        };
        // An entry that is not a symlink: its canonical path is its folder's and its name.
        let canonical_entry = || canonical.as_ref().map(|c| c.join(entry.file_name()));
        if file_type.is_dir() {
            out.push(Piece::Folder(Folder {
                path,
                canonical: canonical_entry(),
                ancestors: ancestors.clone(),
            }));
        } else if is_onnx(&path) {
            let wanted = file_type.is_file()
                || (file_type.is_symlink()
                    // A dangling or looping link is kept: the load says why it cannot be read.
                    && fs::metadata(&path).map_or(true, |m| m.is_file()));
            if wanted {
                let known = file_type
                    .is_file()
                    .then(canonical_entry)
                    .flatten()
                    .map(|at| Known { at, listed });
                out.push(Piece::Found(Target::Model(path, known)));
            }
        }
    }
}

fn is_onnx(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("onnx"))
}

#[cfg(unix)]
fn identity(m: &fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(_: &fs::Metadata) -> Option<(u64, u64)> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn models(targets: &[Target], root: &Path) -> Vec<String> {
        targets
            .iter()
            .map(|t| match t {
                Target::Model(p, _) => p.strip_prefix(root).unwrap().display().to_string(),
                Target::Unreadable { path, .. } => format!("!{}", path.display()),
            })
            .collect()
    }

    #[test]
    fn folders_are_searched_for_onnx_files_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in [
            "b.onnx",
            "a.ONNX",
            "notes.txt",
            "sub/z.onnx",
            "sub/deeper/y.onnx",
            "a0/x.onnx",
        ] {
            let p = root.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, b"").unwrap();
        }
        let found = find_models(&[root.to_owned()], 1);
        assert_eq!(
            models(&found, root),
            [
                "a.ONNX",
                "a0/x.onnx",
                "b.onnx",
                "sub/deeper/y.onnx",
                "sub/z.onnx"
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_to_folders_are_not_followed_but_links_to_files_are() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir(root.join("sub")).unwrap();
        fs::write(root.join("sub/m.onnx"), b"").unwrap();
        std::os::unix::fs::symlink("..", root.join("sub/up")).unwrap();
        std::os::unix::fs::symlink("m.onnx", root.join("sub/link.onnx")).unwrap();
        std::os::unix::fs::symlink("nowhere", root.join("sub/dangling.onnx")).unwrap();
        std::os::unix::fs::symlink("sub", root.join("dir.onnx")).unwrap();
        let found = find_models(&[root.to_owned()], 1);
        assert_eq!(
            models(&found, root),
            ["sub/dangling.onnx", "sub/link.onnx", "sub/m.onnx"]
        );
        // The walk's canonical paths: a regular file's is what the file system says; a link's is
        // left to be found (it is the file linked to).
        let known: Vec<_> = found
            .iter()
            .map(|t| match t {
                Target::Model(_, known) => known.as_ref().map(|k| k.at.clone()),
                Target::Unreadable { .. } => None,
            })
            .collect();
        let m = fs::canonicalize(root.join("sub/m.onnx")).unwrap();
        assert_eq!(known, [None, None, Some(m)]);
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_reached_through_a_symlink_gives_the_canonical_paths_of_its_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("real/a")).unwrap();
        fs::write(root.join("real/a/m.onnx"), b"").unwrap();
        std::os::unix::fs::symlink("real", root.join("via")).unwrap();
        let found = find_models(&[root.join("via/./a/..")], 1);
        let [Target::Model(path, Some(Known { at: known, .. }))] = &found[..] else {
            panic!("one model with a known canonical path: {found:?}");
        };
        assert_eq!(known, &fs::canonicalize(path).unwrap());
        assert!(known.ends_with("real/a/m.onnx"), "{}", known.display());
    }

    /// The walk shared out between threads finds what one thread finds, in the same order, with
    /// the configuration files of each model's folder.
    #[test]
    fn the_walk_on_many_threads_finds_what_one_thread_finds() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut files = vec!["m.onnx".to_owned(), "a/onnx-lint.toml".to_owned()];
        for i in 0..40 {
            files.push(format!("a/f{i:02}/m.onnx"));
            files.push(format!("a/f{i:02}/data/input.pb"));
            if i % 3 == 0 {
                files.push(format!("a/f{i:02}/.onnx-lint.toml"));
                files.push(format!("a/f{i:02}/x/y/n.onnx"));
                files.push(format!("a/f{i:02}/x/y/pyproject.toml"));
            }
        }
        files.push("b.onnx".to_owned());
        for f in &files {
            let p = root.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, b"").unwrap();
        }
        let one = find_models(&[root.to_owned()], 1);
        assert_eq!(one.len(), 1 + 40 + 14 + 1);
        for threads in [2, 3, 8] {
            assert_eq!(find_models(&[root.to_owned()], threads), one, "{threads}");
        }
        let listed = |t: &Target| match t {
            Target::Model(_, Some(k)) => k.listed,
            _ => panic!("{t:?}"),
        };
        let with = |name: &str| {
            let mut l = Listed::default();
            l.note(name.as_ref());
            l
        };
        assert!(
            matches!(&one[0], Target::Model(p, _) if *p == root.join("a/f00/m.onnx")),
            "{:?}",
            one[0]
        );
        assert_eq!(listed(&one[0]), with(".onnx-lint.toml"));
        assert_eq!(listed(&one[1]), with("pyproject.toml"), "{:?}", one[1]);
        assert_eq!(listed(&one[2]), Listed::default(), "{:?}", one[2]);
    }
}
