//! Symbolic sizes with the values a deployment uses (`check --dim seq=1..8192`, the `dims` table of
//! the configuration): a symbol of a graph input fixed to one value, or limited to a range.
//!
//! A fixed value replaces the symbol in the declared shapes before inference, so sizes computed from
//! it are numbers and a broadcast that then fails is an E1 like any other. A range is not substituted
//! (inference would have to carry sets of values): the conditions of W1 and W2 are judged over it
//! afterwards ([`super::ranges`]), so the findings say which values of the range fail.
//!
//! A name is a `dim_param` of an input of the main graph, or the positional name the messages use for
//! an axis declared without a name, as `?`, or with `-1` (`x[3]`). A name the model lacks is refused
//! ([`Bindings::check_names`]): a typo would otherwise bind nothing and look like a proof.

use super::dim::Dim;
use super::value::ValueInfo;
use crate::ir::{Graph, Model};
use crate::proto::tensor_shape_proto::dimension::Value as DimValue;
use std::collections::BTreeMap;
use std::fmt;

/// Why a binding cannot be had: a value that is no size or range, an argument that is not
/// `NAME=VALUE`, or names the model's inputs do not have. The message is the whole one the command
/// line prints after `error: `.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BindingError {
    /// A value that is not a whole number in the range sizes are evaluated in.
    #[error("'{0}' is not a size (a whole number from 0 to {max})", max = i64::MAX)]
    NotASize(String),
    /// `LO..HI` with `HI` below `LO`.
    #[error("the range {text} is empty ({hi} is below {lo})")]
    EmptyRange { text: String, lo: u64, hi: u64 },
    /// A `--dim` argument without `NAME=`.
    #[error("'{0}' is not NAME=VALUE or NAME=LO..HI (as in seq=128 or seq=1..8192)")]
    NotAnArgument(String),
    /// A `--dim NAME=VALUE` whose value is bad.
    #[error("--dim {name}: {cause}")]
    InArgument {
        name: String,
        cause: Box<BindingError>,
    },
    /// Bound names no input dim of the model has; `have` are those it has.
    #[error("no input dim of the model is named {} (--dim, dims); {}", .missing.join(", "), have_text(.have))]
    UnknownNames {
        missing: Vec<String>,
        have: Vec<String>,
    },
}

/// `it has a, b`, or that it has none.
fn have_text(have: &[String]) -> String {
    if have.is_empty() {
        "it has none (every input size is a number)".to_owned()
    } else {
        format!("it has {}", have.join(", "))
    }
}

/// The values one symbol may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    /// Exactly this size.
    Fixed(u64),
    /// Every size from `lo` to `hi` inclusive; `hi` `None`: no upper limit.
    Range { lo: u64, hi: Option<u64> },
}

impl Domain {
    /// Parses `8`, `1..64` or `1..=64` (both inclusive: the sizes a deployment names are the ends it
    /// uses), or `513..` (open above).
    pub fn parse(text: &str) -> Result<Domain, BindingError> {
        let t = text.trim();
        // Sizes are evaluated as i64: a larger one could not be told from an overflow.
        let number = |s: &str| {
            s.trim()
                .parse::<u64>()
                .ok()
                .filter(|&v| i64::try_from(v).is_ok())
                .ok_or_else(|| BindingError::NotASize(s.to_owned()))
        };
        let Some((lo, hi)) = t.split_once("..") else {
            return number(t).map(Domain::Fixed);
        };
        let lo = number(lo)?;
        let hi = hi.strip_prefix('=').unwrap_or(hi);
        if hi.trim().is_empty() {
            return Ok(Domain::Range { lo, hi: None });
        }
        let hi = number(hi)?;
        if hi < lo {
            return Err(BindingError::EmptyRange {
                text: t.to_owned(),
                lo,
                hi,
            });
        }
        // A range of one value is that value: it flows through inference as a number.
        Ok(if hi == lo {
            Domain::Fixed(lo)
        } else {
            Domain::Range { lo, hi: Some(hi) }
        })
    }
}

