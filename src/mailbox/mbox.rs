//! Streaming mbox reader and the `From ` quoting rules.
//!
//! ```abnf
//! mbox        = [preamble] *entry
//! entry       = from-line content [blank-line]   ; blank-line = separator
//! from-line   = "From " *VCHAR-or-WSP EOL          ; RFC 4155 (not checked further)
//! EOL         = LF / CRLF
//! ```
//!
//! A line starting `From ` ends the current message, except in
//! [`MboxFormat::ContentLength`] where a consistent `Content-Length:` header
//! may carry the message across such lines.

use super::{MailboxError, MboxFlavor, MboxFormat, Origin, RawMessage};
use memchr::memmem;
use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::sync::LazyLock;

/// How far past a `From ` line inside a body the reader will look for the
/// end announced by `Content-Length:` before giving up on the header.
const CONTENT_LENGTH_LOOKAHEAD: u64 = 64 * 1024 * 1024;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Reads an mbox from any [`BufRead`], one message at a time.
///
/// Memory: the current message, plus for Content-Length mboxes at most
/// 64 MiB of lookahead (see [`MboxReader::with_content_length_lookahead`]).
pub struct MboxReader<R> {
    src: R,
    name: PathBuf,
    flavor: MboxFlavor,
    /// Bytes given back after a Content-Length lookahead failed; read first.
    pushback: Vec<u8>,
    pushback_pos: usize,
    /// Offset of the next byte to be read.
    pos: u64,
    /// The `From ` line that starts the next message, and its offset.
    pending: Option<(Vec<u8>, u64)>,
    index: usize,
    started: bool,
    done: bool,
    lookahead: u64,
    /// Whether a `>From ` was seen since the message began (or may have
    /// been: the flag errs on the side of looking); without one, no line
    /// of the message needs unquoting.
    quoted: bool,
}

impl<R: BufRead> MboxReader<R> {
    /// A reader of `src` in `flavor`; `name` names it in errors.
    pub fn new(src: R, name: impl Into<PathBuf>, flavor: MboxFlavor) -> Self {
        MboxReader {
            src,
            name: name.into(),
            flavor,
            pushback: Vec::new(),
            pushback_pos: 0,
            pos: 0,
            pending: None,
            index: 0,
            started: false,
            done: false,
            lookahead: CONTENT_LENGTH_LOOKAHEAD,
            quoted: false,
        }
    }

    /// How far past a `From ` line inside an announced body the reader
    /// looks for the end that `Content-Length:` announced (default 64 MiB)
    /// before giving the header up and splitting at that line. Bounds the
    /// memory a bogus header can cost.
    pub fn with_content_length_lookahead(mut self, bytes: u64) -> Self {
        self.lookahead = bytes;
        self
    }

    /// The flavor being read.
    pub fn flavor(&self) -> MboxFlavor {
        self.flavor
    }

    /// Appends one line (LF included if present) to `out`; false at EOF.
    fn read_line(&mut self, out: &mut Vec<u8>) -> io::Result<bool> {
        let before = out.len();
        if self.pushback_pos < self.pushback.len() {
            let rest = &self.pushback[self.pushback_pos..];
            match memchr::memchr(b'\n', rest) {
                Some(i) => {
                    out.extend_from_slice(&rest[..=i]);
                    self.pushback_pos += i + 1;
                }
                None => {
                    out.extend_from_slice(rest);
                    self.pushback_pos = self.pushback.len();
                    self.src.read_until(b'\n', out)?;
                }
            }
            if self.pushback_pos == self.pushback.len() {
                self.pushback.clear();
                self.pushback_pos = 0;
            }
        } else {
            self.src.read_until(b'\n', out)?;
        }
        let n = out.len() - before;
        self.pos += n as u64;
        if !self.quoted
            && self.flavor.format != MboxFormat::ContentLength
            && QUOTED_FROM.find(&out[before..]).is_some()
        {
            self.quoted = true;
        }
        Ok(n > 0)
    }

    /// Appends whole lines up to the next line that starts with `From `
    /// (not consumed), taking them in bulk from the reader's buffer. Stops
    /// early, leaving the rest to [`Self::read_line`], at pushed-back bytes,
    /// a line longer than what is buffered, or the end of input. `out` must
    /// end at a line start; it still does afterwards.
    fn read_lines_until_from(&mut self, out: &mut Vec<u8>) -> io::Result<()> {
        if self.pushback_pos < self.pushback.len() {
            return Ok(());
        }
        loop {
            let avail = self.src.fill_buf()?;
            if avail.starts_with(b"From ") {
                return Ok(());
            }
            // One search for `From ` finds both the next line that starts
            // with it and the quoted ones before it (`>From `, `>>From `),
            // which mark the message for unquoting.
            let mut next = None;
            let mut at = 0;
            while let Some(i) = FROM.find(&avail[at..]) {
                let i = at + i;
                match avail.get(i.wrapping_sub(1)) {
                    Some(b'\n') => {
                        next = Some(i);
                        break;
                    }
                    Some(b'>') => self.quoted = true,
                    _ => {}
                }
                at = i + 1;
            }
            let (take, from_next) = match next {
                Some(i) => (i, true),
                None => match memchr::memrchr(b'\n', avail) {
                    Some(i) => (i + 1, false),
                    None => return Ok(()),
                },
            };
            out.extend_from_slice(&avail[..take]);
            self.src.consume(take);
            self.pos += take as u64;
            if from_next {
                return Ok(());
            }
        }
    }

