//! quoted-printable (RFC 2045 §6.7): a lenient decoder and a strict encoder.

use super::{Newline, Tally, TransferDecoded};
use memchr::{memchr, memchr_iter};
use std::borrow::Cow;

const UPPER_HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Hex digit values (either case); 0xFF for anything else.
static HEX: [u8; 256] = {
    let mut table = [0xFF; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'A' as usize + i] = 10 + i as u8;
        table[b'a' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};

/// Octets the encoder writes as they are in the middle of a line:
/// printable ASCII but `=`, and space and tab when more follows on the
/// line. Computed (no table) so that [`literal_run`] vectorizes.
#[inline]
fn is_run(b: u8) -> bool {
    (b.wrapping_sub(0x20) < 0x5F && b != b'=') | (b == b'\t')
}

/// `s.starts_with(eol)` for a line end of one or two octets, compared in
/// place (`starts_with` called `memcmp` for every escaped octet).
#[inline]
fn starts_with_eol(s: &[u8], eol: &[u8]) -> bool {
    match (eol, s) {
        ([a], [x, ..]) => a == x,
        ([a, b], [x, y, ..]) => a == x && b == y,
        _ => s.starts_with(eol),
    }
}

/// How many leading octets of `s` are [`is_run`]: sixteen at a time, the
/// stops of a block as a bit mask (SSE2),
/// the first stop its lowest bit. A tail shorter than a block is the last
/// sixteen octets again (they overlap octets known to be literal), so a
/// short line costs one block, not a walk. The per-octet table walk was
/// most of the encoder's time in profiles of normalize.
#[inline]
fn literal_run(s: &[u8]) -> usize {
    let stops = crate::codec::qp_stops;
    let mut n = 0;
    while let Some(block) = s.get(n..n + 16) {
        let Ok(block) = <&[u8; 16]>::try_from(block) else {
            break;
        };
        let m = stops(block);
        if m != 0 {
            return n + m.trailing_zeros() as usize;
        }
        n += 16;
    }
    if n == s.len() {
        return n;
    }
    if let Some(last) = s.len().checked_sub(16).and_then(|at| s.get(at..))
        && let Ok(block) = <&[u8; 16]>::try_from(last)
    {
        let m = stops(block);
        return if m == 0 {
            s.len()
        } else {
            s.len() - 16 + m.trailing_zeros() as usize
        };
    }
    s.iter().take_while(|&&b| is_run(b)).count()
}

/// The longest encoded line, soft-break `=` included (RFC 2045 §6.7 rule 5).
const MAX_LINE: usize = 76;

/// Decodes quoted-printable leniently (see the module notes): `=XX` in either
/// case, soft breaks (with trailing whitespace after the `=` too), trailing
/// whitespace deleted, bad escapes kept as written and counted, line endings
/// kept as they are. Borrows when there is nothing to decode.
pub fn decode_quoted_printable(input: &[u8]) -> TransferDecoded<'_> {
    if memchr(b'=', input).is_none() && !has_trailing_whitespace(input) {
        return TransferDecoded {
            bytes: Cow::Borrowed(input),
            findings: Vec::new(),
            not_encoded: false,
        };
    }
    let mut out = Vec::with_capacity(input.len());
    let mut bad = Tally::default();
    // `input[..copied]` is decoded; `line` is where the current line starts.
    // The events are the `=` and LF octets, found 64 at a time (a `memchr`
    // for the line end and one for each `=` cost more in setup than in
    // search: a tenth of auditing multipart mail, most of it QP HTML).
    let mut copied = 0;
    let mut line = 0;
    for at in Stops::new(input) {
        if at < copied {
            // Inside a soft break already taken.
            continue;
        }
        if input[at] == b'\n' {
            let cr = at > line && input[at - 1] == b'\r';
            let content_end = at - usize::from(cr);
            out.extend_from_slice(input[copied..content_end].trim_ascii_end_spaces());
            out.extend_from_slice(&input[content_end..=at]);
            copied = at + 1;
            line = copied;
            continue;
        }
        out.extend_from_slice(&input[copied..at]);
        // A soft break: `=`, then nothing but spaces and tabs to the line
        // ending (a CR right before the LF is part of it) or to the end.
        let after = &input[at + 1..];
        let blank = after
            .iter()
            .position(|&b| !matches!(b, b' ' | b'\t'))
            .unwrap_or(after.len());
        match &after[blank..] {
            [] => {
                copied = input.len();
                line = copied;
                continue;
            }
            [b'\n', ..] | [b'\r', b'\n', ..] => {
                let lf = at + 1 + blank + usize::from(after[blank] == b'\r');
                copied = lf + 1;
                line = copied;
                continue;
            }
            // A bare CR ends the line in CR-only text (classic Mac OS
            // mail): a soft break too, or `n=\rous` kept its `=` and line
            // break where `nous` was written.
            [b'\r', ..] => {
                copied = at + 1 + blank + 1;
                continue;
            }
            _ => {}
        }
        // Hex digits are never spaces, tabs, CR or LF: testing the octets
        // as they stand is testing them in the line without its trailing
        // white space.
        match after {
            [hi, lo, ..] if HEX[usize::from(*hi)] < 16 && HEX[usize::from(*lo)] < 16 => {
                out.push(HEX[usize::from(*hi)] << 4 | HEX[usize::from(*lo)]);
                copied = at + 3;
            }
            _ => {
                bad.hit(at, out.len());
                out.push(b'=');
                copied = at + 1;
            }
        }
    }
    // The last line, without a line ending.
    if copied < input.len() {
        out.extend_from_slice(input[copied..].trim_ascii_end_spaces());
    }
    let mut findings = Vec::new();
    bad.report(&mut findings, |n| {
        format!("quoted-printable: {n} malformed '=' escapes kept as written")
    });
    TransferDecoded {
        bytes: Cow::Owned(out),
        findings,
        not_encoded: false,
    }
}

