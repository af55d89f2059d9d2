//! base64 (RFC 2045 §6.8): a lenient decoder and a 76-column encoder.
//!
//! Why not the `base64` crate: its decoders reject whitespace, garbage,
//! misplaced or missing padding, and data after padding; mail needs each of
//! those skipped *and counted*, so we would have to pre-filter every body
//! into a second buffer and still re-implement the padding rules. One table
//! and one loop do it in a single pass (see doc/bench-log.md, "Transfer codings", for how that loop
//! compares with the crate on clean input).

use super::{Newline, Tally, TransferDecoded};
use crate::finding::{Finding, FindingKind};
use std::borrow::Cow;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Table entries above 63: what a non-alphabet octet means.
const SPACE: u8 = 0x40;
const PAD: u8 = 0x41;
const INVALID: u8 = 0xFF;

static DECODE: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut i = 0;
    while i < 64 {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table[b'\r' as usize] = SPACE;
    table[b'\n' as usize] = SPACE;
    table[b' ' as usize] = SPACE;
    table[b'\t' as usize] = SPACE;
    table[b'=' as usize] = PAD;
    table
};

/// Input octets per encoded line: 57 octets make 76 characters.
const LINE_INPUT: usize = 57;

/// Where padding leaves the decoder.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pad {
    /// No padding seen since the last data.
    None,
    /// One `=` after two sextets: a second `=` is due.
    AwaitSecond,
    /// A quantum was closed by padding: more data starts a new block.
    Closed,
}

/// An upper bound on the decoded length of `encoded_len` characters.
pub const fn base64_decoded_len_max(encoded_len: usize) -> usize {
    encoded_len / 4 * 3 + 2
}

/// The exact length [`encode_base64`] produces for `input_len` octets: 76
/// characters a line, line endings between lines and none after the last.
pub const fn base64_encoded_len(input_len: usize, line_ending: Newline) -> usize {
    let chars = input_len.div_ceil(3) * 4;
    let lines = chars.div_ceil(76);
    chars + lines.saturating_sub(1) * line_ending.as_bytes().len()
}

/// Decodes base64 leniently (see the module notes for each recovery).
pub fn decode_base64(input: &[u8]) -> TransferDecoded<'static> {
    let mut out = Vec::with_capacity(base64_decoded_len_max(input.len()));
    let mut invalid = Tally::default();
    let mut missing_pad = Tally::default();
    let mut after_pad = Tally::default();
    let mut acc: u32 = 0;
    let mut sextets = 0usize;
    let mut pad = Pad::None;
    let mut quantum_start = 0;
    let mut i = 0;
    while i < input.len() {
        if sextets == 0 && pad == Pad::None {
            i = decode_fast(input, i, &mut out);
            let Some(&c) = input.get(i) else { break };
            // The fast loop stopped on a non-alphabet octet, or near the end.
            if DECODE[usize::from(c)] == SPACE {
                i += 1;
                continue;
            }
        }
        let Some(&c) = input.get(i) else { break };
        match DECODE[usize::from(c)] {
            v @ 0..=63 => {
                if pad != Pad::None {
                    if pad == Pad::AwaitSecond {
                        missing_pad.hit(i, out.len());
                    }
                    after_pad.hit(i, out.len());
                    pad = Pad::None;
                }
                if sextets == 0 {
                    quantum_start = i;
                }
                acc = acc << 6 | u32::from(v);
                sextets += 1;
                if sextets == 4 {
                    out.extend_from_slice(&acc.to_be_bytes()[1..]);
                    acc = 0;
                    sextets = 0;
                }
            }
            SPACE => {}
            PAD => match (sextets, pad) {
                (2, _) => {
                    out.push((acc >> 4) as u8);
                    acc = 0;
                    sextets = 0;
                    pad = Pad::AwaitSecond;
                }
                (3, _) => {
                    out.extend_from_slice(&(acc >> 2).to_be_bytes()[2..]);
                    acc = 0;
                    sextets = 0;
                    pad = Pad::Closed;
                }
                (0, Pad::AwaitSecond) => pad = Pad::Closed,
                _ => invalid.hit(i, out.len()),
            },
            _ => invalid.hit(i, out.len()),
        }
        i += 1;
    }
    let end = input.len();
    let mut dangling = Tally::default();
    match sextets {
        2 => {
            missing_pad.hit(end, out.len());
            out.push((acc >> 4) as u8);
        }
        3 => {
            missing_pad.hit(end, out.len());
            out.extend_from_slice(&(acc >> 2).to_be_bytes()[2..]);
        }
        1 => dangling.hit(quantum_start, out.len()),
        _ => {}
    }
    if pad == Pad::AwaitSecond {
        missing_pad.hit(end, out.len());
    }

    let mut findings = Vec::new();
    invalid.report(&mut findings, |n| {
        format!("base64: {n} invalid characters skipped (outside the alphabet, or misplaced '=')")
    });
    missing_pad.report(&mut findings, |n| {
        format!("base64: padding missing or incomplete {n} times")
    });
    after_pad.report(&mut findings, |n| {
        format!("base64: data after padding decoded as {n} further blocks")
    });
    dangling.report(&mut findings, |_| {
        "base64: a dangling single sextet at the end was dropped".to_owned()
    });
    TransferDecoded {
        bytes: Cow::Owned(out),
        findings,
        not_encoded: false,
    }
}