    /// Appends whole header lines up to the first line that is blank or
    /// starts with `From ` (not consumed), taking them in bulk from the
    /// reader's buffer: the lines in between need no look of their own.
    /// Same contract as [`Self::read_lines_until_from`].
    fn read_header_lines(&mut self, out: &mut Vec<u8>) -> io::Result<()> {
        if self.pushback_pos < self.pushback.len() {
            return Ok(());
        }
        loop {
            let avail = self.src.fill_buf()?;
            let mut p = 0;
            let mut stop = false;
            while p < avail.len() {
                let rest = &avail[p..];
                if rest.starts_with(b"From ")
                    || rest.starts_with(b"\n")
                    || rest.starts_with(b"\r\n")
                {
                    stop = true;
                    break;
                }
                match memchr::memchr(b'\n', rest) {
                    Some(i) => p += i + 1,
                    // A line longer than what is buffered: read_line's.
                    None => {
                        stop = true;
                        break;
                    }
                }
            }
            if p > 0 {
                out.extend_from_slice(&avail[..p]);
                self.src.consume(p);
                self.pos += p as u64;
            }
            if stop || p == 0 {
                return Ok(());
            }
        }
    }

    fn unread(&mut self, bytes: &[u8]) {
        let mut v = bytes.to_vec();
        v.extend_from_slice(&self.pushback[self.pushback_pos..]);
        self.pushback = v;
        self.pushback_pos = 0;
        self.pos -= bytes.len() as u64;
    }

    fn err(&self, e: io::Error) -> MailboxError {
        MailboxError::io(&self.name, Some(self.pos), e)
    }

