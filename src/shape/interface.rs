//! The interface contract a configuration states (its `interface` keys: the model's inputs and outputs
//! by name, element type and shape) and its comparison with a model: one C001 finding per difference.
//!
//! Inputs are compared with the main graph's declared inputs, which are what a caller feeds. Outputs
//! are compared with their declared types, and where the model declares nothing (no type, no element
//! type, no shape, or an axis with neither a size nor a symbol) with what inference gives; the finding
//! then says "inferred". Ports are matched by name, not position: onnxruntime and onnx's reference
//! runtime feed and fetch by name, so an exporter that lists the inputs in another order breaks no
//! caller. An input with an initializer of its name is a weight with a default value (IR 3 models list
//! every weight as an input): a contract need not list it.
//!
//! A contract symbol matches a model symbol of the same name only: the contract says the size is free
//! and named so, which a fixed size in the model is not; and a model symbol does not satisfy a contract
//! number, since the model then accepts sizes the contract excludes. `?` matches anything.

use super::bindings::{Bindings, Domain};
use super::dim::{Dim, SymExpr};
use super::value::{ANONYMOUS, Kind, ValueInfo};
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::ir::Model;
use crate::proto::tensor_proto::DataType;
use crate::proto::tensor_shape_proto::dimension::Value as DimValue;
use crate::proto::{ValueInfoProto, type_proto};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// What a configuration says the model's interface is. A side that is `None` is not checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interface {
    /// The graph inputs a caller feeds: every one listed, and no other without a default.
    pub inputs: Option<Vec<Port>>,
    /// The graph outputs: every one listed, and no other.
    pub outputs: Option<Vec<Port>>,
}

impl Interface {
    /// True when it checks nothing (neither side given).
    pub fn is_empty(&self) -> bool {
        self.inputs.is_none() && self.outputs.is_none()
    }

    /// `self` with the sides `over` gives replacing its own (a per-file table over the file's).
    pub fn with(&self, over: &Interface) -> Interface {
        Interface {
            inputs: over.inputs.clone().or_else(|| self.inputs.clone()),
            outputs: over.outputs.clone().or_else(|| self.outputs.clone()),
        }
    }
}

/// One input or output of the contract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    /// `TensorProto.DataType` of its elements; `None`: not checked.
    pub elem: Option<i32>,
    /// `None`: not checked; `Some(vec![])`: a scalar.
    pub shape: Option<Vec<Axis>>,
}

impl fmt::Display for Port {
    /// `int64 input_ids [batch, seq]`, as `--show-settings` lists it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(e) = self.elem {
            write!(f, "{} ", elem_label(e))?;
        }
        f.write_str(&self.name)?;
        if let Some(s) = &self.shape {
            write!(f, " {}", AxesText(s))?;
        }
        Ok(())
    }
}

/// One axis of a contract's shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Axis {
    /// Exactly this size.
    Size(u64),
    /// A free size the model names so (a `dim_param`).
    Symbol(String),
    /// Anything (`"?"`).
    Any,
}

impl Axis {
    /// An axis written as text: `"?"` or a symbol's name. A number written as text, an empty name or
    /// one with spaces around it is refused: each is a mistake more often than a symbol so named.
    pub fn parse(text: &str) -> Result<Axis, String> {
        if text == ANONYMOUS {
            return Ok(Axis::Any);
        }
        if text.trim().is_empty() {
            return Err("a symbol's name is empty (write \"?\" for any size)".to_owned());
        }
        if text.trim() != text {
            return Err(format!("the symbol \"{text}\" has spaces around it"));
        }
        let digits = text.strip_prefix('-').unwrap_or(text);
        if digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!(
                "\"{text}\" is a number written as text: write a size as a number (128), not a string"
            ));
        }
        Ok(Axis::Symbol(text.to_owned()))
    }
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Axis::Size(n) => write!(f, "{n}"),
            Axis::Symbol(s) => write!(f, "'{s}'"),
            Axis::Any => f.write_str("?"),
        }
    }
}

/// A contract's shape as text: `[batch, seq, 30522]`.
struct AxesText<'a>(&'a [Axis]);

impl fmt::Display for AxesText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, a) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match a {
                Axis::Symbol(s) => f.write_str(s)?,
                other => write!(f, "{other}")?,
            }
        }
        f.write_str("]")
    }
}

