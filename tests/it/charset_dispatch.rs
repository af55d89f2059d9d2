//! Dispatch and verdicts: GMime's parallel texts, Python's codecs as an
//! oracle for legacy charsets, the mail rules (ISO-8859-1 as windows-1252,
//! 8-bit under us-ascii or no label, lying labels), UTF-16/32, encoding.
//! (GMime's chinese.big5.txt is not used: it lacks the Japanese-only kanji
//! of its UTF-8 "twin", so the two are not parallel.)

use crate::common;
use mailcharset::charset::{self, Charset, DecodeOptions, EncodeError, Support, decode, decode_as};
use mailcharset::finding::{FindingKind, LabelStatus, Verdict};
use std::borrow::Cow;

fn gmime(name: &str) -> Option<Vec<u8>> {
    common::corpus_bytes(
        "gmime_parallel_texts",
        &format!("gmime/tests/data/filters/{name}"),
    )
}

fn kinds(d: &charset::Decoded<'_>) -> Vec<FindingKind> {
    d.findings.iter().map(|f| f.kind).collect()
}

#[test]
fn gmime_parallel_texts() {
    for (twin, files) in [
        (
            "cyrillic.utf-8.txt",
            &[
                ("cyrillic.koi8-r.txt", "koi8-r"),
                ("cyrillic.cp1251.txt", "cp1251"),
                ("cyrillic.iso-8859-5.txt", "iso-8859-5"),
            ][..],
        ),
        (
            "japanese.utf-8.txt",
            &[
                ("japanese.iso-2022-jp.txt", "iso-2022-jp"),
                ("japanese.shift-jis.txt", "shift_jis"),
            ][..],
        ),
    ] {
        let Some(utf8) = gmime(twin) else { return };
        let utf8 = String::from_utf8(utf8).unwrap();
        for (file, label) in files {
            let Some(bytes) = gmime(file) else { return };
            let d = decode(&bytes, Some(label.as_bytes()), &DecodeOptions::default());
            assert_eq!(d.text, utf8, "{file}");
            assert_eq!(d.verdict, Verdict::Ok, "{file}: {:?}", d.findings);
            let cs = Charset::for_label(label.as_bytes()).unwrap();
            assert_eq!(d.used, Some(cs));
            let e = charset::encode(&utf8, cs, true).unwrap();
            assert_eq!(e.bytes.as_ref(), &bytes[..], "{file} encodes back");
        }
    }
}

fn python_encode(codec: &str, text: &str) -> Option<Vec<u8>> {
    let code = format!(
        "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read().decode('utf-8').encode('{codec}'))"
    );
    common::python("python_oracle", &code, text.as_bytes())
}

/// Python's codecs encode; we decode and encode back.
#[test]
fn python_oracle_legacy() {
    if python_encode("utf-8", "x").is_none() {
        return;
    }
    for (codec, label, text) in [
        (
            "cp1252",
            "windows-1252",
            "caf\u{E9} \u{20AC}5 \u{201C}quoted\u{201D} \u{2014}",
        ),
        (
            "koi8_r",
            "koi8-r",
            "\u{41F}\u{440}\u{438}\u{432}\u{435}\u{442}, \u{43C}\u{438}\u{440}!",
        ),
        (
            "iso2022_jp",
            "iso-2022-jp",
            "\u{65E5}\u{672C}\u{8A9E}\u{306E}\u{30C6}\u{30AD}\u{30B9}\u{30C8} abc",
        ),
        (
            "shift_jis",
            "shift_jis",
            "\u{3053}\u{3093}\u{306B}\u{3061}\u{306F}\u{FF76}\u{FF85}",
        ),
        (
            "euc_kr",
            "ks_c_5601-1987",
            "\u{D55C}\u{AD6D}\u{C5B4} \u{D14D}\u{C2A4}\u{D2B8}",
        ),
        ("gb2312", "gb2312", "\u{4E2D}\u{6587}\u{6D4B}\u{8BD5}"),
        ("big5", "bog5", "\u{7E41}\u{9AD4}\u{4E2D}\u{6587}"),
        (
            "iso8859_2",
            "latin2",
            "\u{17C}\u{F3}\u{142}\u{107} g\u{119}\u{15B}l\u{105} ja\u{17A}\u{144}",
        ),
        (
            "iso2022_kr",
            "iso-2022-kr",
            "\u{D55C}\u{AD6D}\u{C5B4} text\n\u{D14D}\u{C2A4}\u{D2B8} end\n",
        ),
        (
            "hz",
            "hz-gb-2312",
            "\u{4E2D}\u{6587} ~ mixed \u{6D4B}\u{8BD5}\n",
        ),
        ("utf_16_le", "utf-16le", "utf16 \u{1F600}"),
        ("utf_16_be", "utf-16be", "utf16 \u{1F600}"),
        ("utf_32_be", "utf-32be", "utf32 \u{1F600}"),
        ("utf_32_le", "utf-32le", "utf32 \u{1F600}"),
        ("utf_32", "utf-32", "utf32 bom \u{1F600}"),
        ("utf_16", "utf-16", "utf16 bom \u{1F600}"),
    ] {
        let bytes = python_encode(codec, text).unwrap();
        let d = decode(&bytes, Some(label.as_bytes()), &DecodeOptions::default());
        assert_eq!(d.text, text, "{label}");
        assert_eq!(d.verdict, Verdict::Ok, "{label}: {:?}", d.findings);
        let cs = Charset::for_label(label.as_bytes()).unwrap();
        let e = charset::encode(text, cs, true).unwrap();
        // Unmarked forms must be byte-identical; BOM-marked ones must round-trip.
        if matches!(label, "utf-16" | "utf-32") {
            assert_eq!(
                decode(&e.bytes, Some(label.as_bytes()), &DecodeOptions::default()).text,
                text
            );
        } else {
            assert_eq!(e.bytes.as_ref(), &bytes[..], "{label}");
        }
    }
}

