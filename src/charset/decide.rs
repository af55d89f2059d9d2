//! The charset decision: which decoder reads a piece of labelled text, and
//! how far to trust the result. One rule for every caller (bodies,
//! encoded-word runs, RFC 2231 values, raw 8-bit header fields; normalize,
//! filter, audit and the library), so that they never disagree about a
//! piece of text.
//!
//! **The label is the prior; evidence decides.** Labels lie, but damage is
//! far commoner than a lie in a correctly working mailer's output, and the
//! worst thing a mail tool can do is to read a correctly labelled text with
//! one damaged octet as another charset. So the label's reading is kept
//! unless the label explains little of the text *and* a candidate explains
//! all of it *and* the candidate reads as plausible text.
//!
//! Evidence is counted under the label, line by line ([`Evidence`]):
//! `clean` (non-ASCII characters the label decodes), `errors` (ill-formed
//! sequences), and the characters of lines the label decodes entirely.
//!
//! | text under its label | evidence | verdict | text |
//! |---|---|---|---|
//! | ASCII | — | `ok` | as is |
//! | decodes cleanly | — | `ok` (findings: `suspicious`) | the label's |
//! | valid UTF-8, 3+ multi-octet characters, single-byte or CJK label, not every one a chance pairing of the label's Latin text ([`utf8_by_chance`]: `PÅ–`, `CZĘŚCI`) | UTF-8 writers are the only source of such octets | `mislabeled` | UTF-8 |
//! | UTF-8 with damage under a single-byte label: 3+ UTF-8 letters in words, 8 per error | a damaged UTF-8 text | `invalid` (finding `mislabeled`) | UTF-8, U+FFFD at the damage |
//! | … and lines without a UTF-8 character the label reads as words, not shaped like damaged UTF-8 ([`labels_own_lines`]) | the label's own lines (a Latin-1 letter above a UTF-8 footer) | `invalid`, findings `mislabeled`, `mixed-charset` (the label) | UTF-8, those lines the label's |
//! | a single-byte or CJK label, lines of the text valid UTF-8: 3+ multi-octet characters in all, each U+00A0..U+02FF, U+2000..U+22FF or of the label's own script ([`utf8_lines`], [`own_script`]), lines of chance pairings left out; the rest read by the label without error | a UTF-8 footer, signature or quote in a legacy letter | `suspicious`, finding `mixed-charset` | the label's; those lines UTF-8 |
//! | valid UTF-8, 2 multi-octet characters, letters in words, other label that fails on them (errors, or C1 controls) | the label explains nothing (`회의` under EUC-KR) | `mislabeled` | UTF-8 |
//! | valid UTF-8, 1–2 multi-octet characters, other label | too little to decide | `suspicious` (finding `mislabeled`, note "kept") | the label's |
//! | a CJK label read mostly as half-width katakana, private use or C1 | implausible reading | `mislabeled` if a candidate reads plausibly | the candidate's |
//! | … Shift_JIS or EUC-JP read as half-width katakana written as Japanese (`ﾞ ﾟ` after the kana that take them, few `､ ･`: [`halfwidth_written`]), beside lines of the label's own, under EUC-JP, or in a text EUC-JP does not read as common kanji and kana ([`euc_jp_explains`]) | old systems' and mobile mail's text | `ok` | the label's |
//! | … written so, but EUC-JP reads the text as Japanese | EUC-JP kanji under Shift_JIS (`ｻｳﾅﾄﾂﾀﾏｺ` for 山田太郎) | `mislabeled` only if the candidate is EUC-JP | EUC-JP |
//! | a Chinese label (or EUC-KR) whose octets have another CJK charset's shape, 24+ characters, no line of the label's own shape ([`chinese_rows`]): a quarter beyond the Hangul rows (EUC-KR label, GB2312's Hanzi; also with errors), Hangul rows only (GB label), a fifth with a trail 0x40..0x7E (GB label), no trail below 0xA1 and an eighth in rows 0xC9..0xF7 (Big5 label, also with a few errors) | EUC-KR or Big5 under GB, GB2312 under Big5 | `mislabeled` if chardetng's candidate is that charset (EUC-KR, Big5, GBK) and reads plausibly | the candidate's |
//! | a Cyrillic label (windows-1251, KOI8-R/U, ISO-8859-5, IBM866, x-mac-cyrillic) read cleanly with its case turned over: 3+ words with a lowercase letter before a capital, more than twice its capitalised words (`Case`) | KOI8-R under windows-1251 (`рТЙЧЕФ`) and the like | `mislabeled` if chardetng's candidate is another Cyrillic charset (not windows-1251 under x-mac-cyrillic), reads plausibly, its case natural, a capitalised word for each two turned over, as many letters in words | the candidate's |
//! | a Cyrillic label read cleanly with 3+ words whose letters no one Cyrillic language has together ([`cyrillic_misfits`]) | windows-1251 under ISO-8859-5 (`ёьхђѓ`, `юсёѓфшђќ`) | `mislabeled` if chardetng's candidate is another Cyrillic charset (not windows-1251 under x-mac-cyrillic) with at most one such word for three of the label's, its case natural, as many letters in words | the candidate's |
//! | a Latin label (not windows-1258) whose reading as chardetng's guess windows-1258 has 3+ tone marks, each after a vowel ([`vietnamese_tones`]) | Vietnamese windows-1258 under ISO-8859-1 (`tiÌm thâìy`) | `mislabeled` | windows-1258 |
//! | KOI8-R read cleanly with 3+ of KOI8-U's letter octets (A4 A6 A7 AD B4 B6 B7 BD) as box drawing touching letters or standing alone as a word, and no other box drawing touching one; 1+ when no other box drawing stands anywhere (`koi8u_letters`) | Ukrainian KOI8-U under KOI8-R (`Прив╕т`) | `mislabeled` | KOI8-U |
//! | a Latin label (not windows-1258) read cleanly into runs of 3+ non-ASCII characters: 3+ runs (or one of 16+), 32+ characters in them, at least half as many runs as words with a non-ASCII character ([`nonascii_runs`]) | another script read as Latin (`Ïðèâåò`, `ÇÑ±¹¾î`) | `mislabeled` if a candidate reads plausibly, in a script other than Latin, its Cyrillic or Greek case natural (`Case::natural`); windows-1251 or x-mac-cyrillic by their capitals | the candidate's |
//! | a Latin label (not a Mac one, [`mac_latin`]; not windows-1258) or a Cyrillic one read cleanly with 3+ symbols inside words ([`symbols_in_words`]) | `Wroc³aw`, `¾lu»ouèký`, `Я№штхђ`: windows-1250, ISO-8859-2, windows-1251 read in another charset of the script | `mislabeled` if chardetng's guess is of the script (not windows-1252), reads 3+ of them as letters fitting their word's case (2+ different symbols under a Latin label), turns no letter into a symbol ([`repair`]), its windows-1250/ISO-8859-2 twin does not read them as well, and (Latin) it fits a language's alphabet no worse than the label's reading | the guess's |
//! | a Latin label (not a Mac one) read cleanly with 3+ words whose letters no one alphabet holds, where windows-1252 or a Turkish, Central European, Baltic or Mac charset reads every word as one language's (in a long text, all but one for each 8 of the label's), mending 3+ of those words that are not names and as many of the label's foreign words as of its others (or any, when no alphabet holds 3 in 4 of the label's 40+ letters) ([`alphabet_lie`]) | `Joăo, informaçăo, tręs`: Latin-1 under ISO-8859-2; Hungarian `hõmérséklet` under Latin-1 | `mislabeled` | that charset |
//! | ISO-8859-6 or windows-1256 read cleanly with 2+ Latin letters glued to Arabic ones, where the twin reads none and is e^5 times the likelier Arabic ([`arabic_twin`]) | ISO-8859-6 under windows-1256 (`êرجé تأمêد`) | `mislabeled` | the twin's |
//! | windows-1253 with a `¶` (0xB6) starting a word of small Greek letters, no 0xA2 there ([`greek_iso`]) | ISO-8859-7 `Ά` (`¶ννα`) | `mislabeled` | ISO-8859-7 |
//! | windows-1250, ISO-8859-1 or windows-1252 with no octet 0x80..0x9F, read with 3+ symbols inside or at the edge of words (2+ different, not quotation marks) that ISO-8859-2 or windows-1250 reads as letters, every letter of one alphabet, fitting no worse ([`central_twin`]) | `zarz±du`, `Èe¹tina`, `®ádost` | `mislabeled` | the Central European reading (of two that differ, the better fit; a tie keeps the label) |
//! | ISO-8859-1 with 2+ octets 0x80..0x9F that windows-1250 reads as letters in words, its reading one alphabet's and a better fit than windows-1252's ([`windows_writer`]) | Czech `Pøíliš žlu\x9douèký` | `mislabeled` | windows-1250 |
//! | ISO-8859-6 with 4+ errors | windows-1256 (`ف ق ك` have no octet in ISO-8859-6) | `mislabeled` if the guess is windows-1256, reads more letters in words, no Latin letter inside an Arabic word | windows-1256 |
//! | errors, label explains the text: `clean >= 1` and (`errors <= 3` or `8 * errors <= clean`), or 4+ characters on lines the label decodes entirely (and `8 * errors` at most 8 times those), or (UTF-8) complete forms only a UTF-8 writer makes, accounting for the errors (at most six per form, plus three) | damaged | `invalid` (`truncated` when it ends inside a character) | the label's, U+FFFD at the damage only |
//! | … and some damaged lines hold no character of the label but read cleanly in another charset: 2+ characters, letters in words, not shaped like damaged UTF-8 ([`foreign_lines_read`]) | mixed (a Latin-1 footer in a UTF-8 letter) | `suspicious`, finding `mixed-charset` ("read as such") | the label's; those lines in that charset |
//! | … fewer (one stray letter, `Jos\xE9`) | damage or mixed | `invalid`, finding `mixed-charset` (that charset, first line) | the label's; with `repair_mixed`, those lines in that charset |
//! | errors, label explains little, 4+ non-ASCII octets, a candidate (valid UTF-8 first, then chardetng with the sender's top-level domain, a Latin guess checked against windows-1252 by the languages' alphabets: [`latin_preference`]) decodes all of it and reads plausibly, its letters in words (windows-1252: or Latin text with Windows typography, `’ “ ” — €`, and no UTF-8 sequence: [`typographic`]); under UTF-8 not a short text with a UTF-8 letter of its own between the damage, unless the candidate reads every 8-bit octet as a common CJK character ([`damaged_utf8_letters`]); under UTF-8 with fewer than 16 non-ASCII octets, each run of them two or more long ([`paired_octets`]), a Latin candidate reads as one language's words ([`latin_words`]) | mislabeled | `mislabeled` | the candidate's |
//! | errors, no such candidate (a single-byte candidate is refused when the UTF-8 label reads a letter inside a word) | too little evidence | `invalid` (`mixed-charset` as above) | the label's |
//! | header text without a label, 8-bit and not UTF-8, `header_hint` set (the charset of the message's text) | the mailer wrote both | as under that label when it reads the octets without error into plausible text, no other script's letters wedged into Latin words (finding `missing-label`, noted) | the hint's |
//! | no label, unknown, `unknown-8bit`, `x-user-defined`, unsupported | — | (unknown label: `unknown-label`) | ASCII; UTF-8 if valid or mostly so; else chardetng with the top-level domain, windows-1252 for Latin script unless the text says otherwise (a symbol inside a word, a better fit to a language's alphabet, in a long text nearly every word: [`latin_preference`]) |
//! | … UTF-8 (valid, or four characters to an error, or lines of it with more 8-bit octets than the rest: [`utf8_beside`]), and the lines it fails on read as another charset's words below the text ([`foreign_lines_read`]) | a Latin-1 footer below an unlabelled UTF-8 letter | `suspicious`, `mixed-charset` ("read as such") | UTF-8, those lines the other's |
//! | … a single-byte guess read cleanly, with lines of valid UTF-8 as under a legacy label ([`utf8_lines`]) | a UTF-8 signature below an unlabelled Latin-1 letter | `suspicious`, `mixed-charset` | the guess; those lines UTF-8 |
//! | `us-ascii` with 8-bit octets | the label cannot explain them | `mislabeled` when they decode cleanly | as unlabelled |
//! | bodies only: NUL, C0 controls other than TAB LF FF CR ESC SO SI at 1% of the octets or more (a final SUB and trailing NULs are allowed), or an archive/image/PDF magic number, or controls beside a yEnc block (`=ybegin ... size= name=` to `=yend`), or a well-formed yEnc block whatever its octets (`=ybegin line=N size=N name=` to `=yend size=N`; not looked for in ASCII under a label that reads ASCII as ASCII, whose octets stay) | binary | `suspicious`, finding `binary-in-text` | kept byte for byte ([`Decoded::binary`]) |
//! | bodies only: a UTF-16/32 byte order mark, or NULs in every other (or 3 of 4) octets, under an ASCII-compatible, 7-bit or no label | UTF-16/32 | as for a label that lies | UTF-16 or UTF-32 (by the mark, else the NULs); binary when that does not decode cleanly into text ([`wide_binary`]; without a mark, also plausible or 3 in 4 characters ASCII) |
//! | 7-bit label (ISO-2022-JP, -JP-2, -KR, HZ, UTF-7) | as for an ASCII-compatible label: every 8-bit octet is an error, escape lines are what it explains; one valid UTF-8 character is a candidate | as above | as above |
//! | bodies under UTF-16/32: a magic number; U+0000 inside, C0/C1 controls (SO, SI too) or noncharacters at 1% of the characters, or 4+ decoding errors at 1% ([`wide_binary`]) | binary | `suspicious`, `binary-in-text` | kept byte for byte |
//! | UTF-16/32 label, no NUL octet, an LF octet | the label explains nothing | `mislabeled` if valid UTF-8 (ASCII too) or a candidate reads plausibly | UTF-8 / the candidate's; else the label's |
//! | ISO-2022-JP escapes in 7-bit text under us-ascii, no label, unknown, `unknown-8bit` | ASCII cannot explain them | `mislabeled` (us-ascii), else as the label's case | ISO-2022-JP when chardetng says so and the reading is clean, 4+ characters, plausible, in words |
//!
//! "Plausible" ([`plausible`]): at most a quarter of the non-ASCII
//! characters are C1 controls, private use, half-width katakana or U+FFFD;
//! at least half are letters; and the letters keep to one writing system
//! (Latin, Greek, Cyrillic, Hebrew, Arabic, Thai, Japanese, Korean or
//! Chinese) for at least four in five.
//!
//! `doc/charset-decision.md` has the reasoning and the measurements behind
//! these thresholds.

use super::alphabets::{alphabet_fit, compare_fit};
use super::arabic_pairs::{ARABIC_FIRST, ARABIC_LAST, ARABIC_PAIRS};
use super::common_hanzi::{BIG5_COMMON, GB2312_COMMON};
use super::detect::{
    self, BodyScan, alphabet_lie, binary, confidence, declared_mends, declared_mends_weakly, guess,
    has_magic, is_latin, latin_preference, magic, nul_shaped, vietnamese_tones, wide_binary,
    yenc_block,
};
use super::dispatch::{c1_as_twin, c1_check, c1_twin, decode_with, has_c1, unicode11};
use super::evidence::{
    Alphabetic, Evidence, Script, all_wedged_in_latin, c1_control, case_of, characters,
    cyrillic_misfits, evidence, find_nonascii, fits_case, foreign_mark, implausible,
    mixed_script_letters, multi_octet_chars, non_latin, nonascii_runs, plausible, repair, script,
    standing, symbols_in_words, typographic, typography, utf8_majority, utf8_standing,
    utf8_writer_forms, wedged_in_latin, wedges_more, word_symbol, words,
};
use super::{Charset, DecodeOptions, Decoded, Detected, Kind, add_report, ascii};
use crate::codec::utf8::{self, DecodeReport};
use crate::finding::{Finding, FindingKind, LabelStatus, Verdict};
use std::borrow::Cow;
use std::ops::Range;

/// Multi-octet characters a valid UTF-8 text must hold before a legacy
/// label is overridden ("more than a couple").
const UTF8_OVERRIDE: usize = 3;

/// Non-ASCII octets below which detection never overrides a label (one to
/// three octets are no evidence: damage looks the same).
const MIN_EVIDENCE: usize = 4;

/// Runs of three or more non-ASCII characters a Latin label's reading must
/// hold before the label is doubted ([`nonascii_runs`]): three or more,
/// of 32 or more characters in all, and half as many as its words with a
/// non-ASCII character or more. Fewer are thin evidence: a list of letters
/// (`ÄÖÜ äöü`, `ÉÈÊË`, `úžší`) has that shape too. One run of
/// [`LATIN_LONG_RUN`] characters or more stands for three: no Latin word
/// has sixteen non-ASCII characters in a row, while Japanese and Chinese
/// write a line without a space (EUC-JP under an HTML `iso-8859-2`, two
/// lines, two runs, was kept as `Ŕč...`).
const LATIN_RUNS: usize = 3;
const LATIN_RUN_CHARS: usize = 32;
const LATIN_LONG_RUN: usize = 16;

/// Words whose Cyrillic letters no one language has together
/// ([`cyrillic_misfits`]) a Cyrillic label's reading must hold before the
/// label is doubted on that ground.
const CYRILLIC_MISFITS: usize = 3;

/// Words with their case turned over (a lowercase letter before a
/// capital) a Cyrillic label's reading must hold, more than twice its
/// capitalised words, before the label is doubted (`Case`).
const CASE_INVERTED: usize = 3;

/// The longest body [`labelled`] may take for a blob when nothing reads it
/// (no space, mostly errors): longer ones without any control octet are
/// text in practice (random octets hold a control or a space every few
/// dozen).
const SHORT_BLOB: usize = 256;

/// Symbols inside words (`Wroc³aw`, `Я№штхђ`) a Latin or Cyrillic label's
/// reading must hold before the label is doubted, and that a candidate
/// must read as letters, of two or more different symbols
/// ([`symbols_in_words`]).
const SYMBOLS_IN_WORDS: usize = 3;

/// A candidate charset for text its label does not explain: valid UTF-8
/// first, then chardetng's guess (with the top-level domain). It must
/// differ from the label's decoder, decode every octet, and read plausibly.
fn candidate<'a>(
    bytes: &'a [u8],
    label_cs: &'static Charset,
    opts: &DecodeOptions,
) -> Option<(Detected, Cow<'a, str>)> {
    // Under a 7-bit or UTF-16/32 label no 8-bit octet is the label's (the
    // caller has seen four or more): one UTF-8 character is enough.
    let utf8_min = if label_cs.is_seven_bit() || label_cs.is_wide() {
        1
    } else {
        UTF8_OVERRIDE
    };
    if !label_cs.is_utf8()
        && !label_cs.is_unicode11_utf8()
        && let Ok(s) = simdutf8::basic::from_utf8(bytes)
        && multi_octet_chars(s) >= utf8_min
    {
        return Some((
            Detected {
                charset: Charset::UTF_8,
                confidence: 0.99,
            },
            Cow::Borrowed(s),
        ));
    }
    // The charset the text's own markup declares, before detection's guess.
    if let Some(decl) = opts.declared
        && let Some(c) = read_guess(bytes, label_cs, decl)
    {
        return Some(c);
    }
    read_guess(
        bytes,
        label_cs,
        latin_preference(
            bytes,
            guess(bytes, label_tld(label_cs, opts), false),
            opts.tld,
        ),
    )
}

/// chardetng's hint for the octets a label cannot explain: the sender's
/// top-level domain, but `jp` under an ISO-2022-JP (or -JP-2) label. Only
/// a Japanese writer uses that label, and the lie under it is Shift_JIS or
/// EUC-JP octets: with the hint of a `.cn`, `.tw`, `.ru` or `.ua` sender
/// chardetng took them for GBK, Big5 or windows-1251, whose readings are
/// plausible, and the Japanese text was converted into nonsense.
fn label_tld(label_cs: &'static Charset, opts: &DecodeOptions) -> Option<super::detect::Tld> {
    let jp = matches!(label_cs.kind, Kind::Iso2022Jp2)
        || label_cs
            .encoding()
            .is_some_and(|e| e == encoding_rs::ISO_2022_JP);
    if jp {
        super::detect::Tld::from_domain(b"example.jp")
    } else {
        opts.tld
    }
}

/// chardetng's guess (with the top-level domain), when it is not the
/// label's decoder and reads every octet plausibly, in words. Unlike
/// [`candidate`], a Latin guess is not turned into windows-1252 when that
/// reads no symbol inside a word: where the label's reading has symbols
/// inside words, windows-1252 "repairs" some of them by chance (Croatian
/// `š ž` in windows-1250, C1 controls under ISO-8859-2, are `š ž` in
/// windows-1252 too) and misreads the rest (`č` as `è`).
fn guessed<'a>(
    bytes: &'a [u8],
    label_cs: &'static Charset,
    opts: &DecodeOptions,
) -> Option<(Detected, Cow<'a, str>)> {
    read_guess(bytes, label_cs, guess(bytes, opts.tld, false))
}

/// `bytes` read as the guess `g`, when it is not the label's decoder and
/// reads every octet plausibly, in words (or, windows-1252, as Latin text
/// with Windows typography: [`typographic`]).
fn read_guess<'a>(
    bytes: &'a [u8],
    label_cs: &'static Charset,
    g: &'static Charset,
) -> Option<(Detected, Cow<'a, str>)> {
    if g.decoder_name() == label_cs.decoder_name() {
        return None;
    }
    let (text, report, used) = decode_with(bytes, g);
    // Windows or Mac typography in Latin text: no letter beyond ASCII for
    // `plausible` to count (Mac: `detect::mac_typography`).
    let marks_only = (g == Charset::WINDOWS_1252 && typographic(&text, bytes))
        || (g.decoder_name() == Some("macintosh")
            && text.chars().all(|c| c.is_ascii() || typography(c)));
    // A C1 control is no character of any text (windows-1252 reads its
    // five holes so; a short random blob under a text label was read so).
    // But windows-1251's hole 0x98 is `Ш` in x-mac-cyrillic, which
    // chardetng never names and its windows-1251 may be (decided after,
    // `unnamed_twin`): Russian Mac text under a Latin label was missed.
    let c1 = g.decoder_name() != Some("windows-1251") && text.chars().any(c1_control);
    (report.is_clean() && !c1 && (marks_only || (plausible(&text) && words(&text)))).then(|| {
        (
            Detected {
                charset: used,
                confidence: confidence(used, bytes, true),
            },
            text,
        )
    })
}

/// The charset the foreign lines are in, if one decodes them all cleanly.
fn foreign_charset(
    bytes: &[u8],
    ev: &Evidence,
    label_cs: &'static Charset,
    opts: &DecodeOptions,
) -> Option<&'static Charset> {
    if ev.foreign.is_empty() {
        return None;
    }
    let sample = joined(bytes, &ev.foreign);
    // Lines a UTF-8 writer made: a signature or a quote pasted into a 7-bit
    // text (none of its 8-bit octets is the label's) or, when they read as
    // words, into a CJK one.
    if !label_cs.is_utf8()
        && let Ok(s) = simdutf8::basic::from_utf8(&sample)
        && multi_octet_chars(s) >= 1
        && (label_cs.is_seven_bit() || words(s))
    {
        return Some(Charset::UTF_8);
    }
    let g = guess(&sample, opts.tld, false);
    if g.decoder_name() == label_cs.decoder_name() {
        return None;
    }
    let (text, report, _) = decode_with(&sample, g);
    (report.is_clean() && words(&text) && (plausible(&text) || is_latin(g))).then_some(g)
}

/// The octets of `lines` (ranges of `bytes`), one after the other.
fn joined(bytes: &[u8], lines: &[Range<usize>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(lines.iter().map(ExactSizeIterator::len).sum());
    for r in lines {
        out.extend_from_slice(&bytes[r.clone()]);
    }
    out
}

/// What the decision concluded beyond the text: the label is wrong
/// (`mislabeled`), or the text mixes charsets (`mixed`).
#[derive(Default)]
pub(super) struct Outcome {
    pub mislabeled: bool,
    pub mixed: bool,
}

/// Bodies: binary content and BOM-less UTF-16/32 under a label that does
/// not say so. Returns true when it decided.
pub(super) fn body_checks<'a>(
    bytes: &'a [u8],
    scan: BodyScan<'a>,
    d: &mut Decoded<'a>,
    out: &mut Outcome,
) -> bool {
    // The usual case costs one vectorized pass (`scan`, the caller's): no
    // NUL, no control, and (checked in `binary`) no magic number. (A byte
    // order mark alone decides nothing: a text of Latin-1 letters can
    // start `ÿþ`; UTF-16 text of more than one line has a NUL in each line
    // end.)
    // A well-formed yEnc block is binary without controls too
    // (`detect::yenc_block`); looked for where reading the body can change
    // its octets: not in ASCII under a label that reads ASCII as ASCII
    // (read as ISO-2022-JP only when its escapes read cleanly, which
    // leaves ASCII as it is).
    let ascii_as_ascii = scan.ascii.is_some()
        && d.resolution
            .charset
            .is_none_or(Charset::is_ascii_compatible);
    if !scan.controls && !has_magic(bytes) && (ascii_as_ascii || !yenc_block(bytes)) {
        return false;
    }
    let bom = wide_bom(bytes);
    if let Some(cs) = bom.or_else(|| nul_shaped(bytes)) {
        let (text, report, used) = decode_with(bytes, cs);
        // Clean is not enough: 16-bit samples (audio, a table of small
        // integers) have the same NULs and decode cleanly, into U+0000 and
        // C0/C1 controls no text has, or (a short clip) into a few letters
        // of as many scripts (`uﾜÕｨĆêﻧx³`): without a byte order mark, the
        // reading must also be text.
        if report.is_clean()
            && wide_binary(&text, 0).is_none()
            && (bom.is_some() || wide_text(&text))
        {
            d.findings
                .push(
                    Finding::new(FindingKind::Mislabeled, 0, 1).with_note(if bom.is_some() {
                        format!("{} with a byte order mark", used.name)
                    } else {
                        format!("NULs in every other octet: {} without a BOM", used.name)
                    }),
                );
            d.text = text;
            d.used = Some(used);
            d.detected = Some(Detected {
                charset: used,
                confidence: 0.9,
            });
            out.mislabeled = d.resolution.status != LabelStatus::Missing;
            return true;
        }
    }
    if let Some(why) = binary(bytes) {
        keep_binary(bytes, why, d);
        return true;
    }
    false
}

/// UTF-16 or UTF-32 by a byte order mark at the start of a body (a
/// Notepad file attached without a charset, or under an ASCII-compatible
/// one): `FF FE 00 00` and `00 00 FE FF` (UTF-32), `FF FE` and `FE FF`.
fn wide_bom(bytes: &[u8]) -> Option<&'static Charset> {
    match bytes {
        [0xFF, 0xFE, 0, 0, ..] => Some(Charset::UTF_32LE),
        [0, 0, 0xFE, 0xFF, ..] => Some(Charset::UTF_32BE),
        [0xFF, 0xFE, _, _, ..] => Some(Charset::UTF_16LE),
        [0xFE, 0xFF, _, _, ..] => Some(Charset::UTF_16BE),
        _ => None,
    }
}

/// Whether a reading as UTF-16/32 without a byte order mark is text:
/// plausible ([`plausible`]), or three characters in four ASCII (English
/// with `“quotes”` and a dash has no letter beyond ASCII to judge by).
fn wide_text(text: &str) -> bool {
    let (mut chars, mut nonascii) = (0usize, 0usize);
    for c in text.chars() {
        chars += 1;
        nonascii += usize::from(!c.is_ascii());
    }
    nonascii * 4 <= chars || plausible(text)
}

