//! Running the built binary with a hang guard, for tests that feed it hostile input: kill it and fail
//! past the deadline, fail if it died of a signal or printed a panic. Included with
//! `#[path = "common/binary.rs"] mod binary;` by the tests that need it (not through `common`, whose
//! other helpers they would not use).

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one run printed, and how it exited.
pub struct Run {
    pub args: Vec<String>,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
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
}

/// Runs `bin` with `args`, killing it (and failing) if it has not exited within `limit`.
pub fn run_with(bin: &str, args: &[&str], limit: Duration) -> Run {
    let mut cmd = Command::new(bin);
    cmd.args(args).stdin(Stdio::null());
    run_command(cmd, args, limit)
}

/// Runs `cmd` (the binary with `args`, and whatever standard input and environment the test set),
/// killing it (and failing) if it has not exited within `limit`.
pub fn run_command(mut cmd: Command, args: &[&str], limit: Duration) -> Run {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
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
    let stdout = String::from_utf8_lossy(&out_reader.join().expect("stdout reader")).into_owned();
    let stderr = String::from_utf8_lossy(&err_reader.join().expect("stderr reader")).into_owned();
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
        stderr,
    }
}
