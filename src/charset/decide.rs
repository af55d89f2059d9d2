//! The charset decision: which decoder reads a piece of labelled text, and
//! how far to trust the result. One rule for every caller (bodies,
//! encoded-word runs, RFC 2231 values, raw 8-bit header fields; normalize,
//! filter, audit and the library), so that they never disagree about a
//! piece of text.
//!
//! **The label is the prior; evidence decides.** Labels lie, but damage is
//! far commoner than a lie in a correctly working mailer's output, and the
//! worst thing a mail tool can do is to read a correctly labelled text with
//! one damaged octet as another charset. So the label's reading is kept
//! unless the label explains little of the text *and* a candidate explains
//! all of it *and* the candidate reads as plausible text.
//!
//! Evidence is counted under the label, line by line ([`Evidence`]):
//! `clean` (non-ASCII characters the label decodes), `errors` (ill-formed
//! sequences), and the characters of lines the label decodes entirely.
//!
//! | text under its label | evidence | verdict | text |
//! |---|---|---|---|
//! | ASCII | — | `ok` | as is |
//! | decodes cleanly | — | `ok` (findings: `suspicious`) | the label's |
//! | valid UTF-8, 3+ multi-octet characters, single-byte or CJK label | UTF-8 writers are the only source of such octets | `mislabeled` | UTF-8 |
//! | UTF-8 with damage under a single-byte label: 3+ UTF-8 letters in words, 8 per error | a damaged UTF-8 text | `invalid` (finding `mislabeled`) | UTF-8, U+FFFD at the damage |
//! | valid UTF-8, 1–2 multi-octet characters, other label | too little to decide | `suspicious` (finding `mislabeled`, note "kept") | the label's |
//! | a CJK label read mostly as half-width katakana, private use or C1 | implausible reading | `mislabeled` if a candidate reads plausibly | the candidate's |
//! | errors, label explains the text: `clean >= 1` and (`errors <= 3` or `8 * errors <= clean`), or 4+ characters on lines the label decodes entirely (and `8 * errors` at most 8 times those), or (UTF-8) complete forms only a UTF-8 writer makes, accounting for the errors (at most six per form, plus three) | damaged | `invalid` (`truncated` when it ends inside a character) | the label's, U+FFFD at the damage only |
//! | … and some damaged lines hold no character of the label but read cleanly in another charset | mixed | `invalid`, finding `mixed-charset` (that charset, first line) | the label's; with `repair_mixed`, those lines in that charset |
//! | errors, label explains little, 4+ non-ASCII octets, a candidate (valid UTF-8 first, then chardetng with the sender's top-level domain) decodes all of it and reads plausibly, its letters in words | mislabeled | `mislabeled` | the candidate's |
//! | errors, no such candidate (a single-byte candidate is refused when the UTF-8 label reads a letter inside a word) | too little evidence | `invalid` (`mixed-charset` as above) | the label's |
//! | no label, unknown, `unknown-8bit`, unsupported | — | (unknown label: `unknown-label`) | ASCII; UTF-8 if valid or mostly so; else chardetng with the top-level domain, windows-1252 for Latin script unless the text says otherwise |
//! | `us-ascii` with 8-bit octets | the label cannot explain them | `mislabeled` when they decode cleanly | as unlabelled |
//! | bodies only: NUL, C0 controls other than TAB LF FF CR ESC SO SI at 1% of the octets or more (a final SUB is allowed), or an archive/image/PDF magic number | binary | `suspicious`, finding `binary-in-text` | kept byte for byte ([`Decoded::binary`]) |
//! | bodies only: NULs in every other (or 3 of 4) octets under an ASCII-compatible or no label | UTF-16/32 without BOM | as for a label that lies | UTF-16 (byte-order guess) or UTF-32; binary when that does not decode cleanly |
//!
//! "Plausible" ([`plausible`]): at most a quarter of the non-ASCII
//! characters are C1 controls, private use, half-width katakana or U+FFFD;
//! at least half are letters; and the letters keep to one writing system
//! (Latin, Greek, Cyrillic, Hebrew, Arabic, Thai, Japanese, Korean or
//! Chinese) for at least four in five.
//!
//! `doc/charset-decision.md` has the reasoning and the measurements behind
//! these thresholds.

use super::{
    Charset, DecodeOptions, Decoded, Detected, Kind, add_report, ascii, c1_check, decode_with,
    unicode11,
};
use crate::codec::utf8::{self, DecodeReport};
use crate::finding::{Finding, FindingKind, LabelStatus, Verdict};
use std::borrow::Cow;
use std::ops::Range;

/// Multi-octet characters a valid UTF-8 text must hold before a legacy
/// label is overridden ("more than a couple").
const UTF8_OVERRIDE: usize = 3;
/// Non-ASCII octets below which detection never overrides a label (one to
/// three octets are no evidence: damage looks the same).
const MIN_EVIDENCE: usize = 4;

/// Which top-level domain the text came from (chardetng's hint): lower-case
/// ASCII letters, digits and `-`, at most 15 octets. Copy, so that it can
/// sit in [`DecodeOptions`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tld {
    buf: [u8; 15],
    len: u8,
}

