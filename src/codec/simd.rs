//! The one module with `unsafe`: a SIMD pass that finds how far a byte
//! string is certainly well-formed, so that the lossy decoder's scalar
//! walker only looks at the few octets around each error.
//!
//! Why it exists: decoding broken text (one bad octet per hundred) spends
//! its time finding the next error. The scalar walker in `utf8.rs` does one
//! table step per octet; on Latin, CJK and emoji text that was no faster
//! than `String::from_utf8_lossy` (doc/bench-log.md, "Codec"). simdutf8 does
//! not help there: it answers "valid or not" for a whole input and, for the
//! position, falls back to a scalar pass, once per error.
//!
//! The check is the one of Keiser and Lemire, "Validating UTF-8 In Less Than
//! One Instruction Per Byte" (2021), also used by simdjson and simdutf8:
//! three nibble lookups classify every pair of adjacent octets, and a
//! saturating subtraction marks the octets that must be third or fourth in a
//! sequence. Every error sets a bit in the lane of the octet where a
//! left-to-right reader first sees it (the second octet of a bad pair, the
//! octet that should have continued a sequence), and every check looks at
//! most three octets back. Hence the guarantee [`clean_prefix`] rests on:
//! when no lane before `p` is flagged, `src[..p]` is well-formed UTF-8
//! except perhaps for a sequence cut short at its end.
//!
//! The end of the input (what is left after whole blocks, and whether a
//! sequence is cut short there) is the scalar walker's job.
//!
//! The decoder's loops (`utf8::lossy_blocks`, `Utf8Decoder::run_with`) are
//! generic over the pass and instantiated here, inside `avx2` functions, so
//! that the pass is inlined and its tables are built once per call rather
//! than once per error. `lossy_blocks` (`decode_lossy`) takes the error
//! lanes of every 64-octet block in order, the previous block as context,
//! and never restarts the pass; `run_with` (the decoder with a report)
//! asks [`clean_prefix`] again after each error.
//!
//! Safety: `unsafe` is used for three things only, each with its own
//! `SAFETY` note: calling an AVX2 function after the CPU was checked for
//! AVX2 (the decoder's loops, and [`with_avx2`] for safe loops the compiler
//! vectorizes; SSE2 for [`line_ends`], which every x86_64 CPU has), unaligned
//! loads of 32 octets from a `&[u8; 32]` (and of 16 from a 64-octet block
//! in [`line_ends`]), and
//! [`string_from_utf8`]: a `Vec<u8>` that simdutf8 has just validated
//! becomes a `String` without a copy (std's `String::from_utf8` validates
//! with a scalar pass; copying after simdutf8 costs a second pass and an
//! allocation: 18% of `decode_lossy` on mixed text in the profile).
//! Everything else is safe intrinsics inside an `avx2` or `sse2` function
//! (Rust 1.87 and later), but one: [`prefetch`], a
//! cache hint that cannot fault (the archive pipeline's workers read
//! messages another core wrote).
#![allow(unsafe_code)]

use super::utf8::{Sink, Utf8Decoder};

/// How many leading octets of `src` are certainly well-formed UTF-8, except
/// perhaps for a sequence cut short at that point: a multiple of 32 where
/// no error was seen, or the position of the first octet where one was. The
/// caller goes on from the last character boundary before that point.
///
/// Returns 0 (no information) where the CPU has no AVX2.
#[cfg(test)]
pub(super) fn clean_prefix(src: &[u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above; that is
            // the only requirement of this `target_feature` function.
            return unsafe { avx2::clean_prefix(src) };
        }
    }
    let _ = src;
    0
}

/// `bytes` as a String when they are UTF-8 (validated here by simdutf8,
/// vectorized), without copying them; the bytes back when they are not.
pub(crate) fn string_from_utf8(bytes: Vec<u8>) -> Result<String, Vec<u8>> {
    if simdutf8::basic::from_utf8(&bytes).is_err() {
        return Err(bytes);
    }
    // SAFETY: simdutf8 has just validated all of `bytes` as UTF-8 (the same
    // definition as std's: RFC 3629, no surrogates, no overlong forms),
    // which is the only requirement of `from_utf8_unchecked`.
    Ok(unsafe { String::from_utf8_unchecked(bytes) })
}