/// Decodes under an ASCII-compatible, supported label (UTF-8,
/// UNICODE-1-1-UTF-8, ISO 8859, Windows, CJK ...) or a 7-bit one
/// (ISO-2022-JP, -JP-2, -KR, HZ-GB-2312, UTF-7), whose every 8-bit octet is
/// an error the label cannot explain.
pub(super) fn labelled<'a>(
    bytes: &'a [u8],
    scan: Option<BodyScan<'a>>,
    cs: &'static Charset,
    opts: &DecodeOptions,
    d: &mut Decoded<'a>,
    out: &mut Outcome,
) {
    let utf8_label = cs.is_utf8() || cs.is_unicode11_utf8();
    // A body's ASCII test was made in the caller's scan ([`BodyScan`]).
    let ascii_text = BodyScan::ascii_text(scan, bytes);
    let ascii = ascii_text.is_some();
    // Valid UTF-8 is borrowed after one SIMD validation.
    let valid_utf8 = if ascii {
        None
    } else {
        simdutf8::basic::from_utf8(bytes).ok()
    };
    let (text, report, used) = match valid_utf8 {
        Some(s) if utf8_label => (Cow::Borrowed(s), DecodeReport::default(), cs),
        // ASCII under a label that reads ASCII as ASCII: borrowed, as the
        // decoder would (it walked the text a second time to find that).
        _ if let Some(s) = ascii_text
            && cs.is_ascii_compatible() =>
        {
            (Cow::Borrowed(s), DecodeReport::default(), cs)
        }
        _ => decode_with(bytes, cs),
    };
    // Under a 7-bit label the label's own text is ASCII octets, valid UTF-8
    // by nature: UTF-8 octets beside lines it reads (Japanese in escape
    // sequences and a UTF-8 signature) are a mixed text, whose label
    // explains it, not a UTF-8 one to read the escapes of as ASCII (they
    // were shown as `$B2q5D(B`); the UTF-8 lines are `mixed-charset`.
    let own_text = cs.is_seven_bit() && !ascii && evidence(bytes, cs).explained();
    // Valid UTF-8 under another label: a UTF-8 writer.
    if !utf8_label
        && !own_text
        && let Some(s) = valid_utf8
    {
        let n = multi_octet_chars(s);
        if n >= UTF8_OVERRIDE && !utf8_by_chance(bytes, cs) {
            mislabel(d, out, bytes, cs, Charset::UTF_8, Cow::Borrowed(s), 0.99);
            keep_escape_lines(bytes, cs, Charset::UTF_8, d, out);
            return;
        }
        // Two, and the label fails on the octets that UTF-8 reads as
        // letters in words, or reads them into C1 controls no text has
        // (`회의` under EUC-KR, `Ángel Pérez` with `Ã` and U+0081 under
        // windows-1252): the label explains nothing that UTF-8 does not.
        // (One is what a damaged octet after a letter makes: `Ã` and 0x80,
        // C1 under ISO-8859-13, is `À` to UTF-8.) A single-byte label also
        // fails when UTF-8 reads Latin letters (U+00C0..U+017F but `× ÷`,
        // Romanian `ș ț`) or characters of three octets, and the octets
        // hold 0x80..0x9F under ISO-8859-1 (read with windows-1252, as
        // readers do, it names no character there: `Grüße` as `GrÃ¼ÃŸe`) or
        // every pair sits in a word of ASCII letters (`JÃ¼rgen MÃ¼ller`).
        // Not other letters: `Strauß’s`, `Gruß—Hans`, `NESTLÉ™` are
        // windows-1252 that UTF-8 reads as NKo, IPA or Syriac (a review:
        // 5,868 of 8,784 such correct texts read so).
        let latin = || {
            s.chars().filter(|c| !c.is_ascii()).all(|c| {
                (matches!(c, '\u{C0}'..='\u{17F}' | '\u{218}'..='\u{21B}')
                    && !matches!(c, '×' | '÷'))
                    || c >= '\u{800}'
            })
        };
        let fails = || {
            !report.is_clean()
                || text.chars().any(c1_control)
                || (cs.is_single_byte()
                    && ((matches!(cs.kind, Kind::Superset(_)) && has_c1(bytes))
                        || utf8_pairs_in_ascii_words(bytes))
                    && latin())
        };
        // Under a single-byte label, each two-octet character a letter, a
        // combining mark or a Latin-1 sign: damage after a letter of the
        // label's makes the rest (ISO-8859-2 `TŰZ` with 0x94 after `Ű` is
        // UTF-8's Arabic full stop `T۔Z`, the 0x94 a C1 control there).
        let no_stray = || {
            !cs.is_single_byte()
                || s.chars().all(|c| {
                    !('\u{80}'..'\u{800}').contains(&c)
                        || c.is_alphabetic()
                        || ('\u{A0}'..='\u{BF}').contains(&c)
                        || ('\u{300}'..='\u{36F}').contains(&c)
                })
        };
        if n == 2 && opts.detect && fails() && words(s) && plausible(s) && no_stray() {
            let why =
                Finding::new(FindingKind::Mislabeled, first_nonascii(bytes), n).with_note(format!(
                    "{} reads them with {} error(s) or into C1 controls; valid UTF-8 ({n} \
                     multi-octet character(s), letters in words)",
                    cs.name, report.replacements
                ));
            let det = Detected {
                charset: Charset::UTF_8,
                confidence: 0.9,
            };
            read_as(d, out, det, Cow::Borrowed(s), why);
            keep_escape_lines(bytes, cs, Charset::UTF_8, d, out);
            return;
        }
        if n > 0 && report.is_clean() {
            d.findings.push(
                Finding::new(FindingKind::Mislabeled, first_nonascii(bytes), n).with_note(format!(
                    "also valid as UTF-8 ({n} multi-octet character(s)): too little to \
                     override {}, kept",
                    cs.name
                )),
            );
        }
    }
    // Damaged UTF-8 under a single-byte label: UTF-8 letters in words
    // outnumber its errors eight to one (legacy text makes such letters
    // only by chance, beside errors). Read as UTF-8, U+FFFD at the damage.
    // (ASCII has no UTF-8 letters: skipped without a look.)
    if !utf8_label
        && valid_utf8.is_none()
        && !ascii
        && !own_text
        && opts.detect
        && (cs.is_single_byte() || cs.is_seven_bit())
        && utf8_majority(bytes)
    {
        let ev8 = evidence(bytes, Charset::UTF_8);
        if ev8.in_words >= 3 && ev8.errors * 8 <= ev8.in_words {
            d.findings.push(
                Finding::new(FindingKind::Mislabeled, first_nonascii(bytes), 1).with_note(format!(
                    "labelled {}, the octets are UTF-8 ({} letters in words, {} errors)",
                    cs.name, ev8.in_words, ev8.errors
                )),
            );
            d.detected = Some(Detected {
                charset: Charset::UTF_8,
                confidence: 0.9,
            });
            d.used = Some(Charset::UTF_8);
            out.mislabeled = true;
            // Lines UTF-8 reads no character of that the label reads as
            // letters in words are the label's own text (a Latin-1 letter
            // above a UTF-8 signature): they keep its reading, named as
            // `mixed-charset` lines, instead of U+FFFD for every accent.
            let mut own = labels_own_lines(bytes, cs, &ev8.foreign);
            own.extend(escape_lines(bytes, cs));
            own.sort_by_key(|r| r.start);
            if !own.is_empty() {
                keep_label_lines(bytes, cs, Charset::UTF_8, &own, d, out);
            } else {
                let (t, r8) = utf8::decode_lossy_with_report(bytes);
                add_report(d, &r8);
                d.text = t;
            }
            return;
        }
    }
    // UTF-8 lines in a legacy text: a list footer or signature a gateway
    // appended in UTF-8 to a Latin-1 letter, a Greek signature, a quoted
    // UTF-8 mail below an EUC-KR reply. The label reads them as mojibake
    // (`Â« â€” dÃ©sinscription`, `Ξ ΟΞΏΟ`, `�섏젙��`), which is damage:
    // they are read as UTF-8 and named `mixed-charset`, the rest keeps the
    // label, which must read it without error.
    if !utf8_label
        && valid_utf8.is_none()
        && !ascii
        && !own_text
        && opts.detect
        && (cs.is_single_byte() || is_multibyte(cs))
    {
        // Nothing is left damaged: `suspicious`, not `invalid` (`out.mixed`
        // is for lines kept unreadable or repaired over errors).
        let lines = utf8_lines(bytes, cs);
        let why = "the label's reading was mojibake";
        if read_utf8_lines(bytes, cs, used, &lines, why, d) {
            return;
        }
    }
    if report.is_clean() {
        // ISO-2022-JP escapes in 7-bit text under a label that reads them
        // as control characters (`=?utf-8?B?...?=` around ISO-2022-JP, a
        // body labelled ISO-8859-1): as under US-ASCII, the text is
        // ISO-2022-JP, and nothing of the label's reading is lost.
        // UTF-7 too: it has no escapes (RFC 2152: direct characters and
        // base64 runs), and read so, the escapes went out as controls in
        // UTF-8 that a second pass read as ISO-2022-JP.
        if ascii
            && (!cs.is_seven_bit() || std::ptr::eq(cs, Charset::UTF_7))
            && read_iso2022jp(bytes, cs, opts, d, out)
        {
            return;
        }
        // A CJK label read as half-width katakana, private use or C1
        // controls: the octets are in another CJK charset. Or a Chinese
        // label whose octets have the shape of another CJK charset's
        // ([`chinese_rows`]: Korean or Big5 under a GB label, GB2312 under
        // a Big5 one), when chardetng names that charset.
        let rows = if !utf8_label && !ascii && opts.detect {
            chinese_rows(cs, bytes, &text)
        } else {
            Rows::default()
        };
        // A multi-octet label's reading that is mostly the marks another
        // charset's octets leave, and whether it has lines of its own all
        // the same (a reply over a quote in another charset).
        //
        // Half-width katakana written as Japanese (voiced marks after the
        // kana that take them, `､ ･` not on every other character:
        // [`halfwidth_written`]) are the label's own text beside lines of
        // its own, under EUC-JP (`8E xx`), or in a text EUC-JP does not
        // read as Japanese ([`euc_jp_explains`]): old systems and mobile
        // mail write them, and such a reading is no nonsense. Where EUC-JP
        // reads them as Japanese too, only EUC-JP may replace the label
        // (GBK read `ﾊﾟｽﾜｰﾄﾞ` as `蔬杰澳`).
        let implausible_cjk = !utf8_label && !ascii && is_multibyte(cs) && implausible(&text);
        let own_line = implausible_cjk && own_plausible_line(&text);
        let kana_written =
            implausible_cjk && halfwidth_written(cs, &text) && !sjis_level2_kanji(cs, bytes);
        let kana_own = kana_written && kana_beside_own(cs, bytes, own_line);
        let implausible_cjk = implausible_cjk && !kana_own;
        let reply_over_quote = implausible_cjk && own_line;
        if opts.detect
            // (Korean rows are no nonsense to take any candidate for.)
            && let nonsense = (!rows.hangul && implausible_cjk && !reply_over_quote)
            && (nonsense || rows.any())
            && let Some((det, t)) = candidate(bytes, cs, opts)
            && (nonsense || rows.fits(det.charset))
            && (!kana_written || det.charset.encoding() == Some(encoding_rs::EUC_JP))
        {
            let why = if nonsense {
                "the text is implausible".to_string()
            } else {
                rows.why(det.charset)
            };
            read_as(
                d,
                out,
                det,
                t,
                Finding::new(FindingKind::Mislabeled, first_nonascii(bytes), 1).with_note(format!(
                    "read as {}, {why}; it reads as {}",
                    cs.name, det.charset.name
                )),
            );
            return;
        }
        // Implausible, but with lines of the label's own: a reply over a
        // quote in another charset. The label stays; the quote's lines
        // are named.
        if reply_over_quote {
            let marked = marked_lines(bytes, cs);
            if let Some(first) = marked.first() {
                d.findings.push(
                    Finding::new(
                        FindingKind::MixedCharset,
                        first.start + first_nonascii(&bytes[first.clone()]),
                        marked.len(),
                    )
                    .with_note(format!(
                        "{} line(s) {} reads as half-width katakana, C1 controls or private use: \
                         another charset's octets, kept as read",
                        marked.len(),
                        cs.name
                    )),
                );
                out.mixed = true;
            }
        }
        // The text's own markup declares another charset (an HTML
        // `<meta>`), which reads it without error and turns symbols inside
        // its words into letters (`Profilovací èasovaè vypr¹al` under an
        // `iso-8859-1` Content-Type over an ISO-8859-2 page), fitting a
        // language's alphabet no worse: the page says what it is.
        // Not under a CJK or Thai label: their punctuation and Thai's
        // marks sit inside words by nature (correct Thai and GB2312 pages
        // under a stale `<meta>` were read as GBK and windows-1251: an
        // independent hunt, 24 of 358).
        if !ascii
            && opts.detect
            && !is_multibyte(cs)
            && cs.decoder_name() != Some("windows-874")
            && let Some(decl) = opts.declared
            && let (t, r, used) = decode_with(bytes, decl)
            && r.is_clean()
            && !t.chars().any(c1_control)
            && let n = symbols_in_words(&text)
            && n > symbols_in_words(&t)
            && compare_fit(&t, &text) != Some(std::cmp::Ordering::Less)
            && plausible(&t)
        {
            read_in(
                d,
                out,
                bytes,
                (used, t),
                format!(
                    "read as {}, {n} symbol(s) sit inside words; the text's own markup declares \
                     {}, which reads them as letters",
                    cs.name, used.name
                ),
            );
            return;
        }
        // Or it reads as words of one language, or of another script,
        // where the label's reading has words no language's alphabet holds
        // (`Çýktý dosyasý oluþturulamadý` under ISO-8859-1 over a
        // windows-1254 page, Lithuanian windows-1257, Arabic `ÇÓã ããßä`):
        // too short or too few symbols for the rules before and after.
        if !ascii
            && opts.detect
            && latin_label(cs)
            && let Some(decl) = opts.declared
            && decl.is_single_byte()
            && decl.decoder_name() != cs.decoder_name()
            && let (t, r, used) = decode_with(bytes, decl)
            && r.is_clean()
            && !t.chars().any(c1_control)
            && plausible(&t)
            && words(&t)
            && (declared_mends(&text, &t)
                // Or chardetng says so too: two witnesses, where the
                // alphabets cannot tell (Lithuanian `Elektroninë` is
                // Albanian to them).
                // (chardetng, about 400 instructions an octet, asked last)
                || (declared_mends_weakly(&text, &t)
                    && guess(bytes, opts.tld, false).decoder_name() == decl.decoder_name()))
        {
            read_in(
                d,
                out,
                bytes,
                (used, t),
                format!(
                    "read as {}, words no language's alphabet holds; the text's own markup \
                     declares {}, which reads them as one language's",
                    cs.name, used.name
                ),
            );
            return;
        }
        // A short text of East Asian octets under a Latin label, read
        // cleanly into Latin mojibake (`ÀÌ ÆÄÀÏÀ» ¿­ ¼ö`): Japanese with
        // kana, common Korean syllables or common Chinese ideographs side
        // by side in its own charset ([`east_asian_lie`]), which no Latin
        // text is.
        if !ascii
            && opts.detect
            && latin_label(cs)
            && !mac_latin(cs)
            && let Some(enc) = east_asian_lie(bytes)
            && let (t, r, used) = decode_with(bytes, Charset::for_encoding(enc))
            && r.is_clean()
            // Not valid UTF-8 whose CJK reading sits inside Latin words:
            // `Sööt` (C3 B6 C3 B6) under windows-1252 is two common hanzi
            // side by side in GBK, `S枚枚t`, and UTF-8's two Latin letters
            // (too few to override the label: the label's reading stays).
            && !(valid_utf8.is_some() && wedged_in_latin(&t))
        {
            let note = format!(
                "read as {}, Latin mojibake; {} reads it as {} text",
                cs.name,
                used.name,
                if enc == encoding_rs::EUC_KR {
                    "Korean"
                } else if enc == encoding_rs::GBK || enc == encoding_rs::BIG5 {
                    "Chinese"
                } else {
                    "Japanese"
                }
            );
            read_in(d, out, bytes, (used, t), note);
            return;
        }
        // A Latin label whose reading is words of non-ASCII characters
        // from end to end (`Ïðèâåò`, `ÇÑ±¹¾î`): text in another script,
        // which reads as such.
        if !ascii
            && opts.detect
            && latin_label(cs)
            && let Some(shape) = nonascii_runs(&text, LATIN_RUNS, LATIN_LONG_RUN)
            && shape.chars >= LATIN_RUN_CHARS
            && shape.runs * 2 >= shape.accented
            && let Some((det, t)) = candidate(bytes, cs, opts)
            && non_latin(&t)
            && let Some((det, t)) = unnamed_twin(bytes, det, t)
            && case_of(&t).natural()
        {
            // A Latin letter over a footer or a quote in the other script
            // (`Estimada señora García:` over a windows-1251 list footer):
            // the letter's lines, whose accents the candidate wedges into
            // Latin words (`seсora Garcнa`), keep the label.
            if keep_own_lines(
                bytes,
                cs,
                det.charset,
                d,
                |own, _, other| {
                    latin_line(own)
                        && inner_letters(own) >= 1
                        && (wedged_in_latin(other) || has_foreign_char(other))
                },
                None,
                2,
            ) {
                return;
            }
            read_as(
                d,
                out,
                det,
                t,
                Finding::new(FindingKind::Mislabeled, first_nonascii(bytes), 1).with_note(format!(
                    "read as {}, the text is words of non-ASCII characters ({} runs of 3 or \
                     more, {} characters, in {} words with non-ASCII characters); it reads \
                     as {}",
                    cs.name, shape.runs, shape.chars, shape.accented, det.charset.name
                )),
            );
            return;
        }
        // A Cyrillic, Greek, Hebrew, Arabic or Thai label whose reading
        // puts its letters inside Latin words (`rИcapitulatif … Ю fИvrier`:
        // French windows-1252 under KOI8-R, verdict ok): Latin text, which
        // a Latin candidate reads as words of its letters, wedging none.
        if !ascii
            && opts.detect
            && !own_script(cs).is_empty()
            && !is_multibyte(cs)
            && cs.is_single_byte()
            && all_wedged_in_latin(&text)
            // Valid UTF-8 is UTF-8 (`mГ¶chte` is `möchte`, however few its
            // characters), else detection's Latin guess.
            && let Some((det, t)) = match valid_utf8 {
                Some(s) => Some((
                    Detected {
                        charset: Charset::UTF_8,
                        confidence: 0.9,
                    },
                    Cow::Borrowed(s),
                )),
                None => candidate(bytes, cs, opts),
            }
            && (det.charset.is_utf8() || is_latin(det.charset) || mac_latin(det.charset))
            && !wedged_in_latin(&t)
            && characters(&t).1 >= characters(&text).1
        {
            read_as(
                d,
                out,
                det,
                t,
                Finding::new(FindingKind::Mislabeled, first_nonascii(bytes), 1).with_note(format!(
                    "read as {}, its letters sit inside Latin words; it reads as {}",
                    cs.name, det.charset.name
                )),
            );
            return;
        }
        // A Cyrillic label whose reading has its case turned over
        // (`рТЙЧЕФ`: KOI8-R `Привет` under windows-1251): text in
        // another Cyrillic charset, which reads as such.
        if !ascii
            && opts.detect
            && cyrillic_label(cs)
            && let k = case_of(&text)
            // Turned-over words, or a few with the rest in capitals: a
            // lowercase text read as the other charset is capitals but
            // for the capital that began each sentence (`рТПЫХ РТЙУМБФШ`).
            && let many = k.inverted >= CASE_INVERTED && k.inverted > 2 * k.capitalised
            && (many || (k.inverted >= 2 && k.upper > 3 * k.lower))
            && let Some((det, t)) = cyrillic_candidate(bytes, cs, opts)
            // The candidate turns the case back (a capitalised word for
            // each turned-over one, give or take half) and reads as many
            // letters in words: not a list of CamelCase names read as
            // symbols (`МосГорТранс` as `∞“вё≤∞Ј`). With only a few
            // turned-over words, two of its capitals open a sentence, or
            // it has more capitalised words than there are turned-over
            // ones: two lowercase octets of damage at the start of words
            // in a text in capitals (`аКАК`, `..аВКОНТАКТЕ` in
            // windows-1251) read as two KOI8-U capitals too, one of them
            // inside a sentence, and the rest of the text as lowercase.
            && let c = case_of(&t)
            && c.natural()
            && c.capitalised * 2 >= k.inverted
            && (many || c.opening >= 2 || c.capitalised > k.inverted)
            && characters(&t).1 >= characters(&text).1
        {
            // A reply over a quote in the other Cyrillic charset: the
            // reply's lines, whose case the label reads as text's and the
            // candidate turns over, keep the label.
            if keep_own_lines(
                bytes,
                cs,
                det.charset,
                d,
                |own, _, other| sentence_case(own, &case_of(own)) && !case_of(other).natural(),
                None,
                1,
            ) {
                return;
            }
            read_as(
                d,
                out,
                det,
                t,
                Finding::new(FindingKind::Mislabeled, first_nonascii(bytes), 1).with_note(format!(
                    "read as {}, the case is turned over ({} words with a lowercase letter \
                     before a capital, {} capitalised); it reads as {}",
                    cs.name, k.inverted, k.capitalised, det.charset.name
                )),
            );
            return;
        }
        // A Cyrillic label whose reading mixes letters no one language
        // has together (`б ѓтрцхэшхь, Рээр бьш№эютр`: windows-1251 `С
        // уважением, Анна Смирнова` under ISO-8859-5, whose case stays as
        // it was): text in another Cyrillic charset, which reads each word
        // as one language's.
        if !ascii
            && opts.detect
            && cyrillic_label(cs)
            // Counted up to 64, as the Latin rule's foreign words.
            && let n = cyrillic_misfits(&text, 64)
            && n >= CYRILLIC_MISFITS
            && let Some((det, t)) = cyrillic_candidate(bytes, cs, opts)
            // The candidate's words are one language's, but for a damaged
            // one or so in three, its case natural and as many letters in
            // words.
            && cyrillic_misfits(&t, n) * 3 <= n
            && case_of(&t).natural()
            && characters(&t).1 >= characters(&text).1
        {
            // A reply over a quote in the other Cyrillic charset: the
            // reply's lines, one language's words in the label's reading
            // and misfits in the candidate's, keep the label.
            if keep_own_lines(
                bytes,
                cs,
                det.charset,
                d,
                |own, _, other| {
                    cyrillic_misfits(own, 1) == 0
                        && sentence_case(own, &case_of(own))
                        && cyrillic_misfits(other, 1) > 0
                },
                None,
                1,
            ) {
                return;
            }
            read_as(
                d,
                out,
                det,
                t,
                Finding::new(FindingKind::Mislabeled, first_nonascii(bytes), 1).with_note(format!(
                    "read as {}, {n}{} words have Cyrillic letters no one language has \
                     together; {} reads every word as one language's",
                    cs.name,
                    if n >= 64 { "+" } else { "" },
                    det.charset.name
                )),
            );
            return;
        }
        // Vietnamese windows-1258 under another Latin label (ISO-8859-1,
        // windows-1252, a `<meta>` saying windows-1258 overruled by the
        // Content-Type): the label reads its tone marks, written after the
        // vowel, as accented letters glued to it (`tiÌm thâìy têòp`), every
        // octet a letter, verdict `ok`. Three tone marks or more, each after
        // a vowel (Italian `così`, Catalan `història` put them after
        // consonants), and chardetng's guess windows-1258.
        if !ascii
            && opts.detect
            && latin_label(cs)
            && tone_octets_after_vowels(bytes) >= 3
            && let Some((det, t)) = guessed(bytes, cs, opts)
            && det.charset.decoder_name() == Some("windows-1258")
            && let n = vietnamese_tones(&t)
            && n >= 3
        {
            let why =
                Finding::new(FindingKind::Mislabeled, first_nonascii(bytes), n).with_note(format!(
                    "read as {}, {n} accented letters stand after vowels where windows-1258 \
                     has Vietnamese tone marks",
                    cs.name
                ));
            read_as(d, out, det, t, why);
            return;
        }
        // Ukrainian KOI8-U under a KOI8-R label: KOI8-R reads `і ї є ґ`
        // (and their capitals) as box drawing, glued to the letters of
        // their words (`Прив╕т`, `╕нформац╕ю`, `╢втушенко`); the two
        // charsets read every other octet alike.
        if !ascii
            && opts.detect
            && cs.decoder_name() == Some("KOI8-R")
            && let (n, other_box) = koi8u_letters(bytes)
            // One or two such letters are enough when no box drawing
            // stands anywhere else: Ukrainian with one `і` in a line of
            // Russian-looking words was `Пропонован╕ пакунки`, `ok`.
            && (n >= SYMBOLS_IN_WORDS || (n >= 1 && !other_box))
        {
            let koi8u = Charset::for_encoding(encoding_rs::KOI8_U);
            let (t, r, used) = decode_with(bytes, koi8u);
            if r.is_clean() {
                let weak = n < SYMBOLS_IN_WORDS;
                read_in(
                    d,
                    out,
                    bytes,
                    (used, t),
                    format!(
                        "read as KOI8-R, {n} box-drawing characters sit against letters; KOI8-U \
                         reads them as Ukrainian letters{}",
                        if weak {
                            " (and every other octet as KOI8-R does)"
                        } else {
                            ""
                        }
                    ),
                );
                // One or two may be a damaged octet of a Russian text: the
                // letter is read, the label is not called a lie (as a
                // superset reads its subset's C1 octets, `suspicious`).
                out.mislabeled = !weak;
                return;
            }
        }
        // Symbols inside words in the label's reading, counted once for the
        // rules below that ask.
        let symbols = std::cell::OnceCell::new();
        // A Latin or Cyrillic label whose reading has symbols inside words
        // (`Wroc³aw`, `¾lu»ouèký`, `Я№штхђ`): text in another charset of
        // the same script, which reads those symbols as letters.
        if !ascii
            && opts.detect
            && symbol_label(cs)
            && *symbols.get_or_init(|| symbols_in_words(&text)) >= SYMBOLS_IN_WORDS
            && let Some((det, t)) = guessed(bytes, cs, opts)
            && (if cyrillic_label(cs) {
                cyrillic_label(det.charset)
            } else {
                // Not windows-1252: chardetng falls back to it when it sees
                // no other Latin charset's letters, and its reading mends
                // the C1 controls that are `š ž` in windows-1250 (Croatian
                // under ISO-8859-2) while it misreads the rest (`č` as `è`).
                is_latin(det.charset) && det.charset.decoder_name() != Some("windows-1252")
            })
            && let Some((det, t)) = unnamed_twin(bytes, det, t)
            && let Some(fix) = repair(&text, &t)
            && fix.repaired >= SYMBOLS_IN_WORDS
            && (fix.distinct >= 2 || cyrillic_label(cs))
            && fix.broken == 0
            && !twin_reads_too(bytes, det.charset, &text, &t, fix.repaired)
            && case_of(&t).natural()
            // Nor does it fit a language's alphabet worse than the label's
            // reading: Friulian Latin-1 with `Yahoo!®Mail, x³y, Preis±Rabatt`
            // is no ISO-8859-4 (`montaį, nol č stât, Finlandęs`).
            && (cyrillic_label(cs) || compare_fit(&t, &text) != Some(std::cmp::Ordering::Less))
        {
            read_as(
                d,
                out,
                det,
                t,
                Finding::new(FindingKind::Mislabeled, first_nonascii(bytes), 1).with_note(format!(
                    "read as {}, {} symbols sit inside words; it reads them as letters as {}",
                    cs.name, fix.repaired, det.charset.name
                )),
            );
            return;
        }
        // A Latin label whose reading is no one language's, where another
        // Latin charset reads every word as one language's.
        if !ascii
            && opts.detect
            && latin_label(cs)
            && !mac_latin(cs)
            && let Some((lie, foreign)) = alphabet_lie(bytes, cs, &text)
            && let (t, r, used) = decode_with(bytes, lie)
            && r.is_clean()
        {
            let note = format!(
                "read as {}, {foreign}{} words have letters no one language has together; \
                 {} reads every word as one language's",
                cs.name,
                if foreign >= 64 { "+" } else { "" },
                used.name
            );
            read_in(d, out, bytes, (used, t), note);
            return;
        }
        // ISO-8859-6 under windows-1256 (or the other way round, read
        // cleanly): `ه و ى ي` as `ç è é ê` inside Arabic words
        // (`êرجé تأمêد`). Two Latin letters or more glued to Arabic ones in
        // the label's reading, none in the twin's, which is far the likelier
        // Arabic ([`arabic_twin`]).
        if !ascii
            && opts.detect
            && let Some(twin) = match cs.encoding() {
                Some(e) if e == encoding_rs::WINDOWS_1256 => Some(encoding_rs::ISO_8859_6),
                Some(e) if e == encoding_rs::ISO_8859_6 => Some(encoding_rs::WINDOWS_1256),
                _ => None,
            }
            && let glued = mixed_script_letters(&text)
            && glued >= 2
            && let Some((t, used)) = arabic_twin(bytes, &text, twin)
            && mixed_script_letters(&t) == 0
        {
            let note = format!(
                "read as {}, {glued} letters sit inside words of another script; {} reads them \
                 as Arabic",
                cs.name, used.name
            );
            read_in(d, out, bytes, (used, Cow::Owned(t)), note);
            return;
        }
        // ISO-8859-7 under windows-1253: `Ά` (0xB6) read as `¶` before the
        // rest of its word (`¶ννα`), where no text puts a pilcrow.
        if !ascii
            && opts.detect
            && cs.encoding() == Some(encoding_rs::WINDOWS_1253)
            && let Some((t, n)) = greek_iso(bytes)
        {
            let note = format!(
                "read as {}, {n} word(s) begin with `¶`; ISO-8859-7 reads it as `Ά`",
                cs.name
            );
            read_in(
                d,
                out,
                bytes,
                (Charset::for_encoding(encoding_rs::ISO_8859_7), t),
                note,
            );
            return;
        }
        // ISO-8859-2 under windows-1250 or a Western label, or windows-1250
        // under a Western one, with no octet 0x80..0x9F to tell: symbols
        // inside words and at their edges (`die»a`, `zarz±du`, `®ádost`)
        // where the Central European charset has letters.
        if !ascii
            && opts.detect
            && let Some((twin, t, n)) = central_twin(bytes, cs, &text, &symbols)
        {
            let note = format!(
                "read as {}, {n} symbols sit inside or at the edge of words; {} reads them as \
                 letters and fits a language's alphabet no worse",
                cs.name, twin.name
            );
            read_in(d, out, bytes, (twin, Cow::Owned(t)), note);
            return;
        }
        // A short blob the label reads without error but not as letters
        // (any octet is a character of a single-byte charset), nor any
        // other charset: kept byte for byte, as when the label fails.
        if opts.body
            && !ascii
            && short_blob(bytes)
            && !mostly_letters(&text)
            && candidate(bytes, cs, opts).is_none_or(|(_, t)| !mostly_letters(&t))
        {
            keep_short_blob(bytes, cs, d);
            return;
        }
        accept(bytes, cs, used, text, &report, opts, d, out);
        return;
    }
    // CESU-8 pairs under a UTF-8 label, repaired when asked.
    if opts.repair_cesu8
        && used.is_utf8()
        && report
            .errors
            .iter()
            .all(|e| e.0 == crate::codec::ErrorKind::SurrogatePair)
        && let Some(t) = utf8::repair_cesu8(bytes)
    {
        add_report(d, &report);
        d.replacements = 0;
        for f in &mut d.findings {
            if f.kind == FindingKind::SurrogatePair {
                f.note = Some("CESU-8 pairs, repaired".into());
            }
        }
        d.text = Cow::Owned(t);
        d.used = Some(used);
        return;
    }
    // ISO-8859-8 with octets it has no character for, which windows-1255,
    // its Windows superset, has where they stand (niqqud after a letter,
    // `׳ ״` beside one): a Windows writer under the ISO label, as
    // windows-1252 under ISO-8859-1. Its octets from 0xA0 up read as
    // windows-1255 (the holes filled, `¤` its `₪`, the rest the same in
    // both); 0x80..0x9F then as for any ISO 8859 label (`accept`: damage
    // among them replaced).
    if let Some(enc) = cs.encoding()
        && (enc == encoding_rs::ISO_8859_8 || enc == encoding_rs::ISO_8859_8_I)
        && hebrew_marks_in_place(bytes)
        && let Some(twin) = encoding_rs::WINDOWS_1255
            .decode_without_bom_handling_and_without_replacement(bytes)
        // Single-octet charsets: a character an octet in both readings.
        && text.chars().count() == bytes.len()
        && twin.chars().count() == bytes.len()
    {
        // 0x80..0x9F is left to `accept` (its damage rule); below them the
        // two agree.
        let filled: String = text
            .chars()
            .zip(twin.chars())
            .zip(bytes)
            .map(|((c, w), &b)| if b < 0xA0 { c } else { w })
            .collect();
        let holes = report.replacements;
        d.findings.push(
            Finding::new(
                FindingKind::C1InLatin1,
                report.errors.iter().map(|e| e.1).min().unwrap_or(0),
                holes,
            )
            .with_note(format!(
                "{holes} octet(s) {} has no character for, read as windows-1255, its Windows \
                 superset (niqqud, gershayim)",
                cs.name
            )),
        );
        accept(
            bytes,
            cs,
            used,
            Cow::Owned(filled),
            &DecodeReport::default(),
            opts,
            d,
            out,
        );
        return;
    }
    let ev = evidence(bytes, cs);
    // Complete forms only a UTF-8 writer makes, when they are what the
    // errors are (each spans one to six errors); a legacy text makes one
    // now and then by chance among many errors.
    let forms = if utf8_label {
        utf8_writer_forms(bytes)
    } else {
        0
    };
    let writer_forms = forms > 0 && ev.errors <= 6 * forms + 3;
    // Shift_JIS reads EUC-JP octets as half-width katakana, and lines of
    // them count as read: such a reading explains nothing when, with
    // errors beside it, they are most of what it read. Only EUC-JP is
    // taken then: a permissive guess (GBK) also decodes a Shift_JIS reply
    // over an EUC-JP quote, and would turn the reply into nonsense.
    let halfwidth = ev.explained() && halfwidth_reading(cs, &text);
    // GB2312 under a Big5 label decodes with an error here and there
    // (`人` C8 CB, `七` C6 DF are no Big5 characters), and the label seems
    // to explain it as a damaged text: its octets have GB2312's shape
    // ([`chinese_rows`]), which no Big5 text has, damaged or not. Only
    // when chardetng says GBK. So does GB2312 under EUC-KR (`生` C9 FA:
    // KS X 1001 has no row 0xC9), which reads the rest as Hangul and Hanja.
    let gb_rows = ev.explained()
        && opts.detect
        && matches!(cs.decoder_name(), Some("Big5" | "EUC-KR"))
        && chinese_rows(cs, bytes, &text).fits(Charset::for_encoding(encoding_rs::GBK));
    // windows-1256 under ISO-8859-6: ISO-8859-6 has no `ف ق ك ی پ چ گ`
    // where windows-1256 has them (errors in every few words) and reads
    // the rest as other Arabic letters, so its reading looks explained.
    // Four errors or more, a windows-1256 guess that reads more letters in
    // words and no Latin letter inside an Arabic word (ISO-8859-6 text read
    // as windows-1256 turns `ه و ى ي` into `ç è é ê`).
    if opts.detect
        && cs.encoding() == Some(encoding_rs::ISO_8859_6)
        && ev.errors >= MIN_EVIDENCE
        && let Some((det, t)) = candidate(bytes, cs, opts)
        && det.charset.encoding() == Some(encoding_rs::WINDOWS_1256)
        && characters(&t).1 > ev.in_words
        && mixed_script_letters(&t) == 0
    {
        let first = report.errors.iter().map(|e| e.1).min().unwrap_or(0);
        let why = Finding::new(FindingKind::Mislabeled, first, 1).with_note(format!(
            "invalid as {} ({} errors, {} characters read, {} in words), valid as {}",
            cs.name, ev.errors, ev.clean, ev.in_words, det.charset.name
        ));
        read_as(d, out, det, t, why);
        return;
    }
    // A short body without a space or a line end that neither the label
    // nor a candidate reads as letters: no text at all, but a key, a hash,
    // a fragment of a compressed file sent under a text label. Kept byte
    // for byte (read as windows-1252 it was rewritten; replaced, its
    // octets were gone).
    if opts.body
        && !ev.explained()
        && short_blob(bytes)
        && !mostly_letters(&text)
        && candidate(bytes, cs, opts).is_none_or(|(_, t)| !mostly_letters(&t))
    {
        keep_short_blob(bytes, cs, d);
        return;
    }
    if (!ev.explained() || halfwidth || gb_rows)
        && !writer_forms
        && opts.detect
        && ev.nonascii >= MIN_EVIDENCE
        && let Some((det, t)) = candidate(bytes, cs, opts)
        && !(utf8_label && damaged_utf8_letters(ev.nonascii, &text, bytes, det.charset))
        && !(utf8_label
            && ev.nonascii < THIN_LATIN_LIE
            && paired_octets(bytes)
            && !latin_words(det.charset, &t))
        && (!halfwidth || det.charset.encoding() == Some(encoding_rs::EUC_JP))
        && (!gb_rows || matches!(det.charset.decoder_name(), Some("GBK" | "gb18030")))
        // UTF-8 letters inside words are real UTF-8: a single-byte charset
        // would turn them into mojibake (only multi-octet legacy charsets
        // pair up into such letters by chance, "谢谢" into "лл"). Not when
        // no line is UTF-8 and errors outnumber them eight to one: Thai
        // TIS-620 pairs up into a letter here and there (`ร¨` is `è`,
        // `เก` and the next consonant a Samaritan or Gurmukhi letter),
        // each between errors.
        // Nor are they when every one is a pairing the candidate's Latin
        // text makes by chance (`KOM PÅ…` is UTF-8's `KOM PŅ`).
        && !(utf8_label
            && det.charset.is_single_byte()
            && utf8_letters_real(&ev)
            && !utf8_by_chance(bytes, det.charset))
        // Nor does it put a letter of another script inside Latin words
        // where the label read none (`für` with five stray octets beside
        // it as GBK `f眉r`).
        && !wedges_more(&t, &text)
    {
        // chardetng's windows-1251 may be x-mac-cyrillic (a subject
        // `Встреча` under a utf-8 lie was `‚стреча`), its windows-1256 or
        // ISO-8859-6 the other (`اجتماع` was `اجتهاظ`); when the two cannot
        // be told apart, the guess as before.
        let (det, t) = unnamed_twin_or_guess(bytes, det, t);
        let single = det.charset.is_single_byte();
        let latin = is_latin(det.charset) || mac_latin(det.charset);
        // A UTF-8 letter over a footer or a quote in a legacy charset
        // (`podré … Málaga` over GB2312 was read whole as GBK, `podr茅`):
        // its UTF-8 lines of Latin words, or of three characters or more,
        // keep the label, U+FFFD at their damage.
        if utf8_label
            && keep_own_lines(
                bytes,
                cs,
                det.charset,
                d,
                |own, errors, _| {
                    // Valid UTF-8 but for a damaged octet or so: Latin
                    // words with no more errors than half their characters
                    // beyond ASCII, or two (`r\xC3ponse … reçu`,
                    // `katılamayacağ\xC4\xE2m`); or three characters or
                    // more of one script's plausible text, with one error
                    // for four of them at most (a reply's `Доб\xB1рый`
                    // over a KOI8-R quote). Legacy text makes an error of
                    // nearly every such octet, and valid characters by
                    // chance only beside them (GB2312 `合计：1,250元` is
                    // three of no one script and two errors).
                    let chars = own
                        .chars()
                        .filter(|&c| !c.is_ascii() && c != '\u{FFFD}')
                        .count();
                    // (Three different ones: GBK `谢谢谢谢` is valid UTF-8,
                    // `лллл`; 930 of GB2312's 6,763 hanzi are a valid
                    // two-octet UTF-8 character.)
                    let distinct = || {
                        let mut seen: Vec<char> = own.chars().filter(|c| !c.is_ascii()).collect();
                        seen.sort_unstable();
                        seen.dedup();
                        seen.len()
                    };
                    // Or, against a single-byte candidate, a line read
                    // without error whose characters beyond ASCII are
                    // UTF-8's typography (`Sounds good — see you then.`,
                    // `D’accord`) and Latin letters: the candidate reads
                    // `â€”`, and the reply above a Latin quote was that.
                    let marks = || {
                        utf8_marks(own, latin) >= 1
                            && own.chars().all(|c| {
                                c.is_ascii()
                                    || (typography(c) && (latin || c >= '\u{800}'))
                                    || (matches!(c, '\u{C0}'..='\u{17F}') && c.is_alphabetic())
                            })
                    };
                    (single && errors == 0 && marks())
                        || (latin_line(own)
                            && inner_letters(own) >= 1
                            && errors <= (chars / 2).max(2))
                        || (chars >= 3
                            && errors * 4 <= chars
                            && mixed_script_letters(own) == 0
                            && plausible(own)
                            && distinct() >= 3)
                },
                Some(opts),
                1,
            )
        {
            return;
        }
        let first = report.errors.iter().map(|e| e.1).min().unwrap_or(0);
        let why = Finding::new(FindingKind::Mislabeled, first, 1).with_note(format!(
            "invalid as {} ({} errors, {} characters read, {} in words), valid as {}",
            cs.name, ev.errors, ev.clean, ev.in_words, det.charset.name
        ));
        let main = det.charset;
        read_as(d, out, det, t, why);
        keep_escape_lines(bytes, cs, main, d, out);
        return;
    }
    // The label stays: damaged text, maybe with lines in another charset.
    let mixed = if ev.explained() || (utf8_label && ev.in_words >= 1) {
        foreign_charset(bytes, &ev, cs, opts)
    } else {
        None
    };
    if let Some(other) = mixed {
        // Lines that read as the other charset's words, with too many of
        // its characters to be damage, are read so by default; the rest
        // only under `repair_mixed`.
        // Not a short UTF-8 text's damaged word ([`damaged_utf8_letters`]):
        // its one line, read whole in the other charset, was that charset's
        // nonsense (`市场` with an octet replaced was Shift_JIS `蟶た惻`).
        let read = foreign_lines_read(bytes, cs, other, &ev.foreign, &report)
            && !(utf8_label && damaged_utf8_letters(ev.nonascii, &text, bytes, other));
        // Every 8-bit octet on the other charset's lines: no text of the
        // label's is left, and the label lies (three GBK lines under UTF-8
        // were "3 line(s) in GBK, read as such", `suspicious`). Not under a
        // 7-bit label (ISO-2022-JP, HZ, UTF-7), whose text is ASCII octets.
        if read
            && !cs.is_seven_bit()
            && ev
                .foreign
                .first()
                .is_some_and(|f| f.start <= first_nonascii(bytes))
            && below_the_text(bytes, &ev.foreign)
            && let (t, r, whole) = decode_with(bytes, other)
            && r.is_clean()
        {
            let note = format!(
                "invalid as {} ({} errors), every line with 8-bit octets reads as {}",
                cs.name, ev.errors, other.name
            );
            read_in(d, out, bytes, (whole, t), note);
            return;
        }
        let repair = (read || opts.repair_mixed).then_some((used, &report));
        if read_foreign_lines(bytes, cs, other, &ev.foreign, read, repair, d) {
            return;
        }
        out.mixed = true;
    }
    accept(bytes, cs, used, text, &report, opts, d, out);
}