/// A run of alphabet characters this long inside a line that holds
/// something else (a stray character, a word after the padding) is taken
/// for base64; words of prose are shorter.
const BASE64_RUN: usize = 16;

/// The finding for a body labelled base64 that is text, not base64: it
/// holds three octets above 0x7F or more, or spaces between words (which
/// no encoder writes; one or two 8-bit octets are damage as often), its
/// first line is not one an encoder writes
/// ([`encoder_line`]), and less than half its characters (white space
/// aside) are in base64, that is on lines of nothing but the alphabet and
/// `=`, or in runs of [`BASE64_RUN`] alphabet characters or more. `None`
/// for base64, damaged or not: a stray character, a line of garbage or a
/// word after the padding leave most characters in base64, and a footer
/// (a list's, a gateway's, an epilogue a broken delimiter let in) comes
/// after a first line of base64, however short the base64 is.
pub(super) fn text_not_base64(input: &[u8]) -> Option<Finding> {
    let in_alphabet = |b: u8| DECODE[usize::from(b)] <= 63 || b == b'=';
    // Characters other than white space; those in base64; octets above
    // 0x7F; runs of spaces or tabs between two characters of a line.
    let (mut chars, mut base64, mut eight_bit, mut gaps) = (0usize, 0usize, 0usize, 0usize);
    let mut lines = input
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .filter(|l| !l.is_empty())
        .peekable();
    if lines.peek().is_some_and(|l| encoder_line(l)) {
        return None;
    }
    for line in lines {
        if line.iter().all(|&b| in_alphabet(b)) {
            chars += line.len();
            base64 += line.len();
            continue;
        }
        let mut run = 0;
        let mut after_space = false;
        for &b in line {
            if in_alphabet(b) {
                run += 1;
            } else {
                if run >= BASE64_RUN {
                    base64 += run;
                }
                run = 0;
            }
            if b == b' ' || b == b'\t' {
                gaps += usize::from(!after_space);
                after_space = true;
            } else {
                after_space = false;
                chars += 1;
                eight_bit += usize::from(b >= 0x80);
            }
        }
        if run >= BASE64_RUN {
            base64 += run;
        }
    }
    let outside = chars.saturating_sub(base64);
    // One or two 8-bit octets alone are damage in a short base64 body as
    // often as prose: three, or spaces between words.
    if (eight_bit < 3 && gaps == 0) || outside <= base64 {
        return None;
    }
    let note = format!(
        "base64: the body is text, not base64 ({outside} of {chars} characters outside base64, \
         {eight_bit} octets above 0x7F, {gaps} spaces between words): not decoded, read as written"
    );
    Some(Finding::new(FindingKind::Malformed, 0, outside).with_note(note))
}

