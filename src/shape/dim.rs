//! Dimensions and shapes as shape inference and the broadcast algebra ([`super::broadcast`]) see them.
//!
//! A dimension is a known size (0 included: ONNX allows empty tensors), a symbolic size (a `dim_param`
//! such as `batch`, or an expression over such symbols), or unknown. A shape is a list of dimensions, or
//! nothing at all when even the rank is unknown.
//!
//! Symbolic expressions are kept in a normal form so that structural equality is equality of the values
//! they stand for:
//! - `broadcast(N, M)` and `broadcast(M, N)` are the same value (see [`SymExpr::broadcast`]), which makes
//!   broadcasting commutative and associative on symbols as the SONNX `Broadcast` draft (001,
//!   "Alternate functionality description") requires of the operator;
//! - integer arithmetic over symbols (`seq*12`, `batch*seq`, `seq+1`) is exact: an expression is a
//!   polynomial with integer coefficients over *atoms* — symbols and broadcasts, the latter opaque (a
//!   broadcast is not arithmetic) — see [`Poly`]. A product is a coefficient times sorted atoms, a sum of
//!   such monomials leading term first plus a constant; anything that would not be exact (a division that
//!   does not divide, an overflow, an expression grown beyond [`MAX_TERMS`] / [`MAX_DEGREE`]) is no
//!   expression at all, and the caller makes the size unknown.
//!
//! - sizes computed with a division stay exact too: `floor(x/k)` and `ceil(x/k)` by a positive constant
//!   (strided convolutions and pools, Resize by 2 or 0.5), `min` and `max` (Slice's clamping) are further
//!   atoms, each built in a normal form by [`Poly::floor_div`], [`Poly::min`] and [`Poly::max`] so that
//!   equal sizes written differently meet (`floor((h-1)/2)+1` and `ceil(h/2)` are one expression).
//!   `ceil(x/k)` is `floor((x+k-1)/k)` and prints as `ceil`.
//!
//! Symbols and broadcasts stand for sizes, so for non-negative integers; a floor, min or max is bounded
//! by its operands: that is what [`Poly::lower_bound`] uses. [`SymExpr::eval`] gives an expression's value
//! for given values of its symbols (the counterexample search of W1 uses it).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// A dimension: known size (0 allowed), symbolic, or unknown.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    Known(u64),
    Sym(SymExpr),
    Unknown,
}

/// A symbolic size expression, in normal form (build compound ones with [`SymExpr::broadcast`] and
/// [`Poly`], never by hand).
///
/// Variants beyond [`SymExpr::Var`] are compound; code that only cares about the leaves of an expression
/// matches `Var` (or `Broadcast`) and treats everything else as opaque.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SymExpr {
    /// A named symbol: the `dim_param` of a declared shape. Shared, not copied: every value of a
    /// `[batch, ...]` graph carries it, and shapes are cloned for each node that reads them.
    Var(Arc<str>),
    /// The broadcast of several sizes that could not be resolved, e.g. `broadcast(M, N)` for an axis where
    /// one input has `M` and another `N`. Build it with [`SymExpr::broadcast`], which keeps its parts
    /// flat, sorted and without duplicates. In arithmetic it is an atom, like a symbol.
    Broadcast(Vec<SymExpr>),
    /// `coefficient * factors`: the factors are atoms (`Var`, `Broadcast`), sorted, repeated for a power;
    /// the coefficient is not 0, and not 1 when there is a single factor (that is the factor itself).
    Product(i64, Vec<SymExpr>),
    /// `terms + constant`: the terms are distinct monomials (an atom or a `Product`), leading term first
    /// (higher degree first); two terms at least, or one and a non-zero constant.
    Sum(Vec<SymExpr>, i64),
    /// `floor(numerator / divisor)`, an atom: the divisor is at least 2, the numerator a non-constant
    /// expression whose coefficients and constant lie in `[0, divisor)` and share no factor with the
    /// divisor (see [`Poly::floor_div`], which builds it and moves everything else out of the floor).
    FloorDiv(Box<SymExpr>, i64),
    /// The least of non-constant expressions and an optional constant, an atom: two operands at least,
    /// none surely at least another (see [`Poly::min`]).
    Min(Vec<SymExpr>, Option<i64>),
    /// The greatest of non-constant expressions and an optional constant, an atom (see [`Poly::max`]).
    Max(Vec<SymExpr>, Option<i64>),
}

/// A shape: `None` when the rank is unknown; `Some(vec![])` is a scalar.
pub type Shape = Option<Vec<Dim>>;

/// Most monomials an expression may have; a result with more is not built (the size is then unknown).
pub const MAX_TERMS: usize = 16;
/// Highest degree of a monomial (`a*b*c` has degree 3); beyond it the result is not built.
pub const MAX_DEGREE: usize = 8;
/// Deepest nesting of atoms in an expression (`floor((min(floor(h/2), 64)+1)/2)` has depth 4); deeper
/// results are not built. A chain of strided layers and clamps would otherwise nest one level per node,
/// and every walk of the expression (printing, comparing, evaluating) recurse as deep.
pub const MAX_DEPTH: usize = 24;

impl SymExpr {
    pub fn var(name: impl Into<Arc<str>>) -> Self {
        SymExpr::Var(name.into())
    }

    /// The broadcast of `parts`, in normal form: nested broadcasts are flattened (broadcast is
    /// associative), the parts sorted and deduplicated (commutative, idempotent), and a single remaining
    /// part stands for itself. An empty `parts` gives an empty `Broadcast`, which callers never build.
    pub fn broadcast(parts: impl IntoIterator<Item = SymExpr>) -> Self {
        let mut flat = Vec::new();
        for p in parts {
            p.flatten_into(&mut flat);
        }
        flat.sort();
        flat.dedup();
        if flat.len() == 1 {
            flat.pop().unwrap_or(SymExpr::Broadcast(Vec::new()))
        } else {
            SymExpr::Broadcast(flat)
        }
    }

    /// The operands of a broadcast, or the expression itself when it is not one.
    pub fn broadcast_operands(&self) -> Vec<&SymExpr> {
        match self {
            SymExpr::Broadcast(parts) => {
                parts.iter().flat_map(SymExpr::broadcast_operands).collect()
            }
            other => vec![other],
        }
    }

