//! Replacing one message file of a live Maildir or folder in place.
//!
//! The file was read a while ago; meanwhile an IMAP server may have renamed
//! it (`X:2,` to `X:2,S`, or from `new/` to `cur/`), the user may have
//! deleted it, or an MDA appended to it (an mbox file of a folder). The old
//! way, "is `X` still there? then rename the temporary over it", had a
//! window between the look and the rename: a rename in it left both the
//! renamed original and our `X` (a duplicate), a delete in it brought the
//! message back. Here:
//!
//! * On Linux, the temporary and `X` are swapped with
//!   `renameat2(RENAME_EXCHANGE)`: one atomic step, which fails if `X` is
//!   gone (then nothing is written back). The file that comes out under the
//!   temporary's name is then compared with what was read: the same (for
//!   an mbox file, the same with whole messages appended, which are copied
//!   to the end of the new file) and it is removed; anything else (the file
//!   was rewritten meanwhile) is swapped back, the other program's version
//!   kept.
//! * Elsewhere, or where the file system cannot swap (`EINVAL`), the
//!   window is narrowed: `X` is pinned with a hard link under a hidden
//!   name (which fails if it is gone), the pin's content compared with what
//!   was read, `X` checked to be the pinned file still, the temporary
//!   renamed over it; afterwards, if the old file has as many names as
//!   when it was pinned (the rename should have taken one), it got a new
//!   one meanwhile: when that name is in the same mailbox (its directory,
//!   or the other of `cur/` and `new/`) the original was moved, and our
//!   copy is removed again; elsewhere (a hard-link copy to another folder)
//!   ours stays. A name the file had before (a `cp -al` snapshot) counts
//!   in both numbers alike and is never taken for a move.
//!
//! The mbox files of a folder are also locked with their dotlock around
//! this, so that MDAs keep out. See doc/mailbox.md, "Crash safety".

use super::atomic::TimesRule;
use super::atomic::{
    NAME_MAX, TMP_SUFFIX, bounded_stem, copy_owner, hold, parent_of, resolve_link, sync_dir,
    tmp_prefix,
};
use super::lock::{DotLock, LOCK_WAIT};
use super::sys::{Swap, exchange, rename_noreplace};
use super::{MailboxError, SourceTimes};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What became of a message file replaced in place.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Replaced {
    /// The new bytes are in place.
    Done {
        /// Octets another program appended to the file (an mbox) since it
        /// was read, copied unchanged to the end of the new file.
        late: u64,
        /// A new name was asked for and the file could not be given it (it
        /// was moved meanwhile, or the name is taken): the new bytes are
        /// under the old (or the other program's) name.
        name_kept: bool,
    },
    /// Moved or deleted by another program before it could be replaced:
    /// left as that program left it, not written back.
    Gone,
    /// Changed by another program during the run (rewritten, moved at the
    /// last moment, or locked): its version is kept, ours dropped.
    Kept(&'static str),
    /// Only a new name was asked for ([`rename_message`]), and a file has
    /// it already: the message is left under its name.
    NameTaken,
}

/// Removes a file when dropped, unless disarmed.
struct Remove(Option<PathBuf>);

impl Remove {
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for Remove {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Replaces the message file `path`, read as `original`, with `bytes`, and
/// renames it to `new_path` (in the same directory) when given. `mbox`:
/// the file is an mbox (a folder's), taken with its dotlock, and whole
/// messages appended to it since it was read are kept.
///
/// The new file gets the owner, group and permissions of the file it
/// replaces, and times by `times`: a rule and the file's times as it was
/// read (when None, its times now, by an mbox's rule for `mbox`, else
/// the same).
pub(super) fn replace_message(
    path: &Path,
    new_path: Option<&Path>,
    original: &[u8],
    bytes: &[u8],
    mbox: bool,
    times: Option<(TimesRule, SourceTimes)>,
) -> io::Result<Replaced> {
    replace_with(
        path,
        new_path,
        original,
        bytes,
        mbox,
        times,
        Hooks::default(),
        true,
    )
}

/// Where tests stand in for another program, or for a full disk.
#[derive(Default, Clone, Copy)]
struct Hooks<'a> {
    /// Called at the last moment before the file is replaced.
    before_swap: Option<&'a dyn Fn()>,
    /// The portable way: called after the pinned file was checked, right
    /// before the temporary is renamed over it.
    before_put: Option<&'a dyn Fn()>,
    /// Copying what another program appended meanwhile to the new file
    /// fails (a full disk).
    fail_append: bool,
}

impl<'a> Hooks<'a> {
    #[cfg(test)]
    fn before(f: &'a dyn Fn()) -> Self {
        Hooks {
            before_swap: Some(f),
            ..Hooks::default()
        }
    }

    fn before_swap(&self) {
        if let Some(f) = self.before_swap {
            f();
        }
    }

    fn before_put(&self) {
        if let Some(f) = self.before_put {
            f();
        }
    }
}

/// Renames the message file `path`, read as `original` and not changed by
/// the run, to `new_path` (in the same directory): its size tags were
/// wrong for its content. With the care of a replacement: the rename never
/// replaces a file (`RENAME_NOREPLACE`), fails when the file was moved or
/// deleted meanwhile (then nothing is done), and the file it moved is
/// compared with what was read: rewritten meanwhile, and it gets its name
/// back. A symbolic link is left as it is (its name is not the file's).
pub(super) fn rename_message(
    path: &Path,
    new_path: &Path,
    original: &[u8],
) -> io::Result<Replaced> {
    rename_with(path, new_path, original, &|| {})
}

/// [`rename_message`]; `before` is called right before the rename.
fn rename_with(
    path: &Path,
    new_path: &Path,
    original: &[u8],
    before: &dyn Fn(),
) -> io::Result<Replaced> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            return Ok(Replaced::Done {
                late: 0,
                name_kept: false,
            });
        }
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Replaced::Gone),
        Err(e) => return Err(e),
    }
    let _critical = super::lock::critical();
    before();
    match rename_noreplace(path, new_path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Replaced::Gone),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(Replaced::NameTaken),
        Err(e) => return Err(e),
    }
    let moved = match std::fs::read(new_path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Replaced::Gone),
        Err(e) => return Err(e),
    };
    if moved != original {
        // Rewritten between the read and the rename: the tags were
        // computed for the old content. Its name back.
        return Ok(match rename_noreplace(new_path, path) {
            Ok(()) => Replaced::Kept(REWRITTEN),
            Err(_) => Replaced::Kept(
                "rewritten by another program during the run, and left under the name \
                 with the size tags of what was read",
            ),
        });
    }
    sync_dir(parent_of(path))?;
    Ok(Replaced::Done {
        late: 0,
        name_kept: false,
    })
}

