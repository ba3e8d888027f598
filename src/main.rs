//! The `onnx-lint` binary: parses arguments and hands over to [`onnx_lint::cli`].

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = onnx_lint::cli::Cli::parse();
    // A writer stopped by Ctrl-C or SIGTERM removes its temporary file (as large as the model).
    onnx_lint::file::temp::remove_on_signals();
    let code = onnx_lint::cli::run(cli);
    // Peak memory on standard error, for the tests that hold hostile inputs to bounded memory
    // without depending on /usr/bin/time.
    if std::env::var_os("ONNX_LINT_DEBUG_RSS").is_some() {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        for l in status
            .lines()
            .filter(|l| l.starts_with("Rss") || l.starts_with("VmHWM"))
        {
            eprintln!("{l}");
        }
    }
    std::process::ExitCode::from(code)
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