impl Tld {
    /// The last label of a domain (`example.co.jp` → `jp`), if it is a
    /// plausible top-level domain.
    #[must_use]
    pub fn from_domain(domain: &[u8]) -> Option<Tld> {
        let domain = domain.strip_suffix(b".").unwrap_or(domain);
        let last = domain.rsplit(|&b| b == b'.').next()?;
        if last.is_empty()
            || last.len() > 15
            || last.len() == domain.len()
            || !last.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
            || last.iter().all(u8::is_ascii_digit)
        {
            return None;
        }
        let mut t = Tld::default();
        for (d, s) in t.buf.iter_mut().zip(last) {
            *d = s.to_ascii_lowercase();
        }
        t.len = last.len() as u8;
        Some(t)
    }

    /// The domain of the first address in a header value (`From:`,
    /// `Message-ID:`): what follows the last `@` up to `>`, white space, `)`
    /// or `,`.
    #[must_use]
    pub fn from_address(value: &[u8]) -> Option<Tld> {
        let at = memchr::memrchr(b'@', value)?;
        let rest = &value[at + 1..];
        let end = rest
            .iter()
            .position(|&b| matches!(b, b'>' | b')' | b',' | b';' | b'"') || b.is_ascii_whitespace())
            .unwrap_or(rest.len());
        Tld::from_domain(rest.get(..end)?)
    }

    /// The hint for a message: the sender's domain, else the Message-ID's.
    #[must_use]
    pub fn for_message(from: Option<&[u8]>, message_id: Option<&[u8]>) -> Option<Tld> {
        from.and_then(Tld::from_address)
            .or_else(|| message_id.and_then(Tld::from_address))
    }

    /// The label as chardetng wants it.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..usize::from(self.len)]
    }
}

/// What the label explains of a text, counted line by line.
#[derive(Debug, Default)]
pub(super) struct Evidence {
    /// Non-ASCII characters the label decodes.
    pub clean: usize,
    /// Of those, letters next to another letter: characters in words. Octets
    /// of another charset that happen to form a valid sequence sit next to
    /// errors, not inside words.
    pub in_words: usize,
    /// Ill-formed sequences under the label.
    pub errors: usize,
    /// Non-ASCII characters on lines the label decodes without error.
    pub clean_line_chars: usize,
    /// Octets >= 0x80.
    pub nonascii: usize,
    /// Lines with more errors than characters of the label (and, under
    /// UTF-8, not a single cut sequence): text in another charset, maybe.
    pub foreign: Vec<Range<usize>>,
}

impl Evidence {
    /// Whether the label explains most of the text (it is damaged, not
    /// wrong): characters in words and at most three errors, or at most
    /// four errors per character in words (at least a fifth of the text is
    /// the label's); or four or more characters on lines the label decodes
    /// entirely, with at most eight errors per such character.
    pub fn explained(&self) -> bool {
        (self.in_words >= 1 && (self.errors <= 3 || self.errors <= 4 * self.in_words))
            || (self.clean_line_chars >= 4 && self.errors <= self.clean_line_chars * 8)
    }
}

/// The lines of `bytes` (each with its line end).
fn lines(bytes: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= bytes.len() {
            return None;
        }
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i + 1);
        let r = at..end;
        at = end;
        Some(r)
    })
}

/// (non-ASCII characters other than U+FFFD, of those letters next to a
/// letter).
fn characters(text: &str) -> (usize, usize) {
    let chars: Vec<char> = text.chars().collect();
    let mut clean = 0;
    let mut in_words = 0;
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii() || c == '\u{FFFD}' {
            continue;
        }
        clean += 1;
        let prev = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
        let next = chars.get(i + 1).copied();
        if same_word(c, prev) || same_word(c, next) {
            in_words += 1;
        }
    }
    (clean, in_words)
}

/// Whether `c` and its neighbour are letters of one word: the same writing
/// system (an ASCII letter counts as Latin). Letters of the blocks real
/// text rarely uses (Latin Extended-B, archaic Cyrillic, Armenian ...) are
/// [`Script::Other`] and make no word: they are what octets of another
/// charset turn into.
fn same_word(c: char, neighbour: Option<char>) -> bool {
    let Some(n) = neighbour else {
        return false;
    };
    if !c.is_alphabetic() || !n.is_alphabetic() {
        return false;
    }
    let sc = script(c);
    let sn = if n.is_ascii() {
        Script::Latin
    } else {
        script(n)
    };
    sc != Script::Other
        && (sc == sn
            || matches!(
                (sc, sn),
                (Script::Han, Script::Kana | Script::Hangul)
                    | (Script::Kana | Script::Hangul, Script::Han)
            ))
}

