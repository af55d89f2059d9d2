//! Crash-safe writers: everything goes to a temporary file or directory next
//! to the destination and is renamed into place by `finish()`. Dropping a
//! writer without `finish()` (an error, a panic) removes the temporary; a
//! killed process leaves at most a hidden `.NAME.*.mailcharset-tmp` entry and
//! never a half-written file under the final name. Every run holds a lock
//! on its temporaries, and the next run writing the same mbox, Maildir or
//! folder removes those nobody holds ([`remove_stale_temporaries`]).

use super::mbox::{content_length_field, header_end, quote_into};
use super::{MailboxError, MaildirSubdir, MboxFlavor, MboxFormat, Origin, RawMessage};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Component, Path, PathBuf};

/// Whether the destination is a new/replaced output or the input itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteMode {
    /// Write to a temporary and rename over the destination.
    Replace,
    /// The destination is the input: keep `NAME.bak` until the new output
    /// is complete and in place, then remove it.
    InPlace,
}

/// Refuses an output that is the input itself (same file or directory)
/// unless the run is in place: without `--in-place` the input is never
/// modified.
pub fn check_output(input: &Path, output: &Path, mode: WriteMode) -> Result<(), MailboxError> {
    if mode == WriteMode::InPlace || input.as_os_str() == "-" {
        return Ok(());
    }
    let same = match (std::fs::canonicalize(input), std::fs::canonicalize(output)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Err(MailboxError::OutputIsInput {
            path: output.to_path_buf(),
        });
    }
    Ok(())
}

/// The `.bak` path kept during an in-place run.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".bak");
    PathBuf::from(s)
}

const TMP_SUFFIX: &str = ".mailcharset-tmp";

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn tmp_prefix(path: &Path) -> String {
    format!(
        ".{}.",
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    )
}

/// How long an unlocked temporary must have been left alone before it
/// counts as a killed run's. A run locks each temporary right after
/// creating it; this only covers that moment.
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(2);

/// Removes the temporaries a killed run left for `dest`: hidden
/// `.NAME.XXXXXX.mailcharset-tmp` files or directories beside it (six
/// random letters or digits, as the writers make them) that no live run
/// holds a lock on and in which nothing was modified in the last two
/// seconds; and, once `dest` exists, the `….mailcharset-tmp.old` tree a
/// directory swap killed halfway left. Returns how many were removed.
/// Anything it cannot examine or lock (another run's, or a file system
/// without locks) is left alone. A symbolic link at `dest` is followed:
/// the temporaries are made beside its target.
pub fn remove_stale_temporaries(dest: &Path) -> usize {
    let dest = resolve_link(dest);
    let old = dest.exists();
    remove_stale_in(parent_of(&dest), &Temporaries::Of(tmp_prefix(&dest), old))
}

/// Which names [`remove_stale_in`] looks at.
enum Temporaries {
    /// One output's (its `.NAME.` prefix), and its `.old` trees too when
    /// the flag is set.
    Of(String, bool),
    /// Any message file's in a directory changed in place (`.NAME.` of
    /// every file).
    Any,
}

impl Temporaries {
    fn matches(&self, name: &[u8]) -> bool {
        let random = |r: &[u8]| r.len() == 6 && r.iter().all(u8::is_ascii_alphanumeric);
        let tail = |name: &[u8], suffix: &str| -> Option<usize> {
            name.strip_suffix(suffix.as_bytes()).map(<[u8]>::len)
        };
        match self {
            Temporaries::Of(prefix, old) => {
                let Some(rest) = name.strip_prefix(prefix.as_bytes()) else {
                    return false;
                };
                let end = tail(rest, TMP_SUFFIX).or_else(|| {
                    old.then(|| tail(rest, &format!("{TMP_SUFFIX}.old")))
                        .flatten()
                });
                end.is_some_and(|n| random(&rest[..n]))
            }
            Temporaries::Any => {
                let Some(n) = tail(name, TMP_SUFFIX) else {
                    return false;
                };
                name.starts_with(b".") && n >= 8 && name[n - 7] == b'.' && random(&name[n - 6..n])
            }
        }
    }
}

