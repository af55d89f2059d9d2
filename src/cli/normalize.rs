//! `mailcharset normalize`: messages, mboxes, Maildirs and folders written
//! back out as UTF-8, in the same container, same order, same names.

use super::{CliError, CliResult, NormalizeArgs, exit};
use mailcharset::mailbox::{
    self, InputKind, MailboxError, MessageReader, MessageWriter, Outcome, OutputKind, Progress,
    RawMessage, WriteMode, pipeline,
};
use mailcharset::normalize::{self, NormalizeError, Options};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

fn mailbox_err(e: &MailboxError) -> CliError {
    let code = match e {
        MailboxError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            exit::NO_INPUT
        }
        MailboxError::Io { .. } => exit::IO,
        MailboxError::Unrecognized { .. } => exit::DATA,
        // In place: locked by an MDA, or mail arrived: try again.
        MailboxError::Locked { .. } | MailboxError::Changed { .. } => exit::TEMPFAIL,
        // In place: an earlier run's backup holds mail: look, then again.
        MailboxError::BackupKept { .. } => exit::TEMPFAIL,
        _ => exit::IO,
    };
    CliError::mailbox(e, code)
}

/// One line of `--report`.
#[derive(serde::Serialize)]
struct ReportLine<'a> {
    input: &'a str,
    index: usize,
    #[serde(flatten)]
    report: &'a normalize::NormalizeReport,
    /// Why the message was not normalized (larger than the size limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
}

/// What the report says of a message larger than `--max-message-size`.
const OVERSIZE_NOTE: &str = "larger than --max-message-size: passed through unchanged";

/// What the report says of a file of a folder or Maildir that does not
/// start like a message.
const NOT_A_MESSAGE_NOTE: &str = "does not start like a message: kept as it is";
/// How much of a gzip-compressed file is decompressed (in memory, with its
/// normalized copy and that copy compressed again: about three times as
/// much at the peak, 367 MB for the 112 MB benchmark mbox): a larger file,
/// or a gzip bomb, is kept as it is, with a note.
const GZIP_CAP: u64 = 512 << 20;

/// The report line of a message passed through unchanged, not normalized.
fn oversize_line(input: &str, index: usize) -> String {
    note_line(input, index, OVERSIZE_NOTE)
}

/// The report line of a message kept as it is, and why.
fn note_line(input: &str, index: usize, note: &str) -> String {
    serde_json::to_string(&ReportLine {
        input,
        index,
        report: &normalize::NormalizeReport::default(),
        note: Some(note),
    })
    .unwrap_or_default()
}

