//! Regressions, each named after the bug it pins.

use crate::common;

use mailcharset::normalize::{self, Options};
use std::borrow::Cow;

fn norm(raw: &[u8]) -> Vec<u8> {
    let n = normalize::normalize(raw, &Options::default()).unwrap();
    let again = normalize::normalize(&n.bytes, &Options::default()).unwrap();
    assert!(matches!(again.bytes, Cow::Borrowed(_)), "not idempotent");
    n.bytes.into_owned()
}

/// A part with no header fields used to get CRLF fields and a CRLF body
/// in an LF message (`HeaderBlock::line_ending` says CRLF when there are no
/// fields): the separator line, or the message, decides.
#[test]
fn regression_headerless_part_in_lf_message_gets_lf_fields() {
    let out = norm(b"Content-Type: multipart/mixed; boundary=b\n\n--b\n\ncaf\xe9 au lait\n--b--\n");
    assert!(!out.contains(&b'\r'), "{}", String::from_utf8_lossy(&out));
    assert_eq!(
        out,
        b"Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\ncaf=C3=A9 au lait\n--b--\n"
    );
    let crlf = norm(
        b"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n\r\ncaf\xe9 au lait\r\n--b--\r\n",
    );
    assert!(
        String::from_utf8_lossy(&crlf).contains("\r\nContent-Type: text/plain; charset=utf-8\r\n")
    );
}

/// A non-MIME message with 8-bit text becomes a MIME message: the new
/// Content-Type means nothing without MIME-Version (RFC 2045 4).
#[test]
fn regression_non_mime_message_gets_mime_version() {
    let out = norm(b"Subject: x\n\ncaf\xe9 au lait, s'il vous pla\xeet, merci bien.\n");
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("Subject: x\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n"),
        "{text}"
    );
}

/// Address lists: only the display name is rewritten; the address, the
/// comment and the other mailboxes stay as written.
#[test]
fn regression_address_list_keeps_addresses_and_comments() {
    let raw = b"From: =?iso-8859-1?q?J=F6rg?= <j@x.example> (home), plain@y.example\nTo: \"Undisclosed\": ;\n\nbody\n";
    let out = String::from_utf8(norm(raw)).unwrap();
    assert!(
        out.starts_with("From: =?UTF-8?B?SsO2cmc=?= <j@x.example> (home), plain@y.example\n"),
        "{out}"
    );
    assert!(out.contains("To: \"Undisclosed\": ;\n"));
}

/// RFC 2231 parameters with a legacy charset are rewritten; a multipart
/// Content-Type (whose boundary must not move) is never rewritten.
#[test]
fn regression_rfc2231_legacy_filename_rewritten_boundary_kept() {
    let raw = b"Content-Type: multipart/mixed; boundary=\"a b\"\n\n--a b\nContent-Type: application/pdf; name*=iso-8859-1''r%E9sum%E9.pdf\nContent-Transfer-Encoding: base64\n\nAAEC\n--a b--\n";
    let out = String::from_utf8(norm(raw)).unwrap();
    assert!(out.starts_with("Content-Type: multipart/mixed; boundary=\"a b\"\n"));
    assert!(
        out.contains("Content-Type: application/pdf; name*=utf-8''r%C3%A9sum%C3%A9.pdf\n"),
        "{out}"
    );
    assert!(out.contains("\nAAEC\n--a b--\n"));
}

/// A header that ends the input without a line end, holding a text part's
/// Content-Type with an unknown label: the inserted MIME-Version used to be
/// glued to the rewritten field (`charset=utf-8MIME-Version: 1.0`), and a
/// second run split them (not idempotent). Found by mutating the corpus.
#[test]
fn regression_header_without_final_line_end() {
    let out = norm(b"Content-type: text/html; charset=\"UTF-8Return-Path: x");
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("charset=utf-8\r\nMIME-Version: 1.0\r\n"),
        "{text:?}"
    );
}

