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
//!   out. It holds `PID:HOST` (Dovecot's form), is touched while held so
//!   that it does not pass for stale, and one of ours left by a killed run
//!   (this host, a process gone) is removed by the next. (Not `flock`/`fcntl` on the input: a writer that only takes
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

/// How often the dotlocks this process holds are touched (their
/// modification time set to now), so that an MDA does not take them for
/// stale during a long run: Dovecot overrides a lock when neither it nor
/// the mailbox changed for two minutes (`mbox_dotlock_change_timeout`),
/// Postfix after 500 seconds (`stale_lock_time`).
pub const LOCK_REFRESH: Duration = Duration::from_secs(30);

/// The dotlock of a mailbox: `NAME.lock` beside it, created with `O_EXCL`,
/// holding `PID:HOST` (Dovecot's form: this process's id and the host's
/// name), touched every [`LOCK_REFRESH`] while held, removed when dropped.
/// For a mailbox that is a symbolic link, the lock beside the name given
/// (where an MDA configured with that name locks) and the one beside the
/// link's target are both taken. A lock another program holds is waited
/// on, then given up on ([`MailboxError::Locked`]), never removed, with one
/// exception: a lock in that same form naming this host and a process that
/// is not running is stale (a run killed with SIGKILL left it), and is
/// removed, as Dovecot and liblockfile remove such locks.
#[derive(Debug)]
pub struct DotLock {
    /// The lock files and their identities: only those files are removed
    /// on drop (not one another program made after removing ours as
    /// stale).
    files: Vec<(PathBuf, Option<FileId>)>,
}

/// The locks this process holds, so that an interrupted run
/// ([`release_held_locks`]) does not leave them behind, and so that they
/// are kept fresh ([`refresh_held_locks`]).
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
    /// Takes the dotlock of `mailbox` (both, for a symbolic link: beside
    /// the name and beside the target), waiting up to `wait` in all for
    /// another program's lock to go away.
    pub fn acquire(mailbox: &Path, wait: Duration) -> Result<Self, MailboxError> {
        let deadline = Instant::now() + wait;
        let mut paths = vec![lock_path(mailbox)];
        let target = lock_path(&resolve_link(mailbox));
        if target != paths[0] {
            paths.push(target);
        }
        // Dropped on an error: the locks taken so far go with it.
        let mut lock = DotLock { files: Vec::new() };
        for path in paths {
            let id = take(&path, mailbox, deadline)?;
            lock.files.push((path, id));
        }
        start_refresher();
        Ok(lock)
    }

    /// The lock file (beside the name given).
    pub fn path(&self) -> &Path {
        self.files
            .first()
            .map_or(Path::new(""), |(p, _)| p.as_path())
    }
}

