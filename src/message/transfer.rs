//! Transfer codings for message bodies: base64 and quoted-printable
//! (RFC 2045 §6.7, §6.8).
//!
//! Decoding is lenient: it never fails and never panics. Whatever was wrong
//! with the encoded text is reported as [`FindingKind::Malformed`] findings
//! whose note starts with `base64:` or `quoted-printable:` and names the
//! offset in the *encoded* input; the finding's own `offset` is, as everywhere
//! in the crate, a byte offset into the decoded content (where the damage
//! shows up in the output).
//!
//! Encoding is strict RFC 2045 output for the normalizer: lines of at most 76
//! characters, 7-bit only.
//!
//! # Recovery decisions (written down once)
//!
//! base64 ([`decode_base64`]):
//! - CR, LF, space and tab are skipped silently (line folding is normal).
//! - Any other character outside the alphabet is skipped; one finding counts
//!   them and gives the first offset. A `=` where padding cannot be (at the
//!   start of a quantum, after its first sextet, or a third `=`) counts the
//!   same way. Python's `binascii.a2b_base64` and Perl's `decode_base64`
//!   skip these silently; the bytes decoded are the same.
//! - Missing padding at the end (`YQ`, `YWI`, `YQ=`) is tolerated with a
//!   finding; the bytes are those the padded form would give.
//! - Data after padding starts a new quantum: concatenated base64 blocks
//!   (`YQ==YmM=` → `abc`), which real mailers write, decode whole, with one
//!   finding that counts the restarts. Python's `binascii` and the `email`
//!   package and Perl's `MIME::Base64` stop at the first complete padding
//!   (`YQ==YmM=` → `a`) and silently lose the rest; ours equals the
//!   concatenation of what they give for each block.
//! - A single `=` after two sextets followed by more data (`YQ=YmM=`) ends
//!   the quantum there (missing-padding finding, then data-after-padding).
//!   Perl agrees on the first block; Python treats that `=` as noise and
//!   fails on the 5 sextets it is left with.
//! - A dangling single sextet at the end cannot carry a byte: it is dropped
//!   with a finding.
//! - Non-zero bits left over in the last sextet of a padded quantum are
//!   ignored, as Python and Perl do.
//! - A body that is text, not base64 ([`decode`] only; [`decode_base64`]
//!   decodes whatever it is given): when decoding met damage, the body is
//!   looked at again, and if it holds three octets above 0x7F or more, or
//!   spaces between words, does not start with a line of nothing but the
//!   alphabet (and a final `=` or two: an encoder's, however short), and less than
//!   half its characters are in base64 (lines of nothing but the alphabet
//!   and `=`, or runs of 16 alphabet characters or more inside a line), it
//!   is returned as it stands, `not_encoded`, with one finding instead of
//!   the decoder's. Plain text (Latin-1 or UTF-8 prose) under a `base64`
//!   label decoded to garbage with its 8-bit octets and punctuation
//!   skipped: the text was gone, and the garbage was converted whenever it
//!   read cleanly under the label. Real damage leaves most characters in
//!   base64, or comes after it, and is decoded as before: a stray
//!   character, a line of garbage.
//! - Text after clean base64 ([`decode`] only): a list's or a gateway's
//!   footer (8-bit or not), a word after the padding, an epilogue a broken
//!   delimiter let in. When the body is lines of base64 (however short)
//!   that decode without a finding, then a line that reads as text (or
//!   the rest of a padded line after white space, no base64 quantum), and
//!   no line like base64 after it, the base64 is decoded and the text after it is
//!   kept as it stands after the decoded octets, with one finding. Decoded
//!   as base64 too, the footer was garbage that a single-byte label read
//!   cleanly: the part was converted and the footer's octets were gone.
//!
//! quoted-printable ([`decode_quoted_printable`]):
//! - `=XX` with upper- or lower-case hex decodes to the octet. Lower case is
//!   accepted without a finding: RFC 2045 says encoders must use upper case,
//!   but every decoder (Python, Perl, MIME::Tools, mail-parser) reads lower
//!   case, and it does not change meaning.
//! - Trailing spaces and tabs on every line are deleted (RFC 2045 §6.7 rule 3:
//!   they "will necessarily have been added by intermediate transport
//!   agents"), including on a last line without a line ending. No finding:
//!   the RFC makes this part of decoding. Perl's `decode_qp` does the same
//!   (except on a last line without a line ending); Python's
//!   `quopri`/`binascii.a2b_qp` keep trailing whitespace.
//! - A soft line break is `=` at the end of a line once trailing whitespace
//!   is gone: `=\r\n`, `=\n` and `=  \r\n` all join the lines.
//! - A `=` at the very end of the input is a soft break too: in a multipart
//!   body the line ending before the boundary belongs to the boundary
//!   (RFC 2046 §5.1.1), so an encoder that wanted no final newline wrote
//!   `=CRLF--boundary`. Python drops it likewise; Perl keeps the `=`.
//! - Any other `=` (`=G1`, `=4` at a line end, `= `) is kept as written and
//!   counted in one finding. Python's `a2b_qp` also turns `==` into `=`; we
//!   keep the first `=` and decode what follows (`==41` → `=A`, as Perl).
//! - Line endings are kept as they are in the input (CRLF, LF, or a mix);
//!   a lone CR is ordinary data. The caller decides on CRLF or LF.
//! - Bodies with no `=` and no trailing whitespace are returned borrowed.

