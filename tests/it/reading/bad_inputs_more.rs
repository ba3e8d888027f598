//! Bad input, through the real binary: the "Tensors and types", "External data", "Structure" and
//! "Output" categories of `docs/hostile-input.md` (`reading/bad_inputs.rs` holds the other three).
//! Every case runs `check`, `shapes` and `expand -o OUT` in a fresh process with a deadline, and
//! asserts the exit status (1 findings, 2 cannot load; `shapes` 0 when the model loads; `expand` 1
//! and nothing written when the model has errors), that the output names the problem (its code and
//! the offending tensor or node) and where it is, and that nothing panicked, hung or died of a
//! signal.

use super::bad_inputs::nested_if_model;
use crate::support::binary::{self, Run, running_as_root};
use crate::support::paths::{s as path_str, tempdir};
use crate::support::proto::{graph, node, opset, strings};
use onnx_lint::file::wire::write_len_record;
use onnx_lint::proto::attribute_proto::AttributeType;
use onnx_lint::proto::tensor_proto::{DataLocation, DataType};
use onnx_lint::proto::tensor_shape_proto::{Dimension, dimension};
use onnx_lint::proto::*;
use onnx_lint::render::escape;
use prost::Message;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// How long one run of the binary on a small model may take.
const DEADLINE: Duration = Duration::from_secs(10);

/// Written into a file outside the model's folder: it must never show up in any output.
const MARKER: &str = "OUTSIDE-THE-FOLDER-7f3a9c";

/// Runs the binary with `args` (in `cwd`, with `env` set) through [`binary::run_command`], and fails
/// if either stream shows [`MARKER`].
fn run_full(args: &[&str], limit: Duration, cwd: Option<&Path>, env: &[(&str, &str)]) -> Run {
    let mut cmd = binary::command(args);
    if let Some(d) = cwd {
        cmd.current_dir(d);
    }
    cmd.envs(env.iter().copied());
    let r = binary::run_command(cmd, args, limit);
    for text in [&r.stdout, &r.stderr] {
        assert!(
            !text.contains(MARKER),
            "onnx-lint {args:?} printed the content of a file outside the model's folder:\n{text}"
        );
    }
    r
}

fn run_with(args: &[&str], limit: Duration) -> Run {
    run_full(args, limit, None, &[])
}

fn run(args: &[&str]) -> Run {
    run_with(args, DEADLINE)
}

fn model(g: GraphProto) -> ModelProto {
    crate::support::proto::model_of(9, Some("bad_inputs_more"), g)
}

// ---------------------------------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------------------------------

/// Files of `dir` whose name starts with `.onnx-lint-` (the writer's temporary files).
fn leftover_temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(".onnx-lint-"))
                .collect()
        })
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------------
// A model on disk, and what the three commands must say about it
// ---------------------------------------------------------------------------------------------------

/// A model at `<tmp>/model/m.onnx`; `<tmp>` also holds `secret.bin` (containing [`MARKER`]) outside the
/// model's folder.
struct Case {
    root: tempfile::TempDir,
    folder: PathBuf,
    path: PathBuf,
}

fn case(bytes: &[u8]) -> Case {
    let root = tempdir();
    let folder = root.path().join("model");
    std::fs::create_dir_all(&folder).expect("model folder");
    std::fs::write(root.path().join("secret.bin"), MARKER.repeat(4)).expect("secret");
    let path = folder.join("m.onnx");
    std::fs::write(&path, bytes).expect("write the model");
    Case { root, folder, path }
}

impl Case {
    fn shown(&self) -> &str {
        path_str(&self.path)
    }

    fn check(&self) -> Run {
        run(&["check", self.shown()])
    }

    fn check_json(&self) -> Run {
        run(&["check", self.shown(), "--format", "json"])
    }

    fn shapes(&self) -> Run {
        run(&["shapes", self.shown()])
    }

    /// `expand` into `out`; the run and the bytes written there, if any.
    fn expand_to(&self, out: &Path) -> (Run, Option<Vec<u8>>) {
        let _ = std::fs::remove_file(out);
        let r = run(&["expand", self.shown(), "-o", path_str(out)]);
        let written = std::fs::read(out).ok();
        if let Some(w) = &written {
            assert!(
                !String::from_utf8_lossy(w).contains(MARKER),
                "expand copied bytes from outside the model's folder into its output"
            );
        }
        (r, written)
    }

    /// `expand` into `out.onnx` of the model's folder.
    fn expand(&self) -> (Run, Option<Vec<u8>>) {
        self.expand_to(&self.folder.join("out.onnx"))
    }

    /// `fold` into `folded.onnx` of the model's folder; the run and the bytes written, if any.
    fn fold(&self) -> (Run, Option<Vec<u8>>) {
        let out = self.folder.join("folded.onnx");
        let _ = std::fs::remove_file(&out);
        let r = run(&["fold", self.shown(), "-o", path_str(&out)]);
        let written = std::fs::read(&out).ok();
        if let Some(w) = &written {
            assert!(
                !String::from_utf8_lossy(w).contains(MARKER),
                "fold copied bytes from outside the model's folder into its output"
            );
        }
        (r, written)
    }

    /// `graph` to standard output, whatever the model's size.
    fn graph(&self) -> Run {
        run(&["graph", self.shown(), "-o", "-", "--max-nodes", "0"])
    }

