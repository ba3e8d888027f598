//! Writers never destroy a file (issue 36), run through the binary:
//!
//! - `check -o MODEL`, `check --write-baseline MODEL` and `expand -o MODEL` (also through another
//!   name or a hard link) are refused with exit 2, the model unchanged; so are a report over the
//!   configuration file (found or given) and any output over the model's external-data file, and a
//!   report and a baseline into one file; `--baseline B --write-baseline B` updates the baseline;
//! - an output that is a FIFO is written through (a reader gets the bytes; it stays a FIFO); so is
//!   `/dev/null`, and, as root, a character device made in a temporary folder (which root could
//!   rename over): each stays a character device; `-o /dev/stdout` into a pipe reaches the pipe;
//! - `--in-place` through a symbolic link rewrites the file it names and keeps the link;
//! - a read-only output (in place or not) is refused with exit 2 and unchanged (as root, the binary
//!   runs as `nobody`, since root may write anything); a replaced file keeps its mode;
//! - SIGTERM and SIGINT to a writer half-way leave no temporary file (exit 143, 130) and the previous
//!   output intact; SIGKILL leaves one, which the next write into the folder removes once stale;
//! - the sweep removes only stale `.onnx-lint-*.tmp` files: not a live writer's, not a fresh one, not
//!   another user's.

use crate::support::binary::running_as_root;
use crate::support::paths::s;
use crate::support::paths::{temp_model, tempdir};
use crate::support::proto::add_model;
use onnx_lint::proto::tensor_proto::{DataLocation, DataType};
use onnx_lint::proto::*;
use prost::Message;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use crate::support::binary::BIN;

/// How long one run on a small model may take (a writer stuck on a FIFO would block past it).
const DEADLINE: Duration = Duration::from_secs(20);

/// A small model with two implicit broadcasts (so `expand` has work), from the repository.
const TINY: &[u8] = include_bytes!("../../../models/tiny_cnn.onnx");

/// The uid and gid the binary runs as when the tests run as root (see [`Runner::as_nobody`]).
const NOBODY: u32 = 65534;

struct Out {
    code: i32,
    stderr: String,
}

/// How to run the binary.
#[derive(Default)]
struct Runner {
    cwd: Option<PathBuf>,
    /// Run as `nobody` (only when the tests run as root): permissions are then enforced.
    as_nobody: bool,
}

impl Runner {
    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(d) = &self.cwd {
            cmd.current_dir(d);
        }
        if self.as_nobody {
            cmd.uid(NOBODY).gid(NOBODY);
        }
        cmd
    }

    /// Runs to the end (killed and failing past [`DEADLINE`]); fails on a signal or a panic.
    fn run(&self, args: &[&str]) -> Out {
        let mut child = self.command(args).spawn().expect("the binary starts");
        let mut err = child.stderr.take().expect("piped stderr");
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        });
        let status = wait(&mut child, DEADLINE)
            .unwrap_or_else(|| panic!("onnx-lint {args:?} did not finish within {DEADLINE:?}"));
        let stderr = reader.join().expect("stderr reader");
        assert!(!stderr.contains("panicked"), "{args:?} panicked:\n{stderr}");
        let code = status
            .code()
            .unwrap_or_else(|| panic!("{args:?} was killed ({status:?}):\n{stderr}"));
        Out { code, stderr }
    }
}

fn run(args: &[&str]) -> Out {
    Runner::default().run(args)
}

/// Waits for `child` up to `limit`; kills it and returns `None` past it.
fn wait(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().expect("wait") {
            return Some(s);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

impl Out {
    /// Exit 2, saying `words`.
    fn refused(&self, words: &[&str]) {
        assert_eq!(
            self.code, 2,
            "expected a refusal (exit 2):\n{}",
            self.stderr
        );
        for w in words {
            assert!(self.stderr.contains(w), "no {w:?} in:\n{}", self.stderr);
        }
    }

    fn ok(&self) {
        assert_eq!(self.code, 0, "expected success:\n{}", self.stderr);
    }
}

/// The writers' temporary files in `dir`.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(".onnx-lint-") && n.ends_with(".tmp"))
                .collect()
        })
        .unwrap_or_default()
}

/// Asserts `path` holds `bytes`, as it did before the run that was refused.
fn unchanged(path: &Path, bytes: &[u8]) {
    let now = std::fs::read(path).expect("the file is still there");
    assert!(now == bytes, "{} was changed", path.display());
}

