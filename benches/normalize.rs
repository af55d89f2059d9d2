//! Normalize throughput on one thread over the linux-mips messages (loaded
//! in memory; skipped when `../shared/corpus` is absent), against
//! mail-parser 0.11 parsing each message and decoding every text part —
//! the least a reader that wants the text has to do. Throughput is counted
//! in input octets.
//!
//! ```text
//! cargo bench --bench normalize -- --warm-up-time 1 --measurement-time 3
//! ```

mod common;

use criterion::{Criterion, Throughput};
use mailcharset::normalize::{self, Options};
use std::hint::black_box;
use std::path::Path;

fn load() -> Option<Vec<Vec<u8>>> {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/linux-mips-archive/msgs");
    if !dir.is_dir() {
        println!(
            "note: bench normalize: skipped, {} is absent",
            dir.display()
        );
        return None;
    }
    let mut files = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).ok()?.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "eml") {
                files.push(p);
            }
        }
    }
    files.sort();
    Some(files.iter().filter_map(|f| std::fs::read(f).ok()).collect())
}

/// Octets of text in every text part (mail-parser decodes transfer coding
/// and charset while parsing), nested messages included.
fn text_len(msg: &mail_parser::Message<'_>) -> usize {
    msg.parts
        .iter()
        .map(|p| match &p.body {
            mail_parser::PartType::Text(t) | mail_parser::PartType::Html(t) => t.len(),
            mail_parser::PartType::Message(m) => text_len(m),
            _ => 0,
        })
        .sum()
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let Some(msgs) = load() else {
        return;
    };
    let total: usize = msgs.iter().map(Vec::len).sum();
    println!("linux-mips: {} messages, {} bytes", msgs.len(), total);
    let opts = Options::default();
    let changed = msgs
        .iter()
        .filter(|m| normalize::normalize(m, &opts).is_ok_and(|n| n.report.changed))
        .count();
    println!("linux-mips: {changed} messages change under normalization");
    let group_name = "normalize-linux-mips";
    let mut g = c.benchmark_group(group_name);
    g.throughput(Throughput::Bytes(total as u64));
    g.sample_size(10);
    g.bench_function("mailcharset-normalize", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for m in &msgs {
                if let Ok(out) = normalize::normalize(black_box(m), &opts) {
                    n += out.bytes.len();
                }
            }
            n
        })
    });
    g.bench_function("mail-parser-parse-and-text", |b| {
        let parser = mail_parser::MessageParser::default();
        b.iter(|| {
            let mut n = 0usize;
            for m in &msgs {
                if let Some(msg) = parser.parse(black_box(m.as_slice())) {
                    n += text_len(&msg);
                }
            }
            n
        })
    });
    g.finish();
    common::print_ratios(
        group_name,
        "mailcharset-normalize",
        &["mail-parser-parse-and-text"],
    );
}