/// Runs the lossy decoder's block loop ([`super::utf8::lossy_blocks`])
/// compiled for AVX2, with the SIMD pass inlined; false (nothing written)
/// where the CPU has no AVX2.
pub(super) fn lossy_into(src: &[u8], buf: &mut Vec<u8>) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above; that is
            // the only requirement of this `target_feature` function.
            unsafe { avx2::lossy_into(src, buf) };
            return true;
        }
    }
    let _ = (src, buf);
    false
}

/// Runs the streaming decoder's step ([`Utf8Decoder::run_with`]) compiled
/// for AVX2; false (nothing done) where the CPU has no AVX2.
pub(super) fn decoder_run<S: Sink>(
    dec: &mut Utf8Decoder,
    src: &[u8],
    out: &mut S,
    last: bool,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above; that is
            // the only requirement of this `target_feature` function.
            unsafe { avx2::decoder_run(dec, src, out, last) };
            return true;
        }
    }
    let _ = (dec, src, out, last);
    false
}

/// Whether every octet of `bytes` is ASCII. 128 octets a step, OR-ed
/// together and tested once (AVX2 where the CPU has it): every body is
/// asked, some twice, and `<[u8]>::is_ascii` goes a word at a time (this
/// took 1% off the normalize worker's instructions on the linux-mips
/// mbox, 0.3% off audit's).
pub(crate) fn is_ascii(bytes: &[u8]) -> bool {
    with_avx2(|| is_ascii_in(bytes))
}

#[inline]
fn is_ascii_in(bytes: &[u8]) -> bool {
    let mut blocks = bytes.chunks_exact(128);
    for block in blocks.by_ref() {
        if block.iter().fold(0u8, |acc, &b| acc | b) >= 0x80 {
            return false;
        }
    }
    blocks.remainder().is_ascii()
}

/// One pass over `bytes` (AVX2 where the CPU has it): whether `flag` holds
/// for any octet, and `bytes` as text when every octet is ASCII (borrowed
/// without the second pass a validation would make). The scan stops at
/// the 512-octet block by which both answers are known to be "yes" and
/// "not ASCII". `flag` should be branch-free so that it vectorizes.
pub(crate) fn flag_and_ascii(
    bytes: &[u8],
    flag: impl Fn(u8) -> bool + Copy,
) -> (bool, Option<&str>) {
    let (flagged, high) = with_avx2(
        #[inline]
        || {
            let (mut flagged, mut high) = (false, 0u8);
            for c in bytes.chunks(512) {
                let (f, or) = c
                    .iter()
                    .fold((false, 0u8), |(f, or), &b| (f | flag(b), or | b));
                flagged |= f;
                high |= or;
                if flagged && high >= 0x80 {
                    break;
                }
            }
            (flagged, high)
        },
    );
    // SAFETY: every octet of `bytes` is below 0x80 (their OR is, over the
    // whole slice: the loop stops early only once one is not), and ASCII is
    // valid UTF-8.
    let text = (high < 0x80).then(|| unsafe { std::str::from_utf8_unchecked(bytes) });
    (flagged, text)
}

/// `bytes` as text when every octet is ASCII, in one pass ([`flag_and_ascii`]
/// with a flag that always holds: it stops at the first block with an
/// 8-bit octet).
pub(crate) fn ascii_str(bytes: &[u8]) -> Option<&str> {
    flag_and_ascii(bytes, |_| true).1
}

