//! Hostile files to read (issue 36, "reading"), through the real binary unless said otherwise. Every
//! run has a deadline (killed and failed past it), must not die of a signal or panic, and must end
//! with exit 1 or 2 and a message naming the problem, or a correct result:
//!
//! - a model path, and a `--baseline`, that is a FIFO with no writer (would block forever);
//! - a model path that is a symbolic link to `/dev/zero` or `/dev/urandom` (endless);
//! - `/dev/zero` on standard input, as a file and through a pipe (endless: refused at its first byte);
//! - a configuration file that is `/dev/zero`: `--config`, and a discovered `onnx-lint.toml`;
//! - a configuration file over the size cap;
//! - `--jobs 1000000` (capped: runs in bounded memory);
//! - a model cut short by another process while it is read: deterministically at the library level
//!   (the mapping read after the cut, then decoded by the function the Python API uses), and racing a
//!   truncation against the binary;
//! - a sparse 1 GiB file of zero bytes (an invalid tag at byte 0): refused at once;
//! - a tensor of 50 million `float_data` values: checked in bounded memory.

use crate::support::paths::{s, tempdir};
use onnx_lint::file::{Origin, read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::binary::BIN;

/// Far above what a healthy run needs; a blocked read never gets there.
const DEADLINE: Duration = Duration::from_secs(10);

use crate::support::binary::{self, Run};

trait Expect {
    fn all(&self) -> String;
    fn expect(&self, code: i32, words: &[&str]);
    fn peak_kib(&self) -> u64;
}

impl Expect for Run {
    fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    /// Exit `code`, and every one of `words` in the output.
    fn expect(&self, code: i32, words: &[&str]) {
        self.expect_code(code).expect_words(words);
    }

    /// The peak resident memory the binary reported (`ONNX_LINT_DEBUG_RSS`), in KiB.
    fn peak_kib(&self) -> u64 {
        let line = self
            .stderr
            .lines()
            .find(|l| l.starts_with("VmHWM"))
            .unwrap_or_else(|| panic!("no VmHWM in:\n{}", self.stderr));
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }
}

/// Runs the binary with `args` and `stdin`, with `env` set, within `limit`.
fn run_full(args: &[&str], stdin: Stdio, env: &[(&str, &str)], limit: Duration) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.args(args).stdin(stdin).envs(env.iter().copied());
    binary::run_command(cmd, args, limit)
}

fn run(args: &[&str]) -> Run {
    run_full(args, Stdio::null(), &[], DEADLINE)
}

fn good_model() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models/tiny_transformer.onnx")
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

// --- Protobuf by hand -----------------------------------------------------------------------------

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn key(out: &mut Vec<u8>, field: u64, wire: u64) {
    varint(out, field << 3 | wire);
}

fn ld(out: &mut Vec<u8>, field: u64, body: &[u8]) {
    key(out, field, 2);
    varint(out, body.len() as u64);
    out.extend_from_slice(body);
}

fn vi(out: &mut Vec<u8>, field: u64, v: u64) {
    key(out, field, 0);
    varint(out, v);
}

/// A model of one FLOAT initializer `w` of `n` elements, its values written by `data` (which appends
/// the TensorProto's data field), and `w` as the graph's output.
fn one_initializer(n: u64, data: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut t = Vec::new();
    vi(&mut t, 1, n); // dims
    vi(&mut t, 2, 1); // data_type FLOAT
    ld(&mut t, 8, b"w"); // name
    data(&mut t);
    let mut g = Vec::new();
    ld(&mut g, 2, b"g");
    ld(&mut g, 5, &t);
    let mut out_info = Vec::new();
    ld(&mut out_info, 1, b"w");
    ld(&mut g, 12, &out_info); // output, after the tensor: read last
    let mut opset = Vec::new();
    vi(&mut opset, 2, 17);
    let mut m = Vec::new();
    vi(&mut m, 1, 8);
    ld(&mut m, 8, &opset);
    ld(&mut m, 7, &g);
    m
}

// --- FIFOs, devices, endless input ----------------------------------------------------------------

#[test]
fn a_fifo_as_model_is_refused_without_blocking() {
    let dir = tempdir();
    let fifo = dir.path().join("model.onnx");
    mkfifo(&fifo);
    run(&["check", s(&fifo)]).expect(2, &["model.onnx", "FIFO"]);
}

#[test]
fn a_fifo_as_baseline_is_refused_without_blocking() {
    let dir = tempdir();
    let fifo = dir.path().join("baseline.json");
    mkfifo(&fifo);
    let good = good_model();
    run(&["check", "--baseline", s(&fifo), s(&good)]).expect(2, &["baseline.json", "FIFO"]);
}

