//! Normalization: a message in any charset written back as clean, honest
//! UTF-8, byte-identical wherever nothing needed to change.
//!
//! The message is parsed once into the part tree ([`crate::message`]), which
//! records absolute byte ranges. Normalization is a sorted list of
//! non-overlapping *edits* over the original bytes — replace a header field,
//! replace a body, insert a field at the end of a part's header — and
//! everything not edited (preamble, delimiters, epilogue, non-text parts,
//! parts under a signature, fields we do not touch) is copied verbatim by
//! construction. No edits means the input itself is returned, borrowed.
//!
//! What changes (policy decisions are in `doc/normalize.md`):
//! - every text/* leaf whose label is not UTF-8 (or that is unlabelled
//!   8-bit, mislabeled, UNICODE-1-1-UTF-8 ...) is decoded through the
//!   charset layer and written as UTF-8 with `charset=utf-8`, in 7bit when
//!   it is ASCII, else quoted-printable or base64 ([`transfer::choose_encoding`]),
//!   or 8bit with [`Options::eight_bit`]; an HTML part's `<meta>` charset is
//!   rewritten to match (text/html without a `charset` parameter is read
//!   under its markup's declaration, [`crate::message::body_label`]);
//! - header encoded-words, RFC 2231 parameters and raw 8-bit header text in
//!   a legacy charset are rewritten as UTF-8 ([`HeaderMode`]);
//! - text that cannot be decoded cleanly follows [`OnError`].
//!
//! A normalized message normalizes to itself (idempotence).
//!
//! ```
//! use mailcharset::normalize::{normalize, Options, Action};
//! let raw = b"Subject: =?iso-8859-1?q?Gr=FC=DFe?=\n\
//!             Content-Type: text/plain; charset=iso-8859-1\n\
//!             Content-Transfer-Encoding: 8bit\n\
//!             \n\
//!             Liebe Gr\xfc\xdfe aus K\xf6ln, bis bald und einen sch\xf6nen Abend.\n";
//! let n = normalize(raw, &Options::default()).unwrap();
//! let out = String::from_utf8(n.bytes.to_vec()).unwrap();
//! assert!(out.starts_with("Subject: =?UTF-8?B?R3LDvMOfZQ==?=\n"));
//! assert!(out.contains("Content-Type: text/plain; charset=utf-8\n"));
//! assert!(out.contains("Content-Transfer-Encoding: quoted-printable\n"));
//! assert!(out.ends_with("Liebe Gr=C3=BC=C3=9Fe aus K=C3=B6ln, bis bald und einen sch=C3=B6nen Abend.\n"));
//! assert!(n.report.changed);
//! assert_eq!(n.report.parts[0].action, Action::Converted);
//!
//! // Already normalized: the same bytes, borrowed.
//! let again = normalize(out.as_bytes(), &Options::default()).unwrap();
//! assert!(matches!(again.bytes, std::borrow::Cow::Borrowed(_)));
//! assert!(!again.report.changed);
//! ```

mod body;
mod declared;
mod headers;
mod html;
mod patch;

pub use crate::mime::HeaderMode;
pub use declared::{rewrite_css_charset, rewrite_vcard_charset, rewrite_xml_encoding};
pub use html::rewrite_meta_charset;

use crate::charset::{DecodeOptions, Unicode11Policy};
use crate::finding::{Finding, Verdict};
use crate::message::{Limits, Message, Part, transfer};
use serde::Serialize;
use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

/// What to do with text that cannot be decoded cleanly: an invalid
/// sequence under its label (verdict `invalid`), an unknown label, or a
/// charset we know but cannot decode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OnError {
    /// Write the lossy text (U+FFFD where needed) and report it.
    #[default]
    Replace,
    /// Leave the part or field exactly as it was and report it.
    Keep,
    /// Stop with a [`NormalizeError`] naming the part and offset.
    Fail,
}