pub fn run(args: &NormalizeArgs) -> CliResult {
    let mut opts = super::filter::options(args.unicode11, args.headers);
    opts.on_error = args.on_error.into();
    opts.eight_bit = args.eight_bit;
    opts.repair_cesu8 = args.repair_cesu8;
    opts.repair_mixed = args.repair_mixed;
    opts.keep_dkim_signed = args.keep_dkim_signed;
    opts.convert_attachments = args.convert_attachments;
    let inputs: Vec<PathBuf> = if args.input.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.input.clone()
    };
    // Standard input among several inputs has no name to be written under
    // in the output directory (it was written as a file named `-`).
    if inputs.len() > 1 && inputs.iter().any(|i| i.as_os_str() == "-") {
        return Err(CliError::new(
            exit::USAGE,
            "normalize: standard input (-) cannot be one of several inputs: it has no name \
             to be written under in the output directory; normalize it on its own",
        ));
    }
    // In place, each input is its own output.
    if inputs.len() > 1 && args.output.is_none() && !args.in_place {
        return Err(CliError::new(
            exit::USAGE,
            "normalize: several inputs need -o DIR (each is written under DIR with its own \
             name) or --in-place",
        ));
    }
    let outputs = output_names(&inputs, args.output.as_deref())?;
    // Every output against every input, before anything is written: an
    // output inside another input (`normalize inbox d -o d`, `d` holding
    // `d/inbox`) replaced part of it before that input's turn came.
    let (targets, mode) = if args.in_place {
        (inputs.clone(), WriteMode::InPlace)
    } else {
        (
            outputs.iter().flatten().cloned().collect(),
            WriteMode::Replace,
        )
    };
    if targets.len() == inputs.len() {
        mailbox::check_outputs(&inputs, &targets, mode).map_err(|e| mailbox_err(&e))?;
    }
    // The report is written to a temporary and renamed into place at the
    // end; each input's lines reach it (flushed) before that input's output
    // is put in place, so a full disk stops the run before an output
    // without its report.
    let mut report = match &args.report {
        Some(p) => {
            let output = if args.in_place {
                None
            } else {
                args.output.as_deref()
            };
            mailbox::check_report(p, &inputs, output).map_err(|e| mailbox_err(&e))?;
            Some(mailbox::AtomicFile::create(p, WriteMode::Replace).map_err(|e| mailbox_err(&e))?)
        }
        None => None,
    };
    if args.in_place {
        // Before any thread starts: an interrupted run does not leave the
        // mbox dotlocks it holds behind.
        super::interrupt::release_locks_on_signal();
    }
    let mut completed: Vec<String> = Vec::new();
    let mut any_written = false;
    let mut worst = exit::OK;
    for (input, output) in inputs.iter().zip(&outputs) {
        if let Some(parent) = output.as_deref().and_then(Path::parent)
            && inputs.len() > 1
        {
            std::fs::create_dir_all(parent)
                .map_err(|e| CliError::io(&parent.display().to_string(), e))?;
        }
        let mut written = false;
        let code = match one_input(
            input,
            output.as_deref(),
            args,
            &opts,
            report.as_mut(),
            &mut written,
        ) {
            Ok(code) => code,
            // Locked by an MDA, or mail arrived during the run: this input
            // is as it was; the others are still done.
            Err(e) if e.code == exit::TEMPFAIL => {
                eprintln!(
                    "mailcharset: {}",
                    mailcharset::audit::escape_controls(&e.message)
                );
                exit::TEMPFAIL
            }
            Err(e) => return Err(with_completed(e, &completed)),
        };
        // Only an output put in place is listed (one not written, for
        // files that could not be read, was listed as complete).
        if written && let Some(o) = output {
            completed.push(o.display().to_string());
        }
        any_written |= written;
        match code {
            exit::OK => {}
            // Files skipped or unreadable under this input: the others are
            // still done.
            exit::TEMPFAIL | exit::NO_INPUT | exit::IO => worst = super::worse(worst, code),
            _ => return Ok(code),
        }
    }
    // A report is put in place with at least one output: it has the lines
    // of the inputs whose outputs were (a report of messages changed in an
    // output that does not exist was put in place beside nothing).
    if let Some(r) = report {
        if any_written {
            r.commit()
                .map_err(|e| with_completed(mailbox_err(&e), &completed))?;
        } else {
            eprintln!(
                "mailcharset: {}: not written either: no output was",
                mailcharset::audit::escape_controls(&r.path().display().to_string())
            );
        }
    }
    Ok(worst)
}

/// Adds to an error which outputs were complete (and in place) before it.
fn with_completed(mut e: CliError, completed: &[String]) -> CliError {
    if !completed.is_empty() {
        e.message.push_str(&format!(
            " (completed before this: {})",
            completed.join(", ")
        ));
    }
    e
}

/// Where each input goes. One input: `-o` itself. Several: under DIR with
/// its file name, or, when two inputs share a file name, with its path
/// (`a/m.eml` and `b/m.eml` become `DIR/a/m.eml` and `DIR/b/m.eml`; root and
/// `..` are left out). Two inputs that would still share an output are a
/// usage error, found before anything is written.
fn output_names(
    inputs: &[PathBuf],
    output: Option<&Path>,
) -> Result<Vec<Option<PathBuf>>, CliError> {
    let Some(dir) = output else {
        return Ok(vec![None; inputs.len()]);
    };
    if inputs.len() == 1 {
        return Ok(vec![Some(dir.to_path_buf())]);
    }
    let names: Vec<PathBuf> = inputs
        .iter()
        .map(|i| PathBuf::from(i.file_name().unwrap_or(i.as_os_str())))
        .collect();
    let unique = |v: &[PathBuf]| {
        let mut seen = std::collections::HashSet::new();
        v.iter().all(|p| seen.insert(p.clone()))
    };
    let names = if unique(&names) {
        names
    } else {
        let paths: Vec<PathBuf> = inputs
            .iter()
            .map(|i| {
                i.components()
                    .filter(|c| matches!(c, std::path::Component::Normal(_)))
                    .collect()
            })
            .collect();
        if !unique(&paths) {
            let mut seen = std::collections::HashMap::new();
            for (p, i) in paths.iter().zip(inputs) {
                if let Some(first) = seen.insert(p.clone(), i) {
                    return Err(CliError::new(
                        exit::USAGE,
                        format!(
                            "normalize: {} and {} would both be written to {}; nothing written",
                            first.display(),
                            i.display(),
                            dir.join(p).display()
                        ),
                    ));
                }
            }
        }
        paths
    };
    Ok(names.into_iter().map(|n| Some(dir.join(n))).collect())
}

