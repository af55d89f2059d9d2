//! `mailcharset audit [INPUT...] [--format table|json|jsonl|csv] [-o FILE]
//! [--jobs N] [--fail-on invalid|mislabeled|suspicious]`.
//!
//! Each INPUT is detected (`mailbox::detect`): a message file, an mbox, a
//! Maildir, a folder (recursively), or `-` for standard input (the default).
//! In a folder, a file that is clearly an mbox (its first line a `From `
//! line, and a later one, after an empty line, an mbox envelope line) is
//! read as one, its messages numbered within it, as `normalize` reads it;
//! every other file of a folder or Maildir is one message (a leading
//! `From ` line is part of it), and a file that
//! does not start like a message (a header field or a `From ` line) is
//! skipped and listed with the other skipped files after the run (exit 66
//! under `--strict-inputs`), so `audit fixtures/` passes over
//! `EXPECT.tsv`.
//!
//! Records are named by the file they come from (`folder/sub/x.eml`) and
//! the message's 0-based position in that file (always 0 for a message
//! file). Records stream through [`RecordWriter`] in input order whatever
//! `--jobs` is.
//!
//! Exit status: 0; 1 (`exit::FINDINGS`) when `--fail-on` is given and a
//! record reached it; 66 for a missing input; 74 for I/O errors.

use super::{AuditArgs, CliError, CliResult, FailOnArg, FormatArg, Unicode11Arg, exit};
use mailcharset::audit::{
    AuditOptions, FailOn, Format, Formatted, MessageContext, Record, RecordWriter, audit_message,
};
use mailcharset::charset::Unicode11Policy;
use mailcharset::mailbox::{
    self, AtomicFile, Bar, InputKind, MailboxError, MessageReader, Origin, Progress, RawMessage,
    WriteMode, gzip, pipeline,
};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// What one message of the reader turned into: the audited messages (none
/// for a file of a folder that does not start like a message, more than
/// one for an mbox found in a folder) and notes
/// for stderr. The records are formatted on the worker that audited them
/// (all formats but the table, which is the summary of the records), so
/// that the writing thread only copies bytes.
struct Audited {
    format: Format,
    messages: Vec<Output>,
    notes: Vec<String>,
    /// The file was passed over (it does not start like a message).
    skipped: Option<PathBuf>,
    /// The file is gzip-compressed and could not be read whole (its notes
    /// say why): the run ends with 74.
    damaged: bool,
}

enum Output {
    Records(Vec<Record>),
    Formatted(Formatted),
}

impl Audited {
    fn push(&mut self, records: Vec<Record>) {
        self.messages.push(match self.format {
            Format::Table => Output::Records(records),
            // A record that cannot be formatted (it can always be) is left
            // to the writer, which reports the error.
            format => {
                Formatted::new(format, &records).map_or(Output::Records(records), Output::Formatted)
            }
        });
    }
}

/// An error of the run: the reader's or the writer's.
enum RunError {
    Mailbox(MailboxError),
    Output(io::Error),
}

impl From<MailboxError> for RunError {
    fn from(e: MailboxError) -> Self {
        RunError::Mailbox(e)
    }
}

