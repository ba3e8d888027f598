//! The sizes report (`onnx-lint dims`): every input symbol of a model, where it appears, the
//! conditions the model puts on it and where each comes from, and the values at which the model has
//! no finding.
//!
//! The conditions are the inference's own: a run of [`infer_recording`] records each condition the
//! rules decide, where they decide it ([`super::conditions`]), and nothing here derives a shape
//! rule. A symbol bound to a range (`--dim seq=1..8192`) or not bound at all (judged over
//! [`DEFAULT_DOMAIN`]) is a symbol during that run; each condition is then judged over the domains
//! of its symbols as `check --dim` judges it ([`super::ranges::judge`]), and the values of one
//! symbol with no finding are those that pass every condition on that symbol alone, found by
//! trying each value. A condition tying several symbols is said jointly, never split into a set per
//! symbol. An axis declared `-1` or without a value is bound by its positional name (`x[3]`), as
//! `--dim x[3]=1..` would, so that it is a symbol the conditions can name.

use super::bindings::{Bindings, Domain};
use super::conditions::{Condition, Conditions, Decided};
use super::counterexample::{Validity, fails_with};
use super::dim::Dim;
use super::infer::infer_recording;
use super::ranges::{PER_SYMBOL, SetForm, Verdict, judge, set_form};
use super::value::{ANONYMOUS, dim_from_proto};
use crate::diagnostics::{Diagnostic, Severity};
use crate::ir::Model;
use crate::proto::tensor_shape_proto::dimension::Value as DimValue;
use std::collections::HashMap;

/// The values of a symbol nobody binds: the sizes the report tries (as many as `check --dim`
/// tries of one range, every one).
pub const DEFAULT_DOMAIN: Domain = Domain::Range {
    lo: 1,
    hi: Some(PER_SYMBOL),
};

/// Most intervals of a set of values kept in full (the JSON's `intervals`); the count says how many
/// there are.
pub const MAX_INTERVALS: usize = 64;

/// The sizes report of one model.
#[derive(Debug)]
pub struct Report {
    /// Every input symbol, in the order the inputs (and their axes) name them.
    pub symbols: Vec<SymbolReport>,
    /// Every condition recorded, in the order inference met them; symbols refer to them by index.
    pub conditions: Vec<Judged>,
    /// The conditions on no input symbol (sizes that are numbers, or sizes computed from something
    /// else than an input): indices into `conditions`.
    pub other: Vec<usize>,
    /// The errors inference found (E1, E2, E3...), which `check` reports.
    pub errors: Vec<Diagnostic>,
}

/// One axis of a graph input that a symbol appears in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Appearance {
    pub input: String,
    pub axis: usize,
    /// The size declared there, as printed (`seq`, `2*h2`, `x[3]` for an axis without a name).
    pub declared: String,
}

/// One input symbol.
#[derive(Debug)]
pub struct SymbolReport {
    pub name: String,
    pub appears: Vec<Appearance>,
    /// The binding of the run (`--dim`), if any.
    pub bound: Option<Domain>,
    /// The values the report considers: the bound range, or [`DEFAULT_DOMAIN`].
    pub domain: Domain,
    /// The conditions on it alone, then those it shares with other symbols: indices into
    /// [`Report::conditions`].
    pub alone: Vec<usize>,
    pub joint: Vec<usize>,
    /// The values, of those tried, at which no condition on it alone fails; `None` for a symbol
    /// fixed by the run (its sizes are numbers: only `Report::other` can fail them).
    pub no_finding: Option<ValueSet>,
}

/// A condition and what it comes to over the domains of its symbols.
#[derive(Debug)]
pub struct Judged {
    pub condition: Condition,
    /// Its input symbols, sorted.
    pub symbols: Vec<String>,
    /// Its verdict over the domains, as `check --dim` says it; `None` when a size is unknown or a
    /// symbol is no input's.
    pub verdict: Option<Verdict>,
}

/// A set of values of one symbol, from the values `from..=to` tried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueSet {
    pub from: u64,
    pub to: u64,
    /// Every value of the domain was tried (false for an open range or one of more than
    /// [`PER_SYMBOL`] values: nothing is said of the values past `to`).
    pub complete: bool,
    pub count: u64,
    /// Its intervals, the first [`MAX_INTERVALS`].
    pub intervals: Vec<(u64, u64)>,
    /// How many intervals it has.
    pub intervals_total: usize,
    /// How it is said.
    pub form: SetForm,
}

