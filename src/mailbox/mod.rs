//! Archives: mbox (mboxo, mboxrd, Content-Length, CRLF), Maildir, folders of
//! `.eml` files and standard input (also gzip-compressed:
//! [`gzip`]) — streaming readers, crash-safe writers and
//! an order-preserving parallel pipeline.
//!
//! Reading yields [`RawMessage`]s one at a time in bounded memory: the message
//! bytes (with the container's quoting undone) and an [`Origin`] that carries
//! what a writer needs to put the message back exactly where and how it was
//! (the mbox `From ` line as written, the Maildir subdirectory and file name
//! with its `:2,FLAGS` info, the relative path in a folder). Writing an
//! unchanged message through the writer for the same container reproduces the
//! input byte for byte. See `doc/mailbox.md` for the format decisions.
//!
//! ```
//! use mailcharset::mailbox::{MboxFlavor, MboxFormat, MboxReader};
//! let mbox = b"From a@b Thu Jan  1 00:00:00 1970\nSubject: x\n\n>From here\n\n";
//! let flavor = MboxFlavor { format: MboxFormat::Mboxrd, crlf: false };
//! let msgs: Vec<_> = MboxReader::new(&mbox[..], "t.mbox", flavor)
//!     .collect::<Result<_, _>>()
//!     .unwrap();
//! assert_eq!(msgs.len(), 1);
//! assert_eq!(msgs[0].bytes, b"Subject: x\n\nFrom here\n");
//! assert_eq!(MboxFormat::from_name("MBOXRD"), Some(MboxFormat::Mboxrd));
//! ```

mod atomic;
mod dir;
pub mod gzip;
mod lock;
mod mbox;
pub mod pipeline;
pub mod progress;
mod replace;
mod sys;
mod write;

pub use dir::{FolderReader, MaildirReader, SingleReader, is_maildir_subdir};

pub use atomic::{
    AtomicFile, OUTPUT_MARKER, WriteMode, backup_path, check_output, check_outputs, check_report,
    remove_stale_temporaries,
};
pub use lock::{DotLock, FileStamp, LOCK_REFRESH, LOCK_WAIT, lock_path, release_held_locks};
pub use mbox::{
    MboxReader, is_envelope_line, quote_from_lines, starts_message, unquote_from_lines,
};
pub use pipeline::{Options, Outcome, RunStats};
pub use progress::{Bar, Progress};
pub use write::{MessageWriter, OutputKind};

use std::fmt;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// How `From ` lines inside message bodies are protected in an mbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MboxFormat {
    /// `From ` at the start of a body line is written as `>From `; reading
    /// removes one `>` from `>From ` only. Lossy: a body line that really was
    /// `>From ` reads back as `From ` (see `doc/mailbox.md`).
    Mboxo,
    /// `>*From ` is written with one more `>`; reading removes one `>` from
    /// `>+From `. Reversible.
    Mboxrd,
    /// Messages carry a `Content-Length:` header giving the body length; it
    /// is honoured when consistent (it ends at end of input or right before a
    /// `From ` line, optionally after one blank line), otherwise the reader
    /// falls back to `From ` scanning. Lines are neither quoted nor unquoted
    /// on read (the Netscape and Solaris writers kept `>From ` as written).
    ContentLength,
}

impl MboxFormat {
    /// The name used on the command line (`--input-format`).
    pub const fn as_str(self) -> &'static str {
        match self {
            MboxFormat::Mboxo => "mboxo",
            MboxFormat::Mboxrd => "mboxrd",
            MboxFormat::ContentLength => "mboxcl",
        }
    }

    /// The format named `mboxo`, `mboxrd`, `mboxcl` or `content-length`
    /// (ASCII case-insensitive), for a command-line override.
    pub fn from_name(name: &str) -> Option<Self> {
        [
            ("mboxo", MboxFormat::Mboxo),
            ("mboxrd", MboxFormat::Mboxrd),
            ("mboxcl", MboxFormat::ContentLength),
            ("content-length", MboxFormat::ContentLength),
        ]
        .into_iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, f)| f)
    }
}

/// An mbox format plus its line ending (used only for lines the writer makes
/// up; lines read from the input keep their own endings).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MboxFlavor {
    /// How `From ` lines are quoted, or Content-Length.
    pub format: MboxFormat,
    /// Lines end in CR LF.
    pub crlf: bool,
}

/// What an input is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputKind {
    /// A single message file.
    Eml,
    /// An mbox of this flavor.
    Mbox(MboxFlavor),
    /// A directory with `cur/` and `new/` (and usually `tmp/`).
    Maildir,
    /// A directory of message files, read recursively in name order.
    Folder,
    /// Standard input; its content is detected when opened.
    Stdin,
}

