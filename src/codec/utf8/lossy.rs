//! Lossy UTF-8 decoding: one U+FFFD per maximal subpart (WHATWG, Unicode
//! 3.9), borrowed when nothing needed replacing, with a report of every
//! error kind and where it first occurred; the streaming decoder
//! ([`Utf8Decoder`]) whose step `codec::simd` compiles inside its AVX2
//! function; CESU-8 repair.

use super::*;

/// Per-kind counts and first offsets of the errors met while decoding.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DecodeReport {
    /// `(kind, first offset, count)` in order of first occurrence. A count is
    /// of ill-formed sequences (see the module docs), not of replacements.
    pub errors: Vec<(ErrorKind, usize, usize)>,
    /// Number of U+FFFD written.
    pub replacements: usize,
}

impl DecodeReport {
    /// No errors were met.
    #[must_use]
    pub fn is_clean(&self) -> bool {
        self.errors.is_empty()
    }
    pub(crate) fn record(&mut self, kind: ErrorKind, offset: usize) {
        self.record_many(kind, offset, 1);
    }
    /// `n` errors of `kind`, the first at `offset`, in whatever order they
    /// are met (the kind's offset stays its first).
    pub(crate) fn record_many(&mut self, kind: ErrorKind, offset: usize, n: usize) {
        if let Some(e) = self.errors.iter_mut().find(|e| e.0 == kind) {
            e.1 = e.1.min(offset);
            e.2 += n;
        } else {
            self.errors.push((kind, offset, n));
        }
    }
}

/// Where decoded UTF-8 goes: a byte buffer (validated once at the end) or a
/// `String` (validated chunk by chunk).
pub(crate) trait Sink {
    /// `bytes` is well-formed UTF-8.
    fn push_valid(&mut self, bytes: &[u8]);
    fn push_replacement(&mut self);
}

impl Sink for Vec<u8> {
    fn push_valid(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
    fn push_replacement(&mut self) {
        self.extend_from_slice(REPLACEMENT);
    }
}

impl Sink for String {
    fn push_valid(&mut self, bytes: &[u8]) {
        match simdutf8::basic::from_utf8(bytes) {
            Ok(s) => self.push_str(s),
            // Unreachable: callers only pass well-formed bytes.
            Err(_) => self.push_str(&String::from_utf8_lossy(bytes)),
        }
    }
    fn push_replacement(&mut self) {
        self.push('\u{FFFD}');
    }
}

/// An announced sequence being collected after its lead octet failed.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Absorb {
    start: usize,
    seq: [u8; SEQ_KEEP],
    kept: u8,
    /// Continuation octets still announced.
    need: u8,
}

/// Streaming lossy UTF-8 decoder. Feeding the input in pieces split at any
/// byte gives the same text and the same report as [`decode_lossy_with_report`].
#[derive(Clone, Debug, Default)]
pub struct Utf8Decoder {
    /// A well-formed prefix cut by the end of the previous piece.
    pending: [u8; 4],
    pending_len: u8,
    absorb: Option<Absorb>,
    /// Offset of a complete high-surrogate form not yet recorded.
    high_surrogate: Option<usize>,
    /// Stream offset of the start of the next piece.
    offset: usize,
    report: DecodeReport,
}

impl Utf8Decoder {
    #[must_use]
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Most bytes [`decode`](Self::decode) can append for `src_len` input
    /// bytes (each input byte, plus up to three held back, can become a
    /// three-byte U+FFFD).
    #[must_use]
    pub fn max_utf8_len(src_len: usize) -> Option<usize> {
        src_len.checked_add(4)?.checked_mul(3)
    }

    /// Decodes `src`, appending to `dst`; `last` says no input follows.
    /// Returns `(read, written)`: all of `src` is always read (an incomplete
    /// sequence at its end is held until the next call), `written` is the
    /// number of bytes appended to `dst`.
    #[must_use]
    pub fn decode(&mut self, src: &[u8], dst: &mut String, last: bool) -> (usize, usize) {
        let before = dst.len();
        self.run(src, dst, last);
        (src.len(), dst.len() - before)
    }

