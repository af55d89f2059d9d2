//! Evidence for the decision: what a label explains of a text (counted
//! line by line), the complete forms only a UTF-8 writer makes, and
//! whether a reading is plausible text.

use super::Charset;
use super::dispatch::decode_with;
use super::letter_bits::{LETTER_BITS, LETTER_BITS_END, WIDE_BITS, WIDE_BITS_START};
use std::ops::Range;

/// What the label explains of a text, counted line by line.
#[derive(Debug, Default)]
pub(super) struct Evidence {
    /// Non-ASCII characters the label decodes.
    pub clean: usize,
    /// Of those, letters next to another letter: characters in words. Octets
    /// of another charset that happen to form a valid sequence sit next to
    /// errors, not inside words.
    pub in_words: usize,
    /// Ill-formed sequences under the label.
    pub errors: usize,
    /// Non-ASCII characters on lines the label decodes without error.
    pub clean_line_chars: usize,
    /// Under UTF-8 or a multi-octet CJK label: characters standing as its
    /// writer put them ([`standing`]), in words or on their own (Italian
    /// `è`, a Korean one-syllable word, a curly quote); counted as letters
    /// in words are. Zero under other labels.
    pub standing: usize,
    /// Octets >= 0x80.
    pub nonascii: usize,
    /// Lines with more errors than characters of the label (and, under
    /// UTF-8, not a single cut sequence): text in another charset, maybe.
    pub foreign: Vec<Range<usize>>,
}

impl Evidence {
    /// Whether the label explains most of the text (it is damaged, not
    /// wrong): characters in words and at most three errors, or at most
    /// four errors per character in words (at least a fifth of the text is
    /// the label's); or four or more characters on lines the label decodes
    /// entirely, with at most eight errors per such character.
    pub fn explained(&self) -> bool {
        let words = self.in_words.max(self.standing);
        (words >= 1 && (self.errors <= 3 || self.errors <= 4 * words))
            || (self.clean_line_chars >= 4 && self.errors <= self.clean_line_chars * 8)
    }
}

/// `char::is_alphabetic`, faster where text lives. std answers every
/// non-ASCII character with a search of its tables (about 170
/// instructions; a third of the decision's time on a 1 MiB Latin-1 text);
/// here the first 0x3000 code points (Latin to Hangul Jamo, punctuation)
/// are one bit each in a generated table (`letter_bits.rs`, from std's
/// own answer), and the CJK ideographs and Hangul syllables one range
/// each. The rest asks std. The test `alphabetic_is_std` compares every
/// code point.
pub(super) trait Alphabetic {
    fn alphabetic(self) -> bool;
}

impl Alphabetic for char {
    #[inline]
    fn alphabetic(self) -> bool {
        let u = u32::from(self);
        if u < 0x80 {
            self.is_ascii_alphabetic()
        } else if u < LETTER_BITS_END {
            LETTER_BITS
                .get((u / 64) as usize)
                .is_some_and(|w| w >> (u % 64) & 1 != 0)
        } else if (0x4E00..=0x9FFF).contains(&u) || (0xAC00..=0xD7A3).contains(&u) {
            true
        } else if (WIDE_BITS_START..0x1_0000).contains(&u) {
            WIDE_BITS
                .get(((u - WIDE_BITS_START) / 64) as usize)
                .is_some_and(|w| w >> (u % 64) & 1 != 0)
        } else {
            self.is_alphabetic()
        }
    }
}

/// A C1 control (U+0080..U+009F): what an ISO 8859 charset reads for
/// 0x80..0x9F, and what no text holds.
pub(super) fn c1_control(c: char) -> bool {
    ('\u{80}'..='\u{9F}').contains(&c)
}

/// The lines of `bytes` (each with its line end).
pub(super) fn lines(bytes: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= bytes.len() {
            return None;
        }
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i + 1);
        let r = at..end;
        at = end;
        Some(r)
    })
}

/// (non-ASCII characters other than U+FFFD, of those letters next to a
/// letter).
pub(super) fn characters(text: &str) -> (usize, usize) {
    let chars: Vec<char> = text.chars().collect();
    let mut clean = 0;
    let mut in_words = 0;
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii() || c == '\u{FFFD}' {
            continue;
        }
        clean += 1;
        let prev = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
        let next = chars.get(i + 1).copied();
        if same_word(c, prev) || same_word(c, next) {
            in_words += 1;
        }
    }
    (clean, in_words)
}

/// Whether `c` and its neighbour are letters of one word: the same writing
/// system (an ASCII letter counts as Latin). Letters of the blocks real
/// text rarely uses (Latin Extended-B, archaic Cyrillic, Armenian ...) are
/// [`Script::Other`] and make no word: they are what octets of another
/// charset turn into.
pub(super) fn same_word(c: char, neighbour: Option<char>) -> bool {
    let Some(n) = neighbour else {
        return false;
    };
    if !c.alphabetic() || !n.alphabetic() {
        return false;
    }
    let sc = script(c);
    let sn = if n.is_ascii() {
        Script::Latin
    } else {
        script(n)
    };
    if sc == Script::Other {
        // Two letters of one of the scripts [`script`] leaves out that
        // text uses (Armenian, Georgian, the Indic scripts, Ethiopic ...):
        // a word too. A UTF-8 Subject in Hindi with one damaged octet had
        // no letter in a word, and was read whole as GBK.
        return rest_block(c).is_some() && rest_block(c) == rest_block(n);
    }
    sc != Script::Other
        && (sc == sn
            || matches!(
                (sc, sn),
                (Script::Han, Script::Kana | Script::Hangul)
                    | (Script::Kana | Script::Hangul, Script::Han)
            ))
}

/// Counts the evidence for `cs` (an ASCII-compatible or 7-bit charset) over
/// `bytes`.
pub(super) fn evidence(bytes: &[u8], cs: &'static Charset) -> Evidence {
    let mut ev = Evidence::default();
    let utf8_family = cs.is_utf8() || cs.is_unicode11_utf8();
    let multi_octet = utf8_family
        || matches!(
            cs.decoder_name(),
            Some("Shift_JIS" | "EUC-JP" | "EUC-KR" | "GBK" | "gb18030" | "Big5" | "Johab")
        );
    for r in lines(bytes) {
        let line = &bytes[r.clone()];
        let nonascii = line.iter().filter(|b| !b.is_ascii()).count();
        // A 7-bit charset's characters are in ASCII octets.
        if nonascii == 0 && !cs.is_seven_bit() {
            continue;
        }
        ev.nonascii += nonascii;
        let (text, errors, cut) = if utf8_family {
            let mut errors = 0;
            let mut cut = false;
            for chunk in line.utf8_chunks() {
                if !chunk.invalid().is_empty() {
                    errors += 1;
                    // A lead octet with its first continuation: a UTF-8
                    // sequence cut short, not a legacy octet.
                    cut |= chunk.invalid().len() >= 2;
                }
            }
            (String::from_utf8_lossy(line), errors, cut)
        } else {
            let (text, report, _) = decode_with(line, cs);
            (text, report.replacements, false)
        };
        let (clean, in_words) = characters(&text);
        ev.clean += clean;
        ev.in_words += in_words;
        let standing_here = if multi_octet { standing(&text) } else { 0 };
        ev.standing += standing_here;
        ev.errors += errors;
        if errors == 0 {
            ev.clean_line_chars += clean;
        } else if errors > clean && (!cut || errors >= 2) && standing_here * 2 < errors {
            // The label fails on more than it reads here (legacy octets
            // often pair up as an odd valid sequence), and this is not one
            // UTF-8 sequence cut short.
            ev.foreign.push(r);
        }
    }
    ev
}

