//! The analysis: one message in, one [`Record`] per labelled piece of text
//! out.
//!
//! What becomes a record (see `doc/audit.md` for the reasoning):
//!
//! | source | location | label |
//! |---|---|---|
//! | every text/* leaf body | `body` | the `charset` parameter as written, or null; text/html without one: its markup's declaration ([`crate::message::body_label`]) |
//! | the `charset` parameter of any other part (multipart, application/*, message/*) | `param:charset` | as written; the label is checked, the content is not decoded |
//! | each *run* of adjacent encoded-words of one charset (decoded as one octet string, so a character split across words survives) in unstructured fields, display names, comments and group names | `header:<Field-Name as written>` | the run's label |
//! | each RFC 2231 parameter with a charset, and each RFC 2047 run inside a parameter value | `param:<name>` | as written |
//! | a header field holding raw 8-bit octets | `header:<Field-Name>` | null |
//! | a message with none of these | `message` | null (status missing, verdict ok) |
//!
//! Encapsulated messages (message/rfc822, message/global) are walked too;
//! their parts have their IMAP numbers ("2.1", ...).
//!
//! Findings come from the charset layer (codec error kinds map 1:1 to
//! finding kinds), refined here:
//! - an `overlong` finding gets a note naming the characters the overlong
//!   forms spell; one that spells `/`, `\` or `.` in a `filename` or `name`
//!   parameter is called a path traversal attempt;
//! - a NUL, written as is or spelled as an overlong form, is a `nul` finding;
//! - `possible-old-hangul` is decided here (see [`crate::codec::hangul::possible_old_hangul`]) for text
//!   in any charset other than UNICODE-1-1-UTF-8;
//! - malformed encoded-words are reported on the record of their run.
//!
//! The verdict is the charset layer's, refined: a valid text with findings
//! is `suspicious`, one whose only finding was withdrawn is `ok`.

use super::record::{DetectedRecord, Record, Source, escape_label};
use crate::charset::{self, DecodeOptions, Decoded, Unicode11Policy};
use crate::finding::{Finding, FindingKind, LabelStatus, Verdict};
use crate::message::fields::FieldKind;
use crate::message::{LabelSource, Limits, Message, Part, TldScope};
use crate::mime::{
    ContentDisposition, ContentType, DecodedText, Decoding, Field, ParamEncoding, Parameter,
    decode_unstructured_with, parse_address_list_words,
};
use std::sync::Arc;

/// Where a message comes from: the input as the user named it and the
/// message's 0-based position in it.
#[derive(Clone, Copy, Debug)]
pub struct MessageContext<'a> {
    /// The input as the user named it.
    pub input: &'a str,
    /// The message's 0-based position in its input.
    pub index: usize,
}

/// How to audit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AuditOptions {
    /// How UNICODE-1-1-UTF-8 is read (`--unicode11`).
    pub unicode11: Unicode11Policy,
    /// Limits on the part tree.
    pub limits: Limits,
}

impl AuditOptions {
    fn decode_options(&self) -> DecodeOptions {
        DecodeOptions {
            unicode11: self.unicode11,
            detect: true,
            // The auditor reports what is there; repairing is normalize's.
            repair_cesu8: false,
            repair_mixed: false,
            body: false,
            tld: None,
            header_hint: None,
            declared: None,
        }
    }
}

/// Audits one message given as raw bytes (an mbox `From ` line is skipped).
/// Never fails and never panics on input.
pub fn audit_message(raw: &[u8], ctx: &MessageContext<'_>, opts: &AuditOptions) -> Vec<Record> {
    let msg = Message::parse_with(raw, &opts.limits);
    let records = audit_parsed(&msg, ctx, opts);
    msg.recycle();
    records
}

/// Audits a message already parsed with [`Message::parse`].
pub fn audit_parsed(
    msg: &Message<'_>,
    ctx: &MessageContext<'_>,
    opts: &AuditOptions,
) -> Vec<Record> {
    let top = msg.top_fields();
    let tld = top.tld_hint();
    let mut a = Auditor {
        msg,
        dopts: DecodeOptions {
            tld,
            ..opts.decode_options()
        },
        hint_scope: None,
        tld_scope: TldScope::new(tld),
        limits: opts.limits,
        base: Record {
            input: shared_input(ctx.input),
            index: ctx.index,
            message_id: top.message_id_with(|id| Arc::<str>::from(id)),
            part: String::new(),
            // Named "message" only when it becomes a record (below).
            location: String::new(),
            label: None,
            charset: None,
            status: LabelStatus::Missing,
            verdict: Verdict::Ok,
            detected: None,
            findings: Vec::new(),
            year: top.year(),
            source: Source::Message,
        },
        out: Vec::new(),
    };
    msg.each_part(|part| a.part(part));
    if a.out.is_empty() {
        a.base.location = "message".to_string();
        a.out.push(a.base);
    }
    a.out
}

