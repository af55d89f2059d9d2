//! The codec core: UTF-8 in its strict (RFC 3629), legacy (RFC 2044/2279)
//! and extended (UTF-E-8) forms, the Unicode 1.1 Hangul remapping, and UTF-7.
//!
//! Nothing here knows about mail.

pub mod extended;
pub mod hangul;
pub mod legacy;
mod simd;
pub(crate) use simd::{
    ascii_str, decoding_hits, either_of, flag_and_ascii, ftext_len, is_ascii, line_ends, prefetch,
    qp_stops, with_avx2,
};
pub(crate) mod utf16_32;
pub mod utf7;
pub mod utf8;

use std::fmt;

/// Why a byte sequence is not strict UTF-8. Names follow doc/architecture.md ("Finding kinds").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A non-shortest form (C0 80, E0 80 80 ...).
    Overlong,
    /// A UTF-16 surrogate encoded as three octets.
    Surrogate,
    /// A surrogate pair written as two 3-octet sequences (CESU-8).
    SurrogatePair,
    /// A value above U+10FFFF.
    OutOfRange,
    /// A 5- or 6-octet sequence of RFC 2279.
    LegacyForm,
    /// A 7- or 13-octet UTF-E-8 sequence.
    ExtendedForm,
    /// A sequence cut short.
    Truncated,
    /// A continuation octet without a lead.
    UnexpectedContinuation,
    /// An octet that never appears in the mode in force.
    InvalidByte,
}

impl ErrorKind {
    /// The name used in every output format.
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
