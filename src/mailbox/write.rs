//! The archive writers: [`MessageWriter`] writes messages back into an mbox
//! (framing, `From ` quoting, Content-Length), a Maildir (names, flags,
//! folders), a folder or one file, through the crash-safe machinery of
//! `atomic.rs` (a temporary renamed into place by `finish()`).

use super::atomic::{
    AtomicDir, AtomicFile, Temporaries, TimesRule, WriteMode, remove_stale_in,
    remove_stale_temporaries, still_there,
};
use super::mbox::{content_length_field, header_end, quote_into};
use super::replace::{Replaced, rename_message, replace_message};
use super::{MailboxError, MaildirSubdir, MboxFlavor, MboxFormat, Origin, RawMessage};
use std::fs::File;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

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

/// What a [`MessageWriter`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// An mbox of this flavor.
    Mbox(MboxFlavor),
    /// A Maildir (new, or the input in place).
    Maildir,
    /// A folder of message files.
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
    Stream(io::BufWriter<Counted>),
    Dir(AtomicDir),
    /// In place in a Maildir or folder: each changed message file is
    /// replaced atomically on its own (temporary + rename in its own
    /// directory), so mail delivered meanwhile, `tmp/` and dot files are
    /// left alone.
    InPlaceDir(PathBuf),
    /// Only while a message is being written.
    Taken,
}

/// A stream below the writer's buffer, counting the octets it accepted:
/// when its reader goes away, how many messages reached it whole.
struct Counted {
    inner: Box<dyn Write + Send>,
    accepted: u64,
}

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.accepted += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Counts what goes through to `w`.
struct Tally<'a> {
    w: &'a mut dyn Write,
    n: u64,
}

