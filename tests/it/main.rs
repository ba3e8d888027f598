//! The integration tests of onnx-lint, as one test binary (`cargo test --release --test it`), grouped
//! by what they test. One binary links the library once instead of once per file. The tests share
//! this process and run on parallel threads: what one run needs for itself (an environment variable,
//! a working directory, signal dispositions, a memory peak) is set on, or read from, the `onnx-lint`
//! child it starts, never this process.
//!
//! - [`cli`]: the command line as a user or a pipeline meets it: streams, exit statuses, formats,
//!   settings, colour, completions, the example program and the pre-commit hook.
//! - [`reading`]: loading models: the decoder, the IR, external data, and bad or hostile input.
//! - [`writing`]: what the writers produce: `expand` (snapshots, encodings, kernel exceptions),
//!   `fold`, carried external data, and writers that never destroy a file.
//! - [`shapes`]: shape inference and its findings: the broadcast algebra, data propagation,
//!   symbolic sizes, declared dims, the planted findings of `models/broken/`.
//! - [`docs`]: the documentation is complete and true (`docs/rules.md` and its example models).
//! - [`layering`]: the layer order of `src/` and the check that keeps it.
//! - [`support`]: what the tests share: the binary runner, model builders, paths, temporary
//!   folders, and the one snapshot switch (`ONNX_LINT_BLESS=1`).

mod cli;
mod docs;
mod layering;
mod reading;
mod shapes;
mod support;
mod writing;