/// Where a message came from: what a writer needs to reproduce the container.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// A message of an mbox.
    Mbox {
        /// The `From ` line exactly as read, line ending included (empty for
        /// bytes before the first `From ` line of a file; a leading UTF-8 BOM
        /// and blank lines before the first `From ` line are kept here too).
        from_line: Vec<u8>,
        /// The byte offset of the `From ` line in the input.
        offset: u64,
        /// The blank line that ended the message before the next `From `
        /// line (`"\n"`, `"\r\n"`), or empty when there was none.
        separator: Vec<u8>,
        /// Whether the message's `Content-Length:` header decided where it
        /// ended (only in [`MboxFormat::ContentLength`]).
        content_length: bool,
        /// The message as it stood in the file, and the format it was
        /// read in, when writing its bytes back with that format's quoting
        /// would not give it: a line of it starts with `From ` and did not
        /// start a message (not an envelope line: `From now on, ...`), left
        /// unquoted by the program that wrote the file. Written back so
        /// while the message is unchanged (doc/mailbox.md, "mbox framing").
        verbatim: Option<(MboxFormat, Vec<u8>)>,
    },
    /// A message file of a Maildir.
    Maildir {
        /// The Maildir++ folder (`.Sent`, `.Lists.mips`), or empty for the
        /// top level (the inbox).
        folder: std::ffi::OsString,
        /// `cur/` or `new/`.
        subdir: MaildirSubdir,
        /// The file name, `:2,FLAGS` info included, byte for byte (it
        /// need not be UTF-8).
        name: std::ffi::OsString,
    },
    /// A file in a folder (path relative to the folder) or a single file.
    File {
        /// The path below the folder (or the file's name).
        relative: PathBuf,
    },
    /// Standard input, or another stream.
    Stdin,
}

/// The Maildir subdirectory a message was found in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MaildirSubdir {
    /// `new/`: delivered, not yet seen.
    New,
    /// `cur/`: seen by a mail reader (flags in the name).
    Cur,
}

impl MaildirSubdir {
    /// The directory name.
    pub const fn as_str(self) -> &'static str {
        match self {
            MaildirSubdir::New => "new",
            MaildirSubdir::Cur => "cur",
        }
    }
}

impl Origin {
    /// The Maildir flags (the letters after the last `:2,`), if this is a
    /// Maildir message with info. The name is looked at as bytes: a name
    /// that is not UTF-8 has its flags too (None only when the flags
    /// themselves are not UTF-8).
    pub fn maildir_flags(&self) -> Option<&str> {
        let Origin::Maildir { name, .. } = self else {
            return None;
        };
        let name = name.as_encoded_bytes();
        let at = memchr::memmem::rfind(name, b":2,")?;
        std::str::from_utf8(&name[at + 3..]).ok()
    }
}

/// A file under an input that was not read as a message, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The file.
    pub path: PathBuf,
    /// Why it was not read.
    pub reason: SkipReason,
}

/// Why a file under an input was not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum SkipReason {
    /// Listed, then gone before it was read (moved or deleted by a running
    /// MDA or IMAP server), and not found under a new name either.
    Vanished,
    /// A symbolic link to nothing.
    DanglingLink,
    /// A symbolic link to a directory (not followed: it may loop).
    LinkedDirectory,
    /// A file in a Maildir outside `cur/` and `new/` and not a folder's.
    NotInMaildir,
    /// A symbolic link that loops (it points to nothing, as a dangling
    /// link does).
    LinkLoop,
    /// A file of a folder that does not start like a message (`audit`
    /// passes over such files: neither a header field nor a `From ` line
    /// first).
    NotAMessage,
    /// Neither a regular file nor a directory: a FIFO, a socket, a device
    /// (reading one could block forever, or never end).
    NotARegularFile,
}

impl SkipReason {
    /// A phrase for messages.
    pub const fn as_str(self) -> &'static str {
        match self {
            SkipReason::Vanished => "vanished during the run",
            SkipReason::DanglingLink => "a dangling symbolic link",
            SkipReason::LinkedDirectory => "a symbolic link to a directory, not followed",
            SkipReason::NotInMaildir => "in a Maildir but not in cur/ or new/",
            SkipReason::LinkLoop => "a symbolic link that loops",
            SkipReason::NotAMessage => "does not start like a message",
            SkipReason::NotARegularFile => "not a regular file: a FIFO, socket or device",
        }
    }
}

