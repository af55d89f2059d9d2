//! The writers: what they write decodes back to the text (our decoder and
//! Python's `email` package), lines stay within 76 octets, encoded-words
//! within 75 characters, and no UTF-8 character is split across words.

use crate::common;
use mailcharset::mime::{self, HeaderMode, WriteOptions};
use proptest::prelude::*;

fn reparse_unstructured(field: &str) -> String {
    let msg = format!("{field}\r\n\r\n");
    let block = mime::parse_header_block(msg.as_bytes());
    assert_eq!(block.fields.len(), 1, "one field: {field:?}");
    mime::decode_unstructured(block.fields[0].value).text
}

fn check_lines(field: &str, max: usize) {
    for line in field.split("\r\n") {
        // A line holding one unsplittable unit may be longer only in UTF-8 mode.
        assert!(line.len() <= max, "line of {} octets: {line:?}", line.len());
    }
    for w in field.split([' ', '\n', '\r']) {
        if w.starts_with("=?") {
            assert!(w.len() <= 75, "encoded-word of {} chars: {w}", w.len());
        }
    }
}

/// Text a writer must handle: any chars, weighted towards the awkward ones.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::char::range('a', 'z'),
            2 => Just(' '),
            1 => Just('\t'),
            1 => prop::sample::select(vec!['=', '?', '_', '"', '\\', '(', ')', ',', ';', ':', '<', '@']),
            1 => prop::sample::select(vec!['\r', '\n', '\0', '\u{7f}']),
            2 => prop::sample::select(vec!['é', 'ß', 'ж', '中', '€', '😀', '\u{FFFD}', '\u{A0}']),
            1 => any::<char>(),
        ],
        0..120,
    )
    .prop_map(|v| v.into_iter().collect())
}

/// The case proptest once shrank a failure of the round trips to (runs of
/// spaces around a supplementary character and a bare CR): its seed was
/// kept where proptest never read it (`failure_persistence: None`), so it
/// is a test of its own, for every writer the round trips check.
#[test]
fn regression_spaces_around_a_supplementary_character_and_a_cr() {
    let s = "   \u{10000}  a  a\ra  a   a ";
    for opts in [
        WriteOptions::default(),
        WriteOptions {
            mode: HeaderMode::Utf8,
            ..WriteOptions::default()
        },
    ] {
        let field = mime::write_unstructured("Subject", s, &opts);
        assert_eq!(reparse_unstructured(&field), s, "{field}");
    }
    let field = mime::write_address_list(
        "From",
        &[(Some(s), "a@example.org")],
        &WriteOptions::default(),
    );
    let msg = format!("{field}\r\n\r\n");
    let block = mime::parse_header_block(msg.as_bytes());
    let list = mime::parse_address_list(block.fields[0].value);
    let name = list.mailboxes[0]
        .display_name
        .as_ref()
        .map(|d| d.text.clone())
        .unwrap_or_default();
    assert_eq!(name, s, "{field}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn unstructured_round_trips(s in text()) {
        let field = mime::write_unstructured("Subject", &s, &WriteOptions::default());
        prop_assert!(field.is_ascii());
        check_lines(&field, 76);
        prop_assert_eq!(reparse_unstructured(&field), s);
    }

    #[test]
    fn unstructured_round_trips_in_utf8_mode(s in text()) {
        let opts = WriteOptions { mode: HeaderMode::Utf8, ..WriteOptions::default() };
        let field = mime::write_unstructured("Subject", &s, &opts);
        prop_assert_eq!(reparse_unstructured(&field), s);
    }

    #[test]
    fn phrases_round_trip(s in text()) {
        let field = mime::write_address_list("From", &[(Some(&s), "a@example.org")], &WriteOptions::default());
        let msg = format!("{field}\r\n\r\n");
        let block = mime::parse_header_block(msg.as_bytes());
        let list = mime::parse_address_list(block.fields[0].value);
        prop_assert_eq!(list.mailboxes.len(), 1, "{}", field);
        prop_assert_eq!(list.mailboxes[0].addr_spec.as_deref(), Some("a@example.org"));
        let name = list.mailboxes[0].display_name.as_ref().map(|d| d.text.clone()).unwrap_or_default();
        prop_assert_eq!(name, s);
    }

    #[test]
    fn parameters_round_trip(s in text()) {
        let field = mime::write_parameterized(
            "Content-Disposition", "attachment", &[("filename", &s), ("size", "10")],
            &WriteOptions::default(),
        );
        prop_assert!(field.is_ascii());
        check_lines(&field, 76);
        let msg = format!("{field}\r\n\r\n");
        let block = mime::parse_header_block(msg.as_bytes());
        let cd = mime::ContentDisposition::parse(block.fields[0].value);
        prop_assert_eq!(cd.disposition.as_str(), "attachment");
        prop_assert_eq!(cd.filename(), Some(s.as_str()), "{}", field);
        prop_assert_eq!(cd.param("size").map(|p| p.value.as_str()), Some("10"));
    }
}

