//! A differential run against mail-parser 0.11 over every message of
//! `../shared/corpus` (*.eml, *.txt, *.msg, and the linux-mips `msgs/`):
//! the top-level Subject, From display name and address, and Content-Type
//! type/subtype/charset/boundary. Each difference is put in a class; every
//! class is explained in `doc/mime-differences.md`. A difference that fits
//! no known class fails the test.

use crate::common;
use mail_parser::{MessageParser, MimeHeaders};
use mailcharset::mime;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    common::corpus("mime_differential")
}

/// Folders of the corpus that hold data, not messages.
const NOT_MAIL: &[&str] = &[
    "unicode-ucd-historic",
    "kuhn-utf8",
    "whatwg-encoding",
    "iana-charsets",
    "gmime",
];

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() {
            if !NOT_MAIL.contains(&name) {
                collect(&p, out);
            }
        } else if [".eml", ".txt", ".msg"].iter().any(|e| name.ends_with(e)) {
            out.push(p);
        }
    }
}

const EMBEDDED: &str =
    "encoded-word inside a word: we decode it (with a finding), mail-parser keeps it as written";

/// mail-parser kept an encoded-word that we decoded because it touches
/// other text (`Name/=?ISO-2022-JP?B?...?=`).
fn embedded_word_kept(raw: &[u8], ours: &str, theirs: &str) -> bool {
    let d = mime::decode_unstructured(raw);
    theirs.contains("=?")
        && !ours.contains("=?")
        && d.findings
            .iter()
            .any(|f| f.note.as_deref() == Some("encoded-word inside a word"))
}

const PASSED_THROUGH: &str = "charset: mail-parser has no decoder for the label (iso-2022-jp, euc-kr, gb2312, big5 ... without its full_encoding feature) or reads raw 8-bit octets as lossy UTF-8; we decode";

const MALFORMED_WORD: &str = "subject: encoded-word decoded differently";
const PYTHON_AGREES: &str =
    "subject: mail-parser did not decode it or read it otherwise; Python's email reads it as we do";
const PYTHON_CANNOT: &str =
    "subject: neither mail-parser nor Python's email decodes it (unknown or broken charset); we do";
const PYTHON_LATIN1: &str = "subject: raw 8-bit octets; mail-parser reads lossy UTF-8 and Python's email Latin-1; we detect the charset";
const PYTHON_KEEPS_OPEN_WORD: &str = "subject: an encoded-word without its closing ?=; mail-parser and Python keep it as written, we decode it (with a finding)";
const PYTHON_DIFFERS_WS: &str =
    "subject: Python's email differs from us only in white space between encoded-words";

/// Judges the Subjects mail-parser could not decode (or decoded otherwise)
/// by Python's `email.header` (`make_header(decode_header(...))`): our text
/// must be its text, or Python must fail to decode it too; anything else is
/// unexplained.
fn tie_break(cases: &[(Vec<u8>, String, String)], classes: &mut Classes) {
    if cases.is_empty() {
        return;
    }
    const PY: &str = r#"
import sys, json
from email.header import decode_header, make_header
out = []
for raw in json.load(sys.stdin):
    v = raw.replace('\r\n', '').replace('\n', '')
    try:
        t = str(make_header(decode_header(v)))
        out.append(None if '\ufffd' in t else t)
    except Exception:
        out.append(None)
print(json.dumps(out))
"#;
    // Octets as Latin-1 characters, as Python's email reads raw headers.
    let raws: Vec<String> = cases
        .iter()
        .map(|c| c.0.iter().map(|&b| char::from(b)).collect())
        .collect();
    let input = serde_json::to_vec(&raws).unwrap();
    let Some(out) = common::python("differential_against_mail_parser", PY, &input) else {
        // No Python: these stay unjudged, and say so.
        for (_, ours, ex) in cases {
            classes.add(PASSED_THROUGH, || format!("{ex} ours {ours:?}"));
        }
        return;
    };
    let theirs: Vec<Option<String>> = serde_json::from_slice(&out).unwrap();
    assert_eq!(theirs.len(), cases.len());
    for ((raw, ours, ex), py) in cases.iter().zip(theirs) {
        let words = memchr::memmem::find(raw, b"=?").is_some();
        let class = match &py {
            Some(p) if norm_ws(p) == norm_ws(ours) => PYTHON_AGREES,
            // Python's email takes raw 8-bit header octets as Latin-1.
            Some(_) if !words && !raw.is_ascii() => PYTHON_LATIN1,
            // An encoded-word without its closing `?=`: Python keeps it as
            // written, we decode it (with a malformed-encoded-word finding).
            Some(p) if p.contains("=?") && !ours.contains("=?") => PYTHON_KEEPS_OPEN_WORD,
            Some(p) if p.replace([' ', '\t'], "") == ours.replace([' ', '\t'], "") => {
                PYTHON_DIFFERS_WS
            }
            None => PYTHON_CANNOT,
            Some(_) => "unexplained",
        };
        classes.add(class, || format!("{ex} ours {ours:?} python {py:?}"));
    }
}