/// `y = Add(x, w)` with `w` (four floats) stored externally in `w.bin`, and `count` unused
/// initializers of `each` bytes inline (a large model, for a write that takes a while).
fn model_with(external: bool, count: usize, each: usize) -> Vec<u8> {
    let mut init = vec![TensorProto {
        name: Some("w".into()),
        data_type: Some(DataType::Float as i32),
        dims: vec![4],
        ..Default::default()
    }];
    if external {
        init[0].data_location = Some(DataLocation::External as i32);
        init[0].external_data = vec![StringStringEntryProto {
            key: Some("location".into()),
            value: Some("w.bin".into()),
        }];
    } else {
        init[0].raw_data = Some(vec![0u8; 16].into());
    }
    for i in 0..count {
        init.push(TensorProto {
            name: Some(format!("pad{i}")),
            data_type: Some(DataType::Uint8 as i32),
            dims: vec![each as i64],
            raw_data: Some(vec![i as u8; each].into()),
            ..Default::default()
        });
    }
    add_model(init).encode_to_vec()
}

// ---------------------------------------------------------------------------------------------------
// Outputs that are inputs of the run
// ---------------------------------------------------------------------------------------------------

#[test]
fn a_report_or_baseline_naming_the_model_is_refused() {
    let (dir, model) = temp_model("m.onnx", TINY);
    let hard = dir.path().join("hard.onnx");
    std::fs::hard_link(&model, &hard).unwrap();
    let dotted = dir.path().join(".").join("m.onnx");
    for out in [&model, &dotted, &hard] {
        run(&["check", s(&model), "-o", s(out)]).refused(&["refusing", "the model"]);
        unchanged(&model, TINY);
        run(&["check", s(&model), "--write-baseline", s(out)]).refused(&["refusing", "the model"]);
        unchanged(&model, TINY);
        // Several jobs: the refusal does not depend on how the run is scheduled.
        run(&["check", "-j", "2", s(dir.path()), "-o", s(out)]).refused(&["the model"]);
        unchanged(&model, TINY);
    }
    // A model reached through its folder is an input too.
    run(&["check", s(dir.path()), "-o", s(&model)]).refused(&["the model"]);
    unchanged(&model, TINY);
    assert!(temporaries(dir.path()).is_empty());
}

#[test]
fn expand_to_the_model_is_refused_without_in_place() {
    let (dir, model) = temp_model("m.onnx", TINY);
    let hard = dir.path().join("hard.onnx");
    std::fs::hard_link(&model, &hard).unwrap();
    let dotted = dir.path().join(".").join("m.onnx");
    for out in [&model, &dotted, &hard] {
        for cmd in ["expand", "fold", "roundtrip", "annotate"] {
            run(&[cmd, s(&model), "-o", s(out)]).refused(&["refusing to overwrite the input"]);
            unchanged(&model, TINY);
        }
    }
}

#[test]
fn a_report_over_the_configuration_file_is_refused() {
    let (dir, model) = temp_model("m.onnx", TINY);
    let found = dir.path().join("onnx-lint.toml");
    let config = b"ignore = [\"W1\"]\n";
    std::fs::write(&found, config).unwrap();
    run(&["check", s(&model), "-o", s(&found)]).refused(&["the configuration file"]);
    unchanged(&found, config);
    run(&["check", s(&model), "--write-baseline", s(&found)]).refused(&["configuration file"]);
    unchanged(&found, config);
    let given = dir.path().join("other.toml");
    std::fs::write(&given, config).unwrap();
    run(&["check", s(&model), "--config", s(&given), "-o", s(&given)])
        .refused(&["the configuration file"]);
    unchanged(&given, config);
}

#[test]
fn outputs_over_the_external_data_are_refused() {
    let dir = tempdir();
    let model = dir.path().join("m.onnx");
    let data = dir.path().join("w.bin");
    let weights: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    std::fs::write(&model, model_with(true, 0, 0)).unwrap();
    std::fs::write(&data, &weights).unwrap();
    run(&["check", s(&model), "-o", s(&data)]).refused(&["the external data"]);
    unchanged(&data, &weights);
    run(&["check", s(&model), "--write-baseline", s(&data)]).refused(&["the external data"]);
    unchanged(&data, &weights);
    for cmd in ["expand", "roundtrip", "annotate"] {
        run(&[cmd, s(&model), "-o", s(&data)]).refused(&["external data"]);
        unchanged(&data, &weights);
    }
}

