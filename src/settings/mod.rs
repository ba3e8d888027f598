//! What a run reports: rule selection, severity overrides, per-file ignores, suppressions with reasons
//! and baselines, read from configuration files and the command line.
//!
//! Detection always finds everything; settings only filter and grade its findings afterwards, so a
//! model's findings do not depend on how it was found. [`Resolver`] finds the [`Settings`] in force
//! for each model (its configuration file, the command line over it), [`Settings::apply`] filters a
//! model's findings, and [`Settings::unused`] reports the suppressions that silenced nothing.

pub mod baseline;
pub mod config;
mod error;
pub mod interface;
pub mod pattern;
pub mod selector;

use crate::diagnostics::{Code, Diagnostic};
use crate::shape::bindings::Bindings;
use crate::shape::interface::Interface;
use config::ConfigFile;
pub use error::SettingsError;
use pattern::{NamePattern, PathPattern};
pub use selector::{RuleLayer, Rules, Selector};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// One `[[suppress]]` entry, parsed.
#[derive(Clone, Debug)]
pub struct Suppression {
    /// 1-based, in file order: how messages name it.
    pub number: usize,
    pub model: Option<PathPattern>,
    pub code: Selector,
    pub node: Option<NamePattern>,
    pub reason: String,
}

impl Suppression {
    fn describe(&self) -> String {
        let mut s = format!("suppression {} ({}", self.number, self.code.text);
        if let Some(n) = &self.node {
            s.push_str(&format!(" at node '{}'", n.text));
        }
        if let Some(m) = &self.model {
            s.push_str(&format!(" in '{}'", m.text));
        }
        s.push(')');
        s
    }

    fn silences(&self, d: &Diagnostic) -> bool {
        if !self.code.matches(d.code) {
            return false;
        }
        match &self.node {
            None => true,
            Some(p) => [&d.node, &d.inner_node]
                .into_iter()
                .flatten()
                .any(|n| p.matches(n)),
        }
    }
}

/// A suppression's record over a run: whether it applied to some model checked (its model pattern
/// matched and its code was reported there) and how many findings it silenced.
#[derive(Clone, Copy, Debug, Default)]
struct Use {
    applied: bool,
    hits: usize,
}

/// The settings of one configuration (or none) with the command line over it.
#[derive(Debug)]
pub struct Settings {
    /// The configuration file in force; `None` when there is none (or `--isolated`).
    pub config: Option<PathBuf>,
    /// The folder model patterns are relative to.
    pub root: PathBuf,
    pub rules: Rules,
    per_file_ignores: Vec<(PathPattern, Vec<Selector>)>,
    suppressions: Vec<Suppression>,
    uses: Mutex<Vec<Use>>,
    /// The configuration's `dims`, and its `per-file-dims` (applied over them, in file order).
    dims: Bindings,
    per_file_dims: Vec<(PathPattern, Bindings)>,
    /// The configuration's `interface`, and its `per-file-interface` (applied over it, in file order).
    interface: Interface,
    per_file_interface: Vec<(PathPattern, Interface)>,
}

/// The bindings of a `dims` table (`key` names it in errors).
fn bindings(
    file: &Option<PathBuf>,
    key: &str,
    table: &std::collections::BTreeMap<String, config::DimValue>,
) -> Result<Bindings, SettingsError> {
    let mut out = Bindings::default();
    for (name, value) in table {
        let domain = value.domain().map_err(|e| {
            in_key(
                file,
                &format!("{key}.{name}"),
                SettingsError::BadDim(e.to_string()),
            )
        })?;
        out.insert(name.clone(), domain);
    }
    Ok(out)
}

/// Names the key and file of a bad value.
fn in_key(file: &Option<PathBuf>, key: &str, e: SettingsError) -> SettingsError {
    SettingsError::InKey {
        file: file.clone(),
        key: key.to_owned(),
        cause: Box::new(e),
    }
}

impl Settings {
    /// The settings of the configuration `text`, the contents of the file at `path` (in whose folder
    /// its model patterns are rooted), with `cli` over it; `Ok(None)` for a `pyproject.toml` without
    /// a `[tool.onnx-lint]` table. Reads a configuration from memory, as the fuzz target does.
    pub fn from_text(
        text: &str,
        path: &Path,
        cli: &RuleLayer,
    ) -> Result<Option<Settings>, SettingsError> {
        let Some(config) = config::parse(text, path)? else {
            return Ok(None);
        };
        let root = path.parent().map(Path::to_owned).unwrap_or_default();
        Settings::new(Some((path.to_owned(), config)), root, cli).map(Some)
    }