#[test]
fn a_link_to_an_endless_device_is_refused_unread() {
    let dir = tempdir();
    for dev in ["/dev/zero", "/dev/urandom"] {
        let link = dir.path().join(format!("{}.onnx", &dev[5..]));
        std::os::unix::fs::symlink(dev, &link).unwrap();
        run(&["check", s(&link)]).expect(2, &["character device"]);
    }
}

#[test]
fn zeros_on_standard_input_are_refused_at_the_first_byte() {
    let zero = std::fs::File::open("/dev/zero").unwrap();
    run_full(&["check", "-"], Stdio::from(zero), &[], DEADLINE)
        .expect(2, &["<stdin>", "field number 0 at byte 0"]);
    // Through a pipe, from a writer that never stops.
    let mut cat = Command::new("cat")
        .arg("/dev/zero")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let pipe = cat.stdout.take().unwrap();
    let r = run_full(&["check", "-"], Stdio::from(pipe), &[], DEADLINE);
    let _ = cat.kill();
    let _ = cat.wait();
    r.expect(2, &["<stdin>", "field number 0 at byte 0"]);
}

#[test]
fn a_configuration_that_is_a_device_is_refused() {
    let dir = tempdir();
    let model = dir.path().join("m.onnx");
    std::fs::copy(good_model(), &model).unwrap();
    let link = dir.path().join("zero.toml");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    run(&["check", "--config", s(&link), s(&model)]).expect(2, &["zero.toml", "character device"]);
    // Found beside the model rather than named.
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("onnx-lint.toml")).unwrap();
    run(&["check", s(&model)]).expect(2, &["onnx-lint.toml", "character device"]);
}

#[test]
fn a_configuration_over_the_cap_is_refused_unread() {
    let dir = tempdir();
    let model = dir.path().join("m.onnx");
    std::fs::copy(good_model(), &model).unwrap();
    let big = dir.path().join("onnx-lint.toml");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(onnx_lint::file::read::MAX_CONFIG_BYTES + 1)
        .unwrap();
    run(&["check", s(&model)]).expect(2, &["onnx-lint.toml", "at most"]);
}

#[test]
fn a_million_jobs_are_capped() {
    let good = good_model();
    let r = run_full(
        &["check", "--jobs", "1000000", s(&good)],
        Stdio::null(),
        &[("ONNX_LINT_DEBUG_RSS", "1")],
        DEADLINE,
    );
    r.expect(0, &["0 errors"]);
    assert!(r.peak_kib() < 256 << 10, "{} KiB", r.peak_kib());
}

// --- A model cut short while it is read -----------------------------------------------------------

/// A model of 8 MiB of raw data, its graph's output written after them.
fn large_model() -> Vec<u8> {
    one_initializer(2 << 20, |t| ld(t, 9, &vec![0u8; 8 << 20]))
}

fn cut(path: &Path, len: u64) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

#[test]
fn a_mapping_cut_short_reads_zeros_and_says_changed() {
    let dir = tempdir();
    let path = dir.path().join("cut.onnx");
    std::fs::write(&path, large_model()).unwrap();
    let origin = Origin::File(path.clone());

    // Mapped, then cut: the last page is past the end of the file (SIGBUS without the guard).
    let content = read(&origin).unwrap();
    cut(&path, 100);
    assert_eq!(content.bytes[content.bytes.len() - 1], 0);
    let err = content.unchanged(&origin).unwrap_err();
    assert!(format!("{err:#}").contains("cut.onnx changed while being read"));

    // Decoded after the cut by the library (the decoder reads the graph's output in the last page).
    std::fs::write(&path, large_model()).unwrap();
    let content = read(&origin).unwrap();
    cut(&path, 100);
    let err = onnx_lint::lint::from_bytes(content.bytes, origin.clone()).unwrap_err();
    assert!(
        format!("{err:#}").contains("cut.onnx changed while being read"),
        "{err:#}"
    );

    // And the path function the Python API calls, on a file cut since it was mapped elsewhere: the
    // guard of one mapping does not confuse another.
    std::fs::write(&path, large_model()).unwrap();
    let (_, found) = onnx_lint::lint::load(origin).unwrap();
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
}