pub fn run(args: &AuditArgs) -> CliResult {
    let format = match args.format {
        FormatArg::Table => Format::Table,
        FormatArg::Json => Format::Json,
        FormatArg::Jsonl => Format::Jsonl,
        FormatArg::Csv => Format::Csv,
    };
    let fail_on = args.fail_on.map(|f| match f {
        FailOnArg::Invalid => FailOn::Invalid,
        FailOnArg::Mislabeled => FailOn::Mislabeled,
        FailOnArg::Suspicious => FailOn::Suspicious,
    });
    let opts = AuditOptions {
        unicode11: match args.unicode11 {
            Unicode11Arg::Auto => Unicode11Policy::Auto,
            Unicode11Arg::Remap => Unicode11Policy::Remap,
            Unicode11Arg::Off => Unicode11Policy::Off,
        },
        ..AuditOptions::default()
    };
    let inputs: Vec<PathBuf> = if args.input.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.input.clone()
    };
    // Open every input first: a missing one is a usage problem (66) before
    // any output is written.
    let mut readers = Vec::new();
    for path in &inputs {
        // `--input-format`, as normalize reads it (it was not looked at:
        // an mbox that starts with a message without its envelope line was
        // one message here and many there).
        super::forced_on_gzip("audit", path, args.input_format)?;
        let kind = super::input_kind(path, args.input_format).map_err(mailbox_error)?;
        // A gzip-compressed file (it reads as one message that does not
        // start like one) is read decompressed, as a stream is.
        let (reader, damage) = if kind == InputKind::Stdin
            || (kind == InputKind::Eml
                && args.input_format == super::InputFormatArg::Auto
                && super::starts_gzip(path))
        {
            open_stream(path, args.max_message_size)?
        } else if path.as_os_str() == "-" {
            // Standard input read as the format given.
            if matches!(kind, InputKind::Maildir | InputKind::Folder) {
                return Err(CliError::new(
                    exit::USAGE,
                    "audit: standard input is one message or an mbox, not a Maildir or folder",
                ));
            }
            // One message is read no further than the size limit and one
            // octet, as a stream's is (enough to audit its header and say
            // it was larger); an mbox a message at a time.
            let stream: Box<dyn io::Read + Send> = if kind == InputKind::Eml {
                let (head, _) = super::read_capped(&mut io::stdin(), args.max_message_size)
                    .map_err(|e| CliError::io("standard input", e))?;
                Box::new(io::Cursor::new(head))
            } else {
                Box::new(io::stdin())
            };
            let reader =
                MessageReader::from_reader_as(stream, PathBuf::from("standard input"), kind)
                    .map_err(mailbox_error)?;
            (reader, None)
        } else {
            (
                MessageReader::open(path, kind).map_err(mailbox_error)?,
                None,
            )
        };
        readers.push((path.clone(), reader, damage));
    }
    // A report file is written to a temporary and renamed into place when
    // complete: a full disk or a failed run leaves the old report (or none),
    // never a partial one.
    let (out_name, sink) = match &args.output {
        Some(p) if p.as_os_str() != "-" => {
            mailbox::check_report(p, &inputs, None).map_err(mailbox_error)?;
            let f = AtomicFile::create(p, WriteMode::Replace).map_err(mailbox_error)?;
            (p.display().to_string(), Sink::File(f))
        }
        _ => (
            "standard output".to_string(),
            Sink::Stdout(BufWriter::new(io::stdout().lock())),
        ),
    };
    let mut writer = RecordWriter::new(sink, format).map_err(|e| CliError::io(&out_name, e))?;
    let progress = Progress::from_flags(args.progress.quiet, args.progress.progress);
    let mut reached = false;
    let mut skip_code = exit::OK;
    for (path, reader, damage) in readers {
        let kind = reader.kind();
        let skipped = reader.skipped();
        let popts = pipeline::Options {
            jobs: args.jobs.unwrap_or(0),
            progress,
            total_bytes: reader.size_hint_bytes(),
            ..pipeline::Options::default()
        };
        let mut bar = Bar::new(progress, reader.size_hint_bytes());
        // A message file or directory that cannot be read is listed and
        // the audit goes on with the others; the run exits 74 at the end.
        let unreadable = super::Unreadable::default();
        let reader = super::skip_unreadable(reader, kind, &unreadable);
        let mut not_messages = Vec::new();
        let mut damaged = false;
        // The input's name, formatted once: every message of an mbox has it.
        let input_name = path.display().to_string();
        let work = |m: &RawMessage| {
            audit_raw(
                &path,
                &input_name,
                kind,
                m,
                &opts,
                format,
                args.max_message_size,
            )
        };
        let result = pipeline::run_ordered(reader, &popts, work, |m, a: &Audited| {
            bar.advance(1, m.input_len);
            for n in &a.notes {
                eprintln!("mailcharset: {}", mailcharset::audit::escape_controls(n));
            }
            damaged |= a.damaged;
            if let Some(p) = &a.skipped {
                not_messages.push(mailbox::Skipped {
                    path: p.clone(),
                    reason: mailbox::SkipReason::NotAMessage,
                });
            }
            for out in &a.messages {
                let (worst, written) = match out {
                    Output::Records(records) => (
                        records.iter().map(|r| r.verdict).max(),
                        writer.write_message(records),
                    ),
                    Output::Formatted(f) => (f.worst(), writer.write_formatted(f)),
                };
                if let (Some(f), Some(w)) = (fail_on, worst) {
                    reached |= f.is_reached_by(w);
                }
                written.map_err(RunError::Output)?;
            }
            Ok::<(), RunError>(())
        });
        bar.finish();
        match result {
            Ok(()) => {}
            Err(RunError::Mailbox(e)) => return Err(mailbox_error(e)),
            Err(RunError::Output(e)) => return output_error(e, &out_name, fail_on, reached),
        }
        let name = if path.as_os_str() == "-" {
            "standard input".to_string()
        } else {
            path.display().to_string()
        };
        // Damaged gzip data ended the input early: the messages before the
        // damage were audited; the rest could not be read.
        if damaged {
            skip_code = super::worse(skip_code, exit::IO);
        }
        if let Some(note) = damage.and_then(|d| d.lock().ok().and_then(|n| n.clone())) {
            eprintln!(
                "mailcharset: {}: {note}; the rest was not audited",
                mailcharset::audit::escape_controls(&name)
            );
            skip_code = super::worse(skip_code, exit::IO);
        }
        let mut skipped = skipped.list();
        skipped.extend(not_messages);
        skip_code = super::worse(
            skip_code,
            super::report_skipped(&name, &skipped, args.strict_inputs),
        );
        skip_code = super::worse(
            skip_code,
            super::report_unreadable(&name, unreadable, "they were not audited"),
        );
    }
    let sink = match writer.finish_output() {
        Ok((_, sink)) => sink,
        Err(e) => return output_error(e, &out_name, fail_on, reached),
    };
    if let Sink::File(f) = sink {
        f.commit().map_err(mailbox_error)?;
    }
    Ok(if skip_code != exit::OK {
        skip_code
    } else if reached {
        exit::FINDINGS
    } else {
        exit::OK
    })
}