/// Labels in a program's own spelling (Python's codec names, punctuation
/// dropped or changed: Unicode TR #22 charset alias matching) resolve
/// with status `alias`: Python encodes under the spelling, we decode under
/// it. They were unknown labels, read by detection.
#[test]
fn python_oracle_other_spellings() {
    if python_encode("utf-8", "x").is_none() {
        return;
    }
    for (label, text) in [
        ("latin-1", "Gr\u{FC}\u{DF}e aus K\u{F6}ln, \u{A3}5"),
        ("iso8859_15", "\u{20AC}5 pour le caf\u{E9} \u{153}uvre"),
        (
            "iso8859_2",
            "\u{17C}\u{F3}\u{142}\u{107} g\u{119}\u{15B}l\u{105}",
        ),
        (
            "koi8_u",
            "\u{41F}\u{440}\u{438}\u{432}\u{435}\u{442}, \u{43C}\u{438}\u{440}!",
        ),
        (
            "euc_kr",
            "\u{D55C}\u{AD6D}\u{C5B4} \u{D14D}\u{C2A4}\u{D2B8}",
        ),
        ("ks_c_5601", "\u{D55C}\u{AD6D}\u{C5B4}"),
        (
            "euc_jp",
            "\u{65E5}\u{672C}\u{8A9E}\u{306E}\u{30C6}\u{30AD}\u{30B9}\u{30C8}",
        ),
        ("big5hkscs", "\u{7E41}\u{9AD4}\u{4E2D}\u{6587}"),
        ("iso2022_jp", "\u{65E5}\u{672C}\u{8A9E} abc"),
        (
            "windows_1250",
            "P\u{159}\u{ED}li\u{161} \u{17E}lu\u{165}ou\u{10D}k\u{FD}",
        ),
        (
            "iso8859_7",
            "\u{39A}\u{3B1}\u{3BB}\u{3B7}\u{3BC}\u{3AD}\u{3C1}\u{3B1}",
        ),
        ("utf_8", "na\u{EF}ve \u{1F600}"),
    ] {
        let bytes = python_encode(label, text).unwrap();
        let r = charset::resolve(Some(label.as_bytes()));
        assert_eq!(r.status, LabelStatus::Alias, "{label}");
        let d = decode(&bytes, Some(label.as_bytes()), &DecodeOptions::default());
        assert_eq!(d.text, text, "{label}");
        assert_eq!(d.verdict, Verdict::Ok, "{label}: {:?}", d.findings);
    }
    // Not every string is a spelling of a label: these stay unknown.
    for label in ["win-1252", "8859-1", "utf", "iso", "a", "binary"] {
        assert_eq!(
            charset::resolve(Some(label.as_bytes())).status,
            LabelStatus::Unknown,
            "{label}"
        );
    }
}

