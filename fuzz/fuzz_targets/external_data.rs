//! External-data location/offset/length strings against a fixed folder that holds a data file, a
//! subfolder, a FIFO and symlinks (one inside, one leading out). Must never panic, block on the FIFO,
//! or accept a reference that leaves the folder.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onnx_lint::diagnostics::Code;
use onnx_lint::file::Origin;
use onnx_lint::lint;
use onnx_lint::proto::*;
use prost::Message;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The fixed folder, made once per process: model/ with weights.bin, sub/, a FIFO and symlinks; a
/// secret.bin beside it that no reference may reach.
fn folder() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("onnx-lint-fuzz-ext-{}", std::process::id()));
        let model = root.join("model");
        let _ = std::fs::create_dir_all(model.join("sub"));
        let _ = std::fs::write(model.join("weights.bin"), [0u8; 64]);
        let _ = std::fs::write(model.join("sub/inner.bin"), [0u8; 64]);
        let _ = std::fs::write(root.join("secret.bin"), [0u8; 64]);
        let _ = std::os::unix::fs::symlink(root.join("secret.bin"), model.join("out_link.bin"));
        let _ = std::os::unix::fs::symlink(model.join("weights.bin"), model.join("in_link.bin"));
        let _ = std::os::unix::fs::symlink(&root, model.join("up"));
        let fifo = model.join("fifo.bin");
        let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes().to_vec()).unwrap();
        // SAFETY: a NUL-terminated path and a mode; mkfifo only creates a file.
        unsafe { libc_mkfifo(c.as_ptr(), 0o600) };
        model
    })
}

unsafe extern "C" {
    #[link_name = "mkfifo"]
    fn libc_mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.splitn(3, '\n');
    let entry = |k: &str, v: &str| StringStringEntryProto {
        key: Some(k.into()),
        value: Some(v.into()),
    };
    let mut external_data = vec![entry("location", parts.next().unwrap_or(""))];
    if let Some(o) = parts.next() {
        external_data.push(entry("offset", o));
    }
    if let Some(l) = parts.next() {
        external_data.push(entry("length", l));
    }
    let t = TensorProto {
        name: Some("w".into()),
        data_type: Some(1),
        dims: vec![4],
        data_location: Some(1),
        external_data,
        ..Default::default()
    };
    let m = ModelProto {
        ir_version: Some(9),
        opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(17) }],
        graph: Some(GraphProto {
            initializer: vec![t],
            output: vec![ValueInfoProto { name: Some("w".into()), ..Default::default() }],
            ..Default::default()
        }),
        ..Default::default()
    };
    let path = folder().join("m.onnx");
    let bytes = bytes::Bytes::from(m.encode_to_vec());
    let (_, found) = lint::from_bytes(bytes, Origin::File(path)).expect("a valid protobuf");
    let accepted = !found.diagnostics.iter().any(|d| d.code == Code::ExternalData);
    if accepted {
        // Whatever was accepted must resolve inside the folder to a regular file.
        let loc = text.split('\n').next().unwrap_or("");
        let real = std::fs::canonicalize(folder().join(loc)).expect("accepted references resolve");
        let root = std::fs::canonicalize(folder()).unwrap();
        assert!(real.starts_with(&root), "{loc} escapes the folder");
        assert!(std::fs::metadata(&real).unwrap().is_file(), "{loc} is not a regular file");
    }
});
