//! Running a charset's decoder, without policy: UTF-8 through the codec
//! core, UTF-7, UTF-16/32, the 7-bit ISO-2022 forms, the Mac tables of
//! `single_byte.rs`, Johab, everything else through encoding_rs; plus the checks every reading gets (C1 octets under
//! ISO 8859, the Unicode 1.1 Hangul policy).

use super::detect::utf16_looks_big_endian;
use super::evidence::{Alphabetic, Script, script, word_symbol};
use super::{Charset, Decoded, Kind, Unicode11Policy, johab, sevenbit};
use crate::codec::utf8::DecodeReport;
use crate::codec::{ErrorKind, hangul, utf7, utf8, utf16_32};
use crate::finding::{Finding, FindingKind};
use encoding_rs::{DecoderResult, Encoding};
use std::borrow::Cow;

/// Runs the decoder of `cs` (no policy): text, errors, and the charset
/// actually used (after BOM sniffing).
pub(super) fn decode_with<'a>(
    bytes: &'a [u8],
    cs: &'static Charset,
) -> (Cow<'a, str>, DecodeReport, &'static Charset) {
    match &cs.kind {
        Kind::Utf8 | Kind::Unicode11Utf8 => {
            // Fast path: SIMD validation; invalid input goes to the core
            // codec, which classifies and counts the errors.
            if let Ok(s) = simdutf8::basic::from_utf8(bytes) {
                return (Cow::Borrowed(s), DecodeReport::default(), cs);
            }
            let (t, r) = utf8::decode_lossy_with_report(bytes);
            (t, r, cs)
        }
        Kind::Utf7 => {
            let (t, r) = utf7::decode(bytes);
            (t, r, cs)
        }
        Kind::Utf16 => {
            // A byte order mark decides (the decoder sniffs it); without
            // one, the bytes may say big-endian.
            let has_bom = bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF");
            let enc = if !has_bom && utf16_looks_big_endian(bytes) {
                encoding_rs::UTF_16BE
            } else {
                encoding_rs::UTF_16LE
            };
            let (t, r, enc) = decode_encoding_rs(enc, bytes, true);
            (t, r, Charset::for_encoding(enc))
        }
        Kind::Utf32 => {
            let (be, skip) = match bytes {
                [0xFF, 0xFE, 0, 0, ..] => (false, 4),
                [0, 0, 0xFE, 0xFF, ..] => (true, 4),
                _ => (true, 0),
            };
            let (t, r) = utf16_32::decode_utf32(bytes, skip, be);
            (
                t,
                r,
                if be {
                    Charset::UTF_32BE
                } else {
                    Charset::UTF_32LE
                },
            )
        }
        Kind::Utf32Be => {
            let skip = if bytes.starts_with(&[0, 0, 0xFE, 0xFF]) {
                4
            } else {
                0
            };
            let (t, r) = utf16_32::decode_utf32(bytes, skip, true);
            (t, r, cs)
        }
        Kind::Utf32Le => {
            let skip = if bytes.starts_with(&[0xFF, 0xFE, 0, 0]) {
                4
            } else {
                0
            };
            let (t, r) = utf16_32::decode_utf32(bytes, skip, false);
            (t, r, cs)
        }
        Kind::Ascii => {
            let (t, r, _) = decode_encoding_rs(encoding_rs::WINDOWS_1252, bytes, false);
            (t, r, Charset::WINDOWS_1252)
        }
        Kind::Superset(e) | Kind::Legacy(e) => {
            let (t, r, _) = decode_encoding_rs(e, bytes, false);
            // ISO-2022-JP-2's escapes (JIS X 0212 `ESC $ ( D`, GB 2312,
            // KS C 5601, the G2 sets) under the ISO-2022-JP label: its
            // superset, which reads them (encoding_rs took the escape's own
            // octets for JIS pairs, `�え呈�` for `頰`).
            if *e == encoding_rs::ISO_2022_JP
                && !r.is_clean()
                && let Some(jp2) = Charset::for_label(b"iso-2022-jp-2")
            {
                let (t2, r2) = sevenbit::decode_jp2(bytes);
                if r2.is_clean() {
                    return (Cow::Owned(t2), r2, jp2);
                }
            }
            if *e == encoding_rs::ISO_2022_JP && !r.is_clean() {
                // Each line ends in ASCII (RFC 1468): decoded line by line,
                // a damaged escape sequence cannot swallow the line end or
                // the lines after it.
                let mut out = String::with_capacity(t.len());
                let mut report = DecodeReport::default();
                let mut at = 0;
                for line in bytes.split_inclusive(|&b| b == b'\n') {
                    let (lt, lr, _) = decode_encoding_rs(e, line, false);
                    out.push_str(&lt);
                    // A line end read inside a two-octet run is still one.
                    if line.ends_with(b"\n") && !lt.ends_with('\n') {
                        out.push('\n');
                    }
                    report.replacements += lr.replacements;
                    for (k, off, n) in lr.errors {
                        match report.errors.iter_mut().find(|x| x.0 == k) {
                            Some(x) => x.2 += n,
                            None => report.errors.push((k, at + off, n)),
                        }
                    }
                    at += line.len();
                }
                return (Cow::Owned(out), report, cs);
            }
            (t, r, cs)
        }
        Kind::Iso2022Kr | Kind::Hz => {
            let form = if matches!(cs.kind, Kind::Hz) {
                sevenbit::Form::Hz
            } else {
                sevenbit::Form::Iso2022Kr
            };
            let (t, r) = sevenbit::decode(form, bytes);
            (Cow::Owned(t), r, cs)
        }
        Kind::Iso2022Jp2 => {
            let (t, r) = sevenbit::decode_jp2(bytes);
            (Cow::Owned(t), r, cs)
        }
        Kind::SingleByte(table) => {
            let (t, r) = table.decode(bytes);
            (t, r, cs)
        }
        Kind::Johab => {
            let (t, r) = johab::decode(bytes);
            (t, r, cs)
        }
        Kind::Detect | Kind::Unsupported(_) => {
            let (t, r, _) = decode_encoding_rs(encoding_rs::WINDOWS_1252, bytes, false);
            (t, r, Charset::WINDOWS_1252)
        }
    }
}