/// Labels of charsets we decode, seen in real mail and unknown until they
/// were added to tools/mail-aliases.tsv (their text was read by
/// detection, `unknown-label`): each names the charset whose decoder reads
/// it, with status `alias`, and text Python writes in the codec the label
/// names reads as written. (`ucs-2` is WHATWG's label, now read as
/// `utf-16` is: a byte order mark decides.)
#[test]
fn mail_aliases_of_charsets_we_decode() {
    for (label, name) in [
        ("uhc", "EUC-KR"),
        ("unified-hangul", "EUC-KR"),
        ("ms949", "EUC-KR"),
        ("ms950", "Big5"),
        ("windows-950", "Big5"),
        ("x-windows-950", "Big5"),
        ("big5-eten", "Big5"),
        ("x-windows-874", "windows-874"),
        ("iso-ir-166", "TIS-620"),
        ("cn-gb", "GB2312"),
        ("gb18030-2022", "GB18030"),
        ("eucjp-ms", "EUC-JP"),
        ("cp50221", "ISO-2022-JP"),
        ("cp50222", "ISO-2022-JP"),
        ("iso-2022-jp-1", "ISO-2022-JP-2"),
        ("iso-2022-jp-3", "ISO-2022-JP-2"),
        ("iso-2022-jp-2004", "ISO-2022-JP-2"),
        ("shift_jis-2004", "Shift_JIS"),
        ("shift_jisx0213", "Shift_JIS"),
        ("euc-jis-2004", "EUC-JP"),
        ("euc-jisx0213", "EUC-JP"),
        ("ucs-2le", "UTF-16LE"),
        ("ucs-2be", "UTF-16BE"),
    ] {
        let r = charset::resolve(Some(label.as_bytes()));
        assert_eq!(r.charset.map(Charset::name), Some(name), "{label}");
        assert_eq!(r.status, LabelStatus::Alias, "{label}");
    }
    // Python's own spellings find them too (TR #22 matching).
    for (label, name) in [
        ("shift_jis_2004", "Shift_JIS"),
        ("euc_jis_2004", "EUC-JP"),
        ("iso2022_jp_3", "ISO-2022-JP-2"),
        ("ucs_2le", "UTF-16LE"),
    ] {
        assert_eq!(
            Charset::for_label(label.as_bytes()).map(Charset::name),
            Some(name),
            "{label}"
        );
    }
    // Fixed octets (no Python needed): half-width katakana by ESC ( I
    // under the Windows ISO-2022-JP code pages; JIS X 0212 under
    // ISO-2022-JP-1; a big-endian UCS-2 text with its mark.
    for (label, bytes, text) in [
        ("cp50221", &b"\x1B(I6E\x1B(B"[..], "\u{FF76}\u{FF85}"),
        ("cp50222", b"\x1B(I6E\x1B(B", "\u{FF76}\u{FF85}"),
        ("iso-2022-jp-1", b"\x1B$(D0!\x1B(B", "\u{4E02}"),
        ("ucs-2", b"\xFE\xFF\x00A\x04\x10", "A\u{410}"),
        ("ucs-2", b"\xFF\xFEA\x00\x10\x04", "A\u{410}"),
    ] {
        let d = decode(bytes, Some(label.as_bytes()), &DecodeOptions::default());
        assert_eq!(d.text, text, "{label}: {:?}", d.findings);
        assert_eq!(d.verdict, Verdict::Ok, "{label}: {:?}", d.findings);
    }
    if python_encode("utf-8", "x").is_none() {
        return;
    }
    for (codec, label, text) in [
        (
            "cp949",
            "uhc",
            "\u{B620}\u{BC29}\u{AC01}\u{D558} \u{D55C}\u{AD6D}\u{C5B4}",
        ),
        (
            "cp949",
            "unified-hangul",
            "\u{D55C}\u{AD6D}\u{C5B4} \u{B620}",
        ),
        ("cp949", "ms949", "\u{D14D}\u{C2A4}\u{D2B8}"),
        (
            "cp950",
            "ms950",
            "\u{7E41}\u{9AD4}\u{4E2D}\u{6587} \u{7881}\u{92B9}\u{88CF}",
        ),
        ("cp950", "x-windows-950", "\u{7E41}\u{9AD4}\u{4E2D}\u{6587}"),
        ("big5", "big5-eten", "\u{7E41}\u{9AD4}\u{4E2D}\u{6587}"),
        (
            "cp874",
            "x-windows-874",
            "\u{E20}\u{E32}\u{E29}\u{E32}\u{E44}\u{E17}\u{E22}",
        ),
        (
            "tis_620",
            "iso-ir-166",
            "\u{E20}\u{E32}\u{E29}\u{E32}\u{E44}\u{E17}\u{E22}",
        ),
        ("gb2312", "cn-gb", "\u{4E2D}\u{6587}\u{6D4B}\u{8BD5}"),
        ("gb18030", "gb18030-2022", "\u{4E2D}\u{6587} \u{20000}"),
        (
            "euc_jp",
            "eucjp-ms",
            "\u{65E5}\u{672C}\u{8A9E}\u{306E}\u{30C6}\u{30AD}\u{30B9}\u{30C8}",
        ),
        (
            "iso2022_jp_1",
            "iso-2022-jp-1",
            "\u{65E5}\u{672C}\u{8A9E} \u{4E02}",
        ),
        (
            "iso2022_jp_3",
            "iso-2022-jp-3",
            "\u{65E5}\u{672C}\u{8A9E}\u{306E}\u{30C6}\u{30AD}\u{30B9}\u{30C8}",
        ),
        (
            "iso2022_jp_2004",
            "iso-2022-jp-2004",
            "\u{65E5}\u{672C}\u{8A9E} abc",
        ),
        (
            "shift_jis_2004",
            "shift_jis-2004",
            "\u{65E5}\u{672C}\u{8A9E}\u{306E}\u{30C6}\u{30AD}\u{30B9}\u{30C8}",
        ),
        (
            "shift_jisx0213",
            "shift_jisx0213",
            "\u{65E5}\u{672C}\u{8A9E}",
        ),
        (
            "euc_jis_2004",
            "euc-jis-2004",
            "\u{65E5}\u{672C}\u{8A9E}\u{306E}\u{30C6}\u{30AD}\u{30B9}\u{30C8}",
        ),
        ("euc_jisx0213", "euc-jisx0213", "\u{65E5}\u{672C}\u{8A9E}"),
        (
            "utf_16_le",
            "ucs-2le",
            "\u{41F}\u{440}\u{438}\u{432}\u{435}\u{442} ucs-2",
        ),
        (
            "utf_16_be",
            "ucs-2be",
            "\u{41F}\u{440}\u{438}\u{432}\u{435}\u{442} ucs-2",
        ),
    ] {
        let bytes = python_encode(codec, text).unwrap();
        let d = decode(&bytes, Some(label.as_bytes()), &DecodeOptions::default());
        assert_eq!(d.text, text, "{label}");
        assert_eq!(d.verdict, Verdict::Ok, "{label}: {:?}", d.findings);
    }
}