/// The files an input's reader passed over, shared with whoever reads the
/// messages (the reader itself moves into the pipeline).
#[derive(Clone, Debug, Default)]
pub struct SkipLog(std::sync::Arc<std::sync::Mutex<Vec<Skipped>>>);

impl SkipLog {
    pub(crate) fn push(&self, path: PathBuf, reason: SkipReason) {
        if let Ok(mut v) = self.0.lock() {
            v.push(Skipped { path, reason });
        }
    }

    /// What was skipped so far, in the order met.
    pub fn list(&self) -> Vec<Skipped> {
        self.0.lock().map(|v| v.clone()).unwrap_or_default()
    }
}

/// One message read from an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawMessage {
    /// The message, with container quoting (mbox `>From `) undone.
    pub bytes: Vec<u8>,
    /// 0-based position in its input.
    pub index: usize,
    /// Byte offset of the first byte of the message in its input.
    pub offset: u64,
    /// How many input bytes this message took up (its container framing
    /// included); used for progress.
    pub input_len: u64,
    /// Where it came from, for the writer.
    pub origin: Origin,
    /// The access and modification times of the message's own file as
    /// the reader found them, before reading it (a Maildir's or folder's
    /// message file); None for a message of an mbox or a stream. The
    /// writer gives them to the file it writes: Dovecot and Courier take a
    /// Maildir message's received date (IMAP INTERNALDATE) from its
    /// modification time (doc/mailbox.md, "Maildir").
    pub times: Option<SourceTimes>,
}

impl RawMessage {
    /// The same message (its place, origin and times) with other bytes:
    /// what a gzip-compressed file holds, read in its stead
    /// (doc/mailbox.md, "Compressed inputs").
    pub fn with_bytes(&self, bytes: Vec<u8>) -> RawMessage {
        RawMessage {
            bytes,
            index: self.index,
            offset: self.offset,
            input_len: self.input_len,
            origin: self.origin.clone(),
            times: self.times,
        }
    }
}

/// A file's access and modification times ([`RawMessage::times`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceTimes {
    /// Last access.
    pub accessed: std::time::SystemTime,
    /// Last modification: a Maildir message's received date.
    pub modified: std::time::SystemTime,
}

impl SourceTimes {
    /// The times `meta` gives, when the platform has both.
    pub fn of(meta: &std::fs::Metadata) -> Option<Self> {
        Some(SourceTimes {
            accessed: meta.accessed().ok()?,
            modified: meta.modified().ok()?,
        })
    }
}

/// An error reading or writing an archive. It names the input (or output)
/// and, where it makes sense, the byte offset.
#[derive(Debug)]
#[non_exhaustive]
pub enum MailboxError {
    /// Reading or writing failed.
    Io {
        /// The input or output.
        path: PathBuf,
        /// Where in it, when known.
        offset: Option<u64>,
        /// The system's error.
        source: io::Error,
    },
    /// The input is not something we can read as mail.
    Unrecognized {
        /// The input.
        path: PathBuf,
        /// Why it is not mail.
        reason: String,
    },
    /// The output exists and would be replaced by something of another kind.
    OutputExists {
        /// The output.
        path: PathBuf,
    },
    /// The output is the input, and the run is not in place.
    OutputIsInput {
        /// The output (and input).
        path: PathBuf,
    },
    /// The output is inside the input, or holds it (or, for a report, the
    /// same with an input or with the output).
    OutputOverlapsInput {
        /// The output (or report).
        path: PathBuf,
        /// The input (or output) it overlaps.
        input: PathBuf,
        /// How: "is the input", "is inside the input", "holds the input"
        /// (or the output).
        relation: &'static str,
    },
    /// The output is an existing directory, not empty and not an earlier
    /// output of this program ([`OUTPUT_MARKER`]): it is the user's.
    OutputNotEmpty {
        /// The output.
        path: PathBuf,
    },
    /// The directory the output (or report) goes in does not exist.
    OutputDirMissing {
        /// The output.
        path: PathBuf,
        /// Its directory.
        dir: PathBuf,
    },
    /// A directory output that cannot be renamed into place (the current
    /// directory, a mount point).
    OutputNotSwappable {
        /// The output.
        path: PathBuf,
        /// Why.
        why: &'static str,
    },
    /// In place: another program holds the mailbox's dotlock
    /// ([`DotLock`]) and did not let go in time. Nothing was read or
    /// written; try again later.
    Locked {
        /// The mailbox.
        path: PathBuf,
        /// Its lock file.
        lock: PathBuf,
    },
    /// In place: the input changed while it was being normalized (mail
    /// delivered by a program that ignores the dotlock, or the file
    /// rewritten or replaced): the new file was not put in place, the
    /// input is as that program left it. Try again.
    Changed {
        /// The input.
        path: PathBuf,
    },
    /// In place: the backup an earlier run left ([`backup_path`]) holds
    /// mail the input does not (it is neither the input nor the start of
    /// it: the old version of the input, with what a late writer appended
    /// that could not be copied over). It is not replaced; nothing was
    /// written. Look at it, keep what the input lacks, remove it, and run
    /// again.
    BackupKept {
        /// The input.
        path: PathBuf,
        /// The backup.
        backup: PathBuf,
    },
    /// A message could not be represented in the output container.
    Unrepresentable {
        /// The output.
        path: PathBuf,
        /// The message's position in its input.
        index: usize,
        /// Why it cannot be written there.
        reason: String,
    },
}

