//! Never panic, never lose a byte: every parser over arbitrary input, plus
//! the invariants the normalizer relies on (fields tile the header section
//! byte for byte; offsets point inside the value; bare CR and LF line ends
//! parse like CRLF).

use crate::common;
use mailcharset::mime;
use proptest::prelude::*;

/// Bytes that look like header material often enough to reach deep paths.
fn header_bytes() -> impl Strategy<Value = Vec<u8>> {
    let pieces = prop_oneof![
        Just(b"Subject: ".to_vec()),
        Just(b"Content-Type: text/plain; charset=".to_vec()),
        Just(b"Content-Disposition: attachment; filename*0*=utf-8''".to_vec()),
        Just(b"From: \"a\" <b@c>, ".to_vec()),
        Just(b"=?utf-8?q?".to_vec()),
        Just(b"=?utf-8?b?".to_vec()),
        Just(b"?=".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\r\n ".to_vec()),
        Just(b"\n\t".to_vec()),
        Just(b"(".to_vec()),
        Just(b")".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"\\".to_vec()),
        Just(b";".to_vec()),
        Just(b"=".to_vec()),
        Just(b"*".to_vec()),
        Just(b"'".to_vec()),
        Just(b"%".to_vec()),
        Just(b"<".to_vec()),
        Just(b">".to_vec()),
        Just(b":".to_vec()),
        Just(b",".to_vec()),
        prop::collection::vec(any::<u8>(), 0..8),
        "[a-zA-Z0-9 ]{0,8}".prop_map(String::into_bytes),
    ];
    prop::collection::vec(pieces, 0..60).prop_map(|v| v.concat())
}

fn check_everything(input: &[u8]) {
    let block = mime::parse_header_block(input);
    assert!(block.header_end <= block.body_offset && block.body_offset <= input.len());
    let tiled: Vec<u8> = block.fields.iter().flat_map(|f| f.raw.to_vec()).collect();
    assert_eq!(
        &tiled[..],
        &input[..block.header_end],
        "fields tile the header"
    );
    for f in &block.fields {
        assert_eq!(&input[f.offset..f.offset + f.raw.len()], f.raw);
        assert_eq!(
            &input[f.value_offset..f.value_offset + f.value.len()],
            f.value
        );
        let d = mime::decode_unstructured(f.value);
        for x in &d.findings {
            assert!(x.offset <= f.value.len(), "finding offset inside the value");
        }
        for w in &d.words {
            assert!(w.offset + w.len <= f.value.len());
            assert_eq!(&f.value[w.offset..w.offset + 2], b"=?");
        }
        let ct = mime::ContentType::parse(f.value);
        assert!(!ct.media_type.is_empty() && !ct.subtype.is_empty());
        let _ = mime::ContentDisposition::parse(f.value);
        let _ = mime::TransferEncoding::parse(f.value);
        let l = mime::parse_address_list(f.value);
        for m in &l.mailboxes {
            if let Some(s) = &m.addr_span {
                assert!(s.end <= f.value.len());
            }
        }
        let _ = mime::decode_phrase(f.value);
        let _ = f.unfolded();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_header_like_input(input in header_bytes()) {
        check_everything(&input);
    }

    #[test]
    fn never_panics_on_arbitrary_bytes(input in prop::collection::vec(any::<u8>(), 0..400)) {
        check_everything(&input);
    }

    /// The same header with LF, CRLF or bare CR line ends gives the same
    /// fields and unfolded values.
    #[test]
    fn line_ends_do_not_matter(lines in prop::collection::vec("[A-Za-z][A-Za-z-]{0,6}: [ -~]{0,20}|[ \t][ -~]{0,20}", 1..8)) {
        let parse = |eol: &str| {
            let text = lines.join(eol) + eol + eol + "body";
            let block = mime::parse_header_block(text.as_bytes());
            let fields: Vec<(Vec<u8>, Vec<u8>)> = block
                .fields
                .iter()
                .map(|f| (f.name.to_vec(), f.unfolded().into_owned()))
                .collect();
            (fields, text.len() - block.body_offset)
        };
        let lf = parse("\n");
        prop_assert_eq!(&lf, &parse("\r\n"));
        prop_assert_eq!(&lf, &parse("\r"));
        prop_assert_eq!(lf.1, 4, "the body starts after the empty line");
    }
}

/// Inputs that make naive parsers quadratic: every parser must come
/// through them whole. (No clock: a quadratic regression shows as a run of
/// minutes, not as a timing assertion that fails on a busy machine.)
#[test]
fn pathological_inputs_are_parsed() {
    let cases: Vec<Vec<u8>> = vec![
        b"Subject: "
            .iter()
            .copied()
            .chain(b"=?utf-8?q?a?= ".repeat(50_000))
            .collect(),
        b"Subject: "
            .iter()
            .copied()
            .chain(b"=?utf-8?q?".repeat(50_000))
            .collect(),
        b"X: ".iter().copied().chain(b"(".repeat(200_000)).collect(),
        b"Content-Type: a/b"
            .iter()
            .copied()
            .chain(b"; p*1*=%".repeat(30_000))
            .collect(),
        b"To: "
            .iter()
            .copied()
            .chain(b"<".repeat(100_000))
            .collect(),
        b"To: "
            .iter()
            .copied()
            .chain(b"\"a\" ".repeat(50_000))
            .collect(),
        b"A: b\r\n ".repeat(100_000),
    ];
    for c in &cases {
        check_everything(c);
    }
}

/// Every header section of the corpus (when present): every field through
/// every parser, with the invariants above.
#[test]
fn corpus_headers_hold_the_invariants() {
    let Some(dir) = common::corpus("corpus_headers_hold_the_invariants") else {
        return;
    };
    let mut stack = vec![dir];
    let mut n = 0;
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| matches!(x, "eml" | "msg" | "txt" | "mbox"))
                && let Ok(data) = std::fs::read(&p)
            {
                let end = mime::parse_header_block(&data).header_end;
                check_everything(&data[..end.min(64 * 1024)]);
                n += 1;
            }
        }
    }
    println!("{n} files");
    assert!(n > 4000);
}
