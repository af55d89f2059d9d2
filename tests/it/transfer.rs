//! Transfer codings: round-trip and layout properties, and the third-party
//! test data in `../shared/corpus` (skipped with a note when absent).
//!
//! The Python and Perl oracles live in `tests/transfer_oracles.rs`.

use mailcharset::FindingKind;
use mailcharset::message::transfer::{
    Cte, Newline, base64_decoded_len_max, base64_encoded_len, choose_encoding, decode,
    decode_base64, decode_quoted_printable, encode, encode_base64, encode_quoted_printable,
    qp_encoded_len_max,
};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn line_ending() -> impl Strategy<Value = Newline> {
    prop_oneof![Just(Newline::Lf), Just(Newline::Crlf)]
}

/// Text-like bytes that hit the encoder's corners: line breaks of both kinds,
/// lone CR, trailing whitespace, `=`, leading `.` and `From `, long runs, and
/// raw non-ASCII.
fn texty() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        Just(b"From ".to_vec()),
        Just(b"From".to_vec()),
        Just(b".".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b" ".to_vec()),
        Just(b"\t".to_vec()),
        Just(b"=".to_vec()),
        Just("é".as_bytes().to_vec()),
        proptest::collection::vec(0x21u8..0x7f, 1..90),
        proptest::collection::vec(any::<u8>(), 1..4),
    ];
    proptest::collection::vec(token, 0..40).prop_map(|t| t.concat())
}

/// Splits encoded output into lines, checking that only `le` ends them.
fn lines(encoded: &[u8], le: Newline) -> Vec<&[u8]> {
    match le {
        Newline::Lf => assert!(!encoded.contains(&b'\r'), "CR in LF output"),
        Newline::Crlf => {
            for (i, &b) in encoded.iter().enumerate() {
                match b {
                    b'\r' => assert_eq!(encoded.get(i + 1), Some(&b'\n'), "lone CR at {i}"),
                    b'\n' => assert!(i > 0 && encoded[i - 1] == b'\r', "lone LF at {i}"),
                    _ => {}
                }
            }
        }
    }
    encoded
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .collect()
}

fn check_layout(encoded: &[u8], le: Newline) {
    assert!(encoded.is_ascii(), "8-bit octet in encoded output");
    for line in lines(encoded, le) {
        assert!(line.len() <= 76, "line of {} octets", line.len());
    }
}

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn base64_round_trip(data in proptest::collection::vec(any::<u8>(), 0..700), le in line_ending()) {
        let enc = encode_base64(&data, le);
        check_layout(&enc, le);
        prop_assert_eq!(enc.len(), base64_encoded_len(data.len(), le));
        let lines = lines(&enc, le);
        // Every line but the last is exactly 76 characters.
        for line in &lines[..lines.len().saturating_sub(1)] {
            prop_assert_eq!(line.len(), 76);
        }
        let dec = decode_base64(&enc);
        prop_assert_eq!(&dec.bytes[..], &data[..]);
        prop_assert!(dec.findings.is_empty(), "{:?}", dec.findings);
        // Same result behind 0..32 octets of folding whitespace.
        for pad in [1usize, 7, 31] {
            let mut padded = b" \t\r\n".repeat(8)[..pad].to_vec();
            padded.extend_from_slice(&enc);
            prop_assert_eq!(&decode_base64(&padded).bytes[..], &data[..]);
        }
    }

    #[test]
    fn qp_round_trip_bytes(data in proptest::collection::vec(any::<u8>(), 0..400), le in line_ending()) {
        let enc = encode_quoted_printable(&data, le);
        check_layout(&enc, le);
        prop_assert!(enc.len() <= qp_encoded_len_max(data.len(), le));
        let dec = decode_quoted_printable(&enc);
        prop_assert_eq!(&dec.bytes[..], &data[..]);
        prop_assert!(dec.findings.is_empty(), "{:?}", dec.findings);
    }

    #[test]
    fn qp_round_trip_text(data in texty(), le in line_ending()) {
        let enc = encode_quoted_printable(&data, le);
        check_layout(&enc, le);
        prop_assert!(enc.len() <= qp_encoded_len_max(data.len(), le));
        for line in lines(&enc, le) {
            prop_assert!(!line.ends_with(b" ") && !line.ends_with(b"\t"), "trailing whitespace");
            prop_assert!(!line.starts_with(b".") && !line.starts_with(b"From "), "unsafe line start");
            // An escape is never split: a line ends in '=' only as a soft
            // break, never inside "=XX".
            let body = line.strip_suffix(b"=").unwrap_or(line);
            let mut i = 0;
            while i < body.len() {
                if body[i] == b'=' {
                    let hex = body.get(i + 1..i + 3).unwrap_or_default();
                    prop_assert!(
                        hex.len() == 2 && hex.iter().all(|b| b"0123456789ABCDEF".contains(b)),
                        "split or bad escape in {:?}", String::from_utf8_lossy(line)
                    );
                    i += 3;
                } else {
                    i += 1;
                }
            }
        }
        // Line breaks of the chosen kind stay hard breaks, one for one.
        let eol = le.as_bytes();
        let soft = [b"=".as_slice(), eol].concat();
        prop_assert_eq!(count(&enc, eol) - count(&enc, &soft), count(&data, eol));
        let dec = decode_quoted_printable(&enc);
        prop_assert_eq!(&dec.bytes[..], &data[..]);
        prop_assert!(dec.findings.is_empty());
        // Through the Cte dispatch, with the coding choose_encoding picks.
        let cte = choose_encoding(&data);
        let via = decode(cte, &encode(cte, &data, le)).bytes.into_owned();
        prop_assert_eq!(via, data);
    }

    #[test]
    fn decoders_never_panic_and_stay_bounded(data in proptest::collection::vec(any::<u8>(), 0..600)) {
        let b = decode_base64(&data);
        prop_assert!(b.bytes.len() <= base64_decoded_len_max(data.len()));
        for f in &b.findings {
            prop_assert_eq!(f.kind, FindingKind::Malformed);
            prop_assert!(f.count > 0 && f.offset <= b.bytes.len());
            prop_assert!(f.note.as_deref().is_some_and(|n| n.starts_with("base64: ")));
        }
        let q = decode_quoted_printable(&data);
        prop_assert!(q.bytes.len() <= data.len());
        for f in &q.findings {
            prop_assert!(f.count > 0 && f.offset <= q.bytes.len());
            prop_assert!(f.note.as_deref().is_some_and(|n| n.starts_with("quoted-printable: ")));
        }
    }

    /// Whitespace and garbage anywhere in base64 change nothing but the
    /// findings: each garbage octet is counted once.
    #[test]
    fn base64_skips_garbage(
        data in proptest::collection::vec(any::<u8>(), 1..300),
        inserts in proptest::collection::vec((any::<prop::sample::Index>(), prop_oneof![
            Just(b' '), Just(b'\r'), Just(b'\n'), Just(b'\t'), Just(b'!'), Just(b'-'), Just(b'_'),
            Just(b'.'), Just(b'\x80'), Just(b'\xff'), Just(b'\0'),
        ]), 0..20),
    ) {
        let mut enc = encode_base64(&data, Newline::Crlf);
        let mut garbage = 0;
        for (at, b) in inserts {
            enc.insert(at.index(enc.len() + 1), b);
            garbage += usize::from(!b" \r\n\t".contains(&b));
        }
        let dec = decode_base64(&enc);
        prop_assert_eq!(&dec.bytes[..], &data[..]);
        prop_assert_eq!(dec.findings.iter().map(|f| f.count).sum::<usize>(), garbage);
    }
}

