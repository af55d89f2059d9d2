//! UTF-16 and UTF-32 code units, raw: UTF-32 decoding (no surrogates, at
//! most U+10FFFF) and both encoders. Byte order and BOM policy belong to
//! the charset layer; UTF-16 decoding is encoding_rs's.

use super::ErrorKind;
use super::utf8::DecodeReport;
use std::borrow::Cow;

/// UTF-32 (no surrogates, at most U+10FFFF); a trailing partial unit is one
/// `truncated` replacement.
pub(crate) fn decode_utf32(
    bytes: &[u8],
    skip: usize,
    be: bool,
) -> (Cow<'static, str>, DecodeReport) {
    let mut report = DecodeReport::default();
    let body = bytes.get(skip..).unwrap_or_default();
    let mut out = String::with_capacity(body.len() / 2);
    let chunks = body.chunks_exact(4);
    let rest = chunks.remainder().len();
    for (i, c) in chunks.enumerate() {
        let a = [c[0], c[1], c[2], c[3]];
        let v = if be {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        };
        match char::from_u32(v) {
            Some(ch) => out.push(ch),
            None => {
                out.push('\u{FFFD}');
                report.replacements += 1;
                let kind = if (0xD800..0xE000).contains(&v) {
                    ErrorKind::Surrogate
                } else {
                    ErrorKind::OutOfRange
                };
                report.record(kind, skip + 4 * i);
            }
        }
    }
    if rest > 0 {
        out.push('\u{FFFD}');
        report.replacements += 1;
        report.record(ErrorKind::Truncated, bytes.len() - rest);
    }
    (Cow::Owned(out), report)
}

pub(crate) fn encode_utf16(text: &str, be: bool, bom: bool) -> Cow<'static, [u8]> {
    let mut out = Vec::with_capacity(text.len() * 2 + 2);
    let put = |u: u16, out: &mut Vec<u8>| {
        out.extend_from_slice(&if be { u.to_be_bytes() } else { u.to_le_bytes() })
    };
    if bom {
        put(0xFEFF, &mut out);
    }
    for u in text.encode_utf16() {
        put(u, &mut out);
    }
    Cow::Owned(out)
}

pub(crate) fn encode_utf32(text: &str, be: bool, bom: bool) -> Cow<'static, [u8]> {
    let mut out = Vec::with_capacity(text.len() * 4 + 4);
    let put = |u: u32, out: &mut Vec<u8>| {
        out.extend_from_slice(&if be { u.to_be_bytes() } else { u.to_le_bytes() })
    };
    if bom {
        put(0xFEFF, &mut out);
    }
    for c in text.chars() {
        put(u32::from(c), &mut out);
    }
    Cow::Owned(out)
}