    /// What has been met so far (complete once a call with `last` was made).
    #[must_use]
    pub fn report(&self) -> &DecodeReport {
        &self.report
    }

    /// The report, consuming the decoder.
    #[must_use]
    pub fn into_report(self) -> DecodeReport {
        self.report
    }

    fn note(&mut self, kind: ErrorKind, offset: usize) {
        if let Some(high) = self.high_surrogate.take() {
            self.report.record(ErrorKind::Surrogate, high);
        }
        self.report.record(kind, offset);
    }

    fn replace<S: Sink>(&mut self, out: &mut S) {
        out.push_replacement();
        self.report.replacements += 1;
    }

    /// Names and records the collected announced sequence.
    fn finish_absorb(&mut self) {
        let Some(a) = self.absorb.take() else {
            return;
        };
        let seq = &a.seq[..usize::from(a.kept)];
        let kind = if seq.len() < 2 {
            seq.first()
                .map_or(ErrorKind::InvalidByte, |&b| lone_kind(b))
        } else {
            sequence_kind(seq).unwrap_or(ErrorKind::Truncated)
        };
        match surrogate_half(seq) {
            Some(true) => {
                if let Some(high) = self.high_surrogate.take() {
                    self.report.record(ErrorKind::Surrogate, high);
                }
                self.high_surrogate = Some(a.start);
            }
            Some(false) if a.start >= 3 && self.high_surrogate == Some(a.start - 3) => {
                self.high_surrogate = None;
                self.report.record(ErrorKind::SurrogatePair, a.start - 3);
            }
            _ => self.note(kind, a.start),
        }
    }

    /// Handles an ill-formed maximal subpart `subpart` at stream offset `at`.
    fn on_invalid<S: Sink>(&mut self, subpart: &[u8], at: usize, out: &mut S) {
        self.replace(out);
        match subpart {
            [lead] if *lead >= 0xC0 => {
                let mut seq = [0; SEQ_KEEP];
                seq[0] = *lead;
                self.absorb = Some(Absorb {
                    start: at,
                    seq,
                    kept: 1,
                    need: announced_len(*lead) - 1,
                });
            }
            [b, ..] if is_cont(*b) => self.note(ErrorKind::UnexpectedContinuation, at),
            _ => self.note(ErrorKind::Truncated, at),
        }
    }

    fn run<S: Sink>(&mut self, src: &[u8], out: &mut S, last: bool) {
        if !crate::codec::simd::decoder_run(self, src, out, last) {
            self.run_with(src, out, last, &|_| 0);
        }
    }

    /// [`Self::run`] with the SIMD pass given; `codec::simd` instantiates it
    /// inside its AVX2 function, as it does [`lossy_blocks`].
    #[inline(always)]
    pub(crate) fn run_with<S: Sink>(
        &mut self,
        src: &[u8],
        out: &mut S,
        last: bool,
        clean_prefix: &impl Fn(&[u8]) -> usize,
    ) {
        let base = self.offset;
        let mut pos = 0;
        while pos < src.len() {
            // Continuation octets completing an announced sequence.
            if let Some(a) = &mut self.absorb {
                let b = src[pos];
                if a.need > 0 && is_cont(b) {
                    if usize::from(a.kept) < SEQ_KEEP {
                        a.seq[usize::from(a.kept)] = b;
                        a.kept += 1;
                    }
                    a.need -= 1;
                    pos += 1;
                    self.replace(out);
                    continue;
                }
                self.finish_absorb();
            }
            // A well-formed prefix held from the previous piece.
            if self.pending_len > 0 {
                let n = usize::from(self.pending_len);
                let start = base + pos - n;
                let mut buf = self.pending;
                buf[n] = src[pos];
                match step(&buf[..=n]) {
                    Step::Valid(_) => {
                        out.push_valid(&buf[..=n]);
                        self.pending_len = 0;
                        pos += 1;
                    }
                    Step::Incomplete => {
                        self.pending = buf;
                        self.pending_len += 1;
                        pos += 1;
                    }
                    Step::Invalid(_) => {
                        // Only the new octet can break a well-formed prefix.
                        self.pending_len = 0;
                        self.on_invalid(&buf[..n], start, out);
                    }
                }
                continue;
            }
            let rest = &src[pos..];
            let found = scan_with(rest, clean_prefix);
            out.push_valid(&rest[..found.valid]);
            pos += found.valid;
            let rest = &src[pos..];
            match found.error_len {
                None => {
                    // A well-formed prefix (at most three octets) cut short.
                    if let Some(held) = self.pending.get_mut(..rest.len()) {
                        held.copy_from_slice(rest);
                        self.pending_len = rest.len() as u8;
                    }
                    pos = src.len();
                }
                Some(n) => {
                    self.on_invalid(&rest[..n], base + pos, out);
                    pos += n;
                    // A run of stray continuation octets, one U+FFFD each.
                    if self.absorb.is_none() {
                        while src.get(pos).is_some_and(|&b| is_cont(b)) {
                            self.replace(out);
                            self.note(ErrorKind::UnexpectedContinuation, base + pos);
                            pos += 1;
                        }
                    }
                }
            }
        }
        self.offset = base + src.len();
        if last {
            if self.pending_len > 0 {
                let start = self.offset - usize::from(self.pending_len);
                self.pending_len = 0;
                self.replace(out);
                self.note(ErrorKind::Truncated, start);
            }
            self.finish_absorb();
            if let Some(high) = self.high_surrogate.take() {
                self.report.record(ErrorKind::Surrogate, high);
            }
        }
    }
}