/// Deterministic awkward strings for the Python oracle.
fn samples() -> Vec<String> {
    let mut v: Vec<String> = [
        "Hello world",
        "Grüße aus Köln",
        "日本語のテキスト、とても長い件名がここに続きますので折り返しが必要になります。さらに続きます",
        "=?utf-8?q?not an encoded word?=",
        "mixed ascii and ünïcödé words with trailing ascii",
        "emoji 😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀",
        "a_b=c?d",
        "Re: [list] Привет, как дела? Всё хорошо",
        "tab\tseparated\twords",
        "ok",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let alphabet: Vec<char> = "abcXYZ 019=?_\"\\()<>,;:.éßжЖ中文€😀\u{A0}\t"
        .chars()
        .collect();
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    for _ in 0..200 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let len = (seed % 90) as usize;
        let mut s = String::new();
        let mut x = seed;
        for _ in 0..len {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s.push(alphabet[((x >> 33) as usize) % alphabet.len()]);
        }
        // Python's parser trims the ends; interior runs are what we test.
        v.push(s.trim_matches([' ', '\t']).to_string());
    }
    v
}

/// Python's `email` package reads what we write: `email.header.decode_header`
/// (joined as `make_header` does) and the modern `policy.default` parser.
#[test]
fn python_email_reads_what_we_write() {
    if !common::python_has("python_email_reads_what_we_write", "email") {
        return;
    }
    let samples = samples();
    let fields: Vec<serde_json::Value> = samples
        .iter()
        .map(|s| {
            let subject = mime::write_unstructured("Subject", s, &WriteOptions::default());
            let from = mime::write_address_list(
                "From",
                &[(Some(s), "a@example.org")],
                &WriteOptions::default(),
            );
            serde_json::json!({"text": s, "subject": subject, "from": from})
        })
        .collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("fields.json");
    std::fs::write(&path, serde_json::to_vec(&fields).expect("json")).expect("write");
    let script = r#"
import json, sys, email, email.policy
from email.header import decode_header, make_header
cases = json.load(open(sys.argv[1]))
bad = 0
for c in cases:
    msg = email.message_from_string(c["subject"] + "\r\n" + c["from"] + "\r\n\r\n", policy=email.policy.default)
    got = str(msg["subject"])
    value = c["subject"].split(":", 1)[1].replace("\r\n", "")[1:]
    legacy = str(make_header(decode_header(value)))
    checks = [("policy.default", got), ("decode_header", legacy)]
    if c["text"].isascii() and c["text"].isprintable():
        # Atoms or a quoted string: the modern address parser unquotes.
        checks.append(("display name", msg["from"].addresses[0].display_name))
    else:
        # Encoded-words: decode_header on the phrase (the modern address
        # parser puts a space between adjacent encoded-words of a phrase,
        # against RFC 2047 6.2, so it cannot read a split name back).
        phrase = c["from"].split(":", 1)[1].replace("\r\n", "")[1:]
        phrase = phrase[: phrase.rindex(" <")]
        checks.append(("display name", str(make_header(decode_header(phrase)))))
    for what, g in checks:
        if g != c["text"]:
            bad += 1
            print("MISMATCH", what, repr(c["text"]), repr(g), repr(c["subject"] if what != "display name" else c["from"]))
print("checked", len(cases), "bad", bad)
"#;
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&path)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success());
    assert!(
        stdout.contains(&format!("checked {} bad 0", samples.len())),
        "{stdout}"
    );
}