    /// The settings of `config` (read from `file`, its folder `root`) with `cli` over it.
    pub fn new(
        config: Option<(PathBuf, ConfigFile)>,
        root: PathBuf,
        cli: &RuleLayer,
    ) -> Result<Settings, SettingsError> {
        let (file, c) = match config {
            Some((f, c)) => (Some(f), c),
            None => (None, ConfigFile::default()),
        };
        let parse =
            |key: &str, v: &[String]| Selector::parse_all(v).map_err(|e| in_key(&file, key, e));
        let layer = RuleLayer {
            select: c
                .select
                .as_deref()
                .map(|s| parse("select", s))
                .transpose()?,
            extend_select: parse("extend-select", &c.extend_select)?,
            ignore: parse("ignore", &c.ignore)?,
            error: parse("error", &c.error)?,
            warn: parse("warn", &c.warn)?,
        };
        let mut per_file_ignores = Vec::new();
        for (glob, codes) in &c.per_file_ignores {
            let pattern =
                PathPattern::new(glob).map_err(|e| in_key(&file, "per-file-ignores", e))?;
            per_file_ignores.push((pattern, parse("per-file-ignores", codes)?));
        }
        let mut suppressions = Vec::new();
        for (i, s) in c.suppress.iter().enumerate() {
            let key = format!("suppress[{}]", i + 1);
            let err = |e| in_key(&file, &key, e);
            if s.reason.trim().is_empty() {
                return Err(err(SettingsError::EmptyReason));
            }
            suppressions.push(Suppression {
                number: i + 1,
                model: s
                    .model
                    .as_deref()
                    .map(PathPattern::new)
                    .transpose()
                    .map_err(|e| in_key(&file, &format!("{key}.model"), e))?,
                code: Selector::parse(&s.code).map_err(err)?,
                node: s
                    .node
                    .as_deref()
                    .map(NamePattern::new)
                    .transpose()
                    .map_err(|e| in_key(&file, &format!("{key}.node"), e))?,
                reason: s.reason.trim().to_owned(),
            });
        }
        let dims = bindings(&file, "dims", &c.dims)?;
        let mut per_file_dims = Vec::new();
        for (glob, table) in &c.per_file_dims {
            let pattern = PathPattern::new(glob).map_err(|e| in_key(&file, "per-file-dims", e))?;
            let key = format!("per-file-dims.\"{glob}\"");
            per_file_dims.push((pattern, bindings(&file, &key, table)?));
        }
        let interface = c
            .interface
            .as_ref()
            .map(|t| t.contract())
            .unwrap_or_default();
        let mut per_file_interface = Vec::new();
        for (glob, table) in &c.per_file_interface {
            let pattern =
                PathPattern::new(glob).map_err(|e| in_key(&file, "per-file-interface", e))?;
            per_file_interface.push((pattern, table.contract()));
        }
        Ok(Settings {
            dims,
            per_file_dims,
            interface,
            per_file_interface,
            rules: Rules::resolve([&layer, cli]),
            uses: Mutex::new(vec![Use::default(); suppressions.len()]),
            config: file,
            root,
            per_file_ignores,
            suppressions,
        })
    }

    /// The defaults with `cli` over them, no configuration file: the `--isolated` settings, and those
    /// of the library's callers that pass codes only.
    pub fn isolated(cli: &RuleLayer) -> Settings {
        // Without a configuration nothing can fail to parse.
        let root = std::env::current_dir().unwrap_or_default();
        Settings {
            config: None,
            root,
            rules: Rules::resolve([cli]),
            per_file_ignores: Vec::new(),
            suppressions: Vec::new(),
            uses: Mutex::new(Vec::new()),
            dims: Bindings::default(),
            per_file_dims: Vec::new(),
            interface: Interface::default(),
            per_file_interface: Vec::new(),
        }
    }

    /// The symbol values for the model at `model`: the configuration's `dims` with its matching
    /// `per-file-dims` over them (the command line's `--dim` goes over these, in `check`).
    pub fn dims_for(&self, model: Option<&Path>) -> Bindings {
        let mut out = self.dims.clone();
        for (pattern, b) in &self.per_file_dims {
            if pattern.matches(&self.root, model) {
                out = out.with(b);
            }
        }
        out
    }

