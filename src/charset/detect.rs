//! Detection: chardetng's guess with the sender's top-level domain, the
//! Latin fallback to windows-1252, the UTF-16 byte-order guess, and what
//! bodies are checked for before any decoding (binary content, BOM-less
//! UTF-16/32).

use super::alphabets::{Alphabet, Letters, compare_fit};
use super::dispatch::{c1_twin, decode_with, has_c1};
use super::evidence::{Alphabetic, find_nonascii, typography, word_symbol};
use super::evidence::{plausible, wedged_in_latin, words};
use super::{Charset, Detected};

/// Detection: chardetng's guess over (up to) the first 256 KiB, UTF-8
/// allowed, with a heuristic confidence (chardetng gives no score): 0.99
/// for UTF-8 that validates with 8-bit content; otherwise 0.5 rising to
/// 0.95 with the number of 8-bit octets (64 or more) when the guess decodes
/// cleanly, 0.1 when it does not.
#[must_use]
pub fn detect(bytes: &[u8]) -> Detected {
    let charset = guess(bytes, None, true);
    let sample = &bytes[..bytes.len().min(256 * 1024)];
    let clean = charset.encoding().is_some_and(|e| {
        e.decode_without_bom_handling_and_without_replacement(sample)
            .is_some()
    });
    Detected {
        charset,
        confidence: confidence(charset, sample, clean),
    }
}

/// Whether UTF-16 without a byte order mark is big-endian, judged on the
/// first 64 KiB read both ways:
///
/// 1. a reading with unpaired surrogates loses to one without;
/// 2. else the reading with more white-space units (tab, line feed,
///    carriage return, space) wins: mail text has line ends and spaces,
///    and read the wrong way round they are U+0900, U+0A00, U+0D00 and
///    U+2000, which text almost never has;
/// 3. else (no white space: a short word) big-endian only when its high
///    octets stay in one block clearly more often (`be >= 2 * le + 2` units
///    whose high octet equals the previous unit's: Greek, kana, Thai);
/// 4. else little-endian, as WHATWG decodes the label and as Windows
///    writes it. (RFC 2781 4.3 says big-endian when nothing is known; in
///    mail BOM-less UTF-16 is mostly Windows'.)
pub(super) fn utf16_looks_big_endian(bytes: &[u8]) -> bool {
    let sample = &bytes[..bytes.len().min(64 << 10)];
    let units = |be: bool| {
        sample.chunks_exact(2).map(move |u| {
            if be {
                u16::from_be_bytes([u[0], u[1]])
            } else {
                u16::from_le_bytes([u[0], u[1]])
            }
        })
    };
    // Where the sample cuts the text, its last unit may be the first half
    // of a pair: not an error.
    let cut = bytes.len() > sample.len();
    let unpaired = |be: bool| {
        let mut n = sample.len() / 2;
        if cut
            && units(be)
                .next_back()
                .is_some_and(|u| (0xD800..0xDC00).contains(&u))
        {
            n -= 1;
        }
        char::decode_utf16(units(be).take(n)).any(|r| r.is_err())
    };
    match (unpaired(true), unpaired(false)) {
        (true, false) => return false,
        (false, true) => return true,
        _ => {}
    }
    let white = |be: bool| {
        units(be)
            .filter(|u| matches!(u, 0x09 | 0x0A | 0x0D | 0x20))
            .count()
    };
    let (white_be, white_le) = (white(true), white(false));
    if white_be != white_le {
        return white_be > white_le;
    }
    let same_block = |be: bool| {
        let mut prev = None;
        let mut n = 0usize;
        for u in units(be) {
            n += usize::from(prev == Some(u >> 8));
            prev = Some(u >> 8);
        }
        n
    };
    let (same_be, same_le) = (same_block(true), same_block(false));
    same_be >= 2 * same_le + 2
}

/// Which top-level domain the text came from (chardetng's hint): lower-case
/// ASCII letters, digits and `-`, at most 15 octets. Copy, so that it can
/// sit in [`DecodeOptions`](super::DecodeOptions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tld {
    buf: [u8; 15],
    len: u8,
}

impl Tld {
    /// The last label of a domain (`example.co.jp` → `jp`), if it is a
    /// plausible top-level domain.
    #[must_use]
    pub fn from_domain(domain: &[u8]) -> Option<Tld> {
        let domain = domain.strip_suffix(b".").unwrap_or(domain);
        let last = domain.rsplit(|&b| b == b'.').next()?;
        if last.is_empty()
            || last.len() > 15
            || last.len() == domain.len()
            || !last.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
            || last.iter().all(u8::is_ascii_digit)
        {
            return None;
        }
        let mut t = Tld::default();
        for (d, s) in t.buf.iter_mut().zip(last) {
            *d = s.to_ascii_lowercase();
        }
        t.len = last.len() as u8;
        Some(t)
    }

    /// The domain of the first address in a header value (`From:`,
    /// `Message-ID:`): what follows the last `@` up to `>`, white space, `)`
    /// or `,`.
    #[must_use]
    pub fn from_address(value: &[u8]) -> Option<Tld> {
        let at = memchr::memrchr(b'@', value)?;
        let rest = &value[at + 1..];
        let end = rest
            .iter()
            .position(|&b| matches!(b, b'>' | b')' | b',' | b';' | b'"') || b.is_ascii_whitespace())
            .unwrap_or(rest.len());
        Tld::from_domain(rest.get(..end)?)
    }

    /// The hint for a message: the sender's domain, else the Message-ID's.
    #[must_use]
    pub fn for_message(from: Option<&[u8]>, message_id: Option<&[u8]>) -> Option<Tld> {
        from.and_then(Tld::from_address)
            .or_else(|| message_id.and_then(Tld::from_address))
    }

    /// The label as chardetng wants it.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..usize::from(self.len)]
    }
}

/// How much of a text chardetng is given.
pub(super) const SAMPLE: usize = 256 * 1024;

/// A chardetng guess over (up to) the first [`SAMPLE`] octets.
pub(super) fn guess(bytes: &[u8], tld: Option<Tld>, allow_utf8: bool) -> &'static Charset {
    let sample = &bytes[..bytes.len().min(SAMPLE)];
    let mut det = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Allow);
    det.feed(&detector_input(sample), true);
    let tld = tld.as_ref().map(Tld::as_bytes);
    let enc = det.guess(
        tld,
        if allow_utf8 {
            chardetng::Utf8Detection::Allow
        } else {
            chardetng::Utf8Detection::Deny
        },
    );
    // Korean with a syllable beyond KS X 1001, which chardetng scores low
    // enough to guess Big5 for a short text (`decide::korean_beyond_ks`).
    if enc != encoding_rs::EUC_KR
        && enc != encoding_rs::UTF_8
        && super::decide::korean_beyond_ks(sample)
    {
        return Charset::for_encoding(encoding_rs::EUC_KR);
    }
    // Short Japanese in Shift_JIS, which chardetng may score below a
    // single-byte reading (`decide::shift_jis_kana`).
    if enc.is_single_byte() && super::decide::shift_jis_kana(sample) {
        return Charset::for_encoding(encoding_rs::SHIFT_JIS);
    }
    Charset::for_encoding(enc)
}

/// What chardetng is given of `sample`: the text without the lines of
/// ASCII octets that come after the first line end following a non-ASCII
/// octet. chardetng's guess is the same either way (for every hint, UTF-8
/// allowed or not), and those lines are most of a mostly-ASCII text (a
/// patch with an accented name): in chardetng 1.0 a line end puts every
/// candidate still in the running back into one state, and from that state
/// ASCII octets score nothing, count nothing `guess` reads and disqualify
/// no candidate, up to the next line end, which leaves the same state.
/// doc/charset-decision.md ("Detection input") has the reading of each
/// candidate; `dropped_ascii_lines_change_no_guess` checks it.
pub(super) fn detector_input(sample: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    use std::borrow::Cow;
    let Some(first) = super::evidence::find_nonascii(sample) else {
        return Cow::Borrowed(sample);
    };
    let Some(nl) = memchr::memchr(b'\n', &sample[first..]) else {
        return Cow::Borrowed(sample);
    };
    let mut at = first + nl + 1;
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    while let Some(i) = memchr::memchr(b'\n', &sample[at..]) {
        let end = at + i + 1;
        if sample[at..end].is_ascii() {
            out.get_or_insert_with(Vec::new)
                .extend_from_slice(&sample[copied..at]);
            copied = end;
        }
        at = end;
    }
    match out {
        None => Cow::Borrowed(sample),
        Some(mut v) => {
            v.extend_from_slice(&sample[copied..]);
            Cow::Owned(v)
        }
    }
}

/// The heuristic confidence of a guess (chardetng gives no score): 0.99
/// for valid UTF-8 with 8-bit content; otherwise 0.5 rising to 0.95 with
/// the number of 8-bit octets (64 or more) when the guess decodes cleanly,
/// 0.1 when it does not.
pub(super) fn confidence(cs: &'static Charset, bytes: &[u8], clean: bool) -> f32 {
    let eight = bytes.iter().filter(|b| !b.is_ascii()).count();
    if !clean {
        0.1
    } else if cs.is_utf8() && eight > 0 {
        0.99
    } else {
        0.5 + 0.45 * (eight.min(64) as f32 / 64.0)
    }
}

/// Latin-script single-byte encodings, among which mail readers default to
/// windows-1252.
pub(super) fn is_latin(cs: &'static Charset) -> bool {
    matches!(
        cs.decoder_name(),
        Some(
            "windows-1250"
                | "windows-1252"
                | "windows-1254"
                | "windows-1257"
                | "windows-1258"
                | "ISO-8859-2"
                | "ISO-8859-3"
                | "ISO-8859-4"
                | "ISO-8859-10"
                | "ISO-8859-13"
                | "ISO-8859-14"
                | "ISO-8859-15"
                | "ISO-8859-16"
        )
    )
}

