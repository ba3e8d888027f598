//! The progress bar of a `check` run over many models: on standard error, drawn only on a terminal
//! and only once the run has lasted a second, so that short runs and logs stay clean.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// How long a run goes before its progress bar appears: a short run prints nothing.
const PROGRESS_DELAY: Duration = Duration::from_secs(1);

/// A progress bar on standard error, only when that is a terminal and there is more than one model,
/// and only once the run has lasted [`PROGRESS_DELAY`]. Otherwise (pipes, CI logs, one model) a hidden
/// bar that draws nothing.
pub(super) struct Progress {
    bar: ProgressBar,
    /// Dropping the sender tells the thread that would show the bar that the run is over.
    shower: Option<(mpsc::Sender<()>, thread::JoinHandle<()>)>,
}

impl Progress {
    pub(super) fn start(total: usize) -> Self {
        let bar = ProgressBar::hidden();
        if total < 2 || !std::io::stderr().is_terminal() {
            return Progress { bar, shower: None };
        }
        bar.set_length(total as u64);
        if let Ok(style) =
            ProgressStyle::with_template("{bar:30} {pos}/{len} models [{elapsed}] {wide_msg}")
        {
            bar.set_style(style);
        }
        let (tx, rx) = mpsc::channel::<()>();
        let shown = bar.clone();
        let shower = thread::Builder::new()
            .name("progress".into())
            .spawn(move || {
                if rx.recv_timeout(PROGRESS_DELAY) == Err(mpsc::RecvTimeoutError::Timeout) {
                    shown.set_draw_target(ProgressDrawTarget::stderr());
                    shown.enable_steady_tick(Duration::from_millis(200));
                }
            })
            .ok()
            .map(|h| (tx, h));
        Progress { bar, shower }
    }

    /// Whether the bar may be drawn: otherwise the calls below do nothing (the bar's lock stays off
    /// the workers' path).
    pub(super) fn live(&self) -> bool {
        self.shower.is_some()
    }

    /// Shows `msg()` beside the bar.
    pub(super) fn set_message(&self, msg: impl FnOnce() -> String) {
        if self.live() {
            self.bar.set_message(msg());
        }
    }

    pub(super) fn inc(&self) {
        if self.live() {
            self.bar.inc(1);
        }
    }

    /// Runs `f` (which writes to standard output) with the bar wiped, then draws it again.
    pub(super) fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        if self.live() {
            self.bar.suspend(f)
        } else {
            f()
        }
    }

    /// Wipes the bar, if it was shown, before the last of the output.
    pub(super) fn finish(self) {
        if let Some((tx, handle)) = self.shower {
            drop(tx);
            let _ = handle.join();
        }
        self.bar.finish_and_clear();
    }
}
