//! `onnx-lint check`: find the models (files, folders searched for `*.onnx`, standard input) and the
//! settings of each, load and check them, filter the findings (settings, baseline), render them, pick
//! the exit status.
//!
//! `--jobs N` models are checked at once, each freed as soon as its findings are taken: a folder of
//! thousands of models needs the memory of N (plus the findings, for JSON and SARIF, which are one
//! document). Reports are written in the models' order whatever the number of jobs, text and GitHub
//! output file by file as the run goes.
//!
//! The parts: [`discovery`] (which models, under which settings), [`scheduling`] (how many at
//! once), [`reporting`] (what is said, in which order, and the exit status), [`progress`] (the bar).

mod discovery;
mod progress;
mod reporting;
mod scheduling;

use super::{CheckArgs, ColorChoice, EXIT_UNLOADABLE, load_error, load_with};
use crate::diagnostics::Code;
use crate::file::Origin;
use crate::lint::{Findings, LoadOptions};
use crate::passes::explicit_broadcast::{Options, implicit_broadcasts};
use crate::render::{FileReport, escape};
use crate::settings::baseline::Baseline;
use crate::settings::{Resolver, RuleLayer, Selector, SettingsError};
use crate::shape::bindings::Bindings;
use anyhow::Context;
use discovery::Planned;
use progress::Progress;
use reporting::{Checked, Run};
use scheduling::{Dropper, Jobs};

pub(super) fn check(args: &CheckArgs, color: ColorChoice) -> u8 {
    let resolver = rule_layer(args)
        .and_then(|cli| Ok(Resolver::new(cli, args.config.as_deref(), args.isolated)?));
    let mut resolver = match resolver {
        Ok(r) => r,
        Err(e) => return usage_error(&e),
    };
    let dims = match super::parse_dims(&args.dims) {
        Ok(d) => d,
        Err(e) => return usage_error(&anyhow::anyhow!(e)),
    };
    let targets = discovery::find_models(&args.models, Jobs::threads(args.jobs));
    let inputs = reporting::inputs_known(args, &targets);
    if let Err(e) = reporting::refuse_overwrites(args, &inputs) {
        return usage_error(&e);
    }
    if args.show_settings {
        return match discovery::plan(targets, &mut resolver) {
            Ok(planned) => reporting::show_settings(&planned),
            Err(e) => usage_error(&e.into()),
        };
    }
    let baseline = match args.baseline.as_deref().map(Baseline::read).transpose() {
        Ok(b) => b,
        Err(e) => return usage_error(&e.into()),
    };
    // Every model's settings before any output: a bad configuration stops the run with nothing
    // half-reported.
    let planned = match discovery::plan(targets, &mut resolver) {
        Ok(p) => p,
        Err(e) => return usage_error(&e.into()),
    };
    let jobs = Jobs::new(args.jobs, planned.len());
    let progress = Progress::start(planned.len());
    let mut run = Run::new(args, color, baseline, inputs);
    let dropper = Dropper::new(&jobs, planned.len());
    let reported = scheduling::in_order(
        &planned,
        jobs.models,
        |item| check_one(item, &dims, jobs.parallel, &progress, &dropper),
        &mut run,
        |run, checked| run.settle(checked, &progress),
        Run::flush,
    )
    .and_then(|()| run.unused_suppressions(&resolver, &progress));
    progress.finish();
    match reported {
        Ok(()) => run.end(&resolver),
        Err(e) => reporting::write_failed(&e),
    }
}

/// Loads and checks one model under its settings; the model is freed (by `dropper`) as soon as its
/// findings are out of it.
fn check_one(
    item: &Planned,
    cli_dims: &Bindings,
    parallel: bool,
    progress: &Progress,
    dropper: &Dropper,
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
                proven: 0,
            };
        }
    };
    let file = Origin::from_arg(path).display();
    progress.set_message(|| escape(&file));
    // Findings only, unless B001 needs every value's shape afterwards.
    let b001 = settings.wants(at.as_deref(), Code::ImplicitBroadcast);
    // The configuration's sizes with the command line's over them; none (nearly every run) is no
    // work at all.
    let dims = settings.dims_for(at.as_deref()).with(cli_dims);
    let opts = LoadOptions {
        keep_shapes: b001,
        keep_names: false,
        parallel,
        dims: (!dims.is_empty()).then(|| std::sync::Arc::new(dims)),
        interface: settings
            .interface_for(at.as_deref())
            .map(std::sync::Arc::new),
    };
    let mut proven = 0;
    let mut suppressed = 0;
    let mut data = Vec::new();
    let loaded = load_with(path, &opts).map_err(|e| load_error(&e));
    let outcome = loaded.map(|(m, found)| {
        let Findings {
            diagnostics: mut d,
            shapes,
            proven: p,
        } = found;
        proven = p;
        if b001 {
            d.extend(implicit_broadcasts(&m, &shapes, &Options::default()));
        }
        data = crate::write::data_files(&m)
            .into_iter()
            .map(|(_, file)| file)
            .collect();
        dropper.free((m, shapes));
        let (d, n) = settings.apply(at.as_deref(), d);
        suppressed = n;
        d
    });
    Checked {
        report: FileReport { file, outcome },
        at: at.clone(),
        suppressed,
        data,
        proven,
    }
}

/// The command line's rule flags as the top layer of settings (`--explicit` is `--extend-select B001`).
fn rule_layer(args: &CheckArgs) -> anyhow::Result<RuleLayer> {
    let parse = |flag: &str, v: &[String]| Selector::parse_all(v).context(flag.to_owned());
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
fn usage_error(e: &anyhow::Error) -> u8 {
    eprintln!("error: {}", error_text(e));
    EXIT_UNLOADABLE
}

/// `e` as printed: escaped (a path in it may hold control characters), but a parser's message of
/// several lines (TOML's diagram: the line of the file, a caret under the bad key) keeps its line
/// breaks, each of its lines escaped on its own.
fn error_text(e: &anyhow::Error) -> String {
    let text = format!("{e:#}");
    let diagram = e
        .downcast_ref::<SettingsError>()
        .and_then(SettingsError::parser_message)
        .filter(|m| m.contains('\n'));
    let Some((before, message)) = diagram.and_then(|m| Some((text.strip_suffix(m.as_str())?, m)))
    else {
        return escape(&text);
    };
    let lines: Vec<String> = message.trim_end().lines().map(escape).collect();
    format!("{}{}", escape(before), lines.join("\n"))
}
