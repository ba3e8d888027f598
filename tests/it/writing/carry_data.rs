//! `expand`, `fold` and `roundtrip` carry a model's external-data files to an output in another
//! folder, so the written model loads where it is written: a hard link on the same file system, a copy
//! otherwise, at the same relative location. The sources obey the loader's containment rules (nothing
//! outside the model's folder is linked, copied or opened; a FIFO is never opened), a different file at
//! a destination is never replaced (exit 2, nothing written), an output that cannot be written is refused
//! before any data is carried, a write that fails after leaves no data behind, and
//! `--no-copy-data` keeps the old behaviour (a warning only). Everything runs through the binary.

use crate::support::binary::{self, Run};
use crate::support::paths::{s, tempdir};
use crate::support::proto::add_model;
use onnx_lint::proto::tensor_proto::{DataLocation, DataType};
use onnx_lint::proto::*;
use prost::Message;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// How long one run on a small model may take; a run that opened a FIFO would block past it.
const DEADLINE: Duration = Duration::from_secs(10);

/// The content of files outside the model's folder: never in any output.
const MARKER: &[u8] = b"OUTSIDE-THE-FOLDER-c4rry";

/// Runs with `stdin` as standard input under [`DEADLINE`] (a run that opened a FIFO would block).
fn run_in(args: &[&str], stdin: &[u8]) -> Run {
    binary::run_fed(binary::command(args), args, stdin, DEADLINE)
}

fn run(args: &[&str]) -> Run {
    run_in(args, &[])
}

/// The 16 bytes of `w`: four floats.
fn weights() -> Vec<u8> {
    [1.0f32, 2.0, 3.0, 4.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect()
}

/// `y = Add(x, w)` over `[1]` and `[4]` (a broadcast, so `expand` has work), `w` stored externally
/// at each location given (one initializer per location: `w`, `w1`, ...; the first is added).
fn model(locations: &[&str]) -> Vec<u8> {
    let init = locations
        .iter()
        .enumerate()
        .map(|(i, loc)| TensorProto {
            name: Some(if i == 0 { "w".into() } else { format!("w{i}") }),
            data_type: Some(DataType::Float as i32),
            dims: vec![4],
            data_location: Some(DataLocation::External as i32),
            external_data: vec![StringStringEntryProto {
                key: Some("location".into()),
                value: Some(loc.to_string()),
            }],
            ..Default::default()
        })
        .collect();
    add_model(init).encode_to_vec()
}

/// `<tmp>/model/m.onnx` referencing `locations`, beside `weights.bin` and `sub/inner.bin` (the 16
/// bytes of `w`); `<tmp>/secret.bin` (the marker) and the FIFO `<tmp>/secret.fifo` outside; `<tmp>/out`
/// an empty folder to write into.
struct Setup {
    root: tempfile::TempDir,
    folder: PathBuf,
    model: PathBuf,
    out: PathBuf,
}

fn setup(locations: &[&str]) -> Setup {
    let root = tempdir();
    let folder = root.path().join("model");
    std::fs::create_dir_all(folder.join("sub")).unwrap();
    std::fs::write(folder.join("weights.bin"), weights()).unwrap();
    std::fs::write(folder.join("sub/inner.bin"), weights()).unwrap();
    std::fs::write(root.path().join("secret.bin"), MARKER).unwrap();
    let fifo = root.path().join("secret.fifo");
    let ok = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "mkfifo {}", fifo.display());
    let model_path = folder.join("m.onnx");
    std::fs::write(&model_path, model(locations)).unwrap();
    let out = root.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    Setup {
        root,
        folder,
        model: model_path,
        out,
    }
}

impl Setup {
    fn m(&self) -> &str {
        s(&self.model)
    }

    fn out_model(&self) -> PathBuf {
        self.out.join("m.onnx")
    }

    /// Every name under the output folder (recursively), sorted.
    fn out_listing(&self) -> Vec<String> {
        fn walk(dir: &Path, prefix: &str, acc: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let name = format!("{prefix}{}", e.file_name().to_string_lossy());
                let is_dir = e.file_type().unwrap().is_dir();
                acc.push(name.clone());
                if is_dir {
                    walk(&e.path(), &format!("{name}/"), acc);
                }
            }
        }
        let mut acc = Vec::new();
        walk(&self.out, "", &mut acc);
        acc.sort();
        acc
    }

    /// No byte from outside the model's folder reached the output folder.
    fn assert_nothing_from_outside(&self) {
        for name in self.out_listing() {
            let p = self.out.join(&name);
            if p.is_file() {
                let bytes = std::fs::read(&p).unwrap();
                assert!(
                    !bytes.windows(MARKER.len()).any(|w| w == MARKER),
                    "{name} holds bytes from outside the model's folder"
                );
            }
        }
    }
}

