//! The atomic-file machinery: everything goes to a temporary file or
//! directory next to the destination and is renamed into place when
//! complete. Dropping a writer without committing (an error, a panic)
//! removes the temporary; a killed process leaves at most a hidden
//! `.NAME.*.mailcharset-tmp` entry and never a half-written file under the
//! final name. Every run holds a lock on its temporaries, and the next run
//! writing the same mbox, Maildir or folder removes those nobody holds
//! ([`remove_stale_temporaries`]). In place, a file keeps a backup this run
//! made until the new one is in place.

use super::MailboxError;
use super::lock::FileStamp;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

/// Whether the destination is a new/replaced output or the input itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteMode {
    /// Write to a temporary and rename over the destination.
    Replace,
    /// The destination is the input: keep a backup ([`backup_path`])
    /// until the new output is complete and in place, then remove it.
    InPlace,
}

/// Refuses an output that is the input itself (same file or directory)
/// unless the run is in place (without `--in-place` the input is never
/// modified), and, in place or not, an output inside the input or an
/// input inside the output: a directory output is built beside its
/// destination and swapped in whole, so an output that held the input
/// (`normalize Mail/inbox -o Mail`) deleted it, and one inside it
/// (`normalize inbox -o inbox/cur`) replaced part of it while it was read.
pub fn check_output(input: &Path, output: &Path, mode: WriteMode) -> Result<(), MailboxError> {
    if input.as_os_str() == "-" {
        return Ok(());
    }
    let Ok(inp) = std::fs::canonicalize(input) else {
        return Ok(());
    };
    let out = canonical_target(output);
    if inp == out {
        return if mode == WriteMode::InPlace {
            Ok(())
        } else {
            Err(MailboxError::OutputIsInput {
                path: output.to_path_buf(),
            })
        };
    }
    match overlap(&out, &inp) {
        Some(relation) => Err(MailboxError::OutputOverlapsInput {
            path: output.to_path_buf(),
            input: input.to_path_buf(),
            relation,
        }),
        None => Ok(()),
    }
}

/// [`check_output`] for a run of several inputs, before anything is
/// written: `outputs[i]` against its own input `inputs[i]`, and against
/// every other input too (in place or not, it must be neither one of them,
/// nor inside one, nor hold one). Each input is written in turn, so an
/// output checked only against its own input replaced a mailbox of another
/// input before that input's turn came (`normalize inbox d -o d`, `d`
/// holding `d/inbox`: the top-level inbox replaced `d/inbox`). The
/// directories an output's parent needs are inside or around the output,
/// so they are covered by the same check. Standard input (`-`) is skipped.
pub fn check_outputs(
    inputs: &[PathBuf],
    outputs: &[PathBuf],
    mode: WriteMode,
) -> Result<(), MailboxError> {
    let canon: Vec<Option<PathBuf>> = inputs
        .iter()
        .map(|i| {
            (i.as_os_str() != "-")
                .then(|| std::fs::canonicalize(i).ok())
                .flatten()
        })
        .collect();
    for (k, (input, output)) in inputs.iter().zip(outputs).enumerate() {
        check_output(input, output, mode)?;
        let out = canonical_target(output);
        for (j, other) in inputs.iter().enumerate() {
            if j == k {
                continue;
            }
            let Some(inp) = &canon[j] else { continue };
            if let Some(relation) = overlap(&out, inp) {
                return Err(MailboxError::OutputOverlapsInput {
                    path: output.clone(),
                    input: other.clone(),
                    relation,
                });
            }
        }
    }
    Ok(())
}

/// How the path `a` stands to the input `b` (both canonical): the same,
/// inside it, holding it, or apart (None).
fn overlap(a: &Path, b: &Path) -> Option<&'static str> {
    if a == b {
        Some("is the input")
    } else if a.starts_with(b) {
        Some("is inside the input")
    } else if b.starts_with(a) {
        Some("holds the input")
    } else {
        None
    }
}

/// Refuses a report (`--report`, `audit -o`) that is, or is inside, one of
/// `inputs` (it was written over the mailbox it reports on), or that is,
/// is inside, or holds `output`.
pub fn check_report(
    report: &Path,
    inputs: &[PathBuf],
    output: Option<&Path>,
) -> Result<(), MailboxError> {
    let rep = canonical_target(report);
    for input in inputs.iter().filter(|i| i.as_os_str() != "-") {
        if let Ok(inp) = std::fs::canonicalize(input)
            && let Some(relation) = overlap(&rep, &inp)
        {
            return Err(MailboxError::OutputOverlapsInput {
                path: report.to_path_buf(),
                input: input.clone(),
                relation,
            });
        }
    }
    if let Some(out) = output
        && let Some(relation) = overlap(&rep, &canonical_target(out))
    {
        return Err(MailboxError::OutputOverlapsInput {
            path: report.to_path_buf(),
            input: out.to_path_buf(),
            relation: match relation {
                "is the input" => "is the output",
                "is inside the input" => "is inside the output",
                _ => "holds the output",
            },
        });
    }
    Ok(())
}