/// The octets where windows-1258 has its tone marks right after a vowel's
/// octet (ASCII, or windows-1258's `â ê ô ă ơ ư` and their capitals),
/// counted up to three: what the Vietnamese rule asks before it asks
/// chardetng, which costs about 400 instructions an octet (asked first for
/// every Latin text with an 8-bit octet, it made the audit of linux-mips a
/// third slower). Which octets are vowels and tone marks is worked out once
/// from windows-1258's decoder and the characters
/// [`detect::vietnamese_vowel`] and [`detect::vietnamese_tone`] name.
fn tone_octets_after_vowels(bytes: &[u8]) -> usize {
    const VOWEL: u8 = 1;
    const TONE: u8 = 2;
    static OCTETS: std::sync::LazyLock<[u8; 256]> = std::sync::LazyLock::new(|| {
        let mut table = [0u8; 256];
        for (b, slot) in (0u8..=255).zip(table.iter_mut()) {
            let octet = [b];
            let (c, _) = encoding_rs::WINDOWS_1258.decode_without_bom_handling(&octet);
            let mut chars = c.chars();
            if let (Some(c), None) = (chars.next(), chars.next()) {
                *slot = if detect::vietnamese_vowel(c) {
                    VOWEL
                } else if detect::vietnamese_tone(c) {
                    TONE
                } else {
                    0
                };
            }
        }
        table
    });
    let mut n = 0;
    let mut from = 0;
    while n < 3
        && let Some(i) = bytes.get(from..).and_then(find_nonascii)
    {
        let at = from + i;
        if OCTETS[usize::from(bytes[at])] == TONE
            && at > 0
            && OCTETS[usize::from(bytes[at - 1])] == VOWEL
        {
            n += 1;
        }
        from = at + 1;
    }
    n
}

/// Non-ASCII octets below which a UTF-8 text's own letters between
/// damaged octets keep its label ([`damaged_utf8_letters`]).
const SHORT_UTF8_DAMAGE: usize = 32;

/// Whether a short text labelled UTF-8 reads as UTF-8 with an octet or two
/// damaged, and `other` (a candidate for it) reads it as less than
/// common CJK text: fewer than [`SHORT_UTF8_DAMAGE`] octets beyond ASCII,
/// one letter of three or four octets or more (CJK, kana, Hangul, Thai,
/// Vietnamese) read between them, no more runs of U+FFFD than one for
/// each such letter, plus one; and not every character of `other`'s
/// reading a common one of its CJK charset ([`common_cjk`]).
///
/// A name or a word of two or three characters with one damaged
/// (`\u{FFFD}지\u{FFFD}` for `김지아`, `市\u{FFFD}` for `市场`) has no letter in a
/// word and none standing, and a CJK candidate decodes all of it: it was
/// read as GBK (`偷滌槬鞛`), Big5, Shift_JIS (`蟶た惻`) or x-mac-cyrillic.
/// Legacy text makes such a letter only by chance, rarely (Faker names,
/// companies and wordfreq phrases, 300 of each language, 2026-11-28: 1
/// to 2% of short GB2312, Big5, Shift_JIS, EUC-KR texts, 9% of IBM866,
/// none of the Latin, Greek, Hebrew, Arabic ones), each beside errors:
/// too little to read it so against its label. Korean names under a
/// `utf-8` lie make one often (`김영` is `B1 E8 BF B5`, `E8 BF B5` a
/// valid `迵`), and are read as EUC-KR still: every syllable of KS X
/// 1001, which damaged UTF-8 never reads as.
fn damaged_utf8_letters(
    nonascii: usize,
    text: &str,
    bytes: &[u8],
    other: &'static Charset,
) -> bool {
    if nonascii >= SHORT_UTF8_DAMAGE {
        return false;
    }
    let mut letters = 0usize;
    let mut runs = 0usize;
    let mut in_run = false;
    for c in text.chars() {
        let hole = c == '\u{FFFD}';
        runs += usize::from(hole && !in_run);
        in_run = hole;
        letters += usize::from(!hole && c >= '\u{800}' && c.alphabetic());
    }
    letters >= 1 && runs <= letters + 1 && !common_cjk(bytes, other)
}

/// Whether every 8-bit octet of `bytes` is in a pair `cs` reads as a
/// common character of its language, two or more: a Hangul syllable of
/// KS X 1001 (EUC-KR: lead 0xB0..=0xC8), a hanzi of GB2312's first level
/// (GBK, gb18030: 0xB0..=0xD7) or Big5's (0xA4..=0xC6), a kana or a kanji
/// of JIS X 0208's first level (Shift_JIS: 0x82, 0x83, 0x88..=0x98; EUC-JP:
/// 0xA4, 0xA5, 0xB0..=0xCF). UTF-8's lead octets (0xE0..=0xEF for these
/// scripts) are the second level's or Hanja's in each, so a damaged UTF-8
/// text does not read so.
fn common_cjk(bytes: &[u8], cs: &'static Charset) -> bool {
    let Some(name) = cs.decoder_name() else {
        return false;
    };
    let common = |lead: u8, trail: u8| match name {
        "EUC-KR" => (0xB0..=0xC8).contains(&lead) && (0xA1..=0xFE).contains(&trail),
        "GBK" | "gb18030" => (0xB0..=0xD7).contains(&lead) && (0xA1..=0xFE).contains(&trail),
        "Big5" => (0xA4..=0xC6).contains(&lead) && matches!(trail, 0x40..=0x7E | 0xA1..=0xFE),
        "Shift_JIS" => {
            matches!(lead, 0x82 | 0x83 | 0x88..=0x98) && matches!(trail, 0x40..=0x7E | 0x80..=0xFC)
        }
        "EUC-JP" => matches!(lead, 0xA4 | 0xA5 | 0xB0..=0xCF) && (0xA1..=0xFE).contains(&trail),
        _ => false,
    };
    let mut pairs = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let Some(&b) = bytes.get(i) else { break };
        if b < 0x80 {
            i += 1;
            continue;
        }
        match bytes.get(i + 1) {
            Some(&t) if common(b, t) => {
                pairs += 1;
                i += 2;
            }
            _ => return false,
        }
    }
    pairs >= 2
}

/// Non-ASCII octets below which a Latin candidate for a text under UTF-8
/// must read as one language's words ([`latin_words`]).
const THIN_LATIN_LIE: usize = 16;

/// Whether every run of 8-bit octets in `bytes` has two or more: the
/// shape of UTF-8 characters, damaged or not (`Mlyn\x99\xA1rov`), where a
/// legacy Latin text has most of its accented letters alone between ASCII
/// ones (`el\xF5z\xF5`). A legacy text under a `utf-8` lie is read as
/// windows-1252 rather than replaced even when that misreads a letter or
/// two (Hungarian `elõzõ`: `charset_latin_guess`); only this shape is
/// asked to read as words ([`latin_words`]).
fn paired_octets(bytes: &[u8]) -> bool {
    let mut run = 0usize;
    let mut runs = 0usize;
    for &b in bytes.iter().chain(std::iter::once(&b' ')) {
        if b >= 0x80 {
            run += 1;
        } else {
            if run == 1 {
                return false;
            }
            runs += usize::from(run > 0);
            run = 0;
        }
    }
    runs > 0
}

/// Whether `t`, a text under a UTF-8 label read as the candidate `cs`,
/// reads as one language's words when `cs` is a Latin charset: no symbol
/// inside a word, and every letter beyond ASCII one alphabet's. A short
/// Latin text under UTF-8 with two of its two to four characters damaged
/// (`Mlyn\x99\xA1rov\x85\xA1`, `Vara\xBD\xBEdin`, `\xC5\xD1alis`) has
/// no valid UTF-8 left, and windows-1252 decodes it: `Mlyn™¡rov…¡`,
/// `Vara½¾din`, `ÅÑalis vilkaviÿ¡kio`, `quáºn ngá»i`. A Latin text in a
/// legacy charset under a `utf-8` lie reads as its words (`Grüße aus
/// Köln`, `à bientôt`). Other scripts' candidates are not asked.
fn latin_words(cs: &'static Charset, t: &str) -> bool {
    if !(is_latin(cs) || mac_latin(cs)) {
        return true;
    }
    let (held, letters) = alphabet_fit(t);
    // A symbol with a letter before it and one after it in its word
    // (`Mlyn™¡rov`: two symbols side by side, which `symbols_in_words`,
    // looking at one character's neighbours, does not count).
    let symbol_inside = t.split_whitespace().any(|w| {
        let chars: Vec<char> = w.chars().collect();
        chars.iter().enumerate().any(|(i, &c)| {
            word_symbol(c)
                && chars[..i].iter().any(|c| c.alphabetic())
                && chars[i + 1..].iter().any(|c| c.alphabetic())
        })
    });
    !symbol_inside && held == letters
}

/// Whether the UTF-8 letters in words a text labelled UTF-8 holds are its
/// writer's ([`labelled`]): some, and a line of UTF-8 text, or fewer than
/// eight errors for each. Legacy text makes them only by chance, one here
/// and there among many errors, never a clean line.
fn utf8_letters_real(ev: &super::evidence::Evidence) -> bool {
    let words = ev.in_words.max(ev.standing);
    ev.in_words >= 1 && (ev.clean_line_chars > 0 || ev.errors < 8 * words)
}

/// The label's reading, with its errors, the C1 check (ISO 8859 read as
/// Windows) and the Unicode 1.1 Hangul policy.
#[allow(clippy::too_many_arguments)]
fn accept<'a>(
    bytes: &'a [u8],
    cs: &'static Charset,
    used: &'static Charset,
    text: Cow<'a, str>,
    report: &DecodeReport,
    opts: &DecodeOptions,
    d: &mut Decoded<'a>,
    out: &mut Outcome,
) {
    add_report(d, report);
    d.text = text;
    d.used = Some(used);
    if let Kind::Superset(e) = &cs.kind {
        if opts.detect
            && has_c1(bytes)
            && let Some((t, why, twin)) = windows_writer(bytes, e, e, &d.text)
        {
            // windows-1250 under ISO-8859-1: another charset, a lie.
            read_as_twin(
                d,
                t,
                Finding {
                    kind: FindingKind::Mislabeled,
                    ..why
                },
                twin,
            );
            out.mislabeled = true;
        } else {
            c1_check(bytes, e, &d.text, &mut d.findings);
        }
    } else if used.encoding() == Some(encoding_rs::WINDOWS_1252)
        // (Most windows-1252 text has no octet 0x80..0x9F: looked for a
        // block at a time before any octet-by-octet walk.)
        && has_c1(bytes)
        && windows_1250_asked(bytes, opts.detect)
    {
        // Under windows-1252 itself, octets it has no character for (read
        // as C1 controls, as WHATWG does): a windows-1250 writer's `Ť Ź ť`
        // (the commonest Central European lie), or damage. The writer's
        // text is read as windows-1250 when it fits, as under ISO-8859-1;
        // otherwise the label's reading stays, and says so (it was `ok`,
        // the C1 controls written into the text unremarked).
        if opts.detect
            && let Some((t, why, twin)) = windows_writer_under_1252(bytes, &d.text)
        {
            read_as_twin(
                d,
                t,
                Finding {
                    kind: FindingKind::Mislabeled,
                    ..why
                },
                twin,
            );
            out.mislabeled = true;
        } else if has_undefined_1252(bytes) {
            let undefined = |b: &u8| matches!(b, 0x81 | 0x8D | 0x8F | 0x90 | 0x9D);
            let first = bytes.iter().position(undefined).unwrap_or(0);
            let count = bytes.iter().filter(|b| undefined(b)).count();
            d.findings.push(
                Finding::new(FindingKind::C1InLatin1, first, count).with_note(format!(
                    "{count} octet(s) windows-1252 has no character for (0x81 0x8D 0x8F 0x90 \
                     0x9D), read as C1 controls"
                )),
            );
        }
    } else if let Some(enc) = used.encoding()
        && let Some(twin) = c1_twin(enc)
        && let Some((text, finding)) = c1_as_twin(bytes, enc, twin, &d.text)
    {
        if let Some((t, why, twin)) = windows_writer(bytes, enc, twin, &text) {
            // Read whole as the Windows twin: not the label's charset,
            // which `detected` names (as above) for the audit's record to
            // say what normalize wrote from. The writer's own twin, no lie:
            // the finding stays `c1-in-latin1`.
            read_as_twin(d, t, why, twin);
        } else {
            d.text = Cow::Owned(text);
            d.findings.push(finding);
        }
    }
    if cs.is_unicode11_utf8() {
        out.mislabeled |= unicode11(d, bytes, opts.unicode11);
    }
}

/// Whether a word of `mixed` (a single-octet reading) that `other` (the
/// same octets in another single-octet charset) reads differently is no
/// one language's word: its letters beyond ASCII held by no one alphabet.
/// Words with a C1 control are not asked.
fn foreign_word_read_otherwise(mixed: &str, other: &str) -> bool {
    mixed
        .split_whitespace()
        .zip(other.split_whitespace())
        .any(|(a, b)| {
            a != b && !a.chars().any(crate::charset::evidence::c1_control) && {
                let (held, letters) = alphabet_fit(a);
                held < letters
            }
        })
}

/// [`windows_writer`] for a text under windows-1252 (`text`, its reading,
/// a character an octet): a text longer than 16 KiB is asked on its
/// first 16 KiB (to a line end) first, and whole only when that part is
/// read so. French `cœur` twice asks the question; in a 10 MiB part the
/// whole walk of both readings made decoding five times slower (283 →
/// 53 MiB/s, the charset bench), while a windows-1250 writer's letters
/// show in any part of the text.
fn windows_writer_under_1252<'a>(
    bytes: &'a [u8],
    text: &str,
) -> Option<(Cow<'a, str>, Finding, &'static encoding_rs::Encoding)> {
    const SAMPLE: usize = 16 * 1024;
    let w = encoding_rs::WINDOWS_1252;
    if bytes.len() > SAMPLE {
        let end = bytes
            .get(..SAMPLE)
            .and_then(|b| b.iter().rposition(|&c| c == b'\n'))
            .map_or(SAMPLE, |i| i + 1);
        let text_end = text.char_indices().nth(end).map_or(text.len(), |(i, _)| i);
        windows_writer(bytes.get(..end)?, w, w, text.get(..text_end)?)?;
    }
    windows_writer(bytes, w, w, text)
}

/// The text read whole as `twin` ([`windows_writer`]'s answer): its
/// reading, the charset used, which `detected` names too (for the audit's
/// record to say what normalize wrote from), and the finding that says so.
fn read_as_twin<'a>(
    d: &mut Decoded<'a>,
    text: Cow<'a, str>,
    finding: Finding,
    twin: &'static encoding_rs::Encoding,
) {
    d.text = text;
    d.used = Some(Charset::for_encoding(twin));
    d.detected = Some(Detected {
        charset: Charset::for_encoding(twin),
        confidence: 0.9,
    });
    d.findings.push(finding);
}

/// Whether a text under windows-1252 is asked whether it is windows-1250
/// ([`accept`]): it holds an octet windows-1252 has no character for
/// (reported whatever the answer), or, when detecting, two of `Ś ś ź`
/// (0x8C 0x9C 0x9F, `Œ œ Ÿ` there). memchr's vector search: a text with
/// Windows quotes (most windows-1252 mail with any octet 0x80..0x9F) was
/// walked an octet at a time, 1 M instructions over the linux-mips audit.
fn windows_1250_asked(bytes: &[u8], detect: bool) -> bool {
    memchr::memchr3(0x8D, 0x8F, 0x9D, bytes).is_some()
        || memchr::memchr2(0x81, 0x90, bytes).is_some()
        || (detect
            && memchr::memchr3_iter(0x8C, 0x9C, 0x9F, bytes)
                .nth(1)
                .is_some())
}

/// Whether `bytes` holds an octet windows-1252 has no character for (0x81,
/// 0x8D, 0x8F, 0x90, 0x9D: WHATWG reads them as C1 controls).
fn has_undefined_1252(bytes: &[u8]) -> bool {
    has_c1(bytes)
        && bytes
            .iter()
            .any(|b| matches!(b, 0x81 | 0x8D | 0x8F | 0x90 | 0x9D))
}

/// Whether every octet of `bytes` ISO-8859-8 has no character for
/// (0xC0..0xDF) stands where windows-1255's character there goes: a
/// point or cantillation mark (0xC0..0xD2) after a Hebrew letter or
/// another mark, sof pasuq, geresh or gershayim (0xD3, 0xD7, 0xD8) or a
/// Yiddish ligature (0xD4..0xD6) beside a Hebrew letter. A damaged octet
/// that fell there sits anywhere else (between ASCII, in place of a
/// letter's neighbour), and keeps its U+FFFD.
fn hebrew_marks_in_place(bytes: &[u8]) -> bool {
    let letter = |b: Option<&u8>| b.is_some_and(|b| (0xE0..=0xFA).contains(b));
    let mark = |b: Option<&u8>| b.is_some_and(|b| (0xC0..=0xD2).contains(b));
    bytes.iter().enumerate().all(|(i, &b)| {
        let prev = i.checked_sub(1).and_then(|k| bytes.get(k));
        let next = bytes.get(i + 1);
        match b {
            0xC0..=0xD2 => letter(prev) || mark(prev),
            0xD3..=0xD8 => letter(prev) || letter(next),
            0xD9..=0xDF => false,
            _ => true,
        }
    })
}