/// windows-1252 (what mail readers fall back to) instead of a guess the
/// text does not bear out: another Latin charset whose windows-1252 reading
/// puts no non-letter inside a word (Polish `³` for `ł` would be one) and
/// fits a language's alphabet as well as the guess's does, or has one word
/// only that its alphabet does not hold and the guess changes fewer than
/// three words; the guess's own reading must fit one alphabet in every
/// word, with no symbol inside one (Turkish `çalıştır` is an
/// alphabet, its windows-1252 reading `çalýþtýr` no language's; Dutch
/// `één` read as ISO-8859-4 fits Czech as well, and stays windows-1252,
/// from a Czech sender too: French `à` is no `ŕ`; `Åsa` in an Irish text
/// is no Slovak `Ĺsa`); or
/// a non-Latin charset whose reading is not words (a lone `£` read as `г`;
/// `Größe` read from a `.cn` sender as GBK `Gr鲞e`, [`wedged_in_latin`]).
/// Then, when windows-1252's reading is no one language's, the charset of
/// [`latin_alternative`].
pub(super) fn latin_preference(
    bytes: &[u8],
    g: &'static Charset,
    tld: Option<Tld>,
) -> &'static Charset {
    if g.is_utf8() {
        return g;
    }
    // The Latin readings are compared on the first 64 KiB (windows-1252
    // decodes every octet, the Latin charsets one character an octet):
    // evidence enough, and a long text is not read seven times over.
    let sample = &bytes[..bytes.len().min(LATIN_SAMPLE)];
    // Vietnamese is no alphabet of `alphabets`: its windows-1258 reading
    // fitted none, and windows-1252's took its place (`Không tìm thấy` as
    // `Không tiÌm thâìy`). Its tone marks after its vowels say it.
    if g.decoder_name() == Some("windows-1258") {
        let (own, report, _) = decode_with(sample, g);
        if report.is_clean() && vietnamese_tones(&own) >= VIETNAMESE_TONES {
            return g;
        }
    }
    let (t, _, _) = decode_with(sample, Charset::WINDOWS_1252);
    // windows-1252's foreign words (up to two), counted once when asked.
    let foreign = std::cell::OnceCell::new();
    let t_foreign = || *foreign.get_or_init(|| misfits(&t, 2).0);
    let stands = g != Charset::WINDOWS_1252
        && if is_latin(g) {
            let (own, own_report, _) = decode_with(sample, g);
            let own_fits = own_report.is_clean() && misfits(&own, 1).0 == 0;
            if symbol_inside_word(&t, &own) {
                // The guess reads letters for windows-1252's symbols, so
                // windows-1252 is out whatever its foreign words; if the
                // guess's reading is still no one language's, a charset
                // whose reading is repairs them better (Czech ISO-8859-2
                // guessed as ISO-8859-4 from a `.lt` sender: `pøístupová`).
                return if own_fits {
                    g
                } else {
                    latin_alternative(sample, &t, || usize::MAX, tld).unwrap_or(g)
                };
            }
            own_fits
                && compare_fit(&own, &t) == Some(std::cmp::Ordering::Greater)
                && (t_foreign() >= 2 || words_changed(&t, &own, 3) >= 3 || mends_one_word(&t, &own))
        } else {
            let (own, own_report, _) = decode_with(bytes, g);
            own_report.is_clean()
                && words(&own)
                && (plausible(&own) || super::decide::japanese_halfwidth(g, bytes, &own))
                && !wedged_in_latin(&own)
        };
    if stands {
        g
    } else {
        latin_alternative(sample, &t, t_foreign, tld)
            .or_else(|| mac_typography(sample, &t))
            .or_else(|| nearly_fitting_alternative(sample, &t, t_foreign))
            .unwrap_or(Charset::WINDOWS_1252)
    }
}

/// A vowel a Vietnamese tone mark follows: ASCII's, and the letters
/// windows-1258 writes with their own octet (`ă â ê ô ơ ư`, capitals too).
/// `decide` derives its octet test from this and [`vietnamese_tone`].
pub(super) fn vietnamese_vowel(c: char) -> bool {
    matches!(c.to_ascii_lowercase(), 'a' | 'e' | 'i' | 'o' | 'u' | 'y')
        || matches!(
            c,
            'ă' | 'â' | 'ê' | 'ô' | 'ơ' | 'ư' | 'Ă' | 'Â' | 'Ê' | 'Ô' | 'Ơ' | 'Ư'
        )
}

/// The five tone marks windows-1258 writes after the vowel: combining
/// grave, acute, tilde, hook above and dot below.
pub(super) fn vietnamese_tone(c: char) -> bool {
    matches!(c, '\u{300}' | '\u{301}' | '\u{303}' | '\u{309}' | '\u{323}')
}

/// Tone marks a Vietnamese text in windows-1258 must show before it is
/// taken for one ([`vietnamese_tones`]).
pub(super) const VIETNAMESE_TONES: usize = 2;

/// The tone marks of a windows-1258 reading (combining grave, acute,
/// tilde, hook above and dot below, which the code page writes after the
/// vowel: `tìm` is `ti` `CC` `m`), when every one of them follows a
/// Vietnamese vowel in a one-syllable word (one run of vowels: `người`,
/// `thuyền`); else 0. Another Latin text read as windows-1258 puts them
/// after consonants (Italian `così`, `però`, Catalan `història`: their `ì`
/// and `ò` are windows-1258's acute and dot below), or inside words of
/// several syllables (Latvian `taustiņš`, `izmaiņas`: `ņ` is the dot
/// below, after a vowel).
pub(super) fn vietnamese_tones(text: &str) -> usize {
    let (vowel, tone) = (vietnamese_vowel, vietnamese_tone);
    let mut n = 0;
    for word in text.split(|c: char| !c.is_alphanumeric() && !tone(c)) {
        let mut tones = 0;
        let mut runs = 0;
        let mut prev = ' ';
        for c in word.chars() {
            if tone(c) {
                if !vowel(prev) {
                    return 0;
                }
                tones += 1;
                continue;
            }
            // One vowel twice in a row is no Vietnamese syllable's (but
            // `oo`, `xoong`): Turkish `IŞIK` in windows-1258 is `I`, a
            // tilde and `IK`.
            if vowel(c)
                && vowel(prev)
                && c.to_lowercase().eq(prev.to_lowercase())
                && !c.eq_ignore_ascii_case(&'o')
            {
                return 0;
            }
            runs += usize::from(vowel(c) && !vowel(prev));
            prev = c;
        }
        if tones > 0 && (tones > 1 || runs > 1) {
            return 0;
        }
        n += tones;
    }
    n
}

/// Mac OS Roman text whose only characters beyond ASCII are its
/// typography (`’ “ ” — …`), which windows-1252 reads as capitals
/// (`donÕt`, `ÒQ3 figuresÓ`, `reply Ñ IÕll`): no letter for the alphabets
/// to weigh. Taken when the Mac reading has nothing beyond ASCII but
/// such punctuation and signs, and windows-1252's reading has a capital
/// beyond ASCII right after a letter, a lowercase one on either side, in
/// two places or more (no language writes `donÕt` or `IÕll`; Portuguese
/// `nÃo` reads as Mac `n√o`, no typography).
fn mac_typography(bytes: &[u8], t: &str) -> Option<&'static Charset> {
    // Which octets Mac OS Roman has its punctuation and signs at, worked
    // out once from its decoder: most texts stop at their first letter.
    static TYPOGRAPHY: std::sync::LazyLock<[bool; 128]> = std::sync::LazyLock::new(|| {
        let mut table = [false; 128];
        for (i, slot) in table.iter_mut().enumerate() {
            let octet = [0x80 | i as u8];
            let (c, _) = encoding_rs::MACINTOSH.decode_without_bom_handling(&octet);
            *slot = c.chars().all(typography);
        }
        table
    });
    if !bytes
        .iter()
        .all(|&b| b.is_ascii() || TYPOGRAPHY[usize::from(b & 0x7F)])
    {
        return None;
    }
    (capitals_inside_words(t) >= 2).then(|| Charset::for_encoding(encoding_rs::MACINTOSH))
}

/// How much of a text [`latin_preference`] reads in each Latin charset.
const LATIN_SAMPLE: usize = 64 << 10;

/// How many different words two single-byte readings of the same octets
/// (a character an octet) read differently, counted up to `enough`.
fn words_changed(a: &str, b: &str, enough: usize) -> usize {
    changed_words(a, b, enough).len()
}

/// The words of `a` (lower case, each once) that `b`, the same octets in
/// another single-byte charset, reads differently, up to `enough`; each
/// with whether it is only ever written capitalised in `a` (a name), and
/// whether `b` reads it with as many letters everywhere it is (`kůň` as
/// `kùò`, not `ź` as `¼`).
fn changed_words(a: &str, b: &str, enough: usize) -> Vec<(String, bool, bool)> {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len() != b.len() {
        return Vec::new();
    }
    let letters = |w: &[char]| w.iter().filter(|c| c.alphabetic()).count();
    let mut changed: Vec<(String, bool, bool)> = Vec::new();
    let mut start = 0;
    for i in 0..=a.len() {
        if i < a.len() && (a[i].alphabetic() || b[i].alphabetic()) {
            continue;
        }
        if a[start..i] != b[start..i] {
            let word: String = a[start..i].iter().flat_map(|c| c.to_lowercase()).collect();
            let capital = a.get(start).is_some_and(|c| c.is_uppercase());
            let kept = letters(&b[start..i]) >= letters(&a[start..i]);
            if let Some(seen) = changed.iter_mut().find(|(w, _, _)| *w == word) {
                seen.1 &= capital;
                seen.2 &= kept;
            } else {
                changed.push((word, capital, kept));
                if changed.len() >= enough {
                    break;
                }
            }
        }
        start = i + 1;
    }
    changed
}

/// Whether the guess's reading `own` changes one word only of
/// windows-1252's reading `t`, that reading's one word outside its best
/// alphabet ([`misfits`]), written in lower case somewhere (no name) with
/// three letters or more: a Hungarian text whose only `ő` is in
/// `következő`, windows-1252 `következõ` (`õ` is no Hungarian letter and
/// Portuguese writes it only before `e`), guessed ISO-8859-2 by chardetng.
/// A foreign name (`Åsa` in an Irish text, ISO-8859-2 `Ĺsa`) is written
/// capitalised, and a one-letter word (French `à`, windows-1250 `ŕ`) is
/// no evidence.
fn mends_one_word(t: &str, own: &str) -> bool {
    let changed = changed_words(t, own, 2);
    let [(word, capital, kept)] = changed.as_slice() else {
        return false;
    };
    !capital
        && *kept
        && word.chars().filter(|c| c.alphabetic()).count() >= 3
        && foreign_to(t, Letters::of(t).best().0, 2) == [word.as_str()]
}