/// `f()` compiled for AVX2 where the CPU has it, else as it is: for plain
/// safe loops the compiler vectorizes (a scan for control octets over every
/// body), which then run 32 octets wide instead of SSE2's 16. `f` and what
/// it calls should be `#[inline]` so that they are compiled into the AVX2
/// function; otherwise they run as plain code (correct, only slower).
pub(crate) fn with_avx2<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above; that is
            // the only requirement of this `target_feature` function.
            return unsafe { avx2::run(f) };
        }
    }
    f()
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Sink, Utf8Decoder};
    use std::arch::x86_64::{
        __m256i, _mm256_alignr_epi8, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256,
        _mm256_movemask_epi8, _mm256_or_si256, _mm256_permute2x128_si256, _mm256_set1_epi8,
        _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_srli_epi16, _mm256_subs_epu8,
        _mm256_xor_si256,
    };

    // What a pair of octets (previous, current) can be wrong with; one bit
    // each. A pair is in error when all three lookups agree on a bit.
    const TOO_SHORT: u8 = 1 << 0; // 11______ 0_______ | 11______ 11______
    const TOO_LONG: u8 = 1 << 1; // 0_______ 10______
    const OVERLONG_3: u8 = 1 << 2; // 11100000 100_____
    const TOO_LARGE: u8 = 1 << 3; // 11110100 1001____ and above
    const SURROGATE: u8 = 1 << 4; // 11101101 101_____
    const OVERLONG_2: u8 = 1 << 5; // 1100000_ 10______
    const TOO_LARGE_1000: u8 = 1 << 6; // 11110101 1000____ and above
    const OVERLONG_4: u8 = 1 << 6; // 11110000 1000____
    const TWO_CONTS: u8 = 1 << 7; // 10______ 10______
    const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;

    /// By the high nibble of the previous octet.
    const PREV_HIGH: [u8; 16] = [
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TWO_CONTS,
        TWO_CONTS,
        TWO_CONTS,
        TWO_CONTS,
        TOO_SHORT | OVERLONG_2,
        TOO_SHORT,
        TOO_SHORT | OVERLONG_3 | SURROGATE,
        TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
    ];

    /// By the low nibble of the previous octet.
    const PREV_LOW: [u8; 16] = [
        CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
        CARRY | OVERLONG_2,
        CARRY,
        CARRY,
        CARRY | TOO_LARGE,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
    ];

    /// By the high nibble of the current octet.
    const CUR_HIGH: [u8; 16] = [
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
    ];

    /// A 16-entry table in both 128-bit lanes, for `vpshufb`.
    #[target_feature(enable = "avx2")]
    fn table(t: &[u8; 16]) -> __m256i {
        let mut both = [0u8; 32];
        both[..16].copy_from_slice(t);
        both[16..].copy_from_slice(t);
        load(&both)
    }

    #[target_feature(enable = "avx2")]
    fn load(chunk: &[u8; 32]) -> __m256i {
        // SAFETY: `chunk` is 32 readable octets, the size of `__m256i`;
        // `loadu` has no alignment requirement.
        unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) }
    }

    /// `input` moved up by N octets, the last N of `prev` coming in below
    /// (`vpalignr` works within 128-bit lanes, hence the permute).
    macro_rules! shifted {
        ($input:expr, $prev:expr, $n:literal) => {
            _mm256_alignr_epi8::<{ 16 - $n }>(
                $input,
                _mm256_permute2x128_si256::<0x21>($prev, $input),
            )
        };
    }

    /// A lookup of each octet's nibble in a broadcast 16-entry table.
    #[target_feature(enable = "avx2")]
    fn nibble_lookup(table: __m256i, nibbles: __m256i) -> __m256i {
        _mm256_shuffle_epi8(table, nibbles)
    }

    /// The error lanes of 32 octets after `prev` (the 32 before them, or
    /// zeros at a character boundary).
    #[target_feature(enable = "avx2")]
    fn errors(input: __m256i, prev: __m256i, tables: &[__m256i; 3]) -> __m256i {
        let low = _mm256_set1_epi8(0x0F);
        let prev1 = shifted!(input, prev, 1);
        let prev_high = nibble_lookup(
            tables[0],
            _mm256_and_si256(_mm256_srli_epi16::<4>(prev1), low),
        );
        let prev_low = nibble_lookup(tables[1], _mm256_and_si256(prev1, low));
        let cur_high = nibble_lookup(
            tables[2],
            _mm256_and_si256(_mm256_srli_epi16::<4>(input), low),
        );
        let special = _mm256_and_si256(_mm256_and_si256(prev_high, prev_low), cur_high);
        // Octets that must be the third (two after E0..FF) or the fourth
        // (three after F0..FF) of a sequence get 0x80; `special` has
        // TWO_CONTS there exactly when they are continuation octets, so
        // the XOR leaves a bit where the two disagree.
        let prev2 = shifted!(input, prev, 2);
        let prev3 = shifted!(input, prev, 3);
        let third = _mm256_subs_epu8(prev2, _mm256_set1_epi8((0xE0u8 - 0x80) as i8));
        let fourth = _mm256_subs_epu8(prev3, _mm256_set1_epi8((0xF0u8 - 0x80) as i8));
        let must = _mm256_and_si256(
            _mm256_or_si256(third, fourth),
            _mm256_set1_epi8(0x80u8 as i8),
        );
        _mm256_xor_si256(must, special)
    }

    #[target_feature(enable = "avx2")]
    fn tables() -> [__m256i; 3] {
        [table(&PREV_HIGH), table(&PREV_LOW), table(&CUR_HIGH)]
    }

    #[cfg(test)]
    #[target_feature(enable = "avx2")]
    pub(super) fn clean_prefix(src: &[u8]) -> usize {
        clean_prefix_with(&tables(), src)
    }

    /// The lossy block loop with this module's pass: one function,
    /// compiled for AVX2 (the closure inherits the target feature), the
    /// tables built once. The pass is called on each 64-octet block in
    /// order and returns its error lanes, one bit per octet.
    #[target_feature(enable = "avx2")]
    pub(super) fn lossy_into(src: &[u8], buf: &mut Vec<u8>) {
        let tables = tables();
        let zero = _mm256_setzero_si256();
        // The block before (zeros: `src` starts at a character boundary).
        let mut prev = zero;
        let mut prev_ascii = true;
        super::super::utf8::lossy_blocks(src, buf, |chunk: &[u8; 64]| {
            let (Ok(lo), Ok(hi)) = (
                <&[u8; 32]>::try_from(&chunk[..32]),
                <&[u8; 32]>::try_from(&chunk[32..]),
            ) else {
                return u64::MAX;
            };
            let (lo, hi) = (load(lo), load(hi));
            // ASCII after three ASCII octets cannot be in error (every
            // check looks at most three octets back): no lookups.
            let ascii = _mm256_movemask_epi8(_mm256_or_si256(lo, hi)) == 0;
            let tail_ascii = (_mm256_movemask_epi8(hi) as u32) >> 29 == 0;
            if ascii && prev_ascii {
                prev = hi;
                prev_ascii = true;
                return 0;
            }
            prev_ascii = tail_ascii;
            let err_lo = errors(lo, prev, &tables);
            let err_hi = errors(hi, lo, &tables);
            prev = hi;
            let clean_lo = _mm256_movemask_epi8(_mm256_cmpeq_epi8(err_lo, zero)) as u32;
            let clean_hi = _mm256_movemask_epi8(_mm256_cmpeq_epi8(err_hi, zero)) as u32;
            !(u64::from(clean_lo) | u64::from(clean_hi) << 32)
        });
    }

    /// `f()` compiled with AVX2 enabled (see [`super::with_avx2`]).
    #[target_feature(enable = "avx2")]
    pub(super) fn run<R>(f: impl FnOnce() -> R) -> R {
        f()
    }

    /// The streaming decoder's step with this module's pass, likewise.
    #[target_feature(enable = "avx2")]
    pub(super) fn decoder_run<S: Sink>(dec: &mut Utf8Decoder, src: &[u8], out: &mut S, last: bool) {
        let tables = tables();
        dec.run_with(src, out, last, &|s: &[u8]| clean_prefix_with(&tables, s));
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn clean_prefix_with(tables: &[__m256i; 3], src: &[u8]) -> usize {
        let zero = _mm256_setzero_si256();
        let mut prev = zero;
        // Whether `prev` is all ASCII (the zeros are).
        let mut prev_ascii = true;
        let mut at = 0;
        let mut chunks = src.chunks_exact(32);
        for chunk in &mut chunks {
            let Ok(chunk) = <&[u8; 32]>::try_from(chunk) else {
                break;
            };
            let input = load(chunk);
            // ASCII after ASCII cannot be in error (every check looks at
            // most three octets back, and no octet there starts a
            // sequence): the lookups are skipped.
            let ascii = _mm256_movemask_epi8(input) == 0;
            if ascii && prev_ascii {
                prev = input;
                at += 32;
                continue;
            }
            prev_ascii = ascii;
            let err = errors(input, prev, tables);
            // One bit per lane with no error.
            let clean = _mm256_movemask_epi8(_mm256_cmpeq_epi8(err, zero)) as u32;
            if clean != u32::MAX {
                return at + (!clean).trailing_zeros() as usize;
            }
            prev = input;
            at += 32;
        }
        at
    }
}