/// [`replace_message`]; `hooks` stand in for other programs (tests), and
/// `swap` false takes the portable way.
#[allow(clippy::too_many_arguments)]
fn replace_with(
    path: &Path,
    new_path: Option<&Path>,
    original: &[u8],
    bytes: &[u8],
    mbox: bool,
    times: Option<(TimesRule, SourceTimes)>,
    hooks: Hooks<'_>,
    swap: bool,
) -> io::Result<Replaced> {
    // A symbolic link stays a link: its target is replaced, under its name.
    let resolved = resolve_link(path);
    let new_path = new_path.filter(|_| resolved == path);
    let given = path;
    let path = resolved.as_path();
    let dir = parent_of(path);
    // Beside the name given (where an MDA configured with it locks) and,
    // for a link, beside its target.
    let _lock = if mbox {
        match DotLock::acquire(given, LOCK_WAIT) {
            Ok(l) => Some(l),
            Err(MailboxError::Locked { .. }) => {
                return Ok(Replaced::Kept(
                    "locked by another program (its dotlock) past the time waited",
                ));
            }
            Err(e) => return Err(io::Error::other(e.to_string())),
        }
    } else {
        None
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Replaced::Gone),
        Err(e) => return Err(e),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(&tmp_prefix(path))
        .suffix(TMP_SUFFIX)
        .permissions(meta.permissions())
        .tempfile_in(dir)?;
    hold(tmp.as_file());
    // The owner and group of the file it replaces (`root:root` otherwise,
    // as root), then its permissions again (a change of owner may clear
    // set-id bits).
    copy_owner(tmp.as_file(), &meta);
    tmp.as_file().set_permissions(meta.permissions())?;
    tmp.write_all(bytes)?;
    // A Maildir message's received date is its modification time; an
    // mbox was modified (doc/mailbox.md, "File times").
    let times = times.or_else(|| {
        let rule = if mbox {
            TimesRule::Mbox
        } else {
            TimesRule::Keep
        };
        SourceTimes::of(&meta).map(|t| (rule, t))
    });
    if let Some((rule, t)) = times {
        rule.apply(tmp.as_file(), t)?;
    }
    tmp.as_file().sync_all()?;
    let (file, tmp_path) = tmp.keep().map_err(|e| e.error)?;
    let mut tmp_guard = Remove(Some(tmp_path.clone()));
    let ours = file.metadata()?;
    // An interrupting signal waits until this file is dealt with.
    let _critical = super::lock::critical();
    if swap {
        hooks.before_swap();
        match exchange(&tmp_path, path) {
            Ok(Swap::Done) => {
                let r = after_exchange(
                    path,
                    &tmp_path,
                    new_path,
                    original,
                    mbox,
                    &mut tmp_guard,
                    hooks,
                );
                sync_dir(dir)?;
                return r;
            }
            Ok(Swap::Unsupported) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Replaced::Gone),
            Err(e) => return Err(e),
        }
    }
    let r = pinned(
        path,
        &tmp_path,
        &ours,
        new_path,
        original,
        mbox,
        &mut tmp_guard,
        if swap {
            Hooks {
                before_swap: None,
                ..hooks
            }
        } else {
            hooks
        },
    );
    sync_dir(dir)?;
    r
}