/// Normalization options. `Default` is what the CLI does without flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// UNICODE-1-1-UTF-8 handling (see [`Unicode11Policy`]).
    pub unicode11: Unicode11Policy,
    /// Non-ASCII header text as RFC 2047/2231 (default) or raw UTF-8.
    pub headers: HeaderMode,
    /// What to do with text that cannot be decoded cleanly.
    pub on_error: OnError,
    /// Write converted bodies as `8bit` instead of quoted-printable/base64.
    pub eight_bit: bool,
    /// Part-tree limits; parts beyond them are kept as they are.
    pub limits: Limits,
    /// Repair CESU-8 surrogate pairs in text labelled UTF-8 instead of
    /// replacing them (see [`DecodeOptions::repair_cesu8`]).
    pub repair_cesu8: bool,
    /// Decode lines in another charset inside a text its label explains
    /// (finding `mixed-charset`) with that charset instead of U+FFFD, also
    /// when they could be damage (see [`DecodeOptions::repair_mixed`]).
    pub repair_mixed: bool,
    /// Leave a message that carries a DKIM signature (a top-level
    /// `DKIM-Signature` field, or an ARC set's `ARC-Message-Signature`)
    /// exactly as it came: any rewritten body or
    /// signed field makes the signature fail for every later verifier (a
    /// forwarding relay, a mailing list's subscribers), and a failed DKIM
    /// under a DMARC `p=reject` policy is a rejected message. The report
    /// still lists what would have been done, as `kept` (doc/gateway.md,
    /// "Signatures"). Likewise an attached message (message/rfc822) with
    /// a `DKIM-Signature` of its own, in a message that has none: it is
    /// left as it came, the rest of the message normalized.
    pub keep_dkim_signed: bool,
    /// Convert text files attached to a message ([`Part::is_file`]), and
    /// patches sent as text (text/x-patch, text/x-diff, or a text/plain
    /// body whose diff lines hold what the conversion would change), as
    /// text bodies are. Off by default: a file or a patch is kept byte for
    /// byte in its charset, as the sender's program wrote it (a Latin-1
    /// patch converted no longer applies, a converted CSV opens as
    /// `GrÃ¼ÃŸe` in a spreadsheet that reads files in the system's code
    /// page).
    ///
    /// [`Part::is_file`]: crate::message::Part::is_file
    pub convert_attachments: bool,
}

impl Options {
    fn decode_options(&self) -> DecodeOptions {
        DecodeOptions {
            unicode11: self.unicode11,
            detect: true,
            repair_cesu8: self.repair_cesu8,
            repair_mixed: self.repair_mixed,
            body: false,
            tld: None,
            header_hint: None,
            declared: None,
        }
    }
}

/// What happened to one location (a body or a header field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Written as UTF-8.
    Converted,
    /// Written as UTF-8 with U+FFFD where the input could not be decoded
    /// (or decoded by detection under an unknown label).
    Replaced,
    /// Left exactly as it was although it is not clean UTF-8.
    Kept,
    /// Already UTF-8 (or ASCII): copied as it was.
    Unchanged,
}

impl Action {
    /// The name used in reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            Action::Converted => "converted",
            Action::Replaced => "replaced",
            Action::Kept => "kept",
            Action::Unchanged => "unchanged",
        }
    }
}

/// One entry of the report: a text body (always listed) or a header field
/// or parameter that was rewritten or kept.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PartReport {
    /// IMAP-style part number (`1`, `2.1`); empty for a root multipart.
    pub part: String,
    /// `body`, `header:Subject`, `param:filename` ...
    pub location: String,
    /// The charset label as written (non-UTF-8 bytes escaped), if any.
    pub label: Option<String>,
    /// The charset whose decoder produced the text.
    pub charset: Option<&'static str>,
    /// What was done with it.
    pub action: Action,
    /// How far to trust the text.
    pub verdict: Verdict,
    /// Everything found.
    pub findings: Vec<Finding>,
}

/// What normalization did to one message.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct NormalizeReport {
    /// The Message-ID without angle brackets.
    pub message_id: Option<String>,
    /// Whether the output differs from the input.
    pub changed: bool,
    /// One entry per text body, and per field or parameter rewritten or kept.
    pub parts: Vec<PartReport>,
    /// Left as it came for its DKIM signature ([`Options::keep_dkim_signed`]);
    /// what would have been rewritten is listed as `kept`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dkim_signed: bool,
}

