//! The 7-bit CJK mail charsets WHATWG sends to its replacement decoder:
//! ISO-2022-KR (RFC 1557) and HZ-GB-2312 (RFC 1843). Both carry the 94×94
//! sets of EUC-KR / GB 2312 with the high bits cleared, so each pair is read
//! through encoding_rs's EUC-KR / GBK decoder with the high bits set again.
//!
//! Leniencies (each reported as one U+FFFD): octets >= 0x80 (`invalid-byte`),
//! a double-byte run cut short (`truncated`), a pair not in the set
//! (`invalid-byte`), an HZ `~` escape that means nothing (`invalid-byte`).
//! A line end inside a double-byte run returns to ASCII (both RFCs require
//! the writer to do so before the line end).

use crate::codec::ErrorKind;
use crate::codec::utf8::DecodeReport;
use encoding_rs::Encoding;

/// Which 7-bit form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// RFC 1557: `ESC $ ) C` once, then SO (0x0E) / SI (0x0F).
    Iso2022Kr,
    /// RFC 1843: `~{` ... `~}`, `~~` for `~`, `~` LF a line continuation.
    Hz,
}

impl Form {
    fn set(self) -> &'static Encoding {
        match self {
            Form::Iso2022Kr => encoding_rs::EUC_KR,
            Form::Hz => encoding_rs::GBK,
        }
    }
}

fn pair(set: &'static Encoding, a: u8, b: u8) -> Option<char> {
    let bytes = [a | 0x80, b | 0x80];
    let s = set.decode_without_bom_handling_and_without_replacement(&bytes)?;
    let mut it = s.chars();
    let c = it.next()?;
    it.next().is_none().then_some(c)
}

pub(crate) fn decode(form: Form, src: &[u8]) -> (String, DecodeReport) {
    let mut report = DecodeReport::default();
    let mut out = String::with_capacity(src.len() * 2);
    let mut bad = |out: &mut String, kind, at| {
        out.push('\u{FFFD}');
        report.replacements += 1;
        report.record(kind, at);
    };
    let set = form.set();
    let mut double = false;
    let mut i = 0;
    while i < src.len() {
        let b = src[i];
        match (form, b) {
            (Form::Iso2022Kr, 0x1B) if src[i..].starts_with(b"\x1B$)C") => {
                i += 4;
                continue;
            }
            (Form::Iso2022Kr, 0x0E) => {
                double = true;
                i += 1;
                continue;
            }
            (Form::Iso2022Kr, 0x0F) => {
                double = false;
                i += 1;
                continue;
            }
            (Form::Hz, b'~') => {
                match src.get(i + 1) {
                    Some(b'~') if !double => out.push('~'),
                    Some(b'{') if !double => double = true,
                    Some(b'}') if double => double = false,
                    Some(b'\n') if !double => {}
                    Some(b'\r') if !double && src.get(i + 2) == Some(&b'\n') => i += 1,
                    _ => {
                        bad(&mut out, ErrorKind::InvalidByte, i);
                        i += 1;
                        continue;
                    }
                }
                i += 2;
                continue;
            }
            _ => {}
        }
        if b >= 0x80 {
            bad(&mut out, ErrorKind::InvalidByte, i);
            i += 1;
            continue;
        }
        if double && (0x21..=0x7E).contains(&b) {
            match src.get(i + 1) {
                Some(&t) if (0x21..=0x7E).contains(&t) => {
                    match pair(set, b, t) {
                        Some(c) => out.push(c),
                        None => bad(&mut out, ErrorKind::InvalidByte, i),
                    }
                    i += 2;
                }
                _ => {
                    bad(&mut out, ErrorKind::Truncated, i);
                    i += 1;
                }
            }
            continue;
        }
        if b == b'\n' || b == b'\r' {
            double = false;
        }
        out.push(char::from(b));
        i += 1;
    }
    (out, report)
}

/// Encodes; `on_bad(offset, ch)` decides what to do with a character outside
/// ASCII and the 94×94 set (Err aborts, Ok(()) means "write `?`").
pub(crate) fn encode<E>(
    form: Form,
    text: &str,
    mut on_bad: impl FnMut(usize, char) -> Result<(), E>,
) -> Result<Vec<u8>, E> {
    let set = form.set();
    let mut out = Vec::with_capacity(text.len() + 8);
    if form == Form::Iso2022Kr {
        out.extend_from_slice(b"\x1B$)C");
    }
    let (enter, leave): (&[u8], &[u8]) = match form {
        Form::Iso2022Kr => (b"\x0E", b"\x0F"),
        Form::Hz => (b"~{", b"~}"),
    };
    let mut double = false;
    let mut buf = [0u8; 4];
    for (at, c) in text.char_indices() {
        let two = if c.is_ascii() {
            None
        } else {
            let (bytes, _, unmappable) = set.encode(c.encode_utf8(&mut buf));
            match &bytes[..] {
                [a @ 0xA1..=0xFE, b @ 0xA1..=0xFE] if !unmappable => Some([a & 0x7F, b & 0x7F]),
                _ => None,
            }
        };
        match two {
            Some(p) => {
                if !double {
                    out.extend_from_slice(enter);
                    double = true;
                }
                out.extend_from_slice(&p);
            }
            None => {
                if double {
                    out.extend_from_slice(leave);
                    double = false;
                }
                if c.is_ascii() {
                    if form == Form::Hz && c == '~' {
                        out.extend_from_slice(b"~~");
                    } else {
                        out.push(c as u8);
                    }
                } else {
                    on_bad(at, c)?;
                    out.push(b'?');
                }
            }
        }
    }
    if double {
        out.extend_from_slice(leave);
    }
    Ok(out)
}