/// Complete forms that only a UTF-8 writer produces: an overlong sequence
/// with all its continuation octets, an encoded surrogate (`ED A0..BF xx`),
/// a whole 5- or 6-octet sequence, a 4-octet value above U+10FFFF. A lone
/// F8..FD octet is not one.
pub(super) fn utf8_writer_forms(bytes: &[u8]) -> usize {
    crate::codec::utf8::complete_sequences(bytes)
        .filter(|&(at, len, v)| {
            (v < crate::codec::utf8::shortest_min(len) && !latin_overlong(bytes, at, len))
                || (len == 3 && (0xD800..0xE000).contains(&v))
                || (len == 4 && v > 0x10_FFFF)
                || len > 4
        })
        .count()
}

/// Whether the overlong form of `len` octets at `at` is what Latin text
/// makes by chance: a capital `À` or `Á` (C0, C1) after a capital or
/// alone, or a small `à` (E0) after a letter, then Windows signs that end
/// the word (`JÁ…`, `ESTÁ”`, `voilà…”`), as windows-1252 reads them. A
/// UTF-8 writer's overlong forms stand elsewhere (Java's NUL `C0 80`
/// inside a string, `C0 AE` in a path).
fn latin_overlong(bytes: &[u8], at: usize, len: usize) -> bool {
    let read = |k: usize| {
        bytes.get(k).map(|&b| {
            let octet = [b];
            let (c, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&octet);
            c.chars().next().unwrap_or('\u{FFFD}')
        })
    };
    let prev = at.checked_sub(1).and_then(read);
    let signs = (at + 1..at + len).all(|k| read(k).is_some_and(|c| !c.is_alphabetic()));
    let word_end = read(at + len).is_none_or(|c| !c.is_alphabetic());
    let after = match len {
        2 => bytes.get(at..at + 2) != Some(b"\xC0\x80") && prev.is_none_or(|p| !p.is_lowercase()),
        3 => prev.is_some_and(char::is_alphabetic),
        _ => false,
    };
    signs && word_end && after
}

/// A quick look before [`evidence`]: at least three valid multi-octet
/// UTF-8 sequences, and more of them than ill-formed ones.
pub(super) fn utf8_majority(bytes: &[u8]) -> bool {
    let mut valid = 0usize;
    let mut invalid = 0usize;
    // Only the runs of 8-bit octets are walked: an ASCII octet is neither
    // in a multi-octet character nor in an ill-formed subpart, so cutting
    // the text there changes neither count.
    let mut rest = bytes;
    while let Some(i) = find_nonascii(rest) {
        let run = &rest[i..];
        let end = run.iter().position(u8::is_ascii).unwrap_or(run.len());
        for chunk in run[..end].utf8_chunks() {
            valid += multi_octet_chars(chunk.valid());
            invalid += usize::from(!chunk.invalid().is_empty());
        }
        rest = &run[end..];
    }
    valid >= 3 && valid > invalid
}

/// The offset of the first octet above 0x7F: whole blocks of ASCII are
/// passed over with one branch-free test each (a body's ASCII is most of
/// it), the octet is then looked for in its block.
pub(crate) fn find_nonascii(bytes: &[u8]) -> Option<usize> {
    // In 8-bit text the next one is often a few octets on (the callers
    // walk from one to the next): the first eight are tested as one word
    // before the call into the AVX2 loop, which costs more than they do.
    if let Some(head) = bytes.first_chunk::<8>() {
        let high = u64::from_le_bytes(*head) & 0x8080_8080_8080_8080;
        if high != 0 {
            return Some(high.trailing_zeros() as usize / 8);
        }
    }
    crate::codec::with_avx2(|| find_nonascii_in(bytes))
}

#[inline]
fn find_nonascii_in(bytes: &[u8]) -> Option<usize> {
    const N: usize = 32;
    let mut at = 0;
    for block in bytes.chunks_exact(N) {
        if !block.is_ascii() {
            break;
        }
        at += N;
    }
    // The block with the octet, or the rest after the last whole block.
    let rest = bytes.get(at..)?;
    rest.iter().position(|b| !b.is_ascii()).map(|i| at + i)
}

/// Multi-octet characters of valid UTF-8.
pub(super) fn multi_octet_chars(s: &str) -> usize {
    s.bytes().filter(|&b| b >= 0xC0).count()
}

/// Writing systems, for [`plausible`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Script {
    Latin,
    Greek,
    Cyrillic,
    Hebrew,
    Arabic,
    Thai,
    Han,
    Kana,
    Hangul,
    Other,
}

pub(super) fn script(c: char) -> Script {
    match u32::from(c) {
        // ª and º are Latin letters too (Spanish `2ª`, `nº`).
        0x00AA | 0x00BA | 0x00C0..=0x017F | 0x0218..=0x021B | 0x1E00..=0x1EFF => Script::Latin,
        0x0386..=0x03CE | 0x1F00..=0x1FFF => Script::Greek,
        0x0400..=0x045F | 0x0490..=0x04FF => Script::Cyrillic,
        0x05D0..=0x05EA => Script::Hebrew,
        0x0620..=0x064A | 0x0671..=0x06D3 => Script::Arabic,
        0x0E00..=0x0E7F => Script::Thai,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF => Script::Han,
        0x3040..=0x30FF | 0x31F0..=0x31FF => Script::Kana,
        0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7A3 => Script::Hangul,
        _ => Script::Other,
    }
}

/// The scripts [`script`] calls [`Script::Other`] that text is written
/// in, each its block or blocks: Syriac, Thaana, Armenian, the Indic
/// scripts (Devanagari to Sinhala), Lao, Tibetan, Myanmar, Georgian,
/// Ethiopic, Cherokee, Canadian syllabics, Khmer, Mongolian. Octets of
/// another charset read as UTF-8 pair up into one of these now and then,
/// two in a row of one block hardly ever: [`same_word`] counts them in
/// words only so.
pub(super) fn rest_block(c: char) -> Option<u8> {
    const BLOCKS: [(u32, u32); 24] = [
        (0x0531, 0x058F),
        (0x0700, 0x074F),
        (0x0780, 0x07BF),
        (0x0900, 0x097F),
        (0x0980, 0x09FF),
        (0x0A00, 0x0A7F),
        (0x0A80, 0x0AFF),
        (0x0B00, 0x0B7F),
        (0x0B80, 0x0BFF),
        (0x0C00, 0x0C7F),
        (0x0C80, 0x0CFF),
        (0x0D00, 0x0D7F),
        (0x0D80, 0x0DFF),
        (0x0E80, 0x0EFF),
        (0x0F00, 0x0FFF),
        (0x1000, 0x109F),
        (0x10A0, 0x10FF),
        (0x1200, 0x139F),
        (0x13A0, 0x13FF),
        (0x1400, 0x167F),
        (0x1780, 0x17FF),
        (0x1800, 0x18AF),
        (0x2D80, 0x2DDF),
        (0xAB00, 0xAB2F),
    ];
    let u = u32::from(c);
    if !(0x0531..=0xAB2F).contains(&u) {
        return None;
    }
    BLOCKS
        .iter()
        .position(|&(a, b)| (a..=b).contains(&u))
        .map(|i| i as u8)
}