/// The input's name as the records' shared `Arc<str>`: the one of the
/// message before on this thread when the name is the same (every message
/// of an mbox), not an allocation per message.
fn shared_input(input: &str) -> Arc<str> {
    thread_local! {
        static LAST: std::cell::RefCell<Option<Arc<str>>> = const { std::cell::RefCell::new(None) };
    }
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        match &*last {
            Some(arc) if **arc == *input => arc.clone(),
            _ => {
                let arc: Arc<str> = Arc::from(input);
                *last = Some(arc.clone());
                arc
            }
        }
    })
}

struct Auditor<'m, 'a> {
    msg: &'m Message<'a>,
    dopts: DecodeOptions,
    /// Whose `dopts.header_hint` is set ([`Message::hint_headers`]).
    hint_scope: Option<usize>,
    /// Whose `dopts.tld` is set (the message's, or an attached one's).
    tld_scope: TldScope,
    limits: Limits,
    base: Record,
    out: Vec<Record>,
}

impl Auditor<'_, '_> {
    fn record(&self, part: &Part<'_>, location: String, source: Source) -> Record {
        // Field by field: `..self.base.clone()` would copy the base's
        // location and part only to drop them.
        let b = &self.base;
        Record {
            input: b.input.clone(),
            index: b.index,
            message_id: b.message_id.clone(),
            part: part.id.clone(),
            location,
            label: b.label.clone(),
            charset: b.charset,
            status: b.status,
            verdict: b.verdict,
            detected: b.detected.clone(),
            findings: b.findings.clone(),
            year: b.year,
            source,
        }
    }

    fn part(&mut self, part: &Part<'_>) {
        self.tld_scope.enter(part, &mut self.dopts);
        // The usual header section has nothing labelled in any field: one
        // pass over the whole section tells (the test `field` makes first).
        let start = part.range.start;
        let own_head = self.msg.raw.get(start..start + part.header.header_end);
        let head = own_head.unwrap_or(self.msg.raw);
        if part.headers_within_limit
            && let Some(first) = crate::mime::next_decoding_hit(head, 0)
        {
            self.msg
                .hint_headers(part, head, &mut self.hint_scope, &mut self.dopts);
            // Only the fields the section's scan found something in: the
            // others hold nothing `field` would look at (a field's value is
            // part of its `raw`, at `offset` in the section). From each
            // such field's end, the scan goes on.
            let mut hit = own_head.map_or(Some(0), |_| Some(first));
            for field in &part.header.fields {
                let end = field.offset + field.raw.len();
                match hit {
                    None => break,
                    Some(h) if own_head.is_some() && h >= end => continue,
                    _ => {}
                }
                if field.has_name() {
                    self.field(part, field);
                }
                if own_head.is_some() {
                    hit = crate::mime::next_decoding_hit(head, end);
                }
            }
        }
        let ct = if self.dopts.unicode11 == Unicode11Policy::Auto {
            None
        } else {
            part.header
                .get("content-type")
                .map(|f| ContentType::parse_with(f.value, &self.dopts))
        };
        let ct = ct.as_ref().unwrap_or(&part.content_type);
        for p in &ct.params {
            if p.name != "charset" {
                self.parameter(part, p);
            }
        }
        if part.is_text() {
            self.body(part, ct);
        } else if let Some(label) = ct.charset() {
            self.label_only(part, label);
        }
    }

