//! The label registry: WHATWG and IANA coverage, label normalisation, the
//! labels real mail carries, and encoding_rs as an oracle for decoder choice.

use crate::common;
use mailcharset::charset::{self, Charset, Support, resolve};
use mailcharset::finding::LabelStatus;
use std::path::PathBuf;

fn corpus(rel: &str) -> Option<PathBuf> {
    common::corpus_file("charset_registry", rel)
}

/// WHATWG labels we route elsewhere by design (doc/charset-aliases.md).
fn whatwg_exception(label: &str, whatwg_name: &str) -> bool {
    matches!(label, "unicode-1-1-utf-8" | "unicode11utf8") || whatwg_name == "replacement"
}

/// The mail charsets WHATWG sends to "replacement" get our own decoder
/// (ISO-2022-KR, HZ-GB-2312) or an explicit "unsupported" with a reason
/// (ISO-2022-CN, ISO-2022-CN-EXT).
fn own_or_unsupported(label: &str, c: &Charset) {
    match c.support() {
        Support::Decoder(d) => {
            assert_eq!(d, c.name(), "{label}");
            assert!(matches!(d, "ISO-2022-KR" | "HZ-GB-2312"), "{label}");
        }
        Support::Unsupported(reason) => {
            assert!(c.name().starts_with("ISO-2022-CN"), "{label}");
            assert!(reason.contains("CNS 11643"), "{label}");
        }
        Support::Detect => panic!("{label}"),
    }
}

#[test]
fn every_whatwg_label_resolves_to_the_whatwg_decoder() {
    // The copy in fixtures/vectors: this runs in a fresh clone too.
    let p = common::fixtures().join("vectors/whatwg/encodings.json");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
    let mut n = 0;
    for group in v.as_array().unwrap() {
        for e in group["encodings"].as_array().unwrap() {
            let name = e["name"].as_str().unwrap();
            for label in e["labels"].as_array().unwrap() {
                let label = label.as_str().unwrap();
                let r = resolve(Some(label.as_bytes()));
                n += 1;
                if whatwg_exception(label, name) {
                    match r.charset {
                        // "replacement" itself is not a charset.
                        None => assert_eq!(label, "replacement"),
                        Some(c) if name == "replacement" => own_or_unsupported(label, c),
                        Some(c) => assert!(c.is_unicode11_utf8(), "{label}"),
                    }
                    continue;
                }
                let c = r
                    .charset
                    .unwrap_or_else(|| panic!("WHATWG label {label} unresolved"));
                assert_eq!(
                    c.decoder_name(),
                    Some(name),
                    "WHATWG label {label} ({name}) resolved to {} with decoder {:?}",
                    c.name(),
                    c.decoder_name()
                );
                assert!(matches!(
                    r.status,
                    LabelStatus::Whatwg | LabelStatus::Registered | LabelStatus::Preferred
                ));
            }
        }
    }
    assert!(n > 200, "only {n} WHATWG labels read");
}

/// encoding_rs as an oracle without the corpus: every label we have that
/// encoding_rs knows decodes with the same decoder, except the documented
/// mail exceptions.
#[test]
fn encoding_rs_agrees_on_shared_labels() {
    let mut n = 0;
    for (label, c, status) in charset::labels() {
        let Some(enc) = encoding_rs::Encoding::for_label(label.as_bytes()) else {
            continue;
        };
        n += 1;
        if enc.name() == "replacement" {
            own_or_unsupported(label, c);
        } else if matches!(label, "unicode-1-1-utf-8" | "unicode11utf8") {
            assert!(c.is_unicode11_utf8());
        } else {
            assert_eq!(c.decoder_name(), Some(enc.name()), "{label} ({status})");
        }
    }
    assert!(n > 200, "{n}");
}

struct IanaRecord {
    name: String,
    mib: u16,
    preferred: Option<String>,
    aliases: Vec<String>,
}