    fn flatten_into(self, out: &mut Vec<SymExpr>) {
        match self {
            SymExpr::Broadcast(parts) => {
                for p in parts {
                    p.flatten_into(out);
                }
            }
            other => out.push(other),
        }
    }

    /// How deeply atoms nest in it: 1 for a symbol, one more for each floor, min, max, broadcast,
    /// product or sum around it.
    pub fn depth(&self) -> usize {
        match self {
            SymExpr::Var(_) => 1,
            SymExpr::FloorDiv(num, _) => 1 + num.depth(),
            SymExpr::Broadcast(parts)
            | SymExpr::Product(_, parts)
            | SymExpr::Sum(parts, _)
            | SymExpr::Min(parts, _)
            | SymExpr::Max(parts, _) => 1 + parts.iter().map(SymExpr::depth).max().unwrap_or(0),
        }
    }

    /// The named symbols the expression is built from (inside broadcasts too), sorted, once each.
    pub fn symbols(&self) -> Vec<&str> {
        fn walk<'a>(e: &'a SymExpr, out: &mut Vec<&'a str>) {
            match e {
                SymExpr::Var(n) => out.push(n),
                SymExpr::Broadcast(parts)
                | SymExpr::Product(_, parts)
                | SymExpr::Sum(parts, _)
                | SymExpr::Min(parts, _)
                | SymExpr::Max(parts, _) => {
                    for p in parts {
                        walk(p, out);
                    }
                }
                SymExpr::FloorDiv(num, _) => walk(num, out),
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether it can take the value `n`: not when `n` is below its least value (`seq+2` is never 1),
    /// nor when its coefficients rule `n` out (`seq*12` is never 100: the value less the constant term is
    /// a multiple of the coefficients' gcd).
    pub fn can_equal(&self, n: u64) -> bool {
        let p = Poly::of(self);
        let Ok(n) = i64::try_from(n) else {
            return true;
        };
        if p.lower_bound().is_some_and(|lb| n < lb) {
            return false;
        }
        let g = p.coefficient_gcd();
        let diff = i128::from(n) - i128::from(p.constant_term());
        g == 0 || diff % i128::from(g) == 0
    }

    /// Whether `self` and `other` differ for every value of the symbols: their difference is a
    /// non-zero constant (`ceil(w/16)+1` and `ceil(w/16)`).
    pub fn always_differs(&self, other: &SymExpr) -> bool {
        Poly::of(self)
            .sub(&Poly::of(other))
            .and_then(|d| d.as_constant())
            .is_some_and(|c| c != 0)
    }

    /// The value at integer values of the symbols (`env` gives each, `None` when it has none): `None`
    /// when a symbol has no value, on overflow, or when a broadcast inside is not valid there.
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
        match self {
            SymExpr::Var(name) => env(name),
            SymExpr::Broadcast(parts) => {
                let mut out = 1;
                for p in parts {
                    match p.eval(env)? {
                        1 => {}
                        v if out == 1 || out == v => out = v,
                        _ => return None,
                    }
                }
                Some(out)
            }
            SymExpr::Product(k, factors) => factors
                .iter()
                .try_fold(*k, |acc, x| acc.checked_mul(x.eval(env)?)),
            SymExpr::Sum(terms, c) => terms
                .iter()
                .try_fold(*c, |acc, x| acc.checked_add(x.eval(env)?)),
            SymExpr::FloorDiv(num, k) => Some(num.eval(env)?.div_euclid(*k)),
            SymExpr::Min(parts, c) => parts
                .iter()
                .map(|p| p.eval(env))
                .chain(c.map(Some))
                .try_fold(i64::MAX, |acc, v| Some(acc.min(v?))),
            SymExpr::Max(parts, c) => parts
                .iter()
                .map(|p| p.eval(env))
                .chain(c.map(Some))
                .try_fold(i64::MIN, |acc, v| Some(acc.max(v?))),
        }
    }

    /// `self * other`, exact; `None` when it is not an expression (see [`Poly`]).
    pub fn checked_mul(&self, other: &SymExpr) -> Option<SymExpr> {
        Poly::of(self).mul(&Poly::of(other))?.into_expr()
    }

    /// `self + other`, exact; `None` when the result is a constant or too large.
    pub fn checked_add(&self, other: &SymExpr) -> Option<SymExpr> {
        Poly::of(self).add(&Poly::of(other))?.into_expr()
    }

    /// `self / other` when `other` divides `self` exactly as polynomials (`(seq*12)/12 = seq`); `None`
    /// otherwise, or when the quotient is a constant.
    pub fn checked_div(&self, other: &SymExpr) -> Option<SymExpr> {
        Poly::of(self).div_exact(&Poly::of(other))?.into_expr()
    }
}

/// A monomial: atoms multiplied, sorted, repeated for a power; empty for the constant monomial 1.
type Monomial = Vec<SymExpr>;

/// The monomial order: graded, then lexicographic on exponents (an atom earlier in the `SymExpr` order
/// weighs more). It is a monomial order (compatible with multiplication), which exact division needs.
fn mono_cmp(a: &Monomial, b: &Monomial) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| b.cmp(a))
}

/// `a / b` as monomials, when `b`'s atoms are among `a`'s (with their multiplicity).
fn mono_div(a: &[SymExpr], b: &[SymExpr]) -> Option<Monomial> {
    let mut out = Vec::with_capacity(a.len().saturating_sub(b.len()));
    let mut rest = b.iter().peekable();
    for x in a {
        if rest.peek() == Some(&x) {
            rest.next();
        } else {
            out.push(x.clone());
        }
    }
    rest.peek().is_none().then_some(out)
}