impl MailboxError {
    pub(crate) fn io(path: impl Into<PathBuf>, offset: Option<u64>, source: io::Error) -> Self {
        MailboxError::Io {
            path: path.into(),
            offset,
            source,
        }
    }

    /// The input or output the error is about.
    pub fn path(&self) -> &Path {
        match self {
            MailboxError::Io { path, .. }
            | MailboxError::Unrecognized { path, .. }
            | MailboxError::OutputExists { path }
            | MailboxError::OutputIsInput { path }
            | MailboxError::OutputOverlapsInput { path, .. }
            | MailboxError::OutputNotEmpty { path }
            | MailboxError::OutputDirMissing { path, .. }
            | MailboxError::OutputNotSwappable { path, .. }
            | MailboxError::Locked { path, .. }
            | MailboxError::Changed { path }
            | MailboxError::BackupKept { path, .. }
            | MailboxError::Unrepresentable { path, .. } => path,
        }
    }

    /// The byte offset in the input, when known.
    pub fn offset(&self) -> Option<u64> {
        match self {
            MailboxError::Io { offset, .. } => *offset,
            _ => None,
        }
    }

    /// The underlying I/O error kind, if any.
    pub fn io_kind(&self) -> Option<io::ErrorKind> {
        match self {
            MailboxError::Io { source, .. } => Some(source.kind()),
            _ => None,
        }
    }
}

impl fmt::Display for MailboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MailboxError::Io {
                path,
                offset: Some(o),
                source,
            } => write!(f, "{}: at byte {o}: {source}", path.display()),
            MailboxError::Io {
                path,
                offset: None,
                source,
            } => write!(f, "{}: {source}", path.display()),
            MailboxError::Unrecognized { path, reason } => {
                write!(f, "{}: not a mailbox: {reason}", path.display())
            }
            MailboxError::OutputExists { path } => write!(
                f,
                "{}: exists and is not of the kind being written",
                path.display()
            ),
            MailboxError::OutputIsInput { path } => write!(
                f,
                "{}: is the input; use --in-place to replace it",
                path.display()
            ),
            MailboxError::OutputOverlapsInput {
                path,
                input,
                relation,
            } => write!(
                f,
                "{}: {relation} {}; nothing written (name an output apart from it)",
                path.display(),
                input.display()
            ),
            MailboxError::OutputNotEmpty { path } => write!(
                f,
                "{}: exists, is not empty and is not an earlier output of mailcharset \
                 (no {OUTPUT_MARKER}): nothing written, since the output would replace it \
                 whole; name a new directory, or remove this one first",
                path.display()
            ),
            MailboxError::OutputDirMissing { path, dir } => write!(
                f,
                "{}: the directory {} does not exist; nothing written (create it first)",
                path.display(),
                dir.display()
            ),
            MailboxError::OutputNotSwappable { path, why } => write!(
                f,
                "{}: cannot be an output directory: {why}, and a directory output is built \
                 beside it and renamed into its place; nothing written (name a directory \
                 below it)",
                path.display()
            ),
            MailboxError::Locked { path, lock } => write!(
                f,
                "{}: locked by another program ({} exists and was not removed within \
                 the time waited); nothing written, try again later",
                path.display(),
                lock.display()
            ),
            MailboxError::Changed { path } => write!(
                f,
                "{}: changed during the run (mail delivered by a program that does not \
                 take the dotlock, or the file rewritten): the input is left as it is, \
                 nothing of this run put in place; try again",
                path.display()
            ),
            MailboxError::BackupKept { path, backup } => write!(
                f,
                "{}: an earlier run's backup {} holds mail the input does not (it is \
                 neither the input nor the start of it): it is kept, and the input left \
                 as it is; look at it, keep what the input lacks, then remove it and run \
                 again",
                path.display(),
                backup.display()
            ),
            MailboxError::Unrepresentable {
                path,
                index,
                reason,
            } => write!(f, "{}: message {index}: {reason}", path.display()),
        }
    }
}

