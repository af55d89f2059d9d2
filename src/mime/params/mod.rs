//! `Content-Type`, `Content-Disposition`, `Content-Transfer-Encoding` and
//! their parameters (RFC 2045 5.1, RFC 2183, RFC 2231).

mod rfc2231;

use super::encoded_word::{self, EncodedWord};
use super::lexer::{self, PResult, is_fws, offset_in};
use super::{Decoding, decode_labelled, decode_raw, malformed};
use crate::charset::DecodeOptions;
use crate::finding::Finding;
use nom::Parser;
use nom::bytes::complete::take_while1;
use rfc2231::join_sections;
use std::borrow::Cow;

/// How a parameter value was encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ParamEncoding {
    /// A token or quoted-string as RFC 2045 has it (raw 8-bit octets are
    /// decoded by the RFC 6532 rule).
    Plain,
    /// RFC 2231: `name*=charset'lang'%XX` and/or continuations `name*N`.
    Rfc2231,
    /// RFC 2047 encoded-words inside the value (not allowed by RFC 2047,
    /// written by many mailers).
    Rfc2047,
}

/// One parameter, all its RFC 2231 sections joined.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    /// The name, ASCII-lowercased, without section number or `*`
    /// (borrowed for the names mail uses most: [`Cow`] derefs to `str`).
    pub name: Cow<'static, str>,
    /// The value as text.
    pub value: String,
    /// The value's octets before charset decoding: quoted-strings unquoted,
    /// sections joined, `%XX` decoded (the octets handed to the charset
    /// layer for an RFC 2231 value).
    pub raw: Vec<u8>,
    /// The RFC 2231 charset label, as written.
    pub charset: Option<Vec<u8>>,
    /// The RFC 2231 (or RFC 2047 `*lang`) language tag.
    pub language: Option<String>,
    /// Plain, RFC 2231 or RFC 2047 inside the value.
    pub encoding: ParamEncoding,
    /// What the charset layer said (RFC 2231 values and raw 8-bit values).
    pub decoding: Option<Decoding>,
    /// The encoded-words of an RFC 2047 value.
    pub words: Vec<EncodedWord>,
    /// Offset of the parameter (its first section) in the field value.
    pub offset: usize,
    /// Where each `name=value` of this parameter is written in the field
    /// value (every section, duplicates and plain fallbacks included), in
    /// written order: what a rewrite replaces to change this parameter.
    pub spans: Vec<std::ops::Range<usize>>,
    /// Structural findings: duplicate, missing or out-of-order sections,
    /// bad `%XX`, malformed encoded-words, raw 8-bit octets. Offsets are
    /// into the field value; for findings inside the value (encoded-words,
    /// raw 8-bit) they are the parameter's offset plus the offset in the
    /// unquoted value, so approximate when quoted-pairs or folds precede.
    pub findings: Vec<Finding>,
}

/// A parsed `Content-Type`.
#[derive(Clone, Debug, PartialEq)]
pub struct ContentType {
    /// Top-level type, ASCII-lowercased (`text`); borrowed for the types
    /// mail uses most, as [`ContentType::subtype`] and [`Parameter::name`]
    /// are (a part's header is parsed for every message, and three
    /// allocations a part were 2% of an audit).
    pub media_type: Cow<'static, str>,
    /// Subtype, ASCII-lowercased (`plain`).
    pub subtype: Cow<'static, str>,
    /// Parameters in order of first appearance.
    pub params: Vec<Parameter>,
    /// True when the type is the default `text/plain` because the field was
    /// absent or its type unparsable (RFC 2045 5.2).
    pub defaulted: bool,
    /// What parsing and decoding the value found.
    pub findings: Vec<Finding>,
}

impl Default for ContentType {
    /// `text/plain` with no parameters, `defaulted` (RFC 2045 5.2: the
    /// charset is then us-ascii).
    fn default() -> Self {
        ContentType {
            media_type: "text".into(),
            subtype: "plain".into(),
            params: Vec::new(),
            defaulted: true,
            findings: Vec::new(),
        }
    }
}