/// ISO-2022-JP-2 with Python as the oracle in both directions (the byte
/// forms may differ: Python writes ō with JIS X 0212, we with GB 2312).
#[test]
fn python_oracle_iso_2022_jp_2() {
    if python_encode("utf-8", "x").is_none() {
        return;
    }
    let cs = Charset::for_label(b"ISO-2022-JP-2").unwrap();
    assert_eq!(cs.decoder_name(), Some("ISO-2022-JP-2"));
    for text in [
        "Masahiro Goj\u{14D}",
        "\u{65E5}\u{672C}\u{8A9E} \u{D55C}\u{AD6D}\u{C5B4} caf\u{E9} \u{3B1}\u{3B2}\u{3B3} \u{4E2D}\u{6587}\n",
    ] {
        let py = python_encode("iso2022_jp_2", text).unwrap();
        let d = decode(&py, Some(b"iso-2022-jp-2"), &DecodeOptions::default());
        assert_eq!(d.text, text);
        assert_eq!(d.verdict, Verdict::Ok);
        let ours = charset::encode(text, cs, true).unwrap();
        assert!(ours.bytes.is_ascii());
        let back = python_decode("iso2022_jp_2", &ours.bytes).unwrap();
        assert_eq!(back, text);
    }
    let d = decode(
        b"a\x1B$(Dx",
        Some(b"iso-2022-jp-2"),
        &DecodeOptions {
            detect: false,
            ..Default::default()
        },
    );
    assert_eq!(
        d.first_error().map(|f| (f.kind, f.offset)),
        Some((FindingKind::Truncated, 5))
    );
}

/// The JIS X 0213 designations of ISO-2022-JP-3 and -2004 (`ESC $ ( O`,
/// `Q`: plane 1; `ESC $ ( P`: plane 2). Python's iso2022_jp_2004 writes
/// JIS X 0208 text with `ESC $ B` and a JIS X 0213 addition with
/// `ESC $ ( Q`: the additions are U+FFFD (we have no JIS X 0213 table), the
/// rest reads. The designations were unknown escapes, their octets read
/// as JIS X 0208 pairs: `森鷗外` came out `森�え辨�外`, the `$(` and `Q~`
/// of the escape and the addition read as `え` and `辨`.
#[test]
fn iso_2022_jp_3_planes_read_as_jis_x_0208_or_fail() {
    let opts = DecodeOptions {
        detect: false,
        ..Default::default()
    };
    for (bytes, text, errors) in [
        // 森鷗外と𠮟る。 (Python: iso2022_jp_2004)
        (
            &b"\x1B$B?9\x1B$(Q~e\x1B$B30$H\x1B$(QOT\x1B$B$k!#\x1B(B"[..],
            "森\u{FFFD}外と\u{FFFD}る。",
            2,
        ),
        // JIS X 0208's characters under the plane 1 designations (2000 and
        // 2004), one pair of plane 2, then ASCII again.
        (b"\x1B$(O?9\x1B(B a", "森 a", 0),
        (b"\x1B$(Q30!#\x1B(B", "外。", 0),
        (b"x\x1B$(P!!\x1B(By", "x\u{FFFD}y", 1),
        // Rows 13 and 89-92 of plane 1 are JIS X 0213's, not NEC's or IBM's.
        (b"\x1B$(Q-!y!\x1B(B", "\u{FFFD}\u{FFFD}", 2),
    ] {
        let d = decode(bytes, Some(b"iso-2022-jp-2"), &opts);
        assert_eq!(d.text, text, "{bytes:?}");
        assert_eq!(d.replacements, errors, "{bytes:?}");
        let d = decode(bytes, Some(b"iso-2022-jp-2"), &DecodeOptions::default());
        assert_eq!(d.text, text, "{bytes:?}: {:?}", d.findings);
    }
}

fn python_decode(codec: &str, bytes: &[u8]) -> Option<String> {
    let code = format!(
        "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read().decode('{codec}').encode('utf-8'))"
    );
    common::python("python_oracle", &code, bytes).map(|o| String::from_utf8(o).expect("UTF-8"))
}

#[test]
fn latin1_is_windows_1252_with_c1_reported() {
    let d = decode(
        b"caf\xE9 \x80 \x93x\x94",
        Some(b"ISO-8859-1"),
        &DecodeOptions::default(),
    );
    assert_eq!(d.text, "caf\u{E9} \u{20AC} \u{201C}x\u{201D}");
    assert_eq!(d.used, Some(Charset::ISO_8859_1));
    assert_eq!(d.verdict, Verdict::Suspicious);
    let f = &d.findings[0];
    assert_eq!((f.kind, f.offset, f.count), (FindingKind::C1InLatin1, 5, 3));
    let clean = decode(b"caf\xE9", Some(b"latin1"), &DecodeOptions::default());
    assert_eq!(clean.verdict, Verdict::Ok);
    assert_eq!(clean.text, "caf\u{E9}");
}

