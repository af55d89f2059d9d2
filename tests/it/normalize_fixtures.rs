//! Normalized fixtures: insta snapshots (LF and CRLF forms), and the
//! behaviours the issue names — UNICODE-1-1-UTF-8 comes out as modern
//! Hangul, multipart/signed stays untouched, `--on-error keep` leaves an
//! unknown-label part byte-identical, idempotence, Python reads it back.

use crate::common;

use mailcharset::charset::{self, DecodeOptions};
use mailcharset::message::Message;
use mailcharset::normalize::{self, Action, HeaderMode, NormalizeError, OnError, Options};
use std::borrow::Cow;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(common::fixtures().join("messages").join(name)).unwrap()
}

/// The text of the first text part, decoded through its label.
fn first_text(raw: &[u8]) -> String {
    let msg = Message::parse(raw);
    let p = msg.parts().into_iter().find(|p| p.is_text()).unwrap();
    let (bytes, _) = p.decoded_body(&msg);
    charset::decode(&bytes, p.content_type.charset(), &DecodeOptions::default())
        .text
        .into_owned()
}

/// Every text part's text (line ends as LF) and the decoded Subject.
fn texts(raw: &[u8]) -> Vec<String> {
    let msg = Message::parse(raw);
    let mut out: Vec<String> = msg
        .root
        .header
        .get("subject")
        .map(|f| mailcharset::mime::decode_unstructured(f.value).text)
        .into_iter()
        .collect();
    for p in msg.parts() {
        if p.is_text() {
            let (bytes, _) = p.decoded_body(&msg);
            let d = charset::decode(&bytes, p.content_type.charset(), &DecodeOptions::default());
            out.push(d.text.replace("\r\n", "\n"));
        }
    }
    out
}

#[test]
fn snapshots_of_normalized_fixtures() {
    let mut seen = 0;
    insta::glob!("../../fixtures/messages", "*.eml", |path| {
        seen += 1;
        let raw = std::fs::read(path).unwrap();
        let n = normalize::normalize(&raw, &Options::default()).unwrap();
        insta::assert_snapshot!("normalize_lf", common::escape_octets(&n.bytes));
        insta::assert_json_snapshot!("normalize_report", n.report);
        // CRLF form: the same texts, and no bare LF written into it.
        let crlf = common::to_crlf(&raw);
        let c = normalize::normalize(&crlf, &Options::default()).unwrap();
        insta::assert_snapshot!(
            "normalize_crlf",
            common::escape_octets(&c.bytes).replace('\r', "␍")
        );
        assert_eq!(
            texts(&n.bytes),
            texts(&c.bytes),
            "{}: CRLF form",
            path.display()
        );
        assert_eq!(
            common::to_crlf(&c.bytes),
            c.bytes.as_ref(),
            "{}: bare LF",
            path.display()
        );
        // The same decisions (finding offsets move with the line ends).
        let summary = |r: &normalize::NormalizeReport| -> Vec<_> {
            r.parts
                .iter()
                .map(|p| (p.part.clone(), p.location.clone(), p.action, p.verdict))
                .collect()
        };
        assert_eq!(summary(&n.report), summary(&c.report), "{}", path.display());
        // Idempotence in both forms.
        for out in [&n.bytes, &c.bytes] {
            let again = normalize::normalize(out, &Options::default()).unwrap();
            assert!(
                matches!(again.bytes, Cow::Borrowed(_)),
                "{}",
                path.display()
            );
        }
    });
    assert!(seen >= 30, "fixtures found: {seen}");
}

#[test]
fn unicode11_fixture_comes_out_as_modern_hangul() {
    let raw = fixture("unicode11-hangul.eml");
    let n = normalize::normalize(&raw, &Options::default()).unwrap();
    let want = first_text(&fixture("unicode11-hangul.clean.eml"));
    assert_eq!(first_text(&n.bytes), want);
    assert!(want.chars().any(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c)));
    // With the policy off, the label is treated as plain UTF-8: the old
    // code points stay.
    let off = Options {
        unicode11: charset::Unicode11Policy::Off,
        ..Options::default()
    };
    let n = normalize::normalize(&raw, &off).unwrap();
    assert_ne!(first_text(&n.bytes), want);
}

#[test]
fn multipart_signed_is_untouched() {
    let raw = fixture("multipart-signed.eml");
    let n = normalize::normalize(&raw, &Options::default()).unwrap();
    assert!(matches!(n.bytes, Cow::Borrowed(_)));
    // Headers outside the signature are still normalized.
    let mut m = b"Subject: =?iso-8859-1?q?sign=E9?=\n".to_vec();
    m.extend_from_slice(&raw);
    let n = normalize::normalize(&m, &Options::default()).unwrap();
    let out = n.bytes.as_ref();
    assert!(out.starts_with(b"Subject: =?UTF-8?"));
    let at = memchr::memmem::find(&m, b"--sig").unwrap();
    let at2 = memchr::memmem::find(out, b"--sig").unwrap();
    assert_eq!(&m[at..], &out[at2..], "the signed part is byte-identical");
}