impl ContentType {
    /// Parses a `Content-Type` field value (raw, possibly folded). Never
    /// fails: an unparsable type yields `text/plain` with `defaulted` and a
    /// `malformed` finding; the parameters are kept anyway.
    ///
    /// ```abnf
    /// content   = "Content-Type" ":" type "/" subtype *(";" parameter)
    /// type      = token            ; RFC 2045 5.1, CFWS between tokens
    /// subtype   = token
    /// parameter = attribute "=" value
    /// value     = token / quoted-string
    /// ```
    pub fn parse(value: &[u8]) -> Self {
        Self::parse_with(value, &DecodeOptions::default())
    }

    /// [`ContentType::parse`] with charset decoding options.
    pub fn parse_with(value: &[u8], opts: &DecodeOptions) -> Self {
        let mut findings = Vec::new();
        let (mut rest, ty) = media_type(value);
        if !matches!(ty, Some((_, Some(_)))) {
            // Whatever is left of an unparsable type is not a parameter.
            rest = skip_to_semicolon(rest);
        }
        let (media_type, subtype, defaulted) = match ty {
            Some((t, Some(s))) => (token_lower(t), token_lower(s), false),
            _ => {
                findings.push(malformed(
                    0,
                    "unparsable media type, defaulting to text/plain",
                ));
                (Cow::Borrowed("text"), Cow::Borrowed("plain"), true)
            }
        };
        let params = parameters(value, rest, opts, &mut findings);
        ContentType {
            media_type,
            subtype,
            params,
            defaulted,
            findings,
        }
    }

    /// A default `message/rfc822` (for parts of a multipart/digest,
    /// RFC 2046 5.1.5).
    pub fn digest_default() -> Self {
        ContentType {
            media_type: "message".into(),
            subtype: "rfc822".into(),
            ..ContentType::default()
        }
    }

    /// `type/subtype`.
    pub fn mime_type(&self) -> String {
        format!("{}/{}", self.media_type, self.subtype)
    }

    /// True when this is `type/subtype` (ASCII case-insensitive).
    pub fn is(&self, media_type: &str, subtype: &str) -> bool {
        self.media_type.eq_ignore_ascii_case(media_type)
            && self.subtype.eq_ignore_ascii_case(subtype)
    }

    /// `multipart/*`.
    pub fn is_multipart(&self) -> bool {
        self.media_type == "multipart"
    }

    /// `text/*`.
    pub fn is_text(&self) -> bool {
        self.media_type == "text"
    }

    /// The parameter with this name (lowercase).
    pub fn param(&self, name: &str) -> Option<&Parameter> {
        find_param(&self.params, name)
    }

    /// The charset label octets of the `charset` parameter (trimmed).
    pub fn charset(&self) -> Option<&[u8]> {
        self.param("charset").map(|p| lexer::trim_fws(&p.raw))
    }

    /// The boundary octets, as the parameter writes them (the delimiter
    /// lines carry them, white space at the end optional: `boundary_core`).
    pub fn boundary(&self) -> Option<&[u8]> {
        self.param("boundary").map(|p| p.raw.as_slice())
    }

    /// The `name` parameter as text.
    pub fn name(&self) -> Option<&str> {
        self.param("name").map(|p| p.value.as_str())
    }
}

/// A boundary without the white space at its end, which RFC 2046 5.1.1
/// does not allow there (`bcharsnospace`): what a delimiter line starts
/// with, whether its writer carried that white space into the delimiter
/// lines or not. A boundary of white space only is kept whole.
pub(crate) fn boundary_core(boundary: &[u8]) -> &[u8] {
    match boundary.iter().rposition(|&b| b != b' ' && b != b'\t') {
        Some(i) => &boundary[..=i],
        None => boundary,
    }
}

/// A parsed `Content-Disposition` (RFC 2183).
#[derive(Clone, Debug, PartialEq)]
pub struct ContentDisposition {
    /// `inline`, `attachment`, ... ASCII-lowercased; empty when unparsable.
    pub disposition: String,
    /// The parameters, in order.
    pub params: Vec<Parameter>,
    /// What parsing found.
    pub findings: Vec<Finding>,
}