impl std::error::Error for MailboxError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MailboxError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// How many bytes [`detect`] looks at.
const SNIFF_LEN: usize = 64 * 1024;

/// Decides what `path` is: `-` is [`InputKind::Stdin`]; a directory with
/// `cur/` and `new/` is a Maildir, any other directory a folder; a file is an
/// mbox when it starts with a `From ` line (after an optional UTF-8 BOM and
/// blank lines) and is clearly one (the rule of [`sniff_folder_file`], read
/// to the end of the file if need be), otherwise a single message. Anything
/// that is not a regular file or a directory (a pipe such as `<(cat m.eml)`
/// or `/dev/fd/N`, a named FIFO, a socket, a device) is a stream, [`InputKind::Stdin`]: it can be read only
/// once, so it is not read here; [`MessageReader::open`] sniffs it from the
/// same stream as it reads.
pub fn detect(path: &Path) -> Result<InputKind, MailboxError> {
    if path.as_os_str() == "-" {
        return Ok(InputKind::Stdin);
    }
    let meta = std::fs::metadata(path).map_err(|e| MailboxError::io(path, None, e))?;
    if meta.is_dir() {
        if path.join("cur").is_dir() && path.join("new").is_dir() {
            return Ok(InputKind::Maildir);
        }
        return Ok(InputKind::Folder);
    }
    if !meta.is_file() {
        return Ok(InputKind::Stdin);
    }
    let mut head = Vec::with_capacity(SNIFF_LEN.min(meta.len() as usize));
    std::fs::File::open(path)
        .and_then(|f| f.take(SNIFF_LEN as u64).read_to_end(&mut head))
        .map_err(|e| MailboxError::io(path, Some(0), e))?;
    let kind = sniff(&head);
    if !matches!(kind, InputKind::Mbox(_)) || mbox::has_later_envelope(&head) {
        return Ok(kind);
    }
    // A leading `From ` line alone does not make an mbox: a single message
    // saved with its envelope line is one too (doc/mailbox.md). Read on
    // for a later line that starts a message.
    if (head.len() as u64) < meta.len() {
        let found = std::fs::File::open(path)
            .and_then(|f| mbox::later_envelope(BufReader::with_capacity(256 * 1024, f)))
            .map_err(|e| MailboxError::io(path, None, e))?;
        if found {
            return Ok(kind);
        }
    }
    Ok(InputKind::Eml)
}

/// How far a stream that starts like an mbox is read ahead, past its first
/// 64 KiB, for a later envelope line ([`sniff_reader`]).
const STREAM_LOOKAHEAD: u64 = 64 * 1024 * 1024;

/// Reads the first bytes of a stream and decides what it is, as [`detect`]
/// does for a file: its first 64 KiB are [`sniff`]ed; when they start like
/// an mbox, it is one only when it is clearly one (a later line starts a
/// message: [`sniff_folder_file`]), so the stream is read on, `cap` octets in all at most, until such a line shows (an
/// mbox) or the stream ends without one (one message, its envelope line
/// included). A stream that reaches `cap` without one is read as an mbox.
/// Returns what was read, to be replayed before the rest, and the kind.
pub fn sniff_reader(r: &mut dyn Read, cap: u64) -> io::Result<(Vec<u8>, InputKind)> {
    let mut head = Vec::new();
    r.take(SNIFF_LEN as u64).read_to_end(&mut head)?;
    let kind = sniff(&head);
    if !matches!(kind, InputKind::Mbox(_)) || mbox::has_later_envelope(&head) {
        return Ok((head, kind));
    }
    if head.len() < SNIFF_LEN {
        return Ok((head, InputKind::Eml));
    }
    let budget = cap.saturating_sub(head.len() as u64);
    let mut more = Vec::new();
    let found = {
        let tee = Tee {
            inner: r.take(budget),
            copy: &mut more,
        };
        mbox::later_envelope(BufReader::new(io::Cursor::new(&head[..]).chain(tee)))?
    };
    let ended = (more.len() as u64) < budget;
    head.extend_from_slice(&more);
    Ok((
        head,
        if found || !ended {
            kind
        } else {
            InputKind::Eml
        },
    ))
}

