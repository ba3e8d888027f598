//! The conditions inference puts on the symbolic sizes, recorded where it decides them: each W1 and
//! W2 condition (and each E1 or E2 whose sizes can never agree), at the node, with its rule or
//! contract, for the sizes report (`onnx-lint dims`, [`super::sizes`]).
//!
//! Nothing here judges a condition: the rules state them through [`super::ctx::NodeCtx`]'s
//! reporting ([`NodeCtx::report_broadcast`](super::ctx::NodeCtx::report_broadcast),
//! `require_equal`, `require_multiple`), which record what they decided beside the finding they
//! make. A run that records nothing (every `check`) pays one branch per condition.

use super::contract::Contract;
use super::counterexample::Validity;
use super::dim::Dim;
use std::cell::RefCell;

/// What the rule made of a condition, without ranges to judge it over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decided {
    /// Some values fail it where the nodes before run: a W1 or W2.
    Finding,
    /// It holds at every value the search tried where the nodes before run: no finding (a Concat
    /// of sizes a broadcast upstream already forced equal).
    Quiet,
    /// No value satisfies it (`seq*2` against 3): an E1 or E2.
    Never,
}

/// What a condition comes from: a broadcast under a rule, or an operator's contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A broadcast; the rule in words (`multidirectional (numpy) broadcasting`).
    Broadcast(&'static str),
    Contract(Contract),
}

/// One condition on sizes, at a node.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    /// The sizes it relates, in operand order (one for a multiple-of).
    pub dims: Vec<Dim>,
    /// When they are valid.
    pub validity: Validity,
    /// The condition as W1 and W2 messages print it (`needs min(seq, 512) = seq or one of them 1`,
    /// `C must be a multiple of 32`).
    pub text: String,
    pub source: Source,
    /// For a broadcast, the axis counted from the end.
    pub axis: Option<i64>,
    pub decided: Decided,
    /// Where it is: the graph's path, the node (the call, inside a function body), its op type, and
    /// the node of the function body. Filled by the driver, as a finding's location is.
    pub graph: String,
    pub node: Option<String>,
    pub op_type: Option<String>,
    pub inner_node: Option<String>,
}

impl Condition {
    /// A condition at the node being inferred (located by the driver).
    pub fn new(
        dims: Vec<Dim>,
        validity: Validity,
        text: String,
        source: Source,
        decided: Decided,
    ) -> Self {
        Condition {
            dims,
            validity,
            text,
            source,
            axis: None,
            decided,
            graph: String::new(),
            node: None,
            op_type: None,
            inner_node: None,
        }
    }

    /// Places it at `node` (of op type `op_type`) in graph `graph`; `inner` is the node of a
    /// function body when `node` is the call.
    pub fn at(&mut self, graph: &str, node: &str, op_type: &str, inner: Option<&str>) {
        self.graph = graph.to_owned();
        self.node = Some(node.to_owned());
        self.op_type = Some(op_type.to_owned());
        self.inner_node = inner.map(str::to_owned);
    }

    /// The symbols of its sizes, sorted, once each.
    pub fn symbols(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .dims
            .iter()
            .filter_map(|d| match d {
                Dim::Sym(e) => Some(e.symbols()),
                _ => None,
            })
            .flatten()
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Where the rules of one inference record their conditions, in the order inference meets them.
/// Shared by reference with every node's context (and the contexts a rule builds inside it), hence
/// the cell: inference runs on one thread.
#[derive(Debug, Default)]
pub struct Conditions {
    list: RefCell<Vec<Condition>>,
}

impl Conditions {
    pub fn record(&self, c: Condition) {
        self.list.borrow_mut().push(c);
    }

    /// How many are recorded: a mark to locate, drop or copy what comes after it.
    pub fn len(&self) -> usize {
        self.list.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops what was recorded after `mark` (an If branch that never runs breaks nothing).
    pub fn truncate(&self, mark: usize) {
        self.list.borrow_mut().truncate(mark);
    }

    /// Copies of what was recorded after `mark`.
    pub fn since(&self, mark: usize) -> Vec<Condition> {
        self.list.borrow().get(mark..).unwrap_or_default().to_vec()
    }

    /// Gives what was recorded after `mark` and not yet located its location.
    pub fn locate_since(&self, mark: usize, f: impl Fn(&mut Condition)) {
        if let Some(new) = self.list.borrow_mut().get_mut(mark..) {
            new.iter_mut().filter(|c| c.node.is_none()).for_each(f);
        }
    }

    pub fn extend(&self, more: impl IntoIterator<Item = Condition>) {
        self.list.borrow_mut().extend(more);
    }

    pub fn into_inner(self) -> Vec<Condition> {
        self.list.into_inner()
    }
}
