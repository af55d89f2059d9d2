//! Generated messages: each malformed UTF-8 form, placed in every kind of
//! labelled text (a body as 8bit, base64 and quoted-printable; a Subject as
//! B and Q encoded-words; a display name; an RFC 2231 file name; an RFC 2047
//! file name), must be reported with its finding kind at that location,
//! and the same message with valid text in its place must be ok with no
//! findings.

use mailcharset::audit::{AuditOptions, MessageContext, Record, audit_message};
use mailcharset::finding::{FindingKind, Verdict};

/// (name, octets, expected kinds)
const DEFECTS: &[(&str, &[u8], &[FindingKind])] = &[
    ("overlong-slash-2", b"\xC0\xAF", &[FindingKind::Overlong]),
    (
        "overlong-slash-3",
        b"\xE0\x80\xAF",
        &[FindingKind::Overlong],
    ),
    (
        "overlong-dot-4",
        b"\xF0\x80\x80\xAE",
        &[FindingKind::Overlong],
    ),
    (
        "overlong-nul",
        b"\xC0\x80",
        &[FindingKind::Overlong, FindingKind::Nul],
    ),
    ("surrogate", b"\xED\xA0\x80", &[FindingKind::Surrogate]),
    (
        "cesu-8",
        b"\xED\xA0\xBD\xED\xB8\x80",
        &[FindingKind::SurrogatePair],
    ),
    (
        "out-of-range",
        b"\xF4\x90\x80\x80",
        &[FindingKind::OutOfRange],
    ),
    (
        "five-octets",
        b"\xF8\x88\x80\x80\x80",
        &[FindingKind::LegacyForm],
    ),
    (
        "six-octets",
        b"\xFC\x84\x80\x80\x80\x80",
        &[FindingKind::LegacyForm],
    ),
];

const CLEAN: &[u8] = "r\u{e9}sum\u{e9} \u{1F600}".as_bytes();

fn b64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in data.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn hex_escaped(data: &[u8], prefix: char, keep: &dyn Fn(u8) -> bool) -> String {
    data.iter()
        .map(|&b| {
            if keep(b) {
                (b as char).to_string()
            } else {
                format!("{prefix}{b:02X}")
            }
        })
        .collect()
}

/// Builds a message with the given text in one place.
type Builder = fn(&[u8]) -> Vec<u8>;

/// The places text can be put: (location, builder of the message).
fn places() -> Vec<(&'static str, Builder)> {
    fn msg(headers: &str, body: &[u8]) -> Vec<u8> {
        let mut m = format!("Message-ID: <g@x>\nMIME-Version: 1.0\n{headers}\n").into_bytes();
        m.extend_from_slice(body);
        m.push(b'\n');
        m
    }
    vec![
        ("body", |t| {
            msg(
                "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n",
                &[b"abc ", t, b" def"].concat(),
            )
        }),
        ("body", |t| {
            msg(
                "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n",
                b64(&[b"abc ", t, b" def"].concat()).as_bytes(),
            )
        }),
        ("body", |t| {
            let qp = hex_escaped(&[b"abc ", t, b" def"].concat(), '=', &|b| {
                b.is_ascii_alphanumeric() || b == b' '
            });
            msg(
                "Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: quoted-printable\n",
                qp.as_bytes(),
            )
        }),
        ("header:Subject", |t| {
            msg(
                &format!(
                    "Subject: =?utf-8?B?{}?=\nContent-Type: text/plain; charset=us-ascii\n",
                    b64(&[b"abc", t].concat())
                ),
                b"x",
            )
        }),
        ("header:Subject", |t| {
            let q = hex_escaped(t, '=', &|b| b.is_ascii_alphanumeric());
            msg(
                &format!("Subject: Re: =?UTF-8?Q?abc_{q}?= x\nContent-Type: text/plain\n"),
                b"x",
            )
        }),
        ("header:From", |t| {
            let q = hex_escaped(t, '=', &|b| b.is_ascii_alphanumeric());
            msg(
                &format!("From: =?utf-8?q?A_{q}?= <a@example.org>\nContent-Type: text/plain\n"),
                b"x",
            )
        }),
        ("param:filename", |t| {
            let pct = hex_escaped(&[b"a", t, b".pdf"].concat(), '%', &|b| {
                b.is_ascii_alphanumeric() || b == b'.'
            });
            msg(
                &format!(
                    "Content-Type: application/pdf\nContent-Disposition: attachment; filename*=UTF-8''{pct}\nContent-Transfer-Encoding: base64\n"
                ),
                b"JVBERg==",
            )
        }),
        ("param:name", |t| {
            msg(
                &format!(
                    "Content-Type: application/octet-stream; name=\"=?utf-8?B?{}?=\"\nContent-Transfer-Encoding: base64\n",
                    b64(&[b"a", t, b".exe"].concat())
                ),
                b"AAAA",
            )
        }),
    ]
}

