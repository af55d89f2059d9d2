//! Charset declarations inside XML, CSS and vCard text: after a text/xml,
//! text/css or vCard part is converted, the document's own declaration
//! must say UTF-8. A saved attachment is read by its declaration, not by the MIME
//! label (an XML parser given a file honours `<?xml ... encoding="..."?>`,
//! a browser a style sheet's `@charset`, an address book a vCard 2.1
//! property's `CHARSET=`), so a converted part that still
//! declared ISO-8859-1 would be read as mojibake (`CafÃ©`) by every tool
//! that opens it.

use std::borrow::Cow;

/// Rewrites the `encoding` of the XML declaration that opens the document
/// (after a byte order mark, if any) to `UTF-8`. Only a declaration at the
/// very start is one (XML 1.0 section 2.8); the name is matched as
/// written, quotes as XML allows (`"` or `'`), white space around `=`.
/// Borrows when there is no declaration, it names no encoding, or it
/// already says UTF-8.
///
/// ```
/// use mailcharset::normalize::rewrite_xml_encoding;
/// assert_eq!(
///     rewrite_xml_encoding("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<a/>"),
///     "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a/>"
/// );
/// assert_eq!(rewrite_xml_encoding("<a>encoding='latin1'</a>"), "<a>encoding='latin1'</a>");
/// ```
pub fn rewrite_xml_encoding(xml: &str) -> Cow<'_, str> {
    let Some(span) = crate::mime::xml_declared_encoding(xml.as_bytes()) else {
        return Cow::Borrowed(xml);
    };
    if xml.as_bytes()[span.clone()].eq_ignore_ascii_case(b"utf-8") {
        return Cow::Borrowed(xml);
    }
    // The span is an ASCII run between ASCII quotes.
    super::html::replace_spans(xml, &[(span.start, span.end)], "UTF-8")
}

/// Rewrites the `@charset "...";` rule that opens a style sheet (after a
/// byte order mark, if any) to `@charset "utf-8";`. CSS honours it only in
/// exactly that form, as the first octets (CSS Syntax 3, "determine the
/// fallback encoding"): nothing else is touched. Borrows when there is
/// none or it already says UTF-8.
///
/// ```
/// use mailcharset::normalize::rewrite_css_charset;
/// assert_eq!(rewrite_css_charset("@charset \"iso-8859-15\";\np{}"), "@charset \"utf-8\";\np{}");
/// assert_eq!(rewrite_css_charset("p{} @charset \"x\";"), "p{} @charset \"x\";");
/// ```
pub fn rewrite_css_charset(css: &str) -> Cow<'_, str> {
    let start = if css.starts_with('\u{FEFF}') { 3 } else { 0 };
    let b = css.as_bytes();
    let Some(rest) = b.get(start..).and_then(|r| r.strip_prefix(b"@charset \"")) else {
        return Cow::Borrowed(css);
    };
    let v = start + 10;
    let Some(len) = rest.iter().take(64).position(|&c| c == b'"') else {
        return Cow::Borrowed(css);
    };
    if b.get(v + len + 1) != Some(&b';')
        || !rest[..len].iter().all(|c| c.is_ascii_graphic())
        || rest[..len].eq_ignore_ascii_case(b"utf-8")
    {
        return Cow::Borrowed(css);
    }
    super::html::replace_spans(css, &[(v, v + len)], "utf-8")
}

/// Whether a text part of this subtype is a vCard or vCalendar, whose
/// version 1.0/2.1 properties carry their own `CHARSET=` parameter.
pub(crate) fn is_directory(subtype: &str) -> bool {
    matches!(
        subtype,
        "x-vcard" | "vcard" | "directory" | "x-vcalendar" | "calendar"
    )
}

