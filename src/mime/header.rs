//! The header section of a message or body part: fields, folds, offsets.

use super::lexer::{self, PResult};
use super::malformed;
use crate::finding::Finding;
use std::borrow::Cow;

/// How a physical line ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineEnding {
    /// CR LF.
    Crlf,
    /// LF.
    Lf,
    /// A bare CR (old Macintosh mail).
    Cr,
    /// The input ended without a line end.
    None,
}

impl LineEnding {
    /// The octets of this line end.
    pub fn as_bytes(self) -> &'static [u8] {
        match self {
            LineEnding::Crlf => b"\r\n",
            LineEnding::Lf => b"\n",
            LineEnding::Cr => b"\r",
            LineEnding::None => b"",
        }
    }
}

/// One header field, borrowed from the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field<'a> {
    /// The field name as written (without trailing white space). Empty for
    /// a line that has no colon (kept, with a `malformed` finding).
    pub name: &'a [u8],
    /// The whole field: name, colon, value, its folded lines and the final
    /// line end. Copying `raw` of every field reproduces the header block.
    pub raw: &'a [u8],
    /// Byte offset of `raw` in the input.
    pub offset: usize,
    /// The raw value: everything after the colon, folds included, without
    /// the final line end. For a line without a colon, the line itself.
    pub value: &'a [u8],
    /// Byte offset of `value` in the input.
    pub value_offset: usize,
    /// The line end that terminates the field.
    pub line_ending: LineEnding,
    /// What is wrong with its lines, if anything ([`Field::findings`]).
    flaws: u8,
}

/// [`Field::flaws`]: a continuation line before the first field.
const EARLY_CONTINUATION: u8 = 1;
/// A header line without a colon.
const NO_COLON: u8 = 2;
/// A line longer than 998 octets.
const LONG_LINE: u8 = 4;
/// 8-bit octets in the field name.
const EIGHT_BIT_NAME: u8 = 8;

impl<'a> Field<'a> {
    /// A field as a writer makes it: `name`, `raw` (the whole field) and
    /// where it is, its `value` and where that is, its line end; nothing
    /// wrong with it.
    pub fn new(
        name: &'a [u8],
        raw: &'a [u8],
        offset: usize,
        value: &'a [u8],
        value_offset: usize,
        line_ending: LineEnding,
    ) -> Self {
        Field {
            name,
            raw,
            offset,
            value,
            value_offset,
            line_ending,
            flaws: 0,
        }
    }

    /// Structural findings (offsets into `value`): a line without a colon
    /// (or a continuation line before the first field), a line longer than
    /// 998 octets. Made when asked: a field holds a few flag bits, not a
    /// vector (every field of every message is pushed, and a smaller one
    /// moves faster).
    pub fn findings(&self) -> Vec<Finding> {
        let mut v = Vec::new();
        if self.flaws & EARLY_CONTINUATION != 0 {
            v.push(malformed(0, "continuation line before the first field"));
        }
        if self.flaws & NO_COLON != 0 {
            v.push(malformed(0, "header line without a colon"));
        }
        if self.flaws & EIGHT_BIT_NAME != 0 {
            v.push(malformed(
                0,
                "8-bit octets in the field name (RFC 5322: printable US-ASCII)",
            ));
        }
        if self.flaws & LONG_LINE != 0 {
            v.push(
                Finding::new(crate::finding::FindingKind::Malformed, 0, 1)
                    .with_note("line longer than 998 octets (RFC 5322 2.1.1)"),
            );
        }
        v
    }

    /// True when the name matches, ignoring ASCII case.
    pub fn is(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name.as_bytes())
    }

    /// False for a line that had no colon.
    pub fn has_name(&self) -> bool {
        !self.name.is_empty()
    }

    /// The name as text (lossy: a valid name is ASCII).
    pub fn name_str(&self) -> Cow<'a, str> {
        lexer::lossy(self.name)
    }

    /// The value unfolded (RFC 5322 2.2.3: line ends removed, the white
    /// space after them kept) and trimmed of leading and trailing white
    /// space. Borrows when the field was not folded.
    pub fn unfolded(&self) -> Cow<'a, [u8]> {
        match lexer::unfold(self.value) {
            Cow::Borrowed(b) => Cow::Borrowed(lexer::trim_fws(b)),
            Cow::Owned(v) => Cow::Owned(lexer::trim_fws(&v).to_vec()),
        }
    }

    /// True when the field spans more than one line.
    pub fn is_folded(&self) -> bool {
        memchr::memchr2(b'\r', b'\n', self.value).is_some()
    }
}

/// A parsed header section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderBlock<'a> {
    /// The fields in order, every line of the header section in exactly one.
    pub fields: Vec<Field<'a>>,
    /// Offset of the end of the last field (the start of the empty line, or
    /// of the body when there is none).
    pub header_end: usize,
    /// Offset of the body: after the empty line; the input length when the
    /// header section runs to the end of the input.
    pub body_offset: usize,
    /// The empty line that ends the header section, if there was one.
    pub separator: Option<LineEnding>,
    /// Findings about the block as a whole (offsets into the input): `nul`
    /// when the header section holds NUL octets.
    pub findings: Vec<Finding>,
}

