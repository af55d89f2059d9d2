//! Hostile input across the stack: each case completes (bounded time and
//! memory, by construction: linear scans and the `Limits`), reports
//! findings, keeps every byte accounted for, and does not panic.
//!
//! The limits are documented in one place: doc/limits.md.

use mailcharset::charset::{self, DecodeOptions};
use mailcharset::message::{Limits, Message, Part, PartKind, transfer};
use mailcharset::mime::{self, ContentType, parse_header_block};

/// Every header field and leaf body of every part is decoded once, the way
/// the consumers (normalize, audit) do; nothing may panic.
fn exercise(raw: &[u8]) -> Message<'_> {
    let msg = Message::parse(raw);
    for part in msg.parts() {
        for f in &part.header.fields {
            let _ = mime::decode_unstructured(f.value);
            let _ = mime::decode_phrase(f.value);
            let _ = mime::parse_address_list(f.value);
            let _ = ContentType::parse(f.value);
        }
        if matches!(part.kind, PartKind::Leaf) {
            let (body, _) = part.decoded_body(&msg);
            let label = part.content_type.charset();
            let _ = charset::decode(&body, label, &DecodeOptions::default());
        }
    }
    msg
}

fn covered(msg: &Message<'_>, p: &Part<'_>) {
    assert!(p.range.start <= p.body.start && p.body.end == p.range.end);
    assert!(p.range.end <= msg.raw.len());
}

#[test]
fn deep_nesting_2000_levels() {
    let mut raw = Vec::new();
    for i in 0..2_000 {
        raw.extend_from_slice(
            format!("Content-Type: multipart/mixed; boundary=\"n{i}\"\r\n\r\n--n{i}\r\n")
                .as_bytes(),
        );
    }
    raw.extend_from_slice(b"Content-Type: text/plain; charset=koi8-r\r\n\r\n\xf0\xd2\xc9\r\n");
    let msg = exercise(&raw);
    let depth = msg.parts().iter().map(|p| p.depth).max().unwrap_or(0);
    assert_eq!(depth, Limits::default().max_depth);
    assert!(!msg.findings.is_empty(), "the depth limit is reported");
}

#[test]
fn hundred_thousand_parts() {
    let mut raw = b"Content-Type: multipart/mixed; boundary=p\n\n".to_vec();
    for i in 0..100_000 {
        raw.extend_from_slice(format!("--p\nContent-Type: text/plain\n\n{i}\n").as_bytes());
    }
    raw.extend_from_slice(b"--p--\n");
    let msg = exercise(&raw);
    let PartKind::Multipart(m) = &msg.root.kind else {
        panic!("multipart expected");
    };
    assert_eq!(m.parts.len() + 1, Limits::default().max_parts);
    // The rest is kept, as the epilogue.
    assert!(msg.raw[m.epilogue.clone()].starts_with(b"\n--p\n"));
    assert!(!msg.findings.is_empty());
}

#[test]
fn ten_megabyte_header_line() {
    let mut raw = b"Subject: ".to_vec();
    raw.extend(std::iter::repeat_n(b'x', 10 << 20));
    raw.extend_from_slice(b"\nX-Long: ");
    for _ in 0..(1 << 16) {
        raw.extend_from_slice(b"=?utf-8?q?a?= ");
    }
    raw.extend_from_slice(b"\n\nbody\n");
    let msg = exercise(&raw);
    assert_eq!(msg.root.header.fields.len(), 2);
    assert!(!msg.root.headers_within_limit, "over max_header_bytes");
    assert_eq!(&msg.raw[msg.root.body.clone()], b"body\n");
}

#[test]
fn thousands_of_encoded_words_in_one_field() {
    let mut value = Vec::new();
    for i in 0..20_000 {
        // Alternate charsets so no run merges; every tenth word is broken.
        if i % 10 == 9 {
            value.extend_from_slice(b"=?utf-8?B?!!!?= ");
        } else if i % 2 == 0 {
            value.extend_from_slice(b"=?iso-8859-1?Q?=E9?= ");
        } else {
            value.extend_from_slice(b"=?utf-8?Q?=C3=A9?= ");
        }
    }
    let d = mime::decode_unstructured(&value);
    // 20,000 words, every tenth broken: the other 18,000 each an `é`.
    assert_eq!(d.text.chars().filter(|&c| c == 'é').count(), 18_000);
    assert!(
        d.findings
            .iter()
            .any(|f| f.kind == mailcharset::FindingKind::MalformedEncodedWord),
        "broken words are reported: {:?}",
        d.findings.first()
    );
}

#[test]
fn base64_full_of_garbage() {
    let mut body = Vec::new();
    for i in 0..200_000u32 {
        body.push(b"QUJD!@#$%^&*()\x00\xff\r\n=="[(i % 20) as usize]);
    }
    let d = transfer::decode_base64(&body);
    assert!(!d.findings.is_empty());
    let raw = [
        &b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n"[..],
        &body,
    ]
    .concat();
    exercise(&raw);
}

