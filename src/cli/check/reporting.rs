//! What a `check` run says: each model's report written in the models' order (the baseline read
//! taking out what it holds, the baseline being written recording every finding), the unused
//! suppressions, the closing summary or document, the notes on standard error and the exit status.

use super::discovery::Planned;
use super::discovery::Target;
use super::progress::Progress;
use crate::cli::{CheckArgs, ColorChoice, EXIT_FINDINGS, EXIT_OK, EXIT_UNLOADABLE, Format};
use crate::file::Origin;
use crate::file::atomic::write_atomic;
use crate::file::output::Inputs;
use crate::file::output::same_file;
use crate::render::{self, FileReport, Summary, escape};
use crate::settings::Resolver;
use crate::settings::baseline::{self, Baseline, Recorder};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// A model checked (its findings as the settings leave them, before the baseline), or a target that
/// could not be.
pub(super) struct Checked {
    pub(super) report: FileReport,
    /// The model's canonical path (`None`: standard input, or not a model).
    pub(super) at: Option<PathBuf>,
    pub(super) suppressed: usize,
    /// The model's external-data files: inputs no output of the run may replace.
    pub(super) data: Vec<PathBuf>,
    /// Conditions proven at every value of the `--dim` ranges (not reported).
    pub(super) proven: usize,
}

/// Every file the run reads that is known before it starts (the models named or found, the
/// configuration file and the baseline named); the models' data files and the configuration files
/// found beside them are added as the run meets them, and the outputs checked again before they are
/// written. Refused now, a run that would overwrite its model stops before checking anything.
/// Nothing is gathered when the run writes no file (the report goes to standard output and no
/// baseline is written): there is nothing to refuse, and no `stat` a model to pay.
pub(super) fn inputs_known(args: &CheckArgs, targets: &[Target]) -> Inputs {
    let mut inputs = Inputs::default();
    if !writes_files(args) {
        return inputs;
    }
    for t in targets {
        if let Target::Model(path, _) = t
            && path.as_os_str() != "-"
        {
            inputs.add("the model", path);
        }
    }
    if let Some(c) = &args.config {
        inputs.add("the configuration file", c);
    }
    if let Some(b) = &args.baseline {
        inputs.add("the baseline", b);
    }
    inputs
}

/// Whether the run writes a file (`--output-file`, `--write-baseline`) that must not replace an
/// input.
fn writes_files(args: &CheckArgs) -> bool {
    args.output_file.is_some() || args.write_baseline.is_some()
}

/// Refuses a report or a baseline that would be written over a file the run reads (a model, its
/// external data, a configuration file, the baseline read), or both into one file. Writing the
/// baseline over the one read (`--baseline b.json --write-baseline b.json`) is how a baseline is
/// updated, and is allowed: it was read whole before the run, and what is recorded is every finding,
/// before the baseline filters them.
pub(super) fn refuse_overwrites(args: &CheckArgs, inputs: &Inputs) -> anyhow::Result<()> {
    if let Some(report) = &args.output_file {
        inputs.refuse(report, "the report")?;
    }
    if let Some(b) = &args.write_baseline {
        let updating = args
            .baseline
            .as_deref()
            .is_some_and(|old| same_file(old, b));
        if !updating {
            inputs.refuse(b, "the baseline")?;
        }
        if let Some(report) = &args.output_file
            && (report == b || same_file(report, b))
        {
            anyhow::bail!(
                "refusing to write the report and the baseline to one file, {}; nothing was written",
                b.display()
            );
        }
    }
    Ok(())
}

/// The state of a run that models are reported into, in order, on the thread that writes.
pub(super) struct Run<'a> {
    args: &'a CheckArgs,
    paint: render::Paint,
    out: Sink,
    summary: Summary,
    hidden: Hidden,
    kept: Vec<FileReport>,
    baseline: Option<Baseline>,
    recorder: Option<Recorder>,
    /// The files read so far, which no output may replace.
    inputs: Inputs,
}

impl<'a> Run<'a> {
    pub(super) fn new(
        args: &'a CheckArgs,
        color: ColorChoice,
        baseline: Option<Baseline>,
        inputs: Inputs,
    ) -> Self {
        let out = Sink::new(args.output_file.is_some());
        // Everything `check` reports goes to one stream, so that is the one whose terminal-ness
        // decides `auto`; only the text format is ever coloured (JSON, SARIF and workflow commands
        // are read by programs).
        let paint = render::Paint {
            color: args.format == Format::Text && color.resolve(out.is_terminal()),
        };
        Run {
            args,
            paint,
            out,
            summary: Summary::default(),
            hidden: Hidden::default(),
            kept: Vec::new(),
            baseline,
            recorder: args.write_baseline.as_deref().map(Recorder::new),
            inputs,
        }
    }

