//! `mailcharset milter --listen inet:HOST:PORT | unix:PATH`: a milter for
//! Postfix (`smtpd_milters`) and Sendmail (`INPUT_MAIL_FILTER`).
//!
//! Each SMTP session is a thread. The header fields and body are collected
//! (up to `--max-message-size`; a larger message is let through unchanged
//! and never held whole), and at the end of the message it is normalized
//! with the same options as `normalize` and `filter`. Only what changed goes
//! back: `chgheader` for each top-level field normalization rewrote,
//! `addheader` for each it added (MIME-Version, Content-Type,
//! Content-Transfer-Encoding), `replbody` for the body (the MIME part
//! headers live there).
//!
//! The milter never rejects mail for its content. A message it does not
//! normalize for what it is (over the size limit, text `--on-error fail`
//! refuses) goes on unchanged: deferring it would only delay a bounce,
//! since every retry meets the same. When the milter itself fails (a
//! panic in normalization is caught) the message goes on unchanged, or is
//! deferred with `--on-failure tempfail`; if the milter itself is gone,
//! the MTA applies its `milter_default_action`. SIGTERM and SIGINT let open sessions finish
//! (`stop.rs`). One line per message on stderr: the queue id,
//! the Message-ID, what changed and the worst verdict; `--report FILE`
//! appends the normalize report as JSON lines.

mod protocol;
mod stop;

use super::{CliError, CliResult, MilterArgs, OnFailureArg, exit};
use mailcharset::audit::escape_controls;
use mailcharset::mime::{HeaderBlock, parse_header_block};
use mailcharset::normalize::{self, Action, NormalizeReport, Options};
use protocol::{Command, Reply};
use std::collections::HashMap;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// What every session shares.
struct Shared {
    opts: Options,
    max: u64,
    on_failure: OnFailureArg,
    /// Sessions handled at once (`--max-sessions`).
    max_sessions: usize,
    report: Option<Mutex<BufWriter<std::fs::File>>>,
    /// Where `report` is open, reopened on SIGHUP.
    report_path: Option<PathBuf>,
}

impl Shared {
    /// SIGHUP: the report file is opened again at its path (a rotated one
    /// is flushed and left), and the stderr log says so.
    fn reopen_report(&self) {
        let (Some(path), Some(report)) = (&self.report_path, &self.report) else {
            note("SIGHUP: no --report file to reopen; ignored");
            return;
        };
        match open_report(path) {
            Ok(file) => {
                if let Ok(mut r) = report.lock() {
                    let _ = r.flush();
                    *r = BufWriter::new(file);
                }
                note(&format!("SIGHUP: {} reopened", path.display()));
            }
            Err(e) => note(&format!(
                "SIGHUP: cannot reopen {}: {e}; still writing to the file open before",
                path.display()
            )),
        }
    }
}

fn open_report(path: &std::path::Path) -> io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
}

pub fn run(args: &MilterArgs) -> CliResult {
    // Before any thread exists, so that every thread inherits the mask and
    // only the stop thread receives SIGTERM and SIGINT.
    let signals = stop::block_signals();
    let mut opts = super::filter::options(args.unicode11, args.headers);
    opts.on_error = args.on_error.into();
    opts.repair_cesu8 = args.repair_cesu8;
    opts.repair_mixed = args.repair_mixed;
    opts.keep_dkim_signed = args.keep_dkim_signed;
    opts.convert_attachments = args.convert_attachments;
    let report = match &args.report {
        Some(p) => Some(Mutex::new(BufWriter::new(
            open_report(p).map_err(|e| CliError::io(&p.display().to_string(), e))?,
        ))),
        None => None,
    };
    let shared = Arc::new(Shared {
        opts,
        max: args.max_message_size,
        on_failure: args.on_failure,
        max_sessions: usize::try_from(args.max_sessions).unwrap_or(usize::MAX),
        report,
        report_path: args.report.clone(),
    });
    let timeout = std::time::Duration::from_secs(args.timeout);
    // A panic in a session is caught at the end of its message and the
    // message let through (or deferred): the hook logs the panic's text,
    // then the session logs what it did with the message. Set once here:
    // swapping the process-wide hook per message would race between
    // sessions.
    std::panic::set_hook(Box::new(|info| note(&format!("internal error: {info}"))));
    let sessions = Arc::new(stop::Sessions::default());
    let drain = std::time::Duration::from_secs(args.drain);
    if let Some(addr) = args.listen.strip_prefix("inet:") {
        let listener = std::net::TcpListener::bind(addr)
            .map_err(|e| CliError::io(&format!("listen {}", args.listen), e))?;
        let wake = listener
            .local_addr()
            .map(stop::Wake::Tcp)
            .unwrap_or(stop::Wake::Nothing);
        let reload = Arc::clone(&shared);
        let stopping = stop::on_signal(signals, wake, Arc::clone(&sessions), move || {
            reload.reopen_report()
        })
        .map_err(signal_thread_error)?;
        note(&format!("listening on {}", args.listen));
        accept(listener.incoming(), &stopping, &sessions, &shared, timeout);
        drop(listener);
        sessions.drain(drain);
        Ok(exit::OK)
    } else if let Some(path) = args.listen.strip_prefix("unix:") {
        clear_stale_socket(path)?;
        let listener = std::os::unix::net::UnixListener::bind(path)
            .map_err(|e| CliError::io(&format!("listen {}", args.listen), e))?;
        let ours = stop::OurSocket::new(path);
        let reload = Arc::clone(&shared);
        let stopping = match stop::on_signal(
            signals,
            stop::Wake::Unix(path.into()),
            Arc::clone(&sessions),
            move || reload.reopen_report(),
        ) {
            Ok(s) => s,
            Err(e) => {
                drop(listener);
                ours.remove();
                return Err(signal_thread_error(e));
            }
        };
        note(&format!("listening on {}", args.listen));
        accept(listener.incoming(), &stopping, &sessions, &shared, timeout);
        // New sessions are refused from here on (the MTA applies its
        // milter_default_action to them); the socket file goes too, if it
        // is still ours.
        drop(listener);
        ours.remove();
        sessions.drain(drain);
        Ok(exit::OK)
    } else {
        Err(CliError::new(
            exit::USAGE,
            format!(
                "milter: --listen {:?}: give inet:HOST:PORT or unix:PATH",
                args.listen
            ),
        ))
    }
}

/// The thread that waits for SIGTERM, SIGINT and SIGHUP could not be
/// started: the milter does not start (exit 70), rather than run without
/// a way to stop it cleanly.
fn signal_thread_error(e: io::Error) -> CliError {
    CliError::new(
        exit::SOFTWARE,
        format!("milter: cannot start the thread that waits for signals: {e}"),
    )
}

/// A connection from the MTA: a TCP or a Unix stream.
trait Conn: io::Read + Write + Send + Sized + 'static {
    /// The protocol flags to ask for on this kind of connection.
    const WANTED: u32;
    /// A second handle for writing while the first one reads.
    fn writer(&self) -> io::Result<Self>;
    /// Socket options: the read and write timeouts (a peer that stops
    /// reading our replies held its session, its thread and its message
    /// for ever: only reads timed out), and for TCP no Nagle delay.
    fn prepare(&self, timeout: std::time::Duration);
}

