//! RFC 2279 legacy UTF-8 (`codec::legacy`) and UTF-E-8 (`codec::extended`):
//! the draft's examples, Perl as an oracle, round trips, shortest form.

use crate::common;
use mailcharset::codec::ErrorKind;
use mailcharset::codec::legacy::{self, UcsOptions};
use mailcharset::codec::{extended, utf8};
use proptest::prelude::*;

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|h| u8::from_str_radix(h, 16).expect("test hex"))
        .collect()
}

const OPTS: UcsOptions = UcsOptions {
    allow_surrogate_pairs: false,
};

/// The examples of the UTF-E-8 draft (and the issue), both directions.
#[test]
fn utf_e_8_draft_examples() {
    for (value, bytes) in [
        (0x8000_0000u64, "FE 82 80 80 80 80 80"),
        (0xF_FFFF_FFFF, "FE BF BF BF BF BF BF"),
        (0x10_0000_0000, "FF 80 80 80 80 80 81 80 80 80 80 80 80"),
        (
            0x7FFF_FFFF_FFFF_FFFF,
            "FF 80 87 BF BF BF BF BF BF BF BF BF BF",
        ),
        (0x7FFF_FFFF, "FD BF BF BF BF BF"),
    ] {
        let b = hex(bytes);
        assert_eq!(extended::encode(&[value]), Ok(b.clone()), "{value:#X}");
        assert_eq!(extended::decode(&b, &OPTS), Ok(vec![value]), "{bytes}");
    }
    assert!(extended::encode(&[extended::MAX + 1]).is_err());
    assert!(legacy::encode(&[legacy::MAX + 1]).is_err());
}

/// RFC 2279 §2 table boundaries: each length's first and last value, and
/// agreement with std below U+10FFFF.
#[test]
fn legacy_boundaries() {
    let bounds = [
        (0x7Fu32, 1),
        (0x80, 2),
        (0x7FF, 2),
        (0x800, 3),
        (0xFFFF, 3),
        (0x1_0000, 4),
        (0x1F_FFFF, 4),
        (0x20_0000, 5),
        (0x3FF_FFFF, 5),
        (0x400_0000, 6),
        (0x7FFF_FFFF, 6),
    ];
    for (v, len) in bounds {
        let b = legacy::encode(&[v]).unwrap();
        assert_eq!(b.len(), len, "{v:#X}");
        assert_eq!(legacy::decode(&b, &OPTS), Ok(vec![v]));
        assert_eq!(extended::decode(&b, &OPTS), Ok(vec![u64::from(v)]));
        if let Some(c) = char::from_u32(v) {
            assert_eq!(b, c.to_string().into_bytes());
        }
    }
}

/// Every scalar value: legacy and extended encoders agree with std, and
/// decode back.
#[test]
fn all_scalar_values() {
    let values: Vec<u32> = (0..=0x10FFFFu32)
        .filter(|&v| char::from_u32(v).is_some())
        .collect();
    let text: String = values.iter().filter_map(|&v| char::from_u32(v)).collect();
    let bytes = legacy::encode(&values).unwrap();
    assert_eq!(bytes, text.as_bytes());
    assert_eq!(legacy::decode(&bytes, &OPTS).as_ref(), Ok(&values));
    let wide: Vec<u64> = values.iter().map(|&v| u64::from(v)).collect();
    assert_eq!(extended::encode(&wide).as_deref(), Ok(text.as_bytes()));
    assert_eq!(extended::decode(&bytes, &OPTS), Ok(wide));
}

/// Shortest form only (RFC 2279 §6), FE/FF never in legacy, and the kinds.
#[test]
fn rejects_and_names() {
    use ErrorKind::*;
    for (bytes, kind, len) in [
        ("C0 80", Overlong, Some(1)),
        ("C1 BF", Overlong, Some(1)),
        ("E0 9F BF", Overlong, Some(1)),
        ("F0 8F BF BF", Overlong, Some(1)),
        ("F8 87 BF BF BF", Overlong, Some(1)),
        ("FC 83 BF BF BF BF", Overlong, Some(1)),
        ("80", UnexpectedContinuation, Some(1)),
        ("C0", InvalidByte, Some(1)),
        ("FE 82 80 80 80 80 80", ExtendedForm, Some(1)),
        ("FF", InvalidByte, Some(1)),
        ("E2 82", Truncated, None),
        ("FD BF BF 41", Truncated, Some(3)),
    ] {
        let e = legacy::decode(&hex(bytes), &OPTS).unwrap_err();
        assert_eq!(
            (e.valid_up_to(), e.kind(), e.error_len()),
            (0, kind, len),
            "{bytes}"
        );
    }
    for (bytes, kind, len) in [
        ("FE 81 BF BF BF BF BF", Overlong, Some(1)),
        ("FF 80 80 80 80 80 80 BF BF BF BF BF BF", Overlong, Some(6)),
        (
            "FF 81 80 80 80 80 80 80 80 80 80 80 80",
            OutOfRange,
            Some(1),
        ),
        (
            "FF 80 88 80 80 80 80 80 80 80 80 80 80",
            OutOfRange,
            Some(2),
        ),
        ("FF 80 87 BF BF BF BF BF BF BF BF BF", Truncated, None),
    ] {
        let e = extended::decode(&hex(bytes), &OPTS).unwrap_err();
        assert_eq!(
            (e.valid_up_to(), e.kind(), e.error_len()),
            (0, kind, len),
            "{bytes}"
        );
    }
    // Legacy accepts what strict rejects: surrogates and values past 10FFFF.
    assert_eq!(legacy::decode(&hex("ED A0 80"), &OPTS), Ok(vec![0xD800]));
    assert_eq!(
        legacy::decode(&hex("F7 BF BF BF"), &OPTS),
        Ok(vec![0x1F_FFFF])
    );
}