#[test]
fn a_report_and_a_baseline_are_not_written_into_one_file_and_a_baseline_updates_itself() {
    let (dir, model) = temp_model("m.onnx", TINY);
    let both = dir.path().join("both.json");
    run(&[
        "check",
        s(&model),
        "-o",
        s(&both),
        "--write-baseline",
        s(&both),
    ])
    .refused(&["one file"]);
    assert!(!both.exists());
    let baseline = dir.path().join("b.json");
    run(&["check", s(&model), "--write-baseline", s(&baseline)]).ok();
    // The sanctioned update: read whole first, then rewritten.
    run(&[
        "check",
        s(&model),
        "--baseline",
        s(&baseline),
        "--write-baseline",
        s(&baseline),
    ])
    .ok();
    // The report over the baseline read is refused.
    let before = std::fs::read(&baseline).unwrap();
    run(&[
        "check",
        s(&model),
        "--baseline",
        s(&baseline),
        "-o",
        s(&baseline),
    ])
    .refused(&["the baseline"]);
    unchanged(&baseline, &before);
}

// ---------------------------------------------------------------------------------------------------
// Devices and FIFOs
// ---------------------------------------------------------------------------------------------------

#[test]
fn a_fifo_output_is_written_through_and_stays_a_fifo() {
    let (dir, model) = temp_model("m.onnx", TINY);
    let fifo = dir.path().join("out.fifo");
    let c = std::ffi::CString::new(s(&fifo)).unwrap();
    // SAFETY: mkfifo reads the NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
    for args in [
        vec!["roundtrip", s(&model), "-o", s(&fifo)],
        vec!["check", s(&model), "-o", s(&fifo)],
    ] {
        let path = fifo.clone();
        let reader = std::thread::spawn(move || std::fs::read(path).expect("read the FIFO"));
        run(&args).ok();
        let got = reader.join().expect("reader");
        if args[0] == "roundtrip" {
            assert!(
                got == TINY,
                "roundtrip through a FIFO delivers the model's bytes"
            );
        } else {
            assert!(
                String::from_utf8_lossy(&got).contains("m.onnx"),
                "the report arrives through the FIFO"
            );
        }
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "{args:?} replaced the FIFO");
    }
    assert!(temporaries(dir.path()).is_empty());
}

#[test]
fn dev_null_is_written_through_and_stays_a_character_device() {
    let (dir, model) = temp_model("m.onnx", TINY);
    for cmd in ["expand", "fold", "roundtrip", "check", "annotate"] {
        let flag = if cmd == "check" {
            "--output-file"
        } else {
            "-o"
        };
        run(&[cmd, s(&model), flag, "/dev/null"]).ok();
        let kind = std::fs::symlink_metadata("/dev/null").unwrap().file_type();
        assert!(kind.is_char_device(), "{cmd} replaced /dev/null");
    }
    run(&["check", s(&model), "--write-baseline", "/dev/null"]).ok();
    assert!(
        std::fs::symlink_metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    // Root could rename over a device: the real test of write-through, on a device of our own.
    if !running_as_root() {
        eprintln!("skipped: making a character device needs root");
        return;
    }
    let dev = dir.path().join("null");
    let c = std::ffi::CString::new(s(&dev)).unwrap();
    // SAFETY: mknod reads the NUL-terminated path; 1:3 is the null device.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    if made != 0 {
        eprintln!("skipped: mknod refused (no CAP_MKNOD)");
        return;
    }
    for cmd in ["expand", "roundtrip", "check"] {
        run(&[cmd, s(&model), "-o", s(&dev)]).ok();
        let kind = std::fs::symlink_metadata(&dev).unwrap().file_type();
        assert!(
            kind.is_char_device(),
            "{cmd} replaced the device with a file"
        );
    }
    assert!(temporaries(dir.path()).is_empty());
}

