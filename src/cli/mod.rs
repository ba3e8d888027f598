//! The `onnx-lint` command line: arguments to library calls to output and an exit status.
//!
//! Exit status: 0 no error, 1 errors found (or nothing written because of them), 2 a model could not be
//! loaded or an output could not be written.

use crate::file::Origin;
use crate::file::wire::Edit;
use crate::ir::Model;
use crate::lint::{Findings, LoadOptions};
use crate::render;
use crate::write::{WriteOptions, write_model};
mod annotate;
mod check;
mod dims;
mod expand;
mod explain;
mod fold;
mod graph;
mod lines;
mod shapes;

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "onnx-lint",
    version,
    about = "Checks ONNX models for broadcasting errors and structural faults"
)]
pub struct Cli {
    /// Colour the text output: `auto` when the stream written is a terminal (`NO_COLOR` set turns it
    /// off, `FORCE_COLOR` on), `always` or `never`; other formats are never coloured
    #[arg(long, value_enum, global = true, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether to colour text written to a stream that `is_terminal` says is (or is not) a terminal.
    /// `NO_COLOR` (no-color.org: any non-empty value) wins over `FORCE_COLOR`; both only
    /// bend `auto`, an explicit choice on the command line is obeyed.
    pub fn resolve(self, is_terminal: bool) -> bool {
        let set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto if set("NO_COLOR") => false,
            ColorChoice::Auto if set("FORCE_COLOR") => true,
            ColorChoice::Auto => is_terminal,
        }
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check models and print every finding (exit 1 if any is an error, 2 if a model cannot be loaded)
    Check(Box<CheckArgs>),
    /// Rewrite every implicit broadcast into an explicit Expand node and write the model
    Expand {
        /// Model file (`-` reads standard input)
        model: PathBuf,
        /// Output file (`-` writes standard output)
        #[arg(short, long)]
        output: PathBuf,
        /// Leave scalars and one-element tensors implicit
        #[arg(long)]
        keep_scalars: bool,
        /// Make explicit also the inputs left implicit because onnxruntime would compute them with
        /// other code (Pow's broadcast exponent, floating-point Max/Min, normalization scale and bias):
        /// the model is then fully explicit, but its outputs in onnxruntime may change in the last bits
        #[arg(long)]
        force_explicit: bool,
        #[command(flatten)]
        report: ReportArgs,
        #[command(flatten)]
        write: WriteArgs,
    },
    /// Remove the Expand nodes implicit broadcasting makes redundant (the inverse of expand) and write the model
    Fold {
        /// Model file (`-` reads standard input)
        model: PathBuf,
        /// Output file (`-` writes standard output)
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        report: ReportArgs,
        #[command(flatten)]
        write: WriteArgs,
    },
    /// Write the inferred type of every value computed by a node into the model's value_info
    /// (existing entries are refined, never contradicted), or remove them all with --strip
    Annotate {
        /// Model file (`-` reads standard input)
        model: PathBuf,
        /// Output file (`-` writes standard output)
        #[arg(short, long)]
        output: PathBuf,
        /// Write a size that is an expression over symbols as `unk__N` (as onnxruntime names the
        /// sizes it cannot name) rather than as its text, e.g. `floor((H - 1)/32) + 1`
        #[arg(long)]
        no_expressions: bool,
        /// Also fill the declared types of graph outputs that are missing or less precise
        #[arg(long)]
        outputs_too: bool,
        /// Remove every value_info entry instead (of every graph, subgraph and function): the inverse
        #[arg(long, conflicts_with_all = ["no_expressions", "outputs_too", "force"])]
        strip: bool,
        /// Annotate a model with errors too (the types inferred downstream of an error may be wrong)
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        write: WriteArgs,
    },
    /// Print the element type and shape inferred for every value
    Shapes {
        /// Model file (`-` reads standard input)
        model: PathBuf,
        /// Output format
        #[arg(long, value_enum, default_value_t = ShapesFormat::Text)]
        format: ShapesFormat,
        /// Give an input symbol the values a deployment uses: `NAME=VALUE` fixes it (sizes computed
        /// from it become numbers), `NAME=LO..HI` (both ends included) or `NAME=LO..` limits it, and a
        /// W1 or W2 then says exactly which of those values fail. NAME is a `dim_param` of a graph input
        /// or the positional name of an axis declared without one (`x[3]`). Repeatable
        #[arg(
            long = "dim",
            value_name = "NAME=VALUE|NAME=LO..HI",
            help_heading = "Symbolic sizes"
        )]
        dims: Vec<String>,
    },
    /// List every input symbol with the conditions the model puts on it, where each comes from,
    /// and the values at which the model has no finding
    Dims {
        /// Model file (`-` reads standard input)
        model: PathBuf,
        /// Output format
        #[arg(long, value_enum, default_value_t = ShapesFormat::Text)]
        format: ShapesFormat,
        /// Give an input symbol the values a deployment uses: `NAME=VALUE` fixes it, `NAME=LO..HI`
        /// (both ends included) or `NAME=LO..` is the range its values are judged over (else
        /// 1..=65536). NAME is a `dim_param` of a graph input or the positional name of an axis
        /// declared without one (`x[3]`). Repeatable
        #[arg(
            long = "dim",
            value_name = "NAME=VALUE|NAME=LO..HI",
            help_heading = "Symbolic sizes"
        )]
        dims: Vec<String>,
    },
    /// Draw the main graph as DOT or SVG: E1 nodes red, W1 orange, Expand nodes inserted by `expand` blue
    Graph {
        /// Model file (`-` reads standard input)
        model: PathBuf,
        /// Output file: `.dot` writes DOT, `.svg` runs Graphviz's `dot -Tsvg`, `-` writes DOT to
        /// standard output
        #[arg(short, long)]
        output: PathBuf,
        /// Refuse to draw more op nodes than this (0: no limit)
        #[arg(long, default_value_t = crate::picture::DEFAULT_MAX_NODES)]
        max_nodes: usize,
        /// Draw initializers as nodes (by default they are listed in the label of the node reading them)
        #[arg(long)]
        initializers: bool,
    },
    /// Explain a diagnostic code: what it checks, why it matters, an example and the fix (no code: list
    /// every code)
    Explain {
        /// A code (`E1`, `g001`) or its name (`broadcast-error`)
        code: Option<String>,
    },
    /// Load a model into the IR and write it back unchanged (the output is byte-identical)
    Roundtrip {
        /// Model file (`-` reads standard input)
        model: PathBuf,
        /// Output file (`-` writes standard output)
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        write: WriteArgs,
    },
    /// Print a shell completion script to standard output (e.g. `onnx-lint completions bash >
    /// ~/.local/share/bash-completion/completions/onnx-lint`)
    Completions {
        /// The shell to complete in
        shell: Shell,
    },
}