/// [`remove_stale_temporaries`] for the names `which` picks in `dir`.
fn remove_stale_in(dir: &Path, which: &Temporaries) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        if !which.matches(name.as_encoded_bytes()) {
            continue;
        }
        let path = e.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        // A directory's own time does not move when files are written
        // below it: the newest time in the tree counts.
        let idle = newest_change(&path, &meta)
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age >= STALE_AFTER);
        if !idle || !(meta.is_file() || meta.is_dir()) {
            continue;
        }
        // A live run holds an exclusive lock until it ends; the lock taken
        // here goes when `f` is dropped.
        let Ok(f) = File::open(&path) else {
            continue;
        };
        if f.try_lock().is_err() {
            continue;
        }
        let gone = if meta.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        removed += usize::from(gone.is_ok());
    }
    removed
}

/// The latest modification time of `path` and, for a directory, of
/// everything below it (symbolic links not followed); None if any is
/// unreadable.
fn newest_change(path: &Path, meta: &std::fs::Metadata) -> Option<std::time::SystemTime> {
    let mut newest = meta.modified().ok()?;
    if !meta.is_dir() {
        return Some(newest);
    }
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).ok()? {
            let e = e.ok()?;
            let m = e.path().symlink_metadata().ok()?;
            newest = newest.max(m.modified().ok()?);
            if m.is_dir() {
                stack.push(e.path());
            }
        }
    }
    Some(newest)
}

/// Locks a run's own temporary for as long as `f` stays open, so that
/// [`remove_stale_temporaries`] in another run leaves it alone. Where the
/// file system has no locks the temporary is still written: nobody else
/// can lock it either, so nobody removes it.
fn hold(f: &File) {
    let _ = f.try_lock();
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// A file written to a temporary in the destination directory and renamed
/// into place on [`AtomicFile::commit`].
pub struct AtomicFile {
    dest: PathBuf,
    tmp: Option<BufWriter<Target>>,
    /// The backup this run made (in place): the only one it may remove.
    backup: Option<PathBuf>,
}

/// Where an [`AtomicFile`]'s bytes go.
enum Target {
    /// A temporary next to the destination, renamed over it on commit.
    Temp(tempfile::NamedTempFile),
    /// The destination itself, when it is not a regular file (`/dev/null`,
    /// a FIFO, a terminal): there is nothing to replace, and renaming a
    /// file over a device would destroy it.
    Direct(File),
}

impl Write for Target {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Target::Temp(t) => t.write(buf),
            Target::Direct(f) => f.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Target::Temp(t) => t.flush(),
            Target::Direct(f) => f.flush(),
        }
    }
}

/// `dest`, or the file a symbolic link at `dest` points to: replacing the
/// link itself with a regular file would detach it from its target.
fn resolve_link(dest: &Path) -> PathBuf {
    match std::fs::symlink_metadata(dest) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(dest).unwrap_or_else(|_| dest.to_path_buf())
        }
        _ => dest.to_path_buf(),
    }
}