    /// A text/* leaf: its body decoded under its label.
    fn body(&mut self, part: &Part<'_>, ct: &ContentType) {
        let (bytes, transfer_findings) = part.decoded_body(self.msg);
        // The Content-Type's charset, or an HTML part's own declaration.
        let (label, source) = match crate::message::body_label(ct, &bytes) {
            Some((l, LabelSource::ContentType)) => (Some(l), Source::Body),
            Some((l, LabelSource::HtmlMeta)) => (Some(l), Source::HtmlMeta),
            Some((l, LabelSource::HtmlBom)) => (Some(l), Source::HtmlBom),
            Some((l, LabelSource::XmlSignature)) => (Some(l), Source::XmlSignature),
            Some((l, LabelSource::XmlDeclaration)) => (Some(l), Source::XmlDeclaration),
            Some((l, LabelSource::VcardCharset)) => (Some(l), Source::VcardCharset),
            None => (None, Source::Body),
        };
        let body = DecodeOptions {
            body: true,
            declared: crate::message::declared_label(ct, &bytes),
            ..self.dopts
        };
        let d = charset::decode(&bytes, label, &body);
        // No label, or one that failed: a multipart/alternative sibling's
        // charset, when its text has the same words (`message::sibling`).
        let d = crate::message::sibling::reread(self.msg, part, &bytes, label, d, &body);
        let mut r = self.record(part, "body".into(), source);
        fill_decoded(&mut r, label, &d);
        let mut extra = refine(&bytes, &d, None);
        // A damaged transfer coding (`malformed`, the note naming base64 or
        // quoted-printable and the offset in the encoded body): the text is
        // what a reader makes of the damage.
        extra.extend(transfer_findings);
        // A header that ended without its empty line: where the text
        // starts is a reading (doc/message-tree.md).
        extra.extend(part.separator_finding());
        finish(&mut r, extra);
        self.out.push(r);
    }

    /// The `charset` parameter of a part whose content is not text: the
    /// label is resolved, the content is not decoded.
    fn label_only(&mut self, part: &Part<'_>, label: &[u8]) {
        let res = charset::resolve(Some(label));
        let mut r = self.record(part, "param:charset".into(), Source::Body);
        r.label = Some(escape_label(label));
        r.charset = res.charset.map(|c| c.name());
        r.status = res.status;
        if res.charset.is_none() {
            r.verdict = Verdict::UnknownLabel;
            r.findings
                .push(Finding::new(FindingKind::UnknownLabel, 0, 1));
        }
        self.out.push(r);
    }

    fn field(&mut self, part: &Part<'_>, field: &Field<'_>) {
        let location = || format!("header:{}", field.name_str());
        let value = field.value;
        // No 8-bit octet, `=?` or `*`: nothing below can apply.
        if !crate::mime::may_need_decoding(value) {
            return;
        }
        let has_words = memchr::memchr_iter(b'=', value).any(|i| value.get(i + 1) == Some(&b'?'));
        let eight_bit = !value.is_ascii();
        // Most fields hold nothing labelled: decide that before anything else.
        // (RFC 2231 parameters are marked by `*`.)
        let disposition = field.is("content-disposition") && memchr::memchr(b'*', value).is_some();
        // Raw ISO-2022-JP (its escapes in ASCII octets): `raw_iso2022`.
        let esc = !eight_bit && memchr::memchr(0x1B, value).is_some();
        if !has_words && !eight_bit && !disposition && !esc {
            return;
        }
        if has_words && !self.limits.field_within_limits(value) {
            let mut r = self.record(part, location(), Source::EncodedWord);
            finish(&mut r, vec![self.limits.field_finding(0)]);
            self.out.push(r);
            return;
        }
        match FieldKind::of(field.name) {
            FieldKind::Unstructured | FieldKind::Structured if has_words => {
                // Encoded-words are not allowed in structured fields, but
                // mailers write them there (In-Reply-To, References ...): an
                // audit of the labels a corpus uses reports them too.
                let d = decode_unstructured_with(field.value, &self.dopts);
                self.runs(part, &d, field.value, location(), None);
            }
            FieldKind::AddressList if has_words => {
                // The phrases' encoded-words only: names without one, and
                // the addresses, are not decoded (nothing here reads them).
                let list = parse_address_list_words(field.value, &self.dopts);
                let mut seen = Vec::new();
                let phrases = list
                    .mailboxes
                    .iter()
                    .flat_map(|m| m.display_name.iter().chain(m.comments.iter()))
                    .chain(list.groups.iter().map(|g| &g.name));
                for d in phrases {
                    seen.extend(d.words.iter().map(|w| w.offset));
                    self.runs(part, d, field.value, location(), None);
                }
                // Words the address parser did not find in a phrase (inside
                // a broken quoted string, an addr-spec ...) are labels the
                // message uses all the same: decode them as unstructured text.
                // Every word starts with `=?`: when the phrases hold as many
                // words as the value has `=?`, none was missed.
                let starts = memchr::memchr_iter(b'=', value)
                    .filter(|&i| value.get(i + 1) == Some(&b'?'))
                    .count();
                let all = if starts > seen.len() {
                    decode_unstructured_with(field.value, &self.dopts)
                } else {
                    DecodedText::default()
                };
                if all.words.iter().any(|w| !seen.contains(&w.offset)) {
                    let rest = DecodedText {
                        words: all
                            .words
                            .iter()
                            .filter(|w| !seen.contains(&w.offset))
                            .cloned()
                            .collect(),
                        ..all
                    };
                    self.runs(part, &rest, field.value, location(), None);
                }
            }
            FieldKind::Parameters
                if (disposition || (has_words && field.is("content-disposition")))
                    && part.header.get("content-disposition").map(|f| f.offset)
                        == Some(field.offset) =>
            {
                let cd = ContentDisposition::parse_with(field.value, &self.dopts);
                for p in &cd.params {
                    self.parameter(part, p);
                }
            }
            _ => {}
        }
        if eight_bit {
            self.raw8bit(part, field, location());
        } else if esc {
            self.raw_iso2022(part, field, location());
        }
    }