/// Text under ISO-8859-2, -4 or -13 whose octets 0x80..0x9F are letters of
/// its Windows twin (windows-1250, windows-1257: `š ś ť ž ź` of Polish,
/// Czech and Slovak) in words, two or more: the writer's system was the
/// Windows one, and the octets where the two charsets differ above 0xA0
/// are its letters too (`ą ľ` at 0xB9 and 0xBE, read by ISO-8859-2 as `š
/// ž`: `hžadajú` beside `ťažko`). Read whole with the twin, when it
/// decodes every octet and fits a language's alphabet no worse than the
/// mixed reading `mixed` ([`c1_as_twin`]'s).
fn windows_writer<'a>(
    bytes: &'a [u8],
    enc: &'static encoding_rs::Encoding,
    twin: &'static encoding_rs::Encoding,
    mixed: &str,
) -> Option<(Cow<'a, str>, Finding, &'static encoding_rs::Encoding)> {
    let whole = [
        encoding_rs::ISO_8859_2,
        encoding_rs::ISO_8859_4,
        encoding_rs::ISO_8859_13,
    ];
    // Under ISO-8859-1 the Windows twin is windows-1252; a windows-1250
    // writer (Czech, Slovak, Polish under the Western label, the commonest
    // Central European lie) shows as `ť` read as a C1 control and `ř ě ů`
    // as `ø ì ù`. windows-1250 is taken only when its reading fits a
    // language's alphabet better than the mixed one (French `cœur`, `è`
    // is `č` in windows-1250: worse).
    let (twin, better) = if whole.contains(&enc) {
        (twin, false)
    } else if twin == encoding_rs::WINDOWS_1252 && enc == encoding_rs::WINDOWS_1252 {
        (encoding_rs::WINDOWS_1250, true)
    } else {
        return None;
    };
    // The octets that tell: under ISO-8859-1 only those where windows-1250
    // has a letter and windows-1252 another character or none (`Ť ť Ź` at
    // 0x8D 0x9D 0x8F, C1 controls there; `Ś ś ź` for `Œ œ Ÿ`). `Š š Ž ž`
    // are letters in both: a French letter to `Dušan` and `Miloš` is no
    // windows-1250 text (it read `à` and `è` as `ŕ` and `č`). Most octets
    // 0x80..0x9F are Windows quotes and dashes: two that tell before the
    // text is decoded again.
    let tells = |b: u8| {
        if better {
            matches!(b, 0x8C | 0x8D | 0x8F | 0x9C | 0x9D | 0x9F)
        } else {
            (0x80..0xA0).contains(&b)
        }
    };
    // Octets windows-1252 has no character for, where windows-1250 has
    // `Ť Ź ť` (C1 controls in the Western reading, which mail text never
    // holds): one in a word in the writer's case is enough (`žluťoučký`,
    // `odpověď, ťukat`), the rest of the reading fitting as below.
    let undefined = |b: u8| better && matches!(b, 0x8D | 0x8F | 0x9D);
    if better {
        // One walk: two that tell, or one of them windows-1252 lacks.
        let (mut n, mut lacking) = (0, false);
        for &b in bytes {
            if tells(b) {
                n += 1;
                lacking |= undefined(b);
                if n == 2 || lacking {
                    break;
                }
            }
        }
        if n < 2 && !lacking {
            return None;
        }
    }
    let t = twin.decode_without_bom_handling_and_without_replacement(bytes)?;
    // An octet the twin has no character for either (WHATWG reads it as a
    // C1 control): no writer's text of the twin's (Mac OS Roman Italian
    // under windows-1252, `pi\x9d` and `Facolt\x88`, was read as
    // windows-1250 `piť` and a C1 control).
    if t.chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c)) {
        return None;
    }
    // C1 octets the twin reads as letters beside a letter (a single-octet
    // charset: a character an octet).
    let chars: Vec<char> = t.chars().collect();
    if chars.len() != bytes.len() {
        return None;
    }
    let is_letter = |b: Option<&u8>| b.is_some_and(|&b| b.is_ascii_alphabetic() || b >= 0xA0);
    // And in a word the twin reads in a writer's case (small letters, a
    // capital and small ones, or capitals): a writer's `š ť Ž` are, while
    // damaged octets read as letters mostly are not (`kŚň`, `ŚŠReykjavík`,
    // two of them beside ISO-8859-2 letters were read as a windows-1250
    // writer's and the text's `ź` became `ľ`).
    let in_written_case = |i: usize| {
        let alpha = |k: &usize| chars.get(*k).is_some_and(|c| c.is_alphabetic());
        let start = (0..i).rev().take_while(alpha).last().unwrap_or(i);
        let end = (i..chars.len())
            .take_while(alpha)
            .last()
            .map_or(i, |k| k + 1);
        let word = chars.get(start..end).unwrap_or_default();
        let rest_lower = word.iter().skip(1).all(|c| !c.is_uppercase());
        rest_lower || word.iter().all(|c| !c.is_lowercase())
    };
    let told: Vec<u8> = bytes
        .iter()
        .zip(&chars)
        .enumerate()
        .filter(|&(i, (&b, c))| {
            tells(b)
                && c.is_alphabetic()
                && (is_letter(i.checked_sub(1).and_then(|k| bytes.get(k)))
                    || is_letter(bytes.get(i + 1)))
                && in_written_case(i)
        })
        .map(|(_, (&b, _))| b)
        .collect();
    if told.len() < 2 && !told.iter().any(|&b| undefined(b)) {
        return None;
    }
    // On that one octet alone, a word the twin reads otherwise must be no
    // language's word as the label reads it (`odpovìï` for `odpověď`): a
    // Western text with a damaged octet there and a Slavic name in it
    // (`Khánh Hòa Prešovský \x9draj`, Italian `è installato? Žužemberk`)
    // would have its own words read as windows-1250 (`Hňa`, `č`).
    if told.len() < 2 && !foreign_word_read_otherwise(mixed, &t) {
        return None;
    }
    // Under ISO-8859-2, -4 or -13 the twin differs above 0x9F too: a
    // letter of the label's inside a word that the twin reads as a sign
    // (ISO-8859-2 `Šťastný`, windows-1250 `©»astný`) is the label's text,
    // whatever the C1 octets are (two damaged octets beside it were read
    // as a windows-1250 writer's, and every `Š ť ą ś` of the text
    // changed). A windows-1250 writer's letters there are ISO-8859-2's
    // letters too (`ł ż Ş`); its signs (`»`, `©`) do not stand inside words.
    if !better {
        // The label's letters: `mixed` is its reading, a character an
        // octet, only the octets 0x80..0x9F read otherwise.
        let own: Vec<char> = mixed.chars().collect();
        let inside = |i: usize| {
            is_letter(i.checked_sub(1).and_then(|k| bytes.get(k))) && is_letter(bytes.get(i + 1))
        };
        if own.len() == bytes.len()
            && bytes.iter().enumerate().any(|(i, &b)| {
                b >= 0xA0 && own[i].is_alphabetic() && !chars[i].is_alphabetic() && inside(i)
            })
        {
            return None;
        }
    }
    match compare_fit(&t, mixed) {
        _ if t == mixed => return None,
        // One alphabet's letters, no capital after a small letter: Mac OS
        // Roman Spanish reads `JosŽ, Ŕpodr’as` (Slovak letters all) in
        // windows-1250.
        _ if better
            && (alphabet_fit(&t).0 < alphabet_fit(&t).1
                || chars
                    .windows(2)
                    .any(|w| w[0].is_lowercase() && w[1].is_uppercase() && !w[1].is_ascii())) =>
        {
            return None;
        }
        Some(std::cmp::Ordering::Less) => return None,
        Some(std::cmp::Ordering::Greater) => {}
        _ if better => return None,
        _ => {}
    }
    let first = bytes
        .iter()
        .position(|&b| (0x80..0xA0).contains(&b))
        .unwrap_or(0);
    Some((
        t,
        Finding::new(FindingKind::C1InLatin1, first, told.len()).with_note(format!(
            "{} octet(s) 0x80..0x9F are {} letters in words: a {} writer, the whole \
             text read as {}",
            told.len(),
            twin.name(),
            twin.name(),
            twin.name()
        )),
        twin,
    ))
}

/// Of `lines` (lines UTF-8 cannot read), those `cs` decodes without error
/// into letters in words and that do not look like damaged UTF-8:
///
/// - no UTF-8 character on the line (read by the label, its every
///   character would be mojibake);
/// - no octet from 0xC0 up followed by a continuation octet or ending the
///   line (a UTF-8 character cut short, by a lost octet or a line end, or
///   one whose lead octet was damaged: `F5 9F`); a Latin-1 line ending in
///   `é` keeps the UTF-8 reading too, the evidence being the same;
/// - when it holds 0xC2 or 0xC3, the leads of UTF-8's Latin-1 letters
///   (what is left of `é` or `ü` when its second octet was lost: `Ã`, or
///   `Ă` under ISO-8859-2), more octets from 0xC0 up (the letters of every
///   single-byte charset) than those; with no octet from 0xC0 up at all
///   (Polish `Paweł` under ISO-8859-2), no capital inside a word in the
///   label's reading.
///
/// A line that looks damaged keeps the UTF-8 reading, U+FFFD at the damage.
fn labels_own_lines(
    bytes: &[u8],
    cs: &'static Charset,
    lines: &[Range<usize>],
) -> Vec<Range<usize>> {
    // Whether the UTF-8 of the text writes Latin letters (`ß` is `C3 9F`):
    // then a lone continuation octet in a Latin line is one of them whose
    // lead was lost (`üb` as `\xBCb`, `źb` under ISO-8859-2), not the
    // label's letter.
    // Only the letter's UTF-8 counts for a line above a signature
    // delimiter (`-- `): a signature below in UTF-8 (`José Pérez`) says
    // nothing of the letter's octets (Polish `BIAŁO` under ISO-8859-2).
    let utf8_latin_in = |b: &[u8]| {
        b.windows(2)
            .any(|w| (0xC3..=0xC9).contains(&w[0]) && (0x80..=0xBF).contains(&w[1]))
    };
    let signature = super::evidence::lines(bytes).find(|r| {
        matches!(
            &bytes[r.clone()],
            b"-- \n" | b"-- \r\n" | b"--\n" | b"--\r\n"
        )
    });
    let utf8_latin_all = utf8_latin_in(bytes);
    let utf8_latin_letter = signature
        .as_ref()
        .map_or(utf8_latin_all, |s| utf8_latin_in(&bytes[..s.start]));
    lines
        .iter()
        .filter(|r| {
            let utf8_latin = match &signature {
                Some(s) if r.start < s.start => utf8_latin_letter,
                _ => utf8_latin_all,
            };
            let line = &bytes[(*r).clone()];
            let latin1_leads = line.iter().filter(|&&b| b == 0xC2 || b == 0xC3).count();
            let letters = line.iter().filter(|&&b| b >= 0xC0).count() - latin1_leads;
            // One walk of what UTF-8 reads: its characters beyond ASCII
            // (a lead and continuation there are no cut character) and the
            // octets it fails on.
            let mut in_char = vec![false; line.len()];
            let (mut valid, mut invalid, mut at) = (0usize, 0usize, 0usize);
            for c in line.utf8_chunks() {
                for ch in c.valid().chars() {
                    if !ch.is_ascii() {
                        in_char[at..at + ch.len_utf8()].fill(true);
                        valid += 1;
                    }
                    at += ch.len_utf8();
                }
                at += c.invalid().len();
                invalid += c.invalid().len();
            }
            let cut = line.windows(2).enumerate().any(|(i, w)| {
                !in_char[i] && w[0] >= 0xC0 && matches!(w[1], 0x80..=0xBF | b'\n' | b'\r')
            }) || line.last().is_some_and(|&b| b >= 0xC0);
            // A UTF-8 character on the line: read by the label, it would
            // be mojibake. Unless UTF-8 fails on four times as many of its
            // 8-bit octets: a KOI8-U line's `н` and `і` pair up into one by
            // chance (`Доброго дня, пані` read as UTF-8 `…Φ…`).
            if (latin1_leads > 0 && letters <= latin1_leads)
                || cut
                || (valid > 0 && invalid < 4 * valid.max(2))
            {
                return false;
            }
            let (text, report, _) = decode_with(line, cs);
            // Its letters in words, or standing alone (Italian `è`); with
            // only octets below 0xC0 (Polish `ł ą ś ż`, where UTF-8 keeps
            // its continuation octets), no UTF-8 Latin letter in the text
            // and no capital inside a word either (`cafŠ` is what
            // ISO-8859-2 makes of `é` whose lead was lost), unless the
            // line has three such octets or more (a lost lead is damage,
            // one here and there, not three on a line: Polish `dużo`,
            // `ją`, `się` above a UTF-8 quote).
            let lone = line.iter().filter(|&&b| b >= 0x80).count();
            report.is_clean()
                && (characters(&text).1 >= 1 || standing(&text) >= 1)
                && (letters > 0
                    || lone >= 3
                    || !(utf8_latin || super::detect::capitals_inside(&text)))
        })
        .cloned()
        .collect()
}

/// Lines of text under an ISO-2022-JP (or -JP-2) label that hold its
/// escape sequence for a two-octet set (`ESC $ B`, `ESC $ @` ...), are
/// 7-bit, and that it decodes without error into non-ASCII characters:
/// the label's own lines, whatever the rest of the text is. No other
/// charset writes `ESC $`; read as UTF-8 or Shift_JIS the line shows as
/// `$B$4ITL@(B` garbage. (RFC 1468 ends every line in ASCII, so each line
/// decodes alone.) Empty for any other label: the escapes of HZ (`~{`)
/// and UTF-7 (`+`) are printable text in other charsets.
fn escape_lines(bytes: &[u8], cs: &'static Charset) -> Vec<Range<usize>> {
    let jp = matches!(cs.kind, Kind::Iso2022Jp2)
        || cs.encoding().is_some_and(|e| e == encoding_rs::ISO_2022_JP);
    if !jp || memchr::memmem::find(bytes, b"\x1b$").is_none() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut at = 0;
    let ends = memchr::memchr_iter(b'\n', bytes).map(|i| i + 1);
    for end in ends.chain(std::iter::once(bytes.len())) {
        let r = at..end;
        at = end;
        let line = &bytes[r.clone()];
        if line.is_empty() || !line.is_ascii() || memchr::memmem::find(line, b"\x1b$").is_none() {
            continue;
        }
        let (text, report, _) = decode_with(line, cs);
        if report.is_clean() && characters(&text).0 >= 1 {
            out.push(r);
        }
    }
    out
}

/// After the label's text was read as `main` (its 8-bit octets are
/// `main`'s): the lines in the label's escape sequences keep its reading
/// ([`escape_lines`]).
fn keep_escape_lines(
    bytes: &[u8],
    cs: &'static Charset,
    main: &'static Charset,
    d: &mut Decoded<'_>,
    out: &mut Outcome,
) {
    let own = escape_lines(bytes, cs);
    if !own.is_empty() {
        keep_label_lines(bytes, cs, main, &own, d, out);
    }
}

/// The text read as `main` but for `own` (not empty), the label's own
/// lines, which keep its reading, named as `mixed-charset` lines (offset:
/// the first line's first 8-bit octet or ESC); the verdict becomes
/// `invalid`.
fn keep_label_lines(
    bytes: &[u8],
    cs: &'static Charset,
    main: &'static Charset,
    own: &[Range<usize>],
    d: &mut Decoded<'_>,
    out: &mut Outcome,
) {
    let at = own.first().map_or(0, |first| {
        let line = &bytes[first.clone()];
        first.start
            + line
                .iter()
                .position(|&b| b >= 0x80 || b == 0x1B)
                .unwrap_or(line.len())
    });
    d.findings.push(
        Finding::new(FindingKind::MixedCharset, at, own.len()).with_note(format!(
            "{} line(s) in {}, the label's",
            own.len(),
            cs.name
        )),
    );
    let (t, r) = repair_mixed(bytes, main, cs, own);
    add_report(d, &r);
    d.text = Cow::Owned(t);
    out.mixed = true;
}

/// The lines of a text that is not valid UTF-8 which are, with a
/// multi-octet character: none unless they hold three or more such
/// characters in all, every one a Latin letter, a Latin-1 symbol or
/// general punctuation, currency or letterlike symbol (U+00A0..U+02FF,
/// U+2000..U+22FF; what a European footer or signature holds), a letter
/// or punctuation of the label's own script ([`own_script`]: a Greek
/// signature under ISO-8859-7, a Korean quote under EUC-KR), or, on a
/// line whose every such character is a letter in a word, two or more
/// letters of another script real text uses (`Анна Смирнова` below a
/// Latin-1 letter: read as the label, its octets were taken for another
/// script's and the whole letter read as GBK). Legacy text
/// makes valid UTF-8 of a line only by chance (an uppercase letter
/// directly before a symbol, `GROß“`), and then not in these ranges: it
/// reads as NKo or Cyrillic; in its own script every letter of the line
/// would have to pair up with the next octet into a UTF-8 character.
fn utf8_lines(bytes: &[u8], cs: &'static Charset) -> Vec<Range<usize>> {
    let own = own_script(cs);
    let mut lines = Vec::new();
    let mut chars = 0;
    // Only the lines with 8-bit octets are looked at: from one to the
    // next, found 32 octets at a time.
    let mut from = 0;
    while let Some(i) = bytes.get(from..).and_then(find_nonascii) {
        let at = from + i;
        let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |p| p + 1);
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |p| at + p + 1);
        from = end;
        let r = start..end;
        let Ok(s) = std::str::from_utf8(&bytes[r.clone()]) else {
            continue;
        };
        // A line of the label's own whose octets pair up by chance
        // (`PAYÉ…`, `KOM PÅ–`, `CZĘŚCI`): neither UTF-8 nor a reason to
        // doubt the other lines.
        if utf8_by_chance(&bytes[r.clone()], cs) {
            continue;
        }
        let mut n = 0;
        let mut elsewhere = 0;
        for c in s.chars().filter(|c| !c.is_ascii()) {
            if !matches!(c, '\u{A0}'..='\u{2FF}' | '\u{2000}'..='\u{22FF}')
                && !own.iter().any(|r| r.contains(&c))
            {
                // A letter of another script real text uses: a signature
                // in Russian, Greek or Chinese below a Latin-1 letter.
                if !c.alphabetic() || script(c) == Script::Other {
                    return Vec::new();
                }
                elsewhere += 1;
            }
            n += 1;
        }
        // Such letters stand in words, two or more of them, every one: a
        // legacy line pairs up into a letter of them only by chance, one
        // here and there beside ASCII (`KӣKO`), never into words.
        if elsewhere > 0 && (elsewhere < 2 || characters(s).1 < elsewhere) {
            return Vec::new();
        }
        if elsewhere == 0
            && cs.is_single_byte()
            && !own.is_empty()
            && labels_own_words(&bytes[r.clone()], s, cs, own)
        {
            continue;
        }
        chars += n;
        lines.push(r);
    }
    if chars < UTF8_OVERRIDE {
        return Vec::new();
    }
    lines
}

/// Whether every multi-octet character that UTF-8 reads in `bytes` (a
/// text or a line under the single-byte label `cs`, valid UTF-8 where it
/// is read) is one the label's own text makes by chance, a letter ending a
/// word followed by the signs a writer puts there ([`utf8_chance`]):
/// `PAYÉ…` (UTF-8 `PAYɅ`), `KOM PÅ–` (`PŖ`), `NESTLÉ™` (`NESTLə`),
/// `Nå…”` (`N兔`), or an all-caps word whose two capitals pair up into a
/// character that is no Latin letter (`CZĘŚCI` as `CZʦCI`, `VÝŠKA` as
/// `VݩKA`). A UTF-8 writer's characters are not all of that shape: its
/// Latin-1 letters (leads `C2`, `C3`) and typography (`E2`) are never
/// counted as chance, and its other letters sit inside words (`rÃ©union`,
/// `PaweÅ‚ski`, `CZÄ˜ÅšÄ†`).
fn utf8_by_chance(bytes: &[u8], cs: &'static Charset) -> bool {
    let (chance, all) = utf8_chance_count(bytes, cs, false);
    all > 0 && chance == all
}

/// Of the UTF-8 characters in `bytes` (octets UTF-8 fails on skipped), how
/// many are chance pairings under the single-byte charset `cs`
/// ([`utf8_chance`]), and how many there are; `(0, 0)` when `cs` is not
/// a Latin single-byte charset or does not read every octet.
fn utf8_chance_count(bytes: &[u8], cs: &'static Charset, after_letter: bool) -> (usize, usize) {
    // Latin labels only: under ISO-8859-5 a UTF-8 footer's `½ · ±` reads
    // as capitals (`ТН ТЗ ТБ`), the shape of a chance pair in caps.
    if !(is_latin(cs) || mac_latin(cs)) || !cs.is_single_byte() {
        return (0, 0);
    }
    let (t, rep, _) = decode_with(bytes, cs);
    let label: Vec<char> = t.chars().collect();
    if !rep.is_clean() || label.len() != bytes.len() {
        return (0, 0);
    }
    let (mut chance, mut all) = (0, 0);
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let len = match b {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => 1,
        };
        let u = (len > 1)
            .then(|| bytes.get(i..i + len))
            .flatten()
            .and_then(|seq| std::str::from_utf8(seq).ok())
            .and_then(|s| s.chars().next());
        let Some(u) = u else {
            i += 1;
            continue;
        };
        all += 1;
        if utf8_chance(&label, i, len, b, u)
            && (!after_letter
                || (len == 2 && i > 0 && label.get(i - 1).is_some_and(|c| c.is_alphabetic())))
        {
            chance += 1;
        }
        i += len;
    }
    (chance, all)
}

/// Whether the UTF-8 character `u` of `len` octets from `at` (lead octet
/// `lead`) is a chance pairing in the label's reading `label` (one
/// character per octet): two octets from `C4` up, the label reading a
/// capital (or `ß`) after a capital or alone, then a sign ending the word
/// (`PAYÉ…`, `Ø…`), or a capital in an all-caps word going on where UTF-8
/// reads no Latin letter (`CZĘŚCI`), or a quote or apostrophe before a
/// letter where UTF-8 reads no Latin letter (Mac OS Roman `l’école`);
/// three or four octets (not `E2`, the lead of UTF-8's typography), a
/// letter ending a word after a letter, then signs (`Nå…”`).
fn utf8_chance(label: &[char], at: usize, len: usize, lead: u8, u: char) -> bool {
    // Not UTF-8's typography (`E2`), nor the combining marks a
    // decomposed letter is written with (`Č` as `C` and U+030C, `CC 8C`,
    // which windows-1250 reads `ČŚ`; lead `CC`: U+0340 and up decompose
    // no letter, and `LÍŠKA` makes U+034A).
    if lead == 0xE2 || ('\u{300}'..='\u{33F}').contains(&u) {
        return false;
    }
    let (Some(&l), Some(conts)) = (label.get(at), label.get(at + 1..at + len)) else {
        return false;
    };
    let prev = at.checked_sub(1).and_then(|k| label.get(k)).copied();
    let next = label.get(at + len).copied();
    let word_end = next.is_none_or(|c| !c.is_alphabetic());
    if len == 2 {
        // Mac OS Roman's quotes and apostrophe (`D2..D5`) before a
        // letter, UTF-8's Cyrillic and Armenian: `l’école` as `lՎcole`.
        if matches!(l, '\u{2018}'..='\u{201D}') {
            return conts.first().is_some_and(|c| c.is_alphabetic())
                && !matches!(u, '\u{C0}'..='\u{24F}');
        }
        let after_capital = prev.is_some_and(char::is_uppercase);
        let alone = prev.is_none_or(|p| !p.is_alphanumeric());
        if !(l.is_uppercase() || l == 'ß') || !(after_capital || alone) {
            return false;
        }
        let Some(&c) = conts.first() else {
            return false;
        };
        if !c.is_alphabetic() {
            // A sign a writer ends a word with (`…`, `–`, `—`, `™`, quotes,
            // `»`, `®` after a capital): not `‚ „ † ˜ ²`, which end no word,
            // and which UTF-8's capitals of Latin Extended-A make of a
            // word's last letter (Romanian `FACTURĂ` is `FACTURÄ‚`, Polish
            // `Ą` `Ä„`, Lithuanian `Ų` `Å²`).
            let ends_words = matches!(
                c,
                '\u{2026}'
                    | '\u{2013}'
                    | '\u{2014}'
                    | '\u{2122}'
                    | '\u{2018}'
                    | '\u{2019}'
                    | '\u{201C}'
                    | '\u{201D}'
                    | '\u{BB}'
                    | '\u{203A}'
                    | '\u{A0}'
                    | '\u{2022}'
            ) || (c == '\u{AE}' && after_capital);
            // Not `C2`/`C3`: a UTF-8 writer's `«OK»` is `Â«OKÂ»`.
            return lead >= 0xC4 && ends_words && word_end;
        }
        // Under `C2`/`C3` (Romanian `Â Ă` in ISO-8859-16) only where UTF-8
        // reads a letter (`CÂȘTIG` as `CªTIG`): its signs are a writer's
        // (`«` is `Â«`, which ISO-8859-2 reads as two capitals, `ÂŤ`).
        return c.is_uppercase()
            && next.is_none_or(|n| !n.is_lowercase())
            && !matches!(u, '\u{C0}'..='\u{24F}')
            && (lead >= 0xC4 || u.is_alphabetic());
    }
    prev.is_some_and(char::is_alphabetic)
        && l.is_alphabetic()
        && conts.iter().all(|c| !c.is_alphabetic())
        && word_end
}

/// Whether a line valid as UTF-8 (`s`) is the label's own text all the
/// same: it has no ASCII letter, the label reads words of its own script,
/// letters only, and UTF-8 reads Latin-range letters (U+00A0..U+02FF).
/// Capitals of ISO-8859-5 (`ЩЕ` is `C9 B5`, UTF-8's `ɵ`) pair up into
/// such letters on a line of their own. UTF-8 Latin text has ASCII
/// letters beside its accents (`Merci à vous`, Portuguese `Ele é bom`),
/// and a UTF-8 footer of signs (`© 2024 ACME · Tel.`) reads as no letter:
/// both stay UTF-8. Single-byte labels only: under GB2312 a quoted
/// `>To: Öì·ï` (UTF-8 of a name that was mojibake already) is Han to the
/// label, and the octets say Latin.
fn labels_own_words(
    line: &[u8],
    s: &str,
    cs: &'static Charset,
    own: &[std::ops::RangeInclusive<char>],
) -> bool {
    let own_letter = |c: char| c.is_alphabetic() && own.iter().any(|r| r.contains(&c));
    if s.bytes().any(|b| b.is_ascii_alphabetic())
        || s.chars()
            .any(|c| !(c.is_ascii() || matches!(c, '\u{A0}'..='\u{2FF}') && c.is_alphabetic()))
    {
        return false;
    }
    let (t, rep, _) = decode_with(line, cs);
    let mut words = t
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_ascii())
        .peekable();
    rep.is_clean() && words.peek().is_some() && words.all(|w| w.chars().all(own_letter))
}

