//! Paths: the repository (every file a test reads is found from `CARGO_MANIFEST_DIR`, never from the
//! working directory, which the tests share), its example models, and temporary folders.

use std::path::{Path, PathBuf};

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `models/<name>` of the repository.
pub fn repo_model(name: &str) -> PathBuf {
    root().join("models").join(name)
}

/// `p` as a command-line argument (the tests' paths are UTF-8).
pub fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// A fresh temporary folder, removed when dropped.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary folder")
}

/// `bytes` written as `name` into a fresh temporary folder: the folder (removed when dropped) and the
/// file's path.
pub fn temp_model(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempdir();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).expect("write the model");
    (dir, path)
}