#[test]
fn eight_bit_under_us_ascii_or_no_label() {
    let utf8 = "na\u{EF}ve caf\u{E9}".as_bytes();
    for label in [Some(&b"us-ascii"[..]), None] {
        let d = decode(utf8, label, &DecodeOptions::default());
        assert_eq!(d.text, "na\u{EF}ve caf\u{E9}");
        assert!(matches!(d.text, Cow::Borrowed(_)));
        assert_eq!(d.used, Some(Charset::UTF_8));
        // us-ascii cannot hold 8-bit octets: that label is wrong; no label
        // at all is merely suspicious.
        let want = if label.is_some() {
            Verdict::Mislabeled
        } else {
            Verdict::Suspicious
        };
        assert_eq!(d.verdict, want);
        let f = &d.findings[0];
        assert_eq!(
            (f.kind, f.offset, f.count),
            (FindingKind::EightBitInAscii, 2, 4)
        );
        assert_eq!(
            kinds(&d).contains(&FindingKind::MissingLabel),
            label.is_none()
        );
        assert_eq!(d.detected.map(|x| x.charset), Some(Charset::UTF_8));
    }
    // Not UTF-8: detection decides, and says so.
    let latin =
        "Der Fu\u{DF}g\u{E4}nger\u{FC}berweg ist gr\u{FC}n und sch\u{F6}n, \u{E4}u\u{DF}erst."
            .chars()
            .map(|c| c as u32 as u8)
            .collect::<Vec<u8>>();
    let d = decode(&latin, None, &DecodeOptions::default());
    let det = d.detected.unwrap();
    assert_eq!(det.charset, Charset::WINDOWS_1252);
    assert!(det.confidence > 0.5 && det.confidence <= 1.0);
    assert_eq!(d.used, Some(Charset::WINDOWS_1252));
    assert!(d.text.contains("Fu\u{DF}g\u{E4}nger"));
    assert_eq!(d.replacements, 0);
    // Pure ASCII without a label: fine, borrowed.
    let d = decode(b"hello", None, &DecodeOptions::default());
    assert_eq!(d.verdict, Verdict::Ok);
    assert!(matches!(d.text, Cow::Borrowed("hello")));
}

#[test]
fn unknown_and_dont_know_labels() {
    let d = decode(b"hi", Some(b"x-no-such-charset"), &DecodeOptions::default());
    assert_eq!(d.verdict, Verdict::UnknownLabel);
    assert_eq!(d.resolution.status, LabelStatus::Unknown);
    assert_eq!(kinds(&d), vec![FindingKind::UnknownLabel]);
    // 8-bit under an unknown label: decoded anyway (UTF-8 here), still unknown-label.
    let d = decode(
        "\u{E9}".as_bytes(),
        Some(b"x-no-such-charset"),
        &DecodeOptions::default(),
    );
    assert_eq!(d.text, "\u{E9}");
    assert_eq!(d.verdict, Verdict::UnknownLabel);
    assert_eq!(kinds(&d), vec![FindingKind::UnknownLabel]);
    let d = decode(
        "\u{E9}t\u{E9}".as_bytes(),
        Some(b"unknown-8bit"),
        &DecodeOptions::default(),
    );
    // IANA's UNKNOWN-8BIT record has no preferred alias: its name is preferred.
    assert_eq!(d.resolution.status, LabelStatus::Preferred);
    assert_eq!(d.text, "\u{E9}t\u{E9}");
    assert_eq!(d.used, Some(Charset::UTF_8));
    assert!(d.detected.is_some());
    // Unsupported: explicit, never silent U+FFFD.
    let d = decode(b"abc", Some(b"iso-2022-cn"), &DecodeOptions::default());
    assert!(kinds(&d).contains(&FindingKind::UnsupportedCharset));
    assert!(d.findings[0].note.is_some());
    assert!(matches!(
        charset::encode("x", Charset::for_label(b"iso-2022-cn-ext").unwrap(), false),
        Err(EncodeError::Unsupported { .. })
    ));
    assert!(matches!(
        Charset::for_label(b"IBM037").unwrap().support(),
        Support::Unsupported(_)
    ));
}

#[test]
fn lying_label_is_mislabeled() {
    // windows-1252 bytes labelled UTF-8.
    let bytes =
        b"Caf\xE9 cr\xE8me br\xFBl\xE9e, \xE0 la carte, tr\xE8s tr\xE8s bon et tr\xE8s cher.";
    let d = decode(bytes, Some(b"utf-8"), &DecodeOptions::default());
    assert_eq!(d.verdict, Verdict::Mislabeled);
    assert!(d.text.starts_with("Caf\u{E9} cr\u{E8}me"));
    assert_eq!(d.replacements, 0);
    let det = d.detected.unwrap();
    assert_eq!(det.charset.decoder_name(), Some("windows-1252"));
    let f = d
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::Mislabeled)
        .unwrap();
    assert_eq!(f.offset, 3);
    // Without detection: invalid, replacements counted, first error offset.
    let d = decode(
        bytes,
        Some(b"utf-8"),
        &DecodeOptions {
            detect: false,
            ..Default::default()
        },
    );
    assert_eq!(d.verdict, Verdict::Invalid);
    assert_eq!(d.replacements, 8);
    assert_eq!(d.first_error().map(|f| f.offset), Some(3));
    let r = d
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::Replacement)
        .unwrap();
    assert_eq!(r.count, 8);
}

