//! Strict UTF-8 (RFC 3629) validation and lossy decoding.
//!
//! * [`validate`] agrees with `std::str::from_utf8` on validity,
//!   `valid_up_to` and `error_len` for every input, and adds the
//!   [`ErrorKind`] of the offending sequence.
//! * [`decode_lossy`] writes one U+FFFD per maximal subpart (Unicode 16.0
//!   ch. 3, "U+FFFD Substitution of Maximal Subparts"; the WHATWG UTF-8
//!   decoder), byte-identical to encoding_rs and `String::from_utf8_lossy`,
//!   and borrows when the input is valid.
//! * [`Utf8Decoder`] is the streaming form: splitting the input at any byte
//!   gives the same text and the same [`DecodeReport`].
//!
//! The fast path is simdutf8 (valid input is never copied; its `compat`
//! check stops at the first error). Once input is known to be broken, each
//! error is found in two steps: an AVX2 pass (`codec::simd`, the crate's
//! one `unsafe` module) skips the octets that are certainly well-formed, and
//! this module's scalar walker, a shift-based DFA, looks at the last few
//! octets before the first flagged one and sizes the error by the
//! maximal-subpart rule. The walker alone decides what the output is; the
//! SIMD pass only says where it need not look. The decoded bytes are
//! validated once by simdutf8 at the end (safe Rust cannot skip that step).
//!
//! # How errors are named
//!
//! The output (which bytes become one U+FFFD) follows the maximal-subpart
//! rule exactly. The *kind* names what the octets prove, looking at the
//! sequence the lead octet announces in the RFC 2279 / UTF-E-8 sense
//! (2..=6, 7 or 13 octets):
//!
//! | octets | kind |
//! |---|---|
//! | `80..BF` not part of a sequence below | `unexpected-continuation` |
//! | `C0`/`C1` + cont, `E0 80..9F`, `F0 80..8F`, `F8 80..87`, `FC 80..83`, `FE 80..81`, `FF 80 80 80 80 80 80` | `overlong` |
//! | `ED A0..BF` | `surrogate` (`surrogate-pair` for `ED A0..AF cont ED B0..BF cont`) |
//! | `F4 90..BF`, `F5..F7` + cont | `out-of-range` |
//! | `F8..FD` + cont | `legacy-form` |
//! | `FE`/`FF` + cont | `extended-form` |
//! | `C2..F4` cut short by a non-continuation octet or the end | `truncated` |
//! | `C0`, `C1`, `F5..FF` not followed by a continuation octet | `invalid-byte` |
//!
//! The continuation octets that complete such an announced sequence each
//! become a U+FFFD (they are maximal subparts of their own) but are counted
//! with the sequence, not as `unexpected-continuation`: `C0 AE` is one
//! `overlong` occurrence and two replacements.

mod lossy;

#[cfg(test)]
use lossy::lossy_into;
pub use lossy::{DecodeReport, Utf8Decoder, decode_lossy, decode_lossy_with_report, repair_cesu8};
pub(crate) use lossy::{Sink, lossy_blocks};

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
    pub(crate) const fn new(valid_up_to: usize, error_len: Option<u8>, kind: ErrorKind) -> Self {
        Utf8Error {
            valid_up_to,
            error_len,
            kind,
        }
    }

    /// Index of the first byte that is not part of a valid prefix.
    #[must_use]
    pub fn valid_up_to(&self) -> usize {
        self.valid_up_to
    }
    /// Length of the invalid sequence (a maximal subpart), or `None` when the
    /// input ended in the middle of a sequence. Same as std.
    #[must_use]
    pub fn error_len(&self) -> Option<usize> {
        self.error_len.map(usize::from)
    }
    /// What kind of error this is.
    #[must_use]
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

