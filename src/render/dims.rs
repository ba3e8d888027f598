//! The sizes report (`onnx-lint dims`, [`crate::shape::sizes`]) as text and as JSON. The JSON's
//! shape is documented in `docs/sizes-report.md`; the Python `dims()` returns the same structure.

use crate::shape::bindings::Domain;
use crate::shape::conditions::{Decided, Source};
use crate::shape::counterexample::Validity;
use crate::shape::ranges::{SetForm, Verdict, list, periodic_text, run_text};
use crate::shape::sizes::{Judged, Report, SymbolReport, ValueSet};
use serde_json::{Value, json};

/// The report as text, one block per symbol (`model` names the file in the closing line).
pub fn dims_text(model: &str, r: &Report) -> String {
    let mut out = String::new();
    for s in &r.symbols {
        let at: Vec<String> = s
            .appears
            .iter()
            .map(|a| {
                let declared = if a.declared == s.name {
                    String::new()
                } else {
                    format!(" ({})", a.declared)
                };
                format!("input '{}' axis {}{declared}", a.input, a.axis)
            })
            .collect();
        line(&mut out, format!("{}: {}", s.name, at.join(", ")));
        for &i in s.alone.iter().chain(&s.joint) {
            condition_lines(&mut out, &r.conditions[i], r);
        }
        line(&mut out, format!("  {}", values_line(s)));
    }
    if !r.other.is_empty() {
        line(&mut out, "conditions on no input symbol:".to_owned());
        for &i in &r.other {
            condition_lines(&mut out, &r.conditions[i], r);
        }
    }
    let errors = r.errors.len();
    if errors > 0 {
        line(&mut out, errors_text(r));
    }
    let n = r.symbols.len();
    let c = r.conditions.len();
    line(
        &mut out,
        format!(
            "{model}: {n} input symbol{}, {c} condition{}",
            plural(n),
            plural(c)
        ),
    );
    out
}

/// Adds one line, escaped: names and sizes come from the model.
fn line(out: &mut String, text: String) {
    out.push_str(&crate::render::escape(&text));
    out.push('\n');
}