    /// Records a checked model in the baseline being written, takes out what the baseline holds,
    /// counts and writes its report.
    pub(super) fn settle(&mut self, c: Checked, progress: &Progress) -> std::io::Result<()> {
        let Checked {
            mut report,
            at,
            suppressed,
            data,
            proven,
        } = c;
        self.hidden.proven += proven;
        if writes_files(self.args) {
            for d in &data {
                self.inputs.add("the external data", d);
            }
        }
        self.hidden.suppressed += suppressed;
        if let Ok(d) = &mut report.outcome {
            let at = at.as_deref();
            if let Some(r) = &mut self.recorder {
                r.record(&baseline::file_key(&r.folder, at), d);
            }
            if let Some(b) = &mut self.baseline {
                let key = baseline::file_key(&b.folder, at);
                let (left, absorbed) = b.filter(&key, std::mem::take(d));
                *d = left;
                self.hidden.in_baseline += absorbed;
                self.hidden.files.push(key);
            }
        }
        self.summary.add(&report);
        self.emit(report, progress)?;
        progress.inc();
        Ok(())
    }

    /// Writes out what is reported so far (the run is about to wait for a model).
    pub(super) fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }

    /// Reports the suppressions that silenced nothing, one block per configuration file.
    pub(super) fn unused_suppressions(
        &mut self,
        resolver: &Resolver,
        progress: &Progress,
    ) -> std::io::Result<()> {
        for settings in resolver.used() {
            let unused = settings.unused();
            let Some(config) = &settings.config else {
                continue;
            };
            if unused.is_empty() {
                continue;
            }
            let report = FileReport {
                file: shown_path(config),
                outcome: Ok(unused),
            };
            self.summary.add_other(&report);
            self.emit(report, progress)?;
        }
        Ok(())
    }

    /// Writes the block of one file as the format and flags ask (JSON and SARIF keep the report for
    /// the one document written at the end; `--statistics` writes only the counts, at the end).
    /// The block is buffered, flushed when the run waits ([`Run::flush`]); under a progress bar it
    /// is flushed at once, the bar wiped meanwhile.
    fn emit(&mut self, report: FileReport, progress: &Progress) -> std::io::Result<()> {
        let args = self.args;
        if args.statistics {
            return Ok(());
        }
        let block = match args.format {
            Format::Text if args.quiet => render::text_findings_painted(&report, self.paint),
            Format::Text => render::text_file_painted(&report, self.paint),
            Format::Github => render::github_file(&report),
            Format::Json | Format::Sarif => {
                self.kept.push(report);
                String::new()
            }
        };
        if block.is_empty() {
            return Ok(());
        }
        let out = &mut self.out;
        if progress.live() {
            progress.suspend(|| out.write_all(block.as_bytes()).and_then(|()| out.flush()))
        } else {
            out.write_all(block.as_bytes())
        }
    }

    /// Ends the run once every model is reported (and the progress bar gone): the summary or the
    /// document, the report file and the baseline written, the notes; returns the exit status.
    pub(super) fn end(mut self, resolver: &Resolver) -> u8 {
        let args = self.args;
        let tail = match (args.format, args.statistics) {
            (Format::Json, true) => self.summary.statistics_json(),
            (_, true) => self.summary.statistics_text(),
            (Format::Text | Format::Github, false) if args.quiet => String::new(),
            (Format::Text | Format::Github, false) => self.summary.text(),
            (Format::Json, false) => render::json(&self.kept),
            (Format::Sarif, false) => render::sarif(&self.kept),
        };
        if let Err(e) = self
            .out
            .write_all(tail.as_bytes())
            .and_then(|()| self.out.flush())
        {
            return write_failed(&e);
        }
        if writes_files(args) {
            for settings in resolver.used() {
                if let Some(config) = &settings.config {
                    self.inputs.add("the configuration file", config);
                }
            }
        }
        if let Err(e) = refuse_overwrites(args, &self.inputs) {
            return super::usage_error(&e);
        }
        if let Some(dest) = &args.output_file
            && let Err(e) = write_atomic(dest, self.out.buffered())
        {
            eprintln!("error: {}", escape(&format!("{e:#}")));
            return EXIT_UNLOADABLE;
        }
        if let (Some(r), Some(dest)) = (&self.recorder, &args.write_baseline) {
            if let Err(e) = write_atomic(dest, r.to_json().as_bytes()) {
                eprintln!("error: {}", escape(&format!("{e:#}")));
                return EXIT_UNLOADABLE;
            }
            if !args.quiet {
                eprintln!(
                    "note: baseline {} written: {}",
                    escape(&dest.display().to_string()),
                    plural(r.len(), "finding")
                );
            }
        }
        if !args.quiet {
            self.hidden
                .say(self.baseline.as_ref(), args.baseline.as_deref());
        }
        let summary = &self.summary;
        if summary.unloadable > 0 {
            EXIT_UNLOADABLE
        } else if (summary.with_errors > 0 || summary.other_errors > 0)
            && !args.exit_zero
            && self.recorder.is_none()
        {
            EXIT_FINDINGS
        } else {
            EXIT_OK
        }
    }
}