impl fmt::Display for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Domain::Fixed(v) => write!(f, "{v}"),
            Domain::Range { lo, hi: Some(hi) } => write!(f, "{lo}..={hi}"),
            Domain::Range { lo, hi: None } => write!(f, "{lo}.."),
        }
    }
}

/// The values of the symbols a run binds, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bindings {
    map: BTreeMap<String, Domain>,
}

impl Bindings {
    /// Parses one `NAME=VALUE` or `NAME=LO..HI` of the command line.
    pub fn parse_arg(arg: &str) -> Result<(String, Domain), BindingError> {
        // The first `=`: a range's `..=` comes after it.
        let Some((name, value)) = arg.split_once('=').filter(|(n, _)| !n.trim().is_empty()) else {
            return Err(BindingError::NotAnArgument(arg.to_owned()));
        };
        let domain = Domain::parse(value).map_err(|e| BindingError::InArgument {
            name: name.trim().to_owned(),
            cause: Box::new(e),
        })?;
        Ok((name.trim().to_owned(), domain))
    }

    /// Binds `name`; a later binding of the same name replaces the earlier (the command line goes
    /// over the configuration).
    pub fn insert(&mut self, name: String, domain: Domain) {
        self.map.insert(name, domain);
    }

    /// `self` with `over`'s bindings over it.
    pub fn with(&self, over: &Bindings) -> Bindings {
        let mut out = self.clone();
        for (n, d) in &over.map {
            out.insert(n.clone(), *d);
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<Domain> {
        self.map.get(name).copied()
    }

    /// Every binding, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Domain)> {
        self.map.iter().map(|(n, d)| (n.as_str(), *d))
    }

    /// Whether any symbol is bound to a range (not a single value).
    pub fn has_ranges(&self) -> bool {
        self.map.values().any(|d| matches!(d, Domain::Range { .. }))
    }

    fn fixed(&self, name: &str) -> Option<i64> {
        match self.map.get(name)? {
            Domain::Fixed(v) => i64::try_from(*v).ok(),
            Domain::Range { .. } => None,
        }
    }

    /// `Err` naming the bound names the model has no input dim of, with the names it has.
    pub fn check_names(&self, model: &Model) -> Result<(), BindingError> {
        let have = input_dim_names(model);
        let missing: Vec<String> = self
            .map
            .keys()
            .filter(|n| !have.iter().any(|h| h == *n))
            .cloned()
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(BindingError::UnknownNames { missing, have })
    }

    /// Applies the bindings to the declared type `info` of graph input `input` (after its `?` axes
    /// got their positional symbols): a fixed symbol becomes its size, an expression of fixed
    /// symbols its value, and an axis without a name (`-1`, no value) bound by its positional name
    /// becomes the size, or that name as a symbol when it is bound to a range.
    pub fn bind_input(&self, input: &str, info: &mut ValueInfo) {
        let Some(dims) = info.shape.as_mut() else {
            return;
        };
        for (axis, d) in dims.iter_mut().enumerate() {
            if *d == Dim::Unknown {
                let name = positional(input, axis);
                match self.map.get(&name) {
                    Some(Domain::Fixed(v)) => *d = Dim::Known(*v),
                    Some(Domain::Range { .. }) => *d = Dim::sym(name),
                    None => {}
                }
            } else {
                self.substitute(d);
            }
        }
    }

    /// A declared shape (of any value) with the fixed symbols replaced by their sizes, so that a
    /// value declared `[seq]` agrees with what inference computes from the bound input.
    pub fn bind_declared(&self, info: &mut ValueInfo) {
        if let Some(dims) = info.shape.as_mut() {
            dims.iter_mut().for_each(|d| self.substitute(d));
        }
    }

    fn substitute(&self, d: &mut Dim) {
        let Dim::Sym(e) = d else {
            return;
        };
        if let Some(v) = e
            .eval(&|n| self.fixed(n))
            .and_then(|v| u64::try_from(v).ok())
        {
            *d = Dim::Known(v);
        }
    }
}

/// The positional name of axis `axis` of input `input`: `x[3]`, as messages name such an axis.
fn positional(input: &str, axis: usize) -> String {
    format!("{input}[{axis}]")
}

/// The names a binding may use for the model's inputs, sorted: the symbols of their declared
/// shapes, and the positional names of their axes declared `?`, `-1` or without a value.
pub fn input_dim_names(model: &Model) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(g) = &model.graph {
        collect(g, &mut out);
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn collect(g: &Graph, out: &mut Vec<String>) {
    use crate::proto::type_proto::Value as V;
    let initialized: std::collections::HashSet<&str> =
        g.header.initializer.iter().map(|t| t.name()).collect();
    for input in &g.header.input {
        // An input with an initializer of its name is a weight with a default: not a size to bind.
        if initialized.contains(input.name()) {
            continue;
        }
        let Some(V::TensorType(t)) = input.r#type.as_ref().and_then(|t| t.value.as_ref()) else {
            continue;
        };
        let Some(shape) = &t.shape else { continue };
        for (axis, d) in shape.dim.iter().enumerate() {
            match &d.value {
                Some(DimValue::DimValue(v)) if *v >= 0 => {}
                Some(DimValue::DimParam(p)) if !p.is_empty() && p != super::value::ANONYMOUS => {
                    match super::value::dim_from_proto(d) {
                        Dim::Sym(e) => out.extend(e.symbols().into_iter().map(str::to_owned)),
                        _ => out.push(p.clone()),
                    }
                }
                _ => out.push(positional(input.name(), axis)),
            }
        }
    }
}

/// The symbols of `dims` (sorted, once each), when every one is bound to a range; `None` when a dim
/// is unknown or a symbol is free (its values are the search's, not a deployment's).
pub fn ranged_symbols<'d>(dims: &[&'d Dim], b: &Bindings) -> Option<Vec<(&'d str, Domain)>> {
    let mut names: Vec<&str> = Vec::new();
    for d in dims {
        match d {
            Dim::Sym(e) => names.extend(e.symbols()),
            Dim::Unknown => return None,
            Dim::Known(_) => {}
        }
    }
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        return None;
    }
    names
        .into_iter()
        .map(|n| match b.get(n)? {
            d @ Domain::Range { .. } => Some((n, d)),
            Domain::Fixed(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_ranges_parse() {
        assert_eq!(Domain::parse("8"), Ok(Domain::Fixed(8)));
        assert_eq!(
            Domain::parse("1..64"),
            Ok(Domain::Range {
                lo: 1,
                hi: Some(64)
            })
        );
        assert_eq!(
            Domain::parse("1..=64"),
            Ok(Domain::Range {
                lo: 1,
                hi: Some(64)
            })
        );
        assert_eq!(
            Domain::parse("513.."),
            Ok(Domain::Range { lo: 513, hi: None })
        );
        assert_eq!(Domain::parse("4..4"), Ok(Domain::Fixed(4)));
        assert!(Domain::parse("9..3").is_err());
        assert!(Domain::parse("-1").is_err());
        assert!(Domain::parse("a..b").is_err());
        assert!(Domain::parse("9223372036854775808").is_err());
        assert!(Domain::parse("9223372036854775807..").is_ok());
        assert_eq!(
            Bindings::parse_arg("seq=1..=8"),
            Ok(("seq".into(), Domain::Range { lo: 1, hi: Some(8) }))
        );
        assert_eq!(
            Bindings::parse_arg("x[3]=48"),
            Ok(("x[3]".into(), Domain::Fixed(48)))
        );
        assert!(Bindings::parse_arg("=3").is_err());
        assert!(Bindings::parse_arg("seq").is_err());
    }
}