/// The Latin charsets that [`latin_alternative`] tries, in this order:
/// Turkish, Central European, Baltic, and Mac OS Roman (whose small
/// accented letters windows-1252 reads as `š Ÿ Š Ž` and symbols).
const LATIN_ALTERNATIVES: [&encoding_rs::Encoding; 7] = [
    encoding_rs::WINDOWS_1254,
    encoding_rs::WINDOWS_1250,
    encoding_rs::ISO_8859_2,
    encoding_rs::WINDOWS_1257,
    encoding_rs::ISO_8859_13,
    encoding_rs::ISO_8859_4,
    encoding_rs::MACINTOSH,
];

/// The Turkish, Central European, Baltic or Mac charset of a text whose
/// windows-1252 reading `t` does not fit one language (two words or more
/// with a letter outside the best-fitting alphabet or a symbol inside:
/// `t_foreign`, the caller's count of [`misfits`]), when
/// that charset's reading fits one throughout: chardetng said
/// windows-1252 (or a charset that did not stand) for Turkish
/// `çalýþtýrýlacak`, Croatian `velièine poèetnog`, Polish `B³±d`. The
/// reading must decode every octet, hold no C1 control and differ from
/// windows-1252's; of several, the one reading the most letters
/// (ISO-8859-2 `ąś` where windows-1250 reads `±¶`). One word is no sign:
/// a foreign name (`Åsa` in an Irish text) is not a Slovak `Ĺsa`, nor
/// Nynorsk `lèt` (`è` is no Norwegian letter here, since with it Croatian
/// `č ć` read as `è æ` would be Norwegian) a reason to read `regulært` as
/// Lithuanian `regulęrt`. So when windows-1252's reading has a single
/// foreign word, the charset must be the sender's country's ([`home`])
/// and change two words or more: a short Czech text from a `.cz` sender,
/// `Dobrý den, dìkuji ... odpovìï` (`ì ï` are Welsh letters and `ý` not).
fn latin_alternative(
    bytes: &[u8],
    t: &str,
    t_foreign: impl FnOnce() -> usize,
    tld: Option<Tld>,
) -> Option<&'static Charset> {
    if !single_octets(bytes) {
        return None;
    }
    let one_foreign = match t_foreign() {
        0 => return None,
        1 => true,
        _ => false,
    };
    best_latin_reading(
        bytes,
        t,
        LATIN_ALTERNATIVES.into_iter(),
        0,
        |enc, own, _| !one_foreign || (home(tld).contains(&enc) && words_changed(t, own, 2) >= 2),
    )
}

/// Whether the octets beyond ASCII of `bytes` stand mostly alone, as a
/// Latin text's accented letters do: octets mostly in pairs or runs are
/// no Latin text (CJK, UTF-8 read as Latin), and every single-byte
/// reading keeps the runs.
fn single_octets(bytes: &[u8]) -> bool {
    let (mut high, mut paired) = (0usize, 0usize);
    for w in bytes.windows(2) {
        if !w[0].is_ascii() {
            high += 1;
            paired += usize::from(!w[1].is_ascii());
        }
    }
    high > 0 && paired * 2 <= high
}

/// For each word outside its alphabet that [`nearly_fitting_alternative`]
/// lets a reading keep, windows-1252's reading must have this many.
const NEAR_FIT_RATIO: usize = 8;

/// The Turkish, Central European, Baltic or Mac charset of a text whose
/// windows-1252 reading `t` has many words no one language writes (eight
/// different ones or more, [`misfits`]; `t_foreign` counts up to two)
/// when that charset's reading has a few, one for each eight of
/// windows-1252's, and fits a language's alphabet better
/// ([`compare_fit`]); asked when no charset fits every word
/// ([`latin_alternative`]). A long text quotes a name or a loanword
/// of another language: Crimean Tatar `uslûp`, `Åland` or `arbëreshë`
/// among a hundred words such as `Uzunlýðý ... sýzýqlarý` (windows-1252)
/// kept the whole text windows-1252, where windows-1254 read all of them
/// but those. The other conditions are [`best_latin_reading`]'s.
fn nearly_fitting_alternative(
    bytes: &[u8],
    t: &str,
    t_foreign: impl FnOnce() -> usize,
) -> Option<&'static Charset> {
    // Most text stops at its second foreign word (`t_foreign`, the
    // caller's count of [`misfits`] up to two, counted once).
    if !single_octets(bytes) || t_foreign() < 2 {
        return None;
    }
    let allowed = misfits(t, 8 * NEAR_FIT_RATIO).0 / NEAR_FIT_RATIO;
    if allowed == 0 {
        return None;
    }
    best_latin_reading(
        bytes,
        t,
        LATIN_ALTERNATIVES.into_iter(),
        allowed,
        |_, own, _| compare_fit(own, t) == Some(std::cmp::Ordering::Greater),
    )
}

/// How many capitals beyond ASCII `text` has inside words: after a
/// letter, with a lowercase one on either side. No language writes
/// `pellgargaÒ` or `TomÈ` (Breton and Portuguese Latin-1 read as
/// macintosh, whose capitals sit where Latin-1 has its small letters), nor
/// `donÕt` or `IÕll` (Mac typography read as windows-1252). A text can
/// quote a few (a pattern, `^[yYaAáÁ]`); a reading is judged by having
/// more than another.
/// Whether `text` has a capital beyond ASCII inside a word
/// ([`capitals_inside_words`]).
pub(super) fn capitals_inside(text: &str) -> bool {
    capitals_inside_words(text) > 0
}

fn capitals_inside_words(text: &str) -> usize {
    let (mut n, mut a, mut b) = (0, ' ', ' ');
    for c in text.chars().chain(std::iter::once(' ')) {
        n += usize::from(
            !b.is_ascii()
                && b.is_uppercase()
                && a.alphabetic()
                && (a.is_lowercase() || c.is_lowercase()),
        );
        (a, b) = (b, c);
    }
    n
}

/// Of the charsets `encs`, the one whose reading of `bytes` (a character
/// an octet) differs from `t`, decodes every octet, holds no C1 control,
/// fits one alphabet in every word but `foreign` of them ([`misfits`]),
/// has no more capitals inside words than `t` ([`capitals_inside_words`]),
/// turns none of `t`'s letters into a symbol ([`letter_to_symbol`]: a
/// reading that fits because its symbols are no letters to judge,
/// Romanian `úžší` as macintosh `˙∏®Ì`, mends nothing) and passes `accept` (given the
/// charset, its reading and its letters); of several, the one reading the
/// most letters, the first of equals.
fn best_latin_reading(
    bytes: &[u8],
    t: &str,
    encs: impl Iterator<Item = &'static encoding_rs::Encoding>,
    foreign: usize,
    mut accept: impl FnMut(&'static encoding_rs::Encoding, &str, &Letters) -> bool,
) -> Option<&'static Charset> {
    let mut best: Option<(&'static Charset, usize)> = None;
    // Counted once, when a reading gets that far.
    let capitals = std::cell::OnceCell::new();
    for enc in encs {
        let cs = Charset::for_encoding(enc);
        let (own, report, _) = decode_with(bytes, cs);
        if !report.is_clean() || own == t || own.chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c))
        {
            continue;
        }
        let letters = Letters::of(&own);
        let n = letters.total();
        if n > 0
            && best.is_none_or(|(_, most)| n > most)
            && foreign_to(&own, letters.best().0, foreign + 1).len() <= foreign
            && capitals_inside_words(&own) <= *capitals.get_or_init(|| capitals_inside_words(t))
            && !letter_to_symbol(t, &own)
            && accept(enc, &own, &letters)
        {
            best = Some((cs, n));
        }
    }
    best.map(|(cs, _)| cs)
}

