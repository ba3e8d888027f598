//! Model header rules: a main graph (M001), a plausible `ir_version` (M002), operator-set imports present
//! (M003), plausible (M004) and not contradictory (M005).

use super::{LATEST_IR_VERSION, LATEST_ML_OPSET, LATEST_ONNX_OPSET};
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::ir::{Model, opset_domain};
use crate::proto::OperatorSetIdProto;
use std::collections::HashMap;

pub fn check(model: &Model) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let h = &model.header;
    if model.graph.is_none() {
        out.push(Diagnostic::new(
            Code::MissingGraph,
            "model",
            "the model has no graph (ModelProto.graph is not set)",
        ));
    }
    match h.ir_version {
        None => out.push(Diagnostic::new(
            Code::IrVersion,
            "model",
            "ir_version is not set",
        )),
        Some(v) if v <= 0 => out.push(Diagnostic::new(
            Code::IrVersion,
            "model",
            format!("ir_version {v} is not a valid IR version (they start at 1)"),
        )),
        Some(v) if v > LATEST_IR_VERSION => out.push(
            Diagnostic::new(
                Code::IrVersion,
                "model",
                format!("ir_version {v} is newer than this build knows ({LATEST_IR_VERSION})"),
            )
            .severity(Severity::Warning)
            .note("fields added after that version are kept when writing, but not checked"),
        ),
        Some(_) => {}
    }
    if h.opset_import.is_empty() && h.ir_version.unwrap_or(0) >= 3 {
        out.push(Diagnostic::new(
            Code::MissingOpsetImport,
            "model",
            "the model imports no operator set (opset_import is empty), required from IR version 3",
        ));
    }
    check_imports(&h.opset_import, "model", &mut out);
    for f in &model.functions {
        check_imports(&f.header.opset_import, &f.body.path, &mut out);
    }
    out
}

/// Opset versions must be positive and known for the standard domains; a domain is imported once.
pub fn check_imports(imports: &[OperatorSetIdProto], graph: &str, out: &mut Vec<Diagnostic>) {
    let mut seen: HashMap<&str, i64> = HashMap::new();
    for o in imports {
        let domain = opset_domain(o.domain());
        let shown = if domain.is_empty() { "ai.onnx" } else { domain };
        let version = o.version();
        let latest = match domain {
            "" => Some(LATEST_ONNX_OPSET),
            "ai.onnx.ml" => Some(LATEST_ML_OPSET),
            _ => None,
        };
        if o.version.is_none() || version < 1 || version > i64::from(i32::MAX) {
            out.push(Diagnostic::new(
                Code::OpsetVersion,
                graph,
                format!("operator set '{shown}' is imported at version {version}, which is not a valid version"),
            ));
        } else if let Some(l) = latest.filter(|&l| version > l) {
            out.push(Diagnostic::new(
                Code::OpsetVersion,
                graph,
                format!("operator set '{shown}' version {version} is newer than this build knows ({l})"),
            ).severity(Severity::Warning));
        }
        match seen.get(domain) {
            Some(&v) if v != version => out.push(Diagnostic::new(
                Code::ConflictingOpsetImport,
                graph,
                format!("operator set '{shown}' is imported twice, at versions {v} and {version}"),
            )),
            Some(_) => out.push(
                Diagnostic::new(
                    Code::ConflictingOpsetImport,
                    graph,
                    format!("operator set '{shown}' is imported twice (version {version})"),
                )
                .severity(Severity::Warning),
            ),
            None => {
                seen.insert(domain, version);
            }
        }
    }
}