use crate::finding::{Finding, FindingKind};
use std::borrow::Cow;

mod base64;
mod qp;

pub use base64::{base64_decoded_len_max, base64_encoded_len, decode_base64, encode_base64};
pub use qp::{decode_quoted_printable, encode_quoted_printable, qp_encoded_len_max};

/// The line ending an encoder writes (two choices; what a line of the
/// input *ended* with, four cases, is [`crate::mime::LineEnding`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Newline {
    /// `\n`, for messages kept in Unix files (mbox, Maildir).
    #[default]
    Lf,
    /// `\r\n`, the canonical form on the wire (RFC 5322).
    Crlf,
}

impl Newline {
    /// The octets of this line ending.
    pub const fn as_bytes(self) -> &'static [u8] {
        match self {
            Newline::Lf => b"\n",
            Newline::Crlf => b"\r\n",
        }
    }
}

/// A Content-Transfer-Encoding value (RFC 2045 §6.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cte {
    /// `7bit`.
    SevenBit,
    /// `8bit`.
    EightBit,
    /// `binary`.
    Binary,
    /// `quoted-printable`.
    QuotedPrintable,
    /// `base64`.
    Base64,
}

impl Cte {
    /// The token as written in a header field (lower case).
    pub const fn as_str(self) -> &'static str {
        match self {
            Cte::SevenBit => "7bit",
            Cte::EightBit => "8bit",
            Cte::Binary => "binary",
            Cte::QuotedPrintable => "quoted-printable",
            Cte::Base64 => "base64",
        }
    }

    /// Reads a Content-Transfer-Encoding field value: case-insensitive,
    /// surrounding whitespace ignored. `None` for anything else (RFC 2045 says
    /// to treat an unknown coding as `application/octet-stream`).
    pub fn from_label(label: &[u8]) -> Option<Cte> {
        let label = label.trim_ascii();
        [
            Cte::SevenBit,
            Cte::EightBit,
            Cte::Binary,
            Cte::QuotedPrintable,
            Cte::Base64,
        ]
        .into_iter()
        .find(|cte| label.eq_ignore_ascii_case(cte.as_str().as_bytes()))
    }
}

/// The result of a lenient decode: the octets, and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
pub struct TransferDecoded<'a> {
    /// The decoded content; borrowed when decoding changed nothing.
    pub bytes: Cow<'a, [u8]>,
    /// `Malformed` findings, offsets into `bytes`; empty for clean input.
    pub findings: Vec<Finding>,
    /// The body is not in its coding at all (text labelled base64, see
    /// the module notes): `bytes` is the body as it stands, not decoded,
    /// and one finding says so. A normalizer keeps such a part as it is.
    pub not_encoded: bool,
}