    fn read_message(&mut self) -> Result<Option<RawMessage>, MailboxError> {
        // Most messages fit: fewer reallocations (and copies) while the
        // message grows.
        let mut buf = Vec::with_capacity(8 << 10);
        if !self.started {
            self.started = true;
            // A UTF-8 BOM and blank lines before the first `From ` line
            // (some writers leave them; mutt reads past them) stay with
            // that line, as its `from_line`.
            // The line read last, without the BOM when it is the first.
            fn last(buf: &[u8], start: usize) -> &[u8] {
                let line = &buf[start..];
                match start {
                    0 => line.strip_prefix(BOM).unwrap_or(line),
                    _ => line,
                }
            }
            let mut line_start;
            loop {
                line_start = buf.len();
                if !self.read_line(&mut buf).map_err(|e| self.err(e))?
                    || !is_blank(last(&buf, line_start))
                {
                    break;
                }
            }
            if buf.is_empty() {
                return Ok(None);
            }
            if is_from_line(last(&buf, line_start)) {
                self.pending = Some((std::mem::take(&mut buf), 0));
            }
        }
        let (from_line, from_offset) = match self.pending.take() {
            Some(p) => p,
            None if buf.is_empty() => return Ok(None),
            // Bytes before the first `From ` line: kept as a message
            // without one, never dropped.
            None => (Vec::new(), 0),
        };
        let content_offset = from_offset + from_line.len() as u64;
        let cl_mode = self.flavor.format == MboxFormat::ContentLength;
        let mut in_header = true;
        let mut expected_end: Option<u64> = None;
        // First `From ` line skipped on the word of Content-Length.
        let mut skipped: Option<usize> = None;
        let mut honoured = false;
        // A `From ` line that did not start a message was kept in it.
        let mut kept_from = false;
        loop {
            // Outside Content-Length mode only `From ` lines matter (the
            // end of the header changes nothing there): skip to the next
            // one in bulk, header and body alike.
            if !cl_mode {
                self.read_lines_until_from(&mut buf)
                    .map_err(|e| self.err(e))?;
            } else if in_header {
                self.read_header_lines(&mut buf).map_err(|e| self.err(e))?;
            }
            let line_start = buf.len();
            if !self.read_line(&mut buf).map_err(|e| self.err(e))? {
                if let (Some(c), Some(exp)) = (skipped, expected_end) {
                    if ends_at(&buf, buf.len(), exp) {
                        honoured = true;
                    } else {
                        self.backtrack(&mut buf, c)?;
                    }
                } else if let Some(exp) = expected_end {
                    honoured = ends_at(&buf, buf.len(), exp);
                }
                break;
            }
            if is_from_line(&buf[line_start..]) && !self.starts_message_here(&buf[line_start..])? {
                // A body line that starts with `From ` but is no envelope
                // line (`From now on, ...`), left unquoted by the writer:
                // part of the message.
                kept_from = true;
                continue;
            }
            let line = &buf[line_start..];
            if is_from_line(line) {
                match expected_end {
                    Some(exp) if ends_at(&buf, line_start, exp) => {
                        honoured = true;
                    }
                    Some(exp)
                        if exp > line_start as u64
                            && (exp - line_start as u64) <= self.lookahead
                            && skipped.is_none() =>
                    {
                        skipped = Some(line_start);
                        continue;
                    }
                    Some(exp) if exp > line_start as u64 && skipped.is_some() => {
                        continue;
                    }
                    _ => {
                        if let Some(c) = skipped {
                            // The announced end passed without a `From `
                            // line there: split at the first one skipped.
                            self.backtrack(&mut buf, c)?;
                            break;
                        }
                    }
                }
                let off = self.pos - line.len() as u64;
                self.pending = Some((buf[line_start..].to_vec(), off));
                buf.truncate(line_start);
                break;
            }
            if in_header && is_blank(line) {
                in_header = false;
                if cl_mode {
                    expected_end = content_length(&buf[..line_start])
                        .and_then(|n| n.checked_add(buf.len() as u64));
                }
            }
            // Past the announced end with a line that is neither blank nor
            // a `From ` line: the header was wrong.
            if let (Some(c), Some(exp)) = (skipped, expected_end) {
                let overshoot = buf.len() as u64 > exp
                    && !(line_start as u64 == exp && is_blank(&buf[line_start..]));
                if overshoot {
                    self.backtrack(&mut buf, c)?;
                    break;
                }
            }
        }
        let separator = split_separator(&mut buf);
        let input_len = from_line.len() as u64 + buf.len() as u64 + separator.len() as u64;
        // Written back with quoting redone, such a line would get a `>`:
        // the message as it stood is kept for an unchanged write.
        let verbatim = kept_from.then(|| (self.flavor.format, buf.clone()));
        if std::mem::take(&mut self.quoted) {
            unquote_in_place(&mut buf, self.flavor.format);
        }
        let msg = RawMessage {
            bytes: buf,
            index: self.index,
            offset: content_offset,
            input_len,
            origin: Origin::Mbox {
                from_line,
                offset: from_offset,
                separator,
                content_length: honoured,
                verbatim,
            },
            times: None,
        };
        self.index += 1;
        Ok(Some(msg))
    }

    /// Whether the `From ` line `line` (read last, line end included)
    /// starts a message ([`starts_message`]); looks at the line after it,
    /// which is read and given back.
    fn starts_message_here(&mut self, line: &[u8]) -> Result<bool, MailboxError> {
        let l = trim_eol(line);
        if is_envelope_line(l) {
            return Ok(true);
        }
        if !is_bare_envelope_line(l) {
            return Ok(false);
        }
        let mut next = Vec::new();
        self.read_line(&mut next).map_err(|e| self.err(e))?;
        let header = is_header_field(&next);
        self.unread(&next);
        Ok(header)
    }

    /// Gives back everything from the skipped `From ` line at `at` and ends
    /// the message there; the next read sees that line again.
    fn backtrack(&mut self, buf: &mut Vec<u8>, at: usize) -> Result<(), MailboxError> {
        let tail = buf.split_off(at);
        self.unread(&tail);
        let mut line = Vec::new();
        if !self.read_line(&mut line).map_err(|e| self.err(e))? {
            return Ok(());
        }
        let off = self.pos - line.len() as u64;
        self.pending = Some((line, off));
        Ok(())
    }
}

impl<R: BufRead> Iterator for MboxReader<R> {
    type Item = Result<RawMessage, MailboxError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.read_message() {
            Ok(Some(m)) => Some(Ok(m)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// Searchers built once: `memmem::find` builds one per call, which showed
/// in profiles at a few calls per message.
pub(crate) static NL_FROM: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(b"\nFrom "));
static FROM: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new(b"From "));
static QUOTED_FROM: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(b">From "));

