//! Readers for Maildirs, folders of message files and single messages.

use super::{MailboxError, MaildirSubdir, Origin, RawMessage, SkipLog, SkipReason, SourceTimes};
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Reads a Maildir: `cur/` then `new/`, each in file-name order, then the
/// same for each folder, in name order. Folders are Maildir++ folders (a
/// `.Name` directory with a `cur/`) and, as Dovecot's `LAYOUT=fs` and
/// notmuch keep them, plain subdirectories that are Maildirs themselves, at
/// any depth (`Lists/mips`). `tmp/` (mail still being delivered), dot files
/// and server state files (`dovecot*`, `courier*`, `subscriptions`,
/// `maildirfolder`, `maildirsize`) are passed over; any other file outside
/// `cur/` and `new/` is listed in [`MaildirReader::skipped`]. Folder and file
/// names, and so the `:2,FLAGS` info, are kept in [`Origin::Maildir`].
///
/// A live Maildir changes while it is read: a file listed but gone when its
/// turn comes is looked for under its unique name (the part before `:`) in
/// `cur/` (a server that moved it from `new/` or changed its flags), and
/// read there; only if it is nowhere is it skipped as
/// [`SkipReason::Vanished`].
///
/// A directory under the Maildir that cannot be listed (permission denied,
/// an I/O error: a `new/`, a folder, a folder's `cur/`) is passed over: the
/// reader gives an [`MailboxError::Io`] naming it before the first message,
/// then the messages of the others (one such directory ended the whole run;
/// doc/mailbox.md). So does a message file that cannot be looked at or
/// read. Only the Maildir itself not being readable fails [`Self::open`].
pub struct MaildirReader {
    root: PathBuf,
    folders: Vec<OsString>,
    entries: std::vec::IntoIter<MaildirEntry>,
    /// Directories (and files) that could not be listed or looked at,
    /// given before the messages.
    unreadable: std::vec::IntoIter<MailboxError>,
    total: u64,
    index: usize,
    pub(crate) skipped: SkipLog,
}

/// A message file found when the Maildir was opened: its folder (an index
/// into `folders`, or `None` for the top level), subdirectory, name and
/// size.
type MaildirEntry = (Option<usize>, MaildirSubdir, OsString, u64);

/// Files a mail server keeps in a Maildir that are not mail.
fn is_server_state(name: &[u8]) -> bool {
    name.starts_with(b"dovecot")
        || name.starts_with(b"courier")
        || matches!(name, b"subscriptions" | b"maildirfolder" | b"maildirsize")
}