fn mono_mul(a: &[SymExpr], b: &[SymExpr]) -> Option<Monomial> {
    if a.len() + b.len() > MAX_DEGREE {
        return None;
    }
    let mut m: Monomial = a.iter().chain(b).cloned().collect();
    m.sort();
    Some(m)
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[derive(Clone, Copy)]
enum Extreme {
    Min,
    Max,
}

/// A value an atom never goes below, when one is sure.
fn atom_lower_bound(a: &SymExpr) -> Option<i64> {
    match a {
        SymExpr::Var(_) | SymExpr::Broadcast(_) => Some(0),
        SymExpr::FloorDiv(num, k) => Some(Poly::of(num).lower_bound()?.div_euclid(*k)),
        SymExpr::Min(parts, c) => parts
            .iter()
            .map(|p| Poly::of(p).lower_bound())
            .chain(c.map(Some))
            .try_fold(i64::MAX, |acc, b| Some(acc.min(b?))),
        SymExpr::Max(parts, c) => parts
            .iter()
            .filter_map(|p| Poly::of(p).lower_bound())
            .chain(*c)
            .max(),
        SymExpr::Product(..) | SymExpr::Sum(..) => Poly::of(a).lower_bound(),
    }
}

/// An integer polynomial over atoms (symbols and broadcasts): the arithmetic behind symbolic sizes and
/// symbolic shape values. Every operation is exact or gives `None` (overflow, a division that does not
/// divide, a result beyond [`MAX_TERMS`] monomials or of degree beyond [`MAX_DEGREE`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Poly {
    /// Coefficient of each monomial; never 0.
    terms: BTreeMap<Monomial, i64>,
}

impl Poly {
    /// The constant `c`.
    pub fn constant(c: i64) -> Self {
        let mut p = Poly::default();
        if c != 0 {
            p.terms.insert(Vec::new(), c);
        }
        p
    }

    /// The polynomial an expression stands for (an atom is itself with coefficient 1).
    pub fn of(e: &SymExpr) -> Self {
        let mut p = Poly::default();
        match e {
            SymExpr::Var(_)
            | SymExpr::Broadcast(_)
            | SymExpr::FloorDiv(..)
            | SymExpr::Min(..)
            | SymExpr::Max(..) => {
                p.terms.insert(vec![e.clone()], 1);
            }
            SymExpr::Product(c, factors) => {
                if *c != 0 {
                    let mut f = factors.clone();
                    f.sort();
                    p.terms.insert(f, *c);
                }
            }
            SymExpr::Sum(terms, c) => {
                // The terms of a normal-form sum are distinct monomials: nothing overflows. A sum built
                // otherwise that does is taken as an opaque atom.
                let mut sum = Some(Poly::constant(*c));
                for t in terms {
                    sum = sum.and_then(|s| s.add(&Poly::of(t)));
                }
                return sum.unwrap_or_else(|| Poly {
                    terms: BTreeMap::from([(vec![e.clone()], 1)]),
                });
            }
        }
        p
    }

    /// A dimension as a size: a known size (one beyond `i64::MAX` is not carried) or an expression.
    pub fn of_size(d: &Dim) -> Option<Self> {
        match d {
            Dim::Known(n) => i64::try_from(*n).ok().map(Poly::constant),
            Dim::Sym(e) => Some(Poly::of(e)),
            Dim::Unknown => None,
        }
    }