/// Why a file is kept as another program left it: rewritten.
const REWRITTEN: &str = "rewritten by another program during the run";

/// Why an mbox file is kept as it is: what was read of it ended inside a
/// message being appended.
const HALF_DELIVERED: &str = "a message was being delivered to it when it was read \
     (not yet whole): left as it is";

/// What `now` (the file as it is) has beyond `original` (as it was read):
/// nothing when it is the same; for an mbox, the octets appended after it,
/// when they start a message right where `original` ended one
/// ([`starts_message`]). Otherwise why the file is left as it is: it was
/// rewritten, or `original` ended inside a message an MDA was still
/// appending (normalizing that half and appending the rest raw damaged the
/// message for good).
fn appended<'a>(now: &'a [u8], original: &[u8], mbox: bool) -> Result<&'a [u8], &'static str> {
    if now == original {
        Ok(&[])
    } else if mbox && now.starts_with(original) {
        let extra = &now[original.len()..];
        if starts_message(original, extra) {
            Ok(extra)
        } else {
            Err(HALF_DELIVERED)
        }
    } else {
        Err(REWRITTEN)
    }
}

/// Whether `extra`, appended to the mbox `original`, starts a message
/// where `original` ended one: `original` ends with an empty line and
/// `extra` starts with a `From ` line, or `original` ends with a line end
/// and `extra` with an empty line and a `From ` line. Anything else may be
/// the rest of a message whose first part was read: a body line starting
/// with `From ` is quoted by the MDA, so the rest of a message does not
/// start so. (A last message with no empty line after it, then a
/// delivery, is taken for such a half too: the file is left as it is,
/// and a re-run normalizes it.)
fn starts_message(original: &[u8], extra: &[u8]) -> bool {
    let blank_end = original.ends_with(b"\n\n") || original.ends_with(b"\n\r\n");
    if extra.starts_with(b"From ") {
        return original.is_empty() || blank_end;
    }
    [&b"\n"[..], b"\r\n"].iter().any(|nl| {
        extra
            .strip_prefix(*nl)
            .is_some_and(|rest| rest.starts_with(b"From "))
    }) && original.ends_with(b"\n")
}

/// Appends `extra` to the file at `path` (the new file), synced.
fn append(path: &Path, extra: &[u8], hooks: Hooks<'_>) -> io::Result<()> {
    if hooks.fail_append {
        return Err(io::Error::other("no space left on device (a test's)"));
    }
    let mut f = std::fs::OpenOptions::new().append(true).open(path)?;
    f.write_all(extra)?;
    f.sync_all()
}

/// The name an old file that holds mail the mailbox lacks is kept under
/// when it cannot be put back: `.NAME.mailcharset-kept` beside it (then
/// `.1`, `.2` ...), hidden from the readers and from mail clients like a
/// backup, and never removed by a later run (it is no temporary). Returns
/// where the file is now: there, or where it was if no such name could be
/// had.
fn keep_aside(file: &Path, mailbox: &Path) -> PathBuf {
    const KEPT: &str = ".mailcharset-kept";
    // Room for `.NN` too.
    let stem = bounded_stem(mailbox, NAME_MAX - 1 - KEPT.len() - 3);
    let base = parent_of(mailbox).join(format!(".{stem}{KEPT}"));
    for n in 0..100 {
        let to = if n == 0 {
            base.clone()
        } else {
            let mut s = base.clone().into_os_string();
            s.push(format!(".{n}"));
            PathBuf::from(s)
        };
        match rename_noreplace(file, &to) {
            Ok(()) => return to,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(_) => break,
        }
    }
    file.to_path_buf()
}

/// The error of a failed copy of what another program appended, said with
/// what became of the file.
fn append_failed(e: io::Error, what: String) -> io::Error {
    io::Error::new(e.kind(), format!("{e}; {what}"))
}