impl NormalizeReport {
    /// Entries with this action.
    pub fn count(&self, action: Action) -> usize {
        self.parts.iter().filter(|p| p.action == action).count()
    }

    /// Entries with findings (for [`crate::mailbox::Outcome::with_findings`]).
    pub fn findings(&self) -> usize {
        self.parts.iter().map(|p| p.findings.len()).sum()
    }
}

/// The normalized message and its report.
#[derive(Clone, Debug)]
pub struct Normalized<'a> {
    /// Borrowed (the input itself) when nothing changed.
    pub bytes: Cow<'a, [u8]>,
    /// What was done.
    pub report: NormalizeReport,
}

/// Normalization stopped ([`OnError::Fail`] only).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NormalizeError {
    /// Text that cannot be decoded cleanly.
    Undecodable {
        /// The part's number.
        part: String,
        /// `body`, `header:Subject` ...
        location: String,
        /// Byte offset in the message of the body or field.
        offset: usize,
        /// The label as written, if any.
        label: Option<String>,
        /// The verdict of the text.
        verdict: Verdict,
        /// What went wrong first (finding kind and offset in the decoded
        /// content).
        reason: String,
    },
}

impl fmt::Display for NormalizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NormalizeError::Undecodable {
                part,
                location,
                offset,
                label,
                verdict,
                reason,
            } => {
                let part = if part.is_empty() { "root" } else { part };
                write!(
                    f,
                    "part {part} {location} at byte {offset}: {verdict}{}: {reason}",
                    label
                        .as_deref()
                        .map(|l| format!(" (label {l:?})"))
                        .unwrap_or_default()
                )
            }
        }
    }
}

impl std::error::Error for NormalizeError {}

/// One replacement of original bytes.
#[derive(Clone, Debug)]
pub(crate) struct Edit {
    pub range: Range<usize>,
    pub bytes: Vec<u8>,
}

/// Shared state while walking one message.
pub(crate) struct Ctx<'o> {
    pub opts: &'o Options,
    pub dopts: DecodeOptions,
    /// Whose `dopts.header_hint` is set
    /// ([`crate::message::Message::hint_headers`]).
    pub hint_scope: Option<usize>,
    pub edits: Vec<Edit>,
    pub report: NormalizeReport,
}

impl Ctx<'_> {
    /// Handles text that is not clean: returns whether to write it anyway
    /// (Replace), or Ok(false) to keep it (Keep), or the error (Fail).
    pub(crate) fn on_problem(
        &mut self,
        entry: PartReport,
        offset: usize,
    ) -> Result<bool, NormalizeError> {
        match self.opts.on_error {
            OnError::Replace => {
                self.report.parts.push(PartReport {
                    action: Action::Replaced,
                    ..entry
                });
                Ok(true)
            }
            OnError::Keep => {
                self.report.parts.push(PartReport {
                    action: Action::Kept,
                    ..entry
                });
                Ok(false)
            }
            OnError::Fail => {
                let first = entry
                    .findings
                    .iter()
                    .find(|f| f.kind != crate::finding::FindingKind::Replacement)
                    .or(entry.findings.first());
                let reason = match first {
                    Some(f) => format!(
                        "{} at offset {}{}",
                        f.kind,
                        f.offset,
                        f.note
                            .as_deref()
                            .map(|n| format!(" ({n})"))
                            .unwrap_or_default()
                    ),
                    None => "cannot be decoded cleanly".to_string(),
                };
                Err(NormalizeError::Undecodable {
                    part: entry.part,
                    location: entry.location,
                    offset,
                    label: entry.label,
                    verdict: entry.verdict,
                    reason,
                })
            }
        }
    }
}