/// `path` made absolute and free of symbolic links and `..` as far as it
/// exists, the rest appended: an output need not exist yet.
fn canonical_target(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(c) = std::fs::canonicalize(&existing) {
            return rest
                .iter()
                .rev()
                .fold(c, |p, n: &std::ffi::OsString| p.join(n));
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_owned());
                existing = if parent.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    parent.to_path_buf()
                };
            }
            // `..` or a root that does not resolve: compared as written.
            _ => return path.to_path_buf(),
        }
    }
}

/// The file a directory output (Maildir, folder) carries at its top, so
/// that a later run may replace it: an existing directory without it is
/// the user's, and is never replaced unless empty.
pub const OUTPUT_MARKER: &str = ".mailcharset-output";

/// What [`OUTPUT_MARKER`] says to whoever opens it.
const OUTPUT_MARKER_TEXT: &str = "This directory was written by mailcharset normalize. \
A later run with -o naming it replaces it whole;\nwithout this file, an existing \
directory that is not empty is refused as an output.\n";

/// Whether `dir` may be replaced by a directory output: it does not exist,
/// is empty, or carries [`OUTPUT_MARKER`].
fn replaceable_dir(dir: &Path) -> bool {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_none() || dir.join(OUTPUT_MARKER).is_file(),
        Err(_) => true,
    }
}

/// The backup an in-place run keeps of a file until the new one is in
/// place: `.NAME.mailcharset-bak` beside it, a hidden name that the folder
/// and Maildir readers pass over and mail clients do not show. (It was
/// `NAME.bak`: a killed run left it, and the next run over the folder read
/// it as one more mailbox, every message twice.)
///
/// A name too long for that (NAME_MAX, 255 octets, less the 17 added) is
/// shortened as `bounded_stem` says.
pub fn backup_path(path: &Path) -> PathBuf {
    let stem = bounded_stem(path, NAME_MAX - 1 - BAK_SUFFIX.len());
    parent_of(path).join(format!(".{stem}{BAK_SUFFIX}"))
}

/// The longest file name the file systems mail is kept on take
/// (`NAME_MAX`).
pub(super) const NAME_MAX: usize = 255;

/// The name of `path` as the hidden names made beside it carry it
/// (`.NAME.XXXXXX.mailcharset-tmp`, `.NAME.mailcharset-bak`, ...), in at
/// most `room` octets: the name itself when it fits, else its first octets
/// (whole characters), `~` and eight hex digits of a hash of the whole
/// name, so that two long names that start alike still get names of
/// their own. (A legal name of 232 octets or more gave a temporary past
/// NAME_MAX: the in-place run over a Maildir stopped at that message with
/// exit 74, the messages after it left as they were.) A name that is not
/// UTF-8 is carried with U+FFFD for its stray octets (the hash is of its
/// octets).
pub(super) fn bounded_stem(path: &Path, room: usize) -> String {
    let name = path.file_name().unwrap_or_default();
    let lossy = name.to_string_lossy();
    if lossy.len() <= room {
        return lossy.into_owned();
    }
    // FNV-1a, folded to 32 bits.
    let h = name
        .as_encoded_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    let tag = format!("~{:08x}", (h ^ (h >> 32)) as u32);
    let mut cut = room.saturating_sub(tag.len());
    while !lossy.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{tag}", &lossy[..cut])
}

/// The end of a backup's name ([`backup_path`]).
const BAK_SUFFIX: &str = ".mailcharset-bak";

pub(super) const TMP_SUFFIX: &str = ".mailcharset-tmp";

pub(super) fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// `.NAME.`, the start of a temporary's name beside `path` (the random
/// part and [`TMP_SUFFIX`] follow, and `.old` for a directory swapped
/// aside): with them it stays within [`NAME_MAX`] ([`bounded_stem`]).
pub(super) fn tmp_prefix(path: &Path) -> String {
    let stem = bounded_stem(
        path,
        NAME_MAX - 2 - TMP_RANDOM - TMP_SUFFIX.len() - ".old".len(),
    );
    format!(".{stem}.")
}

/// The random letters and digits of a temporary's name.
const TMP_RANDOM: usize = 6;

