//! SARIF 2.1.0, for code-scanning tools: one run, the codes table as the driver's rules, one result per
//! diagnostic located at the model file with the graph/node as a logical location, and models that
//! could not be loaded as tool execution notifications.

use super::FileReport;
use crate::diagnostics::{Code, Severity};
use serde_json::{Value, json as j};

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A SARIF artifact URI for a path: relative paths stay relative references, absolute ones become
/// `file://` URIs; characters a URI cannot hold as they are are percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 8);
    if path.starts_with('/') {
        out.push_str("file://");
    }
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

pub fn sarif(reports: &[FileReport]) -> String {
    let rules: Vec<Value> = Code::ALL
        .iter()
        .map(|c| {
            j!({
                "id": c.as_str(),
                "name": c.name(),
                "shortDescription": { "text": c.summary() },
                "defaultConfiguration": { "level": level(c.severity()) }
            })
        })
        .collect();
    let mut results = Vec::new();
    let mut notifications = Vec::new();
    for r in reports {
        let diags = match &r.outcome {
            Ok(d) => d,
            Err(e) => {
                notifications.push(j!({
                    "level": "error",
                    "message": { "text": format!("cannot load {}: {e}", r.file) },
                    "locations": [{ "physicalLocation": { "artifactLocation": { "uri": uri(&r.file) } } }]
                }));
                continue;
            }
        };
        for d in diags {
            let rule_index = Code::ALL.iter().position(|c| *c == d.code).unwrap_or(0);
            let mut qualified = d.graph.clone();
            if let Some(n) = &d.node {
                qualified = format!("{qualified}/{n}");
            }
            let mut text = d.message.clone();
            for n in &d.notes {
                text.push('\n');
                text.push_str(n);
            }
            let mut location = j!({
                "physicalLocation": { "artifactLocation": { "uri": uri(&r.file) } }
            });
            // Findings about a configuration file (S001) are in no graph: a file location only.
            if !d.graph.is_empty() {
                location["logicalLocations"] = j!([{
                    "name": d.node.clone().unwrap_or_else(|| d.graph.clone()),
                    "fullyQualifiedName": qualified,
                    "kind": "element"
                }]);
            }
            results.push(j!({
                "ruleId": d.code.as_str(),
                "ruleIndex": rule_index,
                "level": level(d.severity),
                "message": { "text": text },
                "locations": [location],
                "properties": {
                    "graph": d.graph,
                    "node": d.node,
                    "op_type": d.op_type,
                    "axis": d.axis,
                    "sizes": d.sizes,
                    "inner_node": d.inner_node,
                    "contract": d.contract
                }
            }));
        }
    }
    let doc = j!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "onnx-lint",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules
            }},
            "invocations": [{
                "executionSuccessful": notifications.is_empty(),
                "toolExecutionNotifications": notifications
            }],
            "results": results
        }]
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::uri;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri("models/a.onnx"), "models/a.onnx");
        assert_eq!(uri("/tmp/my model.onnx"), "file:///tmp/my%20model.onnx");
    }
}