/// The destination exists and is neither a regular file nor a directory.
fn is_special(dest: &Path) -> bool {
    std::fs::metadata(dest).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

impl AtomicFile {
    pub fn create(dest: &Path, mode: WriteMode) -> Result<Self, MailboxError> {
        let err = |e| MailboxError::io(dest, None, e);
        let resolved = resolve_link(dest);
        if mode == WriteMode::Replace && is_special(&resolved) {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(&resolved)
                .map_err(err)?;
            return Ok(AtomicFile {
                dest: dest.to_path_buf(),
                tmp: Some(BufWriter::with_capacity(1 << 20, Target::Direct(f))),
                backup: None,
            });
        }
        let dest = resolved.as_path();
        let dir = parent_of(dest);
        let backup = if mode == WriteMode::InPlace {
            Some(make_backup(dest)?)
        } else {
            None
        };
        let prefix = tmp_prefix(dest);
        let tmp = tmp_builder(&prefix, dest, false)
            .tempfile_in(dir)
            .map_err(err)?;
        hold(tmp.as_file());
        Ok(AtomicFile {
            dest: dest.to_path_buf(),
            tmp: Some(BufWriter::with_capacity(1 << 20, Target::Temp(tmp))),
            backup,
        })
    }

    pub fn path(&self) -> &Path {
        &self.dest
    }

    /// Where the bytes go (buffered; the temporary file).
    pub fn writer(&mut self) -> Result<&mut (impl Write + use<>), MailboxError> {
        let dest = &self.dest;
        self.tmp
            .as_mut()
            .ok_or_else(|| MailboxError::io(dest, None, io::Error::other("write after commit")))
    }

    /// Flushes, syncs and renames the temporary over the destination; in
    /// place, removes the backup afterwards.
    pub fn commit(mut self) -> Result<(), MailboxError> {
        let err = |e| MailboxError::io(&self.dest, None, e);
        let Some(w) = self.tmp.take() else {
            return Ok(());
        };
        let tmp = match w.into_inner().map_err(|e| err(e.into_error()))? {
            Target::Temp(t) => t,
            // A device or pipe: written straight through, nothing to rename.
            Target::Direct(_) => return Ok(()),
        };
        tmp.as_file().sync_all().map_err(err)?;
        // Keep the original permissions when replacing a file.
        if let Ok(meta) = std::fs::metadata(&self.dest) {
            let _ = tmp.as_file().set_permissions(meta.permissions());
        }
        tmp.persist(&self.dest).map_err(|e| err(e.error))?;
        sync_dir(parent_of(&self.dest)).map_err(err)?;
        if let Some(bak) = self.backup.take() {
            std::fs::remove_file(&bak).map_err(|e| MailboxError::io(&bak, None, e))?;
        }
        Ok(())
    }
}

/// Writes go to the temporary (see [`AtomicFile::writer`]); nothing is in
/// place before [`AtomicFile::commit`].
impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().map_err(io::Error::other)?.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer().map_err(io::Error::other)?.flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        // Not committed: the temporary goes with `NamedTempFile`'s own drop;
        // in place, the input was never touched, so the backup this run
        // made can go too.
        if self.tmp.is_some()
            && let Some(bak) = self.backup.take()
        {
            let _ = std::fs::remove_file(bak);
        }
    }
}

/// Makes `NAME.bak` for an in-place run: a hard link to the input (or a
/// copy where links are not possible). A `NAME.bak` that is already there
/// is reused only when it is the input itself (a hard link a killed run of
/// ours left); anything else there is the user's, and the run refuses
/// rather than remove it.
fn make_backup(dest: &Path) -> Result<PathBuf, MailboxError> {
    let bak = backup_path(dest);
    match std::fs::symlink_metadata(&bak) {
        Ok(meta) => {
            if same_file(&meta, dest) {
                return Ok(bak);
            }
            return Err(MailboxError::io(
                &bak,
                None,
                io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "exists and is not this program's backup of the input; move it away \
                     to normalize in place",
                ),
            ));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(MailboxError::io(&bak, None, e)),
    }
    if std::fs::hard_link(dest, &bak).is_err() {
        // Create it ourselves (never over a file that appeared meanwhile).
        let mut from = File::open(dest).map_err(|e| MailboxError::io(dest, None, e))?;
        let mut to = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&bak)
            .map_err(|e| MailboxError::io(&bak, None, e))?;
        io::copy(&mut from, &mut to).map_err(|e| MailboxError::io(&bak, None, e))?;
    }
    Ok(bak)
}

/// Whether `meta` (of a backup) is the file at `path` (same device and
/// inode: a hard link).
#[cfg(unix)]
fn same_file(meta: &std::fs::Metadata, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
}

#[cfg(not(unix))]
fn same_file(_meta: &std::fs::Metadata, _path: &Path) -> bool {
    false
}