/// Whether `line` looks like an mbox envelope line: `From `, a sender
/// without spaces, a space, then text that ends in a time of day (`12:08`,
/// `12:08:34`) and a 4-digit year (19xx or 20xx) as words of their own: the
/// time, maybe a time zone (`PDT`, or `+0000` as Gmail's Takeout writes
/// it), the year, maybe a zone (`+0000`, `UTC`); or, an RFC 2822 date, the
/// year, the time, maybe a zone. The line ending is not looked at. So
/// `From MAILER-DAEMON Fri Jul  8 12:08:34 2011`,
/// `From a@b.c  Mon Jan 1 00:00:00 2001 +0000`,
/// `From 1583290388308606088@xxx Mon Nov 06 04:42:58 +0000 2017` and
/// `From a@b Tue, 10 Mar 2009 12:00:00 +0000` are; `From the desk of
/// José:` and a body line such as `From January 2019 to March 2020` are
/// not.
pub fn is_envelope_line(line: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(b"From ") else {
        return false;
    };
    let sender_end = rest
        .iter()
        .position(|&b| b == b' ' || b == b'\t')
        .unwrap_or(rest.len());
    if sender_end == 0 || sender_end == rest.len() || rest[sender_end] != b' ' {
        return false;
    }
    let mut words = rest[sender_end..]
        .split(|&b| b == b' ' || b == b'\t')
        .map(|w| w.trim_ascii_end())
        .filter(|w| !w.is_empty())
        .rev();
    let is_year = |w: &[u8]| {
        w.len() == 4
            && (w.starts_with(b"19") || w.starts_with(b"20"))
            && w.iter().all(u8::is_ascii_digit)
    };
    let is_zone = |w: &[u8]| {
        (w.len() == 5 && (w[0] == b'+' || w[0] == b'-') && w[1..].iter().all(u8::is_ascii_digit))
            || ((1..=5).contains(&w.len()) && w.iter().all(u8::is_ascii_alphabetic))
    };
    // `12:08` or `12:08:34`.
    let is_time = |w: &[u8]| {
        let mut parts = w.split(|&b| b == b':');
        let hour = parts.next().unwrap_or_default();
        (1..=2).contains(&hour.len())
            && hour.iter().all(u8::is_ascii_digit)
            && (1..=2).contains(&parts.clone().count())
            && parts.all(|p| p.len() == 2 && p.iter().all(u8::is_ascii_digit))
    };
    // From the end: a zone passed over, then the year and before it the
    // time, maybe with a zone between them (asctime, Takeout); or the time
    // and before it the year (an RFC 2822 date).
    let mut last = words.next();
    if last.is_some_and(|w| is_zone(w) && !is_year(w)) {
        last = words.next();
    }
    match last {
        Some(w) if is_year(w) => match words.next() {
            Some(w) if is_time(w) => true,
            Some(w) if is_zone(w) => words.next().is_some_and(is_time),
            _ => false,
        },
        Some(w) if is_time(w) => words.next().is_some_and(is_year),
        _ => false,
    }
}

/// Whether a line starting `From ` (line end included or not) starts a
/// message in an mbox, `next` being the line after it (None at the end):
/// an envelope line with a date ([`is_envelope_line`]), anywhere; or,
/// followed by a header field, an envelope line without a date of a form
/// that function knows: `From ` and a sender alone (`From bob`), or with
/// more that has a digit in it (`From a@b 0`, a date with a comment).
/// Any other line that starts with `From ` (`From now on, please note:`,
/// `From the desk of José:`, `From January 2019 to March 2020` followed
/// by text) is a line of the message it is in,
/// left unquoted by the program that wrote the file: splitting there wrote
/// the rest of the letter back as a message of its own, with a made-up
/// header block in the middle of the text (doc/mailbox.md, "mbox
/// framing").
///
/// ```abnf
/// starts-message = "From " sender 1*WSP date [EOL]          ; is_envelope_line
///                / "From " sender [1*WSP digit-text] EOL header-field
/// sender         = 1*VCHAR
/// digit-text     = text with at least one DIGIT
/// ```
pub fn starts_message(line: &[u8], next: Option<&[u8]>) -> bool {
    let l = trim_eol(line);
    is_envelope_line(l) || (is_bare_envelope_line(l) && next.is_some_and(is_header_field))
}

/// An envelope line whose date is missing or not of a form
/// [`is_envelope_line`] knows: `From `, a sender (no white space), and
/// nothing more (`From bob`) or more with a digit in it (`From a@b 0`,
/// `From a@b Mon, 1 Jan 2001 00:00:00 +0000 (UTC)`). Prose has no digit
/// (`From now on, please note:`).
fn is_bare_envelope_line(line: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(b"From ") else {
        return false;
    };
    let rest = rest.trim_ascii_end();
    let sender = rest
        .iter()
        .position(u8::is_ascii_whitespace)
        .unwrap_or(rest.len());
    sender > 0 && (sender == rest.len() || rest[sender..].iter().any(u8::is_ascii_digit))
}

