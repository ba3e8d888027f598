//! The broadcasting rules of `docs/broadcasting.md`, as one pure module: multidirectional (NumPy/ONNX,
//! N-ary), bidirectional (ONNX Expand), unidirectional (B to A's shape: Gemm's C, PRelu's slope,
//! LayerNormalization's scale and bias), legacy `broadcast=1`/`axis` (ONNX opset < 7, OpenVINO's PDPD)
//! and none (shapes must be equal).
//!
//! Every rule returns an [`Outcome`] rather than an error: the result shape, every definite conflict
//! (error E1 of the SONNX draft 002: some input m and axis i with `dYm_i != dY_i` and `dYm_i != 1`), a
//! rank error where the rule constrains ranks, and every possible conflict involving symbolic dims,
//! with the condition under which the model is valid. A caller reports them all at once.
//!
//! Deviations from the drafts' wording, and conventions:
//! - Zero-size dimensions follow ONNX and NumPy, not the SONNX wording "the output size is the maximum
//!   of the input sizes" (000, 001, 002 condition 2): `0` with `1` is `0`, `0` with `0` is `0`, and `0`
//!   with `3` is E1 (the maximum would say 3, and E1 would then blame the 0).
//! - The drafts index from 1 (000, 001, 004: `f(a,B,C) = 1`) or from 0 (002: `f = 0`); it is the same
//!   rule. Here `axis` is 0-based from the left of the result, and `axis_from_end` negative from its
//!   right (-1 the last), which is how broadcasting aligns shapes and how users read the error.
//! - 002 writes inputs `X0..XL` but says "L-1 input tensors"; the operator is N-ary, N >= 1.
//! - Step 1 (prepend 1s) is implicit: an input that lacks an axis after right alignment simply does not
//!   take part in it, since a 1 never changes the result of an axis nor causes E1.
//! - An unknown dimension or rank is never an error: it may be anything that makes the model valid.

use super::counterexample::{self, Validity};
use super::dim::{Dim, Poly, Shape, SymExpr};
use super::facts::Facts;

/// What a broadcast rule says about a set of input shapes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The result shape (`None`: rank unknown). A conflicting axis is `Dim::Unknown`, so that one error
    /// does not cascade into others downstream.
    pub shape: Shape,
    /// Definite E1s, one per axis, left to right.
    pub conflicts: Vec<Conflict>,
    /// Conditions on symbolic dims, one per axis at most, left to right.
    pub possible: Vec<PossibleConflict>,
    /// An E1 of ranks rather than of one axis: B has more axes than A (unidirectional, legacy), B does
    /// not fit in A from `axis` or `axis` is negative and not -1 (legacy), the ranks differ (none).
    pub rank_error: Option<String>,
}

impl Outcome {
    /// True when the inputs definitely cannot be broadcast (E1).
    pub fn is_error(&self) -> bool {
        !self.conflicts.is_empty() || self.rank_error.is_some()
    }

    fn of(shape: Shape) -> Self {
        Outcome {
            shape,
            ..Outcome::default()
        }
    }
}

/// A definite E1 on one axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The axis of the result, 0-based from the left. When the result's rank is unknown (an input of
    /// unknown rank), it counts from the left of the longest input of known rank.
    pub axis: usize,
    /// The same axis counted from the right: -1 is the last.
    pub axis_from_end: i64,
    /// The known sizes at fault, as (input index, size), in input order. Multidirectional: every input
    /// with a known size other than 1. Unidirectional and legacy: A's size (input 0, possibly 1, since
    /// B may not grow A) and B's (input 1). None: every input with a known size, 1 included.
    pub sizes: Vec<(usize, u64)>,
    /// When the conflict is between computed sizes that can never agree (`ceil(w/16)+1` against
    /// `ceil(w/16)`, `seq*2` against 3), the dims at fault as (input index, dim); empty otherwise.
    pub exprs: Vec<(usize, Dim)>,
}

/// A broadcast that holds only if symbolic dims take particular values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PossibleConflict {
    /// As in [`Conflict::axis`].
    pub axis: usize,
    pub axis_from_end: i64,
    /// The dims involved, as (input index, dim), in input order: the symbolic ones and the known ones
    /// they must agree with.
    pub dims: Vec<(usize, Dim)>,
    /// When the model is valid, e.g. `N must be 1 or 3`, `needs M = N or one of them 1`. Symbols are
    /// named in sorted order, so the text does not depend on the order of the inputs.
    pub condition: String,
    /// What the condition is checked with (the rule on this axis), for the search of its failing
    /// values ([`Self::finding`]).
    pub validity: Validity,
}

impl PossibleConflict {
    /// Whether some size is computed (`ceil(w/32)*2`): the condition then does not say by itself
    /// which values fail, as it does for plain symbols (`N must be 1 or 3`).
    pub fn computed(&self) -> bool {
        self.dims.iter().any(|(_, d)| {
            matches!(d, Dim::Sym(e) if !matches!(e, SymExpr::Var(_) | SymExpr::Broadcast(_)))
        })
    }

    /// The condition as a finding states it, or `None` when there is no finding: no assignment the
    /// search tried breaks it where the earlier nodes run (`facts`), up to a bound that makes that
    /// a fact of the model ([`counterexample::QUIET_BOUND`]). The condition ends with the smallest
    /// failing values of the symbols when `clause` asks for them or a size is computed. The
    /// condition is learned as a fact for the nodes after.
    pub fn finding(&self, facts: &Facts, clause: bool) -> Option<String> {
        let operands: Vec<&Dim> = self.dims.iter().map(|(_, d)| d).collect();
        let failure = counterexample::search_given(&operands, self.validity, facts);
        if failure.holds_as_far_as_searched() {
            return None;
        }
        facts.learn(&operands, self.validity);
        Some(if clause || self.computed() {
            format!("{}{}", self.condition, failure.clause())
        } else {
            self.condition.clone()
        })
    }
}

/// An axis, both ways.
#[derive(Clone, Copy)]
struct At {
    axis: usize,
    from_end: i64,
}

impl At {
    fn new(axis: usize, rank: usize) -> Self {
        // A Vec's length fits in i64 (it is at most isize::MAX), so the casts cannot wrap.
        At {
            axis,
            from_end: axis as i64 - rank as i64,
        }
    }

