//! Normalizes an archive (mbox, Maildir, folder of .eml, or one message)
//! into a new one of the same kind, with the library's mailbox readers and
//! crash-safe writers, and prints what changed per charset label.
//!
//! ```text
//! cargo run --release --example normalize_archive -- INPUT OUTPUT [JOBS]
//! ```

use mailcharset::mailbox::{
    self, MessageReader, MessageWriter, Outcome, OutputKind, Progress, WriteMode, pipeline,
};
use mailcharset::normalize::{self, Action, Options};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: normalize_archive INPUT OUTPUT [JOBS]");
        return ExitCode::from(64);
    }
    let input = PathBuf::from(&args[0]);
    let output = PathBuf::from(&args[1]);
    let jobs = args.get(2).and_then(|j| j.parse().ok()).unwrap_or(0);
    let opts = Options::default();
    // (label, action) -> count
    let tally: Mutex<BTreeMap<(String, &'static str), usize>> = Mutex::new(BTreeMap::new());
    let run = || -> Result<mailbox::RunStats, mailbox::MailboxError> {
        let kind = mailbox::detect(&input)?;
        let reader = MessageReader::open(&input, kind)?;
        mailbox::check_output(&input, &output, WriteMode::Replace)?;
        let writer =
            MessageWriter::create(&output, OutputKind::matching(kind), WriteMode::Replace)?;
        let popts = pipeline::Options {
            jobs,
            progress: Progress::Auto,
            total_bytes: reader.size_hint_bytes(),
            ..pipeline::Options::default()
        };
        pipeline::run(reader, writer, &popts, |m| {
            // Default options never fail (OnError::Replace).
            let Ok(n) = normalize::normalize(&m.bytes, &opts) else {
                return Outcome::unchanged();
            };
            if let Ok(mut t) = tally.lock() {
                for p in n
                    .report
                    .parts
                    .iter()
                    .filter(|p| p.action != Action::Unchanged)
                {
                    let label = p.label.clone().unwrap_or_else(|| "(none)".into());
                    *t.entry((label.to_ascii_lowercase(), p.action.as_str()))
                        .or_default() += 1;
                }
            }
            let findings = n.report.findings();
            match n.bytes {
                std::borrow::Cow::Owned(b) => Outcome::changed(b),
                std::borrow::Cow::Borrowed(_) => Outcome::unchanged(),
            }
            .with_findings(findings)
        })
    };
    match run() {
        Ok(stats) => {
            eprintln!("{stats}");
            for ((label, action), n) in tally.into_inner().unwrap_or_default() {
                println!("{n:8}  {action:9}  {label}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("normalize_archive: {e}");
            ExitCode::from(74)
        }
    }
}
