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
//! The set of one symbol is said as its intervals when they are few ([`FEW`]); else as a residue when
//! the values that pass are exactly the multiples of a number (`fails unless H is a multiple of 32`);
//! else as the intervals before a part that repeats and the remainders that fail in it; and
//! otherwise by its count, first intervals and smallest value.

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
    let text = match set_form(lo, fails, false) {
        SetForm::Intervals(runs) if runs.len() == 1 && runs[0].0 == runs[0].1 => {
            format!("fails for {name} = {smallest}")
        }
        SetForm::Intervals(runs) => format!(
            "fails for {name} in {} (smallest {smallest})",
            list(&runs.iter().map(|r| run_text(*r)).collect::<Vec<_>>())
        ),
        SetForm::AllBut { k, r: 0 } => {
            format!("fails unless {name} is a multiple of {k} (smallest {smallest})")
        }
        SetForm::AllBut { k, r } => {
            format!("fails unless {name} mod {k} is {r} (smallest {smallest})")
        }
        // Not asked of set_form here (a failing set is said by the values that pass), but said
        // plainly rather than trusted away: no input may panic.
        SetForm::Residue { k, r } => {
            format!("fails for {name} with {name} mod {k} = {r} (smallest {smallest})")
        }
        SetForm::Periodic {
            before,
            from,
            to,
            period,
            residues,
        } => {
            let mut parts: Vec<String> = before.iter().map(|r| run_text(*r)).collect();
            parts.push(periodic_text(name, from, to, period, &residues));
            format!("fails for {name} in {} (smallest {smallest})", list(&parts))
        }
        SetForm::Counted { intervals, first } => {
            let count = fails.iter().filter(|&&f| f).count();
            let first: Vec<String> = first.iter().map(|r| run_text(*r)).collect();
            format!(
                "fails for {count} of the {} values of {name} in {lo}..={}, in {intervals} \
                 intervals, the first {} (smallest {smallest})",
                fails.len(),
                lo + fails.len() as u64 - 1,
                first.join(", ")
            )
        }
    };
    Verdict::Clause(text + &note)
}

/// `33..=640 where W mod 32 is 1..=16 or 20`.
pub fn periodic_text(
    name: &str,
    from: u64,
    to: u64,
    period: u64,
    residues: &[(u64, u64)],
) -> String {
    // Joined by "or": an outer list is joined by commas and "and".
    let residues = residues
        .iter()
        .map(|r| run_text(*r))
        .collect::<Vec<_>>()
        .join(" or ");
    format!("{from}..={to} where {name} mod {period} is {residues}")
}

/// A set of values of one symbol, as the texts say it: its intervals when they are few, a class of
/// remainders, a part that repeats, or its count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetForm {
    /// At most [`FEW`] intervals (none: the empty set).
    Intervals(Vec<(u64, u64)>),
    /// Exactly the values `v` with `v mod k = r`.
    Residue { k: u64, r: u64 },
    /// Every value but those with `v mod k = r`.
    AllBut { k: u64, r: u64 },
    /// The intervals before a part that repeats, and that part.
    Periodic {
        before: Vec<(u64, u64)>,
        from: u64,
        to: u64,
        period: u64,
        residues: Vec<(u64, u64)>,
    },
    /// Too irregular for the above: how many intervals (the first [`FEW`] kept).
    Counted {
        intervals: usize,
        first: Vec<(u64, u64)>,
    },
}

