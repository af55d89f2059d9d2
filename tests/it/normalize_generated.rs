//! Generated messages (not in the repository): random trees of text parts
//! in many charsets and transfer codings, encoded-word subjects and display
//! names, RFC 2231 file names, attachments, nested messages — written with
//! independent encoders (encoding_rs, the `base64` and `quoted_printable`
//! crates). After normalization every text reads as it was written, every
//! attachment is byte-identical, a second run changes nothing, and Python's
//! `email` package reads the same texts, subjects and file names.

use crate::common;

use base64::Engine as _;
use mailcharset::charset::{self, DecodeOptions};
use mailcharset::message::{Message, PartKind};
use mailcharset::normalize::{self, Options};
use std::borrow::Cow;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// (label, encoding, alphabet of characters it can encode)
const CHARSETS: &[(&str, &str, &str)] = &[
    ("iso-8859-1", "windows-1252", "àéîõüßÄÖÜçñ¿¡"),
    ("windows-1252", "windows-1252", "€‘’“”–—…éà"),
    ("koi8-r", "koi8-r", "абвгдежзийклмнопрстуфхцчшщыэюяАБВ"),
    (
        "windows-1251",
        "windows-1251",
        "абвгдежзийклмнопрстуфхцчшщыэюяЖЩ",
    ),
    ("iso-8859-7", "iso-8859-7", "αβγδεζηθικλμνξοπρστυφχψω"),
    ("shift_jis", "shift_jis", "日本語のテキストです漢字かなカナ"),
    ("euc-jp", "euc-jp", "日本語のテキストです漢字かなカナ"),
    (
        "iso-2022-jp",
        "iso-2022-jp",
        "日本語のテキストです漢字かなカナ",
    ),
    ("gb2312", "gbk", "简体中文的电子邮件这是"),
    ("big5", "big5", "繁體中文的電子郵件這是"),
    ("euc-kr", "euc-kr", "한국어전자우편입니다안녕하세요"),
    ("utf-8", "utf-8", "àé€жω日本简한😀"),
];

const WORDS: &[&str] = &[
    "mail", "the", "charset", "test", "=", "a.b", "From", "x", "42",
];

fn text(rng: &mut Rng, alphabet: &str, lines: usize) -> String {
    let chars: Vec<char> = alphabet.chars().collect();
    let mut s = String::new();
    for _ in 0..lines {
        for w in 0..1 + rng.below(12) {
            if w > 0 {
                s.push(' ');
            }
            if rng.below(3) == 0 {
                for _ in 0..1 + rng.below(6) {
                    s.push(*rng.pick(&chars));
                }
            } else {
                let w: &str = WORDS[rng.below(WORDS.len())];
                s.push_str(w);
            }
        }
        s.push('\n');
    }
    s
}

fn encode(enc_name: &str, s: &str) -> Vec<u8> {
    let enc = encoding_rs::Encoding::for_label(enc_name.as_bytes()).unwrap();
    let (b, _, errors) = enc.encode(s);
    assert!(!errors, "{enc_name} cannot encode {s:?}");
    b.into_owned()
}

/// What a generated leaf should read as after normalization.
#[derive(Debug, Clone, PartialEq)]
enum Expect {
    Text(String),
    Bytes(Vec<u8>),
}

struct Gen {
    rng: Rng,
    expect: Vec<Expect>,
    filenames: Vec<String>,
    /// A UTF-8 part sent as 8bit: copied as it is, so the output may be 8-bit.
    utf8_8bit: bool,
}

