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
use std::sync::Arc;

/// Why a tensor's external data cannot be used; said after "external data" (X001).
#[derive(Debug, thiserror::Error)]
enum ExternalDataError {
    #[error("has the key '{0}' twice")]
    KeyTwice(String),
    #[error("is marked EXTERNAL but has no location")]
    NoLocation,
    #[error("'{location}' is marked EXTERNAL but also has inline {field}")]
    Inline {
        location: String,
        field: &'static str,
    },
    #[error(transparent)]
    Location(#[from] LocationError),
    #[error("{0} '{1}' is not a non-negative decimal integer")]
    NotANumber(String, String),
    #[error("{0} '{1}' is too large")]
    TooLarge(String, String),
    #[error(
        "'{0}' cannot be resolved: the model was read from standard input, which has no folder"
    )]
    NoFolder(String),
    #[error("'{location}' {problem}")]
    File {
        location: String,
        problem: FileProblem,
    },
    #[error("'{location}': offset {offset} + length {length} overflows")]
    Overflow {
        location: String,
        offset: u64,
        length: u64,
    },
    #[error(
        "'{location}': the region [{offset}, {end}) runs past the end of the file ({size} bytes)"
    )]
    PastEnd {
        location: String,
        offset: u64,
        end: u64,
        size: u64,
    },
    #[error(
        "'{location}': the region [{offset}, {end}) holds {} bytes, but the tensor needs {want}",
        end - offset
    )]
    TooShort {
        location: String,
        offset: u64,
        end: u64,
        want: u128,
    },
}

/// A location that must never be joined to the model's folder (see [`check_location_syntax`]).
#[derive(Debug, thiserror::Error)]
pub(crate) enum LocationError {
    #[error("location contains a NUL byte")]
    Nul,
    #[error("'{0}' is onnxruntime's in-memory address marker, not a file")]
    MemoryAddress(String),
    #[error("'{0}' is an absolute path; it must be relative to the model's folder")]
    Absolute(String),
    #[error("'{0}' contains '..'; it must stay inside the model's folder")]
    Parent(String),
}

/// Why a data file (or the model's folder) cannot be used, said after its location. Kept per
/// location for the tensors that share a file, hence `Clone` (the I/O errors shared).
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum FileProblem {
    #[error("cannot be resolved: the model's folder is unreadable ({0})")]
    FolderUnreadable(Arc<std::io::Error>),
    #[error("does not exist in the model's folder")]
    NotFound,
    #[error("cannot be resolved ({0})")]
    Unresolvable(Arc<std::io::Error>),
    #[error("leads outside the model's folder through a symbolic link")]
    Outside,
    #[error("cannot be read ({0})")]
    Unreadable(Arc<std::io::Error>),
    #[error("is not a regular file")]
    NotRegular,
}

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
    sizes: HashMap<String, Result<u64, FileProblem>>,
    base: Option<Result<PathBuf, FileProblem>>,
}

/// The external-data fields of a tensor, by key.
fn entries(t: &TensorProto) -> Result<HashMap<&str, &str>, ExternalDataError> {
    let mut map = HashMap::new();
    for e in &t.external_data {
        if map.insert(e.key(), e.value()).is_some() {
            return Err(ExternalDataError::KeyTwice(e.key().to_owned()));
        }
    }
    Ok(map)
}

