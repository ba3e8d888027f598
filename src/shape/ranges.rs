//! The exact set of values, within the ranges a run binds (`--dim seq=1..8192`), at which a W1 or W2
//! condition fails: what turns "fails for seq = 513" into an error (every value of the range fails),
//! a proof (none does), or `fails for seq in 513..=8192 (smallest 513)`.
//!
//! The set is found by enumeration, so it is exact where every value is tried: up to
//! [`PER_SYMBOL`] values for one symbol, and [`TOTAL`] assignments for several (each symbol then
//! gets the same number of values, 512 for two, 64 for three). A larger or open range is tried from
//! its lower end as far as that, and the text says so: nothing is claimed of the values beyond. One
//! case is exact however large the range: a symbol against its clamped copy (`seq` and
//! `min(seq, 512)`), which fails exactly above the clamp.
//!
//! The set of one symbol is said as its intervals when they are few ([`FEW`]), as a residue when the
//! values that pass are exactly the multiples of a number (`fails unless H is a multiple of 32`),
//! and otherwise by its count, first intervals and smallest value.

use super::bindings::{Bindings, Domain, ranged_symbols};
use super::counterexample::{Validity, fails_with};
use super::dim::{Dim, SymExpr};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Most values of one symbol enumerated when it is the only one.
pub const PER_SYMBOL: u64 = 65_536;
/// Most assignments enumerated for several symbols.
pub const TOTAL: u64 = 1 << 18;
/// Most intervals a failing set is listed by in full.
pub const FEW: usize = 4;

/// The bindings of a run, and how many conditions they proved (counted for the summary).
#[derive(Debug, Default)]
pub struct Ranges {
    pub bindings: Bindings,
    proven: AtomicUsize,
}

impl Ranges {
    pub fn new(bindings: Bindings) -> Self {
        Ranges {
            bindings,
            proven: AtomicUsize::new(0),
        }
    }

    /// Counts a condition that holds at every value of the ranges.
    pub fn prove(&self) {
        self.proven.fetch_add(1, Ordering::Relaxed);
    }

    /// How many conditions held at every value of the ranges.
    pub fn proven(&self) -> usize {
        self.proven.load(Ordering::Relaxed)
    }

    /// [`judge`] under these bindings.
    pub fn judge(&self, dims: &[&Dim], rule: Validity) -> Option<Verdict> {
        judge(dims, rule, &self.bindings)
    }
}

/// What a condition comes to over the ranges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No value of the ranges fails (every one was tried).
    Holds,
    /// Every value fails; the text names the ranges: `seq in 4..=8`.
    FailsAll(String),
    /// The clause that replaces the search's: `fails for seq in 513..=8192 (smallest 513)`, or what
    /// was tried of a range too large to try in full.
    Clause(String),
}

/// The verdict on `dims` under `rule` when every symbol in them is bound to a range; `None` when a
/// symbol is free or a size unknown (the condition is then left as the search found it).
pub fn judge(dims: &[&Dim], rule: Validity, b: &Bindings) -> Option<Verdict> {
    let syms = ranged_symbols(dims, b)?;
    let bounds: Vec<(u64, Option<u64>)> = syms
        .iter()
        .map(|(_, d)| match *d {
            Domain::Range { lo, hi } => (lo, hi),
            Domain::Fixed(v) => (v, Some(v)),
        })
        .collect();
    let names: Vec<&str> = syms.iter().map(|(n, _)| *n).collect();
    if let ([name], [(lo, hi)]) = (names.as_slice(), bounds.as_slice())
        && let Some(c) = clamp(dims)
    {
        return Some(clamped(name, *lo, *hi, c));
    }
    let cap = cap_per_symbol(names.len());
    // The values tried of each symbol: `lo..=top`.
    let tops: Vec<u64> = bounds
        .iter()
        .map(|&(lo, hi)| {
            let last = lo.saturating_add(cap - 1);
            hi.map_or(last, |h| h.min(last))
        })
        .collect();
    let cut = bounds
        .iter()
        .zip(&tops)
        .any(|(&(_, hi), &top)| hi != Some(top));
    let tried = Tried {
        names: &names,
        bounds: &bounds,
        tops: &tops,
        cut,
        cap,
    };
    if let [name] = names.as_slice() {
        let (lo, top) = (bounds[0].0, tops[0]);
        let mut sizes = Vec::new();
        let fails: Vec<bool> = (lo..=top)
            .map(|v| {
                let v = i64::try_from(v).ok();
                fails_with(dims, rule, &|_| v, &mut sizes).is_some()
            })
            .collect();
        return Some(one_symbol(name, lo, &fails, &tried));
    }
    Some(several(dims, rule, &tried))
}