#[test]
fn borrowing() {
    let opts = DecodeOptions::default();
    assert!(matches!(
        decode(b"plain", Some(b"windows-1252"), &opts).text,
        Cow::Borrowed(_)
    ));
    assert!(matches!(
        decode(b"plain", Some(b"shift_jis"), &opts).text,
        Cow::Borrowed(_)
    ));
    assert!(matches!(
        decode("\u{E9}".as_bytes(), Some(b"utf-8"), &opts).text,
        Cow::Borrowed(_)
    ));
    assert!(matches!(
        charset::encode("abc", Charset::ISO_8859_1, true)
            .unwrap()
            .bytes,
        Cow::Borrowed(_)
    ));
}

#[test]
fn strict_and_lossy_encode() {
    let cs = Charset::for_label(b"iso-8859-2").unwrap();
    match charset::encode("ab\u{263A}c", cs, true) {
        Err(EncodeError::Unmappable { offset, ch, .. }) => {
            assert_eq!((offset, ch), (2, '\u{263A}'))
        }
        other => panic!("{other:?}"),
    }
    let e = charset::encode("ab\u{263A}c\u{263A}", cs, false).unwrap();
    assert_eq!(e.bytes.as_ref(), b"ab?c?");
    assert_eq!((e.replacements, e.first_replacement), (2, Some(2)));
    // Stateful: the replacement goes through the encoder (back to ASCII first).
    let jp = Charset::for_label(b"iso-2022-jp").unwrap();
    let e = charset::encode("\u{65E5}\u{263A}", jp, false).unwrap();
    let back = decode_as(&e.bytes, jp, &DecodeOptions::default());
    assert_eq!(back.text, "\u{65E5}?");
    assert_eq!(back.verdict, Verdict::Ok);
    // WHATWG look-alikes are not mappings: U+00A5 would come back as '\'.
    let sjis = Charset::for_label(b"shift_jis").unwrap();
    assert!(matches!(
        charset::encode("a\u{A5}", sjis, true),
        Err(EncodeError::Unmappable {
            offset: 1,
            ch: '\u{A5}',
            ..
        })
    ));
    let e = charset::encode("\u{65E5}\u{A5}", sjis, false).unwrap();
    assert_eq!((e.replacements, e.first_replacement), (1, Some(3)));
    assert_eq!(
        decode_as(&e.bytes, sjis, &DecodeOptions::default()).text,
        "\u{65E5}?"
    );
    // An unmappable character before a look-alike: offsets stay in the text.
    let e = charset::encode("\u{263A}\u{65E5}\u{A5}x", sjis, false).unwrap();
    assert_eq!((e.replacements, e.first_replacement), (2, Some(0)));
    let back = decode_as(&e.bytes, sjis, &DecodeOptions::default());
    assert_eq!(back.text, "?\u{65E5}?x");
    let e = charset::encode("\u{E9}", Charset::US_ASCII, false).unwrap();
    assert_eq!((e.bytes.as_ref(), e.replacements), (&b"?"[..], 1));
}

#[test]
fn legacy_errors_have_offsets() {
    // Shift_JIS: 0x82 followed by an invalid trail.
    let d = decode_as(
        b"ok\x82\x20ok\xA0",
        Charset::for_label(b"shift_jis").unwrap(),
        &DecodeOptions {
            detect: false,
            ..Default::default()
        },
    );
    assert!(d.replacements >= 1);
    assert_eq!(d.first_error().map(|f| f.offset), Some(2));
    // UTF-32 out of range and truncated tail.
    let d = decode(
        &[0, 0, 0, 0x41, 0, 0x11, 0, 0, 0, 0],
        Some(b"utf-32be"),
        &DecodeOptions::default(),
    );
    assert_eq!(d.text, "A\u{FFFD}\u{FFFD}");
    assert_eq!(
        d.first_error().map(|f| (f.kind, f.offset)),
        Some((FindingKind::OutOfRange, 4))
    );
}