/// encoding_rs, one U+FFFD per malformed sequence, with offsets. Borrows
/// (through encoding_rs) when the bytes are ASCII under an ASCII-compatible
/// encoding, or valid UTF-8 under UTF-8.
pub(super) fn decode_encoding_rs<'a>(
    enc: &'static Encoding,
    bytes: &'a [u8],
    sniff_bom: bool,
) -> (Cow<'a, str>, DecodeReport, &'static Encoding) {
    let mut report = DecodeReport::default();
    let has_bom = bytes.starts_with(b"\xEF\xBB\xBF")
        || bytes.starts_with(b"\xFF\xFE")
        || bytes.starts_with(b"\xFE\xFF");
    if !(sniff_bom && has_bom)
        && let Some(t) = enc.decode_without_bom_handling_and_without_replacement(bytes)
    {
        return (t, report, enc);
    }
    let mut dec = if sniff_bom {
        enc.new_decoder()
    } else {
        enc.new_decoder_without_bom_handling()
    };
    let cap = dec
        .max_utf8_buffer_length_without_replacement(bytes.len())
        .unwrap_or(bytes.len());
    let mut out = String::with_capacity(cap);
    let mut pos = 0;
    loop {
        let (res, read) = dec.decode_to_string_without_replacement(&bytes[pos..], &mut out, true);
        pos += read;
        match res {
            DecoderResult::InputEmpty => break,
            DecoderResult::OutputFull => {
                let more = dec
                    .max_utf8_buffer_length_without_replacement(bytes.len() - pos)
                    .unwrap_or(1024);
                out.reserve(more.max(16));
            }
            DecoderResult::Malformed(bad, after) => {
                let at = pos.saturating_sub(usize::from(bad) + usize::from(after));
                out.push('\u{FFFD}');
                report.replacements += 1;
                report.record(ErrorKind::InvalidByte, at);
            }
        }
    }
    let used = dec.encoding();
    (Cow::Owned(out), report, used)
}

/// Where `enc` fails on `bytes`: the octets of each malformed sequence
/// (at most `max` of them; None when there are more).
pub(super) fn malformed_spans(
    enc: &'static Encoding,
    bytes: &[u8],
    max: usize,
) -> Option<Vec<std::ops::Range<usize>>> {
    let mut dec = enc.new_decoder_without_bom_handling();
    let mut out = String::with_capacity(
        dec.max_utf8_buffer_length_without_replacement(bytes.len())
            .unwrap_or(bytes.len()),
    );
    let mut spans = Vec::new();
    let mut pos = 0;
    loop {
        let (res, read) = dec.decode_to_string_without_replacement(&bytes[pos..], &mut out, true);
        pos += read;
        match res {
            DecoderResult::InputEmpty => return Some(spans),
            DecoderResult::OutputFull => {
                out.clear();
                out.reserve(1024);
            }
            DecoderResult::Malformed(bad, after) => {
                let at = pos.saturating_sub(usize::from(bad) + usize::from(after));
                spans.push(at..at + usize::from(bad));
                if spans.len() > max {
                    return None;
                }
            }
        }
    }
}