impl MaildirReader {
    /// Lists the Maildir at `root` (its folders, and the files of each `cur/` and `new/`).
    pub fn open(root: &Path) -> Result<Self, MailboxError> {
        let skipped = SkipLog::default();
        let mut unreadable = Vec::new();
        let folders = scan_folders(root, &skipped, &mut unreadable)?;
        let mut entries = Vec::new();
        let tops = std::iter::once(None).chain((0..folders.len()).map(Some));
        for folder in tops {
            let base = match folder {
                Some(i) => root.join(&folders[i]),
                None => root.to_path_buf(),
            };
            for sub in [MaildirSubdir::Cur, MaildirSubdir::New] {
                let dir = base.join(sub.as_str());
                let mut names = Vec::new();
                let rd = match std::fs::read_dir(&dir) {
                    Ok(rd) => rd,
                    // A folder may lack `new/` (the top level may not).
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        if folder.is_some() {
                            continue;
                        }
                        return Err(MailboxError::io(&dir, None, e));
                    }
                    // Unreadable: named, and the others are read.
                    Err(e) => {
                        unreadable.push(MailboxError::io(&dir, None, e));
                        continue;
                    }
                };
                for ent in listing(&dir, rd, &mut unreadable) {
                    let name = ent.file_name();
                    if name.as_encoded_bytes().starts_with(b".") {
                        continue;
                    }
                    // Follows a symlinked message file.
                    let Some(meta) = stat(&ent, &skipped, &mut unreadable) else {
                        continue;
                    };
                    if meta.is_file() {
                        names.push((folder, sub, name, meta.len()));
                    } else if meta.is_dir() {
                        skipped.push(ent.path(), SkipReason::NotInMaildir);
                    } else {
                        skipped.push(ent.path(), SkipReason::NotARegularFile);
                    }
                }
                names.sort_by(|a, b| a.2.cmp(&b.2));
                entries.extend(names);
            }
        }
        let total = entries.iter().map(|e| e.3).sum();
        // In path order, whatever order the system listed them in.
        unreadable.sort_by(|a, b| a.path().cmp(b.path()));
        Ok(MaildirReader {
            root: root.to_path_buf(),
            folders,
            entries: entries.into_iter(),
            unreadable: unreadable.into_iter(),
            total,
            index: 0,
            skipped,
        })
    }

    /// The folders found, in name order (with or without messages):
    /// Maildir++ names (`.Sent`) and `LAYOUT=fs` paths (`Lists/mips`).
    pub fn folders(&self) -> &[OsString] {
        &self.folders
    }

    pub(crate) fn total_bytes(&self) -> u64 {
        self.total
    }

    /// The files passed over so far.
    pub fn skipped(&self) -> SkipLog {
        self.skipped.clone()
    }

    /// A message listed as `sub/name` that is gone: the same unique name in
    /// `cur/` (moved from `new/`, or its flags changed).
    fn renamed(&self, base: &Path, name: &OsStr) -> Option<(MaildirSubdir, OsString)> {
        let unique = name.as_encoded_bytes().split(|&b| b == b':').next()?;
        let rd = std::fs::read_dir(base.join(MaildirSubdir::Cur.as_str())).ok()?;
        rd.flatten().map(|e| e.file_name()).find_map(|n| {
            let b = n.as_encoded_bytes();
            (b.starts_with(unique) && matches!(b.get(unique.len()), None | Some(b':')))
                .then(|| (MaildirSubdir::Cur, n.clone()))
        })
    }
}

/// The metadata of an entry (a symbolic link followed), or None when it
/// points nowhere, loops, or is gone (listed in `skipped`), or cannot be
/// looked at (permission denied on the way to a link's target: kept in
/// `unreadable`).
fn stat(
    ent: &std::fs::DirEntry,
    skipped: &SkipLog,
    unreadable: &mut Vec<MailboxError>,
) -> Option<std::fs::Metadata> {
    match std::fs::metadata(ent.path()) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound || link_loops(&ent.path()) => {
            skipped.push(ent.path(), gone(ent));
            None
        }
        Err(e) => {
            unreadable.push(MailboxError::io(ent.path(), None, e));
            None
        }
    }
}

/// The entries of the directory `dir`, or none when it cannot be listed
/// (permission denied, an I/O error): the error is kept in `unreadable`
/// and the reader goes on with the other directories. (One such directory
/// ended the whole run.)
fn list_dir(dir: &Path, unreadable: &mut Vec<MailboxError>) -> Vec<std::fs::DirEntry> {
    match std::fs::read_dir(dir) {
        Ok(rd) => listing(dir, rd, unreadable),
        Err(e) => {
            unreadable.push(MailboxError::io(dir, None, e));
            Vec::new()
        }
    }
}

/// The entries `rd` of `dir` gives; an error partway ends the listing, is
/// kept in `unreadable`, and the entries listed before it are kept.
fn listing(
    dir: &Path,
    rd: std::fs::ReadDir,
    unreadable: &mut Vec<MailboxError>,
) -> Vec<std::fs::DirEntry> {
    let mut ents = Vec::new();
    for ent in rd {
        match ent {
            Ok(ent) => ents.push(ent),
            Err(e) => {
                unreadable.push(MailboxError::io(dir, None, e));
                break;
            }
        }
    }
    ents
}

/// Why a directory entry could not be looked at: a link that loops, a link
/// to nothing, or a file gone meanwhile.
fn gone(ent: &std::fs::DirEntry) -> SkipReason {
    if !ent.file_type().is_ok_and(|t| t.is_symlink()) {
        SkipReason::Vanished
    } else if link_loops(&ent.path()) {
        SkipReason::LinkLoop
    } else {
        SkipReason::DanglingLink
    }
}