    /// A data value (a signed integer in the bits of `Dim::Known`, see `value::as_i64`) or an
    /// expression.
    pub fn of_value(d: &Dim) -> Option<Self> {
        match d {
            Dim::Known(v) => Some(Poly::constant(*v as i64)),
            Dim::Sym(e) => Some(Poly::of(e)),
            Dim::Unknown => None,
        }
    }

    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// The value, when the polynomial is a constant.
    pub fn as_constant(&self) -> Option<i64> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get(&Vec::new()).copied(),
            _ => None,
        }
    }

    /// The constant term.
    pub fn constant_term(&self) -> i64 {
        self.terms.get(&Vec::new()).copied().unwrap_or(0)
    }

    /// A value it never goes below, when one is sure: symbols and broadcasts are sizes (`>= 0`), a
    /// floor, min or max is bounded by its operands'; `None` when a coefficient is negative or an atom
    /// has no lower bound.
    pub fn lower_bound(&self) -> Option<i64> {
        let mut sum = 0i64;
        for (m, &k) in &self.terms {
            if m.is_empty() {
                sum = sum.checked_add(k)?;
                continue;
            }
            if k < 0 {
                return None;
            }
            let bounds: Vec<i64> = m.iter().map(atom_lower_bound).collect::<Option<_>>()?;
            let term = match bounds.as_slice() {
                [one] => k.checked_mul(*one)?,
                // A product is bounded by the product of its factors' bounds only when none is negative.
                many if many.iter().all(|&b| b >= 0) => {
                    many.iter().try_fold(k, |acc, &b| acc.checked_mul(b))?
                }
                _ => return None,
            };
            sum = sum.checked_add(term)?;
        }
        Some(sum)
    }

    /// Whether every atom is surely a non-negative integer.
    fn atoms_non_negative(&self) -> bool {
        self.terms
            .keys()
            .flatten()
            .all(|a| atom_lower_bound(a).is_some_and(|b| b >= 0))
    }

    /// The greatest common divisor of the coefficients of its non-constant monomials (0 when there
    /// are none): every value it takes is the constant term plus a multiple of it.
    pub fn coefficient_gcd(&self) -> u64 {
        self.terms
            .iter()
            .filter(|(m, _)| !m.is_empty())
            .fold(0, |g, (_, k)| gcd(g, k.unsigned_abs()))
    }

    /// Whether it is certainly `<= 0` for every value of its atoms (no positive coefficient, and every
    /// atom non-negative).
    pub fn never_positive(&self) -> bool {
        self.terms.values().all(|&k| k <= 0) && self.atoms_non_negative()
    }

    /// `floor(self / k)` for `k >= 1`, exact for every integer value of the atoms, in a normal form:
    /// whole multiples of `k` come out of the floor (`floor((2*h + 3)/2) = h + 1 + floor(1/2) = h + 1`),
    /// so the floor's numerator has coefficients and constant in `[0, k)`; a factor common to all of them
    /// and `k` cancels (`floor((2*h+2)/4) = floor((h+1)/2)`); a floor of a floor is one floor
    /// (`floor((floor(h/2) + 1)/2) = floor((h+2)/4)`). So equal sizes computed in different ways often
    /// meet in one form: `floor((h-1)/2) + 1` and `ceil(h/2)` are both `floor((h+1)/2)`. `None` for
    /// `k < 1` or on overflow.
    pub fn floor_div(&self, k: i64) -> Option<Poly> {
        if k < 1 {
            return None;
        }
        let mut whole = Poly::default();
        let mut rest = Poly::default();
        for (m, &c) in &self.terms {
            let (q, r) = (c.div_euclid(k), c.rem_euclid(k));
            if q != 0 {
                whole.terms.insert(m.clone(), q);
            }
            if r != 0 {
                rest.terms.insert(m.clone(), r);
            }
        }
        // A constant in [0, k) floors to 0.
        if rest.as_constant().is_some() {
            return Some(whole);
        }
        let g = rest
            .terms
            .values()
            .fold(k.unsigned_abs(), |g, &c| gcd(g, c.unsigned_abs()));
        let k = k / i64::try_from(g).ok()?;
        for c in rest.terms.values_mut() {
            *c /= g as i64;
        }
        if k == 1 {
            return whole.add(&rest);
        }
        if let Some((inner, a, c)) = rest.single_floor() {
            // floor((floor(x/a) + c)/k) = floor((x + a*c)/(a*k)) for integers x, c and a, k >= 1.
            let num = Poly::of(inner).add(&Poly::constant(a.checked_mul(c)?))?;
            return whole.add(&num.floor_div(a.checked_mul(k)?)?);
        }
        let num = rest.into_expr()?;
        if num.depth() >= MAX_DEPTH {
            return None;
        }
        let atom = SymExpr::FloorDiv(Box::new(num), k);
        whole.add(&Poly::of(&atom))
    }

    /// `ceil(self / k)` for `k >= 1`: `floor((self + k - 1)/k)`, in the normal form of [`Poly::floor_div`].
    pub fn ceil_div(&self, k: i64) -> Option<Poly> {
        self.add(&Poly::constant(k.checked_sub(1)?))?.floor_div(k)
    }

    /// When the polynomial is `floor(x/a) + c` (one floor, coefficient 1), its `x`, `a` and `c`.
    fn single_floor(&self) -> Option<(&SymExpr, i64, i64)> {
        let mut c = 0;
        let mut floor = None;
        for (m, &k) in &self.terms {
            match m.as_slice() {
                [] => c = k,
                [SymExpr::FloorDiv(x, a)] if k == 1 && floor.is_none() => floor = Some((&**x, *a)),
                _ => return None,
            }
        }
        floor.map(|(x, a)| (x, a, c))
    }

    /// The least of `parts`, in a normal form: nested minima flattened, constants combined, duplicates
    /// and operands surely not below another dropped (`min(seq, seq+1) = seq`, `min(seq+2, 1) = 1`);
    /// a single operand left is itself. `None` for no parts.
    pub fn min(parts: &[Poly]) -> Option<Poly> {
        Poly::extreme(parts, Extreme::Min)
    }

    /// The greatest of `parts`, in the normal form of [`Poly::min`].
    pub fn max(parts: &[Poly]) -> Option<Poly> {
        Poly::extreme(parts, Extreme::Max)
    }

    fn extreme(parts: &[Poly], which: Extreme) -> Option<Poly> {
        let mut constant: Option<i64> = None;
        let mut exprs: Vec<Poly> = Vec::new();
        let pick = |a: i64, b: i64| match which {
            Extreme::Min => a.min(b),
            Extreme::Max => a.max(b),
        };
        let add_constant = |c: i64, constant: &mut Option<i64>| {
            *constant = Some(constant.map_or(c, |k| pick(k, c)));
        };
        for p in parts {
            if let Some(c) = p.as_constant() {
                add_constant(c, &mut constant);
                continue;
            }
            let nested = match (p.single_atom(), which) {
                (Some(SymExpr::Min(inner, c)), Extreme::Min)
                | (Some(SymExpr::Max(inner, c)), Extreme::Max) => Some((inner, c)),
                _ => None,
            };
            match nested {
                Some((inner, c)) => {
                    exprs.extend(inner.iter().map(Poly::of));
                    if let Some(c) = c {
                        add_constant(*c, &mut constant);
                    }
                }
                None => exprs.push(p.clone()),
            }
        }
        // `b` is never a better pick than `a` when `b - a` (min) or `a - b` (max) is surely >= 0.
        let beaten = |a: &Poly, b: &Poly| -> bool {
            let d = match which {
                Extreme::Min => b.sub(a),
                Extreme::Max => a.sub(b),
            };
            d.and_then(|d| d.lower_bound()).is_some_and(|lb| lb >= 0)
        };
        exprs.sort_by(|a, b| a.terms.iter().cmp(b.terms.iter()));
        exprs.dedup();
        let mut kept: Vec<Poly> = Vec::with_capacity(exprs.len());
        for (i, e) in exprs.iter().enumerate() {
            let by_other = exprs
                .iter()
                .enumerate()
                .any(|(j, o)| j != i && beaten(o, e));
            let by_constant = constant.is_some_and(|c| beaten(&Poly::constant(c), e));
            if !by_other && !by_constant {
                kept.push(e.clone());
            }
        }
        // A constant no greater than an operand's lower bound never wins a maximum.
        let constant = constant.filter(|&c| {
            !matches!(which, Extreme::Max)
                || !kept
                    .iter()
                    .any(|e| e.lower_bound().is_some_and(|lb| lb >= c))
        });
        match (kept.len(), constant) {
            (0, Some(c)) => Some(Poly::constant(c)),
            (0, None) => None,
            (1, None) => kept.pop(),
            _ => {
                let ops: Vec<SymExpr> = kept
                    .into_iter()
                    .map(Poly::into_expr)
                    .collect::<Option<_>>()?;
                if ops.iter().any(|o| o.depth() >= MAX_DEPTH) {
                    return None;
                }
                let atom = match which {
                    Extreme::Min => SymExpr::Min(ops, constant),
                    Extreme::Max => SymExpr::Max(ops, constant),
                };
                Some(Poly::of(&atom))
            }
        }
    }

    /// The atom, when the polynomial is exactly one atom (coefficient 1, no constant).
    fn single_atom(&self) -> Option<&SymExpr> {
        match self.terms.iter().next() {
            Some((m, 1)) if self.terms.len() == 1 && m.len() == 1 => m.first(),
            _ => None,
        }
    }

    fn checked(self) -> Option<Self> {
        (self.terms.len() <= MAX_TERMS).then_some(self)
    }

    /// Adds `k * m` in place; `None` on overflow.
    fn add_term(&mut self, m: Monomial, k: i64) -> Option<()> {
        let slot = self.terms.entry(m).or_insert(0);
        *slot = slot.checked_add(k)?;
        if *slot == 0 {
            self.terms.retain(|_, k| *k != 0);
        }
        Some(())
    }

    pub fn add(&self, other: &Poly) -> Option<Poly> {
        let mut out = self.clone();
        for (m, &k) in &other.terms {
            out.add_term(m.clone(), k)?;
        }
        out.checked()
    }

    pub fn neg(&self) -> Option<Poly> {
        let mut out = Poly::default();
        for (m, &k) in &self.terms {
            out.terms.insert(m.clone(), k.checked_neg()?);
        }
        Some(out)
    }

    pub fn sub(&self, other: &Poly) -> Option<Poly> {
        self.add(&other.neg()?)
    }

    pub fn mul(&self, other: &Poly) -> Option<Poly> {
        let mut out = Poly::default();
        for (a, &x) in &self.terms {
            for (b, &y) in &other.terms {
                out.add_term(mono_mul(a, b)?, x.checked_mul(y)?)?;
                if out.terms.len() > MAX_TERMS {
                    return None;
                }
            }
        }
        Some(out)
    }

    /// The leading monomial and its coefficient, in the order of [`mono_cmp`].
    fn leading(&self) -> Option<(&Monomial, i64)> {
        self.terms
            .iter()
            .max_by(|a, b| mono_cmp(a.0, b.0))
            .map(|(m, &k)| (m, k))
    }

    /// `self / divisor` when the divisor divides it exactly, with an integer quotient (`(seq*12)/12 =
    /// seq`, `(batch*seq*768)/(batch*64) = seq*12`, `(seq*2+2)/(seq+1) = 2`); `None` otherwise or for a
    /// zero divisor. Exact polynomial division, so the quotient is right for every value of the atoms at
    /// which the divisor is not 0.
    pub fn div_exact(&self, divisor: &Poly) -> Option<Poly> {
        let (dm, dk) = divisor.leading()?;
        let mut rest = self.clone();
        let mut quotient = Poly::default();
        // The leading monomial of `rest` strictly falls at each step; a quotient with more than
        // MAX_TERMS monomials is not built anyway.
        for _ in 0..=MAX_TERMS {
            let Some((rm, rk)) = rest.leading() else {
                break;
            };
            if rk.checked_rem(dk)? != 0 {
                return None;
            }
            let step = Poly {
                terms: BTreeMap::from([(mono_div(rm, dm)?, rk.checked_div(dk)?)]),
            };
            quotient = quotient.add(&step)?;
            rest = rest.sub(&step.mul(divisor)?)?;
        }
        // The algorithm proves it, but an exact answer is checked rather than trusted.
        (rest.is_zero() && quotient.mul(divisor).as_ref() == Some(self)).then_some(quotient)
    }

    /// The expression, when the polynomial is not a constant.
    pub fn into_expr(self) -> Option<SymExpr> {
        let constant = self.constant_term();
        let mut monos: Vec<(Monomial, i64)> = self
            .terms
            .into_iter()
            .filter(|(m, _)| !m.is_empty())
            .collect();
        monos.sort_by(|a, b| mono_cmp(&b.0, &a.0));
        let term = |(mut m, k): (Monomial, i64)| {
            if k == 1 && m.len() == 1 {
                m.pop().unwrap_or(SymExpr::Broadcast(Vec::new()))
            } else {
                SymExpr::Product(k, m)
            }
        };
        match monos.len() {
            0 => None,
            1 if constant == 0 => monos.pop().map(term),
            _ => Some(SymExpr::Sum(
                monos.into_iter().map(term).collect(),
                constant,
            )),
        }
    }

    /// The polynomial as a size: a non-negative constant is known, a negative one is no size (unknown),
    /// an expression is symbolic unless it can never be positive.
    pub fn into_size(self) -> Dim {
        match self.as_constant() {
            Some(c) => u64::try_from(c).map_or(Dim::Unknown, Dim::Known),
            None if self.never_positive() => Dim::Unknown,
            None => self.into_expr().map_or(Dim::Unknown, Dim::Sym),
        }
    }

    /// The polynomial as a data value: a constant is a (signed) integer, else an expression.
    pub fn into_value(self) -> Dim {
        match self.as_constant() {
            Some(c) => Dim::Known(c as u64),
            None => self.into_expr().map_or(Dim::Unknown, Dim::Sym),
        }
    }
}

