//! Operator shape contracts beyond broadcasting: what a shape rule reports when its node's inputs,
//! attributes or constant values break what the operator requires of them (MatMul's inner sizes,
//! Concat's other axes, Reshape's element count, Conv's channels, an axis inside the rank...), which
//! onnxruntime enforces at load (its shape inference) or when it runs the node (its kernels).
//!
//! A rule states each contract it checks as a [`Contract`] constant beside it (a stable name and
//! what the operator requires) and reports through the [`NodeCtx`] methods here:
//! - [`NodeCtx::require_equal`]: sizes that must be equal. Known sizes that differ, or expressions
//!   that can never agree (`seq*2` against 3), are E2; symbols that decide it are W2, with the
//!   condition and the smallest failing values of the symbols ([`super::counterexample`]). Where the
//!   search tries every value up to its bound (4096 for one symbol, 64 each for two) and none fails,
//!   there is no finding: the sizes are equal wherever the model gets that far (a Concat of sizes a
//!   broadcast upstream already forced equal);
//! - [`NodeCtx::require_multiple`]: a size that must be a multiple of a number, E2 or W2 the same way;
//! - [`NodeCtx::broken`]: any other definite break (a rank, a count, an attribute's length), E2;
//! - [`NodeCtx::out_of_range`]: a constant value outside its range (an index, `k`), E3, and
//!   [`NodeCtx::require_axis`] for the commonest of them, an axis outside the rank.
//!
//! One root cause, one finding: the driver gives a node with an E2 or E3 outputs of unknown shape
//! ([`breaks_node`]), so nothing downstream is checked against a shape the runtime never makes.
//! Unknown sizes never break a contract: they may be whatever makes the model valid.

use super::broadcast::{and_list, names};
use super::conditions::Decided;
use super::counterexample::{self, Validity};
use super::ctx::NodeCtx;
use super::ctx::Rule;
use super::dim::{Dim, Poly, SymExpr, format_shape};
use crate::diagnostics::{Code, Diagnostic};
use std::fmt::Display;

/// One contract of an operator, stated beside the rule that checks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contract {
    /// A stable kebab-case name (`matmul-inner`): the finding's `contract` field, and its row in
    /// `docs/contracts.md`.
    pub name: &'static str,
    /// What the operator requires, in words (`A's last axis equals B's second-to-last`).
    pub requires: &'static str,
}

impl Contract {
    pub const fn new(name: &'static str, requires: &'static str) -> Self {
        Contract { name, requires }
    }
}

/// One size a contract is about: where it comes from, in words (`input 1 'w' axis 0`, `attribute
/// hidden_size`), and the size.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    pub what: String,
    /// The input it is read from: that input's shape goes into the finding's notes.
    pub slot: Option<usize>,
    pub dim: Dim,
}

impl Operand {
    /// A size that is not an input's axis (an attribute, a count, a product of sizes).
    pub fn new(what: impl Into<String>, dim: Dim) -> Self {
        Operand {
            what: what.into(),
            slot: None,
            dim,
        }
    }

    /// The same size, said to be read from input `slot` (its shape is then listed in the notes).
    pub fn from_input(mut self, slot: usize) -> Self {
        self.slot = Some(slot);
        self
    }
}

impl Display for Operand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.dim, self.what)
    }
}

/// True when `d` is a finding after which the node's outputs are unknown: a broken contract (E2) or
/// a constant out of range (E3).
pub fn breaks_node(d: &Diagnostic) -> bool {
    matches!(d.code, Code::ShapeContract | Code::ValueOutOfRange)
}

