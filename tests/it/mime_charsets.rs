//! Header decoding through non-UTF-8 charsets. The oracle is encoding_rs
//! (and Python's `email.header.decode_header` where noted).

use crate::common;
use base64_encode::encode as b64;
use mailcharset::finding::{FindingKind, Verdict};
use mailcharset::mime;

mod base64_encode {
    /// Plain base64 for building test vectors.
    pub fn encode(bytes: &[u8]) -> String {
        const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for c in bytes.chunks(3) {
            let v = (u32::from(c[0]) << 16)
                | (u32::from(c.get(1).copied().unwrap_or(0)) << 8)
                | u32::from(c.get(2).copied().unwrap_or(0));
            for k in 0..4 {
                out.push(if k <= c.len() {
                    char::from(A[((v >> (18 - 6 * k)) & 63) as usize])
                } else {
                    '='
                });
            }
        }
        out
    }
}

fn oracle(label: &str, bytes: &[u8]) -> String {
    let enc = encoding_rs::Encoding::for_label(label.as_bytes()).expect("encoding_rs knows it");
    enc.decode_without_bom_handling(bytes).0.into_owned()
}

#[test]
fn latin1_q_word() {
    let d = mime::decode_unstructured(b"=?ISO-8859-1?Q?Keld_J=F8rn_Simonsen?=");
    assert_eq!(d.words.len(), 1);
    assert_eq!(d.words[0].label, b"ISO-8859-1");
    assert_eq!(d.text, oracle("iso-8859-1", b"Keld J\xF8rn Simonsen"));
    assert_eq!(d.text, "Keld Jørn Simonsen");
    assert!(d.findings.is_empty(), "{:?}", d.findings);
}

/// A Shift_JIS character split across two B words decodes as one.
#[test]
fn multibyte_character_split_across_words() {
    let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("日本語のテキスト");
    let cut = 3; // inside the second two-octet character
    let value = format!(
        "=?Shift_JIS?B?{}?= =?shift_jis?B?{}?=",
        b64(&sjis[..cut]),
        b64(&sjis[cut..])
    );
    let d = mime::decode_unstructured(value.as_bytes());
    assert_eq!(d.words.len(), 2);
    assert_eq!(d.words[0].run, 0);
    assert_eq!(d.words[1].run, 0, "both words are one run");
    assert_eq!(d.text, "日本語のテキスト");
    assert_eq!(d.words[0].decoding.verdict, Verdict::Ok);
}

/// Different charsets are not joined: each run is decoded on its own.
#[test]
fn different_charsets_make_separate_runs() {
    let d = mime::decode_unstructured(b"=?iso-8859-1?q?=E9?= =?utf-8?q?=C3=A9?= =?koi8-r?b?6+/J?=");
    let runs: Vec<usize> = d.words.iter().map(|w| w.run).collect();
    assert_eq!(runs, [0, 1, 2]);
    assert_eq!(d.text, format!("éé{}", oracle("koi8-r", b"\xeb\xef\xc9")));
}

#[test]
fn rfc2231_latin1_sections_joined_then_decoded() {
    let cd = mime::ContentDisposition::parse(
        b"attachment; filename*0*=iso-8859-1'de'Hasen%20und%20Fr; filename*1*=%F6sche.txt",
    );
    let p = cd.param("filename").expect("filename");
    assert_eq!(p.raw, b"Hasen und Fr\xF6sche.txt");
    assert_eq!(p.charset.as_deref(), Some(&b"iso-8859-1"[..]));
    assert_eq!(p.language.as_deref(), Some("de"));
    assert_eq!(p.encoding, mime::ParamEncoding::Rfc2231);
    assert!(p.decoding.is_some());
    assert_eq!(p.value, "Hasen und Frösche.txt");
}

#[test]
fn raw_latin1_header_is_detected_and_reported() {
    let d = mime::decode_unstructured(b"Caf\xE9 cr\xE8me br\xFBl\xE9e \xE0 la fran\xE7aise");
    let f = d
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::Raw8bitHeader)
        .expect("raw-8bit-header finding");
    assert_eq!(f.offset, 3);
    assert_eq!(f.count, 6);
    assert!(d.raw8bit.is_some());
    assert_eq!(d.text, "Café crème brûlée à la française");
}

#[test]
fn raw_utf8_header_is_text_with_a_finding() {
    let d = mime::decode_unstructured("Grüße".as_bytes());
    assert_eq!(d.text, "Grüße");
    assert_eq!(d.findings.len(), 1);
    assert_eq!(d.findings[0].kind, FindingKind::Raw8bitHeader);
    assert_eq!(d.findings[0].count, 4);
}

#[test]
fn unknown_charset_is_reported() {
    let d = mime::decode_unstructured(b"=?x-no-such-charset?q?abc?=");
    assert!(d.findings.iter().any(|f| {
        f.kind == FindingKind::MalformedEncodedWord
            && f.note.as_deref() == Some("unknown charset in encoded-word")
    }));
    assert_eq!(d.text, "abc", "decoded best-effort");
    // ... and a known label is not.
    let d = mime::decode_unstructured(b"=?utf-8?q?abc?=");
    assert!(d.findings.is_empty(), "{:?}", d.findings);
}