impl Gen {
    fn leaf(&mut self, out: &mut Vec<u8>) {
        if self.rng.below(5) == 0 {
            // An attachment with an RFC 2231 Latin-1 file name.
            let data: Vec<u8> = (0..self.rng.below(300))
                .map(|_| self.rng.next() as u8)
                .collect();
            let b64 = base64::engine::general_purpose::STANDARD.encode(&data);
            out.extend_from_slice(
                b"Content-Type: application/octet-stream\nContent-Disposition: attachment; filename*=iso-8859-1''caf%E9%20%E0.bin\nContent-Transfer-Encoding: base64\n\n",
            );
            for chunk in b64.as_bytes().chunks(76) {
                out.extend_from_slice(chunk);
                out.push(b'\n');
            }
            self.expect.push(Expect::Bytes(data));
            self.filenames.push("café à.bin".into());
            return;
        }
        let &(label, enc, alphabet) = self.rng.pick(CHARSETS);
        let lines = 1 + self.rng.below(8);
        let t = text(&mut self.rng, alphabet, lines);
        let bytes = encode(enc, &t);
        let html = self.rng.below(4) == 0;
        let (subtype, t, bytes) = if html {
            let h = format!(
                "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset={label}\"></head><body>{t}</body></html>\n"
            );
            let expect = format!(
                "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\"></head><body>{t}</body></html>\n"
            );
            let bytes = encode(enc, &h);
            // ASCII under an ASCII-compatible label is left as it is.
            let converted = label != "utf-8" && (!bytes.is_ascii() || label == "iso-2022-jp");
            ("html", if converted { expect } else { h }, bytes)
        } else {
            ("plain", t, bytes)
        };
        let cte = if label == "iso-2022-jp" {
            "7bit"
        } else {
            *self.rng.pick(&["8bit", "quoted-printable", "base64"])
        };
        out.extend_from_slice(
            format!("Content-Type: text/{subtype}; charset=\"{label}\"\nContent-Transfer-Encoding: {cte}\n\n")
                .as_bytes(),
        );
        self.utf8_8bit |= label == "utf-8" && cte == "8bit";
        match cte {
            "base64" => {
                let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
                for chunk in b64.as_bytes().chunks(76) {
                    out.extend_from_slice(chunk);
                    out.push(b'\n');
                }
            }
            "quoted-printable" => {
                let qp = quoted_printable::encode(&bytes);
                // The crate writes CRLF soft breaks and =0A for LF: keep
                // LF line ends as hard breaks.
                let qp = String::from_utf8(qp)
                    .unwrap()
                    .replace("=0A", "\n")
                    .replace("=\r\n", "=\n");
                out.extend_from_slice(qp.as_bytes());
            }
            _ => out.extend_from_slice(&bytes),
        }
        self.expect.push(Expect::Text(t));
    }

    fn headers(&mut self, out: &mut Vec<u8>) -> String {
        let &(label, enc, alphabet) = self.rng.pick(CHARSETS);
        let subject = text(&mut self.rng, alphabet, 1).trim_end().to_string();
        let b = base64::engine::general_purpose::STANDARD.encode(encode(enc, &subject));
        out.extend_from_slice(format!("Subject: =?{label}?B?{b}?=\n").as_bytes());
        out.extend_from_slice(
            b"From: =?iso-8859-1?Q?J=F6rg_M=FCller?= <jm@example.org>\nMIME-Version: 1.0\n",
        );
        subject
    }

    fn part(&mut self, out: &mut Vec<u8>, depth: usize) {
        match self.rng.below(if depth >= 3 { 1 } else { 4 }) {
            0 | 1 => self.leaf(out),
            2 => {
                let boundary = format!("=_b{}_{}", depth, self.rng.below(1000));
                out.extend_from_slice(
                    format!("Content-Type: multipart/mixed; boundary=\"{boundary}\"\n\npreamble\n")
                        .as_bytes(),
                );
                for _ in 0..1 + self.rng.below(3) {
                    out.extend_from_slice(format!("--{boundary}\n").as_bytes());
                    self.part(out, depth + 1);
                    // The line end before a delimiter belongs to it.
                    out.push(b'\n');
                }
                out.extend_from_slice(format!("--{boundary}--\nepilogue\n").as_bytes());
            }
            _ => {
                out.extend_from_slice(b"Content-Type: message/rfc822\n\n");
                let _ = self.headers(out);
                self.part(out, depth + 1);
            }
        }
    }
}

