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

use std::fmt;
use std::sync::Arc;

pub use super::poly::Poly;

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

    /// Whether `self` and `other` differ wherever every symbol is 1 or more (`n*64` and `n*56`): see
    /// [`Poly::nonzero_for_sizes`]. Weaker than [`Self::always_differs`], which holds at 0 too.
    pub fn differs_for_sizes(&self, other: &SymExpr) -> bool {
        Poly::of(self)
            .sub(&Poly::of(other))
            .is_some_and(|d| d.nonzero_for_sizes())
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

/// Writes an atom of a product or a quotient: a symbol named with an expression (exporters name
/// sizes `s0 + 1` or `floor((h - 1)/32) + 1`) in parentheses, so that `(h + 1)*(w + 1)` is not read
/// back as `h + 1*w + 1`.
fn write_factor(f: &mut fmt::Formatter<'_>, x: &SymExpr) -> fmt::Result {
    match x {
        SymExpr::Var(name) if !is_identifier(name) => write!(f, "({name})"),
        x => write!(f, "{x}"),
    }
}

/// Whether a symbol's name reads as one name in an expression: letters, digits, `_`, `.`, `:` and
/// brackets (onnx-lint's own `x[3]`), nothing an operator or a space could split.
fn is_identifier(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | ':' | '[' | ']'))
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
        // In a sum too: `w+(num-h)` is not read back as `w + num - h`.
        write_factor(f, x)?;
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
                    _ => {
                        write!(f, "{name}(")?;
                        write_factor(f, x)?;
                        write!(f, "/{k})")
                    }
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
    ShapeText(shape.as_deref()).to_string()
}

/// A shape as [`format_shape`] writes it (`[batch, 16]`, `?` when the rank is unknown), displayed
/// straight into a writer: listing a million shapes makes no string for each.
pub struct ShapeText<'a>(pub Option<&'a [Dim]>);

impl fmt::Display for ShapeText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_shape(f, self.0)
    }
}

/// Writes `dims` as [`ShapeText`] displays them. Known sizes go in as digits rather than through
/// the formatting machinery, which was most of the time of listing a million shapes (perf).
pub fn write_shape(out: &mut impl fmt::Write, dims: Option<&[Dim]>) -> fmt::Result {
    let Some(dims) = dims else {
        return out.write_str("?");
    };
    out.write_str("[")?;
    for (i, d) in dims.iter().enumerate() {
        if i > 0 {
            out.write_str(", ")?;
        }
        match d {
            Dim::Known(n) => write_digits(out, *n)?,
            other => write!(out, "{other}")?,
        }
    }
    out.write_str("]")
}

/// `n` in decimal.
fn write_digits(out: &mut impl fmt::Write, mut n: u64) -> fmt::Result {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // ASCII digits: always UTF-8.
    out.write_str(std::str::from_utf8(&digits[at..]).unwrap_or("?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_written_with_digits_are_what_display_writes() {
        for n in [0, 7, 9, 10, 99, 100, 12_345, u64::from(u32::MAX), u64::MAX] {
            let mut s = String::new();
            let _ = write_digits(&mut s, n);
            assert_eq!(s, n.to_string());
        }
        let dims = [
            Dim::Known(0),
            Dim::sym("N"),
            Dim::Unknown,
            Dim::Known(1 << 40),
        ];
        let each: Vec<String> = dims.iter().map(Dim::to_string).collect();
        assert_eq!(
            format_shape(&Some(dims.to_vec())),
            format!("[{}]", each.join(", "))
        );
        assert_eq!(format_shape(&Some(vec![])), "[]");
        assert_eq!(format_shape(&None), "?");
    }

    #[test]
    fn symbols_named_with_expressions_are_parenthesized_where_an_operator_binds_them() {
        let v = SymExpr::var;
        let show = |e: SymExpr| e.to_string();
        assert_eq!(
            show(SymExpr::Product(1, vec![v("h + 1"), v("w + 1")])),
            "(h + 1)*(w + 1)"
        );
        assert_eq!(show(SymExpr::Product(2, vec![v("s0 + 1")])), "(s0 + 1)*2");
        assert_eq!(show(SymExpr::Product(-1, vec![v("s0 + 1")])), "-(s0 + 1)");
        assert_eq!(
            show(SymExpr::FloorDiv(Box::new(v("s0 + 1")), 2)),
            "floor((s0 + 1)/2)"
        );
        // In a sum too (`w+(num-h)` is not `w + num - h`); names that are one name never get them,
        // nor does a name printed alone.
        assert_eq!(show(SymExpr::Sum(vec![v("s0 + 1")], 3)), "(s0 + 1)+3");
        assert_eq!(show(SymExpr::Sum(vec![v("num-h"), v("w")], 0)), "(num-h)+w");
        assert_eq!(show(v("num-h")), "num-h");
        assert_eq!(show(SymExpr::Product(2, vec![v("x[3]")])), "x[3]*2");
        assert_eq!(
            show(SymExpr::Product(1, vec![v("batch"), v("seq.len")])),
            "batch*seq.len"
        );
    }

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