impl Dim {
    /// A symbolic dimension named `name`.
    pub fn sym(name: impl Into<Arc<str>>) -> Self {
        Dim::Sym(SymExpr::var(name))
    }

    /// The size, when known.
    pub fn known(&self) -> Option<u64> {
        match self {
            Dim::Known(n) => Some(*n),
            _ => None,
        }
    }

    pub fn is_one(&self) -> bool {
        *self == Dim::Known(1)
    }
}

/// Writes a monomial `factors * k` with its sign: `seq*12`, `batch*seq`, `-seq`, `-seq*2`.
fn write_monomial(f: &mut fmt::Formatter<'_>, k: i64, factors: &[SymExpr]) -> fmt::Result {
    if k < 0 {
        f.write_str("-")?;
    }
    for (i, x) in factors.iter().enumerate() {
        if i > 0 {
            f.write_str("*")?;
        }
        write!(f, "{x}")?;
    }
    match k.unsigned_abs() {
        1 if !factors.is_empty() => Ok(()),
        n if factors.is_empty() => write!(f, "{n}"),
        n => write!(f, "*{n}"),
    }
}

/// The coefficient and factors of a term of a sum.
fn monomial_parts(t: &SymExpr) -> (i64, &[SymExpr]) {
    match t {
        SymExpr::Product(k, factors) => (*k, factors),
        other => (1, std::slice::from_ref(other)),
    }
}

