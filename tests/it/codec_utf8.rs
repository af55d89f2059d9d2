//! Strict and lossy UTF-8 (`codec::utf8`) against std, encoding_rs, Python
//! and the tables of the Unicode Standard and RFC 2279/3629.

use crate::common;

use mailcharset::codec::ErrorKind;
use mailcharset::codec::utf8::{self, DecodeReport, Utf8Decoder};
use proptest::prelude::*;
use std::borrow::Cow;

/// Everything `validate`, `decode_lossy` and the streaming decoder promise
/// about `input`, checked against std and encoding_rs.
fn check(input: &[u8]) {
    let std = std::str::from_utf8(input);
    let ours = utf8::validate(input);
    match (&ours, &std) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(a), Err(b)) => {
            assert_eq!(a.valid_up_to(), b.valid_up_to(), "valid_up_to {input:02X?}");
            assert_eq!(a.error_len(), b.error_len(), "error_len {input:02X?}");
        }
        _ => panic!("validity differs from std on {input:02X?}: {ours:?} vs {std:?}"),
    }

    let (lossy, report) = utf8::decode_lossy_with_report(input);
    let std_lossy = String::from_utf8_lossy(input);
    let (er, er_had_errors) = encoding_rs::UTF_8.decode_without_bom_handling(input);
    assert_eq!(lossy, std_lossy, "vs std lossy on {input:02X?}");
    assert_eq!(lossy, er, "vs encoding_rs on {input:02X?}");
    assert_eq!(er_had_errors, !report.is_clean());
    assert_eq!(matches!(lossy, Cow::Borrowed(_)), std.is_ok());
    assert_eq!(utf8::decode_lossy(input), lossy);

    // One replacement per maximal subpart (std's chunks are exactly those).
    let subparts = input
        .utf8_chunks()
        .filter(|c| !c.invalid().is_empty())
        .count();
    assert_eq!(report.replacements, subparts, "replacements {input:02X?}");

    // The report starts with the strict error.
    match &ours {
        Ok(_) => assert!(report.is_clean() && report.replacements == 0),
        Err(e) => {
            let first = report.errors.iter().min_by_key(|r| r.1).map(|r| (r.0, r.1));
            assert_eq!(first, Some((e.kind(), e.valid_up_to())), "{input:02X?}");
            assert_eq!(report.errors.first().map(|r| r.1), Some(e.valid_up_to()));
        }
    }
    let counted: usize = report.errors.iter().map(|r| r.2).sum();
    assert!(counted <= report.replacements);
}

/// The streaming decoder, fed `input` in pieces cut at `cuts`, gives the
/// one-shot text and report.
fn check_split(input: &[u8], cuts: &[usize]) {
    let (text, report) = utf8::decode_lossy_with_report(input);
    let mut dec = Utf8Decoder::new();
    let mut out = String::new();
    let mut start = 0;
    let mut cuts: Vec<usize> = cuts.iter().map(|&c| c.min(input.len())).collect();
    cuts.sort_unstable();
    for &cut in cuts.iter().chain(std::iter::once(&input.len())) {
        let piece = &input[start..cut];
        let last = cut == input.len();
        let (read, written) = dec.decode(piece, &mut out, last);
        assert_eq!(read, piece.len());
        assert!(written <= Utf8Decoder::max_utf8_len(piece.len()).unwrap_or(usize::MAX));
        start = cut;
        if last {
            break;
        }
    }
    assert_eq!(out, text, "split {cuts:?} of {input:02X?}");
    assert_eq!(
        dec.report(),
        &report,
        "report split {cuts:?} of {input:02X?}"
    );
}

/// Runs `check` behind 0..32 bytes of ASCII padding (SIMD block boundaries).
fn check_padded(input: &[u8]) {
    let mut buf = Vec::with_capacity(input.len() + 32);
    for pad in 0..32 {
        buf.clear();
        buf.resize(pad, b'a');
        buf.extend_from_slice(input);
        check(&buf);
    }
}

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|h| u8::from_str_radix(h, 16).expect("test hex"))
        .collect()
}

fn fffd(n: usize) -> String {
    "\u{FFFD}".repeat(n)
}