/// The form of the set of values `v` from `lo` with `members[v - lo]`; `residue` asks for a class
/// of remainders (`Residue`) to be tried before the part that repeats (the failing sets of the
/// check's texts are said by the values that pass: `AllBut`, always tried).
pub fn set_form(lo: u64, members: &[bool], residue: bool) -> SetForm {
    let runs = runs(lo, members);
    if runs.len() <= FEW {
        return SetForm::Intervals(runs);
    }
    // `residue` finds the class of the values a set leaves out.
    if let Some((k, r)) = self::residue(lo, members) {
        return SetForm::AllBut { k, r };
    }
    if residue {
        let outside: Vec<bool> = members.iter().map(|m| !m).collect();
        if let Some((k, r)) = self::residue(lo, &outside) {
            return SetForm::Residue { k, r };
        }
    }
    if let Some(p) = periodic(lo, members) {
        return SetForm::Periodic {
            before: p.before,
            from: p.from,
            to: p.to,
            period: p.period,
            residues: p.residues,
        };
    }
    SetForm::Counted {
        intervals: runs.len(),
        first: runs.into_iter().take(FEW).collect(),
    }
}

/// The values `v` from `lo` with `members[v - lo]`, as maximal intervals `(first, last)`.
pub fn runs(lo: u64, fails: &[bool]) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (i, &f) in fails.iter().enumerate() {
        if !f {
            continue;
        }
        let v = lo + i as u64;
        match out.last_mut() {
            Some(last) if last.1.checked_add(1) == Some(v) => last.1 = v,
            _ => out.push((v, v)),
        }
    }
    out
}

/// `7` or `1..=512`.
pub fn run_text((a, b): (u64, u64)) -> String {
    if a == b {
        a.to_string()
    } else {
        format!("{a}..={b}")
    }
}

