//! Keeping mail that arrives during an in-place run: the mbox dotlock, and
//! the stamp that tells whether a file changed since it was read.
//!
//! An in-place run reads a file and renames a new one over it. A message
//! an MDA appended in between went into the old file, which the rename
//! unlinks: it was lost, and the run said nothing. Two things keep it:
//!
//! * [`DotLock`]: the `NAME.lock` file every common MDA (Postfix local,
//!   Dovecot LDA, procmail, Exim appendfile, maildrop) creates before it
//!   opens a mailbox, and waits on while it exists. Held from before the
//!   input is read until after the new file is in place, it keeps them
//!   out. (Not `flock`/`fcntl` on the input: a writer that only takes
//!   those would be blocked on the old file and append to it once we let
//!   go, that is into the file the rename unlinked.)
//! * [`FileStamp`]: the file's device, inode, size and modification time
//!   when the run started, compared right before the rename: a writer that
//!   ignores the dotlock changed at least one of them, and the run then
//!   leaves the input as it is (`MailboxError::Changed`, exit 75).
//!
//! See doc/mailbox.md, "In place".

use super::MailboxError;
use super::atomic::resolve_link;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long [`DotLock::acquire`] waits by default for another program's
/// lock to go away (an MDA holds it for the time of one delivery).
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

/// The dotlock of a mailbox: `NAME.lock` beside it (beside the file a
/// symbolic link points to), created with `O_EXCL`, holding this process's
/// id, removed when dropped. Never taken from anyone else: a lock that is
/// there is waited on, then given up on ([`MailboxError::Locked`]), never
/// removed.
#[derive(Debug)]
pub struct DotLock {
    path: PathBuf,
    /// The lock file's identity: only that file is removed on drop (not
    /// one another program made after removing ours as stale).
    id: Option<(u64, u64)>,
}

/// The locks this process holds, so that an interrupted run
/// ([`release_held_locks`]) does not leave them behind.
static HELD: Mutex<Vec<(PathBuf, Option<FileId>)>> = Mutex::new(Vec::new());

/// A file's device and inode.
type FileId = (u64, u64);

/// The dotlock's name for the mailbox `path`: `path.lock`.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".lock");
    PathBuf::from(s)
}

impl DotLock {
    /// Takes the dotlock of `mailbox`, waiting up to `wait` for another
    /// program's lock to go away.
    pub fn acquire(mailbox: &Path, wait: Duration) -> Result<Self, MailboxError> {
        let path = lock_path(&resolve_link(mailbox));
        let deadline = Instant::now() + wait;
        loop {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut f) => {
                    // liblockfile's content: the holder's process id.
                    let _ = writeln!(f, "{}", std::process::id());
                    let id = f.metadata().ok().and_then(|m| file_id(&m));
                    if let Ok(mut held) = HELD.lock() {
                        held.push((path.clone(), id));
                    }
                    return Ok(DotLock { path, id });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    if Instant::now() >= deadline {
                        return Err(MailboxError::Locked {
                            path: mailbox.to_path_buf(),
                            lock: path,
                        });
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(e) => return Err(MailboxError::io(&path, None, e)),
            }
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for DotLock {
    fn drop(&mut self) {
        if let Ok(mut held) = HELD.lock() {
            held.retain(|(p, _)| *p != self.path);
        }
        remove_if_ours(&self.path, self.id);
    }
}

/// Removes the lock file at `path` if it is still the one we made.
fn remove_if_ours(path: &Path, id: Option<(u64, u64)>) {
    let ours = match (id, std::fs::symlink_metadata(path)) {
        (Some(id), Ok(m)) => file_id(&m) == Some(id),
        // No identity to compare (not on Unix): it is the one we made
        // unless another program broke ours, which we cannot tell.
        (None, Ok(_)) => true,
        (_, Err(_)) => false,
    };
    if ours {
        let _ = std::fs::remove_file(path);
    }
}

/// Held while a file written in place is being put in place and the old
/// file dealt with (the check, the rename or swap, the copy of what a late
/// writer appended, the backup removed): an interrupted run
/// ([`release_held_locks`]) waits for it, so that it never exits with mail
/// only in the old file or a backup that a later run replaces.
static CRITICAL: Mutex<()> = Mutex::new(());

/// Takes [`CRITICAL`].
pub(crate) fn critical() -> std::sync::MutexGuard<'static, ()> {
    CRITICAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Removes every dotlock this process holds: for a run that is being
/// interrupted (SIGINT, SIGTERM) and exits right afterwards without
/// unwinding, so that the MDAs are not kept waiting for a lock nobody
/// holds. Waits first for a file being put in place to be in place, and
/// from then on no other is: in-place writes of this process wait forever,
/// so call it only on the way out. The locks' owners ([`DotLock`]) must
/// not be used afterwards.
pub fn release_held_locks() {
    std::mem::forget(critical());
    let held = match HELD.lock() {
        Ok(mut h) => std::mem::take(&mut *h),
        Err(_) => return,
    };
    for (path, id) in held {
        remove_if_ours(&path, id);
    }
}

/// Whether two files' metadata are of one file (device and inode; where
/// the platform has none, never).
pub(crate) fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    matches!((file_id(a), file_id(b)), (Some(x), Some(y)) if x == y)
}

#[cfg(unix)]
fn file_id(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_m: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// What a file was when a run started: device, inode (where the platform
/// has them), size and modification time. Any writer changes one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileStamp {
    id: Option<(u64, u64)>,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl FileStamp {
    /// The stamp of the file at `path` (a symbolic link followed).
    pub fn of(path: &Path) -> io::Result<Self> {
        Ok(Self::from_meta(&std::fs::metadata(path)?))
    }

    /// The stamp of an open file.
    pub fn of_file(f: &File) -> io::Result<Self> {
        Ok(Self::from_meta(&f.metadata()?))
    }

    fn from_meta(m: &std::fs::Metadata) -> Self {
        FileStamp {
            id: file_id(m),
            len: m.len(),
            modified: m.modified().ok(),
        }
    }

    /// The size it had.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether it was empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}
