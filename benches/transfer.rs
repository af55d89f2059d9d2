//! Transfer codings on ~1 MiB bodies: ours against the `base64` and
//! `quoted_printable` crates and mail-parser's decoders, in one criterion
//! group per operation. Throughput is counted in decoded octets.
//!
//! The `base64` crate rejects line breaks, so it is measured two ways: on
//! the same folded input after stripping CR/LF into a new buffer (what a
//! mail reader using it would have to do), and on a pre-unwrapped copy (a
//! lower bound no mail body offers).

mod common;

use criterion::{Criterion, Throughput};
use mailcharset::message::transfer::{
    Newline, decode_base64, decode_quoted_printable, encode_base64, encode_quoted_printable,
};
use std::hint::black_box;

const SIZE: usize = 1 << 20;

/// 1 MiB of pseudo-random octets (an attachment).
fn binary() -> Vec<u8> {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    (0..SIZE)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// About 1 MiB of French prose in UTF-8 with CRLF lines (mostly ASCII, the
/// case quoted-printable is chosen for).
fn text() -> Vec<u8> {
    let para = "J'interdis aux marchands de vanter trop leurs marchandises. Car ils se \
                font vite pédagogues et t'enseignent comme but ce qui n'est par essence \
                qu'un moyen, et te trompant ainsi sur la route à suivre les voilà bientôt \
                qui te dégradent = 100 % vulgaire.";
    let mut out = Vec::with_capacity(SIZE + 200);
    let mut col = 0;
    while out.len() < SIZE {
        for word in para.split(' ') {
            if col + word.len() > 70 {
                out.extend_from_slice(b"\r\n");
                col = 0;
            }
            out.extend_from_slice(word.as_bytes());
            out.push(b' ');
            col += word.len() + 1;
        }
    }
    out
}

fn strip_crlf(input: &[u8]) -> Vec<u8> {
    input
        .iter()
        .copied()
        .filter(|&b| b != b'\r' && b != b'\n')
        .collect()
}

fn main() {
    use base64::Engine as _;
    let engine = base64::engine::general_purpose::STANDARD;
    let mut c = Criterion::default().configure_from_args();

    let bin = binary();
    let b64 = encode_base64(&bin, Newline::Crlf);
    let b64_unwrapped = strip_crlf(&b64);
    // Every contender must decode to the same octets before it is timed.
    assert_eq!(decode_base64(&b64).bytes, bin);
    assert_eq!(engine.decode(&b64_unwrapped).ok().as_ref(), Some(&bin));
    assert_eq!(
        mail_parser::decoders::base64::base64_decode(&b64).as_ref(),
        Some(&bin)
    );
    assert_eq!(engine.encode(&bin).into_bytes(), b64_unwrapped);

    let mut g = c.benchmark_group("transfer_base64_decode");
    g.throughput(Throughput::Bytes(bin.len() as u64));
    g.bench_function("mailcharset", |b| b.iter(|| decode_base64(black_box(&b64))));
    g.bench_function("base64_crate_strip_crlf", |b| {
        b.iter(|| engine.decode(strip_crlf(black_box(&b64))))
    });
    g.bench_function("base64_crate_unwrapped", |b| {
        b.iter(|| engine.decode(black_box(&b64_unwrapped)))
    });
    g.bench_function("mail_parser", |b| {
        b.iter(|| mail_parser::decoders::base64::base64_decode(black_box(&b64)))
    });
    g.finish();

    let mut g = c.benchmark_group("transfer_base64_encode");
    g.throughput(Throughput::Bytes(bin.len() as u64));
    g.bench_function("mailcharset", |b| {
        b.iter(|| encode_base64(black_box(&bin), Newline::Crlf))
    });
    g.bench_function("base64_crate_unwrapped", |b| {
        b.iter(|| engine.encode(black_box(&bin)))
    });
    g.finish();

    let txt = text();
    let qp = encode_quoted_printable(&txt, Newline::Crlf);
    assert_eq!(decode_quoted_printable(&qp).bytes, txt);
    assert_eq!(
        quoted_printable::decode(&qp, quoted_printable::ParseMode::Robust).ok(),
        Some(txt.clone())
    );

    let mut g = c.benchmark_group("transfer_qp_decode");
    g.throughput(Throughput::Bytes(txt.len() as u64));
    g.bench_function("mailcharset", |b| {
        b.iter(|| decode_quoted_printable(black_box(&qp)))
    });
    g.bench_function("quoted_printable_crate", |b| {
        b.iter(|| quoted_printable::decode(black_box(&qp), quoted_printable::ParseMode::Robust))
    });
    g.bench_function("mail_parser", |b| {
        b.iter(|| mail_parser::decoders::quoted_printable::quoted_printable_decode(black_box(&qp)))
    });
    g.finish();

    let mut g = c.benchmark_group("transfer_qp_encode");
    g.throughput(Throughput::Bytes(txt.len() as u64));
    g.bench_function("mailcharset", |b| {
        b.iter(|| encode_quoted_printable(black_box(&txt), Newline::Crlf))
    });
    g.bench_function("quoted_printable_crate", |b| {
        b.iter(|| quoted_printable::encode(black_box(&txt)))
    });
    g.finish();

    c.final_summary();
    common::print_ratios(
        "transfer_base64_decode",
        "mailcharset",
        &[
            "base64_crate_strip_crlf",
            "base64_crate_unwrapped",
            "mail_parser",
        ],
    );
    common::print_ratios(
        "transfer_base64_encode",
        "mailcharset",
        &["base64_crate_unwrapped"],
    );
    common::print_ratios(
        "transfer_qp_decode",
        "mailcharset",
        &["quoted_printable_crate", "mail_parser"],
    );
    common::print_ratios(
        "transfer_qp_encode",
        "mailcharset",
        &["quoted_printable_crate"],
    );
}