/// mail-parser's text holds U+FFFD or ISO-2022 escapes: it did not decode
/// the octets (whatever we made of them; the charset layer's verdict says
/// how good ours is).
fn passed_through(ours: &str, theirs: &str) -> bool {
    ours != theirs && theirs.contains(['\u{FFFD}', '\u{1b}'])
}

fn norm_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[derive(Default)]
struct Classes {
    counts: BTreeMap<String, usize>,
    examples: BTreeMap<String, Vec<String>>,
}

impl Classes {
    fn add(&mut self, class: &str, example: impl FnOnce() -> String) {
        *self.counts.entry(class.to_owned()).or_default() += 1;
        let ex = self.examples.entry(class.to_owned()).or_default();
        if ex.len() < 3 || (class == "unexplained" && ex.len() < 100) {
            ex.push(example());
        }
    }
}

/// Classifies a Subject difference (see doc/mime-differences.md).
fn subject_class(raw: &[u8], ours: &str, theirs: &str, duplicated: bool) -> &'static str {
    if ours == theirs {
        return "agree";
    }
    if duplicated {
        return "subject: duplicate field (we take the first, mail-parser the last)";
    }
    if norm_ws(ours) == norm_ws(theirs) {
        return "subject: white space (RFC 5322 unfolding keeps the fold's white space)";
    }
    if embedded_word_kept(raw, ours, theirs) {
        return EMBEDDED;
    }
    if passed_through(ours, theirs) {
        return PASSED_THROUGH;
    }
    let raw_s = String::from_utf8_lossy(raw);
    if norm_ws(&ours.replace(' ', "")) == norm_ws(&theirs.replace(' ', "")) && raw_s.contains("=?")
    {
        return "subject: white space around encoded-words";
    }
    if raw_s.contains("=?") {
        return MALFORMED_WORD;
    }
    "unexplained"
}