/// The permissions an output gets: those of the file or directory it
/// replaces, or else what a plain create would give (0666 or 0777 less the
/// umask, which the system applies), not the owner-only mode of a
/// temporary. None where the platform's default for a new file is right.
fn output_permissions(dest: &Path, dir: bool) -> Option<std::fs::Permissions> {
    if let Ok(meta) = std::fs::metadata(dest)
        && meta.is_dir() == dir
    {
        return Some(meta.permissions());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(std::fs::Permissions::from_mode(if dir {
            0o777
        } else {
            0o666
        }))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// A temporary-file builder for `dest` (`prefix` from [`tmp_prefix`]), with
/// the permissions `dest` should end up with.
fn tmp_builder<'a>(prefix: &'a str, dest: &Path, dir: bool) -> tempfile::Builder<'a, 'static> {
    let mut b = tempfile::Builder::new();
    b.prefix(prefix).suffix(TMP_SUFFIX);
    if let Some(p) = output_permissions(dest, dir) {
        b.permissions(p);
    }
    b
}

/// Replaces one file atomically: a hidden temporary in the same directory,
/// synced, then renamed over it.
fn replace_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    // A symbolic link stays a link: its target is replaced (next to the
    // target, so that the rename stays within one file system).
    let resolved = resolve_link(path);
    let path = resolved.as_path();
    let dir = parent_of(path);
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(&tmp_prefix(path))
        .suffix(TMP_SUFFIX)
        .tempfile_in(dir)?;
    hold(tmp.as_file());
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = tmp.as_file().set_permissions(meta.permissions());
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// A Maildir++ folder name without its leading dot (for a folder output,
/// where a dot directory would be skipped when read back).
fn without_dot(folder: &std::ffi::OsStr) -> &std::ffi::OsStr {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let b = folder.as_bytes();
        std::ffi::OsStr::from_bytes(b.strip_prefix(b".").unwrap_or(b))
    }
    #[cfg(not(unix))]
    {
        folder
            .to_str()
            .and_then(|f| f.strip_prefix('.'))
            .map_or(folder, std::ffi::OsStr::new)
    }
}

/// An error unless the temporary directory `root` still exists: creating
/// a message's directories would otherwise make a new, partial tree where
/// a removed one was, and it would be renamed into place as complete.
fn still_there(root: &Path) -> io::Result<()> {
    if root.is_dir() {
        Ok(())
    } else {
        Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("the temporary directory {} was removed", root.display()),
        ))
    }
}

/// A directory built next to its destination and renamed into place.
struct AtomicDir {
    dest: PathBuf,
    tmp: Option<PathBuf>,
    /// The temporary directory, open and locked while the run lasts.
    _lock: Option<File>,
}

impl AtomicDir {
    fn create(dest: &Path) -> Result<Self, MailboxError> {
        // A symbolic link stays a link: its target is what is replaced.
        let resolved = resolve_link(dest);
        let dest = resolved.as_path();
        if dest.exists() && !dest.is_dir() {
            return Err(MailboxError::OutputExists {
                path: dest.to_path_buf(),
            });
        }
        remove_stale_temporaries(dest);
        let prefix = tmp_prefix(dest);
        let tmp = tmp_builder(&prefix, dest, true)
            .tempdir_in(parent_of(dest))
            .map_err(|e| MailboxError::io(dest, None, e))?
            .keep();
        let lock = File::open(&tmp).ok();
        if let Some(f) = &lock {
            hold(f);
        }
        Ok(AtomicDir {
            dest: dest.to_path_buf(),
            tmp: Some(tmp),
            _lock: lock,
        })
    }

    fn commit(mut self) -> Result<(), MailboxError> {
        let Some(tmp) = self.tmp.take() else {
            return Ok(());
        };
        let err = |e| MailboxError::io(&self.dest, None, e);
        sync_dir(&tmp).map_err(err)?;
        // Locked while it is moved aside and removed, so that another run
        // does not take the `.old` tree for a stale one meanwhile.
        let _held = File::open(&self.dest).ok().inspect(hold);
        let old = if self.dest.exists() {
            let mut old = tmp.as_os_str().to_owned();
            old.push(".old");
            let old = PathBuf::from(old);
            if old.exists() {
                std::fs::remove_dir_all(&old).map_err(|e| MailboxError::io(&old, None, e))?;
            }
            std::fs::rename(&self.dest, &old).map_err(err)?;
            Some(old)
        } else {
            None
        };
        std::fs::rename(&tmp, &self.dest).map_err(err)?;
        sync_dir(parent_of(&self.dest)).map_err(err)?;
        if let Some(old) = old {
            // Gone already if another run took it for a stale one.
            match std::fs::remove_dir_all(&old) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => {
                    return Err(MailboxError::io(&old, None, e));
                }
                _ => {}
            }
        }
        Ok(())
    }
}