/// Rewrites the `CHARSET=` parameter of each vCard/vCalendar property whose
/// value holds non-ASCII text to `UTF-8` (vCard 2.1 section 2.4; Outlook
/// writes `N;CHARSET=Windows-1252:Müller;Hans` with the octets raw). A
/// property whose value is quoted-printable or base64 (`ENCODING=...`) is
/// left alone: its octets are still in the charset it names, ASCII to
/// MIME and so unconverted. Continuation lines (starting with a space or
/// tab) belong to the property before them. Borrows when nothing changed.
///
/// ```
/// use mailcharset::normalize::rewrite_vcard_charset;
/// assert_eq!(
///     rewrite_vcard_charset("BEGIN:VCARD\nN;CHARSET=Windows-1252:Müller;Hans\nEND:VCARD\n"),
///     "BEGIN:VCARD\nN;CHARSET=UTF-8:Müller;Hans\nEND:VCARD\n"
/// );
/// ```
pub fn rewrite_vcard_charset(card: &str) -> Cow<'_, str> {
    let b = card.as_bytes();
    // (start, end) of each CHARSET value to replace.
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while at < b.len() {
        // One property: its first line, then continuation lines.
        let line_end = memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |e| at + e + 1);
        let mut end = line_end;
        while end < b.len() && matches!(b[end], b' ' | b'\t') {
            end = memchr::memchr(b'\n', &b[end..]).map_or(b.len(), |e| end + e + 1);
        }
        let first = &b[at..line_end];
        if let Some(colon) = memchr::memchr(b':', first)
            && !b[at + colon..end].is_ascii()
        {
            let mut charset = None;
            let mut encoded = false;
            let head = &first[..colon];
            let mut from = memchr::memchr(b';', head).map_or(head.len(), |i| i + 1);
            while from < head.len() {
                let to = memchr::memchr(b';', &head[from..]).map_or(head.len(), |i| from + i);
                let param = &head[from..to];
                match memchr::memchr(b'=', param) {
                    Some(eq) if param[..eq].eq_ignore_ascii_case(b"charset") => {
                        charset = Some((at + from + eq + 1, at + to));
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
            if let Some((s, e)) = charset
                && !encoded
                && !b[s..e].eq_ignore_ascii_case(b"utf-8")
            {
                spans.push((s, e));
            }
        }
        at = end;
    }
    // The spans are ASCII runs between `=` and `;`/`:`.
    super::html::replace_spans(card, &spans, "UTF-8")
}

#[cfg(test)]
mod tests {
    use super::{rewrite_css_charset as css, rewrite_xml_encoding as xml};
    use std::borrow::Cow;

    #[test]
    fn xml_declarations() {
        assert_eq!(
            xml("<?xml version='1.0' encoding='windows-1252' standalone='yes'?><r/>"),
            "<?xml version='1.0' encoding='UTF-8' standalone='yes'?><r/>"
        );
        assert_eq!(
            xml("\u{FEFF}<?xml version=\"1.0\"\n  encoding = \"Shift_JIS\" ?>\n<r/>"),
            "\u{FEFF}<?xml version=\"1.0\"\n  encoding = \"UTF-8\" ?>\n<r/>"
        );
        for s in [
            "<?xml version=\"1.0\"?><r/>",
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>",
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            " <?xml version=\"1.0\" encoding=\"latin1\"?>",
            "<?xml-stylesheet href=\"a.xsl\" encoding=\"latin1\"?>",
            "<?xml version=\"1.0\" xencoding=\"latin1\"?>",
            "<?xml version=\"1.0\" encoding=latin1?>",
            "<?xml version=\"1.0\" encoding=\"latin1'?>",
            "<?xml version=\"1.0\" encoding=\"latin1\"",
            "<r><?xml version=\"1.0\" encoding=\"latin1\"?></r>",
            "<?xml",
            "",
        ] {
            assert!(matches!(xml(s), Cow::Borrowed(_)), "{s}");
        }
    }

    #[test]
    fn vcard_properties() {
        use super::rewrite_vcard_charset as v;
        assert_eq!(
            v(
                "BEGIN:VCARD\r\nVERSION:2.1\r\nN;LANGUAGE=de;CHARSET=Windows-1252:Müller;Jürgen\r\n\
               ADR;WORK;CHARSET=iso-8859-1:;;Königstraße 1\r\n Köln\r\nEND:VCARD\r\n"
            ),
            "BEGIN:VCARD\r\nVERSION:2.1\r\nN;LANGUAGE=de;CHARSET=UTF-8:Müller;Jürgen\r\n\
             ADR;WORK;CHARSET=UTF-8:;;Königstraße 1\r\n Köln\r\nEND:VCARD\r\n"
        );
        // A value whose non-ASCII is only on a continuation line.
        assert_eq!(
            v("NOTE;CHARSET=latin1:a\n b\u{e9}\n"),
            "NOTE;CHARSET=UTF-8:a\n b\u{e9}\n"
        );
        for s in [
            // Quoted-printable or base64 values are still in their charset.
            "N;CHARSET=Windows-1252;ENCODING=QUOTED-PRINTABLE:M=FCller\nNOTE:Grüße\n",
            "N;CHARSET=Windows-1252;QUOTED-PRINTABLE:M=FCller\n",
            // ASCII values, UTF-8 already, no CHARSET, no property.
            "N;CHARSET=Windows-1252:Miller\n",
            "N;CHARSET=utf-8:Müller\n",
            "N:Müller\n",
            "Müller; CHARSET=latin1\n",
            "",
        ] {
            assert!(matches!(v(s), Cow::Borrowed(_)), "{s}");
        }
    }

    #[test]
    fn css_rules() {
        assert_eq!(
            css("\u{FEFF}@charset \"KOI8-R\";"),
            "\u{FEFF}@charset \"utf-8\";"
        );
        for s in [
            "@charset \"utf-8\";",
            "@charset 'latin1';",
            "@charset  \"latin1\";",
            "@CHARSET \"latin1\";",
            "@charset \"latin1\"",
            " @charset \"latin1\";",
            "@charset \"",
            "",
        ] {
            assert!(matches!(css(s), Cow::Borrowed(_)), "{s}");
        }
    }
}