/// Whether decoded text reads like text (see the module docs).
pub(super) fn plausible(text: &str) -> bool {
    let mut nonascii = 0usize;
    let mut bad = 0usize;
    let mut letters = 0usize;
    let mut by = [0usize; 10];
    // Non-ASCII characters right after another: normal in most scripts,
    // rare in Latin text, and the mark of UTF-8 read as Latin ("Ã©").
    let mut paired = 0usize;
    let mut prev_nonascii = false;
    let mut prev_letter = false;
    let mut prev_vietnamese = false;
    for c in text.chars() {
        if c.is_ascii() {
            prev_letter = c.is_ascii_alphabetic();
            prev_nonascii = false;
            prev_vietnamese = false;
            continue;
        }
        // A combining accent after a letter is part of it: decomposed
        // text (windows-1258's Vietnamese tones, `ti` U+0300 `m`; macOS's
        // NFD file names) is not two characters a letter.
        if prev_letter && matches!(c, '\u{300}'..='\u{36F}') {
            continue;
        }
        prev_letter = c.alphabetic();
        // Vietnamese writes its own letters side by side (`người`,
        // `được`): no mark of UTF-8 read as Latin, whose pairs are a
        // lead's letter and a symbol (`Ã©`, `â€`).
        let vietnamese = matches!(
            c,
            'ă' | 'â' | 'ê' | 'ô' | 'ơ' | 'ư' | 'đ' | 'Ă' | 'Â' | 'Ê' | 'Ô' | 'Ơ' | 'Ư' | 'Đ'
        );
        paired += usize::from(prev_nonascii && !(prev_vietnamese && vietnamese));
        prev_vietnamese = vietnamese;
        prev_nonascii = true;
        nonascii += 1;
        if foreign_mark(c) || c == '\u{FFFD}' {
            bad += 1;
            continue;
        }
        if c.alphabetic() {
            letters += 1;
            // `ơ ư` are Latin Extended-B, a block `script` leaves out
            // (chance octets make its letters), but Vietnamese's own.
            let sc = if vietnamese { Script::Latin } else { script(c) };
            by[sc as usize] += 1;
        }
    }
    if nonascii == 0 {
        return true;
    }
    let s = |x: Script| by[x as usize];
    let japanese = s(Script::Han) + s(Script::Kana);
    let korean = s(Script::Hangul) + s(Script::Han);
    let top = [
        s(Script::Latin),
        s(Script::Greek),
        s(Script::Cyrillic),
        s(Script::Hebrew),
        s(Script::Arabic),
        s(Script::Thai),
        japanese,
        korean,
        s(Script::Other),
    ]
    .into_iter()
    .max()
    .unwrap_or(0);
    let latin_mojibake = s(Script::Latin) == top && paired * 2 > nonascii;
    bad * 4 <= nonascii && letters * 2 >= nonascii && top * 5 >= letters * 4 && !latin_mojibake
}

/// A character that octets of another charset leave in a reading, and
/// text does not have: a C1 control, private use (U+E000..U+F8FF), a
/// half-width katakana (Shift_JIS's single octets 0xA1..0xDF, where
/// EUC-JP, EUC-KR and GBK have their lead octets).
pub(super) fn foreign_mark(c: char) -> bool {
    let u = u32::from(c);
    (0x80..0xA0).contains(&u) || (0xE000..0xF900).contains(&u) || (0xFF61..0xFFA0).contains(&u)
}

/// Whether a clean reading is so implausible that the label is doubted: at
/// least half of its non-ASCII characters (and eight or more) are C1
/// controls, private use or half-width katakana.
pub(super) fn implausible(text: &str) -> bool {
    let mut nonascii = 0usize;
    let mut bad = 0usize;
    // From one run of non-ASCII characters to the next: ASCII is skipped a
    // block at a time (most of a labelled text is ASCII; walking its every
    // character showed in profiles).
    let mut rest = text;
    while let Some(at) = find_nonascii(rest.as_bytes()) {
        let mut chars = rest[at..].chars();
        loop {
            let before = chars.as_str();
            match chars.next() {
                Some(c) if !c.is_ascii() => {
                    nonascii += 1;
                    bad += usize::from(foreign_mark(c));
                }
                _ => {
                    rest = before;
                    break;
                }
            }
        }
    }
    bad >= 8 && bad * 2 >= nonascii
}

/// The shape of a Latin label's reading: `runs` of three or more adjacent
/// non-ASCII characters (white space ends a run) with a letter among them,
/// against `accented` words (maximal runs of characters other than ASCII
/// non-letters and white space) that hold a non-ASCII character.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Runs {
    pub runs: usize,
    /// Characters in those runs.
    pub chars: usize,
    /// Characters in the longest run.
    pub longest: usize,
    pub accented: usize,
}

/// [`Runs`] of `text`, when it has at least `min` runs or one of `long`
/// characters or more (else None, after a walk of its non-ASCII characters
/// only: ASCII is skipped a block at a time, as most of a labelled text is
/// ASCII and most Latin texts have no such run at all).
///
/// Latin-script text keeps an ASCII letter next to nearly every accented
/// one (`Größe`, `Þjóðólfur`, `úžší` is a rare exception); text in another
/// script read under a Latin label is non-ASCII from end to end of every
/// word (`Ïðèâåò`, `ÇÑ±¹¾î`, `‚±‚ñ‚É‚¿‚Í`).
pub(super) fn nonascii_runs(text: &str, min: usize, long: usize) -> Option<Runs> {
    let mut runs = 0usize;
    let mut chars_in = 0usize;
    let mut longest = 0usize;
    let mut rest = text;
    while let Some(at) = find_nonascii(rest.as_bytes()) {
        let mut chars = rest[at..].chars();
        let mut len = 0usize;
        let mut letter = false;
        loop {
            let before = chars.as_str();
            match chars.next() {
                Some(c) if !c.is_ascii() && !c.is_whitespace() => {
                    len += 1;
                    letter |= c.alphabetic();
                }
                Some(c) if !c.is_ascii() => {
                    // Non-ASCII white space (a no-break space) ends a run.
                    if len >= 3 && letter {
                        runs += 1;
                        chars_in += len;
                        longest = longest.max(len);
                    }
                    len = 0;
                    letter = false;
                }
                _ => {
                    rest = before;
                    break;
                }
            }
        }
        if len >= 3 && letter {
            runs += 1;
            chars_in += len;
            longest = longest.max(len);
        }
    }
    if runs < min && longest < long {
        return None;
    }
    let mut accented = 0usize;
    let mut in_word = false;
    let mut has_nonascii = false;
    for c in text.chars() {
        if (c.is_ascii() && !c.is_ascii_alphabetic()) || c.is_whitespace() {
            accented += usize::from(in_word && has_nonascii);
            in_word = false;
            has_nonascii = false;
        } else {
            in_word = true;
            has_nonascii |= !c.is_ascii();
        }
    }
    accented += usize::from(in_word && has_nonascii);
    Some(Runs {
        runs,
        chars: chars_in,
        longest,
        accented,
    })
}

