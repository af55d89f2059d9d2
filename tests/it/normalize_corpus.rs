//! Normalization over every message of `../shared/corpus`: text that
//! decodes cleanly under its label reads the same afterwards (now labelled
//! UTF-8), attachments are byte-identical after transfer decoding, the part
//! tree keeps its shape, normalize∘normalize = normalize, and Python's
//! `email` package reads back the text we wrote.

use crate::common;

use mailcharset::charset::{self, DecodeOptions};
use mailcharset::finding::Verdict;
use mailcharset::message::{Message, Part};
use mailcharset::normalize::{self, Options, rewrite_meta_charset};
use std::borrow::Cow;
use std::collections::HashMap;

/// Line ends as LF (normalization writes a part's text with the line end
/// of its header block; a CR before CRLF stays data).
fn lf(s: &str) -> String {
    let mut s = s.replace("\r\n", "\n");
    while s.contains("\r\n") {
        s = s.replace("\r\n", "\n");
    }
    s
}

/// The text of a text part under its own label (the Content-Type's
/// charset, or an HTML part's `<meta>`: `message::body_label`), if it
/// decodes cleanly.
fn clean_text(msg: &Message<'_>, p: &Part<'_>) -> Option<String> {
    let (bytes, _) = p.decoded_body(msg);
    let label = mailcharset::message::body_label(&p.content_type, &bytes).map(|(l, _)| l);
    let d = charset::decode(&bytes, label, &DecodeOptions::default());
    let clean = d.replacements == 0 && matches!(d.verdict, Verdict::Ok | Verdict::Suspicious);
    clean.then(|| d.text.into_owned())
}