/// What was tried: the symbols, their ranges and the values of each enumerated (`lo..=top`).
struct Tried<'a> {
    names: &'a [&'a str],
    bounds: &'a [(u64, Option<u64>)],
    tops: &'a [u64],
    /// Some range holds more values than were tried.
    cut: bool,
    cap: u64,
}

impl Tried<'_> {
    /// The ranges as bound: `seq in 1..=8192`, `a in 1..=8, b in 2..`.
    fn ranges(&self) -> String {
        self.names
            .iter()
            .zip(self.bounds)
            .map(|(n, &(lo, hi))| format!("{n} in {}", Domain::Range { lo, hi }))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The note a clause ends with when not every value was tried.
    fn note(&self) -> String {
        if !self.cut {
            return String::new();
        }
        let tried: Vec<String> = self
            .names
            .iter()
            .zip(self.bounds)
            .zip(self.tops)
            .map(|((n, &(lo, _)), top)| format!("{n} in {lo}..={top}"))
            .collect();
        format!(
            "; only {} tried (at most {} values a symbol here), larger values not checked",
            tried.join(", "),
            self.cap
        )
    }
}

/// How many values of each of `n` symbols are enumerated.
fn cap_per_symbol(n: usize) -> u64 {
    if n <= 1 {
        return PER_SYMBOL;
    }
    let mut b = 1u64;
    while (b + 1)
        .checked_pow(u32::try_from(n).unwrap_or(u32::MAX))
        .is_some_and(|t| t <= TOTAL)
    {
        b += 1;
    }
    b.min(PER_SYMBOL)
}

/// The verdict for one symbol from `fails`, whether each value from `lo` fails.
fn one_symbol(name: &str, lo: u64, fails: &[bool], tried: &Tried<'_>) -> Verdict {
    let note = tried.note();
    let Some(first) = fails.iter().position(|&f| f) else {
        return if tried.cut {
            Verdict::Clause(format!("no failure{note}"))
        } else {
            Verdict::Holds
        };
    };
    if fails.iter().all(|&f| f) {
        return if tried.cut {
            Verdict::Clause(format!("fails for every value tried{note}"))
        } else {
            Verdict::FailsAll(tried.ranges())
        };
    }
    let smallest = lo + first as u64;
    let runs = runs(lo, fails);
    let text = if let Some((k, r)) = residue(lo, fails) {
        if r == 0 {
            format!("fails unless {name} is a multiple of {k} (smallest {smallest})")
        } else {
            format!("fails unless {name} mod {k} is {r} (smallest {smallest})")
        }
    } else if runs.len() == 1 && runs[0].0 == runs[0].1 {
        format!("fails for {name} = {smallest}")
    } else if runs.len() <= FEW {
        format!(
            "fails for {name} in {} (smallest {smallest})",
            list(&runs.iter().map(|r| run_text(*r)).collect::<Vec<_>>())
        )
    } else {
        let count = fails.iter().filter(|&&f| f).count();
        let first: Vec<String> = runs.iter().take(FEW).map(|r| run_text(*r)).collect();
        format!(
            "fails for {count} of the {} values of {name} in {lo}..={}, in {} intervals, the \
             first {} (smallest {smallest})",
            fails.len(),
            lo + fails.len() as u64 - 1,
            runs.len(),
            first.join(", ")
        )
    };
    Verdict::Clause(text + &note)
}

/// The failing values as maximal intervals `(first, last)`.
fn runs(lo: u64, fails: &[bool]) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (i, &f) in fails.iter().enumerate() {
        if !f {
            continue;
        }
        let v = lo + i as u64;
        match out.last_mut() {
            Some(last) if last.1 + 1 == v => last.1 = v,
            _ => out.push((v, v)),
        }
    }
    out
}

fn run_text((a, b): (u64, u64)) -> String {
    if a == b {
        a.to_string()
    } else {
        format!("{a}..={b}")
    }
}

