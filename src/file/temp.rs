//! The writers' temporary files: their one name pattern, the registry of the live ones (removed when
//! the process is interrupted), and the sweep of the ones a killed process left behind.
//!
//! A write fills `.onnx-lint-<pid>-<random>.tmp` beside its output and renames it into place (see
//! [`super::atomic`]). Stopped half-way, the output is intact, but the temporary file, as large as the
//! model, would stay. So:
//!
//! - every live temporary file is registered here; in a program that asked for it
//!   ([`remove_on_signals`]: the binary does, a library caller such as the Python binding keeps its
//!   own signal handling), the first one installs handlers for SIGINT and SIGTERM (a signal already
//!   ignored, as under `nohup`, stays ignored) that remove every registered file and exit with
//!   128 + the signal: 130 for SIGINT, 143 for SIGTERM;
//! - SIGKILL (and a power loss) cannot be caught: what they leave is removed by the next write into the
//!   same folder ([`sweep_stale`]), when the file belongs to this user and either the process named in
//!   it is gone and the file has not changed for [`GONE_GRACE`], or it has not changed for
//!   [`STALE_AFTER`] whoever made it.
//!
//! The handlers only write the signal's number into a pipe (all a signal handler may safely do); a
//! thread of this module reads it, removes the files and exits.

use std::fs::Permissions;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// How a temporary file's name starts: the pid of its writer follows, then `-`, random characters
/// and [`TEMP_SUFFIX`]. The whole pattern is `.onnx-lint-*.tmp`; nothing else names it.
pub const TEMP_PREFIX: &str = ".onnx-lint-";
/// How a temporary file's name ends (see [`TEMP_PREFIX`]).
pub const TEMP_SUFFIX: &str = ".tmp";

/// A temporary file whose writer is gone is removed once it has not changed for this long: a writer
/// that is alive in another PID namespace (a container writing into a shared folder), which this
/// process cannot see, keeps its file changing while it writes.
pub const GONE_GRACE: Duration = Duration::from_secs(30);
/// A temporary file unchanged for this long is removed whatever its name says: no write pauses for
/// that long, and its pid may have been given to another process since.
pub const STALE_AFTER: Duration = Duration::from_secs(30 * 60);

/// Whether the first temporary file installs the signal handlers ([`remove_on_signals`]).
static ON_SIGNALS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Asks that the temporary files be removed on SIGINT and SIGTERM, and the process then exit with
/// 130 or 143. For a program, not a library: the handlers replace the process's own. They are
/// installed with the first temporary file, so a run that writes nothing keeps the default handling.
pub fn remove_on_signals() {
    ON_SIGNALS.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// The paths of the temporary files being written, removed on SIGINT and SIGTERM.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A temporary file being written, registered for removal on a signal while it lives. Dropped, the
/// file is removed (by `tempfile`) and then unregistered; persisted, it is unregistered too.
pub struct Live {
    /// Declared first: dropped (and the file removed) before the registration goes.
    pub file: tempfile::NamedTempFile,
    registration: Registration,
}

impl Live {
    /// Renames the file to `dest`, replacing what is there.
    pub fn persist(self, dest: &Path) -> std::io::Result<()> {
        let Live { file, registration } = self;
        let done = file.persist(dest).map(drop).map_err(|e| e.error);
        drop(registration);
        done
    }

    /// Links the file to `dest` only if nothing is there (`AlreadyExists` otherwise).
    pub fn persist_noclobber(self, dest: &Path) -> std::io::Result<()> {
        let Live { file, registration } = self;
        let done = file.persist_noclobber(dest).map(drop).map_err(|e| e.error);
        drop(registration);
        done
    }
}

struct Registration(PathBuf);

impl Drop for Registration {
    fn drop(&mut self) {
        unregister(&self.0);
    }
}

/// Creates a registered temporary file in `dir`, with `permissions` if given (else private, 0600),
/// less the umask as for any new file.
pub fn create_in(dir: &Path, permissions: Option<Permissions>) -> std::io::Result<Live> {
    if ON_SIGNALS.load(std::sync::atomic::Ordering::Relaxed) {
        interrupt::install();
    }
    let prefix = format!("{TEMP_PREFIX}{}-", std::process::id());
    // Registered before it exists, so that a signal at any moment after finds it.
    let file = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(TEMP_SUFFIX)
        .make_in(dir, |path| {
            register(path);
            let opened = open_new(path, permissions.as_ref());
            if opened.is_err() {
                unregister(path);
            }
            opened
        })?;
    let path = file.path().to_owned();
    Ok(Live {
        file,
        registration: Registration(path),
    })
}

fn open_new(path: &Path, permissions: Option<&Permissions>) -> std::io::Result<std::fs::File> {
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true).write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        opts.mode(permissions.map_or(0o600, |p| p.mode()));
    }
    #[cfg(not(unix))]
    let _ = permissions;
    opts.open(path)
}

