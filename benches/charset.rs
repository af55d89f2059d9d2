//! Charset dispatch vs encoding_rs direct (10 MiB of windows-1252, Shift_JIS,
//! UTF-8), and label lookup.
//!
//! cargo bench --bench charset -- --warm-up-time 1 --measurement-time 3

mod common;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use mailcharset::charset::{self, Charset, DecodeOptions};
use std::hint::black_box;

const SIZE: usize = 10 * 1024 * 1024;

/// `sample` repeated to SIZE bytes (cut at a sample boundary).
fn repeat(sample: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(SIZE + sample.len());
    while v.len() + sample.len() <= SIZE {
        v.extend_from_slice(sample);
    }
    v
}

fn inputs() -> Vec<(
    &'static str,
    &'static [u8],
    &'static encoding_rs::Encoding,
    Vec<u8>,
)> {
    let french = "Le c\u{153}ur d\u{E9}\u{E7}u \u{E0} l'\u{E9}t\u{E9} \u{2014} \u{AB}\u{A0}caf\u{E9} cr\u{E8}me\u{A0}\u{BB}, 5\u{20AC}. The quick brown fox jumps over the lazy dog.\n";
    let japanese = "\u{65E5}\u{672C}\u{8A9E}\u{306E}\u{30E1}\u{30FC}\u{30EB}\u{3092}\u{8AAD}\u{3080}\u{3002}Mail from 2001, \u{FF76}\u{FF85} and ASCII.\n";
    let mixed = "UTF-8 mail: na\u{EF}ve caf\u{E9}, \u{41F}\u{440}\u{438}\u{432}\u{435}\u{442}, \u{65E5}\u{672C}\u{8A9E}, \u{D55C}\u{AD6D}\u{C5B4} \u{1F600}. Plain ASCII makes up most of a real message body.\n";
    let w1252 = encoding_rs::WINDOWS_1252.encode(french).0.into_owned();
    let sjis = encoding_rs::SHIFT_JIS.encode(japanese).0.into_owned();
    vec![
        (
            "windows-1252",
            b"windows-1252",
            encoding_rs::WINDOWS_1252,
            repeat(&w1252),
        ),
        (
            "Shift_JIS",
            b"shift_jis",
            encoding_rs::SHIFT_JIS,
            repeat(&sjis),
        ),
        (
            "UTF-8",
            b"utf-8",
            encoding_rs::UTF_8,
            repeat(mixed.as_bytes()),
        ),
    ]
}

fn bench_dispatch(c: &mut Criterion) {
    let opts = DecodeOptions::default();
    for (name, label, enc, bytes) in inputs() {
        // Sanity: both paths agree and the input is clean.
        let ours = charset::decode(&bytes, Some(label), &opts);
        assert_eq!(ours.replacements, 0);
        assert_eq!(ours.text, enc.decode_without_bom_handling(&bytes).0);
        let group_name = format!("charset-decode-{name}");
        let mut g = c.benchmark_group(&group_name);
        g.sample_size(10);
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function("dispatch", |b| {
            b.iter(|| {
                charset::decode(black_box(&bytes), Some(label), &opts)
                    .text
                    .len()
            })
        });
        g.bench_function("encoding_rs", |b| {
            b.iter(|| enc.decode_without_bom_handling(black_box(&bytes)).0.len())
        });
        g.finish();
    }
}

const LABELS: &[&[u8]] = &[
    b"utf-8",
    b"ISO-8859-1",
    b"us-ascii",
    b"windows-1252",
    b"\"koi8-r\"",
    b"Shift_JIS",
    b"iso-2022-jp",
    b"ks_c_5601-1987",
    b"GB2312",
    b"unicode-1-1-utf-8",
    b"x-unknown-charset",
    b"3Diso-8859-1",
];

fn bench_labels(c: &mut Criterion) {
    let mut g = c.benchmark_group("charset-label");
    g.throughput(Throughput::Elements(LABELS.len() as u64));
    g.bench_function(BenchmarkId::from_parameter("for_label"), |b| {
        b.iter(|| {
            LABELS
                .iter()
                .filter(|l| Charset::for_label(black_box(l)).is_some())
                .count()
        })
    });
    g.bench_function(BenchmarkId::from_parameter("encoding_rs"), |b| {
        b.iter(|| {
            LABELS
                .iter()
                .filter(|l| encoding_rs::Encoding::for_label(black_box(l)).is_some())
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, bench_dispatch, bench_labels);

/// Wall time of one call of `f`, in nanoseconds.
fn time_ns(f: impl FnOnce() -> usize) -> f64 {
    let t = std::time::Instant::now();
    black_box(f());
    t.elapsed().as_nanos() as f64
}

/// On a machine shared with other builds, criterion's means swing by tens of
/// percent between consecutive functions. This interleaves the two sides
/// (alternating which goes first) and compares their minimum times, the
/// estimate least disturbed by other processes.
fn interleaved() {
    let opts = DecodeOptions::default();
    let rounds = 21;
    for (name, label, enc, bytes) in inputs() {
        let (mut ours, mut direct) = (f64::MAX, f64::MAX);
        for r in 0..rounds {
            let a = || time_ns(|| charset::decode(&bytes, Some(label), &opts).text.len());
            let b = || time_ns(|| enc.decode_without_bom_handling(&bytes).0.len());
            if r % 2 == 0 {
                ours = ours.min(a());
                direct = direct.min(b());
            } else {
                direct = direct.min(b());
                ours = ours.min(a());
            }
        }
        println!(
            "interleaved min-of-{rounds} {name}: dispatch {:.3} ms, encoding_rs {:.3} ms, ratio {:.2}",
            ours / 1e6,
            direct / 1e6,
            direct / ours
        );
    }
    let n = 100_000;
    let (mut ours, mut direct) = (f64::MAX, f64::MAX);
    for _ in 0..rounds {
        ours = ours.min(time_ns(|| {
            (0..n)
                .filter(|i| Charset::for_label(black_box(LABELS[i % LABELS.len()])).is_some())
                .count()
        }));
        direct = direct.min(time_ns(|| {
            (0..n)
                .filter(|i| {
                    encoding_rs::Encoding::for_label(black_box(LABELS[i % LABELS.len()])).is_some()
                })
                .count()
        }));
    }
    println!(
        "interleaved min-of-{rounds} label lookup: for_label {:.1} ns, encoding_rs {:.1} ns per label",
        ours / n as f64,
        direct / n as f64
    );
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    for name in ["windows-1252", "Shift_JIS", "UTF-8"] {
        common::print_ratios(
            &format!("charset-decode-{name}"),
            "dispatch",
            &["encoding_rs"],
        );
    }
    common::print_ratios("charset-label", "for_label", &["encoding_rs"]);
    let per_label =
        common::mean_ns("charset-label", "for_label").map(|ns| ns / LABELS.len() as f64);
    if let Some(ns) = per_label {
        println!(
            "label lookup: {ns:.1} ns per label (mean over {} labels)",
            LABELS.len()
        );
    }
    // Only under `cargo bench` (not `cargo test --benches`).
    if std::env::args().any(|a| a == "--bench") {
        interleaved();
    }
}
