//! The part tree of a message: multipart bodies split at their boundaries,
//! message/rfc822 and message/global recursed into, limits that turn
//! pathological input into findings instead of failures, and transfer
//! decoding of leaf bodies.
//!
//! Every part records byte ranges into the original message, so a consumer
//! can copy what it does not change byte for byte (see `normalize`): the
//! tree never owns or rewrites the input.
//!
//! Recovery decisions (each also named where it is implemented):
//! - a boundary delimiter is recognised only at the start of a line
//!   (after LF, CR, or at the start of the body), and only when what follows
//!   `--boundary` on that line is `--` and/or white space: a longer line that
//!   merely starts with the boundary is content (RFC 2046 5.1.1);
//! - a multipart with no final delimiter ends at the end of its body
//!   (`malformed` finding); one with no delimiter at all is kept as a leaf;
//! - the line end before a delimiter belongs to the delimiter (RFC 2046), so
//!   part bodies exclude it;
//! - a part beyond a limit (depth, part count) is kept whole as an opaque
//!   leaf with a `limit-reached` finding;
//! - a header section ends before its first line that is neither a field
//!   nor a continuation (no empty line before the body, as Python's
//!   `email` reads it), unless that line is a broken fold between fields
//!   ([`crate::mime::parse_header_block`]; [`Part::lacks_separator`]);
//! - a part of a multipart/digest without a Content-Type is message/rfc822
//!   (RFC 2046 5.1.5), and its message is parsed;
//! - message/rfc822 with a base64 or quoted-printable transfer coding (not
//!   allowed by RFC 2046 5.2.1, seen in real mail) is kept as a leaf;
//! - a leading mbox `From ` line (after a BOM and blank lines, if any) is
//!   skipped as an envelope, kept verbatim.

pub mod fields;
pub(crate) mod sibling;
pub mod transfer;

use crate::charset::{Charset, DecodeOptions};
use crate::finding::{Finding, FindingKind};
use crate::mime::{ContentType, Field, HeaderBlock, TransferEncoding, parse_header_block_sized};
use std::borrow::Cow;
use std::ops::Range;

/// Limits on the part tree. A limit that is reached produces a
/// `limit-reached` finding and the rest is kept as it is, never dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Nesting depth of multiparts and encapsulated messages.
    pub max_depth: usize,
    /// Parts in one message (all levels together).
    pub max_parts: usize,
    /// Octets in one header block; a larger block is parsed for structure
    /// but its fields are not decoded or rewritten.
    pub max_header_bytes: usize,
    /// Encoded-words decoded in one header field.
    pub max_encoded_words: usize,
}

impl Limits {
    /// Whether a header field value may be decoded: at most
    /// [`Limits::max_encoded_words`] encoded-word openers (`=?` and a
    /// charset name; the `=?=` of a padded base64 word's end is not one). A field
    /// over the limit is kept as written, with a `limit-reached` finding
    /// from [`Limits::field_finding`].
    pub fn field_within_limits(&self, value: &[u8]) -> bool {
        // An opener is followed by a charset name: `=?=` is base64 padding
        // before a closer (`w6k=?=`), `=??` no word at all.
        memchr::memmem::find_iter(value, b"=?")
            .filter(|&i| value.get(i + 2).is_some_and(|&b| b != b'=' && b != b'?'))
            .nth(self.max_encoded_words)
            .is_none()
    }

    /// The finding for a field over [`Limits::field_within_limits`].
    pub fn field_finding(&self, offset: usize) -> Finding {
        Finding::new(FindingKind::LimitReached, offset, 1)
            .with_note("more encoded-words than max_encoded_words: the field is kept as written")
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 64,
            max_parts: 10_000,
            max_header_bytes: 1 << 20,
            max_encoded_words: 1_000,
        }
    }
}

/// A parsed message. Borrows the input.
#[derive(Clone, Debug)]
pub struct Message<'a> {
    /// The whole input.
    pub raw: &'a [u8],
    /// A leading mbox `From ` line (with its line end), if any.
    pub envelope: Option<Range<usize>>,
    /// The top-level part (the message itself).
    pub root: Part<'a>,
    /// Findings about the message as a whole (limits, envelope).
    pub findings: Vec<Finding>,
}

/// One part: its header block and body, with absolute ranges.
#[derive(Clone, Debug)]
pub struct Part<'a> {
    /// IMAP-style part number: "1", "1.2"; empty for a root multipart.
    pub id: String,
    /// Depth: 0 for the root.
    pub depth: usize,
    /// The whole part (header block and body) in the message.
    pub range: Range<usize>,
    /// Field offsets in `header` are relative to `range.start`.
    pub header: HeaderBlock<'a>,
    /// False when the header block is over [`Limits::max_header_bytes`]:
    /// consumers keep its fields as written.
    pub headers_within_limit: bool,
    /// Its Content-Type (the default when absent or unparsable).
    pub content_type: ContentType,
    /// Its Content-Transfer-Encoding.
    pub transfer_encoding: TransferEncoding,
    /// The body as it is in the message (still transfer-encoded).
    pub body: Range<usize>,
    /// A leaf, a multipart, or an encapsulated message.
    pub kind: PartKind<'a>,
    /// True inside multipart/signed or multipart/encrypted: the bytes are
    /// covered by a signature or are ciphertext and must not change.
    pub protected: bool,
    /// Structural findings (offsets absolute in the message).
    pub findings: Vec<Finding>,
}