/// Unicode 16.0 ch. 3, Tables 3-8 to 3-11 ("U+FFFD Substitution of Maximal
/// Subparts"), with the kind our strict validator gives the first error.
#[test]
fn unicode_tables_3_8_to_3_11() {
    let tables: [(&str, String, ErrorKind); 5] = [
        // Table 3-8: non-shortest forms
        (
            "C0 AF E0 80 BF F0 81 82 41",
            fffd(8) + "A",
            ErrorKind::Overlong,
        ),
        // Table 3-9: surrogates
        (
            "ED A0 80 ED BF BF ED AF 41",
            fffd(8) + "A",
            ErrorKind::SurrogatePair,
        ),
        // Table 3-10: other ill-formed sequences
        (
            "F4 91 92 93 FF 41 80 BF 42",
            fffd(5) + "A" + &fffd(2) + "B",
            ErrorKind::OutOfRange,
        ),
        // Table 3-11: truncated sequences
        (
            "E1 80 E2 F0 91 92 F1 BF 41",
            fffd(4) + "A",
            ErrorKind::Truncated,
        ),
        // The worked example under Table 3-7 (the "U+FFFD" section).
        (
            "61 F1 80 80 E1 80 C2 62 80 63 80 BF 64",
            format!("a{}b{}c{}d", fffd(3), fffd(1), fffd(2)),
            ErrorKind::Truncated,
        ),
    ];
    for (bytes, want, kind) in tables {
        let input = hex(bytes);
        assert_eq!(utf8::decode_lossy(&input), want, "{bytes}");
        assert_eq!(
            utf8::validate(&input).map_err(|e| e.kind()),
            Err(kind),
            "{bytes}"
        );
        check_padded(&input);
        for cut in 0..=input.len() {
            check_split(&input, &[cut]);
        }
    }
}

/// RFC 2279 §4 / RFC 3629 §7 examples decode to the characters they spell.
#[test]
fn rfc_examples() {
    for (bytes, text) in [
        ("41 E2 89 A2 CE 91 2E", "A\u{2262}\u{391}."),
        ("ED 95 9C EA B5 AD EC 96 B4", "\u{D55C}\u{AD6D}\u{C5B4}"),
        ("E6 97 A5 E6 9C AC E8 AA 9E", "\u{65E5}\u{672C}\u{8A9E}"),
        ("EF BB BF F0 A3 8E B4", "\u{FEFF}\u{233B4}"),
    ] {
        let input = hex(bytes);
        assert_eq!(utf8::validate(&input), Ok(text), "{bytes}");
        assert!(matches!(utf8::decode_lossy(&input), Cow::Borrowed(t) if t == text));
    }
}

/// RFC 2279 §6 / RFC 3629 §10: overlong NUL and "/../" are rejected and
/// named, and lossy output never contains the character an overlong spells.
#[test]
fn security_overlongs() {
    let nul = hex("C0 80");
    let e = utf8::validate(&nul).unwrap_err();
    assert_eq!((e.valid_up_to(), e.kind()), (0, ErrorKind::Overlong));
    assert!(!utf8::decode_lossy(&nul).contains('\0'));

    let dotdot = hex("2F C0 AE 2E 2F");
    let e = utf8::validate(&dotdot).unwrap_err();
    assert_eq!(
        (e.valid_up_to(), e.error_len(), e.kind()),
        (1, Some(1), ErrorKind::Overlong)
    );
    let lossy = utf8::decode_lossy(&dotdot);
    assert!(!lossy.contains("/../"), "{lossy}");
    let (_, report) = utf8::decode_lossy_with_report(&dotdot);
    assert_eq!(report.errors, vec![(ErrorKind::Overlong, 1, 1)]);
    assert_eq!(report.replacements, 2);

    // Every overlong form (2, 3, 4, 5 and 6 octets) of every ASCII character.
    for c in 0u8..0x80 {
        let v = u32::from(c);
        let forms = [
            vec![0xC0 | (c >> 6), 0x80 | (c & 0x3F)],
            vec![0xE0, 0x80 | (c >> 6), 0x80 | (c & 0x3F)],
            vec![0xF0, 0x80, 0x80 | (c >> 6), 0x80 | (c & 0x3F)],
            vec![0xF8, 0x80, 0x80, 0x80 | (c >> 6), 0x80 | (c & 0x3F)],
            vec![0xFC, 0x80, 0x80, 0x80, 0x80 | (c >> 6), 0x80 | (c & 0x3F)],
        ];
        for form in forms {
            let e = utf8::validate(&form).unwrap_err();
            assert_eq!(
                (e.valid_up_to(), e.kind()),
                (0, ErrorKind::Overlong),
                "{form:02X?}"
            );
            let lossy = utf8::decode_lossy(&form);
            assert!(
                lossy.chars().all(|ch| ch == '\u{FFFD}'),
                "{form:02X?} gave {v}"
            );
            let (_, report) = utf8::decode_lossy_with_report(&form);
            assert_eq!(
                report.errors,
                vec![(ErrorKind::Overlong, 0, 1)],
                "{form:02X?}"
            );
            assert_eq!(report.replacements, form.len());
        }
    }
}