impl<'a> HeaderBlock<'a> {
    /// The first field with this name (ASCII case-insensitive).
    pub fn get(&self, name: &str) -> Option<&Field<'a>> {
        self.fields.iter().find(|f| f.is(name))
    }

    /// Every field with this name, in order.
    pub fn get_all<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s Field<'a>> + 's {
        self.fields.iter().filter(move |f| f.is(name))
    }

    /// The line end used by most fields (CRLF on a tie or when there are no
    /// fields): what a writer should use for fields it adds.
    pub fn line_ending(&self) -> LineEnding {
        let (mut crlf, mut lf, mut cr) = (0usize, 0usize, 0usize);
        for f in &self.fields {
            match f.line_ending {
                LineEnding::Crlf => crlf += 1,
                LineEnding::Lf => lf += 1,
                LineEnding::Cr => cr += 1,
                LineEnding::None => {}
            }
        }
        if lf > crlf && lf >= cr {
            LineEnding::Lf
        } else if cr > crlf && cr > lf {
            LineEnding::Cr
        } else {
            LineEnding::Crlf
        }
    }

    /// Parses and returns the `Content-Type` (the default `text/plain` when
    /// absent; see [`super::ContentType::parse`]).
    pub fn content_type(&self) -> super::ContentType {
        match self.get("content-type") {
            Some(f) => super::ContentType::parse(f.value),
            None => super::ContentType::default(),
        }
    }

    /// Parses and returns the `Content-Disposition`, if present.
    pub fn content_disposition(&self) -> Option<super::ContentDisposition> {
        self.get("content-disposition")
            .map(|f| super::ContentDisposition::parse(f.value))
    }

    /// Parses and returns the `Content-Transfer-Encoding` (7bit when absent).
    pub fn transfer_encoding(&self) -> super::TransferEncoding {
        self.get("content-transfer-encoding")
            .map_or(super::TransferEncoding::SevenBit, |f| {
                super::TransferEncoding::parse(f.value)
            })
    }
}

/// The line ends (CR, LF) of a header section, found 64 octets at a time
/// ([`crate::codec::line_ends`]) and kept between lines: a header line is
/// about 70 octets, and a `memchr2` call per line cost more in its setup
/// than in its search (doc/bench-log.md, issue 18, ninth round).
struct LineEnds<'a> {
    input: &'a [u8],
    /// Offset of the block `mask` is for (a multiple of 64), or `usize::MAX`.
    base: usize,
    /// A bit for each CR or LF of `input[base..base + 64]`.
    mask: u64,
}

impl<'a> LineEnds<'a> {
    fn new(input: &'a [u8]) -> Self {
        LineEnds {
            input,
            base: usize::MAX,
            mask: 0,
        }
    }

    /// Offset of the first CR or LF at or after `from`.
    fn find(&mut self, from: usize) -> Option<usize> {
        let mut base = from - from % 64;
        loop {
            if base >= self.input.len() {
                return None;
            }
            if base != self.base {
                self.mask = match self.input.get(base..base + 64).map(<&[u8; 64]>::try_from) {
                    Some(Ok(block)) => crate::codec::line_ends(block),
                    _ => {
                        // The last, short block, with zeros after it.
                        let mut block = [0u8; 64];
                        let tail = self.input.get(base..).unwrap_or_default();
                        block[..tail.len()].copy_from_slice(tail);
                        crate::codec::line_ends(&block)
                    }
                };
                self.base = base;
            }
            // Lanes before `from` (in its own block only) are masked.
            let skip = from.saturating_sub(base) as u32;
            let m = self.mask & u64::MAX.checked_shl(skip).unwrap_or(0);
            if m != 0 {
                return Some(base + m.trailing_zeros() as usize);
            }
            base += 64;
        }
    }

    /// One physical line from `at`: where its content ends, its line end,
    /// and where the next line starts.
    ///
    /// ```abnf
    /// line     = *(%x00-09 / %x0B-0C / %x0E-FF) line-end
    /// line-end = CRLF / LF / CR / end-of-input    ; bare LF and CR accepted
    /// ```
    fn line(&mut self, at: usize) -> (usize, LineEnding, usize) {
        match self.find(at) {
            None => (self.input.len(), LineEnding::None, self.input.len()),
            Some(k) => match (self.input.get(k), self.input.get(k + 1)) {
                (Some(b'\r'), Some(b'\n')) => (k, LineEnding::Crlf, k + 2),
                (Some(b'\r'), _) => (k, LineEnding::Cr, k + 1),
                _ => (k, LineEnding::Lf, k + 1),
            },
        }
    }

    /// A field from `at` (not an empty line): its first line and every
    /// continuation line (a line starting with white space). Returns where
    /// its content ends (before the final line end), that line end, where
    /// the next field starts, and the length of its longest line.
    ///
    /// ```abnf
    /// field    = first-line *(WSP line)   ; RFC 5322 2.2.3: a fold is a line end
    ///                                     ; followed by white space
    /// ```
    fn field(&mut self, at: usize) -> (usize, LineEnding, usize, usize) {
        let (mut content_end, mut end, mut next) = self.line(at);
        let mut longest = content_end - at;
        while end != LineEnding::None && self.input.get(next).is_some_and(|&b| lexer::is_wsp(b)) {
            let from = next;
            (content_end, end, next) = self.line(from);
            longest = longest.max(content_end - from);
        }
        (content_end, end, next, longest)
    }
}

/// RFC 5322 2.1.1: a line is at most 998 octets, line end excluded.
pub const MAX_LINE: usize = 998;

/// ```abnf
/// field-name = ftext *(ftext / %x80-FF)  ; RFC 5322: 1*ftext; 8-bit
///                                        ; octets after the first are
///                                        ; taken too (flagged)
/// ftext      = %d33-57 / %d59-126     ; printable US-ASCII except ":"
/// ```
#[cfg(test)]
fn field_name(i: &[u8]) -> PResult<'_, &[u8]> {
    use nom::Parser;
    let ftext = |b: u8| (33..=126).contains(&b) && b != b':';
    nom::combinator::recognize((
        nom::bytes::complete::take_while1(ftext),
        nom::bytes::complete::take_while(move |b: u8| ftext(b) || b >= 0x80),
    ))
    .parse(i)
}