/// Leaves of a parsed message, in order, read as text (text parts, through
/// their label) or bytes.
fn leaves(raw: &[u8]) -> Vec<Expect> {
    let msg = Message::parse(raw);
    msg.parts()
        .into_iter()
        .filter(|p| matches!(p.kind, PartKind::Leaf))
        .map(|p| {
            let (bytes, _) = p.decoded_body(&msg);
            if p.is_text() {
                let d =
                    charset::decode(&bytes, p.content_type.charset(), &DecodeOptions::default());
                Expect::Text(d.text.replace("\r\n", "\n"))
            } else {
                Expect::Bytes(bytes.into_owned())
            }
        })
        .collect()
}

const PY: &str = r#"
import sys, json, email, email.policy
out = []
for path in sys.stdin.read().splitlines():
    with open(path, "rb") as f:
        msg = email.message_from_bytes(f.read(), policy=email.policy.default)
    texts, names = [], []
    for part in msg.walk():
        if part.is_multipart() or part.get_content_maintype() == "message":
            continue
        if part.get_content_maintype() == "text":
            texts.append(part.get_content().replace("\r\n", "\n"))
        else:
            names.append(part.get_filename())
    out.append([str(msg["subject"]), texts, names])
print(json.dumps(out))
"#;

#[test]
fn generated_messages_read_the_same_after_normalization() {
    let tmp = tempfile::tempdir().unwrap();
    let mut oracle = Vec::new();
    for seed in 1..=300u64 {
        let mut g = Gen {
            rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
            expect: Vec::new(),
            filenames: Vec::new(),
            utf8_8bit: false,
        };
        let mut raw = b"Message-ID: <gen@example.org>\n".to_vec();
        let subject = g.headers(&mut raw);
        g.part(&mut raw, 0);
        let crlf = seed % 3 == 0;
        let raw = if crlf { common::to_crlf(&raw) } else { raw };
        // Every fourth message: raw UTF-8 headers and 8bit bodies.
        let raw_utf8 = seed % 4 == 1;
        let opts = if raw_utf8 {
            Options {
                headers: normalize::HeaderMode::Utf8,
                eight_bit: true,
                ..Options::default()
            }
        } else {
            Options::default()
        };
        let n = normalize::normalize(&raw, &opts).unwrap();
        assert_eq!(
            leaves(&n.bytes),
            g.expect,
            "seed {seed}:\n{}",
            String::from_utf8_lossy(&n.bytes)
        );
        let again = normalize::normalize(&n.bytes, &opts).unwrap();
        assert!(
            matches!(again.bytes, Cow::Borrowed(_)),
            "seed {seed}: not idempotent"
        );
        // 7-bit clean output by default (already-UTF-8 parts are copied).
        assert!(
            raw_utf8 || g.utf8_8bit || n.bytes.is_ascii(),
            "seed {seed}: 8-bit output:\n{}",
            String::from_utf8_lossy(&n.bytes)
        );
        let path = tmp.path().join(format!("{seed}.eml"));
        std::fs::write(&path, &n.bytes).unwrap();
        let texts: Vec<String> = g
            .expect
            .iter()
            .filter_map(|e| match e {
                Expect::Text(t) => Some(t.clone()),
                Expect::Bytes(_) => None,
            })
            .collect();
        oracle.push((path.display().to_string(), subject, texts, g.filenames));
    }
    let list: Vec<&str> = oracle.iter().map(|o| o.0.as_str()).collect();
    let Some(out) = common::python("generated", PY, list.join("\n").as_bytes()) else {
        return;
    };
    let py: Vec<(String, Vec<String>, Vec<Option<String>>)> = serde_json::from_slice(&out).unwrap();
    for ((path, subject, texts, names), (ps, pt, pn)) in oracle.iter().zip(&py) {
        assert_eq!(subject, ps, "{path}: subject");
        assert_eq!(texts, pt, "{path}: texts");
        let pn: Vec<String> = pn.iter().map(|n| n.clone().unwrap_or_default()).collect();
        assert_eq!(names, &pn, "{path}: file names");
    }
}