/// What `check` checks, which findings it reports and how.
#[derive(Args, Debug, Default)]
pub struct CheckArgs {
    /// Model files (any extension; `-` reads standard input) and folders (searched for `*.onnx`)
    #[arg(required = true, value_name = "MODEL|FOLDER")]
    pub models: Vec<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Also report every implicit broadcast (rule B001), as `expand` would make explicit; the same as
    /// `--extend-select B001`
    #[arg(long)]
    pub explicit: bool,
    /// Report only these rules (codes, prefixes or names, comma-separated: `E1,W`, `broadcast-error`,
    /// `ALL`), replacing the configuration's selection
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "CODES",
        help_heading = "Rule selection"
    )]
    pub select: Option<Vec<String>>,
    /// Report these rules as well as those selected
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "CODES",
        help_heading = "Rule selection"
    )]
    pub extend_select: Vec<String>,
    /// Do not report these rules (a more specific selector wins: `--select E1 --ignore E` keeps E1)
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "CODES",
        help_heading = "Rule selection"
    )]
    pub ignore: Vec<String>,
    /// Make these rules' findings errors, so that they fail the run (`--error W1`)
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "CODES",
        help_heading = "Rule selection"
    )]
    pub error: Vec<String>,
    /// Make these rules' findings warnings, so that they no longer fail the run
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "CODES",
        help_heading = "Rule selection"
    )]
    pub warn: Vec<String>,
    /// Use this configuration file (an `onnx-lint.toml`, or a `pyproject.toml` with a
    /// `[tool.onnx-lint]` table) for every model, instead of finding one from each model's folder up
    #[arg(long, value_name = "FILE", help_heading = "Configuration")]
    pub config: Option<PathBuf>,
    /// Read no configuration file: the defaults and the command line only
    #[arg(long, conflicts_with = "config", help_heading = "Configuration")]
    pub isolated: bool,
    /// Print the settings in force for each model (configuration file, rules, per-file ignores,
    /// suppressions) and check nothing
    #[arg(long, help_heading = "Configuration")]
    pub show_settings: bool,
    /// Report (and fail on) only the findings not recorded in this baseline file
    #[arg(long, value_name = "FILE", help_heading = "Baseline")]
    pub baseline: Option<PathBuf>,
    /// Record every finding reported in this baseline file (written atomically) and exit 0 unless a
    /// model cannot be loaded
    #[arg(long, value_name = "FILE", help_heading = "Baseline")]
    pub write_baseline: Option<PathBuf>,
    /// Exit 0 even when errors are found (a model that cannot be loaded still gives 2)
    #[arg(long, help_heading = "Output")]
    pub exit_zero: bool,
    /// Print the findings only: no count lines, no summary, no notes
    #[arg(short, long, help_heading = "Output")]
    pub quiet: bool,
    /// Print how many findings each rule has instead of the findings
    #[arg(long, help_heading = "Output")]
    pub statistics: bool,
    /// Write the report to this file (atomically) instead of standard output
    #[arg(short, long, value_name = "FILE", help_heading = "Output")]
    pub output_file: Option<PathBuf>,
    /// Use this many threads (default: the number of cores): one model a thread, a spare one runs a
    /// model's checks beside its inference. The output is the same, in the same order, whatever the
    /// number. Each model being checked is held in memory. At most 4 per core: more are taken as that
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Give an input symbol the values a deployment uses: `NAME=VALUE` fixes it (sizes computed
    /// from it become numbers), `NAME=LO..HI` (both ends included) or `NAME=LO..` limits it, and a
    /// W1 or W2 then says exactly which of those values fail. NAME is a `dim_param` of a graph input
    /// or the positional name of an axis declared without one (`x[3]`). Repeatable; goes over the configuration's `dims`
    #[arg(
        long = "dim",
        value_name = "NAME=VALUE|NAME=LO..HI",
        help_heading = "Symbolic sizes"
    )]
    pub dims: Vec<String>,
}