/// `--show-settings`: the settings in force for every model named, nothing checked.
pub(super) fn show_settings(planned: &[Planned]) -> u8 {
    let mut out = String::new();
    for item in planned {
        if let Planned::Model(path, at, s) = item {
            if !out.is_empty() {
                out.push('\n');
            }
            let shown = Origin::from_arg(path).display();
            // Paths and patterns come from the file system and the configuration: each line is
            // escaped, the line breaks between them kept.
            for line in s.describe(&shown, at.as_deref()).lines() {
                out.push_str(&escape(line));
                out.push('\n');
            }
        }
    }
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => EXIT_OK,
        Err(e) => write_failed(&e),
    }
}

/// A configuration file as the user would name it: relative to the current folder when it is under
/// it.
fn shown_path(p: &Path) -> String {
    let rel = std::env::current_dir().ok().and_then(|cwd| {
        p.strip_prefix(std::fs::canonicalize(cwd).ok()?)
            .ok()
            .map(Path::to_owned)
    });
    rel.unwrap_or_else(|| p.to_owned()).display().to_string()
}

/// Findings found but not shown, and why: said once at the end, on standard error (the report's
/// stream stays the report).
#[derive(Default)]
struct Hidden {
    suppressed: usize,
    /// W1/W2 conditions that hold at every value of the `--dim` ranges.
    proven: usize,
    in_baseline: usize,
    /// The baseline keys of the files checked (for the baseline's stale entries).
    files: Vec<String>,
}

impl Hidden {
    fn say(&self, baseline: Option<&Baseline>, path: Option<&Path>) {
        if self.proven > 0 {
            eprintln!(
                "note: {} proven for every value of the bound sizes (--dim, dims), not reported",
                plural(self.proven, "condition")
            );
        }
        if self.suppressed > 0 {
            eprintln!(
                "note: {} suppressed by the configuration",
                plural(self.suppressed, "finding")
            );
        }
        let (Some(b), Some(path)) = (baseline, path) else {
            return;
        };
        let shown = escape(&path.display().to_string());
        if self.in_baseline > 0 {
            eprintln!(
                "note: {} in the baseline {shown} not shown",
                plural(self.in_baseline, "finding")
            );
        }
        let stale = b.stale(&self.files);
        if stale > 0 {
            eprintln!(
                "note: {} of the baseline {shown} no longer found (fixed or changed): rewrite it with \
                 --write-baseline to keep it small",
                plural(stale, "finding")
            );
        }
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Where the report goes: standard output as the run goes, or memory until it is written to the
/// `--output-file` whole (atomically, so a reader never sees half a report).
enum Sink {
    Stdout(std::io::BufWriter<std::io::StdoutLock<'static>>),
    Buffer(Vec<u8>),
}

impl Sink {
    fn new(to_file: bool) -> Sink {
        if to_file {
            Sink::Buffer(Vec::new())
        } else {
            Sink::Stdout(std::io::BufWriter::new(std::io::stdout().lock()))
        }
    }

    fn is_terminal(&self) -> bool {
        matches!(self, Sink::Stdout(_)) && std::io::stdout().is_terminal()
    }

    fn buffered(&self) -> &[u8] {
        match self {
            Sink::Buffer(b) => b,
            Sink::Stdout(_) => &[],
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Stdout(w) => w.write(buf),
            Sink::Buffer(b) => b.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Stdout(w) => w.flush(),
            Sink::Buffer(_) => Ok(()),
        }
    }
}

/// Standard output is gone or full: say so (unless the reader just stopped reading, as `head` does)
/// and exit 2.
pub(super) fn write_failed(e: &std::io::Error) -> u8 {
    if e.kind() != std::io::ErrorKind::BrokenPipe {
        eprintln!("error: cannot write the report: {e}");
    }
    EXIT_UNLOADABLE
}