/// `a`, `a and b`, `a, b and c`.
pub fn list(items: &[String]) -> String {
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

/// A failing set that repeats with a period from some value on: the values from `from` to `to`
/// fail exactly when their remainder by `period` lies in `residues` (intervals of remainders).
struct Periodic {
    period: u64,
    from: u64,
    to: u64,
    residues: Vec<(u64, u64)>,
    /// The failing values below the periodic part, as intervals.
    before: Vec<(u64, u64)>,
}

/// The shortest period the failing values keep from some value on, when what comes before it is at
/// most [`FEW`] intervals and at least two periods are seen (sizes computed with `ceil(h/32)` repeat
/// every 32 values, past the smallest sizes where a clamp to 1 breaks the pattern).
fn periodic(lo: u64, fails: &[bool]) -> Option<Periodic> {
    let n = fails.len();
    for k in 2..=n / 2 {
        // The periodic part starts after the last value that differs from the one a period before.
        let start = (k..n)
            .rev()
            .find(|&i| fails[i] != fails[i - k])
            .map_or(0, |j| j + 1 - k);
        if n - start < 2 * k {
            continue;
        }
        let window = &fails[start..start + k];
        if window.iter().all(|&f| f) || window.iter().all(|&f| !f) {
            continue;
        }
        let before = runs(lo, &fails[..start]);
        if before.len() > FEW {
            continue;
        }
        let from = lo + start as u64;
        let k64 = k as u64;
        // The remainders that fail, as intervals of `0..k` (a run across 0 is split in two).
        let mut marks = vec![false; k];
        for (i, &f) in window.iter().enumerate() {
            marks[((from + i as u64) % k64) as usize] = f;
        }
        // Said from its first failing value: the values before it in the window pass.
        let first = window.iter().position(|&f| f).unwrap_or(0);
        return Some(Periodic {
            period: k64,
            from: from + first as u64,
            before,
            to: lo + n as u64 - 1,
            residues: runs(0, &marks),
        });
    }
    None
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::dim::Poly;

    fn ranged(lo: u64, hi: Option<u64>) -> Bindings {
        let mut b = Bindings::default();
        b.insert("s".into(), Domain::Range { lo, hi });
        b
    }

    /// The set a clause says, as a test of one value; `None` for the count-only form (checked by
    /// its count and smallest value instead).
    fn said(text: &str) -> Option<Box<dyn Fn(u64) -> bool>> {
        let body = text.split("; only ").next().unwrap();
        let body = body.split(" (smallest ").next().unwrap();
        if let Some(v) = body.strip_prefix("fails for s = ") {
            let v: u64 = v.parse().unwrap();
            return Some(Box::new(move |x| x == v));
        }
        if let Some(k) = body.strip_prefix("fails unless s is a multiple of ") {
            let k: u64 = k.parse().unwrap();
            return Some(Box::new(move |x| x % k != 0));
        }
        if let Some(rest) = body.strip_prefix("fails unless s mod ") {
            let (k, r) = rest.split_once(" is ").unwrap();
            let (k, r): (u64, u64) = (k.parse().unwrap(), r.parse().unwrap());
            return Some(Box::new(move |x| x % k != r));
        }
        let parts = body.strip_prefix("fails for s in ")?;
        let interval = |t: &str| -> (u64, u64) {
            match t.split_once("..=") {
                Some((a, b)) => (a.parse().unwrap(), b.parse().unwrap()),
                None => {
                    let v = t.parse().unwrap();
                    (v, v)
                }
            }
        };
        let (plain, tail) = match parts.split_once(" where s mod ") {
            Some((p, t)) => (p, Some(t)),
            None => (parts, None),
        };
        let mut items: Vec<(u64, u64)> = plain
            .split(", ")
            .flat_map(|p| p.split(" and "))
            .map(interval)
            .collect();
        let periodic = tail.map(|t| {
            let (k, res) = t.split_once(" is ").unwrap();
            let k: u64 = k.parse().unwrap();
            let res: Vec<(u64, u64)> = res.split(" or ").map(interval).collect();
            let span = items.pop().unwrap();
            (k, res, span)
        });
        Some(Box::new(move |x| {
            items.iter().any(|&(a, b)| a <= x && x <= b)
                || periodic.as_ref().is_some_and(|(k, res, (a, b))| {
                    *a <= x && x <= *b && res.iter().any(|&(p, q)| p <= x % k && x % k <= q)
                })
        }))
    }

    /// A size computed from `s` by a few strided, scaled, shifted and clamped steps, drawn from
    /// `next`.
    fn expr(next: &mut impl FnMut() -> u64) -> Poly {
        let mut p = Poly::of(&SymExpr::var("s"));
        for _ in 0..1 + next() % 3 {
            let k = 2 + (next() % 31) as i64;
            p = match next() % 5 {
                0 => p.ceil_div(k).unwrap(),
                1 => p.floor_div(k).unwrap(),
                2 => p.mul(&Poly::constant(1 + (next() % 3) as i64)).unwrap(),
                3 => p.add(&Poly::constant((next() % 5) as i64)).unwrap(),
                _ => Poly::min(&[p, Poly::constant(k * 8)]).unwrap(),
            };
        }
        p
    }

    #[test]
    fn the_printed_set_is_the_set_of_failing_values() {
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        let (mut exact, mut counted, mut holds, mut all) = (0, 0, 0, 0);
        for case in 0..3000 {
            let a = expr(&mut next).into_size();
            let b = if next() % 3 == 0 {
                Dim::Known(1 + next() % 40)
            } else {
                expr(&mut next).into_size()
            };
            let rule = match next() % 4 {
                0 => Validity::Equal,
                1 => Validity::Onto,
                2 => Validity::MultipleOf(2 + next() % 8),
                _ => Validity::Multi,
            };
            let dims: Vec<&Dim> = if matches!(rule, Validity::MultipleOf(_)) {
                vec![&a]
            } else {
                vec![&a, &b]
            };
            let lo = 1 + next() % 100;
            let hi = lo + next() % 2000;
            let Some(verdict) = judge(&dims, rule, &ranged(lo, Some(hi))) else {
                continue; // a constant: no symbol to judge
            };
            let mut sizes = Vec::new();
            let truth: Vec<u64> = (lo..=hi)
                .filter(|&v| {
                    let v = v as i64;
                    fails_with(&dims, rule, &|_| Some(v), &mut sizes).is_some()
                })
                .collect();
            let what = format!("case {case}: {dims:?} {rule:?} over {lo}..={hi}: {verdict:?}");
            match &verdict {
                Verdict::Holds => {
                    holds += 1;
                    assert!(truth.is_empty(), "{what}")
                }
                Verdict::FailsAll(_) => {
                    all += 1;
                    assert_eq!(truth.len() as u64, hi - lo + 1, "{what}")
                }
                Verdict::Clause(text) => {
                    assert!(
                        !text.contains("; only "),
                        "{what}: a small range is tried whole"
                    );
                    let smallest = format!("(smallest {})", truth[0]);
                    assert!(
                        text.contains(&smallest) || text == &format!("fails for s = {}", truth[0]),
                        "{what}"
                    );
                    match said(text) {
                        Some(f) => {
                            exact += 1;
                            for v in lo..=hi {
                                assert_eq!(f(v), truth.binary_search(&v).is_ok(), "{what} at {v}");
                            }
                        }
                        None => {
                            counted += 1;
                            assert!(
                                text.starts_with(&format!("fails for {} of the ", truth.len())),
                                "{what}"
                            );
                        }
                    }
                }
            }
        }
        // The cases drawn reach every form.
        assert!(
            exact > 100 && holds > 10 && all > 10,
            "{exact} {counted} {holds} {all}"
        );
    }

    #[test]
    fn clamp_is_exact_over_an_open_range() {
        let s = Poly::of(&SymExpr::var("s"));
        let clamped = Poly::min(&[s.clone(), Poly::constant(512)])
            .unwrap()
            .into_size();
        let s = s.into_size();
        let dims = [&s, &clamped];
        assert_eq!(
            judge(&dims, Validity::Multi, &ranged(1, Some(8192))),
            Some(Verdict::Clause(
                "fails for s in 513..=8192 (smallest 513)".into()
            ))
        );
        assert_eq!(
            judge(&dims, Validity::Multi, &ranged(100, None)),
            Some(Verdict::Clause(
                "fails for s in 513.. (smallest 513)".into()
            ))
        );
        assert_eq!(
            judge(&dims, Validity::Multi, &ranged(1, Some(512))),
            Some(Verdict::Holds)
        );
        assert_eq!(
            judge(&dims, Validity::Multi, &ranged(600, Some(700))),
            Some(Verdict::FailsAll("s in 600..=700".into()))
        );
    }

    #[test]
    fn multiples_are_said_as_a_residue_and_large_ranges_say_what_was_tried() {
        let h = Dim::sym("s");
        let dims = [&h];
        assert_eq!(
            judge(&dims, Validity::MultipleOf(32), &ranged(1, Some(640))),
            Some(Verdict::Clause(
                "fails unless s is a multiple of 32 (smallest 1)".into()
            ))
        );
        let Some(Verdict::Clause(open)) = judge(&dims, Validity::MultipleOf(32), &ranged(32, None))
        else {
            panic!("an open range is a clause");
        };
        assert!(
            open.ends_with("; only s in 32..=65567 tried (at most 65536 values a symbol here), larger values not checked"),
            "{open}"
        );
        // A free symbol: no verdict (the search's clause stands).
        assert_eq!(
            judge(&dims, Validity::MultipleOf(32), &Bindings::default()),
            None
        );
    }

    #[test]
    fn two_symbols_are_counted_with_the_smallest_failure() {
        let (a, b) = (Dim::Sym(SymExpr::var("a")), Dim::Sym(SymExpr::var("b")));
        let mut bind = Bindings::default();
        bind.insert("a".into(), Domain::Range { lo: 1, hi: Some(4) });
        bind.insert("b".into(), Domain::Range { lo: 2, hi: Some(3) });
        assert_eq!(
            judge(&[&a, &b], Validity::Equal, &bind),
            Some(Verdict::Clause(
                "fails for 6 of the 8 assignments of a in 1..=4, b in 2..=3 (smallest a = 1, b = 2)"
                    .into()
            ))
        );
    }
}
