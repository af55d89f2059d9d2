//! Command-line front end: raw flags (clap) are parsed here and turned into
//! the library's option types in each subcommand's module.

mod audit;
mod charset_codec;
mod decode;
mod encode;
mod filter;
mod interrupt;
mod label;
mod milter;
mod normalize;

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// sysexits(3) codes used by the CLI (doc/architecture.md, "Exit codes").
pub mod exit {
    pub const OK: u8 = 0;
    pub const FINDINGS: u8 = 1;
    pub const USAGE: u8 = 64;
    pub const DATA: u8 = 65;
    pub const NO_INPUT: u8 = 66;
    pub const SOFTWARE: u8 = 70;
    pub const IO: u8 = 74;
    pub const TEMPFAIL: u8 = 75;
}

/// Charset-aware mail processing.
#[derive(Parser, Debug)]
#[command(name = "mailcharset", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Write messages back out as clean UTF-8.
    Normalize(NormalizeArgs),
    /// Report the charset labels messages use and what is wrong with them.
    Audit(AuditArgs),
    /// Normalize one message from stdin to stdout, never losing it (MTA pipes).
    Filter(FilterArgs),
    /// A milter (Postfix smtpd_milters, Sendmail INPUT_MAIL_FILTER) that
    /// normalizes each message in the SMTP session.
    Milter(MilterArgs),
    /// Decode bytes in a charset to UTF-8 (or code points).
    Decode(CodecArgs),
    /// Encode UTF-8 text (or code points) into a charset.
    Encode(CodecArgs),
    /// Resolve charset labels.
    Label(LabelArgs),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Unicode11Arg {
    Auto,
    Remap,
    Off,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum HeadersArg {
    Encoded,
    Utf8,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum OnErrorArg {
    Replace,
    Keep,
    Fail,
}

impl From<OnErrorArg> for mailcharset::normalize::OnError {
    fn from(arg: OnErrorArg) -> Self {
        match arg {
            OnErrorArg::Replace => Self::Replace,
            OnErrorArg::Keep => Self::Keep,
            OnErrorArg::Fail => Self::Fail,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Table,
    Json,
    Jsonl,
    Csv,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOnArg {
    Invalid,
    Mislabeled,
    Suspicious,
}

/// Input container format, when detection should be overridden.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum InputFormatArg {
    /// Detect from the path and the first bytes (default).
    Auto,
    /// One message per file.
    Eml,
    /// mbox with `>From ` quoting that cannot be undone exactly (mboxo).
    Mboxo,
    /// mbox with reversible `>*From ` quoting (mboxrd).
    Mboxrd,
    /// mbox whose messages carry Content-Length (mboxcl).
    ContentLength,
    Maildir,
    /// A folder of message files.
    Folder,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    Strict,
    Lossy,
    Legacy,
    Extended,
}

#[derive(Args, Debug)]
pub struct NormalizeArgs {
    /// Message files, mboxes, Maildirs or folders; `-` is stdin.
    pub input: Vec<PathBuf>,
    /// Output file or folder (default: stdout for a single message or mbox).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Unicode11Arg::Auto)]
    pub unicode11: Unicode11Arg,
    #[arg(long, value_enum, default_value_t = HeadersArg::Encoded)]
    pub headers: HeadersArg,
    #[arg(long = "on-error", value_enum, default_value_t = OnErrorArg::Replace)]
    pub on_error: OnErrorArg,
    /// Write 8bit bodies instead of quoted-printable/base64.
    #[arg(long = "8bit")]
    pub eight_bit: bool,
    /// Repair CESU-8 (UTF-16 surrogate pairs written as two 3-octet
    /// sequences) in text labelled UTF-8, instead of replacing it.
    #[arg(long = "repair-cesu8")]
    pub repair_cesu8: bool,
    /// Decode lines in another charset inside a text its label explains
    /// (finding mixed-charset) with that charset, instead of U+FFFD, also
    /// when they are too short to tell from damage (one or two characters;
    /// lines with more are read so by default).
    #[arg(long = "repair-mixed")]
    pub repair_mixed: bool,
    /// Leave a message with a DKIM (or ARC) signature exactly as it came (a rewritten
    /// body or field would make the signature fail for later verifiers);
    /// the report lists what would have been done as kept.
    #[arg(long = "keep-dkim-signed")]
    pub keep_dkim_signed: bool,
    /// Convert text files attached to a message (Content-Disposition
    /// attachment, or a file name) and patches sent inline (text/x-patch,
    /// text/x-diff, a diff in a text/plain body) as text bodies are; by
    /// default a file or a patch is kept byte for byte in its charset.
    #[arg(long = "convert-attachments")]
    pub convert_attachments: bool,
    /// Worker threads (default: all cores).
    #[arg(short, long)]
    pub jobs: Option<usize>,
    /// Write JSON lines describing what changed.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Rewrite the input itself (a backup is kept until the new file is
    /// complete); conflicts with -o.
    #[arg(long = "in-place", conflicts_with = "output")]
    pub in_place: bool,
    /// The input's container format (default: detected).
    #[arg(long = "input-format", value_enum, default_value_t = InputFormatArg::Auto)]
    pub input_format: InputFormatArg,
    /// Exit 66 when any file under an input was not read (outside a
    /// Maildir's cur/ and new/, a dangling link, vanished during the run).
    #[arg(long = "strict-inputs")]
    pub strict_inputs: bool,
    /// A message larger than this (a file, standard input or a pipe holding
    /// one message) is passed through unchanged, streamed, and reported;
    /// memory stays bounded whatever the input. Suffixes K, M, G (1024s).
    #[arg(long = "max-message-size", value_parser = parse_size, default_value = "100M")]
    pub max_message_size: u64,
    #[command(flatten)]
    pub progress: ProgressArgs,
}

#[derive(Args, Debug)]
pub struct AuditArgs {
    /// Message files, mboxes, Maildirs or folders; `-` is stdin.
    pub input: Vec<PathBuf>,
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    pub format: FormatArg,
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[arg(short, long)]
    pub jobs: Option<usize>,
    /// Exit 1 when any record reaches this level.
    #[arg(long = "fail-on", value_enum)]
    pub fail_on: Option<FailOnArg>,
    #[arg(long, value_enum, default_value_t = Unicode11Arg::Auto)]
    pub unicode11: Unicode11Arg,
    /// The input's container format (default: detected).
    #[arg(long = "input-format", value_enum, default_value_t = InputFormatArg::Auto)]
    pub input_format: InputFormatArg,
    /// Exit 66 when any file under an input was not read (outside a
    /// Maildir's cur/ and new/, a dangling link, vanished during the run).
    #[arg(long = "strict-inputs")]
    pub strict_inputs: bool,
    /// A message larger than this (a file, standard input or a pipe holding
    /// one message) is passed through unchanged, streamed, and reported;
    /// memory stays bounded whatever the input. Suffixes K, M, G (1024s).
    #[arg(long = "max-message-size", value_parser = parse_size, default_value = "100M")]
    pub max_message_size: u64,
    #[command(flatten)]
    pub progress: ProgressArgs,
}

#[derive(Args, Debug)]
pub struct ProgressArgs {
    /// Never show a progress bar.
    #[arg(short, long, conflicts_with = "progress")]
    pub quiet: bool,
    /// Show a progress bar even when stderr is not a terminal.
    #[arg(long)]
    pub progress: bool,
}

#[derive(Args, Debug)]
pub struct FilterArgs {
    #[arg(long, value_enum, default_value_t = Unicode11Arg::Auto)]
    pub unicode11: Unicode11Arg,
    #[arg(long, value_enum, default_value_t = HeadersArg::Encoded)]
    pub headers: HeadersArg,
    /// Repair CESU-8 (UTF-16 surrogate pairs written as two 3-octet
    /// sequences) in text labelled UTF-8, instead of replacing it.
    #[arg(long = "repair-cesu8")]
    pub repair_cesu8: bool,
    /// Decode lines in another charset inside a text its label explains
    /// (finding mixed-charset) with that charset, instead of U+FFFD, also
    /// when they are too short to tell from damage (one or two characters;
    /// lines with more are read so by default).
    #[arg(long = "repair-mixed")]
    pub repair_mixed: bool,
    /// Leave a message with a DKIM (or ARC) signature exactly as it came (a rewritten
    /// body or field would make the signature fail for later verifiers);
    /// the report lists what would have been done as kept.
    #[arg(long = "keep-dkim-signed")]
    pub keep_dkim_signed: bool,
    /// Convert text files attached to a message (Content-Disposition
    /// attachment, or a file name) and patches sent inline (text/x-patch,
    /// text/x-diff, a diff in a text/plain body) as text bodies are; by
    /// default a file or a patch is kept byte for byte in its charset.
    #[arg(long = "convert-attachments")]
    pub convert_attachments: bool,
    /// A message larger than this passes through unchanged (streamed; exit
    /// 0) with a note. Suffixes K, M, G (1024s).
    #[arg(long = "max-message-size", value_parser = parse_size, default_value = "100M")]
    pub max_message_size: u64,
}

#[derive(Args, Debug)]
pub struct MilterArgs {
    /// Where to listen: inet:HOST:PORT (loopback, for a local MTA) or
    /// unix:PATH.
    #[arg(long)]
    pub listen: String,
    #[arg(long, value_enum, default_value_t = Unicode11Arg::Auto)]
    pub unicode11: Unicode11Arg,
    #[arg(long, value_enum, default_value_t = HeadersArg::Encoded)]
    pub headers: HeadersArg,
    /// Damaged text: replace what is damaged (U+FFFD), keep the part's
    /// octets as they are, or (fail) let the whole message through
    /// unchanged (accepted, whatever --on-failure says).
    #[arg(long = "on-error", value_enum, default_value_t = OnErrorArg::Replace)]
    pub on_error: OnErrorArg,
    /// Repair CESU-8 in text labelled UTF-8, instead of replacing it.
    #[arg(long = "repair-cesu8")]
    pub repair_cesu8: bool,
    /// Decode lines in another charset with that charset (mixed-charset),
    /// also when they could be damage (by default only clear cases).
    #[arg(long = "repair-mixed")]
    pub repair_mixed: bool,
    /// Leave a message with a DKIM (or ARC) signature exactly as it came (a rewritten
    /// body or field would make the signature fail for later verifiers);
    /// the report lists what would have been done as kept.
    #[arg(long = "keep-dkim-signed")]
    pub keep_dkim_signed: bool,
    /// Convert text files attached to a message (Content-Disposition
    /// attachment, or a file name) and patches sent inline (text/x-patch,
    /// text/x-diff, a diff in a text/plain body) as text bodies are; by
    /// default a file or a patch is kept byte for byte in its charset.
    #[arg(long = "convert-attachments")]
    pub convert_attachments: bool,
    /// A larger message is let through unchanged (accepted, whatever
    /// --on-failure says), never held whole. Suffixes K, M, G (1024s).
    #[arg(long = "max-message-size", value_parser = parse_size, default_value = "100M")]
    pub max_message_size: u64,
    /// What the MTA is told when the milter fails on a message (an
    /// internal error, which a retry may not meet): accept it unchanged,
    /// or defer it (tempfail). A message that would fail again on every
    /// retry (over --max-message-size, text --on-error fail refuses) is
    /// always accepted unchanged and logged, never deferred.
    #[arg(long = "on-failure", value_enum, default_value_t = OnFailureArg::Accept)]
    pub on_failure: OnFailureArg,
    /// Append each message's report (JSON lines, as normalize --report).
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Seconds an SMTP session may stay silent, or leave a reply unread,
    /// before it is dropped (the MTA then applies its
    /// milter_default_action).
    #[arg(long, default_value_t = 300)]
    pub timeout: u64,
    /// On SIGTERM or SIGINT: stop accepting sessions and wait up to this
    /// many seconds for the open ones to finish, then exit (a second
    /// signal exits at once).
    #[arg(long, default_value_t = 30)]
    pub drain: u64,
    /// Sessions handled at once; a connection beyond waits in the
    /// listening socket's queue until one ends (each session may hold a
    /// message of up to --max-message-size). 400 is Postfix's default
    /// process limit (100) for each of smtpd on port 25, submission, smtps
    /// and cleanup (non_smtpd_milters), so a default Postfix never waits.
    #[arg(long = "max-sessions", value_parser = clap::value_parser!(u32).range(1..), default_value_t = 400)]
    pub max_sessions: u32,
}

/// `--on-failure`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum OnFailureArg {
    Accept,
    Tempfail,
}

/// `100M`, `64K`, `1G` or plain octets.
fn parse_size(s: &str) -> Result<u64, String> {
    let (n, mult) = match s.as_bytes().last() {
        Some(b'K' | b'k') => (&s[..s.len() - 1], 1u64 << 10),
        Some(b'M' | b'm') => (&s[..s.len() - 1], 1 << 20),
        Some(b'G' | b'g') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    n.trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("not a size: {s:?} (octets, or with K, M or G)"))
}

/// The name and index that a message's `audit` records and `normalize
/// --report` line carry: a message file of a folder or Maildir is named by
/// its own path (`folder/sub/m.eml`, `md/.Sent/cur/NAME`), index 0 (the
/// file's only message: a folder file that is an mbox numbers its messages
/// itself, [`folder_mbox`]); a message of an mbox, or a single message, by
/// `input_name` and its place in the input. Both commands name a message
/// alike, so their lines can be matched to each other and to the files.
pub(crate) fn message_name<'a>(
    input: &Path,
    input_name: &'a str,
    kind: mailcharset::mailbox::InputKind,
    m: &mailcharset::mailbox::RawMessage,
) -> (std::borrow::Cow<'a, str>, usize) {
    use mailcharset::mailbox::{InputKind, Origin};
    use std::borrow::Cow;
    let name = match (&m.origin, kind) {
        (Origin::File { relative }, InputKind::Folder) => {
            Cow::Owned(input.join(relative).display().to_string())
        }
        (
            Origin::Maildir {
                folder,
                subdir,
                name,
            },
            _,
        ) => Cow::Owned(
            input
                .join(folder)
                .join(subdir.as_str())
                .join(name)
                .display()
                .to_string(),
        ),
        _ => Cow::Borrowed(input_name),
    };
    let in_folder = matches!(kind, InputKind::Folder | InputKind::Maildir);
    (name, if in_folder { 0 } else { m.index })
}

/// The mbox flavor of a file of a plain folder input that is clearly an
/// mbox ([`mailcharset::mailbox::sniff_folder_file`]): `normalize` reads it
/// and writes it back as an mbox, `audit` numbers its messages within it.
/// None for anything else: every file of a Maildir, also of one inside the
/// folder (under `cur/` or `new/` beside each other), and a single message
/// that starts with its envelope line, is one message.
pub(crate) fn folder_mbox(
    input: &std::path::Path,
    kind: mailcharset::mailbox::InputKind,
    m: &mailcharset::mailbox::RawMessage,
) -> Option<mailcharset::mailbox::MboxFlavor> {
    use mailcharset::mailbox::{InputKind, Origin};
    let (InputKind::Folder, Origin::File { relative }) = (kind, &m.origin) else {
        return None;
    };
    // The files of a Maildir's `cur/` or `new/`, named itself, are its
    // messages.
    if relative.parent().is_none_or(|p| p.as_os_str().is_empty())
        && mailcharset::mailbox::is_maildir_subdir(input)
    {
        return None;
    }
    let flavor = mailcharset::mailbox::sniff_folder_file(&m.bytes)?;
    if let Some(parent) = relative.parent()
        && matches!(
            parent.file_name().and_then(|n| n.to_str()),
            Some("cur" | "new")
        )
    {
        let maildir = input.join(parent.parent().unwrap_or(parent));
        if maildir.join("cur").is_dir() && maildir.join("new").is_dir() {
            return None;
        }
    }
    Some(flavor)
}

/// A stream of input octets.
pub type Stream = Box<dyn io::Read + Send>;

/// A stream sniffed by [`sniff_stream`]: the stream to read (what was read
/// ahead replayed) and what it is, or one message larger than the limit:
/// its first octets and the rest.
pub type Sniffed = Result<(Stream, mailcharset::mailbox::InputKind), (Vec<u8>, Stream)>;

/// Opens a stream (standard input, a pipe) with the message size limit in
/// mind: it is sniffed ([`mailcharset::mailbox::sniff_reader`]: its first
/// 64 KiB, and when it starts with a `From ` line as far as it takes to
/// tell an mbox from one message, `max` at most); an mbox comes back whole
/// (replayed head and the rest), read a message at a time as usual; one
/// message is read up to `max`, and `Err((head, rest))` when it is larger.
/// The kind decided comes back with the stream. The stream is never read
/// further than it has to be.
pub fn sniff_stream(mut stream: Stream, max: u64) -> io::Result<Sniffed> {
    use mailcharset::mailbox::InputKind;
    // A stream that starts with a `From ` line is an mbox only when it is
    // clearly one, as a file is: it is read on, up to `max`, for a later
    // envelope line.
    let (mut head, kind) = mailcharset::mailbox::sniff_reader(&mut stream, max)?;
    if kind == InputKind::Eml {
        let (more_bytes, more) = read_capped(&mut stream, max.saturating_sub(head.len() as u64))?;
        head.extend_from_slice(&more_bytes);
        if more {
            return Ok(Err((head, stream)));
        }
        return Ok(Ok((Box::new(io::Cursor::new(head)), kind)));
    }
    Ok(Ok((
        Box::new(io::Read::chain(io::Cursor::new(head), stream)),
        kind,
    )))
}

/// Reads at most `cap` octets of `r`: the octets, and whether more follow
/// (then one more octet was read and is included: the caller streams the
/// rest after them).
pub fn read_capped<R: io::Read>(r: &mut R, cap: u64) -> io::Result<(Vec<u8>, bool)> {
    let mut buf = Vec::new();
    io::Read::read_to_end(
        &mut io::Read::take(r.by_ref(), cap.saturating_add(1)),
        &mut buf,
    )?;
    let more = buf.len() as u64 > cap;
    Ok((buf, more))
}

#[derive(Args, Debug)]
pub struct CodecArgs {
    /// Charset label.
    #[arg(long, default_value = "utf-8")]
    pub charset: String,
    #[arg(long, value_enum, default_value_t = ModeArg::Lossy)]
    pub mode: ModeArg,
    /// Show (decode) or read (encode) values as `U+XXXX` separated by spaces.
    #[arg(long)]
    pub codepoints: bool,
    /// Input file (default: stdin).
    pub file: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct LabelArgs {
    #[arg(long)]
    pub json: bool,
    #[arg(required = true)]
    pub labels: Vec<String>,
}

/// An error that ends the command: a message for stderr and an exit code.
#[derive(Debug)]
pub struct CliError {
    pub code: u8,
    pub message: String,
    /// The error is a closed pipe on output (`mailcharset ... | head`):
    /// not an error for the user.
    pub broken_pipe: bool,
}

impl CliError {
    pub fn new(code: u8, message: impl Into<String>) -> Self {
        CliError {
            code,
            message: message.into(),
            broken_pipe: false,
        }
    }

    /// An archive error, by its kind: a missing input 66, I/O 74.
    pub fn mailbox(e: &mailcharset::mailbox::MailboxError, code: u8) -> Self {
        CliError {
            broken_pipe: e.io_kind() == Some(io::ErrorKind::BrokenPipe),
            ..CliError::new(code, e.to_string())
        }
    }

    /// Adds what became of the outputs to the message.
    pub fn with_note(mut self, note: impl AsRef<str>) -> Self {
        self.message.push_str(": ");
        self.message.push_str(note.as_ref());
        self
    }

    /// An I/O error on `what` (a path or "standard input").
    pub fn io(what: &str, err: io::Error) -> Self {
        let code = if err.kind() == io::ErrorKind::NotFound {
            exit::NO_INPUT
        } else {
            exit::IO
        };
        CliError {
            broken_pipe: err.kind() == io::ErrorKind::BrokenPipe,
            ..CliError::new(code, format!("{what}: {err}"))
        }
    }
}

pub type CliResult = Result<u8, CliError>;

/// Whether the file at `path` starts like gzip data (an unreadable one is
/// left to the reader, which names the error).
pub(crate) fn starts_gzip(path: &std::path::Path) -> bool {
    let mut head = [0u8; 3];
    std::fs::File::open(path)
        .and_then(|mut f| io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| mailcharset::mailbox::gzip::is_gzip(&head))
}

/// `--input-format` other than `auto` given for a gzip-compressed file: a
/// usage error. The format would be that of the compressed octets (an
/// mbox or message that is binary: written back with a line end put
/// before it, in place too), not of what they hold, which is read
/// decompressed and told apart when the format is left to detection
/// (doc/mailbox.md, "Compressed inputs").
pub fn forced_on_gzip(
    command: &str,
    path: &std::path::Path,
    format: InputFormatArg,
) -> Result<(), CliError> {
    if format == InputFormatArg::Auto || path.as_os_str() == "-" {
        return Ok(());
    }
    if starts_gzip(path) {
        return Err(CliError::new(
            exit::USAGE,
            format!(
                "{command}: {}: gzip-compressed; leave --input-format out (it is read \
                 decompressed, its format detected), or decompress it first",
                path.display()
            ),
        ));
    }
    Ok(())
}

/// Resolves `--input-format` for `path`: the override, or detection.
pub fn input_kind(
    path: &std::path::Path,
    format: InputFormatArg,
) -> Result<mailcharset::mailbox::InputKind, mailcharset::mailbox::MailboxError> {
    use mailcharset::mailbox::{InputKind, MboxFlavor, MboxFormat, detect};
    let mbox = |format| {
        // Keep the detected line ending when the file is an mbox already.
        let crlf = match detect(path) {
            Ok(InputKind::Mbox(f)) => f.crlf,
            _ => false,
        };
        Ok(InputKind::Mbox(MboxFlavor { format, crlf }))
    };
    match format {
        InputFormatArg::Auto => detect(path),
        InputFormatArg::Eml => Ok(InputKind::Eml),
        InputFormatArg::Mboxo => mbox(MboxFormat::Mboxo),
        InputFormatArg::Mboxrd => mbox(MboxFormat::Mboxrd),
        InputFormatArg::ContentLength => mbox(MboxFormat::ContentLength),
        InputFormatArg::Maildir => Ok(InputKind::Maildir),
        InputFormatArg::Folder => Ok(InputKind::Folder),
    }
}

/// Says which files under `name` were not read, and returns the exit code
/// that calls for: 66 under `--strict-inputs`; 75 (try again) when files
/// vanished during the run (a live Maildir: a re-run finds them under
/// their new names); 0 otherwise.
pub fn report_skipped(name: &str, skipped: &[mailcharset::mailbox::Skipped], strict: bool) -> u8 {
    use mailcharset::mailbox::SkipReason;
    if skipped.is_empty() {
        return exit::OK;
    }
    const SHOWN: usize = 20;
    let mut msg = format!("{name}: {} file(s) skipped:", skipped.len());
    for s in skipped.iter().take(SHOWN) {
        msg.push_str(&format!(
            "\n  {} ({})",
            mailcharset::audit::escape_controls(&s.path.display().to_string()),
            s.reason.as_str()
        ));
    }
    if skipped.len() > SHOWN {
        msg.push_str(&format!("\n  and {} more", skipped.len() - SHOWN));
    }
    eprintln!("mailcharset: {msg}");
    if strict {
        exit::NO_INPUT
    } else if skipped.iter().any(|s| s.reason == SkipReason::Vanished) {
        exit::TEMPFAIL
    } else {
        exit::OK
    }
}

/// Message files, and directories, of a Maildir or folder that could not
/// be read (permission denied, an I/O error), with why, and whether it is a
/// directory.
pub type Unreadable = std::sync::Mutex<Vec<(PathBuf, String, bool)>>;

/// The messages of `reader`; for a Maildir or folder, a message file or a
/// directory that cannot be read is noted in `log` and passed over, so
/// that the run goes on with the others (one root-owned file, or one
/// `chmod 000` directory, ended the whole run with 74). The caller decides
/// what the run comes to ([`report_unreadable`]). The readers of other
/// inputs stop at an error, as before: an mbox or a stream that cannot be
/// read on has no next message to go on with.
pub fn skip_unreadable<'a, I>(
    reader: I,
    kind: mailcharset::mailbox::InputKind,
    log: &'a Unreadable,
) -> impl Iterator<Item = I::Item> + Send + 'a
where
    I: Iterator<
            Item = Result<mailcharset::mailbox::RawMessage, mailcharset::mailbox::MailboxError>,
        > + Send
        + 'a,
{
    use mailcharset::mailbox::{InputKind, MailboxError};
    let per_file = matches!(kind, InputKind::Maildir | InputKind::Folder);
    reader.filter_map(move |r| match r {
        // The Maildir and folder readers give an error only for a file or
        // directory under the input they could not read (the input itself
        // unreadable fails when it is opened).
        Err(MailboxError::Io { path, source, .. }) if per_file => {
            // A directory can be looked at where it cannot be listed (the
            // reader got to it through its parent).
            let dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
            if let Ok(mut v) = log.lock() {
                v.push((path, source.to_string(), dir));
            }
            None
        }
        other => Some(other),
    })
}

/// Says which message files and directories under `name` could not be
/// read and what became of the run (`what`); returns 74 if there were any,
/// 0 otherwise.
pub fn report_unreadable(name: &str, log: Unreadable, what: &str) -> u8 {
    let list = log.into_inner().unwrap_or_default();
    if list.is_empty() {
        return exit::OK;
    }
    const SHOWN: usize = 20;
    let dirs = list.iter().filter(|e| e.2).count();
    let files = list.len() - dirs;
    let mut msg = match (files, dirs) {
        (_, 0) => format!("{name}: {files} file(s) could not be read:"),
        (0, _) => format!(
            "{name}: {dirs} directory(ies) could not be read (no message in them was read):"
        ),
        _ => format!(
            "{name}: {files} file(s) and {dirs} directory(ies) could not be read (no message \
             in those directories was read):"
        ),
    };
    for (path, why, dir) in list.iter().take(SHOWN) {
        msg.push_str(&format!(
            "\n  {}{} ({})",
            mailcharset::audit::escape_controls(&path.display().to_string()),
            if *dir { "/" } else { "" },
            mailcharset::audit::escape_controls(why)
        ));
    }
    if list.len() > SHOWN {
        msg.push_str(&format!("\n  and {} more", list.len() - SHOWN));
    }
    eprintln!("mailcharset: {msg}\n  {what}");
    exit::IO
}

/// The exit code that says more of two: 74 (something was not done, and a
/// re-run alone will not do it) over 66 (`--strict-inputs`) over 75 (try
/// again) over 0.
pub fn worse(a: u8, b: u8) -> u8 {
    let rank = |c: u8| match c {
        exit::IO => 3,
        exit::NO_INPUT => 2,
        exit::TEMPFAIL => 1,
        _ => 0,
    };
    if rank(b) > rank(a) { b } else { a }
}

/// Reads FILE or stdin whole.
pub fn read_input(file: Option<&std::path::Path>) -> Result<(String, Vec<u8>), CliError> {
    match file {
        Some(p) if p.as_os_str() != "-" => {
            let name = p.display().to_string();
            let bytes = std::fs::read(p).map_err(|e| CliError::io(&name, e))?;
            Ok((name, bytes))
        }
        _ => {
            let mut buf = Vec::new();
            io::Read::read_to_end(&mut io::stdin().lock(), &mut buf)
                .map_err(|e| CliError::io("standard input", e))?;
            Ok(("standard input".to_string(), buf))
        }
    }
}

/// Writes all of `bytes` to stdout.
pub fn write_stdout(bytes: &[u8]) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| CliError::io("standard output", e))
}

