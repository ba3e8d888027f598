//! Running the built binary, once for every test: with a hang guard (killed and failed past its
//! deadline), both pipes drained while it runs, and a failure if it died of a signal or printed a
//! panic. A test that needs more (standard input, a working directory, environment variables, another
//! user) prepares the [`Command`] from [`command`] and hands it to [`run_command`] or [`run_fed`].
//!
//! Everything a test changes for a run is set on the child's `Command`, never on this process (one
//! test binary runs all the tests on parallel threads: `std::env::set_var` or `set_current_dir` here
//! would leak into the others).

use serde_json::Value;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The binary under test, built by cargo for the integration tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_onnx-lint");

/// The deadline of [`run`]: far above what any ordinary run needs on a loaded machine; only a hang
/// reaches it. The tests of hostile input set their own, tighter ones.
pub const DEADLINE: Duration = Duration::from_secs(300);

/// What one run printed, and how it exited.
pub struct Run {
    pub args: Vec<String>,
    pub code: i32,
    /// Standard output, lossily decoded (the bytes are [`Run::stdout_bytes`]).
    pub stdout: String,
    pub stdout_bytes: Vec<u8>,
    /// Standard error, lossily decoded (the bytes are [`Run::stderr_bytes`]).
    pub stderr: String,
    pub stderr_bytes: Vec<u8>,
}

impl Run {
    /// Asserts the exit status, showing both streams when it differs.
    pub fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code, code,
            "onnx-lint {:?}: exit status\nstdout:\n{}\nstderr:\n{}",
            self.args, self.stdout, self.stderr
        );
        self
    }

    /// Asserts that stdout or stderr says each of `words`.
    pub fn expect_words(&self, words: &[&str]) -> &Self {
        for w in words {
            assert!(
                self.stdout.contains(w) || self.stderr.contains(w),
                "onnx-lint {:?} should say {w:?}\nstdout:\n{}\nstderr:\n{}",
                self.args,
                self.stdout,
                self.stderr
            );
        }
        self
    }

    /// Standard output as one JSON document.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "onnx-lint {:?}: output is not JSON ({e}):\n{}",
                self.args, self.stdout
            )
        })
    }

    /// Standard output, which must be UTF-8.
    pub fn stdout_utf8(&self) -> String {
        String::from_utf8(self.stdout_bytes.clone())
            .unwrap_or_else(|e| panic!("onnx-lint {:?}: stdout is not UTF-8: {e}", self.args))
    }

    /// Neither stream holds a raw terminal control byte (ESC, or any C0 control but newline and tab).
    pub fn expect_no_controls(&self) -> &Self {
        for (which, bytes) in [
            ("stdout", &self.stdout_bytes),
            ("stderr", &self.stderr_bytes),
        ] {
            let bad = bytes
                .iter()
                .position(|&b| b == 0x1b || (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f);
            assert!(
                bad.is_none(),
                "onnx-lint {:?}: raw control byte in {which}:\n{}",
                self.args,
                String::from_utf8_lossy(bytes)
            );
        }
        self
    }
}

/// The binary with `args` and an empty standard input, for a test to prepare further.
pub fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args).stdin(Stdio::null());
    cmd
}

/// Runs the binary with `args` under [`DEADLINE`].
pub fn run(args: &[&str]) -> Run {
    run_with(BIN, args, DEADLINE)
}

/// Runs `bin` with `args`, killing it (and failing) if it has not exited within `limit`.
pub fn run_with(bin: &str, args: &[&str], limit: Duration) -> Run {
    let mut cmd = Command::new(bin);
    cmd.args(args).stdin(Stdio::null());
    run_command(cmd, args, limit)
}

/// Runs `cmd` (the binary with `args`, and whatever standard input and environment the test set),
/// killing it (and failing) if it has not exited within `limit`.
pub fn run_command(cmd: Command, args: &[&str], limit: Duration) -> Run {
    run_inner(cmd, args, None, limit)
}

/// As [`run_command`], writing `input` to the child's standard input (then closing it).
pub fn run_fed(cmd: Command, args: &[&str], input: &[u8], limit: Duration) -> Run {
    run_inner(cmd, args, Some(input), limit)
}

fn run_inner(mut cmd: Command, args: &[&str], input: Option<&[u8]>, limit: Duration) -> Run {
    if input.is_some() {
        cmd.stdin(Stdio::piped());
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let feeder = input.map(|data| {
        let mut pipe = child.stdin.take().expect("piped stdin");
        let data = data.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&data);
        })
    });
    // Drain both pipes while waiting, so a large output cannot block the child.
    let mut out_pipe = child.stdout.take().expect("piped stdout");
    let mut err_pipe = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out_pipe.read_to_end(&mut v);
        v
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err_pipe.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the binary") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("onnx-lint {args:?} did not finish within {limit:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    if let Some(feeder) = feeder {
        let _ = feeder.join();
    }
    let stdout_bytes = out_reader.join().expect("stdout reader");
    let stderr_bytes = err_reader.join().expect("stderr reader");
    let stdout = String::from_utf8_lossy(&stdout_bytes).into_owned();
    let stderr = String::from_utf8_lossy(&stderr_bytes).into_owned();
    let code = status.code().unwrap_or_else(|| {
        panic!("onnx-lint {args:?} was killed by a signal ({status:?}); stderr:\n{stderr}")
    });
    for sign in ["panicked", "overflowed its stack", "RUST_BACKTRACE"] {
        assert!(
            !stderr.contains(sign) && !stdout.contains(sign),
            "onnx-lint {args:?} panicked (exit {code}):\n{stderr}"
        );
    }
    Run {
        args: args.iter().map(|s| s.to_string()).collect(),
        code,
        stdout,
        stdout_bytes,
        stderr,
        stderr_bytes,
    }
}

/// Whether this process runs as root (which ignores file permissions, so some refusals cannot be
/// provoked).
pub fn running_as_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(2) == Some("0"))
        })
        .unwrap_or(false)
}