#[test]
fn seven_bit_cjk_errors_and_unmappable() {
    let opts = DecodeOptions {
        detect: false,
        ..Default::default()
    };
    // HZ: a bad escape and a run cut short.
    let d = decode(b"a~xb~{\x30", Some(b"hz-gb-2312"), &opts);
    assert_eq!(d.replacements, 2);
    assert_eq!(d.first_error().map(|f| f.offset), Some(1));
    // ISO-2022-KR: 8-bit octets are errors.
    let d = decode(b"\x1B$)Cab\xB0\xA1", Some(b"iso-2022-kr"), &opts);
    assert_eq!(
        d.first_error().map(|f| (f.kind, f.offset)),
        Some((FindingKind::InvalidByte, 6))
    );
    // ISO-2022-KR whose SO was lost: the Korean reads as ASCII letters
    // (Python's codec reads it so too, and nothing says where the run
    // began, so nothing is replaced), but the SI without an SO is reported
    // at its offset and the part is not called clean.
    let text = "\u{C548}\u{B155}\u{D558}\u{C138}\u{C694} hello\n\u{AC10}\u{C0AC}\n";
    if let Some(bytes) = python_encode("iso2022_kr", text) {
        let so = bytes.iter().position(|&b| b == 0x0E).unwrap();
        let si = bytes.iter().position(|&b| b == 0x0F).unwrap();
        let mut lost = bytes.clone();
        lost.remove(so);
        let d = decode(&lost, Some(b"iso-2022-kr"), &opts);
        let oracle = common::python(
            "iso2022kr_lost_so",
            "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read().decode('iso2022_kr').encode())",
            &lost,
        )
        .unwrap();
        assert_eq!(d.text.as_bytes(), &oracle[..]);
        assert_eq!(d.replacements, 0);
        assert_eq!(
            d.first_error().map(|f| (f.kind, f.offset, f.count)),
            Some((FindingKind::InvalidByte, si - 1, 1))
        );
        assert_eq!(d.verdict, Verdict::Suspicious);
        // Whole, the same text is clean.
        assert_eq!(
            decode(&bytes, Some(b"iso-2022-kr"), &opts).verdict,
            Verdict::Ok
        );
    }
    // Outside KS X 1001 (a windows-949 extension syllable): unmappable.
    let kr = Charset::for_label(b"iso-2022-kr").unwrap();
    assert!(matches!(
        charset::encode("a\u{AC02}", kr, true),
        Err(EncodeError::Unmappable { offset: 1, .. })
    ));
}

#[test]
fn utf16_bom_decides() {
    let be = [0xFE, 0xFF, 0, b'h', 0, b'i'];
    let le = [0xFF, 0xFE, b'h', 0, b'i', 0];
    for b in [&be[..], &le[..]] {
        let d = decode(b, Some(b"utf-16"), &DecodeOptions::default());
        assert_eq!(d.text, "hi");
    }
    let d = decode(&be, Some(b"utf-16"), &DecodeOptions::default());
    assert_eq!(d.used, Some(Charset::UTF_16BE));
}

/// UTF-16 without a byte order mark: text with white space or line ends,
/// and short words that stay in one script, read right in both byte
/// orders; what gives no sign either way is read little-endian (WHATWG,
/// Windows), which is what such text almost always is.
#[test]
fn utf16_without_bom_reads_in_either_byte_order() {
    let encode = |text: &str, be: bool| -> Vec<u8> {
        text.encode_utf16()
            .flat_map(|u| if be { u.to_be_bytes() } else { u.to_le_bytes() })
            .collect()
    };
    let check = |text: &str, be: bool| {
        let bytes = encode(text, be);
        let d = decode(&bytes, Some(b"utf-16"), &DecodeOptions::default());
        assert!(d.text == text, "be={be}: {:.60}", d.text);
        let used = if be {
            Charset::UTF_16BE
        } else {
            Charset::UTF_16LE
        };
        assert_eq!(d.used, Some(used), "{text}");
    };
    for text in [
        "Hello, world.\r\nPlain Latin text\r\n",
        "Gr\u{fc}\u{df}e aus K\u{f6}ln",
        "\u{41f}\u{440}\u{438}\u{432}\u{435}\u{442}, \u{43c}\u{438}\u{440}",
        "\u{39a}\u{3b1}\u{3bb}\u{3b7}\u{3bc}\u{3ad}\u{3c1}\u{3b1}",
        "\u{4e2d}\u{6587}\u{6d4b}\u{8bd5}\u{3002}\r\n\u{6f22}\u{5b57}\r\n",
        "\u{d55c}\u{ad6d}\u{c5b4} \u{d14c}\u{c2a4}\u{d2b8}",
        "\u{3053}\u{3093}\u{306b}\u{3061}\u{306f}\u{4e16}\u{754c}",
        "\u{645}\u{631}\u{62d}\u{628}\u{627} \u{628}\u{627}\u{644}\u{639}\u{627}\u{644}\u{645}",
        "\u{e2a}\u{e27}\u{e31}\u{e2a}\u{e14}\u{e35}",
        "smile \u{1F600} and \u{2605}\u{2605}\r\n",
        "Total\r\n\u{2500}\u{2500}\u{2500}\u{2500}\u{2500}\u{2500}\u{2500}\u{2500}\u{2500}\u{2500}\r\n",
        "\u{d8}resund \u{d9}",
        "\u{d8}\u{d9}\u{da}",
    ] {
        check(text, true);
        check(text, false);
    }
    // Longer than the 64 KiB looked at, cut inside a surrogate pair: the
    // cut is not taken for an unpaired surrogate.
    let long = format!("x{}", "\u{1F600} ".repeat(11000));
    assert_eq!(long.encode_utf16().nth(32767), Some(0xD83D));
    check(&long, true);
    check(&long, false);
    // No sign either way: little-endian.
    for text in [
        "\u{2605}\u{2605}\u{2605}\u{2605}\u{2605}",
        "\u{1F600}\u{1F600}",
        "\u{2460}\u{2461}\u{2462}",
        "\u{2192}",
        "\u{260e} \u{260e} \u{260e}",
        "\u{1c5}\u{1c6}",
        "\u{4e2d}\u{6587}",
        "",
    ] {
        check(text, false);
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Never panics, on any bytes under any label; the verdict agrees
        /// with the replacement count and the findings; lossy encoding of
        /// the result never fails for a supported charset.
        #[test]
        fn decode_any_bytes_any_label(
            bytes in proptest::collection::vec(any::<u8>(), 0..200),
            i in 0usize..10_000,
            detect in any::<bool>(),
        ) {
            let labels: Vec<_> = charset::labels().collect();
            let (label, cs, _) = labels[i % labels.len()];
            let d = decode(&bytes, Some(label.as_bytes()), &DecodeOptions { detect, ..Default::default() });
            prop_assert_eq!(d.verdict == Verdict::Invalid, d.replacements > 0);
            prop_assert_eq!(d.text.matches('\u{FFFD}').count() >= d.replacements, true);
            prop_assert_eq!(d.first_error().is_some(), d.replacements > 0);
            for f in &d.findings {
                prop_assert!(f.offset <= bytes.len());
            }
            if cs.is_supported() {
                prop_assert!(charset::encode(&d.text, cs, false).is_ok());
            }
        }

        /// Text a charset can represent survives encode → decode.
        #[test]
        fn encode_then_decode(s in "\\PC{0,40}", i in 0usize..10_000) {
            let labels: Vec<_> = charset::labels().collect();
            let (label, cs, _) = labels[i % labels.len()];
            if let Ok(e) = charset::encode(&s, cs, true) {
                let d = decode_as(&e.bytes, cs, &DecodeOptions { detect: false, ..Default::default() });
                prop_assert_eq!(&d.text, &s, "{}", label);
            }
        }
    }
}

