//! [`NodeCtx`]: what a shape rule sees of its node — inputs by slot, attributes, the opset version — and
//! how it reports findings (broadcast errors) and asks for a subgraph to be inferred.

use super::broadcast::Outcome;
use super::conditions::{Condition, Conditions, Decided, Source};
use super::contract::Contract;
use super::counterexample::Validity;
use super::dim::{Dim, Shape};
use super::facts::Facts;
use super::value::{Data, ValueInfo};
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{Graph, OpNode};
use crate::proto::{AttributeProto, NodeProto, TensorProto};

/// Infers a subgraph (by attribute name) given the infos of its formal inputs; returns its outputs.
/// What the inference finds in it is kept as [`Reach`] says.
pub type SubgraphFn<'a> = dyn FnMut(&str, &[ValueInfo], Reach) -> Option<Vec<ValueInfo>> + 'a;

/// The [`SubgraphFn`] of a node inferred on its own (a rule delegating to another rule, a test): it
/// has no subgraph to infer.
pub fn no_subgraphs(_: &str, _: &[ValueInfo], _: Reach) -> Option<Vec<ValueInfo>> {
    None
}

/// Whether a subgraph runs when its node does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// It runs (a Loop's body, the branch a known condition takes): its findings are the node's.
    Runs,
    /// It may run: a branch of an If whose condition inference does not know. Its findings are kept,
    /// and an error the bound sizes of `--dim` make is told apart (see [`super::infer::infer_bound`]).
    Maybe,
    /// It never runs (the branch a known condition does not take): its findings are dropped, since a
    /// broken branch that never runs breaks nothing.
    Never,
}

/// The node a rule is applied to: one of the IR, or a `NodeProto` made up by a rule or a test.
#[derive(Clone, Copy)]
pub enum NodeRef<'a> {
    Ir(&'a Graph, &'a OpNode),
    Proto(&'a NodeProto),
}

impl<'a> NodeRef<'a> {
    pub fn op_type(&self) -> &'a str {
        match self {
            NodeRef::Ir(_, op) => op.op_type(),
            NodeRef::Proto(p) => p.op_type(),
        }
    }

    pub fn attribute(&self) -> &'a [AttributeProto] {
        match self {
            NodeRef::Ir(_, op) => op.attributes(),
            NodeRef::Proto(p) => &p.attribute,
        }
    }

    pub fn num_outputs(&self) -> usize {
        match self {
            NodeRef::Ir(_, op) => op.num_outputs(),
            NodeRef::Proto(p) => p.output.len(),
        }
    }

    /// The name input `slot` reads (empty when omitted).
    pub fn input_name(&self, slot: usize) -> &'a str {
        match self {
            NodeRef::Ir(g, op) => g.input_name(op, slot),
            NodeRef::Proto(p) => p.input.get(slot).map_or("", String::as_str),
        }
    }
}

pub struct NodeCtx<'a> {
    pub node: NodeRef<'a>,
    /// The node's name, or `#index` when it has none.
    pub label: &'a str,
    /// The version of the node's domain in force.
    pub opset: i64,
    /// Input infos by slot, borrowed from the driver's table; `None` for an omitted optional input.
    pub inputs: &'a [Option<&'a ValueInfo>],
    /// Findings, without their location (the driver fills graph and node in).
    pub findings: Vec<Diagnostic>,
    /// What the nodes before this one need to run: a condition reported here is searched where they
    /// hold, and learned for the nodes after ([`super::facts`]).
    pub facts: &'a Facts,
    /// The ranges of the symbols the run binds (`--dim seq=1..8192`), which W1 and W2 conditions are
    /// judged over; `None` (every run without ranges) leaves them as the search found them.
    pub ranges: Option<&'a super::ranges::Ranges>,
    /// Where the conditions decided here are recorded for the sizes report; `None` in a run that
    /// does not ask for them.
    pub conditions: Option<&'a Conditions>,
    pub(super) subgraph: &'a mut SubgraphFn<'a>,
}

/// The broadcasting rule a check applied, named in diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    Multidirectional,
    Unidirectional,
    Bidirectional,
    LegacyAxis,
    None,
    /// An operator-specific shape contract that is no broadcast (onnxruntime's contrib operators: a
    /// bias as long as the last axis, a mask of the attention's sizes), checked with the broadcast
    /// algebra's outcomes; its findings are E2 and W2, naming the contract.
    Contract(Contract),
}

impl Rule {
    pub fn describe(self) -> &'static str {
        match self {
            Rule::Multidirectional => "multidirectional (numpy) broadcasting",
            Rule::Unidirectional => {
                "unidirectional broadcasting (the second input to the first's shape)"
            }
            Rule::Bidirectional => "bidirectional broadcasting (Expand)",
            Rule::LegacyAxis => "legacy broadcast=1/axis broadcasting (opset < 7)",
            Rule::None => "no broadcasting (shapes must be equal)",
            Rule::Contract(c) => c.requires,
        }
    }
}

