//! Files the tests compare with what the code makes (the snapshots of `expand` in
//! `tests/expand_fixed/`, the example models of `docs/examples/`), and the one switch that rewrites
//! them after a deliberate change: `ONNX_LINT_BLESS=1 cargo test --release --test it`, then review
//! the diff before committing it.

use std::path::Path;

/// The environment variable that makes [`assert_file`] write instead of compare.
pub const BLESS: &str = "ONNX_LINT_BLESS";

/// Whether [`BLESS`] is set (to anything but empty or `0`).
pub fn blessing() -> bool {
    std::env::var_os(BLESS).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Compares `actual` with the file at `path`, or writes it there when [`blessing`]. `filter` is the
/// test filter that reruns the test, for the failure message. Text shows its first differing line
/// and the whole actual text.
pub fn assert_file(path: &Path, actual: &[u8], filter: &str) {
    if blessing() {
        std::fs::create_dir_all(path.parent().expect("a file in a folder")).unwrap();
        std::fs::write(path, actual).unwrap();
        return;
    }
    let rerun = format!("{BLESS}=1 cargo test --release --test it {filter}");
    let expected = std::fs::read(path)
        .unwrap_or_else(|e| panic!("{}: {e}; run `{rerun}` to write it", path.display()));
    if expected == actual {
        return;
    }
    match (std::str::from_utf8(&expected), std::str::from_utf8(actual)) {
        (Ok(expected), Ok(text)) => {
            let at = expected
                .lines()
                .zip(text.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| expected.lines().count().min(text.lines().count()));
            panic!(
                "{} differs at line {}:\n  expected: {}\n  actual:   {}\n\
                 (`{rerun}` rewrites it; review the diff)\n--- actual ---\n{text}",
                path.display(),
                at + 1,
                expected.lines().nth(at).unwrap_or("<end of file>"),
                text.lines().nth(at).unwrap_or("<end of file>"),
            );
        }
        _ => panic!(
            "{} is not what the test makes: run `{rerun}` and review the diff",
            path.display()
        ),
    }
}