/// Name and colon of a field's first line.
///
/// ```abnf
/// field-head = field-name *WSP ":"    ; RFC 5322 4.5.2 obs: WSP before colon
/// ```
///
/// Written without nom ([`field_head_at`]), since every header line goes
/// through it; the tests hold it to the nom parser of the grammar above.
#[inline]
fn field_head(i: &[u8]) -> PResult<'_, &[u8]> {
    match field_head_at(i) {
        Some((name, value, _)) => Ok((
            i.get(value..).unwrap_or_default(),
            i.get(..name).unwrap_or_default(),
        )),
        None => Err(nom::Err::Error(nom::error::Error::new(
            i,
            nom::error::ErrorKind::Tag,
        ))),
    }
}

/// The grammar of [`field_head`] in nom, the tests' oracle for it.
#[cfg(test)]
fn field_head_nom(i: &[u8]) -> PResult<'_, &[u8]> {
    use nom::Parser;
    let (rest, name) = field_name(i)?;
    let (rest, _) = (
        nom::bytes::complete::take_while(lexer::is_wsp),
        nom::bytes::complete::tag(&b":"[..]),
    )
        .parse(rest)?;
    Ok((rest, name))
}

/// [`field_head`] as offsets, without nom: the name's length and where the
/// value starts (after the colon), or None where the line has no field
/// head. Every header line goes through it, so the name is found sixteen
/// octets at a time ([`ftext_len`](crate::codec::ftext_len)).
#[inline]
fn field_head_at(content: &[u8]) -> Option<(usize, usize, bool)> {
    let name = crate::codec::ftext_len(content);
    if name == 0 {
        return None;
    }
    match content.get(name) {
        Some(&b) if b >= 0x80 => eight_bit_head(content, name).map(|(n, v)| (n, v, true)),
        _ => colon_after(content, name).map(|(n, v)| (n, v, false)),
    }
}

/// [`field_head_at`] for a name with 8-bit octets after its first
/// (`X-Café:`): no name of RFC 5322, but mailers write them, and read as
/// the end of the header such a line took every field after it into the
/// body (a first line so made the whole header text, quoted-printable in a
/// made-up body). A field all the same, flagged (`Field::findings`). Out
/// of line: every other field passes by it.
#[cold]
#[inline(never)]
fn eight_bit_head(content: &[u8], ascii: usize) -> Option<(usize, usize)> {
    let rest = content.get(ascii..)?;
    let name = ascii
        + rest
            .iter()
            .position(|&b| !(b >= 0x80 || ((33..=126).contains(&b) && b != b':')))
            .unwrap_or(rest.len());
    colon_after(content, name)
}

/// The name's length and where the value starts, when the name of length
/// `name` is followed by white space and a colon.
#[inline]
fn colon_after(content: &[u8], name: usize) -> Option<(usize, usize)> {
    let mut at = name;
    loop {
        match content.get(at)? {
            b':' => return Some((name, at + 1)),
            &b if lexer::is_wsp(b) => at += 1,
            _ => return None,
        }
    }
}

/// Whether `bytes` start with a header field's name and colon
/// ([`field_head`]): what a message's first line is.
fn starts_with_field(bytes: &[u8]) -> bool {
    field_head(bytes).is_ok()
}

/// Whether `bytes` start with a field after lines that start with white
/// space (continuation lines before any field, lines of white space):
/// whether a header section is there, its first field the first line not
/// so indented (a digest part's message, `message::Message::parse`).
///
/// ```abnf
/// headed = *(WSP *VCHAR-or-WSP line-end) field
/// ```
pub(crate) fn starts_with_field_after_continuations(bytes: &[u8]) -> bool {
    let mut rest = bytes;
    while rest.first().is_some_and(|&b| lexer::is_wsp(b)) {
        match memchr::memchr2(b'\n', b'\r', rest) {
            Some(i) => {
                let skip = if rest.get(i..i + 2) == Some(b"\r\n") {
                    i + 2
                } else {
                    i + 1
                };
                rest = &rest[skip..];
            }
            None => return false,
        }
    }
    starts_with_field(rest)
}

/// Whether a line that is not a field (`content`, at the start of a line)
/// may still belong to a header section: a continuation line (white space
/// first) or an mbox envelope line ([`envelope_like`]).
fn header_line_anyway(content: &[u8]) -> bool {
    content.first().is_some_and(|&b| lexer::is_wsp(b)) || envelope_like(content)
}

/// An mbox `From ` line, or one quoted as mboxo/mboxrd quote it
/// (`>From `, `>>From `): the first line of a message saved from an mbox
/// and attached (message/rfc822), or misplaced in a header. Python's
/// `email` keeps a `From ` line in the header (a misplaced envelope) but
/// takes a quoted one for the body; here both are header lines, so the
/// header of an attached message saved with `>From ` stays its header.
fn envelope_like(content: &[u8]) -> bool {
    let unquoted = content
        .iter()
        .position(|&b| b != b'>')
        .unwrap_or(content.len());
    content
        .get(unquoted..)
        .is_some_and(|c| c.starts_with(b"From "))
}

/// Where the header section goes on after a line that is neither a field
/// nor a continuation (a broken fold: a mailer that wrapped a long field
/// without white space), `next` being the line after it: the offset of
/// the empty line that ends the section (or of the end of the input), when
/// the lines from `next` up to it are fields (with their continuations),
/// the first of them a field, and every other line that is not a field
/// directly followed by a field. None when a line that is not a field
/// comes twice in a row, or directly before the empty line or the end:
/// that line starts the body.
///
/// ```abnf
/// resumed = field *(field / (stray field)) (empty-line / end-of-input)
/// ```
///
/// A header that runs to the end of the input (a header-only part or
/// file) is resumed too: a line taken for the body there would take the
/// fields after it, and a text whose second line looks like a field and
/// whose last line is one is kept as the header it was read as before.
///
/// A stray line that is a multipart's delimiter line above its
/// Content-Type, with a delimiter line of it below ([`repeated_delimiter`]),
/// resumes the section to that second line (`had_content_type`: a
/// Content-Type came before `next`).
fn resumes(
    ends: &mut LineEnds<'_>,
    input: &[u8],
    next: usize,
    mut had_content_type: bool,
) -> Option<usize> {
    let mut at = next;
    // The line after a stray line must be a field.
    let mut need_field = true;
    loop {
        match input.get(at..)? {
            [] | [b'\r' | b'\n', ..] => return (!need_field).then_some(at),
            _ => {}
        }
        let (content_end, _, after, _) = ends.field(at);
        let content = input.get(at..content_end).unwrap_or_default();
        let head = field_head_at(content);
        let field = head.is_some() || envelope_like(content);
        if !field && need_field {
            return None;
        }
        if !field
            && let Some(second) = repeated_delimiter(ends, input, content, after, had_content_type)
        {
            return Some(second);
        }
        had_content_type |= head.is_some_and(|(name, _, _)| {
            trim_end_wsp(content.get(..name).unwrap_or_default())
                .eq_ignore_ascii_case(b"content-type")
        });
        need_field = !field;
        at = after;
    }
}