/// Creates the lock file `path` for `mailbox`, waiting until `deadline`.
fn take(path: &Path, mailbox: &Path, deadline: Instant) -> Result<Option<FileId>, MailboxError> {
    loop {
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
        {
            Ok(mut f) => {
                let _ = f.write_all(lock_content().as_bytes());
                let id = f.metadata().ok().and_then(|m| file_id(&m));
                if let Ok(mut held) = HELD.lock() {
                    held.push((path.to_path_buf(), id));
                }
                return Ok(id);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                if remove_if_stale(path) {
                    continue;
                }
                if Instant::now() >= deadline {
                    return Err(MailboxError::Locked {
                        path: mailbox.to_path_buf(),
                        lock: path.to_path_buf(),
                    });
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => return Err(MailboxError::io(path, None, e)),
        }
    }
}

/// What a lock file of ours holds: `PID:HOST` and a line feed (Dovecot's
/// form, which Dovecot itself overrides once the process is gone), or
/// `PID` alone where the host's name cannot be had (liblockfile's).
fn lock_content() -> String {
    match super::sys::hostname() {
        Some(host) => format!("{}:{host}\n", std::process::id()),
        None => format!("{}\n", std::process::id()),
    }
}

/// Removes the lock file at `path` if it is stale: it holds `PID:HOST`
/// (and at most a line feed), HOST is this host, and no process PID runs
/// here. Returns whether it was removed. Anything else (another form, a
/// bare `PID` that may be another host's over NFS, a running process,
/// this process) is left alone. The file removed is the one read: if
/// another program replaced it meanwhile, that one stays.
fn remove_if_stale(path: &Path) -> bool {
    use std::io::Read;
    let Some(host) = super::sys::hostname() else {
        return false;
    };
    let Ok(f) = File::open(path) else {
        return false;
    };
    let mut buf = Vec::new();
    if (&f).take(512).read_to_end(&mut buf).is_err() {
        return false;
    }
    let Ok(read) = f.metadata() else {
        return false;
    };
    let text = std::str::from_utf8(&buf).unwrap_or_default();
    let text = text.strip_suffix('\n').unwrap_or(text);
    let Some((pid, their_host)) = text.split_once(':') else {
        return false;
    };
    if their_host != host || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let Ok(pid) = pid.parse::<u32>() else {
        return false;
    };
    if pid == std::process::id() || !super::sys::process_gone(pid) {
        return false;
    }
    match (std::fs::symlink_metadata(path), file_id(&read)) {
        (Ok(now), Some(id)) if file_id(&now) == Some(id) => std::fs::remove_file(path).is_ok(),
        _ => false,
    }
}

/// Starts, once, the thread that keeps the held locks fresh.
fn start_refresher() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let _ = std::thread::Builder::new()
            .name("dotlock-refresh".into())
            .spawn(|| {
                loop {
                    std::thread::sleep(LOCK_REFRESH);
                    refresh_held_locks();
                }
            });
    });
}

/// Touches every dotlock this process holds (its modification time set to
/// now), if the file is still the one we made.
pub(crate) fn refresh_held_locks() {
    let held = HELD.lock().map(|h| h.clone()).unwrap_or_default();
    for (path, id) in held {
        let Ok(f) = std::fs::OpenOptions::new().write(true).open(&path) else {
            continue;
        };
        if id.is_some() && f.metadata().ok().and_then(|m| file_id(&m)) == id {
            let _ = f.set_modified(std::time::SystemTime::now());
        }
    }
}

