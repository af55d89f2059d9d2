//! The codec core: UTF-8 in its strict (RFC 3629), legacy (RFC 2044/2279)
//! and extended (UTF-E-8) forms, the Unicode 1.1 Hangul remapping, and UTF-7.
//!
//! Nothing here knows about mail.

pub mod extended;
pub mod hangul;
pub mod legacy;
mod simd;
pub(crate) mod utf16_32;
pub mod utf7;
pub mod utf8;

use std::fmt;

/// Why a byte sequence is not strict UTF-8. Names follow doc/architecture.md ("Finding kinds").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    Overlong,
    Surrogate,
    SurrogatePair,
    OutOfRange,
    LegacyForm,
    ExtendedForm,
    Truncated,
    UnexpectedContinuation,
    InvalidByte,
}

impl ErrorKind {
    pub const fn as_str(self) -> &'static str {
        self.finding_kind().as_str()
    }

    /// The finding kind with the same name.
    pub const fn finding_kind(self) -> crate::finding::FindingKind {
        use crate::finding::FindingKind as F;
        match self {
            ErrorKind::Overlong => F::Overlong,
            ErrorKind::Surrogate => F::Surrogate,
            ErrorKind::SurrogatePair => F::SurrogatePair,
            ErrorKind::OutOfRange => F::OutOfRange,
            ErrorKind::LegacyForm => F::LegacyForm,
            ErrorKind::ExtendedForm => F::ExtendedForm,
            ErrorKind::Truncated => F::Truncated,
            ErrorKind::UnexpectedContinuation => F::UnexpectedContinuation,
            ErrorKind::InvalidByte => F::InvalidByte,
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