/// The kind of each class of ill-formed sequence (doc/architecture.md names); offsets
/// and lengths come from std.
#[test]
fn kinds() {
    use ErrorKind::*;
    let cases: &[(&str, ErrorKind)] = &[
        ("80", UnexpectedContinuation),
        ("BF 41", UnexpectedContinuation),
        ("C0 80", Overlong),
        ("C1 BF", Overlong),
        ("C0", InvalidByte),
        ("C0 41", InvalidByte),
        ("E0 9F BF", Overlong),
        ("F0 8F BF BF", Overlong),
        ("ED A0 80", Surrogate),
        ("ED BF BF", Surrogate),
        ("ED A0 80 41 ED B0 80", Surrogate),
        ("ED A0 BD ED B8 80", SurrogatePair),
        ("ED B0 80 ED A0 80", Surrogate),
        ("F4 90 80 80", OutOfRange),
        ("F5 80 80 80", OutOfRange),
        ("F7 BF BF BF", OutOfRange),
        ("F5", InvalidByte),
        ("F8 88 80 80 80", LegacyForm),
        ("FB BF BF BF BF", LegacyForm),
        ("FD BF BF BF BF BF", LegacyForm),
        ("FC 84 80 80 80 80", LegacyForm),
        ("F8 87 BF BF BF", Overlong),
        ("FC 83 BF BF BF BF", Overlong),
        ("FE 82 80 80 80 80 80", ExtendedForm),
        ("FE 81 BF BF BF BF BF", Overlong),
        ("FF 80 80 80 80 80 81 80 80 80 80 80 80", ExtendedForm),
        ("FF 80 80 80 80 80 80 BF BF BF BF BF BF", Overlong),
        ("FF 80 87 BF BF BF BF BF BF BF BF BF BF", ExtendedForm),
        ("FE", InvalidByte),
        ("FF 41", InvalidByte),
        ("C3", Truncated),
        ("C3 41", Truncated),
        ("E2 82", Truncated),
        ("F0 9F 98", Truncated),
        ("F0 9F 98 41", Truncated),
        ("E0 A0", Truncated),
    ];
    for &(bytes, kind) in cases {
        let input = hex(bytes);
        let e = utf8::validate(&input).unwrap_err();
        assert_eq!(e.kind(), kind, "{bytes}");
        assert_eq!(e.valid_up_to(), 0, "{bytes}");
        let (_, report) = utf8::decode_lossy_with_report(&input);
        assert_eq!(
            report.errors.first().map(|r| (r.0, r.1)),
            Some((kind, 0)),
            "{bytes}"
        );
        for cut in 0..=input.len() {
            check_split(&input, &[cut]);
        }
        check_padded(&input);
    }
    // A whole announced sequence is one occurrence, each octet one U+FFFD.
    let (_, report) = utf8::decode_lossy_with_report(&hex("FD BF BF BF BF BF 80"));
    assert_eq!(
        report,
        DecodeReport {
            errors: vec![(LegacyForm, 0, 1), (UnexpectedContinuation, 6, 1)],
            replacements: 7
        }
    );
}

/// Every scalar value round-trips through validate and decode_lossy, alone
/// and in one string.
#[test]
fn all_scalar_values_round_trip() {
    let mut all = String::new();
    let mut buf = [0u8; 4];
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        let s = c.encode_utf8(&mut buf);
        assert_eq!(utf8::validate(s.as_bytes()), Ok(&*s));
        all.push(c);
    }
    assert_eq!(utf8::validate(all.as_bytes()), Ok(all.as_str()));
    assert!(matches!(utf8::decode_lossy(all.as_bytes()), Cow::Borrowed(t) if t == all));
    // and every surrogate is named
    for v in 0xD800..=0xDFFFu32 {
        let b = [
            0xE0 | (v >> 12) as u8,
            0x80 | ((v >> 6) & 0x3F) as u8,
            0x80 | (v & 0x3F) as u8,
        ];
        assert_eq!(utf8::validate(&b).unwrap_err().kind(), ErrorKind::Surrogate);
    }
}