/// An input opened with the message size limit in mind.
enum Bounded {
    Reader(MessageReader),
    /// One message larger than the limit: its first octets, and the rest
    /// to stream.
    TooLarge {
        head: Vec<u8>,
        rest: Box<dyn std::io::Read + Send>,
    },
}

/// Opens `input`. A single message (a file, standard input or a pipe that
/// is not an mbox) larger than `max` is not read into memory: it is
/// [`Bounded::TooLarge`]. In an mbox, Maildir or folder each message is held
/// whole while it is normalized (doc/limits.md).
fn open_bounded(input: &Path, kind: InputKind, max: u64) -> Result<Bounded, CliError> {
    // Standard input read as the format given (`--input-format eml -`):
    // it was opened as a file named `-`, "No such file or directory", and
    // the piped message was not written at all.
    if input.as_os_str() == "-" && !matches!(kind, InputKind::Stdin) {
        if matches!(kind, InputKind::Maildir | InputKind::Folder) {
            return Err(CliError::new(
                exit::USAGE,
                "normalize: standard input is one message or an mbox, not a Maildir or folder",
            ));
        }
        let stream: Box<dyn std::io::Read + Send> = Box::new(std::io::stdin());
        return match super::sniff_stream(stream, max)
            .map_err(|e| CliError::io("standard input", e))?
        {
            Err((head, rest)) => Ok(Bounded::TooLarge { head, rest }),
            Ok((replay, _)) => {
                MessageReader::from_reader_as(replay, PathBuf::from("standard input"), kind)
                    .map(Bounded::Reader)
                    .map_err(|e| mailbox_err(&e))
            }
        };
    }
    match kind {
        InputKind::Eml => {
            let size = std::fs::metadata(input).map(|m| m.len()).unwrap_or(0);
            if size > max {
                let f = std::fs::File::open(input)
                    .map_err(|e| CliError::io(&input.display().to_string(), e))?;
                return Ok(Bounded::TooLarge {
                    head: Vec::new(),
                    rest: Box::new(f),
                });
            }
            MessageReader::open(input, kind)
                .map(Bounded::Reader)
                .map_err(|e| mailbox_err(&e))
        }
        InputKind::Stdin => {
            let (name, stream): (PathBuf, Box<dyn std::io::Read + Send>) =
                if input.as_os_str() == "-" {
                    ("standard input".into(), Box::new(std::io::stdin()))
                } else {
                    let f = std::fs::File::open(input)
                        .map_err(|e| CliError::io(&input.display().to_string(), e))?;
                    (input.to_path_buf(), Box::new(f))
                };
            match super::sniff_stream(stream, max)
                .map_err(|e| CliError::io(&name.display().to_string(), e))?
            {
                Err((head, rest)) => Ok(Bounded::TooLarge { head, rest }),
                Ok((replay, kind)) => MessageReader::from_reader_as(replay, name, kind)
                    .map(Bounded::Reader)
                    .map_err(|e| mailbox_err(&e)),
            }
        }
        _ => MessageReader::open(input, kind)
            .map(Bounded::Reader)
            .map_err(|e| mailbox_err(&e)),
    }
}