/// What a part's body is.
#[derive(Clone, Debug)]
pub enum PartKind<'a> {
    /// A leaf: text, attachment, or anything kept opaque.
    Leaf,
    /// A multipart and its parts.
    Multipart(Multipart<'a>),
    /// message/rfc822 or message/global: the encapsulated message's root.
    Message(Box<Part<'a>>),
}

/// A multipart body.
#[derive(Clone, Debug)]
pub struct Multipart<'a> {
    /// The boundary, as written.
    pub boundary: Vec<u8>,
    /// Before the first delimiter.
    pub preamble: Range<usize>,
    /// The parts, in order.
    pub parts: Vec<Part<'a>>,
    /// After the close delimiter (empty when there is none).
    pub epilogue: Range<usize>,
    /// Whether a close delimiter (`--boundary--`) was found.
    pub closed: bool,
}

impl<'a> Message<'a> {
    /// Parses with the default [`Limits`]. Never fails.
    pub fn parse(raw: &'a [u8]) -> Self {
        Self::parse_with(raw, &Limits::default())
    }

    /// Parses with explicit limits. Never fails.
    pub fn parse_with(raw: &'a [u8], limits: &Limits) -> Self {
        let mut findings = Vec::new();
        let envelope = envelope_line(raw);
        let start = envelope.as_ref().map_or(0, |r| r.end);
        let mut ctx = Ctx {
            raw,
            limits,
            parts: 0,
            limit_reported: false,
        };
        let root = ctx.part(
            start..raw.len(),
            String::new(),
            0,
            false,
            false,
            MESSAGE_FIELDS,
        );
        if ctx.limit_reported {
            findings.push(
                Finding::new(FindingKind::LimitReached, 0, 1)
                    .with_note("part count or depth limit reached: the rest kept as it is"),
            );
        }
        Message {
            raw,
            envelope,
            root,
            findings,
        }
    }