#[test]
fn on_error_keep_replace_fail() {
    let raw = fixture("unknown-label.eml");
    let keep = Options {
        on_error: OnError::Keep,
        ..Options::default()
    };
    let n = normalize::normalize(&raw, &keep).unwrap();
    assert_eq!(n.bytes.as_ref(), raw.as_slice());
    assert_eq!(n.report.parts[0].action, Action::Kept);
    let n = normalize::normalize(&raw, &Options::default()).unwrap();
    assert_eq!(n.report.parts[0].action, Action::Replaced);
    assert!(String::from_utf8_lossy(&n.bytes).contains("charset=utf-8"));
    let fail = Options {
        on_error: OnError::Fail,
        ..Options::default()
    };
    let e = normalize::normalize(&raw, &fail).unwrap_err();
    let NormalizeError::Undecodable { part, offset, .. } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(part, "1");
    assert!(
        raw[*offset..].starts_with(b"Gr"),
        "offset points at the body"
    );
    // A part with invalid UTF-8 that detection cannot explain: U+FFFD.
    let bad = b"Content-Type: text/plain; charset=utf-8\n\nab\xff\xfe\xffcd\n";
    let n = normalize::normalize(bad, &Options::default()).unwrap();
    assert!(
        first_text(&n.bytes).contains('\u{FFFD}') || n.report.parts[0].action != Action::Unchanged
    );
}

#[test]
fn eight_bit_and_headers_utf8_modes() {
    let raw = fixture("latin1-qp.eml");
    let opts = Options {
        eight_bit: true,
        headers: HeaderMode::Utf8,
        ..Options::default()
    };
    let n = normalize::normalize(&raw, &opts).unwrap();
    let text = String::from_utf8(n.bytes.to_vec()).unwrap();
    assert!(text.contains("Subject: Grüße aus Köln\n"), "{text}");
    assert!(text.contains("Content-Transfer-Encoding: 8bit\n"));
    assert!(text.contains("Grüße aus Köln - schöne Straße"));
    let again = normalize::normalize(text.as_bytes(), &opts).unwrap();
    assert!(matches!(again.bytes, Cow::Borrowed(_)));
}

#[test]
fn html_meta_follows_the_conversion() {
    let raw = fixture("multipart-alternative.eml");
    let n = normalize::normalize(&raw, &Options::default()).unwrap();
    let msg = Message::parse(&n.bytes);
    let html = msg
        .parts()
        .into_iter()
        .find(|p| p.content_type.subtype == "html")
        .unwrap();
    let (bytes, _) = html.decoded_body(&msg);
    let text = String::from_utf8(bytes.into_owned()).unwrap();
    assert!(text.contains("charset=utf-8\""), "{text}");
    assert!(text.contains("Grüße"));
}

const PY_TEXTS: &str = r#"
import sys, json, email, email.policy
out = []
for path in sys.stdin.read().splitlines():
    with open(path, "rb") as f:
        msg = email.message_from_bytes(f.read(), policy=email.policy.default)
    acc = [str(msg.get("subject", ""))]
    for part in msg.walk():
        if part.get_content_maintype() == "text" and not part.is_multipart():
            acc.append(part.get_content().replace("\r\n", "\n"))
    out.append(acc)
print(json.dumps(out))
"#;

#[test]
fn python_reads_normalized_fixtures_as_we_do() {
    let test = "python_reads_normalized_fixtures_as_we_do";
    let tmp = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    let mut ours = Vec::new();
    for name in [
        "latin1-qp.eml",
        "koi8r-base64.eml",
        "shift-jis.eml",
        "iso-2022-jp.eml",
        "euc-kr.eml",
        "big5.eml",
        "gb2312.eml",
        "utf7.eml",
        "utf16-bom.eml",
        "multipart-alternative.eml",
        "nested-rfc822.eml",
        "unicode11-hangul.eml",
    ] {
        let raw = fixture(name);
        let n = normalize::normalize(&raw, &Options::default()).unwrap();
        let p = tmp.path().join(name);
        std::fs::write(&p, &n.bytes).unwrap();
        paths.push(p.display().to_string());
        let msg = Message::parse(&n.bytes);
        let subject = msg
            .root
            .header
            .get("subject")
            .map(|f| mailcharset::mime::decode_unstructured(f.value).text)
            .unwrap_or_default();
        let mut acc = vec![subject];
        for p in msg.parts() {
            if p.is_text() {
                let (b, _) = p.decoded_body(&msg);
                acc.push(
                    String::from_utf8(b.into_owned())
                        .unwrap()
                        .replace("\r\n", "\n"),
                );
            }
        }
        ours.push(acc);
    }
    let Some(out) = common::python(test, PY_TEXTS, paths.join("\n").as_bytes()) else {
        return;
    };
    let theirs: Vec<Vec<String>> = serde_json::from_slice(&out).unwrap();
    assert_eq!(theirs, ours);
}