#[test]
fn dev_stdout_to_a_pipe_is_written_through_and_stays_a_link() {
    let (_dir, model) = temp_model("m.onnx", TINY);
    let was_link =
        std::fs::symlink_metadata("/dev/stdout").is_ok_and(|m| m.file_type().is_symlink());
    // `/dev/stdout` leads to `/proc/self/fd/1`, which for a pipe names no file: opened by its name.
    let out = Runner::default()
        .command(&["roundtrip", s(&model), "-o", "/dev/stdout"])
        .stdout(Stdio::piped())
        .output()
        .expect("the binary runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout == TINY, "the model arrives through the pipe");
    if was_link {
        let m = std::fs::symlink_metadata("/dev/stdout").unwrap();
        assert!(m.file_type().is_symlink(), "/dev/stdout was replaced");
    }
}

// ---------------------------------------------------------------------------------------------------
// Symlinks and permissions
// ---------------------------------------------------------------------------------------------------

#[test]
fn in_place_through_a_symlink_rewrites_the_target_and_keeps_the_link() {
    let (dir, model) = temp_model("m.onnx", TINY);
    let expected = dir.path().join("expected.onnx");
    run(&["expand", s(&model), "-o", s(&expected)]).ok();
    let expected = std::fs::read(&expected).unwrap();
    assert!(expected != TINY, "expand changes the model");
    let link = dir.path().join("link.onnx");
    std::os::unix::fs::symlink("m.onnx", &link).unwrap();
    run(&["expand", s(&link), "-o", s(&link), "--in-place"]).ok();
    let meta = std::fs::symlink_metadata(&link).unwrap();
    assert!(meta.file_type().is_symlink(), "the link was replaced");
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("m.onnx"));
    unchanged(&model, &expected);
    // Without --in-place, the link's target is the input: refused.
    run(&["expand", s(&link), "-o", s(&link)]).refused(&["refusing to overwrite the input"]);
    unchanged(&model, &expected);
    assert!(temporaries(dir.path()).is_empty());
}

#[test]
fn a_read_only_output_is_refused_and_a_replaced_file_keeps_its_mode() {
    let dir = tempdir();
    let runner = Runner {
        cwd: None,
        as_nobody: running_as_root(),
    };
    // The folder is writable by anyone, as the rename needs: only the file's own permission stops it.
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let model = dir.path().join("m.onnx");
    std::fs::write(&model, TINY).unwrap();
    std::fs::set_permissions(&model, std::fs::Permissions::from_mode(0o444)).unwrap();
    runner
        .run(&["roundtrip", s(&model), "-o", s(&model), "--in-place"])
        .refused(&["permission denied", "m.onnx"]);
    unchanged(&model, TINY);
    let other = dir.path().join("other.onnx");
    std::fs::write(&other, b"keep me").unwrap();
    std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o444)).unwrap();
    runner
        .run(&["expand", s(&model), "-o", s(&other)])
        .refused(&["permission denied", "other.onnx"]);
    unchanged(&other, b"keep me");
    runner
        .run(&["check", s(&model), "-o", s(&other)])
        .refused(&["permission denied"]);
    unchanged(&other, b"keep me");
    // A writable file is replaced, and keeps its mode.
    let mode_kept = dir.path().join("kept.onnx");
    runner
        .run(&["roundtrip", s(&model), "-o", s(&mode_kept)])
        .ok();
    std::fs::set_permissions(&mode_kept, std::fs::Permissions::from_mode(0o640)).unwrap();
    runner.run(&["expand", s(&model), "-o", s(&mode_kept)]).ok();
    let mode = std::fs::metadata(&mode_kept).unwrap().mode() & 0o777;
    assert_eq!(mode, 0o640, "the replaced file's mode is kept");
    assert!(temporaries(dir.path()).is_empty());
}

// ---------------------------------------------------------------------------------------------------
// Signals and temporary files
// ---------------------------------------------------------------------------------------------------

/// Writes `previous` to `out`, starts `roundtrip model -o out`, waits for its temporary file to
/// appear and sends `signal`. Returns the exit status, or `None` when the write finished before the
/// signal could stop it.
fn signal_mid_write(
    model: &Path,
    out: &Path,
    previous: &[u8],
    signal: libc::c_int,
) -> Option<std::process::ExitStatus> {
    std::fs::write(out, previous).unwrap();
    let dir = out.parent().unwrap();
    let mut cmd = Runner::default().command(&["roundtrip", s(model), "-o", s(out)]);
    cmd.stderr(Stdio::null());
    // SAFETY: signal(2) between fork and exec: a background job of a non-interactive shell inherits
    // SIGINT ignored, and the binary keeps an ignored signal ignored.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut child = cmd.spawn().expect("the binary starts");
    let start = Instant::now();
    while temporaries(dir).is_empty() {
        if child.try_wait().expect("wait").is_some() {
            return None;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary file appeared"
        );
        std::thread::sleep(Duration::from_micros(200));
    }
    // SAFETY: kill sends a signal to our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    let status = wait(&mut child, Duration::from_secs(60)).expect("the writer ends on the signal");
    (!status.success()).then_some(status)
}

