//! Diagnostics as data: every finding of every check is a [`Diagnostic`] with a stable [`Code`].
//!
//! Checks never return `Err` for a finding; `Err` is for "could not do the job" (an unreadable file).
//! The codes table ([`Code::ALL`]) is the single place that names, describes and grades each rule;
//! `docs/rules.md` documents each at length (what it checks, why it matters, an example, the fix), and
//! `onnx-lint explain` prints it ([`explain`]).

pub mod codes;
pub mod explain;

pub use codes::Code;
use serde::Serialize;

/// How bad a finding is. `Error` makes `check` exit with status 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One finding. `graph` is the path of the graph it is in (`main`, `main/loop/body`, `function:dom.name`);
/// `node` and `op_type` name the node when there is one.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    pub graph: String,
    pub node: Option<String>,
    pub op_type: Option<String>,
    /// Further lines: the inputs and their shapes, the condition, a hint.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// For broadcast findings: the axis, counted from the end (-1 is the last).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub axis: Option<i64>,
    /// For broadcast errors: the conflicting sizes on `axis`, in input order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<u64>,
    /// For broadcast findings on one axis: the inputs at fault there, as (input slot, size on `axis`),
    /// in input order. The slot is an input of `node`, or of `inner_node` when that is set. The
    /// graph picture marks these edges; the renderers leave them out (the notes list every input).
    #[serde(skip)]
    pub inputs: Vec<(usize, String)>,
    /// For findings inside a model-local function: the node of the function body (`node` is the call).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inner_node: Option<String>,
    /// For shape-contract findings (E2, W2, E3): the name of the operator's contract at fault
    /// (`matmul-inner`), listed with every contract in `docs/contracts.md`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contract: Option<&'static str>,
    /// For symbol bindings (I002): the symbol or expression and the size it is bound to.
    #[serde(skip)]
    pub binding: Option<(String, u64)>,
}

impl Diagnostic {
    /// A diagnostic with the severity the codes table gives `code`.
    pub fn new(code: Code, graph: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: code.severity(),
            message: message.into(),
            graph: graph.into(),
            node: None,
            op_type: None,
            notes: Vec::new(),
            axis: None,
            sizes: Vec::new(),
            inputs: Vec::new(),
            inner_node: None,
            contract: None,
            binding: None,
        }
    }

    pub fn at_node(mut self, name: &str, op_type: &str) -> Self {
        self.node = Some(name.to_owned());
        self.op_type = Some(op_type.to_owned());
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    pub fn severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }
}

/// True when any diagnostic is an error.
pub fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(|d| d.severity == Severity::Error)
}

/// Most findings of one code kept per graph; the rest are counted in one closing finding. A model of
/// a million broken nodes gets a readable report, not a million lines.
pub const MAX_PER_CODE_AND_GRAPH: usize = 1000;

/// Keeps the first `limit` findings of each (code, graph) and replaces the rest by one finding that
/// says how many were left out.
pub fn cap(diagnostics: Vec<Diagnostic>, limit: usize) -> Vec<Diagnostic> {
    use std::collections::HashMap;
    let mut seen: HashMap<(Code, String), usize> = HashMap::new();
    let mut kept = Vec::with_capacity(diagnostics.len().min(limit * 4));
    for d in diagnostics {
        let n = seen.entry((d.code, d.graph.clone())).or_insert(0);
        *n += 1;
        if *n <= limit {
            kept.push(d);
        }
    }
    let mut over: Vec<_> = seen.into_iter().filter(|(_, n)| *n > limit).collect();
    over.sort();
    for ((code, graph), n) in over {
        let more = n - limit;
        let d = Diagnostic::new(
            code,
            graph.clone(),
            format!(
                "and {more} more {code} findings in graph {graph} (only the first {limit} are listed)"
            ),
        );
        kept.push(d);
    }
    kept
}
