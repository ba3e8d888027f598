//! The rule documentation (`docs/rules.md`, printed by `onnx-lint explain`) is complete and true:
//!
//! - every code of the codes table has a section with its four parts (what it checks, why it matters,
//!   an example, the fix), so a new code without documentation fails here;
//! - every section's example includes a console transcript (`$ onnx-lint ...` and its output) on a
//!   real model file, which is run: each output line shown (`...` elides) must appear, in order, in
//!   what the binary prints, and the transcript must show the section's own code;
//! - the example models of `docs/examples/` are exactly what the builders below make (the textual
//!   fragments in the docs describe them). `ONNX_LINT_BLESS=1 cargo test --release --test it
//!   docs::rules_doc` rewrites them after a deliberate change;
//! - `explain` prints a section by code or name in any case, lists the codes without one, and exits 2
//!   listing the known codes for an unknown one;
//! - every relative link of `README.md`, `docs/*.md` and `bench/README.md` leads to an existing file,
//!   and a `#anchor` into a markdown file to one of its headings (GitHub's slugs).

use crate::support::binary;
use crate::support::paths::root;
use crate::support::proto::{node, opset, strings};
use crate::support::snapshot;
use onnx_lint::diagnostics::Code;
use onnx_lint::diagnostics::explain::{self, PARTS};
use onnx_lint::proto::attribute_proto::AttributeType;
use onnx_lint::proto::tensor_proto::{DataLocation, DataType};
use onnx_lint::proto::tensor_shape_proto::{Dimension, dimension};
use onnx_lint::proto::*;
use prost::Message;
use std::path::{Path, PathBuf};

/// Runs in the repository's root: (exit status, stdout followed by stderr).
fn run(args: &[&str]) -> (i32, String) {
    let mut cmd = binary::command(args);
    cmd.current_dir(root());
    let r = binary::run_command(cmd, args, binary::DEADLINE);
    (r.code, r.stdout + &r.stderr)
}

// ---------------------------------------------------------------------------------------------------
// The example models
// ---------------------------------------------------------------------------------------------------

/// A dimension: a number, or a symbol when `d` is not one.
fn dim(d: &str) -> Dimension {
    let value = match d.parse::<i64>() {
        Ok(n) => dimension::Value::DimValue(n),
        Err(_) => dimension::Value::DimParam(d.into()),
    };
    Dimension {
        value: Some(value),
        ..Default::default()
    }
}

fn tensor_type(elem: i32, shape: &[&str]) -> TypeProto {
    TypeProto {
        value: Some(type_proto::Value::TensorType(type_proto::Tensor {
            elem_type: Some(elem),
            shape: Some(TensorShapeProto {
                dim: shape.iter().map(|d| dim(d)).collect(),
            }),
        })),
        ..Default::default()
    }
}

/// `float[shape] name`.
fn float(name: &str, shape: &[&str]) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(tensor_type(DataType::Float as i32, shape)),
        ..Default::default()
    }
}

fn graph(
    name: &str,
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: Vec<ValueInfoProto>,
) -> GraphProto {
    GraphProto {
        node: nodes,
        name: Some(name.into()),
        input: inputs,
        output: outputs,
        ..Default::default()
    }
}

/// `<ir_version: 9, opset_import: ["" : 17]>` around `g`.
fn model(g: GraphProto) -> ModelProto {
    ModelProto {
        ir_version: Some(9),
        opset_import: vec![opset("", 17)],
        producer_name: Some("onnx-lint-docs".into()),
        graph: Some(g),
        ..Default::default()
    }
}

/// `x => x`: a valid graph with no node, for the header rules.
fn passthrough(name: &str) -> GraphProto {
    graph(
        name,
        vec![],
        vec![float("x", &["2"])],
        vec![float("x", &["2"])],
    )
}

/// `y = Relu(x)` over `float[2] x`.
fn relu(name: &str) -> GraphProto {
    graph(
        name,
        vec![node("Relu", "relu", &["x"], &["y"])],
        vec![float("x", &["2"])],
        vec![float("y", &["2"])],
    )
}

