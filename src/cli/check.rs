//! `onnx-lint check`: find the models (files, folders searched for `*.onnx`, standard input) and the
//! settings of each, load and check them, filter the findings (settings, baseline), render them, pick
//! the exit status.
//!
//! `--jobs N` models are checked at once, each freed as soon as its findings are taken: a folder of
//! thousands of models needs the memory of N (plus the findings, for JSON and SARIF, which are one
//! document). Reports are written in the models' order whatever the number of jobs, text and GitHub
//! output file by file as the run goes.

use super::{CheckArgs, ColorChoice, EXIT_FINDINGS, EXIT_OK, EXIT_UNLOADABLE, Format, load_with};
use crate::diagnostics::Code;
use crate::file::Origin;
use crate::file::atomic::{same_file, write_atomic};
use crate::file::output::Inputs;
use crate::ir::Model;
use crate::lint::{Findings, LoadOptions};
use crate::passes::explicit_broadcast::{Options, implicit_broadcasts};
use crate::render::{self, FileReport, Summary, escape};
use crate::settings::baseline::{self, Baseline, Recorder};
use crate::settings::{Resolver, RuleLayer, Selector, Settings, model_path};
use crate::shape::infer::GraphShapes;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fs;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::Duration;

pub(super) fn check(args: &CheckArgs, color: ColorChoice) -> u8 {
    let resolver =
        rule_layer(args).and_then(|cli| Resolver::new(cli, args.config.as_deref(), args.isolated));
    let mut resolver = match resolver {
        Ok(r) => r,
        Err(e) => return usage_error(&e),
    };
    let targets = find_models(&args.models);
    // Every file the run reads that is known now; the models' data files and the configuration files
    // found beside them are added as the run meets them, and the outputs checked again before they
    // are written. Refused now, a run that would overwrite its model stops before checking anything.
    let mut inputs = Inputs::default();
    for t in &targets {
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
    if let Err(e) = refuse_overwrites(args, &inputs) {
        return usage_error(&e);
    }
    // --jobs is a budget of threads: one model per thread while there are more models than
    // threads; a thread to spare (fewer models, or the default on one model) runs a model's
    // structural checks beside its inference.
    let cores = thread::available_parallelism().map_or(1, |n| n.get());
    // At most MAX_JOBS_PER_CORE threads a core: each holds a model, and a million of them (asked
    // for) took 5 GiB of stacks and channel slots for no speed.
    let threads = args
        .jobs
        .unwrap_or(cores)
        .clamp(1, cores.saturating_mul(MAX_JOBS_PER_CORE));
    let jobs = threads.min(targets.len().max(1));
    let parallel = threads > jobs;
    let count = targets.len();
    // Every model's settings before any output: a bad configuration stops the run with nothing
    // half-reported. With several jobs the workers start on the models planned while the plan goes
    // on (see `in_parallel`); their reports wait for it.
    let plan_all = |targets: Vec<Target>, resolver: &mut Resolver| {
        targets
            .into_iter()
            .map(|t| plan_one(t, resolver))
            .collect::<Result<Vec<_>, _>>()
    };
    if args.show_settings {
        return match plan_all(targets, &mut resolver) {
            Ok(planned) => show_settings(&planned),
            Err(e) => usage_error(&e),
        };
    }
    // Read before the plan, which with several jobs runs beside the checks.
    let baseline = match args.baseline.as_deref().map(Baseline::read).transpose() {
        Ok(b) => b,
        Err(e) => return usage_error(&e),
    };
    let (planned, targets) = if jobs > 1 {
        (Vec::new(), targets)
    } else {
        match plan_all(targets, &mut resolver) {
            Ok(p) => (p, Vec::new()),
            Err(e) => return usage_error(&e),
        }
    };
    let recorder = args.write_baseline.as_deref().map(Recorder::new);
    let mut out = Sink::new(args.output_file.is_some());
    // Everything `check` reports goes to one stream, so that is the one whose terminal-ness decides
    // `auto`; only the text format is ever coloured (JSON, SARIF and workflow commands are read by
    // programs).
    let paint = render::Paint {
        color: args.format == Format::Text && color.resolve(out.is_terminal()),
    };
    let progress = Progress::start(count);
    let mut run = Run {
        args,
        paint,
        progress: &progress,
        summary: Summary::default(),
        hidden: Hidden::default(),
        kept: Vec::new(),
        baseline,
        recorder,
        inputs,
    };
    let done = if jobs > 1 {
        match in_parallel(targets, &mut resolver, jobs, parallel, &mut run, &mut out) {
            Ok(done) => done,
            Err(e) => {
                progress.finish();
                return usage_error(&e);
            }
        }
    } else {
        let mut dropper = Dropper::default();
        let last = planned.len().saturating_sub(1);
        planned.iter().enumerate().try_for_each(|(i, item)| {
            // The last model is left to the process's exit, as the rewrites leave theirs: freeing
            // it first gains nothing, and a million-node model's pages would go back to the kernel
            // on another thread while this one reports. (Measured: no difference outside this
            // host's noise, `check` of `synthetic_1M` 0.61-1.17 s either way.)
            let checked = check_one(item, parallel, &progress, |m| {
                if i == last {
                    super::leave(m)
                } else {
                    dropper.free(m)
                }
            });
            run.settle(checked, &mut out)
        })
    };
    let Run {
        mut summary,
        hidden,
        mut kept,
        baseline,
        recorder,
        mut inputs,
        ..
    } = run;
    if let Err(e) = done {
        progress.finish();
        return write_failed(&e);
    }
    // Suppressions that silenced nothing, one block per configuration file.
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
        summary.add_other(&report);
        if let Err(e) = emit(&report, args, paint, &mut out, &progress, &mut kept) {
            progress.finish();
            return write_failed(&e);
        }
    }
    progress.finish();
    let tail = match (args.format, args.statistics) {
        (Format::Json, true) => summary.statistics_json(),
        (_, true) => summary.statistics_text(),
        (Format::Text | Format::Github, false) if args.quiet => String::new(),
        (Format::Text | Format::Github, false) => summary.text(),
        (Format::Json, false) => render::json(&kept),
        (Format::Sarif, false) => render::sarif(&kept),
    };
    if let Err(e) = out.write_all(tail.as_bytes()).and_then(|()| out.flush()) {
        return write_failed(&e);
    }
    for settings in resolver.used() {
        if let Some(config) = &settings.config {
            inputs.add("the configuration file", config);
        }
    }
    if let Err(e) = refuse_overwrites(args, &inputs) {
        return usage_error(&e);
    }
    if let Some(dest) = &args.output_file
        && let Err(e) = write_atomic(dest, out.buffered())
    {
        eprintln!("error: {}", escape(&format!("{e:#}")));
        return EXIT_UNLOADABLE;
    }
    if let (Some(r), Some(dest)) = (&recorder, &args.write_baseline) {
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
        hidden.say(baseline.as_ref(), args.baseline.as_deref());
    }
    if summary.unloadable > 0 {
        EXIT_UNLOADABLE
    } else if (summary.with_errors > 0 || summary.other_errors > 0)
        && !args.exit_zero
        && recorder.is_none()
    {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}

/// A model checked (its findings as the settings leave them, before the baseline), or a target that
/// could not be.
struct Checked {
    report: FileReport,
    /// The model's canonical path (`None`: standard input, or not a model).
    at: Option<PathBuf>,
    suppressed: usize,
    /// The model's external-data files: inputs no output of the run may replace.
    data: Vec<PathBuf>,
}

/// Loads and checks one model under its settings; `free` takes the model and its shapes once the
/// findings are out of them.
fn check_one(
    item: &Planned,
    parallel: bool,
    progress: &Progress,
    free: impl FnOnce((Model, Vec<GraphShapes>)),
) -> Checked {
    let (path, at, settings) = match item {
        Planned::Model(path, at, settings) => (path, at, settings),
        Planned::Unreadable { path, error } => {
            return Checked {
                report: FileReport {
                    file: path.display().to_string(),
                    outcome: Err(error.clone()),
                },
                at: None,
                suppressed: 0,
                data: Vec::new(),
            };
        }
    };
    let file = Origin::from_arg(path).display();
    progress.set_message(escape(&file));
    // Findings only, unless B001 needs every value's shape afterwards.
    let b001 = settings.wants(at.as_deref(), Code::ImplicitBroadcast);
    let opts = LoadOptions {
        keep_shapes: b001,
        keep_names: false,
        parallel,
    };
    let mut suppressed = 0;
    let mut data = Vec::new();
    let outcome = load_with(path, &opts).map(|(m, found)| {
        let Findings {
            diagnostics: mut d,
            shapes,
        } = found;
        if b001 {
            d.extend(implicit_broadcasts(&m, &shapes, &Options::default()));
        }
        data = crate::write::data_files(&m)
            .into_iter()
            .map(|(_, file)| file)
            .collect();
        free((m, shapes));
        let (d, n) = settings.apply(at.as_deref(), d);
        suppressed = n;
        d
    });
    Checked {
        report: FileReport { file, outcome },
        at: at.clone(),
        suppressed,
        data,
    }
}

/// Refuses a report or a baseline that would be written over a file the run reads (a model, its
/// external data, a configuration file, the baseline read), or both into one file. Writing the
/// baseline over the one read (`--baseline b.json --write-baseline b.json`) is how a baseline is
/// updated, and is allowed: it was read whole before the run, and what is recorded is every finding,
/// before the baseline filters them.
fn refuse_overwrites(args: &CheckArgs, inputs: &Inputs) -> Result<(), String> {
    let say = |e: anyhow::Error| format!("{e:#}");
    if let Some(report) = &args.output_file {
        inputs.refuse(report, "the report").map_err(say)?;
    }
    if let Some(b) = &args.write_baseline {
        let updating = args
            .baseline
            .as_deref()
            .is_some_and(|old| same_file(old, b));
        if !updating {
            inputs.refuse(b, "the baseline").map_err(say)?;
        }
        if let Some(report) = &args.output_file
            && (report == b || same_file(report, b))
        {
            return Err(format!(
                "refusing to write the report and the baseline to one file, {}; nothing was written",
                b.display()
            ));
        }
    }
    Ok(())
}

/// The state of a run that models are reported into, in order, on the thread that writes.
struct Run<'a> {
    args: &'a CheckArgs,
    paint: render::Paint,
    progress: &'a Progress,
    summary: Summary,
    hidden: Hidden,
    kept: Vec<FileReport>,
    baseline: Option<Baseline>,
    recorder: Option<Recorder>,
    /// The files read so far, which no output may replace.
    inputs: Inputs,
}

