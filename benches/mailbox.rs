//! Archive benchmarks: mbox reading alone, and the pipeline with one and two
//! jobs running the real normalizer over linux-mips messages (from
//! ../shared/corpus; a synthetic mbox when it is absent). The jobs2/jobs1
//! ratio is the figure for BENCHMARKS.md.
//!
//! `cargo bench --bench mailbox`

#[path = "common/mod.rs"]
mod common;

use criterion::{Criterion, Throughput, criterion_group};
use mailcharset::mailbox::{
    MboxFlavor, MboxFormat, MboxReader, MessageWriter, Options, Outcome, OutputKind, Progress,
    pipeline,
};
use std::hint::black_box;

const FLAVOR: MboxFlavor = MboxFlavor {
    format: MboxFormat::Mboxrd,
    crlf: false,
};

/// About `target` bytes of mboxrd: messages of 1 to 40 KiB, some with
/// quoted `From ` lines.
fn make_mbox(target: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(target + 65536);
    let mut i = 0usize;
    while out.len() < target {
        out.extend_from_slice(
            format!("From s{i}@example.org Thu Jan  1 00:00:00 1970\nSubject: m {i}\n\n")
                .as_bytes(),
        );
        for l in 0..(16 + (i * 7919) % 500) {
            if l % 97 == 0 {
                out.extend_from_slice(b">From a quoted line\n");
            } else {
                out.extend_from_slice(b"The quick brown fox jumps over the lazy dog, again.\n");
            }
        }
        out.push(b'\n');
        i += 1;
    }
    out
}

/// About `target` bytes of mboxrd made of the linux-mips messages of
/// ../shared/corpus (repeated), or None when the corpus is absent.
fn corpus_mbox(target: usize) -> Option<Vec<u8>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/linux-mips-archive/msgs");
    let mut files = Vec::new();
    for year in std::fs::read_dir(&root).ok()?.flatten() {
        for f in std::fs::read_dir(year.path()).ok()?.flatten() {
            files.push(f.path());
        }
    }
    files.sort();
    let msgs: Vec<Vec<u8>> = files.iter().filter_map(|f| std::fs::read(f).ok()).collect();
    if msgs.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(target + 65536);
    for m in msgs.iter().cycle() {
        if out.len() >= target {
            break;
        }
        out.extend_from_slice(b"From archive@example.org Thu Jan  1 00:00:00 2004\n");
        let mut q = Vec::new();
        mailcharset::mailbox::quote_from_lines(m, MboxFormat::Mboxrd, &mut q);
        out.extend_from_slice(&q);
        if !out.ends_with(b"\n") {
            out.push(b'\n');
        }
        out.push(b'\n');
    }
    Some(out)
}

/// The per-message work of `mailcharset normalize`.
fn normalize(bytes: &[u8]) -> Outcome {
    match mailcharset::normalize::normalize(bytes, &mailcharset::normalize::Options::default()) {
        Ok(n) => match n.bytes {
            std::borrow::Cow::Owned(b) => Outcome::changed(b),
            std::borrow::Cow::Borrowed(_) => Outcome::unchanged(),
        },
        Err(_) => Outcome::unchanged(),
    }
}

fn benches(c: &mut Criterion) {
    let data = make_mbox(32 << 20);
    let mut g = c.benchmark_group("mailbox_read");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.sample_size(10);
    g.bench_function("mboxrd", |b| {
        b.iter(|| MboxReader::new(&data[..], "bench", FLAVOR).count())
    });
    g.finish();

    let data = corpus_mbox(32 << 20).unwrap_or_else(|| {
        eprintln!("note: ../shared/corpus absent: the pipeline runs over a synthetic mbox");
        data
    });
    let mut g = c.benchmark_group("mailbox_pipeline");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.sample_size(10);
    for jobs in [1usize, 2] {
        g.bench_function(format!("jobs{jobs}"), |b| {
            b.iter(|| {
                let reader = MboxReader::new(&data[..], "bench", FLAVOR);
                let writer = MessageWriter::to_stream(
                    Box::new(std::io::sink()),
                    OutputKind::Mbox(FLAVOR),
                    "sink",
                )
                .expect("stream writer");
                let opts = Options {
                    jobs,
                    progress: Progress::Never,
                    ..Options::default()
                };
                black_box(
                    pipeline::run(reader, writer, &opts, |m| normalize(&m.bytes)).expect("run"),
                )
            })
        });
    }
    g.finish();
}

criterion_group!(group, benches);

fn main() {
    group();
    Criterion::default().configure_from_args().final_summary();
    common::print_ratios("mailbox_pipeline", "jobs2", &["jobs1"]);
}
