//! The one system call of the archive code that the standard library does
//! not offer: Linux's `renameat2`, to swap two names atomically
//! (`RENAME_EXCHANGE`) and to rename without replacing (`RENAME_NOREPLACE`).
//! Used to replace a message file in place without the window in which
//! another program's rename or delete of it made a duplicate or brought it
//! back (`replace.rs`). Elsewhere, and on file systems without it, the
//! callers fall back on portable calls.

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