    /// The model loads but has the error `code`: `check` exits 1 with an `error[code]` block mentioning
    /// every word of `words`, placed in graph `graph` (and at `node`, `(name, op_type)`, if given); JSON
    /// agrees; `shapes` exits 0; `expand` exits 1, reports the same finding and writes nothing.
    fn expect_error(&self, code: &str, graph: &str, node: Option<(&str, &str)>, words: &[&str]) {
        let shown = self.shown().to_owned();
        let head = format!("error[{code}] ");
        let place = match node {
            Some((n, op)) => format!("  --> {shown}, graph {graph}, node '{n}' ({op})\n"),
            None => format!("  --> {shown}, graph {graph}\n"),
        };
        let has_block = |text: &str| {
            text.split("\n\n").any(|b| {
                let b = format!("{}\n", b.trim_start_matches('\n'));
                b.starts_with(&head) && b.contains(&place) && words.iter().all(|w| b.contains(w))
            })
        };

        let t = self.check();
        t.expect_code(1).expect_no_controls();
        assert!(
            has_block(&t.stdout),
            "check: no {head}at `{}` mentioning {words:?} in:\n{}",
            place.trim_end(),
            t.stdout
        );

        let j = self.check_json();
        j.expect_code(1);
        let doc = j.json();
        let found = doc["diagnostics"]
            .as_array()
            .expect("a diagnostics list")
            .iter()
            .any(|d| {
                d["code"] == code
                    && d["severity"] == "error"
                    && d["graph"] == graph
                    && d["file"] == shown.as_str()
                    // JSON holds names as they are; compare them as the text report shows them.
                    && match node {
                        Some((n, _)) => d["node"].as_str().is_some_and(|v| escape(v) == n),
                        None => d["node"].is_null(),
                    }
                    && d["message"]
                        .as_str()
                        .is_some_and(|m| words.iter().all(|w| escape(m).contains(w)))
            });
        assert!(found, "JSON: no {code} mentioning {words:?}: {doc:#}");

        self.shapes().expect_code(0).expect_no_controls();

        let (e, written) = self.expand();
        e.expect_code(1).expect_no_controls();
        assert!(
            has_block(&e.stderr),
            "expand: no {head}at `{}` mentioning {words:?} in:\n{}",
            place.trim_end(),
            e.stderr
        );
        assert!(
            e.stderr.contains("nothing was written"),
            "expand says it wrote nothing:\n{}",
            e.stderr
        );
        assert!(written.is_none(), "expand wrote a model that has errors");
        let (f, folded) = self.fold();
        f.expect_code(1).expect_no_controls();
        assert!(
            has_block(&f.stderr) && f.stderr.contains("nothing was written"),
            "fold: no {head}at `{}` mentioning {words:?}, or no word that nothing was written:\n{}",
            place.trim_end(),
            f.stderr
        );
        assert!(folded.is_none(), "fold wrote a model that has errors");
        // The picture of a broken model is drawn (that is what it is for), with the error in red.
        let g = self.graph();
        g.expect_code(0).expect_no_controls();
        assert!(g.stdout.starts_with("digraph"), "graph: {}", g.stdout);
        assert!(
            leftover_temporaries(&self.folder).is_empty(),
            "temporary files left behind"
        );
    }

    /// The model cannot be loaded: all three commands exit 2 naming the file and every word of
    /// `words`; `expand` writes nothing.
    fn expect_unloadable(&self, words: &[&str]) {
        let shown = self.shown().to_owned();
        let c = self.check();
        c.expect_code(2).expect_no_controls();
        let line = c
            .stdout
            .lines()
            .find(|l| l.starts_with("error: cannot load "))
            .unwrap_or_else(|| panic!("check names no load error:\n{}", c.stdout));
        assert!(
            line.contains(&shown),
            "the load error names the file: {line}"
        );
        for w in words {
            assert!(line.contains(w), "the load error should say {w:?}: {line}");
        }
        for r in [self.shapes(), self.expand().0, self.fold().0, self.graph()] {
            r.expect_code(2).expect_no_controls();
            assert!(
                r.stderr.contains("error: cannot load") && r.stderr.contains(&shown),
                "{:?} names the file it cannot load:\n{}",
                r.args,
                r.stderr
            );
            for w in words {
                assert!(
                    r.stderr.contains(w),
                    "{:?} should say {w:?}:\n{}",
                    r.args,
                    r.stderr
                );
            }
            assert!(r.stdout.is_empty(), "{:?} printed: {}", r.args, r.stdout);
        }
        assert!(
            !self.folder.join("out.onnx").exists(),
            "expand wrote an unloadable model"
        );
        assert!(
            !self.folder.join("folded.onnx").exists(),
            "fold wrote an unloadable model"
        );
    }

    /// The model loads without error: `check` exits 0, `shapes` 0, `expand` 0 and writes a model.
    fn expect_clean(&self) -> Vec<u8> {
        let c = self.check();
        c.expect_code(0);
        assert!(
            !c.stdout.contains("error["),
            "check found errors:\n{}",
            c.stdout
        );
        self.shapes().expect_code(0);
        let (f, folded) = self.fold();
        f.expect_code(0);
        folded.expect("fold wrote its output");
        let g = self.graph();
        g.expect_code(0).expect_no_controls();
        assert!(g.stdout.starts_with("digraph"), "graph: {}", g.stdout);
        let (e, written) = self.expand();
        e.expect_code(0);
        written.expect("expand wrote its output")
    }
}

// ---------------------------------------------------------------------------------------------------
// Building models
// ---------------------------------------------------------------------------------------------------

fn tensor_type(elem: Option<i32>, dims: Option<&[i64]>) -> TypeProto {
    TypeProto {
        value: Some(type_proto::Value::TensorType(type_proto::Tensor {
            elem_type: elem,
            shape: dims.map(|d| TensorShapeProto {
                dim: d
                    .iter()
                    .map(|&v| Dimension {
                        value: Some(dimension::Value::DimValue(v)),
                        ..Default::default()
                    })
                    .collect(),
            }),
        })),
        ..Default::default()
    }
}

fn vi_typed(name: &str, ty: TypeProto) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(ty),
        ..Default::default()
    }
}