/// Writes a message too large to hold to the output as it came, streamed
/// (to `-o` through a temporary renamed into place, or to standard output).
fn pass_through(
    name: &str,
    input: &Path,
    output: Option<&Path>,
    args: &NormalizeArgs,
    head: Vec<u8>,
    mut rest: Box<dyn std::io::Read + Send>,
) -> CliResult {
    if args.in_place {
        // Nothing changes: the input stays as it is.
        eprintln!(
            "mailcharset: {name}: larger than --max-message-size ({}): left unchanged",
            args.max_message_size
        );
        return Ok(exit::OK);
    }
    let mut copy = |w: &mut dyn Write| -> std::io::Result<u64> {
        w.write_all(&head)?;
        let n = std::io::copy(&mut rest, w)?;
        w.flush()?;
        Ok(head.len() as u64 + n)
    };
    let n = match output {
        Some(o) => {
            mailbox::check_output(input, o, WriteMode::Replace).map_err(|e| mailbox_err(&e))?;
            let mut f =
                mailbox::AtomicFile::create(o, WriteMode::Replace).map_err(|e| mailbox_err(&e))?;
            let n = copy(&mut f).map_err(|e| CliError::io(&o.display().to_string(), e))?;
            f.commit().map_err(|e| mailbox_err(&e))?;
            n
        }
        None => {
            let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
            copy(&mut out).map_err(|e| {
                if e.kind() == std::io::ErrorKind::BrokenPipe {
                    CliError::new(
                        exit::IO,
                        format!(
                            "standard output: its reader went away (broken pipe): {name} was \
                             not written whole"
                        ),
                    )
                } else {
                    CliError::io("standard output", e)
                }
            })?
        }
    };
    eprintln!(
        "mailcharset: {name}: {n} octets, larger than --max-message-size ({}): passed through unchanged",
        args.max_message_size
    );
    Ok(exit::OK)
}

/// Whether the file at `path` starts like an mbox (its first line a `From `
/// line, after a BOM and blank lines): one an MDA may deliver to, whose
/// dotlock an in-place run takes.
fn starts_like_mbox(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(64 * 1024).read_to_end(&mut head))
        .is_ok()
        && matches!(mailbox::sniff(&head), InputKind::Mbox(_))
}