/// Decodes a body under `cte`; 7bit, 8bit and binary are returned as they
/// are, and so is a body labelled base64 that is text, not base64
/// (`not_encoded`, see the module notes).
pub fn decode(cte: Cte, input: &[u8]) -> TransferDecoded<'_> {
    match cte {
        Cte::Base64 => {
            let d = decode_base64(input);
            // Clean base64 is base64: only a body the decoder found damage
            // in is looked at again (one more pass, over damaged bodies
            // only).
            if d.findings.is_empty() {
                return d;
            }
            if let Some(finding) = base64::text_not_base64(input) {
                return TransferDecoded {
                    bytes: Cow::Borrowed(input),
                    findings: vec![finding],
                    not_encoded: true,
                };
            }
            // Text after the base64 (a footer): the base64 decoded, the
            // text kept as it stands after it.
            // (The base64 before the text decoded once, and clean.)
            let head = base64::text_after_base64(input)
                .map(|split| (split, decode_base64(&input[..split])))
                .filter(|(_, head)| head.findings.is_empty());
            match head {
                Some((split, head)) => {
                    let mut bytes = head.bytes.into_owned();
                    let at = bytes.len();
                    let tail = &input[split..];
                    bytes.extend_from_slice(tail);
                    let note = format!(
                        "base64: {} octets of text after the base64 (a footer) kept as written, \
                         not decoded, first at encoded offset {split}",
                        tail.len()
                    );
                    TransferDecoded {
                        bytes: Cow::Owned(bytes),
                        findings: vec![
                            Finding::new(FindingKind::Malformed, at, tail.len()).with_note(note),
                        ],
                        not_encoded: false,
                    }
                }
                None => d,
            }
        }
        Cte::QuotedPrintable => decode_quoted_printable(input),
        Cte::SevenBit | Cte::EightBit | Cte::Binary => TransferDecoded {
            bytes: Cow::Borrowed(input),
            findings: Vec::new(),
            not_encoded: false,
        },
    }
}

/// Encodes `input` under `cte` (only quoted-printable and base64 change
/// anything; the others are returned as they are, borrowed).
pub fn encode(cte: Cte, input: &[u8], line_ending: Newline) -> Cow<'_, [u8]> {
    match cte {
        Cte::Base64 => Cow::Owned(encode_base64(input, line_ending)),
        Cte::QuotedPrintable => Cow::Owned(encode_quoted_printable(input, line_ending)),
        Cte::SevenBit | Cte::EightBit | Cte::Binary => Cow::Borrowed(input),
    }
}

/// Whether `input` may be sent as `7bit` (RFC 2045 §2.7) as it is: no octet
/// above 127, no NUL, CR only as part of CRLF, and no line longer than 998
/// octets (line ending excluded). LF alone is accepted as a line ending,
/// because the caller chooses CRLF or LF when writing.
pub fn is_7bit_clean(input: &[u8]) -> bool {
    const MAX_LINE: usize = 998;
    // Passes that each run wide (a scalar walk octet by octet showed in
    // profiles of normalize, once per converted part): 8-bit octets; NUL;
    // every CR followed by LF; the distance between line ends.
    if !crate::codec::is_ascii(input) || memchr::memchr(0, input).is_some() {
        return false;
    }
    if !memchr::memchr_iter(b'\r', input).all(|i| input.get(i + 1) == Some(&b'\n')) {
        return false;
    }
    // CR now only comes before LF: a line is what lies between LFs, less
    // the CR of its CRLF.
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', input).chain(std::iter::once(input.len())) {
        let line = input.get(start..end).unwrap_or_default();
        if line.strip_suffix(b"\r").unwrap_or(line).len() > MAX_LINE {
            return false;
        }
        start = end + 1;
    }
    true
}

