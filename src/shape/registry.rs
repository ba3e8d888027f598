//! The table of shape rules, keyed by (domain, op_type) and the opset version each rule applies from,
//! with the broadcast site each broadcasting operator declares beside its rule ([`super::sites`]).
//! Each op family registers its rules in its own file under `ops/`.

use super::ctx::NodeCtx;
use super::sites::Declared;
use super::value::ValueInfo;
use crate::text::OpKey;
use std::sync::OnceLock;

/// A shape rule: reads the node's inputs and attributes, reports findings through the context, and
/// returns what it knows of the outputs, in output order (missing trailing outputs are unknown).
pub type Rule = fn(&mut NodeCtx<'_>) -> Vec<ValueInfo>;

#[derive(Default)]
pub struct Registry {
    /// Looked up once per node: hashbrown's default (foldhash) rather than SipHash.
    rules: hashbrown::HashMap<(&'static str, &'static str), Vec<Entry>>,
}

/// One registration: from opset version `since`, this rule, and the broadcast site if the operator
/// broadcasts at that version.
struct Entry {
    since: i64,
    rule: Rule,
    site: Option<Declared>,
}

impl Registry {
    /// Registers `rule` for `op_type` of `domain` ("" is ai.onnx) from opset version `since` on, until a
    /// later registration of the same op takes over.
    pub fn add(&mut self, domain: &'static str, op_type: &'static str, since: i64, rule: Rule) {
        self.insert(domain, op_type, since, rule, None);
    }

    /// [`Registry::add`] for an operator that broadcasts the inputs `site` declares at those
    /// versions (read by `expand`, `fold` and B001 through [`super::sites::site`]).
    pub fn add_site(
        &mut self,
        domain: &'static str,
        op_type: &'static str,
        since: i64,
        rule: Rule,
        site: Declared,
    ) {
        self.insert(domain, op_type, since, rule, Some(site));
    }

    fn insert(
        &mut self,
        domain: &'static str,
        op_type: &'static str,
        since: i64,
        rule: Rule,
        site: Option<Declared>,
    ) {
        let v = self.rules.entry((domain, op_type)).or_default();
        v.push(Entry { since, rule, site });
        v.sort_by_key(|e| e.since);
    }

    /// Registers the same rule for several ops of the default domain.
    pub fn add_all(&mut self, ops: &[&'static str], since: i64, rule: Rule) {
        for op in ops {
            self.add("", op, since, rule);
        }
    }

    /// [`Registry::add_site`] for several ops of the default domain.
    pub fn add_all_sites(&mut self, ops: &[&'static str], since: i64, rule: Rule, site: Declared) {
        for op in ops {
            self.add_site("", op, since, rule, site);
        }
    }

    /// The rule in force for `op_type` at `opset`: the latest registered at or before it.
    pub fn lookup(&self, domain: &str, op_type: &str, opset: i64) -> Option<Rule> {
        self.entry(domain, op_type, opset).map(|e| e.rule)
    }

    /// The broadcast site declared for `op_type` at `opset`, with the rule in force there.
    pub fn site(&self, domain: &str, op_type: &str, opset: i64) -> Option<Declared> {
        self.entry(domain, op_type, opset)?.site
    }

    fn entry(&self, domain: &str, op_type: &str, opset: i64) -> Option<&Entry> {
        self.rules
            .get(&OpKey(domain, op_type))?
            .iter()
            .rev()
            .find(|e| e.since <= opset)
    }

    /// Every (domain, op_type) with at least one rule.
    pub fn ops(&self) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
        self.rules.keys().copied()
    }
}

/// The registry with every op family's rules, built once.
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut r = Registry::default();
        super::ops::register_all(&mut r);
        r
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two families registering one operator at one version would make the later silently win.
    #[test]
    fn no_operator_is_registered_twice_at_one_version() {
        let r = registry();
        for (domain, op) in r.ops() {
            let versions: Vec<i64> = r.rules[&(domain, op)].iter().map(|e| e.since).collect();
            let mut unique = versions.clone();
            unique.dedup();
            assert_eq!(
                versions, unique,
                "{domain}:{op} registered twice at one version"
            );
        }
    }
}
