//! The contract the message tree, normalizer and auditor rely on, case by
//! case (the snapshots in mime_headers.rs cover the fixtures as a whole).

use mailcharset::finding::FindingKind;
use mailcharset::mime::{
    self, HeaderMode, LineEnding, ParamEncoding, TransferEncoding, WriteOptions,
};

#[test]
fn normalizer_can_copy_and_replace_fields() {
    let msg = b"Subject: =?utf-8?q?caf=C3=A9?=\r\nX-Keep:  as  is \r\n\tfolded\r\n\r\nbody\r\n";
    let block = mime::parse_header_block(msg);
    let mut out = Vec::new();
    for f in &block.fields {
        if f.is("subject") {
            let text = mime::decode_unstructured(f.value).text;
            let opts = WriteOptions {
                mode: HeaderMode::Utf8,
                ..WriteOptions::default()
            };
            out.extend_from_slice(mime::write_unstructured("Subject", &text, &opts).as_bytes());
            out.extend_from_slice(f.line_ending.as_bytes());
        } else {
            out.extend_from_slice(f.raw);
        }
    }
    out.extend_from_slice(&msg[block.header_end..]);
    assert_eq!(
        out,
        b"Subject: caf\xc3\xa9\r\nX-Keep:  as  is \r\n\tfolded\r\n\r\nbody\r\n"
    );
    assert_eq!(block.line_ending(), LineEnding::Crlf);
}