/// Counts the evidence for `cs` (an ASCII-compatible charset) over `bytes`.
pub(super) fn evidence(bytes: &[u8], cs: &'static Charset) -> Evidence {
    let mut ev = Evidence::default();
    let utf8_family = cs.is_utf8() || cs.is_unicode11_utf8();
    for r in lines(bytes) {
        let line = &bytes[r.clone()];
        let nonascii = line.iter().filter(|b| !b.is_ascii()).count();
        if nonascii == 0 {
            continue;
        }
        ev.nonascii += nonascii;
        let (text, errors, cut) = if utf8_family {
            let mut errors = 0;
            let mut cut = false;
            for chunk in line.utf8_chunks() {
                if !chunk.invalid().is_empty() {
                    errors += 1;
                    // A lead octet with its first continuation: a UTF-8
                    // sequence cut short, not a legacy octet.
                    cut |= chunk.invalid().len() >= 2;
                }
            }
            (String::from_utf8_lossy(line), errors, cut)
        } else {
            let (text, report, _) = decode_with(line, cs);
            (text, report.replacements, false)
        };
        let (clean, in_words) = characters(&text);
        ev.clean += clean;
        ev.in_words += in_words;
        ev.errors += errors;
        if errors == 0 {
            ev.clean_line_chars += clean;
        } else if errors > clean && (!cut || errors >= 2) {
            // The label fails on more than it reads here (legacy octets
            // often pair up as an odd valid sequence), and this is not one
            // UTF-8 sequence cut short.
            ev.foreign.push(r);
        }
    }
    ev
}

/// Complete forms that only a UTF-8 writer produces: an overlong sequence
/// with all its continuation octets, an encoded surrogate (`ED A0..BF xx`),
/// a whole 5- or 6-octet sequence, a 4-octet value above U+10FFFF. A lone
/// F8..FD octet is not one.
pub(super) fn utf8_writer_forms(bytes: &[u8]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let len = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            0xF8..=0xFB => 5,
            0xFC..=0xFD => 6,
            _ => {
                i += 1;
                continue;
            }
        };
        let Some(seq) = bytes.get(i..i + len) else {
            break;
        };
        if !seq[1..].iter().all(|&c| (0x80..0xC0).contains(&c)) {
            i += 1;
            continue;
        }
        let writer = match len {
            2 => b < 0xC2,
            3 => (b == 0xE0 && seq[1] < 0xA0) || (b == 0xED && seq[1] >= 0xA0),
            4 => (b == 0xF0 && seq[1] < 0x90) || (b == 0xF4 && seq[1] >= 0x90) || b > 0xF4,
            _ => true,
        };
        n += usize::from(writer);
        i += len;
    }
    n
}

/// A quick look before [`evidence`]: at least three valid multi-octet
/// UTF-8 sequences, and more of them than ill-formed ones.
fn utf8_majority(bytes: &[u8]) -> bool {
    let mut valid = 0usize;
    let mut invalid = 0usize;
    for chunk in bytes.utf8_chunks() {
        valid += multi_octet_chars(chunk.valid());
        invalid += usize::from(!chunk.invalid().is_empty());
    }
    valid >= 3 && valid > invalid
}

/// Multi-octet characters of valid UTF-8.
fn multi_octet_chars(s: &str) -> usize {
    s.bytes().filter(|&b| b >= 0xC0).count()
}

/// A chardetng guess over (up to) the first 256 KiB.
pub(super) fn guess(bytes: &[u8], tld: Option<Tld>, allow_utf8: bool) -> &'static Charset {
    let sample = &bytes[..bytes.len().min(256 * 1024)];
    let mut det = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Allow);
    det.feed(sample, true);
    let tld = tld.as_ref().map(Tld::as_bytes);
    let enc = det.guess(
        tld,
        if allow_utf8 {
            chardetng::Utf8Detection::Allow
        } else {
            chardetng::Utf8Detection::Deny
        },
    );
    Charset::for_encoding(enc)
}

/// The heuristic confidence of a guess (chardetng gives no score): 0.99
/// for valid UTF-8 with 8-bit content; otherwise 0.5 rising to 0.95 with
/// the number of 8-bit octets (64 or more) when the guess decodes cleanly,
/// 0.1 when it does not.
pub(super) fn confidence(cs: &'static Charset, bytes: &[u8], clean: bool) -> f32 {
    let eight = bytes.iter().filter(|b| !b.is_ascii()).count();
    if !clean {
        0.1
    } else if cs.is_utf8() && eight > 0 {
        0.99
    } else {
        0.5 + 0.45 * (eight.min(64) as f32 / 64.0)
    }
}

/// Writing systems, for [`plausible`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Latin,
    Greek,
    Cyrillic,
    Hebrew,
    Arabic,
    Thai,
    Han,
    Kana,
    Hangul,
    Other,
}

fn script(c: char) -> Script {
    match u32::from(c) {
        0x00C0..=0x017F | 0x0218..=0x021B | 0x1E00..=0x1EFF => Script::Latin,
        0x0386..=0x03CE | 0x1F00..=0x1FFF => Script::Greek,
        0x0400..=0x045F | 0x0490..=0x04FF => Script::Cyrillic,
        0x05D0..=0x05EA => Script::Hebrew,
        0x0620..=0x064A | 0x0671..=0x06D3 => Script::Arabic,
        0x0E00..=0x0E7F => Script::Thai,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF => Script::Han,
        0x3040..=0x30FF | 0x31F0..=0x31FF => Script::Kana,
        0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7A3 => Script::Hangul,
        _ => Script::Other,
    }
}