    /// A header field with ISO-2022-JP written raw (`mime::decode_raw`
    /// reads it so): a record naming the charset, `missing-label`. Nothing
    /// when the escapes are no ISO-2022-JP text.
    fn raw_iso2022(&mut self, part: &Part<'_>, field: &Field<'_>, location: String) {
        let (_, Some((dec, finding))) = crate::mime::decode_raw(field.value, 0, &self.dopts) else {
            return;
        };
        let mut r = self.record(part, location, Source::Raw8bit);
        fill(&mut r, None, &dec);
        finish(&mut r, vec![finding]);
        self.out.push(r);
    }

    /// A header field with raw 8-bit octets (RFC 6532 or plain damage).
    fn raw8bit(&mut self, part: &Part<'_>, field: &Field<'_>, location: String) {
        let value = field.value;
        let Some(first) = value.iter().position(|&b| b >= 0x80) else {
            return;
        };
        let count = value.iter().filter(|&&b| b >= 0x80).count();
        let mut r = self.record(part, location, Source::Raw8bit);
        let mut extra = vec![Finding::new(FindingKind::Raw8bitHeader, first, count)];
        let d = charset::decode(value, None, &self.dopts);
        fill_decoded(&mut r, None, &d);
        // `raw-8bit-header` says it all: a header has no label to miss
        // (a `missing-label` with a note says how the octets were read:
        // in the charset of the message's text).
        extra.extend(refine(value, &d, None).into_iter().filter(|f| {
            !matches!(
                f.kind,
                FindingKind::MissingLabel | FindingKind::EightBitInAscii
            ) || f.note.is_some()
        }));
        finish(&mut r, extra);
        self.out.push(r);
    }

    /// An RFC 2231 parameter with a charset, or the RFC 2047 runs of a
    /// parameter value.
    fn parameter(&mut self, part: &Part<'_>, p: &Parameter) {
        let location = format!("param:{}", p.name);
        let filename = matches!(&*p.name, "filename" | "name");
        match p.encoding {
            ParamEncoding::Rfc2231 => {
                let (Some(label), Some(dec)) = (&p.charset, &p.decoding) else {
                    return;
                };
                let mut r = self.record(part, location, Source::Rfc2231);
                fill(&mut r, Some(label), dec);
                let d = charset::decode(&p.raw, Some(label), &self.dopts);
                fill_decoded(&mut r, Some(label), &d);
                let mut extra = refine(&p.raw, &d, Some(filename));
                extra.extend(p.findings.iter().cloned());
                finish(&mut r, extra);
                self.out.push(r);
            }
            ParamEncoding::Rfc2047 => {
                // Word offsets are into the unquoted value (`raw`); the
                // parameter's findings were shifted to the field value.
                let d = DecodedText {
                    words: p.words.clone(),
                    findings: p
                        .findings
                        .iter()
                        .map(|f| Finding {
                            offset: f.offset.saturating_sub(p.offset),
                            ..f.clone()
                        })
                        .collect(),
                    ..DecodedText::default()
                };
                self.runs(part, &d, &p.raw, location, Some(filename));
            }
            ParamEncoding::Plain => {}
        }
    }

