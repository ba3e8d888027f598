//! JSON for scripts: `{"diagnostics": [...], "errors": [...]}`. Each diagnostic has at least `file`,
//! `code`, `name`, `severity`, `message`, `node`, `op_type`, `graph`; models that could not be loaded are
//! listed under `errors` with `file` and `message`.

use super::FileReport;
use serde_json::{Value, json as j};

pub fn json(reports: &[FileReport]) -> String {
    let mut diagnostics = Vec::new();
    let mut errors = Vec::new();
    for r in reports {
        match &r.outcome {
            Err(e) => errors.push(j!({ "file": r.file, "message": e })),
            Ok(diags) => {
                for d in diags {
                    let mut v = serde_json::to_value(d).unwrap_or(Value::Null);
                    if let Value::Object(map) = &mut v {
                        map.insert("file".into(), Value::from(r.file.clone()));
                        map.insert("name".into(), Value::from(d.code.name()));
                    }
                    diagnostics.push(v);
                }
            }
        }
    }
    let doc = j!({ "diagnostics": diagnostics, "errors": errors });
    // Serializing a Value built from strings and numbers cannot fail.
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}