impl Conn for std::net::TcpStream {
    const WANTED: u32 = protocol::PROTOCOL_TCP;
    fn writer(&self) -> io::Result<Self> {
        self.try_clone()
    }
    fn prepare(&self, timeout: std::time::Duration) {
        let _ = self.set_read_timeout(Some(timeout));
        let _ = self.set_write_timeout(Some(timeout));
        let _ = self.set_nodelay(true);
    }
}

impl Conn for std::os::unix::net::UnixStream {
    const WANTED: u32 = protocol::PROTOCOL_UNIX;
    fn writer(&self) -> io::Result<Self> {
        self.try_clone()
    }
    fn prepare(&self, timeout: std::time::Duration) {
        let _ = self.set_read_timeout(Some(timeout));
        let _ = self.set_write_timeout(Some(timeout));
    }
}

/// Takes connections until a stop signal, each session on its own thread
/// and counted in `sessions` until it ends.
fn accept<C: Conn>(
    incoming: impl Iterator<Item = io::Result<C>>,
    stopping: &std::sync::atomic::AtomicBool,
    sessions: &Arc<stop::Sessions>,
    shared: &Arc<Shared>,
    timeout: std::time::Duration,
) {
    let mut incoming = incoming;
    // A connection beyond `max_sessions` is not taken from the listening
    // socket's queue until a session ends: the memory held stays under
    // `max_sessions` messages of `--max-message-size`, and the MTA's own
    // timeouts decide how long it waits (then its milter_default_action).
    while sessions.wait_below(shared.max_sessions, stopping) {
        let Some(stream) = incoming.next() else { break };
        if stopping.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        stream.prepare(timeout);
        let Ok(w) = stream.writer() else { continue };
        let shared = Arc::clone(shared);
        let open = stop::Sessions::enter(sessions);
        // A thread the system will not give (out of memory or of threads,
        // a process limit) closes this connection, and the MTA applies its
        // milter_default_action to the session; the milter goes on.
        // `std::thread::spawn` panicked there, in the thread taking the
        // connections: the milter ended (exit 101), every open session
        // with it.
        let spawned = std::thread::Builder::new().spawn(move || {
            let _open = open;
            session(
                BufReader::new(stream),
                BufWriter::new(w),
                &shared,
                C::WANTED,
            );
        });
        if let Err(e) = spawned {
            note(&format!(
                "cannot start a thread for a new session ({e}): connection closed, \
                 the MTA applies its milter_default_action"
            ));
        }
    }
}

/// Removes what a milter that is gone left at `path`: only a socket that
/// nobody listens on. Anything else there (a file given by mistake, a
/// running milter) is refused, never deleted.
fn clear_stale_socket(path: &str) -> Result<(), CliError> {
    use std::os::unix::fs::FileTypeExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    if !meta.file_type().is_socket() {
        return Err(CliError::new(
            exit::USAGE,
            format!("milter: --listen unix:{path}: exists and is not a socket; not replacing it"),
        ));
    }
    if std::os::unix::net::UnixStream::connect(path).is_ok() {
        return Err(CliError::new(
            exit::USAGE,
            format!("milter: --listen unix:{path}: another process is listening there"),
        ));
    }
    std::fs::remove_file(path).map_err(|e| CliError::io(&format!("listen unix:{path}"), e))
}

fn note(line: &str) {
    let _ = writeln!(io::stderr().lock(), "mailcharset milter: {line}");
}

/// One message being received.
#[derive(Default)]
struct Message {
    queue_id: String,
    headers: Vec<(Vec<u8>, Vec<u8>)>,
    body: Vec<u8>,
    size: u64,
    /// Over the size limit: nothing more is kept.
    oversize: bool,
}

/// One SMTP session (one milter connection), until the MTA closes it.
/// `wanted`: the protocol flags (steps left out, steps not answered) to
/// ask for; the MTA grants those it offers.
fn session(mut r: impl io::Read, mut w: impl Write, shared: &Shared, wanted: u32) {
    let mut leadspc = false;
    let mut agreed = 0u32;
    // The actions (SMFIF_*) agreed: none until the negotiation.
    let mut actions = 0u32;
    let mut msg = Message::default();
    loop {
        let cmd = match protocol::read_command(&mut r) {
            Ok(Some(c)) => c,
            // A packet too large to read (or empty): the session ends and
            // the MTA applies its default (`milter_default_action`), as
            // below; said, as every message the milter lets go is (it
            // went without a word).
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                note(&format!(
                    "{}: {e}: session closed, the message not read (the MTA applies its \
                     milter_default_action)",
                    queue_id(&msg)
                ));
                return;
            }
            // Closed, timed out or cut short: the MTA applies its default.
            // Said when a message was being received (its header or body
            // begun): the MTA defers or lets it through unfiltered, and the
            // log had no word of it.
            end => {
                if msg.size > 0 {
                    let how = match end {
                        Ok(_) => "the MTA closed the connection".to_string(),
                        Err(e) => e.to_string(),
                    };
                    note(&format!(
                        "{}: session ended in the middle of a message ({how}, {} octets \
                         received): not filtered (the MTA applies its milter_default_action)",
                        queue_id(&msg),
                        msg.size
                    ));
                }
                return;
            }
        };
        let answer = protocol::needs_reply(&cmd, agreed);
        let reply = match cmd {
            Command::OptNeg {
                version,
                actions: offered,
                protocol,
            } => {
                leadspc = protocol & protocol::HDR_LEADSPC != 0;
                // Version 2 MTAs know no "no reply" flags.
                let wanted = if version >= 6 { wanted } else { 0 };
                agreed = (wanted | protocol::HDR_LEADSPC) & protocol;
                // Only what the edits need, and only of what is offered.
                actions = protocol::ACTIONS & offered;
                Some(Reply::OptNeg {
                    version: version.min(6),
                    actions,
                    protocol: agreed,
                })
            }
            Command::Macro(pairs) => {
                for (k, v) in pairs {
                    if k == b"i" || k == b"{i}" {
                        msg.queue_id = String::from_utf8_lossy(&v).into_owned();
                    }
                }
                None
            }
            Command::Header(name, value) => {
                msg.size += (name.len() + value.len() + 4) as u64;
                if msg.size > shared.max {
                    drop_content(&mut msg);
                } else if !msg.oversize {
                    msg.headers.push((name, value));
                }
                Some(Reply::Continue)
            }
            Command::EndOfHeader | Command::Other(_) => Some(Reply::Continue),
            Command::Body(chunk) => {
                add_body(&mut msg, &chunk, shared.max);
                Some(Reply::Continue)
            }
            Command::EndOfMessage(chunk) => {
                // The last body chunk may come with the end of the body
                // (libmilter passes it to xxfi_body first): the body's
                // tail, under the same size limit.
                add_body(&mut msg, &chunk, shared.max);
                // The queue id (macro `i`) goes with the message; the
                // next message's macros bring its own.
                let done = std::mem::take(&mut msg);
                let id = queue_id(&done);
                if let Err(e) = end_of_message(&mut w, done, leadspc, actions, shared) {
                    note(&format!(
                        "{id}: cannot send the replies to the end of the message ({e}): \
                         session closed (the MTA applies its milter_default_action)"
                    ));
                    return;
                }
                None
            }
            Command::Abort => {
                msg = Message::default();
                None
            }
            Command::Quit => return,
            Command::QuitNewConnection => {
                msg = Message::default();
                None
            }
        };
        if let Some(reply) = reply
            && answer
            && protocol::write_reply(&mut w, &reply)
                .and_then(|()| w.flush())
                .is_err()
        {
            return;
        }
    }
}