    /// One record per run of encoded-words of `d` (whose word offsets are
    /// into `value`).
    fn runs(
        &mut self,
        part: &Part<'_>,
        d: &DecodedText,
        value: &[u8],
        location: String,
        filename: Option<bool>,
    ) {
        let mut i = 0;
        while i < d.words.len() {
            let first = &d.words[i];
            let n = d.words[i..]
                .iter()
                .take_while(|w| w.run == first.run)
                .count()
                .max(1);
            let words = &d.words[i..i + n];
            let mut r = self.record(part, location.clone(), Source::EncodedWord);
            fill(&mut r, Some(&first.label), &first.decoding);
            let mut extra = Vec::new();
            // The run's octets are needed again only to name overlong forms,
            // find NULs or count Extension A.
            match crate::mime::encoded_word::word_octets(value, words) {
                Some(octets) if needs_octets(&first.decoding, &octets) => {
                    let dec = charset::decode(&octets, Some(&first.label), &self.dopts);
                    fill_decoded(&mut r, Some(&first.label), &dec);
                    extra.extend(refine(&octets, &dec, filename));
                }
                _ => {
                    extra.extend(first.decoding.findings.iter().cloned());
                }
            }
            // Malformed-word findings (offsets in the value) of these words.
            for w in words {
                extra.extend(
                    d.findings
                        .iter()
                        .filter(|f| {
                            f.kind == FindingKind::MalformedEncodedWord
                                && (w.offset..w.offset + w.len.max(1)).contains(&f.offset)
                        })
                        .cloned(),
                );
            }
            r.findings.clear();
            finish(&mut r, extra);
            self.out.push(r);
            i += n;
        }
        // Words kept as written (not B or Q): no decoding, but a label the
        // message uses and a finding.
        for f in d.findings.iter().filter(|f| {
            f.kind == FindingKind::MalformedEncodedWord
                && !d
                    .words
                    .iter()
                    .any(|w| (w.offset..w.offset + w.len.max(1)).contains(&f.offset))
        }) {
            let Some(label) = crate::mime::encoded_word::label_at(value, f.offset) else {
                continue;
            };
            let res = charset::resolve(Some(&label));
            let mut r = self.record(part, location.clone(), Source::EncodedWord);
            r.label = Some(escape_label(&label));
            r.charset = res.charset.map(|c| c.name());
            r.status = res.status;
            r.verdict = if res.charset.is_none() {
                Verdict::UnknownLabel
            } else {
                Verdict::Suspicious
            };
            finish(&mut r, vec![f.clone()]);
            self.out.push(r);
        }
    }
}

/// Whether a run needs the audit's own look at its octets (overlong forms
/// to name, NULs, Extension A to count).
fn needs_octets(d: &Decoding, octets: &[u8]) -> bool {
    d.verdict == Verdict::Mislabeled
        || d.findings.iter().any(|f| {
            matches!(
                f.kind,
                FindingKind::Overlong | FindingKind::PossibleOldHangul
            )
        })
        || memchr::memchr(0, octets).is_some()
        || memchr::memchr2(0xE3, 0xE4, octets).is_some()
}

/// Fills label, charset, status, detected and verdict from a decoding.
fn fill(r: &mut Record, label: Option<&[u8]>, d: &Decoding) {
    r.label = label.map(escape_label);
    r.charset = d.resolution.charset.map(|c| c.name());
    r.status = d.resolution.status;
    r.detected = d.detected.map(|det| DetectedRecord {
        charset: det.charset.name().to_string(),
        confidence: det.confidence,
    });
    r.verdict = d.verdict;
}

/// [`fill`] from the charset layer's result.
fn fill_decoded(r: &mut Record, label: Option<&[u8]>, d: &Decoded<'_>) {
    r.label = label.map(escape_label);
    r.charset = d.resolution.charset.map(|c| c.name());
    r.status = d.resolution.status;
    r.detected = d.detected.map(|det| DetectedRecord {
        charset: det.charset.name().to_string(),
        confidence: det.confidence,
    });
    r.verdict = d.verdict;
}

/// Sets the findings and refines the verdict (never above `suspicious` for
/// findings added here; `ok` when nothing is left to say).
fn finish(r: &mut Record, findings: Vec<Finding>) {
    r.findings = findings;
    r.findings.sort_by_key(|f| (f.offset, f.kind));
    r.verdict = r.verdict.settle(&r.findings);
}