    /// All parts, depth first, in message order (the root first).
    pub fn parts(&self) -> Vec<&Part<'a>> {
        let mut out = Vec::new();
        self.each_part(|p| out.push(p));
        out
    }

    /// [`Message::parts`] handed to `f` one by one, in the same order,
    /// without the vector (nor, for a message of one part, the walk).
    pub(crate) fn each_part<'m>(&'m self, mut f: impl FnMut(&'m Part<'a>)) {
        // A message of one part (most mail) needs no walk.
        if matches!(self.root.kind, PartKind::Leaf) {
            return f(&self.root);
        }
        let mut stack = vec![&self.root];
        while let Some(p) = stack.pop() {
            f(p);
            match &p.kind {
                PartKind::Leaf => {}
                PartKind::Message(inner) => stack.push(inner),
                PartKind::Multipart(m) => stack.extend(m.parts.iter().rev()),
            }
        }
    }

    /// Done with the message: keeps the allocation of its own header's
    /// vector of fields for the next message parsed on this thread.
    /// Dropping the message instead is as correct, only slower.
    pub(crate) fn recycle(self) {
        crate::mime::recycle_fields(self.root.header.fields);
    }

    /// The Message-ID of the top-level header, without angle brackets.
    pub fn message_id(&self) -> Option<String> {
        self.top_fields().message_id()
    }

    /// The top-level domain the message came from (the sender's, else the
    /// Message-ID's): the detector's hint for unlabelled text.
    pub fn tld_hint(&self) -> Option<crate::charset::Tld> {
        self.top_fields().tld_hint()
    }

    /// The charset the message's text is in: the first text/* leaf whose
    /// body holds 8-bit octets, under a label (or an HTML or XML
    /// declaration), and that the charset decision reads without a
    /// replacement and not as binary, when it reads it in an
    /// ASCII-compatible charset (a lie is taken as what the decision
    /// read). The likeliest charset of raw 8-bit header octets
    /// ([`DecodeOptions::header_hint`]): the mailers that write them
    /// (Outlook Express, The Bat!, Eudora) write them in the charset of
    /// the body. A label over ASCII text (`iso-8859-1` is many a mailer's
    /// default) tells nothing and is passed over. A UTF-8 body is a hint
    /// for octets that are damaged UTF-8 only (a Cyrillic or Devanagari
    /// Subject with one damaged octet beside it was read whole as GBK);
    /// octets UTF-8 does not read are detection's, as without a hint.
    ///
    /// The message's own text only: a message attached to it
    /// (message/rfc822) was written by another mailer, often in another
    /// charset (a French Subject read as windows-1250, `Réunion ŕ Genčve`,
    /// because the forwarded message was Czech).
    pub fn text_charset(&self, opts: &DecodeOptions) -> Option<&'static Charset> {
        self.text_charset_in(&self.root, opts)
    }

    /// [`Message::text_charset`] of the message whose top-level part is
    /// `scope` (the root, or a message/rfc822 part's message), not
    /// looking into the messages attached to it.
    fn text_charset_in(&self, scope: &Part<'a>, opts: &DecodeOptions) -> Option<&'static Charset> {
        let body = DecodeOptions {
            body: true,
            header_hint: None,
            ..*opts
        };
        let mut stack = vec![scope];
        while let Some(part) = stack.pop() {
            match &part.kind {
                PartKind::Multipart(m) => {
                    stack.extend(m.parts.iter().rev());
                    continue;
                }
                PartKind::Message(_) => continue,
                PartKind::Leaf => {}
            }
            if !part.is_text() {
                continue;
            }
            let (bytes, _) = part.decoded_body(self);
            if crate::codec::is_ascii(&bytes) {
                continue;
            }
            let Some((label, _)) = body_label(&part.content_type, &bytes) else {
                continue;
            };
            let d = crate::charset::decode(&bytes, Some(label), &body);
            if d.replacements == 0
                && !d.binary
                && let Some(cs) = d.used
                && cs.is_ascii_compatible()
                && !cs.is_unicode11_utf8()
            {
                return Some(cs);
            }
        }
        None
    }

    /// The top-level part of the message `part` belongs to: the root, or
    /// the innermost message/rfc822 part's message holding it.
    fn scope_of(&self, part: &Part<'a>) -> &Part<'a> {
        let at = part.range.start;
        let mut scope = &self.root;
        let mut stack = vec![&self.root];
        while let Some(p) = stack.pop() {
            match &p.kind {
                PartKind::Leaf => {}
                PartKind::Multipart(m) => stack.extend(m.parts.iter()),
                PartKind::Message(inner) => {
                    if inner.range.contains(&at) {
                        scope = inner;
                        stack.clear();
                        stack.push(inner);
                    }
                }
            }
        }
        scope
    }

    /// Sets `opts.header_hint` to the [`Message::text_charset`] of the
    /// message `part` belongs to (itself, or one attached to it) when its
    /// header section `head` holds 8-bit octets that are not UTF-8, where
    /// it is used. `scope` remembers whose hint is set (the top-level
    /// part's offset), so a message's bodies are looked at once, and only
    /// when one of its header sections needs them.
    pub(crate) fn hint_headers(
        &self,
        part: &Part<'a>,
        head: &[u8],
        scope: &mut Option<usize>,
        opts: &mut DecodeOptions,
    ) {
        if head.is_ascii() || simdutf8::basic::from_utf8(head).is_ok() {
            return;
        }
        let owner = if part.depth == 0 {
            &self.root
        } else {
            self.scope_of(part)
        };
        if *scope != Some(owner.range.start) {
            *scope = Some(owner.range.start);
            opts.header_hint = self.text_charset_in(owner, opts);
        }
    }

    /// The year of the top-level Date field, if it has a plausible one.
    pub fn year(&self) -> Option<u16> {
        self.top_fields().year()
    }

    /// The From, Message-ID and Date fields of the top-level header (the
    /// first of each), found in one pass: every record of a message wants
    /// all three, and a pass per name was 1% of an audit.
    pub(crate) fn top_fields(&self) -> TopFields<'_, 'a> {
        TopFields::of(&self.root.header)
    }
}

/// The top-level-domain hint ([`DecodeOptions::tld`]) of the message each
/// part belongs to. A message attached to another (message/rfc822, a
/// multipart/digest item) was sent by someone else, from elsewhere: its
/// own From or Message-ID is the hint for its parts (Hebrew forwarded by a
/// `.gr` sender was read as Greek, GBK in a digest from a `.jp` list as
/// windows-1252). An attached message with neither field keeps the hint
/// of the message around it.
pub(crate) struct TldScope {
    /// The hint of the message itself ([`Message::tld_hint`]).
    top: Option<crate::charset::Tld>,
    /// The attached messages the walk is inside, innermost last: the depth
    /// of the message/rfc822 part and the hint of its message.
    attached: Vec<(usize, Option<crate::charset::Tld>)>,
}

impl TldScope {
    /// For a message whose own hint is `top`.
    pub(crate) fn new(top: Option<crate::charset::Tld>) -> Self {
        TldScope {
            top,
            attached: Vec::new(),
        }
    }

    /// Sets `opts.tld` for `part`, the parts handed in
    /// [`Message::each_part`]'s order, every one. Each attached message's
    /// fields are read once; a message with nothing attached (most mail)
    /// costs a test per part.
    pub(crate) fn enter(&mut self, part: &Part<'_>, opts: &mut DecodeOptions) {
        let inner = match &part.kind {
            PartKind::Message(inner) => Some(inner),
            _ => None,
        };
        if self.attached.is_empty() && inner.is_none() {
            return;
        }
        // Out of the attached messages whose parts are done (a part of one
        // is deeper than its message/rfc822 part).
        while self
            .attached
            .last()
            .is_some_and(|&(depth, _)| part.depth <= depth)
        {
            self.attached.pop();
        }
        let here = self.attached.last().map_or(self.top, |&(_, tld)| tld);
        opts.tld = here;
        if let Some(inner) = inner {
            let own = TopFields::of(&inner.header).tld_hint();
            self.attached.push((part.depth, own.or(here)));
        }
    }
}

impl<'m, 'a> TopFields<'m, 'a> {
    /// The first From, Message-ID and Date of a header section.
    fn of(header: &'m HeaderBlock<'a>) -> Self {
        let mut t = TopFields {
            from: None,
            message_id: None,
            date: None,
        };
        for f in &header.fields {
            let slot = match f.name.len() {
                4 if f.is("from") => &mut t.from,
                4 if f.is("date") => &mut t.date,
                10 if f.is("message-id") => &mut t.message_id,
                _ => continue,
            };
            if slot.is_none() {
                *slot = Some(f);
            }
        }
        t
    }
}

/// The top-level fields [`Message::top_fields`] found.
pub(crate) struct TopFields<'m, 'a> {
    from: Option<&'m Field<'a>>,
    message_id: Option<&'m Field<'a>>,
    date: Option<&'m Field<'a>>,
}

impl TopFields<'_, '_> {
    /// As [`Message::message_id`].
    pub(crate) fn message_id(&self) -> Option<String> {
        self.message_id_with(str::to_string)
    }

    /// The Message-ID handed to `make` as a borrowed `&str`, without
    /// angle brackets: an audit makes its shared `Arc<str>` from it
    /// without a `String` first.
    pub(crate) fn message_id_with<T>(&self, make: impl FnOnce(&str) -> T) -> Option<T> {
        let unfolded = self.message_id?.unfolded();
        let v = crate::mime::lexer::lossy(&unfolded);
        message_id_in(&v).map(make)
    }

    /// As [`Message::tld_hint`].
    pub(crate) fn tld_hint(&self) -> Option<crate::charset::Tld> {
        crate::charset::Tld::for_message(
            self.from.map(|f| f.value),
            self.message_id.map(|f| f.value),
        )
    }

    /// As [`Message::year`].
    pub(crate) fn year(&self) -> Option<u16> {
        let v = self.date?.unfolded();
        // RFC 5322 date-time: [day-of-week ","] day month year time zone.
        // The first 4-digit token between 1970 and 2200 is the year
        // (obsolete 2-digit years are mapped per RFC 5322 4.3). An ASCII
        // value (every real one) is split on its octets; another on
        // Unicode white space, as text.
        if v.is_ascii() {
            year_in(v.split(|&b| b.is_ascii_whitespace() || b == 0x0B || b == b','))
        } else {
            let text = crate::mime::lexer::lossy(&v);
            year_in(
                text.split(|c: char| c.is_whitespace() || c == ',')
                    .map(str::as_bytes),
            )
        }
    }
}

/// The year in the words of a Date value (see [`TopFields::year`]).
fn year_in<'w>(words: impl Iterator<Item = &'w [u8]>) -> Option<u16> {
    let number = |w: &[u8]| {
        w.iter().try_fold(0u16, |n, &b| {
            b.is_ascii_digit().then(|| n * 10 + u16::from(b - b'0'))
        })
    };
    let mut prev_was_month = false;
    for w in words {
        if w.len() == 4
            && let Some(y) = number(w)
        {
            return (1970..=2200).contains(&y).then_some(y);
        }
        if prev_was_month
            && w.len() == 2
            && let Some(y) = number(w)
        {
            return Some(if y < 50 { 2000 + y } else { 1900 + y });
        }
        prev_was_month =
            w.len() == 3 && MONTHS.iter().any(|m| w.eq_ignore_ascii_case(m.as_bytes()));
    }
    None
}