/// How long an unlocked temporary must have been left alone before it
/// counts as a killed run's. A run locks each temporary right after
/// creating it; this only covers that moment.
pub(super) const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(2);

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
pub(super) enum Temporaries {
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
pub(super) fn remove_stale_in(dir: &Path, which: &Temporaries) -> usize {
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
pub(super) fn newest_change(
    path: &Path,
    meta: &std::fs::Metadata,
) -> Option<std::time::SystemTime> {
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
pub(super) fn hold(f: &File) {
    let _ = f.try_lock();
}

pub(super) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// A file written to a temporary in the destination directory and renamed
/// into place on [`AtomicFile::commit`].
pub struct AtomicFile {
    dest: PathBuf,
    tmp: Option<BufWriter<Target>>,
    /// The backup this run made (in place): the only one it may remove.
    backup: Option<PathBuf>,
    /// In place: what the input was when the run started; the new file is
    /// put in place only if it still is ([`AtomicFile::expect_unchanged`]).
    expect: Option<FileStamp>,
    /// In place: the new file gets the input's times (a single message),
    /// rather than an mbox's ([`TimesRule`]).
    keep_times: bool,
}

/// What times a file written in place (or a message file written with
/// `-o`) gets, from the times of the file it replaces or copies
/// (doc/mailbox.md, "File times").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TimesRule {
    /// A message file: the same access and modification times (a
    /// Maildir's received date is its modification time).
    Keep,
    /// An mbox: modified now (it was: mail clients, Dovecot and MDAs
    /// look at the time to see that it changed); accessed a second
    /// before that when it was read no later than modified before (mail
    /// came in since it was last read: "new mail", as mutt, biff and
    /// shells tell it), else now too.
    Mbox,
}

impl TimesRule {
    /// The times a new file gets when the file it replaces had `old`.
    pub(super) fn apply(self, f: &File, old: super::SourceTimes) -> io::Result<()> {
        let times = match self {
            TimesRule::Keep => std::fs::FileTimes::new()
                .set_accessed(old.accessed)
                .set_modified(old.modified),
            TimesRule::Mbox => {
                let now = std::time::SystemTime::now();
                let accessed = if old.accessed < old.modified {
                    now.checked_sub(std::time::Duration::from_secs(1))
                        .unwrap_or(now)
                } else {
                    now
                };
                std::fs::FileTimes::new()
                    .set_accessed(accessed)
                    .set_modified(now)
            }
        };
        f.set_times(times)
    }
}

/// Where an [`AtomicFile`]'s bytes go.
pub(super) enum Target {
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
pub(super) fn resolve_link(dest: &Path) -> PathBuf {
    match std::fs::symlink_metadata(dest) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(dest).unwrap_or_else(|_| dest.to_path_buf())
        }
        _ => dest.to_path_buf(),
    }
}

/// The destination exists and is neither a regular file nor a directory.
pub(super) fn is_special(dest: &Path) -> bool {
    std::fs::metadata(dest).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

impl AtomicFile {
    /// A temporary next to `dest` (or, for a device or FIFO, `dest` itself); in place, a backup of the input first.
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
                expect: None,
                keep_times: false,
            });
        }
        let dest = resolved.as_path();
        let dir = parent_of(dest);
        missing_dir(dest, dir)?;
        let backup = if mode == WriteMode::InPlace {
            Some(make_backup(dest)?)
        } else {
            None
        };
        let prefix = tmp_prefix(dest);
        let tmp = tmp_builder(&prefix, dest, false)
            .tempfile_in(dir)
            .map_err(|e| tmp_error(dest, dir, e))?;
        hold(tmp.as_file());
        Ok(AtomicFile {
            dest: dest.to_path_buf(),
            tmp: Some(BufWriter::with_capacity(1 << 20, Target::Temp(tmp))),
            backup,
            expect: None,
            keep_times: false,
        })
    }

    /// In place: the new file replaces the input only if the input is
    /// still what `stamp` says (taken before the input was opened for
    /// reading); otherwise [`AtomicFile::commit`] fails with
    /// [`MailboxError::Changed`] and leaves the input as it is.
    pub fn expect_unchanged(&mut self, stamp: FileStamp) {
        self.expect = Some(stamp);
    }

    /// In place, the new file gets the input's access and modification
    /// times ([`TimesRule::Keep`], a single message) rather than an
    /// mbox's ([`TimesRule::Mbox`], the default).
    pub(super) fn keep_times(&mut self) {
        self.keep_times = true;
    }

    /// [`MailboxError::Changed`] if the destination is no longer what
    /// [`AtomicFile::expect_unchanged`] said (checked again on commit).
    pub fn check_unchanged(&self) -> Result<(), MailboxError> {
        match self.expect {
            Some(stamp) if FileStamp::of(&self.dest).ok() != Some(stamp) => {
                Err(MailboxError::Changed {
                    path: self.dest.clone(),
                })
            }
            _ => Ok(()),
        }
    }

    /// The destination.
    pub fn path(&self) -> &Path {
        &self.dest
    }

    /// How many octets were written so far (flushed to the temporary).
    pub fn written_len(&mut self) -> Result<u64, MailboxError> {
        let dest = self.dest.clone();
        let w = self.buf()?;
        w.flush().map_err(|e| MailboxError::io(&dest, None, e))?;
        match w.get_mut() {
            Target::Temp(t) => t
                .as_file_mut()
                .stream_position()
                .map_err(|e| MailboxError::io(&dest, None, e)),
            Target::Direct(_) => Ok(0),
        }
    }

    /// Takes back what was written after the first `len` octets
    /// ([`AtomicFile::written_len`]): the lines of a report for an output that was
    /// not put in place after all. Nothing can be taken back from a device
    /// or pipe written straight into.
    pub fn truncate(&mut self, len: u64) -> Result<(), MailboxError> {
        let dest = self.dest.clone();
        let err = |e| MailboxError::io(&dest, None, e);
        let w = self.buf()?;
        w.flush().map_err(err)?;
        if let Target::Temp(t) = w.get_mut() {
            let f = t.as_file_mut();
            f.set_len(len).map_err(err)?;
            f.seek(io::SeekFrom::Start(len)).map_err(err)?;
        }
        Ok(())
    }

    /// Where the bytes go (buffered; the temporary file).
    pub fn writer(&mut self) -> Result<&mut (impl Write + use<>), MailboxError> {
        self.buf()
    }

    fn buf(&mut self) -> Result<&mut BufWriter<Target>, MailboxError> {
        let dest = &self.dest;
        self.tmp
            .as_mut()
            .ok_or_else(|| MailboxError::io(dest, None, io::Error::other("write after commit")))
    }

    /// Flushes, syncs and renames the temporary over the destination; in
    /// place, removes the backup afterwards. When it fails before the
    /// rename (a full disk on the last flush), the input is untouched: the
    /// temporary goes, and so does the backup this run made.
    pub fn commit(self) -> Result<(), MailboxError> {
        self.commit_late().map(|_| ())
    }

    /// [`AtomicFile::commit`], returning how many octets a late writer
    /// appended to the input between the last check and the rename (in
    /// place, with [`AtomicFile::expect_unchanged`]): they went into the
    /// old file, and were copied unchanged to the end of the new one.
    pub fn commit_late(self) -> Result<u64, MailboxError> {
        self.commit_with(|| {})
    }

    /// [`AtomicFile::commit_with`]; `fail_late` makes the copy of what a
    /// late writer appended fail, as a full disk does (tests).
    pub(super) fn commit_with(self, after_rename: impl FnOnce()) -> Result<u64, MailboxError> {
        self.commit_hooked(after_rename, false)
    }

    /// [`AtomicFile::commit_late`], calling `after_rename` right after the
    /// rename (tests stand in for a late writer there).
    fn commit_hooked(
        mut self,
        after_rename: impl FnOnce(),
        fail_late: bool,
    ) -> Result<u64, MailboxError> {
        let err = |e| MailboxError::io(&self.dest, None, e);
        let Some(w) = self.tmp.take() else {
            return Ok(0);
        };
        let expect = self.expect;
        let dest = self.dest.clone();
        // In place: an interrupting signal waits until the input is
        // complete and the old file dealt with (`lock::critical`).
        let _critical = (expect.is_some() || self.backup.is_some()).then(super::lock::critical);
        let renamed = (|| {
            let tmp = match w.into_inner().map_err(|e| err(e.into_error()))? {
                Target::Temp(t) => t,
                // A device or pipe: written straight through, nothing to rename.
                Target::Direct(_) => return Ok(None),
            };
            // Keep the original owner, group and permissions when
            // replacing a file.
            if let Ok(meta) = std::fs::metadata(&self.dest) {
                copy_owner(tmp.as_file(), &meta);
                let _ = tmp.as_file().set_permissions(meta.permissions());
            }
            // In place: the input, opened (and kept open: the old file
            // once the rename is done) and checked right before the rename.
            // In place: the times of the input, as it was before it was
            // read, by the rule for what it is.
            if let Some(times) = expect.and_then(|s| s.times()) {
                let rule = if self.keep_times {
                    TimesRule::Keep
                } else {
                    TimesRule::Mbox
                };
                rule.apply(tmp.as_file(), times).map_err(err)?;
            }
            tmp.as_file().sync_all().map_err(err)?;
            let old = match expect {
                Some(stamp) => {
                    let changed = || MailboxError::Changed { path: dest.clone() };
                    let f = File::open(&self.dest).map_err(|_| changed())?;
                    if FileStamp::of_file(&f).ok() != Some(stamp) {
                        return Err(changed());
                    }
                    Some((f, stamp.len()))
                }
                None => None,
            };
            // On failure the temporary comes back in the error and is
            // removed with it.
            let new = tmp.persist(&self.dest).map_err(|e| err(e.error))?;
            Ok(Some((new, old)))
        })();
        let late = match renamed {
            Ok(Some((new, old))) => {
                after_rename();
                match old {
                    Some((old, len)) => {
                        let copied = if fail_late {
                            Err(io::Error::other("no space left on device (a test's)"))
                        } else {
                            append_late(&old, len, new)
                        };
                        match copied {
                            Ok(n) => n,
                            // The late mail is only in the old file: the
                            // backup keeps it (it is the old file, or is
                            // made so), and the error says where.
                            Err(e) => {
                                let bak = self.backup.take();
                                return Err(err(late_copy_failed(e, &old, len, bak.as_deref())));
                            }
                        }
                    }
                    None => 0,
                }
            }
            Ok(None) => return Ok(0),
            Err(e) => {
                if let Some(bak) = self.backup.take() {
                    let _ = std::fs::remove_file(bak);
                }
                return Err(e);
            }
        };
        sync_dir(parent_of(&self.dest)).map_err(err)?;
        if let Some(bak) = self.backup.take() {
            std::fs::remove_file(&bak).map_err(|e| MailboxError::io(&bak, None, e))?;
        }
        Ok(late)
    }
}

