//! The `examples/pipeline_step.rs` program: the exit status a pipeline branches on, and the files it
//! writes. `cargo test` builds the examples next to the test binaries; this runs the one built.

use crate::support::paths::{repo_model as model, tempdir};
use onnx_lint::file::Origin;
use onnx_lint::lint;
use onnx_lint::passes::explicit_broadcast::{Options, implicit_broadcasts};
use std::path::{Path, PathBuf};
use std::process::Command;

fn example() -> PathBuf {
    // target/<profile>/deps/<this test> -> target/<profile>/examples/pipeline_step
    let exe = std::env::current_exe().expect("the test binary has a path");
    let profile = exe
        .parent()
        .and_then(Path::parent)
        .expect("test binaries live in target/<profile>/deps");
    profile.join("examples").join("pipeline_step")
}

fn run(out: &Path, models: &[PathBuf]) -> i32 {
    let status = Command::new(example())
        .arg(out)
        .args(models)
        .output()
        .expect("the example runs")
        .status;
    status.code().expect("the example exits, no signal")
}

#[test]
fn valid_models_are_written_explicit_and_the_step_passes() {
    let dir = tempdir();
    let code = run(
        dir.path(),
        &[model("tiny_cnn.onnx"), model("tiny_transformer.onnx")],
    );
    assert_eq!(code, 0);
    for name in ["tiny_cnn.onnx", "tiny_transformer.onnx"] {
        let (written, found) = lint::load(Origin::File(dir.path().join(name))).unwrap();
        assert!(
            implicit_broadcasts(&written, &found.shapes, &Options::default()).is_empty(),
            "{name} still broadcasts implicitly"
        );
    }
}

#[test]
fn a_model_with_an_error_fails_the_step_and_is_not_written() {
    let dir = tempdir();
    let code = run(
        dir.path(),
        &[model("tiny_cnn.onnx"), model("broken/e1_add.onnx")],
    );
    assert_eq!(code, 1);
    assert!(dir.path().join("tiny_cnn.onnx").exists());
    assert!(!dir.path().join("e1_add.onnx").exists());
}

#[test]
fn a_model_that_cannot_be_loaded_is_status_2() {
    let dir = tempdir();
    let missing = dir.path().join("missing.onnx");
    let code = run(
        &dir.path().join("out"),
        &[missing, model("broken/e1_add.onnx")],
    );
    assert_eq!(code, 2);
}
