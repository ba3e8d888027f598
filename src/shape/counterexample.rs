//! The smallest values of a model's input symbols that make a symbolic broadcast fail: what turns a W1
//! from "holds under a condition" into "fails for w = 33 (4 vs 3)".
//!
//! The sizes on one axis are expressions over the symbols (`ceil(w/32)*2` against `ceil(w/16)`). The
//! search evaluates them ([`SymExpr::eval`]) at every assignment of the symbols to `1..=bound`, smallest
//! first (by the largest value, then in order), until the broadcast is invalid there; symbols are sizes
//! of real inputs, so 0 is not tried. It is bounded: at most [`BUDGET`] assignments per axis, the bound
//! per symbol shrinking with their number (4096 for one symbol, 64 for two, 16 for three); beyond
//! [`MAX_SYMBOLS`] symbols it samples instead (every symbol one value, then a fixed pseudo-random
//! sequence), so that a W1 still ends with a failing value or with what was tried. Answers are cached per set of dims, since the same pair of sizes
//! meets at every layer of a network. One case is answered without a search, since its first failure
//! may lie far beyond any bound: a symbol against its clamped copy, `x` and `min(x, c)`, first differ
//! at `x = c + 1`.

use super::dim::{Dim, SymExpr};
use super::facts::{Fact, Facts};
use std::collections::HashMap;

/// Most assignments tried for one axis.
pub const BUDGET: u64 = 4096;
/// Most distinct symbols an axis may involve for a search to run.
pub const MAX_SYMBOLS: usize = 6;
/// Most answers kept in the cache; past it the cache is cleared, not grown.
const CACHE_LIMIT: usize = 4096;

/// When a set of sizes on one axis is valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Validity {
    /// Multidirectional: the sizes that are not 1 are all equal.
    Multi,
    /// Unidirectional: the second (the broadcast input) is 1 or equal to the first.
    Onto,
    /// No broadcasting: all equal.
    Equal,
    /// One size, a multiple of this number (a contract: Conv's channels by `group`).
    MultipleOf(u64),
}

/// What the search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Search {
    /// The first failing assignment, as text: `w = 33 (4 vs 3)`.
    Fails(String),
    /// No assignment with every symbol up to `bound` fails.
    NoneUpTo(u64),
    /// More symbols than [`MAX_SYMBOLS`]: this many assignments tried (every symbol one value, then
    /// a fixed pseudo-random sample), none failing.
    NoneSampled(u64),
    /// A size that is unknown, or an expression that cannot be evaluated.
    NotSearched,
}

/// The least bound of a search that found no failure for W2 to keep quiet: with one or two symbols
/// (every value up to 4096, or pairs up to 64), a contract that holds at every size tried holds
/// wherever the model gets that far (`concat` of sizes a broadcast upstream already forced equal).
pub const QUIET_BOUND: u64 = 64;

impl Search {
    /// True when the search tried every value up to [`QUIET_BOUND`] or beyond and none failed.
    pub fn holds_as_far_as_searched(&self) -> bool {
        matches!(self, Search::NoneUpTo(b) if *b >= QUIET_BOUND)
    }

    /// The clause a W1 condition ends with: `; fails for w = 33 (4 vs 3)`, or where the search stopped.
    pub fn clause(&self) -> String {
        match self {
            Search::Fails(at) => format!("; fails for {at}"),
            Search::NoneUpTo(b) => format!("; no failure with every symbol from 1 to {b}"),
            Search::NoneSampled(n) => format!(
                "; no failure at {n} assignments tried (more than {MAX_SYMBOLS} symbols: not every \
                 one)"
            ),
            Search::NotSearched => "; no failure searched for (a size is unknown)".to_owned(),
        }
    }
}

/// A search's answer by its rule, its dims and the facts it tested.
type Cache = HashMap<(Validity, Vec<Dim>, Vec<Fact>), Search>;