/// Whether decoded text reads like text (see the module docs).
pub(super) fn plausible(text: &str) -> bool {
    let mut nonascii = 0usize;
    let mut bad = 0usize;
    let mut letters = 0usize;
    let mut by = [0usize; 10];
    // Non-ASCII characters right after another: normal in most scripts,
    // rare in Latin text, and the mark of UTF-8 read as Latin ("Ã©").
    let mut paired = 0usize;
    let mut prev_nonascii = false;
    for c in text.chars() {
        if c.is_ascii() {
            prev_nonascii = false;
            continue;
        }
        paired += usize::from(prev_nonascii);
        prev_nonascii = true;
        nonascii += 1;
        let u = u32::from(c);
        if (0x80..0xA0).contains(&u)
            || (0xE000..0xF900).contains(&u)
            || (0xFF61..0xFFA0).contains(&u)
            || c == '\u{FFFD}'
        {
            bad += 1;
            continue;
        }
        if c.is_alphabetic() {
            letters += 1;
            by[script(c) as usize] += 1;
        }
    }
    if nonascii == 0 {
        return true;
    }
    let s = |x: Script| by[x as usize];
    let japanese = s(Script::Han) + s(Script::Kana);
    let korean = s(Script::Hangul) + s(Script::Han);
    let top = [
        s(Script::Latin),
        s(Script::Greek),
        s(Script::Cyrillic),
        s(Script::Hebrew),
        s(Script::Arabic),
        s(Script::Thai),
        japanese,
        korean,
        s(Script::Other),
    ]
    .into_iter()
    .max()
    .unwrap_or(0);
    let latin_mojibake = s(Script::Latin) == top && paired * 2 > nonascii;
    bad * 4 <= nonascii && letters * 2 >= nonascii && top * 5 >= letters * 4 && !latin_mojibake
}

/// Whether a clean reading is so implausible that the label is doubted: at
/// least half of its non-ASCII characters (and eight or more) are C1
/// controls, private use or half-width katakana.
fn implausible(text: &str) -> bool {
    let mut nonascii = 0usize;
    let mut bad = 0usize;
    for c in text.chars().filter(|c| !c.is_ascii()) {
        nonascii += 1;
        let u = u32::from(c);
        bad += usize::from(
            (0x80..0xA0).contains(&u)
                || (0xE000..0xF900).contains(&u)
                || (0xFF61..0xFFA0).contains(&u),
        );
    }
    bad >= 8 && bad * 2 >= nonascii
}

/// Latin-script single-byte encodings, among which mail readers default to
/// windows-1252.
fn is_latin(cs: &'static Charset) -> bool {
    matches!(
        cs.decoder_name(),
        Some(
            "windows-1250"
                | "windows-1252"
                | "windows-1254"
                | "windows-1257"
                | "windows-1258"
                | "ISO-8859-2"
                | "ISO-8859-3"
                | "ISO-8859-4"
                | "ISO-8859-10"
                | "ISO-8859-13"
                | "ISO-8859-14"
                | "ISO-8859-15"
                | "ISO-8859-16"
        )
    )
}

/// windows-1252 (what mail readers fall back to) instead of a guess the
/// text does not bear out: another Latin charset whose windows-1252 reading
/// puts no non-letter inside a word (Polish `³` for `ł` would be one), or a
/// non-Latin charset whose reading is not words (a lone `£` read as `г`).
fn latin_preference(bytes: &[u8], g: &'static Charset) -> &'static Charset {
    if g == Charset::WINDOWS_1252 || g.is_utf8() {
        return g;
    }
    let (t, report, _) = decode_with(bytes, Charset::WINDOWS_1252);
    if !report.is_clean() {
        return g;
    }
    if is_latin(g) {
        return if symbol_inside_word(&t) {
            g
        } else {
            Charset::WINDOWS_1252
        };
    }
    let (own, own_report, _) = decode_with(bytes, g);
    if own_report.is_clean() && words(&own) && plausible(&own) {
        g
    } else {
        Charset::WINDOWS_1252
    }
}

/// Whether a Latin reading has a non-letter inside a word (`Wroc³aw`): the
/// sign that the text is in another Latin charset.
fn symbol_inside_word(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    chars.windows(3).any(|w| {
        !w[1].is_ascii() && !w[1].is_alphabetic() && w[0].is_alphabetic() && w[2].is_alphabetic()
    })
}

/// A candidate charset for text its label does not explain: valid UTF-8
/// first, then chardetng's guess (with the top-level domain). It must
/// differ from the label's decoder, decode every octet, and read plausibly.
fn candidate<'a>(
    bytes: &'a [u8],
    label_cs: &'static Charset,
    opts: &DecodeOptions,
) -> Option<(Detected, Cow<'a, str>)> {
    if !label_cs.is_utf8()
        && !label_cs.is_unicode11_utf8()
        && let Ok(s) = simdutf8::basic::from_utf8(bytes)
        && multi_octet_chars(s) >= UTF8_OVERRIDE
    {
        return Some((
            Detected {
                charset: Charset::UTF_8,
                confidence: 0.99,
            },
            Cow::Borrowed(s),
        ));
    }
    let g = latin_preference(bytes, guess(bytes, opts.tld, false));
    if g.decoder_name() == label_cs.decoder_name() {
        return None;
    }
    let (text, report, used) = decode_with(bytes, g);
    (report.is_clean() && plausible(&text) && words(&text)).then(|| {
        (
            Detected {
                charset: used,
                confidence: confidence(used, bytes, true),
            },
            text,
        )
    })
}