fn tag<'a>(line: &'a str, t: &str) -> Option<&'a str> {
    let rest = line.trim().strip_prefix(&format!("<{t}>"))?;
    // An alias may carry a note after a newline; the element then ends later.
    let end = rest.find(&format!("</{t}>")).unwrap_or(rest.len());
    Some(rest[..end].trim())
}

/// A small reader for character-sets.xml, independent of the generator.
fn iana_records(xml: &str) -> Vec<IanaRecord> {
    let mut out = Vec::new();
    let mut cur: Option<IanaRecord> = None;
    for line in xml.lines() {
        let t = line.trim();
        if t == "<record>" || t.starts_with("<record ") {
            cur = Some(IanaRecord {
                name: String::new(),
                mib: 0,
                preferred: None,
                aliases: Vec::new(),
            });
        } else if t == "</record>" {
            out.extend(cur.take());
        } else if let Some(r) = cur.as_mut() {
            if let Some(v) = tag(t, "name") {
                r.name = v.to_string();
            } else if let Some(v) = tag(t, "value") {
                r.mib = v.parse().unwrap();
            } else if let Some(v) = tag(t, "preferred_alias") {
                r.preferred = Some(v.to_string());
            } else if let Some(v) = tag(t, "alias") {
                r.aliases
                    .push(v.split_whitespace().next().unwrap().to_string());
            }
        }
    }
    out
}

#[test]
fn every_iana_name_and_alias_resolves_to_its_own_record() {
    let Some(p) = corpus("iana-charsets/character-sets.xml") else {
        return;
    };
    let recs = iana_records(&std::fs::read_to_string(p).unwrap());
    assert_eq!(recs.len(), 258);
    let mut unsupported = 0;
    for rec in &recs {
        let labels = std::iter::once(&rec.name).chain(&rec.aliases);
        for l in labels {
            let r = resolve(Some(l.as_bytes()));
            let c = r
                .charset
                .unwrap_or_else(|| panic!("IANA label {l} unresolved"));
            assert_eq!(c.mib(), Some(rec.mib), "{l}");
            assert_eq!(c.iana_name(), Some(rec.name.as_str()));
            let want = if rec.preferred.as_deref().unwrap_or(&rec.name) == l {
                LabelStatus::Preferred
            } else {
                LabelStatus::Registered
            };
            assert_eq!(r.status, want, "{l}");
            match c.support() {
                Support::Decoder(_) => {}
                Support::Unsupported(reason) => {
                    assert!(!reason.is_empty());
                    unsupported += 1;
                }
                Support::Detect => assert_eq!(c.mib(), Some(2079), "only UNKNOWN-8BIT detects"),
            }
        }
        if let Some(p) = &rec.preferred {
            assert_eq!(
                Charset::for_label(p.as_bytes()).map(|c| c.name()),
                Some(p.as_str())
            );
        }
    }
    assert!(unsupported > 0);
}

#[test]
fn label_normalisation() {
    let utf8 = Some(Charset::UTF_8);
    for l in [
        &b"utf-8"[..],
        b"UTF-8",
        b"  Utf-8\t",
        b"\"utf-8\"",
        b"'utf-8'",
        b"utf-8*en",
        b"UTF-8*en-us",
        b" \"UTF-8\" ",
    ] {
        assert_eq!(
            Charset::for_label(l),
            utf8,
            "{:?}",
            String::from_utf8_lossy(l)
        );
    }
    assert_eq!(resolve(Some(b"utf-8")).status, LabelStatus::Preferred);
    assert_eq!(resolve(None).status, LabelStatus::Missing);
    assert_eq!(resolve(None).charset, None);
    for l in [
        &b""[..],
        b"   ",
        b"\"\"",
        b"*en",
        b"utf-8x",
        b"\xFF\xFE",
        &[b'a'; 200],
    ] {
        let r = resolve(Some(l));
        assert_eq!(r.charset, None);
        assert_eq!(r.status, LabelStatus::Unknown);
    }
    // Quoted-printable damage: "charset=3Diso-8859-1".
    let r = resolve(Some(b"3Diso-8859-1"));
    assert_eq!(r.charset, Some(Charset::ISO_8859_1));
    assert_eq!(r.status, LabelStatus::Alias);
    // Pointer identity.
    assert!(std::ptr::eq(
        Charset::for_label(b"latin1").unwrap(),
        Charset::for_label(b"ISO_8859-1:1987").unwrap()
    ));
}

