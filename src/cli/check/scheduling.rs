//! How many models a `check` run checks at once (`--jobs`), the worker threads that check them while
//! the results are handed on in the models' order, and the thread that frees them.

use crate::ir::Model;
use crate::shape::infer::GraphShapes;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;

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

/// Runs `work` on every item, `jobs` at a time, and hands the results to `settle` in the items'
/// order: the output is the one-job output, byte for byte, whatever the number of jobs. Each worker
/// takes the next item not yet taken; results that arrive early wait until those before them are
/// settled. The first error of `settle` (the output is gone) stops the run.
pub(super) fn in_order<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    work: impl Fn(&T) -> R + Sync,
    mut settle: impl FnMut(R) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if jobs <= 1 {
        return items.iter().try_for_each(|item| settle(work(item)));
    }
    let next = AtomicUsize::new(0);
    thread::scope(|scope| {
        // Bounded, so that workers wait when the writer is behind rather than pile up results.
        let (tx, rx) = mpsc::sync_channel::<(usize, R)>(jobs * 16);
        let mut started = 0;
        for k in 0..jobs {
            let (tx, next, work) = (tx.clone(), &next, &work);
            let worker = move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else {
                        break;
                    };
                    // A send fails only when the writer has stopped (the output is gone).
                    if tx.send((i, work(item))).is_err() {
                        break;
                    }
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
        for (i, result) in rx {
            early.insert(i, result);
            while let Some(r) = early.remove(&want) {
                settle(r)?;
                want += 1;
            }
        }
        // No worker could be started (the system refused threads): the rest here, one at a time.
        if started == 0 {
            items[want..]
                .iter()
                .try_for_each(|item| settle(work(item)))?;
        }
        Ok(())
    })
}

/// What a checked model leaves to free: the model and its inferred shapes, when kept.
pub(super) type Done = (Model, Vec<GraphShapes>);

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
            Some(tx) => drop(tx.send(done)),
            None => drop(done),
        }
    }
}