/// A body chunk: kept, or over the size limit and nothing more kept.
fn add_body(msg: &mut Message, chunk: &[u8], max: u64) {
    msg.size += chunk.len() as u64;
    if msg.size > max {
        drop_content(msg);
    } else if !msg.oversize {
        msg.body.extend_from_slice(chunk);
    }
}

fn drop_content(msg: &mut Message) {
    msg.oversize = true;
    msg.headers = Vec::new();
    msg.body = Vec::new();
}

/// The message as the MTA has it, and where each of its fields is.
struct Assembled {
    /// Each field `Name:value` (a space put back when the MTA took the
    /// leading one off), CRLF line ends, a blank line, the body.
    raw: Vec<u8>,
    /// Where each field the MTA sent is in `raw`, its final CRLF included,
    /// in the order sent.
    fields: Vec<std::ops::Range<usize>>,
}

impl Assembled {
    /// Where the header ends: the start of the blank line.
    fn header_end(&self) -> usize {
        self.fields.last().map_or(0, |f| f.end)
    }
}

fn assemble(msg: &Message, leadspc: bool) -> Assembled {
    let mut raw = Vec::with_capacity(msg.size as usize + 64);
    let mut fields = Vec::with_capacity(msg.headers.len());
    for (name, value) in &msg.headers {
        let start = raw.len();
        raw.extend_from_slice(name);
        raw.push(b':');
        if !leadspc && !value.is_empty() {
            raw.push(b' ');
        }
        push_crlf(&mut raw, value);
        raw.extend_from_slice(b"\r\n");
        fields.push(start..raw.len());
    }
    raw.extend_from_slice(b"\r\n");
    raw.extend_from_slice(&msg.body);
    Assembled { raw, fields }
}

/// `bytes` with bare LF line ends written as CRLF.
fn push_crlf(out: &mut Vec<u8>, bytes: &[u8]) {
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' && (i == 0 || bytes[i - 1] != b'\r') {
            out.push(b'\r');
        }
        out.push(b);
    }
}

/// A field value as the MTA wants it back: folds as LF, the leading space
/// left off unless `SMFIP_HDR_LEADSPC` was agreed.
fn milter_value(value: &[u8], leadspc: bool) -> Vec<u8> {
    let v = if leadspc {
        value
    } else {
        value.strip_prefix(b" ").unwrap_or(value)
    };
    let mut out = Vec::with_capacity(v.len());
    let mut i = 0;
    while i < v.len() {
        if v[i] == b'\r' && v.get(i + 1) == Some(&b'\n') {
            i += 1;
            continue;
        }
        out.push(v[i]);
        i += 1;
    }
    out
}

/// The changes that turn the message the MTA has into `new`, as edits of
/// the fields the MTA sent: each changed field rewritten whole by its
/// name and occurrence, fields added at the end (normalize never removes
/// a field or moves one), and the new body when it differs.
#[derive(Debug, Default, PartialEq, Eq)]
struct Changes {
    /// (name, occurrence of that name from 1, new value)
    changed: Vec<(Vec<u8>, u32, Vec<u8>)>,
    added: Vec<(Vec<u8>, Vec<u8>)>,
    body: Option<Vec<u8>>,
}

impl Changes {
    /// The actions (SMFIF_*) these changes need.
    fn actions(&self) -> u32 {
        let mut a = 0;
        if !self.changed.is_empty() {
            a |= protocol::CHANGE_HEADERS;
        }
        if !self.added.is_empty() {
            a |= protocol::ADD_HEADERS;
        }
        if self.body.is_some() {
            a |= protocol::CHANGE_BODY;
        }
        a
    }
}

/// `actions` (SMFIF_*) by the replies they allow, for the log.
fn action_names(actions: u32) -> String {
    [
        (protocol::CHANGE_HEADERS, "chgheader (SMFIF_CHGHDRS)"),
        (protocol::ADD_HEADERS, "addheader (SMFIF_ADDHDRS)"),
        (protocol::CHANGE_BODY, "replbody (SMFIF_CHGBODY)"),
    ]
    .iter()
    .filter(|(flag, _)| actions & flag != 0)
    .map(|(_, name)| *name)
    .collect::<Vec<_>>()
    .join(", ")
}

/// [`Changes`] from the message the MTA has (`old`, assembled from the
/// fields `sent`) to `new`, normalized from it; or why they cannot be
/// made.
///
/// The MTA's fields are the header: what normalize did is mapped back onto
/// them, never the other way. The parser here may read a field the MTA
/// sent as two (a bare CR inside a value ends a line for it): such a
/// field's new text is that of all its pieces. Where the parser does not
/// read the MTA's fields as the header at all (its header ends before the
/// MTA's does, at a line it does not take for a field), normalizing took
/// header fields for body text, and no edit of the MTA's message says what
/// it did: the message is left as it is. Never an edit that would copy
/// header fields into the body.
fn changes(sent: &[(Vec<u8>, Vec<u8>)], old: &Assembled, new: &[u8]) -> Result<Changes, String> {
    let (o, n): (HeaderBlock<'_>, HeaderBlock<'_>) =
        (parse_header_block(&old.raw), parse_header_block(new));
    let field_name = |j: usize| {
        let name = sent.get(j).map(|(n, _)| String::from_utf8_lossy(n));
        escape_controls(name.as_deref().unwrap_or("-")).into_owned()
    };
    if o.header_end != old.header_end() || o.separator.is_none() {
        let j = old
            .fields
            .iter()
            .position(|f| f.end > o.header_end)
            .unwrap_or(0);
        let place = match old.fields.get(j) {
            Some(f) if f.start < o.header_end => "inside",
            _ => "before",
        };
        return Err(format!(
            "the header would end here {place} field {} ({}), what follows \
             taken for body text",
            j + 1,
            field_name(j)
        ));
    }
    // Which of the MTA's fields each field read here is part of.
    let mut owner = Vec::with_capacity(o.fields.len());
    let mut j = 0;
    for f in &o.fields {
        let end = f.offset + f.raw.len();
        while old.fields.get(j).is_some_and(|m| m.end <= f.offset) {
            j += 1;
        }
        match old.fields.get(j) {
            Some(m) if m.start <= f.offset && end <= m.end => owner.push(j),
            _ => {
                return Err(format!(
                    "field {} ({}) runs on into the next one here",
                    j + 1,
                    field_name(j)
                ));
            }
        }
    }
    // normalize rewrites fields in place and adds some at the end: the
    // first fields of the new header are the old ones, in order.
    let lined_up = n.separator.is_some()
        && n.fields.len() >= o.fields.len()
        && o.fields
            .iter()
            .zip(&n.fields)
            .all(|(a, b)| a.name == b.name);
    if !lined_up {
        return Err("the normalized header does not line up with the old one".to_string());
    }
    let mut out = Changes::default();
    // Each sent field's occurrence of its name, counted once, when the
    // first field changed needs it.
    let mut occurrence: Option<Vec<u32>> = None;
    let mut i = 0;
    while i < o.fields.len() {
        let j = owner[i];
        let last = i + owner[i..].iter().take_while(|&&k| k == j).count() - 1;
        let new_text = match (n.fields.get(i), n.fields.get(last)) {
            (Some(a), Some(b)) => new.get(a.offset..b.offset + b.raw.len()),
            _ => None,
        }
        .unwrap_or_default();
        let old_text = old
            .fields
            .get(j)
            .and_then(|m| old.raw.get(m.clone()))
            .unwrap_or_default();
        if new_text != old_text {
            let name = sent.get(j).map(|(n, _)| n.as_slice()).unwrap_or_default();
            let value = new_text
                .strip_prefix(name)
                .and_then(|v| v.strip_prefix(b":"))
                .and_then(|v| v.strip_suffix(b"\r\n"))
                .filter(|_| !name.is_empty());
            let Some(value) = value else {
                return Err(format!(
                    "field {} ({}) is no longer a field of that name",
                    j + 1,
                    field_name(j)
                ));
            };
            let occurrence = occurrence
                .get_or_insert_with(|| occurrences(sent))
                .get(j)
                .copied()
                .unwrap_or_default();
            out.changed
                .push((name.to_vec(), occurrence, value.to_vec()));
        }
        i = last + 1;
    }
    for nf in n.fields.iter().skip(o.fields.len()) {
        if !nf.has_name() {
            return Err("normalize added a line that is not a field".to_string());
        }
        out.added.push((nf.name.to_vec(), nf.value.to_vec()));
    }
    let (ob, nb) = (
        old.raw.get(o.body_offset..).unwrap_or_default(),
        new.get(n.body_offset..).unwrap_or_default(),
    );
    if ob != nb {
        out.body = Some(nb.to_vec());
    }
    Ok(out)
}