impl fmt::Display for SymExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SymExpr::Var(name) => f.write_str(name),
            SymExpr::Broadcast(parts) => {
                f.write_str("broadcast(")?;
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{p}")?;
                }
                f.write_str(")")
            }
            SymExpr::FloorDiv(num, k) => {
                // floor((x + k-1)/k) is ceil(x/k), which is how sizes are usually thought of.
                let p = Poly::of(num);
                let ceil = (p.constant_term() == k - 1)
                    .then(|| p.sub(&Poly::constant(k - 1))?.into_expr())
                    .flatten();
                let (name, x) = match &ceil {
                    Some(x) => ("ceil", x),
                    None => ("floor", &**num),
                };
                match x {
                    SymExpr::Sum(..) => write!(f, "{name}(({x})/{k})"),
                    _ => write!(f, "{name}({x}/{k})"),
                }
            }
            SymExpr::Min(parts, c) | SymExpr::Max(parts, c) => {
                f.write_str(if matches!(self, SymExpr::Min(..)) {
                    "min("
                } else {
                    "max("
                })?;
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{p}")?;
                }
                if let Some(c) = c {
                    write!(f, ", {c}")?;
                }
                f.write_str(")")
            }
            SymExpr::Product(k, factors) => write_monomial(f, *k, factors),
            SymExpr::Sum(terms, c) => {
                for (i, t) in terms.iter().enumerate() {
                    let (k, factors) = monomial_parts(t);
                    if i > 0 && k > 0 {
                        f.write_str("+")?;
                    }
                    write_monomial(f, k, factors)?;
                }
                match *c {
                    0 => Ok(()),
                    c if c > 0 => write!(f, "+{c}"),
                    c => write!(f, "-{}", c.unsigned_abs()),
                }
            }
        }
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Known(n) => write!(f, "{n}"),
            Dim::Sym(e) => write!(f, "{e}"),
            Dim::Unknown => f.write_str("?"),
        }
    }
}