/// Picks the transfer coding that suits `input` when it is not 7-bit clean
/// (check [`is_7bit_clean`] first if `7bit` is an option).
///
/// Counts the octets quoted-printable must escape: `=`, octets ≥ 0x7F, and
/// controls other than tab, CR and LF. A NUL means binary data: base64.
/// Otherwise quoted-printable when at most one octet in six needs escaping
/// (`6 × escaped ≤ len`), base64 beyond. The threshold is where the sizes
/// meet: an escape costs 3 characters, so quoted-printable is about
/// `len + 2 × escaped` long against base64's `4/3 × len`; below it
/// quoted-printable is also the readable choice (mostly-ASCII text, say
/// French or German in UTF-8), above it (Cyrillic, CJK, binary) base64 is
/// shorter.
pub fn choose_encoding(input: &[u8]) -> Cte {
    if memchr::memchr(0, input).is_some() {
        return Cte::Base64;
    }
    // Branch-free, so that it vectorizes (it showed in profiles of
    // normalize, once per converted part).
    // Counted in octets per block of 255 (no overflow), which vectorizes
    // sixteen lanes wide; u32 lanes were four.
    let escaped: usize = input
        .chunks(255)
        .map(|c| {
            usize::from(c.iter().fold(0u8, |n, &b| {
                let control = (b < 0x20) & (b != b'\t') & (b != b'\r') & (b != b'\n');
                n + u8::from(control | (b == b'=') | (b >= 0x7F))
            }))
        })
        .sum();
    if escaped.saturating_mul(6) <= input.len() {
        Cte::QuotedPrintable
    } else {
        Cte::Base64
    }
}

/// Counts one kind of damage: how often, and where first (encoded input
/// offset and decoded output offset).
#[derive(Default)]
struct Tally {
    count: usize,
    input_offset: usize,
    output_offset: usize,
}

impl Tally {
    #[inline]
    fn hit(&mut self, input_offset: usize, output_offset: usize) {
        if self.count == 0 {
            self.input_offset = input_offset;
            self.output_offset = output_offset;
        }
        self.count += 1;
    }

