//! The original UTF-8 of RFC 2044 / RFC 2279 and X/Open FSS-UTF: 1 to 6
//! octets, 31-bit UCS-4 values `0..=0x7FFF_FFFF` as `u32`.
//!
//! ```text
//! UCS-4 range (hex.)    UTF-8 octet sequence (binary)      RFC 2279 §2
//! 0000 0000-0000 007F   0xxxxxxx
//! 0000 0080-0000 07FF   110xxxxx 10xxxxxx
//! 0000 0800-0000 FFFF   1110xxxx 10xxxxxx 10xxxxxx
//! 0001 0000-001F FFFF   11110xxx 10xxxxxx 10xxxxxx 10xxxxxx
//! 0020 0000-03FF FFFF   111110xx 10xxxxxx ... (5 octets)
//! 0400 0000-7FFF FFFF   1111110x 10xxxxxx ... (6 octets)
//! ```
//!
//! Only the shortest form is accepted (RFC 2279 §6: "a UTF-8 decoder must
//! not accept" non-shortest forms), and the octets FE and FF never appear.
//! Surrogate code points (D800..DFFF) and values above 10FFFF are values
//! like any other here: RFC 2279 predates RFC 3629's restriction. Turning
//! values into text is a separate, reported step ([`to_text`]).
//!
//! The decoder is shared with [`super::extended`] (UTF-E-8), which is this
//! form plus the 7- and 13-octet sequences.
//!
//! Lossy decoding writes 0xFFFD per ill-formed maximal subpart, with the
//! same subparts as strict UTF-8 where the two forms agree (the second
//! octet carries the shortest-form constraint: `E0 A0..`, `F0 90..`,
//! `F8 88..`, `FC 84..`, `FE 82..`). Unlike [`super::utf8`]'s report, the
//! continuation octets after a rejected lead are each counted as
//! `unexpected-continuation`.

use super::ErrorKind;
use super::utf8::DecodeReport;
use std::fmt;

/// Which octet sequences a legacy decoder accepts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UcsOptions {
    /// Undo UTF-16 surrogate pairs written as two 3-octet sequences (the
    /// "CESU-8" of Unicode TR #26): `ED A0..AF xx ED B0..BF xx` decodes to one
    /// supplementary value. RFC 2279 §2 notes that UTF-16 pairs "should" be
    /// converted to UCS-4 before being encoded; this repairs text where they
    /// were not. Off: each half decodes to its own D800..DFFF value.
    pub allow_surrogate_pairs: bool,
}

/// Which family of forms is in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// RFC 2279: 1..=6 octets.
    Legacy,
    /// UTF-E-8: also 7 (FE) and 13 (FF) octets.
    Extended,
}

/// An error of the legacy or extended decoders: the same shape and meaning
/// as strict UTF-8's (`valid_up_to`, `error_len`, `kind`).
pub type UcsError = super::utf8::Utf8Error;

/// A value that has no encoding in the form in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncodeError {
    /// The value.
    pub value: u64,
    /// Its index in the input.
    pub index: usize,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "value {:#X} at index {} is out of range",
            self.value, self.index
        )
    }
}

impl std::error::Error for EncodeError {}

/// Largest legacy value.
pub const MAX: u32 = 0x7FFF_FFFF;

/// What starts at the front of a (non-empty) byte string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// A value and the octets it took.
    Value(u64, u8),
    /// A well-formed prefix cut by the end of the input.
    Incomplete,
    /// An ill-formed maximal subpart of this many octets, and its kind.
    Invalid(u8, ErrorKind),
}

