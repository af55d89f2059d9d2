//! The shared vocabulary of findings, label statuses and verdicts.
//!
//! These names are a contract (doc/architecture.md, "Names used in output"): they
//! appear in JSON, CSV and table output, and users match on them.

use serde::Serialize;
use std::borrow::Cow;
use std::fmt;

/// What was found in a piece of labelled text.
///
/// Serialized as [`FindingKind::as_str`], the contract name (a derived
/// kebab-case would spell `Raw8bitHeader` as `raw8bit-header`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum FindingKind {
    /// Non-shortest form (C0 80, C0 AE, E0 80 80, F0 80 80 80 ...).
    Overlong,
    /// A UTF-16 surrogate encoded as three octets (ED A0..BF xx).
    Surrogate,
    /// A high+low surrogate pair written as two 3-octet sequences (CESU-8).
    SurrogatePair,
    /// A 4-octet value above U+10FFFF.
    OutOfRange,
    /// A 5- or 6-octet sequence of RFC 2279.
    LegacyForm,
    /// A 7- or 13-octet UTF-E-8 sequence (lead FE or FF).
    ExtendedForm,
    /// A sequence cut short by the end of input or a non-continuation octet.
    Truncated,
    /// A stray 80..BF octet.
    UnexpectedContinuation,
    /// An octet that can never appear in the decoding mode in force.
    InvalidByte,
    /// A Unicode 1.1 Hangul syllable that was remapped (UNICODE-1-1-UTF-8).
    OldHangul,
    /// U+3400..U+4DFF dominates the CJK text of a part not labelled UNICODE-1-1-UTF-8.
    PossibleOldHangul,
    /// Octets >= 0x80 under a us-ascii label or no label.
    EightBitInAscii,
    /// 0x80..0x9F under an ISO-8859-1 label (really windows-1252).
    C1InLatin1,
    /// The label does not explain the text and another charset does (the
    /// note names it), or another reading is possible but too weakly
    /// supported to override the label (the note says "kept").
    Mislabeled,
    /// The label is not known.
    UnknownLabel,
    /// There is no label.
    MissingLabel,
    /// An RFC 2047 word that could not be decoded as written.
    MalformedEncodedWord,
    /// 8-bit octets in a header field.
    Raw8bitHeader,
    /// U+FFFD had to be written (with a count).
    Replacement,
    /// A NUL (U+0000) in text, written directly or spelled as an overlong form.
    Nul,
    /// The label names a charset we know but cannot decode (kept as written).
    UnsupportedCharset,
    /// A structural problem in the MIME layer (bad parameter continuation,
    /// missing boundary, bad transfer coding, limit reached ...).
    Malformed,
    /// A limit (depth, parts, header size, encoded-word count) was reached.
    LimitReached,
    /// A text/* body holding NUL, C0 controls or an archive/image magic
    /// number: not text, kept byte for byte.
    BinaryInText,
    /// A text its label explains, with lines in another charset (named in
    /// the note; the offset is the first such line's).
    MixedCharset,
}

impl FindingKind {
    /// The kebab-case name used in every output format.
    pub const fn as_str(self) -> &'static str {
        match self {
            FindingKind::Overlong => "overlong",
            FindingKind::Surrogate => "surrogate",
            FindingKind::SurrogatePair => "surrogate-pair",
            FindingKind::OutOfRange => "out-of-range",
            FindingKind::LegacyForm => "legacy-form",
            FindingKind::ExtendedForm => "extended-form",
            FindingKind::Truncated => "truncated",
            FindingKind::UnexpectedContinuation => "unexpected-continuation",
            FindingKind::InvalidByte => "invalid-byte",
            FindingKind::OldHangul => "old-hangul",
            FindingKind::PossibleOldHangul => "possible-old-hangul",
            FindingKind::EightBitInAscii => "eight-bit-in-ascii",
            FindingKind::C1InLatin1 => "c1-in-latin1",
            FindingKind::Mislabeled => "mislabeled",
            FindingKind::UnknownLabel => "unknown-label",
            FindingKind::MissingLabel => "missing-label",
            FindingKind::MalformedEncodedWord => "malformed-encoded-word",
            FindingKind::Raw8bitHeader => "raw-8bit-header",
            FindingKind::Replacement => "replacement",
            FindingKind::Nul => "nul",
            FindingKind::UnsupportedCharset => "unsupported-charset",
            FindingKind::Malformed => "malformed",
            FindingKind::LimitReached => "limit-reached",
            FindingKind::BinaryInText => "binary-in-text",
            FindingKind::MixedCharset => "mixed-charset",
        }
    }
}