    /// Pushes a `Malformed` finding if anything was counted; `note` gets the
    /// count and returns the text before ", first at encoded offset N".
    fn report(&self, findings: &mut Vec<Finding>, note: impl FnOnce(usize) -> String) {
        if self.count > 0 {
            let text = format!(
                "{}, first at encoded offset {}",
                note(self.count),
                self.input_offset
            );
            findings.push(
                Finding::new(FindingKind::Malformed, self.output_offset, self.count)
                    .with_note(text),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{Just, prop_oneof};

    #[test]
    fn cte_labels() {
        assert_eq!(
            Cte::from_label(b" Quoted-Printable\r\n"),
            Some(Cte::QuotedPrintable)
        );
        assert_eq!(Cte::from_label(b"BASE64"), Some(Cte::Base64));
        assert_eq!(Cte::from_label(b"7bit"), Some(Cte::SevenBit));
        assert_eq!(Cte::from_label(b"x-uuencode"), None);
        assert_eq!(Cte::from_label(b""), None);
    }

    /// The definition, octet by octet: the oracle for `is_7bit_clean`.
    fn is_7bit_clean_scalar(input: &[u8]) -> bool {
        let mut line_len = 0usize;
        let mut bytes = input.iter().peekable();
        while let Some(&b) = bytes.next() {
            match b {
                b'\n' => line_len = 0,
                b'\r' => {
                    if bytes.next_if_eq(&&b'\n').is_none() {
                        return false;
                    }
                    line_len = 0;
                }
                0 | 0x80..=0xFF => return false,
                _ => {
                    line_len += 1;
                    if line_len > 998 {
                        return false;
                    }
                }
            }
        }
        true
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Lines of lengths around the limit, joined by LF, CRLF, bare CR
        /// and doubled ends, with an occasional NUL or 8-bit octet.
        #[test]
        fn seven_bit_matches_the_definition(
            lines in proptest::collection::vec(
                (
                    prop_oneof![0..5usize, 990..1002usize],
                    prop_oneof![
                        Just(&b"\n"[..]), Just(&b"\r\n"[..]), Just(&b"\r"[..]),
                        Just(&b"\r\r\n"[..]), Just(&b"\n\r"[..]), Just(&b""[..]),
                    ],
                    proptest::option::weighted(0.1, (0..1002usize, prop_oneof![Just(0u8), Just(0x80u8), Just(0xFFu8), Just(b'\r')])),
                ),
                0..4,
            )
        ) {
            let mut input = Vec::new();
            for (len, end, poke) in lines {
                let at = input.len();
                input.extend(std::iter::repeat_n(b'x', len));
                if let Some((i, b)) = poke && i < len {
                    input[at + i] = b;
                }
                input.extend_from_slice(end);
            }
            proptest::prop_assert_eq!(is_7bit_clean(&input), is_7bit_clean_scalar(&input));
        }
    }

    #[test]
    fn seven_bit_rules() {
        assert!(is_7bit_clean(b""));
        assert!(is_7bit_clean(b"Hello\r\nworld\n"));
        assert!(!is_7bit_clean(b"caf\xc3\xa9"));
        assert!(!is_7bit_clean(b"a\0b"));
        assert!(!is_7bit_clean(b"a\rb"));
        assert!(!is_7bit_clean(b"a\r"));
        assert!(is_7bit_clean(&[b'a'; 998]));
        assert!(!is_7bit_clean(&[b'a'; 999]));
        let mut two_lines = vec![b'a'; 998];
        two_lines.extend_from_slice(b"\r\n");
        two_lines.extend_from_slice(&[b'b'; 998]);
        assert!(is_7bit_clean(&two_lines));
    }

    #[test]
    fn choose_threshold() {
        // 1 escape in 6 octets: quoted-printable; 1 in 5: base64.
        assert_eq!(choose_encoding(b"abcde\xff"), Cte::QuotedPrintable);
        assert_eq!(choose_encoding(b"abcd\xff"), Cte::Base64);
        assert_eq!(choose_encoding(b"plain text\r\n"), Cte::QuotedPrintable);
        assert_eq!(choose_encoding(b"mostly text but a NUL\0"), Cte::Base64);
        assert_eq!(choose_encoding("Привет, мир".as_bytes()), Cte::Base64);
        assert_eq!(
            choose_encoding("Voilà, une phrase en français assez longue.".as_bytes()),
            Cte::QuotedPrintable
        );
        // Every octet value counts as the rule says, at the threshold.
        for b in 1..=255u8 {
            let escapes = b == b'=' || b >= 0x7F || (b < 0x20 && !b"\t\r\n".contains(&b));
            let mut text = vec![b'a'; 5];
            text.push(b);
            assert_eq!(choose_encoding(&text), Cte::QuotedPrintable, "{b:#x}");
            text.truncate(4);
            text.push(b);
            let expected = if escapes {
                Cte::Base64
            } else {
                Cte::QuotedPrintable
            };
            assert_eq!(choose_encoding(&text), expected, "{b:#x}");
        }
        // Past the blocks of the count: one escape in six still counts,
        // wherever it falls; blocks of nothing but escapes do not wrap the
        // count, and one escape more than a sixth tips it at any length.
        for len in [254, 255, 256, 510, 511, 4096, 60_000] {
            assert_eq!(choose_encoding(&vec![0xFF; len]), Cte::Base64, "{len}");
            for lead in [true, false] {
                let sixth = len / 6;
                let text = |n: usize| -> Vec<u8> {
                    let mut t = vec![b'x'; len];
                    let at = if lead { 0 } else { len - n };
                    t[at..at + n].fill(b'=');
                    t
                };
                assert_eq!(choose_encoding(&text(sixth)), Cte::QuotedPrintable);
                assert_eq!(choose_encoding(&text(sixth + 1)), Cte::Base64);
            }
        }
        let long: Vec<u8> = (0..60_000)
            .map(|i| if i % 6 == 5 { 0xC3 } else { b'x' })
            .collect();
        assert_eq!(choose_encoding(&long), Cte::QuotedPrintable);
        let long: Vec<u8> = (0..60_000)
            .map(|i| if i % 5 == 4 { 0xC3 } else { b'x' })
            .collect();
        assert_eq!(choose_encoding(&long), Cte::Base64);
    }
}