/// A Latin charset for text under a Latin label whose reading is no one
/// language's: three different words or more with a letter outside the
/// best-fitting alphabet (Portuguese `Joăo, informaçăo, tręs, açőes`:
/// ISO-8859-1 under an ISO-8859-2 label, whose `ă ő ę` are Romanian,
/// Polish and Hungarian). Tried: windows-1252, then [`LATIN_ALTERNATIVES`]
/// ([`best_latin_reading`]: clean, no C1 control, every word one
/// alphabet's; the most letters wins). The charset's reading must fit
/// better than the label's ([`compare_fit`]) and change the label's
/// doubtful words: three or more, not names (written only capitalised: a
/// list of names, `Čapek, Müller`, is anyone's), with letters outside the
/// charset's own best-fitting alphabet; and no more of the words the label
/// reads as one language's than of the label's foreign words (Latvian with
/// German and Czech names, `Kļūda ... Müller-Lüdenscheidt, Čapek` under
/// windows-1257, reads in windows-1252 as `Kïûda`, Dutch letters all, but
/// mends none of the names), unless no alphabet holds three in four of the
/// label's letters, forty or more. Returns the charset and the label's foreign
/// words (up to 64). A correctly labelled text fits its language's
/// alphabet, or has a foreign name or two (`Dvořák` in a German text);
/// what is in no alphabet here (a language the table does not hold)
/// rarely fits another one perfectly in another charset.
pub(super) fn alphabet_lie(
    bytes: &[u8],
    label: &'static Charset,
    text: &str,
) -> Option<(&'static Charset, usize)> {
    let sample = &bytes[..bytes.len().min(LATIN_SAMPLE)];
    // Three foreign words need three octets beyond ASCII (most text has a
    // name or two and stops here).
    let mut at = 0;
    for _ in 0..3 {
        at += 1 + find_nonascii(sample.get(at..)?)?;
    }
    // `text` is the label's reading, a character an octet.
    let l = if sample.len() == bytes.len() {
        text
    } else {
        text.char_indices()
            .nth(sample.len())
            .map_or(text, |(end, _)| &text[..end])
    };
    // Most text fits one alphabet: no word need be looked at. Unless the
    // label is an ISO 8859 charset and the text has octets where it has C1
    // controls: another charset's letters, which no alphabet counts (Mac
    // OS Roman's `í ó á` under ISO-8859-2, `Much\u{92}simas`).
    let letters = Letters::of(l);
    let abc = letters.best();
    let fits = abc.1 == letters.total();
    if fits && (label.encoding().and_then(c1_twin).is_none() || !has_c1(sample)) {
        return None;
    }
    let mut foreign = foreign_to(l, abc.0, 64);
    // Letters out of their place ([`alphabets::PLACES`]) can make another
    // alphabet the best one, which holds more of the text's other letters:
    // Hungarian `hőmérséklet ... tűz ... győződjön` under ISO-8859-1 is
    // Dutch but for `õ` (`tûz` is Dutch), where Portuguese, best when `õ`
    // counts wherever it stands, leaves `tûz` and `közel` foreign. The
    // words foreign to either alphabet are the label's doubtful ones.
    // (Foreign to that one wherever its letters stand: an Estonian text's
    // `õ`, `kõik`, held by Estonian anywhere and by Portuguese counted so,
    // is no doubtful word because Portuguese writes it only before `e`; a
    // damaged Estonian text was read as Mac OS Roman, `kıik`.)
    let anywhere = letters.best_anywhere();
    if anywhere != abc.0 {
        for word in foreign_to_anywhere(l, anywhere, 64) {
            if foreign.len() < 64 && !foreign.contains(&word) {
                foreign.push(word);
            }
        }
    }
    if foreign.len() < 3 {
        return None;
    }
    // No alphabet holds three in four of the reading's letters, forty or
    // more: no language's text with foreign names in it. Czech
    // windows-1250 under ISO-8859-1 (`Pøíliš žlu\u{9d}ouèký kùò úpìl`)
    // fits Welsh best, whose `ù ò ì ï` leave few of its words foreign.
    // Fewer letters are a short text, where a few names weigh as much
    // (`Kļūda ... Müller-Lüdenscheidt, Čapek, É` under windows-1257).
    let scattered = letters.total() >= 40 && abc.1 * 4 < letters.total() * 3;
    let encs = std::iter::once(encoding_rs::WINDOWS_1252)
        .chain(LATIN_ALTERNATIVES)
        .filter(|&enc| label.encoding() != Some(enc));
    let accept = |_: &'static encoding_rs::Encoding, own: &str, letters: &Letters| {
        // Where the label's letters all fit (its doubtful words are C1
        // controls inside them), fitting as well is enough.
        match compare_fit(own, l) {
            Some(std::cmp::Ordering::Greater) => {}
            Some(std::cmp::Ordering::Equal) | None if fits => {}
            _ => return false,
        }
        // It mends three words or more, not names, that are foreign to its
        // own alphabet (reading them with as many letters), and as many of
        // the label's foreign words as it changes of the words the label
        // reads as one language's.
        let changed = changed_words(l, own, usize::MAX);
        // It reads no word the label reads as one language's with fewer
        // letters: Mac OS Roman reads Romanian ISO-8859-2 under
        // ISO-8859-15 (`buclã recursivã`, Portuguese-like, and `încercare`)
        // as `bucl„ recursiv„ ... Óncercare`, every word one language's
        // for want of letters to judge.
        if changed
            .iter()
            .any(|(w, _, kept)| !kept && !foreign.contains(w))
        {
            return false;
        }
        let theirs = foreign_to(l, letters.best().0, usize::MAX);
        // A word it reads with fewer letters is no word mended (`ź` as
        // `¼` in a list of letters from many languages, `čtvrť` as
        // `ètvr»`).
        let mended = changed
            .iter()
            .filter(|(w, capital, kept)| !capital && *kept && theirs.contains(w))
            .count();
        let label_foreign = changed
            .iter()
            .filter(|(w, _, _)| foreign.contains(w))
            .count();
        mended >= 3 && (label_foreign >= changed.len() - label_foreign || scattered)
    };
    // A long text with a loanword or a name of another language (Turkish
    // `mémo`, Crimean Tatar `uslûp` among a hundred words such as
    // `Çýktý dosyasý`): a reading may keep one word outside its alphabet
    // for each eight of the label's ([`NEAR_FIT_RATIO`]).
    let cs = best_latin_reading(sample, l, encs.clone(), 0, accept).or_else(|| {
        let allowed = foreign.len() / NEAR_FIT_RATIO;
        (allowed > 0)
            .then(|| best_latin_reading(sample, l, encs, allowed, accept))
            .flatten()
    })?;
    Some((cs, foreign.len()))
}

/// The Central European and Turkish charsets of the countries whose
/// languages [`LATIN_ALTERNATIVES`] are for, by the sender's top-level
/// domain. Not the Baltic ones: windows-1257 reads Western `æ è ø å á` as
/// Lithuanian `ę č ų ą į`, so that Croatian `moguæe èitati` (windows-1250
/// read as windows-1252) from a `.lt` sender became `moguęe čitati`.
fn home(tld: Option<Tld>) -> &'static [&'static encoding_rs::Encoding] {
    const CENTRAL: &[&encoding_rs::Encoding] =
        &[encoding_rs::WINDOWS_1250, encoding_rs::ISO_8859_2];
    const TURKISH: &[&encoding_rs::Encoding] = &[encoding_rs::WINDOWS_1254];
    match tld.unwrap_or_default().as_bytes() {
        b"cz" | b"sk" | b"pl" | b"hu" | b"hr" | b"si" | b"ba" | b"rs" | b"me" | b"ro" => CENTRAL,
        b"tr" | b"az" => TURKISH,
        _ => &[],
    }
}

/// How far a Latin reading is from one language's text: how many
/// different words have a letter beyond ASCII outside the best-fitting
/// alphabet (`çalýþtýr` read as windows-1252: `ç` is no Icelandic letter),
/// or a symbol beyond ASCII inside them (`B³±d`; [`word_symbol`]: not
/// punctuation that words hold, `’` in `I’ll`, the Catalan middle dot of
/// `col·lecció`, `´` for an apostrophe, nor a no-break space). A name
/// written twice is one word; the count stops at `enough`. And the
/// reading's letters beyond ASCII.
fn misfits(text: &str, enough: usize) -> (usize, usize) {
    let letters = Letters::of(text);
    (
        foreign_to(text, letters.best().0, enough).len(),
        letters.total(),
    )
}

/// Whether a charset a document declares (`decl_text`, its reading) mends
/// the label's reading (`label_text`): the label's has a word no one
/// language's alphabet holds (Turkish windows-1254 under ISO-8859-1:
/// `Çýktý dosyasý oluþturulamadý`; Arabic windows-1256: `ÇÓã ããßä`), and
/// the declared one is another script's text, or fits an alphabet better.
/// A correctly labelled page under a stale `<meta>` fits its language's
/// alphabet, and the test stops at its first foreign word.
///
/// Another script's reading must keep its letters to words of their own:
/// a French page with a foreign name (`Motörhead`, a word no one alphabet
/// holds) under a stale KOI8-R or windows-1253 `<meta>` reads its accents
/// as Cyrillic or Greek letters inside Latin words (`DИfinit l'action Ю
/// exИcuter`: an independent review, 30 of 400 correct pages flipped).
pub(super) fn declared_mends(label_text: &str, decl_text: &str) -> bool {
    misfits(label_text, 1).0 > 0
        && if super::evidence::non_latin(decl_text) {
            super::evidence::mixed_script_letters(decl_text) == 0
        } else {
            // A Latin reading: every word one language's, no letter
            // turned into a sign or a combining mark (`Þórsson` as
            // windows-1258's `̃órsson` fits French better only by losing
            // its `Þ`), and a better fit than the label's.
            // It changes only words the label's reading has foreign: a
            // Catalan page with a foreign name under a stale windows-1250
            // `<meta>` fitted Slovak as a whole (`produďt`, `rŕdio`), but
            // `produït` and `ràdio` were Catalan words it broke.
            let abc = Letters::of(label_text).best().0;
            let foreign = foreign_to(label_text, abc, usize::MAX);
            declared_mends_weakly(label_text, decl_text) && misfits(decl_text, 1).0 == 0 && {
                // Two words or more: one is a foreign name (`Ørsted` as
                // windows-1250's `Řrsted`).
                let changed = changed_words(label_text, decl_text, usize::MAX);
                changed.len() >= 2 && changed.iter().all(|(w, _, _)| foreign.contains(w))
            }
        }
}

/// [`declared_mends`] for a Latin declaration that detection names too:
/// the label's reading has a word no alphabet holds, and the declared one
/// fits an alphabet better without losing a letter.
pub(super) fn declared_mends_weakly(label_text: &str, decl_text: &str) -> bool {
    let letters = |t: &str| {
        t.chars()
            .filter(|c| !c.is_ascii() && c.alphabetic())
            .count()
    };
    !super::evidence::non_latin(decl_text)
        && misfits(label_text, 1).0 > 0
        && letters(decl_text) >= letters(label_text)
        && compare_fit(decl_text, label_text) == Some(std::cmp::Ordering::Greater)
}

/// A symbol that has no place inside a word ([`word_symbol`]). Double
/// quotes are the same octets in every windows-125x charset, and Turkish
/// puts them before a suffix (`“dosya”nın`).
fn inner_symbol(c: char) -> bool {
    word_symbol(c) && !matches!(c, '\u{201C}'..='\u{201E}')
}

/// A sign no word starts with, before a letter: currency signs (before
/// numbers), mathematics, section and paragraph marks, fractions, the
/// degree sign. Not quotation marks or the Spanish opening marks, which
/// open words.
fn word_start_symbol(c: char) -> bool {
    matches!(
        c,
        '£' | '¥' | '¢' | '¤' | '±' | '×' | '÷' | '¬' | '¦' | '§' | '¶' | '¼' | '½' | '¾' | '°'
    )
}

