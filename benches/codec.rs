//! Codec throughput: strict validation and lossy decoding against simdutf8,
//! std and encoding_rs on ASCII, Latin, CJK and emoji text, valid and with 1%
//! of bytes corrupted (fixed seed), and on mixed text damaged in the shapes
//! that do not fall at random (evenly spaced invalid leads, runs).
//!
//! `cargo bench --bench codec -- --warm-up-time 1 --measurement-time 3`

mod common;

use criterion::{Criterion, Throughput};
use mailcharset::codec::utf8;
use std::hint::black_box;
use std::time::{Duration, Instant};

const SIZE: usize = 512 * 1024;

/// xorshift64: a fixed, dependency-free stream of pseudo-random numbers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// About `SIZE` bytes of text made of words drawn by `pick`.
fn text(seed: u64, mut pick: impl FnMut(&mut Rng) -> char) -> Vec<u8> {
    let mut rng = Rng(seed);
    let mut s = String::with_capacity(SIZE + 64);
    while s.len() < SIZE {
        let word = 1 + rng.below(9);
        for _ in 0..word {
            s.push(pick(&mut rng));
        }
        s.push(if rng.below(12) == 0 { '\n' } else { ' ' });
    }
    s.into_bytes()
}

fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let ascii = text(1, |r| char::from(b'a' + r.below(26) as u8));
    let latin = text(2, |r| {
        const ACCENTED: &[char] = &['é', 'è', 'à', 'ü', 'ö', 'ß', 'ç', 'ñ', 'ø', 'å'];
        if r.below(8) == 0 {
            ACCENTED[r.below(ACCENTED.len() as u64) as usize]
        } else {
            char::from(b'a' + r.below(26) as u8)
        }
    });
    let cjk = text(3, |r| {
        char::from_u32(0x4E00 + r.below(0x5000) as u32).unwrap_or('字')
    });
    let emoji = text(4, |r| {
        char::from_u32(0x1F300 + r.below(0x300) as u32).unwrap_or('😀')
    });
    vec![
        ("ascii", ascii),
        ("latin", latin),
        ("cjk", cjk),
        ("emoji", emoji),
    ]
}

/// The same bytes with 1% of them replaced by random octets.
fn corrupt(bytes: &[u8], seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed);
    let mut out = bytes.to_vec();
    for _ in 0..out.len() / 100 {
        let at = rng.below(out.len() as u64) as usize;
        out[at] = rng.next() as u8;
    }
    out
}

/// Mixed text: ASCII words, Latin, CJK and an emoji in one sentence.
fn mixed() -> Vec<u8> {
    let line = "Größe 日本語 text 🚀 and more ascii words here. ";
    line.repeat(SIZE / line.len() + 1).into_bytes()
}

/// `bytes` with every `step`th octet replaced by `octet` (an invalid lead
/// such as C0 or C1 falling wherever the step puts it: inside ASCII words,
/// between and inside multi-octet characters).
fn every(bytes: &[u8], step: usize, octet: u8) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for b in out.iter_mut().skip(step - 1).step_by(step) {
        *b = octet;
    }
    out
}

/// `bytes` with 1% of them damaged in runs: every 1,000 octets, 10 random
/// octets in a row.
fn clustered(bytes: &[u8], seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed);
    let mut out = bytes.to_vec();
    for start in (0..out.len().saturating_sub(10)).step_by(1000) {
        let at = start + rng.below(990) as usize;
        for b in out.iter_mut().skip(at).take(10) {
            *b = rng.next() as u8;
        }
    }
    out
}

/// Every broken input: each of [`inputs`] with 1% of its octets replaced
/// at random, and the shapes of damage issue 18 names, on mixed text.
fn broken() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = inputs()
        .into_iter()
        .map(|(name, valid)| {
            (
                name.to_string(),
                corrupt(&valid, 0xC0DE + name.len() as u64),
            )
        })
        .collect();
    let m = mixed();
    out.extend([
        ("mixed-random".to_string(), corrupt(&m, 0xC0DE)),
        ("mixed-c0-every-100".to_string(), every(&m, 100, 0xC0)),
        ("mixed-c1-every-100".to_string(), every(&m, 100, 0xC1)),
        ("mixed-ff-every-100".to_string(), every(&m, 100, 0xFF)),
        ("mixed-clustered".to_string(), clustered(&m, 0xC1C1)),
    ]);
    out
}

