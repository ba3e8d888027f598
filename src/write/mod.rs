//! Writing a model: the source bytes with a [`wire::Edit`] spliced in, streamed to a file atomically or
//! to standard output. With an empty edit the output is the input, byte for byte. The model's
//! external-data files go along to an output in another folder ([`carry`]).

pub mod carry;

use crate::file::output::{self, Target};
use crate::file::wire::{self, Edit, Spliced};
use crate::file::{Origin, output::same_file};
use crate::ir::Model;
use anyhow::{Context, Result, bail};
use carry::{Carried, Placed};
use std::io::Write;
use std::path::Path;

pub use crate::file::MAX_PROTOBUF_BYTES;

/// Where to write, and what the caller allows.
#[derive(Clone, Debug, Default)]
pub struct WriteOptions {
    /// Allow the output to be the input file itself.
    pub in_place: bool,
    /// Skip the flush to disk before the rename (see [`crate::file::atomic::write_atomic_durable`]).
    pub no_fsync: bool,
    /// Do not carry the model's external-data files beside an output in another folder (see
    /// [`carry`]); [`Written::left_behind`] lists them instead.
    pub no_copy_data: bool,
}

/// What a write did besides writing the model.
#[derive(Debug, Default)]
pub struct Written {
    /// The external-data files placed beside the output (or found there already).
    pub carried: Vec<Carried>,
    /// External-data locations the output references that are not beside it: with
    /// [`WriteOptions::no_copy_data`], or every one when the output is standard output (nothing can
    /// be carried there). The output will not load until they are.
    pub left_behind: Vec<String>,
}

/// The bytes of `model` with `edit` applied, as chunks over the model's source.
pub fn splice_model<'e>(model: &Model, edit: &'e Edit) -> Result<Spliced<'e>> {
    let src = &model.source;
    let out = wire::splice(src, 0..src.len(), edit).context("cannot re-encode the model")?;
    if out.len > MAX_PROTOBUF_BYTES {
        bail!(
            "the output would be {} bytes, over protobuf's 2 GiB limit; move initializers to external data",
            out.len
        );
    }
    Ok(out)
}

/// The bytes of `model` with `edit` applied, in one buffer: for a caller that wants the rewritten
/// model in memory (the Python binding returns it as `bytes`) rather than in a file. External-data
/// locations are kept as they are; nothing is carried.
pub fn to_vec(model: &Model, edit: &Edit) -> Result<Vec<u8>> {
    let out = splice_model(model, edit)?;
    let bytes = out.to_vec(&model.source);
    if bytes.len() as u64 != out.len {
        bail!(
            "internal error: the output was measured at {} bytes but {} were made",
            out.len,
            bytes.len()
        );
    }
    Ok(bytes)
}

/// Refuses what [`write_model`] would refuse before writing a byte: `dest` is the model itself
/// (without `opts.in_place`), one of its data files, a file that cannot be written, or in a folder
/// that does not exist. A command asks before its pass, so that it reports nothing it cannot write.
pub fn refuse_destination(model: &Model, dest: &Path, opts: &WriteOptions) -> Result<()> {
    if dest.as_os_str() == "-" {
        return Ok(());
    }
    // By identity: the model named through another path, a link or a hard link is still the model.
    if let Origin::File(input) = &model.origin
        && !opts.in_place
        && (same_file(input, dest) || input == dest)
    {
        bail!(
            "refusing to overwrite the input {}: write elsewhere, or pass --in-place",
            input.display()
        );
    }
    refuse_to_replace_data(model, dest)?;
    if let Target::Replace(path) = output::resolve(dest)? {
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !folder.is_dir() {
            bail!(
                "cannot write {}: the folder {} does not exist",
                path.display(),
                folder.display()
            );
        }
    }
    Ok(())
}