/// An error writing the records. A closed pipe on standard output
/// (`audit ... | head`) is what the reader asked for: the report is read by
/// a person, and `head` wanted its first lines, as with `grep | head`. It
/// ends the run quietly with 0, which keeps `set -o pipefail` scripts that
/// look at the first lines working. With `--fail-on`, though, the exit
/// status is the answer, and a run cut short cannot give it: 1 if a record
/// had reached the level already, else 74 with a line saying the verdict is
/// unknown (never 0, which would say nothing reached it).
fn output_error(e: io::Error, out_name: &str, fail_on: Option<FailOn>, reached: bool) -> CliResult {
    if e.kind() != io::ErrorKind::BrokenPipe {
        return Err(CliError::io(out_name, e));
    }
    match fail_on {
        None => Ok(exit::OK),
        Some(_) if reached => Ok(exit::FINDINGS),
        Some(_) => Err(CliError::new(
            exit::IO,
            format!(
                "{out_name}: its reader went away (broken pipe) before the audit was complete: \
                 no record had reached the --fail-on level so far, the rest is unknown"
            ),
        )),
    }
}

/// Where the records go.
enum Sink {
    File(AtomicFile),
    Stdout(BufWriter<io::StdoutLock<'static>>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::File(f) => f.write(buf),
            Sink::Stdout(o) => o.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::File(f) => f.flush(),
            Sink::Stdout(o) => o.flush(),
        }
    }
}

