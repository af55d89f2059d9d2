//! `audit::from_mail_parser` (feature `mail-parser`): auditing a message a
//! gateway already parsed gives the records of `audit_message` over the
//! same bytes.
//!
//! Run with `cargo test --features mail-parser --test audit_mail_parser`;
//! without the feature the premise test still runs (mail-parser is a
//! dev-dependency): mail-parser keeps the message byte for byte.

use crate::common;

use mailcharset::audit::{AuditOptions, MessageContext, audit_message};
use std::path::Path;

fn fixtures() -> Vec<std::path::PathBuf> {
    let files = common::files_under(&common::fixtures().join("messages"), &|p: &Path| {
        p.extension().is_some_and(|e| e == "eml")
    });
    assert!(files.len() >= 30);
    files
}

#[test]
fn mail_parser_keeps_the_raw_message() {
    for f in fixtures() {
        let bytes = std::fs::read(&f).unwrap();
        let parsed = mail_parser::MessageParser::default()
            .parse(&bytes)
            .expect("mail-parser parses the fixture");
        assert_eq!(parsed.raw_message(), &bytes[..], "{}", f.display());
        let ctx = MessageContext {
            input: "x",
            index: 0,
        };
        let a = audit_message(parsed.raw_message(), &ctx, &AuditOptions::default());
        let b = audit_message(&bytes, &ctx, &AuditOptions::default());
        assert_eq!(a, b);
    }
}

#[cfg(feature = "mail-parser")]
#[test]
fn from_mail_parser_equals_audit_message() {
    use mailcharset::audit::from_mail_parser;
    let mut seen_problem = false;
    for f in fixtures() {
        let bytes = std::fs::read(&f).unwrap();
        let parsed = mail_parser::MessageParser::default()
            .parse(&bytes)
            .expect("mail-parser parses the fixture");
        let name = f.display().to_string();
        let ctx = MessageContext {
            input: &name,
            index: 3,
        };
        let got = from_mail_parser(&parsed, &ctx, &AuditOptions::default());
        assert_eq!(got, audit_message(&bytes, &ctx, &AuditOptions::default()));
        assert!(got.iter().all(|r| r.input == name && r.index == 3));
        seen_problem |= got.iter().any(|r| {
            r.findings
                .iter()
                .any(|f| f.kind.as_str() == "surrogate-pair")
        });
    }
    assert!(seen_problem, "the CESU-8 fixture's finding is reported");
}