/// The Message-ID in an unfolded field value: white space trimmed, the
/// text between the leading `<`s and the first `>`, trimmed again.
fn message_id_in(v: &str) -> Option<&str> {
    let v = v.trim().trim_start_matches('<');
    let v = v.split('>').next().unwrap_or("").trim();
    (!v.is_empty()).then_some(v)
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

impl<'a> Part<'a> {
    /// The bytes of the whole part.
    pub fn raw<'m>(&self, msg: &Message<'m>) -> &'m [u8] {
        &msg.raw[self.range.clone()]
    }

    /// The body as it is in the message (transfer-encoded).
    pub fn raw_body<'m>(&self, msg: &Message<'m>) -> &'m [u8] {
        &msg.raw[self.body.clone()]
    }

    /// The body after transfer decoding, with findings about the coding
    /// (offsets relative to the body). Borrows for 7bit/8bit/binary, and
    /// for text labelled base64 ([`Part::transfer_decoded`]).
    pub fn decoded_body<'m>(&self, msg: &Message<'m>) -> (Cow<'m, [u8]>, Vec<Finding>) {
        let d = self.transfer_decoded(msg);
        (d.bytes, d.findings)
    }

    /// [`Part::decoded_body`] with whether the body was not in its coding
    /// at all (`not_encoded`: text labelled base64, returned as it stands;
    /// see [`transfer`]'s module notes).
    pub fn transfer_decoded<'m>(&self, msg: &Message<'m>) -> transfer::TransferDecoded<'m> {
        let body = self.raw_body(msg);
        let cte = match &self.transfer_encoding {
            TransferEncoding::Base64 => transfer::Cte::Base64,
            TransferEncoding::QuotedPrintable => transfer::Cte::QuotedPrintable,
            _ => transfer::Cte::Binary,
        };
        transfer::decode(cte, body)
    }

    /// Whether the header section ended without its empty line before a
    /// body: before a line that is not a field
    /// ([`crate::mime::parse_header_block`]), or at a multipart's first
    /// delimiter. Normalize writes the empty line.
    pub fn lacks_separator(&self) -> bool {
        self.header.separator.is_none() && !self.body.is_empty()
    }

    /// The `malformed` finding a text body's record carries when its
    /// header section ended without the empty line (offset 0: the body
    /// starts at the line taken for its first), the reading of where the
    /// header ends being a guess.
    pub fn separator_finding(&self) -> Option<Finding> {
        self.lacks_separator()
            .then(|| crate::mime::malformed(0, crate::mime::NO_SEPARATOR))
    }

    /// True for a leaf whose media type is text/*.
    pub fn is_text(&self) -> bool {
        matches!(self.kind, PartKind::Leaf) && self.content_type.media_type == "text"
    }

    /// True for a file the sender attached: `Content-Disposition:
    /// attachment`, or a file name (the disposition's `filename`, the
    /// Content-Type's `name`). Mailers name the files they attach, also
    /// those shown inline (a patch, a log), and not the text they send.
    pub fn is_file(&self) -> bool {
        self.content_type.param("name").is_some()
            || self
                .header
                .content_disposition()
                .is_some_and(|cd| cd.is_attachment() || cd.param("filename").is_some())
    }

    /// Absolute range of a header field's raw bytes.
    pub fn field_range(&self, field: &crate::mime::Field<'_>) -> Range<usize> {
        let start = self.range.start + field.offset;
        start..start + field.raw.len()
    }
}

