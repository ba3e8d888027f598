//! Einsum (opset 12, 28): the output shape from the equation.
//!
//! Spec: <https://github.com/onnx/onnx/blob/main/docs/Operators.md#Einsum>. The equation is
//! `term,term,...->output` (or implicit: the labels used once, in alphabetical order, after the
//! ellipsis dims); `...` stands for the broadcast of the remaining leading dims of each operand.
//! A label's size is what its operands agree on, a 1 broadcasting against any other size (where
//! another size is given, it is the only valid result).
//!
//! Contracts, as onnxruntime enforces them (onnx's inference at load for the term count, the ranks
//! and the ellipsis's width when every input's shape is known; its kernel's preprocessing at run for
//! the rest, and for everything when a shape is unknown at load):
//! - [`EINSUM_TERMS`]: as many terms as inputs;
//! - [`EINSUM_EQUATION`]: terms of letters (a-z, A-Z) with at most one ellipsis; the output's letters
//!   each in some input term and not repeated; the output has an ellipsis when an input's ellipsis
//!   covers axes (one covering none may go without). Whitespace is ignored;
//! - [`EINSUM_RANK`]: each input has as many axes as its term has letters, at least as many with an
//!   ellipsis;
//! - [`EINSUM_ELLIPSIS`]: the ellipsis covers as many axes in every input that has one (onnxruntime
//!   does not broadcast ellipses of different widths, as numpy does), and those axes broadcast;
//! - [`EINSUM_LABELS`]: a label has one size across the inputs, where a 1 broadcasts against any
//!   size (onnxruntime's kernel takes numpy's reading; the spec is silent). A label summed away
//!   (a contraction) of a plain symbol against a number binds the symbol (I002), as MatMul's does;
//! - [`EINSUM_DIAGONAL`]: a label repeated within one term (a diagonal) has equal sizes there, a 1
//!   included: the kernel takes no broadcast there.

use super::super::broadcast::multidirectional;
use super::super::contract::{Contract, Operand};
use super::super::ctx::NodeCtx;
use super::super::dim::{Dim, Shape, SymExpr};
use super::super::registry::Registry;
use super::super::value::ValueInfo;
use crate::diagnostics::Code;
use std::collections::BTreeMap;

pub fn register(r: &mut Registry) {
    r.add("", "Einsum", 12, einsum);
}

/// The equation's terms against the inputs.
pub const EINSUM_TERMS: Contract = Contract::new(
    "einsum-terms",
    "the equation has as many comma-separated terms as the node has inputs",
);

/// The equation's syntax, and its output term against the input terms.
pub const EINSUM_EQUATION: Contract = Contract::new(
    "einsum-equation",
    "each term is letters with at most one ellipsis; the output's letters appear in the input terms, \
     once each, and the output has an ellipsis when an input's ellipsis covers axes",
);

/// Each term against its input's rank.
pub const EINSUM_RANK: Contract = Contract::new(
    "einsum-rank",
    "each input has as many axes as its term has letters (at least as many with an ellipsis)",
);

/// The axes the ellipses stand for.
pub const EINSUM_ELLIPSIS: Contract = Contract::new(
    "einsum-ellipsis",
    "the ellipsis covers as many axes in every input that has one, and those axes broadcast (equal \
     sizes, or 1)",
);

/// A label's sizes across the inputs.
pub const EINSUM_LABELS: Contract = Contract::new(
    "einsum-labels",
    "a label has one size across the inputs, or 1 (which broadcasts)",
);

/// A label repeated within one term.
pub const EINSUM_DIAGONAL: Contract = Contract::new(
    "einsum-diagonal",
    "a label repeated within one term (a diagonal) has equal sizes on those axes",
);

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

/// One axis of one input: where it is, and its size.
#[derive(Clone, Debug)]
struct Axis {
    slot: usize,
    axis: usize,
    dim: Dim,
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
    let shape = match ctx.attr_s("equation") {
        Some(eq) => {
            let eq = eq.to_owned();
            infer(ctx, &eq)
        }
        None => None,
    };
    vec![ValueInfo::tensor(elem, shape)]
}