/// Whether the symbolic link at `path` loops: following it link by link
/// comes back to a link already seen, or goes on past 64 links (where the
/// system gives up too). `ErrorKind::FilesystemLoop` is not stable yet, so
/// the chain is followed here rather than the error's kind read.
fn link_loops(path: &Path) -> bool {
    let mut seen = std::collections::HashSet::new();
    let mut at = path.to_path_buf();
    for _ in 0..64 {
        if !seen.insert(at.clone()) {
            return true;
        }
        match std::fs::read_link(&at) {
            // A relative target is relative to the link's directory; an
            // absolute one replaces the path.
            Ok(target) => at = at.parent().map_or(target.clone(), |d| d.join(&target)),
            // Not a link (or unreadable): the chain ends there, unless a
            // directory on the way to it loops (`a -> loop/x`).
            Err(_) => return std::fs::metadata(&at).is_err_and(|e| is_eloop(&e)),
        }
    }
    true
}

/// Whether `e` is the system's "too many levels of symbolic links"
/// (`ELOOP`; `ErrorKind::FilesystemLoop` is not stable yet). False where
/// there is no such error number.
fn is_eloop(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    return e.raw_os_error() == Some(libc::ELOOP);
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// The folders of the Maildir at `root`: Maildir++ folders (`.Name` with a
/// `cur/`), and plain subdirectories that are Maildirs (`LAYOUT=fs`,
/// notmuch), recursively, named by their path from `root`. Files at a
/// Maildir's level that are not server state, and files in directories that
/// hold no Maildir, go to `skipped`. A symbolic link is not a folder (it may
/// point back into the Maildir, or out of it). A directory below `root`
/// that cannot be listed, and a dot directory at the top that cannot be
/// looked into (a Maildir++ folder, as far as can be told), go to
/// `unreadable`; only `root` itself not being readable is an error.
fn scan_folders(
    root: &Path,
    skipped: &SkipLog,
    unreadable: &mut Vec<MailboxError>,
) -> Result<Vec<OsString>, MailboxError> {
    let mut folders = Vec::new();
    let mut stack: Vec<PathBuf> = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let dir = root.join(&rel);
        let ents = if rel.as_os_str().is_empty() {
            let rd = std::fs::read_dir(&dir).map_err(|e| MailboxError::io(&dir, None, e))?;
            listing(&dir, rd, unreadable)
        } else {
            list_dir(&dir, unreadable)
        };
        let maildir_level = rel.as_os_str().is_empty() || dir.join("cur").is_dir();
        for ent in ents {
            let name = ent.file_name();
            let b = name.as_encoded_bytes();
            if maildir_level && matches!(b, b"cur" | b"new" | b"tmp") {
                continue;
            }
            let ft = ent.file_type().ok();
            let is_link = ft.is_some_and(|t| t.is_symlink());
            let is_dir = ft.is_some_and(|t| t.is_dir());
            if b.starts_with(b".") {
                // Maildir++ folders live at the top level only.
                if rel.as_os_str().is_empty() && b != b"." && b != b".." && is_dir {
                    match std::fs::metadata(ent.path().join("cur")) {
                        Ok(m) if m.is_dir() => {
                            list_strays(&ent.path(), skipped, unreadable);
                            folders.push(name);
                        }
                        Ok(_) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        // A folder that cannot be looked into (`chmod 000
                        // .Sent`) is named, not passed over in silence.
                        Err(e) => unreadable.push(MailboxError::io(ent.path(), None, e)),
                    }
                }
                continue;
            }
            if is_link && std::fs::metadata(ent.path()).is_ok_and(|m| m.is_dir()) {
                skipped.push(ent.path(), SkipReason::LinkedDirectory);
            } else if is_dir {
                let sub = rel.join(&name);
                if ent.path().join("cur").is_dir() {
                    folders.push(sub.clone().into_os_string());
                }
                stack.push(sub);
            } else if !(maildir_level && is_server_state(b)) {
                let reason = if std::fs::metadata(ent.path()).is_err() {
                    gone(&ent)
                } else {
                    SkipReason::NotInMaildir
                };
                skipped.push(ent.path(), reason);
            }
        }
    }
    folders.sort();
    Ok(folders)
}