impl Drop for AtomicDir {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = std::fs::remove_dir_all(tmp);
        }
    }
}

/// What a [`MessageWriter`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    Mbox(MboxFlavor),
    Maildir,
    Folder,
    /// Exactly one message, as is.
    Single,
}

impl OutputKind {
    /// The output that reproduces an input of `kind` (stdin and single files
    /// become a single message; an mbox keeps its flavor).
    pub fn matching(kind: super::InputKind) -> Self {
        match kind {
            super::InputKind::Mbox(f) => OutputKind::Mbox(f),
            super::InputKind::Maildir => OutputKind::Maildir,
            super::InputKind::Folder => OutputKind::Folder,
            super::InputKind::Eml | super::InputKind::Stdin => OutputKind::Single,
        }
    }
}

enum Sink {
    File(AtomicFile),
    Stream(Box<dyn Write + Send>),
    Dir(AtomicDir),
    /// In place in a Maildir or folder: each changed message file is
    /// replaced atomically on its own (temporary + rename in its own
    /// directory), so mail delivered meanwhile, `tmp/` and dot files are
    /// left alone.
    InPlaceDir(PathBuf),
    /// Only while a message is being written.
    Taken,
}

/// Writes messages into a container; unchanged messages from the same kind
/// of container come out byte for byte as they were read.
pub struct MessageWriter {
    sink: Sink,
    kind: OutputKind,
    name: PathBuf,
    written: usize,
    /// mbox: the last byte written was not a line feed.
    open_line: bool,
    /// Maildir++ folders made in a new Maildir so far.
    folders: std::collections::HashSet<std::ffi::OsString>,
}

impl MessageWriter {
    /// Writes to `path` through a temporary renamed into place by
    /// [`MessageWriter::finish`].
    pub fn create(path: &Path, kind: OutputKind, mode: WriteMode) -> Result<Self, MailboxError> {
        let sink = match kind {
            OutputKind::Mbox(_) => {
                // An archive's temporary can be as large as the archive.
                // (Not for single messages: `normalize *.eml -o DIR` would
                // read DIR once per message.)
                remove_stale_temporaries(path);
                Sink::File(AtomicFile::create(path, mode)?)
            }
            OutputKind::Single => Sink::File(AtomicFile::create(path, mode)?),
            OutputKind::Maildir | OutputKind::Folder if mode == WriteMode::InPlace => {
                if !path.is_dir() {
                    return Err(MailboxError::OutputExists {
                        path: path.to_path_buf(),
                    });
                }
                // A killed in-place run may have left the temporary of the
                // message it was replacing.
                let folders = match kind {
                    OutputKind::Maildir => super::dir::maildir_folders(path).unwrap_or_default(),
                    _ => Vec::new(),
                };
                let top = std::ffi::OsString::new();
                for base in std::iter::once(&top).chain(&folders) {
                    for sub in ["", "cur", "new"] {
                        remove_stale_in(&path.join(base).join(sub), &Temporaries::Any);
                    }
                }
                Sink::InPlaceDir(path.to_path_buf())
            }
            OutputKind::Maildir | OutputKind::Folder => {
                let d = AtomicDir::create(path)?;
                if let (OutputKind::Maildir, Some(tmp)) = (kind, &d.tmp) {
                    for sub in ["cur", "new", "tmp"] {
                        std::fs::create_dir(tmp.join(sub))
                            .map_err(|e| MailboxError::io(path, None, e))?;
                    }
                }
                Sink::Dir(d)
            }
        };
        Ok(Self::with_sink(sink, kind, path.to_path_buf()))
    }