impl ContentDisposition {
    /// Parses a `Content-Disposition` field value. Never fails.
    ///
    /// ```abnf
    /// disposition      = "Content-Disposition" ":" disposition-type
    ///                    *(";" disposition-parm)       ; RFC 2183 2
    /// disposition-type = "inline" / "attachment" / extension-token
    /// disposition-parm = filename-parm / ... / parameter
    /// ```
    pub fn parse(value: &[u8]) -> Self {
        Self::parse_with(value, &DecodeOptions::default())
    }

    /// [`ContentDisposition::parse`] with charset decoding options.
    pub fn parse_with(value: &[u8], opts: &DecodeOptions) -> Self {
        let mut findings = Vec::new();
        let (mut rest, ty) = media_type(value);
        if ty.is_none() {
            rest = skip_to_semicolon(rest);
        }
        let disposition = match ty {
            Some((t, None)) => ascii_lower(t),
            Some((t, Some(s))) => {
                findings.push(malformed(0, "disposition type with a subtype"));
                format!("{}/{}", ascii_lower(t), ascii_lower(s))
            }
            None => {
                findings.push(malformed(0, "missing disposition type"));
                String::new()
            }
        };
        let params = parameters(value, rest, opts, &mut findings);
        ContentDisposition {
            disposition,
            params,
            findings,
        }
    }

    /// `attachment`.
    pub fn is_attachment(&self) -> bool {
        self.disposition == "attachment"
    }

    /// `inline`.
    pub fn is_inline(&self) -> bool {
        self.disposition == "inline"
    }

    /// The parameter with this name (lowercase).
    pub fn param(&self, name: &str) -> Option<&Parameter> {
        find_param(&self.params, name)
    }

    /// The `filename` parameter as text.
    pub fn filename(&self) -> Option<&str> {
        self.param("filename").map(|p| p.value.as_str())
    }
}

/// `Content-Transfer-Encoding` (RFC 2045 6.1).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TransferEncoding {
    /// `7bit`.
    SevenBit,
    /// `8bit`.
    EightBit,
    /// `binary`.
    Binary,
    /// `quoted-printable`.
    QuotedPrintable,
    /// `base64`.
    Base64,
    /// Anything else (`x-uuencode`, misspellings), ASCII-lowercased.
    Other(String),
}

impl TransferEncoding {
    /// Parses the field value; comments and white space are ignored.
    ///
    /// ```abnf
    /// encoding  = "Content-Transfer-Encoding" ":" mechanism
    /// mechanism = "7bit" / "8bit" / "binary" / "quoted-printable" / "base64"
    ///           / ietf-token / x-token
    /// ```
    pub fn parse(value: &[u8]) -> Self {
        let rest = lexer::cfws(value);
        let tok = match take_while1::<_, _, nom::error::Error<&[u8]>>(|b: u8| {
            !is_fws(b) && b != b'(' && b != b';'
        })
        .parse(rest)
        {
            Ok((_, t)) => t,
            Err(_) => return TransferEncoding::Other(String::new()),
        };
        // Compared without a lowercased copy: every part has the field.
        const KNOWN: [(&[u8], TransferEncoding); 5] = [
            (b"7bit", TransferEncoding::SevenBit),
            (b"8bit", TransferEncoding::EightBit),
            (b"binary", TransferEncoding::Binary),
            (b"quoted-printable", TransferEncoding::QuotedPrintable),
            (b"base64", TransferEncoding::Base64),
        ];
        KNOWN
            .into_iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(tok))
            .map_or_else(|| TransferEncoding::Other(ascii_lower(tok)), |(_, te)| te)
    }

    /// The canonical name (`quoted-printable`, ...).
    pub fn as_str(&self) -> &str {
        match self {
            TransferEncoding::SevenBit => "7bit",
            TransferEncoding::EightBit => "8bit",
            TransferEncoding::Binary => "binary",
            TransferEncoding::QuotedPrintable => "quoted-printable",
            TransferEncoding::Base64 => "base64",
            TransferEncoding::Other(s) => s,
        }
    }
}

fn find_param<'p>(params: &'p [Parameter], name: &str) -> Option<&'p Parameter> {
    params.iter().find(|p| p.name.eq_ignore_ascii_case(name))
}

