//! Which models a `check` run reads and under which settings: the folder walk (which files are
//! models, in a stable order) and each model's configuration, found from its folder.

use crate::render::escape;
use crate::settings::{Resolver, Settings, SettingsError, model_path};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
            // Canonical paths found by the walk spare the plan ten `readlink`s a model.
            let at = known.or_else(|| model_path(&path));
            let settings = resolver.for_model_at(at.as_deref())?;
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
    /// A model, and its canonical path when the walk knows it (a regular file in folders walked
    /// from a canonical root: no symlink on the way).
    Model(PathBuf, Option<PathBuf>),
    Unreadable {
        path: PathBuf,
        error: String,
    },
}

/// The models the arguments name, in a stable order: an argument that is a folder (or a symlink to
/// one) stands for every `*.onnx` file under it, found by [`walk`]; any other argument (`-`, a file of
/// any extension, a path that does not exist) is a model, and loading it says what is wrong.
pub(super) fn find_models(args: &[PathBuf]) -> Vec<Target> {
    let mut out = Vec::new();
    for arg in args {
        let is_dir = arg.as_os_str() != "-" && fs::metadata(arg).is_ok_and(|m| m.is_dir());
        if !is_dir {
            out.push(Target::Model(arg.clone(), None));
            continue;
        }
        let before = out.len();
        let canonical = fs::canonicalize(arg).ok();
        walk(arg, canonical.as_deref(), &mut Vec::new(), &mut out);
        if out.len() == before {
            eprintln!(
                "warning: no *.onnx file in {}",
                escape(&arg.display().to_string())
            );
        }
    }
    out
}

/// Appends the `*.onnx` files under `dir`, depth first, each folder's entries sorted by name (so a
/// run's output does not depend on the file system's order). Symlinks to folders are not followed (no
/// loop, no leaving the tree); a symlink to a regular file is checked, and one that resolves to nothing
/// is reported by the load. Other special files (FIFOs, sockets, devices) are skipped: reading a FIFO
/// would block. A folder that cannot be read is reported with its path.
/// `canonical` is `dir`'s canonical path, if known: then a regular file's is that and its name.
fn walk(
    dir: &Path,
    canonical: Option<&Path>,
    ancestors: &mut Vec<(u64, u64)>,
    out: &mut Vec<Target>,
) {
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
            out.push(Target::Unreadable {
                path: dir.to_owned(),
                error: format!("cannot read folder: {e}"),
            });
            if id.is_some() {
                ancestors.pop();
            }
            return;
        }
    };
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let file_type = match entry.file_type() {
            Ok(t) => t,
            Err(e) => {
                out.push(Target::Unreadable {
                    path,
                    error: format!("cannot stat: {e}"),
                });
                continue;
            }
        };
        // An entry that is not a symlink: its canonical path is its folder's and its name.
        let canonical_entry = || canonical.map(|c| c.join(entry.file_name()));
        if file_type.is_dir() {
            walk(&path, canonical_entry().as_deref(), ancestors, out);
        } else if is_onnx(&path) {
            let wanted = file_type.is_file()
                || (file_type.is_symlink()
                    // A dangling or looping link is kept: the load says why it cannot be read.
                    && fs::metadata(&path).map_or(true, |m| m.is_file()));
            if wanted {
                let known = file_type.is_file().then(canonical_entry).flatten();
                out.push(Target::Model(path, known));
            }
        }
    }
    if id.is_some() {
        ancestors.pop();
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
        let found = find_models(&[root.to_owned()]);
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
        let found = find_models(&[root.to_owned()]);
        assert_eq!(
            models(&found, root),
            ["sub/dangling.onnx", "sub/link.onnx", "sub/m.onnx"]
        );
        // The walk's canonical paths: a regular file's is what the file system says; a link's is
        // left to be found (it is the file linked to).
        let known: Vec<_> = found
            .iter()
            .map(|t| match t {
                Target::Model(_, known) => known.clone(),
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
        let found = find_models(&[root.join("via/./a/..")]);
        let [Target::Model(path, Some(known))] = &found[..] else {
            panic!("one model with a known canonical path: {found:?}");
        };
        assert_eq!(known, &fs::canonicalize(path).unwrap());
        assert!(known.ends_with("real/a/m.onnx"), "{}", known.display());
    }
}