/// Writes `model` with `edit` applied to `dest` (`-` for standard output). The model's external-data
/// files are carried beside an output in another folder unless `opts.no_copy_data`: they are placed
/// first and the model after, and if the model cannot be written they are removed again, so an error
/// leaves nothing behind.
///
/// `dest` may be a symbolic link (the file it names is written, the link kept), a character device
/// or a FIFO (written through; nothing is carried); it may not be the model itself unless
/// `opts.in_place`, nor one of the model's data files, nor a file this user cannot write (see
/// [`crate::file::output`]).
pub fn write_model(
    model: &Model,
    edit: &Edit,
    dest: &Path,
    opts: &WriteOptions,
) -> Result<Written> {
    let out = splice_model(model, edit)?;
    let locations = carry::locations(model);
    if dest.as_os_str() == "-" {
        let mut stdout = std::io::stdout().lock();
        out.write_to(&model.source, &mut stdout)
            .and_then(|_| stdout.flush())
            .context("cannot write standard output")?;
        return Ok(Written {
            carried: Vec::new(),
            left_behind: locations,
        });
    }
    refuse_destination(model, dest, opts)?;
    let durable = !opts.no_fsync;
    // A link is followed: the file it names is written and the link kept, so the carrying below is
    // about that file's folder. What cannot be written is refused here, before any data is carried.
    let dest = match output::resolve(dest)? {
        Target::Replace(path) => path,
        Target::Through(path) => {
            // A device or a FIFO has no folder to carry data into (`-o /dev/null` must not fill
            // /dev).
            crate::file::atomic::write_atomic_durable(&path, false, |w, _| {
                out.write_to(&model.source, w)
            })?;
            return Ok(Written::default());
        }
    };
    let dest = dest.as_path();
    let placed = if opts.no_copy_data {
        Placed::default()
    } else {
        carry::plan(model, dest, &locations)?.place(durable)?
    };
    let written = match &model.source_file {
        Some(file) => crate::file::atomic::write_atomic_durable(dest, durable, |w, filling| {
            out.copy_to_in_two(file, &model.source, w, filling)
        }),
        None => crate::file::atomic::write_atomic_durable(dest, durable, |w, _| {
            out.write_to(&model.source, w)
        }),
    };
    if let Err(e) = written {
        let had_data = !placed.carried.is_empty();
        placed.undo();
        return Err(if had_data {
            e.context("the data files carried beside it were removed again")
        } else {
            e
        });
    }
    let left_behind = if opts.no_copy_data {
        external_files_left_behind(model, dest)
    } else {
        Vec::new()
    };
    Ok(Written {
        carried: placed.carried,
        left_behind,
    })
}

/// Refuses an output path that is one of the model's own data files: the rename would replace the
/// weights with the model (the input itself is refused separately, unless `--in-place`).
fn refuse_to_replace_data(model: &Model, dest: &Path) -> Result<()> {
    for (location, file) in data_files(model) {
        if same_file(&file, dest) {
            bail!(
                "refusing to write the model over its own external data '{location}' ({}); nothing was written",
                dest.display()
            );
        }
    }
    Ok(())
}

/// The model's external-data files: each location and the path it names beside the model. Only
/// well-formed locations name a file the model can use; the others are X001 findings. Empty for a
/// model read from standard input.
pub fn data_files(model: &Model) -> Vec<(&str, std::path::PathBuf)> {
    let Some(base) = model.origin.base_dir() else {
        return Vec::new();
    };
    model
        .external_locations()
        .iter()
        .filter(|l| crate::checks::external::check_location_syntax(l).is_ok())
        .map(|l| (l.as_str(), base.join(l)))
        .collect()
}

/// External-data files the model references, if `dest` is in another folder than the model: the
/// written model would not find them. Returns the locations to copy next to `dest`.
pub fn external_files_left_behind(model: &Model, dest: &Path) -> Vec<String> {
    let Some(src_dir) = model.origin.base_dir() else {
        return Vec::new();
    };
    if dest.as_os_str() == "-" || same_file(&src_dir, &carry::folder_of(dest)) {
        return Vec::new();
    }
    carry::locations(model)
}