/// The sizes report of `model` with its symbols bound as `dims` says (the caller has checked the
/// names, [`Bindings::check_names`]).
pub fn report(model: &Model, dims: &Bindings) -> Report {
    let appearances = appearances(model);
    // Every axis without a name becomes a symbol of its positional name, unless the run binds it.
    let mut bound = dims.clone();
    for a in &appearances {
        if a.symbol == format!("{}[{}]", a.input, a.axis) && dims.get(&a.symbol).is_none() {
            bound.insert(a.symbol.clone(), Domain::Range { lo: 1, hi: None });
        }
    }
    let recorder = Conditions::default();
    let inference = infer_recording(model, &bound, &recorder);
    let errors: Vec<Diagnostic> = inference
        .diagnostics
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    let mut names: Vec<String> = Vec::new();
    for a in &appearances {
        if !names.contains(&a.symbol) {
            names.push(a.symbol.clone());
        }
    }
    let domain_of = |n: &str| dims.get(n).unwrap_or(DEFAULT_DOMAIN);
    // The domains as ranges, for the judge: an unbound symbol over the default one.
    let mut over = Bindings::default();
    for n in &names {
        if let d @ Domain::Range { .. } = domain_of(n) {
            over.insert(n.clone(), d);
        }
    }
    // The same condition recurs at every layer of a network: judged once.
    let mut judged: HashMap<(Vec<Dim>, Validity), Option<Verdict>> = HashMap::new();
    let conditions: Vec<Judged> = recorder
        .into_inner()
        .into_iter()
        .map(|condition| {
            let symbols: Vec<String> = condition.symbols().into_iter().map(str::to_owned).collect();
            let inputs_only = symbols.iter().all(|s| names.contains(s));
            let verdict = match condition.decided {
                // No value satisfies it: whatever the domain.
                Decided::Never => Some(Verdict::FailsAll(String::new())),
                _ if inputs_only => judged
                    .entry((condition.dims.clone(), condition.validity))
                    .or_insert_with(|| {
                        let dims: Vec<&Dim> = condition.dims.iter().collect();
                        judge(&dims, condition.validity, &over)
                    })
                    .clone(),
                _ => None,
            };
            Judged {
                condition,
                symbols,
                verdict,
            }
        })
        .collect();
    let other: Vec<usize> = (0..conditions.len())
        .filter(|&i| {
            let s = &conditions[i].symbols;
            s.is_empty() || !s.iter().any(|s| names.contains(s))
        })
        .collect();
    let symbols = names
        .iter()
        .map(|name| {
            let on: Vec<usize> = (0..conditions.len())
                .filter(|&i| conditions[i].symbols.contains(name))
                .collect();
            let (alone, joint): (Vec<usize>, Vec<usize>) = on
                .into_iter()
                .partition(|&i| conditions[i].symbols.len() == 1);
            let bound = dims.get(name);
            let domain = domain_of(name);
            let no_finding = match domain {
                Domain::Fixed(_) => None,
                Domain::Range { lo, hi } => Some(passing(name, lo, hi, &alone, &conditions)),
            };
            SymbolReport {
                name: name.clone(),
                appears: appearances
                    .iter()
                    .filter(|a| &a.symbol == name)
                    .map(|a| Appearance {
                        input: a.input.clone(),
                        axis: a.axis,
                        declared: a.declared.clone(),
                    })
                    .collect(),
                bound,
                domain,
                alone,
                joint,
                no_finding,
            }
        })
        .collect();
    Report {
        symbols,
        conditions,
        other,
        errors,
    }
}

/// The values of `name` from `lo` (up to `hi`, at most [`PER_SYMBOL`] of them) at which none of the
/// conditions `alone` fails.
fn passing(name: &str, lo: u64, hi: Option<u64>, alone: &[usize], all: &[Judged]) -> ValueSet {
    let last = lo.saturating_add(PER_SYMBOL - 1);
    let to = hi.map_or(last, |h| h.min(last));
    let never = alone
        .iter()
        .any(|&i| all[i].condition.decided == Decided::Never);
    // Each distinct condition once.
    let mut distinct: Vec<(Vec<&Dim>, Validity)> = Vec::new();
    for &i in alone {
        let c = &all[i].condition;
        let key = (c.dims.iter().collect::<Vec<_>>(), c.validity);
        if !distinct.contains(&key) {
            distinct.push(key);
        }
    }
    let mut sizes = Vec::new();
    let members: Vec<bool> = (lo..=to)
        .map(|v| {
            let v = i64::try_from(v).ok();
            let env = |s: &str| if s == name { v } else { None };
            !never
                && distinct
                    .iter()
                    .all(|(dims, rule)| fails_with(dims, *rule, &env, &mut sizes).is_none())
        })
        .collect();
    let runs = super::ranges::runs(lo, &members);
    ValueSet {
        from: lo,
        to,
        complete: hi == Some(to),
        count: members.iter().filter(|&&m| m).count() as u64,
        intervals_total: runs.len(),
        intervals: runs.into_iter().take(MAX_INTERVALS).collect(),
        form: set_form(lo, &members, true),
    }
}

/// One symbol at one axis of a graph input.
struct Seen {
    symbol: String,
    input: String,
    axis: usize,
    declared: String,
}

/// The symbols of the main graph's inputs, axis by axis, in input order (an input with an
/// initializer of its name is a weight, not a size fed).
fn appearances(model: &Model) -> Vec<Seen> {
    use crate::proto::type_proto::Value as V;
    let Some(g) = &model.graph else {
        return Vec::new();
    };
    let initialized: std::collections::HashSet<&str> =
        g.header.initializer.iter().map(|t| t.name()).collect();
    let mut out = Vec::new();
    for input in &g.header.input {
        if initialized.contains(input.name()) {
            continue;
        }
        let Some(V::TensorType(t)) = input.r#type.as_ref().and_then(|t| t.value.as_ref()) else {
            continue;
        };
        let Some(shape) = &t.shape else { continue };
        for (axis, d) in shape.dim.iter().enumerate() {
            let positional = format!("{}[{axis}]", input.name());
            let (symbols, declared) = match &d.value {
                Some(DimValue::DimValue(v)) if *v >= 0 => continue,
                Some(DimValue::DimParam(p)) if !p.is_empty() && p != ANONYMOUS => {
                    match dim_from_proto(d) {
                        Dim::Sym(e) => (
                            e.symbols().into_iter().map(str::to_owned).collect(),
                            e.to_string(),
                        ),
                        _ => (vec![p.clone()], p.clone()),
                    }
                }
                _ => (vec![positional.clone()], positional),
            };
            for symbol in symbols {
                out.push(Seen {
                    symbol,
                    input: input.name().to_owned(),
                    axis,
                    declared: declared.clone(),
                });
            }
        }
    }
    out
}
