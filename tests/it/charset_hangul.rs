//! UNICODE-1-1-UTF-8: the shipped table against the Unicode 1.1 data (read
//! here in Rust, independently of tools/gen_hangul.py), the L2/17-080
//! corrections, round trips, and the --unicode11 policy through `decode`.

use crate::common;
use mailcharset::charset::{self, Charset, DecodeOptions, EncodeError, Unicode11Policy, decode};
use mailcharset::codec::hangul::{new_to_old, old_to_new};
use mailcharset::finding::{FindingKind, Verdict};
use std::borrow::Cow;

#[test]
fn table_matches_unicode_1_1_data() {
    let Some(bytes) = common::corpus_bytes(
        "table_matches_unicode_1_1_data",
        "unicode-ucd-historic/1.1.0-Update/UnicodeData.txt",
    ) else {
        return;
    };
    let text = String::from_utf8_lossy(&bytes);
    let corrections = [(0x384E, 0xC0A3), (0x40BC, 0xC0A4), (0x436C, 0xCF6A)];
    let mut n = 0;
    let mut corrected = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(';').collect();
        let Ok(cp) = u32::from_str_radix(f[0], 16) else {
            continue;
        };
        if !(0x3400..=0x4DFF).contains(&cp) {
            continue;
        }
        let jamo: Vec<u32> = f[5]
            .split_whitespace()
            .map(|h| u32::from_str_radix(h, 16).unwrap())
            .collect();
        let (l, v) = (jamo[0] - 0x1100, jamo[1] - 0x1161);
        let t = jamo.get(2).map_or(0, |t| t - 0x11A7);
        let mut new = 0xAC00 + (l * 21 + v) * 28 + t;
        if let Some(&(_, fixed)) = corrections.iter().find(|c| c.0 == cp) {
            assert_ne!(
                new, fixed,
                "U+{cp:04X}: the 1.1 data is what needs correcting"
            );
            new = fixed;
            corrected += 1;
        }
        assert_eq!(
            old_to_new(cp).map(u32::from),
            Some(new),
            "U+{cp:04X} ({})",
            f[1]
        );
        n += 1;
    }
    assert_eq!(n, 6656);
    assert_eq!(corrected, 3);
}

#[test]
fn corrections_and_round_trip() {
    assert_eq!(old_to_new(0x384E), Some('\u{C0A3}'));
    assert_eq!(old_to_new(0x40BC), Some('\u{C0A4}'));
    assert_eq!(old_to_new(0x436C), Some('\u{CF6A}'));
    let mut unrepresentable = 0;
    for c in ('\u{AC00}'..='\u{D7A3}').filter(|c| new_to_old(*c).is_none()) {
        unrepresentable += 1;
        let s = c.to_string();
        // Strict: an error at the right offset; lossy: one reported replacement.
        let text = format!("ab{s}");
        let e = charset::encode(&text, Charset::UNICODE_1_1_UTF_8, true);
        assert!(matches!(e, Err(EncodeError::Unmappable { offset: 2, ch, .. }) if ch == c));
        let e = charset::encode(&s, Charset::UNICODE_1_1_UTF_8, false).unwrap();
        assert_eq!(e.replacements, 1);
        assert_eq!(e.bytes.as_ref(), "\u{FFFD}".as_bytes());
    }
    assert_eq!(unrepresentable, 4516);
    // All 6,656 syllables through encode and decode as whole text.
    let modern: String = (0x3400..=0x4DFF)
        .map(|cp| old_to_new(cp).unwrap())
        .collect();
    let old: String = (0x3400..=0x4DFFu32).filter_map(char::from_u32).collect();
    let enc = charset::encode(&modern, Charset::UNICODE_1_1_UTF_8, true).unwrap();
    assert_eq!(enc.bytes.as_ref(), old.as_bytes());
    let d = decode(
        &enc.bytes,
        Some(b"UNICODE-1-1-UTF-8"),
        &DecodeOptions::default(),
    );
    assert_eq!(d.text, modern);
    assert_eq!(d.verdict, Verdict::Suspicious);
    let f = d
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::OldHangul)
        .unwrap();
    assert_eq!((f.offset, f.count), (0, 6656));
}

fn opts(p: Unicode11Policy) -> DecodeOptions {
    DecodeOptions {
        unicode11: p,
        ..DecodeOptions::default()
    }
}

#[test]
fn policy() {
    // "한" was U+3D7B... compute instead of hand-typing: U+3400 is 가.
    let old = "x \u{3400}\u{3401}".as_bytes();
    for label in [
        &b"unicode-1-1-utf-8"[..],
        b"unicode11utf8",
        b"csUnicode11UTF8",
    ] {
        let d = decode(old, Some(label), &opts(Unicode11Policy::Auto));
        assert_eq!(d.text, "x \u{AC00}\u{AC01}");
        assert_eq!(d.used, Some(Charset::UNICODE_1_1_UTF_8));
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::OldHangul)
            .unwrap();
        assert_eq!((f.offset, f.count), (2, 2));
    }
    let off = decode(old, Some(b"unicode-1-1-utf-8"), &opts(Unicode11Policy::Off));
    assert!(matches!(off.text, Cow::Borrowed(_)));
    assert_eq!(off.verdict, Verdict::Ok);
    // Both blocks: a post-Amendment-5 writer; auto leaves it, remap forces.
    let mixed = "\u{3400} \u{AC00}".as_bytes();
    let auto = decode(
        mixed,
        Some(b"unicode-1-1-utf-8"),
        &opts(Unicode11Policy::Auto),
    );
    assert_eq!(auto.text, "\u{3400} \u{AC00}");
    assert_eq!(auto.verdict, Verdict::Mislabeled);
    let remap = decode(
        mixed,
        Some(b"unicode-1-1-utf-8"),
        &opts(Unicode11Policy::Remap),
    );
    assert_eq!(remap.text, "\u{AC00} \u{AC00}");
    // Plain UTF-8 with U+3400..U+4DFF is decoded as written: the label
    // is not questioned (the auditor asks codec::hangul about the text).
    let d = decode(old, Some(b"utf-8"), &DecodeOptions::default());
    assert_eq!(d.text, "x \u{3400}\u{3401}");
    assert_eq!(d.verdict, Verdict::Ok);
    assert!(d.findings.is_empty(), "{:?}", d.findings);
}