/// Validates strict UTF-8 (RFC 3629).
///
/// # Errors
///
/// The first ill-formed sequence, with std's `valid_up_to`/`error_len` and
/// its kind (see the module docs).
pub fn validate(src: &[u8]) -> Result<&str, Utf8Error> {
    if let Ok(s) = simdutf8::basic::from_utf8(src) {
        return Ok(s);
    }
    let at = match simdutf8::compat::from_utf8(src) {
        Ok(s) => return Ok(s),
        Err(e) => e.valid_up_to(),
    };
    let rest = src.get(at..).unwrap_or_default();
    let error_len = match step(rest) {
        Step::Valid(_) | Step::Incomplete => None,
        Step::Invalid(n) => Some(n),
    };
    Err(Utf8Error {
        valid_up_to: at,
        error_len,
        kind: classify(rest),
    })
}

const fn is_cont(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// What starts at the front of a (non-empty) byte string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// A well-formed sequence of this many octets.
    Valid(u8),
    /// A well-formed prefix cut by the end of the input.
    Incomplete,
    /// An ill-formed maximal subpart of this many octets.
    Invalid(u8),
}

/// Unicode Table 3-7 ("Well-Formed UTF-8 Byte Sequences") as an automaton.
#[inline]
fn step(rest: &[u8]) -> Step {
    let Some(&b0) = rest.first() else {
        return Step::Incomplete;
    };
    let (len, lo, hi) = match b0 {
        0x00..=0x7F => return Step::Valid(1),
        0xC2..=0xDF => (2, 0x80, 0xBF),
        0xE0 => (3, 0xA0, 0xBF),
        0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80, 0xBF),
        0xED => (3, 0x80, 0x9F),
        0xF0 => (4, 0x90, 0xBF),
        0xF1..=0xF3 => (4, 0x80, 0xBF),
        0xF4 => (4, 0x80, 0x8F),
        _ => return Step::Invalid(1),
    };
    match rest.get(1) {
        None => return Step::Incomplete,
        Some(&b) if !(lo..=hi).contains(&b) => return Step::Invalid(1),
        Some(_) => {}
    }
    for i in 2..len {
        match rest.get(usize::from(i)) {
            None => return Step::Incomplete,
            Some(&b) if !is_cont(b) => return Step::Invalid(i),
            Some(_) => {}
        }
    }
    Step::Valid(len)
}

// The error walker's scanner: a shift-based DFA over Unicode Table 3-7.
// Each state is a bit offset (a multiple of 6) into a per-byte row; the row
// for byte `b` holds, at offset `s`, the offset of the state after `b` in
// state `s`. One shift per byte, no branches on the byte's class.
const ACCEPT: u32 = 0;

const REJECT: u32 = 6;

const CONT1: u32 = 12; // one continuation octet to go
const CONT2: u32 = 18;

const CONT3: u32 = 24;

const AFTER_E0: u32 = 30; // A0..BF, then one
const AFTER_ED: u32 = 36; // 80..9F, then one
const AFTER_F0: u32 = 42; // 90..BF, then two
const AFTER_F4: u32 = 48; // 80..8F, then two

const fn dfa_next(state: u32, b: u8) -> u32 {
    let cont = b & 0xC0 == 0x80;
    match state {
        ACCEPT => match b {
            0x00..=0x7F => ACCEPT,
            0xC2..=0xDF => CONT1,
            0xE0 => AFTER_E0,
            0xE1..=0xEC | 0xEE..=0xEF => CONT2,
            0xED => AFTER_ED,
            0xF0 => AFTER_F0,
            0xF1..=0xF3 => CONT3,
            0xF4 => AFTER_F4,
            _ => REJECT,
        },
        CONT1 if cont => ACCEPT,
        CONT2 if cont => CONT1,
        CONT3 if cont => CONT2,
        AFTER_E0 if b >= 0xA0 && cont => CONT1,
        AFTER_ED if b <= 0x9F && cont => CONT1,
        AFTER_F0 if b >= 0x90 && cont => CONT2,
        AFTER_F4 if b <= 0x8F && cont => CONT2,
        _ => REJECT,
    }
}

const DFA: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut state = 0;
        while state <= AFTER_F4 {
            table[b] |= (dfa_next(state, b as u8) as u64) << state;
            state += 6;
        }
        b += 1;
    }
    table
};

/// Are these 16 octets all ASCII?
fn ascii16(chunk: &[u8]) -> bool {
    match <[u8; 16]>::try_from(chunk) {
        Ok(a) => u128::from_le_bytes(a) & 0x8080_8080_8080_8080_8080_8080_8080_8080 == 0,
        Err(_) => false,
    }
}

