//! The broken models of `models/broken/` (made by the scripts beside them) carry planted shape errors:
//! broadcasts, one per kind and place, and broken operator contracts. `expected.json` lists each
//! finding; every one must be reported at the right node, graph, axis, sizes and contract, in text,
//! JSON and SARIF, and no other shape finding (E1, W1, E2, W2, E3) may be. The valid example models of
//! `models/` must have no error.

use crate::support::binary::{self};
use crate::support::paths::root;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Runs with `args`: (exit status, stdout).
fn run(args: &[&str]) -> (i32, String) {
    let r = binary::run(args);
    (r.code, r.stdout)
}

/// The shape findings: broadcasts, contracts, values out of range.
const SHAPE_CODES: [&str; 5] = ["E1", "W1", "E2", "W2", "E3"];

/// The comparable part of a finding: code, node, op_type, graph, axis, sizes (of an error: a possible
/// error has symbolic dims, stated in its condition instead), inner node, contract.
fn key(v: &Value) -> String {
    let f = |k: &str| v.get(k).cloned().unwrap_or(Value::Null);
    let sizes = match f("sizes") {
        _ if f("code").as_str().is_some_and(|c| c.starts_with('W')) => Value::Array(vec![]),
        Value::Null => Value::Array(vec![]),
        s => s,
    };
    format!(
        "{} node={} op={} graph={} axis={} sizes={} inner={} contract={}",
        f("code"),
        f("node"),
        f("op_type"),
        f("graph"),
        f("axis"),
        sizes,
        f("inner_node"),
        f("contract")
    )
}

fn expected() -> Vec<(String, Vec<Value>)> {
    let text = std::fs::read_to_string(root().join("models/broken/expected.json")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let mut out: Vec<(String, Vec<Value>)> = doc
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_array().unwrap().clone()))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn every_planted_finding_is_reported_exactly_in_json() {
    let all = expected();
    assert!(
        all.len() >= 15,
        "the broken set has one model per kind and place"
    );
    for (model, findings) in all {
        let path = root().join("models/broken").join(&model);
        let (code, stdout) = run(&["check", "--format", "json", path.to_str().unwrap()]);
        let doc: Value = serde_json::from_str(&stdout).unwrap();
        let mut got: Vec<String> = doc["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"].as_str().is_some_and(|c| SHAPE_CODES.contains(&c)))
            .map(key)
            .collect();
        let mut want: Vec<String> = findings.iter().map(key).collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{model}");
        for f in findings
            .iter()
            .filter(|f| f["code"] == "W1" || f["code"] == "W2")
        {
            let condition = f["condition"].as_str().unwrap();
            assert!(
                stdout.contains(condition),
                "{model}: the warning states '{condition}'"
            );
        }
        let has_error = findings
            .iter()
            .any(|f| f["code"].as_str().is_some_and(|c| c.starts_with('E')));
        assert_eq!(code, if has_error { 1 } else { 0 }, "{model}: exit status");
    }
}

#[test]
fn every_planted_finding_is_in_text_and_sarif() {
    for (model, findings) in expected() {
        let path = root().join("models/broken").join(&model);
        let p = path.to_str().unwrap();
        let (_, text) = run(&["check", p]);
        let (_, sarif) = run(&["check", "--format", "sarif", p]);
        let sarif: Value = serde_json::from_str(&sarif).unwrap();
        assert_eq!(sarif["version"], "2.1.0");
        let results = sarif["runs"][0]["results"].as_array().unwrap();
        for f in &findings {
            let node = f["node"].as_str().unwrap();
            let code = f["code"].as_str().unwrap();
            assert!(
                text.contains(&format!("node '{node}'")) && text.contains(&format!("[{code}]")),
                "{model}: text names {code} at {node}:\n{text}"
            );
            let axis = &f["axis"];
            let plain = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_owned);
            if let (Some(ax), Some([a, b])) =
                (axis.as_i64(), f["sizes"].as_array().map(Vec::as_slice))
            {
                let pair = format!("axis {ax}: {} vs {}", plain(a), plain(b));
                assert!(text.contains(&pair), "{model}: text says '{pair}':\n{text}");
            }
            assert!(
                results.iter().any(|r| r["ruleId"] == code
                    && r["locations"][0]["logicalLocations"][0]["name"] == node
                    && r["properties"]["axis"] == *axis
                    && r["properties"]["contract"] == f["contract"]),
                "{model}: SARIF has {code} at {node}"
            );
        }
    }
}

fn valid_models() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "onnx"))
        .collect();
    v.sort();
    v
}

#[test]
fn valid_example_models_have_no_error() {
    let models = valid_models();
    assert!(models.len() >= 5);
    for m in models {
        let (code, stdout) = run(&["check", "--format", "json", m.to_str().unwrap()]);
        let doc: Value = serde_json::from_str(&stdout).unwrap();
        let errors: Vec<&Value> = doc["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["severity"] == "error")
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", Path::new(&m).display());
        assert_eq!(code, 0, "{}", m.display());
    }
}