const fn is_cont(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// Decodes the sequence at the front of `src` (shortest form only).
pub(crate) fn step(src: &[u8], form: Form) -> Step {
    let Some(&b0) = src.first() else {
        return Step::Incomplete;
    };
    let next_is_cont = src.get(1).is_some_and(|&b| is_cont(b));
    // (length, lead value bits, lowest second octet for the shortest form)
    let (len, mut value, min1): (u8, u64, u8) = match b0 {
        0x00..=0x7F => return Step::Value(u64::from(b0), 1),
        0x80..=0xBF => return Step::Invalid(1, ErrorKind::UnexpectedContinuation),
        0xC0 | 0xC1 if next_is_cont => return Step::Invalid(1, ErrorKind::Overlong),
        0xC0 | 0xC1 => return Step::Invalid(1, ErrorKind::InvalidByte),
        0xC2..=0xDF => (2, u64::from(b0 & 0x1F), 0x80),
        0xE0 => (3, 0, 0xA0),
        0xE1..=0xEF => (3, u64::from(b0 & 0x0F), 0x80),
        0xF0 => (4, 0, 0x90),
        0xF1..=0xF7 => (4, u64::from(b0 & 0x07), 0x80),
        0xF8 => (5, 0, 0x88),
        0xF9..=0xFB => (5, u64::from(b0 & 0x03), 0x80),
        0xFC => (6, 0, 0x84),
        0xFD => (6, 1, 0x80),
        0xFE | 0xFF if form == Form::Legacy && next_is_cont => {
            return Step::Invalid(1, ErrorKind::ExtendedForm);
        }
        0xFE | 0xFF if form == Form::Legacy => return Step::Invalid(1, ErrorKind::InvalidByte),
        0xFE => (7, 0, 0x82),
        0xFF => (13, 0, 0x80),
    };
    let mut low_zero = true; // FF: octets 2..=5 all 80 so far
    for i in 1..len {
        let Some(&b) = src.get(usize::from(i)) else {
            return Step::Incomplete;
        };
        if !is_cont(b) {
            return Step::Invalid(i, ErrorKind::Truncated);
        }
        let bad = match (b0, i) {
            (_, 1) if b < min1 => Some(ErrorKind::Overlong),
            // FF: 63 bits, so the first trailing octet is 80 and the second 80..87.
            (0xFF, 1) if b != 0x80 => Some(ErrorKind::OutOfRange),
            (0xFF, 2) if b > 0x87 => Some(ErrorKind::OutOfRange),
            // FF below 2^36 (octets 2..=6 all 80) has a 7-octet form.
            (0xFF, 6) if low_zero && b == 0x80 => Some(ErrorKind::Overlong),
            _ => None,
        };
        if let Some(kind) = bad {
            return Step::Invalid(i, kind);
        }
        if b0 == 0xFF && (2..=5).contains(&i) {
            low_zero &= b == 0x80;
        }
        value = (value << 6) | u64::from(b & 0x3F);
    }
    Step::Value(value, len)
}

/// Decodes one value at the front of `src` with `opts`, returning it and the
/// octets it took.
pub(crate) fn step_with(src: &[u8], form: Form, opts: &UcsOptions) -> Step {
    let first = step(src, form);
    if let Step::Value(hi @ 0xD800..=0xDBFF, 3) = first
        && opts.allow_surrogate_pairs
        && let Step::Value(lo @ 0xDC00..=0xDFFF, 3) = step(&src[3..], form)
    {
        return Step::Value(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00), 6);
    }
    first
}

pub(crate) fn decode_all(src: &[u8], form: Form, opts: &UcsOptions) -> Result<Vec<u64>, UcsError> {
    let mut out = Vec::with_capacity(src.len());
    let mut pos = 0;
    while pos < src.len() {
        match step_with(&src[pos..], form, opts) {
            Step::Value(v, n) => {
                out.push(v);
                pos += usize::from(n);
            }
            Step::Incomplete => {
                return Err(UcsError::new(pos, None, ErrorKind::Truncated));
            }
            Step::Invalid(n, kind) => {
                return Err(UcsError::new(pos, Some(n), kind));
            }
        }
    }
    Ok(out)
}

