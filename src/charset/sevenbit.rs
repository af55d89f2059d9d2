//! 7-bit CJK mail charsets encoding_rs lacks: ISO-2022-KR (RFC 1557) and
//! HZ-GB-2312 (RFC 1843), which WHATWG sends to its replacement decoder, and
//! ISO-2022-JP-2 (RFC 1554). They carry 94×94 sets (KS C 5601, GB 2312,
//! JIS X 0208/0212) with the high bits cleared, so each pair is read through
//! encoding_rs's EUC-KR / GBK / EUC-JP decoder with the high bits set again.
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
    // ISO-2022-KR's SI without an SO: the first's offset, and how many.
    let mut lost_so: Option<(usize, usize)> = None;
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
                // SI with no SO before it on the line: the SO was lost and
                // the Korean before this reads as ASCII letters
                // (`>H3gGO<<?d`). Where it began is not known, so nothing
                // is replaced (Python's codec reads it so too), but the
                // part is reported (verdict suspicious), not called clean.
                if !double {
                    lost_so.get_or_insert((i, 0)).1 += 1;
                }
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
    if let Some((at, n)) = lost_so {
        report.record_many(ErrorKind::InvalidByte, at, n);
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

/// ISO-2022-JP-2 (RFC 1554) G0 sets.
#[derive(Clone, Copy, PartialEq, Eq)]
enum G0 {
    Ascii,
    JisRoman,
    Katakana,
    Jis0208,
    Jis0212,
    Gb2312,
    Ksc5601,
    /// JIS X 0213 plane 1 (`ESC $ ( O`, `ESC $ ( Q`: ISO-2022-JP-3 and
    /// -2004): read where it is JIS X 0208, an error elsewhere.
    Jis0213Plane1,
    /// JIS X 0213 plane 2 (`ESC $ ( P`): no table, every pair an error.
    Jis0213Plane2,
}

/// ISO-2022-JP-2 G2 sets (reached one character at a time with `ESC N`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum G2 {
    None,
    Latin1,
    Greek,
}

/// The character of a legacy byte sequence under `enc`, if exactly one.
fn one_char(enc: &'static Encoding, bytes: &[u8]) -> Option<char> {
    let s = enc.decode_without_bom_handling_and_without_replacement(bytes)?;
    let mut it = s.chars();
    let c = it.next()?;
    it.next().is_none().then_some(c)
}

/// ISO-2022-JP-2 (RFC 1554): ISO-2022-JP plus JIS X 0212 (`ESC $ ( D`),
/// GB 2312 (`ESC $ A`), KS C 5601 (`ESC $ ( C`), and ISO-8859-1/-7 upper
/// halves in G2 (`ESC . A`, `ESC . F`, then `ESC N` per character). Also
/// accepts JIS X 0201 katakana (`ESC ( I`), and the JIS X 0213 planes of
/// ISO-2022-JP-3 and -2004 (`ESC $ ( O` or `Q`, `ESC $ ( P`): plane 1 is
/// JIS X 0208 in its rows (1-8, 16-84), which is what such text mostly
/// is, and its additions there and elsewhere are errors, as is every pair
/// of plane 2 (we have no JIS X 0213 table). Unknown escapes, 8-bit
/// octets and pairs outside their set are reported replacements.
pub(crate) fn decode_jp2(src: &[u8]) -> (String, DecodeReport) {
    let mut report = DecodeReport::default();
    let mut out = String::with_capacity(src.len() * 2);
    let mut bad = |out: &mut String, kind, at| {
        out.push('\u{FFFD}');
        report.replacements += 1;
        report.record(kind, at);
    };
    let (mut g0, mut g2) = (G0::Ascii, G2::None);
    let mut i = 0;
    while i < src.len() {
        let b = src[i];
        if b == 0x1B {
            let rest = &src[i + 1..];
            let (len, action): (usize, Option<G0>) = match rest {
                [b'(', b'B', ..] => (3, Some(G0::Ascii)),
                [b'(', b'J', ..] => (3, Some(G0::JisRoman)),
                [b'(', b'I', ..] => (3, Some(G0::Katakana)),
                [b'$', b'@' | b'B', ..] => (3, Some(G0::Jis0208)),
                [b'$', b'A', ..] => (3, Some(G0::Gb2312)),
                [b'$', b'(', b'C', ..] => (4, Some(G0::Ksc5601)),
                [b'$', b'(', b'D', ..] => (4, Some(G0::Jis0212)),
                [b'$', b'(', b'O' | b'Q', ..] => (4, Some(G0::Jis0213Plane1)),
                [b'$', b'(', b'P', ..] => (4, Some(G0::Jis0213Plane2)),
                [b'.', b'A', ..] => {
                    g2 = G2::Latin1;
                    (3, None)
                }
                [b'.', b'F', ..] => {
                    g2 = G2::Greek;
                    (3, None)
                }
                [b'N', c @ 0x20..=0x7F, ..] => {
                    let ch = match g2 {
                        G2::Latin1 => char::from_u32(u32::from(*c | 0x80)),
                        G2::Greek => one_char(encoding_rs::ISO_8859_7, &[*c | 0x80]),
                        G2::None => None,
                    };
                    match ch {
                        Some(ch) => out.push(ch),
                        None => bad(&mut out, ErrorKind::InvalidByte, i),
                    }
                    (3, None)
                }
                _ => {
                    bad(&mut out, ErrorKind::InvalidByte, i);
                    (1, None)
                }
            };
            if let Some(g) = action {
                g0 = g;
            }
            i += len;
            continue;
        }
        if b >= 0x80 {
            bad(&mut out, ErrorKind::InvalidByte, i);
            i += 1;
            continue;
        }
        let double = matches!(
            g0,
            G0::Jis0208
                | G0::Jis0212
                | G0::Gb2312
                | G0::Ksc5601
                | G0::Jis0213Plane1
                | G0::Jis0213Plane2
        );
        if double && (0x21..=0x7E).contains(&b) {
            let Some(&t) = src.get(i + 1).filter(|t| (0x21..=0x7E).contains(*t)) else {
                bad(&mut out, ErrorKind::Truncated, i);
                i += 1;
                continue;
            };
            let (a, t) = (b | 0x80, t | 0x80);
            // JIS X 0208's rows: encoding_rs's table has NEC and IBM
            // characters in rows 13 and 89-92, where JIS X 0213 has others.
            let jis0208_row = matches!(b, 0x21..=0x28 | 0x30..=0x74);
            let ch = match g0 {
                G0::Jis0208 => one_char(encoding_rs::EUC_JP, &[a, t]),
                G0::Jis0213Plane1 if jis0208_row => one_char(encoding_rs::EUC_JP, &[a, t]),
                G0::Jis0213Plane1 | G0::Jis0213Plane2 => None,
                G0::Jis0212 => one_char(encoding_rs::EUC_JP, &[0x8F, a, t]),
                G0::Gb2312 => one_char(encoding_rs::GBK, &[a, t]),
                _ => one_char(encoding_rs::EUC_KR, &[a, t]),
            };
            match ch {
                Some(c) => out.push(c),
                None => bad(&mut out, ErrorKind::InvalidByte, i),
            }
            i += 2;
            continue;
        }
        let ch = match (g0, b) {
            (G0::JisRoman, 0x5C) => '\u{A5}',
            (G0::JisRoman, 0x7E) => '\u{203E}',
            (G0::Katakana, 0x21..=0x5F) => {
                char::from_u32(0xFF61 + u32::from(b - 0x21)).unwrap_or('\u{FFFD}')
            }
            _ => char::from(b),
        };
        out.push(ch);
        i += 1;
    }
    (out, report)
}