/// `a`, `a and b`, `a, b and c`.
fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// `(k, r)` when the values that pass are exactly those `v` with `v mod k = r` (two at least, so that
/// the period is seen, and `k` at least 2).
fn residue(lo: u64, fails: &[bool]) -> Option<(u64, u64)> {
    let mut pass = fails
        .iter()
        .enumerate()
        .filter(|(_, f)| !**f)
        .map(|(i, _)| lo + i as u64);
    let a = pass.next()?;
    let b = pass.next()?;
    let k = b - a;
    if k < 2 {
        return None;
    }
    let r = a % k;
    fails
        .iter()
        .enumerate()
        .all(|(i, &f)| f == ((lo + i as u64) % k != r))
        .then_some((k, r))
}

/// `c` when `dims` are a symbol and its clamp `min(x, c)` (in either order), which differ exactly
/// where the symbol exceeds `c` (see `counterexample`'s search, which answers the same case).
fn clamp(dims: &[&Dim]) -> Option<u64> {
    let [Dim::Sym(a), Dim::Sym(b)] = dims else {
        return None;
    };
    let is_clamp = |x: &SymExpr, m: &SymExpr| match m {
        SymExpr::Min(parts, Some(c)) if matches!(x, SymExpr::Var(_)) => {
            (parts.as_slice() == std::slice::from_ref(x)).then_some(*c)
        }
        _ => None,
    };
    let c = is_clamp(a, b).or_else(|| is_clamp(b, a))?;
    u64::try_from(c).ok().filter(|&c| c >= 2)
}

/// The verdict for a symbol against its clamp at `c`, over `lo..=hi`: it fails exactly above `c`.
fn clamped(name: &str, lo: u64, hi: Option<u64>, c: u64) -> Verdict {
    let from = lo.max(c + 1);
    if hi.is_some_and(|h| h < from) {
        return Verdict::Holds;
    }
    let to = hi.map_or_else(String::new, |h| h.to_string());
    if from == lo {
        return Verdict::FailsAll(format!("{name} in {}", Domain::Range { lo, hi }));
    }
    if hi == Some(from) {
        return Verdict::Clause(format!("fails for {name} = {from}"));
    }
    Verdict::Clause(format!(
        "fails for {name} in {from}..{}{to} (smallest {from})",
        if hi.is_some() { "=" } else { "" }
    ))
}

/// The verdict for several symbols: every assignment of the values tried, the smallest failing one
/// first by its largest value, then in order (as the search orders them).
fn several(dims: &[&Dim], rule: Validity, tried: &Tried<'_>) -> Verdict {
    let n = tried.names.len();
    let mut values: Vec<u64> = tried.bounds.iter().map(|b| b.0).collect();
    let mut sizes = Vec::new();
    let (mut total, mut failing) = (0u64, 0u64);
    let mut smallest: Option<(u64, Vec<u64>)> = None;
    loop {
        total += 1;
        let env = |s: &str| {
            tried
                .names
                .binary_search(&s)
                .ok()
                .and_then(|i| i64::try_from(values[i]).ok())
        };
        if fails_with(dims, rule, &env, &mut sizes).is_some() {
            failing += 1;
            let key = (values.iter().copied().max().unwrap_or(0), values.clone());
            if smallest.as_ref().is_none_or(|s| key < *s) {
                smallest = Some(key);
            }
        }
        // The next assignment, the last symbol fastest.
        let mut i = n;
        loop {
            if i == 0 {
                return verdict_of_several(tried, total, failing, smallest);
            }
            i -= 1;
            if values[i] < tried.tops[i] {
                values[i] += 1;
                break;
            }
            values[i] = tried.bounds[i].0;
        }
    }
}

fn verdict_of_several(
    tried: &Tried<'_>,
    total: u64,
    failing: u64,
    smallest: Option<(u64, Vec<u64>)>,
) -> Verdict {
    let note = tried.note();
    let Some((_, at)) = smallest else {
        return if tried.cut {
            Verdict::Clause(format!("no failure{note}"))
        } else {
            Verdict::Holds
        };
    };
    if failing == total && !tried.cut {
        return Verdict::FailsAll(tried.ranges());
    }
    let at: Vec<String> = tried
        .names
        .iter()
        .zip(&at)
        .map(|(n, v)| format!("{n} = {v}"))
        .collect();
    Verdict::Clause(format!(
        "fails for {failing} of the {total} assignments of {} (smallest {}){note}",
        tried.ranges(),
        at.join(", ")
    ))
}