/// The shells `completions` writes scripts for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// How much a command that rewrites a model says of the changes it made.
#[derive(Args, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReportArgs {
    /// Write only the closing counts (and `expand`'s warnings) to standard error, not a line per
    /// change: a rewrite of a million-node model makes a million lines
    #[arg(long)]
    pub summary: bool,
}

/// How a command that writes a model writes it.
#[derive(Args, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteArgs {
    /// Allow the output to be the input file
    #[arg(long)]
    pub in_place: bool,
    /// Do not flush the output to disk before renaming it into place: faster (the write no longer
    /// waits for the disk), still atomic for readers and if the command is killed, but a power loss
    /// just after may leave the output empty or as it was
    #[arg(long)]
    pub no_fsync: bool,
    /// Do not carry the model's external-data files beside an output in another folder (by default
    /// each is hard-linked there, or copied across file systems); only warn that they are left behind
    #[arg(long)]
    pub no_copy_data: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    #[default]
    Text,
    Json,
    Sarif,
    /// GitHub Actions workflow commands (`::error file=...`), one per finding
    Github,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ShapesFormat {
    Text,
    Json,
}

pub const EXIT_OK: u8 = 0;
pub const EXIT_FINDINGS: u8 = 1;
pub const EXIT_UNLOADABLE: u8 = 2;

/// Runs the parsed command; returns the exit status.
pub fn run(cli: Cli) -> u8 {
    match cli.command {
        Command::Check(args) => check::check(&args, cli.color),
        Command::Expand {
            model,
            output,
            keep_scalars,
            force_explicit,
            report,
            write,
        } => expand::expand(
            model,
            output,
            &crate::passes::explicit_broadcast::Options {
                keep_scalars,
                force_explicit,
            },
            write,
            cli.color,
            report.summary,
        ),
        Command::Fold {
            model,
            output,
            report,
            write,
        } => fold::fold(model, output, write, cli.color, report.summary),
        Command::Annotate {
            model,
            output,
            no_expressions,
            outputs_too,
            strip,
            force,
            write,
        } => annotate::annotate(
            model,
            output,
            &annotate::Asked {
                options: crate::passes::annotate::Options {
                    expressions: !no_expressions,
                    outputs_too,
                },
                strip,
                force,
            },
            write,
            cli.color,
        ),
        Command::Shapes {
            model,
            format,
            dims,
        } => shapes::shapes(&model, format, &dims),
        Command::Dims {
            model,
            format,
            dims,
        } => dims::dims(&model, format, &dims),
        Command::Graph {
            model,
            output,
            max_nodes,
            initializers,
        } => graph::graph(&model, &output, max_nodes, initializers),
        Command::Explain { code } => explain::explain(code.as_deref(), cli.color),
        Command::Roundtrip {
            model,
            output,
            write,
        } => roundtrip(model, output, write),
        Command::Completions { shell } => completions(shell),
    }
}