/// Where the charset label of a text body comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LabelSource {
    /// The `charset` parameter of the part's Content-Type.
    ContentType,
    /// text/html without a `charset` parameter: the byte order mark.
    HtmlBom,
    /// text/html without a `charset` parameter: the first `<meta>` that
    /// declares a charset in the first 64 KiB (WHATWG prescan, looking
    /// further: `mime::HTML_DECLARATION_LIMIT`).
    HtmlMeta,
    /// XML text (text/xml, text/*+xml) without a `charset` parameter: the
    /// byte order mark, or `<?` in UTF-16 (RFC 7303, XML 1.0 appendix F).
    XmlSignature,
    /// XML text without a `charset` parameter: the `encoding` of the XML
    /// declaration that opens it.
    XmlDeclaration,
    /// A vCard or vCalendar 1.0/2.1 (text/x-vcard, text/vcard,
    /// text/directory, text/x-vcalendar, text/calendar) without a `charset`
    /// parameter: the `CHARSET=` its properties with 8-bit text name.
    VcardCharset,
}

/// The charset label of a text body (`body` after transfer decoding) and
/// where it comes from; None when it has none. The Content-Type's `charset`
/// parameter when there is one, whatever the markup says (the transport
/// label wins, as in WHATWG's encoding sniffing, and is decided on its own
/// evidence); for text/html without one, the document's own declaration
/// ([`crate::mime::html_charset`]: a byte order mark, else the `<meta>`
/// prescan), for XML text (text/xml, text/*+xml, RFC 7303) its byte order
/// mark or XML declaration ([`crate::mime::xml_charset`]), for a vCard or
/// vCalendar 1.0/2.1 the `CHARSET=` of its properties with 8-bit text
/// (when they agree). Normalize and audit both take a body's label from here, and
/// hand it to the charset decision like any label: a `<meta>` that lies is
/// caught by the evidence as a Content-Type that lies is.
///
/// ```
/// use mailcharset::message::{LabelSource, body_label};
/// use mailcharset::mime::ContentType;
/// let html = b"<html><head><meta charset=\"iso-8859-2\"></head>";
/// let bare = ContentType::parse(b"text/html");
/// assert_eq!(body_label(&bare, html), Some((&b"iso-8859-2"[..], LabelSource::HtmlMeta)));
/// let labelled = ContentType::parse(b"text/html; charset=utf-8");
/// assert_eq!(body_label(&labelled, html), Some((&b"utf-8"[..], LabelSource::ContentType)));
/// let plain = ContentType::parse(b"text/plain");
/// assert_eq!(body_label(&plain, html), None);
/// ```
pub fn body_label<'s>(ct: &'s ContentType, body: &'s [u8]) -> Option<(&'s [u8], LabelSource)> {
    if let Some(label) = ct.charset() {
        return Some((label, LabelSource::ContentType));
    }
    markup_label(ct, body)
}

/// The charset a body's markup declares (an XML part's byte order mark or
/// declaration, an HTML part's byte order mark or `<meta>`, a vCard's
/// property `CHARSET=`), when its
/// Content-Type has a `charset` too that resolves to another charset: the
/// decision's first candidate ([`crate::charset::DecodeOptions::declared`]).
/// A Content-Type over ISO-8859-2 HTML that says `utf-8` or `us-ascii` had
/// its text read as windows-1252 (`veæ` for `već`); under `iso-8859-1`,
/// kept so (`Profilovací èasovaè`), while the page's own `<meta>` named the
/// charset.
pub fn declared_label(ct: &ContentType, body: &[u8]) -> Option<&'static Charset> {
    let written = ct.charset()?;
    // The markup first: most bodies are text/plain, which has none, and
    // their label was resolved here for nothing (1% of an audit).
    let (label, _) = markup_label(ct, body)?;
    let labelled = crate::charset::resolve(Some(written)).charset?;
    let declared = crate::charset::resolve(Some(label)).charset?;
    (declared.decoder_name() != labelled.decoder_name()).then_some(declared)
}

fn markup_label<'s>(ct: &'s ContentType, body: &'s [u8]) -> Option<(&'s [u8], LabelSource)> {
    if ct.media_type != "text" {
        return None;
    }
    if crate::mime::is_xml(&ct.subtype) {
        return match crate::mime::xml_charset(body)? {
            crate::mime::XmlCharset::Signature(name) => {
                Some((name.as_bytes(), LabelSource::XmlSignature))
            }
            crate::mime::XmlCharset::Declared(range) => {
                Some((body.get(range)?, LabelSource::XmlDeclaration))
            }
        };
    }
    if crate::mime::is_directory(&ct.subtype) {
        let range = crate::mime::vcard_charset(body)?;
        return Some((body.get(range)?, LabelSource::VcardCharset));
    }
    if ct.subtype != "html" {
        return None;
    }
    match crate::mime::html_charset(body)? {
        crate::mime::HtmlCharset::Bom(name) => Some((name.as_bytes(), LabelSource::HtmlBom)),
        crate::mime::HtmlCharset::Meta { range, instead } => Some((
            instead.map_or_else(|| body.get(range).unwrap_or_default(), str::as_bytes),
            LabelSource::HtmlMeta,
        )),
    }
}

/// Room for header fields in a message's own header (30 on average in the
/// linux-mips archive): most never grow the vector, a realloc that copies
/// the fields.
const MESSAGE_FIELDS: usize = 48;
/// Room for header fields in a body part's header (two or three): 768
/// octets, which glibc serves from its per-thread cache.
const PART_FIELDS: usize = 8;

struct Ctx<'a, 'l> {
    raw: &'a [u8],
    limits: &'l Limits,
    parts: usize,
    limit_reported: bool,
}

/// Gives `part` and every part inside it the number `to` in place of the
/// first `from` octets of its own (a prefix all of them share).
fn renumber(part: &mut Part<'_>, from: usize, to: &str) {
    part.id = format!("{to}{}", part.id.get(from..).unwrap_or_default());
    match &mut part.kind {
        PartKind::Leaf => {}
        PartKind::Multipart(m) => {
            for p in &mut m.parts {
                renumber(p, from, to);
            }
        }
        PartKind::Message(inner) => renumber(inner, from, to),
    }
}