fn register(path: &Path) {
    LIVE.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(path.to_owned());
}

fn unregister(path: &Path) {
    let mut live = LIVE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(i) = live.iter().rposition(|p| p == path) {
        live.swap_remove(i);
    }
}

/// What a file name says if it is a temporary file's: `Some(pid)` (`None` inside when the name
/// carries no pid, as those of older versions did not), or `None` for any other name.
fn parse_name(name: &str) -> Option<Option<u32>> {
    let rest = name.strip_prefix(TEMP_PREFIX)?.strip_suffix(TEMP_SUFFIX)?;
    Some(
        rest.split_once('-')
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
            .filter(|&p| p > 0),
    )
}

/// Removes from `dir` the temporary files a killed writer left (see the module's documentation):
/// those of this user whose writer is gone and that have not changed for [`GONE_GRACE`], and those
/// that have not changed for [`STALE_AFTER`]. Errors are ignored: the sweep is housekeeping, and a
/// file it cannot remove is no reason not to write.
#[cfg(unix)]
pub fn sweep_stale(dir: &Path) {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    // SAFETY: geteuid cannot fail and touches no memory.
    let me = unsafe { libc::geteuid() };
    let now = std::time::SystemTime::now();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(parse_name) else {
            continue;
        };
        // The entry's own metadata: a symlink with the name is not followed, and not removed.
        let Ok(m) = entry.metadata() else {
            continue;
        };
        if !m.is_file() || m.uid() != me {
            continue;
        }
        let idle = m
            .modified()
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .unwrap_or_default();
        let gone = pid.is_some_and(|p| p != std::process::id() && !alive(p));
        if (gone && idle >= GONE_GRACE) || idle >= STALE_AFTER {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(not(unix))]
pub fn sweep_stale(_: &Path) {}

/// Whether process `pid` exists (as far as this process can see): signal 0 checks without sending.
#[cfg(unix)]
fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: kill with signal 0 sends nothing; it only says whether the process exists.
    if unsafe { libc::kill(pid, 0) } == 0 {
        return true;
    }
    // EPERM: it exists, as another user's.
    std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Removes the live temporary files on SIGINT and SIGTERM, then exits.
#[cfg(unix)]
mod interrupt {
    use super::LIVE;
    use std::sync::Once;
    use std::sync::atomic::{AtomicI32, Ordering};

    /// The pipe's write end, for the handler.
    static PIPE: AtomicI32 = AtomicI32::new(-1);

    /// Installs the handlers, once per process; without a pipe or a thread, none (the sweep is then
    /// what removes a file left by a signal).
    pub fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            let mut fds = [0 as libc::c_int; 2];
            // SAFETY: pipe writes two descriptors into the array it is given; fcntl on them.
            unsafe {
                if libc::pipe(fds.as_mut_ptr()) != 0 {
                    return;
                }
                libc::fcntl(fds[0], libc::F_SETFD, libc::FD_CLOEXEC);
                libc::fcntl(fds[1], libc::F_SETFD, libc::FD_CLOEXEC);
                // A handler must never block: with the pipe full, the signal is already on its way.
                libc::fcntl(fds[1], libc::F_SETFL, libc::O_NONBLOCK);
            }
            let reader = fds[0];
            let watcher = std::thread::Builder::new()
                .name("interrupt".to_owned())
                .spawn(move || watch(reader));
            if watcher.is_err() {
                return;
            }
            PIPE.store(fds[1], Ordering::SeqCst);
            for sig in [libc::SIGINT, libc::SIGTERM] {
                // SAFETY: sigaction reads and writes the zeroed structs given; the handler only calls
                // write(2), which is async-signal-safe.
                unsafe {
                    let mut old: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
                        || old.sa_sigaction == libc::SIG_IGN
                    {
                        continue;
                    }
                    let mut new: libc::sigaction = std::mem::zeroed();
                    new.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                    libc::sigemptyset(&mut new.sa_mask);
                    new.sa_flags = libc::SA_RESTART;
                    libc::sigaction(sig, &new, std::ptr::null_mut());
                }
            }
        });
    }

    extern "C" fn on_signal(sig: libc::c_int) {
        let fd = PIPE.load(Ordering::Relaxed);
        let byte = sig as u8;
        // SAFETY: write(2) of one byte from the stack; errno is saved and restored around it, since
        // the interrupted code may be about to read it.
        unsafe {
            #[cfg(target_os = "linux")]
            let saved = *libc::__errno_location();
            libc::write(fd, (&byte as *const u8).cast(), 1);
            #[cfg(target_os = "linux")]
            {
                *libc::__errno_location() = saved;
            }
        }
    }

    /// Waits for a signal's byte, removes the live files and exits with 128 + the signal.
    fn watch(reader: libc::c_int) {
        let mut byte = 0u8;
        loop {
            // SAFETY: read of one byte into a local.
            let n = unsafe { libc::read(reader, (&mut byte as *mut u8).cast(), 1) };
            if n == 1 {
                break;
            }
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        // Held to the exit: no writer registers or renames a file meanwhile.
        let live = LIVE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for p in live.iter() {
            let _ = std::fs::remove_file(p);
        }
        // SAFETY: _exit ends the process at once, without running destructors or atexit handlers
        // that other threads, stopped anywhere, could be in the middle of.
        unsafe { libc::_exit(128 + libc::c_int::from(byte)) }
    }
}

