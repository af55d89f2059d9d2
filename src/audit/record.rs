use crate::finding::{Finding, LabelStatus, Verdict};
use serde::Serialize;
use std::sync::Arc;

/// One audited piece of labelled text (doc/architecture.md, "Audit records").
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Record {
    /// The input as the user named it (file, mbox, Maildir, `-`). Shared
    /// by the records of a message (a clone is a count, not a copy).
    pub input: Arc<str>,
    /// 0-based position of the message in its input.
    pub index: usize,
    /// Message-ID without angle brackets, shared likewise.
    pub message_id: Option<Arc<str>>,
    /// Part number ("1", "1.2"); empty for a message-level record.
    pub part: String,
    /// `body`, `header:Subject`, `param:filename`, `message` ...
    pub location: String,
    /// The label as written, non-UTF-8 bytes escaped; None when absent.
    pub label: Option<String>,
    /// Canonical charset name, None when unknown or absent.
    pub charset: Option<&'static str>,
    /// Where the label is registered (`preferred`, `alias`, `unknown` ...).
    pub status: LabelStatus,
    /// How far to trust this piece of text (doc/architecture.md).
    pub verdict: Verdict,
    /// What the decision read the text as, when not the label.
    pub detected: Option<DetectedRecord>,
    /// Everything found, by offset.
    pub findings: Vec<Finding>,
    /// Year from the message's Date field, for summaries (not in the record
    /// contract, so not serialized).
    #[serde(skip)]
    pub year: Option<u16>,
    /// What kind of labelled text this is (not in the record contract, so
    /// not serialized; the location says it to a reader).
    #[serde(skip)]
    pub source: Source,
}

/// Where a record's label came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Source {
    /// A `charset` parameter of a Content-Type (location `body`, or
    /// `param:charset` for a part that is not text).
    Body,
    /// A text/html body without a `charset` parameter: the label its
    /// first declaring `<meta>` names (location `body`).
    HtmlMeta,
    /// A text/html body without a `charset` parameter: the charset its
    /// byte order mark names (location `body`).
    HtmlBom,
    /// An XML body (text/xml, text/*+xml) without a `charset` parameter:
    /// the charset its byte order mark or UTF-16 `<?` names (location
    /// `body`).
    XmlSignature,
    /// An XML body without a `charset` parameter: the `encoding` of its
    /// XML declaration (location `body`).
    XmlDeclaration,
    /// A vCard or vCalendar 1.0/2.1 without a `charset` parameter: the
    /// `CHARSET=` of its properties with 8-bit text (location `body`).
    VcardCharset,
    /// A run of RFC 2047 encoded-words (in a header field or a parameter).
    EncodedWord,
    /// An RFC 2231 parameter value (`name*=charset'lang'...`).
    Rfc2231,
    /// Raw 8-bit octets in a header field (no label).
    Raw8bit,
    /// The message-level record of a message with nothing labelled.
    #[default]
    Message,
}

/// What detection found, as recorded.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DetectedRecord {
    /// The charset's canonical name.
    pub charset: String,
    /// A heuristic 0.0 ..= 1.0 (see `charset::Detected`).
    pub confidence: f32,
}

/// Escapes a label as written: valid UTF-8 is kept, every other byte becomes
/// `\xHH`, and backslashes are doubled so the escape is unambiguous.
pub(crate) fn escape_label(raw: &[u8]) -> String {
    // Nearly every label is ASCII without a backslash: nothing to escape.
    if let Ok(s) = std::str::from_utf8(raw)
        && !s.contains('\\')
    {
        return s.to_owned();
    }
    let mut out = String::with_capacity(raw.len());
    for chunk in raw.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finding_kinds_serialize_with_the_contract_names() {
        use crate::finding::FindingKind;
        let r = Record {
            input: "x".into(),
            index: 0,
            message_id: None,
            part: "1".into(),
            location: "header:Subject".into(),
            label: None,
            charset: None,
            status: LabelStatus::Missing,
            verdict: Verdict::Suspicious,
            detected: None,
            findings: vec![
                Finding::new(FindingKind::Raw8bitHeader, 3, 2),
                Finding::new(FindingKind::EightBitInAscii, 3, 2).with_note("n"),
            ],
            year: None,
            source: Source::Raw8bit,
        };
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["findings"][0]["kind"], "raw-8bit-header");
        assert_eq!(v["findings"][1]["kind"], "eight-bit-in-ascii");
        assert_eq!(v["findings"][1]["note"], "n");
        assert!(v["findings"][0].get("note").is_none());
    }

    #[test]
    fn escape_label_keeps_utf8_and_escapes_the_rest() {
        assert_eq!(escape_label(b"iso-8859-1"), "iso-8859-1");
        assert_eq!(escape_label(b"utf\xff-8"), "utf\\xFF-8");
        assert_eq!(escape_label("k\u{f6}i8".as_bytes()), "k\u{f6}i8");
        assert_eq!(escape_label(b"a\\b"), "a\\\\b");
    }
}