pub fn main() -> ExitCode {
    let mut cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // `-o -` is standard output, as `-` is standard input (it wrote a
    // file named `-`).
    let stdout = |o: &mut Option<PathBuf>| {
        if o.as_deref() == Some(Path::new("-")) {
            *o = None;
        }
    };
    match &mut cli.command {
        Command::Normalize(a) => stdout(&mut a.output),
        Command::Audit(a) => stdout(&mut a.output),
        _ => {}
    }
    // A closed pipe on output is no error for the commands whose output is
    // read by a person (`decode ... | head`); `normalize`'s output is mail,
    // and one cut short must not pass for a complete run (74, said), and
    // `audit` decides for itself (audit.rs).
    let quiet_on_broken_pipe = !matches!(cli.command, Command::Normalize(_));
    let result = match &cli.command {
        Command::Normalize(a) => normalize::run(a),
        Command::Audit(a) => audit::run(a),
        Command::Filter(a) => filter::run(a),
        Command::Milter(a) => milter::run(a),
        Command::Decode(a) => decode::run(a),
        Command::Encode(a) => encode::run(a),
        Command::Label(a) => label::run(a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            // A closed pipe (`mailcharset ... | head`) is not an error.
            if e.code == exit::IO && e.broken_pipe && quiet_on_broken_pipe {
                return ExitCode::from(exit::OK);
            }
            let _ = writeln!(
                io::stderr().lock(),
                "mailcharset: {}",
                mailcharset::audit::escape_controls(&e.message)
            );
            ExitCode::from(e.code)
        }
    }
}
