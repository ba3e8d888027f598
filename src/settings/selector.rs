//! Rule selectors and how layers of them resolve into the rules in force.
//!
//! A selector names codes three ways, as ruff's do: a whole code (`E1`, `g001`) or a rule name
//! (`broadcast-error`), a prefix (`W`, `T00`), or `ALL`. Layers (a configuration file, then the command
//! line) are applied in order; within a layer the more specific selector wins, so `select = ["E1"]`
//! with `ignore = ["E"]` keeps E1, and at equal specificity an ignore beats a select.

use super::SettingsError;
use crate::diagnostics::{Code, Severity};

/// One parsed selector: the text as written (for messages) and the codes it stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    pub text: String,
    codes: Vec<Code>,
    /// 0 for `ALL`, the prefix's length for a prefix, [`EXACT`] for a whole code or name.
    specificity: usize,
}

/// The specificity of a whole code or name: above any prefix.
const EXACT: usize = usize::MAX;

impl Selector {
    /// Parses a selector; a string that names no code (not a code, a name, a prefix of a code, or
    /// `ALL`) is an error that says so, never a selector that silently matches nothing.
    pub fn parse(text: &str) -> Result<Selector, SettingsError> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("all") {
            return Ok(Selector {
                text: t.to_owned(),
                codes: Code::ALL.to_vec(),
                specificity: 0,
            });
        }
        if let Ok(code) = t.parse::<Code>() {
            return Ok(Selector {
                text: t.to_owned(),
                codes: vec![code],
                specificity: EXACT,
            });
        }
        let upper = t.to_ascii_uppercase();
        let codes: Vec<Code> = Code::ALL
            .iter()
            .copied()
            .filter(|c| !upper.is_empty() && c.as_str().starts_with(&upper))
            .collect();
        if codes.is_empty() {
            return Err(SettingsError::UnknownSelector(t.to_owned()));
        }
        Ok(Selector {
            text: t.to_owned(),
            codes,
            specificity: upper.len(),
        })
    }

    /// Parses every selector of a list, stopping at the first that names nothing.
    pub fn parse_all<S: AsRef<str>>(texts: &[S]) -> Result<Vec<Selector>, SettingsError> {
        texts.iter().map(|t| Selector::parse(t.as_ref())).collect()
    }

    pub fn matches(&self, code: Code) -> bool {
        self.codes.contains(&code)
    }
}

/// One layer of rule settings: a configuration file's keys, or the command line's flags.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleLayer {
    /// Replaces the rules carried from the layers below when set.
    pub select: Option<Vec<Selector>>,
    pub extend_select: Vec<Selector>,
    pub ignore: Vec<Selector>,
    /// Codes whose findings become errors (so they fail the run).
    pub error: Vec<Selector>,
    /// Codes whose findings become warnings (so they no longer fail it).
    pub warn: Vec<Selector>,
}

/// The rules in force: which codes are reported and the severity each is forced to, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    enabled: Vec<bool>,
    severity: Vec<Option<Severity>>,
}

/// The codes off until selected: B001 lists every implicit broadcast (`--extend-select B001`, or
/// `check --explicit`); I002 says how inference read a declared shape, once per symbol and size,
/// which asks nothing of the user and comes by the dozen on real models. As in ruff, the default set
/// is what a user must act on.
pub const OFF_BY_DEFAULT: [Code; 2] = [Code::ImplicitBroadcast, Code::SymbolBinding];

impl Default for Rules {
    /// Every code but those [`OFF_BY_DEFAULT`].
    fn default() -> Self {
        Rules {
            enabled: Code::ALL
                .iter()
                .map(|c| !OFF_BY_DEFAULT.contains(c))
                .collect(),
            severity: vec![None; Code::ALL.len()],
        }
    }
}

/// `code`'s place in [`Code::ALL`]: the codes! macro lists the variants in table order, without
/// explicit discriminants, so the discriminant is the index.
fn index(code: Code) -> usize {
    code as usize
}

