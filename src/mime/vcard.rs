//! The charsets a vCard or vCalendar 1.0/2.1 declares about itself: each
//! property may carry its own `CHARSET=` parameter (vCard 2.1 section 2.4;
//! Outlook writes `N;CHARSET=Windows-1250:Kowalski;Jan` with the octets
//! raw). A property whose value is quoted-printable or base64
//! (`ENCODING=...`, or vCard 2.1's bare `;QUOTED-PRINTABLE`) is ASCII to
//! MIME: its octets stay in its charset whatever is done to the part.
//!
//! This is parsing only; which label wins (the Content-Type parameter
//! does, when there is one) is decided by `message::body_label`, and the
//! rewrite after conversion is `normalize::rewrite_vcard_charset`.

use std::ops::Range;

/// One property's `CHARSET=` parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CharsetParam {
    /// The parameter's value in the card.
    pub value: Range<usize>,
    /// The property's value holds octets above 0x7F as they are (not
    /// quoted-printable or base64): text the charset reads.
    pub raw_8bit: bool,
}

/// Whether a text part of this subtype is a vCard or vCalendar, whose
/// version 1.0/2.1 properties carry their own `CHARSET=` parameter.
pub(crate) fn is_directory(subtype: &str) -> bool {
    matches!(
        subtype,
        "x-vcard" | "vcard" | "directory" | "x-vcalendar" | "calendar"
    )
}

/// Every `CHARSET=` parameter of the card's properties, in order.
/// Continuation lines (starting with a space or tab) belong to the
/// property before them.
pub(crate) fn charset_params(b: &[u8]) -> Vec<CharsetParam> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < b.len() {
        // One property: its first line, then continuation lines.
        let line_end = memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |e| at + e + 1);
        let mut end = line_end;
        while end < b.len() && matches!(b[end], b' ' | b'\t') {
            end = memchr::memchr(b'\n', &b[end..]).map_or(b.len(), |e| end + e + 1);
        }
        let first = &b[at..line_end];
        if let Some(colon) = memchr::memchr(b':', first) {
            let mut charset = None;
            let mut encoded = false;
            let head = &first[..colon];
            let mut from = memchr::memchr(b';', head).map_or(head.len(), |i| i + 1);
            while from < head.len() {
                let to = memchr::memchr(b';', &head[from..]).map_or(head.len(), |i| from + i);
                let param = &head[from..to];
                match memchr::memchr(b'=', param) {
                    Some(eq) if param[..eq].eq_ignore_ascii_case(b"charset") => {
                        charset = Some(at + from + eq + 1..at + to);
                    }
                    Some(eq) => encoded |= param[..eq].eq_ignore_ascii_case(b"encoding"),
                    // vCard 2.1 allows a bare value: `;QUOTED-PRINTABLE`.
                    None => {
                        encoded |= param.eq_ignore_ascii_case(b"quoted-printable")
                            || param.eq_ignore_ascii_case(b"base64");
                    }
                }
                from = to + 1;
            }
            if let Some(value) = charset {
                out.push(CharsetParam {
                    value,
                    raw_8bit: !encoded && !b[at + colon..end].is_ascii(),
                });
            }
        }
        at = end;
    }
    out
}

/// The charset the card's 8-bit text declares: the `CHARSET=` of its
/// properties whose values hold raw 8-bit octets, when they all name one
/// charset this crate knows (the first one's range). Properties that
/// disagree, or a label we do not know, declare nothing: no one label
/// reads the whole card.
pub(crate) fn vcard_charset(card: &[u8]) -> Option<Range<usize>> {
    let mut first: Option<(Range<usize>, &'static crate::charset::Charset)> = None;
    for p in charset_params(card).into_iter().filter(|p| p.raw_8bit) {
        let cs = crate::charset::resolve(Some(card.get(p.value.clone())?)).charset?;
        if cs.is_unknown_8bit() {
            return None;
        }
        match &first {
            None => first = Some((p.value, cs)),
            Some((_, f)) if !same_reading(f, cs) => return None,
            Some(_) => {}
        }
    }
    first.map(|(r, _)| r)
}

/// Whether two charsets read octets alike: one decoder (ISO-8859-1 is
/// windows-1252's), or, without one, the same charset.
pub(crate) fn same_reading(a: &crate::charset::Charset, b: &crate::charset::Charset) -> bool {
    match (a.decoder_name(), b.decoder_name()) {
        (Some(x), Some(y)) => x == y,
        _ => a.name() == b.name(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(card: &[u8]) -> Option<String> {
        vcard_charset(card).map(|r| String::from_utf8_lossy(&card[r]).into_owned())
    }

    #[test]
    fn declarations() {
        assert_eq!(
            declared(
                b"BEGIN:VCARD\nVERSION:2.1\nN;CHARSET=windows-1250:Kowalski;Pawe\xb3\nEND:VCARD\n"
            )
            .as_deref(),
            Some("windows-1250")
        );
        // The first property with 8-bit text names it; ASCII and
        // quoted-printable values declare nothing about the raw octets.
        assert_eq!(
            declared(
                b"FN;CHARSET=koi8-r:Ivan\nNOTE;CHARSET=koi8-r;ENCODING=QUOTED-PRINTABLE:=F0\n\
                  ORG;CHARSET=iso-8859-2:\xa3\xf3d\xbc\nN;CHARSET=latin2:x\n \xb3\n"
            )
            .as_deref(),
            Some("iso-8859-2")
        );
        for card in [
            // Two charsets for the 8-bit text: no one label.
            &b"N;CHARSET=windows-1251:\xc8\nORG;CHARSET=windows-1252:\xe9\n"[..],
            // An unknown label, none at all, only encoded values.
            b"N;CHARSET=bogus-cs:\xe9\n",
            b"N:M\xfcller\n",
            b"N;CHARSET=windows-1252;QUOTED-PRINTABLE:M=FCller\n",
            b"M\xfcller; CHARSET=latin1\n",
            b"",
        ] {
            assert_eq!(declared(card), None, "{}", String::from_utf8_lossy(card));
        }
        // ISO-8859-1 and windows-1252 read alike (one decoder).
        assert_eq!(
            declared(b"N;CHARSET=iso-8859-1:\xe9\nORG;CHARSET=windows-1252:\xe8\n").as_deref(),
            Some("iso-8859-1")
        );
    }
}