/// Lists in `skipped` what the Maildir++ folder `dir` holds besides its
/// `cur/`, `new/` and `tmp/`, dot files and server state, as the top
/// level's are listed: a message a script or a restore dropped beside
/// them, a subdirectory and everything in it. (They were passed over in
/// silence: not listed, `--strict-inputs` exited 0, and `-o` left them
/// out without a word.) A Maildir++ folder has no folders of its own.
/// A directory that cannot be listed goes to `unreadable`.
fn list_strays(dir: &Path, skipped: &SkipLog, unreadable: &mut Vec<MailboxError>) {
    let mut stack = vec![(dir.to_path_buf(), true)];
    while let Some((d, top)) = stack.pop() {
        let mut ents = list_dir(&d, unreadable);
        ents.sort_by_key(|e| e.file_name());
        for ent in ents {
            let name = ent.file_name();
            let b = name.as_encoded_bytes();
            if b.starts_with(b".")
                || (top && (matches!(b, b"cur" | b"new" | b"tmp") || is_server_state(b)))
            {
                continue;
            }
            let ft = ent.file_type().ok();
            let is_link = ft.is_some_and(|t| t.is_symlink());
            if is_link && std::fs::metadata(ent.path()).is_ok_and(|m| m.is_dir()) {
                skipped.push(ent.path(), SkipReason::LinkedDirectory);
            } else if ft.is_some_and(|t| t.is_dir()) {
                stack.push((ent.path(), false));
            } else {
                let reason = if std::fs::metadata(ent.path()).is_err() {
                    gone(&ent)
                } else {
                    SkipReason::NotInMaildir
                };
                skipped.push(ent.path(), reason);
            }
        }
    }
}

/// The Maildir++ and `LAYOUT=fs` folders of `root` (see [`MaildirReader`]),
/// those that could be looked into.
pub(crate) fn maildir_folders(root: &Path) -> Result<Vec<OsString>, MailboxError> {
    scan_folders(root, &SkipLog::default(), &mut Vec::new())
}

impl Iterator for MaildirReader {
    type Item = Result<RawMessage, MailboxError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = self.unreadable.next() {
            return Some(Err(e));
        }
        loop {
            let (folder, sub, name, _) = self.entries.next()?;
            let folder = folder
                .and_then(|i| self.folders.get(i))
                .cloned()
                .unwrap_or_default();
            let base = self.root.join(&folder);
            let path = base.join(sub.as_str()).join(&name);
            let (sub, name, (bytes, times)) = match read_file(&path) {
                Ok(b) => (sub, name, b),
                Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => {
                    match self.renamed(&base, &name).and_then(|(s, n)| {
                        let p = base.join(s.as_str()).join(&n);
                        read_file(&p).ok().map(|b| (s, n, b))
                    }) {
                        Some(found) => found,
                        None => {
                            self.skipped.push(path, SkipReason::Vanished);
                            continue;
                        }
                    }
                }
                Err(e) => return Some(Err(e)),
            };
            let index = self.index;
            self.index += 1;
            // The name is kept as it is, UTF-8 or not: a message is never
            // dropped for its name.
            return Some(Ok(RawMessage {
                input_len: bytes.len() as u64,
                bytes,
                index,
                offset: 0,
                origin: Origin::Maildir {
                    folder,
                    subdir: sub,
                    name,
                },
                times,
            }));
        }
    }
}

/// Whether the directory `path` is itself a Maildir's `cur/` or `new/`
/// (its parent has both), named on its own (`normalize --in-place
/// ~/Maildir/cur`): it is read as a folder, and its files are Maildir
/// messages all the same, one message each, whose size tags the writer
/// keeps up to date ([`super::MessageWriter::files_are_maildir_messages`];
/// doc/mailbox.md, "Maildir").
pub fn is_maildir_subdir(path: &Path) -> bool {
    let Ok(full) = std::fs::canonicalize(path) else {
        return false;
    };
    let (Some(name), Some(parent)) = (full.file_name(), full.parent()) else {
        return false;
    };
    (name == "cur" || name == "new") && parent.join("cur").is_dir() && parent.join("new").is_dir()
}