/// One cache for the whole process, not one per thread: `check --jobs N` checks models on N threads,
/// and models of one folder (one exporter, one family) meet the same sizes; per thread, each job
/// searched again what another had found (a third of `--jobs 2`'s time on the benchmark's folder).
/// An answer depends on its key alone, so which thread found it first changes nothing.
static CACHE: std::sync::LazyLock<std::sync::Mutex<Cache>> =
    std::sync::LazyLock::new(|| std::sync::Mutex::new(HashMap::new()));

/// Searches the smallest assignment of the symbols of `dims` (in operand order) at which they are not
/// valid under `rule`. Known sizes take part as they are; an unknown dim ends the search (it may be
/// anything).
pub fn search(dims: &[&Dim], rule: Validity) -> Search {
    cached(dims, rule, Vec::new())
}

/// [`search`] among the assignments where every fact that bears on the symbols of `dims` holds: the
/// values at which the earlier nodes run (see [`super::facts`]).
pub fn search_given(dims: &[&Dim], rule: Validity, facts: &Facts) -> Search {
    let mut names: Vec<&str> = dims
        .iter()
        .filter_map(|d| match d {
            Dim::Sym(e) => Some(e.symbols()),
            _ => None,
        })
        .flatten()
        .collect();
    names.sort_unstable();
    names.dedup();
    cached(dims, rule, facts.bearing_on(&names))
}

fn cached(dims: &[&Dim], rule: Validity, facts: Vec<Fact>) -> Search {
    let key = (
        rule,
        dims.iter().map(|d| (*d).clone()).collect::<Vec<_>>(),
        facts,
    );
    // A poisoned lock (a panic elsewhere while it was held) still holds answers that are right.
    let cache = || {
        CACHE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    if let Some(hit) = cache().get(&key).cloned() {
        return hit;
    }
    let found = run(dims, rule, &key.2);
    let mut c = cache();
    if c.len() >= CACHE_LIMIT {
        c.clear();
    }
    c.insert(key, found.clone());
    found
}

fn run(dims: &[&Dim], rule: Validity, facts: &[Fact]) -> Search {
    if let Some(found) = clamp_failure(dims, facts) {
        return found;
    }
    let mut names: Vec<&str> = Vec::new();
    for d in dims {
        match d {
            Dim::Sym(e) => names.extend(e.symbols()),
            Dim::Unknown => return Search::NotSearched,
            Dim::Known(_) => {}
        }
    }
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        return Search::NotSearched;
    }
    if names.len() > MAX_SYMBOLS {
        return sampled(dims, rule, &names, facts);
    }
    let bound = per_symbol_bound(names.len());
    if bound < 2 {
        return Search::NotSearched;
    }
    let mut values = vec![1u64; names.len()];
    let mut sizes: Vec<i64> = Vec::with_capacity(dims.len());
    // Assignments by their largest value m = 1, 2, ...: every tuple of 1..=m with some entry m.
    for m in 1..=bound {
        let mut failed = None;
        each_tuple_with_max(names.len(), m, |tuple| {
            values.copy_from_slice(tuple);
            let env = |n: &str| {
                names
                    .binary_search(&n)
                    .ok()
                    .and_then(|i| i64::try_from(values[i]).ok())
            };
            failed = check(dims, rule, &env, &mut sizes).filter(|_| all_hold(facts, &env));
            failed.is_some()
        });
        if let Some(failure) = failed {
            return fails_at(&names, &values, &failure);
        }
    }
    Search::NoneUpTo(bound)
}

/// The search for more symbols than [`MAX_SYMBOLS`], where every tuple up to a useful bound is too
/// many: every symbol the same value `1..=64` (sizes computed from one input size, as a detection
/// head's pyramid levels are, meet there), then [`BUDGET`] assignments in `1..=64` from a fixed
/// sequence, so that the answer is the same on every run.
fn sampled(dims: &[&Dim], rule: Validity, names: &[&str], facts: &[Fact]) -> Search {
    const TOP: u64 = 64;
    let mut values = vec![1u64; names.len()];
    let mut sizes: Vec<i64> = Vec::with_capacity(dims.len());
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        // xorshift64*: a fixed sequence.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let mut tried = 0;
    for round in 0..TOP + BUDGET {
        if round < TOP {
            values.fill(round + 1);
        } else {
            for v in &mut values {
                *v = 1 + next() % TOP;
            }
        }
        tried += 1;
        let env = |n: &str| {
            names
                .binary_search(&n)
                .ok()
                .and_then(|i| i64::try_from(values[i]).ok())
        };
        if let Some(failure) = check(dims, rule, &env, &mut sizes).filter(|_| all_hold(facts, &env))
        {
            return fails_at(names, &values, &failure);
        }
    }
    Search::NoneSampled(tried)
}