/// A reader that keeps a copy of what it reads.
struct Tee<'a, R> {
    inner: R,
    copy: &'a mut Vec<u8>,
}

impl<R: Read> Read for Tee<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.copy.extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

/// Decides between an mbox flavor and a single message from the first bytes
/// of a stream: whether they start like an mbox, and its flavor ([`detect`]
/// and [`sniff_reader`] then ask whether it is clearly one).
///
/// The flavor: CRLF when the `From ` line ends in CR LF; Content-Length
/// when the first message's header has a `Content-Length:` field; mboxrd
/// when a line starting `>>From `, `>>>From ` ... is seen (an mboxo writer
/// never makes one by quoting, an mboxrd writer does for any quoted
/// `>From `, `>>From ` ...); mboxo otherwise.
pub fn sniff(head: &[u8]) -> InputKind {
    // A UTF-8 BOM and blank lines may come before the first `From ` line.
    let Some(at) = mbox::first_from_line(head) else {
        return InputKind::Eml;
    };
    let body = &head[at..];
    let first_eol = memchr::memchr(b'\n', body);
    let crlf = first_eol.is_some_and(|i| i > 0 && body[i - 1] == b'\r');
    let after_from = first_eol.map_or(&body[..0], |i| &body[i + 1..]);
    let header_end = mbox::header_end(after_from).unwrap_or(after_from.len());
    let format = if mbox::content_length(&after_from[..header_end]).is_some() {
        MboxFormat::ContentLength
    } else if memchr::memmem::find_iter(body, b"\n>>").any(|i| {
        // `>>From `, `>>>From ` ...: an mboxrd writer's quoting of a quoted
        // line.
        let rest = &body[i + 1..];
        let n = rest.iter().take_while(|&&b| b == b'>').count();
        rest[n..].starts_with(b"From ")
    }) {
        MboxFormat::Mboxrd
    } else {
        MboxFormat::Mboxo
    };
    InputKind::Mbox(MboxFlavor { format, crlf })
}

/// Decides whether a file of a plain folder (held whole) is read as an
/// mbox, and of which flavor: only when it is clearly one, its first line a
/// `From ` line (after an optional UTF-8 BOM and blank lines) and a later
/// line starts a message: after an empty line, an envelope line
/// ([`is_envelope_line`]) or a `From ` line followed by a header field, or
/// with no empty line before it, an envelope line followed by a header
/// field. Otherwise it is one message, a leading `From ` line included (a
/// single message saved with its envelope line; doc/mailbox.md, "Folders").
/// Files of a Maildir are always one message and are not asked about.
pub fn sniff_folder_file(bytes: &[u8]) -> Option<MboxFlavor> {
    match sniff(bytes) {
        InputKind::Mbox(flavor) if mbox::has_later_envelope(bytes) => Some(flavor),
        _ => None,
    }
}

/// A file starts like a message when its first line is a header field
/// (`name:` with a printable name, RFC 5322 2.2) or an mbox `From ` line
/// (after a UTF-8 BOM and blank lines, if any: doc/mailbox.md). A file of
/// a folder or Maildir, or an input, that does not (notes, a photo, a
/// compressed file) is not mail: the command line keeps it byte for byte
/// and does not audit it, and so should any caller that reads files
/// (`normalize::normalize` reads whatever it is given as a message).
pub fn looks_like_message(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let blank = bytes
        .iter()
        .take_while(|&&b| b == b'\n' || b == b'\r')
        .count();
    if bytes[blank..].starts_with(b"From ") {
        return true;
    }
    let line_end = memchr::memchr(b'\n', bytes).unwrap_or(bytes.len());
    let line = &bytes[..line_end];
    match memchr::memchr(b':', line) {
        Some(colon) if colon > 0 => {
            // As the header parser takes a name: printable ASCII, and 8-bit
            // octets after the first (`X-Café:`, flagged there).
            let name = line[..colon].trim_ascii_end();
            name.first().is_some_and(|b| (33..=126).contains(b))
                && name.iter().all(|&b| (33..=126).contains(&b) || b >= 0x80)
        }
        _ => false,
    }
}

/// A reader of any input kind: an iterator of messages in input order.
pub struct MessageReader {
    inner: Inner,
    kind: InputKind,
    size: Option<u64>,
}

enum Inner {
    Mbox(MboxReader<Box<dyn BufRead + Send>>),
    Maildir(MaildirReader),
    Folder(FolderReader),
    Single(SingleReader),
}

