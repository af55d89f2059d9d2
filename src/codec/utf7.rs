//! UTF-7 (RFC 2152; also read for RFC 1642's UNICODE-1-1-UTF-7, whose
//! encoded form is the same).
//!
//! ```abnf
//! utf7     = *( direct / "+-" / shifted )
//! shifted  = "+" 1*b64 [ "-" ]      ; modified base64 of UTF-16BE, no padding
//! ```
//!
//! Leniencies, each reported: octets >= 0x80 (`invalid-byte`), a shifted run
//! whose leftover bits are 6 or more or non-zero (`truncated`), and unpaired
//! surrogates (`surrogate`) each become one U+FFFD. Any other ASCII octet is
//! accepted directly, as every decoder in the field does.

use super::ErrorKind;
use super::utf8::DecodeReport;
use std::borrow::Cow;

fn b64_value(b: u8) -> Option<u32> {
    Some(u32::from(match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    }))
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

struct Shift {
    acc: u32,
    bits: u32,
    /// A high surrogate waiting for its low half, and its offset.
    high: Option<(u16, usize)>,
    start: usize,
}

/// Decodes UTF-7, one U+FFFD per error. Borrows when the input has no `+`
/// and is ASCII.
pub fn decode(src: &[u8]) -> (Cow<'_, str>, DecodeReport) {
    let mut report = DecodeReport::default();
    if !src.contains(&b'+')
        && src.is_ascii()
        && let Ok(s) = std::str::from_utf8(src)
    {
        return (Cow::Borrowed(s), report);
    }
    let mut out = String::with_capacity(src.len());
    let mut bad = |out: &mut String, report: &mut DecodeReport, kind, at| {
        out.push('\u{FFFD}');
        report.replacements += 1;
        report.record(kind, at);
    };
    let mut shift: Option<Shift> = None;
    let mut i = 0;
    while i < src.len() {
        let b = src[i];
        if let Some(st) = shift.as_mut() {
            if let Some(v) = b64_value(b) {
                st.acc = (st.acc << 6) | v;
                st.bits += 6;
                if st.bits >= 16 {
                    st.bits -= 16;
                    let unit = ((st.acc >> st.bits) & 0xFFFF) as u16;
                    st.acc &= (1 << st.bits) - 1;
                    let at = i;
                    match (st.high.take(), unit) {
                        (Some((h, _)), 0xDC00..=0xDFFF) => {
                            let c = 0x10000
                                + ((u32::from(h) - 0xD800) << 10)
                                + (u32::from(unit) - 0xDC00);
                            out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                        }
                        (pending, u) => {
                            if let Some((_, hat)) = pending {
                                bad(&mut out, &mut report, ErrorKind::Surrogate, hat);
                            }
                            match u {
                                0xD800..=0xDBFF => st.high = Some((u, at)),
                                0xDC00..=0xDFFF => {
                                    bad(&mut out, &mut report, ErrorKind::Surrogate, at)
                                }
                                _ => out.push(char::from_u32(u32::from(u)).unwrap_or('\u{FFFD}')),
                            }
                        }
                    }
                }
                i += 1;
                continue;
            }
            // End of the shifted run.
            end_shift(st, &mut out, &mut report, &mut bad, i);
            shift = None;
            if b == b'-' {
                i += 1;
                continue;
            }
        }
        match b {
            b'+' if src.get(i + 1) == Some(&b'-') => {
                out.push('+');
                i += 2;
            }
            b'+' => {
                shift = Some(Shift {
                    acc: 0,
                    bits: 0,
                    high: None,
                    start: i,
                });
                i += 1;
            }
            0x80..=0xFF => {
                bad(&mut out, &mut report, ErrorKind::InvalidByte, i);
                i += 1;
            }
            _ => {
                out.push(char::from(b));
                i += 1;
            }
        }
    }
    if let Some(st) = shift.as_mut() {
        end_shift(st, &mut out, &mut report, &mut bad, src.len());
    }
    (Cow::Owned(out), report)
}

fn end_shift(
    st: &mut Shift,
    out: &mut String,
    report: &mut DecodeReport,
    bad: &mut impl FnMut(&mut String, &mut DecodeReport, ErrorKind, usize),
    at: usize,
) {
    if let Some((_, hat)) = st.high.take() {
        bad(out, report, ErrorKind::Surrogate, hat);
    }
    if st.bits >= 6 || st.acc != 0 {
        bad(out, report, ErrorKind::Truncated, at.max(st.start));
    }
}

/// Characters written directly: RFC 2152 Set D, space, TAB, CR, LF. Set O is
/// base64-encoded (it is unsafe in headers), like Python's encoder.
fn is_direct(c: char) -> bool {
    matches!(c, 'A'..='Z' | 'a'..='z' | '0'..='9' | '\'' | '(' | ')' | ',' | '-' | '.' | '/' | ':' | '?' | ' ' | '\t' | '\r' | '\n')
}

/// Encodes text as UTF-7 (every string is representable). Borrows when the
/// text is all direct characters.
pub fn encode(text: &str) -> Cow<'_, [u8]> {
    if text.chars().all(is_direct) {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len() * 2);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if is_direct(c) {
            out.push(c as u8);
            continue;
        }
        if c == '+' {
            out.extend_from_slice(b"+-");
            continue;
        }
        out.push(b'+');
        let (mut acc, mut bits) = (0u32, 0u32);
        let mut push_unit = |u: u16, out: &mut Vec<u8>| {
            acc = (acc << 16) | u32::from(u);
            bits += 16;
            while bits >= 6 {
                bits -= 6;
                out.push(B64[((acc >> bits) & 63) as usize]);
            }
            acc &= (1 << bits) - 1;
        };
        let mut buf = [0u16; 2];
        for u in c.encode_utf16(&mut buf) {
            push_unit(*u, &mut out);
        }
        while let Some(&n) = chars.peek() {
            if is_direct(n) || n == '+' {
                break;
            }
            chars.next();
            for u in n.encode_utf16(&mut buf) {
                push_unit(*u, &mut out);
            }
        }
        if bits > 0 {
            out.push(B64[((acc << (6 - bits)) & 63) as usize]);
        }
        out.push(b'-');
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc2152_examples() {
        for (enc, text) in [
            (&b"A+ImIDkQ."[..], "A\u{2262}\u{0391}."),
            (b"Hi Mom -+Jjo--!", "Hi Mom -\u{263A}-!"),
            (b"+ZeVnLIqe-", "\u{65E5}\u{672C}\u{8A9E}"),
            (b"Item 3 is +AKM-1.", "Item 3 is \u{00A3}1."),
            (b"1 +- 1", "1 + 1"),
        ] {
            let (t, r) = decode(enc);
            assert_eq!(t, text);
            assert!(r.is_clean());
            assert_eq!(decode(&encode(text)).0, text);
        }
    }

    #[test]
    fn errors_are_reported() {
        let (t, r) = decode(b"a\xE9b");
        assert_eq!(t, "a\u{FFFD}b");
        assert_eq!(r.errors, vec![(ErrorKind::InvalidByte, 1, 1)]);
        // A lone high surrogate (D800 = 2AA-ish) and non-zero tail bits.
        let (t, r) = decode(b"+2AA-x");
        assert_eq!(t, "\u{FFFD}x");
        assert_eq!(r.replacements, 1);
        let (_, r) = decode(b"+AB-");
        assert_eq!(r.replacements, 1);
    }

    #[test]
    fn astral_round_trip() {
        let s = "x\u{1F600}+y~\\";
        assert_eq!(decode(&encode(s)).0, s);
    }
}