/// The offsets of the `=` and LF octets of a text, in order, from a mask
/// of each 64-octet block ([`crate::codec::either_of`]).
struct Stops<'a> {
    input: &'a [u8],
    /// Offset of the block `mask` is of.
    base: usize,
    mask: u64,
}

impl<'a> Stops<'a> {
    fn new(input: &'a [u8]) -> Self {
        let mut s = Stops {
            input,
            base: 0,
            mask: 0,
        };
        s.mask = s.block_mask();
        s
    }

    fn block_mask(&self) -> u64 {
        let rest = self.input.get(self.base..).unwrap_or_default();
        match rest.first_chunk::<64>() {
            Some(block) => crate::codec::either_of(block, b'=', b'\n'),
            None => {
                // The last, short block, padded with NULs (neither stop).
                let mut block = [0u8; 64];
                block[..rest.len()].copy_from_slice(rest);
                crate::codec::either_of(&block, b'=', b'\n')
            }
        }
    }
}

impl Iterator for Stops<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            self.base += 64;
            if self.base >= self.input.len() {
                return None;
            }
            self.mask = self.block_mask();
        }
        let i = self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(self.base + i)
    }
}

trait TrimSpaces {
    fn trim_ascii_end_spaces(&self) -> &Self;
}

impl TrimSpaces for [u8] {
    /// Strips trailing spaces and tabs only (not CR: that belongs to the
    /// line ending, or is data).
    #[inline]
    fn trim_ascii_end_spaces(&self) -> &[u8] {
        let mut end = self.len();
        while end > 0 && matches!(self[end - 1], b' ' | b'\t') {
            end -= 1;
        }
        &self[..end]
    }
}

/// Whether some line ends in a space or tab (before CRLF, LF or the end).
fn has_trailing_whitespace(input: &[u8]) -> bool {
    let ws_before = |end: usize| end > 0 && matches!(input[end - 1], b' ' | b'\t');
    if ws_before(input.len()) {
        return true;
    }
    memchr_iter(b'\n', input).any(|lf| {
        let end = if lf > 0 && input[lf - 1] == b'\r' {
            lf - 1
        } else {
            lf
        };
        ws_before(end)
    })
}