/// Whether `line` (without its line end) is a delimiter line of a
/// multipart with boundary `core` ([`super::boundary_core`]): `--`, the
/// boundary, and nothing but white space (not the close delimiter).
fn is_delimiter_line(line: &[u8], core: &[u8]) -> bool {
    line.strip_prefix(b"--")
        .and_then(|l| l.strip_prefix(core))
        .is_some_and(|rest| rest.iter().all(|&b| lexer::is_wsp(b)))
}

/// Where a header section goes on after `stray` (a line that is not a
/// field, `next` being the line after it), when `stray` is a delimiter
/// line of a multipart whose Content-Type follows: the offset of the next
/// line that is a delimiter of that boundary, when the lines up to it are
/// fields (with their continuations), the Content-Type among them. None
/// otherwise, and when a Content-Type came before (`had_content_type`:
/// the first one counts).
///
/// ```abnf
/// repeated = delimiter 1*field delimiter ; a Content-Type multipart among the fields
/// ```
///
/// A writer that repeats the delimiter around fields, the first part's
/// header with no field or its text right after the second: [`resumes`]
/// fails at the second (a line that is not a field, before the empty line
/// or a text line), and the body started at the first, the multipart's
/// Content-Type in it: the message was one text/plain part (as Python's
/// `email` reads it; without the line above, it reads the multipart).
fn repeated_delimiter(
    ends: &mut LineEnds<'_>,
    input: &[u8],
    stray: &[u8],
    next: usize,
    had_content_type: bool,
) -> Option<usize> {
    if had_content_type || !stray.starts_with(b"--") {
        return None;
    }
    let mut at = next;
    let mut boundary: Option<super::ContentType> = None;
    loop {
        if matches!(input.get(at..)?, [] | [b'\r' | b'\n', ..]) {
            return None;
        }
        let (content_end, _, after, _) = ends.field(at);
        let content = input.get(at..content_end).unwrap_or_default();
        match field_head_at(content) {
            Some((name, value, _)) => {
                let name = trim_end_wsp(content.get(..name).unwrap_or_default());
                if boundary.is_none() && name.eq_ignore_ascii_case(b"content-type") {
                    let ct = super::ContentType::parse(content.get(value..).unwrap_or_default());
                    let core = ct.boundary().map(super::boundary_core).unwrap_or_default();
                    if ct.media_type != "multipart"
                        || core.is_empty()
                        || !is_delimiter_line(stray, core)
                    {
                        return None;
                    }
                    boundary = Some(ct);
                }
            }
            None => {
                let ct = boundary?;
                let core = ct.boundary().map(super::boundary_core).unwrap_or_default();
                return is_delimiter_line(content, core).then_some(at);
            }
        }
        at = after;
    }
}

/// The note of the `malformed` finding of a header section that ends
/// without its empty line, before a line that is not a field.
pub const NO_SEPARATOR: &str =
    "no empty line after the header: the body starts at its first line that is not a field";

/// Splits the header section of a message or body part into fields.
///
/// ```abnf
/// header-section = *field [empty-line] ; RFC 5322 2.1: fields, then an
/// empty-line     = line-end            ; empty line, then the body
/// ```
///
/// Never fails. The section ends at its empty line, or before its first
/// line that is neither a field, nor a continuation, nor an mbox `From `
/// line, quoted or not (RFC 2046 5.1.1: a body part is its header fields
/// and, optionally, an empty line and its body; Python's `email` reads it
/// so and records `MissingHeaderBodySeparatorDefect`): that line starts
/// the body, `separator == None`, with a `malformed` finding
/// ([`NO_SEPARATOR`]) in `findings`. Except a broken fold: such a line
/// after a field of the section, when the section goes on with fields to
/// its empty line or the end of the input, is kept as a
/// nameless [`Field`] with a `malformed` finding (taken for the body, it
/// would take the fields after it, a Content-Type or Message-ID, with
/// it). So is a delimiter line of a multipart above its Content-Type
/// when a delimiter line of it follows the fields below
/// (the section ends at that one). A continuation line
/// before any field, a `From ` line, and a field after a byte order mark
/// at the start, are kept so too. A header
/// section that runs to the end of the input (no empty line) has
/// `separator == None` and `body_offset == input.len()`.
pub fn parse_header_block(input: &[u8]) -> HeaderBlock<'_> {
    parse_header_block_sized(input, 24)
}

thread_local! {
    /// One emptied vector of fields kept for the next header block parsed
    /// on this thread (see [`recycle_fields`]).
    static SPARE_FIELDS: std::cell::Cell<Vec<Field<'static>>> =
        const { std::cell::Cell::new(Vec::new()) };
}

/// Largest vector kept by [`recycle_fields`], in fields.
const SPARE_MAX: usize = 256;