/// The charset layer's findings refined with what the audit adds: named
/// overlong forms, NULs, and its own `possible-old-hangul` decision.
/// `filename`: Some(true) for a filename/name parameter.
fn refine(bytes: &[u8], d: &Decoded<'_>, filename: Option<bool>) -> Vec<Finding> {
    let mut out: Vec<Finding> = d.findings.clone();
    let utf8_family = d.used.is_some_and(|c| c.is_utf8() || c.is_unicode11_utf8());
    // Overlong forms: what they spell.
    let mut nul_at: Option<(usize, usize, &'static str)> = None;
    if utf8_family && let Some(i) = out.iter().position(|f| f.kind == FindingKind::Overlong) {
        let spelled = overlong_values(bytes);
        let mut names: Vec<String> = Vec::new();
        for &(_, v) in &spelled {
            let name = match char::from_u32(v) {
                Some('\0') => "U+0000 (NUL)".to_string(),
                Some(c) if c.is_ascii_graphic() => format!("'{c}'"),
                _ => format!("U+{v:04X}"),
            };
            if !names.contains(&name) {
                names.push(name);
            }
        }
        let traversal = filename == Some(true)
            && spelled
                .iter()
                .any(|&(_, v)| matches!(v, 0x2F | 0x5C | 0x2E));
        if !names.is_empty() {
            let mut note = format!("overlong forms spell {}", names.join(" "));
            if traversal {
                note.push_str(": path traversal attempt in a file name");
            }
            out[i] = out[i].clone().with_note(note);
        }
        let nuls: Vec<usize> = spelled
            .iter()
            .filter(|&&(_, v)| v == 0)
            .map(|&(o, _)| o)
            .collect();
        if let Some(&first) = nuls.first() {
            nul_at = Some((first, nuls.len(), "NUL spelled as an overlong form"));
        }
    }
    // A text that is its octets (ASCII or UTF-8, borrowed) and holds
    // neither NUL nor E3 or E4 (the lead octets of U+3400..U+4DFF) has no
    // NUL and no possible old Hangul: one scan for the three instead of one
    // for NUL below and one for the leads in `possible_old_hangul`.
    let ascii_compatible = d.used.is_some_and(|c| c.is_ascii_compatible());
    let is_octets = std::ptr::eq(d.text.as_ptr(), bytes.as_ptr()) && d.text.len() == bytes.len();
    if ascii_compatible
        && is_octets
        && nul_at.is_none()
        && memchr::memchr3(0, 0xE3, 0xE4, bytes).is_none()
    {
        return out;
    }
    // NUL written as is.
    let literal = if ascii_compatible {
        memchr::memchr(0, bytes).map(|o| (o, 1 + memchr::memchr_iter(0, &bytes[o + 1..]).count()))
    } else {
        let n = d.text.matches('\0').count();
        d.text.find('\0').map(|o| (o, n))
    };
    match (nul_at, literal) {
        (Some((o, n, note)), Some((o2, n2))) => out.push(
            Finding::new(FindingKind::Nul, o.min(o2), n + n2)
                .with_note(format!("{note}, and NUL written as is")),
        ),
        (Some((o, n, note)), None) => {
            out.push(Finding::new(FindingKind::Nul, o, n).with_note(note))
        }
        (None, Some((o, n))) => {
            out.push(Finding::new(FindingKind::Nul, o, n).with_note("NUL in text"))
        }
        (None, None) => {}
    }
    out.extend(charset::possible_old_hangul(d));
    out
}

/// Every overlong form in `bytes` (2 to 6 octets, RFC 2279 sense) with its
/// offset and the value it spells.
pub(crate) fn overlong_values(bytes: &[u8]) -> Vec<(usize, u32)> {
    crate::codec::utf8::complete_sequences(bytes)
        .filter(|&(_, len, v)| v < crate::codec::utf8::shortest_min(len))
        .map(|(at, _, v)| (at, v))
        .collect()
}

/// Audits a message a gateway already parsed with mail-parser 0.11
/// (Stalwart and others): the records of [`audit_message`] over the bytes
/// mail-parser keeps (`raw_message`), without reading or copying the
/// message again.
///
/// The part tree is walked again over those bytes: it is byte ranges only
/// (no copies, no decoding beyond what the audit needs), and it keeps the
/// records identical to [`audit_message`]'s, whatever mail-parser's own
/// leniencies are.
#[cfg(feature = "mail-parser")]
pub fn from_mail_parser(
    msg: &mail_parser::Message<'_>,
    ctx: &MessageContext<'_>,
    opts: &AuditOptions,
) -> Vec<Record> {
    audit_message(msg.raw_message(), ctx, opts)
}