/// The equation's terms, checked against [`EINSUM_EQUATION`] and [`EINSUM_TERMS`]: the input terms
/// and the explicit output term, if any.
fn parse(ctx: &mut NodeCtx<'_>, eq: &str) -> Option<(Vec<Term>, Option<Term>)> {
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (eq, None),
    };
    let mut terms = Vec::new();
    for (k, s) in lhs.split(',').enumerate() {
        let Some(t) = parse_term(s) else {
            ctx.broken(
                EINSUM_EQUATION,
                &[],
                format_args!("term {k} '{s}' is not letters with at most one ellipsis"),
            );
            return None;
        };
        terms.push(t);
    }
    let output = match rhs {
        Some(r) => {
            let Some(t) = parse_term(r) else {
                ctx.broken(
                    EINSUM_EQUATION,
                    &[],
                    format_args!("the output '{r}' is not letters with at most one ellipsis"),
                );
                return None;
            };
            Some(t)
        }
        None => None,
    };
    let n = ctx.num_inputs();
    if terms.len() != n {
        let s = if terms.len() == 1 { "" } else { "s" };
        ctx.broken(
            EINSUM_TERMS,
            &[],
            format_args!("'{lhs}' has {} term{s} for {n} inputs", terms.len()),
        );
        return None;
    }
    if let Some(out) = &output {
        for (i, c) in out.labels.iter().enumerate() {
            let detail = if out.labels[..i].contains(c) {
                format!("the output repeats label '{c}'")
            } else if !terms.iter().any(|t| t.labels.contains(c)) {
                format!("the output's label '{c}' is in no input term")
            } else {
                continue;
            };
            ctx.broken(EINSUM_EQUATION, &[], detail);
            return None;
        }
    }
    Some((terms, output))
}

/// The output shape of equation `eq` over the node's inputs, with its contracts checked; `None` after
/// a break.
fn infer(ctx: &mut NodeCtx<'_>, eq: &str) -> Shape {
    let eq: String = eq.chars().filter(|c| !c.is_whitespace()).collect();
    let (terms, output) = parse(ctx, &eq)?;
    let shapes: Vec<Shape> = (0..terms.len()).map(|k| ctx.shape(k)).collect();
    // Ranks, and the number of axes each input's ellipsis covers (where its rank is known).
    let mut covered: Vec<(usize, usize)> = Vec::new();
    for (k, (term, shape)) in terms.iter().zip(&shapes).enumerate() {
        let Some(dims) = shape else {
            continue;
        };
        let (r, letters) = (dims.len(), term.labels.len());
        let detail = match term.ellipsis {
            None if r != letters => format!("its term has {letters} letters and no ellipsis"),
            Some(_) if r < letters => {
                format!("its term has {letters} letters besides the ellipsis")
            }
            None => continue,
            Some(_) => {
                covered.push((k, r - letters));
                continue;
            }
        };
        let name = ctx.node.input_name(k);
        ctx.broken(
            EINSUM_RANK,
            &[k],
            format_args!("input {k} '{name}' has rank {r}; {detail}"),
        );
        return None;
    }
    if let Some(&(k0, e0)) = covered.first()
        && let Some(&(k1, e1)) = covered.iter().find(|(_, e)| *e != e0)
    {
        ctx.broken(
            EINSUM_ELLIPSIS,
            &[k0, k1],
            format_args!("the ellipsis covers {e0} axes of input {k0} and {e1} of input {k1}"),
        );
        return None;
    }
    if let Some(out) = &output
        && out.ellipsis.is_none()
        && let Some(&(k, e)) = covered.iter().find(|(_, e)| *e > 0)
    {
        ctx.broken(
            EINSUM_EQUATION,
            &[k],
            format_args!("the output has no ellipsis, and that of input {k} covers {e} axes"),
        );
        return None;
    }
    // Every axis a label names, by label, in input order; and the axes of each ellipsis.
    let mut labels: BTreeMap<char, Vec<Axis>> = BTreeMap::new();
    let mut ellipses: Vec<Shape> = Vec::new();
    let mut ellipsis_axes: Vec<Vec<Axis>> = Vec::new();
    for (k, (term, shape)) in terms.iter().zip(&shapes).enumerate() {
        let Some(dims) = shape else {
            for &c in &term.labels {
                labels.entry(c).or_default().push(Axis {
                    slot: k,
                    axis: 0,
                    dim: Dim::Unknown,
                });
            }
            if term.ellipsis.is_some() {
                ellipses.push(None);
            }
            continue;
        };
        let extra = dims.len() - term.labels.len();
        let at = term.ellipsis.unwrap_or(term.labels.len());
        for (i, &c) in term.labels.iter().enumerate() {
            let axis = if i < at { i } else { i + extra };
            labels.entry(c).or_default().push(Axis {
                slot: k,
                axis,
                dim: dims[axis].clone(),
            });
        }
        if term.ellipsis.is_some() {
            ellipses.push(Some(dims[at..at + extra].to_vec()));
            ellipsis_axes.push(
                (at..at + extra)
                    .map(|axis| Axis {
                        slot: k,
                        axis,
                        dim: dims[axis].clone(),
                    })
                    .collect(),
            );
        }
    }
    let output = output.unwrap_or_else(|| implicit_output(&terms, !ellipses.is_empty()));
    if !check_labels(ctx, &labels, &output) {
        return None;
    }
    // The ellipses are as wide as each other by now: their axes broadcast position by position.
    let width = ellipsis_axes.first().map_or(0, Vec::len);
    for i in 0..width {
        let column: Vec<Axis> = ellipsis_axes.iter().map(|axes| axes[i].clone()).collect();
        let what = format!("the ellipsis's axis {i}");
        if !require_broadcast(ctx, EINSUM_ELLIPSIS, &what, &column) {
            return None;
        }
    }
    let ellipsis_dims = || multidirectional(&ellipses).shape;
    let mut out = Vec::new();
    for (i, c) in output.labels.iter().enumerate() {
        if output.ellipsis == Some(i) {
            out.extend(ellipsis_dims()?);
        }
        let sizes: Vec<Dim> = labels.get(c)?.iter().map(|a| a.dim.clone()).collect();
        out.push(label_size(&sizes));
    }
    if output.ellipsis == Some(output.labels.len()) {
        out.extend(ellipsis_dims()?);
    }
    Some(out)
}