/// Normalizes one message (see the module docs). Never panics on any
/// input; fails only under [`OnError::Fail`].
pub fn normalize<'a>(raw: &'a [u8], opts: &Options) -> Result<Normalized<'a>, NormalizeError> {
    let msg = Message::parse_with(raw, &opts.limits);
    let top = msg.top_fields();
    let tld = top.tld_hint();
    let mut tld_scope = crate::message::TldScope::new(tld);
    let mut ctx = Ctx {
        opts,
        dopts: DecodeOptions {
            tld,
            ..opts.decode_options()
        },
        hint_scope: None,
        edits: Vec::new(),
        report: NormalizeReport {
            message_id: top.message_id(),
            ..NormalizeReport::default()
        },
    };
    // Attached messages with a DKIM signature of their own, left as they
    // came under `keep_dkim_signed` (their ranges in the message).
    let mut sealed: Vec<std::ops::Range<usize>> = Vec::new();
    for part in msg.parts() {
        // (Every part, protected or not: an attached message's hint is
        // read at its message/rfc822 part.)
        tld_scope.enter(part, &mut ctx.dopts);
        if part.protected {
            continue;
        }
        let inside = sealed
            .iter()
            .any(|r| r.start <= part.range.start && part.range.end <= r.end);
        let (edits, entries) = (ctx.edits.len(), ctx.report.parts.len());
        normalize_part(&msg, part, &mut ctx)?;
        if inside {
            // Reported as it would have been done, written as it came.
            ctx.edits.truncate(edits);
            for p in &mut ctx.report.parts[entries..] {
                if matches!(p.action, Action::Converted | Action::Replaced) {
                    p.action = Action::Kept;
                }
            }
        } else if opts.keep_dkim_signed
            && let crate::message::PartKind::Message(inner) = &part.kind
            && signed(&inner.header)
        {
            // A forwarded original, the message of an abuse or DMARC
            // failure report: its recipient verifies its signature.
            sealed.push(inner.range.clone());
        }
    }
    let dkim_signed = opts.keep_dkim_signed && signed(&msg.root.header);
    msg.recycle();
    if dkim_signed {
        // Reported as it would have been done, written as it came.
        for p in &mut ctx.report.parts {
            if matches!(p.action, Action::Converted | Action::Replaced) {
                p.action = Action::Kept;
            }
        }
        ctx.report.dkim_signed = true;
        return Ok(Normalized {
            bytes: Cow::Borrowed(raw),
            report: ctx.report,
        });
    }
    let bytes = apply(raw, ctx.edits);
    ctx.report.changed = matches!(bytes, Cow::Owned(_));
    Ok(Normalized {
        bytes,
        report: ctx.report,
    })
}

/// Whether a message's header carries a signature over its body and fields
/// that a rewrite breaks (`Options::keep_dkim_signed`): a `DKIM-Signature`,
/// or an `ARC-Message-Signature` (RFC 8617: the DKIM-like signature a
/// forwarder or a mailing list adds with its seal, which the next hop
/// checks; a message with only an ARC set, its DKIM signature dropped by a
/// list that rewrote it, had its ARC chain broken).
fn signed(header: &crate::mime::HeaderBlock<'_>) -> bool {
    header.get("dkim-signature").is_some() || header.get("arc-message-signature").is_some()
}

fn normalize_part(
    msg: &Message<'_>,
    part: &Part<'_>,
    ctx: &mut Ctx<'_>,
) -> Result<(), NormalizeError> {
    // Fields the body conversion rewrites itself (offsets in the part).
    let mut rewritten: Vec<usize> = Vec::new();
    let start = part.range.start;
    let head = msg
        .raw
        .get(start..start + part.header.header_end)
        .unwrap_or(msg.raw);
    // (Before the body: its conversion rewrites Content-Type parameters.)
    if part.headers_within_limit {
        msg.hint_headers(part, head, &mut ctx.hint_scope, &mut ctx.dopts);
    }
    if part.is_text() {
        body::text_part(msg, part, ctx, &mut rewritten)?;
    }
    if part.headers_within_limit {
        headers::fields(part, head, line_ending_of(msg, part), ctx, &rewritten)?;
    }
    if part.lacks_separator() {
        separator(msg, part, ctx);
    }
    Ok(())
}