/// A shape as text: `[N, 3, ?]`, `[]` for a scalar, `?` when the rank is unknown.
pub fn format_shape(shape: &Shape) -> String {
    match shape {
        None => "?".to_owned(),
        Some(dims) => {
            let dims: Vec<String> = dims.iter().map(Dim::to_string).collect();
            format!("[{}]", dims.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_of_each_kind_of_dim() {
        assert_eq!(Dim::Known(0).to_string(), "0");
        assert_eq!(Dim::Known(3).to_string(), "3");
        assert_eq!(Dim::sym("N").to_string(), "N");
        assert_eq!(Dim::Unknown.to_string(), "?");
        let b = SymExpr::broadcast([SymExpr::var("N"), SymExpr::var("M")]);
        assert_eq!(Dim::Sym(b).to_string(), "broadcast(M, N)");
    }

    #[test]
    fn format_shape_known_scalar_and_unknown_rank() {
        let s = Some(vec![Dim::sym("N"), Dim::Known(3), Dim::Unknown]);
        assert_eq!(format_shape(&s), "[N, 3, ?]");
        assert_eq!(format_shape(&Some(vec![])), "[]");
        assert_eq!(format_shape(&None), "?");
    }

    #[test]
    fn broadcast_normal_form_is_flat_sorted_deduplicated() {
        let (m, n, p) = (SymExpr::var("M"), SymExpr::var("N"), SymExpr::var("P"));
        let nm = SymExpr::broadcast([n.clone(), m.clone()]);
        let mn = SymExpr::broadcast([m.clone(), n.clone()]);
        assert_eq!(nm, mn);
        assert_eq!(nm, SymExpr::Broadcast(vec![m.clone(), n.clone()]));
        let nested = SymExpr::broadcast([p.clone(), nm.clone()]);
        let flat = SymExpr::broadcast([m.clone(), n.clone(), p.clone()]);
        assert_eq!(nested, flat);
        assert_eq!(SymExpr::broadcast([n.clone(), n.clone()]), n);
        assert_eq!(SymExpr::broadcast([n.clone(), nm.clone()]), nm);
        assert_eq!(nested.broadcast_operands(), vec![&m, &n, &p]);
    }

    fn v(name: &str) -> Poly {
        Poly::of(&SymExpr::var(name))
    }

    fn c(k: i64) -> Poly {
        Poly::constant(k)
    }

    fn text(p: &Poly) -> String {
        p.clone().into_value().to_string()
    }

    #[test]
    fn products_and_sums_have_one_normal_form() {
        let (b, s) = (v("batch"), v("seq"));
        let bs = b.mul(&s).unwrap();
        assert_eq!(bs, s.mul(&b).unwrap());
        assert_eq!(text(&bs), "batch*seq");
        let s12 = s.mul(&c(12)).unwrap();
        assert_eq!(s12, c(12).mul(&s).unwrap());
        assert_eq!(text(&s12), "seq*12");
        assert_eq!(
            s12.clone().into_expr(),
            Some(SymExpr::Product(12, vec![SymExpr::var("seq")]))
        );
        // Associative: (b * s) * 12 = b * (s * 12), and one expression whatever the order.
        assert_eq!(bs.mul(&c(12)).unwrap(), b.mul(&s12).unwrap(), "associative");
        assert_eq!(text(&bs.mul(&c(12)).unwrap()), "batch*seq*12");
        assert_eq!(text(&s.add(&c(1)).unwrap()), "seq+1");
        assert_eq!(s.add(&c(1)).unwrap(), c(1).add(&s).unwrap());
        assert_eq!(text(&s.sub(&c(1)).unwrap()), "seq-1");
        assert_eq!(text(&c(2).sub(&s).unwrap()), "-seq+2");
        assert_eq!(text(&s.mul(&s).unwrap()), "seq*seq");
        // Distributive, and like terms collect: 12*(seq+1) - 12 = seq*12.
        let p = s.add(&c(1)).unwrap().mul(&c(12)).unwrap();
        assert_eq!(text(&p), "seq*12+12");
        assert_eq!(p.sub(&c(12)).unwrap(), s12);
        // Leading term first: higher degree, then the earlier symbol.
        let q = s.add(&b).unwrap().add(&bs).unwrap();
        assert_eq!(text(&q), "batch*seq+batch+seq");
        assert_eq!(q, bs.add(&s).unwrap().add(&b).unwrap());
        // What cancels becomes a number.
        assert_eq!(s.sub(&s).unwrap().into_value(), Dim::Known(0));
        assert_eq!(
            s.add(&c(1)).unwrap().sub(&s).unwrap().into_size(),
            Dim::Known(1)
        );
        // A single symbol is the symbol itself.
        assert_eq!(s.clone().into_value(), Dim::sym("seq"));
        assert_eq!(s.mul(&c(1)).unwrap().into_value(), Dim::sym("seq"));
        assert_eq!(s.mul(&c(0)).unwrap().into_value(), Dim::Known(0));
        // Round trip through the expression.
        for p in [&bs, &s12, &p, &q] {
            assert_eq!(&Poly::of(&p.clone().into_expr().unwrap()), p);
        }
    }

    #[test]
    fn broadcast_stays_opaque_inside_arithmetic() {
        let nm = SymExpr::broadcast([SymExpr::var("N"), SymExpr::var("M")]);
        let p = Poly::of(&nm).mul(&c(2)).unwrap();
        assert_eq!(text(&p), "broadcast(M, N)*2");
        assert_eq!(
            p.div_exact(&c(2)).unwrap().into_value(),
            Dim::Sym(nm.clone())
        );
        // broadcast(M, N) is not M * N nor M + N, and does not divide by N.
        assert_ne!(Poly::of(&nm), v("M").mul(&v("N")).unwrap());
        assert_eq!(Poly::of(&nm).div_exact(&v("N")), None);
        // A broadcast of compound parts keeps them in normal form.
        let s1 = v("seq").add(&c(1)).unwrap().into_expr().unwrap();
        let b = SymExpr::broadcast([s1.clone(), SymExpr::var("N")]);
        assert_eq!(b.to_string(), "broadcast(N, seq+1)");
        assert_eq!(b, SymExpr::broadcast([SymExpr::var("N"), s1]));
        assert_eq!(b.symbols(), vec!["N", "seq"]);
    }

    #[test]
    fn exact_division_and_non_division() {
        let (b, s) = (v("batch"), v("seq"));
        let s12 = s.mul(&c(12)).unwrap();
        assert_eq!(s12.div_exact(&c(12)), Some(s.clone()));
        let total = b.mul(&s).unwrap().mul(&c(768)).unwrap();
        let per = b.mul(&c(64)).unwrap();
        assert_eq!(total.div_exact(&per), Some(s12.clone()));
        assert_eq!(total.div_exact(&total), Some(c(1)));
        // A polynomial divisor: (seq*2+2)/(seq+1) = 2, (seq*seq-1)/(seq-1) = seq+1.
        let s1 = s.add(&c(1)).unwrap();
        assert_eq!(s1.mul(&c(2)).unwrap().div_exact(&s1), Some(c(2)));
        let sq = s.mul(&s).unwrap().sub(&c(1)).unwrap();
        assert_eq!(sq.div_exact(&s.sub(&c(1)).unwrap()), Some(s1.clone()));
        assert_eq!(
            b.mul(&s1).unwrap().div_exact(&s1),
            Some(b.clone()),
            "(batch*seq+batch)/(seq+1)"
        );
        // Not exact: no quotient.
        assert_eq!(s.div_exact(&c(2)), None);
        assert_eq!(s12.add(&c(6)).unwrap().div_exact(&c(12)), None);
        assert_eq!(s.div_exact(&b), None);
        assert_eq!(b.div_exact(&b.mul(&s).unwrap()), None);
        assert_eq!(s1.div_exact(&s1.mul(&c(2)).unwrap()), None);
        assert_eq!(c(6).div_exact(&c(4)), None);
        assert_eq!(s.div_exact(&c(0)), None);
        assert_eq!(c(0).div_exact(&s), Some(c(0)));
        assert_eq!(c(i64::MIN).div_exact(&c(-1)), None);
    }

    fn floor(p: &Poly, k: i64) -> Poly {
        p.floor_div(k).unwrap()
    }

    fn ceil(p: &Poly, k: i64) -> Poly {
        p.ceil_div(k).unwrap()
    }

    fn at(p: &Poly, vals: &[(&str, i64)]) -> Option<i64> {
        let env = |n: &str| vals.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
        match p.clone().into_expr() {
            Some(e) => e.eval(&env),
            None => p.as_constant(),
        }
    }

    #[test]
    fn strided_sizes_written_differently_meet_in_one_form() {
        let h = v("h");
        // Conv 7x7 stride 2 pad 3: floor((h + 6 - 7)/2) + 1; a 1x1 stride-2 conv: floor((h-1)/2) + 1.
        let conv7 = floor(&h.sub(&c(1)).unwrap(), 2).add(&c(1)).unwrap();
        assert_eq!(conv7, ceil(&h, 2), "floor((h-1)/2)+1 = ceil(h/2)");
        assert_eq!(text(&conv7), "ceil(h/2)");
        // Max pool 3x3 stride 2 pad 1 after it: floor((ceil(h/2) + 2 - 3)/2) + 1 = ceil(h/4).
        let pool = floor(&conv7.sub(&c(1)).unwrap(), 2).add(&c(1)).unwrap();
        assert_eq!(pool, ceil(&h, 4), "a floor of a floor is one floor");
        assert_eq!(text(&pool), "ceil(h/4)");
        // Whole multiples leave the floor; a common factor cancels.
        assert_eq!(
            floor(&h.mul(&c(2)).unwrap().add(&c(3)).unwrap(), 2),
            h.add(&c(1)).unwrap()
        );
        assert_eq!(
            floor(&h.mul(&c(2)).unwrap().add(&c(2)).unwrap(), 4),
            floor(&h.add(&c(1)).unwrap(), 2)
        );
        assert_eq!(text(&floor(&h, 2)), "floor(h/2)");
        assert_eq!(text(&floor(&h.add(&c(5)).unwrap(), 4)), "floor((h+1)/4)+1");
        assert_eq!(text(&ceil(&h.add(&v("w")).unwrap(), 3)), "ceil((h+w)/3)");
        assert_eq!(text(&ceil(&h, 32).mul(&c(2)).unwrap()), "ceil(h/32)*2");
        assert_eq!(floor(&c(7), 2), c(3));
        assert_eq!(floor(&c(-7), 2), c(-4));
        assert_eq!(h.floor_div(0), None);
        assert_eq!(floor(&h, 1), h);
    }

    #[test]
    fn floors_are_exact_for_every_value() {
        let (h, w) = (v("h"), v("w"));
        let cases = [
            floor(&h.add(&c(5)).unwrap(), 4),
            ceil(&h.mul(&c(3)).unwrap().sub(&c(7)).unwrap(), 6),
            floor(&floor(&h.add(&w).unwrap(), 3).add(&c(2)).unwrap(), 5),
            ceil(&ceil(&h, 2).mul(&c(2)).unwrap(), 4),
            floor(&h.mul(&w).unwrap().add(&c(9)).unwrap(), 6),
        ];
        let direct = |i: usize, h: i64, w: i64| -> i64 {
            match i {
                0 => (h + 5).div_euclid(4),
                1 => -((-(3 * h - 7)).div_euclid(6)),
                2 => ((h + w).div_euclid(3) + 2).div_euclid(5),
                3 => -((-(2 * -((-h).div_euclid(2)))).div_euclid(4)),
                _ => (h * w + 9).div_euclid(6),
            }
        };
        for (i, p) in cases.iter().enumerate() {
            for hv in -9..40 {
                for wv in 0..7 {
                    assert_eq!(
                        at(p, &[("h", hv), ("w", wv)]),
                        Some(direct(i, hv, wv)),
                        "case {i} ({}) at h={hv} w={wv}",
                        text(p)
                    );
                }
            }
        }
    }

    #[test]
    fn min_and_max_drop_what_cannot_win() {
        let s = v("seq");
        let m = Poly::min(&[s.clone(), c(512)]).unwrap();
        assert_eq!(text(&m), "min(seq, 512)");
        assert_eq!(m, Poly::min(&[c(512), s.clone()]).unwrap(), "order-free");
        assert_eq!(Poly::min(&[s.clone(), s.add(&c(1)).unwrap()]).unwrap(), s);
        assert_eq!(Poly::min(&[s.add(&c(2)).unwrap(), c(1)]).unwrap(), c(1));
        assert_eq!(Poly::max(&[s.clone(), c(0)]).unwrap(), s, "a size is >= 0");
        assert_eq!(
            Poly::min(&[m.clone(), c(100)]).unwrap(),
            Poly::min(&[s.clone(), c(100)]).unwrap()
        );
        assert_eq!(
            Poly::min(&[m.clone(), s.clone()]).unwrap(),
            m,
            "nested minima flatten"
        );
        assert_eq!(at(&m, &[("seq", 7)]), Some(7));
        assert_eq!(at(&m, &[("seq", 700)]), Some(512));
        let mx = Poly::max(&[s.sub(&c(3)).unwrap(), c(0)]).unwrap();
        assert_eq!(text(&mx), "max(seq-3, 0)");
        assert_eq!(at(&mx, &[("seq", 1)]), Some(0));
        assert_eq!(mx.lower_bound(), Some(0));
        assert_eq!(m.lower_bound(), Some(0));
        assert_eq!(Poly::min(&[]), None);
    }

    #[test]
    fn nesting_beyond_the_limit_is_no_expression() {
        // A clamp and a stride per layer: min(floor((x+1)/2), 100), then again, and again.
        let mut p = v("h");
        let mut layers = 0;
        while let Some(next) = p
            .add(&c(1))
            .and_then(|q| q.floor_div(2))
            .and_then(|q| Poly::min(&[q, c(100 + layers)]))
        {
            p = next;
            layers += 1;
            assert!(layers < 100, "nesting never stops");
        }
        let e = p.into_expr().unwrap();
        assert!(e.depth() <= MAX_DEPTH, "depth {}", e.depth());
        assert!(layers >= 5, "{layers} layers");
    }

    #[test]
    fn lower_bounds_follow_floors() {
        let h = v("h");
        assert_eq!(ceil(&h, 2).lower_bound(), Some(0));
        assert_eq!(floor(&h.add(&c(9)).unwrap(), 4).lower_bound(), Some(2));
        let neg = floor(&h.sub(&c(5)).unwrap(), 2);
        assert_eq!(neg.lower_bound(), Some(-3), "floor((h+1)/2) - 3");
        assert!(
            !neg.neg().unwrap().never_positive(),
            "-floor((h-5)/2) is 2 at h = 0"
        );
    }

    #[test]
    fn overflow_and_growth_give_no_expression() {
        let s = v("seq");
        assert_eq!(s.mul(&c(i64::MAX)).unwrap().mul(&c(2)), None);
        assert_eq!(s.add(&c(i64::MAX)).unwrap().add(&c(1)), None);
        assert_eq!(c(i64::MIN).neg(), None);
        let mut p = s.clone();
        for _ in 1..MAX_DEGREE {
            p = p.mul(&s).unwrap();
        }
        assert_eq!(p.mul(&s), None, "degree beyond MAX_DEGREE");
        let mut sum = Poly::default();
        for i in 0..MAX_TERMS {
            sum = sum.add(&v(&format!("s{i:02}"))).unwrap();
        }
        assert_eq!(sum.add(&v("z")), None, "more than MAX_TERMS terms");
    }

    #[test]
    fn sizes_and_values_of_polynomials() {
        let s = v("seq");
        assert_eq!(c(-1).into_size(), Dim::Unknown);
        assert_eq!(c(-1).into_value(), Dim::Known(u64::MAX));
        assert_eq!(s.neg().unwrap().into_size(), Dim::Unknown);
        assert_eq!(s.sub(&c(1)).unwrap().into_size().to_string(), "seq-1");
        assert_eq!(Poly::of_size(&Dim::Known(u64::MAX)), None);
        assert_eq!(Poly::of_value(&Dim::Known(u64::MAX)), Some(c(-1)));
        assert_eq!(s.add(&c(2)).unwrap().lower_bound(), Some(2));
        assert_eq!(s.sub(&c(2)).unwrap().lower_bound(), Some(-2));
        assert_eq!(c(3).sub(&s).unwrap().lower_bound(), None);
        let e = s.mul(&c(12)).unwrap().into_expr().unwrap();
        assert_eq!(
            e.checked_div(&SymExpr::Product(4, vec![SymExpr::var("seq")])),
            None,
            "a constant quotient is no expression"
        );
        assert_eq!(
            e.checked_add(&SymExpr::var("seq")).map(|x| x.to_string()),
            Some("seq*13".to_owned())
        );
        assert_eq!(
            e.checked_mul(&SymExpr::var("batch")).map(|x| x.to_string()),
            Some("batch*seq*12".to_owned())
        );
    }
}