/// For each field of `sent`, which occurrence of its name it is, from 1,
/// names compared without regard to ASCII case (as the MTA finds the field
/// a `chgheader` names): one pass, a count per name. (Counting the earlier
/// fields again for each changed one took time growing with the square of
/// the fields: 40,000 changed fields, 2.7 s.)
fn occurrences(sent: &[(Vec<u8>, Vec<u8>)]) -> Vec<u32> {
    let mut seen: HashMap<Vec<u8>, u32> = HashMap::new();
    sent.iter()
        .map(|(name, _)| {
            let n = seen.entry(name.to_ascii_lowercase()).or_insert(0);
            *n = n.saturating_add(1);
            *n
        })
        .collect()
}

/// Why a message goes on without its changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Failure {
    /// Something about the message itself (its size, text `--on-error
    /// fail` refuses): the same on every retry, so it is never deferred,
    /// whatever `--on-failure` says; a deferred message would come back
    /// with it until the sender's queue gave up and bounced it.
    Permanent,
    /// The milter's own failure (a panic caught), which a retry may not
    /// meet (after a fix, a restart): `--on-failure` decides.
    Internal,
}

/// Ends the message without changes: accepted as it is, or deferred for
/// an internal failure with `--on-failure tempfail`; logged with `why`.
fn pass_unchanged(
    w: &mut dyn Write,
    id: &str,
    why: &str,
    failure: Failure,
    shared: &Shared,
) -> io::Result<()> {
    let (reply, what) = match (failure, shared.on_failure) {
        (Failure::Internal, OnFailureArg::Tempfail) => (Reply::TempFail, "deferred (tempfail)"),
        (Failure::Permanent, OnFailureArg::Tempfail) => (
            Reply::Accept,
            "let through unchanged (not deferred: a retry would meet the same)",
        ),
        (_, OnFailureArg::Accept) => (Reply::Accept, "let through unchanged"),
    };
    note(&format!("{id}: {why}: {what}"));
    protocol::write_reply(w, &reply)?;
    w.flush()
}

/// The message's queue id for the log (macro `i`), or `-` before the MTA
/// sent it.
fn queue_id(msg: &Message) -> String {
    if msg.queue_id.is_empty() {
        "-".to_string()
    } else {
        escape_controls(&msg.queue_id).into_owned()
    }
}

fn end_of_message(
    w: &mut impl Write,
    msg: Message,
    leadspc: bool,
    actions: u32,
    shared: &Shared,
) -> io::Result<()> {
    let id = queue_id(&msg);
    if msg.oversize {
        return pass_unchanged(
            w,
            &id,
            &format!(
                "{} octets, over --max-message-size ({})",
                msg.size, shared.max
            ),
            Failure::Permanent,
            shared,
        );
    }
    let old = assemble(&msg, leadspc);
    // What `filter` and `normalize` keep byte for byte, the milter leaves
    // as the MTA has it: a message without header fields (its first line
    // is the empty one), or whose first field's name is no header name.
    if !mailcharset::mailbox::looks_like_message(&old.raw) {
        return pass_unchanged(
            w,
            &id,
            "does not start like a message (no header field first), as filter keeps it",
            Failure::Permanent,
            shared,
        );
    }
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        normalize::normalize(&old.raw, &shared.opts)
    }));
    let n = match result {
        Ok(Ok(n)) => n,
        // `--on-error fail`: the same text fails on every retry.
        Ok(Err(e)) => {
            return pass_unchanged(
                w,
                &id,
                &format!("not normalized: {e}"),
                Failure::Permanent,
                shared,
            );
        }
        Err(_) => {
            return pass_unchanged(
                w,
                &id,
                "internal error (panic caught)",
                Failure::Internal,
                shared,
            );
        }
    };
    let c = if n.report.changed {
        match changes(&msg.headers, &old, &n.bytes) {
            Ok(c) => c,
            Err(why) => {
                return pass_unchanged(
                    w,
                    &id,
                    &format!("its changes cannot be made as edits of the MTA's fields: {why}"),
                    Failure::Permanent,
                    shared,
                );
            }
        }
    } else {
        Changes::default()
    };
    let missing = c.actions() & !actions;
    if missing != 0 {
        return pass_unchanged(
            w,
            &id,
            &format!(
                "its changes need {}, which the MTA did not allow \
                 (all of them are made or none)",
                action_names(missing)
            ),
            Failure::Permanent,
            shared,
        );
    }
    for (name, index, value) in &c.changed {
        protocol::write_reply(
            w,
            &Reply::ChangeHeader {
                index: *index,
                name,
                value: &milter_value(value, leadspc),
            },
        )?;
    }
    for (name, value) in &c.added {
        protocol::write_reply(
            w,
            &Reply::AddHeader {
                name,
                value: &milter_value(value, leadspc),
            },
        )?;
    }
    if let Some(body) = &c.body {
        for chunk in body.chunks(protocol::CHUNK) {
            protocol::write_reply(w, &Reply::ReplaceBody(chunk))?;
        }
    }
    protocol::write_reply(w, &Reply::Accept)?;
    w.flush()?;
    log(&id, &n.report, &c, shared);
    Ok(())
}

