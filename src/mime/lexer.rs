//! Lexical rules shared by the structured-field parsers (RFC 5322 3.2,
//! RFC 2045 5.1), written leniently: folding white space is any run of SP,
//! HTAB, CR and LF, because the parsers run over raw (still folded) values
//! so that offsets stay offsets into the raw value.

use nom::bytes::complete::{tag, take_while, take_while1};
use nom::{IResult, Parser};
use std::borrow::Cow;

pub(crate) type PResult<'a, O> = IResult<&'a [u8], O>;

/// Deepest comment nesting followed; deeper parentheses are plain ctext.
const MAX_COMMENT_DEPTH: usize = 64;

#[inline]
pub(crate) fn is_wsp(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// SP, HTAB, CR, LF: white space in a raw (folded) value.
#[inline]
pub(crate) fn is_fws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// RFC 2045 `tspecials`.
#[inline]
pub(crate) fn is_tspecial(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')'
            | b'<'
            | b'>'
            | b'@'
            | b','
            | b';'
            | b':'
            | b'\\'
            | b'"'
            | b'/'
            | b'['
            | b']'
            | b'?'
            | b'='
    )
}

/// RFC 2045 token character (8-bit octets accepted: real mail has them).
#[inline]
pub(crate) fn is_token_char(b: u8) -> bool {
    b > 0x20 && b != 0x7f && !is_tspecial(b)
}

/// Folding white space, leniently.
///
/// ```abnf
/// FWS     = ([*WSP CRLF] 1*WSP) / obs-FWS   ; RFC 5322 3.2.2
/// obs-FWS = 1*WSP *(CRLF 1*WSP)             ; RFC 5322 4.2
/// ; here: 1*(SP / HTAB / CR / LF), bare CR and LF included
/// ```
pub(crate) fn fws(i: &[u8]) -> PResult<'_, &[u8]> {
    take_while1(is_fws).parse(i)
}

/// A comment; returns its content (without the outer parentheses). An
/// unterminated comment runs to the end of the input (the caller may report
/// it: the second value is false).
///
/// ```abnf
/// comment  = "(" *([FWS] ccontent) [FWS] ")"   ; RFC 5322 3.2.2
/// ccontent = ctext / quoted-pair / comment
/// ```
pub(crate) fn comment(i: &[u8]) -> PResult<'_, (&[u8], bool)> {
    let (rest, _) = tag(&b"("[..]).parse(i)?;
    let mut depth = 1usize;
    let mut k = 0;
    while k < rest.len() {
        match rest[k] {
            b'\\' => k += 1,
            b'(' if depth < MAX_COMMENT_DEPTH => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Ok((&rest[k + 1..], (&rest[..k], true)));
                }
            }
            _ => {}
        }
        k += 1;
    }
    Ok((&rest[rest.len()..], (rest, false)))
}

/// Comments and folding white space.
///
/// ```abnf
/// CFWS = (1*([FWS] comment) [FWS]) / FWS   ; RFC 5322 3.2.2
/// ```
pub(crate) fn cfws(i: &[u8]) -> &[u8] {
    let mut i = i;
    loop {
        if let Ok((rest, _)) = fws(i) {
            i = rest;
        } else if let Ok((rest, _)) = comment(i) {
            i = rest;
        } else {
            return i;
        }
    }
}

/// A quoted string; returns the raw content between the quotes and whether
/// the closing quote was there (an unterminated string runs to the end).
///
/// ```abnf
/// quoted-string = [CFWS] DQUOTE *([FWS] qcontent) [FWS] DQUOTE [CFWS]
/// qcontent      = qtext / quoted-pair
/// quoted-pair   = ("\" (VCHAR / WSP)) / obs-qp
/// ```
pub(crate) fn quoted_string(i: &[u8]) -> PResult<'_, (&[u8], bool)> {
    let (rest, _) = tag(&b"\""[..]).parse(i)?;
    let mut k = 0;
    while k < rest.len() {
        match rest[k] {
            b'\\' => k += 2,
            b'"' => return Ok((&rest[k + 1..], (&rest[..k], true))),
            _ => k += 1,
        }
    }
    Ok((&rest[rest.len()..], (rest, false)))
}