/// In place, right after the rename: what a late writer appended to the
/// old file `old` past `len` (the size checked before the rename) is
/// copied, unchanged, to the end of the new file `new`. Whole messages (an
/// MDA appends whole messages): they are not normalized, but not lost.
/// Returns how many octets were copied.
fn append_late(mut old: &File, len: u64, mut new: File) -> io::Result<u64> {
    let now = old.metadata()?.len();
    if now <= len {
        return Ok(0);
    }
    old.seek(io::SeekFrom::Start(len))?;
    new.seek(io::SeekFrom::End(0))?;
    let n = io::copy(&mut Read::take(&mut old, now - len), &mut new)?;
    new.sync_all()?;
    Ok(n)
}

/// The copy of what a late writer appended to the old file (past `len`)
/// failed with `e`: that mail is in the old file alone. The backup `bak`
/// keeps it: a hard link is the old file itself; a copy (of the input as
/// it was read) gets those octets appended. Returns the error to give,
/// saying where the mail is. (The error said nothing, and the next run
/// replaced the backup: the mail was gone.)
fn late_copy_failed(e: io::Error, old: &File, len: u64, bak: Option<&Path>) -> io::Error {
    let Some(bak) = bak else {
        return e;
    };
    let now = old.metadata().map(|m| m.len()).unwrap_or(len);
    let same = match (old.metadata(), std::fs::metadata(bak)) {
        (Ok(a), Ok(b)) => super::lock::same_file(&a, &b),
        _ => false,
    };
    let kept = same
        || (|| -> io::Result<()> {
            let mut to = std::fs::OpenOptions::new().append(true).open(bak)?;
            let mut from = old;
            from.seek(io::SeekFrom::Start(len))?;
            io::copy(&mut Read::take(from, now.saturating_sub(len)), &mut to)?;
            to.sync_all()
        })()
        .is_ok();
    let what = if kept {
        format!(
            "{} octets another program appended at the rename are not in the new file: \
             they are at the end of {} (the input's old version, from octet {len}), which \
             is kept; copy them to the input from there, then remove it",
            now.saturating_sub(len),
            bak.display()
        )
    } else {
        format!(
            "{} octets another program appended at the rename could not be kept",
            now.saturating_sub(len)
        )
    };
    io::Error::new(e.kind(), format!("{e}; {what}"))
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

/// Makes the backup ([`backup_path`]) for an in-place run: a hard link to
/// the input (or a copy where links are not possible). One that is
/// already there is a killed run's, and it is replaced: a run killed
/// before its rename left a link to the input itself (or part of a copy),
/// one killed after it the old version of an input that is now the
/// complete new file; either way the input is complete. (The commit and
/// an interrupting signal do not overlap: `lock::CRITICAL`.) A file the
/// user named `NAME.bak` is not ours and is left alone.
pub(super) fn make_backup(dest: &Path) -> Result<PathBuf, MailboxError> {
    let bak = backup_path(dest);
    match std::fs::symlink_metadata(&bak) {
        Ok(meta) if meta.is_file() => {
            if !stale_backup(dest, &bak).map_err(|e| MailboxError::io(&bak, None, e))? {
                return Err(MailboxError::BackupKept {
                    path: dest.to_path_buf(),
                    backup: bak,
                });
            }
            std::fs::remove_file(&bak).map_err(|e| MailboxError::io(&bak, None, e))?;
        }
        Ok(_) => {
            return Err(MailboxError::io(
                &bak,
                None,
                io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "exists and is not a file this program made; move it away \
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
        if let Err(e) = io::copy(&mut from, &mut to).and_then(|_| to.sync_all()) {
            // A partial copy (a full disk) is no backup: it goes.
            drop(to);
            let _ = std::fs::remove_file(&bak);
            return Err(MailboxError::io(&bak, None, e));
        }
    }
    Ok(bak)
}

/// Whether the backup `bak` left by an earlier run may be replaced: it
/// holds nothing the input `dest` lacks, being the input itself (a hard
/// link: a run killed before its rename) or, octet for octet, the start of
/// it (a copy, complete or not, of the input as it was; mail appended to
/// the input since). Anything else (the old version of an input replaced,
/// with what a late writer appended at the rename and a failed copy left
/// there alone) may hold mail the input does not: it is kept, and the run
/// refuses to go on until the user has looked at it.
fn stale_backup(dest: &Path, bak: &Path) -> io::Result<bool> {
    let (d, b) = (std::fs::metadata(dest)?, std::fs::metadata(bak)?);
    if super::lock::same_file(&d, &b) {
        return Ok(true);
    }
    if b.len() > d.len() {
        return Ok(false);
    }
    let mut input = io::BufReader::with_capacity(1 << 16, File::open(dest)?);
    let mut backup = io::BufReader::with_capacity(1 << 16, File::open(bak)?);
    loop {
        let chunk = io::BufRead::fill_buf(&mut backup)?;
        if chunk.is_empty() {
            return Ok(true);
        }
        let n = chunk.len();
        let mut theirs = vec![0; n];
        match input.read_exact(&mut theirs) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(false),
            Err(e) => return Err(e),
        }
        if theirs != chunk {
            return Ok(false);
        }
        io::BufRead::consume(&mut backup, n);
    }
}

/// Gives `f`, a new file about to replace the file `old` describes, that
/// file's owner and group: a mailbox an administrator normalizes as root
/// (`/var/mail/alice`, `nobody:mail` 0660; a user's Maildir) stays its
/// owner's, and an MDA that delivers as the user or the `mail` group can
/// still write to it. (It became `root:root`.) A run that may not give a
/// file away (not root: `EPERM`) gives it the group alone when the runner
/// is in it, and otherwise leaves it as created, the runner's, which is
/// the owner's anyway when users normalize their own mail. The caller sets
/// the permissions afterwards (a change of owner may clear set-id bits).
pub(super) fn copy_owner(f: &File, old: &std::fs::Metadata) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let (uid, gid) = (old.uid(), old.gid());
        if f.metadata().is_ok_and(|m| m.uid() == uid && m.gid() == gid) {
            return;
        }
        if std::os::unix::fs::fchown(f, Some(uid), Some(gid)).is_err() {
            let _ = std::os::unix::fs::fchown(f, None, Some(gid));
        }
    }
    #[cfg(not(unix))]
    let _ = (f, old);
}

/// The permissions an output gets: those of the file or directory it
/// replaces, or else what a plain create would give (0666 or 0777 less the
/// umask, which the system applies), not the owner-only mode of a
/// temporary. None where the platform's default for a new file is right.
pub(super) fn output_permissions(dest: &Path, dir: bool) -> Option<std::fs::Permissions> {
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
pub(super) fn tmp_builder<'a>(
    prefix: &'a str,
    dest: &Path,
    dir: bool,
) -> tempfile::Builder<'a, 'static> {
    let mut b = tempfile::Builder::new();
    b.prefix(prefix).suffix(TMP_SUFFIX);
    if let Some(p) = output_permissions(dest, dir) {
        b.permissions(p);
    }
    b
}

/// An error unless the temporary directory `root` still exists: creating
/// a message's directories would otherwise make a new, partial tree where
/// a removed one was, and it would be renamed into place as complete.
pub(super) fn still_there(root: &Path) -> io::Result<()> {
    if root.is_dir() {
        Ok(())
    } else {
        Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("the temporary directory {} was removed", root.display()),
        ))
    }
}