    /// Writes to a stream (standard output): not crash-safe, nothing to
    /// rename. Only mbox and single-message output.
    pub fn to_stream(
        out: Box<dyn Write + Send>,
        kind: OutputKind,
        name: impl Into<PathBuf>,
    ) -> Result<Self, MailboxError> {
        let name = name.into();
        if matches!(kind, OutputKind::Maildir | OutputKind::Folder) {
            return Err(MailboxError::Unrepresentable {
                path: name,
                index: 0,
                reason: "a Maildir or folder cannot be written to a stream".into(),
            });
        }
        Ok(Self::with_sink(Sink::Stream(out), kind, name))
    }

    fn with_sink(sink: Sink, kind: OutputKind, name: PathBuf) -> Self {
        MessageWriter {
            sink,
            kind,
            name,
            written: 0,
            open_line: false,
            folders: Default::default(),
        }
    }

    /// Makes the folder `folder` (Maildir++ `.Sent`, or `LAYOUT=fs`
    /// `Lists/mips`) in a new Maildir output, with `cur/`, `new/`, `tmp/`
    /// (and, for Maildir++, the `maildirfolder` marker),
    /// so that folders without messages are kept too; folders of messages
    /// written are made as they come. Nothing to do for other outputs, or
    /// in place (the folder is there).
    pub fn add_maildir_folder(
        &mut self,
        folder: impl AsRef<std::ffi::OsStr>,
    ) -> Result<(), MailboxError> {
        let folder = folder.as_ref();
        // A Maildir++ folder (`.Sent`: one component, a leading dot) or a
        // `LAYOUT=fs` path (`Lists/mips`: plain components, none a dot name
        // or cur/new/tmp).
        let parts: Vec<Component<'_>> = Path::new(folder).components().collect();
        let plus = folder.as_encoded_bytes().starts_with(b".")
            && matches!(parts[..], [Component::Normal(_)]);
        let fs = !parts.is_empty()
            && parts.iter().all(|c| match c {
                Component::Normal(n) => {
                    let b = n.as_encoded_bytes();
                    !b.starts_with(b".") && !matches!(b, b"cur" | b"new" | b"tmp")
                }
                _ => false,
            });
        if !(plus || fs) {
            return Err(MailboxError::Unrepresentable {
                path: self.name.clone(),
                index: self.written,
                reason: format!("not a Maildir folder name: {folder:?}"),
            });
        }
        let (OutputKind::Maildir, Sink::Dir(d)) = (self.kind, &self.sink) else {
            return Ok(());
        };
        if self.folders.contains(folder) {
            return Ok(());
        }
        let Some(root) = d.tmp.as_ref() else {
            return Err(self.io_err(io::Error::other("write after finish")));
        };
        let dir = root.join(folder);
        let made = (|| {
            still_there(root)?;
            for sub in ["cur", "new", "tmp"] {
                std::fs::create_dir_all(dir.join(sub))?;
            }
            // The Maildir++ marker; `LAYOUT=fs` folders have none.
            if plus {
                File::create(dir.join("maildirfolder"))?;
            }
            Ok(())
        })();
        made.map_err(|e| MailboxError::io(self.name.join(folder), None, e))?;
        self.folders.insert(folder.to_os_string());
        Ok(())
    }

    pub fn kind(&self) -> OutputKind {
        self.kind
    }

    /// Messages written so far.
    pub fn written(&self) -> usize {
        self.written
    }

    fn io_err(&self, e: io::Error) -> MailboxError {
        MailboxError::io(&self.name, None, e)
    }

    /// Writes `bytes` as the message `msg` (its origin decides the framing
    /// and the name).
    pub fn write(&mut self, msg: &RawMessage, bytes: &[u8]) -> Result<(), MailboxError> {
        self.write_prechecked(msg, bytes, None)
    }

