//! One thread, the linux-mips selection of `../shared/corpus` in memory
//! (skipped with a note when absent): `audit::audit_message` against
//! mail-parser 0.11 parsing each message and reading every text part (its
//! parse decodes transfer codings, charsets and header encoded-words).
//! Throughput is counted in message octets.
//!
//! ```text
//! cargo bench --bench audit -- --warm-up-time 1 --measurement-time 3
//! ```

mod common;

use criterion::{Criterion, Throughput};
use mailcharset::audit::{AuditOptions, MessageContext, audit_message};
use std::hint::black_box;
use std::path::Path;

fn load() -> Option<Vec<Vec<u8>>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/linux-mips-archive");
    let manifest = std::fs::read_to_string(root.join("MANIFEST.tsv")).ok()?;
    let msgs: Vec<Vec<u8>> = manifest
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .filter_map(|p| std::fs::read(root.join(p)).ok())
        .collect();
    (!msgs.is_empty()).then_some(msgs)
}

fn mail_parser_parse_decode(msgs: &[Vec<u8>]) -> usize {
    let parser = mail_parser::MessageParser::default();
    let mut n = 0;
    for m in msgs {
        if let Some(msg) = parser.parse(m) {
            n += msg.subject().map_or(0, str::len);
            for part in &msg.parts {
                match &part.body {
                    mail_parser::PartType::Text(t) | mail_parser::PartType::Html(t) => {
                        n += t.len();
                    }
                    _ => {}
                }
            }
        }
    }
    n
}

fn ours(msgs: &[Vec<u8>], opts: &AuditOptions) -> usize {
    let mut n = 0;
    for (index, m) in msgs.iter().enumerate() {
        let ctx = MessageContext {
            input: "linux-mips",
            index,
        };
        n += audit_message(m, &ctx, opts).len();
    }
    n
}

fn main() {
    let Some(msgs) = load() else {
        eprintln!("note: benches/audit: ../shared/corpus/linux-mips-archive absent, skipped");
        return;
    };
    let bytes: usize = msgs.iter().map(Vec::len).sum();
    eprintln!("{} messages, {} bytes", msgs.len(), bytes);
    let opts = AuditOptions::default();
    // Both sides do real work on every message.
    assert!(ours(&msgs, &opts) >= msgs.len());
    assert!(mail_parser_parse_decode(&msgs) > 0);

    let mut c = Criterion::default().sample_size(10).configure_from_args();
    let mut g = c.benchmark_group("audit_linux_mips");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("mailcharset_audit", |b| {
        b.iter(|| black_box(ours(black_box(&msgs), &opts)))
    });
    g.bench_function("mail_parser_parse_decode", |b| {
        b.iter(|| black_box(mail_parser_parse_decode(black_box(&msgs))))
    });
    g.finish();
    c.final_summary();
    common::print_ratios(
        "audit_linux_mips",
        "mailcharset_audit",
        &["mail_parser_parse_decode"],
    );
    // The machine is shared: means move with the neighbours' load. The
    // fastest of interleaved runs is what each side costs when it gets the
    // core.
    let rounds = 15;
    let (mut a, mut b) = (f64::MAX, f64::MAX);
    for _ in 0..rounds {
        let t = std::time::Instant::now();
        black_box(ours(black_box(&msgs), &opts));
        a = a.min(t.elapsed().as_secs_f64());
        let t = std::time::Instant::now();
        black_box(mail_parser_parse_decode(black_box(&msgs)));
        b = b.min(t.elapsed().as_secs_f64());
    }
    let mib = bytes as f64 / (1 << 20) as f64;
    println!(
        "fastest of {rounds} interleaved runs: mailcharset_audit {:.1} ms ({:.0} MiB/s), \
         mail_parser_parse_decode {:.1} ms ({:.0} MiB/s): {:.2}x",
        a * 1e3,
        mib / a,
        b * 1e3,
        mib / b,
        b / a
    );
}