/// Room for the output of decoding `src` lossily, in the common case.
pub(crate) fn reserve_for(buf: &mut Vec<u8>, src: &[u8]) {
    buf.reserve(src.len() + src.len() / 8 + 16);
}

/// Inputs this long get a probe of their first 1/64 before the full check.
pub(crate) const PROBE_MIN: usize = 64 << 10;

/// `Ok` when all of `src` is valid, else the length of a valid prefix that
/// ends on a character boundary (the decoder starts there).
///
/// simdutf8's `basic` check is the fastest on valid input but always reads
/// to the end; `compat` stops at the first error but is ~5% slower on valid
/// input. Text that is broken is usually broken early (a legacy charset
/// under a UTF-8 label), so a large input is first probed with `basic` on
/// its first 1/64: a failed probe goes straight to the decoder, a passed
/// one costs under 2% more.
pub(crate) fn first_error(src: &[u8]) -> Result<&str, usize> {
    let valid_up_to = |bytes: &[u8]| match simdutf8::compat::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) => e.valid_up_to(),
    };
    if src.len() >= PROBE_MIN {
        // End the probe on a character boundary if the text is valid there.
        let mut k = src.len() / 64;
        for _ in 0..3 {
            if src.get(k).is_some_and(|&b| is_cont(b)) {
                k -= 1;
            }
        }
        let probe = &src[..k];
        if simdutf8::basic::from_utf8(probe).is_err() {
            // A well-formed prefix cut by the probe's end is a valid prefix
            // too, ending on a boundary.
            return Err(valid_up_to(probe));
        }
    }
    simdutf8::basic::from_utf8(src).map_err(|_| valid_up_to(src))
}

/// Decodes UTF-8, writing one U+FFFD per maximal subpart (Unicode ch. 3,
/// WHATWG). Borrows when the input is valid.
#[must_use]
pub fn decode_lossy(src: &[u8]) -> Cow<'_, str> {
    let valid = match first_error(src) {
        Ok(s) => return Cow::Borrowed(s),
        Err(at) => at,
    };
    // Without a report, the text is the valid runs between maximal
    // subparts, one U+FFFD for each (as `str::Utf8Chunks` cuts them),
    // written into the String's own buffer: no copy at the end.
    let mut buf = Vec::new();
    reserve_for(&mut buf, src);
    let (head, rest) = src.split_at(valid.min(src.len()));
    buf.extend_from_slice(head);
    if !crate::codec::simd::lossy_into(rest, &mut buf) {
        lossy_into(rest, &mut buf);
    }
    Cow::Owned(owned_string(buf))
}

