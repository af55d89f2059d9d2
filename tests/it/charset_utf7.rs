//! UTF-7 through the charset layer: RFC 2152's examples, Python's codec as an
//! oracle in both directions, and error reporting.

use crate::common;
use mailcharset::charset::{self, Charset, DecodeOptions, decode};
use mailcharset::finding::Verdict;

#[test]
fn rfc2152_examples() {
    for label in [
        "utf-7",
        "UNICODE-1-1-UTF-7",
        "x-unicode-2-0-utf-7",
        "csUTF7",
    ] {
        for (enc, text) in [
            ("A+ImIDkQ.", "A\u{2262}\u{0391}."),
            ("Hi Mom -+Jjo--!", "Hi Mom -\u{263A}-!"),
            ("+ZeVnLIqe-", "\u{65E5}\u{672C}\u{8A9E}"),
            ("Item 3 is +AKM-1.", "Item 3 is \u{00A3}1."),
        ] {
            let d = decode(
                enc.as_bytes(),
                Some(label.as_bytes()),
                &DecodeOptions::default(),
            );
            assert_eq!(d.text, text, "{label}");
            assert_eq!(d.verdict, Verdict::Ok);
        }
    }
}

const SAMPLES: &[&str] = &[
    "plain ascii",
    "1 + 1 = 2",
    "Hi Mom -\u{263A}-!",
    "~\\ set O: !\"#$%&*;<=>@[]^_`{|}",
    "\u{65E5}\u{672C}\u{8A9E}\u{3002}end",
    "astral \u{1F600}\u{10FFFF} x",
    "mixed caf\u{E9} na\u{EF}ve +- +",
    "\u{AC00}\u{D7A3}-a-b",
];

fn python(code: &str, input: &[u8]) -> Option<Vec<u8>> {
    common::python("charset_utf7::python_oracle", code, input)
}

#[test]
fn python_oracle() {
    if python("pass", b"").is_none() {
        return;
    }
    for s in SAMPLES {
        // Python encodes, we decode.
        let py = python(
            "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read().decode('utf-8').encode('utf_7'))",
            s.as_bytes(),
        )
        .unwrap();
        let d = decode(&py, Some(b"utf-7"), &DecodeOptions::default());
        assert_eq!(d.text, *s, "{:?}", String::from_utf8_lossy(&py));
        // We encode, Python decodes.
        let ours = charset::encode(s, Charset::UTF_7, true).unwrap();
        assert!(ours.bytes.is_ascii());
        let back = python(
            "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read().decode('utf_7').encode('utf-8'))",
            &ours.bytes,
        )
        .unwrap();
        assert_eq!(
            back,
            s.as_bytes(),
            "{:?}",
            String::from_utf8_lossy(&ours.bytes)
        );
    }
}

#[test]
fn errors_are_reported_with_offsets() {
    let d = decode(
        b"ok \xE9 +2AA-",
        Some(b"utf-7"),
        &DecodeOptions {
            detect: false,
            ..Default::default()
        },
    );
    assert_eq!(d.text, "ok \u{FFFD} \u{FFFD}");
    assert_eq!(d.replacements, 2);
    assert_eq!(d.verdict, Verdict::Invalid);
    assert_eq!(d.first_error().map(|f| f.offset), Some(3));
}
