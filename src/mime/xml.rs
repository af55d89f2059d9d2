//! The charset an XML document declares about itself (XML 1.0 section 4.3.3
//! and appendix F): a byte order mark, the UTF-16 form of `<?`, else the
//! `encoding` of the XML declaration that opens the document. RFC 7303
//! makes that the label of a text/xml body without a `charset` parameter.
//!
//! This is parsing only; which label wins (the Content-Type parameter
//! does, when there is one) is decided by `message::body_label`.

use std::ops::Range;

/// Where an XML document's own charset declaration is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum XmlCharset {
    /// A byte order mark, or `<?` in UTF-16 without one (`3C 00 3F 00`,
    /// `00 3C 00 3F`): the charset it names.
    Signature(&'static str),
    /// The declaration's `encoding` value: its octets in the input.
    Declared(Range<usize>),
}

/// Whether a text part of this subtype is XML (RFC 7303: `text/xml`,
/// `text/xml-external-parsed-entity`, and any `text/*+xml`).
pub fn is_xml(subtype: &str) -> bool {
    subtype == "xml" || subtype == "xml-external-parsed-entity" || subtype.ends_with("+xml")
}

/// The charset `xml` declares, if any.
///
/// ```
/// use mailcharset::mime::{XmlCharset, xml_charset};
/// let xml = b"<?xml version='1.0' encoding='ISO-8859-7'?><a/>";
/// let Some(XmlCharset::Declared(range)) = xml_charset(xml) else { panic!() };
/// assert_eq!(&xml[range], b"ISO-8859-7");
/// assert_eq!(xml_charset(b"<?xml version='1.0'?><a/>"), None);
/// assert_eq!(xml_charset(b"<\0?\0x\0m\0l\0"), Some(XmlCharset::Signature("UTF-16LE")));
/// ```
pub fn xml_charset(xml: &[u8]) -> Option<XmlCharset> {
    for (sig, name) in [
        (&b"\xEF\xBB\xBF"[..], "UTF-8"),
        (b"\xFF\xFE", "UTF-16LE"),
        (b"\xFE\xFF", "UTF-16BE"),
        (b"<\0?\0", "UTF-16LE"),
        (b"\0<\0?", "UTF-16BE"),
    ] {
        if xml.starts_with(sig) {
            return Some(XmlCharset::Signature(name));
        }
    }
    declared_encoding(xml).map(XmlCharset::Declared)
}

/// The range of the `encoding` value of the XML declaration at the start
/// of `xml` (after a UTF-8 byte order mark, octets or U+FEFF): `<?xml` S
/// ... S `encoding` Eq (`"` EncName `"` | `'` EncName `'`) ... `?>`. Only a
/// declaration at the very start is one (XML 1.0 section 2.8).
pub(crate) fn declared_encoding(xml: &[u8]) -> Option<Range<usize>> {
    let start = if xml.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let decl = xml.get(start..)?.strip_prefix(b"<?xml")?;
    if !decl.first().is_some_and(|&c| is_xml_space(c)) {
        return None;
    }
    let head = start + 5;
    // The declaration ends at `?>`; its pseudo-attributes hold no `?`.
    let end = head + memchr::memmem::find(&xml[head..], b"?>")?;
    let decl = &xml[head..end];
    let mut from = 0;
    while let Some(k) = memchr::memmem::find(&decl[from..], b"encoding") {
        let at = from + k;
        from = at + 8;
        // A pseudo-attribute name follows white space.
        if at == 0 || !is_xml_space(decl[at - 1]) {
            continue;
        }
        let mut j = at + 8;
        while decl.get(j).is_some_and(|&c| is_xml_space(c)) {
            j += 1;
        }
        if decl.get(j) != Some(&b'=') {
            continue;
        }
        j += 1;
        while decl.get(j).is_some_and(|&c| is_xml_space(c)) {
            j += 1;
        }
        let quote = *decl.get(j).filter(|&&q| q == b'"' || q == b'\'')?;
        let v = j + 1;
        let len = decl
            .get(v..)?
            .iter()
            .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.')))?;
        // EncName starts with a letter and ends at its closing quote.
        if len == 0 || !decl[v].is_ascii_alphabetic() || decl.get(v + len) != Some(&quote) {
            return None;
        }
        return Some(head + v..head + v + len);
    }
    None
}

fn is_xml_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

#[cfg(test)]
mod tests {
    use super::{XmlCharset, declared_encoding, is_xml, xml_charset};

    #[test]
    fn declarations() {
        let at =
            |s: &[u8]| declared_encoding(s).map(|r| String::from_utf8_lossy(&s[r]).into_owned());
        assert_eq!(
            at(b"<?xml version='1.0' encoding='windows-1252' standalone='yes'?>").as_deref(),
            Some("windows-1252")
        );
        assert_eq!(
            at(b"\xEF\xBB\xBF<?xml version=\"1.0\"\n  encoding = \"Shift_JIS\" ?>").as_deref(),
            Some("Shift_JIS")
        );
        for s in [
            &b"<?xml version=\"1.0\"?><r/>"[..],
            b" <?xml version=\"1.0\" encoding=\"latin1\"?>",
            b"<?xml-stylesheet href=\"a.xsl\" encoding=\"latin1\"?>",
            b"<?xml version=\"1.0\" xencoding=\"latin1\"?>",
            b"<?xml version=\"1.0\" encoding=latin1?>",
            b"<?xml version=\"1.0\" encoding=\"latin1'?>",
            b"<?xml version=\"1.0\" encoding=\"\"?>",
            b"<?xml version=\"1.0\" encoding=\"latin1\"",
            b"<r><?xml version=\"1.0\" encoding=\"latin1\"?></r>",
            b"<?xml",
            b"",
        ] {
            assert_eq!(at(s), None, "{}", String::from_utf8_lossy(s));
        }
        assert_eq!(
            xml_charset(b"\xFE\xFF\0<"),
            Some(XmlCharset::Signature("UTF-16BE"))
        );
        assert_eq!(
            xml_charset(b"\0<\0?\0x"),
            Some(XmlCharset::Signature("UTF-16BE"))
        );
    }

    #[test]
    fn xml_types() {
        assert!(is_xml("xml") && is_xml("xml-external-parsed-entity") && is_xml("vnd.foo+xml"));
        assert!(!is_xml("html") && !is_xml("plain") && !is_xml("xmlish"));
    }
}