pub(crate) fn decode_lossy_all(
    src: &[u8],
    form: Form,
    opts: &UcsOptions,
) -> (Vec<u64>, DecodeReport) {
    let mut out = Vec::with_capacity(src.len());
    let mut report = DecodeReport::default();
    let mut pos = 0;
    while pos < src.len() {
        let (n, error) = match step_with(&src[pos..], form, opts) {
            Step::Value(v, n) => {
                out.push(v);
                (usize::from(n), None)
            }
            Step::Incomplete => (src.len() - pos, Some(ErrorKind::Truncated)),
            Step::Invalid(n, kind) => (usize::from(n), Some(kind)),
        };
        if let Some(kind) = error {
            out.push(0xFFFD);
            report.replacements += 1;
            report.record(kind, pos);
        }
        pos += n;
    }
    (out, report)
}

/// Appends the shortest octet sequence for `value` (up to 13 octets), or
/// returns false when `value` has none in `form`.
pub(crate) fn encode_one(value: u64, form: Form, dst: &mut Vec<u8>) -> bool {
    let (len, lead): (u32, u8) = match value {
        0..=0x7F => {
            dst.push(value as u8);
            return true;
        }
        0x80..=0x7FF => (2, 0xC0),
        0x800..=0xFFFF => (3, 0xE0),
        0x1_0000..=0x1F_FFFF => (4, 0xF0),
        0x20_0000..=0x3FF_FFFF => (5, 0xF8),
        0x400_0000..=0x7FFF_FFFF => (6, 0xFC),
        _ if form == Form::Legacy => return false,
        0x8000_0000..=0xF_FFFF_FFFF => (7, 0xFE),
        0x10_0000_0000..=0x7FFF_FFFF_FFFF_FFFF => (13, 0xFF),
        _ => return false,
    };
    let trailing = len - 1;
    let lead_bits = value.checked_shr(6 * trailing).unwrap_or(0) as u8;
    dst.push(lead | lead_bits);
    for i in (0..trailing).rev() {
        let bits = value.checked_shr(6 * i).unwrap_or(0) & 0x3F;
        dst.push(0x80 | bits as u8);
    }
    true
}

pub(crate) fn encode_all(
    values: impl IntoIterator<Item = u64>,
    form: Form,
) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    for (index, value) in values.into_iter().enumerate() {
        if !encode_one(value, form, &mut out) {
            return Err(EncodeError { value, index });
        }
    }
    Ok(out)
}

/// Decodes RFC 2279 UTF-8 to 31-bit values, stopping at the first
/// ill-formed sequence.
///
/// # Errors
///
/// The first ill-formed sequence (overlong, FE/FF, truncated, stray
/// continuation), with std-shaped offsets.
pub fn decode(src: &[u8], opts: &UcsOptions) -> Result<Vec<u32>, UcsError> {
    decode_all(src, Form::Legacy, opts).map(narrow)
}

/// Decodes RFC 2279 UTF-8, writing U+FFFD (0xFFFD) for each ill-formed
/// maximal subpart and reporting it.
#[must_use]
pub fn decode_lossy(src: &[u8], opts: &UcsOptions) -> (Vec<u32>, DecodeReport) {
    let (v, r) = decode_lossy_all(src, Form::Legacy, opts);
    (narrow(v), r)
}

fn narrow(v: Vec<u64>) -> Vec<u32> {
    // Legacy values are at most 31 bits by construction.
    v.into_iter()
        .map(|x| u32::try_from(x).unwrap_or(0xFFFD))
        .collect()
}

/// Encodes 31-bit values in their shortest RFC 2279 form.
///
/// # Errors
///
/// The first value above [`MAX`].
pub fn encode(values: &[u32]) -> Result<Vec<u8>, EncodeError> {
    encode_all(values.iter().map(|&v| u64::from(v)), Form::Legacy)
}

/// Turns values into text: each value that is not a Unicode scalar value
/// (a surrogate or above 10FFFF) becomes U+FFFD. Returns the text and the
/// number of values replaced.
#[must_use]
pub fn to_text(values: impl IntoIterator<Item = u64>) -> (String, usize) {
    let mut text = String::new();
    let mut replaced = 0;
    for v in values {
        match u32::try_from(v).ok().and_then(char::from_u32) {
            Some(c) => text.push(c),
            None => {
                text.push('\u{FFFD}');
                replaced += 1;
            }
        }
    }
    (text, replaced)
}
