//! The settings layer's one error type: a configuration, a rule selector, a pattern or a baseline
//! that cannot be used. Each message names the file and key it comes from, as the command prints it.

use std::path::{Path, PathBuf};

/// Why settings cannot be had. The message is the one `check` prints after `error: `, whole: the
/// errors of the parsers it holds are part of it (`cause`), not a chain of sources to print again.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The file could not be read; `why` is the reader's message (with its causes).
    #[error("cannot read configuration {}: {why}", .path.display())]
    ReadConfig { path: PathBuf, why: String },
    #[error("invalid configuration {}: {cause}", .path.display())]
    InvalidConfig {
        path: PathBuf,
        cause: toml::de::Error,
    },
    #[error("invalid TOML in {}: {cause}", .path.display())]
    InvalidToml {
        path: PathBuf,
        cause: toml::de::Error,
    },
    #[error("invalid configuration in [tool.onnx-lint] of {}: {cause}", .path.display())]
    InvalidSection {
        path: PathBuf,
        cause: toml::de::Error,
    },
    /// `--config` names a `pyproject.toml` without the tool's table.
    #[error("{} has no [tool.onnx-lint] table", .0.display())]
    NoTable(PathBuf),
    /// A bad value of a configuration key, in the file named (`None`: no file).
    #[error("{}`{key}`: {cause}", in_file(.file.as_deref()))]
    InKey {
        file: Option<PathBuf>,
        key: String,
        cause: Box<SettingsError>,
    },
    /// A `dims` value that is not a size or a range (`8`, `"1..64"`, `"513.."`).
    #[error("{0}")]
    BadDim(String),
    #[error("`reason` is empty: say why the finding is accepted")]
    EmptyReason,
    #[error(
        "unknown rule selector `{0}`: not a code, a code prefix, a rule name or ALL \
         (`onnx-lint explain` lists the codes)"
    )]
    UnknownSelector(String),
    /// `what` is the kind of pattern (`model`, `node`), `shown` the pattern, cut when long.
    #[error("{what} pattern `{shown}` is too long: at most {max} bytes")]
    PatternTooLong {
        what: &'static str,
        shown: String,
        max: usize,
    },
    #[error("{what} pattern `{shown}` nests braces too deep: at most {max}")]
    PatternTooDeep {
        what: &'static str,
        shown: String,
        max: usize,
    },
    #[error("invalid {what} pattern `{shown}`: {cause}")]
    InvalidPattern {
        what: &'static str,
        shown: String,
        cause: globset::Error,
    },
    #[error("{what} pattern `{shown}` is too complex: {cause}")]
    PatternTooComplex {
        what: &'static str,
        shown: String,
        cause: globset::Error,
    },
    /// The baseline could not be read; `why` is the reader's message (with its causes).
    #[error("cannot read baseline {}: {why}", .path.display())]
    ReadBaseline { path: PathBuf, why: String },
    #[error("invalid baseline {}: {cause}", .path.display())]
    InvalidBaseline {
        path: PathBuf,
        cause: serde_json::Error,
    },
    #[error("baseline {} is of version {version}; this onnx-lint reads version {reads}", .path.display())]
    BaselineVersion {
        path: PathBuf,
        version: u32,
        reads: u32,
    },
}

impl SettingsError {
    /// The message of the parser this error holds, when it is one of several lines (the TOML
    /// parser's: where, the line of the file with a caret under the bad key, and what is wrong).
    pub fn parser_message(&self) -> Option<String> {
        match self {
            SettingsError::InvalidConfig { cause, .. }
            | SettingsError::InvalidToml { cause, .. }
            | SettingsError::InvalidSection { cause, .. } => Some(cause.to_string()),
            SettingsError::InKey { cause, .. } => cause.parser_message(),
            _ => None,
        }
    }
}
fn in_file(file: Option<&Path>) -> String {
    file.map(|f| format!("{}: ", f.display()))
        .unwrap_or_default()
}
