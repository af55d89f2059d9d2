//! The system calls of the archive code that the standard library does
//! not offer: Linux's `renameat2`, to swap two names atomically
//! (`RENAME_EXCHANGE`) and to rename without replacing (`RENAME_NOREPLACE`),
//! used to replace a message file in place without the window in which
//! another program's rename or delete of it made a duplicate or brought it
//! back (`replace.rs`; elsewhere, and on file systems without it, the
//! callers fall back on portable calls); and, for the dotlock
//! (`lock.rs`), the host's name and whether a process is running.

#![allow(unsafe_code)]

use std::io;
use std::path::Path;

/// What [`exchange`] did.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Swap {
    /// The two names were swapped.
    Done,
    /// The system or the file system cannot swap names: use the fallback.
    Unsupported,
}

#[cfg(target_os = "linux")]
fn renameat2(from: &Path, to: &Path, flags: libc::c_uint) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let from = std::ffi::CString::new(from.as_os_str().as_bytes())?;
    let to = std::ffi::CString::new(to.as_os_str().as_bytes())?;
    // SAFETY: both pointers are NUL-terminated strings that live across
    // the call (`from`, `to` are dropped after it); AT_FDCWD makes them
    // relative to the working directory, as std's rename does; the call
    // writes nothing through them.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            flags,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Whether `e` says the system or file system does not have the call or
/// the flag.
#[cfg(target_os = "linux")]
fn unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP)
    )
}

/// Swaps the files at `a` and `b` (both must exist; `NotFound` if either
/// is gone), atomically.
#[cfg(target_os = "linux")]
pub(super) fn exchange(a: &Path, b: &Path) -> io::Result<Swap> {
    match renameat2(a, b, libc::RENAME_EXCHANGE) {
        Ok(()) => Ok(Swap::Done),
        Err(e) if unsupported(&e) => Ok(Swap::Unsupported),
        Err(e) => Err(e),
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn exchange(_a: &Path, _b: &Path) -> io::Result<Swap> {
    Ok(Swap::Unsupported)
}

/// Renames `from` to `to`, failing with `AlreadyExists` rather than
/// replacing a file at `to`. Where the system has no such rename: a hard
/// link and an unlink (the same guarantee; for a moment both names exist).
pub(super) fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    match renameat2(from, to, libc::RENAME_NOREPLACE) {
        Ok(()) => return Ok(()),
        Err(e) if unsupported(&e) => {}
        Err(e) => return Err(e),
    }
    std::fs::hard_link(from, to)?;
    std::fs::remove_file(from)
}

/// This host's name (`gethostname`), as Dovecot writes it into its
/// dotlocks; None where it cannot be had.
#[cfg(unix)]
pub(super) fn hostname() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: the pointer and length describe `buf`, which lives across
    // the call; gethostname writes at most that many octets into it.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if r != 0 {
        return None;
    }
    // Not NUL-terminated when truncated: then no terminator is found and
    // the name is not trusted.
    let end = buf.iter().position(|&b| b == 0)?;
    String::from_utf8(buf[..end].to_vec())
        .ok()
        .filter(|h| !h.is_empty())
}

#[cfg(not(unix))]
pub(super) fn hostname() -> Option<String> {
    None
}

/// Whether no process `pid` runs on this host (`kill(pid, 0)` fails with
/// `ESRCH`). A process of another user (`EPERM`), or any doubt, counts as
/// running.
#[cfg(unix)]
pub(super) fn process_gone(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 sends nothing; the call only checks that the
    // process exists and may be signalled. It takes no pointers.
    let r = unsafe { libc::kill(pid, 0) };
    r != 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

#[cfg(not(unix))]
pub(super) fn process_gone(_pid: u32) -> bool {
    false
}