/// The letters and punctuation of the script a legacy label writes,
/// beyond Latin: Greek, Cyrillic, Hebrew, Arabic, Thai, or (a CJK label)
/// CJK punctuation, kana, Hangul, Han and full-width forms.
fn own_script(cs: &'static Charset) -> &'static [std::ops::RangeInclusive<char>] {
    const GREEK: &[std::ops::RangeInclusive<char>] = &['\u{370}'..='\u{3FF}'];
    const CYRILLIC: &[std::ops::RangeInclusive<char>] = &['\u{400}'..='\u{4FF}'];
    const HEBREW: &[std::ops::RangeInclusive<char>] = &['\u{590}'..='\u{5FF}'];
    const ARABIC: &[std::ops::RangeInclusive<char>] = &['\u{600}'..='\u{6FF}'];
    const THAI: &[std::ops::RangeInclusive<char>] = &['\u{E00}'..='\u{E7F}'];
    const CJK: &[std::ops::RangeInclusive<char>] = &[
        '\u{3000}'..='\u{30FF}',
        '\u{3130}'..='\u{318F}',
        '\u{3400}'..='\u{4DBF}',
        '\u{4E00}'..='\u{9FFF}',
        '\u{AC00}'..='\u{D7A3}',
        '\u{FF00}'..='\u{FFEF}',
    ];
    if is_multibyte(cs) {
        return CJK;
    }
    match cs.decoder_name() {
        Some("ISO-8859-7" | "windows-1253" | "x-mac-greek") => GREEK,
        Some("ISO-8859-8" | "ISO-8859-8-I" | "windows-1255") => HEBREW,
        Some("ISO-8859-6" | "windows-1256") => ARABIC,
        Some("windows-874") => THAI,
        _ if cyrillic_label(cs) => CYRILLIC,
        _ => &[],
    }
}

/// Non-ASCII characters the lines in another charset must hold, in all,
/// before they are read in it by default (one is what a damaged octet
/// leaves).
const MIXED_READ: usize = 2;

/// Whether `foreign`, the lines of a text its label `cs` explains that read
/// cleanly as words in `other` ([`foreign_charset`]), are `other`'s text
/// beyond doubt, to be read in it without `repair_mixed`: below the
/// label's text ([`below_the_text`]), two or more non-ASCII characters in
/// all, two of them letters inside words (or one, when all are letters),
/// half of them letters, no word of two scripts (single-byte `other`:
/// `Tול` is Hebrew letters by damage); under a UTF-8 label no CESU-8
/// pair in the label's reading (`label_report`), and for a single-byte `other` not shaped like UTF-8 (an
/// octet from 0xC0 up before a continuation octet for a quarter of those
/// octets or more, none of them at all, or a line [`cut_utf8_line`]). One stray octet
/// (`Jos\xE9`), two side by side (`xÿ€y`), a damaged lead
/// (`gro\xF5\x9Fen`), ASCII letters with their high bit set among the
/// text's lines stay U+FFFD.
fn foreign_lines_read(
    bytes: &[u8],
    cs: &'static Charset,
    other: &'static Charset,
    foreign: &[Range<usize>],
    label_report: &DecodeReport,
) -> bool {
    let sample = joined(bytes, foreign);
    // Where they are: below the label's own text (a footer, a signature,
    // a quote under the reply). Damage falls anywhere.
    if !below_the_text(bytes, foreign) {
        return false;
    }
    let (text, report, _) = decode_with(&sample, other);
    let (n, in_words) = characters(&text);
    // Two letters in words, or letters only with one in a word (`à`
    // stands alone in French): not two stray octets side by side (`xÿ€y`).
    let letters_only = text.chars().all(|c| c.is_ascii() || c.alphabetic());
    // Nor letters of another script inside the Latin words the label reads
    // (`legisla눉찾o` for a damaged `legislação` from a `.kr` sender), nor
    // C1 controls, which no text has (`zĹ\u{82}oĂŮenie` as ISO-8859-2).
    if !report.is_clean()
        || n < MIXED_READ
        || !(in_words >= 2 || (in_words == 1 && letters_only))
        || !plausible(&text)
        || (other.is_single_byte() && mixed_script_letters(&text) > 0)
        || text.chars().any(c1_control)
        || wedges_more(&text, &decode_with(&sample, cs).0)
    {
        return false;
    }
    let utf8_label = cs.is_utf8() || cs.is_unicode11_utf8();
    // CESU-8 (a surrogate pair in two 3-octet forms, as the UTF-8 decoder
    // reports it) is a UTF-8 writer's damage, whatever a legacy charset
    // makes of it.
    if utf8_label
        && label_report
            .errors
            .iter()
            .any(|e| e.0 == crate::codec::ErrorKind::SurrogatePair)
    {
        return false;
    }
    if utf8_label && other.is_single_byte() {
        // The shape of UTF-8: an octet from 0xC0 up before a continuation
        // octet (a whole character, one cut short, a damaged lead, a
        // writer's form). In a legacy text a letter before one of the
        // charset's letters or signs in 0x80..0xBF (`Ещё` in KOI8-R, `Київ`
        // in windows-1251) now and then; in damaged UTF-8, every such
        // octet.
        let leads = sample.iter().filter(|&&b| b >= 0xC0).count();
        let shaped = sample
            .windows(2)
            .filter(|w| w[0] >= 0xC0 && matches!(w[1], 0x80..=0xBF))
            .count();
        // No octet from 0xC0 up (where every single-byte charset has most
        // of its letters): continuation octets whose leads were damaged.
        if leads == 0 || shaped * 4 >= leads || foreign.iter().any(|r| cut_utf8_line(bytes, r)) {
            return false;
        }
    }
    true
}

/// Whether a line is what UTF-8 leaves when characters are cut: its
/// octets from 0xC0 up are mostly `C2` and `C3`, the leads of UTF-8's
/// Latin-1 letters (what `é` leaves whose second octet was lost: `Ã`), or
/// it ends in such an octet at the end of the text or before a line that
/// starts with continuation octets (a character cut by a line break).
fn cut_utf8_line(bytes: &[u8], r: &Range<usize>) -> bool {
    let line = &bytes[r.clone()];
    let latin1_leads = line.iter().filter(|&&b| b == 0xC2 || b == 0xC3).count();
    let leads = line.iter().filter(|&&b| b >= 0xC0).count();
    if latin1_leads > 0 && leads - latin1_leads <= latin1_leads {
        return true;
    }
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let body = body.strip_suffix(b"\r").unwrap_or(body);
    body.last().is_some_and(|&b| b >= 0xC0)
        && bytes.get(r.end).is_none_or(|b| (0x80..=0xBF).contains(b))
}

/// Whether no 8-bit octet follows the lines of `foreign` (ascending)
/// outside them: the other charset's lines are below the label's text (a
/// footer, a signature, a quote under the reply), not among it, where
/// damage falls as often as anywhere.
fn below_the_text(bytes: &[u8], foreign: &[Range<usize>]) -> bool {
    let Some(first) = foreign.first() else {
        return true;
    };
    let mut from = first.end;
    while let Some(i) = bytes.get(from..).and_then(find_nonascii) {
        let at = from + i;
        match foreign.iter().find(|f| f.contains(&at)) {
            Some(f) => from = f.end,
            None => return false,
        }
    }
    true
}

/// Reports the lines `foreign` of `bytes` as `other`'s (`mixed-charset`,
/// noted "read as such" when `read`, "repaired" when only repaired) and,
/// given `repair` (the charset that read the rest and its report over
/// the whole), writes the text with those lines in `other` and the rest
/// in `cs`. True when it wrote the text; left `invalid` (the report's
/// errors, the repair's replacements) unless `read`. Shared by a label
/// and by unlabelled UTF-8.
fn read_foreign_lines(
    bytes: &[u8],
    cs: &'static Charset,
    other: &'static Charset,
    foreign: &[Range<usize>],
    read: bool,
    repair: Option<(&'static Charset, &DecodeReport)>,
    d: &mut Decoded<'_>,
) -> bool {
    d.findings.push(mixed_lines(
        bytes,
        foreign,
        format!(
            "{} line(s) in {}{}",
            foreign.len(),
            other.name,
            match (read, repair.is_some()) {
                (true, _) => ", read as such",
                (false, true) => ", repaired",
                (false, false) => "",
            }
        ),
    ));
    let Some((used, report)) = repair else {
        return false;
    };
    let (t, r) = repair_mixed(bytes, cs, other, foreign);
    if read {
        // Nothing is left damaged: `suspicious`, as for UTF-8 lines in a
        // single-byte text.
        add_report(d, &r);
    } else {
        // Repaired on request over the errors: `invalid`.
        add_report(d, report);
        d.replacements = r.replacements;
    }
    d.text = Cow::Owned(t);
    d.used = Some(used);
    true
}

/// Reads the valid UTF-8 `lines` ([`utf8_lines`]) of a text `cs` reads
/// otherwise as UTF-8 (`mixed-charset`, noted with `why`), when `cs`
/// reads the rest without error. True when it did.
fn read_utf8_lines(
    bytes: &[u8],
    cs: &'static Charset,
    used: &'static Charset,
    lines: &[Range<usize>],
    why: &str,
    d: &mut Decoded<'_>,
) -> bool {
    if lines.is_empty() {
        return false;
    }
    let (t, r) = repair_mixed(bytes, cs, Charset::UTF_8, lines);
    if !r.is_clean() {
        return false;
    }
    d.findings.push(mixed_lines(
        bytes,
        lines,
        format!("{} line(s) in UTF-8, read as UTF-8 ({why})", lines.len()),
    ));
    add_report(d, &r);
    d.text = Cow::Owned(t);
    d.used = Some(used);
    true
}

/// The `mixed-charset` finding for `lines` (not empty) of `bytes`: from
/// the first line's first 8-bit octet, a count of lines, `note`.
fn mixed_lines(bytes: &[u8], lines: &[Range<usize>], note: String) -> Finding {
    let first = &lines[0];
    let at = first.start + first_nonascii(&bytes[first.clone()]).min(first.len());
    Finding::new(FindingKind::MixedCharset, at, lines.len()).with_note(note)
}

/// A line of Latin text: a non-ASCII letter beside an ASCII letter, every
/// non-ASCII letter Latin, no more of them than ASCII letters in their
/// words, and none in a run of four (`señora García`,
/// `Größe`, Turkish `alındığını`; another script read as a Latin charset
/// is runs of such letters, `Ïðèâåò`).
fn latin_line(line: &str) -> bool {
    // The words with such letters have more ASCII letters than those
    // (`°ĎŹqĄG` is Big5 `區段：` read as ISO-8859-2).
    let (ascii, other) = line
        .split(|c: char| !c.alphabetic())
        .filter(|w| !w.is_ascii())
        .flat_map(str::chars)
        .fold((0usize, 0usize), |(a, o), c| {
            if c.is_ascii() { (a + 1, o) } else { (a, o + 1) }
        });
    if ascii < other {
        return false;
    }
    let chars: Vec<char> = line.chars().collect();
    let (mut letters, mut beside, mut run) = (0usize, 0usize, 0usize);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii() || !c.alphabetic() {
            run = 0;
            continue;
        }
        if script(c) != Script::Latin {
            return false;
        }
        run += 1;
        if run >= 4 {
            return false;
        }
        letters += 1;
        let ascii_letter = |j: Option<usize>| {
            j.and_then(|j| chars.get(j))
                .is_some_and(char::is_ascii_alphabetic)
        };
        if ascii_letter(i.checked_sub(1)) || ascii_letter(Some(i + 1)) {
            beside += 1;
        }
    }
    letters > 0 && beside * 2 >= letters
}

/// A line of sentences (`case`, its [`case_of`]), in natural case: a capitalised word
/// (`Сервер`) among four lowercase letters or more, or its one capital
/// the line's first letter before eight lowercase ones (`В приложении
/// фотографии`). A lie's line of capitals with a lowercase unit (KOI8-R
/// `ИТОГО: 15 400 руб.` read as windows-1251 `йфпзп: 15 400 ТХВ.`, `г.
/// ЕКАТЕРИНБУРГ` as `З. екатеринбург`) is neither.
fn sentence_case(line: &str, case: &super::evidence::Case) -> bool {
    let first_upper = line
        .chars()
        .find(|c| c.alphabetic())
        .is_some_and(char::is_uppercase);
    case.natural()
        && ((case.capitalised >= 1 && case.lower >= 4)
            || (case.upper == 1 && first_upper && case.lower >= 8))
}

/// Lowercase letters beyond ASCII inside words: after a letter and before
/// a lowercase one (`ñ` in `señora`, `ö` and `ß` in `Größe`, `ü` in
/// `Müller`), or ending a word after a lowercase letter (Polish `proszę`,
/// Spanish `té`). A lie's line that mixes scripts has them at other edges
/// of words or beside capitals (`47ìF`, `anti-TNFá`, `ÈÜWord`, `ČŕWord`
/// for Arabic `بـWord`, `ÓÃC++` for Chinese `用C++`).
fn inner_letters(line: &str) -> usize {
    let chars: Vec<char> = line.chars().collect();
    let at = |i: Option<usize>| i.and_then(|i| chars.get(i).copied());
    let lower = |i: Option<usize>| at(i).is_some_and(|c| c.alphabetic() && c.is_lowercase());
    (0..chars.len())
        .filter(|&i| {
            let c = chars[i];
            !c.is_ascii()
                && c.alphabetic()
                && c.is_lowercase()
                && at(i.checked_sub(1)).is_some_and(char::is_alphabetic)
                && (lower(Some(i + 1))
                    || (lower(i.checked_sub(1))
                        && !at(Some(i + 1)).is_some_and(char::is_alphabetic)))
        })
        .count()
}

/// A character no Latin charset reads: beyond Latin letters, the Latin-1
/// signs (U+00A0..U+00BF) and general punctuation and currency signs
/// (U+2010..U+2027, U+2030..U+205E, U+20A0..U+20CF) — another script's
/// letter or mark, a direction mark (windows-1256 reads Turkish `ı` as
/// U+200E), or a C1 control.
fn has_foreign_char(line: &str) -> bool {
    line.chars().any(|c| {
        !c.is_ascii()
            && script(c) != Script::Latin
            && !matches!(
                c,
                '\u{A0}'..='\u{BF}'
                    | '\u{2010}'..='\u{2027}'
                    | '\u{2030}'..='\u{205E}'
                    | '\u{20A0}'..='\u{20CF}'
                    | '\u{FFFD}'
            )
    })
}

/// A text a whole-text rule is about to read as `other`: when some of its
/// lines with 8-bit octets are the label's own (`own(label's reading of the
/// line, its errors, other's reading)`: the text of a reply or a letter,
/// read without error, or under UTF-8, `utf8`, with the damage `own`
/// allows), it is a reply over a quote, or a letter over a footer, in two
/// charsets. Those lines keep the label and the rest are read as `other`
/// (`mixed-charset`, "read as such", verdict `suspicious`). True when it
/// wrote the text; false when no line is the label's own, or every one
/// is, or a reading is not clean (the rule then reads the whole text as
/// it did).
///
/// A hunt on replies and footers in two charsets (not in the repository)
/// found the sender's own lines rewritten by the whole-text rules: 423 of
/// 1,018 Latin letters over a Cyrillic quote (`señora García` as `seсora
/// Garcнa`), 111 of 1,509 Cyrillic replies over a quote in the other
/// Cyrillic charset.
fn keep_own_lines(
    bytes: &[u8],
    cs: &'static Charset,
    other: &'static Charset,
    d: &mut Decoded<'_>,
    own: impl Fn(&str, usize, &str) -> bool,
    utf8: Option<&DecodeOptions>,
    min_inner: usize,
) -> bool {
    let mut foreign: Vec<Range<usize>> = Vec::new();
    let (mut owned, mut inner, mut foreign_lines) = (0, 0, 0);
    // Under UTF-8, its typography on the own lines (`’ “ ” – — … €`, three
    // octets each) weighs as their letters do.
    let mut marks = 0;
    // Runs of the other charset's lines (8-bit lines counted).
    let (mut foreign_blocks, mut last_own) = (0usize, None);
    let mut at = 0;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        let r = at..at + line.len();
        at = r.end;
        if crate::codec::is_ascii(line) {
            continue;
        }
        let (mine, report, _) = decode_with(line, cs);
        let (theirs, _, _) = decode_with(line, other);
        // Symbols inside its words are mojibake, not the label's text
        // (`EPS ¼v¹³` is Big5 `EPS 影像`); U+FFFD at damage is none.
        let symbols = if report.is_clean() {
            symbols_in_words(&mine)
        } else {
            symbols_in_words(&mine.replace('\u{FFFD}', ""))
        };
        let is_own = (utf8.is_some() || report.is_clean())
            && symbols == 0
            && own(&mine, report.replacements, &theirs);
        if !is_own && last_own != Some(false) {
            foreign_blocks += 1;
        }
        last_own = Some(is_own);
        if is_own {
            owned += 1;
            inner += inner_letters(&mine);
            if utf8.is_some() {
                marks += utf8_marks(&mine, is_latin(other) || mac_latin(other));
            }
        } else {
            foreign_lines += 1;
            match foreign.last_mut() {
                // Lines in a row are one range.
                Some(last) if last.end == r.start => last.end = r.end,
                _ => foreign.push(r),
            }
        }
    }
    // The other charset's lines in one block (8-bit lines counted): a
    // quote between a reply and its signature, a footer below a letter. A
    // line that looks like the label's here and there in a text of the
    // other charset (a program's messages, `%liм` read as ISO-8859-2
    // `%liě`) splits it: the whole text is the other's.
    // And their letters inside words: two or more under a Latin label (a
    // lie's one mixed line, `Micrîsoft` for Greek `Microsoft`, is no
    // letter of its own).
    if owned == 0 || foreign.is_empty() || foreign_blocks != 1 || inner + marks < min_inner {
        return false;
    }
    // The candidate was asked about the whole text, the label's lines too
    // (a UTF-8 reply's octets are windows-1251 letters, and a KOI8-R quote
    // below it was read as windows-1251): asked again about the others.
    let other = match utf8 {
        Some(opts) => {
            let theirs: Vec<u8> = foreign
                .iter()
                .flat_map(|f| bytes[f.clone()].iter().copied())
                .collect();
            candidate(&theirs, cs, opts).map_or(other, |(det, _)| det.charset)
        }
        None => other,
    };
    // Every other line reads cleanly; the label's lines may keep the
    // damage their rule allowed (U+FFFD, `invalid`).
    let (t, r) = repair_mixed(bytes, cs, other, &foreign);
    if r.errors
        .iter()
        .any(|&(_, at, _)| foreign.iter().any(|f| f.contains(&at)))
    {
        return false;
    }
    d.findings.push(mixed_lines(
        bytes,
        &foreign,
        format!(
            "{foreign_lines} line(s) in {}, read as such; {owned} line(s) of {}'s own text kept",
            other.name, cs.name
        ),
    ));
    add_report(d, &r);
    d.text = Cow::Owned(t);
    d.used = Some(cs);
    true
}

/// UTF-8's typography marks of three octets in `line` (`’ “ ” – — … €`):
/// a single-byte charset reads each as `â€` and a sign (`â€”`), which no
/// Latin text writes; and, when `latin` (the other charset is a Latin
/// one, which reads them as `Â` and a sign: `Â¡gracias`), those of two
/// (`¡ ¿ « » £ © ® ° ·`, no-break space).
fn utf8_marks(line: &str, latin: bool) -> usize {
    line.chars()
        .filter(|&c| typography(c) && (latin || c >= '\u{800}'))
        .count()
}

/// Decodes the foreign lines with `other`, the rest with the label.
fn repair_mixed(
    bytes: &[u8],
    cs: &'static Charset,
    other: &'static Charset,
    foreign: &[Range<usize>],
) -> (String, DecodeReport) {
    let mut out = String::with_capacity(bytes.len() + bytes.len() / 4);
    let mut report = DecodeReport::default();
    let mut at = 0;
    let mut push = |r: Range<usize>, c: &'static Charset, out: &mut String| {
        if r.is_empty() {
            return;
        }
        let (t, rep, _) = decode_with(&bytes[r.clone()], c);
        out.push_str(&t);
        report.replacements += rep.replacements;
        for e in rep.errors {
            report.errors.push((e.0, r.start + e.1, e.2));
        }
    };
    for r in foreign {
        push(at..r.start, cs, &mut out);
        push(r.clone(), other, &mut out);
        at = r.end;
    }
    push(at..bytes.len(), cs, &mut out);
    (out, report)
}

/// Replaces the label's reading by a candidate's (`det`, its text `t`),
/// with the finding that says why: verdict `mislabeled`.
fn read_as<'a>(
    d: &mut Decoded<'a>,
    out: &mut Outcome,
    det: Detected,
    t: Cow<'a, str>,
    why: Finding,
) {
    d.findings.push(why);
    d.text = t;
    d.used = Some(det.charset);
    d.detected = Some(det);
    out.mislabeled = true;
}

/// The text read in `charset` (its reading `t`) for a lie the label's own
/// reading shows: [`read_as`] with the finding `mislabeled` at the first
/// octet beyond ASCII, noted.
fn read_in<'a>(
    d: &mut Decoded<'a>,
    out: &mut Outcome,
    bytes: &[u8],
    (charset, t): (&'static Charset, Cow<'a, str>),
    note: String,
) {
    let why = Finding::new(FindingKind::Mislabeled, first_nonascii(bytes), 1).with_note(note);
    let det = Detected {
        charset,
        confidence: 0.9,
    };
    read_as(d, out, det, t, why);
}

/// The finding of ISO-2022-JP escapes in 7-bit text under `cs`.
/// Reads 7-bit `bytes` under the label `cs` as ISO-2022-JP (or -JP-2)
/// when its escapes are there ([`iso2022jp_in_ascii`]), `mislabeled`;
/// whether it did.
fn read_iso2022jp<'a>(
    bytes: &'a [u8],
    cs: &'static Charset,
    opts: &DecodeOptions,
    d: &mut Decoded<'a>,
    out: &mut Outcome,
) -> bool {
    let Some((at, t, jp)) = iso2022jp_in_ascii(bytes, opts) else {
        return false;
    };
    let det = Detected {
        charset: jp,
        confidence: 0.9,
    };
    read_as(d, out, det, t, escapes_are(at, cs, jp));
    true
}

pub(super) fn escapes_are(at: usize, cs: &'static Charset, jp: &'static Charset) -> Finding {
    Finding::new(FindingKind::Mislabeled, at, 1).with_note(format!(
        "labelled {}, the escape sequences are {}",
        cs.name, jp.name
    ))
}

/// Replaces the label's reading by `to`'s ("labelled X, the octets are Y").
fn mislabel<'a>(
    d: &mut Decoded<'a>,
    out: &mut Outcome,
    bytes: &[u8],
    label_cs: &'static Charset,
    to: &'static Charset,
    text: Cow<'a, str>,
    confidence: f32,
) {
    let why = Finding::new(FindingKind::Mislabeled, first_nonascii(bytes), 1).with_note(format!(
        "labelled {}, the octets are {}",
        label_cs.name, to.name
    ));
    let det = Detected {
        charset: to,
        confidence,
    };
    read_as(d, out, det, text, why);
}

fn first_nonascii(bytes: &[u8]) -> usize {
    find_nonascii(bytes).unwrap_or(0)
}

/// Decodes under a UTF-16 or UTF-32 label. Bodies are binary when they
/// start with a magic number or their reading is not text
/// ([`wide_binary`]). Octets without a single NUL cannot be UTF-16/32 text
/// of the kind mail holds: its every character below U+0100 (line end,
/// space, digit, ASCII punctuation) has a NUL octet. With an LF octet
/// among them (a line end, which the label reads as none), the label
/// explains nothing:
/// valid UTF-8 (ASCII included) is read as such, else a candidate that
/// decodes every octet plausibly (four or more 8-bit octets), else the
/// label's reading stays. A byte order mark keeps the label.
pub(super) fn wide<'a>(
    bytes: &'a [u8],
    cs: &'static Charset,
    opts: &DecodeOptions,
    d: &mut Decoded<'a>,
    out: &mut Outcome,
) {
    if opts.body
        && let Some(what) = magic(bytes)
    {
        keep_binary(bytes, what, d);
        return;
    }
    let bom = bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF");
    // NULs after the text are a mailer's padding, not UTF-16's (an ASCII
    // text padded so was read as CJK, verdict `ok`): the octet rules look
    // at what comes before them.
    let unpadded = bytes
        .iter()
        .rposition(|&b| b != 0)
        .map_or(&bytes[..0], |i| &bytes[..=i]);
    if opts.detect
        && !bom
        && memchr::memchr(0, unpadded).is_none()
        // A line end, not any ASCII white space: a UTF-16 text of CJK
        // characters alone has no NUL, and its characters' octets include
        // 0x20 and 0x09 (张 U+5F20, 三 U+4E09, " U+201C); a header or a
        // one-line text has no line end to tell it by.
        && (memchr::memchr(b'\n', bytes).is_some()
            // UNICODE-1-1 and ISO-10646-J-1 (UCS-2, RFC 1641 and 1815):
            // old labels mailers also put over ASCII and UTF-8
            // (`=?UNICODE-1-1?Q?hello_world?=`); octets without a NUL that
            // are valid UTF-8 are no UCS-2 text of theirs, line end or not.
            || (matches!(cs.name(), "UNICODE-1-1" | "ISO-10646-J-1")
                && simdutf8::basic::from_utf8(unpadded).is_ok()))
    {
        // Octets of an ASCII-compatible text: the octet rules for binary.
        if opts.body
            && let Some(why) = binary(bytes)
        {
            keep_binary(bytes, why, d);
            return;
        }
        if let Ok(s) = simdutf8::basic::from_utf8(bytes) {
            // ISO-2022-JP escapes in the 7-bit octets: ISO-2022-JP, as
            // under any label that reads them as controls. Read as
            // US-ASCII, the part was relabelled UTF-8 with its escapes,
            // and a second pass read those as ISO-2022-JP.
            if s.is_ascii() && read_iso2022jp(bytes, cs, opts, d, out) {
                return;
            }
            let to = if s.is_ascii() {
                Charset::US_ASCII
            } else {
                Charset::UTF_8
            };
            mislabel(d, out, bytes, cs, to, Cow::Borrowed(s), 0.99);
            return;
        }
        let nonascii = bytes.iter().filter(|b| !b.is_ascii()).count();
        if nonascii >= MIN_EVIDENCE
            && unpadded.len() == bytes.len()
            && let Some((det, t)) = candidate(bytes, cs, opts)
        {
            mislabel(d, out, bytes, cs, det.charset, t, det.confidence);
            return;
        }
    }
    let (text, report, used) = decode_with(bytes, cs);
    // The other byte order of a UTF-16BE or -LE label: where a byte order
    // mark names it, or where the label's reading fails or is not text and
    // the other's is clean text. UTF-16BE without a BOM under `utf-16le`
    // came out CJK with U+FFFD; `FF FE` under `utf-16be` was kept as
    // noncharacters, though the mark settles it.
    if opts.detect
        && let Some(other) = other_byte_order(cs)
    {
        let marked = match other.encoding() {
            Some(e) if e == encoding_rs::UTF_16LE => bytes.starts_with(b"\xFF\xFE"),
            _ => bytes.starts_with(b"\xFE\xFF"),
        };
        if marked || report.replacements > 0 || wide_binary(&text, report.replacements).is_some() {
            let (t, r, _) = decode_with(bytes, other);
            // Text in the wrong byte order reads its ASCII and Latin-1
            // characters as U+xx00: the right order has most of them.
            let low = |s: &str| s.chars().filter(|&c| u32::from(c) < 0x100).count();
            if r.is_clean()
                && wide_binary(&t, 0).is_none()
                && (marked || (wide_text(&t) && low(&t) >= (2 * low(&text)).max(4)))
            {
                let t = match t {
                    Cow::Owned(s) if marked => {
                        Cow::Owned(s.trim_start_matches('\u{FEFF}').to_owned())
                    }
                    t => t,
                };
                mislabel(d, out, bytes, cs, other, t, 0.9);
                return;
            }
        }
    }
    if opts.body
        && let Some(why) = wide_binary(&text, report.replacements)
    {
        keep_binary(bytes, why, d);
        return;
    }
    add_report(d, &report);
    d.text = text;
    d.used = Some(used);
}

/// UTF-16LE for a UTF-16BE label and the reverse; `None` for the others
/// (`utf-16` itself: its reading chooses a byte order already).
fn other_byte_order(cs: &'static Charset) -> Option<&'static Charset> {
    match cs.encoding() {
        Some(e) if e == encoding_rs::UTF_16BE => Some(Charset::UTF_16LE),
        Some(e) if e == encoding_rs::UTF_16LE => Some(Charset::UTF_16BE),
        _ => None,
    }
}

/// Marks a body as binary: kept byte for byte.
/// Whether `bytes` may be a blob rather than text: at most [`SHORT_BLOB`]
/// octets, four or more of them 8-bit, and no space, tab or line end
/// (text of that length has them; random octets hold a control, which
/// [`binary`] sees, every few dozen).
fn short_blob(bytes: &[u8]) -> bool {
    bytes.len() <= SHORT_BLOB
        && !bytes.iter().any(u8::is_ascii_whitespace)
        && bytes.iter().filter(|&&b| b >= 0x80).count() >= MIN_EVIDENCE
}

/// Whether seven characters in ten of `text` are letters: what a word
/// without spaces is (`Größe`, `München`), and a reading of random octets
/// is not (`âAÇš]ð3´~¡Ùbî(`).
fn mostly_letters(text: &str) -> bool {
    let (mut all, mut letters) = (0usize, 0usize);
    for c in text.chars() {
        all += 1;
        letters += usize::from(c != '\u{FFFD}' && c.alphabetic());
    }
    letters * 10 >= all * 7
}

/// [`keep_binary`] for a [`short_blob`] no charset reads as letters.
fn keep_short_blob<'a>(bytes: &'a [u8], cs: &'static Charset, d: &mut Decoded<'a>) {
    keep_binary(
        bytes,
        &format!(
            "{} octets without a space that neither {} nor another charset reads as letters",
            bytes.len(),
            cs.name
        ),
        d,
    );
}

fn keep_binary<'a>(bytes: &'a [u8], why: &str, d: &mut Decoded<'a>) {
    d.findings.push(
        Finding::new(FindingKind::BinaryInText, 0, 1)
            .with_note(format!("{why}: kept byte for byte")),
    );
    d.binary = true;
    d.text = String::from_utf8_lossy(bytes);
    d.used = None;
}

/// ISO-2022-JP in 7-bit text a label reads as ASCII (`us-ascii`, none,
/// unknown, `unknown-8bit`): RFC 1468 text sent without its label, as
/// Japanese mail was before MIME. ASCII cannot explain its escape
/// sequences; the text is read as ISO-2022-JP when chardetng says so (it
/// does only for text without 8-bit octets) and the reading is clean,
/// four or more non-ASCII characters, plausible and in words. Returns the
/// offset of the first escape, the text and the charset.
pub(super) fn iso2022jp_in_ascii<'a>(
    bytes: &'a [u8],
    opts: &DecodeOptions,
) -> Option<(usize, Cow<'a, str>, &'static Charset)> {
    if !opts.detect {
        return None;
    }
    // Most texts have no ESC: one memchr, no searcher built, no second
    // pass over the text.
    let esc = memchr::memchr(0x1B, bytes)?;
    let at = esc + memchr::memmem::find(&bytes[esc..], b"\x1b$")?;
    if !bytes.is_ascii() {
        return None;
    }
    // chardetng's guess on text without 8-bit octets, without running its
    // 27 candidates: ISO-2022-JP exactly when the sample (the first 256
    // KiB) has an ESC and its ISO-2022-JP decoder reads the sample from two
    // octets before the first one without an error (chardetng 1.0
    // `EncodingDetector::feed` and `guess`). A clean reading of all of a
    // text no longer than the sample implies that: the octets before are
    // ASCII, which leave the decoder as it starts.
    let jp = encoding_rs::ISO_2022_JP;
    let sample = &bytes[..bytes.len().min(super::detect::SAMPLE)];
    if sample.len() < bytes.len()
        && (esc >= sample.len()
            || jp
                .decode_without_bom_handling_and_without_replacement(
                    &sample[esc.saturating_sub(2)..],
                )
                .is_none())
    {
        return None;
    }
    let (text, report, used) = decode_with(bytes, Charset::for_encoding(jp));
    let n = text.chars().filter(|c| !c.is_ascii()).count();
    // ISO-2022-JP itself, as chardetng reads it (not the -2 superset the
    // decoder falls back on for escapes ISO-2022-JP lacks).
    (report.is_clean()
        && used.encoding() == Some(jp)
        && n >= MIN_EVIDENCE
        && plausible(&text)
        && words(&text))
    .then_some((at, text, used))
}

/// Whether a reading has a line of the label's own: four or more
/// non-ASCII characters, none of them the marks another charset's octets
/// leave (C1 controls, private use, half-width katakana, U+FFFD), and
/// plausible text. A Shift_JIS reply over an EUC-JP quote reads as
/// half-width katakana in the quote, implausible as a whole, but its reply
/// lines are Japanese; a whole text in another charset has no such line
/// (EUC-JP or EUC-KR under Shift_JIS is half-width katakana on every
/// line). Taking the text for another charset then would turn the reply
/// into nonsense (a GBK guess did): it keeps its label, U+FFFD in the
/// quote.
fn own_plausible_line(text: &str) -> bool {
    text.lines().any(|line| {
        let (n, marks) = nonascii_marks(line, |c| foreign_mark(c) || c == '\u{FFFD}');
        n >= MIN_EVIDENCE && marks == 0 && plausible(line)
    })
}

/// Whether half-width katakana written as Japanese in `cs`'s reading of
/// `bytes` are `cs`'s own: beside a line of its own
/// (`own_line`, [`own_plausible_line`]), under EUC-JP (`8E xx`, which no
/// other charset writes by the line), or in a text EUC-JP does not read
/// as Japanese ([`euc_jp_explains`]).
fn kana_beside_own(cs: &'static Charset, bytes: &[u8], own_line: bool) -> bool {
    own_line || cs.encoding() == Some(encoding_rs::EUC_JP) || !euc_jp_explains(bytes)
}

/// Whether a clean Shift_JIS or EUC-JP reading `text` of `bytes`, not
/// plausible for its half-width katakana, is Japanese written so: every
/// such mark a kana written as Japanese ([`halfwidth_written`]), no kanji
/// of JIS level 2 beside them ([`sjis_level2_kanji`]), and the kana the
/// charset's own ([`kana_beside_own`]). What a label's reading passes
/// (above), asked of chardetng's guess for an unlabelled text
/// (`detect::latin_preference`), which took a Shift_JIS letter with a line
/// of `ｶﾌﾞｼｷｶﾞｲｼｬ` for windows-1252 (`Ž‘—¿‚ð“Y•t`).
///
/// Asked of a guess, which has no label's word behind it, the katakana
/// must be four or more and none of them against an ASCII letter: Latin
/// text has its capitals in 0xC0..0xDF (a French `Îles` from a `.jp`
/// sender is Shift_JIS `ﾎles`, one written kana).
pub(super) fn japanese_halfwidth(cs: &'static Charset, bytes: &[u8], text: &str) -> bool {
    let (mut kana, mut prev) = (0usize, ' ');
    for c in text.chars() {
        let half = ('\u{FF61}'..='\u{FF9F}').contains(&c);
        if (half && prev.is_ascii_alphabetic())
            || (c.is_ascii_alphabetic() && ('\u{FF61}'..='\u{FF9F}').contains(&prev))
        {
            return false;
        }
        kana += usize::from(half);
        prev = c;
    }
    kana >= MIN_EVIDENCE
        && halfwidth_written(cs, text)
        && !sjis_level2_kanji(cs, bytes)
        && kana_beside_own(cs, bytes, own_plausible_line(text))
}