fn float_tensor(name: &str, dims: &[i64], values: &[f32]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        data_type: Some(DataType::Float as i32),
        dims: dims.to_vec(),
        float_data: values.to_vec(),
        ..Default::default()
    }
}

fn attr_float(name: &str, v: f32) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Float as i32),
        f: Some(v),
        ..Default::default()
    }
}

/// Every example model: (file name under `docs/examples/`, model).
#[allow(clippy::vec_init_then_push)] // one commented push per model reads better than one literal
fn examples() -> Vec<(&'static str, ModelProto)> {
    let mut out = Vec::new();

    // M001: no graph at all.
    out.push((
        "m001.onnx",
        ModelProto {
            graph: None,
            ..model(passthrough("unused"))
        },
    ));

    // M002: ir_version 0.
    out.push((
        "m002.onnx",
        ModelProto {
            ir_version: Some(0),
            ..model(passthrough("m002"))
        },
    ));

    // M003: IR 9 and no opset_import.
    out.push((
        "m003.onnx",
        ModelProto {
            opset_import: vec![],
            ..model(passthrough("m003"))
        },
    ));

    // M004: ai.onnx imported at version 0.
    out.push((
        "m004.onnx",
        ModelProto {
            opset_import: vec![opset("", 0)],
            ..model(passthrough("m004"))
        },
    ));

    // M005: ai.onnx imported twice, at 17 and 13.
    out.push((
        "m005.onnx",
        ModelProto {
            opset_import: vec![opset("", 17), opset("", 13)],
            ..model(passthrough("m005"))
        },
    ));

    // M006: a node of domain com.example, which the model does not import.
    let mut n = node("Scale", "scale", &["x"], &["y"]);
    n.domain = Some("com.example".into());
    out.push((
        "m006.onnx",
        model(graph(
            "m006",
            vec![n],
            vec![float("x", &["2"])],
            vec![float("y", &["2"])],
        )),
    ));

    // G001: Add reads `bias`, which nothing defines.
    out.push((
        "g001.onnx",
        model(graph(
            "g001",
            vec![node("Add", "add_bias", &["x", "bias"], &["y"])],
            vec![float("x", &["2"])],
            vec![float("y", &["2"])],
        )),
    ));

    // G002: two nodes reading each other's output.
    out.push((
        "g002.onnx",
        model(graph(
            "g002",
            vec![
                node("Add", "first", &["x", "b"], &["a"]),
                node("Relu", "second", &["a"], &["b"]),
            ],
            vec![float("x", &["2"])],
            vec![float("b", &["2"])],
        )),
    ));

    // G003: two nodes write `y`.
    out.push((
        "g003.onnx",
        model(graph(
            "g003",
            vec![
                node("Relu", "relu", &["x"], &["y"]),
                node("Neg", "neg", &["x"], &["y"]),
            ],
            vec![float("x", &["2"])],
            vec![float("y", &["2"])],
        )),
    ));

    // G004: the graph output `z` is defined by nothing.
    out.push((
        "g004.onnx",
        model(graph(
            "g004",
            vec![node("Relu", "relu", &["x"], &["y"])],
            vec![float("x", &["2"])],
            vec![float("z", &["2"])],
        )),
    ));

    // G005: a node without op_type.
    out.push((
        "g005.onnx",
        model(graph(
            "g005",
            vec![node("", "mystery", &["x"], &["y"])],
            vec![float("x", &["2"])],
            vec![float("y", &["2"])],
        )),
    ));

    // G006: LeakyRelu with `alpha` twice.
    let mut n = node("LeakyRelu", "leaky", &["x"], &["y"]);
    n.attribute = vec![attr_float("alpha", 0.1), attr_float("alpha", 0.2)];
    out.push((
        "g006.onnx",
        model(graph(
            "g006",
            vec![n],
            vec![float("x", &["2"])],
            vec![float("y", &["2"])],
        )),
    ));

    // G007: LeakyRelu's alpha typed INT, its value in the float field.
    let mut n = node("LeakyRelu", "leaky", &["x"], &["y"]);
    n.attribute = vec![AttributeProto {
        r#type: Some(AttributeType::Int as i32),
        ..attr_float("alpha", 0.1)
    }];
    out.push((
        "g007.onnx",
        model(graph(
            "g007",
            vec![n],
            vec![float("x", &["2"])],
            vec![float("y", &["2"])],
        )),
    ));

    // G008: an initializer without a name.
    let mut g = relu("g008");
    g.initializer = vec![float_tensor("", &[2], &[1.0, 2.0])];
    out.push(("g008.onnx", model(g)));

    // G009: function com.example.Twice calls itself.
    let mut call = node("Twice", "call", &["x"], &["y"]);
    call.domain = Some("com.example".into());
    let mut inner = node("Twice", "again", &["X"], &["Y"]);
    inner.domain = Some("com.example".into());
    out.push((
        "g009.onnx",
        ModelProto {
            opset_import: vec![opset("", 17), opset("com.example", 1)],
            functions: vec![FunctionProto {
                name: Some("Twice".into()),
                domain: Some("com.example".into()),
                input: strings(&["X"]),
                output: strings(&["Y"]),
                node: vec![inner],
                opset_import: vec![opset("", 17), opset("com.example", 1)],
                ..Default::default()
            }],
            ..model(graph(
                "g009",
                vec![call],
                vec![float("x", &["2"])],
                vec![float("y", &["2"])],
            ))
        },
    ));

    // T001: an initializer with a negative dimension.
    let mut g = graph(
        "t001",
        vec![node("Add", "add_bias", &["x", "bias"], &["y"])],
        vec![float("x", &["4"])],
        vec![float("y", &["4"])],
    );
    g.initializer = vec![float_tensor("bias", &[2, -2], &[])];
    out.push(("t001.onnx", model(g)));

    // T002: an input of element type UNDEFINED (0).
    out.push((
        "t002.onnx",
        model(graph(
            "t002",
            vec![node("Relu", "relu", &["x"], &["y"])],
            vec![ValueInfoProto {
                name: Some("x".into()),
                r#type: Some(tensor_type(0, &["2"])),
                ..Default::default()
            }],
            vec![float("y", &["2"])],
        )),
    ));

    // T003: an initializer of dims [4] with 2 values.
    let mut g = graph(
        "t003",
        vec![node("Add", "add_bias", &["x", "bias"], &["y"])],
        vec![float("x", &["4"])],
        vec![float("y", &["4"])],
    );
    g.initializer = vec![float_tensor("bias", &[4], &[0.5, 0.25])];
    out.push(("t003.onnx", model(g)));

    // T004: y declared [2, 4] where Relu of [2, 3] gives [2, 3].
    let mut g = graph(
        "t004",
        vec![node("Relu", "relu", &["x"], &["y"])],
        vec![float("x", &["2", "3"])],
        vec![float("y", &["2", "4"])],
    );
    g.value_info = vec![];
    out.push(("t004.onnx", model(g)));

    // T005: input and output declared with -1 for the batch size, as paddle2onnx writes it.
    out.push((
        "t005.onnx",
        model(graph(
            "t005",
            vec![node("Relu", "relu", &["x"], &["y"])],
            vec![float("x", &["-1", "3"])],
            vec![float("y", &["-1", "3"])],
        )),
    ));

    // I001: an operator of an imported custom domain, which has no shape rule.
    let mut n = node("Scale", "scale", &["x"], &["y"]);
    n.domain = Some("com.example".into());
    out.push((
        "i001.onnx",
        ModelProto {
            opset_import: vec![opset("", 17), opset("com.example", 1)],
            ..model(graph(
                "i001",
                vec![n],
                vec![float("x", &["N", "3"])],
                vec![float("y", &["N", "3"])],
            ))
        },
    ));

    // I002: x is [N, 3]; the output of Relu is declared [2, 3], binding N to 2.
    out.push((
        "i002.onnx",
        model(GraphProto {
            value_info: vec![float("r", &["2", "3"])],
            ..graph(
                "i002",
                vec![
                    node("Relu", "relu", &["x"], &["r"]),
                    node("Sigmoid", "sigmoid", &["r"], &["y"]),
                ],
                vec![float("x", &["N", "3"])],
                vec![float("y", &["2", "3"])],
            )
        }),
    ));

    // I003: a chain of 34 functions, each calling the next: deeper than inference follows (32).
    let depth = 34;
    let functions = (0..depth)
        .map(|i| {
            let mut body = if i + 1 < depth {
                node(&format!("F{}", i + 1), "call", &["X"], &["Y"])
            } else {
                node("Relu", "relu", &["X"], &["Y"])
            };
            if i + 1 < depth {
                body.domain = Some("com.example".into());
            }
            FunctionProto {
                name: Some(format!("F{i}")),
                domain: Some("com.example".into()),
                input: strings(&["X"]),
                output: strings(&["Y"]),
                node: vec![body],
                opset_import: vec![opset("", 17), opset("com.example", 1)],
                ..Default::default()
            }
        })
        .collect();
    let mut call = node("F0", "call", &["x"], &["y"]);
    call.domain = Some("com.example".into());
    out.push((
        "i003.onnx",
        ModelProto {
            opset_import: vec![opset("", 17), opset("com.example", 1)],
            functions,
            ..model(graph(
                "i003",
                vec![call],
                vec![float("x", &["2"])],
                vec![float("y", &["2"])],
            ))
        },
    ));

    // C001 (with docs/examples/c001.toml): the mask is int32 where the contract says int64, and the
    // output's axis 1 is `seq` where the contract fixes it at 128.
    let typed = |name: &str, elem: DataType, shape: &[&str]| ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(tensor_type(elem as i32, shape)),
        ..Default::default()
    };
    let mut cast = node("Cast", "cast_mask", &["attention_mask"], &["mask"]);
    cast.attribute = vec![AttributeProto {
        name: Some("to".into()),
        r#type: Some(AttributeType::Int as i32),
        i: Some(DataType::Int64 as i64),
        ..Default::default()
    }];
    out.push((
        "c001.onnx",
        model(graph(
            "c001",
            vec![
                cast,
                node("Mul", "apply_mask", &["input_ids", "mask"], &["masked"]),
            ],
            vec![
                typed("input_ids", DataType::Int64, &["batch", "seq"]),
                typed("attention_mask", DataType::Int32, &["batch", "seq"]),
            ],
            vec![typed("masked", DataType::Int64, &["batch", "seq"])],
        )),
    ));

    // X001: an initializer whose external data is `../weights.bin`, outside the model's folder.
    let mut g = graph(
        "x001",
        vec![node("Add", "add_bias", &["x", "bias"], &["y"])],
        vec![float("x", &["4"])],
        vec![float("y", &["4"])],
    );
    g.initializer = vec![TensorProto {
        name: Some("bias".into()),
        data_type: Some(DataType::Float as i32),
        dims: vec![4],
        data_location: Some(DataLocation::External as i32),
        external_data: vec![StringStringEntryProto {
            key: Some("location".into()),
            value: Some("../weights.bin".into()),
        }],
        ..Default::default()
    }];
    out.push(("x001.onnx", model(g)));

    out
}