    fn conflict(self, out: &mut Outcome, sizes: Vec<(usize, u64)>) {
        out.conflicts.push(Conflict {
            axis: self.axis,
            axis_from_end: self.from_end,
            sizes,
            exprs: Vec::new(),
        });
    }

    /// A definite conflict in which some sizes are expressions.
    fn symbolic_conflict(self, out: &mut Outcome, exprs: Vec<(usize, Dim)>) {
        out.conflicts.push(Conflict {
            axis: self.axis,
            axis_from_end: self.from_end,
            sizes: Vec::new(),
            exprs,
        });
    }

    /// Records a possible conflict; the report searches its failing values ([`PossibleConflict::finding`]).
    fn possible(
        self,
        out: &mut Outcome,
        dims: Vec<(usize, Dim)>,
        condition: String,
        rule: Validity,
    ) {
        out.possible.push(PossibleConflict {
            axis: self.axis,
            axis_from_end: self.from_end,
            dims,
            condition,
            validity: rule,
        });
    }
}

/// One axis of the inputs: (input index, dim) of the inputs that have it.
type Column<'a> = [(usize, &'a Dim)];

/// NumPy/ONNX multidirectional broadcasting of N >= 1 shapes: right-align, prepend 1s (step 1), and on
/// each axis take the size that is not 1 (step 2). With an input of unknown rank the result's rank is
/// unknown, but conflicts among the others are still reported: they are E1 whatever that input is.
/// No input at all gives a scalar, the identity of broadcasting.
pub fn multidirectional(inputs: &[Shape]) -> Outcome {
    let borrowed: Vec<Option<&[Dim]>> = inputs.iter().map(Option::as_deref).collect();
    multidirectional_of(&borrowed)
}

/// [`multidirectional`] of borrowed shapes (`None`: rank unknown), for callers that hold their
/// inputs' shapes and need not copy them.
pub fn multidirectional_of(inputs: &[Option<&[Dim]>]) -> Outcome {
    if let Some(dims) = all_known_compatible(inputs) {
        return Outcome {
            shape: Some(dims),
            ..Outcome::default()
        };
    }
    let ranked: Vec<(usize, &[Dim])> = inputs
        .iter()
        .enumerate()
        .filter_map(|(m, s)| s.map(|d| (m, d)))
        .collect();
    let rank = ranked.iter().map(|(_, d)| d.len()).max().unwrap_or(0);
    let mut out = Outcome::default();
    let mut dims = Vec::with_capacity(rank);
    for axis in 0..rank {
        let from_end = rank - axis;
        let column: Vec<(usize, &Dim)> = ranked
            .iter()
            .filter_map(|&(m, d)| d.len().checked_sub(from_end).map(|j| (m, &d[j])))
            .collect();
        dims.push(multi_axis(At::new(axis, rank), &column, &mut out));
    }
    out.shape = (ranked.len() == inputs.len()).then_some(dims);
    out
}

/// The result when, on every axis, the dims that are not 1 are all the same dim (a size or one symbol):
/// the common case, where no conflict or condition can arise, computed without the bookkeeping the
/// general path needs.
fn all_known_compatible(inputs: &[Option<&[Dim]>]) -> Option<Vec<Dim>> {
    let mut rank = 0;
    for s in inputs {
        rank = rank.max(s.as_ref()?.len());
    }
    let mut dims = Vec::with_capacity(rank);
    for from_end in (1..=rank).rev() {
        let mut common: Option<&Dim> = None;
        for s in inputs.iter().flatten() {
            let Some(j) = s.len().checked_sub(from_end) else {
                continue;
            };
            match &s[j] {
                Dim::Known(1) => {}
                Dim::Unknown => return None,
                d => match common {
                    None => common = Some(d),
                    Some(c) if c == d => {}
                    Some(_) => return None,
                },
            }
        }
        dims.push(common.cloned().unwrap_or(Dim::Known(1)));
    }
    Some(dims)
}

/// Step 2 on one axis.
fn multi_axis(at: At, column: &Column<'_>, out: &mut Outcome) -> Dim {
    let big: Vec<(usize, u64)> = column
        .iter()
        .filter_map(|&(m, d)| match d {
            Dim::Known(n) if *n != 1 => Some((m, *n)),
            _ => None,
        })
        .collect();
    let syms = symbols(column);
    let unknown = column.iter().any(|(_, d)| **d == Dim::Unknown);
    if let Some(&(_, k)) = big.first() {
        if big.iter().any(|&(_, n)| n != k) {
            at.conflict(out, big);
            return Dim::Unknown;
        }
        // A size that can be neither 1 nor k (`seq*2` against 3) fails for every value.
        if let Some(&(m, s)) = column
            .iter()
            .find(|(_, d)| matches!(d, Dim::Sym(s) if !s.can_equal(1) && !s.can_equal(k)))
        {
            let mut exprs: Vec<(usize, Dim)> =
                big.iter().map(|&(i, n)| (i, Dim::Known(n))).collect();
            exprs.push((m, s.clone()));
            exprs.sort_by_key(|(i, _)| *i);
            at.symbolic_conflict(out, exprs);
            return Dim::Unknown;
        }
        if !syms.is_empty() {
            let names = names(&syms);
            let cond = match names.as_slice() {
                [one] => format!("{one} must be 1 or {k}"),
                _ => format!("{} must each be 1 or {k}", and_list(&names)),
            };
            at.possible(out, involved(column), cond, Validity::Multi);
        }
        return Dim::Known(k);
    }
    if syms.is_empty() {
        return if unknown { Dim::Unknown } else { Dim::Known(1) };
    }
    if let Some(pair) = never_agree(column) {
        at.symbolic_conflict(out, pair);
        return Dim::Unknown;
    }
    let joined = SymExpr::broadcast(syms.iter().map(|s| (*s).clone()));
    // An operand that already contains every other one (`N` against `broadcast(M, N)`) agrees with
    // them whenever it is itself valid, which was checked where it was formed: no new condition.
    if !syms.iter().any(|s| covers(s, &joined)) {
        let names = names(&syms);
        let cond = match names.as_slice() {
            [a, b] => format!("needs {a} = {b} or one of them 1"),
            _ => format!(
                "needs those of {} that are not 1 to be equal",
                and_list(&names)
            ),
        };
        at.possible(out, involved(column), cond, Validity::Multi);
    }
    // An unknown may be a size the symbols must then equal, or 1: the result is not known either way.
    match clamped_by(&syms).unwrap_or(joined) {
        _ if unknown => Dim::Unknown,
        // Broadcasts of computed sizes, broadcast again layer after layer, would nest without end.
        e if e.depth() > super::dim::MAX_DEPTH => Dim::Unknown,
        e => Dim::Sym(e),
    }
}