#[test]
fn corpus_text_survives_attachments_identical_idempotent() {
    let test = "corpus_text_survives_attachments_identical_idempotent";
    let Some(corpus) = common::corpus(test) else {
        return;
    };
    let files = common::corpus_messages(&corpus);
    assert!(files.len() > 4000, "corpus messages found: {}", files.len());
    let opts = Options::default();
    let utf8 = Options {
        headers: normalize::HeaderMode::Utf8,
        eight_bit: true,
        ..Options::default()
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut oracle: Vec<(String, Vec<String>)> = Vec::new();
    let (mut changed, mut texts_compared, mut leaves_compared) = (0, 0, 0);
    for f in &files {
        let raw = std::fs::read(f).unwrap();
        let n = normalize::normalize(&raw, &opts).unwrap();
        let out: &[u8] = &n.bytes;
        assert_eq!(n.report.changed, out != raw.as_slice(), "{}", f.display());
        // Idempotence: the output is already normalized.
        let again = normalize::normalize(out, &opts).unwrap();
        assert!(
            matches!(again.bytes, Cow::Borrowed(_)),
            "{}: a second run changed it: {:#?}",
            f.display(),
            again.report
        );
        // Raw UTF-8 headers and 8bit bodies: idempotent too.
        let n8 = normalize::normalize(&raw, &utf8).unwrap();
        let again8 = normalize::normalize(&n8.bytes, &utf8).unwrap();
        assert!(
            matches!(again8.bytes, Cow::Borrowed(_)),
            "{}: a second --headers utf8 --8bit run changed it: {:#?}",
            f.display(),
            again8.report
        );
        if !n.report.changed {
            continue;
        }
        changed += 1;
        let before = Message::parse(&raw);
        let after = Message::parse(out);
        let (pb, pa) = (before.parts(), after.parts());
        assert_eq!(pb.len(), pa.len(), "{}: part count", f.display());
        let mut py_texts = Vec::new();
        for (b, a) in pb.iter().zip(&pa) {
            assert_eq!(b.id, a.id, "{}", f.display());
            assert_eq!(
                b.content_type.mime_type(),
                a.content_type.mime_type(),
                "{}",
                f.display()
            );
            if !matches!(b.kind, mailcharset::message::PartKind::Leaf) {
                continue;
            }
            if !b.is_text() || b.protected {
                leaves_compared += 1;
                assert_eq!(
                    b.decoded_body(&before).0,
                    a.decoded_body(&after).0,
                    "{}: part {} must be byte-identical",
                    f.display(),
                    b.id
                );
                continue;
            }
            let Some(old) = clean_text(&before, b) else {
                continue;
            };
            let new = clean_text(&after, a).unwrap_or_else(|| {
                panic!(
                    "{}: part {} does not decode cleanly after",
                    f.display(),
                    a.id
                )
            });
            let untouched = b.raw(&before) == a.raw(&after);
            let old = if b.content_type.subtype == "html" && !untouched {
                rewrite_meta_charset(&old).into_owned()
            } else {
                old
            };
            let (o, n) = (lf(&old), lf(&new));
            if o != n {
                let at = o.bytes().zip(n.bytes()).take_while(|(x, y)| x == y).count();
                let ctx = |s: &str| {
                    let b = &s.as_bytes()[at.saturating_sub(20)..(at + 20).min(s.len())];
                    String::from_utf8_lossy(b).into_owned()
                };
                panic!(
                    "{}: part {}: text differs at byte {at}: {:?} vs {:?}",
                    f.display(),
                    b.id,
                    ctx(&o),
                    ctx(&n)
                );
            }
            texts_compared += 1;
            let label = a.content_type.charset().map(|l| l.to_ascii_lowercase());
            if label.as_deref() == Some(b"utf-8") {
                py_texts.push(lf(&new));
            }
        }
        if !py_texts.is_empty() && oracle.len() < 600 {
            let path = tmp.path().join(format!("{}.eml", oracle.len()));
            std::fs::write(&path, out).unwrap();
            oracle.push((path.display().to_string(), py_texts));
        }
    }
    eprintln!(
        "{changed} of {} messages changed; {texts_compared} texts and {leaves_compared} other leaves compared",
        files.len()
    );
    assert!(changed > 100 && texts_compared > 100);
    python_reads_back(test, &oracle);
}

const PY_TEXTS: &str = r#"
import sys, json, email, email.policy
out = {}
for path in sys.stdin.read().splitlines():
    with open(path, "rb") as f:
        msg = email.message_from_bytes(f.read(), policy=email.policy.default)
    acc = []
    for part in msg.walk():
        if part.is_multipart() or part.get_content_maintype() != "text":
            continue
        if (part.get_content_charset() or "").lower() != "utf-8":
            continue
        try:
            acc.append(part.get_content().replace("\r\n", "\n"))
        except Exception as e:
            acc.append("ERROR " + repr(e))
    out[path] = acc
print(json.dumps(out))
"#;

/// Python's `email` package, one process for all files: the UTF-8 text
/// parts it reads are the texts we wrote.
fn python_reads_back(test: &str, oracle: &[(String, Vec<String>)]) {
    let list: String = oracle.iter().map(|(p, _)| format!("{p}\n")).collect();
    let Some(out) = common::python(test, PY_TEXTS, list.as_bytes()) else {
        return;
    };
    let py: HashMap<String, Vec<String>> = serde_json::from_slice(&out).expect("python JSON");
    let mut differing = Vec::new();
    for (path, ours) in oracle {
        let theirs = py.get(path).cloned().unwrap_or_default();
        // Python ignores parts it does not see as text (e.g. inside
        // structures it parses differently): compare ours in order.
        if theirs.iter().zip(ours).any(|(t, o)| t != o) || theirs.len() != ours.len() {
            differing.push(path.clone());
        }
    }
    eprintln!(
        "python agreement: {}/{}; differing: {differing:?}",
        oracle.len() - differing.len(),
        oracle.len()
    );
    assert!(oracle.len() > 50, "oracle sample: {}", oracle.len());
    assert!(
        differing.len() * 100 <= oracle.len(),
        "{} of {} differ",
        differing.len(),
        oracle.len()
    );
}