/// A symbol against its clamped copy, `x` and `min(x, c)` (a Slice `[:, :x]` of a table of `c` rows):
/// they first differ at `x = c + 1`, however far beyond the search's bound that is.
/// A failure found at `values` of the symbols `names`: `a = 3, b = 1 (failure)`.
fn fails_at(names: &[&str], values: &[u64], failure: &str) -> Search {
    let at: Vec<String> = names
        .iter()
        .zip(values)
        .map(|(n, v)| format!("{n} = {v}"))
        .collect();
    Search::Fails(format!("{} ({failure})", at.join(", ")))
}

fn clamp_failure(dims: &[&Dim], facts: &[Fact]) -> Option<Search> {
    let [a, b] = dims else {
        return None;
    };
    let (x, c, x_first) = match (a, b) {
        (Dim::Sym(x @ SymExpr::Var(_)), Dim::Sym(SymExpr::Min(parts, Some(c))))
            if parts.as_slice() == std::slice::from_ref(x) =>
        {
            (x, *c, true)
        }
        (Dim::Sym(SymExpr::Min(parts, Some(c))), Dim::Sym(x @ SymExpr::Var(_)))
            if parts.as_slice() == std::slice::from_ref(x) =>
        {
            (x, *c, false)
        }
        _ => return None,
    };
    if c < 2 {
        return None;
    }
    let over = c.checked_add(1)?;
    // Where an earlier node does not run at that value, the search proper looks further.
    let SymExpr::Var(name) = x else { return None };
    let at = |n: &str| (n == name.as_ref()).then_some(over);
    if !all_hold(facts, &at) {
        return None;
    }
    let pair = if x_first {
        format!("{over} vs {c}")
    } else {
        format!("{c} vs {over}")
    };
    Some(Search::Fails(format!("{x} = {over} ({pair})")))
}

/// The largest value each of `n` symbols takes so that all tuples fit in [`BUDGET`].
fn per_symbol_bound(n: usize) -> u64 {
    let mut b = 1u64;
    while (b + 1)
        .checked_pow(u32::try_from(n).unwrap_or(u32::MAX))
        .is_some_and(|t| t <= BUDGET)
    {
        b += 1;
    }
    b
}

/// Hands `f` every tuple of `n` entries in `1..=m` with some entry `m`, in lexicographic order (last
/// entry fastest), until it returns true.
fn each_tuple_with_max(n: usize, m: u64, mut f: impl FnMut(&[u64]) -> bool) {
    let mut tuple = vec![1u64; n];
    loop {
        if tuple.contains(&m) && f(&tuple) {
            return;
        }
        if !next_tuple(&mut tuple, m) {
            return;
        }
        // The tuples from here that hold no `m` differ from this one in their last entry only
        // (below `m`): the next that holds one ends in `m`. Stepping through the others was most of
        // `check`'s time on a folder of real models (the sum of m² tuples for two symbols).
        if !tuple.contains(&m)
            && let Some(last) = tuple.last_mut()
        {
            *last = m;
        }
    }
}

/// The next tuple of `1..=m` in lexicographic order (last entry fastest); false after the last.
fn next_tuple(t: &mut [u64], m: u64) -> bool {
    for x in t.iter_mut().rev() {
        if *x < m {
            *x += 1;
            return true;
        }
        *x = 1;
    }
    false
}

