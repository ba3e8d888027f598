//! Einsum (opset 12, 28): the output shape from the equation.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#Einsum>. The equation is
//! `term,term,...->output` (or implicit: the labels used once, in alphabetical order, after the
//! ellipsis dims); `...` stands for the broadcast of the remaining leading dims of each operand.
//! A label's size is what its operands agree on, a 1 broadcasting against any other size (where
//! another size is given, it is the only valid result). A malformed equation leaves the rank unknown.

use super::super::broadcast::multidirectional;
use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Shape};
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use std::collections::BTreeMap;

pub fn register(r: &mut Registry) {
    r.add("", "Einsum", 12, einsum);
}

/// One operand term: its labels before and after an ellipsis, or all of them when there is none.
struct Term {
    labels: Vec<char>,
    /// Where the ellipsis sits among the labels, when there is one.
    ellipsis: Option<usize>,
}

fn parse_term(s: &str) -> Option<Term> {
    let (before, after, ellipsis) = match s.split_once("...") {
        Some((b, a)) => (b, a, true),
        None => (s, "", false),
    };
    let letters = |p: &str| -> Option<Vec<char>> {
        p.chars()
            .map(|c| c.is_ascii_alphabetic().then_some(c))
            .collect()
    };
    let mut labels = letters(before)?;
    let at = labels.len();
    labels.extend(letters(after)?);
    Some(Term {
        labels,
        ellipsis: ellipsis.then_some(at),
    })
}

/// The size of a label from all the sizes its operands give it.
fn label_size(sizes: &[Dim]) -> Dim {
    let mut known: Option<u64> = None;
    for d in sizes {
        if let Dim::Known(n) = d
            && *n != 1
        {
            match known {
                Some(k) if k != *n => return Dim::Unknown, // a mismatch: invalid
                _ => known = Some(*n),
            }
        }
    }
    if let Some(n) = known {
        return Dim::Known(n);
    }
    let symbols: Vec<&Dim> = sizes.iter().filter(|d| matches!(d, Dim::Sym(_))).collect();
    match symbols.first() {
        Some(s) if symbols.iter().all(|x| x == s) => (*s).clone(),
        Some(_) => Dim::Unknown,
        None if sizes.contains(&Dim::Unknown) => Dim::Unknown,
        None => Dim::Known(1),
    }
}

fn einsum(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
    let elem = (0..ctx.num_inputs()).find_map(|k| ctx.elem(k));
    let shapes: Vec<Shape> = (0..ctx.num_inputs()).map(|k| ctx.shape(k)).collect();
    let shape = ctx.attr_s("equation").and_then(|eq| infer(eq, &shapes));
    vec![ValueInfo::tensor(elem, shape)]
}