/// Whether `c`, between the letters `prev` and `next`, is a symbol inside
/// a word: a non-ASCII character that is not a letter, white space, a
/// combining mark or punctuation that words hold (an apostrophe `’` or
/// `´`, a soft hyphen, the Catalan `l·l`, a dash), and that does not follow
/// `Ã` or `Â` (UTF-8 read as Latin-1, `Ã³`, whose second character is a
/// symbol by nature). Octets of another single-byte charset make such
/// symbols: Polish `ą ł ż` in windows-1250 read as windows-1252 are `¹ ³
/// ¿` (`Wroc³aw`), Czech `š ž` in ISO-8859-2 `¹ ¾`, Russian `р` in
/// windows-1251 read as ISO-8859-5 is `№` (`Я№штхђ`).
fn symbol_between(prev: char, c: char, next: char) -> bool {
    word_symbol(c)
        && prev.alphabetic()
        && next.alphabetic()
        && !matches!(prev, '\u{00C3}' | '\u{00C2}')
}

/// Whether `c`, found inside a word, is a symbol there: a non-ASCII
/// character that is not a letter, white space, a combining mark or
/// punctuation that words hold (`’ ‘ ´ ʼ`, a soft hyphen, the Catalan
/// `l·l`, a dash). Double quotes are symbols: x-mac-cyrillic reads
/// ISO-8859-5 `т у` as `“ ”`, inside every other word. [`symbol_between`] asks it of one character between
/// two letters; the Latin alphabet rule of a run of them (`B³±d`).
pub(super) fn word_symbol(c: char) -> bool {
    !c.is_ascii()
        && !c.alphabetic()
        && !c.is_whitespace()
        && !matches!(
            c,
            '\u{0300}'..='\u{036F}'
                | '\u{2019}'
                | '\u{2018}'
                | '\u{00B4}'
                | '\u{02BC}'
                | '\u{00AD}'
                | '\u{00B7}'
                | '\u{2010}'..='\u{2015}'
        )
}

/// Symbols inside words in `text` ([`symbol_between`]), after a walk of its
/// non-ASCII characters only (ASCII is skipped a block at a time: most of
/// a labelled text is ASCII, and most Latin texts have no such symbol).
pub(super) fn symbols_in_words(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut n = 0usize;
    let mut at = 0usize;
    loop {
        // The next non-ASCII character: often the very next one (Cyrillic,
        // accented words), else after a block-wise skip of ASCII.
        let pos = match bytes.get(at) {
            None => break,
            Some(&b) if b >= 0x80 => at,
            Some(_) => match find_nonascii(&bytes[at..]) {
                Some(i) => at + i,
                None => break,
            },
        };
        let Some(c) = text.get(pos..).and_then(|r| r.chars().next()) else {
            break;
        };
        at = pos + c.len_utf8();
        // The letters of the Latin and Cyrillic blocks are most of what a
        // clean reading holds, and never a symbol: no look around them.
        if common_letter(c) {
            continue;
        }
        let prev = text[..pos].chars().next_back();
        let next = text[at..].chars().next();
        if let (Some(p), Some(x)) = (prev, next) {
            n += usize::from(symbol_between(p, c, x));
        }
    }
    n
}

/// Letters of Latin-1, Latin Extended-A and -B and basic Cyrillic (every
/// character of those ranges is alphabetic): what [`symbols_in_words`]
/// passes over without a look.
fn common_letter(c: char) -> bool {
    matches!(c, '\u{00C0}'..='\u{00D6}' | '\u{00D8}'..='\u{00F6}' | '\u{00F8}'..='\u{024F}' | '\u{0410}'..='\u{044F}')
}

/// Whether the letter `c` fits the case of the word around it: lowercase
/// before a lowercase letter (`Wroc³aw`, `Z³oty` read as `Wrocław`,
/// `Złoty`), a capital between capitals (`WROC£AW`). A capital before a
/// lowercase letter (`Microsoft®Windows` read as `MicrosoftŽWindows`) or
/// a lowercase one between capitals (`AB±CD`) is no repair.
pub(super) fn fits_case(prev: char, c: char, next: char) -> bool {
    if next.is_lowercase() {
        c.is_lowercase()
    } else {
        prev.is_uppercase() && next.is_uppercase() && c.is_uppercase()
    }
}

/// Two readings of one single-byte text compared character by character
/// (`None` when they differ in length): `repaired`, the symbols inside
/// words of the `label`'s reading that the `other` reads as a letter of a
/// writing system in the case of the word around it (`³` as `ł`,
/// [`fits_case`]), of `distinct` characters; `broken`, the
/// letters of the label's reading that the other reads as a symbol inside
/// a word.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Repair {
    pub repaired: usize,
    pub distinct: usize,
    pub broken: usize,
}

pub(super) fn repair(label: &str, other: &str) -> Option<Repair> {
    let a: Vec<char> = label.chars().collect();
    let b: Vec<char> = other.chars().collect();
    if a.len() != b.len() {
        return None;
    }
    let mut r = Repair::default();
    let mut seen: Vec<char> = Vec::new();
    for i in 1..a.len().saturating_sub(1) {
        if symbol_between(a[i - 1], a[i], a[i + 1])
            && b[i].alphabetic()
            && script(b[i]) != Script::Other
            && fits_case(a[i - 1], b[i], a[i + 1])
        {
            r.repaired += 1;
            if !seen.contains(&a[i]) {
                seen.push(a[i]);
            }
        }
        if symbol_between(b[i - 1], b[i], b[i + 1]) && a[i].alphabetic() {
            r.broken += 1;
        }
    }
    r.distinct = seen.len();
    Some(r)
}

/// Non-ASCII letters next to a letter of another writing system (ASCII
/// letters are Latin; the blocks real text rarely uses, [`Script::Other`],
/// are left out): `كçاب`, Arabic letters of ISO-8859-6 read as windows-1256.
/// Words keep to one writing system.
pub(super) fn mixed_script_letters(text: &str) -> usize {
    let mut n = 0usize;
    let mut prev: Option<Script> = None;
    for c in text.chars() {
        let here = if c.is_ascii_alphabetic() {
            Some(Script::Latin)
        } else if !c.is_ascii() && c.alphabetic() && script(c) != Script::Other {
            Some(script(c))
        } else {
            None
        };
        if let (Some(p), Some(h)) = (prev, here)
            && p != h
            && !c.is_ascii()
        {
            n += 1;
        }
        prev = here;
    }
    n
}