/// The bindings of `--dim` arguments, or the error that says which is malformed.
fn parse_dims(
    args: &[String],
) -> Result<crate::shape::bindings::Bindings, crate::shape::bindings::BindingError> {
    let mut b = crate::shape::bindings::Bindings::default();
    for a in args {
        let (name, domain) = crate::shape::bindings::Bindings::parse_arg(a)?;
        b.insert(name, domain);
    }
    Ok(b)
}

/// Longest load-error message shown whole; prost's field paths of deeply nested files run to
/// kilobytes, and the middle of them repeats.
const MAX_ERROR_CHARS: usize = 400;

fn load_with(path: &std::path::Path, opts: &LoadOptions) -> anyhow::Result<(Model, Findings)> {
    crate::lint::load_with(Origin::from_arg(path), opts)
}

/// A load error as it is reported: its causes after it, shortened.
fn load_error(e: &anyhow::Error) -> String {
    shorten(&format!("{e:#}"))
}

fn shorten(msg: &str) -> String {
    let chars: Vec<char> = msg.chars().collect();
    if chars.len() <= MAX_ERROR_CHARS {
        return msg.to_owned();
    }
    let head: String = chars[..MAX_ERROR_CHARS / 2].iter().collect();
    let tail: String = chars[chars.len() - MAX_ERROR_CHARS / 2..].iter().collect();
    format!("{head} ... {tail}")
}

/// Loads and checks `model`, or says why not on standard error.
fn load_or_say(model: &std::path::Path) -> Option<(Model, Findings)> {
    load_or_say_with(model, &LoadOptions::default())
}

/// [`load_or_say`], keeping what `opts` says.
fn load_or_say_with(model: &std::path::Path, opts: &LoadOptions) -> Option<(Model, Findings)> {
    load_with(model, opts)
        .map_err(|e| say_unloadable(model, &load_error(&e)))
        .ok()
}

/// Reads and builds `model` without checking it (see [`crate::lint::build`]), or says why not on
/// standard error.
fn build_or_say(model: &std::path::Path) -> Option<crate::lint::Built> {
    crate::lint::build(Origin::from_arg(model))
        .map_err(|e| say_unloadable(model, &load_error(&e)))
        .ok()
}

fn say_unloadable(model: &std::path::Path, why: &str) {
    let shown = Origin::from_arg(model).display();
    eprintln!(
        "error: cannot load {}: {}",
        render::escape(&shown),
        render::escape(why)
    );
}

/// A pass writes nothing for a model with errors: prints them on standard error (coloured as
/// `color` says for that stream) and says so. Returns the exit status to stop with, if so.
fn refuse_if_errors(found: &Findings, model: &std::path::Path, color: ColorChoice) -> Option<u8> {
    use std::io::IsTerminal;
    if !crate::diagnostics::has_errors(&found.diagnostics) {
        return None;
    }
    let report = render::FileReport {
        file: Origin::from_arg(model).display(),
        outcome: Ok(found.diagnostics.clone()),
    };
    let paint = render::Paint {
        color: color.resolve(std::io::stderr().is_terminal()),
    };
    eprint!("{}", render::text_file_painted(&report, paint));
    eprintln!("error: the model has errors; nothing was written");
    Some(EXIT_FINDINGS)
}

/// Writes `m` with `edit` applied (carrying its external data, unless told not to); says what went
/// wrong, what was carried, or what the user must still do.
fn write_out(m: &Model, edit: &Edit, output: &std::path::Path, write: WriteArgs) -> u8 {
    say_written(m, write_quietly(m, edit, output, write), output)
}

/// The options of a write, from the command line.
fn write_options(write: &WriteArgs) -> WriteOptions {
    WriteOptions {
        in_place: write.in_place,
        no_fsync: write.no_fsync,
        no_copy_data: write.no_copy_data,
    }
}