impl Rules {
    /// The rules after applying `layers` in order over the defaults.
    pub fn resolve<'a>(layers: impl IntoIterator<Item = &'a RuleLayer>) -> Rules {
        let mut rules = Rules::default();
        for layer in layers {
            rules.apply(layer);
        }
        rules
    }

    fn apply(&mut self, layer: &RuleLayer) {
        if layer.select.is_some() {
            self.enabled.iter_mut().for_each(|e| *e = false);
        }
        let adds = layer.select.iter().flatten().chain(&layer.extend_select);
        let mut ops: Vec<(&Selector, bool)> = adds
            .map(|s| (s, true))
            .chain(layer.ignore.iter().map(|s| (s, false)))
            .collect();
        // Stable: at equal specificity the ignores, listed last, are applied last and win.
        ops.sort_by_key(|(s, _)| s.specificity);
        for (sel, on) in ops {
            for &c in &sel.codes {
                self.enabled[index(c)] = on;
            }
        }
        let mut forced: Vec<(&Selector, Severity)> = layer
            .warn
            .iter()
            .map(|s| (s, Severity::Warning))
            .chain(layer.error.iter().map(|s| (s, Severity::Error)))
            .collect();
        forced.sort_by_key(|(s, _)| s.specificity);
        for (sel, sev) in forced {
            for &c in &sel.codes {
                self.severity[index(c)] = Some(sev);
            }
        }
    }

    /// Turns off every code `codes` name (a model's per-file ignores, applied after every layer).
    pub fn disable(&mut self, codes: &[Selector]) {
        for sel in codes {
            for &c in &sel.codes {
                self.enabled[index(c)] = false;
            }
        }
    }

    pub fn is_enabled(&self, code: Code) -> bool {
        self.enabled[index(code)]
    }

    /// The severity forced on `code`'s findings, if a layer forces one.
    pub fn forced_severity(&self, code: Code) -> Option<Severity> {
        self.severity[index(code)]
    }

    /// The codes reported, in table order.
    pub fn enabled(&self) -> impl Iterator<Item = Code> + '_ {
        Code::ALL.iter().copied().filter(|c| self.is_enabled(*c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(s: &[&str]) -> Vec<Selector> {
        Selector::parse_all(s).unwrap()
    }

    fn on(rules: &Rules) -> Vec<&'static str> {
        rules.enabled().map(|c| c.as_str()).collect()
    }

    #[test]
    fn selectors_take_codes_prefixes_names_and_all() {
        assert_eq!(sel(&["e1"])[0].codes, [Code::BroadcastError]);
        assert_eq!(sel(&["broadcast-error"])[0].codes, [Code::BroadcastError]);
        assert_eq!(
            sel(&["T00"])[0].codes.len(),
            Code::ALL
                .iter()
                .filter(|c| c.as_str().starts_with("T00"))
                .count()
        );
        assert_eq!(sel(&["ALL"])[0].codes.len(), Code::ALL.len());
        let err = Selector::parse("Z9").unwrap_err().to_string();
        assert!(err.contains("`Z9`"), "{err}");
        assert!(Selector::parse("").is_err());
    }

    #[test]
    fn index_is_the_place_in_the_table() {
        for (i, c) in Code::ALL.iter().enumerate() {
            assert_eq!(index(*c), i);
        }
    }

    #[test]
    fn defaults_leave_out_only_b001_and_i002() {
        let r = Rules::default();
        assert!(!r.is_enabled(Code::ImplicitBroadcast));
        assert!(!r.is_enabled(Code::SymbolBinding));
        assert_eq!(r.enabled().count(), Code::ALL.len() - 2);
        // Selected, by code, prefix or ALL, it is reported.
        for s in ["I002", "I", "symbol-binding", "ALL"] {
            let layer = RuleLayer {
                extend_select: sel(&[s]),
                ..Default::default()
            };
            assert!(
                Rules::resolve([&layer]).is_enabled(Code::SymbolBinding),
                "{s}"
            );
        }
    }

    #[test]
    fn the_more_specific_selector_wins_and_ignore_wins_ties() {
        let layer = RuleLayer {
            select: Some(sel(&["E1", "W"])),
            ignore: sel(&["E", "W1"]),
            ..Default::default()
        };
        // W2 is selected by `W` and ignored by nothing as specific.
        assert_eq!(on(&Rules::resolve([&layer])), ["E1", "W2"]);
    }

    #[test]
    fn a_later_select_replaces_and_extend_select_adds() {
        let config = RuleLayer {
            select: Some(sel(&["G"])),
            ..Default::default()
        };
        let cli = RuleLayer {
            select: Some(sel(&["E1"])),
            extend_select: sel(&["B001"]),
            ..Default::default()
        };
        assert_eq!(on(&Rules::resolve([&config, &cli])), ["E1", "B001"]);
        let cli = RuleLayer {
            ignore: sel(&["G001"]),
            ..Default::default()
        };
        let got = on(&Rules::resolve([&config, &cli]));
        assert!(!got.contains(&"G001") && got.contains(&"G002"), "{got:?}");
    }

    #[test]
    fn severity_overrides_follow_specificity_and_layers() {
        let config = RuleLayer {
            error: sel(&["W"]),
            warn: sel(&["W1"]),
            ..Default::default()
        };
        let r = Rules::resolve([&config]);
        assert_eq!(
            r.forced_severity(Code::PossibleBroadcastError),
            Some(Severity::Warning)
        );
        assert_eq!(r.forced_severity(Code::BroadcastError), None);
        let cli = RuleLayer {
            error: sel(&["possible-broadcast-error"]),
            ..Default::default()
        };
        let r = Rules::resolve([&config, &cli]);
        assert_eq!(
            r.forced_severity(Code::PossibleBroadcastError),
            Some(Severity::Error)
        );
    }
}