impl<'a> NodeCtx<'a> {
    pub fn op_type(&self) -> &str {
        self.node.op_type()
    }

    pub fn input(&self, slot: usize) -> Option<&ValueInfo> {
        self.inputs.get(slot).copied().flatten()
    }

    /// The shape of input `slot` (`None` when omitted or of unknown rank).
    pub fn shape(&self, slot: usize) -> Shape {
        self.input(slot)?.shape.clone()
    }

    pub fn elem(&self, slot: usize) -> Option<i32> {
        self.input(slot)?.elem
    }

    /// The known integer values of input `slot` (a small constant or propagated shape tensor), when
    /// it is a scalar or a vector.
    pub fn data_i64(&self, slot: usize) -> Option<Vec<i64>> {
        self.data(slot)?.iter().map(super::value::as_i64).collect()
    }

    /// The integer values of input `slot`, when it is a scalar or a vector: every rule reading a
    /// list of sizes or axes expects one, and a small matrix (torch's pads, reshaped to `[-1, 2]`)
    /// must not pass for a list.
    pub fn data(&self, slot: usize) -> Option<&[Dim]> {
        let v = self.input(slot)?;
        matches!(v.rank(), Some(0 | 1)).then(|| v.ints()).flatten()
    }

    /// The floating-point values of input `slot`, when it is a scalar or a vector.
    pub fn floats(&self, slot: usize) -> Option<&[f64]> {
        let v = self.input(slot)?;
        matches!(v.rank(), Some(0 | 1))
            .then(|| v.floats())
            .flatten()
    }

    /// The values of input `slot` of any kind and rank (flattened), for rules that move values
    /// around without reading them as a list.
    pub fn values(&self, slot: usize) -> Option<&Data> {
        self.input(slot)?.data.as_ref()
    }

    pub fn has_input(&self, slot: usize) -> bool {
        self.inputs.get(slot).is_some_and(Option::is_some)
    }

    pub fn num_inputs(&self) -> usize {
        self.inputs.len()
    }

    pub fn num_outputs(&self) -> usize {
        self.node.num_outputs()
    }

    pub fn attr(&self, name: &str) -> Option<&AttributeProto> {
        self.node.attribute().iter().find(|a| a.name() == name)
    }

    pub fn attr_i(&self, name: &str) -> Option<i64> {
        self.attr(name)?.i
    }

    pub fn attr_f(&self, name: &str) -> Option<f32> {
        self.attr(name)?.f
    }

    pub fn attr_ints(&self, name: &str) -> Option<&[i64]> {
        self.attr(name).map(|a| a.ints.as_slice())
    }

    pub fn attr_s(&self, name: &str) -> Option<&str> {
        self.attr(name)?
            .s
            .as_ref()
            .and_then(|b| std::str::from_utf8(b).ok())
    }

    pub fn attr_t(&self, name: &str) -> Option<&TensorProto> {
        self.attr(name)?.t.as_ref()
    }

    /// True when the run binds every symbol of `d` to a range (`--dim seq=1..8192`), so that a
    /// condition on `d` is judged over the ranges ([`super::ranges`]).
    pub fn ranged(&self, d: &Dim) -> bool {
        self.ranges
            .is_some_and(|r| super::bindings::ranged_symbols(&[d], &r.bindings).is_some())
    }

    /// Records that this node binds the symbolic size `expr` to `size` (a Reshape to known sizes, a
    /// MatMul contraction): inference goes on with the number, and the binding is reported (I002).
    pub fn bind(&mut self, expr: &Dim, size: u64, how: &str) {
        if !matches!(expr, Dim::Sym(_)) {
            return;
        }
        let mut d = Diagnostic::new(
            Code::SymbolBinding,
            "",
            format!(
                "symbol {expr} is bound to {size} by {how} of '{}' ({})",
                self.label,
                self.op_type()
            ),
        );
        d.binding = Some((expr.to_string(), size));
        self.findings.push(d);
    }

    /// Infers subgraph attribute `name` with its formal inputs typed as `inputs`.
    pub fn infer_subgraph(&mut self, name: &str, inputs: &[ValueInfo]) -> Option<Vec<ValueInfo>> {
        (self.subgraph)(name, inputs, Reach::Runs)
    }

    /// Infers subgraph attribute `name`, without inputs, which runs as `reach` says (an If's branch).
    pub fn infer_branch(&mut self, name: &str, reach: Reach) -> Option<Vec<ValueInfo>> {
        (self.subgraph)(name, &[], reach)
    }