impl<'a> Ctx<'a, '_> {
    /// `fields`: room for that many header fields before the vector grows
    /// ([`MESSAGE_FIELDS`] for a message's own header, [`PART_FIELDS`] for a
    /// body part's). `in_digest`: a part of a multipart/digest, whose
    /// default type is message/rfc822 (RFC 2046 5.1.5).
    fn part(
        &mut self,
        range: Range<usize>,
        id: String,
        depth: usize,
        protected: bool,
        in_digest: bool,
        fields: usize,
    ) -> Part<'a> {
        self.parts += 1;
        let bytes = &self.raw[range.clone()];
        let header = parse_header_block_sized(bytes, fields);
        let mut findings: Vec<Finding> = header
            .findings
            .iter()
            .map(|f| Finding {
                offset: f.offset + range.start,
                ..f.clone()
            })
            .collect();
        let headers_within_limit = header.body_offset <= self.limits.max_header_bytes;
        if !headers_within_limit {
            findings.push(
                Finding::new(FindingKind::LimitReached, range.start, header.body_offset)
                    .with_note("header block over the size limit: its fields are kept as written"),
            );
        }
        // A part of a multipart/digest without a Content-Type is a message
        // (RFC 2046 5.1.5), not text/plain: read as text, its header and
        // attachments were converted as one text (doc/message-tree.md).
        // Unless nothing says it is one: no field in the part's header and
        // a body that does not start with a field (a note written into the
        // digest) stays text, converted and audited as before, instead of
        // being taken for a message whose header is that text. Lines that
        // start with white space before the first field (a line of white
        // space, an indented first field) are header lines of the message
        // (continuations, as Python's `email` reads them): taken for a
        // note, the whole message was converted as one text.
        let content_type = if in_digest
            && header.get("content-type").is_none()
            && (header.fields.iter().any(|f| !f.name.is_empty())
                || crate::mime::starts_with_field_after_continuations(
                    bytes.get(header.body_offset..).unwrap_or_default(),
                )) {
            ContentType::digest_default()
        } else {
            header.content_type()
        };
        let transfer_encoding = header.transfer_encoding();
        // Recovery: a multipart whose header block swallowed its own first
        // delimiter (no empty line, or a "blank" line holding white space,
        // which folds) ends its header block at that delimiter line.
        // The fields before it are the header (not parsed again: cut short
        // there, a broken fold before it would no longer be one). Only
        // when the Content-Type that makes it a multipart is among them: a
        // delimiter line above the Content-Type is no delimiter of its
        // (cut there, the part was still read as that multipart, from a
        // field no longer in its header, and normalize wrote its empty
        // line there: a message read as a multipart went out as text/plain
        // holding the parts, and a second pass converted that text). The
        // first delimiter line below the Content-Type, then: with one above
        // it as well (a writer that repeats the delimiter around fields),
        // the search stopped at that one and the header ran on, the first
        // part's fields with it, its text left in the preamble (kept as
        // written, not converted, not audited).
        let mut header = header;
        if content_type.media_type == "multipart"
            && let Some(b) = content_type.boundary()
            && !b.is_empty()
            && let Some(c) = header.fields.iter().position(|f| f.is("content-type"))
            && let Some(at) = header
                .fields
                .iter()
                .skip(c + 1)
                .position(|f| {
                    f.raw.starts_with(b"--")
                        && f.raw[2..].starts_with(crate::mime::boundary_core(b))
                })
                .map(|i| c + 1 + i)
        {
            // Lines without a name right above the delimiter go with it
            // (a preamble's): with the empty line written before the
            // delimiter, a header ending in them ends before them, and
            // a second pass wrote another empty line there.
            let mut at = at;
            while at > 0 && header.fields.get(at - 1).is_some_and(|f| !f.has_name()) {
                at -= 1;
            }
            let cut = header.fields.get(at).map_or(0, |f| f.offset);
            header.fields.truncate(at);
            header.header_end = cut;
            header.body_offset = cut;
            header.separator = None;
            header.findings.retain(|f| f.offset < cut);
            findings.push(
                Finding::new(FindingKind::Malformed, range.start + cut, 1)
                    .with_note("header block ran into the first boundary delimiter: ended there"),
            );
        }
        let body = range.start + header.body_offset.min(bytes.len())..range.end;
        let is_multipart = content_type.media_type == "multipart";
        let encapsulated = is_encapsulated(&content_type, &transfer_encoding);
        // IMAP numbering: the root is "1" unless it is a multipart (whose
        // children are "1", "2", ...).
        let id = if id.is_empty() && !is_multipart {
            "1".to_string()
        } else {
            id
        };
        let mut part = Part {
            id,
            depth,
            range,
            header,
            headers_within_limit,
            content_type,
            transfer_encoding,
            body,
            kind: PartKind::Leaf,
            protected,
            findings: Vec::new(),
        };
        let over_limit = depth >= self.limits.max_depth || self.parts >= self.limits.max_parts;
        if (is_multipart || encapsulated) && over_limit {
            self.limit_reported = true;
            findings.push(
                Finding::new(FindingKind::LimitReached, part.range.start, 1)
                    .with_note("nesting or part-count limit: this part is kept as it is"),
            );
        } else if is_multipart {
            part.kind = self.multipart(&part, &mut findings);
        } else if encapsulated {
            // The encapsulated message shares the part's number; its parts
            // are "N.1", "N.2" (IMAP), a non-multipart body is "N.1".
            let mut inner = self.part(
                part.body.clone(),
                part.id.clone(),
                depth + 1,
                part.protected,
                false,
                MESSAGE_FIELDS,
            );
            if !matches!(inner.kind, PartKind::Multipart(_)) {
                // Its parts were numbered from "N" too (a message attached
                // to an attached message): "N.1" and on, "N.1.1" for its
                // body ("N.1" twice before).
                renumber(&mut inner, part.id.len(), &format!("{}.1", part.id));
            }
            part.kind = PartKind::Message(Box::new(inner));
        }
        part.findings = findings;
        part
    }

    fn multipart(&mut self, part: &Part<'a>, findings: &mut Vec<Finding>) -> PartKind<'a> {
        let Some(boundary) = part.content_type.boundary().map(<[u8]>::to_vec) else {
            findings.push(
                Finding::new(FindingKind::Malformed, part.range.start, 1)
                    .with_note("multipart without a boundary parameter: kept as one part"),
            );
            return PartKind::Leaf;
        };
        if boundary.is_empty() {
            findings.push(
                Finding::new(FindingKind::Malformed, part.range.start, 1)
                    .with_note("empty multipart boundary: kept as one part"),
            );
            return PartKind::Leaf;
        }
        let delims = find_delimiters(self.raw, part.body.clone(), &boundary);
        let Some(first) = delims.first() else {
            findings.push(
                Finding::new(FindingKind::Malformed, part.body.start, 1)
                    .with_note("multipart body without any boundary delimiter: kept as one part"),
            );
            return PartKind::Leaf;
        };
        let protected = part.protected
            || part.content_type.subtype == "signed"
            || part.content_type.subtype == "encrypted";
        let digest = part.content_type.subtype == "digest";
        let preamble = part.body.start..first.line.start;
        let mut parts = Vec::new();
        let mut closed = false;
        let mut epilogue = part.body.end..part.body.end;
        for (i, d) in delims.iter().enumerate() {
            if d.close {
                closed = true;
                epilogue = d.line.end..part.body.end;
                break;
            }
            let end = delims.get(i + 1).map_or(part.body.end, |n| n.line.start);
            let child_range = d.line.end..end.max(d.line.end);
            if self.parts >= self.limits.max_parts {
                self.limit_reported = true;
                findings.push(
                    Finding::new(FindingKind::LimitReached, d.line.start, 1).with_note(
                        "part-count limit: the rest of this multipart is kept as its epilogue",
                    ),
                );
                epilogue = d.line.start..part.body.end;
                closed = false;
                break;
            }
            let n = parts.len() + 1;
            let id = if part.id.is_empty() {
                n.to_string()
            } else {
                format!("{}.{n}", part.id)
            };
            parts.push(self.part(
                child_range,
                id,
                part.depth + 1,
                protected,
                digest,
                PART_FIELDS,
            ));
        }
        if !closed && epilogue.is_empty() {
            findings.push(
                Finding::new(FindingKind::Malformed, part.body.end, 1)
                    .with_note("multipart without a close delimiter"),
            );
        }
        PartKind::Multipart(Multipart {
            boundary,
            preamble,
            parts,
            epilogue,
            closed,
        })
    }
}