impl Run<'_> {
    /// Records a checked model in the baseline being written, takes out what the baseline holds,
    /// counts and writes its report.
    fn settle(&mut self, c: Checked, out: &mut Sink) -> std::io::Result<()> {
        let Checked {
            mut report,
            at,
            suppressed,
            data,
        } = c;
        for d in &data {
            self.inputs.add("the external data", d);
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
        emit(
            &report,
            self.args,
            self.paint,
            out,
            self.progress,
            &mut self.kept,
        )?;
        self.progress.inc();
        Ok(())
    }
}

/// `--jobs` is capped at this many threads per core.
pub const MAX_JOBS_PER_CORE: usize = 4;

/// Checks the models on `jobs` threads and reports them in their order: each worker takes the next
/// model not yet taken, and the results that arrive early wait (as reports: the models are freed by
/// the worker) until those before them are written. The output is the one-job output, byte for byte.
///
/// The models' settings are found here (`plan_one`) while the workers start on those already
/// planned: the plan walks every model's folders for configuration files, ~5 ms for 200 models, a
/// core's idle time otherwise. Nothing is written until the whole plan stands: a bad configuration
/// (`Err`, its message) stops the run with nothing reported, as with one job.
fn in_parallel(
    targets: Vec<Target>,
    resolver: &mut Resolver,
    jobs: usize,
    parallel: bool,
    run: &mut Run<'_>,
    out: &mut Sink,
) -> Result<std::io::Result<()>, String> {
    use std::collections::BTreeMap;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicUsize, Ordering};
    // Each model's settings once planned; `None` for one cancelled (see `CancelOnDrop`).
    let planned: Vec<OnceLock<Option<Planned>>> = targets.iter().map(|_| OnceLock::new()).collect();
    let next = AtomicUsize::new(0);
    thread::scope(|scope| {
        // Every model still unplanned when this scope's work ends (a bad configuration, a panic)
        // is marked cancelled, so that no worker waits for it and the scope can end.
        let _release = CancelOnDrop(&planned);
        // Bounded, so that workers wait when the writer is behind rather than pile up reports;
        // room for what they check while the plan goes on.
        let (tx, rx) = mpsc::sync_channel::<(usize, Checked)>(jobs * 16);
        let mut started = 0;
        for k in 0..jobs {
            let tx = tx.clone();
            let (next, progress, planned) = (&next, run.progress, &planned);
            let worker = move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(Some(item)) = planned.get(i).map(OnceLock::wait) else {
                        break;
                    };
                    // A send fails only when the writer has stopped (the output is gone).
                    if tx
                        .send((i, check_one(item, parallel, progress, drop)))
                        .is_err()
                    {
                        break;
                    }
                }
            };
            if thread::Builder::new()
                .name(format!("check-{k}"))
                .spawn_scoped(scope, worker)
                .is_ok()
            {
                started += 1;
            }
        }
        drop(tx);
        for (slot, target) in planned.iter().zip(targets) {
            // Set once, here: `set` fails only on a slot already set, which none is.
            let _ = slot.set(Some(plan_one(target, resolver)?));
        }
        let settled = (|| {
            let mut early = BTreeMap::new();
            let mut want = 0;
            for (i, checked) in rx.iter() {
                early.insert(i, checked);
                while let Some(c) = early.remove(&want) {
                    run.settle(c, out)?;
                    want += 1;
                }
            }
            // No worker could be started (the system refused threads): check here, one at a time.
            if started == 0 {
                for item in planned[want..].iter().filter_map(|p| p.get()?.as_ref()) {
                    run.settle(check_one(item, parallel, run.progress, drop), out)?;
                }
            }
            Ok(())
        })();
        Ok(settled)
    })
}