/// The charset the foreign lines are in, if one decodes them all cleanly.
fn foreign_charset(
    bytes: &[u8],
    ev: &Evidence,
    label_cs: &'static Charset,
    opts: &DecodeOptions,
) -> Option<&'static Charset> {
    if ev.foreign.is_empty() {
        return None;
    }
    let mut sample = Vec::new();
    for r in &ev.foreign {
        sample.extend_from_slice(&bytes[r.clone()]);
    }
    let g = guess(&sample, opts.tld, false);
    if g.decoder_name() == label_cs.decoder_name() {
        return None;
    }
    let (text, report, _) = decode_with(&sample, g);
    (report.is_clean() && words(&text) && (plausible(&text) || is_latin(g))).then_some(g)
}

/// Whether most non-ASCII characters of `text` are letters next to another
/// letter (a word), not a lone octet of damage.
fn words(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let mut nonascii = 0;
    let mut in_words = 0;
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii() {
            continue;
        }
        nonascii += 1;
        let letter = |j: Option<usize>| {
            j.and_then(|j| chars.get(j))
                .is_some_and(|c| c.is_alphabetic())
        };
        if c.is_alphabetic() && (letter(i.checked_sub(1)) || letter(Some(i + 1))) {
            in_words += 1;
        }
    }
    nonascii > 0 && in_words * 2 >= nonascii
}

/// The bytes of a body that is not text: why, if so.
pub(super) fn binary(bytes: &[u8]) -> Option<&'static str> {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"PK\x03\x04", "a zip archive"),
        (b"PK\x05\x06", "a zip archive"),
        (b"%PDF-", "a PDF document"),
        (b"\x89PNG\r\n\x1a\n", "a PNG image"),
        (b"GIF87a", "a GIF image"),
        (b"GIF89a", "a GIF image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"\x1f\x8b\x08", "gzip data"),
        (b"BZh", "bzip2 data"),
        (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
        (b"Rar!\x1a\x07", "a RAR archive"),
        (
            b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
            "an OLE document (MS Office)",
        ),
        (b"\x7fELF", "an ELF executable"),
    ];
    for (magic, what) in MAGIC {
        if bytes.starts_with(magic) && (magic.len() >= 4 || bytes.len() > 16) {
            return Some(what);
        }
    }
    // A final SUB (the DOS end-of-file mark) is text.
    let body = match bytes.iter().rposition(|b| !b.is_ascii_whitespace()) {
        Some(i) if bytes[i] == 0x1A => &bytes[..i],
        _ => bytes,
    };
    if memchr::memchr(0, body).is_some() {
        return Some("NUL octets");
    }
    // Controls other than TAB LF FF CR ESC SO SI: one or two in a long
    // text are damage (a kernel oops, a pasted terminal line); at 1% of
    // the octets or more, it is not text.
    let controls = body
        .iter()
        .filter(|&&b| matches!(b, 0x01..=0x08 | 0x0B | 0x10..=0x1A | 0x1C..=0x1F))
        .count();
    (controls > 0 && controls * 100 >= body.len()).then_some("control characters")
}

/// UTF-16 or UTF-32 without a byte order mark, told by where its NULs are
/// (ASCII and Latin text in UTF-16 has a NUL in every other octet).
pub(super) fn nul_shaped(bytes: &[u8]) -> Option<&'static Charset> {
    let sample = &bytes[..bytes.len().min(4096)];
    if sample.len() < 8 || memchr::memchr(0, sample).is_none() {
        return None;
    }
    let mut at = [0usize; 4];
    for (i, &b) in sample.iter().enumerate() {
        if b == 0 {
            at[i % 4] += 1;
        }
    }
    let quarter = sample.len() / 4;
    let many = |n: usize| n * 10 >= quarter * 6;
    let few = |n: usize| n * 10 <= quarter;
    // UTF-32: three NULs in four (BE: the first three; LE: the last three).
    if many(at[0]) && many(at[1]) && few(at[3]) && sample.len().is_multiple_of(4) {
        return Some(Charset::UTF_32BE);
    }
    if many(at[1]) && many(at[2]) && many(at[3]) && few(at[0]) && sample.len().is_multiple_of(4) {
        return Some(Charset::UTF_32LE);
    }
    let (even, odd) = (at[0] + at[2], at[1] + at[3]);
    let half = sample.len() / 2;
    if even * 10 >= half * 3 && odd * 20 <= half {
        return Some(Charset::UTF_16BE);
    }
    if odd * 10 >= half * 3 && even * 20 <= half {
        return Some(Charset::UTF_16LE);
    }
    None
}

/// What the decision concluded beyond the text: the label is wrong
/// (`mislabeled`), or the text mixes charsets (`mixed`).
#[derive(Default)]
pub(super) struct Outcome {
    pub mislabeled: bool,
    pub mixed: bool,
}