mod mutations {
    use super::norm;
    use proptest::prelude::*;

    fn fixtures() -> Vec<Vec<u8>> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/messages");
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "eml"))
            .collect();
        v.sort();
        v.iter().map(|p| std::fs::read(p).unwrap()).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        /// Fixtures with bytes replaced by MIME-significant ones and cut
        /// anywhere: never a panic, and normalize∘normalize = normalize.
        #[test]
        fn mutated_fixtures_normalize_idempotently(
            which in 0usize..64,
            edits in proptest::collection::vec((any::<prop::sample::Index>(), prop::sample::select(vec![b'\n', b'\r', b'=', b'?', 0xE9, b'-', b' ', b'"', 0x80, b';', b'*', b'\'', b':'])), 0..8),
            cut in any::<prop::sample::Index>(),
            do_cut in any::<bool>(),
        ) {
            let all = fixtures();
            let mut m = all[which % all.len()].clone();
            for (at, b) in edits {
                let k = at.index(m.len());
                m[k] = b;
            }
            if do_cut {
                let k = cut.index(m.len() + 1);
                m.truncate(k);
            }
            let _ = norm(&m);
        }
    }
}

/// CESU-8 under a UTF-8 label (a Java or database export) lost every
/// supplementary character to U+FFFD. With `repair_cesu8` the body and the
/// encoded-word come out as the text (Python's `email` reads them back);
/// without it they are replaced, as WHATWG has it; with other damage
/// beside the pairs nothing is repaired.
#[test]
fn regression_cesu8_is_repaired_on_request() {
    let body = "smile \u{1F600}, clef \u{1D11E}, caf\u{E9}\n";
    let subject = "hi \u{1F600}";
    let b64 = |b: &[u8]| {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(b)
    };
    let message = |body: &[u8]| {
        [
            format!(
                "From: a@example.org\nSubject: =?utf-8?b?{}?=\nMIME-Version: 1.0\n\
                 Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n",
                b64(&common::cesu8(subject))
            )
            .as_bytes(),
            body,
        ]
        .concat()
    };
    let raw = message(&common::cesu8(body));
    let repair = Options {
        repair_cesu8: true,
        ..Options::default()
    };
    let n = normalize::normalize(&raw, &repair).unwrap();
    let again = normalize::normalize(&n.bytes, &repair).unwrap();
    assert!(matches!(again.bytes, Cow::Borrowed(_)), "not idempotent");
    let script = "import email,sys,json\n\
        from email import policy\n\
        m=email.message_from_bytes(sys.stdin.buffer.read(),policy=policy.default)\n\
        print(json.dumps([str(m['subject']),m.get_content()]))";
    if let Some(out) = common::python("regression_cesu8_is_repaired_on_request", script, &n.bytes) {
        let got: (String, String) = serde_json::from_slice(&out).unwrap();
        assert_eq!(got, (subject.to_string(), body.to_string()));
    }
    let text = String::from_utf8_lossy(&n.bytes).into_owned();
    assert!(!text.contains('\u{FFFD}'), "{text}");

    // Off by default: replaced, six U+FFFD per pair (WHATWG).
    let off = normalize::normalize(&raw, &Options::default()).unwrap();
    let body_off = body_text(&off.bytes);
    assert_eq!(body_off.matches('\u{FFFD}').count(), 12, "{body_off}");
    // A lone surrogate beside the pairs: not repaired either.
    let damaged = message(&[common::cesu8(body), b"\xED\xA0\x80\n".to_vec()].concat());
    let n = normalize::normalize(&damaged, &repair).unwrap();
    assert!(body_text(&n.bytes).contains('\u{FFFD}'));
}

/// The body of a normalized single-part message, transfer decoding undone.
fn body_text(msg: &[u8]) -> String {
    let m = mailcharset::message::Message::parse(msg);
    String::from_utf8(m.root.decoded_body(&m).0.into_owned()).unwrap()
}