#[cfg(not(unix))]
mod interrupt {
    pub fn install() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_pid_and_the_pattern() {
        assert_eq!(parse_name(".onnx-lint-123-aB9x.tmp"), Some(Some(123)));
        assert_eq!(parse_name(".onnx-lint-aB9xQz.tmp"), Some(None));
        assert_eq!(parse_name(".onnx-lint-0-x.tmp"), Some(None));
        assert_eq!(parse_name("model.onnx"), None);
        assert_eq!(parse_name(".onnx-lint-1-x.tmp.bak"), None);
    }

    #[test]
    fn live_files_are_registered_until_persisted_or_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let registered = |p: &Path| LIVE.lock().unwrap().iter().any(|q| q == p);
        let a = create_in(dir.path(), None).unwrap();
        let a_path = a.file.path().to_owned();
        let name = a_path.file_name().unwrap().to_str().unwrap();
        assert_eq!(parse_name(name), Some(Some(std::process::id())));
        assert!(registered(&a_path));
        a.persist(&dir.path().join("out")).unwrap();
        assert!(!registered(&a_path));
        let b = create_in(dir.path(), None).unwrap();
        let b_path = b.file.path().to_owned();
        drop(b);
        assert!(!registered(&b_path) && !b_path.exists());
    }

    #[cfg(unix)]
    #[test]
    fn the_sweep_removes_only_stale_files() {
        let dir = tempfile::tempdir().unwrap();
        let old = std::time::SystemTime::now() - Duration::from_secs(120);
        let make = |name: &str, modified: Option<std::time::SystemTime>| {
            let p = dir.path().join(name);
            let f = std::fs::File::create(&p).unwrap();
            if let Some(t) = modified {
                f.set_modified(t).unwrap();
            }
            p
        };
        // pid_max is at most 2^22: this pid is never alive.
        let gone_old = make(".onnx-lint-99999999-a.tmp", Some(old));
        let gone_new = make(".onnx-lint-99999999-b.tmp", None);
        let mine_old = make(
            &format!(".onnx-lint-{}-c.tmp", std::process::id()),
            Some(old),
        );
        let other = make("other-99999999.tmp", Some(old));
        sweep_stale(dir.path());
        assert!(!gone_old.exists(), "a gone writer's old file is removed");
        assert!(gone_new.exists(), "a file that just changed is kept");
        assert!(mine_old.exists(), "a live writer's file is kept");
        assert!(other.exists(), "other names are never touched");
    }
}