impl NodeCtx<'_> {
    /// Axis `axis` of input `slot` as an operand: `None` when the input is absent or its rank unknown
    /// or not above `axis`.
    pub fn operand(&self, slot: usize, axis: usize) -> Option<Operand> {
        let dim = self.shape(slot)?.get(axis)?.clone();
        Some(Operand {
            what: format!("input {slot} '{}' axis {axis}", self.node.input_name(slot)),
            slot: Some(slot),
            dim,
        })
    }

    /// Requires the sizes of `operands` to be equal; false when they definitely are not (an E2 is
    /// then reported). Unknown sizes take no part.
    pub fn require_equal(&mut self, c: Contract, operands: &[Operand]) -> bool {
        let present: Vec<&Operand> = operands.iter().filter(|o| o.dim != Dim::Unknown).collect();
        if present.len() < 2 {
            return true;
        }
        let mut known: Vec<u64> = Vec::new();
        for n in present.iter().filter_map(|o| o.dim.known()) {
            if !known.contains(&n) {
                known.push(n);
            }
        }
        let syms: Vec<&SymExpr> = present
            .iter()
            .filter_map(|o| match &o.dim {
                Dim::Sym(s) => Some(s),
                _ => None,
            })
            .collect();
        let detail = list(&present);
        // Symbols stand for sizes of real inputs, 1 or more: `n*64` against `n*56` never agree.
        let never = match known.as_slice() {
            [] => syms
                .iter()
                .enumerate()
                .any(|(i, a)| syms[i + 1..].iter().any(|b| a.differs_for_sizes(b))),
            [k] => syms.iter().any(|s| !s.can_equal(*k)),
            _ => true,
        };
        if never {
            let dims: Vec<Dim> = present.iter().map(|o| o.dim.clone()).collect();
            let text = if syms.is_empty() {
                format!("{detail}: never equal")
            } else {
                format!("{detail}: never equal, whatever the values of the symbols")
            };
            self.record(
                Rule::Contract(c),
                None,
                dims,
                Validity::Equal,
                text,
                Decided::Never,
            );
            let mut d = self.contract_finding(Code::ShapeContract, c, &present, &detail);
            d.sizes = known;
            self.findings.push(d);
            return false;
        }
        let names = names(&syms);
        let pair = reduced(&present);
        let condition = match (known.first(), names.as_slice(), &pair) {
            (_, [], _) => return true,
            (None, [_], _) => return true, // one expression, however often: equal to itself
            (Some(k), [one], _) => format!("{one} must be {k}"),
            (Some(k), _, _) => format!("{} must each be {k}", and_list(&names)),
            (None, _, Some([q, _])) => format!("{q} must be 1 (the other factors are common)"),
            (None, [a, b], None) => format!("needs {a} = {b}"),
            (None, _, None) => format!("needs {} to be equal", and_list(&names)),
        };
        let dims: Vec<&Dim> = match &pair {
            Some([q, one]) => vec![q, one],
            None => present.iter().map(|o| &o.dim).collect(),
        };
        let head = format!("{detail}: {condition}");
        if let Some(ok) = self.judge_contract(c, &present, &dims, Validity::Equal, &head) {
            return ok;
        }
        let failure = counterexample::search_given(&dims, Validity::Equal, self.facts);
        self.record_searched(c, &dims, Validity::Equal, &condition, &failure);
        if !failure.holds_as_far_as_searched() {
            self.facts.learn(&dims, Validity::Equal);
            let clause = failure.clause();
            self.possible(c, &present, &format!("{detail}: {condition}{clause}"));
        }
        true
    }

    /// Requires the size of `operand` to be a multiple of `k`; false when it definitely is not (an
    /// E2 is then reported).
    pub fn require_multiple(&mut self, c: Contract, operand: &Operand, k: u64) -> bool {
        if k <= 1 {
            return true;
        }
        let never = match &operand.dim {
            Dim::Unknown => return true,
            Dim::Known(n) => n % k != 0,
            Dim::Sym(s) => match multiple_of(s, k) {
                Some(always) => !always,
                None => {
                    let head = format!("{operand}: {s} must be a multiple of {k}");
                    let rule = Validity::MultipleOf(k);
                    if let Some(ok) =
                        self.judge_contract(c, &[operand], &[&operand.dim], rule, &head)
                    {
                        return ok;
                    }
                    let failure = counterexample::search_given(&[&operand.dim], rule, self.facts);
                    let text = format!("{s} must be a multiple of {k}");
                    self.record_searched(c, &[&operand.dim], rule, &text, &failure);
                    if !failure.holds_as_far_as_searched() {
                        self.facts.learn(&[&operand.dim], rule);
                        let clause = failure.clause();
                        let detail = format!("{operand}: {s} must be a multiple of {k}{clause}");
                        self.possible(c, &[operand], &detail);
                    }
                    return true;
                }
            },
        };
        if never {
            let text = format!("{}: never a multiple of {k}", operand.dim);
            let rule = Validity::MultipleOf(k);
            let dims = vec![operand.dim.clone()];
            self.record(Rule::Contract(c), None, dims, rule, text, Decided::Never);
            let detail = format!("{operand} is not a multiple of {k}");
            let mut d = self.contract_finding(Code::ShapeContract, c, &[operand], &detail);
            d.sizes = operand.dim.known().into_iter().collect();
            self.findings.push(d);
        }
        !never
    }

    /// Reports a definite break of contract `c` (E2): `detail` says what is wrong here, `slots` are
    /// the inputs whose shapes the notes list.
    pub fn broken(&mut self, c: Contract, slots: &[usize], detail: impl Display) {
        let d = self.contract_diagnostic(Code::ShapeContract, c, slots, &detail.to_string());
        self.findings.push(d);
    }

    /// Reports a constant value outside the range contract `c` gives it (E3).
    pub fn out_of_range(&mut self, c: Contract, slots: &[usize], detail: impl Display) {
        let d = self.contract_diagnostic(Code::ValueOutOfRange, c, slots, &detail.to_string());
        self.findings.push(d);
    }

    /// Requires `axis` (negative counts from the end) to be an axis of a tensor of rank `rank`: its
    /// index, or `None` after an E3 naming the inputs at `slots`.
    pub fn require_axis(
        &mut self,
        c: Contract,
        slots: &[usize],
        axis: i64,
        rank: usize,
    ) -> Option<usize> {
        let k = super::ops::common::axis(axis, rank);
        if k.is_none() {
            self.out_of_range(
                c,
                slots,
                format_args!("axis {axis} of a tensor of rank {rank}"),
            );
        }
        k
    }

    /// Reports that contract `c` holds only under a condition on the symbols (W2); `detail` says
    /// which sizes, the condition and, where the search finds them, the smallest failing values.
    /// Judges a contract's condition on `dims` over the ranges the run binds (see
    /// [`super::ranges`]), `head` saying what it requires: `Some(true)` when it holds at every value
    /// (no finding, counted as proven) or fails at some (a W2 that says exactly where),
    /// `Some(false)` when it fails at every value (an E2), `None` when a symbol is not bound.
    fn judge_contract(
        &mut self,
        c: Contract,
        operands: &[&Operand],
        dims: &[&Dim],
        rule: Validity,
        head: &str,
    ) -> Option<bool> {
        use super::ranges::Verdict;
        let ranges = self.ranges?;
        let verdict = ranges.judge(dims, rule)?;
        if self.conditions.is_some() {
            let decided = match verdict {
                Verdict::Holds => Decided::Quiet,
                Verdict::FailsAll(_) => Decided::Never,
                Verdict::Clause(_) => Decided::Finding,
            };
            // The head is `sizes: condition`; the report prints the condition.
            let text = head.rsplit_once(": ").map_or(head, |(_, t)| t).to_owned();
            let owned = dims.iter().map(|d| (*d).clone()).collect();
            self.record(Rule::Contract(c), None, owned, rule, text, decided);
        }
        let (code, detail) = match verdict {
            Verdict::Holds => {
                ranges.prove();
                return Some(true);
            }
            Verdict::FailsAll(over) => (
                Code::ShapeContract,
                format!("{head}; fails for every {over} (the bound sizes)"),
            ),
            Verdict::Clause(clause) => (
                Code::PossibleShapeContract,
                format!("{head}; within the bound sizes, {clause}"),
            ),
        };
        let d = self.contract_finding(code, c, operands, &detail);
        self.findings.push(d);
        Some(code == Code::PossibleShapeContract)
    }

    /// Records a contract's condition as the search decided it: a W2 where some values fail, none
    /// where it holds as far as searched.
    fn record_searched(
        &self,
        c: Contract,
        dims: &[&Dim],
        rule: Validity,
        text: &str,
        failure: &counterexample::Search,
    ) {
        if self.conditions.is_none() {
            return;
        }
        let decided = if failure.holds_as_far_as_searched() {
            Decided::Quiet
        } else {
            Decided::Finding
        };
        let dims = dims.iter().map(|d| (*d).clone()).collect();
        self.record(
            Rule::Contract(c),
            None,
            dims,
            rule,
            text.to_owned(),
            decided,
        );
    }

    fn possible(&mut self, c: Contract, operands: &[&Operand], detail: &str) {
        let d = self.contract_finding(Code::PossibleShapeContract, c, operands, detail);
        self.findings.push(d);
    }

    fn contract_finding(
        &self,
        code: Code,
        c: Contract,
        operands: &[&Operand],
        detail: &str,
    ) -> Diagnostic {
        let mut slots: Vec<usize> = Vec::new();
        for s in operands.iter().filter_map(|o| o.slot) {
            if !slots.contains(&s) {
                slots.push(s);
            }
        }
        let mut d = self.contract_diagnostic(code, c, &slots, detail);
        d.inputs = operands
            .iter()
            .filter_map(|o| Some((o.slot?, o.dim.to_string())))
            .collect();
        d
    }

    /// A finding of contract `c` with code `code` at this node, `detail` saying what is wrong here
    /// and the shapes of the inputs at `slots` in its notes.
    pub(super) fn contract_diagnostic(
        &self,
        code: Code,
        c: Contract,
        slots: &[usize],
        detail: &str,
    ) -> Diagnostic {
        let verb = match code {
            Code::PossibleShapeContract => "meets the contract",
            _ => "breaks the contract",
        };
        let only_if = if code == Code::PossibleShapeContract {
            " only under a condition"
        } else {
            ""
        };
        let mut d = Diagnostic::new(
            code,
            "",
            format!(
                "'{}' ({}) {verb} {}{only_if}: {}; here {detail}",
                self.label,
                self.op_type(),
                c.name,
                c.requires
            ),
        );
        d.contract = Some(c.name);
        for &s in slots {
            d.notes.push(format!(
                "input {s} '{}': {}",
                self.node.input_name(s),
                format_shape(&self.shape(s))
            ));
        }
        d
    }
}