fn audit(m: &[u8]) -> Vec<Record> {
    audit_message(
        m,
        &MessageContext {
            input: "generated",
            index: 0,
        },
        &AuditOptions::default(),
    )
}

#[test]
fn every_defect_is_reported_where_it_is() {
    let mut failures = Vec::new();
    for (name, octets, kinds) in DEFECTS {
        for (i, (location, build)) in places().into_iter().enumerate() {
            let m = build(octets);
            let rs = audit(&m);
            let Some(r) = rs.iter().find(|r| r.location == location) else {
                failures.push(format!("{name} at {location} #{i}: no record"));
                continue;
            };
            let got: Vec<FindingKind> = r.findings.iter().map(|f| f.kind).collect();
            if r.verdict != Verdict::Invalid || !kinds.iter().all(|k| got.contains(k)) {
                failures.push(format!(
                    "{name} at {location} #{i}: {} {:?}",
                    r.verdict, r.findings
                ));
            }
            // Path traversal is named in file names only, for / and .
            let traversal = r.findings.iter().any(|f| {
                f.note
                    .as_deref()
                    .is_some_and(|n| n.contains("path traversal"))
            });
            let expect = location.starts_with("param:") && name.contains("slash")
                || location.starts_with("param:") && name.contains("dot");
            if traversal != expect {
                failures.push(format!(
                    "{name} at {location} #{i}: traversal note {traversal}, expected {expect}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_clean_twins_are_ok() {
    for (i, (location, build)) in places().into_iter().enumerate() {
        let m = build(CLEAN);
        let rs = audit(&m);
        assert!(
            rs.iter().any(|r| r.location == location),
            "#{i}: no record at {location}"
        );
        for r in rs {
            assert!(
                r.verdict == Verdict::Ok && r.findings.is_empty(),
                "#{i} {location}: {} {:?}",
                r.verdict,
                r.findings
            );
        }
    }
}

mod never_panics {
    use super::audit;
    use proptest::prelude::*;

    fn fixtures() -> Vec<Vec<u8>> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/messages");
        let mut v: Vec<Vec<u8>> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "eml"))
            .map(|e| std::fs::read(e.path()).unwrap())
            .collect();
        v.sort();
        v
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Fixtures with octets overwritten and cut short: the audit never
        /// panics, and every message yields at least one record.
        #[test]
        fn mutated_fixtures(pick in 0usize..64, edits in prop::collection::vec((any::<u16>(), any::<u8>()), 0..24), cut in any::<u16>()) {
            let all = fixtures();
            let mut m = all[pick % all.len()].clone();
            for (at, b) in edits {
                let i = usize::from(at) % m.len().max(1);
                if let Some(x) = m.get_mut(i) {
                    *x = b;
                }
            }
            let keep = m.len() - usize::from(cut) % (m.len() / 4 + 1);
            m.truncate(keep);
            let rs = audit(&m);
            prop_assert!(!rs.is_empty());
        }

        /// Arbitrary octets after a header that announces UTF-8.
        #[test]
        fn arbitrary_bodies_and_words(body in prop::collection::vec(any::<u8>(), 0..256)) {
            let mut m = b"Subject: =?utf-8?q?".to_vec();
            for &b in &body[..body.len().min(40)] {
                m.extend_from_slice(format!("={b:02X}").as_bytes());
            }
            m.extend_from_slice(b"?=\nContent-Type: text/plain; charset=utf-8\n\n");
            m.extend_from_slice(&body);
            let rs = audit(&m);
            prop_assert!(rs.iter().any(|r| r.location == "body"));
        }
    }
}