/// A float tensor `name` of dims `[4]` holding four values.
fn float4(name: &str) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        data_type: Some(DataType::Float as i32),
        dims: vec![4],
        float_data: vec![1.0, 2.0, 3.0, 4.0],
        ..Default::default()
    }
}

/// `x -> Relu -> r -> Add(r, w) -> y`, with `w` the initializer given.
fn model_with_initializer(w: TensorProto) -> Vec<u8> {
    model(GraphProto {
        initializer: vec![w],
        ..graph(
            vec![
                node("Relu", "relu", &["x"], &["r"]),
                node("Add", "add", &["r", "w"], &["y"]),
            ],
            &["x"],
            &["y"],
        )
    })
    .encode_to_vec()
}

/// `Constant` node `c` holding `value`, added to `x`.
fn model_with_constant(value: TensorProto) -> Vec<u8> {
    let c = NodeProto {
        attribute: vec![AttributeProto {
            name: Some("value".into()),
            r#type: Some(AttributeType::Tensor as i32),
            t: Some(value),
            ..Default::default()
        }],
        ..node("Constant", "c", &[], &["k"])
    };
    model(graph(
        vec![c, node("Add", "add", &["x", "k"], &["y"])],
        &["x"],
        &["y"],
    ))
    .encode_to_vec()
}

// ---------------------------------------------------------------------------------------------------
// Tensors and types
// ---------------------------------------------------------------------------------------------------

#[test]
fn baseline_model_is_clean_for_all_three_commands() {
    // Every tensor case below is this model with one thing broken.
    case(&model_with_initializer(float4("w"))).expect_clean();
}

#[test]
fn data_type_zero_is_t002() {
    let w = TensorProto {
        data_type: Some(0),
        ..float4("w")
    };
    case(&model_with_initializer(w)).expect_error(
        "T002",
        "main",
        None,
        &["initializer 'w'", "data_type 0"],
    );
}

#[test]
fn data_type_999_is_t002() {
    let w = TensorProto {
        data_type: Some(999),
        ..float4("w")
    };
    case(&model_with_initializer(w)).expect_error(
        "T002",
        "main",
        None,
        &["initializer 'w'", "data_type 999"],
    );
}

#[test]
fn data_type_999_in_a_constant_attribute_is_t002_at_the_node() {
    let k = TensorProto {
        data_type: Some(999),
        ..float4("k")
    };
    case(&model_with_constant(k)).expect_error(
        "T002",
        "main",
        Some(("c", "Constant")),
        &["attribute 'value'", "data_type 999"],
    );
}

#[test]
fn negative_dim_is_t001() {
    let w = TensorProto {
        dims: vec![2, -2],
        ..float4("w")
    };
    case(&model_with_initializer(w)).expect_error(
        "T001",
        "main",
        None,
        &["initializer 'w'", "dimension 1 is negative (-2)"],
    );
}

#[test]
fn negative_dim_in_a_constant_is_t001_at_the_node() {
    let k = TensorProto {
        dims: vec![-4],
        ..float4("k")
    };
    case(&model_with_constant(k)).expect_error(
        "T001",
        "main",
        Some(("c", "Constant")),
        &["attribute 'value'", "negative (-4)"],
    );
}

#[test]
fn dims_whose_product_overflows_i64_are_t001() {
    let w = TensorProto {
        dims: vec![1 << 32, 1 << 32],
        ..float4("w")
    };
    case(&model_with_initializer(w)).expect_error(
        "T001",
        "main",
        None,
        &["initializer 'w'", "overflows"],
    );
}

#[test]
fn dims_whose_product_overflows_in_a_constant_do_not_crash_inference() {
    // A Constant's value feeds shape inference: the overflowing dims must not reach arithmetic there.
    let k = TensorProto {
        dims: vec![i64::MAX, 2],
        raw_data: Some(vec![0; 4].into()),
        float_data: vec![],
        ..float4("k")
    };
    case(&model_with_constant(k)).expect_error(
        "T001",
        "main",
        Some(("c", "Constant")),
        &["overflows"],
    );
}

/// Peak resident memory reported by the binary (`ONNX_LINT_DEBUG_RSS`), in kB.
fn peak_rss_kb(args: &[&str]) -> (Run, u64) {
    let r = run_full(args, DEADLINE, None, &[("ONNX_LINT_DEBUG_RSS", "1")]);
    let kb = r
        .stderr
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no VmHWM line in:\n{}", r.stderr));
    (r, kb)
}

/// Most memory a run on a small model may take: nowhere near the size its dims claim.
const MODEST_RSS_KB: u64 = 200 * 1024;

#[test]
fn huge_dims_with_four_bytes_of_data_do_not_allocate() {
    // [2^40, 2^40] overflows i64: T001, and nothing is sized from it.
    let w = TensorProto {
        dims: vec![1 << 40, 1 << 40],
        raw_data: Some(vec![0; 4].into()),
        float_data: vec![],
        ..float4("w")
    };
    let c = case(&model_with_initializer(w));
    c.expect_error("T001", "main", None, &["initializer 'w'", "overflows"]);
    for cmd in ["check", "shapes"] {
        let (r, kb) = peak_rss_kb(&[cmd, c.shown()]);
        assert!(r.code == 1 || r.code == 0, "{cmd}: exit {}", r.code);
        assert!(kb < MODEST_RSS_KB, "{cmd} peaked at {kb} kB");
    }
}

