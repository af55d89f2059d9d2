//! Snapshots of the header fixtures in `fixtures/headers/*.txt`: every
//! field parsed as what its name says (Content-Type, address lists,
//! unstructured text ...), findings included. Each fixture is also run with
//! CRLF line ends, and the decoded values must not change.
//!
//! What the charset layer alone decides (verdicts, resolutions, the
//! "unknown charset" finding) is left out of the snapshots, so that they
//! hold for the provisional and the real charset layer alike; the fixtures
//! use UTF-8 and US-ASCII labels only. `tests/mime_charsets.rs` covers the
//! rest.

use crate::common;
use mailcharset::finding::Finding;
use mailcharset::mime::{self, DecodedText, Parameter};
use serde_json::{Value, json};
use std::path::Path;

/// Findings that depend on the charset layer and so stay out of snapshots.
fn layer_independent(f: &&Finding) -> bool {
    f.note.as_deref() != Some("unknown charset in encoded-word")
}

fn findings(fs: &[Finding]) -> Value {
    fs.iter()
        .filter(layer_independent)
        .map(|f| {
            json!({"kind": f.kind.as_str(), "offset": f.offset, "count": f.count, "note": f.note})
        })
        .collect()
}

fn text(d: &DecodedText) -> Value {
    json!({
        "text": d.text,
        "words": d.words.iter().map(|w| json!({
            "offset": w.offset, "len": w.len,
            "label": common::escape_octets(&w.label),
            "language": w.language, "encoding": format!("{:?}", w.encoding),
            "run": w.run, "malformed": w.malformed,
        })).collect::<Vec<_>>(),
        "findings": findings(&d.findings),
    })
}

fn params(ps: &[Parameter]) -> Value {
    ps.iter()
        .map(|p| {
            json!({
                "name": p.name, "value": p.value,
                "raw": common::escape_octets(&p.raw),
                "charset": p.charset.as_deref().map(String::from_utf8_lossy),
                "language": p.language, "encoding": p.encoding,
                "words": p.words.len(), "offset": p.offset,
                "findings": findings(&p.findings),
            })
        })
        .collect()
}

/// What a field means, by its name.
fn parsed(f: &mime::Field<'_>) -> Value {
    let name = f.name_str().to_ascii_lowercase();
    match name.as_str() {
        "content-type" | "x-param-test" => {
            let ct = mime::ContentType::parse(f.value);
            json!({
                "mime_type": ct.mime_type(), "defaulted": ct.defaulted,
                "charset": ct.charset().map(String::from_utf8_lossy),
                "boundary": ct.boundary().map(String::from_utf8_lossy),
                "params": params(&ct.params), "findings": findings(&ct.findings),
            })
        }
        "content-disposition" => {
            let cd = mime::ContentDisposition::parse(f.value);
            json!({
                "disposition": cd.disposition, "filename": cd.filename(),
                "params": params(&cd.params), "findings": findings(&cd.findings),
            })
        }
        "content-transfer-encoding" => {
            json!({"transfer_encoding": mime::TransferEncoding::parse(f.value).as_str()})
        }
        "from" | "to" | "cc" | "bcc" | "reply-to" | "sender" => {
            let l = mime::parse_address_list(f.value);
            json!({
                "mailboxes": l.mailboxes.iter().map(|m| json!({
                    "name": m.display_name.as_ref().map(text),
                    "name_span": m.display_name_span,
                    "addr": m.addr_spec, "addr_span": m.addr_span,
                    "comments": m.comments.iter().map(|c| c.text.clone()).collect::<Vec<_>>(),
                    "group": m.group,
                })).collect::<Vec<_>>(),
                "groups": l.groups.iter().map(|g| g.name.text.clone()).collect::<Vec<_>>(),
                "findings": findings(&l.findings),
            })
        }
        "message-id" | "in-reply-to" | "references" | "resent-message-id" => {
            json!({"ids": mime::parse_msg_ids(f.value)})
        }
        "keywords" => json!({
            "keywords": mime::decode_phrase_list(f.value).iter().map(text).collect::<Vec<_>>()
        }),
        _ if f.has_name() => text(&mime::decode_unstructured(f.value)),
        _ => Value::Null,
    }
}

/// The full rendering (offsets included) and the decoded values alone.
fn render(input: &[u8]) -> (Value, Value) {
    let block = mime::parse_header_block(input);
    let mut full = Vec::new();
    let mut values = Vec::new();
    for f in &block.fields {
        let p = parsed(f);
        full.push(json!({
            "name": f.name_str(),
            "offset": f.offset,
            "raw_len": f.raw.len(),
            "value": common::escape_octets(f.value),
            "unfolded": common::escape_octets(&f.unfolded()),
            "line_ending": f.line_ending,
            "findings": findings(&f.findings()),
            "parsed": p,
        }));
        values.push(json!({
            "name": f.name_str(),
            "unfolded": common::escape_octets(&f.unfolded()),
            "parsed": strip_offsets(p),
        }));
    }
    let full = json!({
        "fields": full,
        "header_end": block.header_end,
        "body_offset": block.body_offset,
        "separator": block.separator,
        "line_ending": block.line_ending(),
    });
    (full, Value::Array(values))
}

/// Removes offsets, lengths and spans (they move with CRLF).
fn strip_offsets(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(k, _)| {
                    !matches!(k.as_str(), "offset" | "len" | "name_span" | "addr_span")
                })
                .map(|(k, v)| (k, strip_offsets(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(strip_offsets).collect()),
        v => v,
    }
}

fn to_crlf(lf: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(lf.len() + lf.len() / 16);
    for &b in lf {
        if b == b'\n' {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

#[test]
fn header_fixtures() {
    let mut seen = 0;
    insta::glob!("../../fixtures/headers", "*.txt", |path| {
        seen += 1;
        let lf = std::fs::read(path).expect("fixture readable");
        assert!(!lf.contains(&b'\r'), "fixtures are written with LF");
        let (full, values) = render(&lf);
        insta::assert_json_snapshot!(full);

        let crlf = to_crlf(&lf);
        let (full_crlf, values_crlf) = render(&crlf);
        assert_eq!(values, values_crlf, "CRLF changed a decoded value");
        // Each field's raw bytes still tile the header section.
        let block = mime::parse_header_block(&crlf);
        let tiled: Vec<u8> = block.fields.iter().flat_map(|f| f.raw.to_vec()).collect();
        assert_eq!(&tiled[..], &crlf[..block.header_end]);
        assert_eq!(full_crlf["line_ending"], "crlf");
    });
    assert!(seen >= 9, "the glob found {seen} fixtures");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/headers");
    assert!(dir.is_dir());
}

/// An encoded-word in parentheses in unstructured text (`Re: (=?...?=)`):
/// mailers write it, Python's `email` decodes it, and so do we, without a
/// `malformed-encoded-word` finding (a mutation that stopped counting `(`
/// and `)` as standing apart survived every test).
#[test]
fn an_encoded_word_in_parentheses_is_decoded() {
    let d = mailcharset::mime::decode_unstructured(b" Re: (=?utf-8?q?Gr=C3=BC=C3=9Fe?=)");
    assert_eq!(d.text, "Re: (Grüße)");
    assert!(d.findings.is_empty(), "{:?}", d.findings);
}