/// An upper bound on the length [`encode_quoted_printable`] produces for
/// `input_len` octets: each octet becomes at most 3 characters, and a soft
/// break (`=` and a line ending) follows at least 73 characters.
pub const fn qp_encoded_len_max(input_len: usize, line_ending: Newline) -> usize {
    let chars = input_len.saturating_mul(3);
    chars.saturating_add((chars / 73).saturating_mul(1 + line_ending.as_bytes().len()))
}

/// Encodes `input` as quoted-printable (RFC 2045 §6.7) with `line_ending`.
///
/// - Occurrences of `line_ending` in the input are hard line breaks, written
///   as they are. Any other CR or LF is data and is escaped (`=0D`, `=0A`),
///   so decoding gives back exactly `input`; convert a text's line endings to
///   `line_ending` first to keep them as line breaks.
/// - Printable ASCII other than `=` is written as it is; `=`, controls, DEL
///   and octets ≥ 0x80 are escaped with upper-case hex.
/// - Space and tab are escaped where they would end a line (before a hard
///   break or at the end of the input), so rule 3 cannot eat them.
/// - A `.` or `From ` at the start of an output line is escaped (`=2E`,
///   `=46rom `) so that SMTP dot-stuffing and mbox `From ` quoting cannot
///   touch the body.
/// - Lines are at most 76 characters, a soft-break `=` included; an escape is
///   never split across lines.
/// - The output ends as the input does: no line ending is added.
pub fn encode_quoted_printable(input: &[u8], line_ending: Newline) -> Vec<u8> {
    let eol = line_ending.as_bytes();
    let mut out = Vec::with_capacity(input.len() + input.len() / 16 + 16);
    // Line by line: the encoder starts every line in the same state
    // (column 0) and looks no further ahead than the line's end, so a
    // line is encoded alone. A line that is written as it is (short
    // enough, every octet literal, nothing to escape at its ends) is
    // copied whole with its line ending; most lines of a mostly-ASCII
    // text are (the octet-by-octet start of each line was a third of the
    // encoder's instructions in normalize).
    let mut start = 0;
    while let Some(rest) = input.get(start..).filter(|r| !r.is_empty()) {
        // The literal octets of the line, looked for no further than a
        // line can be long: a line written as it is ends where they do.
        let run = literal_run(&rest[..rest.len().min(MAX_LINE + 1)]);
        let end = if run == rest.len() {
            Some(run)
        } else {
            starts_with_eol(&rest[run..], eol).then(|| run + eol.len())
        };
        if let Some(end) = end
            && run <= MAX_LINE
            && written_as_is(&rest[..run])
        {
            out.extend_from_slice(&rest[..end]);
            start += end;
            continue;
        }
        let next = find_eol(rest, eol).map_or(rest.len(), |k| k + eol.len());
        encode_line(&rest[..next], eol, &mut out);
        start += next;
    }
    out
}

/// Where the first `eol` of `s` starts.
#[inline]
fn find_eol(s: &[u8], eol: &[u8]) -> Option<usize> {
    match eol {
        [b'\n'] => memchr(b'\n', s),
        _ => memchr_iter(b'\n', s)
            .find(|&i| i > 0 && s[i - 1] == b'\r')
            .map(|i| i - 1),
    }
}

/// Whether [`encode_line`] writes `line` (without its line ending, at
/// most [`MAX_LINE`] octets, each literal in the middle of a line)
/// unchanged: it does not end in whitespace nor start with `.` or `From `.
#[inline]
fn written_as_is(line: &[u8]) -> bool {
    !matches!(line.last(), Some(b' ' | b'\t'))
        && !matches!(line.first(), Some(b'.'))
        && !line.starts_with(b"From ")
}