fn examples_dir() -> PathBuf {
    root().join("docs").join("examples")
}

#[test]
fn example_models_are_what_the_builders_make() {
    for (file, m) in examples() {
        let path = examples_dir().join(file);
        snapshot::assert_file(&path, &m.encode_to_vec(), "docs::rules_doc");
    }
}

// ---------------------------------------------------------------------------------------------------
// The sections and their transcripts
// ---------------------------------------------------------------------------------------------------

/// A command of a console block and the output lines shown for it.
#[derive(Debug)]
struct Transcript {
    command: String,
    shown: Vec<String>,
}

/// The transcripts of the ```console blocks of `text`.
fn transcripts(text: &str) -> Vec<Transcript> {
    let mut out: Vec<Transcript> = Vec::new();
    let mut in_console = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") {
            in_console = !in_console && t.trim_start_matches('`').trim() == "console";
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            out.push(Transcript {
                command: cmd.trim().to_owned(),
                shown: Vec::new(),
            });
        } else if let Some(t) = out.last_mut() {
            t.shown.push(line.to_owned());
        }
    }
    out
}

/// True when the lines `shown` appear in `actual` in order, `...` standing for any number of lines.
/// Without a `...` the shown lines must be consecutive.
fn appears_in_order(shown: &[String], actual: &str) -> Result<(), String> {
    let actual: Vec<&str> = actual.lines().collect();
    let mut at = 0;
    let mut free = true; // the first shown line may be anywhere
    for s in shown {
        if s.trim() == "..." {
            free = true;
            continue;
        }
        let found = if free {
            actual[at..].iter().position(|a| a == s).map(|p| at + p)
        } else {
            (actual.get(at) == Some(&s.as_str())).then_some(at)
        };
        match found {
            Some(p) => at = p + 1,
            None => return Err(format!("the line {s:?} is not where the docs show it")),
        }
        free = false;
    }
    Ok(())
}