/// Bodies: binary content and BOM-less UTF-16/32 under a label that does
/// not say so. Returns true when it decided.
pub(super) fn body_checks<'a>(bytes: &'a [u8], d: &mut Decoded<'a>, out: &mut Outcome) -> bool {
    if bytes.is_ascii() && memchr::memchr(0, bytes).is_none() && binary(bytes).is_none() {
        return false;
    }
    if let Some(cs) = nul_shaped(bytes) {
        let (text, report, used) = decode_with(bytes, cs);
        if report.is_clean() {
            d.findings.push(
                Finding::new(FindingKind::Mislabeled, 0, 1).with_note(format!(
                    "NULs in every other octet: {} without a BOM",
                    used.name
                )),
            );
            d.text = text;
            d.used = Some(used);
            d.detected = Some(Detected {
                charset: used,
                confidence: 0.9,
            });
            out.mislabeled = d.resolution.status != LabelStatus::Missing;
            return true;
        }
    }
    if let Some(why) = binary(bytes) {
        d.findings.push(
            Finding::new(FindingKind::BinaryInText, 0, 1)
                .with_note(format!("{why}: kept byte for byte")),
        );
        d.binary = true;
        d.text = String::from_utf8_lossy(bytes);
        d.used = None;
        return true;
    }
    false
}

/// Decodes under an ASCII-compatible, supported label (UTF-8,
/// UNICODE-1-1-UTF-8, ISO 8859, Windows, CJK ...).
pub(super) fn labelled<'a>(
    bytes: &'a [u8],
    cs: &'static Charset,
    opts: &DecodeOptions,
    d: &mut Decoded<'a>,
    out: &mut Outcome,
) {
    let utf8_label = cs.is_utf8() || cs.is_unicode11_utf8();
    // Valid UTF-8 is borrowed after one SIMD validation.
    let valid_utf8 = if bytes.is_ascii() {
        None
    } else {
        simdutf8::basic::from_utf8(bytes).ok()
    };
    let (text, report, used) = match valid_utf8 {
        Some(s) if utf8_label => (Cow::Borrowed(s), DecodeReport::default(), cs),
        _ => decode_with(bytes, cs),
    };
    // Valid UTF-8 under another label: a UTF-8 writer.
    if !utf8_label && let Some(s) = valid_utf8 {
        let n = multi_octet_chars(s);
        if n >= UTF8_OVERRIDE {
            mislabel(d, bytes, cs, Charset::UTF_8, Cow::Borrowed(s), 0.99);
            out.mislabeled = true;
            return;
        }
        if n > 0 && report.is_clean() {
            d.findings.push(
                Finding::new(FindingKind::Mislabeled, first_nonascii(bytes), n).with_note(format!(
                    "also valid as UTF-8 ({n} multi-octet character(s)): too little to \
                     override {}, kept",
                    cs.name
                )),
            );
        }
    }
    // Damaged UTF-8 under a single-byte label: UTF-8 letters in words
    // outnumber its errors eight to one (legacy text makes such letters
    // only by chance, beside errors). Read as UTF-8, U+FFFD at the damage.
    if !utf8_label
        && valid_utf8.is_none()
        && opts.detect
        && cs.encoding().is_some_and(|e| e.is_single_byte())
        && utf8_majority(bytes)
    {
        let ev8 = evidence(bytes, Charset::UTF_8);
        if ev8.in_words >= 3 && ev8.errors * 8 <= ev8.in_words {
            let (t, r8) = utf8::decode_lossy_with_report(bytes);
            d.findings.push(
                Finding::new(FindingKind::Mislabeled, first_nonascii(bytes), 1).with_note(format!(
                    "labelled {}, the octets are UTF-8 ({} letters in words, {} errors)",
                    cs.name, ev8.in_words, ev8.errors
                )),
            );
            d.detected = Some(Detected {
                charset: Charset::UTF_8,
                confidence: 0.9,
            });
            add_report(d, &r8);
            d.text = t;
            d.used = Some(Charset::UTF_8);
            out.mislabeled = true;
            return;
        }
    }
    if report.is_clean() {
        // A CJK label read as half-width katakana, private use or C1
        // controls: the octets are in another CJK charset.
        if !utf8_label
            && opts.detect
            && is_multibyte(cs)
            && implausible(&text)
            && let Some((det, t)) = candidate(bytes, cs, opts)
        {
            d.findings.push(
                Finding::new(FindingKind::Mislabeled, first_nonascii(bytes), 1).with_note(format!(
                    "read as {}, the text is implausible; it reads as {}",
                    cs.name, det.charset.name
                )),
            );
            d.text = t;
            d.used = Some(det.charset);
            d.detected = Some(det);
            out.mislabeled = true;
            return;
        }
        accept(bytes, cs, used, text, &report, opts, d, out);
        return;
    }
    // CESU-8 pairs under a UTF-8 label, repaired when asked.
    if opts.repair_cesu8
        && used.is_utf8()
        && report
            .errors
            .iter()
            .all(|e| e.0 == crate::codec::ErrorKind::SurrogatePair)
        && let Some(t) = utf8::repair_cesu8(bytes)
    {
        add_report(d, &report);
        d.replacements = 0;
        for f in &mut d.findings {
            if f.kind == FindingKind::SurrogatePair {
                f.note = Some("CESU-8 pairs, repaired".into());
            }
        }
        d.text = Cow::Owned(t);
        d.used = Some(used);
        return;
    }
    let ev = evidence(bytes, cs);
    // Complete forms only a UTF-8 writer makes, when they are what the
    // errors are (each spans one to six errors); a legacy text makes one
    // now and then by chance among many errors.
    let forms = if utf8_label {
        utf8_writer_forms(bytes)
    } else {
        0
    };
    let writer_forms = forms > 0 && ev.errors <= 6 * forms + 3;
    if !ev.explained()
        && !writer_forms
        && opts.detect
        && ev.nonascii >= MIN_EVIDENCE
        && let Some((det, t)) = candidate(bytes, cs, opts)
        // UTF-8 letters inside words are real UTF-8: a single-byte charset
        // would turn them into mojibake (only multi-octet legacy charsets
        // pair up into such letters by chance, "谢谢" into "лл").
        && !(utf8_label && ev.in_words >= 1 && det.charset.encoding().is_some_and(|e| e.is_single_byte()))
    {
        let first = report.errors.iter().map(|e| e.1).min().unwrap_or(0);
        d.findings.push(
            Finding::new(FindingKind::Mislabeled, first, 1).with_note(format!(
                "invalid as {} ({} errors, {} characters read, {} in words), valid as {}",
                cs.name, ev.errors, ev.clean, ev.in_words, det.charset.name
            )),
        );
        d.text = t;
        d.used = Some(det.charset);
        d.detected = Some(det);
        out.mislabeled = true;
        return;
    }
    // The label stays: damaged text, maybe with lines in another charset.
    let mixed = if ev.explained() || (utf8_label && ev.in_words >= 1) {
        foreign_charset(bytes, &ev, cs, opts)
    } else {
        None
    };
    if let Some(other) = mixed {
        let first = ev.foreign[0].start
            + first_nonascii(&bytes[ev.foreign[0].clone()]).min(ev.foreign[0].len());
        let repaired = opts.repair_mixed;
        d.findings.push(
            Finding::new(FindingKind::MixedCharset, first, ev.foreign.len()).with_note(format!(
                "{} line(s) in {}{}",
                ev.foreign.len(),
                other.name,
                if repaired { ", repaired" } else { "" }
            )),
        );
        out.mixed = true;
        if repaired {
            let (t, r) = repair_mixed(bytes, cs, other, &ev.foreign);
            add_report(d, &report);
            d.replacements = r.replacements;
            d.text = Cow::Owned(t);
            d.used = Some(used);
            return;
        }
    }
    accept(bytes, cs, used, text, &report, opts, d, out);
}