fn ascii_lower(b: &[u8]) -> String {
    lexer::lossy(b).to_ascii_lowercase()
}

/// A media type, subtype or parameter name ASCII-lowercased: borrowed
/// from [`KNOWN_TOKENS`] when it is one of them, an owned copy otherwise.
pub(super) fn token_lower(b: &[u8]) -> Cow<'static, str> {
    KNOWN_TOKENS
        .iter()
        .find(|k| k.len() == b.len() && k.as_bytes().eq_ignore_ascii_case(b))
        .map_or_else(|| Cow::Owned(ascii_lower(b)), |k| Cow::Borrowed(*k))
}

/// The media types, subtypes and parameter names mail uses most (RFC 2045,
/// 2046, 2183, 3156, 3462, 3676, 5545, and what mailers add).
const KNOWN_TOKENS: &[&str] = &[
    "text",
    "plain",
    "html",
    "charset",
    "multipart",
    "mixed",
    "alternative",
    "related",
    "boundary",
    "name",
    "filename",
    "format",
    "flowed",
    "delsp",
    "application",
    "octet-stream",
    "message",
    "rfc822",
    "type",
    "signed",
    "protocol",
    "micalg",
    "encrypted",
    "pgp-signature",
    "pgp-encrypted",
    "pkcs7-signature",
    "x-pkcs7-signature",
    "pkcs7-mime",
    "report",
    "report-type",
    "delivery-status",
    "rfc822-headers",
    "disposition-notification",
    "digest",
    "image",
    "jpeg",
    "png",
    "gif",
    "pdf",
    "zip",
    "msword",
    "ms-tnef",
    "xml",
    "css",
    "csv",
    "rtf",
    "enriched",
    "richtext",
    "calendar",
    "method",
    "x-vcard",
    "vcard",
    "x-patch",
    "x-diff",
    "size",
    "reply-type",
    "start",
    "id",
    "number",
    "total",
    "partial",
    "external-body",
    "access-type",
    "creation-date",
    "modification-date",
    "read-date",
    "x-mac-type",
    "x-mac-creator",
    "x-unix-mode",
    "audio",
    "video",
    "global",
];

/// Lenient type token: anything but white space, `;`, `/`, `(` and `"`
/// (real mail has `text/plain/format`, `application/pro_eng`, 8-bit types).
///
/// ```abnf
/// type    = token          ; RFC 2045 5.1
/// lenient = 1*(%x21-FF except ";" / "/" / "(" / DQUOTE)
/// ```
fn type_token(i: &[u8]) -> PResult<'_, &[u8]> {
    take_while1(|b: u8| !is_fws(b) && !matches!(b, b';' | b'/' | b'(' | b'"')).parse(i)
}

/// Lenient subtype token: as [`type_token`], `/` allowed.
///
/// ```abnf
/// subtype = token          ; RFC 2045 5.1
/// lenient = 1*(%x21-FF except ";" / "(" / DQUOTE)
/// ```
fn subtype_token(i: &[u8]) -> PResult<'_, &[u8]> {
    take_while1(|b: u8| !is_fws(b) && !matches!(b, b';' | b'(' | b'"')).parse(i)
}

/// `type ["/" subtype]` with CFWS around each token. Returns the rest
/// (at the first `;` or what could not be parsed) and the tokens.
///
/// ```abnf
/// media-type = [CFWS] type [CFWS] ["/" [CFWS] [subtype] [CFWS]]
/// ```
#[allow(clippy::type_complexity)]
fn media_type(value: &[u8]) -> (&[u8], Option<(&[u8], Option<&[u8]>)>) {
    let i = lexer::cfws(value);
    let Ok((i, ty)) = type_token(i) else {
        return (i, None);
    };
    let i = lexer::cfws(i);
    let Some(i) = i.strip_prefix(b"/") else {
        return (i, Some((ty, None)));
    };
    let i = lexer::cfws(i);
    match subtype_token(i) {
        Ok((i, sub)) => (lexer::cfws(i), Some((ty, Some(sub)))),
        Err(_) => (i, Some((ty, None))),
    }
}

