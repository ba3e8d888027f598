//! Raw bytes -> load (decode, IR, structural checks, shape inference) -> render every format and the
//! DOT picture.
//! Must never panic, hang or allocate without bound, whatever the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onnx_lint::render::{FileReport, github, json, sarif, shapes_json, text};
use onnx_lint::file::Origin;
use onnx_lint::lint;

fuzz_target!(|data: &[u8]| {
    let Ok((model, found)) = lint::from_bytes(bytes::Bytes::copy_from_slice(data), Origin::Stdin)
    else {
        return;
    };
    let _ = shapes_json(&found.shapes);
    let report = [FileReport {
        file: "fuzz.onnx".into(),
        outcome: Ok(found.diagnostics.clone()),
    }];
    let _ = (text(&report), github(&report), json(&report), sarif(&report));
    let _ = onnx_lint::picture::draw(&model, &found, &onnx_lint::picture::Options::default());
});