/// The swap is done: `path` holds the new bytes, `tmp_path` what was at
/// `path` a moment ago.
fn after_exchange(
    path: &Path,
    tmp_path: &Path,
    new_path: Option<&Path>,
    original: &[u8],
    mbox: bool,
    tmp_guard: &mut Remove,
    hooks: Hooks<'_>,
) -> io::Result<Replaced> {
    let old = match std::fs::read(tmp_path) {
        Ok(b) => b,
        Err(e) => {
            // Cannot tell what we replaced: put it back.
            if exchange(tmp_path, path).is_err() {
                tmp_guard.disarm();
            }
            return Err(e);
        }
    };
    let extra = match appended(&old, original, mbox) {
        Ok(extra) => extra,
        // Rewritten by another program since it was read (or read halfway
        // through a delivery): its version goes back under its name, ours
        // is dropped.
        Err(why) => {
            return match exchange(tmp_path, path) {
                Ok(Swap::Done) => Ok(Replaced::Kept(why)),
                _ => {
                    // Our copy was moved away meanwhile (under its new name it
                    // holds the normalized old version): theirs must not go
                    // with the temporary, it gets its name back.
                    tmp_guard.disarm();
                    rename_noreplace(tmp_path, path)?;
                    Ok(Replaced::Kept(
                        "rewritten and moved by other programs during the run; \
                         both versions kept",
                    ))
                }
            };
        }
    };
    if !extra.is_empty()
        && let Err(e) = append(path, extra, hooks)
    {
        // The mail delivered meanwhile is only in the old file (at the
        // temporary's name): it goes back under its name, never with the
        // temporary.
        return Err(match exchange(tmp_path, path) {
            Ok(Swap::Done) => append_failed(
                e,
                "the file is as it was, with the mail delivered during the run; not \
                 normalized"
                    .into(),
            ),
            _ => {
                tmp_guard.disarm();
                let kept = keep_aside(tmp_path, path);
                append_failed(
                    e,
                    format!(
                        "the mail delivered during the run is in {} (the file as it was); \
                         move it back",
                        kept.display()
                    ),
                )
            }
        });
    }
    let name_kept = match new_path {
        Some(np) if np != path => rename_noreplace(path, np).is_err(),
        _ => false,
    };
    // The old file (at the temporary's name) goes with the guard.
    Ok(Replaced::Done {
        late: extra.len() as u64,
        name_kept,
    })
}

/// The portable way: the original pinned by a hard link, checked, then
/// replaced; a duplicate we made is removed again.
#[allow(clippy::too_many_arguments)]
fn pinned(
    path: &Path,
    tmp_path: &Path,
    ours: &std::fs::Metadata,
    new_path: Option<&Path>,
    original: &[u8],
    mbox: bool,
    tmp_guard: &mut Remove,
    hooks: Hooks<'_>,
) -> io::Result<Replaced> {
    let dir = parent_of(path);
    // A name of our temporaries' pattern: a killed run's pin is removed by
    // the next run like its temporaries (it is a second link, or the old
    // version of a file already replaced).
    let pin = tempfile::Builder::new()
        .prefix(&tmp_prefix(path))
        .suffix(TMP_SUFFIX)
        .tempfile_in(dir)?
        .into_temp_path();
    let pin_path = pin.to_path_buf();
    pin.close()?;
    let target = new_path.filter(|np| *np != path).unwrap_or(path);
    match std::fs::hard_link(path, &pin_path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Replaced::Gone),
        // No hard links here: the check and the rename, as close together
        // as they can be.
        Err(_) => {
            hooks.before_swap();
            let now = match std::fs::read(path) {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Replaced::Gone),
                Err(e) => return Err(e),
            };
            let extra = match appended(&now, original, mbox) {
                Ok(extra) => extra,
                Err(why) => return Ok(Replaced::Kept(why)),
            };
            // Onto the temporary, before it is put in place: should that
            // fail, the file is as it was.
            if !extra.is_empty() {
                append(tmp_path, extra, hooks).map_err(|e| {
                    append_failed(e, "the file is as it was; not normalized".into())
                })?;
            }
            put(tmp_path, path, target)?;
            tmp_guard.disarm();
            return Ok(Replaced::Done {
                late: extra.len() as u64,
                name_kept: false,
            });
        }
    }
    let mut pin_guard = Remove(Some(pin_path.clone()));
    // The old file's names now: `X`, the pin, and any the file had already
    // (a `cp -al` snapshot, a hard-link copy to another folder).
    let pin_meta = std::fs::metadata(&pin_path)?;
    let pinned_links = links(&pin_meta);
    hooks.before_swap();
    let old = std::fs::read(&pin_path)?;
    if let Err(why) = appended(&old, original, mbox) {
        return Ok(Replaced::Kept(why));
    }
    // The name still is the file pinned: not moved, deleted or replaced.
    match std::fs::metadata(path) {
        Ok(m) if same(&m, &std::fs::metadata(&pin_path)?) => {}
        Ok(_) => return Ok(Replaced::Kept("replaced by another program during the run")),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Replaced::Gone),
        Err(e) => return Err(e),
    }
    hooks.before_put();
    put(tmp_path, path, target)?;
    tmp_guard.disarm();
    // The rename took the name `X` from the old file: one name fewer than
    // when it was pinned. As many as then: it got another name meanwhile,
    // either moved (renamed with new flags) between the check and the
    // rename, and then ours is a duplicate, or linked elsewhere (a copy to
    // another folder), and then ours is this mailbox's only copy. A name
    // the file had before the pin (a snapshot's hard link) counts in both
    // numbers alike: it was taken for a move, and the message deleted.
    if links(&std::fs::metadata(&pin_path)?) >= pinned_links
        && other_name(path, &pin_path, &pin_meta)
    {
        if std::fs::metadata(target).is_ok_and(|m| same(&m, ours)) {
            let _ = std::fs::remove_file(target);
        }
        return Ok(Replaced::Kept(
            "moved by another program during the run; its version kept",
        ));
    }
    // What an MDA appended to the old file until now (an mbox).
    let now = std::fs::read(&pin_path)?;
    let extra = match appended(&now, original, mbox) {
        Ok(extra) => extra,
        // Changed between the check and the rename (it was dropped with the
        // pin): the old file goes back under its name, ours goes.
        Err(why) => {
            pin_guard.disarm();
            if let Err(e) = std::fs::rename(&pin_path, path) {
                let kept = keep_aside(&pin_path, path);
                return Err(append_failed(
                    e,
                    format!(
                        "changed by another program during the run; its version is in {}",
                        kept.display()
                    ),
                ));
            }
            if target != path {
                let _ = std::fs::remove_file(target);
            }
            return Ok(Replaced::Kept(why));
        }
    };
    if !extra.is_empty()
        && let Err(e) = append(target, extra, hooks)
    {
        // The mail delivered meanwhile is only in the old file (the pin):
        // it goes back under its name, ours goes.
        pin_guard.disarm();
        return Err(match std::fs::rename(&pin_path, path) {
            Ok(()) => {
                if target != path {
                    let _ = std::fs::remove_file(target);
                }
                append_failed(
                    e,
                    "the file is as it was, with the mail delivered during the run; not \
                     normalized"
                        .into(),
                )
            }
            Err(_) => {
                let kept = keep_aside(&pin_path, path);
                append_failed(
                    e,
                    format!(
                        "the mail delivered during the run is in {} (the file as it was); \
                         move it back",
                        kept.display()
                    ),
                )
            }
        });
    }
    Ok(Replaced::Done {
        late: extra.len() as u64,
        name_kept: false,
    })
}