/// `line` without its line end (LF or CR LF).
fn trim_eol(line: &[u8]) -> &[u8] {
    let l = line.strip_suffix(b"\n").unwrap_or(line);
    l.strip_suffix(b"\r").unwrap_or(l)
}

/// Whether an mbox file held whole (one found in a folder) is clearly an
/// mbox: besides its first line, a line preceded by an empty line is an
/// envelope line ([`is_envelope_line`]), or a `From ` line followed by a
/// header field (`Name: value`: an mbox whose envelope lines have no
/// date), or an envelope line with no empty line before it followed by a
/// header field (a writer that leaves no empty line between messages). A
/// single message saved with its envelope line, whose body may have lines
/// starting `From `, is not.
pub(crate) fn has_later_envelope(bytes: &[u8]) -> bool {
    // Reading from memory cannot fail.
    later_envelope(bytes).unwrap_or(false)
}

/// How much of a line [`later_envelope`] looks at: an envelope line is
/// short, and a long line (base64, a body without line ends) costs no
/// memory.
const ENVELOPE_LINE_MAX: usize = 1024;

/// [`has_later_envelope`] for a stream: reads `r` from its start (an
/// optional UTF-8 BOM, blank lines, the first `From ` line) until such a
/// line, or its end. False when `r` does not start like an mbox. Memory:
/// the reader's buffer and one line's first KiB.
pub(crate) fn later_envelope<R: BufRead>(mut r: R) -> io::Result<bool> {
    let mut line = Vec::with_capacity(256);
    let mut first_line = true;
    let mut past_first = false;
    let mut prev_blank = false;
    // The line before was a `From ` line after an empty line, or an
    // envelope line: a header field now starts a message.
    let mut after_from = false;
    loop {
        line.clear();
        if read_line_head(&mut r, &mut line, ENVELOPE_LINE_MAX)? == 0 {
            return Ok(false);
        }
        let mut l = &line[..];
        if first_line {
            l = l.strip_prefix(BOM).unwrap_or(l);
            first_line = false;
        }
        let blank = is_blank(l);
        if !past_first {
            if blank {
                continue;
            }
            if !is_from_line(l) {
                return Ok(false);
            }
            past_first = true;
            continue;
        }
        if after_from && is_header_field(l) {
            return Ok(true);
        }
        let envelope = is_from_line(l) && is_envelope_line(l.strip_suffix(b"\n").unwrap_or(l));
        if prev_blank && envelope {
            return Ok(true);
        }
        // An envelope line without a date after an empty line, or one with
        // a date right after the text before it (a writer that leaves no
        // empty line), starts a message when a header field follows (the
        // reader splits at both: [`starts_message`]). Another `From ` line
        // (`From now on, please note:`) does not, whatever follows it.
        after_from = envelope || (prev_blank && is_bare_envelope_line(trim_eol(l)));
        prev_blank = blank;
    }
}

/// Whether `line` starts like a header field: a name of printable ASCII
/// octets other than `:`, then `:`.
fn is_header_field(line: &[u8]) -> bool {
    let name = line.iter().take_while(|&&b| b != b':').count();
    name > 0 && name < line.len() && line[..name].iter().all(|b| (0x21..=0x7e).contains(b))
}

/// Reads one line of `r` (through LF, or to the end), appending at most
/// `cap` octets of it to `out`; returns how many octets it took up.
fn read_line_head<R: BufRead>(r: &mut R, out: &mut Vec<u8>, cap: usize) -> io::Result<usize> {
    let mut total = 0;
    loop {
        let avail = r.fill_buf()?;
        if avail.is_empty() {
            return Ok(total);
        }
        let (take, done) = match memchr::memchr(b'\n', avail) {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        let room = cap.saturating_sub(out.len());
        out.extend_from_slice(&avail[..take.min(room)]);
        r.consume(take);
        total += take;
        if done {
            return Ok(total);
        }
    }
}

/// Where the first `From ` line starts when `bytes` begins like an mbox:
/// with it, after an optional UTF-8 BOM and blank lines.
pub(crate) fn first_from_line(bytes: &[u8]) -> Option<usize> {
    let mut at = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    loop {
        let rest = &bytes[at..];
        if rest.starts_with(b"From ") {
            return Some(at);
        }
        if rest.starts_with(b"\n") {
            at += 1;
        } else if rest.starts_with(b"\r\n") {
            at += 2;
        } else {
            return None;
        }
    }
}

fn is_from_line(line: &[u8]) -> bool {
    line.starts_with(b"From ")
}

fn is_blank(line: &[u8]) -> bool {
    line == b"\n" || line == b"\r\n"
}

/// Length of the line ending at the end of `buf[..end]` when the last line
/// there is blank.
fn trailing_blank_len(buf: &[u8], end: usize) -> Option<usize> {
    let b = &buf[..end];
    if b.ends_with(b"\r\n") && (b.len() == 2 || b[b.len() - 3] == b'\n') {
        Some(2)
    } else if b.ends_with(b"\n") && (b.len() == 1 || b[b.len() - 2] == b'\n') {
        Some(1)
    } else {
        None
    }
}

/// Whether a message whose content is `buf[..end]` ends where
/// Content-Length said: at `end`, or just before a final blank line.
fn ends_at(buf: &[u8], end: usize, expected: u64) -> bool {
    expected == end as u64
        || trailing_blank_len(buf, end).is_some_and(|n| expected + n as u64 == end as u64)
}

/// Takes the final blank line (the mbox separator) off `buf`.
fn split_separator(buf: &mut Vec<u8>) -> Vec<u8> {
    match trailing_blank_len(buf, buf.len()) {
        Some(n) => buf.split_off(buf.len() - n),
        None => Vec::new(),
    }
}

/// The offset just past the blank line ending the header, if there is one.
pub(crate) fn header_end(bytes: &[u8]) -> Option<usize> {
    if bytes.starts_with(b"\n") {
        return Some(1);
    }
    if bytes.starts_with(b"\r\n") {
        return Some(2);
    }
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'\n', &bytes[from..]) {
        let nl = from + i;
        let rest = &bytes[nl + 1..];
        if rest.starts_with(b"\n") {
            return Some(nl + 2);
        }
        if rest.starts_with(b"\r\n") {
            return Some(nl + 3);
        }
        from = nl + 1;
    }
    None
}