fn check_reference(
    t: &TensorProto,
    base: Option<&Path>,
    files: &mut FileCache,
) -> Result<(), ExternalDataError> {
    let map = entries(t)?;
    let location = map.get("location").copied().unwrap_or("");
    if location.is_empty() {
        return Err(ExternalDataError::NoLocation);
    }
    if t.raw_data.is_some() {
        return Err(ExternalDataError::Inline {
            location: location.to_owned(),
            field: "raw_data",
        });
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
        return Err(ExternalDataError::Inline {
            location: location.to_owned(),
            field,
        });
    }
    check_location_syntax(location)?;
    let offset = parse_number(&map, "offset")?.unwrap_or(0);
    let length = parse_number(&map, "length")?;
    let Some(base) = base else {
        return Err(ExternalDataError::NoFolder(location.to_owned()));
    };
    let size = files
        .sizes
        .entry(location.to_owned())
        .or_insert_with(|| resolve(base, location, &mut files.base))
        .clone()
        .map_err(|problem| ExternalDataError::File {
            location: location.to_owned(),
            problem,
        })?;
    let end = match length {
        Some(l) => offset
            .checked_add(l)
            .ok_or_else(|| ExternalDataError::Overflow {
                location: location.to_owned(),
                offset,
                length: l,
            })?,
        None => size,
    };
    if offset > size || end > size {
        return Err(ExternalDataError::PastEnd {
            location: location.to_owned(),
            offset,
            end,
            size,
        });
    }
    let want = element_count(&t.dims)
        .ok()
        .zip(elem_bits(t.data_type()))
        .map(|(n, bits)| (u128::from(n) * u128::from(bits)).div_ceil(8));
    if let Some(want) = want
        && want > u128::from(end - offset)
    {
        return Err(ExternalDataError::TooShort {
            location: location.to_owned(),
            offset,
            end,
            want,
        });
    }
    Ok(())
}

/// Rejects what must never be joined to the model's folder, before touching the file system.
pub(crate) fn check_location_syntax(location: &str) -> Result<(), LocationError> {
    if location.contains('\0') {
        return Err(LocationError::Nul);
    }
    if location.contains("_ORT_MEM_ADDR_") {
        return Err(LocationError::MemoryAddress(location.to_owned()));
    }
    let windows_drive = location.len() >= 2 && location.as_bytes()[1] == b':';
    if Path::new(location).is_absolute() || location.starts_with(['/', '\\']) || windows_drive {
        return Err(LocationError::Absolute(location.to_owned()));
    }
    // Both separators: a model written on Windows may use either.
    if location.split(['/', '\\']).any(|c| c == "..") {
        return Err(LocationError::Parent(location.to_owned()));
    }
    Ok(())
}

/// A strictly parsed non-negative decimal number: digits only, no sign, no spaces, fits in u64.
fn parse_number(map: &HashMap<&str, &str>, key: &str) -> Result<Option<u64>, ExternalDataError> {
    let Some(v) = map.get(key) else {
        return Ok(None);
    };
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ExternalDataError::NotANumber(key.to_owned(), v.to_string()));
    }
    v.parse::<u64>()
        .map(Some)
        .map_err(|_| ExternalDataError::TooLarge(key.to_owned(), v.to_string()))
}

/// Resolves `location` inside `base` following symlinks, and returns the file's size.
fn resolve(
    base: &Path,
    location: &str,
    base_canon: &mut Option<Result<PathBuf, FileProblem>>,
) -> Result<u64, FileProblem> {
    let root = base_canon
        .get_or_insert_with(|| canonical_folder(base))
        .clone()?;
    locate(&root, base, location).map(|f| f.meta.len())
}

/// The canonical path of a model's folder, which every data file must be under.
pub(crate) fn canonical_folder(base: &Path) -> Result<PathBuf, FileProblem> {
    std::fs::canonicalize(base).map_err(|e| FileProblem::FolderUnreadable(Arc::new(e)))
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
pub(crate) fn locate(root: &Path, base: &Path, location: &str) -> Result<Located, FileProblem> {
    let joined = base.join(location);
    debug_assert!(
        Path::new(location)
            .components()
            .all(|c| c != Component::ParentDir)
    );
    let real = std::fs::canonicalize(&joined).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => FileProblem::NotFound,
        _ => FileProblem::Unresolvable(Arc::new(e)),
    })?;
    if !real.starts_with(root) {
        return Err(FileProblem::Outside);
    }
    let meta = std::fs::metadata(&real).map_err(|e| FileProblem::Unreadable(Arc::new(e)))?;
    if !meta.is_file() {
        return Err(FileProblem::NotRegular);
    }
    Ok(Located { real, meta })
}