/// A symbol no word ends with: signs of mathematics, spacing accents,
/// section and paragraph marks, fractions, daggers, bullets and the
/// Spanish opening marks. Not punctuation (`etc…`, `»`), nor the signs a word can carry
/// (`Yahoo!®`, `Nachweis¹`).
fn word_end_symbol(c: char) -> bool {
    matches!(
        c,
        '±' | '×'
            | '÷'
            | '¼'
            | '½'
            | '¾'
            | '¬'
            | '¦'
            | '¤'
            | '§'
            | '¶'
            | '¨'
            | '¯'
            | '¸'
            | '¡'
            | '¿'
            | '\u{02C7}'..='\u{02DD}'
            | '†'
            | '‡'
            | '•'
            | '⁄'
            | '\u{2202}'..='\u{22FF}'
            | '◊'
    )
}

/// Whether `own`, another single-byte reading of the octets `t` reads,
/// has a symbol ([`inner_symbol`]) where `t` has a letter between two
/// letters, or one no word ends with ([`word_end_symbol`]) where `t` ends
/// a word with one after a letter both read alike (Lithuanian `atsakymą`
/// with a damaged octet elsewhere, read as macintosh `atsakym±`). (Elsewhere,
/// `t`'s letter may be the other reading's punctuation: macintosh `«%s»`
/// and `etc…` read as windows-1252 are `Ç%sÈ` and `etcÉ`.)
fn letter_to_symbol(t: &str, own: &str) -> bool {
    // `t`'s characters three at a time, the first two's readings in `own`.
    let (mut a0, mut a1, mut b0, mut b1) = (' ', ' ', ' ', ' ');
    for (a2, b2) in t
        .chars()
        .zip(own.chars())
        .chain(std::iter::once((' ', ' ')))
    {
        if a1 != b1
            && a0.alphabetic()
            && a1.alphabetic()
            && !b1.alphabetic()
            && if a2.alphabetic() {
                inner_symbol(b1)
            } else {
                // After a letter both read alike: Spanish Mac `¿¿??` is
                // windows-1252 `ÀÀ??`.
                a0 == b0 && word_end_symbol(b1)
            }
        {
            return true;
        }
        // A word's first letter read as a sign no word starts with, the
        // next letter read alike: Polish `Łódź` in ISO-8859-2 is `£ód¼` in
        // windows-1252.
        if a1 != b1
            && !a0.alphabetic()
            && a1.alphabetic()
            && a2.alphabetic()
            && a2 == b2
            && word_start_symbol(b1)
        {
            return true;
        }
        (a0, a1, b0, b1) = (a1, a2, b1, b2);
    }
    false
}

/// The words of `text` (lower case, each once, up to `enough`) with a
/// letter outside the alphabet `abc` or a symbol inside ([`misfits`]).
fn foreign_to(text: &str, abc: Alphabet, enough: usize) -> Vec<String> {
    foreign_words(text, abc, enough, true)
}

/// [`foreign_to`] with the letters of [`alphabets::PLACES`] held wherever
/// they stand ([`Letters::best_anywhere`]'s alphabet).
fn foreign_to_anywhere(text: &str, abc: Alphabet, enough: usize) -> Vec<String> {
    foreign_words(text, abc, enough, false)
}

/// [`foreign_to`], the places of letters judged or not (`places`).
fn foreign_words(text: &str, abc: Alphabet, enough: usize, places: bool) -> Vec<String> {
    let symbol = inner_symbol;
    // Only words with a character beyond ASCII are looked at: from each
    // such character, back over the ASCII letters before it and on over
    // the letters and symbols after it.
    let bytes = text.as_bytes();
    let mut foreign: Vec<String> = Vec::new();
    let mut at = 0;
    while let Some(i) = find_nonascii(&bytes[at..]) {
        let i = at + i;
        let mut start = i;
        while start > at && bytes[start - 1].is_ascii_alphabetic() {
            start -= 1;
        }
        let rest = &text[start..];
        let end = start
            + rest
                .char_indices()
                .find(|&(_, c)| !c.alphabetic() && !symbol(c))
                .map_or(rest.len(), |(k, _)| k);
        if end <= i {
            // Punctuation every charset reads alike, a no-break space.
            at = i + text[i..].chars().next().map_or(1, char::len_utf8);
            continue;
        }
        let word = text[start..end].trim_matches(symbol);
        // (the character before the word: a digit before `1ºA`'s `º`)
        let at_word = end - text[start..end].trim_start_matches(symbol).len();
        let prev =
            std::iter::once(text[..at_word].chars().next_back()).chain(word.chars().map(Some));
        let next = word.chars().skip(1).map(Some).chain([None]);
        let odd = word.chars().zip(prev).zip(next).any(|((c, prev), next)| {
            !c.is_ascii()
                && (!c.alphabetic()
                    || !if places {
                        abc.holds_at(c, prev, next)
                    } else {
                        abc.holds(c)
                    })
        });
        if odd {
            let word = word.to_lowercase();
            if !foreign.contains(&word) {
                foreign.push(word);
                if foreign.len() >= enough {
                    break;
                }
            }
        }
        at = end;
    }
    foreign
}

/// Whether the windows-1252 reading `text` has a non-letter inside a word
/// where the guess's reading `guess` (a single-byte Latin charset: one
/// character per octet, as `text`) has a letter (`Wroc³aw`, `Wrocław`):
/// the sign that the text is in the other Latin charset. A non-letter both
/// charsets read alike is no such sign: the apostrophe of `I’ll` (`92` in
/// windows-1250 too) made an English text with a `£` Polish (`Ł40`).
pub(super) fn symbol_inside_word(text: &str, guess: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let other: Vec<char> = guess.chars().collect();
    let aligned = other.len() == chars.len();
    chars.windows(3).enumerate().any(|(i, w)| {
        !w[1].is_ascii()
            && !w[1].alphabetic()
            && w[0].alphabetic()
            && w[2].alphabetic()
            && (!aligned || other[i + 1].alphabetic())
    })
}

/// Magic numbers of files that are not text, and what they are.
const MAGIC: &[(&[u8], &str)] = &[
    (b"PK\x03\x04", "a zip archive"),
    (b"PK\x05\x06", "a zip archive"),
    (b"%PDF-", "a PDF document"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"\x1f\x8b\x08", "gzip data"),
    (b"BZh", "bzip2 data"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "an OLE document (MS Office)",
    ),
    (b"\x7fELF", "an ELF executable"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"OggS\x00", "Ogg media"),
    (b"fLaC\x00\x00\x00\x22", "FLAC audio"),
    (b"ID3\x02", "MP3 audio"),
    (b"ID3\x03", "MP3 audio"),
    (b"ID3\x04", "MP3 audio"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"wOFF\x00\x01\x00\x00", "a WOFF font"),
    (b"wOFFOTTO", "a WOFF font"),
    (b"wOF2\x00\x01\x00\x00", "a WOFF2 font"),
    (b"wOF2OTTO", "a WOFF2 font"),
    (b"\xfd7zXZ\x00", "xz data"),
    (b"\x28\xb5\x2f\xfd", "zstd data"),
    (b"MSCF\x00\x00\x00\x00", "a cabinet archive"),
    (b"\xca\xfe\xba\xbe", "a Java class or Mach-O executable"),
    (b"\xcf\xfa\xed\xfe", "a Mach-O executable"),
    (b"\xce\xfa\xed\xfe", "a Mach-O executable"),
];

/// RIFF containers (`RIFF`, a length, then the form): WAV audio, AVI
/// video, WebP images. `RIFF` alone could start a line of text.
const RIFF_FORMS: &[(&[u8; 4], &str)] = &[
    (b"WAVE", "WAV audio"),
    (b"AVI ", "AVI video"),
    (b"WEBP", "a WebP image"),
];

/// Whether a body starts with the magic number of a file that is not text.
pub(super) fn has_magic(bytes: &[u8]) -> bool {
    magic(bytes).is_some()
}

/// The first octets of the magic numbers (and of `RIFF`): most bodies
/// start with none of them, and are told so by one look.
const MAGIC_FIRST: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < MAGIC.len() {
        t[MAGIC[i].0[0] as usize] = true;
        i += 1;
    }
    t[b'R' as usize] = true;
    t
};

/// What file a body's magic number says it is, if any.
pub(super) fn magic(bytes: &[u8]) -> Option<&'static str> {
    if !MAGIC_FIRST[usize::from(*bytes.first()?)] {
        return None;
    }
    if bytes.starts_with(b"RIFF")
        && let Some(form) = bytes.get(8..12)
        && let Some((_, what)) = RIFF_FORMS.iter().find(|(f, _)| &f[..] == form)
    {
        return Some(what);
    }
    MAGIC
        .iter()
        .find(|(magic, _)| bytes.starts_with(magic) && (magic.len() >= 4 || bytes.len() > 16))
        .map(|m| m.1)
}

/// The bytes of a body that is not text: why, if so.
pub(super) fn binary(bytes: &[u8]) -> Option<&'static str> {
    if let Some(what) = magic(bytes) {
        return Some(what);
    }
    if !has_controls(bytes) {
        // A yEnc block of a small file often has no control among its
        // octets: the block's own syntax tells it.
        return yenc_block(bytes).then_some("yEnc-encoded data");
    }
    // A final SUB (the DOS end-of-file mark) and NULs after the text (a
    // mailer's padding) are not content.
    let end = bytes
        .iter()
        .rposition(|&b| !b.is_ascii_whitespace() && b != 0 && b != 0x1A)
        .map_or(0, |i| i + 1);
    let body = &bytes[..end];
    if memchr::memchr(0, body).is_some() {
        return Some("NUL octets");
    }
    // Controls other than TAB LF FF CR ESC SO SI: one or two in a long
    // text are damage (a kernel oops, a pasted terminal line); at 1% of
    // the octets or more, it is not text.
    let controls = body
        .iter()
        .filter(|&&b| matches!(b, 0x01..=0x08 | 0x0B | 0x10..=0x1A | 0x1C..=0x1F))
        .count();
    if controls > 0 && controls * 100 >= body.len() {
        return Some("control characters");
    }
    // A yEnc block (Usenet's 8-bit binary coding, pasted into mail):
    // octets shifted by 42, controls among them, a file however small in
    // however long a letter.
    (controls > 0 && yenc(body)).then_some("yEnc-encoded data")
}