/// The value of the first `Content-Length:` field in a header section, and
/// the byte range of its digits.
pub(crate) fn content_length_field(header: &[u8]) -> Option<(u64, std::ops::Range<usize>)> {
    const NAME: &[u8] = b"content-length:";
    let mut start = 0;
    while start < header.len() {
        let end = memchr::memchr(b'\n', &header[start..]).map_or(header.len(), |i| start + i);
        let line = &header[start..end];
        if line.len() >= NAME.len() && line[..NAME.len()].eq_ignore_ascii_case(NAME) {
            let v = &line[NAME.len()..];
            let lead = v.iter().take_while(|b| **b == b' ' || **b == b'\t').count();
            let digits = v[lead..].iter().take_while(|b| b.is_ascii_digit()).count();
            let rest = &v[lead + digits..];
            if digits == 0 || digits > 19 || !rest.iter().all(|b| b.is_ascii_whitespace()) {
                return None;
            }
            let s = std::str::from_utf8(&v[lead..lead + digits]).ok()?;
            let n = s.parse().ok()?;
            let at = start + NAME.len() + lead;
            return Some((n, at..at + digits));
        }
        start = end + 1;
    }
    None
}

pub(crate) fn content_length(header: &[u8]) -> Option<u64> {
    content_length_field(header).map(|(n, _)| n)
}

/// Whether `line` (at a line start) is a quoted or unquoted `From ` line as
/// the format sees it: mboxo `From `, mboxrd `>*From `.
fn needs_quote(line: &[u8], format: MboxFormat) -> bool {
    match format {
        MboxFormat::Mboxo => line.starts_with(b"From "),
        MboxFormat::Mboxrd => {
            let n = line.iter().take_while(|b| **b == b'>').count();
            line[n..].starts_with(b"From ")
        }
        MboxFormat::ContentLength => false,
    }
}

fn is_quoted(line: &[u8], format: MboxFormat) -> bool {
    line.first() == Some(&b'>') && needs_quote(&line[1..], format)
}

/// Undoes `From ` quoting: mboxo `>From ` → `From `, mboxrd `>>*From ` →
/// one `>` fewer. `None` when nothing changes.
pub fn unquote_from_lines(bytes: &[u8], format: MboxFormat) -> Option<Vec<u8>> {
    let mut v = bytes.to_vec();
    unquote_in_place(&mut v, format).then_some(v)
}

/// [`unquote_from_lines`] without a copy; true when something changed.
pub(crate) fn unquote_in_place(buf: &mut Vec<u8>, format: MboxFormat) -> bool {
    if format == MboxFormat::ContentLength || QUOTED_FROM.find(buf).is_none() {
        return false;
    }
    let (mut read, mut write) = (0, 0);
    while read < buf.len() {
        let end = memchr::memchr(b'\n', &buf[read..]).map_or(buf.len(), |i| read + i + 1);
        let skip = usize::from(is_quoted(&buf[read..end], format));
        let len = end - read - skip;
        buf.copy_within(read + skip..end, write);
        write += len;
        read = end;
    }
    let changed = write != buf.len();
    buf.truncate(write);
    changed
}

/// Redoes `From ` quoting for `format`, appending to `out`.
pub fn quote_from_lines(bytes: &[u8], format: MboxFormat, out: &mut Vec<u8>) {
    // Writing to a Vec cannot fail.
    let _ = quote_into(bytes, format, out);
}