#[test]
fn differential_against_mail_parser() {
    let Some(dir) = corpus() else {
        return;
    };
    let mut files = Vec::new();
    collect(&dir, &mut files);
    assert!(files.len() > 4000, "found {} message files", files.len());
    let parser = MessageParser::default();
    let mut classes = Classes::default();
    let mut compared = 0usize;
    // (raw Subject, our text, example) for Python's email to judge.
    let mut tiebreak: Vec<(Vec<u8>, String, String)> = Vec::new();
    for path in &files {
        let Ok(data) = std::fs::read(path) else {
            continue;
        };
        // An mbox "From " line is not a header field; both parsers skip it.
        let data: &[u8] = match data.strip_prefix(b"From ") {
            Some(_) => match memchr_line_end(&data) {
                Some(k) => &data[k..],
                None => continue,
            },
            None => &data,
        };
        let block = mime::parse_header_block(data);
        let Some(msg) = parser.parse_headers(data) else {
            classes.add("mail-parser found no message", || {
                path.display().to_string()
            });
            continue;
        };
        let short = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .display()
            .to_string();

        // Subject.
        let ours = block.get("subject");
        match (ours, msg.subject()) {
            (Some(f), Some(theirs)) => {
                compared += 1;
                let text = mime::decode_unstructured(f.value).text;
                let dup = block.get_all("subject").count() > 1;
                let class = subject_class(f.value, &text, theirs, dup);
                if class == PASSED_THROUGH || class == MALFORMED_WORD {
                    // mail-parser did not decode it, or read a damaged word
                    // otherwise: Python's email breaks the tie (below).
                    tiebreak.push((
                        f.value.to_vec(),
                        text,
                        format!("{short}: theirs {theirs:?}"),
                    ));
                } else {
                    classes.add(class, || {
                        format!("{short}: ours {text:?} theirs {theirs:?}")
                    });
                }
            }
            (None, None) => {}
            (Some(f), None) => {
                let text = mime::decode_unstructured(f.value).text;
                let class = if text.is_empty() {
                    "agree"
                } else if block.get_all("subject").count() > 1 {
                    "subject: duplicate field (we take the first, mail-parser the last)"
                } else {
                    "unexplained"
                };
                classes.add(class, || format!("{short}: ours {text:?}"));
            }
            (None, Some(t)) => {
                classes.add("subject: we have none", || format!("{short}: theirs {t:?}"))
            }
        }

        // From: first mailbox.
        if let (Some(f), Some(theirs)) = (block.get("from"), msg.from().and_then(|a| a.first())) {
            compared += 1;
            let list = mime::parse_address_list(f.value);
            let m = list.mailboxes.first();
            let name = m
                .and_then(|m| m.display_name.as_ref())
                .map(|d| d.text.clone());
            let comments = m.map(|m| {
                m.comments
                    .iter()
                    .map(|c| c.text.clone())
                    .collect::<Vec<_>>()
                    .join(" ")
            });
            let addr = m.and_then(|m| m.addr_spec.clone());
            let t_name = theirs.name().map(str::to_owned);
            let t_addr = theirs.address().map(str::to_owned);
            let class = if addr.as_deref().map(str::to_ascii_lowercase)
                != t_addr.as_deref().map(str::to_ascii_lowercase)
            {
                if addr
                    .as_deref()
                    .is_some_and(|a| a.contains('"') || !a.contains('@'))
                    || t_addr.is_none()
                {
                    "from: no address per mail-parser (a bare name, or the address inside an encoded-word)"
                } else if block.get_all("from").count() > 1 {
                    "from: duplicate field (we take the first, mail-parser the last)"
                } else {
                    "unexplained"
                }
            } else if let (Some(o), Some(t)) =
                (name.as_deref().or(comments.as_deref()), t_name.as_deref())
                && passed_through(o, t)
            {
                PASSED_THROUGH
            } else if name.as_deref().map(norm_ws) == t_name.as_deref().map(norm_ws)
                || (name.is_none()
                    && comments.as_deref().filter(|c| !c.is_empty()).map(norm_ws)
                        == t_name.as_deref().map(norm_ws))
            {
                // Without a display name, mail-parser names the mailbox by
                // its comment; we keep the comment in `comments`.
                "agree"
            } else if t_name.as_deref().is_some_and(|t| {
                t.contains('(')
                    || comments
                        .as_deref()
                        .is_some_and(|c| !c.is_empty() && t.contains(c))
            }) {
                "from: comments kept apart from the display name"
            } else if name
                .as_deref()
                .zip(t_name.as_deref())
                .is_some_and(|(o, t)| embedded_word_kept(f.value, o, t))
            {
                EMBEDDED
            } else if name.as_deref().map(|s| s.replace(' ', ""))
                == t_name.as_deref().map(|s| s.replace(' ', ""))
            {
                "from: white space around encoded-words"
            } else {
                "unexplained"
            };
            classes.add(class, || {
                format!("{short}: ours {name:?} <{addr:?}> theirs {t_name:?} <{t_addr:?}>")
            });
        }

        // Content-Type.
        let ct_field = block.get("content-type");
        match (ct_field, msg.content_type()) {
            (Some(f), Some(theirs)) => {
                compared += 1;
                let ct = mime::ContentType::parse(f.value);
                let t_type = theirs.ctype().to_ascii_lowercase();
                let t_sub = theirs.subtype().map(str::to_ascii_lowercase);
                let t_charset = theirs.attribute("charset").map(str::to_owned);
                let t_boundary = theirs.attribute("boundary").map(str::to_owned);
                let charset = ct
                    .charset()
                    .map(|c| String::from_utf8_lossy(c).into_owned());
                let boundary = ct
                    .boundary()
                    .map(|b| String::from_utf8_lossy(b).into_owned());
                let dup = block.get_all("content-type").count() > 1;
                let class = if dup
                    && (ct.media_type != t_type || charset != t_charset || boundary != t_boundary)
                {
                    "content-type: duplicate field (we take the first, mail-parser the last)"
                } else if ct.defaulted {
                    if t_sub.is_none() {
                        "content-type: no subtype (we default to text/plain)"
                    } else {
                        "unexplained"
                    }
                } else if (&*ct.media_type, Some(&*ct.subtype))
                    != (t_type.as_str(), t_sub.as_deref())
                {
                    "unexplained"
                } else if charset.as_deref().map(str::trim) != t_charset.as_deref().map(str::trim) {
                    if ct.param("charset").is_some_and(|p| {
                        p.findings
                            .iter()
                            .any(|f| f.note.as_deref() == Some("duplicate parameter"))
                    }) {
                        "content-type: duplicate parameter (we take the first)"
                    } else {
                        "unexplained"
                    }
                } else if boundary != t_boundary {
                    if ct.param("boundary").is_some_and(|p| !p.findings.is_empty()) {
                        "content-type: duplicate parameter (we take the first)"
                    } else {
                        "unexplained"
                    }
                } else {
                    "agree"
                };
                classes.add(class, || {
                    format!(
                        "{short}: ours {}/{} {charset:?} {boundary:?} theirs {t_type}/{t_sub:?} {t_charset:?} {t_boundary:?} raw {:?}",
                        ct.media_type, ct.subtype, String::from_utf8_lossy(f.value)
                    )
                });
            }
            (None, None) => {}
            (Some(f), None) => classes.add("content-type: mail-parser has none", || {
                format!("{short}: {:?}", String::from_utf8_lossy(f.value))
            }),
            (None, Some(t)) => classes.add("content-type: we have none", || {
                format!("{short}: {:?}", t.ctype())
            }),
        }
    }
    tie_break(&tiebreak, &mut classes);
    let agree = classes.counts.get("agree").copied().unwrap_or(0)
        + classes.counts.get(PYTHON_AGREES).copied().unwrap_or(0);
    println!("{} files, {compared} comparisons", files.len());
    for (class, n) in &classes.counts {
        println!("{n:7}  {class}");
        if class != "agree" {
            for e in &classes.examples[class] {
                println!("           e.g. {e}");
            }
        }
    }
    let unexplained = classes.counts.get("unexplained").copied().unwrap_or(0);
    let judged = compared;
    let rate = agree as f64 / judged.max(1) as f64;
    println!(
        "agreement {:.2}% of {judged} judged comparisons",
        rate * 100.0
    );
    // Every difference must fit a documented class; and agreement must stay
    // high (the classes are rare quirks, see doc/mime-differences.md).
    assert_eq!(
        unexplained, 0,
        "differences that fit no class (see the examples above)"
    );
    // 99.2% today: every other comparison falls in a class above.
    assert!(rate >= 0.99, "agreement {rate}");
    // The classes that accept our text without an oracle's agreement
    // (Python cannot decode it either; Python differs in white space only;
    // white space around encoded-words, not sent to Python) have no member
    // today: one that appears is looked at, not passed (a review of the
    // suite: a bug in RFC 2047 white-space handling would land there).
    for class in [
        PYTHON_CANNOT,
        PYTHON_DIFFERS_WS,
        "subject: white space around encoded-words",
    ] {
        let n = classes.counts.get(class).copied().unwrap_or(0);
        assert_eq!(n, 0, "{class}: {:?}", classes.examples.get(class));
    }
}

fn memchr_line_end(data: &[u8]) -> Option<usize> {
    data.iter().position(|&b| b == b'\n').map(|k| k + 1)
}