/// Whether `rel` is `NAME.lock` and `NAME` is among `names`.
fn is_dotlock_of_sibling(rel: &Path, names: &std::collections::HashSet<PathBuf>) -> bool {
    let Some(name) = rel.file_name() else {
        return false;
    };
    #[cfg(unix)]
    let stem = {
        use std::os::unix::ffi::OsStrExt;
        name.as_bytes()
            .strip_suffix(b".lock")
            .filter(|s| !s.is_empty())
            .map(OsStr::from_bytes)
    };
    #[cfg(not(unix))]
    let stem = name
        .to_str()
        .and_then(|n| n.strip_suffix(".lock"))
        .filter(|s| !s.is_empty())
        .map(OsStr::new);
    stem.is_some_and(|stem| names.contains(&rel.with_file_name(stem)))
}

/// Whether the file at `path` starts like an mbox: its first line (after a
/// BOM and blank lines, in its first 64 KiB) a `From ` line, as the in-place
/// writer decides which files of a folder it takes the dotlock of.
fn starts_like_mbox(path: &Path) -> bool {
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(64 * 1024).read_to_end(&mut head))
        .is_ok()
        && super::mbox::first_from_line(&head).is_some()
}

/// A message file's bytes, and its times as they were before it was read
/// (reading may set its access time).
fn read_file(path: &Path) -> Result<(Vec<u8>, Option<SourceTimes>), MailboxError> {
    let read = || {
        let mut f = std::fs::File::open(path)?;
        let meta = f.metadata()?;
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        f.read_to_end(&mut bytes)?;
        Ok((bytes, SourceTimes::of(&meta)))
    };
    read().map_err(|e| MailboxError::io(path, Some(0), e))
}

/// Reads a folder of message files recursively, one message per regular
/// file, in order of relative path; dot files and dot directories (and so
/// our own temporary outputs) are skipped, and so is the `tmp/` of a Maildir
/// inside the folder (mail still being delivered). Symbolic links to
/// directories are not followed and dangling links not read: both are
/// listed in [`FolderReader::skipped`], as are files gone before they were
/// read. A directory in the folder that cannot be listed (permission
/// denied, an I/O error) is passed over: the reader gives an
/// [`MailboxError::Io`] naming it before the first message, then the
/// messages of the others, as it does for a file it cannot read. Only the
/// folder itself not being readable fails [`Self::open`].
pub struct FolderReader {
    root: PathBuf,
    entries: std::vec::IntoIter<(PathBuf, u64)>,
    /// Directories (and files) that could not be listed or looked at,
    /// given before the messages.
    unreadable: std::vec::IntoIter<MailboxError>,
    total: u64,
    index: usize,
    pub(crate) skipped: SkipLog,
    /// Read a file that starts like an mbox under its dotlock
    /// ([`FolderReader::lock_mbox_files`]).
    lock_mboxes: bool,
}

impl FolderReader {
    /// Reads each file that starts like an mbox (a `From ` line first)
    /// under its dotlock, waited for as long as [`super::LOCK_WAIT`]: an
    /// MDA holds that lock while it appends a message, so what is read is
    /// never a message half delivered. For a run that writes the folder in
    /// place: normalizing such a half and keeping the rest, appended raw
    /// after it, damaged the message for good. A lock that stays is given
    /// up on and the file read all the same: the replacement checks again
    /// (doc/mailbox.md, "Mail delivered during the run").
    pub fn lock_mbox_files(&mut self) {
        self.lock_mboxes = true;
    }