impl Serialize for FindingKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding: a kind, the byte offset of its first occurrence in the
/// decoded-transfer content of its location, and how many times it occurred.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// What was found.
    pub kind: FindingKind,
    /// Octet offset of the first occurrence.
    pub offset: usize,
    /// How many times it occurred.
    pub count: usize,
    /// A human explanation where the kind alone undersells it (for example
    /// "overlong '/' (path traversal)").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<Cow<'static, str>>,
}

impl Finding {
    /// A finding without a note.
    pub fn new(kind: FindingKind, offset: usize, count: usize) -> Self {
        Finding {
            kind,
            offset,
            count,
            note: None,
        }
    }

    /// The finding with a note.
    pub fn with_note(mut self, note: impl Into<Cow<'static, str>>) -> Self {
        self.note = Some(note.into());
        self
    }
}

/// How trustworthy a charset label is, by where it is registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LabelStatus {
    /// The IANA preferred MIME name.
    Preferred,
    /// An IANA name or alias.
    Registered,
    /// A WHATWG label not in IANA.
    Whatwg,
    /// A known vendor or mail-world alias or misspelling.
    Alias,
    /// A label no registry knows.
    Unknown,
    /// No label at all.
    Missing,
}

impl LabelStatus {
    /// The name used in every output format.
    pub const fn as_str(self) -> &'static str {
        match self {
            LabelStatus::Preferred => "preferred",
            LabelStatus::Registered => "registered",
            LabelStatus::Whatwg => "whatwg",
            LabelStatus::Alias => "alias",
            LabelStatus::Unknown => "unknown",
            LabelStatus::Missing => "missing",
        }
    }
}

impl fmt::Display for LabelStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The verdict for one labelled piece of text. Ordered by severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Clean and correctly labelled.
    Ok,
    /// Valid, with findings.
    Suspicious,
    /// The label does not fit the text; another charset does.
    Mislabeled,
    /// Needed replacement.
    Invalid,
    /// The label is not known.
    UnknownLabel,
}

impl Verdict {
    /// The name used in every output format.
    pub const fn as_str(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Suspicious => "suspicious",
            Verdict::Mislabeled => "mislabeled",
            Verdict::Invalid => "invalid",
            Verdict::UnknownLabel => "unknown-label",
        }
    }
}

impl Verdict {
    /// The verdict once everything said of a text is known: a valid text
    /// with findings is `suspicious`, one left with none is `ok`. Audit and
    /// normalize both settle their verdicts so, and so agree.
    #[must_use]
    pub fn settle(self, findings: &[Finding]) -> Verdict {
        match self {
            Verdict::Suspicious if findings.is_empty() => Verdict::Ok,
            Verdict::Ok if !findings.is_empty() => Verdict::Suspicious,
            v => v,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_names_are_the_contract_names() {
        let kinds = [
            FindingKind::Overlong,
            FindingKind::SurrogatePair,
            FindingKind::Raw8bitHeader,
            FindingKind::EightBitInAscii,
            FindingKind::C1InLatin1,
            FindingKind::PossibleOldHangul,
            FindingKind::LimitReached,
        ];
        for k in kinds {
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
        }
        assert_eq!(FindingKind::Raw8bitHeader.as_str(), "raw-8bit-header");
        let f = serde_json::to_value(Finding::new(FindingKind::Raw8bitHeader, 3, 2)).unwrap();
        assert_eq!(
            f,
            serde_json::json!({"kind": "raw-8bit-header", "offset": 3, "count": 2})
        );
    }
}