#[test]
fn lookups_ignore_case_and_keep_order() {
    let block = mime::parse_header_block(b"Received: a\nreceived: b\nRECEIVED: c\n\n");
    let all: Vec<Vec<u8>> = block
        .get_all("Received")
        .map(|f| f.unfolded().into_owned())
        .collect();
    assert_eq!(all, [b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
    assert_eq!(
        &*block
            .get("RECEIVED")
            .map(|f| f.unfolded())
            .unwrap_or_default(),
        b"a"
    );
    assert!(block.get("subject").is_none());
    assert_eq!(block.line_ending(), LineEnding::Lf);
}

#[test]
fn content_type_defaults() {
    let block = mime::parse_header_block(b"Subject: x\n\n");
    let ct = block.content_type();
    assert!(ct.defaulted && ct.is("text", "plain") && ct.findings.is_empty());
    assert_eq!(ct.charset(), None);
    let d = mime::ContentType::digest_default();
    assert!(d.is("message", "rfc822"));
    let ct = mime::ContentType::parse(b"Multipart/Mixed; Boundary=\"b1\"");
    assert!(ct.is_multipart() && !ct.defaulted);
    assert_eq!(ct.boundary(), Some(&b"b1"[..]));
    assert_eq!(ct.params[0].name, "boundary", "names are lowercased");
}

#[test]
fn transfer_encodings() {
    let cases: [(&[u8], TransferEncoding); 7] = [
        (b" 7bit", TransferEncoding::SevenBit),
        (b"8BIT", TransferEncoding::EightBit),
        (b"binary", TransferEncoding::Binary),
        (b" Quoted-Printable (qp)", TransferEncoding::QuotedPrintable),
        (b"\r\n base64", TransferEncoding::Base64),
        (b"x-uuencode", TransferEncoding::Other("x-uuencode".into())),
        (b"", TransferEncoding::Other(String::new())),
    ];
    for (v, e) in cases {
        assert_eq!(
            TransferEncoding::parse(v),
            e,
            "{:?}",
            String::from_utf8_lossy(v)
        );
    }
    let block = mime::parse_header_block(b"A: b\n\n");
    assert_eq!(block.transfer_encoding(), TransferEncoding::SevenBit);
}

#[test]
fn disposition_filename_forms() {
    let plain = mime::ContentDisposition::parse(b"attachment; filename=\"a.txt\"");
    assert!(plain.is_attachment());
    assert_eq!(plain.filename(), Some("a.txt"));
    assert_eq!(
        plain.param("filename").map(|p| p.encoding),
        Some(ParamEncoding::Plain)
    );
    let ew = mime::ContentDisposition::parse(b"inline; filename=\"=?utf-8?b?w6kudHh0?=\"");
    assert!(ew.is_inline());
    assert_eq!(ew.filename(), Some("é.txt"));
    let p = ew.param("filename").expect("filename");
    assert_eq!(p.encoding, ParamEncoding::Rfc2047);
    assert_eq!(p.words.len(), 1);
    assert_eq!(
        p.raw, b"=?utf-8?b?w6kudHh0?=",
        "raw is the value as written"
    );
    let ext = mime::ContentDisposition::parse(
        b"attachment; filename*=UTF-8''%C3%A9.txt; filename=\"e.txt\"",
    );
    let p = ext.param("filename").expect("filename");
    assert_eq!(p.value, "é.txt", "the RFC 2231 form wins over the fallback");
    assert_eq!(p.raw, "é.txt".as_bytes());
    assert_eq!(p.charset.as_deref(), Some(&b"UTF-8"[..]));
    assert_eq!(p.findings.len(), 1, "the fallback is reported");
}

#[test]
fn findings_point_into_the_value() {
    let v = b"ok =?utf-8?q?no_end and =?utf-8?b?!!!?=";
    let d = mime::decode_unstructured(v);
    let offsets: Vec<usize> = d
        .findings
        .iter()
        .filter(|f| {
            f.kind == FindingKind::MalformedEncodedWord
                && f.note.as_deref() != Some("unknown charset in encoded-word")
        })
        .map(|f| f.offset)
        .collect();
    assert_eq!(offsets, [3, 24]);
    assert_eq!(&v[3..5], b"=?");
    assert_eq!(d.text, "ok no end and =?utf-8?b?!!!?=");
}

#[test]
fn phrase_encoder_forms() {
    assert_eq!(
        mime::encode_phrase("John Doe", HeaderMode::Encoded),
        "John Doe"
    );
    assert_eq!(
        mime::encode_phrase("Doe, John", HeaderMode::Encoded),
        "\"Doe, John\""
    );
    assert_eq!(
        mime::encode_phrase("a \"b\" \\c", HeaderMode::Encoded),
        "\"a \\\"b\\\" \\\\c\""
    );
    // B or Q, whichever is shorter.
    assert_eq!(
        mime::encode_phrase("Jörg", HeaderMode::Encoded),
        "=?UTF-8?B?SsO2cmc=?="
    );
    assert_eq!(
        mime::encode_phrase("Herr Müller", HeaderMode::Encoded),
        "=?UTF-8?Q?Herr_M=C3=BCller?="
    );
    assert_eq!(mime::encode_phrase("Jörg", HeaderMode::Utf8), "\"Jörg\"");
    let e = mime::encode_phrase("=?utf-8?q?x?=", HeaderMode::Utf8);
    assert!(
        e.starts_with("=?UTF-8?"),
        "text that looks like an encoded-word is encoded: {e}"
    );
    assert_eq!(mime::decode_phrase(e.as_bytes()).text, "=?utf-8?q?x?=");
}

#[test]
fn parameter_writer_forms() {
    assert_eq!(
        mime::write_parameter("charset", "utf-8", HeaderMode::Encoded),
        ["charset=utf-8"]
    );
    let long = "x".repeat(100);
    let parts = mime::write_parameter("filename", &long, HeaderMode::Encoded);
    assert!(parts.len() > 1);
    assert!(parts[0].starts_with("filename*0=\""));
    assert!(parts[1].starts_with("filename*1=\""));
    let parts = mime::write_parameter("filename", &"é".repeat(40), HeaderMode::Encoded);
    assert!(parts[0].starts_with("filename*0*=utf-8''%C3%A9"));
    assert!(
        parts
            .iter()
            .all(|p| !p.contains("%C3;") && !p.ends_with("%C3")),
        "no character is split"
    );
    assert_eq!(
        mime::write_parameter("filename", "é.pdf", HeaderMode::Utf8),
        ["filename=\"é.pdf\""]
    );
    let field = mime::write_parameterized(
        "Content-Type",
        "text/plain",
        &[("charset", "utf-8"), ("name", &"é".repeat(40))],
        &WriteOptions {
            line_ending: LineEnding::Lf,
            ..WriteOptions::default()
        },
    );
    assert!(field.starts_with("Content-Type: text/plain; charset=utf-8;\n name*0*=utf-8''"));
    assert!(field.lines().all(|l| l.len() <= 76));
}

/// The normalizer changes one parameter and keeps the rest byte for byte.
#[test]
fn parameter_spans_allow_a_surgical_rewrite() {
    let value = b" text/plain; format=flowed;\r\n charset=\"iso-8859-1\" (old); delsp=yes";
    let ct = mime::ContentType::parse(value);
    let p = ct.param("charset").expect("charset");
    assert_eq!(p.spans.len(), 1);
    let span = p.spans[0].clone();
    assert_eq!(&value[span.clone()], b"charset=\"iso-8859-1\"");
    let mut out = value[..span.start].to_vec();
    out.extend_from_slice(b"charset=utf-8");
    out.extend_from_slice(&value[span.end..]);
    assert_eq!(
        out,
        b" text/plain; format=flowed;\r\n charset=utf-8 (old); delsp=yes"
    );
    // Every section of a continued parameter, in written order.
    let cd = mime::ContentDisposition::parse(b"a; f*1=b; x=1; f*0=a");
    let f = cd.param("f").expect("f");
    let written: Vec<&[u8]> = f
        .spans
        .iter()
        .map(|s| &b"a; f*1=b; x=1; f*0=a"[s.clone()])
        .collect();
    assert_eq!(written, [&b"f*1=b"[..], b"f*0=a"]);
    assert_eq!(f.value, "ab");
}