/// The failure at one assignment, as `4 vs 3` (the distinct sizes at fault in operand order), or
/// `None` when the sizes are valid there or cannot be evaluated.
fn check(
    dims: &[&Dim],
    rule: Validity,
    env: &dyn Fn(&str) -> Option<i64>,
    sizes: &mut Vec<i64>,
) -> Option<String> {
    sizes.clear();
    for d in dims {
        let v = match d {
            Dim::Known(n) => i64::try_from(*n).ok()?,
            Dim::Sym(e) => eval_size(e, env)?,
            Dim::Unknown => return None,
        };
        sizes.push(v);
    }
    let bad: Vec<i64> = match rule {
        Validity::Multi => {
            // Valid when the sizes other than 1 are one size: tested without collecting them, since
            // nearly every assignment of a search is valid.
            let mut other = sizes.iter().copied().filter(|&v| v != 1);
            let first = other.next();
            if other.all(|v| Some(v) == first) {
                return None;
            }
            sizes.iter().copied().filter(|&v| v != 1).collect()
        }
        Validity::Onto => match sizes.as_slice() {
            [a, b] if *b == 1 || a == b => return None,
            other => other.to_vec(),
        },
        Validity::Equal => {
            if sizes.windows(2).all(|w| w[0] == w[1]) {
                return None;
            }
            sizes.clone()
        }
        Validity::MultipleOf(k) => {
            let k = i64::try_from(k).ok()?;
            return match sizes.as_slice() {
                [v] if k != 0 && v % k != 0 => Some(format!("{v} is not a multiple of {k}")),
                _ => None,
            };
        }
    };
    let mut distinct: Vec<i64> = Vec::new();
    for v in bad {
        if !distinct.contains(&v) {
            distinct.push(v);
        }
    }
    let text: Vec<String> = distinct.iter().map(i64::to_string).collect();
    Some(text.join(" vs "))
}

/// Whether every fact holds at the assignment `env`: each of its sizes is a size there (the value it
/// describes exists) and they are valid under its rule.
fn all_hold(facts: &[Fact], env: &dyn Fn(&str) -> Option<i64>) -> bool {
    let mut sizes = Vec::new();
    facts.iter().all(|f| {
        let dims: Vec<&Dim> = f.dims.iter().collect();
        let sized = dims.iter().all(|d| match d {
            Dim::Sym(e) => eval_size(e, env).is_some(),
            _ => true,
        });
        sized && check(&dims, f.rule, env, &mut sizes).is_none()
    })
}

/// The failure of `dims` under `rule` at the values `env` gives the symbols (`4 vs 3`), or `None`
/// where they are valid or cannot be evaluated: for a caller that searches a domain of its own (the
/// ranges of `--dim`, see [`super::ranges`]) rather than `1..=bound`. `sizes` is scratch space.
pub fn fails_with(
    dims: &[&Dim],
    rule: Validity,
    env: &dyn Fn(&str) -> Option<i64>,
    sizes: &mut Vec<i64>,
) -> Option<String> {
    check(dims, rule, env, sizes)
}

