//! The operator domains onnx-lint knows, with where each is specified, and I001 (no shape rule) built
//! from the operators inference met without a rule: an operator of a known domain is a gap in
//! onnx-lint's coverage, one of a custom domain is one nobody specified.

use crate::diagnostics::{Code, Diagnostic};
use std::collections::BTreeSet;

/// The domains onnx-lint knows, with where each is specified: an operator of one of them without a
/// rule is a gap in onnx-lint's coverage, not an operator nobody can know.
const KNOWN_DOMAINS: &[(&str, &str)] = &[
    ("", "the ONNX operators, https://onnx.ai/onnx/operators/"),
    (
        "ai.onnx.ml",
        "the ONNX-ML operators, https://onnx.ai/onnx/operators/",
    ),
    (
        "ai.onnx.preview",
        "ONNX's preview operators, https://onnx.ai/onnx/operators/",
    ),
    (
        "ai.onnx.preview.training",
        "ONNX's training operators, https://onnx.ai/onnx/operators/",
    ),
    (
        "com.microsoft",
        "onnxruntime's contrib operators, https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md",
    ),
    (
        "com.microsoft.nchwc",
        "onnxruntime's internal NCHWc layout (written by its optimizer), https://github.com/microsoft/onnxruntime/blob/main/onnxruntime/core/graph/contrib_ops/nchwc_schema_defs.cc",
    ),
    (
        "com.ms.internal.nhwc",
        "onnxruntime's internal NHWC layout (written by its optimizer), https://github.com/microsoft/onnxruntime/blob/main/onnxruntime/core/graph/contrib_ops/internal_nhwc_onnx_schemas.cc",
    ),
    (
        "ai.onnx.contrib",
        "onnxruntime-extensions' custom operators, https://github.com/microsoft/onnxruntime-extensions/blob/main/docs/custom_ops.md",
    ),
];

/// Where the operators of `domain` are specified, when onnx-lint knows the domain.
pub fn domain_spec(domain: &str) -> Option<&'static str> {
    let domain = if domain == "ai.onnx" { "" } else { domain };
    KNOWN_DOMAINS
        .iter()
        .find(|(d, _)| *d == domain)
        .map(|(_, spec)| *spec)
}

/// I001, split in two: operators of domains onnx-lint knows but has no rule for (each domain's
/// specification named), and operators of custom domains nobody has specified to onnx-lint.
pub(super) fn missing_rule_findings(missing: &BTreeSet<(String, String, i64)>) -> Vec<Diagnostic> {
    let listed = |known: bool| -> (Vec<String>, BTreeSet<&str>) {
        let mut ops = Vec::new();
        let mut domains = BTreeSet::new();
        for (dom, op, v) in missing {
            if domain_spec(dom).is_some() == known {
                ops.push(format!(
                    "{op} ({} v{v})",
                    if dom.is_empty() { "ai.onnx" } else { dom }
                ));
                domains.insert(dom.as_str());
            }
        }
        (ops, domains)
    };
    let mut out = Vec::new();
    let (ops, domains) = listed(true);
    if !ops.is_empty() {
        let mut d = Diagnostic::new(
            Code::NoShapeRule,
            "model",
            format!(
                "no shape rule for {}: their outputs are unknown (operators of a domain onnx-lint knows, without a rule in onnx-lint yet)",
                ops.join(", ")
            ),
        );
        for dom in domains {
            if let Some(spec) = domain_spec(dom) {
                let name = if dom.is_empty() { "ai.onnx" } else { dom };
                d = d.note(format!("{name}: {spec}"));
            }
        }
        out.push(d.note(
            "broadcasts downstream of these ops are checked only where declared shapes say enough",
        ));
    }
    let (ops, domains) = listed(false);
    if !ops.is_empty() {
        let names: Vec<&str> = domains.into_iter().collect();
        out.push(
            Diagnostic::new(
                Code::NoShapeRule,
                "model",
                format!(
                    "no shape rule for {}: their outputs are unknown (custom domain {}, which onnx-lint does not know: no specification to build a rule from)",
                    ops.join(", "),
                    names.join(", ")
                ),
            )
            .note("declare the outputs' shapes (value_info) to have broadcasts downstream of them checked"),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn missing(ops: &[(&str, &str)]) -> Vec<Diagnostic> {
        let set: BTreeSet<(String, String, i64)> = ops
            .iter()
            .map(|(d, o)| (d.to_string(), o.to_string(), 1))
            .collect();
        missing_rule_findings(&set)
    }

    #[test]
    fn a_known_domain_without_a_rule_names_its_specification() {
        let d = missing(&[("com.microsoft", "WordConvEmbedding")]);
        assert_eq!(d.len(), 1);
        assert!(
            d[0].message
                .contains("WordConvEmbedding (com.microsoft v1)")
        );
        assert!(d[0].message.contains("a domain onnx-lint knows"));
        assert!(d[0].notes.iter().any(|n| n.contains("ContribOperators.md")));
    }

    #[test]
    fn a_custom_domain_is_said_to_be_unknown() {
        let d = missing(&[("com.example", "Scale"), ("com.microsoft", "Snpe")]);
        assert_eq!(d.len(), 2);
        assert!(d[0].message.contains("Snpe"));
        assert!(!d[0].message.contains("Scale"));
        assert!(d[1].message.contains("Scale (com.example v1)"));
        assert!(d[1].message.contains("custom domain com.example"));
    }

    #[test]
    fn ai_onnx_is_the_default_domain() {
        assert_eq!(domain_spec("ai.onnx"), domain_spec(""));
        assert!(domain_spec("com.example").is_none());
    }
}
