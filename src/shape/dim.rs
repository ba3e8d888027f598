//! Dimensions and shapes as shape inference and the broadcast algebra ([`super::broadcast`]) see them.
//!
//! A dimension is a known size (0 included: ONNX allows empty tensors), a symbolic size (a `dim_param`
//! such as `batch`, or an expression over such symbols), or unknown. A shape is a list of dimensions, or
//! nothing at all when even the rank is unknown.
//!
//! Symbolic expressions are kept in a normal form (see [`SymExpr::broadcast`]) so that structural
//! equality is the equality the broadcast rules need: `broadcast(N, M)` and `broadcast(M, N)` are the same
//! value, which makes broadcasting commutative and associative on symbols as the SONNX `Broadcast` draft
//! (001, "Alternate functionality description") requires of the operator.

use std::fmt;

/// A dimension: known size (0 allowed), symbolic, or unknown.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    Known(u64),
    Sym(SymExpr),
    Unknown,
}

/// A symbolic size expression.
///
/// Variants beyond [`SymExpr::Var`] are compound; code that only cares about the leaves of an expression
/// matches `Var` (or `Broadcast`) and treats everything else as opaque, so that new variants (products,
/// quotients) can be added without touching it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SymExpr {
    /// A named symbol: the `dim_param` of a declared shape.
    Var(String),
    /// The broadcast of several sizes that could not be resolved, e.g. `broadcast(M, N)` for an axis where
    /// one input has `M` and another `N`. Build it with [`SymExpr::broadcast`], which keeps its parts
    /// flat, sorted and without duplicates.
    Broadcast(Vec<SymExpr>),
}

/// A shape: `None` when the rank is unknown; `Some(vec![])` is a scalar.
pub type Shape = Option<Vec<Dim>>;

impl SymExpr {
    pub fn var(name: impl Into<String>) -> Self {
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
}

impl Dim {
    /// A symbolic dimension named `name`.
    pub fn sym(name: impl Into<String>) -> Self {
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
}
