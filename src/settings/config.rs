//! Configuration files: `onnx-lint.toml` (or `.onnx-lint.toml`), or the `[tool.onnx-lint]` table of a
//! `pyproject.toml`, read strictly: an unknown key is an error that names it, never ignored.
//!
//! Discovery follows ruff's: from a model's folder upwards, the first folder that has one of these
//! files (in that order; a `pyproject.toml` counts only with a `[tool.onnx-lint]` table) gives the
//! configuration, and paths in it are relative to that folder.

use super::SettingsError;
use super::interface::InterfaceTable;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file names looked for in each folder, in order.
pub const NAMES: [&str; 3] = [".onnx-lint.toml", "onnx-lint.toml", "pyproject.toml"];

/// The keys of a configuration, as written (kebab-case).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ConfigFile {
    /// The codes reported (replaces the default set).
    pub select: Option<Vec<String>>,
    /// Codes reported on top of the default (or `select`) set.
    #[serde(default)]
    pub extend_select: Vec<String>,
    /// Codes not reported.
    #[serde(default)]
    pub ignore: Vec<String>,
    /// Codes whose findings are errors (fail the run).
    #[serde(default)]
    pub error: Vec<String>,
    /// Codes whose findings are warnings (do not fail the run).
    #[serde(default)]
    pub warn: Vec<String>,
    /// Glob of model paths -> codes not reported for those models.
    #[serde(default)]
    pub per_file_ignores: BTreeMap<String, Vec<String>>,
    /// Findings silenced with a reason.
    #[serde(default)]
    pub suppress: Vec<SuppressEntry>,
    /// Input symbol -> the values a deployment uses: a size, or a range `"LO..HI"` / `"LO.."`.
    #[serde(default)]
    pub dims: BTreeMap<String, DimValue>,
    /// Glob of model paths -> `dims` for those models, over the file's `dims`.
    #[serde(default)]
    pub per_file_dims: BTreeMap<String, BTreeMap<String, DimValue>>,
    /// The inputs and outputs every model is expected to have (C001 for each difference).
    pub interface: Option<InterfaceTable>,
    /// Glob of model paths -> `interface` for those models: each side it gives replaces the file's.
    #[serde(default)]
    pub per_file_interface: BTreeMap<String, InterfaceTable>,
}

/// A value of the `dims` table: a size (`seq = 128`) or a range as text (`seq = "1..8192"`).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum DimValue {
    Size(u64),
    Text(String),
}

impl DimValue {
    /// The domain it gives, or why it gives none.
    pub fn domain(
        &self,
    ) -> Result<crate::shape::bindings::Domain, crate::shape::bindings::BindingError> {
        match self {
            DimValue::Size(v) => crate::shape::bindings::Domain::parse(&v.to_string()),
            DimValue::Text(t) => crate::shape::bindings::Domain::parse(t),
        }
    }
}

/// One `[[suppress]]` table.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SuppressEntry {
    /// Glob of the models it applies to (all models of this configuration when absent).
    pub model: Option<String>,
    /// The code (or prefix, or rule name) silenced.
    pub code: String,
    /// Glob of the node names it applies to (findings at any node, or at none, when absent).
    pub node: Option<String>,
    /// Why the finding is accepted: required, and shown where the suppression is reported.
    pub reason: String,
}

/// A configuration read from a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    pub config: ConfigFile,
}

/// Reads the configuration file at `path` (an `onnx-lint.toml` or a `pyproject.toml`). `Ok(None)` for a
/// `pyproject.toml` without a `[tool.onnx-lint]` table.
pub fn read(path: &Path) -> Result<Option<ConfigFile>, SettingsError> {
    let text = crate::file::read::read_text_capped(
        path,
        crate::file::read::MAX_CONFIG_BYTES,
        "configuration",
    )
    .map_err(|e| SettingsError::ReadConfig {
        path: path.to_owned(),
        why: format!("{e:#}"),
    })?;
    parse(&text, path)
}