/// What the errors of inference mean for the sizes: each holds whatever the symbols' values.
fn errors_text(r: &Report) -> String {
    let n = r.errors.len();
    let fixed = r
        .symbols
        .iter()
        .any(|s| matches!(s.bound, Some(Domain::Fixed(_))));
    format!(
        "{n} error{} found by inference, whatever the values of the symbols{}: no input sizes run \
         this model (`onnx-lint check` lists {})",
        plural(n),
        if fixed { " left free" } else { "" },
        if n == 1 { "it" } else { "them" }
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `W1 'add' (Add), multidirectional (numpy) broadcasting, axis -2: needs ...`, then its verdict.
fn condition_lines(out: &mut String, j: &Judged, r: &Report) {
    let c = &j.condition;
    let code = code(j).unwrap_or("--");
    let inner = c
        .inner_node
        .as_ref()
        .map_or_else(String::new, |n| format!(" (node '{n}' of its function)"));
    let axis = c.axis.map_or_else(String::new, |a| format!(", axis {a}"));
    line(
        out,
        format!(
            "  {code} '{}' ({}){inner}, {}{axis}: {}",
            c.node.as_deref().unwrap_or(""),
            c.op_type.as_deref().unwrap_or(""),
            source_text(c.source),
            c.text
        ),
    );
    line(out, format!("     {}", verdict_text(j, r)));
}

fn source_text(s: Source) -> String {
    match s {
        Source::Broadcast(rule) => rule.to_owned(),
        Source::Contract(c) => format!("contract {} ({})", c.name, c.requires),
    }
}

/// The code `check` gives the condition without ranges: W1/W2, E1/E2, or none (it holds where the
/// nodes before it run).
fn code(j: &Judged) -> Option<&'static str> {
    let contract = matches!(j.condition.source, Source::Contract(_));
    match (j.condition.decided, contract) {
        (Decided::Finding, false) => Some("W1"),
        (Decided::Finding, true) => Some("W2"),
        (Decided::Never, false) => Some("E1"),
        (Decided::Never, true) => Some("E2"),
        (Decided::Quiet, _) => None,
    }
}

/// The domains of a condition's symbols: `seq in 1..=65536, batch in 1..=8`.
fn domains(j: &Judged, r: &Report) -> String {
    j.symbols
        .iter()
        .map(|n| {
            let d = r
                .symbols
                .iter()
                .find(|s| &s.name == n)
                .map_or(crate::shape::sizes::DEFAULT_DOMAIN, |s| s.domain);
            format!("{n} in {d}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn verdict_text(j: &Judged, r: &Report) -> String {
    let quiet = if j.condition.decided == Decided::Quiet {
        " (no finding: it holds wherever the nodes before it run, as far as the search tried)"
    } else {
        ""
    };
    match (&j.verdict, j.condition.decided) {
        (_, Decided::Never) => "fails for every value: an error in check".to_owned(),
        (None, _) => format!("not judged (a size is unknown or no input's){quiet}"),
        (Some(Verdict::Holds), _) => format!("holds for every {}{quiet}", domains(j, r)),
        (Some(Verdict::FailsAll(over)), _) => format!("fails for every {over}{quiet}"),
        (Some(Verdict::Clause(c)), _) => format!("over {}: {c}{quiet}", domains(j, r)),
    }
}

/// The closing line of a symbol: its values with no finding.
fn values_line(s: &SymbolReport) -> String {
    let Some(set) = &s.no_finding else {
        return match s.bound {
            Some(Domain::Fixed(v)) => format!("fixed to {v} (--dim): its sizes are numbers"),
            _ => "no values tried".to_owned(),
        };
    };
    let shared = if s.joint.is_empty() {
        ""
    } else {
        ", where the conditions it shares with other symbols hold"
    };
    let tried = tried_text(&s.name, s.domain, set);
    match (s.alone.is_empty(), s.joint.is_empty()) {
        (true, true) => return "any value: no condition on it".to_owned(),
        (true, false) => {
            return "no condition on it alone: its values are limited only jointly, as above"
                .to_owned();
        }
        _ => {}
    }
    if set.count == 0 {
        return format!(
            "no value without a finding: every value fails a condition on it ({tried})"
        );
    }
    if set.count == set.to - set.from + 1 {
        return format!("no finding for any value ({tried}){shared}");
    }
    format!(
        "no finding for {} ({tried}){shared}",
        set_text(&s.name, set)
    )
}

fn tried_text(name: &str, domain: Domain, set: &ValueSet) -> String {
    if set.complete {
        format!("every value of {name} in {domain} tried")
    } else {
        format!(
            "only {name} in {}..={} tried of {domain}, larger values not checked",
            set.from, set.to
        )
    }
}

/// A set of values of `name`, as the check's texts say sets.
pub fn set_text(name: &str, set: &ValueSet) -> String {
    let intervals =
        |runs: &[(u64, u64)]| list(&runs.iter().map(|r| run_text(*r)).collect::<Vec<_>>());
    match &set.form {
        // Single values: `N = 1 or 4`.
        SetForm::Intervals(runs) if runs.iter().all(|(a, b)| a == b) => {
            let values: Vec<String> = runs.iter().map(|(a, _)| a.to_string()).collect();
            match values.split_last() {
                Some((last, [])) => format!("{name} = {last}"),
                Some((last, init)) => format!("{name} = {} or {last}", init.join(", ")),
                None => format!("no value of {name}"),
            }
        }
        SetForm::Intervals(runs) => format!("{name} in {}", intervals(runs)),
        SetForm::Residue { k, r: 0 } => format!("{name} a multiple of {k}"),
        SetForm::Residue { k, r } => format!("{name} with {name} mod {k} = {r}"),
        SetForm::AllBut { k, r: 0 } => format!("{name} not a multiple of {k}"),
        SetForm::AllBut { k, r } => format!("{name} with {name} mod {k} other than {r}"),
        SetForm::Periodic {
            before,
            from,
            to,
            period,
            residues,
        } => {
            let mut parts: Vec<String> = before.iter().map(|r| run_text(*r)).collect();
            parts.push(periodic_text(name, *from, *to, *period, residues));
            format!("{name} in {}", list(&parts))
        }
        SetForm::Counted {
            intervals: n,
            first,
        } => format!(
            "{} values of {name}, in {n} intervals, the first {}",
            set.count,
            first
                .iter()
                .map(|r| run_text(*r))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The report as JSON (see `docs/sizes-report.md`).
pub fn dims_json(model: &str, r: &Report) -> Value {
    let symbols: Vec<Value> = r
        .symbols
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "appears": s.appears.iter().map(|a| json!({
                    "input": a.input,
                    "axis": a.axis,
                    "declared": a.declared,
                })).collect::<Vec<_>>(),
                "bound": s.bound.map(|d| d.to_string()),
                "domain": domain_json(s.domain),
                "alone": s.alone,
                "joint": s.joint,
                "no_finding": s.no_finding.as_ref().map(|set| set_json(&s.name, set)),
                "text": values_line(s),
            })
        })
        .collect();
    let conditions: Vec<Value> = r
        .conditions
        .iter()
        .enumerate()
        .map(|(i, j)| condition_json(i, j, r))
        .collect();
    json!({
        "model": model,
        "symbols": symbols,
        "conditions": conditions,
        "other": r.other,
        "errors": r.errors,
    })
}

fn domain_json(d: Domain) -> Value {
    match d {
        Domain::Fixed(v) => json!({"from": v, "to": v}),
        Domain::Range { lo, hi } => json!({"from": lo, "to": hi}),
    }
}

fn set_json(name: &str, set: &ValueSet) -> Value {
    let residue = match set.form {
        SetForm::Residue { k, r } => Some(json!({"modulus": k, "remainder": r})),
        _ => None,
    };
    json!({
        "text": set_text(name, set),
        "from": set.from,
        "to": set.to,
        "complete": set.complete,
        "count": set.count,
        "intervals": set.intervals.iter().map(|(a, b)| [a, b]).collect::<Vec<_>>(),
        "intervals_total": set.intervals_total,
        "residue": residue,
    })
}

fn condition_json(index: usize, j: &Judged, r: &Report) -> Value {
    let c = &j.condition;
    let (kind, rule, contract) = match c.source {
        Source::Broadcast(rule) => ("broadcast", rule, None),
        Source::Contract(k) => ("contract", k.requires, Some(k.name)),
    };
    let (requires, multiple_of) = match c.validity {
        Validity::Multi => ("broadcast", None),
        Validity::Onto => ("broadcast-onto", None),
        Validity::Equal => ("equal", None),
        Validity::MultipleOf(k) => ("multiple-of", Some(k)),
    };
    let decided = match c.decided {
        Decided::Finding => "finding",
        Decided::Quiet => "quiet",
        Decided::Never => "never",
    };
    let verdict = match (&j.verdict, c.decided) {
        (_, Decided::Never) => "fails-all",
        (None, _) => "not-judged",
        (Some(Verdict::Holds), _) => "holds",
        (Some(Verdict::FailsAll(_)), _) => "fails-all",
        (Some(Verdict::Clause(_)), _) => "fails-some",
    };
    json!({
        "index": index,
        "graph": c.graph,
        "node": c.node,
        "op_type": c.op_type,
        "inner_node": c.inner_node,
        "kind": kind,
        "rule": rule,
        "contract": contract,
        "axis": c.axis,
        "sizes": c.dims.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "requires": requires,
        "multiple_of": multiple_of,
        "condition": c.text,
        "symbols": j.symbols,
        "decided": decided,
        "code": code(j),
        "verdict": verdict,
        "verdict_text": verdict_text(j, r),
    })
}