/// Asks the processor to bring the first [`PREFETCH`] octets of `bytes`
/// into this core's cache, without waiting for them. The archive
/// pipeline's worker calls it for the next message of its batch while it
/// works on one: the reading thread wrote those octets on another core,
/// and the first pass over a message (its header section) otherwise
/// stalls on them (audit 2-3% faster as a process, doc/bench-log.md, issue
/// 18, seventh round). A hint only: it changes no result.
#[inline]
pub(crate) fn prefetch(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        for line in bytes[..bytes.len().min(PREFETCH)].chunks(64) {
            // SAFETY: a prefetch never faults and reads nothing the program
            // sees; the address is inside `bytes` anyway. SSE (where the
            // instruction comes from) is part of every x86_64 CPU.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast()) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}

/// A bit for each octet of `block` that is CR or LF (bit `i` for
/// `block[i]`): the header scanner's line ends, 64 octets at a time instead
/// of a `memchr2` call per line (a header line is about 70 octets, and the
/// call's setup cost more than its search; doc/bench-log.md, issue 18,
/// ninth round). SSE2, which every x86_64 CPU has; a plain loop elsewhere.
#[inline]
pub(crate) fn line_ends(block: &[u8; 64]) -> u64 {
    either_of(block, b'\r', b'\n')
}

/// A bit for each octet of `block` that is `a` or `b` (bit `i` for
/// `block[i]`): [`line_ends`], and the quoted-printable decoder's `=` and
/// LF.
#[inline]
pub(crate) fn either_of(block: &[u8; 64], a: u8, b: u8) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of every x86_64 CPU (the target's baseline),
        // the only requirement of this `target_feature` function.
        unsafe { sse2::either_of(block, a, b) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut mask = 0u64;
        for (i, &x) in block.iter().enumerate() {
            mask |= u64::from(x == a || x == b) << i;
        }
        mask
    }
}

/// A bit for each of the first 64 octets of `block` that a header field's
/// decoding looks for (`mime::next_decoding_hit`): an octet above 0x7F,
/// `*`, ESC, or `=` before a `?` (the octet after it, `block[i + 1]`).
/// SSE2, which every x86_64 CPU has; a plain loop elsewhere.
#[inline]
pub(crate) fn decoding_hits(block: &[u8; 65]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of every x86_64 CPU (the target's baseline),
        // the only requirement of this `target_feature` function.
        unsafe { sse2::decoding_hits(block) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut mask = 0u64;
        for i in 0..64 {
            let (a, next) = (block[i], block[i + 1]);
            let hit = a >= 0x80 || a == b'*' || a == 0x1B || (a == b'=' && next == b'?');
            mask |= u64::from(hit) << i;
        }
        mask
    }
}

/// How many octets at the start of `bytes` are `ftext` (RFC 5322: `%d33-57 /
/// %d59-126`, printable US-ASCII but the colon): the length of a header
/// field's name. Sixteen octets at a time with SSE2 where the line has them
/// (a name is about 10 octets, and the octet-by-octet loop was 5% of an
/// audit; doc/bench-log.md, issue 18, tenth round); a plain loop for the
/// rest and elsewhere.
#[inline]
pub(crate) fn ftext_len(bytes: &[u8]) -> usize {
    let mut at = 0;
    #[cfg(target_arch = "x86_64")]
    {
        for chunk in bytes.chunks_exact(16) {
            let chunk: &[u8; 16] = match chunk.try_into() {
                Ok(c) => c,
                Err(_) => break,
            };
            // SAFETY: SSE2 is part of every x86_64 CPU (the target's
            // baseline), the only requirement of this `target_feature`
            // function.
            let stops = unsafe { sse2::not_ftext(chunk) };
            if stops != 0 {
                return at + stops.trailing_zeros() as usize;
            }
            at += 16;
        }
    }
    let rest = bytes.get(at..).unwrap_or_default();
    at + rest
        .iter()
        .position(|&b| !(33..=126).contains(&b) || b == b':')
        .unwrap_or(rest.len())
}

/// A bit for each octet of `block` that the quoted-printable encoder
/// cannot write as it is in the middle of a line (bit `i` for
/// `block[i]`): anything but printable ASCII other than `=`, space and
/// tab. SSE2, which every x86_64 CPU has; a plain loop elsewhere.
#[inline]
pub(crate) fn qp_stops(block: &[u8; 16]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of every x86_64 CPU (the target's baseline),
        // the only requirement of this `target_feature` function.
        unsafe { sse2::qp_stops(block) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        qp_stops_plain(block)
    }
}

/// [`qp_stops`] an octet at a time: the loop where SSE2 is missing, and in
/// the tests the answer SSE2 must give.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn qp_stops_plain(block: &[u8; 16]) -> u32 {
    block.iter().enumerate().fold(0, |m, (k, &b)| {
        let literal = (0x20..0x7F).contains(&b) && b != b'=' || b == b'\t';
        m | (u32::from(!literal) << k)
    })
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128,
        _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };

    /// A bit for each octet of `chunk` that is not `ftext` (below 33, DEL,
    /// 128 and above, or the colon), bit `i` for `chunk[i]`.
    #[target_feature(enable = "sse2")]
    pub(super) fn not_ftext(chunk: &[u8; 16]) -> u32 {
        // SAFETY: `chunk` is 16 readable octets, the size of `__m128i`;
        // `loadu` has no alignment requirement.
        let v = unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) };
        // Signed: octets 128 and above are negative, below 33 too.
        let low = _mm_cmplt_epi8(v, _mm_set1_epi8(33));
        let del = _mm_cmpeq_epi8(v, _mm_set1_epi8(127));
        let colon = _mm_cmpeq_epi8(v, _mm_set1_epi8(b':' as i8));
        _mm_movemask_epi8(_mm_or_si128(low, _mm_or_si128(del, colon))) as u32
    }

    /// A bit for each octet of `block` that is not printable ASCII other
    /// than `=`, nor a tab (space is printable).
    #[target_feature(enable = "sse2")]
    pub(super) fn qp_stops(block: &[u8; 16]) -> u32 {
        // SAFETY: `block` is 16 readable octets, the size of `__m128i`;
        // `loadu` has no alignment requirement.
        let v = unsafe { _mm_loadu_si128(block.as_ptr().cast()) };
        // Signed: octets 128 and above are negative, controls below 32.
        let low = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
        let del = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7F));
        let eq = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'=' as i8));
        let tab = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\t' as i8));
        let stops = _mm_or_si128(low, _mm_or_si128(del, eq));
        (_mm_movemask_epi8(_mm_andnot_si128(tab, stops)) as u32) & 0xFFFF
    }

    #[target_feature(enable = "sse2")]
    pub(super) fn decoding_hits(block: &[u8; 65]) -> u64 {
        let star = _mm_set1_epi8(b'*' as i8);
        let esc = _mm_set1_epi8(0x1B);
        let eq = _mm_set1_epi8(b'=' as i8);
        let question = _mm_set1_epi8(b'?' as i8);
        let mut mask = 0u64;
        for k in 0..4 {
            let (here, next) = (&block[16 * k..16 * k + 16], &block[16 * k + 1..16 * k + 17]);
            // SAFETY: `here` and `next` are 16 readable octets each (ranges
            // of a 65-octet array), the size of `__m128i`; `loadu` has no
            // alignment requirement.
            let (v, n) = unsafe {
                (
                    _mm_loadu_si128(here.as_ptr().cast()),
                    _mm_loadu_si128(next.as_ptr().cast()),
                )
            };
            let word = _mm_and_si128(_mm_cmpeq_epi8(v, eq), _mm_cmpeq_epi8(n, question));
            let hits = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, star), _mm_cmpeq_epi8(v, esc)),
                word,
            );
            // The movemask of `v` itself is the octets above 0x7F.
            let m = (_mm_movemask_epi8(hits) | _mm_movemask_epi8(v)) as u16;
            mask |= u64::from(m) << (16 * k);
        }
        mask
    }

    #[target_feature(enable = "sse2")]
    pub(super) fn either_of(block: &[u8; 64], a: u8, b: u8) -> u64 {
        let cr = _mm_set1_epi8(a as i8);
        let lf = _mm_set1_epi8(b as i8);
        let mut mask = 0u64;
        for (k, chunk) in block.chunks_exact(16).enumerate() {
            // SAFETY: `chunk` is 16 readable octets (`chunks_exact` of a
            // 64-octet array), the size of `__m128i`; `loadu` has no
            // alignment requirement.
            let v = unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) };
            let hits = _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, lf));
            // The movemask is 16 bits, zero-extended.
            mask |= u64::from(_mm_movemask_epi8(hits) as u16) << (16 * k);
        }
        mask
    }
}