impl MessageReader {
    /// The files under this input that were not read (shared: it fills as
    /// the reader goes, wherever the reader is).
    pub fn skipped(&self) -> SkipLog {
        match &self.inner {
            Inner::Maildir(r) => r.skipped.clone(),
            Inner::Folder(r) => r.skipped.clone(),
            _ => SkipLog::default(),
        }
    }

    /// Opens `path` as `kind` (from [`detect`], or forced by the user).
    /// For [`InputKind::Stdin`] the content is sniffed: an mbox or one
    /// message.
    pub fn open(path: &Path, kind: InputKind) -> Result<Self, MailboxError> {
        let name = path.to_path_buf();
        let open_file = || {
            std::fs::File::open(path)
                .and_then(|f| {
                    let len = f.metadata()?.len();
                    Ok((f, len))
                })
                .map_err(|e| MailboxError::io(path, None, e))
        };
        let (inner, kind, size) = match kind {
            InputKind::Mbox(flavor) => {
                let (f, len) = open_file()?;
                let r: Box<dyn BufRead + Send> = Box::new(BufReader::with_capacity(256 * 1024, f));
                (
                    Inner::Mbox(MboxReader::new(r, name, flavor)),
                    kind,
                    Some(len),
                )
            }
            InputKind::Eml => {
                let (f, len) = open_file()?;
                let rel = path.file_name().map(PathBuf::from).unwrap_or_default();
                (
                    Inner::Single(SingleReader::new(
                        Box::new(f),
                        name,
                        Origin::File { relative: rel },
                    )),
                    kind,
                    Some(len),
                )
            }
            InputKind::Maildir => (Inner::Maildir(MaildirReader::open(path)?), kind, None),
            InputKind::Folder => (Inner::Folder(FolderReader::open(path)?), kind, None),
            InputKind::Stdin if path.as_os_str() == "-" => {
                return Self::from_reader(
                    Box::new(io::stdin()),
                    PathBuf::from("standard input"),
                    None,
                );
            }
            // A stream named by a path (pipe, FIFO, socket, device): opened
            // once, sniffed from what is read.
            InputKind::Stdin => {
                let f = std::fs::File::open(path).map_err(|e| MailboxError::io(path, None, e))?;
                return Self::from_reader(Box::new(f), name, None);
            }
        };
        Ok(MessageReader { inner, kind, size })
    }

    /// For a folder written in place: each file that starts like an mbox
    /// is read under its dotlock ([`FolderReader::lock_mbox_files`]).
    /// Nothing to do for other inputs (an mbox in place is locked by the
    /// caller for the whole run).
    pub fn lock_mbox_files(&mut self) {
        if let Inner::Folder(r) = &mut self.inner {
            r.lock_mbox_files();
        }
    }

    /// The Maildir++ folders of a Maildir input (`.Sent`, ...), in name
    /// order, including those without messages; empty for other inputs.
    pub fn maildir_folders(&self) -> &[std::ffi::OsString] {
        match &self.inner {
            Inner::Maildir(r) => r.folders(),
            _ => &[],
        }
    }

    /// [`detect`], then [`MessageReader::open`].
    pub fn open_detected(path: &Path) -> Result<Self, MailboxError> {
        Self::open(path, detect(path)?)
    }

    /// Reads a stream (standard input, a pipe): sniffs its first 64 KiB,
    /// and as much more as [`sniff_reader`] needs (read ahead, then
    /// replayed), and reads it as an mbox or as one message. `flavor`
    /// forces an mbox flavor.
    pub fn from_reader(
        r: Box<dyn Read + Send>,
        name: PathBuf,
        flavor: Option<MboxFlavor>,
    ) -> Result<Self, MailboxError> {
        Self::from_reader_as(r, name, flavor.map_or(InputKind::Stdin, InputKind::Mbox))
    }

    /// [`MessageReader::from_reader`] with the kind decided already (by
    /// [`sniff_reader`] on what `r` replays): an mbox flavor, or
    /// [`InputKind::Eml`] for one message; [`InputKind::Stdin`] (or a
    /// directory kind) sniffs.
    pub fn from_reader_as(
        r: Box<dyn Read + Send>,
        name: PathBuf,
        kind: InputKind,
    ) -> Result<Self, MailboxError> {
        let mut r = r;
        let mut head = Vec::new();
        let kind = match kind {
            InputKind::Mbox(_) | InputKind::Eml => kind,
            _ => {
                // One read from a pipe may return only a few bytes:
                // sniff_reader reads until it has enough or EOF.
                let (h, k) = sniff_reader(&mut r, STREAM_LOOKAHEAD)
                    .map_err(|e| MailboxError::io(&name, None, e))?;
                head = h;
                k
            }
        };
        let replay: Box<dyn Read + Send> = Box::new(io::Cursor::new(head).chain(r));
        let inner = match kind {
            InputKind::Mbox(f) => Inner::Mbox(MboxReader::new(
                Box::new(BufReader::with_capacity(256 * 1024, replay)),
                name,
                f,
            )),
            _ => Inner::Single(SingleReader::new(replay, name, Origin::Stdin)),
        };
        Ok(MessageReader {
            inner,
            kind,
            size: None,
        })
    }

