//! External-data rule (X001): a reference must name a regular file inside the model's folder, by a
//! relative path without `..`, reached without leaving the folder through a symlink, and its
//! `offset`/`length` must be plain numbers that stay inside that file.
//!
//! This is the class of onnx loader bugs CVE-2022-25882 and CVE-2024-27318. Only metadata is read
//! (`stat` of the file); the data is not opened to check a model.

use super::tensors::push;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::Model;
use crate::ir::tensor::{elem_bits, element_count};
use crate::proto::TensorProto;
use crate::proto::tensor_proto::DataLocation;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

pub fn check(model: &Model) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let base = model.origin.base_dir();
    let mut files = FileCache::default();
    // The locations, for a writer (see `Model::external_locations`): this visit meets every tensor.
    let mut locations = crate::ir::ExternalLocations::default();
    for g in model.graphs() {
        super::visit_tensors(g, &mut |t, what, node| {
            locations.add(t);
            if t.data_location != Some(DataLocation::External as i32) {
                return;
            }
            if let Err(problem) = check_reference(t, base.as_deref(), &mut files) {
                let msg = format!("{what}: external data {problem}");
                push(
                    &mut out,
                    Diagnostic::new(Code::ExternalData, &g.path, msg),
                    node,
                );
            }
        });
    }
    // Already set only if asked for before the check: the same list.
    let _ = model.external_locations.set(locations.list);
    out
}

/// Sizes of the files already resolved, by location: many tensors share one data file.
#[derive(Default)]
struct FileCache {
    sizes: HashMap<String, Result<u64, String>>,
    base: Option<Result<PathBuf, String>>,
}

/// The external-data fields of a tensor, by key.
fn entries(t: &TensorProto) -> Result<HashMap<&str, &str>, String> {
    let mut map = HashMap::new();
    for e in &t.external_data {
        if map.insert(e.key(), e.value()).is_some() {
            return Err(format!("has the key '{}' twice", e.key()));
        }
    }
    Ok(map)
}

fn check_reference(
    t: &TensorProto,
    base: Option<&Path>,
    files: &mut FileCache,
) -> Result<(), String> {
    let map = entries(t)?;
    let location = map.get("location").copied().unwrap_or("");
    if location.is_empty() {
        return Err("is marked EXTERNAL but has no location".to_owned());
    }
    if t.raw_data.is_some() {
        return Err(format!(
            "'{location}' is marked EXTERNAL but also has inline raw_data"
        ));
    }
    let typed = [
        ("float_data", t.float_data.len()),
        ("int32_data", t.int32_data.len()),
        ("string_data", t.string_data.len()),
        ("int64_data", t.int64_data.len()),
        ("double_data", t.double_data.len()),
        ("uint64_data", t.uint64_data.len()),
    ];
    if let Some((field, _)) = typed.iter().find(|(_, l)| *l > 0) {
        return Err(format!(
            "'{location}' is marked EXTERNAL but also has inline {field}"
        ));
    }
    check_location_syntax(location)?;
    let offset = parse_number(&map, "offset")?.unwrap_or(0);
    let length = parse_number(&map, "length")?;
    let Some(base) = base else {
        return Err(format!(
            "'{location}' cannot be resolved: the model was read from standard input, which has no folder"
        ));
    };
    let size = files
        .sizes
        .entry(location.to_owned())
        .or_insert_with(|| resolve(base, location, &mut files.base))
        .clone()
        .map_err(|e| format!("'{location}' {e}"))?;
    let end = match length {
        Some(l) => offset
            .checked_add(l)
            .ok_or_else(|| format!("'{location}': offset {offset} + length {l} overflows"))?,
        None => size,
    };
    if offset > size || end > size {
        return Err(format!(
            "'{location}': the region [{offset}, {end}) runs past the end of the file ({size} bytes)"
        ));
    }
    let want = element_count(&t.dims)
        .ok()
        .zip(elem_bits(t.data_type()))
        .map(|(n, bits)| (u128::from(n) * u128::from(bits)).div_ceil(8));
    if let Some(want) = want
        && want > u128::from(end - offset)
    {
        return Err(format!(
            "'{location}': the region [{offset}, {end}) holds {} bytes, but the tensor needs {want}",
            end - offset
        ));
    }
    Ok(())
}

/// Rejects what must never be joined to the model's folder, before touching the file system.
pub(crate) fn check_location_syntax(location: &str) -> Result<(), String> {
    if location.contains('\0') {
        return Err("location contains a NUL byte".to_owned());
    }
    if location.contains("_ORT_MEM_ADDR_") {
        return Err(format!(
            "'{location}' is onnxruntime's in-memory address marker, not a file"
        ));
    }
    let windows_drive = location.len() >= 2 && location.as_bytes()[1] == b':';
    if Path::new(location).is_absolute() || location.starts_with(['/', '\\']) || windows_drive {
        return Err(format!(
            "'{location}' is an absolute path; it must be relative to the model's folder"
        ));
    }
    // Both separators: a model written on Windows may use either.
    if location.split(['/', '\\']).any(|c| c == "..") {
        return Err(format!(
            "'{location}' contains '..'; it must stay inside the model's folder"
        ));
    }
    Ok(())
}

/// A strictly parsed non-negative decimal number: digits only, no sign, no spaces, fits in u64.
fn parse_number(map: &HashMap<&str, &str>, key: &str) -> Result<Option<u64>, String> {
    let Some(v) = map.get(key) else {
        return Ok(None);
    };
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{key} '{v}' is not a non-negative decimal integer"));
    }
    v.parse::<u64>()
        .map(Some)
        .map_err(|_| format!("{key} '{v}' is too large"))
}

/// Resolves `location` inside `base` following symlinks, and returns the file's size.
fn resolve(
    base: &Path,
    location: &str,
    base_canon: &mut Option<Result<PathBuf, String>>,
) -> Result<u64, String> {
    let root = base_canon
        .get_or_insert_with(|| canonical_folder(base))
        .clone()?;
    locate(&root, base, location).map(|f| f.meta.len())
}

/// The canonical path of a model's folder, which every data file must be under.
pub(crate) fn canonical_folder(base: &Path) -> Result<PathBuf, String> {
    std::fs::canonicalize(base)
        .map_err(|e| format!("cannot be resolved: the model's folder is unreadable ({e})"))
}

/// An external-data file found where the containment rules allow: a regular file under the model's
/// folder.
pub(crate) struct Located {
    /// The file's canonical path: no symlink, no `.` or `..`.
    pub real: PathBuf,
    /// Its metadata when it was resolved (its device and inode identify it against a later open).
    pub meta: std::fs::Metadata,
}

/// Resolves `location`, which [`check_location_syntax`] accepted, against `base`, whose canonical
/// path is `root`: the file must be a regular file reached without leaving `root`. Only metadata is
/// read: nothing is opened, so a FIFO or device (inside or outside) is refused without blocking on it.
pub(crate) fn locate(root: &Path, base: &Path, location: &str) -> Result<Located, String> {
    let joined = base.join(location);
    debug_assert!(
        Path::new(location)
            .components()
            .all(|c| c != Component::ParentDir)
    );
    let real = std::fs::canonicalize(&joined).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "does not exist in the model's folder".to_owned(),
        _ => format!("cannot be resolved ({e})"),
    })?;
    if !real.starts_with(root) {
        return Err("leads outside the model's folder through a symbolic link".to_owned());
    }
    let meta = std::fs::metadata(&real).map_err(|e| format!("cannot be read ({e})"))?;
    if !meta.is_file() {
        return Err("is not a regular file".to_owned());
    }
    Ok(Located { real, meta })
}