/// Whether half or more of the letters of `text` in a script other than
/// Latin sit alone between two ASCII letters (`M黱chen`, `Gr鲞e`): the
/// accented letters of a Latin text read as a CJK or Cyrillic charset, one
/// character each inside ASCII words. Text in such a script keeps its
/// letters together (`使用Linux系统`: none alone between ASCII letters).
/// A Greek, Cyrillic, Hebrew or Arabic letter needs an ASCII letter on one
/// side only: those scripts put a space or a hyphen between their words
/// and Latin ones, and Crimean Tatar read as windows-1251 is
/// `Aylanma dцgmesiniс etrafэndaki` (one letter of Cyrillic after a Latin
/// one, at the end of a word). So does a CJK character with no other
/// beside it (Danish `kontrollér` read as Shift_JIS, `kontroll駻`), and a
/// run of letters with an ASCII letter on both sides (`cs黷鰎t`).
pub(super) fn wedged_in_latin(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let (mut letters, mut wedged) = (0usize, 0usize);
    let (mut run_end, mut run_enclosed) = (0usize, false);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii() || !c.alphabetic() || matches!(script(c), Script::Latin | Script::Other) {
            continue;
        }
        letters += 1;
        let ascii_letter = |j: Option<usize>| {
            j.and_then(|j| chars.get(j))
                .is_some_and(char::is_ascii_alphabetic)
        };
        let (before, after) = (ascii_letter(i.checked_sub(1)), ascii_letter(Some(i + 1)));
        let spaced = matches!(
            script(c),
            Script::Greek | Script::Cyrillic | Script::Hebrew | Script::Arabic
        );
        // A Han, kana or Hangul character with no other beside it, against
        // a Latin word (`kontroll駻`): CJK words are runs of them.
        let own = |j: Option<usize>| {
            j.and_then(|j| chars.get(j))
                .is_some_and(|&d| !d.is_ascii() && d.alphabetic())
        };
        let alone = !own(i.checked_sub(1)) && !own(Some(i + 1));
        // A run of them between two ASCII letters (`cs黷鰎t`, Hungarian
        // `csütörtök` read as GBK from a `.cn` sender): the run's end is
        // looked for once, at its first letter.
        if i >= run_end {
            let mut e = i + 1;
            while own(Some(e)) {
                e += 1;
            }
            run_end = e;
            run_enclosed = before && ascii_letter(Some(e));
        }
        if run_enclosed || ((spaced || alone) && (before || after)) {
            wedged += 1;
        }
    }
    wedged > 0 && wedged * 2 >= letters
}

/// Whether every letter of `text` in a script other than Latin sits
/// against a Latin letter, two or more of them, or stands alone (a word of
/// one letter, French `à` read as `Ю`): Latin text whose accents another
/// script's charset read, with no word of that script's own (one letter
/// inside a Latin word is what a damaged octet makes under such a label).
pub(super) fn all_wedged_in_latin(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let ascii_letter = |j: Option<usize>| {
        j.and_then(|j| chars.get(j))
            .is_some_and(char::is_ascii_alphabetic)
    };
    let alphabetic =
        |j: Option<usize>| j.and_then(|j| chars.get(j)).is_some_and(|c| c.alphabetic());
    let (mut others, mut wedged) = (0usize, 0usize);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii() || !c.alphabetic() || matches!(script(c), Script::Latin | Script::Other) {
            continue;
        }
        let (before, after) = (i.checked_sub(1), Some(i + 1));
        if ascii_letter(before) || ascii_letter(after) {
            wedged += 1;
        } else if alphabetic(before) || alphabetic(after) {
            // A letter beside another of its script: a word of its own.
            others += 1;
        }
        // Alone (French `à` as `Ю`): a word of one letter, either way.
    }
    wedged >= 2 && others == 0
}

/// Whether more of the non-ASCII letters of `text` are in one writing
/// system other than Latin (Japanese and Korean counted as in
/// [`plausible`]) than are Latin.
pub(super) fn non_latin(text: &str) -> bool {
    let mut by = [0usize; 10];
    for c in text.chars() {
        if !c.is_ascii() && c.alphabetic() {
            by[script(c) as usize] += 1;
        }
    }
    let s = |x: Script| by[x as usize];
    let top = [
        s(Script::Greek),
        s(Script::Cyrillic),
        s(Script::Hebrew),
        s(Script::Arabic),
        s(Script::Thai),
        s(Script::Han) + s(Script::Kana),
        s(Script::Hangul) + s(Script::Han),
    ]
    .into_iter()
    .max()
    .unwrap_or(0);
    top > s(Script::Latin)
}

/// The case of a text's Cyrillic and Greek letters: `words` of two or more
/// letters with such a letter, of those the `inverted` ones, with a
/// lowercase letter before an uppercase one, and the `upper` and `lower`
/// such letters. Real text has few inverted words (`МосГорТранс`) and more
/// lowercase letters than capitals (but when it shouts); text in one
/// Cyrillic charset read in another has its case turned over: inverted
/// capitalised words (`рТЙЧЕФ` for KOI8-R `Привет` under windows-1251),
/// the rest in capitals.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Case {
    pub words: usize,
    pub inverted: usize,
    /// Words of a capital and lowercase letters (`Привет`).
    pub capitalised: usize,
    /// Of those, the ones that open a sentence: first on their line, or
    /// after `.` `!` `?` `…` with no `,` `;` `:` between.
    pub opening: usize,
    pub upper: usize,
    pub lower: usize,
}

impl Case {
    /// Whether the case looks like text's: more lowercase letters than
    /// capitals, and fewer than one word in 32 inverted.
    pub fn natural(&self) -> bool {
        self.upper <= self.lower && self.inverted * 32 < self.words.max(1)
    }
}

pub(super) fn case_of(text: &str) -> Case {
    let mut k = Case::default();
    // A word never spans a line end, and a line of ASCII has no Cyrillic or
    // Greek word: only the other lines are walked (a KOI8-R patch mail is
    // mostly ASCII lines).
    for line in text.split_inclusive('\n').filter(|l| !l.is_ascii()) {
        case_of_line(line, &mut k);
    }
    k
}

fn case_of_line(text: &str, k: &mut Case) {
    let (mut len, mut cased, mut lower, mut turned) = (0usize, false, false, false);
    let (mut first_upper, mut upper_after) = (false, false);
    let (mut sentence, mut opens) = (true, false);
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.alphabetic() {
            if len == 0 {
                first_upper = c.is_uppercase();
                opens = sentence;
            } else {
                upper_after |= c.is_uppercase();
            }
            len += 1;
            if matches!(script(c), Script::Cyrillic | Script::Greek) {
                cased = true;
                k.upper += usize::from(c.is_uppercase());
                k.lower += usize::from(c.is_lowercase());
            }
            turned |= lower && c.is_uppercase();
            lower |= c.is_lowercase();
            continue;
        }
        if len >= 2 && cased {
            k.words += 1;
            k.inverted += usize::from(turned);
            k.capitalised += usize::from(first_upper && !upper_after);
            k.opening += usize::from(first_upper && !upper_after && opens);
        }
        if len > 0 {
            sentence = false;
        }
        match c {
            '.' | '!' | '?' | '…' => sentence = true,
            ',' | ';' | ':' => sentence = false,
            _ => {}
        }
        (len, cased, lower, turned) = (0, false, false, false);
        (first_upper, upper_after) = (false, false);
    }
}

/// [`cyrillic_languages`] of a letter all six languages write.
const ALL_CYRILLIC: u8 = 0x3F;