/// Regression (found by the normalizer over fixtures/messages): detection
/// read CESU-8 under a UTF-8 label as GBK and an overlong NUL as
/// windows-1252, hiding the security findings.
#[test]
fn regression_detection_does_not_explain_away_utf8_writer_forms() {
    let opts = DecodeOptions::default();
    let cases: [(&[u8], FindingKind); 4] = [
        (
            b"Party \xed\xa0\xbc\xed\xbe\x89 time \xed\xa0\xbd\xed\xb8\x80\n",
            FindingKind::SurrogatePair,
        ),
        (b"before\xc0\x80after", FindingKind::Overlong),
        (b"..\xc0\xae\xc0\xae/etc/passwd", FindingKind::Overlong),
        (b"x\xf8\x88\x80\x80\x80y", FindingKind::LegacyForm),
    ];
    for (bytes, kind) in cases {
        let d = charset::decode(bytes, Some(b"utf-8"), &opts);
        assert_eq!(d.verdict, Verdict::Invalid, "{bytes:?}");
        assert!(d.detected.is_none(), "{bytes:?}");
        assert!(
            d.findings.iter().any(|f| f.kind == kind),
            "{bytes:?}: {:?}",
            d.findings
        );
        // What the overlong forms spell never reaches the text.
        assert!(
            !d.text.contains('\0') && !d.text.contains("..."),
            "{:?}",
            d.text
        );
    }
    // Stray legacy octets under a UTF-8 label are still detected.
    let (cp1252, _, _) = encoding_rs::WINDOWS_1252.encode(
        "caf\u{e9} cr\u{e8}me br\u{fb}l\u{e9}e d\u{e9}j\u{e0} vu, tr\u{e8}s \u{e9}l\u{e9}gant",
    );
    let d = charset::decode(&cp1252, Some(b"utf-8"), &opts);
    assert_eq!(d.verdict, Verdict::Mislabeled);
    assert_eq!(d.detected.map(|x| x.charset.name()), Some("windows-1252"));
}

/// Regression (found by `props::decode_any_bytes_any_label` in CI): under
/// UNICODE-1-1-UTF-8 the "did not exist in Unicode 1.1" finding gave the
/// character's offset in the decoded text, which U+FFFD (three octets for
/// one damaged octet) pushes past the input's end.
#[test]
fn regression_unicode11_finding_offset_is_into_the_input() {
    let mut bytes = vec![0u8; 18];
    bytes.extend_from_slice(b"\x80\x80\x80\xdc\x80\0\0\0");
    let d = charset::decode(
        &bytes,
        Some(b"csUnicode11UTF8"),
        &DecodeOptions {
            detect: false,
            ..Default::default()
        },
    );
    let f = d
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::Mislabeled)
        .expect("U+0700 is after Unicode 1.1");
    assert_eq!(f.offset, 21, "{:?}", d.findings);
    assert_eq!(&bytes[f.offset..f.offset + 2], b"\xdc\x80");
}