/// ISO-8859-x read with its Windows superset: report 0x80..0x9F.
pub(super) fn c1_check(
    bytes: &[u8],
    enc: &'static Encoding,
    text: &str,
    findings: &mut Vec<Finding>,
) {
    // Most Latin text has no C1 octet: looked for a block at a time
    // ([`has_c1`]) before the octet-by-octet walk for the first one (that
    // walk over the whole of a clean text was a sixth of auditing it).
    if crate::codec::is_ascii(text.as_bytes()) || !has_c1(bytes) {
        return;
    }
    let c1 = |b: &u8| b & 0xE0 == 0x80;
    if let Some(first) = bytes.iter().position(c1) {
        let count = bytes.iter().filter(|b| c1(b)).count();
        let f = Finding::new(FindingKind::C1InLatin1, first, count);
        findings.push(if enc == encoding_rs::WINDOWS_1252 {
            f
        } else {
            f.with_note(format!("read as {}", enc.name()))
        });
    }
}

/// The Windows charset whose octets 0x80..0x9F stand in for the C1
/// controls of an ISO 8859 charset that has no Windows superset: the
/// charset its writers' systems used (Word's quotes and dashes under
/// ISO-8859-15, `š ž` of windows-1250 under ISO-8859-2). Mail text holds no
/// C1 control; read as one, a `’` vanishes from the text.
pub(super) fn c1_twin(enc: &'static Encoding) -> Option<&'static Encoding> {
    use encoding_rs as e;
    Some(if enc == e::ISO_8859_2 {
        e::WINDOWS_1250
    } else if enc == e::ISO_8859_4 || enc == e::ISO_8859_13 {
        e::WINDOWS_1257
    } else if enc == e::ISO_8859_3
        || enc == e::ISO_8859_10
        || enc == e::ISO_8859_14
        || enc == e::ISO_8859_15
        || enc == e::ISO_8859_16
    {
        e::WINDOWS_1252
    } else if enc == e::ISO_8859_5 {
        e::WINDOWS_1251
    } else if enc == e::ISO_8859_6 {
        e::WINDOWS_1256
    } else if enc == e::ISO_8859_7 {
        e::WINDOWS_1253
    } else if enc == e::ISO_8859_8 || enc == e::ISO_8859_8_I {
        e::WINDOWS_1255
    } else {
        return None;
    })
}

/// Whether `bytes` has an octet 0x80..0x9F, a C1 control in ISO 8859.
/// Most text has none: looked for a block at a time.
pub(super) fn has_c1(bytes: &[u8]) -> bool {
    bytes
        .chunks(64)
        .any(|c| c.iter().fold(false, |a, b| a | (b & 0xE0 == 0x80)))
}

/// `text` (`bytes` read as the single-octet `enc`) with the C1 controls it
/// read for 0x80..0x9F replaced by `twin`'s characters there ([`c1_twin`]),
/// and the `c1-in-latin1` finding; `None` when there is no C1 octet.
pub(super) fn c1_as_twin(
    bytes: &[u8],
    enc: &'static Encoding,
    twin: &'static Encoding,
    text: &str,
) -> Option<(String, Finding)> {
    if !has_c1(bytes) {
        return None;
    }
    let c1 = |b: &u8| b & 0xE0 == 0x80;
    let first = bytes.iter().position(c1)?;
    let count = bytes.iter().filter(|b| c1(b)).count();
    let mut out = String::with_capacity(text.len() + 2 * count);
    let chars: Vec<char> = text.chars().collect();
    let mut damaged = 0;
    for (i, &c) in chars.iter().enumerate() {
        match u8::try_from(u32::from(c)) {
            Ok(b @ 0x80..0xA0) => {
                let one = [b];
                let (t, _) = twin.decode_without_bom_handling(&one);
                // A mark no word holds, between two letters: a damaged
                // octet, not the writer's punctuation. Between Latin letters
                // a symbol inside a word ([`word_symbol`]: not `’` of
                // `I’ll`, nor the dash of `Jean–Pierre`); between Greek,
                // Cyrillic, Hebrew or Arabic ones a dash too (`ευχαρι–στώ`).
                let letter = |k: Option<&char>| k.copied().filter(|c| c.alphabetic());
                let latin = |c: char| c.is_ascii() || script(c) == Script::Latin;
                let damage = match (
                    i.checked_sub(1).and_then(|k| letter(chars.get(k))),
                    letter(chars.get(i + 1)),
                ) {
                    (Some(a), Some(z)) => t.chars().all(|m| {
                        word_symbol(m)
                            || (!(latin(a) || latin(z)) && matches!(m, '\u{2010}'..='\u{2015}'))
                    }),
                    _ => false,
                };
                // An octet the Windows charset has no character for either.
                let none = t.chars().any(|m| ('\u{80}'..='\u{9f}').contains(&m));
                if damage || none {
                    out.push('\u{FFFD}');
                    damaged += 1;
                } else {
                    out.push_str(&t);
                }
            }
            _ => out.push(c),
        }
    }
    let mut note = format!(
        "{count} octet(s) 0x80..0x9F, C1 controls in {}, read as {}",
        enc.name(),
        twin.name()
    );
    if damaged > 0 {
        note.push_str(&format!(
            "; {damaged} of them damage (between two letters, marks no word holds; or no \
             character in {} either): replaced",
            twin.name()
        ));
    }
    Some((
        out,
        Finding::new(FindingKind::C1InLatin1, first, count).with_note(note),
    ))
}

/// `possible-old-hangul` for text not labelled UNICODE-1-1-UTF-8 whose
/// U+3400..U+4DFF outnumber the other CJK characters
/// ([`hangul::possible_old_hangul`]). A question about the text, asked by
/// audit and normalize alike. Offsets are into the decoded text (for UTF-8,
/// the octets).
#[must_use]
pub fn possible_old_hangul(d: &Decoded<'_>) -> Option<Finding> {
    if d.resolution.charset.is_some_and(|c| c.is_unicode11_utf8()) {
        return None;
    }
    let (first, n) = hangul::possible_old_hangul(&d.text)?;
    Some(
        Finding::new(FindingKind::PossibleOldHangul, first, n).with_note(format!(
            "{n} characters of U+3400..U+4DFF outnumber the other CJK text: \
             likely Unicode 1.1 Hangul"
        )),
    )
}

/// Whether `c` was first assigned after Unicode 1.1 (blocks added in
/// Unicode 2.0 and later, from the Unicode Character Database's
/// DerivedAge.txt; U+3400..U+4DFF is left out, as that is where Unicode 1.1
/// had its Hangul).
fn after_unicode11(c: char) -> bool {
    matches!(
        u32::from(c),
        0x0700..=0x077F   // Syriac, Thaana (3.0)
            | 0x0780..=0x07BF
            | 0x0D80..=0x0DFF // Sinhala (3.0)
            | 0x0F00..=0x0FFF // Tibetan (2.0)
            | 0x1000..=0x109F // Myanmar (3.0)
            | 0x1200..=0x139F // Ethiopic (3.0)
            | 0x13A0..=0x13FF // Cherokee (3.0)
            | 0x1400..=0x167F // Canadian syllabics (3.0)
            | 0x1680..=0x16FF // Ogham, Runic (3.0)
            | 0x1780..=0x18AF // Khmer, Mongolian (3.0)
            | 0x20AC          // Euro sign (2.1)
            | 0x2800..=0x28FF // Braille (3.0)
            | 0x2E80..=0x2FDF // CJK radicals, Kangxi radicals (3.0)
            | 0xA000..=0xA4CF // Yi (3.0)
            | 0xAC00..=0xD7A3 // Hangul syllables (2.0)
            | 0x10000..
    )
}

/// The first character of `bytes` (read as UTF-8, damage skipped) that
/// Unicode 1.1 did not have, with its offset in `bytes`. The offset is into
/// the input, not the decoded text: U+FFFD takes three octets of text for
/// each damaged octet.
fn first_after_unicode11(bytes: &[u8]) -> Option<(usize, char)> {
    let mut base = 0;
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        if let Some((at, c)) = valid.char_indices().find(|&(_, c)| after_unicode11(c)) {
            return Some((base + at, c));
        }
        base += valid.len() + chunk.invalid().len();
    }
    None
}