fn benches(c: &mut Criterion, groups: &mut Vec<(String, &'static str, Vec<&'static str>)>) {
    for (name, valid) in inputs() {
        let id = format!("valid-{name}");
        let mut g = c.benchmark_group(&id);
        g.throughput(Throughput::Bytes(valid.len() as u64));
        g.bench_function("validate", |b| {
            b.iter(|| utf8::validate(black_box(&valid)).is_ok())
        });
        g.bench_function("simdutf8", |b| {
            b.iter(|| simdutf8::basic::from_utf8(black_box(&valid)).is_ok())
        });
        g.bench_function("std", |b| {
            b.iter(|| std::str::from_utf8(black_box(&valid)).is_ok())
        });
        g.bench_function("decode_lossy", |b| {
            b.iter(|| utf8::decode_lossy(black_box(&valid)).len())
        });
        g.finish();
        groups.push((id.clone(), "validate", vec!["simdutf8", "std"]));
        groups.push((id, "decode_lossy", vec!["validate", "simdutf8"]));
    }
    for (name, broken) in broken() {
        let id = format!("broken-{name}");
        let mut g = c.benchmark_group(&id);
        g.throughput(Throughput::Bytes(broken.len() as u64));
        g.bench_function("decode_lossy", |b| {
            b.iter(|| utf8::decode_lossy(black_box(&broken)).len())
        });
        g.bench_function("decode_lossy_with_report", |b| {
            b.iter(|| {
                utf8::decode_lossy_with_report(black_box(&broken))
                    .1
                    .replacements
            })
        });
        g.bench_function("std_lossy", |b| {
            b.iter(|| String::from_utf8_lossy(black_box(&broken)).len())
        });
        g.bench_function("encoding_rs", |b| {
            b.iter(|| {
                encoding_rs::UTF_8
                    .decode_without_bom_handling(black_box(&broken))
                    .0
                    .len()
            })
        });
        g.finish();
        groups.push((id, "decode_lossy", vec!["std_lossy", "encoding_rs"]));
    }
}

/// Alternates `ours` and `base` and compares the fastest run of each: a
/// figure that survives other processes sharing the CPU (criterion's means
/// do not, on a loaded machine).
fn min_ratio(label: &str, bytes: usize, ours: impl Fn() -> usize, base: impl Fn() -> usize) {
    const ROUNDS: usize = 150;
    let (mut a, mut b) = (Duration::MAX, Duration::MAX);
    for _ in 0..ROUNDS {
        let t = Instant::now();
        black_box(ours());
        a = a.min(t.elapsed());
        let t = Instant::now();
        black_box(base());
        b = b.min(t.elapsed());
    }
    let mib = |d: Duration| bytes as f64 / d.as_secs_f64() / (1024.0 * 1024.0);
    println!(
        "min-ratio {label}: {:.2}x ({:.0} vs {:.0} MiB/s, best of {ROUNDS})",
        b.as_secs_f64() / a.as_secs_f64(),
        mib(a),
        mib(b)
    );
}

/// The min-of-interleaved ratios for every input.
fn min_ratios() {
    for (name, valid) in inputs() {
        let n = valid.len();
        min_ratio(
            &format!("valid-{name}: validate vs simdutf8"),
            n,
            || utf8::validate(black_box(&valid)).map_or(0, str::len),
            || simdutf8::basic::from_utf8(black_box(&valid)).map_or(0, str::len),
        );
        min_ratio(
            &format!("valid-{name}: decode_lossy vs validate"),
            n,
            || utf8::decode_lossy(black_box(&valid)).len(),
            || utf8::validate(black_box(&valid)).map_or(0, str::len),
        );
    }
    for (name, broken) in broken() {
        let n = broken.len();
        min_ratio(
            &format!("broken-{name}: decode_lossy vs std_lossy"),
            n,
            || utf8::decode_lossy(black_box(&broken)).len(),
            || String::from_utf8_lossy(black_box(&broken)).len(),
        );
        min_ratio(
            &format!("broken-{name}: decode_lossy_with_report vs std_lossy"),
            n,
            || utf8::decode_lossy_with_report(black_box(&broken)).0.len(),
            || String::from_utf8_lossy(black_box(&broken)).len(),
        );
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let mut groups = Vec::new();
    benches(&mut c, &mut groups);
    c.final_summary();
    for (group, ours, baselines) in &groups {
        common::print_ratios(group, ours, baselines);
    }
    // Only under `cargo bench` (criterion's test mode runs without --bench).
    if std::env::args().any(|a| a == "--bench") && std::env::var_os("CODEC_NO_MIN_RATIO").is_none()
    {
        min_ratios();
    }
}