#[test]
fn huge_dims_that_fit_i64_with_four_bytes_of_data_are_t003_without_allocating() {
    // [2^30, 2^30] = 2^60 elements (4 EiB of floats) with 4 bytes of data: T003, and neither checking,
    // inferring shapes nor refusing to expand may allocate anything of that size.
    let w = TensorProto {
        dims: vec![1 << 30, 1 << 30],
        raw_data: Some(vec![0; 4].into()),
        float_data: vec![],
        ..float4("w")
    };
    let c = case(&model_with_initializer(w));
    c.expect_error(
        "T003",
        "main",
        None,
        &["initializer 'w'", "raw_data is 4 bytes, shorter"],
    );
    for cmd in ["check", "shapes"] {
        let (_, kb) = peak_rss_kb(&[cmd, c.shown()]);
        assert!(kb < MODEST_RSS_KB, "{cmd} peaked at {kb} kB");
    }
    let out = c.folder.join("out.onnx");
    let (r, kb) = peak_rss_kb(&["expand", c.shown(), "-o", path_str(&out)]);
    r.expect_code(1);
    assert!(kb < MODEST_RSS_KB, "expand peaked at {kb} kB");
}

#[test]
fn huge_dims_in_a_constant_feeding_shape_inference_do_not_allocate() {
    // The Constant's value is what shape inference would fold: it must not materialise 2^60 elements.
    let k = TensorProto {
        dims: vec![1 << 30, 1 << 30],
        raw_data: Some(vec![0; 4].into()),
        float_data: vec![],
        data_type: Some(DataType::Int64 as i32),
        ..float4("k")
    };
    let bytes = model(graph(
        vec![
            NodeProto {
                attribute: vec![AttributeProto {
                    name: Some("value".into()),
                    r#type: Some(AttributeType::Tensor as i32),
                    t: Some(k),
                    ..Default::default()
                }],
                ..node("Constant", "c", &[], &["k"])
            },
            node("Reshape", "reshape", &["x", "k"], &["y"]),
        ],
        &["x"],
        &["y"],
    ))
    .encode_to_vec();
    let c = case(&bytes);
    c.expect_error("T003", "main", Some(("c", "Constant")), &["shorter"]);
    for cmd in ["check", "shapes"] {
        let (_, kb) = peak_rss_kb(&[cmd, c.shown()]);
        assert!(kb < MODEST_RSS_KB, "{cmd} peaked at {kb} kB");
    }
}

#[test]
fn raw_data_shorter_than_dims_times_element_size_is_t003() {
    let w = TensorProto {
        raw_data: Some(vec![0; 8].into()),
        float_data: vec![],
        ..float4("w")
    };
    case(&model_with_initializer(w)).expect_error(
        "T003",
        "main",
        None,
        &[
            "initializer 'w'",
            "raw_data is 8 bytes, shorter than the 16 bytes",
        ],
    );
}

#[test]
fn raw_data_and_typed_data_both_set_is_t003() {
    let w = TensorProto {
        raw_data: Some(vec![0; 16].into()),
        ..float4("w")
    };
    case(&model_with_initializer(w)).expect_error(
        "T003",
        "main",
        None,
        &["initializer 'w'", "raw_data", "float_data"],
    );
}

#[test]
fn tensor_type_without_elem_type_is_t002() {
    let bytes = model(GraphProto {
        input: vec![vi_typed("x", tensor_type(None, Some(&[4])))],
        ..graph(vec![node("Relu", "relu", &["x"], &["y"])], &[], &["y"])
    })
    .encode_to_vec();
    case(&bytes).expect_error("T002", "main", None, &["value 'x'", "no elem_type"]);
}

#[test]
fn tensor_type_with_elem_type_999_is_t002() {
    let bytes = model(GraphProto {
        input: vec![vi_typed("x", tensor_type(Some(999), Some(&[4])))],
        ..graph(vec![node("Relu", "relu", &["x"], &["y"])], &[], &["y"])
    })
    .encode_to_vec();
    case(&bytes).expect_error("T002", "main", None, &["value 'x'", "999"]);
}

#[test]
fn negative_dim_value_in_a_value_type_is_a_t005_warning() {
    // Exporters write -1 for "unknown" in declared types: read as unknown, one warning, exit 0.
    let bytes = model(GraphProto {
        input: vec![vi_typed(
            "x",
            tensor_type(Some(DataType::Float as i32), Some(&[2, -3])),
        )],
        ..graph(vec![node("Relu", "relu", &["x"], &["y"])], &[], &["y"])
    })
    .encode_to_vec();
    let c = case(&bytes);
    c.expect_clean();
    let t = c.check();
    assert!(
        t.stdout.contains("warning[T005] negative-declared-dim: 1 declared dim is negative, in 1 value: value 'x' (dim 1 is -3)"),
        "{}",
        t.stdout
    );
}

#[test]
fn negative_dim_value_in_a_graph_output_type_is_a_t005_warning() {
    let bytes = model(GraphProto {
        output: vec![vi_typed(
            "y",
            tensor_type(Some(DataType::Float as i32), Some(&[i64::MIN])),
        )],
        ..graph(vec![node("Relu", "relu", &["x"], &["y"])], &["x"], &[])
    })
    .encode_to_vec();
    let c = case(&bytes);
    c.expect_clean();
    let t = c.check();
    assert!(
        t.stdout.contains("warning[T005]")
            && t.stdout
                .contains(&format!("value 'y' (dim 0 is {})", i64::MIN)),
        "{}",
        t.stdout
    );
}

// ---------------------------------------------------------------------------------------------------
// External data
// ---------------------------------------------------------------------------------------------------

/// A float tensor `w` of dims `[4]` stored externally at `location` (if given) with `extra` entries.
fn external(location: Option<&str>, extra: &[(&str, &str)]) -> TensorProto {
    let mut entries = Vec::new();
    if let Some(l) = location {
        entries.push(StringStringEntryProto {
            key: Some("location".into()),
            value: Some(l.into()),
        });
    }
    for (k, v) in extra {
        entries.push(StringStringEntryProto {
            key: Some(k.to_string()),
            value: Some(v.to_string()),
        });
    }
    TensorProto {
        name: Some("w".into()),
        data_type: Some(DataType::Float as i32),
        dims: vec![4],
        data_location: Some(DataLocation::External as i32),
        external_data: entries,
        ..Default::default()
    }
}