/// UNICODE-1-1-UTF-8: apply the Hangul policy. Returns true when the text
/// proves a post-Amendment-5 writer (verdict mislabeled).
pub(super) fn unicode11(d: &mut Decoded<'_>, bytes: &[u8], policy: Unicode11Policy) -> bool {
    if policy == Unicode11Policy::Off {
        return false;
    }
    // Offsets are into the input bytes (the text may hold U+FFFD).
    let Some(first_old) = hangul::find_old_bytes(bytes) else {
        // No old Hangul: modern Hangul, or anything else Unicode 1.1 did
        // not have, says a modern writer used the label.
        if let Some((at, c)) = first_after_unicode11(bytes) {
            d.findings.push(
                Finding::new(FindingKind::Mislabeled, at, 1).with_note(format!(
                    "U+{:04X} did not exist in Unicode 1.1 and no Unicode 1.1 Hangul is \
                     present: a modern UTF-8 writer used the label",
                    u32::from(c)
                )),
            );
            return true;
        }
        return false;
    };
    if policy == Unicode11Policy::Auto
        && let Some(at) = hangul::find_new_bytes(bytes)
    {
        d.findings.push(
            Finding::new(FindingKind::Mislabeled, at, 1)
                .with_note("Unicode 2.0 Hangul present (a post-Amendment-5 writer): not remapped"),
        );
        return true;
    }
    let (t, r) = hangul::remap_old(&d.text);
    if let Cow::Owned(t) = t {
        d.findings
            .push(Finding::new(FindingKind::OldHangul, first_old, r.count));
        d.text = Cow::Owned(t);
    }
    false
}