/// One parameter as written, before sections are joined.
struct RawParam<'a> {
    /// Attribute without section and `*`.
    name: &'a [u8],
    /// `Some(n)` for `name*n`; `Some(u32::MAX)` when the number overflows.
    section: Option<u32>,
    /// `name*` or `name*n*`.
    extended: bool,
    /// Unquoted value octets (quoted-pairs resolved, unfolded).
    value: Cow<'a, [u8]>,
    /// A quoted string without its closing quote (it ran to the end).
    unterminated: bool,
    /// Offset of the parameter in the field value, and of its end.
    offset: usize,
    end: usize,
}

/// RFC 2231 attribute character (RFC 2045 token minus `*`, `'`, `%`);
/// leniently any octet but white space, `;`, `=`, `(`, `"` and `*`.
fn is_attr_char(b: u8) -> bool {
    !is_fws(b) && !matches!(b, b';' | b'=' | b'(' | b'"' | b'*')
}

/// Parameter name with its RFC 2231 section and star.
///
/// ```abnf
/// parameter-name = attribute [section] ["*"]   ; RFC 2231 7
/// section        = "*" 1*DIGIT                 ; "*0" / "*" non-zero-digit *DIGIT
/// ```
fn param_name(i: &[u8]) -> PResult<'_, (&[u8], Option<u32>, bool)> {
    let (mut i, name) = take_while1(is_attr_char).parse(i)?;
    let mut section = None;
    let mut extended = false;
    if let Some(r) = i.strip_prefix(b"*") {
        if let Ok((r2, digits)) =
            take_while1::<_, _, nom::error::Error<&[u8]>>(|b: u8| b.is_ascii_digit()).parse(r)
        {
            let n = std::str::from_utf8(digits)
                .ok()
                .and_then(|d| d.parse::<u32>().ok())
                .unwrap_or(u32::MAX);
            section = Some(n);
            i = r2;
            if let Some(r3) = i.strip_prefix(b"*") {
                extended = true;
                i = r3;
            }
        } else {
            extended = true;
            i = r;
        }
    }
    Ok((i, (name, section, extended)))
}

/// True when a white-space-separated run looks like the start of another
/// parameter (`attr=`), i.e. a `;` was left out.
fn looks_like_param(run: &[u8]) -> bool {
    match param_name(run) {
        Ok((rest, _)) => rest.first() == Some(&b'='),
        Err(_) => false,
    }
}

/// An unquoted value: the first run of octets up to white space or `;`,
/// then further runs separated by white space unless they start a comment
/// or look like another parameter. Returns the value span (as written).
///
/// ```abnf
/// value-lenient = run *(FWS run)   ; a run: 1*(any octet but FWS / ";")
/// ```
fn unquoted_value(i: &[u8]) -> PResult<'_, &[u8]> {
    let is_run = |b: u8| !is_fws(b) && b != b';';
    let (mut rest, _) = take_while1(is_run).parse(i)?;
    loop {
        let after_ws = lexer::opt_fws(rest);
        if after_ws.len() == rest.len() {
            break;
        }
        match take_while1::<_, _, nom::error::Error<&[u8]>>(is_run).parse(after_ws) {
            Ok((r, run)) if run[0] != b'(' && !looks_like_param(run) => rest = r,
            _ => break,
        }
    }
    let len = offset_in(i, rest);
    Ok((rest, &i[..len]))
}

/// The parameter list after the type.
///
/// ```abnf
/// params = *([CFWS] ";" [CFWS] [parameter [CFWS]])   ; `;` may be missing
/// ```
fn parameters(
    whole: &[u8],
    mut i: &[u8],
    opts: &DecodeOptions,
    findings: &mut Vec<Finding>,
) -> Vec<Parameter> {
    let mut raw = Vec::new();
    loop {
        i = lexer::cfws(i);
        if i.is_empty() {
            break;
        }
        if let Some(r) = i.strip_prefix(b";") {
            i = r;
            continue;
        }
        let offset = offset_in(whole, i);
        match parameter(i, offset) {
            Ok((r, Some(mut p))) => {
                p.end = offset_in(whole, r);
                raw.push(p);
                i = r;
            }
            Ok((r, None)) | Err(nom::Err::Error(nom::error::Error { input: r, .. })) => {
                findings.push(malformed(offset, "parameter without a name or value"));
                i = skip_to_semicolon(if r.len() < i.len() { r } else { &i[1..] });
            }
            Err(_) => break,
        }
    }
    join_sections(raw, opts)
}