/// Where text appended after base64 starts (a mailing list's or a
/// gateway's footer, a word after the padding), when the body is clean
/// base64 up to there: lines of nothing but the alphabet (a final `=` or
/// two), then a line that is not (or the rest of the line after a padded
/// quantum and white space, when it is no base64 quantum itself), and
/// after it no line like base64 ([`base64_like`]: damage inside the
/// base64, decoded as before). The line must read as text: words, a delimiter's `--`, or
/// mostly ASCII characters outside the alphabet (a last line of base64
/// with a stray character in it, 8-bit octets without a space, are
/// damage). The offset is where the text's line begins, blank lines
/// before it included. The caller decodes the base64 before it, which
/// must be clean.
/// Decoded as base64 too, the footer's octets were lost to garbage that a
/// single-byte label read cleanly, and the letter was converted with it.
pub(super) fn text_after_base64(input: &[u8]) -> Option<usize> {
    let is_data = |b: u8| DECODE[usize::from(b)] <= 63;
    let mut at = 0;
    let mut split = None;
    let mut seen = false;
    // Where the last line of base64 ends (its line end included).
    let mut last_end = 0;
    while at < input.len() {
        let end = input[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(input.len(), |k| at + k + 1);
        let line = input[at..end].trim_ascii();
        if line.is_empty() {
            at = end;
            continue;
        }
        // A line of base64, or of its padding alone (`==` cut off).
        if encoder_line(line) || line.iter().all(|&b| b == b'=') {
            seen = true;
            at = end;
            last_end = end;
            continue;
        }
        // A padded quantum, white space, then text on the same line.
        let data = line.iter().take_while(|&&b| is_data(b)).count();
        let pads = line[data..].iter().take_while(|&&b| b == b'=').count();
        if seen || data > 0 {
            // (A first line that is not base64 at all: nothing to split.)
            // What follows the padding must be text, not another base64
            // quantum after a space (`...IA== QmlzI...o=`).
            let after = line.get(data + pads..).unwrap_or_default();
            if (1..=2).contains(&pads)
                && after.first().is_some_and(u8::is_ascii_whitespace)
                && !base64_like(after.trim_ascii())
            {
                let start = input.len() - input[at..].trim_ascii_start().len();
                split = Some(start + data + pads);
            } else if seen
                // (Base64 with a space inside a line is no text: each piece
                // the alphabet's, one of them like base64, not a word.)
                && !(line
                    .split(u8::is_ascii_whitespace)
                    .filter(|w| !w.is_empty())
                    .all(encoder_line)
                    && line.split(u8::is_ascii_whitespace).any(base64_like))
                && (line.iter().any(u8::is_ascii_whitespace)
                    || line.starts_with(b"--")
                    || (line.is_ascii()
                        && line.iter().filter(|&&b| is_data(b)).count() * 2 < line.len()))
            {
                // Text: words, a delimiter (`--b-->`), or mostly other ASCII
                // characters (a rule of `___`). A last line of base64 with a
                // stray character in it (`Zm9vYmFy!`) is damage, and so is a
                // run of 8-bit octets without a space: decoded as before.
                split = Some(last_end);
            }
        }
        break;
    }
    let split = split?;
    // The base64 before it is clean, and no base64 comes after it (a stray
    // line inside the data, then its last line, `cm8uIA==`).
    let rest = &input[split..];
    let more_base64 = rest
        .split(|&b| b == b'\n')
        .any(|l| base64_like(l.trim_ascii()));
    (!more_base64 && rest.iter().any(|b| !b.is_ascii_whitespace())).then_some(split)
}

/// A line after text that is base64 all the same: in the alphabet (a
/// final `=` or two), and padded, or 8 characters or more and no plain
/// word (shorter than 20, one case throughout or a capital then small
/// letters: a footer's `Unsubscribe`, `REGARDS`), which base64 is with a digit, a
/// `+` or `/`, or its case changing inside (`UHL8ZnVuZ`, `cm8uIA==`).
fn base64_like(line: &[u8]) -> bool {
    if line.is_empty() || !encoder_line(line) {
        return false;
    }
    let word = |l: &[u8]| {
        let rest = l.get(1..).unwrap_or_default();
        l.len() < 20
            && l.iter().all(u8::is_ascii_alphabetic)
            && (rest.iter().all(u8::is_ascii_lowercase) || l.iter().all(u8::is_ascii_uppercase))
    };
    line.ends_with(b"=") || (line.len() >= 8 && !word(line))
}

/// A line as a base64 encoder writes it, or what is left of one: all in
/// the alphabet but for one or two `=` at its end, whatever its length (a
/// short body, a last line cut short, unpadded). A one-word first line of
/// prose (`Hallo`) is taken for base64 too, and decoded as before: the
/// cost of never keeping real base64 undecoded.
fn encoder_line(line: &[u8]) -> bool {
    let data = line
        .strip_suffix(b"==")
        .or_else(|| line.strip_suffix(b"="))
        .unwrap_or(line);
    !data.is_empty() && data.iter().all(|&b| DECODE[usize::from(b)] <= 63)
}

/// Decodes whole runs of 8 alphabet characters from `i` on; returns where it
/// stopped (at the first run holding anything else, or near the end).
#[inline]
fn decode_fast(input: &[u8], mut i: usize, out: &mut Vec<u8>) -> usize {
    // 32 characters (24 octets) at a time while they are all alphabet: most
    // of a 76-column line.
    while let Some(chunk) = input.get(i..).and_then(<[u8]>::first_chunk::<32>) {
        let mut octets = [0u8; 24];
        let mut bad = 0u8;
        for (src, dst) in chunk.chunks_exact(8).zip(octets.chunks_exact_mut(6)) {
            let mut word: u64 = 0;
            for &c in src {
                let v = DECODE[usize::from(c)];
                bad |= v;
                word = word << 6 | u64::from(v);
            }
            dst.copy_from_slice(&word.to_be_bytes()[2..]);
        }
        if bad > 63 {
            break;
        }
        out.extend_from_slice(&octets);
        i += 32;
    }
    while let Some(chunk) = input.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let mut word: u64 = 0;
        let mut bad = 0u8;
        for &c in chunk {
            let v = DECODE[usize::from(c)];
            bad |= v;
            word = word << 6 | u64::from(v);
        }
        if bad <= 63 {
            out.extend_from_slice(&word.to_be_bytes()[2..]);
            i += 8;
            continue;
        }
        // Something else in these 8: decode a quantum of 4 if it is clean
        // (the tail of a 76-column line), skip line folding, else give up.
        let mut word: u32 = 0;
        let mut bad = 0u8;
        for &c in &chunk[..4] {
            let v = DECODE[usize::from(c)];
            bad |= v;
            word = word << 6 | u32::from(v);
        }
        if bad <= 63 {
            out.extend_from_slice(&word.to_be_bytes()[1..]);
            i += 4;
        } else if DECODE[usize::from(chunk[0])] == SPACE {
            i += 1;
        } else {
            break;
        }
    }
    i
}