/// RFC 2279 §2 / CESU-8 repair: a surrogate pair as two 3-octet sequences.
#[test]
fn surrogate_pair_repair() {
    let cesu = hex("ED A0 BD ED B8 80 41");
    assert_eq!(legacy::decode(&cesu, &OPTS), Ok(vec![0xD83D, 0xDE00, 0x41]));
    let repair = UcsOptions {
        allow_surrogate_pairs: true,
    };
    assert_eq!(legacy::decode(&cesu, &repair), Ok(vec![0x1F600, 0x41]));
    assert_eq!(extended::decode(&cesu, &repair), Ok(vec![0x1F600, 0x41]));
    // Unpaired halves stay as they are.
    assert_eq!(
        legacy::decode(&hex("ED B8 80 ED A0 BD 41"), &repair),
        Ok(vec![0xDE00, 0xD83D, 0x41])
    );
    // Every pair, checked against UTF-16 in std.
    for c in ('\u{10000}'..='\u{10FFFF}').step_by(97) {
        let mut units = [0u16; 2];
        c.encode_utf16(&mut units);
        let bytes = legacy::encode(&[u32::from(units[0]), u32::from(units[1])]).unwrap();
        assert_eq!(legacy::decode(&bytes, &repair), Ok(vec![u32::from(c)]));
    }
}

/// Lossy legacy decoding replaces like strict UTF-8 does where the two
/// agree on what is ill-formed, and `to_text` counts non-scalars.
#[test]
fn lossy_and_to_text() {
    let input = hex("41 C0 AF ED A0 80 F8 88 80 80 80 FE 42");
    let (values, report) = legacy::decode_lossy(&input, &OPTS);
    assert_eq!(
        values,
        vec![0x41, 0xFFFD, 0xFFFD, 0xD800, 0x20_0000, 0xFFFD, 0x42]
    );
    assert_eq!(report.replacements, 3);
    assert_eq!(
        report.errors,
        vec![
            (ErrorKind::Overlong, 1, 1),
            (ErrorKind::UnexpectedContinuation, 2, 1),
            (ErrorKind::InvalidByte, 11, 1)
        ]
    );
    let (text, replaced) = legacy::to_text(values.iter().map(|&v| u64::from(v)));
    assert_eq!(text, "A\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}B");
    assert_eq!(replaced, 2);
}

/// Runs Perl (see `common::oracle`: a Perl that dies fails the test).
fn perl(script: &str, stdin: &str) -> Option<String> {
    common::oracle("codec_ucs::perl", "perl", &["-e", script], stdin.as_bytes())
        .map(|o| String::from_utf8(o).expect("perl writes text"))
}

/// Perl's 64-bit extended UTF-8 (`utf8::encode`) writes the same octets.
#[test]
fn perl_extended_utf8_agrees() {
    let mut values: Vec<u64> = vec![0, 0x7F, 0x80, 0xD800, 0x10FFFF, 0x110000, 0x7FFF_FFFF];
    values.extend([0x8000_0000, 0xF_FFFF_FFFF, 0x10_0000_0000, extended::MAX]);
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    for shift in 0..63 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        values.push((seed >> shift) & extended::MAX);
    }
    let script = "no warnings; while (<STDIN>) { chomp; my $s = chr(hex $_); utf8::encode($s); print unpack('H*', $s), \"\\n\" }";
    let stdin: String = values.iter().map(|v| format!("{v:X}\n")).collect();
    let Some(out) = perl(script, &stdin) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), values.len());
    for (&v, line) in values.iter().zip(lines) {
        let ours: String = extended::encode(&[v])
            .unwrap()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(ours, line, "{v:#X}");
        assert_eq!(extended::decode(&hex_pairs(line), &OPTS), Ok(vec![v]));
    }
}

