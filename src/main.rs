//! The `onnx-lint` binary: parses arguments and hands over to [`onnx_lint::cli`].

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = onnx_lint::cli::Cli::parse();
    std::process::ExitCode::from(onnx_lint::cli::run(cli))
}