/// Bytes the decoder wrote (well-formed by construction) as a String,
/// without a copy.
fn owned_string(bytes: Vec<u8>) -> String {
    match crate::codec::simd::string_from_utf8(bytes) {
        Ok(s) => s,
        // Unreachable: the decoder only writes well-formed UTF-8.
        Err(b) => String::from_utf8_lossy(&b).into_owned(),
    }
}

/// Appends the lossy decoding of `src` (which starts on a character
/// boundary) to `buf` with the scalar walker alone: the valid runs between
/// maximal subparts, one U+FFFD for each (as `str::Utf8Chunks` cuts them).
/// Where the CPU has no AVX2, and for what [`lossy_blocks`] leaves after
/// its last whole block.
pub(crate) fn lossy_into(src: &[u8], buf: &mut Vec<u8>) {
    let mut at = 0;
    while at < src.len() {
        let rest = &src[at..];
        let found = scan_with(rest, &|_| 0);
        let valid = found.valid.min(rest.len());
        buf.extend_from_slice(&rest[..valid]);
        at += valid;
        if at == src.len() {
            break;
        }
        buf.extend_from_slice(REPLACEMENT);
        // No error length: a well-formed prefix cut by the end.
        at = (at + found.error_len.unwrap_or(src.len() - at)).min(src.len());
        at = replace_strays(src, at, buf);
    }
}

/// Stray continuation octets at `at` (after a maximal subpart or a whole
/// character): each a maximal subpart of its own, one U+FFFD each.
/// Returns the offset after them.
#[inline(always)]
fn replace_strays(src: &[u8], mut at: usize, buf: &mut Vec<u8>) -> usize {
    while src.get(at).is_some_and(|&b| is_cont(b)) {
        buf.extend_from_slice(REPLACEMENT);
        at += 1;
    }
    at
}

/// The lossy loop over whole 64-octet blocks, for a SIMD pass that flags
/// errors block by block (`codec::simd` instantiates it inside its AVX2
/// function). `flags` is called once on each block of `src`, in order (it
/// keeps the previous block as context, as if `src` started after zeros),
/// and returns a bit for each octet that may be in error. The loop needs
/// only that no error goes unflagged: from a point where the flags are
/// exact (see [`repair`]), no flag before octet `i` means `src[..i]` is
/// well-formed except perhaps for a sequence cut short at `i`. A spurious
/// flag costs a scalar look, never a different output.
///
/// The SIMD pass runs on across errors (no restart, no new tables; the
/// scanner [`scan_with`] restarts it after each error, which on text
/// broken every hundred octets cost more than the errors themselves): a
/// flag sends [`fix`] to the few octets around it, and the flags it
/// stepped over are masked. Clean blocks are copied whole; what is left
/// after the last whole block is the scalar loop's ([`lossy_into`]). The
/// output is [`lossy_into`]'s, octet for octet.
#[inline(always)]
pub(crate) fn lossy_blocks(src: &[u8], buf: &mut Vec<u8>, mut flags: impl FnMut(&[u8; 64]) -> u64) {
    // `buf` holds the output for `src[..copied]` (whole blocks are copied
    // as they come: octets of a character cut by a block end are taken
    // back if it turns out broken); flags at octets from `trusted` on are
    // exact.
    let mut copied = 0;
    let mut trusted = 0;
    let mut pos = 0;
    // The flags of up to BATCH blocks are computed first, in a loop with
    // nothing else in it (the SIMD state stays in registers), then the
    // blocks are copied and the errors among them repaired.
    const BATCH: usize = 8;
    let mut masks = [0u64; BATCH];
    let whole = src.len() - src.len() % 64;
    while pos < whole {
        let batch = src.get(pos..whole).unwrap_or_default();
        let batch = batch.get(..BATCH * 64).unwrap_or(batch);
        for (block, mask) in batch.chunks_exact(64).zip(&mut masks) {
            if let Ok(block) = <&[u8; 64]>::try_from(block) {
                *mask = flags(block);
            }
        }
        for (block, &mask) in batch.chunks_exact(64).zip(&masks) {
            let mut mask = mask & lanes_from(trusted, pos);
            while mask != 0 {
                let i = pos + mask.trailing_zeros() as usize;
                trusted = match fix(src, i, trusted, &mut copied, buf) {
                    Some(s) => s,
                    None => return,
                };
                mask &= lanes_from(trusted, pos);
            }
            let end = pos + 64;
            if copied == pos
                && let Ok(block) = <&[u8; 64]>::try_from(block)
            {
                buf.extend_from_slice(block);
                copied = end;
            } else if copied < end {
                put(buf, src, &mut copied, end);
            }
            pos = end;
        }
    }
    // The last character boundary before the rest (at most three octets
    // back), or the point repair reached.
    let from = lead_before(src, pos).max(trusted);
    put(buf, src, &mut copied, from);
    lossy_into(src.get(from..).unwrap_or_default(), buf);
}