/// How much of the next message [`prefetch`] asks for: a message's header
/// section, about.
const PREFETCH: usize = 4096;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_hits_is_the_octet_by_octet_test() {
        let octets = [b'a', b'=', b'?', b'*', 0x1B, 0x7F, 0x80, 0xFF, b'\n', 0];
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..2000 {
            let mut block = [0u8; 65];
            for b in &mut block {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                *b = octets[(seed % octets.len() as u64) as usize];
            }
            let mut want = 0u64;
            for i in 0..64 {
                let (a, next) = (block[i], block[i + 1]);
                let hit = a >= 0x80 || a == b'*' || a == 0x1B || (a == b'=' && next == b'?');
                want |= u64::from(hit) << i;
            }
            assert_eq!(decoding_hits(&block), want, "{block:?}");
        }
    }

    /// RFC 2045 section 6.7: rule 2 writes octets 33..=60 and 62..=126 as
    /// they are, rule 3 space and tab in the middle of a line; every other
    /// octet is a stop, at whichever of the sixteen places it stands, among
    /// literal octets or among other stops.
    #[test]
    fn qp_stops_are_the_octets_rfc_2045_does_not_write_as_they_are() {
        let literal = |b: u8| matches!(b, 33..=60 | 62..=126 | b' ' | b'\t');
        for b in 0..=255u8 {
            for at in 0..16 {
                for fill in [b'a', b'=', 0xFF] {
                    let mut block = [fill; 16];
                    block[at] = b;
                    let want = (0..16).fold(0u32, |m, k| m | u32::from(!literal(block[k])) << k);
                    assert_eq!(qp_stops(&block), want, "{b:#04x} at {at} among {fill:#04x}");
                    assert_eq!(
                        qp_stops_plain(&block),
                        want,
                        "plain: {b:#04x} at {at} among {fill:#04x}"
                    );
                }
            }
        }
    }

    #[test]
    fn is_ascii_agrees_with_std_at_every_position_and_length() {
        for len in [0, 1, 63, 127, 128, 129, 255, 256, 300] {
            let ascii = vec![b'x'; len];
            assert!(is_ascii(&ascii), "{len}");
            for at in 0..len {
                for high in [0x80u8, 0xC3, 0xFF] {
                    let mut v = ascii.clone();
                    v[at] = high;
                    // Through `with_avx2` (AVX2 where the CPU has it) and plain.
                    assert!(!is_ascii(&v), "{len} {at}");
                    assert!(!is_ascii_in(&v), "plain: {len} {at}");
                }
            }
        }
    }
}