/// The label's reading, with its errors, the C1 check (ISO 8859 read as
/// Windows) and the Unicode 1.1 Hangul policy.
#[allow(clippy::too_many_arguments)]
fn accept<'a>(
    bytes: &'a [u8],
    cs: &'static Charset,
    used: &'static Charset,
    text: Cow<'a, str>,
    report: &DecodeReport,
    opts: &DecodeOptions,
    d: &mut Decoded<'a>,
    out: &mut Outcome,
) {
    add_report(d, report);
    d.text = text;
    d.used = Some(used);
    if let Kind::Superset(e) = &cs.kind {
        c1_check(bytes, e, &d.text, &mut d.findings);
    }
    if cs.is_unicode11_utf8() {
        out.mislabeled |= unicode11(d, bytes, opts.unicode11);
    }
}

/// Decodes the foreign lines with `other`, the rest with the label.
fn repair_mixed(
    bytes: &[u8],
    cs: &'static Charset,
    other: &'static Charset,
    foreign: &[Range<usize>],
) -> (String, DecodeReport) {
    let mut out = String::with_capacity(bytes.len() + bytes.len() / 4);
    let mut report = DecodeReport::default();
    let mut at = 0;
    let mut push = |r: Range<usize>, c: &'static Charset, out: &mut String| {
        if r.is_empty() {
            return;
        }
        let (t, rep, _) = decode_with(&bytes[r.clone()], c);
        out.push_str(&t);
        report.replacements += rep.replacements;
        for e in rep.errors {
            report.errors.push((e.0, r.start + e.1, e.2));
        }
    };
    for r in foreign {
        push(at..r.start, cs, &mut out);
        push(r.clone(), other, &mut out);
        at = r.end;
    }
    push(at..bytes.len(), cs, &mut out);
    (out, report)
}

/// Replaces the label's reading by `to`'s.
fn mislabel<'a>(
    d: &mut Decoded<'a>,
    bytes: &[u8],
    label_cs: &'static Charset,
    to: &'static Charset,
    text: Cow<'a, str>,
    confidence: f32,
) {
    d.findings.push(
        Finding::new(FindingKind::Mislabeled, first_nonascii(bytes), 1).with_note(format!(
            "labelled {}, the octets are {}",
            label_cs.name, to.name
        )),
    );
    d.text = text;
    d.used = Some(to);
    d.detected = Some(Detected {
        charset: to,
        confidence,
    });
}

fn first_nonascii(bytes: &[u8]) -> usize {
    bytes.iter().position(|b| !b.is_ascii()).unwrap_or(0)
}

/// CJK multi-octet charsets (whose clean readings may still be nonsense).
fn is_multibyte(cs: &'static Charset) -> bool {
    matches!(
        cs.decoder_name(),
        Some("Shift_JIS" | "EUC-JP" | "EUC-KR" | "GBK" | "gb18030" | "Big5")
    )
}