#[test]
fn every_code_has_a_section_with_its_four_parts() {
    let entries = explain::entries();
    for &c in Code::ALL {
        let e = explain::entry(c).unwrap_or_else(|| {
            panic!(
                "docs/rules.md has no section `## {} {}`",
                c.as_str(),
                c.name()
            )
        });
        assert_eq!(
            e.heading,
            format!("{} {}", c.as_str(), c.name()),
            "the heading of {c}"
        );
        for p in PARTS {
            let text = e
                .part(p)
                .unwrap_or_else(|| panic!("{c}: the section has no `### {p}`"));
            assert!(text.len() > 20, "{c}: `### {p}` says too little: {text:?}");
        }
    }
    // No section for a code that does not exist, and none twice.
    let mut seen = Vec::new();
    for e in &entries {
        let c = e
            .code()
            .unwrap_or_else(|| panic!("section `## {}` names no known code", e.heading));
        assert!(!seen.contains(&c), "two sections for {c}");
        seen.push(c);
    }
    assert_eq!(seen.len(), Code::ALL.len());
}

#[test]
fn every_example_transcript_is_what_the_binary_prints() {
    for &c in Code::ALL {
        let e = explain::entry(c).expect("a section");
        let example = e.part("Example").expect("an example");
        let ts = transcripts(example);
        assert!(
            !ts.is_empty(),
            "{c}: the example has no ```console transcript to check"
        );
        let mut shows_code = false;
        for t in &ts {
            let args: Vec<&str> = t.command.split_whitespace().collect();
            assert_eq!(args.first(), Some(&"onnx-lint"), "{c}: {}", t.command);
            for a in &args[1..] {
                if a.ends_with(".onnx") {
                    assert!(root().join(a).is_file(), "{c}: {a} does not exist");
                }
            }
            let (_, actual) = run(&args[1..]);
            if let Err(why) = appears_in_order(&t.shown, &actual) {
                panic!(
                    "{c}: `{}`: {why}\nthe docs show:\n{}\nthe binary prints:\n{actual}",
                    t.command,
                    t.shown.join("\n")
                );
            }
            let tag = format!("[{}]", c.as_str());
            shows_code |= t.shown.iter().any(|l| l.contains(&tag)) && actual.contains(&tag);
        }
        assert!(shows_code, "{c}: no transcript shows a {c} finding");
    }
}