/// A case whose folder holds a 16-byte `weights.bin`, a `sub/inner.bin`, and whose parent holds
/// `secret.bin` (with the marker) and `secret.fifo`, a FIFO: opening it for reading blocks until a
/// writer comes, so a run that opened it would hang and hit the deadline.
fn external_case(t: TensorProto) -> Case {
    let c = case(&model_with_initializer(t));
    std::fs::write(c.folder.join("weights.bin"), [0u8; 16]).unwrap();
    std::fs::create_dir_all(c.folder.join("sub")).unwrap();
    std::fs::write(c.folder.join("sub/inner.bin"), [0u8; 16]).unwrap();
    let fifo = c.root.path().join("secret.fifo");
    let ok = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "mkfifo {}", fifo.display());
    c
}

fn x001(t: TensorProto, words: &[&str]) -> Case {
    let c = external_case(t);
    let mut all = vec!["initializer 'w'", "external data"];
    all.extend_from_slice(words);
    c.expect_error("X001", "main", None, &all);
    c
}

#[test]
fn valid_external_data_is_clean() {
    external_case(external(Some("weights.bin"), &[])).expect_clean();
    external_case(external(
        Some("sub/inner.bin"),
        &[("offset", "0"), ("length", "16")],
    ))
    .expect_clean();
}

#[test]
fn absolute_location_is_x001() {
    let dir = tempdir();
    let secret = dir.path().join("abs.bin");
    std::fs::write(&secret, MARKER.repeat(4)).unwrap();
    x001(external(Some(path_str(&secret)), &[]), &["absolute path"]);
    x001(external(Some("/etc/passwd"), &[]), &["absolute path"]);
    x001(
        external(Some("\\\\server\\share\\w.bin"), &[]),
        &["absolute path"],
    );
    x001(external(Some("C:\\w.bin"), &[]), &["absolute path"]);
}

#[test]
fn parent_components_are_x001() {
    for loc in [
        "../secret.bin",
        "sub/../../secret.bin",
        "sub/../weights.bin",
        "..\\secret.bin",
        "..",
    ] {
        x001(external(Some(loc), &[]), &["contains '..'"]);
    }
}

#[test]
fn symlink_as_last_component_leading_out_is_x001() {
    let c = external_case(external(Some("link.bin"), &[]));
    std::os::unix::fs::symlink(c.root.path().join("secret.bin"), c.folder.join("link.bin"))
        .unwrap();
    c.expect_error(
        "X001",
        "main",
        None,
        &["initializer 'w'", "'link.bin'", "symbolic link"],
    );
}

#[test]
fn symlink_to_a_fifo_outside_is_x001_and_never_opened() {
    let c = external_case(external(Some("pipe.bin"), &[]));
    std::os::unix::fs::symlink(c.root.path().join("secret.fifo"), c.folder.join("pipe.bin"))
        .unwrap();
    c.expect_error("X001", "main", None, &["'pipe.bin'", "symbolic link"]);
}

#[test]
fn symlink_as_parent_component_leading_out_is_x001() {
    let c = external_case(external(Some("up/secret.bin"), &[]));
    std::os::unix::fs::symlink(c.root.path(), c.folder.join("up")).unwrap();
    c.expect_error(
        "X001",
        "main",
        None,
        &["initializer 'w'", "'up/secret.bin'", "symbolic link"],
    );
}

#[test]
fn symlink_inside_the_folder_is_fine() {
    let c = external_case(external(Some("alias.bin"), &[]));
    std::os::unix::fs::symlink("weights.bin", c.folder.join("alias.bin")).unwrap();
    c.expect_clean();
}

#[test]
fn fifo_inside_the_folder_is_x001_and_never_opened() {
    let c = external_case(external(Some("in.fifo"), &[]));
    let ok = Command::new("mkfifo")
        .arg(c.folder.join("in.fifo"))
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok);
    c.expect_error("X001", "main", None, &["'in.fifo'", "not a regular file"]);
}

#[test]
fn directory_as_location_is_x001() {
    x001(external(Some("sub"), &[]), &["'sub'", "not a regular file"]);
}

#[test]
fn missing_file_is_x001() {
    x001(
        external(Some("nope.bin"), &[]),
        &["'nope.bin'", "does not exist"],
    );
    x001(external(Some("nodir/nope.bin"), &[]), &["does not exist"]);
}

#[test]
fn negative_offset_or_length_is_x001() {
    x001(
        external(Some("weights.bin"), &[("offset", "-4")]),
        &["offset '-4'", "not a non-negative decimal integer"],
    );
    x001(
        external(Some("weights.bin"), &[("length", "-16")]),
        &["length '-16'", "not a non-negative decimal integer"],
    );
}

#[test]
fn non_numeric_offset_or_length_is_x001() {
    for bad in ["abc", "", " 4", "4 ", "0x10", "+4", "1e3", "٤"] {
        x001(
            external(Some("weights.bin"), &[("offset", bad)]),
            &["offset", "not a non-negative decimal integer"],
        );
    }
    x001(
        external(Some("weights.bin"), &[("length", "sixteen")]),
        &["length 'sixteen'"],
    );
    x001(
        external(
            Some("weights.bin"),
            &[("offset", "99999999999999999999999")],
        ),
        &["offset", "too large"],
    );
}

#[test]
fn region_past_the_end_of_the_file_is_x001() {
    x001(
        external(Some("weights.bin"), &[("offset", "8"), ("length", "16")]),
        &["'weights.bin'", "past the end of the file (16 bytes)"],
    );
    x001(
        external(Some("weights.bin"), &[("offset", "17")]),
        &["past the end"],
    );
    // Inside the file, but too short for four floats.
    x001(
        external(Some("weights.bin"), &[("offset", "8")]),
        &["holds 8 bytes", "needs 16"],
    );
}