impl Write for Tally<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.w.write(buf)?;
        self.n += n as u64;
        Ok(n)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.w.write_all(buf)?;
        self.n += buf.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
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
    /// In place in a Maildir or folder: what another program did to a
    /// message file during the run, one line each, for the user.
    notes: Vec<String>,
    /// ... and whether a re-run would do more (a file was moved, deleted,
    /// rewritten or locked meanwhile, and not written back).
    retry: bool,
    /// A stream: the octets handed to it so far, where each message not
    /// yet known to have gone through ends, and how many have.
    handed: u64,
    ends: std::collections::VecDeque<u64>,
    through: usize,
    /// In place in a Maildir or folder: the directories whose stale
    /// temporaries were removed (each once, when its first message comes).
    cleaned: std::collections::HashSet<PathBuf>,
    /// The input is a Maildir's `cur/` or `new/` read as a folder: the
    /// files at its top are Maildir messages.
    maildir_top: bool,
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
    /// rename. Only mbox and single-message output. The writer buffers
    /// (1 MiB), so `out` need not; it keeps count of what `out` accepted,
    /// to say how many messages went through when `out` breaks.
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
        let counted = Counted {
            inner: out,
            accepted: 0,
        };
        Ok(Self::with_sink(
            Sink::Stream(io::BufWriter::with_capacity(1 << 20, counted)),
            kind,
            name,
        ))
    }

    fn with_sink(sink: Sink, kind: OutputKind, name: PathBuf) -> Self {
        MessageWriter {
            sink,
            kind,
            name,
            written: 0,
            open_line: false,
            folders: Default::default(),
            notes: Vec::new(),
            retry: false,
            handed: 0,
            ends: Default::default(),
            through: 0,
            cleaned: Default::default(),
            maildir_top: false,
        }
    }

    /// The input is a Maildir's `cur/` or `new/` named on its own and
    /// read as a folder ([`super::is_maildir_subdir`]): the files at its
    /// top are Maildir messages, whose size tags (`,S=`, `,W=`) are
    /// brought up to date as in a Maildir.
    pub fn files_are_maildir_messages(&mut self) {
        self.maildir_top = true;
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

    /// What is being written.
    pub fn kind(&self) -> OutputKind {
        self.kind
    }

    /// Messages written so far.
    pub fn written(&self) -> usize {
        self.written
    }

    fn io_err(&self, e: io::Error) -> MailboxError {
        MailboxError::io(&self.name, None, cut_short(e, self.went_through()))
    }

    /// How many messages reached the output whole: for a stream, those the
    /// system took (the last ones may still wait in a pipe for a reader
    /// that left); otherwise those handed to the output.
    fn went_through(&self) -> Went {
        match &self.sink {
            Sink::Stream(st) => {
                let accepted = st.get_ref().accepted;
                Went::Counted(
                    self.through + self.ends.iter().filter(|&&e| e <= accepted).count(),
                    accepted,
                )
            }
            _ => Went::AtMost(self.written),
        }
    }

    /// Writes `bytes` as the message `msg` (its origin decides the framing
    /// and the name).
    pub fn write(&mut self, msg: &RawMessage, bytes: &[u8]) -> Result<(), MailboxError> {
        self.write_prechecked(msg, bytes, None)
    }

    /// [`Self::write`], told whether `bytes` contains `From ` anywhere
    /// (`mbox::contains_from`), which decides whether an mbox output has lines
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
                    Sink::Stream(s) => {
                        let mut t = Tally { w: s, n: 0 };
                        let r = self.frame_mbox(flavor, msg, bytes, has_from, &mut t);
                        self.handed += t.n;
                        r
                    }
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
                // In place, a message file keeps its times (a Maildir
                // message named on its own: its received date); one that
                // starts with a `From ` line may be an mbox of one
                // message (a spool file), and gets an mbox's.
                if let Sink::File(f) = &mut self.sink
                    && super::mbox::first_from_line(&msg.bytes).is_none()
                {
                    f.keep_times();
                }
                write_stream(&mut self.sink, &self.name, bytes).map_err(|e| match e {
                    MailboxError::Io { source, .. } => self.io_err(source),
                    e => e,
                })?;
                self.handed += bytes.len() as u64;
            }
            OutputKind::Maildir | OutputKind::Folder
                if matches!(self.sink, Sink::InPlaceDir(_)) =>
            {
                let rel = self.dir_entry_name(msg)?;
                let Sink::InPlaceDir(root) = &self.sink else {
                    return Err(self.io_err(io::Error::other("not a directory output")));
                };
                let path = root.join(&rel);
                // A killed run's temporary (the old version of a file it
                // swapped out: a whole mbox) in any directory this run
                // may write into, at any depth of a folder, not only the
                // top and cur/, new/.
                if let Some(dir) = path.parent()
                    && !self.cleaned.contains(dir)
                {
                    remove_stale_in(dir, &Temporaries::Any);
                    self.cleaned.insert(dir.to_path_buf());
                }
                let new_path = self.resized(msg, &rel, bytes).map(|r| root.join(r));
                // Unchanged: nothing to do, unless its size tags are wrong
                // (renamed). Moved, deleted or rewritten by
                // another program during the run (a mail reader moved it
                // to cur/ with new flags, the user deleted it): left as
                // that program left it, never resurrected or duplicated
                // (replace.rs).
                if bytes != msg.bytes.as_slice() {
                    // An mbox file of a folder: its dotlock is taken, and
                    // whole messages an MDA appended meanwhile are kept.
                    let mbox = matches!(msg.origin, Origin::File { .. })
                        && super::mbox::first_from_line(&msg.bytes).is_some();
                    let done = replace_message(
                        &path,
                        new_path.as_deref(),
                        &msg.bytes,
                        bytes,
                        mbox,
                        msg.times.map(|t| (times_rule(msg), t)),
                    )
                    .map_err(|e| MailboxError::io(&path, None, e))?;
                    self.note(&path, done);
                } else if let Some(np) = new_path {
                    // Unchanged, but its size tags are wrong (Dovecot takes
                    // a wrong S= for a damaged file): only renamed, never
                    // over another file, and only if it still is what was
                    // read.
                    let done = rename_message(&path, &np, &msg.bytes)
                        .map_err(|e| MailboxError::io(&path, None, e))?;
                    self.note(&path, done);
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
                let rel = self.resized(msg, &rel, bytes).unwrap_or(rel);
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
                    f.write_all(bytes)?;
                    // The times of the file it copies: a Maildir
                    // message's received date is its modification time
                    // (an mbox of a folder gets an mbox's: "File times").
                    match msg.times {
                        Some(t) => times_rule(msg).apply(&f, t),
                        None => Ok(()),
                    }
                    // Not synced one by one: the tree only appears under
                    // its name once complete, and the input still exists.
                })();
                res.map_err(|e| MailboxError::io(self.name.join(&rel), None, e))?;
            }
        }
        self.written += 1;
        if let Sink::Stream(st) = &self.sink {
            self.ends.push_back(self.handed);
            let accepted = st.get_ref().accepted;
            while self.ends.front().is_some_and(|&e| e <= accepted) {
                self.ends.pop_front();
                self.through += 1;
            }
        }
        Ok(())
    }

    /// Keeps what became of a message file replaced in place, for the user.
    fn note(&mut self, path: &Path, done: Replaced) {
        let line = match done {
            Replaced::Done {
                late: 0,
                name_kept: false,
            } => return,
            Replaced::Done { late, name_kept } => {
                let mut l = String::new();
                if late > 0 {
                    l.push_str(&format!(
                        "{late} octets another program appended during the run are kept, \
                         unchanged, at its end"
                    ));
                    self.retry = true;
                }
                if name_kept {
                    if !l.is_empty() {
                        l.push_str("; ");
                    }
                    l.push_str("normalized, but its name could not be updated (moved meanwhile)");
                }
                l
            }
            Replaced::Gone => {
                self.retry = true;
                "moved or deleted by another program during the run: not written back".into()
            }
            Replaced::Kept(why) => {
                self.retry = true;
                format!("{why}: not normalized")
            }
            Replaced::NameTaken => {
                "its size tags are wrong for its content, and the name with the right ones \
                 is taken: left under its name"
                    .into()
            }
        };
        self.notes.push(format!("{}: {line}", path.display()));
    }

    /// In place in a Maildir or folder: what other programs did to message
    /// files during the run (moved, deleted, rewritten, appended to,
    /// locked), one line each, and whether a re-run would do more.
    pub fn in_place_notes(&self) -> (&[String], bool) {
        (&self.notes, self.retry)
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
        // An unchanged message with a `From ` line the reader did not split
        // at (left unquoted in the file): as it stood, not with a `>` added.
        let verbatim = match &msg.origin {
            Origin::Mbox {
                verbatim: Some((format, raw)),
                ..
            } if *format == flavor.format && bytes == msg.bytes.as_slice() => Some(raw),
            _ => None,
        };
        if let Some(raw) = verbatim {
            w.write_all(raw)?;
        } else if flavor.format == MboxFormat::ContentLength {
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

    /// The name of a Maildir message `msg` written as `bytes` under `rel`,
    /// when its size tags are not those of `bytes` ([`resized_name`]):
    /// changed by the run, or wrong already (a message normalized by an
    /// earlier version kept the tags of its old size).
    fn resized(&self, msg: &RawMessage, rel: &Path, bytes: &[u8]) -> Option<PathBuf> {
        let top_file = matches!(&msg.origin, Origin::File { relative }
            if self.maildir_top && relative.parent().is_none_or(|p| p.as_os_str().is_empty()));
        if !(is_maildir_message(&msg.origin) || top_file) {
            return None;
        }
        let new = resized_name(rel.file_name()?, bytes)?;
        Some(rel.with_file_name(new))
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

    /// In place on a file (an mbox, one message): the new file replaces
    /// the input only if the input is still what `stamp` says, taken
    /// before the input was opened for reading
    /// ([`super::AtomicFile::expect_unchanged`]). Nothing to do for other
    /// outputs.
    pub fn expect_unchanged(&mut self, stamp: super::FileStamp) {
        if let Sink::File(f) = &mut self.sink {
            f.expect_unchanged(stamp);
        }
    }

    /// [`MailboxError::Changed`] if the input written in place is no
    /// longer what [`MessageWriter::expect_unchanged`] said (checked again
    /// when finishing).
    pub fn check_unchanged(&self) -> Result<(), MailboxError> {
        match &self.sink {
            Sink::File(f) => f.check_unchanged(),
            _ => Ok(()),
        }
    }

    /// Completes the output: flushes and renames the temporary into place.
    /// Without this call nothing appears under the destination name.
    pub fn finish(self) -> Result<(), MailboxError> {
        self.finish_late().map(|_| ())
    }

    /// [`MessageWriter::finish`], returning how many octets a late writer
    /// appended to an input written in place between the last check and
    /// the rename ([`super::AtomicFile::commit_late`]): copied unchanged to
    /// the end of the new file.
    pub fn finish_late(self) -> Result<u64, MailboxError> {
        let went = self.went_through();
        let name = self.name;
        let cut = |e: MailboxError| match e {
            MailboxError::Io { path, source, .. } => {
                MailboxError::io(path, None, cut_short(source, went))
            }
            e => e,
        };
        match self.sink {
            Sink::File(f) => f.commit_late().map_err(cut),
            Sink::Stream(mut s) => match s.flush() {
                Ok(()) => Ok(0),
                Err(e) => {
                    // What the flush got through before it broke.
                    let accepted = s.get_ref().accepted;
                    let went = Went::Counted(
                        self.through + self.ends.iter().filter(|&&e| e <= accepted).count(),
                        accepted,
                    );
                    Err(MailboxError::io(&name, None, cut_short(e, went)))
                }
            },
            Sink::Dir(d) => d.commit().map(|()| 0),
            Sink::InPlaceDir(_) | Sink::Taken => Ok(0),
        }
    }
}

/// The times a message file's copy gets: a folder's mbox file (one that
/// starts with a `From ` line and is clearly an mbox), an mbox's; any
/// other message file, its own.
fn times_rule(msg: &RawMessage) -> TimesRule {
    match msg.origin {
        Origin::File { .. } if super::sniff_folder_file(&msg.bytes).is_some() => TimesRule::Mbox,
        _ => TimesRule::Keep,
    }
}

/// Whether a message is a Maildir message file, whose name may carry size
/// tags: one of a Maildir, or a file of a folder in a `cur/` or `new/`
/// directory (a Maildir inside the folder, read there file by file).
fn is_maildir_message(origin: &Origin) -> bool {
    match origin {
        Origin::Maildir { .. } => true,
        Origin::File { relative } => relative
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|d| d == "cur" || d == "new"),
        _ => false,
    }
}

/// A closed pipe on the output (`normalize | head`, `-o` a FIFO whose
/// reader left) said with how much of the output had been written:
/// `written` messages were handed to the output before the one being
/// written, so at most that many reached the reader whole.
fn cut_short(e: io::Error, went: Went) -> io::Error {
    if e.kind() != io::ErrorKind::BrokenPipe {
        return e;
    }
    let how_far = match went {
        Went::Counted(n, octets) => {
            format!("the first {n} message(s) were written whole ({octets} octets went out)")
        }
        Went::AtMost(n) => format!("at most the first {n} message(s) reached it whole"),
    };
    io::Error::new(
        io::ErrorKind::BrokenPipe,
        format!("its reader went away (broken pipe): the output is incomplete; {how_far}"),
    )
}

/// How much of an output went through before it broke.
#[derive(Clone, Copy)]
enum Went {
    /// Messages the system took whole, and octets it took.
    Counted(usize, u64),
    /// Messages handed to the output (a buffer may have held the last).
    AtMost(usize),
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

/// A Maildir message file's name with its size tags brought up to date
/// for the content `bytes`: `,S=` (the size in octets) and `,W=` (the size
/// with every line end counted as CR LF: octets plus the line feeds not
/// preceded by a carriage return), which Dovecot and Courier read sizes
/// and quotas from. Everything else is kept byte for byte: the unique part,
/// other `,X=` fields, the `:2,FLAGS` info. None when the name has neither
/// tag or they are right already.
///
/// A message file compressed by Dovecot's zlib plugin holds its size
/// decompressed in its tags (Dovecot's documentation: "All mails must have
/// ,S=<size> in their filename where <size> contains the original
/// uncompressed mail size, otherwise there will be problems with quota
/// calculation as well as other potential random failures"): a gzip file's
/// tags are those of what it holds; a file in another compression Dovecot
/// reads (bzip2, xz, lz4, zstd), or gzip that cannot be read whole, keeps
/// its name. (Such a file's tags were set to its compressed size.)
pub(super) fn resized_name(name: &std::ffi::OsStr, bytes: &[u8]) -> Option<std::ffi::OsString> {
    if super::gzip::is_gzip(bytes) {
        let inflated = super::gzip::inflate(bytes, 2 << 30);
        if inflated.short.is_some() {
            return None;
        }
        return resized_name(name, &inflated.bytes);
    }
    if compressed_otherwise(bytes) {
        return None;
    }
    let b = name.as_encoded_bytes();
    // The info after `:`, or after `;` where a Maildir is kept on a file
    // system without colons (Dovecot's `maildir_info_separator`).
    let base_end = memchr::memchr(b':', b)
        .or_else(|| memchr::memchr(b';', b))
        .unwrap_or(b.len());
    let (base, info) = b.split_at(base_end);
    let mut fields = base.split(|&c| c == b',');
    let mut out = fields.next()?.to_vec();
    let mut changed = false;
    let size = bytes.len() as u64;
    let wide = size
        + memchr::memchr_iter(b'\n', bytes)
            .filter(|&i| i == 0 || bytes[i - 1] != b'\r')
            .count() as u64;
    for f in fields {
        out.push(b',');
        let tag = match f {
            [b'S', b'=', digits @ ..] | [b'W', b'=', digits @ ..]
                if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) =>
            {
                Some(if f[0] == b'S' { size } else { wide })
            }
            _ => None,
        };
        match tag {
            Some(n) => {
                let new = format!("{}={n}", f[0] as char);
                changed |= new.as_bytes() != f;
                out.extend_from_slice(new.as_bytes());
            }
            None => out.extend_from_slice(f),
        }
    }
    if !changed {
        return None;
    }
    out.extend_from_slice(info);
    os_string(out)
}

/// Whether `bytes` start like a compression other than gzip that Dovecot
/// reads in a Maildir: bzip2 (`BZh` and a block size digit), xz, zstd, LZ4
/// (a frame, or Dovecot's own `Dovecot-LZ4` header).
fn compressed_otherwise(bytes: &[u8]) -> bool {
    matches!(bytes, [b'B', b'Z', b'h', b'1'..=b'9', ..])
        || bytes.starts_with(&[0xFD, b'7', b'z', b'X', b'Z', 0x00])
        || bytes.starts_with(&[0x28, 0xB5, 0x2F, 0xFD])
        || bytes.starts_with(&[0x04, 0x22, 0x4D, 0x18])
        || bytes.starts_with(b"Dovecot-LZ4")
}

#[cfg(unix)]
fn os_string(bytes: Vec<u8>) -> Option<std::ffi::OsString> {
    use std::os::unix::ffi::OsStringExt;
    Some(std::ffi::OsString::from_vec(bytes))
}

#[cfg(not(unix))]
fn os_string(bytes: Vec<u8>) -> Option<std::ffi::OsString> {
    String::from_utf8(bytes).ok().map(Into::into)
}

#[cfg(test)]
mod tests {
    use super::resized_name;
    use std::ffi::OsStr;

    #[test]
    fn a_compressed_message_file_has_the_tags_of_what_it_holds() {
        use std::io::Write;
        let body = b"Subject: x\n\nab\r\ncd\n";
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(body).unwrap();
        let gz = e.finish().unwrap();
        let n =
            |s: &str, b: &[u8]| resized_name(OsStr::new(s), b).map(|o| o.into_string().unwrap());
        // Dovecot's zlib plugin: S= and W= of the message decompressed.
        assert_eq!(n("1.host,S=19,W=22:2,S", &gz), None, "right already");
        assert_eq!(
            n(&format!("1.host,S={},W=1:2,S", gz.len()), &gz).as_deref(),
            Some("1.host,S=19,W=22:2,S")
        );
        // Cut gzip data, and the other compressions Dovecot reads: kept.
        assert_eq!(n("1.host,S=1:2,S", &gz[..gz.len() - 4]), None);
        for head in [
            &b"BZh91AY&SY"[..],
            b"\xFD7zXZ\0\0",
            b"\x28\xB5\x2F\xFD\x20",
            b"\x04\x22\x4D\x18\x64",
            b"Dovecot-LZ4\x0d\x2a",
        ] {
            assert_eq!(n("1.host,S=1:2,S", head), None, "{head:?}");
        }
    }

    #[test]
    fn size_tags_follow_the_content_and_nothing_else_changes() {
        let body = b"Subject: x\n\nab\r\ncd\n";
        let n = |s: &str| resized_name(OsStr::new(s), body).map(|o| o.into_string().unwrap());
        assert_eq!(
            n("1700000000.M1P1.host,S=164,W=172:2,S").as_deref(),
            Some("1700000000.M1P1.host,S=19,W=22:2,S")
        );
        // Other fields, their order and the info kept; only the tags that
        // are there are written.
        assert_eq!(
            n("1.host,W=1,X=abc,S=2:2,FRS").as_deref(),
            Some("1.host,W=22,X=abc,S=19:2,FRS")
        );
        assert_eq!(n("1.host,S=9").as_deref(), Some("1.host,S=19"));
        assert_eq!(n("1.host:2,S"), None, "no tags");
        assert_eq!(n("1.host,S=19,W=22:2,"), None, "right already");
        // `;` for `:` (a Maildir on a file system without colons).
        assert_eq!(
            n("1.host,S=4542,W=4642;2,Sb").as_deref(),
            Some("1.host,S=19,W=22;2,Sb")
        );
        assert_eq!(n("1.host,S=x:2,"), None, "not a size");
        // A comma in the info is the info's.
        assert_eq!(
            n("1.host,S=1:2,S,W=5").as_deref(),
            Some("1.host,S=19:2,S,W=5")
        );
    }
}
