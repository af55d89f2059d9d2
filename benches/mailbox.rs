//! Archive benchmarks: mbox reading alone, and the pipeline with one and two
//! jobs over a CPU-bound stand-in closure (swap in the normalizer when it
//! lands; the jobs2/jobs1 ratio is the figure for BENCHMARKS.md).
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

/// A stand-in for normalization: a few hash passes over the message.
fn spin(bytes: &[u8]) -> Outcome {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for _ in 0..8 {
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    black_box(h);
    Outcome::unchanged()
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
                pipeline::run(reader, writer, &opts, |m| spin(&m.bytes)).expect("run")
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
