//! Raw bytes -> load -> explicit-broadcast pass -> write -> reload -> check -> fold -> write -> reload
//! -> check. Whatever `expand` and then `fold` write must load again, and must not have gained broadcast
//! errors.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onnx_lint::diagnostics::{Code, has_errors};
use onnx_lint::file::Origin;
use onnx_lint::lint;
use onnx_lint::passes::explicit_broadcast::{Options, run};
use onnx_lint::passes::fold_expand;
use onnx_lint::write::splice_model;

fuzz_target!(|data: &[u8]| {
    let Ok((model, found)) = lint::from_bytes(bytes::Bytes::copy_from_slice(data), Origin::Stdin)
    else {
        return;
    };
    // `expand` refuses models with errors; so does this target.
    if has_errors(&found.diagnostics) {
        return;
    }
    let Ok(outcome) = run(&model, &found.shapes, &Options::default()) else {
        return;
    };
    let edit = outcome.patch.into_edit();
    let Ok(out) = splice_model(&model, &edit) else {
        return;
    };
    let written = out.to_vec(&model.source);
    assert_eq!(written.len() as u64, out.len, "expand's output is as long as measured");
    let (again, found) = lint::from_bytes(bytes::Bytes::from(written), Origin::Stdin)
        .expect("the output of expand loads");
    assert!(
        !found.diagnostics.iter().any(|d| d.code == Code::BroadcastError),
        "expand introduced a broadcast error: {:?}",
        found.diagnostics
    );
    let folded = fold_expand::run(&again, &found.shapes);
    let edit = folded.patch.into_edit();
    let Ok(out) = splice_model(&again, &edit) else {
        return;
    };
    let written = out.to_vec(&again.source);
    assert_eq!(written.len() as u64, out.len, "fold's output is as long as measured");
    let (_, last) = lint::from_bytes(bytes::Bytes::from(written), Origin::Stdin)
        .expect("the output of fold loads");
    assert!(
        !last.diagnostics.iter().any(|d| d.code == Code::BroadcastError),
        "fold introduced a broadcast error: {:?}",
        last.diagnostics
    );
});