fn ino(p: &Path) -> (u64, u64) {
    let m = std::fs::metadata(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    (m.dev(), m.ino())
}

/// `check` of a written model: exit 0 and no X001.
fn loads_clean(path: &Path) {
    let r = run(&["check", s(path)]);
    let text = String::from_utf8_lossy(&r.stdout_bytes);
    assert_eq!(r.code, 0, "check {}:\n{text}{}", path.display(), r.stderr);
    assert!(!text.contains("X001"), "{text}");
}

#[test]
fn roundtrip_to_another_folder_hard_links_the_data_beside_it() {
    let t = setup(&["weights.bin"]);
    let r = run(&["roundtrip", t.m(), "-o", s(&t.out_model())]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let placed = t.out.join("weights.bin");
    assert_eq!(std::fs::read(&placed).unwrap(), weights());
    assert_eq!(
        ino(&placed),
        ino(&t.folder.join("weights.bin")),
        "same file system: a hard link to the source"
    );
    assert!(
        r.stderr.contains("external data 'weights.bin' ->") && r.stderr.contains("(hard link)"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    assert_eq!(t.out_listing(), ["m.onnx", "weights.bin"]);
    loads_clean(&t.out_model());
    // The output is the model, byte for byte: the location needs no change.
    assert_eq!(
        std::fs::read(t.out_model()).unwrap(),
        std::fs::read(&t.model).unwrap()
    );
}

#[test]
fn expand_and_fold_carry_the_data_too() {
    let t = setup(&["weights.bin", "sub/inner.bin"]);
    let r = run(&["expand", t.m(), "-o", s(&t.out_model())]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("implicit broadcasts made explicit"),
        "{}",
        r.stderr
    );
    assert_eq!(
        t.out_listing(),
        ["m.onnx", "sub", "sub/inner.bin", "weights.bin"],
        "each file at its relative location"
    );
    assert_eq!(
        std::fs::read(t.out.join("sub/inner.bin")).unwrap(),
        weights()
    );
    loads_clean(&t.out_model());
    // fold the expanded model into a third folder: its data (the links) comes along again.
    let third = t.root.path().join("third");
    std::fs::create_dir(&third).unwrap();
    let folded = third.join("folded.onnx");
    let r = run(&["fold", s(&t.out_model()), "-o", s(&folded)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        ino(&third.join("sub/inner.bin")),
        ino(&t.folder.join("sub/inner.bin"))
    );
    loads_clean(&folded);
    assert_eq!(
        std::fs::read(&folded).unwrap(),
        std::fs::read(&t.model).unwrap(),
        "fold(expand(m)) is m"
    );
    // annotate carries it as expand does.
    let fourth = t.root.path().join("fourth");
    std::fs::create_dir(&fourth).unwrap();
    let annotated = fourth.join("annotated.onnx");
    let r = run(&["annotate", s(&folded), "-o", s(&annotated)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        ino(&fourth.join("sub/inner.bin")),
        ino(&t.folder.join("sub/inner.bin"))
    );
    loads_clean(&annotated);
}

/// A folder on another file system than the temporary folders, if the machine has one (`/dev/shm`
/// is a tmpfs on most Linux systems).
fn other_file_system(than: &Path) -> Option<tempfile::TempDir> {
    let d = tempfile::tempdir_in("/dev/shm").ok()?;
    (ino(d.path()).0 != ino(than).0).then_some(d)
}

#[test]
fn across_file_systems_the_data_is_copied() {
    let t = setup(&["weights.bin", "sub/inner.bin"]);
    let Some(other) = other_file_system(&t.folder) else {
        eprintln!("skipped: no second file system (/dev/shm) on this machine");
        return;
    };
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        t.folder.join("weights.bin"),
        std::fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    let out = other.path().join("m.onnx");
    let r = run(&["roundtrip", t.m(), "-o", s(&out)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("(copy)"), "{}", r.stderr);
    let placed = other.path().join("weights.bin");
    assert_eq!(std::fs::read(&placed).unwrap(), weights());
    assert_ne!(ino(&placed), ino(&t.folder.join("weights.bin")));
    let mode = std::fs::metadata(&placed).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640, "the copy keeps the source's permissions");
    assert_eq!(
        std::fs::read(other.path().join("sub/inner.bin")).unwrap(),
        weights()
    );
    let names: Vec<_> = std::fs::read_dir(other.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with(".onnx-lint-")),
        "temporary files left: {names:?}"
    );
    loads_clean(&out);
}

#[test]
fn an_identical_file_already_at_the_destination_is_kept() {
    let t = setup(&["weights.bin"]);
    let there = t.out.join("weights.bin");
    std::fs::write(&there, weights()).unwrap();
    let before = ino(&there);
    let r = run(&["roundtrip", t.m(), "-o", s(&t.out_model())]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("already there, same content"),
        "{}",
        r.stderr
    );
    assert_eq!(ino(&there), before, "left as it was");
    loads_clean(&t.out_model());
    // Run again: now the model is there too, and the data still is.
    let r = run(&["roundtrip", t.m(), "-o", s(&t.out_model())]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn a_different_file_at_the_destination_is_never_replaced() {
    for (what, content) in [
        ("other size", b"not the weights".to_vec()),
        ("same size, other bytes", vec![7u8; 16]),
    ] {
        let t = setup(&["weights.bin", "sub/inner.bin"]);
        // The second location is free: the refusal must come before anything is placed.
        let there = t.out.join("weights.bin");
        std::fs::write(&there, &content).unwrap();
        let r = run(&["expand", t.m(), "-o", s(&t.out_model())]);
        assert_eq!(r.code, 2, "{what}: {}", r.stderr);
        assert!(
            r.stderr
                .contains("is already there and is a different file")
                && r.stderr.contains("nothing was written"),
            "{what}: {}",
            r.stderr
        );
        assert_eq!(std::fs::read(&there).unwrap(), content, "{what}: replaced");
        assert_eq!(
            t.out_listing(),
            ["weights.bin"],
            "{what}: something was written"
        );
    }
}

#[test]
fn no_copy_data_writes_no_data_and_warns() {
    let t = setup(&["weights.bin"]);
    let r = run(&[
        "roundtrip",
        t.m(),
        "-o",
        s(&t.out_model()),
        "--no-copy-data",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(t.out_listing(), ["m.onnx"]);
    assert!(
        r.stderr
            .contains("warning: the model's external data 'weights.bin' is not next to")
            && r.stderr.contains("--no-copy-data"),
        "{}",
        r.stderr
    );
}

#[test]
fn standard_output_cannot_carry_the_data_and_says_so() {
    let t = setup(&["weights.bin"]);
    let r = run(&["roundtrip", t.m(), "-o", "-"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout_bytes, std::fs::read(&t.model).unwrap());
    assert!(
        r.stderr.contains("external data 'weights.bin'")
            && r.stderr.contains("cannot be carried to standard output"),
        "{}",
        r.stderr
    );
    assert!(t.out_listing().is_empty());
}

#[test]
fn locations_leaving_the_folder_are_refused_and_nothing_is_carried() {
    for (loc, why) in [
        ("../secret.bin", "contains '..'"),
        ("sub/../../secret.bin", "contains '..'"),
        ("link.bin", "symbolic link"),
        ("up/secret.bin", "symbolic link"),
        ("pipe.bin", "symbolic link"),
        ("in.fifo", "not a regular file"),
        ("nope.bin", "does not exist"),
    ] {
        let t = setup(&[loc]);
        let secret = t.root.path().join("secret.bin");
        std::os::unix::fs::symlink(&secret, t.folder.join("link.bin")).unwrap();
        std::os::unix::fs::symlink(t.root.path(), t.folder.join("up")).unwrap();
        std::os::unix::fs::symlink(t.root.path().join("secret.fifo"), t.folder.join("pipe.bin"))
            .unwrap();
        let ok = Command::new("mkfifo")
            .arg(t.folder.join("in.fifo"))
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok);
        // roundtrip writes models with findings: here it cannot carry the data, so exit 2.
        let r = run(&["roundtrip", t.m(), "-o", s(&t.out_model())]);
        assert_eq!(r.code, 2, "{loc}: {}", r.stderr);
        assert!(
            r.stderr.contains("cannot carry the model's external data")
                && r.stderr.contains(why)
                && r.stderr.contains("nothing was written"),
            "{loc}: {}",
            r.stderr
        );
        assert!(t.out_listing().is_empty(), "{loc}: {:?}", t.out_listing());
        // expand, fold and annotate refuse the model for its X001 error, as loading does.
        for cmd in ["expand", "fold", "annotate"] {
            let r = run(&[cmd, t.m(), "-o", s(&t.out_model())]);
            assert_eq!(r.code, 1, "{cmd} {loc}: {}", r.stderr);
            assert!(
                r.stderr.contains("error[X001]"),
                "{cmd} {loc}: {}",
                r.stderr
            );
            assert!(
                t.out_listing().is_empty(),
                "{cmd} {loc}: {:?}",
                t.out_listing()
            );
        }
        t.assert_nothing_from_outside();
        assert_eq!(std::fs::read(&secret).unwrap(), MARKER);
    }
}

#[test]
fn a_destination_folder_leading_out_through_a_symlink_is_refused() {
    let t = setup(&["sub/inner.bin"]);
    let elsewhere = t.root.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, t.out.join("sub")).unwrap();
    let r = run(&["roundtrip", t.m(), "-o", s(&t.out_model())]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("leads out of the output's folder through a symbolic link"),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    assert!(!t.out_model().exists());
}

#[test]
fn when_the_model_cannot_be_written_the_carried_data_is_removed() {
    use std::os::unix::process::CommandExt;
    let t = setup(&["weights.bin", "sub/inner.bin"]);
    // A limit on file size the model exceeds: the data is hard-linked (no byte written), then writing
    // the model fails (EFBIG, SIGXFSZ being ignored) after the data was placed.
    let mut cmd = Command::new(crate::support::binary::BIN);
    cmd.args(["roundtrip", t.m(), "-o", s(&t.out_model())])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: signal(2) and setrlimit(2) between fork and exec, on the child only.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: 8,
                rlim_max: 8,
            };
            libc::setrlimit(libc::RLIMIT_FSIZE, &limit);
            Ok(())
        });
    }
    let out = cmd.output().expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the data files carried beside it were removed again"),
        "{stderr}"
    );
    assert!(
        t.out_listing().is_empty(),
        "nothing left: {:?}",
        t.out_listing()
    );
}

#[test]
fn an_output_that_cannot_be_written_is_refused_before_any_data_is_carried() {
    let t = setup(&["weights.bin", "sub/inner.bin"]);
    // A folder where the model should go.
    std::fs::create_dir(t.out_model()).unwrap();
    let r = run(&["roundtrip", t.m(), "-o", s(&t.out_model())]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("it is a folder"), "{}", r.stderr);
    assert_eq!(
        t.out_listing(),
        ["m.onnx"],
        "only the folder that was there"
    );
}

#[test]
fn an_output_named_like_its_own_data_is_refused() {
    let t = setup(&["weights.bin"]);
    let r = run(&["roundtrip", t.m(), "-o", s(&t.out.join("weights.bin"))]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("write the model under another name"),
        "{}",
        r.stderr
    );
    assert!(t.out_listing().is_empty());
    // In the model's own folder the output would replace the weights themselves.
    let r = run(&[
        "roundtrip",
        t.m(),
        "-o",
        s(&t.folder.join("weights.bin")),
        "--in-place",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("over its own external data"),
        "{}",
        r.stderr
    );
    assert_eq!(
        std::fs::read(t.folder.join("weights.bin")).unwrap(),
        weights()
    );
}

#[test]
fn an_output_in_the_model_s_own_folder_needs_no_carrying() {
    let t = setup(&["weights.bin"]);
    let out = t.folder.join("again.onnx");
    let r = run(&["roundtrip", t.m(), "-o", s(&out)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    loads_clean(&out);
}

#[test]
fn a_model_from_standard_input_needs_its_data_at_the_destination() {
    let t = setup(&["weights.bin"]);
    let bytes = std::fs::read(&t.model).unwrap();
    let r = run_in(&["roundtrip", "-", "-o", s(&t.out_model())], &bytes);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("standard input has no folder to carry it from")
            && r.stderr.contains("--no-copy-data"),
        "{}",
        r.stderr
    );
    assert!(t.out_listing().is_empty());
    let r = run_in(
        &["roundtrip", "-", "-o", s(&t.out_model()), "--no-copy-data"],
        &bytes,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    // With the data there first, the model is written and loads.
    std::fs::remove_file(t.out_model()).unwrap();
    std::fs::write(t.out.join("weights.bin"), weights()).unwrap();
    let r = run_in(&["roundtrip", "-", "-o", s(&t.out_model())], &bytes);
    assert_eq!(r.code, 0, "{}", r.stderr);
    loads_clean(&t.out_model());
}
