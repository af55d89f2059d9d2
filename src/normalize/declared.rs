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

/// Rewrites the `CHARSET=` parameter of each vCard/vCalendar property whose
/// value holds non-ASCII text to `UTF-8` (vCard 2.1 section 2.4; Outlook
/// writes `N;CHARSET=Windows-1252:Müller;Hans` with the octets raw). A
/// property whose value is quoted-printable or base64 (`ENCODING=...`) is
/// left alone: its octets are still in the charset it names, ASCII to
/// MIME and so unconverted. Continuation lines (starting with a space or
/// tab) belong to the property before them. Borrows when nothing changed.
///
/// The caller must have read the card's text in the charsets these
/// parameters name (normalize keeps a card whose reading disagrees with
/// one of them as it is: `vcard_charset_disagrees`).
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
    let spans: Vec<(usize, usize)> = crate::mime::vcard_charset_params(b)
        .into_iter()
        .filter(|p| p.raw_8bit && !b[p.value.clone()].eq_ignore_ascii_case(b"utf-8"))
        .map(|p| (p.value.start, p.value.end))
        .collect();
    // The spans are ASCII runs between `=` and `;`/`:`.
    super::html::replace_spans(card, &spans, "UTF-8")
}

/// Whether a vCard/vCalendar (`card`, its octets before decoding) has a
/// property with 8-bit text whose `CHARSET=` the reading (`used`) did not
/// follow: a charset that reads its octets otherwise, unless the reading
/// is sure of itself (the octets are UTF-8 as they stand, which the
/// conversion keeps, or the decision found the label a lie: `mislabeled`).
/// Such a card is kept as it is: written as UTF-8 with the parameter
/// rewritten, the text the address book reads would be the guess, and the
/// sender's declaration gone (Polish windows-1250 under a `utf-8` lie was
/// read as windows-1252 and the card then said `N;CHARSET=UTF-8:...
/// miêdzynarodowy`).
pub(crate) fn vcard_charset_disagrees(
    card: &[u8],
    used: Option<&crate::charset::Charset>,
    mislabeled: bool,
) -> bool {
    if mislabeled || used.is_some_and(crate::charset::Charset::is_utf8) {
        return false;
    }
    crate::mime::vcard_charset_params(card)
        .into_iter()
        .filter(|p| p.raw_8bit)
        .any(|p| {
            let declared = card
                .get(p.value.clone())
                .and_then(|l| crate::charset::resolve(Some(l)).charset);
            match (declared, used) {
                // A declaration that cannot read the card's octets (a stale
                // `CHARSET=UTF-8` over Latin-1 under a right Content-Type)
                // is no reading to keep: the card is converted and the
                // parameter put right, as before.
                (Some(d), Some(_)) if fails_on(d, card) => false,
                (Some(d), Some(u)) => !crate::mime::same_reading(d, u),
                _ => true,
            }
        })
}

/// Whether `cs` has a decoder and it finds an error in `octets`.
fn fails_on(cs: &crate::charset::Charset, octets: &[u8]) -> bool {
    cs.encoding().is_some_and(|e| {
        e.decode_without_bom_handling_and_without_replacement(octets)
            .is_none()
    })
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