/// The element type named `name` (onnx's names in any case: `float`, `int64`, `bfloat16`...; and
/// `float32`, `float64` for `float`, `double`), or why it names none.
pub fn elem_type(name: &str) -> Result<i32, String> {
    let upper = name.trim().to_ascii_uppercase();
    let alias = match upper.as_str() {
        "FLOAT32" => "FLOAT",
        "FLOAT64" => "DOUBLE",
        other => other,
    };
    match DataType::from_str_name(alias) {
        Some(t) if t != DataType::Undefined => Ok(t as i32),
        _ => Err(format!(
            "unknown element type `{name}`: one of {} (and float32, float64)",
            elem_names().join(", ")
        )),
    }
}

/// The element types a contract may name, by onnx's names in lower case.
fn elem_names() -> Vec<String> {
    (1..64)
        .filter_map(|i| DataType::try_from(i).ok())
        .map(|t| t.as_str_name().to_ascii_lowercase())
        .collect()
}

/// How messages name an element type: onnx's name in lower case (`int64`), as a contract writes it.
pub fn elem_label(e: i32) -> String {
    crate::ir::tensor::elem_type_name(e).to_ascii_lowercase()
}

/// What the model has on one axis of a port.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seen {
    Size(u64),
    /// A symbol's name, or an inferred expression as text.
    Symbol(String),
    /// Declared with neither a size nor a symbol (or `?`, or a negative size).
    Unnamed,
    /// Inference does not know it.
    Unknown,
}

impl Seen {
    fn declared(d: &crate::proto::tensor_shape_proto::Dimension) -> Seen {
        match &d.value {
            Some(DimValue::DimValue(v)) if *v >= 0 => Seen::Size(*v as u64),
            Some(DimValue::DimParam(p)) if !p.is_empty() && p != ANONYMOUS => {
                Seen::Symbol(p.clone())
            }
            _ => Seen::Unnamed,
        }
    }

    fn inferred(d: &Dim) -> Seen {
        match d {
            Dim::Known(n) => Seen::Size(*n),
            Dim::Sym(SymExpr::Var(s)) => Seen::Symbol(s.to_string()),
            Dim::Sym(e) => Seen::Symbol(e.to_string()),
            Dim::Unknown => Seen::Unknown,
        }
    }
}

impl fmt::Display for Seen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Seen::Size(n) => write!(f, "{n}"),
            Seen::Symbol(s) => write!(f, "'{s}'"),
            Seen::Unnamed | Seen::Unknown => f.write_str("?"),
        }
    }
}

/// One axis as the comparison sees it: what the model has, and whether inference gave it.
#[derive(Clone, Debug)]
struct Side {
    seen: Seen,
    inferred: bool,
}

