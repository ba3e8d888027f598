//! What the symbols satisfy wherever a node runs: the conditions of the nodes before it.
//!
//! A W1 or W2 says that some sizes of the inputs break the model at its node. Where every such size
//! already breaks an earlier node (a Concat whose other axes must match, a broadcast that needs two
//! sizes equal), the earlier node is the finding and the later one is noise: onnxruntime never gets
//! that far. So each condition reported is also learned as a fact, and the search for a later
//! node's failing values skips the assignments where a fact fails ([`super::counterexample`]). A
//! condition then holds wherever the model reaches it, or fails at values that do reach it, and
//! those are the values its message names.
//!
//! Facts come from the nodes inferred before, in the graph's order. onnxruntime may run two
//! independent branches in another order; the sizes a fact rules out still break the model, at the
//! node whose finding names them. Facts are kept for the graph being inferred; a subgraph's are not
//! carried out of it (fewer facts only keep more findings).

use super::counterexample::Validity;
use super::dim::Dim;
use std::cell::RefCell;
use std::sync::Arc;

/// Most facts kept per model: past it new conditions are still reported, not learned, so a model with
/// a condition at every node does not make every search test thousands of facts.
const MAX_FACTS: usize = 1024;
/// Most facts one search tests at each assignment: the latest that bear on it.
const MAX_APPLIED: usize = 16;

/// One condition an earlier node needs: `dims`, which involve `symbols`, are valid under `rule`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fact {
    pub dims: Vec<Dim>,
    pub rule: Validity,
    /// The symbols of `dims`, sorted and distinct.
    pub symbols: Vec<Arc<str>>,
}

/// The facts of the nodes before the one being inferred, and those it states. A node's own
/// conditions do not bear on each other: each axis of one broadcast is a finding of its own. Shared
/// by reference between a node's context and the contexts a rule builds inside it, hence the cell.
#[derive(Debug, Default)]
pub struct Facts {
    before: Vec<Fact>,
    stated: RefCell<Vec<Fact>>,
}

impl Facts {
    /// The facts of the nodes before this one.
    pub fn new(before: Vec<Fact>) -> Self {
        Facts {
            before,
            stated: RefCell::new(Vec::new()),
        }
    }

    /// The facts for the nodes after this one: the earlier ones and this node's.
    pub fn into_inner(self) -> Vec<Fact> {
        let mut all = self.before;
        for f in self.stated.into_inner() {
            if all.len() >= MAX_FACTS {
                break;
            }
            if !all.contains(&f) {
                all.push(f);
            }
        }
        all
    }

    /// States that `dims` are valid under `rule` for the nodes after this one; sizes without a symbol
    /// say nothing.
    pub fn learn(&self, dims: &[&Dim], rule: Validity) {
        let mut symbols: Vec<Arc<str>> = Vec::new();
        for d in dims {
            match d {
                Dim::Sym(e) => symbols.extend(e.symbols().into_iter().map(Arc::from)),
                // An unknown size may be anything: the condition pins nothing down.
                Dim::Unknown => return,
                Dim::Known(_) => {}
            }
        }
        if symbols.is_empty() {
            return;
        }
        symbols.sort_unstable();
        symbols.dedup();
        self.stated.borrow_mut().push(Fact {
            dims: dims.iter().map(|d| (*d).clone()).collect(),
            rule,
            symbols,
        });
    }

    /// The facts a search over `names` (sorted) can test: those whose symbols are all among them. A
    /// fact with another symbol is left out, since that symbol may take whatever value satisfies it.
    pub fn bearing_on(&self, names: &[&str]) -> Vec<Fact> {
        let mut found: Vec<Fact> = self
            .before
            .iter()
            .rev()
            .filter(|f| {
                f.symbols
                    .iter()
                    .all(|s| names.binary_search(&s.as_ref()).is_ok())
            })
            .take(MAX_APPLIED)
            .cloned()
            .collect();
        found.reverse();
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fact_bears_on_a_search_over_all_of_its_symbols_only() {
        let node = Facts::default();
        let h = Dim::sym("h");
        let w = Dim::sym("w");
        node.learn(&[&h, &Dim::Known(3)], Validity::Multi);
        node.learn(&[&h, &w], Validity::Equal);
        // Not for the node that states them.
        assert!(node.bearing_on(&["h", "w"]).is_empty());
        let facts = Facts::new(node.into_inner());
        assert_eq!(facts.bearing_on(&["h"]).len(), 1);
        assert_eq!(facts.bearing_on(&["h", "w"]).len(), 2);
        assert!(facts.bearing_on(&["w"]).is_empty());
        // Known sizes and unknown ones teach nothing; the same fact is kept once.
        facts.learn(&[&Dim::Known(2), &Dim::Known(3)], Validity::Equal);
        facts.learn(&[&h, &Dim::Unknown], Validity::Equal);
        facts.learn(&[&h, &w], Validity::Equal);
        assert_eq!(facts.into_inner().len(), 2);
    }
}