/// A stream (standard input, a pipe, a gzip-compressed file): one message
/// larger than `max` is read no further than `max` and one octet (enough to
/// audit its header and say it was larger); an mbox stream is read whole, a
/// message at a time. A stream that starts like gzip data is read
/// decompressed; the slot that comes back holds the damage met, if any, once
/// it has been read.
fn open_stream(
    path: &Path,
    max: u64,
) -> Result<(MessageReader, Option<gzip::DamageSlot>), CliError> {
    let (name, stream): (PathBuf, Box<dyn io::Read + Send>) = if path.as_os_str() == "-" {
        ("standard input".into(), Box::new(io::stdin()))
    } else {
        let f =
            std::fs::File::open(path).map_err(|e| CliError::io(&path.display().to_string(), e))?;
        (path.to_path_buf(), Box::new(f))
    };
    let (head, more) =
        read_capped(stream, 3).map_err(|e| CliError::io(&name.display().to_string(), e))?;
    let (stream, damage): (Box<dyn io::Read + Send>, _) = if mailbox::gzip::is_gzip(&head) {
        let gz = gzip::GzStream::new(Box::new(io::Read::chain(io::Cursor::new(head), more)));
        let slot = gz.damage();
        (Box::new(gz), Some(slot))
    } else {
        (Box::new(io::Read::chain(io::Cursor::new(head), more)), None)
    };
    let replay = match super::sniff_stream(stream, max)
        .map_err(|e| CliError::io(&name.display().to_string(), e))?
    {
        // Larger than the limit: its head, and one octet more, is audited.
        Err((head, _rest)) => (
            Box::new(io::Cursor::new(head)) as Box<dyn io::Read + Send>,
            mailcharset::mailbox::InputKind::Eml,
        ),
        Ok(r) => r,
    };
    let reader = MessageReader::from_reader_as(replay.0, name, replay.1).map_err(mailbox_error)?;
    Ok((reader, damage))
}

/// The first `n` octets of `stream` (fewer only at its end; a pipe may
/// give them a few at a time), and the stream after them.
fn read_capped(
    mut stream: Box<dyn io::Read + Send>,
    n: u64,
) -> io::Result<(Vec<u8>, Box<dyn io::Read + Send>)> {
    let mut head = Vec::new();
    io::Read::read_to_end(&mut io::Read::take(stream.by_ref(), n), &mut head)?;
    Ok((head, stream))
}

fn mailbox_error(e: MailboxError) -> CliError {
    let code = match e.io_kind() {
        Some(io::ErrorKind::NotFound) => exit::NO_INPUT,
        _ => exit::IO,
    };
    CliError::mailbox(&e, code)
}

