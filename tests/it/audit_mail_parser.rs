//! mail-parser as an independent reader of the fixtures: its text parts
//! carry the labels the audit reports, and `audit::from_mail_parser`
//! (feature `mail-parser`; `.ci/run` runs it) reports what mail-parser's own
//! decoding hides.

use crate::common;

use mail_parser::MimeHeaders;
use mailcharset::audit::{AuditOptions, MessageContext, audit_message};
use std::path::Path;

fn fixtures() -> Vec<std::path::PathBuf> {
    let files = common::files_under(&common::fixtures().join("messages"), &|p: &Path| {
        p.extension().is_some_and(|e| e == "eml")
    });
    assert!(files.len() >= 30);
    files
}

/// The charset labels of mail-parser's text parts, encapsulated messages
/// included.
fn text_labels(m: &mail_parser::Message<'_>, out: &mut Vec<String>) {
    for p in &m.parts {
        match &p.body {
            mail_parser::PartType::Message(inner) => text_labels(inner, out),
            _ => {
                if let Some(l) = p
                    .content_type()
                    .filter(|ct| ct.ctype().eq_ignore_ascii_case("text"))
                    .and_then(|ct| ct.attribute("charset"))
                {
                    out.push(l.to_ascii_lowercase());
                }
            }
        }
    }
}

/// mail-parser, an independent parser, finds the same charset labels on
/// the text parts as the audit's body records (the adapter's reason to
/// exist: a gateway that parsed with mail-parser gets records about the
/// parts it saw).
#[test]
fn mail_parsers_text_part_labels_are_the_audits() {
    let mut compared = 0;
    for f in fixtures() {
        let bytes = std::fs::read(&f).unwrap();
        let parsed = mail_parser::MessageParser::default()
            .parse(&bytes)
            .expect("mail-parser parses the fixture");
        assert_eq!(parsed.raw_message(), &bytes[..], "{}", f.display());
        let mut theirs = Vec::new();
        text_labels(&parsed, &mut theirs);
        let ctx = MessageContext {
            input: "x",
            index: 0,
        };
        let ours: Vec<String> = audit_message(&bytes, &ctx, &AuditOptions::default())
            .into_iter()
            .filter(|r| r.location == "body")
            .filter_map(|r| r.label)
            .map(|l| l.trim_matches('"').to_ascii_lowercase())
            .collect();
        let (mut t, mut o) = (theirs.clone(), ours.clone());
        t.sort();
        o.sort();
        assert_eq!(t, o, "{}", f.display());
        compared += theirs.len();
    }
    assert!(compared >= 20, "only {compared} labels compared");
}

/// The adapter on a message mail-parser parsed: the records name the
/// input and position given, and report what the text parts hold (the CESU-8
/// fixture's pairs; mail-parser itself reads them as U+FFFD).
#[cfg(feature = "mail-parser")]
#[test]
fn from_mail_parser_reports_what_mail_parser_hides() {
    use mailcharset::audit::from_mail_parser;
    let f = fixtures()
        .into_iter()
        .find(|f| f.ends_with("cesu8.eml"))
        .expect("the CESU-8 fixture");
    let bytes = std::fs::read(&f).unwrap();
    let parsed = mail_parser::MessageParser::default()
        .parse(&bytes)
        .expect("mail-parser parses the fixture");
    let text = parsed.body_text(0).expect("a text body");
    assert!(
        text.contains('\u{FFFD}'),
        "mail-parser replaces the pairs: {text:?}"
    );
    let ctx = MessageContext {
        input: "cesu8.eml",
        index: 3,
    };
    let got = from_mail_parser(&parsed, &ctx, &AuditOptions::default());
    assert!(got.iter().all(|r| &*r.input == "cesu8.eml" && r.index == 3));
    assert!(
        got.iter().any(|r| r
            .findings
            .iter()
            .any(|f| f.kind.as_str() == "surrogate-pair")),
        "{got:?}"
    );
}