/// An empty vector with room for at least `n` fields: this thread's spare
/// one when it is large enough, else a new one.
fn spare_fields<'a>(n: usize) -> Vec<Field<'a>> {
    let v = SPARE_FIELDS.take();
    if v.capacity() >= n {
        // `Field` is covariant: a `Vec<Field<'static>>` is a `Vec<Field<'a>>`.
        v
    } else {
        SPARE_FIELDS.set(v);
        Vec::with_capacity(n)
    }
}

/// Keeps the emptied allocation of `fields` for the next header block
/// parsed on this thread. A message's vector of fields is larger than
/// glibc's per-thread cache holds, and allocating it cost about a thousand
/// instructions per message (doc/bench-log.md, issue 18, seventh round).
pub(crate) fn recycle_fields(mut fields: Vec<Field<'_>>) {
    if fields.capacity() > SPARE_MAX {
        return;
    }
    fields.clear();
    // Collecting a vector's iterator into a vector of a type of the same
    // layout reuses its allocation (std's in-place collection); nothing is
    // left to collect. (Not `filter`: the item type changes, its lifetime.)
    #[allow(clippy::unnecessary_filter_map)]
    let empty: Vec<Field<'static>> = fields
        .into_iter()
        .filter_map(|_| None::<Field<'static>>)
        .collect();
    let old = SPARE_FIELDS.replace(empty);
    if old.capacity() > 0 {
        // Keep the larger of the two.
        let kept = SPARE_FIELDS.take();
        SPARE_FIELDS.set(if old.capacity() > kept.capacity() {
            old
        } else {
            kept
        });
    }
}

/// [`parse_header_block`] with room for `fields` fields before the vector
/// grows (24 there). The vector is the one large allocation of a header
/// block: a message's header has 20 to 40 fields (each growth is a realloc
/// that copies them), a body part's two or three (a small vector stays in
/// the allocator's per-thread cache).
pub(crate) fn parse_header_block_sized(input: &[u8], fields: usize) -> HeaderBlock<'_> {
    let mut fields = spare_fields(fields);
    let mut ends = LineEnds::new(input);
    let mut rest = input;
    let mut separator = None;
    let header_end;
    // A named field was seen: a line that is not one may be a broken fold.
    let mut named = false;
    // The section is known to go on to its empty line here ([`resumes`]).
    let mut resumed_until = 0;
    let mut no_separator = None;
    loop {
        // An empty line (or the end of input) ends the header section.
        let empty = match rest {
            [] => {
                header_end = input.len();
                break;
            }
            [b'\r', b'\n', ..] => Some((LineEnding::Crlf, 2)),
            [b'\n', ..] => Some((LineEnding::Lf, 1)),
            [b'\r', ..] => Some((LineEnding::Cr, 1)),
            _ => None,
        };
        if let Some((end, len)) = empty {
            header_end = lexer::offset_in(input, rest);
            separator = Some(end);
            rest = &rest[len..];
            break;
        }
        let offset = lexer::offset_in(input, rest);
        let (content_end, line_ending, next, longest) = ends.field(offset);
        let raw = input.get(offset..next).unwrap_or_default();
        let content = input.get(offset..content_end).unwrap_or_default();
        let after = input.get(next..).unwrap_or_default();
        let head = field_head_at(content);
        // A field after a byte order mark, the first line of a message
        // saved by an editor: kept nameless as before, not taken for text.
        let bom_field = head.is_none()
            && offset == 0
            && content
                .strip_prefix(b"\xEF\xBB\xBF")
                .is_some_and(|c| field_head(c).is_ok());
        named |= bom_field;
        if head.is_none() && !bom_field && !header_line_anyway(content) && offset >= resumed_until {
            let had_ct = || fields.iter().any(|f| f.is("content-type"));
            let resumed = named
                .then(|| resumes(&mut ends, input, next, had_ct()))
                .flatten();
            // (a delimiter line before a Content-Type multipart, as rare
            // as its `--` is cheap to test)
            let resumed = resumed.or_else(|| {
                named
                    .then(|| repeated_delimiter(&mut ends, input, content, next, had_ct()))
                    .flatten()
            });
            match resumed {
                Some(empty_line) => resumed_until = empty_line,
                None => {
                    // The body starts here, without the empty line.
                    header_end = offset;
                    no_separator = Some(offset);
                    break;
                }
            }
        }
        // Built in one expression and pushed: a `Field` assembled in a
        // temporary and then amended was copied into the vector with wide
        // loads over narrower stores, a store-forwarding stall per field
        // (perf annotate: a quarter of this function on clean mail).
        let long = if longest > MAX_LINE { LONG_LINE } else { 0 };
        let (name, value, flaws) = match head {
            Some((name_len, value_at, eight_bit)) => {
                named = true;
                let eight_bit = if eight_bit { EIGHT_BIT_NAME } else { 0 };
                let name = content.get(..name_len).unwrap_or_default();
                let value = content.get(value_at..).unwrap_or_default();
                (trim_end_wsp(name), value, long | eight_bit)
            }
            None => {
                let kind = if content.first().is_some_and(|&b| lexer::is_wsp(b)) {
                    EARLY_CONTINUATION
                } else {
                    NO_COLON
                };
                (&[][..], content, kind | long)
            }
        };
        fields.push(Field {
            name,
            raw,
            offset,
            value,
            value_offset: offset + (content.len() - value.len()),
            line_ending,
            flaws,
        });
        rest = after;
    }
    let body_offset = lexer::offset_in(input, rest);
    let mut findings = Vec::new();
    if let Some(at) = no_separator {
        findings.push(malformed(at, NO_SEPARATOR));
    }
    let head = &input[..header_end];
    if let Some(first) = memchr::memchr(0, head) {
        let count = memchr::memchr_iter(0, head).count();
        findings.push(Finding::new(crate::finding::FindingKind::Nul, first, count));
    }
    HeaderBlock {
        fields,
        header_end,
        body_offset,
        separator,
        findings,
    }
}