    /// [`Self::write`], told whether `bytes` contains `From ` anywhere
    /// ([`contains_from`](super::contains_from)), which decides whether an mbox output has lines
    /// to quote. The pipeline finds out on its worker threads, so that the
    /// one writing thread does not scan every message again. `None`: not
    /// known, look.
    pub fn write_prechecked(
        &mut self,
        msg: &RawMessage,
        bytes: &[u8],
        has_from: Option<bool>,
    ) -> Result<(), MailboxError> {
        match self.kind {
            OutputKind::Mbox(flavor) => {
                let mut sink = std::mem::replace(&mut self.sink, Sink::Taken);
                let r = match &mut sink {
                    Sink::File(f) => match f.writer() {
                        Ok(w) => self.frame_mbox(flavor, msg, bytes, has_from, w),
                        Err(e) => {
                            self.sink = sink;
                            return Err(e);
                        }
                    },
                    Sink::Stream(s) => self.frame_mbox(flavor, msg, bytes, has_from, s.as_mut()),
                    _ => Err(io::Error::other("not a stream output")),
                };
                self.sink = sink;
                self.open_line = r.map_err(|e| self.io_err(e))?;
            }
            OutputKind::Single => {
                if self.written > 0 {
                    return Err(MailboxError::Unrepresentable {
                        path: self.name.clone(),
                        index: msg.index,
                        reason: "more than one message for a single-message output".into(),
                    });
                }
                write_stream(&mut self.sink, &self.name, bytes)?;
            }
            OutputKind::Maildir | OutputKind::Folder
                if matches!(self.sink, Sink::InPlaceDir(_)) =>
            {
                let rel = self.dir_entry_name(msg)?;
                let Sink::InPlaceDir(root) = &self.sink else {
                    return Err(self.io_err(io::Error::other("not a directory output")));
                };
                let path = root.join(&rel);
                // Unchanged: nothing to do. Gone (a mail reader moved it
                // to cur/ with new flags, or deleted it, during the run):
                // left as that program left it, never resurrected.
                if bytes != msg.bytes.as_slice() && path.is_file() {
                    replace_file(&path, bytes).map_err(|e| MailboxError::io(&path, None, e))?;
                }
            }
            OutputKind::Maildir | OutputKind::Folder => {
                if let Origin::Maildir { folder, .. } = &msg.origin
                    && !folder.is_empty()
                    && self.kind == OutputKind::Maildir
                {
                    self.add_maildir_folder(folder)?;
                }
                let rel = self.dir_entry_name(msg)?;
                let Sink::Dir(d) = &self.sink else {
                    return Err(self.io_err(io::Error::other("not a directory output")));
                };
                let Some(root) = d.tmp.as_ref() else {
                    return Err(self.io_err(io::Error::other("write after finish")));
                };
                let path = root.join(&rel);
                let res = (|| {
                    still_there(root)?;
                    if let Some(p) = path.parent() {
                        std::fs::create_dir_all(p)?;
                    }
                    let mut f = File::create_new(&path)?;
                    f.write_all(bytes)
                    // Not synced one by one: the tree only appears under
                    // its name once complete, and the input still exists.
                })();
                res.map_err(|e| MailboxError::io(self.name.join(&rel), None, e))?;
            }
        }
        self.written += 1;
        Ok(())
    }

    /// Writes one mbox entry straight to `w` (no copy of the message);
    /// returns whether the last byte written was not a line feed.
    fn frame_mbox(
        &self,
        flavor: MboxFlavor,
        msg: &RawMessage,
        bytes: &[u8],
        has_from: Option<bool>,
        w: &mut dyn Write,
    ) -> io::Result<bool> {
        let eol: &[u8] = if flavor.crlf { b"\r\n" } else { b"\n" };
        if self.open_line {
            w.write_all(eol)?;
        }
        let mut made_up = Vec::new();
        let (from_line, separator, cl_used): (&[u8], &[u8], bool) = match &msg.origin {
            Origin::Mbox {
                from_line,
                separator,
                content_length,
                ..
            } if !(from_line.is_empty() && self.written > 0) => {
                (from_line, separator, *content_length)
            }
            _ => {
                made_up.extend_from_slice(b"From MAILER-DAEMON Thu Jan  1 00:00:00 1970");
                made_up.extend_from_slice(eol);
                (&made_up, eol, false)
            }
        };
        w.write_all(from_line)?;
        if flavor.format == MboxFormat::ContentLength {
            write_content_length_body(bytes, cl_used, separator.len(), has_from, w)?;
        } else if has_from == Some(false) {
            w.write_all(bytes)?;
        } else {
            quote_into(bytes, flavor.format, w)?;
        }
        let mut last = bytes.last().or(from_line.last()).copied();
        if !separator.is_empty() && !bytes.is_empty() && !bytes.ends_with(b"\n") {
            w.write_all(eol)?;
            last = Some(b'\n');
        }
        w.write_all(separator)?;
        Ok(separator
            .last()
            .copied()
            .or(last)
            .is_some_and(|b| b != b'\n'))
    }