/// The lead octet of the sequence that octet `i` continues (at most three
/// octets back).
fn lead_before(src: &[u8], i: usize) -> usize {
    (i.saturating_sub(3)..i)
        .rev()
        .find(|&j| src.get(j).is_some_and(|&b| !is_cont(b)))
        .unwrap_or(i)
}

/// How far [`scan`] got: std's `valid_up_to`, and the length of the
/// ill-formed maximal subpart found there (`None`: the input ended, either
/// on a character boundary or inside a well-formed prefix).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Scan {
    valid: usize,
    error_len: Option<usize>,
}

/// Where the DFA rejected octet `i`; `prev` is the state before it.
fn rejected(src: &[u8], i: usize, prev: u64) -> Scan {
    if prev & 63 == u64::from(ACCEPT) {
        // Octet `i` cannot start a sequence.
        Scan {
            valid: i,
            error_len: Some(1),
        }
    } else {
        // Octet `i` breaks the well-formed prefix that starts at the lead.
        let start = lead_before(src, i);
        Scan {
            valid: start,
            error_len: Some(i - start),
        }
    }
}

/// Finds the first ill-formed maximal subpart of `src`, which starts at a
/// character boundary: SIMD skips the part that is certainly clean, and the
/// scalar walker goes on from the last character boundary before it (at
/// most three octets back), so the outcome is the walker's alone.
#[cfg(test)]
fn scan(src: &[u8]) -> Scan {
    scan_with(src, &super::simd::clean_prefix)
}

/// [`scan`] with the SIMD pass given: inlined into the AVX2 build of the
/// streaming decoder's step (`Utf8Decoder::run_with`); `|_| 0` is the
/// scalar walker alone ([`lossy_into`]).
#[inline(always)]
fn scan_with(src: &[u8], clean_prefix: &impl Fn(&[u8]) -> usize) -> Scan {
    let clean = clean_prefix(src);
    // In a clean prefix every octet that is not a continuation starts a
    // character; none among the last three means the last character ended
    // just before `clean`.
    let from = lead_before(src, clean);
    let rest = src.get(from..).unwrap_or_default();
    // An octet that never occurs in UTF-8 (C0, C1, F5..FF) at the boundary
    // is a maximal subpart of one octet: the commonest damage (a Latin-1
    // or stray octet), answered without the walker.
    if let Some(&b) = rest.first()
        && (b == 0xC0 || b == 0xC1 || b >= 0xF5)
    {
        return Scan {
            valid: from,
            error_len: Some(1),
        };
    }
    let found = scan_scalar(rest);
    Scan {
        valid: from + found.valid,
        error_len: found.error_len,
    }
}

/// [`scan`] one octet at a time.
fn scan_scalar(src: &[u8]) -> Scan {
    // Only the low six bits of `state` count: `wrapping_shr` masks the shift
    // amount to them, so the DFA step is one shift.
    let mut state = u64::from(ACCEPT);
    let mut i = 0;
    let mut chunks = src.chunks_exact(16);
    for chunk in &mut chunks {
        if state & 63 == u64::from(ACCEPT) && ascii16(chunk) {
            i += 16;
            continue;
        }
        for &b in chunk {
            let prev = state;
            state = DFA[usize::from(b)].wrapping_shr(prev as u32);
            if state & 63 == u64::from(REJECT) {
                return rejected(src, i, prev);
            }
            i += 1;
        }
    }
    for &b in chunks.remainder() {
        let prev = state;
        state = DFA[usize::from(b)].wrapping_shr(prev as u32);
        if state & 63 == u64::from(REJECT) {
            return rejected(src, i, prev);
        }
        i += 1;
    }
    let valid = if state & 63 == u64::from(ACCEPT) {
        src.len()
    } else {
        lead_before(src, src.len())
    };
    Scan {
        valid,
        error_len: None,
    }
}

/// Length of the sequence a lead octet announces in RFC 2279 / UTF-E-8.
const fn announced_len(lead: u8) -> u8 {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        0xF8..=0xFB => 5,
        0xFC..=0xFD => 6,
        0xFE => 7,
        0xFF => 13,
        _ => 1,
    }
}