/// Which of the Cyrillic-script languages whose charsets mail uses have
/// the lowercase letter `c` beyond the letters they all share: a bit each
/// for Russian, Ukrainian, Belarusian, Bulgarian, Serbian and
/// Macedonian; all six for a shared letter, none for any other character.
fn cyrillic_languages(c: char) -> u8 {
    const RU: u8 = 1;
    const UK: u8 = 2;
    const BE: u8 = 4;
    const BG: u8 = 8;
    const SR: u8 = 16;
    const MK: u8 = 32;
    const ALL: u8 = ALL_CYRILLIC;
    match c {
        'а' | 'б' | 'в' | 'г' | 'д' | 'е' | 'ж' | 'з' | 'к' | 'л' | 'м' | 'н' | 'о' | 'п' | 'р'
        | 'с' | 'т' | 'у' | 'ф' | 'х' | 'ц' | 'ч' | 'ш' => ALL,
        'и' => RU | UK | BG | SR | MK,
        'й' | 'ь' | 'ю' | 'я' => RU | UK | BE | BG,
        'щ' => RU | UK | BG,
        'ъ' => RU | BG,
        'ы' | 'э' | 'ё' => RU | BE,
        'і' => UK | BE,
        'ї' | 'є' | 'ґ' => UK,
        'ў' => BE,
        'ј' | 'љ' | 'њ' | 'џ' => SR | MK,
        'ђ' | 'ћ' => SR,
        'ѓ' | 'ќ' | 'ѕ' => MK,
        _ => 0,
    }
}

/// Words of `text` (each counted once, up to `enough`) that are Cyrillic
/// letters no one language writes together: Russian `ё ы э` beside
/// Serbian `ђ` or Macedonian `ѓ ќ` (`ёьхђѓ`, windows-1251 `смету` read as
/// ISO-8859-5), or with a symbol between two of them (`бьш№эютр`).
/// A Russian text quoting a Serbian name (`Ђорђевић`) has none: each word
/// is one language's. A word is a run of letters and symbols beyond ASCII
/// with a Cyrillic letter; ASCII ends it.
pub(super) fn cyrillic_misfits(text: &str, enough: usize) -> usize {
    let mut seen: Vec<&str> = Vec::new();
    for line in text.split_inclusive('\n').filter(|l| !l.is_ascii()) {
        let mut start = None;
        for (i, c) in line
            .char_indices()
            .chain(std::iter::once((line.len(), ' ')))
        {
            if !c.is_ascii() && (c.alphabetic() || word_symbol(c)) {
                start.get_or_insert(i);
                continue;
            }
            let Some(s) = start.take() else { continue };
            // Symbols at its edges are punctuation (`«Привет»`).
            let word = line[s..i].trim_matches(|c: char| !c.alphabetic());
            // A symbol between its letters makes it no one language's too
            // (`бьш№эютр`), but for box drawing: KOI8-R reads damaged
            // octets and KOI8-U's `і ї є ґ` as such, and whether those are
            // Ukrainian is the KOI8-U rule's question. A letter of another
            // script inside: not a Cyrillic word.
            let mut mask = ALL_CYRILLIC;
            let mut cyrillic = true;
            for c in word.chars() {
                let lower = c.to_lowercase().next().unwrap_or(c);
                if script(lower) == Script::Cyrillic {
                    mask &= cyrillic_languages(lower);
                } else if !c.alphabetic() && !('\u{2500}'..='\u{259F}').contains(&c) {
                    mask = 0;
                } else {
                    cyrillic = false;
                }
            }
            if cyrillic && mask == 0 && !word.is_empty() && !seen.contains(&word) {
                seen.push(word);
                if seen.len() >= enough {
                    return seen.len();
                }
            }
        }
    }
    seen.len()
}

/// The characters of a lossy UTF-8 reading a UTF-8 writer made, not octets
/// of another charset that happen to pair up: letters of a script real
/// text uses ([`script`]) and typography marks, inside a word or with no
/// U+FFFD beside them (a legacy text's chance pairs sit among its other
/// 8-bit octets, which are errors in UTF-8).
pub(super) fn utf8_standing(text: &str) -> usize {
    let chars: Vec<char> = text.chars().collect();
    let mut n = 0;
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii() || c == '\u{FFFD}' {
            continue;
        }
        let prev = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
        let next = chars.get(i + 1).copied();
        let kind = typography(c) || (c.alphabetic() && script(c) != Script::Other);
        let alone = prev != Some('\u{FFFD}') && next != Some('\u{FFFD}');
        let in_word = same_word(c, prev) || same_word(c, next);
        // A letter of [`rest_block`]'s scripts counts in a word of its
        // block only: alone between Latin letters it is what legacy
        // octets read as UTF-8 make (`LՎt` of `L’été`).
        if (kind && (alone || in_word)) || (rest_block(c).is_some() && in_word) {
            n += 1;
        }
    }
    n
}

/// The characters of a reading under a multi-octet label (UTF-8, a CJK
/// charset) that stand as its writer put them: letters of a script real
/// text uses, or typography marks ([`typography`]), whose neighbours are a
/// space, punctuation, a digit, a line's end, a letter of the same word
/// ([`same_word`]) or, on one side only, damage (U+FFFD). Italian `è`
/// between spaces, a Korean one-syllable word, `ť` after a lost octet
/// (`pam�ť,`) stand so; octets of another charset that pair up by chance
/// do not: they are wedged between letters of another script (`caf챕`,
/// `KӣKO`) or sit among errors (`�л�`), and the characters of
/// [`Script::Other`] blocks are what such pairs mostly make.
///
/// The symbols of the CJK charsets' symbol rows and of UTF-8 writers
/// ([`list_symbol`]: bullets, arrows, shapes, check marks, box drawing)
/// stand so too when no letter touches them: an English agenda under
/// EUC-JP with `■` before each item and one damaged octet was read whole
/// as IBM866, every bullet two Cyrillic letters (a symbol explained
/// nothing, and the label was "explaining little").
pub(super) fn standing(text: &str) -> usize {
    let chars: Vec<char> = text.chars().collect();
    let mut n = 0;
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii() || c == '\u{FFFD}' {
            continue;
        }
        let mark = typography(c);
        let symbol = !mark && list_symbol(c);
        let prev = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
        let next = chars.get(i + 1).copied();
        // A letter of [`rest_block`]'s scripts stands in a word of its
        // block only: alone beside damage it is what chance octets make
        // (GB2312 `越南` under a UTF-8 label reads `Խ��`).
        let rest =
            rest_block(c).is_some() && c.alphabetic() && (same_word(c, prev) || same_word(c, next));
        if !(mark || symbol || rest || (c.alphabetic() && script(c) != Script::Other)) {
            continue;
        }
        // A symbol stands apart when white space, ASCII punctuation, a
        // digit or a line's end is on each side: beside damage (U+FFFD)
        // it is what another charset's octets make (CP866 letters under
        // EUC-JP read `⑧ ┤ ≡` between errors).
        if symbol
            && ![prev, next].iter().all(|n| {
                n.is_none_or(|n| {
                    n.is_ascii_whitespace() || n.is_ascii_punctuation() || n.is_ascii_digit()
                })
            })
        {
            continue;
        }
        let fits = |n: Option<char>| {
            n.is_none_or(|n| n == '\u{FFFD}' || mark || !n.alphabetic() || same_word(c, Some(n)))
        };
        if fits(prev) && fits(next) && !(prev == Some('\u{FFFD}') && next == Some('\u{FFFD}')) {
            n += 1;
        }
    }
    n
}