/// An expression's value as a size, where it is one: a computed size below 1 is where the expression
/// no longer describes the model (a convolution or pool whose kernel does not fit its input: the
/// floor formula gives 0 or less where onnxruntime truncates toward zero and gives 1, or refuses), so
/// that assignment is not a counterexample.
fn eval_size(e: &SymExpr, env: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
    e.eval(env).filter(|&v| v >= 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::dim::Poly;

    #[test]
    fn tuples_with_a_largest_entry_come_in_the_order_of_all_tuples() {
        for n in 1..=4 {
            for m in 1..=5 {
                let mut all = Vec::new();
                let mut t = vec![1u64; n];
                loop {
                    if t.contains(&m) {
                        all.push(t.clone());
                    }
                    if !next_tuple(&mut t, m) {
                        break;
                    }
                }
                let mut got = Vec::new();
                each_tuple_with_max(n, m, |t| {
                    got.push(t.to_vec());
                    false
                });
                assert_eq!(got, all, "{n} entries up to {m}");
                // Stopped when asked.
                let mut seen = 0;
                each_tuple_with_max(n, m, |_| {
                    seen += 1;
                    seen == 2
                });
                assert_eq!(seen, all.len().min(2));
            }
        }
    }

    fn w() -> Poly {
        Poly::of(&SymExpr::var("w"))
    }

    fn size(p: Poly) -> Dim {
        p.into_size()
    }

    #[test]
    fn detector_top_down_add_fails_first_at_33() {
        // An FPN: the stride-32 map upsampled by 2 meets the stride-16 map.
        let up = size(w().ceil_div(32).unwrap().mul(&Poly::constant(2)).unwrap());
        let lateral = size(w().ceil_div(16).unwrap());
        assert_eq!(
            search(&[&up, &lateral], Validity::Multi),
            Search::Fails("w = 33 (4 vs 3)".into())
        );
    }

    #[test]
    fn equal_for_every_value_is_never_a_counterexample() {
        let a = size(w().ceil_div(2).unwrap());
        let b = size(w().add(&Poly::constant(1)).unwrap().floor_div(2).unwrap());
        assert_eq!(a, b);
        let c = size(w().floor_div(2).unwrap().mul(&Poly::constant(2)).unwrap());
        // floor(w/2)*2 and w differ at odd w: 1 vs 1 is fine (w = 1 gives 0 vs 1: valid), 3 gives 2 vs 3.
        assert_eq!(
            search(&[&c, &size(w())], Validity::Multi),
            Search::Fails("w = 3 (2 vs 3)".into())
        );
    }

    #[test]
    fn slice_clamped_at_512_fails_beyond_it() {
        let s = Poly::of(&SymExpr::var("seq"));
        let clamped = size(Poly::min(&[s.clone(), Poly::constant(512)]).unwrap());
        assert_eq!(
            search(&[&size(s), &clamped], Validity::Multi),
            Search::Fails("seq = 513 (513 vs 512)".into())
        );
    }

    #[test]
    fn a_table_clamped_far_beyond_the_bound_still_names_the_first_failure() {
        let s = Poly::of(&SymExpr::var("n"));
        let clamped = size(Poly::min(&[s.clone(), Poly::constant(1_000_000_000)]).unwrap());
        assert_eq!(
            search(&[&clamped, &size(s)], Validity::Multi),
            Search::Fails("n = 1000000001 (1000000000 vs 1000000001)".into())
        );
    }

    #[test]
    fn a_known_size_and_two_symbols() {
        let h = Dim::sym("h");
        let w = Dim::sym("w");
        assert_eq!(
            search(&[&h, &w, &Dim::Known(3)], Validity::Multi),
            Search::Fails("h = 1, w = 2 (2 vs 3)".into())
        );
        assert_eq!(
            search(&[&h, &Dim::Known(3)], Validity::Onto),
            Search::Fails("h = 1 (1 vs 3)".into()),
            "B may not grow A"
        );
        assert_eq!(
            search(&[&Dim::Known(1), &h], Validity::Equal),
            Search::Fails("h = 2 (1 vs 2)".into())
        );
    }

    #[test]
    fn bounded_and_unsearchable() {
        let s = Dim::sym("s");
        // seq+0 vs max(seq, 1): equal for every seq >= 1, not provably equal in the algebra.
        let m = size(Poly::max(&[Poly::of(&SymExpr::var("s")), Poly::constant(1)]).unwrap());
        assert_eq!(search(&[&s, &m], Validity::Multi), Search::NoneUpTo(4096));
        assert_eq!(
            search(&[&s, &Dim::Unknown], Validity::Multi),
            Search::NotSearched
        );
        assert_eq!(
            Search::NotSearched.clause(),
            "; no failure searched for (a size is unknown)"
        );
        assert_eq!(per_symbol_bound(1), 4096);
        assert_eq!(per_symbol_bound(2), 64);
        assert_eq!(per_symbol_bound(3), 16);
    }

    #[test]
    fn more_symbols_than_searched_in_full_are_sampled() {
        let many: Vec<Dim> = (0..7).map(|i| Dim::sym(format!("s{i}"))).collect();
        let refs: Vec<&Dim> = many.iter().collect();
        // Equal values are valid; the sample finds unequal ones, and the text names every symbol.
        let Search::Fails(at) = search(&refs, Validity::Multi) else {
            panic!("no failure found among seven free symbols");
        };
        assert!(at.starts_with("s0 = ") && at.contains(", s6 = "), "{at}");
        assert!(Search::Fails(at).clause().starts_with("; fails for s0 = "));
        // A sum of seven symbols against its maximum with 1: equal at every size, so nothing fails.
        let sum = (0..7).fold(Poly::constant(0), |acc, i| {
            acc.add(&Poly::of(&SymExpr::var(format!("s{i}")))).unwrap()
        });
        let clamped = size(Poly::max(&[sum.clone(), Poly::constant(1)]).unwrap());
        let found = search(&[&size(sum), &clamped], Validity::Multi);
        assert_eq!(found, Search::NoneSampled(64 + BUDGET));
        assert!(!found.holds_as_far_as_searched());
        assert!(
            found
                .clause()
                .starts_with("; no failure at 4160 assignments tried")
        );
    }

    /// Facts of the nodes before: an assignment where one fails is no counterexample, since the
    /// model stops earlier there. A YOLO-like head: the stride-8 map is concatenated with the
    /// stride-16 map upsampled by 2, so `ceil(h/8) = ceil(h/16)*2` wherever the head runs; a later
    /// broadcast of the same two sizes then never fails, and one of other sizes fails only at values
    /// that pass the Concat.
    #[test]
    fn assignments_an_earlier_node_refuses_are_no_counterexample() {
        let h = || Poly::of(&SymExpr::var("h"));
        let s8 = size(h().ceil_div(8).unwrap());
        let up = size(h().ceil_div(16).unwrap().mul(&Poly::constant(2)).unwrap());
        let concat = Facts::default();
        concat.learn(&[&s8, &up], Validity::Equal);
        let after = Facts::new(concat.into_inner());
        assert_eq!(
            search(&[&s8, &up], Validity::Multi),
            Search::Fails("h = 17 (3 vs 4)".into())
        );
        assert_eq!(
            search_given(&[&s8, &up], Validity::Multi, &after),
            Search::NoneUpTo(4096)
        );
        // ceil(h/16) against ceil(h/32)*2 first fails at h = 33 alone, at h = 41 where the Concat
        // runs (at 33, ceil(33/8) = 5 is odd).
        let s16 = size(h().ceil_div(16).unwrap());
        let up32 = size(h().ceil_div(32).unwrap().mul(&Poly::constant(2)).unwrap());
        assert_eq!(
            search(&[&s16, &up32], Validity::Multi),
            Search::Fails("h = 33 (3 vs 4)".into())
        );
        assert_eq!(
            search_given(&[&s16, &up32], Validity::Multi, &after),
            Search::Fails("h = 41 (3 vs 4)".into())
        );
        // A fact over another symbol bears on nothing here, and a clamp's failure at c + 1 stands
        // only where the facts hold there.
        let w = Dim::sym("w");
        let other = Facts::default();
        other.learn(&[&w, &Dim::Known(3)], Validity::Equal);
        let other = Facts::new(other.into_inner());
        assert_eq!(
            search_given(&[&s8, &up], Validity::Multi, &other),
            Search::Fails("h = 17 (3 vs 4)".into())
        );
        let s = Dim::sym("s");
        let clamped = size(Poly::min(&[Poly::of(&SymExpr::var("s")), Poly::constant(64)]).unwrap());
        let small = Facts::default();
        small.learn(&[&s, &Dim::Known(1)], Validity::Multi);
        let small = Facts::new(small.into_inner());
        assert_eq!(
            search_given(&[&s, &clamped], Validity::Multi, &small),
            Search::Fails("s = 65 (65 vs 64)".into())
        );
        let square = Facts::default();
        square.learn(&[&s, &clamped], Validity::Equal);
        let square = Facts::new(square.into_inner());
        assert_eq!(
            search_given(&[&s, &clamped], Validity::Multi, &square),
            Search::NoneUpTo(4096)
        );
    }
}