#[test]
fn huge_external_tensor_in_a_small_file_is_x001() {
    // 2^60 floats (2^62 bytes; 2^65 bits, past u64) in a 16-byte file.
    let t = TensorProto {
        dims: vec![1 << 30, 1 << 30],
        ..external(Some("weights.bin"), &[])
    };
    let c = x001(t, &["holds 16 bytes", "needs 4611686018427387904"]);
    let (_, kb) = peak_rss_kb(&["check", c.shown()]);
    assert!(kb < MODEST_RSS_KB, "check peaked at {kb} kB");
}

#[test]
fn offset_plus_length_wrapping_is_x001() {
    x001(
        external(
            Some("weights.bin"),
            &[("offset", "18446744073709551615"), ("length", "2")],
        ),
        &["overflows"],
    );
    x001(
        external(
            Some("weights.bin"),
            &[
                ("offset", "9223372036854775808"),
                ("length", "9223372036854775808"),
            ],
        ),
        &["overflows"],
    );
}

#[test]
fn ort_memory_address_marker_is_x001() {
    x001(
        external(Some("*/_ORT_MEM_ADDR_/*"), &[("offset", "140000000000")]),
        &["in-memory address marker"],
    );
}

#[test]
fn external_with_inline_raw_data_is_x001() {
    let t = TensorProto {
        raw_data: Some(vec![0; 16].into()),
        ..external(Some("weights.bin"), &[])
    };
    x001(t, &["inline raw_data"]);
}

#[test]
fn external_with_inline_typed_data_is_x001() {
    // Inline data in float_data is as contradictory as inline raw_data: which of the two is the tensor?
    let t = TensorProto {
        float_data: vec![1.0, 2.0, 3.0, 4.0],
        ..external(Some("weights.bin"), &[])
    };
    x001(t, &["inline"]);
}

#[test]
fn external_without_location_is_x001() {
    x001(external(None, &[]), &["no location"]);
    x001(external(Some(""), &[]), &["no location"]);
    x001(external(None, &[("offset", "0")]), &["no location"]);
}

#[test]
fn external_with_a_key_twice_is_x001() {
    x001(
        external(Some("weights.bin"), &[("location", "../secret.bin")]),
        &["'location' twice"],
    );
}

#[test]
fn external_data_is_resolved_against_the_model_folder_not_the_working_directory() {
    // The working directory holds a valid `weights.bin`; the model's folder does not.
    let c = case(&model_with_initializer(external(Some("weights.bin"), &[])));
    let cwd = c.root.path().join("cwd");
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::write(cwd.join("weights.bin"), [0u8; 16]).unwrap();
    let r = run_full(&["check", c.shown()], DEADLINE, Some(&cwd), &[]);
    r.expect_code(1);
    assert!(
        r.stdout.contains("error[X001]") && r.stdout.contains("does not exist"),
        "{}",
        r.stdout
    );
    // And a relative model path resolves against the model's folder too.
    std::fs::write(c.folder.join("weights.bin"), [0u8; 16]).unwrap();
    std::fs::remove_file(cwd.join("weights.bin")).unwrap();
    let r = run_full(&["check", "../model/m.onnx"], DEADLINE, Some(&cwd), &[]);
    r.expect_code(0);
}

#[test]
fn expand_of_external_data_model_to_another_folder_carries_the_data() {
    let c = external_case(external(Some("weights.bin"), &[]));
    let elsewhere = c.root.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let (r, written) = c.expand_to(&elsewhere.join("out.onnx"));
    r.expect_code(0);
    assert!(written.is_some(), "expand wrote its output");
    assert!(
        r.stderr.contains("external data 'weights.bin' ->"),
        "expand says where the data file went:\n{}",
        r.stderr
    );
    assert_eq!(
        std::fs::read(elsewhere.join("weights.bin")).unwrap(),
        [0u8; 16],
        "the data file is beside the output"
    );
    run(&["check", path_str(&elsewhere.join("out.onnx"))]).expect_code(0);
}

#[test]
fn expand_with_no_copy_data_to_another_folder_warns_to_copy_the_data() {
    let c = external_case(external(Some("weights.bin"), &[]));
    let elsewhere = c.root.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let out = elsewhere.join("out.onnx");
    let r = run(&["expand", c.shown(), "-o", path_str(&out), "--no-copy-data"]);
    r.expect_code(0);
    assert!(out.exists(), "expand wrote its output");
    assert!(
        r.stderr.contains("warning") && r.stderr.contains("'weights.bin'"),
        "expand tells the user to copy the data file:\n{}",
        r.stderr
    );
    assert!(
        !elsewhere.join("weights.bin").exists(),
        "--no-copy-data copies nothing"
    );
}

#[test]
fn expand_of_external_data_model_to_the_same_folder_does_not_warn() {
    let c = external_case(external(Some("weights.bin"), &[]));
    let (r, written) = c.expand();
    r.expect_code(0);
    assert!(written.is_some(), "expand wrote its output");
    assert!(
        !r.stderr.contains("external data") && !r.stderr.contains("warning"),
        "no warning when the data file is next to the output:\n{}",
        r.stderr
    );
    // The same folder spelled differently is still the same folder.
    let other_spelling = c.folder.join("sub/../out2.onnx");
    let (r, _) = c.expand_to(&other_spelling);
    r.expect_code(0);
    assert!(!r.stderr.contains("external data"), "{}", r.stderr);
}

// ---------------------------------------------------------------------------------------------------
// Structure
// ---------------------------------------------------------------------------------------------------