/// How many non-ASCII characters `text` has, and how many of them `mark`.
fn nonascii_marks(text: &str, mark: impl Fn(char) -> bool) -> (usize, usize) {
    text.chars()
        .filter(|c| !c.is_ascii())
        .fold((0, 0), |(n, m), c| (n + 1, m + usize::from(mark(c))))
}

/// The lines of `bytes` that `cs` reads mostly (half or more, two or
/// more) as the marks of another charset's octets: C1 controls, private
/// use, half-width katakana.
fn marked_lines(bytes: &[u8], cs: &'static Charset) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |e| at + e + 1);
        let line = &bytes[at..end];
        if !line.is_ascii() {
            let (text, _, _) = decode_with(line, cs);
            let (n, marks) = nonascii_marks(&text, foreign_mark);
            if marks >= 2 && marks * 2 >= n {
                out.push(at..end);
            }
        }
        at = end;
    }
    out
}

/// Whether a Japanese label's reading holds half-width katakana and the
/// marks of another charset's octets in it ([`foreign_mark`]) are all
/// half-width katakana written as Japanese: a voiced mark `ﾞ` only after
/// `ｳ ｶ..ﾄ ﾊ..ﾎ`, `ﾟ` only after `ﾊ..ﾎ`, a small kana or `ｰ` only after a
/// kana, a `｣` only after a `｢` (GB2312's `非常感谢` is `ｷﾇｳ｣ｸﾐﾐｻ` in
/// Shift_JIS), and fewer than one in four of them `､` or `･`. EUC-JP read as
/// Shift_JIS turns every hiragana into `､` and a kana, every katakana into
/// `･` and a kana (`､ｪﾋｻ､ｷ､､` for お久しい), and puts voiced marks after
/// any kana (`､ﾞ` for ま); no C1 control or private use is real text.
fn halfwidth_written(cs: &'static Charset, text: &str) -> bool {
    if !japanese_label(cs) {
        return false;
    }
    let (mut kana, mut dots, mut open, mut prev) = (0usize, 0usize, 0usize, '\0');
    for c in text.chars() {
        if !c.is_ascii() && foreign_mark(c) {
            let written = match c {
                'ﾞ' => matches!(prev, 'ｳ' | 'ｶ'..='ﾄ' | 'ﾊ'..='ﾎ'),
                'ﾟ' => matches!(prev, 'ﾊ'..='ﾎ'),
                'ｧ'..='ｰ' => matches!(prev, 'ｦ'..='ﾟ'),
                '､' | '･' => {
                    dots += 1;
                    true
                }
                // A closing corner bracket closes an opening one.
                '｢' => {
                    open += 1;
                    true
                }
                '｣' if open == 0 => false,
                '｣' => {
                    open -= 1;
                    true
                }
                // C1 controls and private use are no one's text.
                _ => ('\u{FF61}'..='\u{FF9F}').contains(&c),
            };
            if !written {
                return false;
            }
            kana += 1;
        }
        prev = c;
    }
    kana > 0 && dots * 4 < kana
}

/// Whether EUC-JP reads `bytes` without error as the characters Japanese
/// text is written in: nine in ten or more of its two-octet characters
/// kana (rows 0xA4, 0xA5), the first row of symbols (`、。ー「」`),
/// full-width digits and letters (0xA3) or first-level kanji (rows
/// 0xB0..0xCF). Half-width katakana octets (0xA1..0xDF) pair up into
/// EUC-JP's second-level kanji (leads `ﾐ..ﾝ ﾞ ﾟ`, 0xD0..0xDF), its Greek,
/// Cyrillic and box drawing (`ｦ ｧ ｨ`) as often as not; a Japanese text
/// has few of those.
fn euc_jp_explains(bytes: &[u8]) -> bool {
    if encoding_rs::EUC_JP
        .decode_without_bom_handling_and_without_replacement(bytes)
        .is_none()
    {
        return false;
    }
    let (mut chars, mut common) = (0usize, 0usize);
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        i += match b {
            0x00..=0x7F => 1,
            // JIS X 0212, three octets; half-width katakana (0x8E) and
            // JIS X 0208, two.
            0x8F => {
                chars += 1;
                3
            }
            _ => {
                chars += 1;
                common += usize::from(matches!(b, 0xA1 | 0xA3 | 0xA4 | 0xA5 | 0xB0..=0xCF));
                2
            }
        };
    }
    common * 10 >= chars * 9
}

/// Whether Shift_JIS octets under a Shift_JIS label hold a kanji of JIS
/// level 2 (rows 48..84: leads 0x99..0x9F and 0xE0..0xEA, 0x98 with a
/// trail from 0x9F) or beyond (the NEC and IBM extensions, user-defined
/// rows: leads up to 0xFC). Half-width katakana beside such kanji are another
/// charset's octets: GB2312 read as Shift_JIS is `ｷﾇｳ｣ｸﾐﾐｻﾄ嶹ﾄ`, its
/// pairs the rare kanji of level 2; a Japanese text in half-width
/// katakana writes its kanji from level 1.
fn sjis_level2_kanji(cs: &'static Charset, bytes: &[u8]) -> bool {
    if cs.encoding() != Some(encoding_rs::SHIFT_JIS) {
        return false;
    }
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            0x81..=0x9F | 0xE0..=0xFC => {
                let trail = bytes.get(i + 1).copied().unwrap_or(0);
                if matches!(b, 0x99..=0x9F | 0xE0..=0xFC) || (b == 0x98 && trail >= 0x9F) {
                    return true;
                }
                i += 2;
            }
            _ => i += 1,
        }
    }
    false
}

/// Shift_JIS or EUC-JP, the labels that write half-width katakana.
fn japanese_label(cs: &'static Charset) -> bool {
    cs.encoding()
        .is_some_and(|e| e == encoding_rs::SHIFT_JIS || e == encoding_rs::EUC_JP)
}

/// A Shift_JIS reading that is mostly half-width katakana (U+FF61..U+FF9F):
/// at least half of its non-ASCII characters, four or more. Mail was
/// written in full-width kana (ISO-2022-JP has no half-width ones); octets
/// of EUC-JP, EUC-KR or GBK read as Shift_JIS turn into runs of them
/// (`ﾅﾄﾃ賚ﾍ｡｢` for 田中様、).
fn halfwidth_reading(cs: &'static Charset, text: &str) -> bool {
    if cs.encoding() != Some(encoding_rs::SHIFT_JIS) {
        return false;
    }
    let (mut half, mut nonascii) = (0usize, 0usize);
    for c in text.chars().filter(|c| !c.is_ascii()) {
        nonascii += 1;
        half += usize::from(('\u{FF61}'..='\u{FF9F}').contains(&c));
    }
    nonascii >= MIN_EVIDENCE && half * 2 >= nonascii
}

/// Two-octet characters a Chinese label's octets must hold before their
/// shape is evidence of another CJK charset ([`chinese_rows`]): fewer
/// keep the label.
const CHINESE_ROWS: usize = 24;

/// What the octets under a Chinese label say of another CJK charset: the
/// shapes found ([`chinese_rows`]), each with its counts.
#[derive(Default, Clone, Copy)]
struct Rows {
    /// EUC-KR under a GB label: characters from row 0xB0 up (with a trail
    /// from 0xA1), nearly all in rows 0xB0..0xC8.
    hangul: bool,
    /// Big5 under a GB label: a fifth or more of the characters have a
    /// trail octet 0x40..0x7E.
    big5: bool,
    /// GB2312 under a Big5 label: fewer than one character in twenty with
    /// a trail below 0xA1, an eighth or more with a lead 0xC9..0xF7.
    gb: bool,
    /// GB2312 under an EUC-KR label: a quarter or more of the characters
    /// from row 0xB0 up lie beyond the Hangul rows (0xB0..0xC8).
    gb_kr: bool,
    /// Two-octet characters seen.
    chars: usize,
    /// Of those, the ones with a low trail: 0x40..0x7E under a GB label,
    /// below 0xA1 under a Big5 one.
    low_trails: usize,
    /// Of those, the ones with a lead 0xC9..0xF7 and a trail from 0xA1.
    level2: usize,
}

impl Rows {
    fn any(&self) -> bool {
        self.hangul || self.big5 || self.gb || self.gb_kr
    }

    /// Whether chardetng's candidate is the charset a shape found says.
    fn fits(&self, cs: &'static Charset) -> bool {
        (self.hangul && cs.encoding() == Some(encoding_rs::EUC_KR))
            || (self.big5 && cs.encoding() == Some(encoding_rs::BIG5))
            || ((self.gb || self.gb_kr) && matches!(cs.decoder_name(), Some("GBK" | "gb18030")))
    }

    /// The finding's note, for the shape that `cs` (which [`Rows::fits`])
    /// is.
    fn why(&self, cs: &'static Charset) -> String {
        if cs.encoding() == Some(encoding_rs::EUC_KR) {
            "the text is implausible".to_string()
        } else if cs.encoding() == Some(encoding_rs::BIG5) {
            format!(
                "{} of its {} characters have a trail octet 0x40..0x7E (GBK's extensions, Big5's \
                 characters)",
                self.low_trails, self.chars
            )
        } else if self.gb_kr {
            format!(
                "{} of its {} characters lie beyond the Hangul rows (GB2312's Hanzi)",
                self.level2, self.chars
            )
        } else {
            format!(
                "none or nearly none of its {} characters has a trail octet below 0xA1 ({}), {} \
                 are in Big5's rare level 2 (GB2312's common Hanzi)",
                self.chars, self.low_trails, self.level2
            )
        }
    }
}

/// The two-octet characters of `bytes` as GBK or Big5 would pair them,
/// with their offsets: each non-ASCII octet with the octet after it. A
/// four-octet GB18030 sequence has a digit second; it moves on by two and
/// its third octet is then seen as a lead, with a digit after it.
fn octet_pairs(bytes: &[u8]) -> impl Iterator<Item = (usize, u8, u8)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        let at = i + find_nonascii(bytes.get(i..)?)?;
        let pair = (at, *bytes.get(at)?, *bytes.get(at + 1)?);
        i = at + 2;
        Some(pair)
    })
}

/// Characters of one line: two-octet characters, those with a low trail
/// (0x40..0x7E under a GB label, below 0xA1 under a Big5 one), those with
/// a lead 0xC9..0xF7 and a trail from 0xA1.
#[derive(Default, Clone, Copy)]
struct LineRows {
    chars: usize,
    low: usize,
    level2: usize,
}

impl LineRows {
    /// Two characters or more shaped as the label's own charset, not as
    /// the other one: a GB2312 line (no low trail, a fifth or more in rows
    /// 0xC9..0xF7, `此致敬礼！`) under a GB label, a Big5 line (a quarter
    /// or more with a low trail, `敬祝　商祺`) under a Big5 one. Big5
    /// text keeps to its level 1 (rows 0xA4..0xC6) and has a low trail in
    /// two characters of five; GB2312 text has no low trail.
    fn own(&self, gb: bool) -> bool {
        self.chars >= 2
            && if gb {
                self.low == 0 && self.level2 * 5 >= self.chars
            } else {
                self.low * 4 >= self.chars
            }
    }
}

/// The shapes of another CJK charset in octets under a Chinese label
/// (GB2312, GBK, GB18030, Big5, Big5-HKSCS), with 24 or more two-octet
/// characters ([`CHINESE_ROWS`]):
///
/// - EUC-KR under a GB label: the characters from row 0xB0 up (the Hanzi
///   of GB2312) are 24 or more and, for nineteen in twenty or more, in
///   rows 0xB0..0xC8, where EUC-KR (KS X 1001) has its Hangul syllables.
///   GB2312 orders its common Hanzi by pinyin over rows 0xB0..0xD7, and
///   Chinese text uses about half beyond 0xC8 (`是` CA C7, `我` CE D2,
///   `中` D6 D0); Korean read as GBK decodes cleanly into Hanzi nonsense.
/// - Big5 under a GB label: a fifth or more of the characters have a
///   trail octet 0x40..0x7E. Big5 has 63 of its 157 trails there (about
///   40% of a text's characters); in GBK they are extensions beyond
///   GB2312, which a GB text uses for a rare name or a traditional word.
/// - GB2312 under a Big5 label: fewer than one character in twenty with
///   a trail below 0xA1 (GB2312 has none; Big5 text has some 40%), and
///   an eighth or more with a lead 0xC9..0xF7 and a trail from 0xA1: the
///   second half of GB2312's common Hanzi, Big5's rare level 2.
///
/// Not the last two when a line is the label's own ([`LineRows::own`]): a
/// reply in the label's charset over a quote in the other is a mixed
/// text, and reading all of it as the other would turn the reply into
/// nonsense.
fn chinese_rows(cs: &'static Charset, bytes: &[u8], text: &str) -> Rows {
    if cs.encoding() == Some(encoding_rs::EUC_KR) {
        return gb_under_kr(bytes, text);
    }
    let gb = matches!(cs.decoder_name(), Some("GBK" | "gb18030"));
    if !gb && cs.decoder_name() != Some("Big5") {
        return Rows::default();
    }
    let (mut hanzi, mut beyond, mut rows) = (0usize, 0usize, Rows::default());
    let (mut line, mut own, mut from) = (LineRows::default(), false, 0);
    for (at, lead, trail) in octet_pairs(bytes) {
        if memchr::memchr(b'\n', bytes.get(from..at).unwrap_or_default()).is_some() {
            own |= line.own(gb);
            line = LineRows::default();
        }
        from = at + 2;
        let (low, level2) = (
            if gb {
                (0x40..=0x7E).contains(&trail)
            } else {
                trail < 0xA1
            },
            (0xC9..=0xF7).contains(&lead) && trail >= 0xA1,
        );
        if (0xB0..=0xFE).contains(&lead) && (0xA1..=0xFE).contains(&trail) {
            hanzi += 1;
            beyond += usize::from(lead > 0xC8);
        }
        line.chars += 1;
        line.low += usize::from(low);
        line.level2 += usize::from(level2);
        rows.chars += 1;
        rows.low_trails += usize::from(low);
        rows.level2 += usize::from(level2);
    }
    own |= line.own(gb);
    if gb {
        rows.hangul = hanzi >= CHINESE_ROWS && beyond * 20 < hanzi;
        rows.big5 = !own && rows.chars >= CHINESE_ROWS && rows.low_trails * 5 >= rows.chars;
    } else {
        rows.gb = !own
            && rows.chars >= CHINESE_ROWS
            && rows.low_trails * 20 < rows.chars
            && rows.level2 * 8 >= rows.chars;
    }
    rows
}

/// GB2312 under an EUC-KR label ([`chinese_rows`]' mirror of Korean under
/// a GB one): of the two-octet characters from row 0xB0 up, 24 or more, a
/// quarter or more beyond 0xC8. KS X 1001 has its Hangul syllables in rows
/// 0xB0..0xC8, nothing in 0xC9 and 0xFE, Hanja from 0xCA; Korean mail is
/// Hangul with a Hanja word now and then, GB2312 text has half its Hanzi
/// beyond 0xC8 (`是` CA C7, `我` CE D2), read as Hanja and Hangul mixed
/// (`퀭봤，맒숭角乖`), whose Hangul is no Korean ([`korean_syllables`]:
/// Korean with many Hanja, from a `.cn` sender, was read as GBK).
/// chardetng must name GBK as well.
fn gb_under_kr(bytes: &[u8], text: &str) -> Rows {
    let (mut hanzi, mut beyond) = (0usize, 0usize);
    for (_, lead, trail) in octet_pairs(bytes) {
        if (0xB0..=0xFE).contains(&lead) && (0xA1..=0xFE).contains(&trail) {
            hanzi += 1;
            beyond += usize::from(lead > 0xC8);
        }
    }
    Rows {
        gb_kr: hanzi >= CHINESE_ROWS && beyond * 4 >= hanzi && !korean_syllables(text),
        chars: hanzi,
        level2: beyond,
        ..Rows::default()
    }
}

/// Whether the Hangul of `text` (the EUC-KR reading) is Korean: a fifth or more
/// of its syllables among the commonest ones (particles and endings, `이
/// 다 는 의 에 하 고`: half of a Korean text's syllables). GB2312's Hanzi
/// read as EUC-KR fall on the 2,350 syllables of rows 0xB0..0xC8 nearly
/// evenly (`퀭봤 맒숭`), a few in a hundred of them common; Korean with
/// Hanja words (`第2條(定義) 이 法에서`) keeps its particles.
fn korean_syllables(text: &str) -> bool {
    let (mut hangul, mut common) = (0usize, 0usize);
    for c in text
        .chars()
        .filter(|c| ('\u{AC00}'..='\u{D7A3}').contains(c))
    {
        hangul += 1;
        common += usize::from(COMMON_HANGUL.contains(c));
    }
    common * 5 >= hangul
}

/// The commonest Hangul syllables (particles and endings, `이 다 는 의 에
/// 하 고`: half of a Korean text's syllables).
const COMMON_HANGUL: &str = "이다는의에하고가서을를한기지로사니습리자수대시도어인있일것게정해전보라나주아제부상오요면으들적성우세과원국와며동중만합소장내비여화문무학경계위구회조개되신마연공실관방물치현영안";

/// Whether `bytes` is Korean in windows-949 (encoding_rs's EUC-KR) that
/// writes a syllable beyond KS X 1001's 2,350 (`됬`, `똠`, `햏`: a lead
/// below 0xA1 or a trail below 0xA1): EUC-KR reads it without error,
/// every character beyond ASCII a Hangul syllable, and of the syllables of
/// KS X 1001 two or more, half or more, among the commonest
/// ([`COMMON_HANGUL`]). chardetng scores such a syllable a fifth of a
/// common one, and the syllable after it too, so a short Korean text with
/// one (`됬습니다`, `횽아 새 문자`) was guessed Big5 and read as Hanzi
/// (`澈懇棲棲`). Big5 read as windows-949 is Hangul too, nearly all of it
/// uncommon (`烏爾都` is `칀보끽`): of 184,000 Chinese and Japanese
/// strings and their first two to ten characters (the gettext catalogs,
/// Big5, GBK, Shift_JIS, EUC-JP) none passes.
pub(super) fn korean_beyond_ks(bytes: &[u8]) -> bool {
    hangul_counts(bytes)
        .is_some_and(|(beyond, ks, common, _)| beyond > 0 && common >= 2 && common * 2 >= ks)
}

/// When windows-949 reads `bytes` without error, every character beyond
/// ASCII a Hangul syllable: how many are beyond KS X 1001, how many in it,
/// how many of those among the commonest ([`COMMON_HANGUL`]), and whether
/// two syllables stand side by side somewhere.
fn hangul_counts(bytes: &[u8]) -> Option<(usize, usize, usize, bool)> {
    let text = encoding_rs::EUC_KR.decode_without_bom_handling_and_without_replacement(bytes)?;
    let (mut beyond, mut ks, mut common) = (0usize, 0usize, 0usize);
    let (mut side, mut last_hangul) = (false, false);
    let mut at = 0usize;
    for c in text.chars() {
        if c.is_ascii() {
            at += 1;
            last_hangul = false;
            continue;
        }
        side |= last_hangul;
        last_hangul = true;
        // Every character beyond ASCII is two octets in windows-949.
        let (Some(&lead), Some(&trail)) = (bytes.get(at), bytes.get(at + 1)) else {
            return None;
        };
        at += 2;
        if !('\u{AC00}'..='\u{D7A3}').contains(&c) {
            return None;
        }
        if lead < 0xA1 || trail < 0xA1 {
            beyond += 1;
        } else {
            ks += 1;
            common += usize::from(COMMON_HANGUL.contains(c));
        }
    }
    Some((beyond, ks, common, side))
}

/// Whether `bytes` is Japanese in Shift_JIS (windows-31j) that chardetng
/// may take for a single-byte charset ([`japanese_kana`]): Shift_JIS reads
/// it without error, every character beyond ASCII is Japanese (kana, CJK
/// ideographs and punctuation, full-width and half-width forms), a third
/// or more kana, two or more of them of two 8-bit octets, and two
/// characters stand side by side. chardetng guessed windows-1252 for a short sentence from
/// outside `.jp` (`加算量は無限大にはできません` as
/// `‰ÁŽZ—Ê‚Í–³ŒÀ‘å‚É‚Í‚Å‚«‚Ü‚¹‚ñ`): 55 of 2,960 one-sentence texts. A
/// hiragana is 0x82 then 0x9F..0xF1, a katakana 0x83 then 0x80..0x96,
/// which ISO and Windows charsets write as `‚` or `ƒ` (or C1 controls)
/// before a letter: of 38 million strings and their first 8, 12, 20 and
/// 40 octets (the gettext catalogs of 45 languages, as written and in
/// capitals, in their ISO and Windows charsets, the Mac OS and DOS ones,
/// and Chinese, Korean, EUC-JP and ISO-2022-JP) 102 pass, all capitals in
/// x-mac-cyrillic (`ГИТЕГА`).
pub(super) fn shift_jis_kana(bytes: &[u8]) -> bool {
    japanese_kana(encoding_rs::SHIFT_JIS, bytes)
}

/// Whether `enc` (Shift_JIS or EUC-JP) reads `bytes` without error as
/// Japanese, kana a third or more of the characters beyond ASCII, two or
/// more of those side by side somewhere ([`shift_jis_kana`]), and two or
/// more kana whose octets are all 8-bit. In Shift_JIS a katakana
/// 0x83 0x40..0x7E has an ASCII trail, which does not count there: katakana
/// 0x83 0x40..0x7E is `É` and an ASCII letter to Mac OS Roman and DOS code
/// pages (`RÉPERTOIRES`, `PRÉCÉDENT`: 13,519 of the French catalog strings
/// in capitals passed without that), and one pair alone between ASCII is
/// `ÇÃ` to Mac OS Roman (`INFORMAÇÃO` is `INFORMAのO`).
fn japanese_kana(enc: &'static encoding_rs::Encoding, bytes: &[u8]) -> bool {
    let Some(text) = enc.decode_without_bom_handling_and_without_replacement(bytes) else {
        return false;
    };
    let sjis = enc == encoding_rs::SHIFT_JIS;
    let (mut nonascii, mut kana, mut eight_bit_kana) = (0usize, 0usize, 0usize);
    let (mut run, mut longest, mut at) = (0usize, 0usize, 0usize);
    for c in text.chars() {
        if c.is_ascii() {
            at += 1;
            run = 0;
            continue;
        }
        if !matches!(c, '\u{3000}'..='\u{30FF}' | '\u{4E00}'..='\u{9FFF}' | '\u{FF01}'..='\u{FF9F}')
        {
            return false;
        }
        nonascii += 1;
        run += 1;
        longest = longest.max(run);
        let is_kana = ('\u{3041}'..='\u{30FA}').contains(&c);
        kana += usize::from(is_kana);
        if sjis {
            // One octet for a half-width form, two for the rest.
            let width = if ('\u{FF61}'..='\u{FF9F}').contains(&c) {
                1
            } else {
                2
            };
            let trail = bytes.get(at + 1).copied().unwrap_or(0);
            eight_bit_kana += usize::from(is_kana && width == 2 && trail >= 0x80);
            at += width;
        } else {
            eight_bit_kana += usize::from(is_kana);
        }
    }
    longest >= 2 && eight_bit_kana >= 2 && kana * 3 >= nonascii
}

/// Whether `bytes` holds two or more pairs of octets that are a kana in
/// Shift_JIS (0x82 0x9F..0xF1, 0x83 0x80..0x96) or EUC-JP (0xA4 or 0xA5,
/// then 0xA1..0xF6), or a Hangul syllable of KS X 1001 (0xB0..0xC8, then
/// 0xA1 or above), or two of the commonest ideographs of GB2312 or Big5
/// side by side, all four octets 8-bit ([`chinese_common`]): what
/// [`east_asian_lie`]'s tests need at the least.
fn east_asian_pairs(bytes: &[u8]) -> bool {
    let mut pairs = 0;
    let mut at = 0;
    while let Some(k) = super::evidence::find_nonascii(&bytes[at..]) {
        let i = at + k;
        let (Some(&b), Some(&n)) = (bytes.get(i), bytes.get(i + 1)) else {
            return false;
        };
        if common_hanzi_pair(bytes, i) {
            return true;
        }
        let pair = (b == 0x82 && (0x9F..=0xF1).contains(&n))
            || (b == 0x83 && (0x80..=0x96).contains(&n))
            || ((b == 0xA4 || b == 0xA5) && (0xA1..=0xF6).contains(&n))
            || ((0xB0..=0xC8).contains(&b) && n >= 0xA1);
        if pair {
            pairs += 1;
            if pairs >= 2 {
                return true;
            }
            // The ideographs may start at the octet stepped over.
            if common_hanzi_pair(bytes, i + 1) {
                return true;
            }
            at = i + 2;
        } else {
            at = i + 1;
        }
    }
    false
}

/// Whether the four octets at `i` are two of the commonest ideographs of
/// GB2312 or of Big5, all four octets 8-bit ([`chinese_common`]'s pair).
fn common_hanzi_pair(bytes: &[u8], i: usize) -> bool {
    let Some(&[a, b, c, d]) = bytes.get(i..i + 4) else {
        return false;
    };
    b >= 0x80
        && d >= 0x80
        && ((common_hanzi(a, b, false) && common_hanzi(c, d, false))
            || (common_hanzi(a, b, true) && common_hanzi(c, d, true)))
}

/// Whether `lead`, `trail` is one of the commonest ideographs of Big5
/// (`big5`) or GB2312 ([`BIG5_COMMON`], [`GB2312_COMMON`]), generated
/// from the Chinese gettext catalogs by tools/gen_hanzi.py.
fn common_hanzi(lead: u8, trail: u8, big5: bool) -> bool {
    let (table, bit): (&[u64], usize) = if big5 {
        let col = match trail {
            0x40..=0x7E => trail - 0x40,
            0xA1..=0xFE => trail - 0xA1 + 63,
            _ => return false,
        };
        if !(0xA4..=0xF9).contains(&lead) {
            return false;
        }
        (
            &BIG5_COMMON,
            usize::from(lead - 0xA4) * 157 + usize::from(col),
        )
    } else {
        if !(0xB0..=0xF7).contains(&lead) || !(0xA1..=0xFE).contains(&trail) {
            return false;
        }
        (
            &GB2312_COMMON,
            usize::from(lead - 0xB0) * 94 + usize::from(trail - 0xA1),
        )
    };
    table
        .get(bit / 64)
        .is_some_and(|w| w >> (bit % 64) & 1 == 1)
}

/// Whether `bytes` is short Chinese in GB2312 (or Big5, `big5`) that a
/// Latin label reads as mojibake (`ÎÞ·¨´ò¿ªÎÄ¼þ` is `无法打开文件`,
/// `µLªk¶}±ÒÀÉ®×` is `無法開啟檔案`), and if so how many of its
/// ideographs are among the commonest and how many there are. Every 8-bit
/// octet begins a character of the charset (GB2312: lead 0xA1..0xF7, trail
/// 0xA1..0xFE; Big5: lead 0xA1..0xF9, trail 0x40..0x7E or 0xA1..0xFE); two
/// of the commonest ideographs of the kind ([`common_hanzi`]: the 1,000
/// commonest of the gettext catalogs) stand side by side, all four octets
/// 8-bit; and the commonest are two or more, and half or more of the
/// ideographs. A Latin word has its accented letters among ASCII ones:
/// four 8-bit octets in a row that make two common ideographs are rare
/// (`SLÓÐIN` is GBK `SL有IN`, one ideograph). Of 29.6 million Latin
/// strings and their first 8, 12, 20 and 40 octets in the ISO and Windows
/// Latin charsets (the gettext catalogs of 106 languages, as written and
/// in capitals), none passes either test, nor of 28.3 million in the Mac
/// OS and DOS Latin code pages; of the held-out catalog strings, 98.5% of
/// the GB2312 ones pass, 84% of the Big5 ones (a Big5 trail 0x40..0x7E is
/// an ASCII octet, and such ideographs do not count as side by side).
fn chinese_common(bytes: &[u8], big5: bool) -> Option<(usize, usize)> {
    let (mut hanzi, mut common, mut side_by_side) = (0usize, 0usize, false);
    // Whether the character just before was a common ideograph of two
    // 8-bit octets.
    let mut after_common = false;
    let mut at = 0;
    while let Some(k) = super::evidence::find_nonascii(&bytes[at..]) {
        let i = at + k;
        let (&lead, &trail) = (bytes.get(i)?, bytes.get(i + 1)?);
        if k > 0 {
            after_common = false;
        }
        let (valid, ideograph) = if big5 {
            (
                (0xA1..=0xF9).contains(&lead) && matches!(trail, 0x40..=0x7E | 0xA1..=0xFE),
                lead >= 0xA4,
            )
        } else {
            // Not rows 0xA4 and 0xA5, GB2312's kana (EUC-JP's too).
            (
                (0xA1..=0xF7).contains(&lead)
                    && lead != 0xA4
                    && lead != 0xA5
                    && (0xA1..=0xFE).contains(&trail),
                lead >= 0xB0,
            )
        };
        if !valid {
            return None;
        }
        let is_common = ideograph && common_hanzi(lead, trail, big5);
        hanzi += usize::from(ideograph);
        common += usize::from(is_common);
        let eight_bit = is_common && trail >= 0x80;
        side_by_side |= after_common && eight_bit;
        after_common = eight_bit;
        at = i + 2;
    }
    (side_by_side && common >= 2 && common * 2 >= hanzi).then_some((common, hanzi))
}