/// Marks the models of [`in_parallel`] not yet planned as cancelled (`None`) when dropped, so that
/// no worker waits for them (see there).
struct CancelOnDrop<'a>(&'a [std::sync::OnceLock<Option<Planned>>]);

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        for p in self.0 {
            // Fails only on a model planned already, which is left as it is.
            let _ = p.set(None);
        }
    }
}

/// The command line's rule flags as the top layer of settings (`--explicit` is `--extend-select B001`).
fn rule_layer(args: &CheckArgs) -> Result<RuleLayer, String> {
    let parse =
        |flag: &str, v: &[String]| Selector::parse_all(v).map_err(|e| format!("{flag}: {e}"));
    let mut extend_select = parse("--extend-select", &args.extend_select)?;
    if args.explicit {
        extend_select.extend(parse("--explicit", &["B001".to_owned()])?);
    }
    Ok(RuleLayer {
        select: args
            .select
            .as_deref()
            .map(|s| parse("--select", s))
            .transpose()?,
        extend_select,
        ignore: parse("--ignore", &args.ignore)?,
        error: parse("--error", &args.error)?,
        warn: parse("--warn", &args.warn)?,
    })
}

/// A flag, configuration or baseline that cannot be used: said on standard error, exit 2.
fn usage_error(e: &str) -> u8 {
    eprintln!("error: {}", escape(e));
    EXIT_UNLOADABLE
}