#[test]
fn mail_aliases_resolve_with_status_alias() {
    let tsv = include_str!("../../tools/mail-aliases.tsv");
    let mut n = 0;
    for line in tsv.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let mut f = line.split('\t');
        let (label, target) = (f.next().unwrap(), f.next().unwrap());
        let r = resolve(Some(label.as_bytes()));
        assert_eq!(r.status, LabelStatus::Alias, "{label}");
        let t = Charset::for_label(target.as_bytes()).unwrap();
        assert_eq!(r.charset, Some(t), "{label}");
        n += 1;
    }
    assert!(n >= 20);
    for (l, name) in [
        ("bog5", "Big5"),
        ("x-unicode-2-0-utf-7", "UTF-7"),
        ("unicode-1-1-utf-7", "UNICODE-1-1-UTF-7"),
        ("ks_c_5601-1987", "KS_C_5601-1987"),
        ("csUnicode11UTF8", "UNICODE-1-1-UTF-8"),
        ("x-unknown", "UNKNOWN-8BIT"),
    ] {
        assert_eq!(
            Charset::for_label(l.as_bytes()).map(|c| c.name()),
            Some(name)
        );
    }
    assert_eq!(
        Charset::for_label(b"ks_c_5601-1987")
            .unwrap()
            .decoder_name(),
        Some("EUC-KR")
    );
    assert!(
        Charset::for_label(b"unknown-8bit")
            .unwrap()
            .is_unknown_8bit()
    );
}

/// Every label a 23-year list archive carries resolves, except parser debris
/// and truncated QP damage, which we do not guess at.
#[test]
fn linux_mips_labels_resolve() {
    let Some(p) = corpus("linux-mips-archive/MANIFEST.tsv") else {
        return;
    };
    let text = std::fs::read_to_string(p).unwrap();
    let debris = [
        "a",
        "3d",
        "content-transfer-encoding:",
        "3diso-885",
        "3dus-asci",
        "3dwindows",
        "3diso-8859-",
    ];
    let mut seen = std::collections::BTreeSet::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        for col in [4, 5] {
            for l in f.get(col).unwrap_or(&"").split(',') {
                let l = l.trim();
                if !l.is_empty() {
                    seen.insert(l.to_string());
                }
            }
        }
    }
    assert!(seen.len() > 50);
    for l in &seen {
        let r = resolve(Some(l.as_bytes()));
        if debris.contains(&l.as_str()) {
            assert_eq!(r.status, LabelStatus::Unknown, "{l}");
        } else {
            let c = r.charset.unwrap_or_else(|| panic!("{l} unresolved"));
            assert!(
                !matches!(c.support(), Support::Unsupported(_)),
                "{l} resolves to unsupported {}",
                c.name()
            );
        }
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn for_label_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
            let _ = resolve(Some(&bytes));
        }

        #[test]
        fn case_insensitive(i in 0usize..10_000, mask in any::<u64>()) {
            let labels: Vec<_> = charset::labels().collect();
            let (l, c, _) = labels[i % labels.len()];
            let mixed: Vec<u8> = l.bytes().enumerate().map(|(k, b)| {
                if (mask >> (k % 64)) & 1 == 1 { b.to_ascii_uppercase() } else { b }
            }).collect();
            prop_assert_eq!(Charset::for_label(&mixed), Some(c));
        }
    }
}