/// The output shape of equation `eq` over operands of `shapes`.
fn infer(eq: &str, shapes: &[Shape]) -> Shape {
    let eq: String = eq.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (eq.as_str(), None),
    };
    let terms: Vec<Term> = lhs.split(',').map(parse_term).collect::<Option<_>>()?;
    if terms.len() != shapes.len() {
        return None;
    }
    let mut sizes: BTreeMap<char, Vec<Dim>> = BTreeMap::new();
    let mut ellipses: Vec<Shape> = Vec::new();
    for (term, shape) in terms.iter().zip(shapes) {
        match shape {
            Some(dims) => {
                let extra = dims.len().checked_sub(term.labels.len())?;
                let at = term.ellipsis.unwrap_or(term.labels.len());
                if term.ellipsis.is_none() && extra != 0 {
                    return None; // rank does not match the term
                }
                for (i, &c) in term.labels.iter().enumerate() {
                    let pos = if i < at { i } else { i + extra };
                    sizes.entry(c).or_default().push(dims[pos].clone());
                }
                if term.ellipsis.is_some() {
                    ellipses.push(Some(dims[at..at + extra].to_vec()));
                }
            }
            None => {
                for &c in &term.labels {
                    sizes.entry(c).or_default().push(Dim::Unknown);
                }
                if term.ellipsis.is_some() {
                    ellipses.push(None);
                }
            }
        }
    }
    let ellipsis_dims = || multidirectional(&ellipses).shape;
    let output = match rhs {
        Some(r) => parse_term(r)?,
        None => {
            // Implicit output: the labels used once, sorted, after any ellipsis dims.
            let mut counts: BTreeMap<char, usize> = BTreeMap::new();
            for c in terms.iter().flat_map(|t| &t.labels) {
                *counts.entry(*c).or_default() += 1;
            }
            Term {
                labels: counts
                    .into_iter()
                    .filter(|&(_, n)| n == 1)
                    .map(|(c, _)| c)
                    .collect(),
                ellipsis: (!ellipses.is_empty()).then_some(0),
            }
        }
    };
    let mut out = Vec::new();
    for (i, c) in output.labels.iter().enumerate() {
        if output.ellipsis == Some(i) {
            out.extend(ellipsis_dims()?);
        }
        out.push(label_size(sizes.get(c)?));
    }
    if output.ellipsis == Some(output.labels.len()) {
        out.extend(ellipsis_dims()?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::super::common::test_util::*;
    use super::*;

    fn eq(e: &str, inputs: &[Option<ValueInfo>]) -> Shape {
        let n = node("Einsum", inputs.len(), 1, vec![attr_s("equation", e)]);
        out_shape(einsum, &n, 12, inputs)
    }

    #[test]
    fn explicit_and_implicit_outputs() {
        let q = t(F32, &["B", "H", "S", "64"]);
        let k = t(F32, &["B", "H", "T", "64"]);
        assert_eq!(
            eq("bhid,bhjd->bhij", &[q.clone(), k.clone()]),
            shape(&["B", "H", "S", "T"])
        );
        assert_eq!(
            eq("ij,jk", &[t(F32, &["2", "3"]), t(F32, &["3", "4"])]),
            shape(&["2", "4"])
        );
        assert_eq!(eq("ii->i", &[t(F32, &["3", "3"])]), shape(&["3"]));
        assert_eq!(eq("ij->", &[t(F32, &["3", "3"])]), shape(&[]));
        assert_eq!(
            eq(
                "...ij,...jk->...ik",
                &[t(F32, &["5", "1", "2", "3"]), t(F32, &["4", "3", "6"])]
            ),
            shape(&["5", "4", "2", "6"])
        );
        assert_eq!(
            eq("...ij->...ji", &[t(F32, &["N", "2", "3"])]),
            shape(&["N", "3", "2"])
        );
        assert_eq!(
            eq("i...j", &[t(F32, &["2", "N", "3"])]),
            shape(&["N", "2", "3"])
        );
    }

    #[test]
    fn malformed_equations_and_label_sizes() {
        assert_eq!(eq("ij->ij", &[t(F32, &["2"])]), None);
        assert_eq!(eq("ij,jk->ik", &[t(F32, &["2", "3"])]), None);
        assert_eq!(eq("i1->i", &[t(F32, &["2", "3"])]), None);
        assert_eq!(eq("ij->k", &[t(F32, &["2", "3"])]), None);
        assert_eq!(eq("ij,j->i", &[None, t(F32, &["3"])]), shape(&["?"]));
        assert_eq!(
            eq("ij,ij->ij", &[t(F32, &["1", "N"]), t(F32, &["M", "N"])]),
            shape(&["M", "N"])
        );
        assert_eq!(
            eq("ij,ij->ij", &[t(F32, &["1", "5"]), t(F32, &["?", "1"])]),
            shape(&["?", "5"])
        );
        assert_eq!(
            eq("ij,ij->ij", &[t(F32, &["2", "5"]), t(F32, &["3", "5"])]),
            shape(&["?", "5"])
        );
    }
}