/// A model's shape as text, symbols unquoted: `[batch, seq, ?]`.
fn sides_text(sides: &[Side]) -> String {
    let parts: Vec<String> = sides
        .iter()
        .map(|s| match &s.seen {
            Seen::Symbol(t) => t.clone(),
            other => other.to_string(),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// Most names a note lists; the rest are counted.
const NAMES_SHOWN: usize = 10;

/// `'a', 'b', 'c'`, or the first [`NAMES_SHOWN`] and how many more.
fn names_shown(names: &[&str]) -> String {
    let shown: Vec<String> = names
        .iter()
        .take(NAMES_SHOWN)
        .map(|n| format!("'{n}'"))
        .collect();
    match names.len().saturating_sub(NAMES_SHOWN) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// Inputs or outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Io {
    Input,
    Output,
}

impl Io {
    fn word(self) -> &'static str {
        match self {
            Io::Input => "input",
            Io::Output => "output",
        }
    }
}

/// What the model has for one port: its kind (`None`: a tensor, or nothing declared), its element
/// type and shape, each with whether inference gave it.
struct Found {
    kind: Option<&'static str>,
    kind_inferred: bool,
    elem: Option<(i32, bool)>,
    shape: Option<(Vec<Side>, bool)>,
}

/// Kinds other than a tensor, as messages name them.
fn kind_name(k: Kind) -> Option<&'static str> {
    match k {
        Kind::Tensor => None,
        Kind::SparseTensor => Some("a sparse tensor"),
        Kind::Sequence => Some("a sequence"),
        Kind::Optional => Some("an optional"),
        Kind::Map => Some("a map"),
        Kind::Opaque => Some("an opaque value"),
    }
}

/// What `vi` declares, completed by `inferred` (outputs only) where it declares nothing.
fn found(vi: &ValueInfoProto, inferred: Option<&ValueInfo>) -> Found {
    use type_proto::Value as V;
    let mut out = Found {
        kind: None,
        kind_inferred: false,
        elem: None,
        shape: None,
    };
    match vi.r#type.as_ref().and_then(|t| t.value.as_ref()) {
        Some(V::TensorType(t)) => {
            out.elem = t.elem_type.filter(|&e| e != 0).map(|e| (e, false));
            out.shape = t.shape.as_ref().map(|s| {
                let sides = s
                    .dim
                    .iter()
                    .map(|d| Side {
                        seen: Seen::declared(d),
                        inferred: false,
                    })
                    .collect();
                (sides, false)
            });
        }
        Some(V::SparseTensorType(_)) => out.kind = kind_name(Kind::SparseTensor),
        Some(V::SequenceType(_)) => out.kind = kind_name(Kind::Sequence),
        Some(V::OptionalType(_)) => out.kind = kind_name(Kind::Optional),
        Some(V::MapType(_)) => out.kind = kind_name(Kind::Map),
        Some(V::OpaqueType(_)) => out.kind = kind_name(Kind::Opaque),
        None => {}
    }
    let Some(inf) = inferred.filter(|_| out.kind.is_none()) else {
        return out;
    };
    let declared_nothing = out.elem.is_none() && out.shape.is_none();
    if declared_nothing && inf.kind != Kind::Tensor {
        out.kind = kind_name(inf.kind);
        out.kind_inferred = true;
        return out;
    }
    if out.elem.is_none() {
        out.elem = inf.elem.map(|e| (e, true));
    }
    match (&mut out.shape, &inf.shape) {
        (None, Some(dims)) => {
            let sides = dims
                .iter()
                .map(|d| Side {
                    seen: Seen::inferred(d),
                    inferred: true,
                })
                .collect();
            out.shape = Some((sides, true));
        }
        // An axis declared with neither size nor symbol says nothing: inference may know it.
        (Some((sides, false)), Some(dims)) if sides.len() == dims.len() => {
            for (s, d) in sides.iter_mut().zip(dims) {
                if s.seen == Seen::Unnamed && *d != Dim::Unknown {
                    *s = Side {
                        seen: Seen::inferred(d),
                        inferred: true,
                    };
                }
            }
        }
        _ => {}
    }
    if let Some((sides, _)) = &mut out.shape {
        for s in sides.iter_mut().filter(|s| s.seen == Seen::Unnamed) {
            // Neither declared nor inferred: unknown, not "declared unnamed".
            s.seen = Seen::Unknown;
            s.inferred = true;
        }
    }
    out
}

/// Compares `model` with `contract`: one finding per difference. `outputs` is what inference knows of
/// the main graph's outputs, in order (the declared types merged with the inferred ones); `dims` the
/// run's bindings, under which those were inferred (a contract symbol that `dims` fixes matches its
/// size in an inferred shape). A model without a main graph gets none (M001 says why).
pub fn check(
    model: &Model,
    contract: &Interface,
    outputs: &[ValueInfo],
    dims: Option<&Bindings>,
) -> Vec<Diagnostic> {
    let Some(g) = &model.graph else {
        return Vec::new();
    };
    let mut c = Comparison {
        graph: &g.path,
        dims,
        out: Vec::new(),
    };
    if let Some(ports) = &contract.inputs {
        let mut defaults: HashSet<&str> = g.header.initializer.iter().map(|t| t.name()).collect();
        defaults.extend(
            g.header
                .sparse_initializer
                .iter()
                .filter_map(|s| s.values.as_ref().map(|v| v.name())),
        );
        let declared: Vec<(&ValueInfoProto, Option<&ValueInfo>)> =
            g.header.input.iter().map(|vi| (vi, None)).collect();
        c.side(Io::Input, ports, &declared, &defaults);
    }
    if let Some(ports) = &contract.outputs {
        let declared: Vec<(&ValueInfoProto, Option<&ValueInfo>)> = g
            .header
            .output
            .iter()
            .enumerate()
            .map(|(i, vi)| (vi, outputs.get(i)))
            .collect();
        c.side(Io::Output, ports, &declared, &HashSet::new());
    }
    c.out
}

/// The comparison of one model with a contract, and its findings so far.
struct Comparison<'a> {
    graph: &'a str,
    dims: Option<&'a Bindings>,
    out: Vec<Diagnostic>,
}