/// The lanes of the block at `pos` that are at or after `trusted`.
#[inline(always)]
fn lanes_from(trusted: usize, pos: usize) -> u64 {
    match trusted.checked_sub(pos) {
        None | Some(0) => u64::MAX,
        Some(n) => u64::MAX.checked_shl(n as u32).unwrap_or(0),
    }
}

/// Makes `buf` hold the output for `src[..to]`, from the output for
/// `src[..copied]`: copies `src[copied..to]` (one fixed-size copy, its
/// excess cut off, when it is short), or takes back what was copied past
/// `to` (octets copied verbatim since the last error).
#[inline(always)]
fn put(buf: &mut Vec<u8>, src: &[u8], copied: &mut usize, to: usize) {
    let from = *copied;
    *copied = to;
    if to <= from {
        buf.truncate(buf.len().saturating_sub(from - to));
        return;
    }
    if to - from <= 64
        && let Some(Ok(chunk)) = src.get(from..from + 64).map(<&[u8; 64]>::try_from)
    {
        buf.extend_from_slice(chunk);
        buf.truncate(buf.len() - (64 - (to - from)));
        return;
    }
    buf.extend_from_slice(src.get(from..to).unwrap_or_default());
}

/// The error [`lossy_blocks`] sees flagged at octet `i` (the first flag at
/// or after `trusted`): the two commonest shapes in line (a lead octet
/// cut short by an octet that cannot continue it, stray continuation
/// octets after a character), the rest by [`repair`]. Returns what
/// [`repair`] does.
#[inline(always)]
fn fix(
    src: &[u8],
    i: usize,
    trusted: usize,
    copied: &mut usize,
    buf: &mut Vec<u8>,
) -> Option<usize> {
    // The octet before, where the flags were exact (`i` is a character
    // boundary or inside a well-formed prefix cut at `i`).
    let before = if i > trusted { src.get(i - 1) } else { None };
    let (start, end) = match (before, src.get(i)) {
        // A lead octet followed by one that cannot continue it: a maximal
        // subpart of one octet.
        (Some(&lead), Some(&b)) if lead >= 0xC0 && !is_cont(b) => (i - 1, i),
        // A continuation octet after a whole character.
        (None, Some(&b)) if is_cont(b) => (i, i + 1),
        (Some(&a), Some(&b)) if a < 0x80 && is_cont(b) => (i, i + 1),
        _ => return repair(src, lead_before(src, i).max(trusted), i + 1, copied, buf),
    };
    put(buf, src, copied, start);
    buf.extend_from_slice(REPLACEMENT);
    let end = replace_strays(src, end, buf);
    *copied = end;
    // Three ASCII octets after the error make the flags exact again.
    match src.get(end..end + 3) {
        Some(&[a, b, c]) if (a | b | c) < 0x80 => Some(end + 3),
        _ => repair(src, end, end + 3, copied, buf),
    }
}

