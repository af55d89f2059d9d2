//! Stopping the milter without cutting a message in half.
//!
//! On SIGTERM or SIGINT (a service manager's stop, a restart, Ctrl-C) the
//! milter stops accepting sessions, lets the open ones finish for up to
//! `--drain` seconds, and exits 0. The MTA applies its
//! `milter_default_action` to sessions that start after the signal and to
//! those still open at the end of the drain, as it would if the milter were
//! not running; a message already being received is answered. A second
//! signal stops at once.
//!
//! SIGHUP (a service manager's reload, logrotate's `postrotate`) reopens
//! the `--report` file at its path, so a rotated report is not written
//! on; without `--report` it is logged and ignored. (Its default action
//! would end the milter.)
//!
//! The signals are blocked in every thread (the mask is set before the
//! first thread starts, and threads inherit it) and taken by one thread
//! with `sigwait`, so nothing runs in a signal handler. That thread wakes
//! the accept loop by connecting to the milter's own socket.

#![allow(unsafe_code)]

use super::note;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The signals that stop the milter.
pub struct Signals(libc::sigset_t);

/// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread and in every thread it
/// starts afterwards. Call before any thread is started.
pub fn block_signals() -> Signals {
    // SAFETY: sigset_t is plain data that sigemptyset initialises; the
    // calls get valid pointers to it and change only this thread's mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGHUP);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        Signals(set)
    }
}

/// How the stop thread wakes the accept loop.
pub enum Wake {
    Tcp(std::net::SocketAddr),
    Unix(PathBuf),
    /// The listening address is unknown: the loop ends at the next
    /// connection.
    Nothing,
}

impl Wake {
    fn wake(&self) {
        match self {
            Wake::Tcp(addr) => {
                let mut addr = *addr;
                // Bound to every address: connect over loopback.
                if addr.ip().is_unspecified() {
                    addr.set_ip(match addr {
                        std::net::SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                        std::net::SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
                    });
                }
                let _ = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(1));
            }
            Wake::Unix(path) => {
                let _ = std::os::unix::net::UnixStream::connect(path);
            }
            Wake::Nothing => {}
        }
    }
}

/// Starts the thread that waits for the signals; returns the flag it sets
/// on the first stop signal. On the second it exits the process at once.
/// SIGHUP calls `reload` (which logs what it did). An error when the
/// thread cannot be started (it panicked). Its stack has a size of its
/// own, not the sessions' (`RUST_MIN_STACK`): it only waits and logs.
pub fn on_signal(
    signals: Signals,
    wake: Wake,
    sessions: Arc<Sessions>,
    reload: impl Fn() + Send + 'static,
) -> std::io::Result<Arc<AtomicBool>> {
    let stopping = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stopping);
    std::thread::Builder::new()
        .name("signals".into())
        .stack_size(256 << 10)
        .spawn(move || {
            loop {
                let mut sig: libc::c_int = 0;
                // SAFETY: both pointers are valid for the call; the set holds
                // signals blocked in every thread, as sigwait requires.
                if unsafe { libc::sigwait(&signals.0, &mut sig) } != 0 {
                    continue;
                }
                if sig == libc::SIGHUP {
                    reload();
                    continue;
                }
                let name = if sig == libc::SIGINT {
                    "SIGINT"
                } else {
                    "SIGTERM"
                };
                if flag.swap(true, Ordering::SeqCst) {
                    note(&format!(
                        "{name} again: stopping now; {} open session(s) cut \
                     (the MTA applies its milter_default_action)",
                        sessions.open()
                    ));
                    std::process::exit(0);
                }
                note(&format!(
                    "{name}: no new sessions; waiting for {} open session(s)",
                    sessions.open()
                ));
                sessions.interrupt();
                wake.wake();
            }
        })?;
    Ok(stopping)
}

/// The sessions in progress.
#[derive(Default)]
pub struct Sessions {
    open: Mutex<usize>,
    ended: Condvar,
}

/// One open session; dropped when its thread ends, however it ends.
pub struct Open(Arc<Sessions>);

impl Drop for Open {
    fn drop(&mut self) {
        let mut n = self.0.open.lock().unwrap_or_else(|e| e.into_inner());
        *n = n.saturating_sub(1);
        self.0.ended.notify_all();
    }
}

impl Sessions {
    pub fn enter(this: &Arc<Sessions>) -> Open {
        *this.open.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        Open(Arc::clone(this))
    }

    fn open(&self) -> usize {
        *self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits while `max` sessions are open; false when `stopping` is set
    /// meanwhile (a stop signal calls [`Sessions::interrupt`]). Said once
    /// in the log each time the limit is reached.
    pub fn wait_below(&self, max: usize, stopping: &AtomicBool) -> bool {
        let mut n = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if *n >= max && !stopping.load(Ordering::SeqCst) {
            note(&format!(
                "{max} session(s) open (--max-sessions): new connections wait \
                 until one ends"
            ));
        }
        while *n >= max {
            if stopping.load(Ordering::SeqCst) {
                return false;
            }
            // The timeout only bounds a wake-up lost to a stop signal
            // sent between the flag and the wait.
            n = match self.ended.wait_timeout(n, Duration::from_secs(1)) {
                Ok((n, _)) => n,
                Err(e) => e.into_inner().0,
            };
        }
        !stopping.load(Ordering::SeqCst)
    }

    /// Wakes [`Sessions::wait_below`] to see the stop.
    fn interrupt(&self) {
        let _n = self.open.lock().unwrap_or_else(|e| e.into_inner());
        self.ended.notify_all();
    }

    /// Waits until every session has ended or `limit` has passed, and says
    /// which.
    pub fn drain(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        let mut n = self.open.lock().unwrap_or_else(|e| e.into_inner());
        while *n > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            n = match self.ended.wait_timeout(n, left) {
                Ok((n, _)) => n,
                Err(e) => e.into_inner().0,
            };
        }
        if *n == 0 {
            note("stopped: every session finished");
        } else {
            note(&format!(
                "stopped after {} s: {} open session(s) cut \
                 (the MTA applies its milter_default_action)",
                limit.as_secs(),
                *n
            ));
        }
    }
}

/// The Unix socket this milter created, to remove when it stops: only if
/// the path still names that socket (not one a newer milter put there).
pub struct OurSocket(Option<(PathBuf, u64, u64)>);

impl OurSocket {
    pub fn new(path: &str) -> OurSocket {
        use std::os::unix::fs::MetadataExt;
        OurSocket(
            std::fs::symlink_metadata(path)
                .ok()
                .map(|m| (PathBuf::from(path), m.dev(), m.ino())),
        )
    }

    pub fn remove(&self) {
        use std::os::unix::fs::MetadataExt;
        if let Some((path, dev, ino)) = &self.0
            && let Ok(m) = std::fs::symlink_metadata(path)
            && m.dev() == *dev
            && m.ino() == *ino
        {
            let _ = std::fs::remove_file(path);
        }
    }
}