    fn dir_entry_name(&self, msg: &RawMessage) -> Result<PathBuf, MailboxError> {
        let rel = match (&msg.origin, self.kind) {
            (
                Origin::Maildir {
                    folder,
                    subdir,
                    name,
                },
                OutputKind::Maildir,
            ) => Path::new(folder).join(subdir.as_str()).join(name),
            // In a folder a dot directory would be skipped when read back.
            (
                Origin::Maildir {
                    folder,
                    subdir,
                    name,
                },
                OutputKind::Folder,
            ) => Path::new(without_dot(folder))
                .join(subdir.as_str())
                .join(name),
            (_, OutputKind::Maildir) => Path::new(MaildirSubdir::New.as_str())
                .join(format!("{:010}.mailcharset", msg.index)),
            (Origin::File { relative }, OutputKind::Folder) if !relative.as_os_str().is_empty() => {
                relative.clone()
            }
            _ => PathBuf::from(format!("{:08}.eml", msg.index)),
        };
        if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(MailboxError::Unrepresentable {
                path: self.name.clone(),
                index: msg.index,
                reason: format!("unsafe output name {}", rel.display()),
            });
        }
        Ok(rel)
    }

    /// Completes the output: flushes and renames the temporary into place.
    /// Without this call nothing appears under the destination name.
    pub fn finish(self) -> Result<(), MailboxError> {
        let name = self.name;
        match self.sink {
            Sink::File(f) => f.commit(),
            Sink::Stream(mut s) => s.flush().map_err(|e| MailboxError::io(&name, None, e)),
            Sink::Dir(d) => d.commit(),
            Sink::InPlaceDir(_) | Sink::Taken => Ok(()),
        }
    }
}

fn write_stream(sink: &mut Sink, name: &Path, bytes: &[u8]) -> Result<(), MailboxError> {
    let r = match sink {
        Sink::File(f) => f.writer()?.write_all(bytes),
        Sink::Stream(s) => s.write_all(bytes),
        Sink::Dir(_) | Sink::InPlaceDir(_) | Sink::Taken => {
            Err(io::Error::other("not a stream output"))
        }
    };
    r.map_err(|e| MailboxError::io(name, None, e))
}

/// Content-Length mbox body: when the reader relied on the header, keep it
/// true to the (possibly changed) body; when the header is not true and a
/// line starts with `From `, quote those lines mboxo-style so that the
/// output still splits where it should.
fn write_content_length_body(
    bytes: &[u8],
    cl_used: bool,
    separator_len: usize,
    has_from: Option<bool>,
    w: &mut dyn Write,
) -> io::Result<()> {
    let hend = header_end(bytes).unwrap_or(bytes.len());
    let body_len = (bytes.len() - hend) as u64;
    // The reader accepts a length that ends before or after the separator.
    let fits =
        |n: u64| n == body_len || (separator_len > 0 && n == body_len + separator_len as u64);
    match content_length_field(&bytes[..hend]) {
        Some((n, _)) if fits(n) => w.write_all(bytes),
        Some((_, range)) if cl_used => {
            w.write_all(&bytes[..range.start])?;
            w.write_all(body_len.to_string().as_bytes())?;
            w.write_all(&bytes[range.end..])
        }
        _ => {
            let has_from = has_from != Some(false)
                && (bytes.starts_with(b"From ") || super::mbox::NL_FROM.find(bytes).is_some());
            if has_from {
                quote_into(bytes, MboxFormat::Mboxo, w)
            } else {
                w.write_all(bytes)
            }
        }
    }
}