/// Perl's lax decoder (`utf8::decode`, which takes its extended forms)
/// accepts exactly what `extended::decode` accepts, with the same values.
#[test]
fn perl_extended_decode_agrees() {
    const PIECES: &[&[u8]] = &[
        b"A",
        &[0x80],
        &[0xBF],
        &[0xC0],
        &[0xC2],
        &[0xE0],
        &[0xED, 0xA0],
        &[0xF0],
        &[0xF4, 0x90],
        &[0xF7],
        &[0xF8],
        &[0xF8, 0x88],
        &[0xFC],
        &[0xFC, 0x84],
        &[0xFD],
        &[0xFE],
        &[0xFE, 0x82],
        &[0xFE, 0x81],
        &[0xFF, 0x80],
        &[0xFF, 0x80, 0x87],
        &[0xFF, 0x80, 0x88],
        &[0xFF, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80],
        &[0xFF, 0x80, 0x80, 0x80, 0x80, 0x80, 0x81],
    ];
    let mut seed = 0xDEAD_BEEF_CAFE_F00Du64;
    let mut rand = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for _ in 0..1500 {
        let mut v = Vec::new();
        for _ in 0..1 + rand(3) {
            let piece = PIECES[rand(PIECES.len())];
            v.extend_from_slice(piece);
            // Usually the continuation octets the lead announces; sometimes
            // one too few or too many.
            let announced = match piece[0] {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                0xF8..=0xFB => 5,
                0xFC..=0xFD => 6,
                0xFE => 7,
                0xFF => 13,
                _ => 1,
            };
            let mut need = announced - piece.len().min(announced);
            match rand(8) {
                0 => need = need.saturating_sub(1),
                1 => need += 1,
                _ => {}
            }
            for _ in 0..need {
                v.push(0x80 + rand(64) as u8);
            }
        }
        inputs.push(v);
    }
    let script = "no warnings; while (<STDIN>) { chomp; my $s = pack('H*', $_); if (utf8::decode($s)) { print join(' ', map { sprintf('%X', ord) } split //, $s), \"\\n\" } else { print \"FAIL\\n\" } }";
    let stdin: String = inputs
        .iter()
        .map(|i| i.iter().map(|b| format!("{b:02x}")).collect::<String>() + "\n")
        .collect();
    let Some(out) = perl(script, &stdin) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), inputs.len());
    let mut accepted = 0;
    for (input, line) in inputs.iter().zip(lines) {
        let ours = match extended::decode(input, &OPTS) {
            Ok(v) => v
                .iter()
                .map(|x| format!("{x:X}"))
                .collect::<Vec<_>>()
                .join(" "),
            Err(_) => "FAIL".to_owned(),
        };
        accepted += usize::from(line != "FAIL");
        assert_eq!(ours, line, "{input:02X?}");
    }
    assert!(
        accepted > 100,
        "too few accepted inputs ({accepted}) to mean much"
    );
}

fn hex_pairs(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .filter_map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn legacy_round_trip(values in proptest::collection::vec(0..=legacy::MAX, 0..20)) {
        let bytes = legacy::encode(&values).unwrap();
        prop_assert_eq!(legacy::decode(&bytes, &OPTS), Ok(values));
    }

    #[test]
    fn extended_round_trip(values in proptest::collection::vec(0..=extended::MAX, 0..20)) {
        let bytes = extended::encode(&values).unwrap();
        prop_assert_eq!(extended::decode(&bytes, &OPTS), Ok(values.clone()));
        // identical to legacy below 0x80000000
        if values.iter().all(|&v| v <= u64::from(legacy::MAX)) {
            let narrow: Vec<u32> = values.iter().map(|&v| v as u32).collect();
            prop_assert_eq!(legacy::encode(&narrow), Ok(bytes));
        }
    }

    /// Shortest form: whatever decodes re-encodes to the same octets, and
    /// strict UTF-8 is a subset of both.
    #[test]
    fn decode_then_encode(bytes in proptest::collection::vec(
        prop_oneof![any::<u8>(), 0x80u8..=0xBF, 0x80u8..=0xBF, Just(0x80u8)], 0..40)) {
        if let Ok(v) = extended::decode(&bytes, &OPTS) {
            prop_assert_eq!(extended::encode(&v), Ok(bytes.clone()));
        }
        if let Ok(v) = legacy::decode(&bytes, &OPTS) {
            prop_assert_eq!(legacy::encode(&v), Ok(bytes.clone()));
        }
        if let Ok(s) = utf8::validate(&bytes) {
            let chars: Vec<u32> = s.chars().map(u32::from).collect();
            prop_assert_eq!(legacy::decode(&bytes, &OPTS), Ok(chars));
        }
        // Lossy decoding never fails and agrees with strict on valid input.
        let (lossy, report) = extended::decode_lossy(&bytes, &OPTS);
        match extended::decode(&bytes, &OPTS) {
            Ok(v) => { prop_assert_eq!(lossy, v); prop_assert!(report.is_clean()); }
            Err(e) => {
                prop_assert_eq!(report.errors.first().map(|r| (r.0, r.1)), Some((e.kind(), e.valid_up_to())));
            }
        }
    }
}