fn one_input(
    input: &Path,
    output: Option<&Path>,
    args: &NormalizeArgs,
    opts: &Options,
    report: Option<&mut mailbox::AtomicFile>,
    written: &mut bool,
) -> CliResult {
    let name = if input.as_os_str() == "-" {
        "standard input".to_string()
    } else {
        mailcharset::audit::escape_controls(&input.display().to_string()).into_owned()
    };
    if args.in_place && input.as_os_str() == "-" {
        return Err(CliError::new(
            exit::USAGE,
            "normalize: --in-place needs a file, Maildir or folder, not standard input",
        ));
    }
    // A pipe (`<(...)`, /dev/fd/N), FIFO, socket or device cannot be
    // replaced: there is no file to put the new one in place of.
    if args.in_place && std::fs::metadata(input).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return Err(CliError::new(
            exit::USAGE,
            format!(
                "normalize: {name}: --in-place needs a regular file, Maildir or folder; this is \
                 a pipe, socket or device, which cannot be replaced (write to standard output \
                 or -o instead)"
            ),
        ));
    }
    // In place on a file: the mbox dotlock, when it starts like an mbox
    // (an MDA may deliver to it), held until the new file is in place; and
    // what the file is now, compared right before the rename. Both before
    // anything is read (doc/mailbox.md, "In place").
    let (_lock, stamp) = if args.in_place && std::fs::metadata(input).is_ok_and(|m| m.is_file()) {
        // Its access time before anything here reads it (the look at its
        // first line may set it), for the times of the new file.
        let untouched = mailbox::FileStamp::of(input).ok();
        let lock = if starts_like_mbox(input) {
            Some(
                mailbox::DotLock::acquire(input, mailbox::LOCK_WAIT)
                    .map_err(|e| mailbox_err(&e))?,
            )
        } else {
            None
        };
        let stamp = mailbox::FileStamp::of(input)
            .map_err(|e| CliError::io(&input.display().to_string(), e))?
            .accessed_as(untouched);
        (lock, Some(stamp))
    } else {
        (None, None)
    };
    super::forced_on_gzip("normalize", input, args.input_format)?;
    let kind = super::input_kind(input, args.input_format).map_err(|e| mailbox_err(&e))?;
    let reader = match open_bounded(input, kind, args.max_message_size)? {
        // In place, a folder's mbox files are read under their dotlock: an
        // MDA halfway through a delivery is waited for.
        Bounded::Reader(mut r) if args.in_place => {
            r.lock_mbox_files();
            r
        }
        Bounded::Reader(r) => r,
        Bounded::TooLarge { head, rest } => {
            // Its report line first, as for any input.
            if let Some(r) = report {
                let report_name = r.path().display().to_string();
                writeln!(r, "{}", oversize_line(&name, 0))
                    .and_then(|()| r.flush())
                    .map_err(|e| {
                        CliError::io(&format!("report {report_name}"), e).with_note(format!(
                            "{report_name} not written; the output for this input not replaced"
                        ))
                    })?;
            }
            let code = pass_through(&name, input, output, args, head, rest)?;
            *written = true;
            return Ok(code);
        }
    };
    let skipped = reader.skipped();
    let out_kind = OutputKind::matching(reader.kind());
    // --in-place writes over the input (a backup is kept until the new file
    // is complete); otherwise -o, or standard output.
    let (output, mode) = if args.in_place {
        (Some(input), WriteMode::InPlace)
    } else {
        (output, WriteMode::Replace)
    };
    let writer = match output {
        Some(o) => {
            mailbox::check_output(input, o, mode).map_err(|e| mailbox_err(&e))?;
            let mut w = MessageWriter::create(o, out_kind, mode).map_err(|e| mailbox_err(&e))?;
            if let Some(stamp) = stamp {
                w.expect_unchanged(stamp);
            }
            // A Maildir's `cur/` or `new/` named itself: its files are
            // Maildir messages (size tags kept up to date).
            if kind == InputKind::Folder && mailbox::is_maildir_subdir(input) {
                w.files_are_maildir_messages();
            }
            // Maildir++ folders are kept, with or without messages.
            for f in reader.maildir_folders() {
                w.add_maildir_folder(f).map_err(|e| mailbox_err(&e))?;
            }
            w
        }
        None if matches!(kind, InputKind::Maildir | InputKind::Folder) => {
            return Err(CliError::new(
                exit::USAGE,
                format!("normalize: {name}: a Maildir or folder needs -o OUTPUT"),
            ));
        }
        // Buffered by the writer (stdout alone is line-buffered, a system
        // call per line).
        None => MessageWriter::to_stream(Box::new(std::io::stdout()), out_kind, "standard output")
            .map_err(|e| mailbox_err(&e))?,
    };
    let popts = pipeline::Options {
        jobs: args.jobs.unwrap_or(0),
        progress: Progress::from_flags(args.progress.quiet, args.progress.progress),
        total_bytes: reader.size_hint_bytes(),
        ..pipeline::Options::default()
    };
    let failed: Mutex<Option<(usize, u64, NormalizeError)>> = Mutex::new(None);
    let stop = AtomicBool::new(false);
    let lines: Mutex<Vec<(usize, String)>> = Mutex::new(Vec::new());
    let want_report = report.is_some();
    // A message file or directory of a Maildir or folder that cannot be
    // read is passed over and listed; what that means for the output is
    // decided below.
    let unreadable = super::Unreadable::default();
    let reader = super::skip_unreadable(reader, kind, &unreadable);
    // Under --on-error fail, reading stops once a message failed.
    let reader = reader.take_while(|_| !stop.load(Ordering::Relaxed));
    let fail = |m: &RawMessage, e: NormalizeError| {
        stop.store(true, Ordering::Relaxed);
        if let Ok(mut f) = failed.lock()
            && f.as_ref().is_none_or(|(i, _, _)| m.index < *i)
        {
            *f = Some((m.index, m.offset, e));
        }
    };
    let oversize = std::sync::atomic::AtomicUsize::new(0);
    let compressed = std::sync::atomic::AtomicUsize::new(0);
    // An mbox held whole (a file of a folder that is clearly an mbox, or
    // the mbox a gzip file holds): normalized message by message (the size
    // limit applies to each) and written back as an mbox; its report lines
    // name the file and the message's place in it, as audit's records do.
    let rewrite_mbox = |m: &RawMessage, bytes: &[u8], flavor: mailbox::MboxFlavor| -> Outcome {
        // Named as audit names it: a folder's file by its own path, a
        // file named on its own (or piped in) by the input's name.
        let file = match (&m.origin, kind) {
            (mailbox::Origin::File { relative }, InputKind::Folder) => input.join(relative),
            _ => PathBuf::from(&name),
        };
        let file_name = file.display().to_string();
        let mut findings = 0;
        let mut error = None;
        let mut file_lines = Vec::new();
        let rewritten = mailbox::rewrite_mbox_bytes(bytes, flavor, &file, |inner| {
            if error.is_some() {
                return None;
            }
            if inner.bytes.len() as u64 > args.max_message_size {
                oversize.fetch_add(1, Ordering::Relaxed);
                if want_report {
                    file_lines.push(oversize_line(&file_name, inner.index));
                }
                return None;
            }
            match normalize::normalize(&inner.bytes, opts) {
                Ok(n) => {
                    findings += n.report.findings();
                    if want_report {
                        file_lines.push(
                            serde_json::to_string(&ReportLine {
                                input: &file_name,
                                index: inner.index,
                                report: &n.report,
                                note: None,
                            })
                            .unwrap_or_default(),
                        );
                    }
                    match n.bytes {
                        std::borrow::Cow::Owned(b) => Some(b),
                        std::borrow::Cow::Borrowed(_) => None,
                    }
                }
                Err(e) => {
                    error.get_or_insert(e);
                    None
                }
            }
        });
        if let Some(e) = error {
            fail(m, e);
            return Outcome::stop();
        }
        if want_report && let Ok(mut l) = lines.lock() {
            l.extend(file_lines.into_iter().map(|line| (m.index, line)));
        }
        match rewritten {
            Ok(Some(b)) => Outcome::changed(b),
            // Unchanged, or unreadable as an mbox after all: kept as it is.
            Ok(None) | Err(_) => Outcome::unchanged(),
        }
        .with_findings(findings)
    };
    let plain_work = |m: &RawMessage| -> Outcome {
        // A file of a folder that is clearly an mbox (a later envelope line
        // after an empty line): message by message.
        if let Some(flavor) = super::folder_mbox(input, kind, m) {
            return rewrite_mbox(m, &m.bytes, flavor);
        }
        // A file that does not start like a message (a photo, a PDF, notes
        // kept beside the mail, an xz'd mbox, an Emacs RMAIL file), in a
        // folder or Maildir or named on its own or piped in, is not mail: it
        // goes out byte for byte, as audit passes over it. (Read as a
        // message it had header fields inserted and its text re-encoded;
        // named on its own, `--in-place` destroyed it.) A message of an mbox
        // is a message whatever its first line.
        // Its report line names the message as audit's records do: a file
        // of a folder or Maildir by its own path (index 0), a message of an
        // mbox by the input and its place in it.
        let (name, index) = super::message_name(input, &name, kind, m);
        if !matches!(m.origin, mailbox::Origin::Mbox { .. })
            && !mailcharset::mailbox::looks_like_message(&m.bytes)
        {
            if want_report && let Ok(mut l) = lines.lock() {
                l.push((m.index, note_line(&name, index, NOT_A_MESSAGE_NOTE)));
            }
            return Outcome::unchanged();
        }
        // A message of an archive larger than the limit is held (the reader
        // has it) but not decoded: it goes out as it came.
        if m.bytes.len() as u64 > args.max_message_size {
            oversize.fetch_add(1, Ordering::Relaxed);
            if want_report && let Ok(mut l) = lines.lock() {
                l.push((m.index, oversize_line(&name, index)));
            }
            return Outcome::unchanged();
        }
        // Any other file of a folder or Maildir is one message, whatever its
        // first line: a leading `From ` line is an envelope line of the
        // message, kept as it is, never a sign of an mbox to split
        // (doc/mailbox.md).
        match normalize::normalize(&m.bytes, opts) {
            Ok(n) => {
                if want_report {
                    let line = serde_json::to_string(&ReportLine {
                        input: &name,
                        index,
                        report: &n.report,
                        note: None,
                    })
                    .unwrap_or_default();
                    if let Ok(mut l) = lines.lock() {
                        l.push((m.index, line));
                    }
                }
                let findings = n.report.findings();
                match n.bytes {
                    std::borrow::Cow::Owned(b) => Outcome::changed(b),
                    std::borrow::Cow::Borrowed(_) => Outcome::unchanged(),
                }
                .with_findings(findings)
            }
            Err(e) => {
                fail(m, e);
                Outcome::stop()
            }
        }
    };
    // A gzip-compressed file (a list archive's `2005-January.txt.gz`) named
    // on its own, piped in or in a folder is read decompressed, its
    // messages normalized as those of the file it holds, and written back
    // compressed under its own name when one changed (doc/mailbox.md,
    // "Compressed inputs"). One that cannot be read whole (damaged, cut,
    // over the cap, compressed twice) is kept byte for byte, with a note.
    // A Maildir's compressed message file (Dovecot's zlib plugin) too: its
    // `S=` and `W=` tags stay those of the message decompressed.
    let work = |m: &RawMessage| -> Outcome {
        if matches!(m.origin, mailbox::Origin::Mbox { .. }) || !mailbox::gzip::is_gzip(&m.bytes) {
            return plain_work(m);
        }
        let (file_name, index) = super::message_name(input, &name, kind, m);
        let keep = |why: &str| {
            compressed.fetch_add(1, Ordering::Relaxed);
            if want_report && let Ok(mut l) = lines.lock() {
                l.push((
                    m.index,
                    note_line(&file_name, index, &format!("{why}: kept as it is")),
                ));
            }
            Outcome::unchanged()
        };
        let inflated = mailbox::gzip::inflate(&m.bytes, GZIP_CAP);
        if let Some(short) = &inflated.short {
            return keep(short);
        }
        if mailbox::gzip::is_gzip(&inflated.bytes) {
            return keep("gzip-compressed twice");
        }
        let plain = m.with_bytes(inflated.bytes);
        let flavor = if kind == InputKind::Folder {
            super::folder_mbox(input, kind, &plain)
        } else {
            mailbox::sniff_folder_file(&plain.bytes)
        };
        let outcome = match flavor {
            Some(flavor) => rewrite_mbox(&plain, &plain.bytes, flavor),
            None => plain_work(&plain),
        };
        match outcome.output {
            Some(b) if b != plain.bytes => match mailbox::gzip::deflate_like(&m.bytes, &b) {
                Ok(gz) => Outcome {
                    output: Some(gz),
                    ..outcome
                },
                Err(e) => keep(&format!("could not be compressed again ({e})")),
            },
            _ => Outcome {
                output: None,
                ..outcome
            },
        }
    };
    let (stats, writer) =
        pipeline::run_unfinished(reader, writer, &popts, work).map_err(|e| mailbox_err(&e))?;
    let failed = failed.into_inner().ok().flatten();
    // With -o, an output without the messages that could not be read would
    // pass for the whole input: it is not put in place. In place, every
    // other file was normalized, and the unreadable ones are as they were.
    let missing = unreadable.lock().map(|v| !v.is_empty()).unwrap_or(true);
    let incomplete = missing && !args.in_place;
    // A failed message stopped the reading: the output would be short, so
    // it does not replace anything (in place, the input stays as it was).
    // Standard output has had what it has had.
    let to_stdout = output.is_none();
    // In place: mail that arrived meanwhile keeps the new file from being
    // put in place (checked again right before the rename); its report
    // lines are not written either.
    if failed.is_none() {
        writer.check_unchanged().map_err(|e| mailbox_err(&e))?;
    }
    // Whether this input's output is put in place (or went out): not with
    // files missing (-o), nor after a failed message, but for standard
    // output (what came before it) and in place on a Maildir or folder
    // (the files before it were replaced).
    let puts = !incomplete
        && (failed.is_none()
            || to_stdout
            || (args.in_place && matches!(kind, InputKind::Maildir | InputKind::Folder)));
    // The report's lines first (flushed to its temporary): if they cannot
    // be written, this input's output is not put in place either. Those of
    // an output not put in place are not written (the report described
    // changes in an output that did not exist), and are taken back out
    // should the output fail at the last step.
    let mut report = report;
    let mark = match report.as_mut() {
        Some(r) if puts => Some(r.written_len().map_err(|e| mailbox_err(&e))?),
        _ => None,
    };
    if let Some(r) = report.as_mut().filter(|_| puts) {
        let mut lines = lines.into_inner().unwrap_or_default();
        lines.sort_by_key(|l| l.0);
        let name = r.path().display().to_string();
        let written = lines
            .iter()
            .try_for_each(|(_, l)| writeln!(r, "{l}"))
            .and_then(|()| r.flush());
        if let Err(e) = written {
            drop(writer);
            return Err(
                CliError::io(&format!("report {name}"), e).with_note(format!(
                    "{name} not written; the output for this input not replaced"
                )),
            );
        }
    }
    let (notes, retry) = writer.in_place_notes();
    let (notes, retry) = (notes.to_vec(), retry);
    if incomplete {
        drop(writer);
    } else if failed.is_some() && to_stdout {
        // What came before the failing message, and nothing else, goes out.
        writer.finish().map_err(|e| mailbox_err(&e))?;
    } else if failed.is_none() {
        let late = match writer.finish_late() {
            Ok(late) => late,
            Err(e) => {
                if let (Some(r), Some(mark)) = (report, mark) {
                    r.truncate(mark).map_err(|e| mailbox_err(&e))?;
                }
                return Err(mailbox_err(&e));
            }
        };
        if late > 0 {
            eprintln!(
                "mailcharset: {name}: {late} octets were appended by another program right \
                 as the new file was put in place; they are kept, unchanged, at its end \
                 (run again to normalize them)"
            );
        }
    } else {
        drop(writer);
    }
    *written = puts;
    if !args.progress.quiet {
        eprintln!("mailcharset normalize: {name}: {stats}");
    }
    let mut skip_code = super::report_skipped(&name, &skipped.list(), args.strict_inputs);
    if !notes.is_empty() {
        let mut msg = format!(
            "{name}: {} message file(s) changed by another program during the run:",
            notes.len()
        );
        for n in &notes {
            msg.push_str("\n  ");
            msg.push_str(&mailcharset::audit::escape_controls(n));
        }
        eprintln!("mailcharset: {msg}");
    }
    if retry && skip_code == exit::OK {
        skip_code = exit::TEMPFAIL;
    }
    let what = if args.in_place {
        "they were left as they are; the other messages were normalized in place".to_string()
    } else {
        format!(
            "no output written for {name}: it would lack them (make them readable and run \
             again)"
        )
    };
    skip_code = super::worse(
        skip_code,
        super::report_unreadable(&name, unreadable, &what),
    );
    let oversize = oversize.into_inner();
    if oversize > 0 {
        eprintln!(
            "mailcharset: {name}: {oversize} message(s) larger than --max-message-size ({}) \
             passed through unchanged",
            args.max_message_size
        );
    }
    // Said on the terminal, not only in the report: such a file would
    // otherwise count as kept as it was, with no sign that its messages
    // were not read.
    let compressed = compressed.into_inner();
    if compressed > 0 {
        eprintln!(
            "mailcharset: {name}: {compressed} gzip-compressed file(s) kept as they were, their \
             messages not normalized (damaged, too large or compressed twice: the report says \
             which)"
        );
    }
    if let Some((index, offset, e)) = failed {
        let before = stats.messages_out;
        let what = if to_stdout {
            format!(
                "output stopped before it: the {before} message(s) before it were written, \
                 nothing of it or after it"
            )
        } else if args.in_place && matches!(kind, InputKind::Maildir | InputKind::Folder) {
            // Message files are replaced one by one, each atomically.
            format!(
                "the {before} message file(s) before it were handled in place, one file at a \
                 time; it and the others are as they were"
            )
        } else if args.in_place {
            "the input is unchanged".to_string()
        } else {
            "no output written".to_string()
        };
        eprintln!("mailcharset: {name}: message {index} (at byte {offset}): {e} ({what})");
        return Ok(exit::DATA);
    }
    Ok(skip_code)
}
