//! How many models a `check` run checks at once (`--jobs`), the worker threads that check them while
//! the results are handed on in the models' order, and the thread that frees them.

use crate::ir::Model;
use crate::shape::infer::GraphShapes;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// `--jobs` is capped at this many threads per core.
const MAX_JOBS_PER_CORE: usize = 4;

/// The threads a run uses.
#[derive(Clone, Copy)]
pub(super) struct Jobs {
    /// Models checked at once.
    pub(super) models: usize,
    /// Each model's structural checks run on a thread of their own beside its inference.
    pub(super) parallel: bool,
}

impl Jobs {
    /// `--jobs` is a budget of threads (the cores by default): one model per thread while there are
    /// more models than threads; a thread to spare (fewer models, or the default on one model) runs
    /// a model's structural checks beside its inference.
    pub(super) fn new(asked: Option<usize>, models: usize) -> Jobs {
        let threads = Jobs::threads(asked);
        let at_once = threads.min(models.max(1));
        Jobs {
            models: at_once,
            parallel: threads > at_once,
        }
    }
}

impl Jobs {
    /// The threads `--jobs` asks for (the cores by default), capped.
    pub(super) fn threads(asked: Option<usize>) -> usize {
        let cores = thread::available_parallelism().map_or(1, |n| n.get());
        // Each thread holds a model: a million threads (asked for) took 5 GiB of stacks and channel
        // slots for no speed.
        asked
            .unwrap_or(cores)
            .clamp(1, cores.saturating_mul(MAX_JOBS_PER_CORE))
    }
}

/// A worker hands its results on once it has held the first of them this long (or has this many):
/// the writer is woken once a batch, not once a model; a model that takes longer than this is handed
/// on alone, as soon as it is done. Speed trick: on the node corpus (1884 models of ~0.1 ms),
/// `check --jobs 2` spends 20 ms of CPU on the main thread with it, 29 ms handing on each model
/// (bench/serial.py); futex calls 6109 -> 613, writes 531 -> 181 (strace -c -f).
const HAND_ON_AFTER: Duration = Duration::from_millis(5);
const HAND_ON_AT: usize = 64;

/// Runs `work` on every item, `jobs` at a time, and hands the results to `settle` in the items'
/// order (into `state`): the output is the one-job output, byte for byte, whatever the number of
/// jobs. Each worker takes the next item not yet taken and hands its results on in batches
/// ([`HAND_ON_AFTER`]); results that arrive early wait until those before them are settled. `idle`
/// is called whenever the settling thread is about to wait for work (after each item with one job):
/// the time to flush what was settled. The first error of `settle` or `idle` (the output is gone)
/// stops the run.
pub(super) fn in_order<T: Sync, R: Send, S>(
    items: &[T],
    jobs: usize,
    work: impl Fn(&T) -> R + Sync,
    state: &mut S,
    settle: impl Fn(&mut S, R) -> std::io::Result<()>,
    idle: impl Fn(&mut S) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if jobs <= 1 {
        return items.iter().try_for_each(|item| {
            settle(state, work(item))?;
            idle(state)
        });
    }
    let next = AtomicUsize::new(0);
    thread::scope(|scope| {
        // Bounded, so that workers wait when the writer is behind rather than pile up results.
        let (tx, rx) = mpsc::sync_channel::<Vec<(usize, R)>>(jobs * 4);
        let mut started = 0;
        for k in 0..jobs {
            let (tx, next, work) = (tx.clone(), &next, &work);
            let worker = move || {
                let mut batch = Vec::new();
                let mut first = Instant::now();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else {
                        break;
                    };
                    if batch.is_empty() {
                        first = Instant::now();
                    }
                    batch.push((i, work(item)));
                    if batch.len() >= HAND_ON_AT || first.elapsed() >= HAND_ON_AFTER {
                        // A send fails only when the writer has stopped (the output is gone).
                        if tx.send(std::mem::take(&mut batch)).is_err() {
                            return;
                        }
                    }
                }
                if !batch.is_empty() {
                    let _ = tx.send(batch);
                }
            };
            if thread::Builder::new()
                .name(format!("check-{k}"))
                .spawn_scoped(scope, worker)
                .is_ok()
            {
                started += 1;
            }
        }
        drop(tx);
        let mut early = BTreeMap::new();
        let mut want = 0;
        loop {
            let batch = match rx.try_recv() {
                Ok(b) => b,
                Err(mpsc::TryRecvError::Disconnected) => break,
                Err(mpsc::TryRecvError::Empty) => {
                    idle(state)?;
                    match rx.recv() {
                        Ok(b) => b,
                        Err(mpsc::RecvError) => break,
                    }
                }
            };
            early.extend(batch);
            while let Some(r) = early.remove(&want) {
                settle(state, r)?;
                want += 1;
            }
        }
        // No worker could be started (the system refused threads): the rest here, one at a time.
        if started == 0 {
            items[want..].iter().try_for_each(|item| {
                settle(state, work(item))?;
                idle(state)
            })?;
        }
        Ok(())
    })
}

/// What a checked model leaves to free: the model and its inferred shapes, when kept.
pub(super) type Done = (Model, Vec<GraphShapes>);

/// Models read from files smaller than this are freed where they were checked: freeing one takes
/// microseconds, less than the hand-off (on the node corpus, 1884 models of a few hundred bytes, the
/// hand-off was 5,223 context switches; docs/performance.md#many-small-models).
const HAND_OFF_FROM: usize = 1 << 20;

/// Frees the models of a one-job run on one other thread, which pays in memory, not time: `check
/// --jobs 1` of a folder of six copies of synthetic_100k peaked at 51.5 MB with it, 70.1 MB freeing
/// each on the checking thread (2.0 s either way). The channel holds one model: at most three are
/// alive at once (being checked, waiting, being freed). With several jobs each worker frees its own.
pub(super) struct Dropper {
    tx: Option<mpsc::SyncSender<Done>>,
}

impl Dropper {
    pub(super) fn new(jobs: &Jobs, models: usize) -> Dropper {
        if jobs.models > 1 || models < 2 {
            return Dropper { tx: None };
        }
        let (tx, rx) = mpsc::sync_channel::<Done>(1);
        let spawned = thread::Builder::new()
            .name("drop-models".into())
            .spawn(move || rx.into_iter().for_each(drop));
        Dropper {
            tx: spawned.ok().map(|_| tx),
        }
    }

    pub(super) fn free(&self, done: Done) {
        match &self.tx {
            // A failed send hands the model back; it is dropped here.
            Some(tx) if done.0.source.len() >= HAND_OFF_FROM => drop(tx.send(done)),
            _ => drop(done),
        }
    }
}
