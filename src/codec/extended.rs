//! UTF-E-8: the extension of RFC 2279 UTF-8 that Perl writes for values
//! beyond 31 bits, as `u64` values up to U+7FFF_FFFF_FFFF_FFFF.
//!
//! ```text
//! value range (hex)                       octets
//! 0..=7FFF_FFFF                           as RFC 2279 (see super::legacy)
//! 8000_0000..=F_FFFF_FFFF                 FE + 6 x 10xxxxxx        (36 bits)
//! 10_0000_0000..=7FFF_FFFF_FFFF_FFFF      FF + 12 x 10xxxxxx       (63 bits:
//!                                         2nd octet always 80, 3rd 80..87)
//! ```
//!
//! Examples from the UTF-E-8 draft, reproduced by the tests:
//! U+80000000 = `FE 82 80 80 80 80 80`,
//! U+1000000000 = `FF 80 80 80 80 80 81 80 80 80 80 80 80`,
//! U+7FFFFFFFFFFFFFFF = `FF 80 87 BF BF BF BF BF BF BF BF BF BF`.
//! Shortest form only: `FE 80..81` and `FF 80 80 80 80 80 80` are overlong;
//! `FF 81..BF` and `FF 80 88..BF` are beyond 63 bits (`out-of-range`).

use super::legacy::{self, EncodeError, Form, UcsError, UcsOptions};
use super::utf8::DecodeReport;

/// Largest UTF-E-8 value.
pub const MAX: u64 = 0x7FFF_FFFF_FFFF_FFFF;

/// Decodes UTF-E-8 to 63-bit values, stopping at the first ill-formed
/// sequence. Identical to [`legacy::decode`] below 0x8000_0000.
///
/// # Errors
///
/// The first ill-formed sequence, with std-shaped offsets.
pub fn decode(src: &[u8], opts: &UcsOptions) -> Result<Vec<u64>, UcsError> {
    legacy::decode_all(src, Form::Extended, opts)
}

/// Decodes UTF-E-8, writing 0xFFFD for each ill-formed maximal subpart and
/// reporting it.
#[must_use]
pub fn decode_lossy(src: &[u8], opts: &UcsOptions) -> (Vec<u64>, DecodeReport) {
    legacy::decode_lossy_all(src, Form::Extended, opts)
}

/// Encodes values in their shortest UTF-E-8 form.
///
/// # Errors
///
/// The first value above [`MAX`].
pub fn encode(values: &[u64]) -> Result<Vec<u8>, EncodeError> {
    legacy::encode_all(values.iter().copied(), Form::Extended)
}