/// The implicit output: the labels used once, sorted, after any ellipsis dims.
fn implicit_output(terms: &[Term], ellipsis: bool) -> Term {
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
        ellipsis: ellipsis.then_some(0),
    }
}

/// [`EINSUM_DIAGONAL`] within each input, then [`EINSUM_LABELS`] across them; false after a break.
fn check_labels(ctx: &mut NodeCtx<'_>, labels: &BTreeMap<char, Vec<Axis>>, output: &Term) -> bool {
    for (c, axes) in labels {
        // One axis per input: a diagonal's axes must agree exactly, and then stand for one size.
        let mut firsts: Vec<Axis> = Vec::new();
        for a in axes {
            if firsts.iter().any(|f| f.slot == a.slot) {
                continue;
            }
            let same: Vec<Operand> = axes
                .iter()
                .filter(|b| b.slot == a.slot && b.dim != Dim::Unknown)
                .filter_map(|b| ctx.operand(b.slot, b.axis))
                .collect();
            if same.len() > 1 && !ctx.require_equal(EINSUM_DIAGONAL, &same) {
                return false;
            }
            firsts.push(a.clone());
        }
        if firsts.len() < 2 {
            continue;
        }
        let summed = !output.labels.contains(c);
        if summed && bind_contraction(ctx, &firsts) {
            continue;
        }
        if !require_broadcast(ctx, EINSUM_LABELS, &format!("label '{c}'"), &firsts) {
            return false;
        }
    }
    true
}

/// A summed label's plain symbols against one number other than 1: the symbols are bound to it (I002),
/// as at MatMul's contraction, rather than a condition. True when that is the case.
fn bind_contraction(ctx: &mut NodeCtx<'_>, axes: &[Axis]) -> bool {
    let mut number: Option<u64> = None;
    let mut symbols: Vec<&Dim> = Vec::new();
    for a in axes {
        match &a.dim {
            Dim::Known(1) | Dim::Unknown => {}
            Dim::Known(n) if number.is_none_or(|k| k == *n) => number = Some(*n),
            Dim::Sym(SymExpr::Var(_)) => symbols.push(&a.dim),
            _ => return false,
        }
    }
    let Some(n) = number else {
        return false;
    };
    if symbols.is_empty() {
        return false;
    }
    for s in symbols {
        ctx.bind(s, n, "the contraction");
    }
    true
}