/// [`MailboxError::OutputDirMissing`] when the directory an output goes
/// in does not exist (the temporary would fail there with an error naming
/// the temporary, and "no such file" read as a missing input).
fn missing_dir(dest: &Path, dir: &Path) -> Result<(), MailboxError> {
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(MailboxError::OutputDirMissing {
            path: dest.to_path_buf(),
            dir: dir.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

/// An error making the temporary for `dest` in `dir`, told without the
/// temporary's made-up name.
fn tmp_error(dest: &Path, dir: &Path, e: io::Error) -> MailboxError {
    let kind = e.kind();
    MailboxError::io(
        dest,
        None,
        io::Error::new(
            kind,
            format!("cannot create a file in {}: {kind}", dir.display()),
        ),
    )
}

/// [`MailboxError::OutputNotSwappable`] for a directory output that cannot
/// be renamed into place: `.`, `..` or `/` as written, the current
/// directory or one holding it, a mount point. (`-o .` failed with EBUSY at
/// the very end and left a hidden full copy of the tree behind.)
fn unswappable(dest: &Path) -> Result<(), MailboxError> {
    let refuse = |why: &'static str| {
        Err(MailboxError::OutputNotSwappable {
            path: dest.to_path_buf(),
            why,
        })
    };
    if matches!(
        dest.components().next_back(),
        None | Some(std::path::Component::CurDir)
            | Some(std::path::Component::ParentDir)
            | Some(std::path::Component::RootDir)
    ) {
        return refuse("it is `.`, `..` or the root as written");
    }
    let Ok(canon) = std::fs::canonicalize(dest) else {
        return Ok(());
    };
    if let Ok(cwd) = std::env::current_dir().and_then(std::fs::canonicalize)
        && cwd.starts_with(&canon)
    {
        return refuse("it is or holds the current directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let dev = |p: &Path| std::fs::metadata(p).map(|m| m.dev()).ok();
        match canon.parent() {
            None => return refuse("it is the root directory"),
            Some(parent) if dev(&canon) != dev(parent) => {
                return refuse("it is a mount point");
            }
            _ => {}
        }
    }
    Ok(())
}

/// A directory built next to its destination and renamed into place.
pub(super) struct AtomicDir {
    pub(super) dest: PathBuf,
    pub(super) tmp: Option<PathBuf>,
    /// The temporary directory, open and locked while the run lasts.
    pub(super) _lock: Option<File>,
}

impl AtomicDir {
    pub(super) fn create(dest: &Path) -> Result<Self, MailboxError> {
        // A symbolic link stays a link: its target is what is replaced.
        let resolved = resolve_link(dest);
        let dest = resolved.as_path();
        if dest.exists() && !dest.is_dir() {
            return Err(MailboxError::OutputExists {
                path: dest.to_path_buf(),
            });
        }
        missing_dir(dest, parent_of(dest))?;
        unswappable(dest)?;
        if !replaceable_dir(dest) {
            return Err(MailboxError::OutputNotEmpty {
                path: dest.to_path_buf(),
            });
        }
        remove_stale_temporaries(dest);
        let prefix = tmp_prefix(dest);
        let tmp = tmp_builder(&prefix, dest, true)
            .tempdir_in(parent_of(dest))
            .map_err(|e| tmp_error(dest, parent_of(dest), e))?
            .keep();
        let lock = File::open(&tmp).ok();
        if let Some(f) = &lock {
            hold(f);
            // An earlier output it replaces: its owner and group too.
            if let Ok(meta) = std::fs::metadata(dest) {
                copy_owner(f, &meta);
                let _ = f.set_permissions(meta.permissions());
            }
        }
        Ok(AtomicDir {
            dest: dest.to_path_buf(),
            tmp: Some(tmp),
            _lock: lock,
        })
    }

    /// Renames the tree into place. When that fails, the destination is
    /// as it was (an earlier output moved aside is moved back) and the
    /// temporary tree goes (a full copy of the output, it was left behind).
    pub(super) fn commit(mut self) -> Result<(), MailboxError> {
        let Some(tmp) = self.tmp.clone() else {
            return Ok(());
        };
        let err = |e| MailboxError::io(&self.dest, None, e);
        std::fs::write(tmp.join(OUTPUT_MARKER), OUTPUT_MARKER_TEXT).map_err(err)?;
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
        if let Err(e) = std::fs::rename(&tmp, &self.dest) {
            if let Some(old) = &old {
                let _ = std::fs::rename(old, &self.dest);
            }
            // The temporary tree goes with `self`.
            return Err(err(e));
        }
        self.tmp = None;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every hidden name made beside a file stays within NAME_MAX, and a
    /// name that fits is carried as it is.
    #[test]
    fn hidden_names_stay_within_name_max() {
        let short = Path::new("d/inbox");
        assert_eq!(tmp_prefix(short), ".inbox.");
        assert_eq!(backup_path(short), Path::new("d/.inbox.mailcharset-bak"));
        for n in [1, 200, 226, 227, 228, 231, 232, 238, 239, 255] {
            for c in ["h", "\u{e9}", "\u{65e5}"] {
                let name = c.repeat(n);
                let name = &name[..name.floor_char_boundary(255.min(name.len()))];
                let p = Path::new("d").join(name);
                let tmp = format!("{}XXXXXX{TMP_SUFFIX}.old", tmp_prefix(&p));
                assert!(tmp.len() <= NAME_MAX, "{n} {c}: {}", tmp.len());
                let bak = backup_path(&p);
                assert!(bak.file_name().unwrap().len() <= NAME_MAX, "{n} {c}");
            }
        }
        // Two long names that start alike get names of their own.
        let a = Path::new(&"x".repeat(250)).with_extension("a");
        let b = Path::new(&"x".repeat(250)).with_extension("b");
        assert_ne!(tmp_prefix(&a), tmp_prefix(&b));
        assert_ne!(backup_path(&a), backup_path(&b));
    }

    #[test]
    fn what_a_late_writer_appends_to_the_old_file_is_kept_at_the_end_of_the_new() {
        // Between the last check and the rename a writer that ignores the
        // dotlock, with the old file open, appends a message: it went into
        // the unlinked file. It is now copied to the end of the new one.
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("box");
        let old = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: old\n\n\xe9\n\n";
        let late = b"From c@d Mon Jan  1 00:00:00 2001\nSubject: late\n\nx\n\n";
        std::fs::write(&path, old).expect("write");
        let stamp = FileStamp::of(&path).expect("stamp");
        let mut f = AtomicFile::create(&path, WriteMode::InPlace).expect("create");
        f.expect_unchanged(stamp);
        f.write_all(b"From a@b Mon Jan  1 00:00:00 2001\nSubject: new\n\n\xc3\xa9\n\n")
            .expect("write");
        // The backup is a hard link to the old file: appending there is
        // appending to the file the writer holds open.
        let bak = backup_path(&path);
        let n = f
            .commit_with(|| {
                let mut w = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&bak)
                    .expect("the old file");
                w.write_all(late).expect("late append");
            })
            .expect("commit");
        assert_eq!(n, late.len() as u64);
        let mut want = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: new\n\n\xc3\xa9\n\n".to_vec();
        want.extend_from_slice(late);
        assert_eq!(std::fs::read(&path).expect("read"), want);
    }

    /// The copy of what a late writer appended at the rename failed (a
    /// full disk): the mail was only in the backup, the error said nothing
    /// of it, and the next run replaced the backup. The backup is now kept,
    /// holding it, and the error names it.
    #[test]
    fn a_failed_copy_of_late_mail_keeps_the_backup_and_says_where_it_is() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("box");
        let old = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: old\n\n\xe9\n\n";
        let late = b"From c@d Mon Jan  1 00:00:00 2001\nSubject: late\n\nx\n\n";
        std::fs::write(&path, old).expect("write");
        let stamp = FileStamp::of(&path).expect("stamp");
        let mut f = AtomicFile::create(&path, WriteMode::InPlace).expect("create");
        f.expect_unchanged(stamp);
        f.write_all(b"From a@b Mon Jan  1 00:00:00 2001\nSubject: new\n\n\xc3\xa9\n\n")
            .expect("write");
        let bak = backup_path(&path);
        let e = f
            .commit_hooked(
                || {
                    let mut w = std::fs::OpenOptions::new()
                        .append(true)
                        .open(&bak)
                        .expect("the old file");
                    w.write_all(late).expect("late append");
                },
                true,
            )
            .expect_err("full disk");
        let mut want = old.to_vec();
        want.extend_from_slice(late);
        assert_eq!(std::fs::read(&bak).expect("backup kept"), want);
        assert!(e.to_string().contains(&bak.display().to_string()), "{e}");
        // A later run does not replace it.
        assert!(matches!(
            AtomicFile::create(&path, WriteMode::InPlace),
            Err(MailboxError::BackupKept { .. })
        ));
        assert_eq!(std::fs::read(&bak).expect("backup kept"), want);

        // A backup that is a copy (no hard links) gets the late octets.
        let old_file = dir.path().join("old");
        std::fs::write(&old_file, &want).expect("write");
        let copy = dir.path().join("copy");
        std::fs::write(&copy, old).expect("write");
        let e = late_copy_failed(
            io::Error::other("full"),
            &File::open(&old_file).expect("open"),
            old.len() as u64,
            Some(&copy),
        );
        assert_eq!(std::fs::read(&copy).expect("copy"), want);
        assert!(e.to_string().contains("copy"), "{e}");
    }

    #[test]
    fn only_a_backup_with_nothing_the_input_lacks_is_replaced() {
        let dir = tempfile::tempdir().expect("tmp");
        let input = dir.path().join("box");
        let bak = backup_path(&input);
        std::fs::write(&input, b"abcdef").expect("write");
        for (backup, replaceable) in [
            (&b""[..], true),
            (b"abc", true),
            (b"abcdef", true),
            (b"abcdefg", false),
            (b"abX", false),
        ] {
            std::fs::write(&bak, backup).expect("write");
            assert_eq!(
                stale_backup(&input, &bak).expect("compare"),
                replaceable,
                "{backup:?}"
            );
        }
        std::fs::remove_file(&bak).expect("rm");
        std::fs::hard_link(&input, &bak).expect("link");
        assert!(stale_backup(&input, &bak).expect("compare"));
    }
}
