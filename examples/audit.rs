//! Audits message files with the library API and prints one JSON record
//! per line, then the summary table on stderr.
//!
//! ```text
//! cargo run --example audit -- fixtures/messages/cesu8.eml fixtures/messages/c1-in-latin1.eml
//! ```

use mailcharset::audit::{AuditOptions, Format, MessageContext, RecordWriter, audit_message};
use std::process::ExitCode;

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: audit FILE...");
        return ExitCode::from(64);
    }
    let opts = AuditOptions::default();
    let stdout = std::io::stdout().lock();
    let Ok(mut w) = RecordWriter::new(stdout, Format::Jsonl) else {
        return ExitCode::from(74);
    };
    for f in &files {
        let bytes = match std::fs::read(f) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{f}: {e}");
                return ExitCode::from(66);
            }
        };
        let ctx = MessageContext { input: f, index: 0 };
        let records = audit_message(&bytes, &ctx, &opts);
        if w.write_message(&records).is_err() {
            return ExitCode::from(74);
        }
    }
    let Ok(summary) = w.finish() else {
        return ExitCode::from(74);
    };
    let _ = summary.write_table(&mut std::io::stderr());
    ExitCode::SUCCESS
}