/// Two sizes one of which is the other times an expression (`b*h*w*120` and `b*w*120`), as that
/// expression and 1: they are equal exactly when it is 1 (the common factor is a size, 1 or more,
/// where the model runs), and the search for failing values then runs over its symbols alone.
fn reduced(operands: &[&Operand]) -> Option<[Dim; 2]> {
    let [a, b] = operands else {
        return None;
    };
    let (Dim::Sym(x), Dim::Sym(y)) = (&a.dim, &b.dim) else {
        return None;
    };
    let q = x.checked_div(y).or_else(|| y.checked_div(x))?;
    Some([Dim::Sym(q), Dim::Known(1)])
}

/// `64 (input 0 'a' axis 1) vs 63 (input 1 'b' axis 0)`.
fn list(operands: &[&Operand]) -> String {
    operands
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" vs ")
}

/// Whether expression `e` is a multiple of `k` for every value of its symbols (`Some(true)`), for
/// none (`Some(false)`: `4*c + 2` against 4), or depending on them (`None`).
fn multiple_of(e: &SymExpr, k: u64) -> Option<bool> {
    let p = Poly::of(e);
    let k = i64::try_from(k).ok()?;
    let g = i64::try_from(p.coefficient_gcd()).ok()?;
    let c = p.constant_term();
    if g % k == 0 {
        return Some(c % k == 0);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::ops::common::test_util::*;
    use super::*;
    use crate::shape::value::ValueInfo;

    const SAME: Contract = Contract::new("test-same", "the two axes are equal");
    const MULTIPLE: Contract = Contract::new("test-multiple", "the axis is a multiple of 4");

    fn equal_rule(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
        let ops: Vec<Operand> = [ctx.operand(0, 0), ctx.operand(1, 0)]
            .into_iter()
            .flatten()
            .collect();
        ctx.require_equal(SAME, &ops);
        vec![]
    }

    fn multiple_rule(ctx: &mut NodeCtx<'_>) -> Vec<ValueInfo> {
        if let Some(o) = ctx.operand(0, 0) {
            ctx.require_multiple(MULTIPLE, &o, 4);
        }
        vec![]
    }

    fn equal(a: &[&str], b: &[&str]) -> Vec<String> {
        codes(
            equal_rule,
            &node("T", 2, 1, vec![]),
            &[t(F32, a), t(F32, b)],
        )
    }

    fn multiple(a: &[&str]) -> Vec<String> {
        codes(multiple_rule, &node("T", 1, 1, vec![]), &[t(F32, a)])
    }

    #[test]
    fn equal_sizes_pass_and_unequal_ones_are_e2_naming_both() {
        assert!(equal(&["64"], &["64"]).is_empty());
        assert!(equal(&["K"], &["K"]).is_empty());
        assert!(equal(&["?"], &["7"]).is_empty());
        assert!(equal(&["3"], &[]).is_empty(), "a scalar has no axis 0");
        let c = equal(&["64"], &["63"]);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(
            c[0],
            "E2 'n' (T) breaks the contract test-same: the two axes are equal; here 64 (input 0 'i0' \
             axis 0) vs 63 (input 1 'i1' axis 0)"
        );
    }

    #[test]
    fn a_symbol_is_w2_with_its_condition_and_first_failure() {
        let c = equal(&["K"], &["64"]);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(c[0].starts_with("W2 "), "{c:?}");
        assert!(
            c[0].ends_with("meets the contract test-same only under a condition: the two axes are equal; here K (input 0 'i0' axis 0) vs 64 (input 1 'i1' axis 0): K must be 64; fails for K = 1 (1 vs 64)"),
            "{c:?}"
        );
        let c = equal(&["K"], &["M"]);
        assert!(
            c[0].contains("needs K = M; fails for K = 1, M = 2"),
            "{c:?}"
        );
    }

    #[test]
    fn sizes_that_never_agree_are_e2() {
        let two_s = Dim::Sym(
            Poly::of(&SymExpr::var("s"))
                .mul(&Poly::constant(2))
                .unwrap()
                .into_expr()
                .unwrap(),
        );
        let x = Some(ValueInfo::tensor(F32, Some(vec![two_s.clone()])));
        let c = codes(
            equal_rule,
            &node("T", 2, 1, vec![]),
            &[x.clone(), t(F32, &["3"])],
        );
        assert!(c[0].starts_with("E2 "), "{c:?}");
        let plus_one = Dim::Sym(
            Poly::of(&SymExpr::var("s"))
                .add(&Poly::constant(1))
                .unwrap()
                .into_expr()
                .unwrap(),
        );
        let y = Some(ValueInfo::tensor(F32, Some(vec![plus_one])));
        let c = codes(equal_rule, &node("T", 2, 1, vec![]), &[t(F32, &["s"]), y]);
        assert!(c[0].starts_with("E2 "), "s vs s+1: {c:?}");
    }

    #[test]
    fn multiples() {
        assert!(multiple(&["8"]).is_empty());
        assert!(multiple(&["?"]).is_empty());
        let c = multiple(&["6"]);
        assert!(
            c[0].starts_with("E2 ")
                && c[0].ends_with("here 6 (input 0 'i0' axis 0) is not a multiple of 4"),
            "{c:?}"
        );
        let c = multiple(&["C"]);
        assert!(
            c[0].starts_with("W2 ")
                && c[0].ends_with(
                    "C must be a multiple of 4; fails for C = 1 (1 is not a multiple of 4)"
                ),
            "{c:?}"
        );
        let four_c = |k: i64| {
            let p = Poly::of(&SymExpr::var("c"))
                .mul(&Poly::constant(4))
                .unwrap()
                .add(&Poly::constant(k))
                .unwrap();
            Some(ValueInfo::tensor(
                F32,
                Some(vec![Dim::Sym(p.into_expr().unwrap())]),
            ))
        };
        let n = node("T", 1, 1, vec![]);
        assert!(codes(multiple_rule, &n, &[four_c(8)]).is_empty(), "4c+8");
        let c = codes(multiple_rule, &n, &[four_c(2)]);
        assert!(c[0].starts_with("E2 "), "4c+2: {c:?}");
    }
}