/// Whether the file pinned at `pin` (`pin_meta`) has another name in the
/// mailbox `path` is in: the name another program moved it to. Looked for in the
/// directory of `path` and, in a Maildir's `cur/` or `new/`, in the other
/// one of the two (a server moves a message from `new/` to `cur/`).
#[cfg(unix)]
fn other_name(path: &Path, pin: &Path, pin_meta: &std::fs::Metadata) -> bool {
    let dir = parent_of(path);
    let mut dirs = vec![dir.to_path_buf()];
    let sibling = match dir.file_name().and_then(|n| n.to_str()) {
        Some("cur") => Some("new"),
        Some("new") => Some("cur"),
        _ => None,
    };
    if let (Some(s), Some(up)) = (sibling, dir.parent()) {
        dirs.push(up.join(s));
    }
    for d in dirs {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p == pin || p == path {
                continue;
            }
            if std::fs::symlink_metadata(&p).is_ok_and(|m| same(&m, pin_meta)) {
                return true;
            }
        }
    }
    false
}

/// Without inode numbers a move cannot be told from a second link: the
/// copy made is kept.
#[cfg(not(unix))]
fn other_name(_path: &Path, _pin: &Path, _pin_meta: &std::fs::Metadata) -> bool {
    false
}

/// Puts the temporary in place: over `path`, or under the new name
/// `target` (never over a file there) and `path` removed.
fn put(tmp_path: &Path, path: &Path, target: &Path) -> io::Result<()> {
    if target == path {
        return std::fs::rename(tmp_path, path);
    }
    rename_noreplace(tmp_path, target)?;
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(unix)]
fn same(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
}

#[cfg(unix)]
fn links(m: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    m.nlink()
}