fn is_encapsulated(ct: &ContentType, te: &TransferEncoding) -> bool {
    ct.media_type == "message"
        && (ct.subtype == "rfc822" || ct.subtype == "global")
        && !matches!(
            te,
            TransferEncoding::Base64 | TransferEncoding::QuotedPrintable
        )
}

/// A delimiter line: `line` spans from the line end before it (which belongs
/// to the delimiter, RFC 2046) through its own line end.
#[derive(Debug)]
struct Delimiter {
    line: Range<usize>,
    close: bool,
}

/// Finds the delimiter lines of `boundary` within `body`.
///
/// ```abnf
/// dash-boundary  := "--" boundary
/// delimiter      := CRLF dash-boundary
/// close-delimiter := delimiter "--"
/// ; followed by transport-padding (LWSP) and CRLF
/// ```
///
/// White space at the end of a boundary parameter (`boundary="b "`, not
/// allowed by the grammar) is optional in the delimiter lines: writers
/// carry it into them (`--b --` closes) or not (`--b`, which Python's
/// `email` reads as a delimiter too: it strips the parameter). Required,
/// a multipart whose lines lacked it had no delimiter and was kept as one
/// leaf, its text parts neither converted nor audited.
fn find_delimiters(raw: &[u8], body: Range<usize>, boundary: &[u8]) -> Vec<Delimiter> {
    let core = crate::mime::boundary_core(boundary);
    let tail = &boundary[core.len()..];
    let mut needle = Vec::with_capacity(core.len() + 2);
    needle.extend_from_slice(b"--");
    needle.extend_from_slice(core);
    let finder = memchr::memmem::Finder::new(&needle);
    let hay = &raw[body.clone()];
    let mut out = Vec::new();
    for at in finder.find_iter(hay) {
        // Only at the start of a line (or of the body).
        let line_start = at == 0 || matches!(hay[at - 1], b'\n' | b'\r');
        if !line_start {
            continue;
        }
        let mut j = at + needle.len();
        if !tail.is_empty() && hay.get(j..).is_some_and(|r| r.starts_with(tail)) {
            j += tail.len();
        }
        let close = hay.get(j..j + 2) == Some(b"--");
        if close {
            j += 2;
        }
        // Transport padding, then the line end (or the end of the body).
        while matches!(hay.get(j), Some(b' ' | b'\t')) {
            j += 1;
        }
        let line_end = match hay.get(j) {
            None => j,
            Some(b'\n') => j + 1,
            Some(b'\r') if hay.get(j + 1) == Some(&b'\n') => j + 2,
            Some(b'\r') => j + 1,
            // Something else follows: content that starts with the boundary.
            Some(_) => continue,
        };
        // The line end before the delimiter belongs to it.
        let mut start = at;
        if start > 0 && hay[start - 1] == b'\n' {
            start -= 1;
        }
        if start > 0 && hay[start - 1] == b'\r' {
            start -= 1;
        }
        let start = start.max(
            out.last()
                .map_or(0, |d: &Delimiter| d.line.end - body.start),
        );
        out.push(Delimiter {
            line: body.start + start..body.start + line_end,
            close,
        });
        if close {
            break;
        }
    }
    out
}

