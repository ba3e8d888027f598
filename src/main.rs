//! The `onnx-lint` binary: parses arguments and hands over to [`onnx_lint::cli`].

use clap::Parser;

fn main() -> std::process::ExitCode {
    no_huge_pages();
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

/// Transparent huge pages off for this process. mimalloc asks for them on its whole arena, so every
/// first touch of a 2 MiB region makes the kernel zero all of it, where the pages this run touches are
/// far fewer; on a VM whose host takes freed memory back that zeroing was most of the system time, and
/// varied run to run (docs/performance.md#huge-pages: `check` of the 1M-node model 0.83 -> 0.63 s,
/// `expand` of it 1.65 -> 1.20 s). The command's process only: the library never sets it, so the
/// Python module leaves its interpreter's memory as it was.
fn no_huge_pages() {
    // SAFETY: prctl with integer arguments only; a kernel without the option refuses it, harmlessly.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