/// No usable label (missing, unknown, "unknown-8bit", unsupported, or
/// us-ascii with 8-bit octets): ASCII as is; UTF-8 if it validates or the
/// evidence says it is damaged UTF-8; else chardetng with the top-level
/// domain, windows-1252 for Latin script unless the text says otherwise.
pub(super) fn unlabelled<'a>(
    bytes: &'a [u8],
    opts: &DecodeOptions,
    d: &mut Decoded<'a>,
    missing: bool,
) {
    let Some(first8) = bytes.iter().position(|b| !b.is_ascii()) else {
        d.text = ascii(bytes);
        d.used = Some(Charset::US_ASCII);
        return;
    };
    let count8 = bytes.iter().filter(|b| !b.is_ascii()).count();
    let us_ascii = missing || d.resolution.charset.is_some_and(|c| c.is_us_ascii());
    if us_ascii {
        d.findings
            .push(Finding::new(FindingKind::EightBitInAscii, first8, count8));
        if missing {
            d.findings
                .push(Finding::new(FindingKind::MissingLabel, 0, 1));
        }
    }
    if let Ok(s) = simdutf8::basic::from_utf8(bytes) {
        d.text = Cow::Borrowed(s);
        d.used = Some(Charset::UTF_8);
        d.detected = Some(Detected {
            charset: Charset::UTF_8,
            confidence: 0.99,
        });
        return;
    }
    // Damaged UTF-8: UTF-8 explains most of it.
    let ev = evidence(bytes, Charset::UTF_8);
    let cs = if ev.in_words >= 4 && ev.errors * 4 <= ev.in_words {
        Charset::UTF_8
    } else if opts.detect {
        latin_preference(bytes, guess(bytes, opts.tld, false))
    } else {
        Charset::WINDOWS_1252
    };
    let (text, report, used) = decode_with(bytes, cs);
    if opts.detect || cs.is_utf8() {
        d.detected = Some(Detected {
            charset: used,
            confidence: confidence(used, bytes, report.is_clean()),
        });
    }
    add_report(d, &report);
    d.text = text;
    d.used = Some(used);
}

/// The verdict for what was found.
pub(super) fn verdict(d: &Decoded<'_>, out: &Outcome) -> Verdict {
    if d.resolution.status == LabelStatus::Unknown {
        Verdict::UnknownLabel
    } else if d.replacements > 0 || out.mixed {
        Verdict::Invalid
    } else if out.mislabeled {
        Verdict::Mislabeled
    } else if d.findings.is_empty() {
        Verdict::Ok
    } else {
        Verdict::Suspicious
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tld_from_addresses() {
        let t = |v: &[u8]| Tld::from_address(v).map(|t| t.as_bytes().to_vec());
        assert_eq!(t(b"Jos\xe9 <jose@example.ES>"), Some(b"es".to_vec()));
        assert_eq!(t(b"<1234@mail.example.co.jp>"), Some(b"jp".to_vec()));
        assert_eq!(t(b"a@localhost"), None);
        assert_eq!(t(b"a@[127.0.0.1]"), None);
        assert_eq!(t(b"a@b.\xc3\xa9"), None);
        assert_eq!(t(b"no address"), None);
    }

    #[test]
    fn writer_forms_must_be_complete() {
        assert_eq!(utf8_writer_forms(b"\xc0\x80"), 1);
        assert_eq!(utf8_writer_forms(b"\xc0 "), 0);
        assert_eq!(utf8_writer_forms(b"\xed\xa0\x80"), 1);
        assert_eq!(utf8_writer_forms(b"\xed\xa0"), 0);
        assert_eq!(utf8_writer_forms(b"\xf8\x88\x80\x80\x80"), 1);
        assert_eq!(utf8_writer_forms(b"\xf8abc"), 0);
        assert_eq!(utf8_writer_forms(b"\xfc\x84\x80\x80\x80"), 0);
        assert_eq!(utf8_writer_forms("é日本🚀".as_bytes()), 0);
    }

    #[test]
    fn plausibility() {
        assert!(plausible("Привет, как дела? Всё хорошо."));
        assert!(plausible("Voilà déjà l'été"));
        assert!(plausible("日本語のテキストです"));
        assert!(!plausible("ÐŸÑ€Ð¸Ð²ÐµÑ‚ Ã©tÃ©"));
        assert!(!plausible("ﾆﾎﾝｺﾞﾉﾃｷｽﾄ"));
        assert!(implausible("ﾆﾎﾝｺﾞﾉﾃｷｽﾄﾃﾞｽ"));
        assert!(!implausible("こんにちはｶﾅ"));
    }

    #[test]
    fn binary_content() {
        assert_eq!(binary(b"PK\x03\x04\x14\x00"), Some("a zip archive"));
        assert_eq!(binary(b"text\x00more"), Some("NUL octets"));
        assert_eq!(binary(b"tab\tform\x0cfeed\r\n\x1b$B"), None);
        assert_eq!(binary(b"dos text\r\n\x1a"), None);
        assert_eq!(binary(b"bell\x07"), Some("control characters"));
        let oops = [b"Process \x19EUR".as_slice(), &[b'x'; 200]].concat();
        assert_eq!(binary(&oops), None);
    }

    #[test]
    fn utf16_by_nuls() {
        let be: Vec<u8> = "Hello, world, how are you?"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        assert_eq!(nul_shaped(&be), Some(Charset::UTF_16BE));
        let le: Vec<u8> = "Hello, world, how are you?"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(nul_shaped(&le), Some(Charset::UTF_16LE));
        assert_eq!(nul_shaped(b"plain text with one \0 NUL in it"), None);
    }
}