/// The symbols writers set apart in text: bullets and list marks, arrows,
/// mathematical signs, enclosed numbers, box drawing and blocks,
/// geometric shapes, miscellaneous symbols and dingbats (`★ ☆ ♪ ✓ ✔`),
/// the CJK symbols and punctuation block, `§ ¶ × ÷ ± ※ ‧ ‥ ′ ″ ‰`, and
/// the fullwidth forms. What the symbol rows of GB2312, Big5, Shift_JIS,
/// EUC-JP and EUC-KR hold, and what UTF-8 mail lists with; [`standing`]
/// counts one when no letter touches it.
pub(super) fn list_symbol(c: char) -> bool {
    matches!(
        c,
        '\u{A7}'
            | '\u{B1}'
            | '\u{B6}'
            | '\u{D7}'
            | '\u{F7}'
            | '\u{2025}'
            | '\u{2027}'
            | '\u{2030}'
            | '\u{2032}'
            | '\u{2033}'
            | '\u{203B}'
            | '\u{2190}'..='\u{22FF}'
            | '\u{2460}'..='\u{24FF}'
            | '\u{2500}'..='\u{27BF}'
            | '\u{3000}'..='\u{303F}'
            | '\u{FF01}'..='\u{FF60}'
            | '\u{FFE0}'..='\u{FFE6}'
    )
}

/// Letters of a script other than Latin inside Latin words: in runs of one
/// to three with an ASCII letter on both sides (`f眉r`, `Fel鮠herren`,
/// `legisla눉찾o`, `aжb`), what a candidate charset makes of a Latin word's
/// accented letter. Returns those letters and all the letters of such
/// scripts in `text`. Text in such a script keeps most of its letters
/// apart from Latin words (`使用Linux系统`; `Tom和Jerry` has one).
pub(super) fn enclosed(text: &str) -> (usize, usize) {
    let chars: Vec<char> = text.chars().collect();
    let other = |c: char| {
        !c.is_ascii() && c.alphabetic() && !matches!(script(c), Script::Latin | Script::Other)
    };
    let (mut inside, mut letters) = (0, 0);
    let mut i = 0;
    while i < chars.len() {
        if !other(chars[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && other(chars[i]) {
            i += 1;
        }
        letters += i - start;
        let before = start
            .checked_sub(1)
            .is_some_and(|j| chars[j].is_ascii_alphabetic());
        let after = chars.get(i).is_some_and(char::is_ascii_alphabetic);
        if before && after && i - start <= 3 {
            inside += i - start;
        }
    }
    (inside, letters)
}

/// Whether a candidate's reading `t` puts letters of another script
/// inside Latin words where the label's reading `label` does not: a
/// quarter or more of its letters of such scripts ([`enclosed`]).
pub(super) fn wedges_more(t: &str, label: &str) -> bool {
    let (inside, letters) = enclosed(t);
    inside > enclosed(label).0 && inside * 4 >= letters
}

/// The typography Word, Outlook and Mac mailers put into Latin text:
/// quotes, dashes, bullet, ellipsis, `€ £ © ® ™ °`, guillemets, Spanish
/// `¡ ¿`, the middle dot, no-break space.
pub(super) fn typography(c: char) -> bool {
    matches!(
        c,
        '\u{2018}'
            ..='\u{201E}'
                | '\u{2013}'
                | '\u{2014}'
                | '\u{2022}'
                | '\u{2026}'
                | '\u{20AC}'
                | '\u{A0}'
                | '\u{A1}'
                | '\u{BF}'
                | '\u{B7}'
                | '\u{A3}'
                | '\u{A9}'
                | '\u{AB}'
                | '\u{AE}'
                | '\u{B0}'
                | '\u{BB}'
                | '\u{2122}'
    )
}

/// Whether `text` (a windows-1252 reading) is Latin text with Windows
/// typography: every character beyond ASCII a Latin letter next to another
/// letter or a mark of the typography Word and Outlook put in (`’ “ ” – —
/// … € £ • ©`, no-break space), at least one such mark; and `bytes` holds
/// no valid UTF-8 sequence of two octets or more, so no UTF-8 writer made
/// any of it. `Thanks — I’ll pay £40` labelled UTF-8 has no letter beyond
/// ASCII for [`plausible`] to count, and every one of its marks is an
/// error in UTF-8.
pub(super) fn typographic(text: &str, bytes: &[u8]) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let mut marks = 0;
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii() {
            continue;
        }
        let letter =
            |j: Option<usize>| j.and_then(|j| chars.get(j)).is_some_and(|c| c.alphabetic());
        if typography(c) {
            marks += 1;
        } else if !(script(c) == Script::Latin
            && c.alphabetic()
            && (letter(i.checked_sub(1)) || letter(Some(i + 1))))
        {
            return false;
        }
    }
    marks > 0
        && bytes
            .utf8_chunks()
            .all(|chunk| multi_octet_chars(chunk.valid()) == 0)
}

