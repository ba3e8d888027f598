//! Surviving a mapped file that shrinks while it is read.
//!
//! A model is memory-mapped so that its weights are never copied (see [`mod@super::read`]). If another
//! process truncates the file while the mapping lives, touching a page past the new end raises SIGBUS,
//! which kills the process (and the Python interpreter that called the library). Reading the file into
//! memory instead would cost its whole size in memory and time (see `docs/reading.md` for the
//! measurement), so the mapping stays and this module makes the fault harmless:
//!
//! - every mapping of a model is registered here, its address range in a fixed table of atomics that
//!   a signal handler can read without locking or allocating;
//! - a SIGBUS handler, installed once, looks the faulting address up in the table. If it lies in one of
//!   our mappings, the pages from it to the end of that mapping are replaced by anonymous zero pages
//!   (`mmap` with `MAP_FIXED`: a bare system call, safe to make in a handler on Linux), the mapping is
//!   marked as hit, and the handler returns: the faulting read is retried and reads zeros. A fault
//!   anywhere else goes to the handler that was there before (Rust's stack-overflow report, Python's
//!   faulthandler, or the default: the process dies as it would have);
//! - the loader asks [`hit`] (and compares the file's size and modification time) once it is done,
//!   and reports the model as changed while being read instead of whatever the zeros decoded to.
//!
//! No `longjmp` is involved: the handler only swaps pages under a read that then completes normally.
//! Only Linux is guarded; elsewhere the mapping is registered nowhere and a truncation still faults.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Mappings guarded at once; one is held per model being checked, so this is far above `--jobs`.
/// When all are taken, the caller reads the file instead of mapping it.
const SLOTS: usize = 4096;

struct Slot {
    /// Claimed by a live mapping.
    taken: AtomicBool,
    /// The mapping's first byte; 0 while the slot is not published.
    start: AtomicUsize,
    len: AtomicUsize,
    /// Set by the handler when a page of this mapping was replaced by zeros.
    hit: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)] // one initializer for every element of the table
const FREE: Slot = Slot {
    taken: AtomicBool::new(false),
    start: AtomicUsize::new(0),
    len: AtomicUsize::new(0),
    hit: AtomicBool::new(false),
};

static TABLE: [Slot; SLOTS] = [FREE; SLOTS];

/// One past the highest slot ever claimed: slots are claimed lowest first, so [`hit`] looks at these
/// few, not at all [`SLOTS`] (a scan of the whole table for each model was 3.5% of `check`'s CPU on
/// the node corpus, `perf record`).
static CLAIMED: AtomicUsize = AtomicUsize::new(0);

/// A mapping registered in the table for as long as it lives.
pub struct Guarded {
    map: memmap2::Mmap,
    slot: usize,
}

impl Guarded {
    /// Registers `map`; `None` (and the map handed back) when the table is full or the platform is
    /// not guarded.
    pub fn new(map: memmap2::Mmap) -> Result<Guarded, memmap2::Mmap> {
        if !install() {
            return Err(map);
        }
        let Some(slot) = TABLE.iter().position(|s| {
            s.taken
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        }) else {
            return Err(map);
        };
        CLAIMED.fetch_max(slot + 1, Ordering::AcqRel);
        let s = &TABLE[slot];
        s.hit.store(false, Ordering::Release);
        s.len.store(map.len(), Ordering::Release);
        s.start.store(map.as_ptr() as usize, Ordering::Release);
        Ok(Guarded { map, slot })
    }
}

impl AsRef<[u8]> for Guarded {
    fn as_ref(&self) -> &[u8] {
        &self.map
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // Unpublished before the mapping goes (the field is dropped after this): a later mapping at
        // the same address is not mistaken for this one.
        let s = &TABLE[self.slot];
        s.start.store(0, Ordering::Release);
        s.len.store(0, Ordering::Release);
        s.taken.store(false, Ordering::Release);
    }
}

/// Whether any page of the guarded mapping holding `bytes` was replaced by zeros (the file shrank
/// under it). False for bytes that are not in a guarded mapping.
pub fn hit(bytes: &[u8]) -> bool {
    let at = bytes.as_ptr() as usize;
    TABLE[..CLAIMED.load(Ordering::Acquire)].iter().any(|s| {
        let start = s.start.load(Ordering::Acquire);
        start != 0
            && at >= start
            && at < start + s.len.load(Ordering::Acquire)
            && s.hit.load(Ordering::Acquire)
    })
}

#[cfg(target_os = "linux")]
mod handler {
    use super::{Ordering, TABLE};
    use std::sync::OnceLock;
    use std::sync::atomic::AtomicUsize;

    /// The disposition of SIGBUS before ours, for faults that are not ours.
    static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();
    static PAGE: AtomicUsize = AtomicUsize::new(4096);

    /// Installs the handler (once); whether it is in place.
    pub fn install() -> bool {
        static DONE: OnceLock<bool> = OnceLock::new();
        *DONE.get_or_init(|| unsafe {
            // SAFETY: plain libc calls on zeroed, fully initialised structures.
            let page = libc::sysconf(libc::_SC_PAGESIZE);
            if page > 0 {
                PAGE.store(page as usize, Ordering::Relaxed);
            }
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut old) != 0 {
                return false;
            }
            let _ = PREVIOUS.set(old);
            let mut new: libc::sigaction = std::mem::zeroed();
            new.sa_sigaction = on_sigbus as *const () as usize;
            new.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_NODEFER;
            libc::sigemptyset(&mut new.sa_mask);
            libc::sigaction(libc::SIGBUS, &new, std::ptr::null_mut()) == 0
        })
    }

    extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo for a handler installed with SA_SIGINFO.
        let addr = unsafe { (*info).si_addr() } as usize;
        let page = PAGE.load(Ordering::Relaxed);
        for s in TABLE.iter() {
            let start = s.start.load(Ordering::Acquire);
            let len = s.len.load(Ordering::Acquire);
            if start == 0 || addr < start || addr >= start + len {
                continue;
            }
            // Everything from the faulting page to the end of the mapping: the file ends before it.
            let from = addr & !(page - 1);
            let end = (start + len).div_ceil(page) * page;
            // SAFETY: the range lies inside a live mapping of ours (read-only, never written through),
            // which this replaces page for page with zeros of the same protection.
            let r = unsafe {
                libc::mmap(
                    from as *mut libc::c_void,
                    end - from,
                    libc::PROT_READ,
                    libc::MAP_FIXED | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if r != libc::MAP_FAILED {
                s.hit.store(true, Ordering::Release);
                return;
            }
            break;
        }
        // Not ours: what would have happened without us.
        // SAFETY: calls the previous handler as it was installed, or restores the default action,
        // under which the retried access kills the process.
        unsafe {
            match PREVIOUS.get() {
                Some(old)
                    if old.sa_sigaction != libc::SIG_DFL && old.sa_sigaction != libc::SIG_IGN =>
                {
                    if old.sa_flags & libc::SA_SIGINFO != 0 {
                        let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                            std::mem::transmute(old.sa_sigaction);
                        f(sig, info, ctx);
                    } else {
                        let f: extern "C" fn(libc::c_int) = std::mem::transmute(old.sa_sigaction);
                        f(sig);
                    }
                }
                _ => {
                    let mut dfl: libc::sigaction = std::mem::zeroed();
                    dfl.sa_sigaction = libc::SIG_DFL;
                    libc::sigaction(libc::SIGBUS, &dfl, std::ptr::null_mut());
                }
            }
        }
    }
}

#[cfg(target_os = "linux")]
use handler::install;

#[cfg(not(target_os = "linux"))]
fn install() -> bool {
    false
}
