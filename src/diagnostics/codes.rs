//! The table of diagnostic codes: stable identifiers, names, default severities and one-line summaries.
//!
//! A code never changes meaning once published. Families: `M` model header, `G` graph structure,
//! `T` tensors and types, `X` external data, `E`/`W` shapes: E1/W1 broadcasting (E1 is the spec's error
//! code), E2/W2 the other shape contracts of operators, E3 constant values out of range; `I`
//! information about the analysis itself; `C` the model against the interface the configuration
//! states; `S` the settings themselves.

use super::Severity;
use serde::{Serialize, Serializer};

macro_rules! codes {
    ($($variant:ident = $code:literal, $name:literal, $sev:ident, $summary:literal;)*) => {
        /// A stable diagnostic code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $($variant),* }

        impl Code {
            /// Every code, in table order.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The stable identifier, e.g. `G001`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $code),* }
            }

            /// The kebab-case name, e.g. `undefined-value`.
            pub fn name(self) -> &'static str {
                match self { $(Code::$variant => $name),* }
            }

            /// The severity a finding of this code has unless the check says otherwise.
            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$sev),* }
            }

            /// One line saying what the rule checks.
            pub fn summary(self) -> &'static str {
                match self { $(Code::$variant => $summary),* }
            }
        }
    };
}

codes! {
    MissingGraph = "M001", "missing-graph", Error, "The model has no main graph.";
    IrVersion = "M002", "ir-version", Error, "`ir_version` is missing, zero, negative, or newer than this build knows.";
    MissingOpsetImport = "M003", "missing-opset-import", Error, "A model of IR version 3 or later imports no operator set.";
    OpsetVersion = "M004", "opset-version", Error, "An imported operator-set version is not a positive version number, or is newer than this build knows.";
    ConflictingOpsetImport = "M005", "conflicting-opset-import", Error, "The same operator-set domain is imported twice.";
    DomainNotImported = "M006", "domain-not-imported", Error, "A node uses an operator domain that its model or function does not import.";
    UndefinedValue = "G001", "undefined-value", Error, "A node input names a value that no node, graph input, initializer or enclosing scope defines.";
    Cycle = "G002", "cycle", Error, "The nodes form a cycle: no topological order exists.";
    DuplicateDefinition = "G003", "duplicate-definition", Error, "Two definitions (node outputs, graph inputs, initializers) produce one value name.";
    UndefinedGraphOutput = "G004", "undefined-graph-output", Error, "A graph output names a value that nothing in the graph defines.";
    EmptyOpType = "G005", "empty-op-type", Error, "A node has no `op_type`.";
    DuplicateAttribute = "G006", "duplicate-attribute", Error, "A node has two attributes with one name.";
    AttributeType = "G007", "attribute-type", Error, "An attribute's `type` disagrees with the field that holds its value.";
    EmptyName = "G008", "empty-name", Error, "An initializer, graph input or graph output has an empty name.";
    RecursiveFunction = "G009", "recursive-function", Error, "A model-local function calls itself, directly or through other functions.";
    BadDims = "T001", "bad-dims", Error, "A tensor has a negative dimension, or dimensions whose product overflows.";
    ElemType = "T002", "elem-type", Error, "A tensor or value type has an undefined or unknown element type.";
    TensorData = "T003", "tensor-data", Error, "A tensor's stored data does not match its dims and element type (too short, too long, or stored twice).";
    BroadcastError = "E1", "broadcast-error", Error, "Inputs of a broadcasting node have, on some axis, sizes that are unequal and neither 1 (error E1 of the SONNX broadcast spec).";
    PossibleBroadcastError = "W1", "possible-broadcast-error", Warning, "Inputs of a broadcasting node can be broadcast only if symbolic dimensions take particular values.";
    ShapeContract = "E2", "shape-contract", Error, "A node breaks its operator's shape contract (MatMul's inner sizes, Concat's other axes, Reshape's element count, Conv's channels...): onnxruntime refuses the model at load or fails when it runs the node.";
    PossibleShapeContract = "W2", "possible-shape-contract", Warning, "An operator's shape contract holds only if symbolic dimensions take particular values.";
    ValueOutOfRange = "E3", "value-out-of-range", Error, "A constant an operator reads is out of its range (an axis outside the rank, an index past the axis, a perm that is no permutation, a k larger than the axis).";
    ImplicitBroadcast = "B001", "implicit-broadcast", Warning, "An input is broadcast implicitly (off by default; `check --explicit`). After `onnx-lint expand` there are none.";
    DeclaredShape = "T004", "declared-shape", Warning, "A shape declared in value_info or a graph output contradicts the inferred one.";
    NegativeDeclaredDim = "T005", "negative-declared-dim", Warning, "A declared value type (graph input, output, value_info) has a negative size, which exporters write for \"unknown\"; it is read as unknown. Reported once per model.";
    NoShapeRule = "I001", "no-shape-rule", Info, "Some operators have no shape rule: their outputs are unknown, so checks downstream of them are incomplete.";
    SymbolBinding = "I002", "symbol-binding", Info, "A symbolic size is bound to a number (off by default; `--extend-select I002`): a declared shape gives a size where inference has a symbol or expression (or the reverse). Reported once per symbol and size.";
    InferenceLimit = "I003", "inference-limit", Warning, "Model-local functions call each other too deep, or call for too much work in all, for inference to follow every call: the outputs of the calls not followed are unknown.";
    InterfaceContract = "C001", "interface-contract", Error, "The model's inputs or outputs differ from the interface the configuration states (`interface`): a name missing or unexpected, an element type, a rank or a size.";
    UnusedSuppression = "S001", "unused-suppression", Warning, "A suppression in the configuration silenced no finding of the models it applies to: the finding is gone, or its pattern is wrong.";
    ExternalData = "X001", "external-data", Error, "An external-data reference is unsafe or does not resolve to a region of a regular file inside the model's folder.";
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Code {
    type Err = ();
    /// Accepts the identifier (`G001`, any case) or the name (`undefined-value`).
    fn from_str(s: &str) -> Result<Self, ()> {
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str().eq_ignore_ascii_case(s) || c.name() == s)
            .ok_or(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_are_unique() {
        let mut ids: Vec<_> = Code::ALL.iter().map(|c| c.as_str()).collect();
        let mut names: Vec<_> = Code::ALL.iter().map(|c| c.name()).collect();
        ids.sort();
        names.sort();
        let n = Code::ALL.len();
        ids.dedup();
        names.dedup();
        assert_eq!(ids.len(), n);
        assert_eq!(names.len(), n);
    }

    #[test]
    fn codes_parse_back_by_id_and_name() {
        for &c in Code::ALL {
            assert_eq!(c.as_str().parse::<Code>(), Ok(c));
            assert_eq!(c.name().parse::<Code>(), Ok(c));
        }
        assert!("Z999".parse::<Code>().is_err());
    }
}