/// Whether most non-ASCII characters of `text` are letters next to another
/// letter (a word), not a lone octet of damage.
pub(super) fn words(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let mut nonascii = 0;
    let mut in_words = 0;
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii() {
            continue;
        }
        nonascii += 1;
        let letter =
            |j: Option<usize>| j.and_then(|j| chars.get(j)).is_some_and(|c| c.alphabetic());
        // A combining accent after a letter is in the letter's word
        // (windows-1258's Vietnamese tones: `ti` U+0300 `m`).
        let accent = matches!(c, '\u{300}'..='\u{36F}') && letter(i.checked_sub(1));
        if accent || c.alphabetic() && (letter(i.checked_sub(1)) || letter(Some(i + 1))) {
            in_words += 1;
        }
    }
    nonascii > 0 && in_words * 2 >= nonascii
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every character `symbols_in_words` passes over without a look is a
    /// letter, which `symbol_between` never counts.
    #[test]
    fn common_letters_are_alphabetic() {
        for c in (0u32..0x0500)
            .filter_map(char::from_u32)
            .filter(|&c| common_letter(c))
        {
            assert!(c.alphabetic(), "{c:?}");
            assert!(!symbol_between('a', c, 'b'), "{c:?}");
        }
    }

    proptest! {
        /// The walk with its shortcuts counts what a look at every
        /// character counts.
        #[test]
        fn symbols_in_words_counts_every_character(
            text in "[a-zA-Z \u{b9}\u{b3}\u{bf}\u{bc}\u{e9}\u{d7}\u{2116}\u{452}\u{430}-\u{44f}\u{2019}\u{c3}]{0,60}"
        ) {
            let chars: Vec<char> = text.chars().collect();
            let want = (1..chars.len().saturating_sub(1))
                .filter(|&i| symbol_between(chars[i - 1], chars[i], chars[i + 1]))
                .count();
            prop_assert_eq!(symbols_in_words(&text), want);
        }
    }

    #[test]
    fn cyrillic_words_of_no_one_language_are_counted_once() {
        // windows-1251 read as ISO-8859-5: letters of three languages in
        // one word, a `№` between letters; `ёьхђѓ` twice counts once.
        assert_eq!(cyrillic_misfits("ёьхђѓ ёьхђѓ бьш№эютр юсёѓфшђќ", 9), 3);
        assert_eq!(cyrillic_misfits("ёьхђѓ бьш№эютр юсёѓфшђќ", 2), 2);
        // Each word one language's: Russian, Serbian, Macedonian,
        // Ukrainian, Belarusian; guillemets at the edges are punctuation;
        // box drawing (KOI8-R's reading of KOI8-U letters) is not counted.
        for text in [
            "«Ещё» Ђорђевић Ѓорѓи Її ўвагу",
            "Прив╕т, друз╕!",
            "word ASCII only",
        ] {
            assert_eq!(cyrillic_misfits(text, 9), 0, "{text}");
        }
    }

    #[test]
    fn alphabetic_is_std() {
        for u in 0..=0x10_FFFF {
            if let Some(c) = char::from_u32(u) {
                assert_eq!(
                    c.alphabetic(),
                    c.is_alphabetic(),
                    "U+{u:04X}: std's Unicode data changed; run tools/gen_letter_bits.rs"
                );
            }
        }
    }

    #[test]
    fn find_nonascii_finds_the_first_at_every_position() {
        for len in 0..100 {
            let ascii = vec![b'a'; len];
            assert_eq!(find_nonascii(&ascii), None);
            for at in 0..len {
                let mut v = ascii.clone();
                v[at] = 0x80;
                if at + 1 < len {
                    v[len - 1] = 0xFF;
                }
                // Through `with_avx2` (AVX2 where the CPU has it) and plain.
                assert_eq!(find_nonascii(&v), Some(at), "{len} {at}");
                assert_eq!(find_nonascii_in(&v), Some(at), "plain: {len} {at}");
            }
        }
    }

    /// The definition `utf8_majority` computes faster.
    fn utf8_majority_by_chunks(bytes: &[u8]) -> bool {
        let (mut valid, mut invalid) = (0usize, 0usize);
        for chunk in bytes.utf8_chunks() {
            valid += multi_octet_chars(chunk.valid());
            invalid += usize::from(!chunk.invalid().is_empty());
        }
        valid >= 3 && valid > invalid
    }

    proptest! {
        #[test]
        fn utf8_majority_agrees_with_a_walk_of_every_chunk(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just(&b"caf\xc3\xa9 "[..]), Just(&b"\xe6\x97\xa5"[..]), Just(&b"\xf0\x9f\x9a\x80"[..]),
                    Just(&b"\xe9"[..]), Just(&b"\xe6\x97"[..]), Just(&b"\x80\x80"[..]), Just(&b"\xc0\xaf"[..]),
                    Just(&b"ascii words "[..]), Just(&b"\n"[..]), Just(&b"\xed\xa0\x80"[..]),
                ],
                0..40,
            ),
            noise in proptest::collection::vec(any::<u8>(), 0..40),
        ) {
            let mut bytes: Vec<u8> = parts.concat();
            bytes.extend_from_slice(&noise);
            prop_assert_eq!(utf8_majority(&bytes), utf8_majority_by_chunks(&bytes));
        }
    }

    /// `implausible` by a walk of every character.
    fn implausible_by_chars(text: &str) -> bool {
        let nonascii = text.chars().filter(|c| !c.is_ascii()).count();
        let bad = text
            .chars()
            .filter(|&c| {
                let u = u32::from(c);
                (0x80..0xA0).contains(&u)
                    || (0xE000..0xF900).contains(&u)
                    || (0xFF61..0xFFA0).contains(&u)
            })
            .count();
        bad >= 8 && bad * 2 >= nonascii
    }

    proptest! {
        #[test]
        fn implausible_agrees_with_a_walk_of_every_character(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just("\u{85}"), Just("\u{9f}"), Just("\u{e000}"), Just("\u{f8ff}"),
                    Just("ｶ"), Just("ﾟ"), Just("é"), Just("日本"), Just("🚀"),
                    Just(" words in ascii "), Just("\n"), Just("x"),
                    Just("a long enough run of plain ascii text to span whole blocks"),
                ],
                0..60,
            ),
        ) {
            let text: String = parts.concat();
            prop_assert_eq!(implausible(&text), implausible_by_chars(&text));
        }
    }

    #[test]
    fn writer_forms_must_be_complete() {
        assert_eq!(utf8_writer_forms(b"\xc0\x80"), 1);
        // Latin text's `JÁ…`, `voilà…”`: no writer's forms.
        assert_eq!(utf8_writer_forms(b"J\xc1\x85\n"), 0);
        assert_eq!(utf8_writer_forms(b"voil\xe0\x85\x94 "), 0);
        assert_eq!(utf8_writer_forms(b"a\xc1\x85b"), 1);
        // `Á…` alone or after a capital is Latin text's; after a small
        // letter, or with a letter (`Š`, 0x8A) for a sign, a writer's.
        assert_eq!(utf8_writer_forms(b"\xc1\x85"), 0);
        assert_eq!(utf8_writer_forms(b"a\xc1\x85 "), 1);
        assert_eq!(utf8_writer_forms(b"A\xc1\x8a "), 1);
        // `à…”` after a letter only, its signs both signs; no four-octet
        // form is Latin text's.
        assert_eq!(utf8_writer_forms(b" \xe0\x85\x94 "), 1);
        assert_eq!(utf8_writer_forms(b"voil\xe0\x85\x8a "), 1);
        assert_eq!(utf8_writer_forms(b"voil\xe0\x85\x94a"), 1);
        assert_eq!(utf8_writer_forms(b"a\xf0\x85\x85\x85 "), 1);
        assert_eq!(utf8_writer_forms(b"\xc0 "), 0);
        assert_eq!(utf8_writer_forms(b"\xed\xa0\x80"), 1);
        assert_eq!(utf8_writer_forms(b"\xed\xa0"), 0);
        assert_eq!(utf8_writer_forms(b"\xf8\x88\x80\x80\x80"), 1);
        assert_eq!(utf8_writer_forms(b"\xf8abc"), 0);
        assert_eq!(utf8_writer_forms(b"\xfc\x84\x80\x80\x80"), 0);
        assert_eq!(utf8_writer_forms("é日本🚀".as_bytes()), 0);
    }

    #[test]
    fn plausibility() {
        assert!(plausible("Привет, как дела? Всё хорошо."));
        assert!(plausible("Voilà déjà l'été"));
        assert!(plausible("日本語のテキストです"));
        assert!(!plausible("ÐŸÑ€Ð¸Ð²ÐµÑ‚ Ã©tÃ©"));
        assert!(!plausible("ﾆﾎﾝｺﾞﾉﾃｷｽﾄ"));
        assert!(implausible("ﾆﾎﾝｺﾞﾉﾃｷｽﾄﾃﾞｽ"));
        assert!(!implausible("こんにちはｶﾅ"));
    }
}