fn log(id: &str, report: &NormalizeReport, c: &Changes, shared: &Shared) {
    let worst = report
        .parts
        .iter()
        .map(|p| p.verdict)
        .max()
        .unwrap_or(mailcharset::Verdict::Ok);
    let what = if report.dkim_signed && report.count(Action::Kept) > 0 {
        format!(
            "unchanged, DKIM-signed ({} kept as they were)",
            report.count(Action::Kept)
        )
    } else if c.changed.is_empty() && c.added.is_empty() && c.body.is_none() {
        "unchanged".to_string()
    } else {
        format!(
            "{} field(s) changed, {} added, body {}",
            c.changed.len(),
            c.added.len(),
            if c.body.is_some() { "replaced" } else { "kept" }
        )
    };
    note(&format!(
        "{id} <{}>: {what}; worst verdict {worst}",
        escape_controls(report.message_id.as_deref().unwrap_or("-"))
    ));
    if let Some(r) = &shared.report
        && let Ok(mut r) = r.lock()
    {
        #[derive(serde::Serialize)]
        struct Line<'a> {
            queue_id: &'a str,
            #[serde(flatten)]
            report: &'a NormalizeReport,
        }
        if let Ok(line) = serde_json::to_string(&Line {
            queue_id: id,
            report,
        }) {
            let _ = writeln!(r, "{line}").and_then(|()| r.flush());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(max: u64) -> Shared {
        Shared {
            opts: Options::default(),
            max,
            on_failure: OnFailureArg::Accept,
            max_sessions: 400,
            report: None,
            report_path: None,
        }
    }

    fn packet(cmd: u8, data: &[u8]) -> Vec<u8> {
        let mut p = ((data.len() + 1) as u32).to_be_bytes().to_vec();
        p.push(cmd);
        p.extend_from_slice(data);
        p
    }

    /// What an MTA sends for `headers` and `body`, leading spaces kept.
    fn mta(headers: &[(&[u8], &[u8])], body: &[u8]) -> Vec<u8> {
        mta_offering(0x1ff, headers, body)
    }

    /// [`mta`] from an MTA that offers only the actions `actions`.
    fn mta_offering(actions: u32, headers: &[(&[u8], &[u8])], body: &[u8]) -> Vec<u8> {
        mta_sending(actions, headers, body, b"")
    }

    /// [`mta_offering`], with `tail`, the last body chunk, sent in the end
    /// of the body (`E`) as Sendmail did, after `body` in a `B`.
    fn mta_sending(actions: u32, headers: &[(&[u8], &[u8])], body: &[u8], tail: &[u8]) -> Vec<u8> {
        let mut neg = 6u32.to_be_bytes().to_vec();
        neg.extend(actions.to_be_bytes());
        neg.extend(0x1f_ffffu32.to_be_bytes());
        let mut wire = packet(b'O', &neg);
        wire.extend(packet(b'D', b"Ei\0QUEUE1\0"));
        for (n, v) in headers {
            wire.extend(packet(b'L', &[*n, b"\0", *v, b"\0"].concat()));
        }
        wire.extend(packet(b'N', b""));
        wire.extend(packet(b'B', body));
        wire.extend(packet(b'E', tail));
        wire.extend(packet(b'Q', b""));
        wire
    }

    fn replies(out: &[u8]) -> Vec<(u8, Vec<u8>)> {
        let mut r = out;
        let mut v = Vec::new();
        while r.len() >= 5 {
            let len = u32::from_be_bytes([r[0], r[1], r[2], r[3]]) as usize;
            v.push((r[4], r[5..4 + len].to_vec()));
            r = &r[4 + len..];
        }
        v
    }

    #[test]
    fn a_legacy_message_gets_its_changes_and_nothing_else() {
        let wire = mta(
            &[
                (b"From", b" a@example.com"),
                (b"Subject", b" =?koi8-r?B?8NLJ18XU?="),
                (b"Content-Type", b" text/plain; charset=koi8-r"),
            ],
            b"\xf0\xd2\xc9\xd7\xc5\xd4\r\n",
        );
        let mut out = Vec::new();
        session(
            &wire[..],
            &mut out,
            &shared(1 << 20),
            protocol::PROTOCOL_TCP,
        );
        let r = replies(&out);
        let cmds: Vec<u8> = r.iter().map(|x| x.0).collect();
        // optneg, 3 x continue (headers), continue (eoh), continue (body),
        // then the changes, then accept.
        assert_eq!(&cmds[..6], b"Occccc");
        assert_eq!(*cmds.last().unwrap(), b'a');
        let changed: Vec<&(u8, Vec<u8>)> = r.iter().filter(|x| x.0 == b'm').collect();
        assert_eq!(changed.len(), 2, "Subject and Content-Type: {r:?}");
        assert!(changed[0].1.starts_with(&[0, 0, 0, 1]));
        assert!(changed[0].1[4..].starts_with(b"Subject\0 =?UTF-8?"));
        assert!(
            r.iter().any(|x| x.0 == b'h'),
            "Content-Transfer-Encoding or MIME-Version added"
        );
        // The body sent back is the normalized message's body, and reads
        // as the original text.
        let body: Vec<u8> = r
            .iter()
            .filter(|x| x.0 == b'b')
            .flat_map(|x| x.1.clone())
            .collect();
        let raw = b"From: a@example.com\r\nSubject: =?koi8-r?B?8NLJ18XU?=\r\n\
                    Content-Type: text/plain; charset=koi8-r\r\n\r\n\xf0\xd2\xc9\xd7\xc5\xd4\r\n";
        let n = normalize::normalize(raw, &Options::default()).unwrap();
        let nb = &n.bytes[parse_header_block(&n.bytes).body_offset..];
        assert_eq!(body, nb);
        let m = mailcharset::message::Message::parse(&n.bytes);
        let (decoded, _) = m.parts()[0].decoded_body(&m);
        assert_eq!(String::from_utf8(decoded.to_vec()).unwrap(), "Привет\r\n");
    }

    /// A message that needs a changed field, added fields and a new body,
    /// through an MTA that offers `actions`: the actions agreed in the
    /// negotiation and the replies at the end of the message.
    fn legacy_message_offering(actions: u32) -> (u32, Vec<u8>) {
        let wire = mta_offering(
            actions,
            &[
                (b"From", b" a@example.com"),
                (b"Subject", b" =?iso-8859-1?q?caf=E9?="),
                (b"Content-Type", b" text/plain; charset=iso-8859-1"),
            ],
            b"caf\xe9\r\n",
        );
        let mut out = Vec::new();
        session(
            &wire[..],
            &mut out,
            &shared(1 << 20),
            protocol::PROTOCOL_TCP,
        );
        let r = replies(&out);
        assert_eq!(r[0].0, b'O');
        let agreed = u32::from_be_bytes([r[0].1[4], r[0].1[5], r[0].1[6], r[0].1[7]]);
        let end: Vec<u8> = r[1..].iter().map(|x| x.0).filter(|&c| c != b'c').collect();
        (agreed, end)
    }

    /// Only actions the MTA offered and the milter agreed are used. An
    /// MTA that enforces the negotiation (libmilter, Postfix) takes any
    /// other as a protocol error, possibly after applying part of the
    /// edits (a body no longer what its Content-Type says); so a message
    /// whose edits are not all allowed goes on unchanged, never with a
    /// part of them.
    #[test]
    fn only_negotiated_actions_are_sent() {
        // chgheader 0x10, addheader 0x01, replbody 0x02.
        for offered in [0x1ff, 0x13] {
            let (agreed, end) = legacy_message_offering(offered);
            assert_eq!(agreed, 0x13, "what the milter needs, no more");
            assert_eq!(end, b"mmhhba", "offered {offered:#x}");
        }
        for offered in [0x0, 0x1, 0x2, 0x3, 0x10, 0x11, 0x12, 0x1ec] {
            let (agreed, end) = legacy_message_offering(offered);
            assert_eq!(agreed, offered & 0x13, "offered {offered:#x}");
            assert_eq!(end, b"a", "unchanged, offered {offered:#x}");
        }
    }

    /// A message that needs only chgheader gets it from an MTA that
    /// allows only that.
    #[test]
    fn an_edit_within_the_negotiated_actions_is_made() {
        let wire = mta_offering(
            0x10,
            &[(b"Subject", b" =?iso-8859-1?q?caf=E9?=")],
            b"plain\r\n",
        );
        let mut out = Vec::new();
        session(
            &wire[..],
            &mut out,
            &shared(1 << 20),
            protocol::PROTOCOL_TCP,
        );
        let end: Vec<u8> = replies(&out)[1..]
            .iter()
            .map(|x| x.0)
            .filter(|&c| c != b'c')
            .collect();
        assert_eq!(end, b"ma");
    }

    /// The message an MTA delivers after applying `replies` to `headers`
    /// and `body` as it sent them (values with their leading space, as
    /// [`mta`] sends them and SMFIP_HDR_LEADSPC is agreed): chgheader by
    /// name and occurrence, addheader at the end, replbody; folds (LF)
    /// written as CRLF.
    fn delivered(headers: &[(&[u8], &[u8])], body: &[u8], replies: &[(u8, Vec<u8>)]) -> Vec<u8> {
        let mut fields: Vec<(Vec<u8>, Vec<u8>)> = headers
            .iter()
            .map(|(n, v)| (n.to_vec(), v.to_vec()))
            .collect();
        let mut new_body: Option<Vec<u8>> = None;
        for (cmd, data) in replies {
            let strings = |d: &[u8]| -> (Vec<u8>, Vec<u8>) {
                let mut it = d.splitn(3, |&b| b == 0);
                let n = it.next().unwrap_or_default().to_vec();
                let v = it.next().unwrap_or_default().to_vec();
                (n, v)
            };
            match cmd {
                b'm' => {
                    let index = u32::from_be_bytes([data[0], data[1], data[2], data[3]]);
                    let (name, value) = strings(&data[4..]);
                    let field = fields
                        .iter_mut()
                        .filter(|f| f.0.eq_ignore_ascii_case(&name))
                        .nth(index as usize - 1)
                        .expect("chgheader names a field the MTA has");
                    field.1 = value;
                }
                b'h' => fields.push(strings(data)),
                b'b' => new_body
                    .get_or_insert_with(Vec::new)
                    .extend_from_slice(data),
                _ => {}
            }
        }
        let mut out = Vec::new();
        for (n, v) in &fields {
            out.extend_from_slice(n);
            out.push(b':');
            push_crlf(&mut out, v);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(new_body.as_deref().unwrap_or(body));
        out
    }

    /// Header fields as an MTA sends them: (name, value).
    type Fields<'a> = &'a [(&'a [u8], &'a [u8])];

    /// The milter's replies to `headers` and `body`.
    fn milter_replies(headers: &[(&[u8], &[u8])], body: &[u8]) -> Vec<(u8, Vec<u8>)> {
        let mut out = Vec::new();
        session(
            &mta(headers, body)[..],
            &mut out,
            &shared(1 << 20),
            protocol::PROTOCOL_TCP,
        );
        replies(&out)
    }

    /// What `mailcharset filter` writes for the message the MTA has.
    fn filtered(headers: &[(&[u8], &[u8])], body: &[u8]) -> Vec<u8> {
        let raw = delivered(headers, body, &[]);
        super::super::filter::filter_bytes(&raw, &Options::default())
            .0
            .into_owned()
    }

    /// A bare CR inside a field value is part of the value the MTA gave:
    /// the parser ends a line there, and the milter sent back only the
    /// first piece, so "more text" was lost. Now the MTA's field is
    /// rewritten whole, and the message delivered is the one `filter`
    /// writes.
    #[test]
    fn a_bare_cr_in_a_field_value_is_kept() {
        let headers: &[(&[u8], &[u8])] = &[
            (b"From", b" a@b"),
            (b"Subject", b" caf\xe9\rmore text"),
            (b"To", b" c@d"),
        ];
        let r = milter_replies(headers, b"hello\r\n");
        let m: Vec<_> = r.iter().filter(|x| x.0 == b'm').collect();
        assert_eq!(m.len(), 1, "{r:?}");
        assert_eq!(&m[0].1[4..], b"Subject\0 =?UTF-8?B?Y2Fmw6k=?=\rmore text\0");
        assert_eq!(
            delivered(headers, b"hello\r\n", &r),
            filtered(headers, b"hello\r\n")
        );
    }

    /// The message delivered through the milter is the one `filter`
    /// writes, byte for byte, wherever the parser reads the MTA's fields
    /// as the MTA does (folds, repeated names, a bare CR, a nameless
    /// line among the fields).
    #[test]
    fn the_milter_delivers_what_filter_writes() {
        let cases: &[(Fields<'_>, &[u8])] = &[
            (
                &[
                    (b"Received", b" from a"),
                    (b"Subject", b" =?koi8-r?B?8NLJ18XU?="),
                    (b"Received", b" from caf\xe9"),
                    (b"Content-Type", b" text/plain; charset=koi8-r"),
                ],
                b"\xf0\xd2\xc9\xd7\xc5\xd4\r\n",
            ),
            (
                &[
                    (b"Subject", b" caf\xe9\n\tfolded caf\xe9"),
                    (b"X-Note", b" caf\xe9\rmore caf\xe9"),
                    (b"MIME-Version", b" 1.0"),
                    (b"Content-Type", b" text/plain;\n charset=iso-8859-1"),
                ],
                b"Voil\xe0\r\n",
            ),
            (
                &[
                    (b"From", b" a@b"),
                    (b"X-Caf\xe9", b" caf\xe9"),
                    (b"Subject", b" =?koi8-r?b?8NLJ?="),
                ],
                b"plain\r\n",
            ),
        ];
        for (headers, body) in cases {
            let r = milter_replies(headers, body);
            assert!(
                r.iter().any(|x| matches!(x.0, b'm' | b'h' | b'b')),
                "the case has changes: {r:?}"
            );
            assert_eq!(
                String::from_utf8_lossy(&delivered(headers, body, &r)),
                String::from_utf8_lossy(&filtered(headers, body)),
            );
        }
    }

    /// A text whose decoded lines hold its multipart's delimiter (base64
    /// Latin-1 here) is sent back in base64: in quoted-printable, the body
    /// the milter replaced ended the multipart at that line and the PDF
    /// after it was delivered in the epilogue.
    #[test]
    fn a_delimiter_line_in_a_converted_text_keeps_the_parts() {
        let headers: Fields<'_> = &[
            (b"From", b" a@b"),
            (b"MIME-Version", b" 1.0"),
            (b"Content-Type", b" multipart/mixed; boundary=\"b1\""),
        ];
        // "Gr\xfc\xdfe aus K\xf6ln, hier der Quelltext:\r\n--b1--\r\nEnde\r\n" in base64.
        let body = b"--b1\r\nContent-Type: text/plain; charset=iso-8859-1\r\n\
            Content-Transfer-Encoding: base64\r\n\r\nR3L832UgYXVzIEv2bG4sIGhpZXIgZGVyIFF1ZWxsdGV4dDoNCi0tYjEtLQ0KRW5kZQ0K\r\n\
            --b1\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n\r\n\
            JVBERi0xLjQK\r\n--b1--\r\n";
        let r = milter_replies(headers, body);
        assert!(r.iter().any(|x| x.0 == b'b'), "the body is replaced: {r:?}");
        let out = delivered(headers, body, &r);
        assert_eq!(out, filtered(headers, body));
        let m = mailcharset::message::Message::parse(&out);
        let leaves: Vec<Vec<u8>> = m
            .parts()
            .into_iter()
            .filter(|p| matches!(p.kind, mailcharset::message::PartKind::Leaf))
            .map(|p| p.decoded_body(&m).0.into_owned())
            .collect();
        assert_eq!(
            leaves,
            [
                &b"Gr\xc3\xbc\xc3\x9fe aus K\xc3\xb6ln, hier der Quelltext:\r\n--b1--\r\nEnde\r\n"
                    [..],
                b"%PDF-1.4\n"
            ],
            "{}",
            String::from_utf8_lossy(&out)
        );
    }

    /// A header field the MTA gave as a header stays a header, whatever
    /// the parser here makes of it. With an 8-bit octet in the name of
    /// the first field, the parser took the whole header for body text:
    /// the milter added a second Content-Type and replaced the body with
    /// the header followed by the body, so the message was delivered with
    /// its header twice. The same where a value ends with a bare CR (the
    /// parser reads an empty line after it) or a line in a value does not
    /// read as a field.
    #[test]
    fn a_header_field_the_mta_gave_stays_a_header() {
        let cases: &[(Fields<'_>, &[u8])] = &[
            (
                &[(b"From", b" a@b"), (b"X-Caf\xe9", b" caf\xe9")],
                b"hi\r\n",
            ),
            (
                &[
                    (b"X-Caf\xe9", b" 1"),
                    (b"From", b" a@b"),
                    (b"Subject", b" =?koi8-r?b?8NLJ?="),
                    (b"Content-Type", b" text/plain; charset=koi8-r"),
                ],
                b"\xf0\xd2\xc9\r\n",
            ),
            (
                &[
                    (b"From", b" a@b"),
                    (b"Subject", b" caf\xe9\r"),
                    (b"Content-Type", b" text/plain; charset=koi8-r"),
                ],
                b"\xf0\xd2\xc9\r\n",
            ),
            (
                &[
                    (b"Subject", b" caf\xe9\rand after"),
                    (b"X-Note", b" x\ry\rcaf\xe9"),
                    (b"Content-Type", b" text/plain; charset=iso-8859-1"),
                ],
                b"Voil\xe0\r\n",
            ),
        ];
        use base64::Engine;
        for (headers, body) in cases {
            let r = milter_replies(headers, body);
            let d = delivered(headers, body, &r);
            // A new body, as sent and as decoded (a field moved into it
            // may be written in base64 or quoted-printable).
            let new_body: Vec<u8> = r
                .iter()
                .filter(|x| x.0 == b'b')
                .flat_map(|x| x.1.clone())
                .collect();
            let flat: Vec<u8> = new_body
                .iter()
                .copied()
                .filter(|b| !b.is_ascii_whitespace())
                .collect();
            let decoded = [
                base64::engine::general_purpose::STANDARD
                    .decode(&flat)
                    .unwrap_or_default(),
                quoted_printable::decode(&new_body, quoted_printable::ParseMode::Robust)
                    .unwrap_or_default(),
            ];
            for (name, _) in headers.iter() {
                let field = [*name, b":"].concat();
                let times = |m: &[u8]| m.windows(field.len()).filter(|w| *w == field).count();
                let sent = headers.iter().filter(|(n, _)| n == name).count();
                assert_eq!(
                    times(&d),
                    sent,
                    "{} once as the MTA gave it: {r:?}\n{}",
                    String::from_utf8_lossy(name),
                    String::from_utf8_lossy(&d)
                );
                // Converted, the name's 8-bit octets are no longer
                // themselves: looked for by its ASCII start.
                let ascii: Vec<u8> = name.iter().copied().take_while(u8::is_ascii).collect();
                for text in &decoded {
                    assert!(
                        !text.windows(ascii.len()).any(|w| w == ascii),
                        "{} in the new body: {}",
                        String::from_utf8_lossy(name),
                        String::from_utf8_lossy(text)
                    );
                }
            }
        }
    }

    /// Input whose first line is not a header field (a text file, binary
    /// junk, no line end at all) reaches the milter as a body: the MTA
    /// sends its own fields (here a Received field), or none. Either way
    /// the milter delivers what `filter` writes for the message the MTA
    /// has; `filter` keeps such input byte for byte, as `normalize` does.
    #[test]
    fn input_without_a_header_is_delivered_as_filter_writes_it() {
        let bodies: [&[u8]; 4] = [
            b"hello world\r\nsecond line\r\n",
            b"\x00\x01binary\xff",
            b"// Not an RFC-822 Document\r\n",
            b"caf\xe9 au lait\r\n",
        ];
        let received: Fields<'_> = &[(b"Received", b" from x by y; Mon, 1 Jan 2001")];
        for body in bodies {
            for headers in [received, &[]] {
                let r = milter_replies(headers, body);
                assert_eq!(
                    String::from_utf8_lossy(&delivered(headers, body, &r)),
                    String::from_utf8_lossy(&filtered(headers, body)),
                    "{headers:?} {body:?}: {r:?}"
                );
            }
        }
    }

    /// The end of the body (`E`) may carry the body's last chunk
    /// (libmilter's st_bodyend passes it to xxfi_body before xxfi_eom;
    /// Sendmail sent the tail of every body so). It was dropped: the
    /// replbody lacked the tail and the MTA delivered a truncated body.
    /// Now it is the end of the body: the replies are those for the whole
    /// body sent in `B`, and what is delivered is what `filter` writes.
    #[test]
    fn the_last_body_chunk_sent_with_end_of_body_is_kept() {
        let headers: Fields<'_> = &[
            (b"Subject", b" x"),
            (b"Content-Type", b" text/plain; charset=iso-8859-1"),
        ];
        let (body, tail) = (
            &b"caf\xe9 first line\r\n"[..],
            &b"the LAST line, caf\xe9, sent with end-of-body\r\n"[..],
        );
        let whole = [body, tail].concat();
        let run = |wire: &[u8]| {
            let mut out = Vec::new();
            session(wire, &mut out, &shared(1 << 20), protocol::PROTOCOL_TCP);
            replies(&out)
        };
        let split = run(&mta_sending(0x1ff, headers, body, tail));
        assert_eq!(split, run(&mta(headers, &whole)));
        assert!(split.iter().any(|x| x.0 == b'b'), "{split:?}");
        assert_eq!(
            String::from_utf8_lossy(&delivered(headers, &whole, &split)),
            String::from_utf8_lossy(&filtered(headers, &whole)),
        );
        // The whole body in `E`, none in `B`.
        assert_eq!(run(&mta_sending(0x1ff, headers, b"", &whole)), split);
    }

    /// The chunk in `E` counts toward `--max-message-size` as one in `B`
    /// does: a tail that takes the message over the limit lets it through
    /// unchanged.
    #[test]
    fn the_last_body_chunk_counts_toward_the_size_limit() {
        let headers: Fields<'_> = &[(b"Content-Type", b" text/plain; charset=koi8-r")];
        let mut out = Vec::new();
        let wire = mta_sending(0x1ff, headers, &[0xf0; 600], &[0xf0; 600]);
        session(&wire[..], &mut out, &shared(1000), protocol::PROTOCOL_TCP);
        let cmds: Vec<u8> = replies(&out).iter().map(|x| x.0).collect();
        assert_eq!(cmds, b"Occca", "let through unchanged");
        // Under the limit, the same message is converted.
        let mut out = Vec::new();
        session(&wire[..], &mut out, &shared(2000), protocol::PROTOCOL_TCP);
        assert!(replies(&out).iter().any(|x| x.0 == b'b'));
    }

    #[test]
    fn a_clean_message_is_accepted_untouched() {
        let wire = mta(
            &[(b"From", b" a@example.com"), (b"Subject", b" hello")],
            b"plain text\r\n",
        );
        let mut out = Vec::new();
        session(
            &wire[..],
            &mut out,
            &shared(1 << 20),
            protocol::PROTOCOL_TCP,
        );
        let cmds: Vec<u8> = replies(&out).iter().map(|x| x.0).collect();
        assert_eq!(cmds, b"Occcca");
    }

    #[test]
    fn a_message_over_the_limit_is_let_through_unchanged() {
        let wire = mta(
            &[(b"Content-Type", b" text/plain; charset=koi8-r")],
            &[0xf0; 4000],
        );
        let mut out = Vec::new();
        session(&wire[..], &mut out, &shared(1000), protocol::PROTOCOL_TCP);
        let cmds: Vec<u8> = replies(&out).iter().map(|x| x.0).collect();
        assert_eq!(cmds, b"Occca");
    }

    /// `--on-failure tempfail` is for what may pass on a retry. A message
    /// over the size limit is over it on every retry: deferring it only
    /// turned into a bounce when the sender's queue gave up, days later.
    #[test]
    fn tempfail_does_not_defer_a_message_over_the_limit() {
        let wire = mta(
            &[(b"Content-Type", b" text/plain; charset=koi8-r")],
            &[0xf0; 4000],
        );
        let mut s = shared(1000);
        s.on_failure = OnFailureArg::Tempfail;
        let mut out = Vec::new();
        session(&wire[..], &mut out, &s, protocol::PROTOCOL_TCP);
        let cmds: Vec<u8> = replies(&out).iter().map(|x| x.0).collect();
        assert_eq!(cmds, b"Occca", "accepted unchanged, not deferred");
    }

    /// Nor is damaged text under `--on-error fail`: the same text fails
    /// again on every retry. The message goes on unchanged.
    #[test]
    fn tempfail_does_not_defer_text_on_error_fail_refuses() {
        let wire = mta(
            &[
                (b"Subject", b" x"),
                (b"Content-Type", b" text/plain; charset=utf-8"),
            ],
            b"caf\xe9\r\n",
        );
        let mut s = shared(1 << 20);
        s.on_failure = OnFailureArg::Tempfail;
        s.opts.on_error = normalize::OnError::Fail;
        let mut out = Vec::new();
        session(&wire[..], &mut out, &s, protocol::PROTOCOL_TCP);
        let cmds: Vec<u8> = replies(&out).iter().map(|x| x.0).collect();
        assert_eq!(cmds, b"Occcca", "accepted unchanged, not deferred");
        // The same message is changed without --on-error fail: the test
        // is of the refusal, not of a message with nothing to do.
        let mut out = Vec::new();
        session(
            &wire[..],
            &mut out,
            &shared(1 << 20),
            protocol::PROTOCOL_TCP,
        );
        assert!(replies(&out).iter().any(|x| x.0 == b'b'));
    }

    /// What may pass on a retry (an internal error) is still deferred
    /// with `--on-failure tempfail`, and let through without it.
    #[test]
    fn an_internal_error_follows_on_failure() {
        for (on_failure, expect) in [(OnFailureArg::Tempfail, b't'), (OnFailureArg::Accept, b'a')] {
            let mut s = shared(1 << 20);
            s.on_failure = on_failure;
            let mut out = Vec::new();
            pass_unchanged(&mut out, "Q", "test", Failure::Internal, &s).unwrap();
            assert_eq!(replies(&out), vec![(expect, Vec::new())]);
        }
        let mut s = shared(1 << 20);
        s.on_failure = OnFailureArg::Tempfail;
        let mut out = Vec::new();
        pass_unchanged(&mut out, "Q", "test", Failure::Permanent, &s).unwrap();
        assert_eq!(replies(&out), vec![(b'a', Vec::new())]);
    }

    /// `msg` with `headers`, assembled as the MTA has it (values with
    /// their leading space, as with SMFIP_HDR_LEADSPC).
    fn assembled(headers: &[(&[u8], &[u8])], body: &[u8]) -> (Message, Assembled) {
        let msg = Message {
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_vec(), v.to_vec()))
                .collect(),
            body: body.to_vec(),
            ..Message::default()
        };
        let a = assemble(&msg, true);
        (msg, a)
    }

    /// The occurrence each `chgheader` names, counted per name in one
    /// pass, is the count of earlier fields of that name (ASCII case
    /// aside) on a header of repeated names, every field of it changed.
    #[test]
    fn occurrences_are_counted_per_name_in_one_pass() {
        let names: [&[u8]; 5] = [b"Comments", b"X-Note", b"comments", b"COMMENTS", b"X-NOTE"];
        let headers: Vec<(Vec<u8>, Vec<u8>)> = (0..200)
            .map(|k| {
                let name = names[(k * 7 + k / 3) % names.len()];
                (
                    name.to_vec(),
                    [b" caf\xe9 ", k.to_string().as_bytes()].concat(),
                )
            })
            .collect();
        let naive: Vec<u32> = (0..headers.len())
            .map(|j| {
                headers[..=j]
                    .iter()
                    .filter(|(m, _)| m.eq_ignore_ascii_case(&headers[j].0))
                    .count() as u32
            })
            .collect();
        assert_eq!(occurrences(&headers), naive);
        let msg = Message {
            headers: headers.clone(),
            body: b"body\r\n".to_vec(),
            ..Message::default()
        };
        let old = assemble(&msg, true);
        let n = normalize::normalize(&old.raw, &Options::default()).unwrap();
        let c = changes(&msg.headers, &old, &n.bytes).unwrap();
        assert_eq!(
            c.changed.len(),
            headers.len(),
            "every field has an 8-bit octet"
        );
        for (j, (name, index, _)) in c.changed.iter().enumerate() {
            assert_eq!((name, *index), (&headers[j].0, naive[j]), "field {}", j + 1);
        }
    }

    #[test]
    fn changes_are_positional_and_counted_by_name() {
        let (msg, old) = assembled(
            &[
                (b"Received", b" a"),
                (b"Subject", b" x"),
                (b"received", b" b"),
                (b"X", b" y"),
            ],
            b"body",
        );
        assert_eq!(
            old.raw,
            b"Received: a\r\nSubject: x\r\nreceived: b\r\nX: y\r\n\r\nbody"
        );
        let new =
            b"Received: a\r\nSubject: z\r\nreceived: c\r\nX: y\r\nMIME-Version: 1.0\r\n\r\nbody2";
        let c = changes(&msg.headers, &old, new).unwrap();
        assert_eq!(
            c.changed,
            vec![
                (b"Subject".to_vec(), 1, b" z".to_vec()),
                (b"received".to_vec(), 2, b" c".to_vec())
            ]
        );
        assert_eq!(c.added, vec![(b"MIME-Version".to_vec(), b" 1.0".to_vec())]);
        assert_eq!(c.body.as_deref(), Some(&b"body2"[..]));
        assert_eq!(milter_value(b" a\r\n b", false), b"a\n b");
        assert_eq!(milter_value(b" a", true), b" a");
    }
}