/// Bidirectional broadcasting (ONNX Expand, OpenVINO "bidirectional"): the input and the target shape
/// broadcast multidirectionally, so the result may be larger than the target.
pub fn bidirectional(input: &Shape, target: &Shape) -> Outcome {
    multidirectional(&[input.clone(), target.clone()])
}

/// Unidirectional broadcasting: B is broadcast to A's shape, which is the result. B may not have more
/// axes than A (a rank error), and each of B's right-aligned dims must be 1 or equal A's: B may not grow
/// A, so A's 1 against B's 3 is E1.
pub fn unidirectional(a: &Shape, b: &Shape) -> Outcome {
    let mut out = Outcome::of(a.clone());
    let (Some(a), Some(b)) = (a, b) else {
        return out;
    };
    if b.len() > a.len() {
        out.rank_error = Some(format!(
            "the broadcast input has rank {}, more than the rank {} of the shape it must broadcast to",
            b.len(),
            a.len()
        ));
    }
    // The overlap is checked even after a rank error, so that it does not hide an axis error.
    let overlap = a.len().min(b.len());
    let (a_tail, b_tail) = (&a[a.len() - overlap..], &b[b.len() - overlap..]);
    for (j, (ad, bd)) in a_tail.iter().zip(b_tail).enumerate() {
        onto(At::new(a.len() - overlap + j, a.len()), ad, bd, &mut out);
    }
    out
}

/// True when `unidirectional(a, b)` is an error, found without making its outcome (no copy of `a`, no
/// conditions written): for a caller that only asks whether B fits A, once per broadcast of a large
/// graph.
pub fn unidirectional_fails(a: &Shape, b: &Shape) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return false;
    };
    if b.len() > a.len() {
        return true;
    }
    a[a.len() - b.len()..].iter().zip(b).any(|(ad, bd)| {
        never_onto(ad, bd)
            || matches!((ad, bd), (Dim::Known(x), Dim::Known(y)) if *y != 1 && x != y)
    })
}

/// The legacy rule of ONNX opset < 7 (`broadcast=1`, optional `axis`), OpenVINO's PDPD (003): B's rank
/// is at most A's; B without its trailing 1s (`(3, 1)` is `(3)`) is laid on A's dims from `axis`, each
/// of its dims 1 or equal to A's (003's example `A (2,3,4,5), B (1,3), axis 0` is valid). `axis` absent
/// or -1 means rank(A) - rank(B), with B's full rank; other negative values are invalid. The result is A.
pub fn legacy_axis(a: &Shape, b: &Shape, axis: Option<i64>) -> Outcome {
    let mut out = Outcome::of(a.clone());
    let explicit = match axis {
        None | Some(-1) => None,
        Some(x) if x < 0 => {
            out.rank_error = Some(format!(
                "axis {x} is negative; only -1 (the default) is allowed"
            ));
            return out;
        }
        Some(x) => Some(x),
    };
    let (Some(a), Some(b)) = (a, b) else {
        return out;
    };
    if b.len() > a.len() {
        out.rank_error = Some(format!(
            "B has rank {}, more than A's rank {}: legacy broadcasting only broadcasts B onto A",
            b.len(),
            a.len()
        ));
        return out;
    }
    let start = match explicit {
        None => a.len() - b.len(),
        // Beyond usize it cannot fit anyway; the range check below says so.
        Some(x) => usize::try_from(x).unwrap_or(usize::MAX),
    };
    let core = &b[..b.len() - b.iter().rev().take_while(|d| d.is_one()).count()];
    if start
        .checked_add(core.len())
        .is_none_or(|end| end > a.len())
    {
        out.rank_error = Some(format!(
            "B without its trailing 1s has {} axes, which do not fit in A's rank {} from axis {start}",
            core.len(),
            a.len()
        ));
        return out;
    }
    for (j, bd) in core.iter().enumerate() {
        let axis = start + j;
        onto(At::new(axis, a.len()), &a[axis], bd, &mut out);
    }
    out
}

/// Checks that B's dim may broadcast onto A's without changing it. A is input 0, B input 1.
/// True when `b` can never be broadcast onto `a` (a symbolic conflict of [`onto`]).
fn never_onto(a: &Dim, b: &Dim) -> bool {
    match (a, b) {
        (Dim::Known(x), Dim::Sym(t)) => !t.can_equal(1) && !t.can_equal(*x),
        (Dim::Sym(s), Dim::Known(y)) => *y != 1 && !s.can_equal(*y),
        (Dim::Sym(s), Dim::Sym(t)) => !t.can_equal(1) && s.always_differs(t),
        _ => false,
    }
}

fn onto(at: At, a: &Dim, b: &Dim, out: &mut Outcome) {
    if never_onto(a, b) {
        at.symbolic_conflict(out, vec![(0, a.clone()), (1, b.clone())]);
        return;
    }
    let cond = match (a, b) {
        (_, Dim::Known(1)) | (Dim::Unknown, _) | (_, Dim::Unknown) => return,
        (Dim::Known(x), Dim::Known(y)) => {
            if x != y {
                at.conflict(out, vec![(0, *x), (1, *y)]);
            }
            return;
        }
        (Dim::Known(1), Dim::Sym(t)) => format!("{t} must be 1"),
        (Dim::Known(x), Dim::Sym(t)) => format!("{t} must be 1 or {x}"),
        (Dim::Sym(s), Dim::Known(y)) => format!("{s} must be {y}"),
        (Dim::Sym(s), Dim::Sym(t)) => {
            if covers(s, t) {
                return;
            }
            format!("{t} must be 1 or equal to {s}")
        }
    };
    at.possible(
        out,
        vec![(0, a.clone()), (1, b.clone())],
        cond,
        Validity::Onto,
    );
}

