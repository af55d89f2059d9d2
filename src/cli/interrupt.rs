//! An in-place run interrupted by SIGINT, SIGTERM or SIGHUP (Ctrl-C, a
//! service stop, a closed terminal) removes the mbox dotlocks it holds
//! before it exits: MDAs would otherwise wait on a lock nobody holds until
//! they take it for stale (minutes; Dovecot at once, seeing the process
//! gone, as the next run of this program does).
//! Everything else a killed run leaves is safe to leave: the input is
//! complete, the hidden temporary and backup are cleaned up or replaced by
//! the next run (doc/mailbox.md, "Crash safety").
//!
//! As in the milter (`milter/stop.rs`), the signals are blocked in every
//! thread (the mask is set before the first thread starts, and threads
//! inherit it) and taken by one thread with `sigwait`, so nothing runs in a
//! signal handler.

#![allow(unsafe_code)]

/// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread and the threads
/// it starts afterwards, and starts a thread that, on any of them, removes
/// the dotlocks this process holds and exits with 128 + the signal's
/// number, as the default action would show to a shell. Call before any
/// other thread is started.
pub fn release_locks_on_signal() {
    // SAFETY: sigset_t is plain data that sigemptyset initialises; the
    // calls get valid pointers to it and change only this thread's mask
    // (inherited by the threads started afterwards).
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGHUP);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    };
    std::thread::spawn(move || {
        loop {
            let mut sig: libc::c_int = 0;
            // SAFETY: both pointers are valid for the call; the set holds
            // signals blocked in every thread, as sigwait requires.
            if unsafe { libc::sigwait(&set, &mut sig) } != 0 {
                continue;
            }
            mailcharset::mailbox::release_held_locks();
            std::process::exit(128 + sig);
        }
    });
}