#[test]
fn subgraphs_nested_30_deep_load() {
    let c = case(&nested_if_model(30));
    let written = c.expect_clean();
    assert_eq!(
        written,
        std::fs::read(&c.path).unwrap(),
        "nothing to expand"
    );
}

#[test]
fn subgraphs_nested_beyond_the_decoder_limit_cannot_be_loaded() {
    case(&nested_if_model(200)).expect_unloadable(&["recursion limit"]);
}

fn local_function(name: &str, calls: &str) -> FunctionProto {
    FunctionProto {
        name: Some(name.into()),
        domain: Some("local".into()),
        input: strings(&["a"]),
        output: strings(&["b"]),
        opset_import: vec![opset("", 17), opset("local", 1)],
        node: vec![NodeProto {
            domain: Some("local".into()),
            ..node(calls, &format!("call_{calls}"), &["a"], &["b"])
        }],
        ..Default::default()
    }
}

fn model_with_functions(functions: Vec<FunctionProto>, entry: &str) -> Vec<u8> {
    ModelProto {
        opset_import: vec![opset("", 17), opset("local", 1)],
        functions,
        ..model(graph(
            vec![NodeProto {
                domain: Some("local".into()),
                ..node(entry, "call", &["x"], &["y"])
            }],
            &["x"],
            &["y"],
        ))
    }
    .encode_to_vec()
}

#[test]
fn function_calling_itself_is_g009_and_every_command_terminates() {
    let c = case(&model_with_functions(vec![local_function("f", "f")], "f"));
    c.expect_error("G009", "function:local.f", None, &["local.f calls itself"]);
}

#[test]
fn functions_calling_each_other_in_a_3_cycle_are_one_g009() {
    let c = case(&model_with_functions(
        vec![
            local_function("fa", "fb"),
            local_function("fb", "fc"),
            local_function("fc", "fa"),
        ],
        "fa",
    ));
    c.expect_error(
        "G009",
        "function:local.fa",
        None,
        &["cycle", "local.fa -> local.fb -> local.fc -> local.fa"],
    );
    let doc = c.check_json().json();
    let n = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "G009")
        .count();
    assert_eq!(n, 1, "one G009 for one cycle: {doc:#}");
}

#[test]
fn cycle_not_reached_from_the_main_graph_is_still_g009() {
    let mut fs = vec![local_function("entry", "leaf"), local_function("leaf", "")];
    fs[1].node = vec![node("Relu", "r", &["a"], &["b"])];
    fs.push(local_function("p", "q"));
    fs.push(local_function("q", "p"));
    let c = case(&model_with_functions(fs, "entry"));
    c.expect_error(
        "G009",
        "function:local.p",
        None,
        &["local.p -> local.q -> local.p"],
    );
}

/// Generous for a debug build; the brief's bound (20 s) is for release.
fn million_deadline() -> Duration {
    if cfg!(debug_assertions) {
        Duration::from_secs(180)
    } else {
        Duration::from_secs(20)
    }
}

#[test]
fn a_million_empty_nodes_get_a_capped_report_promptly() {
    // One million `NodeProto {}`: two bytes each (tag, zero length).
    let mut g = graph(vec![], &["x"], &["x"]).encode_to_vec();
    for _ in 0..1_000_000 {
        g.extend_from_slice(&[0x0a, 0x00]);
    }
    let mut bytes = ModelProto {
        graph: None,
        ..model(GraphProto::default())
    }
    .encode_to_vec();
    write_len_record(&mut bytes, 7, &g);
    let c = case(&bytes);

    let r = run_with(&["check", c.shown()], million_deadline());
    r.expect_code(1);
    let g005 = r.stdout.matches("error[G005]").count();
    assert!(
        (1..=1001).contains(&g005),
        "the G005 list is capped ({g005} blocks)"
    );
    assert!(
        r.stdout.contains("and 999000 more G005 findings"),
        "the report says how many were left out:\n{}",
        &r.stdout[r.stdout.len().saturating_sub(2000)..]
    );
    assert!(
        r.stdout.len() < 2 << 20,
        "report of {} bytes",
        r.stdout.len()
    );

    let r = run_with(&["shapes", c.shown()], million_deadline());
    r.expect_code(0);
    let out = c.folder.join("out.onnx");
    let r = run_with(
        &["expand", c.shown(), "-o", path_str(&out)],
        million_deadline(),
    );
    r.expect_code(1);
    assert!(r.stderr.contains("and 999000 more G005 findings"));
    assert!(!out.exists(), "expand wrote a model that has errors");
}

// ---------------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------------

const EVIL: &str = "ev\x1b[31mil\nnext\rline\x07\u{202e}";

