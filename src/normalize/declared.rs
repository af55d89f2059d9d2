//! Charset declarations inside XML and CSS text: after a text/xml or
//! text/css part is converted, the document's own declaration must say
//! UTF-8. A saved attachment is read by its declaration, not by the MIME
//! label (an XML parser given a file honours `<?xml ... encoding="..."?>`,
//! a browser a style sheet's `@charset`), so a converted part that still
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
    // The span is an ASCII run between ASCII quotes: char boundaries.
    let (Some(before), Some(after)) = (xml.get(..span.start), xml.get(span.end..)) else {
        return Cow::Borrowed(xml);
    };
    Cow::Owned([before, "UTF-8", after].concat())
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
    let (Some(before), Some(after)) = (css.get(..v), css.get(v + len..)) else {
        return Cow::Borrowed(css);
    };
    Cow::Owned([before, "utf-8", after].concat())
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