/// Refuses, before a pass runs, an output its write would refuse (see
/// [`crate::write::refuse_destination`]): says why and gives the exit status.
fn refuse_output(m: &Model, output: &std::path::Path, write: &WriteArgs) -> Option<u8> {
    let refused = crate::write::refuse_destination(m, output, &write_options(write)).err()?;
    eprintln!("error: {}", render::escape(&format!("{refused:#}")));
    Some(EXIT_UNLOADABLE)
}

/// [`write_out`]'s write, saying nothing: a caller can print something else meanwhile.
fn write_quietly(
    m: &Model,
    edit: &Edit,
    output: &std::path::Path,
    write: WriteArgs,
) -> anyhow::Result<crate::write::Written> {
    write_model(m, edit, output, &write_options(&write))
}

/// Writes `edit` of `m` to `output` while `say` prints the report on another thread (a line per
/// change: a million for a large graph, printed while the output is written), then what the write
/// has to say; returns the exit status. The model and the edit are left to the exit to free.
fn write_beside_report(
    m: Model,
    edit: Edit,
    output: &std::path::Path,
    write: WriteArgs,
    say: impl Fn(&Model) + Sync,
) -> u8 {
    let written = std::thread::scope(|s| {
        let (model, say) = (&m, &say);
        let printer = std::thread::Builder::new()
            .name("report".to_owned())
            .spawn_scoped(s, move || say(model));
        if printer.is_err() {
            say(model);
        }
        let written = write_quietly(model, &edit, output, write);
        if let Ok(p) = printer {
            let _ = p.join();
        }
        written
    });
    let status = say_written(&m, written, output);
    leave((m, edit));
    status
}

/// Leaves `t` for the process's exit to free: what a rewrite is done with (the shapes, the model,
/// the edit) is a million nodes' worth of allocations for a large graph, freed one by one on the
/// way to an exit that gives the memory back at once.
/// Measured (bench/ab.py --rounds 4 --warm): `expand` of synthetic_1M 4743 ms with it, 5048 ms
/// freeing (user 3206 -> 3323 ms); BERT-base the same.
fn leave<T>(t: T) {
    std::mem::forget(t);
}

/// What [`write_out`] says of a write, and its exit status.
fn say_written(
    m: &Model,
    written: anyhow::Result<crate::write::Written>,
    output: &std::path::Path,
) -> u8 {
    let written = match written {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {}", render::escape(&format!("{e:#}")));
            return EXIT_UNLOADABLE;
        }
    };
    let shown = render::escape(&output.display().to_string());
    for c in &written.carried {
        eprintln!(
            "data: external data '{}' -> {} ({})",
            render::escape(&c.location),
            render::escape(&c.dest.display().to_string()),
            c.how.as_str()
        );
    }
    for loc in &written.left_behind {
        let loc = render::escape(loc);
        if output.as_os_str() == "-" {
            let from = match m.origin.base_dir() {
                Some(d) => format!("is in {}", render::escape(&d.display().to_string())),
                None => "was not read (the model came from standard input)".to_owned(),
            };
            eprintln!(
                "warning: the model's external data '{loc}' {from} and cannot be carried to standard \
                 output: the output loads only beside that file (save it in that folder, or copy \
                 the file next to it)"
            );
        } else {
            eprintln!(
                "warning: the model's external data '{loc}' is not next to {shown} (--no-copy-data): \
                 copy it there, or the output will not load"
            );
        }
    }
    EXIT_OK
}

fn roundtrip(model: PathBuf, output: PathBuf, write: WriteArgs) -> u8 {
    let Some((m, found)) = load_or_say(&model) else {
        return EXIT_UNLOADABLE;
    };
    // Nothing of the findings is needed to write the model back as it was.
    drop(found);
    write_out(&m, &Edit::default(), &output, write)
}

/// Writes the completion script clap_complete generates from the same definition the parser uses,
/// so it cannot fall behind the commands and flags.
fn completions(shell: Shell) -> u8 {
    use clap::CommandFactory;
    use clap_complete::shells;
    let mut cmd = Cli::command();
    let mut out = std::io::stdout().lock();
    match shell {
        Shell::Bash => clap_complete::generate(shells::Bash, &mut cmd, "onnx-lint", &mut out),
        Shell::Zsh => clap_complete::generate(shells::Zsh, &mut cmd, "onnx-lint", &mut out),
        Shell::Fish => clap_complete::generate(shells::Fish, &mut cmd, "onnx-lint", &mut out),
    }
    EXIT_OK
}