#[test]
fn control_characters_in_names_are_escaped_in_check_and_expand_reports() {
    // A node with an evil name reading an evil undefined input: G001 names both.
    let bytes = model(graph(
        vec![node("Relu", EVIL, &[&format!("in_{EVIL}")], &["y"])],
        &["x"],
        &["y"],
    ))
    .encode_to_vec();
    let c = case(&bytes);
    let escaped = "ev\\u{1b}[31mil\\nnext\\rline\\u{7}\\u{202e}";
    c.expect_error(
        "G001",
        "main",
        Some((escaped, "Relu")),
        &[&format!("in_{escaped}")],
    );
    // The JSON report keeps the name exactly (JSON escapes it).
    let doc = c.check_json().json();
    assert!(
        doc["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["node"] == EVIL),
        "{doc:#}"
    );
}

#[test]
fn control_characters_in_value_names_are_escaped_in_shapes_output() {
    let bytes = model(graph(
        vec![node("Relu", "relu", &["x"], &[EVIL])],
        &["x"],
        &[EVIL],
    ))
    .encode_to_vec();
    let c = case(&bytes);
    let r = c.shapes();
    r.expect_code(0).expect_no_controls();
    assert!(r.stdout.contains("ev\\u{1b}[31mil"), "{}", r.stdout);
}

#[test]
fn control_characters_in_names_are_escaped_in_expand_insertions() {
    // A real broadcast on an evil node: expand lists the insertion in its stderr report.
    let bytes = model(GraphProto {
        input: vec![
            vi_typed("a", tensor_type(Some(1), Some(&[2, 3]))),
            vi_typed("b", tensor_type(Some(1), Some(&[3]))),
        ],
        ..graph(vec![node("Add", EVIL, &["a", "b"], &["y"])], &[], &["y"])
    })
    .encode_to_vec();
    let c = case(&bytes);
    let (r, written) = c.expand();
    r.expect_code(0).expect_no_controls();
    assert!(written.is_some());
    assert!(r.stderr.contains("ev\\u{1b}[31mil"), "{}", r.stderr);
}

#[test]
fn control_characters_in_the_file_name_are_escaped() {
    let dir = tempdir();
    let path = dir.path().join("m\x1b[2J\nx.onnx");
    std::fs::write(&path, b"\xff\xff\xff").unwrap();
    let p = path_str(&path);
    run(&["check", p]).expect_code(2).expect_no_controls();
    run(&["shapes", p]).expect_code(2).expect_no_controls();
    let out = dir.path().join("out.onnx");
    run(&["expand", p, "-o", path_str(&out)])
        .expect_code(2)
        .expect_no_controls();
    assert!(!out.exists());
}

fn broadcast_model() -> Vec<u8> {
    model(GraphProto {
        input: vec![
            vi_typed("a", tensor_type(Some(1), Some(&[2, 3]))),
            vi_typed("b", tensor_type(Some(1), Some(&[3]))),
        ],
        ..graph(vec![node("Add", "add", &["a", "b"], &["y"])], &[], &["y"])
    })
    .encode_to_vec()
}

#[test]
fn expand_refuses_to_overwrite_its_input_without_in_place() {
    let c = case(&broadcast_model());
    let before = std::fs::read(&c.path).unwrap();
    let link = c.folder.join("link.onnx");
    std::os::unix::fs::symlink("m.onnx", &link).unwrap();
    let spellings = [
        c.path.clone(),
        c.folder.join(".").join("m.onnx"),
        c.root.path().join("model/../model/m.onnx"),
        link.clone(),
    ];
    for dest in &spellings {
        let r = run(&["expand", c.shown(), "-o", path_str(dest)]);
        r.expect_code(2);
        assert!(
            r.stderr.contains("refusing to overwrite") && r.stderr.contains("--in-place"),
            "expand -o {}: {}",
            dest.display(),
            r.stderr
        );
        assert_eq!(std::fs::read(&c.path).unwrap(), before, "the input changed");
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "the link was replaced"
        );
    }
    assert!(leftover_temporaries(&c.folder).is_empty());
    // With --in-place it does rewrite the input.
    let r = run(&["expand", c.shown(), "-o", c.shown(), "--in-place"]);
    r.expect_code(0);
    assert_ne!(
        std::fs::read(&c.path).unwrap(),
        before,
        "expand --in-place rewrote nothing"
    );
}

#[test]
fn expand_into_a_folder_that_does_not_exist_fails_cleanly() {
    let c = case(&broadcast_model());
    let missing = c.root.path().join("no/such/folder");
    let dest = missing.join("out.onnx");
    let r = run(&["expand", c.shown(), "-o", path_str(&dest)]);
    r.expect_code(2);
    assert!(
        r.stderr.contains("error:") && r.stderr.contains("no/such/folder"),
        "the error names the folder:\n{}",
        r.stderr
    );
    assert!(!missing.exists(), "expand created folders");
}

#[test]
fn expand_onto_a_directory_fails_cleanly_and_leaves_no_temporary() {
    let c = case(&broadcast_model());
    let dest = c.folder.join("adir");
    std::fs::create_dir_all(&dest).unwrap();
    let r = run(&["expand", c.shown(), "-o", path_str(&dest)]);
    r.expect_code(2);
    assert!(r.stderr.contains("error:"), "{}", r.stderr);
    assert!(dest.is_dir(), "the directory is still there");
    assert!(
        leftover_temporaries(&c.folder).is_empty(),
        "temporary files left: {:?}",
        leftover_temporaries(&c.folder)
    );
}

#[test]
fn expand_success_leaves_no_temporary_file() {
    let c = case(&broadcast_model());
    let (r, written) = c.expand();
    r.expect_code(0);
    assert!(written.is_some());
    assert!(leftover_temporaries(&c.folder).is_empty());
}

#[test]
fn expand_into_an_unwritable_folder_fails_cleanly() {
    if running_as_root() {
        // root ignores directory permissions: the write would succeed, so there is nothing to test.
        eprintln!("skipped: running as root");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let c = case(&broadcast_model());
    let ro = c.root.path().join("ro");
    std::fs::create_dir_all(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let dest = ro.join("out.onnx");
    let r = run(&["expand", c.shown(), "-o", path_str(&dest)]);
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    r.expect_code(2);
    assert!(
        r.stderr.contains("cannot create a temporary file"),
        "{}",
        r.stderr
    );
    assert!(!dest.exists());
}

// An output over 2 GiB is not built here: a model whose rewritten form exceeds 2 GiB needs more than
// 2 GiB of input (each Expand inserted adds tens of bytes, and only a graph of tens of millions of
// broadcasting nodes would get there). `onnx_lint::write::splice_model` refuses any `Spliced` whose
// `len` exceeds `MAX_PROTOBUF_BYTES` (2^31 - 1) before opening the destination, with a message telling
// the user to move initializers to external data; `write_model` calls it first. Covered by reading
// src/write/mod.rs.