fn trim_end_wsp(mut s: &[u8]) -> &[u8] {
    while let [rest @ .., last] = s {
        if lexer::is_wsp(*last) {
            s = rest;
        } else {
            break;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The header section split by searching for each line's end in turn:
    /// (offset, raw, value, line end, name) of every field, the separator
    /// and the body offset, as the block scan must find them.
    #[allow(clippy::type_complexity)]
    fn split_line_by_line(
        input: &[u8],
    ) -> (
        Vec<(usize, &[u8], &[u8], LineEnding, &[u8])>,
        Option<LineEnding>,
        usize,
    ) {
        let line = |at: usize| match memchr::memchr2(b'\r', b'\n', &input[at..]) {
            None => (input.len(), LineEnding::None, input.len()),
            Some(k) => match (input[at + k], input.get(at + k + 1)) {
                (b'\r', Some(b'\n')) => (at + k, LineEnding::Crlf, at + k + 2),
                (b'\r', _) => (at + k, LineEnding::Cr, at + k + 1),
                _ => (at + k, LineEnding::Lf, at + k + 1),
            },
        };
        // A line and its continuation lines: content end, line end, next.
        let group = |at: usize| {
            let (mut c, mut e, mut n) = line(at);
            while e != LineEnding::None && input.get(n).is_some_and(|&b| b == b' ' || b == b'\t') {
                (c, e, n) = line(n);
            }
            (c, e, n)
        };
        // The length of the name before its colon, if the line is a field
        // (8-bit octets after its first octet taken too).
        let name_of = |content: &[u8]| {
            let ftext = |b: u8| (33..=126).contains(&b) && b != b':';
            let name_len = if content.first().is_some_and(|&b| ftext(b)) {
                content
                    .iter()
                    .position(|&b| !(ftext(b) || b >= 0x80))
                    .unwrap_or(content.len())
            } else {
                0
            };
            let wsp = content[name_len..]
                .iter()
                .position(|&b| b != b' ' && b != b'\t')
                .unwrap_or(content.len() - name_len);
            (name_len > 0 && content.get(name_len + wsp) == Some(&b':'))
                .then_some((name_len, name_len + wsp + 1))
        };
        let envelope = |content: &[u8]| {
            let k = content.iter().take_while(|&&b| b == b'>').count();
            content[k..].starts_with(b"From ")
        };
        let mut out = Vec::new();
        let mut at = 0;
        let mut named = false;
        loop {
            match &input[at..] {
                [] => return (out, None, at),
                [b'\r', b'\n', ..] => return (out, Some(LineEnding::Crlf), at + 2),
                [b'\n', ..] => return (out, Some(LineEnding::Lf), at + 1),
                [b'\r', ..] => return (out, Some(LineEnding::Cr), at + 1),
                _ => {}
            }
            let (c, e, n) = group(at);
            let content = &input[at..c];
            let head = name_of(content);
            let bom_field = head.is_none()
                && at == 0
                && content.starts_with(b"\xEF\xBB\xBF")
                && name_of(&content[3..]).is_some();
            if head.is_none()
                && !bom_field
                && !matches!(content.first(), Some(b' ' | b'\t'))
                && !envelope(content)
            {
                // The body starts here, unless a field came before and the
                // header goes on: fields, and lines that are not fields each
                // directly followed by one, to an empty line or the end.
                let mut k = n;
                let mut need_field = true;
                let resumes = named
                    && loop {
                        match &input[k..] {
                            [] | [b'\r' | b'\n', ..] => break !need_field,
                            _ => {}
                        }
                        let (c2, _, n2) = group(k);
                        let field = name_of(&input[k..c2]).is_some() || envelope(&input[k..c2]);
                        if !field && need_field {
                            break false;
                        }
                        need_field = !field;
                        k = n2;
                    };
                if !resumes {
                    return (out, None, at);
                }
            }
            named |= head.is_some() || bom_field;
            let (name, value) = match head {
                Some((name_len, value_at)) => (&content[..name_len], &content[value_at..]),
                None => (&b""[..], content),
            };
            out.push((at, &input[at..n], value, e, name));
            at = n;
        }
    }

    const PIECES: &[&[u8]] = &[
        b"Subject: hello",
        b"X-A:",
        b"\r\n",
        b"\n",
        b"\r",
        b" ",
        b"\t",
        b"no colon",
        b":",
        b"Received: from a.example by b.example with SMTP id 0123456789abcdef",
        // Longer than a 64-octet block of the line-end scan.
        b"X-Long: 0123456789012345678901234567890123456789012345678901234567890123456789",
        b"\r\n\r\n",
        b"body",
        b"Subject : obsolete",
        b"From a@b Mon Jan  1 00:00:00 2001",
        b">From a@b",
        b"\xEF\xBB\xBFFrom: a@b",
        b"Content-Type text/plain",
    ];

    proptest! {
        #[test]
        fn block_scan_splits_as_a_line_by_line_search(
            pieces in proptest::collection::vec(
                proptest::sample::select(PIECES),
                0..60,
            )
        ) {
            let input: Vec<u8> = pieces.concat();
            let h = parse_header_block(&input);
            let (want, separator, body_offset) = split_line_by_line(&input);
            let got: Vec<_> = h
                .fields
                .iter()
                .map(|f| (f.offset, f.raw, f.value, f.line_ending, f.name))
                .collect();
            prop_assert_eq!(got, want);
            prop_assert_eq!(h.separator, separator);
            prop_assert_eq!(h.body_offset, body_offset);
        }
    }

    proptest! {
        /// The hand-written field head (sixteen octets at a time) against
        /// the nom parser of its grammar, on lines that cross the 16-octet
        /// chunks with every kind of octet that ends a name.
        #[test]
        fn field_head_is_its_grammar(
            line in proptest::collection::vec(
                prop_oneof![
                    8 => proptest::sample::select(&b"aZ-_09.~!"[..]),
                    1 => proptest::sample::select(&b": \t\x7f\x80\xff\x00\x1f\r\n!~"[..]),
                ],
                0..70,
            )
        ) {
            let fast = field_head(&line).ok();
            let nom = field_head_nom(&line).ok();
            prop_assert_eq!(fast, nom);
        }
    }

    /// A field name with 8-bit octets after its first (`X-Café:`) is a
    /// field, flagged: taken for the start of the body, a first line so
    /// made put the whole header into the body, and a later one the fields
    /// after it. One that starts with an 8-bit octet is not a name.
    #[test]
    fn an_eight_bit_field_name_is_a_field_flagged() {
        for (input, names) in [
            (
                &b"X-Caf\xc3\xa9: oui\nFrom: a@b.c\nSubject: s\n\nbody\n"[..],
                &[&b"X-Caf\xc3\xa9"[..], b"From", b"Subject"][..],
            ),
            (
                b"From: a@b.c\nX-Gr\xfc\xdfe : ja\nSubject: s\n\nbody\n",
                &[b"From", b"X-Gr\xfc\xdfe", b"Subject"],
            ),
        ] {
            let h = parse_header_block(input);
            let got: Vec<&[u8]> = h.fields.iter().map(|f| f.name).collect();
            assert_eq!(got, names);
            assert_eq!(&input[h.body_offset..], b"body\n");
            let flagged: Vec<usize> = h.fields.iter().map(|f| f.findings().len()).collect();
            assert_eq!(
                flagged,
                names
                    .iter()
                    .map(|n| usize::from(!n.is_ascii()))
                    .collect::<Vec<_>>()
            );
        }
        let h = parse_header_block(b"\xc3\x9cber: x\nFrom: a@b.c\n\nbody\n");
        assert!(h.fields.is_empty());
        assert_eq!(h.body_offset, 0);
    }

    /// A recycled vector is reused by the next block on the thread, and
    /// nothing of the block it held (fields, their findings) leaks into it.
    #[test]
    fn recycled_fields_are_reused_and_start_empty() {
        let first: Vec<u8> = (0..40)
            .flat_map(|i| format!("X-{i}: v\nno colon {i}\n").into_bytes())
            .chain(*b"X-end: v\n\nbody")
            .collect();
        let h = parse_header_block_sized(&first, 48);
        assert!(h.fields.iter().any(|f| !f.findings().is_empty()));
        let at = h.fields.as_ptr() as usize;
        recycle_fields(h.fields);
        let second = b"A: 1\nB: 2\n\nbody";
        let h = parse_header_block_sized(second, 48);
        assert_eq!(
            h.fields.as_ptr() as usize,
            at,
            "the spare vector was not reused"
        );
        let fresh = parse_header_block(second);
        let view = |h: &HeaderBlock<'_>| -> Vec<(Vec<u8>, Vec<u8>, usize)> {
            h.fields
                .iter()
                .map(|f| (f.name.to_vec(), f.raw.to_vec(), f.findings().len()))
                .collect()
        };
        assert_eq!(view(&h), view(&fresh));
        // A smaller request than the spare one's room takes it too; a
        // larger one leaves it for later.
        recycle_fields(h.fields);
        let h = parse_header_block_sized(second, 4096);
        assert_ne!(h.fields.as_ptr() as usize, at);
        assert_eq!(
            parse_header_block_sized(second, 2).fields.as_ptr() as usize,
            at
        );
    }

    #[test]
    fn fields_cover_the_block_byte_for_byte() {
        let m = b"A: 1\r\nB:\r\n  two\r\n\tthree\r\nC : x\nno colon\rD: y\r\n\r\nbody";
        let h = parse_header_block(m);
        let joined: Vec<u8> = h
            .fields
            .iter()
            .flat_map(|f| f.raw.iter().copied())
            .collect();
        assert_eq!(&joined[..], &m[..h.header_end]);
        assert_eq!(&m[h.body_offset..], b"body");
        assert_eq!(h.separator, Some(LineEnding::Crlf));
        let names: Vec<&[u8]> = h.fields.iter().map(|f| f.name).collect();
        assert_eq!(names, [&b"A"[..], b"B", b"C", b"", b"D"]);
        assert_eq!(
            &*h.get("b").unwrap().unfolded(),
            b"  two\tthree".trim_ascii()
        );
        assert_eq!(h.fields[1].line_ending, LineEnding::Crlf);
        assert_eq!(h.fields[2].line_ending, LineEnding::Lf);
        assert_eq!(h.fields[3].line_ending, LineEnding::Cr);
        assert_eq!(h.fields[3].findings().len(), 1);
        for f in &h.fields {
            assert_eq!(&m[f.value_offset..f.value_offset + f.value.len()], f.value);
        }
    }

    #[test]
    fn long_lines_and_nul_are_reported() {
        let mut m = b"A: ".to_vec();
        m.extend(std::iter::repeat_n(b'x', 1000));
        m.extend_from_slice(b"\r\nB: \0\r\n\r\n");
        let h = parse_header_block(&m);
        assert_eq!(h.fields[0].findings().len(), 1);
        assert!(h.fields[1].findings().is_empty());
        assert_eq!(h.findings.len(), 1);
        assert_eq!(h.findings[0].offset, 1008);
    }

    /// The header ends before its first line that is neither a field nor
    /// a continuation (Python's `email` reads it so), with a `malformed`
    /// finding; a broken fold between fields, a `From ` or `>From ` line,
    /// a continuation, an obsolete `Name :` and raw 8-bit values do not.
    #[test]
    fn a_line_that_is_not_a_field_starts_the_body() {
        fn body_at(m: &[u8]) -> (&[u8], Option<LineEnding>, bool) {
            let h = parse_header_block(m);
            assert!(h.header_end <= h.body_offset);
            (
                &m[h.body_offset..],
                h.separator,
                h.findings
                    .iter()
                    .any(|f| f.note.as_deref() == Some(NO_SEPARATOR)),
            )
        }
        let none = |b: &'static [u8]| (b, None, true);
        assert_eq!(
            body_at(b"Gr\xfc\xdfe\nSecond line.\n"),
            none(b"Gr\xfc\xdfe\nSecond line.\n")
        );
        assert_eq!(body_at(b"A: 1\nHello\n\nmore"), none(b"Hello\n\nmore"));
        assert_eq!(body_at(b"A: 1\r\nHello"), none(b"Hello"));
        assert_eq!(
            body_at(b"A: 1\nHello\nthere\nB: 2\n\nx"),
            none(b"Hello\nthere\nB: 2\n\nx")
        );
        assert_eq!(
            body_at(b"Content-Type text/plain\n\nx"),
            none(b"Content-Type text/plain\n\nx")
        );
        assert_eq!(
            body_at(b"A: 1\nContent-Type text/plain\n\nx"),
            none(b"Content-Type text/plain\n\nx")
        );
        // A stray line at the start is no broken fold (nothing to fold into).
        assert_eq!(body_at(b"Hello\nB: 2\n\nx"), none(b"Hello\nB: 2\n\nx"));
        // Nor one directly before the end of the input.
        assert_eq!(body_at(b"A: 1\nB: 2\nHello"), none(b"Hello"));
        assert_eq!(
            body_at(b"A: 1\nHello\nB: 2\nbye\n"),
            none(b"Hello\nB: 2\nbye\n")
        );
        // A header (part) that runs to the end of the input is resumed.
        let h = parse_header_block(b"A: 1\nbroken fold\nB: 2\n");
        assert_eq!((h.fields.len(), h.body_offset, h.separator), (3, 22, None));
        assert!(h.findings.is_empty());
        let header = |b: &'static [u8]| (b, Some(LineEnding::Lf), false);
        for m in [
            &b"Subject: a long subject\nbroken fold\nMessage-ID: <a@b>\n\nx"[..],
            b"A: 1\nfold one\nB: 2\nfold two\nC: 3\n \tcontinued\n\nx",
            b"A: 1\n continued\n\tand tabbed\n\nx",
            b"Subject : obsolete\n\nx",
            b"From a@b Mon Jan  1 00:00:00 2001\nA: 1\n\nx",
            b">From a@b Mon Jan  1 00:00:00 2001\nA: 1\n\nx",
            b"A: 1\nFrom a@b Mon Jan  1 00:00:00 2001\n\nx",
            b"Subject: Gr\xfc\xdfe\nFrom: J\xc3\xbcrgen <j@b>\n\nx",
            b"\xEF\xBB\xBFFrom: a@b\nbroken fold\nB: 2\n\nx",
            b" continuation first\nA: 1\n\nx",
        ] {
            assert_eq!(body_at(m), header(b"x"), "{}", String::from_utf8_lossy(m));
        }
    }

    /// A delimiter line above a multipart's Content-Type, with one of its
    /// boundary below the fields (`repeated_delimiter`): kept in the
    /// header, which ends at the second. Not without that Content-Type,
    /// nor when another boundary's, nor after a first Content-Type, nor
    /// with a line that is not a field between.
    #[test]
    fn delimiter_above_a_multipart_content_type_with_one_below() {
        fn body_at(m: &[u8]) -> &[u8] {
            &m[parse_header_block(m).body_offset..]
        }
        let ct = "Content-Type: multipart/mixed; boundary=\"b \"\n";
        for (head, first) in [
            (format!("A: 1\n--b\n{ct}--b\n"), "--b\n"),
            (format!("A: 1\n--b \n{ct}X: 2\n--b\t\n"), "--b\t\n"),
            // a broken fold above (`resumes`)
            (format!("A: 1\nwrapped\nB: 2\n--b\n{ct}--b\n"), "--b\n"),
        ] {
            for rest in ["\nx\n--b--\n", "x\n--b--\n"] {
                let m = format!("{head}{rest}");
                let h = parse_header_block(m.as_bytes());
                assert_eq!(
                    body_at(m.as_bytes()),
                    format!("{first}{rest}").as_bytes(),
                    "{m}"
                );
                assert!(h.fields.iter().any(|f| f.is("content-type")));
                assert_eq!(h.fields[1].name, b"");
                assert!(h.fields.iter().all(|f| !f.raw.starts_with(b"x")));
            }
        }
        for m in [
            &b"A: 1\n--b\nSubject: x\n--b\n\nx"[..],
            b"A: 1\n--c\nContent-Type: multipart/mixed; boundary=b\n--b\n\nx",
            b"A: 1\n--b\nContent-Type: text/plain; boundary=b\n--b\n\nx",
            b"Content-Type: text/plain\n--b\nContent-Type: multipart/mixed; boundary=b\n--b\n\nx",
            b"A: 1\n--b\nContent-Type: multipart/mixed; boundary=b\ntext\n--b\n\nx",
            b"A: 1\n--b--\nContent-Type: multipart/mixed; boundary=b\n--b\n\nx",
        ] {
            let at = m.windows(3).position(|w| w == b"\n--").map_or(0, |i| i + 1);
            assert_eq!(body_at(m), &m[at..], "{}", String::from_utf8_lossy(m));
        }
    }

    #[test]
    fn no_blank_line_and_no_final_line_end() {
        let h = parse_header_block(b"Subject: hi");
        assert_eq!(h.fields.len(), 1);
        assert_eq!(h.body_offset, 11);
        assert_eq!(h.separator, None);
        assert_eq!(h.fields[0].line_ending, LineEnding::None);
        let h = parse_header_block(b"");
        assert!(h.fields.is_empty());
        let h = parse_header_block(b"\nbody");
        assert_eq!(h.body_offset, 1);
    }
}
