//! Header parsing speed: the header sections of the linux-mips messages of
//! `../shared/corpus`, parsed by us (fields, Content-Type with parameters,
//! Content-Transfer-Encoding, Subject encoded-words, From/To/Cc address
//! lists with their display names) and by mail-parser 0.11
//! (`MessageParser::parse_headers`, which parses every header it knows)
//! in the same criterion group. Skips when the corpus is absent.
//!
//! cargo bench --bench headers -- --warm-up-time 1 --measurement-time 3

mod common;

use criterion::{Criterion, Throughput};
use mailcharset::mime;
use std::hint::black_box;
use std::path::{Path, PathBuf};

fn messages() -> Option<Vec<Vec<u8>>> {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/linux-mips-archive/msgs");
    if !dir.is_dir() {
        println!(
            "note: {} absent, skipping the header benchmark",
            dir.display()
        );
        return None;
    }
    let mut files: Vec<PathBuf> = Vec::new();
    for year in std::fs::read_dir(&dir).ok()?.flatten() {
        for f in std::fs::read_dir(year.path()).ok()?.flatten() {
            files.push(f.path());
        }
    }
    files.sort();
    let headers = files
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .map(|m| {
            // Cut each message at the end of its header section (the empty
            // line included): both parsers get the same octets.
            let end = mime::parse_header_block(&m).body_offset;
            m[..end].to_vec()
        })
        .collect();
    Some(headers)
}

fn ours(h: &[u8]) -> usize {
    let block = mime::parse_header_block(h);
    let mut n = block.fields.len();
    n += block.content_type().params.len();
    n += block.transfer_encoding().as_str().len();
    if let Some(f) = block.get("subject") {
        n += mime::decode_unstructured(f.value).text.len();
    }
    for name in ["from", "to", "cc"] {
        if let Some(f) = block.get(name) {
            n += mime::parse_address_list(f.value).mailboxes.len();
        }
    }
    n
}

fn theirs(parser: &mail_parser::MessageParser, h: &[u8]) -> usize {
    let Some(m) = parser.parse_headers(h) else {
        return 0;
    };
    use mail_parser::MimeHeaders;
    m.headers().len()
        + m.content_type()
            .map_or(0, |c| c.attributes().map_or(0, |a| a.len()))
        + m.subject().map_or(0, str::len)
        + m.from().map_or(0, |a| a.iter().count())
}

fn main() {
    let Some(headers) = messages() else {
        return;
    };
    let total: usize = headers.iter().map(Vec::len).sum();
    println!("{} header sections, {} bytes", headers.len(), total);
    let mut c = Criterion::default().configure_from_args();
    let parser = mail_parser::MessageParser::default();
    {
        let mut g = c.benchmark_group("headers");
        g.throughput(Throughput::Bytes(total as u64));
        g.sample_size(10);
        g.bench_function("mailcharset", |b| {
            b.iter(|| headers.iter().map(|h| ours(black_box(h))).sum::<usize>())
        });
        g.bench_function("mail-parser", |b| {
            b.iter(|| {
                headers
                    .iter()
                    .map(|h| theirs(&parser, black_box(h)))
                    .sum::<usize>()
            })
        });
        g.finish();
    }
    c.final_summary();
    common::print_ratios("headers", "mailcharset", &["mail-parser"]);
}