/// Requires the sizes at `axes` to broadcast against each other (equal, or 1), under contract `c`:
/// E2 when two known sizes other than 1 differ (or expressions never agree), W2 when symbols decide
/// and a failing value is found; `what` names the sizes in the finding. False after an E2.
fn require_broadcast(ctx: &mut NodeCtx<'_>, c: Contract, what: &str, axes: &[Axis]) -> bool {
    let present: Vec<&Axis> = axes.iter().filter(|a| a.dim != Dim::Unknown).collect();
    if present.len() < 2 {
        return true;
    }
    let shapes: Vec<Shape> = present.iter().map(|a| Some(vec![a.dim.clone()])).collect();
    let outcome = multidirectional(&shapes);
    let mut slots: Vec<usize> = Vec::new();
    for a in &present {
        if !slots.contains(&a.slot) {
            slots.push(a.slot);
        }
    }
    let listed = present
        .iter()
        .map(|a| {
            let name = ctx.node.input_name(a.slot);
            format!("{} (input {} '{name}' axis {})", a.dim, a.slot, a.axis)
        })
        .collect::<Vec<_>>()
        .join(" vs ");
    let inputs: Vec<(usize, String)> = present
        .iter()
        .map(|a| (a.slot, a.dim.to_string()))
        .collect();
    if let Some(conflict) = outcome.conflicts.first() {
        let detail = format!("{what}: {listed}");
        let mut d = ctx.contract_diagnostic(Code::ShapeContract, c, &slots, &detail);
        d.sizes = conflict.sizes.iter().map(|&(_, n)| n).collect();
        d.inputs = inputs;
        ctx.findings.push(d);
        return false;
    }
    if let Some(p) = outcome.possible.first()
        && let Some(condition) = p.finding(ctx.facts, true)
    {
        let detail = format!("{what}: {listed}: {condition}");
        let mut d = ctx.contract_diagnostic(Code::PossibleShapeContract, c, &slots, &detail);
        d.inputs = inputs;
        ctx.findings.push(d);
    }
    true
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
                &[t(F32, &["5", "1", "2", "3"]), t(F32, &["1", "4", "3", "6"])]
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
            None
        );
        assert_eq!(
            eq(
                " ij , jk -> ik ",
                &[t(F32, &["2", "3"]), t(F32, &["3", "4"])]
            ),
            shape(&["2", "4"])
        );
    }

    /// "CODE contract" of each finding of equation `e` over `inputs`.
    fn found(e: &str, inputs: &[Option<ValueInfo>]) -> Vec<String> {
        let n = node("Einsum", inputs.len(), 1, vec![attr_s("equation", e)]);
        contracts(einsum, &n, 12, inputs)
    }

    fn messages(e: &str, inputs: &[Option<ValueInfo>]) -> Vec<String> {
        let n = node("Einsum", inputs.len(), 1, vec![attr_s("equation", e)]);
        codes_at(einsum, &n, 12, inputs)
    }

    #[test]
    fn terms_and_equation() {
        let (a, b) = (t(F32, &["2", "3"]), t(F32, &["3", "4"]));
        assert!(found("ij,jk->ik", &[a.clone(), b.clone()]).is_empty());
        assert_eq!(
            found("ij,jk->ik", std::slice::from_ref(&a)),
            ["E2 einsum-terms"]
        );
        assert_eq!(
            found("ij,jk->ik", &[a.clone(), b.clone(), t(F32, &["4"])]),
            ["E2 einsum-terms"]
        );
        assert_eq!(
            found("i1->i", std::slice::from_ref(&a)),
            ["E2 einsum-equation"]
        );
        assert_eq!(
            found(".ij->ij", std::slice::from_ref(&a)),
            ["E2 einsum-equation"]
        );
        assert_eq!(
            found("ij->ij->ij", std::slice::from_ref(&a)),
            ["E2 einsum-equation"]
        );
        assert_eq!(
            found("ij->ik", std::slice::from_ref(&a)),
            ["E2 einsum-equation"]
        );
        assert_eq!(
            found("ij->ii", std::slice::from_ref(&a)),
            ["E2 einsum-equation"]
        );
        assert_eq!(
            found("...ij->ij", &[t(F32, &["1", "2", "3"])]),
            ["E2 einsum-equation"]
        );
        // An ellipsis covering no axis may be dropped; an output ellipsis may cover none.
        assert!(found("...ij->ij", std::slice::from_ref(&a)).is_empty());
        assert!(found("ij->...ij", std::slice::from_ref(&a)).is_empty());
        assert!(found("ij,->ij", &[a, t(F32, &[])]).is_empty());
        let m = messages("ij,jk->ik", &[t(F32, &["2", "3"])]);
        assert!(
            m[0].ends_with("here 'ij,jk' has 2 terms for 1 inputs"),
            "{m:?}"
        );
    }

    #[test]
    fn ranks_and_ellipses() {
        assert_eq!(
            found("ij->i", &[t(F32, &["2", "3", "4"])]),
            ["E2 einsum-rank"]
        );
        assert_eq!(found("...ij->...", &[t(F32, &["3"])]), ["E2 einsum-rank"]);
        let m = messages("ij->i", &[t(F32, &["2", "3", "4"])]);
        assert!(
            m[0].ends_with("here input 0 'i0' has rank 3; its term has 2 letters and no ellipsis"),
            "{m:?}"
        );
        let mm = "...ij,...jk->...ik";
        assert_eq!(
            found(mm, &[t(F32, &["2", "2", "3"]), t(F32, &["3", "4"])]),
            ["E2 einsum-ellipsis"]
        );
        assert_eq!(
            found(mm, &[t(F32, &["5", "2", "3"]), t(F32, &["2", "3", "4"])]),
            ["E2 einsum-ellipsis"]
        );
        assert!(found(mm, &[t(F32, &["1", "2", "3"]), t(F32, &["5", "3", "4"])]).is_empty());
        assert_eq!(
            eq(mm, &[t(F32, &["1", "2", "3"]), t(F32, &["5", "3", "4"])]),
            shape(&["5", "2", "4"])
        );
        assert_eq!(
            found(mm, &[t(F32, &["N", "2", "3"]), t(F32, &["5", "3", "4"])]),
            ["W2 einsum-ellipsis"]
        );
        let m = messages(mm, &[t(F32, &["N", "2", "3"]), t(F32, &["5", "3", "4"])]);
        assert!(
            m[0].ends_with(
                "here the ellipsis's axis 0: N (input 0 'i0' axis 0) vs 5 (input 1 'i1' axis 0): \
                 N must be 1 or 5; fails for N = 2 (2 vs 5)"
            ),
            "{m:?}"
        );
        assert!(found(mm, &[t(F32, &["B", "2", "3"]), None]).is_empty());
    }

    #[test]
    fn label_sizes_broadcast_and_contractions_bind() {
        let mm = "ij,jk->ik";
        assert_eq!(
            found(mm, &[t(F32, &["2", "3"]), t(F32, &["5", "4"])]),
            ["E2 einsum-labels"]
        );
        let m = messages(mm, &[t(F32, &["2", "3"]), t(F32, &["5", "4"])]);
        assert!(
            m[0].ends_with("here label 'j': 3 (input 0 'i0' axis 1) vs 5 (input 1 'i1' axis 0)"),
            "{m:?}"
        );
        assert!(found(mm, &[t(F32, &["2", "1"]), t(F32, &["3", "4"])]).is_empty());
        assert_eq!(
            found(mm, &[t(F32, &["a", "b"]), t(F32, &["c", "4"])]),
            ["W2 einsum-labels"]
        );
        // A summed symbol against a number is bound to it.
        assert_eq!(
            found(mm, &[t(F32, &["a", "K"]), t(F32, &["64", "4"])]),
            ["I002 -"]
        );
        // A kept label's symbol against a number is a condition.
        let kept = "ij,ij->ij";
        assert_eq!(
            found(kept, &[t(F32, &["N", "3"]), t(F32, &["5", "3"])]),
            ["W2 einsum-labels"]
        );
        assert!(found(kept, &[t(F32, &["N", "3"]), t(F32, &["N", "1"])]).is_empty());
    }

    #[test]
    fn diagonals_take_no_broadcast() {
        assert!(found("ii->i", &[t(F32, &["3", "3"])]).is_empty());
        assert_eq!(
            found("ii->i", &[t(F32, &["2", "3"])]),
            ["E2 einsum-diagonal"]
        );
        assert_eq!(
            found("ii->i", &[t(F32, &["1", "3"])]),
            ["E2 einsum-diagonal"]
        );
        assert_eq!(
            found("ii->i", &[t(F32, &["a", "b"])]),
            ["W2 einsum-diagonal"]
        );
        assert!(found("i...i->i...", &[t(F32, &["2", "3", "2"])]).is_empty());
        assert_eq!(
            eq("i...i->i...", &[t(F32, &["2", "3", "2"])]),
            shape(&["2", "3"])
        );
    }
}