    /// The interface the model at `model` is expected to have: the configuration's `interface` with
    /// the sides of its matching `per-file-interface` tables over it; `None` when it states none.
    pub fn interface_for(&self, model: Option<&Path>) -> Option<Interface> {
        let mut out = self.interface.clone();
        for (pattern, i) in &self.per_file_interface {
            if pattern.matches(&self.root, model) {
                out = out.with(i);
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// The rules for the model at `model` (absolute and canonical; `None` for standard input): the
    /// settings' rules less its matching per-file ignores.
    pub fn rules_for(&self, model: Option<&Path>) -> Rules {
        let mut rules = self.rules.clone();
        for (pattern, codes) in &self.per_file_ignores {
            if pattern.matches(&self.root, model) {
                rules.disable(codes);
            }
        }
        rules
    }

    /// Whether suppression `s` is meant for `model` (its model pattern matches, or it has none).
    fn applies_to(&self, s: &Suppression, model: Option<&Path>) -> bool {
        s.model
            .as_ref()
            .is_none_or(|m| m.matches(&self.root, model))
    }

    /// Whether any finding of `code` is reported for `model`: lets a caller skip work (B001 needs
    /// every shape kept).
    pub fn wants(&self, model: Option<&Path>, code: Code) -> bool {
        self.rules_for(model).is_enabled(code)
    }

    /// The findings of the model at `model` as reported: codes not selected dropped, severities
    /// overridden, suppressed findings dropped (and counted for [`Settings::unused`]). Returns the
    /// findings kept and the number suppressed.
    pub fn apply(&self, model: Option<&Path>, found: Vec<Diagnostic>) -> (Vec<Diagnostic>, usize) {
        let rules = self.rules_for(model);
        let active: Vec<&Suppression> = self
            .suppressions
            .iter()
            .filter(|s| self.applies_to(s, model) && rules.enabled().any(|c| s.code.matches(c)))
            .collect();
        let mut hits = vec![0usize; active.len()];
        let mut kept = Vec::with_capacity(found.len());
        let mut suppressed = 0;
        for mut d in found {
            if !rules.is_enabled(d.code) {
                continue;
            }
            if let Some(s) = rules.forced_severity(d.code) {
                d.severity = s;
            }
            // Every suppression that matches is credited, so none of two overlapping ones is
            // reported as unused.
            let mut silenced = false;
            for (i, s) in active.iter().enumerate() {
                if s.silences(&d) {
                    hits[i] += 1;
                    silenced = true;
                }
            }
            if silenced {
                suppressed += 1;
            } else {
                kept.push(d);
            }
        }
        if !active.is_empty() {
            let mut uses = self.uses.lock().unwrap_or_else(|p| p.into_inner());
            for (s, n) in active.iter().zip(hits) {
                let u = &mut uses[s.number - 1];
                u.applied = true;
                u.hits += n;
            }
        }
        (kept, suppressed)
    }

    /// A finding (S001) for every suppression that applied to a model of the run and silenced
    /// nothing: the finding it was written for is gone (or its pattern is wrong), so it would only
    /// hide a future one. Suppressions whose models were not checked in the run are not judged.
    pub fn unused(&self) -> Vec<Diagnostic> {
        if !self.rules.is_enabled(Code::UnusedSuppression) {
            return Vec::new();
        }
        let uses = self.uses.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = Vec::new();
        for (s, u) in self.suppressions.iter().zip(uses.iter()) {
            if !u.applied || u.hits > 0 {
                continue;
            }
            let mut d = Diagnostic::new(
                Code::UnusedSuppression,
                "",
                format!("{} matched no finding", s.describe()),
            )
            .note(format!("reason given: {}", s.reason))
            .note("remove it, or correct its code, node or model pattern");
            if let Some(sev) = self.rules.forced_severity(Code::UnusedSuppression) {
                d.severity = sev;
            }
            out.push(d);
        }
        out
    }

    /// The settings in force for `model`, as `check --show-settings` prints them; `shown` is how the
    /// model is named.
    pub fn describe(&self, shown: &str, model: Option<&Path>) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let _ = writeln!(out, "model: {shown}");
        match &self.config {
            Some(c) => _ = writeln!(out, "configuration: {}", c.display()),
            None => _ = writeln!(out, "configuration: none (defaults and the command line)"),
        }
        let dims = self.dims_for(model);
        if !dims.is_empty() {
            let listed: Vec<String> = dims.iter().map(|(n, d)| format!("{n} = {d}")).collect();
            let _ = writeln!(out, "dims (before --dim): {}", listed.join(", "));
        }
        if let Some(i) = self.interface_for(model) {
            for (side, ports) in [("inputs", &i.inputs), ("outputs", &i.outputs)] {
                let Some(ports) = ports else { continue };
                let listed: Vec<String> = ports.iter().map(|p| p.to_string()).collect();
                let _ = writeln!(out, "interface {side}: {}", listed.join(", "));
            }
        }
        let rules = self.rules_for(model);
        let _ = writeln!(out, "rules reported:");
        for c in Code::ALL {
            let sev = rules.forced_severity(*c);
            let state = match (rules.is_enabled(*c), sev) {
                (false, _) => "off".to_owned(),
                (true, Some(s)) => format!("{} (forced)", s.as_str()),
                (true, None) => c.severity().as_str().to_owned(),
            };
            let _ = writeln!(out, "  {:<5} {:<26} {state}", c.as_str(), c.name());
        }
        let matching: Vec<_> = self
            .per_file_ignores
            .iter()
            .filter(|(p, _)| p.matches(&self.root, model))
            .collect();
        if !matching.is_empty() {
            let _ = writeln!(out, "per-file ignores matching:");
            for (p, codes) in matching {
                let codes: Vec<&str> = codes.iter().map(|s| s.text.as_str()).collect();
                let _ = writeln!(out, "  {} = {}", p.text, codes.join(", "));
            }
        }
        let sups: Vec<_> = self
            .suppressions
            .iter()
            .filter(|s| self.applies_to(s, model))
            .collect();
        if !sups.is_empty() {
            let _ = writeln!(out, "suppressions applying:");
            for s in sups {
                let _ = writeln!(out, "  {}: {}", s.describe(), s.reason);
            }
        }
        out
    }
}

/// Where each model's settings come from.
#[derive(Debug)]
enum Source {
    /// From the model's folder upwards.
    Discover,
    /// One for every model (`--config`, `--isolated`).
    Fixed(Arc<Settings>),
}

/// Finds the settings in force for each model of a run, reading each configuration file once.
#[derive(Debug)]
pub struct Resolver {
    cli: RuleLayer,
    source: Source,
    by_folder: HashMap<PathBuf, Arc<Settings>>,
    /// Every settings handed out, in first-use order (each configuration's unused suppressions are
    /// reported once, at the end of the run).
    used: Vec<Arc<Settings>>,
}

impl Resolver {
    /// `config` names one file for every model; `isolated` reads none.
    pub fn new(
        cli: RuleLayer,
        config: Option<&Path>,
        isolated: bool,
    ) -> Result<Resolver, SettingsError> {
        let source = if isolated {
            Source::Fixed(Arc::new(Settings::isolated(&cli)))
        } else if let Some(path) = config {
            let found =
                config::read(path)?.ok_or_else(|| SettingsError::NoTable(path.to_owned()))?;
            let abs = canonical(path);
            let root = abs.parent().map(Path::to_owned).unwrap_or_default();
            Source::Fixed(Arc::new(Settings::new(Some((abs, found)), root, &cli)?))
        } else {
            Source::Discover
        };
        Ok(Resolver {
            cli,
            source,
            by_folder: HashMap::new(),
            used: Vec::new(),
        })
    }

    /// The settings for `model` (a path as given; `-` is standard input, whose settings are those
    /// of the current folder).
    pub fn for_model(&mut self, model: &Path) -> Result<Arc<Settings>, SettingsError> {
        self.for_model_at(model_path(model).as_deref())
    }

    /// [`Resolver::for_model`] of the model whose canonical path is `at` ([`model_path`]; `None`
    /// for standard input).
    pub fn for_model_at(&mut self, at: Option<&Path>) -> Result<Arc<Settings>, SettingsError> {
        self.for_model_listed(at, None)
    }

    /// [`Resolver::for_model_at`] when the listing of the model's folder is known (`listed`: which
    /// configuration names it holds).
    pub fn for_model_listed(
        &mut self,
        at: Option<&Path>,
        listed: Option<config::Listed>,
    ) -> Result<Arc<Settings>, SettingsError> {
        let settings = match &self.source {
            Source::Fixed(s) => s.clone(),
            Source::Discover => match at {
                Some(m) => self.discovered(m.parent().unwrap_or(Path::new("")), listed)?,
                None => self.discovered(&canonical(Path::new(".")), None)?,
            },
        };
        if !self.used.iter().any(|u| Arc::ptr_eq(u, &settings)) {
            self.used.push(settings.clone());
        }
        Ok(settings)
    }

    fn discovered(
        &mut self,
        folder: &Path,
        listed: Option<config::Listed>,
    ) -> Result<Arc<Settings>, SettingsError> {
        if let Some(s) = self.by_folder.get(folder) {
            return Ok(s.clone());
        }
        // The folder's own file, else its parent's settings (cached the same way).
        let settings = match config::in_folder_listed(folder, listed)? {
            Some(found) => Arc::new(Settings::new(
                Some((found.path, found.config)),
                folder.to_owned(),
                &self.cli,
            )?),
            None => match folder.parent() {
                Some(p) => self.discovered(p, None)?,
                None => Arc::new(Settings::isolated(&self.cli)),
            },
        };
        self.by_folder.insert(folder.to_owned(), settings.clone());
        Ok(settings)
    }

    /// The settings handed out so far, in first-use order.
    pub fn used(&self) -> &[Arc<Settings>] {
        &self.used
    }
}

/// `model` as an absolute, canonical path (the form patterns are matched against); `None` for `-`.
pub fn model_path(model: &Path) -> Option<PathBuf> {
    (model.as_os_str() != "-").then(|| canonical(model))
}

/// The canonical form of `p`, or its absolute form when it does not exist (a model that will not
/// load still gets settings, so the run can say why it did not load).
fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p)
        .or_else(|_| std::path::absolute(p))
        .unwrap_or_else(|_| p.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn diag(code: Code, node: &str) -> Diagnostic {
        Diagnostic::new(code, "main", "m").at_node(node, "Add")
    }

    /// The settings of `toml` as `/r/onnx-lint.toml`, or why they cannot be used.
    fn parse(toml: &str) -> Result<Settings, SettingsError> {
        let c: ConfigFile = toml::from_str(toml).unwrap();
        Settings::new(
            Some(("/r/onnx-lint.toml".into(), c)),
            "/r".into(),
            &RuleLayer::default(),
        )
    }

    fn settings(toml: &str) -> Settings {
        parse(toml).unwrap()
    }

    #[test]
    fn suppressions_silence_matching_findings_and_unused_ones_are_reported() {
        let s = settings(
            "[[suppress]]\ncode = \"E1\"\nnode = \"add_*\"\nreason = \"vendor model\"\n\
             [[suppress]]\ncode = \"W1\"\nreason = \"symbolic batch\"\n\
             [[suppress]]\nmodel = \"other/*.onnx\"\ncode = \"E1\"\nreason = \"not checked\"\n",
        );
        let m = Path::new("/r/models/a.onnx");
        let (kept, n) = s.apply(
            Some(m),
            vec![
                diag(Code::BroadcastError, "add_1"),
                diag(Code::BroadcastError, "mul_1"),
            ],
        );
        assert_eq!(n, 1);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].node.as_deref(), Some("mul_1"));
        let unused = s.unused();
        assert_eq!(unused.len(), 1, "{unused:?}");
        assert!(
            unused[0].message.starts_with("suppression 2 (W1)"),
            "{}",
            unused[0].message
        );
        assert!(unused[0].notes[0].contains("symbolic batch"));
    }

    #[test]
    fn per_file_ignores_and_overrides_apply_to_their_models() {
        let s = settings("error = [\"W1\"]\n[per-file-ignores]\n\"legacy/*.onnx\" = [\"W\"]\n");
        let w1 = || vec![diag(Code::PossibleBroadcastError, "n")];
        let (kept, _) = s.apply(Some(Path::new("/r/legacy/a.onnx")), w1());
        assert!(kept.is_empty());
        let (kept, _) = s.apply(Some(Path::new("/r/new/a.onnx")), w1());
        assert_eq!(kept[0].severity, crate::diagnostics::Severity::Error);
    }

    #[test]
    fn bad_values_name_their_key() {
        let bad = |t: &str| parse(t).unwrap_err().to_string();
        assert!(bad("ignore = [\"Q7\"]").contains("`ignore`"));
        assert!(bad("[per-file-ignores]\n\"a\" = [\"nope\"]").contains("`per-file-ignores`"));
        let e = bad("[[suppress]]\ncode = \"E1\"\nreason = \" \"");
        assert!(e.contains("suppress[1]") && e.contains("reason"), "{e}");
    }

    #[test]
    fn the_nearest_configuration_wins() {
        let dir = tempfile::tempdir().unwrap();
        let root = canonical(dir.path());
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("onnx-lint.toml"), "ignore = [\"W1\"]\n").unwrap();
        fs::write(root.join("a/onnx-lint.toml"), "ignore = [\"E1\"]\n").unwrap();
        let mut r = Resolver::new(RuleLayer::default(), None, false).unwrap();
        let deep = r.for_model(&root.join("a/b/m.onnx")).unwrap();
        assert_eq!(deep.config, Some(root.join("a/onnx-lint.toml")));
        assert!(!deep.rules.is_enabled(Code::BroadcastError));
        let top = r.for_model(&root.join("m.onnx")).unwrap();
        assert!(!top.rules.is_enabled(Code::PossibleBroadcastError));
        let again = r.for_model(&root.join("a/m.onnx")).unwrap();
        assert!(Arc::ptr_eq(&deep, &again));
        assert_eq!(r.used().len(), 2);
    }
}