/// Whether `body` holds a yEnc block: a line `=ybegin ` with `size=` and
/// `name=`, and a line `=yend` after it.
fn yenc(body: &[u8]) -> bool {
    let line_start = |at: usize| at == 0 || body[at - 1] == b'\n';
    let Some(begin) = memchr::memmem::find_iter(body, b"=ybegin ").find(|&at| line_start(at))
    else {
        return false;
    };
    let header_end = memchr::memchr(b'\n', &body[begin..]).map_or(body.len(), |i| begin + i);
    let header = &body[begin..header_end];
    memchr::memmem::find(header, b" size=").is_some()
        && memchr::memmem::find(header, b" name=").is_some()
        && memchr::memmem::find_iter(&body[header_end..], b"=yend")
            .any(|at| line_start(header_end + at))
}

/// Whether `body` holds a well-formed yEnc block, whatever its octets: a
/// line `=ybegin ` with `line=` and `size=` numbers and a `name=` (yEnc
/// 1.3), then, as the first `=yend ` line after it, one whose `size=` is the
/// same (or any, for a part of a multi-part file, `=ybegin part=`: then the
/// part's), and between them as many encoded octets as that size and at
/// most an eighth more (the escapes: `=` and an octet for NUL, LF, CR and
/// `=`, about 2% of a file), line ends not counted. An example of the
/// format quoted in a letter (a header and a trailer around a line or two,
/// `size=123456`) is no block, nor is prose that mentions `=ybegin`. One
/// pass: each `=ybegin` line is matched with the first `=yend` line after
/// it, and the search goes on from there (a body of many `=ybegin` lines
/// was searched to its end for each: 1.2 MB took 13 s).
pub(super) fn yenc_block(body: &[u8]) -> bool {
    let line_at = |at: usize| {
        let end = memchr::memchr(b'\n', &body[at..]).map_or(body.len(), |i| at + i);
        let line = &body[at..end];
        (line.strip_suffix(b"\r").unwrap_or(line), end)
    };
    let number = |line: &[u8], key: &[u8]| -> Option<u64> {
        let at = memchr::memmem::find_iter(line, key).find(|&i| i > 0 && line[i - 1] == b' ')?;
        let digits = line[at + key.len()..]
            .split(|&b| b == b' ')
            .next()
            .filter(|d| !d.is_empty() && d.iter().all(u8::is_ascii_digit))?;
        std::str::from_utf8(digits).ok()?.parse().ok()
    };
    static YBEGIN: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"=ybegin "));
    static YEND: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"=yend "));
    let mut from = 0;
    while let Some(at) = YBEGIN.find(&body[from..]).map(|i| from + i) {
        from = at + 1;
        if at > 0 && body[at - 1] != b'\n' {
            continue;
        }
        let (header, end) = line_at(at);
        let name = memchr::memmem::find(header, b" name=")
            .is_some_and(|i| header.len() > i + b" name=".len());
        let (Some(size), Some(_), true) =
            (number(header, b"size="), number(header, b"line="), name)
        else {
            continue;
        };
        let part = number(header, b"part=").is_some();
        // The first `=yend ` at a line start after the header.
        let mut search = end;
        let yend = loop {
            match YEND.find(&body[search..]).map(|i| search + i) {
                Some(i) if body[i - 1] == b'\n' => break Some(i),
                Some(i) => search = i + 1,
                None => break None,
            }
        };
        let Some(yend) = yend else {
            return false;
        };
        from = yend;
        let Some(expected) = number(line_at(yend).0, b"size=").filter(|&n| part || n == size)
        else {
            continue;
        };
        // The encoded octets between the header (and a part's `=ypart`
        // line) and the trailer.
        let data = &body[end.min(yend)..yend];
        let data = match data.strip_prefix(b"\n") {
            Some(d) if d.starts_with(b"=ypart ") => {
                let next = memchr::memchr(b'\n', d).map_or(d.len(), |i| i + 1);
                &d[next..]
            }
            Some(d) => d,
            None => data,
        };
        let octets = data.iter().filter(|&&b| b != b'\n' && b != b'\r').count() as u64;
        if octets >= expected && octets <= expected + expected / 8 + 64 {
            return true;
        }
    }
    false
}

/// A body read as UTF-16 or UTF-32 that is not text: why, if so. The
/// octet rules of [`binary`] on characters (a UTF-16/32 text has NUL octets
/// by nature, not U+0000): U+0000 inside the text (trailing ones are
/// padding), C0 controls other than TAB LF FF CR ESC or C1 controls at 1%
/// of the characters or more (SO and SI shift an ISO 2022 octet stream;
/// no UTF-16/32 text holds them, and PCM audio read as UTF-16 does);
/// noncharacters (U+FDD0..U+FDEF, U+FFFE, U+FFFF: never interchanged,
/// U+FFFE is a byte order mark read the wrong way round) at 1%; and decoding errors (unpaired
/// surrogates, values beyond U+10FFFF, a cut last unit), four or more and
/// at least 1% of the characters: fewer are damage to a text, random octets
/// make one in every 30 or so UTF-16 units and nearly every UTF-32 one;
/// and eight characters or more without white space that are no one
/// script's text.
pub(super) fn wide_binary(text: &str, errors: usize) -> Option<&'static str> {
    let body = text.trim_end_matches(|c: char| c == '\0' || c == '\u{1A}' || c.is_whitespace());
    if body.contains('\0') {
        return Some("U+0000 characters");
    }
    // One walk: characters, controls, noncharacters, private use.
    let (mut chars, mut controls, mut nonchars, mut private) = (0usize, 0usize, 0usize, 0usize);
    for c in body.chars() {
        let u = u32::from(c);
        chars += 1;
        controls += usize::from(matches!(
            u,
            0x01..=0x08 | 0x0B | 0x0E | 0x0F | 0x10..=0x1A | 0x1C..=0x1F | 0x80..=0x9F
        ));
        nonchars += usize::from(matches!(u, 0xFDD0..=0xFDEF) || u & 0xFFFE == 0xFFFE);
        // Random octets read as UTF-16 are private use one unit in ten
        // (U+E000..U+F8FF) and an unpaired surrogate one in thirty; text
        // has neither.
        private += usize::from(matches!(u, 0xE000..=0xF8FF | 0xF0000..));
    }
    if controls > 0 && controls * 100 >= chars {
        return Some("control characters");
    }
    if nonchars > 0 && nonchars * 100 >= chars {
        return Some("noncharacters");
    }
    if errors >= 4 && errors * 100 >= chars {
        return Some("ill-formed units");
    }
    let junk = private + errors;
    if junk >= 3 && junk * 10 >= chars {
        return Some("private-use characters and ill-formed units");
    }
    // Compressed data or a short random blob read as UTF-16: too few units
    // for the counts above, but no white space at all (ideographic space
    // included), and a seventh or more of its characters from blocks a CJK
    // or alphabetic text does not draw on: random units land anywhere in
    // the BMP, a quarter or more of them outside Han, Hangul, kana, CJK and
    // full-width signs, the alphabets, punctuation and enclosed numbers.
    // A one-line text (`２０２４年１２月３１日`, `株式會社삼성전자`,
    // `①②③`) draws on those only.
    if chars < 8 || body.chars().any(|c| c.is_whitespace()) {
        return None;
    }
    let odd = body.chars().filter(|&c| !usual_in_text(c)).count();
    (odd * 7 >= chars).then_some("characters of many scripts and no white space")
}

/// The blocks a text's characters are drawn from: ASCII to Arabic
/// (U+0000..U+06FF), Syriac to Sinhala (the Indic scripts), Thai, Lao,
/// Tibetan, Myanmar, Georgian, Ethiopic, Khmer, Latin Extended Additional
/// and Greek Extended,
/// general punctuation, currency, letterlike signs and number forms,
/// arrows and mathematical operators, enclosed alphanumerics, box drawing
/// and geometric shapes, CJK symbols and punctuation, kana, Bopomofo,
/// Hangul jamo
/// and syllables, enclosed CJK and compatibility forms, Han (with
/// Extension A and the compatibility ideographs), full-width and
/// half-width forms, and the surrogate pairs (emoji, rare Han).
fn usual_in_text(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{6FF}'
            | '\u{700}'..='\u{DFF}'
            | '\u{E00}'..='\u{10FF}'
            | '\u{1100}'..='\u{11FF}'
            | '\u{1200}'..='\u{137F}'
            | '\u{1780}'..='\u{17FF}'
            | '\u{1E00}'..='\u{1FFF}'
            | '\u{2000}'..='\u{22FF}'
            | '\u{2460}'..='\u{25FF}'
            | '\u{2600}'..='\u{27BF}'
            | '\u{3000}'..='\u{30FF}'
            | '\u{3100}'..='\u{318F}'
            | '\u{3200}'..='\u{33FF}'
            | '\u{3400}'..='\u{4DBF}'
            | '\u{4E00}'..='\u{9FFF}'
            | '\u{AC00}'..='\u{D7A3}'
            | '\u{F900}'..='\u{FAFF}'
            | '\u{FF00}'..='\u{FFEF}'
            | '\u{10000}'..
    )
}

/// Whether `bytes` holds NUL or a C0 control a text does not (00..08, 0B,
/// 10..1A, 1C..1F): one branch-free pass that the compiler vectorizes, as
/// every body is checked (AVX2 where the CPU has it: with SSE2 this pass
/// was over half of the charset layer's own time on clean mail).
pub(super) fn has_controls(bytes: &[u8]) -> bool {
    crate::codec::with_avx2(|| has_controls_in(bytes))
}

#[inline]
fn has_controls_in(bytes: &[u8]) -> bool {
    bytes
        .chunks(512)
        .any(|c| c.iter().fold(false, |acc, &b| acc | control(b)))
}

/// A control octet no text has ([`has_controls`]), branch-free.
#[inline]
fn control(b: u8) -> bool {
    (b < 0x09) | (b == 0x0B) | (b.wrapping_sub(0x10) < 0x0B) | (b.wrapping_sub(0x1C) < 0x04)
}

/// What one pass over a body finds: whether it has a control octet no text
/// has ([`has_controls`]), and the body as text when it is ASCII. Every
/// body is asked both (the binary check, then the label's reading): one
/// pass instead of two, and the reading of an ASCII body borrows it
/// without a third (`decide::labelled`).
#[derive(Clone, Copy, Debug)]
pub(super) struct BodyScan<'a> {
    pub(super) controls: bool,
    pub(super) ascii: Option<&'a str>,
}