/// `--show-settings`: the settings in force for every model named, nothing checked.
fn show_settings(planned: &[Planned]) -> u8 {
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

/// Writes the block of one file as the format and flags ask (JSON and SARIF keep the report for the
/// one document written at the end; `--statistics` writes only the counts, at the end).
fn emit(
    report: &FileReport,
    args: &CheckArgs,
    paint: render::Paint,
    out: &mut Sink,
    progress: &Progress,
    kept: &mut Vec<FileReport>,
) -> std::io::Result<()> {
    if args.statistics {
        return Ok(());
    }
    let block = match args.format {
        Format::Text if args.quiet => render::text_findings_painted(report, paint),
        Format::Text => render::text_file_painted(report, paint),
        Format::Github => render::github_file(report),
        Format::Json | Format::Sarif => {
            kept.push(FileReport {
                file: report.file.clone(),
                outcome: report.outcome.clone(),
            });
            String::new()
        }
    };
    if block.is_empty() {
        return Ok(());
    }
    progress.suspend(|| out.write_all(block.as_bytes()).and_then(|()| out.flush()))
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
    in_baseline: usize,
    /// The baseline keys of the files checked (for the baseline's stale entries).
    files: Vec<String>,
}

impl Hidden {
    fn say(&self, baseline: Option<&Baseline>, path: Option<&Path>) {
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
fn write_failed(e: &std::io::Error) -> u8 {
    if e.kind() != std::io::ErrorKind::BrokenPipe {
        eprintln!("error: cannot write the report: {e}");
    }
    EXIT_UNLOADABLE
}

/// `target` with the settings it is checked under, or why they cannot be had (a bad configuration).
fn plan_one(target: Target, resolver: &mut Resolver) -> Result<Planned, String> {
    Ok(match target {
        Target::Model(path, known) => {
            // Canonical paths found by the walk spare the plan ten `readlink`s a model.
            let at = known.or_else(|| model_path(&path));
            let settings = resolver.for_model_at(at.as_deref())?;
            Planned::Model(path, at, settings)
        }
        Target::Unreadable { path, error } => Planned::Unreadable { path, error },
    })
}

/// A [`Target`] with the settings it is checked under.
enum Planned {
    /// A model, its canonical path (`None` for standard input) and its settings.
    Model(PathBuf, Option<PathBuf>, Arc<Settings>),
    Unreadable {
        path: PathBuf,
        error: String,
    },
}

/// One thing `check` reports on: a model to load, or a folder that could not be searched.
#[derive(Debug, PartialEq, Eq)]
enum Target {
    /// A model, and its canonical path when the walk knows it (a regular file in folders walked
    /// from a canonical root: no symlink on the way).
    Model(PathBuf, Option<PathBuf>),
    Unreadable {
        path: PathBuf,
        error: String,
    },
}

/// The models the arguments name, in a stable order: an argument that is a folder (or a symlink to
/// one) stands for every `*.onnx` file under it, found by [`walk`]; any other argument (`-`, a file of
/// any extension, a path that does not exist) is a model, and loading it says what is wrong.
fn find_models(args: &[PathBuf]) -> Vec<Target> {
    let mut out = Vec::new();
    for arg in args {
        let is_dir = arg.as_os_str() != "-" && fs::metadata(arg).is_ok_and(|m| m.is_dir());
        if !is_dir {
            out.push(Target::Model(arg.clone(), None));
            continue;
        }
        let before = out.len();
        let canonical = fs::canonicalize(arg).ok();
        walk(arg, canonical.as_deref(), &mut Vec::new(), &mut out);
        if out.len() == before {
            eprintln!(
                "warning: no *.onnx file in {}",
                escape(&arg.display().to_string())
            );
        }
    }
    out
}

/// Appends the `*.onnx` files under `dir`, depth first, each folder's entries sorted by name (so a
/// run's output does not depend on the file system's order). Symlinks to folders are not followed (no
/// loop, no leaving the tree); a symlink to a regular file is checked, and one that resolves to nothing
/// is reported by the load. Other special files (FIFOs, sockets, devices) are skipped: reading a FIFO
/// would block. A folder that cannot be read is reported with its path.
/// `canonical` is `dir`'s canonical path, if known: then a regular file's is that and its name.
fn walk(
    dir: &Path,
    canonical: Option<&Path>,
    ancestors: &mut Vec<(u64, u64)>,
    out: &mut Vec<Target>,
) {
    // Without symlinks a folder can still be reached from itself through a bind mount.
    let id = fs::metadata(dir).ok().and_then(|m| identity(&m));
    if let Some(id) = id {
        if ancestors.contains(&id) {
            return;
        }
        ancestors.push(id);
    }
    let entries = fs::read_dir(dir).and_then(|rd| rd.collect::<Result<Vec<_>, _>>());
    let mut entries = match entries {
        Ok(e) => e,
        Err(e) => {
            out.push(Target::Unreadable {
                path: dir.to_owned(),
                error: format!("cannot read folder: {e}"),
            });
            if id.is_some() {
                ancestors.pop();
            }
            return;
        }
    };
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let file_type = match entry.file_type() {
            Ok(t) => t,
            Err(e) => {
                out.push(Target::Unreadable {
                    path,
                    error: format!("cannot stat: {e}"),
                });
                continue;
            }
        };
        // An entry that is not a symlink: its canonical path is its folder's and its name.
        let canonical_entry = || canonical.map(|c| c.join(entry.file_name()));
        if file_type.is_dir() {
            walk(&path, canonical_entry().as_deref(), ancestors, out);
        } else if is_onnx(&path) {
            let wanted = file_type.is_file()
                || (file_type.is_symlink()
                    // A dangling or looping link is kept: the load says why it cannot be read.
                    && fs::metadata(&path).map_or(true, |m| m.is_file()));
            if wanted {
                let known = file_type.is_file().then(canonical_entry).flatten();
                out.push(Target::Model(path, known));
            }
        }
    }
    if id.is_some() {
        ancestors.pop();
    }
}

fn is_onnx(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("onnx"))
}

#[cfg(unix)]
fn identity(m: &fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(_: &fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// Frees models (with their inferred shapes, when kept) on one other thread: a graph of a million nodes
/// takes a noticeable time to drop, and nothing waits for it. The channel holds one model, so however
/// many files a run has, at most three models are alive at once (being checked, waiting, being freed).
/// The last is not given to it but left to the process's exit (see [`check`]).
#[derive(Default)]
struct Dropper {
    tx: Option<mpsc::SyncSender<(Model, Vec<GraphShapes>)>>,
}

impl Dropper {
    fn free(&mut self, m: (Model, Vec<GraphShapes>)) {
        if self.tx.is_none() {
            let (tx, rx) = mpsc::sync_channel::<(Model, Vec<GraphShapes>)>(1);
            let spawned = thread::Builder::new()
                .name("drop-models".into())
                .spawn(move || rx.into_iter().for_each(drop));
            if spawned.is_ok() {
                self.tx = Some(tx);
            }
        }
        match &self.tx {
            // A failed send hands the model back; it is dropped here.
            Some(tx) => drop(tx.send(m)),
            None => drop(m),
        }
    }
}

/// How long a run goes before its progress bar appears: a short run prints nothing.
const PROGRESS_DELAY: Duration = Duration::from_secs(1);

/// A progress bar on standard error, only when that is a terminal and there is more than one model,
/// and only once the run has lasted [`PROGRESS_DELAY`]. Otherwise (pipes, CI logs, one model) a hidden
/// bar that draws nothing.
struct Progress {
    bar: ProgressBar,
    /// Dropping the sender tells the thread that would show the bar that the run is over.
    shower: Option<(mpsc::Sender<()>, thread::JoinHandle<()>)>,
}

impl Progress {
    fn start(total: usize) -> Self {
        let bar = ProgressBar::hidden();
        if total < 2 || !std::io::stderr().is_terminal() {
            return Progress { bar, shower: None };
        }
        bar.set_length(total as u64);
        if let Ok(style) =
            ProgressStyle::with_template("{bar:30} {pos}/{len} models [{elapsed}] {wide_msg}")
        {
            bar.set_style(style);
        }
        let (tx, rx) = mpsc::channel::<()>();
        let shown = bar.clone();
        let shower = thread::Builder::new()
            .name("progress".into())
            .spawn(move || {
                if rx.recv_timeout(PROGRESS_DELAY) == Err(mpsc::RecvTimeoutError::Timeout) {
                    shown.set_draw_target(ProgressDrawTarget::stderr());
                    shown.enable_steady_tick(Duration::from_millis(200));
                }
            })
            .ok()
            .map(|h| (tx, h));
        Progress { bar, shower }
    }

    fn set_message(&self, msg: String) {
        self.bar.set_message(msg);
    }

    fn inc(&self) {
        self.bar.inc(1);
    }

    /// Runs `f` (which writes to standard output) with the bar wiped, then draws it again.
    fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Wipes the bar, if it was shown, before the last of the output.
    fn finish(self) {
        if let Some((tx, handle)) = self.shower {
            drop(tx);
            let _ = handle.join();
        }
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn models(targets: &[Target], root: &Path) -> Vec<String> {
        targets
            .iter()
            .map(|t| match t {
                Target::Model(p, _) => p.strip_prefix(root).unwrap().display().to_string(),
                Target::Unreadable { path, .. } => format!("!{}", path.display()),
            })
            .collect()
    }

    #[test]
    fn folders_are_searched_for_onnx_files_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in [
            "b.onnx",
            "a.ONNX",
            "notes.txt",
            "sub/z.onnx",
            "sub/deeper/y.onnx",
            "a0/x.onnx",
        ] {
            let p = root.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, b"").unwrap();
        }
        let found = find_models(&[root.to_owned()]);
        assert_eq!(
            models(&found, root),
            [
                "a.ONNX",
                "a0/x.onnx",
                "b.onnx",
                "sub/deeper/y.onnx",
                "sub/z.onnx"
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_to_folders_are_not_followed_but_links_to_files_are() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir(root.join("sub")).unwrap();
        fs::write(root.join("sub/m.onnx"), b"").unwrap();
        std::os::unix::fs::symlink("..", root.join("sub/up")).unwrap();
        std::os::unix::fs::symlink("m.onnx", root.join("sub/link.onnx")).unwrap();
        std::os::unix::fs::symlink("nowhere", root.join("sub/dangling.onnx")).unwrap();
        std::os::unix::fs::symlink("sub", root.join("dir.onnx")).unwrap();
        let found = find_models(&[root.to_owned()]);
        assert_eq!(
            models(&found, root),
            ["sub/dangling.onnx", "sub/link.onnx", "sub/m.onnx"]
        );
        // The walk's canonical paths: a regular file's is what the file system says; a link's is
        // left to be found (it is the file linked to).
        let known: Vec<_> = found
            .iter()
            .map(|t| match t {
                Target::Model(_, known) => known.clone(),
                Target::Unreadable { .. } => None,
            })
            .collect();
        let m = fs::canonicalize(root.join("sub/m.onnx")).unwrap();
        assert_eq!(known, [None, None, Some(m)]);
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_reached_through_a_symlink_gives_the_canonical_paths_of_its_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("real/a")).unwrap();
        fs::write(root.join("real/a/m.onnx"), b"").unwrap();
        std::os::unix::fs::symlink("real", root.join("via")).unwrap();
        let found = find_models(&[root.join("via/./a/..")]);
        let [Target::Model(path, Some(known))] = &found[..] else {
            panic!("one model with a known canonical path: {found:?}");
        };
        assert_eq!(known, &fs::canonicalize(path).unwrap());
        assert!(known.ends_with("real/a/m.onnx"), "{}", known.display());
    }
}
