//! `write::to_vec`, the rewritten model in memory (the Python API's `expand`/`fold` on bytes), gives
//! the bytes `write::write_model` writes to a file.

use crate::support::paths::tempdir;
use onnx_lint::file::{Origin, wire::Edit};
use onnx_lint::lint;
use onnx_lint::passes::explicit_broadcast::{self, Options};
use onnx_lint::write::{WriteOptions, to_vec, write_model};

/// The source itself for an empty edit, and the same rewritten model as the file for a real one.
#[test]
fn to_vec_is_what_write_model_writes() {
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let src = models.join("tiny_transformer.onnx");
    let (model, found) = lint::load(Origin::File(src.clone())).expect("a shipped model loads");
    let same = to_vec(&model, &Edit::default()).expect("an empty edit splices");
    assert_eq!(same, std::fs::read(&src).expect("readable"));

    let outcome = explicit_broadcast::run(&model, &found.shapes, &Options::default())
        .expect("the model can be made explicit");
    let edit = outcome.patch.to_edit();
    assert!(!edit.is_empty(), "tiny_transformer has implicit broadcasts");
    let dir = tempdir();
    let out = dir.path().join("explicit.onnx");
    write_model(&model, &edit, &out, &WriteOptions::default()).expect("written");
    let in_memory = to_vec(&model, &edit).expect("spliced");
    assert_ne!(in_memory, same);
    assert_eq!(in_memory, std::fs::read(&out).expect("readable"));
}