/// The East Asian charset a Latin label's clean reading of a short text
/// is a lie over: Shift_JIS or EUC-JP read as Japanese with kana
/// ([`japanese_kana`]), or windows-949 read as Hangul syllables, half or
/// more of them (two or more) among the commonest, two side by side
/// somewhere ([`hangul_counts`]: Portuguese capitals `AÇÕES E OPÇÕES`
/// are `A합ES E OP합ES` to windows-949, each syllable alone between Latin
/// letters, where Korean words have two syllables or more), or GBK or
/// Big5 read as Chinese with two of the commonest ideographs side by side
/// ([`chinese_common`]; not when windows-949 reads it as Hangul syllables
/// with one or more of the commonest: Korean of names and terms, 861 of
/// the 1,143 Korean catalog strings that fail the Korean test and pass a
/// Chinese one). A sentence of CJK under `iso-8859-1` is words of non-ASCII characters
/// from end to end, but too short for that rule (`ÀÌ ÆÄÀÏÀ» ¿­ ¼ö ¾ø½À´Ï´Ù`,
/// 28 characters): one-sentence texts under `iso-8859-1` and
/// `windows-1252`, 2026-11-28, were read as such in half or more of the
/// cases. Of five million strings and their first 8, 12, 20 and 40 octets
/// in the ISO and Windows Latin charsets (the gettext catalogs), none
/// passes any test; text in other scripts may (Big5 and Thai as EUC-JP,
/// GBK as Korean, Korean and Japanese without kana as Chinese): under a
/// Latin label they were mojibake either way. Not
/// asked under a Mac OS label: Mac OS Roman's `É Ç` are 0x83 and 0x82,
/// Shift_JIS's kana leads.
fn east_asian_lie(bytes: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    // Asked of every clean Latin reading with 8-bit octets: the texts
    // without two pairs of octets any of the tests needs (a Shift_JIS or
    // EUC-JP kana, a Hangul syllable of KS X 1001; or two common
    // ideographs side by side) are let go after a walk of their 8-bit
    // octets, before three decodes.
    if !east_asian_pairs(bytes) {
        return None;
    }
    if japanese_kana(encoding_rs::SHIFT_JIS, bytes) {
        Some(encoding_rs::SHIFT_JIS)
    } else if japanese_kana(encoding_rs::EUC_JP, bytes) {
        Some(encoding_rs::EUC_JP)
    } else if let Some((_, ks, common, side)) = hangul_counts(bytes)
        && common >= 1
    {
        // Korean with too few common syllables to say so (names, terms)
        // is no Chinese either: the label stays.
        (side && common >= 2 && common * 2 >= ks).then_some(encoding_rs::EUC_KR)
    } else {
        // Both pass (a short text of 8-bit octets only, both kinds'
        // commonest): the one whose ideographs are more of them the
        // commonest; GBK when as many.
        match (chinese_common(bytes, false), chinese_common(bytes, true)) {
            (Some((g, gh)), Some((b, bh))) if b * gh > g * bh => Some(encoding_rs::BIG5),
            (Some(_), _) => Some(encoding_rs::GBK),
            (None, Some(_)) => Some(encoding_rs::BIG5),
            (None, None) => None,
        }
    }
}

/// chardetng's candidate for text under the Cyrillic label `cs`, when it is
/// another Cyrillic charset, weighed against the twin it does not name
/// ([`unnamed_twin`]). Not windows-1251 under x-mac-cyrillic: chardetng
/// says windows-1251 for any x-mac-cyrillic text, so under that label its
/// guess tells nothing (a list of CamelCase names, `МосГорТранс,
/// ВКонтакте, РосНефть`, was read as windows-1251).
fn cyrillic_candidate<'a>(
    bytes: &'a [u8],
    cs: &'static Charset,
    opts: &DecodeOptions,
) -> Option<(Detected, Cow<'a, str>)> {
    let (det, t) = candidate(bytes, cs, opts)?;
    if !cyrillic_label(det.charset)
        || (cs.decoder_name() == Some("x-mac-cyrillic")
            && det.charset.decoder_name() == Some("windows-1251"))
    {
        return None;
    }
    unnamed_twin(bytes, det, t)
}

/// chardetng's guess weighed against the charset that reads its text
/// the same but for a few octets, where chardetng does not tell the two
/// apart: x-mac-cyrillic, which it never names, against windows-1251;
/// ISO-8859-6 and windows-1256, which it tells apart in long texts only
/// ([`weigh_unnamed`]). The guess's reading or the other charset's, or
/// None when the two cannot be told apart (the label stays).
fn unnamed_twin<'a>(
    bytes: &'a [u8],
    det: Detected,
    t: Cow<'a, str>,
) -> Option<(Detected, Cow<'a, str>)> {
    let (det, t, told) = weigh_unnamed(bytes, det, t);
    told.then_some((det, t))
}

/// [`unnamed_twin`]'s choice, the guess's reading when the two cannot be
/// told apart (where the label's reading is no text either way).
fn unnamed_twin_or_guess<'a>(
    bytes: &'a [u8],
    det: Detected,
    t: Cow<'a, str>,
) -> (Detected, Cow<'a, str>) {
    let (det, t, _) = weigh_unnamed(bytes, det, t);
    (det, t)
}

/// The reading [`unnamed_twin`] takes, and whether the two were told
/// apart (when not: `det` and `t` as given).
///
/// x-mac-cyrillic against windows-1251: the two read the same but for
/// the capitals (0x80 to 0x9F: symbols, Serbian letters and a C1 control
/// in windows-1251, `‘пасибо`, `Џетрович`) and `я` (0xDF, `Я`:
/// `пЯтницы`); a windows-1251 text read as x-mac-cyrillic loses its
/// capitals (`ѕривет`) and `я` (`€`). The reading with more letters in
/// words and capitalised words, less three for each word whose case is
/// turned over, is the text (x-mac-cyrillic only with no fewer letters in
/// words).
///
/// ISO-8859-6 and windows-1256: [`arabic_twin`].
fn weigh_unnamed<'a>(
    bytes: &'a [u8],
    det: Detected,
    t: Cow<'a, str>,
) -> (Detected, Cow<'a, str>, bool) {
    let twin = match det.charset.decoder_name() {
        Some("windows-1256") => Some(encoding_rs::ISO_8859_6),
        Some("ISO-8859-6") => Some(encoding_rs::WINDOWS_1256),
        _ => None,
    };
    if let Some(twin) = twin {
        return match arabic_twin(bytes, &t, twin) {
            Some((text, used)) => (
                Detected {
                    charset: used,
                    confidence: det.confidence,
                },
                Cow::Owned(text),
                true,
            ),
            None => (det, t, true),
        };
    }
    if det.charset.decoder_name() != Some("windows-1251") {
        return (det, t, true);
    }
    let mac = Charset::for_encoding(encoding_rs::X_MAC_CYRILLIC);
    let (m, report, used) = decode_with(bytes, mac);
    if !report.is_clean() || m == t {
        return (det, t, true);
    }
    // Letters in words and capitalised words, less three for each word
    // whose case is turned over (a word is some six letters; a `«` read as
    // `З` makes one letter).
    let score = |s: &str, in_words: usize| {
        let k = case_of(s);
        (in_words + k.capitalised) as isize - 3 * k.inverted as isize
    };
    let (t_words, m_words) = (characters(&t).1, characters(&m).1);
    match score(&m, m_words).cmp(&score(&t, t_words)) {
        std::cmp::Ordering::Less => (det, t, true),
        // x-mac-cyrillic only with no fewer letters in words: its symbols
        // (`ƒ`, `÷`, `°`, `№` for Latin-1 `Ä`, `Ö`, `¡`, `Ü`) must not
        // win over a windows-1251 reading for its case alone (random
        // accented letters under ISO-8859-1, `ÖçÄ Üîñß`, were read as
        // `÷зƒ №ося`).
        std::cmp::Ordering::Greater if m_words >= t_words => (
            Detected {
                charset: used,
                confidence: det.confidence,
            },
            m,
            true,
        ),
        _ => (det, t, false),
    }
}

/// The reading of `bytes` in `twin` (ISO-8859-6 or windows-1256, the one
/// chardetng did not guess), when it reads clean and is by far the more
/// likely Arabic text than `t`, the guess's reading. The two share the
/// letters up to 0xD6; past that, ISO-8859-6's letters and vowel marks
/// are windows-1256's letters one place off and French ones (`ه و ى ي`
/// are `ç è é ê`), and windows-1256's `ف ق ك` have no octet in
/// ISO-8859-6. A short text need have none of those: `اجتماع` in
/// ISO-8859-6 reads `اجتهاظ` in windows-1256, which chardetng took, and
/// windows-1256 `إجبو` reads `إجبن` in ISO-8859-6, which it took. Each
/// reading's pairs of adjacent characters are weighed by how common they
/// are in Arabic text ([`ARABIC_PAIRS`]: windows-1256's `ال`, in nearly
/// every phrase, is ISO-8859-6's `اف`), and the twin is taken when its
/// reading is e^5 times as likely or more (tools/gen_arabic_pairs.py says
/// how that was chosen).
fn arabic_twin(
    bytes: &[u8],
    t: &str,
    twin: &'static encoding_rs::Encoding,
) -> Option<(String, &'static Charset)> {
    let (text, report, used) = decode_with(bytes, Charset::for_encoding(twin));
    // A C1 control is no character of Arabic text: ISO-8859-6 reads
    // windows-1256's `پ چ ژ ک گ` and its ZWNJ (0x81, 0x8D, 0x8E, 0x98,
    // 0x90, 0x9D) so. A Persian word under windows-1256 with a damaged
    // octet (`دندانêپزک` for `دندان‌پزشک`) was read as ISO-8859-6
    // `دلدالي\u{81}ز\u{98}`; ISO-8859-6 text has no such octet.
    if !report.is_clean() || text == t || text.chars().any(c1_control) {
        return None;
    }
    // In hundredths of a natural logarithm.
    (arabic_weight(&text) - arabic_weight(t) >= 500).then_some((text.into_owned(), used))
}

/// How likely `text` is as Arabic text: the sum of [`ARABIC_PAIRS`] over
/// its pairs of adjacent characters where one is an Arabic letter or
/// vowel mark (anything else is a word's edge), and one in a million for
/// an Arabic letter beside an ASCII one and for each other character
/// beyond ASCII not beside one. Latin letters in Latin words are no
/// evidence either way: windows-1256 has `é è ê` for French, and
/// Afrikaans `lêer` under a `utf-8` lie from an `.eg` sender is no
/// ISO-8859-6 `lيer`.
fn arabic_weight(text: &str) -> i64 {
    const OTHER: i64 = -1382;
    let index = |c: char| {
        let cp = c as u32;
        if (ARABIC_FIRST..=ARABIC_LAST).contains(&cp) {
            (cp - ARABIC_FIRST) as usize + 1
        } else {
            0
        }
    };
    let mut sum = 0i64;
    let (mut prev, mut prev_c) = (0usize, ' ');
    // A character beyond ASCII, not Arabic, not after an ASCII letter:
    // weighed when the next one is not an ASCII letter either.
    let mut pending = false;
    for c in text.chars().chain(std::iter::once(' ')) {
        let cur = index(c);
        if pending && !c.is_ascii_alphabetic() {
            sum += OTHER;
        }
        pending = cur == 0 && !c.is_ascii() && !prev_c.is_ascii_alphabetic();
        if (cur != 0 && prev_c.is_ascii_alphabetic()) || (prev != 0 && c.is_ascii_alphabetic()) {
            sum += OTHER;
        }
        if prev != 0 || cur != 0 {
            sum += i64::from(ARABIC_PAIRS[prev][cur]);
        }
        (prev, prev_c) = (cur, c);
    }
    sum
}

/// Latin-script single-byte labels, whose text keeps an ASCII letter in
/// nearly every word. Not windows-1258: Vietnamese writes a tone as a
/// combining mark after its letter, and `ư`, `ơ`, `đ` are non-ASCII too, so
/// its words are runs of non-ASCII characters as they are (`ườ`).
fn latin_label(cs: &'static Charset) -> bool {
    (is_latin(cs) && cs.decoder_name() != Some("windows-1258")) || mac_latin(cs)
}

/// The Mac OS Latin charsets: macintosh (encoding_rs's Mac OS Roman) and
/// our tables of its Central European, Turkish, Icelandic, Croatian and
/// Romanian variants (`single_byte.rs`). They share Mac OS Roman's
/// typography (`– — “ ” ‘ ’` at 0xD0..0xD5, but Croatian's `Đ` at 0xD0),
/// octets that are letters in the ISO and Windows Latin charsets, and are
/// judged as macintosh is: Latin labels ([`latin_label`]), but not
/// [`symbol_label`]s, nor doubted by [`alphabet_lie`].
fn mac_latin(cs: &'static Charset) -> bool {
    matches!(
        cs.decoder_name(),
        Some(
            "macintosh"
                | "x-mac-ce"
                | "x-mac-turkish"
                | "x-mac-icelandic"
                | "x-mac-croatian"
                | "x-mac-romanian"
        )
    )
}

/// Labels whose misread text shows as symbols inside words: the Latin ones
/// but the Mac ones (whose reading of their own text puts `’` and `—`,
/// octets that are letters in other charsets, between letters) and
/// windows-1258, and the Cyrillic ones.
fn symbol_label(cs: &'static Charset) -> bool {
    (latin_label(cs) && !mac_latin(cs)) || cyrillic_label(cs)
}

/// Whether every multi-octet UTF-8 sequence of `bytes` (valid UTF-8) is
/// two octets inside an ASCII word: a small ASCII letter on one side and
/// an ASCII letter on the other (`JÃ¼rgen`, `CafÃ©` when the word ends
/// there: `Caf` + pair). A single-byte label reads such a pair as a
/// capital and a symbol (`Ã¼`, `Ã©`) wedged into a word of small letters,
/// which no text of its own writes; UTF-8 reads one accented letter.
fn utf8_pairs_in_ascii_words(bytes: &[u8]) -> bool {
    let mut pairs = 0usize;
    let mut i = 0;
    while let Some(at) = bytes.get(i..).and_then(find_nonascii) {
        let at = i + at;
        let lead = bytes[at];
        if !(0xC2..=0xDF).contains(&lead) {
            return false;
        }
        let before = at.checked_sub(1).and_then(|k| bytes.get(k)).copied();
        let after = bytes.get(at + 2).copied();
        let small = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_lowercase());
        let letter = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_alphabetic());
        if !((small(before) && (letter(after) || after.is_none_or(|b| !b.is_ascii_alphanumeric())))
            || (letter(before) && small(after)))
        {
            return false;
        }
        pairs += 1;
        i = at + 2;
    }
    pairs > 0
}

/// ISO-8859-7 text under windows-1253, told by `Ά`: ISO-8859-7 has it at
/// 0xB6, windows-1253's pilcrow `¶`, and at 0xA2 a `’` where windows-1253
/// has `Ά`. Two 0xB6 or more at a word's start (white space, punctuation or
/// the text's start before; a small Greek letter after, 0xDC..0xFE), no
/// 0xA2 there (a text with both is neither's), no octet 0x80..0x9F, and
/// ISO-8859-7 reading every octet: its reading and the count.
fn greek_iso(bytes: &[u8]) -> Option<(Cow<'_, str>, usize)> {
    let starts = |at: u8| {
        bytes
            .iter()
            .enumerate()
            .filter(|&(i, &b)| {
                b == at
                    && i.checked_sub(1)
                        .and_then(|k| bytes.get(k))
                        .is_none_or(|p| p.is_ascii_whitespace() || p.is_ascii_punctuation())
                    && bytes.get(i + 1).is_some_and(|n| (0xDC..=0xFE).contains(n))
            })
            .count()
    };
    // ISO-8859-7 has C1 controls at 0x80..0x9F, windows-1253 `€ ‚ … ’ –`:
    // a text with such an octet is windows-1253's, and a damaged octet
    // that fell to 0xB6 before a word would turn all of them into controls.
    // Two: one is what a damaged octet makes as easily (`τη ¶ήψη`), and
    // a correctly labelled text would be called a lie for it.
    let n = starts(0xB6);
    if n < 2 || starts(0xA2) > 0 || has_c1(bytes) {
        return None;
    }
    let t = encoding_rs::ISO_8859_7.decode_without_bom_handling_and_without_replacement(bytes)?;
    Some((t, n))
}

/// The Central European reading of a text whose label's reading has
/// symbols where that charset has letters, the two charsets agreeing on
/// every octet below 0xA0 that the text holds (none from 0x80 to 0x9F):
/// ISO-8859-2 under windows-1250 (they differ at sixteen octets from 0xA1
/// to 0xBE: `Ť ť Š Ž ś ą ľ` against `« » © ® ¶ ± µ`), ISO-8859-2 or
/// windows-1250 under ISO-8859-1 or windows-1252 (`¹ ¾ ³ ¿ æ ê ø`).
/// Neither chardetng nor the alphabet rules tell them on a sentence or
/// two: the Slovak `Ťažko povedať, ľudia` is `«aľko poveda», µudia` in
/// windows-1250, every letter of it Slovak.
///
/// The label's symbols that sit between two letters (`die»a`) or at a
/// word's edge beside one (`®ádost`, `s±`; not a quotation mark, which
/// stands there in any text: `«citát»`) are counted where the candidate
/// reads a letter of the case the word wants; the candidate may turn no
/// letter of the label's into a symbol. Three such symbols, two different
/// (or three inside words: Polish `zarz±du, pi±tek, dziesi±tej`), in a
/// reading that fits a
/// language's alphabet no worse than the label's and keeps the text's
/// case natural. Under a Western label both Central European charsets are
/// tried and the better fit wins; a tie of two different readings keeps
/// the label (Polish `ą` is `š` in the other: `Z¹b`). The reading must
/// fit one language's alphabet in every letter.
fn central_twin(
    bytes: &[u8],
    cs: &'static Charset,
    text: &str,
    symbols: &std::cell::OnceCell<usize>,
) -> Option<(&'static Charset, String, usize)> {
    use encoding_rs as e;
    let enc = cs.encoding()?;
    let candidates: &[&'static e::Encoding] = if enc == e::WINDOWS_1250 {
        &[e::ISO_8859_2]
    } else if enc == e::WINDOWS_1252 {
        &[e::ISO_8859_2, e::WINDOWS_1250]
    } else {
        return None;
    };
    // Cheap tests first: no octet 0x80..0x9F (the twins differ there, and
    // ISO-8859-2 has C1 controls), and an octet where they differ from
    // the label above 0xA0.
    if has_c1(bytes) || *symbols.get_or_init(|| symbols_in_words(text)) == 0 {
        return None;
    }
    let mut best: Option<(&'static Charset, String, usize)> = None;
    let mut tie = false;
    for &c in candidates {
        let Some(t) = c.decode_without_bom_handling_and_without_replacement(bytes) else {
            continue;
        };
        let Some(n) = edge_repairs(text, &t) else {
            continue;
        };
        // Every letter of one language's alphabet: correct text with
        // symbols wedged in on purpose (`ab¹cd, Preis±Rabatt, x³y` beside
        // Catalan `col·lecció`) reads as no one language's.
        // And a letter beyond ASCII in the label's reading (no fit to
        // compare is no evidence: ASCII text with `p¼q, Ma¿ana, x³y`).
        let (held, letters) = alphabet_fit(&t);
        if held < letters
            || compare_fit(&t, text).is_none_or(|o| o == std::cmp::Ordering::Less)
            || !case_of(&t).natural()
        {
            continue;
        }
        match &best {
            None => best = Some((Charset::for_encoding(c), t.into_owned(), n)),
            Some((_, b, _)) => match compare_fit(&t, b) {
                Some(std::cmp::Ordering::Greater) => {
                    best = Some((Charset::for_encoding(c), t.into_owned(), n));
                    tie = false;
                }
                Some(std::cmp::Ordering::Less) => {}
                _ => tie = *b != t,
            },
        }
    }
    if tie {
        return None;
    }
    best
}

/// [`central_twin`]'s count: the label's symbols between letters or at a
/// word's edge that `other` (a single-byte reading of the same octets)
/// reads as letters of the word's case, when three or more, of two
/// characters or more (or three between letters), and no letter of
/// `label` is a symbol in `other`.
fn edge_repairs(label: &str, other: &str) -> Option<usize> {
    let a: Vec<char> = label.chars().collect();
    let b: Vec<char> = other.chars().collect();
    if a.len() != b.len() {
        return None;
    }
    let (mut n, mut inside) = (0usize, 0usize);
    let mut seen: Vec<char> = Vec::new();
    let letter = |c: Option<char>| c.is_some_and(|c| c.alphabetic());
    let edge = |c: Option<char>| c.is_none_or(|c| c.is_whitespace() || c.is_ascii_punctuation());
    for (i, (&x, &y)) in a.iter().zip(&b).enumerate() {
        let prev = i.checked_sub(1).and_then(|k| a.get(k)).copied();
        let next = a.get(i + 1).copied();
        if x.alphabetic() && word_symbol(y) {
            return None;
        }
        if !(y.alphabetic() && word_symbol(x)) {
            continue;
        }
        let (between, fits) = match (prev, next) {
            (Some(p), Some(q)) if letter(prev) && letter(next) => (true, fits_case(p, y, q)),
            // Quotation marks stand at words' edges in any text.
            _ if matches!(x, '«' | '»' | '‹' | '›') => (false, false),
            // A word's first letter: either case before a small one.
            (_, Some(q)) if edge(prev) && q.is_lowercase() => (false, true),
            // A word's last letter: small after a small one.
            (Some(p), _) if p.is_lowercase() && edge(next) => (false, y.is_lowercase()),
            _ => (false, false),
        };
        if fits {
            n += 1;
            inside += usize::from(between);
            if !seen.contains(&x) {
                seen.push(x);
            }
        }
    }
    (n >= 3 && (seen.len() >= 2 || inside >= 3)).then_some(n)
}

/// Whether the twin of a Central European guess (windows-1250 for
/// ISO-8859-2 and the other way round) reads the label's symbols inside
/// words as letters as well, as many and with none of the label's letters
/// turned into symbols, into another text: then the symbols do not tell
/// which of the two the text is (Polish `ą` is `š` in ISO-8859-2, and a
/// short text with only `ą ł ż` reads as letters in both), and chardetng
/// picks one on little text. The label stays. Not when the twin reads
/// more C1 controls than the guess: no text has them, and ISO-8859-2 has
/// them where windows-1250 has `ś ź š ž ť` (`\u{9c}rodę` for `środę`, a
/// word's first letter, which no symbol test sees).
fn twin_reads_too(
    bytes: &[u8],
    guess: &'static Charset,
    label_text: &str,
    guess_text: &str,
    repaired: usize,
) -> bool {
    let twin = match guess.decoder_name() {
        Some("windows-1250") => encoding_rs::ISO_8859_2,
        Some("ISO-8859-2") => encoding_rs::WINDOWS_1250,
        _ => return false,
    };
    let (t, report, _) = decode_with(bytes, Charset::for_encoding(twin));
    let c1 = |s: &str| s.chars().filter(|&c| c1_control(c)).count();
    report.is_clean()
        && t != guess_text
        && c1(&t) <= c1(guess_text)
        && repair(label_text, &t).is_some_and(|r| r.repaired >= repaired && r.broken == 0)
}

/// The octets KOI8-U has letters at and KOI8-R box drawing (`і ї є ґ`
/// and their capitals at A6 A7 A4 AD, B6 B7 B4 BD) that touch a KOI8
/// letter (0xC0..0xFF, `ё Ё`, or another of them), or stand alone as a
/// word (Ukrainian `і`, "and", `є`, "is": `Дадра і Нагар`, `PARSER і
/// COPY`; white space before, white space or punctuation after), when
/// no other box drawing touches a letter; else 0. Russian text never glues
/// box drawing to its words (a table's `║Имя║` uses other octets),
/// Ukrainian under the wrong label does in nearly every line. With it,
/// whether KOI8-R box drawing stands anywhere else in the text (a table,
/// or a damaged octet): then one or two such letters are not enough.
fn koi8u_letters(bytes: &[u8]) -> (usize, bool) {
    let ukr = |b: u8| matches!(b, 0xA4 | 0xA6 | 0xA7 | 0xAD | 0xB4 | 0xB6 | 0xB7 | 0xBD);
    let letter = |b: u8| b >= 0xC0 || b == 0xA3 || b == 0xB3 || ukr(b);
    let boxes = |b: u8| matches!(b, 0x80..=0x8A | 0xA0..=0xA2 | 0xA4..=0xB2 | 0xB4..=0xBE);
    let at = |i: Option<usize>| i.and_then(|i| bytes.get(i)).copied();
    let mut n = 0;
    let mut other_box = false;
    // The run of 8-bit octets the octet at hand is in: its start (after the
    // last ASCII octet) and, found once per run, its end.
    let (mut start, mut end) = (0usize, 0usize);
    for (i, &b) in bytes.iter().enumerate() {
        if b < 0x80 {
            start = i + 1;
        }
        if !(0x80..0xC0).contains(&b) || matches!(b, 0x9A | 0x9C..=0x9E | 0xA3 | 0xB3 | 0xBF) {
            continue;
        }
        let touches = (i > 0 && letter(bytes[i - 1])) || at(Some(i + 1)).is_some_and(letter);
        let alone = ukr(b)
            && at(i.checked_sub(1)).is_some_and(|p| p.is_ascii_whitespace())
            && at(Some(i + 1)).is_none_or(|n| n.is_ascii_whitespace() || n.is_ascii_punctuation());
        if !touches && !alone {
            other_box |= boxes(b);
            continue;
        }
        // No Ukrainian word is glued to a Latin one: `tц╕nker` is UTF-8's
        // `æ` (C3 A6) in a Danish word under KOI8-R, `posiцїцёo` the `çã`
        // of a Portuguese one, which KOI8-U read as `tціnker`, `posiцїцёo`
        // (the Faker hunt: 117 of 1,334 short UTF-8 texts under KOI8-R,
        // 2026-11-28). The run of 8-bit octets around the letter has an
        // ASCII letter right before or after it.
        if end <= i {
            end = bytes[i..]
                .iter()
                .position(|&c| c < 0x80)
                .map_or(bytes.len(), |k| i + k);
        }
        let latin_beside = (start > 0 && bytes[start - 1].is_ascii_alphabetic())
            || at(Some(end)).is_some_and(|n| n.is_ascii_alphabetic());
        if !ukr(b) || latin_beside {
            return (0, true);
        }
        n += 1;
    }
    (n, other_box)
}

/// Cyrillic single-byte charsets, whose readings of each other's text are
/// Cyrillic letters too.
fn cyrillic_label(cs: &'static Charset) -> bool {
    matches!(
        cs.decoder_name(),
        Some("windows-1251" | "KOI8-R" | "KOI8-U" | "ISO-8859-5" | "IBM866" | "x-mac-cyrillic")
    )
}

/// CJK multi-octet charsets (whose clean readings may still be nonsense).
fn is_multibyte(cs: &'static Charset) -> bool {
    matches!(
        cs.decoder_name(),
        Some("Shift_JIS" | "EUC-JP" | "EUC-KR" | "GBK" | "gb18030" | "Big5" | "Johab")
    )
}

/// No usable label (missing, unknown, "unknown-8bit", unsupported, or
/// us-ascii with 8-bit octets): ASCII as is; UTF-8 if it validates or the
/// evidence says it is damaged UTF-8; else chardetng with the top-level
/// domain, windows-1252 for Latin script unless the text says otherwise.
pub(super) fn unlabelled<'a>(
    bytes: &'a [u8],
    opts: &DecodeOptions,
    d: &mut Decoded<'a>,
    missing: bool,
) {
    let Some(first8) = find_nonascii(bytes) else {
        d.text = ascii(bytes);
        d.used = Some(Charset::US_ASCII);
        if let Some((_, text, jp)) = iso2022jp_in_ascii(bytes, opts) {
            if missing {
                d.findings.push(
                    Finding::new(FindingKind::MissingLabel, 0, 1)
                        .with_note(format!("unlabelled {} text", jp.name)),
                );
            }
            d.text = text;
            d.used = Some(jp);
            d.detected = Some(Detected {
                charset: jp,
                confidence: 0.9,
            });
        }
        return;
    };
    let count8 = bytes.iter().filter(|b| !b.is_ascii()).count();
    let us_ascii = missing || d.resolution.charset.is_some_and(|c| c.is_us_ascii());
    if us_ascii {
        d.findings
            .push(Finding::new(FindingKind::EightBitInAscii, first8, count8));
        if missing {
            d.findings
                .push(Finding::new(FindingKind::MissingLabel, 0, 1));
        }
    }
    if let Ok(s) = simdutf8::basic::from_utf8(bytes) {
        d.text = Cow::Borrowed(s);
        d.used = Some(Charset::UTF_8);
        d.detected = Some(Detected {
            charset: Charset::UTF_8,
            confidence: 0.99,
        });
        return;
    }
    // Damaged UTF-8: UTF-8 explains most of it (four characters in words
    // per error); or, in a short text, a UTF-8 writer's characters
    // ([`utf8_standing`]: two, or one inside a word) are at least as many
    // as its errors, no guess of a CJK charset reads all of it, and the
    // text is not whole lines of UTF-8 among lines of a legacy charset
    // ([`utf8_lines_apart`], read so below). Read as windows-1252
    // instead, every intact character of a short UTF-8 line with a stray
    // octet was mojibake (`reconstruyÃ³`, `grÅµp`); a two-character Big5
    // Subject pairs up into one Latin letter (`會議` as `�|ĳ`).
    let ev = evidence(bytes, Charset::UTF_8);
    let damaged_utf8 = (ev.in_words >= 4 && ev.errors * 4 <= ev.in_words)
        || (ev.errors <= ev.clean && {
            // Less the pairs a Latin text makes by chance after a letter
            // (`PÅ…` is UTF-8's `PŅ`), read as windows-1252 reads them:
            // two octets only, after a letter only. A damaged octet read
            // as a sign leaves the UTF-8 letter after it alone, and
            // UTF-8's three-octet letters at a word's end (Vietnamese
            // `hỗ`, windows-1252's `há»—`) have the shape of chance too:
            // counted so, 63 of 2,400 damaged unlabelled UTF-8 texts were
            // read whole as windows-1252 (an adversarial review).
            let good = utf8_standing(&String::from_utf8_lossy(bytes))
                .saturating_sub(utf8_chance_count(bytes, Charset::WINDOWS_1252, true).0);
            ev.errors <= good
                && (good >= 2 || ev.in_words >= 1)
                && !utf8_lines_apart(bytes)
                && !(opts.detect
                    && guessed(bytes, Charset::UTF_8, opts)
                        .is_some_and(|(d, _)| is_multibyte(d.charset)))
        });
    // Its lines in another charset, as under a UTF-8 label: a Latin-1
    // list footer below an unlabelled UTF-8 letter was U+FFFD for each
    // accent (`Fu\u{FFFD}zeile`), or, when the letter had fewer UTF-8
    // characters than four per error, the whole read as windows-1252
    // (`JÃ¼rgen`). Read in that charset when they are its words below the
    // text; damaged UTF-8 repaired on request otherwise.
    if (damaged_utf8 || utf8_beside(bytes, &ev.foreign))
        && opts.detect
        && let Some(other) = foreign_charset(bytes, &ev, Charset::UTF_8, opts)
    {
        let (_, report, _) = decode_with(bytes, Charset::UTF_8);
        let read = foreign_lines_read(bytes, Charset::UTF_8, other, &ev.foreign, &report);
        if (read || (damaged_utf8 && opts.repair_mixed))
            && read_foreign_lines(
                bytes,
                Charset::UTF_8,
                other,
                &ev.foreign,
                read,
                Some((Charset::UTF_8, &report)),
                d,
            )
        {
            d.detected = Some(Detected {
                charset: Charset::UTF_8,
                confidence: confidence(Charset::UTF_8, bytes, false),
            });
            return;
        }
    }
    let cs = if damaged_utf8 {
        Charset::UTF_8
    } else if opts.detect
        && let Some(decl) = opts.declared
        && let Some((det, _)) = read_guess(bytes, Charset::US_ASCII, decl)
    {
        // The charset the text's markup declares, when it reads the text
        // cleanly, plausibly, in words (a Content-Type of `us-ascii` over a
        // page whose `<meta>` says ISO-8859-2).
        det.charset
    } else if opts.detect {
        let g = latin_preference(bytes, guess(bytes, opts.tld, false), opts.tld);
        // windows-1252 with octets it has no character for (81 8D 8F 90
        // 9D, read as C1 controls) is no Latin text: the hint misled
        // chardetng (Shift_JIS in a raw Subject from a `.tw` sender was
        // `ˆÈ\u{8f}ã\u{81}A‚æ‚ë`). Its guess without the hint, when that
        // reads plausibly, in words.
        if g == Charset::WINDOWS_1252
            && opts.tld.is_some()
            && bytes
                .iter()
                .any(|b| matches!(b, 0x81 | 0x8D | 0x8F | 0x90 | 0x9D))
            && let Some((det, _)) =
                read_guess(bytes, Charset::WINDOWS_1252, guess(bytes, None, false))
        {
            det.charset
        } else if !is_multibyte(g)
            && let Some(cjk) = damaged_cjk(bytes, opts)
        {
            cjk
        } else {
            g
        }
    } else {
        Charset::WINDOWS_1252
    };
    let (text, report, used) = decode_with(bytes, cs);
    if opts.body
        && short_blob(bytes)
        && !mostly_letters(&text)
        && !mostly_letters(&String::from_utf8_lossy(bytes))
    {
        keep_short_blob(bytes, cs, d);
        return;
    }
    // UTF-8 lines in the guessed charset's text (a UTF-8 signature below
    // an unlabelled Latin-1 letter was `JosÃ© PÃ©rez`): read as UTF-8, as
    // under a label.
    if opts.detect
        && !cs.is_utf8()
        && report.is_clean()
        && read_utf8_lines(
            bytes,
            cs,
            used,
            &utf8_lines(bytes, cs),
            &format!("the rest is {}", used.name),
            d,
        )
    {
        d.detected = Some(Detected {
            charset: used,
            confidence: confidence(used, bytes, true),
        });
        return;
    }
    // chardetng's windows-1251 may be x-mac-cyrillic, which it never
    // names (`‚стреча` for `Встреча`), as under a label that fails.
    let (text, used) = if report.is_clean() {
        let det = Detected {
            charset: used,
            confidence: 0.5,
        };
        let (det, text) = unnamed_twin_or_guess(bytes, det, text);
        (text, det.charset)
    } else {
        (text, used)
    };
    if opts.detect || cs.is_utf8() {
        d.detected = Some(Detected {
            charset: used,
            confidence: confidence(used, bytes, report.is_clean()),
        });
    }
    add_report(d, &report);
    d.text = text;
    d.used = Some(used);
}