/// Writes the empty line a header section ended without, before its body
/// (`Part::lacks_separator`): the output is well-formed, every reader
/// finds the body where this one did, and it parses to the same tree. At
/// the end of the fields inserted there, if any (one edit: two inserts at
/// one offset would be ordered by chance).
///
/// The empty line ends as the line before it does: the fields inserted
/// there (written with [`line_ending_of`]), else the last field (a bare CR
/// after a bare CR: an LF would make the two one CRLF, and the line would
/// not be empty, nor the output normalize to itself), else, in a part
/// without fields, [`line_ending_of`], CRLF when the delimiter line before
/// ends with a bare CR.
fn separator(msg: &Message<'_>, part: &Part<'_>, ctx: &mut Ctx<'_>) {
    use crate::mime::LineEnding;
    let at = part.range.start + part.header.header_end;
    if let Some(e) = ctx.edits.iter_mut().find(|e| e.range == (at..at)) {
        // After a bare CR (the empty line of an enclosing header at the
        // same offset, a message/rfc822 whose message has no header), an
        // LF would make the two one CRLF: one empty line where two are
        // meant, and a second pass wrote the other.
        let le = match line_ending_of(msg, part) {
            LineEnding::Lf if e.bytes.ends_with(b"\r") => LineEnding::Crlf,
            le => le,
        };
        e.bytes.extend_from_slice(le.as_bytes());
        return;
    }
    let le = match part.header.fields.last().map(|f| f.line_ending) {
        Some(LineEnding::None) | None => line_ending_of(msg, part),
        Some(le) => le,
    };
    let le = match le {
        LineEnding::Lf if at > 0 && msg.raw.get(at - 1) == Some(&b'\r') => LineEnding::Crlf,
        le => le,
    };
    ctx.edits.push(Edit {
        range: at..at,
        bytes: le.as_bytes().to_vec(),
    });
}

/// Applies sorted, non-overlapping edits; borrows when there are none (or
/// when they change nothing).
fn apply(raw: &[u8], mut edits: Vec<Edit>) -> Cow<'_, [u8]> {
    edits.retain(|e| raw.get(e.range.clone()) != Some(e.bytes.as_slice()));
    if edits.is_empty() {
        return Cow::Borrowed(raw);
    }
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    let extra: usize = edits.iter().map(|e| e.bytes.len()).sum();
    let mut out = Vec::with_capacity(raw.len() + extra);
    let mut at = 0;
    for e in &edits {
        // Overlapping or out-of-range edits cannot come from the tree; if
        // one ever did, it is skipped rather than corrupting the output.
        if e.range.start < at || e.range.end > raw.len() || e.range.start > e.range.end {
            continue;
        }
        out.extend_from_slice(&raw[at..e.range.start]);
        out.extend_from_slice(&e.bytes);
        at = e.range.end;
    }
    out.extend_from_slice(&raw[at..]);
    if out == raw {
        Cow::Borrowed(raw)
    } else {
        Cow::Owned(out)
    }
}

/// The line end to write in `part`'s header and body: the one its fields
/// use; for a part without fields, its empty separator line's, or without
/// one the first line of its body's; else the message's.
pub(crate) fn line_ending_of(msg: &Message<'_>, part: &Part<'_>) -> crate::mime::LineEnding {
    use crate::mime::LineEnding;
    if part
        .header
        .fields
        .iter()
        .any(|f| f.line_ending != LineEnding::None)
    {
        return part.header.line_ending();
    }
    match part.header.separator {
        Some(le @ (LineEnding::Lf | LineEnding::Crlf)) => le,
        Some(_) => msg.root.header.line_ending(),
        None => {
            let body = part.raw_body(msg);
            match memchr::memchr(b'\n', body) {
                Some(i) if i > 0 && body.get(i - 1) == Some(&b'\r') => LineEnding::Crlf,
                Some(_) => LineEnding::Lf,
                None => msg.root.header.line_ending(),
            }
        }
    }
}

/// The transfer line ending matching a header block's.
pub(crate) fn eol_of(le: crate::mime::LineEnding) -> transfer::Newline {
    match le {
        crate::mime::LineEnding::Lf => transfer::Newline::Lf,
        _ => transfer::Newline::Crlf,
    }
}

/// A label as text, non-UTF-8 bytes escaped (`\xNN`).
pub(crate) fn label_text(label: &[u8]) -> String {
    String::from_utf8(label.to_vec()).unwrap_or_else(|_| {
        label
            .iter()
            .flat_map(|&b| std::ascii::escape_default(b))
            .map(char::from)
            .collect()
    })
}