#[test]
fn a_signal_mid_write_leaves_no_temporary_file_and_sigkill_s_is_swept() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempdir();
    let model = dir.path().join("big.onnx");
    // 256 MiB: the write, flushed to disk, takes long enough to be caught half-way.
    std::fs::write(&model, model_with(false, 64, 4 << 20)).unwrap();
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("out.onnx");
    let previous = b"the previous output".to_vec();
    for (signal, code) in [(libc::SIGTERM, 143), (libc::SIGINT, 130)] {
        let status = (0..3)
            .find_map(|_| signal_mid_write(&model, &out, &previous, signal))
            .expect("the write was caught half-way in three tries");
        assert_eq!(status.code(), Some(code), "signal {signal}: {status:?}");
        assert!(
            temporaries(&out_dir).is_empty(),
            "signal {signal} left {:?}",
            temporaries(&out_dir)
        );
        unchanged(&out, &previous);
    }
    // SIGKILL cannot be caught: its temporary file stays until a later write into the folder finds
    // it stale (its writer gone, unchanged for a while: aged here rather than waited for).
    let status = (0..3)
        .find_map(|_| signal_mid_write(&model, &out, &previous, libc::SIGKILL))
        .expect("the write was caught half-way in three tries");
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    unchanged(&out, &previous);
    let left = temporaries(&out_dir);
    assert_eq!(left.len(), 1, "SIGKILL leaves its temporary file: {left:?}");
    let left = out_dir.join(&left[0]);
    let aged = SystemTime::now() - Duration::from_secs(120);
    std::fs::File::options()
        .write(true)
        .open(&left)
        .unwrap()
        .set_modified(aged)
        .unwrap();
    let small = dir.path().join("m.onnx");
    std::fs::write(&small, TINY).unwrap();
    run(&["roundtrip", s(&small), "-o", s(&out_dir.join("next.onnx"))]).ok();
    assert!(
        !left.exists(),
        "the next write removed the stale temporary file"
    );
    assert!(temporaries(&out_dir).is_empty());
}

#[test]
fn the_next_write_sweeps_only_stale_temporary_files() {
    let (dir, model) = temp_model("m.onnx", TINY);
    let aged = SystemTime::now() - Duration::from_secs(120);
    let make = |name: &str, modified: Option<SystemTime>| {
        let p = dir.path().join(name);
        let f = std::fs::File::create(&p).unwrap();
        if let Some(t) = modified {
            f.set_modified(t).unwrap();
        }
        p
    };
    // pid_max is at most 2^22: 99999999 is never a live process.
    let gone = make(".onnx-lint-99999999-aaaaaa.tmp", Some(aged));
    let gone_fresh = make(".onnx-lint-99999999-bbbbbb.tmp", None);
    let live = make(
        &format!(".onnx-lint-{}-cccccc.tmp", std::process::id()),
        Some(aged),
    );
    let ancient = make(
        ".onnx-lint-dddddd.tmp",
        Some(SystemTime::now() - Duration::from_secs(7200)),
    );
    let not_ours = make("onnx-lint-99999999-eeeeee.tmp", Some(aged));
    let others = running_as_root().then(|| {
        let p = make(".onnx-lint-99999999-ffffff.tmp", Some(aged));
        std::os::unix::fs::chown(&p, Some(NOBODY), Some(NOBODY)).unwrap();
        p
    });
    run(&[
        "roundtrip",
        s(&model),
        "-o",
        s(&dir.path().join("out.onnx")),
    ])
    .ok();
    assert!(!gone.exists(), "a gone writer's stale file is removed");
    assert!(!ancient.exists(), "a file unchanged for long is removed");
    assert!(gone_fresh.exists(), "a fresh file is kept");
    assert!(live.exists(), "a live writer's file is kept");
    assert!(not_ours.exists(), "another name is never touched");
    if let Some(p) = others {
        assert!(p.exists(), "another user's file is kept");
    }
}
