//! Codec throughput: strict validation and lossy decoding against simdutf8,
//! std and encoding_rs on ASCII, Latin, CJK and emoji text, valid and with 1%
//! of bytes corrupted (fixed seed).
//!
//! `cargo bench --bench codec -- --warm-up-time 1 --measurement-time 3`

mod common;

use criterion::{Criterion, Throughput};
use mailcharset::codec::utf8;
use std::hint::black_box;

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

        let broken = corrupt(&valid, 0xC0DE + name.len() as u64);
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

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let mut groups = Vec::new();
    benches(&mut c, &mut groups);
    c.final_summary();
    for (group, ours, baselines) in &groups {
        common::print_ratios(group, ours, baselines);
    }
}