#[test]
fn invalid_octets_in_a_utf8_word_get_a_verdict() {
    // One octet invalid under its label is no evidence of another charset
    // (damage looks the same): the label's reading stays, with U+FFFD at
    // the damage, verdict invalid (src/charset/decide.rs).
    let d = mime::decode_unstructured(b"=?utf-8?q?caf=E9?=");
    let dec = &d.words[0].decoding;
    assert_eq!(d.text, "caf\u{FFFD}");
    assert_eq!(dec.verdict, Verdict::Invalid);
    // Enough of a Latin-1 text is seen for what it is.
    let d = mime::decode_unstructured(b"=?utf-8?q?d=E9j=E0_l'=E9t=E9_=E0_No=EBl?=");
    let dec = &d.words[0].decoding;
    assert_eq!(d.text, "d\u{e9}j\u{e0} l'\u{e9}t\u{e9} \u{e0} No\u{eb}l");
    assert_eq!(dec.verdict, Verdict::Mislabeled);
    assert_eq!(dec.detected.map(|x| x.charset.name()), Some("windows-1252"));
}

/// Python's decode_header agrees on legacy-charset words (when python3 is
/// there and the real layer is in).
#[test]
fn python_decode_header_agrees_on_legacy_words() {
    let values = [
        "=?ISO-8859-1?Q?Andr=E9?= Pirard",
        "=?iso-8859-8?b?7eXs+SDv4SDp7Oj08A==?=",
        "=?ISO-8859-1?B?SWYgeW91IGNhbiByZWFkIHRoaXMgeW8=?= =?ISO-8859-2?B?dSB1bmRlcnN0YW5kIHRoZSBleGFtcGxlLg==?=",
        "=?koi8-r?b?8NLJ18XU?= =?windows-1251?q?=EC=E8=F0?=",
    ];
    let script = "import sys\nfrom email.header import decode_header, make_header\nfor v in sys.argv[1:]:\n    print(str(make_header(decode_header(v))))";
    let mut args = vec!["-c", script];
    args.extend(values);
    let Some(out) = common::oracle("mime_charsets::python", "python3", &args, b"") else {
        return;
    };
    let expected: Vec<String> = String::from_utf8_lossy(&out)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(expected.len(), values.len());
    for (v, e) in values.iter().zip(&expected) {
        let d = mime::decode_unstructured(v.as_bytes());
        assert!(!d.words.is_empty());
        assert_eq!(&d.text, e, "{v}");
    }
}

/// ISO-2022-JP words each end in ASCII (RFC 1468) and are decoded one by
/// one: joined, the back-to-back escape sequences would be an error for the
/// WHATWG decoder (regression: linux-mips 2002/af5ffdf7...).
#[test]
fn iso_2022_jp_words_are_decoded_one_by_one() {
    let v = b"=?ISO-2022-JP?B?GyRCISo5LTlwISpFPj8mJTUhPCVTJTkhSkw1TkEbKEI=?=\n =?ISO-2022-JP?B?GyRCIUsbKEI=?=";
    let d = mime::decode_unstructured(v);
    let runs: Vec<usize> = d.words.iter().map(|w| w.run).collect();
    assert_eq!(runs, [0, 1]);
    assert_eq!(d.text, "！広告！転職サービス（無料）");
}

/// Encoded-word sequences generated as mailers write them (B and Q,
/// labels in any case, 18 charsets, words of any charset split anywhere:
/// inside a character, an ISO-2022 escape or JIS mode; plain words
/// between, spaces, tabs and folds between words)
/// decode to what Python's `email` makes of them
/// (`str(make_header(decode_header(v)))`): an independent implementation,
/// 1,200 values (`tests/it/encoded_words_oracle.py`, three seeds).
#[test]
fn generated_encoded_words_decode_as_python_decodes_them() {
    let test = "generated_encoded_words_decode_as_python_decodes_them";
    let script = include_str!("encoded_words_oracle.py");
    let mut cases: Vec<serde_json::Value> = Vec::new();
    for seed in ["7", "1009", "31337"] {
        let Some(out) = common::oracle(test, "python3", &["-c", script, seed], b"") else {
            return;
        };
        let more: Vec<serde_json::Value> = serde_json::from_slice(&out).expect("JSON");
        cases.extend(more);
    }
    assert!(cases.len() >= 1100, "{} cases", cases.len());
    let mut wrong = Vec::new();
    for c in &cases {
        let value = c["value"].as_str().expect("value");
        let want = c["want"].as_str().expect("want");
        let d = mailcharset::mime::decode_unstructured(value.as_bytes());
        if d.text != want {
            wrong.push(format!(
                "{value:?}\n  python {want:?}\n  ours   {:?}",
                d.text
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}