impl Drop for DotLock {
    fn drop(&mut self) {
        for (path, id) in self.files.drain(..).rev() {
            if let Ok(mut held) = HELD.lock() {
                held.retain(|(p, _)| *p != path);
            }
            remove_if_ours(&path, id);
        }
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
/// It also keeps the access time, which is not compared (reading the file
/// may change it), for the times of the file that replaces it
/// (doc/mailbox.md, "File times").
#[derive(Clone, Copy, Debug)]
pub struct FileStamp {
    id: Option<(u64, u64)>,
    len: u64,
    modified: Option<std::time::SystemTime>,
    accessed: Option<std::time::SystemTime>,
}

impl PartialEq for FileStamp {
    fn eq(&self, other: &Self) -> bool {
        (self.id, self.len, self.modified) == (other.id, other.len, other.modified)
    }
}

impl Eq for FileStamp {}

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
            accessed: m.accessed().ok(),
        }
    }

    /// This stamp with the access time `earlier` saw, when there is one:
    /// the stamp is taken once the dotlock is held, and looking at the
    /// file before that (is it an mbox?) may have set its access time.
    pub fn accessed_as(mut self, earlier: Option<FileStamp>) -> Self {
        if let Some(a) = earlier.and_then(|e| e.accessed) {
            self.accessed = Some(a);
        }
        self
    }

    /// The access and modification times it had, when the platform has
    /// both.
    pub(super) fn times(&self) -> Option<super::SourceTimes> {
        Some(super::SourceTimes {
            accessed: self.accessed?,
            modified: self.modified?,
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn mailbox(dir: &Path) -> PathBuf {
        let p = dir.join("inbox");
        std::fs::write(&p, b"From a@b Mon Jan  1 00:00:00 2001\n\nx\n\n").expect("write");
        p
    }

    /// A long run's lock was never touched: Dovecot overrides a lock when
    /// neither it nor the mailbox changed for two minutes, Postfix after
    /// 500 seconds. The held locks are now touched every LOCK_REFRESH.
    #[test]
    fn a_held_lock_is_kept_fresh() {
        let dir = tempfile::tempdir().expect("tmp");
        let inbox = mailbox(dir.path());
        let lock = DotLock::acquire(&inbox, Duration::ZERO).expect("lock");
        let old = std::time::SystemTime::now() - Duration::from_secs(3600);
        File::open(lock.path())
            .and_then(|f| f.set_modified(old))
            .expect("backdate");
        refresh_held_locks();
        let age = std::fs::metadata(lock.path())
            .and_then(|m| m.modified())
            .expect("mtime")
            .elapsed()
            .unwrap_or_default();
        assert!(age < Duration::from_secs(60), "{age:?}");
        let text = std::fs::read_to_string(lock.path()).expect("read");
        assert!(
            text.starts_with(&format!("{}:", std::process::id())) && text.ends_with('\n'),
            "Dovecot's form: {text:?}"
        );
    }

    /// For a mailbox that is a symbolic link the lock was taken beside the
    /// target only, while an MDA locks the name it was configured with.
    #[test]
    fn a_linked_mailbox_is_locked_beside_its_name_and_its_target() {
        let dir = tempfile::tempdir().expect("tmp");
        let real = mailbox(dir.path());
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).expect("ln");
        let lock = DotLock::acquire(&link, Duration::ZERO).expect("lock");
        assert!(lock_path(&link).exists() && lock_path(&real).exists());
        drop(lock);
        assert!(!lock_path(&link).exists() && !lock_path(&real).exists());
        // An MDA holds the name's lock: waited for, given up on, and the
        // target's lock is not left behind (nor the other way round).
        for held in [lock_path(&link), lock_path(&real)] {
            std::fs::write(&held, b"4242\n").expect("the MDA's lock");
            let e = DotLock::acquire(&link, Duration::from_millis(200)).expect_err("locked");
            assert!(matches!(e, MailboxError::Locked { .. }), "{e}");
            let other = if held == lock_path(&link) {
                lock_path(&real)
            } else {
                lock_path(&link)
            };
            assert!(!other.exists(), "{}", other.display());
            assert_eq!(std::fs::read(&held).expect("kept"), b"4242\n");
            std::fs::remove_file(&held).expect("unlock");
        }
    }

    /// A run killed with SIGKILL left its lock, and every later run gave up
    /// on it (75) until the user removed it. A lock in our form naming this
    /// host and a process that is gone is stale, and is removed; any other
    /// is waited for.
    #[test]
    fn our_own_stale_lock_is_removed_and_no_other() {
        let Some(host) = super::super::sys::hostname() else {
            return;
        };
        let dir = tempfile::tempdir().expect("tmp");
        let inbox = mailbox(dir.path());
        let path = lock_path(&inbox);
        let mut gone = std::process::Command::new("true").spawn().expect("spawn");
        let dead = gone.id();
        gone.wait().expect("wait");
        let mut alive = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("spawn");
        let cases = [
            (format!("{dead}:{host}\n"), true),
            (format!("{dead}:{host}"), true),
            (format!("{}:{host}\n", alive.id()), false),
            (format!("{}:{host}\n", std::process::id()), false),
            (format!("{dead}:another-host\n"), false),
            (format!("{dead}\n"), false),
            (String::new(), false),
        ];
        for (content, stale) in cases {
            std::fs::write(&path, &content).expect("write");
            let r = DotLock::acquire(&inbox, Duration::from_millis(200));
            assert_eq!(r.is_ok(), stale, "{content:?}");
            if stale {
                drop(r);
                assert!(!path.exists());
            } else {
                assert_eq!(std::fs::read_to_string(&path).expect("kept"), content);
            }
        }
        let _ = alive.kill();
        let _ = alive.wait();
    }
}
