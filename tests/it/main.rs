//! The integration tests, one binary (one link instead of forty): each
//! module is the file of the same name; `common` is shared by all of them.
//! How the suite is organised, what it needs and how long it takes:
//! doc/testing.md.

mod common;

mod adversarial;
mod archive_interrupt;
mod audit_cli;
mod audit_corpus;
mod audit_fixtures;
mod audit_generated;
mod audit_mail_parser;
mod charset_cli;
mod charset_corpus;
mod charset_decision;
mod charset_dispatch;
mod charset_generated;
mod charset_hangul;
mod charset_latin_guess;
mod charset_registry;
mod charset_tables;
mod charset_utf7;
mod codec_cli;
mod codec_legacy;
mod codec_utf8;
mod compressed_inputs;
mod filter_robustness;
mod mailbox_maildir;
mod mailbox_mbox;
mod mailbox_pipeline;
mod message_tree;
mod milter_cli;
mod mime_api;
mod mime_charsets;
mod mime_differential;
mod mime_headers;
mod mime_robustness;
mod mime_vectors;
mod mime_writer;
mod normalize_cli;
mod normalize_corpus;
mod normalize_delimiters;
mod normalize_fixtures;
mod normalize_generated;
mod normalize_regressions;
mod normalize_siblings;
mod nothing_lost;
mod transfer;
mod transfer_oracles;
mod vectors;

/// proptest keeps the seeds of failures it shrank in
/// `tests/proptest-regressions/<module>.txt` (this is one binary,
/// `tests/it/main.rs`) and replays them first. A seed file beside a module
/// (`tests/it/<module>.proptest-regressions`, where proptest wrote them
/// before the modules became one binary) is never read: its seeds would
/// never run again.
#[test]
fn proptest_seeds_are_where_proptest_reads_them() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let stray: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/it")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".proptest-regressions"))
        .collect();
    assert!(
        stray.is_empty(),
        "move their cc lines into tests/proptest-regressions/: {stray:?}"
    );
    assert!(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/proptest-regressions/charset_decision.txt")
            .is_file()
    );
}