/// Audits one message of `input` (read as `kind`).
fn audit_raw(
    input: &Path,
    input_name: &str,
    kind: InputKind,
    m: &RawMessage,
    opts: &AuditOptions,
    format: Format,
    max: u64,
) -> Audited {
    let mut out = Audited {
        format,
        messages: Vec::new(),
        notes: Vec::new(),
        skipped: None,
        damaged: false,
    };
    let (name, index) = super::message_name(input, input_name, kind, m);
    // A gzip-compressed file of a folder or Maildir (a list archive's
    // `2005-January.txt.gz`, Dovecot's compressed Maildir files) is read
    // decompressed, as the same file named on its own is: its messages
    // carry the file's name.
    if !matches!(m.origin, Origin::Mbox { .. }) && gzip::is_gzip(&m.bytes) {
        let inflated = gzip::inflate(&m.bytes, FOLDER_GZIP_CAP);
        if let Some(short) = &inflated.short {
            out.notes.push(format!(
                "{name}: {short}; the rest was not audited{}",
                if inflated.bytes.len() as u64 >= FOLDER_GZIP_CAP {
                    " (name the file on its own to read it whole)"
                } else {
                    ""
                }
            ));
            out.damaged = true;
        }
        // Compressed twice (or a gzip quine, which decompresses to
        // itself): passed over, as any file that does not start like a
        // message is.
        if gzip::is_gzip(&inflated.bytes) {
            out.skipped = Some(PathBuf::from(name.as_ref()));
            return out;
        }
        let plain = m.with_bytes(inflated.bytes);
        let inner = audit_raw(input, input_name, kind, &plain, opts, format, max);
        out.messages = inner.messages;
        out.notes.extend(inner.notes);
        out.skipped = inner.skipped;
        out.damaged |= inner.damaged;
        return out;
    }
    // A file of a folder that is clearly an mbox (a later envelope line
    // after an empty line), as `normalize` reads it: its messages, numbered
    // within it, each under the size limit on its own.
    if let Some(flavor) = super::folder_mbox(input, kind, m) {
        match mailbox::read_mbox_bytes(&m.bytes, flavor, Path::new(name.as_ref())) {
            Ok(r) => {
                for item in r {
                    match item {
                        Ok(inner) => {
                            let ctx = MessageContext {
                                input: &name,
                                index: inner.index,
                            };
                            if inner.bytes.len() as u64 > max {
                                out.push(audit_oversize(&inner.bytes, &ctx, opts, max));
                            } else {
                                out.push(audit_message(&inner.bytes, &ctx, opts));
                            }
                        }
                        Err(e) => out.notes.push(format!("{name}: {e}")),
                    }
                }
            }
            Err(e) => out.notes.push(format!("{name}: {e}")),
        }
        return out;
    }
    // Any other file of a folder or Maildir is one message, as `normalize`
    // reads it: a leading `From ` line is part of it (a single message
    // saved with its envelope line). One that does not start like a
    // message, there or named on its own or piped in (as `normalize`
    // keeps it byte for byte), is listed with the skipped files after the
    // run; a message of an mbox is one whatever its first line.
    if !matches!(m.origin, Origin::Mbox { .. }) && !mailbox::looks_like_message(&m.bytes) {
        out.skipped = Some(PathBuf::from(name.as_ref()));
        return out;
    }
    let ctx = MessageContext {
        input: &name,
        index,
    };
    if m.bytes.len() as u64 > max {
        out.push(audit_oversize(&m.bytes, &ctx, opts, max));
        return out;
    }
    out.push(audit_message(&m.bytes, &ctx, opts));
    out
}

/// How much of a gzip-compressed file of a folder is decompressed (it is
/// held in memory, as the folder's other files are): a file larger than
/// this decompressed (or a gzip bomb) is read to here, with a note. Named
/// on its own it is read as a stream, whole.
const FOLDER_GZIP_CAP: u64 = 2 << 30;

/// A message larger than `--max-message-size`: its header block is audited
/// (the labels a message uses are mostly there), its parts are not
/// decoded, and a `message` record says so.
fn audit_oversize(
    bytes: &[u8],
    ctx: &MessageContext<'_>,
    opts: &AuditOptions,
    max: u64,
) -> Vec<Record> {
    let end = memchr::memmem::find(bytes, b"\n\n")
        .or_else(|| memchr::memmem::find(bytes, b"\r\n\r\n").map(|i| i + 2))
        .map_or(bytes.len().min(1 << 20), |i| i + 2);
    let mut records: Vec<Record> = audit_message(&bytes[..end], ctx, opts)
        .into_iter()
        .filter(|r| r.location != "body" && r.location != "message")
        .collect();
    let mut note = audit_message(b"", ctx, opts);
    if let Some(mut r) = note.pop() {
        r.message_id = records.first().and_then(|x| x.message_id.clone());
        r.part = String::new();
        r.location = "message".into();
        r.label = None;
        r.charset = None;
        r.detected = None;
        r.status = mailcharset::LabelStatus::Missing;
        r.verdict = mailcharset::Verdict::Suspicious;
        r.findings = vec![
            mailcharset::Finding::new(mailcharset::FindingKind::LimitReached, 0, 1).with_note(
                format!(
                    "{} octets, over --max-message-size ({max}): header audited, parts not decoded",
                    bytes.len()
                ),
            ),
        ];
        records.push(r);
    }
    records
}