#[test]
fn cte_dispatch_borrows_identity_codings() {
    let body = b"as it is\r\n";
    for cte in [Cte::SevenBit, Cte::EightBit, Cte::Binary] {
        assert!(matches!(decode(cte, body).bytes, std::borrow::Cow::Borrowed(b) if b == body));
        assert!(matches!(
            encode(cte, body, Newline::Crlf),
            std::borrow::Cow::Borrowed(_)
        ));
    }
    assert_eq!(&decode(Cte::Base64, b"YWJj").bytes[..], b"abc");
}

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("note: {} is absent; corpus test skipped", dir.display());
        None
    }
}

/// MimeKit's and GMime's encoder test data: the .qp decodes to the .txt
/// exactly (both use LF, neither has trailing whitespace), and our encoder's
/// output of the .txt decodes back to it.
#[test]
fn corpus_wikipedia_qp() {
    let Some(corpus) = corpus() else { return };
    for dir in [
        "mimekit/UnitTests/TestData/encoders",
        "gmime/tests/data/encodings",
    ] {
        let dir = corpus.join(dir);
        let (Ok(qp), Ok(txt)) = (
            std::fs::read(dir.join("wikipedia.qp")),
            std::fs::read(dir.join("wikipedia.txt")),
        ) else {
            panic!("{} lacks wikipedia.qp/.txt", dir.display());
        };
        let dec = decode_quoted_printable(&qp);
        assert_eq!(
            String::from_utf8_lossy(&dec.bytes),
            String::from_utf8_lossy(&txt),
            "{}",
            dir.display()
        );
        assert!(dec.findings.is_empty(), "{:?}", dec.findings);
        for le in [Newline::Lf, Newline::Crlf] {
            let enc = encode_quoted_printable(&txt, le);
            check_layout(&enc, le);
            assert_eq!(decode_quoted_printable(&enc).bytes, txt);
        }
    }
}

/// staktrace/mailparse ships a message with a base64 PDF attachment and the
/// PDF itself: decoding the part gives the file byte for byte.
#[test]
fn corpus_base64_pdf_attachment() {
    let Some(corpus) = corpus() else { return };
    let dir = corpus.join("staktrace-mailparse/tests/files");
    let (Ok(msg), Ok(pdf)) = (
        std::fs::read(dir.join("test_email_01.txt")),
        std::fs::read(dir.join("test_email_01_sample.pdf")),
    ) else {
        panic!("{} lacks test_email_01.txt/_sample.pdf", dir.display());
    };
    let start_marker = b"filename=\"sample.pdf\"\n\n";
    let start = msg
        .windows(start_marker.len())
        .position(|w| w == start_marker)
        .expect("PDF part header")
        + start_marker.len();
    let end_marker = b"\n--------------E5401F4DD68F2F7A872C2A83";
    let len = msg[start..]
        .windows(end_marker.len())
        .position(|w| w == end_marker)
        .expect("closing boundary");
    let body = &msg[start..start + len];
    let dec = decode_base64(body);
    assert!(dec.findings.is_empty(), "{:?}", dec.findings);
    assert_eq!(dec.bytes.len(), pdf.len());
    assert!(dec.bytes == pdf, "decoded attachment differs from the PDF");
}
