//! Runs the archive pipeline with a toy per-message closure, for measuring
//! the machinery (memory, parallel speedup) before the real normalizer is
//! plugged in.
//!
//! ```text
//! cargo run --release --example mailbox_toy -- INPUT OUTPUT [JOBS] [identity|upper|spin]
//! ```
//!
//! `spin` burns CPU in proportion to the message size (a stand-in for
//! normalization); `upper` upper-cases the Subject line.

use mailcharset::mailbox::{
    self, MessageReader, MessageWriter, Options, Outcome, OutputKind, Progress, WriteMode, pipeline,
};
use std::path::PathBuf;
use std::process::ExitCode;

fn spin(bytes: &[u8]) -> u64 {
    // A few passes of a cheap hash: about as costly per byte as decoding.
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for _ in 0..8 {
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: mailbox_toy INPUT OUTPUT [JOBS] [identity|upper|spin]");
        return ExitCode::from(64);
    }
    let input = PathBuf::from(&args[0]);
    let output = PathBuf::from(&args[1]);
    let jobs = args.get(2).and_then(|j| j.parse().ok()).unwrap_or(0);
    let work = args
        .get(3)
        .map(String::as_str)
        .unwrap_or("identity")
        .to_string();
    let run = || -> Result<mailbox::RunStats, mailbox::MailboxError> {
        let kind = mailbox::detect(&input)?;
        let reader = MessageReader::open(&input, kind)?;
        let out_kind = OutputKind::matching(kind);
        mailbox::check_output(&input, &output, WriteMode::Replace)?;
        let writer = MessageWriter::create(&output, out_kind, WriteMode::Replace)?;
        let opts = Options {
            jobs,
            progress: Progress::Auto,
            total_bytes: reader.size_hint_bytes(),
            ..Options::default()
        };
        pipeline::run(reader, writer, &opts, |m| match work.as_str() {
            "spin" => {
                Outcome::unchanged().with_findings(usize::from(spin(&m.bytes).is_multiple_of(7)))
            }
            "upper" => {
                let mut b = m.bytes.clone();
                let at = if b.starts_with(b"Subject:") {
                    Some(0)
                } else {
                    memchr::memmem::find(&b, b"\nSubject:").map(|i| i + 1)
                };
                if let Some(i) = at {
                    let end = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |e| i + e);
                    b[i + 8..end].make_ascii_uppercase();
                }
                Outcome::changed(b)
            }
            _ => Outcome::unchanged(),
        })
    };
    let start = std::time::Instant::now();
    match run() {
        Ok(stats) => {
            let secs = start.elapsed().as_secs_f64();
            eprintln!("{stats}");
            eprintln!(
                "{:.2} s, {:.1} MB/s, {:.0} messages/s",
                secs,
                stats.bytes_in as f64 / secs / 1e6,
                stats.messages_in as f64 / secs
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mailbox_toy: {e}");
            ExitCode::from(74)
        }
    }
}
