//! The polynomial normal form of symbolic sizes ([`Poly`]): integer coefficients over atoms (symbols,
//! broadcasts, floors, mins and maxes), monomials sorted by a monomial order, so that two expressions of
//! one value are one expression. [`super::dim`] keeps the atoms ([`SymExpr`]) and the dimensions; every
//! arithmetic on sizes goes through here: sums, products, exact division, `floor(x/k)`, `min`, `max`,
//! and the lower bounds the W1 search and `min`/`max` pruning use.

use super::dim::{Dim, MAX_DEGREE, MAX_DEPTH, MAX_TERMS, SymExpr};
use std::cmp::Ordering;
use std::collections::BTreeMap;

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
fn atom_lower_bound(a: &SymExpr, var: i64) -> Option<i64> {
    match a {
        SymExpr::Var(_) => Some(var),
        SymExpr::Broadcast(_) => Some(0),
        SymExpr::FloorDiv(num, k) => Some(Poly::of(num).lower_bound_with(var)?.div_euclid(*k)),
        SymExpr::Min(parts, c) => parts
            .iter()
            .map(|p| Poly::of(p).lower_bound_with(var))
            .chain(c.map(Some))
            .try_fold(i64::MAX, |acc, b| Some(acc.min(b?))),
        SymExpr::Max(parts, c) => parts
            .iter()
            .filter_map(|p| Poly::of(p).lower_bound_with(var))
            .chain(*c)
            .max(),
        SymExpr::Product(..) | SymExpr::Sum(..) => Poly::of(a).lower_bound_with(var),
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
        self.lower_bound_with(0)
    }

    /// [`Self::lower_bound`] where every symbol is at least 1, as the sizes of the inputs a model is
    /// run with are (the assumption of the W1 search too): `h - 1` is then at least 0.
    pub fn lower_bound_for_sizes(&self) -> Option<i64> {
        self.lower_bound_with(1)
    }

    /// The lower bound with each symbol at least `var`.
    fn lower_bound_with(&self, var: i64) -> Option<i64> {
        let mut sum = 0i64;
        for (m, &k) in &self.terms {
            if m.is_empty() {
                sum = sum.checked_add(k)?;
                continue;
            }
            if k < 0 {
                return None;
            }
            let bounds: Vec<i64> = m
                .iter()
                .map(|a| atom_lower_bound(a, var))
                .collect::<Option<_>>()?;
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
            .all(|a| atom_lower_bound(a, 0).is_some_and(|b| b >= 0))
    }

    /// The greatest common divisor of the coefficients of its non-constant monomials (0 when there
    /// are none): every value it takes is the constant term plus a multiple of it.
    pub fn coefficient_gcd(&self) -> u64 {
        self.terms
            .iter()
            .filter(|(m, _)| !m.is_empty())
            .fold(0, |g, (_, k)| gcd(g, k.unsigned_abs()))
    }

    /// Whether it is non-zero wherever every symbol is 1 or more, as the sizes of real inputs are:
    /// a polynomial over plain symbols (a floor or a minimum can be 0) whose coefficients, the
    /// constant's too, all have one sign (`8*n` is never 0 for `n >= 1`).
    pub fn nonzero_for_sizes(&self) -> bool {
        let plain = self
            .terms
            .keys()
            .flatten()
            .all(|a| matches!(a, SymExpr::Var(_)));
        let one_sign = self.terms.values().all(|&k| k > 0) || self.terms.values().all(|&k| k < 0);
        plain && one_sign && !self.terms.is_empty()
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