    /// The kind being read (for stdin, what it was sniffed as).
    pub fn kind(&self) -> InputKind {
        self.kind
    }

    /// Total input size in bytes when known (files), for progress and ETA.
    pub fn size_hint_bytes(&self) -> Option<u64> {
        match &self.inner {
            Inner::Maildir(m) => Some(m.total_bytes()),
            Inner::Folder(m) => Some(m.total_bytes()),
            _ => self.size,
        }
    }
}

impl Iterator for MessageReader {
    type Item = Result<RawMessage, MailboxError>;

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.inner {
            Inner::Mbox(r) => r.next(),
            Inner::Maildir(r) => r.next(),
            Inner::Folder(r) => r.next(),
            Inner::Single(r) => r.next(),
        }
    }
}

/// Reads an mbox held in memory (an mbox file found inside a folder, read
/// there as one file). `name` names the file in errors. For the command
/// line (feature `cli`).
#[cfg(feature = "cli")]
#[doc(hidden)]
pub fn read_mbox_bytes(
    bytes: &[u8],
    flavor: MboxFlavor,
    name: &Path,
) -> Result<MessageReader, MailboxError> {
    let src: Box<dyn io::Read + Send> = Box::new(io::Cursor::new(bytes.to_vec()));
    MessageReader::from_reader(src, name.to_path_buf(), Some(flavor))
}

/// Rewrites an mbox held in memory (an mbox file found inside a folder)
/// message by message, in its own format: `f` returns the new bytes of a
/// message, or None to keep it. Returns None when nothing changed. `name`
/// names the file in errors. For the command line (feature `cli`).
#[cfg(feature = "cli")]
#[doc(hidden)]
pub fn rewrite_mbox_bytes(
    bytes: &[u8],
    flavor: MboxFlavor,
    name: &Path,
    mut f: impl FnMut(&RawMessage) -> Option<Vec<u8>>,
) -> Result<Option<Vec<u8>>, MailboxError> {
    let reader = read_mbox_bytes(bytes, flavor, name)?;
    let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::with_capacity(bytes.len())));
    let mut writer = MessageWriter::to_stream(
        Box::new(SharedBuf(out.clone())),
        OutputKind::Mbox(flavor),
        name.to_path_buf(),
    )?;
    let mut changed = false;
    for m in reader {
        let m = m?;
        match f(&m) {
            Some(new) if new != m.bytes => {
                changed = true;
                writer.write(&m, &new)?;
            }
            _ => writer.write(&m, &m.bytes)?,
        }
    }
    writer.finish()?;
    if !changed {
        return Ok(None);
    }
    let out = out
        .lock()
        .map_err(|_| MailboxError::io(name, None, io::Error::other("buffer poisoned")))?;
    Ok(Some(out.clone()))
}

/// A `Write` into a shared buffer (the stream writer needs `'static + Send`).
#[cfg(feature = "cli")]
struct SharedBuf(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

#[cfg(feature = "cli")]
impl io::Write for SharedBuf {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| io::Error::other("buffer poisoned"))?
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod looks_like_message_tests {
    use super::looks_like_message;

    #[test]
    fn message_sniffing() {
        assert!(looks_like_message(b"Subject: x\n\nbody"));
        assert!(looks_like_message(b"From a@b Mon Jan  1 00:00:00 2001\n"));
        assert!(looks_like_message(
            b"\n\r\nFrom a@b Mon Jan  1 00:00:00 2001\n"
        ));
        assert!(looks_like_message(b"Received : x\n"));
        assert!(!looks_like_message(b"# GENERATED\tx\n"));
        assert!(!looks_like_message(b"file\tlocation\tlabel\n"));
        assert!(!looks_like_message(b""));
        // A name with an 8-bit octet after its first, as the parser reads it.
        assert!(looks_like_message(b"X-Caf\xc3\xa9: oui\nFrom: a@b.c\n\nx"));
        assert!(!looks_like_message(b"\xc3\x9cber: x\n"));
    }
}