impl Comparison<'_> {
    fn finding(&mut self, message: String) -> &mut Diagnostic {
        self.out.push(Diagnostic::new(
            Code::InterfaceContract,
            self.graph,
            message,
        ));
        let last = self.out.len() - 1;
        &mut self.out[last]
    }

    /// A part of the contract the model gives no way to check (an output neither declared nor
    /// inferred): a warning, since nothing says the contract is broken.
    fn unchecked(&mut self, message: String) {
        let d = self.finding(message);
        d.severity = Severity::Warning;
        d.notes.push(
            "declare the output's type in the model (`onnx-lint annotate` writes what inference knows), or write \"?\" in the contract for what is free"
                .to_owned(),
        );
    }

    /// Compares one side: every port of the contract with the model's of its name, then the model's
    /// ports the contract does not list (those in `defaults` excepted).
    fn side(
        &mut self,
        io: Io,
        ports: &[Port],
        model: &[(&ValueInfoProto, Option<&ValueInfo>)],
        defaults: &HashSet<&str>,
    ) {
        let word = io.word();
        let listed: HashSet<&str> = ports.iter().map(|p| p.name.as_str()).collect();
        // The first port of each name (a second is a G003), looked up once per contract port: a
        // model may have a million inputs.
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        for (i, (vi, _)) in model.iter().enumerate() {
            by_name.entry(vi.name()).or_insert(i);
        }
        // Said under every missing port; made once.
        let fed: Vec<&str> = model
            .iter()
            .map(|(vi, _)| vi.name())
            .filter(|n| !n.is_empty() && !defaults.contains(n))
            .collect();
        let has = if fed.is_empty() {
            format!("the model has no {word}s")
        } else {
            format!("the model's {word}s: {}", names_shown(&fed))
        };
        for port in ports {
            match by_name.get(port.name.as_str()).map(|&i| model[i]) {
                Some((vi, inferred)) => self.port(io, port, &found(vi, inferred)),
                None => {
                    let d = self.finding(format!(
                        "missing {word} '{}': the contract lists it, the model has no {word} of that name",
                        port.name
                    ));
                    d.notes.push(has.clone());
                }
            }
        }
        let mut seen = HashSet::new();
        for (vi, _) in model {
            let name = vi.name();
            if name.is_empty() || listed.contains(name) || defaults.contains(name) {
                continue;
            }
            if seen.insert(name) {
                let d = self.finding(format!(
                    "unexpected {word} '{name}': the model has it, the contract does not list it"
                ));
                d.notes.push(match io {
                    Io::Input => "a caller that feeds the contract's inputs does not feed it: the model cannot run".to_owned(),
                    Io::Output => "add it to the contract, or remove it from the model's outputs".to_owned(),
                });
            }
        }
    }

    /// Compares one port the model has with the contract's.
    fn port(&mut self, io: Io, port: &Port, f: &Found) {
        let what = format!("{} '{}'", io.word(), port.name);
        if port.elem.is_none() && port.shape.is_none() {
            return;
        }
        if let Some(kind) = f.kind {
            let how = if f.kind_inferred { " (inferred)" } else { "" };
            self.finding(format!(
                "{what} is {kind}{how} where the contract states a tensor"
            ));
            return;
        }
        if let Some(want) = port.elem {
            match f.elem {
                Some((e, _)) if e == want => {}
                Some((e, inferred)) => {
                    let how = if inferred { " (inferred)" } else { "" };
                    self.finding(format!(
                        "{what} has element type {}{how} where the contract says {}",
                        elem_label(e),
                        elem_label(want)
                    ));
                }
                None if io == Io::Output => self.unchecked(format!(
                    "{what}: the model declares no element type and inference cannot tell it; the contract's {} is not checked",
                    elem_label(want)
                )),
                None => _ = self.finding(format!(
                    "{what} declares no element type where the contract says {}",
                    elem_label(want)
                )),
            }
        }
        let Some(want) = &port.shape else { return };
        let Some((sides, inferred)) = &f.shape else {
            if io == Io::Output {
                self.unchecked(format!(
                    "{what}: the model declares no shape and inference cannot tell it; the contract's {} is not checked",
                    AxesText(want)
                ));
            } else {
                self.finding(format!(
                    "{what} declares no shape where the contract says {}",
                    AxesText(want)
                ));
            }
            return;
        };
        let notes = [
            format!(
                "the model{}: {}",
                if *inferred { " (inferred)" } else { "" },
                sides_text(sides)
            ),
            format!("the contract: {}", AxesText(want)),
        ];
        if sides.len() != want.len() {
            let how = if *inferred { " (inferred)" } else { "" };
            let d = self.finding(format!(
                "{what} has rank {}{how} where the contract says rank {}",
                sides.len(),
                want.len()
            ));
            d.notes.extend(notes);
            return;
        }
        for (axis, (side, want)) in sides.iter().zip(want).enumerate() {
            self.axis(&what, axis, side, want, &notes);
        }
    }

    /// Compares one axis.
    fn axis(&mut self, what: &str, axis: usize, side: &Side, want: &Axis, notes: &[String]) {
        let fixed_to = |s: &str| match self.dims.and_then(|b| b.get(s)) {
            Some(Domain::Fixed(v)) => Some(v),
            _ => None,
        };
        let why = match (want, &side.seen) {
            (Axis::Any, _) => return,
            (Axis::Size(n), Seen::Size(m)) if n == m => return,
            (Axis::Symbol(s), Seen::Symbol(t)) if s == t => return,
            // Inferred under `dims`: the symbol the run fixes is its size there.
            (Axis::Symbol(s), Seen::Size(m)) if side.inferred && fixed_to(s) == Some(*m) => {
                return;
            }
            (_, Seen::Unknown) => {
                self.unchecked(format!(
                    "{what} axis {axis}: the model declares no size there and inference cannot tell it; the contract's {want} is not checked"
                ));
                return;
            }
            (Axis::Size(_), Seen::Symbol(_)) => {
                Some("the model states a free size there: it accepts sizes the contract excludes")
            }
            (Axis::Symbol(_), Seen::Size(_)) => {
                Some("the contract states a free size there: the model fixes it")
            }
            _ => None,
        };
        let message = match &side.seen {
            Seen::Unnamed => format!(
                "{what} axis {axis} has neither a size nor a symbol where the contract says {want}"
            ),
            seen if side.inferred => {
                format!("{what} axis {axis} is {seen} (inferred) where the contract says {want}")
            }
            seen => format!("{what} axis {axis} is declared {seen} where the contract says {want}"),
        };
        let d = self.finding(message);
        d.notes.extend(why.map(str::to_owned));
        d.notes.extend(notes.iter().cloned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_types_are_onnx_names_in_any_case_with_two_aliases() {
        assert_eq!(elem_type("int64"), Ok(DataType::Int64 as i32));
        assert_eq!(elem_type("FLOAT"), Ok(DataType::Float as i32));
        assert_eq!(elem_type("float32"), Ok(DataType::Float as i32));
        assert_eq!(elem_type("float64"), Ok(DataType::Double as i32));
        assert_eq!(elem_type("Bool"), Ok(DataType::Bool as i32));
        assert_eq!(elem_label(DataType::Bfloat16 as i32), "bfloat16");
        for bad in ["undefined", "f32", "", "int"] {
            let e = elem_type(bad).unwrap_err();
            assert!(
                e.contains(&format!("`{bad}`")) && e.contains("int64"),
                "{e}"
            );
        }
    }

    #[test]
    fn axes_written_as_text_are_symbols_or_any_and_numbers_in_text_are_refused() {
        assert_eq!(Axis::parse("?"), Ok(Axis::Any));
        assert_eq!(Axis::parse("batch"), Ok(Axis::Symbol("batch".into())));
        // An exporter's expression names are symbols like any other: compared as written.
        assert_eq!(Axis::parse("2*seq"), Ok(Axis::Symbol("2*seq".into())));
        for bad in ["", " ", "128", "-1", " batch"] {
            assert!(Axis::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_long_list_of_names_is_cut_and_counted() {
        assert_eq!(names_shown(&["a", "b"]), "'a', 'b'");
        let many: Vec<String> = (0..25).map(|i| format!("x{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let shown = names_shown(&many);
        assert!(shown.starts_with("'x0', 'x1'"), "{shown}");
        assert!(shown.ends_with("'x9' and 15 more"), "{shown}");
    }

    #[test]
    fn a_per_file_contract_replaces_only_the_sides_it_gives() {
        let port = |n: &str| Port {
            name: n.into(),
            elem: None,
            shape: None,
        };
        let file = Interface {
            inputs: Some(vec![port("a")]),
            outputs: Some(vec![port("y")]),
        };
        let over = Interface {
            inputs: None,
            outputs: Some(vec![port("z")]),
        };
        let both = file.with(&over);
        assert_eq!(both.inputs, file.inputs);
        assert_eq!(both.outputs, over.outputs);
        assert!(Interface::default().is_empty());
        assert!(!both.is_empty());
    }
}