impl<'a> BodyScan<'a> {
    /// `bytes` as text when ASCII: the body's scan says (`scan`), else one
    /// pass over them (a header's text has no scan).
    pub(super) fn ascii_text(scan: Option<Self>, bytes: &'a [u8]) -> Option<&'a str> {
        match scan {
            Some(scan) => scan.ascii,
            None => crate::codec::ascii_str(bytes),
        }
    }
}

pub(super) fn scan_body(bytes: &[u8]) -> BodyScan<'_> {
    let (controls, ascii) = crate::codec::flag_and_ascii(bytes, control);
    BodyScan { controls, ascii }
}

/// UTF-16 or UTF-32 without a byte order mark, told by where its NULs are
/// (ASCII and Latin text in UTF-16 has a NUL in every other octet).
pub(super) fn nul_shaped(bytes: &[u8]) -> Option<&'static Charset> {
    let sample = &bytes[..bytes.len().min(4096)];
    if sample.len() < 8 || memchr::memchr(0, sample).is_none() {
        return None;
    }
    let mut at = [0usize; 4];
    for (i, &b) in sample.iter().enumerate() {
        if b == 0 {
            at[i % 4] += 1;
        }
    }
    let quarter = sample.len() / 4;
    let many = |n: usize| n * 10 >= quarter * 6;
    let few = |n: usize| n * 10 <= quarter;
    // UTF-32: three NULs in four (BE: the first three; LE: the last three).
    if many(at[0]) && many(at[1]) && few(at[3]) && sample.len().is_multiple_of(4) {
        return Some(Charset::UTF_32BE);
    }
    if many(at[1]) && many(at[2]) && many(at[3]) && few(at[0]) && sample.len().is_multiple_of(4) {
        return Some(Charset::UTF_32LE);
    }
    let (even, odd) = (at[0] + at[2], at[1] + at[3]);
    let half = sample.len() / 2;
    if even * 10 >= half * 3 && odd * 20 <= half {
        return Some(Charset::UTF_16BE);
    }
    if odd * 10 >= half * 3 && even * 20 <= half {
        return Some(Charset::UTF_16LE);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charset::DecodeOptions;
    use proptest::prelude::*;

    /// chardetng's guess over all of `bytes` and over what
    /// [`detector_input`] keeps of it, under every hint given here.
    fn same_guesses(bytes: &[u8]) -> Result<(), TestCaseError> {
        const TLDS: &[Option<&[u8]>] = &[
            None,
            Some(b"com"),
            Some(b"jp"),
            Some(b"cn"),
            Some(b"tw"),
            Some(b"hk"),
            Some(b"kr"),
            Some(b"ru"),
            Some(b"ua"),
            Some(b"gr"),
            Some(b"il"),
            Some(b"eg"),
            Some(b"th"),
            Some(b"vn"),
            Some(b"tr"),
            Some(b"pl"),
            Some(b"cz"),
            Some(b"lt"),
            Some(b"ee"),
            Some(b"is"),
            Some(b"fr"),
            Some(b"es"),
        ];
        let fed = |input: &[u8]| {
            let mut det = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Allow);
            det.feed(input, true);
            det
        };
        let kept = detector_input(bytes);
        let (all, part) = (fed(bytes), fed(&kept));
        for tld in TLDS {
            for utf8 in [
                chardetng::Utf8Detection::Allow,
                chardetng::Utf8Detection::Deny,
            ] {
                prop_assert_eq!(
                    all.guess(*tld, utf8),
                    part.guess(*tld, utf8),
                    "hint {:?}, kept {:?}",
                    tld.map(String::from_utf8_lossy),
                    String::from_utf8_lossy(&kept)
                );
            }
        }
        Ok(())
    }

    /// Lines of text in many scripts, and ASCII lines of the shapes
    /// chardetng's candidates look at (capitals, digits, Roman numerals,
    /// `N`, `M`, `n.`, spaces, CR, controls).
    const TEXTS: &[&str] = &[
        "Ça va très bien, où est l'été? Mª José vive en el 3º piso, Nº 5, n.º1",
        "Größe Übermaß Straße ÄÖÜ äöü © 2020 ª º",
        "Zażółć gęślą jaźń, Wrocław ŁÓDŹ",
        "Příliš žluťoučký kůň úpěl ďábelské ódy",
        "Iğdır şehri, ĞÜŞİÖÇ ğüşıöç",
        "Tiếng Việt có dấu, Hà Nội",
        "Съешь же ещё этих мягких французских булок, да выпей чаю. ЁЖИК",
        "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία ΑΒΓΔ",
        "עטלף אבק נס דרך מזגן שהתפוצץ כי חם",
        "نص حكيم له سر قاطع وذو شأن عظيم",
        "เป็นมนุษย์สุดประเสริฐเลิศคุณค่า",
        "いろはにほへと ちりぬるを カタカナ 漢字",
        "中文简体字 我们的 谢谢",
        "繁體中文 這是 謝謝",
        "한국어 텍스트 안녕하세요",
    ];

    const ENCODINGS: &[&encoding_rs::Encoding] = &[
        encoding_rs::UTF_8,
        encoding_rs::WINDOWS_1250,
        encoding_rs::WINDOWS_1251,
        encoding_rs::WINDOWS_1252,
        encoding_rs::WINDOWS_1253,
        encoding_rs::WINDOWS_1254,
        encoding_rs::WINDOWS_1255,
        encoding_rs::WINDOWS_1256,
        encoding_rs::WINDOWS_1257,
        encoding_rs::WINDOWS_1258,
        encoding_rs::WINDOWS_874,
        encoding_rs::ISO_8859_2,
        encoding_rs::ISO_8859_5,
        encoding_rs::ISO_8859_7,
        encoding_rs::ISO_8859_8,
        encoding_rs::KOI8_R,
        encoding_rs::KOI8_U,
        encoding_rs::IBM866,
        encoding_rs::X_MAC_CYRILLIC,
        encoding_rs::SHIFT_JIS,
        encoding_rs::EUC_JP,
        encoding_rs::EUC_KR,
        encoding_rs::GBK,
        encoding_rs::BIG5,
        encoding_rs::ISO_2022_JP,
    ];

    const ASCII_LINES: &[&str] = &[
        "",
        " ",
        "\t",
        "\r",
        "Hello World, this is PLAIN ascii TEXT.",
        "ALL CAPS LINE",
        "lower case words only",
        "I V X 3 N M D S n. Nº",
        "a\rb",
        "x\x0cy\x01z\x7f",
        "0123456789 +-*/ .,;:!? ~{ }~ +ADw-",
        "--",
        "> quoted reply Line",
    ];

    fn line() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            // A text line in one charset (what it cannot encode, as NCRs).
            (0..TEXTS.len(), 0..ENCODINGS.len(), 0..4usize).prop_map(|(t, e, cut)| {
                let (b, _, _) = ENCODINGS[e].encode(TEXTS[t]);
                // Sometimes a piece of it: a word, or a cut character.
                let b = b.into_owned();
                let n = b.len();
                b[..n - (n / 4) * cut.min(1)].to_vec()
            }),
            (0..ASCII_LINES.len()).prop_map(|a| ASCII_LINES[a].as_bytes().to_vec()),
            (0..ASCII_LINES.len()).prop_map(|a| ASCII_LINES[a].as_bytes().to_vec()),
            // Octets of any kind but LF.
            prop::collection::vec(any::<u8>().prop_filter("LF", |b| *b != b'\n'), 0..12),
        ]
    }

    #[test]
    fn detector_input_drops_whole_ascii_lines_after_the_first_8bit_line() {
        let kept = |b: &[u8]| detector_input(b).into_owned();
        // Lines before the first 8-bit octet's line end stay (chardetng
        // skips that prefix itself), and so does an unterminated last line.
        assert_eq!(
            kept(b"ascii\n\xe9t\xe9\nplain\r\nmore\n\xe9\nend"),
            b"ascii\n\xe9t\xe9\n\xe9\nend"
        );
        assert_eq!(kept(b"a \xe9 N\no\n"), b"a \xe9 N\n");
        // A line with an 8-bit octet stays whole (`n.\xba1` is an ordinal).
        assert_eq!(kept(b"\xe9\nn.\xba1\n"), b"\xe9\nn.\xba1\n");
        assert!(matches!(
            detector_input(b"no line end after \xe9 here"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert!(matches!(
            detector_input(b"ascii only\n"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    /// What `decide::iso2022jp_in_ascii` stands in for: chardetng's guess
    /// is ISO-2022-JP and the reading is clean and text.
    fn chardetng_reads_iso2022jp(text: &[u8]) -> bool {
        let jp = Charset::for_encoding(encoding_rs::ISO_2022_JP);
        memchr::memmem::find(text, b"\x1b$").is_some() && guess(text, None, false) == jp && {
            // ISO-2022-JP itself (`decode_with` falls back on the -2
            // superset for escapes it lacks; chardetng does not).
            let (t, report, used) = decode_with(text, jp);
            report.is_clean()
                && used == jp
                && t.chars().filter(|c| !c.is_ascii()).count() >= 4
                && plausible(&t)
                && words(&t)
        }
    }

    fn iso2022jp_in_ascii(text: &[u8]) -> bool {
        super::super::decide::iso2022jp_in_ascii(text, &DecodeOptions::default()).is_some()
    }

    #[test]
    fn iso2022jp_past_chardetngs_sample_is_its_answer_too() {
        let (jp, _, _) =
            encoding_rs::ISO_2022_JP.encode("いろはにほへと ちりぬるを カタカナ 漢字\n");
        // The first ESC inside the sample, and after it (chardetng sees
        // ASCII only, and no escape).
        for pad in [SAMPLE - 200, SAMPLE + 10] {
            let mut text = b"plain words\n".repeat(pad / 12);
            text.extend_from_slice(&jp);
            text.extend_from_slice(&jp);
            assert_eq!(
                iso2022jp_in_ascii(&text),
                chardetng_reads_iso2022jp(&text),
                "pad {pad}"
            );
        }
    }

    /// 7-bit text with ISO-2022-JP in it, damaged: octets changed to other
    /// 7-bit ones (SO, SI, ESC among them), escapes cut short.
    fn seven_bit() -> impl Strategy<Value = Vec<u8>> {
        let line = prop_oneof![
            (0..TEXTS.len()).prop_map(|t| {
                let (b, _, _) = encoding_rs::ISO_2022_JP.encode(TEXTS[t]);
                b.into_owned()
            }),
            (0..ASCII_LINES.len()).prop_map(|a| ASCII_LINES[a].as_bytes().to_vec()),
        ];
        (
            prop::collection::vec(line, 1..8),
            prop::collection::vec((any::<prop::sample::Index>(), 0..0x80u8), 0..3),
            any::<prop::sample::Index>(),
            any::<bool>(),
        )
            .prop_map(|(lines, damage, cut, cut_it)| {
                let mut text = lines.join(&b"\n"[..]);
                for (at, b) in damage {
                    if !text.is_empty() {
                        let i = at.index(text.len());
                        text[i] = if b % 3 == 0 {
                            [0x0E, 0x0F, 0x1B][usize::from(b) % 3]
                        } else {
                            b
                        };
                    }
                }
                if cut_it && !text.is_empty() {
                    text.truncate(cut.index(text.len()));
                }
                text
            })
    }

    proptest! {
        #[test]
        fn dropped_ascii_lines_change_no_guess(
            lines in prop::collection::vec(line(), 1..24),
            crlf in any::<bool>(),
            last_newline in any::<bool>(),
        ) {
            let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
            let mut text = lines.join(eol);
            if last_newline {
                text.extend_from_slice(eol);
            }
            same_guesses(&text)?;
        }

        /// `decide::iso2022jp_in_ascii` answers without chardetng what
        /// chardetng's guess and a clean reading answered together.
        #[test]
        fn iso2022jp_without_chardetng_is_chardetngs_answer(text in seven_bit()) {
            let chardetng = chardetng_reads_iso2022jp(&text);
            let ours = iso2022jp_in_ascii(&text);
            prop_assert_eq!(ours, chardetng, "{:?}", String::from_utf8_lossy(&text));
        }
    }

    #[test]
    fn tld_from_addresses() {
        let t = |v: &[u8]| Tld::from_address(v).map(|t| t.as_bytes().to_vec());
        assert_eq!(t(b"Jos\xe9 <jose@example.ES>"), Some(b"es".to_vec()));
        assert_eq!(t(b"<1234@mail.example.co.jp>"), Some(b"jp".to_vec()));
        assert_eq!(t(b"a@localhost"), None);
        assert_eq!(t(b"a@[127.0.0.1]"), None);
        assert_eq!(t(b"a@b.\xc3\xa9"), None);
        assert_eq!(t(b"no address"), None);
    }

    #[test]
    fn controls_are_found_fast_and_right() {
        for b in 0..=255u8 {
            let text = matches!(b, 0x09 | 0x0A | 0x0C | 0x0D | 0x0E | 0x0F | 0x1B) || b >= 0x20;
            let mut v = vec![b'a'; 100];
            v[77] = b;
            assert_eq!(has_controls(&v), !text, "{b:#04x}");
        }
        // At lane and block ends, through `with_avx2` (the AVX2 path where
        // the CPU has it) and through the plain scan.
        for at in [0, 15, 16, 31, 32, 63, 64, 511, 512, 513, 1023, 1029] {
            for b in [0x00, 0x08, 0x0B, 0x10, 0x1A, 0x1C, 0x1F] {
                let mut v = vec![b'a'; 1030];
                assert!(!has_controls(&v) && !has_controls_in(&v));
                v[at] = b;
                assert!(has_controls(&v), "{b:#04x} at {at}");
                assert!(has_controls_in(&v), "{b:#04x} at {at}");
            }
        }
    }

    /// The one-pass scan agrees with `has_controls` and `is_ascii` for
    /// every octet, wherever it falls, and when a control and an 8-bit
    /// octet both come (the scan stops at the block that has both).
    #[test]
    fn body_scan_agrees_with_its_two_questions() {
        for at in [0, 31, 32, 511, 512, 1029] {
            for b in 0..=255u8 {
                let mut v = vec![b'a'; 1030];
                v[at] = b;
                let scan = scan_body(&v);
                assert_eq!(scan.controls, has_controls(&v), "{b:#04x} at {at}");
                assert_eq!(
                    scan.ascii.map(str::as_bytes),
                    v.is_ascii().then_some(&v[..])
                );
                let mut w = v.clone();
                w[1029 - at] = 0x80;
                w[at] = b;
                let scan = scan_body(&w);
                assert_eq!(
                    (scan.controls, scan.ascii.is_some()),
                    (has_controls(&w), w.is_ascii()),
                    "{b:#04x} at {at}, 0x80 at {}",
                    1029 - at
                );
            }
        }
    }

    #[test]
    fn binary_content() {
        assert_eq!(binary(b"PK\x03\x04\x14\x00"), Some("a zip archive"));
        assert_eq!(binary(b"text\x00more"), Some("NUL octets"));
        assert_eq!(binary(b"tab\tform\x0cfeed\r\n\x1b$B"), None);
        assert_eq!(binary(b"dos text\r\n\x1a"), None);
        assert_eq!(binary(b"</html>\n\x00"), None);
        assert_eq!(binary(b"</html>\n\x00\x00\n"), None);
        assert_eq!(binary(b"a\x00b"), Some("NUL octets"));
        assert_eq!(binary(b"bell\x07"), Some("control characters"));
        let oops = [b"Process \x19EUR".as_slice(), &[b'x'; 200]].concat();
        assert_eq!(binary(&oops), None);
    }

    #[test]
    fn wide_binary_is_told_by_characters() {
        assert_eq!(wide_binary("text\u{0}more", 0), Some("U+0000 characters"));
        assert_eq!(wide_binary("text padded\n\u{0}\u{0}", 0), None);
        assert_eq!(wide_binary("a\u{85}b", 0), Some("control characters"));
        // Shift codes of ISO 2022 and noncharacters: PCM audio read as UTF-16.
        assert_eq!(
            wide_binary("\u{FF29}ɆHﾱ\u{E}\u{FEC9}", 0),
            Some("control characters")
        );
        assert_eq!(wide_binary("ｽÃ9ﾋЮﺜĭƕE\u{FDE8}︍", 0), Some("noncharacters"));
        assert_eq!(wide_binary("text\u{FFFE} more", 0), Some("noncharacters"));
        assert_eq!(
            wide_binary(&format!("{}\u{FFFF}", "text ".repeat(30)), 0),
            None
        );
        let text = "日本語のテキストです。".repeat(30);
        assert_eq!(wide_binary(&text, 3), None);
        assert_eq!(wide_binary(&text, 4), Some("ill-formed units"));
        assert_eq!(wide_binary(&"日本語".repeat(200), 4), None);
        // Private use one character in ten (with errors): random octets.
        let blob = "\u{E123}漢\u{FFFD}가\u{F00D}ꙮ\u{E800}ᚠ\u{F111}\u{4E00}".repeat(3);
        assert!(wide_binary(&blob, 3).is_some());
        // Text with a few private-use characters (a vendor's emoji, a
        // user-defined character) is text.
        let text = format!(
            "{}\u{E63E}\u{E63F}",
            "今日は晴れです。明日は雨でしょう。".repeat(2)
        );
        assert_eq!(wide_binary(&text, 0), None);
        for text in [
            "Привет, как дела? Сегодня хорошая погода.",
            "Καλημέρα, τι κάνεις; Σήμερα έχει ωραίο καιρό.",
            "שלום, מה שלומך? היום מזג האוויר יפה.",
            "مرحبا، كيف حالك؟ الطقس جميل اليوم.",
            "안녕하세요, 오늘 날씨가 좋네요.",
            "สวัสดีครับ วันนี้อากาศดีมาก",
            // No white space, one script's text.
            "今日は晴れです。明日は雨でしょう。",
            "今天天气很好明天的会议十点开始",
            "감사합니다감사합니다",
            "Привет,как-дела?",
            // One line of full-width forms, Hanja beside Hangul, enclosed
            // numbers (an independent review: 50 of 310 kept as binary).
            "２０２４年１２月３１日",
            "株式會社삼성전자",
            "서울特別市江南區",
            "①②③④⑤⑥⑦⑧",
            "価格：￥１，０００（税込）",
            "株式会社ＡＢＣ　営業部",
            "धन्यवाद।",
            "ㄅㄆㄇㄈ注音符號",
        ] {
            assert_eq!(wide_binary(text, 0), None, "{text}");
        }
        // A zlib stream and a short random blob read as UTF-16 (units of
        // each; /tmp/hunt8 h_deflate16.py: 19 of 150 such
        // bodies were rewritten as text): no white space, a seventh or more
        // from blocks text does not use (here Latin Extended-D, Tai Viet,
        // Mongolian, one private-use character), too few units for the
        // private-use and error counts.
        for blob in [
            "鱸伭ꜿゃ씹䪻\u{f429}詔嬐皳틯䀫",
            "が鿊䨞穬䆽ꪕ弭艞깩釗\u{2452}돟\u{e826}殳軀즥赧ᠢ",
        ] {
            assert_eq!(
                wide_binary(blob, 0),
                Some("characters of many scripts and no white space"),
                "{blob}"
            );
        }
    }

    #[test]
    fn every_label_that_is_not_ascii_compatible_is_7bit_or_wide() {
        for cs in Charset::all().filter(|c| c.is_supported() && !c.is_ascii_compatible()) {
            assert!(cs.is_seven_bit() != cs.is_wide(), "{}", cs.name());
        }
    }

    #[test]
    fn utf16_by_nuls() {
        let be: Vec<u8> = "Hello, world, how are you?"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        assert_eq!(nul_shaped(&be), Some(Charset::UTF_16BE));
        let le: Vec<u8> = "Hello, world, how are you?"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(nul_shaped(&le), Some(Charset::UTF_16LE));
        assert_eq!(nul_shaped(b"plain text with one \0 NUL in it"), None);
    }
}