#[test]
fn a_model_cut_short_under_the_binary_is_an_error_not_a_crash() {
    // Many nodes (decoded from the mapping), so that the cut lands while they are read; wherever it
    // lands, the run must end with an error or a correct result, never a signal.
    let mut g = Vec::new();
    for i in 0..300_000u32 {
        let mut n = Vec::new();
        ld(&mut n, 1, format!("a{i}").as_bytes());
        ld(&mut n, 2, format!("a{}", i + 1).as_bytes());
        ld(&mut n, 4, b"Identity");
        ld(&mut g, 1, &n);
    }
    ld(&mut g, 2, b"g");
    let mut m = Vec::new();
    vi(&mut m, 1, 8);
    let mut opset = Vec::new();
    vi(&mut opset, 2, 17);
    ld(&mut m, 8, &opset);
    ld(&mut m, 7, &g);
    let dir = tempdir();
    let path = dir.path().join("cut.onnx");
    let mut changed = 0;
    for delay_ms in [1, 20, 50, 100, 200] {
        std::fs::write(&path, &m).unwrap();
        let p = path.clone();
        let cutter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(delay_ms));
            cut(&p, 1000);
        });
        let r = run(&["check", s(&path)]);
        cutter.join().unwrap();
        assert!((0..=2).contains(&r.code), "{}", r.all());
        if r.code == 2 {
            let all = r.all();
            assert!(
                all.contains("cut.onnx changed while being read") || all.contains("not an ONNX"),
                "{all}"
            );
            changed += all.contains("changed while being read") as usize;
        }
    }
    eprintln!("{changed} of 5 runs saw the cut while reading");
}

// --- Large inputs ---------------------------------------------------------------------------------

#[test]
fn a_gigabyte_of_zeros_is_refused_at_once() {
    let dir = tempdir();
    let path = dir.path().join("zeros.onnx");
    // Sparse: costs no disk.
    std::fs::File::create(&path)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let start = Instant::now();
    let r = run_full(
        &["check", s(&path)],
        Stdio::null(),
        &[("ONNX_LINT_DEBUG_RSS", "1")],
        DEADLINE,
    );
    r.expect(2, &["zeros.onnx", "not an ONNX model"]);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert!(r.peak_kib() < 64 << 10, "{} KiB", r.peak_kib());
}

#[test]
fn fifty_million_float_data_values_are_checked_in_bounded_memory() {
    const N: u64 = 50_000_000;
    let bytes = one_initializer(N, |t| {
        key(t, 4, 2);
        varint(t, 4 * N);
        t.resize(t.len() + 4 * N as usize, 0);
    });
    let dir = tempdir();
    let path = dir.path().join("floats.onnx");
    std::fs::write(&path, &bytes).unwrap();
    drop(bytes);
    let r = run_full(
        &["check", s(&path)],
        Stdio::null(),
        &[("ONNX_LINT_DEBUG_RSS", "1")],
        DEADLINE,
    );
    r.expect(0, &["0 errors"]);
    eprintln!("peak {} KiB", r.peak_kib());
    assert!(r.peak_kib() < 512 << 10, "{} KiB", r.peak_kib());
}

#[test]
fn large_typed_data_left_in_the_file_decode_to_the_same_values() {
    use prost::Message;
    let floats: Vec<u8> = (0..10_000u32)
        .flat_map(|i| (i as f32 * 0.5).to_le_bytes())
        .collect();
    let doubles: Vec<u8> = (0..5_000u32)
        .flat_map(|i| (i as f64 - 7.25).to_le_bytes())
        .collect();
    let cases: Vec<Vec<u8>> = vec![
        one_initializer(10_000, |t| ld(t, 4, &floats)),
        // Two packed fields: the second is appended to the first.
        one_initializer(20_000, |t| {
            ld(t, 4, &floats);
            ld(t, 4, &floats);
        }),
        // A small field first: the large one is copied, not left.
        one_initializer(10_002, |t| {
            ld(t, 4, &1f32.to_le_bytes());
            ld(t, 4, &floats);
            ld(t, 4, &2f32.to_le_bytes());
        }),
        one_initializer(5_000, |t| ld(t, 10, &doubles)),
    ];
    let dir = tempdir();
    for (i, bytes) in cases.into_iter().enumerate() {
        let path = dir.path().join(format!("{i}.onnx"));
        std::fs::write(&path, &bytes).unwrap();
        let content = read(&Origin::File(path)).unwrap();
        let walked =
            onnx_lint::file::decode::decode_file(content.file.as_ref().unwrap(), &content.bytes)
                .unwrap();
        let whole = onnx_lint::proto::ModelProto::decode(bytes.as_slice()).unwrap();
        let (a, b) = (
            &walked.graph.as_ref().unwrap().initializer[0],
            &whole.graph.as_ref().unwrap().initializer[0],
        );
        assert_eq!(a.float_data, b.float_data, "case {i}");
        assert_eq!(a.double_data, b.double_data, "case {i}");
    }
}