/// A file of the corpus, or its copy in fixtures/vectors (which a fresh
/// clone has).
fn corpus(name: &str) -> Option<Vec<u8>> {
    let vendored = common::fixtures().join("vectors").join(name);
    if vendored.is_file() {
        return Some(std::fs::read(vendored).expect("vendored vector"));
    }
    common::corpus_bytes("codec_utf8", name)
}

/// Markus Kuhn's UTF-8 decoder stress test: lossy output equals
/// encoding_rs's, and any split gives the same result.
#[test]
fn kuhn_utf8_test() {
    let Some(bytes) = corpus("kuhn-utf8/UTF-8-test.txt") else {
        return;
    };
    let (er, had_errors) = encoding_rs::UTF_8.decode_without_bom_handling(&bytes);
    assert!(had_errors, "the stress test is meant to be broken");
    let (ours, report) = utf8::decode_lossy_with_report(&bytes);
    assert_eq!(ours, er);
    for kind in [
        ErrorKind::Overlong,
        ErrorKind::Surrogate,
        ErrorKind::SurrogatePair,
        ErrorKind::LegacyForm,
        ErrorKind::Truncated,
        ErrorKind::UnexpectedContinuation,
        ErrorKind::InvalidByte,
    ] {
        assert!(
            report.errors.iter().any(|e| e.0 == kind),
            "no {kind} in Kuhn's file"
        );
    }
    check(&bytes);
    for piece in [1, 2, 3, 5, 7, 13, 64, 1000] {
        let cuts: Vec<usize> = (piece..bytes.len()).step_by(piece).collect();
        check_split(&bytes, &cuts);
    }
    if let Some(demo) = corpus("kuhn-utf8/UTF-8-demo.txt") {
        assert!(matches!(utf8::decode_lossy(&demo), Cow::Borrowed(_)));
        check(&demo);
    }
}

/// Python's `errors="replace"` decoder (the external oracle).
#[test]
fn python_replace_agrees() {
    let mut inputs: Vec<Vec<u8>> = vec![
        hex("C0 AF E0 80 BF F0 81 82 41"),
        hex("ED A0 80 ED BF BF ED AF 41"),
        hex("F4 91 92 93 FF 41 80 BF 42"),
        hex("E1 80 E2 F0 91 92 F1 BF 41"),
        hex("FE 82 80 80 80 80 80 FF FD BF BF BF BF BF"),
    ];
    if let Some(b) = corpus("kuhn-utf8/UTF-8-test.txt") {
        inputs.extend(b.split(|&c| c == b'\n').map(<[u8]>::to_vec));
    }
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..300 {
        let len = (seed % 40) as usize;
        let v = (0..len)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                [0x41, 0x80, 0xBF, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xF8, 0xFF][(seed % 10) as usize]
                    ^ ((seed >> 8) as u8 & 0x0F)
            })
            .collect();
        inputs.push(v);
    }
    let script = "import sys\nfor l in sys.stdin:\n    b = bytes.fromhex(l.strip())\n    print(b.decode('utf-8', 'replace').encode('utf-8').hex())\n";
    let stdin: String = inputs.iter().map(|i| format!("{}\n", to_hex(i))).collect();
    let Some(out) = run_oracle("python3", &["-c", script], &stdin) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), inputs.len());
    for (input, line) in inputs.iter().zip(lines) {
        assert_eq!(
            to_hex(utf8::decode_lossy(input).as_bytes()),
            line,
            "{input:02X?}"
        );
    }
}

fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Runs an external oracle (see `common::oracle`: one that dies fails
/// the test; one that is not installed is a recorded skip).
fn run_oracle(cmd: &str, args: &[&str], stdin: &str) -> Option<String> {
    common::oracle("codec_utf8", cmd, args, stdin.as_bytes())
        .map(|o| String::from_utf8(o).expect("the oracle writes text"))
}

/// Byte strings built from pieces that matter to UTF-8 decoders.
fn structured() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        any::<char>().prop_map(|c| c.to_string().into_bytes()),
        Just(b"a".to_vec()),
        (0x80u8..=0xBF).prop_map(|b| vec![b]),
        (0xC0u8..=0xFF).prop_map(|b| vec![b]),
        (0xC0u8..=0xFF, 0x80u8..=0xBF).prop_map(|(a, b)| vec![a, b]),
        (0xE0u8..=0xF4, 0x80u8..=0xBF, 0x80u8..=0xBF).prop_map(|(a, b, c)| vec![a, b, c]),
        Just(vec![0xED, 0xA0, 0x80, 0xED, 0xB0, 0x80]),
        Just(vec![0xFE, 0x82, 0x80, 0x80, 0x80, 0x80, 0x80]),
        Just(vec![0xFF, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80]),
        (
            0xF8u8..=0xFD,
            proptest::collection::vec(0x80u8..=0xBF, 0..6)
        )
            .prop_map(|(a, mut t)| {
                t.insert(0, a);
                t
            }),
    ];
    proptest::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bytes(input in proptest::collection::vec(any::<u8>(), 0..200)) {
        check_padded(&input);
    }

    #[test]
    fn structured_bytes(input in structured()) {
        check_padded(&input);
    }

    #[test]
    fn streaming_any_split(input in structured(), cuts in proptest::collection::vec(0usize..200, 0..6)) {
        check_split(&input, &cuts);
    }

    #[test]
    fn long_text_with_errors(text in "\\PC{100,400}", errors in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..5)) {
        let mut bytes = text.into_bytes();
        for (at, b) in errors {
            let n = bytes.len();
            if n > 0 {
                bytes[at % n] = b;
            }
        }
        check(&bytes);
        check_split(&bytes, &[bytes.len() / 3, bytes.len() / 2]);
    }
}

proptest! {
    /// CESU-8 of any text repairs to the text when it has a supplementary
    /// character, and is left alone (None) when it has none (then it is
    /// plain UTF-8).
    #[test]
    // Any characters, private use of planes 15 and 16 included (`\PC`
    // left them out, and with them every high surrogate `ED AF xx`: a
    // repair that missed that row passed).
    fn cesu8_repairs_to_the_text(s in proptest::collection::vec(any::<char>(), 0..40).prop_map(|v| v.into_iter().collect::<String>())) {
        let bytes = common::cesu8(&s);
        let repaired = utf8::repair_cesu8(&bytes);
        if s.chars().any(|c| c > '\u{FFFF}') {
            prop_assert_eq!(repaired.as_deref(), Some(s.as_str()));
            // And the strict decoder calls every pair what it is.
            let (_, report) = utf8::decode_lossy_with_report(&bytes);
            prop_assert!(report.errors.iter().all(|e| e.0 == ErrorKind::SurrogatePair), "{:?}", report);
        } else {
            prop_assert_eq!(repaired, None);
            prop_assert_eq!(std::str::from_utf8(&bytes).ok(), Some(s.as_str()));
        }
    }
}

#[test]
fn cesu8_repair_refuses_other_damage() {
    let pair = common::cesu8("\u{1F600}");
    assert_eq!(pair.len(), 6);
    let with = |pre: &[u8], post: &[u8]| [pre, &pair, post].concat();
    assert_eq!(
        utf8::repair_cesu8(&with(b"a", b"b")).as_deref(),
        Some("a\u{1F600}b")
    );
    for bad in [
        with(b"\xED\xA0\x80", b""),        // a lone high surrogate too
        with(b"", b"\xED\xB0\x80"),        // a lone low surrogate
        with(b"\xC0\xAF", b""),            // an overlong '/'
        with(b"", b"\xFF"),                // an octet never in UTF-8
        pair[..5].to_vec(),                // a pair cut short
        [&pair[3..], &pair[..3]].concat(), // low before high
    ] {
        assert_eq!(utf8::repair_cesu8(&bad), None, "{bad:02X?}");
    }
}

/// Every one of the 1,024 high surrogates, with a low one, repairs from
/// CESU-8: the rows `ED A0..AF` each.
#[test]
fn cesu8_repairs_every_high_surrogate() {
    for hi in 0..1024u32 {
        let c = char::from_u32(0x10000 + (hi << 10) + 0x123).expect("supplementary");
        let s = format!("a{c}b");
        let bytes = common::cesu8(&s);
        assert_eq!(
            utf8::repair_cesu8(&bytes).as_deref(),
            Some(s.as_str()),
            "U+{:X}",
            u32::from(c)
        );
    }
}
