//! Raw bytes written to a file -> the file decoder (the walk that leaves weights in the file, and the
//! node decoder that is not prost's, into the IR's compact nodes as a load decodes them), checked
//! against prost decoding the same bytes whole: both accept or both refuse, and what they accept is the
//! same model (compared as encoded, so that NaN attribute values compare equal).
#![no_main]

use libfuzzer_sys::fuzz_target;
use onnx_lint::file::decode::{Decoded, decode_file_split};
use onnx_lint::ir::NodeBatch;
use onnx_lint::proto::ModelProto;
use prost::Message;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let mut tmp = tempfile::NamedTempFile::new().expect("a temporary file");
    tmp.write_all(data).expect("written");
    let map = bytes::Bytes::copy_from_slice(data);
    let ours = decode_file_split::<NodeBatch>(tmp.as_file(), &map).map(|d| {
        let Decoded { mut model, main_nodes } = d;
        if let (Some(g), Some(batches)) = (&mut model.graph, main_nodes) {
            g.node = batches.into_iter().flat_map(NodeBatch::into_protos).collect();
        }
        model
    });
    let prosts = ModelProto::decode(data);
    match (ours, prosts) {
        (Ok(a), Ok(b)) => assert!(
            a.encode_to_vec() == b.encode_to_vec(),
            "the file decoder and prost disagree"
        ),
        (Err(_), Err(_)) => {}
        (a, b) => panic!(
            "the file decoder says {:?}, prost {:?}",
            a.map(|_| "ok"),
            b.map(|_| "ok")
        ),
    }
});