/// A leading mbox `From ` line, if the message starts with one; a UTF-8
/// BOM and blank lines before it go with it (an mbox reader keeps them
/// with its first `From ` line too: doc/mailbox.md).
fn envelope_line(raw: &[u8]) -> Option<Range<usize>> {
    let mut at = if raw.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    loop {
        let rest = &raw[at..];
        if rest.starts_with(b"From ") {
            break;
        } else if rest.starts_with(b"\n") {
            at += 1;
        } else if rest.starts_with(b"\r\n") {
            at += 2;
        } else {
            return None;
        }
    }
    let end = memchr::memchr(b'\n', &raw[at..]).map_or(raw.len(), |i| at + i + 1);
    Some(0..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The year of a Date value as text, split on Unicode white space (the
    /// walk `TopFields::year` makes for a value that is not ASCII, and made
    /// for every value before): its oracle.
    fn year_model(value: &str) -> Option<u16> {
        let mut prev_was_month = false;
        for w in value.split(|c: char| c.is_whitespace() || c == ',') {
            if w.len() == 4 && w.bytes().all(|b| b.is_ascii_digit()) {
                let y: u16 = w.parse().ok()?;
                return (1970..=2200).contains(&y).then_some(y);
            }
            if prev_was_month && w.len() == 2 && w.bytes().all(|b| b.is_ascii_digit()) {
                let y: u16 = w.parse().ok()?;
                return Some(if y < 50 { 2000 + y } else { 1900 + y });
            }
            prev_was_month = MONTHS.iter().any(|m| w.eq_ignore_ascii_case(m));
        }
        None
    }

    /// The year of the Date field, split on octets for an ASCII value, is
    /// the year of the text split on Unicode white space.
    #[test]
    fn date_year_is_the_text_walk() {
        let values = [
            "Fri, 27 Nov 2026 13:45:00 +0000",
            "27 Nov 26 13:45 GMT",
            "Mon,\t3 Jan 1999\t10:00:00 -0500",
            "Tue, 1 Feb 70 00:00 EST",
            "Wed,  2 Mar 1969 (old)",
            "Thu, 4 Apr 2201",
            "4 apr 2001",
            "5 MAY 05",
            "6 Jun\x0b07",
            "6 Jun\x0c07",
            "7 Jul,2019",
            "8 Aug 2019,",
            "",
            "garbage",
            "9 Sep 1a99 2004",
            "10 Oct 0000 2010",
            "11 Nov\u{a0}2011",
            "12 Dec\u{a0}12",
            "13 D\u{e9}c 2013",
            "1 Jan 1999\r\n 10:00",
        ];
        for v in values {
            let raw = format!("Date: {v}\n\nbody\n");
            let m = Message::parse(raw.as_bytes());
            assert_eq!(m.year(), year_model(v.trim()), "{v:?}");
        }
    }

    /// `top_fields` finds what `get` finds for each of its three names:
    /// the first field of the name, whatever its case, not a longer or
    /// shorter name, nor a body part's field.
    #[test]
    fn top_fields_are_the_first_of_each_name() {
        let raw = b"Received: x\r\nDATE: Mon, 1 Jan 2001 00:00:00 +0000\r\nFrom-X: a@b.de\r\n\
                    message-id: <first@b.ru>\r\nfrom: S <s@c.fr>\r\nMessage-ID: <second@d.jp>\r\n\
                    Date: Tue, 2 Jan 1999 00:00:00 +0000\r\nFrom: T <t@e.pl>\r\n\
                    Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n\
                    From: inner@f.cz\r\n\r\nx\r\n--b--\r\n";
        let msg = Message::parse(raw);
        let h = &msg.root.header;
        let top = msg.top_fields();
        assert_eq!(top.from.map(|f| f.offset), h.get("from").map(|f| f.offset));
        assert_eq!(top.date.map(|f| f.offset), h.get("date").map(|f| f.offset));
        assert_eq!(
            top.message_id.map(|f| f.offset),
            h.get("message-id").map(|f| f.offset)
        );
        assert_eq!(msg.message_id().as_deref(), Some("first@b.ru"));
        assert_eq!(msg.year(), Some(2001));
        assert_eq!(
            msg.tld_hint().as_ref().map(|t| t.as_bytes().to_vec()),
            Some(b"fr".to_vec())
        );
        let none = Message::parse(b"Subject: x\r\n\r\nbody\r\n");
        assert_eq!(none.message_id(), None);
        assert_eq!(none.year(), None);
        assert!(none.tld_hint().is_none());
    }

    #[test]
    fn message_id_examples() {
        assert_eq!(message_id_in(" <a@b> "), Some("a@b"));
        assert_eq!(message_id_in("<<a@b>> (comment)"), Some("a@b"));
        assert_eq!(message_id_in("\x0b a@b \x0c"), Some("a@b"));
        assert_eq!(message_id_in(" <> "), None);
        assert_eq!(message_id_in(""), None);
    }
}