fn skip_to_semicolon(i: &[u8]) -> &[u8] {
    let mut i = i;
    while let Some(&b) = i.first() {
        match b {
            b';' => break,
            b'"' => match lexer::quoted_string(i) {
                Ok((r, _)) => i = r,
                Err(_) => i = &i[1..],
            },
            _ => i = &i[1..],
        }
    }
    i
}

/// One `attribute = value`. `Ok((rest, None))` for a parameter with an
/// empty unquoted value (dropped).
///
/// ```abnf
/// parameter = attribute [CFWS] "=" [CFWS] value
/// value     = quoted-string / value-lenient
/// ```
fn parameter(i: &[u8], offset: usize) -> PResult<'_, Option<RawParam<'_>>> {
    let (r, (name, section, extended)) = param_name(i)?;
    let r = lexer::cfws(r);
    let (r, _) = nom::bytes::complete::tag(&b"="[..]).parse(r)?;
    let r = lexer::opt_fws(r);
    if let Ok((r, (content, closed))) = lexer::quoted_string(r) {
        return Ok((
            r,
            Some(RawParam {
                name,
                section,
                extended,
                value: lexer::unquote(content),
                unterminated: !closed,
                offset,
                end: offset,
            }),
        ));
    }
    match unquoted_value(r) {
        Ok((r, v)) => Ok((
            r,
            Some(RawParam {
                name,
                section,
                extended,
                value: lexer::unfold(v),
                unterminated: false,
                offset,
                end: offset,
            }),
        )),
        Err(_) => Ok((r, None)),
    }
}

pub(crate) fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(v: &str) -> Vec<(String, String)> {
        ContentType::parse(v.as_bytes())
            .params
            .into_iter()
            .map(|p| (p.name.into_owned(), p.value))
            .collect()
    }

    #[test]
    fn basics() {
        let ct = ContentType::parse(b" Text/Plain ; charset=\"ISO-8859-1\" (c); format=flowed");
        assert_eq!(ct.mime_type(), "text/plain");
        assert_eq!(ct.charset(), Some(&b"ISO-8859-1"[..]));
        assert_eq!(ct.params[1].value, "flowed");
        assert!(!ct.defaulted);
        let ct = ContentType::parse(b"multipart/mixed;\r\n boundary=\"=_a b\"");
        assert_eq!(ct.boundary(), Some(&b"=_a b"[..]));
    }

    #[test]
    fn rfc2231_sections_join_before_decoding() {
        // U+00E9 (C3 A9) split across two sections.
        let p = params("a/b; t*0*=utf-8'fr'caf%C3; t*1*=%A9; x=1");
        assert_eq!(p[0], ("t".into(), "café".into()));
        let ct = ContentType::parse(b"a/b; t*1=b; t*0=a; t*0=z; t*3=d");
        let t = ct.param("t").unwrap();
        assert_eq!(t.value, "abd");
        assert_eq!(t.findings.len(), 3, "{:?}", t.findings);
    }

    #[test]
    fn unterminated_quote_runs_to_the_end_and_is_reported() {
        let ct = ContentType::parse(b"a/b; name=\"abc; x=1");
        let p = ct.param("name").unwrap();
        assert_eq!(p.value, "abc; x=1");
        assert_eq!(p.findings.len(), 1);
        assert!(ct.param("x").is_none());
    }

    #[test]
    fn unparsable_type_defaults() {
        let ct = ContentType::parse(b"/plain; charset=utf-8");
        assert!(ct.defaulted);
        assert_eq!(ct.mime_type(), "text/plain");
        assert_eq!(ct.charset(), Some(&b"utf-8"[..]));
        assert_eq!(ct.findings.len(), 1);
    }
}