#[test]
fn explain_prints_a_section_by_code_or_name_in_any_case() {
    for &c in Code::ALL {
        for arg in [
            c.as_str().to_owned(),
            c.as_str().to_ascii_lowercase(),
            c.name().to_ascii_uppercase(),
        ] {
            let (code, out) = run(&["explain", &arg]);
            assert_eq!(code, 0, "explain {arg}: {out}");
            // Rendered for a terminal: the heading, the severity once, each part's heading on a
            // line of its own, no Markdown heading or fence, and the web page last.
            assert!(
                out.starts_with(&format!("{} {}\nSeverity: ", c.as_str(), c.name())),
                "explain {arg}: {out}"
            );
            assert_eq!(out.matches("Severity").count(), 1, "explain {arg}: {out}");
            for p in PARTS {
                assert!(
                    out.lines().any(|l| l == p),
                    "explain {arg}: no line `{p}`: {out}"
                );
            }
            assert!(
                !out.contains("###") && !out.contains("```"),
                "explain {arg}: {out}"
            );
            let anchor = format!(
                "docs/rules.md#{}-{}",
                c.as_str().to_ascii_lowercase(),
                c.name()
            );
            let last = out.lines().last().unwrap_or_default();
            assert!(
                last.starts_with("Documentation: ") && last.contains(&anchor),
                "explain {arg}: {out}"
            );
        }
    }
}