#[cfg(not(unix))]
fn links(_m: &std::fs::Metadata) -> u64 {
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &[u8] = b"Subject: caf\xe9\n\ncaf\xe9\n";
    const NEW: &[u8] = b"Subject: =?utf-8?q?caf=C3=A9?=\n\ncaf\xc3\xa9\n";

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// Each race, both ways (the swap, and the portable pin).
    #[test]
    fn a_message_moved_deleted_or_rewritten_meanwhile_is_left_as_the_other_program_left_it() {
        for swap in [true, false] {
            // Nothing happens: replaced.
            let dir = tempfile::tempdir().expect("tmp");
            let x = dir.path().join("1.host:2,");
            std::fs::write(&x, OLD).expect("write");
            let r = replace_with(&x, None, OLD, NEW, false, None, Hooks::default(), swap)
                .expect("replace");
            assert_eq!(
                r,
                Replaced::Done {
                    late: 0,
                    name_kept: false
                },
                "{swap}"
            );
            assert_eq!(std::fs::read(&x).expect("read"), NEW);
            assert_eq!(names(dir.path()), ["1.host:2,"], "{swap}");

            // The IMAP server sets a flag (renames it) at the last moment:
            // one message, the server's name, never a duplicate.
            let dir = tempfile::tempdir().expect("tmp");
            let x = dir.path().join("1.host:2,");
            let seen = dir.path().join("1.host:2,S");
            std::fs::write(&x, OLD).expect("write");
            let mv = || std::fs::rename(&x, &seen).expect("server's rename");
            let r = replace_with(&x, None, OLD, NEW, false, None, Hooks::before(&mv), swap)
                .expect("replace");
            assert_eq!(r, Replaced::Gone, "{swap}");
            assert_eq!(names(dir.path()), ["1.host:2,S"], "{swap}");
            assert_eq!(std::fs::read(&seen).expect("read"), OLD);

            // The user deletes it: it does not come back.
            let dir = tempfile::tempdir().expect("tmp");
            let x = dir.path().join("1.host:2,");
            std::fs::write(&x, OLD).expect("write");
            let rm = || std::fs::remove_file(&x).expect("expunge");
            let r = replace_with(&x, None, OLD, NEW, false, None, Hooks::before(&rm), swap)
                .expect("replace");
            assert_eq!(r, Replaced::Gone, "{swap}");
            assert_eq!(names(dir.path()), Vec::<String>::new(), "{swap}");

            // Another program rewrites it: its version stays.
            let dir = tempfile::tempdir().expect("tmp");
            let x = dir.path().join("1.host:2,");
            std::fs::write(&x, OLD).expect("write");
            let theirs = b"Subject: edited\n\nx\n";
            let edit = || {
                let t = dir.path().join("edit");
                std::fs::write(&t, theirs).expect("write");
                std::fs::rename(&t, &x).expect("their rename");
            };
            let r = replace_with(&x, None, OLD, NEW, false, None, Hooks::before(&edit), swap)
                .expect("replace");
            assert!(matches!(r, Replaced::Kept(_)), "{swap}: {r:?}");
            assert_eq!(std::fs::read(&x).expect("read"), theirs);
            assert_eq!(names(dir.path()), ["1.host:2,"], "{swap}");

            // An mbox file an MDA appends to: the new message kept at the end.
            let dir = tempfile::tempdir().expect("tmp");
            let x = dir.path().join("inbox");
            let old = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: caf\xe9\n\n\xe9\n\n";
            let new = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: new\n\n\xc3\xa9\n\n";
            let more = b"From c@d Mon Jan  1 00:00:00 2001\nSubject: more\n\nx\n\n";
            std::fs::write(&x, old).expect("write");
            let deliver = || {
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&x)
                    .expect("open");
                f.write_all(more).expect("append");
            };
            let r = replace_with(
                &x,
                None,
                old,
                new,
                true,
                None,
                Hooks::before(&deliver),
                swap,
            )
            .expect("replace");
            assert_eq!(
                r,
                Replaced::Done {
                    late: more.len() as u64,
                    name_kept: false
                },
                "{swap}"
            );
            let mut want = new.to_vec();
            want.extend_from_slice(more);
            assert_eq!(std::fs::read(&x).expect("read"), want, "{swap}");
            assert_eq!(names(dir.path()), ["inbox"], "{swap}");
        }
    }

    /// The portable way (no RENAME_EXCHANGE: NFS, other systems, EINVAL)
    /// took a link count above one on the pin after the rename for "moved
    /// meanwhile" and removed its own copy: a message file with a second
    /// hard link (a `cp -al` snapshot, Dovecot's hard-link copy to another
    /// folder) was deleted from the mailbox. The count is now compared
    /// with the one the pin saw, and a move is told by the other name
    /// being in the same mailbox.
    #[test]
    fn a_second_hard_link_is_not_taken_for_a_move_the_portable_way() {
        for swap in [true, false] {
            for (name, mbox, old, new) in [
                ("1.host:2,S", false, OLD, NEW),
                (
                    "inbox",
                    true,
                    &b"From a@b Mon Jan  1 00:00:00 2001\nSubject: caf\xe9\n\n\xe9\n\n"[..],
                    &b"From a@b Mon Jan  1 00:00:00 2001\nSubject: new\n\n\xc3\xa9\n\n"[..],
                ),
            ] {
                let dir = tempfile::tempdir().expect("tmp");
                let cur = dir.path().join("md/cur");
                let snap = dir.path().join("snapshot");
                std::fs::create_dir_all(&cur).expect("mkdir");
                std::fs::create_dir_all(&snap).expect("mkdir");
                let x = cur.join(name);
                std::fs::write(&x, old).expect("write");
                std::fs::hard_link(&x, snap.join(name)).expect("snapshot");
                let r = replace_with(&x, None, old, new, mbox, None, Hooks::default(), swap)
                    .expect("replace");
                assert_eq!(
                    r,
                    Replaced::Done {
                        late: 0,
                        name_kept: false
                    },
                    "{swap} {name}"
                );
                assert_eq!(std::fs::read(&x).expect("kept"), new, "{swap} {name}");
                assert_eq!(std::fs::read(snap.join(name)).expect("snap"), old);
                assert_eq!(names(&cur), [name], "{swap} {name}");

                // Another program links it into another folder right
                // before the rename: ours is this folder's copy.
                let dir = tempfile::tempdir().expect("tmp");
                let cur = dir.path().join("md/cur");
                let other = dir.path().join("md/.Copy/cur");
                std::fs::create_dir_all(&cur).expect("mkdir");
                std::fs::create_dir_all(&other).expect("mkdir");
                let x = cur.join(name);
                std::fs::write(&x, old).expect("write");
                let copy = || std::fs::hard_link(&x, other.join(name)).expect("copy");
                let hooks = Hooks {
                    before_put: Some(&copy),
                    ..Hooks::default()
                };
                let r =
                    replace_with(&x, None, old, new, mbox, None, hooks, false).expect("replace");
                assert!(matches!(r, Replaced::Done { .. }), "{name}: {r:?}");
                assert_eq!(std::fs::read(&x).expect("kept"), new, "{name}");
                assert_eq!(std::fs::read(other.join(name)).expect("copy"), old);
            }
        }
    }

    /// What the link count was for: a move between the check and the
    /// rename still leaves one message, the mover's, also when the file
    /// has a second hard link.
    #[test]
    fn a_move_right_before_the_rename_leaves_no_duplicate_the_portable_way() {
        for snapshot in [false, true] {
            let dir = tempfile::tempdir().expect("tmp");
            let md = dir.path().join("md");
            for sub in ["cur", "new"] {
                std::fs::create_dir_all(md.join(sub)).expect("mkdir");
            }
            let x = md.join("new/1.host");
            let seen = md.join("cur/1.host:2,S");
            std::fs::write(&x, OLD).expect("write");
            if snapshot {
                std::fs::hard_link(&x, dir.path().join("snap")).expect("snapshot");
            }
            let mv = || std::fs::rename(&x, &seen).expect("server's move");
            let hooks = Hooks {
                before_put: Some(&mv),
                ..Hooks::default()
            };
            let r = replace_with(&x, None, OLD, NEW, false, None, hooks, false).expect("replace");
            assert!(matches!(r, Replaced::Kept(_)), "{snapshot}: {r:?}");
            assert_eq!(names(&md.join("new")), Vec::<String>::new(), "{snapshot}");
            assert_eq!(names(&md.join("cur")), ["1.host:2,S"], "{snapshot}");
            assert_eq!(std::fs::read(&seen).expect("read"), OLD);
        }
    }

    /// A folder's mbox read while an MDA was halfway through appending a
    /// message: the half was normalized, the rest appended raw after it
    /// ("whole messages appended"), one message damaged for good. What
    /// came after what was read must start a message where the read part
    /// ended one; otherwise the file is left as it is.
    #[test]
    fn the_rest_of_a_message_half_read_is_never_appended_to_a_normalized_half() {
        let whole = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: one\n\nx\n\n";
        let mut half = whole.to_vec();
        half.extend_from_slice(
            b"From mda@x Mon Jan  1 00:00:02 2001\nSubject: caf\xe9\n\nPremi\xe8re\n",
        );
        let rest = b"Deuxi\xe8me\n\n";
        let new = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: one\n\nx\n\nFrom mda@x Mon Jan  1 00:00:02 2001\nSubject: =?UTF-8?B?Y2Fmw6k=?=\n\nPremi\xc3\xa8re\n";
        for swap in [true, false] {
            // `late`: the portable way only (the swap has no such moment).
            for late in [false, !swap] {
                let dir = tempfile::tempdir().expect("tmp");
                let x = dir.path().join("inbox");
                std::fs::write(&x, &half).expect("write");
                let deliver = || {
                    let mut f = std::fs::OpenOptions::new()
                        .append(true)
                        .open(&x)
                        .expect("open");
                    f.write_all(rest).expect("the rest of the delivery");
                };
                // Before the swap, or (the portable way) after the check,
                // right before the rename.
                let hooks = if late {
                    Hooks {
                        before_put: Some(&deliver),
                        ..Hooks::default()
                    }
                } else {
                    Hooks::before(&deliver)
                };
                let r =
                    replace_with(&x, None, &half, new, true, None, hooks, swap).expect("replace");
                assert_eq!(r, Replaced::Kept(HALF_DELIVERED), "{swap} {late}");
                let mut want = half.clone();
                want.extend_from_slice(rest);
                assert_eq!(std::fs::read(&x).expect("read"), want, "{swap} {late}");
                assert_eq!(names(dir.path()), ["inbox"], "{swap} {late}");
            }
        }
        assert!(starts_message(b"", b"From a"));
        assert!(starts_message(b"x\n\n", b"From a"));
        assert!(starts_message(b"x\r\n\r\n", b"From a"));
        assert!(starts_message(b"x\n", b"\nFrom a"));
        assert!(starts_message(b"x\r\n", b"\r\nFrom a"));
        assert!(!starts_message(b"x\n", b"From a"), "no empty line between");
        assert!(!starts_message(b"x", b"\nFrom a"), "inside a line");
        assert!(!starts_message(b"x\n\n", b"more text\n"));
    }

    /// After the swap, copying the mail an MDA appended meanwhile failed (a
    /// full disk), and the error path removed the temporary: the old file,
    /// the only one holding that mail. The old file now goes back under
    /// its name.
    #[test]
    fn a_failed_copy_of_mail_delivered_meanwhile_puts_the_old_file_back() {
        let old = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: caf\xe9\n\n\xe9\n\n";
        let new = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: new\n\n\xc3\xa9\n\n";
        let more = b"From c@d Mon Jan  1 00:00:00 2001\nSubject: more\n\nx\n\n";
        for swap in [true, false] {
            let dir = tempfile::tempdir().expect("tmp");
            let x = dir.path().join("inbox");
            std::fs::write(&x, old).expect("write");
            let deliver = || {
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&x)
                    .expect("open");
                f.write_all(more).expect("append");
            };
            let hooks = Hooks {
                before_swap: Some(&deliver),
                fail_append: true,
                ..Hooks::default()
            };
            let e =
                replace_with(&x, None, old, new, true, None, hooks, swap).expect_err("full disk");
            let mut want = old.to_vec();
            want.extend_from_slice(more);
            assert_eq!(std::fs::read(&x).expect("read"), want, "{swap}");
            assert_eq!(names(dir.path()), ["inbox"], "{swap}");
            assert!(e.to_string().contains("as it was"), "{swap}: {e}");
        }
    }

    /// Stale size tags on a file the run does not change are put right by
    /// a rename, with the care of a replacement.
    #[test]
    fn a_rename_for_size_tags_only_moves_what_was_read() {
        let dir = tempfile::tempdir().expect("tmp");
        let x = dir.path().join("1.host,S=1:2,S");
        let right = dir.path().join("1.host,S=19:2,S");
        std::fs::write(&x, OLD).expect("write");
        let r = rename_with(&x, &right, OLD, &|| {}).expect("rename");
        assert!(matches!(r, Replaced::Done { .. }), "{r:?}");
        assert_eq!(names(dir.path()), ["1.host,S=19:2,S"]);
        assert_eq!(std::fs::read(&right).expect("read"), OLD);

        // Rewritten right before: it keeps its name.
        std::fs::rename(&right, &x).expect("back");
        let edit = || std::fs::write(&x, NEW).expect("their rewrite");
        let r = rename_with(&x, &right, OLD, &edit).expect("rename");
        assert_eq!(r, Replaced::Kept(REWRITTEN));
        assert_eq!(names(dir.path()), ["1.host,S=1:2,S"]);
        assert_eq!(std::fs::read(&x).expect("read"), NEW);

        // Moved right before: nothing done; the name taken: left.
        let mv = || std::fs::rename(&x, dir.path().join("1.host,S=1:2,ST")).expect("mv");
        let r = rename_with(&x, &right, NEW, &mv).expect("rename");
        assert_eq!(r, Replaced::Gone);
        let x = dir.path().join("1.host,S=1:2,ST");
        std::fs::write(&right, b"another").expect("write");
        let r = rename_with(&x, &right, NEW, &|| {}).expect("rename");
        assert_eq!(r, Replaced::NameTaken);
        assert_eq!(std::fs::read(&x).expect("read"), NEW);
        assert_eq!(std::fs::read(&right).expect("read"), b"another");
    }
}