/// No broadcasting: every shape must be the same (Max/Min/Sum/Mean before opset 8; legacy binary ops
/// without `broadcast=1`). Known ranks that differ are a rank error, known sizes that differ (1
/// included) a conflict. An input of unknown rank must have the others' shape, so the result keeps it.
pub fn none(inputs: &[Shape]) -> Outcome {
    let ranked: Vec<(usize, &[Dim])> = inputs
        .iter()
        .enumerate()
        .filter_map(|(m, s)| s.as_deref().map(|d| (m, d)))
        .collect();
    let mut out = Outcome::default();
    let Some(&(first_m, first)) = ranked.first() else {
        return out;
    };
    if let Some(&(m, other)) = ranked.iter().find(|(_, d)| d.len() != first.len()) {
        out.rank_error = Some(format!(
            "without broadcasting the shapes must be equal, but input {first_m} has rank {} and input {m} rank {}",
            first.len(),
            other.len()
        ));
        return out;
    }
    let rank = first.len();
    let mut dims = Vec::with_capacity(rank);
    for axis in 0..rank {
        let column: Vec<(usize, &Dim)> = ranked.iter().map(|&(m, d)| (m, &d[axis])).collect();
        dims.push(equal_axis(At::new(axis, rank), &column, &mut out));
    }
    out.shape = Some(dims);
    out
}

/// One axis under the rule "none".
fn equal_axis(at: At, column: &Column<'_>, out: &mut Outcome) -> Dim {
    let known: Vec<(usize, u64)> = column
        .iter()
        .filter_map(|&(m, d)| d.known().map(|n| (m, n)))
        .collect();
    let syms = symbols(column);
    let present = || {
        column
            .iter()
            .filter(|(_, d)| **d != Dim::Unknown)
            .map(|&(m, d)| (m, d.clone()))
            .collect()
    };
    if let Some(&(_, k)) = known.first() {
        if known.iter().any(|&(_, n)| n != k) {
            at.conflict(out, known);
            return Dim::Unknown;
        }
        if !syms.is_empty() {
            let names = names(&syms);
            let cond = match names.as_slice() {
                [one] => format!("{one} must be {k}"),
                _ => format!("{} must each be {k}", and_list(&names)),
            };
            at.possible(out, present(), cond, Validity::Equal);
        }
        return Dim::Known(k);
    }
    let mut distinct: Vec<SymExpr> = syms.iter().map(|s| normal(s)).collect();
    distinct.sort();
    distinct.dedup();
    if distinct.len() > 1 {
        let names = names(&syms);
        let cond = match names.as_slice() {
            [a, b] => format!("needs {a} = {b}"),
            _ => format!("needs {} to be equal", and_list(&names)),
        };
        at.possible(out, present(), cond, Validity::Equal);
    }
    // A valid model has them all equal, so any is right; the smallest keeps the result independent of
    // the order of the inputs.
    distinct.into_iter().next().map_or(Dim::Unknown, Dim::Sym)
}

/// The result of broadcasting `x` with a clamped copy of itself, `min(x, c...)` with every `c` at least
/// 1 (a Slice `[:, :seq]` of a table of 512 rows against `seq`): wherever that is valid, it is `x` (the
/// two are equal, or `x` is 1 and then so is the minimum).
fn clamped_by(syms: &[&SymExpr]) -> Option<SymExpr> {
    let mut distinct: Vec<&SymExpr> = syms.to_vec();
    distinct.sort();
    distinct.dedup();
    let [a, b] = distinct.as_slice() else {
        return None;
    };
    let is_clamp = |whole: &SymExpr, m: &SymExpr| match m {
        SymExpr::Min(parts, c) => {
            parts.contains(whole)
                && c.is_none_or(|c| c >= 1)
                && parts
                    .iter()
                    .filter(|p| *p != whole)
                    .all(|p| Poly::of(p).lower_bound().is_some_and(|lb| lb >= 1))
        }
        _ => false,
    };
    if is_clamp(a, b) {
        Some((*a).clone())
    } else if is_clamp(b, a) {
        Some((*b).clone())
    } else {
        None
    }
}

/// Two symbolic dims of a column that never agree: neither can be 1 and they always differ
/// (`ceil(w/16)+2` against `ceil(w/16)`), as (input index, dim).
fn never_agree(column: &Column<'_>) -> Option<Vec<(usize, Dim)>> {
    let syms: Vec<(usize, &SymExpr)> = column
        .iter()
        .filter_map(|&(m, d)| match d {
            Dim::Sym(s) if !s.can_equal(1) => Some((m, s)),
            _ => None,
        })
        .collect();
    for (i, &(m, a)) in syms.iter().enumerate() {
        for &(n, b) in &syms[i + 1..] {
            if a.always_differs(b) {
                return Some(vec![(m, Dim::Sym(a.clone())), (n, Dim::Sym(b.clone()))]);
            }
        }
    }
    None
}

/// The symbolic dims of a column.
fn symbols<'a>(column: &Column<'a>) -> Vec<&'a SymExpr> {
    column
        .iter()
        .filter_map(|&(_, d)| match d {
            Dim::Sym(s) => Some(s),
            _ => None,
        })
        .collect()
}

/// The dims of a column a possible conflict is about: the symbolic ones and the known ones not 1.
fn involved(column: &Column<'_>) -> Vec<(usize, Dim)> {
    column
        .iter()
        .filter(|(_, d)| matches!(d, Dim::Sym(_)) || matches!(d, Dim::Known(n) if *n != 1))
        .map(|&(m, d)| (m, d.clone()))
        .collect()
}

/// `s` in the normal form of [`SymExpr::broadcast`], so that equal values compare equal.
fn normal(s: &SymExpr) -> SymExpr {
    SymExpr::broadcast([s.clone()])
}

/// Whether every broadcast operand of `part` is one of `whole`'s.
fn covers(whole: &SymExpr, part: &SymExpr) -> bool {
    let whole = whole.broadcast_operands();
    part.broadcast_operands().iter().all(|p| whole.contains(p))
}

/// The distinct symbols, as text, sorted.
pub(super) fn names(syms: &[&SymExpr]) -> Vec<String> {
    let mut names: Vec<String> = syms.iter().map(|s| normal(s).to_string()).collect();
    names.sort();
    names.dedup();
    names
}