/// The content of a quoted string (or comment) with quoted-pairs resolved
/// and line ends removed (unfolded). Borrows when nothing changes.
pub(crate) fn unquote(raw: &[u8]) -> Cow<'_, [u8]> {
    if !raw.iter().any(|&b| matches!(b, b'\\' | b'\r' | b'\n')) {
        return Cow::Borrowed(raw);
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut k = 0;
    while k < raw.len() {
        match raw[k] {
            b'\\' if k + 1 < raw.len() => {
                out.push(raw[k + 1]);
                k += 2;
            }
            b'\r' | b'\n' => k += 1,
            b => {
                out.push(b);
                k += 1;
            }
        }
    }
    Cow::Owned(out)
}

/// Removes line ends (RFC 5322 2.2.3 unfolding), borrowing when there are
/// none.
pub(crate) fn unfold(raw: &[u8]) -> Cow<'_, [u8]> {
    if memchr::memchr2(b'\r', b'\n', raw).is_none() {
        return Cow::Borrowed(raw);
    }
    Cow::Owned(
        raw.iter()
            .copied()
            .filter(|&b| b != b'\r' && b != b'\n')
            .collect(),
    )
}

/// Zero or more white space octets (no comments).
pub(crate) fn opt_fws(i: &[u8]) -> &[u8] {
    match take_while::<_, _, nom::error::Error<&[u8]>>(is_fws).parse(i) {
        Ok((rest, _)) => rest,
        Err(_) => i,
    }
}

/// Trims SP/HTAB/CR/LF at both ends.
pub(crate) fn trim_fws(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if is_fws(*first) {
            s = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = s {
        if is_fws(*last) {
            s = rest;
        } else {
            break;
        }
    }
    s
}

/// `String::from_utf8_lossy`, validated by `str::from_utf8` first: the
/// short values it is given (field names, Message-IDs, parameter names,
/// dates) are nearly always valid, and `from_utf8` checks ASCII a word at a
/// time where the lossy walk (`Utf8Chunks`) goes octet by octet
/// (doc/bench-log.md, "Issue 18, eighth round").
pub(crate) fn lossy(b: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(b),
    }
}

/// Offset of `rest` within `whole` (both slices of the same input).
#[inline]
pub(crate) fn offset_in(whole: &[u8], rest: &[u8]) -> usize {
    whole.len() - rest.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// `lossy` is `String::from_utf8_lossy`, on valid text (borrowed)
        /// and on every kind of damage.
        #[test]
        fn lossy_is_std_lossy(
            b in prop::collection::vec(
                prop_oneof![any::<u8>(), 0x20u8..0x7F, 0x80u8..0xC0, Just(0xE4u8)],
                0..40,
            ),
        ) {
            let ours = lossy(&b);
            let std = String::from_utf8_lossy(&b);
            prop_assert_eq!(&ours, &std);
            prop_assert_eq!(matches!(ours, Cow::Borrowed(_)), matches!(std, Cow::Borrowed(_)));
        }
    }

    #[test]
    fn comments_nest_and_may_be_unterminated() {
        assert_eq!(
            comment(b"(a (b) \\) c) x"),
            Ok((&b" x"[..], (&b"a (b) \\) c"[..], true)))
        );
        assert_eq!(comment(b"(a (b"), Ok((&b""[..], (&b"a (b"[..], false))));
        assert_eq!(cfws(b" (x) \r\n (y)z"), b"z");
    }

    #[test]
    fn quoted_strings_unquote_and_unfold() {
        let (rest, (raw, ok)) = quoted_string(b"\"a\\\"b\r\n c\";").unwrap();
        assert!(ok);
        assert_eq!(rest, b";");
        assert_eq!(&*unquote(raw), b"a\"b c");
        assert!(!quoted_string(b"\"abc").unwrap().1.1);
    }

    #[test]
    fn deep_comment_nesting_does_not_recurse() {
        let mut v = vec![b'('; 100_000];
        v.extend(std::iter::repeat_n(b')', 100_000));
        let (rest, _) = comment(&v).unwrap();
        assert!(rest.len() < v.len());
    }
}
