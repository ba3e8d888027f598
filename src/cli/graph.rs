//! `onnx-lint graph`: draw the main graph as DOT, or as SVG through Graphviz's `dot`.

use super::{EXIT_OK, EXIT_UNLOADABLE, load_or_say, shorten};
use crate::file::{Origin, atomic::write_atomic, output::same_file};
use crate::picture::{self, Options};
use crate::render;
use anyhow::{anyhow, bail};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// What `-o` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Stdout,
    Dot,
    Svg,
}

fn target(output: &Path) -> Option<Target> {
    if output.as_os_str() == "-" {
        return Some(Target::Stdout);
    }
    let ext = output.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "dot" | "gv" => Some(Target::Dot),
        "svg" => Some(Target::Svg),
        _ => None,
    }
}

pub(super) fn graph(model: &Path, output: &Path, max_nodes: usize, initializers: bool) -> u8 {
    let shown_out = render::escape(&output.display().to_string());
    let Some(target) = target(output) else {
        eprintln!(
            "error: cannot tell what to write to {shown_out}: the output must end in .dot (DOT) or .svg (SVG, drawn by Graphviz), or be - (DOT on standard output)"
        );
        return EXIT_UNLOADABLE;
    };
    if target != Target::Stdout && model.as_os_str() != "-" && same_file(model, output) {
        eprintln!(
            "error: {shown_out} is the model itself; refusing to overwrite it with a picture"
        );
        return EXIT_UNLOADABLE;
    }
    let Some((m, found)) = load_or_say(model) else {
        return EXIT_UNLOADABLE;
    };
    if target != Target::Stdout
        && let Some((location, _)) = crate::write::data_files(&m)
            .into_iter()
            .find(|(_, file)| same_file(file, output))
    {
        eprintln!(
            "error: {shown_out} is the model's external data '{}'; refusing to overwrite it with a picture",
            render::escape(location)
        );
        return EXIT_UNLOADABLE;
    }
    let opts = Options {
        max_nodes,
        initializers,
        title: Origin::from_arg(model).display(),
    };
    let pic = match picture::draw(&m, &found, &opts) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot draw {}: {e}", render::escape(&opts.title));
            return EXIT_UNLOADABLE;
        }
    };
    let written = match target {
        Target::Stdout => {
            let mut out = std::io::stdout().lock();
            out.write_all(pic.dot.as_bytes())
                .and_then(|_| out.flush())
                .map_err(|e| anyhow!("cannot write standard output: {e}"))
        }
        Target::Dot => write_atomic(output, pic.dot.as_bytes()),
        Target::Svg => svg(&pic.dot).and_then(|s| write_atomic(output, &s)),
    };
    if let Err(e) = written {
        eprintln!("error: {}", render::escape(&format!("{e:#}")));
        return EXIT_UNLOADABLE;
    }
    if target != Target::Stdout {
        eprintln!(
            "graph: wrote {shown_out} ({} nodes; {} with errors in red, {} with warnings in orange, {} inserted by expand in blue)",
            pic.nodes, pic.errors, pic.warnings, pic.inserted
        );
    }
    EXIT_OK
}

/// Renders DOT text to SVG with Graphviz's `dot`, found on PATH.
fn svg(dot: &str) -> anyhow::Result<Vec<u8>> {
    let mut child = match Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!(
                "an SVG is drawn by Graphviz's `dot`, which is not on PATH: install Graphviz \
                 (e.g. `apt-get install graphviz`), or write a .dot file and render it elsewhere"
            );
        }
        Err(e) => bail!("cannot run Graphviz's `dot`: {e}"),
    };
    // Feed the input from another thread: `dot` may write (errors) before it has read everything.
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = dot.as_bytes().to_vec();
    let feeder = std::thread::spawn(move || stdin.write_all(&input));
    let out = child
        .wait_with_output()
        .map_err(|e| anyhow!("cannot run Graphviz's `dot`: {e}"))?;
    let fed = feeder.join().unwrap_or(Ok(()));
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        bail!(
            "Graphviz's `dot -Tsvg` failed ({}): {}",
            out.status,
            shorten(why.trim())
        );
    }
    fed.map_err(|e| anyhow!("cannot feed Graphviz's `dot`: {e}"))?;
    Ok(out.stdout)
}