/// `N`, `M and N`, `L, M and N`.
pub(super) fn and_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shape from text: sizes, symbols and `?` separated by spaces (`"2 N ?"`); `""` is a scalar,
    /// `"*"` the unknown rank.
    fn sh(text: &str) -> Shape {
        if text == "*" {
            return None;
        }
        Some(
            text.split_whitespace()
                .map(|t| match t {
                    "?" => Dim::Unknown,
                    _ => t.parse().map_or_else(|_| Dim::sym(t), Dim::Known),
                })
                .collect(),
        )
    }

    fn multi(shapes: &[&str]) -> Outcome {
        multidirectional(&shapes.iter().map(|s| sh(s)).collect::<Vec<_>>())
    }

    /// Asserts a valid broadcast with result `expected`.
    fn valid(o: &Outcome, expected: &str) {
        assert!(!o.is_error(), "{o:?}");
        assert_eq!(o.shape, sh(expected));
    }

    fn conflict(axis: usize, axis_from_end: i64, sizes: &[(usize, u64)]) -> Conflict {
        Conflict {
            exprs: Vec::new(),
            axis,
            axis_from_end,
            sizes: sizes.to_vec(),
        }
    }

    /// The conditions as their findings state them; one that no size tried breaks is marked.
    fn conditions(o: &Outcome) -> Vec<String> {
        o.possible
            .iter()
            .map(|p| {
                p.finding(&Facts::default(), false)
                    .unwrap_or_else(|| format!("{} (no finding)", p.condition))
            })
            .collect()
    }

    fn bcast(names: &[&str]) -> Dim {
        Dim::Sym(SymExpr::broadcast(names.iter().map(|n| SymExpr::var(*n))))
    }

    // OpenVINO's Numpy examples (003), in order.

    #[test]
    fn numpy_example_scalar_with_scalar() {
        valid(&multi(&["", ""]), "");
    }

    #[test]
    fn numpy_example_2x3_with_1() {
        valid(&multi(&["2 3", "1"]), "2 3");
    }

    #[test]
    fn numpy_example_3_with_2x3() {
        valid(&multi(&["3", "2 3"]), "2 3");
    }

    #[test]
    fn numpy_example_2x3x5_with_scalar() {
        valid(&multi(&["2 3 5", ""]), "2 3 5");
    }

    #[test]
    fn numpy_example_2x1x5_with_1x4x5() {
        valid(&multi(&["2 1 5", "1 4 5"]), "2 4 5");
    }

    #[test]
    fn numpy_example_6x5_with_2x1x5() {
        valid(&multi(&["6 5", "2 1 5"]), "2 6 5");
    }

    #[test]
    fn numpy_example_2x1x5_with_4x1() {
        valid(&multi(&["2 1 5", "4 1"]), "2 4 5");
    }

    #[test]
    fn numpy_example_3x2x1x4_with_5x4() {
        valid(&multi(&["3 2 1 4", "5 4"]), "3 2 5 4");
    }

    #[test]
    fn numpy_example_1x5x3_with_5x2x1x3() {
        valid(&multi(&["1 5 3", "5 2 1 3"]), "5 2 5 3");
    }

    #[test]
    fn numpy_example_3_with_2_fails() {
        let o = multi(&["3", "2"]);
        assert_eq!(o.conflicts, [conflict(0, -1, &[(0, 3), (1, 2)])]);
        assert_eq!(o.shape, sh("?"));
        assert_eq!(o.rank_error, None);
    }

    #[test]
    fn numpy_example_3x1x5_with_4x4x5_fails_on_leftmost_axis() {
        let o = multi(&["3 1 5", "4 4 5"]);
        assert_eq!(o.conflicts, [conflict(0, -3, &[(0, 3), (1, 4)])]);
        assert_eq!(o.shape, sh("? 4 5"));
    }

    // OpenVINO's PDPD examples (003), in order: A is (2, 3, 4, 5) but in the last.

    fn pdpd(b: &str, axis: Option<i64>) -> Outcome {
        legacy_axis(&sh("2 3 4 5"), &sh(b), axis)
    }

    #[test]
    fn pdpd_example_axis1_3x4() {
        valid(&pdpd("3 4", Some(1)), "2 3 4 5");
    }

    #[test]
    fn pdpd_example_axis1_3x1_ignores_trailing_one() {
        valid(&pdpd("3 1", Some(1)), "2 3 4 5");
    }

    #[test]
    fn pdpd_example_4x5_default_axis_or_axis2() {
        valid(&pdpd("4 5", None), "2 3 4 5");
        valid(&pdpd("4 5", Some(-1)), "2 3 4 5");
        valid(&pdpd("4 5", Some(2)), "2 3 4 5");
    }

    #[test]
    fn pdpd_example_axis0_1x3_one_against_two_is_fine() {
        valid(&pdpd("1 3", Some(0)), "2 3 4 5");
    }

    #[test]
    fn pdpd_example_scalar() {
        valid(&pdpd("", None), "2 3 4 5");
    }

    #[test]
    fn pdpd_example_5_default_axis_or_axis3() {
        valid(&pdpd("5", None), "2 3 4 5");
        valid(&pdpd("5", Some(-1)), "2 3 4 5");
        valid(&pdpd("5", Some(3)), "2 3 4 5");
    }

    #[test]
    fn pdpd_example_axis1_8x1x6x1_with_7x1x5_fails_b_may_not_grow_a() {
        let o = legacy_axis(&sh("8 1 6 1"), &sh("7 1 5"), Some(1));
        assert_eq!(
            o.conflicts,
            [
                conflict(1, -3, &[(0, 1), (1, 7)]),
                conflict(3, -1, &[(0, 1), (1, 5)])
            ]
        );
        assert_eq!(o.shape, sh("8 1 6 1"));
    }

    // OpenVINO's Bidirectional examples (003), in order.

    #[test]
    fn bidirectional_example_5_with_1() {
        valid(&bidirectional(&sh("5"), &sh("1")), "5");
    }

    #[test]
    fn bidirectional_example_2x3_with_3() {
        valid(&bidirectional(&sh("2 3"), &sh("3")), "2 3");
    }

    #[test]
    fn bidirectional_example_3x1_with_3x4() {
        valid(&bidirectional(&sh("3 1"), &sh("3 4")), "3 4");
    }

    #[test]
    fn bidirectional_example_3x4_with_scalar() {
        valid(&bidirectional(&sh("3 4"), &sh("")), "3 4");
    }

    #[test]
    fn bidirectional_example_3x1_with_2x1x6() {
        valid(&bidirectional(&sh("3 1"), &sh("2 1 6")), "2 3 6");
    }

    #[test]
    fn bidirectional_conflict_is_e1() {
        let o = bidirectional(&sh("3"), &sh("4"));
        assert_eq!(o.conflicts, [conflict(0, -1, &[(0, 3), (1, 4)])]);
    }

    // Multidirectional: conflicts, N-ary, scalars.

    #[test]
    fn conflict_axis_is_unknown_and_lists_every_input_not_1() {
        let o = multi(&["3", "1", "4", "2 3"]);
        assert_eq!(o.conflicts, [conflict(1, -1, &[(0, 3), (2, 4), (3, 3)])]);
        assert_eq!(o.shape, sh("2 ?"));
    }

    #[test]
    fn one_conflict_per_axis_left_to_right() {
        let o = multi(&["2 3 4", "5 3 6"]);
        let axes: Vec<(usize, i64)> = o
            .conflicts
            .iter()
            .map(|c| (c.axis, c.axis_from_end))
            .collect();
        assert_eq!(axes, [(0, -3), (2, -1)]);
        assert_eq!(o.shape, sh("? 3 ?"));
    }

    #[test]
    fn scalar_broadcasts_with_everything() {
        valid(&multi(&["", "N 0 ?"]), "N 0 ?");
        valid(&multi(&["", "", ""]), "");
    }

    #[test]
    fn single_input_is_itself() {
        valid(&multi(&["2 N ? 0"]), "2 N ? 0");
    }

    #[test]
    fn no_inputs_is_a_scalar() {
        valid(&multidirectional(&[]), "");
    }

    #[test]
    fn three_inputs_each_add_an_axis() {
        valid(&multi(&["5", "4 1", "3 1 1"]), "3 4 5");
    }

    // Zero-size dims follow ONNX, not the SONNX "maximum".

    #[test]
    fn zero_with_one_is_zero() {
        valid(&multi(&["0", "1"]), "0");
        valid(&multi(&["0 3", "1 3"]), "0 3");
    }

    #[test]
    fn zero_with_zero_is_zero() {
        valid(&multi(&["0", "0", "1"]), "0");
    }

    #[test]
    fn zero_with_three_is_e1() {
        let o = multi(&["0", "3"]);
        assert_eq!(o.conflicts, [conflict(0, -1, &[(0, 0), (1, 3)])]);
    }

    #[test]
    fn zero_with_unknown_is_zero() {
        valid(&multi(&["0", "?"]), "0");
    }

    // Symbols.

    #[test]
    fn symbol_with_one_or_itself_is_the_symbol_without_warning() {
        let o = multi(&["N", "1"]);
        valid(&o, "N");
        assert!(o.possible.is_empty());
        let o = multi(&["N", "N"]);
        valid(&o, "N");
        assert!(o.possible.is_empty());
    }

    #[test]
    fn symbol_with_three_is_three_and_warns_it_must_be_1_or_3() {
        let o = multi(&["2 N", "3"]);
        valid(&o, "2 3");
        assert_eq!(
            o.possible,
            [PossibleConflict {
                axis: 1,
                axis_from_end: -1,
                dims: vec![(0, Dim::sym("N")), (1, Dim::Known(3))],
                condition: "N must be 1 or 3".into(),
                validity: Validity::Multi,
            }]
        );
    }

    #[test]
    fn symbol_with_zero_is_zero_and_warns_it_must_be_1_or_0() {
        let o = multi(&["N", "0"]);
        valid(&o, "0");
        assert_eq!(conditions(&o), ["N must be 1 or 0"]);
    }

    #[test]
    fn two_symbols_keep_a_symbolic_broadcast_and_warn() {
        let o = multi(&["N", "M"]);
        assert!(!o.is_error());
        assert_eq!(o.shape, Some(vec![bcast(&["M", "N"])]));
        assert_eq!(format!("{}", bcast(&["N", "M"])), "broadcast(M, N)");
        assert_eq!(conditions(&o), ["needs M = N or one of them 1"]);
        let swapped = multi(&["M", "N"]);
        assert_eq!(swapped.shape, o.shape);
        assert_eq!(conditions(&swapped), conditions(&o));
    }

    #[test]
    fn two_symbols_with_three_give_three_and_one_condition() {
        let o = multi(&["N", "3", "M", "1"]);
        valid(&o, "3");
        assert_eq!(conditions(&o), ["M and N must each be 1 or 3"]);
        let dims: Vec<usize> = o.possible[0].dims.iter().map(|(m, _)| *m).collect();
        assert_eq!(dims, [0, 1, 2]);
    }

    #[test]
    fn three_symbols_condition_names_them_all() {
        let o = multi(&["P", "N", "M"]);
        assert_eq!(o.shape, Some(vec![bcast(&["M", "N", "P"])]));
        assert_eq!(
            conditions(&o),
            ["needs those of M, N and P that are not 1 to be equal"]
        );
    }

    #[test]
    fn symbolic_broadcast_is_associative() {
        let nm = multi(&["N", "M"]).shape;
        let then_p = multidirectional(&[nm, sh("P")]);
        assert_eq!(then_p.shape, multi(&["M", "P", "N"]).shape);
    }

    #[test]
    fn symbol_against_a_broadcast_containing_it_does_not_warn_again() {
        let nm = multi(&["N", "M"]).shape;
        let o = multidirectional(&[nm.clone(), sh("N")]);
        assert_eq!(o.shape, nm);
        assert!(o.possible.is_empty());
    }

    fn computed(p: Poly) -> Shape {
        Some(vec![p.into_size()])
    }

    fn w() -> Poly {
        Poly::of(&SymExpr::var("w"))
    }

    #[test]
    fn computed_sizes_warn_with_the_smallest_failing_values() {
        let up = computed(w().ceil_div(32).unwrap().mul(&Poly::constant(2)).unwrap());
        let lateral = computed(w().ceil_div(16).unwrap());
        let o = multidirectional(&[up, lateral]);
        assert!(o.conflicts.is_empty());
        assert_eq!(
            conditions(&o),
            ["needs ceil(w/16) = ceil(w/32)*2 or one of them 1; fails for w = 33 (4 vs 3)"]
        );
        let o = multidirectional(&[computed(w().ceil_div(16).unwrap()), sh("3")]);
        assert_eq!(
            conditions(&o),
            ["ceil(w/16) must be 1 or 3; fails for w = 17 (2 vs 3)"]
        );
    }

    #[test]
    fn a_size_against_its_clamped_copy_keeps_the_size() {
        let s = Poly::of(&SymExpr::var("seq"));
        let clamped = Poly::min(&[s.clone(), Poly::constant(512)]).unwrap();
        let o = multidirectional(&[
            Some(vec![Dim::sym("batch"), s.clone().into_size()]),
            Some(vec![Dim::Known(1), clamped.into_size()]),
        ]);
        assert_eq!(o.shape, Some(vec![Dim::sym("batch"), Dim::sym("seq")]));
        assert_eq!(
            conditions(&o),
            ["needs min(seq, 512) = seq or one of them 1; fails for seq = 513 (513 vs 512)"]
        );
    }

    #[test]
    fn computed_sizes_equal_in_normal_form_give_no_warning() {
        // A 3x3 stride-2 pad-1 conv and a 1x1 stride-2 conv of the same input: both ceil(w/2).
        let a = w().sub(&Poly::constant(1)).unwrap().floor_div(2).unwrap();
        let b = a.add(&Poly::constant(1)).unwrap();
        let c = w().add(&Poly::constant(1)).unwrap().floor_div(2).unwrap();
        let o = multidirectional(&[computed(b), computed(c)]);
        assert_eq!(o, Outcome::of(computed(w().ceil_div(2).unwrap())));
    }

    #[test]
    fn computed_sizes_that_never_agree_are_e1() {
        let s = Poly::of(&SymExpr::var("seq"));
        let o = multidirectional(&[computed(s.mul(&Poly::constant(2)).unwrap()), sh("3")]);
        assert_eq!(o.conflicts.len(), 1, "seq*2 is never 1 nor 3");
        assert_eq!(o.conflicts[0].exprs.len(), 2);
        assert_eq!(o.shape, Some(vec![Dim::Unknown]));
        let a = w().ceil_div(16).unwrap();
        let b = a.add(&Poly::constant(2)).unwrap();
        let o = multidirectional(&[computed(a.clone()), computed(b.clone())]);
        assert!(o.conflicts.is_empty(), "ceil(w/16) may be 1: {o:?}");
        // ceil(w/16)+1 is 1 at w = 0; +2 and +3 are never 1 and always differ.
        let a1 = a.add(&Poly::constant(1)).unwrap();
        let o = multidirectional(&[computed(a1), computed(b.clone())]);
        assert!(o.conflicts.is_empty());
        let a3 = a.add(&Poly::constant(3)).unwrap();
        let o = multidirectional(&[computed(a3), computed(b)]);
        assert_eq!(o.conflicts.len(), 1, "ceil(w/16)+3 against ceil(w/16)+2");
        let o = unidirectional(&sh("3"), &computed(s.mul(&Poly::constant(2)).unwrap()));
        assert_eq!(o.conflicts.len(), 1);
    }

    #[test]
    fn symbol_with_unknown_is_unknown() {
        let o = multi(&["N", "?"]);
        valid(&o, "?");
        assert!(o.possible.is_empty());
        let o = multi(&["N", "M", "?"]);
        valid(&o, "?");
        assert_eq!(conditions(&o), ["needs M = N or one of them 1"]);
    }

    #[test]
    fn symbol_with_unknown_and_three_is_three() {
        let o = multi(&["N", "?", "3"]);
        valid(&o, "3");
        assert_eq!(conditions(&o), ["N must be 1 or 3"]);
    }

    #[test]
    fn no_condition_on_an_axis_that_is_already_e1() {
        let o = multi(&["N", "3", "4"]);
        assert_eq!(o.conflicts.len(), 1);
        assert!(o.possible.is_empty());
    }

    // Unknowns.

    #[test]
    fn unknown_dim_with_three_is_three_without_warning() {
        let o = multi(&["?", "3"]);
        valid(&o, "3");
        assert!(o.possible.is_empty());
    }

    #[test]
    fn unknown_dim_with_one_is_unknown() {
        valid(&multi(&["?", "1"]), "?");
        valid(&multi(&["?", "?"]), "?");
    }

    #[test]
    fn unknown_rank_gives_unknown_rank_without_error() {
        valid(&multi(&["2 3", "*"]), "*");
        valid(&multi(&["*"]), "*");
    }

    #[test]
    fn unknown_rank_still_reports_conflicts_among_known_inputs() {
        let o = multi(&["3", "*", "5 4"]);
        assert_eq!(o.shape, None);
        assert_eq!(o.conflicts, [conflict(1, -1, &[(0, 3), (2, 4)])]);
    }

    #[test]
    fn unknown_rank_still_reports_conditions_among_known_inputs() {
        let o = multi(&["N", "*", "3"]);
        assert_eq!(o.shape, None);
        assert_eq!(conditions(&o), ["N must be 1 or 3"]);
    }

    // Unidirectional.

    #[test]
    fn unidirectional_b_to_a_keeps_a() {
        valid(&unidirectional(&sh("2 3 4"), &sh("4")), "2 3 4");
        valid(&unidirectional(&sh("2 3 4"), &sh("3 1")), "2 3 4");
        valid(&unidirectional(&sh("2 3 4"), &sh("")), "2 3 4");
        valid(&unidirectional(&sh("2 3 4"), &sh("2 3 4")), "2 3 4");
    }

    #[test]
    fn unidirectional_b_may_not_grow_a() {
        let o = unidirectional(&sh("2 1"), &sh("3"));
        assert_eq!(o.conflicts, [conflict(1, -1, &[(0, 1), (1, 3)])]);
        assert_eq!(o.shape, sh("2 1"));
    }

    #[test]
    fn unidirectional_unequal_sizes_are_e1_on_a_axis() {
        let o = unidirectional(&sh("2 4"), &sh("5"));
        assert_eq!(o.conflicts, [conflict(1, -1, &[(0, 4), (1, 5)])]);
        assert_eq!(o.shape, sh("2 4"));
    }

    #[test]
    fn unidirectional_rank_of_b_above_a_is_a_rank_error() {
        let o = unidirectional(&sh("4"), &sh("1 4"));
        assert!(o.rank_error.is_some());
        assert!(o.conflicts.is_empty());
        assert_eq!(o.shape, sh("4"));
    }

    #[test]
    fn unidirectional_rank_error_still_checks_the_overlap() {
        let o = unidirectional(&sh("4"), &sh("2 5"));
        assert!(o.rank_error.is_some());
        assert_eq!(o.conflicts, [conflict(0, -1, &[(0, 4), (1, 5)])]);
    }

    #[test]
    fn unidirectional_zero_sizes() {
        valid(&unidirectional(&sh("0"), &sh("1")), "0");
        valid(&unidirectional(&sh("0"), &sh("0")), "0");
        assert_eq!(unidirectional(&sh("0"), &sh("3")).conflicts.len(), 1);
        assert_eq!(unidirectional(&sh("3"), &sh("0")).conflicts.len(), 1);
    }

    #[test]
    fn unidirectional_symbolic_conditions() {
        let cond = |a: &str, b: &str| {
            let o = unidirectional(&sh(a), &sh(b));
            assert!(!o.is_error());
            assert_eq!(o.shape, sh(a));
            conditions(&o)
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(cond("N", "3"), ["N must be 3"]);
        assert_eq!(cond("3", "N"), ["N must be 1 or 3"]);
        assert_eq!(cond("1", "N"), ["N must be 1"]);
        assert_eq!(cond("N", "M"), ["M must be 1 or equal to N"]);
        assert!(cond("N", "N").is_empty());
        assert!(cond("N", "1").is_empty());
        assert!(cond("N", "?").is_empty());
        assert!(cond("?", "N").is_empty());
    }

    #[test]
    fn unidirectional_b_contained_in_a_broadcast_needs_nothing() {
        let a = Some(vec![bcast(&["M", "N"])]);
        let o = unidirectional(&a, &sh("N"));
        assert!(o.possible.is_empty() && !o.is_error());
    }

    #[test]
    fn unidirectional_unknown_rank_is_silent() {
        let o = unidirectional(&sh("*"), &sh("2 3 4 5"));
        assert_eq!(o, Outcome::default());
        valid(&unidirectional(&sh("2 3"), &sh("*")), "2 3");
    }

    // Legacy axis.

    #[test]
    fn legacy_wrong_axis_is_e1_on_the_a_axis() {
        let o = pdpd("3 5", Some(1));
        assert_eq!(o.conflicts, [conflict(2, -2, &[(0, 4), (1, 5)])]);
        assert_eq!(o.shape, sh("2 3 4 5"));
    }

    #[test]
    fn legacy_negative_axis_other_than_minus_one_is_a_rank_error() {
        assert!(pdpd("5", Some(-2)).rank_error.is_some());
        let o = legacy_axis(&sh("*"), &sh("*"), Some(-3));
        assert!(o.rank_error.is_some());
    }

    #[test]
    fn legacy_rank_of_b_above_a_is_a_rank_error() {
        let o = legacy_axis(&sh("3"), &sh("3 1"), None);
        assert!(o.rank_error.is_some());
        assert_eq!(o.shape, sh("3"));
    }

    #[test]
    fn legacy_axis_past_the_end_is_a_rank_error() {
        assert!(pdpd("4 5", Some(3)).rank_error.is_some());
        assert!(pdpd("", Some(5)).rank_error.is_some());
        assert!(pdpd("5", Some(i64::MAX)).rank_error.is_some());
    }

    #[test]
    fn legacy_trailing_ones_let_b_fit() {
        valid(&pdpd("5 1", Some(3)), "2 3 4 5");
        valid(&pdpd("1 1", None), "2 3 4 5");
    }

    #[test]
    fn legacy_default_axis_counts_b_with_its_trailing_ones() {
        // rank(A) - rank(B) = 2: B's 3 meets A's 4.
        let o = pdpd("3 1", None);
        assert_eq!(o.conflicts, [conflict(2, -2, &[(0, 4), (1, 3)])]);
    }

    #[test]
    fn legacy_symbolic_and_unknown() {
        let o = legacy_axis(&sh("2 N 4"), &sh("3 4"), Some(1));
        assert_eq!(conditions(&o), ["N must be 3"]);
        valid(&legacy_axis(&sh("*"), &sh("3"), None), "*");
        valid(&legacy_axis(&sh("2 3"), &sh("*"), Some(1)), "2 3");
        valid(&legacy_axis(&sh("2 ?"), &sh("5"), None), "2 ?");
    }

    // None.

    #[test]
    fn none_equal_shapes_are_valid() {
        valid(&none(&[sh("2 3"), sh("2 3"), sh("2 3")]), "2 3");
        valid(&none(&[sh(""), sh("")]), "");
    }

    #[test]
    fn none_one_against_three_is_a_conflict() {
        let o = none(&[sh("2 3"), sh("2 1")]);
        assert_eq!(o.conflicts, [conflict(1, -1, &[(0, 3), (1, 1)])]);
        assert_eq!(o.shape, sh("2 ?"));
    }

    #[test]
    fn none_unequal_ranks_are_a_rank_error() {
        let o = none(&[sh("2 3"), sh("3")]);
        assert!(o.rank_error.is_some());
        assert_eq!(o.shape, None);
    }

    #[test]
    fn none_unknowns_never_error_and_take_the_known() {
        valid(&none(&[sh("2 ?"), sh("? 3")]), "2 3");
        valid(&none(&[sh("*"), sh("2 3")]), "2 3");
        valid(&none(&[sh("*"), sh("*")]), "*");
    }

    #[test]
    fn none_symbolic_conditions() {
        let o = none(&[sh("N"), sh("3")]);
        valid(&o, "3");
        assert_eq!(conditions(&o), ["N must be 3"]);
        let o = none(&[sh("N"), sh("M"), sh("?")]);
        valid(&o, "M");
        assert_eq!(conditions(&o), ["needs M = N"]);
        let o = none(&[sh("N"), sh("?")]);
        valid(&o, "N");
        assert!(o.possible.is_empty());
    }

    #[test]
    fn unidirectional_fails_exactly_when_unidirectional_is_an_error() {
        let shapes = [
            "*", "", "1", "3", "?", "N", "2 N", "N 3", "1 3", "3 1", "4 3", "? 3", "N M", "1 N",
            "5 4 3", "5 ? 1",
        ];
        let shapes: Vec<Shape> = shapes.iter().map(|t| sh(t)).collect();
        for a in &shapes {
            for b in &shapes {
                assert_eq!(
                    unidirectional_fails(a, b),
                    unidirectional(a, b).is_error(),
                    "{a:?} <- {b:?}"
                );
            }
        }
    }

    #[test]
    fn is_error_covers_conflicts_and_rank_errors() {
        assert!(!multi(&["N", "3"]).is_error());
        assert!(multi(&["2", "3"]).is_error());
        assert!(unidirectional(&sh(""), &sh("1")).is_error());
    }
}