#[test]
fn explain_in_colour_has_bold_headings() {
    let (code, out) = run(&["explain", "--color", "always", "E1"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("\x1b[1mE1 broadcast-error\x1b[0m\n"),
        "{out}"
    );
    for p in PARTS {
        assert!(
            out.lines().any(|l| l == format!("\x1b[1m{p}\x1b[0m")),
            "{out}"
        );
    }
    let (_, plain) = run(&["explain", "--color", "never", "E1"]);
    assert!(!plain.contains('\x1b'), "{plain}");
}

#[test]
fn explain_without_a_code_lists_every_code_with_its_summary() {
    let (code, out) = run(&["explain"]);
    assert_eq!(code, 0, "{out}");
    for &c in Code::ALL {
        let line = out
            .lines()
            .find(|l| l.split_whitespace().next() == Some(c.as_str()))
            .unwrap_or_else(|| panic!("explain lists no {c}:\n{out}"));
        assert!(
            line.contains(c.name()) && line.contains(c.summary()),
            "{line}"
        );
    }
}

#[test]
fn explain_of_an_unknown_code_lists_the_known_ones_and_exits_2() {
    let (code, out) = run(&["explain", "Z999"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("unknown code 'Z999'"), "{out}");
    for &c in Code::ALL {
        assert!(out.contains(c.as_str()), "{c} is not listed:\n{out}");
    }
}

#[test]
fn the_readme_links_the_rule_docs() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains("(docs/rules.md)"),
        "README links docs/rules.md"
    );
    assert!(Path::new(&root().join("docs/rules.md")).is_file());
}

/// The README's codes table names every code, so a new one cannot be left out of the overview; and
/// the README stays an overview (issue 37: at most 15 KB, the topics in `docs/`).
#[test]
fn the_readme_names_every_code_and_stays_short() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for &c in Code::ALL {
        let entry = format!("{} {}", c.as_str(), c.name());
        assert!(
            readme.contains(&entry),
            "README's codes table lacks `{entry}`"
        );
    }
    assert!(
        readme.len() <= 15_000,
        "README.md is {} bytes: move a topic to docs/",
        readme.len()
    );
}

/// The contracts the rule files state (`Contract::new("name", ...)` outside their unit tests), by
/// name, with the file that states each.
fn stated_contracts() -> Vec<(String, PathBuf)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join("src/shape"), &mut files);
    let mut found = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for part in code.split("Contract::new(").skip(1) {
            let rest = part.trim_start();
            if let Some(name) = rest.strip_prefix('"').and_then(|r| r.split('"').next()) {
                found.push((name.to_owned(), f.clone()));
            }
        }
    }
    found.sort();
    found
}

