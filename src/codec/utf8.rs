//! Strict UTF-8 (RFC 3629) validation and lossy decoding.
//!
//! PROVISIONAL: a correct std-backed version so that the layers above can be
//! built against the final API. The codec work item replaces the internals
//! (simdutf8 fast path, streaming decoder) and keeps the signatures.

use super::ErrorKind;
use std::borrow::Cow;
use std::fmt;

/// A strict UTF-8 error, shaped like `std::str::Utf8Error` plus a kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Utf8Error {
    valid_up_to: usize,
    error_len: Option<u8>,
    kind: ErrorKind,
}

impl Utf8Error {
    /// Index of the first byte that is not part of a valid prefix.
    pub fn valid_up_to(&self) -> usize {
        self.valid_up_to
    }
    /// Length of the invalid sequence (a maximal subpart), or `None` when the
    /// input ended in the middle of a sequence. Same as std.
    pub fn error_len(&self) -> Option<usize> {
        self.error_len.map(usize::from)
    }
    /// What kind of error this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}

impl fmt::Display for Utf8Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at offset {}", self.kind, self.valid_up_to)
    }
}

impl std::error::Error for Utf8Error {}

/// Validates strict UTF-8.
pub fn validate(src: &[u8]) -> Result<&str, Utf8Error> {
    match std::str::from_utf8(src) {
        Ok(s) => Ok(s),
        Err(e) => {
            let at = e.valid_up_to();
            let kind = classify(&src[at..]);
            Err(Utf8Error {
                valid_up_to: at,
                error_len: e.error_len().map(|n| n as u8),
                kind,
            })
        }
    }
}

fn is_cont(b: Option<&u8>) -> bool {
    matches!(b, Some(0x80..=0xBF))
}

/// Classifies the invalid sequence at the start of `rest`.
fn classify(rest: &[u8]) -> ErrorKind {
    let b0 = rest.first().copied().unwrap_or(0);
    let b1 = rest.get(1);
    match b0 {
        0x80..=0xBF => ErrorKind::UnexpectedContinuation,
        0xC0 | 0xC1 if is_cont(b1) => ErrorKind::Overlong,
        0xE0 if matches!(b1, Some(0x80..=0x9F)) => ErrorKind::Overlong,
        0xF0 if matches!(b1, Some(0x80..=0x8F)) => ErrorKind::Overlong,
        0xED if matches!(b1, Some(0xA0..=0xAF))
            && rest.get(3) == Some(&0xED)
            && matches!(rest.get(4), Some(0xB0..=0xBF)) =>
        {
            ErrorKind::SurrogatePair
        }
        0xED if matches!(b1, Some(0xA0..=0xBF)) => ErrorKind::Surrogate,
        0xF4 if matches!(b1, Some(0x90..=0xBF)) => ErrorKind::OutOfRange,
        0xF5..=0xF7 if is_cont(b1) => ErrorKind::OutOfRange,
        0xF8 if matches!(b1, Some(0x80..=0x87)) => ErrorKind::Overlong,
        0xFC if matches!(b1, Some(0x80..=0x83)) => ErrorKind::Overlong,
        0xF8..=0xFD if is_cont(b1) => ErrorKind::LegacyForm,
        0xFE | 0xFF if is_cont(b1) => ErrorKind::ExtendedForm,
        0xC2..=0xF4 => ErrorKind::Truncated,
        _ => ErrorKind::InvalidByte,
    }
}

/// Decodes UTF-8, writing one U+FFFD per maximal subpart (Unicode ch. 3,
/// WHATWG). Borrows when the input is valid.
pub fn decode_lossy(src: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(src)
}

/// Per-kind counts and first offsets of the errors met while decoding.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DecodeReport {
    /// `(kind, first offset, count)` in order of first occurrence.
    pub errors: Vec<(ErrorKind, usize, usize)>,
    /// Number of U+FFFD written.
    pub replacements: usize,
}

impl DecodeReport {
    pub fn is_clean(&self) -> bool {
        self.errors.is_empty()
    }
    pub(crate) fn record(&mut self, kind: ErrorKind, offset: usize) {
        if let Some(e) = self.errors.iter_mut().find(|e| e.0 == kind) {
            e.2 += 1;
        } else {
            self.errors.push((kind, offset, 1));
        }
    }
}

/// Lossy decoding plus a report of what was replaced.
pub fn decode_lossy_with_report(src: &[u8]) -> (Cow<'_, str>, DecodeReport) {
    let mut report = DecodeReport::default();
    let mut pos = 0;
    let mut out: Option<String> = None;
    loop {
        match validate(&src[pos..]) {
            Ok(s) => {
                return match out {
                    None => (Cow::Borrowed(s), report),
                    Some(mut o) => {
                        o.push_str(s);
                        (Cow::Owned(o), report)
                    }
                };
            }
            Err(e) => {
                let o = out.get_or_insert_with(|| String::with_capacity(src.len() + 3));
                let good = &src[pos..pos + e.valid_up_to()];
                // The prefix is valid by construction.
                o.push_str(std::str::from_utf8(good).unwrap_or_default());
                o.push('\u{FFFD}');
                report.replacements += 1;
                report.record(e.kind(), pos + e.valid_up_to());
                match e.error_len() {
                    Some(n) => pos += e.valid_up_to() + n,
                    None => {
                        return (Cow::Owned(out.unwrap_or_default()), report);
                    }
                }
            }
        }
    }
}
