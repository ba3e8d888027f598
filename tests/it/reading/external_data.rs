//! External-data references are resolved against the model's folder and must stay inside it: no
//! absolute path, no `..`, no symlink out of the folder (last component or a parent), a regular file,
//! and an offset/length that are plain numbers inside the file. Each bad reference is an X001
//! naming the tensor; the data itself is never read.

use crate::support::paths::tempdir;
use onnx_lint::diagnostics::Code;
use onnx_lint::file::Origin;
use onnx_lint::lint;
use onnx_lint::proto::*;
use prost::Message;
use std::path::Path;

fn external(location: &str, extra: &[(&str, &str)]) -> TensorProto {
    let mut entries = vec![StringStringEntryProto {
        key: Some("location".into()),
        value: Some(location.into()),
    }];
    for (k, v) in extra {
        entries.push(StringStringEntryProto {
            key: Some(k.to_string()),
            value: Some(v.to_string()),
        });
    }
    TensorProto {
        name: Some("w".into()),
        data_type: Some(1),
        dims: vec![4],
        data_location: Some(1),
        external_data: entries,
        ..Default::default()
    }
}

fn model_with(t: TensorProto) -> Vec<u8> {
    ModelProto {
        ir_version: Some(9),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        graph: Some(GraphProto {
            initializer: vec![t],
            output: vec![ValueInfoProto {
                name: Some("w".into()),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    }
    .encode_to_vec()
}

/// Writes the model in `dir/model/` next to a 16-byte `weights.bin`, and a `secret.bin` outside.
fn setup(dir: &Path) -> std::path::PathBuf {
    let folder = dir.join("model");
    std::fs::create_dir_all(folder.join("sub")).unwrap();
    std::fs::write(folder.join("weights.bin"), [0u8; 16]).unwrap();
    std::fs::write(folder.join("sub/inner.bin"), [0u8; 16]).unwrap();
    std::fs::write(dir.join("secret.bin"), [0u8; 16]).unwrap();
    folder
}

fn x001(folder: &Path, t: TensorProto) -> Vec<String> {
    let path = folder.join("m.onnx");
    std::fs::write(&path, model_with(t)).unwrap();
    let (_, found) = lint::load(Origin::File(path)).unwrap();
    found
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::ExternalData)
        .map(|d| d.message.clone())
        .collect()
}

fn one(folder: &Path, t: TensorProto, words: &[&str]) {
    let found = x001(folder, t);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("initializer 'w'"),
        "names the tensor: {}",
        found[0]
    );
    for w in words {
        assert!(found[0].contains(w), "'{w}' in: {}", found[0]);
    }
}

#[test]
fn valid_references_pass() {
    let dir = tempdir();
    let folder = setup(dir.path());
    assert!(x001(&folder, external("weights.bin", &[])).is_empty());
    assert!(
        x001(
            &folder,
            external("sub/inner.bin", &[("offset", "0"), ("length", "16")])
        )
        .is_empty()
    );
    assert!(
        x001(
            &folder,
            external("weights.bin", &[("offset", "4"), ("length", "16")])
        )
        .len()
            == 1
    );
}

#[test]
fn absolute_and_parent_paths_are_refused_before_touching_the_disk() {
    let dir = tempdir();
    let folder = setup(dir.path());
    let abs = dir.path().join("secret.bin");
    one(&folder, external(abs.to_str().unwrap(), &[]), &["absolute"]);
    one(&folder, external("../secret.bin", &[]), &["'..'"]);
    one(&folder, external("sub/../../secret.bin", &[]), &["'..'"]);
    one(&folder, external("sub\\..\\..\\secret.bin", &[]), &["'..'"]);
    one(&folder, external("C:\\secret.bin", &[]), &["absolute"]);
}

#[test]
fn symlinks_out_of_the_folder_are_refused() {
    let dir = tempdir();
    let folder = setup(dir.path());
    std::os::unix::fs::symlink(dir.path().join("secret.bin"), folder.join("link.bin")).unwrap();
    std::os::unix::fs::symlink(dir.path(), folder.join("up")).unwrap();
    one(&folder, external("link.bin", &[]), &["symbolic link"]);
    one(&folder, external("up/secret.bin", &[]), &["symbolic link"]);
    // A link that stays inside is fine.
    std::os::unix::fs::symlink(folder.join("weights.bin"), folder.join("alias.bin")).unwrap();
    assert!(x001(&folder, external("alias.bin", &[])).is_empty());
}

#[test]
fn missing_files_folders_and_markers_are_refused() {
    let dir = tempdir();
    let folder = setup(dir.path());
    one(&folder, external("nope.bin", &[]), &["does not exist"]);
    one(&folder, external("sub", &[]), &["not a regular file"]);
    one(
        &folder,
        external("*/_ORT_MEM_ADDR_/*", &[]),
        &["in-memory address marker"],
    );
    one(&folder, external("", &[]), &["no location"]);
}

#[test]
fn offsets_and_lengths_are_strict_numbers_inside_the_file() {
    let dir = tempdir();
    let folder = setup(dir.path());
    one(
        &folder,
        external("weights.bin", &[("offset", "-1")]),
        &["offset '-1'"],
    );
    one(
        &folder,
        external("weights.bin", &[("offset", "0x10")]),
        &["offset '0x10'"],
    );
    one(
        &folder,
        external("weights.bin", &[("length", " 16")]),
        &["length ' 16'"],
    );
    one(
        &folder,
        external("weights.bin", &[("offset", "99999999999999999999")]),
        &["too large"],
    );
    one(
        &folder,
        external("weights.bin", &[("offset", "32")]),
        &["past the end"],
    );
    one(
        &folder,
        external("weights.bin", &[("offset", "8"), ("length", "16")]),
        &["past the end"],
    );
    one(
        &folder,
        external(
            "weights.bin",
            &[("offset", "18446744073709551615"), ("length", "2")],
        ),
        &["overflows"],
    );
    one(
        &folder,
        external("weights.bin", &[("length", "8")]),
        &["needs 16"],
    );
}

#[test]
fn external_with_inline_data_is_refused() {
    let dir = tempdir();
    let folder = setup(dir.path());
    let mut t = external("weights.bin", &[]);
    t.raw_data = Some(bytes::Bytes::from(vec![0u8; 16]));
    one(&folder, t, &["inline raw_data"]);
}

#[test]
fn a_model_from_standard_input_cannot_resolve_external_data() {
    let bytes = bytes::Bytes::from(model_with(external("weights.bin", &[])));
    let (_, m) = lint::from_bytes(bytes, Origin::Stdin).unwrap();
    let found: Vec<_> = m
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::ExternalData)
        .collect();
    assert_eq!(found.len(), 1);
    assert!(found[0].message.contains("standard input"));
}