/// Octets of an announced sequence kept for naming it (an `FF` form needs
/// seven to tell an overlong one).
const SEQ_KEEP: usize = 7;

/// Names an ill-formed announced sequence: `seq` is a lead octet followed by
/// at least one continuation octet. `None` when `seq` is a well-formed prefix.
fn sequence_kind(seq: &[u8]) -> Option<ErrorKind> {
    let (&b0, &b1) = (seq.first()?, seq.get(1)?);
    Some(match (b0, b1) {
        (0xC0 | 0xC1, _) | (0xE0, 0x80..=0x9F) | (0xF0, 0x80..=0x8F) => ErrorKind::Overlong,
        (0xED, 0xA0..=0xBF) => ErrorKind::Surrogate,
        (0xF4, 0x90..=0xBF) | (0xF5..=0xF7, _) => ErrorKind::OutOfRange,
        (0xF8, 0x80..=0x87) | (0xFC, 0x80..=0x83) | (0xFE, 0x80..=0x81) => ErrorKind::Overlong,
        (0xF8..=0xFD, _) => ErrorKind::LegacyForm,
        (0xFF, _) if seq.len() >= 7 && seq[1..7].iter().all(|&b| b == 0x80) => ErrorKind::Overlong,
        (0xFE | 0xFF, _) => ErrorKind::ExtendedForm,
        _ => return None,
    })
}

/// Is `seq` a complete high (`true`) or low (`false`) surrogate form?
fn surrogate_half(seq: &[u8]) -> Option<bool> {
    match seq {
        [0xED, 0xA0..=0xAF, c] if is_cont(*c) => Some(true),
        [0xED, 0xB0..=0xBF, c] if is_cont(*c) => Some(false),
        _ => None,
    }
}

/// The lead octet plus the continuation octets of the sequence it announces.
fn announced(rest: &[u8]) -> &[u8] {
    let Some(&b0) = rest.first() else {
        return rest;
    };
    let n = 1 + rest
        .iter()
        .skip(1)
        .take(usize::from(announced_len(b0)) - 1)
        .take_while(|&&b| is_cont(b))
        .count();
    &rest[..n]
}

/// Names the ill-formed sequence at the front of `rest` (module docs).
fn classify(rest: &[u8]) -> ErrorKind {
    let Some(&b0) = rest.first() else {
        return ErrorKind::Truncated;
    };
    if is_cont(b0) {
        return ErrorKind::UnexpectedContinuation;
    }
    let seq = announced(rest);
    if let Some(kind) = sequence_kind(seq) {
        if surrogate_half(seq) == Some(true)
            && surrogate_half(announced(&rest[seq.len()..])) == Some(false)
        {
            return ErrorKind::SurrogatePair;
        }
        return kind;
    }
    lone_kind(b0)
}

/// The kind of an error at a lead octet not followed by the continuation
/// octets it needs.
const fn lone_kind(lead: u8) -> ErrorKind {
    if matches!(lead, 0xC2..=0xF4) {
        ErrorKind::Truncated
    } else {
        ErrorKind::InvalidByte
    }
}

/// Every complete sequence of 2 to 6 octets in `bytes` (a lead octet C0..FD
/// and all the continuation octets it announces, in the RFC 2279 sense)
/// with its offset, length and the value it spells, whether or not that
/// value is well-formed UTF-8. Other octets are stepped over one at a time.
/// Shared by the charset decision (forms only a UTF-8 writer makes) and the
/// audit (what overlong forms spell).
pub(crate) fn complete_sequences(bytes: &[u8]) -> impl Iterator<Item = (usize, usize, u32)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let b = bytes[i];
            let (len, lead_bits) = match b {
                0xC0..=0xDF => (2, u32::from(b & 0x1F)),
                0xE0..=0xEF => (3, u32::from(b & 0x0F)),
                0xF0..=0xF7 => (4, u32::from(b & 0x07)),
                0xF8..=0xFB => (5, u32::from(b & 0x03)),
                0xFC..=0xFD => (6, u32::from(b & 0x01)),
                _ => {
                    i += 1;
                    continue;
                }
            };
            // A lead too near the end for its sequence is stepped over like
            // any other octet: a shorter sequence may still follow it
            // (`F0 C3 A9` at the end holds `é`; the walk used to stop).
            let Some(seq) = bytes.get(i..i + len) else {
                i += 1;
                continue;
            };
            if !seq[1..].iter().all(|&c| (0x80..0xC0).contains(&c)) {
                i += 1;
                continue;
            }
            let value = seq[1..]
                .iter()
                .fold(lead_bits, |acc, &c| (acc << 6) | u32::from(c & 0x3F));
            let at = i;
            i += len;
            return Some((at, len, value));
        }
        None
    })
}