    /// Reports the conflicts and possible conflicts of `outcome`, computed by `rule` over the inputs at
    /// `slots` (in the order they were given to the algebra): E1 and W1, or E2 and W2 under a
    /// [`Rule::Contract`].
    pub fn report_broadcast(&mut self, rule: Rule, slots: &[usize], outcome: &Outcome) {
        // The common case: nothing to say, and nothing to format.
        if outcome.conflicts.is_empty()
            && outcome.possible.is_empty()
            && outcome.rank_error.is_none()
        {
            return;
        }
        for c in &outcome.conflicts {
            let (detail, sizes, inputs) = if c.exprs.is_empty() {
                // The distinct sizes in input order: three inputs of sizes 6, 6 and 7 conflict as 6 vs 7.
                let mut sizes: Vec<u64> = Vec::new();
                for (_, n) in &c.sizes {
                    if !sizes.contains(n) {
                        sizes.push(*n);
                    }
                }
                let pair = match sizes.as_slice() {
                    [a, b, ..] => format!("{a} vs {b}"),
                    _ => sizes
                        .iter()
                        .map(u64::to_string)
                        .collect::<Vec<_>>()
                        .join(" vs "),
                };
                let why = match (rule, sizes.first()) {
                    (Rule::Unidirectional | Rule::LegacyAxis, Some(a)) => {
                        format!(" (the broadcast input's size must be 1 or {a})")
                    }
                    (Rule::None, _) => " (the shapes must be equal)".to_owned(),
                    (Rule::Contract(_), _) => String::new(),
                    _ => " (neither is 1)".to_owned(),
                };
                let inputs = c
                    .sizes
                    .iter()
                    .map(|(i, n)| (slot_of(slots, *i), n.to_string()))
                    .collect();
                (
                    format!("axis {}: {pair}{why}", c.axis_from_end),
                    sizes,
                    inputs,
                )
            } else {
                let dims: Vec<String> = c.exprs.iter().map(|(_, d)| d.to_string()).collect();
                let inputs = c
                    .exprs
                    .iter()
                    .map(|(i, dim)| (slot_of(slots, *i), dim.to_string()))
                    .collect();
                (
                    format!(
                        "axis {}: {} (they differ and the one that would have to be 1 never is, \
                         whatever the values of the symbols)",
                        c.axis_from_end,
                        dims.join(" vs ")
                    ),
                    Vec::new(),
                    inputs,
                )
            };
            if self.conditions.is_some() {
                let dims: Vec<Dim> = if c.exprs.is_empty() {
                    c.sizes.iter().map(|(_, n)| Dim::Known(*n)).collect()
                } else {
                    c.exprs.iter().map(|(_, d)| d.clone()).collect()
                };
                let text = dims
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" vs ");
                let text = if c.exprs.is_empty() {
                    format!("{text}: never valid")
                } else {
                    format!("{text}: never valid, whatever the values of the symbols")
                };
                let validity = validity_of(rule);
                self.record(
                    rule,
                    Some(c.axis_from_end),
                    dims,
                    validity,
                    text,
                    Decided::Never,
                );
            }
            let mut d = self.algebra_finding(rule, true, slots, &detail);
            d.axis = Some(c.axis_from_end);
            d.sizes = sizes;
            d.inputs = inputs;
            self.findings.push(d);
        }
        if let Some(reason) = &outcome.rank_error {
            let d = self.algebra_finding(rule, true, slots, reason);
            self.findings.push(d);
        }
        for p in &outcome.possible {
            if let Some(ranges) = self.ranges
                && self.judge_over_ranges(ranges, rule, slots, p)
            {
                continue;
            }
            // A contract's condition always ends with its first failing values.
            let found = p.finding(self.facts, matches!(rule, Rule::Contract(_)));
            if self.conditions.is_some() {
                let decided = if found.is_some() {
                    Decided::Finding
                } else {
                    Decided::Quiet
                };
                let dims = p.dims.iter().map(|(_, d)| d.clone()).collect();
                let text = p.condition.clone();
                self.record(rule, Some(p.axis_from_end), dims, p.validity, text, decided);
            }
            let Some(condition) = found else {
                continue;
            };
            self.push_possible(rule, false, slots, p, &conflict_head(p, &condition));
        }
    }

    /// Reports the conflict `p` may be at this node: a W1/W2, or an error when `definite`.
    fn push_possible(
        &mut self,
        rule: Rule,
        definite: bool,
        slots: &[usize],
        p: &super::broadcast::PossibleConflict,
        detail: &str,
    ) {
        let mut d = self.algebra_finding(rule, definite, slots, detail);
        d.axis = Some(p.axis_from_end);
        d.inputs = p
            .dims
            .iter()
            .map(|(i, dim)| (slot_of(slots, *i), dim.to_string()))
            .collect();
        self.findings.push(d);
    }

    /// Judges `p` over the ranges the run binds ([`super::ranges`]); true when that settled it: it
    /// holds at every value (no finding, counted as proven), fails at every value (an error), or
    /// fails at some (the W1 or W2 says exactly where). False when a symbol of it is not bound.
    fn judge_over_ranges(
        &mut self,
        ranges: &super::ranges::Ranges,
        rule: Rule,
        slots: &[usize],
        p: &super::broadcast::PossibleConflict,
    ) -> bool {
        use super::ranges::Verdict;
        let operands: Vec<&Dim> = p.dims.iter().map(|(_, d)| d).collect();
        let Some(verdict) = ranges.judge(&operands, p.validity) else {
            return false;
        };
        // The condition holds no clause of the unbounded search: the verdict gives the failing set.
        let head = conflict_head(p, &p.condition);
        if self.conditions.is_some() {
            let decided = match verdict {
                Verdict::Holds => Decided::Quiet,
                Verdict::FailsAll(_) => Decided::Never,
                Verdict::Clause(_) => Decided::Finding,
            };
            let dims = p.dims.iter().map(|(_, d)| d.clone()).collect();
            let text = p.condition.clone();
            self.record(rule, Some(p.axis_from_end), dims, p.validity, text, decided);
        }
        let (definite, detail) = match verdict {
            Verdict::Holds => {
                ranges.prove();
                return true;
            }
            Verdict::FailsAll(over) => (
                true,
                format!("{head}; fails for every {over} (the bound sizes)"),
            ),
            Verdict::Clause(clause) => (false, format!("{head}; within the bound sizes, {clause}")),
        };
        self.push_possible(rule, definite, slots, p, &detail);
        true
    }

    /// Records a condition of `rule` decided at this node, when the run records them.
    pub(super) fn record(
        &self,
        rule: Rule,
        axis: Option<i64>,
        dims: Vec<Dim>,
        validity: Validity,
        text: String,
        decided: Decided,
    ) {
        let Some(conditions) = self.conditions else {
            return;
        };
        let source = match rule {
            Rule::Contract(c) => Source::Contract(c),
            other => Source::Broadcast(other.describe()),
        };
        let mut c = Condition::new(dims, validity, text, source, decided);
        c.axis = axis;
        conditions.record(c);
    }

    /// A finding of the broadcast algebra under `rule` (`definite`: an error, else a condition),
    /// with the inputs at `slots` in its notes: E1/W1 for a broadcast, E2/W2 for a contract.
    fn algebra_finding(
        &self,
        rule: Rule,
        definite: bool,
        slots: &[usize],
        detail: &str,
    ) -> Diagnostic {
        let shapes = slots.iter().map(|&s| {
            format!(
                "input {s} '{}': {}",
                self.node.input_name(s),
                super::dim::format_shape(&self.shape(s))
            )
        });
        let Rule::Contract(c) = rule else {
            let (code, verb) = if definite {
                (Code::BroadcastError, "cannot be broadcast")
            } else {
                (
                    Code::PossibleBroadcastError,
                    "broadcast only under a condition",
                )
            };
            let mut d = Diagnostic::new(
                code,
                "",
                format!(
                    "inputs of '{}' ({}) {verb}: {detail}",
                    self.label,
                    self.op_type()
                ),
            );
            d.notes.extend(shapes);
            d.notes.push(format!("rule: {}", rule.describe()));
            return d;
        };
        let code = if definite {
            Code::ShapeContract
        } else {
            Code::PossibleShapeContract
        };
        self.contract_diagnostic(code, c, slots, detail)
    }
}

/// When the sizes on one axis are valid under `rule`: what a definite conflict broke.
fn validity_of(rule: Rule) -> Validity {
    match rule {
        Rule::Unidirectional | Rule::LegacyAxis => Validity::Onto,
        Rule::None | Rule::Contract(_) => Validity::Equal,
        Rule::Multidirectional | Rule::Bidirectional => Validity::Multi,
    }
}

/// The node input behind operand `i` of the algebra. Expand gives the algebra its input 0 and the
/// target shape read from input 1's values: operand 1 is then slot 1.
fn slot_of(slots: &[usize], i: usize) -> usize {
    slots.get(i).copied().unwrap_or(i)
}

/// `axis -1: N vs 4; CONDITION`: how a possible conflict's message begins.
fn conflict_head(p: &super::broadcast::PossibleConflict, condition: &str) -> String {
    let dims: Vec<String> = p.dims.iter().map(|(_, d)| d.to_string()).collect();
    format!(
        "axis {}: {}; {condition}",
        p.axis_from_end,
        dims.join(" vs ")
    )
}