/// Encodes ISO-2022-JP-2: JIS X 0208 first, then KS C 5601, GB 2312, then
/// the ISO-8859-1 / -7 upper halves through G2. `on_bad` as in [`encode`].
pub(crate) fn encode_jp2<E>(
    text: &str,
    mut on_bad: impl FnMut(usize, char) -> Result<(), E>,
) -> Result<Vec<u8>, E> {
    let mut out = Vec::with_capacity(text.len() + 16);
    let (mut g0, mut g2) = (G0::Ascii, G2::None);
    let set_g0 = |out: &mut Vec<u8>, g: G0, cur: &mut G0| {
        if *cur != g {
            out.extend_from_slice(match g {
                G0::Jis0208 => b"\x1B$B",
                G0::Gb2312 => b"\x1B$A",
                G0::Ksc5601 => b"\x1B$(C",
                _ => b"\x1B(B",
            });
            *cur = g;
        }
    };
    let mut buf = [0u8; 4];
    let pair = |enc: &'static Encoding, c: char, buf: &mut [u8; 4]| -> Option<[u8; 2]> {
        let (bytes, _, unmappable) = enc.encode(c.encode_utf8(buf));
        match &bytes[..] {
            [a @ 0xA1..=0xFE, b @ 0xA1..=0xFE] if !unmappable => Some([a & 0x7F, b & 0x7F]),
            _ => None,
        }
    };
    for (at, c) in text.char_indices() {
        if c.is_ascii() {
            set_g0(&mut out, G0::Ascii, &mut g0);
            out.push(c as u8);
            continue;
        }
        let found = [
            (encoding_rs::EUC_JP, G0::Jis0208),
            (encoding_rs::EUC_KR, G0::Ksc5601),
            (encoding_rs::GBK, G0::Gb2312),
        ]
        .into_iter()
        .find_map(|(enc, g)| pair(enc, c, &mut buf).map(|p| (g, p)));
        if let Some((g, p)) = found {
            set_g0(&mut out, g, &mut g0);
            out.extend_from_slice(&p);
            continue;
        }
        // G2: ISO-8859-1 or ISO-8859-7 upper half, one character per ESC N.
        let latin = u32::from(c);
        let g2_byte = if (0xA0..=0xFF).contains(&latin) {
            Some((G2::Latin1, latin as u8))
        } else {
            let (bytes, _, unmappable) = encoding_rs::ISO_8859_7.encode(c.encode_utf8(&mut buf));
            match &bytes[..] {
                [x @ 0xA0..=0xFF] if !unmappable => Some((G2::Greek, *x)),
                _ => None,
            }
        };
        match g2_byte {
            Some((g, x)) => {
                if g2 != g {
                    out.extend_from_slice(if g == G2::Latin1 {
                        b"\x1B.A"
                    } else {
                        b"\x1B.F"
                    });
                    g2 = g;
                }
                out.extend_from_slice(&[0x1B, b'N', x & 0x7F]);
            }
            None => {
                on_bad(at, c)?;
                set_g0(&mut out, G0::Ascii, &mut g0);
                out.push(b'?');
            }
        }
    }
    set_g0(&mut out, G0::Ascii, &mut g0);
    Ok(out)
}