/// The smallest value a sequence of `len` octets may carry (shortest form).
pub(crate) const fn shortest_min(len: usize) -> u32 {
    match len {
        2 => 0x80,
        3 => 0x800,
        4 => 0x1_0000,
        5 => 0x20_0000,
        _ => 0x400_0000,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `complete_sequences` against a model written from its definition:
    /// at each octet, a lead C0..FD with all its continuation octets
    /// (80..BF) inside `bytes` is a sequence, taken whole; anything else is
    /// stepped over. (A mutation that took C0 for a continuation, and a
    /// walk that stopped at a lead too near the end, both passed before.)
    fn model(bytes: &[u8]) -> Vec<(usize, usize, u32)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            let len = match bytes[i] {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                0xF8..=0xFB => 5,
                0xFC..=0xFD => 6,
                _ => 0,
            };
            if len > 0
                && i + len <= bytes.len()
                && bytes[i + 1..i + len]
                    .iter()
                    .all(|c| (0x80..=0xBF).contains(c))
            {
                let bits = [0, 0, 0x1F, 0x0F, 0x07, 0x03, 0x01][len];
                let v = bytes[i + 1..i + len]
                    .iter()
                    .fold(u32::from(bytes[i]) & bits, |a, &c| {
                        (a << 6) | u32::from(c & 0x3F)
                    });
                out.push((i, len, v));
                i += len;
            } else {
                i += 1;
            }
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn complete_sequences_is_the_model(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![0x78u8..=0x7F, 0x80u8..=0xBF, 0xBEu8..=0xC3, 0xDFu8..=0xE1, 0xEDu8..=0xF1, 0xF7u8..=0xFF],
                0..24,
            )
        ) {
            proptest::prop_assert_eq!(complete_sequences(&bytes).collect::<Vec<_>>(), model(&bytes));
        }
    }

    #[test]
    fn complete_sequences_edges() {
        assert_eq!(complete_sequences(b"\xE0\x80\xC0").count(), 0);
        assert_eq!(
            complete_sequences(b"x\xF0\xC3\xA9").collect::<Vec<_>>(),
            vec![(2, 2, 0xE9)]
        );
    }

    #[test]
    fn validate_and_scan_match_std_on_all_short_sequences() {
        // Every 1..=3-byte string over a byte alphabet touching each range.
        let alphabet = [
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
            0xE1, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xF8, 0xFC, 0xFE, 0xFF,
        ];
        let mut buf = Vec::new();
        for &a in &alphabet {
            for &b in &alphabet {
                for &c in &alphabet {
                    for &d in &alphabet {
                        buf.clear();
                        buf.extend_from_slice(&[a, b, c, d]);
                        let ours = validate(&buf).map_err(|e| (e.valid_up_to(), e.error_len()));
                        let std =
                            std::str::from_utf8(&buf).map_err(|e| (e.valid_up_to(), e.error_len()));
                        assert_eq!(ours, std, "{buf:02X?}");
                        let found = scan(&buf);
                        let want = match std::str::from_utf8(&buf) {
                            Ok(s) => (s.len(), None),
                            Err(e) => (e.valid_up_to(), e.error_len()),
                        };
                        assert_eq!((found.valid, found.error_len), want, "{buf:02X?}");
                    }
                }
            }
        }
    }

    /// The lossy loop without the SIMD pass (what a CPU without AVX2 runs)
    /// and with it give std's output, on text broken every few octets.
    #[test]
    fn lossy_loop_with_and_without_simd_matches_std() {
        let text = "Grüße, 日本語 and 😀 emoji; ".repeat(40).into_bytes();
        for step in [3usize, 7, 13, 31, 64] {
            let mut broken = text.clone();
            for (n, i) in (0..broken.len()).step_by(step).enumerate() {
                broken[i] = [0x80, 0xC0, 0xE2, 0xF0, 0xFF, b'x'][n % 6];
            }
            let want = String::from_utf8_lossy(&broken);
            let mut scalar = Vec::new();
            lossy_into(&broken, &mut scalar);
            assert_eq!(scalar, want.as_bytes(), "scalar, every {step}");
            assert_eq!(decode_lossy(&broken), want, "simd, every {step}");
        }
    }

    /// The SIMD skip (`codec::simd`) against std where it matters: every
    /// 4-octet string over the alphabet placed across the end of the first
    /// 32-octet block, behind ASCII and behind three-octet characters (so
    /// the previous block's last octets are context), with a second block
    /// of clean text after it.
    #[test]
    fn scan_matches_std_across_the_simd_block_boundary() {
        let alphabet = [
            0x00, 0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
            0xED, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xF8, 0xFF,
        ];
        let fillers: [&[u8]; 2] = [
            b"abcdefghijklmnopqrstuvwxyz0123456789",
            "日本語のテキスト、ですね".as_bytes(),
        ];
        let mut buf = Vec::new();
        for filler in fillers {
            for at in [28, 29, 30, 31, 32] {
                for &a in &alphabet {
                    for &b in &alphabet {
                        for &c in &alphabet {
                            for &d in &alphabet {
                                buf.clear();
                                buf.extend_from_slice(&filler[..at.min(filler.len())]);
                                buf.resize(at, b'x');
                                buf.extend_from_slice(&[a, b, c, d]);
                                buf.extend_from_slice(filler);
                                buf.extend_from_slice(filler);
                                let found = scan(&buf);
                                let want = match std::str::from_utf8(&buf) {
                                    Ok(s) => (s.len(), None),
                                    Err(e) => (e.valid_up_to(), e.error_len()),
                                };
                                assert_eq!((found.valid, found.error_len), want, "{buf:02X?}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// The block loop's flaggers for tests: the AVX2 pass where the CPU
    /// has it, and two scalar ones that flag more than the errors (the loop
    /// must only need that no error goes unflagged): every octet, and every
    /// octet with a non-ASCII octet at most three back (what any error
    /// needs), with the blocks before as context.
    fn lossy_blocks_all(src: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
        let mut out = Vec::new();
        let mut simd = Vec::new();
        if super::super::simd::lossy_into(src, &mut simd) {
            out.push(("avx2", simd));
        }
        let mut every = Vec::new();
        lossy_blocks(src, &mut every, |_| u64::MAX);
        out.push(("every octet", every));
        let mut window = Vec::new();
        let mut last = [0u8; 3];
        lossy_blocks(src, &mut window, |block| {
            let mut mask = 0;
            for (j, &b) in block.iter().enumerate() {
                if b >= 0x80 || last.iter().any(|&p| p >= 0x80) {
                    mask |= 1 << j;
                }
                last = [last[1], last[2], b];
            }
            mask
        });
        out.push(("non-ASCII window", window));
        out
    }

    fn check_blocks(src: &[u8]) {
        let want = String::from_utf8_lossy(src);
        for (name, got) in lossy_blocks_all(src) {
            assert_eq!(String::from_utf8_lossy(&got), want, "{name}: {src:02X?}");
            assert_eq!(got, want.as_bytes(), "{name}: {src:02X?}");
        }
        assert_eq!(decode_lossy(src), want, "decode_lossy: {src:02X?}");
    }

    /// The block loop against std where it can go wrong: damage of every
    /// shape (lone invalid leads, stray continuation octets and runs of
    /// them, sequences cut short, surrogates, overlong forms) at every
    /// offset from 0 to 139 (across the 32-octet halves the SIMD pass
    /// computes, the 64-octet blocks and into the scalar tail), behind and
    /// before ASCII, two-, three- and four-octet characters (so characters
    /// straddle the block ends), a second error one to five octets after the
    /// first, and the input ending just after the damage.
    #[test]
    fn lossy_blocks_match_std_at_every_offset() {
        let damage: [&[u8]; 16] = [
            &[0xC0],
            &[0xC1],
            &[0xFF],
            &[0xF5],
            &[0x80],
            &[0xBF, 0x80, 0x80, 0x80],
            &[0xC3],
            &[0xE6, 0x97],
            &[0xE6],
            &[0xF0, 0x9F, 0x9A],
            &[0xF0, 0x9F],
            &[0xED, 0xA0, 0x80],
            &[0xE0, 0x80, 0x80],
            &[0xF4, 0x90, 0x80, 0x80],
            &[0xC0, 0xAE],
            &[0xF8, 0x88, 0x80, 0x80, 0x80],
        ];
        let fillers = [
            "abcdefghijklmnopqrstuvwxyz0123456789".repeat(4),
            "Größe 日本語 text 🚀 and more ascii words here. ".repeat(3),
            "日本語のテキスト、ですね。".repeat(4),
            "😀🚀🌍🎉".repeat(10),
            "éàüößçñøå".repeat(8),
        ];
        let mut buf = Vec::new();
        for filler in &fillers {
            let filler = filler.as_bytes();
            for at in 0..140 {
                for (d, first) in damage.iter().enumerate() {
                    // Damage written over the text, then the same with a
                    // second piece of damage shortly after.
                    for gap in [None, Some(1), Some(2), Some(3), Some(5)] {
                        buf.clear();
                        buf.extend_from_slice(filler);
                        buf.resize(160, b'x');
                        let end = (at + first.len()).min(buf.len());
                        buf[at..end].copy_from_slice(&first[..end - at]);
                        if let Some(gap) = gap {
                            let second = damage[(d * 7 + gap) % damage.len()];
                            let at2 = end + gap - 1;
                            let end2 = (at2 + second.len()).min(buf.len());
                            buf[at2..end2].copy_from_slice(&second[..end2 - at2]);
                        }
                        check_blocks(&buf);
                        // The input ending just after the damage.
                        check_blocks(&buf[..end]);
                    }
                }
            }
        }
    }

    /// Every 100th octet of mixed text replaced by an invalid lead (the
    /// bench's evenly spaced damage), and runs of continuation octets and
    /// cut sequences at the end, the scalar tail after the last block.
    #[test]
    fn lossy_blocks_match_std_on_evenly_spaced_damage() {
        let text = "Größe 日本語 text 🚀 and more ascii words here. ".repeat(200);
        for step in [1usize, 2, 3, 4, 31, 32, 33, 63, 64, 65, 100] {
            for octet in [0xC0, 0xC1, 0xFF, 0x80, 0xE2, 0xF0] {
                let mut broken = text.clone().into_bytes();
                for b in broken.iter_mut().skip(step - 1).step_by(step) {
                    *b = octet;
                }
                check_blocks(&broken);
                for tail in [
                    &[0x80u8, 0x80][..],
                    &[0xF0, 0x9F, 0x9A],
                    &[0xE6, 0x97],
                    &[0xC3],
                ] {
                    let mut b = broken.clone();
                    b.extend_from_slice(tail);
                    check_blocks(&b);
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Text of every width with damage anywhere (single octets and
        /// runs), through the block loop and every flagger, against std.
        #[test]
        fn lossy_blocks_match_std(
            text in "[a-z \u{e9}\u{3b1}\u{65e5}\u{1f680}]{0,120}",
            damage in proptest::collection::vec(
                (proptest::prelude::any::<proptest::sample::Index>(),
                 proptest::collection::vec(proptest::prelude::any::<u8>(), 1..6)),
                0..8,
            ),
        ) {
            let mut bytes = text.into_bytes();
            for (at, run) in damage {
                if bytes.is_empty() {
                    bytes.extend_from_slice(&run);
                    continue;
                }
                let at = at.index(bytes.len());
                let end = (at + run.len()).min(bytes.len());
                bytes[at..end].copy_from_slice(&run[..end - at]);
            }
            check_blocks(&bytes);
        }
    }
}