/// Damaged text in a CJK charset, without a label: chardetng rules a
/// charset out at its first error, so a Chinese letter with one damaged
/// octet was guessed windows-1252 and every character of it mojibake
/// (`¸÷Î»Í¬ÊÂ£º`). For a text a third or more of whose octets are 8-bit
/// (CJK text is most of it; Latin text a few per cent), 48 or more of
/// them, each CJK charset
/// that decodes it with one to three errors (a damaged octet makes one or
/// two) is tried: when chardetng, given the text without the octets of
/// those errors, guesses that charset (or its superset), it is the
/// charset, U+FFFD at the damage. Only when chardetng's own guess is not
/// a CJK charset and no CJK charset reads the text without error: an
/// undamaged text keeps chardetng's answer (short EUC-JP and EUC-KR texts,
/// which Shift_JIS reads with an error or two, were taken for Shift_JIS by
/// a first version).
fn damaged_cjk(bytes: &[u8], opts: &DecodeOptions) -> Option<&'static Charset> {
    const CJK: [&encoding_rs::Encoding; 5] = [
        encoding_rs::GBK,
        encoding_rs::BIG5,
        encoding_rs::EUC_KR,
        encoding_rs::SHIFT_JIS,
        encoding_rs::EUC_JP,
    ];
    let eight = bytes.iter().filter(|&&b| b >= 0x80).count();
    // 24 two-octet characters or more: chardetng's guess on a few words
    // is a coin toss (Bulgarian `четвъртък` in ISO-8859-5, one word, read
    // by GBK with an error for its odd octet, was taken for GBK).
    if eight < 48 || eight * 3 < bytes.len() {
        return None;
    }
    // Where each fails (one decode each; None past three errors). A text
    // one of them reads without error is not damaged CJK text: chardetng
    // saw every candidate whole and guessed otherwise.
    let failures = CJK.map(|enc| super::dispatch::malformed_spans(enc, bytes, 3));
    if failures
        .iter()
        .any(|f| f.as_ref().is_some_and(Vec::is_empty))
    {
        return None;
    }
    for (enc, spans) in CJK.into_iter().zip(failures) {
        let Some(spans) = spans else {
            continue;
        };
        let mut excised = Vec::with_capacity(bytes.len());
        let mut at = 0;
        for r in &spans {
            excised.extend_from_slice(bytes.get(at..r.start).unwrap_or_default());
            at = r.end.max(r.start + 1);
        }
        excised.extend_from_slice(bytes.get(at..).unwrap_or_default());
        let g = guess(&excised, opts.tld, false);
        let family = |e: &'static encoding_rs::Encoding| {
            if e == encoding_rs::GB18030 {
                encoding_rs::GBK
            } else {
                e
            }
        };
        if g.encoding().map(family) == Some(enc) {
            return Some(Charset::for_encoding(enc));
        }
    }
    None
}

/// Whether `bytes` is lines of UTF-8 ([`utf8_lines`]) among lines with
/// no UTF-8 character at all: a patch with a name in UTF-8 on its `-`
/// lines and in Latin-1 on its `+` lines, not UTF-8 damaged in a line of
/// its own characters.
fn utf8_lines_apart(bytes: &[u8]) -> bool {
    let lines = utf8_lines(bytes, Charset::WINDOWS_1252);
    // Both in order: a binary search, not a scan, per line.
    !lines.is_empty()
        && super::evidence::lines(bytes)
            .filter(|r| lines.binary_search_by_key(&r.start, |l| l.start).is_err())
            .all(|r| {
                bytes[r]
                    .utf8_chunks()
                    .all(|c| multi_octet_chars(c.valid()) == 0)
            })
}

/// Whether the lines of `bytes` outside `foreign` (the lines UTF-8 fails
/// on) are a UTF-8 text of their own: two or more multi-octet characters,
/// and more 8-bit octets than the foreign lines hold. Not a text in a
/// CJK charset whose octets pair up into a UTF-8 character here and
/// there (Big5, EUC-KR: every 8-bit line foreign).
fn utf8_beside(bytes: &[u8], foreign: &[Range<usize>]) -> bool {
    let high = |r: Range<usize>| bytes[r].iter().filter(|b| !b.is_ascii()).count();
    let (mut own, mut other, mut chars, mut at) = (0, 0, 0, 0);
    for r in foreign
        .iter()
        .cloned()
        .chain(std::iter::once(bytes.len()..bytes.len()))
    {
        let between = at..r.start.max(at);
        own += high(between.clone());
        chars += bytes[between].iter().filter(|&&b| b >= 0xC0).count();
        other += high(r.clone());
        at = r.end;
    }
    chars >= 2 && own > other
}

/// The verdict for what was found.
pub(super) fn verdict(d: &Decoded<'_>, out: &Outcome) -> Verdict {
    if d.resolution.status == LabelStatus::Unknown {
        Verdict::UnknownLabel
    } else if d.replacements > 0 || out.mixed {
        Verdict::Invalid
    } else if out.mislabeled {
        Verdict::Mislabeled
    } else if d.findings.is_empty() {
        Verdict::Ok
    } else {
        Verdict::Suspicious
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The threshold of [`mostly_letters`]: seven characters in ten, U+FFFD
    /// no letter (a mutation to six in ten passed every test).
    #[test]
    fn mostly_letters_is_seven_in_ten() {
        assert!(mostly_letters("abcdefg123"));
        assert!(!mostly_letters("abcdef1234"));
        assert!(mostly_letters("Größe"));
        assert!(!mostly_letters("ab\u{FFFD}\u{FFFD}"));
        assert!(mostly_letters("abcdefgh\u{FFFD}\u{FFFD}"));
        assert!(!mostly_letters("abcdefg\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"));
    }

    /// [`shift_jis_kana`] on Shift_JIS octets (encoding_rs's encoder the
    /// oracle): two kana or more, a third of the characters beyond ASCII or
    /// more, every one of them Japanese, and no octet Shift_JIS cannot
    /// read.
    #[test]
    fn shift_jis_kana_counts_as_documented() {
        let sj = |s: &str| {
            let (b, _, unmappable) = encoding_rs::SHIFT_JIS.encode(s);
            assert!(!unmappable, "{s}");
            b.into_owned()
        };
        assert_eq!(sj("は"), b"\x82\xCD");
        assert!(shift_jis_kana(&sj("加算は無理です")));
        assert!(shift_jis_kana(&sj("ok: ID は 3 です")));
        // Katakana, full-width forms and punctuation are Japanese too.
        assert!(shift_jis_kana(&sj("ファイルはＡ。です")));
        // One kana is not enough; katakana count as hiragana do, when
        // both their octets are 8-bit (`リ ル` are 0x83 0x8A and 0x8B; `シ
        // ア` are 0x83 and an ASCII letter).
        assert!(!shift_jis_kana(&sj("加算は無理")));
        assert!(shift_jis_kana(&sj("VJシリアル")));
        assert!(!shift_jis_kana(&sj("シアル")));
        assert!(!shift_jis_kana(&sj("加算ー無理・")));
        // Two side by side somewhere: Mac OS Roman's `INFORMAÇÃO` twice is
        // `INFORMAのO` twice, its `PRÉCÉDENT` `PRイィENT` (ASCII trails).
        assert!(!shift_jis_kana(b"INFORMA\x82\xCCO INFORMA\x82\xCCO"));
        assert!(!shift_jis_kana(b"PR\x83C\x83DENT PR\x83C\x83DENT"));
        assert!(shift_jis_kana(&sj("は ok はは")));
        assert!(!shift_jis_kana(&sj("は ok は")));
        // Two of six: a third; two of seven: less.
        assert!(shift_jis_kana(&sj("加算無理はは")));
        assert!(!shift_jis_kana(&sj("加算無理国はは")));
        // A Greek or Cyrillic letter (Shift_JIS has both) is no Japanese.
        assert!(!shift_jis_kana(&sj("加算は無理ですα")));
        assert!(!shift_jis_kana(&sj("加算は無理ですж")));
        // An octet Shift_JIS cannot read.
        assert!(!shift_jis_kana(
            &[sj("加算は無理です"), vec![0xA0]].concat()
        ));
        assert!(!shift_jis_kana(b"plain ascii"));
    }

    /// [`east_asian_pairs`]: two pairs of any of the three kinds, ASCII
    /// between them or not; one is not enough, nor a lead octet at the end,
    /// nor Latin text (two common ideographs side by side:
    /// [`chinese_common_counts_as_documented`]).
    #[test]
    fn east_asian_pairs_needs_two_pairs_a_test_needs() {
        let enc = |e: &'static encoding_rs::Encoding, s: &str| e.encode(s).0.into_owned();
        assert!(east_asian_pairs(&enc(encoding_rs::SHIFT_JIS, "はは")));
        assert!(east_asian_pairs(&enc(encoding_rs::SHIFT_JIS, "リ and ル")));
        assert!(east_asian_pairs(&enc(encoding_rs::EUC_JP, "a あ b ア")));
        assert!(east_asian_pairs(&enc(encoding_rs::EUC_KR, "이다")));
        // A Shift_JIS hiragana and a Hangul syllable count together.
        assert!(east_asian_pairs(&[0x82, 0xCD, b' ', 0xC0, 0xCC]));
        assert!(!east_asian_pairs(&enc(encoding_rs::SHIFT_JIS, "は")));
        // `シ` (0x83 0x56) has an ASCII trail; kanji are no pair.
        assert!(!east_asian_pairs(&enc(encoding_rs::SHIFT_JIS, "シ加算")));
        assert!(!east_asian_pairs(&[0x82, 0xCD, 0x82]));
        assert!(!east_asian_pairs(b""));
        // The ideographs may start at the octet a pair stepped over: `云`
        // (D4 C6) is no pair, its trail and `南`'s lead (C6 C4) are
        // Hangul's octets, and `南省` (C4 CF CA A1) two of the commonest
        // (the Chinese catalogs' `云南省`; Big5's `皇室阿拉姆文`).
        let gb = enc(encoding_rs::GBK, "云南省");
        assert!(east_asian_pairs(&gb));
        assert_eq!(east_asian_lie(&gb), Some(encoding_rs::GBK));
        let b5 = enc(encoding_rs::BIG5, "皇室阿拉姆文");
        assert!(east_asian_pairs(&b5[..8]));
        assert_eq!(east_asian_lie(&b5[..8]), Some(encoding_rs::BIG5));
        for s in ["Grüße aus Köln", "informação", "Þjóðólfur"] {
            assert!(!east_asian_pairs(&enc(encoding_rs::WINDOWS_1252, s)), "{s}");
        }
        // Latin capitals may pass the walk (`ÀÉ`, `ÇÃ` are KS X 1001
        // Hangul octets); the tests after it turn them down.
        let caps = enc(encoding_rs::WINDOWS_1252, "ÀÉÎÕÜ ÇÃO");
        assert!(east_asian_pairs(&caps));
        assert_eq!(east_asian_lie(&caps), None);
    }

    /// [`east_asian_lie`]: Shift_JIS, then EUC-JP, then Korean (then
    /// Chinese, [`chinese_common_counts_as_documented`]); and the
    /// Korean test's thresholds (two common syllables or more, half or
    /// more of those of KS X 1001).
    #[test]
    fn east_asian_lie_names_the_charset_its_test_passes() {
        let enc = |e: &'static encoding_rs::Encoding, s: &str| e.encode(s).0.into_owned();
        let sj = enc(encoding_rs::SHIFT_JIS, "ファイルを開けません");
        let ej = enc(encoding_rs::EUC_JP, "ファイルを開けません");
        let kr = |s: &str| enc(encoding_rs::EUC_KR, s);
        assert_eq!(east_asian_lie(&sj), Some(encoding_rs::SHIFT_JIS));
        assert_eq!(east_asian_lie(&ej), Some(encoding_rs::EUC_JP));
        assert_eq!(
            east_asian_lie(&kr("파일을 열 수 없습니다")),
            Some(encoding_rs::EUC_KR)
        );
        // Two common of four (`이 다`), one of two, none.
        assert_eq!(east_asian_lie(&kr("이다 펀쳐")), Some(encoding_rs::EUC_KR));
        assert_eq!(east_asian_lie(&kr("이 펀")), None);
        // None common: not Korean; its octets are GBK `戚媚 您好`, which
        // the Chinese test reads.
        assert_eq!(east_asian_lie(&kr("펀쳐 퀭봤")), Some(encoding_rs::GBK));
        // Two common of five: fewer than half.
        assert_eq!(east_asian_lie(&kr("이다 펀쳐퀭")), None);
        // No two side by side: Portuguese capitals (`ÇÕ` is `합`).
        assert_eq!(east_asian_lie(&kr("이 다")), None);
        assert_eq!(
            east_asian_lie(&enc(encoding_rs::WINDOWS_1252, "AÇÕES E OPÇÕES")),
            None
        );
        // Latin text in windows-1252 and ISO-8859-1.
        for s in ["Grüße aus Köln", "ÀÉÎÕÜ àéîõü", "Þjóðólfur", "OPÇÃO"] {
            assert_eq!(
                east_asian_lie(&enc(encoding_rs::WINDOWS_1252, s)),
                None,
                "{s}"
            );
        }
    }

    /// [`chinese_common`]'s thresholds, through [`east_asian_lie`] (after
    /// Japanese and Korean) and its pre-check [`east_asian_pairs`]: two of
    /// the commonest ideographs side by side, all four octets 8-bit; the
    /// commonest two or more and half or more of the ideographs.
    #[test]
    fn chinese_common_counts_as_documented() {
        let enc = |e: &'static encoding_rs::Encoding, s: &str| {
            let (b, _, unmappable) = e.encode(s);
            assert!(!unmappable, "{s}");
            b.into_owned()
        };
        let gb = |s: &str| enc(encoding_rs::GBK, s);
        let b5 = |s: &str| enc(encoding_rs::BIG5, s);
        assert_eq!(east_asian_lie(&gb("无法打开文件")), Some(encoding_rs::GBK));
        assert_eq!(east_asian_lie(&b5("無法開啟檔案")), Some(encoding_rs::BIG5));
        assert_eq!(chinese_common(&gb("文件"), false), Some((2, 2)));
        // Not side by side: ASCII between.
        assert_eq!(chinese_common(&gb("文 件"), false), None);
        assert_eq!(east_asian_lie(&gb("文 件")), None);
        // Two common of five (`鼋鼍鳘` are rare): fewer than half; two of four.
        assert_eq!(chinese_common(&gb("文件鼋鼍鳘"), false), None);
        assert_eq!(chinese_common(&gb("文件鼋鼍"), false), Some((2, 4)));
        // Exactly half, three of six (the catalogs' `使用烟草产品`,
        // `太平洋島嶼託管地`'s first six).
        assert_eq!(chinese_common(&gb("使用烟草产品"), false), Some((3, 6)));
        assert_eq!(east_asian_lie(&gb("使用烟草产品")), Some(encoding_rs::GBK));
        assert_eq!(chinese_common(&b5("太平洋島嶼託"), true), Some((3, 6)));
        // Big5 `無 法` have trails 0x4C, 0x6B (ASCII `L`, `k`): common,
        // but not side by side as two 8-bit octets.
        assert_eq!(b5("無法"), b"\xB5\x4C\xAA\x6B");
        assert_eq!(chinese_common(&b5("無法"), true), None);
        assert_eq!(chinese_common(&b5("無法檔案"), true), Some((4, 4)));
        // Octets both tests pass: the kind whose ideographs are more of
        // them its commonest (Big5 `測試執行`, all four common in Big5, two of
        // three as GB2312); GBK when as many (GB2312 `埃崩`, both common either
        // way; `列表盒`, two of three either way).
        let b = b5("測試執行");
        assert_eq!(chinese_common(&b, true), Some((4, 4)));
        assert_eq!(chinese_common(&b, false), Some((2, 3)));
        assert_eq!(east_asian_lie(&b), Some(encoding_rs::BIG5));
        let g = gb("埃崩");
        assert_eq!(chinese_common(&g, false), Some((2, 2)));
        assert_eq!(chinese_common(&g, true), Some((2, 2)));
        assert_eq!(east_asian_lie(&g), Some(encoding_rs::GBK));
        let g = gb("列表盒");
        assert_eq!(chinese_common(&g, false), Some((2, 3)));
        assert_eq!(chinese_common(&g, true), Some((2, 3)));
        assert_eq!(east_asian_lie(&g), Some(encoding_rs::GBK));
        // An octet beyond the charset's cells: not Chinese.
        let mut bad = gb("文件");
        bad.push(0xFF);
        assert_eq!(chinese_common(&bad, false), None);
        for s in ["无法打开文件", "请输入密码。", "文件鼋鼍", "a 文件 b"] {
            assert!(east_asian_pairs(&gb(s)), "{s}");
        }
        for s in ["無法開啟檔案", "無法檔案"] {
            assert!(east_asian_pairs(&b5(s)), "{s}");
        }
        // Every 8-bit octet begins a GB2312 character: `ÅÅÅÅ` (C5 C5 C5
        // C5) is two of the commonest ideographs, but the `ö ø Æ` of the
        // Swedish and Danish catalogs' date formats are leads with an
        // ASCII trail; and EUC-JP's kana (rows 0xA4, 0xA5: `順序付け`) are
        // none of GB2312's Hanzi.
        for s in [
            "Utlöpsdatum för kontot (ÅÅÅÅ-MM-DD)",
            "UDLØBSDATO FOR KONTO (ÅÅÅÅ-MM-DD)",
            "SIDSTE ÆNDRING AF ADGANGSKODE (ÅÅÅÅ-MM-DD)",
        ] {
            let b = enc(encoding_rs::WINDOWS_1252, s);
            assert_eq!(chinese_common(&b, false), None, "{s}");
            assert_eq!(east_asian_lie(&b), None, "{s}");
        }
        let ej = enc(encoding_rs::EUC_JP, "順序付け");
        assert_eq!(chinese_common(&ej, false), None);
        assert_eq!(east_asian_lie(&ej), None);
        // Korean with one common syllable of two (`방` of `방법`) is no
        // Chinese, though GB2312 reads two common ideographs there.
        let kr = enc(encoding_rs::EUC_KR, "방법");
        assert!(chinese_common(&kr, false).is_some());
        assert_eq!(east_asian_lie(&kr), None);
        // Latin text: one ideograph at most where accented letters meet.
        for s in [
            "SLÓÐIN '%S' ER EKKI FULL SLÓÐ",
            "OPÇÃO",
            "LIITTÄÄ JA YHDISTÄÄ MÄÄRITELLYT",
        ] {
            let b = enc(encoding_rs::WINDOWS_1252, s);
            assert_eq!(chinese_common(&b, false), None, "{s}");
            assert_eq!(chinese_common(&b, true), None, "{s}");
        }
    }

    /// [`korean_beyond_ks`] on windows-949 octets (encoding_rs's encoder
    /// the oracle): a syllable beyond KS X 1001 by its lead (`됬`, `89 E7`)
    /// or by its trail (`햏`, `C1 64`), ASCII before it, and the thresholds:
    /// two common syllables or more, half or more of those of KS X 1001.
    #[test]
    fn korean_beyond_ks_counts_as_documented() {
        let kr = |s: &str| {
            let (b, _, unmappable) = encoding_rs::EUC_KR.encode(s);
            assert!(!unmappable, "{s}");
            b.into_owned()
        };
        assert_eq!(kr("됬햏가"), b"\x89\xE7\xC1\x64\xB0\xA1");
        // Beyond by the lead, by the trail; after ASCII.
        assert!(korean_beyond_ks(&kr("됬습니다")));
        assert!(korean_beyond_ks(&kr("햏습니다")));
        assert!(korean_beyond_ks(&kr("ok 됬습니다")));
        // KS X 1001 alone (`가` is `B0 A1`, its trail the first of the
        // rows), after ASCII too: nothing beyond.
        assert!(!korean_beyond_ks(&kr("가다는")));
        assert!(!korean_beyond_ks(&kr("a가다는")));
        // Common syllables: two or more.
        assert!(!korean_beyond_ks(&kr("됬다")));
        assert!(korean_beyond_ks(&kr("됬다는")));
        // Half or more of KS X 1001's are common (`굶 꿇 닭 곬` are not).
        assert!(korean_beyond_ks(&kr("됬습니다굶꿇닭")));
        assert!(!korean_beyond_ks(&kr("됬습니다굶꿇닭곬")));
        // Every character beyond ASCII a Hangul syllable; all decoded.
        assert!(!korean_beyond_ks(&kr("됬습니다 韓國")));
        assert!(!korean_beyond_ks(
            &[kr("됬습니다").as_slice(), b"\x89"].concat()
        ));
    }

    /// [`utf8_chance_count`] and [`utf8_by_chance`] on Latin text written
    /// in its own charset (encoding_rs's encoder the oracle; each case
    /// valid UTF-8 where counted), one shape of [`utf8_chance`] each, and
    /// the shapes beside it that are a UTF-8 writer's or no pairing.
    #[test]
    fn utf8_chance_counts_each_documented_shape() {
        let cs = |l: &str| Charset::for_label(l.as_bytes()).expect("a known label");
        let latin = |text: &str, l: &str| {
            let (b, _, unmappable) = cs(l).encoding().expect("encoding_rs's").encode(text);
            assert!(!unmappable, "{text}");
            b.into_owned()
        };
        let count = |text: &str, l: &str| utf8_chance_count(&latin(text, l), cs(l), false);
        let w = "windows-1252";
        // Two octets: a capital after a capital (`PAYÉ…` is `C9 85`,
        // UTF-8's `Ʌ`), or alone, or `ß` alone, then a sign ending the word.
        assert_eq!(count("PAYÉ…", w), (1, 1));
        assert_eq!(count(" É…", w), (1, 1));
        assert_eq!(count(" ß…", w), (1, 1));
        assert_eq!(count("PAYÉ…s", w), (0, 1));
        assert_eq!(count("aÉ…", w), (0, 1));
        assert_eq!(count("1É…", w), (0, 1));
        // No capital: `×` (`D7 85`, UTF-8's Hebrew point).
        assert_eq!(count(" ×…", w), (0, 1));
        // A UTF-8 writer's `«OK»` (`C2 AB`, `C2 BB`; `Â«OKÂ»`).
        assert_eq!(utf8_chance_count("«OK»".as_bytes(), cs(w), false), (0, 2));
        // Two capitals of an all-caps word where UTF-8 reads no Latin
        // letter (ISO-8859-2 `CZĘŚCI`, `CA A6`, UTF-8's `ʦ`); not before a
        // small letter, nor a small letter second, nor a Latin letter
        // (`ÄŠ`, `C4 8A`, is UTF-8's `Ċ`).
        let l2 = "iso-8859-2";
        assert_eq!(count("CZĘŚCI", l2), (1, 1));
        assert_eq!(count("CZĘŚci", l2), (0, 1));
        assert_eq!(count("CZĘśCI", l2), (0, 1));
        assert_eq!(count("XÄŠY", w), (0, 1));
        // Mac OS Roman's apostrophe before a letter (`D5 8E`, UTF-8's `Վ`),
        // not before a sign (`D5 A5`).
        assert_eq!(count("l’école", "macintosh"), (1, 1));
        assert_eq!(count("l’• ", "macintosh"), (0, 1));
        // Three and four octets: a letter after a letter, then signs
        // ending the word (`Nå…”`, `E5 85 94`, UTF-8's `兔`); not after a
        // space, not before a letter, not with a letter among the signs,
        // not `E2` (a UTF-8 writer's `—` is `â€”`).
        assert_eq!(count("Nå…”", w), (1, 1));
        assert_eq!(count("Nð‘€€", w), (1, 1));
        assert_eq!(count(" å…”", w), (0, 1));
        assert_eq!(count("Nå…”s", w), (0, 1));
        assert_eq!(count("Nåšš", w), (0, 1));
        assert_eq!(utf8_chance_count("N—".as_bytes(), cs(w), false), (0, 1));
        // Several in a text, octets UTF-8 fails on skipped (`å` alone).
        assert_eq!(count("KOM PÅ… og så PAYÉ… Nå…”", w), (3, 3));
        // Not a Latin charset, or an octet the label does not read:
        // nothing counted.
        assert_eq!(count("ТЕСТ", "iso-8859-5"), (0, 0));
        // (ISO-8859-3 has no character at 0xA5.)
        let l3 = cs("iso-8859-3");
        assert_eq!(utf8_chance_count(b" \xC9\xA0", l3, false), (1, 1));
        assert_eq!(utf8_chance_count(b" \xC9\xA0\xA5", l3, false), (0, 0));
        // A sign that ends no word (`°`, `‚`): no chance (Romanian
        // `FACTURĂ` is windows-1252's `FACTURÄ‚`).
        assert_eq!(utf8_chance_count(b" \xC9\xB0", l3, false), (0, 1));
        assert_eq!(count("FACTURĂ", "iso-8859-16"), (0, 0));
        assert_eq!(
            utf8_chance_count("FACTURĂ".as_bytes(), cs(w), false),
            (0, 1)
        );
        // By chance: every one of them, and one at least.
        assert!(utf8_by_chance(&latin("PAYÉ… Nå…”", w), cs(w)));
        assert!(!utf8_by_chance(b"PAY", cs(w)));
        let mixed = [latin("PAYÉ… ", w).as_slice(), "«".as_bytes()].concat();
        assert_eq!(utf8_chance_count(&mixed, cs(w), false), (1, 2));
        assert!(!utf8_by_chance(&mixed, cs(w)));
    }

    /// [`utf8_marks`]: UTF-8's typography of three octets always, that of
    /// two (`«`, no-break space) only against a Latin charset.
    #[test]
    fn utf8_marks_counts_two_octet_marks_for_latin_only() {
        let line = "— ’ « x";
        assert_eq!(utf8_marks(line, true), 3);
        assert_eq!(utf8_marks(line, false), 2);
        assert_eq!(utf8_marks("abc é", true), 0);
        assert_eq!(utf8_marks("\u{A0}", false), 0);
    }
}