    /// Lists the folder at `root`, recursively.
    pub fn open(root: &Path) -> Result<Self, MailboxError> {
        let skipped = SkipLog::default();
        let mut unreadable = Vec::new();
        let mut entries = Vec::new();
        let mut stack = vec![PathBuf::new()];
        while let Some(rel) = stack.pop() {
            let dir = root.join(&rel);
            // The folder itself unreadable is an error; a directory in it
            // is named and passed over.
            let ents = if rel.as_os_str().is_empty() {
                let rd = std::fs::read_dir(&dir).map_err(|e| MailboxError::io(&dir, None, e))?;
                listing(&dir, rd, &mut unreadable)
            } else {
                list_dir(&dir, &mut unreadable)
            };
            let maildir = dir.join("cur").is_dir() && dir.join("new").is_dir();
            for ent in ents {
                let name = ent.file_name();
                if name.as_encoded_bytes().starts_with(b".")
                    || (maildir && name.as_encoded_bytes() == b"tmp")
                {
                    continue;
                }
                let ft = match ent.file_type() {
                    Ok(ft) => ft,
                    Err(e) => {
                        unreadable.push(MailboxError::io(ent.path(), None, e));
                        continue;
                    }
                };
                let Some(meta) = stat(&ent, &skipped, &mut unreadable) else {
                    continue;
                };
                // Symlinked directories are not followed (no cycles);
                // symlinked files are read.
                if meta.is_dir() && ft.is_symlink() {
                    skipped.push(ent.path(), SkipReason::LinkedDirectory);
                } else if meta.is_dir() {
                    stack.push(rel.join(&name));
                } else if meta.is_file() {
                    entries.push((rel.join(&name), meta.len()));
                } else {
                    skipped.push(ent.path(), SkipReason::NotARegularFile);
                }
            }
        }
        // `NAME.lock` beside a file `NAME` is that mailbox's dotlock, an
        // MDA's (or this program's): not mail, and gone a moment later
        // (it was read as a file that does not start like a message, or
        // listed as vanished, and the run exited 75).
        let names: std::collections::HashSet<PathBuf> =
            entries.iter().map(|(p, _)| p.clone()).collect();
        entries.retain(|(p, _)| !is_dotlock_of_sibling(p, &names));
        entries.sort();
        let total = entries.iter().map(|e| e.1).sum();
        unreadable.sort_by(|a, b| a.path().cmp(b.path()));
        Ok(FolderReader {
            root: root.to_path_buf(),
            entries: entries.into_iter(),
            unreadable: unreadable.into_iter(),
            total,
            index: 0,
            skipped,
            lock_mboxes: false,
        })
    }

    pub(crate) fn total_bytes(&self) -> u64 {
        self.total
    }

    /// The files passed over so far.
    pub fn skipped(&self) -> SkipLog {
        self.skipped.clone()
    }
}

impl Iterator for FolderReader {
    type Item = Result<RawMessage, MailboxError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = self.unreadable.next() {
            return Some(Err(e));
        }
        loop {
            let (relative, _) = self.entries.next()?;
            let path = self.root.join(&relative);
            // Its times before anything reads it (the look at its first
            // line below may set the access time).
            let first_times = std::fs::metadata(&path)
                .ok()
                .and_then(|m| SourceTimes::of(&m));
            let _lock = if self.lock_mboxes && starts_like_mbox(&path) {
                super::DotLock::acquire(&path, super::LOCK_WAIT).ok()
            } else {
                None
            };
            let (bytes, times) = match read_file(&path) {
                Ok(b) => b,
                Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => {
                    self.skipped.push(path, SkipReason::Vanished);
                    continue;
                }
                Err(e) => return Some(Err(e)),
            };
            let index = self.index;
            self.index += 1;
            return Some(Ok(RawMessage {
                input_len: bytes.len() as u64,
                bytes,
                index,
                offset: 0,
                origin: Origin::File { relative },
                times: first_times.or(times),
            }));
        }
    }
}

/// Reads a whole stream or file as one message.
pub struct SingleReader {
    src: Option<Box<dyn Read + Send>>,
    name: PathBuf,
    origin: Origin,
}

impl SingleReader {
    /// One message from `src`; `name` names it in errors.
    pub fn new(src: Box<dyn Read + Send>, name: impl Into<PathBuf>, origin: Origin) -> Self {
        SingleReader {
            src: Some(src),
            name: name.into(),
            origin,
        }
    }
}

impl Iterator for SingleReader {
    type Item = Result<RawMessage, MailboxError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut src = self.src.take()?;
        let mut bytes = Vec::new();
        Some(match src.read_to_end(&mut bytes) {
            Ok(_) => Ok(RawMessage {
                input_len: bytes.len() as u64,
                bytes,
                index: 0,
                offset: 0,
                origin: self.origin.clone(),
                times: None,
            }),
            Err(e) => Err(MailboxError::io(&self.name, Some(bytes.len() as u64), e)),
        })
    }
}