/// Encodes one line, `segment` (with its line ending when it has one),
/// starting at column 0.
fn encode_line(segment: &[u8], eol: &[u8], out: &mut Vec<u8>) {
    let input = segment;
    let mut col = 0usize;
    let mut i = 0;
    while let Some(&b) = input.get(i) {
        // Fast path: copy a run of octets that are literal wherever they
        // stand, as far as the line has room before a soft break. It never
        // ends on whitespace (that may end a line) and never starts a line
        // (a leading '.' or `From ` is escaped below).
        if col > 0 && col < MAX_LINE - 1 {
            let room = &input[i..input.len().min(i + (MAX_LINE - 1 - col))];
            let mut run = literal_run(room);
            while run > 0 && matches!(room[run - 1], b' ' | b'\t') {
                run -= 1;
            }
            if run > 0 {
                out.extend_from_slice(&room[..run]);
                col += run;
                i += run;
                continue;
            }
        }
        let rest = &input[i..];
        if starts_with_eol(rest, eol) {
            out.extend_from_slice(eol);
            col = 0;
            i += eol.len();
            continue;
        }
        let ends_line = || {
            let next = &rest[1..];
            next.is_empty() || starts_with_eol(next, eol)
        };
        let mut literal = match b {
            b' ' | b'\t' => !ends_line(),
            b'=' => false,
            0x21..=0x7E => true,
            _ => false,
        };
        let width = if literal { 1 } else { 3 };
        // Room must stay for the soft-break '=', unless this token ends the line.
        if col + width > MAX_LINE - 1 && (col + width > MAX_LINE || !ends_line()) {
            out.push(b'=');
            out.extend_from_slice(eol);
            col = 0;
        }
        if col == 0 && (b == b'.' || (b == b'F' && rest.starts_with(b"From "))) {
            literal = false;
        }
        if literal {
            out.push(b);
            col += 1;
        } else {
            out.extend_from_slice(&[
                b'=',
                UPPER_HEX[usize::from(b >> 4)],
                UPPER_HEX[usize::from(b & 15)],
            ]);
            col += 3;
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Finding;
    use proptest::prelude::*;

    /// The line-by-line decoder `decode_quoted_printable` replaced (a
    /// `memchr` for each line end and each `=`), kept as the model of its
    /// event loop: the same octets and the same findings for any input.
    fn model(input: &[u8]) -> (Vec<u8>, Vec<Finding>) {
        fn line_of(line: &[u8], base: usize, out: &mut Vec<u8>, bad: &mut Tally) -> bool {
            let mut i = 0;
            while let Some(k) = memchr(b'=', &line[i..]) {
                let eq = i + k;
                out.extend_from_slice(&line[i..eq]);
                // A soft break before a bare CR (CR-only line ends).
                let blank = line[eq + 1..]
                    .iter()
                    .take_while(|&&b| matches!(b, b' ' | b'\t'))
                    .count();
                if line.get(eq + 1 + blank) == Some(&b'\r') {
                    i = eq + blank + 2;
                    continue;
                }
                match line.get(eq + 1..eq + 3) {
                    _ if eq + 1 == line.len() => return true,
                    Some(&[hi, lo]) if HEX[usize::from(hi)] < 16 && HEX[usize::from(lo)] < 16 => {
                        out.push(HEX[usize::from(hi)] << 4 | HEX[usize::from(lo)]);
                        i = eq + 3;
                    }
                    _ => {
                        bad.hit(base + eq, out.len());
                        out.push(b'=');
                        i = eq + 1;
                    }
                }
            }
            out.extend_from_slice(&line[i..]);
            false
        }
        let mut out = Vec::new();
        let mut bad = Tally::default();
        let mut pos = 0;
        while pos < input.len() {
            let rest = &input[pos..];
            let (content_end, line_end) = match memchr(b'\n', rest) {
                Some(lf) => {
                    let cr = lf > 0 && rest[lf - 1] == b'\r';
                    (pos + lf - usize::from(cr), pos + lf + 1)
                }
                None => (input.len(), input.len()),
            };
            let line = input[pos..content_end].trim_ascii_end_spaces();
            if !line_of(line, pos, &mut out, &mut bad) {
                out.extend_from_slice(&input[content_end..line_end]);
            }
            pos = line_end;
        }
        let mut findings = Vec::new();
        bad.report(&mut findings, |n| {
            format!("quoted-printable: {n} malformed '=' escapes kept as written")
        });
        (out, findings)
    }

    /// Quoted-printable as it arrives: escapes good and bad, soft breaks
    /// with and without white space after them, CR, LF and CRLF, trailing
    /// white space, 8-bit octets; over 64 octets often, so that stops fall
    /// on block edges.
    fn qp_like() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"=".to_vec()),
            Just(b"=\n".to_vec()),
            Just(b"=\r\n".to_vec()),
            Just(b"= \t\n".to_vec()),
            Just(b"=3D".to_vec()),
            Just(b"=c3=a9".to_vec()),
            Just(b"=4".to_vec()),
            Just(b"=G1".to_vec()),
            Just(b"\n".to_vec()),
            Just(b"\r\n".to_vec()),
            Just(b"\r".to_vec()),
            Just(b" ".to_vec()),
            Just(b"\t".to_vec()),
            Just(b"  \r\n".to_vec()),
            Just(b"\xC3\xA9".to_vec()),
            "[a-zA-Z0-9 .]{1,70}".prop_map(String::into_bytes),
            proptest::collection::vec(any::<u8>(), 1..8),
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn decoder_is_the_line_model(input in qp_like()) {
            let d = decode_quoted_printable(&input);
            let (bytes, findings) = model(&input);
            prop_assert_eq!(d.bytes.as_ref(), &bytes[..]);
            prop_assert_eq!(d.findings, findings);
        }
    }

    /// Text lines as a mail body has them, where the line-by-line
    /// encoder's shortcut and its octet-by-octet walk could part: lengths
    /// about the 76-column limit, leading `.` and `From `, trailing
    /// whitespace, `=`, controls and 8-bit octets, CR, LF and CRLF.
    fn text_lines() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            4 => Just(&b"a"[..]),
            2 => Just(&b" "[..]),
            1 => Just(&b"\t"[..]),
            1 => Just(&b"."[..]),
            1 => Just(&b"From "[..]),
            1 => Just(&b"="[..]),
            1 => Just(&b"\xC3\xA9"[..]),
            1 => Just(&b"\x01"[..]),
            1 => Just(&b"\r"[..]),
        ];
        let line = (
            prop::collection::vec(piece, 0..8),
            0usize..90,
            any::<bool>(),
        )
            .prop_map(|(pieces, pad, pad_first)| {
                let mut l: Vec<u8> = pieces.concat();
                let filler = vec![b'x'; pad];
                if pad_first {
                    l.splice(0..0, filler);
                } else {
                    l.extend_from_slice(&filler);
                }
                l
            });
        let eol = prop_oneof![Just(&b"\n"[..]), Just(&b"\r\n"[..]), Just(&b""[..])];
        prop::collection::vec((line, eol), 0..8).prop_map(|ls| {
            ls.into_iter()
                .flat_map(|(l, e)| l.into_iter().chain(e.iter().copied()))
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// Line by line (lines written as they are copied whole) is the
        /// octet-by-octet walk over the whole input, and decodes back.
        #[test]
        fn encoder_line_by_line_is_the_whole_walk(input in text_lines(), crlf in any::<bool>()) {
            let le = if crlf { Newline::Crlf } else { Newline::Lf };
            let mut walk = Vec::new();
            encode_line(&input, le.as_bytes(), &mut walk);
            let enc = encode_quoted_printable(&input, le);
            prop_assert_eq!(&enc, &walk, "{:?}", String::from_utf8_lossy(&input));
            let back = decode_quoted_printable(&enc);
            prop_assert_eq!(back.bytes.as_ref(), &input[..]);
        }
    }

    fn dec(s: &[u8]) -> (Vec<u8>, usize) {
        let d = decode_quoted_printable(s);
        let bad = d.findings.first().map_or(0, |f| f.count);
        (d.bytes.into_owned(), bad)
    }

    /// The literal octets as a table, the model of `is_run`.
    static RUN: [bool; 256] = {
        let mut table = [false; 256];
        let mut b = 0x20;
        while b < 0x7F {
            table[b] = b != b'=' as usize;
            b += 1;
        }
        table[b'\t' as usize] = true;
        table
    };

    #[test]
    fn literal_run_is_the_table_walk() {
        for b in 0..=255u8 {
            assert_eq!(is_run(b), RUN[usize::from(b)], "{b:#04x}");
        }
        // A stop at every position of blocks and remainders, of every kind.
        for len in 0..50 {
            for at in 0..=len {
                for stop in [b'=', b'\n', b'\r', 0x7F, 0x80, 0xFF, 0x00, 0x1F] {
                    let mut v: Vec<u8> = (0..len).map(|k| b' ' + (k % 90) as u8).collect();
                    for b in v.iter_mut().filter(|b| **b == b'=') {
                        *b = b'\t';
                    }
                    if at < len {
                        v[at] = stop;
                    }
                    let walk = v.iter().take_while(|&&b| RUN[usize::from(b)]).count();
                    assert_eq!(literal_run(&v), walk, "len {len} stop {stop:#04x} at {at}");
                }
            }
        }
    }

    #[test]
    fn escapes_and_soft_breaks() {
        assert_eq!(dec(b"a=3Db=3db"), (b"a=b=b".to_vec(), 0));
        assert_eq!(dec(b"caf=C3=A9\r\n"), ("café\r\n".as_bytes().to_vec(), 0));
        assert_eq!(
            dec(b"soft=\r\nbreak=\nhere"),
            (b"softbreakhere".to_vec(), 0)
        );
        assert_eq!(dec(b"soft=  \t\r\nbreak"), (b"softbreak".to_vec(), 0));
        assert_eq!(dec(b"end="), (b"end".to_vec(), 0));
        // CR-only line ends (classic Mac OS): `=` before a bare CR.
        assert_eq!(dec(b"n=\rous\rl=E0 \r"), (b"nous\rl\xe0 \r".to_vec(), 0));
        assert_eq!(dec(b"soft= \t\rbreak"), (b"softbreak".to_vec(), 0));
        assert_eq!(dec(b"end=  "), (b"end".to_vec(), 0));
    }

    #[test]
    fn trailing_whitespace_and_line_endings() {
        assert_eq!(dec(b"a  \r\nb\t\nc "), (b"a\r\nb\nc".to_vec(), 0));
        assert_eq!(dec(b"a=20\r\n"), (b"a \r\n".to_vec(), 0));
        assert_eq!(dec(b"lone\rcr\r"), (b"lone\rcr\r".to_vec(), 0));
        assert!(matches!(
            decode_quoted_printable(b"plain\r\ntext\n").bytes,
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn bad_escapes_kept() {
        assert_eq!(dec(b"a=G1b"), (b"a=G1b".to_vec(), 1));
        assert_eq!(dec(b"==41"), (b"=A".to_vec(), 1));
        assert_eq!(dec(b"x=4\ny= z"), (b"x=4\ny= z".to_vec(), 2));
        let d = decode_quoted_printable(b"ab=3D=zz");
        assert_eq!(d.findings.len(), 1);
        assert_eq!(d.findings[0].offset, 3);
        let note = d.findings[0].note.as_deref().unwrap_or("");
        assert!(note.contains("encoded offset 5"), "{note}");
    }

    #[test]
    fn encoder_rules() {
        let enc = |s: &[u8], le| String::from_utf8(encode_quoted_printable(s, le)).unwrap();
        assert_eq!(enc(b"a=b", Newline::Lf), "a=3Db");
        assert_eq!(enc("café\n".as_bytes(), Newline::Lf), "caf=C3=A9\n");
        assert_eq!(enc(b"end \nx\t", Newline::Lf), "end=20\nx=09");
        assert_eq!(enc(b"a\r\nb", Newline::Lf), "a=0D\nb");
        assert_eq!(enc(b"a\nb\r\n", Newline::Crlf), "a=0Ab\r\n");
        assert_eq!(
            enc(b".\nFrom me\nFrom", Newline::Lf),
            "=2E\n=46rom me\nFrom"
        );
        let long = [b'x'; 80];
        let e = enc(&long, Newline::Crlf);
        assert_eq!(e, format!("{}=\r\n{}", "x".repeat(75), "x".repeat(5)));
        // A 76-character line needs no soft break.
        assert_eq!(enc(&long[..76], Newline::Lf), "x".repeat(76));
        // An escape is never split: 74 x then é goes to the next line.
        let mut s = vec![b'x'; 74];
        s.extend_from_slice("é".as_bytes());
        assert_eq!(enc(&s, Newline::Lf), format!("{}=\n=C3=A9", "x".repeat(74)));
    }
}