/// `docs/contracts.md` lists every contract a rule checks: a new contract without a line there fails
/// here.
#[test]
fn the_contracts_doc_lists_every_contract() {
    let doc = std::fs::read_to_string(root().join("docs/contracts.md")).unwrap();
    let stated = stated_contracts();
    assert!(stated.len() > 100, "{} contracts", stated.len());
    for (name, file) in &stated {
        assert!(
            doc.contains(&format!("`{name}`")),
            "docs/contracts.md does not list `{name}` ({})",
            file.display()
        );
    }
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains("(docs/contracts.md)"),
        "README links docs/contracts.md"
    );
}

// ---------------------------------------------------------------------------------------------------
// The links of the documentation
// ---------------------------------------------------------------------------------------------------

/// The documents whose relative links must resolve: the README, every page of `docs/`, and the
/// benchmarks' README.
fn linked_documents() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md"), root().join("bench/README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    out.extend(docs);
    out
}

/// The lines of `text` outside fenced code blocks.
fn unfenced_lines(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push(line);
        }
    }
    out
}

/// The lines of `text` outside fenced code blocks, with their inline code spans removed (a link
/// written in code is no link).
fn prose_lines(text: &str) -> Vec<String> {
    unfenced_lines(text)
        .into_iter()
        .map(|line| line.split('`').step_by(2).collect())
        .collect()
}

/// The targets of the inline links `[text](target)` of `text`, outside code.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose_lines(text) {
        for (at, _) in line.match_indices("](") {
            let rest = &line[at + 2..];
            if let Some(end) = rest.find(')') {
                let target = rest[..end].split_whitespace().next().unwrap_or("");
                out.push(target.trim_matches(|c| c == '<' || c == '>').to_owned());
            }
        }
    }
    out
}

/// GitHub's anchor of a heading: lowercase, punctuation dropped except `-` and `_`, spaces to `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of the headings of a markdown text; a repeated heading gets `-1`, `-2`... as on GitHub.
fn anchors(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in unfenced_lines(text) {
        let t = line.trim_start();
        let hashes = t.chars().take_while(|c| *c == '#').count();
        if hashes == 0 || hashes > 6 || !t[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(&t[hashes..]);
        let mut s = base.clone();
        let mut n = 0;
        while out.contains(&s) {
            n += 1;
            s = format!("{base}-{n}");
        }
        out.push(s);
    }
    out
}

#[test]
fn slugs_follow_githubs_rules() {
    assert_eq!(slug(" The real-model corpus"), "the-real-model-corpus");
    assert_eq!(slug("E1 broadcast-error"), "e1-broadcast-error");
    assert_eq!(
        slug("Fuzzing runs (README.md, Hostile input)"),
        "fuzzing-runs-readmemd-hostile-input"
    );
    assert_eq!(
        slug("Same output: `same_output.sh BIN_A BIN_B`"),
        "same-output-same_outputsh-bin_a-bin_b"
    );
    assert_eq!(
        anchors("# A\n## A\n```\n# not a heading\n```\n"),
        ["a", "a-1"]
    );
    assert_eq!(
        link_targets("[a](x.md#y) `[b](not.md)` [c](<z.md>)\n```\n[d](no.md)\n```"),
        ["x.md#y", "z.md"]
    );
}

/// Every relative link of the README, of `docs/*.md` and of `bench/README.md` leads to an existing
/// file, and a `#anchor` into a markdown file to one of its headings.
#[test]
fn every_relative_link_of_the_docs_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in linked_documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let name = doc.strip_prefix(root()).unwrap().display().to_string();
        for target in link_targets(&text) {
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                doc.clone()
            } else {
                doc.parent().unwrap().join(path)
            };
            if !file.exists() {
                broken.push(format!("{name}: ({target}): no such file"));
                continue;
            }
            let Some(anchor) = anchor else { continue };
            if file.extension().is_some_and(|x| x == "md")
                && !anchors(&std::fs::read_to_string(&file).unwrap()).contains(&anchor.to_owned())
            {
                broken.push(format!("{name}: ({target}): no heading with that anchor"));
            }
        }
    }
    assert!(checked > 30, "only {checked} relative links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}
