//! Writing a model: the source bytes with a [`wire::Edit`] spliced in, streamed to a file atomically or
//! to standard output. With an empty edit the output is the input, byte for byte.

use crate::io::{Origin, same_file};
use crate::ir::Model;
use crate::wire::{self, Edit, Spliced};
use anyhow::{Context, Result, bail};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Protobuf cannot hold a message of 2 GiB or more.
pub const MAX_PROTOBUF_BYTES: u64 = (1 << 31) - 1;

/// Where to write, and what the caller allows.
#[derive(Clone, Debug, Default)]
pub struct WriteOptions {
    /// Allow the output to be the input file itself.
    pub in_place: bool,
    /// Skip the flush to disk before the rename (see [`crate::io::write_atomic_durable`]).
    pub no_fsync: bool,
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

/// Writes `model` with `edit` applied to `dest` (`-` for standard output).
pub fn write_model(model: &Model, edit: &Edit, dest: &Path, opts: &WriteOptions) -> Result<()> {
    let out = splice_model(model, edit)?;
    if dest.as_os_str() == "-" {
        let mut stdout = std::io::stdout().lock();
        out.write_to(&model.source, &mut stdout)
            .and_then(|_| stdout.flush())
            .context("cannot write standard output")?;
        return Ok(());
    }
    if let Origin::File(input) = &model.origin
        && !opts.in_place
        && (same_file(input, dest) || input == dest)
    {
        bail!(
            "refusing to overwrite the input {}: write elsewhere, or pass --in-place",
            input.display()
        );
    }
    let durable = !opts.no_fsync;
    match &model.source_file {
        Some(file) => crate::io::write_atomic_durable(dest, durable, |w| {
            out.copy_to(file, &model.source, w, durable)
        }),
        None => crate::io::write_atomic_durable(dest, durable, |w| out.write_to(&model.source, w)),
    }
}

/// External-data files the model references, if `dest` is in another folder than the model: the
/// written model would not find them. Returns the locations to copy next to `dest`.
pub fn external_files_left_behind(model: &Model, dest: &Path) -> Vec<String> {
    let Some(src_dir) = model.origin.base_dir() else {
        return Vec::new();
    };
    let dest_dir = match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    if same_file(&src_dir, &dest_dir) || dest.as_os_str() == "-" {
        return Vec::new();
    }
    let mut locations = Vec::new();
    for g in model.graphs() {
        crate::checks::visit_tensors(g, &mut |t, _, _| {
            for e in &t.external_data {
                if e.key() == "location" && !locations.iter().any(|l| l == e.value()) {
                    locations.push(e.value().to_owned());
                }
            }
        });
    }
    locations
}