/// [`read`] of `text`, the contents of the file at `path` (which names it in errors and says whether
/// it is a `pyproject.toml`).
pub fn parse(text: &str, path: &Path) -> Result<Option<ConfigFile>, SettingsError> {
    let is_pyproject = path.file_name().is_some_and(|n| n == "pyproject.toml");
    if !is_pyproject {
        return toml::from_str(text)
            .map(Some)
            .map_err(|cause| SettingsError::InvalidConfig {
                path: path.to_owned(),
                cause,
            });
    }
    let doc: toml::Table = toml::from_str(text).map_err(|cause| SettingsError::InvalidToml {
        path: path.to_owned(),
        cause,
    })?;
    let Some(section) = doc.get("tool").and_then(|t| t.get("onnx-lint")) else {
        return Ok(None);
    };
    section
        .clone()
        .try_into()
        .map(Some)
        .map_err(|cause| SettingsError::InvalidSection {
            path: path.to_owned(),
            cause,
        })
}

/// The configuration in force for files in `dir` (an absolute, canonical folder): the first found
/// from `dir` upwards, or `None`.
pub fn discover(dir: &Path) -> Result<Option<Found>, SettingsError> {
    for d in dir.ancestors() {
        if let Some(found) = in_folder(d)? {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

/// Which of [`NAMES`] a folder's listing holds (bit `i` for `NAMES[i]`), when the folder walk has
/// read it: the names it lacks are not looked up again, one `stat` less each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Listed(u8);

impl Listed {
    /// Notes the entry `name` of the listing, if it is one of [`NAMES`].
    pub fn note(&mut self, name: &std::ffi::OsStr) {
        if let Some(i) = NAMES.iter().position(|n| name == *n) {
            self.0 |= 1 << i;
        }
    }

    fn has(self, i: usize) -> bool {
        self.0 & (1 << i) != 0
    }
}

/// The configuration file of `dir` itself, if it has one.
pub fn in_folder(dir: &Path) -> Result<Option<Found>, SettingsError> {
    in_folder_listed(dir, None)
}

/// [`in_folder`], looking up only the names `listed` holds when the folder's listing is known.
pub fn in_folder_listed(
    dir: &Path,
    listed: Option<Listed>,
) -> Result<Option<Found>, SettingsError> {
    for (i, name) in NAMES.iter().enumerate() {
        if listed.is_some_and(|l| !l.has(i)) {
            continue;
        }
        let path = dir.join(name);
        // A FIFO or device by that name is refused by `read`, not passed over: it was meant to be read.
        if !std::fs::metadata(&path).is_ok_and(|m| !m.is_dir()) {
            continue;
        }
        if let Some(config) = read(&path)? {
            return Ok(Some(Found { path, config }));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn keys_are_read_and_unknown_ones_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("onnx-lint.toml");
        fs::write(
            &p,
            "select = [\"E\"]\nignore = [\"W1\"]\n[per-file-ignores]\n\"old/*.onnx\" = [\"T004\"]\n\
             [[suppress]]\ncode = \"E1\"\nnode = \"Add_*\"\nreason = \"known\"\n",
        )
        .unwrap();
        let c = read(&p).unwrap().unwrap();
        assert_eq!(c.select, Some(vec!["E".to_owned()]));
        assert_eq!(c.per_file_ignores["old/*.onnx"], ["T004"]);
        assert_eq!(c.suppress[0].node.as_deref(), Some("Add_*"));
        fs::write(&p, "slect = [\"E\"]\n").unwrap();
        let err = read(&p).unwrap_err().to_string();
        assert!(err.contains("slect"), "{err}");
        fs::write(&p, "[[suppress]]\ncode = \"E1\"\n").unwrap();
        let err = read(&p).unwrap_err().to_string();
        assert!(err.contains("reason"), "{err}");
    }

    #[test]
    fn pyproject_counts_only_with_its_table() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let sub = root.join("a/b");
        fs::create_dir_all(&sub).unwrap();
        fs::write(
            root.join("pyproject.toml"),
            "[tool.onnx-lint]\nignore = [\"I\"]\n",
        )
        .unwrap();
        fs::write(root.join("a/pyproject.toml"), "[project]\nname = \"x\"\n").unwrap();
        let found = discover(&sub).unwrap().unwrap();
        assert_eq!(found.path, root.join("pyproject.toml"));
        assert_eq!(found.config.ignore, ["I"]);
        fs::write(
            root.join("a/pyproject.toml"),
            "[tool.onnx-lint]\nbogus = 1\n",
        )
        .unwrap();
        let err = discover(&sub).unwrap_err().to_string();
        assert!(
            err.contains("bogus") && err.contains("[tool.onnx-lint]"),
            "{err}"
        );
    }
}