/// Encodes `input` as base64 in lines of 76 characters separated by
/// `line_ending`, with no line ending after the last line (the caller writes
/// the one that ends the body). Empty input gives empty output.
pub fn encode_base64(input: &[u8], line_ending: Newline) -> Vec<u8> {
    let eol = line_ending.as_bytes();
    let mut out = vec![0; base64_encoded_len(input.len(), line_ending)];
    let mut o = 0;
    for (n, line) in input.chunks(LINE_INPUT).enumerate() {
        if n > 0 {
            out[o..o + eol.len()].copy_from_slice(eol);
            o += eol.len();
        }
        o += encode_line(line, &mut out[o..]);
    }
    debug_assert_eq!(o, out.len());
    out
}

/// Encodes one line's worth of input into the start of `dst`, which has room
/// for it; returns the number of characters written.
#[inline]
fn encode_line(line: &[u8], dst: &mut [u8]) -> usize {
    let sextet = |word: u64, shift: u32| ALPHABET[((word >> shift) & 63) as usize];
    let mut written = 0;
    let sixes = line.chunks_exact(6);
    let tail = sixes.remainder();
    for (c, d) in sixes.zip(dst.chunks_exact_mut(8)) {
        let word = u64::from(c[0]) << 40
            | u64::from(c[1]) << 32
            | u64::from(c[2]) << 24
            | u64::from(c[3]) << 16
            | u64::from(c[4]) << 8
            | u64::from(c[5]);
        d.copy_from_slice(&[
            sextet(word, 42),
            sextet(word, 36),
            sextet(word, 30),
            sextet(word, 24),
            sextet(word, 18),
            sextet(word, 12),
            sextet(word, 6),
            sextet(word, 0),
        ]);
        written += 8;
    }
    for c in tail.chunks(3) {
        let b = |k: usize| c.get(k).map_or(0, |&b| u64::from(b));
        let word = b(0) << 16 | b(1) << 8 | b(2);
        let quad = [
            sextet(word, 18),
            sextet(word, 12),
            if c.len() > 1 { sextet(word, 6) } else { b'=' },
            if c.len() > 2 { sextet(word, 0) } else { b'=' },
        ];
        dst[written..written + 4].copy_from_slice(&quad);
        written += 4;
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::FindingKind;

    fn dec(s: &[u8]) -> (Vec<u8>, Vec<(usize, usize, String)>) {
        let d = decode_base64(s);
        let f = d
            .findings
            .iter()
            .map(|f| {
                assert_eq!(f.kind, FindingKind::Malformed);
                (
                    f.offset,
                    f.count,
                    f.note.as_deref().unwrap_or("").to_owned(),
                )
            })
            .collect();
        (d.bytes.into_owned(), f)
    }

    #[test]
    fn clean_and_folded() {
        assert_eq!(dec(b""), (vec![], vec![]));
        assert_eq!(dec(b"YWJj"), (b"abc".to_vec(), vec![]));
        assert_eq!(dec(b"YQ=="), (b"a".to_vec(), vec![]));
        assert_eq!(dec(b"YWI="), (b"ab".to_vec(), vec![]));
        assert_eq!(dec(b"YW\r\n Jj\tZA =\n="), (b"abcd".to_vec(), vec![]));
        assert_eq!(
            dec(b"SGVsbG8sIHdvcmxkIQ=="),
            (b"Hello, world!".to_vec(), vec![])
        );
    }

    #[test]
    fn garbage_is_counted_with_first_offset() {
        let (bytes, f) = dec(b"YW!Jj*ZA==");
        assert_eq!(bytes, b"abcd");
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].0, f[0].1), (0, 2));
        assert!(f[0].2.contains("2 invalid"), "{}", f[0].2);
        assert!(f[0].2.contains("encoded offset 2"), "{}", f[0].2);
    }

    #[test]
    fn padding_cases() {
        let (bytes, f) = dec(b"YQ");
        assert_eq!((bytes.as_slice(), f.len()), (&b"a"[..], 1));
        assert!(f[0].2.contains("padding missing"));
        let (bytes, f) = dec(b"YWI");
        assert_eq!((bytes.as_slice(), f.len()), (&b"ab"[..], 1));
        let (bytes, f) = dec(b"YQ=");
        assert_eq!((bytes.as_slice(), f.len()), (&b"a"[..], 1));
        // A third '=' and a '=' after one sextet are misplaced.
        let (bytes, f) = dec(b"YQ===");
        assert_eq!(bytes, b"a");
        assert_eq!(f[0].1, 1);
        assert!(f[0].2.contains("invalid"));
        let (bytes, f) = dec(b"Y=Q==");
        assert_eq!(bytes, b"a");
        assert_eq!(f.len(), 1);
    }

    #[test]
    fn concatenated_blocks() {
        let (bytes, f) = dec(b"YQ==\r\nYmM=\r\nZA==");
        assert_eq!(bytes, b"abcd");
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].0, f[0].1), (1, 2));
        assert!(f[0].2.contains("after padding"));
        // Incomplete padding between blocks.
        let (bytes, f) = dec(b"YQ=YmM=");
        assert_eq!(bytes, b"abc");
        assert_eq!(f.len(), 2);
    }

    #[test]
    fn dangling_sextet() {
        let (bytes, f) = dec(b"YWJjZ");
        assert_eq!(bytes, b"abc");
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].0, f[0].1), (3, 1));
        assert!(f[0].2.contains("dangling"));
    }

    #[test]
    fn fast_path_boundaries() {
        // Every length and every position of one space, to cross the 8-char
        // fast loop's edges.
        let data: Vec<u8> = (0u8..=200).collect();
        let enc = encode_base64(&data, Newline::Crlf);
        for cut in 0..data.len() {
            let enc = encode_base64(&data[..cut], Newline::Lf);
            assert_eq!(decode_base64(&enc).bytes, &data[..cut]);
        }
        for pos in 0..enc.len() {
            let mut e = enc.clone();
            e.insert(pos, b' ');
            let d = decode_base64(&e);
            assert_eq!(d.bytes, data, "space at {pos}");
            assert!(d.findings.is_empty());
        }
    }

    #[test]
    fn text_after_clean_base64() {
        let b64 = encode_base64(&[0x41; 120], Newline::Lf);
        let body = [&b64[..], b"\n\n-- \nfooter text\n"].concat();
        assert_eq!(text_after_base64(&body), Some(b64.len() + 1));
        // A padded quantum, then a word on the same line.
        assert_eq!(text_after_base64(b"QUJD\nQQ== ignored\n"), Some(9));
        // Garbage inside the base64 (more base64 after it): damage.
        let inside = [&b64[..77], b"%% garbage %%\n", &b64[77..], b"\n"].concat();
        assert_eq!(text_after_base64(&inside), None);
        // Damaged base64 before the text: not split.
        let damaged = [&b"QU*JD\n"[..], b"-- \nfooter\n"].concat();
        assert_eq!(text_after_base64(&damaged), None);
        // A review's: a stray line inside the data before its last line;
        // two padded quanta with a space between; a line of base64 with a
        // space inside before the last one.
        let last = [&b64[..77], b"-- \n", b"cm8uIA==\n"].concat();
        assert_eq!(text_after_base64(&last), None);
        assert_eq!(text_after_base64(b"QUJD\nQUI= QmlzIGJh\n"), None);
        let spaced = [&b64[..77], b"UntecmxhZ2Vu IGb8ciBkaWUg\nUHL8ZnVuZ\n"].concat();
        assert_eq!(text_after_base64(&spaced), None);
        // A footer with a bare word on a line of its own is still text.
        let footer = [&b64[..], b"\n\nThanks, Jan\nUnsubscribe\n"].concat();
        assert_eq!(text_after_base64(&footer), Some(b64.len() + 1));
        // A last line of base64 with a stray character: damage.
        let stray = [&b64[..], b"\nZm9vYmFy!\n"].concat();
        assert_eq!(text_after_base64(&stray), None);
        // No text after it, or nothing but base64.
        assert_eq!(text_after_base64(&b64), None);
        assert_eq!(text_after_base64(b"plain text first\nQUJD\n"), None);
    }

    #[test]
    fn text_or_base64() {
        let text = |s: &[u8]| text_not_base64(s).is_some();
        // Prose: 8-bit octets or spaces between words, little base64.
        assert!(text(b"Hallo,\nwie geht es dir? Gr\xfc\xdfe aus Wien.\n"));
        // A first line of one word is taken for base64 (decoded as before).
        assert!(!text(b"Hallo\nwie geht es dir? Gr\xfc\xdfe aus Wien.\n"));
        assert!(text("谢谢你的信息。".as_bytes()));
        assert!(text(b"plain words and nothing else here\n"));
        // No sign of prose: a stray character is damage.
        assert!(!text(b"?garbage\n"));
        assert!(!text(b"YWJj!ZGVm*\n"));
        // Mostly base64, a stray line or octet and all.
        let b64 = encode_base64(&[0x55; 120], Newline::Lf);
        let damaged = [&b"** noise here **\n"[..], &b64, b" \xe9\n"].concat();
        assert!(!text(&damaged));
        // Base64 first, text after (a footer), however short the base64.
        assert!(!text(
            b"PGh0bWw+Cg==\n\n-- \nA footer, longer than the body.\n"
        ));
        // Unpadded or short, the first line is still an encoder's.
        assert!(!text(
            b"PGh0bWw+Cg\n\n-- \nA footer, longer than the body.\n"
        ));
        // One or two 8-bit octets without a space: damage, not prose.
        assert!(!text(b"YWJj\xe9ZGVm\n"));
        assert!(text(b"\xe9t\xe9,caf\xe9\n"));
        // Runs of 16 alphabet characters count as base64 inside a line.
        assert!(!text(b"ecO2dMOkIHZhYW4uCg== ignored\n"));
        assert!(encoder_line(b"YWJjZGVm"));
        assert!(encoder_line(b"YWJjZA=="));
        assert!(encoder_line(b"YWJj"));
        assert!(encoder_line(b"YWJjZA"));
        assert!(encoder_line(b"Gracias"));
        assert!(!encoder_line(b"YWJj=GVm"));
        assert!(!encoder_line(b"=="));
        let f = text_not_base64(b"caf\xe9 au lait").expect("text");
        assert_eq!((f.kind, f.offset, f.count), (FindingKind::Malformed, 0, 10));
    }

    #[test]
    fn encoder_layout() {
        assert_eq!(encode_base64(b"", Newline::Lf), b"");
        assert_eq!(encode_base64(b"a", Newline::Lf), b"YQ==");
        assert_eq!(encode_base64(b"ab", Newline::Lf), b"YWI=");
        assert_eq!(encode_base64(b"abcdefg", Newline::Lf), b"YWJjZGVmZw==");
        let enc = encode_base64(&[0u8; 58], Newline::Crlf);
        assert_eq!(enc.len(), 76 + 2 + 4);
        assert_eq!(&enc[76..78], b"\r\n");
        assert_eq!(&enc[78..], b"AA==");
        for n in 0..200 {
            for le in [Newline::Lf, Newline::Crlf] {
                assert_eq!(
                    encode_base64(&vec![7; n], le).len(),
                    base64_encoded_len(n, le)
                );
            }
        }
    }
}