/// The scalar part of [`lossy_blocks`]: from a character boundary `q`
/// (octets `copied..q` well-formed, `buf` holding the output up to
/// `copied`), where the flags say an error lies before `target`, walks
/// characters with [`step`], writes each ill-formed maximal subpart as a
/// U+FFFD (and the stray continuation octets after it, one each), and
/// stops at the first character boundary at or after `target` and at
/// least three octets after the last error: the flags from there on are
/// exact again, because the octets they look back at (at most three) are
/// whole well-formed characters, which announce nothing beyond
/// themselves. Returns that boundary, or `None` when the walk reached the
/// end of `src` (everything is then written).
#[inline]
fn repair(
    src: &[u8],
    mut q: usize,
    mut target: usize,
    copied: &mut usize,
    buf: &mut Vec<u8>,
) -> Option<usize> {
    loop {
        let rest = src.get(q..).unwrap_or_default();
        // An octet that never occurs in UTF-8 (C0, C1, F5..FF) is a
        // maximal subpart of one octet: the commonest damage.
        let found = match rest.first() {
            Some(&b) if b < 0x80 => Step::Valid(1),
            Some(&b) if b == 0xC0 || b == 0xC1 || b >= 0xF5 => Step::Invalid(1),
            _ => step(rest),
        };
        match found {
            Step::Valid(k) => {
                q += usize::from(k);
                if q >= target {
                    return Some(q);
                }
            }
            Step::Incomplete => {
                put(buf, src, copied, q);
                if q < src.len() {
                    // A well-formed prefix cut by the end.
                    buf.extend_from_slice(REPLACEMENT);
                }
                *copied = src.len();
                return None;
            }
            Step::Invalid(n) => {
                put(buf, src, copied, q);
                buf.extend_from_slice(REPLACEMENT);
                q = replace_strays(src, q + usize::from(n), buf);
                *copied = q;
                target = target.max(q + 3);
            }
        }
    }
}

/// U+FFFD in UTF-8.
pub(crate) const REPLACEMENT: &[u8] = "\u{FFFD}".as_bytes();

/// Lossy decoding plus a report of what was replaced.
#[must_use]
pub fn decode_lossy_with_report(src: &[u8]) -> (Cow<'_, str>, DecodeReport) {
    let valid = match first_error(src) {
        Ok(s) => return (Cow::Borrowed(s), DecodeReport::default()),
        Err(at) => at.min(src.len()),
    };
    let mut buf = Vec::new();
    reserve_for(&mut buf, src);
    buf.extend_from_slice(&src[..valid]);
    let mut dec = Utf8Decoder::new();
    dec.offset = valid;
    dec.run(&src[valid..], &mut buf, true);
    (Cow::Owned(owned_string(buf)), dec.into_report())
}

/// Repairs CESU-8 (Unicode TR #26): UTF-8 in which a supplementary
/// character was written as its UTF-16 surrogate pair, two 3-octet
/// sequences (`ED A0..AF xx ED B0..BF xx`). Each such pair becomes the
/// 4-octet form of its character. Returns the text only when that leaves
/// well-formed UTF-8 and there was at least one pair; anything else
/// ill-formed (a lone surrogate, an overlong form, a stray octet) gives
/// `None`, so a repair never hides other damage.
#[must_use]
pub fn repair_cesu8(src: &[u8]) -> Option<String> {
    let cont = |b: u8| b & 0xC0 == 0x80;
    let mut out = Vec::with_capacity(src.len());
    let mut pairs = 0usize;
    let mut rest = src;
    while let Some(i) = memchr::memchr(0xED, rest) {
        let (head, tail) = rest.split_at(i);
        out.extend_from_slice(head);
        match tail {
            [0xED, h1 @ 0xA0..=0xAF, h2, 0xED, l1 @ 0xB0..=0xBF, l2, ..]
                if cont(*h2) && cont(*l2) =>
            {
                let hi = 0xD800 | (u32::from(h1 & 0x0F) << 6) | u32::from(h2 & 0x3F);
                let lo = 0xDC00 | (u32::from(l1 & 0x0F) << 6) | u32::from(l2 & 0x3F);
                let c = char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?;
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                pairs += 1;
                rest = &tail[6..];
            }
            _ => {
                out.push(0xED);
                rest = &tail[1..];
            }
        }
    }
    out.extend_from_slice(rest);
    if pairs == 0 {
        return None;
    }
    String::from_utf8(out).ok()
}