/// Writes `bytes` with `From ` quoting redone, in as few writes as the
/// quoted lines allow.
/// Whether `from` occurs anywhere in `bytes`: without it, no line of a
/// message needs `From ` quoting in any mbox format.
pub(crate) fn contains_from(bytes: &[u8]) -> bool {
    FROM.find(bytes).is_some()
}

pub(crate) fn quote_into(bytes: &[u8], format: MboxFormat, w: &mut dyn Write) -> io::Result<()> {
    if format == MboxFormat::ContentLength || !contains_from(bytes) {
        return w.write_all(bytes);
    }
    let mut run_start = 0;
    let mut line_start = 0;
    while line_start < bytes.len() {
        let end =
            memchr::memchr(b'\n', &bytes[line_start..]).map_or(bytes.len(), |i| line_start + i + 1);
        if needs_quote(&bytes[line_start..end], format) {
            w.write_all(&bytes[run_start..line_start])?;
            w.write_all(b">")?;
            run_start = line_start;
        }
        line_start = end;
    }
    w.write_all(&bytes[run_start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quote(b: &[u8], f: MboxFormat) -> Vec<u8> {
        let mut v = Vec::new();
        quote_from_lines(b, f, &mut v);
        v
    }

    #[test]
    fn quoting_rules() {
        let text = b"From a\n>From b\n>>From c\nFrom\n x From y\nFrom: z\r\nFrom ";
        assert_eq!(
            quote(text, MboxFormat::Mboxo),
            b">From a\n>From b\n>>From c\nFrom\n x From y\nFrom: z\r\n>From "
        );
        assert_eq!(
            quote(text, MboxFormat::Mboxrd),
            b">From a\n>>From b\n>>>From c\nFrom\n x From y\nFrom: z\r\n>From "
        );
        assert_eq!(quote(text, MboxFormat::ContentLength), text);
    }

    proptest::proptest! {
        /// mboxrd quoting is reversible; mboxo reading is lossy exactly on
        /// `>From ` lines.
        #[test]
        fn unquote_undoes_quote(lines in proptest::collection::vec(
            proptest::sample::select(vec!["From x", ">From x", ">>From", "a", "", ">", "From"]), 0..10)) {
            let text = lines.join("\n").into_bytes();
            let rd = quote(&text, MboxFormat::Mboxrd);
            proptest::prop_assert_eq!(unquote_from_lines(&rd, MboxFormat::Mboxrd).unwrap_or(rd.clone()), text.clone());
            let o = quote(&text, MboxFormat::Mboxo);
            let back = unquote_from_lines(&o, MboxFormat::Mboxo).unwrap_or(o.clone());
            let lossy = unquote_from_lines(&text, MboxFormat::Mboxo).unwrap_or(text.clone());
            proptest::prop_assert_eq!(back, lossy);
        }
    }

    #[test]
    fn envelope_lines() {
        for yes in [
            &b"From MAILER-DAEMON Fri Jul  8 12:08:34 2011"[..],
            b"From a@b.c  Mon Jan 1 00:00:00 2001 +0000",
            // West of Greenwich: a zone with a minus sign (a mutation that
            // took `-0700` for no zone survived every test).
            b"From a@b.c Mon Jan 1 00:00:00 2001 -0700",
            b"From 1583290388308606088@xxx Mon Nov 06 04:42:58 -0800 2017",
            b"From a@b Mon Jan  1 00:00:00 2001\r",
            b"From a@b Sat Jan  3 01:05:34 1996 PST",
            b"From x Fri Jul  8 12:08:34 PDT 2011 ",
            b"From a@b Wed Dec  2 05:53 1992",
            // Gmail's Takeout: a numeric zone between the time and the year.
            b"From 1583290388308606088@xxx Mon Nov 06 04:42:58 +0000 2017",
            // An RFC 2822 date.
            b"From a@b Tue, 10 Mar 2009 12:00:00 +0000",
            b"From a@b Tue, 10 Mar 2009 12:00:00",
        ] {
            assert!(is_envelope_line(yes), "{}", String::from_utf8_lossy(yes));
        }
        for no in [
            &b"From the desk of Jos\xe9:"[..],
            b"From the archive",
            b"From a@b",
            b"From  a@b Mon Jan 1 00:00:00 2001",
            b"From a@b Mon Jan 1 00:00:00 1899",
            b"From a@b Mon Jan 1 00:00:00 12001",
            b"From a@b Mon Jan 1 00:00:00 2001 +00",
            b"From a@b Mon Jan 1 00:00:00 2001 UTC UTC",
            b">From a@b Mon Jan 1 00:00:00 2001",
            // A body line that ends in a year: no time of day before it.
            b"From January 2019 to March 2020",
            b"From here to 2020",
            b"From a@b Mon Jan 1 2001",
            b"From a@b Mon Jan 1 00:00:00:00 2001",
            b"From a@b Mon Jan 1 123:00 2001",
            b"From a@b Mon Jan 1 00:00:00 +0000 +0000 2001",
            b"From 2019 to 10:30",
        ] {
            assert!(!is_envelope_line(no), "{}", String::from_utf8_lossy(no));
        }
        let one = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: x\n\nHi\n>From the archive\nFrom the desk of Jos\xe9:\n\nFrom the desk\n";
        assert!(!has_later_envelope(one));
        let two = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: x\n\nHi\n\nFrom c@d Tue Jan  2 00:00:00 2001\nSubject: y\n\n";
        assert!(has_later_envelope(two));
        // Envelope lines without a date: each is followed by a header.
        let undated = b"From a@b\nSubject: x\n\nHi\n\nFrom c@d\nSubject: y\n\n";
        assert!(has_later_envelope(undated));
        // Blank lines before the first `From ` line; a paragraph `From `
        // followed by text.
        let lead = b"\n\nFrom a@b Mon Jan  1 00:00:00 2001\nSubject: x\n\nHi\n\nFrom the desk\nof Jos\xe9: hi\n";
        assert!(!has_later_envelope(lead));
        let crlf = b"From a@b Mon Jan  1 00:00:00 2001\r\nSubject: x\r\n\r\nHi\r\n\r\nFrom c@d Tue Jan  2 00:00:00 2001\r\n";
        assert!(has_later_envelope(crlf));
        // An envelope-like line with no empty line before it does not count
        // on its own; followed by a header field, it does.
        let glued = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: x\n\nHi\nFrom c@d Tue Jan  2 00:00:00 2001\n";
        assert!(!has_later_envelope(glued));
        let glued = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: x\n\nHi\nFrom c@d Tue Jan  2 00:00:00 2001\nSubject: y\n\n";
        assert!(has_later_envelope(glued));
        let glued =
            b"From a@b Mon Jan  1 00:00:00 2001\nSubject: x\n\nHi\nFrom the desk\nSubject: y\n\n";
        assert!(!has_later_envelope(glued));
        // A paragraph of the body that starts `From` and ends in a year.
        let cv = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: CV\n\nWork:\n\nFrom January 2019 to March 2020\nat ACME.\n";
        assert!(!has_later_envelope(cv));
    }

    /// Where a `From ` line starts a message, and where an mbox that
    /// starts with a header field has its first one.
    #[test]
    fn from_lines_that_start_messages() {
        let h = Some(&b"Subject: x\n"[..]);
        let text = Some(&b"at the caf\xe9\n"[..]);
        assert!(starts_message(b"From a@b Mon Jan  1 00:00:00 2001\n", text));
        assert!(starts_message(b"From bob\n", h));
        assert!(starts_message(b"From a@b 0\r\n", h));
        assert!(!starts_message(b"From bob\n", text));
        assert!(!starts_message(b"From bob\n", None));
        assert!(!starts_message(
            b"From now on, please note:\n",
            Some(b"Note: moved\n")
        ));
        assert!(!starts_message(b"From the desk of Jos\xe9:\n", h));
        let part = b"Message-ID: <1@x>\n\nbody\nFrom a@b Mon Jan  1 00:00:00 2001\nhttp://x\n\n\
From a@b Mon Jan  1 00:00:00 2001\nSubject: two\n\nx\n";
        // A file that starts with a header field is one message, whatever
        // envelope lines come later (doc/mailbox.md).
        use crate::mailbox::{InputKind, sniff};
        assert_eq!(sniff(part), InputKind::Eml);
        assert!(!has_later_envelope(part));
        assert_eq!(sniff(&part[..64]), InputKind::Eml);
        assert!(!has_later_envelope(&part[..64]));
        assert_eq!(
            sniff(&part[29..]),
            InputKind::Eml,
            "does not start like a message"
        );
    }

    #[test]
    fn content_length_field_parsing() {
        assert_eq!(content_length(b"A: b\nContent-Length: 12\n"), Some(12));
        assert_eq!(content_length(b"content-length:\t7 \r\n"), Some(7));
        assert_eq!(content_length(b"Content-Length: 12x\n"), None);
        assert_eq!(
            content_length(b"Content-Length: 99999999999999999999\n"),
            None
        );
        assert_eq!(content_length(b"X-Content-Length: 5\n"), None);
        assert_eq!(header_end(b"A: b\r\n\r\nbody"), Some(8));
        assert_eq!(header_end(b"\nbody"), Some(1));
        assert_eq!(header_end(b"A: b\n"), None);
    }
}