#[test]
fn nul_bytes_lone_cr_and_invalid_utf8_everywhere() {
    let nasty: &[&[u8]] = &[
        b"\x00",
        b"\r",
        b"\xc0\xaf",
        b"\xed\xa0\x80",
        b"\xf8\x88\x80\x80\x80",
        b"\xfe\xff",
        b"=?\x00?B?\xff?=",
        b"=?utf-8?Q?\xc0\x80?=",
        b"\"\\",
        b"(((((",
        b"<<<>>>",
        b"*0*=",
    ];
    for n in nasty {
        let mut raw = Vec::new();
        for name in [
            "From",
            "To",
            "Subject",
            "Content-Type",
            "Content-Disposition",
            "X-Junk",
        ] {
            raw.extend_from_slice(name.as_bytes());
            raw.extend_from_slice(b": a");
            raw.extend_from_slice(n);
            raw.extend_from_slice(b"; charset=\"");
            raw.extend_from_slice(n);
            raw.extend_from_slice(b"\"; filename*0*=utf-8''%C0%AF");
            raw.extend_from_slice(n);
            raw.extend_from_slice(b"\r");
        }
        raw.extend_from_slice(b"\r");
        raw.extend_from_slice(n);
        raw.extend_from_slice(b"body");
        let msg = exercise(&raw);
        covered(&msg, &msg.root);
        // Lone CR line ends are line ends: the fields are found (unless the
        // nasty bytes themselves hold a CR, which ends the header early).
        if !n.contains(&b'\r') {
            assert!(
                msg.root.header.fields.len() >= 6,
                "{:?}",
                String::from_utf8_lossy(n)
            );
        }
    }
}

#[test]
fn boundary_strings_that_collide_with_content() {
    // The boundary appears inside content (not at line start, or followed
    // by more characters), and a nested part reuses a prefix of it.
    let raw = b"Content-Type: multipart/mixed; boundary=\"=_\"\n\n\
--=_\nContent-Type: multipart/alternative; boundary=\"=_a\"\n\n\
--=_a\nContent-Type: text/plain\n\ntext with --=_ inside and\n--=_abc at line start\n\
--=_a--\n\
--=_\nContent-Type: text/plain\n\nsecond\n--=_--\n";
    let msg = exercise(raw);
    let types: Vec<String> = msg
        .parts()
        .iter()
        .map(|p| {
            format!(
                "{} {}/{}",
                p.id, p.content_type.media_type, p.content_type.subtype
            )
        })
        .collect();
    assert_eq!(
        types,
        [
            " multipart/mixed",
            "1 multipart/alternative",
            "1.1 text/plain",
            "2 text/plain"
        ]
    );
}

#[test]
fn garbage_and_empty_inputs() {
    exercise(b"");
    exercise(b"\n");
    exercise(b"\r\n\r\n");
    exercise(b":");
    exercise(b"From nobody\n");
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let junk: Vec<u8> = (0..1 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    exercise(&junk);
    // The same bytes as the body of a multipart whose boundary is in them.
    let mut raw = b"Content-Type: multipart/mixed; boundary=\"\xff\"\n\n".to_vec();
    raw.extend_from_slice(&junk);
    exercise(&raw);
}

#[test]
fn header_block_round_trips_byte_for_byte() {
    // Copying every field's raw bytes reproduces the header section: the
    // guarantee that lets a rewrite copy untouched fields.
    for raw in [
        &b"A: 1\r\n b\r\nC: 2\n\rD:3\r\n\r\nbody"[..],
        b"no colon here\nX: y\n\n",
        b"X: unterminated",
    ] {
        let h = parse_header_block(raw);
        let joined: Vec<u8> = h
            .fields
            .iter()
            .flat_map(|f| f.raw.iter().copied())
            .collect();
        assert_eq!(joined, &raw[..h.header_end]);
    }
}

#[test]
fn encoded_word_limit_is_a_cheap_count() {
    let limits = Limits::default();
    let words = |n: usize| "=?utf-8?q?a?= ".repeat(n);
    assert!(limits.field_within_limits(words(limits.max_encoded_words).as_bytes()));
    assert!(!limits.field_within_limits(words(limits.max_encoded_words + 1).as_bytes()));
    assert!(limits.field_within_limits(b"no words"));
    let f = limits.field_finding(7);
    assert_eq!((f.kind.as_str(), f.offset), ("limit-reached", 7));
}

/// Regression: the encoded-word limit was enforced by normalize alone (with
/// its own count) although doc/limits.md says normalize and audit.
#[test]
fn regression_both_consumers_keep_a_field_over_the_encoded_word_limit() {
    use mailcharset::audit::{self, AuditOptions, MessageContext};
    use mailcharset::normalize::{self, Options};
    let limits = Limits {
        max_encoded_words: 3,
        ..Limits::default()
    };
    let over = b"Subject: =?koi8-r?B?8NLJ?= =?koi8-r?B?8NLJ?= =?koi8-r?B?8NLJ?= =?koi8-r?B?8NLJ?=\n\nbody\n";
    let under = b"Subject: =?koi8-r?B?8NLJ?= =?koi8-r?B?8NLJ?=\n\nbody\n";
    let opts = Options {
        limits,
        ..Options::default()
    };
    let n = normalize::normalize(over, &opts).unwrap();
    assert_eq!(&n.bytes[..], &over[..], "kept as written");
    assert!(n.report.parts.iter().any(|p| {
        p.findings
            .iter()
            .any(|f| f.kind.as_str() == "limit-reached")
    }));
    assert_ne!(
        &normalize::normalize(under, &opts).unwrap().bytes[..],
        &under[..],
        "converted"
    );
    let ctx = MessageContext {
        input: "t",
        index: 0,
    };
    let aopts = AuditOptions {
        limits,
        ..AuditOptions::default()
    };
    let records = audit::audit_message(over, &ctx, &aopts);
    let subject: Vec<_> = records
        .iter()
        .filter(|r| r.location == "header:Subject")
        .collect();
    assert_eq!(subject.len(), 1);
    assert_eq!(subject[0].findings[0].kind.as_str(), "limit-reached");
    let records = audit::audit_message(under, &ctx, &aopts);
    assert!(
        records
            .iter()
            .any(|r| r.location == "header:Subject" && r.charset == Some("KOI8-R"))
    );
}
